//! Faults of a sender found by the eighth outside reading of the sender and recovery
//! chapters, which looked for the bugs a team makes when the pieces meet: state kept once
//! for the device where the spec keeps one per QP, and a copy of the QP context loaded at
//! creation and never refreshed. Each names the scenarios that catch it.

use std::collections::HashMap;

use openrdma_codec::Psn;
use openrdma_codec::frame::decode;
use openrdma_conformance::req;
use openrdma_device::{NicEvent, NicReport, Output, SprayPolicy, TimedInput, TimedOutput};

use super::qps::Qps;
use super::{Batch, Fault, Stream, refit, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "spray-cursor-shared",
        "the round-robin cursor is one register for the device, not one per QP: a QP's first transmission takes the EV after the one any QP took last",
        &[req::SND_SPRAY_001],
        &["snd-spray-two-qps"],
        |_| Box::new(CursorShared::default()),
    ),
    stream(
        "armed-snd-una-from-create",
        "Armed carries snd_una from a copy of the QP context loaded when the QP was created: every Armed reports the initial PSN",
        &[req::REC_IF_003],
        &["snd-ev-skip", "rec-split-progress", "snd-tail-probe"],
        |_| Box::new(ArmedFromCreate::default()),
    ),
];

/// Moves each first transmission of a round-robin QP as far round its profile as the
/// other QPs' first transmissions have moved the one cursor.
#[derive(Debug, Default)]
struct CursorShared {
    qps: Qps,
    /// First transmissions of round-robin QPs: of all QPs, and per device QP.
    total: u32,
    own: HashMap<u32, u32>,
}

impl Stream for CursorShared {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.learn_all(&inputs);
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let Some(mut f) = decode(bytes).to_repr() else { continue };
            if !f.bth.opcode.is_mrc_write() || f.bth.rtx {
                continue;
            }
            let Some(local) = self.qps.local(f.bth.dest_qp.value()) else { continue };
            let Some(q) = self.qps.get(local) else { continue };
            if q.spray != SprayPolicy::RoundRobin || q.evs.len() < 2 {
                continue;
            }
            let own = self.own.entry(local).or_default();
            let shift = self.total.wrapping_sub(*own) as usize;
            *own += 1;
            self.total += 1;
            let Some(pos) = q.evs.iter().position(|&e| e == f.entropy()) else { continue };
            let ev = q.evs[(pos + shift) % q.evs.len()];
            if ev == f.entropy() {
                continue;
            }
            f.set_entropy(ev);
            if let Ok(b) = refit(&mut f) {
                *bytes = b;
            }
        }
        outputs
    }
}

/// Gives every Armed the initial PSN of its QP.
#[derive(Debug, Default)]
struct ArmedFromCreate {
    qps: Qps,
}

impl Stream for ArmedFromCreate {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.learn_all(&inputs);
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            if let Output::Event { event: NicEvent::Report(NicReport::Armed { qpn, snd_una }) } =
                &mut o.output
            {
                let initial: Option<Psn> = self.qps.get(qpn.value()).map(|q| q.initial_psn);
                if let Some(p) = initial {
                    *snd_una = p;
                }
            }
        }
        outputs
    }
}
