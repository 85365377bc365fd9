//! Faults that prove a clause the judge names directly, where it named another rule the
//! same bug breaks: a sender whose MSN counter spans QPs that are each a retirement
//! domain of their own breaks the rule that makes each QP its own domain, and the judge
//! names that rule (RET-DOMAIN-001), as it names the sender's counter rule (SND-MSN-001)
//! for a counter kept per QP in a shared domain (`msn-counter-per-qp`).

use openrdma_conformance::req;

use super::retire::{Counter, MsnRenumbered};
use super::{Fault, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[stream(
    "msn-counter-per-device",
    "in per-QP retirement the sender keeps one MSN counter for the whole device, not one \
     per QP: each message takes the count of every earlier message of the device, so a QP \
     that sends after another starts above 0",
    &[req::RET_DOMAIN_001, req::SND_MSN_001],
    // Its first sign is the first packet of the first message of the second QP that sends.
    &["ret-cq-overflow", "snd-ack-nak"],
    |_| Box::new(MsnRenumbered::new(Counter::PerDevice)),
)];
