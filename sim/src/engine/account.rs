//! What the engine takes from the receivers' and senders' memory writes: the delivery
//! oracle's verdicts, completions and latencies, and the report.

use super::*;

impl Sim {
    /// When a write issued now by host `h`'s NIC with latency `lat` lands in memory.
    pub(super) fn land(&mut self, h: usize, lat: u64) -> u64 {
        let host = &mut self.hosts[h];
        let t = (self.now + lat).max(host.pcie_last);
        host.pcie_last = t;
        t
    }

    pub(super) fn domain(&self, f: usize, g: u32) -> usize {
        match self.cfg.nic.retirement {
            RetirementMode::Shared => f,
            RetirementMode::PerQp => g as usize,
        }
    }

    pub(super) fn record(&mut self, h: usize, ev: NicEvent) {
        if self.tap.is_none() {
            return self.account(h, ev);
        }
        let event = ev.clone();
        let writes = !matches!(ev, NicEvent::Report(_));
        self.account(h, ev);
        // Every memory write goes through `land`, which leaves its landing time here.
        let lands_ps = writes.then_some(self.hosts[h].pcie_last);
        if let Some(tap) = self.tap.as_mut() {
            tap.push(Tapped { host: h, at_ps: self.now, lands_ps, event });
        }
    }

    pub(super) fn account(&mut self, h: usize, ev: NicEvent) {
        match ev {
            NicEvent::DmaWrite(w) => {
                self.land(h, self.dma_ps);
                let Some((f, q)) = flow_of(w.qpn.value()) else { return };
                let g = self.qp_base[f] + q;
                let d = self.domain(f, g);
                let c = &mut self.c;
                self.oracle.dma(g as usize, d, &w, |v| c.count(v));
                c.peak_tracked = c.peak_tracked.max(self.oracle.tracked() as u64);
            }
            NicEvent::FlagWrite(fw) if fw.side == Side::Responder => {
                let landed = self.land(h, self.flag_ps);
                let Some((f, q)) = flow_of(fw.qpn.value()) else { return };
                let g = self.qp_base[f] + q;
                let d = self.domain(f, g);
                let len = self.cfg.flows[f].message_bytes;
                let c = &mut self.c;
                self.oracle.flag(g as usize, d, &fw, u64::from(len), |v| c.count(v));
                self.c.messages_delivered += 1;
                self.c.payload_bytes_delivered += u64::from(len);
                self.last_delivery_ps = self.last_delivery_ps.max(landed);
            }
            NicEvent::FlagWrite(_) => {
                self.land(h, self.flag_ps);
            }
            NicEvent::Completion(c) if c.side == Side::Requester => {
                let landed = self.land(h, self.flag_ps);
                let e = c.entry;
                let qp = flow_of(e.qpn.value()).filter(|&(f, q)| {
                    self.cfg.flows.get(f).is_some_and(|fc| q < fc.qps && fc.src == h)
                });
                if !e.status.is_success() {
                    self.c.messages_failed += 1;
                    if let Some((f, q)) = qp {
                        self.finished(f, q);
                    }
                    return;
                }
                self.c.messages_completed += 1;
                let Some((f, q)) = qp else { return };
                self.finished(f, q);
                let fc = &self.cfg.flows[f];
                let m = e.wr_id & 0xFFFF_FFFF;
                let posted = fc
                    .start_ns
                    .saturating_add(m.saturating_mul(fc.post_interval_ns))
                    .saturating_mul(1000);
                self.latency.record(landed.saturating_sub(posted) / 1000);
                if !self.links.drop_marks.is_empty() {
                    if let Some(t) = self.links.drop_marks.remove(&(h as u16, e.qpn.value(), e.msn))
                    {
                        self.drop_latency.record(landed.saturating_sub(t) / 1000);
                    }
                }
            }
            NicEvent::Completion(_) => {
                self.land(h, self.flag_ps);
            }
            NicEvent::Report(NicReport::Retransmitted { cause, .. }) => match cause {
                RetransmitCause::SackInference => self.c.rtx.sack_inference += 1,
                RetransmitCause::Nack => self.c.rtx.nack += 1,
                RetransmitCause::Timeout => self.c.rtx.timeout += 1,
            },
            NicEvent::Report(NicReport::QpError { .. }) => self.c.qp_errors += 1,
            NicEvent::Report(_) => {}
        }
    }

    /// The report as things stand (complete once the run is over).
    pub fn report(&self) -> SimReport {
        let c = &self.c;
        let first = self.first_post_ps.unwrap_or(0);
        let span_ns = self.last_delivery_ps.saturating_sub(first) as f64 / 1000.0;
        let goodput_gbps =
            if span_ns > 0.0 { c.payload_bytes_delivered as f64 * 8.0 / span_ns } else { 0.0 };
        SimReport {
            messages_submitted: self.submitted,
            messages_delivered: c.messages_delivered,
            messages_completed: c.messages_completed,
            messages_failed: c.messages_failed,
            duplicates_delivered: c.duplicates_delivered,
            order_violations: c.order_violations,
            flag_before_data: c.flag_before_data,
            writes_after_flag: c.writes_after_flag,
            peer_violations: c.peer_violations,
            qp_errors: c.qp_errors,
            retransmissions: c.rtx.total(),
            retransmissions_by_cause: c.rtx,
            packets_simulated: c.packets_simulated,
            data_packets_sent: c.data_packets_sent,
            drops: self.links.drops,
            payload_bytes_delivered: c.payload_bytes_delivered,
            goodput_gbps,
            wire_limit_gbps: self.wire_limit_gbps,
            first_post_ns: first / 1000,
            last_delivery_ns: self.last_delivery_ps / 1000,
            sim_time_ns: self.hosts.iter().map(|h| h.pcie_last).fold(self.now, u64::max) / 1000,
            hit_horizon: self.hit_horizon,
            message_latency_ns: self.latency.percentiles(),
            drop_to_completion_ns: (!self.cfg.aimed_drops.is_empty())
                .then(|| self.drop_latency.percentiles()),
            peak_packets_in_flight: c.peak_in_flight,
            peak_model_entries: c.peak_model_entries,
            peak_tracked_messages: c.peak_tracked,
            paths: self.links.paths.iter().map(|p| p.report.clone()).collect(),
        }
    }
}
