//! The device boundary of OpenRDMA (`spec/conformance.md` section 1): what a NIC under test
//! consumes and produces, how it is configured and driven, and the scenario format — the
//! types every implementation, the reference model and the conformance suite share.
//!
//! * Time: [`Timestamp`], nanoseconds from the start of a scenario.
//! * Inputs: frames per port, [`HostCommand`] (queue pairs, regions, local keys, completion
//!   queues, templates, doorbell tokens and doorbell-register writes, consumer-register
//!   writes, work requests) and [`CpuCommand`] (what the CPU half of recovery commands),
//!   as [`Input`]s at their times ([`TimedInput`]).
//! * Outputs: frames per port and [`NicEvent`]s (DMA writes, flag writes, completions,
//!   reports to the CPU half), as [`Output`]s at their times ([`TimedOutput`]).
//! * The [`Device`] trait, through which the runner drives a device in batches, with its
//!   [`Capability`]s and [`DeviceError`]; the host-memory pattern every scenario fills
//!   memory with ([`memory`]).
//! * The CPU half of recovery as a device or the runner plays it: [`RecoveryCpu`], made by
//!   a [`CpuHalfFactory`].
//! * The scenario format as data: [`Scenario`], its [`Manifest`] (with the device's
//!   [`NicSettings`] and [`RecoverySettings`], versioned) and its [`Record`]s, and the
//!   values a manifest may hold ([`Manifest::validate`], [`ManifestError`]).
//! * One [`Error`] that holds either error of the crate and names the requirement it
//!   enforces ([`Error::requirement`]).
//! * The numbers of what software creates on a device and no format carries: [`CqId`]
//!   and [`DomainId`]. The numbers the formats carry (PSNs, QPNs, EVs, MSNs, keys, template
//!   IDs) are the codec's types.
//!
//! Every type has a serde form, which is its JSON in the adapter protocol and in the host
//! records and manifests of scenario files; those forms are part of the specification.
//!
//! This crate depends on the codec (`openrdma-codec`) for the wire and host formats the
//! boundary carries (PSNs, QPNs, EVs, MSNs, keys, templates, work requests, completion
//! entries, addresses), and on nothing of the reference model: a change inside the model
//! cannot change the boundary. The model (`openrdma-sm`) implements [`Device`]; the conformance suite
//! (`openrdma-conformance`) drives and judges any implementation of it.
//!
//! Every value of a manifest is checked before a device is configured with it; an error
//! names the key, the value and the rule:
//!
//! ```
//! use openrdma_device::NicSettings;
//!
//! let mut nic = NicSettings { pmtu: 1500, ..NicSettings::default() };
//! let e = nic.validate().unwrap_err();
//! assert_eq!(e.key, "nic.pmtu");
//! assert!(e.reason.contains("SND-SEG-001"));
//! nic.pmtu = 4096;
//! assert!(nic.validate().is_ok());
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod cpu;
pub mod device;
mod error;
pub mod ev;
pub mod event;
mod fields;
mod hex;
pub mod host;
pub mod id;
pub mod scenario;
pub mod start;
pub mod time;
pub mod validate;

pub use config::{
    MANIFEST_VERSION, ManifestVersion, NicSettings, RecoverySettings, RetirementMode,
};
pub use cpu::{CpuHalfFactory, RecoveryCpu};
pub use device::{
    Capability, Device, DeviceError, Input, Output, TimedInput, TimedOutput, memory, memory_byte,
};
pub use error::Error;
pub use ev::{EvMark, EvState};
pub use event::{
    CompletionEvent, CpuCommand, CqWrite, DmaWrite, FlagWrite, NicEvent, NicReport, Payload,
    RetransmitCause, Side,
};
pub use fields::{ext_json, frame_fields_json};
pub use host::{
    CQE_BYTES, CongestionControl, CqConfig, DoorbellWrite, HostCommand, LocalRegion,
    MAX_CQ_ENTRIES, QpConfig, Region, SprayPolicy,
};
pub use id::{CqId, DomainId};
pub use scenario::{Body, CpuHalf, Direction, Link, Manifest, Record, Scenario, Tolerances};
pub use start::{DomainStart, StartState, TemplateStart};
pub use time::Timestamp;
pub use validate::{ManifestError, is_requirement_ref, requirement_of};
