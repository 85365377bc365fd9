//! The scenario corpus of OpenRDMA and the tools that make it: what the conformance suite
//! is run on, not what it is.
//!
//! * The builders ([`all`]): each records one scenario from the reference model
//!   (`spec/conformance.md` section 4, `CONF-GEN-*`). `openrdma traces regenerate` writes
//!   them to `traces/scenarios`, byte for byte as committed; `openrdma run` runs them.
//! * The recorder ([`record::Recorder`]): a reference NIC as the device under test, given
//!   a builder's script or a reference peer across a deterministic fabric, and the CPU half
//!   played as the manifest's `cpu` says.
//! * The fault registry ([`faults`]): every fault the suite proves it catches and every
//!   legitimate variant it proves it passes, as data, and the one device that applies them
//!   (`openrdma run --impl faulty:NAME`, `variant:NAME`).
//! * The requirement matrix ([`matrix`]): `spec/matrix.md`, from the specification, this
//!   corpus and the citations in the repository's sources.
//!
//! It depends on the model (`openrdma-sm`), which it records and mutates; on the device
//! boundary (`openrdma-device`), whose scenario types it builds; and on the conformance
//! suite (`openrdma-conformance`) for the requirement list and for the scoreboard's rules,
//! which name what each recorded frame checks. It is never published: the suite and the
//! boundary are the products, and the corpus ships as files in `traces/`.
//!
//! Its tests hold the suite's tests that need the model: the runner, the judge and the
//! reports run on the corpus against the reference device and the faulty ones. The
//! suite's own tests never build the model.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod faults;
pub mod matrix;
pub mod record;
mod scenarios;

pub use scenarios::{
    Builder, DUT_QP, PEER_QP, PMTU, REGION, REGION_LEN, RKEY, all, probe, qp, write,
};
