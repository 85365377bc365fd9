#![no_main]
//! A responder NIC under hostile writes, probes, duplicates and timeouts.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openrdma_testkit::fuzzing::receiver(data));
