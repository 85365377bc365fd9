//! The drive loop of an endpoint (`openrdma_sm::Endpoint`): polled one output at a time it
//! gives what the pair driver gives, in the same order; an input restarts its drain;
//! without room no packet is taken; `run_timers` fires every deadline up to its bound and
//! stops at a CPU half whose deadline does not move;
//! `NoCpu` asks for nothing.

mod back_to_back;

use std::time::Duration;

use back_to_back::{data_psn, nic, qpn, write};
use openrdma_device::RecoveryCpu;
use openrdma_sm::{
    ApiMisuse, CpuCommand, Endpoint, Fabric, Fate, InFlight, NicEvent, NicReport, NoCpu, Output,
    Pair, RecoveryAgent, RecoveryConfig, RunEnd, Side, Timestamp, Transmit,
};

/// An output with its time and its endpoint, comparable.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Out {
    Transmit(Transmit),
    Event(NicEvent),
}

impl From<Output> for Out {
    fn from(o: Output) -> Out {
        match o {
            Output::Transmit(t) => Out::Transmit(t),
            Output::Event(e) => Out::Event(e),
        }
    }
}

type Log = Vec<(u64, usize, Out)>;

/// Delivers each packet 1 µs to 1.6 µs after it leaves (the packets overtake one
/// another), and loses the first sending of data PSNs 1 and 3: one loss the receiver's
/// SACKs show, one at the tail that only a timeout recovers.
#[derive(Default)]
struct Lossy {
    sent: u64,
    lost: Vec<u32>,
}

impl Lossy {
    fn fate(&mut self, now: Timestamp, t: &Transmit) -> Fate {
        self.sent += 1;
        if let Some(psn @ (1 | 3)) = data_psn(&t.packet) {
            if !self.lost.contains(&psn) {
                self.lost.push(psn);
                return Fate::Drop;
            }
        }
        Fate::Deliver { at: Timestamp(now.0 + 1_000 + 300 * (self.sent % 3)), ev: t.ev }
    }
}

/// [`Lossy`] as the pair's fabric, recording every output.
#[derive(Default)]
struct Recorded {
    lossy: Lossy,
    log: Log,
}

impl Fabric for Recorded {
    fn fate(&mut self, now: Timestamp, from: usize, t: &Transmit) -> Fate {
        self.log.push((now.0, from, Out::Transmit(t.clone())));
        self.lossy.fate(now, t)
    }

    fn event(&mut self, now: Timestamp, k: usize, event: &NicEvent) {
        self.log.push((now.0, k, Out::Event(event.clone())));
    }
}

/// Two endpoints with the reference CPU half; the first has posted two writes, of four
/// packets and of one.
fn endpoints() -> [Endpoint; 2] {
    let mut eps =
        [0, 1].map(|k| Endpoint::with_cpu(nic(k), RecoveryAgent::new(RecoveryConfig::default())));
    eps[0].handle_host(Timestamp::ZERO, write(0, 4 * 4096)).expect("a valid write");
    eps[0].handle_host(Timestamp::ZERO, write(1, 100)).expect("a valid write");
    eps
}

/// Drains both endpoints at `now` with [`Endpoint::drain`], the packets to `lossy` and in
/// flight.
fn drain_both(
    eps: &mut [Endpoint; 2],
    now: Timestamp,
    lossy: &mut Lossy,
    flights: &mut InFlight<(usize, Transmit)>,
    log: &mut Log,
) {
    for (k, ep) in eps.iter_mut().enumerate() {
        let mut refused = Vec::new();
        let mut out = |at: Timestamp, o: Output| {
            if let Output::Transmit(t) = &o {
                if let Fate::Deliver { at, ev } = lossy.fate(at, t) {
                    flights.push(at, (1 - k, Transmit { ev, ..t.clone() }));
                }
            }
            log.push((at.0, k, o.into()));
        };
        ep.drain(now, &mut out, &mut |_, e| refused.push(e)).expect("time goes forward");
        assert!(refused.is_empty(), "the NIC refused its CPU half: {refused:?}");
    }
}

/// The documented drive loop, by hand: at each instant the timers (endpoint 0, then 1),
/// then each arrival, each followed by a drain of both endpoints.
fn by_hand(mut eps: [Endpoint; 2]) -> Log {
    let (mut lossy, mut flights, mut log) = (Lossy::default(), InFlight::new(), Vec::new());
    let mut now = Timestamp::ZERO;
    drain_both(&mut eps, now, &mut lossy, &mut flights, &mut log);
    for _ in 0..10_000 {
        let due = [flights.next_at(), eps[0].poll_timeout(), eps[1].poll_timeout()];
        let Some(next) = due.into_iter().flatten().min() else { return log };
        now = now.max(next);
        for k in 0..2 {
            if eps[k].poll_timeout().is_some_and(|t| t <= now) {
                eps[k].handle_timeout(now).expect("time goes forward");
                drain_both(&mut eps, now, &mut lossy, &mut flights, &mut log);
            }
        }
        while let Some((to, t)) = flights.pop_due(now) {
            eps[to].handle_packet(now, t.ev, &t.packet).expect("a packet of the other NIC");
            drain_both(&mut eps, now, &mut lossy, &mut flights, &mut log);
        }
    }
    panic!("the endpoints never went idle");
}

/// Polled one output at a time, two endpoints give what the pair driver, which drains
/// them without an output per call, gives: the same outputs in the same order, through a
/// loss recovered by SACKs and one recovered by a timeout.
#[test]
fn polling_gives_what_the_pair_gives_in_the_same_order() {
    let mut pair = Pair::new(endpoints(), Recorded::default());
    assert_eq!(pair.run(Timestamp(1_000_000_000), 10_000), Ok(RunEnd::Idle));
    let log = pair.fabric.log;
    assert_eq!(by_hand(endpoints()), log);

    let retransmitted: Vec<_> = log
        .iter()
        .filter_map(|(_, _, o)| match o {
            Out::Event(NicEvent::Report(NicReport::Retransmitted { psn, .. })) => Some(psn.value()),
            _ => None,
        })
        .collect();
    assert_eq!(retransmitted, [1, 3]);
    let flags: Vec<_> = log
        .iter()
        .filter_map(|(_, k, o)| match o {
            Out::Event(NicEvent::FlagWrite(f)) => Some((*k, f.side, f.msn.value())),
            _ => None,
        })
        .collect();
    assert_eq!(
        flags,
        [
            (1, Side::Responder, 0),
            (1, Side::Responder, 1),
            (0, Side::Requester, 0),
            (0, Side::Requester, 1)
        ]
    );
}

/// An endpoint with the reference CPU half that has sent one packet, which no one
/// acknowledges.
fn unanswered() -> Endpoint {
    let mut ep = Endpoint::with_cpu(nic(0), RecoveryAgent::new(RecoveryConfig::default()));
    ep.handle_host(Timestamp::ZERO, write(0, 4096)).expect("a valid write");
    let mut sent = 0;
    ep.drain(
        Timestamp::ZERO,
        &mut |_, o| sent += u32::from(matches!(o, Output::Transmit(_))),
        &mut |_, e| panic!("refused: {e:?}"),
    )
    .expect("time goes forward");
    assert_eq!(sent, 1);
    ep
}

/// `run_timers` fires every deadline up to its bound, in time order, each at its time,
/// and drains the endpoint after each: what `poll_timeout`, `handle_timeout` and `drain`
/// give one deadline at a time. It returns the time of the last deadline fired, or where
/// it started when none was due.
#[test]
fn run_timers_fires_every_deadline_up_to_its_bound() {
    let until = Timestamp(200_000);
    let mut ep = unanswered();
    let mut log = Vec::new();
    let last = ep
        .run_timers(
            Timestamp::ZERO,
            until,
            &mut |t, o| log.push((t.0, Out::from(o))),
            &mut |_, e| panic!("refused: {e:?}"),
        )
        .expect("time goes forward");

    let mut twin = unanswered();
    let (mut expect, mut fired) = (Vec::new(), Vec::new());
    while let Some(d) = twin.poll_timeout().filter(|&d| d <= until) {
        twin.handle_timeout(d).expect("time goes forward");
        twin.drain(d, &mut |t, o| expect.push((t.0, Out::from(o))), &mut |_, e| {
            panic!("refused: {e:?}")
        })
        .expect("time goes forward");
        fired.push(d);
    }
    assert_eq!(log, expect);
    assert!(fired.len() >= 2, "timeouts fired: {fired:?}");
    assert_eq!(Some(&last), fired.last());
    assert!(log.iter().all(|(t, _)| *t <= until.0), "{log:?}");
    let timeouts = log
        .iter()
        .filter(|(_, o)| matches!(o, Out::Event(NicEvent::Report(NicReport::Retransmitted { .. }))))
        .count();
    assert!(timeouts >= 2, "{log:?}");
    assert!(ep.poll_timeout().is_some_and(|t| t > until));

    // Nothing due up to the bound: nothing fired, the start given back.
    let next = ep.poll_timeout().expect("the QP still waits");
    let from = Timestamp(until.0 + 1);
    let mut more = 0;
    let at = ep
        .run_timers(from, Timestamp(next.0 - 1), &mut |_, _| more += 1, &mut |_, e| {
            panic!("refused: {e:?}")
        })
        .expect("time goes forward");
    assert_eq!((at, more), (from, 0));
}

/// An input given in the middle of a drain starts a new round: the packets it makes come
/// first, before the events the last round had not given yet.
#[test]
fn an_input_restarts_the_drain_with_its_packets() {
    let t = |ns| Timestamp(ns);
    let mut a = Endpoint::with_cpu(nic(0), NoCpu);
    let mut b = Endpoint::with_cpu(nic(1), NoCpu);
    a.handle_host(t(0), write(0, 4096)).expect("a valid write");
    let Ok(Some(Output::Transmit(data))) = a.poll(t(0), true) else { panic!("no packet") };
    while a.poll(t(0), true).expect("time goes forward").is_some() {}
    b.handle_packet(t(1_000), data.ev, &data.packet).expect("a packet of the other NIC");
    // The responder's acknowledgement, at once or when its timer fires.
    let mut acks = Vec::new();
    b.run_timers(t(1_000), t(1_000_000), &mut |_, _| {}, &mut |_, e| panic!("refused: {e:?}"))
        .expect("time goes forward");
    b.drain(
        t(1_000_000),
        &mut |_, o| {
            if let Output::Transmit(ack) = o {
                acks.push(ack)
            }
        },
        &mut |_, e| panic!("refused: {e:?}"),
    )
    .expect("time goes forward");
    let now = t(2_000_000);
    for ack in &acks {
        a.handle_packet(now, ack.ev, &ack.packet).expect("a packet of the other NIC");
    }
    // Without room, no packet: the drain goes on to the events.
    let Ok(Some(Output::Event(first))) = a.poll(now, false) else { panic!("no event") };
    // A new write, in the middle of the drain.
    a.handle_host(now, write(1, 4096)).expect("a valid write");
    let mut rest = Vec::new();
    while let Some(o) = a.poll(now, true).expect("time goes forward") {
        rest.push(Out::from(o));
    }
    assert!(
        matches!(&rest[0], Out::Transmit(t) if data_psn(&t.packet) == Some(1)),
        "the new write's packet first: {rest:?}"
    );
    let events: Vec<_> = rest.iter().filter(|o| matches!(o, Out::Event(_))).collect();
    assert!(!events.is_empty(), "the events left after {first:?}");
    assert!(rest[1..].iter().all(|o| matches!(o, Out::Event(_))), "{rest:?}");
}

/// Without room, a drain takes no packet from the NIC (a caller whose transmit buffer is
/// full): it gives the events and ends, and the packet waits for a drain with room.
#[test]
fn without_room_the_packet_waits() {
    let t0 = Timestamp::ZERO;
    let mut a = Endpoint::with_cpu(nic(0), NoCpu);
    a.handle_host(t0, write(0, 4096)).expect("a valid write");
    let mut held = Vec::new();
    while let Some(o) = a.poll(t0, false).expect("time goes forward") {
        held.push(Out::from(o));
    }
    assert!(held.iter().all(|o| matches!(o, Out::Event(_))), "{held:?}");
    let Ok(Some(Output::Transmit(p))) = a.poll(t0, true) else { panic!("the packet waited") };
    assert_eq!(data_psn(&p.packet), Some(0));
}

/// A CPU command from outside the endpoint is the NIC's to refuse, and for a QP it does
/// not have it does.
#[test]
fn a_cpu_command_for_an_unknown_qp_is_refused() {
    let mut ep = Endpoint::with_cpu(nic(0), NoCpu);
    let stranger = openrdma_codec::Qpn::new(0x99);
    assert_eq!(
        ep.handle_cpu(Timestamp::ZERO, CpuCommand::QpError { qpn: stranger }),
        Err(ApiMisuse::UnknownQp(stranger))
    );
    assert_eq!(ep.handle_cpu(Timestamp::ZERO, CpuCommand::QpError { qpn: qpn(0) }), Ok(()));
    assert_eq!(ep.nic.qp_in_error(qpn(0)), Some(true));
}

/// A CPU half that does nothing sets no deadline, gives no command, and keeps the
/// contract of every CPU half: no deadline sooner than 1 ns after what made it.
#[test]
fn no_cpu_asks_for_nothing() {
    let mut cpu = NoCpu;
    assert_eq!(cpu.poll_timeout(), None);
    assert_eq!(cpu.poll_command(), None);
    assert!(cpu.min_delay() >= Duration::from_nanos(1), "{:?}", cpu.min_delay());
    // An endpoint with it has no deadline of its CPU half's: only its NIC's.
    let mut ep = Endpoint::with_cpu(nic(0), NoCpu);
    assert_eq!(ep.poll_timeout(), None);
}

/// A CPU half whose deadline moves `step` ns past each timeout that fires it (0: it never
/// moves, which breaks `API-TIME-002`).
#[derive(Debug)]
struct Ticking {
    next: Timestamp,
    step: u64,
    fired: Vec<u64>,
}

impl RecoveryCpu for Ticking {
    fn handle_report(&mut self, _: Timestamp, _: &NicReport) {}
    fn handle_timeout(&mut self, now: Timestamp) {
        self.fired.push(now.0);
        self.next = Timestamp(now.0 + self.step);
    }
    fn poll_command(&mut self) -> Option<CpuCommand> {
        None
    }
    fn poll_timeout(&self) -> Option<Timestamp> {
        Some(self.next)
    }
    fn min_delay(&self) -> Duration {
        Duration::from_nanos(self.step)
    }
}

/// A CPU half whose deadline does not move past the timeout that fired it stops
/// `run_timers` with `DeadlineNotMoved` (`API-TIME-002`) after one firing, where the loop
/// would otherwise fire it forever; one that moves 1 ns each time is fired at every
/// nanosecond up to the bound.
#[test]
fn run_timers_stops_at_a_deadline_that_does_not_move() {
    let cpu = Ticking { next: Timestamp(10), step: 0, fired: Vec::new() };
    let mut ep = Endpoint::with_cpu(nic(0), cpu);
    let r = ep.run_timers(Timestamp::ZERO, Timestamp(1_000), &mut |_, _| {}, &mut |_, e| {
        panic!("refused: {e:?}")
    });
    assert_eq!(r, Err(ApiMisuse::DeadlineNotMoved { at: 10, deadline: 10 }));
    assert_eq!(r.unwrap_err().requirement(), "API-TIME-002");
    assert_eq!(ep.cpu.fired, [10]);

    let cpu = Ticking { next: Timestamp(10), step: 1, fired: Vec::new() };
    let mut ep = Endpoint::with_cpu(nic(0), cpu);
    let r = ep.run_timers(Timestamp::ZERO, Timestamp(14), &mut |_, _| {}, &mut |_, e| {
        panic!("refused: {e:?}")
    });
    assert_eq!(r, Ok(Timestamp(14)));
    assert_eq!(ep.cpu.fired, [10, 11, 12, 13, 14]);
}
