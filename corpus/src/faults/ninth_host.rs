//! Faults of the host interface from a ninth reading, of its error paths: a flag lost with
//! the entry a full queue could not take, and a token flushed at a QP in error that writes
//! its entry but no flag. Each proves a class of the judge's naming.

use std::collections::{HashMap, HashSet};

use openrdma_codec::host::{CompletionStatus, FlagRepr};
use openrdma_conformance::req;
use openrdma_device::{NicEvent, NicReport, Output, Side, TimedOutput};

use super::{Batch, Fault, Stream, stream};

/// Every fault of the ninth reading of the host interface.
pub static FAULTS: &[Fault] = &[
    stream(
        "cq-full-drops-flags",
        "the sender flag writer waits behind the completion writer: once a queue is full, the flags of the messages whose entries could not be written are dropped with them",
        &[req::CQE_RING_005_A],
        // The flag of a signaled work request without its entry reads as an unsignaled
        // one's (FLAG-SEND-002) unless the judge sees the full queue.
        &["ret-cq-overflow"],
        |_| Box::new(FullDropsFlags),
    ),
    stream(
        "flush-token-no-flag",
        "a token that reaches a QP already in error completes through the rejection path, which writes no flag: its FLUSHED entry comes, its sender flag never",
        &[req::RET_FLUSH_001_B],
        // The token never took an MSN: its entry shares MSN 0 and generation 0 with the
        // QP's first message, and must not be read as a write after that message's flag.
        &["snd-nack-fatal"],
        |_| Box::<TokenNoFlag>::default(),
    ),
];

/// The QP and, for a requester flag, its MSN and status.
fn requester_flag(o: &TimedOutput) -> Option<(u32, u16, CompletionStatus)> {
    match &o.output {
        Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Requester => {
            Some((f.qpn.value(), f.msn.value(), FlagRepr::from_u64(f.value).status))
        }
        _ => None,
    }
}

/// The QPs a QpError of `outputs` fails, with its time, when `why` holds of its cause.
fn failed(outputs: &[TimedOutput], why: fn(&str) -> bool) -> HashMap<u32, u64> {
    let mut out = HashMap::new();
    for o in outputs {
        if let Output::Event { event: NicEvent::Report(NicReport::QpError { qpn, requirement }) } =
            &o.output
        {
            if why(requirement) {
                out.entry(qpn.value()).or_insert(o.at.0);
            }
        }
    }
    out
}

/// Drops the success flags, at the instant a full queue fails their QP, of the messages
/// whose entries the device could not write.
#[derive(Debug)]
struct FullDropsFlags;

impl Stream for FullDropsFlags {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let stops = failed(&outputs, |r| r.starts_with("CQE-RING-004"));
        let written: HashSet<(u32, u16)> = outputs
            .iter()
            .filter_map(|o| match &o.output {
                Output::Event { event: NicEvent::Completion(c) } if c.side == Side::Requester => {
                    Some((c.entry.qpn.value(), c.entry.msn.value()))
                }
                _ => None,
            })
            .collect();
        outputs
            .into_iter()
            .filter(|o| match requester_flag(o) {
                Some((qp, msn, s)) => {
                    !(s.is_success()
                        && stops.get(&qp) == Some(&o.at.0)
                        && !written.contains(&(qp, msn)))
                }
                None => true,
            })
            .collect()
    }
}

/// Drops the FLUSHED flags a QP writes after the instant it failed: those of the tokens
/// that reached it in error.
#[derive(Debug, Default)]
struct TokenNoFlag {
    errors: HashMap<u32, u64>,
}

impl Stream for TokenNoFlag {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for (qp, t) in failed(&outputs, |_| true) {
            self.errors.entry(qp).or_insert(t);
        }
        let errors = &self.errors;
        outputs
            .into_iter()
            .filter(|o| match requester_flag(o) {
                Some((qp, _, s)) => {
                    !(s == CompletionStatus::FLUSHED
                        && errors.get(&qp).is_some_and(|&t| o.at.0 > t))
                }
                None => true,
            })
            .collect()
    }
}
