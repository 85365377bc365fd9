//! The order in which a `round-robin` QP chose its EVs (`CONF-CMP-048.a`, `SND-SPRAY-001`).
//!
//! A device may give each output up to `late_ns / 2` after it made it, each on its own
//! (`CONF-TIME-004`): a retransmission its path engine sends late may leave after a first
//! transmission chosen after it. The cursor moves in the order of choice, so a packet that
//! does not take the EV the cursor gives may follow a packet of the QP given up to
//! `late_ns / 2` after it and chosen before it. Two first transmissions are never taken
//! in the other order: they leave in the order of their PSNs (`SND-ORDER-001`).

use std::collections::HashSet;

use openrdma_codec::Ev;

use super::super::{Frame, Kind};
use super::{Possible, Slot};

/// The positions of the profile a packet may take from the cursor `start`: round the
/// profile, each EV that may be in the usable pool, up to the first that surely is.
/// `avoided` is the EV of a retransmission's previous transmission.
pub(super) fn allowed(
    states: &[(&Slot, Possible)],
    start: usize,
    avoided: Option<Ev>,
) -> Vec<usize> {
    let n = states.len();
    let sure = |s: &Slot, p: &Possible| p.surely_good() && Some(s.wire) != avoided;
    let primary_sure = states.iter().any(|(s, p)| !s.backup && sure(s, p));
    let primary_may = states.iter().any(|(s, p)| !s.backup && p.may_be_good());
    let mut out = Vec::new();
    for k in 0..n {
        let i = (start + k) % n;
        let (s, p) = &states[i];
        if p.may_be_good() && (!s.backup || !primary_sure) {
            out.push(i);
        }
        if sure(s, p) && (!s.backup || !primary_may) {
            break;
        }
    }
    out
}

/// The cursor packet `i` of `packets` (in time order) was chosen from: `start`, moved past
/// each later packet of its QP, given no more than `lag` after it, that took the EV the
/// cursor gave while packet `i` did not (`avoided` its own, as `allowed` takes it). Those
/// packets are added to `pulled`, judged here, and take no turn of their own.
pub(super) fn cursor_before(
    packets: &[&Frame<'_>],
    (i, lag): (usize, u64),
    states: &[(&Slot, Possible)],
    (start, avoided): (usize, Option<Ev>),
    pulled: &mut HashSet<usize>,
) -> usize {
    let f = packets[i];
    let Kind::Data { qp, rtx, .. } = f.kind else { return start };
    let position = |g: &Frame<'_>| states.iter().position(|(s, _)| s.wire == g.ev);
    let fits = |cursor| position(f).is_some_and(|p| allowed(states, cursor, avoided).contains(&p));
    let mut cursor = start;
    // While packet `i` does not fit, a later packet chosen first may move the cursor.
    for _ in 0..states.len() {
        if fits(cursor) {
            break;
        }
        let gives = allowed(states, cursor, None);
        let earlier = packets.iter().enumerate().skip(i + 1).find(|&(j, g)| {
            g.at <= f.at.saturating_add(lag)
                && !pulled.contains(&j)
                && matches!(g.kind, Kind::Data { qp: q, rtx: r, .. } if q == qp && (rtx || r))
                && position(g).is_some_and(|p| gives.contains(&p))
        });
        let Some((j, g)) = earlier else { break };
        pulled.insert(j);
        cursor = position(g).map_or(cursor, |p| (p + 1) % states.len());
    }
    cursor
}
