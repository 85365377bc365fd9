//! Ethernet II header, 14 bytes, and the IEEE 802.1Q tag, 4 bytes (requirements `ENC-ETH-*`,
//! `ENC-VLAN-*`).
//!
//! ```text
//!  Ethernet II                          802.1Q tag (after a TPID of 0x8100 or 0x88A8)
//!  byte 0-5   destination address       byte 0-1  PCP(15:13) DEI(12) VID(11:0)   -- the TCI
//!  byte 6-11  source address            byte 2-3  ethertype of what follows
//!  byte 12-13 ethertype
//! ```
//!
//! # How a tag is modelled
//!
//! On the wire a tag is TPID(2) + TCI(2), and the TPID sits exactly where an untagged frame
//! has its ethertype. This crate reads it that way: **every ethertype field names the layer
//! that follows it**. [`EthernetRepr::ethertype`] is whatever bytes 12-13 hold (0x8100 or
//! 0x88A8 when a tag follows), and a [`VlanRepr`] covers the 4 bytes *after* that field:
//! the TCI and the inner ethertype. A stacked (QinQ) frame is Ethernet(0x88A8) /
//! Vlan(0x8100) / Vlan(0x0800) / IPv4. The TPID is therefore never stored twice, and each
//! Repr emits exactly the bytes it parsed.
//!
//! The views' accessors never panic once `new_checked` (or `check_len`) has succeeded;
//! `new_unchecked` followed by an accessor on a short buffer panics.

use core::fmt;
use core::str::FromStr;

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};
use crate::field::{set_u16, u16_at};

/// Length of the Ethernet II header in bytes (no FCS: frames are handled without it).
pub const ETHERNET_HEADER_LEN: usize = 14;
/// Length of an 802.1Q tag after its TPID: TCI(2) + inner ethertype(2).
pub const VLAN_TAG_LEN: usize = 4;

mod field {
    pub(super) const DST: usize = 0;
    pub(super) const SRC: usize = 6;
    pub(super) const ETHERTYPE: usize = 12;

    pub(super) const TCI: usize = 0;
    pub(super) const INNER_ETHERTYPE: usize = 2;
}

/// Field layout of the Ethernet header: name, offset, length.
const ETH_LAYOUT: [(&str, usize, usize); 3] =
    [("dst", field::DST, 6), ("src", field::SRC, 6), ("ethertype", field::ETHERTYPE, 2)];
/// Field layout of the tag: name, offset, length.
const VLAN_LAYOUT: [(&str, usize, usize); 2] =
    [("tci", field::TCI, 2), ("ethertype", field::INNER_ETHERTYPE, 2)];

/// The truncation error for the first field of `layout` that does not fit in `have` bytes.
fn truncation(header: Header, layout: &[(&'static str, usize, usize)], have: usize) -> DecodeError {
    let mut last = ("", 0, 0);
    for &(name, at, need) in layout {
        last = (name, at, need);
        if have < at + need {
            break;
        }
    }
    let (name, at, need) = last;
    DecodeError::truncated(header, name, at, need, have.saturating_sub(at))
}

// ---------------------------------------------------------------------------------------
// EthernetAddress
// ---------------------------------------------------------------------------------------

/// A 48-bit MAC address. Displays (and, with `serde`, serializes in human-readable
/// formats) as `aa:bb:cc:dd:ee:ff`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct EthernetAddress(pub [u8; 6]);

impl EthernetAddress {
    /// The broadcast address `ff:ff:ff:ff:ff:ff`.
    pub const BROADCAST: EthernetAddress = EthernetAddress([0xFF; 6]);

    /// The address from its six bytes, most significant first.
    pub const fn from_bytes(b: [u8; 6]) -> Self {
        EthernetAddress(b)
    }

    /// The six bytes.
    pub const fn as_bytes(&self) -> &[u8; 6] {
        &self.0
    }

    /// Whether the I/G bit is set (group address, broadcast included).
    pub const fn is_multicast(&self) -> bool {
        self.0[0] & 0x01 != 0
    }

    /// Whether this is `ff:ff:ff:ff:ff:ff`.
    pub const fn is_broadcast(&self) -> bool {
        matches!(self.0, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    /// Whether this is an individual (unicast) address.
    pub const fn is_unicast(&self) -> bool {
        !self.is_multicast()
    }

    /// The address as a 48-bit number (used as a violation's value).
    pub const fn to_u64(&self) -> u64 {
        let b = self.0;
        u64::from_be_bytes([0, 0, b[0], b[1], b[2], b[3], b[4], b[5]])
    }
}

impl fmt::Display for EthernetAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(f, "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", b[0], b[1], b[2], b[3], b[4], b[5])
    }
}

impl fmt::Debug for EthernetAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EthernetAddress({self})")
    }
}

impl From<[u8; 6]> for EthernetAddress {
    fn from(b: [u8; 6]) -> Self {
        EthernetAddress(b)
    }
}

impl From<EthernetAddress> for [u8; 6] {
    fn from(a: EthernetAddress) -> Self {
        a.0
    }
}

/// The text is not six colon-separated pairs of hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseEthernetAddressError;

impl fmt::Display for ParseEthernetAddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expected a MAC address written as aa:bb:cc:dd:ee:ff")
    }
}

impl core::error::Error for ParseEthernetAddressError {}

impl FromStr for EthernetAddress {
    type Err = ParseEthernetAddressError;

    /// Parses `aa:bb:cc:dd:ee:ff` (either case of hex digit, exactly two digits per byte).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut out = [0u8; 6];
        let mut parts = s.split(':');
        for b in &mut out {
            let p = parts.next().ok_or(ParseEthernetAddressError)?;
            if p.len() != 2 || !p.bytes().all(|c| c.is_ascii_hexdigit()) {
                return Err(ParseEthernetAddressError);
            }
            *b = u8::from_str_radix(p, 16).map_err(|_| ParseEthernetAddressError)?;
        }
        if parts.next().is_some() {
            return Err(ParseEthernetAddressError);
        }
        Ok(EthernetAddress(out))
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for EthernetAddress {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() { s.collect_str(self) } else { self.0.serialize(s) }
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for EthernetAddress {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = EthernetAddress;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a MAC address written as aa:bb:cc:dd:ee:ff")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<EthernetAddress, E> {
                v.parse().map_err(E::custom)
            }
        }
        if d.is_human_readable() {
            d.deserialize_str(Text)
        } else {
            <[u8; 6]>::deserialize(d).map(EthernetAddress)
        }
    }
}

// ---------------------------------------------------------------------------------------
// EtherType
// ---------------------------------------------------------------------------------------

/// An ethertype (or TPID). Lossless: any 16-bit value is kept.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct EtherType(pub u16);

impl EtherType {
    /// IPv4.
    pub const IPV4: EtherType = EtherType(0x0800);
    /// ARP.
    pub const ARP: EtherType = EtherType(0x0806);
    /// IEEE 802.1Q customer VLAN tag (C-tag TPID).
    pub const VLAN: EtherType = EtherType(0x8100);
    /// IPv6.
    pub const IPV6: EtherType = EtherType(0x86DD);
    /// IEEE 802.1ad service VLAN tag (S-tag TPID, "QinQ").
    pub const QINQ: EtherType = EtherType(0x88A8);
    /// The pre-standard QinQ TPID that some switches still use for an outer tag.
    pub const QINQ_LEGACY: EtherType = EtherType(0x9100);

    /// Whether this value announces a VLAN tag (0x8100 or 0x88A8).
    pub const fn is_vlan_tpid(self) -> bool {
        self.0 == Self::VLAN.0 || self.0 == Self::QINQ.0
    }

    /// Whether a decoder reads a tag after this value: 0x8100, 0x88A8, or the pre-standard
    /// 0x9100 (`DEC-VLAN-002`). Only the first two are allowed in a RoCEv2 frame
    /// (`ENC-ETH-001`).
    pub const fn is_tag_tpid(self) -> bool {
        self.is_vlan_tpid() || self.0 == Self::QINQ_LEGACY.0
    }

    /// Whether a RoCEv2 frame may carry this value in an ethertype field (`ENC-ETH-001`):
    /// IPv4, IPv6, or a VLAN TPID.
    pub const fn is_rocev2_allowed(self) -> bool {
        self.0 == Self::IPV4.0 || self.0 == Self::IPV6.0 || self.is_vlan_tpid()
    }

    /// The name of a known value.
    pub const fn name(self) -> Option<&'static str> {
        match self.0 {
            0x0800 => Some("IPv4"),
            0x0806 => Some("ARP"),
            0x8100 => Some("802.1Q"),
            0x86DD => Some("IPv6"),
            0x88A8 => Some("802.1ad"),
            0x9100 => Some("QinQ"),
            _ => None,
        }
    }
}

impl fmt::Display for EtherType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#06x}", self.0)
    }
}

impl fmt::Debug for EtherType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "EtherType({n})"),
            None => write!(f, "EtherType({:#06x})", self.0),
        }
    }
}

impl From<u16> for EtherType {
    fn from(v: u16) -> Self {
        EtherType(v)
    }
}

impl From<EtherType> for u16 {
    fn from(v: EtherType) -> Self {
        v.0
    }
}

// ---------------------------------------------------------------------------------------
// EthernetFrame view and EthernetRepr
// ---------------------------------------------------------------------------------------

/// A zero-copy view of an Ethernet II header and what follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        EthernetFrame { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole Ethernet header.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds the 14-byte header.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        if have < ETHERNET_HEADER_LEN {
            return Err(truncation(Header::Eth, &ETH_LAYOUT, have));
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Destination address.
    pub fn dst(&self) -> EthernetAddress {
        let mut a = [0u8; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::DST..field::DST + 6]);
        EthernetAddress(a)
    }
    /// Source address.
    pub fn src(&self) -> EthernetAddress {
        let mut a = [0u8; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::SRC..field::SRC + 6]);
        EthernetAddress(a)
    }
    /// Ethertype, or the TPID when a VLAN tag follows.
    pub fn ethertype(&self) -> EtherType {
        EtherType(u16_at(self.buffer.as_ref(), field::ETHERTYPE))
    }
    /// Everything after the 14-byte header.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[ETHERNET_HEADER_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    /// Sets the destination address.
    pub fn set_dst(&mut self, v: EthernetAddress) {
        self.buffer.as_mut()[field::DST..field::DST + 6].copy_from_slice(&v.0);
    }
    /// Sets the source address.
    pub fn set_src(&mut self, v: EthernetAddress) {
        self.buffer.as_mut()[field::SRC..field::SRC + 6].copy_from_slice(&v.0);
    }
    /// Sets the ethertype (or TPID).
    pub fn set_ethertype(&mut self, v: EtherType) {
        set_u16(self.buffer.as_mut(), field::ETHERTYPE, v.0);
    }
    /// Everything after the 14-byte header, mutable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[ETHERNET_HEADER_LEN..]
    }
}

/// An owned, decoded Ethernet II header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct EthernetRepr {
    /// Destination address (bytes 0-5).
    pub dst: EthernetAddress,
    /// Source address (bytes 6-11).
    pub src: EthernetAddress,
    /// Bytes 12-13: the ethertype of the payload, or the TPID (0x8100 / 0x88A8) of the
    /// VLAN tag that follows.
    pub ethertype: EtherType,
}

impl EthernetRepr {
    /// Decodes an Ethernet header from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        // A whole header is read from a fixed-size view, without bounds checks.
        if let Some(b) = buf.first_chunk::<ETHERNET_HEADER_LEN>() {
            return Ok(Self::from_view(&EthernetFrame::new_unchecked(b)));
        }
        Ok(Self::from_view(&EthernetFrame::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &EthernetFrame<T>) -> Self {
        EthernetRepr { dst: v.dst(), src: v.src(), ethertype: v.ethertype() }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        ETHERNET_HEADER_LEN
    }

    /// Writes the header into the start of `buf`. Never panics.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Eth, buf, ETHERNET_HEADER_LEN)?;
        let mut v = EthernetFrame::new_unchecked(&mut buf[..ETHERNET_HEADER_LEN]);
        v.set_dst(self.dst);
        v.set_src(self.src);
        v.set_ethertype(self.ethertype);
        Ok(ETHERNET_HEADER_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["ENC-ETH-001", "ENC-ETH-002"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    ///
    /// * `ENC-ETH-001`: the ethertype is IPv4, IPv6 or a VLAN TPID.
    /// * `ENC-ETH-002`: the source address is an individual (unicast) address.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        if !self.ethertype.is_rocev2_allowed() {
            out.push(Violation {
                requirement: "ENC-ETH-001",
                header: Header::Eth,
                field: "ethertype",
                offset: Some(base + field::ETHERTYPE),
                value: self.ethertype.0.into(),
                rule: "ethertype must be IPv4 (0x0800), IPv6 (0x86DD), 0x8100 or 0x88A8",
            });
        }
        if self.src.is_multicast() {
            out.push(Violation {
                requirement: "ENC-ETH-002",
                header: Header::Eth,
                field: "src",
                offset: Some(base + field::SRC),
                value: self.src.to_u64(),
                rule: "the source address must be an individual (unicast) address",
            });
        }
    }
}

// ---------------------------------------------------------------------------------------
// VlanTag view and VlanRepr
// ---------------------------------------------------------------------------------------

/// A zero-copy view of an 802.1Q tag: the 4 bytes after the TPID (TCI + inner ethertype).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VlanTag<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> VlanTag<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        VlanTag { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole tag.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds the 4 bytes of the tag.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        if have < VLAN_TAG_LEN {
            return Err(truncation(Header::Vlan, &VLAN_LAYOUT, have));
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The whole tag control information (PCP, DEI, VID).
    pub fn tci(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::TCI)
    }
    /// Priority code point, 3 bits.
    pub fn pcp(&self) -> u8 {
        self.buffer.as_ref()[field::TCI] >> 5
    }
    /// Drop eligible indicator.
    pub fn dei(&self) -> bool {
        self.buffer.as_ref()[field::TCI] & 0x10 != 0
    }
    /// VLAN identifier, 12 bits.
    pub fn vid(&self) -> u16 {
        self.tci() & 0x0FFF
    }
    /// Ethertype of what follows the tag (or the TPID of a further tag).
    pub fn ethertype(&self) -> EtherType {
        EtherType(u16_at(self.buffer.as_ref(), field::INNER_ETHERTYPE))
    }
    /// Everything after the 4-byte tag.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[VLAN_TAG_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> VlanTag<T> {
    /// Sets the TCI from its parts; `pcp` is masked to 3 bits and `vid` to 12.
    pub fn set_tci(&mut self, pcp: u8, dei: bool, vid: u16) {
        let tci = (u16::from(pcp & 0x7) << 13) | (u16::from(dei) << 12) | (vid & 0x0FFF);
        set_u16(self.buffer.as_mut(), field::TCI, tci);
    }
    /// Sets the inner ethertype.
    pub fn set_ethertype(&mut self, v: EtherType) {
        set_u16(self.buffer.as_mut(), field::INNER_ETHERTYPE, v.0);
    }
    /// Everything after the 4-byte tag, mutable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[VLAN_TAG_LEN..]
    }
}

/// An owned, decoded 802.1Q tag. The TPID is not part of it: it is the `ethertype` of the
/// layer before (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct VlanRepr {
    /// Priority code point, 3 bits.
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits3))]
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
    /// VLAN identifier, 12 bits.
    #[cfg_attr(feature = "arbitrary", arbitrary(with = arb_vid))]
    pub vid: u16,
    /// Ethertype of what follows the tag.
    pub ethertype: EtherType,
}

#[cfg(feature = "arbitrary")]
fn arb_vid(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<u16> {
    Ok(<u16 as arbitrary::Arbitrary<'_>>::arbitrary(u)? & 0x0FFF)
}

/// The VLAN identifier that IEEE 802.1Q reserves and that must not appear in a tag.
pub const VLAN_VID_RESERVED: u16 = 0x0FFF;

impl VlanRepr {
    /// Decodes a tag from the start of `buf` (the byte after the TPID).
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&VlanTag::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &VlanTag<T>) -> Self {
        VlanRepr { pcp: v.pcp(), dei: v.dei(), vid: v.vid(), ethertype: v.ethertype() }
    }

    /// Bytes on the wire (after the TPID).
    pub const fn buffer_len(&self) -> usize {
        VLAN_TAG_LEN
    }

    /// Writes the tag into the start of `buf`. Never panics: a short buffer or a `pcp` or
    /// `vid` too wide for its bits is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Vlan, buf, VLAN_TAG_LEN)?;
        check_range(Header::Vlan, "pcp", self.pcp.into(), 0x7)?;
        check_range(Header::Vlan, "vid", self.vid.into(), 0x0FFF)?;
        let mut v = VlanTag::new_unchecked(&mut buf[..VLAN_TAG_LEN]);
        v.set_tci(self.pcp, self.dei, self.vid);
        v.set_ethertype(self.ethertype);
        Ok(VLAN_TAG_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["ENC-ETH-001", "ENC-VLAN-001"];

    /// Semantic checks of this tag on its own (`base` is the offset of its TCI in the frame).
    ///
    /// * `ENC-ETH-001`: the inner ethertype is IPv4, IPv6 or a VLAN TPID.
    /// * `ENC-VLAN-001`: the VID is not the reserved value 0xFFF.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        if !self.ethertype.is_rocev2_allowed() {
            out.push(Violation {
                requirement: "ENC-ETH-001",
                header: Header::Vlan,
                field: "ethertype",
                offset: Some(base + field::INNER_ETHERTYPE),
                value: self.ethertype.0.into(),
                rule: "ethertype must be IPv4 (0x0800), IPv6 (0x86DD), 0x8100 or 0x88A8",
            });
        }
        if self.vid == VLAN_VID_RESERVED {
            out.push(Violation {
                requirement: "ENC-VLAN-001",
                header: Header::Vlan,
                field: "vid",
                offset: Some(base + field::TCI),
                value: self.vid.into(),
                rule: "VID 0xFFF is reserved and must not be sent",
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    // The Ethernet header of the shared vector `scapy-send-only-v4`.
    const ETH: [u8; 14] = [0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00];
    // PCP 5, DEI 1, VID 0x123, inner ethertype IPv6.
    const TAG: [u8; 4] = [0xB1, 0x23, 0x86, 0xDD];

    fn eth() -> EthernetRepr {
        EthernetRepr {
            dst: EthernetAddress([0x02, 0, 0, 0, 0, 0x02]),
            src: EthernetAddress([0x02, 0, 0, 0, 0, 0x01]),
            ethertype: EtherType::IPV4,
        }
    }

    fn tag() -> VlanRepr {
        VlanRepr { pcp: 5, dei: true, vid: 0x123, ethertype: EtherType::IPV6 }
    }

    #[test]
    fn address_text() {
        let a = EthernetAddress([0xAA, 0xBB, 0x0C, 0xDD, 0xEE, 0xFF]);
        assert_eq!(a.to_string(), "aa:bb:0c:dd:ee:ff");
        assert_eq!("aa:bb:0c:dd:ee:ff".parse(), Ok(a));
        assert_eq!("AA:BB:0C:DD:EE:FF".parse(), Ok(a));
        for bad in
            ["", "aa:bb:cc:dd:ee", "aa:bb:cc:dd:ee:ff:00", "a:bb:cc:dd:ee:ff", "+a:bb:cc:dd:ee:ff"]
        {
            assert_eq!(bad.parse::<EthernetAddress>(), Err(ParseEthernetAddressError), "{bad}");
        }
        assert!(EthernetAddress::BROADCAST.is_broadcast());
        assert!(EthernetAddress::BROADCAST.is_multicast());
        assert!(a.is_unicast());
        assert_eq!(a.to_u64(), 0xAABB_0CDD_EEFF);
        assert_eq!(alloc::format!("{:?}", EtherType::VLAN), "EtherType(802.1Q)");
        assert_eq!(EtherType(0x1234).to_string(), "0x1234");
    }

    #[test]
    fn deconstruct() {
        let v = EthernetFrame::new_checked(&ETH[..]).unwrap();
        assert_eq!(v.dst(), eth().dst);
        assert_eq!(v.src(), eth().src);
        assert_eq!(v.ethertype(), EtherType::IPV4);
        assert!(v.payload().is_empty());

        let t = VlanTag::new_checked(&TAG[..]).unwrap();
        assert_eq!((t.pcp(), t.dei(), t.vid()), (5, true, 0x123));
        assert_eq!(t.ethertype(), EtherType::IPV6);
    }

    #[test]
    fn construct() {
        let mut buf = [0u8; 14];
        let mut v = EthernetFrame::new_unchecked(&mut buf[..]);
        v.set_dst(eth().dst);
        v.set_src(eth().src);
        v.set_ethertype(EtherType::IPV4);
        assert_eq!(buf, ETH);

        let mut buf = [0u8; 4];
        let mut t = VlanTag::new_unchecked(&mut buf[..]);
        t.set_tci(5, true, 0x123);
        t.set_ethertype(EtherType::IPV6);
        assert_eq!(buf, TAG);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(EthernetRepr::parse(&ETH).unwrap(), eth());
        let mut buf = [0u8; 14];
        assert_eq!(eth().emit(&mut buf), Ok(14));
        assert_eq!(buf, ETH);

        assert_eq!(VlanRepr::parse(&TAG).unwrap(), tag());
        let mut buf = [0u8; 4];
        assert_eq!(tag().emit(&mut buf), Ok(4));
        assert_eq!(buf, TAG);
    }

    #[test]
    fn qinq_stack_is_a_chain_of_ethertypes() {
        // Ethernet(0x88A8) / S-tag(VID 10, next 0x8100) / C-tag(VID 20, next IPv4).
        let outer = EthernetRepr { ethertype: EtherType::QINQ, ..eth() };
        let s = VlanRepr { pcp: 0, dei: false, vid: 10, ethertype: EtherType::VLAN };
        let c = VlanRepr { pcp: 3, dei: false, vid: 20, ethertype: EtherType::IPV4 };
        let mut buf = [0u8; 22];
        let mut at = outer.emit(&mut buf).unwrap();
        at += s.emit(&mut buf[at..]).unwrap();
        at += c.emit(&mut buf[at..]).unwrap();
        assert_eq!(at, 22);
        assert_eq!(&buf[12..], &[0x88, 0xA8, 0x00, 0x0A, 0x81, 0x00, 0x60, 0x14, 0x08, 0x00]);
        let e = EthernetFrame::new_checked(&buf[..]).unwrap();
        let t1 = VlanTag::new_checked(e.payload()).unwrap();
        let t2 = VlanTag::new_checked(t1.payload()).unwrap();
        assert_eq!(VlanRepr::from_view(&t1), s);
        assert_eq!(VlanRepr::from_view(&t2), c);
    }

    #[test]
    fn truncation_names_field_and_offset() {
        let e = EthernetRepr::parse(&ETH[..13]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Eth, "ethertype", 12, 2, 1));
        assert_eq!(e.to_string(), "Ethernet.ethertype truncated at byte 12: need 2, have 1");
        let e = EthernetRepr::parse(&ETH[..8]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Eth, "src", 6, 6, 2));
        let e = EthernetRepr::parse(&[]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Eth, "dst", 0, 6, 0));

        let e = VlanRepr::parse(&TAG[..3]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Vlan, "ethertype", 2, 2, 1));
        assert_eq!(e.at(14).offset, 16);
        let e = VlanRepr::parse(&TAG[..1]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Vlan, "tci", 0, 2, 1));
    }

    #[test]
    fn emit_never_panics() {
        assert!(matches!(eth().emit(&mut [0u8; 13]), Err(EmitError::BufferTooShort { .. })));
        assert!(matches!(tag().emit(&mut [0u8; 3]), Err(EmitError::BufferTooShort { .. })));
        let bad = VlanRepr { pcp: 8, ..tag() };
        assert!(matches!(
            bad.emit(&mut [0u8; 4]),
            Err(EmitError::FieldOutOfRange { field: "pcp", .. })
        ));
        let bad = VlanRepr { vid: 0x1000, ..tag() };
        assert!(matches!(
            bad.emit(&mut [0u8; 4]),
            Err(EmitError::FieldOutOfRange { field: "vid", .. })
        ));
    }

    #[test]
    fn validate_ethertype_source_and_vid() {
        let mut out = Vec::new();
        eth().validate(0, &mut out);
        tag().validate(14, &mut out);
        EthernetRepr { ethertype: EtherType::QINQ, ..eth() }.validate(0, &mut out);
        assert!(out.is_empty());

        let bad =
            EthernetRepr { ethertype: EtherType::ARP, src: EthernetAddress::BROADCAST, ..eth() };
        bad.validate(0, &mut out);
        VlanRepr { vid: 0xFFF, ethertype: EtherType(0x88B5), ..tag() }.validate(14, &mut out);
        let ids: Vec<_> = out.iter().map(|v| (v.requirement, v.offset)).collect();
        assert_eq!(
            ids,
            [
                ("ENC-ETH-001", Some(12)),
                ("ENC-ETH-002", Some(6)),
                ("ENC-ETH-001", Some(16)),
                ("ENC-VLAN-001", Some(14)),
            ]
        );
        assert_eq!(out[0].value, 0x0806);
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0xE7);
        let mut raw = [0u8; 64];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let mut u = Unstructured::new(&raw);
            let e = EthernetRepr::arbitrary(&mut u).unwrap();
            let t = VlanRepr::arbitrary(&mut u).unwrap();
            let mut buf = [0u8; 18];
            let n = e.emit(&mut buf).unwrap();
            t.emit(&mut buf[n..]).unwrap();
            assert_eq!(EthernetRepr::parse(&buf).unwrap(), e);
            assert_eq!(VlanRepr::parse(&buf[n..]).unwrap(), t);
        }
    }

    #[cfg(feature = "serde")]
    #[test]
    fn address_deserializes_from_text() {
        use serde::Deserialize;
        use serde::de::value::{Error, StrDeserializer};
        let d = StrDeserializer::<Error>::new("02:00:00:00:00:01");
        assert_eq!(EthernetAddress::deserialize(d), Ok(eth().src));
        let d = StrDeserializer::<Error>::new("02:00:00:00:00");
        assert!(EthernetAddress::deserialize(d).is_err());
    }
}
