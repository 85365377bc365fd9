//! Faults of the wire: an encoder bug in the frames the device sends (a field, a reserved
//! bit, a length, a checksum, an EV in the wrong place), or a wrong reading of the frames
//! it receives.

use super::Fault;

/// Every wire fault.
pub static FAULTS: &[Fault] = &[];
