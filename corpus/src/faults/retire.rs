//! Faults of retirement and of the error state (`spec/completion.md`): the order in which a
//! responder retires and delivers, and what a requester writes when a QP fails.
//!
//! Each is the reference NIC with one bug of its completion engine, made on the outputs
//! the way the buggy hardware would write them: the right events, in the wrong order, with
//! the wrong status, or some left out or written twice.

use std::collections::HashMap;

use openrdma_codec::frame::Extensions;
use openrdma_codec::frame::decode;
use openrdma_codec::host::{CompletionStatus, FlagRepr};
use openrdma_codec::{AethKind, AethMsn, AethRepr, BthRepr, Ev, Msn, Opcode, PethRepr, Qpn};
use openrdma_conformance::req;
use openrdma_device::{
    CpuCommand, HostCommand, Input, NicEvent, NicReport, Output, Side, TimedInput, TimedOutput,
    Timestamp,
};

use super::qps::Qps;
use super::{Batch, Edits, Fault, Stream, fault, stream};

mod failures;
use failures::*;
pub(super) use failures::{Counter, MsnRenumbered};

/// Every fault of retirement and of the error state.
pub static FAULTS: &[Fault] = &[
    stream(
        "retire-burst-last-first",
        "of the messages one input makes retirable, the retirement engine writes the flags last first",
        &[req::FLAG_RECV_002_D, req::RET_ORDER_001, req::FLAG_ORDER_001],
        &["ret-burst-before-next-input", "rcv-shared-retirement"],
        |_| Box::new(FlagsLastFirst),
    ),
    stream(
        "recv-flag-on-nak",
        "a message the responder fails with an AETH NAK gets a retirement flag with the NAK's status at its MSN's slot",
        &[req::FLAG_RECV_003],
        &["rcv-placement-errors", "rcv-check-order", "rcv-nak-resets-ack-count"],
        |_| Box::<FlagOnNak>::default(),
    ),
    stream(
        "complete-at-last",
        "the retirement engine takes a Write message (without immediate data) as complete \
         once its LAST packet is accepted, whatever bytes were placed before it: a LAST \
         packet that overtakes an earlier one gets its message's flag at once",
        &[req::RCV_MSG_003],
        &["rcv-last-packet-first"],
        |_| Box::<CompleteAtLast>::default(),
    ),
    stream(
        "immediates-last-first",
        "of the Write-with-Immediate messages one input retires, the receive completions are written last first, into the queue's slots in order, all before the flags",
        &[req::WWI_ORDER_001, req::CQE_RECV_001],
        &["rcv-wwi-order"],
        |_| Box::new(ImmediatesLastFirst),
    ),
    stream(
        "flush-with-the-cause",
        "when a QP fails, every pending message completes with the status of the cause, not only the oldest; none with FLUSHED",
        &[req::RET_FLUSH_001_A],
        &["snd-ack-nak", "snd-nack-fatal", "ret-retry-exceeded"],
        |_| Box::new(FlushWithTheCause),
    ),
    stream(
        "tokens-of-failed-qps-dropped",
        "a doorbell token for a QP already in the error state is accepted but its work request never completes: no entry, no sender flag",
        &[req::RET_FLUSH_001_B],
        &["snd-nack-fatal"],
        |_| Box::<TokensOfFailedQpsDropped>::default(),
    ),
    stream(
        "failure-stops-domain",
        "a failed QP's entries are taken out of its shared domain, but the retirement pointer stops at their MSNs: the domain retires nothing more",
        &[req::RET_ERR_001_B],
        &["ret-error-releases-domain"],
        |_| Box::<FailureStopsDomain>::default(),
    ),
    stream(
        "failure-keeps-entries",
        "when a QP fails, its entries stay in its shared domain's retirement table: a \
         complete message of the failed QP retires, with its flag, when the pointer reaches \
         it",
        &[req::RET_ERR_001_A, req::FLAG_RECV_003],
        &["ret-error-removes-entries"],
        |_| Box::<FailureKeepsEntries>::default(),
    ),
    fault(
        "shared-table-4095",
        "the shared retirement table is a ring of 4096 entries that keeps one free to tell \
         full from empty, so it holds 4095 MSNs: a write at offset 4095 from the next MSN \
         is discarded as beyond the table",
        &[req::RET_CAP_001],
        &["rcv-msn-position"],
        Edits {
            stream: Some(|m| Box::new(SmallTable::new(m, 4095))),
            per_input: true,
            ..Edits::NONE
        },
    ),
    stream(
        "probes-failed-qps",
        "the NIC half looks up the QP of a Probe command but not its error state: a probe the CPU half commands for a QP in error is sent",
        &[req::REC_IF_014],
        &["snd-nack-fatal"],
        |_| Box::<ProbesFailedQps>::default(),
    ),
    fault(
        "flag-slots-rounded-up",
        "the retirement engine rounds a QP's number of flag slots up to a power of two, so a QP whose number is not one writes retirement flags",
        &[req::RET_FLAG_001_B],
        &["rcv-flag-slots"],
        Edits {
            host_in: Some(|c| {
                if let HostCommand::CreateQp(q) = c {
                    let n = q.recv_flag_slots;
                    if n > 0 && n <= 1 << 15 && !n.is_power_of_two() {
                        q.recv_flag_slots = n.next_power_of_two();
                    }
                }
            }),
            ..Edits::NONE
        },
    ),
    stream(
        "msn-counter-starts-at-1",
        "a domain's MSN counter is reset to 1, not 0, when the domain is created: every \
         message the NIC sends carries an MSN one too high",
        &[req::RET_DOMAIN_003, req::SND_MSN_001],
        &["snd-segmentation", "snd-shared-domain"],
        |_| Box::new(MsnRenumbered::new(Counter::StartsAt1)),
    ),
    stream(
        "msn-counter-per-qp",
        "in shared retirement the sender keeps an MSN counter per QP, not one per domain: \
         the QPs of a domain each number their messages from 0",
        &[req::RET_DOMAIN_001, req::SND_MSN_001],
        &["snd-shared-domain"],
        |_| Box::new(MsnRenumbered::new(Counter::PerQp)),
    ),
    stream(
        "completes-from-the-first",
        "the sender's pointer to its oldest pending message never advances: each transport \
         ACK completes every message of the QP up to its MSN from the first, so a message \
         completes again at each later ACK",
        &[req::RET_SEND_001],
        &["snd-shared-domain", "ret-cq-wrap"],
        |_| Box::<CompletesFromTheFirst>::default(),
    ),
    stream(
        "entry-rewritten-after-flag",
        "the completion-entry writer issues each entry's write again after the work \
         request's sender flag, so the entry is the last write of the work request, not the \
         flag",
        &[req::ORD_SEND_003],
        &["snd-segmentation", "snd-shared-domain"],
        |_| Box::<EntryRewrittenAfterFlag>::default(),
    ),
    stream(
        "fails-on-access-nak",
        "a responder that answers a write with a remote access NAK moves its own QP to the \
         error state, though a NAK it sends is no cause of it",
        &[req::RET_ERR_002],
        &["rcv-placement-errors"],
        |_| Box::<FailsOnAccessNak>::default(),
    ),
    stream(
        "qp-error-reported-twice",
        "a QP's failure is reported to the CPU half twice, once by each half of the QP",
        &[req::REC_IF_009],
        &["snd-nack-fatal", "ret-retry-exceeded", "ret-error-releases-domain"],
        |_| Box::new(ErrorReportedTwice),
    ),
];

/// The outputs of a batch at `positions` put in reverse order, in place.
fn reverse_at(out: &mut [TimedOutput], positions: &[usize]) {
    let n = positions.len();
    for k in 0..n / 2 {
        let (a, b) = (positions[k], positions[n - 1 - k]);
        let (x, y) = (out[a].output.clone(), out[b].output.clone());
        out[a].output = y;
        out[b].output = x;
    }
}

/// The QPs (their retirement-flag tables and peers), and the MSN of the last data packet
/// each QP took.
#[derive(Debug, Default)]
struct FlagOnNak {
    qps: Qps,
    last_msn: HashMap<u32, u16>,
}

impl Stream for FlagOnNak {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.received(&inputs, |r| {
            if let Some(m) = r.d.ext.meth {
                self.last_msn.insert(r.qp.qpn.value(), m.msn.value());
            }
        });
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let flag = match &o.output {
                Output::Frame { bytes, .. } => self.flag_of(bytes),
                Output::Event { .. } => None,
            };
            let at = o.at;
            out.push(o);
            if let Some(f) = flag {
                out.push(TimedOutput {
                    at,
                    output: Output::Event { event: NicEvent::FlagWrite(f) },
                });
            }
        }
        out
    }
}

impl FlagOnNak {
    /// The flag this device writes beside a frame it sends: one with the status of an AETH
    /// NAK, for the message its QP took last.
    fn flag_of(&self, bytes: &[u8]) -> Option<openrdma_device::FlagWrite> {
        let d = decode(bytes);
        let (bth, aeth) = (d.bth?, d.ext.aeth?);
        let status = CompletionStatus::from_aeth_nak(aeth.syndrome & 0x7F)?;
        let q = self.qps.get(self.qps.local(bth.dest_qp.value())?)?;
        let (qpn, base, slots) = (q.qpn.value(), q.recv_flag_base, q.recv_flag_slots);
        if !(slots.is_power_of_two() && slots <= 1 << 15) {
            return None;
        }
        let msn = *self.last_msn.get(&qpn)?;
        let slot = u64::from(msn) % u64::from(slots);
        Some(openrdma_device::FlagWrite {
            qpn: openrdma_codec::Qpn::new(qpn),
            side: Side::Responder,
            msn: openrdma_codec::Msn::new(msn),
            addr: base + 8 * slot,
            value: FlagRepr::new(msn, status, 0).to_u64(),
        })
    }
}

/// A LAST or ONLY write of a message without immediate data, as it arrived.
#[derive(Debug, Clone, Copy)]
struct Last {
    qpn: u32,
    psn: u32,
    msn: u16,
    dma_len: u32,
}

/// The QPs (their retirement-flag tables), the MSNs whose flags each wrote, the LAST
/// packets of the batch, and the messages it flagged at their LAST packet.
#[derive(Debug, Default)]
struct CompleteAtLast {
    qps: Qps,
    flagged: HashMap<u32, std::collections::BTreeSet<u16>>,
    lasts: Vec<Last>,
    early: std::collections::HashSet<(u32, u16)>,
}

impl CompleteAtLast {
    /// Whether every MSN of `qpn` before `msn` has its flag: `msn` is next to retire.
    fn next(&self, qpn: u32, msn: u16) -> bool {
        let done = self.flagged.get(&qpn);
        (0..msn).all(|m| done.is_some_and(|d| d.contains(&m)))
    }

    /// The flag of a message taken as complete at its LAST packet: the one a complete
    /// message gets, in its slot.
    fn flag(&self, l: &Last) -> Option<openrdma_device::FlagWrite> {
        let q = self.qps.get(l.qpn)?;
        let (base, slots) = (q.recv_flag_base, q.recv_flag_slots);
        if !(slots.is_power_of_two() && slots <= 1 << 15) {
            return None;
        }
        let slot = u64::from(l.msn) % u64::from(slots);
        Some(openrdma_device::FlagWrite {
            qpn: Qpn::new(l.qpn),
            side: Side::Responder,
            msn: Msn::new(l.msn),
            addr: base + 8 * slot,
            value: FlagRepr::new(l.msn, CompletionStatus::SUCCESS, l.dma_len).to_u64(),
        })
    }
}

impl Stream for CompleteAtLast {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.received(&inputs, |r| {
            let (Some(b), Some(m), Some(reth)) = (r.d.bth, r.d.ext.meth, r.d.ext.reth) else {
                return;
            };
            let op = b.opcode;
            if op.is_mrc_write() && op.is_last() && !op.has_immediate() {
                self.lasts.push(Last {
                    qpn: r.qp.qpn.value(),
                    psn: b.psn.value(),
                    msn: m.msn.value(),
                    dma_len: reth.dma_len,
                });
            }
        });
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let lasts = std::mem::take(&mut self.lasts);
        let mut out = Vec::with_capacity(outputs.len() + lasts.len());
        for o in outputs {
            let mut after = None;
            match &o.output {
                Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Responder => {
                    let (qpn, msn) = (f.qpn.value(), f.msn.value());
                    self.flagged.entry(qpn).or_default().insert(msn);
                    if self.early.contains(&(qpn, msn)) {
                        continue;
                    }
                }
                Output::Event { event: NicEvent::DmaWrite(w) } => {
                    // The LAST packet accepted (placed) while its message is not yet
                    // complete: its flag goes at once, if it is next to retire.
                    after = lasts.iter().find(|l| {
                        l.qpn == w.qpn.value()
                            && l.psn == w.psn.value()
                            && !self.early.contains(&(l.qpn, l.msn))
                            && !self.flagged.get(&l.qpn).is_some_and(|d| d.contains(&l.msn))
                            && self.next(l.qpn, l.msn)
                    });
                }
                _ => {}
            }
            let at = o.at;
            out.push(o);
            if let Some(l) = after.copied()
                && let Some(f) = self.flag(&l)
            {
                self.early.insert((l.qpn, l.msn));
                self.flagged.entry(l.qpn).or_default().insert(l.msn);
                out.push(TimedOutput {
                    at,
                    output: Output::Event { event: NicEvent::FlagWrite(f) },
                });
            }
        }
        out
    }
}

/// Reverses the retirement flags each batch writes.
#[derive(Debug)]
struct FlagsLastFirst;

impl Stream for FlagsLastFirst {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let flags: Vec<usize> = outputs
            .iter()
            .enumerate()
            .filter(|(_, o)| {
                matches!(&o.output,
                Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Responder)
            })
            .map(|(k, _)| k)
            .collect();
        reverse_at(&mut outputs, &flags);
        outputs
    }
}

/// Writes the receive completions of each batch together, where the first was due, their
/// contents last first, each in the slot the device gave the entry at its position.
#[derive(Debug)]
struct ImmediatesLastFirst;

impl Stream for ImmediatesLastFirst {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let receive = |o: &TimedOutput| {
            matches!(&o.output,
                Output::Event { event: NicEvent::Completion(c) } if c.side == Side::Responder)
        };
        let Some(first) = outputs.iter().position(receive) else { return outputs };
        let (mut entries, mut rest): (Vec<TimedOutput>, Vec<TimedOutput>) =
            outputs.into_iter().partition(receive);
        // The contents move, the places stay: the k-th slot written gets the entry of the
        // k-th message from the last.
        let contents: Vec<_> = entries
            .iter()
            .rev()
            .filter_map(|o| match &o.output {
                Output::Event { event: NicEvent::Completion(c) } => Some(c.written_entry()),
                _ => None,
            })
            .collect();
        for (o, mut entry) in entries.iter_mut().zip(contents) {
            if let Output::Event { event: NicEvent::Completion(c) } = &mut o.output {
                if let Some(q) = c.queue.as_mut() {
                    entry.phase = q.entry().phase;
                    let _ = entry.emit(&mut q.bytes);
                }
                c.entry = entry;
            }
        }
        let tail = rest.split_off(first);
        rest.extend(entries);
        rest.extend(tail);
        rest
    }
}
