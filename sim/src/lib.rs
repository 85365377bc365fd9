//! Multipath fabric simulator for OpenRDMA.
//!
//! Reference endpoints ([`openrdma_sm::Endpoint`]: the NIC model and its CPU recovery
//! agent) on two or more hosts, connected by N paths. Each path has a rate, a propagation
//! delay and a skew, a FIFO output queue with a byte limit, a loss process (random,
//! bursty Gilbert–Elliott, or aimed at chosen packets) and outages. A packet takes the
//! path its entropy value hashes to, as in an ECMP fabric; packets are forwarded as
//! header `Repr`s with payload descriptors, never as bytes, and occupy each link for
//! [`wire_bytes`] byte times. The NICs' pipelines and memory writes take the latencies of
//! [`NicTiming`].
//!
//! The ports, switches and paths are the model's `openrdma_sm::Fabric`, with time in
//! picoseconds: a packet handed over waits for its port (`Fate::Hop` at the switch), where
//! the fabric decides again (dropped, or delivered at a time); a NIC whose ports' transmit
//! buffers are full is held back (`Fabric::room`) until they free a place
//! (`Fabric::wake`). The engine around it keeps the hosts' endpoints, their timers and the
//! events in time order (see [`engine`]).
//!
//! The simulator is a deterministic discrete-event engine: the same [`SimConfig`] gives
//! the same [`SimReport`], field for field. It keeps counters and fixed-size histograms,
//! never a per-packet history, so memory stays bounded by the windows however long the
//! run.
//!
//! ```
//! use openrdma_sim::{simulate, SimConfig};
//!
//! let mut cfg = SimConfig::default();
//! cfg.flows[0].qps = 2;
//! cfg.flows[0].messages = 3;
//! let report = simulate(cfg).unwrap();
//! assert!(report.is_correct(), "{:?}", report.problems());
//! ```
//!
//! Every error of the crate (configuration, set-up, run file, run options, plots) converts
//! into the one [`Error`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod engine;
mod error;
pub mod hist;
pub mod paper;
pub mod path;
pub mod plot;
mod queue;
pub mod report;
pub mod runspec;
pub mod wire;

pub use config::{
    AimedDrop, FlowConfig, LossModel, NicTiming, Outage, PathConfig, SimConfig, SimConfigError,
};
pub use engine::{Progress, Sim, SimError, Tapped, qp_number, simulate};
pub use error::Error;
pub use hist::{Histogram, Percentiles};
pub use path::ecmp_path;
pub use report::{Drops, PathReport, Retransmissions, SimReport};
pub use runspec::{RunFileError, RunSpec, RunSpecError};
pub use wire::wire_bytes;
