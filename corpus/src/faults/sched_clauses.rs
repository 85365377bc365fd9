//! Faults of the sender's retransmission queue that the judge names under the queue's own
//! clauses as well as the NACK's: SND-SCHED-003.c and .d restate SND-NACK-004.a and .b for
//! the queue (conformance decision 54).

use openrdma_conformance::req;

use super::{Edits, Fault, fault};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[fault(
    "nack-backoff-halved",
    "the back-off timer of a window or resource NACK counts at twice its clock's rate: a \
     delayed retransmission goes when half of nack_backoff has passed",
    &[req::SND_NACK_004_A, req::SND_SCHED_003_C],
    // An 8 µs back-off: half of it is well before its end, beyond any tolerance.
    &["snd-nack-backoff-long"],
    Edits { config: Some(halve_backoff), ..Edits::NONE },
)];

fn halve_backoff(m: &mut openrdma_device::Manifest) {
    m.nic.nack_backoff /= 2;
}
