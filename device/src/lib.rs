//! The device boundary of OpenRDMA (`spec/conformance.md` section 1): what a NIC under test
//! consumes and produces, in the types every implementation, the reference model and the
//! conformance suite share.
//!
//! * Time: [`Timestamp`], nanoseconds from the start of a scenario.
//! * Inputs: [`HostCommand`] (queue pairs, regions, local keys, completion queues,
//!   templates, doorbell tokens and doorbell-register writes, consumer-register writes, work
//!   requests) and [`CpuCommand`] (what the CPU half of recovery commands).
//! * Outputs besides frames: [`NicEvent`] (DMA writes, flag writes, completions, reports to
//!   the CPU half).
//! * Entropy values: [`EvState`] and [`EvMark`].
//!
//! Every type has a serde form, which is its JSON in the adapter protocol and in the host
//! records of a scenario file; those forms are part of the specification and do not change.
//!
//! This crate depends on the codec (`openrdma-codec`) for the wire and host formats the
//! boundary carries (PSNs, QPNs, templates, work requests, completion entries), and on
//! nothing of the reference model: a change inside the model cannot change the boundary.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod ev;
pub mod event;
mod hex;
pub mod host;
pub mod time;

pub use config::{
    MANIFEST_VERSION, ManifestVersion, NicSettings, RecoverySettings, RetirementMode,
};
pub use ev::{EvMark, EvState};
pub use event::{
    CompletionEvent, CpuCommand, CqWrite, DmaWrite, FlagWrite, NicEvent, NicReport, Payload,
    RetransmitCause, Side,
};
pub use host::{
    CQE_BYTES, CongestionControl, CqConfig, DoorbellWrite, HostCommand, LocalRegion,
    MAX_CQ_ENTRIES, QpConfig, Region, SprayPolicy,
};
pub use time::Timestamp;
