//! Requesters facing a reference peer: lost SACKs and ACKs, timeouts, a dark path, retry
//! limits.

use super::*;

// ===== requesters facing a reference peer =================================================

/// A requester facing a reference peer over four paths of equal delay.
pub(super) fn paired(
    name: &str,
    description: &str,
    reqs: &[&str],
    f: impl FnOnce(&mut Manifest),
) -> Recorder {
    let mut m = manifest(
        name,
        description,
        reqs,
        &[Capability::Requester, Capability::CpuSplit, Capability::Ipv4],
    );
    m.nic.retirement = RetirementMode::PerQp;
    // As in `snd_loss`: a device may infer a loss later than the reference did, or leave
    // it to the timeout.
    m.tolerances.late_ns = m.recovery.rto.as_nanos() as u64 + 8_000;
    f(&mut m);
    let mut r = Recorder::new(m);
    r.paths((0..4).map(|_| Path { delay: 500, dark: None }).collect());
    r.with_peer();
    r
}

/// Sets up one QP pair whose EVs IPv4 carries whole (`ENC-EV-002`), so that the EVs the
/// peer reflects name the device's EVs. (They all map to port 0: their bits 15:0 are 0.)
pub(super) fn setup_v4_pair(r: &mut Recorder, psn: u32) {
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig { evs: v4_evs(DUT_QP, 8), ..qp(DUT_QP, PEER_QP, psn) }),
    );
    r.peer_host(0, HostCommand::RegisterRegion(region()));
    r.peer_host(
        0,
        HostCommand::CreateQp(QpConfig { evs: v4_evs(PEER_QP, 8), ..qp(PEER_QP, DUT_QP, psn) }),
    );
}

/// Posts `n` messages of `len` bytes on the device's QP at `at`.
pub(super) fn post_messages(r: &mut Recorder, at: u64, n: u32, len: u32) {
    for k in 0..n {
        r.host(at, HostCommand::PostWrite(wr(k, len, None, true)));
    }
}

/// The SACK and the ACK of the only message are lost: the timeout repairs both.
pub(super) fn snd_lost_sack() -> Scenario {
    let mut r = paired(
        "snd-lost-sack",
        "The device sends a two-packet message to a reference peer; the peer's SACK and \
         transport ACK are both lost. Only the timeout helps: the CPU half commands a \
         retransmission of the oldest unacknowledged PSN, the device resends it (rtx, \
         another EV), the peer answers the duplicate with a SACK and the ACK again, and the \
         message completes. The CPU half probes the EV it blamed, and the device sends the \
         probe.",
        &[
            "REC-IF-010",
            "REC-RTO-004",
            "EV-PROBE-005",
            "REC-IF-011",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |_| {},
    );
    setup_v4_pair(&mut r, 1);
    r.drop_ack(DUT_QP, 0).drop_ack(DUT_QP, 1);
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    post_messages(&mut r, 1_000, 1, 2 * PMTU);
    // The CPU half then probes the EV it blamed for the timeout.
    r.run_until(40_000);
    r.checks(&["EV-PROBE-005", "REC-IF-011"]);
    done(r, 60_000)
}

/// The transport ACK of the last message is lost: the tail packet is resent.
pub(super) fn snd_lost_ack() -> Scenario {
    let mut r = paired(
        "snd-lost-ack",
        "The device sends two messages to a reference peer; every packet arrives and is \
         SACKed, but the transport ACK of the second message is lost. With nothing \
         outstanding and a message awaiting its ACK, the timeout makes the device resend \
         the message's last packet once (rtx), which the peer answers with the ACK again.",
        &[
            "REC-IF-010",
            "REC-RTO-004",
            "SND-ACK-001",
            "SND-ACK-005",
            "CQE-SEND-001",
            "CQE-SEND-003",
        ],
        |_| {},
    );
    setup_v4_pair(&mut r, 1);
    // Per message the peer sends its transport ACK, then its SACK: the third
    // acknowledgement is the second message's ACK.
    r.drop_ack(DUT_QP, 2);
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    post_messages(&mut r, 1_000, 2, 512);
    done(r, 60_000)
}

/// The last packet of the last message is lost: no later packet reveals it.
pub(super) fn snd_timeout_loss() -> Scenario {
    let mut r = paired(
        "snd-timeout-loss",
        "The device sends four two-packet messages to a reference peer; the first \
         transmission of the very last packet is lost, so no later packet can reveal the \
         loss. The timeout makes the device retransmit it (rtx, another EV); the CPU half \
         assumes the lost packet's EV bad and probes it, the device sends the probes, and \
         the peer's answer makes the EV good again.",
        &[
            "REC-IF-010",
            "REC-RTO-004",
            "REC-IF-011",
            "EV-PROBE-005",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
        },
    );
    setup_v4_pair(&mut r, 0);
    r.drop_data(&[(PEER_QP, 7)]);
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    post_messages(&mut r, 1_000, 4, 2 * PMTU);
    r.run_until(40_000);
    r.checks(&["EV-PROBE-005", "REC-IF-011"]);
    done(r, 80_000)
}

/// A path goes dark and comes back.
pub(super) fn snd_dark_path() -> Scenario {
    let mut r = paired(
        "snd-dark-path-v6",
        "Over IPv6 the device sends four two-packet messages to a reference peer over four \
         paths; the second path is dark for 60 us, so the packets of its two EVs are lost, \
         and, with no later packet on those EVs, only timeouts reveal it. Each timeout \
         makes the device retransmit the oldest lost PSN on another EV and the CPU half \
         assume the lost packet's EV bad; the device sends the probes the CPU half \
         commands, the first ones are lost too, and once the path is back a probe is \
         answered and the EV is good again.",
        &[
            "REC-IF-010",
            "REC-RTO-004",
            "REC-IF-011",
            "EV-PROBE-005",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
            "ENC-IPV6-001",
        ],
        |m| {
            m.link = v6_link();
            m.requires.remove(&Capability::Ipv4);
            m.requires.insert(Capability::Ipv6);
            m.requires.insert(Capability::Paths);
        },
    );
    r.paths(
        (0..4u64).map(|p| Path { delay: 500, dark: (p == 1).then_some((1_000, 61_000)) }).collect(),
    );
    setup(&mut r, 0, true);
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    post_messages(&mut r, 1_000, 4, 2 * PMTU);
    // First timeout at about 34 us, probes every 10 us from about 44 us, the second
    // timeout at about 68 us, then a probe of the second EV.
    r.run_until(40_000);
    r.checks(&["EV-PROBE-005", "REC-IF-011"]);
    r.run_until(66_000);
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    r.run_until(72_000);
    r.checks(&["EV-PROBE-005", "REC-IF-011"]);
    done(r, 100_000)
}

/// No acknowledgement ever comes: the retry limit ends the QP.
pub(super) fn ret_retry_exceeded() -> Scenario {
    let mut r = evs_sender(
        "ret-retry-exceeded",
        "The device sends two messages and nothing ever answers. The CPU half times out \
         with back-off (rto 2 us, doubling, at most 8 us), commands a retransmission at \
         each expiry, which the device sends (or holds when no EV is usable), and after the \
         fourth expiry exceeds retry_limit 3 and ends the QP: both messages complete at \
         once, RETRY_EXCEEDED then FLUSHED, and the device sends nothing more.",
        &[
            "REC-IF-010",
            "REC-IF-013",
            "REC-RTO-004",
            "RET-FLUSH-001",
            "CQE-SEND-002",
            "CQE-STATUS-001",
            "FLAG-SEND-001",
            "FLAG-STATUS-001",
            "SND-ERR-001",
            "REC-IF-009",
            "REC-IF-011",
            "EV-PROBE-005",
        ],
        |m| {
            m.requires.insert(Capability::CpuSplit);
            m.requires.insert(Capability::Paths);
            m.recovery.rto = std::time::Duration::from_micros(2);
            m.recovery.rto_max = std::time::Duration::from_micros(8);
            m.recovery.backoff = 2;
            m.recovery.retry_limit = 3;
        },
    );
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    post_messages(&mut r, 1_000, 2, 512);
    // Expiries at 3, 7, 15 and 23 us (the last exceeds the limit); probes of the EVs
    // blamed at 13 and 17 us.
    for (at, ids) in [
        (12_000, ["EV-PROBE-005", "REC-IF-011"]),
        (14_000, ["REC-IF-010", "REC-RTO-004"]),
        (16_000, ["EV-PROBE-005", "REC-IF-011"]),
    ] {
        r.run_until(at);
        r.checks(&ids);
    }
    r.run_until(20_000);
    r.checks(&["REC-IF-013", "RET-FLUSH-001", "CQE-SEND-002"]);
    done(r, 60_000)
}
