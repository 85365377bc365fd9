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

mod fabric;
mod recovery;
mod throughput;

use self::fabric::*;
use self::recovery::*;
use self::throughput::*;

pub use self::fabric::pcie_bytes;

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
