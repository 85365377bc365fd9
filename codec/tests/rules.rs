//! The lists of the requirements the codec checks — each header's `RULES`, the frame's
//! [`FRAME_RULES`] and [`DECODE_RULES`], and [`DecodedFrame::rules`] — are held to the code
//! that checks them, so that a conformance suite can name them mechanically:
//!
//! * (a) every requirement a header's `validate()` reports is in that header's `RULES`
//!   (headers parsed from random bytes, so every field takes random values);
//! * (b) every requirement a frame's `validate()` reports, and the requirement of its decode
//!   error, is among the frame's own `rules()` (random frames, then random byte changes and
//!   truncations of them);
//! * (c) every requirement of the `rules()` of every typical frame, over every
//!   encapsulation, is reported when the frame is changed the way [`break_rule`] gives for
//!   that requirement: no listed rule is one that a frame of that shape cannot break;
//! * (d) every requirement of every `RULES`, of `FRAME_RULES` and of `DECODE_RULES` is
//!   reported by some frame, and `DEC-STRUCT-001` by bytes that cannot be followed.

mod common;

use std::collections::BTreeSet;

use common::*;
use openrdma_codec::frame::{DECODE_RULES, DecodedFrame, FRAME_RULES, FrameRepr, IpRepr, decode};
use openrdma_codec::wire::*;
use openrdma_codec::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

const SEEDS: [u64; 3] = [7, 0xB0B5_1ED5, u64::MAX - 3];
const CASES: usize = 1500;

/// Every requirement `d` reports: its violations, and its decode error's requirement.
fn reported(d: &DecodedFrame<'_>) -> BTreeSet<&'static str> {
    let mut out: BTreeSet<&'static str> = d.validate().iter().map(|v| v.requirement).collect();
    if let Some(e) = d.error {
        out.insert(e.requirement());
    }
    out
}

// ---------------------------------------------------------------------------------------
// (a) each header's RULES hold whatever it reports
// ---------------------------------------------------------------------------------------

macro_rules! header_rules_hold {
    ($rng:expr, $($t:ty),* $(,)?) => {$(
        for case in 0..CASES {
            let mut buf = vec![0u8; 64];
            $rng.fill_bytes(&mut buf);
            let Ok(r) = <$t>::parse(&buf) else { continue };
            let mut out = Vec::new();
            r.validate(0, &mut out);
            for v in out {
                assert!(
                    <$t>::RULES.contains(&v.requirement),
                    "case {case}: {} reports {v}, which its RULES do not list",
                    stringify!($t)
                );
            }
        }
    )*};
}

#[test]
fn every_header_reports_only_its_rules() {
    for seed in SEEDS {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        header_rules_hold!(
            rng,
            EthernetRepr,
            VlanRepr,
            Ipv4Repr,
            Ipv6Repr,
            UdpRepr,
            BthRepr,
            MethRepr,
            TsethRepr,
            RethRepr,
            ImmDtRepr,
            AethRepr,
            SethRepr,
            CcStateRepr,
            NethRepr,
            PethRepr,
            ErthRepr,
            EethRepr,
            DethRepr,
            IethRepr,
            AtomicEthRepr,
            AtomicAckEthRepr,
            FethRepr,
            CnpRepr,
        );
    }
}

/// A completion entry's checks report only the rules its `RULES` list, and each of them
/// for some entry: a suite maps every listed rule to a clause and needs no other.
#[test]
fn completion_entries_report_exactly_their_rules() {
    let mut seen = BTreeSet::new();
    for seed in SEEDS {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for case in 0..CASES {
            let mut buf = [0u8; host::COMPLETION_LEN];
            rng.fill_bytes(&mut buf);
            // Random bytes set every field at once; clear some bytes so that entries with
            // few faults, where one rule shows alone, come up too.
            for b in &mut buf {
                if rng.next_u32() % 4 != 0 {
                    *b = 0;
                }
            }
            let Ok(entry) = host::CompletionRepr::parse(&buf) else { continue };
            let mut out = Vec::new();
            entry.validate(0, &mut out);
            for v in out {
                assert!(
                    host::CompletionRepr::RULES.contains(&v.requirement),
                    "case {case}: a completion entry reports {v}, which RULES does not list"
                );
                seen.insert(v.requirement);
            }
        }
    }
    let listed: BTreeSet<&str> = host::CompletionRepr::RULES.iter().copied().collect();
    assert_eq!(seen, listed, "every rule listed is reported by some entry");
}

#[test]
fn bth_rules_follow_the_opcode_class() {
    for op in 0..=255u8 {
        let bth = BthRepr::new(Opcode(op), Qpn::new(1), Psn::ZERO);
        let rules = bth.rules();
        assert!(rules.iter().all(|id| BthRepr::RULES.contains(id)), "{op:#x}");
        let byte4 = if Opcode(op).is_mrc() { "BTH-RESV-002" } else { "BTH-RESV-001" };
        assert!(rules.contains(&byte4), "{op:#x}");
    }
}

// ---------------------------------------------------------------------------------------
// (b) a frame reports only its own rules
// ---------------------------------------------------------------------------------------

fn assert_reports_own_rules(bytes: &[u8], ctx: &str) {
    let d = decode(bytes);
    let rules = d.rules();
    for v in d.validate() {
        assert!(rules.contains(&v.requirement), "{ctx}: {v} is not among {rules:?}");
    }
    if let Some(e) = d.error {
        assert!(DECODE_RULES.contains(&e.requirement()), "{ctx}: {e} -> {}", e.requirement());
    }
}

#[test]
fn frames_report_only_their_rules() {
    for seed in SEEDS {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for case in 0..CASES {
            let f = random_frame(&mut rng, None);
            let mut bytes = f.to_bytes().unwrap();
            assert_reports_own_rules(&bytes, &format!("seed {seed:#x} case {case}"));
            // A few random bytes changed, then perhaps a truncation.
            for _ in 0..1 + below(&mut rng, 3) {
                let at = below(&mut rng, bytes.len());
                bytes[at] = rng.next_u32() as u8;
            }
            if chance(&mut rng, 4) {
                let n = below(&mut rng, bytes.len());
                bytes.truncate(n);
            }
            assert_reports_own_rules(&bytes, &format!("seed {seed:#x} case {case}, changed"));
        }
    }
}

// ---------------------------------------------------------------------------------------
// (c) every rule of a frame can be broken in a frame of its shape
// ---------------------------------------------------------------------------------------

/// Offsets of the layers of a clean frame.
struct At {
    ip: usize,
    udp: usize,
    bth: usize,
}

fn offsets(bytes: &[u8]) -> At {
    let d = decode(bytes);
    let l = d.layout;
    At { ip: l.ip.unwrap(), udp: l.udp.unwrap(), bth: l.bth.unwrap() }
}

/// Makes the IP and UDP lengths (and the IPv4 checksum) agree with the frame as held,
/// keeping its pad count and pad bytes, unlike `finalize`.
fn fix_lengths(f: &mut FrameRepr) {
    let ip_len = f.ip_len();
    let udp_len = ip_len - f.ip.header_len();
    f.udp.length = udp_len as u16;
    f.udp.checksum = 0;
    match &mut f.ip {
        IpRepr::V4(v4) => {
            v4.total_len = ip_len as u16;
            v4.fill_checksum().unwrap();
        }
        IpRepr::V6(v6) => v6.payload_len = udp_len as u16,
    }
    f.icrc = None;
}

/// The bytes of `f` up to `end` (an offset in the frame), then a 4-byte ICRC trailer, with
/// the IP and UDP lengths (and the IPv4 checksum) saying so.
fn cut(f: &FrameRepr, end: impl FnOnce(&At) -> usize) -> Vec<u8> {
    let b = f.to_bytes().unwrap();
    let at = offsets(&b);
    let mut b = b[..end(&at)].to_vec();
    b.extend_from_slice(&[0; 4]);
    let ip_len = b.len() - at.ip;
    let udp_len = (b.len() - at.udp) as u16;
    b[at.udp + 4..at.udp + 6].copy_from_slice(&udp_len.to_be_bytes());
    b[at.udp + 6..at.udp + 8].copy_from_slice(&[0, 0]);
    match f.ip {
        IpRepr::V4(_) => {
            b[at.ip + 2..at.ip + 4].copy_from_slice(&(ip_len as u16).to_be_bytes());
            let mut v4 = Ipv4Repr::parse(&b[at.ip..]).unwrap();
            v4.fill_checksum().unwrap();
            v4.emit(&mut b[at.ip..]).unwrap();
        }
        IpRepr::V6(_) => b[at.ip + 4..at.ip + 6].copy_from_slice(&udp_len.to_be_bytes()),
    }
    b
}

/// `f` changed by `edit` and finalized again.
fn refit(f: &FrameRepr, edit: impl FnOnce(&mut FrameRepr)) -> Vec<u8> {
    let mut g = f.clone();
    edit(&mut g);
    g.finalize().unwrap();
    g.to_bytes().unwrap()
}

/// `f` changed by `edit` after finalizing, and emitted as held.
fn raw(f: &FrameRepr, edit: impl FnOnce(&mut FrameRepr)) -> Vec<u8> {
    let mut g = f.clone();
    edit(&mut g);
    g.to_bytes().unwrap()
}

/// The bytes of `f` changed by `edit`, given the offsets of its layers.
fn bytes(f: &FrameRepr, edit: impl FnOnce(&mut Vec<u8>, &At)) -> Vec<u8> {
    let mut b = f.to_bytes().unwrap();
    let at = offsets(&b);
    edit(&mut b, &at);
    b
}

/// A frame of the shape of `f` that breaks requirement `id`.
fn break_rule(f: &FrameRepr, id: &str) -> Vec<u8> {
    let v4 = |g: &mut FrameRepr, e: fn(&mut Ipv4Repr)| match &mut g.ip {
        IpRepr::V4(r) => e(r),
        IpRepr::V6(_) => panic!("{id} on an IPv6 frame"),
    };
    let v6 = |g: &mut FrameRepr, e: fn(&mut Ipv6Repr)| match &mut g.ip {
        IpRepr::V6(r) => e(r),
        IpRepr::V4(_) => panic!("{id} on an IPv4 frame"),
    };
    match id {
        "ENC-ETH-001" => bytes(f, |b, _| b[12..14].copy_from_slice(&[0x08, 0x06])),
        "ENC-ETH-002" => bytes(f, |b, _| b[6] |= 1),
        "ENC-VLAN-001" => refit(f, |g| g.vlans[0].vid = 0xFFF),
        "ENC-VLAN-002" => bytes(f, |b, _| b[16..18].copy_from_slice(&[0x81, 0x00])),
        "ENC-IPV4-001" => refit(f, |g| v4(g, |r| r.protocol = 6)),
        "ENC-IPV4-002" => refit(f, |g| v4(g, |r| r.more_frags = true)),
        "ENC-IPV4-003" => bytes(f, |b, at| b[at.ip + 10] ^= 1),
        "ENC-IPV4-004" => refit(f, |g| v4(g, |r| r.flag_reserved = true)),
        "ENC-IPV4-007" => refit(f, |g| v4(g, |r| r.dont_frag = false)),
        "ENC-ECN-001" => refit(f, |g| match &mut g.ip {
            IpRepr::V4(r) => r.ecn = 0,
            IpRepr::V6(r) => r.traffic_class &= !0b11,
        }),
        "ENC-HOP-001" => refit(f, |g| match &mut g.ip {
            IpRepr::V4(r) => r.ttl = 0,
            IpRepr::V6(r) => r.hop_limit = 0,
        }),
        "ENC-IPV6-001" => refit(f, |g| v6(g, |r| r.next_header = 0)),
        // An IPv4 header length below 5 words, an IPv6 version other than 6: the decoder
        // cannot follow either.
        "ENC-IPV4-005" => bytes(f, |b, at| b[at.ip] = 0x44),
        "ENC-IPV6-002" => bytes(f, |b, at| b[at.ip] = (b[at.ip] & 0x0F) | 0x70),
        "ENC-EV-001" => refit(f, |g| v6(g, |r| r.flow_label |= 0x1_0000)),
        "ENC-LEN-002" => raw(f, |g| match &mut g.ip {
            IpRepr::V4(r) => r.total_len += 100,
            IpRepr::V6(r) => r.payload_len += 100,
        }),
        "ENC-UDP-001" => refit(f, |g| g.udp.dst_port = ROCEV2_PORT + 1),
        "ENC-UDP-002" => raw(f, |g| g.udp.length = 7),
        "ENC-LEN-001" => raw(f, |g| g.udp.length += 4),
        "ENC-UDP-003" | "ENC-UDP-005" => bytes(f, |b, at| {
            // A checksum other than the right one, and other than 0 ("none").
            let c = u16::from_be_bytes([b[at.udp + 6], b[at.udp + 7]]);
            let wrong = if c == 0 { 0x1234 } else { c ^ 0x0101 };
            b[at.udp + 6..at.udp + 8].copy_from_slice(&wrong.to_be_bytes());
        }),
        // A UDP payload of 6 bytes and the trailer: no room for the BTH.
        "ENC-LEN-004" => cut(f, |at| at.udp + 8 + 6),
        // The BTH, 2 bytes and the trailer, the BTH announcing 3 bytes of pad: the first
        // extension header is cut short or, with none, the pad.
        "ENC-FRAME-001" => {
            let mut b = cut(f, |at| at.bth + 12 + 2);
            let at = offsets_partial(&b);
            b[at + 1] |= 0x30;
            b
        }
        "PAY-PAD-003" => {
            // No payload left, and a pad of 3 announced.
            let payload = decode(&f.to_bytes().unwrap()).layout.payload.unwrap();
            let mut b = cut(f, |_| payload);
            let at = offsets_partial(&b);
            b[at + 1] |= 0x30;
            b
        }
        "BTH-TVER-001" => refit(f, |g| g.bth.tver = 1),
        "BTH-RESV-001" => refit(f, |g| g.bth.resv6 = 1),
        "BTH-RESV-002" => refit(f, |g| g.bth.fecn = true),
        "BTH-RESV-003" => refit(f, |g| g.bth.resv8 = 0x01),
        "OPC-UNKNOWN-001" => bytes(f, |b, at| b[at.bth] = 0xC0),
        "PAY-PAD-001" => {
            let mut g = f.clone();
            g.payload.push(0);
            fix_lengths(&mut g);
            g.to_bytes().unwrap()
        }
        "PAY-PAD-002" => {
            let mut g = f.clone();
            g.bth.pad_count = 3;
            g.pad = [1, 2, 3];
            fix_lengths(&mut g);
            g.to_bytes().unwrap()
        }
        "ICRC-VERIFY-001" => {
            let d = decode(&f.to_bytes().unwrap()).icrc_trailer.unwrap();
            raw(f, |g| g.icrc = Some(d ^ 1))
        }
        "TSETH-PRESENT-002" => refit(f, |g| g.bth.ts = true),
        "AETH-MRC-001" => refit(f, |g| g.ext.aeth.as_mut().unwrap().syndrome = 0x60),
        "PAY-NONE-001" => refit(f, |g| g.payload = vec![0; 4]),
        "TSETH-RESV-001" => refit(f, |g| g.ext.tseth.as_mut().unwrap().resv = 1),
        "TSETH-FTYPE-001" => refit(f, |g| g.ext.tseth.as_mut().unwrap().ftype = 2),
        "RETH-LEN-001" => refit(f, |g| g.ext.reth.as_mut().unwrap().dma_len = 0x8000_0001),
        "RETH-VA-001" => refit(f, |g| {
            let r = g.ext.reth.as_mut().unwrap();
            r.va = u64::MAX;
            r.dma_len = r.dma_len.max(1);
        }),
        "AETH-SYN-001" => refit(f, |g| g.ext.aeth.as_mut().unwrap().syndrome |= 0x80),
        "AETH-SYN-002" => refit(f, |g| g.ext.aeth.as_mut().unwrap().syndrome = 0x40),
        "AETH-NAK-001" => refit(f, |g| g.ext.aeth.as_mut().unwrap().syndrome = 0x65),
        "SETH-M-001" => refit(f, |g| g.ext.seth.as_mut().unwrap().m = EvMark(3)),
        "SETH-RESV-001" => refit(f, |g| g.ext.seth.as_mut().unwrap().resv12 = 1),
        "CCS-RESV-001" => refit(f, |g| g.ext.cc_state.as_mut().unwrap().resv = true),
        "NETH-RESV-001" => refit(f, |g| g.ext.neth.as_mut().unwrap().resv17 = 1),
        "NETH-REASON-001" => refit(f, |g| g.ext.neth.as_mut().unwrap().reason = NackReason(0x42)),
        "PETH-RESV-001" => refit(f, |g| g.ext.peth.as_mut().unwrap().resv6 = 1),
        "ERTH-OP-001" => refit(f, |g| g.ext.erth.as_mut().unwrap().op = EndpointOp(9)),
        "ERTH-RESV-001" => refit(f, |g| g.ext.erth.as_mut().unwrap().resv12 = 1),
        // An op no table defines, with a status other than UNSUPPORTED_OP.
        "EETH-OP-002" => refit(f, |g| {
            let e = g.ext.eeth.as_mut().unwrap();
            e.op = EndpointOp(9);
            e.status = 0;
        }),
        "EETH-RESV-001" => refit(f, |g| g.ext.eeth.as_mut().unwrap().resv2 = 1),
        "DETH-RESV-001" => refit(f, |g| g.ext.deth.as_mut().unwrap().resv = 1),
        "CNP-RESV-001" => refit(f, |g| g.ext.cnp.as_mut().unwrap().resv[15] = 1),
        "CNP-BTH-001" => refit(f, |g| g.bth.becn = false),
        "FETH-RESV-001" => refit(f, |g| g.ext.feth.as_mut().unwrap().resv = 1),
        "FETH-SEL-001" => refit(f, |g| g.ext.feth.as_mut().unwrap().selectivity_level = 2),
        "FETH-PLT-001" => refit(f, |g| g.ext.feth.as_mut().unwrap().placement_type = 0),
        "ATOMIC-WRITE-001" => refit(f, |g| g.payload = vec![0; 4]),
        other => panic!("no way to break {other} is known: add one to break_rule"),
    }
}

/// Offset of the BTH of a frame that may not decode completely.
fn offsets_partial(b: &[u8]) -> usize {
    decode(b).layout.bth.unwrap()
}

#[test]
fn every_rule_of_a_frame_can_be_broken() {
    let mut seen: BTreeSet<&'static str> = BTreeSet::new();
    for s in samples() {
        for encap in Encap::ALL {
            let f = build(encap, s.bth, s.ext.clone(), &s.payload);
            let clean = f.to_bytes().unwrap();
            let d = decode(&clean);
            assert!(d.is_clean(), "{} over {encap:?}", s.name);
            for id in d.rules() {
                let broken = break_rule(&f, id);
                let got = reported(&decode(&broken));
                assert!(
                    got.contains(id),
                    "{} over {encap:?}: breaking {id} reports only {got:?}",
                    s.name
                );
                seen.insert(id);
            }
        }
    }
    // (d) Every listed rule is reached by some frame.
    let header_rules = [
        EthernetRepr::RULES,
        VlanRepr::RULES,
        Ipv4Repr::RULES,
        Ipv6Repr::RULES,
        UdpRepr::RULES,
        BthRepr::RULES,
        MethRepr::RULES,
        TsethRepr::RULES,
        RethRepr::RULES,
        ImmDtRepr::RULES,
        AethRepr::RULES,
        SethRepr::RULES,
        CcStateRepr::RULES,
        NethRepr::RULES,
        PethRepr::RULES,
        ErthRepr::RULES,
        EethRepr::RULES,
        DethRepr::RULES,
        IethRepr::RULES,
        AtomicEthRepr::RULES,
        AtomicAckEthRepr::RULES,
        FethRepr::RULES,
        CnpRepr::RULES,
    ];
    for id in header_rules.into_iter().flatten().chain(FRAME_RULES).chain(DECODE_RULES) {
        if *id == "DEC-STRUCT-001" {
            continue; // below
        }
        assert!(seen.contains(id), "{id} is listed but no typical frame checks it");
    }
    // Bytes that cannot be followed: a frame shorter than its Ethernet header is
    // DEC-STRUCT-001; an IPv4 header whose version is not 4 is ENC-IPV4-005.
    assert_eq!(decode(&[0u8; 5]).error.map(|e| e.requirement()), Some("DEC-STRUCT-001"));
    let mut b = sample("mrc_sack", Encap::V4).to_bytes().unwrap();
    b[14] = 0x55;
    assert_eq!(decode(&b).error.map(|e| e.requirement()), Some("ENC-IPV4-005"));
}

/// A clean frame reports nothing, and its rules are each listed once.
#[test]
fn typical_frames_break_none_of_their_rules() {
    for s in samples() {
        for encap in Encap::ALL {
            let b = build(encap, s.bth, s.ext.clone(), &s.payload).to_bytes().unwrap();
            let d = decode(&b);
            assert_eq!(reported(&d), BTreeSet::new(), "{} over {encap:?}", s.name);
            let rules = d.rules();
            let set: BTreeSet<&str> = rules.iter().copied().collect();
            assert_eq!(set.len(), rules.len(), "{} over {encap:?}: {rules:?}", s.name);
        }
    }
}
