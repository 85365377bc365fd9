//! Faults of the sixteenth reading, sender side: `Retransmitted` reports whose cause is
//! one some input of the scenario could give, but not to this retransmission: a NACK
//! already used by an earlier report of the PSN, or a SACK that cannot infer the PSN lost.
//! The judge names REC-IF-008 (CONF-CMP-139).

use std::collections::HashMap;

use openrdma_conformance::req;
use openrdma_device::{Manifest, NicEvent, NicReport, Output, RetransmitCause, TimedOutput};

use super::{Batch, Fault, Stream, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "report-rtx-cause-of-previous",
        "the cause register of the Retransmitted report is loaded one report late: each report of a QP carries the cause of the retransmission before it",
        &[req::REC_IF_008],
        // An inference reported as a NACK's, the PSN's only NACK used already.
        &["snd-infer-retransmitted"],
        |m| Box::new(CauseOfPrevious::new(m)),
    ),
    stream(
        "report-rtx-nack-as-inference",
        "the cause encoder of the Retransmitted report has the codes of a NACK and of loss inference on one line: a retransmission a NACK caused is reported as inferred from a SACK",
        &[req::REC_IF_008],
        // A SACK came into the QP before, but none that covers the PSN with its bit clear and
        // a later bit set.
        &["snd-spray-fixed", "snd-nack-high-psn"],
        |_| Box::new(NackAsInference),
    ),
];

/// Reports every cause `nack` as `sack_inference`.
#[derive(Debug, Default)]
struct NackAsInference;

impl Stream for NackAsInference {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            if let Output::Event { event: NicEvent::Report(NicReport::Retransmitted { cause, .. }) } =
                &mut o.output
                && *cause == RetransmitCause::Nack
            {
                *cause = RetransmitCause::SackInference;
            }
        }
        outputs
    }
}

/// The cause of each QP's last `Retransmitted` report.
#[derive(Debug, Default)]
struct CauseOfPrevious {
    last: HashMap<u32, RetransmitCause>,
}

impl CauseOfPrevious {
    fn new(_: &Manifest) -> Self {
        CauseOfPrevious::default()
    }
}

impl Stream for CauseOfPrevious {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event {
                event: NicEvent::Report(NicReport::Retransmitted { qpn, cause, .. }),
            } = &mut o.output
            else {
                continue;
            };
            let own = *cause;
            if let Some(prev) = self.last.insert(qpn.value(), own) {
                *cause = prev;
            }
        }
        outputs
    }
}
