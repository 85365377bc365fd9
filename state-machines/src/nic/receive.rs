//! Receive: a packet of a QP's responder arriving at the NIC — a Write checked, placed
//! and retired in order (`RCV-*`, `RET-*`), a probe answered — and the SACKs, NACKs and
//! transport ACKs the responder sends back.

use super::*;

/// Where an accepted Write goes: its offset in the receive window and its message's slot in
/// the retirement domain; and whether it is its message's last packet.
#[derive(Debug, Clone, Copy)]
struct Accepted {
    offset: u32,
    slot: u16,
    is_last: bool,
    /// The payload's length, read once.
    len: u32,
}

impl Nic {
    /// The region a remote key names. The last one found is kept aside, as a NIC keeps a
    /// key cache: regions are never changed once registered, so the copy cannot go stale.
    #[inline(always)]
    pub(super) fn region(&mut self, rkey: Rkey) -> Option<Region> {
        if let Some(r) = self.host.last_region.filter(|r| r.rkey == rkey) {
            return Some(r);
        }
        let r = self.host.regions.get(&rkey).copied();
        if r.is_some() {
            self.host.last_region = r;
        }
        r
    }

    pub(super) fn on_probe(&mut self, i: usize, ev: Ev, peth: &PethRepr) {
        // EV-PROBE-004: answer with a SACK, pr = 1, the probe's EV reflected.
        let trigger = self.qps[i].resp.epsn().sub(1);
        self.send_sack(i, ev, trigger, Some(peth.probe_id), peth.tx_timestamp);
    }

    pub(super) fn send_sack(
        &mut self,
        i: usize,
        ev: Ev,
        trigger: Psn,
        probe_id: Option<u16>,
        ts: u16,
    ) {
        let q = &mut self.qps[i];
        let (seth, cc_state) = q.resp.make_sack(ev, trigger, probe_id, 0, ts);
        let bth = BthRepr::new(Opcode::MRC_SACK, q.cfg.peer_qpn, q.resp.epsn().sub(1));
        self.ctrl.push_back(Transmit {
            qpn: q.cfg.qpn,
            ev,
            packet: Packet::Sack { bth, seth, cc_state },
        });
        self.stats.sacks_sent += 1;
    }

    fn send_nack(&mut self, i: usize, ev: Ev, psn: Psn, reason: NackReason, ts: u16) {
        let q = &self.qps[i];
        let neth = NethRepr {
            reason,
            entropy: ev,
            nack_psn: psn,
            tx_timestamp: ts,
            ..NethRepr::default()
        };
        let bth = BthRepr::new(Opcode::MRC_NACK, q.cfg.peer_qpn, psn);
        self.ctrl.push_back(Transmit { qpn: q.cfg.qpn, ev, packet: Packet::Nack { bth, neth } });
        self.stats.nacks_sent += 1;
    }

    /// Sends a transport ACK (`nak` = None: AETH ACK with unlimited credit, AETH-MRC-002) or
    /// NAK (`nak` = the syndrome). The MSN is the last message of this QP's domain that
    /// retired; a NAK before any retirement carries the MSN before the first.
    pub(super) fn send_ack(&mut self, i: usize, ev: Ev, nak: Option<u8>) {
        let d = self.qps[i].domain;
        let before_next = self.domains[d].table.next_msn().prev();
        let q = &mut self.qps[i];
        let msn = match (nak, q.resp.last_retired) {
            (None, None) => return,
            (None, Some(m)) => m,
            (Some(_), last) => last.unwrap_or(before_next),
        };
        q.resp.retired_unacked = 0;
        let syndrome = nak.unwrap_or(AethRepr::ACK_UNLIMITED_CREDIT);
        let aeth = AethRepr::new(syndrome, msn.into());
        // OPC-PSN-002.b: the PSN of the last packet of the message the MSN names.
        let bth = BthRepr::new(Opcode::MRC_ACKNOWLEDGE, q.cfg.peer_qpn, q.resp.retired_psn);
        self.ctrl.push_back(Transmit { qpn: q.cfg.qpn, ev, packet: Packet::Ack { bth, aeth } });
        self.stats.acks_sent += 1;
    }

    /// Handles a Write of QP `i`, in the spec's order: where its PSN falls in the receive
    /// window, then every check of the packet and its message, and only then placement,
    /// retirement and the SACK policy ("check everything, then mutate").
    pub(super) fn on_write(
        &mut self,
        now: Timestamp,
        i: usize,
        ev: Ev,
        w: &WritePacket,
    ) -> Result<(), PeerViolation> {
        let ts = w.tseth.map_or(0, |t| t.tx_timestamp);
        let Some(offset) = self.classify_write(i, ev, w, ts)? else { return Ok(()) };
        let at = self.check_write(now, i, ev, w, ts, offset)?;
        self.accept_write(now, i, ev, w, ts, at);
        Ok(())
    }

    /// Where the Write's PSN falls: a duplicate is answered (and `None` returned), a PSN
    /// beyond the window NACKed and refused; a new PSN gives its offset in the window.
    fn classify_write(
        &mut self,
        i: usize,
        ev: Ev,
        w: &WritePacket,
        ts: u16,
    ) -> Result<Option<u32>, PeerViolation> {
        let psn = w.bth.psn;
        match self.qps[i].resp.classify(psn) {
            PsnClass::Duplicate => {
                // RCV-DUP-001: no placement; acknowledge at once so that a lost SACK is
                // repaired. RCV-DUP-002: a duplicate of a retired message also repeats the
                // transport ACK, so that a lost ACK is repaired.
                self.stats.duplicates += 1;
                self.qps[i].resp.last_ev = ev;
                self.send_sack(i, ev, psn, None, ts);
                let d = self.qps[i].domain;
                if self.domains[d].table.position(w.meth.msn) == MsnPosition::Retired {
                    self.send_ack(i, ev, None);
                }
                Ok(None)
            }
            PsnClass::OutOfWindow => {
                let epsn = self.qps[i].resp.epsn();
                let window = self.qps[i].resp.window;
                self.send_nack(i, ev, psn, NackReason::PSN_OOR_WINDOW, ts);
                let qpn = self.qps[i].cfg.qpn;
                Err(PeerViolation::OutOfWindow { qpn, psn, epsn, window })
            }
            PsnClass::New { offset } => Ok(Some(offset)),
        }
    }

    /// Every check of a new Write (at `offset` in the receive window) and its message;
    /// returns where it goes. Nothing changes here but the responses the specification asks for
    /// (a transport NAK for a bad key, a NACK and the QP's failure past the WWI limit).
    fn check_write(
        &mut self,
        now: Timestamp,
        i: usize,
        ev: Ev,
        w: &WritePacket,
        ts: u16,
        offset: u32,
    ) -> Result<Accepted, PeerViolation> {
        let pmtu = self.cfg.pmtu;
        let qpn = self.qps[i].cfg.qpn;
        let psn = w.bth.psn;
        let len = w.payload.len();
        // Structural checks of the packet on its own.
        if len > pmtu {
            return Err(PeerViolation::PayloadTooLong { qpn, len, pmtu });
        }
        let op = w.bth.opcode;
        let is_last = op.is_last();
        if !is_last && len != pmtu {
            return Err(PeerViolation::SegmentLength { qpn, opcode: op, len, pmtu });
        }
        // Placement: the region named by the key must allow the write (RCV-PLACE-003/002).
        let region_ok = self
            .region(w.reth.rkey)
            .is_some_and(|r| r.remote_write && r.contains(w.reth.va, u64::from(len)));
        if !region_ok {
            self.send_ack(i, ev, Some(AethRepr::NAK_REMOTE_ACCESS));
            return Err(PeerViolation::RemoteAccess { qpn, rkey: w.reth.rkey, va: w.reth.va, len });
        }
        let is_imm = op.has_immediate();
        let slot = self.check_message(i, w, is_imm, len)?;
        if is_last && is_imm {
            let limit = self.cfg.wwi_limit;
            let rq_ahead = w.meth.rqmsn.forward_from(self.qps[i].resp.delivered_rqmsn);
            if rq_ahead > limit && rq_ahead < 0x8000 {
                self.send_nack(i, ev, psn, NackReason::UNEXP_EVENT, ts);
                self.fail_qp(now, i, CompletionStatus::FATAL_NACK, "WWI-LIMIT-002");
                return Err(PeerViolation::WwiLimit { qpn, rqmsn: w.meth.rqmsn, limit });
            }
        }
        Ok(Accepted { offset, slot, is_last, len })
    }

    /// Where the Write's message stands in its retirement domain, and whether the packet
    /// agrees with what earlier packets of it said; returns its slot. `is_imm`: whether
    /// its opcode carries an ImmDt; `len`: its payload's length.
    fn check_message(
        &self,
        i: usize,
        w: &WritePacket,
        is_imm: bool,
        len: u32,
    ) -> Result<u16, PeerViolation> {
        let qpn = self.qps[i].cfg.qpn;
        let msn = w.meth.msn;
        let table = &self.domains[self.qps[i].domain].table;
        let slot = match table.position(msn) {
            MsnPosition::Retired => {
                return Err(PeerViolation::AfterRetirement { qpn, psn: w.bth.psn, msn });
            }
            MsnPosition::Beyond => {
                return Err(PeerViolation::MsnBeyondWindow { qpn, msn, next: table.next_msn() });
            }
            MsnPosition::Pending { offset } => offset,
        };
        let mismatch = |what| PeerViolation::MessageMismatch { qpn, msn, what };
        if let Some(m) = table.pending(slot) {
            if m.qp != i as u32 {
                return Err(mismatch("another QP uses this MSN"));
            }
            if m.total != w.reth.dma_len {
                return Err(mismatch("RETH.dma_len differs between packets"));
            }
            if m.placed + len > m.total {
                return Err(mismatch("more payload than RETH.dma_len"));
            }
        } else if len > w.reth.dma_len {
            return Err(mismatch("more payload than RETH.dma_len"));
        }
        if is_imm && w.immdt.is_none() {
            return Err(mismatch("Write-with-Immediate without ImmDt"));
        }
        Ok(slot)
    }

    /// Accepts a Write that passed every check: marks it received, places it, retires what
    /// it completes, and acknowledges it by the SACK policy (`RCV-SACK-*`).
    fn accept_write(
        &mut self,
        now: Timestamp,
        i: usize,
        ev: Ev,
        w: &WritePacket,
        ts: u16,
        at: Accepted,
    ) {
        let qpn = self.qps[i].cfg.qpn;
        let psn = w.bth.psn;
        let len = at.len;
        let msn = w.meth.msn;
        let is_last = at.is_last;
        let out_of_order = self.qps[i].resp.accept(at.offset, len);
        #[cfg(feature = "fault-hooks")]
        if self.cfg.recv_fault.is_some() {
            self.qps[i].resp.walk_past_hole(at.offset);
        }
        self.stats.packets_placed += 1;
        if out_of_order {
            self.stats.out_of_order += 1;
        }
        let d = self.qps[i].domain;
        let m = self.domains[d].table.pending_or_insert(at.slot, || RecvMsg {
            qp: i as u32,
            qpn,
            total: w.reth.dma_len,
            placed: 0,
            last_seen: false,
            last_psn: psn,
            imm: None,
            rqmsn: w.meth.rqmsn,
        });
        m.placed += len;
        if is_last {
            m.last_seen = true;
            m.last_psn = psn;
        }
        if let Some(imm) = w.immdt {
            m.imm = Some(imm.imm);
        }
        if len > 0 {
            self.events.push_back(NicEvent::DmaWrite(DmaWrite {
                qpn,
                psn,
                msn,
                va: w.reth.va,
                payload: w.payload.clone(),
            }));
        }
        self.retire(now, d, ev);

        // SACK policy (RCV-SACK-*).
        let q = &mut self.qps[i].resp;
        q.last_ev = ev;
        q.last_ts = ts;
        q.last_psn = psn;
        // RCV-SACK-001: at once on AckReq, on an out-of-order arrival, on a packet that
        // fills a hole or is a retransmission (recovery is reported without delay).
        let filled_hole = q.epsn().distance(psn) > 1;
        if w.bth.ack_req
            || out_of_order
            || filled_hole
            || w.bth.rtx
            || q.unacked >= self.cfg.sack_coalesce
        {
            self.send_sack(i, ev, psn, None, ts);
        } else if q.sack_deadline.is_none() {
            q.sack_deadline = Some(now + self.cfg.sack_delay);
        }
    }

    /// Retires every complete message at the head of domain `d` (RET-ORDER-001).
    #[inline(always)]
    pub(super) fn retire(&mut self, now: Timestamp, d: usize, ev: Ev) {
        // Most packets complete no message: a look at the head is all they cost.
        let dom = &self.domains[d];
        if dom.table.head_ready() || !dom.dead.is_empty() {
            self.retire_ready(now, d, ev);
        }
    }

    #[inline(never)]
    fn retire_ready(&mut self, now: Timestamp, d: usize, ev: Ev) {
        let mut acked = core::mem::take(&mut self.scratch);
        loop {
            let dom = &mut self.domains[d];
            let Some((msn, m)) = dom.table.pop_ready() else {
                // RET-ERR-001: an MSN purged with its failed QP never retires; skip it.
                let next = dom.table.next_msn();
                if let Some(k) = dom.dead.iter().position(|&x| x == next) {
                    dom.dead.swap_remove(k);
                    dom.table.skip_missing();
                    continue;
                }
                break;
            };
            let qi = m.qp as usize;
            if let Some(imm) = m.imm {
                // CQE-RECV-001: the immediate, in RQMSN order (retirement order).
                let q = &mut self.qps[qi];
                q.resp.delivered_rqmsn = m.rqmsn;
                let entry = CompletionRepr::receive(q.cfg.qpn, m.total, imm, msn);
                let cq = q.cfg.recv_cq;
                self.write_completion(Side::Responder, cq, entry);
            }
            let q = &mut self.qps[qi];
            if let Some(slot) = retirement_slot(0, q.cfg.recv_flag_slots, msn) {
                let value = FlagRepr::retired(msn, m.total).to_u64();
                let addr = q.cfg.recv_flag_base + u64::from(slot) * 8;
                self.events.push_back(NicEvent::FlagWrite(FlagWrite {
                    qpn: q.cfg.qpn,
                    side: Side::Responder,
                    msn,
                    addr,
                    value,
                }));
            }
            q.resp.last_retired = Some(msn);
            q.resp.retired_psn = m.last_psn;
            q.resp.retired_unacked += 1;
            self.stats.messages_retired += 1;
            if !acked.contains(&qi) {
                acked.push(qi);
            }
        }
        for &qi in &acked {
            if self.qps[qi].resp.retired_unacked >= self.cfg.ack_coalesce {
                self.send_ack(qi, ev, None);
            } else {
                // RCV-ACK-001: a held-back ACK goes out with the SACK timer at the latest.
                let r = &mut self.qps[qi].resp;
                if r.sack_deadline.is_none() {
                    r.sack_deadline = Some(now + self.cfg.sack_delay);
                }
                self.arm_timer(qi);
            }
        }
        acked.clear();
        self.scratch = acked;
    }
}
