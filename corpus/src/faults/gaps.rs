//! Faults that the corpus once exercised without catching: each comes with the scenario
//! that makes it visible.

use openrdma_codec::frame::decode;
use openrdma_conformance::req;

use super::{Edits, Fault, fault};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[fault(
    "sack-bitmap-low-word",
    "the SACK bitmap register is 32 bits wide: bits 63:32 of sack_bitmap are read as 0, so a \
     PSN they show is no evidence of a loss before it",
    &[req::SND_SACK_002, req::SND_INFER_001],
    &["snd-infer-high-word"],
    Edits { frame_in: Some(low_word), ..Edits::NONE },
)];

/// A SACK or probe answer with bits 63:32 of its bitmap cleared, its ICRC made right again;
/// `None` when those bits are already clear.
fn low_word(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let s = f.ext.seth.as_mut()?;
    if s.sack_bitmap >> 32 == 0 {
        return None;
    }
    s.sack_bitmap &= 0xFFFF_FFFF;
    f.icrc = None;
    f.to_bytes().ok()
}
