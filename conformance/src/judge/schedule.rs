//! Order within a QP's output: the priorities of sender section 4.4 (`CONF-CMP-029`) and a
//! timestamp clock that runs forward (`CONF-CMP-036`).
//!
//! Data packets and probes are matched by key, each within a time window, so a device that
//! sends the right packets in the wrong order would pass the matching. Where the
//! specification fixes the order — a probe before a resend before a retransmission before a
//! new packet (`SND-SCHED-001`), retransmissions in queue order (`SND-SCHED-003`), new
//! packets in PSN order (`SND-ORDER-001`) — the scoreboard holds the device to the order of
//! the expected records that the reference sent together: at one time, in answer to one
//! input (no inject record between them), when the device too sent them at one time. A
//! device that sends them at different times did not have them all to choose from at once,
//! and its order tells nothing.

use std::collections::{HashMap, HashSet, VecDeque};

use openrdma_codec::NackReason;
use openrdma_device::{CpuCommand, Direction, HostCommand, Input, Record, Scenario};

use super::obs::In;

use super::{Divergence, Frame, Kind, render_frame};
use crate::req::*;
use crate::timeline::started_by_commands;

/// The requirement that fixes the order of two packets of one QP, `second` sent first:
/// of two first transmissions, the first packet of a message sent before a packet of an
/// earlier message breaks SND-ORDER-001.b; any other pair, SND-ORDER-001.a.
pub(super) fn order_requirement(first: &Frame<'_>, second: &Frame<'_>) -> Clause {
    let msn = |f: &Frame<'_>| f.d.ext.meth.map(|m| m.msn);
    let starts = |f: &Frame<'_>| f.d.bth.is_some_and(|b| b.opcode.is_first());
    match (&first.kind, &second.kind) {
        (Kind::Data { rtx: false, .. }, Kind::Data { rtx: false, .. })
            if starts(second) && msn(first) != msn(second) =>
        {
            SND_ORDER_001_B
        }
        (Kind::Data { rtx: false, .. }, Kind::Data { rtx: false, .. }) => SND_ORDER_001_A,
        (Kind::Data { rtx: true, .. }, Kind::Data { rtx: true, .. }) => SND_SCHED_003_A,
        _ => SND_SCHED_001,
    }
}

/// The QP a keyed packet belongs to.
fn qp_of(k: &Kind) -> Option<u32> {
    match *k {
        Kind::Data { qp, .. } | Kind::Probe { qp } => Some(qp),
        _ => None,
    }
}

/// Expected data packets and probes of one QP recorded together must come in their
/// recorded order when the device sends them at one time (`CONF-CMP-029`); first
/// transmissions of one QP sent at one time keep their recorded order across records
/// too, so that a later message's packet sent before an earlier message's shows
/// (`SND-ORDER-001.a`). An output that a command of the runner's CPU half started answers
/// that command, an input of its own: it starts a group (CONF-CMP-111), as two commands
/// that the recording gave apart may come at one time in the run, in either order.
pub(super) fn judge_order(
    scenario: &Scenario,
    inputs: &[In<'_>],
    exp: &[(&Record, Frame<'_>)],
    obs: &[Frame<'_>],
    matches: &[(usize, usize)],
    div: &mut Vec<Divergence>,
) {
    let started = started_by_commands(scenario, inputs.iter().map(|i| (i.at, i.input)));
    // The group of every expect record: a new one at each inject record, each new time and
    // each commanded output.
    let mut group_of: HashMap<*const Record, usize> = HashMap::new();
    let (mut group, mut last_at) = (0usize, None);
    for (r, &started) in scenario.records.iter().zip(&started) {
        if r.dir == Direction::Inject || last_at != Some(r.at) || started {
            group += 1;
        }
        last_at = Some(r.at);
        if r.dir == Direction::Expect {
            group_of.insert(r as *const Record, group);
        }
    }
    // Matched keyed packets per (group, QP), in record order.
    let mut groups: HashMap<(usize, u32), Vec<(usize, usize)>> = HashMap::new();
    for &(e, o) in matches {
        let (rec, ef) = (&exp[e].0, &exp[e].1);
        let (Some(qp), Some(&g)) = (qp_of(&ef.kind), group_of.get(&(*rec as *const Record))) else {
            continue;
        };
        groups.entry((g, qp)).or_default().push((e, o));
    }
    let mut keys: Vec<(usize, u32)> = groups.keys().copied().collect();
    keys.sort_unstable();
    for key in keys {
        let members = &groups[&key];
        'group: for (i, &(ea, oa)) in members.iter().enumerate() {
            for &(eb, ob) in &members[i + 1..] {
                // `a` is recorded before `b`; the device sent `b` first, at the same time.
                if ob > oa || obs[oa].at != obs[ob].at {
                    continue;
                }
                let (ka, kb) = (&exp[ea].1.kind, &exp[eb].1.kind);
                // The choice of a data packet may be what queued the probe after it
                // (SND-SPRAY-009): a probe may come first.
                if matches!(ka, Kind::Data { .. }) && matches!(kb, Kind::Probe { .. }) {
                    continue;
                }
                div.push(Divergence {
                    expected: Some(render_frame(exp[eb].1.bytes)),
                    actual: Some(render_frame(obs[ob].bytes)),
                    ..Divergence::named(
                        obs[ob].at,
                        order_requirement(&exp[ea].1, &exp[eb].1),
                        format!(
                            "sent before a packet of the same QP that the scenario expects before \
                         it, at the same time ({})",
                            render_frame(exp[ea].1.bytes)
                        ),
                    )
                });
                break 'group;
            }
        }
    }
    // First transmissions of one QP keep PSN order across groups too (SND-ORDER-001,
    // named as within a group): of two messages sent at one time, no packet of the later
    // goes before one of the earlier.
    let mut firsts: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
    for &(e, o) in matches {
        if let Kind::Data { qp, rtx: false, .. } = exp[e].1.kind {
            firsts.entry(qp).or_default().push((e, o));
        }
    }
    let group = |e: usize| group_of.get(&(exp[e].0 as *const Record)).copied();
    let mut qps: Vec<u32> = firsts.keys().copied().collect();
    qps.sort_unstable();
    for qp in qps {
        let mut members = firsts[&qp].clone();
        members.sort_unstable();
        'qp: for (i, &(ea, oa)) in members.iter().enumerate() {
            for &(eb, ob) in &members[i + 1..] {
                if ob > oa || obs[oa].at != obs[ob].at || group(ea) == group(eb) {
                    continue;
                }
                div.push(Divergence { expected: Some(render_frame(exp[eb].1.bytes)), actual: Some(render_frame(obs[ob].bytes)), ..Divergence::named(obs[ob].at, order_requirement(&exp[ea].1, &exp[eb].1), format!(
                        "a packet of a later message sent before a packet of an earlier message \
                         of the same QP, at the same time ({})",
                        render_frame(exp[ea].1.bytes)
                    )) });
                break 'qp;
            }
        }
    }
}

/// A probe the CPU half commands goes before any data packet of its QP (`REC-IF-011`): of
/// an expected probe that a `Probe` command of its QP asked for, within `late_ns` before
/// it, no data packet of the QP that the scenario expects after the probe may come before
/// it once the device has acted on the command. The reference sent the probe first; a
/// device that sends such a packet first let data pass the probe.
///
/// A device may act on the command up to `late_ns / 2` after it came (`CONF-TIME-004`),
/// and a data packet it sends before then may have gone before it had the command. So a
/// data packet that passes the probe is judged only when the device surely had the
/// command: it sent the packet more than `late_ns / 2` after the command, or at the very
/// time of the probe, when it had both to choose from (`CONF-CMP-049`). A retransmission
/// that a `Retransmit` command given before the `Probe` asked for answers that earlier
/// command, and may go first (`CONF-CMP-111`).
pub(super) fn judge_commanded_probes(
    scenario: &Scenario,
    inputs: &[In<'_>],
    exp: &[(&Record, Frame<'_>)],
    obs: &[Frame<'_>],
    matches: &[(usize, usize)],
    div: &mut Vec<Divergence>,
) {
    let late = scenario.manifest.tolerances.late_ns;
    let lag = late / 2;
    let local_of = super::peer_map(scenario);
    for &(ep, op) in matches {
        let Kind::Probe { qp } = exp[ep].1.kind else { continue };
        let Some(&local) = local_of.get(&qp) else { continue };
        let due = exp[ep].0.at.0;
        let position = inputs.iter().position(|i| {
            i.at <= due
                && i.at.saturating_add(late) >= due
                && matches!(i.input, Input::Cpu { command: CpuCommand::Probe { qpn, .. } }
                    if qpn.value() == local)
        });
        let Some(position) = position else { continue };
        let command = &inputs[position];
        // A retransmission an earlier command asked for, no sooner than that command.
        let asked_before = |psn: u32, at: u64| {
            inputs[..position].iter().any(|i| {
                i.at <= at
                    && matches!(i.input, Input::Cpu { command: CpuCommand::Retransmit { qpn, psn: p } }
                        if qpn.value() == local && p.value() == psn)
            })
        };
        let passed = matches.iter().find(|&&(ed, od)| {
            ed > ep
                && od < op
                && obs[od].at >= command.at
                && (obs[od].at == obs[op].at || obs[od].at > command.at.saturating_add(lag))
                && match exp[ed].1.kind {
                    Kind::Data { qp: q, psn, rtx } => {
                        q == qp && !(rtx && asked_before(psn, obs[od].at))
                    }
                    _ => false,
                }
        });
        let Some(&(ed, od)) = passed else { continue };
        div.push(Divergence {
            expected: Some(render_frame(exp[ed].1.bytes)),
            actual: Some(render_frame(obs[od].bytes)),
            ..Divergence::of(
                obs[od].at,
                crate::req::REC_IF_011,
                format!(
                    "sent before the probe the CPU half commanded at {} ns, which the scenario \
                     expects first ({})",
                    command.at,
                    render_frame(exp[ep].1.bytes)
                ),
            )
        });
    }
}

/// A probe the CPU half commands goes on the EV the command names (`EV-PROBE-005.b`), in
/// every scenario, not only in those that judge a spray policy (`CONF-CMP-106`): when the
/// scenario expects a probe of the QP on that EV at or after a `Probe` command, and the
/// device sent probes of the QP from then on but none on that EV, the first of them is
/// reported. A device may act on the command late and send other probes first (a tail
/// probe, a policy's probe), so any probe of the QP on the EV, at any later time, answers
/// the command.
pub(super) fn judge_commanded_probe_evs(
    scenario: &Scenario,
    inputs: &[In<'_>],
    exp: &[(&Record, Frame<'_>)],
    obs: &[Frame<'_>],
    div: &mut Vec<Divergence>,
) {
    let local_of = super::peer_map(scenario);
    let of_qp = |f: &Frame<'_>, local: u32| match f.kind {
        Kind::Probe { qp } => local_of.get(&qp) == Some(&local),
        _ => false,
    };
    for i in inputs {
        let Input::Cpu { command: CpuCommand::Probe { qpn, ev } } = i.input else { continue };
        let (local, ev) = (qpn.value(), *ev);
        let expected = exp.iter().any(|(r, f)| r.at.0 >= i.at && of_qp(f, local) && f.ev == ev);
        let mut sent = obs.iter().filter(|f| f.at >= i.at && of_qp(f, local));
        if !expected || sent.clone().any(|f| f.ev == ev) {
            continue;
        }
        let Some(f) = sent.next() else { continue };
        let field = super::FieldDiff::new("ev", format!("{ev:#010x}"), format!("{:#010x}", f.ev));
        div.push(Divergence {
            actual: Some(render_frame(f.bytes)),
            fields: vec![field],
            ..Divergence::of(
                f.at,
                EV_PROBE_005_B,
                format!(
                    "the CPU half commanded a probe of QP {local:#x} on EV {ev:#010x} at {} ns; \
                     the QP's probes from then on travel on other EVs",
                    i.at
                ),
            )
        });
    }
}

/// Two timestamps of a QP's clock taken less than this far apart must not run backwards: a
/// clock whose unit is 1 ns or longer (`SND-TS-002`) advances less than 2^15 in that time.
const CLOCK_SPAN_NS: u64 = 1 << 15;

/// A stamp of a QP's clock: the index of its frame, the time it was given, its value.
type Stamp = (usize, u64, u16);

/// The TSETH `tx_timestamp`s of each QP's data packets and the PETH `tx_timestamp`s of its
/// probes, read from one clock (`EV-PROBE-005.f`), run forward: of every two sent less than
/// 2^15 ns apart, not only consecutive ones, the later is less than 2^15 ahead of the
/// earlier, modulo 2^16 (`CONF-CMP-036`). Each reading may be taken up to `late_ns / 2`
/// before its packet is given (`SND-TS-003.b`), so a stamp given `dt` after another may be
/// behind it by as many units as that leaves ns, `late_ns / 2 − dt`: a unit is 1 ns or more.
/// The later stamp is named, unless the earlier ones are the odd ones out (`swapped_before`).
pub(super) fn judge_clock(obs: &[Frame<'_>], late: u64, div: &mut Vec<Divergence>) {
    let early = late / 2;
    // Per QP: the index, time and stamp of its recent packets.
    let mut recent: HashMap<u32, VecDeque<Stamp>> = HashMap::new();
    for (i, f) in obs.iter().enumerate() {
        let (qp, ts, clause) = match (&f.kind, f.d.ext.tseth, f.d.ext.peth) {
            (&Kind::Data { qp, .. }, Some(t), _) => (qp, t.tx_timestamp, SND_TS_002_C),
            (&Kind::Probe { qp }, _, Some(p)) => (qp, p.tx_timestamp, EV_PROBE_005_F),
            _ => continue,
        };
        let q = recent.entry(qp).or_default();
        while q.front().is_some_and(|&(_, at, _)| f.at.saturating_sub(at) >= CLOCK_SPAN_NS) {
            q.pop_front();
        }
        let behind: Vec<Stamp> = q
            .iter()
            .copied()
            .filter(|&(_, at, prev)| {
                let back = prev.wrapping_sub(ts);
                ts.wrapping_sub(prev) >= 0x8000
                    && u64::from(back) > early.saturating_sub(f.at.saturating_sub(at))
            })
            .collect();
        if let Some(&(j, at, prev)) = behind.first() {
            let (blamed, clause) = if swapped_before(obs, (q, &behind), f.at, ts, late) {
                (&obs[j], TSETH_LAYOUT_001)
            } else {
                (f, clause)
            };
            div.push(Divergence {
                actual: Some(render_frame(blamed.bytes)),
                ..Divergence::of(
                    f.at,
                    clause,
                    format!(
                        "tx_timestamp {ts:#06x} is behind {prev:#06x}, that of the QP's packet \
                         {}, by more than a reading taken early allows: the timestamp clock \
                         ran backwards{}",
                        super::render::gap(at, f.at),
                        if clause == TSETH_LAYOUT_001 {
                            "; the earlier stamps, their two bytes in the other order, lie \
                             before it: they were written little-endian"
                        } else {
                            ""
                        }
                    ),
                )
            });
        }
        q.push_back((i, f.at, ts));
    }
}

/// Whether the stamps `behind` (index, time, stamp) that a stamp `ts` given at `now` is
/// behind are the data packets' stamps written with their two bytes in the other order
/// (TSETH-LAYOUT-001, CONF-CMP-102): every data stamp of the QP in `recent`, its bytes
/// swapped, fits before `ts`, and `ts`, its bytes swapped, fits after none of those it is
/// behind, so that `ts` is not the one swapped. A swapped stamp fits by chance as often as
/// its window, the time between the two plus `late_ns / 2`, fills the 2^16 values of the
/// clock: the stamps are named the wrong ones only when the chance that all of them fit so
/// is below 1 in 4.
fn swapped_before(
    obs: &[Frame<'_>],
    (recent, behind): (&VecDeque<Stamp>, &[Stamp]),
    now: u64,
    ts: u16,
    late: u64,
) -> bool {
    let data: Vec<Stamp> = recent
        .iter()
        .copied()
        .filter(|&(j, _, _)| matches!(obs[j].kind, Kind::Data { .. }))
        .collect();
    let chance: f64 = data
        .iter()
        .map(|&(_, at, _)| {
            let window = now.saturating_sub(at).saturating_add(late / 2).saturating_add(1);
            (window as f64 / 65536.0).min(1.0)
        })
        .product();
    chance < 1.0 / 4.0
        && data.iter().all(|&(_, at, prev)| {
            prev.swap_bytes() != prev && fits(prev.swap_bytes(), at, ts, now, late)
        })
        && behind.iter().all(|&(j, at, prev)| {
            matches!(obs[j].kind, Kind::Data { .. }) && !fits(prev, at, ts.swap_bytes(), now, late)
        })
}

/// Whether stamp `b` given at `tb` may follow stamp `a` given at `ta` on one clock of
/// units of 1 ns or more (SND-TS-002): it is at or after `a` by no more units than the
/// nanoseconds between them, each reading taken up to `late_ns / 2` before its output
/// (SND-TS-003.b).
fn fits(a: u16, ta: u64, b: u16, tb: u64, late: u64) -> bool {
    u64::from(b.wrapping_sub(a)) <= tb.saturating_sub(ta).saturating_add(late / 2)
}

/// A retransmission delayed by a window or resource NACK leaves no earlier than
/// `nack_backoff` after it (`SND-NACK-004`, `SND-SCHED-003`). One that leaves early after
/// another reason to retransmit came was queued again by that reason (`SND-RTX-005`).
///
/// Retransmissions may come any time earlier than the reference's (`CONF-TIME-005`), so
/// this bound is judged on its own. It is judged only where the NACK is the first reason
/// the scenario gave to retransmit the PSN: with no `Retransmit` or `QpError` command or
/// fatal NACK of the QP before it, no trim of the PSN, and no SACK that leaves the PSN out while it claims a
/// later one (the evidence of loss inference, `SND-INFER-001`), the PSN was not queued
/// already (`SND-RTX-005`), so the NACK's delay holds.
pub(super) fn judge_nack_backoff(
    scenario: &Scenario,
    inputs: &[In<'_>],
    obs: &[Frame<'_>],
    div: &mut Vec<Divergence>,
) {
    let m = &scenario.manifest;
    let backoff = m.nic.nack_backoff.as_nanos() as u64;
    if backoff == 0 {
        return;
    }
    let mut inputs: Vec<&In<'_>> = inputs.iter().collect();
    inputs.sort_by_key(|i| i.at);
    // The device's QPNs by the peer QPN its data packets carry.
    let mut peer_of: HashMap<u32, u32> = HashMap::new();
    // The peer QPNs the scenario has given a reason to retransmit any PSN.
    let mut other_reason: HashSet<u32> = HashSet::new();
    // The SACKs and trims of each peer QPN so far: reasons to retransmit some PSNs.
    let mut sacks: Vec<(u32, openrdma_codec::SethRepr)> = Vec::new();
    let mut trims: Vec<(u32, u32)> = Vec::new();
    // (peer QPN, PSN, time) of each delaying NACK that was the first reason given.
    let mut delayed: Vec<(u32, u32, u64)> = Vec::new();
    // (peer QPN, time) of every other reason to retransmit: a SACK, a trim, a command.
    let mut reasons: Vec<(u32, u64)> = Vec::new();
    for i in inputs {
        let at = i.at;
        match &i.input {
            Input::Host { command: HostCommand::CreateQp(q) } => {
                peer_of.insert(q.qpn.value(), q.peer_qpn.value());
            }
            Input::Cpu { command } => {
                let qpn = match command {
                    CpuCommand::Retransmit { qpn, .. }
                    | CpuCommand::Probe { qpn, .. }
                    | CpuCommand::SetEvState { qpn, .. }
                    | CpuCommand::QpError { qpn, .. } => Some(*qpn),
                    _ => None,
                };
                if let Some(&peer) = qpn.and_then(|q| peer_of.get(&q.value())) {
                    // A probe or an EV state queues no retransmission.
                    let queues = matches!(
                        command,
                        CpuCommand::Retransmit { .. } | CpuCommand::QpError { .. }
                    );
                    if queues {
                        other_reason.insert(peer);
                    }
                    reasons.push((peer, at));
                }
            }
            Input::Frame { .. } => match i.frame.as_ref().map(|f| &f.kind) {
                Some(&Kind::Nack { qp, psn, reason }) => {
                    let Some(&peer) = peer_of.get(&qp) else { continue };
                    let reason = NackReason(reason);
                    let p = openrdma_codec::Psn::new(psn);
                    let suspects = |(q, seth): &(u32, openrdma_codec::SethRepr)| {
                        *q == peer
                            && !seth.is_sacked(p)
                            && (0..64).any(|k| {
                                seth.sack_bitmap >> k & 1 == 1
                                    && seth.bitmap_base().add(k).is_after(p)
                            })
                    };
                    if reason.is_fatal() {
                        other_reason.insert(peer);
                        reasons.push((peer, at));
                    } else if reason.is_trim() {
                        trims.push((peer, psn));
                        reasons.push((peer, at));
                    } else if !other_reason.contains(&peer)
                        && !trims.contains(&(peer, psn))
                        && !sacks.iter().any(suspects)
                    {
                        delayed.push((peer, psn, at));
                    }
                }
                Some(&Kind::Sack { qp, .. }) => {
                    if let Some(&peer) = peer_of.get(&qp) {
                        let seth = i.frame.as_ref().and_then(|f| f.d.ext.seth);
                        match seth.filter(|s| !s.pr) {
                            Some(seth) => sacks.push((peer, seth)),
                            None => {
                                other_reason.insert(peer);
                            }
                        }
                        reasons.push((peer, at));
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    for (peer, psn, nacked) in delayed {
        let sent_before = obs.iter().any(|f| {
            f.at <= nacked
                && matches!(f.kind, Kind::Data { qp, psn: p, .. } if qp == peer && p == psn)
        });
        if !sent_before {
            continue; // not outstanding: nothing to retransmit
        }
        let first_rtx = obs.iter().find(|f| {
            f.at >= nacked
                && matches!(f.kind, Kind::Data { qp, psn: p, rtx: true } if qp == peer && p == psn)
        });
        let Some(f) = first_rtx else { continue };
        let due = nacked + backoff;
        if f.at.saturating_add(m.tolerances.early_ns) < due {
            // Another reason to retransmit came while the delayed entry waited, and the
            // retransmission followed it at once (within the latency a device may add): the
            // PSN was queued again by it, which the queue must not do (SND-RTX-005).
            let lag = (m.tolerances.late_ns / 2).max(1);
            let again = reasons
                .iter()
                .any(|&(p, t)| p == peer && t > nacked && t <= f.at && f.at - t < lag);
            let (clause, cause) = if again {
                (crate::req::SND_RTX_005, ": a later reason queued it again while it was queued")
            } else {
                (crate::req::SND_NACK_004_A, "")
            };
            div.push(Divergence {
                actual: Some(render_frame(f.bytes)),
                ..Divergence::of(
                    f.at,
                    clause,
                    format!(
                        "PSN {psn} retransmitted {} ns after the NACK that delays it, before \
                         nack_backoff ({backoff} ns) had passed{cause}",
                        f.at - nacked
                    ),
                )
            });
        }
    }
}
