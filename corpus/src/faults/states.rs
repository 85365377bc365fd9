//! Faults of EV states: the state table of sender table 4, or the pool formed from it,
//! gets one rule wrong.
//!
//! Each is the reference NIC with one bug in how it keeps its EVs' states, seen at the
//! boundary as the bug would show: in the `EvState` reports the NIC half makes of every
//! transition it applies (REC-IF-016), or in the EVs its data packets take.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use openrdma_codec::{Ev, Qpn};
use openrdma_conformance::req;
use openrdma_device::{
    CpuCommand, EvMark, EvState, HostCommand, Input, Manifest, NicEvent, NicReport, Output,
    TimedInput, TimedOutput, Timestamp,
};

use super::{Batch, Fault, Stream, stream};

/// Faults of this family the corpus cannot catch, not registered, with the reason.
pub const NOT_REGISTERED: &[(&str, &str)] = &[];

/// Every fault of EV states.
pub static FAULTS: &[Fault] = &[
    stream(
        "probe-good-rewrites-good",
        "a probe answer with m = NONE writes GOOD into the state table whatever the EV's state, and reports the write even when the EV was already GOOD",
        &[req::EV_STATE_002_B],
        &["snd-tail-probe", "snd-spray-window-fit-probe-rtt"],
        |_| Box::<ProbeGoodRewritesGood>::default(),
    ),
    stream(
        "hold-outlives-bad",
        "the SKIP hold timer is not stopped when an EV in SKIP becomes ASSUMED_BAD: when it ends, the EV goes from ASSUMED_BAD back to GOOD with no probe",
        &[req::EV_STATE_002_A],
        &["rec-split-skip-expiry"],
        |m| Box::new(HoldOutlivesBad::new(m)),
    ),
    stream(
        "empty-pool-first-ev",
        "when no EV of a QP is usable the path selector falls back to the first EV of the profile, so data packets go out on an EV out of GOOD",
        &[req::SND_PATH_002, req::SND_SCHED_003_E],
        &["snd-ev-set-state", "snd-ev-deny"],
        |_| Box::<EmptyPoolFirstEv>::default(),
    ),
    stream(
        "backups-start-skip",
        "the state register of each backup EV resets to SKIP rather than GOOD when a QP is created, with no report: the EV returns to GOOD after skip_hold and reports that",
        &[req::EV_STATE_001_A],
        &["snd-ev-skip-kept"],
        |_| Box::<BackupsStartSkip>::default(),
    ),
];

/// The EV state reports of `outputs`: (time, QPN, EV, state).
fn state_reports(outputs: &[TimedOutput]) -> impl Iterator<Item = (u64, Qpn, Ev, EvState)> + '_ {
    outputs.iter().filter_map(|o| match &o.output {
        Output::Event { event: NicEvent::Report(NicReport::EvState { qpn, ev, state }) } => {
            Some((o.at.0, *qpn, *ev, *state))
        }
        _ => None,
    })
}

/// An `EvState` report at `at`.
fn state_report(at: u64, qpn: Qpn, ev: Ev, state: EvState) -> TimedOutput {
    TimedOutput {
        at: Timestamp(at),
        output: Output::Event { event: NicEvent::Report(NicReport::EvState { qpn, ev, state }) },
    }
}

/// The states the NIC reported, by QP and EV, with the time of each report.
#[derive(Debug, Default)]
struct Reported(HashMap<(Qpn, Ev), (EvState, u64)>);

impl Reported {
    fn get(&self, qpn: Qpn, ev: Ev) -> EvState {
        self.0.get(&(qpn, ev)).map_or(EvState::Good, |(s, _)| *s)
    }

    fn set(&mut self, qpn: Qpn, ev: Ev, state: EvState, at: u64) {
        self.0.insert((qpn, ev), (state, at));
    }

    /// Whether the state of the EV was last reported at `at`.
    fn changed_at(&self, qpn: Qpn, ev: Ev, at: u64) -> bool {
        self.0.get(&(qpn, ev)).is_some_and(|(_, t)| *t == at)
    }
}

/// A probe answer with no mark on an EV already GOOD is reported as a move to GOOD.
#[derive(Debug, Default)]
struct ProbeGoodRewritesGood {
    states: Reported,
}

impl Stream for ProbeGoodRewritesGood {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let again = match &o.output {
                Output::Event { event: NicEvent::Report(r) } => match *r {
                    NicReport::EvState { qpn, ev, state } => {
                        self.states.set(qpn, ev, state, o.at.0);
                        None
                    }
                    // The answer that moved the EV to GOOD was reported by that move.
                    NicReport::ProbeAnswered { qpn, ev, mark: EvMark::None }
                        if self.states.get(qpn, ev) == EvState::Good
                            && !self.states.changed_at(qpn, ev, o.at.0) =>
                    {
                        Some(state_report(o.at.0, qpn, ev, EvState::Good))
                    }
                    _ => None,
                },
                _ => None,
            };
            out.push(o);
            out.extend(again);
        }
        out
    }
}

/// The hold timer of an EV that entered SKIP keeps running after it became ASSUMED_BAD:
/// when it ends, the EV is reported GOOD, unless another transition came first.
#[derive(Debug)]
struct HoldOutlivesBad {
    hold: u64,
    /// When each EV last entered SKIP.
    entered: HashMap<(Qpn, Ev), u64>,
    /// The returns to GOOD the stale timers make, by EV.
    due: HashMap<(Qpn, Ev), u64>,
}

impl HoldOutlivesBad {
    fn new(m: &Manifest) -> Self {
        let hold = u64::try_from(Duration::as_nanos(&m.nic.skip_hold)).unwrap_or(u64::MAX);
        HoldOutlivesBad { hold, entered: HashMap::new(), due: HashMap::new() }
    }
}

impl Stream for HoldOutlivesBad {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let reports: Vec<(u64, Qpn, Ev, EvState)> = state_reports(&outputs).collect();
        for (t, qpn, ev, state) in reports {
            // A return the stale timer would make before this report comes first.
            if let Some(&at) = self.due.get(&(qpn, ev)).filter(|&&at| at <= t) {
                self.due.remove(&(qpn, ev));
                outputs.push(state_report(at, qpn, ev, EvState::Good));
            }
            self.due.remove(&(qpn, ev));
            match state {
                EvState::Skip => {
                    self.entered.insert((qpn, ev), t);
                }
                EvState::AssumedBad => {
                    if let Some(&t0) = self.entered.get(&(qpn, ev)) {
                        let end = t0.saturating_add(self.hold);
                        if end > t {
                            self.due.insert((qpn, ev), end);
                        }
                    }
                    self.entered.remove(&(qpn, ev));
                }
                _ => {
                    self.entered.remove(&(qpn, ev));
                }
            }
        }
        let until = batch.until.0;
        let ripe: Vec<((Qpn, Ev), u64)> =
            self.due.iter().filter(|(_, at)| **at <= until).map(|(k, at)| (*k, *at)).collect();
        for ((qpn, ev), at) in ripe {
            self.due.remove(&(qpn, ev));
            outputs.push(state_report(at, qpn, ev, EvState::Good));
        }
        outputs.sort_by_key(|o| o.at);
        outputs
    }
}

/// Where a QP's every EV is out of GOOD, the path selector takes the first EV of the
/// profile. Made from the commands that take the last usable EV out of GOOD: the state
/// table applies them and reports them, but the selector, which then falls back to the
/// first EV, is given them as though the EV had stayed GOOD; so is a command that brings
/// such an EV back.
#[derive(Debug, Default)]
struct EmptyPoolFirstEv {
    /// Each QP's profile, primary and backup.
    profiles: HashMap<Qpn, Vec<Ev>>,
    states: Reported,
    /// The EVs whose leaving GOOD the selector was not told of.
    hidden: HashSet<(Qpn, Ev)>,
    /// The reports of the commands held back, to make.
    pending: Vec<TimedOutput>,
}

impl Stream for EmptyPoolFirstEv {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        inputs.retain(|i| match &i.input {
            Input::Host { command: HostCommand::CreateQp(q) } => {
                self.profiles.insert(q.qpn, q.evs.iter().chain(&q.backup_evs).copied().collect());
                true
            }
            Input::Cpu { command: CpuCommand::SetEvState { qpn, ev, state } } => {
                let (qpn, ev, state) = (*qpn, *ev, *state);
                let hide = if state == EvState::Good {
                    self.hidden.remove(&(qpn, ev))
                } else {
                    let others_out = self.profiles.get(&qpn).is_some_and(|evs| {
                        evs.contains(&ev)
                            && evs
                                .iter()
                                .filter(|&&e| e != ev)
                                .all(|&e| self.states.get(qpn, e) != EvState::Good)
                    });
                    others_out && self.states.get(qpn, ev) == EvState::Good && {
                        self.hidden.insert((qpn, ev));
                        true
                    }
                };
                if hide {
                    self.states.set(qpn, ev, state, i.at.0);
                    self.pending.push(state_report(i.at.0, qpn, ev, state));
                }
                !hide
            }
            _ => true,
        });
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for (at, qpn, ev, state) in state_reports(&outputs).collect::<Vec<_>>() {
            self.states.set(qpn, ev, state, at);
        }
        outputs.append(&mut self.pending);
        outputs.sort_by_key(|o| o.at);
        outputs
    }
}

/// Each backup EV of a created QP starts in SKIP: the state table is set so at the
/// creation, as a `SetEvState` of the device's own would set it, and the report of that
/// setting is not made, the device taking SKIP as the state it starts in.
#[derive(Debug, Default)]
struct BackupsStartSkip {
    /// The settings made at a creation whose reports are not made: time, QP, EV.
    unreported: Vec<(u64, Qpn, Ev)>,
}

impl Stream for BackupsStartSkip {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        let mut out = Vec::with_capacity(inputs.len());
        for i in inputs {
            let set: Vec<TimedInput> = match &i.input {
                Input::Host { command: HostCommand::CreateQp(q) } => q
                    .backup_evs
                    .iter()
                    .map(|&ev| {
                        self.unreported.push((i.at.0, q.qpn, ev));
                        let command =
                            CpuCommand::SetEvState { qpn: q.qpn, ev, state: EvState::Skip };
                        TimedInput { at: i.at, input: Input::Cpu { command } }
                    })
                    .collect(),
                _ => Vec::new(),
            };
            out.push(i);
            out.extend(set);
        }
        out
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs.retain(|o| match &o.output {
            Output::Event { event: NicEvent::Report(NicReport::EvState { qpn, ev, state }) }
                if *state == EvState::Skip =>
            {
                let k = self
                    .unreported
                    .iter()
                    .position(|&(at, q, e)| at == o.at.0 && q == *qpn && e == *ev);
                k.map(|k| self.unreported.remove(k)).is_none()
            }
            _ => true,
        });
        outputs
    }
}
