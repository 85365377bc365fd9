//! Responder faults whose changed SACKs passed where the judge left a bound open: an
//! out-of-order count that misses the SACK's own trigger beyond the bitmap's reach
//! (CONF-CMP-129); an offset that names an older write than the one the SACK answers
//! (CONF-CMP-130).

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
    fault(
        "sack-ackpsn-floor-zero",
        "ack_psn_offset comes from an unsigned subtractor that stops at 0: a SACK whose \
         trigger lies before cack_psn, a write that filled a hole, names cack_psn instead",
        &[req::SETH_ACKPSN_003_A],
        // PSN 1 fills the hole up to PSN 3, accepted long before: the SACK names PSN 3,
        // older than PSN 0, accepted after it.
        &["rcv-hole-duplicates"],
        Edits { frame_out: Some(offset_floor_zero), ..Edits::NONE },
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

/// A SACK with `pr` 0 whose negative `ack_psn_offset` is sent as 0.
fn offset_floor_zero(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let s = f.ext.seth.as_mut().filter(|s| !s.pr && s.ack_psn_offset < 0)?;
    s.ack_psn_offset = 0;
    refit(&mut f).ok()
}
