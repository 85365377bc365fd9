//! Two reference NICs back to back, with no fabric between them: the workload on which the
//! model's own speed is measured (`cargo bench -p openrdma-sm`, the `model_loop` example,
//! `openrdma bench`).
//!
//! A requester NIC posts RDMA Writes of [`MESSAGE_BYTES`] bytes at a [`PMTU`] of 4 KiB to a
//! responder NIC over four EVs; [`Loopback::run`] carries every packet from one NIC to the
//! other at once, on a clock that advances 10 ns per round, until every message has
//! completed. The packets travel as the model's `Repr`s, so a run measures the state
//! machines alone: what a hardware pipeline does besides building, parsing and checksumming
//! frames. [`Loopback::run_frames`] runs the same transfer through the software edge of a
//! NIC instead: every packet is written as a frame with its ICRC ([`FrameWriter`]),
//! decoded and checked again, and its payload is read from the requester's memory and
//! written into the responder's.
//!
//! [`Loopback::run_recorded`] also returns, for each NIC, the [`Script`] of every call it
//! received. The model is deterministic, so replaying a script against a fresh NIC built by
//! [`Loopback::new`] repeats that NIC's half of the run exactly: that is how each half is
//! timed alone.
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

use openrdma_sm::Nic;
use openrdma_sm::{FrameWriter, Outer, Packet};
use openrdma_sm::{HostCommand, NicEvent, Region, Transmit};
use openrdma_sm::{NicConfig, QpConfig};

/// Path MTU of the transfer.
pub const PMTU: u32 = 4096;
/// Bytes per message.
pub const MESSAGE_BYTES: u32 = 256 * 1024;
/// Data packets per message.
pub const PACKETS_PER_MESSAGE: u32 = MESSAGE_BYTES / PMTU;
/// Bytes of each NIC's memory in [`Loopback::run_frames`]: addresses wrap within it.
const MEMORY: usize = MESSAGE_BYTES as usize;
/// Clock step of each round, ns.
const STEP_NS: u64 = 10;

/// The requester (QP 1) and the responder (QP 2), with the transfer posted.
#[derive(Debug)]
pub struct Loopback {
    /// The NIC that sends the data.
    pub requester: Nic,
    /// The NIC that receives it.
    pub responder: Nic,
}

/// One call a NIC received during a run, as [`Script::replay`] repeats it.
#[derive(Debug, Clone)]
enum Step {
    /// `poll_transmit` until it returns nothing.
    Transmit(Timestamp),
    /// `handle_packet`.
    Packet(Timestamp, Ev, Packet),
    /// `poll_event` until it returns nothing.
    Events,
    /// `poll_timeout`.
    PollTimeout,
    /// `handle_timeout`.
    Timeout(Timestamp),
}

/// Every call one NIC of a [`Loopback`] received, in order (see the module documentation).
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

    /// Makes the same calls on `nic`, which must be built as the recorded NIC was (by
    /// [`Loopback::new`] with the same number of messages). Returns the number of packets
    /// and events the NIC gave back, which is the recorded run's.
    pub fn replay(&self, nic: &mut Nic) -> u64 {
        let mut outputs = 0;
        for step in &self.steps {
            match step {
                Step::Transmit(t) => {
                    while let Some(tx) = nic.poll_transmit(*t) {
                        black_box(&tx);
                        outputs += 1;
                    }
                }
                Step::Packet(t, ev, p) => {
                    let _ = black_box(nic.handle_packet(*t, *ev, p));
                }
                Step::Events => {
                    while let Some(e) = nic.poll_event() {
                        black_box(&e);
                        outputs += 1;
                    }
                }
                Step::PollTimeout => {
                    black_box(nic.poll_timeout());
                }
                Step::Timeout(t) => {
                    let _ = black_box(nic.handle_timeout(*t));
                }
            }
        }
        outputs
    }
}

/// What carries packets between the NICs of [`Loopback::drive`].
trait Medium {
    /// Carries `tx` to `to`: the responder when `down`, else the requester.
    fn carry(&mut self, to: &mut Nic, now: Timestamp, tx: &Transmit, down: bool);
    /// Takes an event of the responder (`true`) or of the requester.
    fn event(&mut self, responder: bool, event: NicEvent);
    /// Notes a call made on the requester (`side` 0) or the responder (1).
    fn note(&mut self, _side: usize, _step: Step) {}
}

/// Packets as `Repr`s, optionally recorded.
#[derive(Default)]
struct Reprs {
    record: Option<[Script; 2]>,
}

impl Medium for Reprs {
    #[inline(always)]
    fn carry(&mut self, to: &mut Nic, now: Timestamp, tx: &Transmit, down: bool) {
        // A packet the NIC refuses is dropped: nothing here sends one.
        let _ = to.handle_packet(now, tx.ev, &tx.packet);
        if self.record.is_some() {
            self.note(usize::from(down), Step::Packet(now, tx.ev, tx.packet.clone()));
        }
    }

    #[inline(always)]
    fn event(&mut self, _responder: bool, event: NicEvent) {
        drop(event);
    }

    #[inline]
    fn note(&mut self, side: usize, step: Step) {
        if let Some(r) = &mut self.record {
            r[side].steps.push(step);
        }
    }
}

/// Packets as frames: written with their ICRC, decoded and checked, payload copied from and
/// into each NIC's memory.
struct Frames {
    writers: [FrameWriter; 2],
    memory: [Vec<u8>; 2],
    bad: u64,
}

impl Medium for Frames {
    fn carry(&mut self, to: &mut Nic, now: Timestamp, tx: &Transmit, down: bool) {
        let from = usize::from(!down);
        let mem = &self.memory[from];
        let mut fetch = |addr: u64, len: u32, out: &mut Vec<u8>| {
            let at = addr as usize % MEMORY;
            let end = (at + len as usize).min(MEMORY);
            out.extend_from_slice(&mem[at..end]);
        };
        let Ok(bytes) = self.writers[from].write(&tx.packet, tx.ev, &mut fetch) else {
            self.bad += 1;
            return;
        };
        match Packet::from_wire(&decode(bytes)) {
            Ok((packet, ev)) => {
                let _ = black_box(to.handle_packet(now, ev, &packet));
            }
            Err(_) => self.bad += 1,
        }
    }

    fn event(&mut self, responder: bool, event: NicEvent) {
        if let NicEvent::DmaWrite(w) = event {
            if let Payload::Bytes(b) = &w.payload {
                let mem = &mut self.memory[usize::from(responder)];
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
        let cfg = NicConfig { pmtu: PMTU, mpr: 4, ..NicConfig::default() };
        let mut requester = Nic::new(cfg.clone()).expect("a valid configuration");
        let mut responder = Nic::new(cfg).expect("a valid configuration");
        let t = Timestamp::ZERO;
        // Neither end is QPN 2, which endpoint operations keep (ERTH-QPN-001).
        let (req_qp, resp_qp) = (0x11, 0x12);
        for (nic, me, peer) in
            [(&mut requester, req_qp, resp_qp), (&mut responder, resp_qp, req_qp)]
        {
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
        Loopback { requester, responder }
    }

    /// Runs the transfer to the end with packets as `Repr`s; returns the data packets
    /// placed.
    pub fn run(&mut self) -> u64 {
        self.drive(&mut Reprs::default())
    }

    /// [`Loopback::run`], also returning the scripts of the requester and the responder.
    pub fn run_recorded(&mut self) -> (u64, [Script; 2]) {
        let mut m = Reprs { record: Some(Default::default()) };
        let placed = self.drive(&mut m);
        (placed, m.record.unwrap_or_default())
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
        let mut m = Frames {
            writers: [FrameWriter::new(outer(1, 2)), FrameWriter::new(outer(2, 1))],
            memory: [vec![0x5A; MEMORY], vec![0xA5; MEMORY]],
            bad: 0,
        };
        let placed = self.drive(&mut m);
        (placed, m.bad)
    }

    fn drive<M: Medium>(&mut self, m: &mut M) -> u64 {
        let (a, b) = (&mut self.requester, &mut self.responder);
        let mut now = 0u64;
        let mut placed = 0;
        loop {
            now += STEP_NS;
            let t = Timestamp(now);
            let mut idle = true;
            m.note(0, Step::Transmit(t));
            while let Some(tx) = a.poll_transmit(t) {
                idle = false;
                m.carry(b, t, &tx, true);
            }
            m.note(1, Step::Transmit(t));
            while let Some(tx) = b.poll_transmit(t) {
                idle = false;
                m.carry(a, t, &tx, false);
            }
            m.note(1, Step::Events);
            while let Some(ev) = b.poll_event() {
                if matches!(ev, NicEvent::DmaWrite(_)) {
                    placed += 1;
                }
                m.event(true, ev);
            }
            m.note(0, Step::Events);
            while let Some(ev) = a.poll_event() {
                m.event(false, ev);
            }
            if idle && a.pending_messages() == 0 {
                return placed;
            }
            if idle {
                m.note(0, Step::PollTimeout);
                m.note(1, Step::PollTimeout);
                if let Some(d) = a.poll_timeout().into_iter().chain(b.poll_timeout()).min() {
                    now = now.max(d.0);
                    m.note(0, Step::Timeout(Timestamp(now)));
                    m.note(1, Step::Timeout(Timestamp(now)));
                    let _ = a.handle_timeout(Timestamp(now));
                    let _ = b.handle_timeout(Timestamp(now));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transfer_places_every_packet() {
        let mut l = Loopback::new(3);
        assert_eq!(l.run(), u64::from(3 * PACKETS_PER_MESSAGE));
        assert_eq!(l.requester.pending_messages(), 0);
        assert_eq!(l.responder.stats().messages_retired, 3);
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
        req.replay(&mut fresh.requester);
        resp.replay(&mut fresh.responder);
        assert_eq!(fresh.requester.stats(), l.requester.stats());
        assert_eq!(fresh.responder.stats(), l.responder.stats());
        assert_eq!(fresh.requester.pending_messages(), 0);
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

    #[test]
    fn frames_carry_the_same_transfer() {
        let mut l = Loopback::new(2);
        assert_eq!(l.run_frames(), (u64::from(2 * PACKETS_PER_MESSAGE), 0));
        let mut r = Loopback::new(2);
        r.run();
        assert_eq!(l.requester.stats(), r.requester.stats());
        assert_eq!(l.responder.stats(), r.responder.stats());
    }
}
