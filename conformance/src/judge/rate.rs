//! A timestamp clock that counts at a steady rate (`CONF-CMP-095`, `SND-TS-003`).
//!
//! The unit and the epoch of a QP's clock are the sender's (`SND-TS-002`), so the judge
//! learns them from the QP's own stamps. A reading taken at `r` is `⌊(r − e) / u⌋`, and `r`
//! lies within `late_ns / 2` before the time `t` the packet was given. So two stamps `i`
//! and `j` of one run, `Δt = t_j − t_i` apart and `Δc` units apart, allow only the units
//! `u` with
//!
//! ```text
//! (Δt − slack) / (Δc + 1)  <  u  <  (Δt + slack) / (Δc − 1)     (the right side when Δc ≥ 2)
//! ```
//!
//! For each run the judge takes the greatest lower bound and the least upper bound over
//! the pairs of its stamps; a stamp after which the lower reaches the upper fits no unit. A
//! run is cut where two stamps are too far apart to unwrap the 16-bit counter between
//! them (2^16 ns with the slack, `CONF-CMP-115`), or where the clock ran backwards, which
//! `schedule::judge_clock` names.

use std::collections::HashMap;

use super::{Divergence, Frame, Kind, render_frame};
use crate::req::{Clause, SND_TS_003_A, SND_TS_003_B};

/// Within this span a stamp 2^15 units or more ahead of the one before ran backwards
/// (`CONF-CMP-036` uses the same span), and starts a new run.
const BACK_SPAN_NS: u64 = 1 << 15;

/// Two stamps further apart than this, with the slack, start a new run: a counter of units
/// of 1 ns or more may have wrapped between them. Nearer, it has not (`CONF-CMP-115`).
const RUN_SPAN_NS: u64 = 1 << 16;

/// How many of a run's latest stamps each new stamp is paired with, besides the run's
/// first: enough for a stale stamp to meet the packet it was copied from, while the first
/// gives the longest baseline and so the tightest bound on the unit.
const RECENT: usize = 64;

/// A bound on the unit, `num / den` ns, and the stamps (their indices in the output) of the
/// pair that set it, the earlier first.
#[derive(Debug, Clone, Copy)]
struct Bound {
    num: u128,
    den: u128,
    pair: (usize, usize),
}

impl Bound {
    /// Whether `self` is at least `other`.
    fn at_least(&self, other: &Bound) -> bool {
        self.num * other.den >= other.num * self.den
    }
}

/// One stamp of a run: its frame's index in the output, its time, its counter unwrapped
/// along the run, its raw value.
#[derive(Debug, Clone, Copy)]
struct Stamp {
    idx: usize,
    at: u64,
    count: u64,
    raw: u16,
}

/// A stamp no unit fits: the stamp at fault, whether it advanced too little (a reading
/// taken too early) rather than too much, and the other stamp of the pair that shows it.
#[derive(Debug, Clone, Copy)]
struct Misfit {
    culprit: usize,
    stale: bool,
    other: usize,
}

/// The stamps of one QP since its run began, and the units they allow.
#[derive(Debug, Default)]
struct Run {
    first: Option<Stamp>,
    recent: Vec<Stamp>,
}

impl Run {
    /// The stamp `raw` at `at` unwrapped along the run, or `None` when it starts a new
    /// run: too long after the last stamp, or behind it.
    ///
    /// A clock of units of 1 ns or more, read up to `slack` early, advances at most
    /// `dt + slack` units in `dt` ns, and it does not run backwards once `dt` exceeds the
    /// slack. So while `dt + slack` is below 2^16 the advance is the step modulo 2^16; a
    /// step of 2^15 or more within 2^15 ns, or one above `dt + slack` after that, is a
    /// clock run backwards instead, which the rate does not judge.
    fn unwrap(&self, at: u64, raw: u16, slack: u64) -> Option<u64> {
        let last = self.recent.last()?;
        let step = raw.wrapping_sub(last.raw);
        // A stamp seen before the last one (outputs out of time order) starts a new run:
        // the bounds below take every run in time order.
        let dt = at.checked_sub(last.at)?;
        let long = dt >= BACK_SPAN_NS && dt > slack;
        let forward = step < 0x8000 || (long && u64::from(step) <= dt + slack);
        (dt.saturating_add(slack) < RUN_SPAN_NS && forward).then(|| last.count + u64::from(step))
    }

    /// The run's stamps, the first once.
    fn stamps(&self) -> Vec<Stamp> {
        let mut all: Vec<Stamp> = self.first.into_iter().collect();
        all.extend(self.recent.iter().filter(|r| Some(r.idx) != self.first.map(|f| f.idx)));
        all
    }

    /// Adds `s` to the run, or says which stamp no unit fits: one of the pairs of the
    /// crossing bounds whose removal leaves the others a unit.
    fn add(&mut self, s: Stamp, slack: u64) -> Result<(), Misfit> {
        let mut all = self.stamps();
        all.push(s);
        let Err((floor, ceiling)) = bounds(&all, slack) else {
            self.push(s);
            return Ok(());
        };
        let fits_without = |c: usize| {
            let rest: Vec<Stamp> = all.iter().copied().filter(|x| x.idx != c).collect();
            bounds(&rest, slack).is_ok()
        };
        // A stale stamp, the common fault, is the later of the floor's pair or the earlier
        // of the ceiling's; then `s`; then a stamp that ran ahead.
        let culprit = [floor.pair.1, ceiling.pair.0, s.idx, floor.pair.0, ceiling.pair.1]
            .into_iter()
            .find(|&c| c == s.idx || (c != usize::MAX && fits_without(c)))
            .unwrap_or(s.idx);
        let stale = culprit == floor.pair.1 || culprit == ceiling.pair.0;
        let other = match (culprit == floor.pair.1, culprit == floor.pair.0) {
            (true, _) => floor.pair.0,
            (_, true) => floor.pair.1,
            _ if culprit == ceiling.pair.0 => ceiling.pair.1,
            _ => ceiling.pair.0,
        };
        if culprit != s.idx {
            // A stamp the run had taken was wrong: the run goes on without it.
            *self = Run::default();
            for x in all.into_iter().filter(|x| x.idx != culprit) {
                self.push(x);
            }
        }
        Err(Misfit { culprit, stale, other })
    }

    fn push(&mut self, s: Stamp) {
        if self.first.is_none() {
            self.first = Some(s);
        } else if self.recent.len() == RECENT {
            self.recent.remove(0);
        }
        self.recent.push(s);
    }
}

/// Whether some unit fits every two of `stamps`; when none does, the floor and the ceiling
/// that cross (the greatest lower bound, at least 1 ns, and the least upper bound).
fn bounds(stamps: &[Stamp], slack: u64) -> Result<(), (Bound, Bound)> {
    // The unit is 1 ns or more (SND-TS-002).
    let mut lo: Option<Bound> = None;
    let mut hi: Option<Bound> = None;
    for (i, p) in stamps.iter().enumerate() {
        for q in &stamps[i + 1..] {
            let (dt, dc) = (u128::from(q.at - p.at), u128::from(q.count - p.count));
            let pair = (p.idx, q.idx);
            let low = Bound { num: dt.saturating_sub(u128::from(slack)), den: dc + 1, pair };
            if lo.is_none_or(|l| !l.at_least(&low)) {
                lo = Some(low);
            }
            if dc >= 2 {
                let high = Bound { num: dt + u128::from(slack), den: dc - 1, pair };
                if hi.is_none_or(|h| !high.at_least(&h)) {
                    hi = Some(high);
                }
            }
        }
    }
    let one = Bound { num: 1, den: 1, pair: (usize::MAX, usize::MAX) };
    let floor = lo.filter(|l| l.at_least(&one)).unwrap_or(one);
    match hi {
        Some(h) if floor.at_least(&h) => Err((floor, h)),
        _ => Ok(()),
    }
}

/// The stamp of frame `f`: its QP and its `tx_timestamp`, for a data packet with a TSETH
/// or a probe.
fn stamp_of(f: &Frame<'_>) -> Option<(u32, u16)> {
    match (&f.kind, f.d.ext.tseth, f.d.ext.peth) {
        (&Kind::Data { qp, .. }, Some(t), _) => Some((qp, t.tx_timestamp)),
        (&Kind::Probe { qp }, _, Some(p)) => Some((qp, p.tx_timestamp)),
        _ => None,
    }
}

/// The stamps of each QP's data packets and probes fit one clock of a steady rate, each
/// read when its packet was sent (`CONF-CMP-095`).
pub(super) fn judge_rate(obs: &[Frame<'_>], late_ns: u64, div: &mut Vec<Divergence>) {
    let slack = late_ns / 2;
    let mut runs: HashMap<u32, Run> = HashMap::new();
    let mut found = Vec::new();
    for (idx, f) in obs.iter().enumerate() {
        let Some((qp, raw)) = stamp_of(f) else { continue };
        let run = runs.entry(qp).or_default();
        let Some(count) = run.unwrap(f.at, raw, slack) else {
            *run = Run::default();
            run.push(Stamp { idx, at: f.at, count: 0, raw });
            continue;
        };
        if let Err(m) = run.add(Stamp { idx, at: f.at, count, raw }, slack) {
            found.push(m);
        }
    }
    found.sort_by_key(|m| m.culprit);
    found.dedup_by_key(|m| m.culprit);
    div.extend(found.into_iter().map(|m| diverge(obs, m, slack)));
}

/// The divergence of a stamp no steady clock fits.
fn diverge(obs: &[Frame<'_>], m: Misfit, slack: u64) -> Divergence {
    let (f, o) = (&obs[m.culprit], &obs[m.other]);
    let raw = |f: &Frame<'_>| stamp_of(f).map_or(0, |(_, r)| r);
    let (clause, how): (Clause, _) = if m.stale {
        (
            SND_TS_003_B,
            "too little: a reading taken before the packet was sent, or for another packet",
        )
    } else {
        (SND_TS_003_A, "too much: a clock that does not count evenly")
    };
    let apart = super::render::gap(f.at, o.at);
    Divergence {
        actual: Some(render_frame(f.bytes)),
        ..Divergence::of(
            f.at,
            clause,
            format!(
                "tx_timestamp {:#06x}, {apart} the QP's stamp {:#06x}, fits no clock \
                 of a steady rate with the QP's other stamps (each read up to {slack} ns before \
                 its packet): it advanced {how}",
                raw(f),
                raw(o),
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The misfits of these stamps (time, raw), by the culprit's index.
    fn feed(stamps: &[(u64, u16)], slack: u64) -> Vec<(usize, bool)> {
        let mut run = Run::default();
        let mut out = vec![];
        for (idx, &(at, raw)) in stamps.iter().enumerate() {
            let Some(count) = run.unwrap(at, raw, slack) else {
                run = Run::default();
                run.push(Stamp { idx, at, count: 0, raw });
                continue;
            };
            if let Err(m) = run.add(Stamp { idx, at, count, raw }, slack) {
                out.push((m.culprit, m.stale));
            }
        }
        out
    }

    fn steady(n: u64, every: u64, unit: u64) -> Vec<(u64, u16)> {
        (0..n).map(|i| (i * every, (i * every / unit) as u16)).collect()
    }

    #[test]
    fn a_steady_clock_of_any_unit_and_epoch_fits() {
        for unit in [1u64, 3, 16, 1000] {
            let stamps: Vec<(u64, u16)> =
                (0..200u64).map(|i| (i * 37 + 5, ((i * 37 + 5 + 999) / unit) as u16)).collect();
            assert_eq!(feed(&stamps, 0), vec![], "unit {unit}");
        }
    }

    #[test]
    fn a_stale_stamp_is_named_as_advancing_too_little() {
        let mut stamps = steady(20, 100, 16);
        // A probe 3 µs after the last data packet, with that packet's stamp.
        stamps.push((1900 + 3000, (1900 / 16) as u16));
        assert_eq!(feed(&stamps, 1000), vec![(20, true)]);
        // Within the slack it cannot be told.
        stamps.pop();
        stamps.push((1900 + 900, (1900 / 16) as u16));
        assert_eq!(feed(&stamps, 1000), vec![]);
    }

    #[test]
    fn a_stale_second_stamp_is_named_when_a_third_shows_it() {
        // Data, a stale probe 11 µs later, data 1 µs after that.
        let stamps = [(3000, 187), (14000, 187), (15000, (15000 / 16) as u16)];
        assert_eq!(feed(&stamps, 1000), vec![(1, true)]);
    }

    #[test]
    fn a_stale_stamp_after_a_long_gap_is_named() {
        // A burst at 1 µs, a retransmission 34 µs later with the burst's stamp, and data
        // 10 µs after that: no clock of 1 ns or more stands still for 34 µs and then runs.
        let unit = 16;
        let stamps = [(1000, 62), (1000, 62), (35000, 62), (45000, (45000 / unit) as u16)];
        assert_eq!(feed(&stamps, 1000), vec![(2, true)]);
        // The same gap with a right stamp fits, its step 2^15 or more included.
        let right = [(1000, 1000u16), (40000, 40000), (45000, 45000)];
        assert_eq!(feed(&right, 1000), vec![]);
        // A step no clock of 1 ns or more makes in that time is one run backwards.
        let behind = [(1000, 62), (35000, 0), (45000, (44000 / unit) as u16)];
        assert_eq!(feed(&behind, 1000), vec![]);
        // Past 2^16 ns, with the slack, the counter may have wrapped: a new run.
        let wrapped = [(1000, 62), (66000, 62), (67000, 124)];
        assert_eq!(feed(&wrapped, 1000), vec![]);
    }

    #[test]
    fn a_jump_forward_is_named_as_advancing_too_much() {
        let mut stamps = steady(20, 100, 16);
        stamps.push((2000, (2000 / 16 + 500) as u16));
        assert_eq!(feed(&stamps, 0), vec![(20, false)]);
    }
}
