//! Two reference NICs back to back on the model's one driver: the workload on which the
//! model's own speed is measured (`cargo bench -p openrdma-testkit --bench model`, the
//! `model_loop` example of this crate, `openrdma bench`).
//!
//! A requester NIC posts RDMA Writes of [`MESSAGE_BYTES`] bytes at a [`PMTU`] of 4 KiB to a
//! responder NIC over four EVs. The two are the endpoints of an `openrdma_sm::Pair`
//! whose fabric delivers every packet [`HOP_NS`] after it was sent, and never loses one;
//! each endpoint takes all the packets of an instant before it is drained (`Fabric::batch`);
//! the endpoints have no CPU half (`NoCpu`): nothing is lost, so there is nothing to
//! recover. [`Loopback::run`] runs the pair until nothing is due any more. The packets
//! travel as the model's `Repr`s, so a run measures the state machines alone: what a
//! hardware pipeline does besides building, parsing and checksumming frames.
//! [`Loopback::run_frames`] runs the same transfer through the software edge of a NIC
//! instead: the fabric writes every packet as a frame with its ICRC ([`FrameWriter`]),
//! decodes and checks it again, reads its payload from the sender's memory and writes
//! what the receiver places into its memory.
//!
//! [`Loopback::run_recorded`] also returns, for each endpoint, the [`Script`] of every call
//! the pair made on it (`Fabric::calling`). The model is deterministic, so replaying a
//! script against a fresh endpoint built by [`Loopback::new`] repeats that endpoint's half
//! of the run exactly: that is how each half is timed alone.
//!
//! Nothing here reads a clock: the caller times the calls.

use std::hint::black_box;
use std::net::Ipv4Addr;

use openrdma_codec::frame::{IpRepr, decode};
use openrdma_codec::host::{WorkRequest, WrOpcode};
use openrdma_codec::{
    EtherType, EthernetAddress, EthernetRepr, Ev, IP_PROTO_UDP, Ipv4Repr, Lkey, Psn, Qpn, Rkey,
};
use openrdma_device::{DomainId, Payload, Timestamp};

use openrdma_sm::{Call, Endpoint, Fabric, Fate, Nic, NoCpu, Pair, RunEnd};
use openrdma_sm::{FrameWriter, Outer, Packet};
use openrdma_sm::{HostCommand, NicEvent, Region, Transmit};
use openrdma_sm::{NicConfig, QpConfig};

/// Path MTU of the transfer.
pub const PMTU: u32 = 4096;
/// Bytes per message.
pub const MESSAGE_BYTES: u32 = 256 * 1024;
/// Data packets per message.
pub const PACKETS_PER_MESSAGE: u32 = MESSAGE_BYTES / PMTU;
/// Time from sending a packet to its arrival, ns.
pub const HOP_NS: u64 = 10;
/// Bytes of each NIC's memory in [`Loopback::run_frames`]: addresses wrap within it.
const MEMORY: usize = MESSAGE_BYTES as usize;

/// An endpoint of the loopback: a reference NIC with no CPU half.
pub type Host = Endpoint<NoCpu>;

/// The requester (endpoint 0, QP 0x11) and the responder (endpoint 1, QP 0x12), with the
/// transfer posted.
#[derive(Debug)]
pub struct Loopback {
    pair: Pair<Wire, NoCpu>,
}

/// One call an endpoint received during a run, as [`Script::replay`] repeats it.
#[derive(Debug, Clone)]
enum Step {
    /// `poll_timeout`.
    PollTimeout,
    /// `handle_timeout`.
    Timeout(Timestamp),
    /// `handle_packet`.
    Packet(Timestamp, Ev, Packet),
    /// `poll` until it gives nothing.
    Drain(Timestamp),
}

/// Every call one endpoint of a [`Loopback`] received, in order (see the module
/// documentation).
#[derive(Debug, Clone, Default)]
pub struct Script {
    steps: Vec<Step>,
}

impl Script {
    /// Number of calls.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the script is empty.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Makes the same calls on `host`, which must be built as the recorded endpoint was (by
    /// [`Loopback::new`] with the same number of messages). Returns the number of packets
    /// and events the endpoint gave back, which is the recorded run's.
    pub fn replay(&self, host: &mut Host) -> u64 {
        let mut outputs = 0;
        for step in &self.steps {
            match step {
                Step::PollTimeout => {
                    black_box(host.poll_timeout());
                }
                Step::Timeout(t) => {
                    let _ = black_box(host.handle_timeout(*t));
                }
                Step::Packet(t, ev, p) => {
                    let _ = black_box(host.handle_packet(*t, *ev, p));
                }
                Step::Drain(t) => {
                    while let Ok(Some(o)) = host.poll(*t, true) {
                        black_box(&o);
                        outputs += 1;
                    }
                }
            }
        }
        outputs
    }
}

/// The loopback's fabric: every packet arrives [`HOP_NS`] after it was sent, as a `Repr`
/// or through frames; data packets placed are counted, calls recorded when asked.
#[derive(Debug, Default)]
struct Wire {
    placed: u64,
    record: Option<[Script; 2]>,
    frames: Option<Box<Frames>>,
}

impl Fabric for Wire {
    #[inline(always)]
    fn fate(&mut self, now: Timestamp, _from: usize, t: &Transmit) -> Fate {
        Fate::Deliver { at: Timestamp(now.0 + HOP_NS), ev: t.ev }
    }

    /// Every packet of an instant is handed over before the endpoints are drained: the
    /// round the workload has always measured (each NIC takes what arrived, then sends).
    #[inline(always)]
    fn batch(&self) -> bool {
        true
    }

    #[inline(always)]
    fn carry(&mut self, now: Timestamp, from: usize, t: &mut Transmit) -> Fate {
        if let Some(f) = &mut self.frames {
            if !f.rewrite(from, t) {
                return Fate::Drop;
            }
        }
        self.fate(now, from, t)
    }

    #[inline(always)]
    fn event(&mut self, _now: Timestamp, k: usize, event: &NicEvent) {
        if k == 1 && matches!(event, NicEvent::DmaWrite(_)) {
            self.placed += 1;
        }
        if let Some(f) = &mut self.frames {
            f.place(k, event);
        }
    }

    #[inline(always)]
    fn calling(&mut self, now: Timestamp, k: usize, call: Call<'_>) {
        if let Some(r) = &mut self.record {
            r[k].steps.push(match call {
                Call::PollTimeout => Step::PollTimeout,
                Call::Timeout => Step::Timeout(now),
                Call::Packet(ev, p) => Step::Packet(now, ev, p.clone()),
                Call::Drain => Step::Drain(now),
            });
        }
    }
}

/// Packets as frames: written with their ICRC, decoded and checked, payload copied from and
/// into each NIC's memory.
#[derive(Debug)]
struct Frames {
    writers: [FrameWriter; 2],
    memory: [Vec<u8>; 2],
    bad: u64,
}

impl Frames {
    /// Writes `t` from endpoint `from` as a frame and puts the packet decoded from it in its
    /// place. A frame that fails to build or to decode is counted as bad, and dropped.
    fn rewrite(&mut self, from: usize, t: &mut Transmit) -> bool {
        let mem = &self.memory[from];
        let mut fetch = |addr: u64, len: u32, out: &mut Vec<u8>| {
            let at = addr as usize % MEMORY;
            let end = (at + len as usize).min(MEMORY);
            out.extend_from_slice(&mem[at..end]);
        };
        let Ok(bytes) = self.writers[from].write(&t.packet, t.ev, &mut fetch) else {
            self.bad += 1;
            return false;
        };
        match Packet::from_wire(&decode(bytes)) {
            Ok((packet, ev)) => {
                t.packet = packet;
                t.ev = ev;
                true
            }
            Err(_) => {
                self.bad += 1;
                false
            }
        }
    }

    /// Writes the payload endpoint `k` places into its memory.
    fn place(&mut self, k: usize, event: &NicEvent) {
        if let NicEvent::DmaWrite(w) = event {
            if let Payload::Bytes(b) = &w.payload {
                let mem = &mut self.memory[k];
                let at = w.va as usize % MEMORY;
                let end = (at + b.len()).min(MEMORY);
                mem[at..end].copy_from_slice(&b[..end - at]);
            }
        }
    }
}

impl Loopback {
    /// Two connected NICs with `messages` messages posted on the requester.
    pub fn new(messages: u32) -> Loopback {
        Loopback { pair: Pair::new(endpoints(messages), Wire::default()) }
    }
}

/// The requester and the responder of a [`Loopback`], with the transfer posted.
fn endpoints(messages: u32) -> [Host; 2] {
    let cfg = NicConfig { pmtu: PMTU, mpr: 4, ..NicConfig::default() };
    let mut requester = Nic::new(cfg.clone()).expect("a valid configuration");
    let mut responder = Nic::new(cfg).expect("a valid configuration");
    let t = Timestamp::ZERO;
    // Neither end is QPN 2, which endpoint operations keep (ERTH-QPN-001).
    let (req_qp, resp_qp) = (0x11, 0x12);
    for (nic, me, peer) in [(&mut requester, req_qp, resp_qp), (&mut responder, resp_qp, req_qp)] {
        let region = Region { rkey: Rkey::new(7), base: 0, len: 1 << 40, remote_write: true };
        nic.handle_host(t, HostCommand::RegisterRegion(region)).expect("a new region");
        let qp = QpConfig {
            qpn: Qpn::new(me),
            peer_qpn: Qpn::new(peer),
            initial_psn: Psn::new(0),
            peer_initial_psn: Psn::new(0),
            domain: DomainId::new(0),
            // Bits 15:0 zero, so that the EVs survive IPv4 frames (ENC-EV-002).
            evs: (0..4).map(|k| Ev::from_halves(k, 0)).collect(),
            backup_evs: vec![],
            spray: Default::default(),
            cc: Default::default(),
            recv_flag_base: 0x1000,
            recv_flag_slots: 1024,
            send_flag_base: 0x2000,
            send_flag_slots: 1024,
            send_cq: None,
            recv_cq: None,
        };
        nic.handle_host(t, HostCommand::CreateQp(qp)).expect("a new QP");
    }
    for m in 0..messages {
        let wr = WorkRequest {
            wr_id: u64::from(m),
            qpn: Qpn::new(req_qp),
            opcode: WrOpcode::WRITE,
            local_va: 0,
            lkey: Lkey::new(0),
            remote_va: u64::from(m) * u64::from(MESSAGE_BYTES),
            rkey: Rkey::new(7),
            length: MESSAGE_BYTES,
            imm: None,
            flag_slot: m % 1024,
            signaled: true,
        };
        requester.handle_host(t, HostCommand::PostWrite(wr)).expect("a valid work request");
    }
    [Endpoint::with_cpu(requester, NoCpu), Endpoint::with_cpu(responder, NoCpu)]
}

impl Loopback {
    /// The sending endpoint.
    pub fn requester(&mut self) -> &mut Host {
        &mut self.pair.eps[0]
    }

    /// The receiving endpoint.
    pub fn responder(&mut self) -> &mut Host {
        &mut self.pair.eps[1]
    }

    /// Runs the transfer to the end with packets as `Repr`s; returns the data packets
    /// placed.
    pub fn run(&mut self) -> u64 {
        self.drive()
    }

    /// [`Loopback::run`], also returning the scripts of the requester and the responder.
    pub fn run_recorded(&mut self) -> (u64, [Script; 2]) {
        self.pair.fabric.record = Some(Default::default());
        let placed = self.drive();
        (placed, self.pair.fabric.record.take().unwrap_or_default())
    }

    /// Runs the transfer to the end through frames (see the module documentation) over
    /// IPv4; returns the data packets placed. A frame that fails to build or to decode
    /// cleanly would be a bug, and is counted in the second number.
    pub fn run_frames(&mut self) -> (u64, u64) {
        let outer = |me: u8, peer: u8| Outer {
            eth: EthernetRepr {
                dst: EthernetAddress([2, 0, 0, 0, 0, peer]),
                src: EthernetAddress([2, 0, 0, 0, 0, me]),
                ethertype: EtherType::IPV4,
            },
            vlan: None,
            ip: IpRepr::V4(Ipv4Repr::new(
                Ipv4Addr::new(10, 0, 0, me),
                Ipv4Addr::new(10, 0, 0, peer),
                IP_PROTO_UDP,
            )),
        };
        self.pair.fabric.frames = Some(Box::new(Frames {
            writers: [FrameWriter::new(outer(1, 2)), FrameWriter::new(outer(2, 1))],
            memory: [vec![0x5A; MEMORY], vec![0xA5; MEMORY]],
            bad: 0,
        }));
        let placed = self.drive();
        let bad = self.pair.fabric.frames.take().map_or(0, |f| f.bad);
        (placed, bad)
    }

    /// Runs the pair until nothing is due; returns the data packets placed by this run.
    fn drive(&mut self) -> u64 {
        let before = self.pair.fabric.placed;
        let end = self.pair.run(Timestamp(u64::MAX), usize::MAX);
        // No CPU half, so no command a NIC could refuse.
        debug_assert_eq!(end, Ok(RunEnd::Idle));
        self.pair.fabric.placed - before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transfer_places_every_packet() {
        let mut l = Loopback::new(3);
        assert_eq!(l.run(), u64::from(3 * PACKETS_PER_MESSAGE));
        assert_eq!(l.requester().nic.pending_messages(), 0);
        assert_eq!(l.responder().nic.stats().messages_retired, 3);
    }

    /// Each half replayed alone ends where it ended in the recorded run, with the same
    /// counters.
    #[test]
    fn scripts_replay_each_half_exactly() {
        let mut l = Loopback::new(4);
        let (placed, [req, resp]) = l.run_recorded();
        assert_eq!(placed, u64::from(4 * PACKETS_PER_MESSAGE));
        assert!(!req.is_empty() && !resp.is_empty());
        let mut fresh = Loopback::new(4);
        req.replay(fresh.requester());
        resp.replay(fresh.responder());
        assert_eq!(fresh.requester().nic.stats(), l.requester().nic.stats());
        assert_eq!(fresh.responder().nic.stats(), l.responder().nic.stats());
        assert_eq!(fresh.requester().nic.pending_messages(), 0);
    }

    /// The writer's frames are the bytes of `to_frame` and `emit`, over IPv4 and IPv6, for
    /// every packet of a transfer, and decode back to the packet they came from.
    #[test]
    fn frame_writer_matches_to_frame() {
        use openrdma_codec::Ipv6Repr;
        let (_, scripts) = Loopback::new(1).run_recorded();
        let v4 = Outer {
            eth: EthernetRepr {
                dst: EthernetAddress([2, 0, 0, 0, 0, 2]),
                src: EthernetAddress([2, 0, 0, 0, 0, 1]),
                ethertype: EtherType::IPV4,
            },
            vlan: None,
            ip: IpRepr::V4(Ipv4Repr::new(
                Ipv4Addr::new(10, 0, 0, 1),
                Ipv4Addr::new(10, 0, 0, 2),
                IP_PROTO_UDP,
            )),
        };
        let v6 = Outer {
            eth: EthernetRepr { ethertype: EtherType::IPV6, ..v4.eth },
            ip: IpRepr::V6(Ipv6Repr::new(
                "fd00::1".parse().expect("an address"),
                "fd00::2".parse().expect("an address"),
                IP_PROTO_UDP,
            )),
            ..v4.clone()
        };
        let memory = |addr: u64, len: u32| -> Vec<u8> {
            (0..u64::from(len)).map(|i| (addr + i) as u8).collect()
        };
        let mut checked = 0;
        for outer in [v4, v6] {
            let mut w = FrameWriter::new(outer.clone());
            for step in scripts.iter().flat_map(|s| &s.steps) {
                let Step::Packet(_, ev, p) = step else { continue };
                let repr = p.to_frame(&outer, *ev, &mut |a, l| memory(a, l)).unwrap();
                let want = repr.to_bytes().unwrap();
                let got = w.write(p, *ev, &mut |a, l, out| out.extend(memory(a, l))).unwrap();
                assert_eq!(got, &want[..]);
                let d = decode(&want);
                let (back, back_ev) = Packet::from_decoded(&d).unwrap().unwrap();
                assert_eq!(back_ev, *ev);
                assert_eq!(back.bth(), p.bth());
                // A payload read from a frame is carried as bytes, and writes the same frame.
                let again = w.write(&back, back_ev, &mut |_, _, _| unreachable!()).unwrap();
                assert_eq!(again, &want[..]);
                checked += 1;
            }
        }
        assert!(checked > 2 * 64, "{checked} packets checked");
    }

    /// A fabric with one link each way, busy while it serializes a packet (100 ns), whose
    /// transmit buffer holds two packets: the pair waits at the hop (`Fate::Hop`) and
    /// holds the sender back (`Fabric::room`, `Fabric::wake`), and the transfer completes
    /// with the arrivals of each direction at least a serialization apart.
    #[test]
    fn a_busy_link_holds_packets_and_senders_back() {
        #[derive(Default)]
        struct Link {
            busy: [u64; 2],
            queued: [Vec<u64>; 2],
            held: u32,
            arrivals: [Vec<u64>; 2],
        }
        const SER: u64 = 100;
        impl Fabric for Link {
            fn fate(&mut self, now: Timestamp, from: usize, _: &Transmit) -> Fate {
                let end = now.0.max(self.busy[from]) + SER;
                self.busy[from] = end;
                self.queued[from].push(end);
                Fate::Hop { at: Timestamp(end), hop: from as u64 }
            }
            fn hop(&mut self, now: Timestamp, from: usize, hop: u64, t: &Transmit) -> Fate {
                assert_eq!(hop, from as u64);
                self.arrivals[1 - from].push(now.0);
                Fate::Deliver { at: Timestamp(now.0 + HOP_NS), ev: t.ev }
            }
            fn room(&mut self, now: Timestamp, from: usize) -> bool {
                self.queued[from].retain(|&end| end > now.0);
                let room = self.queued[from].len() < 2;
                self.held += u32::from(!room);
                room
            }
            fn wake(&self, from: usize) -> Option<Timestamp> {
                (self.queued[from].len() >= 2).then(|| Timestamp(self.queued[from][0]))
            }
        }
        let mut pair = Pair::new(endpoints(2), Link::default());
        assert_eq!(pair.run(Timestamp(u64::MAX), usize::MAX), Ok(RunEnd::Idle));
        let [req, resp] = &pair.eps;
        assert_eq!(req.nic.pending_messages(), 0);
        assert_eq!(resp.nic.stats().messages_retired, 2);
        let l = &pair.fabric;
        assert!(l.held > 0, "the sender was never held back");
        for a in &l.arrivals {
            assert!(a.windows(2).all(|w| w[1] >= w[0] + SER), "{a:?}");
        }
        assert_eq!(l.arrivals[1].len() as u64, u64::from(2 * PACKETS_PER_MESSAGE));
    }

    #[test]
    fn frames_carry_the_same_transfer() {
        let mut l = Loopback::new(2);
        assert_eq!(l.run_frames(), (u64::from(2 * PACKETS_PER_MESSAGE), 0));
        let mut r = Loopback::new(2);
        r.run();
        assert_eq!(l.requester().nic.stats(), r.requester().nic.stats());
        assert_eq!(l.responder().nic.stats(), r.responder().nic.stats());
    }
}
