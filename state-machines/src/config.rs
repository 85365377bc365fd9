//! Configuration of a NIC, its queue pairs and its recovery agent.
//!
//! Every default is a documented decision of the specification (see `spec/sender.md`,
//! `spec/receiver.md`, `spec/recovery.md`); the values are chosen for a 4 × 100 Gb/s
//! fabric with microsecond round trips.

use core::time::Duration;

use openrdma_codec::Qpn;
use serde::{Deserialize, Serialize};

use crate::time::duration_ns;

/// How messages are ordered for retirement (completion flags and completions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RetirementMode {
    /// One retirement sequence shared by every QP of a retirement domain: the paper's
    /// design. A message of one QP waits for earlier messages of every QP in the domain.
    #[default]
    Shared,
    /// One retirement sequence per QP: a QP waits only for its own earlier messages.
    PerQp,
}

/// How the sender chooses an entropy value (a path) for each packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprayPolicy {
    /// Cycle through the usable EVs of the profile in order.
    #[default]
    RoundRobin,
    /// Pick a usable EV uniformly at random (seeded).
    Random,
    /// Always the first usable EV: one path per QP, the baseline without spraying.
    Fixed,
    /// Skew-aware: prefer EVs whose measured round trip is short, so that packets sent
    /// together arrive close together and the receive window is not stretched by a slow
    /// path. Falls back to round robin until every EV has an RTT sample.
    SkewAware,
    /// Window-fit: round robin over the EVs whose round trip the window can cover at the
    /// rate the QP sends, leaving out a slow path when the window would hold the QP to less
    /// than the remaining paths carry (`SND-SPRAY-005`); left-out EVs are probed to follow
    /// their round trip. Falls back to round robin until every EV has an RTT sample.
    WindowFit,
}

/// The congestion-window hook. MRC's NSCC is outside the reference model; the hook lets a
/// sender be limited by a window in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum CongestionControl {
    /// No limit but the MPR window.
    #[default]
    Unlimited,
    /// At most `bytes` of payload in flight.
    FixedWindow {
        /// Window in bytes.
        bytes: u64,
    },
}

/// Configuration of one NIC (the reference model instance).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NicConfig {
    /// Seed of every random choice the NIC makes.
    pub seed: u64,
    /// Path MTU: payload bytes per packet (`SND-SEG-001`). 256, 512, 1024, 2048 or 4096.
    pub pmtu: u32,
    /// Receive and send window in units of 128 packets (the MPR unit, `SETH-MPR-001`).
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
    #[serde(with = "crate::time::opt_duration_ns", skip_serializing_if = "Option::is_none")]
    pub tail_probe: Option<Duration>,
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
        }
    }
}

impl NicConfig {
    /// The window in packets: `mpr * 128`.
    pub fn window(&self) -> u32 {
        u32::from(self.mpr) * 128
    }

    /// Checks the configuration.
    pub fn validate(&self) -> Result<(), crate::ConfigError> {
        use crate::ConfigError as E;
        if !matches!(self.pmtu, 256 | 512 | 1024 | 2048 | 4096) {
            return Err(E::Invalid {
                field: "pmtu",
                reason: "must be 256, 512, 1024, 2048 or 4096",
            });
        }
        if self.mpr == 0 {
            return Err(E::Invalid { field: "mpr", reason: "must be at least 1 (128 packets)" });
        }
        if self.mpr > 64 {
            return Err(E::Invalid {
                field: "mpr",
                reason: "at most 64 (8192 packets): the window must stay far below half the PSN ring",
            });
        }
        if self.sack_coalesce == 0 || self.ack_coalesce == 0 || self.ack_req_every == 0 {
            return Err(E::Invalid {
                field: "sack_coalesce/ack_coalesce/ack_req_every",
                reason: "must be at least 1",
            });
        }
        if self.sack_delay.is_zero() {
            return Err(E::Invalid { field: "sack_delay", reason: "must be positive" });
        }
        if self.wwi_limit == 0 {
            return Err(E::Invalid { field: "wwi_limit", reason: "must be at least 1" });
        }
        if self.tail_probe.is_some_and(|d| d.is_zero()) {
            return Err(E::Invalid {
                field: "tail_probe",
                reason: "must be positive when set (leave it out to turn tail probing off)",
            });
        }
        Ok(())
    }
}

/// Configuration of one queue pair, given by software when it creates the QP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QpConfig {
    /// This QP's number.
    pub qpn: Qpn,
    /// The peer QP's number (destination QP of every packet this QP sends).
    pub peer_qpn: Qpn,
    /// First PSN this QP sends.
    pub initial_psn: u32,
    /// First PSN this QP expects to receive.
    pub peer_initial_psn: u32,
    /// Retirement domain (QPs with the same domain share one sequence in shared mode).
    #[serde(default)]
    pub domain: u32,
    /// Entropy values this QP sprays over, in order.
    pub evs: Vec<u32>,
    /// Backup EVs, used when no EV of the profile is usable.
    #[serde(default)]
    pub backup_evs: Vec<u32>,
    /// Spraying policy.
    #[serde(default)]
    pub spray: SprayPolicy,
    /// Congestion-window hook.
    #[serde(default)]
    pub cc: CongestionControl,
    /// Receiver: base address of this QP's ring of 8-byte retirement flags.
    #[serde(default)]
    pub recv_flag_base: u64,
    /// Receiver: number of slots in the ring (0 = no retirement flags).
    #[serde(default)]
    pub recv_flag_slots: u32,
    /// Sender: base address of this QP's array of 8-byte completion flags; a work
    /// request's flag slot indexes it.
    #[serde(default)]
    pub send_flag_base: u64,
    /// Sender: number of completion-flag slots (0 = no sender flags).
    #[serde(default)]
    pub send_flag_slots: u32,
    /// The completion queue of this QP's sender completions, and of the error completions
    /// of tokens whose rejection names a template of this QP (`CQE-ROUTE-001`,
    /// `CQE-REJECT-002`). `None`: the entries are reported without a place in memory, the
    /// form of a device that does not model completion queues (`spec/model-interface.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_cq: Option<u32>,
    /// The completion queue of this QP's receive completions (`CQE-ROUTE-001`); may be the
    /// send completion queue. `None` as for `send_cq`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recv_cq: Option<u32>,
}

/// The largest completion queue, in entries: the count of entries in use,
/// `(written − consumed) mod 2^32`, must not be ambiguous (`CQE-SETUP-001`).
pub const MAX_CQ_ENTRIES: u32 = 1 << 31;

/// Bytes of one completion entry, and the alignment of a completion queue.
pub const CQE_BYTES: u64 = 32;

/// A completion queue, as software creates it (`spec/host-interface.md` section 5.3): a ring
/// of `entries` 32-byte completion entries at `base` in memory the consumer reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CqConfig {
    /// The queue's number, which QPs and the device error queue name.
    pub cq: u32,
    /// Address of slot 0: 32-byte aligned, so that every entry is one naturally aligned
    /// 32-byte write (`CQE-RING-003`).
    pub base: u64,
    /// Number of slots N: a power of two from 1 to 2^31 (`CQE-RING-001`, `CQE-SETUP-001`).
    pub entries: u32,
}

impl CqConfig {
    /// Why software may not create this queue (`CQE-SETUP-001`), if it may not.
    pub fn problem(&self) -> Option<&'static str> {
        if !self.entries.is_power_of_two() || self.entries > MAX_CQ_ENTRIES {
            return Some("the number of entries must be a power of two from 1 to 2^31");
        }
        if self.base % CQE_BYTES != 0 {
            return Some("the base address must be 32-byte aligned");
        }
        let end = u128::from(self.base) + u128::from(self.entries) * u128::from(CQE_BYTES);
        if end > 1 << 64 {
            return Some("the ring must lie below 2^64");
        }
        None
    }

    /// The address of slot `slot`.
    pub fn slot_addr(&self, slot: u32) -> u64 {
        self.base.wrapping_add(u64::from(slot) * CQE_BYTES)
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
