//! Matching expected frames with the device's by identity (`spec/conformance.md`,
//! CONF-CMP-037, CONF-CMP-026).
//!
//! An identity says *which* output an expectation is: a data packet by (QP, PSN, `rtx`), a
//! NACK by (QP, `nack_psn`), a transport ACK or NAK by (QP, MSN, ACK or the NAK code), a
//! probe by its QP, an endpoint request or response by (`op`, `request_id`). Every other
//! field is compared, and named by its own rule ([`super::fields`]).
//!
//! Three passes, each over the expectations in record order:
//!
//! 1. **Legal**: the earliest unused output of the same identity within the expectation's
//!    window (`[at − early_ns, at + late_ns]`; from 0 for a retransmission, which may come
//!    sooner, unless the device brings its own CPU half). So the k-th expectation of a
//!    repeated identity takes the k-th output in time, and a legal repeat between them (an
//!    ACK of an MSN already acknowledged) is left over, not taken for a late answer. A
//!    transport ACK with no ACK of its MSN in its window takes one of a later MSN of its
//!    QP that the reference had acknowledged by then: an ACK built late ([`later_ack`]).
//! 2. **Near miss**: an unused output of the same kind and QP within the window that
//!    differs in an identity field (a NACK for PSN 129 where 128 was expected, an ACK of the
//!    next MSN, a retransmission without its `rtx` bit): one divergence whose fields name
//!    the rules they break, instead of a missing output and an unexpected one. It comes
//!    before the next pass, so that an output with a wrong identity field is not taken for
//!    a far, mistimed answer to another expectation of that identity.
//! 3. **Mistimed**: the nearest unused output of the same identity that no rule explains,
//!    outside the window: a timing divergence.
//!
//! An expectation left over is missing, named by the rule that makes the output due.

use std::collections::HashMap;

use openrdma_device::{
    Body, Capability, CpuCommand, CpuHalf, Input, NicEvent, NicReport, Output, Record, Scenario,
    Side, TimedOutput,
};

use openrdma_codec::frame::DecodedFrame;
use openrdma_codec::{AethRepr, Ev, Msn, Psn};

use super::fields::{self, Rule};
use super::fit::{Estimate, Fits};
use super::obs::{In, Injected};
use super::{Divergence, FieldDiff, Frame, Kind, ack_class, diff, frame_fields, render_frame};
use crate::req::*;

mod kinds;
mod later_ack;
mod queue;
mod rules;
mod unacked;
use kinds::*;
use later_ack::{Later, later_ack};
use queue::queue_cause;
use rules::*;

/// The identity of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ident {
    Data { qp: u32, psn: u32, rtx: bool },
    Nack { qp: u32, psn: u32 },
    Ack { qp: u32, msn: Msn, class: (bool, u8), high: u8 },
    Probe { qp: u32 },
    EpResponse { op: u8, request_id: u32 },
    EpRequest { op: u8, request_id: u32 },
}

fn ident(k: &Kind) -> Option<Ident> {
    Some(match *k {
        Kind::Data { qp, psn, rtx } => Ident::Data { qp, psn, rtx },
        Kind::Nack { qp, psn, .. } => Ident::Nack { qp, psn },
        Kind::Ack { qp, msn, syndrome, high } => {
            Ident::Ack { qp, msn, class: ack_class(syndrome), high }
        }
        Kind::Probe { qp } => Ident::Probe { qp },
        Kind::Endpoint { op, request_id } => Ident::EpResponse { op, request_id },
        Kind::EndpointRequest { op, request_id } => Ident::EpRequest { op, request_id },
        Kind::Sack { .. } | Kind::Other { .. } => return None,
    })
}

/// Whether `o` may be a near miss of an expectation of identity `e`: the same kind and QP
/// (or endpoint operation), one identity field apart.
fn near(e: Ident, o: Ident) -> bool {
    match (e, o) {
        (Ident::Data { qp, psn, .. }, Ident::Data { qp: q, psn: p, .. }) => qp == q && psn == p,
        (Ident::Nack { qp, .. }, Ident::Nack { qp: q, .. }) => qp == q,
        (Ident::Ack { qp, msn, class, .. }, Ident::Ack { qp: q, msn: m, class: c, .. }) => {
            qp == q && (msn == m || class == c)
        }
        (Ident::Probe { .. }, Ident::Probe { .. }) => true,
        (Ident::EpResponse { op, request_id }, Ident::EpResponse { op: o2, request_id: r2 })
        | (Ident::EpRequest { op, request_id }, Ident::EpRequest { op: o2, request_id: r2 }) => {
            op == o2 || request_id == r2
        }
        _ => false,
    }
}

/// The pairs found: (index among the expected frames, index among the observed), and
/// which observed frames are taken.
pub(super) struct Pairing {
    pub matches: Vec<(usize, usize)>,
    pub used: Vec<bool>,
    /// Expected frames (of a kind that is paired) checked.
    pub checked: usize,
}

/// What the matching needs of the run.
pub(super) struct Ctx<'a> {
    pub scenario: &'a Scenario,
    /// The inputs as delivered, each frame decoded once.
    pub inputs: &'a [In<'a>],
    /// The same inputs, as the cause table reads them.
    pub fed: Vec<Fed<'a>>,
    /// The records the scenario injects, decoded once.
    pub injects: &'a [Injected<'a>],
    pub exp: &'a [(&'a Record, Frame<'a>)],
    pub obs: &'a [Frame<'a>],
    pub observed: &'a [TimedOutput],
    /// The slack of each expected record, by its address (CONF-TIME-005.a).
    pub slack: HashMap<*const Record, u64>,
    /// The window-fit walks of the run.
    pub fits: &'a Fits<'a>,
}

/// The slack of each record of `scenario` that has one, keyed by the record's address.
pub(super) fn slack_of(scenario: &Scenario, slack: &[u64]) -> HashMap<*const Record, u64> {
    scenario
        .records
        .iter()
        .zip(slack)
        .filter(|(_, s)| **s > 0)
        .map(|(r, s)| (r as *const Record, *s))
        .collect()
}

impl Ctx<'_> {
    fn own_cpu(&self) -> bool {
        self.scenario.manifest.cpu == CpuHalf::Device
    }

    /// Whether the device reported the timer of its QP `local` armed (REC-IF-003).
    fn reported_armed(&self, local: Option<u32>) -> bool {
        self.observed.iter().any(|o| {
            matches!(&o.output, Output::Event { event: NicEvent::Report(NicReport::Armed { qpn, .. }) }
                if Some(qpn.value()) == local)
        })
    }

    /// Whether expected frame `e` is a packet of a Write-with-Immediate message.
    fn imm_message(&self, e: usize) -> bool {
        imm_message(self.exp, e)
    }

    /// The window of expected frame `e`.
    fn window(&self, e: usize) -> (u64, u64) {
        let tol = &self.scenario.manifest.tolerances;
        let (rec, f) = &self.exp[e];
        let at = rec.at.0;
        let early_ok = matches!(f.kind, Kind::Data { rtx: true, .. }) && !self.own_cpu();
        // CONF-TIME-005.a: from the least shift of the record's anchors, not the greatest.
        let slack = self.slack.get(&(*rec as *const Record)).copied().unwrap_or(0);
        let lo = if early_ok { 0 } else { at.saturating_sub(tol.early_ns.saturating_add(slack)) };
        (lo, at.saturating_add(tol.late_ns))
    }

    /// Whether observed frame `i` is explained without an expectation: a transport ACK
    /// repeating an MSN the device acknowledged before, in a legal match (CONF-CMP-037).
    fn explained(&self, i: usize, pair_of: &[Option<(usize, bool)>]) -> bool {
        let o = &self.obs[i];
        let Kind::Ack { qp, msn, syndrome, high: 0 } = o.kind else { return false };
        ack_class(syndrome).0
            && pair_of.iter().flatten().any(|&(j, legal)| {
                let p = &self.obs[j];
                legal
                    && p.at <= o.at
                    && matches!(p.kind, Kind::Ack { qp: q, msn: m, syndrome: s, .. }
                        if q == qp && m == msn && ack_class(s).0)
            })
    }
}

/// Pairs expected and observed frames and judges each pair and each expectation left over.
pub(super) fn pair(cx: &Ctx<'_>, div: &mut Vec<Divergence>) -> Pairing {
    let n = cx.obs.len();
    let mut used = vec![false; n];
    let mut pair_of: Vec<Option<(usize, bool)>> = vec![None; cx.exp.len()];
    // For an ACK met by one of a later MSN, what it is judged by (CONF-CMP-127).
    let mut later: Vec<Option<Later>> = vec![None; cx.exp.len()];
    let ids: Vec<Option<Ident>> = cx.obs.iter().map(|o| ident(&o.kind)).collect();
    let wanted: Vec<(usize, Ident)> = cx
        .exp
        .iter()
        .enumerate()
        .filter_map(|(e, (_, f))| ident(&f.kind).map(|id| (e, id)))
        .collect();
    // 1. Legal matches. A transport ACK of the expected MSN whose other fields differ is
    // left to the near misses when an ACK of another MSN of the QP, in the window, is
    // nearer in time and differs in no more fields: an MSN sent wrong is paired with the
    // ACK it was meant to be, not with the next ACK that carries that MSN.
    for &(e, id) in &wanted {
        let (lo, hi) = cx.window(e);
        let fits =
            |i: &usize| !used[*i] && ids[*i] == Some(id) && (lo..=hi).contains(&cx.obs[*i].at);
        // A NAK is never repeated legally: of several in the window, the one that differs
        // least, then the nearest, answers the expectation; the others are unexpected.
        let found = if matches!(id, Ident::Ack { class: (false, _), .. }) {
            let want = frame_fields(&cx.exp[e].1.d);
            (0..n).filter(fits).min_by_key(|&i| {
                let d = diff(&want, &frame_fields(&cx.obs[i].d)).len();
                (d, cx.obs[i].at.abs_diff(cx.exp[e].0.at.0))
            })
        } else {
            (0..n).find(fits)
        };
        if let Some(i) = found {
            if matches!(id, Ident::Ack { .. }) && nearer_ack(cx, e, i, &ids, &used) {
                continue;
            }
            used[i] = true;
            pair_of[e] = Some((i, true));
        } else if let Some((i, by)) = later_ack(cx, e, &used) {
            // An ACK built late, with the MSN retired by then (decisions 47, 57).
            used[i] = true;
            pair_of[e] = Some((i, true));
            later[e] = Some(by);
        }
    }
    // 2. Near misses: same kind and QP, within the window, fewest fields apart.
    for &(e, id) in &wanted {
        if pair_of[e].is_some() {
            continue;
        }
        let (lo, hi) = cx.window(e);
        let want = frame_fields(&cx.exp[e].1.d);
        let found = (0..n)
            .filter(|&i| {
                !used[i]
                    && ids[i].is_some_and(|o| near(id, o))
                    && (lo..=hi).contains(&cx.obs[i].at)
                    && !cx.explained(i, &pair_of)
            })
            .min_by_key(|&i| {
                let d = diff(&want, &frame_fields(&cx.obs[i].d)).len();
                (d, cx.obs[i].at.abs_diff(cx.exp[e].0.at.0))
            });
        if let Some(i) = found {
            used[i] = true;
            pair_of[e] = Some((i, true));
        }
    }
    // 3. Mistimed: the nearest unexplained output of the identity.
    for &(e, id) in &wanted {
        if pair_of[e].is_some() {
            continue;
        }
        let at = cx.exp[e].0.at.0;
        let found = (0..n)
            .filter(|&i| !used[i] && ids[i] == Some(id) && !cx.explained(i, &pair_of))
            .min_by_key(|&i| cx.obs[i].at.abs_diff(at));
        if let Some(i) = found {
            used[i] = true;
            pair_of[e] = Some((i, false));
        }
    }
    let mut matches = Vec::new();
    for &(e, _) in &wanted {
        match pair_of[e] {
            Some((i, in_window)) => {
                matches.push((e, i));
                judge_pair(cx, (e, later[e]), i, in_window, div);
            }
            None => div.push(missing(cx, e)),
        }
    }
    Pairing { matches, used, checked: wanted.len() }
}

/// Whether expected ACK `e`, whose identity observed frame `i` has, is better paired with
/// an unused ACK of another MSN of its QP: one in its window, nearer in time, and no more
/// fields apart. Only when `i` itself differs in some field.
fn nearer_ack(cx: &Ctx<'_>, e: usize, i: usize, ids: &[Option<Ident>], used: &[bool]) -> bool {
    let Some(Ident::Ack { qp, msn, class, .. }) = ident(&cx.exp[e].1.kind) else { return false };
    let want = frame_fields(&cx.exp[e].1.d);
    let apart = |j: usize| diff(&want, &frame_fields(&cx.obs[j].d)).len();
    let at = cx.exp[e].0.at.0;
    let (di, ti) = (apart(i), cx.obs[i].at.abs_diff(at));
    if di == 0 {
        return false;
    }
    let (lo, hi) = cx.window(e);
    (0..cx.obs.len()).any(|j| {
        !used[j]
            && matches!(ids[j], Some(Ident::Ack { qp: q, msn: m, class: c, .. })
                if q == qp && c == class && m != msn)
            && (lo..=hi).contains(&cx.obs[j].at)
            && cx.obs[j].at.abs_diff(at) < ti
            && apart(j) <= di
    })
}

/// A pair: its fields, each named by its own rule, and its timing. `e` is the expectation
/// and, for an ACK met by one of a later MSN, what its `msn` and BTH `psn` are judged by
/// (CONF-CMP-127).
fn judge_pair(
    cx: &Ctx<'_>,
    (e, later): (usize, Option<Later>),
    i: usize,
    in_window: bool,
    div: &mut Vec<Divergence>,
) {
    let (rec, ef) = &cx.exp[e];
    let of = &cx.obs[i];
    let mut fields = diff(&frame_fields(&ef.d), &frame_fields(&of.d));
    match later {
        Some(Later::Acked(e2)) => {
            let by_later = diff(&frame_fields(&cx.exp[e2].1.d), &frame_fields(&of.d));
            fields.retain(|f| {
                !matches!(f.field.as_str(), "aeth.msn" | "bth.psn")
                    || by_later.iter().any(|g| g.field == f.field)
            });
        }
        Some(Later::Retired { psn }) => {
            // The MSN was found retired; the BTH PSN is that of its last packet.
            fields.retain(|f| !matches!(f.field.as_str(), "aeth.msn" | "bth.psn"));
            let got = of.d.bth.map(|b| b.psn.value());
            if let (Some(want), Some(got)) = (psn, got)
                && want != got
            {
                fields.push(FieldDiff::new("bth.psn", want.to_string(), got.to_string()));
            }
        }
        None => {}
    }
    if own_snd_nxt(cx.obs, i).is_some_and(|nxt| of.d.bth.is_some_and(|b| b.psn == nxt)) {
        fields.retain(|f| f.field != "bth.psn");
    }
    if !fields.is_empty() {
        let fcx = fields::Context {
            imm_message: cx.imm_message(e),
            ts_bit_only: ts_bit_only(&ef.d, of.bytes, &of.d),
            icrc: Some(super::wire::icrc_cause(of.bytes, &of.d).0),
            bth_byte1_swapped: bth_byte1_swapped(&ef.d, &of.d),
            tseth_word_swapped: tseth_word_swapped(&ef.d, &of.d),
            foreign_opcode: of.d.bth.is_some_and(|b| !b.opcode.is_mrc()),
            head: head(cx, e),
        };
        let (mut rule, mut should_only) = fields::name(&ef.kind, &mut fields, fcx);
        // A payload length no packet of its position may have: the cause of whatever
        // opcode, address or bytes differ with it. An opcode outside MRC is the cause of
        // its own stack and lengths.
        let foreign = fcx.foreign_opcode;
        if let Some(stack) = header_stack_rule(ef, of).filter(|_| !foreign) {
            rule = stack;
            should_only = false;
        } else if let Some(len_rule) =
            payload_length_rule(cx, of).filter(|_| !foreign && !pad_moved(ef, of))
        {
            if let Some(f) = fields.iter_mut().find(|f| f.field == "payload") {
                f.name(len_rule);
                rule = len_rule;
                should_only = false;
            }
        }
        if let Some(cut) = cut_length(&fields).filter(|_| !foreign) {
            rule = cut;
        }
        if let Some(misread) = ev_misread(cx, e, &mut fields) {
            rule = misread;
        }
        if let Some(resend) = resend_rtx(cx, e, &mut fields) {
            rule = resend;
        }
        if let Some(est) = fit_probe(cx, e, i) {
            rule = est;
        }
        // The device's first transmission after its own of PSN 0xFFFFFF, not under PSN 0:
        // its PSN arithmetic does not wrap. Another expected packet of the QP under this
        // one's PSN: the sender numbered the right packet wrong, whatever fields of the
        // one it displaced then differ.
        if let Some(wrap) = wrap_rule(cx.obs, i) {
            if let Some(f) = fields.iter_mut().find(|f| f.field == "bth.psn") {
                f.name(wrap);
            }
            rule = wrap;
        } else if is_other_packet(cx, e, of) {
            rule = SND_PSN_001;
        } else if let Some(counter) = msn_counter_rule(cx, e, of) {
            if let Some(f) = fields.iter_mut().find(|f| f.field == "meth.msn") {
                f.name(counter);
            }
            rule = counter;
        } else if let Some(other) = other_qp_msn_rule(cx, e, of).filter(|_| rule == AETH_MSN_001_A)
        {
            if let Some(f) = fields.iter_mut().find(|f| f.field == "aeth.msn") {
                f.name(other);
            }
            rule = other;
        }
        let first = fields.iter().find(|f| f.clause == Some(rule)).unwrap_or(&fields[0]);
        let what = describe(first);
        div.push(Divergence {
            expected: Some(render_frame(ef.bytes)),
            actual: Some(render_frame(of.bytes)),
            fields,
            should_only,
            ..Divergence::of(of.at, rule, what)
        });
        return;
    }
    if !in_window {
        let tol = &cx.scenario.manifest.tolerances;
        let (lo, hi) = cx.window(e);
        let what = format!(
            "sent at {} ns, expected at {} ns (within {lo}..={hi} ns): outside the tolerance \
             of -{} / +{} ns (CONF-TIME-005)",
            of.at, rec.at.0, tol.early_ns, tol.late_ns
        );
        // A late frame is a divergence from the time it was due, so that it comes before
        // what its lateness causes (a flag, a completion); an early one from when it came.
        div.push(Divergence {
            expected: Some(render_frame(ef.bytes)),
            actual: Some(render_frame(of.bytes)),
            ..Divergence::named(
                of.at.min(rec.at.0),
                fit_probe(cx, e, i).unwrap_or_else(|| due_rule(cx, e, Some(of.at))),
                what,
            )
        });
    }
}

/// A field difference in a few words.
pub(super) fn describe(f: &FieldDiff) -> String {
    format!("{} is {}, expected {}", f.field, f.actual, f.expected)
}

fn missing(cx: &Ctx<'_>, e: usize) -> Divergence {
    let (rec, ef) = &cx.exp[e];
    if let Some(d) = sent_elsewhere(cx, e) {
        return d;
    }
    if let Some(what) = unacked::completed_unacked(cx, e) {
        return Divergence {
            expected: Some(render_frame(ef.bytes)),
            ..Divergence::named(rec.at.0, SND_ACK_005, what)
        };
    }
    let cause = named_cause(cx, e, None);
    let what = if matches!(cause.when, When::NotTaken(_) | When::Ignored(..)) {
        "an expected packet was not sent: the device did not take a frame it must take"
    } else {
        "an expected packet was not sent"
    };
    Divergence {
        expected: Some(render_frame(ef.bytes)),
        ..Divergence::named(rec.at.0, cause.rule, what.into())
    }
}

/// An expected data packet the device sent with its PSN and `rtx` but to a QP that is the
/// peer of none of its QPs: one divergence, named by the destination's rule (SND-QPN-001),
/// at the time it was due.
fn sent_elsewhere(cx: &Ctx<'_>, e: usize) -> Option<Divergence> {
    let (rec, ef) = &cx.exp[e];
    let Kind::Data { qp, psn, rtx } = ef.kind else { return None };
    let peers = super::peer_map(cx.scenario);
    cx.obs.iter().find_map(|o| {
        let Kind::Data { qp: to, psn: p, rtx: r } = o.kind else { return None };
        if p != psn || r != rtx {
            return None;
        }
        let rule = super::link::dest_rule(&o.d, &peers)?;
        Some(Divergence {
            expected: Some(render_frame(ef.bytes)),
            actual: Some(render_frame(o.bytes)),
            ..Divergence::named(
                rec.at.0,
                rule,
                format!("an expected packet was sent to QP {to:#x}, not to QP {qp:#x}"),
            )
        })
    })
}

/// The rule that makes expected frame `e` due, from what caused it: the record's list of
/// requirements is not consulted. `sent`: when the frame came, outside its window, if it
/// came.
fn due_rule(cx: &Ctx<'_>, e: usize, sent: Option<u64>) -> Rule {
    named_cause(cx, e, sent).rule
}

/// The first entry of the cause table ([`causes`]) of expected frame `e` that holds of what
/// the device did.
fn named_cause(cx: &Ctx<'_>, e: usize, sent: Option<u64>) -> Cause {
    let at = cx.exp[e].0.at.0;
    causes(cx.scenario, cx.injects, &cx.fed, cx.exp, e)
        .into_iter()
        .find(|c| cx.holds(c.when, e, at, sent))
        .unwrap_or(Cause { rule: fields::default_rule(&cx.exp[e].1.kind), when: When::Always })
}

impl Ctx<'_> {
    /// Whether `when` holds of expected frame `e`, due at `at`, that the device sent at
    /// `sent`, outside its window, or did not send.
    fn holds(&self, when: When, e: usize, at: u64, sent: Option<u64>) -> bool {
        let early = sent.filter(|&t| t < at);
        match when {
            When::Always => true,
            When::Missing => sent.is_none(),
            When::EarlyFrom(from) => early.is_some_and(|t| t >= from),
            When::SentAt(t) => early == Some(t),
            When::LateFrom(from) => sent.is_some_and(|t| t > at && t >= from),
            When::Shifted(qp, psn, due) => {
                sent.is_none()
                    && self.obs.iter().any(|o| {
                        o.kind == Kind::Data { qp, psn, rtx: true } && o.at != due && o.at <= at
                    })
            }
            When::Unarmed(local) => !self.reported_armed(local),
            When::FailedBy(local) => {
                let by = at.saturating_add(self.scenario.manifest.tolerances.late_ns);
                sent.is_none()
                    && self.observed.iter().any(|o| {
                        o.at.0 <= by
                            && matches!(&o.output, Output::Event { event: NicEvent::Completion(c) }
                                if c.side == Side::Requester
                                    && Some(c.entry.qpn.value()) == local
                                    && !c.entry.status.is_success())
                    })
            }
            When::FailedLater(local) => {
                sent.is_none()
                    && self.observed.iter().any(|o| {
                        o.at.0 > at
                            && matches!(&o.output, Output::Event { event: NicEvent::Completion(c) }
                                if c.side == Side::Requester
                                    && Some(c.entry.qpn.value()) == local
                                    && !c.entry.status.is_success())
                    })
            }
            When::RetriedAfter(qp) => {
                let after = at.saturating_add(self.scenario.manifest.tolerances.late_ns);
                sent.is_none()
                    && self.obs.iter().any(|o| {
                        o.at > after
                            && matches!(o.kind, Kind::Data { qp: q, rtx: true, .. } if q == qp)
                    })
            }
            When::SentNew(qp) => {
                let by = at.saturating_add(self.scenario.manifest.tolerances.late_ns);
                self.obs.iter().any(|o| {
                    o.at <= by
                        && matches!(o.kind, Kind::Data { qp: q, rtx: false, .. } if q == qp)
                        && o.at + self.scenario.manifest.tolerances.late_ns >= at
                })
            }
            When::Renumbered => sent.is_none() && renumbered(self, e),
            When::SparedByProbe(qp, psn, k) => {
                sent.is_none() && self.spared_by_probe(qp, psn, k, at)
            }
            // An estimate names an EV chosen, never a time ([`ev_cause`]).
            When::Contradicts(_) => false,
            When::Late => sent.is_some_and(|t| t > at),
            When::Unretired(local, msn) => {
                let by = at.saturating_add(self.scenario.manifest.tolerances.late_ns);
                sent.is_none()
                    && !self.observed.iter().any(|o| {
                        o.at.0 <= by
                            && matches!(&o.output, Output::Event { event: NicEvent::FlagWrite(f) }
                                if f.side == Side::Responder
                                    && f.qpn.value() == local
                                    && f.msn == msn)
                    })
            }
            When::Refused(qp) => {
                let by = at.saturating_add(self.scenario.manifest.tolerances.late_ns);
                let nak = |k: &Kind| {
                    matches!(*k, Kind::Ack { qp: q, syndrome, .. }
                        if q == qp && syndrome == AethRepr::NAK_REMOTE_ACCESS)
                };
                let sent_naks = self.obs.iter().filter(|o| o.at <= by && nak(&o.kind)).count();
                let due = self.exp.iter().filter(|(r, f)| r.at.0 <= by && nak(&f.kind)).count();
                sent.is_none() && sent_naks > due
            }
            When::SackedAfter(qp, local, from) => {
                sent.is_none_or(|t| t > at) && self.sacked_after(qp, local, from, at)
            }
            When::NotTaken(None) => sent.is_none(),
            When::Ignored(local, psn, t, ev) => sent.is_none() && !self.answered(local, psn, t, ev),
            When::NotTaken(Some(t)) => {
                let late = self.scenario.manifest.tolerances.late_ns;
                sent.is_none()
                    && !self
                        .observed
                        .iter()
                        .any(|o| o.at.0 > t && o.at.0 <= at.saturating_add(late))
            }
        }
    }
}

impl Ctx<'_> {
    /// Whether the device's probe that the answer at place `k` among the inputs answers
    /// went on its EV right after the device's latest transmission of `psn` of wire QP
    /// `qp`, with no data packet of the QP between them on that EV, and the device took
    /// the answer as evidence all the same: by `at` plus `late_ns` it retransmitted another
    /// PSN of the QP that the answer covers and does not show, last sent on the probe's EV
    /// before the probe. The answer judged the earlier transmissions on the EV and spared
    /// the latest one: the probe did not take a per-EV sequence number above it
    /// (SND-TAIL-002), a breach its answer shows only so (CONF-CMP-113).
    fn spared_by_probe(&self, qp: u32, psn: u32, k: usize, at: u64) -> bool {
        let Some(answer) = self.fed.get(k) else { return false };
        let Some(x) = answer.frame.as_ref().and_then(|d| d.ext.seth).filter(|x| x.pr) else {
            return false;
        };
        let (ev, id) = (x.entropy, x.ack_psn_offset as u16);
        let Some(p) = self.obs.iter().rposition(|o| {
            o.at <= answer.at
                && o.kind == Kind::Probe { qp }
                && o.ev == ev
                && o.d.ext.peth.is_some_and(|h| h.probe_id == id)
        }) else {
            return false;
        };
        let data_of = |o: &Frame<'_>| matches!(o.kind, Kind::Data { qp: q, .. } if q == qp);
        let latest = |q: u32| {
            self.obs[..p].iter().rposition(
                |o| matches!(o.kind, Kind::Data { qp: w, psn: r, .. } if w == qp && r == q),
            )
        };
        let Some(j) = latest(psn) else { return false };
        if self.obs[j].ev != ev || self.obs[j + 1..p].iter().any(|o| data_of(o) && o.ev == ev) {
            return false;
        }
        let covers = |q: Psn| {
            x.covers_cumulatively(q) || (x.sack_offset >= 1 && q.in_window(x.bitmap_base(), 64))
        };
        let by = at.saturating_add(self.scenario.manifest.tolerances.late_ns);
        self.obs.iter().any(|o| {
            let Kind::Data { qp: w, psn: q, rtx: true } = o.kind else { return false };
            w == qp
                && q != psn
                && o.at >= answer.at
                && o.at <= by
                && covers(Psn::new(q))
                && !x.is_sacked(Psn::new(q))
                && latest(q).is_some_and(|i| self.obs[i].ev == ev)
        })
    }
}

/// A rule that an expected frame, missing or mistimed, is named by when `when` holds of
/// what the device did. [`causes`] lists them for one expectation, first match first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cause {
    pub rule: Rule,
    pub when: When,
}

/// When a [`Cause`] names an expected frame, by what the device did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum When {
    /// Whatever the device did.
    Always,
    /// The frame is missing.
    Missing,
    /// The frame came before its time, at or after the given time.
    EarlyFrom(u64),
    /// The frame came at the given time, before its own.
    SentAt(u64),
    /// The frame came after its time, at or after the given time.
    LateFrom(u64),
    /// The frame is missing, and the device sent the retransmission of (wire QP, PSN) due
    /// at the given time at another time, by this frame's.
    Shifted(u32, u32, u64),
    /// The device reported no armed timer of its QP (the device's number, if known).
    Unarmed(Option<u32>),
    /// The frame is missing, and the device failed the QP (the device's number) before it
    /// was due: a requester entry of it with an error status came by then.
    FailedBy(Option<u32>),
    /// The frame is missing, and the device failed the QP (the device's number) after it
    /// was due: a requester entry of it with an error status came later.
    FailedLater(Option<u32>),
    /// The frame is missing, and the device sent a retransmission of the QP (its number on
    /// the wire) after the frame's window.
    RetriedAfter(u32),
    /// The device sent a first transmission of the QP (its number on the wire) within the
    /// frame's window: an EV was usable to it then.
    SentNew(u32),
    /// The frame is missing because the device did not take a frame it must take; with a
    /// time, only when the device sent nothing after it up to the frame's time.
    NotTaken(Option<u64>),
    /// The frame is missing because the device did not take the write of QP, PSN, arrival
    /// time and EV given, one it must take: it neither placed it nor answered on its EV
    /// within `late_ns` of its arrival.
    Ignored(u32, u32, u64, Ev),
    /// The data packet is missing, and the device sent within its window a packet of the
    /// QP that differs from it in its PSN only ([`renumbered`]).
    Renumbered,
    /// The frame came after its window.
    Late,
    /// The ACK is missing, and the device wrote no retirement flag of its message (the
    /// device's QP and the MSN) by the ACK's time: it did not retire the message.
    Unretired(u32, Msn),
    /// The ACK, owed by the SACK timer, is missing or late, and the device sent a SACK on
    /// the QP (the wire QP; the device's QP) by the ACK's time that answers a write of it
    /// which arrived after the given time, when a message it acknowledges had retired: that
    /// SACK stopped the timer that still owed the ACK ([`Ctx::sacked_after`]).
    SackedAfter(u32, u32, u64),
    /// The ACK is missing, and the device sent on the QP (the wire QP) more remote access
    /// NAKs by the ACK's time than the scenario expects: its region check refused a write
    /// that the region holds, and the message never completed.
    Refused(u32),
    /// The retransmission of (wire QP, PSN) that the probe answer at this place among the
    /// inputs asks for is missing, while the device retransmitted for it another PSN of
    /// the QP whose latest transmission went on the probe's EV before this one's, and
    /// this one's was the latest on that EV when the probe left ([`Ctx::spared_by_probe`]).
    SparedByProbe(u32, u32, usize),
    /// The first transmission of a window-fit QP went on another EV than the recorded one,
    /// and the device's choices contradict this estimate of the policy ([`ev_cause`]).
    Contradicts(Estimate),
}

impl Cause {
    fn new(rule: Rule, when: When) -> Cause {
        Cause { rule, when }
    }
}

/// An input as the cause table reads it: its time, and the frame (decoded) or CPU command
/// it is.
pub(super) struct Fed<'a> {
    pub at: u64,
    pub frame: Option<DecodedFrame<'a>>,
    pub cpu: Option<&'a CpuCommand>,
}

/// The inputs as delivered to a device, as the cause table reads them: each frame as the
/// run's one decode has it.
pub(super) fn fed_of<'a>(inputs: &[In<'a>]) -> Vec<Fed<'a>> {
    inputs
        .iter()
        .map(|i| Fed {
            at: i.at,
            frame: i.frame.as_ref().map(|f| f.d.clone()),
            cpu: match i.input {
                Input::Cpu { command } => Some(command),
                _ => None,
            },
        })
        .collect()
}

/// The inputs a scenario injects (`inj`, decoded), as the cause table reads them.
pub(super) fn fed_scenario<'a>(inj: &[Injected<'a>]) -> Vec<Fed<'a>> {
    inj.iter()
        .map(|i| Fed {
            at: i.at(),
            frame: i.frame.clone(),
            cpu: match &i.rec.body {
                Body::Cpu { command } => Some(command),
                _ => None,
            },
        })
        .collect()
}

/// The cause table: every rule that expected frame `e` of `s`, missing or mistimed, can
/// be named by, each with when it applies, in the order the judge tries them. The naming
/// of a divergence ([`due_rule`]) takes the first that holds of what the device did;
/// coverage (`discriminates`) takes every entry that some device can reach. `fed`: the
/// inputs as delivered (for a judgement) or as the scenario injects them (for coverage);
/// `inj`: the records the scenario injects, decoded.
pub(super) fn causes(
    s: &Scenario,
    inj: &[Injected<'_>],
    fed: &[Fed<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
) -> Vec<Cause> {
    let ef = &exp[e].1;
    // Sent within its window under another PSN: the sender numbered it wrong.
    let renumbered = || Cause::new(SND_PSN_001, When::Renumbered);
    let mut out = match ef.kind {
        Kind::Data { rtx: true, .. } => {
            [vec![renumbered()], rtx_causes(s, inj, fed, exp, e)].concat()
        }
        Kind::Data { rtx: false, .. } => {
            let fit = fit_causes(s, inj, fed, exp, e);
            // The first packet after the wrap, sent under another PSN: the sender's PSN
            // arithmetic does not wrap to 0.
            let wrap = after_wrap(exp, e).then(|| Cause::new(BTH_PSN_001, When::Renumbered));
            [wrap.into_iter().collect(), vec![renumbered()], fit, first_causes(s, inj, exp, e)]
                .concat()
        }
        Kind::Nack { qp, psn, reason } => {
            let rule = wwi_nack(s, fed, qp, psn, reason)
                .unwrap_or_else(|| fields::nack_reason_rule(reason));
            vec![Cause::new(rule, When::Always)]
        }
        Kind::Ack { .. } => ack_causes(s, fed, exp, e),
        Kind::Probe { qp } if s.manifest.cpu == CpuHalf::Device => {
            let mut out = retry_causes(s, fed, exp, e, qp);
            out.push(Cause::new(REC_PROBE_001, When::Always));
            out
        }
        Kind::Probe { qp } => vec![Cause::new(probe_rule(s, fed, exp, e, qp), When::Always)],
        _ => vec![],
    };
    out.push(Cause::new(fields::default_rule(&ef.kind), When::Always));
    out
}

/// The estimates of the window-fit policy that expected first transmission `e` can be
/// named by when the device sends it on another EV (`fit`): the round trip a probe answer
/// gave, where one came before it; the rate, where an estimate of it can exist (from the
/// QP's second evaluation, its 17th first transmission, on); the limit. Only in a scenario
/// that judges EVs exactly (CONF-CMP-028), of a QP whose pool the judge can follow.
fn fit_causes(
    s: &Scenario,
    inj: &[Injected<'_>],
    fed: &[Fed<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
) -> Vec<Cause> {
    let (rec, ef) = &exp[e];
    let Kind::Data { qp, rtx: false, .. } = ef.kind else { return vec![] };
    if !s.manifest.requires.contains(&Capability::SprayPolicies) {
        return vec![];
    }
    let Some((local, _)) = super::fit::followed(s, inj, qp) else { return vec![] };
    let answered = fed.iter().any(|i| {
        i.at < rec.at.0
            && i.frame.as_ref().is_some_and(|d| {
                d.bth.is_some_and(|b| b.dest_qp.value() == local)
                    && d.ext.seth.is_some_and(|x| x.pr)
            })
    });
    let index = exp[..e]
        .iter()
        .filter(|(_, f)| matches!(f.kind, Kind::Data { qp: q, rtx: false, .. } if q == qp))
        .count();
    let mut out = Vec::new();
    if answered {
        out.push(Cause::new(SND_SPRAY_010, When::Contradicts(Estimate::ProbeSample)));
    }
    if index >= 16 {
        out.push(Cause::new(SND_SPRAY_007, When::Contradicts(Estimate::Rate)));
    }
    out.push(Cause::new(SND_SPRAY_006, When::Contradicts(Estimate::Limit)));
    out
}

/// The rule that names expected first transmission `e` of a window-fit QP, sent as it
/// was but on another EV: the entry of its cause table whose estimate the device's choices
/// contradict, as the QP's walk in `fits` rebuilds them from `inputs` as delivered and
/// the device's frames (`Fits::contradicted`); `None` when no estimate is.
pub(super) fn ev_cause(
    s: &Scenario,
    inj: &[Injected<'_>],
    inputs: &[In<'_>],
    exp: &[(&Record, Frame<'_>)],
    fits: &Fits<'_>,
    e: usize,
) -> Option<Rule> {
    let Kind::Data { qp, psn, rtx: false } = exp[e].1.kind else { return None };
    let est = fits.contradicted(qp, psn)?;
    causes(s, inj, &fed_of(inputs), exp, e)
        .into_iter()
        .find(|c| c.when == When::Contradicts(est))
        .map(|c| c.rule)
}

/// For expected frame `e`, a later packet of a message (a first transmission), what the
/// device's own first packet of the message makes its headers: the first packet is the
/// device's data frame of the QP under the PSN of the message's first expected packet.
fn head(cx: &Ctx<'_>, e: usize) -> Option<fields::Head> {
    let ef = &cx.exp[e].1;
    let Kind::Data { qp, rtx: false, .. } = ef.kind else { return None };
    if ef.d.bth?.opcode.is_first() {
        return None;
    }
    let msn = ef.d.ext.meth?.msn;
    let (_, f0) = cx.exp.iter().find(|(_, f)| {
        matches!(f.kind, Kind::Data { qp: q, rtx: false, .. } if q == qp)
            && f.d.ext.meth.is_some_and(|m| m.msn == msn)
            && f.d.bth.is_some_and(|b| b.opcode.is_first())
    })?;
    let Kind::Data { psn: psn0, .. } = f0.kind else { return None };
    let o0 = cx.obs.iter().find(|o| o.kind == Kind::Data { qp, psn: psn0, rtx: false })?;
    let (m0, r0) = (o0.d.ext.meth?, o0.d.ext.reth?);
    let offset = ef.d.ext.reth?.va.wrapping_sub(f0.d.ext.reth?.va);
    Some(fields::Head {
        msn: u64::from(m0.msn.value()),
        rqmsn: u64::from(m0.rqmsn.value()),
        rkey: u64::from(r0.rkey.value()),
        dma_len: u64::from(r0.dma_len),
        va: r0.va.wrapping_add(offset),
    })
}

/// OPC-WRITE-001 when the device's data frame is the expected one with one extension
/// header other than the TSETH left out, or with the bytes of one put in between two headers: its bytes
/// between the BTH and the ICRC are the expected ones less one header's, or with 4, 8 or
/// 16 more at a boundary. The fields read after the gap differ only because of it. Each
/// frame's TSETH is blanked first, its timestamp being the device's own clock.
fn header_stack_rule(ef: &Frame<'_>, of: &Frame<'_>) -> Option<Rule> {
    let Kind::Data { .. } = ef.kind else { return None };
    // A TSETH sent or left out whole is the sender's choice of whether to timestamp, or
    // its `ts` bit's (`fields::rule_of`), not a stack built wrong.
    if ef.d.ext.tseth.is_some() != of.d.ext.tseth.is_some() {
        return None;
    }
    // A stack that follows another opcode is that opcode's (a LAST without the ImmDt of the
    // LAST_IMM due): the opcode is what is wrong, named by its own rule.
    if ef.d.bth.map(|b| b.opcode) != of.d.bth.map(|b| b.opcode) {
        return None;
    }
    let body = |f: &Frame<'_>| -> Option<(usize, Vec<u8>)> {
        let base = f.d.layout.bth? + openrdma_codec::wire::BTH_LEN;
        let mut b = f.bytes.get(base..f.d.layout.icrc?)?.to_vec();
        let tseth = f.d.layout.ext.iter().find(|(h, _)| *h == openrdma_codec::ExtHeader::Tseth);
        if let Some(&(_, at)) = tseth {
            let at = at.checked_sub(base)?;
            b.get_mut(at..at + openrdma_codec::wire::TSETH_LEN)?.fill(0);
        }
        Some((base, b))
    };
    let ((base, be), (_, bo)) = (body(ef)?, body(of)?);
    if be == bo {
        return None;
    }
    let mut bounds: Vec<usize> =
        ef.d.layout.ext.iter().filter_map(|&(_, at)| at.checked_sub(base)).collect();
    bounds.push(ef.d.layout.payload?.checked_sub(base)?);
    let left_out = bounds.windows(2).any(|w| {
        let (a, b) = (w[0], w[1]);
        bo.len() + (b - a) == be.len() && bo[..a] == be[..a] && bo[a..] == be[b..]
    });
    let put_in = bounds.iter().any(|&at| {
        [4, 8, 16]
            .iter()
            .any(|&n| be.len() + n == bo.len() && bo[..at] == be[..at] && bo[at + n..] == be[at..])
    });
    (left_out || put_in).then_some(OPC_WRITE_001)
}

/// The rule a data frame's payload length breaks by itself, whatever the message: more
/// than the PMTU (PAY-LEN-001), a FIRST or MIDDLE packet of other than PMTU bytes or an
/// empty LAST packet (PAY-LEN-002).
fn payload_length_rule(cx: &Ctx<'_>, of: &Frame<'_>) -> Option<Rule> {
    let Kind::Data { .. } = of.kind else { return None };
    let op = of.d.bth?.opcode;
    let pmtu = usize::try_from(cx.scenario.manifest.nic.pmtu).ok()?;
    let len = of.d.payload.len();
    if len > pmtu {
        Some(PAY_LEN_001)
    } else if (!op.is_last() && len != pmtu) || (!op.is_first() && op.is_last() && len == 0) {
        Some(PAY_LEN_002)
    } else {
        None
    }
}

/// Whether the pad count alone accounts for a payload length that differs: the packet
/// carries the expected bytes, and its wrong count (PAY-PAD-001) cut or lengthened the
/// payload read from them.
fn pad_moved(ef: &Frame<'_>, of: &Frame<'_>) -> bool {
    let (Some(be), Some(bo)) = (ef.d.bth, of.d.bth) else { return false };
    be.pad_count != bo.pad_count
        && ef.d.payload.len() + usize::from(be.pad_count)
            == of.d.payload.len() + usize::from(bo.pad_count)
}

/// Whether expected frame `e` is a packet of a Write-with-Immediate message: one of the
/// expected packets of its QP and MSN carries an ImmDt.
pub(super) fn imm_message(exp: &[(&Record, Frame<'_>)], e: usize) -> bool {
    let key = |f: &Frame<'_>| {
        let d = &f.d;
        Some((d.bth?.dest_qp.value(), d.ext.meth?.msn, d.ext.immdt.is_some()))
    };
    let Some((qp, msn, imm)) = key(&exp[e].1) else { return false };
    imm || exp.iter().any(|(_, f)| {
        matches!(f.kind, Kind::Data { qp: q, .. } if q == qp) && key(f) == Some((qp, msn, true))
    })
}
