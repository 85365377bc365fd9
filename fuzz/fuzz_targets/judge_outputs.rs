#![no_main]
//! The judge on a committed scenario's reference outputs, changed as the bytes say: it
//! returns a judgement for any output list, never a panic.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openrdma_testkit::fuzzing::judge_outputs(data));
