//! The CPU half of recovery (requirements `REC-*`): timeout detection, retry counters and
//! back-off, EV policy on timeout, probing of ASSUMED_BAD paths, and QP error.
//!
//! The agent sees the NIC only through [`NicReport`]s and acts only through
//! [`CpuCommand`]s, so that a hardware NIC can be tested against its half of the split while
//! this agent supplies the other. Like the NIC it is sans-IO: `handle_report(now, ..)`,
//! `handle_timeout(now)`, `poll_command()`, `poll_timeout()`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use openrdma_codec::{Ev, Psn, Qpn};
use openrdma_device::{CpuHalfFactory, DeviceError, RecoveryCpu, RecoverySettings, Timestamp};

use crate::config::RecoveryConfig;
use crate::ev::EvState;
use crate::event::{CpuCommand, NicReport, RetransmitCause};

#[derive(Debug, Clone)]
struct QpTimer {
    snd_una: Psn,
    deadline: Option<Timestamp>,
    retries: u32,
    /// EVs this agent holds ASSUMED_BAD, with the time of the next probe.
    bad_evs: BTreeMap<Ev, Timestamp>,
    /// The QP is in error: the agent does nothing more for it.
    failed: bool,
    /// EVs a controller denied: never blamed, never probed.
    denied: BTreeSet<Ev>,
    /// The QP's entry in [`RecoveryAgent::due`]: its earliest deadline or probe.
    queued: Option<Timestamp>,
}

impl QpTimer {
    fn new() -> QpTimer {
        QpTimer {
            snd_una: Psn::ZERO,
            deadline: None,
            retries: 0,
            bad_evs: BTreeMap::new(),
            failed: false,
            denied: BTreeSet::new(),
            queued: None,
        }
    }

    /// When the agent has something to do for this QP next: its retransmission deadline or
    /// the next probe of an ASSUMED_BAD EV, whichever is first; never once it failed.
    fn next(&self) -> Option<Timestamp> {
        if self.failed {
            return None;
        }
        self.deadline.into_iter().chain(self.bad_evs.values().copied()).min()
    }
}

/// The reference CPU recovery agent.
#[derive(Debug)]
pub struct RecoveryAgent {
    cfg: RecoveryConfig,
    qps: BTreeMap<u32, QpTimer>,
    /// Every QP with something to do, by when ([`QpTimer::next`]): the earliest is the
    /// agent's next deadline, found without looking at every QP.
    due: BTreeSet<(Timestamp, u32)>,
    /// Reused list of QPs whose time has come.
    scratch: Vec<u32>,
    out: VecDeque<CpuCommand>,
    /// Counters: timeouts fired, QPs failed.
    pub timeouts: u64,
    /// QPs moved to error by this agent.
    pub qps_failed: u64,
}

impl RecoveryAgent {
    /// A new agent.
    pub fn new(cfg: RecoveryConfig) -> Self {
        RecoveryAgent {
            cfg,
            qps: BTreeMap::new(),
            due: BTreeSet::new(),
            scratch: Vec::new(),
            out: VecDeque::new(),
            timeouts: 0,
            qps_failed: 0,
        }
    }

    /// The shortest time from a report or a timeout to a deadline it makes: the base
    /// timeout (`REC-RTO-001`) or the probe interval (`REC-PROBE-001`), whichever is
    /// shorter, and at least 1 ns. A report handled at `t` never makes
    /// [`RecoveryAgent::poll_timeout`] earlier than `t + min_delay()`, so a caller that
    /// hands the agent its reports in batches no longer than this, calling
    /// [`RecoveryAgent::handle_timeout`] at the end of each, fires every timer on time.
    pub fn min_delay(&self) -> core::time::Duration {
        self.rto(0).min(self.probe_interval())
    }

    /// The probe interval, at least 1 ns: a zero interval would make a probe due again at
    /// the time it is sent, and a caller that runs the agent until nothing is due would
    /// never get past it.
    fn probe_interval(&self) -> core::time::Duration {
        self.cfg.probe_interval.max(core::time::Duration::from_nanos(1))
    }

    fn rto(&self, retries: u32) -> core::time::Duration {
        let mult = u64::from(self.cfg.backoff.max(1)).saturating_pow(retries.min(32));
        let ns = (self.cfg.rto.as_nanos() as u64).saturating_mul(mult);
        core::time::Duration::from_nanos(ns.min(self.cfg.rto_max.as_nanos() as u64).max(1))
    }

    fn timer(&mut self, qpn: Qpn) -> &mut QpTimer {
        self.qps.entry(qpn.value()).or_insert_with(QpTimer::new)
    }

    /// Brings QP `k`'s entry in `due` up to date after its timer changed.
    fn requeue(&mut self, k: u32) {
        if let Some(t) = self.qps.get_mut(&k) {
            Self::queue(&mut self.due, k, t);
        }
    }

    /// [`RecoveryAgent::requeue`] with the timer at hand.
    #[inline]
    fn queue(due: &mut BTreeSet<(Timestamp, u32)>, k: u32, t: &mut QpTimer) {
        let next = if t.bad_evs.is_empty() && !t.failed { t.deadline } else { t.next() };
        if next != t.queued {
            if let Some(old) = t.queued {
                due.remove(&(old, k));
            }
            if let Some(new) = next {
                due.insert((new, k));
            }
            t.queued = next;
        }
    }

    /// Handles a report from the NIC.
    pub fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
        // The agent sends no endpoint requests: their answers concern no QP of its.
        let Some(qpn) = report.qpn() else { return };
        if let NicReport::Progress { snd_una, outstanding, awaiting_ack, .. } = *report {
            // REC-RTO-002: progress resets the retry counter and restarts the timer, which
            // runs while packets are outstanding or messages await their transport ACK (a
            // lost ACK must not stall completion, REC-RTO-004). The report of every
            // acknowledgement, so the timer is looked up once.
            let base = self.rto(0);
            let k = qpn.value();
            let t = self.qps.entry(k).or_insert_with(QpTimer::new);
            t.snd_una = snd_una;
            t.retries = 0;
            t.deadline = (outstanding > 0 || awaiting_ack > 0).then(|| now + base);
            Self::queue(&mut self.due, k, t);
            return;
        }
        self.apply_report(now, report);
        if !matches!(
            report,
            NicReport::Nack { .. } | NicReport::EvMarked { .. } | NicReport::Retransmitted { .. }
        ) {
            self.requeue(qpn.value());
        }
    }

    fn apply_report(&mut self, now: Timestamp, report: &NicReport) {
        match *report {
            NicReport::Armed { qpn, snd_una } => {
                let base = self.rto(0);
                let t = self.timer(qpn);
                if t.deadline.is_none() {
                    t.snd_una = snd_una;
                    t.retries = 0;
                    t.deadline = Some(now + base);
                }
            }
            // Handled in `handle_report`.
            NicReport::Progress { .. } => {}
            NicReport::EvState { qpn, ev, state } => {
                let interval = self.probe_interval();
                let t = self.timer(qpn);
                if state == EvState::Denied {
                    t.denied.insert(ev);
                } else {
                    t.denied.remove(&ev);
                }
                if state == EvState::AssumedBad {
                    t.bad_evs.entry(ev).or_insert(now + interval);
                } else {
                    t.bad_evs.remove(&ev);
                }
            }
            NicReport::ProbeAnswered { qpn, ev, .. } => {
                self.timer(qpn).bad_evs.remove(&ev);
            }
            NicReport::QpError { qpn, .. } => {
                let t = self.timer(qpn);
                t.failed = true;
                t.deadline = None;
                t.bad_evs.clear();
            }
            NicReport::Retransmitted {
                qpn,
                cause: RetransmitCause::Timeout,
                lost_ev: Some(ev),
                ..
            } => {
                // REC-EV-002.a: a timeout with no SACK and no trim blames the path of the lost
                // transmission.
                self.blame_ev(now, qpn, ev);
            }
            NicReport::Nack { .. }
            | NicReport::EvMarked { .. }
            | NicReport::Retransmitted { .. }
            | NicReport::EndpointResponse { .. } => {}
        }
    }

    /// Handles the passing of time: fires expired timers, QP by QP in the order of their
    /// numbers.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        let mut keys = core::mem::take(&mut self.scratch);
        keys.extend(self.due.range(..=(now, u32::MAX)).map(|&(_, k)| k));
        keys.sort_unstable();
        for &k in &keys {
            self.fire(now, k);
            self.requeue(k);
        }
        keys.clear();
        self.scratch = keys;
    }

    /// The expired timers of QP `k`, which has something due by `now`.
    fn fire(&mut self, now: Timestamp, k: u32) {
        let qpn = Qpn::new(k);
        let Some(t) = self.qps.get(&k) else { return };
        if t.failed {
            return;
        }
        if t.deadline.is_some_and(|d| d <= now) {
            self.timeouts += 1;
            let retries = t.retries + 1;
            if retries > self.cfg.retry_limit {
                // REC-RETRY-002: the QP goes to error.
                self.qps_failed += 1;
                let t = self.qps.get_mut(&k).expect("present");
                t.failed = true;
                t.deadline = None;
                self.out.push_back(CpuCommand::QpError { qpn });
                return;
            }
            let rto = self.rto(retries);
            let t = self.qps.get_mut(&k).expect("present");
            t.retries = retries;
            t.deadline = Some(now + rto);
            // REC-RTO-003: retransmit the oldest unacknowledged packet.
            self.out.push_back(CpuCommand::Retransmit { qpn, psn: t.snd_una });
        }
        let interval = self.probe_interval();
        let t = self.qps.get_mut(&k).expect("present");
        for (ev, next) in t.bad_evs.iter_mut() {
            if *next <= now {
                *next = now + interval;
                self.out.push_back(CpuCommand::Probe { qpn, ev: *ev });
            }
        }
    }

    /// Marks an EV ASSUMED_BAD by policy (`REC-EV-002.a`): the agent does this itself when
    /// the NIC reports a timeout retransmission with the EV of the lost transmission.
    pub fn blame_ev(&mut self, now: Timestamp, qpn: Qpn, ev: Ev) {
        let interval = self.probe_interval();
        let t = self.timer(qpn);
        if !t.failed && !t.bad_evs.contains_key(&ev) && !t.denied.contains(&ev) {
            t.bad_evs.insert(ev, now + interval);
            self.out.push_back(CpuCommand::SetEvState { qpn, ev, state: EvState::AssumedBad });
        }
        self.requeue(qpn.value());
    }

    /// The next command for the NIC.
    pub fn poll_command(&mut self) -> Option<CpuCommand> {
        self.out.pop_front()
    }

    /// When [`RecoveryAgent::handle_timeout`] should be called next.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        self.due.first().map(|&(t, _)| t)
    }
}

/// The reference agent as the boundary's CPU half: what the runner plays in a
/// `cpu = "reference"` scenario and the reference device runs inside itself in a
/// `cpu = "device"` one.
impl RecoveryCpu for RecoveryAgent {
    fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
        RecoveryAgent::handle_report(self, now, report);
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        RecoveryAgent::handle_timeout(self, now);
    }

    fn poll_command(&mut self) -> Option<CpuCommand> {
        RecoveryAgent::poll_command(self)
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        RecoveryAgent::poll_timeout(self)
    }

    fn min_delay(&self) -> core::time::Duration {
        RecoveryAgent::min_delay(self)
    }
}

/// The reference CPU half for a manifest's `recovery` table: the [`CpuHalfFactory`] that a
/// caller of the conformance runner passes for the reference agent. Every table is usable.
pub fn reference_cpu_half(
    settings: &RecoverySettings,
) -> Result<Box<dyn RecoveryCpu>, DeviceError> {
    Ok(Box::new(RecoveryAgent::new(settings.into())))
}

/// The factory, typed: [`reference_cpu_half`] is a [`CpuHalfFactory`].
const _: CpuHalfFactory = reference_cpu_half;

#[cfg(test)]
mod tests {
    use super::*;
    use openrdma_codec::NackReason;
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng, SeedableRng};

    /// The next deadline by looking at every QP, as the index must give it.
    fn scan(a: &RecoveryAgent) -> Option<Timestamp> {
        a.qps.values().filter_map(QpTimer::next).min()
    }

    /// No report makes a deadline sooner than `min_delay()` after it: the guarantee that
    /// lets a caller batch reports (`REC-RTO-001`, `REC-PROBE-001`).
    #[test]
    fn no_report_makes_a_deadline_sooner_than_min_delay() {
        use core::time::Duration;
        for (rto, rto_max, probe) in [(4_000, 16_000, 10_000), (20_000, 8_000, 30_000), (5, 5, 0)] {
            let cfg = RecoveryConfig {
                rto: Duration::from_nanos(rto),
                rto_max: Duration::from_nanos(rto_max),
                probe_interval: Duration::from_nanos(probe),
                ..RecoveryConfig::default()
            };
            let qpn = Qpn::new(1);
            let now = Timestamp(1_000);
            for report in [
                NicReport::Armed { qpn, snd_una: Psn::ZERO },
                NicReport::EvState { qpn, ev: Ev::new(7), state: EvState::AssumedBad },
                NicReport::Progress { qpn, snd_una: Psn::new(1), outstanding: 1, awaiting_ack: 0 },
                NicReport::Retransmitted {
                    qpn,
                    psn: Psn::new(1),
                    cause: RetransmitCause::Timeout,
                    lost_ev: Some(Ev::new(9)),
                },
            ] {
                let mut a = RecoveryAgent::new(cfg.clone());
                let d = a.min_delay();
                assert!(d >= Duration::from_nanos(1));
                a.handle_report(now, &report);
                let next = a.poll_timeout().expect("a deadline");
                assert!(next.0 >= now.0 + d.as_nanos() as u64, "{report:?}");
                // And the deadlines it makes when they fire are no sooner either.
                a.handle_timeout(next);
                let again = a.poll_timeout().expect("a deadline");
                assert!(again.0 >= next.0 + d.as_nanos() as u64, "{report:?}");
            }
        }
    }

    /// The index of deadlines agrees with a look at every QP after every report and every
    /// timeout of a long random run.
    #[test]
    fn due_index_matches_a_scan() {
        let cfg = RecoveryConfig { retry_limit: 3, ..RecoveryConfig::default() };
        let mut a = RecoveryAgent::new(cfg);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut now = Timestamp::ZERO;
        for step in 0..20_000 {
            now = Timestamp(now.0 + u64::from(rng.next_u32() % 5_000));
            let qpn = Qpn::new(rng.next_u32() % 6);
            let ev = Ev::new(rng.next_u32() % 4);
            let psn = Psn::new(rng.next_u32() % 100);
            let report = match rng.next_u32() % 9 {
                0 => NicReport::Armed { qpn, snd_una: psn },
                1 => NicReport::Progress {
                    qpn,
                    snd_una: psn,
                    outstanding: rng.next_u32() % 2,
                    awaiting_ack: rng.next_u32() % 2,
                },
                2 => NicReport::EvState {
                    qpn,
                    ev,
                    state: [EvState::Good, EvState::AssumedBad, EvState::Denied, EvState::Skip]
                        [(rng.next_u32() % 4) as usize],
                },
                3 => NicReport::ProbeAnswered { qpn, ev, mark: crate::ev::EvMark::None },
                4 if rng.next_u32() % 20 == 0 => {
                    NicReport::QpError { qpn, requirement: "REC-RETRY-002".into() }
                }
                5 => NicReport::Retransmitted {
                    qpn,
                    psn,
                    cause: RetransmitCause::Timeout,
                    lost_ev: Some(ev),
                },
                6 => NicReport::Nack { qpn, psn, reason: NackReason::PSN_OOR_WINDOW },
                _ => {
                    a.handle_timeout(now);
                    while a.poll_command().is_some() {}
                    assert!(a.poll_timeout().is_none_or(|t| t > now), "step {step}");
                    assert_eq!(a.poll_timeout(), scan(&a), "step {step}");
                    continue;
                }
            };
            a.handle_report(now, &report);
            assert_eq!(a.poll_timeout(), scan(&a), "step {step}: {report:?}");
            assert_eq!(a.due.len(), a.qps.values().filter(|t| t.next().is_some()).count());
        }
    }
}
