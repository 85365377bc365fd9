//! Scenarios of the tenth reading on EVs: the EV reports of the second of two QPs whose
//! profiles hold the same EV, and a probe the runner's CPU half commands after one the
//! device queued itself.

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("snd-x10ev-shared-ev-reports", snd_x10ev_shared_ev_reports),
        ("rec-x10ev-tail-then-commanded-probe", rec_x10ev_tail_then_commanded_probe),
    ]
}

/// Two QPs hold one EV; every EV report of the second QP names the second QP.
fn snd_x10ev_shared_ev_reports() -> Scenario {
    let mut r = sender_with(
        "snd-x10ev-shared-ev-reports",
        "Two QPs of the device, A created first and B second, have one EV each, the same \
         value. The CPU half blames it on B (SetEvState ASSUMED_BAD): the device reports the \
         state for B, and a message posted on A goes out at once on the EV, which A still \
         holds GOOD. A message posted on B waits; the CPU half probes the EV for B, and the \
         answer is reported for B with the EV made GOOD again, and B's message goes out. \
         Its SACK marks the EV SKIP_ONCE: the mark and the new state are reported for B. \
         Every report names B, never A, the first QP that holds the EV.",
        &[
            "REC-IF-016",
            "REC-IF-012",
            "REC-IF-007",
            "REC-IF-005",
            "EV-STATE-003",
            "EV-PROBE-002",
            "SND-PATH-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.requires.insert(Capability::CpuSplit);
        },
    );
    // One EV per QP: every device goes through its states alike.
    r.expect_ev_states();
    let (_, b, e0) = two_qps_one_ev(&mut r);
    let on_b = Qpn::new(b);
    r.checks(&["REC-IF-016", "REC-IF-012", "EV-STATE-003"]);
    r.cpu(1_000, CpuCommand::SetEvState { qpn: on_b, ev: e0, state: EvState::AssumedBad });
    // Posted longer after the command than a device may take to act on it.
    r.checks(&["SND-PATH-001", "SND-ACK-001", "CQE-SEND-001"]);
    r.host(3_500, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.host(3_500, HostCommand::PostWrite(WorkRequest { qpn: on_b, ..wr(0, 64, None, true) }));
    inject_sack(&mut r, 5_500, 0, 0, 0, WireMark::NONE);
    inject_ack(&mut r, 5_500, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["EV-PROBE-002", "REC-IF-007", "REC-IF-016"]);
    r.cpu(7_000, CpuCommand::Probe { qpn: on_b, ev: e0 });
    r.inject(8_000, 0, e0, &edit_qp(probe_answer(0xFF_FFFF, 1, WireMark::NONE, e0), b));
    r.run_until(10_000);
    r.checks(&["REC-IF-005", "REC-IF-016", "SND-ACK-001", "CQE-SEND-001"]);
    let ev = r.sent_ev(PEER_QP + 1, 0).expect("B's PSN 0 was sent");
    let sack = edit_qp(sack_in(0, 0, 0, WireMark::SKIP_ONCE, ev), b);
    r.inject(10_000, port_of(ev, 4), ev, &sack);
    r.inject(10_000, 0, 0xA000_0000, &edit_qp(ack_in(0, 0, AethRepr::ACK_UNLIMITED_CREDIT), b));
    // The EV returns from SKIP to GOOD skip_hold after the mark, which the device reports.
    done(r, 32_000)
}

/// A tail probe the device queues itself, then a probe the runner's CPU half commands, both
/// on the QP's one EV: the command starts the second probe, not the first.
fn rec_x10ev_tail_then_commanded_probe() -> Scenario {
    let mut m = manifest(
        "rec-x10ev-tail-then-commanded-probe",
        "The QP has one EV and tail_probe 3 us; the runner plays the CPU half. A one-packet \
         message is not acknowledged within 3 us: the device sends a tail probe on the EV, \
         the QP's first probe, which the CPU half did not command; its answer shows the \
         packet arrived. A second message is acknowledged at once, by a SACK that marks the \
         EV ALWAYS_SKIP: it becomes ASSUMED_BAD, reported, and a third message waits. From \
         that report the CPU half commands a probe 10 us later: the device sends it at once, \
         the QP's second probe, timed from the command. Its answer makes the EV GOOD and \
         the waiting message goes out.",
        &[
            "SND-TAIL-001",
            "EV-PROBE-005",
            "REC-IF-011",
            "REC-IF-016",
            "EV-BAD-001",
            "EV-PROBE-002",
            "SND-PATH-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        &[Capability::Requester, Capability::CpuSplit, Capability::Paths, Capability::Ipv4],
    );
    m.requires.insert(Capability::TailProbe);
    m.nic.tail_probe = Some(std::time::Duration::from_micros(3));
    let mut r = Recorder::with_cpu(m, CpuHalf::Reference);
    r.expect_ev_states();
    let e0 = v4_evs(DUT_QP, 1)[0];
    setup_evs(&mut r, 0, vec![e0]);
    r.checks(&["SND-TAIL-001", "EV-PROBE-005"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.run_until(5_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    r.inject(5_000, port_of(e0, 4), e0, &probe_answer(0, 1, WireMark::NONE, e0));
    inject_ack(&mut r, 5_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.host(6_000, HostCommand::PostWrite(wr(1, 64, None, true)));
    r.checks(&["REC-IF-016", "EV-BAD-001", "SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 7_000, 1, 0, 1, WireMark::ALWAYS_SKIP);
    inject_ack(&mut r, 7_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["SND-PATH-002"]);
    r.host(8_000, HostCommand::PostWrite(wr(2, 64, None, true)));
    r.checks(&["REC-IF-011", "EV-PROBE-005"]);
    r.run_until(18_000);
    r.checks(&["EV-PROBE-002", "REC-IF-016", "SND-PATH-002"]);
    r.inject(18_000, port_of(e0, 4), e0, &probe_answer(1, 2, WireMark::NONE, e0));
    r.run_until(19_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 19_000, 2, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 19_000, 2, 2, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 30_000)
}
