//! Two endpoints and the fabric between them: the one driver of a two-host run.
//!
//! A [`Fabric`] decides what becomes of each packet an endpoint sends ([`Fate`]): delivered
//! at a time (with the EV it arrives with), dropped, delivered twice, corrupted (it
//! arrives, and the receiver's edge drops it), or sent on to a hop inside the fabric where
//! the fabric decides again (a switch behind a link that is busy until then). A fabric may
//! also hold an endpoint back while its links are full ([`Fabric::room`]) until a time it
//! names ([`Fabric::wake`]). A fabric's time is its own: a pair's is the endpoints'
//! [`Timestamp`], the simulator's fabric counts picoseconds and drives its own hosts.
//! [`Pair`] keeps the packets in flight and
//! runs the two [`Endpoint`]s with their one drive loop: at each instant, the endpoints'
//! timers first (endpoint 0, then 1), then the packets that arrive then, in the order they
//! were sent; each input is followed by a drain of both endpoints, whose packets go to the
//! fabric and whose events go to [`Fabric::event`]. (An endpoint already drained at that
//! instant and given nothing since is not polled again: it would give nothing.) A fabric
//! may ask for the arrivals of an instant in one batch, drained once after all of them
//! ([`Fabric::batch`]), as a NIC that takes its received packets in batches.
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
//! fabric into this driver; the scenario recorder and the simulator decide their packets'
//! fates with their own fabrics. Nothing here reads a clock: time is the pair's own.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use openrdma_codec::Ev;
use openrdma_device::{RecoveryCpu, Timestamp};

use crate::endpoint::{Endpoint, Output, Sink, Took, show_report};
use crate::error::ApiMisuse;
use crate::event::{NicEvent, Transmit};
use crate::nic::{HostOrPeer, Nic};
use crate::packet::Packet;
use crate::recovery::RecoveryAgent;

/// What becomes of one packet on the fabric. Times are the fabric's (`T`): a [`Pair`]'s
/// are [`Timestamp`]s, a simulator may count finer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate<T = Timestamp> {
    /// It arrives at `at`, carrying `ev`.
    Deliver {
        /// Arrival time.
        at: T,
        /// The EV it arrives with (a fabric may rewrite it).
        ev: Ev,
    },
    /// It arrives at `at` and again at `again`.
    Duplicate {
        /// First arrival.
        at: T,
        /// Second arrival.
        again: T,
        /// The EV both copies carry.
        ev: Ev,
    },
    /// It never arrives.
    Drop,
    /// It arrives at `at` damaged: the receiver's edge drops it unseen (an ICRC that does
    /// not match, `RCV-FRAME-001`).
    Corrupt {
        /// Arrival time.
        at: T,
    },
    /// It reaches a hop inside the fabric at `at` (a switch, once the busy link before it
    /// has serialized it), where [`Fabric::hop`] decides the rest of its fate.
    Hop {
        /// When it reaches the hop.
        at: T,
        /// The fabric's own note of where the packet is, given back to [`Fabric::hop`].
        hop: u64,
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

/// What decides the fate of every packet an endpoint sends: the fabric between the
/// endpoints of a [`Pair`], or a simulator's network, whose time `T` may be finer than a
/// [`Timestamp`].
///
/// A fabric answers at the packet's sending ([`Fabric::fate`]) and, if it gave
/// [`Fate::Hop`], again at each hop ([`Fabric::hop`]): a link busy until a later time, a
/// switch that queues, drops or forwards. It may hold an endpoint back while its links are
/// full ([`Fabric::room`], [`Fabric::wake`]): the endpoint then keeps its packets. Every
/// other method is a hook with a default that does nothing.
pub trait Fabric<T = Timestamp> {
    /// The fate of `t`, sent by endpoint `from` at `now`.
    fn fate(&mut self, now: T, from: usize, t: &Transmit) -> Fate<T>;

    /// The rest of the fate of `t`, sent by endpoint `from`, which reached the hop `hop`
    /// (of a [`Fate::Hop`]) at `now`. Only a fabric that gives [`Fate::Hop`] is asked; by
    /// default the packet is dropped.
    fn hop(&mut self, _now: T, _from: usize, _hop: u64, _t: &Transmit) -> Fate<T> {
        Fate::Drop
    }

    /// Whether endpoint `from` may hand the fabric another packet at `now` (its links'
    /// transmit buffers have room). By default always.
    fn room(&mut self, _now: T, _from: usize) -> bool {
        true
    }

    /// When endpoint `from`, refused [`Fabric::room`], may have room again. By default
    /// never: room is never refused.
    fn wake(&self, _from: usize) -> Option<T> {
        None
    }

    /// The fate of `t` as [`Fabric::fate`] gives it, for a fabric that also rewrites the
    /// packet on its way (writes it as a frame and parses it back, say): the pair carries
    /// `t` as this leaves it. By default the packet is left as it is.
    fn carry(&mut self, now: T, from: usize, t: &mut Transmit) -> Fate<T> {
        self.fate(now, from, t)
    }

    /// Whether the pair drains the endpoints once after all the packets that arrive at an
    /// instant, as a NIC that takes its received packets in batches, rather than after
    /// each (the default).
    fn batch(&self) -> bool {
        false
    }

    /// The pair is about to make `call` on endpoint `k` at `now`: every call an endpoint
    /// receives from the pair passes here first, in order. By default nothing is done.
    fn calling(&mut self, _now: T, _k: usize, _call: Call<'_>) {}

    /// An event of endpoint `k` at `now`, to record or check (cloned, to keep it). By
    /// default nothing is done.
    fn event(&mut self, _now: T, _k: usize, _event: &NicEvent) {}

    /// A packet about to be handed to endpoint `to` at `now`.
    fn arrive(&mut self, _now: T, _to: usize, _ev: Ev, _packet: &Packet) {}

    /// Endpoint `to` refused a packet at `now`. By default the refusal is ignored: a
    /// packet that breaks a rule is dropped, as a NIC drops it.
    fn refused(&mut self, _now: T, _to: usize, _error: HostOrPeer) {}

    /// Both endpoints have drained at `now`: a look at their NICs (memory held, say).
    fn drained(&mut self, _now: T, _nics: [&Nic; 2]) {}

    /// Endpoint `k` fired its timers at `now`, and its next deadline is `next`.
    fn fired(&mut self, _now: T, _k: usize, _next: Option<T>) {}
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

/// A packet in flight between the endpoints of a pair (kept small: it is moved once per
/// packet).
#[derive(Debug)]
struct Flight {
    /// The packet, with the EV it arrives with. `None` only in a slot that was staged for
    /// a packet the NIC did not have ([`Drain::transmit`]), which is never put in flight.
    t: Option<Transmit>,
    /// The fabric's note of the hop it reaches first, with [`Way::Hop`].
    hop: u64,
    /// The endpoint it is on its way to.
    to: u8,
    way: Way,
}

/// What a packet in flight reaches when it is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// Its endpoint, intact.
    Arrive,
    /// Its endpoint, damaged: dropped at the edge ([`Fate::Corrupt`]).
    Corrupt,
    /// A hop inside the fabric ([`Fate::Hop`]).
    Hop,
}

/// Packets in flight, each due at its arrival time: they come out by that time and, at
/// equal times, in the order they were put in. What a packet is (a `Repr`, a frame, with
/// its destination or not) is the driver's own.
///
/// A packet due no earlier than the last one put in (the usual case: a fabric whose delays
/// do not shrink) waits in a first-in first-out line, a ring of slots; the others, which
/// overtake it, wait in slots that are reused, ordered by a heap. The next packet is the
/// earlier of the two heads, by (time, order put in). A packet is moved once on its way in
/// and handed over where it waits ([`InFlight::peek_due`]), then dropped there
/// ([`InFlight::discard_next`]).
#[derive(Debug, Clone)]
pub struct InFlight<P> {
    /// The line: a ring whose length is zero or a power of two.
    ring: Vec<Option<Waiting<P>>>,
    /// The slot of the line's first packet.
    head: usize,
    /// Packets in the line.
    len: usize,
    /// The arrival of the line's last packet, when it has one.
    last: Timestamp,
    /// (arrival, order put in, slot) of the packets that overtake the line's last one.
    heap: BinaryHeap<Reverse<(Timestamp, u64, u32)>>,
    /// The packets of the heap.
    slots: Vec<Option<P>>,
    free: Vec<u32>,
    seq: u64,
}

/// A packet of the line, with its arrival and its order put in.
#[derive(Debug, Clone)]
struct Waiting<P> {
    at: Timestamp,
    seq: u64,
    packet: P,
}

/// Where the next packet of an [`InFlight`] waits.
#[derive(Debug, Clone, Copy)]
enum Head {
    /// At the front of the line.
    Line,
    /// In this slot, at the top of the heap.
    Heap(u32),
}

impl<P> Default for InFlight<P> {
    fn default() -> Self {
        InFlight {
            ring: Vec::new(),
            head: 0,
            len: 0,
            last: Timestamp::ZERO,
            heap: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            seq: 0,
        }
    }
}

impl<P> InFlight<P> {
    /// Nothing in flight.
    pub fn new() -> Self {
        Self::default()
    }

    /// The slot of the line's `i`-th packet.
    #[inline(always)]
    fn at(&self, i: usize) -> usize {
        (self.head + i) & (self.ring.len().wrapping_sub(1))
    }

    /// The line's packet `i` (fewer than `len`).
    #[inline(always)]
    fn waiting(&self, i: usize) -> Option<&Waiting<P>> {
        self.ring.get(self.at(i)).and_then(Option::as_ref)
    }

    /// Puts `packet` in flight, to arrive at `at` after everything already due then.
    #[inline(always)]
    pub fn push(&mut self, at: Timestamp, packet: P) {
        let (seq, slot) = self.staged();
        *slot = Some(Waiting { at, seq, packet });
        self.commit(at);
    }

    /// The slot after the line's last, where a packet is staged before it is put in
    /// flight ([`InFlight::commit`]), with the order it is put in (one more than the
    /// last staged): the caller writes it there, with its arrival and that order, or
    /// leaves it to be dropped when the slot is reused. (Orders left unused only leave
    /// gaps: the order of the others is kept.)
    #[inline(always)]
    fn staged(&mut self) -> (u64, &mut Option<Waiting<P>>) {
        // `>=`, not `==`: the ring is then known not to be empty, and the slot in it.
        if self.len >= self.ring.len() {
            self.grow();
        }
        self.seq += 1;
        let i = self.at(self.len);
        (self.seq, &mut self.ring[i])
    }

    /// Puts the packet staged in [`InFlight::staged`], due at `at`, in flight, after
    /// everything already due then.
    #[inline(always)]
    fn commit(&mut self, at: Timestamp) {
        if self.len == 0 || self.last <= at {
            self.len += 1;
            self.last = at;
            return;
        }
        // It overtakes the line's last: it waits in the heap instead.
        let i = self.at(self.len);
        let Some(Waiting { packet, .. }) = self.ring[i].take() else { return };
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
        self.heap.push(Reverse((at, self.seq, slot)));
    }

    /// Doubles the line's ring (at least 16 slots), its packets first in the new one, with
    /// a free slot after them.
    #[cold]
    fn grow(&mut self) {
        let size = (self.ring.len() * 2).max(16);
        let mut ring: Vec<Option<Waiting<P>>> = Vec::with_capacity(size);
        for k in 0..self.len {
            let i = self.at(k);
            ring.push(self.ring[i].take());
        }
        ring.resize_with(size, || None);
        self.ring = ring;
        self.head = 0;
    }

    /// The arrival of the next packet, and where it waits.
    #[inline(always)]
    fn next(&self) -> Option<(Timestamp, Head)> {
        let line = match self.len {
            0 => None,
            _ => self.waiting(0),
        };
        let Some(&Reverse((at, seq, slot))) = self.heap.peek() else {
            return line.map(|w| (w.at, Head::Line));
        };
        match line {
            Some(w) if (w.at, w.seq) < (at, seq) => Some((w.at, Head::Line)),
            _ => Some((at, Head::Heap(slot))),
        }
    }

    /// When the next packet arrives.
    #[inline]
    pub fn next_at(&self) -> Option<Timestamp> {
        self.next().map(|(at, _)| at)
    }

    /// Takes out the next packet due at or before `now`: the earliest, and among equals
    /// the first sent.
    #[inline]
    pub fn pop_due(&mut self, now: Timestamp) -> Option<P> {
        let (at, head) = self.next()?;
        if at > now {
            return None;
        }
        match head {
            Head::Line => {
                let w = self.ring[self.head].take();
                self.advance();
                w.map(|w| w.packet)
            }
            Head::Heap(slot) => {
                self.heap.pop();
                self.free.push(slot);
                self.slots[slot as usize].take()
            }
        }
    }

    /// The line's first packet has left: the next one is first.
    #[inline(always)]
    fn advance(&mut self) {
        self.head = self.at(1);
        self.len -= 1;
    }

    /// The next packet if it is due at or before `now` (the one [`InFlight::pop_due`]
    /// would take out), left where it waits.
    #[inline(always)]
    pub fn peek_due(&self, now: Timestamp) -> Option<&P> {
        self.due(now).map(|(p, _)| p)
    }

    /// [`InFlight::peek_due`], with where the packet waits.
    #[inline(always)]
    fn due(&self, now: Timestamp) -> Option<(&P, Head)> {
        // As `next`, but the line's first packet is looked up once (this runs per packet).
        let line = match self.len {
            0 => None,
            _ => self.waiting(0),
        };
        if let Some(&Reverse((at, seq, slot))) = self.heap.peek() {
            if line.is_none_or(|w| (w.at, w.seq) >= (at, seq)) {
                if at > now {
                    return None;
                }
                return self.slots[slot as usize].as_ref().map(|p| (p, Head::Heap(slot)));
            }
        }
        line.filter(|w| w.at <= now).map(|w| (&w.packet, Head::Line))
    }

    /// Hands the line's packets due at or before `now` to `take`, in order, each dropped
    /// where it waits once taken, while no packet waits in the heap (which might come
    /// first) and `take` takes them (gives `true`). The line's place is kept in locals
    /// meanwhile: `take` cannot put a packet in flight, so nothing moves.
    #[inline(always)]
    fn take_line_due(&mut self, now: Timestamp, mut take: impl FnMut(&P) -> bool) {
        if !self.heap.is_empty() {
            return;
        }
        let mask = self.ring.len().wrapping_sub(1);
        let (mut head, mut len) = (self.head, self.len);
        while len > 0 {
            let Some(Some(w)) = self.ring.get(head) else { break };
            if w.at > now || !take(&w.packet) {
                break;
            }
            head = (head + 1) & mask;
            len -= 1;
        }
        (self.head, self.len) = (head, len);
    }

    /// Drops the next packet, due or not, where it waits.
    #[inline(always)]
    pub fn discard_next(&mut self) {
        if let Some((_, head)) = self.next() {
            self.discard(head);
        }
    }

    /// Drops the packet at `head`, the next one, where it waits.
    #[inline(always)]
    fn discard(&mut self, head: Head) {
        match head {
            // Left in its slot, and dropped when the slot is reused: clearing it would
            // write the whole slot.
            Head::Line => self.advance(),
            Head::Heap(slot) => {
                self.heap.pop();
                self.free.push(slot);
                self.slots[slot as usize] = None;
            }
        }
    }

    /// Packets in flight.
    pub fn len(&self) -> usize {
        self.len + self.heap.len()
    }

    /// Whether nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.len == 0 && self.heap.is_empty()
    }
}

impl InFlight<Flight> {
    /// [`InFlight::staged`] for a packet the pair sends to endpoint `to`, its order put in
    /// written: the packet is still to be written there (the NIC's packet is moved once,
    /// from where the NIC gave it, into the slot), then its arrival.
    #[inline(always)]
    fn stage_flight(&mut self, to: u8) -> &mut Waiting<Flight> {
        let (seq, slot) = self.staged();
        let w = match slot {
            Some(w) => w,
            slot => {
                let f = Flight { t: None, hop: 0, to, way: Way::Arrive };
                slot.insert(Waiting { at: Timestamp::ZERO, seq, packet: f })
            }
        };
        w.seq = seq;
        // The hop is read only on the way to a hop, where it is written.
        (w.packet.to, w.packet.way) = (to, Way::Arrive);
        w
    }
}

/// Puts `t`, on its way to endpoint `to`, in flight as `fate` says.
#[inline(always)]
fn put(flights: &mut InFlight<Flight>, to: usize, mut t: Transmit, fate: Fate) {
    let to = to as u8;
    match fate {
        Fate::Deliver { at, ev } => {
            t.ev = ev;
            flights.push(at, Flight { t: Some(t), hop: 0, to, way: Way::Arrive });
        }
        Fate::Duplicate { at, again, ev } => {
            t.ev = ev;
            flights.push(at, Flight { t: Some(t.clone()), hop: 0, to, way: Way::Arrive });
            flights.push(again, Flight { t: Some(t), hop: 0, to, way: Way::Arrive });
        }
        Fate::Drop => {}
        Fate::Corrupt { at } => {
            flights.push(at, Flight { t: Some(t), hop: 0, to, way: Way::Corrupt });
        }
        Fate::Hop { at, hop } => flights.push(at, Flight { t: Some(t), hop, to, way: Way::Hop }),
    }
}

/// Hands `f`, due at `now`, to its endpoint if it arrives intact, and gives that
/// endpoint; gives `None`, and leaves it, when it is corrupt or reaches a hop instead.
#[inline(always)]
fn hand_over<F: Fabric, C: RecoveryCpu>(
    eps: &mut [Endpoint<C>; 2],
    fabric: &mut F,
    now: Timestamp,
    f: &Flight,
) -> Option<usize> {
    let (Way::Arrive, Some(t)) = (f.way, &f.t) else { return None };
    let (to, ev, packet) = (usize::from(f.to & 1), t.ev, &t.packet);
    fabric.arrive(now, to, ev, packet);
    fabric.calling(now, to, Call::Packet(ev, packet));
    if let Err(e) = eps[to].handle_packet(now, ev, packet) {
        fabric.refused(now, to, e);
    }
    Some(to)
}

/// Where the drain of endpoint `k` of a [`Pair`] puts its outputs: packets to the fabric
/// and in flight, events to the fabric.
struct Drain<'a, F> {
    fabric: &'a mut F,
    flights: &'a mut InFlight<Flight>,
    now: Timestamp,
    k: usize,
    /// Whether the fabric refused room.
    held: bool,
}

impl<F: Fabric> Sink for Drain<'_, F> {
    #[inline(always)]
    fn room(&mut self) -> bool {
        let room = self.fabric.room(self.now, self.k);
        self.held |= !room;
        room
    }

    #[inline(always)]
    fn transmit(&mut self, nic: &mut Nic, now: Timestamp) -> Took {
        // The NIC's packet is moved once, into the slot where it waits (the slot's old
        // packet dropped); the fabric sees it there.
        let to = (1 - self.k) as u8;
        let w = self.flights.stage_flight(to);
        let f = &mut w.packet;
        f.t = nic.poll_transmit(now);
        let Some(t) = &mut f.t else { return Took::Nothing };
        let at = match self.fabric.carry(self.now, self.k, t) {
            Fate::Deliver { at, ev } => {
                t.ev = ev;
                at
            }
            Fate::Duplicate { at, again, ev } => {
                t.ev = ev;
                let copy = Flight { t: Some(t.clone()), hop: 0, to, way: Way::Arrive };
                w.at = at;
                self.flights.commit(at);
                self.flights.push(again, copy);
                return Took::Taken;
            }
            // Left in the slot, and dropped when the slot is reused.
            Fate::Drop => return Took::Taken,
            Fate::Corrupt { at } => {
                f.way = Way::Corrupt;
                at
            }
            Fate::Hop { at, hop } => {
                (f.way, f.hop) = (Way::Hop, hop);
                at
            }
        };
        w.at = at;
        self.flights.commit(at);
        Took::Taken
    }

    /// Every event goes to the fabric by reference, where the NIC keeps it.
    #[inline(always)]
    fn events(
        &mut self,
        nic: &mut Nic,
        cpu: &mut impl RecoveryCpu,
        now: Timestamp,
    ) -> Option<Output> {
        nic.drain_events(|e| {
            show_report(cpu, now, e);
            self.fabric.event(now, self.k, e);
        });
        None
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
    /// Per endpoint: the time of its last drain, if it was given nothing since.
    drained_at: [Option<Timestamp>; 2],
}

impl<F: Fabric, C: RecoveryCpu> Pair<F, C> {
    /// Two endpoints joined by `fabric`, at time zero.
    pub fn new(eps: [Endpoint<C>; 2], fabric: F) -> Self {
        Pair { eps, fabric, now: Timestamp::ZERO, flights: InFlight::new(), drained_at: [None; 2] }
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
        // The caller may have given the endpoints inputs of its own.
        self.drained_at = [None; 2];
        self.drain_due()
    }

    /// Drains both endpoints at the current time, but not one already drained at this
    /// time and given nothing since: that one would give nothing (its poll depends on its
    /// state and the time alone). One pass suffices: what an endpoint sends goes to the
    /// fabric, never straight to the other endpoint.
    fn drain_due(&mut self) -> Result<(), ApiMisuse> {
        let now = self.now;
        for k in 0..2 {
            if self.drained_at[k] == Some(now) {
                continue;
            }
            self.fabric.calling(now, k, Call::Drain);
            let ep = &mut self.eps[k];
            ep.nic.check_time(now)?;
            let mut to =
                Drain { fabric: &mut self.fabric, flights: &mut self.flights, now, k, held: false };
            ep.drain_into(now, &mut to)?;
            // An endpoint held back may get room again at this time (`Fabric::wake`).
            self.drained_at[k] = (!to.held).then_some(now);
        }
        self.fabric.drained(now, [&self.eps[0].nic, &self.eps[1].nic]);
        Ok(())
    }

    /// Takes out the next packet due, which is corrupt (lost at the receiver's edge) or
    /// reaches a hop, where the fabric decides the rest of its fate.
    #[cold]
    fn hop_or_lose(&mut self, now: Timestamp) {
        let Some(f) = self.flights.pop_due(now) else { return };
        if let (Way::Hop, Some(t)) = (f.way, f.t) {
            let to = usize::from(f.to);
            let fate = self.fabric.hop(now, 1 - to, f.hop, &t);
            put(&mut self.flights, to, t, fate);
        }
    }

    /// The next time something is due: a timer of either endpoint, an endpoint the fabric
    /// lets send again, or an arrival (at an endpoint or a hop).
    pub fn next_due(&mut self) -> Option<Timestamp> {
        self.due().0
    }

    /// [`Pair::next_due`], with each endpoint's next deadline.
    fn due(&mut self) -> (Option<Timestamp>, [Option<Timestamp>; 2]) {
        let arrival = self.flights.next_at();
        let mut timers = [None; 2];
        for (k, t) in timers.iter_mut().enumerate() {
            self.fabric.calling(self.now, k, Call::PollTimeout);
            *t = self.eps[k].poll_timeout();
        }
        let wakes = [self.fabric.wake(0), self.fabric.wake(1)];
        let next = [arrival, timers[0], timers[1], wakes[0], wakes[1]].into_iter().flatten().min();
        (next, timers)
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
            let (Some(next), timers) = self.due() else { return Ok(RunEnd::Idle) };
            if next > horizon {
                return Ok(RunEnd::Horizon);
            }
            self.step(next, timers)?;
        }
        Ok(RunEnd::Steps)
    }

    /// Runs one instant `at` (not before the pair's time): timers, then a drain if the
    /// fabric lets an endpoint send again, then arrivals. `timers` are the endpoints' next
    /// deadlines, as [`Pair::due`] found them: nothing has touched the endpoints since (the
    /// packets endpoint 0 sends at its timer go to the fabric, not to endpoint 1).
    fn step(&mut self, at: Timestamp, timers: [Option<Timestamp>; 2]) -> Result<(), ApiMisuse> {
        self.now = self.now.max(at);
        let now = self.now;
        for (k, timer) in timers.into_iter().enumerate() {
            if timer.is_some_and(|t| t <= now) {
                self.fabric.calling(now, k, Call::Timeout);
                self.drained_at[k] = None;
                self.eps[k].handle_timeout(now)?;
                self.drain_due()?;
                let next = self.eps[k].poll_timeout();
                self.fabric.fired(now, k, next);
            }
        }
        if (0..2).any(|k| self.fabric.wake(k).is_some_and(|t| t <= now)) {
            self.drain_due()?;
        }
        let batch = self.fabric.batch();
        // A packet that arrives is handed over where it waits, then dropped.
        loop {
            if batch {
                // Nothing is put in flight until the drain: the line's run of packets due
                // now is handed over in one pass, the endpoints given one noted in `given`.
                let Pair { eps, fabric, flights, .. } = self;
                let mut given = [false; 2];
                flights.take_line_due(now, |f| {
                    hand_over(eps, fabric, now, f).map(|to| given[to] = true).is_some()
                });
                for (at, given) in self.drained_at.iter_mut().zip(given) {
                    if given {
                        *at = None;
                    }
                }
            }
            let Some((f, head)) = self.flights.due(now) else { break };
            let Some(to) = hand_over(&mut self.eps, &mut self.fabric, now, f) else {
                self.hop_or_lose(now);
                continue;
            };
            self.drained_at[to] = None;
            self.flights.discard(head);
            if !batch {
                self.drain_due()?;
            }
        }
        if batch {
            self.drain_due()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packets come out by time, and at equal times in the order put in, whether they wait
    /// in the line or overtake it.
    #[test]
    fn in_flight_orders_by_time_then_sending() {
        let mut f = InFlight::new();
        for (id, at) in [(1, 5), (2, 7), (3, 3), (4, 7), (5, 5), (6, 9), (7, 3), (8, 9)] {
            f.push(Timestamp(at), id);
        }
        assert_eq!(f.len(), 8);
        assert_eq!(f.next_at(), Some(Timestamp(3)));
        assert_eq!(f.pop_due(Timestamp(2)), None);
        let mut order = Vec::new();
        while let Some(id) = f.pop_due(Timestamp(8)) {
            order.push(id);
        }
        assert_eq!(order, [3, 7, 1, 5, 2, 4]);
        f.push(Timestamp(9), 9);
        f.push(Timestamp(8), 10);
        order.clear();
        while let Some(id) = f.pop_due(Timestamp(9)) {
            order.push(id);
        }
        assert_eq!(order, [10, 6, 8, 9]);
        assert!(f.is_empty());
    }

    /// The line's run of packets due is handed over in order, up to the first one not due
    /// or not taken, each dropped once taken, across the ring's wrap; nothing is while a
    /// packet waits in the heap, which might come first.
    #[test]
    fn the_lines_due_run_is_taken_in_one_pass() {
        let mut f = InFlight::new();
        let mut seen = Vec::new();
        for (id, at) in [(1, 5), (2, 5), (3, 6), (4, 8)] {
            f.push(Timestamp(at), id);
        }
        f.take_line_due(Timestamp(6), |&id| {
            seen.push(id);
            id != 3
        });
        assert_eq!(seen, [1, 2, 3]);
        assert_eq!((f.len(), f.next_at()), (2, Some(Timestamp(6))));
        seen.clear();
        f.take_line_due(Timestamp(7), |&id| {
            seen.push(id);
            true
        });
        assert_eq!((seen.as_slice(), f.len()), ([3].as_slice(), 1));
        f.push(Timestamp(7), 5);
        f.take_line_due(Timestamp(9), |&id| {
            seen.push(id);
            true
        });
        assert_eq!((seen.as_slice(), f.len()), ([3].as_slice(), 2));
        assert_eq!(f.pop_due(Timestamp(9)), Some(5));
        f.take_line_due(Timestamp(9), |&id| {
            seen.push(id);
            true
        });
        assert_eq!(seen, [3, 4]);
        assert!(f.is_empty());
        // Nothing is taken from an empty line, whose slots still hold the packets taken.
        f.take_line_due(Timestamp(9), |&id| {
            seen.push(id);
            true
        });
        assert_eq!(seen, [3, 4]);
        // Rounds of ten packets go round the ring of sixteen slots.
        for round in 0..5 {
            let ids: Vec<u32> = (0..10).map(|i| 100 * round + i).collect();
            for &id in &ids {
                f.push(Timestamp(10 + u64::from(round)), id);
            }
            seen.clear();
            f.take_line_due(Timestamp(10 + u64::from(round)), |&id| {
                seen.push(id);
                true
            });
            assert_eq!(seen, ids);
            assert!(f.is_empty());
        }
    }

    /// Packets due no earlier than the last one put in wait in the line, never in the
    /// heap, whether the line is empty or not: that is the cheap path of every fabric
    /// whose delays do not shrink. One that overtakes waits in the heap.
    #[test]
    fn in_order_packets_wait_in_the_line() {
        let mut f = InFlight::new();
        for (id, at) in [(1, 5), (2, 5), (3, 7)] {
            f.push(Timestamp(at), id);
        }
        assert_eq!((f.len, f.heap.len()), (3, 0));
        while f.pop_due(Timestamp(9)).is_some() {}
        // The line is empty, its last arrival later than the next packet's.
        f.push(Timestamp(6), 4);
        assert_eq!((f.len, f.heap.len()), (1, 0));
        f.push(Timestamp(2), 5);
        assert_eq!((f.len, f.heap.len()), (1, 1));
        assert_eq!(f.pop_due(Timestamp(9)), Some(5));
        assert_eq!(f.pop_due(Timestamp(9)), Some(4));
    }
}
