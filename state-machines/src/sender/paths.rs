//! Paths: the EV profile of a QP, the spray policies that choose an EV for each
//! transmission (`SND-SPRAY-*`), the window-fit policy's estimates, and EV states
//! (`EV-*`).

use super::*;
#[cfg(feature = "fault-hooks")]
use crate::config::FitFault;

/// One entropy value of a QP's profile.
#[derive(Debug, Clone)]
pub(crate) struct EvSlot {
    pub(crate) ev: Ev,
    pub(crate) state: EvState,
    pub(crate) since: Timestamp,
    pub(crate) backup: bool,
    /// Sequence number of the next transmission on this EV.
    pub(super) next_seq: u64,
    /// Transmissions on this EV not yet known to have arrived, in send order.
    pub(super) fifo: Ring<Transmission>,
    /// Smoothed round trip, ns (0 = no sample yet).
    pub(crate) srtt: u64,
    pub(crate) inflight: u32,
    /// When the window-fit policy last probed this EV (it probes only EVs it leaves out),
    /// if it ever did.
    pub(super) probed_at: Option<Timestamp>,
    /// The round trip the window-fit policy judged this EV by at its last evaluation.
    pub(super) fit_rtt: u64,
    /// When the latest transmission on this EV left (`SND-TAIL-001`).
    pub(super) tail_at: Timestamp,
    /// A probe has left on this EV since its latest data transmission, or a tail probe is
    /// queued for it: no further tail probe is due until the next data transmission.
    pub(super) tail_probed: bool,
}

/// The paths of one QP: its EV profile, with each EV's state and estimates, and the state
/// of the spray policy that chooses among them.
#[derive(Debug)]
pub(crate) struct Paths {
    /// The spray policy (`SND-SPRAY-*`).
    pub(super) spray: SprayPolicy,
    /// The profile: the primary EVs, then the backups.
    pub(crate) evs: Vec<EvSlot>,
    /// The round-robin cursor: an index into `evs`.
    pub(super) rr: usize,
    /// The random policy's generator, seeded per QP.
    pub(super) rng: ChaCha8Rng,
    /// Whether any EV, primary or backup, is not GOOD (the fast path of `choose_ev` is off,
    /// and SKIP expiry has something to look at).
    pub(super) evs_degraded: bool,
    /// Number of primary EVs: the first entries of `evs`, the backups after them.
    pub(super) primaries: usize,
    /// The window-fit policy's state (unused by the other policies).
    pub(super) fit: WindowFit,
    /// Reused buffer of round trips, for the window-fit policy.
    pub(super) srtts: Vec<u64>,
}

/// A transmission on an EV: its PSN and its sequence number on the EV.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Transmission {
    pub(super) psn: Psn,
    pub(super) seq: u64,
}

/// State of the window-fit policy (`SND-SPRAY-005`).
#[derive(Debug, Clone)]
pub(super) struct WindowFit {
    /// EVs whose `srtt` is above this are left out; `u64::MAX` leaves none out.
    pub(super) limit: u64,
    /// EVs of the pool within `limit` at the last evaluation.
    pub(super) in_use: u32,
    /// Smoothed time one EV takes to carry a packet when the QP sends as fast as the NIC
    /// lets it, ns (0: no sample yet): see [`Requester::fit_note_send`].
    pub(super) ev_gap: u64,
    /// Time of the last first transmission.
    pub(super) last_send: Option<Timestamp>,
    /// Whether the window held back a transmission since the last one.
    pub(super) blocked: bool,
    /// Since the last evaluation: time between first transmissions with no closed window
    /// between them, ns, and the transmissions that closed those intervals.
    pub(super) run_time: u64,
    pub(super) run_sends: u32,
    /// First transmissions since `limit` was last worked out.
    pub(super) since: u32,
    /// The estimate kept wrong, in a faulty device of the suite's registry (test support).
    #[cfg(feature = "fault-hooks")]
    pub(super) fault: Option<FitFault>,
}

impl WindowFit {
    /// First transmissions between two evaluations of the limit.
    pub(super) const EVERY: u32 = 16;

    pub(super) fn new(nic: &NicConfig) -> WindowFit {
        #[cfg(not(feature = "fault-hooks"))]
        let _ = nic;
        WindowFit {
            limit: u64::MAX,
            in_use: 1,
            ev_gap: 0,
            last_send: None,
            blocked: false,
            run_time: 0,
            run_sends: 0,
            since: Self::EVERY,
            #[cfg(feature = "fault-hooks")]
            fault: nic.fit_fault,
        }
    }

    /// The EVs a sample of the QP's gap between packets is spread over (SND-SPRAY-007).
    fn gap_evs(&self) -> u32 {
        #[cfg(feature = "fault-hooks")]
        if self.fault == Some(FitFault::PerQpGap) {
            return 1;
        }
        self.in_use
    }

    /// The share of the best rate the EVs kept in use must reach (SND-SPRAY-006).
    fn margin(&self) -> f64 {
        #[cfg(feature = "fault-hooks")]
        if self.fault == Some(FitFault::NoMargin) {
            return 1.0;
        }
        15.0 / 16.0
    }
}

impl Paths {
    pub(super) fn refresh_degraded(&mut self) {
        self.evs_degraded = self.evs.iter().any(|s| s.state != EvState::Good);
    }

    /// Picks an EV index by the spray policy, avoiding `avoid` (the EV a lost packet used).
    #[inline(always)]
    pub(super) fn choose_ev(&mut self, avoid: Option<u16>) -> Option<u16> {
        // Fast path: every EV GOOD, round robin, nothing to avoid. The pool is then the
        // primary EVs, which come first in the profile: from a cursor on a backup EV the
        // search of SND-SPRAY-001 goes round to the first EV. The cursor is always below the
        // profile's length (it is only ever set modulo it).
        if !self.evs_degraded
            && avoid.is_none()
            && self.spray == SprayPolicy::RoundRobin
            && self.primaries > 0
        {
            let n = self.evs.len();
            let i = if self.rr < self.primaries { self.rr } else { 0 };
            self.rr = if i + 1 == n { 0 } else { i + 1 };
            return Some(i as u16);
        }
        self.choose_ev_by_policy(avoid)
    }

    #[inline(never)]
    fn choose_ev_by_policy(&mut self, avoid: Option<u16>) -> Option<u16> {
        let usable = |s: &EvSlot, i: usize| s.state.usable() && Some(i as u16) != avoid;
        let primary = self.evs.iter().enumerate().any(|(i, s)| !s.backup && usable(s, i));
        let pool = |s: &EvSlot| s.backup != primary;
        let n = self.evs.len();
        if n == 0 {
            return None;
        }
        match self.spray {
            SprayPolicy::Fixed => {
                (0..n).find(|&i| pool(&self.evs[i]) && usable(&self.evs[i], i)).map(|i| i as u16)
            }
            SprayPolicy::RoundRobin => {
                for k in 0..n {
                    let i = (self.rr + k) % n;
                    if pool(&self.evs[i]) && usable(&self.evs[i], i) {
                        self.rr = (i + 1) % n;
                        return Some(i as u16);
                    }
                }
                None
            }
            SprayPolicy::Random => {
                let count =
                    (0..n).filter(|&i| pool(&self.evs[i]) && usable(&self.evs[i], i)).count();
                if count == 0 {
                    return None;
                }
                let pick = (self.rng.next_u32() as usize) % count;
                (0..n)
                    .filter(|&i| pool(&self.evs[i]) && usable(&self.evs[i], i))
                    .nth(pick)
                    .map(|i| i as u16)
            }
            SprayPolicy::WindowFit => {
                // SND-SPRAY-005: round robin over the pool's EVs within the limit, or over
                // the whole pool when none is.
                let limit = self.fit.limit;
                for within in [true, false] {
                    for k in 0..n {
                        let i = (self.rr + k) % n;
                        let e = &self.evs[i];
                        if pool(e) && usable(e, i) && (!within || e.fit_rtt <= limit) {
                            self.rr = (i + 1) % n;
                            return Some(i as u16);
                        }
                    }
                }
                None
            }
            SprayPolicy::SkewAware => {
                let cands = || (0..n).filter(|&i| pool(&self.evs[i]) && usable(&self.evs[i], i));
                if cands().any(|i| self.evs[i].srtt == 0) {
                    // Not every path measured yet: round robin.
                    for k in 0..n {
                        let i = (self.rr + k) % n;
                        if pool(&self.evs[i]) && usable(&self.evs[i], i) {
                            self.rr = (i + 1) % n;
                            return Some(i as u16);
                        }
                    }
                    return None;
                }
                // Earliest expected arrival: the path's round trip, stretched by what is
                // already queued on it.
                cands()
                    .min_by_key(|&i| {
                        let s = &self.evs[i];
                        (s.srtt.saturating_mul(u64::from(s.inflight) + 1), i)
                    })
                    .map(|i| i as u16)
            }
        }
    }

    pub(super) fn ev_index(&self, ev: Ev) -> Option<usize> {
        self.evs.iter().position(|s| s.ev == ev)
    }
}

impl Requester {
    /// Notes a first transmission at `now` for the window-fit policy's estimate of how fast
    /// the QP sends when the window does not hold it back.
    ///
    /// Only the time between two transmissions with no closed window between them counts:
    /// the NIC, not the window, set that pace. Each evaluation turns what accumulated since
    /// the last into a sample of `ev_gap`: that time, over the transmissions, times the EVs
    /// in use.
    pub(super) fn fit_note_send(&mut self, now: Timestamp) {
        let f = &mut self.paths.fit;
        if let Some(last) = f.last_send.filter(|_| !f.blocked) {
            f.run_time += now.0.saturating_sub(last.0);
            f.run_sends += 1;
        }
        f.blocked = false;
        f.last_send = Some(now);
    }

    /// Works out the window-fit policy's limit every [`WindowFit::EVERY`] first
    /// transmissions (`SND-SPRAY-006`, `SND-SPRAY-007`), and queues probes on the EVs of the
    /// pool it leaves out (`SND-SPRAY-009`).
    ///
    /// With the `k` fastest EVs of the pool (round trips `s1 ≤ … ≤ sn`), the QP can send at
    /// most `min(k × c, W / sk)` packets per ns: `c` is what one EV carries (`1 / ev_gap`)
    /// and `W / sk` what the window lets through when every PSN waits a round trip of the
    /// slowest EV in use. The limit is the round trip of the largest `k` within 1/16 of the
    /// best.
    pub(super) fn fit_evaluate(&mut self, now: Timestamp) {
        self.paths.fit.since += 1;
        if self.paths.fit.since < WindowFit::EVERY {
            return;
        }
        self.paths.fit.since = 0;
        let f = &mut self.paths.fit;
        if f.run_time > 0 && f.run_sends >= WindowFit::EVERY / 2 {
            let sample = f.run_time * u64::from(f.gap_evs()) / u64::from(f.run_sends);
            f.ev_gap = if f.ev_gap == 0 { sample } else { (f.ev_gap * 3 + sample) / 4 };
        }
        (f.run_time, f.run_sends) = (0, 0);
        let n = self.paths.evs.len();
        let primary = (0..n).any(|i| !self.paths.evs[i].backup && self.paths.evs[i].state.usable());
        for i in 0..n {
            let rtt = match self.paths.evs[i].srtt {
                // No sample yet: at least the age of its oldest transmission in flight.
                0 => self.oldest_in_flight(i).map_or(0, |t| now.0.saturating_sub(t.0)),
                srtt => srtt,
            };
            self.paths.evs[i].fit_rtt = rtt;
        }
        let mut s = core::mem::take(&mut self.paths.srtts);
        s.clear();
        s.extend(
            self.paths
                .evs
                .iter()
                .filter(|e| e.backup != primary && e.state.usable())
                .map(|e| e.fit_rtt),
        );
        if s.is_empty() || s.contains(&0) {
            self.paths.fit.limit = u64::MAX;
            self.paths.fit.in_use = (s.len() as u32).max(1);
            self.paths.srtts = s;
            return;
        }
        s.sort_unstable();
        let per_ev = if self.paths.fit.ev_gap == 0 {
            f64::INFINITY
        } else {
            1.0 / self.paths.fit.ev_gap as f64
        };
        let window = f64::from(self.window.min(self.peer_window));
        let rate = |k: usize| (k as f64 * per_ev).min(window / s[k - 1] as f64);
        let best = (1..=s.len()).map(rate).fold(0.0, f64::max);
        let margin = self.paths.fit.margin();
        let k = (1..=s.len()).rev().find(|&k| rate(k) >= best * margin).unwrap_or(s.len());
        self.paths.fit.limit = if k == s.len() { u64::MAX } else { s[k - 1] };
        let limit = self.paths.fit.limit;
        self.paths.fit.in_use = s.iter().filter(|&&x| x <= limit).count() as u32;
        self.paths.srtts = s;
        // Probe every EV left out once per two of its round trips, to follow its round trip
        // without holding back the window (a probe takes no PSN).
        for i in 0..n {
            let e = &self.paths.evs[i];
            // Only EVs of the usable pool (those whose `backup` differs from `primary`)
            // above the limit are probed.
            if e.backup == primary || !e.state.usable() || e.fit_rtt <= self.paths.fit.limit {
                continue;
            }
            // SND-SPRAY-009: an EV never probed is probed as soon as it is left out.
            if e.probed_at.is_none_or(|t| now.0 >= t.0.saturating_add(2 * e.fit_rtt)) {
                let ev = e.ev;
                self.paths.evs[i].probed_at = Some(now);
                self.probe(ev);
            }
        }
    }

    /// When the oldest transmission on EV `i` not yet known to have arrived went out.
    fn oldest_in_flight(&self, i: usize) -> Option<Timestamp> {
        let fifo = &self.paths.evs[i].fifo;
        (0..fifo.len()).find_map(|k| {
            let &Transmission { psn, seq } = fifo.get(k)?;
            let off = psn.distance(self.snd_una);
            let p = self.pkts.get(usize::try_from(off).ok()?)?;
            // Entries of packets since resent on another EV, or acknowledged, are stale.
            (p.seq == seq && p.ev_idx as usize == i && !p.sacked).then_some(p.sent_at)
        })
    }

    /// A probe answer for the window-fit policy: a round-trip sample of the probed EV, from
    /// the timestamp the answer reflects (16 ns units, `SND-TS-002`, `SND-SPRAY-010`).
    ///
    /// The answer comes back on the probed EV, so the probe measures the EV's path both
    /// ways, where a data packet's round trip is mostly its path one way and the fastest path
    /// back (the SACK that reports it is usually triggered by a later packet on another EV).
    /// The sample is taken in the data's terms: half the probe's round trip, plus half the
    /// shortest round trip of the QP's EVs.
    pub(super) fn fit_probe_answered(&mut self, now: Timestamp, ev: Ev, reflected: u16) {
        let Some(i) = self.paths.ev_index(ev) else { return };
        let rtt = u64::from(ts16(now).wrapping_sub(reflected)) * 16;
        let fastest =
            self.paths.evs.iter().map(|e| e.srtt).filter(|&x| x != 0).min().unwrap_or(rtt);
        let sample = rtt / 2 + fastest.min(rtt) / 2;
        let slot = &mut self.paths.evs[i];
        slot.srtt = if slot.srtt == 0 { sample.max(1) } else { (slot.srtt * 7 + sample) / 8 };
    }

    /// Earliest SKIP expiry, for the NIC's timer.
    #[inline(always)]
    pub(crate) fn skip_deadline(&self, hold: core::time::Duration) -> Option<Timestamp> {
        if !self.paths.evs_degraded {
            return None;
        }
        self.paths.evs.iter().filter(|s| s.state == EvState::Skip).map(|s| s.since + hold).min()
    }

    /// Applies an EV event; returns the change, if the EV's state changed.
    pub(crate) fn ev_event(&mut self, now: Timestamp, ev: Ev, e: EvEvent) -> Option<EvChange> {
        let i = self.paths.ev_index(ev)?;
        let to = crate::ev::next_state(self.paths.evs[i].state, e)?;
        self.paths.evs[i].state = to;
        self.paths.evs[i].since = now;
        self.paths.refresh_degraded();
        Some(EvChange { ev, state: to })
    }

    /// Sets an EV's state directly (a CPU policy decision).
    pub(crate) fn set_ev_state(&mut self, now: Timestamp, ev: Ev, state: EvState) -> bool {
        match self.paths.ev_index(ev) {
            Some(i) => {
                self.paths.evs[i].state = state;
                self.paths.evs[i].since = now;
                self.paths.refresh_degraded();
                true
            }
            None => false,
        }
    }
}

/// The hooks a faulty device of the suite's registry keeps one window-fit estimate wrong
/// by: each changes its estimate only for its own fault.
#[cfg(all(test, feature = "fault-hooks"))]
mod fault_hooks {
    use super::*;

    fn fit(fault: Option<FitFault>, in_use: u32) -> WindowFit {
        let nic = NicConfig { fit_fault: fault, ..NicConfig::default() };
        WindowFit { in_use, ..WindowFit::new(&nic) }
    }

    /// SND-SPRAY-006: the limit keeps the EVs within 1/16 of the best rate; only the
    /// `NoMargin` fault keeps none but the best.
    #[test]
    fn only_no_margin_drops_the_margin() {
        assert_eq!(fit(None, 3).margin(), 15.0 / 16.0);
        assert_eq!(fit(Some(FitFault::PerQpGap), 3).margin(), 15.0 / 16.0);
        assert_eq!(fit(Some(FitFault::NoMargin), 3).margin(), 1.0);
    }

    /// SND-SPRAY-007: a sample of the QP's gap is spread over the EVs in use; only the
    /// `PerQpGap` fault takes it for one EV's.
    #[test]
    fn only_per_qp_gap_spreads_a_sample_over_one_ev() {
        assert_eq!(fit(None, 3).gap_evs(), 3);
        assert_eq!(fit(Some(FitFault::NoMargin), 3).gap_evs(), 3);
        assert_eq!(fit(Some(FitFault::PerQpGap), 3).gap_evs(), 1);
    }
}
