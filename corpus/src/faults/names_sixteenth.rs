//! Faults of a sixteenth reading: a batch of retransmissions that takes the METH of its
//! first packet, caught where one acknowledgement makes two messages' packets go at once;
//! and a tail probe's answer that judges a packet sent on its EV after the probe, named by
//! the rule that gives the probe its place in the EV's order (SND-TAIL-002); a SKIP hold
//! that ends early after a trim, named by the hold (EV-SKIP-002), not by the segmentation
//! of the packet that went early.

use std::collections::HashMap;

use openrdma_codec::frame::decode;
use openrdma_conformance::req;
use openrdma_device::{Output, TimedOutput};

use super::inference::{Bugs, Wrong};
use super::{Batch, Edits, Fault, Stream, fault, refit, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "rtx-batch-meth-of-first",
        "a batch of retransmissions takes the METH of its first packet: every retransmission \
         a QP sends at one instant carries the msn and rqmsn of the first",
        &[req::METH_MSN_001, req::SND_RTX_001],
        // One SACK shows a packet of each of two messages missing.
        &["snd-rtx-two-messages"],
        |_| Box::new(BatchMeth),
    ),
    stream(
        "probe-answer-judges-later",
        "a tail probe takes no per-EV sequence number, so its answer judges every \
         transmission on the EV, those sent after the probe too",
        &[req::SND_TAIL_002],
        // A packet leaves on the probe's EV after the probe; the answer covers it.
        &["snd-tail-probe-later-spared"],
        |m| Box::new(Wrong::new(Bugs { answer_judges_later: true, ..Bugs::NONE }, m)),
    ),
    fault(
        "skip-hold-half",
        "the SKIP hold timer runs at twice its rate: an EV a trim moved to SKIP returns to \
         GOOD after half of skip_hold, and the packets waiting for it go early",
        &[req::EV_SKIP_002],
        // The packet queued behind the trimmed one goes when the short hold ends.
        &["snd-ev-skip-queued"],
        Edits { config: Some(half_hold), ..Edits::NONE },
    ),
];

/// `skip_hold` halved.
fn half_hold(m: &mut openrdma_device::Manifest) {
    m.nic.skip_hold /= 2;
}

/// Every retransmission of one instant and QP rewritten with the METH of the first.
#[derive(Debug)]
struct BatchMeth;

impl Stream for BatchMeth {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut lead = HashMap::new();
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let Some(mut f) = decode(bytes).to_repr() else { continue };
            if !f.bth.rtx {
                continue;
            }
            let Some(m) = f.ext.meth.as_mut() else { continue };
            let key = (o.at, f.bth.dest_qp.value());
            let (msn, rqmsn) = *lead.entry(key).or_insert((m.msn, m.rqmsn));
            if (m.msn, m.rqmsn) == (msn, rqmsn) {
                continue;
            }
            m.msn = msn;
            m.rqmsn = rqmsn;
            if let Ok(b) = refit(&mut f) {
                *bytes = b;
            }
        }
        outputs
    }
}
