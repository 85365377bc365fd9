//! Responder faults whose changed SACKs passed where the judge left a bound open: an
//! out-of-order count that misses the SACK's own trigger beyond the bitmap's reach
//! (CONF-CMP-129).

use openrdma_codec::frame::decode;
use openrdma_conformance::req;

use super::{Edits, Fault, fault, refit};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    fault(
        "ccs-ooo-bitmap-popcount",
        "the CC_STATE ooo_count is the population count of the SACK bitmap: a write received \
         more than 64 PSNs after cack_psn, the SACK's own trigger included, is not counted",
        &[req::CCS_OOO_001],
        // The first SACK answers PSN 127 with nothing received before it: its bitmap is
        // empty, and its trigger lies beyond the bitmap's reach.
        &["rcv-window-edges"],
        Edits { frame_out: Some(ooo_popcount), ..Edits::NONE },
    ),
];

/// A SACK whose CC_STATE counts only the PSNs its bitmap sets.
fn ooo_popcount(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let seth = f.ext.seth?;
    let n = seth.sack_bitmap.count_ones() as u16;
    let c = f.ext.cc_state.as_mut().filter(|c| c.ooo_count != n)?;
    c.ooo_count = n;
    refit(&mut f).ok()
}

