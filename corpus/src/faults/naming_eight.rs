//! Faults that prove how the judge names a SACK the sender does not take as a whole: it
//! misreads a field, finds the SACK claims a PSN never sent, and discards it. What shows is
//! a consequence, a resend of a PSN the SACK acknowledged with no `Progress` for that SACK;
//! the first divergence names the rule the sender broke by dropping the SACK.

use openrdma_codec::Psn;
use openrdma_codec::frame::decode;
use openrdma_conformance::req;

use super::{Edits, Fault, fault, refit};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[fault(
    "sack-cack-bytes-swapped",
    "the sender reads SETH cack_psn with its three bytes in the wrong order: the SACK seems to \
     acknowledge a PSN never sent, and is discarded whole",
    &[req::SND_SACK_001],
    // Its first sign is a resend of a PSN the dropped SACK acknowledged: by a NACK for that
    // PSN, or by the CPU half's timeout that no Progress stopped.
    &["snd-nack-high-psn", "rec-split-timeout"],
    Edits { frame_in: Some(cack_swapped), ..Edits::NONE },
)];

/// A SACK arriving with the three bytes of its `cack_psn` in the other order.
fn cack_swapped(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let s = f.ext.seth.as_mut()?;
    let v = s.cack_psn.value();
    let swapped = (v & 0xFF) << 16 | (v & 0xFF00) | (v >> 16) & 0xFF;
    if swapped == v {
        return None;
    }
    s.cack_psn = Psn::new(swapped);
    refit(&mut f).ok()
}
