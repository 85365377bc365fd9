//! Loss: what acknowledgements tell the sender (SACKs, NACKs, transport ACKs and NAKs),
//! loss inference on FIFO paths (`SND-INFER-*`), tail probes (`SND-TAIL-*`) and the
//! retransmissions they queue (`SND-RTX-*`, `REC-RTO-003`).

use super::*;

/// The repairs a QP's requester owes the wire: retransmissions, probes and resends, with
/// the transmissions suspected lost that later acknowledgements will judge.
#[derive(Debug)]
pub(super) struct Repair {
    /// Retransmissions to send, in order.
    pub(super) rtx: VecDeque<RtxEntry>,
    /// Earliest time a NACK-delayed retransmission may go.
    pub(super) rtx_not_before: Timestamp,
    /// The ID of the last probe queued.
    pub(super) probe_id: u16,
    /// Probes to send, in order.
    pub(super) probes: VecDeque<QueuedProbe>,
    /// Tail probing's delay after an EV's last data transmission (`SND-TAIL-001`).
    pub(super) tail_probe: Option<core::time::Duration>,
    /// Probes sent while tail probing is on and not yet answered (`SND-TAIL-002`); at most
    /// two per EV are kept.
    pub(super) sent_probes: VecDeque<SentProbe>,
    /// Transmissions found to precede an arrival on their EV; checked by `infer_losses`.
    pub(super) suspects: Vec<Suspect>,
    /// The last PSN of the oldest message, to resend because its transport ACK is late.
    pub(super) tail_resend: Option<Psn>,
    /// An outstanding PSN already SACKed, to resend once.
    pub(super) duplicate_resend: Option<DuplicateResend>,
}

/// What an acknowledgement reports: every PSN before `cack_next` arrived, and the 64 PSNs
/// from `base` are reported on by `bitmap` (`SND-INFER-002`).
#[derive(Debug, Clone, Copy)]
struct Coverage {
    pub(super) cack_next: Psn,
    pub(super) base: Psn,
    pub(super) bitmap: u64,
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

impl Requester {
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
    // Inlined into its one caller, the outcome is built where the NIC reads it, not
    // copied there (once per SACK).
    #[inline]
    pub(crate) fn on_sack(
        &mut self,
        now: Timestamp,
        seth: &SethRepr,
        reflected_ts: u16,
    ) -> Result<AckOutcome, PeerViolation> {
        self.check_sack(seth)?;
        let mut out = AckOutcome::default();
        if seth.mpr != 0 {
            // Dynamic MPR: the responder's window, never above our own.
            self.peer_window = (u32::from(seth.mpr) * 128).min(self.window);
        }
        let mark = EvMark::from_bits(seth.m.0);
        if seth.pr {
            out.probe_answers.push(EvMarkSeen { ev: seth.entropy, mark });
            if self.paths.spray == SprayPolicy::WindowFit {
                self.fit_probe_answered(now, seth.entropy, reflected_ts);
            }
            // EV-PROBE-002/003: a skip mark of either kind sends the EV to SKIP; no mark, or
            // the reserved value 3 (SETH-M-001), to GOOD.
            let e = match mark {
                EvMark::SkipOnce | EvMark::AlwaysSkip => EvEvent::ProbeSkip,
                EvMark::None | EvMark::Reserved => EvEvent::ProbeGood,
            };
            out.ev_changes.extend(self.ev_event(now, seth.entropy, e));
        } else {
            match mark {
                EvMark::SkipOnce => {
                    out.marks.push(EvMarkSeen { ev: seth.entropy, mark });
                    out.ev_changes.extend(self.ev_event(now, seth.entropy, EvEvent::SackSkipOnce));
                }
                EvMark::AlwaysSkip => {
                    out.marks.push(EvMarkSeen { ev: seth.entropy, mark });
                    out.ev_changes.extend(self.ev_event(
                        now,
                        seth.entropy,
                        EvEvent::SackAlwaysSkip,
                    ));
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
            out.progressed = true;
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
        if seth.pr && self.repair.tail_probe.is_some() {
            self.probe_answered(seth.entropy, seth.ack_psn_offset as u16, cover);
        }
        Ok(out)
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
        let slot = &mut self.paths.evs[p.ev_idx as usize];
        slot.inflight = slot.inflight.saturating_sub(1);
        if p.retransmissions > 0 {
            // Which copy arrived is unknown (Karn): a retransmitted packet is neither an
            // RTT sample nor evidence about its EV (SND-INFER-003).
            return;
        }
        let rtt = now.0.saturating_sub(p.sent_at.0);
        slot.srtt = if slot.srtt == 0 { rtt.max(1) } else { (slot.srtt * 7 + rtt) / 8 };
        while let Some(&Transmission { psn, seq }) = slot.fifo.front() {
            if seq > p.seq {
                break;
            }
            slot.fifo.pop_front();
            if seq < p.seq {
                self.repair.suspects.push(Suspect { psn, seq, evidence });
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
        if !self.repair.suspects.is_empty() {
            self.judge_suspects(cover);
        }
    }

    fn judge_suspects(&mut self, cover: Coverage) {
        let mut suspects = core::mem::take(&mut self.repair.suspects);
        suspects.retain(|&Suspect { psn, seq, evidence }| {
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
            self.repair.rtx.push_back(RtxEntry {
                psn,
                cause: RtxCause::SackInference,
                delayed: false,
            });
            false
        });
        self.repair.suspects = suspects;
    }

    /// Handles a NACK (`SND-NACK-*`). A NACK for a PSN not in flight changes nothing.
    pub(crate) fn on_nack(
        &mut self,
        now: Timestamp,
        neth: &NethRepr,
        nack_backoff: core::time::Duration,
    ) -> Result<AckOutcome, PeerViolation> {
        let mut out = AckOutcome::default();
        let off = neth.nack_psn.distance(self.snd_una);
        let in_flight = off >= 0 && (off as u32) < self.outstanding();
        if neth.reason.is_fatal() {
            out.nack = Some(NackSeen { psn: neth.nack_psn, reason: neth.reason });
            out.fatal = Some(Fatal { requirement: "SND-NACK-005", nak_syndrome: None });
            self.in_error = true;
            return Ok(out);
        }
        if off < 0 && -off <= self.window as i32 {
            // A NACK for a PSN already acknowledged (a trim of an original whose
            // retransmission arrived, say): nothing to repair (SND-NACK-001).
            out.nack = Some(NackSeen { psn: neth.nack_psn, reason: neth.reason });
            return Ok(out);
        }
        if !in_flight {
            return Err(PeerViolation::NackUnknownPsn {
                qpn: self.qpn,
                psn: neth.nack_psn,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
            });
        }
        out.nack = Some(NackSeen { psn: neth.nack_psn, reason: neth.reason });
        let p = self.pkts[off as usize];
        if p.sacked {
            return Ok(out); // a later copy arrived; nothing to repair
        }
        let delayed = if neth.reason.is_trim() {
            // EV-SKIP-001: the EV the trimmed packet used is skipped; resend at once.
            let ev = self.paths.evs[p.ev_idx as usize].ev;
            out.ev_changes.extend(self.ev_event(now, ev, EvEvent::NackTrimmed));
            false
        } else {
            // Out of window or out of resources at the responder: resend after a pause.
            self.repair.rtx_not_before = now + nack_backoff;
            true
        };
        if !p.queued {
            self.pkts[off as usize].queued = true;
            self.repair.rtx.push_back(RtxEntry {
                psn: neth.nack_psn,
                cause: RtxCause::Nack,
                delayed,
            });
        }
        Ok(out)
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
                        self.repair.tail_resend = Some(m.last_psn());
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
            self.repair.duplicate_resend = Some(DuplicateResend { psn, msg: p.msg, seg: p.seg });
            return Some(self.paths.evs[p.ev_idx as usize].ev);
        };
        let psn = self.snd_una.add(k as u32);
        let p = &mut self.pkts[k];
        let ev = self.paths.evs[p.ev_idx as usize].ev;
        if !p.queued {
            p.queued = true;
            self.repair.rtx.push_front(RtxEntry { psn, cause: RtxCause::Timeout, delayed: false });
        }
        Some(ev)
    }

    /// Queues a probe on `ev` (`EV-PROBE-005`).
    pub(crate) fn probe(&mut self, ev: Ev) {
        self.repair.probe_id = self.repair.probe_id.wrapping_add(1);
        self.repair.probes.push_back(QueuedProbe { ev, id: self.repair.probe_id });
    }

    /// A probe leaves on `ev`. While tail probing is on, it takes the EV's next sequence
    /// number, becomes the EV's latest transmission, and is remembered so that its answer
    /// can serve as evidence (`SND-TAIL-002`).
    pub(super) fn note_probe(&mut self, now: Timestamp, ev: Ev, id: u16) {
        if self.repair.tail_probe.is_none() {
            return;
        }
        let Some(i) = self.paths.ev_index(ev) else { return };
        let slot = &mut self.paths.evs[i];
        let seq = slot.next_seq;
        slot.next_seq += 1;
        slot.tail_at = now;
        slot.tail_probed = true;
        self.repair.sent_probes.push_back(SentProbe { ev_idx: i as u16, id, seq });
        if self.repair.sent_probes.len() > 2 * self.paths.evs.len() {
            self.repair.sent_probes.pop_front();
        }
    }

    /// When EV `i` is due a tail probe (`SND-TAIL-001`): `tail_probe` after its latest
    /// transmission, when the EV still carries the latest transmission of a PSN not known to
    /// have arrived (`inflight`, the count `SND-SPRAY-004` uses), is not DENIED, and has had
    /// no probe since its latest data transmission.
    fn tail_due(&self, i: usize) -> Option<Timestamp> {
        let hold = self.repair.tail_probe?;
        let slot = &self.paths.evs[i];
        let due = !slot.tail_probed && slot.inflight > 0 && slot.state != EvState::Denied;
        due.then(|| slot.tail_at + hold)
    }

    /// The earliest tail probe due, for the NIC's timer.
    #[inline(always)]
    pub(crate) fn tail_deadline(&self) -> Option<Timestamp> {
        if self.repair.tail_probe.is_none() || self.in_error {
            return None;
        }
        (0..self.paths.evs.len()).filter_map(|i| self.tail_due(i)).min()
    }

    /// Queues the tail probes due by `now` (`SND-TAIL-001`). Returns whether it queued any.
    pub(crate) fn on_tail_timeout(&mut self, now: Timestamp) -> bool {
        if self.repair.tail_probe.is_none() || self.in_error {
            return false;
        }
        let mut any = false;
        for i in 0..self.paths.evs.len() {
            if self.tail_due(i).is_some_and(|t| t <= now) {
                self.paths.evs[i].tail_probed = true;
                let ev = self.paths.evs[i].ev;
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
            .repair
            .sent_probes
            .iter()
            .position(|p| p.id == probe_id && self.paths.evs[p.ev_idx as usize].ev == ev)
        else {
            return;
        };
        let Some(SentProbe { ev_idx, seq: probe_seq, .. }) = self.repair.sent_probes.remove(k)
        else {
            return;
        };
        let i = ev_idx as usize;
        let mut lost: Vec<Psn> = Vec::new();
        let (una, pkts) = (self.snd_una, &mut self.pkts);
        self.paths.evs[i].fifo.retain(|&Transmission { psn, seq }| {
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
            self.repair.rtx.push_back(RtxEntry {
                psn,
                cause: RtxCause::SackInference,
                delayed: false,
            });
        }
    }

    /// Handles a transport ACK or NAK (`SND-ACK-*`): completes, in order, every message
    /// whose MSN the AETH covers. Returns the completed messages in [`AckOutcome::completed`].
    pub(crate) fn on_aeth(
        &mut self,
        now: Timestamp,
        aeth: &AethRepr,
    ) -> Result<AckOutcome, PeerViolation> {
        let mut out = AckOutcome::default();
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
            out.fatal =
                Some(Fatal { requirement: "SND-ACK-003", nak_syndrome: Some(aeth.syndrome) });
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
            out.progressed = true;
            out.completed.push(m);
        }
        if !nak {
            let una = self.snd_una;
            self.infer_losses(Coverage { cack_next: una, base: una, bitmap: 0 });
        } else {
            self.in_error = true;
        }
        Ok(out)
    }
}
