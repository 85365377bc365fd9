//! The pair driver (`openrdma_sm::Pair`) and its queue of packets in flight (`InFlight`):
//! the order of its calls on the endpoints, batched arrivals, corrupt packets, hops inside
//! the fabric, an endpoint held back by a full link, the horizon of a run.

mod back_to_back;

use back_to_back::{data_psn, nic, write};
use openrdma_codec::Ev;
use openrdma_sm::{
    Call, Endpoint, Fabric, Fate, InFlight, NicEvent, NoCpu, Packet, Pair, RunEnd, Side, Timestamp,
    Transmit,
};

/// What the fabric does with a packet that endpoint `from` sends at `now`.
type Rule = fn(now: Timestamp, from: usize, t: &Transmit) -> Fate;

/// A fabric that decides by a [`Rule`] and records everything the pair tells it.
struct Log {
    rule: Rule,
    batch: bool,
    /// Hops give the rest of the fate: delivered this long after the hop.
    hop_delay: u64,
    /// Endpoint 0 gets no room before this time.
    closed_until: Timestamp,
    /// Endpoint 0 gets no room at its first ask, and room again at the same instant.
    refuse_once: bool,
    /// Whether endpoint 0 was refused room and has not had it since.
    refused: bool,
    /// (time, endpoint, what): every call the pair made on an endpoint.
    calls: Vec<(u64, usize, String)>,
    /// (time, sender, data PSN): every packet sent.
    sent: Vec<(u64, usize, Option<u32>)>,
    /// (time, receiver, data PSN): every packet handed to an endpoint.
    arrived: Vec<(u64, usize, Option<u32>)>,
    /// (time, sender, hop note): every hop reached.
    hops: Vec<(u64, usize, u64)>,
    /// (time, endpoint, event).
    events: Vec<(u64, usize, NicEvent)>,
}

impl Log {
    fn new(rule: Rule) -> Log {
        Log {
            rule,
            batch: false,
            hop_delay: 0,
            closed_until: Timestamp::ZERO,
            refuse_once: false,
            refused: false,
            calls: Vec::new(),
            sent: Vec::new(),
            arrived: Vec::new(),
            hops: Vec::new(),
            events: Vec::new(),
        }
    }

    /// The calls made at `at` that hand a packet over or drain an endpoint.
    fn packets_and_drains_at(&self, at: u64) -> Vec<(usize, &str)> {
        self.calls
            .iter()
            .filter(|(t, _, what)| *t == at && (what.starts_with("packet") || what == "drain"))
            .map(|(_, k, what)| (*k, what.as_str()))
            .collect()
    }

    /// The flags endpoint `k` wrote, by side.
    fn flags(&self, k: usize) -> Vec<Side> {
        self.events
            .iter()
            .filter(|e| e.1 == k)
            .filter_map(|e| match &e.2 {
                NicEvent::FlagWrite(f) => Some(f.side),
                _ => None,
            })
            .collect()
    }

    /// The PSNs endpoint 1 placed.
    fn placed(&self) -> Vec<u32> {
        self.events
            .iter()
            .filter_map(|e| match &e.2 {
                NicEvent::DmaWrite(w) if e.1 == 1 => Some(w.psn.value()),
                _ => None,
            })
            .collect()
    }
}

impl Fabric for Log {
    fn fate(&mut self, now: Timestamp, from: usize, t: &Transmit) -> Fate {
        self.sent.push((now.0, from, data_psn(&t.packet)));
        (self.rule)(now, from, t)
    }

    fn hop(&mut self, now: Timestamp, from: usize, hop: u64, t: &Transmit) -> Fate {
        self.hops.push((now.0, from, hop));
        Fate::Deliver { at: Timestamp(now.0 + self.hop_delay), ev: t.ev }
    }

    fn room(&mut self, now: Timestamp, from: usize) -> bool {
        if from != 0 {
            return true;
        }
        let room = now >= self.closed_until && !self.refuse_once;
        self.refuse_once = false;
        self.refused = !room;
        room
    }

    fn wake(&self, from: usize) -> Option<Timestamp> {
        (from == 0 && self.refused).then_some(self.closed_until)
    }

    fn batch(&self) -> bool {
        self.batch
    }

    fn calling(&mut self, now: Timestamp, k: usize, call: Call<'_>) {
        let what = match call {
            Call::PollTimeout => "poll_timeout".to_string(),
            Call::Timeout => "timeout".to_string(),
            Call::Packet(_, p) => format!("packet {:?}", data_psn(p)),
            Call::Drain => "drain".to_string(),
        };
        self.calls.push((now.0, k, what));
    }

    fn event(&mut self, now: Timestamp, k: usize, event: &NicEvent) {
        self.events.push((now.0, k, event.clone()));
    }

    fn arrive(&mut self, now: Timestamp, to: usize, _ev: Ev, packet: &Packet) {
        self.arrived.push((now.0, to, data_psn(packet)));
    }
}

/// Two NICs without a CPU half over `fabric`; NIC 0 has posted a write of `packets`
/// packets of 4 KiB.
fn pair(packets: u32, fabric: Log) -> Pair<Log, NoCpu> {
    let mut requester = nic(0);
    requester.handle_host(Timestamp::ZERO, write(0, packets * 4096)).expect("a valid write");
    Pair::new([Endpoint::with_cpu(requester, NoCpu), Endpoint::with_cpu(nic(1), NoCpu)], fabric)
}

/// Every packet is delivered 1 µs after it leaves.
fn one_microsecond(now: Timestamp, _: usize, t: &Transmit) -> Fate {
    Fate::Deliver { at: Timestamp(now.0 + 1_000), ev: t.ev }
}

/// Runs `p` to its end, in few enough steps that a driver that loops shows.
fn run(p: &mut Pair<Log, NoCpu>) -> RunEnd {
    p.run(Timestamp(1_000_000_000), 1_000).expect("a CPU half that does nothing is never refused")
}

/// Each arrival is followed by a drain; an endpoint drained at this instant and given
/// nothing since is not drained again. A fabric that batches gets one drain after all
/// the arrivals of the instant.
#[test]
fn each_arrival_is_drained_unless_the_fabric_batches() {
    let mut p = pair(3, Log::new(one_microsecond));
    assert_eq!(run(&mut p), RunEnd::Idle);
    assert_eq!(
        p.fabric.packets_and_drains_at(1_000),
        [
            (1, "packet Some(0)"),
            (0, "drain"),
            (1, "drain"),
            (1, "packet Some(1)"),
            (1, "drain"),
            (1, "packet Some(2)"),
            (1, "drain"),
        ]
    );
    assert_eq!(p.fabric.flags(0), [Side::Requester]);

    let mut batched = Log::new(one_microsecond);
    batched.batch = true;
    let mut p = pair(3, batched);
    assert_eq!(run(&mut p), RunEnd::Idle);
    assert_eq!(
        p.fabric.packets_and_drains_at(1_000),
        [
            (1, "packet Some(0)"),
            (1, "packet Some(1)"),
            (1, "packet Some(2)"),
            (0, "drain"),
            (1, "drain"),
        ]
    );
    assert_eq!(p.fabric.placed(), [0, 1, 2]);
    assert_eq!(p.fabric.flags(0), [Side::Requester]);
}

/// A corrupt packet reaches the receiver's edge and is dropped there: the endpoint never
/// sees it, and it is at no hop.
#[test]
fn a_corrupt_packet_is_lost_at_the_receivers_edge() {
    fn corrupt_psn_1(now: Timestamp, _: usize, t: &Transmit) -> Fate {
        let at = Timestamp(now.0 + 1_000);
        match data_psn(&t.packet) {
            Some(1) => Fate::Corrupt { at },
            _ => Fate::Deliver { at, ev: t.ev },
        }
    }
    // Whether the arrivals are drained one by one or in a batch.
    for batch in [false, true] {
        let mut log = Log::new(corrupt_psn_1);
        log.batch = batch;
        let mut p = pair(3, log);
        assert_eq!(run(&mut p), RunEnd::Idle);
        let data_in: Vec<_> = p.fabric.arrived.iter().filter(|a| a.2.is_some()).collect();
        assert_eq!(data_in, [&(1_000, 1, Some(0)), &(1_000, 1, Some(2))]);
        let calls = &p.fabric.calls;
        assert!(!calls.iter().any(|c| c.2 == "packet Some(1)"), "{calls:?}");
        assert_eq!(p.fabric.placed(), [0, 2]);
        assert!(p.fabric.hops.is_empty(), "{:?}", p.fabric.hops);
        assert_eq!(p.in_flight(), 0);
    }
}

/// In a batch, an endpoint already drained at the instant its packets arrive is drained
/// again after them: here every packet arrives the instant it is sent.
#[test]
fn a_batch_to_an_endpoint_drained_at_its_instant_is_drained_again() {
    fn at_once(now: Timestamp, _: usize, t: &Transmit) -> Fate {
        Fate::Deliver { at: now, ev: t.ev }
    }
    let mut log = Log::new(at_once);
    log.batch = true;
    let mut p = pair(2, log);
    assert_eq!(run(&mut p), RunEnd::Idle);
    let at_zero = p.fabric.packets_and_drains_at(0);
    // Both are drained first; then the packets arrive at endpoint 1, and it is drained.
    assert_eq!(
        &at_zero[..5],
        [(0, "drain"), (1, "drain"), (1, "packet Some(0)"), (1, "packet Some(1)"), (1, "drain")]
    );
    assert_eq!(p.fabric.placed(), [0, 1]);
    assert_eq!(p.fabric.flags(0), [Side::Requester]);
}

/// A packet sent to a hop gets the rest of its fate there, from the fabric, which is told
/// who sent it; it then arrives as delivered.
#[test]
fn a_packet_at_a_hop_gets_the_rest_of_its_fate_there() {
    fn hop(now: Timestamp, from: usize, _: &Transmit) -> Fate {
        Fate::Hop { at: Timestamp(now.0 + 400), hop: 7 + from as u64 }
    }
    let mut log = Log::new(hop);
    log.hop_delay = 600;
    let mut p = pair(2, log);
    assert_eq!(run(&mut p), RunEnd::Idle);
    let f = &p.fabric;
    // Each packet reaches its hop 400 ns after it leaves, with its sender's note.
    let expect: Vec<_> = f.sent.iter().map(|s| (s.0 + 400, s.1, 7 + s.1 as u64)).collect();
    assert_eq!(f.hops, expect);
    assert!(f.hops.iter().any(|h| h.1 == 1), "the responder's packets reach a hop too");
    // And its endpoint 600 ns later.
    let expect: Vec<_> = f.sent.iter().map(|s| (s.0 + 1_000, 1 - s.1, s.2)).collect();
    assert_eq!(f.arrived, expect);
    assert_eq!(f.placed(), [0, 1]);
    assert_eq!(f.flags(0), [Side::Requester]);
}

/// An endpoint the fabric holds back keeps its packets, and sends them when the fabric
/// says it has room again.
#[test]
fn an_endpoint_held_back_sends_when_it_has_room_again() {
    let mut log = Log::new(one_microsecond);
    log.closed_until = Timestamp(5_000);
    let mut p = pair(2, log);
    assert_eq!(run(&mut p), RunEnd::Idle);
    let first = p.fabric.sent.iter().find(|s| s.1 == 0).copied();
    assert_eq!(first, Some((5_000, 0, Some(0))));
    assert_eq!(p.fabric.placed(), [0, 1]);
    assert_eq!(p.fabric.flags(0), [Side::Requester]);
}

/// Room given back at the instant it was refused is used at that instant: the endpoint
/// is drained again, though it was drained then.
#[test]
fn room_given_back_at_once_is_used_at_once() {
    let mut log = Log::new(one_microsecond);
    log.refuse_once = true;
    let mut p = pair(2, log);
    assert_eq!(run(&mut p), RunEnd::Idle);
    let data_out: Vec<_> = p.fabric.sent.iter().filter(|s| s.1 == 0).collect();
    assert_eq!(data_out, [&(0, 0, Some(0)), &(0, 0, Some(1))]);
    assert_eq!(p.fabric.flags(0), [Side::Requester]);
}

/// A run stops when the next thing due is after its horizon, having run what is due on
/// it; the pair keeps its time and its packets in flight for the next run.
#[test]
fn a_run_stops_at_its_horizon_after_what_is_due_on_it() {
    let mut p = pair(3, Log::new(one_microsecond));
    assert_eq!(p.run(Timestamp(999), 1_000), Ok(RunEnd::Horizon));
    assert_eq!(p.now(), Timestamp::ZERO);
    assert_eq!(p.in_flight(), 3);
    // What stopped it: the three packets arrive at 1 µs.
    assert_eq!(p.next_due(), Some(Timestamp(1_000)));
    assert!(p.fabric.arrived.is_empty());

    assert_eq!(p.run(Timestamp(1_000), 1_000), Ok(RunEnd::Horizon));
    assert_eq!(p.now(), Timestamp(1_000));
    assert_eq!(p.fabric.placed(), [0, 1, 2]);
    let acks = p.fabric.sent.iter().filter(|s| s.1 == 1).count();
    assert!(acks > 0);
    assert_eq!(p.in_flight(), acks);

    assert_eq!(p.run(Timestamp(1_000_000), 1_000), Ok(RunEnd::Idle));
    assert!(p.now() >= Timestamp(2_000), "{:?}", p.now());
    assert_eq!(p.in_flight(), 0);
    assert_eq!(p.next_due(), None);
    assert_eq!(p.fabric.flags(0), [Side::Requester]);
}

/// A run that has taken its most steps says so.
#[test]
fn a_run_out_of_steps_says_so() {
    let mut p = pair(3, Log::new(one_microsecond));
    assert_eq!(p.run(Timestamp(1_000_000), 1), Ok(RunEnd::Steps));
    assert_eq!(p.now(), Timestamp(1_000));
}

/// Packets in flight: counted whether they wait in the line or overtake it, by time and
/// then in the order put in, looked at and dropped where they wait.
#[test]
fn in_flight_counts_orders_and_drops_where_they_wait() {
    let mut f = InFlight::new();
    assert!(f.is_empty());
    assert_eq!(f.next_at(), None);
    f.push(Timestamp(7), 'a');
    assert!(!f.is_empty());
    assert_eq!(f.len(), 1);
    f.push(Timestamp(9), 'b');
    // Earlier than the last one put in: it overtakes it.
    f.push(Timestamp(7), 'c');
    f.push(Timestamp(3), 'd');
    assert_eq!(f.len(), 4);
    assert_eq!(f.next_at(), Some(Timestamp(3)));
    assert_eq!(f.peek_due(Timestamp(2)), None);
    assert_eq!(f.peek_due(Timestamp(3)), Some(&'d'));
    assert_eq!(f.pop_due(Timestamp(3)), Some('d'));
    assert_eq!(f.pop_due(Timestamp(6)), None);
    // At equal times, the first put in first.
    assert_eq!(f.pop_due(Timestamp(7)), Some('a'));
    assert_eq!(f.peek_due(Timestamp(7)), Some(&'c'));
    f.discard_next();
    assert_eq!(f.len(), 1);
    assert!(!f.is_empty());
    assert_eq!(f.pop_due(Timestamp(8)), None);
    // Dropped whether due or not.
    f.discard_next();
    assert!(f.is_empty());
    assert_eq!(f.len(), 0);
    assert_eq!(f.pop_due(Timestamp(100)), None);
    // Slots are reused: the order stays that of putting in.
    for (at, id) in [(5, 'e'), (5, 'f'), (4, 'g'), (5, 'h')] {
        f.push(Timestamp(at), id);
    }
    let mut order = Vec::new();
    while let Some(id) = f.pop_due(Timestamp(5)) {
        order.push(id);
    }
    assert_eq!(order, ['g', 'e', 'f', 'h']);
}

/// By default a fabric does not batch: the pair drains after each arrival.
#[test]
fn a_fabric_does_not_batch_by_default() {
    /// Delivers each packet 1 µs after it leaves and records the calls, with every
    /// hook left as the trait gives it.
    struct Plain(Vec<(u64, usize, bool)>);
    impl Fabric for Plain {
        fn fate(&mut self, now: Timestamp, from: usize, t: &Transmit) -> Fate {
            one_microsecond(now, from, t)
        }
        fn calling(&mut self, now: Timestamp, k: usize, call: Call<'_>) {
            match call {
                Call::Packet(..) => self.0.push((now.0, k, true)),
                Call::Drain => self.0.push((now.0, k, false)),
                _ => {}
            }
        }
    }
    let mut requester = nic(0);
    requester.handle_host(Timestamp::ZERO, write(0, 2 * 4096)).expect("a valid write");
    let eps = [Endpoint::with_cpu(requester, NoCpu), Endpoint::with_cpu(nic(1), NoCpu)];
    let mut p = Pair::new(eps, Plain(Vec::new()));
    assert_eq!(p.run(Timestamp(1_000_000), 1_000), Ok(RunEnd::Idle));
    let at_1000: Vec<_> = p.fabric.0.iter().filter(|c| c.0 == 1_000).map(|c| (c.1, c.2)).collect();
    assert_eq!(at_1000, [(1, true), (0, false), (1, false), (1, true), (1, false)]);
}

/// The line of packets in flight wraps around its ring and grows while wrapped, with
/// packets that overtake it among them: what comes out, and when, is what a plain list
/// sorted by (time, order put in) gives.
#[test]
fn in_flight_matches_a_sorted_list_across_wraps_and_growth() {
    let mut f = InFlight::new();
    let mut list: Vec<(u64, u32)> = Vec::new();
    let mut put = 0u32;
    for round in 0..60u64 {
        // More put in than taken out, so that the line wraps, then grows.
        for k in 0..3 + round % 2 {
            // Every fifth one overtakes the packets of its round.
            let at = if put % 5 == 4 { round.saturating_sub(k) } else { round + 2 };
            f.push(Timestamp(at), put);
            list.push((at, put));
            put += 1;
        }
        for _ in 0..3 {
            let want = list
                .iter()
                .enumerate()
                .filter(|(_, e)| e.0 <= round)
                .min_by_key(|(_, e)| **e)
                .map(|(i, _)| i);
            let want = want.map(|i| list.remove(i).1);
            assert_eq!(f.pop_due(Timestamp(round)), want, "round {round}");
        }
        assert_eq!(f.len(), list.len());
        assert_eq!(f.next_at(), list.iter().map(|e| Timestamp(e.0)).min());
    }
    list.sort();
    for (_, id) in list {
        assert_eq!(f.peek_due(Timestamp(u64::MAX)), Some(&id));
        f.discard_next();
    }
    assert!(f.is_empty());
}
