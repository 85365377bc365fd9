//! What the `Progress` and `Armed` reports to the CPU half carry (`spec/recovery.md`):
//! their order, and the `snd_una` of each `Progress`, which only a SACK to its QP gives.

use std::collections::HashMap;

use openrdma_codec::Psn;
use openrdma_device::{HostCommand, Input, NicEvent, NicReport};

use super::obs::{In, Kind};
use super::{Divergence, Frame, render_event};

/// The time QP `qpn` was last created at, by `t`.
pub(super) fn created_at(inputs: &[In<'_>], qpn: u32, t: u64) -> Option<u64> {
    inputs
        .iter()
        .filter(|i| i.at <= t)
        .filter(|i| {
            matches!(i.input, Input::Host { command: HostCommand::CreateQp(q) }
                if q.qpn.value() == qpn)
        })
        .map(|i| i.at)
        .next_back()
}

/// The reports of each QP come in the order the NIC half produced them (REC-IF-015). Their
/// order shows in the `snd_una` that `Progress` and `Armed` carry: `snd_una` only moves
/// forward (SND-SACK-001), and each report carries its value when it was produced, so in
/// the order of production it never goes back. A QP created again starts afresh. A
/// `Progress` whose `snd_una` the QP never held is not out of order but wrong, which
/// `judge_progress_truth` names (REC-IF-002). An `Armed` is made with its data packet: one
/// that goes back behind a report made before that packet left carries a stale `snd_una`,
/// not a report overtaken (REC-IF-003).
pub(super) fn judge_report_order(
    inputs: &[In<'_>],
    sent: &[Frame<'_>],
    local_of: &HashMap<u32, u32>,
    obs: &[(u64, &NicEvent)],
    div: &mut Vec<Divergence>,
) {
    let created = |qpn: u32, t: u64| created_at(inputs, qpn, t);
    // (QPN) to (the QP's creation, the last snd_una reported, its report and its time).
    let mut last: HashMap<u32, (Option<u64>, Psn, &NicEvent, u64)> = HashMap::new();
    for &(t, e) in obs {
        let (qpn, una) = match e {
            NicEvent::Report(NicReport::Progress { qpn, snd_una, .. })
            | NicEvent::Report(NicReport::Armed { qpn, snd_una }) => (qpn.value(), *snd_una),
            _ => continue,
        };
        if matches!(e, NicEvent::Report(NicReport::Progress { .. }))
            && !held(inputs, sent, local_of, qpn, una, t)
        {
            continue;
        }
        let born = created(qpn, t);
        if let Some(&(b, prev, earlier, then)) = last.get(&qpn) {
            if b == born && una.is_before(prev) {
                let armed = matches!(e, NicEvent::Report(NicReport::Armed { .. }));
                if let Some(p) = armed.then(|| first_sent(sent, local_of, qpn, t)).flatten() {
                    if then < p {
                        div.push(stale_armed(t, e, earlier, then, p));
                        continue;
                    }
                }
                div.push(Divergence {
                    actual: Some(render_event(e)),
                    expected: Some(render_event(earlier)),
                    ..Divergence::of(
                        t,
                        crate::req::REC_IF_015,
                        format!(
                            "a report of QP {qpn} with snd_una {} after one with snd_una {}: \
                             the reports of a QP came out of the order they were produced in",
                            una.value(),
                            prev.value()
                        ),
                    )
                });
                continue;
            }
        }
        last.insert(qpn, (born, una, e, t));
    }
}

/// The time of the latest first transmission of QP `q` sent by `t`: the packet an `Armed`
/// of `t` is made with (REC-IF-003).
fn first_sent(sent: &[Frame<'_>], local_of: &HashMap<u32, u32>, q: u32, t: u64) -> Option<u64> {
    sent.iter()
        .filter(|f| f.at <= t)
        .filter(|f| match f.kind {
            Kind::Data { qp, rtx: false, .. } => local_of.get(&qp) == Some(&q),
            _ => false,
        })
        .map(|f| f.at)
        .max()
}

/// An `Armed` whose `snd_una` is behind that of a report made before its data packet left
/// at `packet`: it carries a value the QP no longer held then (REC-IF-003).
fn stale_armed(t: u64, e: &NicEvent, earlier: &NicEvent, then: u64, packet: u64) -> Divergence {
    let (NicEvent::Report(NicReport::Armed { qpn, snd_una }), Some(prev)) = (e, una_of(earlier))
    else {
        return Divergence::of(t, crate::req::REC_IF_003, "an Armed with a stale snd_una".into());
    };
    Divergence {
        actual: Some(render_event(e)),
        expected: Some(render_event(earlier)),
        ..Divergence::of(
            t,
            crate::req::REC_IF_003,
            format!(
                "an Armed of QP {} with snd_una {}, made with a packet sent at {packet} ns, \
                 after a report of {then} ns gave snd_una {}: the Armed does not carry the \
                 current snd_una",
                qpn.value(),
                snd_una.value(),
                prev.value()
            ),
        )
    }
}

/// The `snd_una` a `Progress` or an `Armed` carries.
fn una_of(e: &NicEvent) -> Option<Psn> {
    match e {
        NicEvent::Report(NicReport::Progress { snd_una, .. })
        | NicEvent::Report(NicReport::Armed { snd_una, .. }) => Some(*snd_una),
        _ => None,
    }
}

/// Whether `snd_una` is a value QP `q` held by `t` (REC-IF-002): its `initial_psn`, one
/// past the cumulative PSN of a SACK that reached the QP by then (SND-SACK-001), or one
/// past the last packet of a message the QP sent, which an ACK completes (SND-ACK-001).
/// `local_of` maps a peer's QPN to the device's QP facing it.
pub(super) fn held(
    inputs: &[In<'_>],
    sent: &[Frame<'_>],
    local_of: &HashMap<u32, u32>,
    q: u32,
    snd_una: Psn,
    t: u64,
) -> bool {
    let given = inputs.iter().filter(|i| i.at <= t).any(|i| match (i.input, &i.frame) {
        (Input::Host { command: HostCommand::CreateQp(c) }, _) => {
            c.qpn.value() == q && c.initial_psn == snd_una
        }
        (_, Some(f)) => {
            f.d.bth.is_some_and(|b| b.dest_qp.value() == q)
                && f.d.ext.seth.is_some_and(|s| s.cack_psn.add(1) == snd_una)
        }
        _ => false,
    });
    given
        || sent.iter().filter(|f| f.at <= t).any(|f| {
            f.d.bth.is_some_and(|b| {
                b.opcode.is_mrc_write()
                    && b.opcode.is_last()
                    && local_of.get(&b.dest_qp.value()) == Some(&q)
                    && b.psn.add(1) == snd_una
            })
        })
}

/// Whether a SACK that reached QP `q` by `t` carried `psn` as its cumulative PSN: a
/// `snd_una` equal to it stops one short of what that SACK gave.
pub(super) fn cack_of_sack(inputs: &[In<'_>], q: u32, psn: Psn, t: u64) -> bool {
    inputs.iter().filter(|i| i.at <= t).any(|i| {
        i.frame.as_ref().is_some_and(|f| {
            f.d.discard_reason().is_none()
                && f.d.bth.is_some_and(|b| b.dest_qp.value() == q)
                && f.d.ext.seth.is_some_and(|s| s.cack_psn == psn)
        })
    })
}

/// What a `snd_una` one short of a SACK's cumulative point shows: the sender took the
/// SACK's `cack_psn` as the first PSN not yet arrived (SND-SACK-001).
pub(super) fn read_exclusive(q: u32, snd_una: Psn) -> String {
    format!(
        "a Progress of QP {q} with snd_una {}, the cumulative PSN of a SACK to it: the SACK's \
         cack_psn was taken as not yet arrived",
        snd_una.value()
    )
}

/// The `snd_una` a `Progress` report carries is one its QP held (`held`): a report with
/// another value carries another QP's progress, or none. Judged by truth, not against the
/// recording (CONF-CMP-065).
pub(super) fn judge_progress_truth(
    inputs: &[In<'_>],
    sent: &[Frame<'_>],
    local_of: &HashMap<u32, u32>,
    obs: &[(u64, &NicEvent)],
    div: &mut Vec<Divergence>,
) {
    for &(t, e) in obs {
        let NicEvent::Report(NicReport::Progress { qpn, snd_una, .. }) = e else { continue };
        let q = qpn.value();
        if held(inputs, sent, local_of, q, *snd_una, t) {
            continue;
        }
        if cack_of_sack(inputs, q, *snd_una, t) {
            div.push(Divergence {
                actual: Some(render_event(e)),
                ..Divergence::of(t, crate::req::SND_SACK_001, read_exclusive(q, *snd_una))
            });
            continue;
        }
        div.push(Divergence {
            actual: Some(render_event(e)),
            ..Divergence::of(
                t,
                crate::req::REC_IF_002,
                format!(
                    "a Progress of QP {q} with snd_una {}, which neither a SACK to QP {q} nor \
                     the end of one of its messages gave: the report carries another QP's \
                     progress",
                    snd_una.value()
                ),
            )
        });
    }
}
