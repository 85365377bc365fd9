//! Faults of a sender found by the fifth outside reading of the sender and recovery
//! chapters: a Write-with-Immediate whose last packet leaves without its immediate. Each
//! names the scenarios that catch it.

use openrdma_codec::Opcode;
use openrdma_codec::frame::decode;
use openrdma_conformance::req;

use super::{Fault, sends};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[sends(
    "last-imm-as-last",
    "the immediate is latched for the first packet of a message only: a Write with Immediate of several packets ends with a plain LAST, without ImmDt",
    &[req::SND_SEG_002, req::SND_SEG_004],
    &["snd-rtx-imm"],
    last_imm_as_last,
)];

fn last_imm_as_last(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if f.bth.opcode != Opcode::MRC_WRITE_LAST_IMM {
        return None;
    }
    f.bth.opcode = Opcode::MRC_WRITE_LAST;
    f.ext.immdt = None;
    f.icrc = None;
    f.finalize().ok()?;
    f.to_bytes().ok()
}
