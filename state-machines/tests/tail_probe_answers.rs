//! Which SACKs answer a probe sent while tail probing is on (`SND-TAIL-003`): one with
//! `pr` 1, on the probe's EV, carrying its `probe_id`, for any probe the sender sent and
//! has not yet taken an answer for, even after later probes on other EVs.

mod script;

use core::time::Duration;

use openrdma_codec::{Opcode, Psn, Qpn};
use openrdma_sm::{CpuCommand, NicConfig, Packet};
use script::*;

const FIRST: Opcode = Opcode::MRC_WRITE_FIRST;
const MIDDLE: Opcode = Opcode::MRC_WRITE_MIDDLE;
const LAST: Opcode = Opcode::MRC_WRITE_LAST;

/// The delay of every script here.
const TAIL: u64 = 2_000;

/// Four packets, one per EV, with PSNs 0, 1 and 3 SACKed: PSN 2, the tail of EV 2, is
/// lost. Tail probing is on and no probe has left yet.
fn tail_of_ev2_lost() -> Script {
    let cfg = NicConfig { tail_probe: Some(Duration::from_nanos(TAIL)), ..config() };
    let mut s = Script::with(cfg, 0, 0);
    s.post(wr(4 * PMTU, 0, 1));
    for (p, op) in [(0, FIRST), (1, MIDDLE), (2, MIDDLE), (3, LAST)] {
        let (ev, _) = s.expect_data(p, op);
        assert_eq!(ev, EVS[p as usize]);
    }
    s.at(1_000);
    s.accept_ctrl(sack(1, 1, 0b10));
    s.expect_no_tx();
    s.drop_reports();
    s
}

/// The answer to probe `id` on EV 2 (cack 1, PSN 3 in the bitmap, PSN 2 not), with `pr`
/// as given.
fn answer_on_ev2(id: u16, pr: bool) -> Packet {
    let Packet::Sack { bth, mut seth, cc_state } = probe_answer(1, EVS[2], id) else {
        unreachable!("probe_answer builds a SACK")
    };
    seth.sack_bitmap = 0b10;
    seth.pr = pr;
    Packet::Sack { bth, seth, cc_state }
}

/// SND-TAIL-003: a SACK with `pr` 0 is no probe answer, even on the probe's EV with the
/// probe's ID in `ack_psn_offset`: PSN 2 is not resent. The same SACK with `pr` 1 is the
/// answer, and PSN 2 is resent.
#[test]
fn snd_tail_003_a_sack_without_pr_is_no_answer() {
    let mut s = tail_of_ev2_lost();
    s.cpu(CpuCommand::Probe { qpn: Qpn::new(LQP), ev: EVS[2] });
    let (_, id) = s.expect_probe(EVS[2]);
    s.expect_no_tx();
    s.drop_reports();
    s.at(1_500);
    s.accept_ctrl(answer_on_ev2(id, false));
    s.expect_no_tx();
    s.drop_reports();
    s.accept_ctrl(answer_on_ev2(id, true));
    s.expect_rtx(2);
    s.expect_no_tx();
}

/// SND-TAIL-002, SND-TAIL-003: the sender keeps every probe sent and not yet answered, up
/// to two per EV of the profile. After a probe on EV 2 and seven more on EV 0 (eight, two
/// per EV), the answer to the first is still its answer: PSN 2 is resent.
#[test]
fn snd_tail_003_the_oldest_of_two_probes_per_ev_is_still_answered() {
    let mut s = tail_of_ev2_lost();
    s.cpu(CpuCommand::Probe { qpn: Qpn::new(LQP), ev: EVS[2] });
    let (psn, id) = s.expect_probe(EVS[2]);
    assert_eq!(psn, Psn::new(4));
    for _ in 0..7 {
        s.cpu(CpuCommand::Probe { qpn: Qpn::new(LQP), ev: EVS[0] });
        s.expect_probe(EVS[0]);
    }
    s.expect_no_tx();
    s.drop_reports();
    s.at(1_500);
    s.accept_ctrl(answer_on_ev2(id, true));
    s.expect_rtx(2);
    s.expect_no_tx();
}

/// SND-TAIL-003, SND-INFER-004: a transmission since sent again on another EV is no longer
/// the latest of its PSN, and a probe answer on its old EV judges nothing about it. PSN 1
/// leaves on A1, then again on A2 (a timeout), where it takes the same per-EV sequence
/// number, 0. A probe on A1 is answered without PSN 1: nothing is resent.
#[test]
fn snd_tail_003_an_answer_ignores_a_transmission_sent_again_elsewhere() {
    let cfg = NicConfig { tail_probe: Some(Duration::from_nanos(TAIL)), ..config() };
    let mut s = Script::with(cfg, 0, 0);
    s.post(wr(2 * PMTU, 0, 1));
    assert_eq!(s.expect_data(0, FIRST).0, EVS[0]);
    assert_eq!(s.expect_data(1, LAST).0, EVS[1]);
    s.at(100);
    s.cpu(CpuCommand::Retransmit { qpn: Qpn::new(LQP), psn: Psn::new(1) });
    let (ev, _) = s.expect_rtx(1);
    assert_eq!(ev, EVS[2], "the first transmission on A2");
    s.cpu(CpuCommand::Probe { qpn: Qpn::new(LQP), ev: EVS[1] });
    let (_, id) = s.expect_probe(EVS[1]);
    s.expect_no_tx();
    s.drop_reports();
    // cack 0, bitmap from PSN 1 empty: PSN 1 is covered and not shown.
    s.at(500);
    s.accept_ctrl(probe_answer(0, EVS[1], id));
    s.expect_no_tx();
    assert_eq!(s.nic.stats().retransmissions, 1);
}
