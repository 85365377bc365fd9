//! The CPU half of recovery (requirements `REC-*`): timeout detection, retry counters and
//! back-off, EV policy on timeout, probing of ASSUMED_BAD paths, and QP error.
//!
//! The agent sees the NIC only through [`NicReport`]s and acts only through
//! [`CpuCommand`]s, so that a hardware NIC can be tested against its half of the split while
//! this agent supplies the other. Like the NIC it is sans-IO: `handle_report(now, ..)`,
//! `handle_timeout(now)`, `poll_command()`, `poll_timeout()`.

use std::collections::{BTreeMap, VecDeque};

use openrdma_codec::{Psn, Qpn};

use crate::config::RecoveryConfig;
use crate::ev::EvState;
use crate::event::{CpuCommand, NicReport, RetransmitCause};
use crate::time::Timestamp;

#[derive(Debug, Clone)]
struct QpTimer {
    snd_una: Psn,
    deadline: Option<Timestamp>,
    retries: u32,
    /// EVs this agent holds ASSUMED_BAD, with the time of the next probe.
    bad_evs: BTreeMap<u32, Timestamp>,
    /// The QP is in error: the agent does nothing more for it.
    failed: bool,
    /// EVs a controller denied: never blamed, never probed.
    denied: std::collections::BTreeSet<u32>,
}

/// The reference CPU recovery agent.
#[derive(Debug)]
pub struct RecoveryAgent {
    cfg: RecoveryConfig,
    qps: BTreeMap<u32, QpTimer>,
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
            out: VecDeque::new(),
            timeouts: 0,
            qps_failed: 0,
        }
    }

    fn rto(&self, retries: u32) -> core::time::Duration {
        let mult = u64::from(self.cfg.backoff.max(1)).saturating_pow(retries.min(32));
        let ns = (self.cfg.rto.as_nanos() as u64).saturating_mul(mult);
        core::time::Duration::from_nanos(ns.min(self.cfg.rto_max.as_nanos() as u64).max(1))
    }

    fn timer(&mut self, qpn: Qpn) -> &mut QpTimer {
        self.qps.entry(qpn.value()).or_insert(QpTimer {
            snd_una: Psn::ZERO,
            deadline: None,
            retries: 0,
            bad_evs: BTreeMap::new(),
            failed: false,
            denied: std::collections::BTreeSet::new(),
        })
    }

    /// Handles a report from the NIC.
    pub fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
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
            NicReport::Progress { qpn, snd_una, outstanding, awaiting_ack } => {
                // REC-RTO-002: progress resets the retry counter and restarts the timer,
                // which runs while packets are outstanding or messages await their
                // transport ACK (a lost ACK must not stall completion, REC-RTO-004).
                let base = self.rto(0);
                let t = self.timer(qpn);
                t.snd_una = snd_una;
                t.retries = 0;
                t.deadline = (outstanding > 0 || awaiting_ack > 0).then(|| now + base);
            }
            NicReport::EvState { qpn, ev, state } => {
                let interval = self.cfg.probe_interval;
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
                // EV-BAD-002: a timeout with no SACK and no trim blames the path of the lost
                // transmission.
                self.blame_ev(now, qpn, ev);
            }
            NicReport::Nack { .. }
            | NicReport::EvMarked { .. }
            | NicReport::Retransmitted { .. } => {}
        }
    }

    /// Handles the passing of time: fires expired timers.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        let keys: Vec<u32> = self.qps.keys().copied().collect();
        for k in keys {
            let qpn = Qpn::new(k);
            let t = &self.qps[&k];
            if t.failed {
                continue;
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
                    continue;
                }
                let rto = self.rto(retries);
                let t = self.qps.get_mut(&k).expect("present");
                t.retries = retries;
                t.deadline = Some(now + rto);
                // REC-RTO-003: retransmit the oldest unacknowledged packet.
                self.out.push_back(CpuCommand::Retransmit { qpn, psn: t.snd_una });
            }
            let interval = self.cfg.probe_interval;
            let t = self.qps.get_mut(&k).expect("present");
            for (ev, next) in t.bad_evs.iter_mut() {
                if *next <= now {
                    *next = now + interval;
                    self.out.push_back(CpuCommand::Probe { qpn, ev: *ev });
                }
            }
        }
    }

    /// Marks an EV ASSUMED_BAD by policy (`EV-BAD-002`): the agent does this itself when
    /// the NIC reports a timeout retransmission with the EV of the lost transmission.
    pub fn blame_ev(&mut self, now: Timestamp, qpn: Qpn, ev: u32) {
        let interval = self.cfg.probe_interval;
        let t = self.timer(qpn);
        if !t.failed && !t.bad_evs.contains_key(&ev) && !t.denied.contains(&ev) {
            t.bad_evs.insert(ev, now + interval);
            self.out.push_back(CpuCommand::SetEvState { qpn, ev, state: EvState::AssumedBad });
        }
    }

    /// The next command for the NIC.
    pub fn poll_command(&mut self) -> Option<CpuCommand> {
        self.out.pop_front()
    }

    /// When [`RecoveryAgent::handle_timeout`] should be called next.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        self.qps
            .values()
            .filter(|t| !t.failed)
            .flat_map(|t| t.deadline.into_iter().chain(t.bad_evs.values().copied()))
            .min()
    }
}
