//! Faults of a sender found by the sixth outside reading of the sender and recovery
//! chapters, which looked for bugs that show only in combination: two QPs sending or
//! reporting at one instant, and a QP that goes idle and starts again. Each names the
//! scenarios that catch it.

use std::collections::{HashMap, HashSet};

use openrdma_codec::frame::decode;
use openrdma_codec::{Psn, Qpn};
use openrdma_conformance::req;
use openrdma_device::{Input, Manifest, NicEvent, NicReport, Output, TimedInput, TimedOutput};

use super::qps::Qps;
use super::{Batch, Fault, Stream, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "dest-qp-cycle-latched",
        "the header builder loads peer_qpn once per transmit cycle: when two QPs send at one instant, the second QP's packets carry the first QP's dest_qp",
        &[req::SND_QPN_001],
        &["rec-split-two-qps"],
        |_| Box::new(DestQpLatched),
    ),
    stream(
        "progress-snd-una-latched",
        "the report builder latches snd_una of the first Progress of an instant: a second QP's Progress at the same instant carries the first QP's snd_una",
        &[req::REC_IF_002],
        &["rec-split-two-qps"],
        |_| Box::new(UnaLatched),
    ),
    stream(
        "armed-once-per-qp",
        "the Armed latch is cleared only when the QP is created: after a Progress that leaves nothing outstanding, the next first transmission sends no Armed",
        &[req::REC_IF_003],
        &["snd-ev-skip", "snd-ev-always-skip", "snd-ev-probe-skip"],
        |_| Box::new(ArmedOnce::default()),
    ),
    stream(
        "window-check-one-short",
        "the window check compares with <= min(W_own, W_peer) - 1 instead of <: the PSN that fills the window exactly waits for the next SACK",
        &[req::SND_WIN_001],
        &["snd-window"],
        |m| Box::new(WindowOneShort::new(m)),
    ),
];

/// Rewrites the data packets of an instant to carry the `dest_qp` of its first one.
#[derive(Debug)]
struct DestQpLatched;

impl Stream for DestQpLatched {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut first: HashMap<u64, Qpn> = HashMap::new();
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let Some(mut f) = decode(bytes).to_repr() else { continue };
            if !f.bth.opcode.is_mrc_write() {
                continue;
            }
            let qp = *first.entry(o.at.0).or_insert(f.bth.dest_qp);
            if qp == f.bth.dest_qp {
                continue;
            }
            f.bth.dest_qp = qp;
            f.icrc = None;
            if f.finalize().is_ok() {
                if let Ok(b) = f.to_bytes() {
                    *bytes = b;
                }
            }
        }
        outputs
    }
}

/// Gives every Progress of an instant the `snd_una` of its first one.
#[derive(Debug)]
struct UnaLatched;

impl Stream for UnaLatched {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut first: HashMap<u64, Psn> = HashMap::new();
        for o in &mut outputs {
            if let Output::Event { event: NicEvent::Report(NicReport::Progress { snd_una, .. }) } =
                &mut o.output
            {
                *snd_una = *first.entry(o.at.0).or_insert(*snd_una);
            }
        }
        outputs
    }
}

/// Drops every Armed of a QP after its first.
#[derive(Debug, Default)]
struct ArmedOnce {
    armed: HashSet<u32>,
}

impl Stream for ArmedOnce {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs.retain(|o| match &o.output {
            Output::Event { event: NicEvent::Report(NicReport::Armed { qpn, .. }) } => {
                self.armed.insert(qpn.value())
            }
            _ => true,
        });
        outputs
    }
}

/// Holds the first transmission that fills its QP's window exactly, and every later one
/// of the QP, until the next SACK into the QP.
#[derive(Debug)]
struct WindowOneShort {
    qps: Qps,
    /// The sender's own window, in PSNs.
    own: u32,
    /// Per device QP: from each SACK's time on, `snd_una` and the window.
    window: HashMap<u32, Vec<(u64, u32, u32)>>,
    /// Per device QP: the outputs held, and when the first was made.
    held: HashMap<u32, (u64, Vec<TimedOutput>)>,
}

impl WindowOneShort {
    fn new(m: &Manifest) -> Self {
        let own = u32::from(m.nic.mpr) * 128;
        WindowOneShort { qps: Qps::default(), own, window: HashMap::new(), held: HashMap::new() }
    }

    /// `snd_una` and the window of device QP `local` at `at`.
    fn at(&self, local: u32, at: u64) -> Option<(u32, u32)> {
        let w = self.window.get(&local).and_then(|v| v.iter().rev().find(|(t, ..)| *t <= at));
        match w {
            Some(&(_, una, win)) => Some((una, win)),
            None => self.qps.get(local).map(|q| (q.initial_psn.value(), self.own)),
        }
    }
}

impl Stream for WindowOneShort {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            self.qps.learn(&i.input);
            let Input::Frame { bytes, .. } = &i.input else { continue };
            let d = decode(bytes);
            let (Some(bth), Some(x)) = (d.bth, d.ext.seth) else { continue };
            let local = bth.dest_qp.value();
            if x.pr || self.qps.get(local).is_none() {
                continue;
            }
            let prev = self.at(local, i.at.0).map_or(self.own, |(_, w)| w);
            let win = if x.mpr == 0 { prev } else { (u32::from(x.mpr) * 128).min(self.own) };
            let una = x.cack_psn.value().wrapping_add(1) & 0xFF_FFFF;
            self.window.entry(local).or_default().push((i.at.0, una, win));
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let first = match &o.output {
                Output::Frame { bytes, .. } => decode(bytes)
                    .bth
                    .filter(|b| b.opcode.is_mrc_write() && !b.rtx)
                    .and_then(|b| Some((self.qps.local(b.dest_qp.value())?, b.psn.value()))),
                _ => None,
            };
            let Some((local, psn)) = first else {
                out.push(o);
                continue;
            };
            if let Some((_, held)) = self.held.get_mut(&local) {
                held.push(o);
                continue;
            }
            let fills = self.at(local, o.at.0).is_some_and(|(una, win)| {
                (psn.wrapping_sub(una) & 0xFF_FFFF).saturating_add(1) == win
            });
            if fills {
                self.held.insert(local, (o.at.0, vec![o]));
            } else {
                out.push(o);
            }
        }
        let mut freed = Vec::new();
        for (&local, (since, _)) in &self.held {
            let sack = self.window.get(&local).and_then(|v| {
                v.iter().map(|(t, ..)| *t).find(|&t| t > *since && t <= batch.until.0)
            });
            if let Some(t) = sack {
                freed.push((local, t));
            }
        }
        freed.sort_unstable();
        for (local, t) in freed {
            if let Some((_, held)) = self.held.remove(&local) {
                out.extend(held.into_iter().map(|mut o| {
                    o.at.0 = o.at.0.max(t);
                    o
                }));
            }
        }
        out.sort_by_key(|o| o.at.0);
        out
    }
}
