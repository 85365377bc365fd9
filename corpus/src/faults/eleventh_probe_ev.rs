//! A fault that proves the judge holds a commanded probe to the EV its command names in
//! every scenario, not only in those that judge a spray policy (`EV-PROBE-005.b`,
//! `CONF-CMP-106`).

use openrdma_conformance::req;
use openrdma_device::{CpuCommand, Input, TimedInput};

use super::qps::Qps;
use super::{Fault, Stream, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[stream(
    "probe-command-ev-unloaded",
    "the command decoder never loads the EV of a Probe command into the probe builder, \
     which keeps its reset entry, the QP's first EV: every commanded probe goes on that EV, \
     whatever EV the command names",
    &[req::EV_PROBE_005_B],
    &["rec-nic-commands"],
    |_| Box::new(FirstEv::default()),
)];

/// A NIC half that sends each commanded probe on its QP's first EV.
#[derive(Debug, Default)]
struct FirstEv {
    qps: Qps,
}

impl Stream for FirstEv {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            if self.qps.learn(&i.input).is_some() {
                continue;
            }
            let Input::Cpu { command: CpuCommand::Probe { qpn, ev } } = &mut i.input else {
                continue;
            };
            if let Some(&first) = self.qps.get(qpn.value()).and_then(|q| q.evs.first()) {
                *ev = first;
            }
        }
        inputs
    }
}
