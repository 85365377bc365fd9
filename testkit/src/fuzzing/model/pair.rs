//! The `pair` target: two endpoints over 2 to 4 paths, the input choosing each packet's fate.

use super::*;

/// Facts about the messages one endpoint sends, as the two endpoints report them.
#[derive(Debug)]
struct Direction {
    /// Posted messages by MSN: (wr_id, length, immediate).
    posted: Vec<(u64, u32, Option<u32>)>,
    /// The delivery invariants at the receiver (one QP, one domain).
    oracle: DeliveryOracle,
    /// Bytes placed per MSN.
    bytes: HashMap<Msn, u64>,
    /// Retirement flags in the order written.
    flags: Vec<Msn>,
    retired: HashSet<Msn>,
    /// Sender completions by wr_id.
    completions: HashMap<u64, CompletionStatus>,
    /// Receive completions (Write-with-Immediate): (MSN, immediate).
    immediates: Vec<(Msn, u32)>,
}

/// The fuzzed fabric: the input decides each packet's fate.
#[derive(Debug)]
struct Fuzzed<'a> {
    inp: Input<'a>,
    npaths: usize,
    /// Last arrival per (path, destination): paths are FIFO for delivered packets.
    path_last: HashMap<(usize, usize), u64>,
    dirs: [Direction; 2],
    qp_error: bool,
}

/// QPN of endpoint `k`'s QP.
fn pair_qpn(k: usize) -> u32 {
    if k == 0 { PEER } else { LQP }
}

impl Fuzzed<'_> {
    fn path_of(&self, ev: Ev) -> usize {
        (ev.value().wrapping_mul(0x9E37_79B1) >> 16) as usize % self.npaths
    }

    /// The next arrival on `path` towards `to`, after every earlier one (FIFO).
    fn in_order(&mut self, path: usize, to: usize, at: u64) -> Timestamp {
        let last = self.path_last.get(&(path, to)).copied().unwrap_or(0);
        let at = at.max(last);
        self.path_last.insert((path, to), at);
        Timestamp(at)
    }
}

impl Fabric for Fuzzed<'_> {
    /// One byte per packet: `% 8` 0–3 deliver, 4 drop, 5 duplicate, 6 and 7 delay by the
    /// next byte × 64 ns (overtaken by later packets of its path).
    fn fate(&mut self, now: Timestamp, from: usize, t: &Transmit) -> Fate {
        let to = 1 - from;
        let path = self.path_of(t.ev);
        let at = now.0 + 400 + 150 * path as u64;
        let b = if self.inp.is_empty() { 0 } else { self.inp.u8() % 8 };
        match b {
            4 => Fate::Drop,
            5 => {
                let first = self.in_order(path, to, at);
                Fate::Duplicate { at: first, again: self.in_order(path, to, at), ev: t.ev }
            }
            6 | 7 => Fate::Deliver { at: Timestamp(at + u64::from(self.inp.u8()) * 64), ev: t.ev },
            _ => Fate::Deliver { at: self.in_order(path, to, at), ev: t.ev },
        }
    }

    fn event(&mut self, _: Timestamp, k: usize, e: &NicEvent) {
        self.record(k, e);
    }

    fn refused(&mut self, _: Timestamp, to: usize, e: HostOrPeer) {
        // Loss, duplication and reordering never make a correct peer break a rule; only
        // packets still in flight to a QP that failed may be refused.
        assert!(
            self.qp_error,
            "{}: endpoint {to} refused a correct peer's packet: {e}",
            e.requirement()
        );
    }

    fn fired(&mut self, now: Timestamp, k: usize, next: Option<Timestamp>) {
        assert!(
            next.is_none_or(|t| t > now),
            "endpoint {k}: after handle_timeout({now}) the next deadline is {next:?}"
        );
    }
}

impl Fuzzed<'_> {
    /// Records an event of endpoint `k` and checks the safety rules.
    fn record(&mut self, k: usize, e: &NicEvent) {
        match e {
            NicEvent::DmaWrite(w) => {
                let d = &mut self.dirs[1 - k];
                let len = u64::from(w.payload.len());
                assert!(
                    w.va >= REGION_BASE && w.va + len <= REGION_BASE + 0x100_0000,
                    "RCV-PLACE-003: DMA outside the region at {:#x}",
                    w.va
                );
                d.oracle.dma(0, 0, w, |v| panic!("{v}"));
                *d.bytes.entry(w.msn).or_default() += len;
            }
            NicEvent::FlagWrite(f) if f.side == Side::Responder => {
                let d = &mut self.dirs[1 - k];
                let flag = FlagRepr::from_u64(f.value);
                d.oracle.flag(0, 0, f, u64::from(flag.byte_len), |v| panic!("{v}"));
                d.retired.insert(f.msn);
                d.flags.push(f.msn);
            }
            NicEvent::FlagWrite(_) => {}
            NicEvent::Completion(c) if c.side == Side::Requester => {
                let d = &mut self.dirs[k];
                let e = c.entry;
                assert!(
                    d.completions.insert(e.wr_id, e.status).is_none(),
                    "wr {} completed twice",
                    e.wr_id
                );
                if e.status.is_success() {
                    // The transport ACK comes after retirement: a success names a message
                    // the responder retired (SND-ACK-001, RET-ORDER-001).
                    assert!(
                        d.retired.contains(&e.msn),
                        "SND-ACK-001: MSN {} completed with success but never retired",
                        e.msn
                    );
                    let (id, len, _) = d.posted[usize::from(e.msn.value())];
                    assert_eq!((e.wr_id, e.byte_len), (id, len), "completion of MSN {}", e.msn);
                }
            }
            NicEvent::Completion(c) => self.dirs[1 - k].immediates.push((c.entry.msn, c.entry.imm)),
            NicEvent::Report(NicReport::QpError { .. }) => self.qp_error = true,
            NicEvent::Report(_) => {}
        }
    }
}

/// Two endpoints over 2 to 4 paths; the input decides each packet's fate.
///
/// Input:
/// * byte 0: bits 1:0 paths − 2 (a value of 3 gives 2 paths too); bit 2 per-QP retirement;
///   bit 3 both endpoints send (else only the first); bit 4 spray at random (else round
///   robin); bits 7:5 the NIC seed.
/// * byte 1: messages per sending endpoint, `1 + b % 6`; then per message a length byte
///   `b` (`b % 4`: 0; `b`; `b × 8`; `b × 24`) and a flags byte (bit 0 Write-with-Immediate).
/// * then one byte per packet put on the wire, in the order the endpoints send them
///   (`% 8`: 0–3 deliver, 4 drop, 5 duplicate, 6, 7 delay by the next byte × 64 ns). Once the
///   input is exhausted every packet is delivered, so a run without a QP error completes.
///
/// Checks: no panic; never a PSN placed twice, never a DMA write after its message's
/// flag, every flag reporting the bytes placed; a sender completes a message with success
/// only if the responder retired it, and each request once; no packet of a correct peer is
/// refused as a violation, whatever its fate (until a QP fails). When the run ends with both
/// endpoints idle and no QP error, every message completed with success, was placed
/// exactly once (its length in bytes), retired once in MSN order, and every immediate was
/// delivered in MSN order: otherwise the pair stalled. After `handle_timeout(now)`, the
/// next deadline is never at or before `now` (a timer that re-arms in the past).
pub fn pair(data: &[u8]) {
    let mut inp = Input::new(data);
    let c = inp.u8();
    let npaths = 2 + usize::from(c & 3) % 3;
    let both = c & 8 != 0;
    let nic = NicConfig {
        seed: u64::from(c >> 5),
        pmtu: 256,
        mpr: 1,
        retirement: if c & 4 != 0 { RetirementMode::PerQp } else { RetirementMode::Shared },
        ..NicConfig::default()
    };
    let spray = if c & 0x10 != 0 { SprayPolicy::Random } else { SprayPolicy::RoundRobin };
    let eps = [0u64, 1].map(|k| {
        let cfg = NicConfig { seed: nic.seed * 2 + k, ..nic.clone() };
        Endpoint::new(cfg, RecoveryConfig::default()).expect("valid configuration")
    });
    let mut eps = eps;
    let mut dirs = [0, 1].map(|_| Direction {
        oracle: DeliveryOracle::new(1, nic.window()),
        posted: Vec::new(),
        bytes: HashMap::new(),
        flags: Vec::new(),
        retired: HashSet::new(),
        completions: HashMap::new(),
        immediates: Vec::new(),
    });
    for d in &mut dirs {
        d.oracle.add_qp(Psn::new(0));
    }
    let t0 = Timestamp::ZERO;
    for (k, ep) in eps.iter_mut().enumerate() {
        let (me, peer) = (pair_qpn(k), pair_qpn(1 - k));
        let r = Region { rkey: RKEY, base: REGION_BASE, len: 0x100_0000, remote_write: true };
        ep.handle_host(t0, HostCommand::RegisterRegion(r)).expect("region");
        let mut qp = qp_config(me, peer, 0, 0);
        qp.evs = (0..8u32).map(|i| Ev::new((me << 24) | (i << 16) | i)).collect();
        qp.spray = spray;
        ep.handle_host(t0, HostCommand::CreateQp(qp)).expect("QP");
    }
    let messages = 1 + inp.u8() % 6;
    for k in 0..if both { 2 } else { 1 } {
        for m in 0..messages {
            let b = inp.u8();
            let length = match b % 4 {
                0 => 0,
                1 => u32::from(b),
                2 => u32::from(b) * 8,
                _ => u32::from(b) * 24,
            };
            let imm = inp.bit().then_some(0x1000 + u32::from(m));
            let wr_id = (k as u64) << 32 | u64::from(m);
            let wr = WorkRequest {
                wr_id,
                qpn: Qpn::new(pair_qpn(k)),
                opcode: if imm.is_some() { WrOpcode::WRITE_WITH_IMM } else { WrOpcode::WRITE },
                local_va: 0x7000_0000,
                lkey: Lkey::new(1),
                remote_va: REGION_BASE + u64::from(m) * 0x2_0000,
                rkey: RKEY,
                length,
                imm,
                flag_slot: u32::from(m),
                signaled: true,
            };
            eps[k].handle_host(t0, HostCommand::PostWrite(wr)).expect("post");
            dirs[k].posted.push((wr_id, length, imm));
        }
    }
    // The run: timers and arrivals in time order, bounded in steps and simulated time.
    const MAX_STEPS: usize = 50_000;
    const HORIZON: Timestamp = Timestamp(100_000_000);
    let fabric = Fuzzed { inp, npaths, path_last: HashMap::new(), dirs, qp_error: false };
    let mut pair = Pair::new(eps, fabric);
    let end = pair.run(HORIZON, MAX_STEPS).expect("a reference NIC takes its agent's commands");
    let (idle, f) = (end == RunEnd::Idle, pair.fabric);
    if !idle || f.qp_error {
        return;
    }
    // Idle with no QP error: everything must have been delivered.
    for (k, d) in f.dirs.iter().enumerate() {
        for (msn, &(wr_id, len, _)) in d.posted.iter().enumerate() {
            assert_eq!(
                d.completions.get(&wr_id),
                Some(&CompletionStatus::SUCCESS),
                "stall: endpoint {k} MSN {msn} never completed although the pair is idle"
            );
            assert_eq!(
                d.bytes.get(&Msn::new(msn as u16)).copied().unwrap_or(0),
                u64::from(len),
                "MSN {msn} bytes"
            );
        }
        let order: Vec<Msn> = (0..d.posted.len() as u16).map(Msn::new).collect();
        assert_eq!(d.flags, order, "RET-ORDER-001: retirement order of endpoint {k}'s messages");
        let imms: Vec<(Msn, u32)> = d
            .posted
            .iter()
            .enumerate()
            .filter_map(|(m, p)| p.2.map(|imm| (Msn::new(m as u16), imm)))
            .collect();
        assert_eq!(d.immediates, imms, "CQE-RECV-001: immediates of endpoint {k}'s messages");
    }
}

// =========================================================================================
