//! Responder scenarios: duplicates, write-with-immediate order, placement and segment
//! errors, MSN positions, SACK coalescing, probes, VLAN, the order of checks.

use super::*;

// ===== responder scenarios ===============================================================

/// A packet is resent while its message is still incomplete.
pub(super) fn rcv_duplicate_before_retirement() -> Scenario {
    let reqs = [
        "RCV-DUP-001",
        "RCV-WIN-001",
        "RCV-PLACE-003",
        "RCV-PLACE-004",
        "RET-FLAG-001",
        "FLAG-ORDER-001",
        "RCV-ACK-002",
        "AETH-LAYOUT-001",
        "AETH-MSN-001",
    ];
    let mut r = responder_with(
        "rcv-duplicate-before-retirement",
        "The first two packets of a three-packet message, without AckReq, each arrive twice \
         (once as a retransmission, once as a plain copy) before the message is complete and \
         well within the (long) SACK delay: each copy is answered at once with a SACK and is \
         not placed again; the last packet then retires the message once, with its flag and \
         transport ACK.",
        &reqs,
        tight_sack_timing,
    );
    setup(&mut r, 0, false);
    let total = 2 * PMTU + 100;
    let p0 = quiet(write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None));
    let p1 = quiet(write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None));
    r.checks(&["RCV-PLACE-003"]);
    r.inject(1_000, 0, 0xA000_0001, &p0);
    r.checks(&["RCV-DUP-001", "RCV-PLACE-004"]);
    r.inject(1_200, 1, 0xA001_0002, &edit(p0.clone(), |w| w.bth.rtx = true));
    r.checks(&["RCV-PLACE-003"]);
    r.inject(1_400, 2, 0xA002_0003, &p1);
    r.checks(&["RCV-DUP-001", "RCV-PLACE-004"]);
    r.inject(1_600, 3, 0xA003_0004, &p1);
    r.checks(&["RET-FLAG-001", "RCV-ACK-002"]);
    // Late enough that a SACK of a copy cannot pass for one the last packet causes; before
    // the SACK timer (5 us after the first packet).
    r.inject(
        5_000,
        0,
        0xA000_0001,
        &write(2, 0, Opcode::MRC_WRITE_LAST, 2, 100, total, REGION, None),
    );
    done(r, 20_000)
}

/// A duplicate too far behind `cack_psn` for the SACK's 16-bit offset.
pub(super) fn rcv_far_duplicate() -> Scenario {
    let mut r = responder(
        "rcv-far-duplicate",
        "A faulty requester's first write carries a PSN 40,000 before the connection's \
         first, a duplicate too far behind cack_psn for the SACK's 16-bit offset: it is \
         answered at once with a SACK whose ack_psn_offset is clamped to -32768, and not \
         placed; a write with the first PSN then is placed and retires.",
        &["RCV-DUP-001", "RCV-WIN-001", "SETH-ACKPSN-003", "RCV-PLACE-003"],
    );
    let start = 0x10_0000;
    setup(&mut r, start, false);
    r.checks(&["SETH-ACKPSN-003", "RCV-DUP-001"]);
    // No payload, so nothing could be placed even by a device that took it for new.
    let far = write(start - 40_000, 0, Opcode::MRC_WRITE_ONLY, 0, 0, 0, REGION, None);
    r.inject(1_000, 0, 0xA000_0001, &far);
    r.checks(&["RCV-PLACE-003"]);
    let one = write(start, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None);
    r.inject(3_000, 1, 0xA001_0002, &one);
    done(r, 20_000)
}

/// Two Write-with-Immediate messages whose packets arrive interleaved and out of order.
pub(super) fn rcv_wwi_order() -> Scenario {
    let mut m = manifest(
        "rcv-wwi-order",
        "Two Write-with-Immediate messages of two packets each arrive interleaved and out \
         of order, the second message complete first: both are placed on arrival, but the \
         receive completions (with their immediates) and the retirement flags come in MSN \
         and RQMSN order, the first message's before the second's. The first message's last \
         packet arrives marked as a retransmission: its immediate is delivered all the same.",
        &[
            "WWI-ORDER-001",
            "CQE-RECV-001",
            "CQE-IMM-002",
            "RET-ORDER-001",
            "RET-FLAG-001",
            "FLAG-RECV-002",
            "FLAG-ORDER-001",
            "RCV-PLACE-003",
            "RCV-MSG-003",
            "RCV-SACK-001",
            "RCV-WIN-003",
        ],
        &[
            Capability::Responder,
            Capability::Retirement,
            Capability::WriteImmediate,
            Capability::Ipv4,
        ],
    );
    m.nic.retirement = RetirementMode::PerQp;
    m.requires.insert(Capability::PerQpRetirement);
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    let (a, b) = (REGION, REGION + 0x10_000);
    let total = PMTU + 200;
    let rq = |p: Packet, rqmsn: u16| edit(p, |w| w.meth.rqmsn = Rqmsn::new(rqmsn));
    let a0 = rq(write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, a, None), 1);
    let a1 = rq(write(1, 0, Opcode::MRC_WRITE_LAST_IMM, 1, 200, total, a, Some(0xA1)), 1);
    let a1 = edit(a1, |w| w.bth.rtx = true);
    let b0 = rq(write(2, 1, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, b, None), 2);
    let b1 = rq(write(3, 1, Opcode::MRC_WRITE_LAST_IMM, 1, 200, total, b, Some(0xB2)), 2);
    r.checks(&["RCV-PLACE-003", "RCV-SACK-001"]);
    r.inject(1_000, 0, 0xA000_0001, &b1);
    r.inject(1_300, 1, 0xA001_0002, &a1);
    r.inject(1_600, 2, 0xA002_0003, &b0);
    r.checks(&["WWI-ORDER-001", "CQE-RECV-001", "RCV-WIN-003"]);
    r.inject(2_500, 3, 0xA003_0004, &a0);
    done(r, 20_000)
}

/// RQMSN beyond `wwi_limit`: NACK UNEXP_EVENT and the QP in error.
pub(super) fn rcv_wwi_limit() -> Scenario {
    let mut m = manifest(
        "rcv-wwi-limit",
        "With wwi_limit 2, a Write-with-Immediate (RQMSN 1) is delivered; the next one \
         carries RQMSN 4, three ahead of the last delivered: the device answers it with \
         NACK UNEXP_EVENT, discards it and moves the QP to the error state, after which a \
         further write to the QP is discarded without any response.",
        &[
            "WWI-LIMIT-002",
            "RCV-NACK-001",
            "NETH-LAYOUT-001",
            "NETH-PSN-001",
            "RET-ERR-002",
            "REC-IF-009",
            "RCV-QP-002",
            "CQE-RECV-001",
        ],
        &[
            Capability::Responder,
            Capability::Retirement,
            Capability::WriteImmediate,
            Capability::Ipv4,
        ],
    );
    m.nic.wwi_limit = 2;
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    r.checks(&["CQE-RECV-001"]);
    breach_wwi_limit(&mut r);
    r.checks(&["RCV-QP-002"]);
    r.inject(
        6_000,
        2,
        0xA002_0003,
        &write(1, 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x2000, None),
    );
    done(r, 20_000)
}

/// With `wwi_limit` 2: a Write-with-Immediate of RQMSN 1 at 1 us, then one of RQMSN 4 at
/// 3 us, three ahead of the last delivered, which the device answers with NACK UNEXP_EVENT
/// and which moves the QP to the error state.
pub(super) fn breach_wwi_limit(r: &mut Recorder) {
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(0, 0, Opcode::MRC_WRITE_ONLY_IMM, 0, 64, 64, REGION, Some(0x11)),
    );
    r.checks(&["WWI-LIMIT-002", "RCV-NACK-001"]);
    let far = edit(
        write(1, 1, Opcode::MRC_WRITE_ONLY_IMM, 0, 64, 64, REGION + 0x1000, Some(0x44)),
        |w| w.meth.rqmsn = Rqmsn::new(4),
    );
    r.inject(3_000, 1, 0xA001_0002, &far);
}

/// Writes the region does not allow: AETH NAK remote access error, nothing placed.
pub(super) fn rcv_placement_errors() -> Scenario {
    let mut r = responder(
        "rcv-placement-errors",
        "Writes naming an unknown rkey, a range past the region's end, a range below its \
         base, a region without remote-write permission and a range crossing the region's \
         end are each answered \
         with a transport NAK 0x62 (remote access error) carrying the MSN before the next \
         to retire, and place nothing; the same PSNs, sent correctly, are then accepted as \
         new and placed. Sending a NAK does not move the QP to the error state.",
        &[
            "RCV-PLACE-002",
            "RCV-NAK-002",
            "RCV-REJECT-001",
            "AETH-MRC-001",
            "AETH-LAYOUT-001",
            "AETH-SYN-001",
            "AETH-MSN-001",
            "RCV-PLACE-003",
            "RCV-ACK-002",
            "RET-ERR-002",
        ],
    );
    setup(&mut r, 0, false);
    r.host(
        0,
        HostCommand::RegisterRegion(Region {
            rkey: Rkey::new(0x5678),
            base: REGION + REGION_LEN,
            len: 0x10_0000,
            remote_write: false,
        }),
    );
    let good = write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 256, 256, REGION, None);
    r.checks(&["RCV-PLACE-002", "RCV-NAK-002"]);
    r.inject(1_000, 0, 0xA000_0001, &edit(good.clone(), |w| w.reth.rkey = Rkey::new(0x9999)));
    r.inject(
        2_000,
        1,
        0xA001_0002,
        &edit(good.clone(), |w| w.reth.va = REGION + REGION_LEN + 0x1000),
    );
    r.inject(2_500, 3, 0xA003_0005, &edit(good.clone(), |w| w.reth.va = REGION - 0x1000));
    r.inject(
        3_000,
        2,
        0xA002_0003,
        &edit(good.clone(), |w| {
            w.reth.rkey = Rkey::new(0x5678);
            w.reth.va = REGION + REGION_LEN;
        }),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    r.inject(4_000, 3, 0xA003_0004, &good);
    let second = write(1, 1, Opcode::MRC_WRITE_ONLY, 0, 256, 256, REGION + 0x1_0000, None);
    r.checks(&["RCV-PLACE-002", "RCV-NAK-002"]);
    r.inject(
        6_000,
        0,
        0xA000_0001,
        &edit(second.clone(), |w| w.reth.va = REGION + REGION_LEN - 100),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    r.inject(7_000, 1, 0xA001_0002, &second);
    done(r, 20_000)
}

/// Segments of the wrong size are discarded without response.
pub(super) fn rcv_segment_errors() -> Scenario {
    let mut r = responder(
        "rcv-segment-errors",
        "A write with more payload than the PMTU, a FIRST shorter than the PMTU and a \
         MIDDLE shorter than the PMTU are discarded without response and change nothing: \
         the same PSNs then arrive with correct sizes and are placed as new.",
        &["RCV-SEG-001", "RCV-SEG-002", "RCV-REJECT-001", "RCV-PLACE-003"],
    );
    setup(&mut r, 0, false);
    let total = 2 * PMTU + 8;
    r.checks(&["RCV-SEG-001"]);
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU + 4, total, REGION, None),
    );
    r.checks(&["RCV-SEG-002"]);
    r.inject(
        2_000,
        1,
        0xA001_0002,
        &write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU - 4, total, REGION, None),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    r.inject(
        3_000,
        2,
        0xA002_0003,
        &quiet(write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None)),
    );
    r.checks(&["RCV-SEG-002"]);
    r.inject(
        4_000,
        3,
        0xA003_0004,
        &write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, 512, total, REGION, None),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    r.inject(
        5_000,
        0,
        0xA000_0001,
        &quiet(write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None)),
    );
    r.inject(
        6_000,
        1,
        0xA001_0002,
        &write(2, 0, Opcode::MRC_WRITE_LAST, 2, 8, total, REGION, None),
    );
    done(r, 20_000)
}

/// MSNs that are already retired or beyond the table, and inconsistent messages.
pub(super) fn rcv_msn_position() -> Scenario {
    let mut r = responder(
        "rcv-msn-position",
        "After message 0 retires, a new PSN naming MSN 0 again, a new PSN naming MSN 5000 \
         (beyond the 4096 entries of a shared retirement table) and a LAST packet whose \
         RETH dma_len differs from its FIRST are each discarded without response or \
         placement; the same PSNs, sent correctly, are then placed. At the edge of the \
         table, MSN next + 4096 is discarded and MSN next + 4095 is accepted and placed \
         (it stays pending).",
        &[
            "FLAG-LAST-002",
            "FLAG-LAST-001",
            "RCV-MSG-002",
            "RET-CAP-001",
            "RET-CAP-002",
            "RCV-MSG-001",
            "RCV-REJECT-001",
            "RCV-PLACE-003",
        ],
    );
    setup(&mut r, 0, false);
    r.inject(1_000, 0, 0xA000_0001, &write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None));
    r.checks(&["FLAG-LAST-002"]);
    r.inject(
        3_000,
        1,
        0xA001_0002,
        &write(1, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x100, None),
    );
    r.checks(&["RCV-MSG-002"]);
    r.inject(
        4_000,
        2,
        0xA002_0003,
        &write(1, 5000, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x200, None),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    let b = REGION + 0x1_0000;
    let total = PMTU + 32;
    r.inject(
        5_000,
        3,
        0xA003_0004,
        &quiet(write(1, 1, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, b, None)),
    );
    r.checks(&["RCV-MSG-001"]);
    r.inject(
        6_000,
        0,
        0xA000_0001,
        &write(2, 1, Opcode::MRC_WRITE_LAST, 1, 32, total + 4, b, None),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    r.inject(7_000, 1, 0xA001_0002, &write(2, 1, Opcode::MRC_WRITE_LAST, 1, 32, total, b, None));
    // Messages 0 and 1 retired: the table holds MSNs 2 to 4097.
    r.checks(&["RCV-MSG-002", "RET-CAP-002"]);
    r.inject(
        8_000,
        2,
        0xA002_0003,
        &write(3, 4098, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x300, None),
    );
    r.checks(&["RET-CAP-001", "RCV-PLACE-003"]);
    r.inject(
        9_000,
        3,
        0xA003_0004,
        &write(3, 4097, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x400, None),
    );
    done(r, 20_000)
}

/// `sack_coalesce` writes without AckReq produce a SACK at once.
pub(super) fn rcv_sack_coalesce() -> Scenario {
    let mut m = manifest(
        "rcv-sack-coalesce",
        "Eight in-order packets of a longer message arrive without AckReq, twice \
         sack_coalesce (4), in two bursts of four 100 ns apart with 3.7 us between the \
         bursts, all well within the long SACK delay (20 us): the count, not the timer, \
         makes the device SACK at once (after the fourth and the eighth); the last packet, \
         with AckReq, completes the message.",
        &["RCV-SACK-002", "RCV-SACK-001", "RCV-PLACE-003"],
        &[Capability::Responder, Capability::Retirement, Capability::Ipv4],
    );
    m.nic.sack_coalesce = 4;
    m.nic.sack_delay = std::time::Duration::from_micros(20);
    // The gap after the first burst is longer than late_ns: a device that counts to more
    // than sack_coalesce, or waits for its timer, has not SACKed the first four by then
    // (RCV-SACK-002).
    m.tolerances.late_ns = 2_000;
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    let total = 8 * PMTU + 16;
    r.checks(&["RCV-SACK-002"]);
    for k in 0..8u32 {
        let op = if k == 0 { Opcode::MRC_WRITE_FIRST } else { Opcode::MRC_WRITE_MIDDLE };
        let p = quiet(write(k, 0, op, k, PMTU, total, REGION, None));
        let at = 1_000 + 100 * u64::from(k % 4) + 4_000 * u64::from(k / 4);
        r.inject(at, (k % 4) as u16, 0xA000_0000 + (k % 4) * 0x1_0000, &p);
    }
    r.checks(&["RCV-SACK-001"]);
    r.inject(
        9_000,
        0,
        0xA000_0000,
        &write(8, 0, Opcode::MRC_WRITE_LAST, 8, 16, total, REGION, None),
    );
    done(r, 40_000)
}

/// A probe answer resets the count of writes to acknowledge, as every SACK does.
pub(super) fn rcv_probe_answer_count() -> Scenario {
    let mut m = manifest(
        "rcv-probe-answer-count",
        "With sack_coalesce 4 and a SACK delay of 5 us, two packets arrive without AckReq, \
         then a probe, answered at once, which resets the count of writes to acknowledge and \
         stops the timer; four more packets without AckReq follow: the first starts the \
         timer again, and the fourth, 3.5 us after it, brings the count to 4 and is SACKed \
         at once. A device that coalesces over more packets is acknowledged by the timer \
         within the tolerance; one whose probe answer kept the count SACKs the second of \
         them early, and the timer that the third starts comes too late. The last packet, \
         with AckReq, completes the message.",
        &["RCV-SACK-008", "RCV-SACK-001", "RCV-SACK-002", "EV-PROBE-004"],
        &[Capability::Responder, Capability::Paths, Capability::Retirement, Capability::Ipv4],
    );
    m.nic.sack_coalesce = 4;
    tight_sack_timing(&mut m);
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    let total = 6 * PMTU + 16;
    let pkt = |psn: u32| {
        let op = if psn == 0 { Opcode::MRC_WRITE_FIRST } else { Opcode::MRC_WRITE_MIDDLE };
        quiet(write(psn, 0, op, psn, PMTU, total, REGION, None))
    };
    r.checks(&["RCV-SACK-002"]);
    r.inject(1_000, 0, 0xA000_0001, &pkt(0));
    r.inject(2_000, 1, 0xA001_0002, &pkt(1));
    let mut pr = probe(7);
    if let Packet::Probe { bth, .. } = &mut pr {
        bth.psn = Psn::new(2);
    }
    r.checks(&["EV-PROBE-004"]);
    r.inject(3_000, 2, 0xA002_0003, &pr);
    r.checks(&["RCV-SACK-008", "RCV-SACK-002"]);
    for (k, at) in [(2u32, 10_000), (3, 12_000), (4, 12_100), (5, 13_500)] {
        r.inject(at, (k % 4) as u16, 0xA000_0001 + (k % 4) * 0x1_0001, &pkt(k));
    }
    r.checks(&["RCV-SACK-001"]);
    r.inject(
        40_000,
        0,
        0xA000_0001,
        &write(6, 0, Opcode::MRC_WRITE_LAST, 6, 16, total, REGION, None),
    );
    done(r, 60_000)
}

/// Each trigger of RCV-SACK-001 alone, well apart from the coalescing count and the timer.
pub(super) fn rcv_sack_triggers() -> Scenario {
    let mut r = responder_with(
        "rcv-sack-triggers",
        "A six-packet message arrives with sack_coalesce 4 and a long SACK delay (5 us), \
         each trigger of an immediate SACK alone, 10 us apart so that the timer never \
         hides one: PSN 0 without AckReq starts the timer; PSN 1 with AckReq is SACKed at \
         once; PSN 3 arrives behind the hole at PSN 2 and is SACKed at once, though the \
         cumulative PSN does not move; PSN 2 fills the hole; PSN 4, a retransmission \
         without AckReq that arrives in order, is SACKed at once; the last packet, with \
         AckReq, completes the message.",
        &["RCV-SACK-001", "SETH-BITMAP-001", "RCV-PLACE-003", "RET-FLAG-001"],
        |m| {
            tight_sack_timing(m);
            m.nic.sack_coalesce = 4;
        },
    );
    setup(&mut r, 0, false);
    let total = 5 * PMTU + 100;
    let pkt = |psn: u32| {
        let op = match psn {
            0 => Opcode::MRC_WRITE_FIRST,
            5 => Opcode::MRC_WRITE_LAST,
            _ => Opcode::MRC_WRITE_MIDDLE,
        };
        let len = if psn == 5 { 100 } else { PMTU };
        quiet(write(psn, 0, op, psn, len, total, REGION, None))
    };
    r.checks(&["RCV-PLACE-003"]);
    r.inject(1_000, 0, 0xA000_0001, &pkt(0));
    r.checks(&["RCV-SACK-001"]);
    r.inject(1_200, 1, 0xA001_0002, &edit(pkt(1), |w| w.bth.ack_req = true));
    r.checks(&["RCV-SACK-001", "SETH-BITMAP-001"]);
    r.inject(11_000, 2, 0xA002_0003, &pkt(3));
    r.checks(&["RCV-SACK-001"]);
    r.inject(21_000, 3, 0xA003_0004, &pkt(2));
    r.checks(&["RCV-SACK-001"]);
    r.inject(31_000, 0, 0xA000_0005, &edit(pkt(4), |w| w.bth.rtx = true));
    r.checks(&["RCV-SACK-001", "RET-FLAG-001"]);
    r.inject(41_000, 1, 0xA001_0006, &edit(pkt(5), |w| w.bth.ack_req = true));
    done(r, 60_000)
}

/// Packets behind one hole, a duplicate of one of them, and a write refused for its key
/// while the hole is open: each answer shows the state after that packet alone.
pub(super) fn rcv_hole_duplicates() -> Scenario {
    let mut r = responder_with(
        "rcv-hole-duplicates",
        "A five-packet message arrives with sack_coalesce 4 and a long SACK delay (5 us), \
         10 us apart: PSNs 2 and 3 arrive behind the hole at PSN 0 and are each SACKed at \
         once; a plain copy of PSN 2, a duplicate of a packet that was itself out of order, \
         is SACKed at once and not placed again; PSN 1 with an rkey that names no region is \
         NAKed and not marked received, so the SACK of PSN 0, with AckReq, moves cack_psn \
         to 0 alone; PSN 1 then fills the hole up to 3, and the last packet completes the \
         message.",
        &[
            "RCV-SACK-001",
            "RCV-DUP-001",
            "RCV-PLACE-002",
            "RCV-PLACE-004",
            "SETH-BITMAP-001",
            "SETH-CACK-001",
            "RET-FLAG-001",
        ],
        |m| {
            tight_sack_timing(m);
            m.nic.sack_coalesce = 4;
        },
    );
    setup(&mut r, 0, false);
    let total = 4 * PMTU + 100;
    let pkt = |psn: u32| {
        let op = match psn {
            0 => Opcode::MRC_WRITE_FIRST,
            4 => Opcode::MRC_WRITE_LAST,
            _ => Opcode::MRC_WRITE_MIDDLE,
        };
        let len = if psn == 4 { 100 } else { PMTU };
        quiet(write(psn, 0, op, psn, len, total, REGION, None))
    };
    r.checks(&["RCV-SACK-001", "SETH-BITMAP-001"]);
    r.inject(1_000, 0, 0xA000_0001, &pkt(2));
    r.checks(&["RCV-SACK-001", "SETH-BITMAP-001"]);
    r.inject(11_000, 1, 0xA001_0002, &pkt(3));
    r.checks(&["RCV-DUP-001", "RCV-PLACE-004"]);
    r.inject(21_000, 2, 0xA002_0003, &pkt(2));
    r.checks(&["RCV-PLACE-002"]);
    r.inject(31_000, 3, 0xA003_0004, &edit(pkt(1), |w| w.reth.rkey = Rkey::new(0x9999)));
    r.checks(&["SETH-CACK-001", "SETH-BITMAP-001"]);
    r.inject(41_000, 0, 0xA000_0005, &edit(pkt(0), |w| w.bth.ack_req = true));
    r.checks(&["RCV-SACK-001", "SETH-CACK-001"]);
    r.inject(51_000, 1, 0xA001_0006, &pkt(1));
    r.checks(&["RCV-SACK-001", "RET-FLAG-001"]);
    r.inject(61_000, 2, 0xA002_0007, &edit(pkt(4), |w| w.bth.ack_req = true));
    done(r, 80_000)
}

/// Arrivals 40 and 63 PSNs past epsn: the SACKs' bitmaps report them in their high word.
pub(super) fn rcv_sack_bitmap_high() -> Scenario {
    let mut r = responder(
        "rcv-sack-bitmap-high",
        "One-packet messages at PSNs 40 and 63 arrive before PSN 0, each answered at once \
         with a SACK whose bitmap reports it in bits 63:32 (bit 40, then bits 40 and 63); \
         PSN 0 then retires its message, and its SACK reports both again, at bits 39 and 62 \
         from the new epsn.",
        &["SETH-BITMAP-001", "RCV-SACK-001", "RCV-SACK-005", "RCV-PLACE-003"],
    );
    setup(&mut r, 0, false);
    let one = |psn: u32| {
        let va = REGION + u64::from(psn) * 0x100;
        write(psn, psn as u16, Opcode::MRC_WRITE_ONLY, 0, 64, 64, va, None)
    };
    r.checks(&["SETH-BITMAP-001", "RCV-SACK-001"]);
    r.inject(1_000, 0, 0xA000_0001, &one(40));
    r.checks(&["SETH-BITMAP-001", "RCV-SACK-001"]);
    r.inject(2_000, 1, 0xA001_0002, &one(63));
    r.checks(&["SETH-BITMAP-001", "RCV-PLACE-003"]);
    r.inject(3_000, 2, 0xA002_0003, &one(0));
    done(r, 20_000)
}

/// A probe is answered at once and consumes no PSN.
pub(super) fn rcv_probe() -> Scenario {
    let mut m = manifest(
        "rcv-probe",
        "Two packets arrive without AckReq and, before the (long) SACK delay, a probe whose \
         BTH psn is the next expected PSN: the device answers the probe at once with a SACK \
         reporting both packets, and does not take the probe's PSN as received (a later \
         SACK claims it only once the write with that PSN has arrived).",
        &["EV-PROBE-004", "PETH-PSN-001", "RCV-SACK-001", "SETH-CACK-001"],
        &[Capability::Responder, Capability::Paths, Capability::Retirement, Capability::Ipv4],
    );
    m.nic.sack_delay = std::time::Duration::from_micros(5);
    m.tolerances.late_ns = 2_000;
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    let total = 3 * PMTU;
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &quiet(write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None)),
    );
    r.inject(
        1_100,
        1,
        0xA001_0002,
        &quiet(write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None)),
    );
    let mut pr = probe(7);
    if let Packet::Probe { bth, .. } = &mut pr {
        bth.psn = Psn::new(2);
    }
    r.checks(&["EV-PROBE-004"]);
    r.inject(1_300, 2, 0xA002_0003, &pr);
    r.checks(&["PETH-PSN-001", "RCV-SACK-001"]);
    r.inject(
        10_000,
        3,
        0xA003_0004,
        &write(2, 0, Opcode::MRC_WRITE_LAST, 2, PMTU, total, REGION, None),
    );
    done(r, 30_000)
}

/// The in-order scenario over a VLAN-tagged link.
pub(super) fn rcv_in_order_vlan() -> Scenario {
    let link = Link { vlan: Some(42), ..Link::default() };
    let mut s = in_order("rcv-in-order-vlan", link);
    s.manifest.description.push_str(" Every frame carries an 802.1Q tag (VID 42).");
    // The tag's rules (ENC-VLAN-001, ENC-VLAN-002, ENC-ETH-001) come with the tagged frames
    // the device sends (`done`, CONF-CMP-016).
    s
}

/// The order of the receive checks: the first failing check decides the response.
pub(super) fn rcv_check_order() -> Scenario {
    let mut r = responder(
        "rcv-check-order",
        "Writes that break two rules at once get the response of the first check in \
         RCV-CHECK-001 order: an unknown QP gets nothing; an out-of-window PSN with a bad \
         rkey gets NACK PSN_OOR_WINDOW, not a NAK; an oversized payload with a bad rkey is \
         dropped silently; a duplicate with a bad rkey gets a SACK; a bad rkey on a retired \
         MSN gets the NAK.",
        &[
            "RCV-CHECK-001",
            "RCV-QP-001",
            "RCV-WIN-002",
            "RCV-NACK-001",
            "RCV-DUP-001",
            "RCV-PLACE-002",
            "RCV-NAK-002",
            "RCV-PLACE-003",
            "FLAG-LAST-001",
            "NETH-LAYOUT-001",
            "AETH-LAYOUT-001",
        ],
    );
    setup(&mut r, 0, false);
    r.checks(&["RCV-PLACE-003"]);
    r.inject(1_000, 0, 0xA000_0001, &write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None));
    let bad_key = |p: Packet| edit(p, |w| w.reth.rkey = Rkey::new(0x9999));
    r.checks(&["RCV-QP-001"]);
    r.inject(
        3_000,
        1,
        0xA001_0002,
        &edit(write(1, 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None), |w| {
            w.bth.dest_qp = Qpn::new(0x99)
        }),
    );
    r.checks(&["RCV-CHECK-001", "RCV-WIN-002"]);
    r.inject(
        4_000,
        2,
        0xA002_0003,
        &bad_key(write(200, 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None)),
    );
    r.checks(&["RCV-CHECK-001"]);
    r.inject(
        5_000,
        3,
        0xA003_0004,
        &bad_key(write(1, 1, Opcode::MRC_WRITE_ONLY, 0, PMTU + 8, PMTU + 8, REGION, None)),
    );
    r.checks(&["RCV-CHECK-001", "RCV-DUP-001", "FLAG-LAST-001"]);
    r.inject(
        6_000,
        0,
        0xA000_0001,
        &bad_key(write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None)),
    );
    r.checks(&["RCV-CHECK-001", "RCV-NAK-002"]);
    r.inject(
        7_000,
        1,
        0xA001_0002,
        &bad_key(write(1, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x100, None)),
    );
    done(r, 20_000)
}

/// A QP of a shared domain fails with a complete message waiting: the message is removed
/// and never retires.
pub(super) fn ret_error_removes_entries() -> Scenario {
    let mut m = manifest(
        "ret-error-removes-entries",
        "Two QPs share a retirement domain. QP A's message 0 is incomplete, so QP B's \
         complete message 1 waits; then B receives a Write-with-Immediate far beyond \
         wwi_limit and fails, and its message 1 is removed from the table. When A's last \
         packet arrives, message 0 retires with its flag and the pointer passes over MSN 1: \
         B's message never retires and writes no flag.",
        &[
            "RET-ERR-001",
            "FLAG-RECV-003",
            "RET-ORDER-001",
            "WWI-LIMIT-002",
            "REC-IF-009",
            "RCV-NACK-001",
            "NETH-LAYOUT-001",
            "AETH-LAYOUT-001",
        ],
        &[
            Capability::Responder,
            Capability::Retirement,
            Capability::SharedRetirement,
            Capability::WriteImmediate,
            Capability::Ipv4,
        ],
    );
    m.nic.wwi_limit = 4;
    let mut r = Recorder::new(m);
    two_qps(&mut r, 0, 0);
    let total = 2 * PMTU;
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None),
    );
    let b = edit_qp(
        write(0, 1, Opcode::MRC_WRITE_ONLY, 0, 128, 128, REGION + 0x8_0000, None),
        DUT_QP + 1,
    );
    r.inject(2_000, 1, 0xA001_0002, &b);
    r.checks(&["WWI-LIMIT-002", "RET-ERR-001"]);
    let far = edit_qp(
        edit(write(1, 2, Opcode::MRC_WRITE_ONLY_IMM, 0, 64, 64, REGION + 0x9_0000, Some(7)), |w| {
            w.meth.rqmsn = Rqmsn::new(100)
        }),
        DUT_QP + 1,
    );
    r.inject(3_000, 2, 0xA002_0003, &far);
    r.checks(&["RET-ERR-001", "FLAG-RECV-003", "RET-ORDER-001"]);
    r.inject(
        6_000,
        3,
        0xA003_0004,
        &write(1, 0, Opcode::MRC_WRITE_LAST, 1, PMTU, total, REGION, None),
    );
    done(r, 20_000)
}

/// A QP of a shared domain fails: its pending message no longer holds back the domain.
pub(super) fn ret_error_releases_domain() -> Scenario {
    let mut m = manifest(
        "ret-error-releases-domain",
        "Two QPs share a retirement domain. QP A's message 0 is incomplete, so QP B's \
         complete message 1 waits; then A receives a Write-with-Immediate far beyond \
         wwi_limit and fails: its message 0 is removed without a flag, and B's message 1 \
         retires at once with its flag and transport ACK.",
        &[
            "RET-ERR-001",
            "FLAG-RECV-003",
            "RET-ORDER-001",
            "WWI-LIMIT-002",
            "REC-IF-009",
            "RCV-ACK-003",
            "RCV-NACK-001",
            "NETH-LAYOUT-001",
            "AETH-LAYOUT-001",
        ],
        &[
            Capability::Responder,
            Capability::Retirement,
            Capability::SharedRetirement,
            Capability::WriteImmediate,
            Capability::Ipv4,
        ],
    );
    m.nic.wwi_limit = 4;
    let mut r = Recorder::new(m);
    two_qps(&mut r, 0, 0);
    r.checks(&["RET-ORDER-001"]);
    let total = 2 * PMTU;
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None),
    );
    let b = edit(write(0, 1, Opcode::MRC_WRITE_ONLY, 0, 128, 128, REGION + 0x8_0000, None), |w| {
        w.bth.dest_qp = Qpn::new(DUT_QP + 1)
    });
    r.inject(2_000, 1, 0xA001_0002, &b);
    r.checks(&["RET-ERR-001", "RCV-ACK-003"]);
    let far =
        edit(write(1, 2, Opcode::MRC_WRITE_ONLY_IMM, 0, 64, 64, REGION + 0x4_0000, Some(7)), |w| {
            w.meth.rqmsn = Rqmsn::new(100)
        });
    r.inject(5_000, 2, 0xA002_0003, &far);
    done(r, 20_000)
}

/// More PSNs behind a hole than the bitmap holds.
pub(super) fn rcv_ooo_count_high() -> Scenario {
    let mut r = responder(
        "rcv-ooo-count-high",
        "One-packet messages at PSNs 1 to 70 arrive before PSN 0, each answered at once with \
         a SACK whose ooo_count counts every one of them, past the 64 PSNs the bitmap holds; \
         PSN 0 then retires all 71 messages.",
        &["CCS-OOO-001", "RCV-SACK-007", "RCV-PLACE-003"],
    );
    setup(&mut r, 0, false);
    let one = |psn: u32| {
        let va = REGION + u64::from(psn) * 0x100;
        write(psn, psn as u16, Opcode::MRC_WRITE_ONLY, 0, 64, 64, va, None)
    };
    for psn in 1..=70u32 {
        r.checks(&["CCS-OOO-001", "RCV-SACK-007"]);
        r.inject(1_000 * u64::from(psn), (psn % 4) as u16, 0xA000_0001 + (psn << 16), &one(psn));
    }
    r.checks(&["RCV-PLACE-003", "CCS-OOO-001"]);
    r.inject(72_000, 0, 0xA048_0049, &one(0));
    done(r, 100_000)
}
