//! The flag table (`FLAG-TABLE-001`, `FLAG-WRITE-001`): where every flag a device writes
//! lies, whatever the scenario expects.
//!
//! A flag of a QP belongs to the QP's table for its side: `send_flag_base` and
//! `send_flag_slots` for a sender flag, `recv_flag_base` and `recv_flag_slots` for a
//! retirement flag. Every flag write must be one naturally aligned 8-byte word inside that
//! table. A write outside is named by its cause where the address shows one:
//!
//! * an address that is not a multiple of 8 is not one aligned word (`FLAG-WRITE-001`),
//!   inside the table or out;
//! * the word of the right slot counted from address 0 is the table's base not used
//!   (`FLAG-TABLE-001.a`);
//! * the right slot at another stride than 8 bytes is the slot's address computed wrong
//!   (`FLAG-TABLE-001.b`); this is judged inside the table too, against the expected flag
//!   of the same message, when every flag of that side, in every QP's table, lies at that
//!   stride (slot 0 at the base), so that a slot off by one is not taken for a stride;
//! * any other word outside the table is a write outside it (`FLAG-TABLE-001.c`);
//!   but the right address cut to 32 bits is left to the rule of the slot (for a
//!   retirement flag, the base its QP's context holds, `FLAG-RECV-001.a`), as every value
//!   cut to a narrower register is named by the rule of its field.
//!
//! A flag at another slot inside the table is judged by the rule that gives the slot
//! (`FLAG-SEND-001.b`, `FLAG-RECV-001.b`, `TPL-EXPAND-006`), not here.

use std::collections::HashMap;

use openrdma_codec::host::FlagRepr;
use openrdma_device::{FlagWrite, HostCommand, Input, NicEvent, Side};

use super::obs::Obs;
use super::{Divergence, FieldDiff, render_event};
use crate::req::*;

/// The clauses the `flags.table` row can fail.
pub(super) const CLAUSES: &[Clause] =
    &[FLAG_TABLE_001_A, FLAG_TABLE_001_B, FLAG_TABLE_001_C, FLAG_WRITE_001];

/// Strides other than 8 bytes that a slot's address may be computed with by mistake.
const WRONG_STRIDES: [u64; 6] = [1, 2, 4, 16, 32, 64];

/// Judges the address of every observed flag write against its QP's table.
pub(super) fn judge(o: &Obs<'_>, div: &mut Vec<Divergence>) {
    // Each QP's tables, (base, slots) per side, as the scenario creates the QP.
    let mut tables: HashMap<(u32, bool), (u64, u32)> = HashMap::new();
    for i in &o.inputs {
        if let Input::Host { command: HostCommand::CreateQp(q) } = i.input {
            let qpn = q.qpn.value();
            tables.insert((qpn, true), (q.send_flag_base, q.send_flag_slots));
            tables.insert((qpn, false), (q.recv_flag_base, q.recv_flag_slots));
        }
    }
    let key = |f: &FlagWrite| (f.qpn.value(), f.side == Side::Requester);
    let generation = |f: &FlagWrite| FlagRepr::from_u64(f.value).generation;
    let expected: Vec<&FlagWrite> = o
        .exp_events
        .iter()
        .filter_map(|(_, e)| match e {
            NicEvent::FlagWrite(f) => Some(f),
            _ => None,
        })
        .collect();
    // The expected flag of the same message, for the slot it should be at.
    let want_of = |got: &FlagWrite| {
        expected
            .iter()
            .copied()
            .find(|w| key(w) == key(got) && w.msn == got.msn && generation(w) == generation(got))
    };
    // The flags of each side, over every QP's table: (expected slot, offset from the base)
    // of every flag whose expected flag lies in its table. A slot's address is computed by
    // one circuit for every table of a side, so a wrong stride puts every flag at the same
    // multiple of its slot, slot 0 at the base; a slot off by one does not.
    let mut placed: HashMap<bool, Vec<(u64, u64)>> = HashMap::new();
    for &(_, e) in &o.events {
        let NicEvent::FlagWrite(got) = e else { continue };
        let Some(&(base, slots)) = tables.get(&key(got)) else { continue };
        let end = base.saturating_add(u64::from(slots) * 8);
        if let Some(w) = want_of(got).filter(|w| (base..end).contains(&w.addr)) {
            let entry = placed.entry(got.side == Side::Requester).or_default();
            entry.push(((w.addr - base) / 8, got.addr.wrapping_sub(base)));
        }
    }
    let stride_holds = |requester: bool, stride: u64| {
        placed
            .get(&requester)
            .is_none_or(|v| v.iter().all(|&(s, off)| s.checked_mul(stride) == Some(off)))
    };
    for &(at, e) in &o.events {
        let NicEvent::FlagWrite(got) = e else { continue };
        let Some(&(base, slots)) = tables.get(&key(got)) else { continue };
        if slots == 0 {
            continue;
        }
        let end = base.saturating_add(u64::from(slots) * 8);
        let inside = (base..end).contains(&got.addr);
        let want = want_of(got);
        // The right address cut to 32 bits is a register of the slot's address too narrow:
        // the rule that gives the slot names it (`FLAG-SEND-001.b`, `FLAG-RECV-001.b`).
        if want.is_some_and(|w| w.addr != got.addr && got.addr == w.addr & 0xFFFF_FFFF) {
            continue;
        }
        let slot = want
            .filter(|w| (base..end).contains(&w.addr) && w.addr != got.addr)
            .map(|w| (w.addr - base) / 8);
        let offset = got.addr.wrapping_sub(base);
        let stride = slot.filter(|&s| s > 0).and_then(|s| {
            WRONG_STRIDES.into_iter().find(|k| {
                s.checked_mul(*k) == Some(offset) && stride_holds(got.side == Side::Requester, *k)
            })
        });
        let side = if got.side == Side::Requester { "sender" } else { "retirement" };
        let (clause, what) = if let (Some(s), Some(k)) = (slot, stride) {
            (
                FLAG_TABLE_001_B,
                format!(
                    "the {side} flag of slot {s} is at the table's base + {k} x {s}, not + 8 x {s}"
                ),
            )
        } else if got.addr % 8 != 0 {
            (
                FLAG_WRITE_001,
                format!("a {side} flag is written at {:#x}, not an aligned 8-byte word", got.addr),
            )
        } else if inside {
            continue;
        } else if slot.is_some_and(|s| got.addr == s * 8) {
            (
                FLAG_TABLE_001_A,
                format!(
                    "the {side} flag is at its slot counted from address 0, not from the table's base {base:#x}"
                ),
            )
        } else {
            (
                FLAG_TABLE_001_C,
                format!(
                    "a {side} flag is written at {:#x}, outside the QP's table of {slots} slots at {base:#x}",
                    got.addr
                ),
            )
        };
        let expected_addr = want.map_or_else(
            || format!("{base:#x} to {:#x}", end.saturating_sub(8)),
            |w| format!("{:#x}", w.addr),
        );
        div.push(Divergence {
            expected: want.map(|w| render_event(&NicEvent::FlagWrite(*w))),
            actual: Some(render_event(e)),
            fields: vec![FieldDiff::new("flag.addr", expected_addr, format!("{:#x}", got.addr))],
            ..Divergence::of(at, clause, what)
        });
    }
}
