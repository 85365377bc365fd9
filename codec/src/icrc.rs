//! The invariant CRC of RoCEv2 (requirements `ICRC-*`).
//!
//! CRC-32 (the reflected IEEE polynomial of zlib, initial value and final XOR 0xFFFFFFFF)
//! over:
//!
//! 1. eight bytes of 0xFF, standing for the masked InfiniBand LRH;
//! 2. the IP header with its variant fields replaced by ones: IPv4 TOS (DSCP+ECN), TTL and
//!    header checksum; IPv6 traffic class, flow label and hop limit;
//! 3. the UDP header with its checksum replaced by ones (the source port is covered);
//! 4. the BTH with byte 4 (FECN, BECN, reserved) replaced by ones;
//! 5. every byte after the BTH up to the ICRC: extension headers, payload and pad.
//!
//! The CRC is appended little-endian. Because the IPv6 flow label is masked and the UDP
//! source port is not, the entropy bits carried in the flow label may be rewritten by the
//! fabric without breaking the ICRC, and those in the source port may not.
//!
//! All functions here work on the bytes of the IP packet (from the first byte of the IP
//! header), never allocate, and never panic.

use crate::wire::BTH_LEN;

/// Length of the ICRC trailer.
pub const ICRC_LEN: usize = 4;
/// Length of the UDP header.
const UDP_HEADER_LEN: usize = 8;
/// The longest masked block after the LRH: a 60-byte IPv4 header, UDP and BTH.
const MAX_HEAD: usize = 60 + UDP_HEADER_LEN + BTH_LEN;
/// The shortest piece the CRC folds with carry-less multiplication.
const FOLD_MIN: usize = 128;
/// The longest packet copied whole into the masked block.
const WHOLE_MAX: usize = 2 * FOLD_MIN;
const _: () = assert!(MAX_HEAD <= FOLD_MIN);

/// Why an ICRC could not be computed over a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IcrcError {
    /// The buffer does not start with an IPv4 or IPv6 header (version nibble given).
    NotIp(u8),
    /// The buffer ends before the IP, UDP and BTH headers and the ICRC trailer: need
    /// `need` bytes, have `have`.
    TooShort {
        /// Bytes needed.
        need: usize,
        /// Bytes available.
        have: usize,
    },
}

impl core::fmt::Display for IcrcError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            IcrcError::NotIp(v) => write!(f, "ICRC needs an IP header, found IP version {v}"),
            IcrcError::TooShort { need, have } => {
                write!(f, "ICRC needs {need} bytes of IP packet, have {have}")
            }
        }
    }
}

impl core::error::Error for IcrcError {}

/// Computes the ICRC of a RoCEv2 packet.
///
/// `ip_packet` starts at the first byte of the IPv4 or IPv6 header and ends after the pad,
/// *without* the 4 ICRC bytes. The IP version is read from its first nibble, the IPv4
/// header length from IHL.
pub fn compute(ip_packet: &[u8]) -> Result<u32, IcrcError> {
    let ip_len = ip_header_len(ip_packet)?;
    let fixed = ip_len + UDP_HEADER_LEN + BTH_LEN;
    if ip_packet.len() < fixed {
        return Err(IcrcError::TooShort {
            need: fixed + ICRC_LEN,
            have: ip_packet.len() + ICRC_LEN,
        });
    }
    // The masked headers go to the CRC as a block on the stack, the rest of the packet as a
    // slice of the input. The CRC's folding loop runs only on pieces of at least 128 bytes
    // (shorter ones go byte-table-wise, several times slower), so the block is made to take
    // the whole packet when it is short, and the first 128 bytes of a long one: every piece
    // then folds. The masked LRH is not in the block: the CRC starts from the state after it.
    let mut block = [0u8; WHOLE_MAX];
    let take = if ip_packet.len() > WHOLE_MAX {
        if let Some(first) = ip_packet.first_chunk::<FOLD_MIN>() {
            block[..FOLD_MIN].copy_from_slice(first);
        }
        FOLD_MIN
    } else if ip_packet.len() >= FOLD_MIN {
        block[..ip_packet.len()].copy_from_slice(ip_packet);
        ip_packet.len()
    } else {
        block[..fixed].copy_from_slice(&ip_packet[..fixed]);
        fixed
    };
    let ip = &mut block[..ip_len];
    if ip_len == 40 && ip[0] >> 4 == 6 {
        ip[0] |= 0x0F; // traffic class, high nibble
        ip[1] = 0xFF; // traffic class low nibble, flow label high nibble
        ip[2] = 0xFF;
        ip[3] = 0xFF;
        ip[7] = 0xFF; // hop limit
    } else {
        ip[1] = 0xFF; // TOS
        ip[8] = 0xFF; // TTL
        ip[10] = 0xFF; // header checksum
        ip[11] = 0xFF;
    }
    block[ip_len + 6] = 0xFF; // UDP checksum
    block[ip_len + 7] = 0xFF;
    block[ip_len + UDP_HEADER_LEN + 4] = 0xFF; // BTH byte 4

    let mut h = hasher();
    h.update(&block[..take]);
    h.update(&ip_packet[take..]);
    Ok(h.finalize())
}

/// The CRC-32 of the eight bytes of ones that stand for the masked LRH.
const LRH_CRC: u32 = 0x2144_DF1C;

/// A hasher that has taken in the masked LRH. `crc32fast::Hasher::new` detects the CPU's
/// features each time it is called; with `std` they are detected once and the hasher is
/// cloned.
#[inline]
fn hasher() -> crc32fast::Hasher {
    #[cfg(feature = "std")]
    {
        static PROTOTYPE: std::sync::OnceLock<crc32fast::Hasher> = std::sync::OnceLock::new();
        PROTOTYPE.get_or_init(|| crc32fast::Hasher::new_with_initial(LRH_CRC)).clone()
    }
    #[cfg(not(feature = "std"))]
    {
        crc32fast::Hasher::new_with_initial(LRH_CRC)
    }
}

/// Reads the ICRC trailer of `ip_packet_with_icrc` (little-endian, its last 4 bytes).
pub fn trailer(ip_packet_with_icrc: &[u8]) -> Option<u32> {
    let n = ip_packet_with_icrc.len();
    let t = ip_packet_with_icrc.get(n.checked_sub(ICRC_LEN)?..)?;
    Some(u32::from_le_bytes([t[0], t[1], t[2], t[3]]))
}

/// Outcome of checking the ICRC of a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IcrcCheck {
    /// The trailer equals the computed ICRC.
    Ok,
    /// The trailer differs from the computed value.
    Bad {
        /// The trailer as found.
        found: u32,
        /// The ICRC computed over the packet.
        computed: u32,
    },
}

/// Verifies a packet that ends with its ICRC trailer.
pub fn verify(ip_packet_with_icrc: &[u8]) -> Result<IcrcCheck, IcrcError> {
    let n = ip_packet_with_icrc.len();
    let body_len =
        n.checked_sub(ICRC_LEN).ok_or(IcrcError::TooShort { need: ICRC_LEN, have: n })?;
    let computed = compute(&ip_packet_with_icrc[..body_len])?;
    let found = trailer(ip_packet_with_icrc).unwrap_or_default();
    Ok(if found == computed { IcrcCheck::Ok } else { IcrcCheck::Bad { found, computed } })
}

/// Computes the ICRC over `ip_packet[..len - 4]` and writes it into the last 4 bytes.
pub fn fill(ip_packet_with_icrc: &mut [u8]) -> Result<u32, IcrcError> {
    let n = ip_packet_with_icrc.len();
    let body_len =
        n.checked_sub(ICRC_LEN).ok_or(IcrcError::TooShort { need: ICRC_LEN, have: n })?;
    let crc = compute(&ip_packet_with_icrc[..body_len])?;
    ip_packet_with_icrc[body_len..].copy_from_slice(&crc.to_le_bytes());
    Ok(crc)
}

/// A way of computing the ICRC wrong that a checker can recognise in a trailer: one rule of
/// this module broken, the rest right (`ICRC-COVER-001`, `ICRC-MASK-001`, `ICRC-ORDER-001`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Miscomputed {
    /// The right CRC appended big-endian (`ICRC-ORDER-001`).
    BigEndian,
    /// The CRC over the link-layer header too, from the first byte of the frame
    /// (`ICRC-COVER-001`).
    LinkHeaderCovered,
    /// The CRC without the eight bytes of ones that stand for the LRH (`ICRC-COVER-001`).
    NoLrhOnes,
    /// The CRC with no field replaced by ones (`ICRC-MASK-001`).
    Unmasked,
    /// The CRC with the IP, UDP and BTH fields masked but BTH byte 4 covered as sent
    /// (`ICRC-MASK-001`).
    BthByte4Covered,
}

impl Miscomputed {
    /// Every way, in the order [`Miscomputed::explain`] tries them.
    pub const ALL: [Miscomputed; 5] = [
        Miscomputed::BigEndian,
        Miscomputed::LinkHeaderCovered,
        Miscomputed::NoLrhOnes,
        Miscomputed::Unmasked,
        Miscomputed::BthByte4Covered,
    ];

    /// The requirement the way breaks.
    pub fn requirement(self) -> &'static str {
        match self {
            Miscomputed::BigEndian => "ICRC-ORDER-001",
            Miscomputed::LinkHeaderCovered | Miscomputed::NoLrhOnes => "ICRC-COVER-001",
            Miscomputed::Unmasked | Miscomputed::BthByte4Covered => "ICRC-MASK-001",
        }
    }

    /// The trailer, read little-endian, that a device computing this way appends to
    /// `frame`: the whole frame, whose IP header starts at `ip_at` and whose ICRC trailer
    /// starts at `icrc_at`.
    pub fn trailer(self, frame: &[u8], ip_at: usize, icrc_at: usize) -> Result<u32, IcrcError> {
        let ip_packet = frame.get(ip_at..icrc_at).unwrap_or_default();
        let right = compute(ip_packet)?;
        let ip_len = ip_header_len(ip_packet)?;
        let masked = |bth4: bool| {
            let mut b = ip_packet.to_vec();
            if ip_len == 40 {
                b[0] |= 0x0F;
                b[1..4].fill(0xFF);
                b[7] = 0xFF;
            } else {
                b[1] = 0xFF;
                b[8] = 0xFF;
                b[10..12].fill(0xFF);
            }
            b[ip_len + 6..ip_len + 8].fill(0xFF);
            if bth4 {
                b[ip_len + UDP_HEADER_LEN + 4] = 0xFF;
            }
            b
        };
        Ok(match self {
            Miscomputed::BigEndian => right.swap_bytes(),
            Miscomputed::LinkHeaderCovered => {
                let mut h = hasher();
                h.update(frame.get(..ip_at).unwrap_or_default());
                h.update(&masked(true));
                h.finalize()
            }
            Miscomputed::NoLrhOnes => crc32fast::hash(&masked(true)),
            Miscomputed::Unmasked => {
                let mut h = hasher();
                h.update(ip_packet);
                h.finalize()
            }
            Miscomputed::BthByte4Covered => {
                let mut h = hasher();
                h.update(&masked(false));
                h.finalize()
            }
        })
    }

    /// The way a device computed the trailer `found` of `frame` wrong, when it is one of
    /// [`Miscomputed::ALL`]; `None` for a right trailer or one no such way explains.
    pub fn explain(frame: &[u8], ip_at: usize, icrc_at: usize, found: u32) -> Option<Miscomputed> {
        let right = compute(frame.get(ip_at..icrc_at)?).ok()?;
        if found == right {
            return None;
        }
        Miscomputed::ALL
            .into_iter()
            .find(|m| m.trailer(frame, ip_at, icrc_at).is_ok_and(|t| t == found && t != right))
    }
}

fn ip_header_len(ip_packet: &[u8]) -> Result<usize, IcrcError> {
    let first = *ip_packet.first().ok_or(IcrcError::TooShort { need: 20, have: 0 })?;
    match first >> 4 {
        4 => {
            let ihl = usize::from(first & 0x0F) * 4;
            if ihl < 20 { Err(IcrcError::NotIp(4)) } else { Ok(ihl) }
        }
        6 => Ok(40),
        v => Err(IcrcError::NotIp(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// The shared vectors: whole Ethernet frames (IPv4, untagged) with their ICRC.
    pub(crate) const VECTORS: &[(&str, &str)] = &[
        (
            "cx4lx-cnp",
            "e41d2dab2bc27cfe90643b32080045c2003c718c4000401191610a0011010a001201000012b7002800008100ffff40000118000000000000000000000000000000000000000082fd002a",
        ),
        (
            "scapy-send-only-v4",
            "02000000000202000000000108004502003c000140004011b6aac0000201c0000202c00012b7002800000400ffff000000118012345668656c6c6f20726f63652076322121218704afca",
        ),
    ];

    pub(crate) fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// The ICRC as the definition reads: the masked packet in one buffer, one CRC over it.
    fn by_definition(ip_packet: &[u8]) -> u32 {
        let ip_len = if ip_packet[0] >> 4 == 6 { 40 } else { usize::from(ip_packet[0] & 0xF) * 4 };
        let mut m = ip_packet.to_vec();
        if ip_len == 40 {
            m[0] |= 0x0F;
            m[1..4].fill(0xFF);
            m[7] = 0xFF;
        } else {
            m[1] = 0xFF;
            m[8] = 0xFF;
            m[10..12].fill(0xFF);
        }
        m[ip_len + 6..ip_len + 8].fill(0xFF);
        m[ip_len + 12] = 0xFF;
        let mut h = crc32fast::Hasher::new();
        h.update(&[0xFF; 8]);
        h.update(&m);
        h.finalize()
    }

    #[test]
    fn every_length_matches_the_definition() {
        // Short packets, packets copied whole into the masked block, and long ones: on
        // both sides of each boundary of `compute`.
        for (first, ihl) in [(0x45u8, 20usize), (0x46, 24), (0x60, 40)] {
            for len in ihl + 20..700 {
                let mut p: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
                p[0] = first;
                assert_eq!(compute(&p), Ok(by_definition(&p)), "header {first:#x}, {len} bytes");
            }
        }
    }

    #[test]
    fn shared_vectors_verify() {
        for (name, h) in VECTORS {
            let frame = hex(h);
            assert_eq!(verify(&frame[14..]), Ok(IcrcCheck::Ok), "{name}");
        }
        // The documented byte order: 0xcaaf0487 goes on the wire as 87 04 af ca.
        let frame = hex(VECTORS[1].1);
        assert_eq!(compute(&frame[14..frame.len() - 4]), Ok(0xcaaf_0487));
    }

    #[test]
    fn masked_fields_do_not_matter_and_covered_fields_do() {
        let frame = hex(VECTORS[1].1);
        let ip = &frame[14..];
        // Masked: TOS, TTL, IP checksum, UDP checksum, BTH byte 4.
        for &(at, val) in
            &[(1usize, 0x11u8), (8, 1), (10, 0), (11, 0), (26, 0x12), (27, 0x34), (32, 0xC0)]
        {
            let mut m = ip.to_vec();
            m[at] = val;
            assert_eq!(verify(&m), Ok(IcrcCheck::Ok), "masked byte {at}");
        }
        // Covered: UDP source port, BTH byte 8 (rtx), payload, pad count.
        for &at in &[20usize, 21, 36, 40, 45] {
            let mut m = ip.to_vec();
            m[at] ^= 0x20;
            assert!(matches!(verify(&m), Ok(IcrcCheck::Bad { .. })), "covered byte {at}");
        }
    }

    #[test]
    fn ipv6_masks_traffic_class_flow_label_and_hop_limit() {
        // Build an IPv6 RoCEv2 packet by hand: 40 B IPv6, 8 B UDP, 12 B BTH, 4 B payload.
        let mut p = Vec::new();
        p.extend_from_slice(&[0x60, 0x00, 0x00, 0x00, 0x00, 0x18, 17, 64]);
        p.extend_from_slice(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        p.extend_from_slice(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
        p.extend_from_slice(&[0xc0, 0x00, 0x12, 0xb7, 0x00, 0x18, 0x00, 0x00]);
        p.extend_from_slice(&[0xCA, 0, 0xff, 0xff, 0, 0, 0, 5, 0x80, 0, 0, 1]);
        p.extend_from_slice(b"data");
        p.extend_from_slice(&[0; 4]);
        fill(&mut p).unwrap();
        assert_eq!(verify(&p), Ok(IcrcCheck::Ok));
        for &(at, val) in &[(0usize, 0x6F), (1, 0xAB), (2, 0x12), (3, 0x34), (7, 1), (46, 0xAA)] {
            let mut m = p.clone();
            m[at] = val;
            assert_eq!(verify(&m), Ok(IcrcCheck::Ok), "masked byte {at}");
        }
        for &at in &[8usize, 40, 41, 64, 66] {
            let mut m = p.clone();
            m[at] ^= 1;
            assert!(matches!(verify(&m), Ok(IcrcCheck::Bad { .. })), "covered byte {at}");
        }
    }

    /// Length of the InfiniBand LRH the ICRC stands in for with ones.
    const LRH_LEN: usize = 8;

    #[test]
    fn lrh_crc_is_the_crc_of_eight_bytes_of_ones() {
        assert_eq!(crc32fast::hash(&[0xFF; LRH_LEN]), LRH_CRC);
        let mut h = crc32fast::Hasher::new_with_initial(LRH_CRC);
        h.update(b"roce");
        let mut whole = [0xFFu8; LRH_LEN + 4];
        whole[LRH_LEN..].copy_from_slice(b"roce");
        assert_eq!(h.finalize(), crc32fast::hash(&whole));
    }

    /// Each way of computing the ICRC wrong gives a trailer of its own, which
    /// `Miscomputed::explain` tells apart; a right trailer is explained by none.
    #[test]
    fn miscomputed_trailers_are_told_apart() {
        for (name, frame) in VECTORS {
            let frame = hex(frame);
            let (ip, end) = (14, frame.len() - ICRC_LEN);
            let right = trailer(&frame).expect("a trailer");
            assert_eq!(Miscomputed::explain(&frame, ip, end, right), None, "{name}");
            for m in Miscomputed::ALL {
                let t = m.trailer(&frame, ip, end).expect("computed");
                assert_ne!(t, right, "{name}: {m:?}");
                assert_eq!(Miscomputed::explain(&frame, ip, end, t), Some(m), "{name}: {m:?}");
            }
        }
    }

    /// Out-of-range offsets and non-IP bytes are an error or no explanation, not a panic.
    #[test]
    fn miscomputed_takes_bad_offsets() {
        let frame = [0u8; 30];
        for m in Miscomputed::ALL {
            assert!(m.trailer(&frame, 14, 26).is_err());
            assert!(m.trailer(&frame, 40, 20).is_err());
        }
        assert_eq!(Miscomputed::explain(&frame, 14, 26, 1), None);
    }

    #[test]
    fn short_or_non_ip_input_is_an_error_not_a_panic() {
        assert_eq!(compute(&[]), Err(IcrcError::TooShort { need: 20, have: 0 }));
        assert_eq!(compute(&[0x50; 64]), Err(IcrcError::NotIp(5)));
        assert_eq!(compute(&[0x41; 64]), Err(IcrcError::NotIp(4)));
        assert!(matches!(compute(&[0x45; 30]), Err(IcrcError::TooShort { .. })));
        assert!(matches!(verify(&[0x45, 0]), Err(IcrcError::TooShort { .. })));
        assert!(fill(&mut [0u8; 3]).is_err());
    }
}
