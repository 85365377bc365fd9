//! The configuration of a device as the scenario format defines it: the `nic` and
//! `recovery` tables of a manifest (`spec/conformance.md` section 3.1).
//!
//! These are the file format, versions 1 and 2 ([`MANIFEST_VERSION`]): every key, its type, its
//! unit and its default are fixed by the specification, and a file of this version reads
//! the same whatever an implementation does with it. An implementation converts them into
//! its own configuration and refuses what it cannot do; the reference model does so with
//! `TryFrom<&NicSettings> for openrdma_sm::NicConfig`, whose validation names the field
//! at fault.
//!
//! Durations are written in nanoseconds. The defaults are the specification's documented
//! decisions (`spec/sender.md`, `spec/receiver.md`, `spec/recovery.md`), chosen for a
//! 4 × 100 Gb/s fabric with microsecond round trips.

use core::time::Duration;

use serde::{Deserialize, Serialize};

use crate::time::{duration_ns, opt_duration_ns};

/// The newest version of the manifest format that this crate reads and writes. A manifest
/// says its version in its `version` key; absent means 1. Version 2 adds the `start` table
/// ([`crate::StartState`]); every other key reads as in version 1.
pub const MANIFEST_VERSION: u32 = 2;

/// The `version` key of a manifest: 1 or 2, since a manifest of another version is refused
/// when it is read. Version 1 is never written, so that a version 1 manifest reads and
/// writes as it did before the key existed; version 2 is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ManifestVersion(u32);

impl ManifestVersion {
    /// Version 1: the `nic`, `recovery`, `link` and `tolerances` tables.
    pub const V1: ManifestVersion = ManifestVersion(1);
    /// Version 2: version 1 and the `start` table.
    pub const V2: ManifestVersion = ManifestVersion(2);

    /// The version number.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// Whether this is version 1, which a writer leaves out (`CONF-FMT-007.c`).
    pub fn is_v1(&self) -> bool {
        self.0 == 1
    }
}

impl Default for ManifestVersion {
    fn default() -> Self {
        ManifestVersion::V1
    }
}

impl Serialize for ManifestVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.0)
    }
}

impl<'de> Deserialize<'de> for ManifestVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = <u32 as Deserialize>::deserialize(d)?;
        if (1..=MANIFEST_VERSION).contains(&v) {
            Ok(ManifestVersion(v))
        } else {
            Err(serde::de::Error::custom(format!(
                "manifest version {v} is not known here; this reader knows versions 1 to {MANIFEST_VERSION}"
            )))
        }
    }
}

/// How messages are ordered for retirement (completion flags and completions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RetirementMode {
    /// `shared`: one retirement sequence shared by every QP of a retirement domain, the
    /// paper's design. A message of one QP waits for earlier messages of every QP in the
    /// domain.
    #[default]
    Shared,
    /// `per-qp`: one retirement sequence per QP; a QP waits only for its own earlier
    /// messages.
    PerQp,
}

/// The manifest's `nic` table: the configuration of the device under test. A device is
/// started in the state of a NIC just configured from it (`CONF-DEV-004`).
///
/// Every key may be left out and then takes its default; a key this table does not define
/// is an error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NicSettings {
    /// `seed` (integer, default 0): the seed of every random choice the NIC makes.
    pub seed: u64,
    /// `pmtu` (integer, default 4096): the path MTU, payload bytes per packet
    /// (`SND-SEG-001`); 256, 512, 1024, 2048 or 4096.
    pub pmtu: u32,
    /// `mpr` (integer, default 2): the receive and send window in units of 128 packets (the
    /// MPR unit, `SETH-MPR-002`); 1 to 64.
    pub mpr: u8,
    /// `retirement` (`shared` or `per-qp`, default `shared`): how messages are ordered for
    /// retirement.
    pub retirement: RetirementMode,
    /// `sack_coalesce` (integer, default 4): the receiver sends a SACK after this many
    /// accepted packets (`RCV-SACK-002`); at least 1.
    pub sack_coalesce: u32,
    /// `sack_delay` (ns, default 1000): the receiver sends a SACK at the latest this long
    /// after receiving a packet it has not acknowledged (`RCV-SACK-004`); positive.
    #[serde(with = "duration_ns")]
    pub sack_delay: Duration,
    /// `ack_coalesce` (integer, default 1): the receiver sends a transport ACK after this
    /// many retired messages, or with the next SACK (`RCV-ACK-001`); at least 1.
    pub ack_coalesce: u32,
    /// `ack_req_every` (integer, default 16): the sender sets AckReq on every Nth packet,
    /// and on the last packet of each message; at least 1.
    pub ack_req_every: u32,
    /// `skip_hold` (ns, default 20000): how long an EV stays in SKIP before it returns to
    /// GOOD (`EV-SKIP-002`).
    #[serde(with = "duration_ns")]
    pub skip_hold: Duration,
    /// `nack_backoff` (ns, default 2000): the delay before retransmitting after a resource
    /// NACK (`SND-NACK-004`).
    #[serde(with = "duration_ns")]
    pub nack_backoff: Duration,
    /// `wwi_limit` (integer, default 64): the most Write-with-Immediate messages in flight
    /// per QP (`WWI-LIMIT-001`); at least 1.
    pub wwi_limit: u16,
    /// `timestamps` (boolean, default true): whether the sender adds a TSETH to every write
    /// packet, for RTT measurement.
    pub timestamps: bool,
    /// `max_qps` (integer, default 4096): the most QPs the NIC holds.
    pub max_qps: u32,
    /// `tail_probe` (ns, absent by default): tail probing (`SND-TAIL-001`). When set, a
    /// probe goes on an EV this long after the last transmission on it when that
    /// transmission is a data packet not yet known to have arrived; positive. Absent turns
    /// tail probing off; it is written only when set.
    #[serde(with = "opt_duration_ns", skip_serializing_if = "Option::is_none")]
    pub tail_probe: Option<Duration>,
}

impl Default for NicSettings {
    fn default() -> Self {
        NicSettings {
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

impl NicSettings {
    /// The window in packets: `mpr × 128` (`SETH-MPR-002`).
    #[inline]
    pub fn window(&self) -> u32 {
        u32::from(self.mpr) * 128
    }
}

/// The manifest's `recovery` table: the configuration of the CPU half of recovery that runs
/// during a replay — the runner's reference agent (`cpu = "reference"`) or the device's own
/// (`cpu = "device"`); unused when the scenario scripts the CPU half.
///
/// Every key may be left out and then takes its default; a key this table does not define
/// is an error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecoverySettings {
    /// `rto` (ns, default 32768): the base retransmission timeout (`REC-RTO-001`). IBTA's
    /// local ACK timeout is 4.096 µs × 2^n; n = 3 leaves room for a few microseconds of path
    /// skew and SACK coalescing above the fabric's round trip.
    #[serde(with = "duration_ns")]
    pub rto: Duration,
    /// `rto_max` (ns, default 1000000): the largest timeout after back-off.
    #[serde(with = "duration_ns")]
    pub rto_max: Duration,
    /// `backoff` (integer, default 2): the back-off multiplier per consecutive timeout (1 =
    /// linear: the timeout stays at `rto`).
    pub backoff: u32,
    /// `retry_limit` (integer, default 7): consecutive timeouts without progress before the
    /// QP goes to the error state (`REC-RETRY-002`).
    pub retry_limit: u32,
    /// `probe_interval` (ns, default 10000): the interval between probes of an
    /// ASSUMED_BAD EV (`REC-PROBE-001`).
    #[serde(with = "duration_ns")]
    pub probe_interval: Duration,
}

impl Default for RecoverySettings {
    fn default() -> Self {
        RecoverySettings {
            rto: Duration::from_nanos(32_768),
            rto_max: Duration::from_micros(1_000),
            backoff: 2,
            retry_limit: 7,
            probe_interval: Duration::from_micros(10),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults as the specification's table gives them, in the order they are written.
    #[test]
    fn defaults_as_written() {
        let nic = serde_json::to_string(&NicSettings::default()).unwrap();
        assert_eq!(
            nic,
            r#"{"seed":0,"pmtu":4096,"mpr":2,"retirement":"shared","sack_coalesce":4,"sack_delay":1000,"ack_coalesce":1,"ack_req_every":16,"skip_hold":20000,"nack_backoff":2000,"wwi_limit":64,"timestamps":true,"max_qps":4096}"#
        );
        let rec = serde_json::to_string(&RecoverySettings::default()).unwrap();
        assert_eq!(
            rec,
            r#"{"rto":32768,"rto_max":1000000,"backoff":2,"retry_limit":7,"probe_interval":10000}"#
        );
    }

    /// Versions 1 and 2 read; another version is refused, naming it.
    #[test]
    fn manifest_versions() {
        assert_eq!(serde_json::from_str::<ManifestVersion>("1").unwrap(), ManifestVersion::V1);
        assert_eq!(serde_json::from_str::<ManifestVersion>("2").unwrap(), ManifestVersion::V2);
        assert!(ManifestVersion::default().is_v1() && !ManifestVersion::V2.is_v1());
        for bad in ["0", "3"] {
            let e = serde_json::from_str::<ManifestVersion>(bad).unwrap_err().to_string();
            assert!(e.contains(&format!("manifest version {bad}")), "{e}");
        }
        assert_eq!(serde_json::to_string(&ManifestVersion::V2).unwrap(), "2");
    }

    /// An empty table is the defaults; a key the table does not define is refused.
    #[test]
    fn empty_tables_and_unknown_keys() {
        assert_eq!(toml::from_str::<NicSettings>("").unwrap(), NicSettings::default());
        assert_eq!(toml::from_str::<RecoverySettings>("").unwrap(), RecoverySettings::default());
        let s: NicSettings = toml::from_str("tail_probe = 5000\nretirement = \"per-qp\"").unwrap();
        assert_eq!(s.tail_probe, Some(Duration::from_nanos(5000)));
        assert_eq!(s.retirement, RetirementMode::PerQp);
        assert!(toml::from_str::<NicSettings>("pmtu_bytes = 1024").is_err());
        assert!(toml::from_str::<RecoverySettings>("rto_ns = 1").is_err());
    }
}
