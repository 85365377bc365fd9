//! Scripted tests of the responder's edges: the boundaries of its checks, the timestamps
//! it reflects, the SACK triggers of RCV-SACK-001 one at a time and its key lookup. Each test drives one
//! [`openrdma_sm::Nic`] with hand-built packets and checks its exact outputs, as
//! `scripted.rs` does; the requirement a test checks is named in its doc comment.

mod script;

use openrdma_codec::{AethRepr, Ev, NackReason, Opcode, Psn, Qpn, Rkey, TsethRepr};
use openrdma_sm::{HostCommand, NicConfig, Region, Side};
use script::*;

const FIRST: Opcode = Opcode::MRC_WRITE_FIRST;
const MIDDLE: Opcode = Opcode::MRC_WRITE_MIDDLE;
const LAST: Opcode = Opcode::MRC_WRITE_LAST;
const ONLY: Opcode = Opcode::MRC_WRITE_ONLY;
const ONLY_IMM: Opcode = Opcode::MRC_WRITE_ONLY_IMM;

fn lqp() -> Qpn {
    Qpn::new(LQP)
}

/// Address of packet `i` of a message placed at `REGION_BASE + off`.
fn va(off: u64, i: u32) -> u64 {
    REGION_BASE + off + u64::from(i) * u64::from(PMTU)
}

/// The packet with a TSETH carrying `ts`, as a requester with timestamps sends it.
fn stamped(mut w: W, ts: u16) -> W {
    w.pkt.bth.ts = true;
    w.pkt.tseth = Some(TsethRepr { tx_timestamp: ts, tsr: false, resv: 0, ftype: 1 });
    w
}

/// RCV-NACK-001 (d, e, f), NETH-TS-001, TSETH-TS-001: the NACK of an out-of-window write
/// names its PSN, reflects its EV and reflects its TSETH `tx_timestamp` unchanged.
#[test]
fn rcv_nack_001_nack_reflects_the_timestamp_of_the_packet() {
    let mut s = Script::receiver();
    let w = stamped(write(500, 0, ONLY, va(0, 0), 8), 0xBEEF).ev(Ev::new(0x66));
    s.refuse(w, "RCV-WIN-002");
    let neth = s.expect_nack(500, NackReason::PSN_OOR_WINDOW);
    assert_eq!(neth.entropy, Ev::new(0x66), "RCV-NACK-001 (e): the packet's EV");
    assert_eq!(neth.tx_timestamp, 0xBEEF, "RCV-NACK-001 (f): the packet's timestamp");
    s.expect_nothing();
}

/// RCV-SACK-007, CCS-TS-001: the CC_STATE of a SACK carries the `tx_timestamp` of the
/// packet that triggered it, for a new write and for a duplicate alike.
#[test]
fn rcv_sack_007_sack_reflects_the_timestamp_of_its_trigger() {
    let mut s = Script::receiver();
    s.accept(stamped(write(0, 0, ONLY, va(0, 0), 8).ack_req(), 0x1357));
    s.expect_dma(va(0, 0), 8);
    s.expect_flag_len(0, 8);
    s.expect_ack(0);
    let (_, _, cc) = s.expect_sack(0, 0);
    assert_eq!(cc.tx_timestamp, 0x1357, "the new write's timestamp");
    s.expect_nothing();

    s.advance(10);
    s.accept(stamped(write(0, 0, ONLY, va(0, 0), 8).rtx(), 0x2468));
    let (_, _, cc) = s.expect_sack(0, 0);
    assert_eq!(cc.tx_timestamp, 0x2468, "the duplicate's timestamp");
    s.expect_ack(0);
    s.expect_nothing();
}

/// RCV-SACK-001 (d): a new write with BTH `rtx` set is SACKed at once, even in order, with
/// no AckReq and fewer than `sack_coalesce` packets waiting.
#[test]
fn rcv_sack_001_a_new_retransmission_is_sacked_at_once() {
    let mut s = Script::receiver();
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(4 * PMTU).rtx());
    s.expect_dma(va(0, 0), PMTU);
    s.expect_sack(0, 0);
    s.expect_nothing();
    // Its neighbour without `rtx` waits for coalescing or the timer (RCV-SACK-002).
    s.advance(10);
    s.accept(write(1, 0, MIDDLE, va(0, 1), PMTU).dma_len(4 * PMTU));
    s.expect_dma(va(0, 1), PMTU);
    s.expect_nothing();
}

/// RCV-SACK-001 (a, b, c) and RCV-SACK-002, one trigger at a time: an in-order packet
/// without a trigger is held back; AckReq alone, a hole alone and a filled hole alone each
/// send the SACK at once.
#[test]
fn rcv_sack_001_each_trigger_on_its_own() {
    let mut s = Script::receiver();
    let total = 8 * PMTU;
    // In order, no trigger: held back.
    s.accept(write(0, 0, FIRST, va(0, 0), PMTU).dma_len(total));
    s.expect_dma(va(0, 0), PMTU);
    s.expect_nothing();
    // (a) AckReq alone.
    s.advance(10);
    s.accept(write(1, 0, MIDDLE, va(0, 1), PMTU).dma_len(total).ack_req());
    s.expect_dma(va(0, 1), PMTU);
    s.expect_sack(1, 0);
    s.expect_nothing();
    // (b) after a hole (PSN 2 missing).
    s.advance(10);
    s.accept(write(3, 0, MIDDLE, va(0, 3), PMTU).dma_len(total));
    s.expect_dma(va(0, 3), PMTU);
    s.expect_sack(1, 0b10);
    s.expect_nothing();
    // (c) filling the hole moves epsn by two.
    s.advance(10);
    s.accept(write(2, 0, MIDDLE, va(0, 2), PMTU).dma_len(total));
    s.expect_dma(va(0, 2), PMTU);
    s.expect_sack(3, 0);
    s.expect_nothing();
    // In order again, no trigger: held back.
    s.advance(10);
    s.accept(write(4, 0, MIDDLE, va(0, 4), PMTU).dma_len(total));
    s.expect_dma(va(0, 4), PMTU);
    s.expect_nothing();
}

/// WWI-LIMIT-002: only a write that carries an immediate is held to the limit, and only
/// when its RQMSN is ahead by more than `wwi_limit` and less than 2^15. A plain LAST, ONLY
/// or FIRST with any RQMSN is accepted; a Write-with-Immediate exactly 2^15 ahead is not
/// "ahead" and is accepted too.
#[test]
fn wwi_limit_002_only_immediates_within_half_the_space() {
    let cfg = NicConfig { wwi_limit: 4, ..config() };
    let mut s = Script::with(cfg, 0, 0);
    // A plain ONLY far ahead.
    s.accept(write(0, 0, ONLY, va(0, 0), 8).rqmsn(100).ack_req());
    s.expect_dma(va(0, 0), 8);
    s.expect_flag_len(0, 8);
    s.expect_ack(0);
    s.expect_sack(0, 0);
    s.expect_nothing();
    // A plain FIRST and LAST far ahead.
    s.advance(10);
    s.accept(write(1, 1, FIRST, va(0x1000, 0), PMTU).dma_len(PMTU + 8).rqmsn(200));
    s.expect_dma(va(0x1000, 0), PMTU);
    s.expect_nothing();
    s.advance(10);
    s.accept(write(2, 1, LAST, va(0x1000, 1), 8).dma_len(PMTU + 8).rqmsn(200).ack_req());
    s.expect_dma(va(0x1000, 1), 8);
    s.expect_flag_len(1, PMTU + 8);
    s.expect_ack(1);
    s.expect_sack(2, 0);
    s.expect_nothing();
    assert_eq!(s.nic.qp_in_error(lqp()), Some(false));
    // A Write-with-Immediate 2^15 ahead of the last delivered RQMSN (0).
    s.advance(10);
    s.accept(write(3, 2, ONLY_IMM, va(0x2000, 0), 8).imm(7).rqmsn(0x8000).ack_req());
    s.expect_dma(va(0x2000, 0), 8);
    let c = s.expect_completion(Side::Responder, Default::default());
    assert_eq!((c.imm, c.msn.value()), (7, 2));
    s.expect_flag_len(2, 8);
    s.expect_ack(2);
    s.expect_sack(3, 0);
    s.expect_nothing();
    assert_eq!(s.nic.qp_in_error(lqp()), Some(false));
}

/// RCV-PLACE-002, RCV-PLACE-003: every write is checked against the region its own key
/// names, whatever key the write before it used: a second region is reachable by its own
/// key, and a key that names no region is refused even at an address inside the region
/// last used.
#[test]
fn rcv_place_002_each_write_checked_against_its_own_key() {
    let mut s = Script::receiver();
    let (other, base) = (Rkey::new(0x0B0B), 0x30_0000u64);
    let region = Region { rkey: other, base, len: 0x1000, remote_write: true };
    s.host(HostCommand::RegisterRegion(region)).expect("second region");
    s.accept(write(0, 0, ONLY, va(0, 0), 8).ack_req());
    s.expect_dma(va(0, 0), 8);
    s.expect_flag_len(0, 8);
    s.expect_ack(0);
    s.expect_sack(0, 0);
    s.expect_nothing();
    // The second region, by its key, right after a write to the first.
    s.advance(10);
    s.accept(write(1, 1, ONLY, base + 0x10, 8).rkey(other).ack_req());
    s.expect_dma(base + 0x10, 8);
    s.expect_flag_len(1, 8);
    s.expect_ack(1);
    s.expect_sack(1, 0);
    s.expect_nothing();
    // An unknown key at an address inside the region just used.
    s.advance(10);
    s.refuse(write(2, 2, ONLY, base + 0x20, 8).rkey(Rkey::new(0x7777)), "RCV-PLACE-002");
    s.expect_nak(AethRepr::NAK_REMOTE_ACCESS);
    s.expect_nothing();
    // The first region's key does not reach the second region.
    s.refuse(write(2, 2, ONLY, base + 0x20, 8), "RCV-PLACE-002");
    s.expect_nak(AethRepr::NAK_REMOTE_ACCESS);
    s.expect_nothing();
    // And the first region still works by its key.
    s.accept(write(2, 2, ONLY, va(0, 2), 8).ack_req());
    s.expect_dma(va(0, 2), 8);
    s.expect_flag_len(2, 8);
    s.expect_ack(2);
    s.expect_sack(2, 0);
    s.expect_nothing();
    assert_eq!(s.nic.expected_psn(lqp()), Some(Psn::new(3)));
}
