//! Why an expected report did not come, or an unexpected one came: the rule the
//! inputs of its time show broken.

use super::*;
use crate::judge::FieldDiff;
use openrdma_codec::Qpn;

/// Whether a report of the kind and QP of `rep` came unmatched within `late` of `at`: a
/// near miss with another key. The device took what it reported on, so a missing
/// report is its rule's, not that of a value the frame carried.
pub(super) fn came_alike(
    got: &[(u64, Clause, String, &NicEvent, bool)],
    rep: &NicReport,
    at: u64,
    late: u64,
) -> bool {
    let kind = report_key(rep).map(|k| k.0);
    got.iter().any(|(t, req, _, e, used)| {
        let NicEvent::Report(r) = e else { return false };
        !used && Some(*req) == kind && r.qpn() == rep.qpn() && t.abs_diff(at) <= late
    })
}

/// The divergence of an expected `EvState` report that did not come because the device
/// reported the transition with another state: a report of the same QP and EV came by
/// `late` after `at` with another state, and every later report of that EV is one the scenario
/// expects within `late` of its time. The device then follows the expected states, so it is
/// in the expected one and its report says another (REC-IF-016, CONF-CMP-070). The report
/// is taken, so that one wrong field makes one divergence. `None` otherwise: a later report
/// the scenario does not expect shows the device acted on the state it reported, and the
/// rule of the transition names the difference, as it does for a state a `SetEvState`
/// command gives. A device whose every report says the state the EV leaves, one
/// transition late, is named by the report's rule too (CONF-CMP-077).
pub(super) fn misreported(
    rep: &NicReport,
    at: u64,
    late: u64,
    inputs: &[In<'_>],
    exp: &[(&Record, &NicEvent)],
    got: &mut [(u64, Clause, String, &NicEvent, bool)],
) -> Option<Divergence> {
    let NicReport::EvState { qpn, ev, state } = rep else { return None };
    let commanded = inputs_at(inputs, qpn.value(), at)
        .any(|i| matches!(i.input, Input::Cpu { command: CpuCommand::SetEvState { .. } }));
    let of_ev = |e: &NicEvent| match e {
        NicEvent::Report(NicReport::EvState { qpn: x, ev: y, state: s }) if x == qpn && y == ev => {
            Some(*s)
        }
        _ => None,
    };
    // A report of the transition comes at its cause or after, by `late` at most; one no
    // expected report takes is preferred.
    let other = |g: &(u64, Clause, String, &NicEvent, bool)| {
        (at..=at.saturating_add(late)).contains(&g.0) && of_ev(g.3).is_some_and(|s| s != *state)
    };
    let i = got.iter().position(|g| !g.4 && other(g)).or_else(|| got.iter().position(other))?;
    let (t, e) = (got[i].0, got[i].3);
    let expected = |u: u64, s: EvState| {
        exp.iter().any(|(r, x)| r.at.0.abs_diff(u) <= late && of_ev(x) == Some(s))
    };
    let said = of_ev(e)?;
    // The states the scenario expects the EV to enter, in time order.
    let mut due: Vec<(u64, EvState)> =
        exp.iter().filter_map(|(r, x)| Some((r.at.0, of_ev(x)?))).collect();
    due.sort_by_key(|d| d.0);
    let late_by_one = |u: u64, s: EvState| one_state_late(&due, u, s, late);
    // A device that reports every transition with the state it leaves (CONF-CMP-077).
    let lags = late_by_one(at, said);
    let later: Vec<(u64, EvState)> =
        got.iter().filter(|g| g.0 > t).filter_map(|g| Some((g.0, of_ev(g.3)?))).collect();
    let followed = |u: u64, s: EvState| expected(u, s) || (lags && late_by_one(u, s));
    let acted = later.iter().any(|&(u, s)| !followed(u, s));
    // A state a command gives is judged by the command's rules (`missed_transition`),
    // unless a later report, one state late, says the EV entered it.
    let entered = lags && later.iter().any(|&(u, s)| s == *state && late_by_one(u, s));
    if acted || (commanded && !entered) {
        return None;
    }
    got[i].4 = true;
    let mut field = FieldDiff::new("state", format!("{state:?}"), format!("{said:?}"));
    field.name(crate::req::REC_IF_016);
    let what = if lags {
        format!(
            "EV {ev:#010x} of QP {qpn} is reported {said:?}, the state it leaves, where it enters {state:?}; its reports follow the expected transitions"
        )
    } else {
        format!(
            "EV {ev:#010x} of QP {qpn} is reported {said:?} where it enters {state:?}; its later reports follow {state:?}"
        )
    };
    Some(Divergence {
        actual: Some(render_event(e)),
        fields: vec![field],
        ..Divergence::of(at, crate::req::REC_IF_016, what)
    })
}

/// Whether a report at `at` that says `said` is one state late: the scenario expects the EV
/// to enter a state within `late` of `at`, and `said` is the state it expects the EV in
/// before that transition (GOOD, where every EV starts, before the first). `due` holds the
/// expected states of the EV in time order.
fn one_state_late(due: &[(u64, EvState)], at: u64, said: EvState, late: u64) -> bool {
    due.iter().enumerate().any(|(k, &(u, _))| {
        let before = k.checked_sub(1).map_or(EvState::Good, |j| due[j].1);
        u.abs_diff(at) <= late && before == said
    })
}

/// Whether an input of device QP `qpn`, at `at` or up to `late` before it, moves EV `ev`
/// out of GOOD: a SACK with `pr` 0 that marks it (EV-SKIP-001, EV-BAD-001), a trimmed NACK
/// of a packet sent on it (EV-SKIP-001), or a `SetEvState` command of another state
/// (EV-STATE-003.a). A report of the
/// transition it causes says the state the EV enters, which is not GOOD.
pub(super) fn leaves_good(inputs: &[In<'_>], qpn: u32, ev: Ev, at: u64, late: u64) -> bool {
    let near = |i: &&In<'_>| i.at <= at && i.at.saturating_add(late) >= at;
    inputs.iter().filter(near).any(|i| {
        if let Input::Cpu { command: CpuCommand::SetEvState { qpn: x, ev: y, state } } = i.input {
            return x.value() == qpn && *y == ev && *state != EvState::Good;
        }
        let Some(d) = i.frame.as_ref().map(|f| &f.d) else { return false };
        if d.bth.is_none_or(|b| b.dest_qp.value() != qpn) {
            return false;
        }
        let marks = d.ext.seth.is_some_and(|s| {
            !s.pr && s.entropy == ev && matches!(s.m, EvMark::SKIP_ONCE | EvMark::ALWAYS_SKIP)
        });
        let trims = d.ext.neth.is_some_and(|n| {
            n.entropy == ev && matches!(n.reason, NackReason::TRIMMED | NackReason::TRIMMED_LASTHOP)
        });
        marks || trims
    })
}

/// Why the device made no report of what arrived at `at`: a frame that arrived then
/// carries a value a receiver must take ([`super::super::arrivals::accept_clause`]), so the device
/// did not take it. The rule of that value.
pub(super) fn not_taken(at: u64, inputs: &[In<'_>]) -> Option<Clause> {
    inputs
        .iter()
        .filter(|i| i.at == at)
        .find_map(|i| super::super::arrivals::accept_clause(&i.frame.as_ref()?.d))
}

/// The rule an expected report missed at `at` shows broken when a stale SACK arrived then,
/// one whose `cack_psn` is before that of an earlier SACK into the QP: the device did not
/// apply what it says (SND-SACK-005.b).
pub(super) fn stale_sack(r: &NicReport, at: u64, inputs: &[In<'_>]) -> Option<Clause> {
    let q = match r {
        NicReport::EvMarked { qpn, .. } | NicReport::EvState { qpn, .. } => qpn.value(),
        _ => return None,
    };
    let sack = |i: &In<'_>| {
        let d = &i.frame.as_ref()?.d;
        (d.bth?.dest_qp.value() == q).then_some(d.ext.seth.filter(|s| !s.pr)?)
    };
    let now = inputs_at(inputs, q, at).find_map(sack)?;
    let mut earlier = inputs.iter().filter(|i| i.at < at).filter_map(sack);
    earlier.any(|s| now.cack_psn.is_before(s.cack_psn)).then_some(SND_SACK_005_B)
}

/// The inputs of device QP `qpn` injected at `at`.
pub(super) fn inputs_at<'a>(
    inputs: &'a [In<'a>],
    qpn: u32,
    at: u64,
) -> impl Iterator<Item = &'a In<'a>> {
    inputs.iter().filter(move |i| {
        i.at == at
            && match i.input {
                Input::Cpu { command } => command_qpn(command) == Some(qpn),
                _ => {
                    i.frame.as_ref().and_then(|f| f.d.bth).is_some_and(|b| b.dest_qp.value() == qpn)
                }
            }
    })
}

/// The QP a command names; none for an endpoint request.
fn command_qpn(c: &CpuCommand) -> Option<u32> {
    match c {
        CpuCommand::Retransmit { qpn, .. }
        | CpuCommand::Probe { qpn, .. }
        | CpuCommand::SetEvState { qpn, .. }
        | CpuCommand::QpError { qpn } => Some(qpn.value()),
        CpuCommand::EndpointRequest { .. } => None,
    }
}

/// The rule of table 4 of the sender chapter that an expected `EvState` report missed at
/// `at` shows broken, from the input that makes the transition due (design 9.3): a SACK's
/// mark (EV-SKIP-001, EV-BAD-001), a probe answer's (EV-PROBE-002, EV-PROBE-003), a trim
/// (EV-SKIP-001), the SKIP hold passing with no input (EV-SKIP-002), or a `SetEvState`
/// command: applied as another state (EV-DENY-001, EV-STATE-003.a) or not at all, nothing
/// reported (REC-IF-012). `None` for a report of another kind, and, but for a command, when
/// the device reports no EV state of the QP at all.
pub(super) fn missed_transition(
    r: &NicReport,
    at: u64,
    inputs: &[In<'_>],
    obs: &[(u64, &NicEvent)],
) -> Option<Clause> {
    let NicReport::EvState { qpn, ev, state } = r else { return None };
    let q = qpn.value();
    // A device that reports no EV state of the QP at all breaks the report's own rule.
    let reports = obs
        .iter()
        .any(|(_, o)| matches!(o, NicEvent::Report(NicReport::EvState { qpn: x, .. }) if x == qpn));
    let mut causes = inputs_at(inputs, q, at).peekable();
    if causes.peek().is_none() {
        return (reports && *state == EvState::Good).then_some(EV_SKIP_002);
    }
    for i in causes {
        if let Input::Cpu { command: CpuCommand::SetEvState { ev: e, state: s, .. } } = i.input {
            if e != ev || s != state {
                continue;
            }
            let other = obs.iter().any(|(t, o)| {
                *t >= at
                    && matches!(o, NicEvent::Report(NicReport::EvState { qpn: x, ev: y, .. })
                        if x == qpn && y == ev)
            });
            return Some(match (other, state) {
                (false, _) => REC_IF_012,
                (true, EvState::Denied) => EV_DENY_001,
                (true, _) => EV_STATE_003_A,
            });
        }
        let Some(d) = i.frame.as_ref().map(|f| &f.d).filter(|_| reports) else { continue };
        if let Some(s) = d.ext.seth.filter(|_| d.entropy() == Some(*ev)) {
            return Some(match (s.pr, s.m) {
                (true, EvMark::NONE) => EV_PROBE_002,
                (true, _) => EV_PROBE_003,
                (false, EvMark::ALWAYS_SKIP) => EV_BAD_001,
                (false, _) => EV_SKIP_001,
            });
        }
        if d.ext
            .neth
            .is_some_and(|n| matches!(n.reason, NackReason::TRIMMED | NackReason::TRIMMED_LASTHOP))
        {
            return Some(EV_SKIP_001);
        }
    }
    None
}

/// The rule an `EvState` report the scenario does not expect breaks, from what came at its
/// time: a transition out of DENIED, which the scenario holds, by anything but a
/// `SetEvState` (EV-DENY-002); a transition on a NACK that reports the responder's
/// resources (SND-NACK-003). `None` otherwise: the report's own rule.
pub(super) fn wrong_transition(
    r: &NicReport,
    at: u64,
    inputs: &[In<'_>],
    exp: &[(&Record, &NicEvent)],
) -> Option<Clause> {
    // A QP failed at an ACK whose credit code is not 0x1F: the requester took the credit
    // code for a NAK's, where it must ignore it (AETH-MRC-002.b).
    if let NicReport::QpError { qpn, .. } = r {
        let odd_ack = inputs_at(inputs, qpn.value(), at).any(|i| {
            i.frame.as_ref().and_then(|f| f.d.ext.aeth).is_some_and(|a| {
                a.kind() == openrdma_codec::AethKind::Ack
                    && a.syndrome != AethRepr::ACK_UNLIMITED_CREDIT
            })
        });
        return odd_ack.then_some(AETH_MRC_002_B);
    }
    // The mark of a SACK the scenario reports no mark of: the SACK was one the checks
    // discard, and the device applied its mark before them (SND-SACK-006).
    if let NicReport::EvMarked { qpn, .. } = r {
        let marked = inputs_at(inputs, qpn.value(), at).any(|i| {
            i.frame
                .as_ref()
                .and_then(|f| f.d.ext.seth)
                .is_some_and(|s| !s.pr && s.m != EvMark::NONE)
        });
        let reported = exp.iter().any(|(rec, e)| {
            rec.at.0 == at
                && matches!(e, NicEvent::Report(NicReport::EvMarked { qpn: x, .. }) if x == qpn)
        });
        return (marked && !reported).then_some(SND_SACK_006);
    }
    let NicReport::EvState { qpn, ev, .. } = r else { return None };
    let q = qpn.value();
    let commanded = inputs_at(inputs, q, at).any(|i| {
        matches!(i.input, Input::Cpu { command: CpuCommand::SetEvState { ev: e, .. } } if e == ev)
    });
    let held = exp
        .iter()
        .filter(|(rec, _)| rec.at.0 <= at)
        .filter_map(|(_, e)| match e {
            NicEvent::Report(NicReport::EvState { qpn: x, ev: y, state })
                if x == qpn && y == ev =>
            {
                Some(*state)
            }
            _ => None,
        })
        .next_back();
    if held == Some(EvState::Denied) && !commanded {
        return Some(EV_DENY_002);
    }
    let resource_nack = inputs_at(inputs, q, at).any(|i| {
        i.frame.as_ref().and_then(|f| f.d.ext.neth).is_some_and(|n| {
            !matches!(
                n.reason,
                NackReason::TRIMMED | NackReason::TRIMMED_LASTHOP | NackReason::UNEXP_EVENT
            )
        })
    });
    resource_nack.then_some(SND_NACK_003)
}

/// The divergence of an expected report of QP q that did not come because the device gave
/// it for another QP: an unmatched report within `late` of `at` equal to the expected one
/// but for its `qpn` (an EV two QPs hold, reported for the first that holds it). The report
/// is taken, so that the one wrong field makes one divergence, named by the report's own
/// rule (`req`). `None` for a report that carries no QP.
pub(super) fn wrong_qp(
    rep: &NicReport,
    req: Clause,
    at: u64,
    late: u64,
    got: &mut [(u64, Clause, String, &NicEvent, bool)],
) -> Option<Divergence> {
    let want = rep.qpn()?;
    let i = got.iter().position(|(t, _, _, e, used)| {
        let NicEvent::Report(r) = e else { return false };
        !used
            && t.abs_diff(at) <= late
            && r.qpn().is_some_and(|q| q != want)
            && with_qpn(r, want).as_ref() == Some(rep)
    })?;
    got[i].4 = true;
    let (t, e) = (got[i].0, got[i].3);
    let NicEvent::Report(r) = e else { return None };
    let said = r.qpn()?;
    let mut field = FieldDiff::new("qpn", format!("{want}"), format!("{said}"));
    field.requirement = req.id().into();
    Some(Divergence {
        actual: Some(render_event(e)),
        fields: vec![field],
        ..Divergence::named(
            t,
            req,
            format!("the report at {t} ns names QP {said}; the scenario expects it for QP {want}"),
        )
    })
}

/// A report of an EV or a NACK with its `qpn` replaced; `None` for other kinds.
fn with_qpn(r: &NicReport, q: Qpn) -> Option<NicReport> {
    let mut r = r.clone();
    match &mut r {
        NicReport::Nack { qpn, .. }
        | NicReport::EvMarked { qpn, .. }
        | NicReport::EvState { qpn, .. }
        | NicReport::ProbeAnswered { qpn, .. } => *qpn = q,
        _ => return None,
    }
    Some(r)
}
