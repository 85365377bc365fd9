//! Host: what host software and the GPU ask of the NIC — QPs, registered regions,
//! doorbell templates, doorbells and posted work requests, completion queues — and what
//! the NIC writes back to host memory for the sender: completion entries and flags.

use super::*;

/// What host software has set up on the NIC: registered memory, doorbell templates and
/// completion queues.
#[derive(Debug, Default)]
pub(super) struct Host {
    /// Regions a peer may write, by rkey (`RCV-PLACE-*`).
    pub(super) regions: HashMap<Rkey, Region>,
    /// Local registrations, by lkey (`TPL-KEY-001`).
    pub(super) local: HashMap<Lkey, LocalRegion>,
    /// Installed doorbell templates, by ID (`TPL-*`).
    pub(super) templates: HashMap<TemplateId, TemplateSlot>,
    /// Completion queues, by ID (`CQE-RING-*`).
    pub(super) cqs: HashMap<CqId, Cq>,
    /// The device error completion queue (`CQE-REJECT-002`).
    pub(super) error_cq: Option<CqId>,
    /// Queues that found no free slot during the current input; the QPs that report to
    /// them move to the error state once it is handled (`CQE-RING-004`).
    pub(super) overflowed: Vec<CqId>,
    /// The region found last (see `Nic::region`).
    pub(super) last_region: Option<Region>,
}

#[derive(Debug, Clone)]
pub(super) struct TemplateSlot {
    pub(super) template: Template,
    pub(super) expected_seq: u16,
}

/// A completion queue: a ring of `entries` slots in host memory (`CQE-RING-*`).
#[derive(Debug, Clone)]
pub(super) struct Cq {
    pub(super) cfg: CqConfig,
    /// Where the ring's entries go, from a configuration that passed its checks.
    ring: RingShape,
    /// Entries written so far: the next entry is the k-th of `CQE-RING-001`.
    pub(super) written: u64,
    /// The consumer register: entries released, modulo 2^32 (`CQE-RING-004`).
    pub(super) consumed: u32,
    /// A completion found no free slot: the queue takes no more entries (`CQE-RING-004`).
    pub(super) stopped: bool,
}

/// The shape of a completion queue's ring: a number of slots that is a power of two
/// (`CQE-RING-001`), as only [`RingShape::of`] makes it.
#[derive(Debug, Clone, Copy)]
struct RingShape {
    /// log2 of the number of slots.
    shift: u32,
}

impl RingShape {
    /// The ring of `cfg`, or why software may not create it (`CQE-SETUP-001`).
    fn of(cfg: &CqConfig) -> Result<RingShape, &'static str> {
        match cfg.problem() {
            Some(reason) => Err(reason),
            None => Ok(RingShape { shift: cfg.entries.trailing_zeros() }),
        }
    }

    /// The slot and the phase of the `count`-th entry written (`CQE-RING-001`): slot
    /// `count mod N`, phase 1 on even passes (`openrdma_codec::host::cq_position`).
    fn position(self, count: u64) -> (u32, bool) {
        let slot = (count & ((1u64 << self.shift) - 1)) as u32;
        (slot, (count >> self.shift) % 2 == 0)
    }
}

impl Cq {
    /// A new, empty queue, or why software may not create it (`CQE-SETUP-001`).
    fn new(cfg: CqConfig) -> Result<Cq, &'static str> {
        Ok(Cq { ring: RingShape::of(&cfg)?, cfg, written: 0, consumed: 0, stopped: false })
    }

    /// Entries written and not yet released. At most `entries`, which is at most 2^31, so
    /// the difference modulo 2^32 is exact.
    fn in_use(&self) -> u32 {
        (self.written as u32).wrapping_sub(self.consumed)
    }
}

/// The state of a completion queue, as [`Nic::cq_state`] reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CqState {
    /// Entries written since the queue was created.
    pub written: u64,
    /// The consumer register: entries released, modulo 2^32.
    pub consumed: u32,
    /// Whether the queue stopped because a completion found no free slot (`CQE-RING-004`).
    pub stopped: bool,
}

/// Whether `new` is `old` disabled or re-enabled: every field but `enabled` is the same and
/// `enabled` differs. Such a change keeps the template's expected sequence number; any other
/// `SetTemplate` installs the template, again if its ID is in use, and sets it to 0
/// (`TPL-INSTALL-003`, `DB-SEQ-001`, `DB-SEQ-004`).
fn only_enabled_differs(old: &Template, new: &Template) -> bool {
    old.enabled != new.enabled && Template { enabled: new.enabled, ..*old } == *new
}

/// Capacity of a shared retirement domain, in messages.
const SHARED_DOMAIN_CAPACITY: u16 = 4096;

impl Nic {
    pub(super) fn host(&mut self, cmd: HostCommand) -> Result<(), HostError> {
        match cmd {
            HostCommand::CreateQp(cfg) => self.create_qp(cfg)?,
            HostCommand::RegisterRegion(r) => {
                if self.host.regions.contains_key(&r.rkey) {
                    return Err(ApiMisuse::DuplicateRegion(r.rkey).into());
                }
                self.host.regions.insert(r.rkey, r);
            }
            HostCommand::RegisterLocal(r) => {
                if self.host.local.contains_key(&r.lkey) {
                    return Err(ApiMisuse::DuplicateLocalKey(r.lkey).into());
                }
                self.host.local.insert(r.lkey, r);
            }
            HostCommand::DeregisterLocal { lkey } => self.deregister_local(lkey)?,
            HostCommand::SetTemplate(t) => self.set_template(t)?,
            HostCommand::CreateCq(cfg) => {
                if self.host.cqs.contains_key(&cfg.cq) {
                    return Err(ApiMisuse::DuplicateCq(cfg.cq).into());
                }
                let cq = cfg.cq;
                let q = Cq::new(cfg).map_err(|reason| ApiMisuse::BadCq { cq, reason })?;
                self.host.cqs.insert(cq, q);
            }
            HostCommand::SetErrorCq { cq } => {
                if !self.host.cqs.contains_key(&cq) {
                    return Err(ApiMisuse::UnknownCq(cq).into());
                }
                self.host.error_cq = Some(cq);
            }
            HostCommand::CqConsumer { cq, consumed } => {
                let q = self.host.cqs.get_mut(&cq).ok_or(ApiMisuse::UnknownCq(cq))?;
                // CQE-RING-004: the consumer releases only entries the NIC has written.
                let written = q.written as u32;
                if consumed.wrapping_sub(q.consumed) > written.wrapping_sub(q.consumed) {
                    return Err(ApiMisuse::BadCqConsumer {
                        cq,
                        consumed,
                        written,
                        released: q.consumed,
                    }
                    .into());
                }
                q.consumed = consumed;
            }
            HostCommand::Doorbell { token } => self.doorbell(token)?,
            HostCommand::PostWrite(wr) => self.post(wr)?,
            HostCommand::DoorbellWrite(w) => match w.token() {
                Some(token) => self.doorbell(token)?,
                // DB-MMIO-002: no token, so nothing to act on; counted, no completion.
                None => self.stats.ignored_doorbell_writes += 1,
            },
        }
        Ok(())
    }

    /// Installs (or replaces) a template: every `TPL-*` rule, including the local key
    /// (`TPL-KEY-001`), must hold; otherwise the template is refused and the one installed
    /// under its ID, if any, stays (`TPL-INSTALL-001`).
    fn set_template(&mut self, t: Template) -> Result<(), ApiMisuse> {
        t.validate().map_err(|e| ApiMisuse::BadTemplate {
            template: t.template_id,
            reason: e.to_string(),
        })?;
        let Some(i) = self.qp_idx(t.qpn) else {
            return Err(ApiMisuse::UnknownQp(t.qpn));
        };
        // TPL-FLAG-001.b: every flag slot of the template lies inside the QP's flag table.
        let table = self.qps[i].cfg.send_flag_slots;
        if u64::from(t.flag_base_slot) + u64::from(t.slots) > u64::from(table) {
            return Err(ApiMisuse::BadTemplate {
                template: t.template_id,
                reason: format!(
                    "[TPL-FLAG-001] flag slots {} + {} pass the flag table's {table} slots",
                    t.flag_base_slot, t.slots
                ),
            });
        }
        // TPL-KEY-001: the local key names registered memory that covers the local region
        // and lets the NIC read it.
        let key =
            |reason| ApiMisuse::TemplateKey { template: t.template_id, lkey: t.local_lkey, reason };
        let r =
            self.host.local.get(&t.local_lkey).ok_or_else(|| key("names no registered memory"))?;
        if !r.local_read {
            return Err(key("does not let the NIC read its memory"));
        }
        if !r.contains(t.local_base, t.local_region_len) {
            return Err(key("does not cover the template's local region"));
        }
        // TPL-INSTALL-003: disabling or re-enabling keeps the expected sequence number;
        // any other installation, under a new ID or one in use, sets it to 0 (DB-SEQ-001),
        // or to the value the start state restored (CONF-ADP-021).
        let expected_seq = match self.host.templates.get(&t.template_id) {
            Some(s) if only_enabled_differs(&s.template, &t) => s.expected_seq,
            _ => self.start.template_seq(t.template_id.value()),
        };
        // TPL-INSTALL-002: the table entry is replaced whole, between two host inputs, so
        // every token is expanded from one version of the template.
        self.host.templates.insert(t.template_id, TemplateSlot { template: t, expected_seq });
        Ok(())
    }

    /// Ends a local registration. A NIC may not read under a key that has ended, so every
    /// installed template that names it is disabled first (`TPL-INSTALL-004`,
    /// `TPL-KEY-002`): its tokens are rejected as unknown until software installs it again
    /// under a valid registration. Messages already accepted are not affected; software
    /// deregisters memory only once their flags have matched.
    fn deregister_local(&mut self, lkey: Lkey) -> Result<(), ApiMisuse> {
        if self.host.local.remove(&lkey).is_none() {
            return Err(ApiMisuse::UnknownLocalKey(lkey));
        }
        for s in self.host.templates.values_mut() {
            if s.template.local_lkey == lkey {
                s.template.enabled = false;
            }
        }
        Ok(())
    }

    /// Creates a retirement domain: its MSN counter and retirement pointer start at 0
    /// (`RET-DOMAIN-003`), or where the start state restored them (`CONF-ADP-021`).
    fn new_domain(&mut self, id: DomainId, capacity: u16) -> usize {
        let (send, recv) = self.start.domain(id);
        self.domains.push(Domain {
            next_send_msn: Msn::new(send),
            dead: Vec::new(),
            send_floor: Msn::new(send),
            table: RetireRing::new(capacity, Msn::new(recv)),
        });
        self.domains.len() - 1
    }

    fn create_qp(&mut self, cfg: QpConfig) -> Result<(), ApiMisuse> {
        // ERTH-QPN-001: QPN 2 is the endpoint operations'; no MRC connection uses it, at
        // either end.
        if cfg.qpn == Qpn::ENDPOINT || cfg.peer_qpn == Qpn::ENDPOINT {
            return Err(ApiMisuse::ReservedQpn { qpn: cfg.qpn, peer_qpn: cfg.peer_qpn });
        }
        if self.qp_index.contains_key(&cfg.qpn.value()) {
            return Err(ApiMisuse::DuplicateQp(cfg.qpn));
        }
        if self.qps.len() as u32 >= self.cfg.max_qps {
            return Err(ApiMisuse::TooManyQps(self.cfg.max_qps));
        }
        if cfg.evs.is_empty() {
            return Err(ApiMisuse::BadQp { qpn: cfg.qpn, reason: "the EV profile is empty" });
        }
        // A PSN read from a scenario or the adapter protocol holds whatever integer was
        // written.
        if cfg.initial_psn.value() > openrdma_codec::psn::PSN_MASK
            || cfg.peer_initial_psn.value() > openrdma_codec::psn::PSN_MASK
        {
            return Err(ApiMisuse::BadQp { qpn: cfg.qpn, reason: "initial PSNs are 24-bit" });
        }
        // API-CQ-002: the completion queues a QP names exist.
        for cq in [cfg.send_cq, cfg.recv_cq].into_iter().flatten() {
            if !self.host.cqs.contains_key(&cq) {
                return Err(ApiMisuse::UnknownCq(cq));
            }
        }
        let i = self.qps.len();
        let domain = match self.cfg.retirement {
            RetirementMode::Shared => match self.domain_index.get(&cfg.domain) {
                Some(&d) => d,
                None => {
                    let d = self.new_domain(cfg.domain, SHARED_DOMAIN_CAPACITY);
                    self.domain_index.insert(cfg.domain, d);
                    d
                }
            },
            // RET-DOMAIN-001: in per-QP retirement the QP is its domain, named by its QPN.
            RetirementMode::PerQp => self
                .new_domain(DomainId::new(cfg.qpn.value()), self.cfg.window().min(0x7FFF) as u16),
        };
        let rng = ChaCha8Rng::seed_from_u64(
            self.cfg.seed ^ (u64::from(cfg.qpn.value())).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        let req = Requester::new(&self.cfg, &cfg, rng);
        let resp = Responder::new(cfg.peer_initial_psn, self.cfg.mpr);
        self.qp_index.insert(cfg.qpn.value(), i);
        self.qps.push(Qp {
            cfg,
            req,
            resp,
            domain,
            in_error: false,
            armed: false,
            active: false,
            timer_at: None,
        });
        Ok(())
    }

    fn doorbell(&mut self, token: u64) -> Result<(), HostError> {
        let tok = DoorbellToken::from_u64(token);
        let slot = self.host.templates.get(&tok.template);
        let result =
            accept_doorbell(&tok, slot.map(|s| &s.template), slot.map_or(0, |s| s.expected_seq));
        match result {
            Ok(wr) => {
                let i = self.qp_idx(wr.qpn).ok_or(ApiMisuse::UnknownQp(wr.qpn))?;
                if let Some(s) = self.host.templates.get_mut(&tok.template) {
                    s.expected_seq = s.expected_seq.wrapping_add(1);
                }
                if self.qps[i].in_error {
                    // RET-FLUSH-001: work for a QP in error completes at once as FLUSHED,
                    // with its flag, so that a GPU waiting on the flag is released.
                    self.complete_send(i, &wr, Msn::ZERO, CompletionStatus::FLUSHED);
                } else {
                    self.enqueue(i, wr);
                }
                Ok(())
            }
            Err(reject) => {
                let template = slot.map(|s| s.template);
                let entry = CompletionRepr::for_reject(token, template.as_ref(), reject);
                // CQE-REJECT-002: the send completion queue of the template's QP when the
                // rejection names the template, else the device error completion queue.
                let cq = match template.filter(|_| reject.template_known()) {
                    Some(t) => self.qp_idx(t.qpn).and_then(|i| self.qps[i].cfg.send_cq),
                    None => self.host.error_cq,
                };
                self.write_completion(Side::Requester, cq, entry);
                Err(DoorbellRejected { token, reject }.into())
            }
        }
    }

    fn post(&mut self, wr: WorkRequest) -> Result<(), ApiMisuse> {
        let i = self.qp_idx(wr.qpn).ok_or(ApiMisuse::UnknownQp(wr.qpn))?;
        if self.qps[i].in_error {
            return Err(ApiMisuse::BadWorkRequest {
                qpn: wr.qpn,
                reason: "QP is in the error state",
            });
        }
        if wr.opcode != WrOpcode::WRITE && wr.opcode != WrOpcode::WRITE_WITH_IMM {
            return Err(ApiMisuse::BadWorkRequest {
                qpn: wr.qpn,
                reason: "MRC carries only Write and Write-with-Immediate",
            });
        }
        if (wr.opcode == WrOpcode::WRITE_WITH_IMM) != wr.imm.is_some() {
            return Err(ApiMisuse::BadWorkRequest {
                qpn: wr.qpn,
                reason: "immediate data must be present exactly for Write-with-Immediate",
            });
        }
        self.enqueue(i, wr);
        Ok(())
    }

    fn enqueue(&mut self, i: usize, wr: WorkRequest) {
        let d = &mut self.domains[self.qps[i].domain];
        let msn = d.next_send_msn;
        d.next_send_msn = msn.next();
        self.qps[i].req.push(wr, msn);
        self.activate(i);
    }

    /// Sender completion: completion entry (if signaled or failed) and completion flag.
    pub(super) fn complete_send(
        &mut self,
        i: usize,
        wr: &WorkRequest,
        msn: Msn,
        status: CompletionStatus,
    ) {
        if wr.signaled || !status.is_success() {
            let entry = CompletionRepr::for_request(wr, status, msn);
            self.write_completion(Side::Requester, self.qps[i].cfg.send_cq, entry);
        }
        let q = &self.qps[i];
        if wr.flag_slot < q.cfg.send_flag_slots {
            let seq = (wr.wr_id >> 32) as u16;
            let value =
                FlagRepr::sender(seq, status, if status.is_success() { wr.length } else { 0 })
                    .to_u64();
            let addr = q.cfg.send_flag_base + u64::from(wr.flag_slot) * 8;
            self.events.push_back(NicEvent::FlagWrite(FlagWrite {
                qpn: q.cfg.qpn,
                side: Side::Requester,
                msn,
                addr,
                value,
            }));
        }
    }

    /// Writes a completion entry, stamped with the NIC's clock (`CQE-TS-001`), to queue
    /// `cq`: the queue's k-th entry goes to slot `k mod N` with the phase of its pass
    /// (`CQE-RING-001`), as one 32-byte write whose event carries the bytes (`CQE-RING-003`).
    /// A queue with no free slot stops, and the QPs that report to it move to the error
    /// state when the current input has been handled (`CQE-RING-004`, [`Nic::settle`]); an
    /// entry for a stopped queue is not written. With no queue (`cq` = `None`) the entry is
    /// reported without a place in memory.
    pub(super) fn write_completion(&mut self, side: Side, cq: Option<CqId>, entry: CompletionRepr) {
        // The low 32 bits of the clock, in nanoseconds; measurement only.
        let mut entry = entry.with_timestamp(self.last_now.0 as u32);
        let queue = match cq.and_then(|c| self.host.cqs.get_mut(&c)) {
            None => None,
            Some(q) if q.stopped => {
                self.stats.completions_dropped += 1;
                return;
            }
            Some(q) if q.in_use() >= q.cfg.entries => {
                q.stopped = true;
                self.host.overflowed.push(q.cfg.cq);
                self.stats.completions_dropped += 1;
                return;
            }
            Some(q) => {
                let (slot, phase) = q.ring.position(q.written);
                entry.phase = phase;
                let bytes = entry.to_bytes();
                q.written += 1;
                Some(CqWrite { cq: q.cfg.cq, slot, addr: q.cfg.slot_addr(slot), bytes })
            }
        };
        self.events.push_back(NicEvent::Completion(CompletionEvent { side, entry, queue }));
    }

    /// Finishes an input: every QP that reports to a queue that found no free slot moves
    /// to the error state (`CQE-RING-004`, `RET-ERR-002`), after the completions the input
    /// produced, so that they stay in order (`CQE-SEND-003`). The oldest pending message of
    /// each such QP, like the others, completes FLUSHED (`RET-FLUSH-001`, table 1).
    pub(super) fn settle(&mut self, now: Timestamp) {
        let mut k = 0;
        while k < self.host.overflowed.len() {
            let cq = self.host.overflowed[k];
            k += 1;
            for i in 0..self.qps.len() {
                let c = &self.qps[i].cfg;
                if c.send_cq == Some(cq) || c.recv_cq == Some(cq) {
                    self.fail_qp(now, i, CompletionStatus::FLUSHED, "CQE-RING-004");
                }
            }
        }
        self.host.overflowed.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use openrdma_codec::host::cq_position;

    /// The ring's shape places every entry where the codec's `cq_position` does.
    #[test]
    fn ring_shape_agrees_with_cq_position() {
        for entries in [1u32, 2, 8, 1 << 10, 1 << 31] {
            let cfg = CqConfig { cq: CqId::new(1), base: 0, entries };
            let ring = RingShape::of(&cfg).expect("a power of two");
            for count in [0u64, 1, 7, 8, 9, 1023, 1024, 1 << 31, (1 << 32) + 5, u64::MAX] {
                assert_eq!(
                    Some(ring.position(count)),
                    cq_position(count, entries),
                    "{entries} {count}"
                );
            }
        }
        let bad = CqConfig { cq: CqId::new(1), base: 0, entries: 6 };
        assert!(RingShape::of(&bad).is_err());
    }
}
