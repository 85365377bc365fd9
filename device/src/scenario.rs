//! The in-memory form of a scenario: a manifest and a time-ordered list of records, each
//! either injected into the device or expected from it.
//!
//! On disk a scenario is a pcapng file (one interface per port, one for host-side events,
//! each record marked inject or expect) beside a TOML manifest (`spec/conformance.md`
//! section 3); the conformance suite reads and writes them (`openrdma_conformance::file`).

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr};

use openrdma_codec::EthernetAddress;
use serde::{Deserialize, Serialize};

use crate::config::{ManifestVersion, NicSettings, RecoverySettings};
use crate::device::{Capability, Input, Output};
use crate::event::{CpuCommand, NicEvent};
use crate::host::HostCommand;
use crate::start::StartState;
use crate::time::Timestamp;

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
        #[serde(with = "crate::hex::hex_bytes")]
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

impl Body {
    /// What an inject record gives the device: a frame, a host command or a CPU command;
    /// `None` for an event, which only an expect record holds.
    pub fn input(&self) -> Option<Input> {
        match self {
            Body::Frame { port, bytes } => Some(Input::Frame { port: *port, bytes: bytes.clone() }),
            Body::Host { command } => Some(Input::Host { command: command.clone() }),
            Body::Cpu { command } => Some(Input::Cpu { command: *command }),
            Body::Event { .. } => None,
        }
    }

    /// What an expect record stands for as the device's output: a frame or an event;
    /// `None` for a command, which only an inject record holds.
    pub fn output(&self) -> Option<Output> {
        match self {
            Body::Frame { port, bytes } => {
                Some(Output::Frame { port: *port, bytes: bytes.clone() })
            }
            Body::Event { event } => Some(Output::Event { event: event.clone() }),
            Body::Host { .. } | Body::Cpu { .. } => None,
        }
    }
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
    /// The link as the peer sees it: the two ends swapped.
    pub fn reversed(&self) -> Link {
        Link {
            local_mac: self.peer_mac,
            peer_mac: self.local_mac,
            local_ip: self.peer_ip,
            peer_ip: self.local_ip,
            vlan: self.vlan,
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
    /// `version`: the version of the manifest format, 1 when absent; written only when it
    /// is 2 ([`ManifestVersion`]).
    #[serde(default, skip_serializing_if = "ManifestVersion::is_v1")]
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
    /// `start` (version 2): the counters the device starts at, as restored from a
    /// checkpoint; empty by default, and then not written.
    #[serde(default, skip_serializing_if = "StartState::is_empty")]
    pub start: StartState,
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
