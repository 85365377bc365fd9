//! A deterministic pair harness: two endpoints over N paths with per-path delay, skew,
//! jitter, loss, duplication and failure, seeded, one random stream per path.
//!
//! A path is a FIFO queue (a packet never overtakes an earlier packet on the same path);
//! reordering happens across paths, through skew and jitter. The path of a packet is its
//! EV modulo the number of paths, as an ECMP hash would choose.
//!
//! The harness records everything both endpoints do and checks the invariants of the
//! specification as it goes (see [`Checker`]).

#![allow(dead_code, unreachable_pub)]

use std::collections::{BTreeMap, HashMap, HashSet};

use openrdma_codec::host::{WorkRequest, WrOpcode};
use openrdma_codec::{Ev, Lkey, Psn, Qpn, Rkey};
use openrdma_device::DomainId;
use openrdma_sm::oracle::Violation;
use openrdma_sm::{
    CpuCommand, DeliveryOracle, Endpoint, Fabric, Fate, HostCommand, Nic, NicConfig, NicEvent,
    NicReport, Packet, QpConfig, RecoveryConfig, Region, RetransmitCause, RunEnd, Side,
    SprayPolicy, Timestamp, Transmit,
};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// One path of the fabric.
#[derive(Debug, Clone)]
pub struct PathSpec {
    /// One-way delay, ns.
    pub delay: u64,
    /// Uniform extra delay in [0, jitter), ns (FIFO is kept).
    pub jitter: u64,
    /// Probability of dropping a packet.
    pub loss: f64,
    /// Probability of delivering a packet twice.
    pub dup: f64,
    /// The path drops everything during [from, to).
    pub dark: Option<(u64, u64)>,
}

impl PathSpec {
    pub fn clean(delay: u64) -> Self {
        PathSpec { delay, jitter: 0, loss: 0.0, dup: 0.0, dark: None }
    }
}

/// What the harness injects and how the endpoints are configured.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub seed: u64,
    pub paths: Vec<PathSpec>,
    pub nic: NicConfig,
    pub recovery: RecoveryConfig,
    /// QP pairs: (qpn on A, qpn on B).
    pub qps: Vec<(u32, u32)>,
    /// Messages A sends per QP.
    pub messages: u32,
    /// Largest message, bytes (sizes uniform in [0, max]).
    pub max_len: u32,
    /// Fraction of Write-with-Immediate messages.
    pub wwi: f64,
    /// Whether B sends to A as well.
    pub bidirectional: bool,
    /// Drop exactly these (sender QP on A, PSN, transmission count) the first time.
    pub drop_psns: Vec<(u32, u32)>,
    pub spray: SprayPolicy,
    pub initial_psn: u32,
    /// Stop after this much simulated time.
    pub horizon: u64,
    /// Most instants a run may take. A run that needs more is stuck (a timer that fires
    /// again and again without moving on, say): the test fails instead of spinning.
    pub max_steps: usize,
}

impl Scenario {
    pub fn new(seed: u64) -> Self {
        Scenario {
            seed,
            paths: (0..4).map(|i| PathSpec::clean(500 + 100 * i)).collect(),
            nic: NicConfig { seed, pmtu: 1024, mpr: 1, ..NicConfig::default() },
            recovery: RecoveryConfig::default(),
            qps: vec![(0x10, 0x20)],
            messages: 50,
            max_len: 5000,
            wwi: 0.3,
            bidirectional: false,
            drop_psns: Vec::new(),
            spray: SprayPolicy::RoundRobin,
            initial_psn: 0,
            horizon: 200_000_000,
            max_steps: 1_000_000,
        }
    }
}

/// Everything recorded about one direction's messages, for the checks.
#[derive(Debug)]
pub struct Checker {
    /// The delivery invariants at the receiver, QPs numbered as in the scenario.
    pub oracle: DeliveryOracle,
    /// Receiving QPN -> (oracle QP, retirement domain).
    receivers: HashMap<u32, (usize, usize)>,
    /// Retired (flag written) messages per receiver QP, in order: msn.
    pub flags: BTreeMap<u32, Vec<u16>>,
    /// Flag order over the whole NIC (shared domain): (qpn, msn).
    pub flag_order: Vec<(u32, u16)>,
    /// Sender completions: (sender qpn, wr_id) -> status.
    pub send_completions: HashMap<(u32, u64), u8>,
    pub recv_completions: Vec<(u32, u16, u32)>,
    pub retransmissions: Vec<(u32, u32, RetransmitCause)>,
    pub violations: Vec<String>,
    pub duplicates_placed: u64,
    pub max_peer_entries: usize,
    pub qp_errors: Vec<(u32, String)>,
}

impl Checker {
    /// The checks of the messages endpoint `k` of `sc` sends.
    fn new(sc: &Scenario, k: usize) -> Checker {
        let shared = sc.nic.retirement == openrdma_sm::RetirementMode::Shared;
        let mut oracle = DeliveryOracle::new(sc.qps.len(), sc.nic.window());
        let mut receivers = HashMap::new();
        for (i, &(a, b)) in sc.qps.iter().enumerate() {
            let qp = oracle.add_qp(Psn::new(sc.initial_psn));
            receivers.insert(if k == 0 { b } else { a }, (qp, if shared { 0 } else { i }));
        }
        Checker {
            oracle,
            receivers,
            flags: BTreeMap::new(),
            flag_order: Vec::new(),
            send_completions: HashMap::new(),
            recv_completions: Vec::new(),
            retransmissions: Vec::new(),
            violations: Vec::new(),
            duplicates_placed: 0,
            max_peer_entries: 0,
            qp_errors: Vec::new(),
        }
    }
}

/// The fabric of the pair: seeded paths with impairments, and the checks.
pub struct Paths {
    pub sc: Scenario,
    path_rngs: Vec<ChaCha8Rng>,
    /// Last arrival time per (path, destination), for FIFO.
    path_last: HashMap<(usize, usize), u64>,
    /// Packets currently in the fabric per (destination endpoint, dest qpn, psn), data only.
    in_fabric: HashMap<(usize, u32, u32), u32>,
    /// Whether a data packet (dest endpoint, qpn, psn) was ever delivered.
    delivered: HashSet<(usize, u32, u32)>,
    /// Data packets dropped by the fabric.
    pub dropped: u64,
    pub dropped_acks: u64,
    /// Per endpoint: what the other side observed of its messages.
    pub check: [Checker; 2],
    pub expected: [HashMap<(u32, u64), u32>; 2],
    drops_done: HashSet<(u32, u32)>,
    pub sent_data: u64,
    /// For each retransmitted data packet: was the PSN delivered, or still in the fabric,
    /// when the retransmission left?
    rtx_snapshot: HashMap<(usize, u32, u32), (bool, u32)>,
    pub trace: bool,
}

/// The pair: two endpoints over [`Paths`], driven by the model's [`openrdma_sm::Pair`].
pub struct Pair {
    pub pair: openrdma_sm::Pair<Paths>,
    /// The time the last run ended.
    pub now: u64,
}

impl std::ops::Deref for Pair {
    type Target = Paths;
    fn deref(&self) -> &Paths {
        &self.pair.fabric
    }
}

impl std::ops::DerefMut for Pair {
    fn deref_mut(&mut self) -> &mut Paths {
        &mut self.pair.fabric
    }
}

pub const RKEY: Rkey = Rkey::new(0xBEEF);
pub const REGION_BASE: u64 = 0x1_0000_0000;
pub const REGION_LEN: u64 = 1 << 32;

impl Pair {
    pub fn new(sc: Scenario) -> Self {
        let mut eps = [0, 1].map(|k| {
            let mut cfg = sc.nic.clone();
            cfg.seed = sc.seed.wrapping_mul(31).wrapping_add(k);
            Endpoint::new(cfg, sc.recovery.clone()).expect("valid config")
        });
        let t0 = Timestamp::ZERO;
        for (k, ep) in eps.iter_mut().enumerate() {
            ep.handle_host(
                t0,
                HostCommand::RegisterRegion(Region {
                    rkey: RKEY,
                    base: REGION_BASE,
                    len: REGION_LEN,
                    remote_write: true,
                }),
            )
            .unwrap();
            for &(a, b) in &sc.qps {
                let (me, peer) = if k == 0 { (a, b) } else { (b, a) };
                let evs: Vec<Ev> =
                    (0..8u32).map(|i| Ev::new(((me & 0xFF) << 24) | (i << 16) | i)).collect();
                ep.handle_host(
                    t0,
                    HostCommand::CreateQp(QpConfig {
                        qpn: Qpn::new(me),
                        peer_qpn: Qpn::new(peer),
                        initial_psn: Psn::new(sc.initial_psn),
                        peer_initial_psn: Psn::new(sc.initial_psn),
                        domain: DomainId::new(0),
                        evs,
                        backup_evs: vec![],
                        spray: sc.spray,
                        cc: Default::default(),
                        recv_flag_base: 0x8000_0000 + u64::from(me) * 0x10_0000,
                        recv_flag_slots: 1024,
                        send_flag_base: 0x9000_0000 + u64::from(me) * 0x10_0000,
                        send_flag_slots: 1 << 16,
                        send_cq: None,
                        recv_cq: None,
                    }),
                )
                .unwrap();
            }
        }
        let path_rngs = (0..sc.paths.len())
            .map(|p| ChaCha8Rng::seed_from_u64(sc.seed ^ (0xA5A5_0000 + p as u64)))
            .collect();
        let check = [Checker::new(&sc, 0), Checker::new(&sc, 1)];
        let paths = Paths {
            sc,
            path_rngs,
            path_last: HashMap::new(),
            in_fabric: HashMap::new(),
            delivered: HashSet::new(),
            dropped: 0,
            dropped_acks: 0,
            check,
            expected: [HashMap::new(), HashMap::new()],
            drops_done: HashSet::new(),
            sent_data: 0,
            rtx_snapshot: HashMap::new(),
            trace: std::env::var_os("PAIR_TRACE").is_some(),
        };
        let mut pair = Pair { pair: openrdma_sm::Pair::new(eps, paths), now: 0 };
        pair.post_workload();
        pair
    }

    fn post_workload(&mut self) {
        let mut rng = ChaCha8Rng::seed_from_u64(self.sc.seed ^ 0x5EED);
        let senders: &[usize] = if self.sc.bidirectional { &[0, 1] } else { &[0] };
        for &k in senders {
            for m in 0..self.sc.messages {
                for &(a, b) in &self.sc.qps.clone() {
                    let (me, peer) = if k == 0 { (a, b) } else { (b, a) };
                    let len = if self.sc.max_len == 0 {
                        0
                    } else {
                        rng.next_u32() % (self.sc.max_len + 1)
                    };
                    let wwi = (f64::from(rng.next_u32()) / f64::from(u32::MAX)) < self.sc.wwi;
                    let wr_id = (u64::from(me) << 40) | u64::from(m);
                    let wr = WorkRequest {
                        wr_id,
                        qpn: Qpn::new(me),
                        opcode: if wwi { WrOpcode::WRITE_WITH_IMM } else { WrOpcode::WRITE },
                        local_va: 0x4000_0000 + u64::from(m) * 0x10000,
                        lkey: Lkey::new(1),
                        remote_va: REGION_BASE
                            + u64::from(peer) * 0x100_0000
                            + u64::from(m) * 0x10000,
                        rkey: RKEY,
                        length: len,
                        imm: wwi.then_some(m),
                        flag_slot: m,
                        signaled: true,
                    };
                    self.expected[k].insert((me, wr_id), len);
                    self.pair.eps[k].handle_host(Timestamp(0), HostCommand::PostWrite(wr)).unwrap();
                }
            }
        }
    }

    /// Runs until both sides are idle or the horizon passes. Returns the end time.
    pub fn run(&mut self) -> u64 {
        let horizon = Timestamp(self.sc.horizon);
        let end = self
            .pair
            .run(horizon, self.sc.max_steps)
            .expect("a reference NIC takes its agent's commands");
        assert_ne!(end, RunEnd::Steps, "the run took {} steps: it is stuck", self.sc.max_steps);
        self.now = self.pair.now().0;
        self.now
    }

    /// Checks every invariant for the messages endpoint `k` sent. Returns the list of
    /// failures (empty when everything holds).
    pub fn verify(&self, k: usize) -> Vec<String> {
        let c = &self.check[k];
        let mut out = c.violations.clone();
        // Every message completed once, successfully.
        for &(qpn, wr_id) in self.expected[k].keys() {
            match c.send_completions.get(&(qpn, wr_id)) {
                Some(0) => {}
                Some(s) => {
                    out.push(format!("wr {wr_id:#x} on QP {qpn:#x} completed with status {s:#x}"))
                }
                None => out.push(format!("wr {wr_id:#x} on QP {qpn:#x} never completed")),
            }
        }
        // Every message retired once, in MSN order.
        let total: usize = c.flags.values().map(Vec::len).sum();
        if total != self.expected[k].len() {
            out.push(format!("{} messages retired, {} sent", total, self.expected[k].len()));
        }
        let shared = self.sc.nic.retirement == openrdma_sm::RetirementMode::Shared;
        let sequences: Vec<Vec<u16>> = if shared {
            vec![c.flag_order.iter().map(|f| f.1).collect()]
        } else {
            c.flags.values().cloned().collect()
        };
        for seq in sequences {
            // RET-ORDER-001: a domain retires MSN 0, 1, 2, ... without gaps or repeats.
            for (i, msn) in seq.iter().enumerate() {
                if *msn != i as u16 {
                    out.push(format!("retirement order broken at position {i}: MSN {msn}"));
                    break;
                }
            }
        }
        // Immediates in RQMSN order: per QP, receive completions in MSN order.
        let mut last: HashMap<u32, u16> = HashMap::new();
        for &(qpn, msn, _) in &c.recv_completions {
            if let Some(&prev) = last.get(&qpn) {
                if (msn.wrapping_sub(prev) as i16) <= 0 {
                    out.push(format!("immediate of MSN {msn} after MSN {prev} on QP {qpn:#x}"));
                }
            }
            last.insert(qpn, msn);
        }
        if !c.qp_errors.is_empty() {
            out.push(format!("QP errors: {:?}", c.qp_errors));
        }
        out
    }

    pub fn retransmissions(&self, k: usize) -> usize {
        self.check[k].retransmissions.len()
    }
}

impl Paths {
    fn path_of(&self, ev: Ev) -> usize {
        let ev = ev.value();
        // An ECMP-like hash of the EV.
        let h = ev.wrapping_mul(0x9E37_79B1) >> 16;
        (h as usize) % self.sc.paths.len()
    }
}

impl Fabric for Paths {
    fn fate(&mut self, now: Timestamp, from: usize, t: &Transmit) -> Fate {
        let (ev, packet) = (t.ev, &t.packet);
        if let Packet::Write(w) = packet {
            if !w.bth.rtx {
                self.sent_data += 1;
            }
        }
        let to = 1 - from;
        let path = self.path_of(ev);
        let spec = self.sc.paths[path].clone();
        let rng = &mut self.path_rngs[path];
        let r_loss = f64::from(rng.next_u32()) / f64::from(u32::MAX);
        let r_dup = f64::from(rng.next_u32()) / f64::from(u32::MAX);
        let jitter = if spec.jitter > 0 { u64::from(rng.next_u32()) % spec.jitter } else { 0 };
        let is_data = matches!(packet, Packet::Write(_));
        let (qpn, psn) = (packet.dest_qp().value(), packet.psn().value());
        if let Packet::Write(w) = packet {
            if w.bth.rtx {
                let key = (to, qpn, psn);
                let snap =
                    (self.delivered.contains(&key), self.in_fabric.get(&key).copied().unwrap_or(0));
                self.rtx_snapshot.insert(key, snap);
            }
        }
        if self.trace {
            eprintln!("{:>9} {from}->{to} ev {ev:#010x} path {path} {:?}", now.0, packet);
        }
        let dark = spec.dark.is_some_and(|(a, b)| now.0 >= a && now.0 < b);
        let aimed = from == 0 && is_data && {
            let src = self.sc.qps.iter().find(|q| q.1 == qpn).map(|q| q.0).unwrap_or(0);
            let key = (src, psn);
            self.sc.drop_psns.contains(&key) && self.drops_done.insert(key)
        };
        if dark || r_loss < spec.loss || aimed {
            if is_data {
                self.dropped += 1;
            } else {
                self.dropped_acks += 1;
            }
            return Fate::Drop;
        }
        let copies = if r_dup < spec.dup { 2 } else { 1 };
        let mut at = [0u64; 2];
        for a in at.iter_mut().take(copies) {
            let last = self.path_last.get(&(path, to)).copied().unwrap_or(0);
            *a = (now.0 + spec.delay + jitter).max(last);
            self.path_last.insert((path, to), *a);
            if is_data {
                *self.in_fabric.entry((to, qpn, psn)).or_default() += 1;
            }
        }
        if copies == 2 {
            Fate::Duplicate { at: Timestamp(at[0]), again: Timestamp(at[1]), ev }
        } else {
            Fate::Deliver { at: Timestamp(at[0]), ev }
        }
    }

    fn arrive(&mut self, _: Timestamp, to: usize, _: Ev, packet: &Packet) {
        if matches!(packet, Packet::Write(_)) {
            let key = (to, packet.dest_qp().value(), packet.psn().value());
            if let Some(n) = self.in_fabric.get_mut(&key) {
                *n -= 1;
            }
        }
    }

    fn drained(&mut self, _: Timestamp, nics: [&Nic; 2]) {
        for (k, nic) in nics.iter().enumerate() {
            let e = nic.peer_driven_entries();
            let c = &mut self.check[1 - k];
            c.max_peer_entries = c.max_peer_entries.max(e);
        }
    }

    /// Records an event of endpoint `k`. Receiver-side facts about the messages of the
    /// other endpoint go to `check[1 - k]`, sender-side facts to `check[k]`.
    fn event(&mut self, now: Timestamp, k: usize, ev: &NicEvent) {
        if self.trace {
            eprintln!("{:>9} ep{k} {:?}", now.0, ev);
        }
        match ev {
            NicEvent::DmaWrite(w) => {
                let c = &mut self.check[1 - k];
                let Some(&(qp, domain)) = c.receivers.get(&w.qpn.value()) else {
                    c.violations.push(format!("DMA write for unknown QP {}", w.qpn));
                    return;
                };
                let (violations, dups) = (&mut c.violations, &mut c.duplicates_placed);
                c.oracle.dma(qp, domain, w, |v| {
                    *dups += u64::from(matches!(v, Violation::PlacedTwice { .. }));
                    violations.push(v.to_string());
                });
                self.delivered.insert((k, w.qpn.value(), w.psn.value()));
            }
            NicEvent::FlagWrite(f) if f.side == Side::Responder => {
                let c = &mut self.check[1 - k];
                let Some(&(qp, domain)) = c.receivers.get(&f.qpn.value()) else {
                    c.violations.push(format!("flag for unknown QP {}", f.qpn));
                    return;
                };
                let flag = openrdma_codec::host::FlagRepr::from_u64(f.value);
                let violations = &mut c.violations;
                c.oracle.flag(qp, domain, f, u64::from(flag.byte_len), |v| {
                    violations.push(v.to_string())
                });
                c.flags.entry(f.qpn.value()).or_default().push(f.msn.value());
                c.flag_order.push((f.qpn.value(), f.msn.value()));
            }
            NicEvent::FlagWrite(_) => {}
            NicEvent::Completion(c) => match c.side {
                Side::Requester => {
                    let ck = &mut self.check[k];
                    if ck
                        .send_completions
                        .insert((c.entry.qpn.value(), c.entry.wr_id), c.entry.status.0)
                        .is_some()
                    {
                        ck.violations.push(format!("wr {:#x} completed twice", c.entry.wr_id));
                    }
                }
                Side::Responder => {
                    self.check[1 - k].recv_completions.push((
                        c.entry.qpn.value(),
                        c.entry.msn.value(),
                        c.entry.imm,
                    ));
                }
            },
            NicEvent::Report(NicReport::Retransmitted { qpn, psn, cause, .. }) => {
                let cause = *cause;
                let ck = &mut self.check[k];
                ck.retransmissions.push((qpn.value(), psn.value(), cause));
                if cause == RetransmitCause::SackInference {
                    // SND-INFER-002: inference never retransmits a packet that arrived or is
                    // still on its way.
                    let peer = self
                        .sc
                        .qps
                        .iter()
                        .find(|q| if k == 0 { q.0 == qpn.value() } else { q.1 == qpn.value() });
                    if let Some(&(a, b)) = peer {
                        let dst_qp = if k == 0 { b } else { a };
                        let key = (1 - k, dst_qp, psn.value());
                        let (delivered, in_fabric) =
                            self.rtx_snapshot.get(&key).copied().unwrap_or((false, 0));
                        if delivered || in_fabric > 0 {
                            ck.violations.push(format!(
                                "spurious inferred retransmission of QP {qpn} PSN {psn} (delivered {delivered}, in fabric {in_fabric})"
                            ));
                        }
                    }
                }
            }
            NicEvent::Report(NicReport::QpError { qpn, requirement }) => {
                self.check[k].qp_errors.push((qpn.value(), requirement.clone()));
            }
            NicEvent::Report(_) => {}
        }
    }
}

/// Runs `sc` and asserts every invariant in both directions.
pub fn run_and_check(sc: Scenario) -> Pair {
    let mut p = Pair::new(sc);
    p.run();
    for k in 0..2 {
        let v = p.verify(k);
        assert!(
            v.is_empty(),
            "seed {}: endpoint {k}: {} failures, first: {:#?}",
            p.sc.seed,
            v.len(),
            &v[..v.len().min(5)]
        );
    }
    p
}

/// Sanity: commands from the CPU half exist in the public API.
pub fn _uses(_: CpuCommand, _: Psn) {}
