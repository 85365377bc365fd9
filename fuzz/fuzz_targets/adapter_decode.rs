#![no_main]
//! The adapter-protocol decoder: any line is a message or a typed error, never a panic.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openrdma_testkit::fuzzing::adapter_decode(data));
