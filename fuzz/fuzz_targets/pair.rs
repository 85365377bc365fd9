#![no_main]
//! Two endpoints over 2-4 paths; the input decides each packet's fate.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openrdma_testkit::fuzzing::pair(data));
