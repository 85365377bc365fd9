//! Faults of the receive side whose first divergence must name the field that is wrong,
//! not a consequence of pairing an output with the wrong expectation: a receive entry
//! whose MSN or QPN is another message's, and a ring whose producer index wraps early.
//! A receive entry carries no token of its own, so each of its fields, and its slot, may
//! be the one a device gets wrong.

use std::collections::HashMap;

use openrdma_codec::Qpn;
use openrdma_conformance::req;
use openrdma_device::{CqId, HostCommand, Input, NicEvent, Output, Side, TimedInput, TimedOutput};

use super::widths::rewrite_entry;
use super::{Batch, Edits, Fault, Stream, fault};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    fault(
        "recv-cqe-msn-next",
        "a receive completion carries the MSN counter after its message, its MSN plus one, which is the next message's MSN",
        &[req::CQE_RECV_001],
        // rcv-wwi-order: the first message's entry carries the second's MSN.
        &["rcv-wwi-order", "rcv-cq-two-qps", "rcv-in-order-v4"],
        Edits { event_out: Some(recv_msn_next), ..Edits::NONE },
    ),
    fault(
        "recv-cqe-qpn-latched",
        "the receive-completion builder latches the QPN of the first receive completion it writes: the entries of other QPs carry that QPN",
        &[req::CQE_RECV_001, req::CQE_ROUTE_001],
        &["rcv-cq-two-qps"],
        Edits { stream: Some(|_| Box::<QpnLatched>::default()), ..Edits::NONE },
    ),
    fault(
        "cq-wrap-early",
        "a completion queue's producer index wraps when it reaches N - 1, not N: the last slot is never written and the phase flips one entry early",
        &[req::CQE_RING_001],
        &["ret-cq-wrap", "ret-cq-overflow", "rcv-cq-receive", "ret-cq-wrap-1k"],
        Edits { stream: Some(|_| Box::<WrapEarly>::default()), ..Edits::NONE },
    ),
];

fn recv_msn_next(e: &mut NicEvent) -> bool {
    if let NicEvent::Completion(c) = e {
        if c.side == Side::Responder {
            rewrite_entry(c, |x| x.msn = x.msn.next());
        }
    }
    true
}

/// The QPN of the first receive completion written.
#[derive(Debug, Default)]
struct QpnLatched {
    first: Option<Qpn>,
}

impl Stream for QpnLatched {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event: NicEvent::Completion(c) } = &mut o.output else { continue };
            if c.side != Side::Responder {
                continue;
            }
            let qpn = *self.first.get_or_insert(c.entry.qpn);
            rewrite_entry(c, |x| x.qpn = qpn);
        }
        outputs
    }
}

/// Base, size and entries written of each completion queue: the index wraps at N - 1.
#[derive(Debug, Default)]
struct WrapEarly {
    cqs: HashMap<CqId, (u64, u64, u64)>,
}

impl Stream for WrapEarly {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::CreateCq(c) } = &i.input {
                self.cqs.insert(c.cq, (c.base, u64::from(c.entries), 0));
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event: NicEvent::Completion(c) } = &mut o.output else { continue };
            let Some(q) = c.queue else { continue };
            let Some((base, n, count)) = self.cqs.get_mut(&q.cq) else { continue };
            let k = *count;
            *count += 1;
            if *n < 2 {
                continue;
            }
            // Slot k mod (N - 1), with the phase of pass k div (N - 1).
            let (pass, slot) = (k / (*n - 1), k % (*n - 1));
            rewrite_entry(c, |e| e.phase = pass % 2 == 0);
            if let Some(w) = c.queue.as_mut() {
                w.slot = slot as u32;
                w.addr = *base + 32 * slot;
            }
        }
        outputs
    }
}
