//! Loss inference on FIFO paths (`SND-INFER-*`) and the checks of a SACK that come before
//! it (`SND-SACK-*`), at the edges the other scripts do not reach: a gap between
//! `cack_psn + 1` and the bitmap base, and the largest `sack_offset` a responder can use.

mod script;

use openrdma_codec::{Opcode, Psn, Qpn};
use openrdma_sm::{CpuCommand, NicReport, PeerViolation, RetransmitCause};
use script::*;

const FIRST: Opcode = Opcode::MRC_WRITE_FIRST;
const MIDDLE: Opcode = Opcode::MRC_WRITE_MIDDLE;
const LAST: Opcode = Opcode::MRC_WRITE_LAST;

fn lqp() -> Qpn {
    Qpn::new(LQP)
}

/// A sender that has sent one message of `n` packets, PSN p on EV p mod 4.
fn sent(n: u32) -> Script {
    let mut s = Script::sender();
    s.post(wr(n * PMTU, 0, 1));
    for p in 0..n {
        let op = match p {
            0 => FIRST,
            p if p + 1 == n => LAST,
            _ => MIDDLE,
        };
        let (ev, _) = s.expect_data(p, op);
        assert_eq!(ev, EVS[(p % 4) as usize]);
    }
    s.expect_no_tx();
    s.drop_reports();
    s
}

/// SND-INFER-002: PSN 2 and PSN 6 share EV A2. A SACK with cack 0 whose bitmap starts at
/// PSN 4 (`sack_offset` 4) shows PSN 6: PSN 2 becomes a suspect, but it lies in the gap
/// between `cack_psn + 1` and the bitmap base, which the SACK does not cover, so nothing
/// is resent. A later SACK that covers PSN 2 but does not show PSN 6 proves nothing
/// either; one that covers PSN 2, shows PSN 6 and does not show PSN 2 makes it lost.
#[test]
fn snd_infer_002_a_gap_before_the_bitmap_is_not_covered() {
    let mut s = sent(8);
    s.advance(1_000);
    // Bitmap based at PSN 4: bit 2 is PSN 6.
    s.accept_ctrl(sack(0, 4, 0b100));
    s.expect_no_tx();
    s.drop_reports();

    s.advance(1_000);
    // Bitmap based at PSN 1: bit 2 is PSN 3. The SACK covers PSN 2 but does not show the
    // evidence, PSN 6: it was generated before PSN 6 arrived, and says nothing of EV A2.
    s.accept_ctrl(sack(0, 1, 0b100));
    s.expect_no_tx();
    s.drop_reports();

    s.advance(1_000);
    // Bit 5 is PSN 6: PSN 2 is covered and missing, and the evidence is shown.
    s.accept_ctrl(sack(0, 1, 1 << 5));
    let (ev, _) = s.expect_rtx(2);
    assert_ne!(ev, EVS[2], "not the EV it was lost on");
    s.expect_no_tx();
    assert!(
        s.take_reports().contains(&NicReport::Retransmitted {
            qpn: lqp(),
            psn: Psn::new(2),
            cause: RetransmitCause::SackInference,
            lost_ev: Some(EVS[2]),
        }),
        "PSN 2 is resent by inference"
    );
}

/// SND-SACK-004: with a window of 128 packets, a `sack_offset` of 128 + 64 = 192, either
/// way, is the largest a responder can use and is taken; 193 is refused and changes
/// nothing.
#[test]
fn snd_sack_004_largest_sack_offset_is_taken() {
    let mut s = sent(4);
    s.advance(1_000);
    for offset in [192, -192] {
        let r = s.inject_ctrl(&sack(0, offset, 0));
        s.ok(r);
        s.drop_reports();
    }
    let before = s.nic.send_window(lqp());
    for offset in [193, -193] {
        let r = s.inject_ctrl(&sack(1, offset, 0));
        let v = s.violation(r, "SND-SACK-004");
        assert_eq!(v, PeerViolation::SackOffset { qpn: lqp(), offset });
        s.expect_nothing();
        assert_eq!(s.nic.send_window(lqp()), before);
    }
}

/// SND-SACK-002 (a), REC-RTO-003: a SACK whose cumulative part moves `snd_una` to PSN 1
/// and whose bitmap's first bit is PSN 1 marks PSN 1 arrived. A timeout retransmission
/// from PSN 1 then resends PSN 2, the oldest PSN not SACKed, not PSN 1.
#[test]
fn snd_sack_002_the_bit_for_snd_una_marks_it_arrived() {
    let mut s = sent(4);
    s.advance(1_000);
    s.accept_ctrl(sack(0, 1, 0b1));
    s.expect_no_tx();
    s.drop_reports();
    s.advance(50_000);
    s.cpu(CpuCommand::Retransmit { qpn: lqp(), psn: Psn::new(1) });
    s.expect_rtx(2);
    s.expect_no_tx();
}
