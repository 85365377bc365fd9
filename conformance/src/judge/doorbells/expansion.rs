//! The `templates.expand` row: the fields a template fills in what its tokens become,
//! judged on the packets, the sender flag's slot and the entry's `wr_id` of each work
//! request the ledger expands.

use super::*;
use crate::judge::fields::layout_rule;

/// The clauses the `templates.expand` row can fail.
pub(in crate::judge) const EXPAND_CLAUSES: &[Clause] = &[
    DB_LENGTH_001,
    TPL_EXPAND_001_A,
    TPL_EXPAND_001_C,
    TPL_EXPAND_002,
    TPL_EXPAND_003,
    TPL_EXPAND_004,
    TPL_EXPAND_005_A,
    TPL_EXPAND_005_B,
    TPL_EXPAND_006,
    TPL_EXPAND_007,
    TPL_INSTALL_002,
];

/// Judges the fields a template fills in what its tokens become (the `templates.expand`
/// row): the packets of the message (`rkey`, `remote_va`, `length`, the immediate, the
/// operation, the bytes read from `local_va`), its sender flag's slot and its entry's
/// `wr_id`. `matches` pairs expected frames with observed ones.
pub(in crate::judge) fn judge_expansion(
    o: &Obs<'_>,
    matches: &[(usize, usize)],
    div: &mut Vec<Divergence>,
) {
    let l = Ledger::new(o);
    let wrs: Vec<(&Rung, &WorkRequest)> =
        l.rungs.iter().filter_map(|r| r.decision.as_ref().ok().map(|w| (r, w))).collect();
    if wrs.is_empty() {
        return;
    }
    let pair: HashMap<usize, usize> = matches.iter().copied().collect();
    for (r, wr) in &wrs {
        let peer = l.peer(wr.qpn.value());
        for (e, (_, want)) in o.exp_frames.iter().enumerate() {
            if !belongs(want, wr, peer) {
                continue;
            }
            let Some(got) = pair.get(&e).map(|&g| &o.frames[g]) else { continue };
            if let Some(mut d) = packet_diff(wr, want, got) {
                if r.torn {
                    d.requirement = TPL_INSTALL_002.requirement().into();
                    d.clause = Some(TPL_INSTALL_002);
                }
                div.push(d);
            }
        }
        judge_flag_slot(wr, &l, o, div);
        judge_wr_id(wr, o, div);
    }
}

/// The first field of a packet of `wr` that differs where the template fills it.
fn packet_diff(wr: &WorkRequest, want: &Frame<'_>, got: &Frame<'_>) -> Option<Divergence> {
    let (Some(a), Some(b)) = (want.d.ext.reth, got.d.ext.reth) else { return None };
    // A packet of another message, paired by its PSN with one of this message (a message
    // cut into more packets than due), shows the segmentation broken, not the template:
    // the frame rows name it.
    let msn = |f: &Frame<'_>| f.d.ext.meth.map(|m| m.msn);
    if msn(want) != msn(got) {
        return None;
    }
    let first = a.va == wr.remote_va;
    let imm = |f: &Frame<'_>| f.d.ext.immdt.map(|i| i.imm);
    let mut diffs: Vec<(Clause, FieldDiff)> = Vec::new();
    let mut cmp = |clause: Clause, field: &str, x: String, y: String| {
        if x != y {
            let mut f = FieldDiff::new(field, x, y);
            // The right value with its bytes in the other order is the header's layout
            // broken, not the template's arithmetic: the field table names it.
            if layout_rule(&f).is_some() {
                return;
            }
            f.name(clause);
            diffs.push((clause, f));
        }
    };
    // A value cut to a narrower register (a 32-bit address, a 16-bit length) is the
    // packet's rule broken (SND-SEG-003), whatever filled the field, and a value with its
    // bytes in the other order is the header's layout broken (RETH-LAYOUT-001,
    // IMMDT-LAYOUT-001); the template's rule is named for a value its arithmetic got wrong.
    let cut = |x: u64, y: u64| y != x && (y == x & 0xFFFF_FFFF || y == x & 0xFFFF);
    let swapped = |x: u32, y: u32| y != x && y == x.swap_bytes();
    let imm_swapped = matches!((imm(want), imm(got)), (Some(x), Some(y)) if swapped(x, y));
    if cut(a.dma_len.into(), b.dma_len.into())
        || cut(a.va, b.va)
        || (b.va != a.va && b.va == a.va.swap_bytes())
        || swapped(a.rkey.value(), b.rkey.value())
        || swapped(a.dma_len, b.dma_len)
        || imm_swapped
    {
        return None;
    }
    // The rkey, the length and the address the template fills are judged on the first
    // packet: a later packet that disagrees with its own message's first packet was built
    // wrong on its own (RETH-RKEY-001, RETH-LEN-003, RETH-VA-002), which the frame rows
    // name; one that agrees with a wrong first packet diverges after it.
    if first {
        cmp(TPL_EXPAND_001_C, "reth.rkey", a.rkey.to_string(), b.rkey.to_string());
        // A token of length_units 0 asks for the template's default_length: a message of
        // another length computed the token's length wrong (DB-LENGTH-001).
        let length_rule = if DoorbellToken::from_u64(wr.wr_id).length_units == 0 {
            DB_LENGTH_001
        } else {
            TPL_EXPAND_004
        };
        cmp(length_rule, "reth.dma_len", a.dma_len.to_string(), b.dma_len.to_string());
        cmp(TPL_EXPAND_003, "reth.va", format!("{:#x}", a.va), format!("{:#x}", b.va));
    }
    let show = |v: Option<u32>| v.map_or("none".into(), |v| format!("{v:#010x}"));
    match (wr.imm, imm(want), imm(got)) {
        (Some(_), Some(x), Some(y)) if x != y => {
            cmp(TPL_EXPAND_005_A, "immdt.imm", show(Some(x)), show(Some(y)));
        }
        (Some(_), Some(_), None) => {
            cmp(TPL_EXPAND_001_A, "bth.opcode", "a Write with Immediate".into(), "a Write".into());
        }
        (None, None, Some(y)) => cmp(TPL_EXPAND_005_B, "immdt.imm", "none".into(), show(Some(y))),
        _ => {}
    }
    if first && want.d.payload != got.d.payload && want.d.payload.len() == got.d.payload.len() {
        cmp(TPL_EXPAND_002, "payload", "the bytes at local_va".into(), "other bytes".into());
    }
    let (clause, _) = diffs.first()?;
    let clause = *clause;
    let what = format!(
        "a packet of token {:#018x} differs where its template fills it: {}",
        wr.wr_id,
        diffs.iter().map(|(_, f)| f.field.as_str()).collect::<Vec<_>>().join(", ")
    );
    Some(Divergence {
        expected: Some(render_frame(want.bytes)),
        actual: Some(render_frame(got.bytes)),
        fields: diffs.into_iter().map(|(_, f)| f).collect(),
        ..Divergence::of(got.at, clause, what)
    })
}

/// A sender flag of `wr` written at another slot than `flag_base_slot + index`.
fn judge_flag_slot(wr: &WorkRequest, l: &Ledger, o: &Obs<'_>, div: &mut Vec<Divergence>) {
    let Some(addr) = l.flag_addr(wr) else { return };
    let seq = (wr.wr_id >> 32) as u16;
    let is_mine = |f: &openrdma_device::FlagWrite| {
        f.side == Side::Requester
            && f.qpn == wr.qpn
            && FlagRepr::from_u64(f.value).generation == seq
    };
    let Some(want) = o.exp_events.iter().find_map(|(_, e)| match e {
        NicEvent::FlagWrite(f) if is_mine(f) && f.addr == addr => Some(f),
        _ => None,
    }) else {
        return;
    };
    // A flag at the slot of another expected flag of the QP is that one's: work requests
    // flushed without an MSN share one generation and MSN.
    let claimed = |f: &openrdma_device::FlagWrite| {
        o.exp_events.iter().any(|(_, e)| {
            matches!(e, NicEvent::FlagWrite(g)
                if g.side == Side::Requester && g.qpn == f.qpn && g.addr == f.addr)
        })
    };
    let mine: Vec<(u64, &openrdma_device::FlagWrite)> = o
        .events
        .iter()
        .filter_map(|(at, e)| match e {
            NicEvent::FlagWrite(f) if is_mine(f) && f.msn == want.msn && !claimed(f) => {
                Some((*at, f))
            }
            _ => None,
        })
        .collect();
    if mine.iter().any(|(_, f)| f.addr == addr) {
        return;
    }
    let Some((at, got)) = mine.first() else { return };
    div.push(Divergence {
        expected: Some(render_event(&NicEvent::FlagWrite(*want))),
        actual: Some(render_event(&NicEvent::FlagWrite(**got))),
        fields: vec![FieldDiff::new("flag.addr", format!("{addr:#x}"), format!("{:#x}", got.addr))],
        ..Divergence::of(
            *at,
            TPL_EXPAND_006,
            format!(
                "the sender flag of token {:#018x} is not at flag slot {}",
                wr.wr_id, wr.flag_slot
            ),
        )
    });
}

/// The entry of `wr` written with another `wr_id` than the token.
fn judge_wr_id(wr: &WorkRequest, o: &Obs<'_>, div: &mut Vec<Divergence>) {
    let Some(want) = o.exp_events.iter().find_map(|(_, e)| match e {
        NicEvent::Completion(c) if c.side == Side::Requester && c.entry.wr_id == wr.wr_id => {
            Some(c)
        }
        _ => None,
    }) else {
        return;
    };
    let requester = |c: &&openrdma_device::CompletionEvent| c.side == Side::Requester;
    let entries: Vec<(u64, &openrdma_device::CompletionEvent)> = o
        .events
        .iter()
        .filter_map(|(at, e)| match e {
            NicEvent::Completion(c) if requester(&c) => Some((*at, c)),
            _ => None,
        })
        .collect();
    if entries.iter().any(|(_, c)| c.entry.wr_id == wr.wr_id) {
        return;
    }
    // An entry with the `wr_id` of another expected entry is that one's.
    let claimed = |c: &openrdma_device::CompletionEvent| {
        o.exp_events.iter().any(|(_, e)| {
            matches!(e, NicEvent::Completion(x) if requester(&x) && x.entry.wr_id == c.entry.wr_id)
        })
    };
    let Some((at, got)) = entries.iter().find(|(_, c)| {
        !claimed(c)
            && c.entry.qpn == want.entry.qpn
            && c.entry.msn == want.entry.msn
            && c.entry.status == want.entry.status
    }) else {
        return;
    };
    div.push(Divergence {
        expected: Some(render_event(&NicEvent::Completion(*want))),
        actual: Some(render_event(&NicEvent::Completion(**got))),
        fields: vec![FieldDiff::new(
            "wr_id",
            format!("{:#018x}", wr.wr_id),
            format!("{:#018x}", got.entry.wr_id),
        )],
        ..Divergence::of(
            *at,
            TPL_EXPAND_007,
            format!("the entry of token {:#018x} carries another wr_id", wr.wr_id),
        )
    });
}
