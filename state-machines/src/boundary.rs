//! The model behind the device boundary (`spec/conformance.md` section 1): the reference
//! NIC half as an [`openrdma_device::Device`], the `reference` implementation that every
//! device is judged against (`openrdma run --impl reference`).
//!
//! [`ReferenceDevice`] turns the boundary's inputs into the model's: a frame is decoded at
//! the edge ([`Packet::from_wire`]), host and CPU commands go to the [`Nic`] as they are; and
//! its outputs back: packets become frames on the port their EV chooses ([`port_of`]), with
//! payload read from the scenario memory ([`memory`]), and events pass through.
//!
//! In a scenario with `cpu = "device"` the device brings its own CPU half of recovery
//! (capability `recovery`, `REC-TEST-003`): this adapter then runs a [`RecoveryCpu`] inside
//! itself, by default the reference [`RecoveryAgent`](crate::RecoveryAgent) configured by
//! the manifest's `recovery` table, wired to the NIC as [`Endpoint`](crate::Endpoint) wires
//! them: every report goes to the CPU half at once, every command back to the NIC at once,
//! and neither leaves the device. Another CPU half can be put in its place ([`ReferenceDevice::with_cpu_half`]),
//! to judge it with the reference NIC half (`REC-TEST-002`).

use std::collections::BTreeSet;

use openrdma_codec::Ev;
use openrdma_codec::frame::decode;
use openrdma_device::{
    Capability, CpuHalf, CpuHalfFactory, Device, DeviceError, Input, Manifest, NicEvent, Output,
    RecoveryCpu, TimedInput, TimedOutput, Timestamp, memory,
};

use crate::config::NicConfig;
use crate::error::{ApiMisuse, HostError};
use crate::event::Transmit;
use crate::nic::{HostOrPeer, Nic};
use crate::packet::{Outer, Packet};
use crate::recovery::reference_cpu_half;

/// The reference NIC as a device.
#[derive(Debug)]
pub struct ReferenceDevice {
    nic: Option<Nic>,
    outer: Option<Outer>,
    ports: u16,
    now: Timestamp,
    refusals: Vec<Refusal>,
    /// The CPU half running inside the device, in a `cpu = "device"` scenario.
    cpu: Option<Box<dyn RecoveryCpu>>,
    make_cpu: CpuHalfFactory,
}

impl Default for ReferenceDevice {
    fn default() -> Self {
        ReferenceDevice {
            nic: None,
            outer: None,
            ports: 0,
            now: Timestamp::ZERO,
            refusals: Vec::new(),
            cpu: None,
            make_cpu: reference_cpu_half,
        }
    }
}

/// A host or CPU command the model refused. The command had no effect but what the
/// specification requires of a refusal (a rejected doorbell's error completion); the
/// suite never judges refusals, but a caller driving the model by hand wants to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A host command, at its time.
    Host(Timestamp, HostError),
    /// A CPU command, at its time.
    Cpu(Timestamp, ApiMisuse),
    /// A frame the NIC could not take at its time: the caller's misuse, never the peer's
    /// (a packet that breaks a rule is dropped, as a NIC drops it).
    Frame(Timestamp, ApiMisuse),
}

impl ReferenceDevice {
    /// A new reference device.
    pub fn new() -> Self {
        ReferenceDevice::default()
    }

    /// The reference NIC half with another CPU half inside it, for the scenarios in which
    /// the device brings its own (`cpu = "device"`): `make` builds it from the manifest's
    /// `recovery` table at each start. A CPU half that meets `REC-TEST-002` passes them.
    pub fn with_cpu_half(make: CpuHalfFactory) -> Self {
        ReferenceDevice { make_cpu: make, ..ReferenceDevice::default() }
    }

    /// The host and CPU commands refused during the last [`Device::advance`].
    pub fn refusals(&self) -> &[Refusal] {
        &self.refusals
    }

    fn nic(&mut self) -> Result<&mut Nic, DeviceError> {
        self.nic.as_mut().ok_or_else(|| DeviceError::Protocol("advance before start".into()))
    }

    /// Runs timers up to `t` (inclusive), collecting outputs: the NIC's, and those of the
    /// CPU half inside the device, the NIC's first at equal times.
    fn run_timers(&mut self, t: Timestamp, out: &mut Vec<TimedOutput>) -> Result<(), DeviceError> {
        loop {
            let nic_due = self.nic()?.poll_timeout();
            let cpu_due = self.cpu.as_ref().and_then(|c| c.poll_timeout());
            let Some(d) = nic_due.into_iter().chain(cpu_due).min() else { break };
            if d > t {
                break;
            }
            let at = d.max(self.now);
            self.now = at;
            if nic_due.is_some_and(|n| n <= at) {
                self.nic()?.handle_timeout(at).map_err(|e| DeviceError::Protocol(e.to_string()))?;
            }
            if let Some(cpu) = self.cpu.as_mut() {
                if cpu.poll_timeout().is_some_and(|c| c <= at) {
                    cpu.handle_timeout(at);
                }
            }
            self.drain(at, out)?;
        }
        Ok(())
    }

    /// Moves the NIC's frames and events into `out`. With a CPU half inside the device, its
    /// reports go to the CPU half instead and its commands back to the NIC, until neither
    /// half has anything more to say at `at`.
    fn drain(&mut self, at: Timestamp, out: &mut Vec<TimedOutput>) -> Result<(), DeviceError> {
        let outer = self.outer.clone().ok_or_else(|| DeviceError::Protocol("no link".into()))?;
        let ports = self.ports.max(1);
        loop {
            let nic = self.nic.as_mut().ok_or_else(|| DeviceError::Protocol("no NIC".into()))?;
            let mut any = false;
            while let Some(Transmit { ev, packet, .. }) = nic.poll_transmit(at) {
                any = true;
                let frame = packet
                    .to_frame(&outer, ev, &mut |addr, len| memory(addr, len))
                    .map_err(|e| DeviceError::Failed(format!("cannot build a frame: {e}")))?;
                let bytes = frame.to_bytes().map_err(|e| DeviceError::Failed(e.to_string()))?;
                out.push(TimedOutput {
                    at,
                    output: Output::Frame { port: port_of(ev, ports), bytes },
                });
            }
            while let Some(event) = nic.poll_event() {
                any = true;
                match (&event, self.cpu.as_mut()) {
                    // The split is inside the device: its reports do not leave it.
                    (NicEvent::Report(r), Some(cpu)) => cpu.handle_report(at, r),
                    _ => out.push(TimedOutput { at, output: Output::Event { event } }),
                }
            }
            if let Some(cpu) = self.cpu.as_mut() {
                while let Some(command) = cpu.poll_command() {
                    any = true;
                    if let Err(e) = nic.handle_cpu(at, command) {
                        self.refusals.push(Refusal::Cpu(at, e));
                    }
                }
            }
            if !any {
                return Ok(());
            }
        }
    }
}

/// The port-status mask of a device with `ports` ports, all up: what its endpoint
/// responses report (`EETH-PORT-001`).
pub fn ports_up(ports: u16) -> u32 {
    match ports {
        0 => 1,
        p if p >= 32 => u32::MAX,
        p => (1u32 << p) - 1,
    }
}

/// The port a reference NIC sends a frame with entropy value `ev` on: chosen by the EV's
/// upper half, the UDP source port, which every encapsulation carries (over IPv4 it is all
/// of the EV, ENC-EV-002) and on which a fabric's ECMP hash chooses the path.
pub fn port_of(ev: Ev, ports: u16) -> u16 {
    ev.high() % ports.max(1)
}

impl Device for ReferenceDevice {
    fn name(&self) -> String {
        "reference".into()
    }

    fn capabilities(&self) -> BTreeSet<Capability> {
        use Capability::*;
        [
            Responder,
            Requester,
            Doorbell,
            DoorbellBus,
            Retirement,
            SharedRetirement,
            PerQpRetirement,
            WriteImmediate,
            Ipv6,
            Ipv4,
            Paths,
            CpuSplit,
            Recovery,
            CompletionQueues,
            Endpoint,
            SprayPolicies,
            TailProbe,
        ]
        .into_iter()
        .collect()
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        let nic = NicConfig::try_from(&manifest.nic)
            .map_err(|e| DeviceError::Protocol(format!("configuration rejected: {e}")))?;
        let mut nic = Nic::new(nic)
            .map_err(|e| DeviceError::Protocol(format!("configuration rejected: {e}")))?;
        nic.handle_port_status(Timestamp::ZERO, ports_up(manifest.ports))
            .map_err(|e| DeviceError::Protocol(e.to_string()))?;
        self.nic = Some(nic);
        self.outer = Some(Outer::from_link(&manifest.link));
        self.ports = manifest.ports;
        self.now = Timestamp::ZERO;
        self.refusals.clear();
        // REC-TEST-003: in a `cpu = "device"` scenario the device runs its own CPU half,
        // configured by the manifest's `recovery` table.
        self.cpu = match manifest.cpu {
            CpuHalf::Device => Some((self.make_cpu)(&manifest.recovery)?),
            CpuHalf::Reference | CpuHalf::Scripted => None,
        };
        Ok(())
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        let mut out = Vec::new();
        self.refusals.clear();
        for TimedInput { at, input } in inputs {
            if at < self.now || at > until {
                return Err(DeviceError::Protocol(format!(
                    "input at {at} is outside [{}, {until}]",
                    self.now
                )));
            }
            self.run_timers(at, &mut out)?;
            self.now = at;
            let nic = self.nic()?;
            match input {
                Input::Frame { bytes, .. } => {
                    // RCV-FRAME-001, RCV-OPC-001: a frame that is no MRC packet the model
                    // handles (undecodable, not RoCEv2, a checksum or ICRC that does not
                    // match, an opcode it does not take) is dropped unseen, as a NIC drops
                    // it; the scoreboard judges the consequences.
                    // A packet that breaks a rule (`PeerViolation`) is dropped likewise.
                    if let Ok((packet, ev)) = Packet::from_wire(&decode(&bytes)) {
                        match nic.handle_packet(at, ev, &packet) {
                            Ok(()) | Err(HostOrPeer::Peer(_)) => {}
                            Err(HostOrPeer::Misuse(e)) => self.refusals.push(Refusal::Frame(at, e)),
                        }
                    }
                }
                Input::Host { command } => {
                    if let Err(e) = nic.handle_host(at, command) {
                        self.refusals.push(Refusal::Host(at, e));
                    }
                }
                Input::Cpu { command } => {
                    if let Err(e) = nic.handle_cpu(at, command) {
                        self.refusals.push(Refusal::Cpu(at, e));
                    }
                }
            }
            self.drain(at, &mut out)?;
        }
        self.run_timers(until, &mut out)?;
        self.now = self.now.max(until);
        Ok(out)
    }
}
