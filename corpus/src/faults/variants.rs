//! Legitimate variants: other choices the specification leaves open. Each must pass every
//! scenario whose capabilities it claims.

use std::collections::VecDeque;

use openrdma_codec::Opcode;
use openrdma_codec::frame::decode;
use openrdma_device::{
    Capability, HostCommand, NicEvent, Output, Payload, SprayPolicy, TimedOutput, Timestamp,
};

use super::{Batch, Caps, Class, Edits, Expect, Fault, Stream, payload_bytes};

/// A variant.
const fn variant(name: &'static str, what: &'static str, caps: Caps, edits: Edits) -> Fault {
    Fault {
        name,
        class: Class::Variant,
        what,
        breaks: &[],
        expect: Expect::Fails,
        catch: &[],
        caps,
        edits,
    }
}

/// Every legitimate variant.
pub static VARIANTS: &[Fault] = &[
    variant(
        "spray-random",
        "sprays packets over its EVs at random instead of round robin",
        // Random spraying is legitimate, but not the policy its QPs name: it cannot claim
        // to spray as they say (CONF-GEN-008).
        Caps::Without(&[Capability::SprayPolicies]),
        Edits { host_in: Some(spray_random), ..Edits::NONE },
    ),
    variant(
        "sack-every-packet",
        "sends a SACK for every packet it accepts",
        Caps::Same,
        Edits { config: Some(|m| m.nic.sack_coalesce = 1), ..Edits::NONE },
    ),
    variant(
        "sack-coalesce-8",
        "coalesces SACKs over 8 packets instead of 4",
        Caps::Same,
        Edits { config: Some(|m| m.nic.sack_coalesce = 8), ..Edits::NONE },
    ),
    variant(
        "sack-marking",
        "marks the EV of every SACK SKIP_ONCE by a marking policy of its own, and claims \
         sack-marking with every capability of the reference",
        Caps::Only(&[
            Capability::Responder,
            Capability::Requester,
            Capability::Doorbell,
            Capability::DoorbellBus,
            Capability::Retirement,
            Capability::SharedRetirement,
            Capability::PerQpRetirement,
            Capability::WriteImmediate,
            Capability::Ipv6,
            Capability::Ipv4,
            Capability::Paths,
            Capability::CpuSplit,
            Capability::Recovery,
            Capability::CompletionQueues,
            Capability::Endpoint,
            Capability::SprayPolicies,
            Capability::TailProbe,
            Capability::SackMarking,
        ]),
        Edits { frame_out: Some(marks_skip_once), ..Edits::NONE },
    ),
    variant(
        "receiver-block",
        "a receiver without its completion engine: claims only responder, ipv4 and ipv6, \
         and writes no flags, completions, transport ACKs or reports",
        Caps::Only(&[Capability::Responder, Capability::Ipv4, Capability::Ipv6]),
        Edits { keep_out: Some(receiver_block), ..Edits::NONE },
    ),
    variant(
        "token-only-doorbell",
        "a device whose harness passes doorbells only as whole tokens: claims everything but \
         doorbell-bus",
        Caps::Without(&[Capability::DoorbellBus]),
        Edits::NONE,
    ),
    variant(
        "late",
        "every output (frames, DMA writes, flags, completions, reports) is produced half of \
         late_ns later than the reference produces it (CONF-TIME-004)",
        Caps::Same,
        Edits {
            stream: Some(|m| {
                Box::new(Late { delay: m.tolerances.late_ns / 2, queue: VecDeque::new() })
            }),
            ..Edits::NONE
        },
    ),
    variant(
        "dma-split-64",
        "DMA writes are cut at 64-byte address boundaries, the pieces issued highest address \
         first (RCV-PLACE-003)",
        Caps::Same,
        Edits { stream: Some(|_| Box::new(Split { size: 64, descending: true })), ..Edits::NONE },
    ),
    variant(
        "dma-split-256",
        "DMA writes are cut at 256-byte address boundaries, the pieces issued in address \
         order (RCV-PLACE-003)",
        Caps::Same,
        Edits { stream: Some(|_| Box::new(Split { size: 256, descending: false })), ..Edits::NONE },
    ),
    variant(
        "dma-merge",
        "a write-combining buffer holds a DMA write up to half of late_ns and merges the \
         contiguous writes that follow it, flushing before any other output (RCV-PLACE-003)",
        Caps::Same,
        Edits {
            stream: Some(|m| Box::new(Merge { hold: m.tolerances.late_ns / 2 })),
            ..Edits::NONE
        },
    ),
];

fn spray_random(command: &mut HostCommand) {
    if let HostCommand::CreateQp(q) = command {
        q.spray = SprayPolicy::Random;
    }
}

/// DMA writes and non-ACK frames only.
fn receiver_block(o: &Output) -> bool {
    match o {
        Output::Event { event } => matches!(event, NicEvent::DmaWrite(_)),
        Output::Frame { bytes, .. } => {
            decode(bytes).bth.is_none_or(|b| b.opcode != Opcode::MRC_ACKNOWLEDGE)
        }
    }
}

/// Each output `delay` later, in order; what is due after the batch's `until` waits for a
/// later batch.
#[derive(Debug)]
struct Late {
    delay: u64,
    queue: VecDeque<TimedOutput>,
}

impl Stream for Late {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let d = self.delay;
        self.queue
            .extend(outputs.into_iter().map(|o| TimedOutput { at: Timestamp(o.at.0 + d), ..o }));
        let n = self.queue.iter().take_while(|o| o.at <= batch.until).count();
        self.queue.drain(..n).collect()
    }
}

/// DMA writes cut at `size`-byte address boundaries, the pieces in descending address
/// order when `descending`.
#[derive(Debug)]
struct Split {
    size: u64,
    descending: bool,
}

impl Stream for Split {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let size = self.size;
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let Output::Event { event: NicEvent::DmaWrite(w) } = &o.output else {
                out.push(o);
                continue;
            };
            let bytes = payload_bytes(&w.payload);
            let mut pieces = Vec::new();
            let mut pos = 0usize;
            while pos < bytes.len() {
                let va = w.va + pos as u64;
                let room = (size - va % size) as usize;
                let end = bytes.len().min(pos + room);
                let mut piece = w.clone();
                piece.va = va;
                piece.payload = Payload::Bytes(bytes[pos..end].into());
                pieces.push(TimedOutput {
                    at: o.at,
                    output: Output::Event { event: NicEvent::DmaWrite(piece) },
                });
                pos = end;
            }
            if pieces.len() <= 1 {
                out.push(o);
                continue;
            }
            if self.descending {
                pieces.reverse();
            }
            out.extend(pieces);
        }
        out
    }
}

/// A write-combining buffer: a DMA write is held up to `hold` ns and takes in the
/// contiguous DMA writes that follow it; any other output, a write that does not continue
/// it, or the end of the batch flushes it. A merged write is visible when its last part is.
#[derive(Debug)]
struct Merge {
    hold: u64,
}

impl Stream for Merge {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        let mut held: Option<(u64, TimedOutput, Vec<u8>)> = None;
        let flush = |held: &mut Option<(u64, TimedOutput, Vec<u8>)>, out: &mut Vec<TimedOutput>| {
            if let Some((_, mut o, bytes)) = held.take() {
                if let Output::Event { event: NicEvent::DmaWrite(w) } = &mut o.output {
                    w.payload = Payload::Bytes(bytes.into());
                }
                out.push(o);
            }
        };
        for o in outputs {
            let Output::Event { event: NicEvent::DmaWrite(w) } = &o.output else {
                flush(&mut held, &mut out);
                out.push(o);
                continue;
            };
            if let Some((deadline, h, bytes)) = held.as_mut() {
                let continues = matches!(&h.output, Output::Event { event: NicEvent::DmaWrite(p) }
                    if p.va + bytes.len() as u64 == w.va);
                if continues && o.at.0 <= *deadline {
                    bytes.extend(payload_bytes(&w.payload));
                    h.at = o.at;
                    continue;
                }
            }
            flush(&mut held, &mut out);
            let bytes = payload_bytes(&w.payload);
            held = Some((o.at.0 + self.hold, o, bytes));
        }
        flush(&mut held, &mut out);
        out
    }
}

/// A SACK with `m` SKIP_ONCE, made consistent again.
fn marks_skip_once(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    f.ext.seth.as_mut()?.m = openrdma_codec::EvMark(1);
    super::refit(&mut f).ok()
}
