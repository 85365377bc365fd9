//! Faults of retirement and of the error state (`spec/completion.md`): the order in which a
//! responder retires and delivers, and what a requester writes when a QP fails.
//!
//! Each is the reference NIC with one bug of its completion engine, made on the outputs
//! the way the buggy hardware would write them: the right events, in the wrong order, with
//! the wrong status, or some left out or written twice.

use std::collections::HashMap;

use openrdma_codec::AethKind;
use openrdma_codec::frame::Extensions;
use openrdma_codec::frame::decode;
use openrdma_codec::host::{CompletionStatus, FlagRepr};
use openrdma_codec::{BthRepr, Ev, Opcode, PethRepr};
use openrdma_conformance::req;
use openrdma_device::{
    CpuCommand, HostCommand, Input, NicEvent, NicReport, Output, Side, TimedInput, TimedOutput,
    Timestamp,
};

use super::{Batch, Edits, Fault, Stream, fault, stream};

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
        &[req::RET_FLUSH_001_B, req::RET_ERR_004_D],
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
        "probes-failed-qps",
        "the NIC half looks up the QP of a Probe command but not its error state: a probe the CPU half commands for a QP in error is sent",
        &[req::REC_IF_014, req::RET_ERR_004_C],
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
        "qp-error-reported-twice",
        "a QP's failure is reported to the CPU half twice, once by each half of the QP",
        &[req::RET_ERR_004_E],
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

/// Each device QP's retirement-flag table and its peer, and the MSN of the last data
/// packet each QP took.
#[derive(Debug, Default)]
struct FlagOnNak {
    tables: HashMap<u32, (u32, u64, u32)>,
    last_msn: HashMap<u32, u16>,
}

impl Stream for FlagOnNak {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    let t = (q.qpn.value(), q.recv_flag_base, q.recv_flag_slots);
                    self.tables.insert(q.peer_qpn.value(), t);
                }
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    if let (Some(b), Some(m)) = (d.bth, d.ext.meth) {
                        self.last_msn.insert(b.dest_qp.value(), m.msn.value());
                    }
                }
                _ => {}
            }
        }
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
        let &(qpn, base, slots) = self.tables.get(&bth.dest_qp.value())?;
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

/// The QP and status of a requester's flag or entry.
fn requester_status(o: &Output) -> Option<(u32, CompletionStatus)> {
    match o {
        Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Requester => {
            Some((f.qpn.value(), FlagRepr::from_u64(f.value).status))
        }
        Output::Event { event: NicEvent::Completion(c) } if c.side == Side::Requester => {
            Some((c.entry.qpn.value(), c.written_entry().status))
        }
        _ => None,
    }
}

/// Rewrites the status of a requester's flag or entry.
fn set_status(o: &mut Output, status: CompletionStatus) {
    match o {
        Output::Event { event: NicEvent::FlagWrite(f) } => {
            let mut flag = FlagRepr::from_u64(f.value);
            flag.status = status;
            f.value = flag.to_u64();
        }
        Output::Event { event: NicEvent::Completion(c) } => {
            let mut entry = c.written_entry();
            entry.status = status;
            c.entry = entry;
            if let Some(q) = c.queue.as_mut() {
                let _ = entry.emit(&mut q.bytes);
            }
        }
        _ => {}
    }
}

/// Gives the messages flushed behind a QP's oldest pending one the oldest's status.
#[derive(Debug)]
struct FlushWithTheCause;

impl Stream for FlushWithTheCause {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        // The cause of each QP's failure in this batch: its first failure other than FLUSHED.
        let mut cause: HashMap<u32, CompletionStatus> = HashMap::new();
        for o in &mut outputs {
            let Some((qpn, status)) = requester_status(&o.output) else { continue };
            if status.is_success() {
                continue;
            }
            if status != CompletionStatus::FLUSHED {
                cause.entry(qpn).or_insert(status);
            } else if let Some(&c) = cause.get(&qpn) {
                set_status(&mut o.output, c);
            }
        }
        outputs
    }
}

/// Drops the completions of the work requests that reach a QP already in error.
#[derive(Debug, Default)]
struct TokensOfFailedQpsDropped {
    /// The QPs that reported their failure, with its time.
    failed: HashMap<u32, u64>,
}

impl Stream for TokensOfFailedQpsDropped {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            if let Output::Event { event: NicEvent::Report(NicReport::QpError { qpn, .. }) } =
                &o.output
            {
                self.failed.entry(qpn.value()).or_insert(o.at.0);
            }
            let late = requester_status(&o.output).is_some_and(|(qpn, status)| {
                status == CompletionStatus::FLUSHED
                    && self.failed.get(&qpn).is_some_and(|&t| t < o.at.0)
            });
            if !late {
                out.push(o);
            }
        }
        out
    }
}

/// After the first QP failure, retires nothing more: no retirement flag, receive completion
/// or transport ACK.
#[derive(Debug, Default)]
struct FailureStopsDomain {
    /// The time of the first failure.
    stopped: Option<u64>,
}

impl Stream for FailureStopsDomain {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        if self.stopped.is_none() {
            self.stopped = outputs.iter().find_map(|o| match &o.output {
                Output::Event { event: NicEvent::Report(NicReport::QpError { .. }) } => {
                    Some(o.at.0)
                }
                _ => None,
            });
        }
        let Some(t) = self.stopped else { return outputs };
        outputs.retain(|o| {
            o.at.0 < t
                || match &o.output {
                    Output::Event { event: NicEvent::FlagWrite(f) } => f.side != Side::Responder,
                    Output::Event { event: NicEvent::Completion(c) } => c.side != Side::Responder,
                    Output::Frame { bytes, .. } => {
                        let d = decode(bytes);
                        !d.ext.aeth.is_some_and(|a| AethKind::of(a.syndrome) == AethKind::Ack)
                    }
                    _ => true,
                }
        });
        outputs
    }
}

/// Reports each QP failure twice.
#[derive(Debug)]
struct ErrorReportedTwice;

impl Stream for ErrorReportedTwice {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len() + 1);
        for o in outputs {
            let again = matches!(
                &o.output,
                Output::Event { event: NicEvent::Report(NicReport::QpError { .. }) }
            )
            .then(|| o.clone());
            out.push(o);
            out.extend(again);
        }
        out
    }
}

/// Sends the probes the CPU half commands for a QP in the error state: the check of the
/// error state is left out of the command path, so the probe goes as for a live QP.
#[derive(Debug, Default)]
struct ProbesFailedQps {
    /// The wire QP of each device QP.
    peer: HashMap<u32, u32>,
    /// The QPs that reported their failure.
    failed: HashMap<u32, u64>,
    /// The last data frame of each wire QP, with its port: what a probe of it is made from.
    last: HashMap<u32, (u16, Vec<u8>)>,
    /// Probes commanded in the batch: time, device QP, EV.
    owed: Vec<(u64, u32, Ev)>,
}

impl Stream for ProbesFailedQps {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    self.peer.insert(q.qpn.value(), q.peer_qpn.value());
                }
                Input::Cpu { command: CpuCommand::Probe { qpn, ev } } => {
                    self.owed.push((i.at.0, qpn.value(), *ev));
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            match &o.output {
                Output::Event { event: NicEvent::Report(NicReport::QpError { qpn, .. }) } => {
                    self.failed.entry(qpn.value()).or_insert(o.at.0);
                }
                Output::Frame { port, bytes } => {
                    let d = decode(bytes);
                    if let (Some(b), true) = (d.bth, d.ext.meth.is_some()) {
                        self.last.insert(b.dest_qp.value(), (*port, bytes.clone()));
                    }
                }
                _ => {}
            }
        }
        // A command for a live QP the inner device acted on already.
        let owed = std::mem::take(&mut self.owed);
        for (at, qpn, ev) in owed {
            if self.failed.get(&qpn).is_none_or(|&t| t > at) {
                continue;
            }
            let Some((port, bytes)) = self.peer.get(&qpn).and_then(|p| self.last.get(p)) else {
                continue;
            };
            let Some(mut f) = decode(bytes).to_repr() else { continue };
            let mut bth = BthRepr::new(Opcode::MRC_PROBE, f.bth.dest_qp, f.bth.psn);
            bth.pkey = f.bth.pkey;
            f.bth = bth;
            f.ext = Extensions {
                peth: Some(PethRepr { ftype: 1, ..PethRepr::default() }),
                ..Extensions::default()
            };
            f.payload.clear();
            f.set_entropy(ev);
            if f.finalize().is_err() {
                continue;
            }
            let Ok(buf) = f.to_bytes() else { continue };
            outputs.push(TimedOutput {
                at: Timestamp(at),
                output: Output::Frame { port: *port, bytes: buf },
            });
        }
        outputs.sort_by_key(|o| o.at.0);
        outputs
    }
}
