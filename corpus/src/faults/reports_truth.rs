//! Faults in what the `Progress` and `Armed` reports say and when they come, which the
//! judge reads by truth from the inputs and the device's own frames (CONF-CMP-050 to
//! CONF-CMP-052): the CPU half's timer and retry counter follow them.

use std::collections::HashMap;

use openrdma_codec::frame::decode;
use openrdma_codec::{Opcode, Psn, Qpn};
use openrdma_conformance::req;
use openrdma_device::{
    HostCommand, Input, Manifest, NicEvent, NicReport, Output, RetirementMode, TimedInput,
    TimedOutput,
};

use super::{Batch, Edits, Fault, Stream, fault, stream};

/// The faults of the reports' contents and occurrence.
pub static FAULTS: &[Fault] = &[
    fault(
        "progress-outstanding-short",
        "Progress counts outstanding PSNs as snd_nxt - 1 - snd_una: one short whenever any is outstanding",
        &[req::REC_IF_002],
        &["rec-split-timeout"],
        Edits { event_out: Some(outstanding_short), ..Edits::NONE },
    ),
    stream(
        "progress-on-duplicate",
        "Progress is sent for every SACK and ACK, also one that moves nothing: a duplicate restarts the CPU half's timer and resets its retry counter",
        &[req::REC_IF_019],
        &["rec-split-timeout"],
        |m| Box::new(ProgressRepeated::new(m)),
    ),
    stream(
        "armed-every-packet",
        "Armed is sent for every first transmission, not only when the QP goes from idle to busy: the CPU half's timer is started afresh on every packet",
        &[req::REC_IF_020],
        &["snd-spray-fixed"],
        |m| Box::new(ArmedEveryPacket::new(m)),
    ),
    stream(
        "progress-awaiting-domain",
        "In shared retirement the awaiting-ACK count of Progress is read from the domain's counter: it counts the messages of every QP of the domain, not the QP's own",
        &[req::REC_IF_002],
        &["snd-shared-domain"],
        |m| Box::new(AwaitingDomain::new(m)),
    ),
];

/// Each `Progress` adds to its QP's awaiting-ACK count the last counts that the other QPs
/// of its shared retirement domain reported.
#[derive(Debug, Default)]
struct AwaitingDomain {
    shared: bool,
    /// Each QP's retirement domain, from its `create_qp`.
    domain: HashMap<u32, u32>,
    /// The last awaiting-ACK count each QP reported, its own.
    last: HashMap<u32, u32>,
}

impl AwaitingDomain {
    fn new(m: &Manifest) -> Self {
        AwaitingDomain { shared: m.nic.retirement == RetirementMode::Shared, ..Self::default() }
    }
}

impl Stream for AwaitingDomain {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::CreateQp(q) } = &i.input {
                self.domain.insert(q.qpn.value(), q.domain.value());
                self.last.remove(&q.qpn.value());
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        if !self.shared {
            return outputs;
        }
        for o in &mut outputs {
            let Output::Event {
                event: NicEvent::Report(NicReport::Progress { qpn, awaiting_ack, .. }),
            } = &mut o.output
            else {
                continue;
            };
            let q = qpn.value();
            self.last.insert(q, *awaiting_ack);
            let d = self.domain.get(&q).copied();
            let others: u32 = self
                .last
                .iter()
                .filter(|&(&p, _)| p != q && d.is_some() && self.domain.get(&p).copied() == d)
                .map(|(_, &n)| n)
                .sum();
            *awaiting_ack += others;
        }
        outputs
    }
}

/// A `Progress` with outstanding PSNs counts one fewer.
fn outstanding_short(e: &mut NicEvent) -> bool {
    if let NicEvent::Report(NicReport::Progress { outstanding, .. }) = e {
        *outstanding = outstanding.saturating_sub(1);
    }
    true
}

/// The report of an output, when it is one.
fn report_of(o: &TimedOutput) -> Option<&NicReport> {
    match &o.output {
        Output::Event { event: NicEvent::Report(r) } => Some(r),
        _ => None,
    }
}

/// The SACKs and ACKs of a batch, by time and the QP they are to; each that made no
/// `Progress` makes one that repeats the QP's last.
#[derive(Debug, Default)]
struct ProgressRepeated {
    acks: Vec<(u64, u32)>,
    last: HashMap<u32, NicReport>,
}

impl ProgressRepeated {
    fn new(_: &Manifest) -> Self {
        ProgressRepeated::default()
    }
}

impl Stream for ProgressRepeated {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            let Input::Frame { bytes, .. } = &i.input else { continue };
            let d = decode(bytes);
            let Some(b) = d.bth.filter(|_| d.error.is_none()) else { continue };
            if matches!(b.opcode, Opcode::MRC_SACK | Opcode::MRC_ACKNOWLEDGE) {
                self.acks.push((i.at.0, b.dest_qp.value()));
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let progress = |o: &TimedOutput| match report_of(o) {
            Some(r @ NicReport::Progress { qpn, .. }) => Some((o.at.0, qpn.value(), r.clone())),
            _ => None,
        };
        let made: Vec<(u64, u32, NicReport)> = outputs.iter().filter_map(progress).collect();
        let failed = |q: u32| {
            outputs.iter().any(|o| {
                matches!(report_of(o),
                Some(NicReport::QpError { qpn, .. }) if qpn.value() == q)
            })
        };
        let mut added = Vec::new();
        for &(at, q) in self.acks.iter().filter(|(at, _)| *at <= batch.until.0) {
            let answered = made.iter().any(|(t, p, _)| *t == at && *p == q);
            if let (false, false, Some(r)) = (answered, failed(q), self.last.get(&q)) {
                let event = NicEvent::Report(r.clone());
                added.push(TimedOutput {
                    at: openrdma_device::Timestamp(at),
                    output: Output::Event { event },
                });
            }
        }
        self.acks.retain(|(at, _)| *at > batch.until.0);
        for (_, q, r) in made {
            self.last.insert(q, r);
        }
        outputs.extend(added);
        outputs.sort_by_key(|o| o.at.0);
        outputs
    }
}

/// Every first transmission of a QP armed once is followed by an `Armed` with the QP's
/// last reported `snd_una`.
#[derive(Debug, Default)]
struct ArmedEveryPacket {
    /// The peer's QPN to the device's QP, learnt from an `Armed` after a data packet.
    local: HashMap<u32, u32>,
    /// The last `snd_una` each QP reported.
    una: HashMap<u32, Psn>,
}

impl ArmedEveryPacket {
    fn new(_: &Manifest) -> Self {
        ArmedEveryPacket::default()
    }
}

/// The destination QP of a first transmission.
fn first_tx(o: &TimedOutput) -> Option<u32> {
    let Output::Frame { bytes, .. } = &o.output else { return None };
    let d = decode(bytes);
    let b = d.bth.filter(|_| d.error.is_none())?;
    (b.opcode.is_mrc_write() && !b.rtx).then_some(b.dest_qp.value())
}

impl Stream for ArmedEveryPacket {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for (k, o) in outputs.iter().enumerate() {
            match report_of(o) {
                Some(NicReport::Armed { qpn, snd_una })
                | Some(NicReport::Progress { qpn, snd_una, .. }) => {
                    self.una.insert(qpn.value(), *snd_una);
                }
                _ => {}
            }
            out.push(o.clone());
            let Some(peer) = first_tx(o) else { continue };
            if let Some(Some(NicReport::Armed { qpn, .. })) = outputs.get(k + 1).map(report_of) {
                self.local.insert(peer, qpn.value());
                continue;
            }
            let Some(&q) = self.local.get(&peer) else { continue };
            let Some(&snd_una) = self.una.get(&q) else { continue };
            let event = NicEvent::Report(NicReport::Armed { qpn: Qpn::new(q), snd_una });
            out.push(TimedOutput { at: o.at, output: Output::Event { event } });
        }
        out
    }
}
