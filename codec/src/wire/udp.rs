//! UDP header, 8 bytes (requirements `ENC-UDP-*`).
//!
//! ```text
//!  byte 0-1  source port          MRC: 16 bits of the path's entropy value
//!  byte 2-3  destination port     4791 for RoCEv2
//!  byte 4-5  length               header and data, in bytes
//!  byte 6-7  checksum             0 = not computed (usual for RoCEv2 over IPv4)
//! ```
//!
//! The checksum is kept as it was on the wire. [`UdpRepr::compute_checksum_v4`] and
//! [`UdpRepr::compute_checksum_v6`] give the real one (with the pseudo-header) for builders
//! that want to send it. The ICRC masks this field, so its value does not change the ICRC.
//!
//! The view checks only that the 8 bytes fit; whether `length` agrees with the IP layer is
//! the frame decoder's question. The view's accessors never panic once
//! [`UdpPacket::new_checked`] (or [`UdpPacket::check_len`]) has succeeded;
//! `new_unchecked` followed by an accessor on a short buffer panics.

use core::net::{Ipv4Addr, Ipv6Addr};

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer};
use crate::field::{set_u16, u16_at};
use crate::wire::ipv4::{IP_PROTO_UDP, checksum_add, fold_checksum};

/// Length of the UDP header.
pub const UDP_HEADER_LEN: usize = 8;
/// The UDP destination port of RoCEv2.
pub const ROCEV2_PORT: u16 = 4791;

mod field {
    pub(super) const SRC_PORT: usize = 0;
    pub(super) const DST_PORT: usize = 2;
    pub(super) const LENGTH: usize = 4;
    pub(super) const CHECKSUM: usize = 6;
}

/// Field layout: name, offset, length.
const LAYOUT: [(&str, usize, usize); 4] = [
    ("src_port", field::SRC_PORT, 2),
    ("dst_port", field::DST_PORT, 2),
    ("length", field::LENGTH, 2),
    ("checksum", field::CHECKSUM, 2),
];

/// The truncation error for the first field that does not fit in `have` bytes.
fn truncation(have: usize) -> DecodeError {
    let mut last = LAYOUT[0];
    for f in LAYOUT {
        last = f;
        if have < f.1 + f.2 {
            break;
        }
    }
    let (name, at, need) = last;
    DecodeError::truncated(Header::Udp, name, at, need, have.saturating_sub(at))
}

/// A zero-copy view of a UDP header (and whatever follows it in the buffer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        UdpPacket { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole UDP header.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds the 8-byte header. It does not look at `length`.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        if have < UDP_HEADER_LEN {
            return Err(truncation(have));
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Source port.
    pub fn src_port(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::SRC_PORT)
    }
    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::DST_PORT)
    }
    /// Length of header and data, as on the wire.
    pub fn length(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::LENGTH)
    }
    /// Checksum, as on the wire.
    pub fn checksum(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::CHECKSUM)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpPacket<T> {
    /// Sets the source port.
    pub fn set_src_port(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::SRC_PORT, v);
    }
    /// Sets the destination port.
    pub fn set_dst_port(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::DST_PORT, v);
    }
    /// Sets the length.
    pub fn set_length(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::LENGTH, v);
    }
    /// Sets the checksum field.
    pub fn set_checksum(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::CHECKSUM, v);
    }
}

/// An owned, decoded UDP header, every field as on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct UdpRepr {
    /// Source port (in MRC, 16 bits of the entropy value).
    pub src_port: u16,
    /// Destination port (4791 for RoCEv2, `ENC-UDP-001`).
    pub dst_port: u16,
    /// Length of header and data in bytes, as on the wire (at least 8, `ENC-UDP-002`).
    pub length: u16,
    /// Checksum as on the wire; 0 means "not computed".
    pub checksum: u16,
}

impl UdpRepr {
    /// A RoCEv2 header: the given source port, destination port 4791, length 8 (set it
    /// with [`Self::set_payload_len`]) and checksum 0.
    pub const fn rocev2(src_port: u16) -> Self {
        UdpRepr { src_port, dst_port: ROCEV2_PORT, length: UDP_HEADER_LEN as u16, checksum: 0 }
    }

    /// Decodes a UDP header from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        // A whole header is read from a fixed-size view, without bounds checks.
        if let Some(b) = buf.first_chunk::<UDP_HEADER_LEN>() {
            return Ok(Self::from_view(&UdpPacket::new_unchecked(b)));
        }
        Ok(Self::from_view(&UdpPacket::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &UdpPacket<T>) -> Self {
        UdpRepr {
            src_port: v.src_port(),
            dst_port: v.dst_port(),
            length: v.length(),
            checksum: v.checksum(),
        }
    }

    /// Bytes on the wire (the header only).
    pub const fn buffer_len(&self) -> usize {
        UDP_HEADER_LEN
    }

    /// Sets `length` to 8 plus `payload_len`. Fails (leaving `self` unchanged) if the sum
    /// does not fit in 16 bits.
    pub fn set_payload_len(&mut self, payload_len: usize) -> Result<(), EmitError> {
        match payload_len.checked_add(UDP_HEADER_LEN).filter(|&l| l <= 0xFFFF) {
            Some(l) => {
                self.length = l as u16;
                Ok(())
            }
            None => Err(EmitError::Inconsistent { header: Header::Udp, field: "length" }),
        }
    }

    /// Writes the header into the start of `buf`, with the checksum as stored. Never panics:
    /// a short buffer is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Udp, buf, UDP_HEADER_LEN)?;
        let mut v = UdpPacket::new_unchecked(&mut buf[..UDP_HEADER_LEN]);
        v.set_src_port(self.src_port);
        v.set_dst_port(self.dst_port);
        v.set_length(self.length);
        v.set_checksum(self.checksum);
        Ok(UDP_HEADER_LEN)
    }

    /// The UDP checksum over an IPv4 pseudo-header and `udp_bytes` (the whole datagram,
    /// header and data, exactly `length` bytes). Bytes 6-7 of `udp_bytes` are skipped, so the
    /// stored checksum does not matter. A computed 0 is returned as 0xFFFF (RFC 768), since 0
    /// on the wire means "no checksum".
    pub fn compute_checksum_v4(src: Ipv4Addr, dst: Ipv4Addr, udp_bytes: &[u8]) -> u16 {
        let mut acc = checksum_add(0, &src.octets());
        acc = checksum_add(acc, &dst.octets());
        acc += u64::from(IP_PROTO_UDP);
        acc += udp_bytes.len() as u64;
        Self::finish(acc, udp_bytes)
    }

    /// The UDP checksum over an IPv6 pseudo-header (RFC 8200 §8.1) and `udp_bytes`, as
    /// [`Self::compute_checksum_v4`] does for IPv4.
    pub fn compute_checksum_v6(src: Ipv6Addr, dst: Ipv6Addr, udp_bytes: &[u8]) -> u16 {
        let mut acc = checksum_add(0, &src.octets());
        acc = checksum_add(acc, &dst.octets());
        acc += u64::from(IP_PROTO_UDP);
        // The 32-bit upper-layer length, as two 16-bit words.
        acc += udp_bytes.len() as u64 >> 16;
        acc += udp_bytes.len() as u64 & 0xFFFF;
        Self::finish(acc, udp_bytes)
    }

    fn finish(acc: u64, udp_bytes: &[u8]) -> u16 {
        let before = &udp_bytes[..udp_bytes.len().min(field::CHECKSUM)];
        let after = udp_bytes.get(field::CHECKSUM + 2..).unwrap_or(&[]);
        match !fold_checksum(checksum_add(checksum_add(acc, before), after)) {
            0 => 0xFFFF,
            c => c,
        }
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["ENC-UDP-001", "ENC-UDP-002"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    ///
    /// * `ENC-UDP-001`: the destination port is 4791.
    /// * `ENC-UDP-002`: the length is at least 8.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        if self.dst_port != ROCEV2_PORT {
            out.push(Violation {
                requirement: "ENC-UDP-001",
                header: Header::Udp,
                field: "dst_port",
                offset: Some(base + field::DST_PORT),
                value: self.dst_port.into(),
                rule: "the UDP destination port must be 4791",
            });
        }
        if usize::from(self.length) < UDP_HEADER_LEN {
            out.push(Violation {
                requirement: "ENC-UDP-002",
                header: Header::Udp,
                field: "length",
                offset: Some(base + field::LENGTH),
                value: self.length.into(),
                rule: "the UDP length must be at least 8",
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    // The UDP datagram of the shared vector `scapy-send-only-v4` (49152 -> 4791, length 40,
    // checksum 0), from 192.0.2.1 to 192.0.2.2.
    const DGRAM: [u8; 40] = [
        0xc0, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, // UDP
        0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x80, 0x12, 0x34, 0x56, // BTH
        b'h', b'e', b'l', b'l', b'o', b' ', b'r', b'o', b'c', b'e', b' ', b'v', b'2', b'!', b'!',
        b'!', 0x87, 0x04, 0xaf, 0xca, // payload, ICRC
    ];

    fn sample() -> UdpRepr {
        UdpRepr { length: 40, ..UdpRepr::rocev2(49152) }
    }

    #[test]
    fn deconstruct() {
        let v = UdpPacket::new_checked(&DGRAM[..]).unwrap();
        assert_eq!((v.src_port(), v.dst_port(), v.length(), v.checksum()), (49152, 4791, 40, 0));
    }

    #[test]
    fn construct() {
        let mut buf = [0u8; 8];
        let mut v = UdpPacket::new_unchecked(&mut buf[..]);
        v.set_src_port(49152);
        v.set_dst_port(ROCEV2_PORT);
        v.set_length(40);
        v.set_checksum(0);
        assert_eq!(buf, DGRAM[..8]);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(UdpRepr::parse(&DGRAM).unwrap(), sample());
        let mut buf = [0u8; 8];
        assert_eq!(sample().emit(&mut buf), Ok(8));
        assert_eq!(buf, DGRAM[..8]);
        let mut r = UdpRepr::rocev2(49152);
        r.set_payload_len(32).unwrap();
        assert_eq!(r, sample());
        assert!(r.set_payload_len(0xFFF8).is_err());
        assert_eq!(r.length, 40);
    }

    #[test]
    fn checksums_with_pseudo_header() {
        // Expected values computed independently (RFC 1071 over pseudo-header + datagram).
        let (s4, d4) = (Ipv4Addr::new(192, 0, 2, 1), Ipv4Addr::new(192, 0, 2, 2));
        assert_eq!(UdpRepr::compute_checksum_v4(s4, d4, &DGRAM), 0x2c1a);
        let mut filled = DGRAM;
        filled[6..8].copy_from_slice(&0x2c1a_u16.to_be_bytes());
        // The stored checksum is skipped, so the result is the same...
        assert_eq!(UdpRepr::compute_checksum_v4(s4, d4, &filled), 0x2c1a);
        // ...and a correct datagram sums to 0xFFFF with its pseudo-header.
        let mut acc = checksum_add(checksum_add(0, &s4.octets()), &d4.octets());
        acc += 17 + 40;
        assert_eq!(fold_checksum(checksum_add(acc, &filled)), 0xFFFF);

        let s6 = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1);
        let d6 = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 2);
        assert_eq!(UdpRepr::compute_checksum_v6(s6, d6, &DGRAM), 0x54a9);

        // Odd length: the last byte is padded with zero.
        let odd = [0xc0, 0x00, 0x12, 0xb7, 0x00, 0x09, 0x00, 0x00, 0x41];
        assert_eq!(UdpRepr::compute_checksum_v4(s4, d4, &odd), 0x6820);
        // Short or empty input does not panic.
        let _ = UdpRepr::compute_checksum_v4(s4, d4, &[1, 2, 3]);
        let _ = UdpRepr::compute_checksum_v6(s6, d6, &[]);
    }

    #[test]
    fn truncation_names_field_and_offset() {
        let e = UdpRepr::parse(&DGRAM[..5]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Udp, "length", 4, 2, 1));
        assert_eq!(e.to_string(), "UDP.length truncated at byte 4: need 2, have 1");
        assert_eq!(e.at(34).offset, 38);
        let e = UdpRepr::parse(&DGRAM[..7]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Udp, "checksum", 6, 2, 1));
        let e = UdpRepr::parse(&[]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Udp, "src_port", 0, 2, 0));
    }

    #[test]
    fn emit_never_panics() {
        for n in 0..8 {
            let mut buf = [0u8; 8];
            assert!(matches!(
                sample().emit(&mut buf[..n]),
                Err(EmitError::BufferTooShort { need: 8, .. })
            ));
        }
    }

    #[test]
    fn validate_port_and_length() {
        let mut out = Vec::new();
        sample().validate(34, &mut out);
        assert!(out.is_empty());
        UdpRepr { dst_port: 4793, length: 7, ..sample() }.validate(34, &mut out);
        let ids: Vec<_> = out.iter().map(|v| (v.requirement, v.offset, v.value)).collect();
        assert_eq!(ids, [("ENC-UDP-001", Some(36), 4793), ("ENC-UDP-002", Some(38), 7)]);
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x0D9);
        let mut raw = [0u8; 16];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = UdpRepr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut buf = [0u8; 8];
            assert_eq!(r.emit(&mut buf), Ok(8));
            assert_eq!(UdpRepr::parse(&buf).unwrap(), r);
        }
    }
}
