//! Bodies of the fuzz targets that drive the reference model, as ordinary functions: the
//! `fuzz/` workspace calls them from libFuzzer, and `tests/fuzz_corpus.rs` runs them over
//! the committed seed corpora, so that an input the fuzzer found is a regression test too.
//!
//! Each body reads its input as a small program whose format is documented on the
//! function. Integers are read from the front, little-endian, and read as zero once the
//! input is exhausted, so every byte string is a valid program. A body panics only when
//! the model breaks a rule of the specification, and the message names the rule.
//!
//! * [`receiver`]: one responder NIC under hostile writes, probes, duplicates and timeouts.
//!   No panic; peer-driven state within the retirement table's capacity; placement only
//!   inside the region; never a PSN placed twice; never a write after its message's flag;
//!   flags in MSN order with every byte placed; a refused packet changes nothing observable.
//! * [`sender`]: one requester NIC with posted work under hostile SACKs, NACKs, AETHs, CPU
//!   commands and timeouts. A message completes with success only inside an accepted AETH
//!   that covers its MSN; at most one inferred retransmission per outstanding PSN
//!   (`SND-RTX-003`); new PSNs consecutive, outstanding within the window; a refused packet
//!   changes nothing.
//! * [`pair`]: two endpoints over 2 to 4 paths, the input choosing each packet's fate. Never
//!   a PSN placed twice, never a write after a flag, a sender success only for a retired
//!   message; when the run completes, every message delivered once, retired in MSN order,
//!   immediates in order; an idle pair with work left is a stall.
//! * [`doorbell`]: doorbell tokens and templates, through the codec and a NIC. Decode,
//!   expand and validate never panic; `accept_doorbell` rejects exactly per `DB-ORDER-001`;
//!   a rejected token gives exactly one error completion and changes nothing, and the next
//!   valid token is accepted.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use openrdma_codec::host::{
    CompletionRepr, CompletionStatus, DoorbellReject, DoorbellToken, FlagRepr, LengthBound,
    Template, WorkRequest, WrOpcode, accept_doorbell,
};
use openrdma_codec::psn::PSN_MASK;
use openrdma_codec::{
    AethRepr, BthRepr, CcStateRepr, Ev, EvMark as WireMark, ImmDtRepr, Lkey, MethRepr, Msn,
    NackReason, NethRepr, Opcode, PethRepr, Psn, Qpn, RethRepr, Rkey, Rqmsn, SethRepr, TemplateId,
};

use openrdma_device::{DomainId, Payload, Timestamp};
use openrdma_sm::ev::EvState;
use openrdma_sm::{ApiMisuse, DoorbellRejected, HostError, PeerViolation};
use openrdma_sm::{
    CompletionEvent, CpuCommand, DmaWrite, DoorbellWrite, FlagWrite, HostCommand, LocalRegion,
    NicEvent, NicReport, Region, RetransmitCause, Side, Transmit,
};
use openrdma_sm::{
    CongestionControl, NicConfig, QpConfig, RecoveryConfig, RetirementMode, SprayPolicy,
};
use openrdma_sm::{DeliveryOracle, Endpoint, Fabric, Fate, Pair, RunEnd};
use openrdma_sm::{HostOrPeer, Nic, NicStats};
use openrdma_sm::{Packet, WritePacket};

// ----- reading the input -------------------------------------------------------------------

/// The fuzz input as a stream of integers: little-endian, zero once exhausted.
#[derive(Debug, Clone)]
struct Input<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Input<'a> {
    fn new(data: &'a [u8]) -> Self {
        Input { data, at: 0 }
    }
    fn is_empty(&self) -> bool {
        self.at >= self.data.len()
    }
    fn u8(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at = self.at.saturating_add(1);
        b
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u24(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), 0])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }
    fn bit(&mut self) -> bool {
        self.u8() & 1 == 1
    }
}

// ----- shared pieces -----------------------------------------------------------------------

/// The local QP of the single-NIC bodies, and its peer.
const LQP: u32 = 0x20;
const PEER: u32 = 0x10;
/// A second local QP (shared retirement across QPs), and its peer.
const LQP_B: u32 = 0x21;
const PEER_B: u32 = 0x11;
/// The writable region remote writes target.
const RKEY: Rkey = Rkey::new(0xBEEF);
const REGION_BASE: u64 = 0x10_0000;
const REGION_LEN: u64 = 0x10_0000;
/// A registered region without remote-write access.
const RKEY_RO: Rkey = Rkey::new(0xCAFE);
const RO_BASE: u64 = 0x40_0000;
/// EV profile of the local QP.
const EVS: [Ev; 4] = [Ev::new(0xA0), Ev::new(0xA1), Ev::new(0xA2), Ev::new(0xA3)];
/// Slots of the flag rings.
const FLAG_SLOTS: u32 = 64;
/// At most this many operations per input, so that one execution stays short.
const MAX_OPS: usize = 400;
/// Capacity of a shared retirement domain (`RET-CAP-001`).
const SHARED_CAPACITY: usize = 4096;

/// Everything a NIC produced after one input, drained in the documented order.
#[derive(Debug, Default)]
struct Out {
    tx: Vec<Transmit>,
    dma: Vec<DmaWrite>,
    flags: Vec<FlagWrite>,
    completions: Vec<CompletionEvent>,
    reports: Vec<NicReport>,
}

impl Out {
    fn is_empty(&self) -> bool {
        self.tx.is_empty()
            && self.dma.is_empty()
            && self.flags.is_empty()
            && self.completions.is_empty()
            && self.reports.is_empty()
    }

    fn push(&mut self, e: NicEvent) {
        match e {
            NicEvent::DmaWrite(d) => self.dma.push(d),
            NicEvent::FlagWrite(f) => self.flags.push(f),
            NicEvent::Completion(c) => self.completions.push(c),
            NicEvent::Report(r) => self.reports.push(r),
        }
    }
}

fn drain(nic: &mut Nic, now: Timestamp) -> Out {
    let mut out = Out::default();
    while let Some(t) = nic.poll_transmit(now) {
        out.tx.push(t);
    }
    while let Some(e) = nic.poll_event() {
        out.push(e);
    }
    out
}

fn region(rkey: Rkey, base: u64, remote_write: bool) -> HostCommand {
    HostCommand::RegisterRegion(Region { rkey, base, len: REGION_LEN, remote_write })
}

fn qp_config(qpn: u32, peer: u32, initial_psn: u32, peer_initial_psn: u32) -> QpConfig {
    QpConfig {
        qpn: Qpn::new(qpn),
        peer_qpn: Qpn::new(peer),
        initial_psn: Psn::new(initial_psn),
        peer_initial_psn: Psn::new(peer_initial_psn),
        domain: DomainId::default(),
        evs: EVS.to_vec(),
        backup_evs: Vec::new(),
        spray: SprayPolicy::RoundRobin,
        cc: CongestionControl::Unlimited,
        recv_flag_base: 0x8000 + u64::from(qpn) * 0x1000,
        recv_flag_slots: FLAG_SLOTS,
        send_flag_base: 0x9_0000 + u64::from(qpn) * 0x1000,
        send_flag_slots: FLAG_SLOTS,
        send_cq: None,
        recv_cq: None,
    }
}

/// A PSN from an input record: `mode % 4` picks near `base` (a signed byte away), near
/// `edge` (a signed byte away), a little behind `base`, or any 24-bit value.
fn psn_near(inp: &mut Input<'_>, base: Psn, edge: Psn) -> Psn {
    match inp.u8() % 4 {
        0 => base.offset(i32::from(inp.u8() as i8)),
        1 => edge.offset(i32::from(inp.u8() as i8)),
        2 => base.sub(1 + u32::from(inp.u8() % 8)),
        _ => Psn::new(inp.u24()),
    }
}

/// The observable state of one QP of a NIC that a refused input must leave alone.
#[derive(Debug, Clone, PartialEq, Eq)]
struct QpState {
    epsn: Option<Psn>,
    window: Option<(Psn, Psn)>,
    in_error: Option<bool>,
    evs: Option<Vec<(Ev, EvState)>>,
}

fn qp_state(nic: &Nic, qpn: u32) -> QpState {
    let q = Qpn::new(qpn);
    QpState {
        epsn: nic.expected_psn(q),
        window: nic.send_window(q),
        in_error: nic.qp_in_error(q),
        evs: nic.ev_states(q),
    }
}

/// The counters a refused packet may change: none but `violations` and the responses the
/// specification requires (a NACK, a transport NAK).
fn stats_of_refusal(s: &NicStats) -> NicStats {
    NicStats { violations: 0, nacks_sent: 0, acks_sent: 0, ..s.clone() }
}

// =========================================================================================
// receiver
// =========================================================================================

/// The opcodes of MRC writes, for input records.
const WRITE_OPS: [Opcode; 6] = [
    Opcode::MRC_WRITE_FIRST,
    Opcode::MRC_WRITE_MIDDLE,
    Opcode::MRC_WRITE_LAST,
    Opcode::MRC_WRITE_LAST_IMM,
    Opcode::MRC_WRITE_ONLY,
    Opcode::MRC_WRITE_ONLY_IMM,
];

/// What the receiver body has seen of the NIC's outputs, for the checks.
#[derive(Debug, Default)]
struct Placement {
    /// (qpn, psn) placed.
    placed: HashSet<(u32, u32)>,
    /// Bytes placed per (qpn, msn).
    bytes: HashMap<(u32, Msn), u64>,
    /// (qpn, msn) whose responder flag was written.
    retired: HashSet<(u32, Msn)>,
    /// Next MSN to retire per retirement domain.
    next_flag: HashMap<u32, Msn>,
    /// Whether a QP failed, so that retirement may skip its purged MSNs.
    any_failed: bool,
}

impl Placement {
    /// Checks DMA writes and responder flags. `domain` maps a QPN to its domain.
    fn record(&mut self, out: &Out, pmtu: u32, domain: impl Fn(u32) -> u32) {
        for d in &out.dma {
            let (q, len) = (d.qpn.value(), u64::from(d.payload.len()));
            assert!(
                d.va >= REGION_BASE
                    && d.va.checked_add(len).is_some_and(|e| e <= REGION_BASE + REGION_LEN),
                "RCV-PLACE-003: DMA write of {len} bytes at {:#x} outside the writable region",
                d.va
            );
            assert!(len <= u64::from(pmtu), "RCV-SEG-001: DMA write of {len} bytes > PMTU");
            assert!(
                !self.retired.contains(&(q, d.msn)),
                "FLAG-LAST-002: DMA write for QP {q:#x} MSN {} after its flag (PSN {})",
                d.msn,
                d.psn
            );
            assert!(
                self.placed.insert((q, d.psn.value())),
                "RCV-DUP-001: PSN {} of QP {q:#x} placed twice",
                d.psn
            );
            *self.bytes.entry((q, d.msn)).or_default() += len;
        }
        for f in out.flags.iter().filter(|f| f.side == Side::Responder) {
            let q = f.qpn.value();
            assert!(
                self.retired.insert((q, f.msn)),
                "RET-ORDER-001: QP {q:#x} MSN {} retired twice",
                f.msn
            );
            let placed = self.bytes.get(&(q, f.msn)).copied().unwrap_or(0);
            let flag = FlagRepr::from_u64(f.value);
            assert_eq!(
                u64::from(flag.byte_len),
                placed,
                "FLAG-RECV-002: flag of QP {q:#x} MSN {} reports {} bytes, {placed} were placed",
                f.msn,
                flag.byte_len
            );
            let next = self.next_flag.entry(domain(q)).or_insert(Msn::ZERO);
            if self.any_failed {
                // RET-ERR-001: MSNs purged with a failed QP are skipped, never revisited.
                assert!(
                    next.is_at_or_before(f.msn),
                    "RET-ORDER-001: MSN {} retired after MSN {}",
                    f.msn,
                    next.prev()
                );
            } else {
                assert_eq!(f.msn, *next, "RET-ORDER-001: retirement out of MSN order");
            }
            *next = f.msn.next();
        }
    }
}

#[derive(Debug)]
struct Receiver {
    nic: Nic,
    now: Timestamp,
    pmtu: u32,
    window: u32,
    per_qp: bool,
    qps: Vec<u32>,
    check: Placement,
    /// Writes injected lately, for duplicates.
    history: VecDeque<(Ev, Packet)>,
    /// The next MSN and RQMSN a well-behaved sender would use, per QP.
    next_msn: HashMap<u32, Msn>,
    next_rqmsn: HashMap<u32, Rqmsn>,
    bound: usize,
}

impl Receiver {
    fn domain(&self) -> impl Fn(u32) -> u32 + use<> {
        let per_qp = self.per_qp;
        move |q| if per_qp { q } else { 0 }
    }

    fn epsn(&self, q: u32) -> Psn {
        self.nic.expected_psn(Qpn::new(q)).unwrap_or(Psn::ZERO)
    }

    /// Injects one packet and checks everything the body promises about it.
    fn inject(&mut self, ev: Ev, p: &Packet) {
        let qs: Vec<QpState> = self.qps.iter().map(|&q| qp_state(&self.nic, q)).collect();
        let stats = self.nic.stats().clone();
        let entries = self.nic.peer_driven_entries();
        let r = self.nic.handle_packet(self.now, ev, p);
        let out = drain(&mut self.nic, self.now);
        let dest = p.dest_qp();
        match &r {
            Ok(()) => {
                for (k, &q) in self.qps.iter().enumerate() {
                    let (Some(a), Some(b)) = (qs[k].epsn, self.nic.expected_psn(Qpn::new(q)))
                    else {
                        continue;
                    };
                    let moved = b.distance(a);
                    assert!(
                        (0..=self.window as i32).contains(&moved),
                        "RCV-WIN-001: epsn of QP {q:#x} moved from {a} to {b}"
                    );
                }
            }
            Err(HostOrPeer::Peer(PeerViolation::WwiLimit { qpn, .. })) => {
                // WWI-LIMIT-002 is fatal: the QP goes to error. Nothing of this packet is
                // placed; other QPs of a shared domain may retire (RET-ERR-001).
                assert_eq!(*qpn, dest);
                assert_eq!(self.nic.qp_in_error(dest), Some(true), "WWI-LIMIT-002");
                assert!(out.dma.is_empty(), "WWI-LIMIT-002: the refused packet was placed");
                assert!(
                    out.flags.iter().all(|f| f.qpn != dest),
                    "WWI-LIMIT-002: flag of the failed QP"
                );
                let nacked = out.tx.iter().any(|t| {
                    matches!(&t.packet, Packet::Nack { neth, .. }
                        if neth.reason == NackReason::UNEXP_EVENT && neth.nack_psn == p.psn())
                });
                assert!(nacked, "WWI-LIMIT-002: no NACK UNEXP_EVENT for PSN {}", p.psn());
                self.check.any_failed = true;
            }
            Err(HostOrPeer::Peer(v)) => {
                // A refused packet changes nothing (error.rs); the only outputs are the
                // responses the specification requires.
                let after: Vec<QpState> =
                    self.qps.iter().map(|&q| qp_state(&self.nic, q)).collect();
                assert_eq!(
                    qs,
                    after,
                    "{}: a refused packet changed QP state ({v})",
                    v.requirement()
                );
                assert_eq!(
                    stats_of_refusal(&stats),
                    stats_of_refusal(self.nic.stats()),
                    "{}: a refused packet changed counters ({v})",
                    v.requirement()
                );
                assert!(
                    self.nic.stats().violations - stats.violations <= 1,
                    "violations counted twice"
                );
                assert_eq!(
                    entries,
                    self.nic.peer_driven_entries(),
                    "{}: state grew",
                    v.requirement()
                );
                assert!(
                    out.dma.is_empty() && out.flags.is_empty() && out.completions.is_empty(),
                    "{}: a refused packet was placed or retired ({v}): {out:?}",
                    v.requirement()
                );
                match v {
                    PeerViolation::OutOfWindow { psn, .. } => {
                        assert_eq!(out.tx.len(), 1, "RCV-WIN-002: one NACK");
                        let oor = NackReason::PSN_OOR_WINDOW;
                        assert!(
                            matches!(&out.tx[0].packet, Packet::Nack { neth, .. }
                                if neth.reason == oor && neth.nack_psn == *psn),
                            "RCV-WIN-002: expected NACK PSN_OOR_WINDOW, got {:?}",
                            out.tx[0].packet
                        );
                    }
                    PeerViolation::RemoteAccess { .. } => {
                        assert_eq!(out.tx.len(), 1, "RCV-PLACE-002: one transport NAK");
                        assert!(
                            matches!(&out.tx[0].packet, Packet::Ack { aeth, .. }
                                if aeth.syndrome == AethRepr::NAK_REMOTE_ACCESS),
                            "RCV-PLACE-002: expected AETH NAK remote access, got {:?}",
                            out.tx[0].packet
                        );
                    }
                    _ => assert!(
                        out.tx.is_empty(),
                        "{}: refused packet answered: {:?}",
                        v.requirement(),
                        out.tx
                    ),
                }
            }
            Err(HostOrPeer::Misuse(m)) => panic!("the body never misuses the API: {m}"),
        }
        let domain = self.domain();
        self.check.record(&out, self.pmtu, domain);
        let e = self.nic.peer_driven_entries();
        assert!(e <= self.bound, "peer-driven state {e} entries exceeds the bound {}", self.bound);
    }

    /// A write record: see [`receiver`].
    fn write(&mut self, inp: &mut Input<'_>) -> (Ev, Packet) {
        let f = inp.u8();
        let q = match f & 3 {
            0 | 1 => self.qps[0],
            2 => *self.qps.last().expect("at least one QP"),
            _ => 0x99, // no such QP
        };
        let op = WRITE_OPS[usize::from(inp.u8() % 6)];
        let epsn = self.epsn(q);
        let psn = psn_near(inp, epsn, epsn.add(self.window));
        let m = inp.u8();
        let next = self.next_msn.get(&q).copied().unwrap_or(Msn::ZERO);
        let msn = if m < 0xF0 { next.add(u16::from(m % 8)).sub(2) } else { Msn::new(inp.u16()) };
        let r = inp.u8();
        let rqmsn = Rqmsn::new(if r < 0xF0 { u16::from(r % 16) } else { inp.u16() });
        let pmtu = u64::from(self.pmtu);
        let va = match inp.u8() % 4 {
            0 | 1 => REGION_BASE + u64::from(inp.u8()) * pmtu,
            2 => (REGION_BASE + REGION_LEN).wrapping_sub(u64::from(inp.u16())),
            _ => inp.u64(),
        };
        let rkey = match inp.u8() % 8 {
            0 => RKEY_RO,
            1 => Rkey::new(inp.u32()),
            _ => RKEY,
        };
        let len = match inp.u8() % 4 {
            0 | 1 => self.pmtu,
            2 => u32::from(inp.u16()) % (self.pmtu + 1),
            _ => self.pmtu + 1 + u32::from(inp.u8()),
        };
        let dma_len = match inp.u8() % 4 {
            0 => len,
            1 => self.pmtu * u32::from(inp.u8() % 8) + u32::from(inp.u8()),
            2 => inp.u32(),
            _ => len.saturating_sub(1),
        };
        let mut bth = BthRepr::new(op, Qpn::new(q), psn);
        bth.ack_req = f & 4 != 0;
        bth.rtx = f & 8 != 0;
        let imm = op.has_immediate() != (f & 0x10 != 0);
        let w = WritePacket {
            bth,
            meth: MethRepr { rqmsn, msn },
            tseth: None,
            reth: RethRepr { va, rkey, dma_len },
            immdt: imm.then_some(ImmDtRepr { imm: u32::from(msn.value()) }),
            payload: Payload::Bytes(Arc::from(vec![psn.value() as u8; len as usize])),
        };
        (Ev::new(u32::from(f >> 5)), Packet::Write(w))
    }

    /// A well-formed message of 1 to 4 packets at the next MSN, possibly with a hole or in
    /// reverse order, so that inputs reach retirement, flags and immediates.
    fn message(&mut self, inp: &mut Input<'_>) -> Vec<Packet> {
        let f = inp.u8();
        let q = if f & 1 == 0 { self.qps[0] } else { *self.qps.last().expect("a QP") };
        let npkts = 1 + u32::from((f >> 1) & 3);
        let wwi = f & 8 != 0;
        let hole = (f & 0x10 != 0).then(|| u32::from(inp.u8()) % npkts);
        let reverse = f & 0x20 != 0;
        let gap = u32::from(f >> 6);
        let last_len = u32::from(inp.u8()) % (self.pmtu + 1);
        let slot = u64::from(inp.u8() % 64);
        let msn = self.next_msn.get(&q).copied().unwrap_or(Msn::ZERO);
        // In shared mode the domain's MSNs are shared by both QPs.
        let peers: Vec<u32> = if self.per_qp { vec![q] } else { self.qps.clone() };
        for p in peers {
            self.next_msn.insert(p, msn.next());
        }
        let rqmsn = self.next_rqmsn.get(&q).copied().unwrap_or(Rqmsn::ZERO).next();
        if wwi {
            self.next_rqmsn.insert(q, rqmsn);
        }
        let total = (npkts - 1) * self.pmtu + last_len;
        let first = self.epsn(q).add(gap);
        let mut pkts = Vec::new();
        for i in 0..npkts {
            if hole == Some(i) {
                continue;
            }
            let last = i + 1 == npkts;
            let op = match (i == 0, last, wwi) {
                (true, true, false) => Opcode::MRC_WRITE_ONLY,
                (true, true, true) => Opcode::MRC_WRITE_ONLY_IMM,
                (true, false, _) => Opcode::MRC_WRITE_FIRST,
                (false, false, _) => Opcode::MRC_WRITE_MIDDLE,
                (false, true, false) => Opcode::MRC_WRITE_LAST,
                (false, true, true) => Opcode::MRC_WRITE_LAST_IMM,
            };
            let len = if last { last_len } else { self.pmtu };
            let psn = first.add(i);
            let mut bth = BthRepr::new(op, Qpn::new(q), psn);
            bth.ack_req = last;
            pkts.push(Packet::Write(WritePacket {
                bth,
                meth: MethRepr { rqmsn, msn },
                tseth: None,
                reth: RethRepr {
                    va: REGION_BASE + slot * 0x4000 + u64::from(i * self.pmtu),
                    rkey: RKEY,
                    dma_len: total,
                },
                immdt: (last && wwi).then_some(ImmDtRepr { imm: 0x1000 + u32::from(msn.value()) }),
                payload: Payload::Bytes(Arc::from(vec![psn.value() as u8; len as usize])),
            }));
        }
        if reverse {
            pkts.reverse();
        }
        pkts
    }
}

/// Drives one responder NIC with hostile input.
///
/// Input:
/// * byte 0, configuration: bit 0 MPR 1 or 2 (window 128 or 256); bit 1 per-QP retirement
///   (else shared); bits 3:2 PMTU 256, 512, 1024 or 256; bit 4 a second QP; bits 7:5 the
///   WWI limit minus one.
/// * the first expected PSN: a byte `m`, then for `m % 4` = 0: PSN 0; 1: `2^24 − 1 − b`
///   for the next byte `b` (near the wrap); 2, 3: the next 3 bytes.
/// * then records, each an opcode byte `op % 8`:
///   * 0–3, a write: flags `f` (bits 1:0 QP: 0, 1 the first, 2 the last, 3 an unknown
///     one; bit 2 AckReq; bit 3 rtx; bit 4 ImmDt contrary to the opcode; bits 7:5 EV),
///     opcode (`% 6`: FIRST, MIDDLE, LAST, LAST_IMM, ONLY, ONLY_IMM), PSN (mode byte `% 4`:
///     epsn + i8, epsn + window + i8, epsn − 1..8, any 24 bits), MSN (byte `b`: below 0xF0
///     next MSN − 2 + `b % 8`, else 2 more bytes), RQMSN (byte below 0xF0: `b % 16`, else
///     2 bytes), VA (mode `% 4`: 0, 1 region + k × PMTU; 2 region end − u16; 3 any 8
///     bytes), key (`% 8`: 0 read-only region, 1 any 4 bytes, else the region's),
///     length (`% 4`: 0, 1 PMTU; 2 u16 mod PMTU + 1; 3 PMTU + 1 + byte), RETH.dma_len
///     (`% 4`: the length; PMTU × 0..7 + byte; any 4 bytes; the length − 1);
///   * 4, a duplicate: a byte picks one of the last 16 writes, injected again;
///   * 5, time: a byte, odd: jump to `poll_timeout()`, even: advance by the next u16 ns;
///     then `handle_timeout`;
///   * 6, a probe: a QP byte, a PSN (as above), a probe ID (2 bytes);
///   * 7, a well-formed message at the next MSN: flags (bit 0 QP, bits 2:1 packets − 1,
///     bit 3 Write-with-Immediate, bit 4 leave a hole (a byte picks it), bit 5 in reverse,
///     bits 7:6 PSN gap after epsn), last length byte, slot byte.
///
/// Checks: no panic; `peer_driven_entries()` within the retirement table's capacity
/// (`RET-CAP-001`: W per QP in per-QP mode, 4096 per shared domain); DMA only inside the
/// writable region and at most a PMTU; never a PSN placed twice; never a DMA write for a
/// message after its flag; flags once, in MSN order, reporting every placed byte; a refused
/// packet leaves every QP's epsn, error state and EVs, every counter but `violations` and
/// the required responses, and the peer-driven state as they were, and places or retires
/// nothing (WWI-LIMIT-002, which is fatal, excepted).
pub fn receiver(data: &[u8]) {
    let mut inp = Input::new(data);
    let c = inp.u8();
    let per_qp = c & 2 != 0;
    let cfg = NicConfig {
        seed: 1,
        pmtu: [256, 512, 1024, 256][usize::from((c >> 2) & 3)],
        mpr: 1 + (c & 1),
        retirement: if per_qp { RetirementMode::PerQp } else { RetirementMode::Shared },
        wwi_limit: 1 + u16::from(c >> 5),
        timestamps: false,
        ..NicConfig::default()
    };
    let psn0 = match inp.u8() % 4 {
        0 => 0,
        1 => PSN_MASK - u32::from(inp.u8()),
        _ => inp.u24(),
    };
    let window = cfg.window();
    let pmtu = cfg.pmtu;
    let mut nic = Nic::new(cfg).expect("valid configuration");
    let t0 = Timestamp::ZERO;
    nic.handle_host(t0, region(RKEY, REGION_BASE, true)).expect("region");
    nic.handle_host(t0, region(RKEY_RO, RO_BASE, false)).expect("region");
    let mut qps = vec![LQP];
    nic.handle_host(t0, HostCommand::CreateQp(qp_config(LQP, PEER, 0, psn0))).expect("QP");
    if c & 0x10 != 0 {
        let cfg = qp_config(LQP_B, PEER_B, 0, (psn0 + 1000) & PSN_MASK);
        nic.handle_host(t0, HostCommand::CreateQp(cfg)).expect("QP");
        qps.push(LQP_B);
    }
    let bound = if per_qp { qps.len() * window as usize } else { SHARED_CAPACITY };
    let mut r = Receiver {
        nic,
        now: t0,
        pmtu,
        window,
        per_qp,
        qps,
        check: Placement::default(),
        history: VecDeque::new(),
        next_msn: HashMap::new(),
        next_rqmsn: HashMap::new(),
        bound,
    };
    for _ in 0..MAX_OPS {
        if inp.is_empty() {
            break;
        }
        match inp.u8() % 8 {
            0..=3 => {
                let (ev, p) = r.write(&mut inp);
                r.inject(ev, &p);
                if r.history.len() == 16 {
                    r.history.pop_front();
                }
                r.history.push_back((ev, p));
            }
            4 => {
                let k = usize::from(inp.u8());
                if !r.history.is_empty() {
                    let (ev, p) = r.history[k % r.history.len()].clone();
                    r.inject(ev, &p);
                }
            }
            5 => {
                if inp.bit() {
                    if let Some(t) = r.nic.poll_timeout() {
                        r.now = r.now.max(t);
                    }
                } else {
                    r.now = Timestamp(r.now.0 + u64::from(inp.u16()));
                }
                r.nic.handle_timeout(r.now).expect("time moves forward");
                let out = drain(&mut r.nic, r.now);
                assert!(out.dma.is_empty() && out.flags.is_empty(), "a timeout placed data");
            }
            6 => {
                let q = if inp.bit() { r.qps[0] } else { *r.qps.last().expect("a QP") };
                let epsn = r.epsn(q);
                let psn = psn_near(&mut inp, epsn, epsn.add(window));
                let peth = PethRepr { probe_id: inp.u16(), ftype: 1, ..PethRepr::default() };
                let p =
                    Packet::Probe { bth: BthRepr::new(Opcode::MRC_PROBE, Qpn::new(q), psn), peth };
                let before = r.epsn(q);
                r.inject(Ev::new(0x55), &p);
                assert_eq!(before, r.epsn(q), "EV-PROBE-004: a probe moved epsn");
            }
            _ => {
                for p in r.message(&mut inp) {
                    r.inject(Ev::new(0x66), &p);
                }
            }
        }
    }
}

// =========================================================================================
// sender
// =========================================================================================

/// NACK reasons for input records: every defined reason but the fatal one several times,
/// the fatal one once (it ends the run's interest), and an unknown code.
const NACK_REASONS: [NackReason; 8] = [
    NackReason::TRIMMED,
    NackReason::TRIMMED_LASTHOP,
    NackReason::NO_BITMAP,
    NackReason::NO_PKT_BUFFER,
    NackReason::NO_RESOURCE,
    NackReason::PSN_OOR_WINDOW,
    NackReason(0x55),
    NackReason::UNEXP_EVENT,
];

/// A message as the sender body posted it.
#[derive(Debug, Clone)]
struct Posted {
    wr: WorkRequest,
    /// PSN of its last packet, once sent.
    last_psn: Option<Psn>,
    done: bool,
}

#[derive(Debug)]
struct Sender {
    nic: Nic,
    now: Timestamp,
    pmtu: u32,
    window: u32,
    /// Posted messages by MSN (the domain's MSNs start at 0, one QP).
    msgs: Vec<Posted>,
    /// The PSN the next new (not retransmitted) data packet must carry.
    next_new: Psn,
    /// Inferred retransmissions per outstanding PSN (`SND-RTX-003`).
    inferred: HashMap<u32, u32>,
    /// Sender completions seen, by wr_id.
    completed: HashSet<u64>,
    next_wr: u64,
}

impl Sender {
    fn send_window(&self) -> (Psn, Psn) {
        self.nic.send_window(Qpn::new(LQP)).expect("the QP exists")
    }

    fn post(&mut self, inp: &mut Input<'_>) {
        let b = inp.u8();
        let length = match b % 4 {
            0 => 0,
            1 => u32::from(inp.u8()),
            2 => self.pmtu * (1 + u32::from(inp.u8() % 4)),
            _ => u32::from(inp.u16()) % (6 * self.pmtu),
        };
        let wwi = b & 4 != 0;
        let id = self.next_wr;
        self.next_wr += 1;
        let wr = WorkRequest {
            wr_id: id,
            qpn: Qpn::new(LQP),
            opcode: if wwi { WrOpcode::WRITE_WITH_IMM } else { WrOpcode::WRITE },
            local_va: 0x7000_0000 + id * 0x10000,
            lkey: Lkey::new(1),
            remote_va: REGION_BASE + (id % 16) * 0x10000,
            rkey: RKEY,
            length,
            imm: wwi.then_some(0x1000 + id as u32),
            flag_slot: (id % u64::from(FLAG_SLOTS)) as u32,
            signaled: true,
        };
        match self.nic.handle_host(self.now, HostCommand::PostWrite(wr)) {
            Ok(()) => self.msgs.push(Posted { wr, last_psn: None, done: false }),
            Err(HostError::Misuse(ApiMisuse::BadWorkRequest { .. }))
                if self.nic.qp_in_error(Qpn::new(LQP)) == Some(true) => {}
            Err(e) => panic!("PostWrite refused: {e}"),
        }
        let out = drain(&mut self.nic, self.now);
        self.outputs(&out, None);
    }

    /// Checks what the NIC produced. `aeth` is the MSN of the transport ACK or NAK that
    /// was just accepted, if the input was one.
    fn outputs(&mut self, out: &Out, aeth: Option<Msn>) {
        for t in &out.tx {
            let Packet::Write(w) = &t.packet else { continue };
            let psn = w.bth.psn;
            if !w.bth.rtx {
                assert_eq!(psn, self.next_new, "SND-PSN-001: new PSNs are consecutive");
                self.next_new = psn.next();
            }
            let msn = w.meth.msn;
            let Some(m) = self.msgs.get_mut(usize::from(msn.value())) else {
                panic!("data packet for MSN {msn}, never posted")
            };
            assert_eq!(w.reth.dma_len, m.wr.length, "RETH.dma_len of MSN {msn}");
            assert_eq!(w.reth.rkey, m.wr.rkey, "RETH.rkey of MSN {msn}");
            if w.bth.opcode.is_last() && !w.bth.rtx {
                m.last_psn = Some(psn);
            }
        }
        let (una, nxt) = self.send_window();
        let outstanding = nxt.forward_from(una);
        assert!(outstanding <= self.window, "SND-WIN-001: {outstanding} packets outstanding");
        let mut successes = Vec::new();
        for c in out.completions.iter().filter(|c| c.side == Side::Requester) {
            let e = &c.entry;
            assert!(self.completed.insert(e.wr_id), "wr {} completed twice", e.wr_id);
            if e.status.is_success() {
                successes.push((e.msn, e.wr_id));
            }
        }
        for f in out.flags.iter().filter(|f| f.side == Side::Requester) {
            if FlagRepr::from_u64(f.value).status.is_success() {
                successes.push((
                    f.msn,
                    self.msgs.get(usize::from(f.msn.value())).map_or(u64::MAX, |m| m.wr.wr_id),
                ));
            }
        }
        for (msn, wr_id) in successes {
            // SND-ACK-001: success only from an accepted AETH whose MSN covers the message.
            let Some(a) = aeth else {
                panic!("SND-ACK-001: MSN {msn} completed with success without a transport ACK")
            };
            assert!(
                msn.is_at_or_before(a),
                "SND-ACK-001: AETH MSN {a} does not cover MSN {msn}, which completed"
            );
            let m = self.msgs.get_mut(usize::from(msn.value())).expect("completed MSN was posted");
            assert_eq!(m.wr.wr_id, wr_id, "the completion of MSN {msn} names another request");
            m.done = true;
        }
        for r in &out.reports {
            if let NicReport::Retransmitted { psn, cause: RetransmitCause::SackInference, .. } = r {
                let n = self.inferred.entry(psn.value()).or_insert(0);
                *n += 1;
                assert!(*n <= 1, "SND-RTX-003: PSN {psn} retransmitted {n} times by inference");
            }
        }
        // A PSN acknowledged since is no longer outstanding: forget its count.
        self.inferred.retain(|&p, _| Psn::new(p).in_window(una, outstanding));
        let e = self.nic.peer_driven_entries();
        assert!(
            e <= self.window as usize + SHARED_CAPACITY,
            "peer-driven state {e} exceeds the window and the table"
        );
    }

    /// Injects a packet from the peer and checks it.
    fn inject(&mut self, p: &Packet) {
        let qs = qp_state(&self.nic, LQP);
        let pending = self.nic.pending_messages();
        let stats = self.nic.stats().clone();
        let r = self.nic.handle_packet(self.now, Ev::new(0x77), p);
        let out = drain(&mut self.nic, self.now);
        match r {
            Ok(()) => {
                let aeth = match p {
                    Packet::Ack { aeth, .. } => Some(aeth.msn.msn()),
                    _ => None,
                };
                self.outputs(&out, aeth);
            }
            Err(HostOrPeer::Peer(v)) => {
                // A refused input changes nothing (SND-SACK-003/004, SND-NACK-001, SND-ACK-002).
                let req = v.requirement();
                assert_eq!(
                    qs,
                    qp_state(&self.nic, LQP),
                    "{req}: a refused packet changed state ({v})"
                );
                assert_eq!(pending, self.nic.pending_messages(), "{req}: messages changed");
                assert_eq!(
                    NicStats { violations: 0, ..stats },
                    NicStats { violations: 0, ..self.nic.stats().clone() },
                    "{req}: counters changed"
                );
                assert!(out.is_empty(), "{req}: a refused packet produced output: {out:?}");
            }
            Err(HostOrPeer::Misuse(m)) => panic!("the body never misuses the API: {m}"),
        }
    }

    fn sack(&mut self, inp: &mut Input<'_>, honest: bool) {
        let (una, nxt) = self.send_window();
        let outstanding = nxt.forward_from(una);
        let f = inp.u8();
        let (cack, offset, bitmap) = if honest {
            let k = u32::from(inp.u16()) % (outstanding + 1);
            let cack = una.sub(1).add(k);
            let rest = outstanding - k;
            let mask = if rest >= 64 { u64::MAX } else { (1u64 << rest) - 1 };
            (cack, 1i16, inp.u64() & mask)
        } else {
            let cack = match inp.u8() % 3 {
                0 => una.sub(1).add(u32::from(inp.u16()) % (outstanding + 2)),
                1 => una.offset(i32::from(inp.u8() as i8)),
                _ => Psn::new(inp.u24()),
            };
            let offset = match inp.u8() % 4 {
                0 => 1,
                1 => i16::from(inp.u8() as i8),
                2 => inp.u16() as i16,
                _ => (self.window + 63 + u32::from(inp.u8() % 3)) as i16,
            };
            let bitmap = match inp.u8() % 4 {
                0 => inp.u64(),
                1 => u64::MAX,
                2 => 0,
                _ => 1 << (inp.u8() % 64),
            };
            (cack, offset, bitmap)
        };
        let entropy = if f & 0x80 == 0 { EVS[usize::from(f & 3)] } else { Ev::new(inp.u32()) };
        let seth = SethRepr {
            m: WireMark((f >> 2) & 3),
            pr: f & 0x10 != 0 && !honest,
            ack_psn_offset: 0,
            entropy,
            cack_psn: cack,
            mpr: (f >> 5) & 3,
            sack_offset: offset,
            sack_bitmap: bitmap,
            ..SethRepr::default()
        };
        let bth = BthRepr::new(Opcode::MRC_SACK, Qpn::new(LQP), cack);
        self.inject(&Packet::Sack { bth, seth, cc_state: CcStateRepr::default() });
        if honest && f & 0x40 != 0 {
            self.honest_aeth(cack);
        }
    }

    /// The transport ACK a correct responder would send once every PSN up to `cack`
    /// arrived: the last message of the longest run of unfinished messages whose packets
    /// were all sent and acknowledged.
    fn honest_aeth(&mut self, cack: Psn) {
        let mut msn = None;
        for (i, m) in self.msgs.iter().enumerate() {
            if m.done {
                continue;
            }
            match m.last_psn {
                Some(l) if l.distance(cack) <= 0 => msn = Some(Msn::new(i as u16)),
                _ => break,
            }
        }
        if let Some(msn) = msn {
            let aeth = AethRepr::new(AethRepr::ACK_UNLIMITED_CREDIT, msn.into());
            let bth = BthRepr::new(Opcode::MRC_ACKNOWLEDGE, Qpn::new(LQP), cack);
            self.inject(&Packet::Ack { bth, aeth });
        }
    }

    fn oldest_pending(&self) -> Msn {
        Msn::new(self.msgs.iter().position(|m| !m.done).unwrap_or(self.msgs.len()) as u16)
    }

    fn cpu(&mut self, inp: &mut Input<'_>) {
        let (una, nxt) = self.send_window();
        let q = Qpn::new(LQP);
        let ev = |inp: &mut Input<'_>| {
            let b = inp.u8();
            if b < 0xF0 { EVS[usize::from(b % 4)] } else { Ev::new(0xB0 + u32::from(b % 4)) }
        };
        let cmd = match inp.u8() % 16 {
            0..=6 => CpuCommand::Retransmit { qpn: q, psn: psn_near(inp, una, nxt) },
            7..=9 => CpuCommand::Probe { qpn: q, ev: ev(inp) },
            10..=14 => {
                let state = [EvState::Good, EvState::Skip, EvState::AssumedBad, EvState::Denied]
                    [usize::from(inp.u8() % 4)];
                CpuCommand::SetEvState { qpn: q, ev: ev(inp), state }
            }
            _ => CpuCommand::QpError { qpn: q },
        };
        self.nic.handle_cpu(self.now, cmd).expect("the QP exists");
        let out = drain(&mut self.nic, self.now);
        self.outputs(&out, None);
    }
}

/// Drives one requester NIC, with work posted, through hostile acknowledgements.
///
/// Input:
/// * byte 0, configuration: bits 1:0 spray policy (round robin, random, fixed,
///   skew-aware); bit 2 TSETH timestamps; bit 3 two backup EVs; bit 4 a fixed congestion
///   window of 4 PMTUs; bits 6:5 the WWI limit minus one. PMTU 256, window 128.
/// * the first PSN: as in [`receiver`].
/// * byte: messages to post first, `1 + b % 6`, each a post record: a byte `b` (`b % 4`:
///   length 0; a byte; PMTU × 1..4 (a byte); u16 mod 6 PMTU; bit 2 Write-with-Immediate).
/// * then records, an opcode byte `op % 10`:
///   * 0, 1, a SACK: flags `f` (bits 1:0 EV; bits 3:2 `m`; bit 4 `pr`; bits 6:5 MPR; bit 7
///     an arbitrary 4-byte entropy instead), cumulative PSN (`% 3`: snd_una − 1 + u16 mod
///     outstanding + 2; snd_una + i8; any 24 bits), sack_offset (`% 4`: 1; i8; i16;
///     window + 63..65), bitmap (`% 4`: 8 bytes; all ones; zero; one bit);
///   * 2, 3, an honest SACK: flags (as above, bit 6: then the honest AETH), cumulative
///     point (u16 mod outstanding + 1), bitmap (8 bytes masked to the PSNs sent);
///   * 4, a NACK: reason (`% 8`: TRIMMED, TRIMMED_LASTHOP, NO_BITMAP, NO_PKT_BUFFER,
///     NO_RESOURCE, PSN_OOR_WINDOW, unknown 0x55, UNEXP_EVENT), PSN (near snd_una, near
///     snd_nxt, behind, any);
///   * 5, an AETH: syndrome (`% 8`: 0..3 0x1F, 4 0x00, 5 RNR 0x20, 6 NAK 0x60..0x63,
///     7 any byte), MSN (byte `b` below 0xF0: oldest pending − 2 + `b % 8`, else 2 bytes);
///   * 6, a CPU command (`% 16`: 0–6 Retransmit (a PSN), 7–9 Probe (EV byte), 10–14
///     SetEvState (state byte, EV byte), 15 QpError);
///   * 7, time: as in [`receiver`];
///   * 8, post one more message (a post record);
///   * 9, a probe answer: EV byte, probe ID (2 bytes), `m` byte.
///
/// Checks: no panic; a message completes with success (completion entry or sender flag)
/// only as an output of an accepted AETH whose MSN covers it, and at most once; at most one
/// `Retransmitted` with cause `sack_inference` per PSN while it stays outstanding
/// (`SND-RTX-003`); new PSNs are consecutive and data packets carry their message's RETH;
/// never more than the window outstanding; a refused packet leaves the send window, EV
/// states, error state, messages and counters (but `violations`) as they were and produces
/// no output at all.
pub fn sender(data: &[u8]) {
    let mut inp = Input::new(data);
    let c = inp.u8();
    let cfg = NicConfig {
        seed: u64::from(c),
        pmtu: 256,
        mpr: 1,
        timestamps: c & 4 != 0,
        wwi_limit: 1 + u16::from((c >> 5) & 3),
        ..NicConfig::default()
    };
    let psn0 = match inp.u8() % 4 {
        0 => 0,
        1 => PSN_MASK - u32::from(inp.u8()),
        _ => inp.u24(),
    };
    let mut qp = qp_config(LQP, PEER, psn0, 0);
    qp.spray = match c & 3 {
        // Bit 7 picks window-fit in place of skew-aware (added later, so that the inputs of
        // the corpus keep their meaning otherwise).
        3 if c & 0x80 != 0 => SprayPolicy::WindowFit,
        k => [
            SprayPolicy::RoundRobin,
            SprayPolicy::Random,
            SprayPolicy::Fixed,
            SprayPolicy::SkewAware,
        ][usize::from(k)],
    };
    if c & 8 != 0 {
        qp.backup_evs = vec![Ev::new(0xB0), Ev::new(0xB1)];
    }
    if c & 0x10 != 0 {
        qp.cc = CongestionControl::FixedWindow { bytes: 4 * 256 };
    }
    let window = cfg.window();
    let pmtu = cfg.pmtu;
    let mut nic = Nic::new(cfg).expect("valid configuration");
    nic.handle_host(Timestamp::ZERO, HostCommand::CreateQp(qp)).expect("QP");
    let mut s = Sender {
        nic,
        now: Timestamp::ZERO,
        pmtu,
        window,
        msgs: Vec::new(),
        next_new: Psn::new(psn0),
        inferred: HashMap::new(),
        completed: HashSet::new(),
        next_wr: 0,
    };
    for _ in 0..1 + inp.u8() % 6 {
        s.post(&mut inp);
    }
    for _ in 0..MAX_OPS {
        if inp.is_empty() {
            break;
        }
        match inp.u8() % 10 {
            0 | 1 => s.sack(&mut inp, false),
            2 | 3 => s.sack(&mut inp, true),
            4 => {
                let reason = NACK_REASONS[usize::from(inp.u8() % 8)];
                let (una, nxt) = s.send_window();
                let psn = psn_near(&mut inp, una, nxt);
                let neth = NethRepr::new(reason, psn, Ev::new(0x77));
                let bth = BthRepr::new(Opcode::MRC_NACK, Qpn::new(LQP), psn);
                s.inject(&Packet::Nack { bth, neth });
            }
            5 => {
                let syndrome = match inp.u8() % 8 {
                    0..=3 => AethRepr::ACK_UNLIMITED_CREDIT,
                    4 => 0,
                    5 => 0x20,
                    6 => AethRepr::NAK_PSN_SEQ_ERR + inp.u8() % 4,
                    _ => inp.u8(),
                };
                let b = inp.u8();
                let msn = if b < 0xF0 {
                    s.oldest_pending().add(u16::from(b % 8)).sub(2)
                } else {
                    Msn::new(inp.u16())
                };
                let aeth = AethRepr::new(syndrome, msn.into());
                let bth = BthRepr::new(Opcode::MRC_ACKNOWLEDGE, Qpn::new(LQP), Psn::ZERO);
                s.inject(&Packet::Ack { bth, aeth });
            }
            6 => s.cpu(&mut inp),
            7 => {
                if inp.bit() {
                    if let Some(t) = s.nic.poll_timeout() {
                        s.now = s.now.max(t);
                    }
                } else {
                    s.now = Timestamp(s.now.0 + u64::from(inp.u16()));
                }
                s.nic.handle_timeout(s.now).expect("time moves forward");
                let out = drain(&mut s.nic, s.now);
                s.outputs(&out, None);
            }
            8 => s.post(&mut inp),
            _ => {
                let b = inp.u8();
                let ev = if b < 0xF0 {
                    EVS[usize::from(b % 4)]
                } else {
                    Ev::new(0xB0 + u32::from(b % 2))
                };
                let id = inp.u16();
                let (una, _) = s.send_window();
                let seth = SethRepr {
                    m: WireMark(inp.u8() % 4),
                    pr: true,
                    ack_psn_offset: id as i16,
                    entropy: ev,
                    cack_psn: una.sub(1),
                    mpr: 1,
                    sack_offset: 1,
                    ..SethRepr::default()
                };
                let bth = BthRepr::new(Opcode::MRC_SACK, Qpn::new(LQP), una.sub(1));
                s.inject(&Packet::Sack { bth, seth, cc_state: CcStateRepr::default() });
            }
        }
    }
}

// =========================================================================================
// pair
// =========================================================================================

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

    fn event(&mut self, _: Timestamp, k: usize, e: NicEvent) {
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
    fn record(&mut self, k: usize, e: NicEvent) {
        match e {
            NicEvent::DmaWrite(w) => {
                let d = &mut self.dirs[1 - k];
                let len = u64::from(w.payload.len());
                assert!(
                    w.va >= REGION_BASE && w.va + len <= REGION_BASE + 0x100_0000,
                    "RCV-PLACE-003: DMA outside the region at {:#x}",
                    w.va
                );
                d.oracle.dma(0, 0, &w, |v| panic!("{v}"));
                *d.bytes.entry(w.msn).or_default() += len;
            }
            NicEvent::FlagWrite(f) if f.side == Side::Responder => {
                let d = &mut self.dirs[1 - k];
                let flag = FlagRepr::from_u64(f.value);
                d.oracle.flag(0, 0, &f, u64::from(flag.byte_len), |v| panic!("{v}"));
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
// doorbell
// =========================================================================================

/// The acceptance rules of a doorbell token, written from `DB-ORDER-001` and the `DB-*`
/// requirements: version, template, sequence, index, length (maximum, local region,
/// remote region), then the expansion of `TPL-EXPAND-*`.
fn doorbell_rules(
    tok: &DoorbellToken,
    installed: Option<&Template>,
    expected: u16,
) -> Result<WorkRequest, DoorbellReject> {
    if tok.version != 1 {
        return Err(DoorbellReject::BadVersion { version: tok.version });
    }
    let t = match installed {
        Some(t) if t.enabled && t.template_id == tok.template && t.validate().is_ok() => t,
        _ => return Err(DoorbellReject::UnknownTemplate { template: tok.template }),
    };
    let behind = expected.wrapping_sub(tok.seq);
    if behind != 0 {
        let (expected, got) = (expected, tok.seq);
        return Err(if behind < 0x8000 {
            DoorbellReject::StaleSeq { expected, got }
        } else {
            DoorbellReject::SeqGap { expected, got }
        });
    }
    if u32::from(tok.index) >= t.slots {
        return Err(DoorbellReject::IndexOutOfRange { index: tok.index, slots: t.slots });
    }
    let length = match tok.length_units {
        0 => u64::from(t.default_length),
        n => u64::from(n) * u64::from(t.length_unit),
    };
    if length > u64::from(t.max_length) {
        let limit = u64::from(t.max_length);
        return Err(DoorbellReject::LengthOutOfRange {
            length,
            bound: LengthBound::MaxLength,
            limit,
        });
    }
    let mut va = [0u64; 2];
    for (k, (bound, base, len, stride)) in [
        (LengthBound::LocalRegion, t.local_base, t.local_region_len, t.local_stride),
        (LengthBound::RemoteRegion, t.remote_base, t.remote_region_len, t.remote_stride),
    ]
    .into_iter()
    .enumerate()
    {
        let offset = u128::from(tok.index) * u128::from(stride);
        let room = u128::from(len).saturating_sub(offset);
        if u128::from(length) > room {
            let limit = u64::try_from(room).unwrap_or(u64::MAX);
            return Err(DoorbellReject::LengthOutOfRange { length, bound, limit });
        }
        va[k] =
            base.checked_add(offset as u64).expect("TPL-REGION-001: the slot lies in the region");
    }
    let imm = t.opcode == WrOpcode::WRITE_WITH_IMM;
    Ok(WorkRequest {
        wr_id: tok.to_u64(),
        qpn: t.qpn,
        opcode: t.opcode,
        local_va: va[0],
        lkey: t.local_lkey,
        remote_va: va[1],
        rkey: t.remote_rkey,
        length: length as u32,
        imm: imm.then(|| t.imm_base.wrapping_add(u32::from(tok.index))),
        flag_slot: t.flag_base_slot.wrapping_add(u32::from(tok.index)),
        signaled: t.signaled,
    })
}

/// The status of the error completion of each rejection (`CQE-STATUS-001`).
fn reject_status(r: &DoorbellReject) -> CompletionStatus {
    match r {
        DoorbellReject::BadVersion { .. } => CompletionStatus::BAD_VERSION,
        DoorbellReject::UnknownTemplate { .. } => CompletionStatus::UNKNOWN_TEMPLATE,
        DoorbellReject::StaleSeq { .. } => CompletionStatus::STALE_SEQ,
        DoorbellReject::SeqGap { .. } => CompletionStatus::SEQ_GAP,
        DoorbellReject::IndexOutOfRange { .. } => CompletionStatus::INDEX_OUT_OF_RANGE,
        DoorbellReject::LengthOutOfRange { .. } => CompletionStatus::LENGTH_OUT_OF_RANGE,
    }
}

/// The doorbell body's local registrations (`TPL-KEY-001`): every address, readable; every
/// address, not readable; the first 256 MiB, readable.
const LKEY_ALL: Lkey = Lkey::new(1);
const LKEY_NO_READ: Lkey = Lkey::new(2);
const LKEY_LOW: Lkey = Lkey::new(3);
const LOCAL_REGIONS: [LocalRegion; 3] = [
    LocalRegion { lkey: LKEY_ALL, base: 0, len: u64::MAX, local_read: true },
    LocalRegion { lkey: LKEY_NO_READ, base: 0, len: u64::MAX, local_read: false },
    LocalRegion { lkey: LKEY_LOW, base: 0, len: 0x1000_0000, local_read: true },
];

/// Whether a template's local key covers its local region with read permission, by the
/// registrations of [`LOCAL_REGIONS`] (`TPL-KEY-001`).
fn key_covers(t: &Template) -> bool {
    LOCAL_REGIONS
        .iter()
        .find(|r| r.lkey == t.local_lkey)
        .is_some_and(|r| r.local_read && r.contains(t.local_base, t.local_region_len))
}

/// A template from an input record (see [`doorbell`]).
fn template_from(inp: &mut Input<'_>) -> Template {
    let m = inp.u8();
    let region = |inp: &mut Input<'_>| -> (u64, u64) {
        match inp.u8() % 4 {
            0 | 1 => (0x1000_0000 * u64::from(1 + inp.u8() % 4), 0x10_0000),
            2 => (u64::MAX - u64::from(inp.u16()), u64::from(inp.u16())),
            _ => (inp.u64(), inp.u64()),
        }
    };
    let (local_base, local_region_len) = region(inp);
    let (remote_base, remote_region_len) = region(inp);
    let stride = |inp: &mut Input<'_>| -> u64 {
        match inp.u8() % 4 {
            0 => 0,
            1 | 2 => 0x1000,
            _ => inp.u64(),
        }
    };
    let local_stride = stride(inp);
    let remote_stride = stride(inp);
    let length_unit = match inp.u8() {
        b if b < 0xC0 => 1u32 << (b % 32),
        _ => inp.u32(),
    };
    let max_length = match inp.u8() % 4 {
        0 | 1 => 0x4000,
        2 => u32::from(inp.u16()),
        _ => inp.u32(),
    };
    let default_length = match inp.u8() % 4 {
        0 | 1 => 0x1000,
        2 => u32::from(inp.u8()),
        _ => inp.u32(),
    };
    Template {
        template_id: TemplateId::new(if m & 1 == 0 { u16::from(inp.u8() % 4) } else { inp.u16() }),
        enabled: m & 2 == 0,
        qpn: if m & 4 == 0 { Qpn::new(LQP) } else { Qpn::new(inp.u24()) },
        opcode: match inp.u8() % 4 {
            0 | 1 => WrOpcode::WRITE,
            2 => WrOpcode::WRITE_WITH_IMM,
            _ => WrOpcode(inp.u8()),
        },
        local_base,
        local_lkey: match inp.u32() {
            k if k % 8 <= 4 => LKEY_ALL,
            k if k % 8 == 5 => LKEY_NO_READ,
            k if k % 8 == 6 => LKEY_LOW,
            k => Lkey::new(k),
        },
        local_region_len,
        remote_base,
        remote_rkey: Rkey::new(inp.u32()),
        remote_region_len,
        slots: match inp.u8() % 4 {
            0 => 1,
            1 | 2 => 1 + u32::from(inp.u8() % 16),
            _ => inp.u32(),
        },
        local_stride,
        remote_stride,
        length_unit,
        default_length,
        max_length,
        imm_base: inp.u32(),
        flag_base_slot: if m & 8 == 0 {
            u32::from(inp.u8())
        } else {
            u32::MAX - u32::from(inp.u8())
        },
        signaled: m & 0x10 == 0,
    }
}

#[derive(Debug)]
struct Doorbells {
    nic: Nic,
    now: Timestamp,
    /// What the body believes is installed: template and expected seq, by ID.
    installed: HashMap<TemplateId, (Template, u16)>,
    /// Requests accepted and not yet seen starting on the wire, in order.
    starting: VecDeque<WorkRequest>,
}

impl Doorbells {
    fn install(&mut self, t: Template) {
        let r = self.nic.handle_host(self.now, HostCommand::SetTemplate(t));
        let out = drain(&mut self.nic, self.now);
        assert!(out.is_empty(), "installing a template produced output");
        match (t.validate(), r) {
            (Err(_), Err(HostError::Misuse(ApiMisuse::BadTemplate { template, .. }))) => {
                assert_eq!(template, t.template_id, "API-TPL-001 names the template");
            }
            (Ok(()), Err(HostError::Misuse(ApiMisuse::UnknownQp(q)))) => {
                assert_eq!(q, t.qpn, "API-QP-004 names the QP");
                assert_ne!(t.qpn, Qpn::new(LQP), "the QP exists");
            }
            (Ok(()), Err(HostError::Misuse(ApiMisuse::TemplateKey { template, lkey, .. }))) => {
                assert_eq!((template, lkey), (t.template_id, t.local_lkey), "TPL-KEY-001");
                assert_eq!(t.qpn, Qpn::new(LQP), "the QP is checked first");
                assert!(!key_covers(&t), "TPL-KEY-001: a template whose key covers it refused");
            }
            (Ok(()), Ok(())) => {
                assert_eq!(t.qpn, Qpn::new(LQP), "a template for an unknown QP was installed");
                assert!(key_covers(&t), "TPL-KEY-001: installed without a covering key");
                // TPL-INSTALL-003: disabling or re-enabling keeps the expected seq; any
                // other installation, under a new ID or one in use, sets it to 0.
                let seq = match self.installed.get(&t.template_id) {
                    Some((old, seq))
                        if old.enabled != t.enabled
                            && Template { enabled: t.enabled, ..*old } == t =>
                    {
                        *seq
                    }
                    _ => 0,
                };
                self.installed.insert(t.template_id, (t, seq));
            }
            (v, r) => panic!("SetTemplate: validate {v:?} but the NIC answered {r:?}"),
        }
    }

    /// Rings one token through the codec's rules and the NIC and checks both.
    fn ring(&mut self, v: u64) {
        self.ring_by(v, HostCommand::Doorbell { token: v });
    }

    /// A write to a doorbell register: one that carries a token rings it as
    /// [`Doorbells::ring`] does (`DB-FORMAT-002`, `DB-MMIO-003`); any other is ignored,
    /// changing nothing but its counter (`DB-MMIO-002`).
    fn bus_write(&mut self, w: DoorbellWrite) {
        if let Some(v) = w.token() {
            assert_eq!(v.to_le_bytes()[..], w.bytes[..], "DB-FORMAT-002: little-endian");
            return self.ring_by(v, HostCommand::DoorbellWrite(w));
        }
        let pending = self.nic.pending_messages();
        let qs = qp_state(&self.nic, LQP);
        let stats = self.nic.stats().clone();
        let r = self.nic.handle_host(self.now, HostCommand::DoorbellWrite(w.clone()));
        assert_eq!(r, Ok(()), "DB-MMIO-002: an ignored write is no error");
        let out = drain(&mut self.nic, self.now);
        assert!(
            out.tx.is_empty()
                && out.dma.is_empty()
                && out.flags.is_empty()
                && out.completions.is_empty()
                && out.reports.is_empty(),
            "DB-MMIO-002: {w:?} produced {out:?}"
        );
        assert_eq!(self.nic.pending_messages(), pending, "DB-MMIO-002: state changed");
        assert_eq!(qs, qp_state(&self.nic, LQP), "DB-MMIO-002: QP state changed");
        let counted =
            NicStats { ignored_doorbell_writes: stats.ignored_doorbell_writes + 1, ..stats };
        assert_eq!(&counted, self.nic.stats(), "DB-MMIO-002: counted, nothing else");
    }

    /// Rings token `v`, given to the NIC as `cmd`.
    fn ring_by(&mut self, v: u64, cmd: HostCommand) {
        let bytes = v.to_le_bytes();
        let tok = DoorbellToken::parse(&bytes).expect("every 8 bytes are a token");
        assert_eq!(tok, DoorbellToken::from_u64(v), "DB-FORMAT-002");
        assert_eq!(tok.to_u64(), v, "DB-FORMAT-001: parse is lossless");
        let mut back = [0u8; 8];
        assert_eq!(tok.emit(&mut back), Ok(8));
        assert_eq!(back, bytes, "DB-FORMAT-002: emit is lossless");
        let mut violations = Vec::new();
        tok.validate(0, &mut violations);
        assert_eq!(violations.is_empty(), tok.version == 1, "DB-VERSION-001");

        let (installed, expected) = match self.installed.get(&tok.template) {
            Some((t, seq)) => (Some(*t), *seq),
            None => (None, 0),
        };
        let want = doorbell_rules(&tok, installed.as_ref(), expected);
        assert_eq!(
            accept_doorbell(&tok, installed.as_ref(), expected),
            want,
            "DB-ORDER-001: accept_doorbell of {tok} against {installed:?}, seq {expected}"
        );
        if let Some(t) = &installed {
            // The stateless part agrees with the whole decision when the seq matches.
            assert_eq!(t.expand(&tok), accept_doorbell(&tok, Some(t), tok.seq), "TPL-EXPAND");
        }

        let pending = self.nic.pending_messages();
        let qs = qp_state(&self.nic, LQP);
        let stats = self.nic.stats().clone();
        let r = self.nic.handle_host(self.now, cmd);
        let out = drain(&mut self.nic, self.now);
        if let Ok(wr) = &want {
            self.starting.push_back(*wr);
        }
        self.check_starts(&out);
        match want {
            Ok(_) => {
                assert_eq!(r, Ok(()), "DB-ACCEPT-001: token {tok} refused");
                let s = self.installed.get_mut(&tok.template).expect("installed");
                s.1 = s.1.wrapping_add(1);
                assert_eq!(self.nic.pending_messages(), pending + 1, "DB-ACCEPT-001: one message");
                assert!(out.completions.is_empty() && out.flags.is_empty(), "no completion yet");
            }
            Err(reject) => {
                let e = HostError::Doorbell(DoorbellRejected { token: v, reject });
                assert_eq!(r, Err(e), "{}: token {tok}", reject.requirement());
                let (qpn, opcode) = match (&installed, reject.template_known()) {
                    (Some(t), true) => (t.qpn, t.opcode),
                    _ => (Qpn::new(0), WrOpcode::NONE),
                };
                let entry = CompletionRepr {
                    wr_id: v,
                    status: reject_status(&reject),
                    opcode,
                    qpn,
                    ..CompletionRepr::default()
                }
                .with_timestamp(self.now.0 as u32);
                assert_eq!(
                    out.completions,
                    vec![CompletionEvent { side: Side::Requester, entry, queue: None }],
                    "DB-REJECT-001: exactly one error completion"
                );
                assert!(
                    out.tx.is_empty()
                        && out.dma.is_empty()
                        && out.flags.is_empty()
                        && out.reports.is_empty(),
                    "DB-REJECT-001: a rejected token produced {out:?}"
                );
                assert_eq!(self.nic.pending_messages(), pending, "DB-REJECT-001: state changed");
                assert_eq!(qs, qp_state(&self.nic, LQP), "DB-REJECT-001: QP state changed");
                assert_eq!(&stats, self.nic.stats(), "DB-REJECT-001: counters changed");
                // DB-SEQ-004: the rejected number is not consumed; the next valid token of
                // a usable template is accepted.
                if let Some(t) = installed.filter(|t| t.usable_for(tok.template)) {
                    let seq = self.installed[&t.template_id].1;
                    let next = t.token(seq, 0, 0);
                    assert!(doorbell_rules(&next, Some(&t), seq).is_ok(), "slot 0 fits");
                    self.ring(next.to_u64());
                }
            }
        }
    }

    /// The first packet of each new message carries the expansion of its token.
    fn check_starts(&mut self, out: &Out) {
        for t in &out.tx {
            let Packet::Write(w) = &t.packet else { continue };
            if w.bth.rtx || !w.bth.opcode.is_first() {
                continue;
            }
            let wr = self.starting.pop_front().expect("a message started that nobody asked for");
            assert_eq!(w.reth.va, wr.remote_va, "TPL-EXPAND-003: remote address");
            assert_eq!(w.reth.rkey, wr.rkey, "TPL-EXPAND: rkey");
            assert_eq!(w.reth.dma_len, wr.length, "TPL-EXPAND-004: length");
            assert_eq!(w.payload, Payload::Host { addr: wr.local_va, len: w.payload.len() });
            if w.bth.opcode.is_last() {
                assert_eq!(w.immdt.map(|i| i.imm), wr.imm, "TPL-EXPAND-005: immediate");
            }
        }
    }
}

/// Doorbell tokens and templates: through the codec's pure rules and through a NIC.
///
/// Input:
/// * a template record, installed first (see below);
/// * then records, an opcode byte `op % 8`:
///   * 0–5, a token: a mode byte `m` (bits 1:0 = 0: any template ID (2 bytes), else the
///     template of the last install; bit 2 a version byte (else 1); bits 5:3 seq: 0–3 the
///     expected, 4 expected − 1 − byte, 5 expected + 1 + byte, 6 expected + 2^15, 7 any 2
///     bytes), index (`% 4`: 0, 1 byte mod slots; 2 slots + byte; 3 any 2 bytes), units
///     (`% 4`: 0, 1 default; 2 a byte; 3 any 2 bytes);
///   * 6, a raw token: a mode byte (`% 4`: 0, 1 the token's 8 bytes as a value; 2 a
///     register (4 bytes) and the token's 8 bytes as an aligned bus write; 3 a register (4
///     bytes), an offset byte (`% 12`), a length byte (`% 20`) and that many bytes, as a
///     bus write);
///   * 7, install a template record.
/// * A template record: a mode byte `m` (bit 0 any ID (2 bytes) else 0..3; bit 1 disabled;
///   bit 2 any QPN (3 bytes); bit 3 flag slots near 2^32; bit 4 unsignaled), local and
///   remote region (`% 4`: 0, 1 base k × 2^28, 1 MiB; 2 base near 2^64, u16 length; 3 any
///   8 + 8 bytes), local and remote stride (`% 4`: 0; 1, 2 4 KiB; 3 any 8 bytes), length
///   unit (byte below 0xC0: 2^(b % 32), else 4 bytes), max length (`% 4`: 0, 1 16 KiB; 2
///   u16; 3 u32), default length (`% 4`: 0, 1 4 KiB; 2 a byte; 3 u32), ID, QPN, opcode
///   (`% 4`: 0, 1 WRITE; 2 WRITE_WITH_IMM; 3 any byte), lkey (4 bytes `k`, `k % 8`: 0–4 a
///   key registered over every address, readable; 5 one not readable; 6 one over the first
///   256 MiB only; 7 `k` itself), rkey (4), slots (`% 4`: 1; 1..16; 1..16; any 4 bytes),
///   imm_base (4), flag base slot (a byte).
///
/// Checks: token parse, emit and validate are lossless and never panic; `accept_doorbell`
/// equals the rules of `DB-ORDER-001` written out here, and `Template::expand` agrees
/// with it; a template is installed exactly when it is valid, names the QP and its local
/// key covers it with read permission (`TPL-KEY-001`); through a NIC, an accepted token adds one message whose first packet carries
/// the expansion, and a rejected one returns exactly that rejection, produces exactly one
/// error completion (`CQE-REJECT-001`) and nothing else, changes no state or counter, and
/// does not consume its seq: the next valid token is accepted. A bus write that is not one
/// aligned write of 8 bytes changes nothing but its counter (`DB-MMIO-002`).
pub fn doorbell(data: &[u8]) {
    let mut inp = Input::new(data);
    let cfg = NicConfig { seed: 3, pmtu: 1024, mpr: 1, timestamps: false, ..NicConfig::default() };
    let mut nic = Nic::new(cfg).expect("valid configuration");
    nic.handle_host(Timestamp::ZERO, HostCommand::CreateQp(qp_config(LQP, PEER, 0, 0)))
        .expect("QP");
    for r in LOCAL_REGIONS {
        nic.handle_host(Timestamp::ZERO, HostCommand::RegisterLocal(r)).expect("local key");
    }
    let mut d = Doorbells {
        nic,
        now: Timestamp::ZERO,
        installed: HashMap::new(),
        starting: VecDeque::new(),
    };
    let mut current = template_from(&mut inp);
    d.install(current);
    for _ in 0..MAX_OPS {
        if inp.is_empty() {
            break;
        }
        d.now = Timestamp(d.now.0 + 100);
        match inp.u8() % 8 {
            0..=5 => {
                let m = inp.u8();
                let template = TemplateId::new(
                    if m & 3 == 0 { inp.u16() } else { current.template_id.value() } & 0xFFF,
                );
                let version = if m & 4 == 0 { 1 } else { inp.u8() & 0xF };
                let expected = d.installed.get(&template).map_or(0, |s| s.1);
                let seq = match (m >> 3) & 7 {
                    0..=3 => expected,
                    4 => expected.wrapping_sub(1 + u16::from(inp.u8())),
                    5 => expected.wrapping_add(1 + u16::from(inp.u8())),
                    6 => expected.wrapping_add(0x8000),
                    _ => inp.u16(),
                };
                let slots = d.installed.get(&template).map_or(1, |s| s.0.slots.max(1));
                let index = match inp.u8() % 4 {
                    0 | 1 => (u32::from(inp.u8()) % slots) as u16,
                    2 => slots.saturating_add(u32::from(inp.u8())) as u16,
                    _ => inp.u16(),
                };
                let length_units = match inp.u8() % 4 {
                    0 | 1 => 0,
                    2 => u16::from(inp.u8()),
                    _ => inp.u16(),
                };
                let tok = DoorbellToken { version, template, seq, index, length_units };
                d.ring(tok.to_u64());
            }
            6 => match inp.u8() % 4 {
                0 | 1 => d.ring(inp.u64()),
                // An aligned 8-byte write through any register: a token.
                2 => d.bus_write(DoorbellWrite::of_token(inp.u32(), inp.u64())),
                // Any write: offset and length from 0 to 11 and 0 to 19 bytes.
                _ => {
                    let register = inp.u32();
                    let offset = inp.u8() % 12;
                    let len = inp.u8() % 20;
                    let bytes = (0..len).map(|_| inp.u8()).collect();
                    d.bus_write(DoorbellWrite { register, offset, bytes });
                }
            },
            _ => {
                // Disable or re-enable the current template (its seq stays), or install
                // another (its seq starts at 0).
                current = if inp.u8() & 1 == 0 {
                    Template { enabled: !current.enabled, ..current }
                } else {
                    template_from(&mut inp)
                };
                d.install(current);
            }
        }
    }
}
