//! Legitimate variants of a device whose frames and reports leave through
//! two egress groups by QP parity, one slower, so that one QP's reports and the frames its
//! CPU half commands come late while another QP's come on time. A judge that timed a commanded
//! output from the records before it, not from the command, failed them
//! (CONF-CMP-111).

use openrdma_codec::frame::decode;
use openrdma_conformance::req::*;
use openrdma_device::{NicEvent, Output};

use super::variants::{LateSome, Variant, is_sender_note, variant};
use super::{Caps, Edits};

/// The variants whose commanded outputs come late.
pub static VARIANTS: &[Variant] = &[variant(
    "odd-qps-late",
    "its frames and reports leave through two egress groups by the low bit of the QP \
     number they carry (a frame's destination QP, a report's QP), the odd group half of \
     late_ns slower: the frames and reports of odd QPs come half of late_ns later than the \
     reference makes them, those of even QPs on time, and a sender flag or completion waits \
     for the frames made before it (ORD-SEND-002.b, CONF-TIME-004)",
    &[CONF_TIME_004],
    Caps::Same,
    Edits {
        stream: Some(|m| {
            Box::new(LateSome::new(m.tolerances.late_ns / 2, is_odd_qp).waiting(is_sender_note))
        }),
        ..Edits::NONE
    },
)];

/// A frame or a report of the odd group: one whose QP number is odd.
fn is_odd_qp(o: &Output) -> bool {
    let qpn = match o {
        Output::Frame { bytes, .. } => decode(bytes).bth.map(|b| b.dest_qp),
        Output::Event { event: NicEvent::Report(r) } => r.qpn(),
        Output::Event { .. } => None,
    };
    qpn.is_some_and(|q| q.value() % 2 == 1)
}
