//! The runner: replays a scenario into a device and collects what it produces
//! (`spec/conformance.md`, `CONF-RUN-*`).
//!
//! Injected records are delivered at their times, in batches: everything up to the next
//! point where the runner must look at the device's output first. Such points are the
//! injection of an acknowledgement to a sending device (its `entropy` names the EV the
//! device chose for the acknowledged packet, and its reflected timestamp the time the
//! device's clock gave that packet, so the runner rewrites them, `CONF-MAP-002`,
//! `CONF-MAP-003`)
//! and, when the runner plays the CPU half (`cpu = "reference"`), the reference agent's
//! timers. The agent sees the device's reports after each batch, at their times, and its
//! commands reach the device at the start of the next one; so that no report can make a
//! deadline that falls inside the batch it came in, and fire late, a batch is then no
//! longer than the agent's shortest delay ([`RecoveryCpu::min_delay`], `CONF-RUN-008`).
//! A recording with `cpu = "reference"` hands the agent's commands to the device the same
//! way (`openrdma_corpus::record`), so that replay and recording agree exactly.
//!
//! When the device brings its own CPU half (`cpu = "device"`), the runner plays none and
//! injects no command but the scenario's own (`CONF-RUN-006`).
//!
//! The runner does not know the reference agent: the caller gives it the CPU half to play,
//! as a [`CpuHalfFactory`] that makes one from the manifest's `recovery` table (the command
//! line gives the reference model's, `openrdma_sm::reference_cpu_half`).

use std::collections::HashMap;

use openrdma_codec::Ev;
use openrdma_codec::Opcode;
use openrdma_codec::frame::decode;
use openrdma_device::{
    Body, CpuHalf, CpuHalfFactory, Device, DeviceError, Direction, Input, NicEvent, Output, Record,
    RecoveryCpu, Scenario, TimedInput, TimedOutput, Timestamp,
};

use crate::judge::{Judgement, Scope, judge_timed};
use crate::protocol::{MAX_SCENARIO_OUTPUTS, check_times, count_outputs};
use crate::timeline::{Seen, Timeline, retimed};

/// Everything a run produced.
#[derive(Debug, Clone, Default)]
pub struct RunOutcome {
    /// The inputs as delivered (after rewriting), in order.
    pub injected: Vec<TimedInput>,
    /// The device's outputs, in order.
    pub observed: Vec<TimedOutput>,
    /// Why the run stopped early, if it did.
    pub error: Option<DeviceError>,
    /// When the device error happened (the end of the batch it came in).
    pub error_at: Option<u64>,
    /// The lag in force when each inject record was delivered: its index among the
    /// scenario's records and the lag in ns (`CONF-RUN-007`; 0 for an on-time device).
    pub lag: Vec<(usize, u64)>,
}

impl RunOutcome {
    /// Judges the run of `scenario` within `scope`, as the suite does: the scenario
    /// re-timed as the run lived it, each output bounded early from the least shift of its
    /// record's anchors (CONF-TIME-005.a, [`retimed`]). What was observed before a device
    /// error is judged all the same: the caller decides whether it counts.
    pub fn judge(&self, scenario: &Scenario, scope: Scope) -> Judgement {
        let timed = retimed(scenario, &self.lag, &self.observed, &self.injected);
        judge_timed(&timed.scenario, &timed.slack, &self.injected, &self.observed, scope)
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
/// and per (its QP, probe ID) the timestamp and the EV of its probe.
#[derive(Debug, Default)]
struct Choices {
    evs: HashMap<(u32, u32), Ev>,
    stamps: HashMap<(u32, u32), u16>,
    probes: HashMap<(u32, u16), u16>,
    probe_evs: HashMap<(u32, u16), Ev>,
}

impl Choices {
    fn learn(&mut self, qp: u32, bytes: &[u8]) {
        let d = decode(bytes);
        let Some(b) = d.bth else { return };
        if b.opcode.is_mrc_write() {
            self.evs.insert((qp, b.psn.value()), d.entropy().unwrap_or_default());
            if let Some(t) = d.ext.tseth {
                self.stamps.insert((qp, b.psn.value()), t.tx_timestamp);
            }
        } else if let Some(p) = d.ext.peth.filter(|_| b.opcode == Opcode::MRC_PROBE) {
            self.probes.insert((qp, p.probe_id), p.tx_timestamp);
            self.probe_evs.insert((qp, p.probe_id), d.entropy().unwrap_or_default());
        }
    }
}

/// Rewrites an injected SACK or NACK to answer what the device sent: its `entropy` to the
/// EV the device used for the packet it acknowledges (the SACK's trigger PSN
/// `cack_psn + ack_psn_offset`, or the NACK's `nack_psn`, `CONF-MAP-002`), and the
/// timestamp it reflects to the one the device gave that packet, or, in the answer to a
/// probe, the probe (`CONF-MAP-003`); then recomputes the ICRC. A SACK answering a probe
/// keeps its entropy when the scenario scripts the CPU half, which named the probe's EV
/// itself; when a CPU half runs live (`live`), it chose the EV from the device's own
/// reports or paths, and the answer takes the EV of the device's probe with its `probe_id`
/// (`ack_psn_offset`, `SETH-ACKPSN-002`).
fn rewrite(bytes: &[u8], choices: &Choices, live: bool) -> Vec<u8> {
    let d = decode(bytes);
    let Some(mut f) = d.to_repr() else { return bytes.to_vec() };
    let dev_qp = f.bth.dest_qp.value();
    let mut changed = false;
    let mut stamp = None;
    if let Some(seth) = f.ext.seth.as_mut() {
        let id = seth.ack_psn_offset as u16;
        if seth.pr {
            stamp = choices.probes.get(&(dev_qp, id));
            if let Some(&ev) = choices.probe_evs.get(&(dev_qp, id)).filter(|_| live) {
                changed |= seth.entropy != ev;
                seth.entropy = ev;
            }
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
    // The ICRC, and a UDP checksum the frame was recorded with (IPv6, ENC-UDP-004), are
    // computed again over the rewritten fields.
    match f.reseal().and_then(|()| f.to_bytes()) {
        Ok(b) => b,
        Err(_) => bytes.to_vec(),
    }
}

/// Runs a scenario on a device; `cpu` makes the CPU half the runner plays when the
/// manifest says `cpu = "reference"`.
///
/// Every inject record is delivered at its time plus the lag `L` (`CONF-RUN-007`). At a
/// hold point (an inject record that answers a device output, [`Timeline`]) the runner
/// first waits for the output it answers: seen at `a`, `L` becomes at least
/// `a - cause.at`; not yet seen, the device advances in empty batches no longer than the
/// recorded gap between the two until it is seen or its window closes (then `L` becomes at
/// least `now - record.at`). `L` never decreases, so a device whose every output is late
/// by the same amount meets every answer as the recording's device did.
pub fn run(device: &mut dyn Device, scenario: &Scenario, cpu: CpuHalfFactory) -> RunOutcome {
    let mut out = RunOutcome::default();
    if let Err(e) = device.start(&scenario.manifest) {
        out.error = Some(e);
        return out;
    }
    let m = &scenario.manifest;
    // CONF-RUN-002, CONF-RUN-006: the runner plays the CPU half only when the manifest
    // gives it the part.
    let mut agent: Option<Box<dyn RecoveryCpu>> = match m.cpu {
        CpuHalf::Reference => match cpu(&m.recovery) {
            Ok(a) => Some(a),
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        },
        CpuHalf::Scripted | CpuHalf::Device => None,
    };
    let timeline = Timeline::of(scenario);
    let injects: Vec<(usize, &Record)> =
        scenario.records.iter().enumerate().filter(|(_, r)| r.dir == Direction::Inject).collect();
    let last = scenario.records.iter().map(|r| r.at.0).max().unwrap_or(0);
    let tol = &m.tolerances;
    // What the device chose for (its QP, PSN), learnt from its data packets and probes;
    // the device's QP is found from the peer QP its packets are addressed to.
    let peer_to_local = timeline.peers().clone();
    let mut choices = Choices::default();
    let mut seen = Seen::default();
    let live = m.cpu.is_live();
    let mut i = 0;
    let mut lag: u64 = 0;
    let mut now = Timestamp::ZERO;
    let mut cpu_pending: Vec<TimedInput> = Vec::new();
    loop {
        let mut batch: Vec<TimedInput> = std::mem::take(&mut cpu_pending);
        // Hold points and feedback whose time has come: the device's output up to them is
        // known, so a SACK's or NACK's EV fields can follow the device's choices.
        let mut waiting: Option<u64> = None;
        while i < injects.len() && breaks_batch(&timeline, injects[i]) {
            let (k, r) = injects[i];
            if r.at.0.saturating_add(lag) > now.0 {
                break;
            }
            if let Some(c) = timeline.causes[k] {
                let cause_at = scenario.records[c].at.0;
                match seen.at(&timeline, c) {
                    Some(a) => {
                        lag = lag.max(a.saturating_sub(cause_at));
                        if r.at.0.saturating_add(lag) > now.0 {
                            break;
                        }
                    }
                    None if now.0 < cause_at.saturating_add(lag).saturating_add(tol.late_ns) => {
                        waiting = Some(r.at.0.saturating_sub(cause_at).max(1));
                        break;
                    }
                    None => lag = lag.max(now.0.saturating_sub(r.at.0)),
                }
            }
            if let Some(Input::Frame { port, bytes }) = r.body.input() {
                let bytes = if is_feedback(r) { rewrite(&bytes, &choices, live) } else { bytes };
                batch.push(TimedInput { at: now, input: Input::Frame { port, bytes } });
            }
            out.lag.push((k, lag));
            i += 1;
        }
        let end = Timestamp(last.saturating_add(lag).saturating_add(tol.drain_ns));
        // This batch runs to the next hold point, agent deadline, or the end, and for no
        // longer than the agent's shortest delay (CONF-RUN-008); while a hold point waits
        // for its cause, for no longer than the recorded gap between the two.
        let mut until = end;
        if let Some(step) = waiting {
            until = until.min(Timestamp(now.0.saturating_add(step)));
        }
        if let Some(a) = agent.as_ref() {
            if let Some(d) = a.poll_timeout() {
                until = until.min(d.max(now));
            }
            until = until.min(now + a.min_delay());
        }
        while waiting.is_none() && i < injects.len() {
            let (k, r) = injects[i];
            let at = Timestamp(r.at.0.saturating_add(lag));
            if at > until {
                break;
            }
            if breaks_batch(&timeline, injects[i]) {
                until = at.max(now);
                break;
            }
            if let Some(input) = r.body.input() {
                batch.push(TimedInput { at: at.max(now), input });
            }
            out.lag.push((k, lag));
            i += 1;
        }
        out.injected.extend(batch.iter().cloned());
        let outputs = match advance_bounded(device, batch, (now, until), out.observed.len()) {
            Ok(mut o) => {
                // CONF-ADP-017.a: the runner knows a completion by the entry written.
                crate::judge::written_entries(&mut o);
                o
            }
            Err(e) => {
                out.error = Some(e);
                out.error_at = Some(until.0);
                return out;
            }
        };
        now = until;
        for o in &outputs {
            seen.learn(o, &peer_to_local);
            match &o.output {
                Output::Frame { bytes, .. } => {
                    let dest = decode(bytes).bth.map(|b| b.dest_qp);
                    if let Some(&q) = dest.and_then(|d| peer_to_local.get(&d)) {
                        choices.learn(q.value(), bytes);
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
        out.error_at.get_or_insert(now.0);
        out.error.get_or_insert(e);
    }
    out
}

/// Advances the device from `from` to `until`, with one bound on a scenario's outputs and
/// on their times for every device, in-process or not: `given` outputs came before, and
/// what the device gives past the bound is not kept (CONF-ADP-019); an output timed outside
/// the batch is a protocol error (CONF-ADP-007), so that no device time moves the runner's
/// clock or lag past what the batch allows.
fn advance_bounded(
    device: &mut dyn Device,
    batch: Vec<TimedInput>,
    (from, until): (Timestamp, Timestamp),
    given: usize,
) -> Result<Vec<TimedOutput>, DeviceError> {
    let outputs = device.advance(batch, until)?;
    count_outputs(given as u64, outputs.len(), MAX_SCENARIO_OUTPUTS)
        .and_then(|_| check_times(outputs.iter().map(|o| o.at), from, until, ""))
        .map_err(|e| DeviceError::Protocol(e.to_string()))?;
    Ok(outputs)
}

/// Whether an inject record starts a batch of its own: a hold point, or feedback whose
/// fields follow the device's earlier outputs.
fn breaks_batch(t: &Timeline, (k, r): (usize, &Record)) -> bool {
    t.causes[k].is_some() || is_feedback(r)
}
