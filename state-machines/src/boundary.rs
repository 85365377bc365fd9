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
//! (capability `recovery`, `REC-TEST-004`): this adapter then runs a [`RecoveryCpu`] inside
//! itself, by default the reference [`RecoveryAgent`](crate::RecoveryAgent) configured by
//! the manifest's `recovery` table. NIC and CPU half are an [`Endpoint`] driven by its one
//! drive loop (see the `endpoint` module): every report goes to the CPU half, every command
//! back to the NIC, and neither leaves the device. Another CPU half can be put in its place ([`ReferenceDevice::with_cpu_half`]),
//! to judge it with the reference NIC half: a CPU half that meets the rules of the CPU half
//! (`REC-RTO-001`, `REC-RETRY-001`, `REC-EV-002`, `REC-PROBE-001`) passes them.

use std::collections::BTreeSet;

use openrdma_codec::Ev;
use openrdma_codec::frame::decode;
use std::time::Duration;

use openrdma_device::Output as DeviceOutput;
use openrdma_device::{
    Capability, CpuCommand, CpuHalf, CpuHalfFactory, Device, DeviceError, Input, Manifest,
    NicEvent, NicReport, RecoveryCpu, TimedInput, TimedOutput, Timestamp, memory,
};

use crate::config::NicConfig;
#[cfg(feature = "fault-hooks")]
use crate::config::{FitFault, RecvFault};
use crate::endpoint::{Endpoint, Output};
use crate::error::{ApiMisuse, HostError};
use crate::event::Transmit;
use crate::nic::{HostOrPeer, Nic};
use crate::packet::{Outer, Packet};
use crate::recovery::reference_cpu_half;

/// The reference NIC as a device.
#[derive(Debug)]
pub struct ReferenceDevice {
    ep: Option<Endpoint<Inside>>,
    outer: Option<Outer>,
    ports: u16,
    now: Timestamp,
    refusals: Vec<Refusal>,
    make_cpu: CpuHalfFactory,
    #[cfg(feature = "fault-hooks")]
    fit_fault: Option<FitFault>,
    #[cfg(feature = "fault-hooks")]
    recv_fault: Option<RecvFault>,
}

/// The CPU half running inside the device, in a `cpu = "device"` scenario; none otherwise.
#[derive(Debug)]
struct Inside(Option<Box<dyn RecoveryCpu>>);

impl RecoveryCpu for Inside {
    fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
        if let Some(c) = self.0.as_mut() {
            c.handle_report(now, report);
        }
    }
    fn handle_timeout(&mut self, now: Timestamp) {
        if let Some(c) = self.0.as_mut() {
            c.handle_timeout(now);
        }
    }
    fn poll_command(&mut self) -> Option<CpuCommand> {
        self.0.as_mut().and_then(|c| c.poll_command())
    }
    fn poll_timeout(&self) -> Option<Timestamp> {
        self.0.as_ref().and_then(|c| c.poll_timeout())
    }
    fn min_delay(&self) -> Duration {
        self.0.as_ref().map_or(Duration::from_nanos(1), |c| c.min_delay())
    }
}

impl Default for ReferenceDevice {
    fn default() -> Self {
        ReferenceDevice {
            ep: None,
            outer: None,
            ports: 0,
            now: Timestamp::ZERO,
            refusals: Vec::new(),
            make_cpu: reference_cpu_half,
            #[cfg(feature = "fault-hooks")]
            fit_fault: None,
            #[cfg(feature = "fault-hooks")]
            recv_fault: None,
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
    /// `recovery` table at each start. A CPU half that meets the rules of the CPU
    /// half (`REC-RTO-001`, `REC-RETRY-001`, `REC-EV-002`, `REC-PROBE-001`) passes them.
    pub fn with_cpu_half(make: CpuHalfFactory) -> Self {
        ReferenceDevice { make_cpu: make, ..ReferenceDevice::default() }
    }

    /// Test support, not a product: the reference NIC with one estimate of its window-fit
    /// policy kept wrong, for the suite's fault registry.
    #[doc(hidden)]
    #[cfg(feature = "fault-hooks")]
    pub fn with_fit_fault(fault: FitFault) -> Self {
        ReferenceDevice { fit_fault: Some(fault), ..ReferenceDevice::default() }
    }

    /// Test support, not a product: the reference NIC with its receive window kept wrong,
    /// for the suite's fault registry.
    #[doc(hidden)]
    #[cfg(feature = "fault-hooks")]
    pub fn with_recv_fault(fault: RecvFault) -> Self {
        ReferenceDevice { recv_fault: Some(fault), ..ReferenceDevice::default() }
    }

    /// The host and CPU commands refused during the last [`Device::advance`].
    pub fn refusals(&self) -> &[Refusal] {
        &self.refusals
    }

    fn ep(&mut self) -> Result<&mut Endpoint<Inside>, DeviceError> {
        self.ep.as_mut().ok_or_else(|| DeviceError::Protocol("advance before start".into()))
    }

    /// Runs timers up to `t` (inclusive) with the endpoint's drive loop, collecting outputs.
    fn run_timers(&mut self, t: Timestamp, out: &mut Vec<TimedOutput>) -> Result<(), DeviceError> {
        let (outer, ports) = self.link()?;
        let ep = self.ep.as_mut().ok_or_else(|| DeviceError::Protocol("no NIC".into()))?;
        let inside = ep.cpu.0.is_some();
        let refusals = &mut self.refusals;
        let mut failed = None;
        let now = ep
            .run_timers(
                self.now,
                t,
                &mut |at, o| collect(inside, &outer, ports, at, o, out, &mut failed),
                &mut |at, e| refusals.push(Refusal::Cpu(at, e)),
            )
            .map_err(|e| DeviceError::Protocol(e.to_string()))?;
        self.now = now;
        failed.map_or(Ok(()), Err)
    }

    /// Moves the endpoint's frames and events into `out` (see [`Endpoint::drain`]).
    fn drain(&mut self, at: Timestamp, out: &mut Vec<TimedOutput>) -> Result<(), DeviceError> {
        let (outer, ports) = self.link()?;
        let ep = self.ep.as_mut().ok_or_else(|| DeviceError::Protocol("no NIC".into()))?;
        let inside = ep.cpu.0.is_some();
        let refusals = &mut self.refusals;
        let mut failed = None;
        ep.drain(
            at,
            &mut |at, o| collect(inside, &outer, ports, at, o, out, &mut failed),
            &mut |at, e| refusals.push(Refusal::Cpu(at, e)),
        )
        .map_err(|e| DeviceError::Protocol(e.to_string()))?;
        failed.map_or(Ok(()), Err)
    }

    fn link(&self) -> Result<(Outer, u16), DeviceError> {
        let outer = self.outer.clone().ok_or_else(|| DeviceError::Protocol("no link".into()))?;
        Ok((outer, self.ports.max(1)))
    }
}

/// One output of the endpoint as the device gives it: a packet becomes a frame on the port
/// its EV chooses; a report stays inside the device when its CPU half is there (the split
/// is inside the device); any other event passes. The first frame that cannot be built is
/// kept in `failed`.
fn collect(
    inside: bool,
    outer: &Outer,
    ports: u16,
    at: Timestamp,
    o: Output,
    out: &mut Vec<TimedOutput>,
    failed: &mut Option<DeviceError>,
) {
    match o {
        Output::Transmit(Transmit { ev, packet, .. }) => {
            let frame = packet
                .to_frame(outer, ev, &mut |addr, len| memory(addr, len))
                .map_err(|e| DeviceError::Failed(format!("cannot build a frame: {e}")))
                .and_then(|f| f.to_bytes().map_err(|e| DeviceError::Failed(e.to_string())));
            match frame {
                Ok(bytes) => out.push(TimedOutput {
                    at,
                    output: DeviceOutput::Frame { port: port_of(ev, ports), bytes },
                }),
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        Output::Event(NicEvent::Report(_)) if inside => {}
        Output::Event(event) => out.push(TimedOutput { at, output: DeviceOutput::Event { event } }),
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
            StartState,
        ]
        .into_iter()
        .collect()
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        #[cfg_attr(not(feature = "fault-hooks"), allow(unused_mut))]
        let mut nic = NicConfig::try_from(&manifest.nic)
            .map_err(|e| DeviceError::Protocol(format!("configuration rejected: {e}")))?;
        #[cfg(feature = "fault-hooks")]
        {
            nic.fit_fault = self.fit_fault;
            nic.recv_fault = self.recv_fault;
        }
        let mut nic = Nic::new(nic)
            .map_err(|e| DeviceError::Protocol(format!("configuration rejected: {e}")))?;
        nic.handle_port_status(Timestamp::ZERO, ports_up(manifest.ports))
            .map_err(|e| DeviceError::Protocol(e.to_string()))?;
        // CONF-ADP-021: the counters of the manifest's `start` table.
        nic.restore(manifest.start.clone());
        // REC-TEST-004: in a `cpu = "device"` scenario the device runs its own CPU half,
        // configured by the manifest's `recovery` table.
        let cpu = match manifest.cpu {
            CpuHalf::Device => Some((self.make_cpu)(&manifest.recovery)?),
            CpuHalf::Reference | CpuHalf::Scripted => None,
        };
        self.ep = Some(Endpoint::with_cpu(nic, Inside(cpu)));
        self.outer = Some(Outer::from_link(&manifest.link));
        self.ports = manifest.ports;
        self.now = Timestamp::ZERO;
        self.refusals.clear();
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
            let ep = self.ep()?;
            match input {
                Input::Frame { bytes, .. } => {
                    // RCV-FRAME-001, RCV-OPC-001: a frame that is no MRC packet the model
                    // handles (undecodable, not RoCEv2, a checksum or ICRC that does not
                    // match, an opcode it does not take) is dropped unseen, as a NIC drops
                    // it; the scoreboard judges the consequences.
                    // A packet that breaks a rule (`PeerViolation`) is dropped likewise.
                    if let Ok((packet, ev)) = Packet::from_wire(&decode(&bytes)) {
                        match ep.handle_packet(at, ev, &packet) {
                            Ok(()) | Err(HostOrPeer::Peer(_)) => {}
                            Err(HostOrPeer::Misuse(e)) => self.refusals.push(Refusal::Frame(at, e)),
                        }
                    }
                }
                Input::Host { command } => {
                    if let Err(e) = ep.handle_host(at, command) {
                        self.refusals.push(Refusal::Host(at, e));
                    }
                }
                Input::Cpu { command } => {
                    if let Err(e) = ep.handle_cpu(at, command) {
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
