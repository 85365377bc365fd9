//! A whole host: the [`Nic`] and its [`RecoveryAgent`] wired together.
//!
//! The endpoint forwards every [`NicReport`] to the agent and every
//! [`CpuCommand`](crate::CpuCommand) back to the NIC, in the same call, so that callers see
//! one state machine with one clock.

use crate::config::{NicConfig, RecoveryConfig};
use crate::error::{ApiMisuse, ConfigError, HostError};
use crate::event::{HostCommand, NicEvent, NicReport, Transmit};
use crate::nic::{HostOrPeer, Nic};
use crate::packet::Packet;
use crate::recovery::RecoveryAgent;
use openrdma_codec::Ev;
use openrdma_device::Timestamp;

/// A NIC with its CPU recovery agent.
#[derive(Debug)]
pub struct Endpoint {
    /// The NIC half.
    pub nic: Nic,
    /// The CPU half.
    pub agent: RecoveryAgent,
}

impl Endpoint {
    /// A new endpoint.
    pub fn new(nic: NicConfig, recovery: RecoveryConfig) -> Result<Endpoint, ConfigError> {
        Ok(Endpoint { nic: Nic::new(nic)?, agent: RecoveryAgent::new(recovery) })
    }

    /// See [`Nic::handle_host`].
    pub fn handle_host(&mut self, now: Timestamp, cmd: HostCommand) -> Result<(), HostError> {
        self.nic.handle_host(now, cmd)
    }

    /// See [`Nic::handle_packet`].
    pub fn handle_packet(
        &mut self,
        now: Timestamp,
        ev: Ev,
        packet: &Packet,
    ) -> Result<(), HostOrPeer> {
        self.nic.handle_packet(now, ev, packet)
    }

    /// Fires the NIC's and the agent's timers due at `now`, and delivers the agent's
    /// commands to the NIC.
    pub fn handle_timeout(&mut self, now: Timestamp) -> Result<(), ApiMisuse> {
        self.nic.handle_timeout(now)?;
        self.agent.handle_timeout(now);
        self.pump_commands(now)
    }

    fn pump_commands(&mut self, now: Timestamp) -> Result<(), ApiMisuse> {
        while let Some(cmd) = self.agent.poll_command() {
            self.nic.handle_cpu(now, cmd)?;
        }
        Ok(())
    }

    /// The next packet to send. See [`Nic::poll_transmit`].
    pub fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit> {
        self.nic.poll_transmit(now)
    }

    /// The next event for the host, or `Ok(None)` when there is none. A report is shown to
    /// the agent first (and still returned, so that a trace records it), and the commands
    /// it causes go to the NIC at once.
    ///
    /// # Errors
    ///
    /// [`ApiMisuse::TimeWentBackwards`] when `now` is before the last call's; nothing is
    /// taken then. Otherwise the NIC's refusal of a command the agent gave
    /// ([`Nic::handle_cpu`]); the event that caused it has been taken.
    pub fn poll_event(&mut self, now: Timestamp) -> Result<Option<NicEvent>, ApiMisuse> {
        self.nic.check_time(now)?;
        let Some(ev) = self.nic.poll_event() else { return Ok(None) };
        if let NicEvent::Report(r) = &ev {
            self.agent.handle_report(now, r);
            self.pump_commands(now)?;
        }
        Ok(Some(ev))
    }

    /// The next deadline of either half.
    pub fn poll_timeout(&mut self) -> Option<Timestamp> {
        match (self.nic.poll_timeout(), self.agent.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Reports are also useful to callers that run the two halves apart.
    pub fn forward_report(&mut self, now: Timestamp, report: &NicReport) {
        self.agent.handle_report(now, report);
    }
}
