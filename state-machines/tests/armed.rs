//! The `Armed` report (`REC-IF-003`): the NIC half tells the CPU half that its
//! retransmission timer must run when data goes out on an idle QP, and not again while
//! the QP still has PSNs outstanding or messages awaiting their transport ACK, as its
//! last `Progress` said (`REC-IF-002`).

mod script;

use openrdma_codec::{Opcode, Psn, Qpn};
use openrdma_sm::{CongestionControl, CpuCommand, NicReport, QpConfig, RetransmitCause};
use script::*;

const FIRST: Opcode = Opcode::MRC_WRITE_FIRST;
const MIDDLE: Opcode = Opcode::MRC_WRITE_MIDDLE;
const LAST: Opcode = Opcode::MRC_WRITE_LAST;

fn lqp() -> Qpn {
    Qpn::new(LQP)
}

/// A QP whose congestion window holds two packets in flight.
fn two_packet_window() -> QpConfig {
    let mut qp = qp_config(LQP, PEER, 0, 0);
    qp.cc = CongestionControl::FixedWindow { bytes: 2 * u64::from(PMTU) };
    qp
}

/// REC-IF-003, REC-IF-002: a SACK leaves PSNs outstanding while no message has all its
/// packets sent (outstanding 1, awaiting 0). The QP stays armed, so the next packet of
/// the message goes out with no second `Armed`.
#[test]
fn rec_if_003_no_armed_while_psns_stay_outstanding() {
    let mut s = Script::with_qp(config(), two_packet_window());
    s.post(wr(4 * PMTU, 0, 1));
    s.expect_data(0, FIRST);
    s.expect_data(1, MIDDLE);
    s.expect_report(NicReport::Armed { qpn: lqp(), snd_una: Psn::new(0) });
    s.expect_nothing();

    s.advance(1_000);
    s.accept_ctrl(sack(0, 1, 0));
    s.expect_data(2, MIDDLE);
    s.expect_report(NicReport::Progress {
        qpn: lqp(),
        snd_una: Psn::new(1),
        outstanding: 1,
        awaiting_ack: 0,
    });
    s.expect_nothing();
}

/// REC-IF-003, REC-IF-002, REC-RTO-004: every PSN is SACKed but the message still awaits
/// its transport ACK (outstanding 0, awaiting 1). The QP stays armed, so the resend of
/// the message's last packet that the CPU half orders goes out with no `Armed`.
#[test]
fn rec_if_003_no_armed_while_a_message_awaits_its_ack() {
    let mut s = Script::sender();
    s.post(wr(2 * PMTU, 0, 1));
    s.expect_data(0, FIRST);
    s.expect_data(1, LAST);
    s.expect_report(NicReport::Armed { qpn: lqp(), snd_una: Psn::new(0) });
    s.expect_nothing();

    s.advance(1_000);
    s.accept_ctrl(sack(1, 1, 0));
    s.expect_report(NicReport::Progress {
        qpn: lqp(),
        snd_una: Psn::new(2),
        outstanding: 0,
        awaiting_ack: 1,
    });
    s.expect_nothing();

    s.advance(50_000);
    s.cpu(CpuCommand::Retransmit { qpn: lqp(), psn: Psn::new(2) });
    s.expect_rtx(1);
    s.expect_report(NicReport::Retransmitted {
        qpn: lqp(),
        psn: Psn::new(1),
        cause: RetransmitCause::Timeout,
        lost_ev: None,
    });
    s.expect_nothing();
}

/// REC-IF-002: a SACK that repeats the cumulative point, moving nothing, sends no
/// `Progress` (the CPU half would restart its timer on it, REC-RTO-001).
#[test]
fn rec_if_002_no_progress_when_snd_una_stays() {
    let mut s = Script::sender();
    s.post(wr(2 * PMTU, 0, 1));
    s.expect_data(0, FIRST);
    s.expect_data(1, LAST);
    s.drop_reports();
    s.advance(1_000);
    s.accept_ctrl(sack(0, 1, 0));
    s.expect_report(NicReport::Progress {
        qpn: lqp(),
        snd_una: Psn::new(1),
        outstanding: 1,
        awaiting_ack: 1,
    });
    s.expect_nothing();
    s.advance(1_000);
    s.accept_ctrl(sack(0, 1, 0));
    s.expect_nothing();
}
