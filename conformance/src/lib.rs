//! The OpenRDMA conformance suite: the judge of a device under test.
//!
//! * [`file`](mod@file) and [`capture`]: scenarios on disk (a pcapng file beside a TOML manifest) and
//!   captures of what a device did.
//! * [`runner`]: replays a scenario into any [`openrdma_device::Device`], in batches, playing
//!   the CPU half of recovery it is given where the scenario asks for one.
//! * [`protocol`] and [`process`]: the adapter protocol, through which a device in another
//!   process is driven, both sides of it.
//! * [`judge`] (formerly `scoreboard`): judges what a device produced against what the scenario expects.
//! * [`requirements`] and [`report`]: the specification's requirement list, verdicts,
//!   coverage, and the reports for people, CI and tools; [`req`]: the specification's
//!   clauses as typed constants, generated from it.
//!
//! It depends on the device boundary (`openrdma-device`), which defines what it drives and
//! the scenario format, and on the codec (`openrdma-codec`), which decodes the frames it
//! judges; never on the reference model. The model implements the boundary like any other
//! device (`openrdma_sm::ReferenceDevice`), and the command line wires it in; the corpus
//! the suite runs is recorded by `openrdma-corpus`.
//!
//! The specification travels with the suite, clause by clause:
//!
//! ```
//! use openrdma_conformance::requirements::{Level, Spec};
//!
//! let spec = Spec::bundled().unwrap();
//! let ack = spec.clause("RCV-ACK-002.b").unwrap();
//! assert_eq!(ack.level(), Level::Must);
//! assert!(ack.text().contains("EV"));
//! ```
//!
//! `examples/your_device.rs` shows a device of your own run through the whole corpus.
//!
//! Every error of the crate (files, captures, the adapter protocol, a device, the built-in
//! specification) converts into the one [`Error`], which names the clause it enforces.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod capture;
mod error;
pub mod file;
pub mod judge;
pub mod placement;
pub mod process;
pub mod protocol;
pub mod report;
pub mod req;
pub mod requirements;
pub mod runner;
pub mod timeline;

pub use error::Error;
/// The judge under its former name, for code written against it.
pub use judge as scoreboard;
