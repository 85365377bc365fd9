//! Which NACKs a sender acts on (`SND-NACK-001`), at the edges of the PSN ranges: the
//! oldest outstanding PSN is repaired, `snd_nxt` is never sent, and the `W_own` PSNs before
//! `snd_una` are stale while the one before them is a violation.

mod script;

use openrdma_codec::{NackReason, Opcode, Psn, Qpn};
use openrdma_sm::{NicReport, PeerViolation};
use script::*;

const FIRST: Opcode = Opcode::MRC_WRITE_FIRST;
const MIDDLE: Opcode = Opcode::MRC_WRITE_MIDDLE;
const LAST: Opcode = Opcode::MRC_WRITE_LAST;

/// The send window of the scripts (`mpr` 1): 128 packets.
const W: u32 = 128;

fn lqp() -> Qpn {
    Qpn::new(LQP)
}

/// Four packets sent, PSN p on EV p mod 4, and PSN 0 SACKed: `snd_una` is 1, `snd_nxt` 4.
fn psn_0_acknowledged() -> Script {
    let mut s = Script::sender();
    s.post(wr(4 * PMTU, 0, 1));
    for (p, op) in [(0, FIRST), (1, MIDDLE), (2, MIDDLE), (3, LAST)] {
        s.expect_data(p, op);
    }
    s.advance(1_000);
    s.accept_ctrl(sack(0, 1, 0));
    s.expect_no_tx();
    s.drop_reports();
    s
}

/// SND-NACK-002: a NACK TRIMMED for `snd_una` itself, the oldest outstanding PSN, is not
/// stale: the PSN is resent at once.
#[test]
fn snd_nack_002_a_trim_of_snd_una_is_repaired() {
    let mut s = psn_0_acknowledged();
    s.accept_ctrl(nack(1, NackReason::TRIMMED));
    let (ev, _) = s.expect_rtx(1);
    assert_ne!(ev, EVS[1], "not on the EV it was trimmed on");
    s.expect_no_tx();
}

/// SND-NACK-001 (c, d): `snd_nxt` was never sent: a NACK for it is refused as a violation
/// and changes nothing.
#[test]
fn snd_nack_001_a_nack_for_snd_nxt_is_refused() {
    let mut s = psn_0_acknowledged();
    let before = s.nic.send_window(lqp());
    let r = s.inject_ctrl(&nack(4, NackReason::NO_RESOURCE));
    let v = s.violation(r, "SND-NACK-001");
    assert_eq!(
        v,
        PeerViolation::NackUnknownPsn {
            qpn: lqp(),
            psn: Psn::new(4),
            snd_una: Psn::new(1),
            snd_nxt: Psn::new(4)
        }
    );
    s.expect_nothing();
    assert_eq!(s.nic.send_window(lqp()), before);
}

/// SND-NACK-001 (a, b): the `W_own` PSNs before `snd_una` are stale; a NACK for the
/// oldest of them (`snd_una` − 128, across the PSN wrap) is reported and repairs nothing.
/// (c, d): a NACK for the PSN before that is a violation.
#[test]
fn snd_nack_001_stale_reaches_back_w_own_psns() {
    let mut s = psn_0_acknowledged();
    let oldest = Psn::new(1).sub(W);
    let r = s.inject_ctrl(&nack(oldest.value(), NackReason::TRIMMED));
    s.ok(r);
    s.expect_no_tx();
    s.expect_report(NicReport::Nack { qpn: lqp(), psn: oldest, reason: NackReason::TRIMMED });
    s.expect_nothing();

    let beyond = oldest.sub(1);
    let r = s.inject_ctrl(&nack(beyond.value(), NackReason::TRIMMED));
    let v = s.violation(r, "SND-NACK-001");
    assert!(matches!(v, PeerViolation::NackUnknownPsn { psn, .. } if psn == beyond), "{v:?}");
    s.expect_nothing();
}
