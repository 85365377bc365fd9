//! Faults that the corpus once exercised without catching: each comes with the scenario
//! that makes it visible.

use std::collections::HashMap;

use openrdma_codec::frame::decode;
use openrdma_codec::{NackReason, NethRepr};
use openrdma_conformance::req;
use openrdma_device::{CqId, HostCommand, Input, TimedInput};

use super::{Edits, Fault, Stream, fault, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    fault(
        "sack-bitmap-low-word",
        "the SACK bitmap register is 32 bits wide: bits 63:32 of sack_bitmap are read as 0, \
         so a PSN they show is no evidence of a loss before it",
        &[req::SND_SACK_002, req::SND_INFER_001],
        &["snd-infer-high-word"],
        Edits { frame_in: Some(low_word), ..Edits::NONE },
    ),
    stream(
        "cq-consumer-as-slot",
        "the consumer register is taken as a slot index, not as a total: once the consumer has \
         gone round the ring, a queue with free slots looks full and its QPs fail",
        &[req::CQE_RING_004_B],
        &["ret-cq-consumer-total"],
        |_| Box::<ConsumerAsSlot>::default(),
    ),
    fault(
        "lasthop-trim-fatal",
        "the NACK reason decoder knows TRIMMED but not TRIMMED_LASTHOP, which falls to the \
         fatal branch: a last-hop trim ends the QP",
        &[req::SND_NACK_002],
        &["snd-nack-high-psn"],
        Edits { frame_in: Some(lasthop_fatal), ..Edits::NONE },
    ),
];

/// A NACK TRIMMED_LASTHOP read as UNEXP_EVENT; `None` for any other reason.
fn lasthop_fatal(b: &[u8]) -> Option<Vec<u8>> {
    on_neth(b, |n| {
        let lasthop = n.reason == NackReason::TRIMMED_LASTHOP;
        lasthop.then(|| n.reason = NackReason::UNEXP_EVENT).is_some()
    })
}

/// The frame with `edit` applied to its NETH, its ICRC made right again; `None` when it has
/// none or `edit` declines.
fn on_neth(b: &[u8], edit: impl FnOnce(&mut NethRepr) -> bool) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if !f.ext.neth.as_mut().is_some_and(edit) {
        return None;
    }
    f.icrc = None;
    f.to_bytes().ok()
}

/// Holds each completion queue's size, and gives the device each consumer register write
/// modulo that size.
#[derive(Debug, Default)]
struct ConsumerAsSlot {
    entries: HashMap<CqId, u32>,
}

impl Stream for ConsumerAsSlot {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            match &mut i.input {
                Input::Host { command: HostCommand::CreateCq(c) } => {
                    self.entries.insert(c.cq, c.entries);
                }
                Input::Host { command: HostCommand::CqConsumer { cq, consumed } } => {
                    if let Some(&n) = self.entries.get(cq).filter(|&&n| n > 0) {
                        *consumed %= n;
                    }
                }
                _ => {}
            }
        }
        inputs
    }
}

/// A SACK or probe answer with bits 63:32 of its bitmap cleared, its ICRC made right again;
/// `None` when those bits are already clear.
fn low_word(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let s = f.ext.seth.as_mut()?;
    if s.sack_bitmap >> 32 == 0 {
        return None;
    }
    s.sack_bitmap &= 0xFFFF_FFFF;
    f.icrc = None;
    f.to_bytes().ok()
}
