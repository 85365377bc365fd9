//! Faults of an eighth reading of the receiving side, as the pieces of a responder meet,
//! where the suite needed a change to name them.
//!
//! * `answers-to-first-peer`: the answer builder reads `peer_qpn` from the context of the
//!   first QP, so the SACKs, NACKs, ACKs and NAKs of the second QP of a scenario go to the
//!   first QP's peer. Such an answer goes to the peer of a QP the device has, so no
//!   destination rule saw it; it was judged as an answer of the first QP, named by a field
//!   of that QP's SACK (SETH-EV-001) or by the second QP's answer missing (RCV-ACK-001).
//!   An answer that is an expected answer to another peer but for its destination now
//!   names its destination's rule (RCV-SACK-005.a, RCV-ACK-002.a, ...).

use openrdma_codec::Opcode;
use openrdma_codec::Qpn;
use openrdma_codec::frame::decode;
use openrdma_conformance::req;

use crate::PEER_QP;

use super::{Edits, Fault, fault};

/// Every fault of this reading.
pub static FAULTS: &[Fault] = &[fault(
    "answers-to-first-peer",
    "the answer builder reads peer_qpn from the context of the first QP: SACKs, NACKs and \
     transport ACKs of the second QP are addressed to the first QP's peer",
    &[req::RCV_SACK_005_A, req::RCV_ACK_002_A, req::RCV_NACK_001_A, req::RCV_NAK_002_A],
    &["rcv-shared-retirement", "rcv-per-qp-retirement", "rcv-cq-two-qps"],
    Edits { frame_out: Some(to_first_peer), ..Edits::NONE },
)];

/// An answer to the second QP's peer (the corpus's `PEER_QP + 1`) addressed to the first
/// QP's peer instead; `None` for any other frame.
fn to_first_peer(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let answer = [Opcode::MRC_SACK, Opcode::MRC_NACK, Opcode::MRC_ACKNOWLEDGE];
    if !answer.contains(&f.bth.opcode) || f.bth.dest_qp.value() != PEER_QP + 1 {
        return None;
    }
    f.bth.dest_qp = Qpn::new(PEER_QP);
    f.icrc = None;
    f.to_bytes().ok()
}
