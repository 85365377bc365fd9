//! The per-EV round-trip estimate (`SND-RTT-002`), seen through the `skew-aware` policy
//! that chooses by it (`SND-SPRAY-004`): the first sample becomes `srtt`, and each later
//! one gives ⌊(7 × srtt + sample) / 8⌋. Outside `window-fit` only PSN arrivals give
//! samples (`SND-SPRAY-010`).

mod script;

use openrdma_codec::{Ev, Opcode, Qpn};
use openrdma_sm::{CpuCommand, SprayPolicy};
use script::*;

const FIRST: Opcode = Opcode::MRC_WRITE_FIRST;
const LAST: Opcode = Opcode::MRC_WRITE_LAST;
const ONLY: Opcode = Opcode::MRC_WRITE_ONLY;

/// EV A0's first sample is 1 µs and A1's 3 µs; then one packet on A0 takes `second` ns
/// to be acknowledged. Returns the EV the next packet takes.
fn ev_after_second_sample_on_a0(second: u64) -> Ev {
    let mut qp = qp_config(LQP, PEER, 0, 0);
    qp.evs = vec![EVS[0], EVS[1]];
    qp.spray = SprayPolicy::SkewAware;
    let mut s = Script::with_qp(config(), qp);
    // No estimate yet: round robin.
    s.post(wr(2 * PMTU, 0, 1));
    assert_eq!(s.expect_data(0, FIRST).0, EVS[0]);
    assert_eq!(s.expect_data(1, LAST).0, EVS[1]);
    s.at(1_000);
    s.accept_ctrl(sack(0, 1, 0));
    s.at(3_000);
    s.accept_ctrl(sack(1, 1, 0));
    s.drop_reports();
    // srtt 1000 on A0 against 3000 on A1, nothing in flight: A0.
    s.post(wr(PMTU, 0x1000, 2));
    assert_eq!(s.expect_data(2, ONLY).0, EVS[0]);
    s.at(3_000 + second);
    s.accept_ctrl(sack(2, 1, 0));
    s.drop_reports();
    s.post(wr(PMTU, 0x2000, 3));
    let (ev, _) = s.expect_data(3, ONLY);
    s.expect_no_tx();
    ev
}

/// SND-RTT-002, SND-SPRAY-004: a second sample of 17001 ns on A0 gives
/// ⌊(7 × 1000 + 17001) / 8⌋ = 3000, equal to A1's: the earlier EV in profile order, A0.
#[test]
fn snd_rtt_002_the_estimate_moves_by_an_eighth_of_the_sample() {
    assert_eq!(ev_after_second_sample_on_a0(17_001), EVS[0]);
}

/// SND-RTT-002, SND-SPRAY-004: a second sample of 17009 ns on A0 gives
/// ⌊(7 × 1000 + 17009) / 8⌋ = 3001, above A1's 3000: A1.
#[test]
fn snd_rtt_002_one_more_eighth_tips_the_choice() {
    assert_eq!(ev_after_second_sample_on_a0(17_009), EVS[1]);
}

/// SND-RTT-002, SND-SPRAY-010: outside `window-fit`, a probe answer is no round-trip
/// sample. A0 (srtt 1000) is probed and answered 64 µs later; its estimate stays 1000, so
/// the next packet still takes A0 rather than A1 (srtt 3000).
#[test]
fn snd_rtt_002_a_probe_answer_is_no_sample_under_skew_aware() {
    let mut qp = qp_config(LQP, PEER, 0, 0);
    qp.evs = vec![EVS[0], EVS[1]];
    qp.spray = SprayPolicy::SkewAware;
    let mut s = Script::with_qp(config(), qp);
    s.post(wr(2 * PMTU, 0, 1));
    assert_eq!(s.expect_data(0, FIRST).0, EVS[0]);
    assert_eq!(s.expect_data(1, LAST).0, EVS[1]);
    s.at(1_000);
    s.accept_ctrl(sack(0, 1, 0));
    s.at(3_000);
    s.accept_ctrl(sack(1, 1, 0));
    s.cpu(CpuCommand::Probe { qpn: Qpn::new(LQP), ev: EVS[0] });
    let (_, id) = s.expect_probe(EVS[0]);
    s.drop_reports();
    // The answer reflects timestamp 0: 67 µs of round trip by the 16 ns clock.
    s.at(67_000);
    s.accept_ctrl(probe_answer(1, EVS[0], id));
    s.drop_reports();
    s.post(wr(PMTU, 0x1000, 2));
    assert_eq!(s.expect_data(2, ONLY).0, EVS[0]);
    s.expect_no_tx();
}
