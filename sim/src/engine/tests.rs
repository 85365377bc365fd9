use super::*;
use openrdma_codec::{Msn, Psn};

#[test]
fn qp_numbers_round_trip() {
    let q = qp_number(3, 77);
    assert_eq!(flow_of(q.value()), Some((3, 77)));
    assert_eq!(flow_of(5), None);
}

#[test]
fn psn_type_is_24_bit() {
    assert_eq!(Psn::MAX.value(), openrdma_codec::psn::PSN_MASK);
}

// The checker, fed by hand: each kind of fault is counted, and a clean sequence is not.

fn checker() -> Sim {
    let mut c = SimConfig::default();
    c.flows[0].qps = 2;
    c.flows[0].message_bytes = 8192;
    Sim::new(c).unwrap()
}

fn dma(s: &mut Sim, q: u32, psn: u32, msn: u16) {
    s.record(
        1,
        NicEvent::DmaWrite(openrdma_sm::DmaWrite {
            qpn: qp_number(0, q),
            psn: Psn::new(psn),
            msn: Msn::new(msn),
            va: 0,
            payload: openrdma_sm::Payload::Host { addr: 0, len: 4096 },
        }),
    );
}

fn flag(s: &mut Sim, q: u32, msn: u16) {
    s.record(
        1,
        NicEvent::FlagWrite(openrdma_sm::FlagWrite {
            qpn: qp_number(0, q),
            side: Side::Responder,
            msn: Msn::new(msn),
            addr: 0,
            value: 0,
        }),
    );
}

fn faults(s: &Sim) -> [u64; 4] {
    let r = s.report();
    [r.duplicates_delivered, r.order_violations, r.flag_before_data, r.writes_after_flag]
}

#[test]
fn checker_accepts_a_clean_sequence() {
    let mut s = checker();
    dma(&mut s, 0, 1, 0);
    dma(&mut s, 1, 0, 1);
    dma(&mut s, 0, 0, 0);
    flag(&mut s, 0, 0);
    dma(&mut s, 1, 1, 1);
    flag(&mut s, 1, 1);
    assert_eq!(faults(&s), [0; 4]);
    assert_eq!(s.report().messages_delivered, 2);
    assert_eq!(s.report().payload_bytes_delivered, 16384);
}

#[test]
fn checker_counts_each_fault() {
    let mut s = checker();
    dma(&mut s, 0, 0, 0);
    dma(&mut s, 0, 0, 0);
    assert_eq!(faults(&s), [1, 0, 0, 0], "duplicate placement");

    let mut s = checker();
    dma(&mut s, 0, 0, 0);
    flag(&mut s, 0, 0);
    assert_eq!(faults(&s), [0, 0, 1, 0], "flag with half the message placed");

    let mut s = checker();
    for psn in 0..2 {
        dma(&mut s, 0, psn, 0);
        dma(&mut s, 1, psn, 1);
    }
    flag(&mut s, 1, 1);
    flag(&mut s, 0, 0);
    assert_eq!(faults(&s)[1], 2, "shared domain: MSN 1 retired before MSN 0");

    let mut s = checker();
    dma(&mut s, 0, 0, 0);
    dma(&mut s, 0, 1, 0);
    flag(&mut s, 0, 0);
    dma(&mut s, 0, 2, 0);
    assert_eq!(faults(&s), [0, 0, 0, 1], "write into a retired message");
}

// Posting as the senders need them.

fn one_byte(qps: u32, messages: u32, retirement: RetirementMode) -> SimConfig {
    let mut c = SimConfig::default();
    c.flows[0].qps = qps;
    c.flows[0].messages = messages;
    c.flows[0].message_bytes = 1;
    c.nic.retirement = retirement;
    c
}

/// Messages are posted as they are needed: a QP never holds more than its depth, and
/// a workload far larger than that is delivered whole, in order, once each.
#[test]
fn a_large_workload_is_posted_as_it_goes() {
    for retirement in [RetirementMode::Shared, RetirementMode::PerQp] {
        let mut sim = Sim::new(one_byte(2, 30_000, retirement)).unwrap();
        let depth = sim.posting[0].depth;
        assert!(depth < 30_000, "{depth}");
        let mut most = 0;
        while sim.step() {
            most = most.max(sim.qp_posts.iter().map(|q| q.pending).max().unwrap_or(0));
        }
        assert!(most <= depth, "{retirement:?}: {most} posted at once, depth {depth}");
        let r = sim.report();
        assert!(r.is_correct(), "{retirement:?}: {:?}", r.problems());
        assert_eq!(r.messages_delivered, 60_000);
    }
}

/// A shared retirement domain never holds 2^15 messages or more: their 16-bit sequence
/// numbers would wrap, and the receiver would refuse the later ones. This is what made
/// every QP from index 32768 on fail when each QP posted one message at once.
#[test]
fn a_shared_domain_holds_fewer_than_2_15_messages() {
    let r = Sim::new(one_byte(8, 5000, RetirementMode::Shared)).unwrap().run();
    assert_eq!(r.peer_violations, 0);
    assert!(r.is_correct(), "{:?}", r.problems());
}

/// The same configuration gives the same report, field for field, also when the
/// messages are posted as they complete.
#[test]
fn runs_are_deterministic() {
    let mut c = one_byte(3, 9000, RetirementMode::Shared);
    c.paths[1].loss = crate::LossModel::Random { p: 0.01 };
    c.seed = 5;
    let a = Sim::new(c.clone()).unwrap().run();
    let b = Sim::new(c).unwrap().run();
    assert_eq!(a, b);
    assert!(a.retransmissions > 0 && a.is_correct(), "{:?}", a.problems());
}

/// A QP that fails fails every message of its own, posted or not, and the verdict says
/// so.
#[test]
fn a_failed_qp_fails_its_messages_and_the_verdict() {
    let mut c = one_byte(2, 50_000, RetirementMode::PerQp);
    c.paths = vec![crate::PathConfig::default(); 1];
    c.paths[0].down.push(crate::Outage { from_ns: 200_000, to_ns: 1_000_000_000 });
    c.recovery.retry_limit = 2;
    c.horizon_ns = 2_000_000_000;
    let r = Sim::new(c).unwrap().run();
    assert!(r.qp_errors > 0);
    assert_eq!(r.messages_completed + r.messages_failed, 100_000);
    assert!(!r.is_correct());
    assert!(
        r.problems().iter().any(|p| p.contains("completed successfully")),
        "{:?}",
        r.problems()
    );
}
