//! What a `Progress` or `Armed` report says and what makes it, judged by truth from the
//! scenario's inputs and the device's own frames (CONF-CMP-050, CONF-CMP-051,
//! CONF-CMP-052). A report may be up to `late_ns / 2` late (CONF-TIME-004), so what it
//! counts is a range over what the device sent within that margin.

use std::collections::HashMap;

use openrdma_codec::{Msn, Psn};
use openrdma_device::{HostCommand, Input, NicEvent, NicReport, Record, Side};

use super::obs::{In, Kind};
use super::{Divergence, Frame, render_event};
use crate::req::Clause;

/// What the checks of this module, and the order of reports (`steps`), read.
pub(super) struct Reports<'r, 'a> {
    pub(super) inputs: &'r [In<'a>],
    pub(super) sent: &'r [Frame<'a>],
    /// A peer's QPN to the device's QP facing it.
    pub(super) local_of: &'r HashMap<u32, u32>,
    pub(super) obs: &'r [(u64, &'a NicEvent)],
    /// `late_ns / 2`: how late a report or a frame may be.
    pub(super) margin: u64,
    /// `late_ns`: how long after an input a report that answers it may come, the input's
    /// frames and the report each being up to `late_ns / 2` late. Not twice `margin`, which
    /// is 1 ns short when `late_ns` is odd.
    pub(super) late: u64,
    /// The device's own window `W_own`: a SACK whose bitmap lies beyond it moves nothing
    /// (SND-SACK-004).
    pub(super) window: u32,
    /// The events the scenario expects.
    pub(super) expected: &'r [(&'a Record, &'a NicEvent)],
}

impl Reports<'_, '_> {
    /// When QP `q` was last created by `t`, and its `initial_psn`.
    fn born(&self, q: u32, t: u64) -> Option<(u64, Psn)> {
        self.inputs
            .iter()
            .filter(|i| i.at <= t)
            .filter_map(|i| match i.input {
                Input::Host { command: HostCommand::CreateQp(c) } if c.qpn.value() == q => {
                    Some((i.at, c.initial_psn))
                }
                _ => None,
            })
            .next_back()
    }

    /// The data packets of QP `q` the device sent from `born` on: time, PSN, `rtx`, last.
    fn data_of(&self, q: u32, born: u64) -> impl Iterator<Item = (u64, Psn, bool, bool)> + '_ {
        self.sent.iter().filter(move |f| f.at >= born).filter_map(move |f| match f.kind {
            Kind::Data { qp, psn, rtx } if self.local_of.get(&qp) == Some(&q) => {
                let last = f.d.bth.is_some_and(|b| b.opcode.is_last());
                Some((f.at, Psn::new(psn), rtx, last))
            }
            _ => None,
        })
    }

    /// `snd_nxt` of QP `q` counting its first transmissions sent from `born` to `until`.
    fn snd_nxt(&self, q: u32, born: u64, init: Psn, until: impl Fn(u64) -> bool) -> Psn {
        let mut nxt = init;
        for (at, psn, rtx, _) in self.data_of(q, born) {
            if !rtx && until(at) && psn.next().is_after(nxt) {
                nxt = psn.next();
            }
        }
        nxt
    }

    /// The frames delivered to QP `q` from `born` on that acknowledge: time and kind. A
    /// frame the device must discard (RCV-FRAME-001) acknowledges nothing.
    fn acks_to(&self, q: u32, born: u64) -> impl Iterator<Item = (u64, &Kind)> + '_ {
        self.inputs.iter().filter(move |i| i.at >= born).filter_map(move |i| {
            let f = i.frame.as_ref().filter(|f| f.d.discard_reason().is_none())?;
            match f.kind {
                Kind::Sack { qp, .. } if qp == q => Some((i.at, &f.kind)),
                Kind::Ack { qp, syndrome, high: 0, .. } if qp == q && syndrome & 0x60 == 0 => {
                    Some((i.at, &f.kind))
                }
                _ => None,
            }
        })
    }
}

/// What the step that made a `Progress` shows of the QP's state (CONF-CMP-125). The report
/// was built when the device took an input into its QP, at the earliest at `at`: the time
/// of the input matched with it (CONF-CMP-051), or of the first input whose cumulative
/// acknowledgement reaches its `snd_una`, whichever is later. Whatever the device sent
/// before `at` it had sent then, and the ACKs in `acked` it had taken: those that arrived
/// before `at`, and those of `at` when the one input of that instant that can be the step
/// is an ACK. Two inputs of one instant may be taken in either order (decision 21), so no
/// other input of `at` is sure.
struct Step {
    at: u64,
    acked: Vec<Msn>,
}

impl Reports<'_, '_> {
    /// The step of `Progress` `p`, or `None` when no input can have made it.
    fn step(&self, p: &Progress) -> Option<Step> {
        let (q, t, snd_una) = (p.q, p.t, p.snd_una);
        let (born, init) = self.born(q, t)?;
        let ends = message_ends(self, q, born);
        let inputs: Vec<(u64, &Kind)> = self.acks_to(q, born).filter(|&(at, _)| at <= t).collect();
        let ack_of = |k: &Kind| match *k {
            Kind::Ack { msn, .. } if ends.contains_key(&msn) => Some(msn),
            _ => None,
        };
        // The ACKs of instant `at` when the one input of `at` that `can` allows is an ACK.
        let sure = |at: u64, can: &dyn Fn(&Kind) -> bool| {
            let mut of = inputs.iter().filter(|&&(a, k)| a == at && can(k));
            match (of.next(), of.next()) {
                (Some(&(_, k)), None) if ack_of(k).is_some() => inputs
                    .iter()
                    .filter(|&&(a, _)| a == at)
                    .filter_map(|&(_, k)| ack_of(k))
                    .collect(),
                _ => Vec::new(),
            }
        };
        // The first input whose acknowledgement reaches `snd_una`.
        let reaches = |k: &Kind| {
            let reach = match *k {
                Kind::Sack { cack, .. } => Some(Psn::new(cack).next()),
                Kind::Ack { msn, .. } => ends.get(&msn).copied(),
                _ => None,
            };
            snd_una != init && reach.is_some_and(|r| r.distance(snd_una) >= 0)
        };
        let reached = inputs.iter().find(|(_, k)| reaches(k)).map(|&(at, _)| at);
        // The input matched with it, among those that move the QP.
        let whole = completed_sends(self, q, born);
        let moving = moves(self, q, born, init, self.margin, Some(&whole));
        let moves_at = |at: u64| moving.iter().filter(|m| m.at == at).count();
        let by_match = p.input.map(|at| {
            let one = moves_at(at) == 1 && moving.iter().any(|m| m.at == at && m.una.is_none());
            (at, if one { sure(at, &|k| ack_of(k).is_some()) } else { Vec::new() })
        });
        let by_reach = reached.map(|at| (at, sure(at, &reaches)));
        let (at, mut same) = match (by_match, by_reach) {
            (Some(m), Some(r)) if m.0 == r.0 => (m.0, [m.1, r.1].concat()),
            (Some(m), Some(r)) => {
                if m.0 > r.0 {
                    m
                } else {
                    r
                }
            }
            (m, r) => m.or(r)?,
        };
        let mut acked = self.acked_before(q, born, at);
        acked.append(&mut same);
        Some(Step { at, acked })
    }

    /// The MSNs of the ACKs into QP `q` from `born` on that arrived before `at` and name a
    /// message the QP sent whole.
    fn acked_before(&self, q: u32, born: u64, at: u64) -> Vec<Msn> {
        let ends = message_ends(self, q, born);
        self.acks_to(q, born)
            .filter(|&(a, _)| a < at)
            .filter_map(|(_, k)| match *k {
                Kind::Ack { msn, .. } if ends.contains_key(&msn) => Some(msn),
                _ => None,
            })
            .collect()
    }
}

/// The messages QP `q` sent whole from `born` on, each with one past the PSN of its last
/// packet: the `snd_una` an ACK of it gives (SND-ACK-001).
fn message_ends(r: &Reports<'_, '_>, q: u32, born: u64) -> HashMap<Msn, Psn> {
    let mut out: HashMap<Msn, Psn> = HashMap::new();
    for f in r.sent.iter().filter(|f| f.at >= born) {
        let Kind::Data { qp, psn, rtx: false } = f.kind else { continue };
        let last = f.d.bth.is_some_and(|b| b.opcode.is_last());
        let Some(meth) = f.d.ext.meth.filter(|_| last && r.local_of.get(&qp) == Some(&q)) else {
            continue;
        };
        out.entry(meth.msn).or_insert(Psn::new(psn).next());
    }
    out
}

/// A `Progress` report the device made at `t` about QP `q`.
struct Progress {
    t: u64,
    /// The time of the input matched with it, when one is (CONF-CMP-051).
    input: Option<u64>,
    q: u32,
    snd_una: Psn,
    outstanding: u32,
    awaiting_ack: u32,
}

/// Judges one count of every `Progress`: `range` gives the count the report says and the
/// range the truth gives it, or `None` when no count is due; `words` says what a count
/// outside the range is, and the rule it breaks: REC-IF-002, unless the device's other
/// outputs show the count is what its state held.
fn judge_progress(
    r: &Reports<'_, '_>,
    div: &mut Vec<Divergence>,
    range: impl Fn(&Progress) -> Option<(u32, u32, u32)>,
    words: impl Fn(&Progress, u32, u32) -> (Clause, String),
) {
    let causes = causes(r, true);
    for (i, &(t, e)) in r.obs.iter().enumerate() {
        let NicEvent::Report(NicReport::Progress { qpn, snd_una, outstanding, awaiting_ack }) = e
        else {
            continue;
        };
        let input = match causes[i] {
            Some(Cause::Input(at)) => Some(at),
            _ => None,
        };
        let p = Progress {
            t,
            input,
            q: qpn.value(),
            snd_una: *snd_una,
            outstanding: *outstanding,
            awaiting_ack: *awaiting_ack,
        };
        let Some((said, lo, hi)) = range(&p) else { continue };
        if (lo..=hi).contains(&said) {
            continue;
        }
        let (clause, what) = words(&p, lo, hi);
        div.push(Divergence { actual: Some(render_event(e)), ..Divergence::of(t, clause, what) });
    }
}

/// The `outstanding` of a `Progress` is the distance from its `snd_una` to the QP's
/// `snd_nxt`, which the device's first transmissions give: surely those sent more than the
/// margin before the report, possibly those up to the margin after it (CONF-CMP-050).
pub(super) fn judge_outstanding(r: &Reports<'_, '_>, div: &mut Vec<Divergence>) {
    let range = |p: &Progress| {
        let (t, q) = (p.t, p.q);
        let (born, init) = r.born(q, t)?;
        let from = |until: &dyn Fn(u64) -> bool| {
            r.snd_nxt(q, born, init, until).distance(p.snd_una).max(0) as u32
        };
        // The first transmissions sent before the report's step were counted (CONF-CMP-125).
        let before = r.step(p).map_or(0, |s| s.at);
        let lo = from(&|at| at.saturating_add(r.margin) < t || at < before);
        let hi = from(&|at| at <= t.saturating_add(r.margin));
        Some((p.outstanding, lo, hi))
    };
    let words = |p: &Progress, lo: u32, hi: u32| {
        let what = format!(
            "a Progress of QP {} with {} PSNs outstanding, where the QP's first transmissions \
             and its snd_una {} give from {lo} to {hi}",
            p.q, p.outstanding, p.snd_una
        );
        (crate::req::REC_IF_002, what)
    };
    judge_progress(r, div, range, words);
}

/// The messages of QP `q` whose last packet the device sent from `born` on, as a first
/// transmission: each MSN and the time its last packet was first seen.
fn completed_sends(r: &Reports<'_, '_>, q: u32, born: u64) -> HashMap<Msn, u64> {
    let mut out: HashMap<Msn, u64> = HashMap::new();
    for f in r.sent.iter().filter(|f| f.at >= born) {
        let Kind::Data { qp, rtx: false, .. } = f.kind else { continue };
        let last = f.d.bth.is_some_and(|b| b.opcode.is_last());
        let Some(meth) = f.d.ext.meth.filter(|_| last && r.local_of.get(&qp) == Some(&q)) else {
            continue;
        };
        out.entry(meth.msn).or_insert(f.at);
    }
    out
}

/// The messages QP `q` sent whole from `born` on, each with the time its last packet was
/// first seen, and the ACKs into `q` that name one of them: time and MSN. An ACK for an
/// MSN the QP never assigned, or for a message not sent whole, is discarded
/// (SND-ACK-002): it completes nothing.
fn acked(r: &Reports<'_, '_>, q: u32, born: u64) -> (HashMap<Msn, u64>, Vec<(u64, Msn)>) {
    let whole = completed_sends(r, q, born);
    let acks = r
        .acks_to(q, born)
        .filter_map(|(at, k)| match *k {
            Kind::Ack { msn, .. } if whole.contains_key(&msn) => Some((at, msn)),
            _ => None,
        })
        .collect();
    (whole, acks)
}

/// Whether an ACK among `acks` that arrived by `by` covers message `m`.
fn covered(acks: &[(u64, Msn)], m: Msn, by: u64) -> bool {
    acks.iter().any(|&(at, a)| at <= by && a.distance(m) >= 0)
}

/// The `awaiting_ack` of a `Progress` of QP q counts q's own messages whose packets were
/// all sent and whose transport ACK has not come (REC-IF-002, SND-ACK-001.a): surely the
/// messages whose last packet left more than the margin before the report and that no ACK
/// into q covered by the report's time, possibly those whose last packet left up to the
/// margin after it and that no ACK covered more than the margin before it (CONF-CMP-116),
/// and of those what the report's step shows decides (CONF-CMP-125).
/// Messages of other QPs, of a shared retirement domain included, are not q's. A count
/// too high, where the device also left out the requester flag of a message an ACK surely
/// completed, shows the ACK was not taken (SND-ACK-001.a, CONF-CMP-103).
pub(super) fn judge_awaiting(r: &Reports<'_, '_>, div: &mut Vec<Divergence>) {
    let range = |p: &Progress| {
        let (t, q) = (p.t, p.q);
        let (born, _) = r.born(q, t)?;
        if failed_by(r, q, born, t) {
            return None;
        }
        let (whole, acks) = acked(r, q, born);
        // What the report's step had sent and taken was counted (CONF-CMP-125).
        let step = r.step(p);
        let before = step.as_ref().map_or(0, |s| s.at);
        let taken =
            |m: Msn| step.as_ref().is_some_and(|s| s.acked.iter().any(|a| a.distance(m) >= 0));
        let (mut lo, mut hi) = (0u32, 0u32);
        for (&m, &at) in &whole {
            if (at.saturating_add(r.margin) < t || at < before) && !covered(&acks, m, t) {
                lo += 1;
            }
            let surely = t.checked_sub(r.margin.saturating_add(1));
            if at <= t.saturating_add(r.margin)
                && !surely.is_some_and(|s| covered(&acks, m, s))
                && !taken(m)
            {
                hi += 1;
            }
        }
        Some((p.awaiting_ack, lo, hi))
    };
    let words = |p: &Progress, lo: u32, hi: u32| {
        let what = format!(
            "a Progress of QP {} with {} messages awaiting ACK, where the QP's own messages \
             sent whole and the ACKs into it give from {lo} to {hi}",
            p.q, p.awaiting_ack
        );
        match unflagged(r, p).filter(|_| p.awaiting_ack > hi) {
            Some(m) => (
                crate::req::SND_ACK_001_A,
                format!(
                    "{what}; the requester flag of MSN {}, which an ACK completed, has not \
                     come either: the ACK was not taken",
                    m.value()
                ),
            ),
            None => (crate::req::REC_IF_002, what),
        }
    };
    judge_progress(r, div, range, words);
}

/// A message of the QP of report `p` that an ACK surely completed more than the margin
/// before the report, whose requester flag the scenario expects and the device had not
/// written by that flag's deadline, `late_ns` after its time: a sender that took the ACK
/// writes it, one whose report only miscounts does too (CONF-CMP-103).
fn unflagged(r: &Reports<'_, '_>, p: &Progress) -> Option<Msn> {
    let (t, q) = (p.t, p.q);
    let (born, _) = r.born(q, t)?;
    let (whole, acks) = acked(r, q, born);
    let surely = t.checked_sub(r.margin.saturating_add(1))?;
    let flag_of = |w: &NicEvent, m: Msn| {
        matches!(w, NicEvent::FlagWrite(f)
            if f.qpn.value() == q && f.side == Side::Requester && f.msn == m)
    };
    let done: Vec<Msn> = whole.keys().copied().filter(|&m| covered(&acks, m, surely)).collect();
    in_send_order(done, &whole).into_iter().find(|&m| {
        let due = r.expected.iter().find(|&&(rec, e)| rec.at.0 >= born && flag_of(e, m));
        due.is_some_and(|&(rec, _)| {
            let by = rec.at.0.saturating_add(r.late);
            !r.obs.iter().any(|&(at, e)| (born..=by).contains(&at) && flag_of(e, m))
        })
    })
}

/// `msns` in the order the QP sent them: forward from the one sent first, so that the
/// order holds where the numbers wrap past 2^16 - 1 to 0. `sent` maps each to when its
/// last packet was first seen.
fn in_send_order(mut msns: Vec<Msn>, sent: &HashMap<Msn, u64>) -> Vec<Msn> {
    let first = msns.iter().copied().min_by_key(|m| (sent.get(m).copied(), m.value()));
    if let Some(first) = first {
        msns.sort_by_key(|m| m.forward_from(first));
    }
    msns
}

/// Whether QP `q`, created at `born`, reported `QpError` before `t`: its messages are then
/// flushed, and no `Progress` of it is due (REC-IF-002).
fn failed_by(r: &Reports<'_, '_>, q: u32, born: u64, t: u64) -> bool {
    r.obs.iter().any(|&(at, e)| {
        (born..t).contains(&at)
            && matches!(e, NicEvent::Report(NicReport::QpError { qpn, .. }) if qpn.value() == q)
    })
}

/// An input that moved QP `q`: when it came, and the `snd_una` a SACK gave it (none for
/// an ACK, which moves the messages, not the PSNs).
struct Move {
    at: u64,
    una: Option<Psn>,
}

/// The inputs that move QP `q`: SACKs whose `cack_psn` is beyond every earlier one's,
/// ACKs whose MSN is beyond every earlier one's. A SACK that claims a PSN not yet sent
/// moves nothing; a first transmission seen up to `grace` after the SACK counts as sent
/// before it (the frame may have been late). Judging what a report may answer, `grace` is
/// the margin; judging what a report must answer, 0, so that only a SACK the device
/// surely had to take makes a report due. With `whole`, the messages the QP sent whole and
/// when, an ACK of a message not sent whole by `grace` after it moves nothing either
/// (SND-ACK-002): that reading finds when a report's step can be (CONF-CMP-125).
fn moves(
    r: &Reports<'_, '_>,
    q: u32,
    born: u64,
    init: Psn,
    grace: u64,
    whole: Option<&HashMap<Msn, u64>>,
) -> Vec<Move> {
    let mut una = init;
    let mut msn: Option<Msn> = None;
    let mut out = Vec::new();
    for (at, k) in r.acks_to(q, born) {
        let moved = match *k {
            Kind::Sack { cack, base, bitmap, .. } => {
                // A SACK that claims a PSN never sent, or whose bitmap lies outside any
                // window, is discarded (SND-SACK-003, SND-SACK-004).
                let next = Psn::new(cack).next();
                let sent = r.snd_nxt(q, born, init, |s| s <= at.saturating_add(grace));
                let top = Psn::new(base).add(64 - bitmap.leading_zeros());
                let claims = bitmap != 0 && top.is_after(sent);
                let offset = Psn::new(base).distance(Psn::new(cack)).unsigned_abs();
                let outside = offset > r.window.saturating_add(64);
                let ahead = next.is_after(una) && !next.is_after(sent) && !claims && !outside;
                if ahead {
                    una = next;
                }
                ahead.then_some(Some(next))
            }
            Kind::Ack { msn: m, .. } => {
                let sent = |w: &HashMap<Msn, u64>| {
                    w.get(&m).is_some_and(|&s| s <= at.saturating_add(grace))
                };
                let ahead = msn.is_none_or(|p| (1..0x8000).contains(&m.forward_from(p)))
                    && whole.is_none_or(sent);
                if ahead {
                    msn = Some(m);
                }
                ahead.then_some(None)
            }
            _ => None,
        };
        if let Some(una) = moved {
            out.push(Move { at, una });
        }
    }
    out
}

/// Every `Progress` of a QP answers an input of its own that moved the QP, at most `late_ns`
/// before it (the report and the frames the input answers may each be late): the reports,
/// in order, are matched one for one with such inputs (CONF-CMP-051). One left over restarts the CPU half's timer for nothing (REC-IF-019).
pub(super) fn judge_progress_cause(r: &Reports<'_, '_>, div: &mut Vec<Divergence>) {
    for (i, cause) in causes(r, false).into_iter().enumerate() {
        let (Some(Cause::Unexplained), (t, e)) = (cause, r.obs[i]) else { continue };
        let NicEvent::Report(NicReport::Progress { qpn, .. }) = e else { continue };
        let q = qpn.value();
        div.push(Divergence {
            actual: Some(render_event(e)),
            ..Divergence::of(
                t,
                crate::req::REC_IF_019,
                format!(
                    "a Progress of QP {q} that no input explains: no SACK or ACK into QP {q} \
                     that moved it came in the last {} ns and was not already answered",
                    r.late
                ),
            )
        });
    }
}

/// What explains a `Progress` (CONF-CMP-051).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cause {
    /// It repeats the QP's previous `Progress`, at the same time.
    Repeat,
    /// The input matched with it arrived at this time: the earliest its step can be, since
    /// the reports, in order, take the inputs that moved the QP in order, each the earliest
    /// one left in its window (CONF-CMP-125).
    Input(u64),
    /// No input is left for it.
    Unexplained,
}

/// The cause of each observation that is a `Progress`, by its index in `obs`: the reports
/// of a QP, in order, matched one for one with the inputs that moved it, each at most
/// `late_ns` before its report (CONF-CMP-051). With `steps`, only the ACKs the QP can take
/// move it, which finds the earliest each report's step can be (CONF-CMP-125).
fn causes(r: &Reports<'_, '_>, steps: bool) -> Vec<Option<Cause>> {
    // (QPN, creation) to the inputs that moved it, and how many a report has taken.
    let mut taken: HashMap<(u32, u64), (Vec<u64>, usize)> = HashMap::new();
    // The last Progress of each QP: one given again at the same time repeats it.
    let mut last: HashMap<u32, (u64, &NicEvent)> = HashMap::new();
    let mut out = vec![None; r.obs.len()];
    for (i, &(t, e)) in r.obs.iter().enumerate() {
        let NicEvent::Report(NicReport::Progress { qpn, .. }) = e else { continue };
        let q = qpn.value();
        if last.insert(q, (t, e)).is_some_and(|(at, prev)| at == t && prev == e) {
            out[i] = Some(Cause::Repeat);
            continue;
        }
        let Some((born, init)) = r.born(q, t) else { continue };
        let (times, next) = taken.entry((q, born)).or_insert_with(|| {
            let whole = steps.then(|| completed_sends(r, q, born));
            let moving = moves(r, q, born, init, r.margin, whole.as_ref());
            (moving.into_iter().map(|m| m.at).collect(), 0)
        });
        while times.get(*next).is_some_and(|&at| at.saturating_add(r.late) < t) {
            *next += 1;
        }
        out[i] = Some(match times.get(*next) {
            Some(&at) if at <= t => {
                *next += 1;
                Cause::Input(at)
            }
            _ => Cause::Unexplained,
        });
    }
    out
}

/// Whether the first transmission of `psn`, sent at `at` by QP `q`, went while no PSN was
/// outstanding: `psn` is the QP's start or one past what a SACK or an ACK into it had
/// acknowledged, by the margin after the packet.
fn sent_idle(r: &Reports<'_, '_>, q: u32, born: u64, init: Psn, at: u64, psn: Psn) -> bool {
    if psn == init {
        return true;
    }
    r.acks_to(q, born).filter(|&(a, _)| a <= at.saturating_add(r.margin)).any(|(a, k)| match *k {
        Kind::Sack { cack, .. } => Psn::new(cack).next() == psn,
        _ => r.data_of(q, born).any(|(s, p, _, last)| last && s < a && p.next() == psn),
    })
}

/// Whether the device sent no `Armed` of QP `q` since `born` before the report at index
/// `i`, or sent a `Progress` with nothing outstanding or awaiting ACK since its last one.
fn unarmed(r: &Reports<'_, '_>, q: u32, born: u64, i: usize) -> bool {
    for &(t, e) in r.obs[..i].iter().rev() {
        if t < born {
            break;
        }
        match e {
            NicEvent::Report(NicReport::Armed { qpn, .. }) if qpn.value() == q => return false,
            NicEvent::Report(NicReport::Progress {
                qpn, outstanding: 0, awaiting_ack: 0, ..
            }) if qpn.value() == q => {
                return true;
            }
            _ => {}
        }
    }
    true
}

/// Every `Armed` comes within the margin of a data packet of its QP that makes it due
/// (REC-IF-003): a first transmission sent while no PSN was outstanding, or any when the QP
/// is not armed (CONF-CMP-052). Each packet makes one `Armed` due, so the `Armed` reports of
/// a QP are matched one for one with such packets; a report equal to the QP's previous
/// report and given at the same time repeats it and takes no packet (CONF-CMP-114).
/// Another re-arms the CPU half's timer (REC-IF-020).
pub(super) fn judge_armed_cause(r: &Reports<'_, '_>, div: &mut Vec<Divergence>) {
    // (QPN, creation) to its `Armed` reports.
    let mut groups: HashMap<(u32, u64), Vec<ArmedReport>> = HashMap::new();
    let mut last: HashMap<u32, (u64, &NicEvent)> = HashMap::new();
    for (i, &(t, e)) in r.obs.iter().enumerate() {
        let NicEvent::Report(rep) = e else { continue };
        let Some(q) = rep.qpn().map(|q| q.value()) else { continue };
        let repeat = last.insert(q, (t, e)).is_some_and(|(at, prev)| at == t && prev == e);
        if repeat || !matches!(rep, NicReport::Armed { .. }) {
            continue;
        }
        let Some((born, init)) = r.born(q, t) else { continue };
        let free = unarmed(r, q, born, i);
        let makes = r
            .data_of(q, born)
            .enumerate()
            .filter(|&(_, (at, psn, rtx, _))| {
                at.abs_diff(t) <= r.margin
                    && (free || (!rtx && sent_idle(r, q, born, init, at, psn)))
            })
            .map(|(k, _)| k)
            .collect();
        groups.entry((q, born)).or_default().push(ArmedReport { index: i, at: t, makes });
    }
    let mut found: Vec<(usize, u64, u32)> = Vec::new();
    for ((q, _), armed) in groups {
        let makes: Vec<Vec<usize>> = armed.iter().map(|a| a.makes.clone()).collect();
        let took = matched(&makes);
        for (a, ok) in armed.iter().zip(took) {
            if !ok {
                found.push((a.index, a.at, q));
            }
        }
    }
    found.sort_unstable();
    for (i, t, q) in found {
        div.push(Divergence {
            actual: Some(render_event(r.obs[i].1)),
            ..Divergence::of(
                t,
                crate::req::REC_IF_020,
                format!(
                    "an Armed of QP {q} with no data packet that makes it due within {} ns: \
                     the QP was armed and had PSNs outstanding, or the packets that make one \
                     due have each their own",
                    r.margin
                ),
            )
        });
    }
}

/// An `Armed` report of a QP: its index among the observed events, its time, and the
/// QP's data packets (by their rank) that may make it due.
struct ArmedReport {
    index: usize,
    at: u64,
    makes: Vec<usize>,
}

/// A largest matching of reports to packets, report `k` taking one of `makes[k]`, each
/// packet once: whether each report found one (augmenting paths).
fn matched(makes: &[Vec<usize>]) -> Vec<bool> {
    fn augment(
        k: usize,
        makes: &[Vec<usize>],
        seen: &mut Vec<usize>,
        owner: &mut HashMap<usize, usize>,
    ) -> bool {
        for &p in &makes[k] {
            if seen.contains(&p) {
                continue;
            }
            seen.push(p);
            let held = owner.get(&p).copied();
            if held.is_none_or(|o| augment(o, makes, seen, owner)) {
                owner.insert(p, k);
                return true;
            }
        }
        false
    }
    let mut owner: HashMap<usize, usize> = HashMap::new();
    (0..makes.len()).map(|k| augment(k, makes, &mut Vec::new(), &mut owner)).collect()
}

/// An `Armed` comes with every data packet that makes it due (REC-IF-003): the QP's first
/// transmission of its `initial_psn`, and the first transmission sent after a `Progress`
/// that reported no outstanding PSNs (sent while none was outstanding). That `Progress`
/// must have come more than the margin before the packet, and no other first transmission
/// of the QP from the margin before it on, so that the order in which the device made them
/// is sure; the `Armed` may be up to the margin late.
pub(super) fn judge_armed_due(r: &Reports<'_, '_>, div: &mut Vec<Divergence>) {
    let mut qps: Vec<u32> = r.local_of.values().copied().collect();
    qps.sort_unstable();
    qps.dedup();
    for q in qps {
        let Some((born, init)) = r.born(q, u64::MAX) else { continue };
        let armed = |from: u64, to: u64| {
            r.obs.iter().any(|&(t, e)| {
                matches!(e, NicEvent::Report(NicReport::Armed { qpn, .. }) if qpn.value() == q)
                    && t >= from
                    && t <= to
            })
        };
        // The idle points judged: the time of the idle Progress, or `None` for the start.
        let mut judged: Vec<Option<u64>> = Vec::new();
        for (at, psn, rtx, _) in r.data_of(q, born) {
            if rtx {
                continue;
            }
            let calm = r
                .obs
                .iter()
                .filter(|&&(t, _)| t >= born && t.saturating_add(r.margin) < at)
                .filter_map(|&(t, e)| match e {
                    NicEvent::Report(NicReport::Progress { qpn, outstanding, .. })
                        if qpn.value() == q =>
                    {
                        Some((t, *outstanding == 0))
                    }
                    _ => None,
                })
                .next_back();
            let (key, from) = match calm {
                Some((t, true)) => (Some(t), t.saturating_add(1)),
                None if psn == init => (None, born),
                _ => continue,
            };
            if judged.contains(&key) {
                continue;
            }
            judged.push(key);
            let low = from.saturating_sub(r.margin.saturating_add(1));
            if r.data_of(q, born).any(|(t, _, rtx, _)| !rtx && t >= low && t < at) {
                continue;
            }
            if armed(from, at.saturating_add(r.margin)) {
                continue;
            }
            div.push(Divergence::of(
                at,
                crate::req::REC_IF_003,
                format!(
                    "no Armed of QP {q} within {} ns of PSN {:#x}, a first transmission sent \
                     while no PSN was outstanding",
                    r.margin,
                    psn.value()
                ),
            ));
        }
    }
}

/// A SACK that advanced a QP's `snd_una` and that no `Progress` answered in time
/// (CONF-CMP-100): the QP, when the SACK came, the `snd_una` it gave, the deadline of its
/// report, and when the QP stopped owing reports (it failed or was made anew).
pub(super) struct Unanswered {
    pub(super) q: u32,
    pub(super) at: u64,
    pub(super) una: Psn,
    pub(super) by: u64,
    end: u64,
}

/// Every SACK that advances a QP's `snd_una` makes a `Progress` due (REC-IF-002,
/// CONF-CMP-100): by `late_ns` after the SACK, the QP has reported an `snd_una` at
/// or beyond the one the SACK gave. One report may answer several SACKs, and a report
/// given before the SACK counts too (the judge may have placed the SACK later than the
/// device took it). A QP that reported an error owes nothing from then on: a SACK that
/// moves a QP into the error state makes no `Progress`. These are the SACKs left
/// unanswered.
pub(super) fn unanswered(r: &Reports<'_, '_>) -> Vec<Unanswered> {
    let mut qps: Vec<(u32, u64, Psn)> = Vec::new();
    for i in r.inputs {
        if let Input::Host { command: HostCommand::CreateQp(c) } = i.input {
            qps.push((c.qpn.value(), i.at, c.initial_psn));
        }
    }
    let mut out = Vec::new();
    for (k, &(q, born, init)) in qps.iter().enumerate() {
        let dies = qps[k + 1..].iter().find(|n| n.0 == q).map_or(u64::MAX, |n| n.1);
        let failed = r.obs.iter().find_map(|&(t, e)| match e {
            NicEvent::Report(NicReport::QpError { qpn, .. }) if qpn.value() == q && t >= born => {
                Some(t)
            }
            _ => None,
        });
        let end = dies.min(failed.unwrap_or(u64::MAX));
        for m in moves(r, q, born, init, 0, None) {
            let Some(una) = m.una else { continue };
            let by = m.at.saturating_add(r.late);
            if m.at >= end || by >= end {
                continue;
            }
            let answered = r.obs.iter().any(|&(t, e)| match e {
                NicEvent::Report(NicReport::Progress { qpn, snd_una, .. }) => {
                    qpn.value() == q && (born..=by).contains(&t) && !una.is_after(*snd_una)
                }
                _ => false,
            });
            if !answered {
                out.push(Unanswered { q, at: m.at, una, by, end });
            }
        }
    }
    out
}

/// Whether the device shows that it never took the unanswered SACK `u`: it sent again,
/// after the SACK, a PSN of the QP that the SACK acknowledged as cumulatively arrived. A
/// sender that took the SACK never resends such a PSN, whatever it reports; one that only
/// reports too little resends nothing.
pub(super) fn resent_behind(r: &Reports<'_, '_>, u: &Unanswered) -> bool {
    r.data_of(u.q, u.at)
        .any(|(t, psn, rtx, _)| rtx && t > u.at && t < u.end && psn.is_before(u.una))
}

/// A missing `Progress` (CONF-CMP-100), named by what the device's later outputs show: a
/// report that stops at the SACK's own `cack_psn`, or a resend of a PSN the SACK
/// acknowledged, shows the sender misread or dropped the SACK (SND-SACK-001); else only
/// the report is missing (REC-IF-002).
pub(super) fn judge_progress_due(r: &Reports<'_, '_>, div: &mut Vec<Divergence>) {
    for u in unanswered(r) {
        let (q, una, by) = (u.q, u.una, u.by);
        // A report from the SACK on, while the QP lives, that stops at the SACK's own
        // cack_psn, a value no input gave the QP: the sender misread the SACK. A QP
        // that only reports too little never gives such a value, as it never gives a
        // snd_una it did not hold.
        let short = r.obs.iter().any(|&(t, e)| match e {
            NicEvent::Report(NicReport::Progress { qpn, snd_una, .. }) => {
                qpn.value() == q
                    && (u.at..u.end).contains(&t)
                    && *snd_una == una.sub(1)
                    && !super::progress::held(r.inputs, r.sent, r.local_of, q, *snd_una, t)
            }
            _ => false,
        });
        if short {
            let what = super::progress::read_exclusive(q, una.sub(1));
            div.push(Divergence::of(by, crate::req::SND_SACK_001, what));
            continue;
        }
        if resent_behind(r, &u) {
            div.push(Divergence::of(by, crate::req::SND_SACK_001, not_taken(q, u.at, una)));
            continue;
        }
        div.push(Divergence::of(
            by,
            crate::req::REC_IF_002,
            format!(
                "no Progress of QP {q} for the SACK at {} ns that moved its snd_una to {}: \
                 none with that snd_una or beyond came by {by} ns",
                u.at,
                una.value()
            ),
        ));
    }
}

/// What a SACK the sender did not take shows: no report of it, and a PSN it acknowledged
/// sent again.
pub(super) fn not_taken(q: u32, at: u64, una: Psn) -> String {
    format!(
        "the SACK into QP {q} at {at} ns, which moved its snd_una to {}, was not taken: no \
         Progress came for it, and a PSN it acknowledged was sent again",
        una.value()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn send_order_holds_across_the_wrap() {
        let m = |v: u16| Msn::new(v);
        let sent: HashMap<Msn, u64> =
            [(m(65534), 10), (m(65535), 20), (m(0), 30), (m(1), 40)].into();
        let got = in_send_order(vec![m(1), m(0), m(65535), m(65534)], &sent);
        assert_eq!(got, vec![m(65534), m(65535), m(0), m(1)]);
    }

    #[test]
    fn send_order_without_a_wrap_is_by_number() {
        let m = |v: u16| Msn::new(v);
        let sent: HashMap<Msn, u64> = [(m(3), 10), (m(4), 20), (m(5), 30)].into();
        assert_eq!(in_send_order(vec![m(5), m(3), m(4)], &sent), vec![m(3), m(4), m(5)]);
        assert!(in_send_order(vec![], &sent).is_empty());
    }

    #[test]
    fn each_packet_makes_one_report() {
        // Two reports that only one packet makes: one is left over.
        assert_eq!(matched(&[vec![0], vec![0], vec![1]]), vec![true, false, true]);
        // The first report gives up a packet the second needs.
        assert_eq!(matched(&[vec![0, 1], vec![0]]), vec![true, true]);
        assert_eq!(matched(&[vec![]]), vec![false]);
    }
}
