//! Which outputs of a sequence the specification orders among themselves (CONF-CMP-060,
//! CONF-CMP-092).
//!
//! Retirement flags are ordered within a retirement domain (RET-ORDER-001, FLAG-ORDER-001):
//! one QP in per-QP retirement, the QPs of one `domain` number in shared retirement.
//! Completion entries are ordered within a set of QPs that a rule ties together: the
//! entries of one completion queue by its ring (CQE-RING-001), a QP's sender completions by
//! acceptance (CQE-SEND-003), the receive completions of a domain by retirement
//! (WWI-ORDER-001). The device error queue holds only rejections that name no template, and
//! so no QP (CQE-REJECT-002): it is a set of its own, joined with a QP only when the QP
//! reports to it too. Outputs of two sets may come in either order: no rule orders them,
//! and a device may make each output visible up to `late_ns / 2` later on its own
//! (CONF-TIME-004).

use std::collections::HashMap;

use openrdma_device::{Body, HostCommand, NicEvent, RetirementMode, Scenario};

/// A node of the sets: a QP, a shared retirement domain, or a completion queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Node {
    Qp(u32),
    Domain(u32),
    Cq(u32),
}

/// What ties a QP to others: its number, its `domain` and its completion queues.
#[derive(Debug, Clone, Copy)]
struct QpTies {
    qpn: u32,
    domain: u32,
    cqs: [Option<u32>; 2],
}

/// The order sets of a scenario's QPs, read from its `create_qp` and `set_error_cq`
/// commands and its retirement mode.
#[derive(Debug, Clone, Default)]
pub(in crate::judge) struct Orders {
    /// Each QP's retirement domain, as a key of its own.
    domain: HashMap<u32, u64>,
    /// Each node's set, named by its least node.
    set: HashMap<Node, Node>,
}

impl Orders {
    /// The sets of scenario `s`.
    pub(in crate::judge) fn of(s: &Scenario) -> Orders {
        let mut qps = Vec::new();
        let mut error_cq = None;
        for r in s.injects() {
            let Body::Host { command } = &r.body else { continue };
            match command {
                HostCommand::CreateQp(q) => qps.push(QpTies {
                    qpn: q.qpn.value(),
                    domain: q.domain.value(),
                    cqs: [q.send_cq, q.recv_cq].map(|c| c.map(|c| c.value())),
                }),
                HostCommand::SetErrorCq { cq } => error_cq = Some(cq.value()),
                _ => {}
            }
        }
        Orders::build(s.manifest.nic.retirement == RetirementMode::Shared, &qps, error_cq)
    }

    /// The sets of QPs `qps`, in shared or per-QP retirement, with the device error queue
    /// `error_cq`.
    fn build(shared: bool, qps: &[QpTies], error_cq: Option<u32>) -> Orders {
        let mut parent: HashMap<Node, Node> = HashMap::new();
        let mut orders = Orders::default();
        for q in qps {
            let qp = Node::Qp(q.qpn);
            find(&mut parent, qp);
            let key = if shared {
                union(&mut parent, qp, Node::Domain(q.domain));
                1 << 32 | u64::from(q.domain)
            } else {
                u64::from(q.qpn)
            };
            orders.domain.insert(q.qpn, key);
            for cq in q.cqs.into_iter().flatten() {
                union(&mut parent, qp, Node::Cq(cq));
            }
        }
        // The error queue orders its own entries; it ties no QP (CONF-CMP-092.b).
        if let Some(cq) = error_cq {
            find(&mut parent, Node::Cq(cq));
        }
        let nodes: Vec<Node> = parent.keys().copied().collect();
        for n in nodes {
            let root = find(&mut parent, n);
            orders.set.insert(n, root);
        }
        orders
    }

    /// The retirement domain of a responder flag of QP `qpn`; `None` for a QP the scenario
    /// does not create, which is then ordered with every other such output.
    pub(in crate::judge) fn domain(&self, qpn: u32) -> Option<u64> {
        self.domain.get(&qpn).copied()
    }

    /// The set of a completion entry: its queue's, or, written without a place in memory,
    /// its QP's.
    pub(in crate::judge) fn entry_set(&self, e: &NicEvent) -> Option<u64> {
        let NicEvent::Completion(c) = e else { return None };
        let node = match c.queue {
            Some(q) => Node::Cq(q.cq.value()),
            None => Node::Qp(c.entry.qpn.value()),
        };
        self.set.get(&node).map(|root| match *root {
            Node::Qp(q) => u64::from(q),
            Node::Domain(d) => 1 << 32 | u64::from(d),
            Node::Cq(c) => 2 << 32 | u64::from(c),
        })
    }
}

/// The root of `n`'s set, halving the path on the way.
fn find(parent: &mut HashMap<Node, Node>, n: Node) -> Node {
    let mut x = n;
    loop {
        let p = *parent.entry(x).or_insert(x);
        if p == x {
            return x;
        }
        let gp = *parent.entry(p).or_insert(p);
        parent.insert(x, gp);
        x = gp;
    }
}

/// Joins the sets of `a` and `b`, rooted at the lesser root, so that the result does not
/// depend on the order of the commands.
fn union(parent: &mut HashMap<Node, Node>, a: Node, b: Node) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    let (lo, hi) = if ra <= rb { (ra, rb) } else { (rb, ra) };
    parent.insert(hi, lo);
}

#[cfg(test)]
mod tests {
    use openrdma_codec::host::{CompletionRepr, CompletionStatus, FlagRepr};
    use openrdma_codec::{Msn, Qpn};
    use openrdma_device::{CompletionEvent, CqId, CqWrite, FlagWrite, Side};

    use super::super::{Seq, in_order, pair};
    use super::*;

    fn ties(qpn: u32, domain: u32, cq: Option<u32>) -> QpTies {
        QpTies { qpn, domain, cqs: [cq, None] }
    }

    fn recv_flag(qpn: u32, msn: u16) -> NicEvent {
        NicEvent::FlagWrite(FlagWrite {
            qpn: Qpn::new(qpn),
            side: Side::Responder,
            msn: Msn::new(msn),
            addr: 0x2000_0000 + 0x1_0000 * u64::from(qpn) + 8 * u64::from(msn),
            value: FlagRepr::new(msn, CompletionStatus::SUCCESS, 64).to_u64(),
        })
    }

    fn entry(qpn: u32, msn: u16) -> NicEvent {
        let entry = CompletionRepr { qpn: Qpn::new(qpn), msn: Msn::new(msn), ..Default::default() };
        NicEvent::Completion(CompletionEvent { side: Side::Requester, entry, queue: None })
    }

    /// An entry of QP `qpn` written to slot `slot` of queue `cq`.
    fn entry_in(qpn: u32, slot: u32, cq: u32) -> NicEvent {
        let NicEvent::Completion(mut c) = entry(qpn, slot as u16) else { unreachable!() };
        c.queue = Some(CqWrite {
            cq: CqId::new(cq),
            slot,
            addr: 0x5000_0000 + 0x1_0000 * u64::from(cq) + 32 * u64::from(slot),
            bytes: c.entry.to_bytes(),
        });
        NicEvent::Completion(c)
    }

    /// Whether every output of `got` is in order, `want` being the order expected.
    fn all_in_order(seq: Seq, want: &[&NicEvent], got: &[&NicEvent], orders: &Orders) -> bool {
        let want: Vec<_> = want.iter().enumerate().map(|(i, e)| (1_000, *e, i)).collect();
        let got: Vec<_> = got.iter().enumerate().map(|(i, e)| (1_000, *e, i)).collect();
        let (pairs, _, _) = pair(&want, &got);
        in_order(seq, &pairs, &want, orders).iter().all(|k| *k)
    }

    /// CONF-CMP-092: retirement flags of two domains come in either order, those of one
    /// domain in theirs.
    #[test]
    fn retirement_flags_are_ordered_per_domain() {
        let (a, b) = (recv_flag(0x11, 0), recv_flag(0x12, 0));
        let per_qp = Orders::build(false, &[ties(0x11, 0, None), ties(0x12, 0, None)], None);
        assert!(all_in_order(Seq::ResponderFlags, &[&a, &b], &[&b, &a], &per_qp));
        let shared = Orders::build(true, &[ties(0x11, 0, None), ties(0x12, 0, None)], None);
        assert!(!all_in_order(Seq::ResponderFlags, &[&a, &b], &[&b, &a], &shared));
        let two = Orders::build(true, &[ties(0x11, 0, None), ties(0x12, 1, None)], None);
        assert!(all_in_order(Seq::ResponderFlags, &[&a, &b], &[&b, &a], &two));
        // A QP the scenario does not create is ordered with every other such one.
        assert!(!all_in_order(Seq::ResponderFlags, &[&a, &b], &[&b, &a], &Orders::default()));
    }

    /// CONF-CMP-092: entries of QPs that share no queue and no domain come in either order.
    #[test]
    fn entries_are_ordered_per_queue_and_domain() {
        let (a, b) = (entry(0x11, 0), entry(0x12, 0));
        let apart = Orders::build(false, &[ties(0x11, 0, Some(1)), ties(0x12, 0, Some(2))], None);
        assert!(all_in_order(Seq::RequesterEntries, &[&a, &b], &[&b, &a], &apart));
        let one_cq = Orders::build(false, &[ties(0x11, 0, Some(1)), ties(0x12, 0, Some(1))], None);
        assert!(!all_in_order(Seq::RequesterEntries, &[&a, &b], &[&b, &a], &one_cq));
        let shared = Orders::build(true, &[ties(0x11, 0, Some(1)), ties(0x12, 0, Some(2))], None);
        assert!(!all_in_order(Seq::ResponderEntries, &[&a, &b], &[&b, &a], &shared));
        // The device error queue ties no QP: entries of two queues still come in either
        // order, and an error entry may pass a QP's.
        let error_cq = Some(3);
        let err = Orders::build(false, &[ties(0x11, 0, Some(1)), ties(0x12, 0, Some(2))], error_cq);
        assert!(all_in_order(Seq::RequesterEntries, &[&a, &b], &[&b, &a], &err));
        let (qa, e0, e1) = (entry_in(0x11, 0, 1), entry_in(0, 0, 3), entry_in(0, 1, 3));
        assert!(all_in_order(Seq::RequesterEntries, &[&qa, &e0], &[&e0, &qa], &err));
        // Its own entries keep their ring's order.
        assert!(!all_in_order(Seq::RequesterEntries, &[&e0, &e1], &[&e1, &e0], &err));
        // A QP that reports to the error queue is ordered with it.
        let joined = Orders::build(false, &[ties(0x11, 0, Some(3))], error_cq);
        let qa3 = entry_in(0x11, 0, 3);
        assert!(!all_in_order(Seq::RequesterEntries, &[&qa3, &e0], &[&e0, &qa3], &joined));
        // One QP's two entries swapped: out of order.
        let a1 = entry(0x11, 1);
        assert!(!all_in_order(Seq::RequesterEntries, &[&a, &a1], &[&a1, &a], &apart));
    }

    #[test]
    fn sets_join_through_shared_nodes() {
        let mut p = HashMap::new();
        union(&mut p, Node::Qp(0x12), Node::Cq(2));
        union(&mut p, Node::Qp(0x11), Node::Cq(1));
        assert_ne!(find(&mut p, Node::Qp(0x11)), find(&mut p, Node::Qp(0x12)));
        union(&mut p, Node::Qp(0x13), Node::Cq(1));
        assert_eq!(find(&mut p, Node::Qp(0x13)), Node::Qp(0x11));
        union(&mut p, Node::Cq(2), Node::Qp(0x13));
        assert_eq!(find(&mut p, Node::Qp(0x12)), Node::Qp(0x11));
        assert_eq!(find(&mut p, Node::Cq(2)), Node::Qp(0x11));
    }
}
