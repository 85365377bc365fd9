//! Faults that prove how the judge names a packet on an EV outside its QP's profile that
//! holds no part of a profile EV, from a QP whose headers carried its EVs right before:
//! the device chose the EV wrongly, and the rule that chooses it is named, not the
//! encoding of the EV in the headers.

use openrdma_codec::Ev;
use openrdma_codec::frame::decode;
use openrdma_conformance::req;

use super::{Edits, Fault, fault, refit};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[fault(
    "rtx-ev-register-unloaded",
    "the retransmit path takes its EV from a register that the pool never loads: every \
     retransmission leaves on EV 0, outside the profile",
    &[req::SND_PATH_001],
    // Its first sign is the first retransmission, after the QP sent its first
    // transmissions on the EVs of its profile.
    &["snd-timeout-loss"],
    Edits { frame_out: Some(rtx_on_ev_zero), ..Edits::NONE },
)];

/// A retransmitted data packet sent on EV 0.
fn rtx_on_ev_zero(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let zero = Ev::from_halves(0, 0);
    if !(f.bth.opcode.is_mrc_write() && f.bth.rtx) || f.entropy() == zero {
        return None;
    }
    f.set_entropy(zero);
    refit(&mut f).ok()
}
