//! Posting the workload: messages are posted as the senders need them, so that memory
//! follows what is in flight, not the workload.

use super::*;

impl Sim {
    /// Most messages of one QP of flow `f` posted at once: enough for two windows of the
    /// QP (so that a sender never waits for work), and, when the flow is small, all of it.
    pub(super) fn depth(&self, f: &FlowConfig) -> u32 {
        let per_msg = f.message_bytes.div_ceil(self.cfg.nic.pmtu).max(1);
        let window = self.cfg.nic.window().div_ceil(per_msg) + 1;
        let share = POSTED_AT_ONCE.div_ceil(f.qps.max(1));
        (2 * window + 2).max(share).min(MAX_POSTED_PER_DOMAIN)
    }

    pub(super) fn on_post(&mut self, f: usize, m: u32) {
        let messages = self.cfg.flows[f].messages;
        let interval = self.cfg.flows[f].post_interval_ns;
        self.first_post_ps = Some(self.first_post_ps.map_or(self.now, |t| t.min(self.now)));
        self.posting[f].due = if m == u32::MAX { messages } else { m + 1 };
        self.pump(f);
        if m != u32::MAX && m + 1 < messages {
            let at = self.now + interval.saturating_mul(1000);
            self.schedule(at, Kind::Post { flow: f as u16, m: m + 1 });
        }
        let src = self.cfg.flows[f].src;
        self.drain(src);
    }

    /// Posts what flow `f` may post now: every message due, as long as no QP holds more
    /// than its depth and, in a shared retirement domain, the domain no more than
    /// [`MAX_POSTED_PER_DOMAIN`]. Messages go out message by message, QP by QP, as a host
    /// posting all of them at once would.
    pub(super) fn pump(&mut self, f: usize) {
        let (qps, base) = (self.cfg.flows[f].qps, self.qp_base[f]);
        let Posting { due, depth, .. } = self.posting[f];
        match self.cfg.nic.retirement {
            RetirementMode::Shared => loop {
                let Posting { next_m: m, next_q: q, pending, .. } = self.posting[f];
                if m >= due {
                    break;
                }
                let g = (base + q) as usize;
                if !self.qp_posts[g].dead
                    && (pending >= u64::from(MAX_POSTED_PER_DOMAIN)
                        || self.qp_posts[g].pending >= depth)
                {
                    break;
                }
                self.post_one(f, q, m);
                let p = &mut self.posting[f];
                (p.next_m, p.next_q) = if q + 1 == qps { (m + 1, 0) } else { (m, q + 1) };
            },
            RetirementMode::PerQp => loop {
                let mut any = false;
                for q in 0..qps {
                    any |= self.post_next(f, q, due, depth);
                }
                if !any {
                    break;
                }
            },
        }
    }

    /// Per-QP retirement: posts QP `q`'s next message if it is due and the QP has room;
    /// whether it did.
    pub(super) fn post_next(&mut self, f: usize, q: u32, due: u32, depth: u32) -> bool {
        let g = (self.qp_base[f] + q) as usize;
        let QpPosts { next_m, pending, dead } = self.qp_posts[g];
        if next_m >= due {
            return false;
        }
        if dead {
            // A QP in error: what is due fails without being posted.
            self.c.messages_failed += u64::from(due - next_m);
            self.qp_posts[g].next_m = due;
            return false;
        }
        if pending >= depth {
            return false;
        }
        self.post_one(f, q, next_m);
        self.qp_posts[g].next_m = next_m + 1;
        true
    }

    /// Posts message `m` of QP `q` of flow `f`.
    pub(super) fn post_one(&mut self, f: usize, q: u32, m: u32) {
        let fc = &self.cfg.flows[f];
        let (src, bytes) = (fc.src, fc.message_bytes);
        let g = self.qp_base[f] + q;
        if self.qp_posts[g as usize].dead {
            self.c.messages_failed += 1;
            return;
        }
        let now = self.now_ts();
        let offset = (u64::from(m) * u64::from(bytes)) % (1 << 35);
        let wr = WorkRequest {
            wr_id: (u64::from(q) << 32) | u64::from(m),
            qpn: qp_number(f, q),
            opcode: WrOpcode::WRITE,
            local_va: REGION_BASE + (u64::from(g) << 36) + offset,
            lkey: Lkey::new(1),
            remote_va: REGION_BASE + (u64::from(g) << 36) + offset,
            rkey: RKEY,
            length: bytes,
            imm: None,
            flag_slot: m % FLAG_SLOTS,
            signaled: true,
        };
        if self.hosts[src].ep.handle_host(now, HostCommand::PostWrite(wr)).is_err() {
            self.c.messages_failed += 1;
            self.qp_posts[g as usize].dead = true;
        } else {
            self.qp_posts[g as usize].pending += 1;
            self.posting[f].pending += 1;
        }
    }

    /// A message of QP `q` of flow `f` completed (or failed): its host may post more.
    pub(super) fn finished(&mut self, f: usize, q: u32) {
        let g = (self.qp_base[f] + q) as usize;
        let qp = &mut self.qp_posts[g];
        qp.pending = qp.pending.saturating_sub(1);
        let p = &mut self.posting[f];
        p.pending = p.pending.saturating_sub(1);
        let (due, depth) = (p.due, p.depth);
        match self.cfg.nic.retirement {
            RetirementMode::Shared => self.pump(f),
            RetirementMode::PerQp => while self.post_next(f, q, due, depth) {},
        }
    }
}
