//! Completion entries and completion queues (`CQE-*`, `spec/conformance.md` CONF-CMP-009
//! and CONF-CMP-021).
//!
//! The sequences of entries are compared with the scenario's in the scoreboard proper; this
//! module holds what is judged of every entry a device writes whatever the scenario expects
//! (the truth of a ring, like the truth of a SACK), and how a difference in an entry is
//! attributed:
//!
//! * every entry must obey the rules of the entry on its own ([`CompletionRepr::validate`]:
//!   reserved bits, `imm` and `timestamp` without their flags, the status and opcode codes);
//! * an entry written to a queue must sit at a naturally aligned address (`CQE-RING-003`),
//!   and must not overwrite an entry the consumer has not released, as the consumer
//!   register writes of the scenario say (`CQE-RING-004`);
//! * timestamps, where the device gives them, must advance with the time of the writes
//!   (`CQE-TS-001`; a SHOULD, so a difference is reported as non-strict);
//! * a difference is reported under the requirement of the first field that differs: the
//!   queue under `CQE-ROUTE-001` (or `CQE-REJECT-002` for a rejected token), the slot and
//!   the phase under `CQE-RING-001.b`, the address of the right slot under `CQE-RING-001.a`
//!   (the ring is not where the consumer reads it); a multi-byte field whose bytes are the
//!   expected value's in reverse under `CQE-LAYOUT-001`; an entry whose bytes 0 to 30, or
//!   whose first half, are still the slot's previous contents under `CQE-RING-003`, and so
//!   an entry whose flags (in the first half) disagree with its `imm` or `timestamp` (in
//!   the second) because its first half is still the previous contents.

use std::collections::HashMap;

use openrdma_codec::host::{COMPLETION_LEN, CompletionRepr, CompletionStatus};
use openrdma_device::{Body, CompletionEvent, Direction, HostCommand, NicEvent, Scenario, Side};

use super::sequences::full_stop;
use super::{Divergence, FieldDiff, render_event};
use crate::req::{CQE_RING_005_B, CQE_RING_005_C, Clause};
use openrdma_device::CqId;

/// What the scoreboard learnt of each observed entry written to a queue, by its index
/// among the observed events: the bytes its slot held before it (zero before the first
/// write), for the attribution of a torn write (`CQE-RING-003`).
pub(super) type SlotHistory = HashMap<usize, [u8; COMPLETION_LEN]>;

/// Judges every observed completion on its own and as a write to its queue; returns the
/// slot history of the observed entries. `obs` are the observed events with their times, in
/// order.
pub(super) fn judge(
    scenario: &Scenario,
    obs: &[(u64, &NicEvent)],
    late_ns: u64,
    div: &mut Vec<Divergence>,
) -> SlotHistory {
    // The consumer register writes of the scenario, per queue, in time order.
    let mut consumed: HashMap<CqId, Vec<(u64, u32)>> = HashMap::new();
    for r in scenario.records.iter().filter(|r| r.dir == Direction::Inject) {
        if let Body::Host { command: HostCommand::CqConsumer { cq, consumed: c } } = &r.body {
            consumed.entry(*cq).or_default().push((r.at.0, *c));
        }
    }
    // Per queue: entries written so far; per (queue, slot): the ordinal of the entry in it
    // and its bytes.
    let sizes = ring_sizes(scenario);
    let routes = Routes::of(scenario);
    let mut written: HashMap<CqId, u64> = HashMap::new();
    let mut slots: HashMap<(CqId, u32), (u64, [u8; COMPLETION_LEN])> = HashMap::new();
    let mut history = SlotHistory::new();
    let mut last_stamp: Option<(u64, u32)> = None;
    for (i, &(at, e)) in obs.iter().enumerate() {
        let NicEvent::Completion(c) = e else { continue };
        let entry = c.written_entry();
        let mut violations = Vec::new();
        entry.validate(0, &mut violations);
        // What the entry's slot held before it, to tell a torn write from a wrong field.
        let prior = c.queue.as_ref().map(|q| {
            let held = slots.get(&(q.cq, q.slot)).map_or([0; COMPLETION_LEN], |b| b.1);
            (q.bytes, held)
        });
        // An entry the requester wrote with `is_receive` set is the requester's entry with
        // that bit wrong, not a receive completion: validate() reads the entry alone and
        // would name the receive rules for its opcode, status or `wr_id`.
        if c.side == Side::Requester && entry.is_receive {
            violations.retain(|v| entry_clause(v.requirement) != crate::req::CQE_RECV_001);
            let rule = if entry.status.is_doorbell_reject() {
                crate::req::CQE_REJECT_001
            } else if entry.status.is_success() {
                crate::req::CQE_SEND_001
            } else {
                crate::req::CQE_SEND_002
            };
            div.push(Divergence {
                fields: vec![FieldDiff::new("is_receive", "false".into(), "true".into())],
                ..Divergence::of_output(
                    at,
                    rule,
                    "completion entry: the requester's entry has is_receive 1".into(),
                    e,
                )
            });
        }
        for v in violations {
            let torn = prior.is_some_and(|(got, held)| torn_split(&got, &held, v.requirement));
            let what = format!("completion entry: {} ({} = {:#x})", v.rule, v.field, v.value);
            let d = if torn {
                Divergence::named(at, crate::req::CQE_RING_003_B, what)
            } else {
                Divergence::named(at, entry_clause(v.requirement), what)
            };
            div.push(Divergence { actual: Some(render_event(e)), ..d });
        }
        if entry.has_timestamp {
            // CQE-TS-001 (SHOULD): the low 32 bits of one nanosecond clock. Two entries'
            // stamps differ by the time between their writes, modulo 2^32.
            if let Some((t0, s0)) = last_stamp {
                let elapsed = at.saturating_sub(t0);
                let stamped = entry.timestamp.wrapping_sub(s0);
                if elapsed < 1 << 31 && stamp_error(stamped, elapsed) > late_ns {
                    let what = format!(
                        "the timestamps of two entries differ by {stamped} ns, but they were \
                         written {elapsed} ns apart"
                    );
                    div.push(Divergence {
                        should_only: true,
                        ..Divergence::of_output(at, crate::req::CQE_TS_001_A, what, e)
                    });
                }
            }
            last_stamp = Some((at, entry.timestamp));
        }
        let Some(q) = &c.queue else { continue };
        if q.addr % 32 != 0 {
            let what = format!("a completion entry written at {:#x}, not 32-byte aligned", q.addr);
            div.push(Divergence::of_output(at, crate::req::CQE_RING_003_A, what, e));
        }
        let k = written.entry(q.cq).or_default();
        let ordinal = *k;
        *k += 1;
        let before = slots.insert((q.cq, q.slot), (ordinal, q.bytes));
        history.insert(i, before.map_or([0; COMPLETION_LEN], |b| b.1));
        // CQE-RING-001.b, by truth: the device's own k-th entry of the queue goes at slot
        // k mod N. An entry elsewhere is named by that rule; what it overwrote there
        // follows from it and is not named again.
        if let Some(d) = sizes.get(&q.cq).and_then(|&n| misplaced(at, e, q, ordinal, n)) {
            div.push(d);
            continue;
        }
        if routes.queue_of(at, c.side, &entry).is_some_and(|want| want != q.cq) {
            // Written to another queue than its own: that is the divergence, named by the
            // comparison of the entries (CQE-ROUTE-001, CQE-REJECT-002); what it overwrote
            // in the wrong queue follows from it.
            continue;
        }
        if let Some((previous, _)) = before {
            // CQE-RING-004: the entry in the slot, the queue's `previous`-th, must have been
            // released: the consumer count written by now exceeds it.
            let released = consumed
                .get(&q.cq)
                .and_then(|w| w.iter().rev().find(|(t, _)| *t <= at))
                .map_or(0, |&(_, c)| unwrap_count(c, ordinal));
            if released <= previous {
                let what = format!(
                    "completion queue {} slot {}: overwrote the queue's entry {previous}, which \
                     the consumer had not released ({released} released)",
                    q.cq, q.slot
                );
                div.push(Divergence::of_output(at, crate::req::CQE_RING_004_A, what, e));
            }
        }
    }
    history
}

/// Where the scenario's inputs send each entry (CQE-ROUTE-001, CQE-REJECT-002): the queues
/// of each QP and the device error queue's designations, in time order.
#[derive(Debug, Default)]
struct Routes {
    qps: HashMap<u32, (Option<CqId>, Option<CqId>)>,
    error: Vec<(u64, CqId)>,
}

impl Routes {
    fn of(scenario: &Scenario) -> Routes {
        let mut r = Routes::default();
        for rec in scenario.records.iter().filter(|x| x.dir == Direction::Inject) {
            match &rec.body {
                Body::Host { command: HostCommand::CreateQp(q) } => {
                    r.qps.insert(q.qpn.value(), (q.send_cq, q.recv_cq));
                }
                Body::Host { command: HostCommand::SetErrorCq { cq } } => {
                    r.error.push((rec.at.0, *cq));
                }
                _ => {}
            }
        }
        r
    }

    /// The queue an entry written at `at` belongs to, when the inputs say.
    fn queue_of(&self, at: u64, side: Side, e: &CompletionRepr) -> Option<CqId> {
        let unnamed = [CompletionStatus::BAD_VERSION, CompletionStatus::UNKNOWN_TEMPLATE];
        if side == Side::Requester && unnamed.contains(&e.status) {
            return self.error.iter().rev().find(|(t, _)| *t <= at).map(|&(_, cq)| cq);
        }
        let &(send, recv) = self.qps.get(&e.qpn.value())?;
        if side == Side::Requester { send } else { recv }
    }
}

/// The size N of each completion queue the scenario creates once; a queue created again
/// is left out, since its count of entries starts again.
fn ring_sizes(scenario: &Scenario) -> HashMap<CqId, u64> {
    let mut sizes: HashMap<CqId, Option<u64>> = HashMap::new();
    for r in scenario.records.iter().filter(|r| r.dir == Direction::Inject) {
        if let Body::Host { command: HostCommand::CreateCq(c) } = &r.body {
            let again = sizes.contains_key(&c.cq);
            sizes.insert(c.cq, (!again).then_some(u64::from(c.entries)));
        }
    }
    sizes.into_iter().filter_map(|(cq, n)| Some((cq, n.filter(|&n| n > 0)?))).collect()
}

/// CQE-RING-001.b: the queue's `k`-th entry (counting from 0) written elsewhere than at
/// slot k mod `n`, or with the phase of another pass of the ring.
fn misplaced(
    at: u64,
    e: &NicEvent,
    q: &openrdma_device::CqWrite,
    k: u64,
    n: u64,
) -> Option<Divergence> {
    let NicEvent::Completion(c) = e else { return None };
    let (slot, phase) = (k % n, (k / n) % 2 == 0);
    let got = c.written_entry().phase;
    if u64::from(q.slot) == slot && got == phase {
        return None;
    }
    let what = format!(
        "completion queue {}: its entry {k} was written at slot {} with phase {}; a ring of \
         {n} entries takes it at slot {slot} with phase {}",
        q.cq,
        q.slot,
        u8::from(got),
        u8::from(phase)
    );
    let fields = vec![
        FieldDiff::new("slot", slot.to_string(), q.slot.to_string()),
        FieldDiff::new("phase", u8::from(phase).to_string(), u8::from(got).to_string()),
    ]
    .into_iter()
    .filter(|f| f.expected != f.actual)
    .map(|mut f| {
        f.name(crate::req::CQE_RING_001_B);
        f
    })
    .collect();
    Some(Divergence {
        actual: Some(render_event(e)),
        fields,
        ..Divergence::of(at, crate::req::CQE_RING_001_B, what)
    })
}

/// Judges every observed entry written to a completion queue that the scenario expects to
/// have stopped (the `entries.stopped` row): beyond the entries expected there, none may
/// be written (`CQE-RING-005.b`, `CQE-RING-005.c`). `obs` are the observed events with
/// their times, in order.
pub(super) fn judge_stopped(
    scenario: &Scenario,
    obs: &[(u64, &NicEvent)],
    div: &mut Vec<Divergence>,
) {
    let mut consumed: HashMap<CqId, Vec<(u64, u32)>> = HashMap::new();
    for r in scenario.records.iter().filter(|r| r.dir == Direction::Inject) {
        if let Body::Host { command: HostCommand::CqConsumer { cq, consumed: c } } = &r.body {
            consumed.entry(*cq).or_default().push((r.at.0, *c));
        }
    }
    let stops = Stops::of(scenario, &consumed);
    if stops.queues.is_empty() {
        return;
    }
    let mut written: HashMap<CqId, u64> = HashMap::new();
    for &(at, e) in obs {
        let NicEvent::Completion(c) = e else { continue };
        let Some(q) = &c.queue else { continue };
        let k = written.entry(q.cq).or_default();
        let ordinal = *k;
        *k += 1;
        if let Some(d) = stops.judge(at, e, q.cq, ordinal) {
            div.push(d);
        }
    }
}

/// The completion queues the scenario expects to stop because a completion found no free
/// slot (`CQE-RING-004`, `CQE-RING-005`), and what a device may write to them.
struct Stops {
    /// The stopped queues.
    queues: HashMap<CqId, Stopped>,
    /// The time each expected flag is due, by (requester side, QP, MSN).
    flags_due: HashMap<(bool, u32, u16), u64>,
}

/// A queue the scenario expects to stop.
struct Stopped {
    /// The time of the input that found it full.
    at: u64,
    /// The entries the scenario expects in it, in all.
    total: u64,
    /// Its size, N.
    size: u64,
    /// The consumer register writes, (time, count), in time order.
    writes: Vec<(u64, u32)>,
}

impl Stops {
    /// A queue stops at the time the scenario expects a QP that reports to it to fail
    /// with the cause `CQE-RING-004`, when the entries expected in it by then fill it.
    fn of(scenario: &Scenario, consumed: &HashMap<CqId, Vec<(u64, u32)>>) -> Stops {
        let mut sizes: HashMap<CqId, u64> = HashMap::new();
        let mut cqs_of: HashMap<u32, Vec<CqId>> = HashMap::new();
        let mut entries: Vec<(u64, CqId)> = Vec::new();
        let mut failures: Vec<(u64, u32)> = Vec::new();
        let mut flags_due = HashMap::new();
        for r in &scenario.records {
            match (&r.dir, &r.body) {
                (Direction::Inject, Body::Host { command: HostCommand::CreateCq(c) }) => {
                    sizes.insert(c.cq, u64::from(c.entries));
                }
                (Direction::Inject, Body::Host { command: HostCommand::CreateQp(q) }) => {
                    let cqs = q.send_cq.into_iter().chain(q.recv_cq).collect();
                    cqs_of.insert(q.qpn.value(), cqs);
                }
                (Direction::Expect, Body::Event { event: NicEvent::Completion(c) }) => {
                    if let Some(w) = &c.queue {
                        entries.push((r.at.0, w.cq));
                    }
                }
                (Direction::Expect, Body::Event { event: NicEvent::FlagWrite(f) }) => {
                    let key = (f.side == Side::Requester, f.qpn.value(), f.msn.value());
                    flags_due.entry(key).or_insert(r.at.0);
                }
                (Direction::Expect, Body::Event { event }) if full_stop(event).is_some() => {
                    failures.extend(full_stop(event).map(|q| (r.at.0, q)));
                }
                _ => {}
            }
        }
        let mut queues = HashMap::new();
        for (t, qpn) in failures {
            for cq in cqs_of.get(&qpn).into_iter().flatten() {
                let Some(&n) = sizes.get(cq) else { continue };
                let written = entries.iter().filter(|(at, c)| c == cq && *at <= t).count() as u64;
                let writes = consumed.get(cq).map(Vec::as_slice).unwrap_or_default();
                let released = writes
                    .iter()
                    .rev()
                    .find(|(at, _)| *at <= t)
                    .map_or(0, |&(_, c)| unwrap_count(c, written));
                if written.saturating_sub(released) < n || queues.contains_key(cq) {
                    continue;
                }
                let total = entries.iter().filter(|(_, c)| c == cq).count() as u64;
                queues.insert(*cq, Stopped { at: t, total, size: n, writes: writes.to_vec() });
            }
        }
        Stops { queues, flags_due }
    }

    /// An entry written to a stopped queue beyond the entries the scenario expects there:
    /// the entry that found no free slot, or one of an earlier message, written late
    /// (`CQE-RING-005.b`); a later entry written after a consumer register write
    /// (`CQE-RING-005.c`), or without one (`CQE-RING-005.b`).
    fn judge(&self, at: u64, e: &NicEvent, cq: CqId, ordinal: u64) -> Option<Divergence> {
        let NicEvent::Completion(c) = e else { return None };
        let q = self.queues.get(&cq)?;
        let (stop, total, n, writes) = (q.at, q.total, q.size, &q.writes);
        // An entry over one the consumer had not released is named by that rule
        // (`CQE-RING-004.a`), in the `entries` row.
        let released = writes
            .iter()
            .rev()
            .find(|(t, _)| *t <= at)
            .map_or(0, |&(_, c)| unwrap_count(c, ordinal));
        if ordinal < total || ordinal.saturating_sub(released) >= n {
            return None;
        }
        let entry = c.written_entry();
        let key = (c.side == Side::Requester, entry.qpn.value(), entry.msn.value());
        let old = self.flags_due.get(&key).is_some_and(|&due| due <= stop);
        let restarted = writes.iter().any(|&(w, _)| stop <= w && w <= at);
        let (clause, what) = if !old && restarted {
            (
                CQE_RING_005_C,
                format!(
                    "completion queue {cq} stopped at {stop} ns, full; a consumer register write \
                     restarted it, and it took a later entry"
                ),
            )
        } else {
            (
                CQE_RING_005_B,
                format!(
                    "completion queue {cq} stopped at {stop} ns, full, but an entry the stop \
                     left out was written to it"
                ),
            )
        };
        Some(Divergence { actual: Some(render_event(e)), ..Divergence::of(at, clause, what) })
    }
}

/// The leaf clause of a rule [`CompletionRepr::validate`] names: the NIC's clause of a
/// marked line. Every rule of [`CompletionRepr::RULES`] is listed here (a test checks it);
/// a rule the list does not know names the entry's layout,
/// [`CQE_LAYOUT_001`](crate::req::CQE_LAYOUT_001).
pub(super) fn entry_clause(rule: &str) -> Clause {
    use crate::req::*;
    match rule {
        "CQE-STATUS-001" => CQE_STATUS_001,
        "CQE-OPCODE-001" => CQE_OPCODE_001,
        "CQE-RESV-001" => CQE_RESV_001_A,
        "CQE-IMM-001" => CQE_IMM_001,
        "CQE-IMM-002" => CQE_IMM_002,
        // validate() reports a timestamp without `has_timestamp`.
        "CQE-TS-001" => CQE_TS_001_B,
        "CQE-SEND-002" => CQE_SEND_002,
        "CQE-REJECT-001" => CQE_REJECT_001,
        "CQE-RECV-001" => CQE_RECV_001,
        _ => CQE_LAYOUT_001,
    }
}

/// Whether an entry's violation of `rule` comes from a write in pieces seen before its
/// first half landed (`CQE-RING-003.b`): bytes 0 to 15, where `has_imm` and
/// `has_timestamp` sit, are still the slot's previous contents while bytes 16 to 31, where
/// `imm` and `timestamp` sit, are new, and the previous contents did not break the rule
/// themselves (a device that always breaks it has another fault).
fn torn_split(got: &[u8; COMPLETION_LEN], held: &[u8; COMPLETION_LEN], rule: &str) -> bool {
    const HALF: usize = COMPLETION_LEN / 2;
    let line = Clause::parse(rule).map(Clause::line);
    if !matches!(line, Some(crate::req::CQE_TS_001 | crate::req::CQE_IMM_001))
        || got[..HALF] != held[..HALF]
        || got[HALF..] == held[HALF..]
    {
        return false;
    }
    let mut before = Vec::new();
    CompletionRepr::parse(held).unwrap_or_default().validate(0, &mut before);
    !before.iter().any(|v| v.requirement == rule)
}

/// How far two entries' timestamps, `stamped` apart modulo 2^32, are from the `elapsed`
/// nanoseconds between their writes (`CQE-TS-001`): the distance modulo 2^32, either way,
/// so that a second stamp a little behind the first is a small error, not one of ~2^32.
fn stamp_error(stamped: u32, elapsed: u64) -> u64 {
    u64::from((stamped.wrapping_sub(elapsed as u32) as i32).unsigned_abs())
}

/// The consumer count `c` (modulo 2^32) as a total, taking the one nearest `near`.
fn unwrap_count(c: u32, near: u64) -> u64 {
    let base = near & !0xFFFF_FFFF;
    [base.wrapping_sub(1 << 32), base, base + (1 << 32)]
        .into_iter()
        .map(|b| b | u64::from(c))
        .min_by_key(|v| v.abs_diff(near))
        .unwrap_or(u64::from(c))
}

/// The fields of two completions that differ, in the order they are reported: the entry
/// (decoded from the bytes written, when there are any), then where it was written. The
/// timestamp is the device's clock and is not compared here.
pub(super) fn diff(want: &CompletionEvent, got: &CompletionEvent) -> Vec<FieldDiff> {
    let mut out = Vec::new();
    let mut cmp = |field: &str, a: String, b: String| {
        if a != b {
            out.push(FieldDiff::new(field, a, b));
        }
    };
    let (x, y) = (want.written_entry(), got.written_entry());
    cmp("qpn", x.qpn.to_string(), y.qpn.to_string());
    cmp("wr_id", format!("{:#x}", x.wr_id), format!("{:#x}", y.wr_id));
    cmp("status", format!("{:#x}", x.status.0), format!("{:#x}", y.status.0));
    cmp("opcode", format!("{:#x}", x.opcode.0), format!("{:#x}", y.opcode.0));
    cmp("msn", x.msn.to_string(), y.msn.to_string());
    cmp("byte_len", x.byte_len.to_string(), y.byte_len.to_string());
    cmp("imm", format!("{:#x}", x.imm), format!("{:#x}", y.imm));
    cmp("has_imm", x.has_imm.to_string(), y.has_imm.to_string());
    cmp("is_receive", x.is_receive.to_string(), y.is_receive.to_string());
    let Some(wq) = &want.queue else { return out };
    let Some(gq) = &got.queue else {
        cmp("queue", format!("queue {} slot {}", wq.cq, wq.slot), "(not in a queue)".into());
        return out;
    };
    cmp("cq", wq.cq.to_string(), gq.cq.to_string());
    cmp("slot", wq.slot.to_string(), gq.slot.to_string());
    cmp("addr", format!("{:#x}", wq.addr), format!("{:#x}", gq.addr));
    cmp("phase", u8::from(x.phase).to_string(), u8::from(y.phase).to_string());
    out
}

/// The requirement a difference between two entries breaks (see the module
/// documentation); `before` is what the observed entry's slot held before it, if the device
/// wrote it to a queue; `default` is the requirement of any other difference.
pub(super) fn requirement(
    want: &CompletionEvent,
    got: &CompletionEvent,
    fields: &[FieldDiff],
    before: Option<&[u8; COMPLETION_LEN]>,
    default: Clause,
) -> Clause {
    use crate::req::*;
    if let (Some(g), Some(before)) = (&got.queue, before) {
        let stale = g.bytes[..COMPLETION_LEN - 1] == before[..COMPLETION_LEN - 1];
        if stale && g.bytes[COMPLETION_LEN - 1] != before[COMPLETION_LEN - 1] {
            return CQE_RING_003_B;
        }
        // Written in two halves, the second first: the first half is still the slot's
        // previous contents, where the expected entry has other bytes.
        const HALF: usize = COMPLETION_LEN / 2;
        let first_stale = g.bytes[..HALF] == before[..HALF] && g.bytes[HALF..] != before[HALF..];
        if first_stale && want.queue.is_some_and(|w| w.bytes[..HALF] != before[..HALF]) {
            return CQE_RING_003_B;
        }
    }
    if got.queue.is_some() && reversed(&want.written_entry(), &got.written_entry()) {
        return CQE_LAYOUT_001;
    }
    match fields.first().map(|f| f.field.as_str()) {
        Some("cq") if want.entry.status.is_doorbell_reject() => CQE_REJECT_002,
        Some("cq") => CQE_ROUTE_001,
        // The right slot at another address: the ring is not in the memory the consumer
        // reads.
        Some("addr") => CQE_RING_001_A,
        Some("queue" | "slot" | "phase") => CQE_RING_001_B,
        _ => default,
    }
}

/// Whether a multi-byte field of `got` holds the bytes of `want`'s in reverse order, as a
/// big-endian write of a little-endian field leaves it (`CQE-LAYOUT-001`).
fn reversed(want: &CompletionRepr, got: &CompletionRepr) -> bool {
    let swapped = |a: u64, b: u64, width: u32| {
        let byte_rev = match width {
            16 => u64::from((a as u16).swap_bytes()),
            32 => u64::from((a as u32).swap_bytes()),
            _ => a.swap_bytes(),
        };
        a != b && byte_rev == b
    };
    swapped(want.wr_id, got.wr_id, 64)
        || swapped(u64::from(want.byte_len), u64::from(got.byte_len), 32)
        || swapped(u64::from(want.imm), u64::from(got.imm), 32)
        || swapped(u64::from(want.msn.value()), u64::from(got.msn.value()), 16)
        || swapped(
            u64::from(want.qpn.value()),
            u64::from(got.qpn.value()) | u64::from(got.qpn_resv) << 24,
            32,
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use openrdma_codec::Msn;

    /// Every rule the codec's entry checks can report names a leaf clause of its own line,
    /// never the layout clause kept for a rule the list does not know.
    #[test]
    fn entry_rules_name_their_own_clauses() {
        for &rule in CompletionRepr::RULES {
            let c = entry_clause(rule);
            assert_ne!(c, crate::req::CQE_LAYOUT_001, "{rule} is not mapped");
            assert!(c.is_leaf(), "{rule} names {c}, which has clauses");
            assert_eq!(c.line().id(), rule, "{rule} names {c}, a clause of another line");
        }
        assert_eq!(entry_clause("no such rule"), crate::req::CQE_LAYOUT_001);
    }

    #[test]
    fn consumer_counts_unwrap_near_the_count() {
        assert_eq!(unwrap_count(5, 7), 5);
        assert_eq!(unwrap_count(u32::MAX, 1 << 32), u64::from(u32::MAX));
        assert_eq!(unwrap_count(2, (1 << 32) + 1), (1 << 32) + 2);
    }

    /// CQE-TS-001: the error of a pair of stamps is their distance from the time between
    /// the writes, either way and across the 2^32 wrap.
    #[test]
    fn stamp_errors_are_distances_either_way() {
        assert_eq!(stamp_error(1000, 1000), 0);
        assert_eq!(stamp_error(1500, 1000), 500);
        // The second stamp 1000 ns behind the first, written 1000 ns later: 2000 ns off.
        assert_eq!(stamp_error(1000u32.wrapping_neg(), 1000), 2000);
        // Across the wrap of the 32-bit clock: stamps 0xFFFF_FF9C and 400, 500 ns apart.
        assert_eq!(stamp_error(400u32.wrapping_sub(0xFFFF_FF9C), 500), 0);
        // Half the clock's range off is the largest error.
        assert_eq!(stamp_error(u32::MAX, (1 << 31) - 1), 1 << 31);
    }

    #[test]
    fn reversed_fields_are_layout_faults() {
        let want =
            CompletionRepr { byte_len: 4096, msn: Msn::new(0x42), ..CompletionRepr::default() };
        let got = CompletionRepr { byte_len: 4096u32.swap_bytes(), ..want };
        assert!(reversed(&want, &got));
        let got = CompletionRepr { msn: Msn::new(0x4200), ..want };
        assert!(reversed(&want, &got));
        let got = CompletionRepr { byte_len: 4095, ..want };
        assert!(!reversed(&want, &got), "a wrong value is not a layout fault");
        assert!(!reversed(&want, &want));
    }
}
