//! Faults that prove how the judge names a report whose contents are stale: the device
//! applies every transition the inputs cause, and its report of each says what held before
//! it. The first divergence names the report's own rule, not a transition the report only
//! seems to miss.

use std::collections::HashMap;

use openrdma_codec::Ev;
use openrdma_conformance::req;
use openrdma_device::{EvState, Manifest, NicEvent, NicReport, Output, TimedOutput};

use super::{Batch, Fault, Stream, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[stream(
    "ev-state-reported-old",
    "EvState reports carry the EV's state before the transition: the report is built from the state register before it is written",
    &[req::REC_IF_016],
    &[
        // Expected reports, each one state late.
        "snd-ev-always-skip",
        "rec-split-assumed-bad",
        "rec-split-skip-expiry",
        // No expected report: the first of an EV says GOOD at a SACK's mark.
        "snd-spray-fixed",
        // No expected report: the first says GOOD at a SetEvState command.
        "snd-lost-sack",
    ],
    |m| Box::new(ReportedOld::new(m)),
)];

/// The state each EV of each QP was last reported in; GOOD, where every EV starts, before
/// its first report.
#[derive(Debug, Default)]
struct ReportedOld {
    held: HashMap<(u32, Ev), EvState>,
}

impl ReportedOld {
    fn new(_: &Manifest) -> Self {
        ReportedOld::default()
    }
}

impl Stream for ReportedOld {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event: NicEvent::Report(NicReport::EvState { qpn, ev, state }) } =
                &mut o.output
            else {
                continue;
            };
            let old = self.held.insert((qpn.value(), *ev), *state);
            *state = old.unwrap_or(EvState::Good);
        }
        outputs
    }
}
