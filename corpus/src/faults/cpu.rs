//! Faults of a device's own CPU half (`cpu = "device"`, REC-TEST-004): the reference NIC
//! half with a CPU half that gets one rule wrong. Each CPU half differs from the
//! reference's only in its fault and meets every other rule of the CPU half (REC-RTO-001,
//! REC-RETRY-001, REC-EV-002, REC-PROBE-001), so a scenario it fails, it fails for that
//! fault.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use openrdma_codec::{Ev, Qpn};
use openrdma_conformance::req;
use openrdma_device::{
    CpuCommand, DeviceError, EvState, NicReport, RecoveryCpu, RecoverySettings, RetransmitCause,
    Timestamp,
};
use openrdma_sm::{RecoveryAgent, RecoveryConfig};

use super::{Caps, Class, Edits, Expect, Fault};

/// Every fault of a CPU half.
pub static FAULTS: &[Fault] = &[
    Fault {
        name: "no-retry-reset",
        class: Class::Fault,
        what: "the device's own CPU half does not reset its retry counter on progress",
        breaks: &[req::REC_RTO_002],
        expect: Expect::Fails,
        catch: &["rec-device-progress"],
        caps: Caps::Same,
        edits: Edits { cpu: Some(|c| Retries::boxed(c, 0, false)), ..Edits::NONE },
    },
    Fault {
        name: "retry-count-starts-at-one",
        class: Class::Fault,
        what: "the device's own CPU half starts a QP's retry counter at 1, so it fails one expiry early",
        breaks: &[req::REC_RETRY_001],
        expect: Expect::Fails,
        catch: &["rec-device-backoff"],
        caps: Caps::Same,
        edits: Edits { cpu: Some(|c| Retries::boxed(c, 1, true)), ..Edits::NONE },
    },
    Fault {
        name: "no-blame",
        class: Class::Fault,
        what: "the device's own CPU half does not hear of retransmissions, and so blames no EV",
        breaks: &[req::REC_EV_002_A],
        expect: Expect::Fails,
        catch: &["rec-device-blame"],
        caps: Caps::Same,
        edits: Edits { cpu: Some(NoBlame::boxed), ..Edits::NONE },
    },
    Fault {
        name: "blames-every-retransmission",
        class: Class::Fault,
        what: "the device's own CPU half blames the lost EV of every retransmission, not only of a timeout's",
        breaks: &[req::REC_EV_002_B],
        expect: Expect::Fails,
        catch: &["rec-device-nack-no-blame"],
        caps: Caps::Same,
        edits: Edits { cpu: Some(BlamesAll::boxed), ..Edits::NONE },
    },
    Fault {
        name: "restores-on-progress",
        class: Class::Fault,
        what: "the device's own CPU half takes progress on a QP for proof that its blamed EVs work: it commands them GOOD itself, without waiting for a probe answer",
        breaks: &[req::EV_STATE_003_B],
        expect: Expect::Fails,
        catch: &["rec-device-progress-before-probe"],
        caps: Caps::Same,
        edits: Edits { cpu: Some(RestoresOnProgress::boxed), ..Edits::NONE },
    },
];

/// A CPU half whose retry counter is kept wrong: it starts at `start` rather than 0
/// (REC-RETRY-001), and progress resets it to 0 only when `reset` (REC-RTO-002). The
/// reference agent, never at its limit, with the count kept here: one per `Retransmit`
/// the agent commands, which it does once per expiry.
#[derive(Debug)]
struct Retries {
    agent: RecoveryAgent,
    limit: u32,
    start: u32,
    reset: bool,
    retries: HashMap<u32, u32>,
    failed: BTreeSet<u32>,
    out: Vec<CpuCommand>,
}

impl Retries {
    fn boxed(
        cfg: &RecoverySettings,
        start: u32,
        reset: bool,
    ) -> Result<Box<dyn RecoveryCpu>, DeviceError> {
        let unlimited = RecoveryConfig { retry_limit: u32::MAX, ..RecoveryConfig::from(cfg) };
        Ok(Box::new(Retries {
            agent: RecoveryAgent::new(unlimited),
            limit: cfg.retry_limit,
            start,
            reset,
            retries: HashMap::new(),
            failed: BTreeSet::new(),
            out: Vec::new(),
        }))
    }
}

impl RecoveryCpu for Retries {
    fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
        if let (true, NicReport::Progress { qpn, .. }) = (self.reset, report) {
            self.retries.insert(qpn.value(), 0);
        }
        self.agent.handle_report(now, report);
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.agent.handle_timeout(now);
        while let Some(cmd) = self.agent.poll_command() {
            let qpn = match cmd {
                CpuCommand::Retransmit { qpn, .. }
                | CpuCommand::Probe { qpn, .. }
                | CpuCommand::SetEvState { qpn, .. }
                | CpuCommand::QpError { qpn } => qpn,
                CpuCommand::EndpointRequest { .. } => {
                    self.out.push(cmd);
                    continue;
                }
            };
            if self.failed.contains(&qpn.value()) {
                continue;
            }
            if let CpuCommand::Retransmit { .. } = cmd {
                let n = self.retries.entry(qpn.value()).or_insert(self.start);
                *n += 1;
                if *n > self.limit {
                    self.failed.insert(qpn.value());
                    self.out.push(CpuCommand::QpError { qpn });
                    continue;
                }
            }
            self.out.push(cmd);
        }
    }

    fn poll_command(&mut self) -> Option<CpuCommand> {
        if self.out.is_empty() {
            // Commands a report caused at once (a blame) pass straight through.
            return self.agent.poll_command();
        }
        Some(self.out.remove(0))
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.agent.poll_timeout()
    }

    fn min_delay(&self) -> Duration {
        self.agent.min_delay()
    }
}

/// A CPU half that does not hear of retransmissions, and so blames no EV (REC-EV-002).
#[derive(Debug)]
struct NoBlame(RecoveryAgent);

impl NoBlame {
    fn boxed(cfg: &RecoverySettings) -> Result<Box<dyn RecoveryCpu>, DeviceError> {
        Ok(Box::new(NoBlame(RecoveryAgent::new(cfg.into()))))
    }
}

impl RecoveryCpu for NoBlame {
    fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
        if !matches!(report, NicReport::Retransmitted { .. }) {
            self.0.handle_report(now, report);
        }
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.0.handle_timeout(now);
    }

    fn poll_command(&mut self) -> Option<CpuCommand> {
        self.0.poll_command()
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.0.poll_timeout()
    }

    fn min_delay(&self) -> Duration {
        self.0.min_delay()
    }
}

/// A CPU half that takes every `Retransmitted` report with a `lost_ev` for a timeout's, and
/// so blames the EV of a packet a NACK or a SACK showed lost (REC-EV-002.b).
#[derive(Debug)]
struct BlamesAll(RecoveryAgent);

impl BlamesAll {
    fn boxed(cfg: &RecoverySettings) -> Result<Box<dyn RecoveryCpu>, DeviceError> {
        Ok(Box::new(BlamesAll(RecoveryAgent::new(cfg.into()))))
    }
}

impl RecoveryCpu for BlamesAll {
    fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
        let mut report = report.clone();
        if let NicReport::Retransmitted { cause, lost_ev: Some(_), .. } = &mut report {
            *cause = RetransmitCause::Timeout;
        }
        self.0.handle_report(now, &report);
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.0.handle_timeout(now);
    }

    fn poll_command(&mut self) -> Option<CpuCommand> {
        self.0.poll_command()
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.0.poll_timeout()
    }

    fn min_delay(&self) -> Duration {
        self.0.min_delay()
    }
}

/// A CPU half that, on a `Progress` report of a QP, commands GOOD for every EV of the QP it
/// blamed: a transition table 4 gives the NIC half, on a probe answer (EV-STATE-003.b).
#[derive(Debug)]
struct RestoresOnProgress {
    agent: RecoveryAgent,
    blamed: Vec<(Qpn, Ev)>,
    out: Vec<CpuCommand>,
}

impl RestoresOnProgress {
    fn boxed(cfg: &RecoverySettings) -> Result<Box<dyn RecoveryCpu>, DeviceError> {
        Ok(Box::new(RestoresOnProgress {
            agent: RecoveryAgent::new(cfg.into()),
            blamed: Vec::new(),
            out: Vec::new(),
        }))
    }
}

impl RecoveryCpu for RestoresOnProgress {
    fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
        self.agent.handle_report(now, report);
        if let NicReport::Progress { qpn, .. } = report {
            for &(q, ev) in self.blamed.iter().filter(|(q, _)| q == qpn) {
                self.out.push(CpuCommand::SetEvState { qpn: q, ev, state: EvState::Good });
            }
            self.blamed.retain(|(q, _)| q != qpn);
        }
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.agent.handle_timeout(now);
    }

    fn poll_command(&mut self) -> Option<CpuCommand> {
        if let Some(cmd) = self.agent.poll_command() {
            if let CpuCommand::SetEvState { qpn, ev, state: EvState::AssumedBad } = cmd {
                self.blamed.push((qpn, ev));
            }
            return Some(cmd);
        }
        if self.out.is_empty() { None } else { Some(self.out.remove(0)) }
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.agent.poll_timeout()
    }

    fn min_delay(&self) -> Duration {
        self.agent.min_delay()
    }
}
