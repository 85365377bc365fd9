//! Probe answers: every answer the scenario expects must come (CONF-CMP-025,
//! PETH-RESP-001), and a missing one is named by the value the device did not take.

use openrdma_device::{Record, Scenario};

use super::super::obs::Injected;
use super::super::{Divergence, Frame, Kind, render_frame};
use super::Run;
use crate::req::Clause;

/// Every probe answer the scenario expects must come (CONF-CMP-025): a SACK on that QP
/// with `pr` 1 and the probe's `probe_id` in `ack_psn_offset`, by the expected time plus
/// the tolerance (PETH-RESP-001). A SACK with `pr` 0, however complete, answers no probe.
/// When the probe carried a value a receiver must take ([`super::super::arrivals::accept_clause`]:
/// another `ftype`, PDC identifiers, `rtx`, a reserved field set) and the device answered a
/// probe without one, the missing answer is named by that rule: the device did not take
/// the probe.
pub(super) fn judge_probe_answers(
    run: Run<'_, '_>,
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
    let Run { scenario, exp_frames, obs_frames, tol, injects, .. } = run;
    let answer = |f: &Frame<'_>| match f.kind {
        Kind::Sack { qp, .. } => f.d.ext.seth.filter(|s| s.pr).map(|s| (qp, s.ack_psn_offset)),
        _ => None,
    };
    let answered = |rec: &Record, want| {
        let deadline = rec.at.0.saturating_add(tol.late_ns);
        obs_frames.iter().any(|f| f.at <= deadline && answer(f) == Some(want))
    };
    // A device that answers a plain probe and not one with an odd value did not take the
    // latter; one that answers no plain probe simply does not answer.
    let answers_plain = exp_frames.iter().any(|(rec, ef)| {
        answer(ef).is_some_and(|want| {
            let odd = probe_not_taken(scenario, injects, want.0, want.1 as u16, rec.at.0);
            odd.is_none() && answered(rec, want)
        })
    });
    for (rec, ef) in exp_frames {
        let Some(want) = answer(ef) else { continue };
        *checked += 1;
        let deadline = rec.at.0.saturating_add(tol.late_ns);
        if !answered(rec, want) {
            let rule = probe_not_taken(scenario, injects, want.0, want.1 as u16, rec.at.0)
                .filter(|_| answers_plain);
            div.push(Divergence {
                expected: Some(render_frame(ef.bytes)),
                ..Divergence::named(
                    rec.at.0,
                    rule.unwrap_or(crate::req::PETH_RESP_001),
                    format!("no SACK with pr 1 answered probe {} by {deadline} ns", want.1 as u16),
                )
            });
        }
    }
}

/// The receive rule broken by not answering probe `id`, sent to the peer QP `qp` (the
/// wire QP) by `at`: that of the value a receiver must take in the latest such probe, if
/// it carries one.
/// `injects` are the records the scenario injects, decoded.
fn probe_not_taken(
    scenario: &Scenario,
    injects: &[Injected<'_>],
    qp: u32,
    id: u16,
    at: u64,
) -> Option<Clause> {
    let local = *super::super::peer_map(scenario).get(&qp)?;
    // The latest such probe.
    let mut probe = injects.iter().rev().filter(|i| i.at() <= at).filter_map(|i| i.frame.as_ref());
    let probe = probe.find(|d| {
        d.bth.is_some_and(|b| b.dest_qp.value() == local)
            && d.ext.peth.is_some_and(|p| p.probe_id == id)
    })?;
    super::super::arrivals::accept_clause(probe)
}
