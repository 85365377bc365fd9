//! The reports of one QP at one instant (CONF-CMP-110): faults that deliver one input's
//! reports out of the order of the steps that made them, and a variant that gives the
//! reports of several inputs at one instant, in another order no rule fixes.

use std::collections::HashMap;

use openrdma_codec::Ev;
use openrdma_conformance::req::*;
use openrdma_device::{NicEvent, NicReport, Output, TimedOutput, Timestamp};

use super::variants::{Variant, variant};
use super::{Batch, Caps, Edits, Fault, Stream, stream};

/// The faults of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "progress-before-ev-step",
        "the report FIFO takes a SACK's Progress as soon as the cumulative part is computed, ahead of the EvMarked, EvState or ProbeAnswered its EV step made at the same instant",
        &[REC_IF_015],
        &["snd-spray-fixed", "snd-spray-random", "snd-spray-round-robin"],
        |_| Box::new(Hoist { moved: is_progress, over: is_ev_step }),
    ),
    stream(
        "armed-before-progress",
        "the Armed of a data packet is written to the report FIFO through a faster port than the Progress made at the same instant before it, and overtakes it",
        &[REC_IF_015],
        &["snd-cc-sack", "snd-lenient", "snd-order-messages", "snd-wwi-limit"],
        |_| Box::new(Hoist { moved: is_armed, over: is_progress }),
    ),
];

/// The variants of this family.
pub static VARIANTS: &[Variant] = &[variant(
    "reports-gathered",
    "drains its output queue once every half of late_ns: each output waits up to that long, so \
     that the reports of several inputs share one instant, and a QP's reports that carry no \
     snd_una and touch no EV of the earlier ones come first, as if their input was taken first",
    &[CONF_TIME_004, CONF_CMP_110_C],
    Caps::Same,
    Edits {
        stream: Some(|m| {
            Box::new(Gathered { window: m.tolerances.late_ns / 2, open: None, held: vec![] })
        }),
        ..Edits::NONE
    },
)];

fn report(o: &TimedOutput) -> Option<&NicReport> {
    match &o.output {
        Output::Event { event: NicEvent::Report(r) } => Some(r),
        _ => None,
    }
}

fn is_progress(r: &NicReport) -> bool {
    matches!(r, NicReport::Progress { .. })
}

fn is_armed(r: &NicReport) -> bool {
    matches!(r, NicReport::Armed { .. })
}

fn is_ev_step(r: &NicReport) -> bool {
    matches!(
        r,
        NicReport::EvMarked { .. } | NicReport::EvState { .. } | NicReport::ProbeAnswered { .. }
    )
}

/// Moves each report `moved` chooses ahead of the reports of its QP and instant right
/// before it that `over` chooses.
#[derive(Debug)]
struct Hoist {
    moved: fn(&NicReport) -> bool,
    over: fn(&NicReport) -> bool,
}

impl Stream for Hoist {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for i in 0..outputs.len() {
            let Some(r) = report(&outputs[i]).filter(|r| (self.moved)(r)) else { continue };
            let (q, at) = (r.qpn(), outputs[i].at);
            let mut k = i;
            // Walk back over the QP's reports of the instant that `over` chooses, passing
            // any other output.
            for j in (0..i).rev() {
                if outputs[j].at != at {
                    break;
                }
                match report(&outputs[j]) {
                    Some(p) if p.qpn() == q && (self.over)(p) => k = j,
                    Some(p) if p.qpn() == q => break,
                    _ => {}
                }
            }
            if k < i {
                let o = outputs.remove(i);
                outputs.insert(k, o);
            }
        }
        outputs
    }
}

/// Holds every output until the window it falls in closes, `window` after the first output
/// it holds; then gives them all at that time, each QP's reports with a later production
/// time first when they carry no `snd_una` and touch no EV of the earlier ones.
#[derive(Debug)]
struct Gathered {
    window: u64,
    /// When the open window closes.
    open: Option<u64>,
    held: Vec<TimedOutput>,
}

/// Whether a report may be taken before the reports of an earlier input: it carries no
/// `snd_una` and comes of no retransmission or error, and the EV it names, if any.
fn movable(r: &NicReport) -> Option<Option<Ev>> {
    match r {
        NicReport::EvMarked { ev, .. }
        | NicReport::EvState { ev, .. }
        | NicReport::ProbeAnswered { ev, .. } => Some(Some(*ev)),
        NicReport::Nack { .. } => Some(None),
        _ => None,
    }
}

/// The places of a QP's reports of one production time, with that time.
type Group = (u64, Vec<usize>);

impl Gathered {
    /// The outputs of the window closing at `close`, in the order given: each QP's reports
    /// of the production times whose reports are all movable and touch no EV of another,
    /// first, then the others, each in production order, in the places its reports held.
    fn drain(&mut self, close: u64) -> Vec<TimedOutput> {
        let mut held: Vec<Option<TimedOutput>> =
            std::mem::take(&mut self.held).into_iter().map(Some).collect();
        // Per QP: its places, and its groups by production time (time, places).
        let mut qps: HashMap<u32, (Vec<usize>, Vec<Group>)> = HashMap::new();
        for (k, o) in held.iter().enumerate() {
            let Some(o) = o else { continue };
            let Some(q) = report(o).and_then(|r| r.qpn()) else { continue };
            let (places, groups) = qps.entry(q.value()).or_default();
            places.push(k);
            match groups.iter_mut().find(|g| g.0 == o.at.0) {
                Some(g) => g.1.push(k),
                None => groups.push((o.at.0, vec![k])),
            }
        }
        let mut order: Vec<(usize, usize)> = Vec::new();
        for (places, groups) in qps.values() {
            let evs = |g: &[usize]| -> Option<Vec<Option<Ev>>> {
                g.iter().map(|&k| held[k].as_ref().and_then(report).and_then(movable)).collect()
            };
            let free = |n: usize| {
                let Some(mine) = evs(&groups[n].1) else { return false };
                groups.iter().enumerate().filter(|&(m, _)| m != n).all(|(_, g)| {
                    g.1.iter().all(|&k| match held[k].as_ref().and_then(report) {
                        Some(r) => report_ev(r).is_none_or(|e| !mine.contains(&Some(e))),
                        None => true,
                    })
                })
            };
            let (first, rest): (Vec<usize>, Vec<usize>) = (0..groups.len()).partition(|&n| free(n));
            let taken = first.into_iter().chain(rest).flat_map(|n| groups[n].1.iter().copied());
            order.extend(places.iter().copied().zip(taken));
        }
        let mut out: Vec<Option<TimedOutput>> = vec![None; held.len()];
        for (to, from) in order {
            out[to] = held[from].take();
        }
        out.iter_mut().zip(held).for_each(|(o, h)| {
            if o.is_none() {
                *o = h;
            }
        });
        out.into_iter().flatten().map(|o| TimedOutput { at: Timestamp(close), ..o }).collect()
    }
}

/// The EV a report names, if any.
fn report_ev(r: &NicReport) -> Option<Ev> {
    match r {
        NicReport::EvMarked { ev, .. }
        | NicReport::EvState { ev, .. }
        | NicReport::ProbeAnswered { ev, .. } => Some(*ev),
        _ => None,
    }
}

impl Stream for Gathered {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::new();
        for o in outputs {
            if let Some(close) = self.open.filter(|&c| o.at.0 > c) {
                out.extend(self.drain(close));
                self.open = None;
            }
            self.open.get_or_insert(o.at.0.saturating_add(self.window));
            self.held.push(o);
        }
        if let Some(close) = self.open.filter(|&c| c <= batch.until.0) {
            out.extend(self.drain(close));
            self.open = None;
        }
        out
    }
}
