//! Whole frames: Ethernet / [802.1Q] / IPv4 or IPv6 / UDP / BTH / extension headers /
//! payload / pad / ICRC.
//!
//! * [`decode`] reads a frame as far as it can and never fails as a whole: it returns a
//!   [`DecodedFrame`] holding every header it could read, the ICRC verdict, and the
//!   [`DecodeError`] where it stopped, if it stopped early. A frame that is simply not
//!   RoCEv2 (ARP, another UDP port, an IPv4 fragment) decodes as far as its outer headers,
//!   with no error and an [`IcrcStatus::Absent`] verdict.
//! * [`FrameRepr`] is an owned, complete RoCEv2 frame. [`FrameRepr::emit`] writes exactly
//!   the fields it holds (lossless: lengths, checksums and the ICRC trailer are written as
//!   stored), and [`FrameRepr::finalize`] first makes the lengths, the pad, the IPv4 header
//!   checksum and the ICRC consistent, which is what a sender wants.
//!
//! The extension-header chain is chosen by the opcode (see [`crate::opcode`]).

use alloc::vec::Vec;

use crate::Ev;
use crate::error::{DecodeError, DecodeErrorKind, EmitError, Header, Violation, check_buffer};
use crate::icrc::{self, ICRC_LEN, IcrcCheck};
use crate::opcode::{ExtHeader, MAX_EXT_HEADERS, Opcode, PayloadRule};
use crate::wire::*;

/// Length of the Ethernet II header.
pub const ETH_HEADER_LEN: usize = 14;
/// Length of an 802.1Q tag (TCI + inner EtherType) after the TPID.
pub const VLAN_TAG_LEN: usize = 4;
/// Length of the fixed IPv6 header.
pub const IPV6_HEADER_LEN: usize = 40;
/// Length of the UDP header.
pub const UDP_HEADER_LEN: usize = 8;

mod build;
mod decode;
mod validate;

pub use build::FrameRepr;
pub use decode::{DECODE_RULES, decode, decode_captured};
pub use validate::FRAME_RULES;

/// The IP layer of a frame.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum IpRepr {
    /// IPv4.
    V4(Ipv4Repr),
    /// IPv6.
    V6(Ipv6Repr),
}

impl IpRepr {
    /// Bytes of the IP header.
    pub fn header_len(&self) -> usize {
        match self {
            IpRepr::V4(r) => r.header_len(),
            IpRepr::V6(_) => IPV6_HEADER_LEN,
        }
    }
}

/// The extension headers of a packet, each present or not. Which ones a packet has is
/// decided by its opcode (and, for TSETH, by BTH `ts`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[allow(missing_docs)]
pub struct Extensions {
    pub meth: Option<MethRepr>,
    pub tseth: Option<TsethRepr>,
    pub reth: Option<RethRepr>,
    pub immdt: Option<ImmDtRepr>,
    pub aeth: Option<AethRepr>,
    pub seth: Option<SethRepr>,
    pub cc_state: Option<CcStateRepr>,
    pub neth: Option<NethRepr>,
    pub peth: Option<PethRepr>,
    pub erth: Option<ErthRepr>,
    pub eeth: Option<EethRepr>,
    pub deth: Option<DethRepr>,
    pub rdeth: Option<RdethRepr>,
    pub xrceth: Option<XrcethRepr>,
    pub ieth: Option<IethRepr>,
    pub atomiceth: Option<AtomicEthRepr>,
    pub atomicacketh: Option<AtomicAckEthRepr>,
    pub feth: Option<FethRepr>,
    pub cnp: Option<CnpRepr>,
}

impl Extensions {
    /// Whether `h` is present.
    pub fn has(&self, h: ExtHeader) -> bool {
        match h {
            ExtHeader::Meth => self.meth.is_some(),
            ExtHeader::Tseth => self.tseth.is_some(),
            ExtHeader::Reth => self.reth.is_some(),
            ExtHeader::ImmDt => self.immdt.is_some(),
            ExtHeader::Aeth => self.aeth.is_some(),
            ExtHeader::Seth => self.seth.is_some(),
            ExtHeader::CcState => self.cc_state.is_some(),
            ExtHeader::Neth => self.neth.is_some(),
            ExtHeader::Peth => self.peth.is_some(),
            ExtHeader::Erth => self.erth.is_some(),
            ExtHeader::Eeth => self.eeth.is_some(),
            ExtHeader::Deth => self.deth.is_some(),
            ExtHeader::Rdeth => self.rdeth.is_some(),
            ExtHeader::Xrceth => self.xrceth.is_some(),
            ExtHeader::Ieth => self.ieth.is_some(),
            ExtHeader::AtomicEth => self.atomiceth.is_some(),
            ExtHeader::AtomicAckEth => self.atomicacketh.is_some(),
            ExtHeader::Feth => self.feth.is_some(),
            ExtHeader::Cnp => self.cnp.is_some(),
        }
    }

    /// Number of headers present.
    pub fn count(&self) -> usize {
        ExtHeader::ALL.iter().filter(|h| self.has(**h)).count()
    }

    /// Total bytes of the headers present.
    pub fn buffer_len(&self) -> usize {
        ExtHeader::ALL.iter().filter(|h| self.has(**h)).map(|h| h.wire_len()).sum()
    }

    /// Emits header `h` if present; returns the bytes written.
    fn emit_one(&self, h: ExtHeader, buf: &mut [u8]) -> Result<usize, EmitError> {
        match h {
            ExtHeader::Meth => self.meth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Tseth => self.tseth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Reth => self.reth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::ImmDt => self.immdt.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Aeth => self.aeth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Seth => self.seth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::CcState => self.cc_state.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Neth => self.neth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Peth => self.peth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Erth => self.erth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Eeth => self.eeth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Deth => self.deth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Rdeth => self.rdeth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Xrceth => self.xrceth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Ieth => self.ieth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::AtomicEth => self.atomiceth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::AtomicAckEth => self.atomicacketh.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Feth => self.feth.as_ref().map_or(Ok(0), |r| r.emit(buf)),
            ExtHeader::Cnp => self.cnp.as_ref().map_or(Ok(0), |r| r.emit(buf)),
        }
    }

    /// The rules each header present checks (its `RULES`), appended to `out`.
    fn rules(&self, out: &mut Vec<&'static str>) {
        for h in ExtHeader::ALL.iter().copied().filter(|h| self.has(*h)) {
            out.extend_from_slice(match h {
                ExtHeader::Meth => MethRepr::RULES,
                ExtHeader::Tseth => TsethRepr::RULES,
                ExtHeader::Reth => RethRepr::RULES,
                ExtHeader::ImmDt => ImmDtRepr::RULES,
                ExtHeader::Aeth => AethRepr::RULES,
                ExtHeader::Seth => SethRepr::RULES,
                ExtHeader::CcState => CcStateRepr::RULES,
                ExtHeader::Neth => NethRepr::RULES,
                ExtHeader::Peth => PethRepr::RULES,
                ExtHeader::Erth => ErthRepr::RULES,
                ExtHeader::Eeth => EethRepr::RULES,
                ExtHeader::Deth => DethRepr::RULES,
                ExtHeader::Rdeth => RdethRepr::RULES,
                ExtHeader::Xrceth => XrcethRepr::RULES,
                ExtHeader::Ieth => IethRepr::RULES,
                ExtHeader::AtomicEth => AtomicEthRepr::RULES,
                ExtHeader::AtomicAckEth => AtomicAckEthRepr::RULES,
                ExtHeader::Feth => FethRepr::RULES,
                ExtHeader::Cnp => CnpRepr::RULES,
            });
        }
    }

    /// Validates every header present; `offsets` gives each one's position in the frame.
    fn validate(&self, offsets: &[(ExtHeader, usize)], out: &mut Vec<Violation>) {
        for &(h, at) in offsets {
            match h {
                ExtHeader::Meth => self.meth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Tseth => self.tseth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Reth => self.reth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::ImmDt => self.immdt.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Aeth => self.aeth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Seth => self.seth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::CcState => self.cc_state.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Neth => self.neth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Peth => self.peth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Erth => self.erth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Eeth => self.eeth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Deth => self.deth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Rdeth => self.rdeth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Xrceth => self.xrceth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Ieth => self.ieth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::AtomicEth => self.atomiceth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::AtomicAckEth => self.atomicacketh.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Feth => self.feth.as_ref().map(|r| r.validate(at, out)),
                ExtHeader::Cnp => self.cnp.as_ref().map(|r| r.validate(at, out)),
            };
        }
    }
}

/// The extension headers that follow a BTH, in order, given its opcode and `ts` bit.
/// Unknown opcodes have none (everything after the BTH is payload).
pub fn header_stack(bth: &BthRepr) -> impl Iterator<Item = ExtHeader> + use<> {
    let headers = bth.opcode.info().map_or(&[][..], |i| i.headers);
    let ts = bth.ts;
    headers.iter().copied().filter(move |h| *h != ExtHeader::Tseth || ts)
}

/// The ICRC verdict of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum IcrcStatus {
    /// The trailer matches.
    Ok,
    /// The trailer does not match.
    Bad {
        /// Trailer as found.
        found: u32,
        /// Value computed over the packet.
        computed: u32,
    },
    /// The frame is not RoCEv2, or too short to hold an ICRC.
    Absent,
    /// The capture cut the packet before its end, so the ICRC cannot be computed
    /// (`DEC-CUT-001`).
    NotCheckable,
}

impl IcrcStatus {
    /// `"ok"`, `"bad"`, `"absent"` or `"not_checkable"`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            IcrcStatus::Ok => "ok",
            IcrcStatus::Bad { .. } => "bad",
            IcrcStatus::Absent => "absent",
            IcrcStatus::NotCheckable => "not_checkable",
        }
    }
}

/// The UDP checksum verdict of a frame (`ENC-UDP-003`, `ENC-UDP-006`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum UdpChecksum {
    /// The checksum field is 0: the sender computed none, which a receiver accepts over
    /// IPv4 and IPv6 alike (`ENC-UDP-003`, `ENC-UDP-004`).
    Zero,
    /// The checksum is correct.
    Ok,
    /// The checksum is non-zero and wrong.
    Bad {
        /// The checksum as found.
        found: u16,
        /// The checksum computed over the pseudo-header and the datagram.
        computed: u16,
    },
    /// The frame holds no whole UDP datagram.
    Absent,
}

/// The extension headers found in a frame, each with its offset, in wire order. Holds at
/// most [`MAX_EXT_HEADERS`] entries, the longest stack of the opcode table, without
/// allocating; it reads as a slice.
#[derive(Clone, Copy)]
pub struct ExtOffsets {
    items: [(ExtHeader, usize); MAX_EXT_HEADERS],
    len: usize,
}

impl ExtOffsets {
    /// Adds a header; a stack longer than the table's longest is not possible, and extra
    /// entries are dropped.
    fn push(&mut self, item: (ExtHeader, usize)) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = item;
            self.len += 1;
        }
    }
}

impl Default for ExtOffsets {
    fn default() -> Self {
        ExtOffsets { items: [(ExtHeader::Meth, 0); MAX_EXT_HEADERS], len: 0 }
    }
}

impl core::ops::Deref for ExtOffsets {
    type Target = [(ExtHeader, usize)];
    fn deref(&self) -> &Self::Target {
        &self.items[..self.len]
    }
}

impl PartialEq for ExtOffsets {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for ExtOffsets {}

impl core::fmt::Debug for ExtOffsets {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq<Vec<(ExtHeader, usize)>> for ExtOffsets {
    fn eq(&self, other: &Vec<(ExtHeader, usize)>) -> bool {
        **self == other[..]
    }
}

impl<'a> IntoIterator for &'a ExtOffsets {
    type Item = &'a (ExtHeader, usize);
    type IntoIter = core::slice::Iter<'a, (ExtHeader, usize)>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Byte offsets of the layers found in a frame.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Layout {
    /// Offset of the first VLAN tag's TCI, or of the IP header when there is no tag: the
    /// length of the link-layer header (Ethernet, SLL, SLL2; 0 for raw IP).
    pub link_len: usize,
    /// Offset of the IP header.
    pub ip: Option<usize>,
    /// Offset of the UDP header.
    pub udp: Option<usize>,
    /// Offset of the BTH.
    pub bth: Option<usize>,
    /// Each extension header found, with its offset.
    pub ext: ExtOffsets,
    /// Offset of the payload.
    pub payload: Option<usize>,
    /// Offset of the ICRC trailer.
    pub icrc: Option<usize>,
    /// End of the IP packet; bytes after it are Ethernet padding.
    pub ip_end: Option<usize>,
}

/// What a captured frame is, for a reader of captures (`DEC-KIND-001`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum FrameKind {
    /// A RoCEv2 packet that decodes completely (its ICRC may still be bad).
    Roce,
    /// A frame of another protocol (decoded or not).
    Other,
    /// A frame the capture cut shorter than it was on the wire.
    Truncated,
    /// A RoCEv2 packet (UDP to port 4791) that does not decode.
    Malformed,
}

impl FrameKind {
    /// `"roce"`, `"other"`, `"truncated"` or `"malformed"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FrameKind::Roce => "roce",
            FrameKind::Other => "other",
            FrameKind::Truncated => "truncated",
            FrameKind::Malformed => "malformed",
        }
    }
}

/// A frame as far as it could be decoded. Produced by [`decode`] and [`decode_captured`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedFrame<'a> {
    /// The frame as given to the decoder (the captured bytes).
    pub bytes: &'a [u8],
    /// The frame's length on the wire: larger than `bytes.len()` when the capture cut it.
    pub orig_len: usize,
    /// The link layer the frame was decoded from.
    pub link_type: LinkType,
    /// The Linux cooked header, for the SLL and SLL2 link types.
    pub cooked: Option<CookedHeader>,
    /// The Ethernet header.
    pub eth: Option<EthernetRepr>,
    /// The VLAN tags, outermost first (`DEC-VLAN-002`).
    pub vlans: Vec<VlanRepr>,
    /// The IP header.
    pub ip: Option<IpRepr>,
    /// The UDP header.
    pub udp: Option<UdpRepr>,
    /// The BTH.
    pub bth: Option<BthRepr>,
    /// Extension headers.
    pub ext: Extensions,
    /// Payload bytes (after the extension headers, before the pad).
    pub payload: &'a [u8],
    /// Pad bytes (BTH `pad_count` of them).
    pub pad: &'a [u8],
    /// The ICRC trailer as found, if the frame holds one.
    pub icrc_trailer: Option<u32>,
    /// The ICRC verdict.
    pub icrc: IcrcStatus,
    /// Bytes after the IP packet (Ethernet padding of short frames).
    pub eth_padding: &'a [u8],
    /// Where decoding stopped early, if it did. A frame cut by the capture stops where the
    /// captured bytes end, without an error.
    pub error: Option<DecodeError>,
    /// Whether the frame is addressed to RoCEv2: an IP packet, not a fragment, carrying UDP
    /// to port 4791. Known as soon as those bytes are read, even when a later check fails.
    pub to_roce_port: bool,
    /// Where each layer starts.
    pub layout: Layout,
}

impl DecodedFrame<'_> {
    /// Whether the frame is a RoCEv2 packet (it reached the BTH).
    pub fn is_roce(&self) -> bool {
        self.bth.is_some()
    }

    /// Whether the frame decoded completely with a good or absent ICRC.
    pub fn is_clean(&self) -> bool {
        self.error.is_none() && !matches!(self.icrc, IcrcStatus::Bad { .. })
    }

    /// The UDP checksum verdict (`ENC-UDP-003`, `ENC-UDP-006`), computed when asked, not by
    /// [`decode`]: a check of the bytes like [`Self::validate`], which a reader that does not
    /// need it does not pay for (over IPv6 it sums the whole datagram). `Absent` when the
    /// frame holds no whole UDP datagram or the capture cut it.
    pub fn udp_checksum(&self) -> UdpChecksum {
        let (Some(udp), Some(at), Some(end)) = (&self.udp, self.layout.udp, self.layout.ip_end)
        else {
            return UdpChecksum::Absent;
        };
        match self.bytes.get(at..end) {
            Some(datagram) if !self.is_truncated() => {
                udp_checksum(self.ip.as_ref(), udp.checksum, datagram)
            }
            _ => UdpChecksum::Absent,
        }
    }

    /// Whether the capture cut the frame shorter than it was on the wire.
    pub fn is_truncated(&self) -> bool {
        self.orig_len > self.bytes.len()
    }

    /// What the frame is (`DEC-KIND-001`): cut by the capture; a RoCEv2 packet that does
    /// not decode; a RoCEv2 packet; or another protocol.
    pub fn kind(&self) -> FrameKind {
        if self.is_truncated() {
            FrameKind::Truncated
        } else if self.to_roce_port && self.error.is_some() {
            FrameKind::Malformed
        } else if self.bth.is_some() {
            FrameKind::Roce
        } else {
            FrameKind::Other
        }
    }

    /// Whether a reader of captures fails the frame (`DEC-EXIT-001`): a RoCEv2 packet that
    /// does not decode or whose ICRC is bad. With `strict`, also any frame that does not
    /// decode completely: one of another protocol with a decode error, or one the capture
    /// cut (`DEC-EXIT-002`).
    pub fn fails(&self, strict: bool) -> bool {
        match self.kind() {
            FrameKind::Malformed => true,
            FrameKind::Roce => matches!(self.icrc, IcrcStatus::Bad { .. }),
            FrameKind::Truncated => strict,
            FrameKind::Other => strict && self.error.is_some(),
        }
    }

    /// Why a receiver must take no action on this frame, as the ID of the requirement that
    /// says so, or `None` for a whole RoCEv2 packet that it may act on (`RCV-FRAME-001`).
    ///
    /// In this order: the frame does not decode ([`DecodeError::requirement`]); it is not
    /// RoCEv2 (`ENC-ROCE-001`, naming the layer that makes it so: `ENC-IPV4-002` for a
    /// fragment, `ENC-IPV4-001` or `ENC-IPV6-001` for another IP protocol, `ENC-UDP-001` for
    /// another UDP port); its IPv4 header checksum is wrong (`ENC-IPV4-003`); its UDP
    /// checksum is non-zero and wrong (`ENC-UDP-006`); its ICRC does not match
    /// (`ICRC-VERIFY-001`); its opcode is not in the opcode table (`OPC-UNKNOWN-001`).
    /// Whether the NIC implements the opcode, and whether the packet names one of its QPs,
    /// are the receiver's questions, not the frame's.
    pub fn discard_reason(&self) -> Option<&'static str> {
        if let Some(e) = &self.error {
            return Some(e.requirement());
        }
        if self.is_truncated() {
            return Some("DEC-CUT-001");
        }
        if self.vlans.len() > 1 {
            return Some("ENC-VLAN-002");
        }
        let Some(bth) = &self.bth else {
            return Some(match (&self.ip, &self.udp) {
                (Some(IpRepr::V4(v4)), None) if v4.more_frags || v4.frag_offset != 0 => {
                    "ENC-IPV4-002"
                }
                (Some(IpRepr::V4(v4)), None) if v4.protocol != IP_PROTO_UDP => "ENC-IPV4-001",
                (Some(IpRepr::V6(v6)), None) if v6.next_header != IP_PROTO_UDP => "ENC-IPV6-001",
                (Some(_), Some(udp)) if udp.dst_port != ROCEV2_PORT => "ENC-UDP-001",
                _ => "ENC-ROCE-001",
            });
        };
        if let Some(IpRepr::V4(v4)) = &self.ip {
            if v4.correct_checksum().is_ok_and(|c| c != v4.checksum) {
                return Some("ENC-IPV4-003");
            }
        }
        if matches!(self.udp_checksum(), UdpChecksum::Bad { .. }) {
            return Some("ENC-UDP-006");
        }
        if matches!(self.icrc, IcrcStatus::Bad { .. }) {
            return Some("ICRC-VERIFY-001");
        }
        if bth.opcode.info().is_none() {
            return Some("OPC-UNKNOWN-001");
        }
        None
    }

    /// The 32-bit entropy value carried by the frame (`ENC-EV-*`): EV\[31:16\] is the UDP
    /// source port, EV\[15:0\] the low 16 bits of the IPv6 flow label (zero over IPv4).
    pub fn entropy(&self) -> Option<Ev> {
        let udp = self.udp.as_ref()?;
        let low = match self.ip.as_ref()? {
            IpRepr::V6(v6) => v6.flow_label as u16,
            IpRepr::V4(_) => 0,
        };
        Some(Ev::from_halves(udp.src_port, low))
    }

    /// An owned copy, if the frame is a complete RoCEv2 packet on Ethernet.
    pub fn to_repr(&self) -> Option<FrameRepr> {
        if self.error.is_some() || self.is_truncated() {
            return None;
        }
        let mut pad = [0u8; 3];
        pad[..self.pad.len()].copy_from_slice(self.pad);
        Some(FrameRepr {
            eth: self.eth?,
            vlans: self.vlans.clone(),
            ip: self.ip.clone()?,
            udp: self.udp?,
            bth: self.bth?,
            ext: self.ext.clone(),
            payload: self.payload.to_vec(),
            pad,
            icrc: self.icrc_trailer,
            eth_padding: self.eth_padding.to_vec(),
        })
    }
}

/// The verdict on the checksum `found` of the UDP datagram `datagram` (header included)
/// carried by `ip`.
fn udp_checksum(ip: Option<&IpRepr>, found: u16, datagram: &[u8]) -> UdpChecksum {
    let computed = match (found, ip) {
        (0, _) => return UdpChecksum::Zero,
        (_, Some(IpRepr::V4(v4))) => UdpRepr::compute_checksum_v4(v4.src, v4.dst, datagram),
        (_, Some(IpRepr::V6(v6))) => UdpRepr::compute_checksum_v6(v6.src, v6.dst, datagram),
        (_, None) => return UdpChecksum::Absent,
    };
    if computed == found { UdpChecksum::Ok } else { UdpChecksum::Bad { found, computed } }
}
