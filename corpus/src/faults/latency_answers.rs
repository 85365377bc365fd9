//! Responder faults whose changed SACKs passed where the judge gave them two latencies or
//! any copy's EV: a SACK that one write makes due, sent up to `late_ns` late by a count
//! one too high (CONF-CMP-136); a duplicate's SACK that reflects the EV of the copy first
//! accepted (CONF-CMP-137).

use std::collections::HashMap;

use openrdma_codec::Ev;
use openrdma_codec::frame::decode;
use openrdma_conformance::req;
use openrdma_device::{HostCommand, Input, Manifest, Output, TimedInput, TimedOutput};

use super::{Batch, Edits, Fault, Stream, fault, refit};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    fault(
        "sack-count-one-over",
        "the count of writes since the last SACK is compared with sack_coalesce + 1: the \
         SACK due at the count goes with the next write or the timer",
        &[req::RCV_SACK_002],
        // A probe resets the count; the fourth write after it is due at once, and the
        // timer that the first started answers 1.5 us after it, within late_ns.
        &["rcv-probe-answer-count"],
        Edits { config: Some(|m| m.nic.sack_coalesce += 1), ..Edits::NONE },
    ),
    fault(
        "sack-dup-ev-first-copy",
        "the SACK builder reads the EV to reflect from the PSN table, which holds the EV of \
         the copy first accepted: a duplicate's SACK reflects and travels on that EV",
        &[req::SETH_EV_001],
        // A write is sent again 39 us after it first came, on another EV.
        &["rcv-lost-ack"],
        Edits { stream: Some(FirstCopyEv::make), ..Edits::NONE },
    ),
];

/// A SACK builder that takes its EV from the first copy of its triggering PSN.
#[derive(Debug, Default)]
struct FirstCopyEv {
    /// The wire QP each SACK of a device QP goes to, by the device QP.
    peer: HashMap<u32, u32>,
    /// The EV of the first copy of each write, by (wire QP of its SACKs, PSN).
    first: HashMap<(u32, u32), Ev>,
}

impl FirstCopyEv {
    fn make(_: &Manifest) -> Box<dyn Stream> {
        Box::<FirstCopyEv>::default()
    }

    fn rewrite(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        let mut f = decode(bytes).to_repr()?;
        let qp = f.bth.dest_qp.value();
        let s = f.ext.seth.as_mut().filter(|s| !s.pr)?;
        let psn = s.cack_psn.value().wrapping_add_signed(i32::from(s.ack_psn_offset)) & 0xFF_FFFF;
        let ev = *self.first.get(&(qp, psn))?;
        if ev == s.entropy {
            return None;
        }
        s.entropy = ev;
        f.set_entropy(ev);
        refit(&mut f).ok()
    }
}

impl Stream for FirstCopyEv {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    self.peer.insert(q.qpn.value(), q.peer_qpn.value());
                }
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let Some(b) = d.bth.filter(|b| b.opcode.is_mrc_write()) else { continue };
                    let Some(&peer) = self.peer.get(&b.dest_qp.value()) else { continue };
                    let ev = d.entropy().unwrap_or_default();
                    self.first.entry((peer, b.psn.value())).or_insert(ev);
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            if let Output::Frame { bytes, .. } = &mut o.output
                && let Some(b) = self.rewrite(bytes)
            {
                *bytes = b;
            }
        }
        outputs
    }
}
