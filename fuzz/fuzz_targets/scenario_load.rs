#![no_main]
//! The scenario loader: a TOML manifest and a pcapng file (split at the first 0 byte)
//! never panic; what loads writes back and reads back equal.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| openrdma_testkit::fuzzing::scenario_load(data));
