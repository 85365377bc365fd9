//! Link layers other than Ethernet that captures carry RoCEv2 in: the Linux "cooked"
//! headers SLL and SLL2 (what `tcpdump -i any` writes), and raw IP (requirement
//! `DEC-LINK-001`).
//!
//! ```text
//! SLL, 16 bytes (LINKTYPE_LINUX_SLL, 113)      SLL2, 20 bytes (LINKTYPE_LINUX_SLL2, 276)
//!  byte 0-1   packet_type                       byte 0-1   protocol
//!  byte 2-3   arphrd_type                       byte 2-3   resv
//!  byte 4-5   addr_len                          byte 4-7   if_index
//!  byte 6-13  addr (first addr_len bytes used)  byte 8-9   arphrd_type
//!  byte 14-15 protocol                          byte 10    packet_type
//!                                               byte 11    addr_len
//!                                               byte 12-19 addr
//! ```
//!
//! `protocol` is an ethertype: 0x0800 IPv4, 0x86DD IPv6, or a VLAN TPID when the capture kept
//! the tag. Both headers are in network byte order.
//!
//! The views' accessors never panic once `new_checked` (or `check_len`) has succeeded;
//! `new_unchecked` followed by an accessor on a short buffer panics.

use super::check_layout;
use core::fmt;

use crate::error::{DecodeError, EmitError, Header, check_buffer};
use crate::field::{set_u16, set_u32, u16_at, u32_at};
use crate::wire::EtherType;

/// A capture's link type (the pcap header's `network` field without its upper flag bits,
/// or a pcapng interface's `LinkType`). Lossless: any value is kept.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct LinkType(pub u32);

impl LinkType {
    /// LINKTYPE_ETHERNET: Ethernet II, without FCS.
    pub const ETHERNET: LinkType = LinkType(1);
    /// DLT_RAW as some BSDs number it: raw IPv4 or IPv6.
    pub const RAW_BSD: LinkType = LinkType(12);
    /// DLT_RAW as OpenBSD numbers it: raw IPv4 or IPv6.
    pub const RAW_OPENBSD: LinkType = LinkType(14);
    /// LINKTYPE_RAW: raw IPv4 or IPv6, the version nibble tells which.
    pub const RAW: LinkType = LinkType(101);
    /// LINKTYPE_LINUX_SLL: the Linux cooked header, version 1.
    pub const LINUX_SLL: LinkType = LinkType(113);
    /// LINKTYPE_IPV4: raw IPv4.
    pub const IPV4: LinkType = LinkType(228);
    /// LINKTYPE_IPV6: raw IPv6.
    pub const IPV6: LinkType = LinkType(229);
    /// LINKTYPE_LINUX_SLL2: the Linux cooked header, version 2.
    pub const LINUX_SLL2: LinkType = LinkType(276);

    /// Whether the decoder reads frames of this link type.
    pub const fn is_decoded(self) -> bool {
        matches!(self.0, 1 | 12 | 14 | 101 | 113 | 228 | 229 | 276)
    }

    /// The name of a link type the decoder reads.
    pub const fn name(self) -> Option<&'static str> {
        match self.0 {
            1 => Some("ETHERNET"),
            12 | 14 | 101 => Some("RAW"),
            113 => Some("LINUX_SLL"),
            228 => Some("IPV4"),
            229 => Some("IPV6"),
            276 => Some("LINUX_SLL2"),
            _ => None,
        }
    }
}

impl fmt::Debug for LinkType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "LinkType({n})"),
            None => write!(f, "LinkType({})", self.0),
        }
    }
}

impl From<u32> for LinkType {
    fn from(v: u32) -> Self {
        LinkType(v)
    }
}

/// Length of the SLL header.
pub const SLL_LEN: usize = 16;
/// Length of the SLL2 header.
pub const SLL2_LEN: usize = 20;

const LAYOUT_SLL: &[(&str, usize, usize)] = &[
    ("packet_type", 0, 2),
    ("arphrd_type", 2, 2),
    ("addr_len", 4, 2),
    ("addr", 6, 8),
    ("protocol", 14, 2),
];

const LAYOUT_SLL2: &[(&str, usize, usize)] = &[
    ("protocol", 0, 2),
    ("resv", 2, 2),
    ("if_index", 4, 4),
    ("arphrd_type", 8, 2),
    ("packet_type", 10, 1),
    ("addr_len", 11, 1),
    ("addr", 12, 8),
];

/// A zero-copy view of an SLL header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sll<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Sll<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Sll { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole SLL header.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole SLL header.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        check_layout(Header::Sll, LAYOUT_SLL, self.buffer.as_ref().len())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Packet type: 0 to us, 1 broadcast, 2 multicast, 3 to another host, 4 sent by us.
    pub fn packet_type(&self) -> u16 {
        u16_at(self.buffer.as_ref(), 0)
    }
    /// ARPHRD_ type of the interface (1: Ethernet).
    pub fn arphrd_type(&self) -> u16 {
        u16_at(self.buffer.as_ref(), 2)
    }
    /// Number of address bytes used.
    pub fn addr_len(&self) -> u16 {
        u16_at(self.buffer.as_ref(), 4)
    }
    /// The 8 address bytes (the first `addr_len` used).
    pub fn addr(&self) -> [u8; 8] {
        let mut a = [0u8; 8];
        a.copy_from_slice(&self.buffer.as_ref()[6..14]);
        a
    }
    /// The ethertype of what follows.
    pub fn protocol(&self) -> EtherType {
        EtherType(u16_at(self.buffer.as_ref(), 14))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Sll<T> {
    /// Sets every field.
    pub fn set_all(&mut self, r: &SllRepr) {
        let b = self.buffer.as_mut();
        set_u16(b, 0, r.packet_type);
        set_u16(b, 2, r.arphrd_type);
        set_u16(b, 4, r.addr_len);
        b[6..14].copy_from_slice(&r.addr);
        set_u16(b, 14, r.protocol.0);
    }
}

/// An owned, decoded SLL header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SllRepr {
    /// Packet type (bytes 0-1).
    pub packet_type: u16,
    /// ARPHRD_ type (bytes 2-3).
    pub arphrd_type: u16,
    /// Address length (bytes 4-5).
    pub addr_len: u16,
    /// Address (bytes 6-13).
    pub addr: [u8; 8],
    /// Ethertype of what follows (bytes 14-15).
    pub protocol: EtherType,
}

impl SllRepr {
    /// Decodes an SLL header from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        let v = Sll::new_checked(buf)?;
        Ok(SllRepr {
            packet_type: v.packet_type(),
            arphrd_type: v.arphrd_type(),
            addr_len: v.addr_len(),
            addr: v.addr(),
            protocol: v.protocol(),
        })
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        SLL_LEN
    }

    /// Writes the header into the start of `buf`. Never panics.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Sll, buf, SLL_LEN)?;
        Sll::new_unchecked(&mut buf[..SLL_LEN]).set_all(self);
        Ok(SLL_LEN)
    }
}

/// A zero-copy view of an SLL2 header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sll2<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Sll2<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Sll2 { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole SLL2 header.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole SLL2 header.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        check_layout(Header::Sll2, LAYOUT_SLL2, self.buffer.as_ref().len())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The ethertype of what follows.
    pub fn protocol(&self) -> EtherType {
        EtherType(u16_at(self.buffer.as_ref(), 0))
    }
    /// Reserved bytes 2-3.
    pub fn resv(&self) -> u16 {
        u16_at(self.buffer.as_ref(), 2)
    }
    /// Interface index.
    pub fn if_index(&self) -> u32 {
        u32_at(self.buffer.as_ref(), 4)
    }
    /// ARPHRD_ type of the interface (1: Ethernet).
    pub fn arphrd_type(&self) -> u16 {
        u16_at(self.buffer.as_ref(), 8)
    }
    /// Packet type, as in SLL.
    pub fn packet_type(&self) -> u8 {
        self.buffer.as_ref()[10]
    }
    /// Number of address bytes used.
    pub fn addr_len(&self) -> u8 {
        self.buffer.as_ref()[11]
    }
    /// The 8 address bytes (the first `addr_len` used).
    pub fn addr(&self) -> [u8; 8] {
        let mut a = [0u8; 8];
        a.copy_from_slice(&self.buffer.as_ref()[12..20]);
        a
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Sll2<T> {
    /// Sets every field.
    pub fn set_all(&mut self, r: &Sll2Repr) {
        let b = self.buffer.as_mut();
        set_u16(b, 0, r.protocol.0);
        set_u16(b, 2, r.resv);
        set_u32(b, 4, r.if_index);
        set_u16(b, 8, r.arphrd_type);
        b[10] = r.packet_type;
        b[11] = r.addr_len;
        b[12..20].copy_from_slice(&r.addr);
    }
}

/// An owned, decoded SLL2 header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sll2Repr {
    /// Ethertype of what follows (bytes 0-1).
    pub protocol: EtherType,
    /// Reserved (bytes 2-3).
    pub resv: u16,
    /// Interface index (bytes 4-7).
    pub if_index: u32,
    /// ARPHRD_ type (bytes 8-9).
    pub arphrd_type: u16,
    /// Packet type (byte 10).
    pub packet_type: u8,
    /// Address length (byte 11).
    pub addr_len: u8,
    /// Address (bytes 12-19).
    pub addr: [u8; 8],
}

impl Sll2Repr {
    /// Decodes an SLL2 header from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        let v = Sll2::new_checked(buf)?;
        Ok(Sll2Repr {
            protocol: v.protocol(),
            resv: v.resv(),
            if_index: v.if_index(),
            arphrd_type: v.arphrd_type(),
            packet_type: v.packet_type(),
            addr_len: v.addr_len(),
            addr: v.addr(),
        })
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        SLL2_LEN
    }

    /// Writes the header into the start of `buf`. Never panics.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Sll2, buf, SLL2_LEN)?;
        Sll2::new_unchecked(&mut buf[..SLL2_LEN]).set_all(self);
        Ok(SLL2_LEN)
    }
}

/// The link-layer header of a frame that is not Ethernet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CookedHeader {
    /// A Linux cooked header, version 1.
    Sll(SllRepr),
    /// A Linux cooked header, version 2.
    Sll2(Sll2Repr),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sll_round_trip() {
        let b = [0, 4, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00];
        let r = SllRepr::parse(&b).unwrap();
        assert_eq!((r.packet_type, r.arphrd_type, r.addr_len), (4, 1, 6));
        assert_eq!(r.protocol, EtherType::IPV4);
        let mut out = [0xFFu8; 16];
        assert_eq!(r.emit(&mut out), Ok(16));
        assert_eq!(out, b);
        assert_eq!(
            SllRepr::parse(&b[..15]).unwrap_err(),
            DecodeError::truncated(Header::Sll, "protocol", 14, 2, 1)
        );
        assert!(r.emit(&mut [0u8; 15]).is_err());
    }

    #[test]
    fn sll2_round_trip() {
        let b = [0x86, 0xDD, 0, 0, 0, 0, 0, 3, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0];
        let r = Sll2Repr::parse(&b).unwrap();
        assert_eq!((r.protocol, r.if_index, r.arphrd_type), (EtherType::IPV6, 3, 1));
        assert_eq!((r.packet_type, r.addr_len), (0, 6));
        let mut out = [0xFFu8; 20];
        assert_eq!(r.emit(&mut out), Ok(20));
        assert_eq!(out, b);
        assert_eq!(SllRepr::parse(&b[..3]).unwrap_err().field, "arphrd_type");
        assert_eq!(Sll2Repr::parse(&b[..3]).unwrap_err().field, "resv");
    }

    #[test]
    fn link_types() {
        for lt in [1, 12, 14, 101, 113, 228, 229, 276] {
            assert!(LinkType(lt).is_decoded() && LinkType(lt).name().is_some(), "{lt}");
        }
        assert!(!LinkType(147).is_decoded());
        assert_eq!(alloc::format!("{:?}", LinkType(147)), "LinkType(147)");
    }
}
