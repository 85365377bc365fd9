//! The model's own inputs and outputs around the boundary types: a packet to send with its
//! entropy value ([`Transmit`]) and an input as a trace of the model records it
//! ([`NicInput`]). Everything that crosses the device boundary — host commands, CPU
//! commands, events, reports — is defined in `openrdma-device` and re-exported here.
//! All are public, serializable types, so that a trace can drive the model and record
//! what it did.

use openrdma_codec::{Ev, Qpn};
use openrdma_device::Timestamp;
use serde::{Deserialize, Serialize};

pub use openrdma_device::{
    CompletionEvent, CpuCommand, CqWrite, DmaWrite, DoorbellWrite, FlagWrite, HostCommand,
    LocalRegion, NicEvent, NicReport, Region, RetransmitCause, Side,
};

use crate::packet::Packet;

/// A packet to send, with the entropy value (path) chosen for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transmit {
    /// The local QP sending it.
    pub qpn: Qpn,
    /// Entropy value: selects the path.
    pub ev: Ev,
    /// The packet.
    pub packet: Packet,
}

/// An input to a NIC, as a trace records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "input")]
pub enum NicInput {
    /// A host command.
    Host {
        /// When.
        at: Timestamp,
        /// What.
        command: HostCommand,
    },
    /// A packet from the wire.
    Packet {
        /// When.
        at: Timestamp,
        /// Its entropy value.
        ev: Ev,
        /// The packet.
        packet: Packet,
    },
    /// A command from the CPU half.
    Cpu {
        /// When.
        at: Timestamp,
        /// What.
        command: CpuCommand,
    },
    /// Time passes.
    Timeout {
        /// Now.
        at: Timestamp,
    },
}
