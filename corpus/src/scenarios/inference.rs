//! Loss inference, retransmission and scheduling at the sender (`SND-INFER-*`, `SND-RTX-*`,
//! `SND-SACK-006`, `SND-SCHED-001`, `SND-TS-002`), and the tail probes that extend the
//! inference to the last transmissions on an EV (`SND-TAIL-*`).
//!
//! The acknowledgements are crafted so that breaking a rule changes what the device sends:
//! a PSN that a wrong inference would retransmit arrives in the end, so that any
//! retransmission of it is spurious (`SND-RTX-004`); a loss that a right inference finds
//! is repaired within the scenario's short tolerance, long before a timeout could.
//!
//! Loss inference works on the order of transmissions per EV, and every device sprays its
//! own way (these scenarios do not require `spray-policies`). So that what a SACK proves is
//! the same for every device, the QPs here have a single EV where the outcome depends on
//! the per-EV order: every transmission takes it, in the order the specification fixes,
//! and a retransmission reuses it, as SND-RTX-002 allows when no other EV is usable.

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("snd-infer-coverage", snd_infer_coverage),
        ("snd-infer-retransmitted", snd_infer_retransmitted),
        ("snd-rtx-once", snd_rtx_once),
        ("snd-rtx-two-messages", snd_rtx_two_messages),
        ("snd-infer-later", snd_infer_later),
        ("snd-nack-backoff-long", snd_nack_backoff_long),
        ("snd-ack-arrival", snd_ack_arrival),
        ("snd-sched-order", snd_sched_order),
        ("snd-order-messages", snd_order_messages),
        ("snd-sack-order", snd_sack_order),
        ("snd-no-timestamps", snd_no_timestamps),
        ("snd-tail-probe", snd_tail_probe),
        ("snd-tail-probe-two-lost", snd_tail_probe_two_lost),
        ("snd-tail-probe-later-spared", snd_tail_probe_later_spared),
        ("snd-infer-high-word", snd_infer_high_word),
        ("snd-nack-high-psn", snd_nack_high_psn),
    ]
}

/// A requester for these scenarios, with `evs` EVs and a PMTU of `pmtu`: a short
/// tolerance, so that a repair left to the timeout is late, and a short SKIP and back-off.
fn inference_recorder(
    name: &str,
    description: &str,
    reqs: &[&str],
    evs: u32,
    pmtu: u32,
) -> Recorder {
    let mut r = sender_with(name, description, reqs, |m| {
        m.nic.pmtu = pmtu;
        m.nic.skip_hold = std::time::Duration::from_micros(10);
        m.nic.nack_backoff = std::time::Duration::from_micros(1);
        m.tolerances.late_ns = 2_000;
    });
    setup_evs(&mut r, 0, v4_evs(DUT_QP, evs));
    r
}

/// Suspects that no SACK may judge: in the gap before a bitmap's base, beyond a bitmap, and
/// after their PSN arrived.
fn snd_infer_coverage() -> Scenario {
    let mut r = inference_recorder(
        "snd-infer-coverage",
        "The device sends 71 packets on one EV, and every one of them arrives, but the SACKs \
         report it in pieces. The first shows PSN 6 with its bitmap based there, the next \
         PSN 70 likewise: the packets sent before them lie in the gap between the cumulative \
         PSN and the bitmap's base, which reports nothing, and must not be inferred lost. \
         The next shows PSNs 1 to 64: those suspects arrived and are dropped, and PSNs 65 to \
         69, beyond its bitmap, with their evidence, stay unjudged. A stale SACK shows only \
         PSN 6 again, covering PSNs 1 to 5 that are known to have arrived; a last one shows \
         everything. Nothing is retransmitted.",
        &[
            "SND-INFER-002",
            "SND-INFER-004",
            "SND-RTX-004",
            "SND-SACK-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        1,
        256,
    );
    r.host(1_000, HostCommand::PostWrite(wr(0, 71 * 256, None, true)));
    r.checks(&["SND-INFER-002", "SND-RTX-004"]);
    // Everything up to PSN 0, and PSN 6 (bit 0 of a bitmap based at 6).
    inject_sack_offset(&mut r, 2_000, 0, 6, 0b1, 6);
    // PSN 70 (bit 0 of a bitmap based at 70).
    inject_sack_offset(&mut r, 2_500, 0, 70, 0b1, 70);
    // PSNs 1 to 64.
    inject_sack_offset(&mut r, 3_000, 0, 1, u64::MAX, 64);
    // Stale: PSN 6 only (bit 5 of a bitmap based at 1).
    r.checks(&["SND-INFER-004", "SND-RTX-004"]);
    inject_sack_offset(&mut r, 3_500, 0, 1, 1 << 5, 6);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 4_000, 70, 0, 70, WireMark::NONE);
    inject_ack(&mut r, 4_000, 70, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 12_000)
}

/// A retransmitted PSN's arrival is no evidence; a retransmission lost in turn is found
/// by the next arrival on its EV.
fn snd_infer_retransmitted() -> Scenario {
    let mut r = inference_recorder(
        "snd-infer-retransmitted",
        "One EV. A NO_RESOURCE NACK has PSN 1 retransmitted after PSN 5; a SACK then shows \
         PSNs 0 and 1 but not PSNs 2 to 5: PSN 1 was retransmitted, so its arrival proves \
         nothing about the packets sent before its retransmission, and nothing is \
         retransmitted; they arrive at the next SACK. Later a NACK has PSN 6 retransmitted \
         after PSNs 7 and 8, which gives the retransmission the EV's next per-EV sequence \
         number; PSNs 7 to 10 arrive and PSN 6 does not, so the SACK that shows PSN 9 makes \
         the device infer the retransmission lost and send PSN 6 a third time.",
        &[
            "SND-INFER-003",
            "SND-RTX-006",
            "SND-INFER-001",
            "SND-RTX-001",
            "SND-RTX-004",
            "SND-NACK-004",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        1,
        PMTU,
    );
    r.checks(&["SND-INFER-003", "SND-RTX-004"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 6 * PMTU, None, true)));
    inject_nack(&mut r, 2_000, 1, NackReason::NO_RESOURCE);
    inject_sack(&mut r, 3_500, 1, 0, 1, WireMark::NONE);
    inject_sack(&mut r, 4_000, 5, 0, 5, WireMark::NONE);
    r.checks(&["SND-RTX-006", "SND-INFER-001"]);
    r.host(4_500, HostCommand::PostWrite(wr(1, 3 * PMTU, None, true)));
    inject_nack(&mut r, 5_000, 6, NackReason::NO_RESOURCE);
    // The next message is posted 2 us after the retransmission of PSN 6, more than the
    // latency a device may add to its reaction to the NACK (late_ns / 2, CONF-TIME-004):
    // the retransmission comes before PSNs 9 and 10 on every legal device.
    r.run_until(8_000);
    r.host(8_000, HostCommand::PostWrite(wr(2, 2 * PMTU, None, true)));
    // PSNs 7 to 10 arrive, PSN 6 does not.
    inject_sack(&mut r, 8_500, 5, 0b11110, 10, WireMark::NONE);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 9_500, 10, 0, 6, WireMark::NONE);
    inject_ack(&mut r, 9_500, 10, 2, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 17_500)
}

/// One SACK that shows two messages each missing a packet: both are retransmitted at
/// once, each with the METH of its own message.
fn snd_rtx_two_messages() -> Scenario {
    let mut r = inference_recorder(
        "snd-rtx-two-messages",
        "One EV. The device sends message 0 (PSNs 0 and 1) and message 1 (PSNs 2 and 3). A \
         SACK shows PSNs 1 and 3 but not PSNs 0 and 2: the device infers both lost and \
         retransmits them at once, PSN 0 with the METH of message 0 and PSN 2 with the METH \
         of message 1. The retransmissions arrive, and everything is acknowledged.",
        &[
            "SND-INFER-001",
            "SND-RTX-001",
            "METH-MSN-001",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        1,
        PMTU,
    );
    r.host(1_000, HostCommand::PostWrite(wr(0, 2 * PMTU, None, true)));
    r.host(1_000, HostCommand::PostWrite(wr(1, 2 * PMTU, None, true)));
    r.checks(&["SND-INFER-001", "SND-RTX-001", "METH-MSN-001", "BTH-RTX-001"]);
    // PSNs 1 and 3 (bits 1 and 3 of a bitmap based at PSN 0; nothing cumulative).
    inject_sack(&mut r, 2_500, 0xFF_FFFF, 0b1010, 3, WireMark::NONE);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 3_500, 3, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 3_500, 3, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 12_000)
}

/// A suspect no SACK can judge yet is kept for a later one; a PSN is retransmitted by
/// inference once.
fn snd_infer_later() -> Scenario {
    let mut r = inference_recorder(
        "snd-infer-later",
        "One EV. The device sends PSNs 0 to 3. A first SACK shows PSN 2 with its bitmap based \
         there: PSNs 0 and 1 are suspects with PSN 2 as evidence, but they lie in the gap \
         before the bitmap's base, so they are kept, not judged. The next SACK shows PSNs 0, \
         2 and 3 and covers PSN 1 without showing it: the kept suspect is judged now, and \
         PSN 1 is retransmitted by inference. That retransmission is held up in the network. \
         A second message sends PSNs 4 and 5, and a SACK shows them but still not PSN 1: \
         PSN 1 was retransmitted by inference once already, so it is not again. The \
         retransmission then arrives, and everything is acknowledged.",
        &[
            "SND-INFER-002",
            "SND-RTX-003",
            "SND-INFER-001",
            "SND-RTX-001",
            "SND-RTX-004",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        1,
        PMTU,
    );
    r.host(1_000, HostCommand::PostWrite(wr(0, 4 * PMTU, None, true)));
    r.checks(&["SND-INFER-002", "SND-RTX-004"]);
    // PSN 2 (bit 0 of a bitmap based at PSN 2; nothing cumulative).
    inject_sack_offset(&mut r, 2_000, 0xFF_FFFF, 3, 0b1, 2);
    r.checks(&["SND-INFER-002", "SND-INFER-001", "SND-RTX-001", "BTH-RTX-001"]);
    // Everything up to PSN 0, and PSNs 2 and 3 (bits 1 and 2 of a bitmap based at PSN 1).
    inject_sack_offset(&mut r, 2_500, 0, 1, 0b110, 3);
    r.host(3_000, HostCommand::PostWrite(wr(1, 2 * PMTU, None, true)));
    r.checks(&["SND-RTX-003", "SND-RTX-004"]);
    // PSNs 2 to 5; PSN 1 still missing.
    inject_sack_offset(&mut r, 4_500, 0, 1, 0b11110, 5);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 5_500, 5, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 5_500, 5, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 14_000)
}

/// A window or resource NACK's back-off holds back only the entry it marks: a
/// retransmission by inference goes at once while the back-off runs.
fn snd_nack_backoff_long() -> Scenario {
    let mut r = sender_with(
        "snd-nack-backoff-long",
        "One EV, and a NACK back-off (8 us) four times the lateness tolerance. A NO_RESOURCE \
         NACK for PSN 0 queues it for retransmission, delayed. A SACK just after shows PSNs 2 \
         and 3 but not PSN 1: the device infers PSN 1 lost and retransmits it at once, not \
         held back by the delayed entry, and PSN 0 goes when the back-off has passed.",
        &[
            "SND-NACK-004",
            "SND-SCHED-003",
            "SND-INFER-001",
            "SND-RTX-001",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.nic.nack_backoff = std::time::Duration::from_micros(8);
            m.tolerances.late_ns = 2_000;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 1));
    r.host(1_000, HostCommand::PostWrite(wr(0, 4 * PMTU, None, true)));
    r.checks(&["SND-NACK-004", "SND-SCHED-003"]);
    inject_nack(&mut r, 2_000, 0, NackReason::NO_RESOURCE);
    r.checks(&["SND-NACK-004", "SND-INFER-001", "SND-RTX-001", "BTH-RTX-001"]);
    // PSNs 2 and 3 (bits 2 and 3 of a bitmap based at PSN 0; nothing cumulative).
    inject_sack(&mut r, 2_500, 0xFF_FFFF, 0b1100, 3, WireMark::NONE);
    // PSN 1's retransmission arrived.
    inject_sack(&mut r, 3_000, 0xFF_FFFF, 0b1110, 1, WireMark::NONE);
    r.checks(&["SND-NACK-004", "SND-SCHED-003"]);
    r.run_until(11_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 11_000, 3, 0, 0, WireMark::NONE);
    inject_ack(&mut r, 11_000, 3, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// A transport ACK makes the PSNs of the messages it completes known to have arrived, for
/// loss inference too.
fn snd_ack_arrival() -> Scenario {
    let mut r = inference_recorder(
        "snd-ack-arrival",
        "One EV. The device sends message 0 (PSN 0) and message 1 (PSNs 1 and 2). A transport \
         ACK of message 0 completes it and makes PSN 0 known to have arrived. A SACK sent \
         before that ACK comes after it: its cumulative PSN is before PSN 0 and its bitmap \
         shows PSNs 1 and 2 but not PSN 0. PSN 0 is known to have arrived, so it is no \
         suspect, and nothing is retransmitted.",
        &["SND-ACK-001", "SND-SACK-005", "SND-INFER-001", "SND-RTX-004", "CQE-SEND-001"],
        1,
        PMTU,
    );
    r.host(1_000, HostCommand::PostWrite(wr(0, PMTU, None, true)));
    r.host(1_000, HostCommand::PostWrite(wr(1, 2 * PMTU, None, true)));
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_ack(&mut r, 2_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["SND-ACK-001", "SND-RTX-004"]);
    // PSNs 1 and 2 (bits 1 and 2 of a bitmap based at PSN 0; nothing cumulative).
    inject_sack(&mut r, 2_500, 0xFF_FFFF, 0b110, 2, WireMark::NONE);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 3_500, 2, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 3_500, 2, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 12_000)
}

/// Three reasons to retransmit one PSN give one retransmission.
fn snd_rtx_once() -> Scenario {
    let mut r = sender_with(
        "snd-rtx-once",
        "One EV. A NO_RESOURCE NACK queues PSN 0 for retransmission after nack_backoff \
         (4 us). While it waits, a SACK shows PSNs 1 and 2 (an inference of PSN 0's loss) \
         and the CPU half orders PSN 0's retransmission after a timeout: the PSN is queued \
         already, so neither queues it again, and it is retransmitted once, when the \
         back-off has passed.",
        &[
            "SND-RTX-005",
            "SND-INFER-004",
            "SND-NACK-004",
            "SND-RTX-001",
            "SND-RTX-004",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::CpuSplit);
            m.nic.nack_backoff = std::time::Duration::from_micros(4);
            m.tolerances.late_ns = 2_000;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 1));
    r.checks(&["SND-RTX-005", "SND-NACK-004"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 4 * PMTU, None, true)));
    inject_nack(&mut r, 2_000, 0, NackReason::NO_RESOURCE);
    // PSNs 1 and 2 arrived (bits 1 and 2 of a bitmap based at PSN 0; nothing cumulative).
    inject_sack(&mut r, 2_500, 0xFF_FFFF, 0b110, 2, WireMark::NONE);
    r.cpu(3_000, CpuCommand::Retransmit { qpn: Qpn::new(DUT_QP), psn: Psn::ZERO });
    r.run_until(7_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 7_000, 3, 0, 0, WireMark::NONE);
    inject_ack(&mut r, 7_000, 3, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 14_000)
}

/// A retransmission and new packets become due at once: the retransmission goes first.
fn snd_sched_order() -> Scenario {
    let mut r = sender_with(
        "snd-sched-order",
        "One EV, and a fixed congestion window of three PMTUs that holds back a message of \
         seven packets after PSN 2. A SACK shows PSNs 1 and 2: the device infers PSN 0 lost, \
         and two packets' worth of window opens; the retransmission of PSN 0 and the new \
         PSNs 3 and 4 are due together, and the retransmission goes first, then the new \
         packets in order. The next SACK does the same for PSN 3 and PSNs 5 and 6.",
        &[
            "SND-SCHED-001",
            "SND-ORDER-001",
            "SND-INFER-001",
            "SND-WIN-003",
            "SND-CC-001",
            "SND-RTX-001",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.tolerances.late_ns = 2_000;
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs: v4_evs(DUT_QP, 1),
            cc: CongestionControl::FixedWindow { bytes: u64::from(3 * PMTU) },
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    r.checks(&["SND-SCHED-001", "SND-ORDER-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 7 * PMTU, None, true)));
    // PSNs 1 and 2 (bits 1 and 2 of a bitmap based at PSN 0).
    inject_sack(&mut r, 2_000, 0xFF_FFFF, 0b110, 2, WireMark::NONE);
    // Every PSN up to 2, and PSN 4 (bit 1 of a bitmap based at PSN 3).
    inject_sack(&mut r, 3_000, 2, 0b10, 4, WireMark::NONE);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 4_000, 6, 0, 6, WireMark::NONE);
    inject_ack(&mut r, 4_000, 6, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 12_000)
}

/// One window opening releases the end of a message and the start of the next: the last
/// packet of the first goes before the first packet of the second (SND-ORDER-001.b).
fn snd_order_messages() -> Scenario {
    let mut r = sender_with(
        "snd-order-messages",
        "One EV, and a fixed congestion window of two PMTUs. Messages of three and two \
         packets are posted together: PSNs 0 and 1 go. A SACK for PSN 1 opens two packets' \
         worth of window, and the last packet of the first message (PSN 2) and the first of \
         the second (PSN 3) are due together: PSN 2 goes first. Cumulative SACKs release the \
         rest, and an ACK completes both messages.",
        &["SND-ORDER-001", "SND-CC-001", "SND-SACK-001", "SND-ACK-001", "CQE-SEND-001"],
        |m| {
            m.tolerances.late_ns = 2_000;
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs: v4_evs(DUT_QP, 1),
            cc: CongestionControl::FixedWindow { bytes: u64::from(2 * PMTU) },
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    r.checks(&["SND-ORDER-001", "SND-CC-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 3 * PMTU, None, true)));
    r.host(1_000, HostCommand::PostWrite(wr(1, 2 * PMTU, None, true)));
    r.checks(&["SND-ORDER-001", "SND-SACK-001"]);
    inject_sack(&mut r, 2_000, 1, 0, 1, WireMark::NONE);
    inject_sack(&mut r, 3_000, 3, 0, 3, WireMark::NONE);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 4_000, 4, 0, 4, WireMark::NONE);
    inject_ack(&mut r, 4_000, 4, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 12_000)
}

/// A SACK is checked before anything of it is applied, and a probe answer's mark is not a
/// SACK mark.
fn snd_sack_order() -> Scenario {
    let mut r = sender_with(
        "snd-sack-order",
        "The QP has one EV. A SACK that claims a PSN never sent carries m = ALWAYS_SKIP, and \
         one whose sack_offset lies beyond any window carries it too: the checks come first \
         and discard them whole, so the EV stays GOOD. A probe answer (pr = 1) names the EV \
         with m = SKIP_ONCE: as a probe answer it changes only an EV in ASSUMED_BAD, so the \
         EV stays GOOD. A message sent after them goes out at once.",
        &[
            "SND-SACK-006",
            "SND-SACK-003",
            "SND-SACK-004",
            "EV-STATE-002",
            "SND-PATH-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.tolerances.late_ns = 2_000;
        },
    );
    let evs = v4_evs(DUT_QP, 1);
    let e0 = evs[0];
    setup_evs(&mut r, 0, evs);
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.run_until(2_000);
    r.inject(2_000, 0, e0, &sack_in(5, 0, 0, WireMark::ALWAYS_SKIP, e0));
    let mut wild = sack_in(0, 0, 0, WireMark::ALWAYS_SKIP, e0);
    if let Packet::Sack { seth, .. } = &mut wild {
        seth.sack_offset = 1_000;
    }
    r.inject(2_200, 0, e0, &wild);
    r.inject(2_500, 0, e0, &probe_answer(0xFF_FFFF, 1, WireMark::SKIP_ONCE, e0));
    r.checks(&["SND-SACK-006", "SND-PATH-001"]);
    r.host(3_000, HostCommand::PostWrite(wr(1, 64, None, true)));
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 4_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 4_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 12_000)
}

/// `timestamps = false`: no TSETH, `ts` clear, first transmissions and retransmissions.
fn snd_no_timestamps() -> Scenario {
    let mut r = sender_with(
        "snd-no-timestamps",
        "With timestamps disabled the device sends two messages, one of three packets, and \
         retransmits a trimmed packet: no packet has BTH ts set or carries a TSETH.",
        &["SND-TS-002", "TSETH-PRESENT-001", "SND-RTX-001", "SND-ACK-001", "CQE-SEND-001"],
        |m| {
            m.nic.timestamps = false;
            m.tolerances.late_ns = 2_000;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 2));
    r.checks(&["SND-TS-002"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 3 * PMTU, None, true)));
    r.host(1_500, HostCommand::PostWrite(wr(1, 64, None, true)));
    inject_nack(&mut r, 2_000, 1, NackReason::TRIMMED);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 3_000, 3, 0, 3, WireMark::NONE);
    inject_ack(&mut r, 3_000, 3, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 12_000)
}

/// A lost tail: only the tail probe's answer can show it before the timeout.
fn snd_tail_probe() -> Scenario {
    let mut r = sender_with(
        "snd-tail-probe",
        "One EV, tail_probe 3 us. A two-packet message is acknowledged within 1 us: its \
         tail is known to have arrived, so no probe follows it. A three-packet message loses \
         its last packet, PSN 4: the SACK of PSN 3 cannot show the loss, no later packet on \
         the EV can, and 3 us after PSN 4 left the device sends a tail probe on the EV, the \
         first probe of the QP. Its answer comes late, 4 us later, and in the meantime the \
         EV is not probed again. The answer shows PSN 4 missing: the device infers it lost \
         and retransmits it at once (the EV being the only one), and the retransmission, \
         acknowledged within 1 us, is not probed.",
        &[
            "SND-TAIL-001",
            "SND-TAIL-002",
            "SND-TAIL-003",
            "EV-PROBE-005",
            "REC-IF-007",
            "REC-IF-008",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::TailProbe);
            m.nic.tail_probe = Some(std::time::Duration::from_micros(3));
            m.tolerances.late_ns = 2_000;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 1));
    let ev = v4_evs(DUT_QP, 1)[0];
    // An acknowledged tail is not probed: nothing is expected at 4 us.
    r.checks(&["SND-TAIL-001", "SND-ACK-001", "CQE-SEND-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 2 * PMTU, None, true)));
    inject_sack(&mut r, 2_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 2_000, 1, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    // PSNs 2 to 4; PSN 4 is lost, which the SACK of PSN 3 cannot show.
    r.host(4_000, HostCommand::PostWrite(wr(1, 3 * PMTU, None, true)));
    r.checks(&["SND-TAIL-001", "EV-PROBE-005"]);
    inject_sack(&mut r, 5_000, 3, 0, 3, WireMark::NONE);
    // The probe (probe_id 1) left at 7 us; its answer, at 11 us, shows PSNs up to 3 and
    // covers PSN 4 without showing it.
    r.run_until(11_000);
    r.checks(&["SND-TAIL-003", "SND-TAIL-002", "SND-RTX-001", "BTH-RTX-001", "REC-IF-008"]);
    r.inject(11_000, port_of(ev, 4), ev, &probe_answer(3, 1, WireMark::NONE, ev));
    r.run_until(11_500);
    r.checks(&["SND-TAIL-001", "SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 12_000, 4, 0, 4, WireMark::NONE);
    inject_ack(&mut r, 12_000, 4, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 22_000)
}

/// Two lost transmissions before a tail probe: its answer judges both, the latest one on
/// the EV too, since the probe takes the EV's next per-EV sequence number.
fn snd_tail_probe_two_lost() -> Scenario {
    let mut r = sender_with(
        "snd-tail-probe-two-lost",
        "One EV, tail_probe 3 us. A three-packet message loses its last two packets, PSNs 1 \
         and 2: the SACK of PSN 0 cannot show the loss, and 3 us after PSN 2 left the \
         device sends a tail probe on the EV. The probe takes the EV's next per-EV sequence \
         number, after PSN 2's. Its answer shows PSN 0 only and covers PSNs 1 and 2: the \
         device infers both lost, PSN 2 too as the latest transmission before the probe, \
         and retransmits them at once (the EV being the only one).",
        &[
            "SND-TAIL-001",
            "SND-TAIL-002",
            "SND-TAIL-003",
            "EV-PROBE-005",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::TailProbe);
            m.nic.tail_probe = Some(std::time::Duration::from_micros(3));
            m.tolerances.late_ns = 2_000;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 1));
    let ev = v4_evs(DUT_QP, 1)[0];
    // PSNs 0 to 2; PSNs 1 and 2 are lost, which the SACK of PSN 0 cannot show.
    r.checks(&["SND-TAIL-001", "EV-PROBE-005"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 3 * PMTU, None, true)));
    inject_sack(&mut r, 2_000, 0, 0, 0, WireMark::NONE);
    // The probe (probe_id 1) left at 4 us; its answer, at 6 us, shows PSN 0 and covers
    // PSNs 1 and 2 without showing them.
    r.run_until(6_000);
    r.checks(&["SND-TAIL-002", "SND-TAIL-003", "SND-RTX-001", "BTH-RTX-001", "REC-IF-008"]);
    r.inject(6_000, port_of(ev, 4), ev, &probe_answer(0, 1, WireMark::NONE, ev));
    r.run_until(6_500);
    r.checks(&["SND-TAIL-001", "SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 7_000, 2, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 7_000, 2, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 16_000)
}

/// A transmission sent on the probe's EV after the probe is not judged by its answer: the
/// probe took the EV's next per-EV sequence number, and the transmission a later one.
fn snd_tail_probe_later_spared() -> Scenario {
    let mut r = sender_with(
        "snd-tail-probe-later-spared",
        "One EV, tail_probe 3 us. A two-packet message loses its last packet, PSN 1: the \
         SACK of PSN 0 cannot show the loss, and 3 us after PSN 1 left the device sends a \
         tail probe on the EV. A second message, PSN 2, leaves on the EV after the probe, \
         with a higher per-EV sequence number. The answer shows PSN 0 only and covers PSNs \
         1 and 2: the device infers PSN 1 lost and retransmits it, and not PSN 2, sent after \
         the probe, which then arrives.",
        &[
            "SND-TAIL-001",
            "EV-PROBE-005",
            "SND-TAIL-002",
            "SND-TAIL-003",
            "SND-RTX-001",
            "SND-RTX-004",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::TailProbe);
            m.nic.tail_probe = Some(std::time::Duration::from_micros(3));
            m.tolerances.late_ns = 2_000;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 1));
    let ev = v4_evs(DUT_QP, 1)[0];
    // PSNs 0 and 1; PSN 1 is lost, which the SACK of PSN 0 cannot show.
    r.checks(&["SND-TAIL-001", "EV-PROBE-005"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 2 * PMTU, None, true)));
    inject_sack(&mut r, 2_000, 0, 0, 0, WireMark::NONE);
    // The probe (probe_id 1) leaves at 4 us. PSN 2 is posted at 6.5 us, after the probe
    // even if the probe leaves `late_ns` late.
    r.run_until(6_500);
    r.host(6_500, HostCommand::PostWrite(wr(1, PMTU, None, true)));
    // The answer, at 7.5 us, shows PSN 0 and covers PSNs 1 and 2 without showing them.
    r.run_until(7_500);
    r.checks(&["SND-TAIL-002", "SND-TAIL-003", "SND-RTX-001", "SND-RTX-004", "BTH-RTX-001"]);
    r.inject(7_500, port_of(ev, 4), ev, &probe_answer(0, 1, WireMark::NONE, ev));
    r.run_until(8_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 8_500, 2, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 8_500, 2, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 16_000)
}

/// A loss that only the upper half of a SACK's bitmap proves.
fn snd_infer_high_word() -> Scenario {
    let mut r = inference_recorder(
        "snd-infer-high-word",
        "One EV. The device sends PSNs 0 to 33. A SACK shows PSNs 0 to 31 and 33, not 32: the \
         only evidence against PSN 32 is PSN 33, bit 32 of a bitmap based at PSN 1, so a \
         sender that reads only the low 32 bits of the bitmap has none. PSN 32 is inferred \
         lost and retransmitted at once; the retransmission arrives, and everything is \
         acknowledged.",
        &[
            "SND-SACK-002",
            "SND-INFER-001",
            "SND-RTX-001",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        1,
        256,
    );
    r.host(1_000, HostCommand::PostWrite(wr(0, 34 * 256, None, true)));
    r.checks(&["SND-SACK-002", "SND-INFER-001", "SND-RTX-001", "BTH-RTX-001"]);
    // Everything up to PSN 0, and PSNs 1 to 31 and 33 (bits 0 to 30 and 32 of a bitmap
    // based at PSN 1).
    inject_sack_offset(&mut r, 3_000, 0, 1, 0x1_7FFF_FFFF, 33);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 5_000, 33, 0, 32, WireMark::NONE);
    inject_ack(&mut r, 5_000, 33, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 13_000)
}

/// NACKs of PSNs above 0xFFFF: a stale one, and a last-hop trim.
fn snd_nack_high_psn() -> Scenario {
    let mut r = sender_with(
        "snd-nack-high-psn",
        "The QP has three EVs and starts at PSN 0x10000. The device sends PSNs 0x10000 to \
         0x10002, and a SACK acknowledges 0x10000. A NACK PSN_OOR_WINDOW for 0x10000 then is \
         stale: it changes nothing, and PSN 0x10001, the oldest outstanding, is not \
         retransmitted. A NACK TRIMMED_LASTHOP for 0x10002 is a trim, not a fatal reason: \
         the PSN is retransmitted at once on another EV, and the QP stays up. Everything is \
         then acknowledged.",
        &[
            "SND-NACK-001",
            "SND-NACK-002",
            "SND-RTX-004",
            "SND-RTX-001",
            "BTH-RTX-001",
            "EV-SKIP-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.nic.nack_backoff = std::time::Duration::from_micros(1);
            m.tolerances.late_ns = 2_000;
        },
    );
    const B: u32 = 0x1_0000;
    setup_evs(&mut r, B, v4_evs(DUT_QP, 3));
    r.host(1_000, HostCommand::PostWrite(wr(0, 3 * PMTU, None, true)));
    inject_sack(&mut r, 2_000, B, 0, B, WireMark::NONE);
    r.checks(&["SND-NACK-001", "SND-RTX-004"]);
    inject_nack(&mut r, 2_500, B, NackReason::PSN_OOR_WINDOW);
    r.checks(&["SND-NACK-002", "SND-RTX-001", "BTH-RTX-001", "EV-SKIP-001"]);
    inject_nack(&mut r, 4_000, B + 2, NackReason::TRIMMED_LASTHOP);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 6_000, B + 2, 0, B + 2, WireMark::NONE);
    inject_ack(&mut r, 6_000, B + 2, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 15_000)
}
