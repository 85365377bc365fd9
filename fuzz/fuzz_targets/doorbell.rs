#![no_main]
//! Doorbell tokens and templates, through the codec's rules and a NIC.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openrdma_testkit::fuzzing::doorbell(data));
