//! Whole-frame decoding and building: round trips of the typical frames, truncation at
//! every byte, length fields that lie, unknown opcodes, reserved bits, frames that are not
//! RoCEv2, and the entropy value.

mod common;

use common::*;
use openrdma_codec::frame::{
    DecodedFrame, ETH_HEADER_LEN, Extensions, FrameRepr, IcrcStatus, IpRepr, UdpChecksum, decode,
};
use openrdma_codec::wire::*;
use openrdma_codec::{DecodeErrorKind, icrc, *};

/// Every layer of a cleanly decoded RoCEv2 frame as (header, start, end).
fn regions(d: &DecodedFrame<'_>) -> Vec<(Header, usize, usize)> {
    let l = &d.layout;
    let (ip, udp, bth) = (l.ip.unwrap(), l.udp.unwrap(), l.bth.unwrap());
    let ip_header = match d.ip.as_ref().unwrap() {
        IpRepr::V4(_) => Header::Ipv4,
        IpRepr::V6(_) => Header::Ipv6,
    };
    let mut r = vec![(Header::Eth, 0, ETH_HEADER_LEN)];
    if !d.vlans.is_empty() {
        r.push((Header::Vlan, ETH_HEADER_LEN, ETH_HEADER_LEN + 4));
    }
    r.push((ip_header, ip, udp));
    r.push((Header::Udp, udp, bth));
    r.push((Header::Bth, bth, bth + BTH_LEN));
    for &(h, at) in &l.ext {
        r.push((header_of(h), at, at + h.wire_len()));
    }
    let (payload, icrc_at) = (l.payload.unwrap(), l.icrc.unwrap());
    r.push((Header::Payload, payload, icrc_at));
    r.push((Header::Icrc, icrc_at, icrc_at + 4));
    r
}

/// The region that holds byte `at`.
fn region_at(regions: &[(Header, usize, usize)], at: usize) -> (Header, usize, usize) {
    *regions.iter().find(|&&(_, s, e)| s <= at && at < e).unwrap()
}

/// `e` is a truncation of `header` (spanning `start..end`) at `cut`: it names a field that
/// starts inside the header, at or before the cut, and that the cut splits, with `have` the
/// bytes of the field that remain, and prints in the form of DEC-ERR-001.
fn assert_cut(
    e: &DecodeError,
    (header, start, end): (Header, usize, usize),
    cut: usize,
    ctx: &str,
) {
    assert_eq!(e.header, header, "{ctx}: {e}");
    assert!(!e.field.is_empty(), "{ctx}: {e}");
    assert!(start <= e.offset && e.offset < end, "{ctx}: offset outside {header}: {e}");
    match e.kind {
        DecodeErrorKind::Truncated { need, have } => {
            assert!(e.offset <= cut && cut < e.offset + need, "{ctx}: field not cut: {e}");
            assert_eq!(have, cut - e.offset, "{ctx}: {e}");
        }
        k => panic!("{ctx}: expected a truncation, got {k:?}: {e}"),
    }
    let text = e.to_string();
    assert!(text.starts_with(&format!("{}.{} truncated at byte {}", header, e.field, e.offset)));
}

/// Every typical frame over every encapsulation, with its name.
fn all_frames() -> Vec<(String, FrameRepr)> {
    let mut out = Vec::new();
    for encap in Encap::ALL {
        for s in samples() {
            out.push((format!("{}/{encap:?}", s.name), build(encap, s.bth, s.ext, &s.payload)));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Round trips of the typical frames
// ---------------------------------------------------------------------------------------

#[test]
fn typical_frames_round_trip_verify_and_validate_clean() {
    for (name, f) in all_frames() {
        let bytes = f.to_bytes().unwrap();
        assert_eq!(bytes.len(), f.buffer_len(), "{name}");
        let d = decode(&bytes);
        assert_eq!(d.error, None, "{name}");
        assert_eq!(d.icrc, IcrcStatus::Ok, "{name}");
        assert!(d.is_roce() && d.is_clean(), "{name}");
        assert_eq!(d.validate(), vec![], "{name}");
        let mut back = d.to_repr().unwrap();
        assert_eq!(back.icrc, icrc::trailer(&bytes[f.buffer_len() - f.ip_len()..]), "{name}");
        assert_eq!(back.to_bytes().unwrap(), bytes, "{name}: lossless re-emit");
        back.icrc = None;
        assert_eq!(back, f, "{name}: decode(emit(x)) == x");
    }
}

#[test]
fn emit_into_a_short_buffer_is_an_error() {
    let f = sample("mrc_sack", Encap::V4);
    let mut buf = vec![0u8; f.buffer_len() - 1];
    assert!(matches!(f.emit(&mut buf), Err(EmitError::BufferTooShort { .. })));
    let mut buf = vec![0u8; f.buffer_len() + 10];
    assert_eq!(f.emit(&mut buf), Ok(f.buffer_len()));
}

#[test]
fn emit_refuses_extension_headers_that_do_not_match_the_opcode() {
    let mut f = sample("mrc_sack", Encap::V4);
    f.ext.cc_state = None;
    assert_eq!(f.to_bytes(), Err(EmitError::Inconsistent { header: Header::Bth, field: "opcode" }));
    let mut f = sample("mrc_sack", Encap::V4);
    f.ext.aeth = Some(AethRepr::new(0, AethMsn::new(0)));
    assert_eq!(f.to_bytes(), Err(EmitError::Inconsistent { header: Header::Bth, field: "opcode" }));
}

#[test]
fn layout_offsets_follow_the_encapsulation() {
    let f = sample("mrc_write_first_ts", Encap::V6Dot1q);
    let bytes = f.to_bytes().unwrap();
    let d = decode(&bytes);
    let l = &d.layout;
    assert_eq!((l.ip, l.udp, l.bth), (Some(18), Some(58), Some(66)));
    assert_eq!(l.ext, vec![(ExtHeader::Meth, 78), (ExtHeader::Tseth, 82), (ExtHeader::Reth, 86)]);
    assert_eq!(l.payload, Some(102));
    assert_eq!(l.icrc, Some(102 + 256));
    assert_eq!(l.ip_end, Some(bytes.len()));
    assert_eq!(
        d.vlans,
        vec![VlanRepr { pcp: 3, dei: false, vid: 100, ethertype: EtherType::IPV6 }]
    );
}

#[test]
fn service_tag_0x88a8_decodes_like_a_customer_tag() {
    let f = sample("mrc_nack", Encap::V4Stag);
    let bytes = f.to_bytes().unwrap();
    assert_eq!(&bytes[12..14], &[0x88, 0xA8]);
    let d = decode(&bytes);
    assert_eq!(d.eth.unwrap().ethertype, EtherType::QINQ);
    assert_eq!(d.vlans[0].ethertype, EtherType::IPV4);
    assert!(d.is_clean() && d.icrc == IcrcStatus::Ok);
}

/// DEC-VLAN-002: a decoder reads any stack of tags (0x88A8, 0x8100, 0x9100) and the RoCEv2
/// packet inside; the frame emits back byte for byte. A sender still uses one tag
/// (ENC-VLAN-002), which validate() and discard_reason() report.
#[test]
fn dec_vlan_002_stacked_tags_decode() {
    let f = sample("rc_send_only", Encap::V4);
    let plain = f.to_bytes().unwrap();
    for tags in [
        &[0x88, 0xA8, 0x00, 0x0A, 0x81, 0x00, 0x20, 0x64, 0x08, 0x00][..],
        &[0x91, 0x00, 0x00, 0x0B, 0x88, 0xA8, 0x00, 0x0A, 0x81, 0x00, 0x20, 0x64, 0x08, 0x00][..],
    ] {
        let mut bytes = plain[..12].to_vec();
        bytes.extend_from_slice(tags);
        bytes.extend_from_slice(&plain[14..]);
        let d = decode(&bytes);
        assert_eq!(d.error, None);
        assert!(d.is_roce() && d.ip.is_some());
        assert_eq!(d.icrc, IcrcStatus::Ok);
        assert_eq!(d.vlans.len(), tags.len() / 4);
        assert_eq!(d.vlans.last().unwrap().ethertype, EtherType::IPV4);
        assert_eq!(d.vlans[d.vlans.len() - 1].vid, 0x064);
        assert_eq!(d.layout.ip, Some(14 + tags.len() - 2));
        assert_eq!(d.to_repr().unwrap().to_bytes().unwrap(), bytes);
        assert_eq!(d.discard_reason(), Some("ENC-VLAN-002"));
        let v = d.validate();
        assert!(v.iter().any(|v| v.requirement == "ENC-VLAN-002"), "{v:?}");
    }
}

#[test]
fn ethernet_padding_is_kept_and_outside_the_icrc() {
    let mut f = build(
        Encap::V4,
        BthRepr::new(Opcode::RC_SEND_ONLY, Qpn::new(1), Psn::new(1)),
        Extensions::default(),
        &[],
    );
    assert_eq!(f.buffer_len(), 58);
    f.eth_padding = vec![0; 2];
    let bytes = f.to_bytes().unwrap();
    let d = decode(&bytes);
    assert!(d.is_clean());
    assert_eq!(d.eth_padding, &[0, 0]);
    assert_eq!(d.layout.ip_end, Some(58));
    assert_eq!(d.to_repr().unwrap().to_bytes().unwrap(), bytes);
    // Padding of any content leaves the ICRC valid (ICRC-COVER-001).
    let mut padded = bytes.clone();
    padded[58] = 0xAB;
    padded.push(0xCD);
    let d = decode(&padded);
    assert_eq!(d.icrc, IcrcStatus::Ok);
    assert_eq!(d.eth_padding, &[0xAB, 0, 0xCD]);
    assert_eq!(d.to_repr().unwrap().to_bytes().unwrap(), padded);
}

#[test]
fn tseth_follows_the_ts_bit_only_in_mrc_writes() {
    let with = sample("mrc_write_first_ts", Encap::V4);
    let d_bytes = with.to_bytes().unwrap();
    let d = decode(&d_bytes);
    assert_eq!(d.ext.tseth, Some(TsethRepr::new(0x4321)));
    let without = sample("mrc_write_middle", Encap::V4);
    let d_bytes = without.to_bytes().unwrap();
    assert_eq!(decode(&d_bytes).ext.tseth, None);

    // ts on an RC SEND: no TSETH is decoded, the four bytes stay payload, BTH-RESV-003.
    let mut f = sample("rc_send_only", Encap::V4);
    f.bth.ts = true;
    f.finalize().unwrap();
    let bytes = f.to_bytes().unwrap();
    let d = decode(&bytes);
    assert!(d.is_clean());
    assert_eq!(d.ext.tseth, None);
    assert_eq!(d.payload, b"hello roce v2!!!");
    let v: Vec<_> = d.validate().iter().map(|v| (v.requirement, v.field, v.offset)).collect();
    assert_eq!(v, [("BTH-RESV-003", "ts", Some(50))]);

    // ts on an MRC SACK: no TSETH either, TSETH-PRESENT-002.
    let mut f = sample("mrc_sack", Encap::V4);
    f.bth.ts = true;
    f.finalize().unwrap();
    let bytes = f.to_bytes().unwrap();
    let d = decode(&bytes);
    assert!(d.is_clean());
    assert_eq!(d.ext.tseth, None);
    let v: Vec<_> = d.validate().iter().map(|v| (v.requirement, v.field, v.offset)).collect();
    assert_eq!(v, [("TSETH-PRESENT-002", "ts", Some(50))]);
}

// ---------------------------------------------------------------------------------------
// Truncation at every byte boundary
// ---------------------------------------------------------------------------------------

/// "Captured short": the frame is cut, its length fields are intact. A cut inside the
/// Ethernet header, the tag or the IP header names that header and the field it splits; any
/// later cut is a length mismatch on the IP length field, which the decoder checks first.
#[test]
fn captured_short_every_prefix() {
    for (name, f) in all_frames() {
        let bytes = f.to_bytes().unwrap();
        let full = decode(&bytes);
        let regions = regions(&full);
        let ip_at = full.layout.ip.unwrap();
        let ip_header_end = full.layout.udp.unwrap();
        for cut in 0..bytes.len() {
            let ctx = format!("{name} cut at {cut}");
            let d = decode(&bytes[..cut]);
            let e = d.error.unwrap_or_else(|| panic!("{ctx}: decoded"));
            assert_eq!(d.icrc, IcrcStatus::Absent, "{ctx}");
            assert!(d.bth.is_none() && d.udp.is_none() && d.to_repr().is_none(), "{ctx}");
            assert!(!d.is_clean(), "{ctx}");
            if cut < ip_header_end {
                assert_cut(&e, region_at(&regions, cut), cut, &ctx);
                continue;
            }
            let want = match &f.ip {
                IpRepr::V4(v4) => DecodeError::length(
                    Header::Ipv4,
                    "total_len",
                    ip_at + 2,
                    usize::from(v4.total_len),
                    cut - ip_at,
                ),
                IpRepr::V6(v6) => DecodeError::length(
                    Header::Ipv6,
                    "payload_len",
                    ip_at + 4,
                    usize::from(v6.payload_len),
                    cut - ip_at - 40,
                ),
            };
            assert_eq!(e, want, "{ctx}");
        }
        assert!(decode(&bytes).is_clean(), "{name}");
    }
}

/// `bytes[..cut]`, plus four bytes for an ICRC when `with_icrc`, with the IP and UDP length
/// fields (and the IPv4 header checksum) rewritten to match, and the ICRC filled in.
fn consistent_cut(bytes: &[u8], full: &DecodedFrame<'_>, cut: usize, with_icrc: bool) -> Vec<u8> {
    let (ip_at, udp_at) = (full.layout.ip.unwrap(), full.layout.udp.unwrap());
    let mut b = bytes[..cut].to_vec();
    if with_icrc {
        b.extend_from_slice(&[0; 4]);
    }
    let end = b.len();
    match full.ip.as_ref().unwrap() {
        IpRepr::V4(v4) => {
            b[ip_at + 2..ip_at + 4].copy_from_slice(&((end - ip_at) as u16).to_be_bytes());
            let hl = v4.header_len();
            Ipv4Packet::new_unchecked(&mut b[ip_at..ip_at + hl]).fill_checksum();
        }
        IpRepr::V6(_) => {
            b[ip_at + 4..ip_at + 6].copy_from_slice(&((end - ip_at - 40) as u16).to_be_bytes());
        }
    }
    if cut >= udp_at + 6 {
        b[udp_at + 4..udp_at + 6].copy_from_slice(&((end - udp_at) as u16).to_be_bytes());
    }
    if with_icrc {
        icrc::fill(&mut b[ip_at..]).unwrap();
    }
    b
}

/// "Consistent short": the frame is cut and its IP and UDP lengths are rewritten to match.
/// The decoder takes the last four bytes as the ICRC, so the extension chain ends four bytes
/// before the cut: a cut in UDP or BTH names them, a cut leaving fewer than four bytes after
/// the BTH is a truncated ICRC, and otherwise the header that holds the chain's end is
/// named, or the pad (PAY-PAD-003), or the frame decodes with a shorter payload
/// (ENC-LEN-004, DEC-STRUCT-001).
#[test]
fn consistent_short_every_prefix() {
    for (name, f) in all_frames() {
        let bytes = f.to_bytes().unwrap();
        let full = decode(&bytes);
        let regions = regions(&full);
        let l = &full.layout;
        let (udp_at, bth_at) = (l.udp.unwrap(), l.bth.unwrap());
        let bth_end = bth_at + BTH_LEN;
        let ext_end = l.payload.unwrap();
        let pad = usize::from(f.bth.pad_count);
        for cut in udp_at..bytes.len() {
            let ctx = format!("{name} cut at {cut}");
            let b = consistent_cut(&bytes, &full, cut, false);
            let d = decode(&b);
            if cut < bth_end + 4 {
                let e = d.error.unwrap_or_else(|| panic!("{ctx}: decoded"));
                if cut < bth_end {
                    assert_cut(&e, region_at(&regions, cut), cut, &ctx);
                } else {
                    let want =
                        DecodeError::truncated(Header::Icrc, "icrc", bth_end, 4, cut - bth_end);
                    assert_eq!(e, want, "{ctx}");
                    assert_eq!(d.icrc, IcrcStatus::Absent, "{ctx}");
                }
                continue;
            }
            let chain_end = cut - 4;
            assert!(d.icrc_trailer.is_some(), "{ctx}");
            if chain_end < ext_end {
                let e = d.error.unwrap_or_else(|| panic!("{ctx}: decoded"));
                assert_cut(&e, region_at(&regions, chain_end), chain_end, &ctx);
            } else if chain_end - ext_end < pad {
                let want = DecodeError::truncated(
                    Header::Payload,
                    "pad",
                    ext_end,
                    pad,
                    chain_end - ext_end,
                );
                assert_eq!(d.error, Some(want), "{ctx}");
            } else {
                assert_eq!(d.error, None, "{ctx}");
                assert_eq!(d.payload.len(), chain_end - ext_end - pad, "{ctx}");
                // Still lossless, whatever the ICRC says.
                assert_eq!(d.to_repr().unwrap().to_bytes().unwrap(), b, "{ctx}");
            }
        }
    }
}

/// Like [`consistent_short_every_prefix`], with a correct ICRC appended after the cut: the
/// frame is consistent in everything but the cut header, which is named exactly, and the
/// headers before it are kept (DEC-STRUCT-001).
#[test]
fn consistent_short_with_valid_icrc_names_the_cut_header() {
    for (name, f) in all_frames() {
        let bytes = f.to_bytes().unwrap();
        let full = decode(&bytes);
        let regions = regions(&full);
        let bth_end = full.layout.bth.unwrap() + BTH_LEN;
        let ext_end = full.layout.payload.unwrap();
        for cut in bth_end..=ext_end {
            let ctx = format!("{name} cut at {cut}");
            let b = consistent_cut(&bytes, &full, cut, true);
            let d = decode(&b);
            assert_eq!(d.icrc, IcrcStatus::Ok, "{ctx}");
            if cut < ext_end {
                let e = d.error.unwrap_or_else(|| panic!("{ctx}: decoded"));
                let cut_header = region_at(&regions, cut);
                assert_cut(&e, cut_header, cut, &ctx);
                // The layout ends with the cut header, every one before it decoded.
                let last = d.layout.ext.last().map(|&(h, at)| (header_of(h), at));
                assert_eq!(last, Some((cut_header.0, cut_header.1)), "{ctx}");
                let decoded = full.layout.ext.iter().filter(|x| x.1 < cut_header.1).count();
                assert_eq!(d.ext.count(), decoded, "{ctx}");
            } else if f.bth.pad_count == 0 {
                assert_eq!(d.error, None, "{ctx}");
                assert!(d.payload.is_empty(), "{ctx}");
            } else {
                let pad = usize::from(f.bth.pad_count);
                let want = DecodeError::truncated(Header::Payload, "pad", ext_end, pad, 0);
                assert_eq!(d.error, Some(want), "{ctx}");
            }
        }
    }
}

/// The errors of a SACK over untagged IPv4 cut at each header boundary. Offsets: IPv4 14,
/// UDP 34, BTH 42, SETH 54, CC_STATE 82, ICRC 90, end 94.
#[test]
fn sack_cut_at_each_boundary() {
    let f = sample("mrc_sack", Encap::V4);
    let bytes = f.to_bytes().unwrap();
    assert_eq!(bytes.len(), 94);
    let full = decode(&bytes);
    let err = |b: &[u8]| decode(b).error.unwrap();

    // Captured short: the IPv4 total length (80) is checked first.
    for (cut, avail) in [(34, 20), (42, 28), (54, 40), (82, 68), (90, 76)] {
        assert_eq!(
            err(&bytes[..cut]),
            DecodeError::length(Header::Ipv4, "total_len", 16, 80, avail)
        );
    }
    assert_eq!(err(&bytes[..14]), DecodeError::truncated(Header::Ipv4, "version", 14, 1, 0));
    assert_eq!(err(&bytes[..12]), DecodeError::truncated(Header::Eth, "ethertype", 12, 2, 0));
    assert_eq!(err(&bytes[..0]), DecodeError::truncated(Header::Eth, "dst", 0, 6, 0));

    // Consistent short, no room left for an ICRC after the BTH: the ICRC is what is missing.
    let b = consistent_cut(&bytes, &full, 54, false);
    assert_eq!(err(&b), DecodeError::truncated(Header::Icrc, "icrc", 54, 4, 0));
    assert_eq!(err(&b).to_string(), "ICRC.icrc truncated at byte 54: need 4, have 0");
    let b = consistent_cut(&bytes, &full, 42, false);
    assert_eq!(err(&b), DecodeError::truncated(Header::Bth, "opcode", 42, 1, 0));
    let b = consistent_cut(&bytes, &full, 34, false);
    assert_eq!(err(&b), DecodeError::truncated(Header::Udp, "src_port", 34, 2, 0));

    // Consistent short with a valid ICRC after the cut: the missing header is named.
    let b = consistent_cut(&bytes, &full, 54, true);
    assert_eq!(err(&b), DecodeError::truncated(Header::Seth, "res_type", 54, 1, 0));
    assert_eq!(decode(&b).bth.unwrap().opcode, Opcode::MRC_SACK);
    let b = consistent_cut(&bytes, &full, 77, true);
    assert_eq!(err(&b), DecodeError::truncated(Header::Seth, "sack_bitmap", 74, 8, 3));
    let b = consistent_cut(&bytes, &full, 82, true);
    assert_eq!(err(&b), DecodeError::truncated(Header::CcState, "tx_timestamp", 82, 2, 0));
    let d = decode(&b);
    assert_eq!(d.ext.seth, Some(worked_example_seth()));
    assert_eq!(d.icrc, IcrcStatus::Ok);
    let b = consistent_cut(&bytes, &full, 89, true);
    assert_eq!(err(&b), DecodeError::truncated(Header::CcState, "rcvd_bytes", 87, 3, 2));
}

/// The example of DEC-ERR-001, reproduced: a SACK whose SETH starts at byte 62 (IPv4 with
/// 8 bytes of options), cut 3 bytes into the bitmap.
#[test]
fn spec_example_error_text() {
    let f = sample("mrc_sack", Encap::V4Options);
    let bytes = f.to_bytes().unwrap();
    let full = decode(&bytes);
    assert_eq!(full.layout.ext[0], (ExtHeader::Seth, 62));
    let b = consistent_cut(&bytes, &full, 85, true);
    let e = decode(&b).error.unwrap();
    assert_eq!(e.to_string(), "SETH.sack_bitmap truncated at byte 82: need 8, have 3");
}

#[test]
fn mrc_write_cut_at_each_boundary() {
    // IPv6 untagged: IPv6 14, UDP 54, BTH 62, METH 74, TSETH 78, RETH 82, payload 98.
    let f = sample("mrc_write_first_ts", Encap::V6);
    let bytes = f.to_bytes().unwrap();
    let full = decode(&bytes);
    let err = |cut| decode(&consistent_cut(&bytes, &full, cut, true)).error;
    assert_eq!(err(74), Some(DecodeError::truncated(Header::Meth, "rqmsn", 74, 2, 0)));
    assert_eq!(err(77), Some(DecodeError::truncated(Header::Meth, "msn", 76, 2, 1)));
    assert_eq!(err(78), Some(DecodeError::truncated(Header::Tseth, "tx_timestamp", 78, 2, 0)));
    assert_eq!(err(81), Some(DecodeError::truncated(Header::Tseth, "tsr", 80, 2, 1)));
    assert_eq!(err(82), Some(DecodeError::truncated(Header::Reth, "va", 82, 8, 0)));
    assert_eq!(err(90), Some(DecodeError::truncated(Header::Reth, "rkey", 90, 4, 0)));
    assert_eq!(err(97), Some(DecodeError::truncated(Header::Reth, "dma_len", 94, 4, 3)));
    assert_eq!(err(98), None);
    // Captured short over IPv6: the payload length (8 + 12 + 24 + 256 + 4 = 304) is checked
    // first.
    let e = decode(&bytes[..80]).error.unwrap();
    assert_eq!(e, DecodeError::length(Header::Ipv6, "payload_len", 18, 304, 26));
    assert_eq!(e.to_string(), "IPv6.payload_len at byte 18 claims 304 bytes, but 26 are available");
    let e = decode(&bytes[..53]).error.unwrap();
    assert_eq!(e, DecodeError::truncated(Header::Ipv6, "dst", 38, 16, 15));
}

#[test]
fn pad_count_beyond_the_packet_is_a_truncated_pad() {
    // PAY-PAD-003: an ACK whose pad_count claims 3 bytes where there are none.
    let f = sample("mrc_ack", Encap::V4);
    let mut b = f.to_bytes().unwrap();
    b[43] |= 0x30;
    icrc::fill(&mut b[14..]).unwrap();
    let d = decode(&b);
    assert_eq!(d.icrc, IcrcStatus::Ok);
    assert_eq!(d.error, Some(DecodeError::truncated(Header::Payload, "pad", 58, 3, 0)));
    assert!(d.to_repr().is_none());
}

// ---------------------------------------------------------------------------------------
// Length fields that lie
// ---------------------------------------------------------------------------------------

fn set_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

// ENC-LEN-002: an IP length that claims more than the frame holds, or an IPv4 total length
// below the header; ENC-LEN-001: a UDP length that differs from the IP payload.

#[test]
fn ipv4_total_len_too_large() {
    let bytes = sample("rc_send_only", Encap::V4).to_bytes().unwrap();
    assert_eq!(bytes.len(), 74);
    for claimed in [61u16, 100, 0xFFFF] {
        let mut b = bytes.clone();
        set_u16(&mut b, 16, claimed);
        let d = decode(&b);
        assert_eq!(
            d.error,
            Some(DecodeError::length(Header::Ipv4, "total_len", 16, claimed.into(), 60))
        );
        assert!(d.ip.is_none() && d.udp.is_none());
        assert_eq!(d.icrc, IcrcStatus::Absent);
    }
}

#[test]
fn ipv4_total_len_below_the_header() {
    let bytes = sample("rc_send_only", Encap::V4Options).to_bytes().unwrap();
    // IHL 7: the header alone is 28 bytes.
    for claimed in [0u16, 19, 20, 27] {
        let mut b = bytes.clone();
        set_u16(&mut b, 16, claimed);
        let e = decode(&b).error.unwrap();
        assert_eq!(e, DecodeError::length(Header::Ipv4, "total_len", 16, claimed.into(), 68));
    }
}

#[test]
fn ipv4_total_len_short_of_the_udp_datagram() {
    // The IP packet ends 4 bytes early: those bytes become Ethernet padding, and UDP's
    // length no longer fits the IP payload.
    let bytes = sample("rc_send_only", Encap::V4).to_bytes().unwrap();
    let mut b = bytes.clone();
    set_u16(&mut b, 16, 56);
    let d = decode(&b);
    assert_eq!(d.error, Some(DecodeError::length(Header::Udp, "length", 38, 40, 36)));
    assert_eq!(d.eth_padding.len(), 4);
    assert!(d.ip.is_some() && d.udp.is_none());
}

#[test]
fn udp_length_different_from_the_ip_payload() {
    for encap in [Encap::V4, Encap::V6, Encap::V4Dot1q] {
        let bytes = sample("mrc_probe", encap).to_bytes().unwrap();
        let udp_at = encap.ip_at() + if encap.is_v6() { 40 } else { 20 };
        let real = 8 + 12 + 16 + 4;
        for claimed in [0u16, 4, 8, 39, 41, 0xFFFF] {
            let mut b = bytes.clone();
            set_u16(&mut b, udp_at + 4, claimed);
            let d = decode(&b);
            let want = DecodeError::length(Header::Udp, "length", udp_at + 4, claimed.into(), real);
            assert_eq!(d.error, Some(want), "{encap:?} {claimed}");
            assert!(d.bth.is_none());
            assert_eq!(d.icrc, IcrcStatus::Absent);
        }
    }
}

#[test]
fn ipv6_payload_len_too_large_or_too_small() {
    let bytes = sample("mrc_probe", Encap::V6).to_bytes().unwrap();
    let mut b = bytes.clone();
    set_u16(&mut b, 18, 41);
    assert_eq!(
        decode(&b).error,
        Some(DecodeError::length(Header::Ipv6, "payload_len", 18, 41, 40))
    );
    let mut b = bytes.clone();
    set_u16(&mut b, 18, 36);
    let d = decode(&b);
    assert_eq!(d.error, Some(DecodeError::length(Header::Udp, "length", 58, 40, 36)));
    assert_eq!(d.eth_padding.len(), 4);
}

/// ENC-IPV4-005, ENC-IPV6-002.
#[test]
fn ip_version_and_ihl_that_cannot_be_followed() {
    let bytes = sample("rc_send_only", Encap::V4).to_bytes().unwrap();
    let mut b = bytes.clone();
    b[14] = 0x44; // IHL 4
    assert_eq!(decode(&b).error, Some(DecodeError::bad_value(Header::Ipv4, "ihl", 14, 4)));
    let mut b = bytes.clone();
    b[14] = 0x65; // version 6 behind an IPv4 ethertype
    assert_eq!(decode(&b).error, Some(DecodeError::bad_value(Header::Ipv4, "version", 14, 6)));
    let bytes = sample("rc_send_only", Encap::V6).to_bytes().unwrap();
    let mut b = bytes.clone();
    b[14] = 0x40;
    assert_eq!(decode(&b).error, Some(DecodeError::bad_value(Header::Ipv6, "version", 14, 4)));
}

// ---------------------------------------------------------------------------------------
// Unknown opcodes and reserved bits
// ---------------------------------------------------------------------------------------

#[test]
fn unknown_opcode_has_no_extension_headers() {
    // OPC-UNKNOWN-001: no extension headers; the bytes between the BTH and the ICRC are
    // payload followed by `pad_count` bytes of pad, kept as they are.
    for encap in [Encap::V4, Encap::V6Dot1q] {
        for (len, pad) in [(21usize, [0u8, 0, 0]), (1, [1, 2, 3]), (0, [0; 3]), (40, [0; 3])] {
            let body = payload(len);
            let mut f = build(
                encap,
                BthRepr::new(Opcode(0xF0), Qpn::new(5), Psn::new(6)),
                Extensions::default(),
                &body,
            );
            let pad_count = (4 - len % 4) % 4;
            assert_eq!(usize::from(f.bth.pad_count), pad_count, "finalize pads any opcode");
            f.pad = pad;
            refresh_udp_checksum(&mut f);
            let bytes = f.to_bytes().unwrap();
            let d = decode(&bytes);
            let ctx = format!("{encap:?} {len}");
            assert_eq!(d.error, None, "{ctx}");
            assert_eq!(d.icrc, IcrcStatus::Ok, "{ctx}");
            assert_eq!(d.payload, &body[..], "{ctx}");
            assert_eq!(d.pad, &pad[..pad_count], "{ctx}");
            assert_eq!(d.ext.count(), 0, "{ctx}");
            let bth_at = d.layout.bth.unwrap();
            assert_eq!(d.layout.payload, Some(bth_at + BTH_LEN), "{ctx}");
            let v: Vec<_> = d.validate().iter().map(|v| v.requirement).collect();
            let pad_zero = pad[..pad_count].iter().all(|b| *b == 0);
            let want: &[&str] =
                if pad_zero { &["OPC-UNKNOWN-001"] } else { &["OPC-UNKNOWN-001", "PAY-PAD-002"] };
            assert_eq!(v, want, "{ctx}");
            assert_eq!(d.validate()[0].offset, Some(bth_at), "{ctx}");
            let back = d.to_repr().unwrap();
            assert_eq!(back.to_bytes().unwrap(), bytes, "{ctx}");
            assert_eq!(FrameRepr { icrc: None, ..back }, f, "{ctx}");
        }
    }
    // Headers of an opcode the table does not know stay payload, whatever they look like.
    let s = samples().into_iter().find(|s| s.name == "mrc_sack").unwrap();
    let mut bytes = build(Encap::V4, s.bth, s.ext, &[]).to_bytes().unwrap();
    bytes[42] = 0xDB;
    icrc::fill(&mut bytes[14..]).unwrap();
    let d = decode(&bytes);
    assert!(d.is_clean() && d.icrc == IcrcStatus::Ok);
    assert_eq!(d.payload.len(), 28 + 8);
    assert_eq!(d.to_repr().unwrap().to_bytes().unwrap(), bytes);
    // The pad is located as for any opcode, so a pad_count beyond the bytes after the BTH
    // is the same decode error (PAY-PAD-003).
    let mut f = build(
        Encap::V4,
        BthRepr::new(Opcode(0xF0), Qpn::new(5), Psn::new(6)),
        Extensions::default(),
        &[],
    );
    f.bth.pad_count = 2;
    fix_lengths(&mut f);
    let bytes = f.to_bytes().unwrap();
    let full = decode(&bytes);
    assert!(full.is_clean() && full.pad.len() == 2);
    let b = consistent_cut(&bytes, &full, 54, true);
    let d = decode(&b);
    assert_eq!(d.error, Some(DecodeError::truncated(Header::Payload, "pad", 54, 2, 0)));
}

#[test]
fn unknown_mrc_opcode_with_ts_has_no_tseth() {
    let mut b = BthRepr::new(Opcode(0xDF), Qpn::new(5), Psn::new(6));
    b.ts = true;
    let f = build(Encap::V6, b, Extensions::default(), &payload(12));
    let bytes = f.to_bytes().unwrap();
    let d = decode(&bytes);
    assert!(d.is_clean());
    assert_eq!(d.payload.len(), 12);
    let mut ids: Vec<_> = d.validate().iter().map(|v| v.requirement).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["OPC-UNKNOWN-001", "TSETH-PRESENT-002"]);
}

/// Decodes, checks the ICRC and the lossless re-emit, and returns the violations as
/// (requirement, field, offset).
fn violations(f: &FrameRepr) -> Vec<(&'static str, &'static str, Option<usize>)> {
    let mut f = f.clone();
    refresh_udp_checksum(&mut f);
    let f = &f;
    let bytes = f.to_bytes().unwrap();
    let d = decode(&bytes);
    assert_eq!(d.error, None);
    assert_eq!(d.icrc, IcrcStatus::Ok);
    let back = d.to_repr().unwrap();
    assert_eq!(back.to_bytes().unwrap(), bytes, "reserved bits survive re-emit");
    assert_eq!(FrameRepr { icrc: None, ..back }, *f);
    d.validate().iter().map(|v| (v.requirement, v.field, v.offset)).collect()
}

#[test]
fn reserved_bits_in_bth_survive_and_are_reported() {
    // MRC opcode: byte 4 is reserved as a whole (BTH-RESV-002); BTH at 42.
    let mut f = sample("mrc_sack", Encap::V4);
    f.bth.fecn = true;
    f.bth.resv6 = 0x15;
    f.bth.resv8 = 0x41;
    f.bth.tver = 2;
    let v = violations(&f);
    assert_eq!(
        v,
        [
            ("BTH-TVER-001", "tver", Some(43)),
            ("BTH-RESV-002", "fecn_becn", Some(46)),
            ("BTH-RESV-003", "resv8", Some(50)),
        ]
    );
    // RC opcode: FECN/BECN are meaningful, resv6 is not (BTH-RESV-001); rtx is reserved.
    let mut f = sample("rc_send_only", Encap::V6);
    f.bth.becn = true;
    f.bth.resv6 = 0x3F;
    f.bth.rtx = true;
    let v = violations(&f);
    assert_eq!(v, [("BTH-RESV-001", "resv6", Some(66)), ("BTH-RESV-003", "rtx", Some(70))]);
}

#[test]
fn reserved_bits_in_seth_and_cc_state_survive_and_are_reported() {
    // SETH at 54, CC_STATE at 82.
    let mut f = sample("mrc_sack", Encap::V4);
    let seth = f.ext.seth.as_mut().unwrap();
    seth.resv1 = SETH_RESV1_MASK;
    seth.resv12 = 0xA5;
    seth.m = EvMark(3);
    f.ext.cc_state.as_mut().unwrap().resv = true;
    let v = violations(&f);
    assert_eq!(
        v,
        [
            ("SETH-M-001", "m", Some(55)),
            ("SETH-RESV-001", "resv1", Some(55)),
            ("SETH-RESV-001", "resv12", Some(66)),
            ("CCS-RESV-001", "resv", Some(84)),
        ]
    );
}

#[test]
fn reserved_bits_in_neth_survive_and_are_reported() {
    // NETH at 54.
    let mut f = sample("mrc_nack", Encap::V4);
    let neth = f.ext.neth.as_mut().unwrap();
    neth.resv1 = 0x7F;
    neth.resv12 = 1;
    neth.resv17 = 0x80;
    neth.reason = NackReason(0x42);
    let v = violations(&f);
    assert_eq!(
        v,
        [
            ("NETH-RESV-001", "resv1", Some(55)),
            ("NETH-REASON-001", "reason", Some(56)),
            ("NETH-RESV-001", "resv12", Some(66)),
            ("NETH-RESV-001", "resv17", Some(71)),
        ]
    );
}

/// DEC-VAL-001: validation reports each broken rule as a violation carrying the ID of the
/// requirement broken, the header, the field, its absolute byte offset and the value found,
/// and leaves the decoded packet as it was.
#[test]
fn dec_val_001_violations_name_the_rule_and_leave_the_packet_alone() {
    let mut f = sample("mrc_nack", Encap::V4Dot1q);
    let neth = f.ext.neth.as_mut().unwrap();
    neth.resv1 = 0x7F;
    neth.reason = NackReason(0x42);
    neth.resv17 = 0x80;
    f.bth.tver = 3;
    let bytes = f.to_bytes().unwrap();
    let d = decode(&bytes);
    let before = d.clone();
    let v = d.validate();
    assert_eq!(d, before, "validation changed the decoded frame");
    assert_eq!(d.to_repr().unwrap().to_bytes().unwrap(), bytes);
    // BTH at 46 behind the tag, NETH at 58.
    let got: Vec<_> =
        v.iter().map(|v| (v.requirement, v.header, v.field, v.offset, v.value)).collect();
    assert_eq!(
        got,
        [
            ("BTH-TVER-001", Header::Bth, "tver", Some(47), 3),
            ("NETH-RESV-001", Header::Neth, "resv1", Some(59), 0x7F),
            ("NETH-REASON-001", Header::Neth, "reason", Some(60), 0x42),
            ("NETH-RESV-001", Header::Neth, "resv17", Some(75), 0x80),
        ]
    );
    assert!(v.iter().all(|v| !v.rule.is_empty()));
    // Validating twice gives the same violations.
    assert_eq!(d.validate(), v);
}

#[test]
fn frame_level_violations() {
    // A payload on an opcode without one (PAY-NONE-001), non-zero pad (PAY-PAD-002), a bad
    // ICRC (ICRC-VERIFY-001), and the outer headers (ENC-ETH-002, ENC-VLAN-001).
    let mut f = sample("mrc_ack", Encap::V4Dot1q);
    f.payload = vec![1, 2, 3];
    f.finalize().unwrap();
    f.pad = [0, 0, 0];
    f.pad[0] = 9;
    f.eth.src = EthernetAddress([0x03, 0, 0, 0, 0, 1]);
    f.vlans[0].vid = 0xFFF;
    let mut bytes = f.to_bytes().unwrap();
    let n = bytes.len();
    bytes[n - 1] ^= 0xFF;
    let d = decode(&bytes);
    assert_eq!(d.error, None);
    assert!(matches!(d.icrc, IcrcStatus::Bad { .. }));
    assert!(!d.is_clean());
    let v: Vec<_> = d.validate().iter().map(|v| (v.requirement, v.offset)).collect();
    assert_eq!(
        v,
        [
            ("ENC-ETH-002", Some(6)),
            ("ENC-VLAN-001", Some(14)),
            ("PAY-NONE-001", Some(62)),
            ("PAY-PAD-002", Some(65)),
            ("ICRC-VERIFY-001", Some(66)),
        ]
    );

    // A pad count that does not align the payload (PAY-PAD-001): 15 bytes, no pad.
    let mut f = sample("rc_send_only", Encap::V4);
    f.payload.pop();
    fix_lengths(&mut f);
    let bytes = f.to_bytes().unwrap();
    let d = decode(&bytes);
    assert_eq!(d.error, None);
    assert_eq!(d.icrc, IcrcStatus::Ok);
    let v: Vec<_> = d.validate().iter().map(|v| (v.requirement, v.offset)).collect();
    assert_eq!(v, [("PAY-PAD-001", Some(43))]);
    f.finalize().unwrap();
    assert_eq!(f.bth.pad_count, 1, "finalize recomputes the pad count");
}

/// Makes the IP and UDP lengths and the IPv4 checksum match the frame as it is, without
/// touching the pad count (unlike `finalize`).
fn fix_lengths(f: &mut FrameRepr) {
    let (ip_len, hl) = (f.ip_len(), f.ip.header_len());
    f.udp.length = (ip_len - hl) as u16;
    match &mut f.ip {
        IpRepr::V4(v4) => {
            v4.total_len = ip_len as u16;
            v4.fill_checksum().unwrap();
        }
        IpRepr::V6(v6) => v6.payload_len = (ip_len - hl) as u16,
    }
    f.icrc = None;
}

// ---------------------------------------------------------------------------------------
// Frames that are not RoCEv2
// ---------------------------------------------------------------------------------------

fn eth_header(ethertype: EtherType) -> Vec<u8> {
    let mut b = vec![0u8; 14];
    EthernetRepr { dst: MAC_B, src: MAC_A, ethertype }.emit(&mut b).unwrap();
    b
}

fn udp_over_ipv4(dst_port: u16, ip: impl FnOnce(&mut Ipv4Repr)) -> Vec<u8> {
    let body = payload(24);
    let mut b = eth_header(EtherType::IPV4);
    let mut v4 = ipv4();
    v4.set_payload_len(8 + body.len()).unwrap();
    ip(&mut v4);
    let mut h = vec![0u8; 20];
    v4.emit_with_checksum(&mut h).unwrap();
    b.extend_from_slice(&h);
    let udp = UdpRepr { src_port: 1234, dst_port, length: 8 + body.len() as u16, checksum: 0 };
    let mut u = [0u8; 8];
    udp.emit(&mut u).unwrap();
    b.extend_from_slice(&u);
    b.extend_from_slice(&body);
    b
}

fn assert_not_roce<'a>(b: &'a [u8], ctx: &str) -> DecodedFrame<'a> {
    let d = decode(b);
    assert_eq!(d.error, None, "{ctx}");
    assert_eq!(d.icrc, IcrcStatus::Absent, "{ctx}");
    assert!(d.bth.is_none() && !d.is_roce(), "{ctx}");
    assert!(d.is_clean(), "{ctx}");
    assert!(d.to_repr().is_none(), "{ctx}");
    assert_eq!(d.icrc_trailer, None, "{ctx}");
    d
}

// ENC-ROCE-001: not RoCEv2, no error, ICRC verdict absent.

#[test]
fn arp_is_not_roce() {
    let mut b = eth_header(EtherType::ARP);
    b.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    b.extend_from_slice(&[0; 20]);
    let d = assert_not_roce(&b, "arp");
    assert_eq!(d.eth.unwrap().ethertype, EtherType::ARP);
    assert!(d.ip.is_none());
    let v: Vec<_> = d.validate().iter().map(|v| v.requirement).collect();
    assert_eq!(v, ["ENC-ETH-001"]);
}

#[test]
fn udp_to_another_port_is_not_roce() {
    let b = udp_over_ipv4(53, |_| {});
    let d = assert_not_roce(&b, "dns");
    assert_eq!(d.udp.unwrap().dst_port, 53);
    assert_eq!(d.layout.udp, Some(34));
    // The neighbouring port too (4792 is not 4791).
    let b = udp_over_ipv4(ROCEV2_PORT + 1, |_| {});
    assert_not_roce(&b, "4792");
}

#[test]
fn ipv4_fragments_are_not_roce() {
    let b = udp_over_ipv4(ROCEV2_PORT, |ip| ip.more_frags = true);
    let d = assert_not_roce(&b, "first fragment");
    assert!(d.ip.is_some() && d.udp.is_none());
    let b = udp_over_ipv4(ROCEV2_PORT, |ip| ip.frag_offset = 3);
    let d = assert_not_roce(&b, "later fragment");
    assert!(d.udp.is_none());
    let v: Vec<_> = d.validate().iter().map(|v| (v.requirement, v.field)).collect();
    assert_eq!(v, [("ENC-IPV4-002", "frag_offset")]);
}

#[test]
fn ipv6_carrying_tcp_is_not_roce() {
    let mut b = eth_header(EtherType::IPV6);
    let mut v6 = ipv6();
    v6.next_header = 6;
    v6.payload_len = 20;
    let mut h = [0u8; 40];
    v6.emit(&mut h).unwrap();
    b.extend_from_slice(&h);
    b.extend_from_slice(&[0x12, 0xB7, 0x12, 0xB7]);
    b.extend_from_slice(&[0; 16]);
    let d = assert_not_roce(&b, "tcp");
    assert!(d.ip.is_some() && d.udp.is_none());
    assert_eq!(d.layout.ip_end, Some(b.len()));
}

#[test]
fn arp_behind_a_tag_is_not_ip() {
    let mut b = eth_header(EtherType::VLAN);
    b.extend_from_slice(&[0x00, 0x64, 0x08, 0x06]);
    b.extend_from_slice(&[0; 28]);
    let d = assert_not_roce(&b, "arp behind a tag");
    assert_eq!(d.vlans[0].ethertype, EtherType::ARP);
}

// ---------------------------------------------------------------------------------------
// Entropy value
// ---------------------------------------------------------------------------------------

#[test]
fn entropy_over_ipv6_uses_port_and_flow_label() {
    let mut f = sample("mrc_write_middle", Encap::V6);
    f.set_entropy(Ev::new(0xABCD_1234));
    assert_eq!(f.udp.src_port, 0xABCD);
    let IpRepr::V6(v6) = &f.ip else { unreachable!() };
    assert_eq!(v6.flow_label, 0x1234);
    assert_eq!(f.entropy(), Ev::new(0xABCD_1234));
    f.finalize().unwrap();
    let bytes = f.to_bytes().unwrap();
    let d = decode(&bytes);
    assert_eq!(d.entropy(), Some(Ev::new(0xABCD_1234)));
    // Flow label bits 19:16 are not part of the EV and are ignored on receipt; a sender
    // sets them to 0 (ENC-EV-001), so set_entropy clears them.
    let mut g = f.clone();
    if let IpRepr::V6(v6) = &mut g.ip {
        v6.flow_label |= 0xF_0000;
    }
    assert_eq!(g.entropy(), Ev::new(0xABCD_1234));
    g.set_entropy(Ev::new(0x0001_0002));
    let IpRepr::V6(v6) = &g.ip else { unreachable!() };
    assert_eq!(v6.flow_label, 0x0_0002);
    assert_eq!(g.entropy(), Ev::new(0x0001_0002));
}

#[test]
fn entropy_over_ipv4_is_the_source_port_only() {
    let mut f = sample("mrc_write_middle", Encap::V4Dot1q);
    f.set_entropy(Ev::new(0xABCD_1234));
    assert_eq!(f.udp.src_port, 0xABCD);
    assert_eq!(f.entropy(), Ev::new(0xABCD_0000), "ENC-EV-002: the low half is not carried");
    f.finalize().unwrap();
    let bytes = f.to_bytes().unwrap();
    assert_eq!(decode(&bytes).entropy(), Some(Ev::new(0xABCD_0000)));
}

#[test]
fn entropy_is_none_without_udp() {
    let b = udp_over_ipv4(ROCEV2_PORT, |ip| ip.more_frags = true);
    assert_eq!(decode(&b).entropy(), None);
    assert_eq!(decode(&[]).entropy(), None);
    // A UDP frame that is not RoCEv2 still has an EV.
    let b = udp_over_ipv4(53, |_| {});
    assert_eq!(decode(&b).entropy(), Some(Ev::new(1234 << 16)));
}

/// A received frame re-emitted with a new EV and its ICRC as received.
fn rewrite_ev(bytes: &[u8], ev: u32) -> Vec<u8> {
    let mut r = decode(bytes).to_repr().unwrap();
    assert!(r.icrc.is_some());
    r.set_entropy(Ev::new(ev));
    r.to_bytes().unwrap()
}

#[test]
fn flow_label_rewrite_keeps_the_icrc_and_source_port_rewrite_breaks_it() {
    for encap in [Encap::V6, Encap::V6Dot1q, Encap::V6Stag] {
        let mut f = sample("mrc_write_first_ts", encap);
        f.set_entropy(Ev::new(0xC000_1234));
        f.finalize().unwrap();
        let bytes = f.to_bytes().unwrap();
        assert_eq!(decode(&bytes).icrc, IcrcStatus::Ok);

        // The low half travels in the masked flow label: the network may rewrite it.
        let b = rewrite_ev(&bytes, 0xC000_BEEF);
        let d = decode(&b);
        assert_eq!(d.icrc, IcrcStatus::Ok, "{encap:?}");
        assert_eq!(d.entropy(), Some(Ev::new(0xC000_BEEF)));

        // The high half travels in the covered source port: a rewrite is corruption.
        let b = rewrite_ev(&bytes, 0xC001_1234);
        let d = decode(&b);
        assert!(matches!(d.icrc, IcrcStatus::Bad { .. }), "{encap:?}");
        assert_eq!(d.entropy(), Some(Ev::new(0xC001_1234)));
        assert!(d.validate().iter().any(|v| v.requirement == "ICRC-VERIFY-001"));
    }
    // Over IPv4 only the source port carries the EV, and it is covered.
    let bytes = sample("mrc_write_first_ts", Encap::V4).to_bytes().unwrap();
    assert!(matches!(decode(&rewrite_ev(&bytes, 0xC001_0000)).icrc, IcrcStatus::Bad { .. }));
    assert_eq!(decode(&rewrite_ev(&bytes, 0xC000_FFFF)).icrc, IcrcStatus::Ok);
}

/// `reseal` after an edit that changes no length: the ICRC is computed again, and so is a
/// UDP checksum the frame carried, while a zero checksum stays zero; without it the edit
/// leaves a frame a receiver discards.
#[test]
fn reseal_makes_an_edited_frame_sound_again() {
    for encap in [Encap::V4, Encap::V6, Encap::V4Dot1q] {
        for with_checksum in [false, true] {
            let mut f = sample("mrc_write_middle", encap);
            if with_checksum {
                f.fill_udp_checksum().unwrap();
            } else {
                f.udp.checksum = 0;
            }
            let mut f = decode(&f.to_bytes().unwrap()).to_repr().unwrap();
            let ev = Ev::new(f.entropy().value() ^ 0x0003_0000);
            f.set_entropy(ev);
            let stale = decode(&f.to_bytes().unwrap()).discard_reason();
            assert!(stale.is_some(), "{encap:?}: the edit alone left the frame sound");
            f.reseal().unwrap();
            let bytes = f.to_bytes().unwrap();
            let d = decode(&bytes);
            assert_eq!(d.discard_reason(), None, "{encap:?}, checksum {with_checksum}");
            assert_eq!(d.entropy(), Some(ev));
            let want = if with_checksum { UdpChecksum::Ok } else { UdpChecksum::Zero };
            assert_eq!(d.udp_checksum(), want, "{encap:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Why a receiver takes no action on a frame (RCV-FRAME-001)
// ---------------------------------------------------------------------------------------

/// Each kind of frame a receiver must not act on is named by the requirement that makes it
/// so; a sound packet, with or without a UDP checksum, has no discard reason.
#[test]
fn discard_reasons_name_the_requirement() {
    let reason = |b: &[u8]| decode(b).discard_reason();
    for encap in [Encap::V4, Encap::V6, Encap::V4Dot1q] {
        let f = sample("mrc_write_middle", encap);
        let bytes = f.to_bytes().unwrap();
        assert_eq!(reason(&bytes), None, "{encap:?}");
        let ip = encap.ip_at();
        let udp = ip + if encap.is_v6() { 40 } else { 20 };
        // The ICRC trailer is inside the UDP checksum, which must stay right.
        let mut g = f.clone();
        g.icrc = Some(0xDEAD_BEEF);
        if encap.is_v6() {
            g.fill_udp_checksum().unwrap();
        }
        assert_eq!(reason(&g.to_bytes().unwrap()), Some("ICRC-VERIFY-001"), "{encap:?}");
        // A UDP checksum: right, then wrong (ENC-UDP-003 over IPv4 and ENC-UDP-005 over IPv6
        // for the sender, ENC-UDP-006 for the receiver).
        let mut g = f.clone();
        g.fill_udp_checksum().unwrap();
        assert_eq!(reason(&g.to_bytes().unwrap()), None, "{encap:?}");
        g.udp.checksum ^= 0x0101;
        let bad = g.to_bytes().unwrap();
        assert_eq!(reason(&bad), Some("ENC-UDP-006"), "{encap:?}");
        let d = decode(&bad);
        assert!(matches!(d.udp_checksum(), UdpChecksum::Bad { .. }));
        let sender_rule = if encap.is_v6() { "ENC-UDP-005" } else { "ENC-UDP-003" };
        assert!(d.validate().iter().any(|v| v.requirement == sender_rule), "{encap:?}");
        let mut b = bytes.clone();
        set_u16(&mut b, udp + 4, 6);
        assert_eq!(reason(&b), Some("ENC-UDP-002"), "{encap:?}");
        let mut b = bytes.clone();
        let udp_len = u16::from_be_bytes([b[udp + 4], b[udp + 5]]);
        set_u16(&mut b, udp + 4, udp_len - 4);
        assert_eq!(reason(&b), Some("ENC-LEN-001"), "{encap:?}");
        let mut b = bytes.clone();
        let len_at = if encap.is_v6() { ip + 4 } else { ip + 2 };
        set_u16(&mut b, len_at, 0x0FFF);
        assert_eq!(reason(&b), Some("ENC-LEN-002"), "{encap:?}");
        let mut b = bytes.clone();
        b[ip] = if encap.is_v6() { 0x40 } else { 0x55 };
        let want = if encap.is_v6() { "ENC-IPV6-002" } else { "ENC-IPV4-005" };
        assert_eq!(reason(&b), Some(want), "{encap:?}");
        // The opcode byte is inside the ICRC: refill it.
        let mut b = bytes.clone();
        b[udp + 8] = 0xC5;
        icrc::fill(&mut b[ip..]).unwrap();
        let mut g = decode(&b).to_repr().unwrap();
        if encap.is_v6() {
            g.fill_udp_checksum().unwrap();
        }
        assert_eq!(reason(&g.to_bytes().unwrap()), Some("OPC-UNKNOWN-001"), "{encap:?}");
    }
    let bytes = sample("mrc_write_middle", Encap::V4).to_bytes().unwrap();
    let mut b = bytes.clone();
    b[14 + 10] ^= 0xFF;
    assert_eq!(decode(&b).discard_reason(), Some("ENC-IPV4-003"));
    let mut b = bytes.clone();
    b[14] = 0x44;
    assert_eq!(decode(&b).discard_reason(), Some("ENC-IPV4-005"));
    // A pad count beyond the packet (PAY-PAD-003) and a datagram too short for a BTH and
    // an ICRC (ENC-LEN-004).
    let f = sample("mrc_ack", Encap::V4);
    let mut b = f.to_bytes().unwrap();
    b[43] |= 0x30;
    icrc::fill(&mut b[14..]).unwrap();
    assert_eq!(decode(&b).discard_reason(), Some("PAY-PAD-003"));
    let mut b = f.to_bytes().unwrap();
    b.truncate(14 + 20 + 8 + 12);
    set_u16(&mut b, 16, 20 + 8 + 12);
    set_u16(&mut b, 38, 8 + 12);
    let d = decode(&b);
    assert!(d.bth.is_some(), "the BTH itself decodes");
    assert_eq!(d.discard_reason(), Some("ENC-LEN-004"));
    // Frames that are not RoCEv2 name the layer that makes them so.
    assert_eq!(decode(&udp_over_ipv4(4792, |_| {})).discard_reason(), Some("ENC-UDP-001"));
    let frag = udp_over_ipv4(4791, |v4| v4.more_frags = true);
    assert_eq!(decode(&frag).discard_reason(), Some("ENC-IPV4-002"));
    let tcp = udp_over_ipv4(4791, |v4| v4.protocol = 6);
    assert_eq!(decode(&tcp).discard_reason(), Some("ENC-IPV4-001"));
    let mut arp = eth_header(EtherType::ARP);
    arp.extend_from_slice(&[0; 28]);
    assert_eq!(decode(&arp).discard_reason(), Some("ENC-ROCE-001"));
}
