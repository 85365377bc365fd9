//! Faults that prove how the judge names a difference on the sending side and in the
//! reports to the CPU half: each is caught, and its first divergence names the rule it
//! breaks rather than one the difference only resembles.

use openrdma_conformance::req;
use openrdma_device::{EvState, NicEvent, NicReport};

use super::{Edits, Fault, fault};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[fault(
    "ev-state-bad-reported-skip",
    "the state encoder of EvState reports maps ASSUMED_BAD to SKIP: the EV enters ASSUMED_BAD and acts so, but its report says SKIP",
    &[req::REC_IF_016],
    &["snd-ev-always-skip", "snd-ev-probe-skip", "rec-split-assumed-bad", "rec-split-skip-expiry"],
    Edits { event_out: Some(bad_said_skip), ..Edits::NONE },
)];

/// Rewrites the state of an `EvState` report from ASSUMED_BAD to SKIP, and keeps every
/// event.
fn bad_said_skip(e: &mut NicEvent) -> bool {
    if let NicEvent::Report(NicReport::EvState { state: s @ EvState::AssumedBad, .. }) = e {
        *s = EvState::Skip;
    }
    true
}
