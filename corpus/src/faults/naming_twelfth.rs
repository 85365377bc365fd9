//! Faults that prove how the judge names an output the device got wrong by one place in
//! a sequence: a sender entry that carries the `wr_id` of the entry before it is that
//! entry's own, wrong in one field, not another's entry out of order; a flag write given
//! twice by a FIFO breaks the rule that writes each flag once, at the copy.

use openrdma_conformance::req;
use openrdma_device::{FlagWrite, NicEvent, Output, Side, TimedOutput};

use super::templates::rewrite_entry;
use super::{Batch, Fault, Stream, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "send-cqe-wr-id-latched-late",
        "the sender's completion stage latches wr_id one entry late: each sender completion \
         entry carries the wr_id of the entry before it, the first 0",
        &[req::CQE_SEND_001, req::TPL_EXPAND_007],
        // Entries of one QP and of several, in a ring that wraps, after a retransmission.
        &["snd-window", "ret-cq-wrap", "snd-lost-ack", "snd-order-messages"],
        |_| Box::new(WrIdLate::default()),
    ),
    stream(
        "flag-fifo-repeats-at-wrap",
        "the flag-write FIFO of four entries returns the write it read last once more when \
         its read pointer wraps: every fourth flag write repeats the one before, address \
         and word, and the flag due in its place is never written",
        &[req::FLAG_SEND_001, req::FLAG_RECV_002, req::RET_FLAG_001],
        // Retirement flags of one QP, then of two domains.
        &["rcv-flag-slots", "rcv-ack-coalesce", "rcv-two-domains-close"],
        |_| Box::new(FlagFifo::default()),
    ),
];

/// The `wr_id` register of the completion stage, loaded after the entry is built.
#[derive(Debug, Default)]
struct WrIdLate {
    last: u64,
}

impl Stream for WrIdLate {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event } = &mut o.output else { continue };
            let own = match event {
                NicEvent::Completion(c) if c.side == Side::Requester && !c.entry.is_receive => {
                    c.entry.wr_id
                }
                _ => continue,
            };
            let prev = std::mem::replace(&mut self.last, own);
            rewrite_entry(event, |c| c.wr_id = prev);
        }
        outputs
    }
}

/// The flag-write FIFO: the count of writes read, and the last one.
#[derive(Debug, Default)]
struct FlagFifo {
    read: u64,
    last: Option<FlagWrite>,
}

impl Stream for FlagFifo {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event: NicEvent::FlagWrite(f) } = &mut o.output else {
                continue;
            };
            let n = self.read;
            self.read += 1;
            let own = *f;
            if let Some(last) = self.last.replace(own).filter(|_| n % 4 == 0 && n > 0) {
                *f = last;
            }
        }
        outputs
    }
}
