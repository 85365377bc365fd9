//! What a receiver accepts and what it does not take as RoCEv2; windows and congestion
//! control; retirement flag slots.

use super::*;

// ===== what a receiver accepts and what it does not take as RoCEv2 =======================

/// The frame of `packet` from the peer on the default link, changed by `f` after its
/// lengths and checksums are made consistent and changed by `g` after that (for fields
/// that `finalize` would reset).
pub(super) fn crafted(
    packet: &Packet,
    ev: impl Into<Ev>,
    f: impl FnOnce(&mut FrameRepr),
    g: impl FnOnce(&mut FrameRepr),
) -> Vec<u8> {
    crafted_on(&Link::default(), packet, ev, f, g)
}

/// [`crafted`] on another link.
pub(super) fn crafted_on(
    link: &Link,
    packet: &Packet,
    ev: impl Into<Ev>,
    f: impl FnOnce(&mut FrameRepr),
    g: impl FnOnce(&mut FrameRepr),
) -> Vec<u8> {
    let ev = ev.into();
    let outer = Outer::from_link(&link.reversed());
    let mut frame =
        packet.to_frame(&outer, ev, &mut |a, l| memory(a, l)).expect("a builder's packet");
    f(&mut frame);
    frame.finalize().expect("consistent");
    g(&mut frame);
    frame.to_bytes().expect("emit")
}

/// Reserved and unusual values a receiver must accept; frames that are not RoCEv2.
pub(super) fn rcv_lenient() -> Scenario {
    let mut r = responder(
        "rcv-lenient",
        "One-packet messages arrive with what a receiver must not reject: a non-zero BTH \
         tver, FECN, BECN and reserved bits; a TSETH with another ftype and reserved bits \
         set; non-zero pad bytes; IPv4 options; Ethernet padding after the IP packet; an \
         802.1ad tag (TPID 0x88A8). Each is placed and retired. Frames that are not RoCEv2 \
         for this QP (an IPv4 fragment, another UDP destination port, an RC opcode) are \
         ignored without response, and the same PSNs then arrive properly and are placed. \
         Each frame carries one unusual value only.",
        &[
            "BTH-TVER-001",
            "BTH-RESV-002",
            "DEC-RESV-001",
            "TSETH-FTYPE-001",
            "PAY-PAD-002",
            "ENC-IPV4-006",
            "ENC-LEN-003",
            "ENC-VLAN-002",
            "ENC-IPV4-002",
            "ENC-UDP-001",
            "ENC-ROCE-001",
            "RCV-OPC-001",
            "RCV-PLACE-003",
            "RET-ORDER-001",
        ],
    );
    setup(&mut r, 0, false);
    let one = |psn: u32, len: u32| {
        write(
            psn,
            psn as u16,
            Opcode::MRC_WRITE_ONLY,
            0,
            len,
            len,
            REGION + u64::from(psn) * 0x1000,
            None,
        )
    };
    let ev = 0xA000_0000;
    let nothing = |_: &mut FrameRepr| {};
    // One unusual field a frame, so that a receiver that rejects one of them is named by
    // that field's rule alone.
    r.checks(&["BTH-TVER-001"]);
    r.inject_bytes(1_000, 0, crafted(&one(0, 64), ev, |f| f.bth.tver = 1, nothing));
    r.checks(&["BTH-RESV-002"]);
    let b = crafted(
        &one(1, 64),
        ev,
        |f| {
            f.bth.fecn = true;
            f.bth.becn = true;
            f.bth.resv6 = 0x3F;
        },
        nothing,
    );
    r.inject_bytes(1_300, 0, b);
    r.checks(&["DEC-RESV-001"]);
    r.inject_bytes(1_600, 0, crafted(&one(2, 64), ev, |f| f.bth.resv8 = 0x4F, nothing));
    r.checks(&["TSETH-FTYPE-001"]);
    let b = crafted(
        &one(3, 64),
        ev,
        |f| {
            if let Some(t) = f.ext.tseth.as_mut() {
                t.ftype = 5;
            }
        },
        nothing,
    );
    r.inject_bytes(2_000, 0, b);
    r.checks(&["DEC-RESV-001"]);
    let b = crafted(
        &one(4, 64),
        ev,
        |f| {
            if let Some(t) = f.ext.tseth.as_mut() {
                t.tsr = true;
                t.resv = 0x7FF;
            }
        },
        nothing,
    );
    r.inject_bytes(2_500, 0, b);
    r.checks(&["PAY-PAD-002"]);
    r.inject_bytes(3_000, 0, crafted(&one(5, 61), ev, nothing, |f| f.pad = [0xAA; 3]));
    r.checks(&["ENC-IPV4-006"]);
    let b = crafted(
        &one(6, 64),
        ev,
        |f| {
            if let IpRepr::V4(v4) = &mut f.ip {
                v4.ihl = 6;
                v4.options = vec![1, 1, 1, 0];
            }
        },
        nothing,
    );
    r.inject_bytes(4_000, 0, b);
    r.checks(&["ENC-LEN-003"]);
    r.inject_bytes(5_000, 0, crafted(&one(7, 4), ev, nothing, |f| f.eth_padding = vec![0x55; 20]));
    r.checks(&["ENC-VLAN-002"]);
    let b = crafted(
        &one(8, 64),
        ev,
        |f| {
            f.vlans = vec![VlanRepr { pcp: 0, dei: false, vid: 42, ethertype: EtherType::IPV4 }];
            f.eth.ethertype = EtherType::QINQ;
        },
        nothing,
    );
    r.inject_bytes(6_000, 0, b);
    r.checks(&["ENC-IPV4-002"]);
    let b = crafted(
        &one(9, 64),
        ev,
        |f| {
            if let IpRepr::V4(v4) = &mut f.ip {
                v4.more_frags = true;
            }
        },
        nothing,
    );
    r.inject_bytes(7_000, 0, b);
    r.checks(&["ENC-UDP-001", "ENC-ROCE-001"]);
    r.inject_bytes(7_500, 0, crafted(&one(9, 64), ev, |f| f.udp.dst_port = 4792, nothing));
    r.checks(&["RCV-PLACE-003"]);
    r.inject(8_000, 0, ev, &one(9, 64));
    r.checks(&["RCV-OPC-001"]);
    let b = crafted(
        &one(10, 64),
        ev,
        |f| {
            f.bth.opcode = Opcode(0x0A);
            f.bth.ts = false;
            f.ext.meth = None;
            f.ext.tseth = None;
        },
        nothing,
    );
    r.inject_bytes(9_000, 0, b);
    r.checks(&["RCV-PLACE-003"]);
    r.inject(10_000, 0, ev, &one(10, 64));
    done(r, 20_000)
}

// ===== windows and congestion control =====================================================

/// A SACK with `mpr` changed.
pub(super) fn with_mpr(mut p: Packet, mpr: u8) -> Packet {
    if let Packet::Sack { seth, .. } = &mut p {
        seth.mpr = mpr;
    }
    p
}

/// Injects a SACK of everything up to `psn` with `mpr`, on the EV the device used for `psn`.
fn sack_with_mpr(r: &mut Recorder, at: u64, psn: u32, mpr: u8) {
    r.run_until(at);
    let ev = r.sent_ev(PEER_QP, psn).expect("sent");
    r.inject(at, port_of(ev, 4), ev, &with_mpr(sack_in(psn, 0, psn, WireMark::NONE, ev), mpr));
}

/// The peer's SACK shrinks the window; the sender never sends past it.
pub(super) fn snd_window() -> Scenario {
    let mut r = evs_sender(
        "snd-window",
        "With mpr 3 (a window of 384 PSNs) and a PMTU of 256, a one-packet message is \
         SACKed with mpr 2: the peer's window becomes 256 PSNs. A message of 263 packets \
         then sends PSNs 1 to 256 only; a SACK with cumulative PSN 3 and mpr 0 (which \
         leaves the window as it is) lets PSNs 257 to 259 go, and one with cumulative PSN \
         10 the rest.",
        &[
            "SND-WIN-001",
            "SND-WIN-002",
            "SND-SACK-001",
            "SND-SEG-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.nic.mpr = 3;
            m.nic.pmtu = 256;
        },
    );
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.run_until(2_000);
    let ev = r.sent_ev(PEER_QP, 0).expect("sent");
    r.inject(2_000, 0, ev, &with_mpr(sack_in(0, 0, 0, WireMark::NONE, ev), 2));
    inject_ack(&mut r, 2_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["SND-WIN-001", "SND-WIN-002"]);
    r.host(3_000, HostCommand::PostWrite(wr(1, 263 * 256, None, true)));
    r.run_until(6_000);
    let ev = r.sent_ev(PEER_QP, 3).expect("sent");
    r.checks(&["SND-WIN-001", "SND-WIN-002", "SND-SACK-001"]);
    r.inject(6_000, 0, ev, &with_mpr(sack_in(3, 0, 3, WireMark::NONE, ev), 0));
    r.checks(&["SND-WIN-001", "SND-WIN-002", "SND-SACK-001"]);
    // The peer keeps its window of 256 PSNs in every later SACK.
    sack_with_mpr(&mut r, 8_000, 10, 2);
    sack_with_mpr(&mut r, 9_000, 263, 2);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_ack(&mut r, 9_000, 263, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// The sender's own window, with a peer that never advertises one (every SACK has mpr 0).
pub(super) fn snd_window_own() -> Scenario {
    let mut r = evs_sender(
        "snd-window-own",
        "With mpr 1 (a window of 128 PSNs) and a PMTU of 256, the peer's SACKs all carry \
         mpr 0, which leaves the peer's window at the sender's own. A message of 135 \
         packets sends PSNs 0 to 127 only; a NACK TRIMMED for PSN 5 while the window is \
         full is retransmitted at once, the window not holding it back; a SACK with \
         cumulative PSN 3 lets PSNs 128 to 131 go, and one with cumulative PSN 10 the rest.",
        &[
            "SND-WIN-001",
            "SND-WIN-002",
            "SND-WIN-003",
            "SND-NACK-002",
            "SND-SACK-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.nic.mpr = 1;
            m.nic.pmtu = 256;
        },
    );
    r.checks(&["SND-WIN-001", "SND-WIN-002"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 135 * 256, None, true)));
    r.checks(&["SND-WIN-003", "SND-NACK-002"]);
    inject_nack(&mut r, 1_500, 5, NackReason::TRIMMED);
    r.run_until(4_000);
    r.checks(&["SND-WIN-001", "SND-SACK-001"]);
    let ev = r.sent_ev(PEER_QP, 3).expect("sent");
    r.inject(4_000, port_of(ev, 4), ev, &with_mpr(sack_in(3, 0, 3, WireMark::NONE, ev), 0));
    sack_with_mpr(&mut r, 6_000, 10, 0);
    sack_with_mpr(&mut r, 8_000, 134, 0);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_ack(&mut r, 8_000, 134, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// The peer's window starts at the sender's own: more than 128 PSNs go before any SACK.
pub(super) fn snd_window_initial() -> Scenario {
    let mut r = evs_sender(
        "snd-window-initial",
        "With mpr 2 (a window of 256 PSNs) and a PMTU of 256, a message of 200 packets is \
         posted before any SACK has come: the peer's window starts at the sender's own, so \
         PSNs 0 to 199 all go at once. A SACK with cumulative PSN 9 and mpr 0 moves snd_una to 10; \
         a stale SACK then comes, cumulative PSN 3 and bits for PSNs 5 to 8, with 190 PSNs \
         in flight: its bits stand for PSNs already acknowledged, and nothing follows from \
         them, though PSNs 133 to 136 lie 128 after them. A SACK with cumulative PSN 199 and \
         mpr 0 and an ACK complete it.",
        &[
            "SND-WIN-001",
            "SND-WIN-002",
            "SND-SEG-001",
            "SND-SACK-002",
            "SND-SACK-005",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.nic.mpr = 2;
            m.nic.pmtu = 256;
        },
    );
    r.checks(&["SND-WIN-001", "SND-WIN-002", "SND-SEG-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 200 * 256, None, true)));
    sack_with_mpr(&mut r, 6_000, 9, 0);
    // Stale: its bits stand for PSNs before snd_una, each 128 before a PSN in flight.
    r.checks(&["SND-SACK-002", "SND-SACK-005"]);
    r.run_until(7_000);
    let ev = r.sent_ev(PEER_QP, 8).expect("sent");
    r.inject(7_000, port_of(ev, 4), ev, &with_mpr(sack_in(3, 0b1_1110, 8, WireMark::NONE, ev), 0));
    sack_with_mpr(&mut r, 9_000, 199, 0);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_ack(&mut r, 9_000, 199, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// A fixed congestion window, released by the bitmap of a SACK; SACKs that acknowledge
/// what was never sent change nothing.
pub(super) fn snd_cc_sack() -> Scenario {
    let mut r = sender_with(
        "snd-cc-sack",
        "The QP's congestion hook is a fixed window of four PMTUs: an eleven-packet \
         message sends PSNs 0 to 3. A SACK claiming PSN 20 (never sent) and a SACK whose \
         sack_offset lies beyond any window are discarded and open nothing. A NACK \
         PSN_OOR_WINDOW queues PSN 0 for retransmission after the back-off; a SACK whose \
         bitmap reports PSNs 1 to 3 then frees three packets' worth of window, and PSNs 4 \
         to 6 go at once; the retransmission of PSN 0 goes when due although the window is \
         full. Cumulative SACKs release the rest.",
        &[
            "SND-CC-001",
            "SND-SACK-001",
            "SND-SACK-002",
            "SND-SACK-003",
            "SND-SACK-004",
            "SND-WIN-003",
            "SND-NACK-004",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.nic.nack_backoff = std::time::Duration::from_micros(2);
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs: v4_evs(DUT_QP, 4),
            cc: CongestionControl::FixedWindow { bytes: u64::from(4 * PMTU) },
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    r.checks(&["SND-CC-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 11 * PMTU, None, true)));
    r.checks(&["SND-SACK-003"]);
    inject_sack(&mut r, 1_500, 20, 0, 3, WireMark::NONE);
    r.checks(&["SND-SACK-004"]);
    r.run_until(1_800);
    let ev = r.sent_ev(PEER_QP, 3).expect("sent");
    let mut wild = sack_in(0xFF_FFFF, u64::MAX, 3, WireMark::NONE, ev);
    if let Packet::Sack { seth, .. } = &mut wild {
        seth.sack_offset = 1_000;
    }
    r.inject(1_800, 0, ev, &wild);
    r.checks(&["SND-NACK-004", "SND-WIN-003"]);
    inject_nack(&mut r, 2_000, 0, NackReason::PSN_OOR_WINDOW);
    r.checks(&["SND-SACK-002", "SND-CC-001"]);
    inject_sack(&mut r, 3_000, 0xFF_FFFF, 0b1110, 3, WireMark::NONE);
    r.checks(&["SND-SACK-001", "SND-CC-001"]);
    inject_sack(&mut r, 5_000, 6, 0, 6, WireMark::NONE);
    inject_sack(&mut r, 7_000, 10, 0, 10, WireMark::NONE);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_ack(&mut r, 7_000, 10, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// IPv6 frames a receiver must accept.
pub(super) fn rcv_lenient_v6() -> Scenario {
    let mut m = manifest(
        "rcv-lenient-v6",
        "Over IPv6, a write whose UDP checksum is 0 and a write whose flow label has bits \
         19:16 set (which carry no part of the EV) are accepted and placed like any other; \
         the SACK of the second reflects its EV without those bits.",
        &["ENC-UDP-004", "ENC-IPV6-001", "ENC-EV-001", "RCV-PLACE-003", "RET-ORDER-001"],
        &[Capability::Responder, Capability::Retirement, Capability::Ipv6],
    );
    m.link = v6_link();
    let link = m.link.clone();
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    let ev = 0xA000_0123;
    let nothing = |_: &mut FrameRepr| {};
    r.checks(&["ENC-UDP-004", "RCV-PLACE-003"]);
    let p0 = write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None);
    r.inject_bytes(1_000, 0, crafted_on(&link, &p0, ev, nothing, |f| f.udp.checksum = 0));
    r.checks(&["ENC-EV-001", "RCV-PLACE-003"]);
    let p1 = write(1, 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x1000, None);
    let b = crafted_on(
        &link,
        &p1,
        ev,
        |f| {
            if let IpRepr::V6(v6) = &mut f.ip {
                v6.flow_label |= 0xF_0000;
            }
        },
        nothing,
    );
    r.inject_bytes(2_000, 0, b);
    done(r, 20_000)
}

// ===== retirement flags ====================================================================

/// Retirement flags wrap around a QP's slots; a QP with a slot count that is not a power
/// of two has none.
pub(super) fn rcv_flag_slots() -> Scenario {
    let mut m = manifest(
        "rcv-flag-slots",
        "Per-QP retirement. QP A has four retirement flag slots: its six one-packet \
         messages write their flags at slots 0, 1, 2, 3, 0, 1, each with generation = MSN, \
         SUCCESS, the byte count, valid set and reserved bits clear. QP B has three slots, \
         not a power of two, so its messages retire without any flag.",
        &[
            "FLAG-RECV-001",
            "FLAG-RECV-002",
            "RET-FLAG-001",
            "FLAG-LAYOUT-001",
            "FLAG-VALID-001",
            "FLAG-RESV-001",
            "FLAG-TABLE-001",
            "FLAG-LEN-001",
            "RET-DOMAIN-003",
            "RCV-ACK-002",
        ],
        &[
            Capability::Responder,
            Capability::Retirement,
            Capability::PerQpRetirement,
            Capability::Ipv4,
        ],
    );
    m.nic.retirement = RetirementMode::PerQp;
    let mut r = Recorder::new(m);
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(QpConfig { recv_flag_slots: 4, ..qp(DUT_QP, PEER_QP, 0) }));
    let b = DUT_QP + 1;
    r.host(0, HostCommand::CreateQp(QpConfig { recv_flag_slots: 3, ..qp(b, PEER_QP + 1, 0) }));
    r.checks(&["FLAG-RECV-001", "FLAG-LAYOUT-001"]);
    for k in 0..6u32 {
        let len = 32 + 8 * k;
        let p = write(
            k,
            k as u16,
            Opcode::MRC_WRITE_ONLY,
            0,
            len,
            len,
            REGION + u64::from(k) * 0x100,
            None,
        );
        r.inject(1_000 + 500 * u64::from(k), (k % 4) as u16, 0xA000_0000 + (k % 4) * 0x1_0000, &p);
    }
    r.checks(&["RET-FLAG-001"]);
    for k in 0..2u32 {
        let p = edit_qp(
            write(
                k,
                k as u16,
                Opcode::MRC_WRITE_ONLY,
                0,
                64,
                64,
                REGION + 0x8_0000 + u64::from(k) * 0x100,
                None,
            ),
            b,
        );
        r.inject(5_000 + 500 * u64::from(k), 0, 0xA000_0000, &p);
    }
    done(r, 20_000)
}
