//! A responder whose probe answers carry a `cack_psn` no QP state can give: the cumulative
//! register read through 23 bits, which the judge passed where the answer's trigger, a
//! probe, does not hang on `cack_psn` (CONF-CMP-123).

use openrdma_codec::Psn;
use openrdma_codec::frame::decode;
use openrdma_conformance::req;

use super::{Edits, Fault, fault, refit};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[fault(
    "probe-answer-cack-23bit",
    "the probe answer path reads the cumulative-ACK register through 23 bits: a probe \
     answer's cack_psn and BTH psn lose bit 23",
    &[req::SETH_CACK_001_A],
    // QP B is probed before any write, at cack_psn 0xFFFFFF: the answer says 0x7FFFFF.
    &["rcv-probe-two-qps"],
    Edits { frame_out: Some(answer_cack_23bit), ..Edits::NONE },
)];

/// A probe answer (`pr` 1) whose `cack_psn` and BTH `psn` lose bit 23.
fn answer_cack_23bit(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let s = f.ext.seth.as_mut().filter(|s| s.pr && s.cack_psn.value() & 0x80_0000 != 0)?;
    s.cack_psn = Psn::new(s.cack_psn.value() & 0x7F_FFFF);
    f.bth.psn = Psn::new(f.bth.psn.value() & 0x7F_FFFF);
    refit(&mut f).ok()
}
