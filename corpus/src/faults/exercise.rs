//! Faults and variants of readings the corpus once did not exercise: each comes with the
//! scenario that makes it visible.

use openrdma_codec::Psn;
use openrdma_codec::frame::decode;
use openrdma_conformance::req;

use super::{Edits, Fault, fault, refit};

/// Every entry of this family.
pub static FAULTS: &[Fault] = &[
    fault(
        "snd-nack-psn-16bit",
        "the sender reads NETH nack_psn into a 16-bit register: a NACK of a PSN at or above 2^16 \
     names another PSN, which it takes for one not in flight",
        &[
            req::SND_NACK_001,
            req::SND_NACK_002,
            req::SND_NACK_004,
            req::REC_IF_004,
            req::EV_SKIP_001,
        ],
        &["snd-nack-high-psn"],
        Edits { frame_in: Some(nack_psn_16bit_in), ..Edits::NONE },
    ),
    fault(
        "nack-neth-psn-16bit",
        "the NETH builder takes nack_psn from a 16-bit register, while the BTH psn of the NACK comes whole from the packet's: a NACK of a PSN at or above 2^16 names another PSN in NETH",
        &[req::NETH_PSN_001, req::RCV_NACK_001_D],
        &["rcv-window-edges-high-v6"],
        Edits { frame_out: Some(nack_neth_psn_16bit_out), ..Edits::NONE },
    ),
];

/// An arriving NACK with the bits 23:16 of its NETH nack_psn lost; the BTH psn as sent.
fn nack_psn_16bit_in(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    let neth = f.ext.neth.as_mut()?;
    if neth.nack_psn.value() <= 0xFFFF {
        return None;
    }
    neth.nack_psn = Psn::new(neth.nack_psn.value() & 0xFFFF);
    refit(&mut f).ok()
}

/// A NACK sent with the bits 23:16 of its NETH nack_psn lost; the BTH psn whole.
fn nack_neth_psn_16bit_out(bytes: &[u8]) -> Option<Vec<u8>> {
    nack_psn_16bit_in(bytes)
}
