//! IPv6 fixed header, 40 bytes (requirements `ENC-IPV6-*`).
//!
//! ```text
//!  byte 0-3   version(31:28) traffic class(27:20) flow label(19:0)
//!  byte 4-5   payload length
//!  byte 6     next header                       17 = UDP
//!  byte 7     hop limit
//!  byte 8-23  source address
//!  byte 24-39 destination address
//! ```
//!
//! Only the fixed header is decoded; extension headers are not (RoCEv2 puts UDP directly
//! after it, `ENC-IPV6-001`). In MRC the low 16 bits of the path's entropy value travel in
//! the flow label, which the ICRC does not cover.
//!
//! The view's accessors never panic once [`Ipv6Packet::new_checked`] (or
//! [`Ipv6Packet::check_len`]) has succeeded; `new_unchecked` followed by an accessor on a
//! short buffer panics.

use core::net::Ipv6Addr;

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};
use crate::field::{set_u16, set_u32, u16_at, u32_at};
use crate::wire::ipv4::IP_PROTO_UDP;

/// Length of the IPv6 fixed header.
pub const IPV6_HEADER_LEN: usize = 40;
/// The largest flow label (20 bits).
pub const IPV6_MAX_FLOW_LABEL: u32 = 0xF_FFFF;
/// The bits of the flow label that carry EV\[15:0\] (`ENC-EV-001`); bits 19:16 are sent as 0.
pub const FLOW_LABEL_EV_BITS: u32 = 0xFFFF;

mod field {
    pub(super) const VER_TC_FLOW: usize = 0;
    pub(super) const PAYLOAD_LEN: usize = 4;
    pub(super) const NEXT_HEADER: usize = 6;
    pub(super) const HOP_LIMIT: usize = 7;
    pub(super) const SRC: usize = 8;
    pub(super) const DST: usize = 24;
}

/// Field layout: name, offset, length. Bytes 0-3 are reported as `version`, the field they
/// start with.
const LAYOUT: [(&str, usize, usize); 6] = [
    ("version", field::VER_TC_FLOW, 4),
    ("payload_len", field::PAYLOAD_LEN, 2),
    ("next_header", field::NEXT_HEADER, 1),
    ("hop_limit", field::HOP_LIMIT, 1),
    ("src", field::SRC, 16),
    ("dst", field::DST, 16),
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
    DecodeError::truncated(Header::Ipv6, name, at, need, have.saturating_sub(at))
}

fn addr_at(b: &[u8], at: usize) -> Ipv6Addr {
    let mut a = [0u8; 16];
    a.copy_from_slice(&b[at..at + 16]);
    Ipv6Addr::from(a)
}

/// A zero-copy view of an IPv6 fixed header (and whatever follows it in the buffer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv6Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Ipv6Packet { buffer }
    }

    /// Wraps a buffer, checking that it holds the whole fixed header.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds the 40-byte fixed header. It does not look at the
    /// version or the payload length.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        if have < IPV6_HEADER_LEN {
            return Err(truncation(have));
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn word0(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::VER_TC_FLOW)
    }
    /// IP version (6 for IPv6).
    pub fn version(&self) -> u8 {
        (self.word0() >> 28) as u8
    }
    /// Traffic class: DSCP (7:2) and ECN (1:0).
    pub fn traffic_class(&self) -> u8 {
        (self.word0() >> 20) as u8
    }
    /// The DSCP part of the traffic class, 6 bits.
    pub fn dscp(&self) -> u8 {
        self.traffic_class() >> 2
    }
    /// The ECN part of the traffic class, 2 bits.
    pub fn ecn(&self) -> u8 {
        self.traffic_class() & 0x3
    }
    /// Flow label, 20 bits.
    pub fn flow_label(&self) -> u32 {
        self.word0() & IPV6_MAX_FLOW_LABEL
    }
    /// Payload length (everything after the fixed header), as on the wire.
    pub fn payload_len(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::PAYLOAD_LEN)
    }
    /// Next header.
    pub fn next_header(&self) -> u8 {
        self.buffer.as_ref()[field::NEXT_HEADER]
    }
    /// Hop limit.
    pub fn hop_limit(&self) -> u8 {
        self.buffer.as_ref()[field::HOP_LIMIT]
    }
    /// Source address.
    pub fn src_addr(&self) -> Ipv6Addr {
        addr_at(self.buffer.as_ref(), field::SRC)
    }
    /// Destination address.
    pub fn dst_addr(&self) -> Ipv6Addr {
        addr_at(self.buffer.as_ref(), field::DST)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6Packet<T> {
    /// Sets bytes 0-3 from their parts; `version` is masked to 4 bits and `flow_label` to 20.
    pub fn set_ver_tc_flow(&mut self, version: u8, traffic_class: u8, flow_label: u32) {
        let w = (u32::from(version & 0x0F) << 28)
            | (u32::from(traffic_class) << 20)
            | (flow_label & IPV6_MAX_FLOW_LABEL);
        set_u32(self.buffer.as_mut(), field::VER_TC_FLOW, w);
    }
    /// Sets only the flow label (masked to 20 bits), leaving version and traffic class alone.
    pub fn set_flow_label(&mut self, flow_label: u32) {
        let w = (self.word0() & !IPV6_MAX_FLOW_LABEL) | (flow_label & IPV6_MAX_FLOW_LABEL);
        set_u32(self.buffer.as_mut(), field::VER_TC_FLOW, w);
    }
    /// Sets the payload length.
    pub fn set_payload_len(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::PAYLOAD_LEN, v);
    }
    /// Sets the next header.
    pub fn set_next_header(&mut self, v: u8) {
        self.buffer.as_mut()[field::NEXT_HEADER] = v;
    }
    /// Sets the hop limit.
    pub fn set_hop_limit(&mut self, v: u8) {
        self.buffer.as_mut()[field::HOP_LIMIT] = v;
    }
    /// Sets the source address.
    pub fn set_src_addr(&mut self, v: Ipv6Addr) {
        self.buffer.as_mut()[field::SRC..field::SRC + 16].copy_from_slice(&v.octets());
    }
    /// Sets the destination address.
    pub fn set_dst_addr(&mut self, v: Ipv6Addr) {
        self.buffer.as_mut()[field::DST..field::DST + 16].copy_from_slice(&v.octets());
    }
}

/// An owned, decoded IPv6 fixed header, every field as on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Ipv6Repr {
    /// IP version, 4 bits. Decoding requires 6; `emit` writes any 4-bit value, so a test
    /// can build a header that decoders must reject.
    #[cfg_attr(feature = "arbitrary", arbitrary(value = 6))]
    pub version: u8,
    /// Traffic class: DSCP (bits 7:2) and ECN (bits 1:0).
    pub traffic_class: u8,
    /// Flow label, 20 bits (carries the low 16 bits of MRC's entropy value).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits20))]
    pub flow_label: u32,
    /// Payload length, as on the wire.
    pub payload_len: u16,
    /// Next header (17 = UDP, `ENC-IPV6-001`).
    pub next_header: u8,
    /// Hop limit.
    pub hop_limit: u8,
    /// Source address.
    pub src: Ipv6Addr,
    /// Destination address.
    pub dst: Ipv6Addr,
}

impl Ipv6Repr {
    /// A header from `src` to `dst` carrying `next_header`, with traffic class 0, flow
    /// label 0, hop limit 64 and payload length 0 (set it for the frame).
    pub const fn new(src: Ipv6Addr, dst: Ipv6Addr, next_header: u8) -> Self {
        Ipv6Repr {
            version: 6,
            traffic_class: 0,
            flow_label: 0,
            payload_len: 0,
            next_header,
            hop_limit: 64,
            src,
            dst,
        }
    }

    /// Decodes an IPv6 fixed header from the start of `buf`. The version must be 6
    /// (`BadValue` on `version` otherwise).
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        if let Some(&b0) = buf.first() {
            if b0 >> 4 != 6 {
                let version = u64::from(b0 >> 4);
                return Err(DecodeError::bad_value(Header::Ipv6, "version", 0, version));
            }
        }
        // A whole header is read from a fixed-size view, without bounds checks.
        if let Some(b) = buf.first_chunk::<IPV6_HEADER_LEN>() {
            return Ok(Self::from_view(&Ipv6Packet::new_unchecked(b)));
        }
        Ok(Self::from_view(&Ipv6Packet::new_checked(buf)?))
    }

    /// Reads every field of a checked view (the version is taken as it is).
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Ipv6Packet<T>) -> Self {
        Ipv6Repr {
            version: v.version(),
            traffic_class: v.traffic_class(),
            flow_label: v.flow_label(),
            payload_len: v.payload_len(),
            next_header: v.next_header(),
            hop_limit: v.hop_limit(),
            src: v.src_addr(),
            dst: v.dst_addr(),
        }
    }

    /// The DSCP part of the traffic class.
    pub const fn dscp(&self) -> u8 {
        self.traffic_class >> 2
    }

    /// The ECN part of the traffic class.
    pub const fn ecn(&self) -> u8 {
        self.traffic_class & 0x3
    }

    /// Bytes on the wire (the fixed header).
    pub const fn buffer_len(&self) -> usize {
        IPV6_HEADER_LEN
    }

    /// Header length in bytes (40; no extension headers).
    pub const fn header_len(&self) -> usize {
        IPV6_HEADER_LEN
    }

    /// Writes the header into the start of `buf`. Never panics: a short buffer or a
    /// `version` or `flow_label` too wide for its bits is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Ipv6, buf, IPV6_HEADER_LEN)?;
        check_range(Header::Ipv6, "version", self.version.into(), 0xF)?;
        check_range(
            Header::Ipv6,
            "flow_label",
            self.flow_label.into(),
            IPV6_MAX_FLOW_LABEL.into(),
        )?;
        let mut v = Ipv6Packet::new_unchecked(&mut buf[..IPV6_HEADER_LEN]);
        v.set_ver_tc_flow(self.version, self.traffic_class, self.flow_label);
        v.set_payload_len(self.payload_len);
        v.set_next_header(self.next_header);
        v.set_hop_limit(self.hop_limit);
        v.set_src_addr(self.src);
        v.set_dst_addr(self.dst);
        Ok(IPV6_HEADER_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["ENC-IPV6-001", "ENC-EV-001", "ENC-HOP-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    ///
    /// * `ENC-IPV6-001`: the next header is UDP (17); no extension headers.
    /// * `ENC-EV-001`: `flow_label[19:16]`, which carries no part of the EV, is 0. (The
    ///   offset is that of byte 1, which holds these bits.)
    /// * `ENC-HOP-001`: the hop limit is not 0.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        if self.next_header != IP_PROTO_UDP {
            out.push(Violation {
                requirement: "ENC-IPV6-001",
                header: Header::Ipv6,
                field: "next_header",
                offset: Some(base + field::NEXT_HEADER),
                value: self.next_header.into(),
                rule: "next header must be UDP (17), with no extension headers",
            });
        }
        if self.hop_limit == 0 {
            out.push(Violation {
                requirement: "ENC-HOP-001",
                header: Header::Ipv6,
                field: "hop_limit",
                offset: Some(base + field::HOP_LIMIT),
                value: 0,
                rule: "the hop limit must not be 0",
            });
        }
        if self.flow_label & !FLOW_LABEL_EV_BITS != 0 {
            out.push(Violation {
                requirement: "ENC-EV-001",
                header: Header::Ipv6,
                field: "flow_label",
                offset: Some(base + field::VER_TC_FLOW + 1),
                value: self.flow_label.into(),
                rule: "flow_label bits 19:16 carry no part of the EV and must be 0",
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    // Version 6, traffic class 0x8A (DSCP 34, ECN 2), flow label 0x12345, payload 36,
    // UDP, hop limit 64, 2001:db8::1 -> 2001:db8::2.
    const HDR: [u8; 40] = [
        0x68, 0xA1, 0x23, 0x45, 0x00, 0x24, 0x11, 0x40, //
        0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, //
        0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
    ];

    fn src() -> Ipv6Addr {
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1)
    }
    fn dst() -> Ipv6Addr {
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 2)
    }

    fn sample() -> Ipv6Repr {
        Ipv6Repr {
            traffic_class: 0x8A,
            flow_label: 0x1_2345,
            payload_len: 36,
            ..Ipv6Repr::new(src(), dst(), IP_PROTO_UDP)
        }
    }

    #[test]
    fn deconstruct() {
        let v = Ipv6Packet::new_checked(&HDR[..]).unwrap();
        assert_eq!(v.version(), 6);
        assert_eq!((v.traffic_class(), v.dscp(), v.ecn()), (0x8A, 34, 2));
        assert_eq!(v.flow_label(), 0x1_2345);
        assert_eq!(v.payload_len(), 36);
        assert_eq!((v.next_header(), v.hop_limit()), (17, 64));
        assert_eq!((v.src_addr(), v.dst_addr()), (src(), dst()));
    }

    #[test]
    fn construct() {
        let mut buf = [0u8; 40];
        let mut v = Ipv6Packet::new_unchecked(&mut buf[..]);
        v.set_ver_tc_flow(6, 0x8A, 0);
        v.set_flow_label(0x1_2345);
        v.set_payload_len(36);
        v.set_next_header(17);
        v.set_hop_limit(64);
        v.set_src_addr(src());
        v.set_dst_addr(dst());
        assert_eq!(buf, HDR);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(Ipv6Repr::parse(&HDR).unwrap(), sample());
        assert_eq!((sample().dscp(), sample().ecn()), (34, 2));
        let mut buf = [0u8; 40];
        assert_eq!(sample().emit(&mut buf), Ok(40));
        assert_eq!(buf, HDR);
    }

    #[test]
    fn truncation_names_field_and_offset() {
        let e = Ipv6Repr::parse(&HDR[..30]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Ipv6, "dst", 24, 16, 6));
        assert_eq!(e.to_string(), "IPv6.dst truncated at byte 24: need 16, have 6");
        assert_eq!(e.at(18).offset, 42);
        let e = Ipv6Repr::parse(&HDR[..2]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Ipv6, "version", 0, 4, 2));
        let e = Ipv6Repr::parse(&HDR[..7]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Ipv6, "hop_limit", 7, 1, 0));
    }

    #[test]
    fn bad_version() {
        let mut b = HDR;
        b[0] = 0x48;
        assert_eq!(
            Ipv6Repr::parse(&b).unwrap_err(),
            DecodeError::bad_value(Header::Ipv6, "version", 0, 4)
        );
        let mut buf = [0u8; 40];
        Ipv6Repr { version: 4, ..sample() }.emit(&mut buf).unwrap();
        assert_eq!(buf[0] >> 4, 4);
    }

    #[test]
    fn emit_never_panics() {
        assert!(matches!(
            sample().emit(&mut [0u8; 39]),
            Err(EmitError::BufferTooShort { need: 40, have: 39, .. })
        ));
        let bad = Ipv6Repr { flow_label: 0x10_0000, ..sample() };
        assert!(matches!(
            bad.emit(&mut [0u8; 40]),
            Err(EmitError::FieldOutOfRange { field: "flow_label", .. })
        ));
        let bad = Ipv6Repr { version: 0x10, ..sample() };
        assert!(matches!(
            bad.emit(&mut [0u8; 40]),
            Err(EmitError::FieldOutOfRange { field: "version", .. })
        ));
    }

    #[test]
    fn validate_next_header_and_flow_label() {
        let mut out = Vec::new();
        let clean = Ipv6Repr { flow_label: 0x2345, ..sample() };
        clean.validate(14, &mut out);
        assert!(out.is_empty());
        Ipv6Repr { next_header: 0, ..clean }.validate(14, &mut out); // hop-by-hop options
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].requirement, out[0].offset, out[0].value),
            ("ENC-IPV6-001", Some(20), 0)
        );
        // ENC-EV-001: the sample's flow label 0x12345 has bit 16 set, which no EV fills.
        out.clear();
        sample().validate(14, &mut out);
        assert_eq!(
            out.iter().map(|v| (v.requirement, v.field, v.offset, v.value)).collect::<Vec<_>>(),
            [("ENC-EV-001", "flow_label", Some(15), 0x12345)]
        );
        // ENC-HOP-001: a hop limit of 0.
        out.clear();
        Ipv6Repr { hop_limit: 0, ..clean }.validate(14, &mut out);
        assert_eq!(
            out.iter().map(|v| (v.requirement, v.field, v.offset)).collect::<Vec<_>>(),
            [("ENC-HOP-001", "hop_limit", Some(21))]
        );
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x1B66);
        let mut raw = [0u8; 64];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = Ipv6Repr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut buf = [0u8; 40];
            assert_eq!(r.emit(&mut buf), Ok(40));
            assert_eq!(Ipv6Repr::parse(&buf).unwrap(), r);
        }
    }
}
