//! Faults of the weak-catch reading, which the judge passed wherever what they break did not
//! show elsewhere: a mark or probe answer reported for the EV read with its two halves
//! swapped (CONF-CMP-128).

use openrdma_codec::Ev;
use openrdma_conformance::req;
use openrdma_device::{NicEvent, NicReport};

use super::{Edits, Fault, fault};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[fault(
    "report-mark-ev-halves-swapped",
    "the report stage reads the SACK's entropy with its two 16-bit halves swapped: EvMarked \
     and ProbeAnswered name another EV, while the EV state kept is right",
    &[req::REC_IF_005, req::REC_IF_007],
    &["snd-ev-always-skip", "snd-ev-probe-skip"],
    Edits { event_out: Some(swap_mark_ev), ..Edits::NONE },
)];

/// Swaps the halves of the EV of an `EvMarked` or `ProbeAnswered`.
fn swap_mark_ev(e: &mut NicEvent) -> bool {
    if let NicEvent::Report(NicReport::EvMarked { ev, .. } | NicReport::ProbeAnswered { ev, .. }) =
        e
    {
        *ev = Ev::new(ev.value().rotate_left(16));
    }
    true
}
