#![no_main]
//! Whole-frame decode: never panics; decode -> emit -> decode is stable.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openrdma_testkit::fuzzing::frame_decode(data));
