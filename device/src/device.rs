//! The device boundary: what a device under test consumes and produces, and the adapter
//! trait every implementation is driven through (`spec/conformance.md`, `CONF-DEV-*`).
//!
//! A device is one NIC. It consumes frames per port, host commands (context set-up and
//! doorbell tokens), commands from the CPU half of recovery, and time; it produces frames
//! per port, DMA writes, flag writes, completions and reports to the CPU half. Time only
//! moves forward, and the runner drives it in batches: [`Device::advance`] gives every
//! input up to a time and takes back every output up to that time, so that a slow RTL
//! simulator is not driven one event per round trip.
//!
//! In JSON an input or an output has the form of the adapter protocol
//! (`spec/conformance.md` section 9.4): frame bytes in hexadecimal, two digits per byte.
//! The protocol adds the decoded headers of an input frame ([`crate::frame_fields_json`]),
//! which a reader of these types ignores.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::event::{CpuCommand, NicEvent};
use crate::host::HostCommand;
use crate::scenario::Manifest;
use crate::time::Timestamp;

/// An input, at its time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimedInput {
    /// When it reaches the device.
    pub at: Timestamp,
    /// What it is.
    pub input: Input,
}

/// What a device consumes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Input {
    /// A frame arriving on a port.
    Frame {
        /// Port.
        port: u16,
        /// The Ethernet frame, without FCS; in hexadecimal.
        #[serde(with = "crate::hex::hex_bytes")]
        bytes: Vec<u8>,
    },
    /// A host command.
    Host {
        /// The command.
        command: HostCommand,
    },
    /// A command from the CPU half of recovery.
    Cpu {
        /// The command.
        command: CpuCommand,
    },
}

/// An output, at its time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimedOutput {
    /// When the device produced it.
    pub at: Timestamp,
    /// What it is.
    pub output: Output,
}

/// What a device produces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Output {
    /// A frame leaving on a port.
    Frame {
        /// Port.
        port: u16,
        /// The Ethernet frame, without FCS; in hexadecimal.
        #[serde(with = "crate::hex::hex_bytes")]
        bytes: Vec<u8>,
    },
    /// A DMA write, flag write, completion or report.
    Event {
        /// The event.
        event: NicEvent,
    },
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
    /// policy on timeouts, configured by the manifest's `recovery` table (`REC-TEST-004`).
    Recovery,
    /// Writes completion entries to completion queues in host memory: slots, phases, the
    /// consumer register, a full queue, the device error queue (`CQE-RING-*`).
    CompletionQueues,
    /// Answers endpoint requests at QPN 2 (`ERTH-RESP-001`).
    Endpoint,
    /// Implements the spray policies of sender section 5.2 exactly: every data packet and
    /// probe takes the EV its QP's policy gives (`random` excepted), so that a scenario may
    /// compare EVs (`CONF-CMP-048`).
    SprayPolicies,
    /// Sends the tail probes of sender section 8.1 when the manifest's `nic.tail_probe` is
    /// set, and takes their answers as evidence of loss (`SND-TAIL-*`).
    TailProbe,
    /// Sets the `m` of its SACKs by a marking policy of its own (`RCV-SACK-006.b`). A
    /// device that does not claim it has none, and every SACK it sends carries `m` NONE
    /// (`RCV-SACK-006.c`) and `r_c` and `rcv_cwnd_pen` 0 (`RCV-SACK-007`).
    SackMarking,
    /// Starts from the counters of a manifest's `start` table, as a device restored from a
    /// checkpoint: a retirement domain's MSN counter and retirement pointer, a template's
    /// expected sequence number (`CONF-ADP-021`).
    StartState,
}

/// Why a device could not do what the runner asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// The device does not implement what the scenario needs. Reported as the verdict
    /// `unsupported`, never as a failure.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The device rejected an input or broke the adapter protocol.
    #[error("device protocol error: {0}")]
    Protocol(String),
    /// The device did not answer in time.
    #[error("device timed out after {after_ms} ms waiting for {what}")]
    Timeout {
        /// What the runner was waiting for.
        what: String,
        /// How long it waited.
        after_ms: u64,
    },
    /// The device process or simulator failed.
    #[error("device failed: {0}")]
    Failed(String),
}

/// A device under test, as the runner drives it.
pub trait Device {
    /// A short name for reports.
    fn name(&self) -> String;

    /// What the device implements.
    fn capabilities(&self) -> BTreeSet<Capability>;

    /// Prepares the device for a scenario (a fresh NIC with the manifest's configuration).
    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError>;

    /// Applies `inputs` (in order, each at its time, none later than `until`), lets time
    /// run to `until`, and returns every output produced at or before `until`, in order.
    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError>;

    /// Ends the scenario.
    fn finish(&mut self) -> Result<(), DeviceError> {
        Ok(())
    }

    /// A failure of an earlier scenario that showed only after it ended, with that
    /// scenario's name: an answer the device gave twice there, read when the runner next
    /// spoke to it. Taken once; `None` by default.
    fn take_late_error(&mut self) -> Option<(String, DeviceError)> {
        None
    }
}

/// The contents of host memory in every scenario: the byte at address `a`. A sender's
/// payload is read from here, so that the expected frames are the same for every device
/// (`CONF-MEM-001`).
pub fn memory_byte(addr: u64) -> u8 {
    (addr % 251) as u8
}

/// `len` bytes of scenario memory from `addr`.
pub fn memory(addr: u64, len: u32) -> Vec<u8> {
    (0..u64::from(len)).map(|i| memory_byte(addr.wrapping_add(i))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CONF-ADP-013, CONF-ADP-014: an input and an output have the adapter protocol's JSON
    /// form: frame bytes in hexadecimal, read in either case; the `fields` the protocol adds
    /// beside an input frame's bytes are not read.
    #[test]
    fn inputs_and_outputs_in_the_protocols_json() {
        let i = TimedInput {
            at: Timestamp(5),
            input: Input::Frame { port: 1, bytes: vec![0x00, 0xAB, 0xFF] },
        };
        let json = serde_json::to_string(&i).unwrap();
        assert_eq!(json, r#"{"at":5,"input":{"kind":"frame","port":1,"bytes":"00abff"}}"#);
        let wire =
            r#"{"at":5,"input":{"kind":"frame","port":1,"bytes":"00ABff","fields":{"len":3}}}"#;
        assert_eq!(serde_json::from_str::<TimedInput>(wire).unwrap(), i);
        let o = TimedOutput { at: Timestamp(7), output: Output::Frame { port: 0, bytes: vec![1] } };
        let json = serde_json::to_string(&o).unwrap();
        assert_eq!(json, r#"{"at":7,"output":{"kind":"frame","port":0,"bytes":"01"}}"#);
        assert_eq!(serde_json::from_str::<TimedOutput>(&json).unwrap(), o);
    }

    /// CONF-MEM-001: the byte at address `a` is `a mod 251`.
    #[test]
    fn memory_is_the_pattern() {
        assert_eq!(memory(249, 4), vec![249, 250, 0, 1]);
        assert_eq!(memory_byte(251 * 3 + 7), 7);
    }
}
