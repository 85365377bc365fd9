//! Scripted tests of the reference model, one requirement at a time: each test drives one
//! [`openrdma_sm::Nic`] with hand-built packets, host and CPU commands, and checks its exact
//! outputs (packetdrill's way). The requirement a test checks is named in its doc comment.

mod script;

use core::time::Duration;

use openrdma_codec::host::{
    CompletionRepr, CompletionStatus, DoorbellReject, DoorbellToken, FlagRepr, LengthBound,
    Template, WrOpcode,
};
use openrdma_codec::{AethRepr, Ev, Msn, NackReason, Opcode, Psn, Qpn, Rkey, Rqmsn, TemplateId};
use openrdma_sm::{
    CpuCommand, DoorbellRejected, DoorbellWrite, EvMark, EvState, HostCommand, HostError,
    NicConfig, NicReport, Packet, Payload, PeerViolation, QpConfig, RecoveryAgent, RecoveryConfig,
    RetirementMode, RetransmitCause, SendWindow, Side, SprayPolicy, Timestamp,
};
use script::*;

const FIRST: Opcode = Opcode::MRC_WRITE_FIRST;
const MIDDLE: Opcode = Opcode::MRC_WRITE_MIDDLE;
const LAST: Opcode = Opcode::MRC_WRITE_LAST;
const ONLY: Opcode = Opcode::MRC_WRITE_ONLY;
const ONLY_IMM: Opcode = Opcode::MRC_WRITE_ONLY_IMM;
const LAST_IMM: Opcode = Opcode::MRC_WRITE_LAST_IMM;

fn lqp() -> Qpn {
    Qpn::new(LQP)
}

/// Address of packet `i` of a message placed at `REGION_BASE + off`.
fn va(off: u64, i: u32) -> u64 {
    REGION_BASE + off + u64::from(i) * u64::from(PMTU)
}

// =========================================================================================
// Receiver
// =========================================================================================

/// RCV-PLACE-003, RCV-SACK-005, RET-ORDER-001, RCV-ACK-001: an in-order three-packet message
/// is placed packet by packet; the LAST packet (AckReq) retires the message — flag after the
/// data — and is answered by a transport ACK and a SACK.
#[test]
fn rcv_place_001_in_order_message_placed_and_sacked_on_ack_req() {
    let mut s = Script::receiver();
    let total = 2 * PMTU + 500;
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(total));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_nothing();
    s.advance(10);
    s.accept(write(1, 0, MIDDLE, va(0, 1), PMTU).dma_len(total));
    s.expect_dma(va(0, 1), PMTU);
    s.expect_nothing();
    s.advance(10);
    s.accept(write(2, 0, LAST, va(0, 2), 500).dma_len(total).ack_req());
    s.expect_dma(va(0, 2), 500);
    s.expect_flag_len(0, total);
    s.expect_ack(0);
    let (ev, seth, cc) = s.expect_sack(2, 0);
    assert_eq!(ev, IN_EV, "RCV-SACK-005: the SACK goes back on the EV of the packet");
    assert_eq!(seth.entropy, IN_EV, "RCV-SACK-005: SETH.entropy reflects the packet's EV");
    assert_eq!(seth.mpr, 1, "RCV-SACK-005: the configured MPR is advertised");
    assert!(!seth.pr);
    assert_eq!(cc.ooo_count, 0);
    assert_eq!(cc.rcvd_bytes, total >> 8, "CCS-BYTES-001: rcvd_bytes in units of 256");
    s.expect_nothing();
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(3)));
}

/// RCV-SACK-005 (the MRC worked example): PSNs 0..=11 of one message with 5 and 8 missing
/// give cack_psn 4, sack_offset 1 and bitmap 0b1110110 (bit i = PSN 5 + i). RCV-SACK-002:
/// in order, one SACK per `sack_coalesce` (4) packets; every packet that arrives beyond a
/// hole is SACKed at once.
#[test]
fn rcv_sack_005_mrc_worked_example() {
    let mut s = Script::receiver();
    let total = 12 * PMTU;
    let op = |p: u32| match p {
        0 => FIRST,
        11 => LAST,
        _ => MIDDLE,
    };
    let mut expected_sacks = vec![(3, 3u32, 0u64), (6, 4, 0b10), (7, 4, 0b110)];
    expected_sacks.extend([(9, 4, 0b1_0110), (10, 4, 0b11_0110), (11, 4, 0b111_0110)]);
    for p in (0..12).filter(|p| *p != 5 && *p != 8) {
        s.advance(10);
        s.accept(write(p, 0, op(p), va(0, p), PMTU).dma_len(total));
        s.expect_dma(va(0, p), PMTU);
        match expected_sacks.iter().find(|e| e.0 == p) {
            Some(&(_, cack, bitmap)) => {
                s.expect_sack(cack, bitmap);
            }
            None => s.expect_no_tx(),
        }
        s.expect_nothing();
    }
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(5)));
    assert_eq!(s.nic.stats().out_of_order, 5);

    // Filling 5 moves the cumulative point to 8; filling 8 completes the message.
    s.advance(10);
    s.accept(write(5, 0, MIDDLE, va(0, 5), PMTU).dma_len(total));
    s.expect_dma(va(0, 5), PMTU);
    // It moved the cumulative point by three: SACKed at once (RCV-SACK-001).
    s.expect_sack(7, 0b1110);
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(8)));
    s.advance(10);
    s.accept(write(8, 0, MIDDLE, va(0, 8), PMTU).dma_len(total).ack_req());
    s.expect_dma(va(0, 8), PMTU);
    s.expect_flag_len(0, total);
    s.expect_ack(0);
    s.expect_sack(11, 0);
    s.expect_nothing();
}

/// RCV-WIN-002 (and the in-window rule of `RCV-WIN-*`): with the window W = 128 and epsn 1000, PSN epsn + W − 1 is
/// accepted and PSN epsn + W is answered with NACK PSN_OOR_WINDOW naming it, refused as
/// `OutOfWindow` and changes nothing: epsn stays, the packet is not placed, and the packet
/// at epsn is accepted afterwards.
#[test]
fn rcv_win_002_window_edges() {
    let mut s = Script::with(config(), 0, 1000);
    // The last PSN inside the window: accepted (out of order, so SACKed at once; the bitmap
    // reports only its first 64 PSNs).
    s.accept(write(1127, 1, ONLY, va(0x1000, 0), 100));
    s.expect_dma(va(0x1000, 0), 100);
    s.expect_sack(999, 0);
    s.expect_nothing();

    s.advance(10);
    let r = s.inject(write(1128, 2, ONLY, va(0x2000, 0), 100).ev(Ev::new(0x55)));
    let v = s.violation(r.clone(), "RCV-WIN-002");
    assert_eq!(
        v,
        PeerViolation::OutOfWindow {
            qpn: lqp(),
            psn: Psn::new(1128),
            epsn: Psn::new(1000),
            window: 128
        }
    );
    assert_eq!(r.map_err(|e| e.requirement()), Err("RCV-WIN-002"));
    let neth = s.expect_nack(1128, NackReason::PSN_OOR_WINDOW);
    assert_eq!(neth.entropy, Ev::new(0x55), "the NACK reflects the EV of the refused packet");
    s.expect_nothing();
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(1000)), "state unchanged");

    // A later valid packet still works.
    s.advance(10);
    s.accept(write(1000, 0, ONLY, va(0, 0), 64).ack_req());
    s.expect_dma(va(0, 0), 64);
    s.expect_flag_len(0, 64);
    // MSN 1 (PSN 1127) completed earlier and retires right behind MSN 0.
    s.expect_flag_len(1, 100);
    s.expect_ack(1);
    s.expect_sack(1000, 0);
    s.expect_nothing();
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(1001)));
}

/// RCV-DUP-001: a duplicate (behind epsn, or already marked in the bitmap) is not placed
/// and is SACKed at once, whatever the coalescing. RCV-DUP-002: a duplicate of a message
/// that already retired also repeats the transport ACK.
#[test]
fn rcv_dup_001_duplicates_before_and_after_retirement() {
    let mut s = Script::receiver();
    let total = PMTU + 10;
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(total));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_nothing();

    // Behind epsn, message not retired: SACK, no placement, no ACK.
    s.advance(10);
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(total).rtx());
    s.expect_sack(0, 0);
    s.expect_nothing();

    // Out of order, then the same PSN again: its bit is set, so it is a duplicate too.
    s.advance(10);
    s.accept(write(3, 1, ONLY, va(0x8000, 0), 8));
    s.expect_dma(va(0x8000, 0), 8);
    s.expect_sack(0, 0b100);
    s.advance(10);
    s.accept(write(3, 1, ONLY, va(0x8000, 0), 8));
    s.expect_sack(0, 0b100);
    s.expect_nothing();

    // The LAST packet retires MSN 0.
    s.advance(10);
    s.accept(write(1, 0, LAST, va(0, 1), 10).dma_len(total));
    s.expect_dma(va(0, 1), 10);
    s.expect_flag_len(0, total);
    // MSN 1 (PSN 3) was complete already and retires right behind.
    s.expect_flag_len(1, 8);
    s.expect_ack(1);
    s.expect_nothing();

    // A late copy of a packet of the retired message: SACK and the transport ACK again,
    // never a DMA write after the flag (`FLAG-LAST-*`).
    s.advance(10);
    s.accept(write(1, 0, LAST, va(0, 1), 10).dma_len(total).rtx());
    s.expect_sack(1, 0b10);
    s.expect_ack(1);
    s.expect_nothing();
    assert_eq!(s.nic.stats().duplicates, 3);
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(2)));
}

/// RCV-SACK-002: without AckReq, in-order packets are SACKed once per `sack_coalesce` (4).
#[test]
fn rcv_sack_002_coalescing_one_sack_per_four_packets() {
    let mut s = Script::receiver();
    let total = 20 * PMTU;
    for p in 0..8u32 {
        s.advance(10);
        let op = if p == 0 { FIRST } else { MIDDLE };
        let r = s.inject_write(p, 0, op, va(0, p), PMTU, total);
        s.ok(r);
        s.expect_dma(va(0, p), PMTU);
        if p % 4 == 3 {
            s.expect_sack(p, 0);
        }
        s.expect_nothing();
    }
    assert_eq!(s.nic.stats().sacks_sent, 2);
}

/// RCV-SACK-004: a packet that is not SACKed at once arms the SACK timer: poll_timeout()
/// gives arrival + sack_delay, nothing is sent before, and the SACK goes at that time.
#[test]
fn rcv_sack_004_sack_timer() {
    let mut s = Script::receiver();
    s.at(5_000);
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(4 * PMTU));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_nothing();
    let delay = config().sack_delay.as_nanos() as u64;
    assert_eq!(s.next_timeout(), Some(Timestamp(5_000 + delay)));
    s.at(5_000 + delay - 1);
    s.timeout();
    s.expect_nothing();
    s.at(5_000 + delay);
    s.timeout();
    s.expect_sack(0, 0);
    s.expect_nothing();
    assert_eq!(s.next_timeout(), None, "nothing left unacknowledged");
}

/// RCV-SACK-004 (the "last packet out of order" deadlock of a peer simulator): the
/// packet carrying AckReq arrives first and the hole behind it is filled by a packet
/// without AckReq. The filling packet is SACKed at once (RCV-SACK-001: it moves the
/// cumulative point by more than one), so the sender learns of the whole message without
/// waiting for a timer.
#[test]
fn rcv_sack_004_last_packet_out_of_order_cannot_stall() {
    let mut s = Script::receiver();
    let total = PMTU + 100;
    s.at(1_000);
    s.accept(write(1, 0, LAST, va(0, 1), 100).dma_len(total).ack_req());
    s.expect_dma(va(0, 1), 100);
    s.expect_sack(u32::MAX >> 8, 0b10);
    s.expect_nothing();
    s.at(1_100);
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(total));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_flag_len(0, total);
    s.expect_ack(0);
    s.expect_sack(1, 0);
    s.expect_nothing();
    assert_eq!(s.next_timeout(), None, "nothing left unacknowledged");
}

/// RCV-SACK-004: a packet that neither asks for an acknowledgement nor arrives out of
/// order, with fewer than `sack_coalesce` waiting, is acknowledged by the SACK timer
/// `sack_delay` later, so that a lost SACK or a quiet sender cannot stall the connection.
#[test]
fn rcv_sack_004_timer_acknowledges_a_quiet_tail() {
    let mut s = Script::receiver();
    let total = 2 * PMTU;
    s.at(2_000);
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(total));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_nothing();
    let delay = config().sack_delay.as_nanos() as u64;
    let t = s.next_timeout().unwrap_or_else(|| s.fail("no SACK timer armed"));
    assert_eq!(t.0, 2_000 + delay);
    s.at(t.0);
    s.timeout();
    s.expect_sack(0, 0);
    s.expect_nothing();
}

/// RCV-ACK-001: with `ack_coalesce` 2 a single retirement is not ACKed at once; the SACK
/// timer carries the transport ACK.
#[test]
fn rcv_ack_001_transport_ack_rides_the_sack_timer() {
    let mut s = Script::with(NicConfig { ack_coalesce: 2, ..config() }, 0, 0);
    s.accept(write(0, 0, ONLY, va(0, 0), 10));
    s.expect_dma(va(0, 0), 10);
    s.expect_flag_len(0, 10);
    s.expect_nothing();
    let t = s.next_timeout().unwrap_or_else(|| s.fail("no timer armed"));
    s.at(t.0);
    s.timeout();
    s.expect_sack(0, 0);
    s.expect_ack(0);
    s.expect_nothing();
}

/// RCV-SACK-008, RCV-ACK-001: a SACK sent at once does not cancel a transport ACK held back
/// by coalescing. With `ack_coalesce` 4 and a SACK on every write, each retirement holds its
/// ACK back, and the SACK of the next write leaves the timer running: the ACK goes out
/// `sack_delay` after the first retirement, never waiting for a duplicate.
#[test]
fn rcv_sack_008_a_sack_does_not_cancel_a_held_back_ack() {
    let cfg = NicConfig { ack_coalesce: 4, sack_coalesce: 1, ..config() };
    let delay = cfg.sack_delay.as_nanos() as u64;
    let mut s = Script::with(cfg, 0, 0);
    s.accept(write(0, 0, ONLY, va(0, 0), 10));
    s.expect_dma(va(0, 0), 10);
    s.expect_flag_len(0, 10);
    s.expect_sack(0, 0);
    s.expect_nothing();
    let due = s.next_timeout().unwrap_or_else(|| s.fail("the held-back ACK has no timer"));
    assert_eq!(due.0, s.now.0 + delay, "sack_delay after the retirement");
    s.advance(100);
    s.accept(write(1, 1, ONLY, va(0, 1), 10));
    s.expect_dma(va(0, 1), 10);
    s.expect_flag_len(1, 10);
    s.expect_sack(1, 0);
    s.expect_nothing();
    assert_eq!(s.next_timeout(), Some(due), "the SACK left the timer running");
    s.at(due.0);
    s.timeout();
    s.expect_ack(1);
    s.expect_nothing();
    assert_eq!(s.next_timeout(), None, "nothing more is owed");
}

/// `RCV-WIN-*` at the PSN wrap: epsn 2^24 − 2, a three-packet message over the wrap,
/// PSN 0 (LAST, AckReq) first.
#[test]
fn rcv_win_psn_wraps_at_two_to_the_24() {
    let top = (1u32 << 24) - 2;
    let mut s = Script::with(config(), 0, top);
    let total = 2 * PMTU + 7;
    s.accept(write(top, 0, FIRST, va(0, 0), PMTU).dma_len(total));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_nothing();
    s.advance(10);
    s.accept(write(0, 0, LAST, va(0, 2), 7).dma_len(total).ack_req());
    s.expect_dma(va(0, 2), 7);
    s.expect_sack(top, 0b10);
    s.expect_nothing();
    s.advance(10);
    s.accept(write(top + 1, 0, MIDDLE, va(0, 1), PMTU).dma_len(total));
    s.expect_dma(va(0, 1), PMTU);
    s.expect_flag_len(0, total);
    s.expect_ack(0);
    // Filling the hole moved the cumulative point across the wrap: SACKed at once.
    s.expect_sack(0, 0);
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(1)));
    s.expect_nothing();
}

/// OPC-PSN-002.b: the BTH `psn` of a transport ACK is the PSN of the last packet of the
/// message it acknowledges, not `epsn - 1`, when a later message's packet arrived first; a
/// NAK before any retirement carries the PSN before the QP's first.
#[test]
fn opc_psn_002_ack_psn_is_the_last_psn_of_the_message() {
    let mut s = Script::with(config(), 0, 100);
    let v = s.refuse(write(100, 0, ONLY, va(0, 0), 16).rkey(Rkey::new(0x1234)), "RCV-PLACE-002");
    assert!(matches!(v, PeerViolation::RemoteAccess { .. }), "{v:?}");
    let nak = s.expect_aeth_bth(AethRepr::NAK_REMOTE_ACCESS, 0xFFFF);
    assert_eq!(nak.psn, Psn::new(99), "a NAK before any retirement");
    s.expect_nothing();
    let total = PMTU + 40;
    s.advance(10);
    s.accept(write(100, 0, FIRST, va(0, 0), PMTU).dma_len(total));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_nothing();
    s.advance(10);
    s.accept(write(102, 1, FIRST, va(0x8000, 0), PMTU).dma_len(total));
    s.expect_dma(va(0x8000, 0), PMTU);
    s.expect_sack(100, 0b10);
    s.expect_nothing();
    s.advance(10);
    s.accept(write(101, 0, LAST, va(0, 1), 40).dma_len(total));
    s.expect_dma(va(0, 1), 40);
    s.expect_flag_len(0, total);
    let ack = s.expect_aeth_bth(AethRepr::ACK_UNLIMITED_CREDIT, 0);
    assert_eq!(ack.psn, Psn::new(101), "the last PSN of MSN 0, not epsn - 1 (102)");
    s.expect_sack(102, 0);
    s.expect_nothing();
    s.advance(10);
    s.accept(write(103, 1, LAST, va(0x8000, 1), 40).dma_len(total));
    s.expect_dma(va(0x8000, 1), 40);
    s.expect_flag_len(1, total);
    let ack = s.expect_aeth_bth(AethRepr::ACK_UNLIMITED_CREDIT, 1);
    assert_eq!(ack.psn, Psn::new(103), "the last PSN of MSN 1");
    s.expect_nothing();
}

/// RCV-SEG-001: a payload longer than the PMTU is refused and changes nothing.
#[test]
fn rcv_seg_001_payload_longer_than_pmtu() {
    let mut s = Script::receiver();
    let v = s.refuse(write(0, 0, ONLY, va(0, 0), PMTU + 1).ack_req(), "RCV-SEG-001");
    assert_eq!(v, PeerViolation::PayloadTooLong { qpn: lqp(), len: PMTU + 1, pmtu: PMTU });
    s.expect_nothing();
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(0)));
    s.accept(write(0, 0, ONLY, va(0, 0), PMTU));
    s.expect_dma(va(0, 0), PMTU);
}

/// RCV-SEG-002: FIRST (or MIDDLE) must carry exactly one PMTU.
#[test]
fn rcv_seg_002_first_shorter_than_pmtu() {
    let mut s = Script::receiver();
    let v =
        s.refuse(write(0, 0, FIRST, va(0, 0), PMTU - 4).dma_len(3 * PMTU).ack_req(), "RCV-SEG-002");
    assert_eq!(
        v,
        PeerViolation::SegmentLength { qpn: lqp(), opcode: FIRST, len: PMTU - 4, pmtu: PMTU }
    );
    s.expect_nothing();
    s.refuse(write(0, 0, MIDDLE, va(0, 0), 0).dma_len(3 * PMTU), "RCV-SEG-002");
    s.expect_nothing();
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(0)));
}

/// RCV-PLACE-002: an unknown rkey, a range outside the region (before it, across its end),
/// or a region without remote-write access: refused as `RemoteAccess`, answered by AETH NAK
/// remote access error (0x62), not placed, not SACKed, epsn unchanged; the same PSN with a
/// good key is then accepted.
#[test]
fn rcv_place_002_remote_access_errors() {
    let mut s = Script::receiver();
    let cases = [
        ("unknown rkey", write(0, 0, ONLY, va(0, 0), 16).rkey(Rkey::new(0x1234))),
        ("before the region", write(0, 0, ONLY, REGION_BASE - 8, 16)),
        ("across the end", write(0, 0, ONLY, REGION_BASE + REGION_LEN - 8, 16)),
        ("read-only region", write(0, 0, ONLY, RO_BASE, 16).rkey(RKEY_RO)),
    ];
    for (what, w) in cases {
        s.advance(10);
        let (rkey, wva) = (w.pkt.reth.rkey, w.pkt.reth.va);
        let v = s.refuse(w.ack_req(), "RCV-PLACE-002");
        assert_eq!(v, PeerViolation::RemoteAccess { qpn: lqp(), rkey, va: wva, len: 16 }, "{what}");
        s.expect_nak(AethRepr::NAK_REMOTE_ACCESS);
        s.expect_nothing();
        assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(0)), "{what}: state unchanged");
    }
    // The last byte of the region is writable.
    s.accept(write(0, 0, ONLY, REGION_BASE + REGION_LEN - 16, 16).ack_req());
    s.expect_dma(REGION_BASE + REGION_LEN - 16, 16);
    s.expect_flag_len(0, 16);
    s.expect_ack(0);
    s.expect_sack(0, 0);
    s.expect_nothing();
}

/// FLAG-LAST-002: a packet with a new PSN for a message whose flag is written is dropped
/// as `AfterRetirement`: no DMA write after the flag.
#[test]
fn flag_last_002_new_psn_for_retired_message() {
    let mut s = Script::receiver();
    s.accept(write(0, 0, ONLY, va(0, 0), 32).ack_req());
    s.expect_dma(va(0, 0), 32);
    s.expect_flag_len(0, 32);
    s.expect_ack(0);
    s.expect_sack(0, 0);
    s.advance(10);
    let v = s.refuse(write(1, 0, ONLY, va(0, 0), 32).ack_req(), "FLAG-LAST-002");
    assert_eq!(
        v,
        PeerViolation::AfterRetirement { qpn: lqp(), psn: Psn::new(1), msn: Msn::new(0) }
    );
    s.expect_no_events();
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(1)));
}

/// RCV-MSG-001: packets of one message that disagree on RETH.dma_len, or carry more
/// payload than it, are refused and change nothing.
#[test]
fn rcv_msg_001_message_inconsistencies() {
    let mut s = Script::receiver();
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(3000));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_nothing();

    let v = s.refuse(write(1, 0, MIDDLE, va(0, 1), PMTU).dma_len(4000), "RCV-MSG-001");
    assert!(matches!(v, PeerViolation::MessageMismatch { msn: Msn::ZERO, .. }), "{v:?}");
    s.expect_nothing();

    // 1024 placed + 1024 + 1024 > 3000.
    s.accept(write(1, 0, MIDDLE, va(0, 1), PMTU).dma_len(3000));
    s.expect_dma(va(0, 1), PMTU);
    s.refuse(write(2, 0, LAST, va(0, 2), PMTU).dma_len(3000), "RCV-MSG-001");
    s.expect_nothing();

    // A single packet longer than its own message.
    s.refuse(write(5, 1, ONLY, va(0x8000, 0), 100).dma_len(50), "RCV-MSG-001");
    s.expect_nothing();
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(2)));

    // The right LAST completes the message.
    s.accept(write(2, 0, LAST, va(0, 2), 3000 - 2 * PMTU).dma_len(3000).ack_req());
    s.expect_dma(va(0, 2), 3000 - 2 * PMTU);
    s.expect_flag_len(0, 3000);
}

/// RCV-MSG-002: an MSN too far beyond the retirement pointer is refused.
#[test]
fn rcv_msg_002_msn_far_beyond() {
    let mut s = Script::receiver();
    let v = s.refuse(write(0, 5000, ONLY, va(0, 0), 16).ack_req(), "RCV-MSG-002");
    assert_eq!(
        v,
        PeerViolation::MsnBeyondWindow { qpn: lqp(), msn: Msn::new(5000), next: Msn::new(0) }
    );
    s.expect_nothing();
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(0)));
}

/// CQE-RECV-001: two Write-with-Immediate messages arriving in reverse order
/// give their receive completions in MSN (RQMSN) order, each after its data.
#[test]
fn cqe_recv_001_immediates_delivered_in_order() {
    let mut s = Script::receiver();
    s.accept(write(1, 1, ONLY_IMM, va(0x1000, 0), 20).imm(0xBBBB).rqmsn(2));
    s.expect_dma(va(0x1000, 0), 20);
    s.expect_sack(u32::MAX >> 8, 0b10);
    s.expect_nothing();

    s.advance(10);
    s.accept(write(0, 0, ONLY_IMM, va(0, 0), 10).imm(0xAAAA).rqmsn(1));
    s.expect_dma(va(0, 0), 10);
    let c = s.expect_completion(Side::Responder, Default::default());
    assert_eq!(
        (c.imm, c.msn.value(), c.byte_len, c.is_receive, c.has_imm),
        (0xAAAA, 0, 10, true, true)
    );
    s.expect_flag_len(0, 10);
    let c = s.expect_completion(Side::Responder, Default::default());
    assert_eq!((c.imm, c.msn.value(), c.byte_len), (0xBBBB, 1, 20));
    s.expect_flag_len(1, 20);
    s.expect_ack(1);
    s.expect_no_events();
}

/// WWI-LIMIT-002: with `wwi_limit` 4, RQMSN 4 beyond the last delivered immediate is
/// accepted, RQMSN 5 is fatal: NACK UNEXP_EVENT and the QP goes to error.
#[test]
fn wwi_limit_002_rqmsn_beyond_limit_is_fatal() {
    let cfg = NicConfig { wwi_limit: 4, ..config() };
    let mut s = Script::with(cfg, 0, 0);
    s.accept(write(1, 1, ONLY_IMM, va(0, 1), 8).imm(1).rqmsn(4));
    s.expect_dma(va(0, 1), 8);
    s.expect_sack(u32::MAX >> 8, 0b10);
    s.expect_nothing();

    let v = s.refuse(write(2, 2, ONLY_IMM, va(0, 2), 8).imm(2).rqmsn(5), "WWI-LIMIT-002");
    assert_eq!(v, PeerViolation::WwiLimit { qpn: lqp(), rqmsn: Rqmsn::new(5), limit: 4 });
    s.expect_nack(2, NackReason::UNEXP_EVENT);
    s.expect_no_events();
    s.expect_report(NicReport::QpError { qpn: lqp(), requirement: "WWI-LIMIT-002".into() });
    assert_eq!(s.nic.qp_in_error(lqp()), Some(true));
    s.refuse(write(0, 0, ONLY, va(0, 0), 8), "RCV-QP-002");
    s.expect_nothing();
}

/// RCV-QP-001: a packet for a QP that does not exist is refused; nothing is sent.
#[test]
fn rcv_qp_001_unknown_qp() {
    let mut s = Script::receiver();
    let v = s.refuse(write(0, 0, ONLY, va(0, 0), 8).dest(0x99).ack_req(), "RCV-QP-001");
    assert_eq!(v, PeerViolation::UnknownQp { qpn: Qpn::new(0x99) });
    s.expect_nothing();
}

// =========================================================================================
// Retirement
// =========================================================================================

/// A script with QPs [`LQP`] and [`LQP_B`] in retirement domain 0.
fn two_qps(mode: RetirementMode) -> Script {
    let mut s = Script::with(NicConfig { retirement: mode, ..config() }, 0, 0);
    let r = s.host(HostCommand::CreateQp(qp_config(LQP_B, PEER_B, 0, 0)));
    assert!(r.is_ok(), "{r:?}");
    s
}

/// RET-ORDER-001 (shared retirement): QP A's message MSN 0 is incomplete, so QP B's
/// complete message MSN 1 waits; when A's message completes both retire, A's first,
/// each flag at its QP's ring (FLAG-RECV-001/002) and each QP ACKs its own message.
#[test]
fn ret_order_001_shared_domain_blocks_across_qps() {
    let mut s = two_qps(RetirementMode::Shared);
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(PMTU + 40));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_nothing();

    s.advance(10);
    s.accept(write(0, 1, ONLY, va(0x8000, 0), 24).dest(LQP_B).ack_req());
    s.expect_dma(va(0x8000, 0), 24);
    s.expect_no_events();
    let t = s.take_tx();
    assert_eq!(t.len(), 1, "only B's SACK: {t:?}");
    assert!(matches!(&t[0].packet, Packet::Sack { bth, .. } if bth.dest_qp == Qpn::new(PEER_B)));

    s.advance(10);
    s.accept(write(1, 0, LAST, va(0, 1), 40).dma_len(PMTU + 40).ack_req());
    s.expect_dma(va(0, 1), 40);
    s.expect_flag_on(LQP, RECV_FLAG_BASE, 0, PMTU + 40);
    s.expect_flag_on(LQP_B, RECV_FLAG_BASE_B, 1, 24);
    s.expect_ack_to(PEER, 0);
    s.expect_ack_to(PEER_B, 1);
    s.expect_sack(1, 0);
    s.expect_nothing();
}

/// RET-ORDER-001 (per-QP retirement): QP B's message does not wait for QP A's.
#[test]
fn ret_order_001_per_qp_domain_does_not_block() {
    let mut s = two_qps(RetirementMode::PerQp);
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(PMTU + 40));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_nothing();

    s.advance(10);
    s.accept(write(0, 0, ONLY, va(0x8000, 0), 24).dest(LQP_B).ack_req());
    s.expect_dma(va(0x8000, 0), 24);
    s.expect_flag_on(LQP_B, RECV_FLAG_BASE_B, 0, 24);
    s.expect_ack_to(PEER_B, 0);
    s.expect_sack(0, 0);
    s.expect_nothing();
}

/// FLAG-RECV-003 / RET-ORDER-001: a message whose packets arrive in reverse order gets
/// its flag only after its last DMA write.
#[test]
fn flag_recv_003_flag_after_every_dma_write_of_its_message() {
    let mut s = Script::receiver();
    let total = 2 * PMTU + 3;
    s.accept(write(2, 0, LAST, va(0, 2), 3).dma_len(total));
    s.accept(write(1, 0, MIDDLE, va(0, 1), PMTU).dma_len(total));
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(total));
    s.expect_dma(va(0, 2), 3);
    s.expect_dma(va(0, 1), PMTU);
    s.expect_dma(va(0, 0), PMTU);
    let f = s.expect_flag(0);
    assert_eq!(f, FlagRepr::retired(Msn::new(0), total), "FLAG-RECV-002: value");
    s.expect_no_events();
}

// =========================================================================================
// Sender
// =========================================================================================

/// SND-SEG-001: a message of 3.5 PMTU goes as FIRST, MIDDLE, MIDDLE, LAST on consecutive
/// PSNs, RETH.va advancing by the PMTU, RETH.dma_len the total, METH.msn the message's MSN,
/// the payload read from the local buffer at the same offsets, AckReq on the last packet
/// only (PSNs 100..103: no multiple of `ack_req_every`), spread over the EVs in order.
#[test]
fn snd_seg_001_segmentation() {
    let mut s = Script::with(config(), 100, 0);
    let len = 3 * PMTU + PMTU / 2;
    s.post(wr(len, 0x2000, 1));
    let ops = [FIRST, MIDDLE, MIDDLE, LAST];
    for (i, op) in ops.into_iter().enumerate() {
        let i = i as u32;
        let (ev, w) = s.expect_data(100 + i, op);
        assert_eq!(ev, EVS[i as usize], "round robin over the profile");
        assert_eq!(w.reth.va, va(0x2000, i), "RETH.va of packet {i}");
        assert_eq!((w.reth.rkey, w.reth.dma_len), (RKEY, len));
        // METH-RQMSN-001: a message without immediate carries the RQMSN the next
        // Write-with-Immediate will take.
        assert_eq!((w.meth.msn.value(), w.meth.rqmsn.value()), (0, 1));
        let plen = if i == 3 { PMTU / 2 } else { PMTU };
        assert_eq!(
            w.payload,
            Payload::Host { addr: 0x7000_0000 + u64::from(i * PMTU), len: plen },
            "payload of packet {i}"
        );
        assert_eq!(w.bth.ack_req, i == 3, "AckReq on packet {i}");
        assert!(!w.bth.rtx && w.immdt.is_none() && w.tseth.is_none());
    }
    s.expect_no_tx();
    s.expect_report(NicReport::Armed { qpn: lqp(), snd_una: Psn::new(100) });
    s.expect_nothing();
    assert_eq!(
        s.nic.send_window(lqp()),
        Some(SendWindow { unacked: Psn::new(100), next: Psn::new(104) })
    );
    assert_eq!(s.nic.stats().data_packets_sent, 4);
}

/// SND-SEG-001: a zero-length write is one WRITE_ONLY without payload.
#[test]
fn snd_seg_001_zero_length_write() {
    let mut s = Script::sender();
    s.post(wr(0, 0, 1));
    let (_, w) = s.expect_data(0, ONLY);
    assert_eq!((w.payload.len(), w.reth.dma_len, w.bth.ack_req), (0, 0, true));
    s.expect_no_tx();
}

/// SND-SEG-001 with Write-with-Immediate: the ImmDt rides the LAST_IMM / ONLY_IMM packet;
/// every packet carries the message's RQMSN (1, then 2).
#[test]
fn snd_seg_001_write_with_immediate() {
    let mut s = Script::sender();
    s.post(wr_imm(PMTU + 476, 0, 1, 0xFEED));
    s.post(wr_imm(100, 0x4000, 2, 0xBEAD));
    let (_, w) = s.expect_data(0, FIRST);
    assert_eq!((w.meth.msn.value(), w.meth.rqmsn.value(), w.immdt), (0, 1, None));
    let (_, w) = s.expect_data(1, LAST_IMM);
    assert_eq!(
        (w.meth.msn.value(), w.meth.rqmsn.value(), w.immdt.map(|i| i.imm)),
        (0, 1, Some(0xFEED))
    );
    let (_, w) = s.expect_data(2, ONLY_IMM);
    assert_eq!(
        (w.meth.msn.value(), w.meth.rqmsn.value(), w.immdt.map(|i| i.imm)),
        (1, 2, Some(0xBEAD))
    );
    s.expect_no_tx();
}

/// SND-WIN-001 (the MPR window): with mpr = 1 (128 packets) PSNs 0..=127 go, the 129th
/// waits until a SACK advances cack_psn.
#[test]
fn snd_win_001_sender_mpr_window() {
    let mut s = Script::sender();
    s.post(wr(130 * PMTU, 0, 1));
    let sent = s.take_tx();
    assert_eq!(sent.len(), 128, "the window is 128 packets");
    assert_eq!(sent.last().map(|t| t.packet.psn()), Some(Psn::new(127)));
    s.advance(100);
    s.timeout();
    s.expect_no_tx();
    s.drop_reports();
    s.advance(100);
    s.accept_ctrl(sack(0, 1, 0));
    s.expect_data(128, MIDDLE);
    s.expect_no_tx();
    assert_eq!(
        s.nic.send_window(lqp()),
        Some(SendWindow { unacked: Psn::new(1), next: Psn::new(129) })
    );
}

/// Four packets PSN 0..=3 on EVs A0..A3, at time 0; reports dropped.
fn sender_with_four_packets() -> Script {
    let mut s = Script::sender();
    s.post(wr(4 * PMTU, 0, 1));
    for p in 0..4 {
        let (ev, _) = s.expect_data(p, [FIRST, MIDDLE, MIDDLE, LAST][p as usize]);
        assert_eq!(ev, EVS[p as usize]);
    }
    s.drop_reports();
    s
}

/// SND-SACK-003: a SACK whose cack_psn, or a bitmap bit, acknowledges a PSN never sent
/// is refused and changes nothing.
#[test]
fn snd_sack_003_sack_beyond_sent() {
    let mut s = sender_with_four_packets();
    let before = s.nic.send_window(lqp());
    let r = s.inject_ctrl(&sack(4, 1, 0));
    let v = s.violation(r, "SND-SACK-003");
    assert_eq!(
        v,
        PeerViolation::SackBeyondSent { qpn: lqp(), psn: Psn::new(4), snd_nxt: Psn::new(4) }
    );
    s.expect_nothing();
    assert_eq!(s.nic.send_window(lqp()), before);
    // Bit 4 of a bitmap based at PSN 0 is PSN 4.
    let r = s.inject_ctrl(&sack(0xFF_FFFF, 1, 1 << 4));
    let v = s.violation(r, "SND-SACK-003");
    assert!(matches!(v, PeerViolation::SackBeyondSent { psn, .. } if psn == Psn::new(4)));
    s.expect_nothing();
    assert_eq!(s.nic.send_window(lqp()), before);
    // The SACK that is right is taken.
    s.accept_ctrl(sack(3, 1, 0));
    assert_eq!(
        s.nic.send_window(lqp()),
        Some(SendWindow { unacked: Psn::new(4), next: Psn::new(4) })
    );
}

/// SND-SACK-004: a SACK whose bitmap offset lies outside any window is refused.
#[test]
fn snd_sack_004_absurd_sack_offset() {
    let mut s = sender_with_four_packets();
    let before = s.nic.send_window(lqp());
    let r = s.inject_ctrl(&sack(0xFF_FFFF, 30_000, 0));
    let v = s.violation(r, "SND-SACK-004");
    assert_eq!(v, PeerViolation::SackOffset { qpn: lqp(), offset: 30_000 });
    s.expect_nothing();
    assert_eq!(s.nic.send_window(lqp()), before);
}

/// SND-NACK-001: a NACK for a PSN not in flight is refused and changes nothing.
#[test]
fn snd_nack_001_nack_for_unknown_psn() {
    let mut s = sender_with_four_packets();
    let r = s.inject_ctrl(&nack(50, NackReason::NO_RESOURCE));
    let v = s.violation(r, "SND-NACK-001");
    assert_eq!(
        v,
        PeerViolation::NackUnknownPsn {
            qpn: lqp(),
            psn: Psn::new(50),
            snd_una: Psn::new(0),
            snd_nxt: Psn::new(4)
        }
    );
    s.expect_nothing();
}

fn ev_state(s: &Script, ev: Ev) -> EvState {
    let states = s.nic.ev_states(lqp()).unwrap_or_default();
    states.iter().find(|e| e.0 == ev).map(|e| e.1).unwrap_or_else(|| panic!("no EV {ev:#x}"))
}

/// EV-SKIP-001: NACK TRIMMED moves the EV the packet used to SKIP, and the PSN is resent
/// at once with rtx = 1 on another EV.
#[test]
fn ev_skip_001_nack_trimmed_skips_the_ev_and_resends_at_once() {
    let mut s = sender_with_four_packets();
    s.at(1_000);
    s.accept_ctrl(nack(1, NackReason::TRIMMED));
    let (ev, _) = s.expect_rtx(1);
    assert_ne!(ev, EVS[1], "a fresh EV, not the one the trimmed packet used");
    s.expect_no_tx();
    assert_eq!(ev_state(&s, EVS[1]), EvState::Skip);
    let reports = s.take_reports();
    assert!(
        reports.contains(&NicReport::EvState { qpn: lqp(), ev: EVS[1], state: EvState::Skip }),
        "{reports:?}"
    );
    assert!(
        reports.contains(&NicReport::Nack {
            qpn: lqp(),
            psn: Psn::new(1),
            reason: NackReason::TRIMMED
        }),
        "{reports:?}"
    );
    assert_eq!(s.nic.stats().retransmissions, 1);
}

/// `SND-NACK-*`, EV-SKIP-001: `RetransmitCause::Nack` is documented as "a NACK asked for
/// it": the retransmission a TRIMMED NACK causes is reported with that cause, not as SACK
/// inference (which a trace checker holds to the stricter inference rules).
#[test]
fn snd_nack_trim_retransmission_is_reported_as_nack() {
    let mut s = sender_with_four_packets();
    s.accept_ctrl(nack(1, NackReason::TRIMMED));
    s.expect_rtx(1);
    let reports = s.take_reports();
    let causes: Vec<_> = reports
        .iter()
        .filter_map(|r| match r {
            NicReport::Retransmitted { psn, cause, .. } => Some((psn.value(), *cause)),
            _ => None,
        })
        .collect();
    assert_eq!(causes, vec![(1, RetransmitCause::Nack)], "{reports:?}");
}

/// EV-SKIP-002: a SKIP EV returns to GOOD `skip_hold` after it entered SKIP, not before;
/// poll_timeout names that time.
#[test]
fn ev_skip_002_skip_returns_to_good_after_skip_hold() {
    within_seconds(10, "ev_skip_002", || {
        let mut s = sender_with_four_packets();
        s.at(1_000);
        s.accept_ctrl(nack(1, NackReason::TRIMMED));
        s.expect_rtx(1);
        s.drop_reports();
        let hold = config().skip_hold.as_nanos() as u64;
        assert_eq!(s.next_timeout(), Some(Timestamp(1_000 + hold)));
        s.at(1_000 + hold - 1);
        s.timeout();
        assert_eq!(ev_state(&s, EVS[1]), EvState::Skip);
        s.at(1_000 + hold);
        s.timeout();
        assert_eq!(ev_state(&s, EVS[1]), EvState::Good, "EV-SKIP-002");
        s.expect_quiet();
    });
}

/// SND-NACK-004: NACK PSN_OOR_WINDOW: the PSN is resent `nack_backoff` after the NACK,
/// not before.
#[test]
fn snd_nack_004_oor_window_resends_after_backoff() {
    within_seconds(10, "snd_nack_004", || {
        let mut s = sender_with_four_packets();
        s.at(1_000);
        s.accept_ctrl(nack(2, NackReason::PSN_OOR_WINDOW));
        s.expect_no_tx();
        let backoff = config().nack_backoff.as_nanos() as u64;
        assert_eq!(s.next_timeout(), Some(Timestamp(1_000 + backoff)));
        s.at(1_000 + backoff - 1);
        s.timeout();
        s.expect_no_tx();
        s.at(1_000 + backoff);
        s.timeout();
        let (ev, _) = s.expect_rtx(2);
        assert_ne!(ev, EVS[2]);
        s.expect_no_tx();
        let reports = s.take_reports();
        assert!(reports.contains(&NicReport::Retransmitted {
            qpn: lqp(),
            psn: Psn::new(2),
            cause: RetransmitCause::Nack,
            lost_ev: Some(EVS[2]),
        }));
    });
}

/// SND-INFER-001 and SND-RTX-003: PSNs 0..=7 go round robin over four EVs, so PSN 1 and
/// PSN 5 share EV A1. A SACK shows 5 (and 2..=4) but not 1, inside its bitmap: 1 is lost,
/// resent once with rtx = 1 on another EV; 6 and 7 (on EVs with no later arrival) are
/// not. The same SACK again resends nothing (at most once by inference).
#[test]
fn snd_infer_001_loss_inferred_on_one_ev_resent_once() {
    let mut s = Script::sender();
    s.post(wr(8 * PMTU, 0, 1));
    for p in 0..8u32 {
        let (ev, _) = s.expect_data(
            p,
            if p == 0 {
                FIRST
            } else if p == 7 {
                LAST
            } else {
                MIDDLE
            },
        );
        assert_eq!(ev, EVS[(p % 4) as usize]);
    }
    s.drop_reports();
    s.advance(1_000);
    // cack 0; bitmap based at PSN 1: bits 1..=4 are PSNs 2..=5.
    s.accept_ctrl(sack(0, 1, 0b1_1110));
    let (ev, w) = s.expect_rtx(1);
    assert_ne!(ev, EVS[1], "not the EV it was lost on");
    assert_eq!(w.bth.opcode, MIDDLE);
    s.expect_no_tx();
    let reports = s.take_reports();
    assert!(
        reports.contains(&NicReport::Retransmitted {
            qpn: lqp(),
            psn: Psn::new(1),
            cause: RetransmitCause::SackInference,
            lost_ev: Some(EVS[1]),
        }),
        "{reports:?}"
    );
    s.advance(100);
    s.accept_ctrl(sack(0, 1, 0b1_1110));
    s.expect_no_tx();
    assert_eq!(s.nic.stats().retransmissions, 1);
}

/// SND-INFER-002: a suspect beyond the 64-PSN coverage of the SACK is not resent; a later
/// SACK that covers it and still misses it resends it, once.
///
/// 70 packets over 4 EVs (PSN p on EV p mod 4); the CPU resends PSN 1 (timeout), which
/// goes on A2 after PSN 66. A SACK with cack 1 and a bitmap for PSNs 2..=65 missing only
/// PSN 10 makes every earlier A2 transmission a suspect: 10 is covered and missing → resent;
/// 66 is beyond the bitmap → not resent. The next SACK (cack 9, bitmap 10..=73, 66
/// missing) resends neither 10 again nor 66: the only transmission on A2 after 66 is the
/// retransmission of PSN 1, and which copy of PSN 1 arrived is unknown, so it is no
/// evidence about A2 (SND-INFER-003); 66 waits for the timeout.
#[test]
fn snd_infer_002_suspect_beyond_coverage_waits() {
    let mut s = Script::sender();
    s.post(wr(70 * PMTU, 0, 1));
    assert_eq!(s.take_tx().len(), 70);
    s.drop_reports();
    s.advance(1_000);
    s.cpu(CpuCommand::Retransmit { qpn: lqp(), psn: Psn::new(1) });
    let (ev, _) = s.expect_rtx(1);
    assert_eq!(ev, EVS[2], "round robin continues after PSN 69 (A1): A2");
    s.drop_reports();

    s.advance(1_000);
    s.accept_ctrl(sack(1, 1, !(1u64 << 8)));
    let (ev, _) = s.expect_rtx(10);
    assert_ne!(ev, EVS[2]);
    s.expect_no_tx();

    s.advance(1_000);
    let bitmap = (((1u64 << 56) - 1) & !1) | (0b111 << 57);
    s.accept_ctrl(sack(9, 1, bitmap));
    s.expect_no_tx();
    assert_eq!(s.nic.stats().retransmissions, 2);
}

/// CQE-SEND-001, FLAG-SEND-001 (`SND-ACK-*`): SACKs never complete a message; the
/// transport ACK does, in order: completion entry, then the sender flag.
#[test]
fn cqe_send_001_transport_ack_completes_in_order() {
    let mut s = Script::sender();
    s.post(wr(100, 0, 3));
    s.post(wr(2 * PMTU, 0x1000, 4));
    s.expect_data(0, ONLY);
    s.expect_data(1, FIRST);
    s.expect_data(2, LAST);
    s.expect_report(NicReport::Armed { qpn: lqp(), snd_una: Psn::new(0) });
    s.advance(1_000);
    s.accept_ctrl(sack(2, 1, 0));
    s.expect_quiet();
    s.expect_report(NicReport::Progress {
        qpn: lqp(),
        snd_una: Psn::new(3),
        outstanding: 0,
        awaiting_ack: 2,
    });

    s.accept_ctrl(aeth(AethRepr::ACK, 0));
    let c = s.expect_completion(Side::Requester, CompletionStatus::SUCCESS);
    assert_eq!((c.wr_id, c.msn.value(), c.byte_len), (wr(100, 0, 3).wr_id, 0, 100));
    s.expect_send_flag(3, 7, CompletionStatus::SUCCESS, 100);
    s.expect_no_events();

    s.accept_ctrl(aeth(AethRepr::ACK, 1));
    let c = s.expect_completion(Side::Requester, CompletionStatus::SUCCESS);
    assert_eq!((c.msn.value(), c.byte_len), (1, 2 * PMTU));
    s.expect_send_flag(4, 7, CompletionStatus::SUCCESS, 2 * PMTU);
    s.expect_quiet();
    assert_eq!(s.nic.pending_messages(), 0);
}

/// SND-ACK-002: a transport ACK covering a message whose packets are not all sent is
/// refused; nothing completes.
#[test]
fn snd_ack_002_ack_for_message_not_fully_sent() {
    let mut s = Script::sender();
    s.post(wr(130 * PMTU, 0, 1));
    assert_eq!(s.take_tx().len(), 128);
    s.drop_reports();
    let r = s.inject_ctrl(&aeth(AethRepr::ACK, 0));
    let v = s.violation(r, "SND-ACK-002");
    assert_eq!(v, PeerViolation::AckBeyondSent { qpn: lqp(), msn: Msn::new(0) });
    s.expect_nothing();
    assert_eq!(s.nic.pending_messages(), 1);
}

/// SND-ACK-002: a transport ACK for an MSN that was never sent is refused too, and
/// completes nothing (the only message sent is MSN 0; the ACK names MSN 5).
#[test]
fn snd_ack_002_ack_for_msn_never_sent() {
    let mut s = Script::sender();
    s.post(wr(100, 0, 1));
    s.expect_data(0, ONLY);
    s.drop_reports();
    let r = s.inject_ctrl(&aeth(AethRepr::ACK, 5));
    let v = s.violation(r, "SND-ACK-002");
    assert_eq!(v, PeerViolation::AckBeyondSent { qpn: lqp(), msn: Msn::new(5) });
    s.expect_nothing();
    assert_eq!(s.nic.pending_messages(), 1);
}

/// SND-ACK-003, CQE-STATUS-004: an AETH NAK remote access error (0x62) moves the QP to
/// error. Its MSN names the last message retired; before any, the MSN before the first
/// (0xFFFF here). The next message completes with REMOTE_ACCESS_ERROR, the rest FLUSHED,
/// each with its sender flag (0 bytes).
#[test]
fn snd_ack_003_nak_remote_access_fails_the_qp() {
    let mut s = Script::sender();
    for k in 0..3u32 {
        s.post(wr(10, u64::from(k) * 0x100, k + 1));
    }
    for p in 0..3 {
        s.expect_data(p, ONLY);
    }
    s.drop_reports();
    s.accept_ctrl(aeth(AethRepr::NAK_REMOTE_ACCESS, 0xFFFF));
    let c = s.expect_completion(Side::Requester, CompletionStatus::REMOTE_ACCESS_ERROR);
    assert_eq!((c.msn.value(), c.byte_len), (0, 0));
    s.expect_send_flag(1, 7, CompletionStatus::REMOTE_ACCESS_ERROR, 0);
    for k in 1..3u32 {
        let c = s.expect_completion(Side::Requester, CompletionStatus::FLUSHED);
        assert_eq!(c.msn, Msn::new(k as u16));
        s.expect_send_flag(k + 1, 7, CompletionStatus::FLUSHED, 0);
    }
    s.expect_report(NicReport::QpError { qpn: lqp(), requirement: "SND-ACK-003".into() });
    s.expect_nothing();
    assert_eq!(s.nic.qp_in_error(lqp()), Some(true));
    assert!(s.host(HostCommand::PostWrite(wr(10, 0, 9))).is_err(), "no work on a failed QP");
    s.expect_nothing();
}

// =========================================================================================
// Doorbells
// =========================================================================================

/// The template of the doorbell scripts: 16 slots of 4 KiB for QP [`LQP`], WRITE,
/// length unit 64, default length 4096, max 16384, flags from slot 8.
fn template() -> Template {
    Template {
        template_id: TemplateId::new(5),
        enabled: true,
        qpn: lqp(),
        opcode: WrOpcode::WRITE,
        local_base: 0x7f00_0000_0000,
        local_lkey: LKEY,
        local_region_len: 0x10_0000,
        remote_base: REGION_BASE,
        remote_rkey: RKEY,
        remote_region_len: 0x1_0000,
        slots: 16,
        local_stride: 0x1000,
        remote_stride: 0x1000,
        length_unit: 64,
        default_length: 4096,
        max_length: 16384,
        imm_base: 0,
        flag_base_slot: 8,
        signaled: true,
    }
}

/// DB-ACCEPT-001, TPL-EXPAND-*: a token expands into the slot's work request: four
/// packets from the slot's local buffer to the slot's remote buffer; the transport ACK
/// completes it with the token as wr_id and the sender flag of slot 8 + index carrying the
/// token's seq (FLAG-SEND-001).
#[test]
fn db_accept_001_token_becomes_packets() {
    let mut s = Script::sender();
    s.host(HostCommand::SetTemplate(template())).expect("template installs");
    let tok = DoorbellToken::new(TemplateId::new(5), 0, 3, 0).to_u64();
    s.doorbell(tok).expect("accepted");
    for (i, op) in [FIRST, MIDDLE, MIDDLE, LAST].into_iter().enumerate() {
        let i = i as u32;
        let (_, w) = s.expect_data(i, op);
        assert_eq!(w.reth.va, REGION_BASE + 0x3000 + u64::from(i * PMTU));
        assert_eq!((w.reth.rkey, w.reth.dma_len), (RKEY, 4096));
        assert_eq!(
            w.payload,
            Payload::Host { addr: 0x7f00_0000_3000 + u64::from(i * PMTU), len: PMTU }
        );
    }
    s.expect_no_tx();
    s.expect_no_events();
    s.advance(1_000);
    s.accept_ctrl(sack(3, 1, 0));
    s.accept_ctrl(aeth(AethRepr::ACK, 0));
    let c = s.expect_completion(Side::Requester, CompletionStatus::SUCCESS);
    assert_eq!((c.wr_id, c.byte_len, c.qpn), (tok, 4096, lqp()));
    s.expect_send_flag(8 + 3, 0, CompletionStatus::SUCCESS, 4096);
    s.expect_no_events();
}

/// DB-REJECT-001, DB-ORDER-001, CQE-REJECT-001, DB-SEQ-004: every rejection of a token
/// returns the reason, writes one error completion with the matching status, sends
/// nothing, and does not consume the expected seq: the next correct token still works.
#[test]
fn db_reject_001_every_rejection() {
    let mut s = Script::sender();
    s.host(HostCommand::SetTemplate(template())).expect("template installs");
    s.doorbell(DoorbellToken::new(TemplateId::new(5), 0, 0, 0).to_u64()).expect("seq 0 accepted");
    assert_eq!(s.take_tx().len(), 4);
    s.drop_reports();

    let v2 = DoorbellToken { version: 2, ..DoorbellToken::new(TemplateId::new(5), 1, 0, 0) };
    let cases: Vec<(&str, DoorbellToken, DoorbellReject, CompletionStatus)> = vec![
        (
            "DB-VERSION-001",
            v2,
            DoorbellReject::BadVersion { version: 2 },
            CompletionStatus::BAD_VERSION,
        ),
        (
            "DB-TEMPLATE-001",
            DoorbellToken::new(TemplateId::new(6), 1, 0, 0),
            DoorbellReject::UnknownTemplate { template: TemplateId::new(6) },
            CompletionStatus::UNKNOWN_TEMPLATE,
        ),
        (
            "DB-SEQ-002",
            DoorbellToken::new(TemplateId::new(5), 0, 0, 0),
            DoorbellReject::StaleSeq { expected: 1, got: 0 },
            CompletionStatus::STALE_SEQ,
        ),
        (
            "DB-SEQ-003",
            DoorbellToken::new(TemplateId::new(5), 3, 0, 0),
            DoorbellReject::SeqGap { expected: 1, got: 3 },
            CompletionStatus::SEQ_GAP,
        ),
        (
            "DB-INDEX-001",
            DoorbellToken::new(TemplateId::new(5), 1, 16, 0),
            DoorbellReject::IndexOutOfRange { index: 16, slots: 16 },
            CompletionStatus::INDEX_OUT_OF_RANGE,
        ),
        (
            "DB-LENGTH-002",
            DoorbellToken::new(TemplateId::new(5), 1, 0, 257),
            DoorbellReject::LengthOutOfRange {
                length: 257 * 64,
                bound: LengthBound::MaxLength,
                limit: 16384,
            },
            CompletionStatus::LENGTH_OUT_OF_RANGE,
        ),
        (
            "DB-LENGTH-004",
            DoorbellToken::new(TemplateId::new(5), 1, 15, 128),
            DoorbellReject::LengthOutOfRange {
                length: 8192,
                bound: LengthBound::RemoteRegion,
                limit: 4096,
            },
            CompletionStatus::LENGTH_OUT_OF_RANGE,
        ),
    ];
    let tmpl = template();
    for (req, tok, reject, status) in cases {
        s.advance(10);
        let token = tok.to_u64();
        let r = s.doorbell(token);
        assert_eq!(
            r,
            Err(HostError::Doorbell(DoorbellRejected { token, reject })),
            "{req}: the rejection"
        );
        assert_eq!(r.map_err(|e| e.requirement()), Err(req));
        let c = s.expect_completion(Side::Requester, status);
        let want = CompletionRepr::for_reject(token, Some(&tmpl), reject);
        assert_eq!(c, want.with_timestamp(s.now.0 as u32), "{req}: the entry");
        assert_eq!(c.wr_id, token, "{req}: the entry names the token");
        s.expect_nothing();
    }
    // The expected seq is still 1.
    s.doorbell(DoorbellToken::new(TemplateId::new(5), 1, 1, 1).to_u64()).expect("seq 1 accepted");
    let (_, w) = s.expect_data(4, ONLY);
    assert_eq!((w.reth.va, w.reth.dma_len), (REGION_BASE + 0x1000, 64));
    s.expect_no_tx();
}

/// TPL-INSTALL-003, DB-SEQ-001, DB-SEQ-004: disabling and re-enabling a template keeps
/// its expected seq; installing it again, even unchanged, or with other fields, sets the
/// expected seq to 0, which is how software lets a producer start over.
#[test]
fn tpl_install_003_reinstall_resets_the_seq_and_enable_keeps_it() {
    let mut s = Script::sender();
    s.host(HostCommand::SetTemplate(template())).expect("template installs");
    s.doorbell(DoorbellToken::new(TemplateId::new(5), 0, 0, 1).to_u64()).expect("seq 0 accepted");
    s.doorbell(DoorbellToken::new(TemplateId::new(5), 1, 1, 1).to_u64()).expect("seq 1 accepted");
    s.take_tx();
    s.drop_reports();
    // Disabled, then enabled again: the seq stays at 2.
    s.host(HostCommand::SetTemplate(Template { enabled: false, ..template() })).expect("off");
    s.host(HostCommand::SetTemplate(template())).expect("on");
    s.doorbell(DoorbellToken::new(TemplateId::new(5), 2, 2, 1).to_u64()).expect("seq 2 accepted");
    s.take_tx();
    s.drop_reports();
    // Installed again, unchanged: the seq starts over.
    s.host(HostCommand::SetTemplate(template())).expect("reinstalled");
    let stale = DoorbellToken::new(TemplateId::new(5), 3, 3, 1).to_u64();
    assert_eq!(
        s.doorbell(stale).map_err(|e| e.requirement()),
        Err("DB-SEQ-003"),
        "after a reinstallation seq 3 is ahead of 0"
    );
    s.expect_completion(Side::Requester, CompletionStatus::SEQ_GAP);
    s.doorbell(DoorbellToken::new(TemplateId::new(5), 0, 3, 1).to_u64())
        .expect("seq 0 accepted again");
    s.take_tx();
    s.drop_reports();
    // Installed with another field changed, and disabled at once: also an installation.
    let other = Template { enabled: false, remote_stride: 0x800, ..template() };
    s.host(HostCommand::SetTemplate(other)).expect("installed disabled");
    s.host(HostCommand::SetTemplate(Template { enabled: true, ..other })).expect("enabled");
    s.doorbell(DoorbellToken::new(TemplateId::new(5), 0, 4, 1).to_u64())
        .expect("seq 0 after the install");
    let (_, w) = s.expect_data(4, ONLY);
    assert_eq!(w.reth.va, REGION_BASE + 4 * 0x800, "expanded from the new template");
}

/// DB-MMIO-002: a write to a doorbell register that is not one aligned write of all 8
/// bytes — a half, a write with a byte enable missing, one that straddles two registers,
/// two tokens write-combined, an empty one — acts on nothing: no packet, no completion, the
/// expected seq unchanged; each is counted. DB-MMIO-003, DB-FORMAT-002: an aligned 8-byte
/// write is the token its bytes give little-endian, through whichever register.
#[test]
fn db_mmio_002_only_an_aligned_8_byte_write_carries_a_token() {
    let mut s = Script::sender();
    s.host(HostCommand::SetTemplate(template())).expect("template installs");
    let tok = DoorbellToken::new(TemplateId::new(5), 0, 3, 1).to_u64();
    let b = tok.to_le_bytes();
    let write = |register: u32, offset: u8, bytes: &[u8]| {
        HostCommand::DoorbellWrite(DoorbellWrite { register, offset, bytes: bytes.to_vec() })
    };
    let ignored = [
        write(0, 0, &b[..4]),
        write(0, 4, &b[4..]),
        write(0, 1, &b[1..]),
        write(0, 0, &b[..7]),
        write(0, 4, &b),
        write(0, 0, &[b, b].concat()),
        write(0, 8, &b),
        write(0, 0, &[]),
    ];
    for (k, w) in ignored.into_iter().enumerate() {
        s.host(w).expect("an ignored write is no error");
        s.expect_nothing();
        assert_eq!(s.nic.stats().ignored_doorbell_writes, k as u64 + 1);
    }
    // Big-endian, the same bytes would be another token; little-endian they are `tok`,
    // still expected (seq 0), through register 9 as through any.
    s.host(HostCommand::DoorbellWrite(DoorbellWrite::of_token(9, tok))).expect("accepted");
    let (_, w) = s.expect_data(0, ONLY);
    assert_eq!((w.reth.va, w.reth.dma_len), (REGION_BASE + 0x3000, 64));
    s.take_tx();
    s.drop_reports();
    // The same token again, through another register: a replay, whatever the register.
    let r = s.host(HostCommand::DoorbellWrite(DoorbellWrite::of_token(0, tok)));
    assert_eq!(r.map_err(|e| e.requirement()), Err("DB-SEQ-002"));
    s.expect_completion(Side::Requester, CompletionStatus::STALE_SEQ);
    assert_eq!(s.nic.stats().ignored_doorbell_writes, 8);
}

/// DB-MMIO-001: the producer's write of a token as the host side of this repository builds
/// it (`DoorbellWrite::of_token`, the write every doorbell-register scenario rings a token
/// with) is one naturally aligned store of all 8 bytes of the token, little-endian, to one
/// register: the only write the NIC takes as a token (DB-MMIO-002). The two halves of a
/// store the compiler split would carry none.
#[test]
fn db_mmio_001_a_producer_writes_a_token_as_one_aligned_8_byte_store() {
    let tokens = [
        0,
        u64::MAX,
        DoorbellToken::new(TemplateId::new(5), 0, 3, 1).to_u64(),
        0x0123_4567_89AB_CDEF,
    ];
    for register in [0, 1, 9, 4095] {
        for tok in tokens {
            let w = DoorbellWrite::of_token(register, tok);
            assert_eq!((w.register, w.offset), (register, 0), "{tok:#x}: aligned, one register");
            assert_eq!(w.bytes, tok.to_le_bytes(), "{tok:#x}: all 8 bytes, little-endian");
            assert_eq!(w.token(), Some(tok), "{tok:#x}");
            let (lo, hi) = w.bytes.split_at(4);
            for (offset, half) in [(0, lo), (4, hi)] {
                let half = DoorbellWrite { register, offset, bytes: half.to_vec() };
                assert_eq!(half.token(), None, "{tok:#x}: half a split store");
            }
        }
    }
}

// =========================================================================================
// Recovery split
// =========================================================================================

/// REC-RTO-001, REC-RTO-002: the NIC alone reports Armed when data goes out on an idle
/// QP and Progress whenever snd_una moves or a message completes.
#[test]
fn rec_rto_001_nic_reports_armed_and_progress() {
    let mut s = Script::sender();
    s.post(wr(2 * PMTU, 0, 1));
    s.expect_data(0, FIRST);
    s.expect_data(1, LAST);
    s.expect_report(NicReport::Armed { qpn: lqp(), snd_una: Psn::new(0) });
    s.expect_nothing();
    s.advance(1_000);
    s.accept_ctrl(sack(0, 1, 0));
    s.expect_report(NicReport::Progress {
        qpn: lqp(),
        snd_una: Psn::new(1),
        outstanding: 1,
        awaiting_ack: 1,
    });
    s.expect_nothing();
    s.accept_ctrl(sack(1, 1, 0));
    s.expect_report(NicReport::Progress {
        qpn: lqp(),
        snd_una: Psn::new(2),
        outstanding: 0,
        awaiting_ack: 1,
    });
    s.accept_ctrl(aeth(AethRepr::ACK, 0));
    s.expect_completion(Side::Requester, CompletionStatus::SUCCESS);
    s.expect_send_flag(1, 7, CompletionStatus::SUCCESS, 2 * PMTU);
    s.expect_report(NicReport::Progress {
        qpn: lqp(),
        snd_una: Psn::new(2),
        outstanding: 0,
        awaiting_ack: 0,
    });
    s.expect_nothing();
}

/// REC-RTO-003: CpuCommand::Retransmit of the oldest PSN resends it with rtx = 1 on
/// another EV, reported with cause Timeout.
#[test]
fn rec_rto_003_cpu_retransmit() {
    let mut s = sender_with_four_packets();
    s.advance(50_000);
    s.cpu(CpuCommand::Retransmit { qpn: lqp(), psn: Psn::new(0) });
    let (ev, w) = s.expect_rtx(0);
    assert_ne!(ev, EVS[0]);
    assert_eq!(w.bth.opcode, FIRST);
    s.expect_no_tx();
    s.expect_report(NicReport::Retransmitted {
        qpn: lqp(),
        psn: Psn::new(0),
        cause: RetransmitCause::Timeout,
        lost_ev: Some(EVS[0]),
    });
    assert_eq!(
        s.nic.send_window(lqp()),
        Some(SendWindow { unacked: Psn::new(0), next: Psn::new(4) })
    );
}

/// EV-PROBE-005, EV-PROBE-002, PETH-RESP-001: a probe on an ASSUMED_BAD EV consumes no
/// PSN; its answer (SACK pr = 1, the EV reflected, m = none) is reported and brings the
/// EV back to GOOD.
#[test]
fn ev_probe_002_probe_answer_restores_the_ev() {
    let mut s = sender_with_four_packets();
    s.advance(1_000);
    s.cpu(CpuCommand::SetEvState { qpn: lqp(), ev: EVS[2], state: EvState::AssumedBad });
    s.expect_report(NicReport::EvState { qpn: lqp(), ev: EVS[2], state: EvState::AssumedBad });
    assert_eq!(ev_state(&s, EVS[2]), EvState::AssumedBad);
    s.expect_nothing();

    s.cpu(CpuCommand::Probe { qpn: lqp(), ev: EVS[2] });
    let (psn, id) = s.expect_probe(EVS[2]);
    assert_eq!(psn, Psn::new(4), "the probe carries snd_nxt");
    s.expect_nothing();
    assert_eq!(
        s.nic.send_window(lqp()),
        Some(SendWindow { unacked: Psn::new(0), next: Psn::new(4) }),
        "no PSN consumed"
    );

    s.advance(1_000);
    s.accept_ctrl(probe_answer(0xFF_FFFF, EVS[2], id));
    let reports = s.take_reports();
    assert!(
        reports.contains(&NicReport::ProbeAnswered { qpn: lqp(), ev: EVS[2], mark: EvMark::None }),
        "{reports:?}"
    );
    assert!(
        reports.contains(&NicReport::EvState { qpn: lqp(), ev: EVS[2], state: EvState::Good }),
        "{reports:?}"
    );
    assert_eq!(ev_state(&s, EVS[2]), EvState::Good);
    s.expect_nothing();

    // The next data packet takes PSN 4.
    s.post(wr(10, 0x8000, 2));
    s.expect_data(4, ONLY);
}

/// REC-RETRY-002: CpuCommand::QpError fails the QP: the oldest message completes with
/// RETRY_EXCEEDED, the rest FLUSHED.
#[test]
fn rec_retry_002_cpu_qp_error() {
    let mut s = Script::sender();
    s.post(wr(10, 0, 1));
    s.post(wr(10, 0x100, 2));
    s.expect_data(0, ONLY);
    s.expect_data(1, ONLY);
    s.drop_reports();
    s.cpu(CpuCommand::QpError { qpn: lqp() });
    s.expect_completion(Side::Requester, CompletionStatus::RETRY_EXCEEDED);
    s.expect_send_flag(1, 7, CompletionStatus::RETRY_EXCEEDED, 0);
    s.expect_completion(Side::Requester, CompletionStatus::FLUSHED);
    s.expect_send_flag(2, 7, CompletionStatus::FLUSHED, 0);
    s.expect_report(NicReport::QpError { qpn: lqp(), requirement: "REC-RETRY-002".into() });
    s.expect_nothing();
    assert_eq!(s.nic.qp_in_error(lqp()), Some(true));
}

fn agent() -> RecoveryAgent {
    RecoveryAgent::new(RecoveryConfig {
        rto: Duration::from_nanos(1_000),
        rto_max: Duration::from_nanos(1_000_000),
        backoff: 2,
        retry_limit: 3,
        probe_interval: Duration::from_nanos(500_000),
    })
}

fn commands(a: &mut RecoveryAgent) -> Vec<CpuCommand> {
    std::iter::from_fn(|| a.poll_command()).collect()
}

/// REC-RTO-001..003, REC-RETRY-002 (the CPU half alone): Armed at t arms rto; each expiry
/// orders the oldest PSN resent and doubles the timeout; after `retry_limit` expiries the
/// next one orders QP error and the timer stops.
#[test]
fn rec_rto_002_agent_backoff_and_retry_limit() {
    let mut a = agent();
    let q = lqp();
    assert_eq!(a.poll_timeout(), None);
    a.handle_report(Timestamp(100), &NicReport::Armed { qpn: q, snd_una: Psn::new(7) });
    assert_eq!(a.poll_timeout(), Some(Timestamp(1_100)));
    a.handle_timeout(Timestamp(1_099));
    assert_eq!(commands(&mut a), vec![], "not before the deadline");
    let mut t = 1_100;
    for (k, rto) in [2_000u64, 4_000, 8_000].into_iter().enumerate() {
        a.handle_timeout(Timestamp(t));
        assert_eq!(
            commands(&mut a),
            vec![CpuCommand::Retransmit { qpn: q, psn: Psn::new(7) }],
            "expiry {}",
            k + 1
        );
        t += rto;
        assert_eq!(a.poll_timeout(), Some(Timestamp(t)), "back-off after expiry {}", k + 1);
    }
    a.handle_timeout(Timestamp(t));
    assert_eq!(commands(&mut a), vec![CpuCommand::QpError { qpn: q }]);
    assert_eq!(a.poll_timeout(), None);
    assert_eq!(a.qps_failed, 1);
}

/// REC-RTO-002: Progress resets the retry counter and restarts the timer at rto; Progress
/// with nothing outstanding and nothing awaiting an ACK disarms it.
#[test]
fn rec_rto_002_agent_progress_resets() {
    let mut a = agent();
    let q = lqp();
    a.handle_report(Timestamp(0), &NicReport::Armed { qpn: q, snd_una: Psn::new(0) });
    a.handle_timeout(Timestamp(1_000));
    assert_eq!(commands(&mut a), vec![CpuCommand::Retransmit { qpn: q, psn: Psn::new(0) }]);
    assert_eq!(a.poll_timeout(), Some(Timestamp(3_000)));
    let progress =
        NicReport::Progress { qpn: q, snd_una: Psn::new(2), outstanding: 2, awaiting_ack: 1 };
    a.handle_report(Timestamp(1_500), &progress);
    assert_eq!(a.poll_timeout(), Some(Timestamp(2_500)), "rto again, not 2 rto");
    a.handle_timeout(Timestamp(2_500));
    assert_eq!(commands(&mut a), vec![CpuCommand::Retransmit { qpn: q, psn: Psn::new(2) }]);
    assert_eq!(a.poll_timeout(), Some(Timestamp(4_500)), "first back-off step again");
    let idle =
        NicReport::Progress { qpn: q, snd_una: Psn::new(4), outstanding: 0, awaiting_ack: 0 };
    a.handle_report(Timestamp(3_000), &idle);
    assert_eq!(a.poll_timeout(), None);
}

// =========================================================================================
// Determinism
// =========================================================================================

/// A script touching most of the machinery: data both ways, a loss inferred, a trim NACK,
/// a CPU retransmission and a probe. Returns everything recorded.
fn busy_script() -> Vec<String> {
    let mut cfg = config();
    cfg.timestamps = true;
    let mut qp = qp_config(LQP, PEER, 0, 0);
    qp.spray = SprayPolicy::Random;
    let mut s = Script::with_qp(cfg, qp);
    s.post(wr(8 * PMTU, 0, 1));
    s.post(wr_imm(100, 0x9000, 2, 0x1234));
    s.advance(700);
    let _ = s.inject_ctrl(&sack(0, 1, 0b1_1110));
    s.advance(300);
    let _ = s.inject_ctrl(&nack(6, NackReason::TRIMMED));
    s.accept(write(1, 1, ONLY, va(0, 0), 10).ack_req());
    s.accept(write(0, 0, ONLY_IMM, va(0x1000, 0), 10).imm(9).rqmsn(1));
    s.cpu(CpuCommand::Retransmit { qpn: lqp(), psn: Psn::new(1) });
    s.cpu(CpuCommand::Probe { qpn: lqp(), ev: EVS[3] });
    s.advance(1_000);
    s.timeout();
    s.record.clone()
}

/// The model is deterministic: the same script twice gives the same outputs, byte for
/// byte in their JSON form.
#[test]
fn determinism_same_script_same_outputs() {
    let a = busy_script();
    let b = busy_script();
    assert!(a.len() > 20, "the script does something: {} records", a.len());
    assert!(a.iter().any(|r| r.contains("\"rtx\":true")), "with retransmissions");
    assert_eq!(a.join("\n"), b.join("\n"));
}

// =========================================================================================
// More requirements the model cites
// =========================================================================================

/// RET-ERR-001 (shared retirement): when a QP goes to error, its messages will never
/// retire, and later messages of other QPs in the domain must not wait for them. QP A's
/// MSN 0 is incomplete, QP B's MSN 1 is complete; A fails (WWI limit); B's MSN 1 and
/// its next message MSN 2 retire.
#[test]
fn ret_err_001_failed_qp_does_not_block_the_shared_domain() {
    let mut s = two_qps(RetirementMode::Shared);
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(2 * PMTU));
    s.accept(write(0, 1, ONLY, va(0x8000, 0), 24).dest(LQP_B));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_dma(va(0x8000, 0), 24);
    s.expect_no_events();
    s.take_tx();

    s.advance(10);
    s.refuse(write(1, 3, ONLY_IMM, va(0, 4), 8).imm(1).rqmsn(100), "WWI-LIMIT-002");
    assert_eq!(s.nic.qp_in_error(lqp()), Some(true));
    assert_eq!(s.nic.qp_in_error(Qpn::new(LQP_B)), Some(false));
    s.advance(10);
    s.accept(write(1, 2, ONLY, va(0x9000, 0), 16).dest(LQP_B).ack_req());
    let flags: Vec<(u32, u16)> = s
        .take_events()
        .into_iter()
        .filter_map(|e| match e {
            openrdma_sm::NicEvent::FlagWrite(f) => Some((f.qpn.value(), f.msn.value())),
            _ => None,
        })
        .collect();
    assert_eq!(flags, vec![(LQP_B, 1), (LQP_B, 2)], "B's messages retire");
}

/// EV-PROBE-004, PETH-RESP-001: a responder answers a probe with a SACK, pr = 1, the
/// probe's EV in SETH.entropy, its ID in ack_psn_offset, its timestamp reflected.
#[test]
fn ev_probe_004_responder_answers_a_probe() {
    let mut s = Script::receiver();
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(2 * PMTU));
    s.expect_dma(va(0, 0), PMTU);
    let probe = Packet::Probe {
        bth: openrdma_codec::BthRepr::new(Opcode::MRC_PROBE, lqp(), Psn::new(1)),
        peth: openrdma_codec::PethRepr::new(9, 0x1234),
    };
    let r = s.inject_packet(Ev::new(0x55), &probe);
    s.ok(r);
    let (ev, seth, cc) = s.expect_sack(0, 0);
    let ev55 = Ev::new(0x55);
    assert_eq!((ev, seth.entropy, seth.pr, seth.ack_psn_offset), (ev55, ev55, true, 9));
    assert_eq!(cc.tx_timestamp, 0x1234);
    s.expect_nothing();
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(1)), "a probe consumes no PSN");
}

/// A SACK from the peer with a mark for `ev`.
fn marked_sack(cack: u32, ev: Ev, m: u8, pr: bool) -> Packet {
    let Packet::Sack { bth, mut seth, cc_state } = sack(cack, 1, 0) else { unreachable!() };
    seth.entropy = ev;
    seth.m = openrdma_codec::EvMark(m);
    seth.pr = pr;
    Packet::Sack { bth, seth, cc_state }
}

/// EV-SKIP-001, EV-BAD-001: a SACK marked SKIP_ONCE moves its EV to SKIP; one marked
/// ALWAYS_SKIP moves its EV to ASSUMED_BAD; both are reported; new packets avoid them.
#[test]
fn ev_bad_001_sack_marks() {
    let mut s = sender_with_four_packets();
    s.advance(100);
    s.accept_ctrl(marked_sack(0, EVS[1], 1, false));
    assert_eq!(ev_state(&s, EVS[1]), EvState::Skip);
    s.accept_ctrl(marked_sack(1, EVS[2], 2, false));
    assert_eq!(ev_state(&s, EVS[2]), EvState::AssumedBad);
    let reports = s.take_reports();
    for r in [
        NicReport::EvMarked { qpn: lqp(), ev: EVS[1], mark: EvMark::SkipOnce },
        NicReport::EvState { qpn: lqp(), ev: EVS[1], state: EvState::Skip },
        NicReport::EvMarked { qpn: lqp(), ev: EVS[2], mark: EvMark::AlwaysSkip },
        NicReport::EvState { qpn: lqp(), ev: EVS[2], state: EvState::AssumedBad },
    ] {
        assert!(reports.contains(&r), "missing {r:?} in {reports:?}");
    }
    s.post(wr(8 * PMTU, 0x8000, 2));
    let evs: Vec<Ev> = s.take_tx().iter().map(|t| t.ev).collect();
    assert_eq!(evs.len(), 8);
    assert!(evs.iter().all(|e| *e == EVS[0] || *e == EVS[3]), "only GOOD EVs: {evs:x?}");
}

/// EV-PROBE-003: a probe answered with SKIP_ONCE moves ASSUMED_BAD to SKIP.
#[test]
fn ev_probe_003_probe_answer_with_skip_once() {
    let mut s = sender_with_four_packets();
    s.cpu(CpuCommand::SetEvState { qpn: lqp(), ev: EVS[0], state: EvState::AssumedBad });
    s.cpu(CpuCommand::Probe { qpn: lqp(), ev: EVS[0] });
    s.expect_probe(EVS[0]);
    s.drop_reports();
    s.accept_ctrl(marked_sack(0xFF_FFFF, EVS[0], 1, true));
    assert_eq!(ev_state(&s, EVS[0]), EvState::Skip);
    let reports = s.take_reports();
    assert!(
        reports.contains(&NicReport::ProbeAnswered {
            qpn: lqp(),
            ev: EVS[0],
            mark: EvMark::SkipOnce
        }),
        "{reports:?}"
    );
}

/// SND-NACK-005: NACK UNEXP_EVENT is fatal: the QP goes to error, the oldest message
/// completes with FATAL_NACK and the rest FLUSHED; nothing is resent.
#[test]
fn snd_nack_005_unexp_event_is_fatal() {
    let mut s = Script::sender();
    s.post(wr(10, 0, 1));
    s.post(wr(10, 0x100, 2));
    s.expect_data(0, ONLY);
    s.expect_data(1, ONLY);
    s.drop_reports();
    s.accept_ctrl(nack(1, NackReason::UNEXP_EVENT));
    s.expect_completion(Side::Requester, CompletionStatus::FATAL_NACK);
    s.expect_send_flag(1, 7, CompletionStatus::FATAL_NACK, 0);
    s.expect_completion(Side::Requester, CompletionStatus::FLUSHED);
    s.expect_send_flag(2, 7, CompletionStatus::FLUSHED, 0);
    s.expect_no_tx();
    let reports = s.take_reports();
    assert!(
        reports.contains(&NicReport::QpError { qpn: lqp(), requirement: "SND-NACK-005".into() }),
        "{reports:?}"
    );
    assert_eq!(s.nic.qp_in_error(lqp()), Some(true));
}

/// WWI-LIMIT-001: at most `wwi_limit` Write-with-Immediate messages in flight: with a
/// limit of 2 the third waits for the transport ACK of the first.
#[test]
fn wwi_limit_001_sender_stalls_at_the_limit() {
    let mut s = Script::with(NicConfig { wwi_limit: 2, ..config() }, 0, 0);
    for k in 0..3u32 {
        s.post(wr_imm(10, u64::from(k) * 0x100, k + 1, k));
    }
    s.expect_data(0, ONLY_IMM);
    s.expect_data(1, ONLY_IMM);
    s.expect_no_tx();
    s.advance(100);
    s.accept_ctrl(sack(1, 1, 0));
    s.expect_no_tx();
    s.accept_ctrl(aeth(AethRepr::ACK, 0));
    let (_, w) = s.expect_data(2, ONLY_IMM);
    assert_eq!((w.meth.msn.value(), w.meth.rqmsn.value()), (2, 3));
    s.expect_no_tx();
}

/// REC-RTO-004: when nothing is outstanding but the oldest message still waits for its
/// transport ACK (the ACK was lost), a timeout retransmission resends the message's last
/// packet.
#[test]
fn rec_rto_004_lost_ack_resends_the_last_packet() {
    let mut s = Script::sender();
    s.post(wr(2 * PMTU, 0, 1));
    s.expect_data(0, FIRST);
    s.expect_data(1, LAST);
    s.advance(100);
    s.accept_ctrl(sack(1, 1, 0));
    s.drop_reports();
    s.advance(50_000);
    s.cpu(CpuCommand::Retransmit { qpn: lqp(), psn: Psn::new(2) });
    let (_, w) = s.expect_rtx(1);
    assert_eq!((w.bth.opcode, w.bth.ack_req), (LAST, true));
    s.expect_no_tx();
}

/// SND-WIN-002 (dynamic MPR): a SACK's mpr shrinks the send window (never above the
/// configured one) and a later SACK grows it back.
#[test]
fn snd_win_002_dynamic_mpr_shrinks_and_grows() {
    let mut s = Script::with(NicConfig { mpr: 2, ..config() }, 0, 0);
    s.post(wr(300 * PMTU, 0, 1));
    assert_eq!(s.take_tx().len(), 256);
    s.advance(100);
    s.accept_ctrl(sack(150, 1, 0)); // mpr 1: 128 packets beyond cack 150
    let sent: Vec<u32> = s.take_tx().iter().map(|t| t.packet.psn().value()).collect();
    assert_eq!(sent, (256..279).collect::<Vec<_>>(), "up to cack + 128");
    let Packet::Sack { bth, mut seth, cc_state } = sack(150, 1, 0) else { unreachable!() };
    seth.mpr = 2;
    s.accept_ctrl(Packet::Sack { bth, seth, cc_state });
    let sent: Vec<u32> = s.take_tx().iter().map(|t| t.packet.psn().value()).collect();
    assert_eq!(sent, (279..300).collect::<Vec<_>>(), "the window grows back to 256");
}

/// EV profile: when no EV of the profile is usable, the QP sends on its backup EVs.
#[test]
fn ev_backup_used_when_no_profile_ev_is_usable() {
    let mut qp = qp_config(LQP, PEER, 0, 0);
    qp.backup_evs = vec![Ev::new(0xB0)];
    let mut s = Script::with_qp(config(), qp);
    for ev in EVS {
        s.cpu(CpuCommand::SetEvState { qpn: lqp(), ev, state: EvState::Denied });
    }
    s.post(wr(10, 0, 1));
    let (ev, _) = s.expect_data(0, ONLY);
    assert_eq!(ev, Ev::new(0xB0));
}

/// API-TIME-001: time must not go backwards; the call is refused.
#[test]
fn api_time_001_time_going_backwards_is_refused() {
    let mut s = Script::receiver();
    s.at(1_000);
    s.timeout();
    let r = s.nic.handle_timeout(Timestamp(999));
    assert!(
        matches!(r, Err(openrdma_sm::ApiMisuse::TimeWentBackwards { now: 999, last: 1_000 })),
        "{r:?}"
    );
    assert_eq!(r.map_err(|e| e.requirement()), Err("API-TIME-001"));
}

// ==================================================================================}

// Endpoint operations
// =========================================================================================

/// An endpoint request to QPN 2 from the peer.
fn endpoint_request(op: u8, request_id: u32, port_status: u32) -> Packet {
    use openrdma_codec::{BthRepr, EndpointOp, ErthRepr};
    Packet::EndpointRequest {
        bth: BthRepr::new(Opcode::MRC_ENDPOINT_REQUEST, Qpn::ENDPOINT, Psn::ZERO),
        erth: ErthRepr::new(EndpointOp(op), port_status, request_id),
    }
}

/// ERTH-RESP-001, EETH-ECHO-001, EETH-STATUS-001, EETH-PORT-001, EETH-OP-002: each endpoint
/// request to QPN 2 is answered at once, once, on its EV, to QPN 2, with its `op` and
/// `request_id` and this NIC's ports; `PORT_STATUS_UPDATE` (whose ports the NIC takes note
/// of) and `EV_PROBE` succeed, any other `op` is answered `UNSUPPORTED_OP`. A response is
/// never answered.
#[test]
fn erth_resp_001_endpoint_requests_are_answered() {
    use openrdma_codec::{EethRepr, EndpointOp};
    let mut s = Script::receiver();
    s.nic.handle_port_status(s.now, 0b1011).expect("time moves forward");
    assert_eq!(s.nic.peer_port_status(), None);
    for (op, id, ev, status) in [
        (0u8, 0x1111_0000u32, 0x5150_0000u32, EethRepr::SUCCESS),
        (1, 0x2222_0001, 0x5151_0000, EethRepr::SUCCESS),
        (7, 0x3333_0002, 0x5152_0000, EethRepr::UNSUPPORTED_OP),
    ] {
        let ev = Ev::new(ev);
        s.advance(100);
        let r = s.inject_packet(ev, &endpoint_request(op, id, 0b0110));
        s.ok(r);
        let (out_ev, bth, eeth) = s.expect_endpoint_response();
        assert_eq!(out_ev, ev, "ERTH-RESP-001: the response travels on the request's EV");
        assert_eq!(bth.opcode, Opcode::MRC_ENDPOINT_RESPONSE);
        assert_eq!(bth.dest_qp, Qpn::ENDPOINT, "ERTH-QPN-001");
        assert_eq!(bth.psn, Psn::ZERO, "OPC-PSN-002");
        assert_eq!((eeth.op, eeth.request_id), (EndpointOp(op), id), "EETH-ECHO-001");
        assert_eq!(eeth.status, status, "EETH-STATUS-001");
        assert_eq!(eeth.port_status, 0b1011, "EETH-PORT-001: this NIC's ports");
        assert_eq!((eeth.resv2, eeth.data), (0, [0; 24]), "EETH-RESV-001, EETH-DATA-001");
        s.expect_nothing();
    }
    assert_eq!(s.nic.peer_port_status(), Some(0b0110), "PORT_STATUS_UPDATE was performed");
    // A response is never answered; it goes to the CPU half (REC-IF-018).
    let response = Packet::EndpointResponse {
        bth: openrdma_codec::BthRepr::new(Opcode::MRC_ENDPOINT_RESPONSE, Qpn::ENDPOINT, Psn::ZERO),
        eeth: EethRepr::new(EndpointOp::EV_PROBE, 0b1, 9),
    };
    let r = s.inject_packet(IN_EV, &response);
    s.ok(r);
    s.expect_no_tx();
    assert_eq!(s.take_reports().len(), 1, "the response is reported");
    s.expect_nothing();
    // ERTH-QPN-001: a request to another QPN is discarded unanswered.
    let mut wrong = endpoint_request(1, 5, 0);
    if let Packet::EndpointRequest { bth, .. } = &mut wrong {
        bth.dest_qp = lqp();
    }
    let r = s.inject_packet(IN_EV, &wrong);
    s.violation(r, "ERTH-QPN-001");
    s.expect_nothing();
}

/// REC-IF-017, ERTH-PORT-001, ERTH-RESV-001, ERTH-OP-001: on the CPU half's command the
/// NIC sends one endpoint request at once, on the EV named, to QPN 2 with PSN 0, with its
/// own ports and zero reserved fields; an operation the ERTH does not define is refused
/// with nothing sent. REC-IF-018: every response to QPN 2 is reported, whatever request it
/// names, and none is answered; one to another QPN is discarded.
#[test]
fn rec_if_017_the_cpu_half_sends_endpoint_requests() {
    use openrdma_codec::{EethRepr, EndpointOp};
    let mut s = Script::receiver();
    s.nic.handle_port_status(s.now, 0b0101).expect("time moves forward");
    for (op, ev, id) in [
        (EndpointOp::PORT_STATUS_UPDATE, 0x5150_0000u32, 7u32),
        (EndpointOp::EV_PROBE, 0x5151_0000, 8),
    ] {
        let ev = Ev::new(ev);
        s.advance(100);
        s.cpu(CpuCommand::EndpointRequest { op, ev, request_id: id });
        let t = s.take_tx();
        assert_eq!(t.len(), 1, "exactly one request");
        let Packet::EndpointRequest { bth, erth } = &t[0].packet else {
            panic!("expected an endpoint request, got {}", brief(&t[0].packet))
        };
        assert_eq!(t[0].ev, ev, "REC-IF-017: on the EV named");
        assert_eq!(
            (bth.opcode, bth.dest_qp, bth.psn),
            (Opcode::MRC_ENDPOINT_REQUEST, Qpn::ENDPOINT, Psn::ZERO)
        );
        assert_eq!((erth.op, erth.request_id), (op, id));
        assert_eq!(erth.port_status, 0b0101, "ERTH-PORT-001");
        assert_eq!((erth.resv1, erth.resv12), (0, 0), "ERTH-RESV-001");
        s.expect_nothing();
    }
    let refused = s.nic.handle_cpu(
        s.now,
        CpuCommand::EndpointRequest { op: EndpointOp(9), ev: Ev::new(0x5150_0000), request_id: 1 },
    );
    assert_eq!(refused.map_err(|e| e.requirement()), Err("ERTH-OP-001"));
    s.drain();
    s.expect_nothing();
    // Responses: to a request of ours, to none, and one to another QPN.
    for (dest, id) in [(Qpn::ENDPOINT, 7), (Qpn::ENDPOINT, 0xBAD), (lqp(), 8)] {
        let mut eeth = EethRepr::new(EndpointOp::PORT_STATUS_UPDATE, 0b11, id);
        eeth.status = EethRepr::UNSUPPORTED_OP;
        let response = Packet::EndpointResponse {
            bth: openrdma_codec::BthRepr::new(Opcode::MRC_ENDPOINT_RESPONSE, dest, Psn::ZERO),
            eeth,
        };
        let r = s.inject_packet(Ev::new(0x5152_0000), &response);
        if dest != Qpn::ENDPOINT {
            s.violation(r, "ERTH-QPN-001");
            s.expect_nothing();
            continue;
        }
        s.ok(r);
        s.expect_no_tx();
        assert_eq!(
            s.take_reports(),
            [NicReport::EndpointResponse {
                ev: Ev::new(0x5152_0000),
                op: EndpointOp::PORT_STATUS_UPDATE,
                request_id: id,
                status: EethRepr::UNSUPPORTED_OP,
                port_status: 0b11,
            }],
            "REC-IF-018"
        );
        s.expect_nothing();
    }
}

/// ERTH-QPN-001: no MRC connection uses QPN 2, at either end: the NIC refuses such a QP,
/// and changes nothing; packets to QPN 2 that are not endpoint requests find no QP.
#[test]
fn erth_qpn_001_qpn_2_is_reserved() {
    let mut s = Script::receiver();
    for (qpn, peer) in [(2, PEER_B), (LQP_B, 2)] {
        let r = s.host(HostCommand::CreateQp(qp_config(qpn, peer, 0, 0)));
        match r {
            Err(HostError::Misuse(e)) => assert_eq!(e.requirement(), "ERTH-QPN-001", "{e}"),
            other => panic!("QP {qpn} facing {peer} was not refused: {other:?}"),
        }
    }
    assert_eq!(s.nic.qp_count(), 1);
    s.refuse(write(0, 0, ONLY, va(0, 0), 64).dest(2).ack_req(), "RCV-QP-001");
    s.expect_nothing();
}

/// SND-SPRAY-005, SND-SPRAY-006, SND-SPRAY-009: window-fit sprays round robin while an EV
/// has no round trip; once three EVs have one of 1 µs and the fourth's judged round trip
/// (the age of its oldest transmission) is 20 µs, the window cannot cover the fourth:
/// it is left out, and, never probed before, probed at once, right after the packet whose
/// choice left it out.
#[test]
fn snd_spray_009_window_fit_probes_the_ev_it_leaves_out() {
    let qp = QpConfig { spray: SprayPolicy::WindowFit, ..qp_config(LQP, PEER, 0, 0) };
    let mut s = Script::with_qp(config(), qp);
    // 131 packets; the window (128) takes PSNs 0 to 127, round robin over the four EVs.
    s.post(wr(131 * PMTU, 0, 1));
    for psn in 0..128u32 {
        let (ev, _) = s.expect_data(psn, if psn == 0 { FIRST } else { MIDDLE });
        assert_eq!(ev, EVS[psn as usize % 4], "PSN {psn}");
    }
    s.drop_reports();
    s.expect_nothing();
    // 1 µs later every packet of the first three EVs among PSNs 0 to 63 has arrived, and none
    // of the fourth's: nothing cumulative, so the window stays full.
    s.advance(1_000);
    let fourth: u64 = (0..64).filter(|i| i % 4 == 3).map(|i| 1u64 << i).sum();
    s.accept_ctrl(sack(0xFF_FFFF, 1, !fourth));
    s.drop_reports();
    s.expect_nothing();
    // At 20 µs PSNs 0 to 2 are acknowledged cumulatively: three PSNs of window open. The
    // evaluation at PSN 128 leaves the fourth EV out and queues its probe.
    s.advance(19_000);
    s.accept_ctrl(sack(2, 1, 0));
    s.drop_reports();
    let (ev, _) = s.expect_data(128, MIDDLE);
    assert_eq!(ev, EVS[0]);
    s.expect_probe(EVS[3]);
    let (ev, _) = s.expect_data(129, MIDDLE);
    assert_eq!(ev, EVS[1]);
    let (ev, _) = s.expect_data(130, LAST);
    assert_eq!(ev, EVS[2], "round robin over the EVs within the limit");
    s.expect_nothing();
}
