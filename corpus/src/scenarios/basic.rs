//! The first responder and requester scenarios: in-order delivery, loss, SACK and ACK
//! timing, PSN wrap, window edges, retirement modes.

use super::*;

pub(super) fn in_order(name: &str, link: Link) -> Scenario {
    let mut m = manifest(
        name,
        "The peer writes three messages in order (one of one packet, one of three, one \
         Write-with-Immediate of two); the device places every packet, SACKs on AckReq, \
         retires each message with its flag and immediate, and acknowledges it.",
        &[
            "RCV-PLACE-003",
            "RCV-SACK-001",
            "RCV-SACK-005",
            "RET-ORDER-001",
            "RET-FLAG-001",
            "RCV-ACK-001",
            "CQE-RECV-001",
            "FLAG-ORDER-001",
        ],
        &[Capability::Responder, Capability::Retirement, Capability::WriteImmediate],
    );
    m.requires.insert(if link.is_ipv6() { Capability::Ipv6 } else { Capability::Ipv4 });
    m.link = link;
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    r.checks(&["RCV-PLACE-003", "RCV-SACK-001"]);
    let base = REGION;
    r.inject(1_000, 0, 0xA000_0001, &write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 700, 700, base, None));
    let total = 2 * PMTU + 300;
    let b1 = base + 0x10_000;
    r.inject(
        2_000,
        1,
        0xA001_0002,
        &write(1, 1, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, b1, None),
    );
    r.inject(
        2_100,
        2,
        0xA002_0003,
        &write(2, 1, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, b1, None),
    );
    r.inject(2_200, 3, 0xA003_0004, &write(3, 1, Opcode::MRC_WRITE_LAST, 2, 300, total, b1, None));
    let b2 = base + 0x20_000;
    let total = PMTU + 8;
    r.inject(
        3_000,
        0,
        0xA004_0005,
        &write(4, 2, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, b2, None),
    );
    r.inject(
        3_100,
        1,
        0xA005_0006,
        &write(5, 2, Opcode::MRC_WRITE_LAST_IMM, 1, 8, total, b2, Some(0xFEED)),
    );
    done(r, 20_000)
}

pub(super) fn rcv_in_order_v4() -> Scenario {
    in_order("rcv-in-order-v4", Link::default())
}

pub(super) fn rcv_in_order_v6() -> Scenario {
    let link = Link {
        local_ip: "fd00::1".parse().expect("literal"),
        peer_ip: "fd00::2".parse().expect("literal"),
        ..Link::default()
    };
    in_order("rcv-in-order-v6", link)
}

/// The device sends six messages to a reference peer; the first transmission of each PSN
/// in `drops` is lost in the fabric and must be retransmitted once, by SACK inference.
pub(super) fn snd_loss(name: &str, drops: &[u32]) -> Scenario {
    let mut m = manifest(
        name,
        "The device sends messages to a reference peer over four paths; the first \
         transmissions of some PSNs are lost; the device retransmits exactly those, once, \
         with rtx set, on other EVs, and completes every message in order. Each message is \
         3 bytes short of two PMTUs, so its last packet has pad 3 and its first none: a \
         retransmission carries its own pad, whatever the packet sent before it.",
        &[
            "SND-INFER-001",
            "SND-RTX-001",
            "SND-RTX-002",
            "SND-RTX-003",
            "SND-RTX-004",
            "CQE-SEND-001",
        ],
        &[Capability::Requester, Capability::Ipv4],
    );
    m.nic.retirement = RetirementMode::PerQp;
    // The device chooses its paths; the recorded acknowledgements come from the reference's
    // choices. Over paths of equal delay the peer receives in sending order whatever the
    // choice, so its SACKs are true for any spray policy (`CONF-GEN-007`). A device may infer
    // a loss later than the reference (from its own paths) or leave it to the timeout: a
    // retransmission may come up to one RTO late.
    m.tolerances.late_ns = m.recovery.rto.as_nanos() as u64 + 8_000;
    let mut r = Recorder::new(m);
    r.paths((0..4).map(|_| Path { delay: 500, dark: None }).collect());
    r.with_peer();
    setup_v4_pair(&mut r, 0);
    let drops: Vec<(u32, u32)> = drops.iter().map(|&p| (PEER_QP, p)).collect();
    r.drop_data(&drops);
    r.checks(&["SND-RTX-001", "SND-INFER-001"]);
    for k in 0..6u32 {
        let wr = WorkRequest {
            wr_id: u64::from(k),
            qpn: Qpn::new(DUT_QP),
            opcode: WrOpcode::WRITE,
            local_va: 0x4000_0000 + u64::from(k) * 0x1_0000,
            lkey: Lkey::new(1),
            remote_va: REGION + u64::from(k) * 0x1_0000,
            rkey: RKEY,
            length: 2 * PMTU - 3,
            imm: None,
            flag_slot: k,
            signaled: true,
        };
        r.host(1_000, HostCommand::PostWrite(wr));
    }
    done(r, 200_000)
}

pub(super) fn responder(name: &str, description: &str, reqs: &[&str]) -> Recorder {
    let m = manifest(
        name,
        description,
        reqs,
        &[Capability::Responder, Capability::Retirement, Capability::Ipv4],
    );
    Recorder::new(m)
}

/// A three-packet message whose LAST packet (with AckReq) arrives first.
pub(super) fn rcv_last_packet_first() -> Scenario {
    let mut r = responder(
        "rcv-last-packet-first",
        "The last packet of a three-packet message arrives first, then the other two out of \
         order: each is placed on arrival, every SACK tells only the truth, and the flag is \
         written after the last byte is placed.",
        &["RCV-PLACE-003", "RCV-SACK-001", "SETH-CACK-001", "SETH-BITMAP-001", "FLAG-ORDER-001"],
    );
    setup(&mut r, 0, false);
    r.checks(&["RCV-SACK-001", "FLAG-ORDER-001"]);
    let total = 2 * PMTU + 100;
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(2, 0, Opcode::MRC_WRITE_LAST, 2, 100, total, REGION, None),
    );
    r.inject(
        1_500,
        1,
        0xA001_0002,
        &write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None),
    );
    r.inject(
        2_000,
        2,
        0xA002_0003,
        &write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None),
    );
    done(r, 20_000)
}

/// Two packets without AckReq and fewer than `sack_coalesce`: only the timer acknowledges.
pub(super) fn rcv_sack_timer() -> Scenario {
    let mut r = responder(
        "rcv-sack-timer",
        "Two in-order packets of a longer message arrive without AckReq, fewer than the \
         coalescing count, and nothing follows: the SACK timer acknowledges them within \
         sack_delay, so a quiet sender or a lost SACK cannot stall the connection.",
        &["RCV-SACK-004", "RCV-SACK-002"],
    );
    setup(&mut r, 0, false);
    r.checks(&["RCV-SACK-004"]);
    let total = 4 * PMTU;
    let mut p0 = write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None);
    let mut p1 = write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None);
    for p in [&mut p0, &mut p1] {
        if let Packet::Write(w) = p {
            w.bth.ack_req = false;
        }
    }
    r.inject(1_000, 0, 0xA000_0001, &p0);
    r.inject(1_100, 0, 0xA000_0001, &p1);
    done(r, 20_000)
}

/// Writes that come while the SACK timer runs do not start it again.
pub(super) fn rcv_sack_timer_running() -> Scenario {
    let mut r = responder_with(
        "rcv-sack-timer-running",
        "Three packets of a longer message arrive without AckReq, fewer than the coalescing \
         count, each less than sack_delay (5 us) after the one before: the first starts the \
         SACK timer and the second, 2.4 us later, finds it running and leaves it, so its SACK \
         goes 5 us after the first; the third, after that expiry, starts it again. A timer \
         that every write restarts sends nothing until 5 us after the third.",
        &["RCV-SACK-004", "RCV-SACK-001", "RCV-SACK-002"],
        |m| {
            tight_sack_timing(m);
            m.nic.sack_coalesce = 8;
        },
    );
    setup(&mut r, 0, false);
    r.checks(&["RCV-SACK-004"]);
    let total = 4 * PMTU;
    let pkt = |psn: u32, op: Opcode| quiet(write(psn, 0, op, psn, PMTU, total, REGION, None));
    r.inject(1_000, 0, 0xA000_0001, &pkt(0, Opcode::MRC_WRITE_FIRST));
    r.inject(3_400, 1, 0xA001_0002, &pkt(1, Opcode::MRC_WRITE_MIDDLE));
    r.inject(7_000, 2, 0xA002_0003, &pkt(2, Opcode::MRC_WRITE_MIDDLE));
    r.checks(&["RCV-SACK-001"]);
    r.inject(
        20_000,
        3,
        0xA003_0004,
        &write(3, 0, Opcode::MRC_WRITE_LAST, 3, PMTU, total, REGION, None),
    );
    done(r, 40_000)
}

/// The transport-ACK scenarios' setting: an ACK for every three retirements, the rest left
/// to a 5 us SACK timer.
fn acks_every_three(m: &mut Manifest) {
    m.nic.ack_coalesce = 3;
    m.nic.sack_delay = std::time::Duration::from_micros(5);
    m.tolerances.late_ns = 2_000;
}

/// One-packet message `k` (PSN and MSN `k`), 64 bytes at its own place in the region.
fn one_packet_write(k: u32) -> Packet {
    write(k, k as u16, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x100 * u64::from(k), None)
}

/// Transport ACKs coalesced over `ack_coalesce` retirements, the rest owed to the SACK timer
/// whatever SACKs go out meanwhile.
pub(super) fn rcv_ack_coalesce() -> Scenario {
    let mut r = responder_with(
        "rcv-ack-coalesce",
        "Five one-packet messages with AckReq arrive 100 ns apart with ack_coalesce 3: each is \
         SACKed at once; the third retirement reaches the count and is acknowledged at once, \
         ahead of its SACK; the fourth and fifth are acknowledged by the SACK timer, started \
         by the fourth retirement, although the SACKs sent meanwhile reset the SACK count.",
        &["RCV-ACK-001", "RCV-SACK-008", "RCV-ACK-002"],
        acks_every_three,
    );
    setup(&mut r, 0, false);
    let one = one_packet_write;
    r.checks(&["RCV-ACK-001", "RCV-ACK-002"]);
    for k in 0..3u32 {
        r.inject(1_000 + 100 * u64::from(k), (k % 4) as u16, 0xA000_0001 + k * 0x1_0000, &one(k));
    }
    r.checks(&["RCV-SACK-008", "RCV-ACK-001"]);
    for k in 3..5u32 {
        r.inject(1_000 + 100 * u64::from(k), (k % 4) as u16, 0xA000_0001 + k * 0x1_0000, &one(k));
    }
    done(r, 20_000)
}

/// A transport NAK resets the count of retired messages, as an ACK does.
pub(super) fn rcv_nak_resets_ack_count() -> Scenario {
    let mut r = responder_with(
        "rcv-nak-resets-ack-count",
        "With ack_coalesce 3, two one-packet messages retire; the third arrives with an rkey \
         that names no region and is NAKed, which resets the count of retired messages; it \
         comes again with the right rkey and retires, and a fourth retires after it: the \
         count is two, so no ACK goes at once, and the SACK timer acknowledges both.",
        &["RCV-NAK-002", "RCV-ACK-001", "RCV-ACK-002", "RCV-PLACE-002"],
        acks_every_three,
    );
    setup(&mut r, 0, false);
    let one = one_packet_write;
    r.checks(&["RCV-ACK-001"]);
    r.inject(1_000, 0, 0xA000_0001, &one(0));
    r.inject(1_100, 1, 0xA001_0002, &one(1));
    r.checks(&["RCV-PLACE-002", "RCV-NAK-002"]);
    r.inject(1_200, 2, 0xA002_0003, &edit(one(2), |w| w.reth.rkey = Rkey::new(0x9999)));
    r.checks(&["RCV-NAK-002", "RCV-ACK-001", "RCV-ACK-002"]);
    r.inject(1_300, 3, 0xA003_0004, &edit(one(2), |w| w.bth.rtx = true));
    r.inject(1_400, 0, 0xA000_0001, &one(3));
    done(r, 20_000)
}

/// Transport ACKs owed to the SACK timer with no SACK sent between the retirement and the
/// expiry: the timer alone acknowledges them.
pub(super) fn rcv_ack_timer_alone() -> Scenario {
    let mut r = responder_with(
        "rcv-ack-timer-alone",
        "With ack_coalesce 3, a one-packet message with AckReq is SACKed at once and retires, \
         which starts the SACK timer: its expiry, 5 us later, sends the transport ACK and no \
         SACK. A second message without AckReq starts the timer by its write and retires: \
         the expiry sends its SACK and its ACK. No SACK goes out between a retirement and \
         the expiry that acknowledges it.",
        &["RCV-ACK-001", "RCV-SACK-004", "RCV-ACK-002"],
        acks_every_three,
    );
    setup(&mut r, 0, false);
    let one = one_packet_write;
    r.checks(&["RCV-ACK-001", "RCV-ACK-002"]);
    r.inject(1_000, 0, 0xA000_0001, &one(0));
    r.checks(&["RCV-ACK-001", "RCV-SACK-004", "RCV-ACK-002"]);
    r.inject(10_000, 1, 0xA001_0002, &quiet(one(1)));
    done(r, 30_000)
}

/// Packet `seg` (0, 1 or 2) of a message of three packets, `2 * PMTU + 64` bytes at `base`.
fn of_three(psn: u32, msn: u16, seg: u32, base: u64) -> Packet {
    let (opcode, len) = match seg {
        0 => (Opcode::MRC_WRITE_FIRST, PMTU),
        1 => (Opcode::MRC_WRITE_MIDDLE, PMTU),
        _ => (Opcode::MRC_WRITE_LAST, 64),
    };
    write(psn, msn, opcode, seg, len, 2 * PMTU + 64, base, None)
}

/// Messages across the PSN wrap at 2^24.
pub(super) fn rcv_psn_wrap() -> Scenario {
    let mut r = responder(
        "rcv-psn-wrap",
        "The connection starts three PSNs before the wrap at 2^24; two messages of three \
         packets cross it, the second out of order: its middle packet, after the wrap, \
         arrives before the last packet of the first, while epsn is still before the wrap. \
         Every PSN after the wrap is new and is placed; SACKs and retirement run across the \
         wrap.",
        &["BTH-PSN-001", "BTH-PSN-002", "RCV-WIN-001", "RCV-PLACE-003"],
    );
    let start = (1 << 24) - 3;
    setup(&mut r, start, false);
    r.checks(&["BTH-PSN-002", "RCV-WIN-001"]);
    let psn = |k: u32| (start + k) & 0xFF_FFFF;
    let b = REGION + 0x10_000;
    r.inject(1_000, 0, 0xA000_0001, &of_three(psn(0), 0, 0, REGION));
    r.inject(1_100, 1, 0xA001_0002, &of_three(psn(1), 0, 1, REGION));
    // The middle packet of the second message, after the wrap, arrives while epsn is
    // still before it: new, although its PSN is below epsn as a plain number.
    r.inject(1_150, 0, 0xA000_0001, &of_three(psn(4), 1, 1, b));
    r.inject(1_200, 2, 0xA002_0003, &of_three(psn(2), 0, 2, REGION));
    r.inject(2_100, 1, 0xA001_0002, &of_three(psn(3), 1, 0, b));
    r.inject(2_200, 2, 0xA002_0003, &of_three(psn(5), 1, 2, b));
    done(r, 20_000)
}

/// One message whose packets cross the PSN wrap: every packet lands at its own RETH va.
pub(super) fn rcv_psn_wrap_in_message() -> Scenario {
    let mut r = responder(
        "rcv-psn-wrap-in-message",
        "The connection starts two PSNs before the wrap at 2^24; one message of three \
         packets crosses it, its last packet at PSN 0. Each packet is placed at its own \
         RETH va, whatever a placement engine would compute from the PSN distance to the \
         first packet on fewer than 24 bits, and the message retires across the wrap.",
        &["BTH-PSN-001", "RCV-PLACE-003"],
    );
    let start = (1 << 24) - 2;
    setup(&mut r, start, false);
    r.checks(&["BTH-PSN-001", "RCV-PLACE-003"]);
    let psn = |k: u32| (start + k) & 0xFF_FFFF;
    r.inject(1_000, 0, 0xA000_0001, &of_three(psn(0), 0, 0, REGION));
    r.inject(1_100, 1, 0xA001_0002, &of_three(psn(1), 0, 1, REGION));
    r.inject(1_200, 2, 0xA002_0003, &of_three(psn(2), 0, 2, REGION));
    done(r, 20_000)
}

/// The last PSN inside the window is accepted; the first outside gets a NACK.
pub(super) fn rcv_window_edges() -> Scenario {
    let mut r = responder(
        "rcv-window-edges",
        "With a window of 128 PSNs from epsn 0, PSN 127 is accepted and placed, PSN 128 is \
         answered with NACK PSN_OOR_WINDOW naming it, its EV and its timestamp, and \
         discarded, and PSN 0 then completes the first message.",
        &["RCV-WIN-001", "RCV-WIN-002", "RCV-NACK-001"],
    );
    window_edges(&mut r, 0);
    done(r, 20_000)
}

/// The window edges again over IPv6, from an initial PSN whose bits 23:16 are set, so that
/// every PSN bit of the NACK and the SACKs and both halves of the EV they reflect show.
pub(super) fn rcv_window_edges_high_v6() -> Scenario {
    let mut m = manifest(
        "rcv-window-edges-high-v6",
        "Over IPv6, with a window of 128 PSNs from epsn 0xAB0000, PSN 0xAB007F is accepted \
         and placed, PSN 0xAB0080 is answered with a NACK naming its PSN, with all 24 bits, \
         its EV, with the flow-label half, and its timestamp, and PSN 0xAB0000 then \
         completes the first message.",
        &["RCV-WIN-001", "RCV-WIN-002", "RCV-NACK-001", "NETH-PSN-001", "SETH-CACK-001"],
        &[Capability::Responder, Capability::Retirement, Capability::Ipv6],
    );
    m.link = Link {
        local_ip: "fd00::1".parse().expect("literal"),
        peer_ip: "fd00::2".parse().expect("literal"),
        ..Link::default()
    };
    let mut r = Recorder::new(m);
    window_edges(&mut r, 0xAB_0000);
    done(r, 20_000)
}

/// PSN `start + 127` inside the window, `start + 128` outside, then `start`.
fn window_edges(r: &mut Recorder, start: u32) {
    setup(r, start, false);
    let b = REGION + 0x40_000;
    let psn = |k: u32| (start + k) & 0xFF_FFFF;
    r.checks(&["RCV-WIN-001"]);
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(psn(127), 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, b, None),
    );
    r.checks(&["RCV-WIN-002"]);
    // A timestamp the NACK must reflect (NETH-TS-001).
    let stamped = |p| {
        edit(p, |w| {
            if let Some(t) = w.tseth.as_mut() {
                t.tx_timestamp = 0x5A5A;
            }
        })
    };
    r.inject(
        2_000,
        1,
        0xA001_0002,
        &stamped(write(psn(128), 2, Opcode::MRC_WRITE_ONLY, 0, 64, 64, b + 0x1000, None)),
    );
    r.checks(&["RCV-WIN-001"]);
    r.inject(
        3_000,
        2,
        0xA002_0003,
        &write(psn(0), 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None),
    );
}

/// The peer's transport ACK is lost: it resends the last packet; the duplicate must be
/// answered with the ACK again.
pub(super) fn rcv_lost_ack() -> Scenario {
    let mut r = responder(
        "rcv-lost-ack",
        "A one-packet message is placed, retired and acknowledged; the peer did not get the \
         ACK and resends the packet: the device places nothing, and answers the duplicate with \
         a SACK and the transport ACK again.",
        &["RCV-DUP-001", "RCV-DUP-002", "FLAG-LAST-001"],
    );
    setup(&mut r, 0, false);
    r.checks(&["RCV-DUP-002"]);
    let p = write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 256, 256, REGION, None);
    r.inject(1_000, 0, 0xA000_0001, &p);
    let mut again = p.clone();
    if let Packet::Write(w) = &mut again {
        w.bth.rtx = true;
    }
    r.inject(40_000, 1, 0xA001_0002, &again);
    done(r, 60_000)
}

/// Two QPs; the first message (QP A) is incomplete while QP B's completes: with a shared
/// sequence B waits for A, with per-QP retirement it does not.
pub(super) fn rcv_retirement(name: &str, mode: RetirementMode) -> Scenario {
    let shared = mode == RetirementMode::Shared;
    let mut m = manifest(
        name,
        if shared {
            "Two QPs share one retirement sequence: QP A's message 0 is missing a packet while \
             QP B's message 1 is complete, so B's flag waits until A's last packet arrives \
             (the paper's cross-QP head-of-line blocking)."
        } else {
            "Per-QP retirement: QP A's message 0 is missing a packet while QP B's message 0 is \
             complete; B retires at once, A when its last packet arrives."
        },
        &["RET-DOMAIN-001", "RET-ORDER-001", "FLAG-ORDER-001"],
        &[Capability::Responder, Capability::Retirement, Capability::Ipv4],
    );
    m.requires.insert(if shared {
        Capability::SharedRetirement
    } else {
        Capability::PerQpRetirement
    });
    m.nic.retirement = mode;
    let mut r = Recorder::new(m);
    two_qps(&mut r, 0, 0);
    r.checks(&["RET-ORDER-001"]);
    let total = 2 * PMTU;
    // QP A, MSN 0: only its first packet for now.
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None),
    );
    // QP B: its message (MSN 1 in the shared domain, 0 in its own).
    let b_msn = if shared { 1 } else { 0 };
    let mut b0 = write(0, b_msn, Opcode::MRC_WRITE_ONLY, 0, 512, 512, REGION + 0x80_000, None);
    if let Packet::Write(w) = &mut b0 {
        w.bth.dest_qp = Qpn::new(DUT_QP + 1);
    }
    r.inject(2_000, 1, 0xA001_0002, &b0);
    // QP A's last packet.
    r.inject(
        10_000,
        2,
        0xA002_0003,
        &write(1, 0, Opcode::MRC_WRITE_LAST, 1, PMTU, total, REGION, None),
    );
    done(r, 30_000)
}
