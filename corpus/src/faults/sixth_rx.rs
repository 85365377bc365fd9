//! Faults of a sixth reading of the receiving side, bugs that show only at an edge, where
//! the suite needed a change to catch them.
//!
//! Each SACK here leaves out its own triggering PSN, and the tolerance a pipelined
//! responder has for what arrived just before a SACK (CONF-CMP-045.c) hid it: a SACK is
//! built after its trigger was accepted, so it must claim it (CONF-CMP-061).
//!
//! * `sack-bitmap-bit-63-lost`: the bitmap passes through a signed shift that clears its
//!   top bit, so PSN `cack_psn + 64` is never reported.
//! * `sack-bitmap-after-wrap-lost`: the bitmap builder compares PSNs as plain 24-bit
//!   numbers, so while `cack_psn + 1` is before the wrap, PSNs after it are left out.

use openrdma_conformance::req;

use super::answers::seth;
use super::{Fault, sends};

/// Every fault of this reading.
pub static FAULTS: &[Fault] = &[
    sends(
        "sack-bitmap-bit-63-lost",
        "the SACK bitmap passes through a signed shift that clears its top bit: PSN \
         cack_psn + 64 is never reported",
        &[req::SETH_BITMAP_001],
        &["rcv-sack-bitmap-high"],
        |b| seth(b, |s| clear(&mut s.sack_bitmap, 1 << 63)),
    ),
    sends(
        "sack-bitmap-after-wrap-lost",
        "the SACK bitmap builder compares PSNs as plain 24-bit numbers: while cack_psn + 1 \
         is before the wrap at 2^24, the PSNs after it are left out",
        &[req::SETH_BITMAP_001],
        &["rcv-psn-wrap"],
        |b| {
            seth(b, |s| {
                let mask = !before_wrap(s.bitmap_base().value());
                clear(&mut s.sack_bitmap, mask)
            })
        },
    ),
];

/// The bits of a bitmap based at PSN `base` whose PSNs lie before the wrap at 2^24.
fn before_wrap(base: u32) -> u64 {
    let room = 0x100_0000u32.saturating_sub(base);
    if room >= 64 { u64::MAX } else { (1u64 << room) - 1 }
}

/// Clears the bits of `mask` in `field`; false when none was set.
fn clear(field: &mut u64, mask: u64) -> bool {
    let had = *field & mask != 0;
    *field &= !mask;
    had
}
