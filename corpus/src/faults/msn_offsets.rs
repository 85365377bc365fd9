//! Faults of the offset arithmetic of the retirement table (`RET-CAP-002`): the device
//! checks retirement, but places some MSNs in the wrong range. Each is the reference NIC
//! whose DMA engine places the writes at the offsets its arithmetic gets wrong.

use openrdma_conformance::req;

use super::Fault;
use super::discards::{Check, places};

/// Every fault of the offset arithmetic.
pub static FAULTS: &[Fault] = &[places(
    "msn-offset-gap",
    "the retired range is taken as offsets above 2^15, and the range beyond the table as \
     offsets from C below 2^15: an MSN exactly 2^15 after the next MSN falls in neither, \
     passes for pending and is placed",
    &[req::RET_CAP_002, req::FLAG_LAST_002],
    &["rcv-msn-offsets"],
    Check::Half,
)];
