//! A legitimate variant of the twelfth reading: a transport ACK builder that lags the data
//! path and reads the QP's last retired MSN when it sends (RCV-ACK-002.a), within the
//! latency CONF-TIME-004 allows. Where the recording acknowledges MSN m and then m + 1, it
//! sends m + 1 twice. A judge that matched ACKs by exact MSN failed it (CONF-CMP-037.a,
//! decision 47).

use openrdma_codec::frame::decode;
use openrdma_codec::{AethKind, Opcode};
use openrdma_conformance::req::*;
use openrdma_device::{Output, TimedOutput, Timestamp};

use super::variants::{Variant, variant};
use super::{Batch, Caps, Edits, Stream};

/// The variants of the twelfth reading that touch transport ACKs.
pub static VARIANTS: &[Variant] = &[variant(
    "acks-built-late",
    "its transport ACK builder lags the data path: an ACK waits until the QP's next ACK is \
     due, when that is within half of late_ns, and is then built with the MSN of the last \
     message retired by that time, on the EV of the packet that caused it; otherwise it \
     leaves half of late_ns late as it was (RCV-ACK-002.a, CONF-TIME-004)",
    &[CONF_TIME_004],
    Caps::Same,
    Edits {
        stream: Some(|m| {
            Box::new(AcksBuiltLate { most: m.tolerances.late_ns / 2, queue: Vec::new() })
        }),
        ..Edits::NONE
    },
)];

/// Holds each transport ACK until the next of its QP, or half of late_ns.
#[derive(Debug)]
struct AcksBuiltLate {
    most: u64,
    /// Outputs made and not yet given, in time order.
    queue: Vec<TimedOutput>,
}

/// The destination QP of a positive transport ACK.
fn ack_qp(o: &Output) -> Option<u32> {
    let Output::Frame { bytes, .. } = o else { return None };
    let d = decode(bytes);
    let b = d.bth.filter(|b| b.opcode == Opcode::MRC_ACKNOWLEDGE)?;
    let a = d.ext.aeth?;
    (AethKind::of(a.syndrome) == AethKind::Ack).then_some(b.dest_qp.value())
}

/// `held` rebuilt with the MSN and BTH PSN of `now`, the QP's later ACK.
fn rebuild(held: &mut Output, now: &Output) {
    let (Output::Frame { bytes: h, .. }, Output::Frame { bytes: n, .. }) = (held, now) else {
        return;
    };
    let (Some(mut f), Some(later)) = (decode(h).to_repr(), decode(n).to_repr()) else { return };
    let (Some(a), Some(la)) = (f.ext.aeth.as_mut(), later.ext.aeth) else { return };
    a.msn = la.msn;
    f.bth.psn = later.bth.psn;
    if let Ok(b) = super::refit(&mut f) {
        *h = b;
    }
}

impl Stream for AcksBuiltLate {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for o in outputs {
            let t = o.at.0;
            let Some(qp) = ack_qp(&o.output) else {
                self.queue.push(o);
                continue;
            };
            // An ACK of this QP still held, due at or after now: built now, from now.
            let held = self.queue.iter_mut().find(|h| h.at.0 >= t && ack_qp(&h.output) == Some(qp));
            if let Some(h) = held {
                rebuild(&mut h.output, &o.output);
                h.at = Timestamp(t);
            }
            self.queue.push(TimedOutput { at: Timestamp(t + self.most), ..o });
        }
        // Stable: outputs due at one time keep the order in which they were made.
        self.queue.sort_by_key(|o| o.at);
        let n = self.queue.iter().take_while(|o| o.at <= batch.until).count();
        self.queue.drain(..n).collect()
    }
}
