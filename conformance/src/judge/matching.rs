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
//!    ACK of an MSN already acknowledged) is left over, not taken for a late answer.
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

use openrdma_device::{
    Body, CpuCommand, CpuHalf, Input, NicEvent, NicReport, Output, Record, Scenario, Side,
    TimedInput, TimedOutput,
};

use openrdma_codec::frame::DecodedFrame;
use openrdma_codec::{AethRepr, Msn, Psn};

use super::fields::{self, Rule};
use super::{Divergence, FieldDiff, Frame, Kind, ack_class, diff, frame_fields, render_frame};
use crate::req::*;

/// The identity of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ident {
    Data { qp: u32, psn: u32, rtx: bool },
    Nack { qp: u32, psn: u32 },
    Ack { qp: u32, msn: Msn, class: (bool, u8) },
    Probe { qp: u32 },
    EpResponse { op: u8, request_id: u32 },
    EpRequest { op: u8, request_id: u32 },
}

fn ident(k: &Kind) -> Option<Ident> {
    Some(match *k {
        Kind::Data { qp, psn, rtx } => Ident::Data { qp, psn, rtx },
        Kind::Nack { qp, psn, .. } => Ident::Nack { qp, psn },
        Kind::Ack { qp, msn, syndrome } => Ident::Ack { qp, msn, class: ack_class(syndrome) },
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
        (Ident::Ack { qp, msn, class }, Ident::Ack { qp: q, msn: m, class: c }) => {
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
    pub injected: &'a [TimedInput],
    pub exp: &'a [(&'a Record, Frame<'a>)],
    pub obs: &'a [Frame<'a>],
    pub observed: &'a [TimedOutput],
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
        let lo = if early_ok { 0 } else { at.saturating_sub(tol.early_ns) };
        (lo, at.saturating_add(tol.late_ns))
    }

    /// Whether observed frame `i` is explained without an expectation: a transport ACK
    /// repeating an MSN the device acknowledged before, in a legal match (CONF-CMP-037).
    fn explained(&self, i: usize, pair_of: &[Option<(usize, bool)>]) -> bool {
        let o = &self.obs[i];
        let Kind::Ack { qp, msn, syndrome } = o.kind else { return false };
        ack_class(syndrome).0
            && pair_of.iter().flatten().any(|&(j, legal)| {
                let p = &self.obs[j];
                legal
                    && p.at <= o.at
                    && matches!(p.kind, Kind::Ack { qp: q, msn: m, syndrome: s }
                        if q == qp && m == msn && ack_class(s).0)
            })
    }
}

/// Pairs expected and observed frames and judges each pair and each expectation left over.
pub(super) fn pair(cx: &Ctx<'_>, div: &mut Vec<Divergence>) -> Pairing {
    let n = cx.obs.len();
    let mut used = vec![false; n];
    let mut pair_of: Vec<Option<(usize, bool)>> = vec![None; cx.exp.len()];
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
        let found =
            (0..n).find(|&i| !used[i] && ids[i] == Some(id) && (lo..=hi).contains(&cx.obs[i].at));
        if let Some(i) = found {
            if matches!(id, Ident::Ack { .. }) && nearer_ack(cx, e, i, &ids, &used) {
                continue;
            }
            used[i] = true;
            pair_of[e] = Some((i, true));
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
                judge_pair(cx, e, i, in_window, div);
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
    let Some(Ident::Ack { qp, msn, class }) = ident(&cx.exp[e].1.kind) else { return false };
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
            && matches!(ids[j], Some(Ident::Ack { qp: q, msn: m, class: c })
                if q == qp && c == class && m != msn)
            && (lo..=hi).contains(&cx.obs[j].at)
            && cx.obs[j].at.abs_diff(at) < ti
            && apart(j) <= di
    })
}

/// A pair: its fields, each named by its own rule, and its timing.
fn judge_pair(cx: &Ctx<'_>, e: usize, i: usize, in_window: bool, div: &mut Vec<Divergence>) {
    let (rec, ef) = &cx.exp[e];
    let of = &cx.obs[i];
    let mut fields = diff(&frame_fields(&ef.d), &frame_fields(&of.d));
    if !fields.is_empty() {
        let fcx = fields::Context {
            imm_message: cx.imm_message(e),
            ts_bit_only: ts_bit_only(&ef.d, of.bytes, &of.d),
            icrc: Some(super::wire::icrc_cause(of.bytes, &of.d).0),
            bth_byte1_swapped: bth_byte1_swapped(&ef.d, &of.d),
            head: head(cx, e),
        };
        let (mut rule, mut should_only) = fields::name(&ef.kind, &mut fields, fcx);
        // A payload length no packet of its position may have: the cause of whatever
        // opcode, address or bytes differ with it.
        if let Some(stack) = header_stack_rule(ef, of) {
            rule = stack;
            should_only = false;
        } else if let Some(len_rule) = payload_length_rule(cx, of) {
            if let Some(f) = fields.iter_mut().find(|f| f.field == "payload") {
                f.name(len_rule);
                rule = len_rule;
                should_only = false;
            }
        }
        if let Some(misread) = ev_misread(cx, e, &mut fields) {
            rule = misread;
        }
        // Another expected packet of the QP under this one's PSN: the sender numbered the
        // right packet wrong, whatever fields of the one it displaced then differ.
        if is_other_packet(cx, e, of) {
            rule = SND_PSN_001;
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
            should_only: false,
            check: "",
            ..Divergence::of(of.at.min(rec.at.0), due_rule(cx, e, Some(of.at)), what)
        });
    }
}

/// When the EV a transport ACK or NAK travels on is that of the packet that caused it with
/// bits 19:16 of that packet's IPv6 flow label taken in, the device reconstructed the EV
/// wrong (ENC-EV-001.c): that field is renamed, and the rule returned when it is the first
/// MUST field.
fn ev_misread(cx: &Ctx<'_>, e: usize, fields: &mut [FieldDiff]) -> Option<Rule> {
    let (rec, ef) = &cx.exp[e];
    if !matches!(ef.kind, Kind::Ack { .. }) {
        return None;
    }
    let local = super::peer_map(cx.scenario).get(&ef.d.bth?.dest_qp.value()).copied()?;
    let hex = |v: &str| u32::from_str_radix(v.trim_start_matches("0x"), 16).ok();
    let highs: Vec<u32> = cx
        .injected
        .iter()
        .filter(|i| i.at.0 <= rec.at.0)
        .filter_map(|i| match &i.input {
            Input::Frame { bytes, .. } => {
                let d = openrdma_codec::frame::decode(bytes);
                match (&d.ip, d.bth) {
                    (Some(openrdma_codec::frame::IpRepr::V6(v6)), Some(b))
                        if b.dest_qp.value() == local =>
                    {
                        Some(v6.flow_label & 0xF_0000)
                    }
                    _ => None,
                }
            }
            _ => None,
        })
        .filter(|&h| h != 0)
        .collect();
    let first_must = fields.iter().position(|f| f.clause.is_some_and(fields::is_must));
    let k = fields.iter().position(|f| {
        f.field == "ev"
            && matches!((hex(&f.expected), hex(&f.actual)), (Some(x), Some(y))
                if highs.iter().any(|&h| x | h == y))
    })?;
    fields[k].name(ENC_EV_001_C);
    (first_must == Some(k)).then_some(ENC_EV_001_C)
}

/// Whether the device's frame `act` carries in BTH byte 1 the expected frame's
/// `solicited` and `mig_req` bits the other way round, and they differ.
fn bth_byte1_swapped(exp: &DecodedFrame<'_>, act: &DecodedFrame<'_>) -> bool {
    match (exp.bth, act.bth) {
        (Some(e), Some(a)) => {
            e.solicited != e.mig_req && a.solicited == e.mig_req && a.mig_req == e.solicited
        }
        _ => false,
    }
}

/// Whether the device's frame `act` (its bytes `bytes`) is the expected `exp` once its
/// BTH `ts` bit is flipped: the TSETH is where it should be, or is not, and only the bit
/// disagrees (TSETH-PRESENT-001).
fn ts_bit_only(exp: &DecodedFrame<'_>, bytes: &[u8], act: &DecodedFrame<'_>) -> bool {
    if exp.ext.tseth.is_some() == act.ext.tseth.is_some() {
        return false;
    }
    let Some(at) = act.layout.bth.map(|b| b + 8).filter(|&i| i < bytes.len()) else {
        return false;
    };
    let mut b = bytes.to_vec();
    b[at] ^= 0x10;
    let flipped = openrdma_codec::frame::decode(&b);
    flipped.error.is_none()
        && diff(&frame_fields(exp), &frame_fields(&flipped)).iter().all(|f| f.field == "icrc")
}

/// A field difference in a few words.
pub(super) fn describe(f: &FieldDiff) -> String {
    format!("{} is {}, expected {}", f.field, f.actual, f.expected)
}

fn missing(cx: &Ctx<'_>, e: usize) -> Divergence {
    let (rec, ef) = &cx.exp[e];
    let cause = named_cause(cx, e, None);
    let what = if matches!(cause.when, When::NotTaken(_)) {
        "an expected packet was not sent: the device did not take a frame it must take"
    } else {
        "an expected packet was not sent"
    };
    Divergence {
        expected: Some(render_frame(ef.bytes)),
        should_only: false,
        check: "",
        ..Divergence::of(rec.at.0, cause.rule, what.into())
    }
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
    let fed = fed_inputs(cx.injected);
    let at = cx.exp[e].0.at.0;
    causes(cx.scenario, &fed, cx.exp, e)
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
            When::RetriedAfter(qp) => {
                let after = at.saturating_add(self.scenario.manifest.tolerances.late_ns);
                sent.is_none()
                    && self.obs.iter().any(|o| {
                        o.at > after
                            && matches!(o.kind, Kind::Data { qp: q, rtx: true, .. } if q == qp)
                    })
            }
            When::Renumbered => sent.is_none() && renumbered(self, e),
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
            When::NotTaken(None) => sent.is_none(),
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
    /// The device reported no armed timer of its QP (the device's number, if known).
    Unarmed(Option<u32>),
    /// The frame is missing, and the device failed the QP (the device's number) before it
    /// was due: a requester entry of it with an error status came by then.
    FailedBy(Option<u32>),
    /// The frame is missing, and the device sent a retransmission of the QP (its number on
    /// the wire) after the frame's window.
    RetriedAfter(u32),
    /// The frame is missing because the device did not take a frame it must take; with a
    /// time, only when the device sent nothing after it up to the frame's time.
    NotTaken(Option<u64>),
    /// The data packet is missing, and the device sent within its window a packet of the
    /// QP that differs from it in its PSN only ([`renumbered`]).
    Renumbered,
    /// The ACK is missing, and the device wrote no retirement flag of its message (the
    /// device's QP and the MSN) by the ACK's time: it did not retire the message.
    Unretired(u32, Msn),
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

/// The inputs as delivered to a device.
pub(super) fn fed_inputs(injected: &[TimedInput]) -> Vec<Fed<'_>> {
    injected
        .iter()
        .map(|i| match &i.input {
            Input::Frame { bytes, .. } => {
                Fed { at: i.at.0, frame: Some(openrdma_codec::frame::decode(bytes)), cpu: None }
            }
            Input::Cpu { command } => Fed { at: i.at.0, frame: None, cpu: Some(command) },
            Input::Host { .. } => Fed { at: i.at.0, frame: None, cpu: None },
        })
        .collect()
}

/// The inputs a scenario injects, as the cause table reads them.
pub(super) fn fed_scenario(s: &Scenario) -> Vec<Fed<'_>> {
    s.injects()
        .map(|r| match &r.body {
            Body::Frame { bytes, .. } => {
                Fed { at: r.at.0, frame: Some(openrdma_codec::frame::decode(bytes)), cpu: None }
            }
            Body::Cpu { command } => Fed { at: r.at.0, frame: None, cpu: Some(command) },
            _ => Fed { at: r.at.0, frame: None, cpu: None },
        })
        .collect()
}

/// The cause table: every rule that expected frame `e` of `s`, missing or mistimed, can
/// be named by, each with when it applies, in the order the judge tries them. The naming
/// of a divergence ([`due_rule`]) takes the first that holds of what the device did;
/// coverage (`discriminates`) takes every entry that some device can reach. `fed`: the
/// inputs as delivered (for a judgement) or as the scenario injects them (for coverage).
pub(super) fn causes(
    s: &Scenario,
    fed: &[Fed<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
) -> Vec<Cause> {
    let ef = &exp[e].1;
    // Sent within its window under another PSN: the sender numbered it wrong.
    let renumbered = || Cause::new(SND_PSN_001, When::Renumbered);
    let mut out = match ef.kind {
        Kind::Data { rtx: true, .. } => [vec![renumbered()], rtx_causes(s, fed, exp, e)].concat(),
        Kind::Data { rtx: false, .. } => [vec![renumbered()], first_causes(s, exp, e)].concat(),
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

/// A transport ACK or NAK. Not sent because the device did not take the frame that causes
/// it ([`not_taken`]); an acknowledgement the scenario expected before is repaired: a
/// duplicate of a retired message is acknowledged again (RCV-DUP-002); an ACK is owed at
/// once, on the input that retired enough messages (RCV-ACK-001.a), on a packet of another
/// QP of the domain that retired them (RCV-ACK-003.b), or by the timer (RCV-ACK-001.b);
/// a NAK by RCV-NAK-002.a.
fn ack_causes(s: &Scenario, fed: &[Fed<'_>], exp: &[(&Record, Frame<'_>)], e: usize) -> Vec<Cause> {
    let (rec, ef) = &exp[e];
    let Kind::Ack { qp, msn, syndrome } = ef.kind else { return vec![] };
    let mut out = not_taken(s, fed, exp, e);
    let class = ack_class(syndrome);
    let again = exp[..e].iter().any(|(_, f)| {
        matches!(f.kind, Kind::Ack { qp: q, msn: m, syndrome: y }
            if q == qp && m == msn && ack_class(y) == class)
    });
    let at_once = fed.iter().any(|i| i.at == rec.at.0 && i.frame.is_some());
    // Owed at once for a packet of another QP of the domain, whose arrival retired this
    // QP's messages (RCV-ACK-003.b): no frame of this QP arrived then.
    let local = ef.d.bth.and_then(|b| super::peer_map(s).get(&b.dest_qp.value()).copied());
    let arrived: Vec<u32> = fed
        .iter()
        .filter(|i| i.at == rec.at.0)
        .filter_map(|i| Some(i.frame.as_ref()?.bth?.dest_qp.value()))
        .collect();
    let for_other = local.is_some_and(|l| !arrived.is_empty() && !arrived.contains(&l));
    // An ACK that retirement makes due, whose message the device did not retire either:
    // no flag of it came. The retirement is what broke: the pass over a failed QP's
    // entries when a QP failed then (RET-ERR-001.b), else the order.
    if class.0 && !again {
        if let Some(&local) = super::peer_map(s).get(&qp) {
            if retirement_flag_due(s, local, msn) {
                let rule = if failure_at(s, rec.at.0) { RET_ERR_001_B } else { RET_ORDER_001 };
                out.push(Cause::new(rule, When::Unretired(local, msn)));
            }
        }
    }
    let rule = match (again, class.0) {
        (true, _) => RCV_DUP_002,
        (false, true) if at_once && for_other => RCV_ACK_003_B,
        (false, true) if at_once => RCV_ACK_001_A,
        (false, true) => RCV_ACK_001_B,
        // The remote access NAK is the region check's response (RCV-PLACE-002.b).
        (false, false) if syndrome == AethRepr::NAK_REMOTE_ACCESS => RCV_PLACE_002_B,
        (false, false) => RCV_NAK_002_A,
    };
    out.push(Cause::new(rule, When::Always));
    out
}

/// Whether the scenario expects the retirement flag of message `msn` of the device's QP
/// `local`.
fn retirement_flag_due(s: &Scenario, local: u32, msn: Msn) -> bool {
    s.expects().any(|r| {
        matches!(&r.body, Body::Event { event: NicEvent::FlagWrite(f) }
            if f.side == Side::Responder && f.qpn.value() == local && f.msn == msn)
    })
}

/// Whether the scenario expects a QP to fail at `at`.
fn failure_at(s: &Scenario, at: u64) -> bool {
    s.expects().any(|r| {
        r.at.0 == at
            && matches!(&r.body, Body::Event { event: NicEvent::Report(NicReport::QpError { .. }) })
    })
}

/// Why the device sent no answer `e` to its QP's frames: it did not take a frame it must
/// take. The frames of the QP delivered since the QP's previous expected frame are looked
/// at, latest first: one with a value a receiver must accept names that receive rule
/// ([`super::arrivals::accept_clause`]). Failing that, a frame to discard after which the
/// device sent nothing at all, up to the answer's time, names the rule that makes it one
/// to discard: the device stopped taking frames on it.
fn not_taken(s: &Scenario, fed: &[Fed<'_>], exp: &[(&Record, Frame<'_>)], e: usize) -> Vec<Cause> {
    let (rec, ef) = &exp[e];
    let at = rec.at.0;
    let Some(qp) = ef.d.bth.map(|b| b.dest_qp.value()) else { return vec![] };
    let Some(&local) = super::peer_map(s).get(&qp) else { return vec![] };
    let since = exp[..e]
        .iter()
        .rev()
        .find(|(_, f)| f.d.bth.is_some_and(|b| b.dest_qp.value() == qp))
        .map_or(0, |(r, _)| r.at.0);
    let mut discard = None;
    for (t, d) in
        fed.iter().filter(|i| i.at <= at).rev().filter_map(|i| Some((i.at, i.frame.as_ref()?)))
    {
        if t > since && d.bth.is_some_and(|b| b.dest_qp.value() == local) {
            if let Some(rule) = super::arrivals::accept_clause(d) {
                return vec![Cause::new(rule, When::NotTaken(None))];
            }
        }
        if discard.is_none() {
            discard = d.discard_reason().map(|r| (t, r));
        }
    }
    discard
        .and_then(|(t, reason)| {
            super::discard_clause(reason).map(|rule| Cause::new(rule, When::NotTaken(Some(t))))
        })
        .into_iter()
        .collect()
}

/// Whether the device's data packet `of`, paired with expected packet `e` by its PSN, is
/// another expected packet of the QP but for its PSN (and the ICRC that covers it).
fn is_other_packet(cx: &Ctx<'_>, e: usize, of: &Frame<'_>) -> bool {
    let Kind::Data { qp, psn, .. } = cx.exp[e].1.kind else { return false };
    let got = frame_fields(&of.d);
    cx.exp.iter().enumerate().any(|(k, (_, f))| {
        k != e
            && matches!(f.kind, Kind::Data { qp: q, psn: p, .. } if q == qp && p != psn)
            && diff(&frame_fields(&f.d), &got)
                .iter()
                .all(|x| x.field == "bth.psn" || x.field == "icrc")
    })
}

/// Whether the device sent expected data packet `e`, within its window, under another PSN:
/// a packet of the QP that differs from it in its PSN only (and the ICRC that covers it).
/// The sender numbered the right packet wrong (SND-PSN-001), whatever took that number.
fn renumbered(cx: &Ctx<'_>, e: usize) -> bool {
    let ef = &cx.exp[e].1;
    let Kind::Data { qp, psn, .. } = ef.kind else { return false };
    let (lo, hi) = cx.window(e);
    let want = frame_fields(&ef.d);
    cx.obs.iter().any(|o| {
        matches!(o.kind, Kind::Data { qp: q, psn: p, .. } if q == qp && p != psn)
            && (lo..=hi).contains(&o.at)
            && diff(&want, &frame_fields(&o.d))
                .iter()
                .all(|f| f.field == "bth.psn" || f.field == "icrc")
    })
}

/// The rules a first transmission that is missing or mistimed breaks: what released it at
/// its expected time, as the scenario shows it, and not the segmentation of its message.
///
/// * Released by an acknowledgement the scenario injects at that time, and sent before it:
///   the rule that held it back — the Write-with-Immediate limit for the first packet of
///   such a message freed by a transport ACK (WWI-LIMIT-001), the congestion hook of its QP
///   (SND-CC-001), the peer's window a SACK with an `mpr` set before the packet left
///   (SND-WIN-002.b), or the window (SND-WIN-001).
/// * Released so, but not sent then (missing, or late): the sender did not act on the
///   acknowledgement. A SACK carrying values a receiver must not interpret names that rule
///   (SETH-PDC-001.b, SETH-TYPE-001.b, SETH-CC-001.b, SETH-M-001.b); a probe answer with
///   no mark, the rule that makes its EV usable again (EV-PROBE-002); else its bitmap
///   (SND-SACK-002.a) or its cumulative part (SND-SACK-001).
/// * Released by no input: sent at a probe answer whose mark should have held its EV
///   (EV-PROBE-003), or at one with no mark while a controller held the EV DENIED
///   (EV-DENY-002); after a SACK marked an EV of the QP to skip, the skip's hold
///   (EV-SKIP-002); else never sent, after an ACK with credit code 0: the credit taken for
///   a limit (AETH-MRC-002.b).
/// * Otherwise the message's segmentation (SND-SEG-001.a).
fn first_causes(s: &Scenario, exp: &[(&Record, Frame<'_>)], e: usize) -> Vec<Cause> {
    use openrdma_codec::EvMark;
    use openrdma_device::{CongestionControl, EvState};
    let (rec, ef) = &exp[e];
    let at = rec.at.0;
    let Kind::Data { qp, .. } = ef.kind else { return vec![] };
    let Some(&local) = super::peer_map(s).get(&qp) else { return vec![] };
    // What the scenario injects into the QP up to the expected time, with its time.
    let acks = super::acks_into(s, local, at);
    let mut out = Vec::new();
    match acks.iter().rev().find(|(t, _)| *t == at).map(|(_, d)| d) {
        Some(d) => {
            let first = ef.d.bth.is_some_and(|b| b.opcode.is_first());
            let cc = super::created_qp(s, local).map(|q| q.cc);
            if d.ext.aeth.is_some() && first && imm_message(exp, e) {
                out.push(Cause::new(WWI_LIMIT_001, When::EarlyFrom(0)));
            } else if matches!(cc, Some(CongestionControl::FixedWindow { .. })) {
                out.push(Cause::new(SND_CC_001, When::EarlyFrom(0)));
            } else {
                let mpr = acks.iter().find(|(_, a)| a.ext.seth.is_some_and(|x| x.mpr != 0));
                if let Some((t, _)) = mpr {
                    out.push(Cause::new(SND_WIN_002_B, When::EarlyFrom(*t)));
                }
                out.push(Cause::new(SND_WIN_001, When::EarlyFrom(0)));
            }
            let rule = match d.ext.seth {
                Some(x) if x.spdcid != 0 || x.dpdcid != 0 => SETH_PDC_001_B,
                Some(x) if x.res_type != 0 || x.next_header != 0 => SETH_TYPE_001_B,
                Some(x) if x.cc_type != 0 => SETH_CC_001_B,
                // The reserved mark is read as NONE.
                Some(x) if x.m.0 == 3 => SETH_M_001_B,
                Some(x) if x.pr && x.m == EvMark::NONE => EV_PROBE_002,
                Some(x) if x.sack_bitmap != 0 => SND_SACK_002_A,
                Some(_) => SND_SACK_001,
                None => SND_SEG_001_A,
            };
            // Missing or late: an early frame took an entry above.
            out.push(Cause::new(rule, When::Always));
        }
        None => {
            let answers = |marked: bool| {
                acks.iter().filter(move |(t, d)| {
                    *t < at && d.ext.seth.is_some_and(|x| x.pr && (x.m != EvMark::NONE) == marked)
                })
            };
            // Sent early, at a probe answer whose skip mark should have held its EV in SKIP.
            for (t, _) in answers(true) {
                out.push(Cause::new(EV_PROBE_003, When::SentAt(*t)));
            }
            // Sent early, at a probe answer with no mark, while a controller held the QP's
            // EV DENIED: the answer ended a state only a controller ends.
            for (t, _) in answers(false) {
                let held = s.injects().filter(|r| r.at.0 <= *t).filter_map(|r| match &r.body {
                    Body::Cpu { command: CpuCommand::SetEvState { qpn, state, .. } }
                        if qpn.value() == local =>
                    {
                        Some(*state)
                    }
                    _ => None,
                });
                if held.last() == Some(EvState::Denied) {
                    out.push(Cause::new(EV_DENY_002, When::SentAt(*t)));
                }
            }
            let skipped = acks.iter().any(|(_, a)| {
                a.ext.seth.is_some_and(|x| matches!(x.m, EvMark::SKIP_ONCE | EvMark::ALWAYS_SKIP))
            });
            if skipped {
                out.push(Cause::new(EV_SKIP_002, When::Always));
            } else if super::credit_zero_before(&acks) {
                // Never sent, after an ACK whose credit code is 0: the sender took the
                // credit for a limit.
                out.push(Cause::new(AETH_MRC_002_B, When::Missing));
            }
        }
    }
    out
}

/// The rules a retransmission of `psn` on the wire QP `qp` (the peer's number) is due by:
/// the input that asks for it. A NACK or SACK asks at once: one within `late_ns` before it
/// is the cause. Otherwise it is a timeout's: a command of the CPU half (REC-IF-010); with
/// no command, the reports the CPU half's timer runs on (REC-IF-003 when the device did not
/// report the timer armed, else REC-IF-002); with the device's own CPU half, its retry
/// counter when the device failed the QP before the packet was due (REC-RTO-002 when the
/// scenario delivered progress since the QP's first timeout, else REC-RETRY-001), its
/// timer when the packet is missing but the QP was retransmitted later or the packet is
/// mistimed (REC-RTO-001, or after a first timeout REC-RTO-005), and REC-RTO-003 when it
/// is missing and nothing was retransmitted later.
fn rtx_causes(s: &Scenario, fed: &[Fed<'_>], exp: &[(&Record, Frame<'_>)], e: usize) -> Vec<Cause> {
    let (rec, ef) = &exp[e];
    let at = rec.at.0;
    let Kind::Data { qp, psn, .. } = ef.kind else { return vec![] };
    if s.manifest.cpu == CpuHalf::Device {
        let again = exp[..e]
            .iter()
            .any(|(_, f)| matches!(f.kind, Kind::Data { qp: q, rtx: true, .. } if q == qp));
        let timed = if again { REC_RTO_005 } else { REC_RTO_001 };
        let mut out = retry_causes(s, fed, exp, e, qp);
        // Missing, while the QP was retransmitted later: its timer runs wrong.
        out.push(Cause::new(timed, When::RetriedAfter(qp)));
        out.push(Cause::new(REC_RTO_003, When::Missing));
        // Mistimed: a missing frame took an entry before.
        out.push(Cause::new(timed, When::Always));
        return out;
    }
    let late = s.manifest.tolerances.late_ns;
    let local = super::peer_map(s).get(&qp).copied();
    let mut cause = None;
    let mut commanded = false;
    for i in fed.iter().filter(|i| i.at <= at) {
        let recent = i.at.saturating_add(late) >= at;
        if let Some(CpuCommand::Retransmit { qpn, psn: p }) = i.cpu {
            // A resend of a packet a SACK showed arrived (REC-RTO-004): of the commanded
            // PSN when every PSN from it on was SACKed (.b), of the last packet of a
            // message whose ACK was lost when nothing was outstanding (.c).
            let sacked = fed.iter().filter(|j| j.at <= i.at).any(|j| {
                j.frame.as_ref().is_some_and(|d| {
                    d.bth.map(|b| b.dest_qp.value()) == local
                        && d.ext.seth.is_some_and(|x| !x.pr && x.is_sacked(Psn::new(psn)))
                })
            });
            if Some(qpn.value()) == local && recent && sacked {
                commanded = true;
                cause =
                    Some(if Psn::new(psn).is_before(*p) { REC_RTO_004_C } else { REC_RTO_004_B });
            } else if Some(qpn.value()) == local && p.value() == psn {
                commanded = true;
                cause = Some(REC_IF_010);
            }
        }
        let Some(d) = i.frame.as_ref().filter(|_| recent) else { continue };
        if d.bth.map(|b| b.dest_qp.value()) != local {
            continue;
        }
        if let Some(n) = d.ext.neth {
            if n.nack_psn.value() == psn {
                cause = Some(nack_cause(n.reason));
            }
        } else if let Some(x) = d.ext.seth {
            // A SACK that leaves the PSN out while it claims later ones.
            let ahead = psn.wrapping_sub(x.cack_psn.value()) & 0xFF_FFFF;
            if (1..1 << 23).contains(&ahead) && x.sack_bitmap != 0 {
                cause = Some(SND_INFER_001);
            }
        }
    }
    match cause {
        Some(c) => vec![Cause::new(c, When::Always)],
        None if commanded || s.manifest.cpu != CpuHalf::Reference => {
            vec![Cause::new(SND_RTX_001_A, When::Always)]
        }
        // The runner's CPU half did not command it: it acts on the device's reports.
        None => {
            vec![Cause::new(REC_IF_003, When::Unarmed(local)), Cause::new(REC_IF_002, When::Always)]
        }
    }
}

/// The rule a probe of the wire QP `qp` that the runner's CPU half makes due (expected
/// frame `e`) is named by: a CPU command that asked for it within `late_ns` before it
/// (EV-PROBE-005.a); with none, the tail-probe timer of a QP whose spray policy queues no
/// probes (SND-TAIL-001.a).
fn probe_rule(
    s: &Scenario,
    fed: &[Fed<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
    qp: u32,
) -> Rule {
    let at = exp[e].0.at.0;
    let late = s.manifest.tolerances.late_ns;
    let Some(local) = super::peer_map(s).get(&qp).copied() else {
        return EV_PROBE_005_A;
    };
    let commands = fed.iter().filter_map(|i| Some((i.at, i.cpu?)));
    if super::probe_commanded(commands, local, at, late) {
        return EV_PROBE_005_A;
    }
    match super::tail_rule(s, local) {
        Some(r) if r == SND_TAIL_001_A => r,
        _ => EV_PROBE_005_A,
    }
}

/// The rules an expected frame of the wire QP `qp` that the device's own CPU half makes
/// due (a timeout retransmission, a probe) is named by when it is missing because the
/// device failed the QP before: its retry counter ran out too soon, not reset by the
/// progress the scenario delivered since the QP's first timeout (REC-RTO-002), or else
/// counted wrong (REC-RETRY-001).
fn retry_causes(
    s: &Scenario,
    fed: &[Fed<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
    qp: u32,
) -> Vec<Cause> {
    let at = exp[e].0.at.0;
    let first_rtx = exp[..e].iter().find_map(|(r, f)| {
        matches!(f.kind, Kind::Data { qp: q, rtx: true, .. } if q == qp).then_some(r.at.0)
    });
    let local = super::peer_map(s).get(&qp).copied();
    let progress = first_rtx.is_some_and(|t0| {
        fed.iter().filter(|i| i.at > t0 && i.at <= at).any(|i| {
            i.frame.as_ref().is_some_and(|d| {
                d.bth.map(|b| b.dest_qp.value()) == local
                    && (d.ext.seth.is_some() || d.ext.aeth.is_some())
            })
        })
    });
    let mut out = Vec::new();
    if progress {
        out.push(Cause::new(REC_RTO_002, When::FailedBy(local)));
    }
    out.push(Cause::new(REC_RETRY_001, When::FailedBy(local)));
    out
}

/// A NACK UNEXP_EVENT for a write with an immediate whose RQMSN is beyond the responder's
/// `wwi_limit` (WWI-LIMIT-002): the write to the QP whose wire number is `qp` with PSN
/// `psn` the scenario delivered carries an ImmDt.
fn wwi_nack(s: &Scenario, fed: &[Fed<'_>], qp: u32, psn: u32, reason: u8) -> Option<Rule> {
    if openrdma_codec::NackReason(reason) != openrdma_codec::NackReason::UNEXP_EVENT {
        return None;
    }
    let local = super::peer_map(s).get(&qp).copied()?;
    let imm = fed.iter().filter_map(|i| i.frame.as_ref()).any(|d| {
        d.bth.is_some_and(|b| b.dest_qp.value() == local && b.psn.value() == psn)
            && d.ext.immdt.is_some()
    });
    imm.then_some(WWI_LIMIT_002)
}

fn nack_cause(r: openrdma_codec::NackReason) -> Rule {
    use openrdma_codec::NackReason as R;
    match r {
        R::TRIMMED | R::TRIMMED_LASTHOP => SND_NACK_002,
        _ => SND_NACK_004_A,
    }
}
