//! Two NICs back to back, each with one region and one QP to the other over four EVs, for
//! the tests of the drive loop and of the pair driver. NIC 0 (QPN 0x11) writes to NIC 1
//! (QPN 0x12).

#![allow(dead_code, unreachable_pub)]

use openrdma_codec::host::{WorkRequest, WrOpcode};
use openrdma_codec::{Ev, Lkey, Psn, Qpn, Rkey};
use openrdma_sm::{DomainId, HostCommand, Nic, NicConfig, Packet, QpConfig, Region, Timestamp};

/// The QPN of NIC `k`.
pub fn qpn(k: usize) -> Qpn {
    Qpn::new(0x11 + k as u32)
}

/// NIC `k` of the two, with its region and its QP to the other.
pub fn nic(k: usize) -> Nic {
    nic_with(k, NicConfig::default())
}

/// [`nic`] with the configuration `cfg`.
pub fn nic_with(k: usize, cfg: NicConfig) -> Nic {
    let t = Timestamp::ZERO;
    let mut nic = Nic::new(cfg).expect("a valid configuration");
    let region = Region { rkey: Rkey::new(7), base: 0, len: 1 << 20, remote_write: true };
    nic.handle_host(t, HostCommand::RegisterRegion(region)).expect("a valid region");
    let qp = QpConfig {
        qpn: qpn(k),
        peer_qpn: qpn(1 - k),
        initial_psn: Psn::new(0),
        peer_initial_psn: Psn::new(0),
        domain: DomainId::new(0),
        evs: (0..4).map(|e| Ev::from_halves(e, 0)).collect(),
        backup_evs: vec![],
        spray: Default::default(),
        cc: Default::default(),
        recv_flag_base: 0x1000,
        recv_flag_slots: 16,
        send_flag_base: 0x2000,
        send_flag_slots: 16,
        send_cq: None,
        recv_cq: None,
    };
    nic.handle_host(t, HostCommand::CreateQp(qp)).expect("a valid QP");
    nic
}

/// Message `m` of `length` bytes from NIC 0 to NIC 1 (4 KiB a packet at the default PMTU).
pub fn write(m: u32, length: u32) -> HostCommand {
    HostCommand::PostWrite(WorkRequest {
        wr_id: u64::from(m),
        qpn: qpn(0),
        opcode: WrOpcode::WRITE,
        local_va: 0,
        lkey: Lkey::new(0),
        remote_va: 0x8000 + 0x4000 * u64::from(m),
        rkey: Rkey::new(7),
        length,
        imm: None,
        flag_slot: m,
        signaled: true,
    })
}

/// The PSN of a data packet, `None` for any other packet.
pub fn data_psn(p: &Packet) -> Option<u32> {
    matches!(p, Packet::Write(_)).then(|| p.psn().value())
}
