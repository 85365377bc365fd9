#![allow(dead_code)] // each includer uses part of it
//! The transfer both the model benchmark and the instruction-count example run: a
//! requester NIC and a responder NIC connected back to back (no fabric, no ICRC, no
//! encoding), `MESSAGES` messages of `MSG` bytes at 4 KiB PMTU.

use std::hint::black_box;

use openrdma_codec::Qpn;
use openrdma_codec::host::{WorkRequest, WrOpcode};
use openrdma_sm::{HostCommand, Nic, NicConfig, NicEvent, QpConfig, Region, Timestamp};

/// Path MTU.
pub(crate) const PMTU: u32 = 4096;
/// Bytes per message.
pub(crate) const MSG: u32 = 256 * 1024;

/// Two connected NICs with `messages` messages posted on the requester.
pub(crate) fn pair(messages: u32) -> (Nic, Nic) {
    let cfg = NicConfig { pmtu: PMTU, mpr: 4, ..NicConfig::default() };
    let mut a = Nic::new(cfg.clone()).unwrap();
    let mut b = Nic::new(cfg).unwrap();
    let t = Timestamp::ZERO;
    for (nic, me, peer) in [(&mut a, 1, 2), (&mut b, 2, 1)] {
        nic.handle_host(
            t,
            HostCommand::RegisterRegion(Region {
                rkey: 7,
                base: 0,
                len: 1 << 40,
                remote_write: true,
            }),
        )
        .unwrap();
        nic.handle_host(
            t,
            HostCommand::CreateQp(QpConfig {
                qpn: Qpn::new(me),
                peer_qpn: Qpn::new(peer),
                initial_psn: 0,
                peer_initial_psn: 0,
                domain: 0,
                evs: (0..4).collect(),
                backup_evs: vec![],
                spray: Default::default(),
                cc: Default::default(),
                recv_flag_base: 0x1000,
                recv_flag_slots: 1024,
                send_flag_base: 0x2000,
                send_flag_slots: 1024,
            }),
        )
        .unwrap();
    }
    for m in 0..messages {
        let wr = WorkRequest {
            wr_id: u64::from(m),
            qpn: Qpn::new(1),
            opcode: WrOpcode::WRITE,
            local_va: 0,
            lkey: 0,
            remote_va: u64::from(m) * u64::from(MSG),
            rkey: 7,
            length: MSG,
            imm: None,
            flag_slot: m,
            signaled: true,
        };
        a.handle_host(t, HostCommand::PostWrite(wr)).unwrap();
    }
    (a, b)
}

/// Runs the transfer to completion; returns data packets delivered.
pub(crate) fn transfer(a: &mut Nic, b: &mut Nic) -> u64 {
    let mut now = 0u64;
    let mut placed = 0;
    loop {
        now += 10;
        let t = Timestamp(now);
        let mut idle = true;
        while let Some(tx) = a.poll_transmit(t) {
            idle = false;
            let _ = b.handle_packet(t, tx.ev, &tx.packet);
        }
        while let Some(tx) = b.poll_transmit(t) {
            idle = false;
            let _ = a.handle_packet(t, tx.ev, &tx.packet);
        }
        while let Some(ev) = b.poll_event() {
            if matches!(ev, NicEvent::DmaWrite(_)) {
                placed += 1;
            }
            black_box(ev);
        }
        while let Some(ev) = a.poll_event() {
            black_box(ev);
        }
        if idle && a.pending_messages() == 0 {
            return placed;
        }
        if idle {
            if let Some(d) = a.poll_timeout().into_iter().chain(b.poll_timeout()).min() {
                now = now.max(d.0);
                let _ = a.handle_timeout(Timestamp(now));
                let _ = b.handle_timeout(Timestamp(now));
            }
        }
    }
}
