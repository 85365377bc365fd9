//! The whole IBTA opcode table, and frames as captures hold them: under link layers other
//! than Ethernet, and cut by a snapshot length.
//!
//! The opcode table below is written from IBTA Volume 1 (the BTH opcode table and the
//! header layout of each packet), not from the codec's table, so that a mistake in either
//! shows.

mod common;

use common::*;
use openrdma_codec::frame::{
    DecodedFrame, Extensions, FrameKind, FrameRepr, IcrcStatus, decode, decode_captured,
};
use openrdma_codec::wire::*;
use openrdma_codec::*;

/// opcode, name, the headers after the BTH in wire order, whether a payload follows.
const IBTA: &[(u8, &str, &[&str], bool)] = &[
    (0x00, "RC_SEND_FIRST", &[], true),
    (0x01, "RC_SEND_MIDDLE", &[], true),
    (0x02, "RC_SEND_LAST", &[], true),
    (0x03, "RC_SEND_LAST_IMM", &["immdt"], true),
    (0x04, "RC_SEND_ONLY", &[], true),
    (0x05, "RC_SEND_ONLY_IMM", &["immdt"], true),
    (0x06, "RC_WRITE_FIRST", &["reth"], true),
    (0x07, "RC_WRITE_MIDDLE", &[], true),
    (0x08, "RC_WRITE_LAST", &[], true),
    (0x09, "RC_WRITE_LAST_IMM", &["immdt"], true),
    (0x0A, "RC_WRITE_ONLY", &["reth"], true),
    (0x0B, "RC_WRITE_ONLY_IMM", &["reth", "immdt"], true),
    (0x0C, "RC_READ_REQUEST", &["reth"], false),
    (0x0D, "RC_READ_RESPONSE_FIRST", &["aeth"], true),
    (0x0E, "RC_READ_RESPONSE_MIDDLE", &[], true),
    (0x0F, "RC_READ_RESPONSE_LAST", &["aeth"], true),
    (0x10, "RC_READ_RESPONSE_ONLY", &["aeth"], true),
    (0x11, "RC_ACKNOWLEDGE", &["aeth"], false),
    (0x12, "RC_ATOMIC_ACKNOWLEDGE", &["aeth", "atomicacketh"], false),
    (0x13, "RC_COMPARE_SWAP", &["atomiceth"], false),
    (0x14, "RC_FETCH_ADD", &["atomiceth"], false),
    (0x16, "RC_SEND_LAST_INV", &["ieth"], true),
    (0x17, "RC_SEND_ONLY_INV", &["ieth"], true),
    (0x1C, "RC_FLUSH", &["feth", "reth"], false),
    (0x1D, "RC_ATOMIC_WRITE", &["reth"], true),
    (0x20, "UC_SEND_FIRST", &[], true),
    (0x21, "UC_SEND_MIDDLE", &[], true),
    (0x22, "UC_SEND_LAST", &[], true),
    (0x23, "UC_SEND_LAST_IMM", &["immdt"], true),
    (0x24, "UC_SEND_ONLY", &[], true),
    (0x25, "UC_SEND_ONLY_IMM", &["immdt"], true),
    (0x26, "UC_WRITE_FIRST", &["reth"], true),
    (0x27, "UC_WRITE_MIDDLE", &[], true),
    (0x28, "UC_WRITE_LAST", &[], true),
    (0x29, "UC_WRITE_LAST_IMM", &["immdt"], true),
    (0x2A, "UC_WRITE_ONLY", &["reth"], true),
    (0x2B, "UC_WRITE_ONLY_IMM", &["reth", "immdt"], true),
    (0x40, "RD_SEND_FIRST", &["rdeth", "deth"], true),
    (0x41, "RD_SEND_MIDDLE", &["rdeth", "deth"], true),
    (0x42, "RD_SEND_LAST", &["rdeth", "deth"], true),
    (0x43, "RD_SEND_LAST_IMM", &["rdeth", "deth", "immdt"], true),
    (0x44, "RD_SEND_ONLY", &["rdeth", "deth"], true),
    (0x45, "RD_SEND_ONLY_IMM", &["rdeth", "deth", "immdt"], true),
    (0x46, "RD_WRITE_FIRST", &["rdeth", "deth", "reth"], true),
    (0x47, "RD_WRITE_MIDDLE", &["rdeth", "deth"], true),
    (0x48, "RD_WRITE_LAST", &["rdeth", "deth"], true),
    (0x49, "RD_WRITE_LAST_IMM", &["rdeth", "deth", "immdt"], true),
    (0x4A, "RD_WRITE_ONLY", &["rdeth", "deth", "reth"], true),
    (0x4B, "RD_WRITE_ONLY_IMM", &["rdeth", "deth", "reth", "immdt"], true),
    (0x4C, "RD_READ_REQUEST", &["rdeth", "deth", "reth"], false),
    (0x4D, "RD_READ_RESPONSE_FIRST", &["rdeth", "aeth"], true),
    (0x4E, "RD_READ_RESPONSE_MIDDLE", &["rdeth"], true),
    (0x4F, "RD_READ_RESPONSE_LAST", &["rdeth", "aeth"], true),
    (0x50, "RD_READ_RESPONSE_ONLY", &["rdeth", "aeth"], true),
    (0x51, "RD_ACKNOWLEDGE", &["rdeth", "aeth"], false),
    (0x52, "RD_ATOMIC_ACKNOWLEDGE", &["rdeth", "aeth", "atomicacketh"], false),
    (0x53, "RD_COMPARE_SWAP", &["rdeth", "deth", "atomiceth"], false),
    (0x54, "RD_FETCH_ADD", &["rdeth", "deth", "atomiceth"], false),
    (0x55, "RD_RESYNC", &["rdeth", "deth"], false),
    (0x5C, "RD_FLUSH", &["rdeth", "deth", "feth", "reth"], false),
    (0x5D, "RD_ATOMIC_WRITE", &["rdeth", "deth", "reth"], true),
    (0x64, "UD_SEND_ONLY", &["deth"], true),
    (0x65, "UD_SEND_ONLY_IMM", &["deth", "immdt"], true),
    (0x81, "CNP", &["cnp"], false),
    (0xA0, "XRC_SEND_FIRST", &["xrceth"], true),
    (0xA1, "XRC_SEND_MIDDLE", &["xrceth"], true),
    (0xA2, "XRC_SEND_LAST", &["xrceth"], true),
    (0xA3, "XRC_SEND_LAST_IMM", &["xrceth", "immdt"], true),
    (0xA4, "XRC_SEND_ONLY", &["xrceth"], true),
    (0xA5, "XRC_SEND_ONLY_IMM", &["xrceth", "immdt"], true),
    (0xA6, "XRC_WRITE_FIRST", &["xrceth", "reth"], true),
    (0xA7, "XRC_WRITE_MIDDLE", &["xrceth"], true),
    (0xA8, "XRC_WRITE_LAST", &["xrceth"], true),
    (0xA9, "XRC_WRITE_LAST_IMM", &["xrceth", "immdt"], true),
    (0xAA, "XRC_WRITE_ONLY", &["xrceth", "reth"], true),
    (0xAB, "XRC_WRITE_ONLY_IMM", &["xrceth", "reth", "immdt"], true),
    (0xAC, "XRC_READ_REQUEST", &["xrceth", "reth"], false),
    (0xAD, "XRC_READ_RESPONSE_FIRST", &["aeth"], true),
    (0xAE, "XRC_READ_RESPONSE_MIDDLE", &[], true),
    (0xAF, "XRC_READ_RESPONSE_LAST", &["aeth"], true),
    (0xB0, "XRC_READ_RESPONSE_ONLY", &["aeth"], true),
    (0xB1, "XRC_ACKNOWLEDGE", &["aeth"], false),
    (0xB2, "XRC_ATOMIC_ACKNOWLEDGE", &["aeth", "atomicacketh"], false),
    (0xB3, "XRC_COMPARE_SWAP", &["xrceth", "atomiceth"], false),
    (0xB4, "XRC_FETCH_ADD", &["xrceth", "atomiceth"], false),
    (0xB6, "XRC_SEND_LAST_INV", &["xrceth", "ieth"], true),
    (0xB7, "XRC_SEND_ONLY_INV", &["xrceth", "ieth"], true),
    (0xBC, "XRC_FLUSH", &["xrceth", "feth", "reth"], false),
    (0xBD, "XRC_ATOMIC_WRITE", &["xrceth", "reth"], true),
];

/// The MRC rows, which must stay exactly as they were.
const MRC: &[(u8, &str, &[&str], bool)] = &[
    (0xC6, "MRC_WRITE_FIRST", &["meth", "tseth", "reth"], true),
    (0xC7, "MRC_WRITE_MIDDLE", &["meth", "tseth", "reth"], true),
    (0xC8, "MRC_WRITE_LAST", &["meth", "tseth", "reth"], true),
    (0xC9, "MRC_WRITE_LAST_IMM", &["meth", "tseth", "reth", "immdt"], true),
    (0xCA, "MRC_WRITE_ONLY", &["meth", "tseth", "reth"], true),
    (0xCB, "MRC_WRITE_ONLY_IMM", &["meth", "tseth", "reth", "immdt"], true),
    (0xD1, "MRC_ACKNOWLEDGE", &["aeth"], false),
    (0xD8, "MRC_ENDPOINT_REQUEST", &["erth"], false),
    (0xD9, "MRC_ENDPOINT_RESPONSE", &["eeth"], false),
    (0xDC, "MRC_RELIABILITY_SACK", &["seth", "cc_state"], false),
    (0xDD, "MRC_RELIABILITY_NACK", &["neth"], false),
    (0xDE, "MRC_RELIABILITY_PROBE", &["peth"], false),
];

/// A frame of opcode `op` whose extension headers hold arbitrary bytes (distinct per
/// header), with `payload` bytes of payload when the opcode carries one, and BTH `ts` set.
fn frame_of(op: u8, payload_len: usize, encap: Encap) -> FrameRepr {
    let mut bth = BthRepr::new(Opcode(op), Qpn::new(0x12), Psn::new(0x345));
    bth.ts = Opcode(op).is_mrc_write();
    let mut ext = Extensions::default();
    for (i, h) in frame::header_stack(&bth).enumerate() {
        let b: Vec<u8> = (0..h.wire_len()).map(|k| (i * 37 + k * 11 + 1) as u8).collect();
        put_ext(&mut ext, h, &b);
        if h == ExtHeader::Cnp {
            ext.cnp = Some(CnpRepr::default());
        }
    }
    build(encap, bth, ext, &payload(payload_len))
}

fn keys(d: &DecodedFrame<'_>) -> Vec<&'static str> {
    d.layout.ext.iter().map(|&(h, _)| h.header().name()).collect()
}

/// OPC-TABLE-001: every row of IBTA's table and of MRC's, against the codec's table, and
/// through a whole frame: each header decodes at its place, the payload follows, the ICRC
/// verifies, and the frame emits back byte for byte.
#[test]
fn opc_table_001_every_opcode_decodes_its_ibta_header_stack() {
    for &(op, name, headers, data) in IBTA.iter().chain(MRC) {
        let info =
            Opcode(op).info().unwrap_or_else(|| panic!("{op:#04x} {name} is not in the table"));
        assert_eq!(info.name, name, "{op:#04x}");
        let stack: Vec<&str> = info.headers.iter().map(|h| h.header().name()).collect();
        assert_eq!(stack, headers, "{name}");
        assert_eq!(info.payload == PayloadRule::Data, data, "{name}");
        for encap in [Encap::V4, Encap::V6Dot1q] {
            let n = if data { 13 } else { 0 };
            let f = frame_of(op, n, encap);
            let bytes = f.to_bytes().unwrap();
            let d = decode(&bytes);
            assert_eq!(d.error, None, "{name}");
            assert_eq!(d.kind(), FrameKind::Roce, "{name}");
            assert_eq!(d.icrc, IcrcStatus::Ok, "{name}");
            assert_eq!(keys(&d), headers, "{name}");
            assert_eq!(d.payload.len(), n, "{name}");
            let mut at = d.layout.bth.unwrap() + BTH_LEN;
            for &(h, off) in &d.layout.ext {
                assert_eq!(off, at, "{name}: {h:?}");
                at += h.wire_len();
            }
            assert_eq!(d.layout.payload, Some(at), "{name}");
            assert_eq!(d.ext, f.ext, "{name}");
            assert_eq!(d.to_repr().unwrap().to_bytes().unwrap(), bytes, "{name}");
            assert!(!d.validate().iter().any(|v| v.requirement == "OPC-UNKNOWN-001"), "{name}");
        }
    }
    // Every other opcode is unknown: no headers, everything after the BTH is payload, and
    // the frame emits back unchanged (OPC-UNKNOWN-001).
    let known: Vec<u8> = IBTA.iter().chain(MRC).map(|r| r.0).collect();
    assert_eq!(Opcode::ALL.len(), known.len());
    for op in (0..=255u8).filter(|op| !known.contains(op)) {
        assert!(Opcode(op).info().is_none(), "{op:#04x}");
        let bytes = frame_of(op, 20, Encap::V4).to_bytes().unwrap();
        let d = decode(&bytes);
        assert_eq!((d.error, d.icrc, d.payload.len()), (None, IcrcStatus::Ok, 20), "{op:#04x}");
        assert_eq!(d.to_repr().unwrap().to_bytes().unwrap(), bytes, "{op:#04x}");
    }
}

/// The first and last packets of a message, and immediate data, in every class.
#[test]
fn first_last_and_immediate_in_every_class() {
    for &(op, name, headers, _) in IBTA.iter().chain(MRC) {
        let o = Opcode(op);
        let send_or_write = name.contains("_SEND_") || name.contains("_WRITE_");
        assert_eq!(
            o.is_first(),
            send_or_write && (name.contains("FIRST") || name.contains("ONLY")),
            "{name}"
        );
        assert_eq!(
            o.is_last(),
            send_or_write && (name.contains("LAST") || name.contains("ONLY")),
            "{name}"
        );
        assert_eq!(o.has_immediate(), headers.contains(&"immdt"), "{name}");
    }
}

/// The header bytes, link layer by link layer: what precedes the IP header.
fn relink(eth_frame: &[u8], link: LinkType) -> Vec<u8> {
    let ip = &eth_frame[ETH_HEADER_LEN..];
    let proto = [eth_frame[12], eth_frame[13]];
    let mut out = match link.0 {
        113 => {
            let mut h = vec![0, 4, 0, 1, 0, 6];
            h.extend_from_slice(&eth_frame[6..12]);
            h.extend_from_slice(&[0, 0]);
            h.extend_from_slice(&proto);
            h
        }
        276 => {
            let mut h = proto.to_vec();
            h.extend_from_slice(&[0, 0, 0, 0, 0, 3, 0, 1, 4, 6]);
            h.extend_from_slice(&eth_frame[6..12]);
            h.extend_from_slice(&[0, 0]);
            h
        }
        _ => Vec::new(),
    };
    out.extend_from_slice(ip);
    out
}

use openrdma_codec::frame::ETH_HEADER_LEN;

/// DEC-LINK-001: the same packets on every link type of table 29a decode to the same
/// headers, offsets counted from the record's first byte; a link type the decoder does not
/// read gives nothing and no error.
#[test]
fn dec_link_001_cooked_and_raw_ip_link_types() {
    for encap in [Encap::V4, Encap::V6, Encap::V4Dot1q] {
        for s in samples() {
            let f = build(encap, s.bth, s.ext.clone(), &s.payload);
            let eth = f.to_bytes().unwrap();
            let want = decode(&eth);
            let tagged = encap.tpid().is_some();
            let mut links = vec![LinkType::LINUX_SLL, LinkType::LINUX_SLL2];
            if !tagged {
                links.extend([LinkType::RAW, LinkType::RAW_BSD, LinkType::RAW_OPENBSD]);
                links.push(if encap.is_v6() { LinkType::IPV6 } else { LinkType::IPV4 });
            }
            for link in links {
                let bytes = relink(&eth, link);
                let d = decode_captured(link, &bytes, bytes.len());
                let ctx = format!("{} {encap:?} {link:?}", s.name);
                assert_eq!(d.error, None, "{ctx}");
                assert_eq!(d.eth, None, "{ctx}");
                assert_eq!(d.cooked.is_some(), matches!(link.0, 113 | 276), "{ctx}");
                assert_eq!((d.ip.clone(), d.udp, d.bth), (want.ip.clone(), want.udp, want.bth));
                assert_eq!((&d.ext, d.payload, d.icrc), (&want.ext, want.payload, want.icrc));
                assert_eq!(d.vlans, want.vlans, "{ctx}");
                let shift = |o: usize| o + bytes.len() - eth.len();
                assert_eq!(d.layout.bth, want.layout.bth.map(shift), "{ctx}");
                assert_eq!(d.kind(), FrameKind::Roce, "{ctx}");
            }
        }
    }
    let user0 = decode_captured(LinkType(147), b"ORDM....", 8);
    assert_eq!((user0.error, user0.eth, user0.ip), (None, None, None));
}

/// DEC-CUT-001: a frame cut at every length keeps every header that fits, stops without an
/// error, reports the ICRC as not checkable and the frame as truncated; a cut that leaves
/// the frame whole is not a cut.
#[test]
fn dec_cut_001_every_snapshot_length() {
    for encap in Encap::ALL {
        for s in samples() {
            let f = build(encap, s.bth, s.ext.clone(), &s.payload);
            let bytes = f.to_bytes().unwrap();
            let full = decode(&bytes);
            for cut in 0..bytes.len() {
                let d = decode_captured(LinkType::ETHERNET, &bytes[..cut], bytes.len());
                let ctx = format!("{} {encap:?} cut at {cut}", s.name);
                assert_eq!(d.error, None, "{ctx}");
                assert_eq!(d.kind(), FrameKind::Truncated, "{ctx}");
                assert!(!d.fails(false) && d.fails(true), "{ctx}");
                assert!(!matches!(d.icrc, IcrcStatus::Bad { .. } | IcrcStatus::Ok), "{ctx}");
                if d.bth.is_some() {
                    assert_eq!(d.icrc, IcrcStatus::NotCheckable, "{ctx}");
                }
                // Each layer that the cut leaves whole is decoded, as in the whole frame.
                let whole = |at: Option<usize>, len: usize| at.is_some_and(|a| a + len <= cut);
                if whole(full.layout.bth, BTH_LEN) {
                    assert_eq!(d.bth, full.bth, "{ctx}");
                }
                if full.layout.udp.is_some_and(|a| a + 8 <= cut) {
                    assert_eq!(d.udp, full.udp, "{ctx}");
                }
                for &(h, at) in &full.layout.ext {
                    let present = d.ext.has(h);
                    assert_eq!(present, at + h.wire_len() <= cut, "{ctx}: {h:?}");
                }
                if d.layout.payload.is_some() {
                    assert!(full.payload.starts_with(d.payload), "{ctx}");
                }
                assert_eq!(d.to_repr(), None, "{ctx}");
            }
            // A frame whose IP length claims more than the wire held is still an error.
            let d = decode_captured(LinkType::ETHERNET, &bytes[..60], 61);
            assert!(d.error.is_some(), "{}: {:?}", s.name, d.error);
        }
    }
}

/// DEC-KIND-001, DEC-EXIT-001: the kind of a frame and whether a reader fails it.
#[test]
fn dec_kind_001_kinds_and_verdicts() {
    let f = sample("rc_send_only", Encap::V4);
    let good = f.to_bytes().unwrap();
    let d = decode(&good);
    assert_eq!((d.kind(), d.fails(false), d.fails(true)), (FrameKind::Roce, false, false));
    // A bad ICRC: still RoCE, and it fails.
    let mut bad = good.clone();
    *bad.last_mut().unwrap() ^= 1;
    let d = decode(&bad);
    assert_eq!((d.kind(), d.fails(false)), (FrameKind::Roce, true));
    // A RoCEv2 packet whose UDP length disagrees with IP: malformed, and it fails.
    let mut m = good.clone();
    m[14 + 20 + 5] ^= 0x08;
    let d = decode(&m);
    assert!(d.error.is_some());
    assert_eq!((d.kind(), d.fails(false)), (FrameKind::Malformed, true));
    // An IPv4 total length past the frame, in a packet to port 4791: malformed.
    let mut m = good.clone();
    m[14 + 3] = m[14 + 3].wrapping_add(40);
    let d = decode(&m);
    assert_eq!((d.kind(), d.fails(false)), (FrameKind::Malformed, true));
    // The same damage to a packet to another port: another protocol, which fails only
    // under --strict.
    m[14 + 22] = 0x12;
    m[14 + 23] = 0x34;
    let d = decode(&m);
    assert!(d.error.is_some());
    assert_eq!((d.kind(), d.fails(false), d.fails(true)), (FrameKind::Other, false, true));
    // ARP, whole: other, and nothing fails.
    let mut arp = good[..12].to_vec();
    arp.extend_from_slice(&[0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    let d = decode(&arp);
    assert_eq!((d.kind(), d.fails(false), d.fails(true)), (FrameKind::Other, false, false));
    // Cut by the capture: truncated, never bad.
    let d = decode_captured(LinkType::ETHERNET, &good[..50], good.len());
    assert_eq!((d.kind(), d.fails(false)), (FrameKind::Truncated, false));
}
