//! The round-trip estimates of a `skew-aware` QP, kept by the judge outside the device
//! (`SND-RTT-002`, `SND-SPRAY-004`).
//!
//! A device does not report its `srtt`. The judge works it out from the device's own
//! boundary: the times the device sent its data packets, on the EVs it chose, and the times
//! the scenario's SACKs and ACKs made them known to have arrived. It does so by the rules,
//! and once per [`Keeping`] with one rule broken. When a packet goes on another EV than the
//! recording, and the rules give the recorded EV while a wrong keeping gives the device's,
//! the divergence names the clause that keeping breaks: the estimate, not the policy, is
//! what went wrong.
//!
//! The pool is the QP's primary EVs: the judge names a misestimate only for a QP whose EVs
//! no input of the scenario moves out of GOOD, and only once every EV of the pool has an
//! estimate (before that the policy is round robin, which no estimate sways).

use std::collections::BTreeMap;

use openrdma_codec::{Ev, Msn, Psn};

use super::{Claim, Qp};
use crate::judge::{Frame, Kind};

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
pub(super) const MISESTIMATES: &[(Keeping, &str)] = &[
    (Keeping::Unreleased, "SND-RTX-006.a"),
    (Keeping::SampleOfRetransmission, "SND-INFER-003.b"),
    (Keeping::Unsmoothed, "SND-RTT-002"),
];

/// One PSN as the device's boundary shows it.
#[derive(Debug, Clone)]
struct Sent {
    first_at: u64,
    last_at: u64,
    /// The EVs of its transmissions, in order; the last is the latest.
    evs: Vec<Ev>,
    msn: Option<Msn>,
    arrived: bool,
}

/// The estimates of one QP, followed by one keeping.
#[derive(Debug, Clone)]
struct Estimates {
    keeping: Keeping,
    /// The pool, in profile order (wire EVs).
    pool: Vec<Ev>,
    srtt: Vec<Option<u64>>,
    una: Psn,
    psns: BTreeMap<u32, Sent>,
}

impl Estimates {
    fn new(keeping: Keeping, qp: &Qp) -> Estimates {
        let pool: Vec<Ev> = qp.slots.iter().filter(|s| !s.backup).map(|s| s.wire).collect();
        Estimates {
            keeping,
            srtt: vec![None; pool.len()],
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
    /// gives its sample, in PSN order.
    fn claim(&mut self, at: u64, c: &Claim) {
        let una = self.una;
        let mut arrived: Vec<u32> = self
            .psns
            .iter()
            .filter(|(_, s)| !s.arrived)
            .filter(|&(&p, s)| match *c {
                Claim::Sack { cack, base, bitmap } => {
                    let p = Psn::new(p);
                    !p.is_after(cack)
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
            self.srtt[i] = Some(match (self.srtt[i], self.keeping) {
                (Some(srtt), k) if k != Keeping::Unsmoothed => (7 * srtt + sample) / 8,
                _ => sample.max(1),
            });
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

    /// The EV `skew-aware` gives the next transmission of `psn`, or `None` while an EV of
    /// the pool has no estimate.
    fn choose(&self, psn: u32) -> Option<Ev> {
        let before = self.psns.get(&psn).and_then(|s| s.evs.last().copied());
        let pool: Vec<usize> =
            (0..self.pool.len()).filter(|&i| Some(self.pool[i]) != before).collect();
        let pool = if pool.is_empty() { (0..self.pool.len()).collect() } else { pool };
        let mut best: Option<(u64, usize)> = None;
        for i in pool {
            let cost = self.srtt[i]?.saturating_mul(self.inflight(self.pool[i]) + 1);
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, i));
            }
        }
        best.map(|(_, i)| self.pool[i])
    }
}

/// The clause a skew-aware QP's choice of EV for the device's frame `obs[o]` breaks by its
/// estimates, when the rules give `expected` and a wrong keeping gives the device's EV.
/// The QP is `peer` (the QPN its packets carry); `claims` are its acknowledgements.
pub(super) fn misestimate(
    qp: &Qp,
    claims: &[(u64, Claim)],
    obs: &[Frame<'_>],
    o: usize,
    expected: Ev,
) -> Option<&'static str> {
    let Kind::Data { qp: peer, psn, .. } = obs.get(o)?.kind else { return None };
    let at = obs[o].at;
    let follow = |keeping: Keeping| {
        let mut e = Estimates::new(keeping, qp);
        let mut claims = claims.iter().filter(|(t, _)| *t <= at).peekable();
        for f in &obs[..o] {
            let Kind::Data { qp: q, psn: p, .. } = f.kind else { continue };
            if q != peer {
                continue;
            }
            while let Some((t, c)) = claims.next_if(|(t, _)| *t <= f.at) {
                e.claim(*t, c);
            }
            e.send(f.at, p, f.ev, f.d.ext.meth.map(|m| m.msn));
        }
        for (t, c) in claims {
            e.claim(*t, c);
        }
        e.choose(psn)
    };
    if follow(Keeping::Rules) != Some(expected) {
        return None;
    }
    let chosen = Some(obs[o].ev);
    MISESTIMATES.iter().find(|(k, _)| follow(*k) == chosen).map(|&(_, clause)| clause)
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
            e.claim(10_000, &sack(0));
            e.claim(30_000, &sack(1));
            e.send(40_000, 2, a, None);
            e.claim(130_000, &sack(2));
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

    /// A retransmitted PSN's arrival gives no sample by the rules.
    #[test]
    fn a_retransmitted_psn_gives_no_sample() {
        let (a, b) = (Ev::new(0xA), Ev::new(0xB));
        for (k, srtt) in [(Keeping::Rules, None), (Keeping::SampleOfRetransmission, Some(5_000))] {
            let mut e = Estimates::new(k, &qp(&[0xA, 0xB]));
            e.send(0, 0, a, None);
            e.send(1_000, 0, b, None);
            e.claim(6_000, &sack(0));
            assert_eq!(e.srtt, vec![None, srtt], "{k:?}");
        }
    }
}
