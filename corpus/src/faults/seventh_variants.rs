//! Legitimate variants of a seventh reading: a device error queue written through a write
//! queue of its own, whose entries no rule orders with another queue's (CONF-CMP-092).

use openrdma_codec::host::WrOpcode;
use openrdma_conformance::req::*;
use openrdma_device::{NicEvent, Output};

use super::variants::{LateSome, Variant, variant};
use super::{Caps, Edits};

/// The variants of the seventh reading.
pub static VARIANTS: &[Variant] = &[variant(
    "error-queue-late",
    "its rejection engine writes the device error queue through a write queue of its own, \
     half of late_ns slower than its completion engine: an entry of a token with a bad \
     version or an unknown template may come after entries of QPs made after it, which no \
     rule orders with it (CQE-REJECT-002 names the queue, CQE-RING-001 orders its ring)",
    &[CONF_TIME_004, CONF_CMP_092_B],
    Caps::Same,
    Edits {
        stream: Some(|m| Box::new(LateSome::new(m.tolerances.late_ns / 2, is_error_queue_entry))),
        ..Edits::NONE
    },
)];

/// An entry of the device error queue: the completion of a token whose rejection names no
/// template, with `qpn` 0 and opcode NONE (CQE-REJECT-001, CQE-REJECT-002).
fn is_error_queue_entry(o: &Output) -> bool {
    let Output::Event { event: NicEvent::Completion(c) } = o else { return false };
    let e = c.written_entry();
    e.opcode == WrOpcode::NONE && e.qpn.value() == 0 && !e.is_receive
}
