//! Faults of the host interface from a sixth reading of its chapter, looking for bugs that
//! show only when two things meet: a bus write that starts inside a register taken for a
//! token, the QPN of two sender completions of one instant latched once, and a rejection
//! that names no template routed to a QP's full send queue. Each proves a class of the
//! judge's naming.

use std::collections::HashMap;

use openrdma_codec::Qpn;
use openrdma_codec::host::{COMPLETION_LEN, CompletionStatus};
use openrdma_conformance::req;
use openrdma_device::{
    CqConfig, CqId, HostCommand, Input, NicEvent, Output, Side, TimedInput, TimedOutput,
};

use super::templates::rewrite_entry;
use super::{Batch, Edits, Fault, Stream, fault};

/// Every fault of the sixth reading of the host interface.
pub static FAULTS: &[Fault] = &[
    fault(
        "straddling-write-taken",
        "the doorbell decoder ignores the offset of a bus write: an 8-byte write that starts inside one register and straddles the next is taken as a token",
        &[req::DB_MMIO_002_A],
        &["db-bus-partial-writes"],
        Edits { host_in: Some(offset_ignored), ..Edits::NONE },
    ),
    fault(
        "entry-qpn-latched-per-instant",
        "the completion engine latches the QPN once per instant: sender completions of two QPs written at the same instant both carry the QPN of the first",
        &[req::CQE_SEND_001],
        &["rec-split-two-qps"],
        Edits { stream: Some(|_| Box::<QpnLatch>::default()), ..Edits::NONE },
    ),
    fault(
        "unnamed-rejection-to-send-queue",
        "the completions of tokens that name no usable template go to the send queue of the device's first QP, not to the device error queue, even when that queue is full",
        &[req::CQE_REJECT_002],
        &["db-same-instant"],
        Edits { stream: Some(|_| Box::<UnnamedToSend>::default()), ..Edits::NONE },
    ),
];

/// A doorbell write as a decoder that reads every 8-byte write from its register's start
/// takes it.
fn offset_ignored(c: &mut HostCommand) {
    if let HostCommand::DoorbellWrite(w) = c {
        if w.bytes.len() == 8 {
            w.offset = 0;
        }
    }
}

/// Gives every sender completion of an instant the QPN of the first of that instant.
#[derive(Debug, Default)]
struct QpnLatch {
    latched: HashMap<u64, Qpn>,
}

impl Stream for QpnLatch {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event } = &mut o.output else { continue };
            let NicEvent::Completion(c) = &*event else { continue };
            if c.side != Side::Requester || c.entry.is_receive {
                continue;
            }
            let first = *self.latched.entry(o.at.0).or_insert(c.entry.qpn);
            rewrite_entry(event, |e| e.qpn = first);
        }
        outputs
    }
}

/// Writes the entries of rejections that name no template into the first QP's send queue,
/// at that queue's next slot and phase, as a completion engine with one queue select would.
#[derive(Debug, Default)]
struct UnnamedToSend {
    queues: HashMap<CqId, CqConfig>,
    send: Option<CqId>,
    written: HashMap<CqId, u64>,
}

impl Stream for UnnamedToSend {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::CreateCq(c) } => {
                    self.queues.insert(c.cq, *c);
                }
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    self.send = self.send.or(q.send_cq);
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let unnamed = [CompletionStatus::BAD_VERSION, CompletionStatus::UNKNOWN_TEMPLATE];
        for o in &mut outputs {
            let Output::Event { event: NicEvent::Completion(c) } = &mut o.output else {
                continue;
            };
            let Some(q) = c.queue.as_mut() else { continue };
            let to = match self.send {
                Some(s) if unnamed.contains(&c.entry.status) => s,
                _ => q.cq,
            };
            let Some(cfg) = self.queues.get(&to) else { continue };
            let k = self.written.entry(to).or_default();
            let n = u64::from(cfg.entries.max(1));
            let slot = u32::try_from(*k % n).unwrap_or(0);
            let mut entry = q.entry();
            entry.phase = (*k / n) % 2 == 0;
            *k += 1;
            let mut bytes = [0u8; COMPLETION_LEN];
            if entry.emit(&mut bytes).is_ok() {
                q.bytes = bytes;
            }
            q.cq = to;
            q.slot = slot;
            q.addr = cfg.slot_addr(slot);
        }
        outputs
    }
}
