//! Legitimate variants of the transport ACK: the BTH `psn` of an `MRC_ACKNOWLEDGE` is a
//! SHOULD (OPC-PSN-002.b), which the reference follows with the PSN of the last packet of
//! the message acknowledged. A device may send another value; the judge calls it
//! `non-strict` where it differs, never `fail`.

use std::collections::{BTreeSet, HashMap};

use openrdma_codec::frame::decode;
use openrdma_codec::{Opcode, Psn};
use openrdma_conformance::req::*;
use openrdma_device::{Output, TimedInput, TimedOutput};

use super::qps::Qps;
use super::variants::{Variant, variant};
use super::{Batch, Caps, Edits, Stream};

/// The variants of the transport ACK.
pub static VARIANTS: &[Variant] = &[variant(
    "ack-psn-epsn",
    "its ACK engine copies epsn - 1 from the receive window into the BTH psn of every \
     transport ACK and NAK, as an earlier reference did: the PSN before the first one of \
     the QP that has not arrived, which is past the message acknowledged when packets of \
     later messages arrived first (OPC-PSN-002.b is a SHOULD)",
    &[OPC_PSN_002_B],
    Caps::Same,
    Edits {
        stream: Some(|m| Box::new(AckPsnEpsn::new(u32::from(m.nic.mpr) * 128))),
        ..Edits::NONE
    },
)];

/// Each QP's receive window, as the writes that arrive move it.
#[derive(Debug)]
struct Window {
    /// The first PSN that has not arrived.
    epsn: u32,
    /// PSNs beyond `epsn` that arrived.
    ahead: BTreeSet<u32>,
}

/// Sends `epsn - 1` in the BTH `psn` of every `MRC_ACKNOWLEDGE`.
#[derive(Debug)]
struct AckPsnEpsn {
    window: u32,
    qps: Qps,
    /// Wire QP (the peer's, that ACKs go to) to its window.
    windows: HashMap<u32, Window>,
}

impl AckPsnEpsn {
    fn new(window: u32) -> AckPsnEpsn {
        AckPsnEpsn { window, qps: Qps::default(), windows: HashMap::new() }
    }
}

impl Stream for AckPsnEpsn {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        let (windows, size) = (&mut self.windows, self.window);
        self.qps.received(&inputs, |r| {
            let Some(b) = r.d.bth.filter(|b| b.opcode.is_mrc_write()) else { return };
            let first = r.qp.peer_initial_psn.value();
            let w = windows
                .entry(r.qp.peer_qpn.value())
                .or_insert_with(|| Window { epsn: first, ahead: BTreeSet::new() });
            let offset = b.psn.value().wrapping_sub(w.epsn) & 0xFF_FFFF;
            if offset >= size {
                return; // a duplicate, or beyond the window
            }
            w.ahead.insert(b.psn.value());
            while w.ahead.remove(&w.epsn) {
                w.epsn = (w.epsn + 1) & 0xFF_FFFF;
            }
        });
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let Some(b) = decode(bytes).bth.filter(|b| b.opcode == Opcode::MRC_ACKNOWLEDGE) else {
                continue;
            };
            let Some(w) = self.windows.get(&b.dest_qp.value()) else { continue };
            let psn = Psn::new(w.epsn.wrapping_sub(1) & 0xFF_FFFF);
            let Some(mut f) = decode(bytes).to_repr() else { continue };
            f.bth.psn = psn;
            if let Ok(edited) = super::refit(&mut f) {
                *bytes = edited;
            }
        }
        outputs
    }
}
