//! A fault of the sender's retransmission queue when no EV of the QP is usable: the entry
//! a trim queues must stay queued until an EV comes back (SND-SCHED-003.e).

use std::collections::{HashMap, HashSet};

use openrdma_codec::frame::decode;
use openrdma_conformance::req;
use openrdma_device::{EvState, NicEvent, NicReport, Output, TimedInput, TimedOutput};

use super::qps::Qps;
use super::{Batch, Fault, Stream, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[stream(
    "unusable-entry-dropped",
    "the sender takes a queued retransmission when no EV of the QP is usable, finds no EV \
     for it and drops it: a PSN trimmed while every EV is out of GOOD is not sent again \
     when an EV comes back",
    &[req::SND_SCHED_003_E],
    &["snd-ev-skip-queued"],
    |_| Box::<UnusableEntryDropped>::default(),
)];

/// Drops the next retransmission of each PSN a trim NACK queued while the device had
/// reported every EV of the QP's profile out of GOOD, with its report.
#[derive(Debug, Default)]
struct UnusableEntryDropped {
    qps: Qps,
    /// The device's EV state reports: (time, device QPN, EV, state).
    reports: Vec<(u64, u32, openrdma_codec::Ev, EvState)>,
    /// The trims not yet judged: (time, device QPN, PSN).
    trims: Vec<(u64, u32, u32)>,
    /// The entries dropped, by (device QPN, PSN), until their retransmission is dropped.
    dropped: HashSet<(u32, u32)>,
}

impl UnusableEntryDropped {
    /// Whether the device had reported every EV of device QP `local` out of GOOD at `at`.
    fn none_usable(&self, local: u32, at: u64) -> bool {
        let Some(q) = self.qps.get(local) else { return false };
        let mut last: HashMap<openrdma_codec::Ev, EvState> = HashMap::new();
        for &(t, qpn, ev, state) in &self.reports {
            if t <= at && qpn == local {
                last.insert(ev, state);
            }
        }
        q.evs
            .iter()
            .chain(&q.backup_evs)
            .all(|ev| last.get(ev).is_some_and(|s| *s != EvState::Good))
    }
}

impl Stream for UnusableEntryDropped {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        let trims = &mut self.trims;
        self.qps.received(&inputs, |r| {
            if let Some(n) = r.d.ext.neth.filter(|n| n.reason.is_trim()) {
                trims.push((r.at.0, r.qp.qpn.value(), n.nack_psn.value()));
            }
        });
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            if let Output::Event {
                event: NicEvent::Report(NicReport::EvState { qpn, ev, state }),
            } = &o.output
            {
                self.reports.push((o.at.0, qpn.value(), *ev, *state));
            }
        }
        for (at, local, psn) in std::mem::take(&mut self.trims) {
            if self.none_usable(local, at) {
                self.dropped.insert((local, psn));
            }
        }
        // The retransmissions dropped, then their reports, wherever they are in the batch.
        let mut gone: Vec<(u32, u32)> = Vec::new();
        let mut out: Vec<TimedOutput> = outputs
            .into_iter()
            .filter(|o| {
                let Output::Frame { bytes, .. } = &o.output else { return true };
                let d = decode(bytes);
                let key = d
                    .bth
                    .filter(|b| b.opcode.is_mrc_write() && b.rtx)
                    .and_then(|b| Some((self.qps.local(b.dest_qp.value())?, b.psn.value())));
                match key.filter(|k| self.dropped.remove(k)) {
                    Some(k) => {
                        gone.push(k);
                        false
                    }
                    None => true,
                }
            })
            .collect();
        out.retain(|o| match &o.output {
            Output::Event {
                event: NicEvent::Report(NicReport::Retransmitted { qpn, psn, .. }),
            } => {
                let k = (qpn.value(), psn.value());
                match gone.iter().position(|g| *g == k) {
                    Some(p) => {
                        gone.remove(p);
                        false
                    }
                    None => true,
                }
            }
            _ => true,
        });
        out
    }
}
