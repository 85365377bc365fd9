//! Recording scenarios from the reference model (`CONF-GEN-*`).
//!
//! A [`Recorder`] runs a reference NIC as the device under test and writes down its
//! boundary: every host command, CPU command and frame given to it becomes an inject
//! record, every frame and event it produces an expect record. What the device is given
//! comes either from the builder's script (hand-made packets: an out-of-window PSN, a bad
//! key) or from a reference *peer* NIC across a deterministic fabric of paths with delays,
//! aimed drops and paths that go dark. The CPU half of recovery is the reference agent,
//! and its commands are recorded as inject records too (`CpuHalf::Scripted`), so a replay
//! needs no agent and is exactly reproducible.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use openrdma_codec::frame::decode;
use openrdma_sm::{
    CpuCommand, Endpoint, HostCommand, Nic, NicEvent, NicReport, Outer, Packet, RecoveryAgent,
    Timestamp,
};

use crate::device::memory;
use crate::reference::{port_of, ports_up};
use crate::scenario::{Body, CpuHalf, Direction, Link, Manifest, Record, Scenario};

/// One path of the recording fabric.
#[derive(Debug, Clone)]
pub struct Path {
    /// One-way delay, ns.
    pub delay: u64,
    /// The path drops everything sent during `[from, to)`.
    pub dark: Option<(u64, u64)>,
}

/// A frame in flight in the fabric.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Flight {
    at: u64,
    seq: u64,
    to_dut: bool,
    port: u16,
    bytes: Vec<u8>,
}

/// Records a scenario. See the module documentation.
#[derive(Debug)]
pub struct Recorder {
    manifest: Manifest,
    dut: Nic,
    agent: RecoveryAgent,
    peer: Option<Endpoint>,
    dut_outer: Outer,
    peer_outer: Outer,
    paths: Vec<Path>,
    /// Data packets from the DUT to drop on their first transmission: (peer QP, PSN).
    drop_first: Vec<(u32, u32)>,
    /// Acknowledgements from the peer to drop on their first transmission: (DUT QP, nth).
    drop_acks: Vec<(u32, usize)>,
    acks_seen: BTreeMap<u32, usize>,
    dropped: Vec<(u32, u32)>,
    flights: BinaryHeap<Reverse<Flight>>,
    seq: u64,
    now: Timestamp,
    records: Vec<Record>,
    checks: Vec<String>,
}

impl Recorder {
    /// A recorder for a device configured by `manifest` (its CPU half is recorded, so the
    /// manifest's `cpu` is set to scripted).
    pub fn new(mut manifest: Manifest) -> Recorder {
        manifest.cpu = CpuHalf::Scripted;
        let mut dut = Nic::new(manifest.nic.clone()).expect("a builder's configuration is valid");
        dut.handle_port_status(Timestamp::ZERO, ports_up(manifest.ports)).expect("time zero");
        let agent = RecoveryAgent::new(manifest.recovery.clone());
        let dut_outer = manifest.link.outer();
        let peer_outer = reverse(&manifest.link).outer();
        let paths = (0..manifest.ports.max(1))
            .map(|p| Path { delay: 500 + 150 * u64::from(p), dark: None })
            .collect();
        Recorder {
            manifest,
            dut,
            agent,
            peer: None,
            dut_outer,
            peer_outer,
            paths,
            drop_first: Vec::new(),
            drop_acks: Vec::new(),
            acks_seen: BTreeMap::new(),
            dropped: Vec::new(),
            flights: BinaryHeap::new(),
            seq: 0,
            now: Timestamp::ZERO,
            records: Vec::new(),
            checks: Vec::new(),
        }
    }

    /// Uses these paths (one per port) instead of the default ones.
    pub fn paths(&mut self, paths: Vec<Path>) -> &mut Self {
        self.manifest.ports = paths.len() as u16;
        let up = ports_up(self.manifest.ports);
        self.dut.handle_port_status(self.now, up).expect("the recorder's time only grows");
        self.paths = paths;
        self
    }

    /// Adds a reference peer, configured like the device, for pair recordings.
    pub fn with_peer(&mut self) -> &mut Self {
        let mut cfg = self.manifest.nic.clone();
        cfg.seed ^= 0x005E_ED0F_9EE8;
        self.peer = Some(Endpoint::new(cfg, self.manifest.recovery.clone()).expect("valid"));
        self
    }

    /// Drops the first transmission of these data packets from the device (peer QP, PSN).
    pub fn drop_data(&mut self, drops: &[(u32, u32)]) -> &mut Self {
        self.drop_first.extend_from_slice(drops);
        self
    }

    /// Drops the `nth` (0-based) SACK or ACK the peer sends to device QP `qp`.
    pub fn drop_ack(&mut self, qp: u32, nth: usize) -> &mut Self {
        self.drop_acks.push((qp, nth));
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
    pub fn inject(&mut self, at: u64, port: u16, ev: u32, packet: &Packet) -> &mut Self {
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
        loop {
            let next = [
                self.flights.peek().map(|Reverse(f)| f.at),
                self.dut.poll_timeout().map(|x| x.0),
                self.agent.poll_timeout().map(|x| x.0),
                self.peer.as_mut().and_then(Endpoint::poll_timeout).map(|x| x.0),
            ]
            .into_iter()
            .flatten()
            .min();
            let Some(next) = next.filter(|&n| n <= t) else { break };
            self.now = Timestamp(next.max(self.now.0));
            let now = self.now;
            while self.flights.peek().is_some_and(|Reverse(f)| f.at <= now.0) {
                let Reverse(f) = self.flights.pop().expect("peeked");
                if f.to_dut {
                    self.deliver_to_dut(f.port, f.bytes);
                } else if let Some(peer) = self.peer.as_mut() {
                    if let Ok((p, ev)) = Packet::from_wire(&decode(&f.bytes)) {
                        let _ = peer.handle_packet(now, ev, &p);
                    }
                }
                self.drain();
            }
            if self.dut.poll_timeout().is_some_and(|d| d <= now) {
                let _ = self.dut.handle_timeout(now);
            }
            if self.agent.poll_timeout().is_some_and(|d| d <= now) {
                self.agent.handle_timeout(now);
            }
            if let Some(peer) = self.peer.as_mut() {
                if peer.poll_timeout().is_some_and(|d| d <= now) {
                    let _ = peer.handle_timeout(now);
                }
            }
            self.drain();
        }
        self.now = Timestamp(t.max(self.now.0));
        self
    }

    fn deliver_to_dut(&mut self, port: u16, bytes: Vec<u8>) {
        self.push(Direction::Inject, Body::Frame { port, bytes: bytes.clone() });
        // RCV-FRAME-001: the device's edge, as the reference device has it.
        if let Ok((p, ev)) = Packet::from_wire(&decode(&bytes)) {
            let _ = self.dut.handle_packet(self.now, ev, &p);
        }
    }

    fn push(&mut self, dir: Direction, body: Body) {
        let checks = if dir == Direction::Expect { self.checks.clone() } else { Vec::new() };
        self.records.push(Record { at: self.now, dir, body, checks });
    }

    fn send(&mut self, to_dut: bool, ev: u32, bytes: Vec<u8>) {
        let ports = self.paths.len().max(1) as u16;
        let port = port_of(ev, ports);
        let path = &self.paths[port as usize];
        if path.dark.is_some_and(|(a, b)| self.now.0 >= a && self.now.0 < b) {
            return;
        }
        let at = self.now.0 + path.delay;
        self.seq += 1;
        self.flights.push(Reverse(Flight { at, seq: self.seq, to_dut, port, bytes }));
    }

    /// Moves every output of both NICs and the agent into records and the fabric.
    fn drain(&mut self) {
        let now = self.now;
        loop {
            let mut any = false;
            while let Some(t) = self.dut.poll_transmit(now) {
                any = true;
                let frame = t.packet.to_frame(&self.dut_outer, t.ev, &mut |a, l| memory(a, l));
                let Ok(bytes) = frame.and_then(|f| f.to_bytes()) else { continue };
                let port = port_of(t.ev, self.paths.len().max(1) as u16);
                self.push(Direction::Expect, Body::Frame { port, bytes: bytes.clone() });
                if let Packet::Write(w) = &t.packet {
                    let key = (w.bth.dest_qp.value(), w.bth.psn.value());
                    if !w.bth.rtx && self.drop_first.contains(&key) && !self.dropped.contains(&key)
                    {
                        self.dropped.push(key);
                        continue;
                    }
                }
                self.send(false, t.ev, bytes);
            }
            while let Some(ev) = self.dut.poll_event() {
                any = true;
                if let NicEvent::Report(r) = &ev {
                    self.agent.handle_report(now, r);
                    // The reports the scoreboard compares (CONF-CMP-010); the others
                    // depend on the device's own timing of progress.
                    let compared = matches!(
                        r,
                        NicReport::Nack { .. }
                            | NicReport::EvMarked { .. }
                            | NicReport::ProbeAnswered { .. }
                            | NicReport::Retransmitted { .. }
                            | NicReport::QpError { .. }
                    );
                    if !compared {
                        continue;
                    }
                }
                self.push(Direction::Expect, Body::Event { event: ev });
            }
            while let Some(cmd) = self.agent.poll_command() {
                any = true;
                self.push(Direction::Inject, Body::Cpu { command: cmd });
                let _ = self.dut.handle_cpu(now, cmd);
            }
            if let Some(peer) = self.peer.as_mut() {
                let mut out = Vec::new();
                while let Some(t) = peer.poll_transmit(now) {
                    out.push(t);
                }
                while peer.poll_event(now).is_some() {}
                for t in out {
                    any = true;
                    let qp = t.packet.dest_qp().value();
                    if !matches!(t.packet, Packet::Write(_)) {
                        let n = self.acks_seen.entry(qp).or_default();
                        let nth = *n;
                        *n += 1;
                        if self.drop_acks.contains(&(qp, nth)) {
                            continue;
                        }
                    }
                    let frame = t.packet.to_frame(&self.peer_outer, t.ev, &mut |a, l| memory(a, l));
                    if let Ok(bytes) = frame.and_then(|f| f.to_bytes()) {
                        self.send(true, t.ev, bytes);
                    }
                }
            }
            if !any {
                break;
            }
        }
    }

    /// Ends the recording at `t` and returns the scenario.
    pub fn finish(mut self, t: u64) -> Scenario {
        self.run_until(t);
        Scenario { manifest: self.manifest, records: self.records }
    }

    /// The device's current time.
    pub fn now(&self) -> u64 {
        self.now.0
    }

    /// The EV of the latest data packet the device sent to `dest_qp` with PSN `psn`, as its
    /// frame carries it: what an acknowledgement of that packet reflects (`ENC-EV-003`),
    /// and what the runner writes into an injected SACK or NACK (`CONF-MAP-001`).
    pub fn sent_ev(&self, dest_qp: u32, psn: u32) -> Option<u32> {
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

    /// Records a CPU command given to the device by the scenario itself.
    pub fn cpu(&mut self, at: u64, command: CpuCommand) -> &mut Self {
        self.run_until(at);
        self.push(Direction::Inject, Body::Cpu { command });
        let _ = self.dut.handle_cpu(self.now, command);
        self.drain();
        self
    }
}

/// The link as the peer sees it.
pub fn reverse(l: &Link) -> Link {
    Link {
        local_mac: l.peer_mac,
        peer_mac: l.local_mac,
        local_ip: l.peer_ip,
        peer_ip: l.local_ip,
        vlan: l.vlan,
    }
}
