//! A whole host: the [`Nic`] and its CPU half wired together, with the one drive loop that
//! every caller of the model uses.
//!
//! # The drive loop
//!
//! An [`Endpoint`] is driven as quinn-proto's connection is: the caller owns the clock and
//! the fabric, and calls, at each instant `now`, in this order:
//!
//! 1. [`Endpoint::handle_timeout`] if [`Endpoint::poll_timeout`] is at or before `now`:
//!    the NIC's timers fire first, then the CPU half's. Timers run before the frames that
//!    arrive at the same time, as a device replaying a scenario runs them.
//! 2. [`Endpoint::handle_packet`] for each frame that arrives then, and
//!    [`Endpoint::handle_host`] for each host command;
//! 3. [`Endpoint::poll`] until it gives `None`, after each of the above.
//!
//! [`Endpoint::run_timers`] does steps 1 and 3 for every deadline up to a bound.
//!
//! [`Endpoint::poll`] drains the endpoint in rounds: every packet the NIC has to send,
//! then every event; each report goes to the CPU half as it is taken (and is still given
//! to the caller, who may record it or drop it); then the CPU half's commands go to the
//! NIC. A round in which the CPU half gives no command ends the drain: the NIC has said
//! all it had to say, and nothing has given it more. This is the order a device under test
//! sees when its CPU half is played by the scenario: the commands a round of reports causes
//! come after the frames and events of that round.

use openrdma_codec::Ev;
use openrdma_device::{CpuCommand, RecoveryCpu, Timestamp};

use crate::config::{NicConfig, RecoveryConfig};
use crate::error::{ApiMisuse, ConfigError, HostError};
use crate::event::{HostCommand, NicEvent, NicReport, Transmit};
use crate::nic::{HostOrPeer, Nic};
use crate::packet::Packet;
use crate::recovery::RecoveryAgent;

/// What a drain of an [`Endpoint`] gives: a packet to send or an event for the host.
#[derive(Debug, Clone)]
pub enum Output {
    /// A packet for the fabric.
    Transmit(Transmit),
    /// An event for the host. A report has already been shown to the CPU half.
    Event(NicEvent),
}

/// Where a drain of [`Endpoint::poll`] stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Transmit,
    Event,
    Commands,
}

/// Where a drain of an [`Endpoint`] puts its outputs, for a driver that takes them all
/// (`Endpoint::drain_into`).
pub(crate) trait Sink {
    /// Whether the endpoint may hand over another packet now.
    fn room(&mut self) -> bool;
    /// Takes the NIC's next packet at `now` ([`Nic::poll_transmit`]), if it has one, or
    /// gives it back as the output that ends the drain. The sink asks the NIC itself, so
    /// that the packet goes straight to where the sink keeps it.
    fn transmit(&mut self, nic: &mut Nic, now: Timestamp) -> Took;
    /// Takes the NIC's events ([`Nic::poll_event`]), each report shown to `cpu` as it is
    /// taken ([`show_report`]): all of them (`None`), or the next one given back as the
    /// output that ends the drain (`None` when the NIC has none). The sink asks the NIC
    /// itself, so that a sink that takes them all need not move each out.
    fn events(
        &mut self,
        nic: &mut Nic,
        cpu: &mut impl RecoveryCpu,
        now: Timestamp,
    ) -> Option<Output>;
}

/// Shows `e` to the CPU half if it is a report: every event a drain takes passes here.
#[inline(always)]
pub(crate) fn show_report(cpu: &mut impl RecoveryCpu, now: Timestamp, e: &NicEvent) {
    if let NicEvent::Report(r) = e {
        cpu.handle_report(now, r);
    }
}

/// What a [`Sink`] did with the NIC's next packet.
pub(crate) enum Took {
    /// The NIC had none.
    Nothing,
    /// The sink took it: the drain goes on.
    Taken,
    /// The sink gave it back: the drain ends with it.
    Out(Output),
}

/// The sink of [`Endpoint::poll`]: it hands back the first output, so that the drain
/// stops there and the caller gets it.
struct One {
    room: bool,
}

impl Sink for One {
    #[inline(always)]
    fn room(&mut self) -> bool {
        self.room
    }

    #[inline(always)]
    fn transmit(&mut self, nic: &mut Nic, now: Timestamp) -> Took {
        match nic.poll_transmit(now) {
            Some(t) => Took::Out(Output::Transmit(t)),
            None => Took::Nothing,
        }
    }

    #[inline(always)]
    fn events(
        &mut self,
        nic: &mut Nic,
        cpu: &mut impl RecoveryCpu,
        now: Timestamp,
    ) -> Option<Output> {
        let e = nic.poll_event()?;
        show_report(cpu, now, &e);
        Some(Output::Event(e))
    }
}

/// A CPU half that does nothing: for an endpoint whose recovery is played elsewhere (by a
/// scenario, or by a runner outside the device). Its NIC's reports are still given to the
/// caller.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCpu;

impl RecoveryCpu for NoCpu {
    fn handle_report(&mut self, _: Timestamp, _: &NicReport) {}
    fn handle_timeout(&mut self, _: Timestamp) {}
    fn poll_command(&mut self) -> Option<CpuCommand> {
        None
    }
    fn poll_timeout(&self) -> Option<Timestamp> {
        None
    }
    fn min_delay(&self) -> core::time::Duration {
        core::time::Duration::from_nanos(1)
    }
}

/// A NIC with its CPU half (by default the reference [`RecoveryAgent`]). See the module
/// documentation for the drive loop.
#[derive(Debug)]
pub struct Endpoint<C = RecoveryAgent> {
    /// The NIC half.
    pub nic: Nic,
    /// The CPU half.
    pub cpu: C,
    phase: Phase,
    /// Whether the CPU half gave a command in the current round of the drain.
    commanded: bool,
}

impl Endpoint<RecoveryAgent> {
    /// A new endpoint with the reference recovery agent.
    pub fn new(nic: NicConfig, recovery: RecoveryConfig) -> Result<Endpoint, ConfigError> {
        Ok(Endpoint::with_cpu(Nic::new(nic)?, RecoveryAgent::new(recovery)))
    }
}

impl<C: RecoveryCpu> Endpoint<C> {
    /// A NIC and a CPU half, wired together.
    pub fn with_cpu(nic: Nic, cpu: C) -> Endpoint<C> {
        Endpoint { nic, cpu, phase: Phase::Transmit, commanded: false }
    }

    /// See [`Nic::handle_host`].
    pub fn handle_host(&mut self, now: Timestamp, cmd: HostCommand) -> Result<(), HostError> {
        self.restart();
        self.nic.handle_host(now, cmd)
    }

    /// See [`Nic::handle_packet`].
    pub fn handle_packet(
        &mut self,
        now: Timestamp,
        ev: Ev,
        packet: &Packet,
    ) -> Result<(), HostOrPeer> {
        self.restart();
        self.nic.handle_packet(now, ev, packet)
    }

    /// A CPU command from outside the endpoint (a scenario's own). See [`Nic::handle_cpu`].
    pub fn handle_cpu(&mut self, now: Timestamp, cmd: CpuCommand) -> Result<(), ApiMisuse> {
        self.restart();
        self.nic.handle_cpu(now, cmd)
    }

    /// Fires the timers due at `now`: the NIC's first, then the CPU half's. Their outputs
    /// (and the CPU half's commands) come from [`Endpoint::poll`]. Call it when
    /// [`Endpoint::poll_timeout`] says something is due.
    ///
    /// # Errors
    ///
    /// [`ApiMisuse::TimeWentBackwards`] when `now` is before the last call's.
    pub fn handle_timeout(&mut self, now: Timestamp) -> Result<(), ApiMisuse> {
        self.restart();
        // The NIC fires only what is due (after a `poll_timeout`, nothing when it is not).
        self.nic.handle_timeout(now)?;
        if self.cpu.poll_timeout().is_some_and(|t| t <= now) {
            self.cpu.handle_timeout(now);
        }
        Ok(())
    }

    /// The next output at `now`, or `Ok(None)` when the endpoint has nothing more to say
    /// (see the module documentation for the order). With `room` false no packet is taken
    /// from the NIC (a caller whose transmit buffer is full); its events still are.
    ///
    /// # Errors
    ///
    /// [`ApiMisuse::TimeWentBackwards`] when `now` is before the last call's; nothing is
    /// taken then. Otherwise the NIC's refusal of a command of the CPU half
    /// ([`Nic::handle_cpu`]): the command had no effect, and the next call goes on with
    /// the commands after it.
    pub fn poll(&mut self, now: Timestamp, room: bool) -> Result<Option<Output>, ApiMisuse> {
        self.nic.check_time(now)?;
        self.pump(now, &mut One { room })
    }

    /// Drains the endpoint at `now` into `sink` as calls of [`Endpoint::poll`] until it
    /// gives `None` would, asking `sink` for room before each packet it takes: the same
    /// outputs in the same order, without an [`Output`] per call. The caller has checked
    /// the time.
    #[inline]
    pub(crate) fn drain_into(
        &mut self,
        now: Timestamp,
        sink: &mut impl Sink,
    ) -> Result<(), ApiMisuse> {
        self.pump(now, sink).map(drop)
    }

    /// The drain's rounds (see the module documentation), from where the last call left
    /// them: gives outputs to `sink` until it hands one back (returned) or a round yields
    /// nothing (`None`).
    #[inline(always)]
    fn pump(&mut self, now: Timestamp, sink: &mut impl Sink) -> Result<Option<Output>, ApiMisuse> {
        loop {
            match self.phase {
                Phase::Transmit => {
                    // Packet after packet without going round the phases.
                    while sink.room() {
                        match sink.transmit(&mut self.nic, now) {
                            Took::Taken => {}
                            Took::Out(out) => return Ok(Some(out)),
                            Took::Nothing => break,
                        }
                    }
                    self.phase = Phase::Event;
                }
                Phase::Event => {
                    if let Some(out) = sink.events(&mut self.nic, &mut self.cpu, now) {
                        return Ok(Some(out));
                    }
                    self.phase = Phase::Commands;
                }
                Phase::Commands => {
                    if let Some(cmd) = self.cpu.poll_command() {
                        self.commanded = true;
                        self.nic.handle_cpu(now, cmd)?;
                        continue;
                    }
                    self.phase = Phase::Transmit;
                    // Taking packets and events gives the NIC nothing new to say; only a
                    // command does. A round without one leaves both queues empty.
                    if !core::mem::take(&mut self.commanded) {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// Fires every deadline up to `until` (inclusive) in time order, never before the
    /// endpoint's last time `from`, and after each gives every output to `out` with its
    /// time. Returns the time of the last deadline fired, or `from` if none was due.
    ///
    /// # Errors
    ///
    /// As [`Endpoint::handle_timeout`] and [`Endpoint::poll`]; a refused command of the
    /// CPU half is given to `refused` and the drain goes on.
    /// [`ApiMisuse::DeadlineNotMoved`] when the CPU half's deadline is still due once the
    /// timeouts due then have fired (`API-TIME-002`): the loop stops rather than spin.
    pub fn run_timers(
        &mut self,
        from: Timestamp,
        until: Timestamp,
        out: &mut impl FnMut(Timestamp, Output),
        refused: &mut impl FnMut(Timestamp, ApiMisuse),
    ) -> Result<Timestamp, ApiMisuse> {
        let mut now = from;
        while let Some(d) = self.poll_timeout().filter(|&d| d <= until) {
            now = d.max(now);
            self.handle_timeout(now)?;
            self.drain(now, out, refused)?;
            // The NIC's own timers always move on. A deadline the CPU half set at `now`, by
            // the timeout or by a report of the drain, is at least `min_delay` later.
            if let Some(deadline) = self.cpu.poll_timeout().filter(|&t| t <= now) {
                return Err(ApiMisuse::DeadlineNotMoved { at: now.0, deadline: deadline.0 });
            }
        }
        Ok(now)
    }

    /// Gives every output at `now` to `out` ([`Endpoint::poll`] until it gives `None`); a
    /// refused command of the CPU half goes to `refused` and the drain goes on.
    ///
    /// # Errors
    ///
    /// [`ApiMisuse::TimeWentBackwards`] when `now` is before the last call's.
    pub fn drain(
        &mut self,
        now: Timestamp,
        out: &mut impl FnMut(Timestamp, Output),
        refused: &mut impl FnMut(Timestamp, ApiMisuse),
    ) -> Result<(), ApiMisuse> {
        self.nic.check_time(now)?;
        loop {
            match self.poll(now, true) {
                Ok(Some(o)) => out(now, o),
                Ok(None) => return Ok(()),
                Err(e) => refused(now, e),
            }
        }
    }

    /// The next deadline of either half.
    pub fn poll_timeout(&mut self) -> Option<Timestamp> {
        match (self.nic.poll_timeout(), self.cpu.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Starts a new round of the drain: an input may have given the NIC new outputs.
    fn restart(&mut self) {
        self.phase = Phase::Transmit;
    }
}
