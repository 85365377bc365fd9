//! Faults that prove how the judge names a completion queue stopped while it had a free
//! slot: the entry that is missing is named by the rule that says when a queue is full,
//! not by the rule that makes the entry due.

use openrdma_conformance::req;
use openrdma_device::HostCommand;

use super::{Edits, Fault, fault};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[fault(
    "cq-size-log2-short",
    "the queue-size register takes log2 of the number of entries one short: a queue of N \
     entries is found full after N/2, and its QPs fail while it has free slots",
    &[req::CQE_RING_004_B],
    // Its first sign is a requester entry the queue had room for, missing where the device
    // stopped the queue and reported its QPs failed for it.
    &["ret-cq-overflow"],
    Edits { host_in: Some(half_size), ..Edits::NONE },
)];

/// A completion queue created with half its number of entries.
fn half_size(c: &mut HostCommand) {
    if let HostCommand::CreateCq(q) = c {
        if q.entries > 1 {
            q.entries /= 2;
        }
    }
}
