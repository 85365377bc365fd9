//! The window-fit policy's estimates, rebuilt from what a sending device shows at its
//! boundary, to name the estimate a device's choice of EVs contradicts (`SND-SPRAY-006`,
//! `SND-SPRAY-007`, `SND-SPRAY-010`).
//!
//! The spray check (`paths::judge_exact`) finds that a data packet of a `window-fit` QP left
//! on another EV than the recorded one. Which estimate the device got wrong follows from its
//! own choices. At each evaluation (its 1st, 17th, 33rd ... first transmission) the policy
//! fixes a limit, and its round robin over the EVs within the limit shows, packet by packet,
//! which EVs the device took as within (the one it chose) and which as above (those the
//! cursor passed over). The judge rebuilds every input of the limit as the spec defines it,
//! from the device's own send times and the acknowledgements and probe answers delivered
//! to it: each EV's judged round trip (SND-SPRAY-005, with the samples of SND-RTT-002 and
//! SND-SPRAY-010), the packets per ns one EV carries (SND-SPRAY-007) and the window. Then it
//! sets one estimate free at a time:
//!
//! - the round trip of an EV that a probe answer gave a sample: if some value of it alone
//!   makes the device's choices agree with the rule, that sample is what it got wrong;
//! - the packets per ns one EV carries: likewise, for the rate.
//!
//! When exactly one of them explains the choices, it names the divergence. When neither
//! does and the EVs the device used are still the fastest by the rebuilt round trips, the
//! limit itself was worked out wrong (SND-SPRAY-006). When both would, or the device's
//! choices agree with the rebuilt estimates (its timing, not an estimate, differs), the
//! judge does not guess and the divergence keeps the policy's rule.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use openrdma_codec::{AethKind, Ev, Msn, Opcode, Psn};
use openrdma_device::{Body, CpuCommand, HostCommand, Input, Scenario, SprayPolicy};

use super::obs::{In, Injected, Obs};
use super::{Frame, Kind};

/// An estimate of the window-fit policy that a device's choice of EVs can contradict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Estimate {
    /// The round trip a probe answer gives its EV (`SND-SPRAY-010`).
    ProbeSample,
    /// The packets per ns one EV carries (`SND-SPRAY-007`).
    Rate,
    /// The limit worked out from the round trips, the rate and the window
    /// (`SND-SPRAY-006`).
    Limit,
}

impl Estimate {
    /// The clause a device's choices that contradict this estimate break.
    pub(super) fn clause(self) -> crate::req::Clause {
        match self {
            Estimate::ProbeSample => crate::req::SND_SPRAY_010,
            Estimate::Rate => crate::req::SND_SPRAY_007,
            Estimate::Limit => crate::req::SND_SPRAY_006,
        }
    }
}

/// The window-fit QP of the device whose packets carry `peer`, as the scenario creates it,
/// when the judge can follow its pool: every EV a primary, and no input that moves an EV
/// out of GOOD (a skip mark, a trim, a command). Its device QPN and profile.
/// `injects` are the scenario's injected records, decoded.
pub(super) fn followed(
    s: &Scenario,
    injects: &[Injected<'_>],
    peer: u32,
) -> Option<(u32, Vec<Ev>)> {
    let q = s.injects().find_map(|r| match &r.body {
        Body::Host { command: HostCommand::CreateQp(q) } if q.peer_qpn.value() == peer => Some(q),
        _ => None,
    })?;
    if q.spray != SprayPolicy::WindowFit || !q.backup_evs.is_empty() || q.evs.len() < 2 {
        return None;
    }
    let local = q.qpn.value();
    let moved = injects.iter().any(|i| match (&i.rec.body, &i.frame) {
        (Body::Cpu { command: CpuCommand::SetEvState { qpn, .. } }, _) => qpn.value() == local,
        (_, Some(d)) => {
            d.bth.is_some_and(|b| b.dest_qp.value() == local)
                && (d.ext.seth.is_some_and(|x| x.m.0 & 3 != 0)
                    || d.ext.neth.is_some_and(|n| n.reason.is_trim()))
        }
        _ => false,
    });
    (!moved).then(|| (local, q.evs.clone()))
}

/// The limit of `SND-SPRAY-006` for the judged round trips `rtts` (ns), `gap` ns per
/// packet for one EV (`None`: `c` unbounded) and a window of `window` packets; `u64::MAX`
/// is unbounded.
pub(super) fn limit(rtts: &[u64], gap: Option<f64>, window: u32) -> u64 {
    if rtts.is_empty() || rtts.contains(&0) {
        return u64::MAX;
    }
    let mut s = rtts.to_vec();
    s.sort_unstable();
    let c = gap.filter(|g| *g > 0.0).map_or(f64::INFINITY, |g| 1.0 / g);
    let w = f64::from(window);
    let rate = |k: usize| (k as f64 * c).min(w / s[k - 1] as f64);
    let best = (1..=s.len()).map(rate).fold(0.0, f64::max);
    let k = (1..=s.len()).rev().find(|&k| rate(k) >= best * (15.0 / 16.0)).unwrap_or(s.len());
    if k == s.len() { u64::MAX } else { s[k - 1] }
}

/// One evaluation of the limit as the judge rebuilds it, with what the device's choices
/// until the next show of it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Eval {
    /// When the device made it: the time of the first transmission it came before, ns.
    pub at: u64,
    /// The judged round trip of each EV of the profile, ns (0: no sample and nothing in
    /// flight, which leaves the limit unbounded).
    pub rtts: Vec<u64>,
    /// Whether the EV's estimate took a probe answer's sample.
    pub probed: Vec<bool>,
    /// `g` after the evaluation's update, ns per packet (`None`: no estimate yet).
    pub gap: Option<u64>,
    /// The least and greatest `g` a device late by up to `late_ns / 2` on each output may
    /// hold: each time between two packets up to that much shorter or longer, as its own
    /// clock saw them leave (CONF-TIME-004); `None` for the least: no estimate may be made.
    pub gaps: (Option<u64>, Option<u64>),
    /// The window in packets.
    pub window: u32,
    /// Per EV, what the device's choices showed: within the limit (`Some(true)`), above it
    /// (`Some(false)`), nothing (`None`).
    pub shown: Vec<Option<bool>>,
    /// The choices showed an EV both within and above: the device's limit moved between
    /// evaluations, which no estimate explains.
    pub mixed: bool,
    /// The least and greatest judged round trip of each EV that a device late on its
    /// inputs by up to `late_ns / 2` may hold (CONF-TIME-004): each sample up to that much
    /// longer, and each input of the last `late_ns / 2` taken or not.
    pub bounds: Vec<(u64, u64)>,
}

impl Eval {
    /// Whether the device's choices agree with the rule for round trips `rtts` and `gap`.
    fn agrees(&self, rtts: &[u64], gap: Option<f64>) -> bool {
        let l = limit(rtts, gap, self.window);
        self.shown.iter().zip(rtts).all(|(s, &r)| match s {
            Some(true) => r <= l,
            Some(false) => r > l,
            None => true,
        })
    }

    /// Whether some round trips within [`Eval::bounds`] give the device's choices: the EVs
    /// it used at their least, those it passed over at their greatest (CONF-CMP-048).
    pub(super) fn agrees_late(&self) -> bool {
        if self.mixed {
            return false;
        }
        let r: Vec<u64> = self
            .shown
            .iter()
            .zip(&self.bounds)
            .zip(&self.rtts)
            .map(|((s, &(lo, hi)), &r)| match s {
                Some(true) => lo,
                Some(false) => hi,
                None => r,
            })
            .collect();
        if self.agrees(&r, self.gap.map(|g| g as f64)) {
            return true;
        }
        let (lo, Some(hi)) = self.gaps else { return false };
        if lo.is_none() && self.agrees(&r, None) {
            return true;
        }
        let lo = lo.unwrap_or(1).max(1);
        candidates(&[lo, hi])
            .filter(|g| (lo..=hi).contains(g))
            .any(|g| self.agrees(&r, Some(g as f64)))
    }

    /// The estimate the device's choices contradict, if the judge can tell (module doc).
    pub(super) fn contradicted(&self) -> Option<Estimate> {
        let gap = self.gap.map(|g| g as f64);
        if self.mixed || self.agrees(&self.rtts, gap) {
            return None;
        }
        let probe = self.probed.iter().enumerate().filter(|(_, p)| **p).any(|(i, _)| {
            candidates(&self.rtts).any(|v| {
                let mut r = self.rtts.clone();
                r[i] = v;
                self.agrees(&r, gap)
            })
        });
        let per_packet = candidates(&self.rtts).map(|v| Some(v as f64 / f64::from(self.window)));
        let rate = std::iter::once(None).chain(per_packet).any(|g| self.agrees(&self.rtts, g));
        match (probe, rate) {
            (true, false) => Some(Estimate::ProbeSample),
            (false, true) => Some(Estimate::Rate),
            (true, true) => None,
            (false, false) => self.fastest_used().then_some(Estimate::Limit),
        }
    }

    /// Whether every EV the device used is, by the rebuilt round trips, no slower than
    /// every EV it passed over, within the rule's own margin of 1/16.
    fn fastest_used(&self) -> bool {
        let of = |within: bool| {
            self.shown.iter().zip(&self.rtts).filter(move |(s, _)| **s == Some(within))
        };
        let slowest_used = of(true).map(|(_, &r)| r).max().unwrap_or(0);
        let fastest_left = of(false).map(|(_, &r)| r).min().unwrap_or(u64::MAX);
        slowest_used > 0 && slowest_used as f64 <= fastest_left as f64 * (17.0 / 16.0)
    }
}

/// Values to try for a free round trip, or, over the window, for a free `g`: every power
/// of 2^(1/16) from 1 ns to about 2^40 ns, and just either side of each rebuilt round trip
/// and of 16/15 and 15/16 of it, where the rule's choice changes.
fn candidates(rtts: &[u64]) -> impl Iterator<Item = u64> + '_ {
    let grid = (0..=640).map(|i| 2f64.powf(f64::from(i) / 16.0) as u64);
    let near = rtts.iter().filter(|&&r| r > 0).flat_map(|&r| {
        [1.0, 16.0 / 15.0, 15.0 / 16.0]
            .into_iter()
            .flat_map(move |f| [0.999, 1.001].map(|e| (r as f64 * f * e) as u64))
    });
    grid.chain(near).map(|v| v.max(1))
}

/// A data packet the device sent, as the rebuild keeps it.
#[derive(Debug, Clone, Copy)]
struct Tx {
    at: u64,
    slot: usize,
    retransmitted: bool,
    arrived: bool,
    msn: Option<Msn>,
}

/// What happened to the QP, in time order: inputs first at equal times.
enum Step<'f, 'a> {
    In(&'f In<'a>),
    Out(&'f Frame<'a>),
}

/// The rebuild of one window-fit QP's evaluations (module doc).
struct Rebuild {
    wire: Vec<Ev>,
    own: u32,
    peer_window: u32,
    srtt: Vec<u64>,
    /// `srtt` with every sample `lag` ns longer.
    srtt_hi: Vec<u64>,
    /// `(srtt, srtt_hi)` after each input, by time.
    history: Vec<(u64, Vec<u64>, Vec<u64>)>,
    lag: u64,
    probed: Vec<bool>,
    txs: HashMap<u32, Tx>,
    snd_una: Psn,
    snd_nxt: Psn,
    sent_new: u64,
    /// Packets posted by each time.
    posted: Vec<(u64, u64)>,
    probes: Vec<(u64, u16)>,
    cursor: usize,
    last_send: Option<u64>,
    blocked: bool,
    run_time: u64,
    run_sends: u64,
    gap: Option<u64>,
    /// The sums of the times between packets of the run, each up to `lag` shorter and
    /// longer, and the `g` they give ([`Eval::gaps`]).
    run_lo: u64,
    run_hi: u64,
    gaps: (Option<u64>, Option<u64>),
    in_use: u64,
    evals: Vec<Eval>,
    /// Each retransmission of the QP.
    retransmissions: Vec<Retransmission>,
}

/// A retransmission's time, its EV's slot, the evaluation it follows and what its choice
/// shows of each EV (within the limit or above it).
type Retransmission = (u64, usize, usize, Vec<(usize, bool)>);

impl Rebuild {
    fn slot(&self, ev: Ev) -> Option<usize> {
        self.wire.iter().position(|&w| w == ev)
    }

    fn arrive(&mut self, psn: u32, at: u64) {
        let Some(t) = self.txs.get_mut(&psn).filter(|t| !t.arrived) else { return };
        t.arrived = true;
        if !t.retransmitted {
            let sample = at.saturating_sub(t.at);
            let s = &mut self.srtt[t.slot];
            *s = if *s == 0 { sample.max(1) } else { (*s * 7 + sample) / 8 };
            let sample = sample + self.lag;
            let s = &mut self.srtt_hi[t.slot];
            *s = if *s == 0 { sample.max(1) } else { (*s * 7 + sample) / 8 };
        }
    }

    fn input(&mut self, i: &In<'_>) {
        self.input_frame(i);
        self.history.push((i.at, self.srtt.clone(), self.srtt_hi.clone()));
    }

    fn input_frame(&mut self, i: &In<'_>) {
        let Some(d) = i.frame.as_ref().map(|f| &f.d) else { return };
        let at = i.at;
        if let (Some(b), Some(seth)) = (d.bth, d.ext.seth) {
            if b.opcode != Opcode::MRC_SACK {
                return;
            }
            if seth.mpr != 0 {
                self.peer_window = (u32::from(seth.mpr) * 128).min(self.own);
            }
            if seth.pr {
                self.answer(at, seth.entropy, seth.ack_psn_offset as u16);
            }
            while seth.covers_cumulatively(self.snd_una) && self.snd_una != self.snd_nxt {
                self.arrive(self.snd_una.value(), at);
                self.snd_una = self.snd_una.next();
            }
            let base = seth.bitmap_base();
            for k in (0..64).filter(|k| seth.sack_bitmap >> k & 1 == 1) {
                self.arrive(base.add(k).value(), at);
            }
        } else if let Some(a) = d.ext.aeth.filter(|a| AethKind::of(a.syndrome) == AethKind::Ack) {
            let acked = a.msn.msn();
            let done: Vec<u32> = self
                .txs
                .iter()
                .filter(|(_, t)| t.msn.is_some_and(|m| m.is_at_or_before(acked)))
                .map(|(&p, _)| p)
                .collect();
            let mut done = done;
            done.sort_by_key(|&p| Psn::new(p).forward_from(self.snd_una));
            for p in done {
                self.arrive(p, at);
                if Psn::new(p) == self.snd_una {
                    self.snd_una = self.snd_una.next();
                }
            }
        }
    }

    /// A probe answer: the sample of `SND-SPRAY-010`, from the time since the device sent
    /// the probe it answers.
    fn answer(&mut self, at: u64, ev: Ev, probe_id: u16) {
        let (Some(slot), Some(&(sent, _))) =
            (self.slot(ev), self.probes.iter().rev().find(|(t, id)| *id == probe_id && *t <= at))
        else {
            return;
        };
        let r = at.saturating_sub(sent);
        let f = self.srtt.iter().copied().filter(|&x| x != 0).min().unwrap_or(r);
        let sample = r / 2 + f.min(r) / 2;
        let s = &mut self.srtt[slot];
        *s = if *s == 0 { sample.max(1) } else { (*s * 7 + sample) / 8 };
        let r = r + self.lag;
        let f = self.srtt_hi.iter().copied().filter(|&x| x != 0).min().unwrap_or(r);
        let sample = r / 2 + f.min(r) / 2;
        let s = &mut self.srtt_hi[slot];
        *s = if *s == 0 { sample.max(1) } else { (*s * 7 + sample) / 8 };
        self.probed[slot] = true;
    }

    fn evaluate(&mut self, now: u64) {
        if self.run_sends >= 8 {
            let (n, in_use) = (self.run_sends, self.in_use);
            let update = |g: &mut Option<u64>, sum: u64| {
                if sum > 0 {
                    let x = sum * in_use / n;
                    *g = Some(g.map_or(x, |g| (3 * g + x) / 4));
                }
            };
            update(&mut self.gap, self.run_time);
            update(&mut self.gaps.0, self.run_lo);
            update(&mut self.gaps.1, self.run_hi);
        }
        (self.run_time, self.run_lo, self.run_hi, self.run_sends) = (0, 0, 0, 0);
        let judged = |i: usize, s: u64| match s {
            0 => {
                let oldest = self.txs.values().filter(|t| t.slot == i && !t.arrived);
                oldest.map(|t| now.saturating_sub(t.at)).max().unwrap_or(0)
            }
            s => s,
        };
        let rtts: Vec<u64> = (0..self.wire.len()).map(|i| judged(i, self.srtt[i])).collect();
        // The states a device late by up to `lag` may have acted on: the one before the
        // last `lag` ns and every one within them.
        let from = now.saturating_sub(self.lag);
        let n = self.wire.len();
        let zero = (0, vec![0; n], vec![0; n]);
        let before = self.history.iter().rev().find(|(t, ..)| *t < from).unwrap_or(&zero);
        let states: Vec<_> = std::iter::once(before)
            .chain(self.history.iter().filter(|(t, ..)| (from..=now).contains(t)))
            .collect();
        let bounds = (0..n)
            .map(|i| {
                let lo = states.iter().map(|(_, s, _)| judged(i, s[i])).min().unwrap_or(0);
                let hi = states.iter().map(|(_, _, h)| judged(i, h[i])).max().unwrap_or(0);
                (lo.min(rtts[i]), hi.max(rtts[i]))
            })
            .collect();
        let window = self.own.min(self.peer_window);
        let l = limit(&rtts, self.gap.map(|g| g as f64), window);
        self.in_use = rtts.iter().filter(|&&r| r <= l).count().max(1) as u64;
        let n = rtts.len();
        self.evals.push(Eval {
            at: now,
            rtts,
            probed: self.probed.clone(),
            gap: self.gap,
            gaps: self.gaps,
            window,
            shown: vec![None; n],
            mixed: false,
            bounds,
        });
    }

    fn output(&mut self, f: &Frame<'_>) {
        let Some(slot) = self.slot(f.ev) else { return };
        match f.kind {
            Kind::Probe { .. } => {
                if let Some(p) = f.d.ext.peth {
                    self.probes.push((f.at, p.probe_id));
                }
            }
            Kind::Data { psn, rtx: true, .. } => {
                // A retransmission goes round the same EVs, past the one its PSN was lost
                // on (SND-SPRAY-005, SND-RTX-002).
                // It is kept apart from the evaluation: the round trips it is chosen by may
                // have moved since.
                let lost = self.txs.get(&psn).map(|t| t.slot);
                let n = self.wire.len();
                let mut shows: Vec<(usize, bool)> = (0..n)
                    .map(|k| (self.cursor + k) % n)
                    .take_while(|&i| i != slot)
                    .filter(|&i| Some(i) != lost)
                    .map(|i| (i, false))
                    .collect();
                shows.push((slot, true));
                if let Some(k) = self.evals.len().checked_sub(1) {
                    self.retransmissions.push((f.at, slot, k, shows));
                }
                self.cursor = (slot + 1) % n;
                if let Some(t) = self.txs.get_mut(&psn) {
                    (t.at, t.slot, t.retransmitted) = (f.at, slot, true);
                }
            }
            Kind::Data { psn, rtx: false, .. } => {
                if self.sent_new % 16 == 0 {
                    self.evaluate(f.at);
                }
                let n = self.wire.len();
                if let Some(e) = self.evals.last_mut() {
                    let mut show = |i: usize, within: bool| {
                        e.mixed |= e.shown[i] == Some(!within);
                        e.shown[i] = Some(within);
                    };
                    (0..n)
                        .map(|k| (self.cursor + k) % n)
                        .take_while(|&i| i != slot)
                        .for_each(|i| show(i, false));
                    show(slot, true);
                }
                self.cursor = (slot + 1) % n;
                if let Some(last) = self.last_send.filter(|_| !self.blocked) {
                    let d = f.at.saturating_sub(last);
                    self.run_time += d;
                    self.run_lo += d.saturating_sub(self.lag);
                    self.run_hi += d + self.lag;
                    self.run_sends += 1;
                }
                (self.blocked, self.last_send) = (false, Some(f.at));
                let msn = f.d.ext.meth.map(|m| m.msn);
                let tx = Tx { at: f.at, slot, retransmitted: false, arrived: false, msn };
                self.txs.insert(psn, tx);
                self.sent_new += 1;
                if Psn::new(psn).forward_from(self.snd_una)
                    >= self.snd_nxt.forward_from(self.snd_una)
                {
                    self.snd_nxt = Psn::new(psn).next();
                }
            }
            _ => {}
        }
    }

    /// Whether the window refuses the next packet at `at` while one waits to go
    /// (SND-SPRAY-007 leaves such a gap out).
    fn note_refusal(&mut self, at: u64) {
        let posted = self.posted.iter().filter(|(t, _)| *t <= at).map(|(_, n)| n).sum::<u64>();
        let window = self.own.min(self.peer_window);
        if posted > self.sent_new && self.snd_nxt.forward_from(self.snd_una) >= window {
            self.blocked = true;
        }
    }
}

/// A window-fit QP's walk: the whole rebuild at the end, and the evaluation each first
/// transmission of it (by PSN) followed.
type Walk = (Rebuild, HashMap<u32, usize>);

/// The window-fit walks of one judgement. Each QP's walk is built from the inputs
/// delivered and the device's frames the first time a check asks for it; every later
/// question about the QP reads the same walk.
pub(super) struct Fits<'a> {
    scenario: &'a Scenario,
    inputs: &'a [In<'a>],
    obs: &'a [Frame<'a>],
    injects: &'a [Injected<'a>],
    walks: RefCell<HashMap<u32, Rc<Option<Walk>>>>,
}

impl<'a> Fits<'a> {
    /// The walks of a run of `scenario` decoded as `o`, none built yet.
    pub(super) fn new(scenario: &'a Scenario, o: &'a Obs<'a>) -> Self {
        let (inputs, obs, injects) = (&o.inputs[..], &o.frames[..], &o.injects[..]);
        Fits { scenario, inputs, obs, injects, walks: RefCell::new(HashMap::new()) }
    }

    /// The walk of the window-fit QP whose packets carry `peer`; `None` inside when the
    /// judge cannot follow the QP ([`followed`]).
    fn walk(&self, peer: u32) -> Rc<Option<Walk>> {
        if let Some(w) = self.walks.borrow().get(&peer) {
            return Rc::clone(w);
        }
        let w = Rc::new(walk(self.scenario, self.inputs, self.obs, self.injects, peer));
        self.walks.borrow_mut().insert(peer, Rc::clone(&w));
        w
    }

    /// The estimate that the device's choices contradict at its latest evaluation by `at`
    /// on the window-fit QP whose packets carry `peer`, if the judge can tell. A probe the
    /// device sent or left out at that evaluation follows from the same estimate: the
    /// policy probes the EVs its limit leaves out (`SND-SPRAY-009`).
    pub(super) fn contradicted_at(&self, peer: u32, at: u64) -> Option<Estimate> {
        let w = self.walk(peer);
        let (r, _) = w.as_ref().as_ref()?;
        r.evals.iter().rev().find(|e| e.at <= at)?.contradicted()
    }

    /// The estimate that the device's choices contradict around its first transmission of
    /// `psn` on the window-fit QP whose packets carry `peer`, if the judge can tell.
    pub(super) fn contradicted(&self, peer: u32, psn: u32) -> Option<Estimate> {
        let w = self.walk(peer);
        let (r, of_psn) = w.as_ref().as_ref()?;
        r.evals.get(*of_psn.get(&psn)?)?.contradicted()
    }

    /// Whether a device late on its inputs by up to `late_ns / 2` may have chosen the EV of
    /// its first transmission of `psn` on the window-fit QP whose packets carry `peer`:
    /// some round trips within the bounds of its evaluation give the choices it made there
    /// (CONF-CMP-048).
    pub(super) fn late_choice(&self, peer: u32, psn: u32) -> bool {
        let w = self.walk(peer);
        let Some((r, of_psn)) = w.as_ref() else { return false };
        of_psn.get(&psn).and_then(|&k| r.evals.get(k)).is_some_and(Eval::agrees_late)
    }

    /// Whether a device late on its inputs by up to `late_ns / 2` may have probed `ev` at
    /// `at` on the window-fit QP whose packets carry `peer`: its latest evaluation by then
    /// agrees with round trips within their bounds and did not use `ev` (SND-SPRAY-009,
    /// CONF-CMP-048).
    pub(super) fn late_probe(&self, peer: u32, at: u64, ev: Ev) -> bool {
        let w = self.walk(peer);
        let Some((r, _)) = w.as_ref() else { return false };
        let Some(slot) = r.slot(ev) else { return false };
        r.evals
            .iter()
            .rev()
            .find(|e| e.at <= at)
            .is_some_and(|e| e.agrees_late() && e.shown[slot] != Some(true))
    }

    /// Whether a device late on its inputs by up to `late_ns / 2` may have retransmitted on
    /// `ev` at `at` on the window-fit QP whose packets carry `peer`: its latest evaluation
    /// by then, which its choice of `ev` is part of, agrees with round trips within their
    /// bounds (SND-SPRAY-005, CONF-CMP-048).
    pub(super) fn late_retransmission(&self, peer: u32, at: u64, ev: Ev) -> bool {
        let w = self.walk(peer);
        let Some((r, _)) = w.as_ref() else { return false };
        let Some(slot) = r.slot(ev) else { return false };
        let Some((_, _, k, shows)) =
            r.retransmissions.iter().find(|(t, sl, ..)| *t == at && *sl == slot)
        else {
            return false;
        };
        let Some(mut e) = r.evals.get(*k).cloned() else { return false };
        for &(i, within) in shows {
            e.mixed |= e.shown[i] == Some(!within);
            e.shown[i] = Some(within);
        }
        e.agrees_late()
    }
}

/// The walk of the window-fit QP whose packets carry `peer`, rebuilt from the inputs
/// delivered and the device's frames; `None` when the judge cannot follow the QP
/// ([`followed`]).
fn walk(
    s: &Scenario,
    inputs: &[In<'_>],
    obs: &[Frame<'_>],
    injects: &[Injected<'_>],
    peer: u32,
) -> Option<Walk> {
    let (local, evs) = followed(s, injects, peer)?;
    let m = &s.manifest;
    let ipv4 = !m.link.is_ipv6();
    let wire = evs.iter().map(|&e| super::wire_ev(ipv4, e)).collect();
    let q = s.injects().find_map(|r| match &r.body {
        Body::Host { command: HostCommand::CreateQp(q) } if q.qpn.value() == local => Some(q),
        _ => None,
    })?;
    let pmtu = u64::from(m.nic.pmtu.max(1));
    let posted = s
        .injects()
        .filter_map(|r| match &r.body {
            Body::Host { command: HostCommand::PostWrite(w) } if w.qpn.value() == local => {
                Some((r.at.0, u64::from(w.length).div_ceil(pmtu).max(1)))
            }
            _ => None,
        })
        .collect();
    let n = evs.len();
    let mut r = Rebuild {
        wire,
        own: m.nic.window(),
        peer_window: m.nic.window(),
        srtt: vec![0; n],
        srtt_hi: vec![0; n],
        history: Vec::new(),
        lag: m.tolerances.late_ns / 2,
        probed: vec![false; n],
        txs: HashMap::new(),
        snd_una: q.initial_psn,
        snd_nxt: q.initial_psn,
        sent_new: 0,
        posted,
        probes: Vec::new(),
        cursor: 0,
        last_send: None,
        blocked: false,
        run_time: 0,
        run_sends: 0,
        gap: None,
        run_lo: 0,
        run_hi: 0,
        gaps: (None, None),
        in_use: 1,
        evals: Vec::new(),
        retransmissions: Vec::new(),
    };
    let into = |i: &In<'_>| {
        matches!(i.input, Input::Frame { .. })
            && i.frame.as_ref().and_then(|f| f.d.bth).is_some_and(|b| b.dest_qp.value() == local)
    };
    let mine =
        |f: &Frame<'_>| matches!(f.kind, Kind::Data { qp, .. } | Kind::Probe { qp } if qp == peer);
    let mut steps: Vec<(u64, u8, Step<'_, '_>)> = inputs
        .iter()
        .filter(|i| into(i))
        .map(|i| (i.at, 0, Step::In(i)))
        .chain(obs.iter().filter(|f| mine(f)).map(|f| (f.at, 1, Step::Out(f))))
        .collect();
    steps.sort_by_key(|(at, k, _)| (*at, *k));
    let mut of_psn = HashMap::new();
    for (at, _, step) in &steps {
        match step {
            Step::In(i) => r.input(i),
            Step::Out(f) => {
                r.output(f);
                if let Kind::Data { psn, rtx: false, .. } = f.kind {
                    of_psn.entry(psn).or_insert(r.evals.len().saturating_sub(1));
                }
            }
        }
        r.note_refusal(*at);
    }
    Some((r, of_psn))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(rtts: &[u64], probed: &[bool], gap: Option<u64>, shown: &[Option<bool>]) -> Eval {
        Eval {
            at: 0,
            rtts: rtts.to_vec(),
            probed: probed.to_vec(),
            gap,
            gaps: (gap, gap),
            window: 128,
            shown: shown.to_vec(),
            mixed: false,
            bounds: rtts.iter().map(|&r| (r, r)).collect(),
        }
    }

    /// The rebuild agrees with the reference's recorded choices in the window-fit
    /// scenarios: at every evaluation the EVs it used are those the rebuilt limit keeps,
    /// and at least one evaluation leaves an EV out.
    #[test]
    fn the_rebuild_agrees_with_the_recorded_choices() {
        use openrdma_device::{TimedInput, TimedOutput};
        for name in [
            "snd-spray-window-fit",
            "snd-spray-window-fit-probe-rtt",
            "snd-spray-window-fit-margin",
        ] {
            let stem = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../traces/scenarios")
                .join(name);
            let s = crate::file::load(stem).expect("a corpus scenario");
            let injected: Vec<TimedInput> = s
                .injects()
                .filter_map(|r| Some(TimedInput { at: r.at, input: r.body.input()? }))
                .collect();
            let observed: Vec<TimedOutput> = s
                .expects()
                .filter(|r| matches!(r.body, Body::Frame { .. }))
                .filter_map(|r| Some(TimedOutput { at: r.at, output: r.body.output()? }))
                .collect();
            let o = super::super::obs::Obs::new(&s, &injected, &observed);
            let peer = s
                .injects()
                .find_map(|r| match &r.body {
                    Body::Host { command: HostCommand::CreateQp(q) } => Some(q.peer_qpn.value()),
                    _ => None,
                })
                .expect("a QP");
            let fits = Fits::new(&s, &o);
            let w = fits.walk(peer);
            let (r, _) = w.as_ref().as_ref().expect("a followed QP");
            let evals = &r.evals;
            assert!(evals.len() >= 2, "{name}: {} evaluations", evals.len());
            for (k, e) in evals.iter().enumerate() {
                let gap = e.gap.map(|g| g as f64);
                assert!(!e.mixed && e.agrees(&e.rtts, gap), "{name}: evaluation {k}: {e:?}");
            }
            assert!(evals.iter().any(|e| e.shown.contains(&Some(false))), "{name}: no EV left out");
        }
    }

    #[test]
    fn the_limit_keeps_the_paths_the_window_covers() {
        // No rate yet: only round trips within 16/15 of the fastest.
        assert_eq!(limit(&[2_000, 2_050, 4_000], None, 128), 2_050);
        // A slow rate: every path is needed.
        assert_eq!(limit(&[2_000, 2_050, 4_000], Some(1_000.0), 128), u64::MAX);
        // An EV with neither a sample nor anything in flight: unbounded.
        assert_eq!(limit(&[2_000, 0], None, 128), u64::MAX);
    }

    /// A device late on its inputs may hold round trips up to the lag longer: its choices
    /// pass when some round trips within the bounds give them, and only then.
    #[test]
    fn a_late_device_is_judged_within_its_bounds() {
        let (y, n) = (Some(true), Some(false));
        let late = |shown: &[Option<bool>], lag: u64| {
            let mut e = eval(&[2_000, 2_050, 2_100, 4_000], &[false; 4], None, shown);
            e.bounds = e.rtts.iter().map(|&r| (r, r + lag)).collect();
            e.agrees_late()
        };
        // The rebuilt round trips keep the three fast EVs; up to 1 us longer samples may
        // leave the second and third out.
        assert!(late(&[y, y, y, n], 0));
        assert!(!late(&[y, n, n, n], 0));
        assert!(late(&[y, n, n, n], 1_000));
        // A lag of 100 ns cannot leave the fastest out while a slower one is used; one of
        // 1 us can.
        assert!(!late(&[n, y, n, n], 100));
        assert!(late(&[n, y, n, n], 1_000));
    }

    #[test]
    fn a_choice_is_named_by_the_one_estimate_that_explains_it() {
        let (y, n) = (Some(true), Some(false));
        // The rebuilt estimates give every EV; the device left out the probed one, which
        // only a wrong probe sample explains: the rate cannot leave out an EV within 16/15
        // of the fastest.
        let e = eval(
            &[2_000, 2_010, 2_020, 2_030],
            &[false, false, false, true],
            Some(750),
            &[y, y, y, n],
        );
        assert_eq!(e.contradicted(), Some(Estimate::ProbeSample));
        // The slow EV left out although the rate needs it, and nothing probed: the rate.
        let e = eval(&[1_000, 1_000, 1_000, 20_000], &[false; 4], Some(2_000), &[y, y, y, n]);
        assert_eq!(e.contradicted(), Some(Estimate::Rate));
        // The same with the slow EV's round trip from a probe: either explains it.
        let e = eval(
            &[1_000, 1_000, 1_000, 20_000],
            &[false, false, false, true],
            Some(2_000),
            &[y, y, y, n],
        );
        assert_eq!(e.contradicted(), None);
        // Only the fastest of three equal EVs used: no rate and no round trip of another
        // EV does that; the limit itself is wrong.
        let e = eval(&[2_000, 2_000, 2_000, 4_000], &[false; 4], None, &[y, n, n, n]);
        assert_eq!(e.contradicted(), Some(Estimate::Limit));
        // Choices that agree with the rebuilt estimates name nothing.
        let e = eval(&[2_000, 2_000, 2_000, 4_000], &[false; 4], None, &[y, y, y, n]);
        assert_eq!(e.contradicted(), None);
    }
}
