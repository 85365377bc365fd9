//! Test support of OpenRDMA, kept out of the published libraries: the bodies of the fuzz
//! targets and the workload on which the model's speed is measured.
//!
//! * [`fuzzing`]: every fuzz target of the `fuzz/` workspace as an ordinary function. The
//!   fuzz targets call them from libFuzzer, and this crate's tests run them over the
//!   committed seed corpora, so that an input the fuzzer found is a regression test too.
//! * [`loopback`]: two reference NICs back to back, the workload of the model's benchmark
//!   (`benches/model.rs`), of the `model_loop` example and of `openrdma bench`. The
//!   benchmark and the example live here, with their workload, and not in `openrdma-sm`:
//!   this crate depends on the conformance suite, which depends on the model, so the model
//!   must not depend on it, even for its tests.
//!
//! The crate is never published (`publish = false`).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod fuzzing;
pub mod loopback;
