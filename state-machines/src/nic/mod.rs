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
    CompletionRepr, CompletionStatus, DoorbellToken, FlagRepr, Template, WorkRequest, WrOpcode,
    accept_doorbell, retirement_slot,
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
use crate::sender::{AckOutcome, EvChange, EvMarkSeen, NackSeen, Requester};
use openrdma_device::{CqId, DomainId, StartState, Timestamp};

mod endpoint_ops;
mod host;
mod receive;
mod send;

pub use host::CqState;
// Siblings name them from here; their home is `error`.
pub(crate) use crate::error::{HostOrPeer, InputError};
use host::Host;

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

/// A QP's deadline in the timer heap: ordered by time, then by QP index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Deadline {
    at: Timestamp,
    /// Index of the QP in `qps`.
    qp: usize,
}

/// The QP that received the last packet, by number and index.
#[derive(Debug, Clone, Copy)]
struct LastQp {
    qpn: Qpn,
    index: usize,
}

/// The NIC's events not yet taken, in order. A driver takes every event after each input
/// (by reference, or by [`Nic::poll_event`] until it gives none), so they wait in a vector
/// read from a position, emptied when all are taken: an event is written once, where it
/// waits (`VecDeque::push_back` keeps its growth check in a function that is not inlined,
/// and the event is copied into it).
#[derive(Debug, Default)]
struct Events {
    /// The events; those before `head` are taken (`None`).
    line: Vec<Option<NicEvent>>,
    head: usize,
}

/// Taken events at the front of [`Events`] past which, when they are the larger half, they
/// are dropped: a driver that never takes every event does not make the line grow without
/// end, and one that does never pays for it (far more than one input's events).
const EVENTS_TAKEN_KEPT: usize = 4096;

impl Events {
    #[inline(always)]
    fn push_back(&mut self, e: NicEvent) {
        self.line.push(Some(e));
    }

    /// Takes the oldest event.
    #[inline]
    fn pop_front(&mut self) -> Option<NicEvent> {
        let e = self.line.get_mut(self.head)?.take();
        self.head += 1;
        if self.head == self.line.len() {
            self.clear();
        } else if self.head >= EVENTS_TAKEN_KEPT && self.head * 2 >= self.line.len() {
            self.compact();
        }
        e
    }

    /// Drops the taken events.
    #[cold]
    fn compact(&mut self) {
        self.line.drain(..self.head);
        self.head = 0;
    }

    /// Gives every event to `f` by reference, oldest first, then drops them.
    #[inline]
    fn drain(&mut self, mut f: impl FnMut(&NicEvent)) {
        for e in self.line.get(self.head..).unwrap_or_default().iter().flatten() {
            f(e);
        }
        self.clear();
    }

    /// Drops every event.
    fn clear(&mut self) {
        self.line.clear();
        self.head = 0;
    }
}

/// The earlier of two optional times; either one when the other is absent.
#[inline(always)]
fn earlier(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
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
    /// What host software set up: regions, templates, completion queues.
    host: Host,
    ctrl: VecDeque<Transmit>,
    events: Events,
    active: Ring<usize>,
    timers: BinaryHeap<Reverse<Deadline>>,
    stats: NicStats,
    /// Reused buffer of QP indices, so that retirement does not allocate.
    scratch: Vec<usize>,
    /// The QP that received the last packet.
    last_qp: Option<LastQp>,
    /// This NIC's ports that are up, port p in bit p (`EETH-PORT-001`).
    ports_up: u32,
    /// The ports of the peer, as its last `PORT_STATUS_UPDATE` reported them.
    peer_ports: Option<u32>,
    /// The counters a domain or template starts at (`CONF-ADP-021`); empty: all at 0.
    start: StartState,
}

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
            host: Host::default(),
            ctrl: VecDeque::new(),
            events: Events::default(),
            active: Ring::new(),
            timers: BinaryHeap::new(),
            stats: NicStats::default(),
            scratch: Vec::new(),
            last_qp: None,
            ports_up: 1,
            peer_ports: None,
            start: StartState::default(),
        })
    }

    /// Sets the counters that domains and templates created from now on start at, as a
    /// NIC restored from a checkpoint would hold them (`CONF-ADP-021`): a domain's MSN
    /// counter and retirement pointer, a template's expected sequence number. Call it
    /// before the first host command; domains and templates already made keep theirs.
    pub fn restore(&mut self, start: StartState) {
        self.start = start;
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

    /// The send window of QP `qpn`: its oldest unacknowledged PSN and the next PSN to send.
    pub fn send_window(&self, qpn: Qpn) -> Option<SendWindow> {
        self.qp_index.get(&qpn.value()).map(|&i| SendWindow {
            unacked: self.qps[i].req.snd_una,
            next: self.qps[i].req.snd_nxt,
        })
    }

    /// State of every EV of QP `qpn`.
    pub fn ev_states(&self, qpn: Qpn) -> Option<Vec<(Ev, EvState)>> {
        self.qp_index
            .get(&qpn.value())
            .map(|&i| self.qps[i].req.paths.evs.iter().map(|s| (s.ev, s.state)).collect())
    }

    /// The state of completion queue `cq`, if it exists.
    pub fn cq_state(&self, cq: CqId) -> Option<CqState> {
        self.host.cqs.get(&cq).map(|q| CqState {
            written: q.written,
            consumed: q.consumed,
            stopped: q.stopped,
        })
    }

    /// Whether template `id` is installed and enabled.
    pub fn template_enabled(&self, id: TemplateId) -> Option<bool> {
        self.host.templates.get(&id).map(|t| t.template.enabled)
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
                self.timers.push(Reverse(Deadline { at: t, qp: i }));
            }
        }
    }

    #[inline(always)]
    fn qp_deadline(&self, i: usize) -> Option<Timestamp> {
        let q = &self.qps[i];
        let t = earlier(q.resp.sack_deadline, q.req.rtx_deadline());
        let t = earlier(t, q.req.skip_deadline(self.cfg.skip_hold));
        earlier(t, q.req.tail_deadline())
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

    /// Handles a command from host software or the GPU.
    pub fn handle_host(&mut self, now: Timestamp, cmd: HostCommand) -> Result<(), HostError> {
        self.tick(now)?;
        let r = self.host(cmd);
        self.settle(now);
        r
    }

    /// Handles a change of link state: `up` holds this NIC's ports that are up, port p in
    /// bit p, as every endpoint response reports them (`EETH-PORT-001`).
    pub fn handle_port_status(&mut self, now: Timestamp, up: u32) -> Result<(), ApiMisuse> {
        self.tick(now)?;
        self.ports_up = up;
        Ok(())
    }

    /// Handles a command from the CPU half of recovery.
    pub fn handle_cpu(&mut self, now: Timestamp, cmd: CpuCommand) -> Result<(), ApiMisuse> {
        self.tick(now)?;
        let r = self.cpu(now, cmd);
        self.settle(now);
        r
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
        let cached = self.last_qp.filter(|l| l.qpn == qpn).map(|l| l.index);
        let Some(i) = cached.or_else(|| self.qp_idx(qpn)) else {
            self.stats.violations += 1;
            return Err(PeerViolation::UnknownQp { qpn }.into());
        };
        self.last_qp = Some(LastQp { qpn, index: i });
        if self.qps[i].in_error {
            self.stats.violations += 1;
            return Err(PeerViolation::QpInError { qpn }.into());
        }
        let r = match packet {
            Packet::Write(w) => self.on_write(now, i, ev, w),
            Packet::Sack { seth, cc_state, .. } => {
                let ts = cc_state.tx_timestamp;
                self.on_sender_input(now, i, |q| q.req.on_sack(now, seth, ts))
            }
            Packet::Nack { neth, .. } => {
                let backoff = self.cfg.nack_backoff;
                self.on_sender_input(now, i, |q| q.req.on_nack(now, neth, backoff))
            }
            Packet::Ack { aeth, .. } => {
                // SND-ACK-002: an ACK may cover only MSNs this domain has assigned.
                let next = self.domains[self.qps[i].domain].next_send_msn;
                let msn = aeth.msn.msn();
                if next.is_at_or_before(msn) {
                    Err(PeerViolation::AckBeyondSent { qpn, msn })
                } else {
                    self.on_sender_input(now, i, |q| q.req.on_aeth(now, aeth))
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
        while let Some(&Reverse(Deadline { at: t, qp: i })) = self.timers.peek() {
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
        while let Some(&Reverse(Deadline { at: t, qp: i })) = self.timers.peek() {
            match self.qp_deadline(i) {
                Some(d) if d <= t => return Some(d),
                Some(d) => {
                    // The deadline moved later: requeue it and drop the stale entry.
                    self.timers.pop();
                    self.qps[i].timer_at = Some(d);
                    self.timers.push(Reverse(Deadline { at: d, qp: i }));
                }
                None => {
                    self.timers.pop();
                    self.qps[i].timer_at = None;
                }
            }
        }
        None
    }

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
                    if let Some(resend) = next.resend() {
                        self.stats.retransmissions += 1;
                        self.events.push_back(NicEvent::Report(NicReport::Retransmitted {
                            qpn,
                            psn: next.psn(),
                            cause: resend.cause,
                            lost_ev: resend.lost_ev,
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

    /// Gives every event [`Nic::poll_event`] would give, in order, to `f` by reference,
    /// then drops them: a driver that takes them all does not move each out.
    #[inline]
    pub(crate) fn drain_events(&mut self, f: impl FnMut(&NicEvent)) {
        self.events.drain(f);
    }
}

/// The send window of a QP, as [`Nic::send_window`] reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendWindow {
    /// The oldest PSN sent and not yet acknowledged (all of it is acknowledged when this is
    /// `next`).
    pub unacked: Psn,
    /// The next new PSN to send.
    pub next: Psn,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event that says which it is.
    fn event(n: u32) -> NicEvent {
        NicEvent::Report(NicReport::Armed { qpn: Qpn::new(n & 0xFF_FFFF), snd_una: Psn::ZERO })
    }

    fn number(e: &NicEvent) -> u32 {
        match e {
            NicEvent::Report(NicReport::Armed { qpn, .. }) => qpn.value(),
            other => panic!("not an event of these tests: {other:?}"),
        }
    }

    /// Events come out in the order they went in, taken one at a time between pushes or
    /// all at once, and the line is empty once all are taken.
    #[test]
    fn events_keep_their_order() {
        let mut q = Events::default();
        let mut out = Vec::new();
        for n in 0..10 {
            q.push_back(event(n));
            if n % 3 == 2 {
                out.extend(q.pop_front().as_ref().map(number));
            }
        }
        q.drain(|e| out.push(number(e)));
        assert_eq!(out, (0..10).collect::<Vec<_>>());
        assert_eq!((q.line.len(), q.head), (0, 0));
        assert!(q.pop_front().is_none());
        q.push_back(event(11));
        q.push_back(event(12));
        assert_eq!(q.pop_front().as_ref().map(number), Some(11));
        assert_eq!(q.pop_front().as_ref().map(number), Some(12));
        assert_eq!((q.line.len(), q.head), (0, 0));
    }

    /// A driver that always leaves one event untaken does not make the line grow without
    /// end, and still takes every event in order.
    #[test]
    fn events_never_all_taken_stay_bounded() {
        let mut q = Events::default();
        q.push_back(event(0));
        let mut next = 0;
        for n in 1..(8 * EVENTS_TAKEN_KEPT as u32) {
            q.push_back(event(n));
            assert_eq!(q.pop_front().as_ref().map(number), Some(next));
            next += 1;
            if n == 100 {
                // Far fewer than the bound: kept, to be dropped at once with the rest.
                assert_eq!(q.head, 100);
            }
            assert!(q.line.len() <= 2 * EVENTS_TAKEN_KEPT + 1, "{} events kept", q.line.len());
        }
        assert_eq!(q.line.len() - q.head, 1);
        assert_eq!(q.pop_front().as_ref().map(number), Some(next));
    }

    /// Taken events past the bound are dropped as soon as they are half the line, not
    /// later.
    #[test]
    fn events_taken_are_dropped_at_half_the_line() {
        let mut q = Events::default();
        let n = 4 * EVENTS_TAKEN_KEPT as u32;
        for k in 0..n {
            q.push_back(event(k));
        }
        for k in 0..n / 2 {
            assert_eq!(q.pop_front().as_ref().map(number), Some(k));
        }
        assert_eq!((q.head, q.line.len()), (0, n as usize / 2));
        assert_eq!(q.pop_front().as_ref().map(number), Some(n / 2));
    }
}
