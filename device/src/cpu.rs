//! The CPU half of recovery as the boundary sees it (`spec/recovery.md` section 3): a
//! sans-IO machine that takes the NIC half's reports and gives back commands, in quinn's
//! grammar — `handle_report(now, ..)`, `handle_timeout(now)`, `poll_command()`,
//! `poll_timeout()`.
//!
//! The runner plays one when a scenario says `cpu = "reference"` (`CONF-RUN-002`), and a
//! device that brings its own runs one inside itself when it says `cpu = "device"`
//! (`REC-TEST-004`). Neither the runner nor this crate knows which CPU half it is: the
//! caller supplies a [`CpuHalfFactory`], which makes one from the manifest's `recovery`
//! table. The reference model's `RecoveryAgent` is one.

use core::fmt;
use core::time::Duration;

use crate::config::RecoverySettings;
use crate::device::DeviceError;
use crate::event::{CpuCommand, NicReport};
use crate::time::Timestamp;

/// A CPU half of recovery: reports in, commands out, time as an input. It is `Send`, so that
/// a device holding one can move between threads.
pub trait RecoveryCpu: fmt::Debug + Send {
    /// Takes a report of the NIC half, at its time.
    fn handle_report(&mut self, now: Timestamp, report: &NicReport);
    /// Lets time run to `now`, firing what is due.
    fn handle_timeout(&mut self, now: Timestamp);
    /// The next command for the NIC half, or `None` when there is none.
    fn poll_command(&mut self) -> Option<CpuCommand>;
    /// When [`RecoveryCpu::handle_timeout`] should be called next, or `None` for never.
    fn poll_timeout(&self) -> Option<Timestamp>;
    /// The shortest time from a report or a timeout to a deadline it makes, at least 1 ns:
    /// a report handled at `t` never makes [`RecoveryCpu::poll_timeout`] earlier than
    /// `t + min_delay()`. A caller that hands the CPU half its reports in batches no longer
    /// than this, calling [`RecoveryCpu::handle_timeout`] at the end of each, fires every
    /// timer on time (`CONF-RUN-005`).
    fn min_delay(&self) -> Duration;
}

/// Makes a CPU half from a manifest's `recovery` table, or says why it cannot (a setting it
/// does not support is [`DeviceError::Unsupported`]).
pub type CpuHalfFactory = fn(&RecoverySettings) -> Result<Box<dyn RecoveryCpu>, DeviceError>;
