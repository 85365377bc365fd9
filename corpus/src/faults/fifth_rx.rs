//! Faults of a fifth reading of the receiving side, where the suite needed a change to
//! catch them or to name them right.
//!
//! * `sacks-in-error`: the error state gates the placement engine but not the SACK engine,
//!   so each write that reaches a failed QP is answered with the QP's last SACK again. A
//!   SACK repeated is a device's choice (CONF-CMP-007.b), but a QP in the error state sends
//!   nothing (SND-ERR-001) and answers no packet (RCV-QP-002).

use std::collections::{HashMap, HashSet};

use openrdma_codec::Opcode;
use openrdma_codec::frame::decode;
use openrdma_conformance::req;
use openrdma_device::{Input, Manifest, NicEvent, NicReport, Output, TimedInput, TimedOutput};

use super::qps::Qps;
use super::{Batch, Edits, Fault, Stream, fault};

/// Every fault of this reading.
pub static FAULTS: &[Fault] = &[fault(
    "sacks-in-error",
    "the error state stops placement but not the SACK engine: each write that reaches a \
     failed QP is answered with the QP's last SACK again",
    &[req::RCV_QP_002, req::SND_ERR_001],
    &["rcv-wwi-limit"],
    Edits { stream: Some(|m| Box::new(SacksInError::new(m))), ..Edits::NONE },
)];

/// A SACK engine that the error state does not stop.
#[derive(Debug, Default)]
struct SacksInError {
    qps: Qps,
    /// The device QPs its NIC failed.
    failed: HashSet<u32>,
    /// The last SACK each device QP sent.
    last: HashMap<u32, TimedOutput>,
    /// The writes of this batch, by device QP, with their times.
    writes: Vec<(u32, u64)>,
}

impl SacksInError {
    fn new(_: &Manifest) -> Self {
        SacksInError::default()
    }
}

impl Stream for SacksInError {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.writes.clear();
        for i in &inputs {
            match &i.input {
                Input::Host { .. } => {
                    self.qps.learn(&i.input);
                }
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    if d.discard_reason().is_some() {
                        continue;
                    }
                    if let Some(b) = d.bth.filter(|b| b.opcode.is_mrc_write()) {
                        self.writes.push((b.dest_qp.value(), i.at.0));
                    }
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut failed_now = HashMap::new();
        for o in &outputs {
            match &o.output {
                Output::Event { event: NicEvent::Report(NicReport::QpError { qpn, .. }) } => {
                    failed_now.entry(qpn.value()).or_insert(o.at.0);
                }
                Output::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let Some(b) = d.bth.filter(|b| b.opcode == Opcode::MRC_SACK) else {
                        continue;
                    };
                    if let Some(local) = self.qps.local(b.dest_qp.value()) {
                        self.last.insert(local, o.clone());
                    }
                }
                _ => {}
            }
        }
        let mut added = Vec::new();
        for &(qp, at) in &self.writes {
            let failed = self.failed.contains(&qp) || failed_now.get(&qp).is_some_and(|&t| t < at);
            if let (true, Some(sack)) = (failed, self.last.get(&qp)) {
                added.push(TimedOutput { at: openrdma_device::Timestamp(at), ..sack.clone() });
            }
        }
        self.failed.extend(failed_now.keys());
        outputs.extend(added);
        outputs.sort_by_key(|o| o.at.0);
        outputs
    }
}
