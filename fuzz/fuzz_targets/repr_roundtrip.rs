#![no_main]
//! Arbitrary Reprs of every header and host format, and whole finalized frames:
//! emit -> parse gives the same Repr and the same bytes; short buffers are errors.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openrdma_testkit::fuzzing::repr_roundtrip(data));
