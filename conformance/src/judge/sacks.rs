//! SACKs are judged by what they say, not by how many there are (`spec/conformance.md`,
//! CONF-CMP-045, CONF-CMP-007 and CONF-CMP-025).
//!
//! What the device had received on each of its QPs, and when, is rebuilt from the frames
//! the runner injected ([`Arrivals`]): every copy of every write (its EV, its TSETH
//! timestamp, its payload length), every probe, and every frame the device must take no
//! action on (RCV-FRAME-001). A copy that the scenario expects discarded — a segment,
//! placement or MSN error — is never counted as received, and a SACK must not answer it; a
//! SACK that claims or answers a PSN whose only copies were frames to discard is named by
//! what is wrong with those frames (CONF-CMP-023).
//!
//! Each SACK the device sends is then held to the field rules of RCV-SACK-005..007 and the
//! SETH and CC_STATE requirements:
//!
//! * **truth**: every PSN it claims (at or before `cack_psn`, or a set bitmap bit) had been
//!   accepted when it was sent (SETH-CACK-001, SETH-BITMAP-001);
//! * **completeness**: every PSN accepted more than the lateness tolerance before the SACK
//!   is claimed, so `cack_psn + 1` is not such a PSN (SETH-CACK-001, SETH-BITMAP-001) — a
//!   pipelined device may build a SACK from state a little older than its send time, never
//!   older than the tolerance;
//! * **fixed fields**: `sack_offset` 1, bit 0 clear (SETH-BITMAP-002), `mpr` the configured
//!   one, and the BTH PSN equal to `cack_psn` (RCV-SACK-005.i, OPC-PSN-002.a); `m` not the reserved
//!   3 and the reserved bits 0 are wire rules, judged for every frame (`super::wire`);
//! * **the trigger**: with `pr` 0, `cack_psn + ack_psn_offset` is the PSN of a write copy
//!   that had arrived (SETH-ACKPSN-003.a), or, for a copy too far from `cack_psn` for 16
//!   bits, the offset is that distance clamped (SETH-ACKPSN-003.b), not one the device had
//!   to discard without response (RCV-REJECT-001), whose EV is the SACK's `entropy`
//!   (SETH-EV-001; the receiver's reconstruction when the value is that EV read without it:
//!   ENC-EV-001.c for the flow label's bits 19:16 kept over IPv6, ENC-EV-002.b for low bits
//!   that IPv4 cannot carry) and the EV the SACK travels on (RCV-SACK-006), and whose TSETH
//!   timestamp is the CC_STATE `tx_timestamp` (CCS-TS-001); with `pr` 1,
//!   the same for the probe whose `probe_id` is `ack_psn_offset` (SETH-PR-001,
//!   SETH-ACKPSN-002);
//! * **counters**: `ooo_count` and `rcvd_bytes` lie between their values over the writes
//!   accepted up to the tolerance before the SACK and over those accepted up to the SACK
//!   (CCS-OOO-001, CCS-BYTES-001).
//!
//! A SACK found wrong is named by the cause that one change makes right, when there is
//! one: a `sack_offset` other than 1 over a bitmap built for 1 (RCV-SACK-005.c), or one
//! SETH or CC_STATE field sent with its bytes in the other order (SETH-LAYOUT-001,
//! CCS-LAYOUT-001). A bit left clear for a PSN at or before `cack_psn` is
//! SETH-BITMAP-002.a; a PSN only a probe's BTH carried, claimed, is PETH-PSN-001; a
//! reflected timestamp that is the trigger's, changed, is TSETH-TS-001.b. A PSN claimed
//! by `cack_psn` before any copy came, whose later copy to place the device placed
//! nowhere, is RCV-WIN-003: `epsn` itself had moved past it (CONF-CMP-126).
//!
//! Progress is judged against the scenario's own SACKs: by the time of each, plus the
//! tolerance, the device must have reported at least as much cumulative progress, and
//! every PSN the expected SACK's bitmap claims, so that a SACK due behind a hole, which
//! moves no cumulative PSN, is judged too (named by what made it due, [`due_causes`]); and
//! every probe answer the scenario expects must have come, with `pr` 1 and its `probe_id`
//! (PETH-RESP-001).

use openrdma_device::{NicEvent, Record, Scenario, Tolerances};

use openrdma_codec::{CcStateRepr, Ev, Psn, SethRepr};

use super::arrivals::{Arrivals, Carrier, ProbeCopy, Status, WriteCopy, ev_requirement};
use super::obs::Injected;
use super::{Divergence, FieldDiff, Frame, Kind, render_frame};
use crate::req::*;

mod one;
use one::One;

/// `a − b` as a signed 24-bit PSN distance.
/// Whether `cack_psn` `cack` claims PSN `p` (SETH-CACK-001.a): `p` is before `cack + 1`
/// (BTH-PSN-002), so the PSN exactly half the ring ahead of that is not claimed.
fn claimed_by_cack(cack: u32, p: u32) -> bool {
    Psn::new(p).is_before(Psn::new(cack).next())
}

fn psn_diff(a: u32, b: u32) -> i32 {
    ((a.wrapping_sub(b) << 8) as i32) >> 8
}

fn push(div: &mut Vec<Divergence>, f: &Frame<'_>, requirement: Clause, what: String) {
    div.push(Divergence {
        actual: Some(render_frame(f.bytes)),
        ..Divergence::named(f.at, requirement, what)
    });
}

fn push_field(
    div: &mut Vec<Divergence>,
    f: &Frame<'_>,
    requirement: Clause,
    field: &str,
    expected: String,
    actual: String,
) {
    div.push(Divergence {
        actual: Some(render_frame(f.bytes)),
        fields: vec![FieldDiff::new(field, expected, actual)],
        ..Divergence::named(f.at, requirement, format!("SACK field {field} is wrong"))
    });
}

/// What the SACK checks read of a run.
#[derive(Clone, Copy)]
pub(super) struct Run<'r, 'a> {
    pub(super) scenario: &'r Scenario,
    pub(super) arrivals: &'r Arrivals,
    /// The expected frames, with their records.
    pub(super) exp_frames: &'r [(&'a Record, Frame<'a>)],
    /// The device's frames, in the order it sent them.
    pub(super) obs_frames: &'r [Frame<'a>],
    pub(super) tol: &'r Tolerances,
    /// The records the scenario injects, decoded.
    pub(super) injects: &'r [Injected<'a>],
    /// The device's events with their times, in the order it gave them.
    pub(super) obs_events: &'r [(u64, &'a NicEvent)],
}

/// The rule a SACK of device QP `local` sent at `at` breaks when the scenario has the QP
/// in the error state by then, beyond the lateness a SACK made before may have: one that
/// answers a packet which reached the failed QP discards it with a response (RCV-QP-002),
/// any other is sent by a QP that must send nothing (SND-ERR-001).
fn after_failure(arrivals: &Arrivals, local: u32, at: u64, late_ns: u64) -> Option<Clause> {
    let t = arrivals.failed_at(local)?;
    if at <= t.saturating_add(late_ns) {
        return None;
    }
    Some(if arrivals.reached(local, t, at) { RCV_QP_002 } else { SND_ERR_001 })
}

/// Judges every SACK the device sent, and its progress against the expected SACKs.
pub(super) fn judge(run: Run<'_, '_>, div: &mut Vec<Divergence>, checked: &mut usize) {
    let Run { scenario, arrivals, exp_frames, obs_frames, tol, .. } = run;
    let peer_of = super::peer_map(scenario);
    let mpr = scenario.manifest.nic.mpr;
    let window = u32::from(mpr) * 128;
    let never_placed = |local: u32, psn: u32, after: u64| never_placed(run, local, psn, after);
    for of in obs_frames {
        let Kind::Sack { qp, .. } = of.kind else { continue };
        let Some(&local) = peer_of.get(&qp) else { continue };
        if let Some(rule) = after_failure(arrivals, local, of.at, tol.late_ns) {
            let what = format!("a SACK of QP {local}, which the scenario has in the error state");
            push(div, of, rule, what);
            continue;
        }
        judge_one(arrivals, local, mpr, window, of, tol, &never_placed, div);
    }

    // Timely cumulative progress.
    for (rec, ef) in exp_frames {
        let Kind::Sack { qp, cack, .. } = ef.kind else { continue };
        *checked += 1;
        let deadline = rec.at.0.saturating_add(tol.late_ns);
        let best = obs_frames
            .iter()
            .filter(|f| f.at <= deadline)
            .filter_map(|f| match f.kind {
                Kind::Sack { qp: q, cack: c, .. } if q == qp => Some(c),
                _ => None,
            })
            .max_by_key(|&c| psn_diff(c, cack));
        if best.is_none_or(|c| psn_diff(c, cack) < 0) {
            // A SACK sent in time whose cack_psn stops short of a PSN it had received
            // next: its cumulative part is wrong (SETH-CACK-001.b), it is not missing. A
            // PSN received at the SACK's own instant counts only when the SACK answers it
            // or a later one: one that answers an earlier PSN may come before it.
            let local = peer_of.get(&qp).copied();
            let stops_short = obs_frames.iter().any(|f| match f.kind {
                Kind::Sack { qp: q, cack: c, .. } if q == qp && f.at <= deadline => {
                    let next = c.wrapping_add(1) & 0xFF_FFFF;
                    let answers = |p: u32| {
                        f.d.ext.seth.is_some_and(|s| psn_diff(s.ack_psn().value(), p) >= 0)
                    };
                    psn_diff(c, cack) < 0
                        && local
                            .and_then(|l| arrivals.accepted_at(l, next))
                            .is_some_and(|t| t < f.at || (t == f.at && answers(next)))
                }
                _ => false,
            });
            // The write that makes the progress lay where only a shared table of 4096
            // entries holds its MSN: the device's table holds fewer, and discarded it.
            let far = local.is_some_and(|l| arrivals.shared_far(l, cack));
            let rule = if stops_short {
                SETH_CACK_001_B
            } else if far {
                RET_CAP_001
            } else {
                named_due(run, rec.at.0, qp)
            };
            div.push(Divergence {
                expected: Some(render_frame(ef.bytes)),
                actual: best.map(|c| format!("best cumulative PSN reported in time: {c}")),
                ..Divergence::named(
                    rec.at.0,
                    rule,
                    format!("no SACK reported cumulative progress to PSN {cack} by {deadline} ns"),
                )
            });
            continue;
        }
        // CONF-CMP-136: a SACK that one write made due at once follows one latency, so
        // its progress comes by half of late_ns after its expected time.
        if let Some(half) = one_latency(run, rec.at.0, qp) {
            let best = best_cack(obs_frames, qp, half, cack);
            if best.is_none_or(|c| psn_diff(c, cack) < 0) {
                div.push(Divergence {
                    expected: Some(render_frame(ef.bytes)),
                    actual: best.map(|c| format!("best cumulative PSN reported in time: {c}")),
                    ..Divergence::named(
                        rec.at.0,
                        named_due(run, rec.at.0, qp),
                        format!(
                            "no SACK reported cumulative progress to PSN {cack} by {half} ns, \
                             half of late_ns after the write that made it due"
                        ),
                    )
                });
                continue;
            }
        }
        // A SACK due with no new cumulative progress (a write behind a hole) reports what
        // arrived in its bitmap: when the device sent no SACK of the QP from the expected
        // time to the deadline, each PSN claimed there must have been claimed in time. A
        // SACK sent then that claims less is judged on its contents (`judge_one`).
        let answered = obs_frames.iter().any(|f| {
            (rec.at.0..=deadline).contains(&f.at)
                && matches!(f.kind, Kind::Sack { qp: q, .. } if q == qp)
        });
        // Its time is the deadline, when the SACK is known to be missing: a divergence of
        // the expected time (a write not placed, which no SACK then claims) goes first.
        if let Some(psn) = unclaimed(ef, obs_frames, qp, deadline).filter(|_| !answered) {
            div.push(Divergence {
                expected: Some(render_frame(ef.bytes)),
                ..Divergence::named(
                    deadline,
                    named_due(run, rec.at.0, qp),
                    format!("no SACK reported PSN {psn}, received behind a hole, by {deadline} ns"),
                )
            });
        }
    }
    judge_probe_answers(run, div, checked);
    judge_duplicate_answers(run, div, checked);
}

/// The greatest `cack_psn`, nearest after `cack`, of the SACKs on wire QP `qp` sent by
/// `deadline`.
fn best_cack(obs_frames: &[Frame<'_>], qp: u32, deadline: u64, cack: u32) -> Option<u32> {
    obs_frames
        .iter()
        .filter(|f| f.at <= deadline)
        .filter_map(|f| match f.kind {
            Kind::Sack { qp: q, cack: c, .. } if q == qp => Some(c),
            _ => None,
        })
        .max_by_key(|&c| psn_diff(c, cack))
}

/// The deadline of the progress of a SACK due at `at` on wire QP `qp` that follows one
/// latency (CONF-CMP-136): when a write of the QP made it due at once (RCV-SACK-001.a to
/// .d, RCV-SACK-002), `at` plus half of `late_ns`. None for a SACK of the timer
/// (RCV-SACK-004.b), whose expiry the device may reach late too, and for one no write
/// made due.
fn one_latency(run: Run<'_, '_>, at: u64, qp: u32) -> Option<u64> {
    let causes = due_causes(run.scenario, run.injects, at, qp);
    let at_once = causes.iter().any(|&(c, _)| {
        [RCV_SACK_001_A, RCV_SACK_001_B, RCV_SACK_001_C, RCV_SACK_001_D, RCV_SACK_002].contains(&c)
    });
    let timer = causes.iter().any(|&(c, _)| c == RCV_SACK_004_B);
    let local = super::peer_map(run.scenario).get(&qp).copied();
    let some_trigger = run.injects.iter().any(|i| {
        i.at() <= at
            && i.frame.as_ref().is_some_and(|d| {
                d.discard_reason().is_none()
                    && d.bth.is_some_and(|b| {
                        Some(b.dest_qp.value()) == local && b.opcode.is_mrc_write()
                    })
            })
    });
    (at_once && !timer && some_trigger).then(|| at.saturating_add(run.tol.late_ns / 2))
}

/// When the scenario answers the duplicate at `at` on wire QP `qp` with a transport ACK
/// too, the device must send an ACK of the QP after its SACK that answers the duplicate,
/// `obs_frames[sack]`, by `deadline` (RCV-DUP-002). An ACK before that SACK does not count
/// against it: a device may repeat an ACK at any time (CONF-CMP-037). Only a device whose
/// ACKs of the window all come before the SACK put them in the wrong order.
fn ack_after_sack(
    exp_frames: &[(&Record, Frame<'_>)],
    obs_frames: &[Frame<'_>],
    (at, deadline): (u64, u64),
    qp: u32,
    sack: usize,
    div: &mut Vec<Divergence>,
) {
    let is_ack = |f: &Frame<'_>| matches!(f.kind, Kind::Ack { qp: q, syndrome, .. } if q == qp && syndrome & 0x60 == 0);
    if !exp_frames.iter().any(|(r, f)| r.at.0 == at && is_ack(f)) {
        return;
    }
    let in_window = |f: &Frame<'_>| (at..=deadline).contains(&f.at) && is_ack(f);
    if obs_frames[sack + 1..].iter().any(in_window) {
        return;
    }
    let Some(i) = obs_frames[..sack].iter().position(in_window) else { return };
    div.push(Divergence {
        actual: Some(render_frame(obs_frames[i].bytes)),
        ..Divergence::named(
            obs_frames[i].at,
            RCV_DUP_002,
            "the transport ACK that answers a duplicate came before its SACK".into(),
        )
    });
}

/// Every duplicate that an expected SACK answers must be answered by one of the device's
/// (CONF-CMP-055): a SACK on that QP with `pr` 0 whose triggering PSN is the duplicate's,
/// sent from the duplicate's arrival to the expected time plus the tolerance
/// (RCV-DUP-001.b). Such a SACK reports no progress, so the progress rule alone cannot
/// miss it; the number of other SACKs stays the device's choice (CONF-CMP-007.b). A
/// duplicate too far from `cack_psn` for 16 bits is answered by the clamped offset
/// (SETH-ACKPSN-003.b).
fn judge_duplicate_answers(run: Run<'_, '_>, div: &mut Vec<Divergence>, checked: &mut usize) {
    let Run { scenario, arrivals, exp_frames, obs_frames, tol, .. } = run;
    let peer_of = super::peer_map(scenario);
    let answers = |f: &Frame<'_>, qp: u32, psn: u32| match (&f.kind, f.d.ext.seth) {
        (&Kind::Sack { qp: q, cack, .. }, Some(s)) if q == qp && !s.pr => {
            let off = i32::from(s.ack_psn_offset);
            cack.wrapping_add_signed(off) & 0xFF_FFFF == psn
                || (off == -32768 && psn_diff(psn, cack) < -32768)
        }
        _ => false,
    };
    for (rec, ef) in exp_frames {
        let Kind::Sack { qp, .. } = ef.kind else { continue };
        if ef.d.ext.seth.is_none_or(|s| s.pr) {
            continue;
        }
        let Some(&local) = peer_of.get(&qp) else { continue };
        let deadline = rec.at.0.saturating_add(tol.late_ns);
        for psn in arrivals.duplicates_at(local, rec.at.0) {
            *checked += 1;
            let window = rec.at.0..=deadline;
            let sack =
                obs_frames.iter().position(|f| window.contains(&f.at) && answers(f, qp, psn));
            if let Some(i) = sack {
                ack_after_sack(exp_frames, obs_frames, (rec.at.0, deadline), qp, i, div);
                reflects_duplicate(run, (rec.at.0, deadline), (qp, local, psn), div);
                continue;
            }
            // No SACK of the QP at all from the duplicate's arrival on: none was sent at
            // once (RCV-SACK-001.e), rather than one with another trigger.
            let rule = if silent(obs_frames, qp, rec.at.0, deadline) {
                RCV_SACK_001_E
            } else {
                RCV_DUP_001_B
            };
            div.push(Divergence {
                expected: Some(render_frame(ef.bytes)),
                ..Divergence::named(
                    deadline,
                    rule,
                    format!("no SACK answered the duplicate of PSN {psn} by {deadline} ns"),
                )
            });
        }
    }
}

/// The SACK that answers the duplicate of `psn` that came at `at` to the device's QP
/// `local` (wire QP `qp`) reflects that copy's EV (CONF-CMP-137, SETH-EV-001): among the
/// SACKs of the QP from `at` to `deadline` that name `psn`, one carries the duplicate's
/// EV in `entropy`. A SACK that names `psn` with the EV of an earlier copy answers that
/// copy, not the duplicate. Copies on one EV are not told apart.
fn reflects_duplicate(
    run: Run<'_, '_>,
    (at, deadline): (u64, u64),
    (qp, local, psn): (u32, u32, u32),
    div: &mut Vec<Divergence>,
) {
    let Run { arrivals, obs_frames, .. } = run;
    let Some(copies) = arrivals.writes.get(&(local, psn)) else { return };
    let Some(dup) = copies.iter().find(|c| c.at == at && c.status == Status::Duplicate) else {
        return;
    };
    let names = |f: &Frame<'_>| match (&f.kind, f.d.ext.seth) {
        (&Kind::Sack { qp: q, cack, .. }, Some(s)) if q == qp && !s.pr => {
            (cack.wrapping_add_signed(i32::from(s.ack_psn_offset)) & 0xFF_FFFF == psn)
                .then_some(s.entropy)
        }
        _ => None,
    };
    let in_window: Vec<(&Frame<'_>, Ev)> = obs_frames
        .iter()
        .filter(|f| (at..=deadline).contains(&f.at))
        .filter_map(|f| Some((f, names(f)?)))
        .collect();
    if in_window.is_empty() || in_window.iter().any(|&(_, ev)| ev == dup.ev) {
        return;
    }
    let (f, ev) = in_window[0];
    push_field(
        div,
        f,
        ev_requirement(dup.carrier, dup.ev, ev, SETH_EV_001),
        "seth.entropy",
        format!("{:#x}", dup.ev),
        format!("{ev:#x}"),
    );
}

/// Every SACK the device sent carries `m` NONE (RCV-SACK-006.c), and `r_c` and
/// `rcv_cwnd_pen` 0 in its CC_STATE (RCV-SACK-007): judged of a device without a marking
/// policy of its own, one that does not claim `sack-marking`. Such a responder detects no
/// congestion, so it runs no congestion control that could set them (receiver decision
/// 14). The reserved value 3 of `m` is a wire rule, judged for every frame (SETH-M-001.a).
pub(super) fn judge_marks(
    obs_frames: &[Frame<'_>],
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
    for of in obs_frames {
        let Some(s) = of.d.ext.seth.filter(|_| matches!(of.kind, Kind::Sack { .. })) else {
            continue;
        };
        *checked += 1;
        if s.m.0 != 0 && s.m.0 != 3 {
            push_field(div, of, RCV_SACK_006_C, "seth.m", "0".into(), s.m.0.to_string());
        }
        let Some(c) = of.d.ext.cc_state else { continue };
        if c.r_c {
            push_field(div, of, RCV_SACK_007, "cc_state.r_c", "0".into(), "1".into());
        }
        if c.rcv_cwnd_pen != 0 {
            let got = c.rcv_cwnd_pen.to_string();
            push_field(div, of, RCV_SACK_007, "cc_state.rcv_cwnd_pen", "0".into(), got);
        }
    }
}

/// The first PSN the bitmap of the expected SACK `ef` claims that no SACK the device sent
/// on the wire QP `qp` by `deadline` claims, cumulatively or in its bitmap.
fn unclaimed(ef: &Frame<'_>, obs_frames: &[Frame<'_>], qp: u32, deadline: u64) -> Option<u32> {
    let Kind::Sack { base, bitmap, .. } = ef.kind else { return None };
    let claims = |f: &Frame<'_>, psn: u32| match f.kind {
        Kind::Sack { qp: q, cack, base, bitmap } if q == qp => {
            let bit = psn_diff(psn, base);
            claimed_by_cack(cack, psn) || ((0..64).contains(&bit) && bitmap >> bit & 1 == 1)
        }
        _ => false,
    };
    (0..64u32)
        .filter(|i| bitmap >> i & 1 == 1)
        .map(|i| base.wrapping_add(i) & 0xFF_FFFF)
        .find(|&psn| !obs_frames.iter().any(|f| f.at <= deadline && claims(f, psn)))
}

/// Every probe answer the scenario expects must come (CONF-CMP-025): a SACK on that QP
/// with `pr` 1 and the probe's `probe_id` in `ack_psn_offset`, by the expected time plus
/// the tolerance (PETH-RESP-001). A SACK with `pr` 0, however complete, answers no probe.
/// When the probe carried a value a receiver must take ([`super::arrivals::accept_clause`]:
/// another `ftype`, PDC identifiers, `rtx`, a reserved field set) and the device answered a
/// probe without one, the missing answer is named by that rule: the device did not take
/// the probe.
fn judge_probe_answers(run: Run<'_, '_>, div: &mut Vec<Divergence>, checked: &mut usize) {
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
    let local = *super::peer_map(scenario).get(&qp)?;
    // The latest such probe.
    let mut probe = injects.iter().rev().filter(|i| i.at() <= at).filter_map(|i| i.frame.as_ref());
    let probe = probe.find(|d| {
        d.bth.is_some_and(|b| b.dest_qp.value() == local)
            && d.ext.peth.is_some_and(|p| p.probe_id == id)
    })?;
    super::arrivals::accept_clause(probe)
}

/// When a cause of a missing SACK ([`due_causes`]) holds of what the device did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Due {
    /// Whatever the device did.
    Always,
    /// The device's first SACK of the QP after the expected time went `sack_delay` after
    /// the last of a run of writes that each came less than `sack_delay` after the one
    /// before, from the timer's start on: each of them started the running timer again.
    Restarted,
    /// The device sent, at the arrival of a write of the QP that needed no SACK at once, a
    /// SACK that the scenario does not expect, when fewer than `sack_coalesce` writes had
    /// come since its previous SACK and exactly `sack_coalesce` since the one before that:
    /// its previous SACK left the count of writes to acknowledge as it was.
    CountKept,
    /// The device sent no SACK of the QP at all from the trigger's arrival, at the given
    /// time, to the deadline: it sent none at once (RCV-SACK-001.e, .f), not a wrong one.
    Silent(u64),
}

/// The cause table of a SACK due at `at` on the QP whose peer is `qp` (the wire QP): every
/// rule its absence can be named by, each with when it applies, in the order the judge
/// tries them; the last applies always. The record's list of requirements is not
/// consulted.
///
/// What made the SACK due is its triggering packet, the latest the scenario injects into
/// the QP by then: the timer (RCV-SACK-004.b) when it came half of `sack_delay` or more
/// before (a SACK due at once leaves with its trigger); a duplicate (RCV-SACK-001.e) or a
/// probe (RCV-SACK-001.f) when the device sent no SACK of the QP at all from its arrival to
/// the deadline, else the rule of the answer it sent short (RCV-DUP-001.b, EV-PROBE-004);
/// a write with `ack_req` (RCV-SACK-001.a), one whose PSN was after
/// `epsn` on arrival (.b), one that advanced `epsn` by more than one (.c) or one with
/// `rtx` (.d); otherwise the coalescing count (RCV-SACK-002). `epsn` is rebuilt from the
/// QP's first expected PSN and the writes injected, frames to discard left out. A write
/// stamped lower than an earlier write of its QP (its requester's clock wrapped or went
/// back) is named first by the rule that a responder does not interpret the stamp
/// (TSETH-TS-001.a): nothing else sets it apart.
///
/// A SACK due by the timer whose QP took a write while the timer ran is named by the
/// timer's start (RCV-SACK-004.a) when the device's SACK shows the timer restarted by
/// that write ([`Due::Restarted`]): a timer restarted and a timer that never fires both
/// miss the expected SACK, and only the time of the late one tells them apart.
///
/// `injects` are the records the scenario injects, decoded.
pub(super) fn due_causes(
    scenario: &Scenario,
    injects: &[Injected<'_>],
    at: u64,
    qp: u32,
) -> Vec<(Clause, Due)> {
    let Some(&local) = super::peer_map(scenario).get(&qp) else {
        return vec![(RCV_SACK_001_A, Due::Always)];
    };
    let mut epsn = super::created_qp(scenario, local).map(|q| q.peer_initial_psn.value());
    let mut received: std::collections::BTreeSet<u32> = std::collections::BTreeSet::new();
    let mut trigger = None;
    let mut writes: Vec<u64> = Vec::new();
    // Writes counted for RCV-SACK-002 since the last SACK due at once, and whether a SACK
    // due at once reset a count that was not 0 (RCV-SACK-008.a shows).
    let (mut counted, mut reset) = (0u32, false);
    // The highest TSETH stamp the QP's writes carried, and whether the trigger's was lower:
    // a responder that orders writes by their stamps (TSETH-TS-001.a) drops it.
    let (mut highest, mut stale) = (0u16, false);
    for (r, d) in injects.iter().filter_map(|i| Some((i.rec, i.frame.as_ref()?))) {
        if r.at.0 > at {
            continue;
        }
        if d.discard_reason().is_some() {
            continue;
        }
        let Some(bth) = d.bth.filter(|b| b.dest_qp.value() == local) else { continue };
        let psn = bth.psn.value();
        if d.ext.peth.is_some() {
            stale = false;
            trigger = Some((r.at.0, RCV_SACK_001_F));
            reset |= counted > 0;
            counted = 0;
            continue;
        }
        if !bth.opcode.is_mrc_write() {
            continue;
        }
        writes.push(r.at.0);
        let stamp = d.ext.tseth.map_or(0, |t| t.tx_timestamp);
        stale = stamp != 0 && stamp < highest;
        highest = highest.max(stamp);
        let next = *epsn.get_or_insert(psn);
        let dup = received.contains(&psn) || Psn::new(psn).is_before(Psn::new(next));
        if dup {
            stale = false;
            trigger = Some((r.at.0, RCV_SACK_001_E));
            reset |= counted > 0;
            counted = 0;
            continue;
        }
        received.insert(psn);
        let mut advanced = next;
        while received.remove(&advanced) {
            advanced = advanced.wrapping_add(1) & 0xFF_FFFF;
        }
        epsn = Some(advanced);
        let hole = psn != next;
        let fill = !hole && advanced.wrapping_sub(next) & 0xFF_FFFF > 1;
        trigger = Some(if bth.ack_req {
            (r.at.0, RCV_SACK_001_A)
        } else if fill {
            (r.at.0, RCV_SACK_001_C)
        } else if hole {
            (r.at.0, RCV_SACK_001_B)
        } else if bth.rtx {
            (r.at.0, RCV_SACK_001_D)
        } else {
            (r.at.0, RCV_SACK_002)
        });
        if trigger.is_some_and(|(_, rule)| rule == RCV_SACK_002) {
            counted += 1;
        } else {
            reset |= counted > 0;
            counted = 0;
        }
    }
    let delay = sack_delay(scenario);
    match trigger {
        None => vec![(RCV_SACK_001_A, Due::Always)],
        Some((t, _)) if at.saturating_sub(t).saturating_mul(2) >= delay => {
            // A write while the timer ran could have restarted it, and the restarted
            // timer's SACK, `sack_delay` after that write, is late when the write came
            // more than `late_ns` after the timer's start.
            let start = at.saturating_sub(delay);
            let late = scenario.manifest.tolerances.late_ns;
            let mut out = Vec::new();
            if writes.iter().any(|&w| w > start.saturating_add(late) && w < at) {
                out.push((RCV_SACK_004_A, Due::Restarted));
            }
            out.push((RCV_SACK_004_B, Due::Always));
            out
        }
        Some((_, RCV_SACK_002)) if reset => {
            vec![(RCV_SACK_008_A, Due::CountKept), (RCV_SACK_002, Due::Always)]
        }
        Some((_, rule)) if stale => vec![(TSETH_TS_001_A, Due::Always), (rule, Due::Always)],
        Some((t, rule)) => match answer_rule(rule) {
            // A duplicate or a probe with no SACK at all after it was not answered at once
            // (RCV-SACK-001.e, .f); one answered by a SACK short of it, wrongly.
            Some(wrong) => vec![(rule, Due::Silent(t)), (wrong, Due::Always)],
            None => vec![(rule, Due::Always)],
        },
    }
}

/// The rule of the answer's contents for a trigger that RCV-SACK-001 names only by the
/// kind of packet: a duplicate's SACK has it as its trigger (RCV-DUP-001.b), a probe's is
/// its answer (EV-PROBE-004).
fn answer_rule(rule: Clause) -> Option<Clause> {
    match rule {
        RCV_SACK_001_E => Some(RCV_DUP_001_B),
        RCV_SACK_001_F => Some(EV_PROBE_004),
        _ => None,
    }
}

fn sack_delay(scenario: &Scenario) -> u64 {
    u64::try_from(scenario.manifest.nic.sack_delay.as_nanos()).unwrap_or(u64::MAX)
}

/// The rule a SACK due at `at` on the wire QP `qp`, that the device did not send in time,
/// is named by: the first entry of its cause table ([`due_causes`]) that holds.
fn named_due(run: Run<'_, '_>, at: u64, qp: u32) -> Clause {
    due_causes(run.scenario, run.injects, at, qp)
        .into_iter()
        .find(|&(_, when)| match when {
            Due::Always => true,
            Due::Restarted => restarted(run, at, qp),
            Due::CountKept => count_kept(run, at, qp),
            Due::Silent(t) => silent(run.obs_frames, qp, t, at.saturating_add(run.tol.late_ns)),
        })
        .map_or(RCV_SACK_001_A, |c| c.0)
}

/// Whether the device sent no SACK on the wire QP `qp` from `from` to `to`.
fn silent(obs_frames: &[Frame<'_>], qp: u32, from: u64, to: u64) -> bool {
    !obs_frames.iter().any(|f| {
        (from..=to).contains(&f.at) && matches!(f.kind, Kind::Sack { qp: q, .. } if q == qp)
    })
}

/// Whether a SACK of the device on the wire QP `qp` before `at` shows that its previous
/// SACK left the count of writes to acknowledge as it was ([`Due::CountKept`]).
fn count_kept(run: Run<'_, '_>, at: u64, qp: u32) -> bool {
    let Run { scenario, exp_frames, obs_frames, injects, .. } = run;
    let Some(&local) = super::peer_map(scenario).get(&qp) else { return false };
    let coalesce = scenario.manifest.nic.sack_coalesce;
    // The writes of the QP that needed no SACK at once, and all the writes taken.
    let (mut quiet, mut taken): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
    for (r, d) in injects.iter().filter_map(|i| Some((i.rec, i.frame.as_ref()?))) {
        if r.at.0 >= at {
            continue;
        }
        if d.discard_reason().is_some() || d.ext.peth.is_some() {
            continue;
        }
        let Some(bth) = d.bth.filter(|b| b.dest_qp.value() == local && b.opcode.is_mrc_write())
        else {
            continue;
        };
        taken.push(r.at.0);
        if due_causes(scenario, injects, r.at.0, qp).last().is_some_and(|c| c.0 == RCV_SACK_002)
            && !bth.ack_req
        {
            quiet.push(r.at.0);
        }
    }
    let expected: Vec<u64> = exp_frames
        .iter()
        .filter(|(_, f)| f.d.ext.seth.is_some() && f.d.bth.is_some_and(|b| b.dest_qp.value() == qp))
        .map(|(r, _)| r.at.0)
        .collect();
    let sent: Vec<u64> = obs_frames
        .iter()
        .filter(|f| matches!(f.kind, Kind::Sack { qp: q, .. } if q == qp))
        .map(|f| f.at)
        .collect();
    let count = |from: u64, to: u64| -> u32 {
        let n = taken.iter().filter(|&&t| t > from && t <= to).count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    sent.iter().enumerate().any(|(k, &t)| {
        if t >= at || !quiet.contains(&t) || expected.contains(&t) || k == 0 {
            return false;
        }
        let before = sent[k - 1];
        let twice = if k >= 2 { sent[k - 2] } else { 0 };
        count(before, t) < coalesce && count(twice, t) == coalesce
    })
}

/// Whether the device's SACK timer on the wire QP `qp`, due to expire at `at`, was
/// started again by each write that came while it ran ([`Due::Restarted`]).
fn restarted(run: Run<'_, '_>, at: u64, qp: u32) -> bool {
    let Run { scenario, obs_frames, tol, injects, .. } = run;
    let delay = sack_delay(scenario);
    let Some(&local) = super::peer_map(scenario).get(&qp) else { return false };
    // The device's first SACK of the QP after the expected time.
    let Some(sent) = obs_frames
        .iter()
        .filter(|f| f.at > at && matches!(f.kind, Kind::Sack { qp: q, .. } if q == qp))
        .map(|f| f.at)
        .min()
    else {
        return false;
    };
    let start = at.saturating_sub(delay);
    // The writes of the QP from the timer's start to that SACK.
    let writes: Vec<u64> = injects
        .iter()
        .filter(|i| i.at() > start && i.at() < sent)
        .filter(|i| {
            i.frame.as_ref().is_some_and(|d| {
                d.discard_reason().is_none()
                    && d.ext.peth.is_none()
                    && d.bth.is_some_and(|b| b.dest_qp.value() == local && b.opcode.is_mrc_write())
            })
        })
        .map(|i| i.at())
        .collect();
    let Some(&last) = writes.last() else { return false };
    let mut before = start;
    for &w in &writes {
        if w.saturating_sub(before) >= delay {
            return false;
        }
        before = w;
    }
    (delay..=delay.saturating_add(tol.late_ns)).contains(&sent.saturating_sub(last))
}

/// The SACK `of`, sent by the device's QP `local`, judged on its own. A SACK found wrong
/// that one cause makes right is named by that cause, not by the rules its wrong values
/// seem to break: a `sack_offset` other than 1 over a bitmap built for 1 (RCV-SACK-005.c),
/// or a field of the SETH or CC_STATE sent with its bytes in the other order, named by
/// the header's layout rule ([`misordered`]).
#[allow(clippy::too_many_arguments)]
fn judge_one(
    arrivals: &Arrivals,
    local: u32,
    mpr: u8,
    window: u32,
    of: &Frame<'_>,
    tol: &Tolerances,
    never_placed: &NeverPlaced<'_>,
    div: &mut Vec<Divergence>,
) {
    let d = &of.d;
    let (Some(bth), Some(s)) = (d.bth, d.ext.seth) else { return };
    let sack = Sack { psn: bth.psn.value(), s, cc: d.ext.cc_state };
    let mut found = Vec::new();
    judge_fields(arrivals, local, mpr, window, of, sack, tol, never_placed, &mut found);
    if found.is_empty() {
        return;
    }
    let clean = |right: Sack| {
        let mut again = Vec::new();
        judge_fields(arrivals, local, mpr, window, of, right, tol, never_placed, &mut again);
        again.is_empty()
    };
    // A `sack_offset` other than 1 over a bitmap built for 1: the offset alone is wrong.
    if sack.s.sack_offset != 1 {
        let mut right = sack;
        right.s.sack_offset = 1;
        if clean(right) {
            let got = sack.s.sack_offset.to_string();
            push_field(div, of, RCV_SACK_005_C, "seth.sack_offset", "1".into(), got);
            return;
        }
    }
    match misordered(sack, clean) {
        Some((l, sent, right)) => div.push(Divergence {
            actual: Some(render_frame(of.bytes)),
            fields: vec![FieldDiff::new(l.field, right.to_string(), sent.to_string())],
            ..Divergence::named(
                of.at,
                l.rule,
                format!("SACK field {} is sent with its bytes in the other order", l.field),
            )
        }),
        None => div.extend(found),
    }
}

/// What a SACK says: its BTH `psn`, SETH and CC_STATE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sack {
    psn: u32,
    s: SethRepr,
    cc: Option<CcStateRepr>,
}

/// A field of the SETH or CC_STATE whose bytes a device can send in the other order,
/// with the layout rule of its header (tables 16 and 17 of `spec/wire-format.md`).
#[derive(Debug, Clone, Copy)]
struct SackLayout {
    field: &'static str,
    rule: Clause,
}

const SACK_LAYOUTS: &[SackLayout] = &[
    SackLayout { field: "seth.ack_psn_offset", rule: SETH_LAYOUT_001 },
    SackLayout { field: "seth.entropy", rule: SETH_LAYOUT_001 },
    SackLayout { field: "seth.cack_psn", rule: SETH_LAYOUT_001 },
    SackLayout { field: "seth.sack_offset", rule: SETH_LAYOUT_001 },
    SackLayout { field: "seth.sack_bitmap", rule: SETH_LAYOUT_001 },
    SackLayout { field: "cc_state.tx_timestamp", rule: CCS_LAYOUT_001 },
    SackLayout { field: "cc_state.ooo_count", rule: CCS_LAYOUT_001 },
    SackLayout { field: "cc_state.rcvd_bytes", rule: CCS_LAYOUT_001 },
];

/// `sack` with `field` read with its bytes in the other order, and the field's value as
/// sent and as read so; `None` when the SACK has no such field or the swap leaves it as
/// it is. `ooo_count` is swapped as the 16-bit word it shares with the reserved bit.
fn swapped(sack: Sack, field: &str) -> Option<(Sack, u64, u64)> {
    use super::fields::byte_swapped as sw;
    let mut out = sack;
    let (s, c) = (&mut out.s, &mut out.cc);
    let (sent, right) = match field {
        "seth.ack_psn_offset" => {
            let v = s.ack_psn_offset as u16;
            s.ack_psn_offset = v.swap_bytes() as i16;
            (u64::from(v), u64::from(v.swap_bytes()))
        }
        "seth.entropy" => {
            let v = s.entropy.value();
            s.entropy = Ev::new(v.swap_bytes());
            (u64::from(v), u64::from(v.swap_bytes()))
        }
        "seth.cack_psn" => {
            let v = u64::from(s.cack_psn.value());
            s.cack_psn = Psn::new(sw(v, 24) as u32);
            (v, sw(v, 24))
        }
        "seth.sack_offset" => {
            let v = s.sack_offset as u16;
            s.sack_offset = v.swap_bytes() as i16;
            (u64::from(v), u64::from(v.swap_bytes()))
        }
        "seth.sack_bitmap" => {
            let v = s.sack_bitmap;
            s.sack_bitmap = v.swap_bytes();
            (v, v.swap_bytes())
        }
        "cc_state.tx_timestamp" => {
            let c = c.as_mut()?;
            let v = c.tx_timestamp;
            c.tx_timestamp = v.swap_bytes();
            (u64::from(v), u64::from(v.swap_bytes()))
        }
        "cc_state.ooo_count" => {
            let c = c.as_mut()?;
            let word = u16::from(c.resv) << 15 | c.ooo_count;
            let back = word.swap_bytes();
            c.resv = back >> 15 == 1;
            c.ooo_count = back & 0x7FFF;
            (u64::from(word & 0x7FFF), u64::from(back & 0x7FFF))
        }
        "cc_state.rcvd_bytes" => {
            let c = c.as_mut()?;
            let v = u64::from(c.rcvd_bytes);
            c.rcvd_bytes = sw(v, 24) as u32;
            (v, sw(v, 24))
        }
        _ => return None,
    };
    (out != sack).then_some((out, sent, right))
}

/// The one field of the SETH or CC_STATE of a SACK found wrong that, read with its bytes
/// in the other order, makes the SACK right (`clean`): the header's encoder laid it out
/// wrong, its value right (SETH-LAYOUT-001, CCS-LAYOUT-001). With its layout row, the
/// value sent and the value meant.
fn misordered(sack: Sack, clean: impl Fn(Sack) -> bool) -> Option<(SackLayout, u64, u64)> {
    SACK_LAYOUTS.iter().find_map(|l| {
        let (right, sent, meant) = swapped(sack, l.field)?;
        clean(right).then_some((*l, sent, meant))
    })
}

/// Every rule of a SACK's fields, on what it says (`sack`), which may differ from the
/// frame `of` it was read from.
#[allow(clippy::too_many_arguments)]
fn judge_fields(
    arrivals: &Arrivals,
    local: u32,
    mpr: u8,
    window: u32,
    of: &Frame<'_>,
    sack: Sack,
    tol: &Tolerances,
    never_placed: &NeverPlaced<'_>,
    div: &mut Vec<Divergence>,
) {
    let s = sack.s;
    let one = One { arrivals, local, of, s, tol, never_placed };
    one.fixed_fields(mpr, div);
    one.truth(div);
    one.completeness(div);
    // The BTH PSN, after what the SETH says: a wrong cack_psn shows there first.
    let cack = s.cack_psn.value();
    if sack.psn != cack {
        let (want, got) = (cack.to_string(), sack.psn.to_string());
        // The right PSN with its bytes in the other order is the BTH laid out wrong.
        let swapped = super::fields::byte_swapped(cack.into(), 24) == u64::from(sack.psn);
        let rule = if swapped { BTH_LAYOUT_001 } else { RCV_SACK_005_I };
        push_field(div, of, rule, "bth.psn", want, got);
    }
    let Some((trigger_ev, trigger_ts, carrier)) = one.trigger(div) else { return };
    one.reflection(trigger_ev, carrier, div);
    if let Some(c) = sack.cc {
        one.counters(&c, trigger_ts, window, div);
    }
}

/// Whether device QP `local` has a copy of PSN `psn` that arrived after `after` and that
/// the scenario has it place, and no DMA write of the device touches that copy's bytes:
/// the device took the copy for a duplicate (RCV-WIN-003, CONF-CMP-126). `None` when no
/// such copy arrived, or it carries no byte.
type NeverPlaced<'f> = dyn Fn(u32, u32, u64) -> Option<u64> + 'f;

fn never_placed(run: Run<'_, '_>, local: u32, psn: u32, after: u64) -> Option<u64> {
    let copy = run
        .arrivals
        .writes
        .get(&(local, psn))?
        .iter()
        .find(|c| c.at > after && c.status == Status::Accepted && c.bytes > 0)?;
    let write = run.injects.iter().filter(|i| i.at() == copy.at).find_map(|i| {
        let w = super::receive::Write::of(i.frame.as_ref()?)?;
        (w.qp() == local && w.psn().value() == psn).then_some(w)
    })?;
    let (lo, hi) = write.range();
    let touched = run.obs_events.iter().any(|(_, e)| match e {
        NicEvent::DmaWrite(w) => {
            let end = w.va.saturating_add(u64::from(w.payload.len()));
            w.qpn.value() == local && w.va < hi && lo < end
        }
        _ => false,
    });
    (!touched).then_some(copy.at)
}

fn range(lo: u64, hi: u64) -> String {
    if lo == hi { lo.to_string() } else { format!("{lo} ..= {hi}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each field of the layout list reads back to itself when swapped twice, changes when
    /// swapped once, and the misordered field is the one that makes the SACK right.
    #[test]
    fn a_swapped_field_is_found_by_swapping_it_back() {
        let s = SethRepr {
            ack_psn_offset: 7,
            entropy: Ev::new(0x1234_ABCD),
            cack_psn: Psn::new(4),
            sack_offset: 1,
            sack_bitmap: 0x76,
            mpr: 2,
            ..SethRepr::default()
        };
        let cc = CcStateRepr {
            tx_timestamp: 0xBEEF,
            ooo_count: 5,
            rcvd_bytes: 12,
            ..CcStateRepr::default()
        };
        let right = Sack { psn: 4, s, cc: Some(cc) };
        for l in SACK_LAYOUTS {
            let (once, sent, meant) = swapped(right, l.field).expect(l.field);
            assert_ne!(once, right, "{}", l.field);
            assert_ne!(sent, meant, "{}", l.field);
            let (twice, ..) = swapped(once, l.field).expect(l.field);
            assert_eq!(twice, right, "{}", l.field);
            let found = misordered(once, |x| x == right).map(|(l, ..)| l.field);
            assert_eq!(found, Some(l.field));
        }
        assert!(misordered(right, |x| x == right).is_none());
    }
}
