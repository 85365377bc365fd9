//! Scenarios for bugs no other scenario made visible, the eighth time: a message and a
//! template slot across a 4 GiB boundary, an `ack_req_every` that is not a power of two, a
//! retirement-flag base not aligned to its ring, a token exactly half the sequence ring
//! ahead, two QPs whose SACK timers fire at one instant, and a write exactly half the PSN
//! space ahead of the expected PSN.

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("snd-va-cross-4g", snd_va_cross_4g),
        ("db-va-cross-4g", db_va_cross_4g),
        ("snd-ackreq-every-3", snd_ackreq_every_3),
        ("rcv-flag-base-unaligned", rcv_flag_base_unaligned),
        ("db-seq-half-ring", db_seq_half_ring),
        ("rcv-sack-two-qps-one-instant", rcv_sack_two_qps_one_instant),
        ("rcv-half-space-ahead", rcv_half_space_ahead),
    ]
}

/// 2^32.
const G4: u64 = 1 << 32;

/// A message whose remote range crosses 4 GiB after its first packet.
fn snd_va_cross_4g() -> Scenario {
    let mut r = evs_sender(
        "snd-va-cross-4g",
        "The device sends a work request of three packets whose remote range starts 1280 \
         bytes below 4 GiB: its second packet's RETH va lies 4 GiB minus 256, its third \
         768 bytes above 4 GiB, with bit 32 set by the carry of the first packet's address. \
         A second work request of two packets starts exactly at 8 GiB minus one PMTU.",
        &["SND-SEG-003", "RETH-VA-002", "WR-EXEC-001"],
        |_| {},
    );
    r.checks(&["SND-SEG-003", "RETH-VA-002", "WR-EXEC-001"]);
    let works = [(G4 - 0x500, 2 * PMTU + 100), (2 * G4 - u64::from(PMTU), 2 * PMTU)];
    for (k, (remote, len)) in works.into_iter().enumerate() {
        let w = WorkRequest { remote_va: remote, ..wr(k as u32, len, None, true) };
        r.host(1_000, HostCommand::PostWrite(w));
    }
    inject_sack(&mut r, 9_000, 4, 0, 4, WireMark::NONE);
    inject_ack(&mut r, 9_000, 4, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// A template whose remote region crosses 4 GiB between its slots and inside one.
fn db_va_cross_4g() -> Scenario {
    let mut r = doorbell_sender(
        "db-va-cross-4g",
        "A template's remote region starts 65 KiB below 4 GiB, with slots of 64 KiB. The \
         token for slot 0 is a message below 4 GiB; the one for slot 1 a message of three \
         packets from 1 KiB below 4 GiB, whose later packets lie above it; the one for \
         slot 2 a message wholly above 4 GiB, whose address needs the carry of \
         remote_base + 2 x remote_stride into bit 32.",
        &["TPL-EXPAND-003", "SND-SEG-003", "RETH-VA-002", "DB-ACCEPT-001", "FLAG-SEND-001"],
        &[],
    );
    let t = Template { remote_base: G4 - 0x1_0400, ..template(3, WrOpcode::WRITE, true) };
    install(&mut r, t);
    r.checks(&["TPL-EXPAND-003", "SND-SEG-003", "RETH-VA-002"]);
    for seq in 0u16..3 {
        r.host(
            1_000 + 100 * u64::from(seq),
            HostCommand::Doorbell { token: token(3, seq, seq, 0) },
        );
    }
    r.checks(&["FLAG-SEND-001"]);
    inject_sack(&mut r, 9_000, 8, 0, 8, WireMark::NONE);
    inject_ack(&mut r, 9_000, 8, 2, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// AckReq on every third PSN.
fn snd_ackreq_every_3() -> Scenario {
    let mut r = evs_sender(
        "snd-ackreq-every-3",
        "With ack_req_every 3, a number that is not a power of two, the device sends a \
         message of eight packets from PSN 0: AckReq is set on PSNs 0, 3 and 6, multiples \
         of 3, and on PSN 7, the last packet, and on no other.",
        &["SND-ACKREQ-001"],
        |m| m.nic.ack_req_every = 3,
    );
    r.checks(&["SND-ACKREQ-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 8 * PMTU, None, true)));
    inject_sack(&mut r, 12_000, 7, 0, 7, WireMark::NONE);
    inject_ack(&mut r, 12_000, 7, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// A retirement-flag base 24 bytes past a 2 KiB boundary.
fn rcv_flag_base_unaligned() -> Scenario {
    let mut r = responder(
        "rcv-flag-base-unaligned",
        "The device's QP has 256 retirement flags whose base lies 24 bytes past a 2 KiB \
         boundary, not aligned to the 2 KiB its flags take. Four one-packet messages, MSN 0 \
         to 3, retire in order: each flag lands at the base plus 8 times its slot, bytes \
         0x18 to 0x30 past the boundary, which no OR of base and slot gives.",
        &["RET-FLAG-001", "FLAG-RECV-001", "FLAG-TABLE-001"],
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    let q = qp(DUT_QP, PEER_QP, 0);
    r.host(0, HostCommand::CreateQp(QpConfig { recv_flag_base: q.recv_flag_base + 0x18, ..q }));
    r.checks(&["RET-FLAG-001", "FLAG-RECV-001", "FLAG-TABLE-001"]);
    for k in 0..4u32 {
        let p = write(
            k,
            k as u16,
            Opcode::MRC_WRITE_ONLY,
            0,
            256,
            256,
            REGION + 0x1000 * u64::from(k),
            None,
        );
        r.inject(1_000 + 1_000 * u64::from(k), (k % 4) as u16, 0xA000_0001 + k * 0x1_0000, &p);
    }
    done(r, 20_000)
}

/// Tokens exactly half the sequence ring ahead, and one short of it.
fn db_seq_half_ring() -> Scenario {
    let mut r = doorbell_sender(
        "db-seq-half-ring",
        "A template accepts the token of seq 0. The token of seq 0x8001, exactly 2^15 ahead \
         of the expected seq 1, is rejected with SEQ_GAP, not STALE_SEQ; the token of seq \
         0x8002, 2^15 - 1 behind, with STALE_SEQ. Both are at slots that have flags, and \
         neither writes one. The token of seq 1 is then accepted.",
        &["DB-SEQ-002", "DB-SEQ-003", "CQE-REJECT-001", "DB-REJECT-001", "FLAG-SEND-003"],
        &[],
    );
    install(&mut r, template(3, WrOpcode::WRITE, true));
    r.host(1_000, HostCommand::Doorbell { token: token(3, 0, 0, 4) });
    r.checks(&["DB-SEQ-003", "CQE-REJECT-001", "FLAG-SEND-003"]);
    r.host(2_000, HostCommand::Doorbell { token: token(3, 0x8001, 1, 4) });
    r.checks(&["DB-SEQ-002", "CQE-REJECT-001", "FLAG-SEND-003"]);
    r.host(3_000, HostCommand::Doorbell { token: token(3, 0x8002, 2, 4) });
    r.host(4_000, HostCommand::Doorbell { token: token(3, 1, 3, 4) });
    inject_sack(&mut r, 9_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 9_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// Two QPs whose SACK timers expire at one instant.
fn rcv_sack_two_qps_one_instant() -> Scenario {
    let mut m = manifest(
        "rcv-sack-two-qps-one-instant",
        "Two QPs of the device, in two retirement domains, QP A from PSN 0x100 and QP B \
         from PSN 0. At one instant each receives the first two packets of a three-packet \
         message, without AckReq; their SACK timers expire together, and the two SACKs \
         then sent at one instant each carry their own QP's cack_psn and BTH psn. The last \
         packets, 2 us apart, then complete both messages.",
        &["RCV-SACK-005", "SETH-CACK-001", "SETH-BITMAP-001", "RCV-SACK-002"],
        &[Capability::Responder, Capability::Paths, Capability::Retirement, Capability::Ipv4],
    );
    m.tolerances.late_ns = 2_000;
    let mut r = Recorder::new(m);
    const A: u32 = 0x100;
    let b = two_qps(&mut r, A, 1);
    let total = 3 * PMTU;
    let to = |qpn: u32, p: Packet| edit(quiet(p), |w| w.bth.dest_qp = Qpn::new(qpn));
    let pkt =
        |psn: u32, op: Opcode, seg: u32, base: u64| write(psn, 0, op, seg, PMTU, total, base, None);
    let b_base = REGION + 0x8_0000;
    r.checks(&["RCV-SACK-005", "SETH-CACK-001", "SETH-BITMAP-001"]);
    let (first, middle, last) =
        (Opcode::MRC_WRITE_FIRST, Opcode::MRC_WRITE_MIDDLE, Opcode::MRC_WRITE_LAST);
    r.inject(1_000, 0, 0xA000_0001, &to(DUT_QP, pkt(A, first, 0, REGION)));
    r.inject(1_000, 1, 0xA001_0002, &to(b, pkt(0, first, 0, b_base)));
    r.inject(1_000, 2, 0xA002_0003, &to(DUT_QP, pkt(A + 1, middle, 1, REGION)));
    r.inject(1_000, 3, 0xA003_0004, &to(b, pkt(1, middle, 1, b_base)));
    r.checks(&["RCV-SACK-005", "SETH-CACK-001"]);
    r.inject(6_000, 0, 0xA000_0005, &to(DUT_QP, pkt(A + 2, last, 2, REGION)));
    // Apart, so that each last packet's retirement is judged on its own input.
    r.inject(8_000, 1, 0xA001_0006, &to(b, pkt(2, last, 2, b_base)));
    done(r, 20_000)
}

/// A write exactly 2^23 ahead of the expected PSN.
fn rcv_half_space_ahead() -> Scenario {
    let mut m = manifest(
        "rcv-half-space-ahead",
        "A one-packet message arrives at PSN 0, so that the expected PSN is 1. A write at \
         PSN 1 + 2^23, exactly half the PSN space ahead, is after the expected PSN \
         (BTH-PSN-002) and beyond the window, not a duplicate: it is answered with a NACK \
         PSN_OOR_WINDOW and discarded, and no SACK claims it. The message at PSN 1 is then \
         placed and retired.",
        &["RCV-WIN-001", "RCV-WIN-002", "BTH-PSN-002", "SETH-CACK-001"],
        &[Capability::Responder, Capability::Retirement, Capability::Ipv4],
    );
    tight_sack_timing(&mut m);
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    let one = |psn: u32, msn: u16, at: u64| {
        write(psn, msn, Opcode::MRC_WRITE_ONLY, 0, 256, 256, REGION + at, None)
    };
    r.inject(1_000, 0, 0xA000_0001, &one(0, 0, 0));
    r.checks(&["RCV-WIN-001", "RCV-WIN-002", "BTH-PSN-002"]);
    r.inject(2_000, 1, 0xA001_0002, &one(1 + (1 << 23), 1, 0x1000));
    r.checks(&["SETH-CACK-001"]);
    r.inject(4_000, 3, 0xA003_0004, &one(1, 1, 0x1000));
    done(r, 20_000)
}
