//! Legitimate variants of a fifth reading: outputs of QPs that no rule orders among
//! themselves, made visible in another order than the reference's (CONF-CMP-092).

use openrdma_conformance::req::*;
use openrdma_device::{NicEvent, Output, RetirementMode, Side};

use super::variants::{LateSome, Variant, variant};
use super::{Caps, Edits};

/// The variants of the fifth reading.
pub static VARIANTS: &[Variant] = &[
    variant(
        "recv-writes-odd-qps-late",
        "in per-QP retirement, its host bus has a second, slower queue for odd QPs: their \
         payload writes and retirement flags, and the receive completions of an odd queue (or \
         of an odd QP, without one), become visible half of late_ns later, each QP's writes in \
         order, so that two QPs retire in another order, which no rule fixes",
        &[CONF_TIME_004, CONF_CMP_092_A, CONF_CMP_092_B],
        Caps::Same,
        Edits {
            stream: Some(|m| {
                let per_qp = m.nic.retirement == RetirementMode::PerQp;
                let delay = if per_qp { m.tolerances.late_ns / 2 } else { 0 };
                Box::new(LateSome::new(delay, is_odd_receive_write))
            }),
            ..Edits::NONE
        },
    ),
    variant(
        "sender-notes-odd-queues-late",
        "its completion engine writes through two queues, one slower: the sender completions \
         of an odd completion queue (or of an odd QP, without a queue) become visible half of \
         late_ns later, and each sender flag waits for them (ORD-SEND-001), so that the \
         entries of two queues come in another interleaving, which no rule fixes",
        &[CONF_TIME_004, CONF_CMP_092_B, CONF_CMP_060],
        Caps::Same,
        Edits {
            stream: Some(|m| {
                Box::new(
                    LateSome::new(m.tolerances.late_ns / 2, is_odd_sender_entry)
                        .waiting(is_sender_flag),
                )
            }),
            ..Edits::NONE
        },
    ),
];

/// A sender completion of an odd completion queue, or of an odd QP without one.
fn is_odd_sender_entry(o: &Output) -> bool {
    let Output::Event { event: NicEvent::Completion(c) } = o else { return false };
    let n = c.queue.map_or(c.entry.qpn.value(), |q| q.cq.value());
    c.side == Side::Requester && n & 1 == 1
}

/// A payload write or retirement flag of an odd QP, or a receive completion of an odd
/// completion queue (or of an odd QP, without one).
fn is_odd_receive_write(o: &Output) -> bool {
    let Output::Event { event } = o else { return false };
    match event {
        NicEvent::DmaWrite(w) => w.qpn.value() & 1 == 1,
        NicEvent::FlagWrite(f) => f.side == Side::Responder && f.qpn.value() & 1 == 1,
        NicEvent::Completion(c) => {
            let n = c.queue.map_or(c.entry.qpn.value(), |q| q.cq.value());
            c.side == Side::Responder && n & 1 == 1
        }
        _ => false,
    }
}

/// A sender flag.
fn is_sender_flag(o: &Output) -> bool {
    matches!(o, Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Requester)
}
