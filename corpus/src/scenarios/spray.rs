//! Path choice and the spray policies (`SND-PATH-*`, `SND-SPRAY-*`, `SND-RTT-002`).
//!
//! Every scenario here moves the QP's EVs through their states with inputs of its own —
//! SACK marks, trims, probe answers, a controller's commands — so that the usable pool
//! changes under the device's feet. Every device is held to the pool (`CONF-CMP-027`); the
//! scenarios that require `spray-policies` also pin each EV to the one the QP's policy
//! gives (`CONF-CMP-048`), and may therefore answer the device as paths of different delays
//! would (`CONF-GEN-007`).

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("snd-spray-round-robin", snd_spray_round_robin),
        ("snd-spray-fixed", snd_spray_fixed),
        ("snd-spray-random", snd_spray_random),
        ("snd-spray-random-spread", snd_spray_random_spread),
        ("snd-spray-skew-aware", snd_spray_skew_aware),
        ("snd-spray-window-fit", snd_spray_window_fit),
        ("snd-spray-window-fit-probe-rtt", snd_spray_window_fit_probe_rtt),
        ("snd-spray-window-fit-margin", snd_spray_window_fit_margin),
        ("snd-ev-skip-kept", snd_ev_skip_kept),
        ("snd-spray-two-qps", snd_spray_two_qps),
    ]
}

/// Backup EVs of the device's QP that IPv4 carries whole (`ENC-EV-002`), after the `n`
/// primaries of [`v4_evs`].
fn v4_backups(me: u32, n: u32, k: u32) -> Vec<Ev> {
    (0..k).map(|i| Ev::new((0xC000 + (me << 4) + n + i) << 16)).collect()
}

/// A requester whose QP has `primaries` and `backups` EVs and sprays by `spray`; the EV
/// states change only as the scenario's inputs say, with a short SKIP and back-off.
fn spray_recorder(
    name: &str,
    description: &str,
    reqs: &[&str],
    spray: SprayPolicy,
    primaries: u32,
    backups: u32,
    exact: bool,
) -> (Recorder, Vec<Ev>, Vec<Ev>) {
    let r = sender_with(name, description, reqs, |m| {
        m.requires.insert(Capability::Paths);
        m.requires.insert(Capability::CpuSplit);
        if exact {
            m.requires.insert(Capability::SprayPolicies);
        }
        m.nic.skip_hold = std::time::Duration::from_micros(10);
        m.nic.nack_backoff = std::time::Duration::from_micros(1);
        m.tolerances.late_ns = 2_000;
    });
    let evs = v4_evs(DUT_QP, primaries);
    let backup_evs = v4_backups(DUT_QP, primaries, backups);
    let mut r = r;
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs: evs.clone(),
            backup_evs: backup_evs.clone(),
            spray,
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    (r, evs, backup_evs)
}

/// Marks, trims, a controller's deny and a probe answer move the pool of a QP of four
/// primary and two backup EVs; the policy is judged at every packet.
fn pool_changes(mut r: Recorder, e: &[Ev], b: &[Ev]) -> Scenario {
    let qpn = Qpn::new(DUT_QP);
    // PSNs 0 to 5 on the four primaries.
    r.host(1_000, HostCommand::PostWrite(wr(0, 6 * PMTU, None, true)));
    // A SKIP_ONCE mark for PSN 1 puts its EV in SKIP for skip_hold.
    inject_sack(&mut r, 2_000, 0, 0, 1, WireMark::SKIP_ONCE);
    // A trim of PSN 2 puts its EV in SKIP too, and PSN 2 is retransmitted at once on an EV
    // of the pool other than its own.
    inject_nack(&mut r, 2_500, 2, NackReason::TRIMMED);
    // PSNs 6 to 9 on the two primaries left.
    r.host(3_000, HostCommand::PostWrite(wr(1, 4 * PMTU, None, true)));
    // ALWAYS_SKIP marks for PSNs 6 and 7 leave no primary GOOD.
    inject_sack(&mut r, 4_000, 5, 0, 6, WireMark::ALWAYS_SKIP);
    inject_sack(&mut r, 4_100, 5, 0b11, 7, WireMark::ALWAYS_SKIP);
    // PSNs 10 to 12 on the backups.
    r.host(5_000, HostCommand::PostWrite(wr(2, 3 * PMTU, None, true)));
    // A controller denies the first backup; a NACK NO_RESOURCE for PSN 11 is retransmitted
    // after the back-off, on the only EV left, although that is PSN 11's own.
    r.cpu(6_000, CpuCommand::SetEvState { qpn, ev: b[0], state: EvState::Denied });
    inject_nack(&mut r, 6_500, 11, NackReason::NO_RESOURCE);
    r.run_until(8_000);
    // A probe answer brings the first primary back: the backups are out of the pool again.
    r.inject(8_000, 0, e[0], &probe_answer(9, 1, WireMark::NONE, e[0]));
    r.host(8_500, HostCommand::PostWrite(wr(3, 2 * PMTU, None, true)));
    // After skip_hold the two skipped EVs are GOOD again.
    r.host(13_000, HostCommand::PostWrite(wr(4, 4 * PMTU, None, true)));
    r.run_until(14_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 15_000, 18, 0, 18, WireMark::NONE);
    inject_ack(&mut r, 15_000, 18, 4, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 25_000)
}

/// Round robin from a cursor shared by first transmissions and retransmissions, over a
/// pool that marks, trims, a deny and a probe answer change.
fn snd_spray_round_robin() -> Scenario {
    let (mut r, e, b) = spray_recorder(
        "snd-spray-round-robin",
        "Round robin over four primary and two backup EVs: a SKIP_ONCE mark and a trim put \
         two primaries in SKIP for skip_hold (the trimmed PSN goes again at once, on the \
         next EV of the pool from the cursor); ALWAYS_SKIP marks on the other two leave only \
         the backups; a controller denies one of them and a NO_RESOURCE NACK's PSN is \
         retransmitted on its own EV, the only one left; a probe answer brings a primary \
         back, and the skipped ones return after skip_hold. Every packet's EV is the one \
         round robin gives.",
        &[
            "SND-SPRAY-001",
            "SND-PATH-001",
            "SND-RTX-002",
            "EV-STATE-001",
            "EV-SKIP-001",
            "EV-SKIP-002",
            "EV-BAD-001",
            "EV-PROBE-002",
            "EV-DENY-001",
            "EV-STATE-003",
            "SND-NACK-002",
            "SND-NACK-004",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        SprayPolicy::RoundRobin,
        4,
        2,
        true,
    );
    r.checks(&["SND-SPRAY-001", "SND-PATH-001"]);
    pool_changes(r, &e, &b)
}

/// An EV in SKIP carries nothing while another is GOOD, for longer than a device may take
/// to act on the mark (EV-STATE-001.b), and a backup EV left idle past `skip_hold` shows
/// by its reports, or their absence, the state it started in (EV-STATE-001.a).
fn snd_ev_skip_kept() -> Scenario {
    let (mut r, _, _) = spray_recorder(
        "snd-ev-skip-kept",
        "Round robin over two primary EVs and one backup, skip_hold 10 us. A SACK with m = \
         SKIP_ONCE puts the first primary in SKIP; a message of four packets posted 3 us \
         later, longer after the mark than a device may take to act on it, goes out on the \
         second primary only. The backup is never needed and never leaves GOOD, so it is \
         never reported; the first primary is reported GOOD again after skip_hold.",
        &[
            "EV-STATE-001",
            "EV-SKIP-001",
            "EV-SKIP-002",
            "SND-PATH-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        SprayPolicy::RoundRobin,
        2,
        1,
        false,
    );
    r.checks(&["EV-STATE-001", "SND-PATH-001"]);
    // PSN 0 on the first primary, PSN 1 on the second.
    r.host(1_000, HostCommand::PostWrite(wr(0, 2 * PMTU, None, true)));
    r.checks(&["EV-SKIP-001"]);
    inject_sack(&mut r, 2_000, 1, 0, 0, WireMark::SKIP_ONCE);
    inject_ack(&mut r, 2_000, 1, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    // PSNs 2 to 5 on the second primary alone.
    r.host(5_000, HostCommand::PostWrite(wr(1, 4 * PMTU, None, true)));
    r.run_until(8_000);
    r.checks(&["EV-SKIP-002"]);
    inject_sack(&mut r, 8_000, 5, 0, 5, WireMark::NONE);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_ack(&mut r, 8_000, 5, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 25_000)
}

/// The first EV of the pool in profile order, always.
fn snd_spray_fixed() -> Scenario {
    let (mut r, e, _) = spray_recorder(
        "snd-spray-fixed",
        "The fixed policy over three primary EVs and one backup: every packet takes the \
         first EV of the usable pool in profile order. An ALWAYS_SKIP mark moves the QP to \
         the second EV; a trim of a packet on it sends the retransmission to the third, the \
         first of the pool without the trimmed EV, and the QP stays there; a controller \
         denies the third, leaving only the backup; a probe answer brings the first back, \
         and the QP returns to it.",
        &[
            "SND-SPRAY-003",
            "SND-PATH-001",
            "SND-RTX-002",
            "EV-STATE-001",
            "EV-SKIP-001",
            "EV-BAD-001",
            "EV-PROBE-002",
            "EV-DENY-001",
            "EV-STATE-003",
            "SND-NACK-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        SprayPolicy::Fixed,
        3,
        1,
        true,
    );
    let qpn = Qpn::new(DUT_QP);
    r.checks(&["SND-SPRAY-003", "SND-PATH-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 3 * PMTU, None, true)));
    inject_sack(&mut r, 2_000, 0, 0, 0, WireMark::ALWAYS_SKIP);
    r.host(2_500, HostCommand::PostWrite(wr(1, 2 * PMTU, None, true)));
    inject_nack(&mut r, 3_000, 3, NackReason::TRIMMED);
    r.host(3_500, HostCommand::PostWrite(wr(2, 2 * PMTU, None, true)));
    r.cpu(4_000, CpuCommand::SetEvState { qpn, ev: e[2], state: EvState::Denied });
    r.host(4_500, HostCommand::PostWrite(wr(3, PMTU, None, true)));
    r.inject(5_000, 0, e[0], &probe_answer(0, 1, WireMark::NONE, e[0]));
    r.host(5_500, HostCommand::PostWrite(wr(4, 2 * PMTU, None, true)));
    // After skip_hold the second EV is GOOD again, but the first stays first.
    r.host(14_000, HostCommand::PostWrite(wr(5, PMTU, None, true)));
    r.run_until(15_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 16_000, 10, 0, 10, WireMark::NONE);
    inject_ack(&mut r, 16_000, 10, 5, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 25_000)
}

/// Random draws are the device's own: only the pool is judged.
fn snd_spray_random() -> Scenario {
    let (mut r, e, b) = spray_recorder(
        "snd-spray-random",
        "The random policy over four primary and two backup EVs, while marks, a trim, a \
         controller's deny and a probe answer change the usable pool as in \
         snd-spray-round-robin. The draws are the device's own, so only the pool is judged: \
         every packet, first transmission or retransmission, takes a GOOD primary while one \
         is GOOD, a GOOD backup otherwise, and a retransmission not its PSN's previous EV \
         while another is GOOD.",
        &[
            "SND-SPRAY-002",
            "SND-PATH-001",
            "SND-RTX-002",
            "EV-STATE-001",
            "EV-SKIP-001",
            "EV-SKIP-002",
            "EV-BAD-001",
            "EV-PROBE-002",
            "EV-DENY-001",
            "EV-STATE-003",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        SprayPolicy::Random,
        4,
        2,
        false,
    );
    r.checks(&["SND-SPRAY-002", "SND-PATH-001"]);
    pool_changes(r, &e, &b)
}

/// Enough random draws that their spread shows: a generator that is not uniform over the
/// pool (stuck, or drawing over the whole profile) leaves an EV out or piles onto one far
/// beyond what chance allows (`paths::judge_random`).
fn snd_spray_random_spread() -> Scenario {
    let (mut r, e, _) = spray_recorder(
        "snd-spray-random-spread",
        "The random policy over four primary EVs: a message of 120 packets, then, once a \
         controller has denied two of the EVs, a message of 64 packets over the two left. \
         The draws are the device's own, so only their spread is judged: over each pool, \
         every EV is drawn and none far above its share, by bounds a uniform draw breaks \
         with a chance below 10^-9.",
        &[
            "SND-SPRAY-002",
            "SND-PATH-001",
            "EV-STATE-001",
            "EV-DENY-001",
            "EV-STATE-003",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        SprayPolicy::Random,
        4,
        0,
        true,
    );
    let qpn = Qpn::new(DUT_QP);
    r.checks(&["SND-SPRAY-002", "SND-PATH-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 120 * PMTU, None, true)));
    r.run_until(30_000);
    inject_sack(&mut r, 30_000, 119, 0, 119, WireMark::NONE);
    inject_ack(&mut r, 30_000, 119, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    r.run_until(31_000);
    r.checks(&["SND-SPRAY-002", "SND-PATH-001"]);
    r.cpu(31_000, CpuCommand::SetEvState { qpn, ev: e[1], state: EvState::Denied });
    r.cpu(31_000, CpuCommand::SetEvState { qpn, ev: e[3], state: EvState::Denied });
    r.host(33_000, HostCommand::PostWrite(wr(1, 64 * PMTU, None, true)));
    r.run_until(60_000);
    inject_sack(&mut r, 60_000, 183, 0, 183, WireMark::NONE);
    inject_ack(&mut r, 60_000, 183, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    done(r, 70_000)
}

/// Skew-aware spraying over three EVs whose round trips the scenario sets: 10, 33 and
/// 47 µs.
///
/// Each acknowledgement reports exactly the PSNs that have "arrived" by then, a PSN on the
/// first EV 10 µs after it was sent, on the second 33 µs and on the third 47 µs, so that
/// every sample equals its EV's round trip and `srtt` stays put, except where the scenario
/// means it to move. Every choice has a margin of at least 3 µs between the products it
/// compares, several times what the tolerance lets a device's send times differ by.
fn snd_spray_skew_aware() -> Scenario {
    let mut r = sender_with(
        "snd-spray-skew-aware",
        "Skew-aware spraying over three EVs whose packets the scenario acknowledges 10, 33 \
         and 47 us after they were sent. Until every EV has a round-trip sample the device \
         sprays round robin; then each packet takes the EV with the least srtt x (inflight + \
         1). A NO_RESOURCE NACK moves a packet of the second EV to the first, releasing its \
         place there, so the next packet takes the second EV again; that packet's old \
         transmission, now superseded, is no suspect when a later packet of the second EV \
         arrives. A packet acknowledged 90 us late moves the first EV's srtt by a seventh of \
         the difference, to 20 us, and the retransmitted packet, acknowledged 100 us after \
         its retransmission, gives no sample: the last message is sprayed by those \
         estimates.",
        &[
            "SND-SPRAY-004",
            "SND-RTT-002",
            "SND-INFER-003",
            "SND-INFER-004",
            "SND-RTX-006",
            "SND-RTX-002",
            "SND-PATH-001",
            "SND-NACK-004",
            "SND-SACK-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::SprayPolicies);
            m.tolerances.late_ns = 2_000;
            m.tolerances.early_ns = 2_000;
            // No timeout may interfere with the 100 us wait for the retransmitted packet.
            m.recovery.rto = std::time::Duration::from_micros(500);
            m.recovery.rto_max = std::time::Duration::from_micros(500);
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs: v4_evs(DUT_QP, 3),
            spray: SprayPolicy::SkewAware,
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    let none = WireMark::NONE;
    r.checks(&["SND-SPRAY-004"]);
    // Round robin while an EV has no sample: PSNs 0, 1, 2 on the three EVs.
    r.host(1_000, HostCommand::PostWrite(wr(0, 3 * PMTU, None, true)));
    r.checks(&["SND-SPRAY-004", "SND-RTT-002"]);
    inject_sack(&mut r, 11_000, 0, 0, 0, none);
    inject_sack(&mut r, 34_000, 1, 0, 1, none);
    // The third EV has no sample yet: PSN 3 still goes round robin, to the first.
    r.host(35_000, HostCommand::PostWrite(wr(1, PMTU, None, true)));
    inject_sack(&mut r, 45_000, 1, 0b10, 3, none);
    inject_sack(&mut r, 48_000, 3, 0, 2, none);
    // Every EV measured, nothing in flight: PSNs 4 to 9 go A A A B A C. Each input that
    // moves an estimate comes more than late_ns / 2 before the choice it moves, so that a
    // device that takes inputs that late still chooses these EVs (CONF-TIME-004), and the
    // acknowledgements below are true for it.
    r.host(49_500, HostCommand::PostWrite(wr(2, 6 * PMTU, None, true)));
    // PSN 7, on the second EV, is retransmitted on the first after the back-off.
    r.checks(&["SND-NACK-004", "SND-RTX-002"]);
    inject_nack(&mut r, 50_000, 7, NackReason::NO_RESOURCE);
    r.run_until(54_000);
    // The retransmission released the second EV's place (SND-RTX-006): PSN 10 goes there.
    r.checks(&["SND-RTX-006", "SND-SPRAY-004"]);
    r.host(54_000, HostCommand::PostWrite(wr(3, PMTU, None, true)));
    r.checks(&["SND-INFER-004", "SND-SPRAY-004"]);
    inject_sack(&mut r, 59_500, 6, 0, 6, none);
    // PSN 10 arrives on the second EV: PSN 7's first transmission there was superseded.
    inject_sack(&mut r, 87_000, 6, 0b1000, 10, none);
    inject_sack(&mut r, 96_500, 6, 0b1100, 9, none);
    // PSN 8, on the first EV, 90 us late: srtt (7 x 10 + 90) / 8 = 20 us.
    inject_sack(&mut r, 139_500, 6, 0b1110, 8, none);
    // The retransmitted PSN 7 arrives: no sample (SND-INFER-003, SND-RTT-002).
    inject_sack(&mut r, 152_000, 10, 0, 7, none);
    // srtt 20, 33 and 47 us, nothing in flight: PSNs 11 to 16 go A B A C A B.
    r.checks(&["SND-RTT-002", "SND-INFER-003", "SND-SPRAY-004"]);
    r.host(153_500, HostCommand::PostWrite(wr(4, 6 * PMTU, None, true)));
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 201_000, 16, 0, 16, none);
    inject_ack(&mut r, 201_000, 16, 4, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 211_000)
}

/// Window-fit spraying to a reference peer over three fast paths and a slow one.
///
/// The device posts a message of eight packets every 320 ns. The paths take 0.5 µs one way, the
/// fourth 10 µs, and the peer acknowledges every packet at once (`sack_coalesce` 1), so
/// that the round trips are set by the paths and the window alone. The window fills
/// before the fourth path's first packet is acknowledged, holding the QP back, and the
/// evaluation at the first packet after that acknowledgement finds the fourth path far
/// slower than the window can cover at the rate the QP sent: it leaves the path out and
/// probes it. Every decision compares round trips at least 8 % apart, against the 6.7 % of
/// the rule, and does not depend on the device's own pace: the QP sends when it is told
/// to, or when an acknowledgement opens the window.
fn snd_spray_window_fit() -> Scenario {
    let mut m = manifest(
        "snd-spray-window-fit",
        "Window-fit spraying over four EVs to a reference peer, over IPv6 paths of 0.5 us \
         one way for three EVs and 10 us for the fourth, a message of eight packets every \
         320 ns. \
         Until their round trips are known the device sprays round robin over all four; \
         the window fills and holds it back until the fourth EV's first packet is \
         acknowledged; the evaluation at the next packet leaves the fourth EV out (the three \
         others carry more than the window lets four carry) and probes it, right after that \
         packet. After a pause of 23 us, which the estimate of the QP's sending rate \
         counts, the three fast EVs alone no longer carry more than the window allows four: \
         the fourth EV is used again.",
        &[
            "SND-SPRAY-005",
            "SND-SPRAY-006",
            "SND-SPRAY-007",
            "SND-SPRAY-009",
            "EV-PROBE-005",
            "SND-SCHED-001",
            "SND-WIN-001",
            "SND-PATH-001",
        ],
        &[Capability::Requester, Capability::Ipv6, Capability::Paths, Capability::SprayPolicies],
    );
    m.link = v6_link();
    m.nic.retirement = RetirementMode::PerQp;
    m.nic.pmtu = 256;
    m.nic.sack_coalesce = 1;
    m.nic.ack_coalesce = 8;
    m.tolerances.late_ns = 2_000;
    m.tolerances.early_ns = 2_000;
    // No timeout may interfere with the fourth path's round trip.
    m.recovery.rto = std::time::Duration::from_micros(500);
    m.recovery.rto_max = std::time::Duration::from_micros(500);
    let mut r = Recorder::new(m);
    r.paths([500, 500, 500, 10_000].iter().map(|&delay| Path { delay, dark: None }).collect());
    r.with_peer();
    // Four EVs on the four paths (the path of an EV is its value modulo 4).
    let evs: Vec<Ev> =
        (0..4u32).map(|i| Ev::new((0xC000 + (DUT_QP << 4) + i) << 16 | (i * 0x111))).collect();
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs,
            spray: SprayPolicy::WindowFit,
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    r.peer_host(0, HostCommand::RegisterRegion(region()));
    r.peer_host(0, HostCommand::CreateQp(qp(PEER_QP, DUT_QP, 0)));
    r.checks(&["SND-SPRAY-005", "SND-SPRAY-006"]);
    for k in 0..19u32 {
        r.host(1_000 + u64::from(k) * 320, HostCommand::PostWrite(wr(k, 8 * 256, None, false)));
    }
    r.run_until(21_500);
    r.checks(&["SND-SPRAY-006", "SND-SPRAY-009", "SND-SCHED-001"]);
    r.run_until(44_000);
    r.checks(&["SND-SPRAY-007", "SND-SPRAY-006"]);
    for k in 0..3u32 {
        r.host(
            45_000 + u64::from(k) * 800,
            HostCommand::PostWrite(wr(19 + k, 8 * 256, None, false)),
        );
    }
    done(r, 80_000)
}

/// Window-fit spraying whose limit keeps EVs a little slower than the fastest
/// (`SND-SPRAY-006`).
///
/// Four paths of 20, 20.2, 20.4 and 30 us one way, as real paths differ. The first
/// message's 16 packets go round robin over the four EVs and each gets its round-trip
/// samples. The second message's first packet is the next evaluation: its packets left
/// together, so the QP's sending rate is still unknown, and the rule keeps every EV within
/// 16/15 of the fastest round trip. The three EVs of 40 to 40.8 us carry the second
/// message; the fourth, 60 us, is left out and probed. A device that keeps only the EVs of
/// the best value, without the margin, sends on the fastest EV alone.
///
/// The paths are long against the lag a device may add to its inputs (`late_ns / 2`, 1
/// us, CONF-CMP-048): a late device's samples are up to 1 us longer, so its round trips of
/// the three fast EVs lie between 40 and 41.8 us, all within 16/15 of the fastest (42.7
/// us), and the fourth's above 60 us far outside. Only a limit without the margin leaves
/// the second or the third out.
fn snd_spray_window_fit_margin() -> Scenario {
    let mut m = manifest(
        "snd-spray-window-fit-margin",
        "Window-fit spraying over four EVs to a reference peer, over IPv6 paths of 20, \
         20.2, 20.4 and 30 us one way. The first message goes round robin over the four \
         EVs. At the second message the QP's sending rate is still unknown, so the limit \
         keeps every EV within 16/15 of the fastest round trip: the three fast EVs, though \
         their round trips differ a little, carry the second message; the fourth is left \
         out and probed.",
        &["SND-SPRAY-006", "SND-SPRAY-005", "SND-SPRAY-009", "EV-PROBE-005", "SND-PATH-001"],
        &[Capability::Requester, Capability::Ipv6, Capability::Paths, Capability::SprayPolicies],
    );
    m.link = v6_link();
    m.nic.retirement = RetirementMode::PerQp;
    m.nic.pmtu = 256;
    m.nic.sack_coalesce = 1;
    m.tolerances.late_ns = 2_000;
    m.tolerances.early_ns = 2_000;
    // No timeout may interfere with the round trips.
    m.recovery.rto = std::time::Duration::from_micros(500);
    m.recovery.rto_max = std::time::Duration::from_micros(500);
    let mut r = Recorder::new(m);
    r.paths(
        [20_000, 20_200, 20_400, 30_000].iter().map(|&delay| Path { delay, dark: None }).collect(),
    );
    r.with_peer();
    // Four EVs on the four paths (the path of an EV is its value modulo 4).
    let evs: Vec<Ev> =
        (0..4u32).map(|i| Ev::new((0xC000 + (DUT_QP << 4) + i) << 16 | (i * 0x111))).collect();
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs,
            spray: SprayPolicy::WindowFit,
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    r.peer_host(0, HostCommand::RegisterRegion(region()));
    r.peer_host(0, HostCommand::CreateQp(qp(PEER_QP, DUT_QP, 0)));
    // PSNs 0 to 15 round robin over the four EVs.
    r.checks(&["SND-SPRAY-005", "SND-SPRAY-006"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 16 * 256, None, false)));
    // PSNs 16 to 31 on the three fast EVs; the fourth is probed.
    r.checks(&["SND-SPRAY-006"]);
    r.probe_checks(&["SND-SPRAY-009", "EV-PROBE-005"]);
    r.host(100_000, HostCommand::PostWrite(wr(1, 16 * 256, None, false)));
    r.checks(&[]);
    done(r, 200_000)
}

/// Window-fit spraying whose return to an EV only a probe answer can decide
/// (`SND-SPRAY-010`).
///
/// Four paths of 1 us one way; the fourth is dark for the first 3.5 us, so the fourth EV's
/// packets of the first message are lost and it gets no round-trip sample from data. At the
/// next evaluation, the second message's first packet, its judged round trip is the age of
/// its oldest lost packet, 4 us against the others' 2 us, while the QP's sending rate is
/// still unknown (the packets of a message leave together), so that the rule keeps only
/// EVs within 16/15 of the fastest: the policy leaves it out and probes it, on its path,
/// now back. The answer is the EV's first sample, 2 us like the others'. The evaluation at
/// the third message, 55 us later, knows the QP's rate from the 4 us between the first two
/// messages (16 packets, three EVs: one packet per 0.75 us per EV), at which the window
/// covers round trips of up to 34 us: an EV judged by the sample is used again, one still
/// judged by its lost packets (59 us old) stays out, and one whose sample came out about
/// 1 ms (the timestamps subtracted the wrong way round) stays out too.
///
/// Every decision keeps a wide margin, also for a device whose sends differ from the
/// reference's by the 500 ns the tolerances allow: at the second message an age of 3 us or
/// more against round trips of 1.5 to 2.5 us (so a threshold of 2.67 us at most); at the
/// third a rate from a gap of 3 to 5 us, so a window that covers 26 to 43 us, against a
/// sample of 1.5 to 2.5 us and an age of about 59 us.
fn snd_spray_window_fit_probe_rtt() -> Scenario {
    let mut m = manifest(
        "snd-spray-window-fit-probe-rtt",
        "Window-fit spraying over four EVs to a reference peer, over IPv6 paths of 1 us one \
         way, the fourth dark for the first 3.5 us: the first message's packets on the \
         fourth EV are lost. At the second message the fourth EV, judged by the age of its \
         oldest lost packet, is left out and probed on its path, now back; the probe's \
         answer is its only round-trip sample. At the third message, 55 us later, that \
         sample of 2 us puts the fourth EV back in use, where the age of its lost packets \
         would have kept it out; a packet on it reveals their loss and they are \
         retransmitted on the others.",
        &[
            "SND-SPRAY-010",
            "SND-SPRAY-005",
            "SND-SPRAY-006",
            "SND-SPRAY-009",
            "EV-PROBE-005",
            "SND-INFER-001",
            "SND-RTX-002",
            "SND-PATH-001",
        ],
        &[Capability::Requester, Capability::Ipv6, Capability::Paths, Capability::SprayPolicies],
    );
    m.link = v6_link();
    m.nic.retirement = RetirementMode::PerQp;
    m.nic.pmtu = 256;
    m.nic.sack_coalesce = 1;
    m.tolerances.late_ns = 2_000;
    m.tolerances.early_ns = 2_000;
    // No timeout may repair the lost packets: only a packet on their EV reveals the loss.
    m.recovery.rto = std::time::Duration::from_micros(500);
    m.recovery.rto_max = std::time::Duration::from_micros(500);
    let mut r = Recorder::new(m);
    let dark = [None, None, None, Some((0, 3_500))];
    r.paths(dark.iter().map(|&dark| Path { delay: 1_000, dark }).collect());
    r.with_peer();
    // Four EVs on the four paths (the path of an EV is its value modulo 4).
    let evs: Vec<Ev> =
        (0..4u32).map(|i| Ev::new((0xC000 + (DUT_QP << 4) + i) << 16 | (i * 0x111))).collect();
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs,
            spray: SprayPolicy::WindowFit,
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    r.peer_host(0, HostCommand::RegisterRegion(region()));
    r.peer_host(0, HostCommand::CreateQp(qp(PEER_QP, DUT_QP, 0)));
    // PSNs 0 to 15 round robin over the four EVs; the fourth EV's are lost.
    r.checks(&["SND-SPRAY-005", "SND-SPRAY-006"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 16 * 256, None, false)));
    // PSNs 16 to 31 on the first three EVs; the fourth is probed.
    r.checks(&["SND-SPRAY-006"]);
    r.probe_checks(&["SND-SPRAY-009", "EV-PROBE-005"]);
    r.host(5_000, HostCommand::PostWrite(wr(1, 16 * 256, None, false)));
    r.checks(&[]);
    // PSNs 32 to 47 over the four EVs again, by the probe's sample.
    r.checks(&["SND-SPRAY-010", "SND-SPRAY-006"]);
    r.host(60_000, HostCommand::PostWrite(wr(2, 16 * 256, None, false)));
    // The first packet on the fourth EV to arrive shows the four before it there lost.
    r.checks(&["SND-INFER-001", "SND-SPRAY-005"]);
    r.run_until(62_500);
    r.checks(&[]);
    done(r, 80_000)
}

/// Two round-robin QPs whose messages interleave: each QP keeps a cursor of its own
/// (SND-SPRAY-001), so what one QP sends never moves the other's.
fn snd_spray_two_qps() -> Scenario {
    let (mut r, _, _) = spray_recorder(
        "snd-spray-two-qps",
        "Two QPs of the device spray round robin over three primary EVs each, and their \
         messages interleave: QP A sends four packets, QP B two, then A two and B two. Each \
         QP has a cursor of its own: B's first packet takes B's first EV, and A's fifth \
         packet the EV after that of A's fourth, whatever the other QP sent in between.",
        &["SND-SPRAY-001", "SND-PATH-001"],
        SprayPolicy::RoundRobin,
        3,
        0,
        true,
    );
    let b = DUT_QP + 1;
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs: v4_evs(b, 3),
            spray: SprayPolicy::RoundRobin,
            ..qp(b, PEER_QP + 1, 0)
        }),
    );
    r.checks(&["SND-SPRAY-001", "SND-PATH-001"]);
    let on_b = |k: u32, length: u32| WorkRequest { qpn: Qpn::new(b), ..wr(k, length, None, true) };
    r.host(1_000, HostCommand::PostWrite(wr(0, 4 * PMTU, None, true)));
    r.host(1_500, HostCommand::PostWrite(on_b(8, 2 * PMTU)));
    r.host(2_500, HostCommand::PostWrite(wr(1, 2 * PMTU, None, true)));
    r.host(3_000, HostCommand::PostWrite(on_b(9, 2 * PMTU)));
    done(r, 10_000)
}
