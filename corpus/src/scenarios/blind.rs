//! Scenarios for blind spots of the corpus: a sender's PSN wrap in the middle of a
//! recovery, its timestamp clock past 2^16 units, a SACK whose bitmap is based before its
//! cumulative PSN, an EV two QPs share under a CPU command, and a Write with Immediate of
//! one QP retired by another QP's packet.

use super::cq::two_qps_own_queues;
use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("snd-rtx-psn-wrap", snd_rtx_psn_wrap),
        ("snd-ts-wrap", snd_ts_wrap),
        ("snd-sack-offset-negative", snd_sack_offset_negative),
        ("snd-ev-state-shared-ev", snd_ev_state_shared_ev),
        ("rcv-wwi-retired-by-other-qp", rcv_wwi_retired_by_other_qp),
    ]
}

/// Losses on both sides of the PSN wrap, repaired while `snd_una` is before it.
fn snd_rtx_psn_wrap() -> Scenario {
    let mut r = sender_with(
        "snd-rtx-psn-wrap",
        "One EV; the NIC half reports to a split CPU half. The device sends a ten-packet \
         message from PSN 0xFFFFFA, across the PSN wrap at 2^24. A SACK covers up to \
         0xFFFFFC and shows 0xFFFFFE to 0 and PSNs 2 and 3 arrived: 0xFFFFFD and PSN 1 are \
         inferred lost. With snd_una at 0xFFFFFD, before the wrap, the device retransmits \
         both, PSN 1 too although it is numerically below snd_una, and its Progress counts \
         the seven PSNs outstanding across the wrap.",
        &[
            "SND-RTX-001",
            "SND-RTX-003",
            "SND-INFER-001",
            "REC-IF-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::CpuSplit);
            m.tolerances.late_ns = 2_000;
        },
    );
    const START: u32 = 0xFF_FFFA;
    let psn = |k: u32| (START + k) & 0xFF_FFFF;
    setup_evs(&mut r, START, v4_evs(DUT_QP, 1));
    r.host(1_000, HostCommand::PostWrite(wr(0, 10 * PMTU, None, true)));
    r.checks(&["SND-RTX-001", "SND-RTX-003", "SND-INFER-001", "REC-IF-002"]);
    // Based at 0xFFFFFD: bits 1 to 3 are 0xFFFFFE to 0, bits 5 and 6 are PSNs 2 and 3.
    inject_sack(&mut r, 4_000, psn(2), 0b110_1110, psn(9), WireMark::NONE);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 8_000, psn(9), 0, psn(7), WireMark::NONE);
    inject_ack(&mut r, 8_000, psn(9), 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 16_000)
}

/// Messages before and after the timestamp clock passes 2^16 of the reference's units.
fn snd_ts_wrap() -> Scenario {
    let mut r = evs_sender(
        "snd-ts-wrap",
        "The device sends one-packet messages 10 us apart from 1.03 ms on, each acknowledged \
         2 us after it leaves. In the reference's 16 ns units the timestamp clock passes \
         2^16 at 1.048576 ms: the stamps wrap to small values and keep counting at the same \
         rate, as a 16-bit clock does; one that stopped at 0xFFFF would not.",
        &["SND-TS-002", "SND-TS-003", "SND-ACK-001", "CQE-SEND-001"],
        |_| {},
    );
    for k in 0..5u32 {
        let at = 1_030_000 + u64::from(k) * 10_000;
        r.checks(&["SND-TS-002", "SND-TS-003"]);
        r.host(at, HostCommand::PostWrite(wr(k, 256, None, true)));
        inject_sack(&mut r, at + 2_000, k, 0, k, WireMark::NONE);
        inject_ack(&mut r, at + 2_000, k, k as u16, AethRepr::ACK_UNLIMITED_CREDIT);
    }
    done(r, 1_090_000)
}

/// SACKs whose bitmaps are based before their cumulative PSNs.
fn snd_sack_offset_negative() -> Scenario {
    let mut r = sender_with(
        "snd-sack-offset-negative",
        "One EV; the NIC half reports to a split CPU half. The device sends PSNs 0 to 5 in one \
         message. A SACK covers PSN 1 and \
         carries a bitmap based one PSN before it (sack_offset -1): bits 0 and 1 stand for \
         PSNs 0 and 1, already covered, bits 3 and 4 for PSNs 3 and 4. A negative offset is within \
         the window: the device applies the SACK whole: snd_una moves to 2, which its \
         Progress reports, with PSNs 3 and 4 known to have arrived. A last SACK and the ACK \
         complete the message.",
        &[
            "SND-SACK-001",
            "SND-SACK-002",
            "SND-SACK-004",
            "REC-IF-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::CpuSplit);
            m.tolerances.late_ns = 2_000;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 1));
    r.host(1_000, HostCommand::PostWrite(wr(0, 6 * PMTU, None, true)));
    r.checks(&["SND-SACK-001", "SND-SACK-002", "SND-SACK-004", "REC-IF-002"]);
    inject_sack_offset(&mut r, 4_000, 1, -1, 0b1_1011, 4);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 7_000, 5, 0, 5, WireMark::NONE);
    inject_ack(&mut r, 7_000, 5, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 14_000)
}

/// Two QPs whose profiles hold the same EV; the CPU half blames it on one of them.
fn snd_ev_state_shared_ev() -> Scenario {
    let mut r = sender_with(
        "snd-ev-state-shared-ev",
        "Two QPs of the device have one EV each, the same value. The CPU half blames it on \
         QP A (SetEvState ASSUMED_BAD): the state belongs to A's profile alone. A message \
         posted on QP B goes out at once on the EV, which B still holds GOOD, and completes.",
        &["EV-STATE-003", "REC-IF-012", "SND-PATH-001", "SND-ACK-001", "CQE-SEND-001"],
        |m| {
            m.requires.insert(Capability::Paths);
            m.requires.insert(Capability::CpuSplit);
        },
    );
    // One EV per QP: every device goes through its states alike.
    r.expect_ev_states();
    let (a, b, e0) = two_qps_one_ev(&mut r);
    r.cpu(1_000, CpuCommand::SetEvState { qpn: Qpn::new(a), ev: e0, state: EvState::AssumedBad });
    r.checks(&["EV-STATE-003", "REC-IF-012", "SND-PATH-001"]);
    // Posted longer after the command than a device may take to act on it.
    let on_b = WorkRequest { qpn: Qpn::new(b), ..wr(0, 64, None, true) };
    r.host(3_500, HostCommand::PostWrite(on_b));
    r.run_until(5_500);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    let ev = r.sent_ev(PEER_QP + 1, 0).expect("B's PSN 0 was sent");
    acknowledge_on(&mut r, 5_500, b, 0, 0, ev);
    done(r, 12_000)
}

/// In shared retirement, QP A's Write with Immediate waits behind QP B's message.
fn rcv_wwi_retired_by_other_qp() -> Scenario {
    let mut r = responder_with(
        "rcv-wwi-retired-by-other-qp",
        "Shared retirement, one domain; QP A reports receive completions to queue 1, QP B to \
         queue 2. B's two-packet message (domain MSN 0) gets its first packet; A's \
         Write-with-Immediate (MSN 1) arrives whole and waits behind it. B's last packet \
         retires both: A's receive completion, written at B's packet, still carries A's \
         QPN, its queue and its immediate.",
        &["CQE-RECV-001", "CQE-ROUTE-001", "RET-ORDER-001"],
        |m| {
            m.requires.insert(Capability::SharedRetirement);
            m.requires.insert(Capability::WriteImmediate);
            m.requires.insert(Capability::CompletionQueues);
        },
    );
    let (_, b) = two_qps_own_queues(&mut r);
    let to_b = |p: Packet| edit(p, |w| w.bth.dest_qp = Qpn::new(b));
    let total = 2 * PMTU;
    let first = write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None);
    r.inject(1_000, 0, 0xA000_0001, &to_b(first));
    r.checks(&["CQE-RECV-001", "CQE-ROUTE-001"]);
    let base = REGION + 0x8_0000;
    let imm = write(0, 1, Opcode::MRC_WRITE_ONLY_IMM, 0, 64, 64, base, Some(0x0A00_0001));
    r.inject(2_000, 1, 0xA001_0002, &imm);
    r.checks(&["RET-ORDER-001", "CQE-RECV-001", "CQE-ROUTE-001"]);
    let last = write(1, 0, Opcode::MRC_WRITE_LAST, 1, PMTU, total, REGION, None);
    r.inject(4_000, 2, 0xA002_0003, &to_b(last));
    done(r, 20_000)
}
