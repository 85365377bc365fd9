//! Faults that prove clauses with a rule of their own that the judge named by a neighbour
//! before: a duplicate or a probe left with no SACK at all (RCV-SACK-001.e, .f), not a
//! SACK built wrong; an ACK that carries another QP's MSN in a shared domain
//! (RCV-ACK-003.a), not an MSN wrong in its value alone.

use std::collections::{BTreeSet, HashMap};

use openrdma_codec::frame::decode;
use openrdma_codec::{AethMsn, Opcode};
use openrdma_conformance::req;
use openrdma_device::{Input, Output, TimedInput, TimedOutput};

use super::{Batch, Fault, Stream, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "sack-no-news-suppressed",
        "the SACK engine drops a SACK with pr 0 that reports the same cack_psn and bitmap as \
         the QP's previous SACK, taking it for a repeat: a duplicate, which changes nothing, \
         gets no SACK",
        &[req::RCV_SACK_001_E],
        // Duplicates that find the QP's state unchanged since its last SACK.
        &["rcv-hole-duplicates"],
        |_| Box::<NoNews>::default(),
    ),
    stream(
        "probe-left-to-sack-timer",
        "a probe that arrives while writes of its QP wait for a SACK is left to the SACK \
         timer, which the probe stopped: no answer and no SACK is sent",
        &[req::RCV_SACK_001_F],
        &["rcv-probe"],
        |_| Box::<ProbeLeftToTimer>::default(),
    ),
    stream(
        "ack-msn-of-trigger",
        "in shared retirement the ACK builder takes its MSN from the METH of the write just \
         taken: an ACK that another QP's packet causes carries that QP's MSN",
        &[req::RCV_ACK_003_A],
        &["rcv-shared-retirement"],
        |_| Box::<AckMsnOfTrigger>::default(),
    ),
];

/// The decoded SACK of a frame: its wire QP, `pr`, `cack_psn` and bitmap.
fn sack_of(bytes: &[u8]) -> Option<(u32, bool, u32, u64)> {
    let d = decode(bytes);
    let b = d.bth.filter(|b| b.opcode == Opcode::MRC_SACK)?;
    let s = d.ext.seth?;
    Some((b.dest_qp.value(), s.pr, s.cack_psn.value(), s.sack_bitmap))
}

/// By wire QP, the `cack_psn` and bitmap of the last SACK sent.
#[derive(Debug, Default)]
struct NoNews {
    last: HashMap<u32, (u32, u64)>,
}

impl Stream for NoNews {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs.retain(|o| {
            let Output::Frame { bytes, .. } = &o.output else { return true };
            let Some((qp, pr, cack, bitmap)) = sack_of(bytes) else { return true };
            let same = self.last.get(&qp) == Some(&(cack, bitmap));
            self.last.insert(qp, (cack, bitmap));
            pr || !same
        });
        outputs
    }
}

/// By local QP, whether a write arrived since the QP's last SACK; the times of probes
/// that found one waiting.
#[derive(Debug, Default)]
struct ProbeLeftToTimer {
    waiting: HashMap<u32, bool>,
    left: BTreeSet<u64>,
}

impl Stream for ProbeLeftToTimer {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            let Input::Frame { bytes, .. } = &i.input else { continue };
            let d = decode(bytes);
            let Some(b) = d.bth else { continue };
            let qp = b.dest_qp.value();
            if b.opcode == Opcode::MRC_PROBE {
                if self.waiting.get(&qp).copied().unwrap_or(false) {
                    self.left.insert(i.at.0);
                }
            } else if b.opcode.is_mrc_write() && !b.ack_req {
                self.waiting.insert(qp, true);
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs.retain(|o| {
            let Output::Frame { bytes, .. } = &o.output else { return true };
            let Some((_, pr, ..)) = sack_of(bytes) else { return true };
            // A SACK names the peer's QP, the writes the local one: one QP is followed, and
            // any SACK acknowledges what waited.
            self.waiting.clear();
            !(pr && self.left.contains(&o.at.0))
        });
        outputs
    }
}

/// The METH `msn` of the last write taken, and when.
#[derive(Debug, Default)]
struct AckMsnOfTrigger {
    last: Option<(u64, u16)>,
}

impl Stream for AckMsnOfTrigger {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            let Input::Frame { bytes, .. } = &i.input else { continue };
            let d = decode(bytes);
            if !d.bth.is_some_and(|b| b.opcode.is_mrc_write()) {
                continue;
            }
            if let Some(m) = d.ext.meth {
                self.last = Some((i.at.0, m.msn.value()));
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let Some((at, msn)) = self.last else { return outputs };
        outputs
            .into_iter()
            .map(|mut o| {
                if o.at.0 == at {
                    if let Output::Frame { bytes, .. } = &mut o.output {
                        let msn = AethMsn::new(u32::from(msn));
                        if let Some(b) = super::answers::ack_msn(bytes, msn) {
                            *bytes = b;
                        }
                    }
                }
                o
            })
            .collect()
    }
}
