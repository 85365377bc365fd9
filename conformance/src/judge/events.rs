//! Events: DMA placement by the bytes that land, the flag and completion sequences, a QP
//! going to error, and the reports to the CPU half.

use openrdma_codec::frame::decode;
use openrdma_codec::host::{CompletionStatus, FlagRepr};
use std::collections::HashMap;

use openrdma_codec::{AethRepr, Ev, EvMark, NackReason, Psn, SethRepr};
use openrdma_device::{
    Body, CpuCommand, EvState, HostCommand, Input, NicEvent, NicReport, Output, Payload, Record,
    Scenario, Side, TimedOutput,
};

use super::arrivals::Arrivals;
use super::obs::{In, Obs};
use super::sequences::full_stop;
use super::{Divergence, Frame, Kind, peer_map, render_event};
use crate::placement;
use crate::req::*;

mod why;
use why::{
    came_alike, inputs_at, misreported, missed_transition, not_taken, stale_sack, wrong_qp,
    wrong_transition,
};

pub(super) fn payload_bytes(p: &Payload) -> Vec<u8> {
    match p {
        Payload::Bytes(b) => b.to_vec(),
        Payload::Host { addr, len } => openrdma_device::memory(*addr, *len),
    }
}

/// DMA placement (CONF-CMP-034, CONF-CMP-023).
pub(super) fn placement(
    scenario: &Scenario,
    arrivals: &Arrivals,
    o: &Obs<'_>,
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
    judge_placement(scenario, &o.exp_events, &o.events, arrivals, div, checked);
}

/// A QP the scenario expects to fail must be reported in error (REC-IF-009), in every
/// scope.
pub(super) fn qp_errors(o: &Obs<'_>, div: &mut Vec<Divergence>, checked: &mut usize) {
    let (exp, obs) = (o.exp_events.as_slice(), o.events.as_slice());
    for (r, e) in exp {
        if let NicEvent::Report(NicReport::QpError { qpn, .. }) = e {
            *checked += 1;
            let seen = obs.iter().any(|(_, o)| matches!(o, NicEvent::Report(NicReport::QpError { qpn: q, .. }) if q == qpn));
            if !seen {
                // A QP a full completion queue fails (CQE-RING-004.b), of which the device
                // shows no failure at all, in a report or a flushed flag or entry: it was
                // not moved to the error state, rather than moved and not reported.
                let flushed = |o: &NicEvent| match o {
                    NicEvent::FlagWrite(f) => {
                        f.qpn == *qpn
                            && FlagRepr::from_u64(f.value).status == CompletionStatus::FLUSHED
                    }
                    NicEvent::Completion(c) => {
                        c.entry.qpn == *qpn && c.entry.status == CompletionStatus::FLUSHED
                    }
                    _ => false,
                };
                let stop = full_stop(e).is_some() && !obs.iter().any(|(_, o)| flushed(o));
                div.push(Divergence {
                    expected: Some(render_event(e)),
                    ..Divergence::named(
                        r.at.0,
                        if stop { crate::req::CQE_RING_004_B } else { crate::req::REC_IF_009 },
                        format!("QP {qpn} was expected to go to the error state"),
                    )
                });
            }
        }
    }
}

/// Every retransmission and resend the device sends is reported to the CPU half with its
/// PSN (REC-IF-008), and nothing else is: the `Retransmitted` reports must match the data
/// packets with `rtx` set that the device sent, one for one, by QP and PSN, within
/// `late_ns`. Their causes and `lost_ev` follow from the device's own paths and are not
/// compared.
/// DMA placement by the bytes that land (CONF-CMP-034, `placement`), and each write held to
/// the injected copies of the packet it names, when it names one (CONF-CMP-023).
fn judge_placement(
    scenario: &Scenario,
    exp: &[(&Record, &NicEvent)],
    obs: &[(u64, &NicEvent)],
    arrivals: &Arrivals,
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
    // The expected ranges with their records, the writes with their times and events, the
    // flags with their times: each held once.
    let mut placed = Placed::default();
    for (r, e) in exp {
        if let NicEvent::DmaWrite(w) = e {
            placed.recs.push(*r);
            placed.ranges.push(placement::Range {
                qp: w.qpn,
                msn: w.msn,
                va: w.va,
                bytes: payload_bytes(&w.payload),
            });
        }
    }
    *checked += placed.ranges.len();
    for (pos, (at, e)) in obs.iter().enumerate() {
        match e {
            // A retirement flag with a failure status retires nothing: it is a flag of a
            // message that failed at the receiver (FLAG-RECV-003), judged with the flags.
            NicEvent::FlagWrite(f)
                if f.side == Side::Responder && FlagRepr::from_u64(f.value).status.is_success() =>
            {
                placed.flag_at.push(*at);
                placed.flags.push(placement::Flag { pos, qp: f.qpn, msn: f.msn });
            }
            NicEvent::DmaWrite(w) => {
                // CONF-CMP-023: a packet is placed only after a copy of it arrived.
                let (q, p) = (w.qpn.value(), w.psn.value());
                if !arrivals.arrived(q, p, *at) {
                    let d = match arrivals.only_discarded(q, p, *at) {
                        Some(reason) => Divergence::named(
                            *at,
                            reason,
                            "a DMA write of a frame to discard".into(),
                        ),
                        None => Divergence::named(
                            *at,
                            crate::req::RCV_PLACE_003_A,
                            format!("a DMA write of PSN {p}, of which no copy had arrived"),
                        ),
                    };
                    div.push(Divergence { actual: Some(render_event(e)), ..d });
                } else if let Some(rule) = arrivals.only_refused(q, p, *at) {
                    // Placed, though every copy of it so far is one a receive check
                    // discards: the discard rule of that check is broken. A retired MSN
                    // placed after the device discarded another retired MSN of the domain,
                    // at another offset, is an offset placed wrong (CONF-CMP-134).
                    let rule = if rule == crate::req::FLAG_LAST_002
                        && retired_discarded(obs, arrivals, q, p, *at)
                    {
                        crate::req::RET_CAP_002
                    } else {
                        rule
                    };
                    div.push(Divergence {
                        actual: Some(render_event(e)),
                        ..Divergence::named(
                            *at,
                            rule,
                            format!(
                                "a DMA write of PSN {p}, whose copies by then were all writes the \
                             receive checks discard ({rule})"
                            ),
                        )
                    });
                }
                placed.write_of.push((*at, *e));
                placed.writes.push(placement::Write {
                    pos,
                    va: w.va,
                    bytes: payload_bytes(&w.payload),
                });
            }
            _ => {}
        }
    }
    for f in placement::judge(&placed.ranges, &placed.writes, &placed.flags) {
        div.extend(placed.divergence(scenario, arrivals, f));
    }
}

/// Whether the device discarded, without placing it, an earlier write of the same
/// retirement domain as PSN `psn` of QP `qp` (placed at `at`) whose MSN had retired at
/// another offset from the next MSN (CONF-CMP-134): its classification of offsets, not its
/// retirement check, is what differs.
fn retired_discarded(
    obs: &[(u64, &NicEvent)],
    arrivals: &Arrivals,
    qp: u32,
    psn: u32,
    at: u64,
) -> bool {
    // A DMA write of the earlier PSN before the latest copy arrived placed the earlier
    // write.
    let (latest, earlier) = arrivals.retired_before(qp, psn, at);
    earlier.into_iter().any(|(q, p, t)| {
        !obs.iter().any(|(when, e)| {
            matches!(e, NicEvent::DmaWrite(w) if w.qpn.value() == q && w.psn.value() == p)
                && (t..latest).contains(when)
                && arrivals.only_refused(q, p, *when).is_some()
        })
    })
}

/// What placement judges, each held once.
#[derive(Default)]
struct Placed<'a> {
    /// The expected DMA writes' records, and their ranges.
    recs: Vec<&'a Record>,
    ranges: Vec<placement::Range>,
    /// The device's DMA writes, with their times and events.
    writes: Vec<placement::Write>,
    write_of: Vec<(u64, &'a NicEvent)>,
    /// The device's responder flags, with their times.
    flags: Vec<placement::Flag>,
    flag_at: Vec<u64>,
}

impl Placed<'_> {
    /// The divergence a placement finding is.
    fn divergence(
        &self,
        scenario: &Scenario,
        arrivals: &Arrivals,
        f: placement::Finding,
    ) -> Option<Divergence> {
        let writes = &self.write_of;
        let d = match f {
            placement::Finding::Missing { range, offset, differ } => {
                let (r, x) = (self.recs[range], &self.ranges[range]);
                Divergence {
                    expected: Some(format!(
                        "DMA write qp {:#x} va {:#x} {} B",
                        x.qp,
                        x.va,
                        x.bytes.len()
                    )),
                    ..Divergence::named(
                        r.at.0,
                        placement_due(scenario, arrivals, r, writes),
                        format!(
                            "expected bytes did not land: {differ} of {} B at {:#x} differ, the first at +{offset:#x}",
                            x.bytes.len(),
                            x.va
                        ),
                    )
                }
            }
            placement::Finding::BeforeFlag { range, flag } => {
                let (r, x) = (self.recs[range], &self.ranges[range]);
                let at = self.flag_at[flag];
                // A flag before a packet of its message had even arrived took the message
                // for complete too soon (RCV-MSG-003); one after it, before its bytes
                // landed, wrote the flag before the data (FLAG-ORDER-001).
                let (requirement, what) = if early_complete(arrivals, r, at) {
                    (crate::req::RCV_MSG_003, "before a packet of it had arrived, with its data at")
                } else {
                    (crate::req::FLAG_ORDER_001, "before its data at")
                };
                Divergence {
                    expected: Some(render_event(match &r.body {
                        Body::Event { event } => event,
                        _ => return None,
                    })),
                    ..Divergence::named(
                        at,
                        requirement,
                        format!("the flag of message {} came {what} {:#x}", x.msn, x.va),
                    )
                }
            }
            placement::Finding::Outside { write, va, len } => Divergence {
                actual: Some(render_event(writes[write].1)),
                ..Divergence::named(
                    writes[write].0,
                    crate::req::RCV_PLACE_003_A,
                    format!("a DMA write of {len} B the scenario does not expect, from {va:#x}"),
                )
            },
            placement::Finding::AfterFlag { write } => Divergence {
                actual: Some(render_event(writes[write].1)),
                ..Divergence::named(
                    writes[write].0,
                    crate::req::FLAG_LAST_001,
                    "a DMA write after the flag of its message".into(),
                )
            },
            placement::Finding::Twice { write, va, len } => Divergence {
                actual: Some(render_event(writes[write].1)),
                ..Divergence::named(
                    writes[write].0,
                    crate::req::RCV_PLACE_004,
                    format!(
                        "a DMA write places {len} B again, from {va:#x}: each byte is placed once"
                    ),
                )
            },
        };
        Some(d)
    }
}

pub(super) fn judge_retransmit_reports(
    scenario: &Scenario,
    observed: &[TimedOutput],
    obs_frames: &[Frame<'_>],
    div: &mut Vec<Divergence>,
) {
    let late = scenario.manifest.tolerances.late_ns;
    let local_of = peer_map(scenario);
    let mut sent: Vec<(u32, u32, u64, bool)> = obs_frames
        .iter()
        .filter_map(|f| match f.kind {
            Kind::Data { qp, psn, rtx: true } => {
                local_of.get(&qp).map(|&local| (local, psn, f.at, false))
            }
            _ => None,
        })
        .collect();
    for o in observed {
        let Output::Event {
            event: e @ NicEvent::Report(NicReport::Retransmitted { qpn, psn, .. }),
        } = &o.output
        else {
            continue;
        };
        let t = o.at.0;
        let near = |at: u64| at.abs_diff(t) <= late;
        match sent
            .iter_mut()
            .find(|s| !s.3 && s.0 == qpn.value() && s.1 == psn.value() && near(s.2))
        {
            Some(s) => s.3 = true,
            None => div.push(Divergence::of_output(
                t,
                crate::req::REC_IF_008,
                "a Retransmitted report without a retransmission of that PSN".into(),
                e,
            )),
        }
    }
    for (qp, psn, at, _) in sent.into_iter().filter(|s| !s.3) {
        div.push(Divergence::named(
            at,
            crate::req::REC_IF_008,
            format!("the retransmission of PSN {psn} on QP {qp} was not reported"),
        ));
    }
}

/// The part of a report that does not depend on the device's choices (its EVs, its timing
/// of progress), or `None` for a report that is not compared (CONF-CMP-020). `EvState`
/// has a key, but is compared only in a scenario that expects one.
fn report_key(r: &NicReport) -> Option<(Clause, String)> {
    match r {
        NicReport::Nack { qpn, psn, reason } => {
            Some((REC_IF_004, format!("Nack qp {qpn} psn {} reason {reason:?}", psn.value())))
        }
        NicReport::EvMarked { qpn, mark, .. } => {
            Some((REC_IF_005, format!("EvMarked qp {qpn} mark {mark:?}")))
        }
        NicReport::ProbeAnswered { qpn, mark, .. } => {
            Some((REC_IF_007, format!("ProbeAnswered qp {qpn} mark {mark:?}")))
        }
        NicReport::QpError { qpn, requirement } => {
            Some((REC_IF_009, format!("QpError qp {qpn} cause {requirement}")))
        }
        NicReport::EvState { qpn, state, .. } => {
            Some((REC_IF_016, format!("EvState qp {qpn} state {state:?}")))
        }
        // The EV is the one the scenario sent the response on; all of it is compared.
        NicReport::EndpointResponse { ev, op, request_id, status, port_status } => Some((
            REC_IF_018_A,
            format!(
                "EndpointResponse ev {ev:#x} op {} request {request_id:#x} status {status} \
                 ports {port_status:#x}",
                op.0
            ),
        )),
        NicReport::Progress { .. } | NicReport::Armed { .. } | NicReport::Retransmitted { .. } => {
            None
        }
    }
}

/// Reports with a key (`report_key`) are a multiset: each expected one must come by its
/// time plus `late_ns`, and no other may come (CONF-CMP-020); `EvState` reports only in a
/// scenario that expects at least one.
pub(super) fn judge_reports(
    exp: &[(&Record, &NicEvent)],
    obs: &[(u64, &NicEvent)],
    inputs: &[In<'_>],
    sent: &Sent,
    late_ns: u64,
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
    let ev_states =
        exp.iter().any(|(_, e)| matches!(e, NicEvent::Report(NicReport::EvState { .. })));
    let mut got: Vec<(u64, Clause, String, &NicEvent, bool)> = obs
        .iter()
        .filter_map(|(t, e)| match e {
            NicEvent::Report(NicReport::EvState { .. }) if !ev_states => None,
            NicEvent::Report(r) => report_key(r).map(|(req, k)| (*t, req, k, *e, false)),
            _ => None,
        })
        .collect();
    // Match every expected report first, so that a missing one is named knowing which of
    // the device's reports no expected one takes.
    let mut missed = Vec::new();
    for (r, e) in exp {
        let NicEvent::Report(rep) = e else { continue };
        let Some((req, key)) = report_key(rep) else { continue };
        if matches!(rep, NicReport::QpError { .. }) {
            continue; // judged above, in every scope
        }
        *checked += 1;
        let deadline = r.at.0.saturating_add(late_ns);
        match got.iter_mut().find(|g| !g.4 && g.2 == key && g.0 <= deadline) {
            Some(g) => g.4 = true,
            None => missed.push((*r, *e, rep, req, came_alike(&got, rep, r.at.0, late_ns))),
        }
    }
    for (r, e, rep, req, alike) in missed {
        if let Some(d) = wrong_qp(rep, req, r.at.0, late_ns, &mut got) {
            div.push(Divergence { expected: Some(render_event(e)), ..d });
            continue;
        }
        if let Some(d) = misreported(rep, r.at.0, late_ns, inputs, exp, &mut got) {
            div.push(Divergence { expected: Some(render_event(e)), ..d });
            continue;
        }
        let deadline = r.at.0.saturating_add(late_ns);
        div.push(Divergence {
            expected: Some(render_event(e)),
            ..Divergence::named(
                r.at.0,
                (!alike)
                    .then(|| not_taken(r.at.0, inputs))
                    .flatten()
                    .or_else(|| stale_sack(rep, r.at.0, inputs))
                    .or_else(|| missed_transition(rep, r.at.0, inputs, obs))
                    .unwrap_or(req),
                format!("an expected report did not come by {deadline} ns"),
            )
        });
    }
    let expected_errors = |k: &str| {
        exp.iter()
            .filter(|(_, e)| {
                matches!(e, NicEvent::Report(r @ NicReport::QpError { .. })
                    if report_key(r).is_some_and(|(_, x)| x == k))
            })
            .count()
    };
    // The failures reported so far, by key: a QP reports its failure once (REC-IF-009).
    let mut errors: HashMap<&str, usize> = HashMap::new();
    for (t, req, key, e, used) in &got {
        if *used {
            continue;
        }
        if key.starts_with("QpError") {
            let due = expected_errors(key);
            let seen = errors.entry(key.as_str()).or_default();
            *seen += 1;
            if *seen <= due {
                continue;
            }
            if due > 0 {
                div.push(Divergence {
                    actual: Some(render_event(e)),
                    ..Divergence::of(
                        *t,
                        crate::req::REC_IF_009,
                        "a QP's failure reported again".into(),
                    )
                });
                continue;
            }
            // A QP the scenario never expects to fail: the device moved it to the error
            // state on an event that is not a cause of it (RET-ERR-002), unless a frame
            // that arrived then carries a value a receiver must take, which the device
            // misread for a cause.
            let qp_fails = |x: &NicEvent| {
                matches!((x, e), (NicEvent::Report(NicReport::QpError { qpn: a, .. }),
                    NicEvent::Report(NicReport::QpError { qpn: b, .. })) if a == b)
            };
            let misread = not_taken(*t, inputs).is_some();
            if !misread && !exp.iter().any(|(_, x)| qp_fails(x)) {
                div.push(Divergence {
                    actual: Some(render_event(e)),
                    ..Divergence::of(
                        *t,
                        crate::req::RET_ERR_002,
                        "a QP went to the error state on no cause of it".into(),
                    )
                });
                continue;
            }
        }
        let req = match e {
            NicEvent::Report(r) => discarded_input(r, *t, inputs, sent)
                .or_else(|| wrong_transition(r, *t, inputs, exp))
                .unwrap_or(*req),
            _ => *req,
        };
        let what = "a report the scenario does not expect".into();
        div.push(Divergence { actual: Some(render_event(e)), ..Divergence::named(*t, req, what) });
    }
}

/// What the checks a sender makes on an acknowledgement need from a run: the first
/// transmissions the device sent, by device QP, and its own window `W_own`.
pub(super) struct Sent {
    /// Time, device QP and PSN of each first transmission, in the order sent.
    first: Vec<(u64, u32, Psn)>,
    window: u32,
}

impl Sent {
    /// The device's first transmissions in `frames`, by the device QP that sent them.
    pub(super) fn new(scenario: &Scenario, frames: &[Frame<'_>]) -> Sent {
        let local_of = peer_map(scenario);
        let first = frames
            .iter()
            .filter_map(|f| match f.kind {
                Kind::Data { qp, psn, rtx: false } => {
                    Some((f.at, *local_of.get(&qp)?, Psn::new(psn)))
                }
                _ => None,
            })
            .collect();
        Sent { first, window: scenario.manifest.nic.window() }
    }

    /// The last PSN device QP `local` had sent by `at` (`snd_nxt − 1`), if any: first
    /// transmissions go in PSN order, so it is the latest one sent.
    fn last(&self, local: u32, at: u64) -> Option<Psn> {
        self.first.iter().rev().find(|(t, q, _)| *q == local && *t <= at).map(|x| x.2)
    }

    /// The rule by which device QP `local` must discard SACK `s`, arrived at `at`, whole:
    /// it acknowledges a PSN never sent (SND-SACK-003), or its `sack_offset` lies outside
    /// any window (SND-SACK-004).
    fn discards_sack(&self, local: u32, at: u64, s: &SethRepr) -> Option<Clause> {
        let last = self.last(local, at)?;
        let mut bits = s.sack_bitmap;
        let mut beyond = s.cack_psn.is_after(last);
        while bits != 0 && !beyond {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            beyond = s.bitmap_base().add(i).is_after(last);
        }
        if beyond {
            return Some(SND_SACK_003);
        }
        (i32::from(s.sack_offset).unsigned_abs() > self.window + 64).then_some(SND_SACK_004)
    }

    /// The rule by which device QP `local` must discard a NACK not fatal for `psn`,
    /// arrived at `at`: a PSN at or after `snd_nxt` is neither outstanding nor stale
    /// (SND-NACK-001.c).
    fn discards_nack(&self, local: u32, at: u64, psn: Psn) -> Option<Clause> {
        psn.is_after(self.last(local, at)?).then_some(SND_NACK_001_C)
    }
}

/// The rule a report the scenario does not expect breaks when an acknowledgement that
/// arrived into its QP at its time is one the sender must discard with no state changed:
/// a SACK that acknowledges a PSN never sent or whose offset no window allows, a NACK
/// for a PSN never sent. Whatever the report, the device acted on what it had to discard.
fn discarded_input(r: &NicReport, at: u64, inputs: &[In<'_>], sent: &Sent) -> Option<Clause> {
    let q = match r {
        NicReport::Nack { qpn, .. }
        | NicReport::EvMarked { qpn, .. }
        | NicReport::EvState { qpn, .. }
        | NicReport::ProbeAnswered { qpn, .. } => qpn.value(),
        _ => return None,
    };
    inputs_at(inputs, q, at).find_map(|i| {
        let d = &i.frame.as_ref()?.d;
        if let Some(s) = d.ext.seth {
            return sent.discards_sack(q, at, &s);
        }
        let n = d.ext.neth.filter(|n| !n.reason.is_fatal())?;
        sent.discards_nack(q, at, n.nack_psn)
    })
}

/// Whether a flag written at `at` came before the first copy of the packet that expected
/// DMA write `r` places had arrived: its message was not complete then, whatever the device
/// had placed.
fn early_complete(arrivals: &Arrivals, r: &Record, at: u64) -> bool {
    let Body::Event { event: NicEvent::DmaWrite(w) } = &r.body else { return false };
    let copies = arrivals.writes.get(&(w.qpn.value(), w.psn.value()));
    copies.and_then(|c| c.iter().map(|c| c.at).min()).is_some_and(|first| at < first)
}

/// The rule an expected DMA write that did not happen breaks: the shared table's capacity
/// (RET-CAP-001) for a write whose MSN only such a table holds, else placement
/// (RCV-PLACE-003), unless its packet's PSN follows the wrap of the PSN space from
/// 2^24 − 1 to 0 among the writes the scenario injects into its QP and the device wrote
/// nothing for that packet, which a device that compares PSNs as plain integers takes for
/// duplicates (BTH-PSN-002, CONF-CMP-138).
fn placement_due(
    scenario: &Scenario,
    arrivals: &Arrivals,
    r: &Record,
    writes: &[(u64, &NicEvent)],
) -> Clause {
    use crate::req::{BTH_PSN_002, RCV_PLACE_003_A, RET_CAP_001, TSETH_TS_001_A};
    let Body::Event { event: NicEvent::DmaWrite(w) } = &r.body else { return RCV_PLACE_003_A };
    let (qpn, psn) = (w.qpn.value(), w.psn.value());
    // A device that wrote the packet's payload, elsewhere or wrong, took it for new: its
    // bytes are misplaced, whatever the wrap (CONF-CMP-138).
    let written = writes.iter().any(|&(_, e)| {
        matches!(e, NicEvent::DmaWrite(d) if d.qpn.value() == qpn && d.psn.value() == psn)
    });
    // A write whose MSN only a shared table of 4096 entries holds: the device's table
    // holds fewer.
    if arrivals.shared_far(qpn, psn) {
        return RET_CAP_001;
    }
    let wrapped = scenario.injects().filter(|i| i.at <= r.at).any(|i| match &i.body {
        Body::Frame { bytes, .. } => decode(bytes)
            .bth
            .is_some_and(|b| b.dest_qp.value() == qpn && b.psn.value() > psn + (1 << 23)),
        _ => false,
    });
    if wrapped && !written {
        return BTH_PSN_002;
    }
    // A write stamped lower than an earlier write of its QP: a responder that orders
    // writes by their stamps drops it (TSETH-TS-001.a).
    let first = arrivals.writes.get(&(qpn, psn)).and_then(|c| c.first());
    let stale = first.is_some_and(|c| {
        c.ts != 0
            && arrivals
                .writes
                .iter()
                .filter(|((q, _), _)| *q == qpn)
                .flat_map(|(_, v)| v)
                .any(|o| o.at < c.at && o.ts > c.ts)
    });
    if stale { TSETH_TS_001_A } else { RCV_PLACE_003_A }
}

/// `EvState` reports judged by truth where the scenario expects none (design 9.3, in part):
/// each names a QP the scenario created and an EV of its profile, since the NIC half
/// reports only transitions it applies (REC-IF-016), and it applies them to those EVs only.
pub(super) fn judge_ev_state_truth(
    scenario: &Scenario,
    obs: &[(u64, &NicEvent)],
    div: &mut Vec<Divergence>,
) {
    let mut profiles: HashMap<u32, Vec<Ev>> = HashMap::new();
    for r in scenario.injects() {
        if let Body::Host { command: HostCommand::CreateQp(q) } = &r.body {
            let evs = q.evs.iter().chain(&q.backup_evs).copied().collect();
            profiles.insert(q.qpn.value(), evs);
        }
    }
    for (t, e) in obs {
        let NicEvent::Report(NicReport::EvState { qpn, ev, .. }) = e else { continue };
        let what = match profiles.get(&qpn.value()) {
            None => format!("an EvState report of QP {qpn}, which the scenario did not create"),
            Some(evs) if !evs.contains(ev) => {
                format!("an EvState report of EV {ev:#010x}, which is not in QP {qpn}'s profile")
            }
            Some(_) => continue,
        };
        div.push(Divergence {
            actual: Some(render_event(e)),
            ..Divergence::named(*t, crate::req::REC_IF_016, what)
        });
    }
}

/// Whether sender table 4 has a row from `from` to `to`, whatever its event.
fn table4_allows(from: EvState, to: EvState) -> bool {
    use EvState::*;
    matches!(
        (from, to),
        (Good, Skip)
            | (Good, AssumedBad)
            | (Skip, Good)
            | (Skip, AssumedBad)
            | (AssumedBad, Good)
            | (AssumedBad, Skip)
            | (Good | Skip | AssumedBad, Denied)
            | (Denied, Good)
    )
}

/// The `EvState` reports of every scenario judged as a history (design 9.3): the NIC half
/// reports each transition it applies (REC-IF-016), so the reports of one EV, from the
/// QP's creation, are the EV's states. The first cannot be GOOD, since every EV starts
/// there (EV-STATE-001.a), unless a probe answer on the EV came with it: then the EV was
/// GOOD, and the answer, with no row from GOOD, changed it (EV-STATE-002.b); or unless an
/// input that moves it out of GOOD came with it: then the report says the state the EV
/// left (REC-IF-016, CONF-CMP-076); none repeats
/// the state the EV is in, since an event with no row from that state changes nothing
/// (EV-STATE-002.b); each follows a row of table 4, and
/// one out of ASSUMED_BAD follows a probe answer (EV-STATE-002.a). A state a
/// `SetEvState` command of the EV asked for, up to `late_ns` before, is applied as given
/// (EV-STATE-003.a) and judged by the reports' own rules.
pub(super) fn judge_ev_state_history(
    inputs: &[In<'_>],
    obs: &[(u64, &NicEvent)],
    late_ns: u64,
    div: &mut Vec<Divergence>,
) {
    use crate::req::{EV_STATE_001_A, EV_STATE_002_A, EV_STATE_002_B};
    let created = |qpn: u32, t: u64| super::progress::created_at(inputs, qpn, t);
    let recent = |t: u64| inputs.iter().filter(move |i| i.at <= t && i.at + late_ns >= t);
    // (QPN, EV) to (the QP's creation, the EV's state).
    let mut states: HashMap<(u32, Ev), (Option<u64>, EvState)> = HashMap::new();
    let mut reports: Vec<(u64, &NicEvent)> = obs.to_vec();
    reports.sort_by_key(|(t, _)| *t);
    for (t, e) in reports {
        let NicEvent::Report(NicReport::EvState { qpn, ev, state }) = e else { continue };
        let (q, t) = (qpn.value(), t);
        let born = created(q, t);
        let commanded = recent(t).any(|i| {
            matches!(i.input, Input::Cpu { command: CpuCommand::SetEvState { qpn: x, ev: y, state: s } }
                if x == qpn && y == ev && s == state)
        });
        let from = match states.insert((q, *ev), (born, *state)) {
            Some((b, s)) if b == born => Some(s),
            _ => None,
        };
        if commanded {
            continue;
        }
        // A probe answer of the QP came with the report: which probe it answers is the
        // device's matching, by EV and probe ID, so any answer may be the cause.
        let answered = recent(t).any(|i| {
            i.frame.as_ref().is_some_and(|f| {
                f.d.bth.is_some_and(|b| b.dest_qp.value() == q)
                    && f.d.ext.seth.is_some_and(|s| s.pr)
            })
        });
        let what = match from {
            // The EV is still in the GOOD it starts in: a probe answer has no row from there.
            None if *state == EvState::Good && answered => (
                EV_STATE_002_B,
                format!(
                    "EV {ev:#010x} of QP {qpn}, never reported out of GOOD, is reported GOOD on a probe answer: an event with no row from its state changed it"
                ),
            ),
            // The EV started in GOOD and an input of the report's time moves it out: the
            // device applied the transition and reported the state it left (CONF-CMP-076).
            None if *state == EvState::Good && why::leaves_good(inputs, q, *ev, t, late_ns) => (
                crate::req::REC_IF_016,
                format!(
                    "the first EvState report of EV {ev:#010x} of QP {qpn} is GOOD where an input of its time moves it out of GOOD: the report says the state the EV left"
                ),
            ),
            None if *state == EvState::Good => (
                EV_STATE_001_A,
                format!(
                    "the first EvState report of EV {ev:#010x} of QP {qpn} is GOOD: the EV did not start in GOOD"
                ),
            ),
            None => continue,
            Some(from) if from == *state => (
                EV_STATE_002_B,
                format!(
                    "EV {ev:#010x} of QP {qpn} is reported {state:?} again while in {state:?}: an event with no row from its state changed it"
                ),
            ),
            Some(from) if !table4_allows(from, *state) => (
                EV_STATE_002_A,
                format!(
                    "EV {ev:#010x} of QP {qpn} went from {from:?} to {state:?}, which table 4 does not allow"
                ),
            ),
            Some(EvState::AssumedBad) => {
                if answered {
                    continue;
                }
                (
                    EV_STATE_002_A,
                    format!(
                        "EV {ev:#010x} of QP {qpn} left ASSUMED_BAD for {state:?} with no probe answer"
                    ),
                )
            }
            Some(_) => continue,
        };
        div.push(Divergence { actual: Some(render_event(e)), ..Divergence::of(t, what.0, what.1) });
    }
}
