//! Requester scenarios with hand-made acknowledgements, failures of a sending QP, and EVs
//! a controller denies.

use super::*;

// ===== requester scenarios with hand-made acknowledgements ================================

/// A requester recorder whose manifest `f` adjusts first.
pub(super) fn sender_with(
    name: &str,
    description: &str,
    reqs: &[&str],
    f: impl FnOnce(&mut Manifest),
) -> Recorder {
    let mut m = manifest(name, description, reqs, &[Capability::Requester, Capability::Ipv4]);
    f(&mut m);
    Recorder::new(m)
}

/// A requester recorder whose device QP has four IPv4 EVs (`setup_evs`).
pub(super) fn evs_sender(
    name: &str,
    description: &str,
    reqs: &[&str],
    f: impl FnOnce(&mut Manifest),
) -> Recorder {
    let mut r = sender_with(name, description, reqs, f);
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 4));
    r
}

/// A doorbell sender: `evs_sender` that also needs doorbells and the capabilities `caps`.
pub(super) fn doorbell_sender(
    name: &str,
    description: &str,
    reqs: &[&str],
    caps: &[Capability],
) -> Recorder {
    evs_sender(name, description, reqs, |m| {
        m.requires.insert(Capability::Doorbell);
        m.requires.extend(caps.iter().copied());
    })
}

/// Registers the local memory of template `t` and installs `t`, at time 0.
pub(super) fn install(r: &mut Recorder, t: Template) {
    register_local_of(r, &t);
    r.host(0, HostCommand::SetTemplate(t));
}

/// EVs that IPv4 can carry whole (bits 15:0 zero, `ENC-EV-002`).
pub(super) fn v4_evs(me: u32, n: u32) -> Vec<Ev> {
    (0..n).map(|i| Ev::new((0xC000 + (me << 4) + i) << 16)).collect()
}

/// Sets up the device's QP (no peer) with these EVs.
pub(super) fn setup_evs(r: &mut Recorder, psn: u32, evs: Vec<Ev>) {
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(QpConfig { evs, ..qp(DUT_QP, PEER_QP, psn) }));
}

/// Work request `k` of the device: `length` bytes, with an immediate if `imm` is given.
pub(super) fn wr(k: u32, length: u32, imm: Option<u32>, signaled: bool) -> WorkRequest {
    WorkRequest {
        wr_id: 0x100 + u64::from(k),
        qpn: Qpn::new(DUT_QP),
        opcode: if imm.is_some() { WrOpcode::WRITE_WITH_IMM } else { WrOpcode::WRITE },
        local_va: 0x4000_0000 + u64::from(k) * 0x1_0000,
        lkey: Lkey::new(1),
        remote_va: REGION + u64::from(k) * 0x1_0000,
        rkey: RKEY,
        length,
        imm,
        flag_slot: k,
        signaled,
    }
}

/// Injects at `at` a SACK of everything up to `psn` and the transport ACK of MSN `msn` to
/// device QP `me`, whose peer is `peer`; the SACK travels on the EV the device used for
/// `psn`.
pub(super) fn acknowledge(r: &mut Recorder, at: u64, me: u32, peer: u32, psn: u32, msn: u16) {
    r.run_until(at);
    let ev = r.sent_ev(peer, psn).expect("the PSN was sent");
    acknowledge_on(r, at, me, psn, msn, ev);
}

/// Injects at `at` a SACK of everything up to `psn`, on EV `ev`, and the transport ACK of
/// MSN `msn` to device QP `me`.
pub(super) fn acknowledge_on(r: &mut Recorder, at: u64, me: u32, psn: u32, msn: u16, ev: Ev) {
    let sack = edit_qp(sack_in(psn, 0, psn, WireMark::NONE, ev), me);
    r.inject(at, port_of(ev, 4), ev, &sack);
    r.inject(at, 0, 0xA000_0000, &edit_qp(ack_in(psn, msn, AethRepr::ACK_UNLIMITED_CREDIT), me));
}

/// A SACK from the peer to the device: everything up to `cack` arrived, plus the PSNs of
/// `bitmap` from `cack + 1`; `trigger` is the packet it answers, `m` its mark, `entropy` the
/// EV it reflects.
pub(super) fn sack_in(
    cack: u32,
    bitmap: u64,
    trigger: u32,
    m: WireMark,
    entropy: impl Into<Ev>,
) -> Packet {
    let entropy = entropy.into();
    let cack = Psn::new(cack);
    Packet::Sack {
        bth: BthRepr::new(Opcode::MRC_SACK, Qpn::new(DUT_QP), cack),
        seth: SethRepr {
            m,
            ack_psn_offset: Psn::new(trigger).distance(cack) as i16,
            entropy,
            cack_psn: cack,
            mpr: 1,
            sack_offset: 1,
            sack_bitmap: bitmap,
            ..SethRepr::default()
        },
        cc_state: CcStateRepr::default(),
    }
}

/// The answer to probe `id` on EV `ev`, with mark `m`.
pub(super) fn probe_answer(cack: u32, id: u16, m: WireMark, ev: impl Into<Ev>) -> Packet {
    let mut p = sack_in(cack, 0, cack, m, ev);
    if let Packet::Sack { seth, .. } = &mut p {
        seth.pr = true;
        seth.ack_psn_offset = id as i16;
    }
    p
}

/// A NACK from the peer for the device's PSN `psn`.
pub(super) fn nack_in(psn: u32, reason: NackReason, entropy: impl Into<Ev>) -> Packet {
    let entropy = entropy.into();
    Packet::Nack {
        bth: BthRepr::new(Opcode::MRC_NACK, Qpn::new(DUT_QP), Psn::new(psn)),
        neth: NethRepr { reason, entropy, nack_psn: Psn::new(psn), ..NethRepr::default() },
    }
}

/// A transport ACK (or NAK, by `syndrome`) from the peer covering MSN `msn`.
pub(super) fn ack_in(psn: u32, msn: u16, syndrome: u8) -> Packet {
    Packet::Ack {
        bth: BthRepr::new(Opcode::MRC_ACKNOWLEDGE, Qpn::new(DUT_QP), Psn::new(psn)),
        aeth: AethRepr { syndrome, msn: AethMsn::from(Msn::new(msn)) },
    }
}

/// Injects a SACK answering the device's PSN `trigger`, on the EV the device used for it.
pub(super) fn inject_sack(
    r: &mut Recorder,
    at: u64,
    cack: u32,
    bitmap: u64,
    trigger: u32,
    m: WireMark,
) {
    r.run_until(at);
    let ev = r.sent_ev(PEER_QP, trigger).expect("the trigger PSN was sent");
    let port = port_of(ev, 4);
    r.inject(at, port, ev, &sack_in(cack, bitmap, trigger, m, ev));
}

/// Injects a SACK answering the device's PSN `trigger` with any `sack_offset`: everything
/// up to `cack` arrived, and the PSNs of `bitmap` from `cack + offset` (a negative offset
/// bases the bitmap before `cack`; one past `cack + 1` leaves a gap the SACK does not
/// cover, SND-INFER-002).
pub(super) fn inject_sack_offset(
    r: &mut Recorder,
    at: u64,
    cack: u32,
    offset: i16,
    bitmap: u64,
    trigger: u32,
) {
    r.run_until(at);
    let ev = r.sent_ev(PEER_QP, trigger).expect("the trigger PSN was sent");
    let mut p = sack_in(cack, bitmap, trigger, WireMark::NONE, ev);
    if let Packet::Sack { seth, .. } = &mut p {
        seth.sack_offset = offset;
    }
    r.inject(at, port_of(ev, 4), ev, &p);
}

/// Injects a NACK for the device's PSN `psn`, on the EV the device last used for it.
pub(super) fn inject_nack(r: &mut Recorder, at: u64, psn: u32, reason: NackReason) {
    r.run_until(at);
    let ev = r.sent_ev(PEER_QP, psn).unwrap_or(Ev::new(0xA000_0000));
    r.inject(at, port_of(ev, 4), ev, &nack_in(psn, reason, ev));
}

/// Injects a transport ACK (`syndrome` 0x1F) or NAK for MSN `msn`.
pub(super) fn inject_ack(r: &mut Recorder, at: u64, psn: u32, msn: u16, syndrome: u8) {
    r.inject(at, 0, 0xA000_0000, &ack_in(psn, msn, syndrome));
}

/// Messages of every shape, across the PSN wrap, acknowledged by hand.
pub(super) fn snd_segmentation() -> Scenario {
    let mut r = sender_with(
        "snd-segmentation",
        "The device sends eight messages from three PSNs before the wrap at 2^24, with \
         ack_req_every 4: 0 bytes, 1 byte, one PMTU, PMTU + 1, three PMTUs, a \
         Write-with-Immediate of PMTU + 10, an unsignaled Write-with-Immediate of 5 bytes and \
         a Write of 100 bytes. Every packet's opcode, AckReq, METH, RETH, ImmDt, pad and \
         payload are checked. A SACK reports every PSN, an ACK for an MSN never assigned is \
         discarded, and an ACK for MSN 6 completes messages 0 to 6 in order; message 7, \
         SACKed but never ACKed, does not complete.",
        &[
            "SND-SEG-001",
            "SND-SEG-002",
            "SND-SEG-003",
            "SND-SEG-004",
            "SND-ACKREQ-001",
            "SND-PSN-001",
            "BTH-PSN-001",
            "SND-MSN-001",
            "RET-DOMAIN-003",
            "SND-MSN-002",
            "SND-RQMSN-002",
            "METH-MSN-001",
            "METH-RQMSN-001",
            "RETH-VA-002",
            "RETH-LEN-003",
            "RETH-RKEY-001",
            "PAY-PAD-001",
            "PAY-LEN-001",
            "PAY-LEN-002",
            "OPC-WRITE-001",
            "OPC-MRC-001",
            "OPC-MRC-002",
            "BTH-PKEY-001",
            "BTH-RTX-001",
            "SND-ORDER-001",
            "WR-EXEC-001",
            "ORD-NIC-002",
            "SND-ACK-001",
            "SND-ACK-002",
            "SND-ACK-005",
            "RET-SEND-001",
            "CQE-SEND-001",
            "CQE-SEND-003",
            "CQE-IMM-002",
            "WR-SIGNALED-001",
            "FLAG-SEND-001",
            "FLAG-SEND-002",
            "FLAG-LEN-001",
            "IMMDT-LAYOUT-001",
        ],
        |m| {
            m.nic.ack_req_every = 4;
            m.requires.insert(Capability::WriteImmediate);
        },
    );
    let start = 0xFF_FFFD;
    setup_evs(&mut r, start, v4_evs(DUT_QP, 4));
    let shapes: [(u32, Option<u32>, bool); 8] = [
        (0, None, true),
        (1, None, true),
        (PMTU, None, true),
        (PMTU + 1, None, true),
        (3 * PMTU, None, true),
        (PMTU + 10, Some(0xC0FF_EE00), true),
        (5, Some(0x5), false),
        (100, None, true),
    ];
    r.checks(&["SND-SEG-001", "SND-SEG-002", "SND-SEG-003", "SND-ACKREQ-001", "RET-DOMAIN-003"]);
    for (k, &(len, imm, signaled)) in shapes.iter().enumerate() {
        r.host(1_000, HostCommand::PostWrite(wr(k as u32, len, imm, signaled)));
    }
    let last = (start + 11) & 0xFF_FFFF;
    inject_sack(&mut r, 6_000, last, 0, last, WireMark::NONE);
    r.checks(&["SND-ACK-002"]);
    inject_ack(&mut r, 7_000, last, 9, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["SND-ACK-001", "CQE-SEND-001", "FLAG-SEND-001", "SND-ACK-005"]);
    inject_ack(&mut r, 8_000, last, 6, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// SACK m = ALWAYS_SKIP on the only EV: no data until a probe brings it back, at once
/// (answer m = NONE) or after `skip_hold` (answer m = SKIP_ONCE).
pub(super) fn snd_ev_probe(name: &str, answer: WireMark) -> Scenario {
    let skip = answer != WireMark::NONE;
    let description = if skip {
        "The QP has one EV. A SACK marks it ALWAYS_SKIP: it becomes ASSUMED_BAD and the \
         next message waits, since no EV is usable. The CPU half commands a probe of the \
         EV, which the device sends at once; the answer carries m = SKIP_ONCE, so the EV \
         goes to SKIP, and the message goes out when skip_hold (4 us) has passed."
    } else {
        "The QP has one EV. A SACK marks it ALWAYS_SKIP: it becomes ASSUMED_BAD, and a later \
         SKIP_ONCE mark (a stale SACK) leaves it there; the next message waits, since no EV \
         is usable. The CPU half commands a probe of the EV, which the device sends at once; \
         the answer (pr = 1, m = NONE) makes the EV GOOD and the waiting message goes out."
    };
    let mut reqs = vec![
        "EV-BAD-001",
        "EV-STATE-001",
        "SND-PATH-002",
        "EV-PROBE-005",
        "REC-IF-011",
        "SND-ACK-001",
        "CQE-SEND-001",
    ];
    reqs.extend(if skip {
        ["EV-PROBE-003", "EV-SKIP-002"].as_slice()
    } else {
        ["EV-PROBE-002", "EV-STATE-002", "SND-SACK-005"].as_slice()
    });
    let mut r = sender_with(name, description, &reqs, |m| {
        m.requires.insert(Capability::Paths);
        m.requires.insert(Capability::CpuSplit);
        if skip {
            m.nic.skip_hold = std::time::Duration::from_micros(4);
        }
    });
    // One EV: every device goes through its states alike.
    r.expect_ev_states();
    let evs = v4_evs(DUT_QP, 1);
    let e0 = evs[0];
    setup_evs(&mut r, 0, evs);
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.checks(&["EV-BAD-001"]);
    inject_sack(&mut r, 3_000, 0, 0, 0, WireMark::ALWAYS_SKIP);
    inject_ack(&mut r, 3_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    if !skip {
        r.checks(&["EV-STATE-002", "SND-SACK-005"]);
        inject_sack(&mut r, 3_500, 0, 0, 0, WireMark::SKIP_ONCE);
    }
    r.checks(&["EV-PROBE-005", "REC-IF-011", "SND-PATH-002"]);
    r.host(4_000, HostCommand::PostWrite(wr(1, 64, None, true)));
    r.run_until(14_000);
    r.checks(if skip { &["EV-PROBE-003", "EV-SKIP-002"] } else { &["EV-PROBE-002"] });
    r.inject(14_000, 0, e0, &probe_answer(0, 1, answer, e0));
    r.run_until(20_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 20_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 20_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 30_000)
}

/// NACK TRIMMED and SACK m = SKIP_ONCE put both EVs in SKIP until `skip_hold` passes.
pub(super) fn snd_ev_skip() -> Scenario {
    let mut r = sender_with(
        "snd-ev-skip",
        "The QP has two EVs and skip_hold is 10 us. A NACK TRIMMED for the packet sent on \
         the first puts that EV in SKIP and the packet is retransmitted at once on the \
         second; a SACK with m = SKIP_ONCE for the retransmission puts the second in SKIP \
         too. The next message waits until the first EV's hold has passed, then goes out.",
        &[
            "SND-NACK-002",
            "EV-SKIP-001",
            "EV-SKIP-002",
            "EV-STATE-001",
            "SND-PATH-002",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.nic.skip_hold = std::time::Duration::from_micros(10);
            m.tolerances.late_ns = 2_000;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 2));
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.checks(&["SND-NACK-002", "SND-RTX-002"]);
    inject_nack(&mut r, 2_000, 0, NackReason::TRIMMED);
    r.checks(&["EV-SKIP-001"]);
    inject_sack(&mut r, 3_000, 0, 0, 0, WireMark::SKIP_ONCE);
    inject_ack(&mut r, 3_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["EV-SKIP-002", "SND-PATH-002"]);
    // Posted longer after the mark than a device may take to act on it.
    r.host(5_500, HostCommand::PostWrite(wr(1, 64, None, true)));
    r.run_until(14_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 14_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 14_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 30_000)
}

/// A NACK TRIMMED moves the only EV to SKIP: the queued retransmission waits for the EV,
/// and goes before the new packet that waited with it (SND-SCHED-003.e, SND-SCHED-001).
pub(super) fn snd_ev_skip_queued() -> Scenario {
    let mut r = sender_with(
        "snd-ev-skip-queued",
        "The QP has one EV and skip_hold is 6 us. A NACK TRIMMED for PSN 0 puts the EV in \
         SKIP and queues PSN 0 for retransmission while no EV is usable: it stays queued \
         and no data packet goes. A second message posted meanwhile waits too. When the \
         hold ends, PSN 0 goes again first, then the new PSN 1.",
        &[
            "SND-NACK-002",
            "EV-SKIP-001",
            "EV-SKIP-002",
            "EV-STATE-001",
            "SND-PATH-002",
            "SND-SCHED-001",
            "SND-SCHED-003",
            "SND-RTX-001",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.nic.skip_hold = std::time::Duration::from_micros(6);
        },
    );
    // One EV: every device goes through its states alike.
    r.expect_ev_states();
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 1));
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.checks(&["SND-NACK-002", "EV-SKIP-001", "SND-SCHED-003", "SND-PATH-002"]);
    inject_nack(&mut r, 2_000, 0, NackReason::TRIMMED);
    r.checks(&["SND-PATH-002", "SND-SCHED-001", "EV-SKIP-002"]);
    r.host(3_000, HostCommand::PostWrite(wr(1, 64, None, true)));
    r.run_until(12_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 12_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 12_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// NACKs that report the responder's resources: retransmission after `nack_backoff`, no
/// EV state change; a trim is not held back by them; stale and wild NACKs change nothing.
pub(super) fn snd_nack_backoff() -> Scenario {
    let mut r = sender_with(
        "snd-nack-backoff",
        "The QP has three EVs; PSN 0 goes on the first, PSN 1 on the second. A NACK \
         PSN_OOR_WINDOW for PSN 0 queues it for retransmission after nack_backoff (2 us); a \
         NACK TRIMMED for PSN 1 just after puts the second EV in SKIP and is retransmitted \
         at once on the third, not held back by the delayed entry. After both complete, a \
         stale NACK (for an acknowledged PSN) and a NACK for a PSN never sent change \
         nothing. The window NACK did not touch the first EV: when a SACK marks the third \
         ALWAYS_SKIP, the next message still goes out at once, on the first.",
        &[
            "SND-NACK-001",
            "SND-NACK-002",
            "SND-NACK-003",
            "SND-NACK-004",
            "SND-SCHED-003",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "EV-SKIP-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.nic.nack_backoff = std::time::Duration::from_micros(2);
            m.tolerances.late_ns = 2_000;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 3));
    r.host(1_000, HostCommand::PostWrite(wr(0, 2 * PMTU, None, true)));
    r.checks(&["SND-NACK-004"]);
    inject_nack(&mut r, 2_000, 0, NackReason::PSN_OOR_WINDOW);
    r.checks(&["SND-NACK-002", "SND-SCHED-003"]);
    inject_nack(&mut r, 2_100, 1, NackReason::TRIMMED);
    r.checks(&["SND-NACK-004"]);
    r.run_until(4_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 6_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 6_000, 1, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["SND-NACK-001"]);
    inject_nack(&mut r, 7_000, 0, NackReason::NO_RESOURCE);
    inject_nack(&mut r, 7_500, 50, NackReason::PSN_OOR_WINDOW);
    // PSN 0's latest transmission used the third EV (the first was avoided).
    inject_sack(&mut r, 8_000, 1, 0, 0, WireMark::ALWAYS_SKIP);
    r.checks(&["SND-NACK-003"]);
    r.host(9_000, HostCommand::PostWrite(wr(1, 64, None, true)));
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 11_000, 2, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 11_000, 2, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 16_000)
}

/// A NACK that reports the responder's resources leaves the EV it came on alone
/// (SND-NACK-003): on a QP with one EV, whose states every device goes through alike, no
/// `EvState` report comes of it.
pub(super) fn snd_nack_resource() -> Scenario {
    let mut r = sender_with(
        "snd-nack-resource",
        "The QP has one EV. A NACK NO_RESOURCE for PSN 0 reports the responder's resources, \
         not a failing path: the EV stays GOOD, with no EvState report, and PSN 0 is \
         retransmitted after nack_backoff (2 us) on that EV, the only usable one. A second \
         message's PSN 1 is NACKed so too, and a SACK shows it arrived before the back-off \
         passed: its queued entry is dropped unsent. A repeat of that SACK with the \
         transport ACK marks the EV SKIP_ONCE: the change, and the return to GOOD after \
         skip_hold (4 us), are reported.",
        &[
            "SND-NACK-003",
            "SND-NACK-004",
            "SND-SCHED-003",
            "SND-RTX-002",
            "EV-SKIP-001",
            "EV-SKIP-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.nic.nack_backoff = std::time::Duration::from_micros(2);
            m.nic.skip_hold = std::time::Duration::from_micros(4);
        },
    );
    // One EV: every device goes through its states alike.
    r.expect_ev_states();
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 1));
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.checks(&["SND-NACK-003", "SND-NACK-004"]);
    inject_nack(&mut r, 2_000, 0, NackReason::NO_RESOURCE);
    r.run_until(5_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 6_000, 0, 0, 0, WireMark::NONE);
    inject_ack(&mut r, 6_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.host(7_000, HostCommand::PostWrite(wr(1, 64, None, true)));
    r.checks(&["SND-SCHED-003"]);
    inject_nack(&mut r, 8_000, 1, NackReason::NO_RESOURCE);
    r.checks(&["SND-SCHED-003", "SND-ACK-001", "CQE-SEND-001", "EV-SKIP-001", "EV-SKIP-002"]);
    inject_sack(&mut r, 9_000, 1, 0, 1, WireMark::NONE);
    inject_sack(&mut r, 12_000, 1, 0, 1, WireMark::SKIP_ONCE);
    inject_ack(&mut r, 12_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// A retransmission is built from the message, not from what is left of the work request
/// (SND-RTX-001.a): the retransmitted last packet of a Write-with-Immediate carries its
/// ImmDt again.
pub(super) fn snd_rtx_imm() -> Scenario {
    let mut r = sender_with(
        "snd-rtx-imm",
        "The QP has one EV. A Write-with-Immediate of PMTU + 10 bytes goes out as PSNs 0 \
         and 1. A NACK NO_RESOURCE for PSN 1, its last packet, has that packet sent again \
         after nack_backoff (2 us) with the same METH, RETH, ImmDt and payload, only rtx \
         set. A SACK and the transport ACK then complete the message.",
        &[
            "SND-RTX-001",
            "SND-SEG-004",
            "BTH-RTX-001",
            "SND-NACK-004",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.requires.insert(Capability::WriteImmediate);
            m.nic.nack_backoff = std::time::Duration::from_micros(2);
        },
    );
    // One EV: every device goes through its states alike.
    r.expect_ev_states();
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 1));
    r.host(1_000, HostCommand::PostWrite(wr(0, PMTU + 10, Some(0x1234_5678), true)));
    r.checks(&["SND-RTX-001", "SND-SEG-004", "BTH-RTX-001", "SND-NACK-004"]);
    inject_nack(&mut r, 2_000, 1, NackReason::NO_RESOURCE);
    r.run_until(5_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 6_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 6_000, 1, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 10_000)
}

/// A `SetEvState` command is applied as given (EV-STATE-003.a): on a QP with one EV, whose
/// states every device goes through alike, the state it reports is the one commanded.
pub(super) fn snd_ev_set_state() -> Scenario {
    let mut r = sender_with(
        "snd-ev-set-state",
        "The QP has one EV. The CPU half blames it (SetEvState ASSUMED_BAD), as after a \
         timeout: the device applies that state as given and reports it, and a message \
         waits, no EV being usable. The CPU half probes the EV; the answer (m = NONE) makes \
         it GOOD, reported, and the message goes out at once.",
        &[
            "EV-STATE-003",
            "REC-IF-012",
            "REC-IF-016",
            "SND-PATH-002",
            "EV-PROBE-005",
            "EV-PROBE-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.requires.insert(Capability::CpuSplit);
        },
    );
    // One EV: every device goes through its states alike.
    r.expect_ev_states();
    let evs = v4_evs(DUT_QP, 1);
    let e0 = evs[0];
    setup_evs(&mut r, 0, evs);
    let qpn = Qpn::new(DUT_QP);
    r.cpu(1_000, CpuCommand::SetEvState { qpn, ev: e0, state: EvState::AssumedBad });
    r.checks(&["EV-STATE-003", "REC-IF-012", "SND-PATH-002"]);
    // Posted longer after the command than a device may take to act on it.
    r.host(3_500, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.checks(&["EV-PROBE-005"]);
    r.cpu(4_000, CpuCommand::Probe { qpn, ev: e0 });
    r.checks(&["EV-PROBE-002", "REC-IF-016"]);
    r.inject(5_000, 0, e0, &probe_answer(0xFF_FFFF, 1, WireMark::NONE, e0));
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 7_000, 0, 0, 0, WireMark::NONE);
    inject_ack(&mut r, 7_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 13_000)
}

// ===== failures of a sending QP ===========================================================

/// NACK UNEXP_EVENT: the QP fails; pending messages complete FATAL_NACK then FLUSHED.
pub(super) fn snd_nack_fatal() -> Scenario {
    let mut r = evs_sender(
        "snd-nack-fatal",
        "With wwi_limit 1, the device sends a two-packet Write-with-Immediate; a second one \
         and a Write behind it wait. A NACK UNEXP_EVENT for PSN 1 moves the QP to the error \
         state: nothing is retransmitted or sent any more, the three messages complete at \
         once in order, the first FATAL_NACK and the others FLUSHED (the unsignaled one \
         with its completion too), each with its sender flag. A token for the QP in error \
         is accepted and completes FLUSHED at once, and a probe the CPU half commands for it \
         is not sent.",
        &[
            "SND-NACK-005",
            "RET-FLUSH-001",
            "RET-SEND-001",
            "SND-ERR-001",
            "CQE-SEND-002",
            "CQE-SEND-003",
            "CQE-STATUS-001",
            "WR-SIGNALED-001",
            "FLAG-SEND-001",
            "FLAG-STATUS-001",
            "FLAG-LEN-001",
            "REC-IF-009",
            "REC-IF-014",
            "WWI-LIMIT-001",
            "IMMDT-LAYOUT-001",
        ],
        |m| {
            m.nic.wwi_limit = 1;
            m.requires.insert(Capability::WriteImmediate);
            m.requires.insert(Capability::Doorbell);
        },
    );
    install(&mut r, template(3, WrOpcode::WRITE, true));
    r.checks(&["WWI-LIMIT-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, PMTU + 8, Some(0x10), true)));
    r.host(1_000, HostCommand::PostWrite(wr(1, 64, Some(0x11), false)));
    r.host(1_000, HostCommand::PostWrite(wr(2, 64, None, true)));
    r.checks(&["SND-NACK-005", "RET-FLUSH-001", "CQE-SEND-002"]);
    inject_nack(&mut r, 3_000, 1, NackReason::UNEXP_EVENT);
    r.checks(&["SND-ERR-001", "RET-FLUSH-001"]);
    r.host(5_000, HostCommand::Doorbell { token: token(3, 0, 4, 1) });
    r.checks(&["REC-IF-014", "SND-ERR-001"]);
    let ev = v4_evs(DUT_QP, 1)[0];
    r.cpu(6_000, CpuCommand::Probe { qpn: Qpn::new(DUT_QP), ev });
    done(r, 20_000)
}

/// Transport NAKs: the covered messages succeed, the next fails with the NAK's status.
pub(super) fn snd_ack_nak() -> Scenario {
    let mut r = sender_with(
        "snd-ack-nak",
        "Per-QP retirement, two QPs. QP A sends three messages; an AETH NAK 0x62 with MSN 0 \
         completes message 0 with SUCCESS, then fails the QP: message 1 completes \
         REMOTE_ACCESS_ERROR and message 2 FLUSHED. QP B sends two messages; an AETH NAK \
         0x60 (a PSN sequence error, which MRC forbids) with MSN 0 completes message 0 and \
         fails message 1 with REMOTE_OP_ERROR.",
        &[
            "SND-ACK-003",
            "SND-ACK-006",
            "CQE-STATUS-004",
            "RET-FLUSH-001",
            "RET-SEND-001",
            "CQE-SEND-002",
            "FLAG-SEND-001",
            "FLAG-STATUS-001",
            "FLAG-LEN-001",
            "REC-IF-009",
            "SND-ERR-001",
        ],
        |m| {
            m.nic.retirement = RetirementMode::PerQp;
            m.requires.insert(Capability::PerQpRetirement);
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(QpConfig { evs: v4_evs(DUT_QP, 4), ..qp(DUT_QP, PEER_QP, 0) }));
    let b = DUT_QP + 1;
    r.host(0, HostCommand::CreateQp(QpConfig { evs: v4_evs(b, 4), ..qp(b, PEER_QP + 1, 0) }));
    for k in 0..3 {
        r.host(1_000, HostCommand::PostWrite(wr(k, 64, None, true)));
    }
    for k in 0..2 {
        let w = WorkRequest { qpn: Qpn::new(b), ..wr(10 + k, 64, None, k == 0) };
        r.host(1_000, HostCommand::PostWrite(w));
    }
    r.checks(&["SND-ACK-003", "CQE-STATUS-004"]);
    inject_ack(&mut r, 3_000, 0, 0, AethRepr::NAK_REMOTE_ACCESS);
    r.checks(&["SND-ACK-006", "CQE-STATUS-004"]);
    r.inject(4_000, 0, 0xA000_0000, &edit_qp(ack_in(0, 0, AethRepr::NAK_PSN_SEQ_ERR), b));
    done(r, 20_000)
}

/// Shared retirement at the requester: the QPs of a domain take their MSNs from one
/// counter, each domain from its own, starting at 0.
pub(super) fn snd_shared_domain() -> Scenario {
    let mut r = sender_with(
        "snd-shared-domain",
        "Shared retirement, three QPs: A and B in domain 0, C in domain 1. The device sends \
         one-packet Writes from A, B, A and C, in that order; A's take MSNs 0 and 2 and B's \
         MSN 1 from domain 0's counter, and C's MSN 0 from domain 1's. An ACK of MSN 0 to \
         A completes A's first message only, an ACK of MSN 1 completes B's, an ACK of MSN 2 \
         to A completes A's second and an ACK of MSN 0 to C completes C's.",
        &[
            "RET-DOMAIN-001",
            "RET-DOMAIN-003",
            "SND-MSN-001",
            "SND-MSN-002",
            "SND-ACK-001",
            "RET-SEND-001",
            "CQE-SEND-001",
            "FLAG-SEND-001",
        ],
        |m| {
            m.nic.retirement = RetirementMode::Shared;
            m.requires.insert(Capability::SharedRetirement);
        },
    );
    let (a, b, c) = (DUT_QP, DUT_QP + 1, DUT_QP + 2);
    r.host(0, HostCommand::RegisterRegion(region()));
    for (me, peer, domain) in [(a, PEER_QP, 0), (b, PEER_QP + 1, 0), (c, PEER_QP + 2, 1)] {
        let q = QpConfig { evs: v4_evs(me, 4), domain: DomainId::new(domain), ..qp(me, peer, 0) };
        r.host(0, HostCommand::CreateQp(q));
    }
    r.checks(&["RET-DOMAIN-001", "RET-DOMAIN-003", "SND-MSN-001"]);
    for (k, qpn) in [a, b, a, c].into_iter().enumerate() {
        let w = WorkRequest { qpn: Qpn::new(qpn), ..wr(k as u32, 64, None, true) };
        r.host(1_000, HostCommand::PostWrite(w));
    }
    r.checks(&["SND-ACK-001", "RET-SEND-001"]);
    for (at, me, peer, psn, msn) in [
        (4_000, a, PEER_QP, 0, 0),
        (5_000, b, PEER_QP + 1, 0, 1),
        (6_000, a, PEER_QP, 1, 2),
        (7_000, c, PEER_QP + 2, 0, 0),
    ] {
        acknowledge(&mut r, at, me, peer, psn, msn);
    }
    done(r, 20_000)
}

/// The same packet, addressed to device QP `qpn`.
pub(super) fn edit_qp(mut p: Packet, qpn: u32) -> Packet {
    match &mut p {
        Packet::Write(w) => w.bth.dest_qp = Qpn::new(qpn),
        Packet::Sack { bth, .. }
        | Packet::Nack { bth, .. }
        | Packet::Probe { bth, .. }
        | Packet::Ack { bth, .. }
        | Packet::EndpointRequest { bth, .. }
        | Packet::EndpointResponse { bth, .. } => bth.dest_qp = Qpn::new(qpn),
    }
    p
}

/// `wwi_limit` Write-with-Immediate messages in flight hold back the next one.
pub(super) fn snd_wwi_limit() -> Scenario {
    let mut r = evs_sender(
        "snd-wwi-limit",
        "With wwi_limit 2 the device accepts three Write-with-Immediate messages and a \
         Write: the first two go out at once; the third, and the Write behind it, wait until \
         the transport ACK of the first completes it, then go out.",
        &[
            "WWI-LIMIT-001",
            "SND-ORDER-001",
            "SND-RQMSN-002",
            "METH-RQMSN-001",
            "SND-SEG-004",
            "CQE-SEND-001",
            "IMMDT-LAYOUT-001",
        ],
        |m| {
            m.nic.wwi_limit = 2;
            m.requires.insert(Capability::WriteImmediate);
        },
    );
    r.checks(&["WWI-LIMIT-001", "SND-RQMSN-002"]);
    for k in 0..3u32 {
        r.host(1_000, HostCommand::PostWrite(wr(k, 64, Some(0x20 + k), true)));
    }
    r.host(1_000, HostCommand::PostWrite(wr(3, 64, None, true)));
    inject_sack(&mut r, 5_000, 1, 0, 1, WireMark::NONE);
    r.checks(&["WWI-LIMIT-001", "SND-ORDER-001"]);
    inject_ack(&mut r, 5_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    inject_sack(&mut r, 8_000, 3, 0, 3, WireMark::NONE);
    r.checks(&["CQE-SEND-001"]);
    inject_ack(&mut r, 8_000, 3, 3, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

// ===== EVs a controller denies ============================================================

/// A denied EV is left only by a controller's allow.
pub(super) fn snd_ev_deny() -> Scenario {
    let mut r = sender_with(
        "snd-ev-deny",
        "The QP has one EV, which a controller denies (SetEvState DENIED). A message then \
         waits: a probe answer naming the EV (m = NONE) does not bring it back. When the \
         controller allows it (SetEvState GOOD) the message goes out at once.",
        &[
            "EV-DENY-001",
            "EV-DENY-002",
            "EV-STATE-002",
            "EV-STATE-003",
            "REC-IF-012",
            "EV-STATE-001",
            "SND-PATH-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.requires.insert(Capability::CpuSplit);
        },
    );
    // One EV: every device goes through its states alike.
    r.expect_ev_states();
    let evs = v4_evs(DUT_QP, 1);
    let e0 = evs[0];
    setup_evs(&mut r, 0, evs);
    let qpn = Qpn::new(DUT_QP);
    r.cpu(1_000, CpuCommand::SetEvState { qpn, ev: e0, state: EvState::Denied });
    r.checks(&["EV-DENY-001", "SND-PATH-002"]);
    // Posted longer after the command than a device may take to act on it.
    r.host(3_500, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.checks(&["EV-DENY-002"]);
    r.inject(4_000, 0, e0, &probe_answer(0xFF_FFFF, 1, WireMark::NONE, e0));
    r.run_until(6_000);
    r.checks(&["EV-DENY-002", "EV-STATE-003", "REC-IF-012"]);
    r.cpu(6_000, CpuCommand::SetEvState { qpn, ev: e0, state: EvState::Good });
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 8_000, 0, 0, 0, WireMark::NONE);
    inject_ack(&mut r, 8_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}
