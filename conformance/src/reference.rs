//! The `reference` adapter: the reference model (`openrdma-sm`'s NIC half) in-process.
//! Every device is judged against what this one does.

use std::collections::BTreeSet;

use openrdma_codec::frame::{IcrcStatus, decode};
use openrdma_sm::{ApiMisuse, HostError, Nic, NicEvent, Outer, Packet, Timestamp, Transmit};

use crate::device::{Device, DeviceError, Input, Output, TimedInput, TimedOutput, memory};
use crate::scenario::{Capability, Manifest};

/// The reference NIC as a device.
#[derive(Debug, Default)]
pub struct ReferenceDevice {
    nic: Option<Nic>,
    outer: Option<Outer>,
    ports: u16,
    now: Timestamp,
    refusals: Vec<Refusal>,
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
}

impl ReferenceDevice {
    /// A new reference device.
    pub fn new() -> Self {
        ReferenceDevice::default()
    }

    /// The host and CPU commands refused during the last [`Device::advance`].
    pub fn refusals(&self) -> &[Refusal] {
        &self.refusals
    }

    fn nic(&mut self) -> Result<&mut Nic, DeviceError> {
        self.nic.as_mut().ok_or_else(|| DeviceError::Protocol("advance before start".into()))
    }

    /// Runs timers up to `t` (inclusive), collecting outputs.
    fn run_timers(&mut self, t: Timestamp, out: &mut Vec<TimedOutput>) -> Result<(), DeviceError> {
        loop {
            let nic = self.nic()?;
            let Some(d) = nic.poll_timeout() else { break };
            if d > t {
                break;
            }
            let at = d.max(self.now);
            self.now = at;
            self.nic()?.handle_timeout(at).map_err(|e| DeviceError::Protocol(e.to_string()))?;
            self.drain(at, out)?;
        }
        Ok(())
    }

    fn drain(&mut self, at: Timestamp, out: &mut Vec<TimedOutput>) -> Result<(), DeviceError> {
        let outer = self.outer.clone().ok_or_else(|| DeviceError::Protocol("no link".into()))?;
        let ports = self.ports.max(1);
        let nic = self.nic()?;
        while let Some(Transmit { ev, packet, .. }) = nic.poll_transmit(at) {
            let frame = packet
                .to_frame(&outer, ev, &mut |addr, len| memory(addr, len))
                .map_err(|e| DeviceError::Failed(format!("cannot build a frame: {e}")))?;
            let bytes = frame.to_bytes().map_err(|e| DeviceError::Failed(e.to_string()))?;
            out.push(TimedOutput { at, output: Output::Frame { port: port_of(ev, ports), bytes } });
        }
        while let Some(event) = nic.poll_event() {
            out.push(TimedOutput { at, output: Output::Event { event } });
        }
        Ok(())
    }
}

/// The port a reference NIC sends a frame with entropy value `ev` on.
pub fn port_of(ev: u32, ports: u16) -> u16 {
    (ev % u32::from(ports.max(1))) as u16
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
            Retirement,
            SharedRetirement,
            PerQpRetirement,
            WriteImmediate,
            Ipv6,
            Ipv4,
            Paths,
            CpuSplit,
            SprayPolicies,
        ]
        .into_iter()
        .collect()
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        let nic = Nic::new(manifest.nic.clone())
            .map_err(|e| DeviceError::Protocol(format!("configuration rejected: {e}")))?;
        self.nic = Some(nic);
        self.outer = Some(manifest.link.outer());
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
            let nic = self.nic()?;
            match input {
                Input::Frame { bytes, .. } => {
                    // A frame the model cannot take (not MRC, undecodable) is dropped, as a
                    // NIC would drop it; the scoreboard judges the consequences.
                    // ICRC-VERIFY-001: a frame whose ICRC is bad is dropped unseen.
                    let d = decode(&bytes);
                    if d.icrc != IcrcStatus::Ok {
                        self.drain(at, &mut out)?;
                        continue;
                    }
                    if let Some(repr) = d.to_repr() {
                        if let Ok((packet, ev)) = Packet::from_frame(&repr) {
                            let _ = nic.handle_packet(at, ev, &packet);
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

/// Events worth keeping from an output list (everything but reports).
pub fn is_observable(o: &TimedOutput) -> bool {
    !matches!(o.output, Output::Event { event: NicEvent::Report(_) })
}
