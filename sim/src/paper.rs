//! The OpenRDMA paper's experiments, rerun in this simulator, each next to the paper's
//! figure.
//!
//! The paper (2026) measured an RTL NIC in an RTL/network co-simulation. This module
//! rebuilds each of its experiments on the reference model and the fabric of this crate,
//! with every parameter written down, and says how our figure compares:
//!
//! | id | experiment | the paper |
//! |---|---|---|
//! | a | payload goodput over four 100 Gb/s paths | 380.9 Gb/s |
//! | b | one QP: spraying against a fixed path | up to 3.51× |
//! | c | one to three lost packets: drop → completion | 508–598 ns (one), 620–682 ns (two, three) |
//! | d | flag delay under out-of-order arrival; order kept | 10–210 ns, order preserved |
//! | e | shared retirement: cross-QP head-of-line blocking | named as a limit |
//! | f | path skew: receive-window pressure | named as a limit |
//! | g | bytes crossing PCIe per submission | the 8-byte token |
//!
//! [`run_all`] runs them all (about a second in release; [`run`] with `quick` for tests)
//! and returns a [`PaperReport`]: plain data (serde), deterministic for a seed. The
//! simulator's correctness counters are summed per experiment ([`Checks`]): they must stay
//! zero whatever the figures.
//!
//! Where the report lacks a figure (per-message placement and flag times, placed PSNs,
//! per-QP latency), the experiments read the NIC events through [`Sim::tap_events`].

use std::collections::{BTreeMap, HashSet};

use openrdma_codec::Psn;
use openrdma_codec::host::{DOORBELL_LEN, WQE_LEN};
use openrdma_sm::{NicEvent, NicReport, RetirementMode, Side, SprayPolicy};
use serde::{Deserialize, Serialize};

use crate::config::{AimedDrop, FlowConfig, LossModel, PathConfig, SimConfig};
use crate::engine::{Sim, Tapped, qp_number};
use crate::report::SimReport;
use crate::wire::{frame_wire_bytes, write_ext_bytes};

/// Every experiment, its parameters, our figures and the paper's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperReport {
    /// Seed of every run.
    pub seed: u64,
    /// Whether this is the shortened run (fewer messages and points).
    pub quick: bool,
    /// One entry per experiment, `a` to `g`.
    pub experiments: Vec<Experiment>,
    /// The data behind the plots.
    pub series: Series,
}

/// One experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    /// Short id, `a` to `g`, as in the module documentation.
    pub id: String,
    /// What is measured.
    pub name: String,
    /// Every parameter of the runs.
    pub parameters: Vec<Param>,
    /// Our figures.
    pub ours: Vec<Figure>,
    /// The paper's figure, as it states it.
    pub paper: String,
    /// One line: how ours compares.
    pub comparison: String,
    /// Notes on method (definitions, how ours differs from the paper's setting).
    pub notes: Vec<String>,
    /// Correctness counters summed over the experiment's runs.
    pub checks: Checks,
}

/// A named parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    /// Name.
    pub name: String,
    /// Value, with its unit.
    pub value: String,
}

/// A named figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// What it is.
    pub name: String,
    /// Value.
    pub value: f64,
    /// Unit.
    pub unit: String,
}

/// Correctness counters of a set of runs: all zero, and every message delivered, when the
/// model and the simulator are right.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checks {
    /// Simulations run.
    pub runs: u64,
    /// Messages posted.
    pub messages_submitted: u64,
    /// Messages retired at the receiver.
    pub messages_delivered: u64,
    /// See [`SimReport::duplicates_delivered`].
    pub duplicates_delivered: u64,
    /// See [`SimReport::order_violations`].
    pub order_violations: u64,
    /// See [`SimReport::flag_before_data`].
    pub flag_before_data: u64,
    /// See [`SimReport::writes_after_flag`].
    pub writes_after_flag: u64,
    /// See [`SimReport::peer_violations`].
    pub peer_violations: u64,
    /// See [`SimReport::qp_errors`].
    pub qp_errors: u64,
    /// Runs that hit the horizon with work left.
    pub hit_horizon: u64,
}

impl Checks {
    fn add(&mut self, r: &SimReport) {
        self.runs += 1;
        self.messages_submitted += r.messages_submitted;
        self.messages_delivered += r.messages_delivered;
        self.duplicates_delivered += r.duplicates_delivered;
        self.order_violations += r.order_violations;
        self.flag_before_data += r.flag_before_data;
        self.writes_after_flag += r.writes_after_flag;
        self.peer_violations += r.peer_violations;
        self.qp_errors += r.qp_errors;
        self.hit_horizon += u64::from(r.hit_horizon);
    }

    /// Whether every message was delivered and every counter is zero.
    pub fn is_clean(&self) -> bool {
        self.messages_delivered == self.messages_submitted
            && self.duplicates_delivered
                + self.order_violations
                + self.flag_before_data
                + self.writes_after_flag
                + self.peer_violations
                + self.qp_errors
                + self.hit_horizon
                == 0
    }
}

/// The data behind the plots.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Goodput against random loss on every path (4 × 100 Gb/s, PMTU 4096).
    pub goodput_vs_loss: Vec<LossPoint>,
    /// Experiment (c): one point per drop placement.
    pub recovery: Vec<RecoveryPoint>,
    /// Experiment (d): every message's flag delay, ns, per retirement mode.
    pub flag_delay_ns: BTreeMap<String, Vec<u64>>,
    /// Experiment (f): one point per skew and policy.
    pub skew: Vec<SkewPoint>,
}

/// Goodput at one loss rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LossPoint {
    /// Loss probability of every path.
    pub loss: f64,
    /// Goodput, Gb/s.
    pub goodput_gbps: f64,
    /// The wire limit, Gb/s.
    pub wire_limit_gbps: f64,
    /// Packets retransmitted.
    pub retransmissions: u64,
}

/// One placement of the aimed drops of experiment (c).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecoveryPoint {
    /// Propagation delay of every path, ns: the end-to-end fabric or the NIC-local one.
    pub fabric_delay_ns: u64,
    /// The sender's tail-probe delay, ns (`SND-TAIL-001`); `None`: per-EV inference alone.
    pub tail_probe_ns: Option<u64>,
    /// PSNs dropped (first transmission only).
    pub psns: Vec<Psn>,
    /// From the first dropped packet's would-be arrival to the completion landing, ns.
    pub recovery_ns: u64,
    /// From the same instant to the first retransmission leaving the sender's pipeline
    /// (the loss detected), ns.
    pub detect_ns: u64,
    /// The same span in the run without drops, ns: the part of the recovery time that
    /// is not recovery (the rest of the message, the transport ACK, the completion write).
    pub baseline_ns: u64,
    /// Retransmissions inferred from a SACK.
    pub sack_inference: u64,
    /// Retransmissions after a NACK.
    pub nack: u64,
    /// Retransmissions after a timeout.
    pub timeout: u64,
}

/// One run of experiment (f).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkewPoint {
    /// Extra delay of path 3, ns.
    pub skew_ns: u64,
    /// `round-robin` or `skew-aware`.
    pub policy: String,
    /// Goodput, Gb/s.
    pub goodput_gbps: f64,
    /// Most PSNs a receiving QP had open at once: highest placed PSN − cumulative PSN + 1.
    pub peak_ooo_depth: u32,
    /// The same depth's median over every placement: the pressure the window lives with,
    /// where the peak may come from the first round trips.
    pub median_ooo_depth: u32,
    /// The receive window, packets.
    pub window: u32,
    /// Fraction of the data packets sent on the slow path (3).
    pub slow_path_share: f64,
}

/// Runs every experiment at full length.
pub fn run_all(seed: u64) -> PaperReport {
    run(seed, false)
}

/// Runs every experiment; `quick` shortens each (fewer messages, fewer points).
pub fn run(seed: u64, quick: bool) -> PaperReport {
    let mut series = Series::default();
    let experiments = vec![
        goodput(seed, quick, &mut series),
        spraying(seed, quick),
        recovery(seed, quick, &mut series),
        flag_delay(seed, quick, &mut series),
        hol_blocking(seed, quick),
        skew(seed, quick, &mut series),
        pcie(),
    ];
    PaperReport { seed, quick, experiments, series }
}

impl PaperReport {
    /// The experiment with this id.
    pub fn experiment(&self, id: &str) -> Option<&Experiment> {
        self.experiments.iter().find(|e| e.id == id)
    }

    /// Whether every experiment's correctness counters are zero.
    pub fn is_correct(&self) -> bool {
        self.experiments.iter().all(|e| e.checks.is_clean())
    }
}

impl Experiment {
    /// The figure with this name.
    pub fn figure(&self, name: &str) -> Option<f64> {
        self.ours.iter().find(|f| f.name == name).map(|f| f.value)
    }
}

fn p(name: &str, value: impl ToString) -> Param {
    Param { name: name.into(), value: value.to_string() }
}

fn fig(name: &str, value: f64, unit: &str) -> Figure {
    Figure { name: name.into(), value, unit: unit.into() }
}

const PATHS: usize = 4;
const RATE_GBPS: f64 = 100.0;
const DELAY_NS: u64 = 500;

fn fabric_params(cfg: &SimConfig) -> Vec<Param> {
    let skews: Vec<String> = cfg.paths.iter().map(|p| p.skew_ns.to_string()).collect();
    vec![
        p("paths", cfg.paths.len()),
        p("rate", format!("{} Gb/s per path", cfg.paths[0].rate_gbps)),
        p("propagation delay", format!("{} ns", cfg.paths[0].delay_ns)),
        p("skew per path", format!("[{}] ns", skews.join(", "))),
        p("switch queue", format!("{} B per output", cfg.paths[0].queue_bytes)),
        p(
            "header stack",
            if cfg.ipv6 {
                "Ethernet/IPv6/UDP/BTH/METH/TSETH/RETH"
            } else {
                "Ethernet/IPv4/UDP/BTH/METH/TSETH/RETH"
            },
        ),
        p("window", format!("{} packets (MPR {})", cfg.nic.window(), cfg.nic.mpr)),
        p("EVs per QP", cfg.evs_per_qp),
        p(
            "NIC timing",
            format!(
                "{} MHz, tx {} cycles, rx {} cycles, DMA write {} ns, flag write {} ns, tx buffer {} packets/port",
                cfg.timing.clock_mhz,
                cfg.timing.tx_pipeline_cycles,
                cfg.timing.rx_pipeline_cycles,
                cfg.timing.dma_write_ns,
                cfg.timing.flag_write_ns,
                cfg.timing.tx_queue_depth
            ),
        ),
        p("seed", cfg.seed),
    ]
}

fn flow_params(cfg: &SimConfig) -> Vec<Param> {
    let f = &cfg.flows[0];
    vec![
        p("PMTU", format!("{} B", cfg.nic.pmtu)),
        p("QPs", f.qps),
        p("messages per QP", f.messages),
        p("message size", format!("{} B (RDMA Write)", f.message_bytes)),
        p("post interval", format!("{} ns", f.post_interval_ns)),
        p("spray", policy_name(f.spray)),
        p("retirement", mode_name(cfg.nic.retirement)),
    ]
}

fn policy_name(s: SprayPolicy) -> &'static str {
    match s {
        SprayPolicy::RoundRobin => "round-robin",
        SprayPolicy::Random => "random",
        SprayPolicy::Fixed => "fixed",
        SprayPolicy::SkewAware => "skew-aware",
        SprayPolicy::WindowFit => "window-fit",
    }
}

fn mode_name(m: RetirementMode) -> &'static str {
    match m {
        RetirementMode::Shared => "shared",
        RetirementMode::PerQp => "per-QP",
    }
}

fn base(seed: u64, pmtu: u32, flow: FlowConfig) -> SimConfig {
    let path = PathConfig { rate_gbps: RATE_GBPS, delay_ns: DELAY_NS, ..PathConfig::default() };
    let mut cfg = SimConfig::two_hosts(PATHS, path, flow);
    cfg.seed = seed;
    cfg.nic.pmtu = pmtu;
    cfg.horizon_ns = 1_000_000_000;
    cfg
}

fn simulate(cfg: SimConfig) -> SimReport {
    Sim::new(cfg).expect("the experiments' configurations are valid").run()
}

fn simulate_tapped(cfg: SimConfig) -> (SimReport, Vec<Tapped>) {
    let mut sim = Sim::new(cfg).expect("the experiments' configurations are valid");
    sim.tap_events(true);
    let r = sim.run_with(&mut |_| {});
    (r, sim.take_tapped())
}

/// The `q`-quantile of sorted samples (the sample of rank ⌈q·n⌉), 0 when empty.
fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

// (a) ------------------------------------------------------------------------------------

fn goodput(seed: u64, quick: bool, series: &mut Series) -> Experiment {
    let messages = if quick { 4 } else { 256 };
    let flow =
        |m| FlowConfig { qps: 8, messages: m, message_bytes: 65536, ..FlowConfig::default() };
    let mut checks = Checks::default();
    let mut ours = Vec::new();
    let mut parameters = Vec::new();
    let mut at2048 = 0.0;
    let mut limit2048 = 0.0;
    for pmtu in [2048, 4096] {
        let cfg = base(seed, pmtu, flow(messages));
        if parameters.is_empty() {
            parameters = fabric_params(&cfg);
            parameters.extend(flow_params(&cfg).into_iter().filter(|x| x.name != "PMTU"));
            parameters.push(p("PMTU", "2048 B and 4096 B"));
            parameters.push(p("loss", "none"));
        }
        let r = simulate(cfg);
        checks.add(&r);
        ours.push(fig(&format!("goodput, PMTU {pmtu}"), r.goodput_gbps, "Gb/s"));
        ours.push(fig(&format!("wire limit, PMTU {pmtu}"), r.wire_limit_gbps, "Gb/s"));
        ours.push(fig(&format!("efficiency, PMTU {pmtu}"), 100.0 * r.efficiency(), "%"));
        if pmtu == 2048 {
            at2048 = r.goodput_gbps;
            limit2048 = r.wire_limit_gbps;
        }
    }
    // Goodput against loss, for the plot.
    let losses: &[f64] =
        if quick { &[0.0, 0.02, 0.1] } else { &[0.0, 0.005, 0.01, 0.02, 0.05, 0.1] };
    let sweep = if quick { 2 } else { 64 };
    for &loss in losses {
        let mut cfg = base(seed, 4096, flow(sweep));
        for path in &mut cfg.paths {
            path.loss = if loss > 0.0 { LossModel::Random { p: loss } } else { LossModel::None };
        }
        let r = simulate(cfg);
        checks.add(&r);
        series.goodput_vs_loss.push(LossPoint {
            loss,
            goodput_gbps: r.goodput_gbps,
            wire_limit_gbps: r.wire_limit_gbps,
            retransmissions: r.retransmissions,
        });
    }
    parameters.push(p(
        "loss sweep (plot)",
        format!("{losses:?} random loss on every path, PMTU 4096, 8 QPs × {sweep} × 64 KiB"),
    ));
    Experiment {
        id: "a".into(),
        name: "payload goodput over four 100 Gb/s paths".into(),
        parameters,
        ours,
        paper: "380.9 Gb/s payload goodput over 4 × 100 Gb/s".into(),
        comparison: format!(
            "PMTU 2048: ours {at2048:.1} Gb/s of a {limit2048:.1} Gb/s wire limit; the paper's 380.9 Gb/s is {:.1} % of that limit: it implies {:.1} B of overhead per 2048 B packet where our stack (with TSETH) takes {} B; without the 4-byte TSETH our limit is {:.1} Gb/s, just above the paper's figure",
            100.0 * 380.9 / limit2048,
            2048.0 * 400.0 / 380.9 - 2048.0,
            frame_wire_bytes(write_ext_bytes(true, false), 2048, false) - 2048,
            400.0 * 2048.0 / f64::from(frame_wire_bytes(write_ext_bytes(false, false), 2048, false))
        ),
        notes: vec![
            "goodput = payload bytes of retired messages × 8 / (last retirement flag landing − first post)".into(),
            "wire limit = Σ path rates × payload / wire bytes of this workload (preamble, gap, FCS, headers, ICRC)".into(),
        ],
        checks,
    }
}

// (b) ------------------------------------------------------------------------------------

fn spraying(seed: u64, quick: bool) -> Experiment {
    let messages = if quick { 8 } else { 256 };
    let mut checks = Checks::default();
    let mut run = |spray| {
        let flow =
            FlowConfig { qps: 1, messages, message_bytes: 65536, spray, ..FlowConfig::default() };
        let cfg = base(seed, 4096, flow);
        let r = simulate(cfg.clone());
        checks.add(&r);
        (cfg, r)
    };
    let (cfg, fixed) = run(SprayPolicy::Fixed);
    let (_, rr) = run(SprayPolicy::RoundRobin);
    let ratio = rr.goodput_gbps / fixed.goodput_gbps.max(1e-9);
    let mut parameters = fabric_params(&cfg);
    parameters.extend(flow_params(&cfg).into_iter().filter(|x| x.name != "spray"));
    parameters.push(p("spray", "fixed (one EV, one path) against round-robin over 8 EVs"));
    Experiment {
        id: "b".into(),
        name: "one QP: spraying against a fixed path".into(),
        parameters,
        ours: vec![
            fig("goodput, fixed path", fixed.goodput_gbps, "Gb/s"),
            fig("goodput, round-robin spraying", rr.goodput_gbps, "Gb/s"),
            fig("ratio", ratio, "×"),
        ],
        paper: "spraying gives up to 3.51× the single-QP goodput of a fixed path per QP".into(),
        comparison: format!(
            "{ratio:.2}× against the paper's up to 3.51×; the ideal is 4× (four equal paths of which a fixed path uses one)"
        ),
        notes: vec![
            "a fixed-path QP is limited to one 100 Gb/s port; spraying uses all four".into(),
        ],
        checks,
    }
}

// (c) ------------------------------------------------------------------------------------

/// Packets of the message of experiment (c).
const C_PACKETS: u32 = 16;

/// Aimed-drop placements of experiment (c): every PSN, every pair and every triple of the
/// 16-packet message; the quick run takes [`QUICK_PLACEMENTS`].
fn placements(quick: bool) -> Vec<Vec<u32>> {
    if quick {
        return QUICK_PLACEMENTS.iter().map(|p| p.to_vec()).collect();
    }
    let n = C_PACKETS;
    let mut out: Vec<Vec<u32>> = (0..n).map(|a| vec![a]).collect();
    for a in 0..n {
        for b in a + 1..n {
            out.push(vec![a, b]);
        }
    }
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                out.push(vec![a, b, c]);
            }
        }
    }
    out
}

/// The quick run's placements.
const QUICK_PLACEMENTS: &[&[u32]] = &[
    &[0],
    &[3],
    &[6],
    &[9],
    &[13],
    &[0, 1],
    &[2, 7],
    &[5, 10],
    &[8, 13],
    &[0, 1, 2],
    &[1, 5, 9],
    &[4, 8, 12],
    &[6, 7, 11],
];

/// Propagation delay of every path in the NIC-local setting of experiment (c): the NICs
/// back to back through one switch hop, so that the time is the NICs' own.
const LOCAL_DELAY_NS: u64 = 0;

/// The tail-probe delay of experiment (c)'s second series (`SND-TAIL-001`): a round trip of
/// the end-to-end fabric plus the receiver's SACK delay (1 µs), the longest a SACK can take
/// to report a tail that arrived.
const TAIL_PROBE_NS: u64 = 2_000;

/// Runs every placement of experiment (c) over paths of `delay_ns`, with tail probing at
/// `tail_probe_ns` or without, adding each run's checks, and returns the configuration and
/// one point per placement.
fn recovery_runs(
    seed: u64,
    quick: bool,
    delay_ns: u64,
    tail_probe_ns: Option<u64>,
    checks: &mut Checks,
) -> (SimConfig, Vec<RecoveryPoint>) {
    let flow = FlowConfig {
        qps: 1,
        messages: 1,
        message_bytes: C_PACKETS * 4096,
        ..FlowConfig::default()
    };
    let mut cfg = base(seed, 4096, flow);
    for path in &mut cfg.paths {
        path.delay_ns = delay_ns;
    }
    cfg.nic.tail_probe = tail_probe_ns.map(std::time::Duration::from_nanos);
    // The run without drops: when each packet arrives, and when the completion lands.
    let (r, tap) = simulate_tapped(cfg.clone());
    checks.add(&r);
    let arrival: BTreeMap<u32, u64> = tap
        .iter()
        .filter_map(|t| match &t.event {
            NicEvent::DmaWrite(w) if t.host == 1 => Some((w.psn.value(), t.at_ps)),
            _ => None,
        })
        .collect();
    let clean_done = completion_ps(&tap);
    let mut points = Vec::new();
    for psns in placements(quick) {
        let psns: Vec<Psn> = psns.into_iter().map(Psn::new).collect();
        let mut c = cfg.clone();
        c.aimed_drops = psns.iter().map(|&psn| AimedDrop { flow: 0, qp: 0, psn }).collect();
        let (r, tap) = simulate_tapped(c);
        checks.add(&r);
        let first = psns.iter().filter_map(|p| arrival.get(&p.value())).copied().min().unwrap_or(0);
        let done = completion_ps(&tap);
        points.push(RecoveryPoint {
            fabric_delay_ns: delay_ns,
            tail_probe_ns,
            recovery_ns: done.saturating_sub(first) / 1000,
            detect_ns: first_retransmission_ps(&tap).saturating_sub(first) / 1000,
            baseline_ns: clean_done.saturating_sub(first) / 1000,
            sack_inference: r.retransmissions_by_cause.sack_inference,
            nack: r.retransmissions_by_cause.nack,
            timeout: r.retransmissions_by_cause.timeout,
            psns,
        });
    }
    (cfg, points)
}

/// Min, median and max of some placements' `value`, by number of packets lost, for the
/// placements `keep` selects.
fn by_losses(
    points: &[RecoveryPoint],
    keep: impl Fn(&RecoveryPoint) -> bool,
    value: impl Fn(&RecoveryPoint) -> u64,
) -> BTreeMap<usize, (u64, u64, u64, usize)> {
    let mut by: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
    for p in points.iter().filter(|p| keep(p)) {
        by.entry(p.psns.len()).or_default().push(value(p));
    }
    by.into_iter()
        .map(|(k, mut v)| {
            v.sort_unstable();
            (k, (v[0], quantile(&v, 0.5), v[v.len() - 1], v.len()))
        })
        .collect()
}

fn recovery(seed: u64, quick: bool, series: &mut Series) -> Experiment {
    let mut checks = Checks::default();
    let tail = Some(TAIL_PROBE_NS);
    let (cfg, e2e) = recovery_runs(seed, quick, DELAY_NS, None, &mut checks);
    let (_, local) = recovery_runs(seed, quick, LOCAL_DELAY_NS, None, &mut checks);
    let (_, e2e_tail) = recovery_runs(seed, quick, DELAY_NS, tail, &mut checks);
    let (_, local_tail) = recovery_runs(seed, quick, LOCAL_DELAY_NS, tail, &mut checks);
    let inferred = |p: &RecoveryPoint| p.timeout == 0;
    let all = |_: &RecoveryPoint| true;
    let mut ours = Vec::new();
    // Min, median and max drop → completion by packets lost, over the placements `keep`
    // selects; returns the text for the comparison.
    let mut ranges =
        |label: &str, points: &[RecoveryPoint], keep: &dyn Fn(&RecoveryPoint) -> bool| {
            let mut text = Vec::new();
            for (k, (min, med, max, n)) in by_losses(points, keep, |p| p.recovery_ns) {
                let name = format!("{label}, {k} lost (n = {n})");
                ours.push(fig(&format!("{name}: min"), min as f64, "ns"));
                ours.push(fig(&format!("{name}: median"), med as f64, "ns"));
                ours.push(fig(&format!("{name}: max"), max as f64, "ns"));
                text.push(format!("{k} lost {min}–{max} ns (median {med})"));
            }
            text.join(", ")
        };
    let local_inferred = ranges("per-EV inference, NIC-local, no timeout", &local, &inferred);
    let e2e_inferred = ranges("per-EV inference, end to end, no timeout", &e2e, &inferred);
    ranges("per-EV inference, end to end, all placements", &e2e, &all);
    let local_probed = ranges("tail probes, NIC-local, all placements", &local_tail, &all);
    let e2e_probed = ranges("tail probes, end to end, all placements", &e2e_tail, &all);
    // What the loss adds: the same span without any drop taken away.
    let added = |points: &[RecoveryPoint], keep: &dyn Fn(&RecoveryPoint) -> bool| {
        by_losses(points, keep, |p| p.recovery_ns.saturating_sub(p.baseline_ns))
    };
    let mut added_text = Vec::new();
    for (label, points, keep) in [
        ("per-EV inference, NIC-local", &local, &inferred as &dyn Fn(&RecoveryPoint) -> bool),
        ("tail probes, NIC-local", &local_tail, &all),
    ] {
        let mut line = Vec::new();
        for (k, (min, med, max, _)) in added(points, keep) {
            ours.push(fig(
                &format!("{label}, {k} lost: added by the loss, median"),
                med as f64,
                "ns",
            ));
            line.push(format!("{k} lost {min}–{max} ns (median {med})"));
        }
        added_text.push(format!("{label}: {}", line.join(", ")));
    }
    let median = |points: &[RecoveryPoint], f: fn(&RecoveryPoint) -> u64| {
        let mut v: Vec<u64> = points.iter().filter(|p| inferred(p)).map(f).collect();
        v.sort_unstable();
        quantile(&v, 0.5)
    };
    let local_detect = median(&local, |p| p.detect_ns);
    let e2e_detect = median(&e2e, |p| p.detect_ns);
    ours.push(fig(
        "per-EV inference, NIC-local: drop → retransmission, median",
        local_detect as f64,
        "ns",
    ));
    ours.push(fig(
        "per-EV inference, end to end: drop → retransmission, median",
        e2e_detect as f64,
        "ns",
    ));
    let timeouts = |points: &[RecoveryPoint]| points.iter().filter(|p| !inferred(p)).count();
    let (t_plain, t_tail) =
        (timeouts(&e2e) + timeouts(&local), timeouts(&e2e_tail) + timeouts(&local_tail));
    ours.push(fig(
        "per-EV inference: placements recovered by a timeout",
        t_plain as f64,
        "placements",
    ));
    ours.push(fig("tail probes: placements recovered by a timeout", t_tail as f64, "placements"));
    let worst = |points: &[RecoveryPoint]| points.iter().map(|p| p.recovery_ns).max().unwrap_or(0);
    let one_local = by_losses(&local, inferred, |p| p.recovery_ns).get(&1).map_or(0, |x| x.1);
    let runs = e2e.len() + local.len();
    series.recovery.extend(e2e);
    series.recovery.extend(local);
    series.recovery.extend(e2e_tail.iter().cloned());
    series.recovery.extend(local_tail.iter().cloned());
    let mut parameters = fabric_params(&cfg);
    parameters.extend(flow_params(&cfg));
    parameters.push(p("fabric load", "idle: one message in flight"));
    parameters.push(p(
        "fabric",
        format!(
            "end to end: the paths above ({DELAY_NS} ns each way); NIC-local: the same with {LOCAL_DELAY_NS} ns of propagation (the NICs back to back through one switch hop)"
        ),
    ));
    let placements = placements(quick);
    parameters.push(p(
        "placements",
        if quick {
            placements.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(" ")
        } else {
            format!(
                "every PSN, every pair and every triple of PSNs 0–{} ({} runs per fabric and sender)",
                C_PACKETS - 1,
                placements.len()
            )
        },
    ));
    parameters.push(p(
        "SACK",
        format!(
            "every {} packets or after {} ns; transport ACK every {} retired messages",
            cfg.nic.sack_coalesce,
            cfg.nic.sack_delay.as_nanos(),
            cfg.nic.ack_coalesce
        ),
    ));
    parameters.push(p("retransmission timeout", format!("{} ns", cfg.recovery.rto.as_nanos())));
    parameters.push(p(
        "senders",
        format!("per-EV inference alone (MRC's rule, SND-INFER-001), and with tail probes {TAIL_PROBE_NS} ns after an EV's last data packet (SND-TAIL-001)"),
    ));
    Experiment {
        id: "c".into(),
        name: "drop → completion for one, two and three lost packets".into(),
        parameters,
        ours,
        paper: "local drop-to-CQE recovery 508–598 ns for one lost packet, 620–682 ns for two or three".into(),
        comparison: format!(
            "Per-EV inference alone, NIC-local, placements repaired without a timeout: {local_inferred}; the one-loss median is {:.1}× the middle of the paper's range. End to end over {DELAY_NS} ns paths: {e2e_inferred}: each lost packet costs a SACK back, the retransmission forward and the transport ACK back, three crossings of the fabric. Medians from the drop to the retransmission leaving: {local_detect} ns NIC-local, {e2e_detect} ns end to end. But {t_plain} of {runs} placements lose the last packet sent on an EV, which no later packet on that EV can reveal (SND-INFER-001), and wait for the {} ns retransmission timeout. With tail probes every placement is repaired without one ({t_tail} timeouts): NIC-local {local_probed}; end to end {e2e_probed}; the worst placement falls from {} ns to {} ns end to end. Added by the loss: {}",
            one_local as f64 / 553.0,
            cfg.recovery.rto.as_nanos(),
            worst(&series.recovery.iter().filter(|p| p.fabric_delay_ns == DELAY_NS && p.tail_probe_ns.is_none()).cloned().collect::<Vec<_>>()),
            worst(&e2e_tail),
            added_text.join("; "),
        ),
        notes: vec![
            "drop time = the instant the dropped packet would have reached the receiving NIC's placement (taken from the same run without drops); completion = the sender's completion entry landing in memory (the CQE)".into(),
            "NIC-local: the same NICs and timing (pipelines, 100 Gb/s serialization at the NIC and at the switch, DMA and flag writes) with no propagation delay, the paper's co-simulated setting as near as its summary lets us read it; end to end: the fabric of the other experiments".into(),
            "per-EV inference: the receiver SACKs the later packets; the sender infers the loss from a later transmission on the same EV (SND-INFER-001) and retransmits; the receiver places it, retires the message and sends the transport ACK; the sender writes the completion".into(),
            format!("tail probes: {TAIL_PROBE_NS} ns after the last data packet on an EV that is still not acknowledged, a probe follows it on that EV; the answer, sent when the probe arrived, shows the packet missing on a FIFO path, and the sender retransmits it (SND-TAIL-003): no spurious retransmission, one small packet each way"),
            "added by the loss = drop → completion less the same span in the run without drops (the rest of the message, the ACK and the completion write, which a lost packet does not cause)".into(),
            "series.recovery holds every placement of both fabrics and both senders; fabric_delay_ns and tail_probe_ns tell them apart".into(),
        ],
        checks,
    }
}

fn first_retransmission_ps(tap: &[Tapped]) -> u64 {
    tap.iter()
        .find(|t| matches!(t.event, NicEvent::Report(NicReport::Retransmitted { .. })))
        .map_or(0, |t| t.at_ps)
}

fn completion_ps(tap: &[Tapped]) -> u64 {
    tap.iter()
        .filter_map(|t| match &t.event {
            NicEvent::Completion(c) if t.host == 0 && c.side == Side::Requester => t.lands_ps,
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

// (d) ------------------------------------------------------------------------------------

/// Per message (QP, MSN) at the receiver: when its last byte landed and when its flag landed.
fn flag_delays(tap: &[Tapped], host: usize) -> (Vec<u64>, u64) {
    let mut last: BTreeMap<(u32, u16), u64> = BTreeMap::new();
    let mut delays = Vec::new();
    let mut waited = 0;
    let mut complete_order: Vec<(u64, (u32, u16))> = Vec::new();
    let mut flags = Vec::new();
    for t in tap.iter().filter(|t| t.host == host) {
        match &t.event {
            NicEvent::DmaWrite(w) => {
                let e = last.entry((w.qpn.value(), w.msn.value())).or_insert(0);
                *e = (*e).max(t.lands_ps.unwrap_or(t.at_ps));
            }
            NicEvent::FlagWrite(f) if f.side == Side::Responder => {
                let key = (f.qpn.value(), f.msn.value());
                let placed = last.get(&key).copied().unwrap_or(0);
                let landed = t.lands_ps.unwrap_or(t.at_ps);
                delays.push(landed.saturating_sub(placed) / 1000);
                complete_order.push((placed, key));
                flags.push(key);
            }
            _ => {}
        }
    }
    // Messages that became complete before one retired ahead of them: they waited for order.
    complete_order.sort();
    let pos: BTreeMap<(u32, u16), usize> =
        complete_order.iter().enumerate().map(|(i, &(_, k))| (k, i)).collect();
    let mut max_seen = None;
    for k in &flags {
        let i = pos[k];
        if max_seen.is_some_and(|m| i < m) {
            waited += 1;
        }
        max_seen = Some(max_seen.map_or(i, |m: usize| m.max(i)));
    }
    (delays, waited)
}

fn flag_delay(seed: u64, quick: bool, series: &mut Series) -> Experiment {
    let messages = if quick { 16 } else { 1000 };
    let skews = [0u64, 300, 600, 1200];
    let mut checks = Checks::default();
    let mut ours = Vec::new();
    let mut cfg0 = None;
    let mut summary = Vec::new();
    let mut order = 0;
    for mode in [RetirementMode::PerQp, RetirementMode::Shared] {
        // One-packet messages: each takes one path, so skew completes them out of order.
        let flow = FlowConfig { qps: 4, messages, message_bytes: 4096, ..FlowConfig::default() };
        let mut cfg = base(seed, 4096, flow);
        for (path, s) in cfg.paths.iter_mut().zip(skews) {
            path.skew_ns = s;
        }
        cfg.nic.retirement = mode;
        let (r, tap) = simulate_tapped(cfg.clone());
        checks.add(&r);
        order += r.order_violations;
        let (mut d, waited) = flag_delays(&tap, 1);
        d.sort_unstable();
        let name = mode_name(mode);
        for (q, label) in [(0.1, "p10"), (0.5, "p50"), (0.9, "p90"), (1.0, "max")] {
            ours.push(fig(&format!("{name}: {label}"), quantile(&d, q) as f64, "ns"));
        }
        ours.push(fig(
            &format!("{name}: messages complete before an earlier one"),
            waited as f64,
            "messages",
        ));
        summary.push(format!(
            "{name} p10/p50/p90/max {}/{}/{}/{} ns",
            quantile(&d, 0.1),
            quantile(&d, 0.5),
            quantile(&d, 0.9),
            quantile(&d, 1.0)
        ));
        series.flag_delay_ns.insert(name.into(), d);
        cfg0.get_or_insert(cfg);
    }
    ours.push(fig("order violations", order as f64, "retirements"));
    let cfg = cfg0.expect("two runs");
    let mut parameters = fabric_params(&cfg);
    parameters.extend(flow_params(&cfg).into_iter().filter(|x| x.name != "retirement"));
    parameters.push(p("retirement", "per-QP and shared"));
    Experiment {
        id: "d".into(),
        name: "flag delay under out-of-order arrival; completion order".into(),
        parameters,
        ours,
        paper: "flag enqueue-to-acceptance 10–210 ns; completion order preserved under out-of-order arrival".into(),
        comparison: format!(
            "{}; order violations {order}: order preserved, as in the paper; our span starts at the last byte landing, the paper's at the flag's enqueue",
            summary.join("; ")
        ),
        notes: vec![
            "flag delay = the retirement flag landing in memory − the message's last payload byte landing (PCIe posted-write order: a flag never lands before its data)".into(),
            "a flag write (100 ns) issued at the last packet's arrival lands with the data (150 ns): delay 0; any more is waiting for earlier messages of the retirement sequence".into(),
        ],
        checks,
    }
}

// (e) ------------------------------------------------------------------------------------

fn hol_blocking(seed: u64, quick: bool) -> Experiment {
    let messages = if quick { 100 } else { 10_000 };
    let every = 10u32;
    let pkts = 4u32; // 16 KiB at PMTU 4096
    let mut checks = Checks::default();
    let mut ours = Vec::new();
    let mut line = Vec::new();
    let mut cfg0 = None;
    for mode in [RetirementMode::Shared, RetirementMode::PerQp] {
        let flow = FlowConfig {
            qps: 2,
            messages,
            message_bytes: 16384,
            post_interval_ns: 1000,
            ..FlowConfig::default()
        };
        let mut cfg = base(seed, 4096, flow);
        cfg.nic.retirement = mode;
        cfg.aimed_drops = (0..messages)
            .filter(|m| m % every == 3)
            .map(|m| AimedDrop { flow: 0, qp: 1, psn: Psn::new(m * pkts + 1) })
            .collect();
        let (r, tap) = simulate_tapped(cfg.clone());
        checks.add(&r);
        let clean = qp_number(0, 0).value();
        let mut lat: Vec<u64> = tap
            .iter()
            .filter_map(|t| match &t.event {
                NicEvent::Completion(c)
                    if t.host == 0 && c.side == Side::Requester && c.entry.qpn.value() == clean =>
                {
                    let m = c.entry.wr_id & 0xFFFF_FFFF;
                    let posted = m * 1000 * 1000;
                    Some(t.lands_ps?.saturating_sub(posted) / 1000)
                }
                _ => None,
            })
            .collect();
        lat.sort_unstable();
        let name = mode_name(mode);
        let (p50, p99) = (quantile(&lat, 0.5), quantile(&lat, 0.99));
        ours.push(fig(&format!("{name}: clean QP p50"), p50 as f64, "ns"));
        ours.push(fig(&format!("{name}: clean QP p99"), p99 as f64, "ns"));
        ours.push(fig(&format!("{name}: clean QP max"), quantile(&lat, 1.0) as f64, "ns"));
        line.push(format!("{name} p50 {p50} ns, p99 {p99} ns"));
        cfg0.get_or_insert(cfg);
    }
    let cfg = cfg0.expect("two runs");
    let mut parameters = fabric_params(&cfg);
    parameters.extend(flow_params(&cfg).into_iter().filter(|x| x.name != "retirement"));
    parameters.push(p("retirement", "shared, then per-QP"));
    parameters.push(p(
        "loss",
        format!("QP 1 only: the second packet of every {every}th message (from message 3) dropped once; QP 0 clean"),
    ));
    Experiment {
        id: "e".into(),
        name: "shared retirement: cross-QP head-of-line blocking".into(),
        parameters,
        ours,
        paper: "names it as a limit: a shared retirement sequence causes cross-QP head-of-line blocking".into(),
        comparison: format!(
            "clean QP: {}; the shared sequence makes the clean QP wait for the lossy QP's retransmissions, per-QP retirement removes it",
            line.join(" against ")
        ),
        notes: vec!["latency = post → the sender's completion entry landing, for the clean QP's messages only".into()],
        checks,
    }
}

// (f) ------------------------------------------------------------------------------------

/// The most PSNs a receiving QP had open at once: highest placed − cumulative + 1.
/// The out-of-order depth of the receiving QPs of `host` at every placement: highest placed
/// PSN − cumulative PSN + 1 (0 when in order), in order of placement.
fn ooo_depths(tap: &[Tapped], host: usize) -> Vec<u32> {
    #[derive(Default)]
    struct Q {
        cum: u32,
        high: Option<u32>,
        above: HashSet<u32>,
    }
    let mut qs: BTreeMap<u32, Q> = BTreeMap::new();
    let mut depths = Vec::new();
    for t in tap.iter().filter(|t| t.host == host) {
        let NicEvent::DmaWrite(w) = &t.event else { continue };
        let q = qs.entry(w.qpn.value()).or_default();
        let psn = w.psn.value();
        if psn < q.cum || !q.above.insert(psn) {
            continue;
        }
        q.high = Some(q.high.map_or(psn, |h| h.max(psn)));
        while q.above.remove(&q.cum) {
            q.cum += 1;
        }
        depths.push(q.high.filter(|&h| h >= q.cum).map_or(0, |h| h - q.cum + 1));
    }
    depths
}

/// The spray policies experiment (f) compares.
const SKEW_POLICIES: [SprayPolicy; 3] =
    [SprayPolicy::RoundRobin, SprayPolicy::SkewAware, SprayPolicy::WindowFit];

fn skew(seed: u64, quick: bool, series: &mut Series) -> Experiment {
    let skews: &[u64] = if quick {
        &[0, 10_000, 30_000]
    } else {
        &[0, 2_500, 5_000, 10_000, 15_000, 20_000, 25_000, 30_000, 40_000]
    };
    let messages = if quick { 64 } else { 1024 };
    let mut checks = Checks::default();
    let mut ours = Vec::new();
    let mut cfg0 = None;
    for spray in SKEW_POLICIES {
        for &s in skews {
            let flow = FlowConfig {
                qps: 1,
                messages,
                message_bytes: 65536,
                spray,
                ..FlowConfig::default()
            };
            let mut cfg = base(seed, 4096, flow);
            cfg.paths[3].skew_ns = s;
            let (r, tap) = simulate_tapped(cfg.clone());
            checks.add(&r);
            let mut depths = ooo_depths(&tap, 1);
            depths.sort_unstable();
            let point = SkewPoint {
                skew_ns: s,
                policy: policy_name(spray).into(),
                goodput_gbps: r.goodput_gbps,
                peak_ooo_depth: depths.last().copied().unwrap_or(0),
                median_ooo_depth: depths.get(depths.len() / 2).copied().unwrap_or(0),
                window: cfg.nic.window(),
                slow_path_share: {
                    let total: u64 = r.paths.iter().map(|x| x.data_packets).sum();
                    r.paths[3].data_packets as f64 / total.max(1) as f64
                },
            };
            let name = format!("{}, skew {} µs", point.policy, s as f64 / 1000.0);
            ours.push(fig(&format!("{name}: goodput"), point.goodput_gbps, "Gb/s"));
            ours.push(fig(
                &format!("{name}: peak out-of-order depth"),
                f64::from(point.peak_ooo_depth),
                "packets",
            ));
            ours.push(fig(
                &format!("{name}: median out-of-order depth"),
                f64::from(point.median_ooo_depth),
                "packets",
            ));
            ours.push(fig(
                &format!("{name}: share on the slow path"),
                100.0 * point.slow_path_share,
                "%",
            ));
            series.skew.push(point);
            cfg0.get_or_insert(cfg);
        }
    }
    let cfg = cfg0.expect("runs");
    let point = |pol: SprayPolicy, s: u64| {
        series.skew.iter().find(|x| x.policy == policy_name(pol) && x.skew_ns == s)
    };
    let at = |pol, s| point(pol, s).map_or(0.0, |x| x.goodput_gbps);
    let line = |pol: SprayPolicy| {
        let v: Vec<String> = skews.iter().map(|&s| format!("{:.0}", at(pol, s))).collect();
        format!("{} {}", policy_name(pol), v.join("/"))
    };
    let (rr, wf) = (SprayPolicy::RoundRobin, SprayPolicy::WindowFit);
    // Window-fit against round robin: never behind by more than 1 %, and the gain at the
    // top of the sweep.
    let worst = skews
        .iter()
        .map(|&s| (s, at(wf, s) / at(rr, s).max(1e-9)))
        .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
    let top = *skews.last().unwrap_or(&0);
    let depth = |pol, s| point(pol, s).map_or(0, |x| x.median_ooo_depth);
    let mut parameters = fabric_params(&cfg);
    parameters.retain(|x| x.name != "skew per path");
    parameters.push(p("skew", format!("path 3 only: {skews:?} ns; paths 0–2: 0")));
    parameters.push(p("loss", "none"));
    parameters.extend(flow_params(&cfg).into_iter().filter(|x| x.name != "spray"));
    parameters.push(p("spray", "round-robin, skew-aware and window-fit"));
    parameters.push(p(
        "recovery",
        format!(
            "RTO {} ns (a slow path's round trip beyond it also brings spurious timeouts)",
            cfg.recovery.rto.as_nanos()
        ),
    ));
    Experiment {
        id: "f".into(),
        name: "path skew: receive-window pressure".into(),
        parameters,
        ours,
        paper: "names it as a limit: path skew creates receive-window pressure".into(),
        comparison: format!(
            "goodput in Gb/s at skews of {} µs: {}; {}; {} (window {} packets). Round robin holds while the window covers the slow path's round trip at line rate (about {:.0} µs) and collapses beyond it: every PSN waits for the slow path. Window-fit sprays exactly as round robin while the window covers the slow path, and leaves the path out (probing it) once the three other paths carry more than the window lets four carry: {:.0} against {:.0} Gb/s at {} µs, median out-of-order depth {} against {} packets; {}. Skew-aware sends less to the slow path long before the window needs it, and loses at moderate skew.",
            skews.iter().map(|s| format!("{}", *s as f64 / 1000.0)).collect::<Vec<_>>().join("/"),
            line(rr),
            line(SprayPolicy::SkewAware),
            line(wf),
            cfg.nic.window(),
            f64::from(cfg.nic.window()) * f64::from(cfg.nic.pmtu) * 8.0 / 400.0 / 1000.0,
            at(wf, top),
            at(rr, top),
            top / 1000,
            depth(wf, top),
            depth(rr, top),
            if worst.1 >= 1.0 {
                "it is never behind round robin".to_string()
            } else {
                format!(
                    "it is at most {:.1} % behind round robin (at {} µs)",
                    100.0 * (1.0 - worst.1),
                    worst.0 as f64 / 1000.0
                )
            },
        ),
        notes: vec![
            "out-of-order depth = highest placed PSN − cumulative PSN + 1, taken at every placement; peak and median over the run".into(),
            "a PSN holds a place in the window from its transmission until the sender learns that every PSN up to it arrived; a PSN on the slow path holds it for the slow round trip whatever PSN it carries, so no ordering of PSNs over the paths lets the window cover more skew; the window-fit policy chooses the paths instead (SND-SPRAY-005)".into(),
        ],
        checks,
    }
}

// (g) ------------------------------------------------------------------------------------

/// Bytes crossing PCIe to submit one work request, by method.
pub fn pcie_bytes() -> [(&'static str, u64, u64); 3] {
    let wqe = WQE_LEN as u64;
    let db = DOORBELL_LEN as u64;
    [
        // Host → device: the WQE written through the BlueFlame-style MMIO window and the
        // doorbell; the NIC reads nothing back.
        ("CPU-built WQE", wqe + 8, 0),
        // The GPU writes the WQE and the doorbell record, rings the doorbell (MMIO); the
        // NIC then reads the WQE over PCIe.
        ("GPU-built WQE (IBGDA)", wqe + 8 + 8, wqe),
        // The token: one 8-byte MMIO store; the NIC expands it from its template.
        ("8-byte token", db, 0),
    ]
}

fn pcie() -> Experiment {
    let rows = pcie_bytes();
    let mut ours = Vec::new();
    for (name, to_nic, from_nic) in rows {
        ours.push(fig(&format!("{name}: to the NIC"), to_nic as f64, "B"));
        ours.push(fig(&format!("{name}: read by the NIC"), from_nic as f64, "B"));
        ours.push(fig(&format!("{name}: total"), (to_nic + from_nic) as f64, "B"));
    }
    let total = |i: usize| rows[i].1 + rows[i].2;
    Experiment {
        id: "g".into(),
        name: "bytes crossing PCIe per submission".into(),
        parameters: vec![
            p("WQE", format!("{WQE_LEN} B (codec host work-request layout)")),
            p("doorbell token", format!("{DOORBELL_LEN} B")),
            p("doorbell record / MMIO", "8 B each"),
            p("counted", "payload bytes of the transactions, both directions; TLP headers not counted"),
        ],
        ours,
        paper: "submission by an 8-byte doorbell token; the NIC builds the request from a template".into(),
        comparison: format!(
            "token {} B against {} B (CPU-built WQE, {:.0}×) and {} B (IBGDA, {:.0}×)",
            total(2),
            total(0),
            total(0) as f64 / total(2) as f64,
            total(1),
            total(1) as f64 / total(2) as f64
        ),
        notes: vec!["IBGDA: 64 B WQE + 8 B doorbell record + 8 B doorbell MMIO from the GPU, then the NIC's 64 B read of the WQE".into()],
        checks: Checks::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_sorted_samples() {
        let v: Vec<u64> = (1..=10).collect();
        assert_eq!(quantile(&v, 0.1), 1);
        assert_eq!(quantile(&v, 0.5), 5);
        assert_eq!(quantile(&v, 1.0), 10);
        assert_eq!(quantile(&[], 0.5), 0);
    }

    #[test]
    fn pcie_table() {
        let t = pcie_bytes();
        assert_eq!(t.map(|r| r.1 + r.2), [72, 144, 8]);
    }
}
