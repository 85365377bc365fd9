//! Configuration of a NIC and of its recovery agent, as the model holds it.
//!
//! Every default is a documented decision of the specification (see `spec/sender.md`,
//! `spec/receiver.md`, `spec/recovery.md`); the values are chosen for a 4 × 100 Gb/s
//! fabric with microsecond round trips.
//!
//! A scenario configures a device with the boundary's [`NicSettings`] and
//! [`RecoverySettings`] (the manifest's `nic` and `recovery` tables); the model's
//! configuration is made from them by `TryFrom` and `From`, which check what the model
//! needs, so that the model's struct layout is not the file format. The queue-pair and
//! completion-queue configuration that host commands carry is the boundary's own
//! ([`QpConfig`], [`CqConfig`]).

use core::time::Duration;

use openrdma_device::time::duration_ns;
use serde::{Deserialize, Serialize};

pub use openrdma_device::{CongestionControl, CqConfig, QpConfig, RetirementMode, SprayPolicy};
use openrdma_device::{NicSettings, RecoverySettings};

/// Configuration of one NIC (the reference model instance).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NicConfig {
    /// Seed of every random choice the NIC makes.
    pub seed: u64,
    /// Path MTU: payload bytes per packet (`SND-SEG-001`). 256, 512, 1024, 2048 or 4096.
    pub pmtu: u32,
    /// Receive and send window in units of 128 packets (the MPR unit, `SETH-MPR-002`).
    pub mpr: u8,
    /// Retirement ordering.
    pub retirement: RetirementMode,
    /// The receiver sends a SACK after this many accepted packets (`RCV-SACK-002`).
    pub sack_coalesce: u32,
    /// The receiver sends a SACK at the latest this long after receiving a packet it has not
    /// acknowledged (`RCV-SACK-004`).
    #[serde(with = "duration_ns")]
    pub sack_delay: Duration,
    /// The receiver sends a transport ACK after this many retired messages, or with the
    /// next SACK (`RCV-ACK-001`).
    pub ack_coalesce: u32,
    /// The sender sets AckReq on every Nth packet, and on the last packet of each message.
    pub ack_req_every: u32,
    /// How long an EV stays in SKIP before it returns to GOOD (`EV-SKIP-002`).
    #[serde(with = "duration_ns")]
    pub skip_hold: Duration,
    /// Delay before retransmitting after a resource NACK (`SND-NACK-004`).
    #[serde(with = "duration_ns")]
    pub nack_backoff: Duration,
    /// Maximum Write-with-Immediate messages in flight per QP (`WWI-LIMIT-001`).
    pub wwi_limit: u16,
    /// Whether the sender adds a TSETH to every write packet (for RTT measurement).
    pub timestamps: bool,
    /// Maximum number of QPs.
    pub max_qps: u32,
    /// Tail probing (`SND-TAIL-001`): when set, a probe goes on an EV this long after the
    /// last transmission on it when that transmission is a data packet not yet known to have
    /// arrived, so that a loss of the last packets sent on an EV is repaired without waiting
    /// for the retransmission timeout. Off when absent (the default); written only when set.
    #[serde(
        with = "openrdma_device::time::opt_duration_ns",
        skip_serializing_if = "Option::is_none"
    )]
    pub tail_probe: Option<Duration>,
    /// Test support, not a setting: the window-fit policy with one estimate kept wrong, so
    /// that the suite can prove it catches such a device. No scenario sets it (it is no
    /// field of the `nic` table); `None` everywhere else.
    #[doc(hidden)]
    #[serde(skip)]
    #[cfg(feature = "fault-hooks")]
    pub fit_fault: Option<FitFault>,
    /// Test support, not a setting: the receive window kept wrong, so that the suite can
    /// prove it catches such a device. `None` everywhere else.
    #[doc(hidden)]
    #[serde(skip)]
    #[cfg(feature = "fault-hooks")]
    pub recv_fault: Option<RecvFault>,
}

/// The receive window kept the way a hardware team could get it wrong (test support: see
/// [`NicConfig::recv_fault`]).
#[doc(hidden)]
#[cfg(feature = "fault-hooks")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecvFault {
    /// `RCV-WIN-003`: a PSN that fills the hole at the front of the bitmap moves `epsn`
    /// one PSN too far when a later PSN is held: past the run of received PSNs and past
    /// the missing PSN after it.
    WalkPastHole,
}

/// One estimate of the window-fit policy kept the way a hardware team could get it wrong
/// (test support: see [`NicConfig::fit_fault`]).
#[doc(hidden)]
#[cfg(feature = "fault-hooks")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FitFault {
    /// `SND-SPRAY-006`: the limit keeps only the count of EVs with the best value, without
    /// the margin of 1/16.
    NoMargin,
    /// `SND-SPRAY-007`: a sample of the time one EV takes to carry a packet is the time
    /// between the QP's packets, not multiplied by the EVs in use.
    PerQpGap,
}

impl Default for NicConfig {
    fn default() -> Self {
        NicConfig {
            seed: 0,
            pmtu: 4096,
            mpr: 2,
            retirement: RetirementMode::Shared,
            sack_coalesce: 4,
            sack_delay: Duration::from_nanos(1_000),
            ack_coalesce: 1,
            ack_req_every: 16,
            skip_hold: Duration::from_micros(20),
            nack_backoff: Duration::from_micros(2),
            wwi_limit: 64,
            timestamps: true,
            max_qps: 4096,
            tail_probe: None,
            #[cfg(feature = "fault-hooks")]
            fit_fault: None,
            #[cfg(feature = "fault-hooks")]
            recv_fault: None,
        }
    }
}

impl NicConfig {
    /// The window in packets: `mpr * 128`.
    pub fn window(&self) -> u32 {
        u32::from(self.mpr) * 128
    }

    /// Checks the configuration by the rules of the scenario format's `nic` table
    /// (`CONF-FMT-008`), the boundary's one check ([`NicSettings::validate`]).
    pub fn validate(&self) -> Result<(), crate::ConfigError> {
        self.settings().validate()?;
        Ok(())
    }

    /// The configuration as the scenario format's `nic` table.
    pub fn settings(&self) -> NicSettings {
        NicSettings {
            seed: self.seed,
            pmtu: self.pmtu,
            mpr: self.mpr,
            retirement: self.retirement,
            sack_coalesce: self.sack_coalesce,
            sack_delay: self.sack_delay,
            ack_coalesce: self.ack_coalesce,
            ack_req_every: self.ack_req_every,
            skip_hold: self.skip_hold,
            nack_backoff: self.nack_backoff,
            wwi_limit: self.wwi_limit,
            timestamps: self.timestamps,
            max_qps: self.max_qps,
            tail_probe: self.tail_probe,
        }
    }
}

/// Configuration of the CPU half of recovery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecoveryConfig {
    /// Base retransmission timeout (`REC-RTO-001`).
    #[serde(with = "duration_ns")]
    pub rto: Duration,
    /// Largest timeout after back-off.
    #[serde(with = "duration_ns")]
    pub rto_max: Duration,
    /// Back-off multiplier per consecutive timeout (1 = linear: the timeout stays at rto).
    pub backoff: u32,
    /// Consecutive timeouts without progress before the QP goes to error (`REC-RETRY-002`).
    pub retry_limit: u32,
    /// Interval between probes of an ASSUMED_BAD EV (`REC-PROBE-001`).
    #[serde(with = "duration_ns")]
    pub probe_interval: Duration,
}

impl Default for RecoveryConfig {
    fn default() -> Self {
        RecoveryConfig {
            // IBTA's local ACK timeout is 4.096 µs × 2^n; n = 3 leaves room for a few
            // microseconds of path skew and SACK coalescing above the fabric's RTT.
            rto: Duration::from_nanos(32_768),
            rto_max: Duration::from_micros(1_000),
            backoff: 2,
            retry_limit: 7,
            probe_interval: Duration::from_micros(10),
        }
    }
}

impl TryFrom<&NicSettings> for NicConfig {
    type Error = crate::ConfigError;

    /// The model's configuration for a manifest's `nic` table, checked
    /// ([`NicConfig::validate`]).
    fn try_from(s: &NicSettings) -> Result<NicConfig, crate::ConfigError> {
        let cfg = NicConfig {
            seed: s.seed,
            pmtu: s.pmtu,
            mpr: s.mpr,
            retirement: s.retirement,
            sack_coalesce: s.sack_coalesce,
            sack_delay: s.sack_delay,
            ack_coalesce: s.ack_coalesce,
            ack_req_every: s.ack_req_every,
            skip_hold: s.skip_hold,
            nack_backoff: s.nack_backoff,
            wwi_limit: s.wwi_limit,
            timestamps: s.timestamps,
            max_qps: s.max_qps,
            tail_probe: s.tail_probe,
            #[cfg(feature = "fault-hooks")]
            fit_fault: None,
            #[cfg(feature = "fault-hooks")]
            recv_fault: None,
        };
        cfg.validate()?;
        Ok(cfg)
    }
}

impl From<&RecoverySettings> for RecoveryConfig {
    /// The agent's configuration for a manifest's `recovery` table. Every value is usable:
    /// the agent takes a zero back-off as 1 and a zero timeout or probe interval as 1 ns.
    fn from(s: &RecoverySettings) -> RecoveryConfig {
        RecoveryConfig {
            rto: s.rto,
            rto_max: s.rto_max,
            backoff: s.backoff,
            retry_limit: s.retry_limit,
            probe_interval: s.probe_interval,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The boundary's defaults are the model's, key for key.
    #[test]
    fn settings_defaults_are_the_models() {
        let nic = NicConfig::try_from(&NicSettings::default()).unwrap();
        assert_eq!(nic, NicConfig::default());
        assert_eq!(RecoveryConfig::from(&RecoverySettings::default()), RecoveryConfig::default());
        let json = |v: serde_json::Value| v.to_string();
        assert_eq!(
            json(serde_json::to_value(NicSettings::default()).unwrap()),
            json(serde_json::to_value(NicConfig::default()).unwrap())
        );
        assert_eq!(
            json(serde_json::to_value(RecoverySettings::default()).unwrap()),
            json(serde_json::to_value(RecoveryConfig::default()).unwrap())
        );
    }

    /// A table the model cannot run is refused with the field at fault.
    #[test]
    fn settings_the_model_refuses() {
        let bad = NicSettings { pmtu: 1000, ..NicSettings::default() };
        let e = NicConfig::try_from(&bad).unwrap_err();
        assert!(matches!(&e, crate::ConfigError::Settings(s) if s.key == "nic.pmtu"), "{e}");
        let bad = NicSettings { tail_probe: Some(Duration::ZERO), ..NicSettings::default() };
        let e = NicConfig::try_from(&bad).unwrap_err();
        assert!(matches!(&e, crate::ConfigError::Settings(s) if s.key == "nic.tail_probe"), "{e}");
    }
}
