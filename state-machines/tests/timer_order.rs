//! A QP's timers (`Nic::poll_timeout`, `Nic::handle_timeout`): a deadline that comes
//! earlier than the one the QP already waits for fires at its own time.

mod back_to_back;

use back_to_back::{nic, nic_with, qpn, write};
use openrdma_codec::host::{WorkRequest, WrOpcode};
use openrdma_codec::{Lkey, Rkey};
use std::time::Duration;

use openrdma_sm::{HostCommand, Nic, NicConfig, Packet, Timestamp, Transmit};

/// Every packet `nic` has to send at `now`.
fn sent(nic: &mut Nic, now: Timestamp) -> Vec<Transmit> {
    std::iter::from_fn(|| nic.poll_transmit(now)).collect()
}

/// A write of two packets from NIC 1 back to NIC 0.
fn write_back() -> HostCommand {
    HostCommand::PostWrite(WorkRequest {
        wr_id: 9,
        qpn: qpn(1),
        opcode: WrOpcode::WRITE,
        local_va: 0,
        lkey: Lkey::new(0),
        remote_va: 0x8000,
        rkey: Rkey::new(7),
        length: 2 * 4096,
        imm: None,
        flag_slot: 0,
        signaled: true,
    })
}

/// NIC 0 has sent a write and will probe its tail if no acknowledgement comes (a later
/// deadline, SND-TAIL-001); then the
/// first packet of NIC 1's write arrives without AckReq, which makes a SACK due when its
/// coalescing timer runs out (RCV-SACK-004.b): sooner. The SACK leaves at that sooner time.
#[test]
fn an_earlier_deadline_fires_at_its_time() {
    let t = |ns| Timestamp(ns);
    let cfg = NicConfig { tail_probe: Some(Duration::from_micros(10)), ..NicConfig::default() };
    let (mut a, mut b) = (nic_with(0, cfg), nic(1));
    a.handle_host(t(0), write(0, 4096)).expect("a valid write");
    assert!(!sent(&mut a, t(0)).is_empty());
    let waiting = a.poll_timeout().expect("the sender waits to probe its tail");
    b.handle_host(t(0), write_back()).expect("a valid write");
    let from_b = sent(&mut b, t(0));
    let first = from_b.first().expect("the write's first packet");
    // Without AckReq, so that only the coalescing timer makes its SACK due.
    let mut packet = first.packet.clone();
    let Packet::Write(w) = &mut packet else { panic!("a write: {packet:?}") };
    w.bth.ack_req = false;
    a.handle_packet(t(100), first.ev, &packet).expect("a packet of the other NIC");
    assert!(sent(&mut a, t(100)).is_empty(), "no SACK at once");
    let due = a.poll_timeout().expect("a SACK is due");
    assert!(due < waiting, "the SACK's deadline {due:?} comes before {waiting:?}");
    a.handle_timeout(due).expect("time goes forward");
    let out = sent(&mut a, due);
    assert!(
        out.iter().any(|x| matches!(x.packet, Packet::Sack { .. })),
        "no SACK at {due:?}: {out:?}"
    );
}
