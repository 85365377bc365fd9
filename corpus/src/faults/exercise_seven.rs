//! Faults of readings the corpus did not exercise before its blind-spot scenarios: a SACK
//! whose bitmap is based before its cumulative PSN, a Progress that counts across the PSN
//! wrap, and a Progress a SACK makes due. Each comes with the scenario that makes it
//! visible.

use openrdma_codec::frame::decode;
use openrdma_conformance::req;
use openrdma_device::{NicEvent, NicReport};

use super::{Edits, Fault, fault, refit};

/// Every entry of this family.
pub static FAULTS: &[Fault] = &[
    fault(
        "snd-sack-offset-unsigned",
        "the sender reads SETH sack_offset as unsigned: a bitmap based before the cumulative \
         PSN seems to lie beyond any window, and the whole SACK is discarded as a violation",
        &[req::SND_SACK_004, req::SND_SACK_001, req::SND_SACK_002, req::REC_IF_002],
        &["snd-sack-offset-negative"],
        Edits { frame_in: Some(sack_offset_unsigned_in), ..Edits::NONE },
    ),
    fault(
        "progress-outstanding-saturating",
        "Progress counts outstanding PSNs as snd_nxt - snd_una with a saturating subtraction \
         on 24-bit values: across the PSN wrap it reports 0",
        &[req::REC_IF_002],
        &["snd-rtx-psn-wrap"],
        Edits { event_out: Some(outstanding_saturating), ..Edits::NONE },
    ),
    fault(
        "progress-only-when-idle",
        "the report builder sends Progress only when a QP has nothing outstanding left: a \
         SACK that advances snd_una with PSNs still in flight is not reported",
        &[req::REC_IF_002],
        &["snd-sack-offset-negative", "snd-rtx-psn-wrap"],
        Edits { event_out: Some(progress_only_when_idle), ..Edits::NONE },
    ),
];

/// An arriving SACK whose negative `sack_offset` is read as a large positive one.
fn sack_offset_unsigned_in(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    let seth = f.ext.seth.as_mut()?;
    if seth.sack_offset >= 0 {
        return None;
    }
    seth.sack_offset = i16::MAX;
    refit(&mut f).ok()
}

/// A Progress whose outstanding PSNs cross the PSN wrap, reported as none.
fn outstanding_saturating(e: &mut NicEvent) -> bool {
    if let NicEvent::Report(NicReport::Progress { snd_una, outstanding, .. }) = e {
        if u64::from(snd_una.value()) + u64::from(*outstanding) > 1 << 24 {
            *outstanding = 0;
        }
    }
    true
}

/// A Progress with PSNs still outstanding is lost.
fn progress_only_when_idle(e: &mut NicEvent) -> bool {
    !matches!(e, NicEvent::Report(NicReport::Progress { outstanding, .. }) if *outstanding > 0)
}
