//! The runner: replays a scenario into a device and collects what it produces
//! (`spec/conformance.md`, `CONF-RUN-*`).
//!
//! Injected records are delivered at their times, in batches: everything up to the next
//! point where the runner must look at the device's output first. Such points are the
//! injection of an acknowledgement to a sending device (its `entropy` names the EV the
//! device chose for the acknowledged packet, and its reflected timestamp the time the
//! device's clock gave that packet, so the runner rewrites them, `CONF-MAP-001`,
//! `CONF-MAP-003`) and, when the runner plays the CPU half, the reference agent's timers.

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

/// What the device chose for the packets an acknowledgement answers, learnt from its
/// outputs: per (its QP, PSN) the EV and the TSETH timestamp of its latest data packet,
/// and per (its QP, probe ID) the timestamp of its probe.
#[derive(Debug, Default)]
struct Choices {
    evs: HashMap<(u32, u32), u32>,
    stamps: HashMap<(u32, u32), u16>,
    probes: HashMap<(u32, u16), u16>,
}

impl Choices {
    fn learn(&mut self, qp: u32, bytes: &[u8]) {
        let d = decode(bytes);
        let Some(b) = d.bth else { return };
        if b.opcode.is_mrc_write() {
            self.evs.insert((qp, b.psn.value()), d.entropy().unwrap_or(0));
            if let Some(t) = d.ext.tseth {
                self.stamps.insert((qp, b.psn.value()), t.tx_timestamp);
            }
        } else if let Some(p) = d.ext.peth.filter(|_| b.opcode == Opcode::MRC_PROBE) {
            self.probes.insert((qp, p.probe_id), p.tx_timestamp);
        }
    }
}

/// Rewrites an injected SACK or NACK to answer what the device sent: its `entropy` to the
/// EV the device used for the packet it acknowledges (the SACK's trigger PSN
/// `cack_psn + ack_psn_offset`, or the NACK's `nack_psn`), and the timestamp it reflects to
/// the one the device gave that packet, or, in the answer to a probe, the probe
/// (`CONF-MAP-001`, `CONF-MAP-003`); then recomputes the ICRC. A SACK answering a probe
/// keeps its entropy: the probe's EV was named by the CPU half or the spray policy.
fn rewrite(bytes: &[u8], choices: &Choices) -> Vec<u8> {
    let d = decode(bytes);
    let Some(mut f) = d.to_repr() else { return bytes.to_vec() };
    let dev_qp = f.bth.dest_qp.value();
    let mut changed = false;
    let mut stamp = None;
    if let Some(seth) = f.ext.seth.as_mut() {
        if seth.pr {
            stamp = choices.probes.get(&(dev_qp, seth.ack_psn_offset as u16));
        } else {
            let trigger = seth.ack_psn().value();
            if let Some(&ev) = choices.evs.get(&(dev_qp, trigger)) {
                changed |= seth.entropy != ev;
                seth.entropy = ev;
            }
            stamp = choices.stamps.get(&(dev_qp, trigger));
        }
    }
    if let (Some(cc), Some(&ts)) = (f.ext.cc_state.as_mut(), stamp) {
        changed |= cc.tx_timestamp != ts;
        cc.tx_timestamp = ts;
    }
    if let Some(neth) = f.ext.neth.as_mut() {
        let psn = neth.nack_psn.value();
        if let Some(&ev) = choices.evs.get(&(dev_qp, psn)) {
            changed |= neth.entropy != ev;
            neth.entropy = ev;
        }
        if let Some(&ts) = choices.stamps.get(&(dev_qp, psn)) {
            changed |= neth.tx_timestamp != ts;
            neth.tx_timestamp = ts;
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
    let mut agent = (m.cpu == CpuHalf::Reference).then(|| RecoveryAgent::new(m.recovery.clone()));
    let injects: Vec<&Record> =
        scenario.records.iter().filter(|r| r.dir == Direction::Inject).collect();
    let last = scenario.records.iter().map(|r| r.at.0).max().unwrap_or(0);
    let end = Timestamp(last.saturating_add(m.tolerances.drain_ns));
    // What the device chose for (its QP, PSN), learnt from its data packets and probes;
    // the device's QP is found from the peer QP its packets are addressed to.
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
    let mut choices = Choices::default();
    let mut i = 0;
    let mut now = Timestamp::ZERO;
    let mut cpu_pending: Vec<TimedInput> = Vec::new();
    loop {
        let mut batch: Vec<TimedInput> = std::mem::take(&mut cpu_pending);
        // Feedback whose time has come: the device's output up to it is known, so its
        // EV fields can follow the device's choices.
        while i < injects.len() && is_feedback(injects[i]) && injects[i].at <= now {
            if let Some(Input::Frame { port, bytes }) = record_input(injects[i]) {
                let bytes = rewrite(&bytes, &choices);
                batch.push(TimedInput { at: now, input: Input::Frame { port, bytes } });
            }
            i += 1;
        }
        // This batch runs to the next feedback injection, agent deadline, or the end.
        let mut until = end;
        if let Some(d) = agent.as_ref().and_then(RecoveryAgent::poll_timeout) {
            until = until.min(d.max(now));
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
                    let dest = decode(bytes).bth.map(|b| b.dest_qp.value());
                    if let Some(&q) = dest.and_then(|d| peer_to_local.get(&d)) {
                        choices.learn(q, bytes);
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
