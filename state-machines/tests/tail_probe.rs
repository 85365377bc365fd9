//! Tail probing (`SND-TAIL-*`): the last transmissions on an EV have no later transmission
//! to reveal their loss; with `tail_probe` set, a probe follows them on the EV, and its
//! answer is evidence as a later data packet would be.

mod script;

use core::time::Duration;

use openrdma_codec::{Ev, Opcode, Psn, Qpn};
use openrdma_sm::{NicConfig, NicReport, Packet, RetransmitCause};
use script::*;

const FIRST: Opcode = Opcode::MRC_WRITE_FIRST;
const MIDDLE: Opcode = Opcode::MRC_WRITE_MIDDLE;
const LAST: Opcode = Opcode::MRC_WRITE_LAST;

/// The delay of every script here.
const TAIL: u64 = 2_000;

fn tail_config() -> NicConfig {
    NicConfig { tail_probe: Some(Duration::from_nanos(TAIL)), ..config() }
}

/// Posts a four-packet message and takes its packets: one on each of the four EVs, so that
/// every packet is the tail of its EV.
fn four_packets(s: &mut Script) {
    s.post(wr(4 * PMTU, 0, 1));
    for (p, op) in [(0, FIRST), (1, MIDDLE), (2, MIDDLE), (3, LAST)] {
        let (ev, _) = s.expect_data(p, op);
        assert_eq!(ev, EVS[p as usize]);
    }
    s.expect_no_tx();
    s.drop_reports();
}

/// [`four_packets`] with PSNs 0, 1 and 3 SACKed (PSN 2, the tail of EV 2, lost), run to
/// the tail probe that follows PSN 2 on EV 2: the script and the probe's ID.
fn tail_of_ev2_probed() -> (Script, u16) {
    let mut s = Script::with(tail_config(), 0, 0);
    four_packets(&mut s);
    s.at(1_000);
    s.accept_ctrl(sack(1, 1, 0b10));
    s.drop_reports();
    s.at(TAIL);
    s.timeout();
    let (_, id) = s.expect_probe(EVS[2]);
    (s, id)
}

/// A probe answer reporting `cack` and `bitmap` based at `cack + 1`.
fn answer(cack: u32, bitmap: u64, ev: Ev, id: u16) -> Packet {
    let Packet::Sack { bth, mut seth, cc_state } = probe_answer(cack, ev, id) else {
        unreachable!("probe_answer builds a SACK")
    };
    seth.sack_bitmap = bitmap;
    Packet::Sack { bth, seth, cc_state }
}

/// SND-TAIL-001, SND-TAIL-003: PSN 2, the last packet on EV 2, is lost. No later packet on
/// EV 2 can show it (SND-INFER-001), so per-EV inference alone waits for the timeout; the
/// tail probe follows it on EV 2 `tail_probe` after it left, and the answer, which shows
/// PSN 3 but not PSN 2, makes it lost: it is retransmitted at once, on another EV.
#[test]
fn snd_tail_001_a_lost_tail_is_probed_and_the_answer_repairs_it() {
    let mut s = Script::with(tail_config(), 0, 0);
    four_packets(&mut s);
    // PSNs 0, 1 and 3 arrived: cack 1, bitmap based at 2 with PSN 3 set.
    s.at(1_000);
    s.accept_ctrl(sack(1, 1, 0b10));
    s.expect_no_tx();
    s.drop_reports();
    assert_eq!(s.next_timeout(), Some(openrdma_sm::Timestamp(TAIL)), "the tail of EV 2 is due");
    s.at(TAIL - 1);
    s.timeout();
    s.expect_no_tx();
    s.at(TAIL);
    s.timeout();
    let (psn, id) = s.expect_probe(EVS[2]);
    assert_eq!(psn, Psn::new(4), "a probe carries snd_nxt and consumes no PSN");
    s.expect_no_tx();
    // The answer left the responder after the probe arrived, so after PSN 2 would have.
    s.at(TAIL + 800);
    s.accept_ctrl(answer(1, 0b10, EVS[2], id));
    let (ev, w) = s.expect_rtx(2);
    assert_ne!(ev, EVS[2], "not on the EV it was lost on (SND-RTX-002)");
    assert_eq!(w.bth.opcode, MIDDLE);
    s.expect_no_tx();
    let reports = s.take_reports();
    assert!(
        reports.contains(&NicReport::Retransmitted {
            qpn: Qpn::new(LQP),
            psn: Psn::new(2),
            cause: RetransmitCause::SackInference,
            lost_ev: Some(EVS[2]),
        }),
        "{reports:?}"
    );
    assert_eq!(s.nic.stats().retransmissions, 1);
}

/// SND-TAIL-001: tails acknowledged before `tail_probe` passes are never probed.
#[test]
fn snd_tail_001_acknowledged_tails_are_not_probed() {
    let mut s = Script::with(tail_config(), 0, 0);
    four_packets(&mut s);
    s.at(1_000);
    s.accept_ctrl(sack(3, 1, 0));
    s.drop_reports();
    s.at(10 * TAIL);
    s.timeout();
    s.expect_no_tx();
    assert_eq!(s.nic.stats().probes_sent, 0);
}

/// SND-TAIL-003: an answer that shows the tail arrived (it was late, not lost) repairs
/// nothing; probing never causes a spurious retransmission.
#[test]
fn snd_tail_003_an_answer_that_shows_the_tail_repairs_nothing() {
    let (mut s, id) = tail_of_ev2_probed();
    s.at(TAIL + 800);
    s.accept_ctrl(answer(3, 0, EVS[2], id));
    s.expect_no_tx();
    assert_eq!(s.nic.stats().retransmissions, 0);
}

/// SND-TAIL-003: an answer that does not cover the tail's PSN (it lies in the gap before
/// the bitmap) proves nothing, and an answer for another EV or another probe ID is not the
/// probe's answer.
#[test]
fn snd_tail_003_only_the_probes_own_covering_answer_is_evidence() {
    let (mut s, id) = tail_of_ev2_probed();
    s.at(TAIL + 500);
    // Another probe ID, then another EV: neither answers this probe.
    s.accept_ctrl(answer(1, 0b10, EVS[2], id.wrapping_add(7)));
    s.accept_ctrl(answer(1, 0b10, EVS[1], id));
    s.expect_no_tx();
    // The probe's own answer, with its bitmap based at PSN 4: PSN 2 is in the gap.
    let Packet::Sack { bth, mut seth, cc_state } = answer(1, 0, EVS[2], id) else { unreachable!() };
    seth.sack_offset = 3;
    s.accept_ctrl(Packet::Sack { bth, seth, cc_state });
    s.expect_no_tx();
    assert_eq!(s.nic.stats().retransmissions, 0);
}

/// SND-TAIL-001: one tail probe per transmission. When the probe's answer is lost, the
/// EV is not probed again for the same tail: the retransmission timeout repairs it.
#[test]
fn snd_tail_001_one_probe_per_tail() {
    let (mut s, _) = tail_of_ev2_probed();
    s.expect_no_tx();
    s.at(20 * TAIL);
    s.timeout();
    s.expect_no_tx();
    assert_eq!(s.nic.stats().probes_sent, 1);
}

/// SND-TAIL-003 with SND-RTX-003: a PSN is retransmitted at most once by inference, a tail
/// probe's answer included. The retransmission of PSN 2 goes out as the tail of another EV;
/// when it is lost too, that EV's tail probe finds it missing but does not resend it again.
#[test]
fn snd_tail_003_inference_retransmits_a_psn_at_most_once() {
    let (mut s, id) = tail_of_ev2_probed();
    s.at(TAIL + 800);
    s.accept_ctrl(answer(1, 0b10, EVS[2], id));
    let (ev, _) = s.expect_rtx(2);
    s.drop_reports();
    // The retransmission is now the tail of `ev`.
    s.at(2 * TAIL + 800);
    s.timeout();
    let (_, id2) = s.expect_probe(ev);
    s.at(2 * TAIL + 1_600);
    s.accept_ctrl(answer(1, 0b10, ev, id2));
    s.expect_no_tx();
    assert_eq!(s.nic.stats().retransmissions, 1);
}

/// SND-TAIL-001: without `tail_probe` (the default) no tail probe is ever sent.
#[test]
fn snd_tail_001_off_unless_configured() {
    let mut s = Script::sender();
    four_packets(&mut s);
    s.at(1_000);
    s.accept_ctrl(sack(1, 1, 0b10));
    s.drop_reports();
    for k in 1..=10 {
        s.at(k * TAIL);
        s.timeout();
    }
    s.expect_no_tx();
    assert_eq!(s.nic.stats().probes_sent, 0);
}

/// A zero `tail_probe` is a configuration error: leaving it out turns probing off.
#[test]
fn a_zero_tail_probe_is_refused() {
    let cfg = NicConfig { tail_probe: Some(Duration::ZERO), ..config() };
    assert!(cfg.validate().is_err());
    assert!(openrdma_sm::Nic::new(cfg).is_err());
}

/// SND-TAIL-001, SND-TAIL-003: a retransmission that arrives is no evidence for the EV it
/// went on (SND-INFER-003), so a loss behind it on that EV stays hidden. PSN 0 (EV 0) and
/// PSN 5 (EV 1, its tail) are lost; PSN 0's inferred retransmission goes on EV 1 and
/// arrives. EV 1 still carries PSN 5 unacknowledged, so its tail probe goes `tail_probe`
/// after the retransmission, and the answer repairs PSN 5.
#[test]
fn snd_tail_001_a_loss_behind_an_arrived_retransmission_is_probed() {
    let mut s = Script::with(tail_config(), 0, 0);
    s.post(wr(8 * PMTU, 0, 1));
    for p in 0..8u32 {
        let op = match p {
            0 => FIRST,
            7 => LAST,
            _ => MIDDLE,
        };
        let (ev, _) = s.expect_data(p, op);
        assert_eq!(ev, EVS[(p % 4) as usize]);
    }
    s.drop_reports();
    // PSNs 1-4, 6 and 7 arrived: nothing is cumulative (cack is the PSN before 0).
    s.at(1_000);
    s.accept_ctrl(sack(0xFF_FFFF, 1, 0b1101_1110));
    let (ev, _) = s.expect_rtx(0);
    assert_eq!(ev, EVS[1], "round robin from the cursor, avoiding EV 0");
    s.expect_no_tx();
    s.drop_reports();
    // The retransmission of PSN 0 arrived: cack 4, PSNs 6 and 7 in the bitmap, PSN 5 not.
    s.at(1_900);
    s.accept_ctrl(sack(4, 1, 0b110));
    s.expect_no_tx();
    s.drop_reports();
    s.at(1_000 + TAIL);
    s.timeout();
    let (_, id) = s.expect_probe(EVS[1]);
    s.expect_no_tx();
    s.at(1_000 + TAIL + 800);
    s.accept_ctrl(answer(4, 0b110, EVS[1], id));
    let (ev, _) = s.expect_rtx(5);
    assert_ne!(ev, EVS[1]);
    s.expect_no_tx();
    assert_eq!(s.nic.stats().retransmissions, 2);
}
