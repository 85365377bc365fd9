//! Send: the NIC's side of each QP's requester — the CPU half's commands to it, and the
//! acknowledgements it handles, turned into reports and sender completions.

use super::*;

impl Nic {
    pub(super) fn cpu(&mut self, now: Timestamp, cmd: CpuCommand) -> Result<(), ApiMisuse> {
        let qpn = match cmd {
            CpuCommand::Retransmit { qpn, .. }
            | CpuCommand::Probe { qpn, .. }
            | CpuCommand::SetEvState { qpn, .. }
            | CpuCommand::QpError { qpn } => qpn,
            CpuCommand::EndpointRequest { op, ev, request_id } => {
                return self.send_endpoint_request(op, ev, request_id);
            }
        };
        let i = self.qp_idx(qpn).ok_or(ApiMisuse::UnknownQp(qpn))?;
        if self.qps[i].in_error {
            return Ok(());
        }
        match cmd {
            CpuCommand::Retransmit { psn, .. } => {
                self.qps[i].req.retransmit_cmd(psn);
            }
            CpuCommand::Probe { ev, .. } => self.qps[i].req.probe(ev),
            CpuCommand::SetEvState { ev, state, .. } => {
                if self.qps[i].req.set_ev_state(now, ev, state) {
                    self.events.push_back(NicEvent::Report(NicReport::EvState { qpn, ev, state }));
                }
            }
            CpuCommand::QpError { .. } => {
                self.fail_qp(now, i, CompletionStatus::RETRY_EXCEEDED, "REC-RETRY-002")
            }
            // Sent above, before any QP is looked up.
            CpuCommand::EndpointRequest { .. } => {}
        }
        self.activate(i);
        self.arm_timer(i);
        Ok(())
    }

    pub(super) fn on_sender_input(
        &mut self,
        now: Timestamp,
        i: usize,
        f: impl FnOnce(&mut Qp) -> Result<AckOutcome, PeerViolation>,
    ) -> Result<(), PeerViolation> {
        let out = f(&mut self.qps[i])?;
        let qpn = self.qps[i].cfg.qpn;
        // Most inputs (a SACK moving the cumulative point) note nothing but progress: test
        // for emptiness before iterating.
        if !out.marks.is_empty() {
            for &EvMarkSeen { ev, mark } in &out.marks {
                self.events.push_back(NicEvent::Report(NicReport::EvMarked { qpn, ev, mark }));
            }
        }
        if !out.ev_changes.is_empty() {
            for &EvChange { ev, state } in &out.ev_changes {
                self.events.push_back(NicEvent::Report(NicReport::EvState { qpn, ev, state }));
            }
        }
        if !out.probe_answers.is_empty() {
            for &EvMarkSeen { ev, mark } in &out.probe_answers {
                self.events.push_back(NicEvent::Report(NicReport::ProbeAnswered { qpn, ev, mark }));
            }
        }
        if let Some(NackSeen { psn, reason }) = out.nack {
            self.events.push_back(NicEvent::Report(NicReport::Nack { qpn, psn, reason }));
        }
        let d = self.qps[i].domain;
        for m in out.completed {
            let dom = &mut self.domains[d];
            if dom.send_floor.is_at_or_before(m.msn) {
                dom.send_floor = m.msn.next();
            }
            self.stats.messages_completed += 1;
            self.complete_send(i, &m.wr, m.msn, CompletionStatus::SUCCESS);
        }
        if let Some(fatal) = out.fatal {
            // CQE-STATUS-004: a NAK 0x61 to 0x63 gives its own status, any other AETH
            // that is not an ACK REMOTE_OP_ERROR (SND-ACK-006); a fatal NACK gives
            // FATAL_NACK.
            let status = match fatal.nak_syndrome {
                Some(syn) => CompletionStatus::from_aeth_nak(syn)
                    .unwrap_or(CompletionStatus::REMOTE_OP_ERROR),
                None => CompletionStatus::FATAL_NACK,
            };
            self.fail_qp(now, i, status, fatal.requirement);
        } else if out.progressed {
            let q = &mut self.qps[i];
            let outstanding = q.req.outstanding();
            let awaiting_ack = q.req.awaiting_ack();
            q.armed = outstanding > 0 || awaiting_ack > 0;
            self.events.push_back(NicEvent::Report(NicReport::Progress {
                qpn,
                snd_una: q.req.snd_una,
                outstanding,
                awaiting_ack,
            }));
        }
        self.activate(i);
        Ok(())
    }
}
