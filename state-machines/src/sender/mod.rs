//! The requester half of a QP: segmentation, PSN and MSN assignment, path choice, the MPR
//! window, SACK/NACK processing with selective retransmission, and sender completions
//! (requirements `SND-*`, `EV-*`, `WWI-*`).
//!
//! Packet state lives in a ring indexed by `psn - snd_una` whose length never exceeds the
//! window, so memory per QP is bounded by configuration whatever the peer sends.
//!
//! Loss inference (`SND-INFER-*`): every EV is treated as a FIFO path. Each transmission on
//! an EV gets that EV's next sequence number; when a SACK shows that a transmission on EV
//! `e` arrived, every earlier transmission on `e` that has not been acknowledged is lost.
//! A lost packet is retransmitted once by inference, with the same PSN, `rtx` set and a
//! different EV. A packet that is merely late on a slower path is never inferred lost, so
//! with no loss there is no retransmission.
//!
//! Tail probing (`SND-TAIL-*`, off unless `NicConfig::tail_probe` is set): the last
//! transmissions on an EV have no later transmission to reveal their loss. When an EV's
//! latest transmission is a data packet still not known to have arrived `tail_probe` after
//! it left, a probe follows it on the EV; the probe's answer reports on everything sent
//! before the probe on that FIFO path, so it is evidence as a later data packet would be.

use std::collections::VecDeque;

use openrdma_codec::host::{WorkRequest, WrOpcode};
use openrdma_codec::{
    AethKind, AethRepr, BthRepr, Ev, ImmDtRepr, MethRepr, Msn, NackReason, NethRepr, Opcode,
    PethRepr, Psn, Qpn, RethRepr, Rqmsn, SethRepr, TsethRepr,
};
use rand_chacha::ChaCha8Rng;
use rand_core::Rng;

use crate::config::{CongestionControl, NicConfig, QpConfig, SprayPolicy};
use crate::error::PeerViolation;
use crate::ev::{EvEvent, EvMark, EvState};
use crate::packet::{Packet, WritePacket};
use crate::ring::Ring;
use openrdma_device::{Payload, Timestamp};

mod loss;
mod paths;

use loss::Repair;
use paths::Transmission;
use paths::WindowFit;
pub(crate) use paths::{EvSlot, Paths};

/// A message at the sender.
#[derive(Debug, Clone)]
pub(crate) struct SendMsg {
    pub(crate) wr: WorkRequest,
    pub(crate) msn: Msn,
    rqmsn: Rqmsn,
    first_psn: Psn,
    npkts: u32,
    /// Packets of this message sent at least once.
    sent: u32,
}

impl SendMsg {
    fn last_psn(&self) -> Psn {
        self.first_psn.add(self.npkts - 1)
    }
    fn is_wwi(&self) -> bool {
        self.wr.opcode == WrOpcode::WRITE_WITH_IMM
    }
}

/// One PSN in flight.
#[derive(Debug, Clone, Copy, Default)]
struct PktState {
    /// Index of the message in `msgs` counted from `msg_base`.
    msg: u64,
    seg: u32,
    ev_idx: u16,
    /// Sequence of the latest transmission on `ev_idx`.
    seq: u64,
    sent_at: Timestamp,
    len: u32,
    sacked: bool,
    /// Already retransmitted because of SACK inference (at most once, `SND-RTX-003`).
    inferred: bool,
    /// Queued for retransmission.
    queued: bool,
    retransmissions: u16,
}

pub(crate) use crate::event::RetransmitCause as RtxCause;

/// What [`Requester::next_packet`] chose to send, as a few numbers: the packet itself is
/// built by [`Requester::packet`] where the caller wants it, so that it is written once
/// instead of being moved through each layer of return values.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Next {
    /// The EV to send it on.
    pub(crate) ev: Ev,
    /// Whether it is the first data packet of an idle QP (nothing else in flight).
    pub(crate) first: bool,
    what: What,
}

#[derive(Debug, Clone, Copy)]
enum What {
    /// Segment `seg` of message `msg` (an index into `msgs`), with `psn`; `resend` when it
    /// was sent before.
    Write { msg: usize, seg: u32, psn: Psn, resend: Option<Resend> },
    /// A probe.
    Probe { psn: Psn, id: u16 },
}

/// Why a data packet goes out again, and the EV of the copy presumed lost.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Resend {
    /// What made the sender retransmit.
    pub(crate) cause: RtxCause,
    /// The EV of the transmission this one replaces, when a queued retransmission is sent
    /// (`None` for the resends of a late transport ACK or a lost SACK).
    pub(crate) lost_ev: Option<Ev>,
}

impl Resend {
    /// A resend ordered after a timeout, with no transmission presumed lost.
    const TIMEOUT: Resend = Resend { cause: RtxCause::Timeout, lost_ev: None };
}

impl Next {
    fn write(ev: Ev, first: bool, msg: usize, seg: u32, psn: Psn, resend: Option<Resend>) -> Next {
        Next { ev, first, what: What::Write { msg, seg, psn, resend } }
    }

    /// Whether it is a data packet (a Write), not a probe.
    pub(crate) fn is_data(&self) -> bool {
        matches!(self.what, What::Write { .. })
    }

    /// Why it is sent again, if it is a retransmitted data packet.
    pub(crate) fn resend(&self) -> Option<Resend> {
        match self.what {
            What::Write { resend, .. } => resend,
            What::Probe { .. } => None,
        }
    }

    /// Its PSN.
    pub(crate) fn psn(&self) -> Psn {
        match self.what {
            What::Write { psn, .. } | What::Probe { psn, .. } => psn,
        }
    }
}

/// A retransmission waiting in the queue.
#[derive(Debug, Clone, Copy)]
struct RtxEntry {
    psn: Psn,
    cause: RtxCause,
    /// Whether it waits for `rtx_not_before` (a NACK's back-off, `SND-NACK-004`).
    delayed: bool,
}

/// A probe waiting to be sent (`EV-PROBE-005`).
#[derive(Debug, Clone, Copy)]
struct QueuedProbe {
    ev: Ev,
    id: u16,
}

/// A probe sent while tail probing is on, not yet answered (`SND-TAIL-002`).
#[derive(Debug, Clone, Copy)]
struct SentProbe {
    /// Index of its EV in `evs`.
    ev_idx: u16,
    id: u16,
    /// The probe's sequence number on its EV.
    seq: u64,
}

/// A transmission that went out on an EV before another one on the same EV that has
/// arrived: lost, if an acknowledgement that covers it does not show it (`SND-INFER-001`).
#[derive(Debug, Clone, Copy)]
struct Suspect {
    psn: Psn,
    /// Its sequence number on its EV.
    seq: u64,
    /// The PSN of the later arrival on the same EV.
    evidence: Psn,
}

/// An outstanding PSN already SACKed, to send once more so that the responder repeats the
/// SACK that moved the cumulative point and was lost (`REC-RTO-003`, `RCV-DUP-001`).
#[derive(Debug, Clone, Copy)]
struct DuplicateResend {
    psn: Psn,
    /// Absolute index of its message (see `msg_base`).
    msg: u64,
    seg: u32,
}

/// Outcome of trying to retransmit one queued PSN.
enum Rtx {
    Sent(Next),
    /// Acknowledged meanwhile: drop the entry.
    Stale,
    /// No usable EV: keep the entry and wait.
    NoPath,
}

/// What an acknowledgement (a SACK, a NACK, a transport ACK or NAK) did to the sender, for
/// the NIC to report: returned by [`Requester::on_sack`], [`Requester::on_nack`] and
/// [`Requester::on_aeth`].
#[derive(Debug, Default)]
pub(crate) struct AckOutcome {
    /// The cumulative point moved, or messages completed.
    pub(crate) progressed: bool,
    /// EVs whose state changed, in the order they changed.
    pub(crate) ev_changes: Vec<EvChange>,
    /// The skip marks a SACK carried (`EV-MARK-*`).
    pub(crate) marks: Vec<EvMarkSeen>,
    /// The answers to probes, with the mark each carried.
    pub(crate) probe_answers: Vec<EvMarkSeen>,
    /// Messages completed, oldest first.
    pub(crate) completed: Vec<SendMsg>,
    /// The acknowledgement moved the QP to the error state.
    pub(crate) fatal: Option<Fatal>,
    /// The NACK received, when the input was one the sender reports.
    pub(crate) nack: Option<NackSeen>,
}

/// An EV's new state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EvChange {
    pub(crate) ev: Ev,
    pub(crate) state: EvState,
}

/// A mark an acknowledgement carried for an EV.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EvMarkSeen {
    pub(crate) ev: Ev,
    pub(crate) mark: EvMark,
}

/// A NACK as the sender reports it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NackSeen {
    pub(crate) psn: Psn,
    pub(crate) reason: NackReason,
}

/// Why an acknowledgement moved the QP to the error state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fatal {
    /// The rule that says so (`SND-NACK-005`, `SND-ACK-003`).
    pub(crate) requirement: &'static str,
    /// The syndrome of a transport NAK, when it comes from one.
    pub(crate) nak_syndrome: Option<u8>,
}

/// The Write opcode of a packet, indexed by whether it is its message's first packet (bit
/// 0), its last (bit 1), and whether the message carries an immediate (bit 2).
const WRITE_OPCODES: [Opcode; 8] = [
    Opcode::MRC_WRITE_MIDDLE,
    Opcode::MRC_WRITE_FIRST,
    Opcode::MRC_WRITE_LAST,
    Opcode::MRC_WRITE_ONLY,
    Opcode::MRC_WRITE_MIDDLE,
    Opcode::MRC_WRITE_FIRST,
    Opcode::MRC_WRITE_LAST_IMM,
    Opcode::MRC_WRITE_ONLY_IMM,
];

/// Which PSNs carry AckReq: one of every N, worked out once as a mask when N is a power of
/// two (as it is by default), else by a division.
#[derive(Debug, Clone, Copy)]
enum AckReqEvery {
    /// N - 1, N a power of two.
    Mask(u32),
    /// N, at least 1.
    Every(u32),
}

impl AckReqEvery {
    fn new(n: u32) -> AckReqEvery {
        if n.is_power_of_two() { AckReqEvery::Mask(n - 1) } else { AckReqEvery::Every(n) }
    }
}

/// The requester state of one QP.
#[derive(Debug)]
pub(crate) struct Requester {
    qpn: Qpn,
    peer_qpn: Qpn,
    pmtu: u32,
    window: u32,
    /// The peer's advertised MPR window in packets (dynamic MPR).
    peer_window: u32,
    ack_req_every: AckReqEvery,
    timestamps: bool,
    wwi_limit: u16,
    cc: CongestionControl,
    pub(crate) snd_una: Psn,
    pub(crate) snd_nxt: Psn,
    msgs: VecDeque<SendMsg>,
    /// Absolute index of `msgs[0]`.
    msg_base: u64,
    /// Index in `msgs` of the first message with unsent packets.
    cursor: usize,
    pkts: Ring<PktState>,
    inflight_bytes: u64,
    wwi_outstanding: u16,
    next_rqmsn: Rqmsn,
    pub(crate) in_error: bool,
    /// Path choice: the EV profile, the spray policy and its state.
    pub(crate) paths: Paths,
    /// Repairs waiting to go out: retransmissions, probes and resends.
    repair: Repair,
}

impl Requester {
    pub(crate) fn new(nic: &NicConfig, qp: &QpConfig, rng: ChaCha8Rng) -> Self {
        let mk = |ev: &Ev, backup| EvSlot {
            ev: *ev,
            state: EvState::Good,
            since: Timestamp::ZERO,
            backup,
            next_seq: 0,
            fifo: Ring::new(),
            srtt: 0,
            inflight: 0,
            probed_at: None,
            fit_rtt: 0,
            tail_at: Timestamp::ZERO,
            tail_probed: false,
        };
        let mut evs: Vec<EvSlot> = qp.evs.iter().map(|e| mk(e, false)).collect();
        evs.extend(qp.backup_evs.iter().map(|e| mk(e, true)));
        Requester {
            qpn: qp.qpn,
            peer_qpn: qp.peer_qpn,
            pmtu: nic.pmtu,
            window: nic.window(),
            peer_window: nic.window(),
            ack_req_every: AckReqEvery::new(nic.ack_req_every),
            timestamps: nic.timestamps,
            wwi_limit: nic.wwi_limit,
            cc: qp.cc,
            snd_una: qp.initial_psn,
            snd_nxt: qp.initial_psn,
            msgs: VecDeque::new(),
            msg_base: 0,
            cursor: 0,
            pkts: Ring::new(),
            inflight_bytes: 0,
            wwi_outstanding: 0,
            next_rqmsn: Rqmsn::ZERO,
            in_error: false,
            paths: Paths {
                evs,
                rr: 0,
                rng,
                spray: qp.spray,
                evs_degraded: false,
                primaries: qp.evs.len(),
                fit: WindowFit::new(nic),
                srtts: Vec::new(),
            },
            repair: Repair {
                rtx: VecDeque::new(),
                rtx_not_before: Timestamp::ZERO,
                probe_id: 0,
                probes: VecDeque::new(),
                tail_probe: nic.tail_probe,
                sent_probes: VecDeque::new(),
                suspects: Vec::new(),
                tail_resend: None,
                duplicate_resend: None,
            },
        }
    }

    /// Packets sent and not yet acknowledged.
    pub(crate) fn outstanding(&self) -> u32 {
        self.snd_nxt.forward_from(self.snd_una)
    }

    /// Messages accepted and not yet completed.
    pub(crate) fn pending_messages(&self) -> usize {
        self.msgs.len()
    }

    /// Whether anything waits to be sent.
    #[inline(always)]
    pub(crate) fn has_work(&self, now: Timestamp) -> bool {
        !self.in_error
            && (!self.repair.probes.is_empty()
                || self.repair.tail_resend.is_some()
                || self.repair.duplicate_resend.is_some()
                || self.repair.rtx.iter().any(|r| !r.delayed || now >= self.repair.rtx_not_before)
                || self.cursor < self.msgs.len())
    }

    /// Earliest time a delayed retransmission becomes due, if one waits.
    #[inline(always)]
    pub(crate) fn rtx_deadline(&self) -> Option<Timestamp> {
        (self.repair.rtx_not_before > Timestamp::ZERO && self.repair.rtx.iter().any(|r| r.delayed))
            .then_some(self.repair.rtx_not_before)
    }

    /// Handles the passing of time: SKIP EVs whose hold has passed return to GOOD
    /// (`EV-SKIP-002`), and a NACK back-off that has passed releases its retransmissions.
    /// Returns the EVs that changed state.
    pub(crate) fn on_timeout(&mut self, now: Timestamp, hold: core::time::Duration) -> Vec<Ev> {
        let mut changed = Vec::new();
        if self.paths.evs_degraded {
            for s in &mut self.paths.evs {
                if s.state == EvState::Skip && now >= s.since + hold {
                    s.state = EvState::Good;
                    s.since = now;
                    changed.push(s.ev);
                }
            }
            self.paths.refresh_degraded();
        }
        if self.repair.rtx_not_before > Timestamp::ZERO && now >= self.repair.rtx_not_before {
            self.repair.rtx_not_before = Timestamp::ZERO;
        }
        changed
    }

    /// Accepts a work request; `msn` comes from the retirement domain (shared mode) or the
    /// QP (per-QP mode).
    pub(crate) fn push(&mut self, wr: WorkRequest, msn: Msn) {
        let npkts = wr.length.div_ceil(self.pmtu).max(1);
        let is_wwi = wr.opcode == WrOpcode::WRITE_WITH_IMM;
        // METH-RQMSN-001: a Write-with-Immediate carries its own number (1, 2, ...); any
        // other message carries the number the next one will take.
        let rqmsn = self.next_rqmsn.next();
        if is_wwi {
            self.next_rqmsn = rqmsn;
        }
        self.msgs.push_back(SendMsg {
            wr,
            msn,
            rqmsn,
            first_psn: Psn::ZERO, // assigned when the first packet is sent
            npkts,
            sent: 0,
        });
    }

    /// The next packet to transmit, if the windows allow one.
    #[inline(always)]
    pub(crate) fn next_packet(&mut self, now: Timestamp) -> Option<Next> {
        if self.in_error {
            return None;
        }
        // The common case, nothing to repair: straight to the next new packet.
        if self.repair.probes.is_empty()
            && self.repair.tail_resend.is_none()
            && self.repair.duplicate_resend.is_none()
            && self.repair.rtx.is_empty()
        {
            return self.send_new(now);
        }
        // SKIP expiry happens in `on_timeout` (driven by the NIC's timer), so that every
        // SKIP→GOOD change is reported.
        if let Some(QueuedProbe { ev, id }) = self.repair.probes.pop_front() {
            self.note_probe(now, ev, id);
            return Some(Next { ev, first: false, what: What::Probe { psn: self.snd_nxt, id } });
        }
        if let Some(psn) = self.repair.tail_resend.take() {
            let tail =
                self.msgs.front().map(|m| (m.sent == m.npkts && m.last_psn() == psn, m.npkts));
            if let Some((true, npkts)) = tail {
                if self.outstanding() == 0 {
                    if let Some(ev_idx) = self.paths.choose_ev(None) {
                        let ev = self.paths.evs[ev_idx as usize].ev;
                        let resend = Some(Resend::TIMEOUT);
                        return Some(Next::write(ev, false, 0, npkts - 1, psn, resend));
                    }
                }
            }
        }
        if let Some(DuplicateResend { psn, msg, seg }) = self.repair.duplicate_resend.take() {
            let off = psn.distance(self.snd_una);
            if off >= 0 && (off as u32) < self.outstanding() && msg >= self.msg_base {
                if let Some(ev_idx) = self.paths.choose_ev(None) {
                    let ev = self.paths.evs[ev_idx as usize].ev;
                    let msg = (msg - self.msg_base) as usize;
                    return Some(Next::write(ev, false, msg, seg, psn, Some(Resend::TIMEOUT)));
                }
            }
        }
        // The first retransmission that may go now: entries delayed by a resource NACK wait
        // for `rtx_not_before` without holding back the others (SND-NACK-004).
        let mut k = 0;
        while k < self.repair.rtx.len() {
            let RtxEntry { psn, cause, delayed } = self.repair.rtx[k];
            if delayed && now < self.repair.rtx_not_before {
                k += 1;
                continue;
            }
            match self.retransmit(now, psn, cause) {
                Rtx::Sent(p) => {
                    self.repair.rtx.remove(k);
                    return Some(p);
                }
                Rtx::Stale => {
                    self.repair.rtx.remove(k);
                }
                // SND-PATH-002: no usable EV; the packet waits, still queued.
                Rtx::NoPath => return None,
            }
        }
        self.send_new(now)
    }

    #[inline(always)]
    fn window_open(&self, len: u32) -> bool {
        let limit = self.window.min(self.peer_window);
        if self.outstanding() >= limit || self.pkts.len() as u32 >= self.window {
            return false;
        }
        match self.cc {
            CongestionControl::Unlimited => true,
            CongestionControl::FixedWindow { bytes } => {
                self.inflight_bytes == 0 || self.inflight_bytes + u64::from(len) <= bytes
            }
        }
    }

    #[inline(always)]
    fn send_new(&mut self, now: Timestamp) -> Option<Next> {
        let msg_idx = self.cursor;
        let msg = self.msgs.get(msg_idx)?;
        let seg = msg.sent;
        let len =
            if msg.wr.length == 0 { 0 } else { (msg.wr.length - seg * self.pmtu).min(self.pmtu) };
        if !self.window_open(len) {
            self.paths.fit.blocked = true;
            return None;
        }
        if seg == 0 && msg.is_wwi() && self.wwi_outstanding >= self.wwi_limit {
            return None; // WWI-LIMIT-001: wait for completions
        }
        if self.paths.spray == SprayPolicy::WindowFit {
            self.fit_evaluate(now);
        }
        let ev_idx = self.paths.choose_ev(None)?;
        if self.paths.spray == SprayPolicy::WindowFit {
            self.fit_note_send(now);
        }
        let psn = self.snd_nxt;
        let msg = &mut self.msgs[msg_idx];
        if seg == 0 {
            msg.first_psn = psn;
            if msg.is_wwi() {
                self.wwi_outstanding += 1;
            }
        }
        msg.sent += 1;
        let npkts = msg.npkts;
        if msg.sent == npkts {
            self.cursor += 1;
        }
        self.snd_nxt = psn.next();
        let first_tx = self.pkts.is_empty();
        let (ev, seq) = self.note_tx(ev_idx, psn, now);
        self.pkts.push_back(PktState {
            msg: self.msg_base + msg_idx as u64,
            seg,
            ev_idx,
            seq,
            sent_at: now,
            len,
            sacked: false,
            inferred: false,
            queued: false,
            retransmissions: 0,
        });
        self.inflight_bytes += u64::from(len);
        Some(Next::write(ev, first_tx, msg_idx, seg, psn, None))
    }

    fn retransmit(&mut self, now: Timestamp, psn: Psn, cause: RtxCause) -> Rtx {
        let off = psn.distance(self.snd_una);
        if off < 0 {
            return Rtx::Stale; // acknowledged meanwhile
        }
        let off = off as usize;
        let Some(&st) = self.pkts.get(off) else { return Rtx::Stale };
        if st.sacked || !st.queued {
            return Rtx::Stale;
        }
        let old = st.ev_idx;
        let Some(ev_idx) = self.paths.choose_ev(Some(old)).or_else(|| self.paths.choose_ev(None))
        else {
            return Rtx::NoPath;
        };
        let lost_ev = Some(self.paths.evs[old as usize].ev);
        let (ev, seq) = self.note_tx(ev_idx, psn, now);
        let p = &mut self.pkts[off];
        self.paths.evs[old as usize].inflight =
            self.paths.evs[old as usize].inflight.saturating_sub(1);
        p.ev_idx = ev_idx;
        p.seq = seq;
        p.sent_at = now;
        p.queued = false;
        p.retransmissions += 1;
        let msg_idx = (st.msg - self.msg_base) as usize;
        Rtx::Sent(Next::write(ev, false, msg_idx, st.seg, psn, Some(Resend { cause, lost_ev })))
    }

    #[inline(always)]
    fn note_tx(&mut self, ev_idx: u16, psn: Psn, now: Timestamp) -> (Ev, u64) {
        let slot = &mut self.paths.evs[ev_idx as usize];
        let seq = slot.next_seq;
        slot.next_seq += 1;
        slot.fifo.push_back(Transmission { psn, seq });
        slot.inflight += 1;
        slot.tail_at = now;
        slot.tail_probed = false;
        // Entries of packets acknowledged cumulatively are dropped lazily; keep the queue
        // bounded by the window even on an EV that stops carrying traffic.
        if slot.fifo.len() > 2 * self.window as usize {
            let una = self.snd_una;
            slot.fifo.retain(|t| t.psn.distance(una) >= 0);
        }
        (slot.ev, seq)
    }

    /// Builds the packet `next` names. Call it right after [`Requester::next_packet`]
    /// returned `next`, with the same `now`, before any other input.
    #[inline(always)]
    pub(crate) fn packet(&self, next: &Next, now: Timestamp) -> Packet {
        match next.what {
            What::Write { msg, seg, psn, resend } => {
                self.build(msg, seg, psn, now, resend.is_some())
            }
            What::Probe { psn, id } => {
                let bth = BthRepr::new(Opcode::MRC_PROBE, self.peer_qpn, psn);
                let peth = PethRepr {
                    probe_id: id,
                    tx_timestamp: ts16(now),
                    ftype: 1,
                    ..PethRepr::default()
                };
                Packet::Probe { bth, peth }
            }
        }
    }

    #[inline(always)]
    fn build(&self, msg_idx: usize, seg: u32, psn: Psn, now: Timestamp, rtx: bool) -> Packet {
        let msg = &self.msgs[msg_idx];
        let last = seg + 1 == msg.npkts;
        let imm = msg.is_wwi();
        let opcode =
            WRITE_OPCODES[usize::from(seg == 0) | usize::from(last) << 1 | usize::from(imm) << 2];
        let offset = u64::from(seg) * u64::from(self.pmtu);
        let len =
            if msg.wr.length == 0 { 0 } else { (msg.wr.length - seg * self.pmtu).min(self.pmtu) };
        let mut bth = BthRepr::new(opcode, self.peer_qpn, psn);
        bth.ack_req = last || self.ack_req_due(psn);
        bth.rtx = rtx;
        bth.ts = self.timestamps;
        bth.pad_count = ((4 - len % 4) % 4) as u8;
        Packet::Write(WritePacket {
            bth,
            meth: MethRepr { rqmsn: msg.rqmsn, msn: msg.msn },
            tseth: self.timestamps.then(|| TsethRepr {
                tx_timestamp: ts16(now),
                ftype: 1,
                ..TsethRepr::default()
            }),
            reth: RethRepr {
                va: msg.wr.remote_va.wrapping_add(offset),
                rkey: msg.wr.rkey,
                dma_len: msg.wr.length,
            },
            immdt: (last && imm).then(|| ImmDtRepr { imm: msg.wr.imm.unwrap_or(0) }),
            payload: Payload::Host { addr: msg.wr.local_va.wrapping_add(offset), len },
        })
    }

    /// Whether `psn` is one of every `ack_req_every` PSNs that carry AckReq.
    #[inline(always)]
    fn ack_req_due(&self, psn: Psn) -> bool {
        match self.ack_req_every {
            AckReqEvery::Mask(m) => psn.value() & m == 0,
            AckReqEvery::Every(n) => psn.value() % n == 0,
        }
    }

    /// Messages whose packets were all sent, still waiting for their transport ACK.
    pub(crate) fn awaiting_ack(&self) -> u32 {
        // Every message before the cursor has had all its packets sent.
        self.cursor as u32
    }

    /// Moves the QP to error: every pending message is returned for a flush completion.
    pub(crate) fn fail(&mut self) -> Vec<SendMsg> {
        self.in_error = true;
        self.pkts.clear();
        self.repair.rtx.clear();
        self.repair.probes.clear();
        self.repair.sent_probes.clear();
        self.repair.suspects.clear();
        self.cursor = 0;
        self.snd_una = self.snd_nxt;
        self.inflight_bytes = 0;
        for e in &mut self.paths.evs {
            e.fifo.clear();
            e.inflight = 0;
            e.tail_probed = false;
        }
        self.msgs.drain(..).collect()
    }
}

/// The timestamp clock of `SND-TS-002`: 16-bit, in units of 16 ns, the reference model's
/// choice of unit (`TSETH-TS-001`).
pub(crate) fn ts16(now: Timestamp) -> u16 {
    (now.as_nanos() / 16) as u16
}
