//! Faults of retirement and of the error state (`spec/completion.md`): the order in which a
//! responder retires and delivers, and what a requester writes when a QP fails.
//!
//! Each is the reference NIC with one bug of its completion engine, made on the outputs
//! the way the buggy hardware would write them: the right events, in the wrong order, with
//! the wrong status, or some left out or written twice.

use std::collections::HashMap;

use openrdma_codec::AethKind;
use openrdma_codec::frame::decode;
use openrdma_codec::host::{CompletionStatus, FlagRepr};
use openrdma_conformance::req;
use openrdma_device::{NicEvent, NicReport, Output, Side, TimedOutput};

use super::{Batch, Fault, Stream, stream};

/// Every fault of retirement and of the error state.
pub static FAULTS: &[Fault] = &[
    stream(
        "retire-burst-last-first",
        "of the messages one input makes retirable, the retirement engine writes the flags last first",
        &[req::RET_ORDER_001, req::FLAG_ORDER_001],
        &["ret-burst-before-next-input", "rcv-shared-retirement"],
        |_| Box::new(FlagsLastFirst),
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
