//! The in-memory form of a scenario: a manifest and a time-ordered list of records, each
//! either injected into the device or expected from it.
//!
//! On disk a scenario is a pcapng file (one interface per port, one for host-side events,
//! each record marked inject or expect) beside a TOML manifest; see [`crate::file`] and
//! `spec/conformance.md`.

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr};

use openrdma_codec::frame::IpRepr;
use openrdma_codec::{
    EtherType, EthernetAddress, EthernetRepr, IP_PROTO_UDP, Ipv4Repr, Ipv6Repr, VlanRepr,
};
use openrdma_device::{ManifestVersion, NicSettings, RecoverySettings};
use openrdma_sm::{CpuCommand, HostCommand, NicEvent, Outer, Timestamp};
use serde::{Deserialize, Serialize};

/// Which way a record goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The runner gives it to the device at its time.
    Inject,
    /// The device must produce it (within the tolerances).
    Expect,
}

/// What a record carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Body {
    /// An Ethernet frame on a port (without FCS).
    Frame {
        /// Port (pcapng interface) number.
        port: u16,
        /// The frame.
        #[serde(with = "hex_bytes")]
        bytes: Vec<u8>,
    },
    /// A command from host software or the GPU (inject only).
    Host {
        /// The command.
        command: HostCommand,
    },
    /// A command from the CPU half of recovery (inject only; used when the scenario plays
    /// the CPU half itself rather than the runner's reference agent).
    Cpu {
        /// The command.
        command: CpuCommand,
    },
    /// Something the device does besides sending frames (expect only): a DMA write, a flag
    /// write, a completion, or a report to the CPU half.
    Event {
        /// The event.
        event: NicEvent,
    },
}

/// One record of a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Time, nanoseconds from the scenario's start.
    pub at: Timestamp,
    /// Inject or expect.
    pub dir: Direction,
    /// The record.
    pub body: Body,
    /// Requirement IDs this record checks (expect records), for reports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<String>,
}

/// A capability a device may lack; a scenario that needs one the device lacks is reported
/// `unsupported`, never failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Capability {
    /// Receives MRC writes: window, bitmap, SACK/NACK, placement, retirement.
    Responder,
    /// Sends MRC writes: segmentation, spraying, SACK/NACK-driven retransmission.
    Requester,
    /// Expands doorbell tokens from templates.
    Doorbell,
    /// Takes doorbell writes as they cross the bus (register, byte offset, bytes), of any
    /// size and alignment, not only whole tokens (`HostCommand::DoorbellWrite`).
    DoorbellBus,
    /// Writes completion flags and completion entries (ordered retirement).
    Retirement,
    /// Shared retirement sequence across QPs.
    SharedRetirement,
    /// Per-QP retirement.
    PerQpRetirement,
    /// Write-with-Immediate.
    WriteImmediate,
    /// IPv6 encapsulation.
    Ipv6,
    /// IPv4 encapsulation.
    Ipv4,
    /// Answers probes and handles EV state changes.
    Paths,
    /// Talks to the CPU half of recovery (reports and commands).
    CpuSplit,
    /// Includes its own CPU half of recovery: timers, retry counting, probes and the EV
    /// policy on timeouts, configured by the manifest's `recovery` table (`REC-TEST-003`).
    Recovery,
    /// Writes completion entries to completion queues in host memory: slots, phases, the
    /// consumer register, a full queue, the device error queue (`CQE-RING-*`).
    CompletionQueues,
    /// Answers endpoint requests at QPN 2 (`ERTH-RESP-001`).
    Endpoint,
    /// Implements the spray policies of sender section 5.2 exactly: every data packet and
    /// probe takes the EV its QP's policy gives (`random` excepted), so that a scenario may
    /// compare EVs (`CONF-CMP-028`).
    SprayPolicies,
    /// Sends the tail probes of sender section 8.1 when the manifest's `nic.tail_probe` is
    /// set, and takes their answers as evidence of loss (`SND-TAIL-*`).
    TailProbe,
}

/// Tolerances for comparing what the device does with what the scenario expects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Tolerances {
    /// A timed expectation may be met this much later than its time (ns).
    pub late_ns: u64,
    /// ... or this much earlier (ns).
    pub early_ns: u64,
    /// How long after the last record the runner keeps collecting output (ns).
    pub drain_ns: u64,
}

impl Default for Tolerances {
    fn default() -> Self {
        Tolerances { late_ns: 2_000, early_ns: 1_000, drain_ns: 200_000 }
    }
}

/// The link between the device and its peer: the addresses of every frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// The device's MAC address.
    pub local_mac: EthernetAddress,
    /// The peer's MAC address.
    pub peer_mac: EthernetAddress,
    /// The device's IP address (IPv4 or IPv6, the same family as `peer_ip`).
    pub local_ip: IpAddr,
    /// The peer's IP address.
    pub peer_ip: IpAddr,
    /// An 802.1Q VLAN ID, if frames are tagged.
    #[serde(default)]
    pub vlan: Option<u16>,
}

impl Default for Link {
    fn default() -> Self {
        Link {
            local_mac: EthernetAddress([0x02, 0, 0, 0, 0, 0x01]),
            peer_mac: EthernetAddress([0x02, 0, 0, 0, 0, 0x02]),
            local_ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            peer_ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
            vlan: None,
        }
    }
}

impl Link {
    /// The outer headers of frames the device sends.
    pub fn outer(&self) -> Outer {
        let (ip, ethertype) = match (self.local_ip, self.peer_ip) {
            (IpAddr::V6(src), IpAddr::V6(dst)) => {
                let mut v6 = Ipv6Repr::new(src, dst, IP_PROTO_UDP);
                v6.hop_limit = 64;
                (IpRepr::V6(v6), EtherType::IPV6)
            }
            (src, dst) => {
                let to4 = |a: IpAddr| match a {
                    IpAddr::V4(a) => a,
                    IpAddr::V6(a) => a.to_ipv4_mapped().unwrap_or(Ipv4Addr::UNSPECIFIED),
                };
                let mut v4 = Ipv4Repr::new(to4(src), to4(dst), IP_PROTO_UDP);
                v4.ttl = 64;
                v4.dont_frag = true;
                (IpRepr::V4(v4), EtherType::IPV4)
            }
        };
        let (eth_type, vlan) = match self.vlan {
            Some(vid) => (
                EtherType::VLAN,
                Some(VlanRepr { pcp: 0, dei: false, vid: vid & 0xFFF, ethertype }),
            ),
            None => (ethertype, None),
        };
        Outer {
            eth: EthernetRepr { dst: self.peer_mac, src: self.local_mac, ethertype: eth_type },
            vlan,
            ip,
        }
    }

    /// Whether the link is IPv6.
    pub fn is_ipv6(&self) -> bool {
        self.local_ip.is_ipv6()
    }
}

/// Who plays the CPU half of recovery during the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CpuHalf {
    /// The runner runs the reference recovery agent, fed by the device's reports, and
    /// injects its commands (`CONF-RUN-002`).
    #[default]
    Reference,
    /// The scenario scripts CPU commands itself (records with `Body::Cpu`).
    Scripted,
    /// The device brings its own CPU half (capability `recovery`), configured by the
    /// manifest's `recovery` table: the runner plays no agent and the scenario expects no
    /// reports, only their consequences (`CONF-RUN-006`).
    Device,
}

impl CpuHalf {
    /// Whether a CPU half runs live during the replay (the runner's agent or the device's
    /// own), rather than as the scenario's recorded commands.
    pub fn is_live(self) -> bool {
        self != CpuHalf::Scripted
    }
}

/// The manifest of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// `version`: the version of the manifest format, 1 when absent; never written
    /// ([`ManifestVersion`]).
    #[serde(default, skip_serializing)]
    pub version: ManifestVersion,
    /// Stable name, e.g. `rcv-window-edges-v4`.
    pub name: String,
    /// What the scenario does, in a sentence or two.
    pub description: String,
    /// Requirement IDs the scenario checks.
    pub requirements: Vec<String>,
    /// Capabilities the device needs.
    #[serde(default)]
    pub requires: BTreeSet<Capability>,
    /// The device's configuration.
    #[serde(default)]
    pub nic: NicSettings,
    /// Who plays the CPU half.
    #[serde(default)]
    pub cpu: CpuHalf,
    /// Configuration of the CPU half that runs live: the runner's reference agent
    /// (`cpu = "reference"`) or the device's own (`cpu = "device"`).
    #[serde(default)]
    pub recovery: RecoverySettings,
    /// Number of ports (pcapng interfaces carrying frames).
    #[serde(default = "one")]
    pub ports: u16,
    /// Addresses.
    #[serde(default)]
    pub link: Link,
    /// Tolerances.
    #[serde(default)]
    pub tolerances: Tolerances,
}

fn one() -> u16 {
    1
}

/// A whole scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The manifest.
    pub manifest: Manifest,
    /// Records, in time order (stable for equal times).
    pub records: Vec<Record>,
}

impl Scenario {
    /// The injected records.
    pub fn injects(&self) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(|r| r.dir == Direction::Inject)
    }

    /// The expected records.
    pub fn expects(&self) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(|r| r.dir == Direction::Expect)
    }
}

mod hex_bytes {
    use std::fmt::Write as _;

    pub(super) fn serialize<S: serde::Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        let mut out = String::with_capacity(b.len() * 2);
        for x in b {
            let _ = write!(out, "{x:02x}");
        }
        s.serialize_str(&out)
    }

    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s = <String as serde::Deserialize>::deserialize(d)?;
        if s.len() % 2 != 0 {
            return Err(serde::de::Error::custom("hex bytes: odd number of digits"));
        }
        // Two hexadecimal digits per byte, in either case, and no sign (CONF-ADP-013).
        let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
        s.as_bytes()
            .chunks_exact(2)
            .enumerate()
            .map(|(i, p)| match (digit(p[0]), digit(p[1])) {
                (Some(h), Some(l)) => Ok(h << 4 | l),
                _ => Err(serde::de::Error::custom(format!("hex bytes: bad digit at {}", 2 * i))),
            })
            .collect()
    }
}
