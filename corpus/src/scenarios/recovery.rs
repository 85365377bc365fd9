//! Scenarios of the NIC/CPU split of recovery (`spec/recovery.md`), checked end to end.
//!
//! Two families, by who plays the CPU half during the replay:
//!
//! * `rec-split-*` (`cpu = "reference"`, capability `cpu-split`): the runner's reference
//!   agent, fed only by the device's own reports. The agent's commands are not recorded, so
//!   the device passes only if its `Armed`, `Progress` and `EvState` reports make the agent
//!   command what it did in the recording: the retransmission that repairs a timeout, the
//!   probe of an EV a SACK made ASSUMED_BAD, and nothing at all once the work is
//!   acknowledged (REC-IF-002, REC-IF-003, REC-IF-016, REC-IF-008, REC-IF-010, REC-IF-011).
//! * `rec-device-*` (`cpu = "device"`, capability `recovery`): the device's own CPU half,
//!   configured by the manifest's `recovery` table. Nothing is commanded from outside and
//!   no report is judged: the scenario expects the consequences, the retransmissions of
//!   `snd_una` at `rto`, `rto × backoff`, … capped by `rto_max`, the retry counter reset by
//!   progress, the QP failing after `retry_limit`, the probes of a blamed EV every
//!   `probe_interval` and none after the QP failed (REC-RTO-*, REC-RETRY-*, REC-PROBE-*,
//!   REC-EV-002; the device configured by the manifest, REC-TEST-004).
//!
//! The scenarios are recorded so that every conforming device goes through them alike,
//! whatever paths it chooses: losses are aimed at PSNs over paths of equal delay, or
//! nothing answers at all, or the QP has a single EV, which leaves no choice.

use super::*;

use std::time::Duration;

/// The recovery scenarios.
pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("rec-split-timeout", rec_split_timeout),
        ("rec-split-progress", rec_split_progress),
        ("rec-split-two-qps", rec_split_two_qps),
        ("rec-split-two-qps-loss", rec_split_two_qps_loss),
        ("rec-split-assumed-bad", rec_split_assumed_bad),
        ("rec-split-skip-expiry", rec_split_skip_expiry),
        ("rec-split-qpn-high", rec_split_qpn_high),
        ("rec-split-psn-high", rec_split_psn_high),
        ("rec-device-backoff", rec_device_backoff),
        ("rec-device-progress", rec_device_progress),
        ("rec-device-blame", rec_device_blame),
        ("rec-device-progress-before-probe", rec_device_progress_before_probe),
        ("rec-device-nack-no-blame", rec_device_nack_no_blame),
        ("rec-nic-commands", rec_nic_commands),
    ]
}

/// A CPU half with short timers: `rto` 4 µs doubling up to 16 µs, three retries, probes
/// every 10 µs, so that a timer left running fails the QP within a scenario.
fn quick_recovery(m: &mut Manifest) {
    m.recovery.rto = Duration::from_micros(4);
    m.recovery.rto_max = Duration::from_micros(16);
    m.recovery.backoff = 2;
    m.recovery.retry_limit = 3;
    m.recovery.probe_interval = Duration::from_micros(10);
}

/// A CPU half for the `rec-device-*` scenarios: `rto` 8 µs doubling up to 32 µs, with a
/// timing tolerance of 2 µs either way: a device may be 1 µs late at every step
/// (CONF-TIME-004), and a timeout off by a quarter shows once the back-off doubles it.
fn device_recovery(m: &mut Manifest, retry_limit: u32, probe_interval: Duration) {
    m.recovery.rto = Duration::from_micros(8);
    m.recovery.rto_max = Duration::from_micros(32);
    m.recovery.backoff = 2;
    m.recovery.retry_limit = retry_limit;
    m.recovery.probe_interval = probe_interval;
    m.tolerances.late_ns = 2_000;
    m.tolerances.early_ns = 2_000;
}

/// A requester whose CPU half is the runner's reference agent, facing a reference peer
/// over four paths of equal delay (`CONF-GEN-007`). The agent sees only the device's
/// reports, in the order the device gives them, and acts only by commands, so each such
/// scenario holds the device's NIC half to REC-IF-015 as well as to the reports and
/// commands of the recovery interface (REC-IF-002, REC-IF-003, REC-IF-008, REC-IF-010).
fn split_paired(name: &str, description: &str, reqs: &[&str]) -> Recorder {
    let reqs: Vec<&str> = reqs.iter().copied().chain(["REC-IF-015"]).collect();
    let mut m = manifest(
        name,
        description,
        &reqs,
        &[Capability::Requester, Capability::CpuSplit, Capability::Paths, Capability::Ipv4],
    );
    m.nic.retirement = RetirementMode::PerQp;
    quick_recovery(&mut m);
    let mut r = Recorder::with_cpu(m, CpuHalf::Reference);
    r.paths((0..4).map(|_| Path { delay: 500, dark: None }).collect());
    r.with_peer();
    setup_v4_pair(&mut r, 0);
    r
}

/// A requester with a single EV, acknowledged by hand, whose CPU half is played as `cpu`
/// says; its EV states are expected when the runner's agent plays it (`CONF-CMP-020`).
fn single_ev(
    name: &str,
    description: &str,
    reqs: &[&str],
    cpu: CpuHalf,
    f: impl FnOnce(&mut Manifest),
) -> (Recorder, Ev) {
    let half = if cpu == CpuHalf::Device { Capability::Recovery } else { Capability::CpuSplit };
    let mut m = manifest(
        name,
        description,
        reqs,
        &[Capability::Requester, half, Capability::Paths, Capability::Ipv4],
    );
    f(&mut m);
    let mut r = Recorder::with_cpu(m, cpu);
    if cpu == CpuHalf::Reference {
        r.expect_ev_states();
    }
    let evs = v4_evs(DUT_QP, 1);
    let e0 = evs[0];
    setup_evs(&mut r, 0, evs);
    (r, e0)
}

/// A requester with eight EVs and nothing but hand-made acknowledgements, whose CPU half
/// is its own.
fn device_alone(
    name: &str,
    description: &str,
    reqs: &[&str],
    f: impl FnOnce(&mut Manifest),
) -> Recorder {
    let mut m = manifest(
        name,
        description,
        reqs,
        &[Capability::Requester, Capability::Recovery, Capability::Paths, Capability::Ipv4],
    );
    f(&mut m);
    let mut r = Recorder::with_cpu(m, CpuHalf::Device);
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 8));
    r
}

/// Posts work request `k`, a Write of `len` bytes, on the device's QP at `at`.
fn post(r: &mut Recorder, at: u64, k: u32, len: u32) {
    r.host(at, HostCommand::PostWrite(wr(k, len, None, true)));
}

// ===== the NIC half against the reference CPU half =======================================

/// A device QP numbered with bits 16 to 23 set.
const HIGH_QP: u32 = 0xFF_0011;

/// A loss on a QP numbered above 2^16: the commands of the CPU half name it whole.
fn rec_split_qpn_high() -> Scenario {
    let mut m = manifest(
        "rec-split-qpn-high",
        "The device's QP is numbered 0xFF0011, above 2^16, and has one EV. A one-packet \
         message is lost on its first transmission and nothing answers: the runner's \
         reference CPU half, started by Armed, commands the retransmission of PSN 0 for QP \
         0xFF0011 when its timer expires, and the device carries it out for that QP. The \
         retransmission is acknowledged and the work request completes. The CPU half then \
         probes the EV it blamed, naming the QP, and the peer answers.",
        &[
            "REC-IF-003",
            "REC-IF-010",
            "REC-RTO-004",
            "REC-IF-011",
            "EV-PROBE-005",
            "SND-RTX-001",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        &[Capability::Requester, Capability::CpuSplit, Capability::Paths, Capability::Ipv4],
    );
    quick_recovery(&mut m);
    let mut r = Recorder::with_cpu(m, CpuHalf::Reference);
    r.expect_ev_states();
    r.host(0, HostCommand::RegisterRegion(region()));
    let evs = v4_evs(DUT_QP, 1);
    let e0 = evs[0];
    r.host(0, HostCommand::CreateQp(QpConfig { evs, ..qp(HIGH_QP, PEER_QP, 0) }));
    r.checks(&["REC-IF-003", "REC-IF-010", "REC-RTO-004", "SND-RTX-001"]);
    let w = WorkRequest { qpn: Qpn::new(HIGH_QP), ..wr(0, 512, None, true) };
    r.host(1_000, HostCommand::PostWrite(w));
    r.run_until(8_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    acknowledge_on(&mut r, 8_000, HIGH_QP, 0, 0, e0);
    // The CPU half blamed the EV for the loss and probes it at 15 us, naming the QP.
    r.run_until(16_000);
    r.checks(&["EV-PROBE-005", "REC-IF-011"]);
    r.inject(16_000, port_of(e0, 4), e0, &edit_qp(probe_answer(0, 1, WireMark::NONE, e0), HIGH_QP));
    done(r, 30_000)
}

/// A PSN with bits 16 and 23 set.
const HIGH_PSN: u32 = 0x81_2345;

/// A loss late in a tagged link's life on a QP whose PSNs start above 2^23: the
/// Retransmit command and the probe carry the whole PSN, the probe its tag and a
/// timestamp with bit 15 set, and the device's entries with and without an immediate
/// follow each other.
fn rec_split_psn_high() -> Scenario {
    let mut m = manifest(
        "rec-split-psn-high",
        "Every frame carries an 802.1Q tag (VID 42). The device's QP has one EV and its \
         PSNs start at 0x812345, above 2^23, in both directions. At 532 us the peer writes \
         a Write-with-Immediate of 701 bytes, which needs 3 bytes of pad: the device \
         places it, SACKs it with no payload and writes a receive completion with the \
         immediate. At 534 us the device sends a one-packet message, lost on its first \
         transmission; the runner's reference CPU half commands the retransmission of \
         PSN 0x812345 when its timer expires, and the device carries it out. The \
         retransmission is acknowledged and the work request completes, its entry with \
         no immediate. The CPU half then probes the EV it blamed, at about 548 us: the \
         probe's PSN has bit 23 set and, with a clock of 16 ns units, its timestamp has \
         bit 15 set; the peer answers.",
        &[
            "REC-IF-003",
            "REC-IF-010",
            "REC-RTO-004",
            "REC-IF-011",
            "EV-PROBE-005",
            "SND-RTX-001",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
            "CQE-RECV-001",
            "CQE-IMM-001",
            "RCV-SACK-005",
            "RCV-PLACE-003",
        ],
        &[
            Capability::Requester,
            Capability::Responder,
            Capability::WriteImmediate,
            Capability::Retirement,
            Capability::CpuSplit,
            Capability::Paths,
            Capability::Ipv4,
        ],
    );
    m.link = Link { vlan: Some(42), ..Link::default() };
    quick_recovery(&mut m);
    let mut r = Recorder::with_cpu(m, CpuHalf::Reference);
    r.expect_ev_states();
    r.host(0, HostCommand::RegisterRegion(region()));
    let evs = v4_evs(DUT_QP, 1);
    let e0 = evs[0];
    r.host(0, HostCommand::CreateQp(QpConfig { evs, ..qp(DUT_QP, PEER_QP, HIGH_PSN) }));
    r.checks(&["RCV-PLACE-003", "RCV-SACK-005", "CQE-RECV-001"]);
    let imm = write(HIGH_PSN, 0, Opcode::MRC_WRITE_ONLY_IMM, 0, 701, 701, REGION, Some(0xC0DE));
    r.inject(532_000, 0, 0xA000_0001, &imm);
    r.run_until(533_000);
    r.checks(&["REC-IF-003", "REC-IF-010", "REC-RTO-004", "SND-RTX-001"]);
    post(&mut r, 534_000, 0, 512);
    r.run_until(541_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001", "CQE-IMM-001"]);
    acknowledge_on(&mut r, 541_000, DUT_QP, HIGH_PSN, 0, e0);
    // The CPU half blamed the EV for the loss and probes it at 548 us.
    r.run_until(549_000);
    r.checks(&["EV-PROBE-005", "REC-IF-011"]);
    r.inject(549_000, port_of(e0, 4), e0, &probe_answer(HIGH_PSN, 1, WireMark::NONE, e0));
    done(r, 563_000)
}

/// What a scenario checks whose losses only the timer finds: the reports that start and
/// restart it, the retransmission and probe the reference CPU half commands, and the
/// acknowledgement of the repair.
const TIMER_REPAIRS: &[&str] = &[
    "REC-IF-002",
    "REC-IF-003",
    "REC-IF-010",
    "REC-RTO-004",
    "REC-IF-011",
    "EV-PROBE-005",
    "SND-RTX-001",
    "SND-RTX-002",
    "BTH-RTX-001",
    "SND-ACK-001",
    "CQE-SEND-001",
];

/// Two losses only the timer can find: `Armed` must start it, `Progress` restart it with
/// the right `snd_una`.
fn rec_split_timeout() -> Scenario {
    let mut r = split_paired(
        "rec-split-timeout",
        "The runner's reference CPU half, fed only by the device's reports, must repair two \
         losses no acknowledgement reveals. A one-packet message is lost on its first \
         transmission: only the timer that Armed starts finds it, and the retransmission it \
         commands is repaired and acknowledged. A later two-packet message loses its last \
         packet: the SACK of the first moves snd_una, and the timer that this Progress \
         restarts commands the retransmission of the snd_una it reported. The CPU half \
         blames and probes the lost packets' EVs; the peer answers the probes.",
        TIMER_REPAIRS,
    );
    r.drop_data(&[(PEER_QP, 0), (PEER_QP, 2)]);
    // Expiry at 5 us, the repair acknowledged at 6 us; a probe of the blamed EV at 15 us.
    r.checks(&["REC-IF-003", "REC-RTO-004"]);
    post(&mut r, 1_000, 0, 512);
    r.run_until(9_000);
    // Progress at 12 us (snd_una 2, one PSN outstanding), expiry at 16 us.
    r.checks(&["REC-IF-002", "REC-RTO-004"]);
    post(&mut r, 10_000, 1, 2 * PMTU);
    r.run_until(14_000);
    r.probe_checks(&["EV-PROBE-005", "REC-IF-011"]);
    done(r, 40_000)
}

/// Everything is acknowledged: `Progress` must stop the timer.
fn rec_split_progress() -> Scenario {
    let mut r = split_paired(
        "rec-split-progress",
        "The device sends two two-packet messages, and later two more, to a reference peer, \
         and every packet is acknowledged. The runner's reference CPU half starts its timer \
         on Armed (rto 4 us, three retries) and must see, from the device's Progress \
         reports, that nothing is left: then it commands nothing, and the scenario ends \
         40 us after the last acknowledgement with no retransmission and no QP error, where \
         a timer left running would have failed the QP after about 20 us.",
        &["REC-IF-002", "REC-IF-003", "SND-ACK-001", "CQE-SEND-001"],
    );
    r.checks(&["REC-IF-002"]);
    post(&mut r, 1_000, 0, 2 * PMTU);
    post(&mut r, 1_000, 1, 2 * PMTU);
    post(&mut r, 12_000, 2, 2 * PMTU);
    post(&mut r, 12_000, 3, 2 * PMTU);
    done(r, 60_000)
}

/// Two QPs progress at one instant: each `Progress` must carry its own QP's number.
fn rec_split_two_qps() -> Scenario {
    let mut r = split_paired(
        "rec-split-two-qps",
        "The device has two QPs, the second numbered one above the first, its PSNs starting \
         at 0x100, and each sends a one-packet message at the same instant to a reference \
         peer over paths of equal delay. The peer's SACKs of both arrive together, so the \
         device reports both QPs' progress at one instant: each Progress names its own QP \
         with that QP's snd_una, and the runner's reference CPU half stops both timers and \
         commands nothing, where a report naming the other QP would leave a timer running \
         and make it retransmit.",
        &["REC-IF-002", "REC-IF-003", "SND-ACK-001", "CQE-SEND-001"],
    );
    let (b, peer_b) = (DUT_QP + 1, PEER_QP + 1);
    r.host(0, HostCommand::CreateQp(QpConfig { evs: v4_evs(b, 8), ..qp(b, peer_b, 0x100) }));
    r.peer_host(
        0,
        HostCommand::CreateQp(QpConfig { evs: v4_evs(peer_b, 8), ..qp(peer_b, b, 0x100) }),
    );
    r.checks(&["REC-IF-002"]);
    post(&mut r, 1_000, 0, 512);
    r.host(
        1_000,
        HostCommand::PostWrite(WorkRequest { qpn: Qpn::new(b), ..wr(8, 512, None, true) }),
    );
    done(r, 30_000)
}

/// Two QPs in recovery at once: the commands and probes of each name its own QP.
fn rec_split_two_qps_loss() -> Scenario {
    let mut r = split_paired(
        "rec-split-two-qps-loss",
        "The device has two QPs, the second numbered one above the first, its PSNs starting \
         at 0x100. Each sends a one-packet message, 500 ns apart, and the first transmission \
         of both is lost. Only the timers that each QP's Armed starts find the losses: the \
         runner's reference CPU half commands the retransmission of each QP's snd_una, \
         blames the EV each was sent on, and probes both EVs; the peer answers every probe \
         and acknowledges the repairs. Each command names one QP and each report must name \
         the QP it is about, so that the CPU half repairs and probes the right one.",
        TIMER_REPAIRS,
    );
    let (b, peer_b) = (DUT_QP + 1, PEER_QP + 1);
    r.host(0, HostCommand::CreateQp(QpConfig { evs: v4_evs(b, 8), ..qp(b, peer_b, 0x100) }));
    r.peer_host(
        0,
        HostCommand::CreateQp(QpConfig { evs: v4_evs(peer_b, 8), ..qp(peer_b, b, 0x100) }),
    );
    r.drop_data(&[(PEER_QP, 0), (peer_b, 0x100)]);
    // Expiries at 5 and 5.5 us, the repairs acknowledged by 7 us; probes at 15 and 15.5 us.
    r.checks(&["REC-IF-003", "REC-RTO-004", "REC-IF-010"]);
    r.probe_checks(&["EV-PROBE-005", "REC-IF-011"]);
    post(&mut r, 1_000, 0, 512);
    r.host(
        1_500,
        HostCommand::PostWrite(WorkRequest { qpn: Qpn::new(b), ..wr(8, 512, None, true) }),
    );
    done(r, 40_000)
}

/// A SACK makes the only EV ASSUMED_BAD: only the `EvState` report makes the CPU half
/// probe it.
fn rec_split_assumed_bad() -> Scenario {
    let (mut r, e0) = single_ev(
        "rec-split-assumed-bad",
        "The QP has one EV. A SACK marks it ALWAYS_SKIP: the device makes it ASSUMED_BAD \
         and reports the new state, and the next message waits, no EV being usable. Only \
         from that EvState report does the runner's reference CPU half learn that the EV \
         is bad: it commands a probe 10 us later, the answer (m = NONE) makes the EV GOOD, \
         reported again, and the waiting message goes out.",
        &[
            "REC-IF-016",
            "EV-BAD-001",
            "EV-PROBE-005",
            "EV-PROBE-002",
            "REC-IF-011",
            "SND-PATH-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        CpuHalf::Reference,
        |_| {},
    );
    post(&mut r, 1_000, 0, 64);
    r.checks(&["REC-IF-016", "EV-BAD-001"]);
    inject_sack(&mut r, 3_000, 0, 0, 0, WireMark::ALWAYS_SKIP);
    r.checks(&["SND-ACK-001"]);
    inject_ack(&mut r, 3_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["SND-PATH-002"]);
    post(&mut r, 4_000, 1, 64);
    r.checks(&["REC-IF-016", "EV-PROBE-005", "REC-IF-011"]);
    r.run_until(14_000);
    r.checks(&["REC-IF-016", "EV-PROBE-002"]);
    r.inject(14_000, 0, e0, &probe_answer(0, 1, WireMark::NONE, e0));
    r.run_until(20_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 20_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 20_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 30_000)
}

/// SKIP entered and left, twice, every change reported; the NIC half leaves SKIP alone.
fn rec_split_skip_expiry() -> Scenario {
    let (mut r, e0) = single_ev(
        "rec-split-skip-expiry",
        "The QP has one EV and skip_hold is 4 us. A SACK marks it SKIP_ONCE: it goes to \
         SKIP, and back to GOOD when skip_hold has passed, which the device does alone and \
         reports (EvState GOOD), and the message that waited goes out. A second SKIP_ONCE \
         puts it in SKIP again and a stale SACK marking it ALWAYS_SKIP makes it ASSUMED_BAD; \
         the runner's reference CPU half probes it on that report, the answer carries \
         SKIP_ONCE, so the EV goes to SKIP, and to GOOD again when skip_hold has passed. \
         Every change of state is reported as it happens.",
        &[
            "REC-IF-016",
            "EV-SKIP-001",
            "EV-SKIP-002",
            "EV-BAD-001",
            "SND-SACK-005",
            "EV-PROBE-005",
            "EV-PROBE-003",
            "REC-IF-011",
            "SND-PATH-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        CpuHalf::Reference,
        |m| m.nic.skip_hold = Duration::from_micros(4),
    );
    post(&mut r, 1_000, 0, 64);
    r.checks(&["REC-IF-016", "EV-SKIP-001"]);
    inject_sack(&mut r, 2_000, 0, 0, 0, WireMark::SKIP_ONCE);
    inject_ack(&mut r, 2_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["REC-IF-016", "EV-SKIP-002", "SND-PATH-002"]);
    post(&mut r, 3_000, 1, 64);
    r.run_until(7_000);
    r.checks(&["REC-IF-016", "EV-SKIP-001"]);
    inject_sack(&mut r, 7_000, 1, 0, 1, WireMark::SKIP_ONCE);
    r.checks(&["REC-IF-016", "EV-BAD-001"]);
    // Stale: its cack_psn is before snd_una − 1, and its mark still counts (SND-SACK-005).
    inject_sack(&mut r, 7_500, 0, 0, 1, WireMark::ALWAYS_SKIP);
    inject_ack(&mut r, 7_500, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["REC-IF-016", "EV-PROBE-005", "REC-IF-011"]);
    post(&mut r, 8_000, 2, 64);
    r.run_until(18_000);
    r.checks(&["REC-IF-016", "EV-PROBE-003", "EV-SKIP-002"]);
    r.inject(18_000, 0, e0, &probe_answer(1, 1, WireMark::SKIP_ONCE, e0));
    r.run_until(24_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 24_000, 2, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 24_000, 2, 2, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 40_000)
}

// ===== a device with its own CPU half ======================================================

/// Nothing ever answers: the timeouts back off to the cap, the QP fails after the retry
/// limit, and the probes stop with it.
fn rec_device_backoff() -> Scenario {
    let mut r = device_alone(
        "rec-device-backoff",
        "The device, with its own CPU half (rto 8 us doubling up to 32 us, retry_limit 4, \
         probes every 10 us), sends two one-packet messages and nothing ever answers. It \
         retransmits snd_una (PSN 0) at each expiry, 8, 16, 32 and 32 us apart, and at the \
         fifth expiry, 32 us later, ends the QP: the messages complete RETRY_EXCEEDED and \
         FLUSHED. Each timeout retransmission blames the EV the packet was last sent on, \
         which the device then probes every 10 us until the QP fails, and never after.",
        &[
            "REC-RTO-001",
            "REC-RTO-003",
            "REC-RTO-005",
            "REC-RETRY-001",
            "REC-RETRY-002",
            "REC-EV-002",
            "REC-PROBE-001",
            "REC-PROBE-002",
            "REC-RTO-004",
            "SND-RTX-002",
            "RET-FLUSH-001",
            "CQE-SEND-002",
            "CQE-STATUS-001",
            "FLAG-SEND-001",
            "FLAG-STATUS-001",
        ],
        |m| device_recovery(m, 4, Duration::from_micros(10)),
    );
    r.probe_checks(&["REC-PROBE-001", "REC-EV-002"]);
    // Sent at 1 us; expiries at 9, 25, 57, 89 and 121 us.
    r.checks(&["REC-RTO-001", "REC-RTO-003"]);
    post(&mut r, 1_000, 0, 512);
    post(&mut r, 1_000, 1, 512);
    r.run_until(9_000);
    r.checks(&["REC-RTO-005", "REC-RTO-003"]);
    r.run_until(88_000);
    r.checks(&["REC-RETRY-001", "REC-RTO-005"]);
    r.run_until(120_000);
    r.checks(&["REC-RETRY-002", "REC-RETRY-001", "RET-FLUSH-001", "CQE-SEND-002"]);
    r.run_until(122_000);
    r.probe_checks(&["REC-PROBE-002"]);
    r.checks(&["REC-PROBE-002"]);
    done(r, 160_000)
}

/// Progress resets the retry counter and restarts the timer at `rto`.
fn rec_device_progress() -> Scenario {
    let mut r = device_alone(
        "rec-device-progress",
        "The device, with its own CPU half (rto 8 us doubling up to 32 us, retry_limit 2), \
         sends three one-packet messages. Nothing answers for a while: PSN 0 is \
         retransmitted 8 us and then 16 us later. A SACK of PSN 0 is progress: it resets \
         the retry counter and restarts the timer at rto, so PSN 1 is retransmitted 8 us \
         after it and again 16 us later, two retries more without the QP failing. The SACK \
         and ACK of everything then stop the timer.",
        &[
            "REC-RTO-001",
            "REC-RTO-002",
            "REC-RTO-003",
            "REC-RTO-005",
            "REC-RETRY-001",
            "REC-RTO-004",
            "SND-RTX-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        // No probe within the scenario: which EVs its timeouts blame is the device's choice.
        |m| device_recovery(m, 2, Duration::from_millis(1)),
    );
    // Expiries at 9 and 25 us; the SACK at 30 us; expiries at 38 and 54 us.
    r.checks(&["REC-RTO-003", "REC-RTO-005"]);
    for k in 0..3 {
        post(&mut r, 1_000, k, 64);
    }
    inject_sack(&mut r, 30_000, 0, 0, 0, WireMark::NONE);
    r.checks(&["REC-RTO-002", "REC-RETRY-001", "REC-RTO-001"]);
    r.run_until(56_000);
    r.checks(&["REC-RTO-001", "SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 60_000, 2, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 60_000, 2, 2, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 100_000)
}

/// A timeout blames the only EV: the device stops sending on it and probes it.
fn rec_device_blame() -> Scenario {
    let (mut r, e0) = single_ev(
        "rec-device-blame",
        "The device, with its own CPU half (rto 8 us, probes every 10 us), has one EV. Its \
         only packet is lost; the timeout retransmits it on the same EV (there is no other) \
         and blames that EV: it becomes ASSUMED_BAD, so the next message waits although the \
         first was acknowledged meanwhile, and the device probes the EV 10 us after the \
         blame. The answer (m = NONE) makes it GOOD: the waiting message goes out at once \
         and the probes stop.",
        &[
            "REC-EV-002",
            "REC-PROBE-001",
            "REC-RTO-001",
            "REC-RTO-003",
            "REC-RTO-004",
            "SND-RTX-002",
            "SND-PATH-002",
            "EV-PROBE-005",
            "EV-PROBE-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        CpuHalf::Device,
        |m| device_recovery(m, 4, Duration::from_micros(10)),
    );
    r.probe_checks(&["REC-PROBE-001", "REC-EV-002"]);
    // Sent at 1 us, retransmitted at 9 us; the probe at 19 us.
    r.checks(&["REC-RTO-003", "REC-RTO-001"]);
    post(&mut r, 1_000, 0, 64);
    r.run_until(10_000);
    r.checks(&["SND-ACK-001"]);
    inject_sack(&mut r, 12_000, 0, 0, 0, WireMark::NONE);
    inject_ack(&mut r, 12_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["REC-EV-002", "SND-PATH-002"]);
    post(&mut r, 14_000, 1, 64);
    r.run_until(22_000);
    r.inject(22_000, 0, e0, &probe_answer(0, 1, WireMark::NONE, e0));
    r.run_until(24_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 24_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 24_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 60_000)
}

/// A blamed EV stays ASSUMED_BAD through progress that comes well before the probe answer.
fn rec_device_progress_before_probe() -> Scenario {
    let (mut r, e0) = single_ev(
        "rec-device-progress-before-probe",
        "The device, with its own CPU half (rto 8 us, probes every 10 us), has one EV. Its \
         only packet is lost; the timeout retransmits it on that EV and blames it. A second \
         message is posted just after the blame, and the first is acknowledged 3 us later, \
         10 us before the probe answer: the progress does not make the EV GOOD, so the \
         second message waits for the answer (m = NONE) and goes out at once with it.",
        &[
            "REC-RTO-001",
            "REC-RTO-003",
            "EV-STATE-003",
            "REC-EV-002",
            "REC-PROBE-001",
            "SND-RTX-002",
            "EV-PROBE-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        CpuHalf::Device,
        |m| device_recovery(m, 4, Duration::from_micros(10)),
    );
    r.probe_checks(&["REC-PROBE-001", "REC-EV-002"]);
    // Sent at 1 us, retransmitted and blamed at 9 us; the probe at 19 us.
    r.checks(&["REC-RTO-003", "REC-RTO-001"]);
    post(&mut r, 1_000, 0, 64);
    r.run_until(10_000);
    r.checks(&["EV-STATE-003", "REC-EV-002"]);
    post(&mut r, 10_000, 1, 64);
    r.checks(&["SND-ACK-001"]);
    inject_sack(&mut r, 12_000, 0, 0, 0, WireMark::NONE);
    inject_ack(&mut r, 12_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["EV-STATE-003", "REC-EV-002", "EV-PROBE-002"]);
    r.run_until(22_000);
    r.inject(22_000, 0, e0, &probe_answer(0, 1, WireMark::NONE, e0));
    r.run_until(24_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 24_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 24_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 60_000)
}

/// A NACK's retransmission blames no EV: only a timeout's does.
fn rec_device_nack_no_blame() -> Scenario {
    let mut r = device_alone(
        "rec-device-nack-no-blame",
        "The device, with its own CPU half (rto 8 us, probes every 10 us), sends a \
         one-packet message. A NACK says it was trimmed, and the device retransmits it at \
         once; the SACK and the ACK follow before the timer expires. A retransmission the \
         NACK caused blames no EV, so the CPU half probes none, and nothing more is sent.",
        &[
            "REC-EV-002",
            "REC-PROBE-001",
            "SND-NACK-004",
            "SND-RTX-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| device_recovery(m, 4, Duration::from_micros(10)),
    );
    // The retransmission at 2 us; a probe of a blamed EV would go at 12 us.
    r.checks(&["SND-NACK-004", "SND-RTX-002"]);
    post(&mut r, 1_000, 0, 64);
    inject_nack(&mut r, 2_000, 0, NackReason::TRIMMED);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 4_000, 0, 0, 0, WireMark::NONE);
    inject_ack(&mut r, 4_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["REC-EV-002", "REC-PROBE-001"]);
    done(r, 40_000)
}

// ===== the NIC half's commands, scripted ==================================================

/// Each branch of REC-RTO-004 and the probe command, commanded by the scenario: the
/// device's NIC half must act on each command as the clause for that case says.
fn rec_nic_commands() -> Scenario {
    let m = manifest(
        "rec-nic-commands",
        "The QP has two EVs and the scenario plays the CPU half (the reference agent's \
         commands, recorded). A four-packet message goes out; a SACK shows PSN 0 and, past a gap at PSN 1, PSN 2. A Retransmit of PSN 2, \
         which is SACKed, queues PSN 3, the oldest outstanding PSN from 2 on not yet \
         SACKed. A SACK shows PSN 3 too: a second Retransmit of PSN 2, every PSN from it \
         on now SACKed, resends PSN 2 once, and the peer answers with a SACK of every PSN. \
         A second message goes out, PSN 4 is acknowledged, and a Retransmit of PSN 4, \
         already acknowledged, changes nothing, though PSN 5 is outstanding. Last, a Probe \
         command and a new message come at one instant: the probe goes first.",
        &[
            "REC-IF-010",
            "REC-RTO-004",
            "REC-IF-011",
            "EV-PROBE-005",
            "SND-SCHED-001",
            "SND-INFER-002",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        &[Capability::Requester, Capability::CpuSplit, Capability::Paths, Capability::Ipv4],
    );
    let mut r = Recorder::with_cpu(m, CpuHalf::Scripted);
    let evs = v4_evs(DUT_QP, 2);
    let e0 = evs[0];
    setup_evs(&mut r, 0, evs);
    let qpn = Qpn::new(DUT_QP);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    post(&mut r, 1_000, 0, 4 * PMTU);
    inject_sack_offset(&mut r, 2_000, 0, 2, 0b1, 2);
    r.checks(&["REC-RTO-004", "REC-IF-010", "SND-RTX-001", "BTH-RTX-001"]);
    r.cpu(3_000, CpuCommand::Retransmit { qpn, psn: Psn::new(2) });
    r.checks(&["SND-INFER-002"]);
    inject_sack_offset(&mut r, 4_000, 0, 2, 0b11, 3);
    r.checks(&["REC-RTO-004", "REC-IF-010", "BTH-RTX-001"]);
    r.cpu(5_000, CpuCommand::Retransmit { qpn, psn: Psn::new(2) });
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 6_000, 3, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 6_000, 3, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    post(&mut r, 7_000, 1, 2 * PMTU);
    inject_sack(&mut r, 7_500, 4, 0, 4, WireMark::NONE);
    r.checks(&["REC-RTO-004", "REC-IF-010"]);
    r.cpu(9_000, CpuCommand::Retransmit { qpn, psn: Psn::new(4) });
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 10_000, 5, 0, 5, WireMark::NONE);
    inject_ack(&mut r, 10_000, 5, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["REC-IF-011", "EV-PROBE-005", "SND-SCHED-001"]);
    r.cpu(11_000, CpuCommand::Probe { qpn, ev: e0 });
    post(&mut r, 11_000, 2, 64);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 12_000, 6, 0, 6, WireMark::NONE);
    inject_ack(&mut r, 12_000, 6, 2, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 18_000)
}
