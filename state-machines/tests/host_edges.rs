//! Scripted tests of what the NIC writes back to the host for the sender, at the edges
//! cargo mutants found untested: unsignaled work requests and the bounds of the flag
//! table. Each test drives one [`openrdma_sm::Nic`] and checks its exact outputs, as
//! `scripted.rs` does; the requirement a test checks is named in its doc comment.

mod script;

use openrdma_codec::host::CompletionStatus;
use openrdma_codec::{AethRepr, Opcode, Psn, Qpn};
use openrdma_sm::{HostCommand, NicEvent, SendWindow, Side};
use script::*;

const ONLY: Opcode = Opcode::MRC_WRITE_ONLY;

fn lqp() -> Qpn {
    Qpn::new(LQP)
}

/// WR-SIGNALED-001 (b), FLAG-SEND-002: an unsignaled work request that succeeds writes its
/// sender flag and no completion entry; a signaled one behind it writes both.
#[test]
fn wr_signaled_001_unsignaled_success_writes_the_flag_alone() {
    let mut s = Script::sender();
    s.post(openrdma_codec::host::WorkRequest { signaled: false, ..wr(100, 0, 3) });
    s.post(wr(50, 0x1000, 4));
    s.expect_data(0, ONLY);
    s.expect_data(1, ONLY);
    s.drop_reports();
    s.advance(1_000);
    s.accept_ctrl(aeth(AethRepr::ACK, 1));
    s.expect_send_flag(3, 7, CompletionStatus::SUCCESS, 100);
    let c = s.expect_completion(Side::Requester, CompletionStatus::SUCCESS);
    assert_eq!((c.msn.value(), c.byte_len), (1, 50));
    s.expect_send_flag(4, 7, CompletionStatus::SUCCESS, 50);
    s.expect_quiet();
}

/// WR-SIGNALED-001 (c), CQE-SEND-002: an unsignaled work request that fails writes a
/// completion entry with the failure's status and its flag.
#[test]
fn wr_signaled_001_unsignaled_failure_writes_entry_and_flag() {
    let mut s = Script::sender();
    s.post(openrdma_codec::host::WorkRequest { signaled: false, ..wr(10, 0, 5) });
    s.expect_data(0, ONLY);
    s.drop_reports();
    s.accept_ctrl(aeth(AethRepr::NAK_REMOTE_ACCESS, 0xFFFF));
    let c = s.expect_completion(Side::Requester, CompletionStatus::REMOTE_ACCESS_ERROR);
    assert_eq!((c.msn.value(), c.byte_len), (0, 0));
    s.expect_send_flag(5, 7, CompletionStatus::REMOTE_ACCESS_ERROR, 0);
    s.expect_no_events();
    assert_eq!(s.nic.qp_in_error(lqp()), Some(true));
}

/// FLAG-TABLE-001 (b, c), FLAG-SEND-001 (b): the sender flag of `flag_slot` s is the word
/// at `send_flag_base + 8 × s` for s below `send_flag_slots`, the last slot included; a
/// work request whose slot lies outside the table completes without any flag written.
#[test]
fn flag_table_001_no_sender_flag_outside_the_table() {
    let mut s = Script::sender();
    let last = SEND_FLAG_SLOTS - 1;
    s.post(wr(10, 0, last));
    s.post(wr(20, 0x100, SEND_FLAG_SLOTS));
    s.post(wr(30, 0x200, 1));
    for p in 0..3 {
        s.expect_data(p, ONLY);
    }
    s.drop_reports();
    s.accept_ctrl(aeth(AethRepr::ACK, 2));
    s.expect_completion(Side::Requester, CompletionStatus::SUCCESS);
    s.expect_send_flag(last, 7, CompletionStatus::SUCCESS, 10);
    let c = s.expect_completion(Side::Requester, CompletionStatus::SUCCESS);
    assert_eq!(c.byte_len, 20);
    // No flag for the slot outside the table: the next event is the third message's.
    s.expect_completion(Side::Requester, CompletionStatus::SUCCESS);
    s.expect_send_flag(1, 7, CompletionStatus::SUCCESS, 30);
    s.expect_quiet();
    let flags = s.take_events().into_iter().filter(|e| matches!(e, NicEvent::FlagWrite(_)));
    assert_eq!(flags.count(), 0);
    assert_eq!(
        s.nic.send_window(lqp()),
        Some(SendWindow { unacked: Psn::new(3), next: Psn::new(3) })
    );
}

/// ERTH-QPN-001, TPL-QPN-001: QPN 2 is the endpoint operations'; a QP numbered 2, or one
/// whose peer is numbered 2, is refused and no QP is created.
#[test]
fn erth_qpn_001_no_qp_numbered_2_at_either_end() {
    let mut s = Script::sender();
    let before = s.nic.qp_count();
    for (qpn, peer) in [(2, PEER_B), (LQP_B, 2)] {
        let r = s.host(HostCommand::CreateQp(qp_config(qpn, peer, 0, 0)));
        let e = r.expect_err("QPN 2 at one end");
        assert_eq!(e.requirement(), "ERTH-QPN-001", "QP {qpn:#x}, peer {peer:#x}: {e}");
        assert_eq!(s.nic.qp_count(), before);
    }
    s.expect_nothing();
    // The same QP with ordinary numbers at both ends is created.
    s.host(HostCommand::CreateQp(qp_config(LQP_B, PEER_B, 0, 0))).expect("an ordinary QP");
    assert_eq!(s.nic.qp_count(), before + 1);
}
