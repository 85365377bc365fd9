//! Recording scenarios from the reference model (`CONF-GEN-*`).
//!
//! A [`Recorder`] runs a reference NIC as the device under test and writes down its
//! boundary: every host command, CPU command and frame given to it becomes an inject
//! record, every frame and event it produces an expect record. What the device is given
//! comes either from the builder's script (hand-made packets: an out-of-window PSN, a bad
//! key) or from a reference *peer* NIC across a deterministic fabric of paths with delays,
//! aimed drops and paths that go dark.
//!
//! The CPU half of recovery is the reference agent, recorded in one of three ways
//! (`CONF-GEN-005`), as the manifest's `cpu` says:
//!
//! * `scripted` ([`Recorder::new`]): its commands become inject records, so that a replay
//!   needs no agent and is exactly reproducible whatever the device reports;
//! * `reference` ([`Recorder::with_cpu`]): the agent runs live and its commands are not
//!   recorded, so that the replay's agent, fed by the device's own reports, must command
//!   what this one did. Its commands reach the device as the runner delivers them: at the
//!   end of the batch the runner would be in (`openrdma_conformance::runner`), never in the middle of one;
//! * `device`: the agent is part of the device, as in an `openrdma_sm::Endpoint`; neither
//!   its commands nor the NIC's reports are recorded, only what the two do together.
//!
//! Reports the scoreboard compares (`CONF-CMP-020`) are recorded as expect records; `EvState`
//! reports only when the builder asks for them ([`Recorder::expect_ev_states`]), in a
//! scenario whose EV states the device's own choice of paths cannot change.
//!
//! The device is an `openrdma_sm::Endpoint` driven by the model's one drive loop, the loop
//! of `ReferenceDevice` that replays the scenario: at equal times the device's timers run
//! before the frames that arrive then, and its outputs are drained in the same order.
//!
//! The fabric between the device and the peer is an `openrdma_sm::Fabric` (`Paths`): it
//! decides each packet's fate (delivered after its path's delay, or dropped by a dark path
//! or by the builder's aim), and the frames in flight wait in the model's `InFlight` queue.

use std::collections::BTreeMap;
use std::time::Duration;

use openrdma_codec::frame::decode;
use openrdma_codec::{Ev, Opcode};
use openrdma_device::{
    Body, CpuCommand, CpuHalf, Direction, HostCommand, Manifest, NicEvent, NicReport, Record,
    RecoveryCpu, Scenario, Timestamp, memory,
};
use openrdma_sm::{
    Endpoint, Fabric, Fate, InFlight, Nic, NicConfig, Outer, Output, Packet, RecoveryAgent,
    Transmit,
};

use openrdma_sm::boundary::{port_of, ports_up};

/// One path of the recording fabric.
#[derive(Debug, Clone)]
pub struct Path {
    /// One-way delay, ns.
    pub delay: u64,
    /// The path drops everything sent during `[from, to)`.
    pub dark: Option<(u64, u64)>,
}

/// A frame in flight in the fabric.
#[derive(Debug)]
struct Flight {
    to_dut: bool,
    port: u16,
    bytes: Vec<u8>,
}

/// The recording fabric: one [`Path`] per port, which a packet takes by its EV
/// (`port_of`), and the builder's aimed drops. The device is endpoint 0, the peer 1.
#[derive(Debug)]
struct Paths {
    paths: Vec<Path>,
    /// Data packets from the DUT to drop on their first transmission: (peer QP, PSN).
    drop_first: Vec<(u32, u32)>,
    /// Acknowledgements from the peer to drop on their first transmission: (DUT QP, nth).
    drop_acks: Vec<(u32, usize)>,
    acks_seen: BTreeMap<u32, usize>,
    dropped: Vec<(u32, u32)>,
}

impl Paths {
    /// The port (and path) a packet with entropy `ev` takes.
    fn port(&self, ev: Ev) -> u16 {
        port_of(ev, self.paths.len().max(1) as u16)
    }
}

impl Paths {
    /// When `t`, sent by endpoint `from` at `now`, arrives, or `None` if it is dropped: the
    /// only fates of this fabric, which neither duplicates, corrupts nor queues.
    fn arrival(&mut self, now: Timestamp, from: usize, t: &Transmit) -> Option<Timestamp> {
        if from == 0 {
            if let Packet::Write(w) = &t.packet {
                let key = (w.bth.dest_qp.value(), w.bth.psn.value());
                if !w.bth.rtx && self.drop_first.contains(&key) && !self.dropped.contains(&key) {
                    self.dropped.push(key);
                    return None;
                }
            }
        } else if !matches!(t.packet, Packet::Write(_)) {
            let qp = t.packet.dest_qp().value();
            let n = self.acks_seen.entry(qp).or_default();
            let nth = *n;
            *n += 1;
            if self.drop_acks.contains(&(qp, nth)) {
                return None;
            }
        }
        let path = &self.paths[usize::from(self.port(t.ev))];
        if path.dark.is_some_and(|(a, b)| now.0 >= a && now.0 < b) {
            return None;
        }
        Some(Timestamp(now.0 + path.delay))
    }
}

impl Fabric for Paths {
    fn fate(&mut self, now: Timestamp, from: usize, t: &Transmit) -> Fate {
        match self.arrival(now, from, t) {
            Some(at) => Fate::Deliver { at, ev: t.ev },
            None => Fate::Drop,
        }
    }
}

/// Records a scenario. See the module documentation.
#[derive(Debug)]
pub struct Recorder {
    manifest: Manifest,
    /// The device: the reference NIC with the agent as this recording plays it.
    dut: Endpoint<Played>,
    peer: Option<Endpoint>,
    dut_outer: Outer,
    peer_outer: Outer,
    fabric: Paths,
    flights: InFlight<Flight>,
    now: Timestamp,
    records: Vec<Record>,
    checks: Vec<String>,
    /// Requirement IDs that expected probes check instead of `checks`, if set.
    probe_checks: Option<Vec<String>>,
    /// The batch the runner would be in, when it plays the CPU half (`cpu = "reference"`).
    batch: Option<Batch>,
    /// Whether `EvState` reports are expected.
    ev_states: bool,
}

/// The reference agent as a recording plays it: live, its commands kept to be recorded
/// (`cpu = "scripted"`) or not (`"device"`); or `held` (`cpu = "reference"`): it takes the
/// device's reports, but its timers and commands wait for the end of the runner's batch
/// (`Recorder::end_batch`).
#[derive(Debug)]
struct Played {
    agent: RecoveryAgent,
    held: bool,
    /// Commands given to the NIC and not yet recorded.
    given: Vec<CpuCommand>,
}

impl RecoveryCpu for Played {
    fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
        self.agent.handle_report(now, report);
    }
    fn handle_timeout(&mut self, now: Timestamp) {
        self.agent.handle_timeout(now);
    }
    fn poll_command(&mut self) -> Option<CpuCommand> {
        let cmd = if self.held { None } else { self.agent.poll_command() };
        self.given.extend(cmd);
        cmd
    }
    fn poll_timeout(&self) -> Option<Timestamp> {
        if self.held { None } else { self.agent.poll_timeout() }
    }
    fn min_delay(&self) -> Duration {
        self.agent.min_delay()
    }
}

/// A batch of the runner, as a `cpu = "reference"` recording follows it: the agent's
/// commands reach the device at the end of the batch, which comes at `limit` or at the
/// next acknowledgement injected, whichever is first (`CONF-RUN-008`).
#[derive(Debug, Clone, Copy)]
struct Batch {
    start: Timestamp,
    limit: Timestamp,
}

/// Whether the runner ends a batch before injecting this frame: a SACK or NACK, whose EV
/// fields follow the device's choices (`openrdma_conformance::runner`).
fn is_feedback(bytes: &[u8]) -> bool {
    decode(bytes).bth.is_some_and(|b| b.opcode == Opcode::MRC_SACK || b.opcode == Opcode::MRC_NACK)
}

impl Recorder {
    /// A recorder for a device configured by `manifest`, whose CPU half is recorded as
    /// the scenario's own commands (the manifest's `cpu` is set to scripted).
    pub fn new(manifest: Manifest) -> Recorder {
        Recorder::with_cpu(manifest, CpuHalf::Scripted)
    }

    /// A recorder for a device configured by `manifest` whose CPU half is played as `cpu`
    /// says (see the module documentation); the manifest's `cpu` is set to it.
    pub fn with_cpu(mut manifest: Manifest, cpu: CpuHalf) -> Recorder {
        manifest.cpu = cpu;
        let nic = NicConfig::try_from(&manifest.nic).expect("a builder's configuration is valid");
        let mut nic = Nic::new(nic).expect("a valid configuration");
        nic.handle_port_status(Timestamp::ZERO, ports_up(manifest.ports)).expect("time zero");
        nic.restore(manifest.start.clone());
        let agent = RecoveryAgent::new((&manifest.recovery).into());
        let batch = (cpu == CpuHalf::Reference)
            .then(|| Batch { start: Timestamp::ZERO, limit: Timestamp::ZERO + agent.min_delay() });
        let held = batch.is_some();
        let dut = Endpoint::with_cpu(nic, Played { agent, held, given: Vec::new() });
        let dut_outer = Outer::from_link(&manifest.link);
        let peer_outer = Outer::from_link(&manifest.link.reversed());
        let paths = (0..manifest.ports.max(1))
            .map(|p| Path { delay: 500 + 150 * u64::from(p), dark: None })
            .collect();
        Recorder {
            manifest,
            dut,
            peer: None,
            dut_outer,
            peer_outer,
            fabric: Paths {
                paths,
                drop_first: Vec::new(),
                drop_acks: Vec::new(),
                acks_seen: BTreeMap::new(),
                dropped: Vec::new(),
            },
            flights: InFlight::new(),
            now: Timestamp::ZERO,
            records: Vec::new(),
            checks: Vec::new(),
            probe_checks: None,
            batch,
            ev_states: false,
        }
    }

    /// Records the device's `EvState` reports as expected from now on: for scenarios whose
    /// EV states every conforming device goes through alike, whatever paths it chooses
    /// (a QP with a single EV, say), so that the scoreboard compares them (`CONF-CMP-020`).
    pub fn expect_ev_states(&mut self) -> &mut Self {
        self.ev_states = true;
        self
    }

    /// Uses these paths (one per port) instead of the default ones.
    pub fn paths(&mut self, paths: Vec<Path>) -> &mut Self {
        self.manifest.ports = paths.len() as u16;
        let up = ports_up(self.manifest.ports);
        self.dut.nic.handle_port_status(self.now, up).expect("the recorder's time only grows");
        self.fabric.paths = paths;
        self
    }

    /// Adds a reference peer, configured like the device, for pair recordings.
    pub fn with_peer(&mut self) -> &mut Self {
        let mut cfg = NicConfig::try_from(&self.manifest.nic).expect("checked at the start");
        cfg.seed ^= 0x005E_ED0F_9EE8;
        self.peer = Some(Endpoint::new(cfg, (&self.manifest.recovery).into()).expect("valid"));
        self
    }

    /// Drops the first transmission of these data packets from the device (peer QP, PSN).
    pub fn drop_data(&mut self, drops: &[(u32, u32)]) -> &mut Self {
        self.fabric.drop_first.extend_from_slice(drops);
        self
    }

    /// Drops the `nth` (0-based) SACK or ACK the peer sends to device QP `qp`.
    pub fn drop_ack(&mut self, qp: u32, nth: usize) -> &mut Self {
        self.fabric.drop_acks.push((qp, nth));
        self
    }

    /// Requirement IDs the next expect records check (until changed).
    pub fn checks(&mut self, ids: &[&str]) -> &mut Self {
        self.checks = ids.iter().map(|s| s.to_string()).collect();
        self
    }

    /// The peer endpoint, to configure it.
    pub fn peer(&mut self) -> &mut Endpoint {
        self.peer.as_mut().expect("with_peer() first")
    }

    /// Records a host command to the device at `at`.
    pub fn host(&mut self, at: u64, command: HostCommand) -> &mut Self {
        self.run_until(at);
        self.push(Direction::Inject, Body::Host { command: command.clone() });
        let _ = self.dut.handle_host(self.now, command);
        self.drain();
        self
    }

    /// Gives a host command to the peer at `at` (not recorded: the peer is not the device).
    pub fn peer_host(&mut self, at: u64, command: HostCommand) -> &mut Self {
        self.run_until(at);
        let now = self.now;
        let _ = self.peer().handle_host(now, command);
        self.drain();
        self
    }

    /// Records a packet arriving at the device at `at` on `port`, with entropy `ev`, from
    /// the peer's addresses.
    pub fn inject(&mut self, at: u64, port: u16, ev: impl Into<Ev>, packet: &Packet) -> &mut Self {
        let ev = ev.into();
        let frame = packet
            .to_frame(&self.peer_outer, ev, &mut |a, l| memory(a, l))
            .expect("a builder's packet is well formed");
        let bytes = frame.to_bytes().expect("emit");
        self.inject_bytes(at, port, bytes)
    }

    /// Records raw frame bytes arriving at the device.
    pub fn inject_bytes(&mut self, at: u64, port: u16, bytes: Vec<u8>) -> &mut Self {
        self.run_until(at);
        self.deliver_to_dut(port, bytes);
        self.drain();
        self
    }

    /// Runs the recording until `t`.
    pub fn run_until(&mut self, t: u64) -> &mut Self {
        let t = Timestamp(t);
        loop {
            let next = [
                self.flights.next_at(),
                self.dut.poll_timeout(),
                self.peer.as_mut().and_then(Endpoint::poll_timeout),
            ]
            .into_iter()
            .flatten()
            .min();
            // A batch of the runner ends once everything at its limit has happened; an
            // input at `t` itself may still belong to it, so only limits before `t` end here.
            if let Some(b) = self.batch {
                if b.limit < t && next.is_none_or(|n| b.limit < n) {
                    self.end_batch(b.limit);
                    continue;
                }
            }
            let Some(next) = next.filter(|&n| n <= t) else { break };
            self.now = next.max(self.now);
            let now = self.now;
            // The NIC's timers, then the agent's when it is live.
            self.dut.handle_timeout(now).expect("the recorder's time only grows");
            if let Some(peer) = self.peer.as_mut() {
                if peer.poll_timeout().is_some_and(|d| d <= now) {
                    peer.handle_timeout(now).expect("the recorder's time only grows");
                }
            }
            self.drain();
            while let Some(f) = self.flights.pop_due(now) {
                if f.to_dut {
                    self.deliver_to_dut(f.port, f.bytes);
                } else if let Some(peer) = self.peer.as_mut() {
                    if let Ok((p, ev)) = Packet::from_wire(&decode(&f.bytes)) {
                        let _ = peer.handle_packet(now, ev, &p);
                    }
                }
                self.drain();
            }
        }
        self.now = t.max(self.now);
        self
    }

    /// Ends the runner's batch at `at` (`cpu = "reference"`): the agent fires what is due
    /// and its commands, from this and from the reports of the batch, reach the device, as
    /// the runner injects them at the start of the next batch (`CONF-RUN-002`). Returns
    /// whether there were any.
    fn end_batch(&mut self, at: Timestamp) -> bool {
        self.now = at.max(self.now);
        let now = self.now;
        let agent = &mut self.dut.cpu.agent;
        if agent.poll_timeout().is_some_and(|d| d <= now) {
            agent.handle_timeout(now);
        }
        let mut commands = Vec::new();
        while let Some(cmd) = agent.poll_command() {
            commands.push(cmd);
        }
        let min = agent.min_delay();
        let limit = agent.poll_timeout().map_or(now + min, |d| d.max(now).min(now + min));
        self.batch = Some(Batch { start: now, limit });
        let any = !commands.is_empty();
        for cmd in commands {
            // A command the NIC refuses has no effect, as in the replay.
            let _ = self.dut.handle_cpu(now, cmd);
            self.drain();
        }
        any
    }

    fn deliver_to_dut(&mut self, port: u16, bytes: Vec<u8>) {
        // The runner ends its batch before an acknowledgement it must rewrite.
        if self.batch.is_some_and(|b| b.start < self.now) && is_feedback(&bytes) {
            self.end_batch(self.now);
        }
        self.push(Direction::Inject, Body::Frame { port, bytes: bytes.clone() });
        // RCV-FRAME-001: the device's edge, as the reference device has it.
        if let Ok((p, ev)) = Packet::from_wire(&decode(&bytes)) {
            let _ = self.dut.handle_packet(self.now, ev, &p);
        }
    }

    /// Requirement IDs the next expected probes check (until changed), instead of those
    /// of [`Recorder::checks`]: for scenarios in which probes and data packets check
    /// different rules at the same time.
    pub fn probe_checks(&mut self, ids: &[&str]) -> &mut Self {
        self.probe_checks = Some(ids.iter().map(|s| s.to_string()).collect());
        self
    }

    fn push(&mut self, dir: Direction, body: Body) {
        let probe = |b: &Body| match b {
            Body::Frame { bytes, .. } => decode(bytes).ext.peth.is_some(),
            _ => false,
        };
        let checks = match (dir, &self.probe_checks) {
            (Direction::Inject, _) => Vec::new(),
            (Direction::Expect, Some(ids)) if probe(&body) => ids.clone(),
            (Direction::Expect, _) => self.checks.clone(),
        };
        self.records.push(Record { at: self.now, dir, body, checks });
    }

    /// Puts a frame on the fabric, to arrive at `at`.
    fn send(&mut self, at: Timestamp, to_dut: bool, port: u16, bytes: Vec<u8>) {
        self.flights.push(at, Flight { to_dut, port, bytes });
    }

    /// Records the commands the agent gave the NIC, when the scenario plays its CPU half.
    fn record_given(&mut self) {
        for command in core::mem::take(&mut self.dut.cpu.given) {
            if self.manifest.cpu == CpuHalf::Scripted {
                self.push(Direction::Inject, Body::Cpu { command });
            }
        }
    }

    /// Records a packet of the device and puts it on the fabric.
    fn dut_sent(&mut self, t: Transmit) {
        let frame = t.packet.to_frame(&self.dut_outer, t.ev, &mut |a, l| memory(a, l));
        let Ok(bytes) = frame.and_then(|f| f.to_bytes()) else { return };
        let port = self.fabric.port(t.ev);
        self.push(Direction::Expect, Body::Frame { port, bytes: bytes.clone() });
        if let Some(at) = self.fabric.arrival(self.now, 0, &t) {
            self.send(at, false, port, bytes);
        }
    }

    /// Moves every output of both endpoints into records and the fabric, the device's with
    /// the model's drive loop.
    fn drain(&mut self) {
        let now = self.now;
        loop {
            loop {
                let out = self.dut.poll(now, true);
                // The agent's commands reached the NIC before the output this poll gives.
                self.record_given();
                match out {
                    Ok(Some(Output::Transmit(t))) => self.dut_sent(t),
                    Ok(Some(Output::Event(ev))) => {
                        if let NicEvent::Report(r) = &ev {
                            if !self.expects(r) {
                                continue;
                            }
                        }
                        self.push(Direction::Expect, Body::Event { event: ev });
                    }
                    Ok(None) => break,
                    // A command the NIC refuses has no effect, as in the replay.
                    Err(_) => {}
                }
            }
            let mut any = false;
            if let Some(peer) = self.peer.as_mut() {
                let mut out = Vec::new();
                peer.drain(
                    now,
                    &mut |_, o| {
                        if let Output::Transmit(t) = o {
                            out.push(t);
                        }
                    },
                    &mut |at, e| panic!("the peer's NIC refused its agent's command at {at}: {e}"),
                )
                .expect("the recorder's time only grows");
                for t in out {
                    any = true;
                    let Some(at) = self.fabric.arrival(now, 1, &t) else { continue };
                    let frame = t.packet.to_frame(&self.peer_outer, t.ev, &mut |a, l| memory(a, l));
                    if let Ok(bytes) = frame.and_then(|f| f.to_bytes()) {
                        self.send(at, true, self.fabric.port(t.ev), bytes);
                    }
                }
            }
            if !any {
                break;
            }
        }
    }

    /// Whether a report becomes an expect record: those the scoreboard compares
    /// (`CONF-CMP-020`), none when the CPU half is inside the device; the others depend on
    /// the device's own timing of progress.
    fn expects(&self, r: &NicReport) -> bool {
        match r {
            _ if self.manifest.cpu == CpuHalf::Device => false,
            NicReport::Nack { .. }
            | NicReport::EvMarked { .. }
            | NicReport::ProbeAnswered { .. }
            | NicReport::Retransmitted { .. }
            | NicReport::QpError { .. }
            | NicReport::EndpointResponse { .. } => true,
            NicReport::EvState { .. } => self.ev_states,
            NicReport::Progress { .. } | NicReport::Armed { .. } => false,
        }
    }

    /// Ends the recording at `t` and returns the scenario.
    ///
    /// When a CPU half runs live, the replay goes on after the last record for the
    /// manifest's `drain_ns`, with the agent or the device still running: if anything is
    /// still due then (a timer, a probe, a command, a frame in flight), the drain is cut to
    /// end the replay at `t`, where the recording ends, so that the replay sees nothing
    /// the recording did not.
    pub fn finish(mut self, t: u64) -> Scenario {
        self.run_until(t);
        if self.manifest.cpu.is_live() {
            let t = Timestamp(t);
            let mut busy = false;
            if self.batch.is_some() {
                while self.end_batch(t) {
                    busy = true;
                }
            }
            let last = self.records.iter().map(|r| r.at).max().unwrap_or(Timestamp::ZERO);
            let drain = Timestamp(last.0.saturating_add(self.manifest.tolerances.drain_ns));
            busy |= !self.flights.is_empty()
                || [
                    self.dut.nic.poll_timeout(),
                    self.dut.cpu.agent.poll_timeout(),
                    self.peer.as_mut().and_then(Endpoint::poll_timeout),
                ]
                .into_iter()
                .flatten()
                .any(|d| d <= drain);
            if busy {
                self.manifest.tolerances.drain_ns = t.0 - last.0;
            }
        }
        Scenario { manifest: self.manifest, records: self.records }
    }

    /// The device's current time.
    pub fn now(&self) -> u64 {
        self.now.0
    }

    /// The EV of the latest data packet the device sent to `dest_qp` with PSN `psn`, as its
    /// frame carries it: what an acknowledgement of that packet reflects (`ENC-EV-003`),
    /// and what the runner writes into an injected SACK or NACK (`CONF-MAP-002`).
    pub fn sent_ev(&self, dest_qp: u32, psn: u32) -> Option<Ev> {
        self.records.iter().rev().find_map(|r| match (&r.dir, &r.body) {
            (Direction::Expect, Body::Frame { bytes, .. }) => {
                let d = decode(bytes);
                let b = d.bth?;
                let hit =
                    b.opcode.is_mrc_write() && b.dest_qp.value() == dest_qp && b.psn.value() == psn;
                if hit { d.entropy() } else { None }
            }
            _ => None,
        })
    }

    /// The `probe_id` of the latest probe the device sent to `dest_qp` at or after `since`:
    /// what the answer to it carries in `ack_psn_offset` (PETH-RESP-001).
    pub fn sent_probe_id(&self, dest_qp: u32, since: u64) -> Option<u16> {
        self.records.iter().rev().filter(|r| r.at.0 >= since).find_map(|r| {
            match (&r.dir, &r.body) {
                (Direction::Expect, Body::Frame { bytes, .. }) => {
                    let d = decode(bytes);
                    let to = d.bth?.dest_qp.value();
                    d.ext.peth.filter(|_| to == dest_qp).map(|p| p.probe_id)
                }
                _ => None,
            }
        })
    }

    /// Records a CPU command given to the device by the scenario itself.
    pub fn cpu(&mut self, at: u64, command: CpuCommand) -> &mut Self {
        self.run_until(at);
        self.push(Direction::Inject, Body::Cpu { command });
        let _ = self.dut.handle_cpu(self.now, command);
        self.drain();
        self
    }
}
