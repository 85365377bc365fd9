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
//!   queue under `CQE-ROUTE-001` (or `CQE-REJECT-002` for a rejected token), the slot, the
//!   address and the phase under `CQE-RING-001`; a multi-byte field whose bytes are the
//!   expected value's in reverse under `CQE-LAYOUT-001`; an entry whose bytes 0 to 30 are
//!   still the slot's previous contents under `CQE-RING-003`.

use std::collections::HashMap;

use openrdma_codec::host::{COMPLETION_LEN, CompletionRepr};
use openrdma_device::{Body, CompletionEvent, Direction, HostCommand, NicEvent, Scenario};

use super::{Divergence, FieldDiff, render_event};
use crate::req::Clause;
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
    let mut written: HashMap<CqId, u64> = HashMap::new();
    let mut slots: HashMap<(CqId, u32), (u64, [u8; COMPLETION_LEN])> = HashMap::new();
    let mut history = SlotHistory::new();
    let mut last_stamp: Option<(u64, u32)> = None;
    for (i, &(at, e)) in obs.iter().enumerate() {
        let NicEvent::Completion(c) = e else { continue };
        let entry = c.written_entry();
        let mut violations = Vec::new();
        entry.validate(0, &mut violations);
        for v in violations {
            div.push(Divergence {
                at,
                requirement: entry_clause(v.requirement).into(),
                what: format!("completion entry: {} ({} = {:#x})", v.rule, v.field, v.value),
                expected: None,
                actual: Some(render_event(e)),
                fields: vec![],
                should_only: false,
                check: "",
                clause: None,
            });
        }
        if entry.has_timestamp {
            // CQE-TS-001 (SHOULD): the low 32 bits of one nanosecond clock. Two entries'
            // stamps differ by the time between their writes, modulo 2^32.
            if let Some((t0, s0)) = last_stamp {
                let elapsed = at.saturating_sub(t0);
                let stamped = entry.timestamp.wrapping_sub(s0);
                if elapsed < 1 << 31 && stamp_error(stamped, elapsed) > late_ns {
                    div.push(Divergence {
                        at,
                        requirement: "CQE-TS-001.a".into(),
                        what: format!(
                            "the timestamps of two entries differ by {stamped} ns, but they \
                             were written {elapsed} ns apart"
                        ),
                        expected: None,
                        actual: Some(render_event(e)),
                        fields: vec![],
                        should_only: true,
                        check: "",
                        clause: None,
                    });
                }
            }
            last_stamp = Some((at, entry.timestamp));
        }
        let Some(q) = &c.queue else { continue };
        if q.addr % 32 != 0 {
            div.push(Divergence {
                at,
                requirement: "CQE-RING-003.a".into(),
                what: format!("a completion entry written at {:#x}, not 32-byte aligned", q.addr),
                expected: None,
                actual: Some(render_event(e)),
                fields: vec![],
                should_only: false,
                check: "",
                clause: None,
            });
        }
        let k = written.entry(q.cq).or_default();
        let ordinal = *k;
        *k += 1;
        let before = slots.insert((q.cq, q.slot), (ordinal, q.bytes));
        history.insert(i, before.map_or([0; COMPLETION_LEN], |b| b.1));
        if let Some((previous, _)) = before {
            // CQE-RING-004: the entry in the slot, the queue's `previous`-th, must have been
            // released: the consumer count written by now exceeds it.
            let released = consumed
                .get(&q.cq)
                .and_then(|w| w.iter().rev().find(|(t, _)| *t <= at))
                .map_or(0, |&(_, c)| unwrap_count(c, ordinal));
            if released <= previous {
                div.push(Divergence {
                    at,
                    requirement: "CQE-RING-004.a".into(),
                    what: format!(
                        "completion queue {} slot {}: overwrote the queue's entry {previous}, \
                         which the consumer had not released ({released} released)",
                        q.cq, q.slot
                    ),
                    expected: None,
                    actual: Some(render_event(e)),
                    fields: vec![],
                    should_only: false,
                    check: "",
                    clause: None,
                });
            }
        }
    }
    history
}

/// The leaf clause of a rule [`CompletionRepr::validate`] names: the NIC's clause of a
/// marked line.
pub(super) fn entry_clause(rule: &'static str) -> &'static str {
    match rule {
        "CQE-RESV-001" => "CQE-RESV-001.a",
        // validate() reports a timestamp without `has_timestamp`.
        "CQE-TS-001" => "CQE-TS-001.b",
        _ => rule,
    }
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
    }
    if got.queue.is_some() && reversed(&want.written_entry(), &got.written_entry()) {
        return CQE_LAYOUT_001;
    }
    match fields.first().map(|f| f.field.as_str()) {
        Some("cq") if want.entry.status.is_doorbell_reject() => CQE_REJECT_002,
        Some("cq") => CQE_ROUTE_001,
        Some("queue" | "slot" | "addr" | "phase") => CQE_RING_001_B,
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
