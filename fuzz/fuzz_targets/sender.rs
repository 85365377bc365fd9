#![no_main]
//! A requester NIC under hostile SACKs, NACKs, AETHs, CPU commands and timeouts.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openrdma_testkit::fuzzing::sender(data));
