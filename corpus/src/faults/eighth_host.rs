//! Faults of the host interface from an eighth reading of its chapters, as a team gets it
//! wrong where the pieces meet: a completion entry written in two halves, the half with the
//! owner byte first. Each proves a class of the judge's naming.

use std::collections::HashMap;

use openrdma_codec::host::{COMPLETION_LEN, CompletionRepr};
use openrdma_conformance::req;
use openrdma_device::{CqId, NicEvent, Output, TimedOutput};

use super::{Batch, Edits, Fault, Stream, fault};

/// Every fault of the eighth reading of the host interface.
pub static FAULTS: &[Fault] = &[fault(
    "cqe-second-half-first",
    "the completion writer sends an entry as two 16-byte writes, bytes 16 to 31 first: when the owner byte lands, bytes 0 to 15 still hold the slot's previous contents",
    &[req::CQE_RING_003_B],
    // The entry's flags (first half) then disagree with its timestamp or immediate (second
    // half): a torn write, not a wrong flag.
    &["ret-cq-wrap", "rcv-cq-receive", "db-reject-queues"],
    Edits { stream: Some(|_| Box::<SecondHalfFirst>::default()), ..Edits::NONE },
)];

/// What each slot of each queue held after the device's last whole write to it.
#[derive(Debug, Default)]
struct SecondHalfFirst {
    slots: HashMap<(CqId, u32), [u8; COMPLETION_LEN]>,
}

impl Stream for SecondHalfFirst {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        const HALF: usize = COMPLETION_LEN / 2;
        for o in &mut outputs {
            let Output::Event { event: NicEvent::Completion(c) } = &mut o.output else {
                continue;
            };
            let Some(q) = c.queue.as_mut() else { continue };
            let before = self.slots.insert((q.cq, q.slot), q.bytes).unwrap_or([0; COMPLETION_LEN]);
            q.bytes[..HALF].copy_from_slice(&before[..HALF]);
            c.entry = CompletionRepr::parse(&q.bytes).unwrap_or_default();
        }
        outputs
    }
}
