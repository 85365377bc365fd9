//! The discrete-event engine.
//!
//! One queue of events keyed by (time, sequence number), a radix heap
//! (the `queue` module): two events at the same time run in the order they were scheduled,
//! so a run depends on nothing but its configuration. Time is kept in picoseconds, so that the serialization of a 64-byte
//! frame at 400 Gb/s is not rounded away; the endpoints see whole nanoseconds
//! ([`Timestamp`]), which never go backwards.
//!
//! # A packet's life
//!
//! 1. The sending NIC's transmit scheduler asks its endpoint for a packet
//!    (`poll_transmit`) while the NIC's transmit buffer has room
//!    ([`NicTiming::tx_queue_depth`] packets per port). The packet's EV picks the path
//!    ([`ecmp_path`]).
//! 2. After the transmit pipeline it waits for the port of that path and is serialized
//!    at the path's rate: the NIC emits no faster than its ports.
//! 3. It enters the path's switch: the outage windows, aimed drops and the path's loss
//!    process apply here; then it joins the FIFO output queue towards its destination
//!    (tail drop above the byte limit) and is serialized again.
//! 4. It propagates for the path's delay plus skew, crosses the receive pipeline, and is
//!    handed to the destination endpoint (`handle_packet`).
//!
//! Steps 2 to 4 are the engine's fabric (`links`), an `openrdma_sm::Fabric` in
//! picoseconds: its fate for a packet handed over is a hop at the switch, after the port
//! that is busy until then (`Fate::Hop`); at the switch it decides again (a drop, or the
//! arrival time). It holds a NIC back while its ports' transmit buffers are full
//! (`Fabric::room`), and names the time they free a place (`Fabric::wake`).
//!
//! After every input the engine drains the endpoint with the model's one drive loop
//! (`openrdma_sm::Endpoint::poll`: packets, while the fabric has room for them, then
//! events, then the CPU half's commands, until a round yields nothing); then it re-arms
//! the endpoint's timer and its wake-up.
//!
//! # What is checked
//!
//! The receivers' DMA and flag writes go to the model's delivery oracle
//! (`openrdma_sm::DeliveryOracle`, in `account`), which counts duplicate placements,
//! retirements out of order, flags before their data and writes after a flag, in memory
//! bounded by the windows, whatever the length of the run. Posting the workload as the
//! senders need it is in `posting`.

mod account;
mod links;
mod posting;

use openrdma_codec::Qpn;
use openrdma_codec::host::{WorkRequest, WrOpcode};
use openrdma_sm::oracle::Violation;
use openrdma_sm::{
    DeliveryOracle, DomainId, Endpoint, Fabric, Fate, HostCommand, HostError, HostOrPeer, NicEvent,
    NicReport, Output, Packet, QpConfig, Region, RetirementMode, RetransmitCause, Side, Timestamp,
    Transmit,
};

use crate::config::{FlowConfig, NicTiming, SimConfig, SimConfigError};
use crate::hist::Histogram;
use crate::path::{LossProcess, ecmp_path, mix};
use crate::queue::EventQueue;
use crate::report::{PathReport, Retransmissions, SimReport};
use crate::wire::message_wire_bytes;
use links::{Links, PathRt};
use openrdma_codec::{Ev, Lkey, Rkey};

/// Remote key of the one region every host registers.
pub const RKEY: Rkey = Rkey::new(0x5EED);
/// First byte of that region.
pub const REGION_BASE: u64 = 1 << 32;
/// Slots of each QP's ring of retirement flags (receiver) and completion flags (sender).
pub const FLAG_SLOTS: u32 = 1024;

/// The QP number of QP `qp` of flow `flow` (the same on both hosts).
pub fn qp_number(flow: usize, qp: u32) -> Qpn {
    Qpn::new(((flow as u32 + 1) << 16) | qp)
}

fn flow_of(qpn: u32) -> Option<(usize, u32)> {
    let f = (qpn >> 16).checked_sub(1)?;
    Some((f as usize, qpn & 0xFFFF))
}

/// One NIC event as the engine took it, for experiments that need more than the
/// [`SimReport`]: per-message placement and flag times, placed PSNs. Recorded only while
/// [`Sim::tap_events`] is on; [`Sim::take_tapped`] hands them over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tapped {
    /// The host whose NIC produced the event.
    pub host: usize,
    /// When the NIC produced it, ps.
    pub at_ps: u64,
    /// When its memory write lands, ps; `None` for reports to the CPU half.
    pub lands_ps: Option<u64>,
    /// The event.
    pub event: NicEvent,
}

/// Why a simulation cannot start.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// The configuration is unusable.
    #[error(transparent)]
    Config(#[from] SimConfigError),
    /// An endpoint refused part of the set-up.
    #[error("host {host}: set-up refused: {source}")]
    Setup {
        /// The host.
        host: usize,
        /// What the endpoint said.
        source: HostError,
    },
}

/// Where a run stands, for progress displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Simulated time, ns.
    pub now_ns: u64,
    /// Messages retired so far.
    pub messages_delivered: u64,
    /// Messages of the workload.
    pub messages_submitted: u64,
    /// Packets put on the wire so far.
    pub packets_simulated: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A packet has been serialized by its host's port and enters the path's switch.
    Switch(u32),
    /// A packet reaches its destination NIC.
    Deliver(u32),
    /// A host's timer.
    Timer(u16),
    /// A host's transmit buffer has room again.
    TxWake(u16),
    /// Post message `m` of every QP of a flow (`u32::MAX`: every message).
    Post { flow: u16, m: u32 },
}

#[derive(Debug)]
struct Flight {
    /// The packet, its EV and the sending QP (local number at the source).
    t: Transmit,
    src: u16,
    dst: u16,
    /// Where it is in the fabric (`Fate::Hop`).
    hop: u64,
}

#[derive(Debug)]
struct Host {
    ep: Endpoint,
    wake_at: Option<u64>,
    timer_at: Option<u64>,
    /// When `handle_timeout` last ran.
    fired_at: Option<u64>,
    /// When the last memory write of this NIC lands (writes land in issue order).
    pcie_last: u64,
}

#[derive(Debug, Default)]
struct Counters {
    messages_delivered: u64,
    messages_completed: u64,
    messages_failed: u64,
    duplicates_delivered: u64,
    order_violations: u64,
    flag_before_data: u64,
    writes_after_flag: u64,
    peer_violations: u64,
    qp_errors: u64,
    rtx: Retransmissions,
    packets_simulated: u64,
    data_packets_sent: u64,
    payload_bytes_delivered: u64,
    peak_in_flight: u64,
    peak_model_entries: u64,
    peak_tracked: u64,
}

impl Counters {
    /// Counts a broken delivery invariant.
    fn count(&mut self, v: Violation) {
        match v {
            Violation::PlacedTwice { .. } => self.duplicates_delivered += 1,
            Violation::WriteAfterFlag { .. } => self.writes_after_flag += 1,
            Violation::OutOfOrder { .. } => self.order_violations += 1,
            Violation::FlagBeforeData { .. } => self.flag_before_data += 1,
        }
    }
}

/// A simulation: hosts, paths and workload, ready to run.
///
/// [`Sim::run`] runs to the end and returns the [`SimReport`]. To watch a run as it goes
/// (time series for plots), call [`Sim::run_until`] with increasing times and read
/// [`Sim::report`] (counters so far) and [`Sim::endpoint`] (the models' state) in
/// between; observing a run does not change it.
///
/// ```
/// use openrdma_sim::{FlowConfig, PathConfig, Sim, SimConfig};
///
/// let flow = FlowConfig { qps: 2, messages: 4, message_bytes: 8192, ..FlowConfig::default() };
/// let cfg = SimConfig::two_hosts(2, PathConfig::default(), flow);
/// let report = Sim::new(cfg).unwrap().run();
/// assert!(report.is_correct());
/// assert_eq!(report.messages_delivered, 8);
/// ```
#[derive(Debug)]
pub struct Sim {
    cfg: SimConfig,
    now: u64,
    queue: EventQueue<Kind>,
    flights: Vec<Option<Flight>>,
    free: Vec<u32>,
    in_flight: u64,
    hosts: Vec<Host>,
    /// The fabric: the hosts' ports and the paths.
    links: Links,
    qp_base: Vec<u32>,
    /// The delivery invariants, judged from the receivers' memory writes.
    oracle: DeliveryOracle,
    c: Counters,
    latency: Histogram,
    drop_latency: Histogram,
    events: u64,
    dma_ps: u64,
    flag_ps: u64,
    first_post_ps: Option<u64>,
    last_delivery_ps: u64,
    hit_horizon: bool,
    finished: bool,
    wire_limit_gbps: f64,
    submitted: u64,
    tap: Option<Vec<Tapped>>,
    /// Per flow: where its posting stands.
    posting: Vec<Posting>,
    /// Per QP (global index): its posting.
    qp_posts: Vec<QpPosts>,
}

/// How far a flow's host has posted its messages. See [`Sim`]: messages are posted as the
/// senders need them, so that memory follows what is in flight, not the workload.
#[derive(Debug, Clone, Copy, Default)]
struct Posting {
    /// Messages due per QP: `messages` once posting starts when they are all posted at
    /// once, else one more at each interval.
    due: u32,
    /// Shared retirement: the next message to post, message by message, QP by QP.
    next_m: u32,
    next_q: u32,
    /// Messages posted and not yet completed or failed, over the flow's QPs.
    pending: u64,
    /// Most messages of one QP posted and not yet completed.
    depth: u32,
}

/// One QP's posting.
#[derive(Debug, Clone, Copy, Default)]
struct QpPosts {
    /// Per-QP retirement: the next message to post.
    next_m: u32,
    /// Posted and not yet completed or failed.
    pending: u32,
    /// The NIC refused a post: the QP is in error, and its later messages fail unposted.
    dead: bool,
}

/// Most messages a flow's host keeps posted and not completed in one retirement domain.
/// Message sequence numbers are 16-bit serial numbers (RET-MSN), so a domain must never hold
/// 2^15 or more; half of that leaves room.
pub const MAX_POSTED_PER_DOMAIN: u32 = 1 << 14;

/// A workload of at most this many messages per flow is posted whole at its start (or at
/// its intervals); a larger one is posted as its messages complete.
pub const POSTED_AT_ONCE: u32 = 1 << 14;

impl Sim {
    /// Builds the hosts, creates the QPs and schedules the workload.
    pub fn new(cfg: SimConfig) -> Result<Sim, SimError> {
        cfg.validate()?;
        let timing: &NicTiming = &cfg.timing;
        let mut hosts = Vec::with_capacity(cfg.hosts);
        for h in 0..cfg.hosts {
            let mut nic = cfg.nic.clone();
            nic.seed = mix(cfg.seed, 0x200 + h as u64);
            let ep = Endpoint::new(nic, cfg.recovery.clone()).map_err(SimConfigError::Nic)?;
            hosts.push(Host { ep, wake_at: None, timer_at: None, fired_at: None, pcie_last: 0 });
        }
        let paths = cfg
            .paths
            .iter()
            .enumerate()
            .map(|(i, p)| PathRt {
                loss: LossProcess::new(p.loss, cfg.seed, i),
                ps_per_byte: 8000.0 / p.rate_gbps,
                prop_ps: (p.delay_ns + p.skew_ns).saturating_mul(1000),
                queue_bytes: p.queue_bytes,
                down: p
                    .down
                    .iter()
                    .map(|o| (o.from_ns.saturating_mul(1000), o.to_ns.saturating_mul(1000)))
                    .collect(),
                sw_busy: vec![0; cfg.hosts],
                report: PathReport::default(),
                ser_cache: [(0, 0); 2],
            })
            .collect();
        let links = Links::new(&cfg, paths);
        let mut qp_base = Vec::with_capacity(cfg.flows.len());
        let mut total_qps = 0u32;
        for f in &cfg.flows {
            qp_base.push(total_qps);
            total_qps += f.qps;
        }
        let domains = match cfg.nic.retirement {
            RetirementMode::Shared => cfg.flows.len(),
            RetirementMode::PerQp => total_qps as usize,
        };
        let mut oracle = DeliveryOracle::new(domains, cfg.nic.window());
        for f in &cfg.flows {
            for _ in 0..f.qps {
                oracle.add_qp(f.initial_psn);
            }
        }
        // The physical limit: every path busy with this workload's data packets.
        let (mut payload, mut wire) = (0f64, 0f64);
        for f in &cfg.flows {
            let (p, w) =
                message_wire_bytes(f.message_bytes, cfg.nic.pmtu, cfg.nic.timestamps, cfg.ipv6);
            let n = f64::from(f.qps) * f64::from(f.messages);
            payload += p as f64 * n;
            wire += w as f64 * n;
        }
        let rate: f64 = cfg.paths.iter().map(|p| p.rate_gbps).sum();
        let wire_limit_gbps = if wire > 0.0 { rate * payload / wire } else { 0.0 };
        let mut sim = Sim {
            now: 0,
            queue: EventQueue::new(),
            flights: Vec::new(),
            free: Vec::new(),
            in_flight: 0,
            hosts,
            links,
            qp_base,
            oracle,
            c: Counters::default(),
            latency: Histogram::new(),
            drop_latency: Histogram::new(),
            events: 0,
            dma_ps: timing.dma_write_ns.saturating_mul(1000),
            flag_ps: timing.flag_write_ns.saturating_mul(1000),
            first_post_ps: None,
            last_delivery_ps: 0,
            hit_horizon: false,
            finished: false,
            wire_limit_gbps,
            submitted: cfg.messages(),
            tap: None,
            posting: Vec::new(),
            qp_posts: vec![QpPosts::default(); total_qps as usize],
            cfg,
        };
        sim.posting = sim
            .cfg
            .flows
            .iter()
            .map(|f| Posting { depth: sim.depth(f), ..Posting::default() })
            .collect();
        sim.setup()?;
        Ok(sim)
    }

    /// EVs for global QP `g`, profile entries `ks`: entry `k` lands on path
    /// `(k + g) mod paths`, so that a profile covers the paths evenly and QPs start on
    /// different paths.
    fn make_evs(&self, g: u32, ks: core::ops::Range<u32>) -> Vec<Ev> {
        let n = self.cfg.paths.len();
        ks.map(|k| {
            let target = (k as usize + g as usize) % n;
            let hi = ((g & 0x7F) << 25) | (k << 16);
            (0..=0xFFFFu32)
                .map(|j| Ev::new(hi | j))
                .find(|&ev| ecmp_path(ev, n) == target)
                .unwrap_or(Ev::new(hi))
        })
        .collect()
    }

    fn setup(&mut self) -> Result<(), SimError> {
        let t0 = Timestamp::ZERO;
        let region = Region { rkey: RKEY, base: REGION_BASE, len: 1 << 60, remote_write: true };
        for (h, host) in self.hosts.iter_mut().enumerate() {
            host.ep
                .handle_host(t0, HostCommand::RegisterRegion(region))
                .map_err(|source| SimError::Setup { host: h, source })?;
        }
        let e = self.cfg.evs_per_qp;
        let b = self.cfg.backup_evs_per_qp;
        for f in 0..self.cfg.flows.len() {
            let fc = self.cfg.flows[f].clone();
            for q in 0..fc.qps {
                let g = self.qp_base[f] + q;
                let qpn = qp_number(f, q);
                let evs = self.make_evs(g, 0..e);
                let backup_evs = self.make_evs(g, e..e + b);
                let qp = QpConfig {
                    qpn,
                    peer_qpn: qpn,
                    initial_psn: fc.initial_psn,
                    peer_initial_psn: fc.initial_psn,
                    domain: DomainId::new(f as u32),
                    evs,
                    backup_evs,
                    spray: fc.spray,
                    cc: Default::default(),
                    recv_flag_base: 0x7000_0000_0000 + (u64::from(g) << 16),
                    recv_flag_slots: FLAG_SLOTS,
                    send_flag_base: 0x6000_0000_0000 + (u64::from(g) << 16),
                    send_flag_slots: FLAG_SLOTS,
                    send_cq: None,
                    recv_cq: None,
                };
                for h in [fc.src, fc.dst] {
                    self.hosts[h]
                        .ep
                        .handle_host(t0, HostCommand::CreateQp(qp.clone()))
                        .map_err(|source| SimError::Setup { host: h, source })?;
                }
            }
            let m = if fc.post_interval_ns == 0 { u32::MAX } else { 0 };
            if fc.messages > 0 {
                self.schedule(fc.start_ns.saturating_mul(1000), Kind::Post { flow: f as u16, m });
            }
        }
        Ok(())
    }

    fn schedule(&mut self, at: u64, kind: Kind) {
        self.queue.push(at, kind);
    }

    fn now_ts(&self) -> Timestamp {
        Timestamp(self.now / 1000)
    }

    /// The configuration.
    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }

    /// Simulated time, ns.
    pub fn now_ns(&self) -> u64 {
        self.now / 1000
    }

    /// Host `h`'s endpoint (NIC and recovery agent), to inspect.
    pub fn endpoint(&self, h: usize) -> Option<&Endpoint> {
        self.hosts.get(h).map(|x| &x.ep)
    }

    /// Starts (or stops) recording every NIC event in a [`Tapped`]; observing a run does
    /// not change it. Off by default: the record grows with the run.
    pub fn tap_events(&mut self, on: bool) {
        self.tap = if on { Some(self.tap.take().unwrap_or_default()) } else { None };
    }

    /// The events recorded since the last call.
    pub fn take_tapped(&mut self) -> Vec<Tapped> {
        self.tap.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Whether the run is over: every message completed (or failed) and the fabric empty,
    /// nothing left to do, or the horizon reached.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Runs to the end and returns the report.
    pub fn run(mut self) -> SimReport {
        self.run_with(&mut |_| {})
    }

    /// Runs to the end, calling `progress` every 65 536 events, and returns the report.
    pub fn run_with(&mut self, progress: &mut dyn FnMut(&Progress)) -> SimReport {
        while self.step() {
            if self.events % 65_536 == 0 {
                progress(&self.progress());
            }
        }
        progress(&self.progress());
        self.report()
    }

    /// Runs until simulated time `t_ns` (events at `t_ns` included) or the end. Returns
    /// whether the run can go on.
    pub fn run_until(&mut self, t_ns: u64) -> bool {
        let limit = t_ns.saturating_mul(1000);
        while !self.finished {
            match self.queue.peek_time() {
                Some(at) if at > limit => break,
                // An event due, or none left (then `step` ends the run).
                _ => {
                    self.step();
                }
            }
        }
        !self.finished
    }

    /// Where the run stands.
    pub fn progress(&self) -> Progress {
        Progress {
            now_ns: self.now_ns(),
            messages_delivered: self.c.messages_delivered,
            messages_submitted: self.submitted,
            packets_simulated: self.c.packets_simulated,
        }
    }

    /// Processes one event. Returns false when the run is over.
    pub fn step(&mut self) -> bool {
        if self.finished {
            return false;
        }
        let Some((at, kind)) = self.queue.pop() else {
            self.finished = true;
            return false;
        };
        if at > self.cfg.horizon_ns.saturating_mul(1000) {
            self.hit_horizon = true;
            self.finished = true;
            return false;
        }
        self.now = at;
        self.events += 1;
        match kind {
            Kind::Switch(slot) => self.on_switch(slot),
            Kind::Deliver(slot) => self.on_deliver(slot),
            Kind::Timer(h) => {
                let h = usize::from(h);
                if self.hosts[h].timer_at == Some(at) {
                    self.hosts[h].timer_at = None;
                }
                let now = self.now_ts();
                if self.hosts[h].ep.poll_timeout().is_some_and(|t| t <= now) {
                    self.hosts[h].fired_at = Some(at);
                    if self.hosts[h].ep.handle_timeout(now).is_err() {
                        self.c.peer_violations += 1;
                    }
                }
                self.drain(h);
            }
            Kind::TxWake(h) => {
                let h = usize::from(h);
                if self.hosts[h].wake_at == Some(at) {
                    self.hosts[h].wake_at = None;
                }
                self.drain(h);
            }
            Kind::Post { flow, m } => self.on_post(usize::from(flow), m),
        }
        let done = self.c.messages_completed + self.c.messages_failed >= self.submitted;
        if done && self.in_flight == 0 {
            self.finished = true;
        }
        !self.finished
    }

    fn alloc(&mut self, fl: Flight) -> u32 {
        self.in_flight += 1;
        self.c.peak_in_flight = self.c.peak_in_flight.max(self.in_flight);
        match self.free.pop() {
            Some(i) => {
                self.flights[i as usize] = Some(fl);
                i
            }
            None => {
                self.flights.push(Some(fl));
                (self.flights.len() - 1) as u32
            }
        }
    }

    fn release(&mut self, slot: u32) -> Option<Flight> {
        let fl = self.flights.get_mut(slot as usize)?.take()?;
        self.free.push(slot);
        self.in_flight -= 1;
        Some(fl)
    }

    /// Drains host `h`'s endpoint at the current time, then re-arms its wake-up and timer.
    fn drain(&mut self, h: usize) {
        let now_ts = self.now_ts();
        loop {
            let room = self.links.room(self.now, h);
            match self.hosts[h].ep.poll(now_ts, room) {
                Ok(Some(Output::Transmit(t))) => self.transmit(h, t),
                Ok(Some(Output::Event(ev))) => self.record(h, ev),
                Ok(None) => break,
                // A refused command of the CPU half, counted as a refused timeout is
                // (`Kind::Timer`); the drain goes on.
                Err(_) => self.c.peer_violations += 1,
            }
        }
        let now = self.now;
        let next = self.links.wake(h);
        let host = &mut self.hosts[h];
        let mut wake = None;
        if let Some(t) = next {
            if host.wake_at.is_none_or(|w| t < w) {
                host.wake_at = Some(t);
                wake = Some(t);
            }
        }
        let mut timer = None;
        if let Some(t) = host.ep.poll_timeout() {
            let mut at = t.0.saturating_mul(1000).max(now);
            if at == now && host.fired_at == Some(now) {
                // A deadline the timeout just handled did not consume: try again a
                // nanosecond later rather than spin at one instant.
                at = now + 1000;
            }
            if host.timer_at.is_none_or(|x| at < x) {
                host.timer_at = Some(at);
                timer = Some(at);
            }
        }
        if let Some(t) = wake {
            self.schedule(t, Kind::TxWake(h as u16));
        }
        if let Some(t) = timer {
            self.schedule(t, Kind::Timer(h as u16));
        }
    }

    fn transmit(&mut self, h: usize, t: Transmit) {
        let Some((f, _)) = flow_of(t.qpn.value()).filter(|(f, _)| *f < self.cfg.flows.len()) else {
            // Not a QP of the workload: nothing to route it to.
            self.c.peer_violations += 1;
            return;
        };
        let fc = &self.cfg.flows[f];
        let dst = if fc.src == h { fc.dst } else { fc.src };
        self.c.packets_simulated += 1;
        if let Packet::Write(w) = &t.packet {
            if !w.bth.rtx {
                self.c.data_packets_sent += 1;
            }
        }
        let fate = self.links.fate(self.now, h, &t);
        let hop = if let Fate::Hop { hop, .. } = fate { hop } else { 0 };
        let slot = self.alloc(Flight { t, src: h as u16, dst: dst as u16, hop });
        self.follow(slot, fate);
    }

    /// Does what the fabric decided for the packet in `slot`, whose `hop` is the fate's.
    #[inline]
    fn follow(&mut self, slot: u32, fate: Fate<u64>) {
        match fate {
            Fate::Hop { at, .. } => self.schedule(at, Kind::Switch(slot)),
            Fate::Deliver { at, .. } => self.schedule(at, Kind::Deliver(slot)),
            // The simulator's fabric neither duplicates nor corrupts.
            Fate::Drop | Fate::Duplicate { .. } | Fate::Corrupt { .. } => {
                self.release(slot);
            }
        }
    }

    fn on_switch(&mut self, slot: u32) {
        let Some(fl) = self.flights[slot as usize].as_ref() else { return };
        let fate = self.links.hop(self.now, usize::from(fl.src), fl.hop, &fl.t);
        if let Fate::Hop { hop, .. } = fate {
            if let Some(fl) = self.flights[slot as usize].as_mut() {
                fl.hop = hop;
            }
        }
        self.follow(slot, fate);
    }

    fn on_deliver(&mut self, slot: u32) {
        let Some(fl) = self.release(slot) else { return };
        let dst = usize::from(fl.dst);
        let now = self.now_ts();
        match self.hosts[dst].ep.handle_packet(now, fl.t.ev, &fl.t.packet) {
            Ok(()) => {}
            Err(HostOrPeer::Peer(_) | HostOrPeer::Misuse(_)) => self.c.peer_violations += 1,
        }
        self.drain(dst);
        if self.events % 64 == 0 {
            let e = self.hosts.iter().map(|h| h.ep.nic.peer_driven_entries()).max().unwrap_or(0);
            self.c.peak_model_entries = self.c.peak_model_entries.max(e as u64);
        }
    }
}

/// Runs `cfg` to the end.
pub fn simulate(cfg: SimConfig) -> Result<SimReport, SimError> {
    Ok(Sim::new(cfg)?.run())
}

#[cfg(test)]
mod tests;
