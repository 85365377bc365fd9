//! Scenarios for bugs of shared state no other scenario made visible (the tenth reading):
//! two QPs whose numbers agree in their low bits, and an EV state command for one QP while
//! another QP holds a different EV at the same place of its profile.

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("rcv-x10-qpn-low-bits", rcv_x10_qpn_low_bits),
        ("snd-ev-state-x10-same-position", snd_ev_state_x10_same_position),
    ]
}

/// QP B is numbered 16 above QP A: a table the device indexes by the QPN's low bits with
/// no tag gives both one entry.
const QP_B: u32 = DUT_QP + 0x10;

/// Two QPs in per-QP retirement whose numbers agree in their eight low bits but one;
/// their one-packet writes alternate, 3 us apart.
fn rcv_x10_qpn_low_bits() -> Scenario {
    let mut r = responder_with(
        "rcv-x10-qpn-low-bits",
        "Per-QP retirement: QP A is 0x11 and QP B 0x21, two numbers that agree in their four \
         low bits. Each receives one-packet writes at PSNs 0, 1 and 2 (MSNs 0 to 2), the two \
         QPs alternating 3 us apart: every write is new to its own QP, is placed, retires at \
         once and is acknowledged by its own QP's SACK and transport ACK.",
        &["RCV-WIN-001", "RCV-PLACE-003", "RET-DOMAIN-001", "RCV-ACK-002", "SETH-CACK-001"],
        |m| {
            m.nic.retirement = RetirementMode::PerQp;
            m.requires.insert(Capability::PerQpRetirement);
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(qp(DUT_QP, PEER_QP, 0)));
    r.host(0, HostCommand::CreateQp(qp(QP_B, PEER_QP + 1, 0)));
    for k in 0..3u32 {
        let at = 1_000 + u64::from(k) * 6_000;
        let msn = k as u16;
        let va = REGION + u64::from(k) * 0x1000;
        let a = write(k, msn, Opcode::MRC_WRITE_ONLY, 0, 256, 256, va, None);
        r.inject(at, 0, 0xA000_0001 + k, &a);
        let b = write(k, msn, Opcode::MRC_WRITE_ONLY, 0, 256, 256, va + 0x8_0000, None);
        let b = edit(b, |w| w.bth.dest_qp = Qpn::new(QP_B));
        r.inject(at + 3_000, 1, 0xB001_0001 + k, &b);
    }
    done(r, 30_000)
}

/// Two QPs with one EV each, two different values; the CPU half blames A's.
fn snd_ev_state_x10_same_position() -> Scenario {
    let mut r = sender_with(
        "snd-ev-state-x10-same-position",
        "Two QPs of the device have one EV each, two different values, each the first of its \
         profile. The CPU half blames A's EV (SetEvState ASSUMED_BAD): the state belongs to \
         that EV of A's profile alone. A message posted on QP B goes out at once on B's own \
         EV, still GOOD, and completes.",
        &["EV-STATE-003", "REC-IF-012", "EV-STATE-001", "SND-ACK-001", "CQE-SEND-001"],
        |m| {
            m.requires.insert(Capability::Paths);
            m.requires.insert(Capability::CpuSplit);
        },
    );
    r.expect_ev_states();
    let (a, b) = (DUT_QP, DUT_QP + 1);
    let ea = v4_evs(a, 1)[0];
    let eb = v4_evs(b, 1)[0];
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(QpConfig { evs: vec![ea], ..qp(a, PEER_QP, 0) }));
    r.host(0, HostCommand::CreateQp(QpConfig { evs: vec![eb], ..qp(b, PEER_QP + 1, 0) }));
    r.cpu(1_000, CpuCommand::SetEvState { qpn: Qpn::new(a), ev: ea, state: EvState::AssumedBad });
    r.checks(&["EV-STATE-003", "REC-IF-012", "EV-STATE-001"]);
    // Posted longer after the command than a device may take to act on it.
    let on_b = WorkRequest { qpn: Qpn::new(b), ..wr(0, 64, None, true) };
    r.host(3_500, HostCommand::PostWrite(on_b));
    r.run_until(5_500);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    let ev = r.sent_ev(PEER_QP + 1, 0).expect("B's PSN 0 was sent");
    let sack = edit_qp(sack_in(0, 0, 0, WireMark::NONE, ev), b);
    r.inject(5_500, port_of(ev, 4), ev, &sack);
    r.inject(5_500, 0, 0xA000_0000, &edit_qp(ack_in(0, 0, AethRepr::ACK_UNLIMITED_CREDIT), b));
    done(r, 12_000)
}
