//! The retirement-flag slot count of a receiving QP at its limits, through the public API.
//!
//! RET-FLAG-001.b (`spec/completion.md`) and FLAG-RECV-001.a (`spec/host-interface.md`):
//! a QP whose `recv_flag_slots` is not a power of two from 1 to 2^15 has no retirement
//! flags. 2^16 slots is outside that range: the 16-bit MSN would give messages m and
//! m + 2^16 the same slot and the same generation, so a waiter could not tell them apart.
//! `recv_flag_slots` is a u32 all the way, so 2^16 is not a u16 that wrapped to 0.

use openrdma_codec::host::{WorkRequest, WrOpcode};
use openrdma_codec::{Ev, Lkey, Psn, Qpn, Rkey};
use openrdma_sm::{
    DomainId, Endpoint, Fabric, Fate, FlagWrite, HostCommand, Nic, NicConfig, NicEvent, NoCpu,
    Pair, QpConfig, Region, RunEnd, Side, Timestamp, Transmit,
};

const RECV_FLAG_BASE: u64 = 0x10_0000;
const MESSAGES: u64 = 3;

/// Delivers each packet 1 µs after it leaves, and keeps the responder's flag writes.
#[derive(Default)]
struct Wire {
    flags: Vec<FlagWrite>,
}

impl Fabric for Wire {
    fn fate(&mut self, now: Timestamp, _from: usize, t: &Transmit) -> Fate {
        Fate::Deliver { at: Timestamp(now.0 + 1_000), ev: t.ev }
    }
    fn event(&mut self, _now: Timestamp, _k: usize, event: &NicEvent) {
        if let NicEvent::FlagWrite(f) = event {
            if f.side == Side::Responder {
                self.flags.push(*f);
            }
        }
    }
}

/// Sends `MESSAGES` writes from NIC 0 to NIC 1, whose QP has `slots` retirement-flag slots,
/// and returns the retirement flags NIC 1 wrote.
fn responder_flags(slots: u32) -> Vec<FlagWrite> {
    let t = Timestamp::ZERO;
    let mut nics =
        [Nic::new(NicConfig::default()).unwrap(), Nic::new(NicConfig::default()).unwrap()];
    for (k, nic) in nics.iter_mut().enumerate() {
        let (me, peer) = if k == 0 { (0x11, 0x12) } else { (0x12, 0x11) };
        let region = Region { rkey: Rkey::new(7), base: 0, len: 1 << 20, remote_write: true };
        nic.handle_host(t, HostCommand::RegisterRegion(region)).unwrap();
        let qp = QpConfig {
            qpn: Qpn::new(me),
            peer_qpn: Qpn::new(peer),
            initial_psn: Psn::new(0),
            peer_initial_psn: Psn::new(0),
            domain: DomainId::new(0),
            evs: (0..4).map(|e| Ev::from_halves(e, 0)).collect(),
            backup_evs: vec![],
            spray: Default::default(),
            cc: Default::default(),
            recv_flag_base: RECV_FLAG_BASE,
            recv_flag_slots: slots,
            send_flag_base: 0x2000,
            send_flag_slots: 16,
            send_cq: None,
            recv_cq: None,
        };
        // The model accepts any slot count: RET-FLAG-001.b defines what an out-of-range
        // one means, so it is not API misuse.
        nic.handle_host(t, HostCommand::CreateQp(qp)).unwrap();
    }
    for m in 0..MESSAGES {
        let wr = WorkRequest {
            wr_id: m,
            qpn: Qpn::new(0x11),
            opcode: WrOpcode::WRITE,
            local_va: 0,
            lkey: Lkey::new(0),
            remote_va: 0x8000 + m * 0x1000,
            rkey: Rkey::new(7),
            length: 256,
            imm: None,
            flag_slot: m as u32,
            signaled: false,
        };
        nics[0].handle_host(t, HostCommand::PostWrite(wr)).unwrap();
    }
    let [a, b] = nics;
    let eps = [Endpoint::with_cpu(a, NoCpu), Endpoint::with_cpu(b, NoCpu)];
    let mut pair = Pair::new(eps, Wire::default());
    assert_eq!(pair.run(Timestamp(1_000_000_000), 100_000).unwrap(), RunEnd::Idle);
    pair.fabric.flags
}

/// The slots the flags went to, relative to `recv_flag_base`.
fn slots_written(flags: &[FlagWrite]) -> Vec<u64> {
    flags.iter().map(|f| (f.addr - RECV_FLAG_BASE) / 8).collect()
}

/// FLAG-RECV-001.b, RET-FLAG-001.a: in-range slot counts, 256 and the largest, 2^15, give
/// one flag per message at slot `m mod slots`.
#[test]
fn in_range_slot_counts_write_one_flag_per_message() {
    for slots in [1u32, 256, 1 << 15] {
        let flags = responder_flags(slots);
        let want: Vec<u64> = (0..MESSAGES).map(|m| m % u64::from(slots)).collect();
        assert_eq!(slots_written(&flags), want, "{slots} slots");
        let msns: Vec<u16> = flags.iter().map(|f| f.msn.value()).collect();
        assert_eq!(msns, [0, 1, 2], "{slots} slots");
    }
}

/// RET-FLAG-001.b, FLAG-RECV-001.a: 2^16 slots is above the limit of 2^15, so the QP has
/// no retirement flags: its messages retire and write none. So do counts that are not a
/// power of two, and 0.
#[test]
fn out_of_range_slot_counts_have_no_retirement_flags() {
    for slots in [0u32, 3, 1 << 16, (1 << 15) + 1, 1 << 17, u32::MAX] {
        assert_eq!(responder_flags(slots), [], "{slots} slots");
    }
}
