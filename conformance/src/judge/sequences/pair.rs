//! How an observed flag or completion entry is paired with an expected one: by identity,
//! then in order, and which pairs keep their order.

use std::collections::HashMap;

use openrdma_codec::host::CompletionRepr;
use openrdma_device::{CompletionEvent, CqId, NicEvent, Side};

use super::Item;

/// The identity of a flag or an entry: its QP and MSN, and for a requester's entry the high
/// half of its `wr_id`, which tells apart the work requests of one MSN (rejected tokens,
/// whose entries carry no MSN of their own).
pub(super) fn ident(e: &NicEvent) -> (u32, u16, u32) {
    match e {
        NicEvent::FlagWrite(f) => (f.qpn.value(), f.msn.value(), 0),
        NicEvent::Completion(c) => {
            let high = if c.side == Side::Requester { (c.entry.wr_id >> 32) as u32 } else { 0 };
            (c.entry.qpn.value(), c.entry.msn.value(), high)
        }
        _ => (0, 0, 0),
    }
}

/// Pairs by identity (a flag written exactly as expected first, else the earliest of the
/// identity; an entry only when written exactly as expected, in its place), then the
/// entries left each with its [`nearest`] expectation, then what is left in order; returns
/// the pairs in expected order and the expected and observed items left over.
///
/// No single field of an entry is an identity the device cannot get wrong (CONF-CMP-104):
/// a completion stage that latches `wr_id` one entry late gives each sender entry the one
/// before's, and pairing by `wr_id` would read every entry as another's, out of order; a
/// device can write another message's MSN too, and a rejected token's entry carries none.
pub(super) fn pair(
    want: &[Item<'_>],
    got: &[Item<'_>],
) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
    let mut pair_of: Vec<Option<usize>> = vec![None; want.len()];
    let mut taken = vec![false; got.len()];
    let mut by_ident: HashMap<(u32, u16, u32), Vec<usize>> = HashMap::new();
    for (g, (_, e, _)) in got.iter().enumerate() {
        by_ident.entry(ident(e)).or_default().push(g);
    }
    for (w, (_, e, _)) in want.iter().enumerate() {
        let Some(list) = by_ident.get_mut(&ident(e)).filter(|l| !l.is_empty()) else {
            continue;
        };
        // A flag of the identity written exactly as expected, or else the earliest: a
        // flag written for the same message before, with another value, is not taken
        // for it. An entry pairs here only when it is written exactly as expected; one
        // that differs pairs with its nearest expectation below.
        let exact = list.iter().position(|&g| same(e, got[g].1));
        let Some(exact) = exact.or((!is_entry(e)).then_some(0)) else {
            continue;
        };
        let g = list.remove(exact);
        pair_of[w] = Some(g);
        taken[g] = true;
    }
    nearest(want, got, &mut pair_of, &mut taken);
    // Near misses: what is left, in order, while both sides have some.
    let mut rest = (0..got.len()).filter(|&g| !taken[g]);
    for slot in pair_of.iter_mut().filter(|p| p.is_none()) {
        match rest.next() {
            Some(g) => *slot = Some(g),
            None => break,
        }
    }
    let mut used = vec![false; got.len()];
    let mut pairs = Vec::new();
    let mut missing = Vec::new();
    for (w, p) in pair_of.iter().enumerate() {
        match p {
            Some(g) => {
                used[*g] = true;
                pairs.push((w, *g));
            }
            None => missing.push(w),
        }
    }
    let extra = (0..got.len()).filter(|&g| !used[g]).collect();
    (pairs, missing, extra)
}

/// Whether two flags are the same write (address and word), or two entries the same
/// entry, in the same place.
fn same(a: &NicEvent, b: &NicEvent) -> bool {
    match (a, b) {
        (NicEvent::FlagWrite(x), NicEvent::FlagWrite(y)) => x.addr == y.addr && x.value == y.value,
        (NicEvent::Completion(x), NicEvent::Completion(y)) => {
            distance(&Entry::of(x), &Entry::of(y)) == 0
        }
        _ => false,
    }
}

/// Whether `e` is a completion entry.
fn is_entry(e: &NicEvent) -> bool {
    matches!(e, NicEvent::Completion(_))
}

/// A receive entry as the pairing compares it: its fields, decoded once, and its place.
struct Entry {
    fields: CompletionRepr,
    place: Option<(CqId, u32, u64)>,
}

impl Entry {
    fn of(c: &CompletionEvent) -> Entry {
        Entry { fields: c.written_entry(), place: c.queue.as_ref().map(|q| (q.cq, q.slot, q.addr)) }
    }
}

/// How far an observed receive entry is from an expected one: the number of its fields
/// that differ, its place in the ring (queue, slot, address and phase) counting as one.
/// The timestamp is the device's clock and does not count.
fn distance(a: &Entry, b: &Entry) -> usize {
    let (x, y) = (&a.fields, &b.fields);
    let place = a.place != b.place || (a.place.is_some() && x.phase != y.phase);
    [
        x.qpn != y.qpn,
        x.msn != y.msn,
        x.wr_id != y.wr_id,
        x.status != y.status,
        x.opcode != y.opcode,
        x.byte_len != y.byte_len,
        x.imm != y.imm,
        x.has_imm != y.has_imm,
        x.is_receive != y.is_receive,
        place,
    ]
    .into_iter()
    .filter(|&d| d)
    .count()
}

/// Pairs the entries left over, each with its nearest expectation: a receive entry
/// carries no token of its own, and any field of an entry may be the one the device got
/// wrong (its MSN, its QPN, its slot, a sender entry's `wr_id`), so none of them alone
/// tells whose entry it is. The pairs of fewest differences are taken first, then those
/// nearest in position: an entry whose MSN or `wr_id` is another message's pairs with its
/// own message, whose other fields and slot it shares, and an entry left out leaves its
/// expectation missing, the later entries paired with their own.
fn nearest(want: &[Item<'_>], got: &[Item<'_>], pair_of: &mut [Option<usize>], taken: &mut [bool]) {
    let entries = |items: &[Item<'_>], free: &dyn Fn(usize) -> bool| -> Vec<(usize, Entry)> {
        items
            .iter()
            .enumerate()
            .filter(|&(i, _)| free(i))
            .filter_map(|(i, (_, e, _))| match e {
                NicEvent::Completion(c) => Some((i, Entry::of(c))),
                _ => None,
            })
            .collect()
    };
    let ws = entries(want, &|w| pair_of[w].is_none());
    let gs = entries(got, &|g| !taken[g]);
    let mut candidates: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (w, a) in &ws {
        for (g, b) in &gs {
            candidates.push((distance(a, b), w.abs_diff(*g), *w, *g));
        }
    }
    candidates.sort_unstable();
    for (_, _, w, g) in candidates {
        if pair_of[w].is_none() && !taken[g] {
            pair_of[w] = Some(g);
            taken[g] = true;
        }
    }
}

/// Which pairs (in expected order) are in a longest run of increasing observed positions.
pub(super) fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<bool> {
    // Patience sorting with back links.
    let mut tails: Vec<usize> = Vec::new(); // index into pairs of the smallest tail per length
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, &(_, g)) in pairs.iter().enumerate() {
        let len = tails.partition_point(|&t| pairs[t].1 < g);
        prev[k] = len.checked_sub(1).map(|l| tails[l]);
        if len == tails.len() {
            tails.push(k);
        } else {
            tails[len] = k;
        }
    }
    let mut keep = vec![false; pairs.len()];
    let mut at = tails.last().copied();
    while let Some(k) = at {
        keep[k] = true;
        at = prev[k];
    }
    keep
}
