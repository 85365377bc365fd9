//! The runner: replays a scenario into a device and collects what it produces
//! (`spec/conformance.md`, `CONF-RUN-*`).
//!
//! Injected records are delivered at their times, in batches: everything up to the next
//! point where the runner must look at the device's output first. Such points are the
//! injection of an acknowledgement to a sending device (its `entropy` names the EV the
//! device chose for the acknowledged packet, so the runner rewrites it, `CONF-MAP-002`)
//! and, when the runner plays the CPU half (`cpu = "reference"`), the reference agent's
//! timers. The agent sees the device's reports after each batch, at their times, and its
//! commands reach the device at the start of the next one; so that no report can make a
//! deadline that falls inside the batch it came in, and fire late, a batch is then no
//! longer than the agent's shortest delay (`RecoveryAgent::min_delay`, `CONF-RUN-005`).
//! A recording with `cpu = "reference"` hands the agent's commands to the device the same
//! way (`crate::record`), so that replay and recording agree exactly.
//!
//! When the device brings its own CPU half (`cpu = "device"`), the runner plays none and
//! injects no command but the scenario's own (`CONF-RUN-006`).

use std::collections::HashMap;

use openrdma_codec::Opcode;
use openrdma_codec::frame::decode;
use openrdma_sm::{NicEvent, RecoveryAgent, Timestamp};

use crate::device::{Device, DeviceError, Input, Output, TimedInput, TimedOutput};
use crate::scenario::{Body, CpuHalf, Direction, Record, Scenario};

/// Everything a run produced.
#[derive(Debug, Clone, Default)]
pub struct RunOutcome {
    /// The inputs as delivered (after rewriting), in order.
    pub injected: Vec<TimedInput>,
    /// The device's outputs, in order.
    pub observed: Vec<TimedOutput>,
    /// Why the run stopped early, if it did.
    pub error: Option<DeviceError>,
}

fn record_input(r: &Record) -> Option<Input> {
    match &r.body {
        Body::Frame { port, bytes } => Some(Input::Frame { port: *port, bytes: bytes.clone() }),
        Body::Host { command } => Some(Input::Host { command: command.clone() }),
        Body::Cpu { command } => Some(Input::Cpu { command: *command }),
        Body::Event { .. } => None,
    }
}

/// Whether an injected frame is an acknowledgement whose EV fields follow the device's
/// choices (SACK or NACK to a sending device).
fn is_feedback(r: &Record) -> bool {
    match &r.body {
        Body::Frame { bytes, .. } => decode(bytes)
            .bth
            .is_some_and(|b| b.opcode == Opcode::MRC_SACK || b.opcode == Opcode::MRC_NACK),
        _ => false,
    }
}

/// Rewrites the `entropy` of an injected SACK or NACK to the EV the device used for the
/// packet it acknowledges (the SACK's trigger PSN `cack_psn + ack_psn_offset`, or the
/// NACK's `nack_psn`), recomputing the ICRC (`CONF-MAP-002`). A SACK answering a probe
/// keeps its entropy when the scenario scripts the CPU half, which named the probe's EV
/// itself; when a CPU half runs live, it chose the EV from the device's own reports or
/// paths, and the answer takes the EV of the device's probe with its `probe_id`
/// (`ack_psn_offset`, `SETH-ACKPSN-002`), as given in `probes`.
fn rewrite(
    bytes: &[u8],
    evs: &HashMap<(u32, u32), u32>,
    probes: Option<&HashMap<(u32, u16), u32>>,
) -> Vec<u8> {
    let d = decode(bytes);
    let Some(mut f) = d.to_repr() else { return bytes.to_vec() };
    let dev_qp = f.bth.dest_qp.value();
    let mut changed = false;
    if let Some(seth) = f.ext.seth.as_mut() {
        let ev = if seth.pr {
            probes.and_then(|p| p.get(&(dev_qp, seth.ack_psn_offset as u16)))
        } else {
            evs.get(&(dev_qp, seth.ack_psn().value()))
        };
        if let Some(&ev) = ev {
            changed |= seth.entropy != ev;
            seth.entropy = ev;
        }
    }
    if let Some(neth) = f.ext.neth.as_mut() {
        if let Some(&ev) = evs.get(&(dev_qp, neth.nack_psn.value())) {
            changed |= neth.entropy != ev;
            neth.entropy = ev;
        }
    }
    if !changed {
        return bytes.to_vec();
    }
    f.icrc = None;
    f.to_bytes().unwrap_or_else(|_| bytes.to_vec())
}

/// Runs a scenario on a device.
pub fn run(device: &mut dyn Device, scenario: &Scenario) -> RunOutcome {
    let mut out = RunOutcome::default();
    if let Err(e) = device.start(&scenario.manifest) {
        out.error = Some(e);
        return out;
    }
    let m = &scenario.manifest;
    // CONF-RUN-002, CONF-RUN-006: the runner plays the CPU half only when the manifest
    // gives it the part.
    let mut agent = (m.cpu == CpuHalf::Reference).then(|| RecoveryAgent::new(m.recovery.clone()));
    let injects: Vec<&Record> =
        scenario.records.iter().filter(|r| r.dir == Direction::Inject).collect();
    let last = scenario.records.iter().map(|r| r.at.0).max().unwrap_or(0);
    let end = Timestamp(last.saturating_add(m.tolerances.drain_ns));
    // The EV the device last used for (its QP, PSN), learnt from its data packets; the
    // device's QP is found from the peer QP its packets are addressed to.
    let peer_to_local: HashMap<u32, u32> = scenario
        .records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Host { command: openrdma_sm::HostCommand::CreateQp(q) } => {
                Some((q.peer_qpn.value(), q.qpn.value()))
            }
            _ => None,
        })
        .collect();
    let mut evs: HashMap<(u32, u32), u32> = HashMap::new();
    // The EV of each probe the device sent, by (its QP, probe_id), when a CPU half runs
    // live and chose it.
    let mut probes: HashMap<(u32, u16), u32> = HashMap::new();
    let live = m.cpu.is_live();
    let mut i = 0;
    let mut now = Timestamp::ZERO;
    let mut cpu_pending: Vec<TimedInput> = Vec::new();
    loop {
        let mut batch: Vec<TimedInput> = std::mem::take(&mut cpu_pending);
        // Feedback whose time has come: the device's output up to it is known, so its
        // EV fields can follow the device's choices.
        while i < injects.len() && is_feedback(injects[i]) && injects[i].at <= now {
            if let Some(Input::Frame { port, bytes }) = record_input(injects[i]) {
                let bytes = rewrite(&bytes, &evs, live.then_some(&probes));
                batch.push(TimedInput { at: now, input: Input::Frame { port, bytes } });
            }
            i += 1;
        }
        // This batch runs to the next feedback injection, agent deadline, or the end, and
        // for no longer than the agent's shortest delay (CONF-RUN-005).
        let mut until = end;
        if let Some(a) = agent.as_ref() {
            if let Some(d) = a.poll_timeout() {
                until = until.min(d.max(now));
            }
            until = until.min(now + a.min_delay());
        }
        while i < injects.len() {
            let r = injects[i];
            if r.at > until {
                break;
            }
            if is_feedback(r) {
                until = r.at.max(now);
                break;
            }
            if let Some(input) = record_input(r) {
                batch.push(TimedInput { at: r.at.max(now), input });
            }
            i += 1;
        }
        out.injected.extend(batch.iter().cloned());
        let outputs = match device.advance(batch, until) {
            Ok(o) => o,
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        };
        now = until;
        for o in &outputs {
            match &o.output {
                Output::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let Some(b) = d.bth else { continue };
                    let Some(&q) = peer_to_local.get(&b.dest_qp.value()) else { continue };
                    let ev = d.entropy().unwrap_or(0);
                    if b.opcode.is_mrc_write() {
                        evs.insert((q, b.psn.value()), ev);
                    } else if let Some(p) = d.ext.peth.filter(|_| live) {
                        probes.insert((q, p.probe_id), ev);
                    }
                }
                Output::Event { event: NicEvent::Report(r) } => {
                    if let Some(a) = agent.as_mut() {
                        a.handle_report(o.at, r);
                    }
                }
                Output::Event { .. } => {}
            }
        }
        out.observed.extend(outputs);
        if let Some(a) = agent.as_mut() {
            if a.poll_timeout().is_some_and(|d| d <= now) {
                a.handle_timeout(now);
            }
            while let Some(command) = a.poll_command() {
                cpu_pending.push(TimedInput { at: now, input: Input::Cpu { command } });
            }
        }
        if i >= injects.len() && cpu_pending.is_empty() && now >= end {
            break;
        }
    }
    if let Err(e) = device.finish() {
        out.error.get_or_insert(e);
    }
    out
}
