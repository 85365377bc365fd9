//! Faults of the sender's retransmission queue whose delayed entry goes late: the NACK's
//! rule names the entry missing when its back-off ended (conformance decision 60).

use openrdma_conformance::req;

use super::{Edits, Fault, fault};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[fault(
    "nack-backoff-twice",
    "the back-off timer of a window or resource NACK counts at half its clock's rate: a \
     delayed retransmission waits twice nack_backoff",
    &[req::SND_NACK_004_A],
    // An 8 µs back-off, and two 2 µs and 4 µs ones whose PSN is acknowledged before twice
    // the back-off has passed: each entry is missing when its back-off ended.
    &["snd-nack-backoff-long", "snd-rtx-once", "snd-cc-sack"],
    Edits { config: Some(double_backoff), ..Edits::NONE },
)];

fn double_backoff(m: &mut openrdma_device::Manifest) {
    m.nic.nack_backoff *= 2;
}
