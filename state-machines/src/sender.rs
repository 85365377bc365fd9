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

/// One entropy value of a QP's profile.
#[derive(Debug, Clone)]
pub(crate) struct EvSlot {
    pub(crate) ev: Ev,
    pub(crate) state: EvState,
    pub(crate) since: Timestamp,
    pub(crate) backup: bool,
    /// Sequence number of the next transmission on this EV.
    next_seq: u64,
    /// Transmissions on this EV not yet known to have arrived: (psn, seq), in send order.
    fifo: Ring<(Psn, u64)>,
    /// Smoothed round trip, ns (0 = no sample yet).
    pub(crate) srtt: u64,
    pub(crate) inflight: u32,
    /// When the window-fit policy last probed this EV (it probes only EVs it leaves out),
    /// if it ever did.
    probed_at: Option<Timestamp>,
    /// The round trip the window-fit policy judged this EV by at its last evaluation.
    fit_rtt: u64,
    /// When the latest transmission on this EV left (`SND-TAIL-001`).
    tail_at: Timestamp,
    /// A probe has left on this EV since its latest data transmission, or a tail probe is
    /// queued for it: no further tail probe is due until the next data transmission.
    tail_probed: bool,
}

/// State of the window-fit policy (`SND-SPRAY-005`).
#[derive(Debug, Clone)]
struct WindowFit {
    /// EVs whose `srtt` is above this are left out; `u64::MAX` leaves none out.
    limit: u64,
    /// EVs of the pool within `limit` at the last evaluation.
    in_use: u32,
    /// Smoothed time one EV takes to carry a packet when the QP sends as fast as the NIC
    /// lets it, ns (0: no sample yet): see [`Requester::fit_note_send`].
    ev_gap: u64,
    /// Time of the last first transmission.
    last_send: Option<Timestamp>,
    /// Whether the window held back a transmission since the last one.
    blocked: bool,
    /// Since the last evaluation: time between first transmissions with no closed window
    /// between them, ns, and the transmissions that closed those intervals.
    run_time: u64,
    run_sends: u32,
    /// First transmissions since `limit` was last worked out.
    since: u32,
}

impl WindowFit {
    /// First transmissions between two evaluations of the limit.
    const EVERY: u32 = 16;

    fn new() -> WindowFit {
        WindowFit {
            limit: u64::MAX,
            in_use: 1,
            ev_gap: 0,
            last_send: None,
            blocked: false,
            run_time: 0,
            run_sends: 0,
            since: Self::EVERY,
        }
    }
}

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

/// What an acknowledgement reports: every PSN before `cack_next` arrived, and the 64 PSNs
/// from `base` are reported on by `bitmap` (`SND-INFER-002`).
#[derive(Debug, Clone, Copy)]
struct Coverage {
    cack_next: Psn,
    base: Psn,
    bitmap: u64,
}

impl Coverage {
    /// Whether the acknowledgement says anything about `psn`.
    fn covers(self, psn: Psn) -> bool {
        psn.distance(self.cack_next) < 0 || psn.in_window(self.base, 64)
    }

    /// Whether the acknowledgement says that `psn` arrived.
    fn shows(self, psn: Psn) -> bool {
        psn.distance(self.cack_next) < 0
            || (psn.in_window(self.base, 64) && self.bitmap >> psn.forward_from(self.base) & 1 == 1)
    }
}

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
    /// Segment `seg` of message `msg` (an index into `msgs`), with `psn`.
    Write { msg: usize, seg: u32, psn: Psn, rtx: bool },
    /// A probe.
    Probe { psn: Psn, id: u16 },
}

impl Next {
    fn write(ev: Ev, first: bool, msg: usize, seg: u32, psn: Psn, rtx: bool) -> Next {
        Next { ev, first, what: What::Write { msg, seg, psn, rtx } }
    }

    /// Whether it is a data packet (a Write), not a probe.
    pub(crate) fn is_data(&self) -> bool {
        matches!(self.what, What::Write { .. })
    }

    /// Whether it is a retransmitted data packet.
    pub(crate) fn is_rtx(&self) -> bool {
        matches!(self.what, What::Write { rtx: true, .. })
    }

    /// Its PSN.
    pub(crate) fn psn(&self) -> Psn {
        match self.what {
            What::Write { psn, .. } | What::Probe { psn, .. } => psn,
        }
    }
}

/// Outcome of trying to retransmit one queued PSN.
enum Rtx {
    Sent(Next),
    /// Acknowledged meanwhile: drop the entry.
    Stale,
    /// No usable EV: keep the entry and wait.
    NoPath,
}

/// What the sender wants the NIC to report after handling an input.
#[derive(Debug, Default)]
pub(crate) struct SenderNotes {
    pub(crate) progressed: bool,
    pub(crate) ev_changes: Vec<(Ev, EvState)>,
    pub(crate) marks: Vec<(Ev, EvMark)>,
    pub(crate) probe_answers: Vec<(Ev, EvMark)>,
    pub(crate) completed: Vec<SendMsg>,
    pub(crate) fatal: Option<&'static str>,
    /// The syndrome of a transport NAK, when `fatal` comes from one.
    pub(crate) nak_syndrome: Option<u8>,
    pub(crate) nack: Option<(Psn, NackReason)>,
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
    ack_req_every: u32,
    timestamps: bool,
    wwi_limit: u16,
    spray: SprayPolicy,
    cc: CongestionControl,
    pub(crate) snd_una: Psn,
    pub(crate) snd_nxt: Psn,
    msgs: VecDeque<SendMsg>,
    /// Absolute index of `msgs[0]`.
    msg_base: u64,
    /// Index in `msgs` of the first message with unsent packets.
    cursor: usize,
    pkts: Ring<PktState>,
    /// Retransmissions to send: PSN, cause, and whether it waits for `rtx_not_before`.
    rtx: VecDeque<(Psn, RtxCause, bool)>,
    /// Earliest time a NACK-delayed retransmission may go.
    rtx_not_before: Timestamp,
    pub(crate) evs: Vec<EvSlot>,
    rr: usize,
    rng: ChaCha8Rng,
    inflight_bytes: u64,
    wwi_outstanding: u16,
    next_rqmsn: Rqmsn,
    probe_id: u16,
    /// Queued probes: EV and probe ID.
    probes: VecDeque<(Ev, u16)>,
    /// Tail probing's delay after an EV's last data transmission (`SND-TAIL-001`).
    tail_probe: Option<core::time::Duration>,
    /// Probes sent while tail probing is on and not yet answered: EV index, probe ID and the
    /// probe's sequence on its EV (`SND-TAIL-002`); at most two per EV are kept.
    sent_probes: VecDeque<(u16, u16, u64)>,
    /// Transmissions found to precede an arrival on their EV, with the PSN of that arrival
    /// (the evidence); checked by `infer_losses`.
    suspects: Vec<(Psn, u64, Psn)>,
    pub(crate) retransmissions: u64,
    /// Whether any EV, primary or backup, is not GOOD (the fast path of `choose_ev` is off,
    /// and SKIP expiry has something to look at).
    evs_degraded: bool,
    /// Number of primary EVs: the first entries of `evs`, the backups after them.
    primaries: usize,
    /// The window-fit policy's state (unused by the other policies).
    fit: WindowFit,
    /// Reused buffer of round trips, for the window-fit policy.
    srtts: Vec<u64>,
    /// Cause of the retransmission `next_packet` returned last.
    pub(crate) last_cause: Option<RtxCause>,
    /// The last PSN of the oldest message, to resend because its transport ACK is late.
    tail_resend: Option<Psn>,
    /// An outstanding PSN already SACKed, to resend once so that the responder repeats
    /// its SACK (the one that moved the cumulative point was lost): PSN, message, segment.
    duplicate_resend: Option<(Psn, u64, u32)>,
    /// The EV of the transmission that the retransmission `next_packet` returned last
    /// replaces (the one presumed lost).
    pub(crate) last_lost_ev: Option<Ev>,
    pub(crate) in_error: bool,
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
            ack_req_every: nic.ack_req_every,
            timestamps: nic.timestamps,
            wwi_limit: nic.wwi_limit,
            spray: qp.spray,
            cc: qp.cc,
            snd_una: qp.initial_psn,
            snd_nxt: qp.initial_psn,
            msgs: VecDeque::new(),
            msg_base: 0,
            cursor: 0,
            pkts: Ring::new(),
            rtx: VecDeque::new(),
            rtx_not_before: Timestamp::ZERO,
            evs,
            rr: 0,
            rng,
            inflight_bytes: 0,
            wwi_outstanding: 0,
            next_rqmsn: Rqmsn::ZERO,
            probe_id: 0,
            probes: VecDeque::new(),
            tail_probe: nic.tail_probe,
            sent_probes: VecDeque::new(),
            suspects: Vec::new(),
            retransmissions: 0,
            evs_degraded: false,
            primaries: qp.evs.len(),
            fit: WindowFit::new(),
            srtts: Vec::new(),
            last_cause: None,
            tail_resend: None,
            duplicate_resend: None,
            last_lost_ev: None,
            in_error: false,
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
            && (!self.probes.is_empty()
                || self.tail_resend.is_some()
                || self.duplicate_resend.is_some()
                || self.rtx.iter().any(|r| !r.2 || now >= self.rtx_not_before)
                || self.cursor < self.msgs.len())
    }

    /// Earliest time a delayed retransmission becomes due, if one waits.
    #[inline(always)]
    pub(crate) fn rtx_deadline(&self) -> Option<Timestamp> {
        (self.rtx_not_before > Timestamp::ZERO && self.rtx.iter().any(|r| r.2))
            .then_some(self.rtx_not_before)
    }

    /// Handles the passing of time: SKIP EVs whose hold has passed return to GOOD
    /// (`EV-SKIP-002`), and a NACK back-off that has passed releases its retransmissions.
    /// Returns the EVs that changed state.
    pub(crate) fn on_timeout(&mut self, now: Timestamp, hold: core::time::Duration) -> Vec<Ev> {
        let mut changed = Vec::new();
        if self.evs_degraded {
            for s in &mut self.evs {
                if s.state == EvState::Skip && now >= s.since + hold {
                    s.state = EvState::Good;
                    s.since = now;
                    changed.push(s.ev);
                }
            }
            self.refresh_degraded();
        }
        if self.rtx_not_before > Timestamp::ZERO && now >= self.rtx_not_before {
            self.rtx_not_before = Timestamp::ZERO;
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
        if self.probes.is_empty()
            && self.tail_resend.is_none()
            && self.duplicate_resend.is_none()
            && self.rtx.is_empty()
        {
            return self.send_new(now);
        }
        // SKIP expiry happens in `on_timeout` (driven by the NIC's timer), so that every
        // SKIP→GOOD change is reported.
        if let Some((ev, id)) = self.probes.pop_front() {
            self.note_probe(now, ev, id);
            return Some(Next { ev, first: false, what: What::Probe { psn: self.snd_nxt, id } });
        }
        if let Some(psn) = self.tail_resend.take() {
            let tail =
                self.msgs.front().map(|m| (m.sent == m.npkts && m.last_psn() == psn, m.npkts));
            if let Some((true, npkts)) = tail {
                if self.outstanding() == 0 {
                    if let Some(ev_idx) = self.choose_ev(None) {
                        let ev = self.evs[ev_idx as usize].ev;
                        self.retransmissions += 1;
                        self.last_cause = Some(RtxCause::Timeout);
                        return Some(Next::write(ev, false, 0, npkts - 1, psn, true));
                    }
                }
            }
        }
        if let Some((psn, msg, seg)) = self.duplicate_resend.take() {
            let off = psn.distance(self.snd_una);
            if off >= 0 && (off as u32) < self.outstanding() && msg >= self.msg_base {
                if let Some(ev_idx) = self.choose_ev(None) {
                    let ev = self.evs[ev_idx as usize].ev;
                    self.retransmissions += 1;
                    self.last_cause = Some(RtxCause::Timeout);
                    let msg = (msg - self.msg_base) as usize;
                    return Some(Next::write(ev, false, msg, seg, psn, true));
                }
            }
        }
        // The first retransmission that may go now: entries delayed by a resource NACK wait
        // for `rtx_not_before` without holding back the others (SND-NACK-004).
        let mut k = 0;
        while k < self.rtx.len() {
            let (psn, cause, delayed) = self.rtx[k];
            if delayed && now < self.rtx_not_before {
                k += 1;
                continue;
            }
            match self.retransmit(now, psn) {
                Rtx::Sent(p) => {
                    self.rtx.remove(k);
                    self.last_cause = Some(cause);
                    return Some(p);
                }
                Rtx::Stale => {
                    self.rtx.remove(k);
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
            self.fit.blocked = true;
            return None;
        }
        if seg == 0 && msg.is_wwi() && self.wwi_outstanding >= self.wwi_limit {
            return None; // WWI-LIMIT-001: wait for completions
        }
        if self.spray == SprayPolicy::WindowFit {
            self.fit_evaluate(now);
        }
        let ev_idx = self.choose_ev(None)?;
        if self.spray == SprayPolicy::WindowFit {
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
        Some(Next::write(ev, first_tx, msg_idx, seg, psn, false))
    }

    fn retransmit(&mut self, now: Timestamp, psn: Psn) -> Rtx {
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
        let Some(ev_idx) = self.choose_ev(Some(old)).or_else(|| self.choose_ev(None)) else {
            return Rtx::NoPath;
        };
        self.last_lost_ev = Some(self.evs[old as usize].ev);
        let (ev, seq) = self.note_tx(ev_idx, psn, now);
        let p = &mut self.pkts[off];
        self.evs[old as usize].inflight = self.evs[old as usize].inflight.saturating_sub(1);
        p.ev_idx = ev_idx;
        p.seq = seq;
        p.sent_at = now;
        p.queued = false;
        p.retransmissions += 1;
        self.retransmissions += 1;
        let msg_idx = (st.msg - self.msg_base) as usize;
        Rtx::Sent(Next::write(ev, false, msg_idx, st.seg, psn, true))
    }

    #[inline(always)]
    fn note_tx(&mut self, ev_idx: u16, psn: Psn, now: Timestamp) -> (Ev, u64) {
        let slot = &mut self.evs[ev_idx as usize];
        let seq = slot.next_seq;
        slot.next_seq += 1;
        slot.fifo.push_back((psn, seq));
        slot.inflight += 1;
        slot.tail_at = now;
        slot.tail_probed = false;
        // Entries of packets acknowledged cumulatively are dropped lazily; keep the queue
        // bounded by the window even on an EV that stops carrying traffic.
        if slot.fifo.len() > 2 * self.window as usize {
            let una = self.snd_una;
            slot.fifo.retain(|(p, _)| p.distance(una) >= 0);
        }
        (slot.ev, seq)
    }

    /// Builds the packet `next` names. Call it right after [`Requester::next_packet`]
    /// returned `next`, with the same `now`, before any other input.
    #[inline(always)]
    pub(crate) fn packet(&self, next: &Next, now: Timestamp) -> Packet {
        match next.what {
            What::Write { msg, seg, psn, rtx } => self.build(msg, seg, psn, now, rtx),
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
        let opcode = match (seg == 0, last, imm) {
            (true, true, false) => Opcode::MRC_WRITE_ONLY,
            (true, true, true) => Opcode::MRC_WRITE_ONLY_IMM,
            (true, false, _) => Opcode::MRC_WRITE_FIRST,
            (false, false, _) => Opcode::MRC_WRITE_MIDDLE,
            (false, true, false) => Opcode::MRC_WRITE_LAST,
            (false, true, true) => Opcode::MRC_WRITE_LAST_IMM,
        };
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

    /// Whether `psn` is one of every `ack_req_every` PSNs that carry AckReq (a mask rather
    /// than a division when the period is a power of two, as it is by default).
    #[inline]
    fn ack_req_due(&self, psn: Psn) -> bool {
        let n = self.ack_req_every;
        if n.is_power_of_two() { psn.value() & (n - 1) == 0 } else { psn.value() % n == 0 }
    }

    fn refresh_degraded(&mut self) {
        self.evs_degraded = self.evs.iter().any(|s| s.state != EvState::Good);
    }

    /// Picks an EV index by the spray policy, avoiding `avoid` (the EV a lost packet used).
    #[inline(always)]
    fn choose_ev(&mut self, avoid: Option<u16>) -> Option<u16> {
        // Fast path: every EV GOOD, round robin, nothing to avoid. The pool is then the
        // primary EVs, which come first in the profile: from a cursor on a backup EV the
        // search of SND-SPRAY-001 goes round to the first EV. The cursor is always below the
        // profile's length (it is only ever set modulo it).
        if !self.evs_degraded
            && avoid.is_none()
            && self.spray == SprayPolicy::RoundRobin
            && self.primaries > 0
        {
            let n = self.evs.len();
            let i = if self.rr < self.primaries { self.rr } else { 0 };
            self.rr = if i + 1 == n { 0 } else { i + 1 };
            return Some(i as u16);
        }
        self.choose_ev_by_policy(avoid)
    }

    #[inline(never)]
    fn choose_ev_by_policy(&mut self, avoid: Option<u16>) -> Option<u16> {
        let usable = |s: &EvSlot, i: usize| s.state.usable() && Some(i as u16) != avoid;
        let primary = self.evs.iter().enumerate().any(|(i, s)| !s.backup && usable(s, i));
        let pool = |s: &EvSlot| s.backup != primary;
        let n = self.evs.len();
        if n == 0 {
            return None;
        }
        match self.spray {
            SprayPolicy::Fixed => {
                (0..n).find(|&i| pool(&self.evs[i]) && usable(&self.evs[i], i)).map(|i| i as u16)
            }
            SprayPolicy::RoundRobin => {
                for k in 0..n {
                    let i = (self.rr + k) % n;
                    if pool(&self.evs[i]) && usable(&self.evs[i], i) {
                        self.rr = (i + 1) % n;
                        return Some(i as u16);
                    }
                }
                None
            }
            SprayPolicy::Random => {
                let count =
                    (0..n).filter(|&i| pool(&self.evs[i]) && usable(&self.evs[i], i)).count();
                if count == 0 {
                    return None;
                }
                let pick = (self.rng.next_u32() as usize) % count;
                (0..n)
                    .filter(|&i| pool(&self.evs[i]) && usable(&self.evs[i], i))
                    .nth(pick)
                    .map(|i| i as u16)
            }
            SprayPolicy::WindowFit => {
                // SND-SPRAY-005: round robin over the pool's EVs within the limit, or over
                // the whole pool when none is.
                let limit = self.fit.limit;
                for within in [true, false] {
                    for k in 0..n {
                        let i = (self.rr + k) % n;
                        let e = &self.evs[i];
                        if pool(e) && usable(e, i) && (!within || e.fit_rtt <= limit) {
                            self.rr = (i + 1) % n;
                            return Some(i as u16);
                        }
                    }
                }
                None
            }
            SprayPolicy::SkewAware => {
                let cands = || (0..n).filter(|&i| pool(&self.evs[i]) && usable(&self.evs[i], i));
                if cands().any(|i| self.evs[i].srtt == 0) {
                    // Not every path measured yet: round robin.
                    for k in 0..n {
                        let i = (self.rr + k) % n;
                        if pool(&self.evs[i]) && usable(&self.evs[i], i) {
                            self.rr = (i + 1) % n;
                            return Some(i as u16);
                        }
                    }
                    return None;
                }
                // Earliest expected arrival: the path's round trip, stretched by what is
                // already queued on it.
                cands()
                    .min_by_key(|&i| {
                        let s = &self.evs[i];
                        (s.srtt.saturating_mul(u64::from(s.inflight) + 1), i)
                    })
                    .map(|i| i as u16)
            }
        }
    }

    /// Notes a first transmission at `now` for the window-fit policy's estimate of how fast
    /// the QP sends when the window does not hold it back.
    ///
    /// Only the time between two transmissions with no closed window between them counts:
    /// the NIC, not the window, set that pace. Each evaluation turns what accumulated since
    /// the last into a sample of `ev_gap`: that time, over the transmissions, times the EVs
    /// in use.
    fn fit_note_send(&mut self, now: Timestamp) {
        let f = &mut self.fit;
        if let Some(last) = f.last_send.filter(|_| !f.blocked) {
            f.run_time += now.0.saturating_sub(last.0);
            f.run_sends += 1;
        }
        f.blocked = false;
        f.last_send = Some(now);
    }

    /// Works out the window-fit policy's limit every [`WindowFit::EVERY`] first
    /// transmissions (`SND-SPRAY-006`, `SND-SPRAY-007`), and queues probes on the EVs of the
    /// pool it leaves out (`SND-SPRAY-009`).
    ///
    /// With the `k` fastest EVs of the pool (round trips `s1 ≤ … ≤ sn`), the QP can send at
    /// most `min(k × c, W / sk)` packets per ns: `c` is what one EV carries (`1 / ev_gap`)
    /// and `W / sk` what the window lets through when every PSN waits a round trip of the
    /// slowest EV in use. The limit is the round trip of the largest `k` within 1/16 of the
    /// best.
    fn fit_evaluate(&mut self, now: Timestamp) {
        self.fit.since += 1;
        if self.fit.since < WindowFit::EVERY {
            return;
        }
        self.fit.since = 0;
        let f = &mut self.fit;
        if f.run_time > 0 && f.run_sends >= WindowFit::EVERY / 2 {
            let sample = f.run_time * u64::from(f.in_use) / u64::from(f.run_sends);
            f.ev_gap = if f.ev_gap == 0 { sample } else { (f.ev_gap * 3 + sample) / 4 };
        }
        (f.run_time, f.run_sends) = (0, 0);
        let n = self.evs.len();
        let primary = (0..n).any(|i| !self.evs[i].backup && self.evs[i].state.usable());
        for i in 0..n {
            let rtt = match self.evs[i].srtt {
                // No sample yet: at least the age of its oldest transmission in flight.
                0 => self.oldest_in_flight(i).map_or(0, |t| now.0.saturating_sub(t.0)),
                srtt => srtt,
            };
            self.evs[i].fit_rtt = rtt;
        }
        let mut s = core::mem::take(&mut self.srtts);
        s.clear();
        s.extend(
            self.evs.iter().filter(|e| e.backup != primary && e.state.usable()).map(|e| e.fit_rtt),
        );
        if s.is_empty() || s.contains(&0) {
            self.fit.limit = u64::MAX;
            self.fit.in_use = (s.len() as u32).max(1);
            self.srtts = s;
            return;
        }
        s.sort_unstable();
        let per_ev =
            if self.fit.ev_gap == 0 { f64::INFINITY } else { 1.0 / self.fit.ev_gap as f64 };
        let window = f64::from(self.window.min(self.peer_window));
        let rate = |k: usize| (k as f64 * per_ev).min(window / s[k - 1] as f64);
        let best = (1..=s.len()).map(rate).fold(0.0, f64::max);
        let k = (1..=s.len()).rev().find(|&k| rate(k) >= best * (15.0 / 16.0)).unwrap_or(s.len());
        self.fit.limit = if k == s.len() { u64::MAX } else { s[k - 1] };
        let limit = self.fit.limit;
        self.fit.in_use = s.iter().filter(|&&x| x <= limit).count() as u32;
        self.srtts = s;
        // Probe every EV left out once per two of its round trips, to follow its round trip
        // without holding back the window (a probe takes no PSN).
        for i in 0..n {
            let e = &self.evs[i];
            // Only EVs of the usable pool (those whose `backup` differs from `primary`)
            // above the limit are probed.
            if e.backup == primary || !e.state.usable() || e.fit_rtt <= self.fit.limit {
                continue;
            }
            // SND-SPRAY-009: an EV never probed is probed as soon as it is left out.
            if e.probed_at.is_none_or(|t| now.0 >= t.0.saturating_add(2 * e.fit_rtt)) {
                let ev = e.ev;
                self.evs[i].probed_at = Some(now);
                self.probe(ev);
            }
        }
    }

    /// When the oldest transmission on EV `i` not yet known to have arrived went out.
    fn oldest_in_flight(&self, i: usize) -> Option<Timestamp> {
        let fifo = &self.evs[i].fifo;
        (0..fifo.len()).find_map(|k| {
            let &(psn, seq) = fifo.get(k)?;
            let off = psn.distance(self.snd_una);
            let p = self.pkts.get(usize::try_from(off).ok()?)?;
            // Entries of packets since resent on another EV, or acknowledged, are stale.
            (p.seq == seq && p.ev_idx as usize == i && !p.sacked).then_some(p.sent_at)
        })
    }

    /// A probe answer for the window-fit policy: a round-trip sample of the probed EV, from
    /// the timestamp the answer reflects (16 ns units, `SND-TS-002`, `SND-SPRAY-010`).
    ///
    /// The answer comes back on the probed EV, so the probe measures the EV's path both
    /// ways, where a data packet's round trip is mostly its path one way and the fastest path
    /// back (the SACK that reports it is usually triggered by a later packet on another EV).
    /// The sample is taken in the data's terms: half the probe's round trip, plus half the
    /// shortest round trip of the QP's EVs.
    fn fit_probe_answered(&mut self, now: Timestamp, ev: Ev, reflected: u16) {
        let Some(i) = self.ev_index(ev) else { return };
        let rtt = u64::from(ts16(now).wrapping_sub(reflected)) * 16;
        let fastest = self.evs.iter().map(|e| e.srtt).filter(|&x| x != 0).min().unwrap_or(rtt);
        let sample = rtt / 2 + fastest.min(rtt) / 2;
        let slot = &mut self.evs[i];
        slot.srtt = if slot.srtt == 0 { sample.max(1) } else { (slot.srtt * 7 + sample) / 8 };
    }

    /// Earliest SKIP expiry, for the NIC's timer.
    #[inline(always)]
    pub(crate) fn skip_deadline(&self, hold: core::time::Duration) -> Option<Timestamp> {
        if !self.evs_degraded {
            return None;
        }
        self.evs.iter().filter(|s| s.state == EvState::Skip).map(|s| s.since + hold).min()
    }

    fn ev_index(&self, ev: Ev) -> Option<usize> {
        self.evs.iter().position(|s| s.ev == ev)
    }

    /// Applies an EV event; records the change in `notes`.
    pub(crate) fn ev_event(&mut self, now: Timestamp, ev: Ev, e: EvEvent, notes: &mut SenderNotes) {
        if let Some(i) = self.ev_index(ev) {
            if let Some(to) = crate::ev::next_state(self.evs[i].state, e) {
                self.evs[i].state = to;
                self.evs[i].since = now;
                notes.ev_changes.push((ev, to));
                self.refresh_degraded();
            }
        }
    }

    /// Sets an EV's state directly (a CPU policy decision).
    pub(crate) fn set_ev_state(&mut self, now: Timestamp, ev: Ev, state: EvState) -> bool {
        match self.ev_index(ev) {
            Some(i) => {
                self.evs[i].state = state;
                self.evs[i].since = now;
                self.refresh_degraded();
                true
            }
            None => false,
        }
    }

    /// Checks a SACK against what was sent, without changing anything (`SND-SACK-*`).
    fn check_sack(&self, seth: &SethRepr) -> Result<(), PeerViolation> {
        let sent = self.snd_nxt.forward_from(self.snd_una);
        let last_acked = self.snd_una.sub(1);
        let d = seth.cack_psn.distance(last_acked);
        if d > 0 && d as u32 > sent {
            return Err(PeerViolation::SackBeyondSent {
                qpn: self.qpn,
                psn: seth.cack_psn,
                snd_nxt: self.snd_nxt,
            });
        }
        if i32::from(seth.sack_offset).unsigned_abs() > self.window + 64 {
            return Err(PeerViolation::SackOffset { qpn: self.qpn, offset: seth.sack_offset });
        }
        let base = seth.cack_psn.offset(i32::from(seth.sack_offset));
        let mut bits = seth.sack_bitmap;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            let psn = base.add(i);
            let from_una = psn.distance(self.snd_una);
            if from_una >= 0 && from_una as u32 >= sent {
                return Err(PeerViolation::SackBeyondSent {
                    qpn: self.qpn,
                    psn,
                    snd_nxt: self.snd_nxt,
                });
            }
        }
        Ok(())
    }

    /// Handles a SACK. A SACK that breaks the rules changes nothing.
    pub(crate) fn on_sack(
        &mut self,
        now: Timestamp,
        seth: &SethRepr,
        reflected_ts: u16,
        notes: &mut SenderNotes,
    ) -> Result<(), PeerViolation> {
        self.check_sack(seth)?;
        if seth.mpr != 0 {
            // Dynamic MPR: the responder's window, never above our own.
            self.peer_window = (u32::from(seth.mpr) * 128).min(self.window);
        }
        let mark = EvMark::from_bits(seth.m.0);
        if seth.pr {
            notes.probe_answers.push((seth.entropy, mark));
            if self.spray == SprayPolicy::WindowFit {
                self.fit_probe_answered(now, seth.entropy, reflected_ts);
            }
            // EV-PROBE-002/003: a skip mark of either kind sends the EV to SKIP; no mark, or
            // the reserved value 3 (SETH-M-001), to GOOD.
            let e = match mark {
                EvMark::SkipOnce | EvMark::AlwaysSkip => EvEvent::ProbeSkip,
                EvMark::None | EvMark::Reserved => EvEvent::ProbeGood,
            };
            self.ev_event(now, seth.entropy, e, notes);
        } else {
            match mark {
                EvMark::SkipOnce => {
                    notes.marks.push((seth.entropy, mark));
                    self.ev_event(now, seth.entropy, EvEvent::SackSkipOnce, notes);
                }
                EvMark::AlwaysSkip => {
                    notes.marks.push((seth.entropy, mark));
                    self.ev_event(now, seth.entropy, EvEvent::SackAlwaysSkip, notes);
                }
                EvMark::None | EvMark::Reserved => {}
            }
        }
        // Cumulative part.
        let cack_next = seth.cack_psn.next();
        let d = cack_next.distance(self.snd_una);
        if d > 0 {
            for _ in 0..d {
                self.ack_front(now);
            }
            notes.progressed = true;
        }
        // Selective part.
        let base = seth.cack_psn.offset(i32::from(seth.sack_offset));
        // The SACK reports on every PSN up to cack_psn and on the 64 PSNs of its bitmap; a
        // gap between cack_psn + 1 and the bitmap base is not reported on.
        let cover = if base.distance(cack_next) >= 0 {
            Coverage { cack_next, base, bitmap: seth.sack_bitmap }
        } else {
            Coverage { cack_next, base: cack_next, bitmap: 0 }
        };
        let mut bits = seth.sack_bitmap;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            let psn = base.add(i);
            let off = psn.distance(self.snd_una);
            if off < 0 {
                continue;
            }
            self.mark_sacked(now, off as usize);
        }
        self.infer_losses(cover);
        if seth.pr && self.tail_probe.is_some() {
            self.probe_answered(seth.entropy, seth.ack_psn_offset as u16, cover);
        }
        Ok(())
    }

    /// Acknowledges `snd_una` cumulatively.
    #[inline(always)]
    fn ack_front(&mut self, now: Timestamp) {
        if let Some(p) = self.pkts.pop_front() {
            if !p.sacked {
                self.arrived(now, p, self.snd_una);
            }
        }
        self.snd_una = self.snd_una.next();
    }

    fn mark_sacked(&mut self, now: Timestamp, off: usize) {
        let Some(p) = self.pkts.get_mut(off) else { return };
        if p.sacked {
            return;
        }
        p.sacked = true;
        p.queued = false;
        let p = *p;
        let psn = self.snd_una.add(off as u32);
        self.arrived(now, p, psn);
    }

    /// A transmission is known to have arrived: take an RTT sample, release its share of the
    /// windows, and treat every earlier transmission on the same EV as lost (FIFO paths).
    #[inline(always)]
    fn arrived(&mut self, now: Timestamp, p: PktState, evidence: Psn) {
        self.inflight_bytes = self.inflight_bytes.saturating_sub(u64::from(p.len));
        let slot = &mut self.evs[p.ev_idx as usize];
        slot.inflight = slot.inflight.saturating_sub(1);
        if p.retransmissions > 0 {
            // Which copy arrived is unknown (Karn): a retransmitted packet is neither an
            // RTT sample nor evidence about its EV (SND-INFER-003).
            return;
        }
        let rtt = now.0.saturating_sub(p.sent_at.0);
        slot.srtt = if slot.srtt == 0 { rtt.max(1) } else { (slot.srtt * 7 + rtt) / 8 };
        while let Some(&(psn, seq)) = slot.fifo.front() {
            if seq > p.seq {
                break;
            }
            slot.fifo.pop_front();
            if seq < p.seq {
                self.suspects.push((psn, seq, evidence));
            }
        }
    }

    /// Queues a retransmission for every suspect that is really lost (`SND-INFER-001`),
    /// at most once per packet (`SND-RTX-003`).
    ///
    /// A suspect is a transmission that went out on an EV before another transmission on
    /// the same EV that has arrived. It is lost only if the acknowledgement that is being
    /// processed *covers* its PSN (`covered_end`: one past the last PSN the SACK reports on)
    /// and does not mark it: a PSN beyond the 64-bit bitmap may well have arrived without
    /// being reported (`SND-INFER-002`). Suspects not yet covered wait for a later SACK.
    #[inline(always)]
    fn infer_losses(&mut self, cover: Coverage) {
        if !self.suspects.is_empty() {
            self.judge_suspects(cover);
        }
    }

    fn judge_suspects(&mut self, cover: Coverage) {
        let mut suspects = core::mem::take(&mut self.suspects);
        suspects.retain(|&(psn, seq, evidence)| {
            let off = psn.distance(self.snd_una);
            if off < 0 {
                return false; // acknowledged since
            }
            let Some(p) = self.pkts.get_mut(off as usize) else { return false };
            if p.sacked || p.seq != seq || p.inferred || p.queued {
                return false; // arrived, resent on another EV, or already handled
            }
            // Judge only with an acknowledgement that reports on the suspect and shows the
            // evidence: one generated before the evidence arrived (SACKs are sprayed and
            // arrive out of order) says nothing about what came before it on that path.
            if !cover.covers(psn) || !cover.shows(evidence) {
                return true; // keep waiting
            }
            p.inferred = true;
            p.queued = true;
            self.rtx.push_back((psn, RtxCause::SackInference, false));
            false
        });
        self.suspects = suspects;
    }

    /// Handles a NACK (`SND-NACK-*`). A NACK for a PSN not in flight changes nothing.
    pub(crate) fn on_nack(
        &mut self,
        now: Timestamp,
        neth: &NethRepr,
        nack_backoff: core::time::Duration,
        notes: &mut SenderNotes,
    ) -> Result<(), PeerViolation> {
        let off = neth.nack_psn.distance(self.snd_una);
        let in_flight = off >= 0 && (off as u32) < self.outstanding();
        if neth.reason.is_fatal() {
            notes.nack = Some((neth.nack_psn, neth.reason));
            notes.fatal = Some("SND-NACK-005");
            self.in_error = true;
            return Ok(());
        }
        if off < 0 && -off <= self.window as i32 {
            // A NACK for a PSN already acknowledged (a trim of an original whose
            // retransmission arrived, say): nothing to repair (SND-NACK-001).
            notes.nack = Some((neth.nack_psn, neth.reason));
            return Ok(());
        }
        if !in_flight {
            return Err(PeerViolation::NackUnknownPsn {
                qpn: self.qpn,
                psn: neth.nack_psn,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
            });
        }
        notes.nack = Some((neth.nack_psn, neth.reason));
        let p = self.pkts[off as usize];
        if p.sacked {
            return Ok(()); // a later copy arrived; nothing to repair
        }
        let delayed = if neth.reason.is_trim() {
            // EV-SKIP-001: the EV the trimmed packet used is skipped; resend at once.
            let ev = self.evs[p.ev_idx as usize].ev;
            self.ev_event(now, ev, EvEvent::NackTrimmed, notes);
            false
        } else {
            // Out of window or out of resources at the responder: resend after a pause.
            self.rtx_not_before = now + nack_backoff;
            true
        };
        if !p.queued {
            self.pkts[off as usize].queued = true;
            self.rtx.push_back((neth.nack_psn, RtxCause::Nack, delayed));
        }
        Ok(())
    }

    /// Messages whose packets were all sent, still waiting for their transport ACK.
    pub(crate) fn awaiting_ack(&self) -> u32 {
        // Every message before the cursor has had all its packets sent.
        self.cursor as u32
    }

    /// Queues a retransmission ordered by the CPU after a timeout (`REC-RTO-003`). Returns
    /// the EV the packet was last sent on, or `None` if the PSN is not outstanding.
    ///
    /// When nothing is outstanding but the oldest message still waits for its transport
    /// ACK, the ACK was lost: the last packet of that message is sent again, and the
    /// responder answers the duplicate with the ACK (`REC-RTO-004`, `RCV-DUP-002`).
    pub(crate) fn retransmit_cmd(&mut self, psn: Psn) -> Option<Ev> {
        let off = psn.distance(self.snd_una);
        if off < 0 || off as u32 >= self.outstanding() {
            if self.outstanding() == 0 {
                if let Some(m) = self.msgs.front() {
                    if m.sent == m.npkts {
                        self.tail_resend = Some(m.last_psn());
                    }
                }
            }
            return None;
        }
        // The oldest packet not yet SACKed from `psn` on. If every outstanding packet is
        // SACKed, the SACK that would move the cumulative point was lost: resend the
        // oldest one anyway, and the responder answers the duplicate with a fresh SACK
        // (REC-RTO-003, RCV-DUP-001).
        let off = off as usize;
        let Some(k) = (off..self.pkts.len()).find(|&k| !self.pkts[k].sacked) else {
            let psn = self.snd_una.add(off as u32);
            let p = self.pkts[off];
            self.duplicate_resend = Some((psn, p.msg, p.seg));
            return Some(self.evs[p.ev_idx as usize].ev);
        };
        let psn = self.snd_una.add(k as u32);
        let p = &mut self.pkts[k];
        let ev = self.evs[p.ev_idx as usize].ev;
        if !p.queued {
            p.queued = true;
            self.rtx.push_front((psn, RtxCause::Timeout, false));
        }
        Some(ev)
    }

    /// Queues a probe on `ev` (`EV-PROBE-005`).
    pub(crate) fn probe(&mut self, ev: Ev) {
        self.probe_id = self.probe_id.wrapping_add(1);
        self.probes.push_back((ev, self.probe_id));
    }

    /// A probe leaves on `ev`. While tail probing is on, it takes the EV's next sequence
    /// number, becomes the EV's latest transmission, and is remembered so that its answer
    /// can serve as evidence (`SND-TAIL-002`).
    fn note_probe(&mut self, now: Timestamp, ev: Ev, id: u16) {
        if self.tail_probe.is_none() {
            return;
        }
        let Some(i) = self.ev_index(ev) else { return };
        let slot = &mut self.evs[i];
        let seq = slot.next_seq;
        slot.next_seq += 1;
        slot.tail_at = now;
        slot.tail_probed = true;
        self.sent_probes.push_back((i as u16, id, seq));
        if self.sent_probes.len() > 2 * self.evs.len() {
            self.sent_probes.pop_front();
        }
    }

    /// When EV `i` is due a tail probe (`SND-TAIL-001`): `tail_probe` after its latest
    /// transmission, when the EV still carries the latest transmission of a PSN not known to
    /// have arrived (`inflight`, the count `SND-SPRAY-004` uses), is not DENIED, and has had
    /// no probe since its latest data transmission.
    fn tail_due(&self, i: usize) -> Option<Timestamp> {
        let hold = self.tail_probe?;
        let slot = &self.evs[i];
        let due = !slot.tail_probed && slot.inflight > 0 && slot.state != EvState::Denied;
        due.then(|| slot.tail_at + hold)
    }

    /// The earliest tail probe due, for the NIC's timer.
    #[inline(always)]
    pub(crate) fn tail_deadline(&self) -> Option<Timestamp> {
        if self.tail_probe.is_none() || self.in_error {
            return None;
        }
        (0..self.evs.len()).filter_map(|i| self.tail_due(i)).min()
    }

    /// Queues the tail probes due by `now` (`SND-TAIL-001`). Returns whether it queued any.
    pub(crate) fn on_tail_timeout(&mut self, now: Timestamp) -> bool {
        if self.tail_probe.is_none() || self.in_error {
            return false;
        }
        let mut any = false;
        for i in 0..self.evs.len() {
            if self.tail_due(i).is_some_and(|t| t <= now) {
                self.evs[i].tail_probed = true;
                let ev = self.evs[i].ev;
                self.probe(ev);
                any = true;
            }
        }
        any
    }

    /// The answer to a probe sent while tail probing is on (`SND-TAIL-003`): the probe was
    /// the latest transmission on its EV when it left, and the path delivers in order, so
    /// every earlier transmission on the EV that the answer covers and does not show has
    /// been lost. Each is queued for retransmission by inference, at most once
    /// (`SND-RTX-003`); transmissions the answer does not cover stay on the EV's queue.
    fn probe_answered(&mut self, ev: Ev, probe_id: u16, cover: Coverage) {
        let Some(k) = self
            .sent_probes
            .iter()
            .position(|&(i, id, _)| id == probe_id && self.evs[i as usize].ev == ev)
        else {
            return;
        };
        let Some((i, _, probe_seq)) = self.sent_probes.remove(k) else { return };
        let i = i as usize;
        let mut lost: Vec<Psn> = Vec::new();
        let (una, pkts) = (self.snd_una, &mut self.pkts);
        self.evs[i].fifo.retain(|&(psn, seq)| {
            if seq >= probe_seq {
                return true;
            }
            let Ok(off) = usize::try_from(psn.distance(una)) else { return false };
            let Some(p) = pkts.get_mut(off) else { return false };
            if p.sacked || p.ev_idx as usize != i || p.seq != seq || p.inferred || p.queued {
                return false; // arrived, sent again, or already being repaired
            }
            if !cover.covers(psn) {
                return true; // the answer says nothing of it: keep it
            }
            if !cover.shows(psn) {
                p.inferred = true;
                p.queued = true;
                lost.push(psn);
            }
            false
        });
        for psn in lost {
            self.rtx.push_back((psn, RtxCause::SackInference, false));
        }
    }

    /// Handles a transport ACK or NAK (`SND-ACK-*`): completes, in order, every message
    /// whose MSN the AETH covers. Returns the completed messages in `notes.completed`.
    pub(crate) fn on_aeth(
        &mut self,
        now: Timestamp,
        aeth: &AethRepr,
        notes: &mut SenderNotes,
    ) -> Result<(), PeerViolation> {
        // SND-ACK-001: bits 15:0 of the AETH msn.
        let msn = aeth.msn.msn();
        // How many messages at the front does it cover? It must not cover a message whose
        // packets were never all sent.
        let mut n = 0;
        for m in &self.msgs {
            if !m.msn.is_at_or_before(msn) {
                break;
            }
            if m.sent < m.npkts {
                return Err(PeerViolation::AckBeyondSent { qpn: self.qpn, msn });
            }
            n += 1;
        }
        let nak = !matches!(aeth.kind(), AethKind::Ack);
        if nak {
            // SND-ACK-003: the messages the NAK's MSN covers completed; the next one failed
            // with the NAK's status, and the QP goes to error.
            notes.fatal = Some("SND-ACK-003");
            notes.nak_syndrome = Some(aeth.syndrome);
        }
        for _ in 0..n {
            let m = self.msgs.pop_front().expect("counted above");
            self.msg_base += 1;
            self.cursor = self.cursor.saturating_sub(1);
            if m.is_wwi() {
                self.wwi_outstanding = self.wwi_outstanding.saturating_sub(1);
            }
            // The responder retired the message: every packet of it arrived, even if a
            // SACK saying so was lost.
            let end = m.last_psn().next();
            let d = end.distance(self.snd_una);
            for _ in 0..d.max(0) {
                self.ack_front(now);
            }
            notes.progressed = true;
            notes.completed.push(m);
        }
        if !nak {
            let una = self.snd_una;
            self.infer_losses(Coverage { cack_next: una, base: una, bitmap: 0 });
        } else {
            self.in_error = true;
        }
        Ok(())
    }

    /// Moves the QP to error: every pending message is returned for a flush completion.
    pub(crate) fn fail(&mut self) -> Vec<SendMsg> {
        self.in_error = true;
        self.pkts.clear();
        self.rtx.clear();
        self.probes.clear();
        self.sent_probes.clear();
        self.suspects.clear();
        self.cursor = 0;
        self.snd_una = self.snd_nxt;
        self.inflight_bytes = 0;
        for e in &mut self.evs {
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
