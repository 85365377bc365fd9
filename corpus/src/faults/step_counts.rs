//! Faults in the counts of a `Progress` report that only its step shows: the report is built
//! when the device takes the input that moves `snd_una`, and counts what the device had sent
//! and taken by then (CONF-CMP-125).

use std::collections::HashMap;

use openrdma_conformance::req;
use openrdma_device::TimedOutput;
use openrdma_device::{HostCommand, Input, Manifest, NicEvent, NicReport, Output, TimedInput};

use super::{Batch, Fault, Stream, stream};

/// The faults of the counts a `Progress` step fixes.
pub static FAULTS: &[Fault] = &[stream(
    "progress-awaiting-of-previous",
    "Progress carries the awaiting-ACK count of the QP's previous Progress: the counter is sampled before the ACK is applied",
    &[req::REC_IF_002],
    &["snd-segmentation", "snd-ack-after-sack"],
    |m| Box::new(AwaitingPrevious::new(m)),
)];

/// Each `Progress` carries the awaiting-ACK count its QP's previous `Progress` carried.
#[derive(Debug, Default)]
struct AwaitingPrevious {
    /// The count each QP's last `Progress` carried, as the device made it.
    last: HashMap<u32, u32>,
}

impl AwaitingPrevious {
    fn new(_: &Manifest) -> Self {
        AwaitingPrevious::default()
    }
}

impl Stream for AwaitingPrevious {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::CreateQp(q) } = &i.input {
                self.last.remove(&q.qpn.value());
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event {
                event: NicEvent::Report(NicReport::Progress { qpn, awaiting_ack, .. }),
            } = &mut o.output
            else {
                continue;
            };
            let now = *awaiting_ack;
            if let Some(&before) = self.last.get(&qpn.value()) {
                *awaiting_ack = before;
            }
            self.last.insert(qpn.value(), now);
        }
        outputs
    }
}
