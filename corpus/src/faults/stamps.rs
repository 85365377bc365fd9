//! A completion timestamp that sways a protocol decision (CQE-TS-001.c): the completion
//! engine takes two entries with the same timestamp for one entry written twice.

use openrdma_conformance::req;
use openrdma_device::{NicEvent, Output, Side, TimedOutput};

use super::{Batch, Fault, Stream, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[stream(
    "cqe-same-stamp-dropped",
    "a completion entry whose timestamp equals that of the side's previous entry is taken for a repeat of it and not written: of two work requests one input completes, as a QP that fails flushes its pending ones, the second has no entry",
    &[req::CQE_TS_001_C, req::WR_SIGNALED_001_C],
    &["ret-retry-exceeded"],
    |_| Box::<SameStamp>::default(),
)];

/// The timestamp of each side's last completion entry that carried one.
#[derive(Debug, Default)]
struct SameStamp {
    last: [Option<u32>; 2],
}

impl Stream for SameStamp {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut kept = Vec::with_capacity(outputs.len());
        for o in outputs {
            if let Output::Event { event: NicEvent::Completion(c) } = &o.output {
                let entry = c.written_entry();
                if entry.has_timestamp {
                    let last = &mut self.last[usize::from(c.side == Side::Responder)];
                    if *last == Some(entry.timestamp) {
                        continue;
                    }
                    *last = Some(entry.timestamp);
                }
            }
            kept.push(o);
        }
        kept
    }
}
