//! Two endpoints and the fabric between them: the one driver of a two-host run.
//!
//! A [`Fabric`] decides what becomes of each packet an endpoint sends ([`Fate`]): delivered
//! at a time (with the EV it arrives with), dropped, delivered twice, or corrupted (it
//! arrives, and the receiver's edge drops it). [`Pair`] keeps the packets in flight and
//! runs the two [`Endpoint`]s with their one drive loop: at each instant, the endpoints'
//! timers first (endpoint 0, then 1), then the packets that arrive then, in the order they
//! were sent; each input is followed by a drain of both endpoints, whose packets go to the
//! fabric and whose events go to [`Fabric::event`].
//!
//! A fabric may also rewrite what it carries ([`Fabric::carry`]: a packet written as a
//! frame and parsed back), and watch every call the pair makes on an endpoint
//! ([`Fabric::calling`]: a recording of one endpoint's half, to replay it alone).
//!
//! The packets in flight are an [`InFlight`] queue: by arrival time, and at equal times in
//! the order they were sent. A driver of its own (the scenario recorder, whose device is
//! not one of a pair) keeps its packets in one too.
//!
//! The pair tests, the fuzz targets and the model's benchmark workload plug their own
//! fabric into this driver. Nothing here reads a clock: time is the pair's own.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use openrdma_codec::Ev;
use openrdma_device::{RecoveryCpu, Timestamp};

use crate::endpoint::{Endpoint, Output};
use crate::error::ApiMisuse;
use crate::event::{NicEvent, Transmit};
use crate::nic::{HostOrPeer, Nic};
use crate::packet::Packet;
use crate::recovery::RecoveryAgent;

/// What becomes of one packet on the fabric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// It arrives at `at`, carrying `ev`.
    Deliver {
        /// Arrival time.
        at: Timestamp,
        /// The EV it arrives with (a fabric may rewrite it).
        ev: Ev,
    },
    /// It arrives at `at` and again at `again`.
    Duplicate {
        /// First arrival.
        at: Timestamp,
        /// Second arrival.
        again: Timestamp,
        /// The EV both copies carry.
        ev: Ev,
    },
    /// It never arrives.
    Drop,
    /// It arrives at `at` damaged: the receiver's edge drops it unseen (an ICRC that does
    /// not match, `RCV-FRAME-001`).
    Corrupt {
        /// Arrival time.
        at: Timestamp,
    },
}

/// A call a [`Pair`] is about to make on one of its endpoints (see [`Fabric::calling`]).
#[derive(Debug, Clone, Copy)]
pub enum Call<'a> {
    /// [`Endpoint::poll_timeout`].
    PollTimeout,
    /// [`Endpoint::handle_timeout`].
    Timeout,
    /// [`Endpoint::handle_packet`] with this EV and packet.
    Packet(Ev, &'a Packet),
    /// [`Endpoint::poll`] until it gives `None`.
    Drain,
}

/// The fabric between the two endpoints of a [`Pair`].
pub trait Fabric {
    /// The fate of `t`, sent by endpoint `from` at `now`.
    fn fate(&mut self, now: Timestamp, from: usize, t: &Transmit) -> Fate;

    /// The fate of `t` as [`Fabric::fate`] gives it, for a fabric that also rewrites the
    /// packet on its way (writes it as a frame and parses it back, say): the pair carries
    /// `t` as this leaves it. By default the packet is left as it is.
    fn carry(&mut self, now: Timestamp, from: usize, t: &mut Transmit) -> Fate {
        self.fate(now, from, t)
    }

    /// The pair is about to make `call` on endpoint `k` at `now`: every call an endpoint
    /// receives from the pair passes here first, in order. By default nothing is done.
    fn calling(&mut self, _now: Timestamp, _k: usize, _call: Call<'_>) {}

    /// An event of endpoint `k` at `now`, to record or check. By default it is dropped.
    fn event(&mut self, _now: Timestamp, _k: usize, _event: NicEvent) {}

    /// A packet about to be handed to endpoint `to` at `now`.
    fn arrive(&mut self, _now: Timestamp, _to: usize, _ev: Ev, _packet: &Packet) {}

    /// Endpoint `to` refused a packet at `now`. By default the refusal is ignored: a
    /// packet that breaks a rule is dropped, as a NIC drops it.
    fn refused(&mut self, _now: Timestamp, _to: usize, _error: HostOrPeer) {}

    /// Both endpoints have drained at `now`: a look at their NICs (memory held, say).
    fn drained(&mut self, _now: Timestamp, _nics: [&Nic; 2]) {}

    /// Endpoint `k` fired its timers at `now`, and its next deadline is `next`.
    fn fired(&mut self, _now: Timestamp, _k: usize, _next: Option<Timestamp>) {}
}

/// How a [`Pair::run`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// Nothing is due any more: no timer, no packet in flight.
    Idle,
    /// The next thing due is after the horizon.
    Horizon,
    /// The run took its most steps.
    Steps,
}

/// A packet in flight between the endpoints of a pair.
#[derive(Debug)]
struct Flight {
    to: usize,
    ev: Ev,
    packet: Packet,
    corrupt: bool,
}

/// Packets in flight, each due at its arrival time: they come out by that time and, at
/// equal times, in the order they were put in. What a packet is (a `Repr`, a frame, with
/// its destination or not) is the driver's own.
#[derive(Debug, Clone)]
pub struct InFlight<P> {
    /// (arrival, order of sending, slot).
    queue: BinaryHeap<Reverse<(Timestamp, u64, u32)>>,
    slots: Vec<Option<P>>,
    free: Vec<u32>,
    seq: u64,
}

impl<P> Default for InFlight<P> {
    fn default() -> Self {
        InFlight { queue: BinaryHeap::new(), slots: Vec::new(), free: Vec::new(), seq: 0 }
    }
}

impl<P> InFlight<P> {
    /// Nothing in flight.
    pub fn new() -> Self {
        Self::default()
    }

    /// Puts `packet` in flight, to arrive at `at` after everything already due then.
    pub fn push(&mut self, at: Timestamp, packet: P) {
        self.seq += 1;
        let slot = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(packet);
                i
            }
            None => {
                self.slots.push(Some(packet));
                (self.slots.len() - 1) as u32
            }
        };
        self.queue.push(Reverse((at, self.seq, slot)));
    }

    /// When the next packet arrives.
    pub fn next_at(&self) -> Option<Timestamp> {
        self.queue.peek().map(|Reverse((at, _, _))| *at)
    }

    /// Takes out the next packet due at or before `now`: the earliest, and among equals
    /// the first sent.
    pub fn pop_due(&mut self, now: Timestamp) -> Option<P> {
        let &Reverse((at, _, slot)) = self.queue.peek()?;
        if at > now {
            return None;
        }
        self.queue.pop();
        self.free.push(slot);
        self.slots[slot as usize].take()
    }

    /// Packets in flight.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

/// Two endpoints and a fabric. See the module documentation.
#[derive(Debug)]
pub struct Pair<F, C = RecoveryAgent> {
    /// The two endpoints.
    pub eps: [Endpoint<C>; 2],
    /// The fabric.
    pub fabric: F,
    now: Timestamp,
    flights: InFlight<Flight>,
}

impl<F: Fabric, C: RecoveryCpu> Pair<F, C> {
    /// Two endpoints joined by `fabric`, at time zero.
    pub fn new(eps: [Endpoint<C>; 2], fabric: F) -> Self {
        Pair { eps, fabric, now: Timestamp::ZERO, flights: InFlight::new() }
    }

    /// The pair's time.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// Packets in flight.
    pub fn in_flight(&self) -> usize {
        self.flights.len()
    }

    /// Drains both endpoints at the current time: packets to the fabric, events to
    /// [`Fabric::event`], until neither has anything more to say.
    ///
    /// # Errors
    ///
    /// The NIC's refusal of a command of its CPU half.
    pub fn drain(&mut self) -> Result<(), ApiMisuse> {
        let now = self.now;
        loop {
            let mut any = false;
            for k in 0..2 {
                self.fabric.calling(now, k, Call::Drain);
                while let Some(o) = self.eps[k].poll(now, true)? {
                    any = true;
                    match o {
                        Output::Transmit(t) => self.send(k, t),
                        Output::Event(e) => self.fabric.event(now, k, e),
                    }
                }
            }
            if !any {
                self.fabric.drained(now, [&self.eps[0].nic, &self.eps[1].nic]);
                return Ok(());
            }
        }
    }

    fn send(&mut self, from: usize, mut t: Transmit) {
        let to = 1 - from;
        let mut put = |at: Timestamp, ev: Ev, corrupt: bool, packet: Packet| {
            self.flights.push(at, Flight { to, ev, packet, corrupt });
        };
        match self.fabric.carry(self.now, from, &mut t) {
            Fate::Deliver { at, ev } => put(at, ev, false, t.packet),
            Fate::Duplicate { at, again, ev } => {
                put(at, ev, false, t.packet.clone());
                put(again, ev, false, t.packet);
            }
            Fate::Drop => {}
            Fate::Corrupt { at } => put(at, t.ev, true, t.packet),
        }
    }

    /// The next time something is due: a timer of either endpoint or an arrival.
    pub fn next_due(&mut self) -> Option<Timestamp> {
        let arrival = self.flights.next_at();
        let mut timers = [None; 2];
        for (k, t) in timers.iter_mut().enumerate() {
            self.fabric.calling(self.now, k, Call::PollTimeout);
            *t = self.eps[k].poll_timeout();
        }
        [arrival, timers[0], timers[1]].into_iter().flatten().min()
    }

    /// Runs until nothing is due, the next thing due is after `horizon`, or `max_steps`
    /// instants have run.
    ///
    /// # Errors
    ///
    /// The NIC's refusal of a command of its CPU half.
    pub fn run(&mut self, horizon: Timestamp, max_steps: usize) -> Result<RunEnd, ApiMisuse> {
        self.drain()?;
        for _ in 0..max_steps {
            let Some(next) = self.next_due() else { return Ok(RunEnd::Idle) };
            if next > horizon {
                return Ok(RunEnd::Horizon);
            }
            self.step(next)?;
        }
        Ok(RunEnd::Steps)
    }

    /// Runs one instant `at` (not before the pair's time): timers, then arrivals.
    fn step(&mut self, at: Timestamp) -> Result<(), ApiMisuse> {
        self.now = self.now.max(at);
        let now = self.now;
        for k in 0..2 {
            self.fabric.calling(now, k, Call::PollTimeout);
            if self.eps[k].poll_timeout().is_some_and(|t| t <= now) {
                self.fabric.calling(now, k, Call::Timeout);
                self.eps[k].handle_timeout(now)?;
                self.drain()?;
                let next = self.eps[k].poll_timeout();
                self.fabric.fired(now, k, next);
            }
        }
        while let Some(f) = self.flights.pop_due(now) {
            if f.corrupt {
                continue;
            }
            self.fabric.arrive(now, f.to, f.ev, &f.packet);
            self.fabric.calling(now, f.to, Call::Packet(f.ev, &f.packet));
            if let Err(e) = self.eps[f.to].handle_packet(now, f.ev, &f.packet) {
                self.fabric.refused(now, f.to, e);
            }
            self.drain()?;
        }
        Ok(())
    }
}
