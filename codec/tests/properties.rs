//! Seeded property tests of the codec. Each property runs a fixed list of seeds with at
//! least 2000 cases per seed, so a failure reproduces exactly; the seed and the case number
//! are in every assertion message.
//!
//! The properties run under the default features, over frames built with a ChaCha8 stream
//! (headers parsed from random bytes, so every field takes a random value inside its width).
//! With the `arbitrary` feature, (a) and (b) also run over `Arbitrary` Reprs.
//!
//! * (a) **build → decode**: a finalized frame, emitted and decoded, gives back the same
//!   `FrameRepr` (with the ICRC it was emitted with), a good ICRC and no error.
//! * (b) **headers**: every header's `emit(parse(bytes)) == bytes` and
//!   `parse(emit(repr)) == repr`; a buffer one byte short is an error, never a panic.
//! * (c) **decode is total and lossless**: any byte string decodes without panicking
//!   (and so do `validate`, `entropy` and the error's `Display`); whenever the decoder
//!   reaches the BTH without error, `to_repr()` re-emits exactly the input, Ethernet padding,
//!   a bad ICRC, reserved bits and unknown opcodes included (DEC-LOSSLESS-001). No exception
//!   is needed for Ethernet padding: it is kept.
//! * (d) **ICRC coverage**: over IPv4 and IPv6, changing a masked field (table 27), the
//!   Ethernet header, the tag or the Ethernet padding keeps the ICRC good; changing any
//!   single byte of the IP packet outside the masks (the version nibble aside) makes it bad.

mod common;

use common::*;
use openrdma_codec::frame::{DecodedFrame, FrameRepr, IcrcStatus, IpRepr, decode};
use openrdma_codec::icrc::{self, IcrcCheck};
use openrdma_codec::wire::*;
use openrdma_codec::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

const SEEDS: [u64; 4] = [1, 0x0DEC_0DE5, 0x5EED_CAFE_F00D, u64::MAX];
const CASES: usize = 2000;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

// ---------------------------------------------------------------------------------------
// (a) build -> emit -> decode
// ---------------------------------------------------------------------------------------

/// `f` (finalized) emits to bytes that decode, with a good ICRC, back to `f`.
fn assert_decodes_to_itself(f: &FrameRepr, ctx: &str) {
    let bytes = f.to_bytes().unwrap_or_else(|e| panic!("{ctx}: {e}"));
    assert_eq!(bytes.len(), f.buffer_len(), "{ctx}");
    let d = decode(&bytes);
    assert_eq!(d.error, None, "{ctx}");
    assert_eq!(d.icrc, IcrcStatus::Ok, "{ctx}");
    let back = d.to_repr().unwrap_or_else(|| panic!("{ctx}: no repr"));
    assert_eq!(back.to_bytes().unwrap(), bytes, "{ctx}");
    assert_eq!(FrameRepr { icrc: None, ..back }, *f, "{ctx}");
    let v = d.validate();
    for id in ["ICRC-VERIFY-001", "PAY-PAD-001", "PAY-PAD-002"] {
        assert!(v.iter().all(|v| v.requirement != id), "{ctx}: {id}");
    }
}

#[test]
fn built_frames_decode_to_themselves() {
    for seed in SEEDS {
        let mut rng = rng(seed);
        for case in 0..CASES {
            let f = random_frame(&mut rng, None);
            assert_decodes_to_itself(&f, &format!("seed {seed:#x} case {case}"));
        }
    }
}

// ---------------------------------------------------------------------------------------
// (b) each header
// ---------------------------------------------------------------------------------------

/// `b` parses as `$t`, re-emits to `b`, and the parsed Repr survives emit -> parse.
macro_rules! bytes_round_trip {
    ($t:ty, $b:expr, $ctx:expr) => {{
        let b: &[u8] = $b;
        let len = b.len();
        let r = <$t>::parse(b).unwrap_or_else(|e| panic!("{} {}: {e}", $ctx, stringify!($t)));
        assert_eq!(r.buffer_len(), len, "{} {}", $ctx, stringify!($t));
        let mut out = vec![0u8; len];
        assert_eq!(r.emit(&mut out), Ok(len), "{} {}", $ctx, stringify!($t));
        assert_eq!(out, b, "{} {}: emit(parse(b)) == b", $ctx, stringify!($t));
        assert_eq!(<$t>::parse(&out).unwrap(), r, "{} {}", $ctx, stringify!($t));
        assert!(r.emit(&mut out[..len - 1]).is_err(), "{} {}", $ctx, stringify!($t));
        let e = <$t>::parse(&b[..len - 1]).unwrap_err();
        assert!(
            matches!(e.kind, DecodeErrorKind::Truncated { .. }) && e.offset < len,
            "{} {}: {e}",
            $ctx,
            stringify!($t)
        );
    }};
}

#[test]
fn every_header_round_trips_its_bytes() {
    for seed in SEEDS {
        let mut rng = rng(seed);
        for case in 0..CASES {
            let ctx = format!("seed {seed:#x} case {case}");
            let r = &mut rng;
            bytes_round_trip!(EthernetRepr, &bytes(r, 14), ctx);
            bytes_round_trip!(VlanRepr, &bytes(r, 4), ctx);
            let words = below(r, 11);
            let mut v4 = bytes(r, 20 + 4 * words);
            v4[0] = 0x40 | (5 + words) as u8;
            bytes_round_trip!(Ipv4Repr, &v4, ctx);
            let mut v6 = bytes(r, 40);
            v6[0] = 0x60 | (v6[0] & 0x0F);
            bytes_round_trip!(Ipv6Repr, &v6, ctx);
            bytes_round_trip!(UdpRepr, &bytes(r, 8), ctx);
            bytes_round_trip!(BthRepr, &bytes(r, 12), ctx);
            bytes_round_trip!(MethRepr, &bytes(r, 4), ctx);
            bytes_round_trip!(TsethRepr, &bytes(r, 4), ctx);
            bytes_round_trip!(RethRepr, &bytes(r, 16), ctx);
            bytes_round_trip!(ImmDtRepr, &bytes(r, 4), ctx);
            bytes_round_trip!(AethRepr, &bytes(r, 4), ctx);
            bytes_round_trip!(SethRepr, &bytes(r, 28), ctx);
            bytes_round_trip!(CcStateRepr, &bytes(r, 8), ctx);
            bytes_round_trip!(NethRepr, &bytes(r, 20), ctx);
            bytes_round_trip!(PethRepr, &bytes(r, 16), ctx);
            bytes_round_trip!(ErthRepr, &bytes(r, 16), ctx);
            bytes_round_trip!(EethRepr, &bytes(r, 36), ctx);
            bytes_round_trip!(DethRepr, &bytes(r, 8), ctx);
            bytes_round_trip!(IethRepr, &bytes(r, 4), ctx);
            bytes_round_trip!(AtomicEthRepr, &bytes(r, 28), ctx);
            bytes_round_trip!(AtomicAckEthRepr, &bytes(r, 8), ctx);
            bytes_round_trip!(CnpRepr, &bytes(r, 16), ctx);
        }
    }
}

// ---------------------------------------------------------------------------------------
// (c) decode is total and lossless
// ---------------------------------------------------------------------------------------

/// Decodes `b` and checks property (c). Returns whether it decoded as a clean RoCEv2 frame.
fn check_total_and_lossless(b: &[u8], ctx: &str) -> bool {
    let d = decode(b);
    let _ = d.validate();
    let _ = d.entropy();
    let _ = d.is_clean();
    if let Some(e) = &d.error {
        assert!(e.offset <= b.len(), "{ctx}: {e}");
        assert!(!e.to_string().is_empty());
    }
    if let Some(end) = d.layout.ip_end {
        assert!(end <= b.len(), "{ctx}");
        assert_eq!(d.eth_padding.len(), b.len() - end, "{ctx}");
    }
    match d.to_repr() {
        Some(r) => {
            assert!(d.error.is_none() && d.is_roce(), "{ctx}");
            assert_eq!(r.buffer_len(), b.len(), "{ctx}");
            assert_eq!(r.to_bytes().as_deref(), Ok(b), "{ctx}: decode -> emit is lossless");
            assert_eq!(decode(b).to_repr().as_ref(), Some(&r), "{ctx}: deterministic");
            true
        }
        None => {
            assert!(d.error.is_some() || !d.is_roce(), "{ctx}");
            false
        }
    }
}

/// Random bytes, nudged towards the decoder's deeper layers: a plausible ethertype, IP
/// version, protocol and port, each with some probability.
fn random_input(rng: &mut ChaCha8Rng) -> Vec<u8> {
    let n = below(rng, 200);
    let mut b = bytes(rng, n);
    if b.len() >= 14 && !chance(rng, 8) {
        let ethertypes = [0x0800u16, 0x86DD, 0x8100, 0x88A8, 0x0806];
        let t = ethertypes[below(rng, ethertypes.len())];
        b[12..14].copy_from_slice(&t.to_be_bytes());
        let mut ip = 14;
        if (t == 0x8100 || t == 0x88A8) && b.len() >= 18 {
            let inner = if chance(rng, 2) { 0x0800u16 } else { 0x86DD };
            b[16..18].copy_from_slice(&inner.to_be_bytes());
            ip = 18;
        }
        let v6 = u16::from_be_bytes([b[ip - 2], b[ip - 1]]) == 0x86DD;
        if b.len() > ip + 40 && !chance(rng, 8) {
            let udp = if v6 {
                b[ip] = 0x60 | (b[ip] & 0x0F);
                b[ip + 6] = 17;
                let len = (b.len() - ip - 40) as u16;
                if !chance(rng, 4) {
                    b[ip + 4..ip + 6].copy_from_slice(&len.to_be_bytes());
                }
                ip + 40
            } else {
                b[ip] = 0x45;
                b[ip + 9] = 17;
                b[ip + 6] &= 0x40;
                b[ip + 7] = 0;
                let len = (b.len() - ip) as u16;
                if !chance(rng, 4) {
                    b[ip + 2..ip + 4].copy_from_slice(&len.to_be_bytes());
                }
                ip + 20
            };
            if b.len() >= udp + 8 && !chance(rng, 8) {
                b[udp + 2..udp + 4].copy_from_slice(&ROCEV2_PORT.to_be_bytes());
                let len = (b.len() - udp) as u16;
                if !chance(rng, 4) {
                    b[udp + 4..udp + 6].copy_from_slice(&len.to_be_bytes());
                }
            }
        }
    }
    b
}

#[test]
fn random_bytes_never_panic_and_clean_decodes_are_lossless() {
    for seed in SEEDS {
        let mut rng = rng(seed);
        let mut clean = 0;
        for case in 0..CASES * 2 {
            let b = random_input(&mut rng);
            clean +=
                usize::from(check_total_and_lossless(&b, &format!("seed {seed:#x} case {case}")));
        }
        // The inputs must reach the BTH often enough for the property to mean something.
        assert!(clean > CASES / 10, "seed {seed:#x}: only {clean} clean RoCEv2 decodes");
    }
}

/// A valid frame with one random mutation: flipped bytes, a cut, appended bytes, a lying
/// length field, another opcode or pad count, or a refreshed ICRC over a mutation.
fn mutated_frame(rng: &mut ChaCha8Rng) -> Vec<u8> {
    let f = random_frame(rng, None);
    let mut b = f.to_bytes().unwrap();
    let d = decode(&b);
    let l = d.layout.clone();
    let (ip, udp, bth) = (l.ip.unwrap(), l.udp.unwrap(), l.bth.unwrap());
    let v6 = matches!(f.ip, IpRepr::V6(_));
    let rounds = 1 + below(rng, 3);
    for _ in 0..rounds {
        let n = b.len();
        match below(rng, 8) {
            0 if n > 0 => {
                for _ in 0..1 + below(rng, 4) {
                    let at = below(rng, n);
                    b[at] ^= (rng.next_u32() as u8) | 1;
                }
            }
            1 => b.truncate(below(rng, n + 1)),
            2 => {
                let len = below(rng, 40);
                let extra = bytes(rng, len);
                b.extend_from_slice(&extra);
            }
            3 if n >= udp + 6 => {
                let at = match below(rng, 2) {
                    0 if v6 => ip + 4,
                    0 => ip + 2,
                    _ => udp + 4,
                };
                let v = match below(rng, 3) {
                    0 => rng.next_u32() as u16,
                    1 => u16::from_be_bytes([b[at], b[at + 1]]).wrapping_add(1),
                    _ => u16::from_be_bytes([b[at], b[at + 1]]).wrapping_sub(1),
                };
                b[at..at + 2].copy_from_slice(&v.to_be_bytes());
            }
            4 if n > bth => b[bth] = rng.next_u32() as u8,
            5 if n > bth + 1 => b[bth + 1] ^= ((rng.next_u32() as u8) & 0x3) << 4,
            6 if n > bth + 8 => b[bth + 8] ^= 0x10,
            _ => {
                // Refresh the ICRC over whatever the packet now is, if it still has one.
                let end = l.ip_end.unwrap().min(b.len());
                if end > ip {
                    let _ = icrc::fill(&mut b[ip..end]);
                }
            }
        }
    }
    b
}

#[test]
fn mutated_frames_never_panic_and_clean_decodes_are_lossless() {
    for seed in SEEDS {
        let mut rng = rng(seed);
        let mut clean = 0;
        for case in 0..CASES {
            let b = mutated_frame(&mut rng);
            clean +=
                usize::from(check_total_and_lossless(&b, &format!("seed {seed:#x} case {case}")));
        }
        assert!(clean > CASES / 10, "seed {seed:#x}: only {clean} clean RoCEv2 decodes");
    }
}

// ---------------------------------------------------------------------------------------
// (d) ICRC coverage
// ---------------------------------------------------------------------------------------

/// Offsets of the bytes (and the bits in them) that the ICRC masks (table 27).
fn masked(d: &DecodedFrame<'_>) -> Vec<(usize, u8)> {
    let l = &d.layout;
    let (ip, udp, bth) = (l.ip.unwrap(), l.udp.unwrap(), l.bth.unwrap());
    let mut m = match d.ip.as_ref().unwrap() {
        IpRepr::V4(_) => vec![(ip + 1, 0xFF), (ip + 8, 0xFF), (ip + 10, 0xFF), (ip + 11, 0xFF)],
        IpRepr::V6(_) => {
            vec![(ip, 0x0F), (ip + 1, 0xFF), (ip + 2, 0xFF), (ip + 3, 0xFF), (ip + 7, 0xFF)]
        }
    };
    m.extend([(udp + 6, 0xFF), (udp + 7, 0xFF), (bth + 4, 0xFF)]);
    m
}

fn icrc_property(v6: bool) {
    for seed in SEEDS {
        let mut rng = rng(seed ^ u64::from(v6));
        for case in 0..CASES {
            let ctx = format!("v6 {v6} seed {seed:#x} case {case}");
            let f = random_frame(&mut rng, Some(v6));
            let bytes = f.to_bytes().unwrap();
            let d = decode(&bytes);
            assert_eq!(d.icrc, IcrcStatus::Ok, "{ctx}");
            let (ip, ip_end) = (d.layout.ip.unwrap(), d.layout.ip_end.unwrap());
            let masked = masked(&d);

            // Masked fields: any change, to any number of them at once.
            let mut b = bytes.clone();
            for &(at, bits) in &masked {
                if chance(&mut rng, 2) {
                    b[at] ^= (rng.next_u32() as u8) & bits;
                }
            }
            // Outside the IP packet: addresses, the tag's TCI, the Ethernet padding.
            for at in (0..12).chain(if !f.vlans.is_empty() { 14..16 } else { 0..0 }) {
                if chance(&mut rng, 4) {
                    b[at] = rng.next_u32() as u8;
                }
            }
            for x in &mut b[ip_end..] {
                *x = rng.next_u32() as u8;
            }
            let m = decode(&b);
            assert_eq!(m.error, None, "{ctx}");
            assert_eq!(m.icrc, IcrcStatus::Ok, "{ctx}: masked change broke the ICRC");

            // Covered bytes: a change to any one of them is detected.
            for _ in 0..4 {
                let at = loop {
                    let at = ip + 1 + below(&mut rng, ip_end - ip - 1);
                    if !masked.iter().any(|&(m, bits)| m == at && bits == 0xFF) {
                        break at;
                    }
                };
                let mut b = bytes.clone();
                b[at] ^= (rng.next_u32() as u8) | 0x01;
                let check = icrc::verify(&b[ip..ip_end]);
                assert!(
                    matches!(check, Ok(IcrcCheck::Bad { .. })),
                    "{ctx}: change at byte {at} (IP offset {}) not detected: {check:?}",
                    at - ip
                );
            }
        }
    }
}

#[test]
fn icrc_masks_exactly_the_variant_fields_ipv4() {
    icrc_property(false);
}

#[test]
fn icrc_masks_exactly_the_variant_fields_ipv6() {
    icrc_property(true);
}

// ---------------------------------------------------------------------------------------
// The same properties over `Arbitrary` Reprs
// ---------------------------------------------------------------------------------------

#[cfg(feature = "arbitrary")]
mod arbitrary_reprs {
    use super::*;
    use arbitrary::{Arbitrary, Unstructured};

    /// Turns an arbitrary `FrameRepr` into a RoCEv2 frame the builder accepts: ethertypes
    /// that chain, UDP to port 4791 over a non-fragment, and exactly the opcode's headers.
    fn make_roce(rng: &mut ChaCha8Rng, f: &mut FrameRepr) {
        f.chain_to_roce();
        // An arbitrary byte is mostly an unknown opcode; give the table its share.
        if f.bth.opcode.info().is_none() && !chance(rng, 4) {
            f.bth.opcode = Opcode::ALL[below(rng, Opcode::ALL.len())];
        }
        let bth = f.bth;
        fit_ext(rng, &bth, &mut f.ext);
    }

    #[test]
    fn arbitrary_frames_decode_to_themselves() {
        for seed in SEEDS {
            let mut rng = rng(seed);
            for case in 0..CASES {
                let raw = bytes(&mut rng, 600);
                let mut u = Unstructured::new(&raw);
                let mut f = FrameRepr::arbitrary(&mut u).unwrap();
                make_roce(&mut rng, &mut f);
                f.finalize().unwrap();
                assert_decodes_to_itself(&f, &format!("seed {seed:#x} case {case}"));
            }
        }
    }

    /// An arbitrary `$t` emits `buffer_len()` bytes that parse back to it.
    macro_rules! repr_round_trip {
        ($u:expr, $t:ty, $ctx:expr) => {{
            let r = <$t>::arbitrary($u).unwrap();
            let len = r.buffer_len();
            let mut buf = vec![0u8; len];
            assert_eq!(r.emit(&mut buf), Ok(len), "{} {}", $ctx, stringify!($t));
            assert_eq!(<$t>::parse(&buf).unwrap(), r, "{} {}", $ctx, stringify!($t));
            assert!(r.emit(&mut buf[..len - 1]).is_err(), "{} {}", $ctx, stringify!($t));
        }};
    }

    #[test]
    fn arbitrary_headers_round_trip() {
        for seed in SEEDS {
            let mut rng = rng(seed);
            for case in 0..CASES {
                let ctx = format!("seed {seed:#x} case {case}");
                let raw = bytes(&mut rng, 1024);
                let u = &mut Unstructured::new(&raw);
                repr_round_trip!(u, EthernetRepr, ctx);
                repr_round_trip!(u, VlanRepr, ctx);
                repr_round_trip!(u, Ipv4Repr, ctx);
                repr_round_trip!(u, Ipv6Repr, ctx);
                repr_round_trip!(u, UdpRepr, ctx);
                repr_round_trip!(u, BthRepr, ctx);
                repr_round_trip!(u, MethRepr, ctx);
                repr_round_trip!(u, TsethRepr, ctx);
                repr_round_trip!(u, RethRepr, ctx);
                repr_round_trip!(u, ImmDtRepr, ctx);
                repr_round_trip!(u, AethRepr, ctx);
                repr_round_trip!(u, SethRepr, ctx);
                repr_round_trip!(u, CcStateRepr, ctx);
                repr_round_trip!(u, NethRepr, ctx);
                repr_round_trip!(u, PethRepr, ctx);
                repr_round_trip!(u, ErthRepr, ctx);
                repr_round_trip!(u, EethRepr, ctx);
                repr_round_trip!(u, DethRepr, ctx);
                repr_round_trip!(u, IethRepr, ctx);
                repr_round_trip!(u, AtomicEthRepr, ctx);
                repr_round_trip!(u, AtomicAckEthRepr, ctx);
                repr_round_trip!(u, CnpRepr, ctx);
            }
        }
    }
}
