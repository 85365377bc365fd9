//! Faults of the responder's receive window kept wrong inside the device: `epsn` itself
//! moves wrongly, so the window decisions and every SACK read it wrong together
//! (RCV-WIN-003, conformance decision 63).

use openrdma_conformance::req;
use openrdma_sm::RecvFault;

use super::{Edits, Fault, fault};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[fault(
    "epsn-past-hole",
    "a PSN that fills the hole at the front of the bitmap while a later PSN is held moves \
     epsn one PSN too far: past the missing PSN after the run, which is later taken for a \
     duplicate and never placed",
    &[req::RCV_WIN_003],
    // A hole filled while a later PSN is held, and the PSN after the run sent later.
    &["rcv-psn-wrap", "ret-burst-before-next-input"],
    Edits { recv: Some(RecvFault::WalkPastHole), ..Edits::NONE },
)];
