//! Register widths: scenarios whose values need every bit of their fields, so that a NIC
//! that keeps one of them in a narrower register diverges, at a check that names the rule
//! the truncation breaks (the faulty devices `faulty:va-32bit`, `faulty:len-16bit`,
//! `faulty:qpn-16bit`, `faulty:rkey-16bit`, `faulty:wr-id-32bit`, `faulty:cq-index-10bit`
//! and `faulty:range-carry`).
//!
//! * Addresses: a region around 2^32 with a packet crossing it and the flag table above it
//!   (`rcv-va-high`); a region ending at 2^64 − 1, a message ending there and two whose
//!   ranges reach or pass 2^64 (`rcv-va-top`); the sender's local and remote addresses above
//!   2^32 and up to 2^64 − 1, from work requests (`snd-va-high`) and from a template
//!   (`db-va-high`).
//! * Lengths: a message of 65 600 bytes, which needs 17 bits, in RETH `dma_len`, the flag's
//!   and the completion entry's `byte_len`, received (`rcv-length-17bit`) and sent
//!   (`snd-length-17bit`, and from a token of 1 025 length units, `db-length-17bit`).
//! * Token fields: a slot index with bit 15 set, whose immediate needs the carry out of
//!   bit 15 of `imm_base + index`, a token of exactly `max_length` and one for the last
//!   of 65 536 slots (`db-fields-high`).
//! * Identifiers: a 24-bit QPN and its peer's with their top bits set, a 32-bit rkey whose
//!   low 16 bits alias another region's, `wr_id` and immediates with bit 63 or 31 set
//!   (`rcv-ids-high`, `snd-ids-high`).
//! * Rings: a completion queue of 1 024 entries above 2^32, with a number above 2^16, that
//!   wraps, and flag tables of 1 024 slots that wrap with it (`ret-cq-wrap-1k`).
//!
//! * MSNs: new packets naming an MSN with bit 15 set, which a responder must place as
//!   retired by their 16-bit offset (RET-CAP-002) and discard, and which one that keeps
//!   MSNs in 15 bits takes for the next message and places; its completion queue holds
//!   2^16 entries, a count that needs 17 bits (`rcv-msn-high`).
//!
//! Not here, for their size. A domain whose next MSN reaches 2^15 or wraps at 2^16 (so
//! that the device's own MSNs, in METH, AETH, flags and entries, need bit 15) can only be
//! reached by 2^15 messages, the MSN having no configured start: even as zero-length
//! writes that is about 33 000 frames, 4.1 to 4.3 MB of pcapng, over the 4 MiB a tracked
//! file may take, and a replay longer than the rest of the corpus together. A completion
//! queue or flag table that wraps at 2^16 entries (about 12 MB) and a consumer count that
//! wraps at 2^32 are left out for the same reason.

use openrdma_device::{CqConfig, CqId};

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("rcv-va-high", rcv_va_high),
        ("rcv-va-top", rcv_va_top),
        ("snd-va-high", snd_va_high),
        ("db-va-high", db_va_high),
        ("rcv-length-17bit", rcv_length_17bit),
        ("snd-length-17bit", snd_length_17bit),
        ("db-length-17bit", db_length_17bit),
        ("db-fields-high", db_fields_high),
        ("rcv-ids-high", rcv_ids_high),
        ("snd-ids-high", snd_ids_high),
        ("ret-cq-wrap-1k", ret_cq_wrap_1k),
        ("rcv-msn-high", rcv_msn_high),
    ]
}

/// 2^32.
const G4: u64 = 1 << 32;
/// A device QP number with its top bits set.
const HIGH_QP: u32 = 0xFF_FF11;
/// Its peer's.
const HIGH_PEER: u32 = 0x80_0021;
/// A remote key with its top bits set.
const HIGH_RKEY: u32 = 0xFFFF_F234;
/// A message whose length needs 17 bits: 64 packets of the PMTU and one of 64 bytes.
const LEN_17: u32 = 65_600;

/// A message from the peer to device QP `qpn`.
#[derive(Clone, Copy)]
struct Msg {
    qpn: u32,
    rkey: u32,
    msn: u16,
    rqmsn: u16,
    va: u64,
    total: u32,
    imm: Option<u32>,
}

impl Msg {
    /// A Write of `total` bytes at `va` to the device's QP, under [`RKEY`].
    fn at(msn: u16, va: u64, total: u32) -> Msg {
        Msg { qpn: DUT_QP, rkey: RKEY.value(), msn, rqmsn: 1, va, total, imm: None }
    }
}

/// The packets of `m`, from PSN `psn`: each carries its own `va` (RETH-VA-002), the
/// message's length (RETH-LEN-003), and the payload of the memory at its `va`.
fn packets(m: &Msg, psn: u32) -> Vec<Packet> {
    let n = m.total.div_ceil(PMTU).max(1);
    (0..n)
        .map(|k| {
            let imm = m.imm.is_some();
            let opcode = match (n, k) {
                (1, _) if imm => Opcode::MRC_WRITE_ONLY_IMM,
                (1, _) => Opcode::MRC_WRITE_ONLY,
                (_, 0) => Opcode::MRC_WRITE_FIRST,
                (_, k) if k + 1 < n => Opcode::MRC_WRITE_MIDDLE,
                _ if imm => Opcode::MRC_WRITE_LAST_IMM,
                _ => Opcode::MRC_WRITE_LAST,
            };
            let len = if k + 1 < n { PMTU } else { m.total - k * PMTU };
            let va = m.va.wrapping_add(u64::from(k) * u64::from(PMTU));
            let mut bth = BthRepr::new(opcode, Qpn::new(m.qpn), Psn::new(psn + k));
            bth.ack_req = opcode.is_last();
            bth.ts = true;
            bth.pad_count = ((4 - len % 4) % 4) as u8;
            Packet::Write(WritePacket {
                bth,
                meth: MethRepr { rqmsn: Rqmsn::new(m.rqmsn), msn: Msn::new(m.msn) },
                tseth: Some(TsethRepr { tx_timestamp: 0, ftype: 1, ..TsethRepr::default() }),
                reth: RethRepr { va, rkey: Rkey::new(m.rkey), dma_len: m.total },
                immdt: if opcode.is_last() { m.imm.map(|imm| ImmDtRepr { imm }) } else { None },
                payload: Payload::Bytes(memory(va, len).into()),
            })
        })
        .collect()
}

/// Injects the packets of `m` from PSN `psn`, 1 us apart from `at` (a full frame takes
/// about 550 ns on a 64-bit interface at 250 MHz), over the four ports; returns the next
/// PSN.
fn send(r: &mut Recorder, at: u64, psn: u32, m: &Msg) -> u32 {
    let ps = packets(m, psn);
    let n = ps.len() as u32;
    for (k, p) in ps.iter().enumerate() {
        let k = k as u32;
        let q = psn + k;
        r.inject(at + 1_000 * u64::from(k), (q % 4) as u16, 0xA000_0001 + (q % 8) * 0x1_0000, p);
    }
    psn + n
}

fn remote(rkey: u32, base: u64, len: u64, remote_write: bool) -> HostCommand {
    HostCommand::RegisterRegion(Region { rkey: Rkey::new(rkey), base, len, remote_write })
}

/// A responder recorder that also needs `caps`.
fn responder_needing(
    name: &str,
    description: &str,
    reqs: &[&str],
    caps: &[Capability],
) -> Recorder {
    responder_with(name, description, reqs, |m| m.requires.extend(caps.iter().copied()))
}

// ===== addresses ==========================================================================

/// A region around 2^32, a packet crossing it, the flag table above it.
fn rcv_va_high() -> Scenario {
    let mut r = responder(
        "rcv-va-high",
        "The device's region starts 32 KiB below 2^32 and its retirement flag table lies \
         above 2^32. The peer writes three messages: one of three packets whose second \
         packet crosses 2^32 and whose third lies above it, one wholly above 2^32 and one \
         below. Each packet is placed at its 64-bit address, and each flag at its slot of \
         the table above 2^32.",
        &[
            "RCV-PLACE-003",
            "RCV-PLACE-002",
            "RETH-VA-002",
            "RET-FLAG-001",
            "FLAG-RECV-001",
            "FLAG-TABLE-001",
            "RCV-SACK-001",
            "RCV-ACK-001",
        ],
    );
    r.host(0, remote(RKEY.value(), G4 - 0x8000, 0x10_0000, true));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            recv_flag_base: 0x1_2000_0000,
            send_flag_base: 0x1_3000_0000,
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    r.checks(&["RCV-PLACE-003", "RETH-VA-002"]);
    let psn = send(&mut r, 1_000, 0, &Msg::at(0, G4 - 0x600, 3 * PMTU));
    let psn = send(&mut r, 5_000, psn, &Msg::at(1, G4 + 0x4_0000, 300));
    r.checks(&["RCV-PLACE-003", "RET-FLAG-001", "FLAG-TABLE-001"]);
    send(&mut r, 6_000, psn, &Msg::at(2, G4 - 0x7000, 700));
    done(r, 20_000)
}

/// A region ending at 2^64 − 1: a message ending there is placed; ranges that reach 2^64
/// are refused.
fn rcv_va_top() -> Scenario {
    let mut r = responder(
        "rcv-va-top",
        "The device's region is the last MiB of the 64-bit address space, up to 2^64 - 1. \
         A message of two packets ending exactly at 2^64 - 1 is placed. A packet of 1024 \
         bytes 512 bytes below 2^64, whose range passes 2^64, and a packet of 64 bytes whose \
         range ends at 2^64, one byte past the region, are each refused with a transport NAK \
         0x62 (remote access error) and place nothing, though a range computed modulo 2^64 \
         would lie inside; the same PSNs, sent inside the region, are then placed.",
        &[
            "RCV-PLACE-002",
            "RCV-NAK-002",
            "RCV-REJECT-001",
            "RCV-PLACE-003",
            "AETH-MRC-001",
            "AETH-SYN-001",
            "AETH-MSN-001",
            "RET-FLAG-001",
            "FLAG-LEN-001",
        ],
    );
    let base = 0u64.wrapping_sub(1 << 20);
    r.host(0, remote(RKEY.value(), base, (1 << 20) - 1, true));
    r.host(0, HostCommand::CreateQp(qp(DUT_QP, PEER_QP, 0)));
    r.checks(&["RCV-PLACE-003", "RET-FLAG-001", "FLAG-LEN-001"]);
    let total = PMTU + 511;
    let psn = send(&mut r, 1_000, 0, &Msg::at(0, u64::MAX - u64::from(total), total));
    r.checks(&["RCV-PLACE-002", "RCV-NAK-002"]);
    send(&mut r, 4_000, psn, &Msg::at(1, 0u64.wrapping_sub(512), PMTU));
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    let psn = send(&mut r, 5_000, psn, &Msg::at(1, base + 0x1000, PMTU));
    r.checks(&["RCV-PLACE-002", "RCV-NAK-002"]);
    send(&mut r, 6_000, psn, &Msg::at(2, 0u64.wrapping_sub(64), 64));
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    send(&mut r, 7_000, psn, &Msg::at(2, u64::MAX - 64, 64));
    done(r, 20_000)
}

/// The sender's addresses above 2^32 and at the top of the space, from work requests.
fn snd_va_high() -> Scenario {
    let mut r = sender_with(
        "snd-va-high",
        "The device's sender flag table lies above 2^32. It sends three work requests: one \
         of three packets from local memory above 2^32 to a remote address above 2^32, one \
         of a PMTU whose local and remote ranges both cross 2^32, and one of 512 bytes whose \
         remote and local ranges end at 2^64 - 1. Every packet's RETH va is its own 64-bit \
         address and its payload the bytes at its 64-bit local address; once acknowledged, \
         each writes its flag above 2^32.",
        &[
            "SND-SEG-003",
            "RETH-VA-002",
            "WR-EXEC-001",
            "WR-VA-001",
            "PAY-LEN-001",
            "FLAG-SEND-001",
            "FLAG-TABLE-001",
        ],
        |_| {},
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs: v4_evs(DUT_QP, 4),
            send_flag_base: 0x1_3000_0000,
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    let works = [
        (0x2_0000_0100, 0x3_0000_0040, 2 * PMTU + 100),
        (G4 - 0x200, G4 - 0x300, PMTU),
        (u64::MAX - 1024, u64::MAX - 512, 512),
    ];
    r.checks(&["SND-SEG-003", "RETH-VA-002", "WR-EXEC-001"]);
    for (k, (local, remote, len)) in works.into_iter().enumerate() {
        let w = WorkRequest { local_va: local, remote_va: remote, ..wr(k as u32, len, None, true) };
        r.host(1_000, HostCommand::PostWrite(w));
    }
    r.checks(&["FLAG-SEND-001", "FLAG-TABLE-001"]);
    inject_sack(&mut r, 5_000, 4, 0, 4, WireMark::NONE);
    inject_ack(&mut r, 5_000, 4, 2, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// A template whose local and remote bases lie above 2^32.
fn db_va_high() -> Scenario {
    let mut r = doorbell_sender(
        "db-va-high",
        "A template's local region lies at 8 GiB and its remote region 4 KiB below 2^48, \
         with slots of 64 KiB. Tokens for slots 0, 1 and 15 each become one message whose \
         local and remote addresses are the 64-bit bases plus the slot's stride: the RETH va \
         and the payload read show every bit of both.",
        &[
            "TPL-EXPAND-002",
            "TPL-EXPAND-003",
            "TPL-REGION-001",
            "SND-SEG-003",
            "DB-ACCEPT-001",
            "FLAG-SEND-001",
        ],
        &[],
    );
    let t = Template {
        local_base: 0x2_0000_0000,
        remote_base: (1 << 48) - 0x1000,
        ..template(3, WrOpcode::WRITE, false)
    };
    install(&mut r, t);
    r.checks(&["TPL-EXPAND-002", "TPL-EXPAND-003", "SND-SEG-003"]);
    for (seq, index) in [0u16, 1, 15].into_iter().enumerate() {
        r.host(
            1_000 + 100 * seq as u64,
            HostCommand::Doorbell { token: token(3, seq as u16, index, 4) },
        );
    }
    r.checks(&["FLAG-SEND-001"]);
    inject_sack(&mut r, 5_000, 2, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 5_000, 2, 2, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

// ===== lengths ============================================================================

/// A received message of 65 600 bytes.
fn rcv_length_17bit() -> Scenario {
    let mut r = responder_needing(
        "rcv-length-17bit",
        "The peer writes one Write-with-Immediate message of 65 600 bytes: 64 packets of \
         the PMTU and a last one of 64 bytes, each with dma_len 65 600. Every packet is \
         placed; the message retires with a flag whose byte_len is 65 600 and a receive \
         completion whose byte_len is 65 600; then a message of 64 bytes retires with its \
         own length.",
        &[
            "RETH-LEN-003",
            "RCV-MSG-001",
            "RCV-PLACE-003",
            "RET-FLAG-001",
            "FLAG-LEN-001",
            "FLAG-RECV-002",
            "CQE-RECV-001",
            "RCV-ACK-001",
        ],
        &[Capability::WriteImmediate],
    );
    setup(&mut r, 0, false);
    r.checks(&["RCV-PLACE-003", "RETH-LEN-003"]);
    let big = Msg { imm: Some(0x1700_0001), ..Msg::at(0, REGION + 0x10_0000, LEN_17) };
    let psn = send(&mut r, 1_000, 0, &big);
    r.checks(&["FLAG-LEN-001", "CQE-RECV-001", "RET-FLAG-001"]);
    send(&mut r, 70_000, psn, &Msg { rqmsn: 2, ..Msg::at(1, REGION, 64) });
    done(r, 100_000)
}

/// A sent work request of 65 600 bytes.
fn snd_length_17bit() -> Scenario {
    let mut r = evs_sender(
        "snd-length-17bit",
        "The device sends one signaled work request of 65 600 bytes, then one of 64: 65 \
         packets, each with RETH dma_len 65 600, then one. Once acknowledged, the first \
         writes its sender flag and completion entry with byte_len 65 600.",
        &[
            "SND-SEG-003",
            "RETH-LEN-003",
            "SND-SEG-001",
            "FLAG-LEN-001",
            "FLAG-SEND-001",
            "CQE-SEND-001",
        ],
        |_| {},
    );
    r.checks(&["SND-SEG-003", "RETH-LEN-003"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, LEN_17, None, true)));
    r.host(1_000, HostCommand::PostWrite(wr(1, 64, None, true)));
    r.checks(&["FLAG-LEN-001", "CQE-SEND-001", "FLAG-SEND-001"]);
    inject_sack(&mut r, 20_000, 65, 0, 65, WireMark::NONE);
    inject_ack(&mut r, 20_000, 65, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 40_000)
}

/// A token of 1 025 length units: 65 600 bytes.
fn db_length_17bit() -> Scenario {
    let mut r = doorbell_sender(
        "db-length-17bit",
        "A signaled template with 64-byte length units and slots of 128 KiB. A token of \
         1 025 units becomes one message of 65 600 bytes: 65 packets with RETH dma_len \
         65 600; once acknowledged its flag and completion carry byte_len 65 600.",
        &["DB-LENGTH-001", "TPL-EXPAND-004", "SND-SEG-003", "FLAG-LEN-001", "CQE-SEND-001"],
        &[],
    );
    let t = Template {
        local_region_len: 0x20_0000,
        remote_region_len: 0x20_0000,
        local_stride: 0x2_0000,
        remote_stride: 0x2_0000,
        ..template(3, WrOpcode::WRITE, true)
    };
    install(&mut r, t);
    r.checks(&["DB-LENGTH-001", "TPL-EXPAND-004", "SND-SEG-003"]);
    r.host(1_000, HostCommand::Doorbell { token: token(3, 0, 1, 1_025) });
    r.checks(&["FLAG-LEN-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 20_000, 64, 0, 64, WireMark::NONE);
    inject_ack(&mut r, 20_000, 64, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 40_000)
}

/// Token fields at their high values: an index with bit 15 set, a length of exactly
/// `max_length`, the last of 65 536 slots.
fn db_fields_high() -> Scenario {
    let mut r = sender_with(
        "db-fields-high",
        "A signaled Write-with-Immediate template of 65 536 slots of 16 bytes, with \
         imm_base 0x1234FFF0 and max_length 256. A token for slot 40 000, whose index needs \
         bit 15, becomes a message at that slot's addresses with immediate 0x12359C30, which \
         needs the carry out of bit 15 of imm_base + index, and reports in flag slot \
         40 000; a token of exactly max_length and one for the last slot, whose ranges end \
         at the end of their regions, are accepted too. Once acknowledged each writes its \
         flag and its completion entry.",
        &[
            "DB-FORMAT-001",
            "DB-INDEX-001",
            "DB-LENGTH-002",
            "DB-ACCEPT-001",
            "TPL-EXPAND-002",
            "TPL-EXPAND-003",
            "TPL-EXPAND-005",
            "TPL-EXPAND-006",
            "FLAG-SEND-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Doorbell);
            m.requires.insert(Capability::WriteImmediate);
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    let qp =
        QpConfig { evs: v4_evs(DUT_QP, 4), send_flag_slots: 0x1_0000, ..qp(DUT_QP, PEER_QP, 0) };
    r.host(0, HostCommand::CreateQp(qp));
    let t = Template {
        slots: 0x1_0000,
        local_stride: 16,
        remote_stride: 16,
        length_unit: 16,
        default_length: 16,
        max_length: 256,
        imm_base: 0x1234_FFF0,
        flag_base_slot: 0,
        ..template(7, WrOpcode::WRITE_WITH_IMM, true)
    };
    install(&mut r, t);
    r.checks(&["DB-INDEX-001", "TPL-EXPAND-002", "TPL-EXPAND-003", "TPL-EXPAND-005"]);
    r.host(1_000, HostCommand::Doorbell { token: token(7, 0, 40_000, 0) });
    r.checks(&["DB-LENGTH-002", "DB-ACCEPT-001"]);
    r.host(1_100, HostCommand::Doorbell { token: token(7, 1, 1, 16) });
    r.host(1_200, HostCommand::Doorbell { token: token(7, 2, 0xFFFF, 0) });
    r.checks(&["FLAG-SEND-001", "CQE-SEND-001", "TPL-EXPAND-006"]);
    inject_sack(&mut r, 5_000, 2, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 5_000, 2, 2, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

// ===== identifiers ========================================================================

/// A 24-bit QPN, an rkey that aliases another in its low 16 bits, immediates with bit 31.
fn rcv_ids_high() -> Scenario {
    let mut r = responder_needing(
        "rcv-ids-high",
        "The device's QP is 0xFFFF11 facing 0x800021. Two regions cover the same memory: \
         0x8000F234 read-only and 0xFFFFF234 writable, keys equal in their low 16 bits. A \
         Write under 0xFFFFF234 is placed; one under 0x8000F234 and one under 0x0000F234 are \
         each refused with a transport NAK 0x62; two Write-with-Immediate messages with \
         immediates 0x800000A5 and 0xFFFFFFFE are placed and their receive completions name \
         QP 0xFFFF11 and the whole immediate; every response goes to QP 0x800021.",
        &[
            "RCV-PLACE-002",
            "RCV-NAK-002",
            "RCV-QP-001",
            "RCV-SACK-005",
            "RCV-ACK-002",
            "CQE-RECV-001",
            "IMMDT-LAYOUT-001",
            "RCV-PLACE-003",
        ],
        &[Capability::WriteImmediate],
    );
    r.host(0, remote(0x8000_F234, REGION, REGION_LEN, false));
    r.host(0, remote(HIGH_RKEY, REGION, REGION_LEN, true));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig { evs: v4_evs(DUT_QP, 8), ..qp(HIGH_QP, HIGH_PEER, 0) }),
    );
    let at = |msn: u16, rkey: u32, rqmsn: u16, imm: Option<u32>, total: u32| Msg {
        qpn: HIGH_QP,
        rkey,
        msn,
        rqmsn,
        va: REGION + u64::from(msn) * 0x1_0000,
        total,
        imm,
    };
    r.checks(&["RCV-PLACE-003", "RCV-QP-001", "RCV-SACK-005"]);
    let psn = send(&mut r, 1_000, 0, &at(0, HIGH_RKEY, 1, None, 256));
    r.checks(&["RCV-PLACE-002", "RCV-NAK-002"]);
    send(&mut r, 2_000, psn, &at(1, 0x8000_F234, 1, None, 256));
    send(&mut r, 3_000, psn, &at(1, 0x0000_F234, 1, None, 256));
    r.checks(&["CQE-RECV-001", "RCV-ACK-002"]);
    let psn = send(&mut r, 4_000, psn, &at(1, HIGH_RKEY, 1, Some(0x8000_00A5), 256));
    send(&mut r, 5_000, psn, &at(2, HIGH_RKEY, 2, Some(0xFFFF_FFFE), 2 * PMTU + 8));
    done(r, 20_000)
}

/// A 24-bit QPN, a 32-bit rkey, `wr_id` with bit 63 and an immediate with bit 31 set.
fn snd_ids_high() -> Scenario {
    let mut r = sender_with(
        "snd-ids-high",
        "The device's QP is 0xFFFF11 facing 0x800021. It sends two signaled work \
         requests under rkey 0xFFFFF234: a Write, and a Write-with-Immediate with immediate \
         0x80000001; both wr_id have bit 63 set. Every packet goes to QP 0x800021 with the \
         whole rkey and immediate; once acknowledged each completion names QP 0xFFFF11 and \
         carries the whole wr_id.",
        &[
            "SND-SEG-001",
            "SND-SEG-003",
            "SND-SEG-004",
            "CQE-SEND-001",
            "FLAG-SEND-001",
            "IMMDT-LAYOUT-001",
        ],
        |m| {
            m.requires.insert(Capability::WriteImmediate);
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig { evs: v4_evs(DUT_QP, 4), ..qp(HIGH_QP, HIGH_PEER, 0) }),
    );
    r.checks(&["SND-SEG-001", "SND-SEG-003", "SND-SEG-004"]);
    for (k, imm) in [(0, None), (1, Some(0x8000_0001))] {
        let w = WorkRequest {
            wr_id: 0x8000_0000_0000_0100 | u64::from(k),
            qpn: Qpn::new(HIGH_QP),
            rkey: Rkey::new(HIGH_RKEY),
            ..wr(k, PMTU + 100, imm, true)
        };
        r.host(1_000, HostCommand::PostWrite(w));
    }
    r.checks(&["CQE-SEND-001", "FLAG-SEND-001"]);
    r.run_until(5_000);
    let ev = r.sent_ev(HIGH_PEER, 3).expect("the last PSN was sent");
    acknowledge_on(&mut r, 5_000, HIGH_QP, 3, 1, ev);
    done(r, 20_000)
}

// ===== rings ==============================================================================

/// A completion queue of 1 024 entries above 2^32, wrapped, and flag tables of 1 024 slots.
fn ret_cq_wrap_1k() -> Scenario {
    let mut r = responder_needing(
        "ret-cq-wrap-1k",
        "The device's QP reports receive completions to queue 0x10001 of 1 024 entries at \
         5 GiB, and has 1 024 retirement flag slots. The peer writes 1 100 zero-length \
         Write-with-Immediate messages; the consumer releases entries every 256. Entries 0 \
         to 1 023 go to slots 0 to 1 023 with phase 1, entries 1 024 on to slots 0 on with \
         phase 0, and the flag of MSN m to slot m mod 1 024.",
        &[
            "CQE-RING-001",
            "CQE-RING-003",
            "CQE-RING-004",
            "CQE-ROUTE-001",
            "CQE-RECV-001",
            "FLAG-RECV-001",
            "RET-FLAG-001",
        ],
        &[Capability::WriteImmediate, Capability::CompletionQueues],
    );
    let cq = CqId::new(0x1_0001);
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateCq(CqConfig { cq, base: 0x1_4000_0000, entries: 1024 }));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            recv_flag_slots: 1024,
            send_cq: Some(cq),
            recv_cq: Some(cq),
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    let mut at = 1_000;
    for m in 0..1_100u32 {
        if m % 256 == 0 && m > 0 {
            r.host(at, HostCommand::CqConsumer { cq, consumed: m - 128 });
        }
        let checks: &[&str] = match m {
            1023 | 1024 => &["CQE-RING-001", "FLAG-RECV-001"],
            _ => &["CQE-RING-001"],
        };
        r.checks(checks);
        let msg = Msg { rqmsn: (m + 1) as u16, imm: Some(m), ..Msg::at(m as u16, REGION, 0) };
        let mut p = packets(&msg, m).remove(0);
        if m % 16 != 15 {
            p = quiet(p);
        }
        r.inject(at, (m % 4) as u16, 0xA000_0001 + (m % 4) * 0x1_0000, &p);
        at += 200;
    }
    done(r, at + 20_000)
}

// ===== MSNs ===============================================================================

/// New packets naming MSNs with bit 15 set: by its 16-bit offset from the next MSN each is
/// retired (RET-CAP-002) and is discarded without response or placement (FLAG-LAST-002),
/// while a responder that keeps MSNs in 15 bits takes it for the next message. The
/// completion queue has 2^16 entries.
fn rcv_msn_high() -> Scenario {
    let mut r = responder_needing(
        "rcv-msn-high",
        "The device's QP reports receive completions to a queue of 65 536 entries, a count \
         that needs 17 bits. The peer writes three Write-with-Immediate messages, MSNs 0, 1 \
         and 2; before messages 1 and 2, a packet with the same PSN names MSN 0x8001 (then \
         0x8002): 2^15 after the next MSN, so retired, and discarded without response or \
         placement. A responder that keeps MSNs in 15 bits would place it as the next \
         message.",
        &["RET-CAP-002", "FLAG-LAST-002", "CQE-RING-001"],
        &[Capability::WriteImmediate, Capability::CompletionQueues],
    );
    let cq = CqId::new(0x2);
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateCq(CqConfig { cq, base: 0x2_0000_0000, entries: 1 << 16 }));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            send_cq: Some(cq),
            recv_cq: Some(cq),
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    let mut at = 1_000;
    for m in 0..3u16 {
        let msg = |msn: u16| Msg {
            rqmsn: m + 1,
            imm: Some(0x8000_0000 | u32::from(msn)),
            ..Msg::at(msn, REGION + u64::from(m) * 0x100, 64)
        };
        if m > 0 {
            r.checks(&["RET-CAP-002", "FLAG-LAST-002"]);
            send(&mut r, at, u32::from(m), &msg(m | 0x8000));
            at += 2_000;
        }
        r.checks(&["CQE-RING-001"]);
        send(&mut r, at, u32::from(m), &msg(m));
        at += 2_000;
    }
    done(r, at + 20_000)
}
