//! The order of the reports one input makes (CONF-CMP-110). A QP's reports come in the
//! order the NIC half produced them (REC-IF-015), and a SACK is processed in steps
//! (SND-SACK-006): its EV first, reported by `EvMarked` or `ProbeAnswered`, then its
//! cumulative part, reported by `Progress`. The reports of two inputs may share one instant
//! when the device is late (CONF-TIME-004), and no rule orders two inputs' reports but by
//! what they carry, so each report is judged only against the input that surely made it.

use std::collections::HashMap;

use openrdma_codec::Psn;
use openrdma_codec::frame::DecodedFrame;
use openrdma_device::{EvMark, HostCommand, Input, NicEvent, NicReport};

use super::obs::{In, Kind};
use super::progress::created_at;
use super::reports::Reports;
use super::{Divergence, render_event};

/// The EV step's report of a SACK: `EvMarked` with its mark for `pr` 0 and a mark that
/// skips (REC-IF-005), `ProbeAnswered` with its mark for `pr` 1 (REC-IF-007).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Marked(EvMark),
    Answered(EvMark),
}

impl Step {
    /// The EV step's report a SACK makes, if any.
    fn of_sack(d: &DecodedFrame<'_>) -> Option<Step> {
        let s = d.ext.seth?;
        let m = EvMark::from_bits(s.m.0);
        if s.pr {
            return Some(Step::Answered(m));
        }
        matches!(m, EvMark::SkipOnce | EvMark::AlwaysSkip).then_some(Step::Marked(m))
    }

    /// The EV step a report gives, if it is one.
    fn of_report(e: &NicEvent) -> Option<(u32, Step)> {
        match e {
            NicEvent::Report(NicReport::EvMarked { qpn, mark, .. }) => {
                Some((qpn.value(), Step::Marked(*mark)))
            }
            NicEvent::Report(NicReport::ProbeAnswered { qpn, mark, .. }) => {
                Some((qpn.value(), Step::Answered(*mark)))
            }
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Step::Marked(_) => "EvMarked",
            Step::Answered(_) => "ProbeAnswered",
        }
    }
}

/// What the order of one QP's reports has shown so far, since its creation.
struct Seen<'a> {
    born: Option<u64>,
    /// The `snd_una` of its latest `Progress`, or its `initial_psn`.
    una: Option<Psn>,
    /// Its EV-step reports not yet taken by a `Progress`: time, step, report.
    steps: Vec<(u64, Step, &'a NicEvent)>,
    /// Its `Armed` reports that carried a `snd_una` no `Progress` had: value, time, report.
    ahead: Vec<(Psn, u64, &'a NicEvent)>,
}

/// What the check reads is what the checks of `Progress` and `Armed` read: the inputs,
/// the device's frames, the peer map and the observed events of [`Reports`].
impl<'a> Reports<'_, 'a> {
    /// The initial PSN of QP `q` created at `born`.
    fn initial(&self, q: u32, born: u64) -> Option<Psn> {
        self.inputs.iter().find_map(|i| match i.input {
            Input::Host { command: HostCommand::CreateQp(c) }
                if i.at == born && c.qpn.value() == q =>
            {
                Some(c.initial_psn)
            }
            _ => None,
        })
    }

    /// The SACKs into QP `q` that arrived from `born` to `t` and move `snd_una` to `una`.
    fn sacks_to(&self, q: u32, born: u64, t: u64, una: Psn) -> Vec<&In<'a>> {
        self.inputs
            .iter()
            .filter(|i| i.at >= born && i.at <= t)
            .filter(|i| {
                i.frame.as_ref().is_some_and(|f| {
                    matches!(f.kind, Kind::Sack { qp, cack, .. }
                        if qp == q && Psn::new(cack).next() == una)
                })
            })
            .collect()
    }

    /// Whether an ACK into QP `q`, from `born` to `t`, may have moved `snd_una` to `una`:
    /// the QP sent a message whose last PSN is right before it (SND-ACK-001).
    fn acked_to(&self, q: u32, born: u64, t: u64, una: Psn) -> bool {
        let ack = self.inputs.iter().filter(|i| i.at >= born && i.at <= t).any(|i| {
            i.frame.as_ref().is_some_and(|f| matches!(f.kind, Kind::Ack { qp, .. } if qp == q))
        });
        ack && self.sent.iter().filter(|f| f.at <= t).any(|f| {
            f.d.bth.is_some_and(|b| {
                b.opcode.is_mrc_write()
                    && b.opcode.is_last()
                    && self.local_of.get(&b.dest_qp.value()) == Some(&q)
                    && b.psn.next() == una
            })
        })
    }

    /// The EV step every SACK that may have made a `Progress` to `una` at `t` makes, and
    /// the earliest of those SACKs' arrivals: `None` when they differ, when none is a
    /// SACK, or when an ACK may have made it.
    fn step_due(&self, q: u32, born: u64, t: u64, una: Psn) -> Option<(Step, u64)> {
        let sacks = self.sacks_to(q, born, t, una);
        let first = sacks.first()?;
        let step = Step::of_sack(&first.frame.as_ref()?.d)?;
        let same =
            sacks.iter().all(|i| i.frame.as_ref().and_then(|f| Step::of_sack(&f.d)) == Some(step));
        (same && !self.acked_to(q, born, t, una)).then_some((step, first.at))
    }
}

/// Judges the order of each QP's reports against the steps of the inputs that surely made
/// them (CONF-CMP-110): **(a)** a `Progress` that moves `snd_una` to one past a SACK's
/// `cack_psn` comes after that SACK's `EvMarked` or `ProbeAnswered` (SND-SACK-006 takes the
/// EV before the cumulative part), when every SACK that may have made it makes the same
/// one: an unused report of that step, given at or after the earliest of those SACKs
/// arrived, must come before it; **(b)** an `Armed` carries the `snd_una` its QP holds, so
/// one whose `snd_una` no `Progress` before it carried comes after the `Progress` that moved
/// `snd_una` there (REC-IF-002), when such a `Progress` comes later and reports no
/// outstanding PSN: one that counts outstanding PSNs may have been built after the
/// `Armed`'s data packet left.
pub(super) fn judge_steps(s: &Reports<'_, '_>, div: &mut Vec<Divergence>) {
    let mut seen: HashMap<u32, Seen<'_>> = HashMap::new();
    for (i, &(t, e)) in s.obs.iter().enumerate() {
        let Some(q) = report_qp(e) else { continue };
        let born = created_at(s.inputs, q, t);
        let st = seen.entry(q).or_insert(Seen { born, una: None, steps: vec![], ahead: vec![] });
        if st.born != born {
            *st = Seen { born, una: None, steps: vec![], ahead: vec![] };
        }
        let Some(b) = born else { continue };
        if st.una.is_none() {
            st.una = s.initial(q, b);
        }
        if let Some((_, step)) = Step::of_report(e) {
            st.steps.push((t, step, e));
            continue;
        }
        match e {
            NicEvent::Report(NicReport::Armed { snd_una, .. })
                if st.una.is_some_and(|u| snd_una.is_after(u)) =>
            {
                st.ahead.push((*snd_una, t, e));
            }
            NicEvent::Report(NicReport::Progress { snd_una, outstanding, .. }) => {
                let una = *snd_una;
                if !st.una.is_some_and(|u| una.is_after(u)) {
                    continue;
                }
                st.una = Some(una);
                armed_before(st, una, *outstanding == 0, (t, e), div);
                let Some((step, from)) = s.step_due(q, b, t, una) else { continue };
                match st.steps.iter().position(|&(at, x, _)| x == step && at >= from) {
                    Some(k) => {
                        st.steps.remove(k);
                    }
                    // Out of order only when the step's report comes after it; one that
                    // never comes is a missing report, judged as such (REC-IF-005, 007).
                    None if later_step(&s.obs[i + 1..], q, step) => {
                        div.push(step_after(q, step, t, e));
                    }
                    None => {}
                }
            }
            _ => {}
        }
    }
}

/// Whether a report of step `step` of QP `q` comes among `rest`.
fn later_step(rest: &[(u64, &NicEvent)], q: u32, step: Step) -> bool {
    rest.iter().any(|&(_, e)| {
        report_qp(e) == Some(q) && Step::of_report(e).is_some_and(|(_, x)| x == step)
    })
}

/// The QP of a report, if it has one.
fn report_qp(e: &NicEvent) -> Option<u32> {
    match e {
        NicEvent::Report(r) => r.qpn().map(|q| q.value()),
        _ => None,
    }
}

/// CONF-CMP-110.b: the `Armed` reports that carried `una` before the `Progress` `(t, e)`
/// that moved `snd_una` there, when that `Progress` reports no outstanding PSN (`idle`):
/// it was made before the `Armed`'s data packet was sent. One that reports outstanding
/// PSNs takes them all the same.
fn armed_before(
    st: &mut Seen<'_>,
    una: Psn,
    idle: bool,
    (t, e): (u64, &NicEvent),
    div: &mut Vec<Divergence>,
) {
    let ahead = std::mem::take(&mut st.ahead);
    for (v, at, armed) in ahead {
        if v.is_after(una) {
            st.ahead.push((v, at, armed));
            continue;
        }
        if v != una || !idle {
            continue;
        }
        div.push(Divergence {
            actual: Some(render_event(armed)),
            expected: Some(render_event(e)),
            ..Divergence::of(
                at,
                crate::req::REC_IF_015,
                format!(
                    "an Armed with snd_una {} before the Progress that moved snd_una there, \
                     given at {t}: the reports of a QP came out of the order they were \
                     produced in",
                    una.value()
                ),
            )
        });
    }
}

/// CONF-CMP-110.a: a `Progress` of a SACK given before its EV step's report.
fn step_after(q: u32, step: Step, t: u64, e: &NicEvent) -> Divergence {
    Divergence {
        actual: Some(render_event(e)),
        ..Divergence::of(
            t,
            crate::req::REC_IF_015,
            format!(
                "a Progress of QP {q} before the {} of the SACK that made it: a SACK's EV is \
                 processed before its cumulative part (SND-SACK-006), and the reports of a \
                 QP come in the order they were produced in",
                step.name()
            ),
        )
    }
}
