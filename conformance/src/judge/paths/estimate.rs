//! The round-trip estimates of a `skew-aware` QP, kept by the judge outside the device
//! (`SND-RTT-002`, `SND-SPRAY-004`).
//!
//! A device does not report its `srtt`. The judge works it out from the device's own
//! boundary: the times the device sent its data packets, on the EVs it chose, and the times
//! the scenario's SACKs and ACKs made them known to have arrived. It does so by the rules,
//! and once per [`Keeping`] with one rule broken.
//!
//! Each packet is judged on the device's own earlier choices, never on the recording
//! (`CONF-CMP-048`): a device may act on an acknowledgement up to `late_ns / 2` after it
//! came (`CONF-TIME-004`), so an acknowledgement that came within that time before a packet
//! may or may not have been taken when the device chose, and each sample may be that much
//! longer than the time the acknowledgement came. The judge keeps, for every EV, the least
//! and the greatest `srtt` those timings give, and allows a packet every EV whose least cost
//! is at most the greatest cost of the EV the rules would take. A packet on an EV the rules
//! never give is named by the wrong keeping that gives it, if one does: the estimate, not
//! the policy, is what went wrong.
//!
//! The pool is the QP's primary EVs: the judge follows a QP this way only when no input of
//! the scenario moves its EVs out of GOOD. While an EV of the pool may have no estimate the
//! policy is round robin, from a cursor that only its round-robin choices move.

use std::collections::BTreeMap;

use openrdma_codec::{Ev, Msn, Psn};

use super::{Claim, Qp};
use crate::judge::{Frame, Kind};
use crate::req::*;

/// A way of keeping the estimates: by the rules, or with one rule broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keeping {
    /// By the rules.
    Rules,
    /// A retransmission leaves its PSN counted in flight on the EV it was sent on before:
    /// the count of that EV is never given back (`SND-RTX-006.a`).
    Unreleased,
    /// The arrival of a retransmitted PSN gives a sample: the time since its latest
    /// transmission, for that transmission's EV (`SND-INFER-003.b`).
    SampleOfRetransmission,
    /// Each sample replaces `srtt` instead of being averaged into it (`SND-RTT-002`).
    Unsmoothed,
}

/// The wrong keepings the judge tries, in order, with the clause each breaks.
pub(super) const MISESTIMATES: &[(Keeping, Clause)] = &[
    (Keeping::Unreleased, SND_RTX_006_A),
    (Keeping::SampleOfRetransmission, SND_INFER_003_B),
    (Keeping::Unsmoothed, SND_RTT_002),
];

/// One PSN as the device's boundary shows it.
#[derive(Debug, Clone, PartialEq)]
struct Sent {
    first_at: u64,
    last_at: u64,
    /// The EVs of its transmissions, in order; the last is the latest.
    evs: Vec<Ev>,
    msn: Option<Msn>,
    arrived: bool,
}

/// The estimates of one QP, followed by one keeping.
#[derive(Debug, Clone, PartialEq)]
struct Estimates {
    keeping: Keeping,
    /// The pool, in profile order (wire EVs).
    pool: Vec<Ev>,
    /// The least `srtt` of each EV the device's timing allows.
    srtt: Vec<Option<u64>>,
    /// The greatest.
    srtt_hi: Vec<Option<u64>>,
    una: Psn,
    psns: BTreeMap<u32, Sent>,
}

impl Estimates {
    fn new(keeping: Keeping, qp: &Qp) -> Estimates {
        let pool: Vec<Ev> = qp.slots.iter().filter(|s| !s.backup).map(|s| s.wire).collect();
        Estimates {
            keeping,
            srtt: vec![None; pool.len()],
            srtt_hi: vec![None; pool.len()],
            pool,
            una: qp.initial_psn,
            psns: BTreeMap::new(),
        }
    }

    fn send(&mut self, at: u64, psn: u32, ev: Ev, msn: Option<Msn>) {
        let s = self.psns.entry(psn).or_insert(Sent {
            first_at: at,
            last_at: at,
            evs: Vec::new(),
            msn,
            arrived: false,
        });
        s.last_at = at;
        s.evs.push(ev);
        s.msn = s.msn.or(msn);
    }

    /// Takes what an acknowledgement at `at` claims: each PSN newly known to have arrived
    /// gives its sample, in PSN order. The device may have taken it up to `late` ns after
    /// `at`, and its samples may be that much longer.
    fn claim(&mut self, at: u64, c: &Claim, late: u64) {
        let una = self.una;
        let mut arrived: Vec<u32> = self
            .psns
            .iter()
            .filter(|(_, s)| !s.arrived)
            .filter(|&(&p, s)| match *c {
                Claim::Sack { cack, base, bitmap } => {
                    let p = Psn::new(p);
                    p.is_before(cack.next())
                        || (!una.is_after(p)
                            && p.in_window(base, 64)
                            && bitmap >> p.forward_from(base) & 1 == 1)
                }
                Claim::Ack { msn } => s.msn.is_some_and(|m| m.is_at_or_before(msn)),
            })
            .map(|(&p, _)| p)
            .collect();
        arrived.sort_by_key(|&p| Psn::new(p).forward_from(una));
        if let Claim::Sack { cack, .. } = *c {
            let next = cack.add(1);
            if next.is_after(self.una) {
                self.una = next;
            }
        }
        for p in arrived {
            let Some(s) = self.psns.get_mut(&p) else { continue };
            s.arrived = true;
            let resent = s.evs.len() > 1;
            let (from, ev) = match (resent, self.keeping) {
                (false, _) => (s.first_at, s.evs[0]),
                (true, Keeping::SampleOfRetransmission) => (s.last_at, s.evs[s.evs.len() - 1]),
                (true, _) => continue,
            };
            let sample = at.saturating_sub(from);
            let Some(i) = self.pool.iter().position(|&e| e == ev) else { continue };
            let keeping = self.keeping;
            let update = |srtt: Option<u64>, sample: u64| match (srtt, keeping) {
                (Some(srtt), k) if k != Keeping::Unsmoothed => (7 * srtt + sample) / 8,
                _ => sample.max(1),
            };
            self.srtt[i] = Some(update(self.srtt[i], sample));
            self.srtt_hi[i] = Some(update(self.srtt_hi[i], sample.saturating_add(late)));
        }
    }

    /// The PSNs counted in flight on `ev`.
    fn inflight(&self, ev: Ev) -> u64 {
        let mut n = 0;
        for s in self.psns.values() {
            let last = s.evs.len() - 1;
            if !s.arrived && s.evs[last] == ev {
                n += 1;
            }
            if self.keeping == Keeping::Unreleased {
                n += s.evs[..last].iter().filter(|&&e| e == ev).count() as u64;
            }
        }
        n
    }

    /// The EV `skew-aware` gives the next transmission of `psn` when every `srtt` is at its
    /// least, or `None` while an EV of the pool has no estimate.
    #[cfg(test)]
    fn choose(&self, psn: u32) -> Option<Ev> {
        let cands = self.candidates(psn);
        let mut best: Option<(u64, usize)> = None;
        for i in cands {
            let cost = self.srtt[i]?.saturating_mul(self.inflight(self.pool[i]) + 1);
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, i));
            }
        }
        best.map(|(_, i)| self.pool[i])
    }

    /// The positions of the pool the next transmission of `psn` may take: every one but
    /// that of its latest transmission, if another is left.
    fn candidates(&self, psn: u32) -> Vec<usize> {
        let before = self.psns.get(&psn).and_then(|s| s.evs.last().copied());
        let pool: Vec<usize> =
            (0..self.pool.len()).filter(|&i| Some(self.pool[i]) != before).collect();
        if pool.is_empty() { (0..self.pool.len()).collect() } else { pool }
    }

    /// The positions `skew-aware` may give the next transmission of `psn`, each with the
    /// round-robin cursor after it, from round-robin cursor `cursor`: round robin while an EV
    /// of the pool may have no estimate, and otherwise every EV whose least cost is at most
    /// the greatest cost of some EV, the cursor unmoved.
    fn allowed(&self, psn: u32, cursor: usize) -> Vec<(usize, usize)> {
        let cands = self.candidates(psn);
        let n = self.pool.len();
        if cands.iter().any(|&i| self.srtt[i].is_none() || self.srtt_hi[i].is_none()) {
            let next = (0..n).map(|k| (cursor + k) % n).find(|i| cands.contains(i));
            return next.map(|i| vec![(i, (i + 1) % n)]).unwrap_or_default();
        }
        let cost = |srtt: &[Option<u64>], i: usize| {
            srtt[i].unwrap_or(u64::MAX).saturating_mul(self.inflight(self.pool[i]) + 1)
        };
        let most = cands.iter().map(|&i| cost(&self.srtt_hi, i)).min().unwrap_or(u64::MAX);
        cands.into_iter().filter(|&i| cost(&self.srtt, i) <= most).map(|i| (i, cursor)).collect()
    }
}

/// A data packet of a skew-aware QP on an EV its policy could not give
/// ([`judge_own`]): the frame's index, the EVs the policy gives, and the clause to name.
#[derive(Debug, Clone)]
pub(super) struct Misstep {
    pub(super) o: usize,
    pub(super) allowed: Vec<Ev>,
    pub(super) clause: Clause,
}

/// Judges every data packet of the skew-aware QP `qp` (whose packets carry `peer`) on the
/// device's own earlier choices and the acknowledgements `claims` it may have taken, each
/// up to `lag` ns after it came (`CONF-CMP-048`). A packet on an EV the rules cannot give
/// is named by the first wrong keeping that can give it, or else by `SND-SPRAY-004`.
/// `claims` are in time order.
pub(super) fn judge_own(
    qp: &Qp,
    peer: u32,
    claims: &[(u64, Claim)],
    obs: &[Frame<'_>],
    lag: u64,
) -> Vec<Misstep> {
    let pool: Vec<Ev> = qp.slots.iter().filter(|s| !s.backup).map(|s| s.wire).collect();
    let n = pool.len();
    let mut follow = Follow::new(qp, peer, claims, obs, lag);
    let mut out = Vec::new();
    // The round-robin cursors the device's choices so far may have left.
    let mut cursors: Vec<usize> = vec![0];
    for k in 0..follow.sent.len() {
        let (o, ev, psn) = (follow.sent[k].o, follow.sent[k].ev, follow.sent[k].psn);
        let Some(taken) = pool.iter().position(|&e| e == ev) else {
            // Not an EV of the pool: the pool's rule (CONF-CMP-027) judges the packet.
            continue;
        };
        let rules = follow.allowed(Keeping::Rules, k, psn, &cursors);
        let mut next: Vec<usize> =
            rules.iter().filter(|(i, _)| *i == taken).map(|&(_, c)| c).collect();
        if next.is_empty() {
            let clause = MISESTIMATES
                .iter()
                .find(|(keeping, _)| {
                    follow.allowed(*keeping, k, psn, &cursors).iter().any(|(i, _)| *i == taken)
                })
                .map_or(SND_SPRAY_004, |&(_, clause)| clause);
            let mut evs: Vec<Ev> = Vec::new();
            for (i, _) in &rules {
                if !evs.contains(&pool[*i]) {
                    evs.push(pool[*i]);
                }
            }
            out.push(Misstep { o, allowed: evs, clause });
            // Go on from the device's own choice, whichever way it made it.
            next = cursors.clone();
            next.push((taken + 1) % n.max(1));
        }
        next.sort_unstable();
        next.dedup();
        cursors = next;
    }
    out
}

/// One data packet of the QP followed, as the estimates take it.
#[derive(Debug, Clone, Copy)]
struct Send {
    /// Its index among the device's frames.
    o: usize,
    at: u64,
    psn: u32,
    ev: Ev,
    msn: Option<Msn>,
}

/// The estimates of one keeping, followed through the QP's packets and the claims in time
/// order, a claim before every packet sent at or after its time.
#[derive(Debug, Clone)]
struct Walk {
    e: Estimates,
    /// The packets sent so far, and the claims taken.
    sent: usize,
    taken: usize,
}

impl Walk {
    /// Goes on through `sent` and `claims[..cap]`, each claim taken `late(at)` ns late.
    /// With `hold`, stops before the first packet that claim `cap` comes before, so that the
    /// walk goes on the same whatever claims after `cap` are taken; otherwise takes every
    /// packet of `sent`, then every claim to `cap`.
    fn go(
        &mut self,
        sent: &[Send],
        claims: &[(u64, Claim)],
        cap: usize,
        late: impl Fn(u64) -> u64,
        hold: bool,
    ) {
        while let Some(s) = sent.get(self.sent) {
            while let Some((at, c)) = claims[..cap].get(self.taken).filter(|(at, _)| *at <= s.at) {
                self.e.claim(*at, c, late(*at));
                self.taken += 1;
            }
            if hold && self.taken == cap && claims.get(cap).is_some_and(|(at, _)| *at <= s.at) {
                return;
            }
            self.e.send(s.at, s.psn, s.ev, s.msn);
            self.sent += 1;
        }
        if !hold {
            while let Some((at, c)) = claims[..cap].get(self.taken) {
                self.e.claim(*at, c, late(*at));
                self.taken += 1;
            }
        }
    }
}

/// The estimates of a QP, followed once for each keeping: each walk holds what every
/// packet's judgement shares, the packets sent before it and the claims surely taken by
/// then, and each judgement goes on from a copy of it. A packet earlier than the one
/// before it starts the walks again.
struct Follow<'a> {
    qp: &'a Qp,
    claims: &'a [(u64, Claim)],
    lag: u64,
    /// The QP's data packets, in the order the device sent them.
    sent: Vec<Send>,
    /// The walk of each keeping, by the rules first, then [`MISESTIMATES`].
    walks: Vec<Walk>,
}

impl<'a> Follow<'a> {
    fn new(
        qp: &'a Qp,
        peer: u32,
        claims: &'a [(u64, Claim)],
        obs: &[Frame<'_>],
        lag: u64,
    ) -> Follow<'a> {
        let sent = obs
            .iter()
            .enumerate()
            .filter_map(|(o, f)| match f.kind {
                Kind::Data { qp: q, psn, .. } if q == peer => {
                    Some(Send { o, at: f.at, psn, ev: f.ev, msn: f.d.ext.meth.map(|m| m.msn) })
                }
                _ => None,
            })
            .collect();
        let walks = std::iter::once(Keeping::Rules)
            .chain(MISESTIMATES.iter().map(|&(k, _)| k))
            .map(|k| Walk { e: Estimates::new(k, qp), sent: 0, taken: 0 })
            .collect();
        Follow { qp, claims, lag, sent, walks }
    }

    /// The estimates of `keeping` just before packet `k`, one for each count of claims the
    /// device may have taken by then: it has surely taken the claims that came more than
    /// `lag` ns before the packet, and may have taken those since, each up to `lag` ns after
    /// it came and no later than the packet.
    fn estimates(&mut self, keeping: Keeping, k: usize) -> Vec<Estimates> {
        let (claims, lag, t) = (self.claims, self.lag, self.sent[k].at);
        let sure = claims.iter().filter(|(c, _)| c.saturating_add(lag) < t).count();
        let maybe = claims[sure..].iter().take_while(|(c, _)| *c <= t).count();
        let late = |at: u64| lag.min(t.saturating_sub(at));
        let Some(walk) = self.walks.iter_mut().find(|w| w.e.keeping == keeping) else {
            return Vec::new();
        };
        if walk.taken > sure {
            *walk = Walk { e: Estimates::new(keeping, self.qp), sent: 0, taken: 0 };
        }
        let before = &self.sent[..k];
        walk.go(before, claims, sure, late, true);
        (sure..=sure + maybe)
            .map(|taken| {
                let mut w = walk.clone();
                w.go(before, claims, taken, late, false);
                w.e
            })
            .collect()
    }

    /// Every position the policy of `keeping` may give packet `k` (of PSN `psn`), with the
    /// cursor after it, from each of `cursors`, whichever claims the device took by then.
    fn allowed(
        &mut self,
        keeping: Keeping,
        k: usize,
        psn: u32,
        cursors: &[usize],
    ) -> Vec<(usize, usize)> {
        let mut all: Vec<(usize, usize)> = Vec::new();
        for e in self.estimates(keeping, k) {
            for &c in cursors {
                for a in e.allowed(psn, c) {
                    if !all.contains(&a) {
                        all.push(a);
                    }
                }
            }
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Possible, Slot};
    use super::*;

    fn qp(evs: &[u32]) -> Qp {
        let slot = |e: &u32| Slot {
            ev: Ev::new(*e),
            wire: Ev::new(*e),
            backup: false,
            state: Possible::good(),
        };
        Qp { initial_psn: Psn::new(0), slots: evs.iter().map(slot).collect(), random: false }
    }

    fn sack(cack: u32) -> Claim {
        Claim::Sack { cack: Psn::new(cack), base: Psn::new(cack + 1), bitmap: 0 }
    }

    /// Samples of 10 and 30 us, then 90 us on the first EV: by the rules its srtt is
    /// 20 us and the next packet takes it; a keeping that does not average takes 90 us.
    #[test]
    fn a_late_sample_moves_srtt_by_an_eighth_of_the_difference() {
        let (a, b) = (Ev::new(0xA), Ev::new(0xB));
        let run = |k: Keeping| {
            let mut e = Estimates::new(k, &qp(&[0xA, 0xB]));
            e.send(0, 0, a, None);
            e.send(0, 1, b, None);
            e.claim(10_000, &sack(0), 0);
            e.claim(30_000, &sack(1), 0);
            e.send(40_000, 2, a, None);
            e.claim(130_000, &sack(2), 0);
            (e.srtt.clone(), e.choose(3))
        };
        assert_eq!(run(Keeping::Rules), (vec![Some(20_000), Some(30_000)], Some(a)));
        assert_eq!(run(Keeping::Unsmoothed), (vec![Some(90_000), Some(30_000)], Some(b)));
    }

    /// A PSN resent from the first EV on the second: by the rules the first EV's count
    /// gives it back; a keeping that does not still counts it there.
    #[test]
    fn a_retransmission_releases_its_place_on_its_old_ev() {
        let (a, b) = (Ev::new(0xA), Ev::new(0xB));
        for (k, on_a) in [(Keeping::Rules, 0), (Keeping::Unreleased, 1)] {
            let mut e = Estimates::new(k, &qp(&[0xA, 0xB]));
            e.send(0, 0, a, None);
            e.send(0, 0, b, None);
            assert_eq!((e.inflight(a), e.inflight(b)), (on_a, 1), "{k:?}");
        }
    }

    /// Samples of 10 and 10.5 us that the device may have taken up to 1 us late: either
    /// EV may be the cheaper, so both are allowed; taken on time, only the first.
    #[test]
    fn a_sample_taken_late_allows_every_ev_it_may_make_cheapest() {
        let (a, b) = (Ev::new(0xA), Ev::new(0xB));
        let run = |late: u64| {
            let mut e = Estimates::new(Keeping::Rules, &qp(&[0xA, 0xB]));
            e.send(0, 0, a, None);
            e.send(0, 1, b, None);
            e.claim(10_000, &sack(0), late);
            e.claim(10_500, &sack(1), late);
            e.allowed(2, 0).into_iter().map(|(i, _)| i).collect::<Vec<_>>()
        };
        assert_eq!(run(0), vec![0]);
        assert_eq!(run(1_000), vec![0, 1]);
    }

    /// While an EV has no estimate the policy is round robin from the cursor.
    #[test]
    fn without_every_estimate_the_choice_is_round_robin() {
        let a = Ev::new(0xA);
        let mut e = Estimates::new(Keeping::Rules, &qp(&[0xA, 0xB, 0xC]));
        e.send(0, 0, a, None);
        e.claim(10_000, &sack(0), 0);
        assert_eq!(e.allowed(1, 1), vec![(1, 2)]);
        assert_eq!(e.allowed(1, 0), vec![(0, 1)]);
    }

    /// A retransmitted PSN's arrival gives no sample by the rules.
    #[test]
    fn a_retransmitted_psn_gives_no_sample() {
        let (a, b) = (Ev::new(0xA), Ev::new(0xB));
        for (k, srtt) in [(Keeping::Rules, None), (Keeping::SampleOfRetransmission, Some(5_000))] {
            let mut e = Estimates::new(k, &qp(&[0xA, 0xB]));
            e.send(0, 0, a, None);
            e.send(1_000, 0, b, None);
            e.claim(6_000, &sack(0), 0);
            assert_eq!(e.srtt, vec![None, srtt], "{k:?}");
        }
    }

    /// The estimates of `keeping` just before a packet at `t`, followed from scratch
    /// through the packets `sent` before it and the claims the device took: the plain
    /// version that [`Follow`] must agree with.
    fn from_scratch(
        keeping: Keeping,
        qp: &Qp,
        claims: &[(u64, Claim)],
        sent: &[Send],
        t: u64,
        lag: u64,
    ) -> Estimates {
        let mut e = Estimates::new(keeping, qp);
        let late = |at: u64| lag.min(t.saturating_sub(at));
        let mut claims = claims.iter().peekable();
        for s in sent {
            while let Some((at, c)) = claims.next_if(|(at, _)| *at <= s.at) {
                e.claim(*at, c, late(*at));
            }
            e.send(s.at, s.psn, s.ev, s.msn);
        }
        for (at, c) in claims {
            e.claim(*at, c, late(*at));
        }
        e
    }

    /// Followed once, the estimates before every packet are those followed from scratch,
    /// for every keeping and every count of claims the device may have taken, also when a
    /// packet's time goes back.
    #[test]
    fn following_once_agrees_with_following_from_scratch() {
        let q = qp(&[0xA, 0xB, 0xC]);
        let lag = 3_000;
        // A small linear congruential sequence: the same packets every run.
        let mut x: u64 = 7;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut sent = Vec::new();
        let mut t = 0;
        for o in 0..60 {
            // Mostly forward, now and then back.
            t = if next(10) == 0 { t - t.min(next(4_000)) } else { t + next(2_500) };
            let psn = (o.min(40) as u32).saturating_sub(next(3) as u32);
            let ev = Ev::new([0xA, 0xB, 0xC][next(3) as usize]);
            sent.push(Send { o, at: t, psn, ev, msn: None });
        }
        let mut claims = Vec::new();
        let mut c = 0;
        for k in 0..30u32 {
            c += next(5_000);
            claims.push((c, sack(k + next(3) as u32)));
        }
        let keepings = [Keeping::Rules, Keeping::Unreleased, Keeping::SampleOfRetransmission];
        let mut follow = Follow {
            qp: &q,
            claims: &claims,
            lag,
            sent: sent.clone(),
            walks: keepings
                .iter()
                .map(|&k| Walk { e: Estimates::new(k, &q), sent: 0, taken: 0 })
                .collect(),
        };
        for k in 0..sent.len() {
            let t = sent[k].at;
            let sure = claims.iter().filter(|(c, _)| c + lag < t).count();
            let maybe = claims[sure..].iter().take_while(|(c, _)| *c <= t).count();
            for keeping in keepings {
                let want: Vec<Estimates> = (sure..=sure + maybe)
                    .map(|n| from_scratch(keeping, &q, &claims[..n], &sent[..k], t, lag))
                    .collect();
                assert_eq!(follow.estimates(keeping, k), want, "packet {k}, {keeping:?}");
            }
        }
    }
}
