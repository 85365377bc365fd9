//! The OpenRDMA reference model as a C library: a golden model for testbenches.
//!
//! The library is the reference model's device (`openrdma_sm::ReferenceDevice`) — the
//! reference NIC every device is judged against — behind a C interface (`include/openrdma.h`, generated from this
//! crate). A testbench creates an instance from a scenario manifest, pushes the inputs its
//! device under test receives (frames per port, host commands, CPU commands), lets time
//! run, and pops what the golden model produced (frames per port, DMA writes, flag writes,
//! completions, reports) to compare with what its device produced. See `README.md` for the
//! C, Python and SystemVerilog DPI-C uses.
//!
//! The contract, for every function:
//!
//! * every function that can fail returns an `openrdma_status`; the message of a failure
//!   is `openrdma_last_error(m)` (or `openrdma_last_error(NULL)` for a constructor);
//! * NULL pointers, strings that are not UTF-8, JSON that is not the expected object and
//!   out-of-range arguments are errors, never crashes; no panic crosses the boundary;
//! * there is no global state: instances are independent, and an instance may move
//!   between threads, but only one thread may use it at a time;
//! * time is an input: nothing reads a clock, and the same inputs give the same outputs.
//!
//! The Rust side, [`Model`], is usable directly from Rust as well.
//!
//! It links the model (`openrdma-sm`), the device boundary whose types and JSON it takes
//! and gives (`openrdma-device`) and the codec, and not the conformance suite.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod ffi;
pub mod model;
pub mod types;

pub use model::{Error, Model};
pub use types::*;
