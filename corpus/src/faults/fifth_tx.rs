//! Faults of a sender found by the fifth outside reading of the sender and recovery
//! chapters. Most are of the contents of the `Retransmitted` report (REC-IF-008): a cause
//! that no input gave, and a `lost_ev` that is not the EV of the transmission presumed
//! lost. The CPU half blames a path by that EV after a timeout (REC-EV-002), so a wrong one
//! takes a good path out of use or leaves a dead one in. One is of segmentation: a
//! Write-with-Immediate whose last packet leaves without its immediate. Each names the
//! scenarios that catch it.

use std::collections::HashMap;

use openrdma_codec::frame::decode;
use openrdma_codec::{Ev, Opcode};
use openrdma_conformance::req;
use openrdma_device::{NicEvent, NicReport, Output, RetransmitCause, TimedInput, TimedOutput};

use super::qps::Qps;
use super::{Batch, Edits, Fault, Stream, fault, sends, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    fault(
        "retransmitted-cause-swapped",
        "the cause field of the Retransmitted report has its two NIC codes swapped: a retransmission by loss inference is reported as caused by a NACK, and the reverse",
        &[req::REC_IF_008],
        &["snd-single-loss", "snd-nack-resource"],
        Edits { event_out: Some(swap_cause), ..Edits::NONE },
    ),
    fault(
        "retransmitted-lost-ev-timeout-only",
        "lost_ev is wired only for the timeout cause, the one the CPU half acts on: a retransmission by loss inference or after a NACK is reported with no lost EV",
        &[req::REC_IF_008],
        &["snd-single-loss", "snd-nack-resource"],
        Edits { event_out: Some(lost_ev_timeout_only), ..Edits::NONE },
    ),
    stream(
        "retransmitted-lost-ev-new",
        "the Retransmitted report reads lost_ev after the spray engine chose the new EV: it names the EV of the retransmission instead of the one presumed lost",
        &[req::REC_IF_008],
        &["snd-single-loss", "snd-timeout-loss"],
        |_| Box::new(LostEvNew::default()),
    ),
    sends(
        "last-imm-as-last",
        "the immediate is latched for the first packet of a message only: a Write with Immediate of several packets ends with a plain LAST, without ImmDt",
        &[req::SND_SEG_002, req::SND_SEG_004],
        &["snd-rtx-imm"],
        last_imm_as_last,
    ),
];

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

fn swap_cause(e: &mut NicEvent) -> bool {
    if let NicEvent::Report(NicReport::Retransmitted { cause, .. }) = e {
        *cause = match *cause {
            RetransmitCause::SackInference => RetransmitCause::Nack,
            RetransmitCause::Nack => RetransmitCause::SackInference,
            c => c,
        };
    }
    true
}

fn lost_ev_timeout_only(e: &mut NicEvent) -> bool {
    if let NicEvent::Report(NicReport::Retransmitted { cause, lost_ev, .. }) = e {
        if *cause != RetransmitCause::Timeout {
            *lost_ev = None;
        }
    }
    true
}

/// Names, in each `Retransmitted` report, the EV of the retransmission the batch sent for
/// its PSN.
#[derive(Debug, Default)]
struct LostEvNew {
    qps: Qps,
}

impl Stream for LostEvNew {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.learn_all(&inputs);
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut new: HashMap<(u32, u32), Ev> = HashMap::new();
        for o in &outputs {
            let Output::Frame { bytes, .. } = &o.output else { continue };
            let d = decode(bytes);
            let (Some(bth), Some(ev)) = (d.bth, d.entropy()) else { continue };
            if bth.rtx && bth.opcode != Opcode::MRC_PROBE && bth.opcode.is_mrc_write() {
                if let Some(local) = self.qps.local(bth.dest_qp.value()) {
                    new.insert((local, bth.psn.value()), ev);
                }
            }
        }
        for o in &mut outputs {
            if let Output::Event {
                event: NicEvent::Report(NicReport::Retransmitted { qpn, psn, lost_ev, .. }),
            } = &mut o.output
            {
                if let (Some(_), Some(&ev)) = (*lost_ev, new.get(&(qpn.value(), psn.value()))) {
                    *lost_ev = Some(ev);
                }
            }
        }
        outputs
    }
}
