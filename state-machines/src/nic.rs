//! The NIC half of an endpoint: every QP's requester and responder, the registered
//! regions, the doorbell templates and the retirement domains.
//!
//! # Driving a `Nic`
//!
//! As with quinn's `Connection`, the caller owns the clock and the wire. After any
//! `handle_*` call, drain the outputs in this order:
//!
//! 1. [`Nic::poll_transmit`] until `None`: packets to put on the wire, each with its EV;
//! 2. [`Nic::poll_event`] until `None`: DMA writes, flag writes, completions, reports to
//!    the CPU half;
//! 3. [`Nic::poll_timeout`]: when to call [`Nic::handle_timeout`] next.
//!
//! `now` must never go backwards. The NIC never reads a clock, spawns a thread, or touches
//! a file, and the same inputs always give the same outputs.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rustc_hash::FxHashMap as HashMap;

use openrdma_codec::host::{
    COMPLETION_LEN, CompletionRepr, CompletionStatus, DoorbellToken, FlagRepr, Template,
    WorkRequest, WrOpcode, accept_doorbell, cq_position, retirement_slot,
};
use openrdma_codec::{
    AethRepr, BthRepr, EethRepr, EndpointOp, ErthRepr, Ev, Lkey, Msn, NackReason, NethRepr, Opcode,
    PethRepr, Psn, Qpn, Rkey, TemplateId,
};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use serde::{Deserialize, Serialize};

use crate::config::{CqConfig, NicConfig, QpConfig, RetirementMode};
use crate::error::{ApiMisuse, ConfigError, DoorbellRejected, HostError, PeerViolation};
use crate::ev::EvState;
use crate::event::{
    CompletionEvent, CpuCommand, CqWrite, DmaWrite, FlagWrite, HostCommand, LocalRegion, NicEvent,
    NicReport, Region, Side, Transmit,
};
use crate::packet::{Packet, WritePacket};
use crate::receiver::{PsnClass, Responder};
use crate::retire::{MsnPosition, RecvMsg, RetireRing, RetireTable};
use crate::ring::Ring;
use crate::sender::{Requester, SenderNotes};
use openrdma_device::{CqId, DomainId, Timestamp};

/// Counters a NIC keeps; read with [`Nic::stats`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NicStats {
    /// Data packets sent for the first time.
    pub data_packets_sent: u64,
    /// Data packets retransmitted.
    pub retransmissions: u64,
    /// SACKs sent.
    pub sacks_sent: u64,
    /// NACKs sent.
    pub nacks_sent: u64,
    /// Transport ACKs sent.
    pub acks_sent: u64,
    /// Probes sent.
    pub probes_sent: u64,
    /// Data packets accepted and placed.
    pub packets_placed: u64,
    /// Data packets that were duplicates.
    pub duplicates: u64,
    /// Data packets accepted out of order.
    pub out_of_order: u64,
    /// Messages retired (receiver).
    pub messages_retired: u64,
    /// Messages completed (sender).
    pub messages_completed: u64,
    /// Packets dropped for a peer violation.
    pub violations: u64,
    /// Completion entries not written because their completion queue was full or had
    /// stopped (`CQE-RING-004`).
    pub completions_dropped: u64,
    /// Writes to a doorbell register that carried no token, being shorter than 8 bytes,
    /// unaligned or longer than one register, and were ignored (`DB-MMIO-002`).
    pub ignored_doorbell_writes: u64,
    /// Endpoint responses sent (`ERTH-RESP-001`).
    pub endpoint_responses: u64,
}

/// A QP: its configuration, requester and responder.
#[derive(Debug)]
struct Qp {
    cfg: QpConfig,
    req: Requester,
    resp: Responder,
    domain: usize,
    in_error: bool,
    /// Whether the CPU half has been told that packets are outstanding.
    armed: bool,
    active: bool,
    /// The deadline this QP has in the timer heap, if any (entries are removed lazily).
    timer_at: Option<Timestamp>,
}

/// A retirement domain: the sender's MSN counter and the receiver's table.
#[derive(Debug)]
struct Domain {
    next_send_msn: Msn,
    /// MSNs whose entries were purged because their QP failed: retirement skips them.
    dead: Vec<Msn>,
    /// Highest MSN the peer has retired, as learnt from transport ACKs (+1 = floor).
    send_floor: Msn,
    table: RetireRing,
}

#[derive(Debug, Clone)]
struct TemplateSlot {
    template: Template,
    expected_seq: u16,
}

/// A completion queue: a ring of `entries` slots in host memory (`CQE-RING-*`).
#[derive(Debug, Clone)]
struct Cq {
    cfg: CqConfig,
    /// Entries written so far: the next entry is the k-th of `CQE-RING-001`.
    written: u64,
    /// The consumer register: entries released, modulo 2^32 (`CQE-RING-004`).
    consumed: u32,
    /// A completion found no free slot: the queue takes no more entries (`CQE-RING-004`).
    stopped: bool,
}

impl Cq {
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

/// A reference NIC.
#[derive(Debug)]
pub struct Nic {
    cfg: NicConfig,
    last_now: Timestamp,
    qps: Vec<Qp>,
    qp_index: HashMap<u32, usize>,
    domains: Vec<Domain>,
    domain_index: HashMap<DomainId, usize>,
    regions: HashMap<Rkey, Region>,
    /// Local registrations, by lkey (`TPL-KEY-001`).
    local: HashMap<Lkey, LocalRegion>,
    templates: HashMap<TemplateId, TemplateSlot>,
    cqs: HashMap<CqId, Cq>,
    /// The device error completion queue (`CQE-REJECT-002`).
    error_cq: Option<CqId>,
    /// Queues that found no free slot during the current input; the QPs that report to
    /// them move to the error state once it is handled (`CQE-RING-004`).
    overflowed: Vec<CqId>,
    ctrl: VecDeque<Transmit>,
    events: VecDeque<NicEvent>,
    active: Ring<usize>,
    timers: BinaryHeap<Reverse<(Timestamp, usize)>>,
    stats: NicStats,
    /// Reused buffer of QP indices, so that retirement does not allocate.
    scratch: Vec<usize>,
    /// The region found last (see [`Nic::region`]).
    last_region: Option<Region>,
    /// The QP number and index of the QP that received the last packet.
    last_qp: Option<(u32, usize)>,
    /// This NIC's ports that are up, port p in bit p (`EETH-PORT-001`).
    ports_up: u32,
    /// The ports of the peer, as its last `PORT_STATUS_UPDATE` reported them.
    peer_ports: Option<u32>,
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
    /// A NIC with no QPs.
    pub fn new(cfg: NicConfig) -> Result<Nic, ConfigError> {
        cfg.validate()?;
        Ok(Nic {
            cfg,
            last_now: Timestamp::ZERO,
            qps: Vec::new(),
            qp_index: HashMap::default(),
            domains: Vec::new(),
            domain_index: HashMap::default(),
            regions: HashMap::default(),
            local: HashMap::default(),
            templates: HashMap::default(),
            cqs: HashMap::default(),
            error_cq: None,
            overflowed: Vec::new(),
            ctrl: VecDeque::new(),
            events: VecDeque::new(),
            active: Ring::new(),
            timers: BinaryHeap::new(),
            stats: NicStats::default(),
            scratch: Vec::new(),
            last_region: None,
            last_qp: None,
            ports_up: 1,
            peer_ports: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &NicConfig {
        &self.cfg
    }

    /// Counters.
    pub fn stats(&self) -> &NicStats {
        &self.stats
    }

    /// This NIC's ports that are up, port p in bit p: port 0 alone until
    /// [`Nic::handle_port_status`] says otherwise.
    pub fn port_status(&self) -> u32 {
        self.ports_up
    }

    /// The peer's ports, port p in bit p, as its last `PORT_STATUS_UPDATE` reported them
    /// (`ERTH-RESP-001`), or `None` before the first.
    pub fn peer_port_status(&self) -> Option<u32> {
        self.peer_ports
    }

    /// Number of QPs.
    pub fn qp_count(&self) -> usize {
        self.qps.len()
    }

    /// Whether QP `qpn` is in the error state.
    pub fn qp_in_error(&self, qpn: Qpn) -> Option<bool> {
        self.qp_index.get(&qpn.value()).map(|&i| self.qps[i].in_error)
    }

    /// The next PSN QP `qpn` expects to receive.
    pub fn expected_psn(&self, qpn: Qpn) -> Option<Psn> {
        self.qp_index.get(&qpn.value()).map(|&i| self.qps[i].resp.epsn())
    }

    /// Oldest unacknowledged and next PSN to send of QP `qpn`.
    pub fn send_window(&self, qpn: Qpn) -> Option<(Psn, Psn)> {
        self.qp_index.get(&qpn.value()).map(|&i| (self.qps[i].req.snd_una, self.qps[i].req.snd_nxt))
    }

    /// State of every EV of QP `qpn`.
    pub fn ev_states(&self, qpn: Qpn) -> Option<Vec<(Ev, EvState)>> {
        self.qp_index
            .get(&qpn.value())
            .map(|&i| self.qps[i].req.evs.iter().map(|s| (s.ev, s.state)).collect())
    }

    /// The state of completion queue `cq`, if it exists.
    pub fn cq_state(&self, cq: CqId) -> Option<CqState> {
        self.cqs.get(&cq).map(|q| CqState {
            written: q.written,
            consumed: q.consumed,
            stopped: q.stopped,
        })
    }

    /// Whether template `id` is installed and enabled.
    pub fn template_enabled(&self, id: TemplateId) -> Option<bool> {
        self.templates.get(&id).map(|t| t.template.enabled)
    }

    /// Messages waiting to send or to complete, over all QPs.
    pub fn pending_messages(&self) -> usize {
        self.qps.iter().map(|q| q.req.pending_messages()).sum()
    }

    /// Entries of state that a peer can make grow: retirement-table entries and packets
    /// in flight. Bounded whatever the peer sends: by the window per QP, and by the
    /// capacity of a shared retirement domain (4096, `RET-CAP-001`).
    pub fn peer_driven_entries(&self) -> usize {
        self.domains.iter().map(|d| d.table.len()).sum::<usize>()
            + self.qps.iter().map(|q| q.req.outstanding() as usize).sum::<usize>()
    }

    #[inline(always)]
    fn tick(&mut self, now: Timestamp) -> Result<(), ApiMisuse> {
        self.check_time(now)?;
        self.last_now = now;
        Ok(())
    }

    /// Whether `now` may be given to the next call: not before the last call's.
    pub(crate) fn check_time(&self, now: Timestamp) -> Result<(), ApiMisuse> {
        if now < self.last_now {
            return Err(ApiMisuse::TimeWentBackwards { now: now.0, last: self.last_now.0 });
        }
        Ok(())
    }

    #[inline(always)]
    fn qp_idx(&self, qpn: Qpn) -> Option<usize> {
        self.qp_index.get(&qpn.value()).copied()
    }

    fn activate(&mut self, i: usize) {
        if !self.qps[i].active {
            self.qps[i].active = true;
            self.active.push_back(i);
        }
    }

    /// Makes sure the heap holds the QP's earliest deadline. An entry is pushed only when
    /// the deadline is earlier than the one already queued, so the heap holds at most a few
    /// entries per QP whatever the traffic.
    #[inline(always)]
    fn arm_timer(&mut self, i: usize) {
        if let Some(t) = self.qp_deadline(i) {
            let q = &mut self.qps[i];
            if q.timer_at.is_none_or(|at| t < at) {
                q.timer_at = Some(t);
                self.timers.push(Reverse((t, i)));
            }
        }
    }

    #[inline(always)]
    fn qp_deadline(&self, i: usize) -> Option<Timestamp> {
        let q = &self.qps[i];
        let mut t = q.resp.sack_deadline;
        let deadlines =
            [q.req.rtx_deadline(), q.req.skip_deadline(self.cfg.skip_hold), q.req.tail_deadline()];
        for d in deadlines.into_iter().flatten() {
            t = Some(t.map_or(d, |x| x.min(d)));
        }
        t
    }

    /// Applies one recorded input: the entry point for replaying a trace. Returns the
    /// error the corresponding `handle_*` method returned, if any.
    pub fn handle(&mut self, input: &crate::event::NicInput) -> Result<(), InputError> {
        use crate::event::NicInput;
        match input {
            NicInput::Host { at, command } => {
                self.handle_host(*at, command.clone()).map_err(InputError::Host)
            }
            NicInput::Packet { at, ev, packet } => {
                self.handle_packet(*at, *ev, packet).map_err(InputError::Packet)
            }
            NicInput::Cpu { at, command } => {
                self.handle_cpu(*at, *command).map_err(|e| InputError::Packet(e.into()))
            }
            NicInput::Timeout { at } => {
                self.handle_timeout(*at).map_err(|e| InputError::Packet(e.into()))
            }
        }
    }

    // ----- host commands -------------------------------------------------------------

    /// Handles a command from host software or the GPU.
    pub fn handle_host(&mut self, now: Timestamp, cmd: HostCommand) -> Result<(), HostError> {
        self.tick(now)?;
        let r = self.host(cmd);
        self.settle(now);
        r
    }

    fn host(&mut self, cmd: HostCommand) -> Result<(), HostError> {
        match cmd {
            HostCommand::CreateQp(cfg) => self.create_qp(cfg)?,
            HostCommand::RegisterRegion(r) => {
                if self.regions.contains_key(&r.rkey) {
                    return Err(ApiMisuse::DuplicateRegion(r.rkey).into());
                }
                self.regions.insert(r.rkey, r);
            }
            HostCommand::RegisterLocal(r) => {
                if self.local.contains_key(&r.lkey) {
                    return Err(ApiMisuse::DuplicateLocalKey(r.lkey).into());
                }
                self.local.insert(r.lkey, r);
            }
            HostCommand::DeregisterLocal { lkey } => self.deregister_local(lkey)?,
            HostCommand::SetTemplate(t) => self.set_template(t)?,
            HostCommand::CreateCq(cfg) => {
                if self.cqs.contains_key(&cfg.cq) {
                    return Err(ApiMisuse::DuplicateCq(cfg.cq).into());
                }
                if let Some(reason) = cfg.problem() {
                    return Err(ApiMisuse::BadCq { cq: cfg.cq, reason }.into());
                }
                self.cqs.insert(cfg.cq, Cq { cfg, written: 0, consumed: 0, stopped: false });
            }
            HostCommand::SetErrorCq { cq } => {
                if !self.cqs.contains_key(&cq) {
                    return Err(ApiMisuse::UnknownCq(cq).into());
                }
                self.error_cq = Some(cq);
            }
            HostCommand::CqConsumer { cq, consumed } => {
                let q = self.cqs.get_mut(&cq).ok_or(ApiMisuse::UnknownCq(cq))?;
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
        if self.qp_idx(t.qpn).is_none() {
            return Err(ApiMisuse::UnknownQp(t.qpn));
        }
        // TPL-KEY-001: the local key names registered memory that covers the local region
        // and lets the NIC read it.
        let key =
            |reason| ApiMisuse::TemplateKey { template: t.template_id, lkey: t.local_lkey, reason };
        let r = self.local.get(&t.local_lkey).ok_or_else(|| key("names no registered memory"))?;
        if !r.local_read {
            return Err(key("does not let the NIC read its memory"));
        }
        if !r.contains(t.local_base, t.local_region_len) {
            return Err(key("does not cover the template's local region"));
        }
        // TPL-INSTALL-003: disabling or re-enabling keeps the expected sequence number;
        // any other installation, under a new ID or one in use, sets it to 0.
        let expected_seq = match self.templates.get(&t.template_id) {
            Some(s) if only_enabled_differs(&s.template, &t) => s.expected_seq,
            _ => 0,
        };
        // TPL-INSTALL-002: the table entry is replaced whole, between two host inputs, so
        // every token is expanded from one version of the template.
        self.templates.insert(t.template_id, TemplateSlot { template: t, expected_seq });
        Ok(())
    }

    /// Ends a local registration. A NIC may not read under a key that has ended, so every
    /// installed template that names it is disabled first (`TPL-INSTALL-004`,
    /// `TPL-KEY-002`): its tokens are rejected as unknown until software installs it again
    /// under a valid registration. Messages already accepted are not affected; software
    /// deregisters memory only once their flags have matched.
    fn deregister_local(&mut self, lkey: Lkey) -> Result<(), ApiMisuse> {
        if self.local.remove(&lkey).is_none() {
            return Err(ApiMisuse::UnknownLocalKey(lkey));
        }
        for s in self.templates.values_mut() {
            if s.template.local_lkey == lkey {
                s.template.enabled = false;
            }
        }
        Ok(())
    }

    /// Handles a change of link state: `up` holds this NIC's ports that are up, port p in
    /// bit p, as every endpoint response reports them (`EETH-PORT-001`).
    pub fn handle_port_status(&mut self, now: Timestamp, up: u32) -> Result<(), ApiMisuse> {
        self.tick(now)?;
        self.ports_up = up;
        Ok(())
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
            if !self.cqs.contains_key(&cq) {
                return Err(ApiMisuse::UnknownCq(cq));
            }
        }
        let i = self.qps.len();
        let domain = match self.cfg.retirement {
            RetirementMode::Shared => match self.domain_index.get(&cfg.domain) {
                Some(&d) => d,
                None => {
                    let d = self.domains.len();
                    self.domains.push(Domain {
                        next_send_msn: Msn::ZERO,
                        dead: Vec::new(),
                        send_floor: Msn::ZERO,
                        table: RetireRing::new(SHARED_DOMAIN_CAPACITY, Msn::ZERO),
                    });
                    self.domain_index.insert(cfg.domain, d);
                    d
                }
            },
            RetirementMode::PerQp => {
                self.domains.push(Domain {
                    next_send_msn: Msn::ZERO,
                    dead: Vec::new(),
                    send_floor: Msn::ZERO,
                    table: RetireRing::new(self.cfg.window().min(0x7FFF) as u16, Msn::ZERO),
                });
                self.domains.len() - 1
            }
        };
        let rng = ChaCha8Rng::seed_from_u64(
            self.cfg.seed ^ (u64::from(cfg.qpn.value())).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        let req = Requester::new(&self.cfg, &cfg, rng);
        let resp = Responder::new(cfg.qpn, cfg.peer_qpn, cfg.peer_initial_psn, self.cfg.mpr);
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
        let slot = self.templates.get(&tok.template);
        let result =
            accept_doorbell(&tok, slot.map(|s| &s.template), slot.map_or(0, |s| s.expected_seq));
        match result {
            Ok(wr) => {
                let i = self.qp_idx(wr.qpn).ok_or(ApiMisuse::UnknownQp(wr.qpn))?;
                if let Some(s) = self.templates.get_mut(&tok.template) {
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
                    None => self.error_cq,
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

    // ----- CPU commands --------------------------------------------------------------

    /// Handles a command from the CPU half of recovery.
    pub fn handle_cpu(&mut self, now: Timestamp, cmd: CpuCommand) -> Result<(), ApiMisuse> {
        self.tick(now)?;
        let r = self.cpu(now, cmd);
        self.settle(now);
        r
    }

    fn cpu(&mut self, now: Timestamp, cmd: CpuCommand) -> Result<(), ApiMisuse> {
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

    fn fail_qp(
        &mut self,
        now: Timestamp,
        i: usize,
        status: CompletionStatus,
        requirement: &'static str,
    ) {
        if self.qps[i].in_error {
            return;
        }
        let qp = &mut self.qps[i];
        qp.in_error = true;
        let qpn = qp.cfg.qpn;
        let flushed = qp.req.fail();
        let mut first = true;
        for m in flushed {
            let st = if first { status } else { CompletionStatus::FLUSHED };
            first = false;
            self.complete_send(i, &m.wr, m.msn, st);
        }
        // Messages of this QP waiting to retire never will; later messages of a shared
        // domain must not wait for them (RET-ERR-001).
        let d = self.qps[i].domain;
        let purged = self.domains[d].table.purge_qp(i as u32);
        self.domains[d].dead.extend(purged);
        let ev = self.qps[i].resp.last_ev;
        self.retire(now, d, ev);
        self.events.push_back(NicEvent::Report(NicReport::QpError {
            qpn,
            requirement: requirement.to_string(),
        }));
    }

    // ----- packets -------------------------------------------------------------------

    /// Handles a packet from the wire, with the EV it arrived on. A packet that breaks the
    /// specification is dropped with the state unchanged and a [`PeerViolation`] returned;
    /// responses the specification requires (a NACK, a transport NAK) are still queued.
    pub fn handle_packet(
        &mut self,
        now: Timestamp,
        ev: Ev,
        packet: &Packet,
    ) -> Result<(), HostOrPeer> {
        self.tick(now)?;
        let r = self.packet(now, ev, packet);
        self.settle(now);
        r
    }

    fn packet(&mut self, now: Timestamp, ev: Ev, packet: &Packet) -> Result<(), HostOrPeer> {
        match packet {
            Packet::EndpointRequest { bth, erth } => {
                return self.on_endpoint_request(ev, bth, erth);
            }
            Packet::EndpointResponse { bth, eeth } => {
                return self.on_endpoint_response(ev, bth, eeth);
            }
            _ => {}
        }
        let qpn = packet.dest_qp();
        // QPs are never removed, so the index found for the previous packet stays valid.
        let cached = self.last_qp.filter(|&(n, _)| n == qpn.value()).map(|(_, i)| i);
        let Some(i) = cached.or_else(|| self.qp_idx(qpn)) else {
            self.stats.violations += 1;
            return Err(PeerViolation::UnknownQp { qpn }.into());
        };
        self.last_qp = Some((qpn.value(), i));
        if self.qps[i].in_error {
            self.stats.violations += 1;
            return Err(PeerViolation::QpInError { qpn }.into());
        }
        let r = match packet {
            Packet::Write(w) => self.on_write(now, i, ev, w),
            Packet::Sack { seth, cc_state, .. } => {
                let ts = cc_state.tx_timestamp;
                self.on_sender_input(now, i, |q, n| q.req.on_sack(now, seth, ts, n))
            }
            Packet::Nack { neth, .. } => {
                let backoff = self.cfg.nack_backoff;
                self.on_sender_input(now, i, |q, n| q.req.on_nack(now, neth, backoff, n))
            }
            Packet::Ack { aeth, .. } => {
                // SND-ACK-002: an ACK may cover only MSNs this domain has assigned.
                let next = self.domains[self.qps[i].domain].next_send_msn;
                let msn = aeth.msn.msn();
                if next.is_at_or_before(msn) {
                    Err(PeerViolation::AckBeyondSent { qpn, msn })
                } else {
                    self.on_sender_input(now, i, |q, n| q.req.on_aeth(now, aeth, n))
                }
            }
            Packet::Probe { peth, .. } => {
                self.on_probe(i, ev, peth);
                Ok(())
            }
            // Answered before any QP is looked up.
            Packet::EndpointRequest { .. } | Packet::EndpointResponse { .. } => Ok(()),
        };
        if r.is_err() {
            self.stats.violations += 1;
        }
        self.arm_timer(i);
        r.map_err(Into::into)
    }

    /// The region a remote key names. The last one found is kept aside, as a NIC keeps a
    /// key cache: regions are never changed once registered, so the copy cannot go stale.
    #[inline(always)]
    fn region(&mut self, rkey: Rkey) -> Option<Region> {
        if let Some(r) = self.last_region.filter(|r| r.rkey == rkey) {
            return Some(r);
        }
        let r = self.regions.get(&rkey).copied();
        if r.is_some() {
            self.last_region = r;
        }
        r
    }

    /// Answers an endpoint request (`ERTH-RESP-001`): at once, once, on the request's EV, to
    /// QPN 2, echoing its `op` and `request_id` (`EETH-ECHO-001`), with this NIC's ports
    /// (`EETH-PORT-001`) and 24 zero bytes of data (`EETH-DATA-001`). `PORT_STATUS_UPDATE`
    /// and `EV_PROBE` succeed; any other `op` is answered `UNSUPPORTED_OP`
    /// (`EETH-STATUS-001`, `EETH-OP-002`). A request to another QPN is discarded
    /// (`ERTH-QPN-001`).
    fn on_endpoint_request(
        &mut self,
        ev: Ev,
        bth: &BthRepr,
        erth: &ErthRepr,
    ) -> Result<(), HostOrPeer> {
        if bth.dest_qp != Qpn::ENDPOINT {
            self.stats.violations += 1;
            return Err(PeerViolation::EndpointQpn { qpn: bth.dest_qp }.into());
        }
        let status = match erth.op {
            EndpointOp::PORT_STATUS_UPDATE => {
                self.peer_ports = Some(erth.port_status);
                EethRepr::SUCCESS
            }
            // The answer, on the probe's EV, is the operation.
            EndpointOp::EV_PROBE => EethRepr::SUCCESS,
            _ => EethRepr::UNSUPPORTED_OP,
        };
        let eeth = EethRepr { status, ..EethRepr::new(erth.op, self.ports_up, erth.request_id) };
        // OPC-PSN-002: endpoint responses carry PSN 0.
        let bth = BthRepr::new(Opcode::MRC_ENDPOINT_RESPONSE, Qpn::ENDPOINT, Psn::ZERO);
        self.ctrl.push_back(Transmit {
            qpn: Qpn::ENDPOINT,
            ev,
            packet: Packet::EndpointResponse { bth, eeth },
        });
        self.stats.endpoint_responses += 1;
        Ok(())
    }

    /// Sends the endpoint request the CPU half commands (`REC-IF-017`): at once, on the
    /// EV named, to QPN 2 (`ERTH-QPN-001`) with PSN 0 (`OPC-PSN-002`), carrying this NIC's
    /// ports (`ERTH-PORT-001`) and zero reserved fields (`ERTH-RESV-001`). An operation
    /// the ERTH does not define is refused and nothing is sent (`ERTH-OP-001`).
    fn send_endpoint_request(
        &mut self,
        op: EndpointOp,
        ev: Ev,
        request_id: u32,
    ) -> Result<(), ApiMisuse> {
        if !op.is_known() {
            return Err(ApiMisuse::UnknownEndpointOp(op.0));
        }
        let erth = ErthRepr::new(op, self.ports_up, request_id);
        let bth = BthRepr::new(Opcode::MRC_ENDPOINT_REQUEST, Qpn::ENDPOINT, Psn::ZERO);
        self.ctrl.push_back(Transmit {
            qpn: Qpn::ENDPOINT,
            ev,
            packet: Packet::EndpointRequest { bth, erth },
        });
        Ok(())
    }

    /// Reports an endpoint response to the CPU half, which sent the requests and matches
    /// the answers (`REC-IF-018`); a response is never answered (`ERTH-RESP-001`). One
    /// to another QPN is discarded (`ERTH-QPN-001`).
    fn on_endpoint_response(
        &mut self,
        ev: Ev,
        bth: &BthRepr,
        eeth: &EethRepr,
    ) -> Result<(), HostOrPeer> {
        if bth.dest_qp != Qpn::ENDPOINT {
            self.stats.violations += 1;
            return Err(PeerViolation::EndpointQpn { qpn: bth.dest_qp }.into());
        }
        self.events.push_back(NicEvent::Report(NicReport::EndpointResponse {
            ev,
            op: eeth.op,
            request_id: eeth.request_id,
            status: eeth.status,
            port_status: eeth.port_status,
        }));
        Ok(())
    }

    fn on_probe(&mut self, i: usize, ev: Ev, peth: &PethRepr) {
        // EV-PROBE-004: answer with a SACK, pr = 1, the probe's EV reflected.
        let trigger = self.qps[i].resp.epsn().sub(1);
        self.send_sack(i, ev, trigger, Some(peth.probe_id), peth.tx_timestamp);
    }

    fn send_sack(&mut self, i: usize, ev: Ev, trigger: Psn, probe_id: Option<u16>, ts: u16) {
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
    fn send_ack(&mut self, i: usize, ev: Ev, nak: Option<u8>) {
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
        let bth = BthRepr::new(Opcode::MRC_ACKNOWLEDGE, q.cfg.peer_qpn, q.resp.epsn().sub(1));
        self.ctrl.push_back(Transmit { qpn: q.cfg.qpn, ev, packet: Packet::Ack { bth, aeth } });
        self.stats.acks_sent += 1;
    }

    fn on_write(
        &mut self,
        now: Timestamp,
        i: usize,
        ev: Ev,
        w: &WritePacket,
    ) -> Result<(), PeerViolation> {
        let pmtu = self.cfg.pmtu;
        let qpn = self.qps[i].cfg.qpn;
        let psn = w.bth.psn;
        let len = w.payload.len();
        let ts = w.tseth.map_or(0, |t| t.tx_timestamp);
        let offset = match self.qps[i].resp.classify(psn) {
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
                return Ok(());
            }
            PsnClass::OutOfWindow => {
                let epsn = self.qps[i].resp.epsn();
                let window = self.qps[i].resp.window;
                self.send_nack(i, ev, psn, NackReason::PSN_OOR_WINDOW, ts);
                return Err(PeerViolation::OutOfWindow { qpn, psn, epsn, window });
            }
            PsnClass::New { offset } => offset,
        };
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
        // The message: where does it stand in its retirement domain?
        let msn = w.meth.msn;
        let d = self.qps[i].domain;
        let table = &self.domains[d].table;
        let slot = match table.position(msn) {
            MsnPosition::Retired => return Err(PeerViolation::AfterRetirement { qpn, psn, msn }),
            MsnPosition::Beyond => {
                return Err(PeerViolation::MsnBeyondWindow { qpn, msn, next: table.next_msn() });
            }
            MsnPosition::Pending { offset } => offset,
        };
        let is_imm = op.has_immediate();
        if let Some(m) = table.pending(slot) {
            if m.qp != i as u32 {
                return Err(PeerViolation::MessageMismatch {
                    qpn,
                    msn,
                    what: "another QP uses this MSN",
                });
            }
            if m.total != w.reth.dma_len {
                return Err(PeerViolation::MessageMismatch {
                    qpn,
                    msn,
                    what: "RETH.dma_len differs between packets",
                });
            }
            if m.placed + len > m.total {
                return Err(PeerViolation::MessageMismatch {
                    qpn,
                    msn,
                    what: "more payload than RETH.dma_len",
                });
            }
        } else if len > w.reth.dma_len {
            return Err(PeerViolation::MessageMismatch {
                qpn,
                msn,
                what: "more payload than RETH.dma_len",
            });
        }
        if is_imm && w.immdt.is_none() {
            return Err(PeerViolation::MessageMismatch {
                qpn,
                msn,
                what: "Write-with-Immediate without ImmDt",
            });
        }
        let limit = self.cfg.wwi_limit;
        let rq_ahead = w.meth.rqmsn.forward_from(self.qps[i].resp.delivered_rqmsn);
        if is_last && is_imm && rq_ahead > limit && rq_ahead < 0x8000 {
            self.send_nack(i, ev, psn, NackReason::UNEXP_EVENT, ts);
            self.fail_qp(now, i, CompletionStatus::FATAL_NACK, "WWI-LIMIT-002");
            return Err(PeerViolation::WwiLimit { qpn, rqmsn: w.meth.rqmsn, limit });
        }

        // Accept: every check passed; from here on the state changes.
        let out_of_order = self.qps[i].resp.accept(offset, len);
        self.stats.packets_placed += 1;
        if out_of_order {
            self.stats.out_of_order += 1;
        }
        let m = self.domains[d].table.pending_or_insert(slot, || RecvMsg {
            qp: i as u32,
            qpn,
            total: w.reth.dma_len,
            placed: 0,
            last_seen: false,
            imm: None,
            rqmsn: w.meth.rqmsn,
        });
        m.placed += len;
        m.last_seen |= is_last;
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
        Ok(())
    }

    /// Retires every complete message at the head of domain `d` (RET-ORDER-001).
    #[inline(always)]
    fn retire(&mut self, now: Timestamp, d: usize, ev: Ev) {
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

    fn on_sender_input(
        &mut self,
        now: Timestamp,
        i: usize,
        f: impl FnOnce(&mut Qp, &mut SenderNotes) -> Result<(), PeerViolation>,
    ) -> Result<(), PeerViolation> {
        let mut notes = SenderNotes::default();
        f(&mut self.qps[i], &mut notes)?;
        let qpn = self.qps[i].cfg.qpn;
        // Most inputs (a SACK moving the cumulative point) note nothing but progress: test
        // for emptiness before iterating.
        if !notes.marks.is_empty() {
            for &(ev, mark) in &notes.marks {
                self.events.push_back(NicEvent::Report(NicReport::EvMarked { qpn, ev, mark }));
            }
        }
        if !notes.ev_changes.is_empty() {
            for &(ev, state) in &notes.ev_changes {
                self.events.push_back(NicEvent::Report(NicReport::EvState { qpn, ev, state }));
            }
        }
        if !notes.probe_answers.is_empty() {
            for &(ev, mark) in &notes.probe_answers {
                self.events.push_back(NicEvent::Report(NicReport::ProbeAnswered { qpn, ev, mark }));
            }
        }
        if let Some((psn, reason)) = notes.nack {
            self.events.push_back(NicEvent::Report(NicReport::Nack { qpn, psn, reason }));
        }
        let d = self.qps[i].domain;
        for m in core::mem::take(&mut notes.completed) {
            let dom = &mut self.domains[d];
            if dom.send_floor.is_at_or_before(m.msn) {
                dom.send_floor = m.msn.next();
            }
            self.stats.messages_completed += 1;
            self.complete_send(i, &m.wr, m.msn, CompletionStatus::SUCCESS);
        }
        if let Some(req) = notes.fatal {
            // CQE-STATUS-002: a transport NAK's code gives the status; a fatal NACK gives
            // FATAL_NACK.
            let status = match notes.nak_syndrome {
                Some(syn) => CompletionStatus::from_aeth_nak(syn)
                    .unwrap_or(CompletionStatus::REMOTE_OP_ERROR),
                None => CompletionStatus::FATAL_NACK,
            };
            self.fail_qp(now, i, status, req);
        } else if notes.progressed {
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

    /// Sender completion: completion entry (if signaled or failed) and completion flag.
    fn complete_send(&mut self, i: usize, wr: &WorkRequest, msn: Msn, status: CompletionStatus) {
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

    // ----- completion queues ---------------------------------------------------------

    /// Writes a completion entry, stamped with the NIC's clock (`CQE-TS-001`), to queue
    /// `cq`: the queue's k-th entry goes to slot `k mod N` with the phase of its pass
    /// (`CQE-RING-001`), as one 32-byte write whose event carries the bytes (`CQE-RING-003`).
    /// A queue with no free slot stops, and the QPs that report to it move to the error
    /// state when the current input has been handled (`CQE-RING-004`, [`Nic::settle`]); an
    /// entry for a stopped queue is not written. With no queue (`cq` = `None`) the entry is
    /// reported without a place in memory.
    fn write_completion(&mut self, side: Side, cq: Option<CqId>, entry: CompletionRepr) {
        // The low 32 bits of the clock, in nanoseconds; measurement only.
        let mut entry = entry.with_timestamp(self.last_now.0 as u32);
        let queue = match cq.and_then(|c| self.cqs.get_mut(&c)) {
            None => None,
            Some(q) if q.stopped => {
                self.stats.completions_dropped += 1;
                return;
            }
            Some(q) if q.in_use() >= q.cfg.entries => {
                q.stopped = true;
                self.overflowed.push(q.cfg.cq);
                self.stats.completions_dropped += 1;
                return;
            }
            Some(q) => {
                let Some((slot, phase)) = cq_position(q.written, q.cfg.entries) else {
                    // Unreachable: CqConfig::problem admits only powers of two.
                    return;
                };
                entry.phase = phase;
                let mut bytes = [0u8; COMPLETION_LEN];
                if entry.emit(&mut bytes).is_err() {
                    // Unreachable: the model sets no reserved bit.
                    return;
                }
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
    fn settle(&mut self, now: Timestamp) {
        let mut k = 0;
        while k < self.overflowed.len() {
            let cq = self.overflowed[k];
            k += 1;
            for i in 0..self.qps.len() {
                let c = &self.qps[i].cfg;
                if c.send_cq == Some(cq) || c.recv_cq == Some(cq) {
                    self.fail_qp(now, i, CompletionStatus::FLUSHED, "CQE-RING-004");
                }
            }
        }
        self.overflowed.clear();
    }

    // ----- time ----------------------------------------------------------------------

    /// Handles the passing of time: SACK timers, delayed retransmissions, SKIP expiry, tail
    /// probes.
    pub fn handle_timeout(&mut self, now: Timestamp) -> Result<(), ApiMisuse> {
        self.tick(now)?;
        self.timeout(now);
        self.settle(now);
        Ok(())
    }

    fn timeout(&mut self, now: Timestamp) {
        let mut due = core::mem::take(&mut self.scratch);
        while let Some(&Reverse((t, i))) = self.timers.peek() {
            if t > now {
                break;
            }
            self.timers.pop();
            if self.qps[i].timer_at == Some(t) {
                self.qps[i].timer_at = None;
            }
            if !self.qps[i].in_error && !due.contains(&i) {
                due.push(i);
            }
        }
        // Every deadline that has passed is consumed here, so re-arming below only ever
        // queues deadlines in the future.
        let hold = self.cfg.skip_hold;
        for &i in &due {
            let qpn = self.qps[i].cfg.qpn;
            for ev in self.qps[i].req.on_timeout(now, hold) {
                self.events.push_back(NicEvent::Report(NicReport::EvState {
                    qpn,
                    ev,
                    state: EvState::Good,
                }));
            }
            self.qps[i].req.on_tail_timeout(now);
            let q = &self.qps[i].resp;
            if q.sack_deadline.is_some_and(|d| d <= now) {
                let (ev, ts, trigger) = (q.last_ev, q.last_ts, q.last_psn);
                if q.unacked > 0 {
                    self.send_sack(i, ev, trigger, None, ts);
                }
                if self.qps[i].resp.retired_unacked > 0 {
                    self.send_ack(i, ev, None);
                }
                // RCV-SACK-004: the timer has run; the next write waiting starts it again.
                self.qps[i].resp.sack_deadline = None;
            }
            self.activate(i);
            self.arm_timer(i);
        }
        due.clear();
        self.scratch = due;
    }

    /// When [`Nic::handle_timeout`] should be called next, if ever.
    pub fn poll_timeout(&mut self) -> Option<Timestamp> {
        while let Some(&Reverse((t, i))) = self.timers.peek() {
            match self.qp_deadline(i) {
                Some(d) if d <= t => return Some(d),
                Some(d) => {
                    // The deadline moved later: requeue it and drop the stale entry.
                    self.timers.pop();
                    self.qps[i].timer_at = Some(d);
                    self.timers.push(Reverse((d, i)));
                }
                None => {
                    self.timers.pop();
                    self.qps[i].timer_at = None;
                }
            }
        }
        None
    }

    // ----- outputs -------------------------------------------------------------------

    /// The next packet to put on the wire.
    pub fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit> {
        if let Some(t) = self.ctrl.pop_front() {
            return Some(t);
        }
        let now = now.max(self.last_now);
        while let Some(i) = self.active.pop_front() {
            let q = &mut self.qps[i];
            if q.in_error || !q.req.has_work(now) {
                q.active = false;
                if q.req.rtx_deadline().is_some() || q.req.tail_deadline().is_some() {
                    self.arm_timer(i);
                }
                continue;
            }
            match q.req.next_packet(now) {
                Some(next) => {
                    let qpn = q.cfg.qpn;
                    let is_data = next.is_data();
                    if next.is_rtx() {
                        self.stats.retransmissions += 1;
                        let cause = q
                            .req
                            .last_cause
                            .take()
                            .unwrap_or(crate::event::RetransmitCause::Timeout);
                        let lost_ev = q.req.last_lost_ev.take();
                        self.events.push_back(NicEvent::Report(NicReport::Retransmitted {
                            qpn,
                            psn: next.psn(),
                            cause,
                            lost_ev,
                        }));
                    } else if is_data {
                        self.stats.data_packets_sent += 1;
                    } else {
                        self.stats.probes_sent += 1;
                    }
                    // REC-RTO-001: the CPU's timer runs while data is outstanding; a probe
                    // consumes no PSN and arms nothing.
                    if is_data && (next.first || !q.armed) {
                        q.armed = true;
                        let snd_una = q.req.snd_una;
                        self.events.push_back(NicEvent::Report(NicReport::Armed { qpn, snd_una }));
                    }
                    self.active.push_back(i);
                    let packet = self.qps[i].req.packet(&next, now);
                    return Some(Transmit { qpn, ev: next.ev, packet });
                }
                None => {
                    q.active = false;
                    self.arm_timer(i);
                }
            }
        }
        None
    }

    /// The next event (DMA write, flag write, completion or report).
    pub fn poll_event(&mut self) -> Option<NicEvent> {
        self.events.pop_front()
    }
}

/// An error from [`Nic::handle`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// From a host command.
    #[error(transparent)]
    Host(HostError),
    /// From a packet, a CPU command or a timeout.
    #[error(transparent)]
    Packet(HostOrPeer),
}

/// An error from [`Nic::handle_packet`]: the peer broke a rule, or the caller did.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostOrPeer {
    /// The peer broke the specification.
    #[error(transparent)]
    Peer(#[from] PeerViolation),
    /// The caller broke the contract.
    #[error(transparent)]
    Misuse(#[from] ApiMisuse),
}

impl HostOrPeer {
    /// The requirement ID of the broken rule.
    pub fn requirement(&self) -> &'static str {
        match self {
            HostOrPeer::Peer(p) => p.requirement(),
            HostOrPeer::Misuse(m) => m.requirement(),
        }
    }
}
