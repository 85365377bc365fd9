//! The sample captures of `traces/samples/` are built here, deterministically, from the
//! codec's frame builder: `clean.pcapng` (frames that decode cleanly and break no rule),
//! `mixed.pcapng` (the same, then frames the dissector must report) and `mixed.pcap` (the
//! Ethernet records of `mixed.pcapng`, as a microsecond pcap). The test fails when the
//! committed files differ from what this code builds; regenerate them with
//!
//! ```text
//! OPENRDMA_BLESS=1 cargo test -p openrdma --test samples
//! ```
//!
//! The frames: every MRC header stack, the common RC opcodes, the ConnectX-4 Lx CNP vector,
//! IPv4 and IPv6, an 802.1Q tag, and frames that must be reported rather than decoded: a bad
//! ICRC, a SACK truncated inside its SETH, an unknown opcode, ARP, UDP to another port, and
//! (pcapng only, last) a host event on a private link type.

mod common;

use common::*;
use openrdma_codec::frame::{Extensions, IpRepr, decode};
use openrdma_codec::icrc;
use openrdma_codec::{AethMsn, Ev, Msn, Rkey, Rqmsn};
use openrdma_codec::{
    AethRepr, AtomicAckEthRepr, AtomicEthRepr, CcStateRepr, EethRepr, EndpointOp, ErthRepr,
    EtherType, EthernetRepr, EvMark, ImmDtRepr, MethRepr, NackReason, NethRepr, Opcode, PethRepr,
    Psn, RethRepr, SethRepr, TsethRepr, UdpRepr, VlanRepr,
};
use pcap_file::{Endianness, TsResolution};

/// Capture time of the first record: 2026-01-01T00:00:00Z. Records are 1 µs apart, so the
/// microsecond pcap holds the same times as the nanosecond pcapng.
const T0_NS: u64 = 1_767_225_600_000_000_000;

/// Requester QP (where responses go) and responder QP (where requests go).
const QP_REQ: u32 = 0x000034;
const QP_RESP: u32 = 0x000012;
/// Base virtual address of the remote buffer, and its key.
const VA: u64 = 0x0000_7f00_0000_1000;
const RKEY: Rkey = Rkey::new(0xabcd_1234);

/// An MRC write packet: METH, TSETH when `tx_ts` is given, RETH, ImmDt when `imm` is given.
fn mrc_write(
    opcode: Opcode,
    psn: u32,
    msn: u16,
    tx_ts: Option<u16>,
    va_offset: u64,
    imm: Option<u32>,
    payload: &[u8],
) -> openrdma_codec::frame::FrameRepr {
    let mut b = bth(opcode, QP_RESP, psn);
    b.ts = tx_ts.is_some();
    b.ack_req = opcode.is_last();
    let ext = Extensions {
        meth: Some(MethRepr::new(Rqmsn::new(0), Msn::new(msn))),
        tseth: tx_ts.map(TsethRepr::new),
        reth: Some(RethRepr::new(VA + va_offset, RKEY, 192)),
        immdt: imm.map(ImmDtRepr::new),
        ..Extensions::default()
    };
    let mut f = roce(ipv6(true), b, ext, payload);
    // ECN-capable, ECT(0), as an MRC write should be (ENC-ECN-001).
    if let IpRepr::V6(v6) = &mut f.ip {
        v6.traffic_class |= 0b10;
    }
    f.set_entropy(Ev::new(0xC0DE_0001 + psn));
    f
}

fn sack() -> SethRepr {
    SethRepr {
        entropy: Ev::new(0xC0DE_0067),
        cack_psn: Psn::new(100),
        mpr: 8,
        sack_offset: 2,
        // PSNs 102, 104, 105 and 165 received; 103 missing.
        sack_bitmap: 0x8000_0000_0000_000D,
        m: EvMark::NONE,
        ..SethRepr::default()
    }
}

/// The frames that decode completely with a good ICRC and break no rule, with a comment
/// each: `clean.pcapng`, and the start of `mixed`.
fn good_frames() -> Vec<(&'static str, Vec<u8>)> {
    let mut v: Vec<(&'static str, Vec<u8>)> = Vec::new();
    let data = pattern(64, 0x00);

    // MRC writes over IPv6: a three-packet message with TSETH, then WRITE_ONLY without it.
    v.push((
        "MRC_WRITE_FIRST, METH+TSETH+RETH, IPv6",
        finish(mrc_write(Opcode::MRC_WRITE_FIRST, 100, 7, Some(0x1234), 0, None, &data)),
    ));
    v.push((
        "MRC_WRITE_MIDDLE, METH+TSETH+RETH (address advanced by one PMTU)",
        finish(mrc_write(Opcode::MRC_WRITE_MIDDLE, 101, 7, Some(0x1235), 64, None, &data)),
    ));
    v.push((
        "MRC_WRITE_LAST_IMM, METH+TSETH+RETH+ImmDt, 61-byte payload and 3 pad bytes",
        finish(mrc_write(
            Opcode::MRC_WRITE_LAST_IMM,
            102,
            7,
            Some(0x1236),
            128,
            Some(0xdead_beef),
            &data[..61],
        )),
    ));
    v.push((
        "MRC_WRITE_ONLY without TSETH (ts = 0)",
        finish(mrc_write(Opcode::MRC_WRITE_ONLY, 103, 8, None, 0, None, &data[..32])),
    ));

    // MRC reliability and control, responder to requester, IPv6.
    let ext = Extensions {
        seth: Some(sack()),
        cc_state: Some(CcStateRepr {
            tx_timestamp: 0x1236,
            ooo_count: 2,
            rcvd_bytes: 189,
            ..CcStateRepr::default()
        }),
        ..Extensions::default()
    };
    v.push((
        "MRC_RELIABILITY_SACK with a bitmap",
        finish(roce(ipv6(false), bth(Opcode::MRC_SACK, QP_REQ, 0), ext, &[])),
    ));
    let ext = Extensions {
        neth: Some(NethRepr::new(NackReason::PSN_OOR_WINDOW, Psn::new(1200), Ev::new(0xC0DE_04B1))),
        ..Extensions::default()
    };
    v.push((
        "MRC_RELIABILITY_NACK, PSN_OOR_WINDOW",
        finish(roce(ipv6(false), bth(Opcode::MRC_NACK, QP_REQ, 0), ext, &[])),
    ));
    let ext = Extensions { peth: Some(PethRepr::new(5, 0x2222)), ..Extensions::default() };
    v.push((
        "MRC_RELIABILITY_PROBE",
        finish(roce(ipv6(true), bth(Opcode::MRC_PROBE, QP_RESP, 0), ext, &[])),
    ));
    let ext = Extensions {
        aeth: Some(AethRepr::new(AethRepr::ACK_UNLIMITED_CREDIT, AethMsn::new(8))),
        ..Extensions::default()
    };
    v.push((
        "MRC_ACKNOWLEDGE (transport ACK)",
        finish(roce(ipv6(false), bth(Opcode::MRC_ACKNOWLEDGE, QP_REQ, 103), ext, &[])),
    ));
    let ext = Extensions {
        erth: Some(ErthRepr::new(EndpointOp::PORT_STATUS_UPDATE, 0b1101, 42)),
        ..Extensions::default()
    };
    v.push((
        "MRC_ENDPOINT_REQUEST (ERTH) to QP 2",
        finish(roce(ipv6(true), bth(Opcode::MRC_ENDPOINT_REQUEST, 2, 0), ext, &[])),
    ));
    let ext = Extensions {
        eeth: Some(EethRepr::new(EndpointOp::PORT_STATUS_UPDATE, 0b1111, 42)),
        ..Extensions::default()
    };
    v.push((
        "MRC_ENDPOINT_RESPONSE (EETH) to QP 2",
        finish(roce(ipv6(false), bth(Opcode::MRC_ENDPOINT_RESPONSE, 2, 0), ext, &[])),
    ));

    // Standard RC over IPv4.
    let mut b = bth(Opcode::RC_SEND_ONLY, QP_RESP, 500);
    b.ack_req = true;
    b.solicited = true;
    v.push((
        "RC_SEND_ONLY",
        finish(roce(ipv4(true), b, Extensions::default(), b"hello roce v2!!!")),
    ));
    let ext = Extensions { reth: Some(RethRepr::new(VA, RKEY, 128)), ..Extensions::default() };
    v.push((
        "RC_WRITE_FIRST, RETH",
        finish(roce(ipv4(true), bth(Opcode::RC_WRITE_FIRST, QP_RESP, 501), ext, &data)),
    ));
    let ext = Extensions { reth: Some(RethRepr::new(VA, RKEY, 4096)), ..Extensions::default() };
    v.push((
        "RC_READ_REQUEST, RETH",
        finish(roce(ipv4(true), bth(Opcode::RC_READ_REQUEST, QP_RESP, 503), ext, &[])),
    ));
    let ext = Extensions {
        aeth: Some(AethRepr::new(AethRepr::ACK, AethMsn::new(3))),
        ..Extensions::default()
    };
    v.push((
        "RC_READ_RESPONSE_ONLY, AETH",
        finish(roce(
            ipv4(false),
            bth(Opcode::RC_READ_RESPONSE_ONLY, QP_REQ, 503),
            ext,
            &data[..48],
        )),
    ));
    let ext = Extensions {
        atomiceth: Some(AtomicEthRepr { va: VA, rkey: RKEY, swap_add: 1, compare: 0 }),
        ..Extensions::default()
    };
    let mut b = bth(Opcode::RC_FETCH_ADD, QP_RESP, 504);
    b.ack_req = true;
    v.push(("RC_FETCH_ADD, AtomicETH", finish(roce(ipv4(true), b, ext, &[]))));
    let ext = Extensions {
        aeth: Some(AethRepr::new(AethRepr::ACK, AethMsn::new(4))),
        atomicacketh: Some(AtomicAckEthRepr { orig: 41 }),
        ..Extensions::default()
    };
    v.push((
        "RC_ATOMIC_ACKNOWLEDGE, AETH+AtomicAckETH",
        finish(roce(ipv4(false), bth(Opcode::RC_ATOMIC_ACKNOWLEDGE, QP_REQ, 504), ext, &[])),
    ));

    // The CNP captured from a ConnectX-4 Lx (shared vector).
    let cnp = vectors().into_iter().find(|(n, _)| n == "cx4lx-cnp").unwrap().1;
    v.push(("CNP captured from a ConnectX-4 Lx", cnp));

    // An 802.1Q-tagged MRC write with immediate.
    let mut f =
        mrc_write(Opcode::MRC_WRITE_ONLY_IMM, 104, 9, Some(0x1240), 0, Some(7), &data[..16]);
    f.vlans = vec![VlanRepr { pcp: 3, dei: false, vid: 100, ethertype: EtherType::IPV6 }];
    f.eth.ethertype = EtherType::VLAN;
    v.push(("MRC_WRITE_ONLY_IMM in an 802.1Q tag (VID 100, PCP 3)", finish(f)));
    v
}

/// Frames that the dissector must report: the end of `mixed`.
fn reported_frames() -> Vec<(&'static str, Vec<u8>)> {
    let mut v: Vec<(&'static str, Vec<u8>)> = Vec::new();
    let data = pattern(64, 0x00);
    let mut bad =
        finish(mrc_write(Opcode::MRC_WRITE_ONLY, 105, 10, Some(0x1241), 0, None, &data[..8]));
    *bad.last_mut().unwrap() ^= 0xFF;
    v.push(("MRC_WRITE_ONLY with a bad ICRC (last byte flipped)", bad));
    v.push(("MRC_RELIABILITY_SACK cut inside SETH (4 of the 8 bitmap bytes)", sack_cut_in_seth()));
    v.push((
        "unknown opcode 0xF0: everything after the BTH is payload",
        finish(roce(ipv6(true), bth(Opcode(0xF0), QP_RESP, 7), Extensions::default(), &data[..8])),
    ));
    v.push(("ARP request (not IP)", arp_request()));
    v.push(("UDP to port 53 (not RoCEv2)", udp_dns()));
    v
}

/// A SACK whose IP and UDP lengths and ICRC are right, but whose packet ends 24 bytes into
/// the 28-byte SETH: the decoder must stop at `SETH.sack_bitmap`.
fn sack_cut_in_seth() -> Vec<u8> {
    let mut seth = [0u8; 28];
    sack().emit(&mut seth).unwrap();
    let f = roce(ipv4(false), bth(Opcode(0xF0), QP_REQ, 0), Extensions::default(), &seth[..24]);
    let mut bytes = finish(f);
    let ip_at = 14;
    let bth_at = ip_at + 20 + 8;
    bytes[bth_at] = Opcode::MRC_SACK.0;
    icrc::fill(&mut bytes[ip_at..]).unwrap();
    let d = decode(&bytes);
    assert_eq!(
        d.error.map(|e| e.to_string()).as_deref(),
        Some("SETH.sack_bitmap truncated at byte 74: need 8, have 4")
    );
    bytes
}

fn arp_request() -> Vec<u8> {
    let eth = EthernetRepr {
        dst: openrdma_codec::EthernetAddress::BROADCAST,
        src: MAC_A,
        ethertype: EtherType::ARP,
    };
    let mut bytes = vec![0u8; 14];
    eth.emit(&mut bytes).unwrap();
    // Ethernet/IPv4, request, who has 192.0.2.2, tell 192.0.2.1.
    bytes.extend_from_slice(&[0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01]);
    bytes.extend_from_slice(&MAC_A.0);
    bytes.extend_from_slice(&[192, 0, 2, 1]);
    bytes.extend_from_slice(&[0; 6]);
    bytes.extend_from_slice(&[192, 0, 2, 2]);
    bytes
}

fn udp_dns() -> Vec<u8> {
    let IpRepr::V4(mut ip) = ipv4(true) else { unreachable!() };
    let payload = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00";
    let mut udp = UdpRepr { src_port: 40000, dst_port: 53, length: 0, checksum: 0 };
    udp.set_payload_len(payload.len()).unwrap();
    ip.total_len = 20 + udp.length;
    ip.fill_checksum().unwrap();
    let eth = EthernetRepr { dst: MAC_B, src: MAC_A, ethertype: EtherType::IPV4 };
    let mut bytes = vec![0u8; 14 + 20 + 8];
    eth.emit(&mut bytes).unwrap();
    ip.emit(&mut bytes[14..]).unwrap();
    udp.emit(&mut bytes[34..]).unwrap();
    bytes.extend_from_slice(payload);
    let (src, dst) = (ip.src, ip.dst);
    let sum = UdpRepr::compute_checksum_v4(src, dst, &bytes[34..]);
    bytes[40..42].copy_from_slice(&sum.to_be_bytes());
    bytes
}

/// The records of a sample: `frames`, 1 µs apart, then a host event if asked for.
fn packets(frames: Vec<(&'static str, Vec<u8>)>, with_host_event: bool) -> Vec<Packet> {
    let mut p: Vec<Packet> = frames
        .into_iter()
        .enumerate()
        .map(|(i, (comment, data))| Packet {
            timestamp_ns: T0_NS + i as u64 * 1_000,
            interface: 0,
            comment,
            data,
        })
        .collect();
    if with_host_event {
        p.push(Packet {
            timestamp_ns: T0_NS + p.len() as u64 * 1_000,
            interface: 1,
            comment: "host event on LINKTYPE_USER0 (not Ethernet): listed, not decoded",
            data: b"doorbell qp=0x12".to_vec(),
        });
    }
    p
}

fn check_or_bless(rel: &str, built: &[u8]) {
    let path = repo_path(rel);
    if std::env::var_os("OPENRDMA_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, built).unwrap();
        return;
    }
    let committed = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{rel}: {e}; create it with OPENRDMA_BLESS=1"));
    assert!(
        committed == built,
        "{rel} differs from what tests/samples.rs builds; if the change is intended, run \
         OPENRDMA_BLESS=1 cargo test -p openrdma --test samples"
    );
}

fn mixed_frames() -> Vec<(&'static str, Vec<u8>)> {
    good_frames().into_iter().chain(reported_frames()).collect()
}

#[test]
fn samples_are_reproducible() {
    check_or_bless("traces/samples/clean.pcapng", &write_pcapng(&packets(good_frames(), true)));
    check_or_bless("traces/samples/mixed.pcapng", &write_pcapng(&packets(mixed_frames(), true)));
    check_or_bless(
        "traces/samples/mixed.pcap",
        &write_pcap(&packets(mixed_frames(), false), Endianness::Little, TsResolution::MicroSecond),
    );
}

#[test]
fn good_frames_decode_cleanly_and_round_trip() {
    for (i, (comment, bytes)) in good_frames().iter().enumerate() {
        let d = decode(bytes);
        assert!(d.is_clean(), "frame {}: {comment}: {:?}", i + 1, d.error);
        assert!(d.is_roce(), "frame {}: {comment}", i + 1);
        assert_eq!(d.validate(), vec![], "frame {}: {comment}", i + 1);
        assert_eq!(d.to_repr().unwrap().to_bytes().unwrap(), *bytes, "{comment}");
    }
}
