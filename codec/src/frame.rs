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
    /// The VLAN tags, outermost first (`DEC-VLAN-001`).
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

    /// Checks the decoded headers against the specification. Structural problems are in
    /// `error`; this reports what decoded but breaks a rule.
    pub fn validate(&self) -> Vec<Violation> {
        let mut out = Vec::new();
        let l = &self.layout;
        if let Some(eth) = &self.eth {
            eth.validate(0, &mut out);
        }
        let violation = |requirement, header, field, offset, value, rule| Violation {
            requirement,
            header,
            field,
            offset,
            value,
            rule,
        };
        for (i, vlan) in self.vlans.iter().enumerate() {
            let at = l.link_len + i * VLAN_TAG_LEN;
            vlan.validate(at, &mut out);
            if i == 0 && self.vlans.len() > 1 {
                out.push(violation(
                    "ENC-VLAN-002",
                    Header::Vlan,
                    "ethertype",
                    Some(at + 2),
                    vlan.ethertype.0.into(),
                    "a sender uses a single tag, but a second tag follows",
                ));
            }
        }
        if let (Some(ip), Some(at)) = (&self.ip, l.ip) {
            match ip {
                IpRepr::V4(r) => r.validate(at, &mut out),
                IpRepr::V6(r) => r.validate(at, &mut out),
            }
        }
        if let (Some(udp), Some(at)) = (&self.udp, l.udp) {
            udp.validate(at, &mut out);
            if let UdpChecksum::Bad { found, .. } = self.udp_checksum() {
                // ENC-UDP-003 over IPv4, ENC-UDP-005 over IPv6: the verdict the decoder
                // reached over the whole datagram.
                let requirement = match self.ip {
                    Some(IpRepr::V6(_)) => "ENC-UDP-005",
                    _ => "ENC-UDP-003",
                };
                out.push(Violation {
                    requirement,
                    header: Header::Udp,
                    field: "checksum",
                    offset: Some(at + 6),
                    value: found.into(),
                    rule: "a non-zero UDP checksum must be correct",
                });
            }
        }
        let (Some(bth), Some(bth_at)) = (&self.bth, l.bth) else { return out };
        bth.validate(bth_at, &mut out);
        self.ext.validate(&l.ext, &mut out);
        let info = bth.opcode.info();
        if info.is_none() {
            out.push(violation(
                "OPC-UNKNOWN-001",
                Header::Bth,
                "opcode",
                Some(bth_at),
                bth.opcode.0.into(),
                "opcode is not in the opcode table",
            ));
        }
        if let (true, Some(ip), Some(ip_at)) = (bth.opcode.is_mrc_write(), &self.ip, l.ip) {
            let (ecn, at) = match ip {
                IpRepr::V4(v4) => (v4.ecn, ip_at + 1),
                IpRepr::V6(v6) => (v6.traffic_class & 0b11, ip_at + 1),
            };
            if ecn == 0 {
                out.push(violation(
                    "ENC-ECN-001",
                    match ip {
                        IpRepr::V4(_) => Header::Ipv4,
                        IpRepr::V6(_) => Header::Ipv6,
                    },
                    "ecn",
                    Some(at),
                    0,
                    "an MRC write should be ECN-capable (ECT(0) or ECT(1))",
                ));
            }
        }
        if bth.ts && bth.opcode.is_mrc() && !bth.opcode.is_mrc_write() {
            out.push(violation(
                "TSETH-PRESENT-002",
                Header::Bth,
                "ts",
                Some(bth_at + 8),
                1,
                "ts may be set only on MRC write packets",
            ));
        }
        if bth.opcode == Opcode::CNP {
            // CNP-BTH-001 (SHOULD): a CNP carries BTH `becn` 1 and `psn` 0. Its `dest_qp`,
            // the QP whose traffic was marked, is beyond what the frame alone can show.
            if !bth.becn {
                out.push(violation(
                    "CNP-BTH-001",
                    Header::Bth,
                    "becn",
                    Some(bth_at + 4),
                    0,
                    "a CNP should set becn to 1",
                ));
            }
            if bth.psn.value() != 0 {
                out.push(violation(
                    "CNP-BTH-001",
                    Header::Bth,
                    "psn",
                    Some(bth_at + 9),
                    bth.psn.value().into(),
                    "a CNP should carry PSN 0",
                ));
            }
        }
        if let (Opcode::MRC_ACKNOWLEDGE, Some(aeth), Some(&(_, at))) =
            (bth.opcode, &self.ext.aeth, l.ext.first())
        {
            let ok =
                matches!(aeth.kind(), crate::AethKind::Ack) || matches!(aeth.syndrome, 0x61..=0x63);
            if !ok {
                out.push(violation(
                    "AETH-MRC-001",
                    Header::Aeth,
                    "syndrome",
                    Some(at),
                    aeth.syndrome.into(),
                    "an MRC transport ACK is an ACK or a NAK 0x61-0x63",
                ));
            }
        }
        if bth.opcode.is_atomic_write() && self.payload.len() != 8 && !self.is_truncated() {
            out.push(violation(
                "ATOMIC-WRITE-001",
                Header::Payload,
                "payload",
                l.payload,
                self.payload.len() as u64,
                "an ATOMIC WRITE carries exactly 8 bytes of payload",
            ));
        }
        if let Some(i) = info {
            if i.payload == PayloadRule::None && !self.payload.is_empty() {
                out.push(violation(
                    "PAY-NONE-001",
                    Header::Payload,
                    "payload",
                    l.payload,
                    self.payload.len() as u64,
                    "this opcode carries no payload",
                ));
            }
        }
        if (self.payload.len() + self.pad.len()) % 4 != 0 && self.error.is_none() {
            out.push(violation(
                "PAY-PAD-001",
                Header::Bth,
                "pad_count",
                Some(bth_at + 1),
                bth.pad_count.into(),
                "payload plus pad must be a multiple of 4 bytes",
            ));
        }
        if self.pad.iter().any(|b| *b != 0) {
            out.push(violation(
                "PAY-PAD-002",
                Header::Payload,
                "pad",
                l.icrc.map(|i| i - self.pad.len()),
                self.pad.iter().fold(0u64, |a, b| a << 8 | u64::from(*b)),
                "pad bytes should be zero",
            ));
        }
        if let IcrcStatus::Bad { found, .. } = self.icrc {
            out.push(violation(
                "ICRC-VERIFY-001",
                Header::Icrc,
                "icrc",
                l.icrc,
                found.into(),
                "the ICRC does not match the packet",
            ));
        }
        out
    }

    /// The requirements a checker holds a frame with these headers to: those
    /// [`Self::validate`] checks — the `RULES` of each header present (for the BTH, those
    /// of its opcode's class, [`BthRepr::rules`]) and the frame-wide rules of
    /// [`FRAME_RULES`] that concern the headers present — and those whose decode checks the
    /// frame passed ([`DECODE_RULES`], [`DecodeError::requirement`]). A frame of the same
    /// shape that breaks one of its rules, whatever its values, breaks one of these.
    pub fn rules(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        if self.eth.is_some() {
            out.extend_from_slice(EthernetRepr::RULES);
        }
        if !self.vlans.is_empty() {
            out.extend_from_slice(VlanRepr::RULES);
            out.push("ENC-VLAN-002");
        }
        match &self.ip {
            Some(IpRepr::V4(_)) => {
                out.extend_from_slice(Ipv4Repr::RULES);
                out.push("ENC-IPV4-005");
            }
            Some(IpRepr::V6(_)) => {
                out.extend_from_slice(Ipv6Repr::RULES);
                out.push("ENC-IPV6-002");
            }
            None => {}
        }
        if self.ip.is_some() {
            out.push("ENC-LEN-002");
        }
        if self.udp.is_some() {
            out.extend_from_slice(UdpRepr::RULES);
            out.push("ENC-LEN-001");
            out.push(match &self.ip {
                Some(IpRepr::V6(_)) => "ENC-UDP-005",
                _ => "ENC-UDP-003",
            });
        }
        let Some(bth) = &self.bth else { return out };
        out.extend_from_slice(bth.rules());
        out.extend_from_slice(&[
            "ENC-LEN-004",
            "OPC-UNKNOWN-001",
            "PAY-PAD-001",
            "PAY-PAD-002",
            "PAY-PAD-003",
            "ICRC-VERIFY-001",
        ]);
        // Only a packet whose opcode calls for extension headers can end inside one; a pad
        // the packet has no room for is PAY-PAD-003 whatever the opcode.
        if bth.opcode.info().is_some_and(|i| !i.headers.is_empty()) {
            out.push("ENC-FRAME-001");
        }
        if bth.opcode.is_mrc() && !bth.opcode.is_mrc_write() {
            out.push("TSETH-PRESENT-002");
        }
        if bth.opcode.is_mrc_write() && self.ip.is_some() {
            out.push("ENC-ECN-001");
        }
        if bth.opcode == Opcode::MRC_ACKNOWLEDGE {
            out.push("AETH-MRC-001");
        }
        if bth.opcode == Opcode::CNP {
            out.push("CNP-BTH-001");
        }
        if bth.opcode.is_atomic_write() {
            out.push("ATOMIC-WRITE-001");
        }
        if bth.opcode.info().is_some_and(|i| i.payload == PayloadRule::None) {
            out.push("PAY-NONE-001");
        }
        self.ext.rules(&mut out);
        // Each once, in the order first met (the Ethernet header and a tag share one).
        let mut seen = Vec::with_capacity(out.len());
        out.retain(|id| {
            let new = !seen.contains(id);
            seen.push(*id);
            new
        });
        out
    }
}

/// The requirements that [`DecodedFrame::validate`] checks on the frame as a whole, beyond
/// each header's own `RULES`: a second VLAN tag, the UDP checksum, the ECN field of an MRC
/// write, the opcode, `ts` outside an MRC write, the syndrome of an MRC transport ACK, the
/// BTH of a CNP, the payload of an ATOMIC WRITE, payload and pad, and the ICRC.
pub const FRAME_RULES: &[&str] = &[
    "ENC-VLAN-002",
    "ENC-UDP-003",
    "ENC-UDP-005",
    "ENC-ECN-001",
    "OPC-UNKNOWN-001",
    "TSETH-PRESENT-002",
    "AETH-MRC-001",
    "CNP-BTH-001",
    "ATOMIC-WRITE-001",
    "PAY-NONE-001",
    "PAY-PAD-001",
    "PAY-PAD-002",
    "ICRC-VERIFY-001",
];

/// The requirements a decode error reports ([`DecodeError::requirement`]): the length and
/// header-stack rules whose checks stop [`decode`], and `DEC-STRUCT-001` for bytes that
/// cannot be followed at all.
pub const DECODE_RULES: &[&str] = &[
    "ENC-IPV4-005",
    "ENC-IPV6-002",
    "PAY-PAD-003",
    "ENC-LEN-001",
    "ENC-LEN-002",
    "ENC-LEN-004",
    "ENC-UDP-002",
    "ENC-FRAME-001",
    "DEC-STRUCT-001",
];

/// Parses the extension headers `headers` (the stack of a packet's opcode, see
/// [`header_stack`]) from `input` (the bytes after the BTH, up to the ICRC) into `ext`,
/// which keeps the headers read before a failure. Returns the bytes the headers take.
/// `frame_len` is the length of the whole frame buffer, so that errors carry absolute
/// offsets.
///
/// Each header has a fixed length: a whole one is read from a view over a fixed-size array,
/// whose accessors need no bounds check; one the input cuts short goes through its `Repr::parse`, which names the field
/// it ends in.
fn ext_chain(
    headers: impl Iterator<Item = ExtHeader>,
    input: &[u8],
    frame_len: usize,
    layout: &mut Layout,
    ext: &mut Extensions,
) -> Result<usize, DecodeError> {
    let mut used = 0;
    for h in headers {
        let rest = input.get(used..).unwrap_or_default();
        let base = frame_len - rest.len();
        layout.ext.push((h, base));
        macro_rules! read {
            ($view:ident, $repr:ident, $slot:ident, $len:expr) => {{
                ext.$slot = Some(match rest.first_chunk::<$len>() {
                    Some(b) => $repr::from_view(&$view::new_unchecked(b)),
                    None => $repr::parse(rest).map_err(|e| e.at(base))?,
                });
                $len
            }};
        }
        used += match h {
            ExtHeader::Meth => read!(Meth, MethRepr, meth, 4),
            ExtHeader::Tseth => read!(Tseth, TsethRepr, tseth, 4),
            ExtHeader::Reth => read!(Reth, RethRepr, reth, 16),
            ExtHeader::ImmDt => read!(ImmDt, ImmDtRepr, immdt, 4),
            ExtHeader::Aeth => read!(Aeth, AethRepr, aeth, 4),
            ExtHeader::Seth => read!(Seth, SethRepr, seth, 28),
            ExtHeader::CcState => read!(CcState, CcStateRepr, cc_state, 8),
            ExtHeader::Neth => read!(Neth, NethRepr, neth, 20),
            ExtHeader::Peth => read!(Peth, PethRepr, peth, 16),
            ExtHeader::Erth => read!(Erth, ErthRepr, erth, 16),
            ExtHeader::Eeth => read!(Eeth, EethRepr, eeth, 36),
            ExtHeader::Deth => read!(Deth, DethRepr, deth, 8),
            ExtHeader::Rdeth => read!(Rdeth, RdethRepr, rdeth, 4),
            ExtHeader::Xrceth => read!(Xrceth, XrcethRepr, xrceth, 4),
            ExtHeader::Ieth => read!(Ieth, IethRepr, ieth, 4),
            ExtHeader::AtomicEth => read!(AtomicEth, AtomicEthRepr, atomiceth, 28),
            ExtHeader::AtomicAckEth => read!(AtomicAckEth, AtomicAckEthRepr, atomicacketh, 8),
            ExtHeader::Feth => read!(Feth, FethRepr, feth, 4),
            ExtHeader::Cnp => read!(Cnp, CnpRepr, cnp, 16),
        };
    }
    Ok(used)
}

/// Decodes a whole Ethernet frame (without FCS). Never panics and never fails as a whole;
/// see [`DecodedFrame`].
#[inline]
pub fn decode(frame: &[u8]) -> DecodedFrame<'_> {
    decode_captured(LinkType::ETHERNET, frame, frame.len())
}

/// Decodes a captured frame of link type `link` (Ethernet, Linux cooked SLL or SLL2, raw
/// IP; see [`LinkType::is_decoded`]) whose length on the wire was `orig_len`, without FCS.
/// A link type the decoder does not read gives a frame with no header and no error.
///
/// When the capture cut the frame (`orig_len > frame.len()`), every header present in the
/// captured bytes is decoded, decoding stops without an error where the bytes end, the
/// length fields are checked against the length on the wire, and the ICRC is
/// [`IcrcStatus::NotCheckable`] (`DEC-CUT-001`).
// Inline, with the work out of line in `decode_into`: the frame (over 800 bytes) is then
// built in the caller's place instead of being built here and copied out on return.
#[inline]
pub fn decode_captured(link: LinkType, frame: &[u8], orig_len: usize) -> DecodedFrame<'_> {
    let mut d = DecodedFrame {
        bytes: frame,
        orig_len: orig_len.max(frame.len()),
        link_type: link,
        cooked: None,
        eth: None,
        vlans: Vec::new(),
        ip: None,
        udp: None,
        bth: None,
        ext: Extensions::default(),
        payload: &[],
        pad: &[],
        icrc_trailer: None,
        icrc: IcrcStatus::Absent,
        eth_padding: &[],
        error: None,
        to_roce_port: false,
        layout: Layout::default(),
    };
    if let Err(e) = decode_into(frame, &mut d) {
        // DEC-CUT-001: in a frame the capture cut, running out of bytes where the captured
        // bytes end is where decoding stops, not an error.
        let cap = frame.len();
        let at_capture_end = match e.kind {
            DecodeErrorKind::Truncated { have, .. } => {
                e.offset + have >= cap && d.layout.ip_end.is_none_or(|end| end > cap)
            }
            _ => false,
        };
        if !(d.is_truncated() && at_capture_end) {
            d.error = Some(e);
        }
    }
    d
}

/// What follows the link-layer header.
enum Next {
    /// An ethertype, maybe a tag's TPID.
    Ether(EtherType),
    /// Raw IP: the version nibble decides.
    RawIp,
}

/// Decodes `frame` into `d`, which holds every header read before an error. Kept out of
/// line so that [`decode_captured`], inlined in its callers, stays small.
#[inline(never)]
fn decode_into<'a>(frame: &'a [u8], d: &mut DecodedFrame<'a>) -> Result<(), DecodeError> {
    let (mut at, next) = match d.link_type {
        LinkType::ETHERNET => {
            let eth = EthernetRepr::parse(frame)?;
            d.eth = Some(eth);
            (ETH_HEADER_LEN, Next::Ether(eth.ethertype))
        }
        LinkType::LINUX_SLL => {
            let sll = SllRepr::parse(frame)?;
            d.cooked = Some(CookedHeader::Sll(sll));
            (SLL_LEN, Next::Ether(sll.protocol))
        }
        LinkType::LINUX_SLL2 => {
            let sll2 = Sll2Repr::parse(frame)?;
            d.cooked = Some(CookedHeader::Sll2(sll2));
            (SLL2_LEN, Next::Ether(sll2.protocol))
        }
        LinkType::RAW | LinkType::RAW_BSD | LinkType::RAW_OPENBSD => (0, Next::RawIp),
        LinkType::IPV4 => (0, Next::Ether(EtherType::IPV4)),
        LinkType::IPV6 => (0, Next::Ether(EtherType::IPV6)),
        _ => return Ok(()), // a link type the decoder does not read
    };
    d.layout.link_len = at;
    let mut ethertype = match next {
        Next::Ether(t) => t,
        Next::RawIp => match frame.first().map(|b| b >> 4) {
            Some(6) => EtherType::IPV6,
            Some(_) => EtherType::IPV4,
            None => return Err(DecodeError::truncated(Header::Ipv4, "version", 0, 1, 0)),
        },
    };
    // DEC-VLAN-001: any stack of tags.
    while ethertype.is_tag_tpid() {
        let vlan = VlanRepr::parse(&frame[at..]).map_err(|e| e.at(at))?;
        ethertype = vlan.ethertype;
        d.vlans.push(vlan);
        at += VLAN_TAG_LEN;
    }

    // IP: find the end of the IP packet from its length field. A frame the capture cut is
    // measured against its length on the wire (DEC-CUT-001).
    let cap = frame.len();
    let ip_at = at;
    let avail = d.orig_len - ip_at;
    let (ip, ip_hdr_len, ip_end, proto) = if ethertype == EtherType::IPV4 {
        let r = Ipv4Repr::parse(&frame[ip_at..]).map_err(|e| e.at(ip_at))?;
        let hl = r.header_len();
        let total = usize::from(r.total_len);
        let frag = r.more_frags || r.frag_offset != 0;
        let proto = if frag { None } else { Some(r.protocol) };
        d.to_roce_port = proto == Some(IP_PROTO_UDP) && udp_dst_is_roce(frame, ip_at + hl);
        if total > avail || total < hl {
            return Err(DecodeError::length(Header::Ipv4, "total_len", ip_at + 2, total, avail));
        }
        (IpRepr::V4(r), hl, ip_at + total, proto)
    } else if ethertype == EtherType::IPV6 {
        let r = Ipv6Repr::parse(&frame[ip_at..]).map_err(|e| e.at(ip_at))?;
        let total = IPV6_HEADER_LEN + usize::from(r.payload_len);
        d.to_roce_port =
            r.next_header == IP_PROTO_UDP && udp_dst_is_roce(frame, ip_at + IPV6_HEADER_LEN);
        if total > avail {
            return Err(DecodeError::length(
                Header::Ipv6,
                "payload_len",
                ip_at + 4,
                usize::from(r.payload_len),
                avail - IPV6_HEADER_LEN,
            ));
        }
        let proto = Some(r.next_header);
        (IpRepr::V6(r), IPV6_HEADER_LEN, ip_at + total, proto)
    } else {
        return Ok(()); // not IP: nothing more to decode
    };
    // The end of the IP packet in the captured bytes: before `ip_end` when the capture cut
    // the frame.
    let ip_end_cap = ip_end.min(cap);
    // Checksums are checked only in a frame the capture kept whole: in a cut frame the ICRC
    // is not checkable even where the cut spared the IP packet (DEC-CUT-001).
    let whole = ip_end <= cap && !d.is_truncated();
    d.ip = Some(ip);
    d.layout.ip = Some(ip_at);
    d.layout.ip_end = Some(ip_end);
    d.eth_padding = &frame[ip_end_cap..];
    if proto != Some(IP_PROTO_UDP) {
        return Ok(()); // not UDP, or an IPv4 fragment
    }

    // UDP: its length must fill the IP payload exactly.
    let udp_at = ip_at + ip_hdr_len;
    let udp = UdpRepr::parse(&frame[udp_at.min(cap)..ip_end_cap]).map_err(|e| e.at(udp_at))?;
    let ip_payload = ip_end - udp_at;
    if usize::from(udp.length) != ip_payload {
        return Err(DecodeError::length(
            Header::Udp,
            "length",
            udp_at + 4,
            usize::from(udp.length),
            ip_payload,
        ));
    }
    let is_roce = udp.dst_port == ROCEV2_PORT;
    d.udp = Some(udp);
    d.layout.udp = Some(udp_at);
    if !is_roce {
        return Ok(());
    }

    // BTH, then the ICRC over the whole packet, then the extension chain.
    let bth_at = udp_at + UDP_HEADER_LEN;
    let bth = BthRepr::parse(&frame[bth_at.min(cap)..ip_end_cap]).map_err(|e| e.at(bth_at))?;
    d.bth = Some(bth);
    d.layout.bth = Some(bth_at);
    let body_start = bth_at + BTH_LEN;
    if ip_end < body_start + ICRC_LEN {
        return Err(DecodeError::truncated(
            Header::Icrc,
            "icrc",
            body_start,
            ICRC_LEN,
            ip_end - body_start,
        ));
    }
    let icrc_at = ip_end - ICRC_LEN;
    if whole {
        d.layout.icrc = Some(icrc_at);
        d.icrc_trailer = icrc::trailer(&frame[ip_at..ip_end]);
        d.icrc = match icrc::verify(&frame[ip_at..ip_end]) {
            Ok(IcrcCheck::Ok) => IcrcStatus::Ok,
            Ok(IcrcCheck::Bad { found, computed }) => IcrcStatus::Bad { found, computed },
            Err(_) => IcrcStatus::Absent,
        };
    } else {
        d.icrc = IcrcStatus::NotCheckable;
    }

    // Give the chain the bytes between the BTH and the ICRC (or the end of the captured
    // bytes), but report offsets in the frame.
    let chain_end = icrc_at.min(cap);
    let used = ext_chain(
        header_stack(&bth),
        &frame[body_start..chain_end],
        chain_end,
        &mut d.layout,
        &mut d.ext,
    )?;
    let payload_at = body_start + used;
    let pad_len = usize::from(bth.pad_count);
    // Bytes between the headers and the ICRC on the wire.
    let body = icrc_at - payload_at;
    if body < pad_len {
        return Err(DecodeError::truncated(Header::Payload, "pad", payload_at, pad_len, body));
    }
    let pad_at = icrc_at - pad_len;
    d.payload = &frame[payload_at..pad_at.min(cap)];
    d.pad = &frame[pad_at.min(cap)..chain_end];
    d.layout.payload = Some(payload_at);
    Ok(())
}

/// Whether the UDP header at `udp_at` (if its destination port was captured) names port
/// 4791.
fn udp_dst_is_roce(frame: &[u8], udp_at: usize) -> bool {
    frame.get(udp_at + 2..udp_at + 4).is_some_and(|p| p == ROCEV2_PORT.to_be_bytes())
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

/// An owned, complete RoCEv2 frame.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct FrameRepr {
    /// Ethernet header.
    pub eth: EthernetRepr,
    /// VLAN tags, outermost first; usually none or one.
    pub vlans: Vec<VlanRepr>,
    /// IP header.
    pub ip: IpRepr,
    /// UDP header.
    pub udp: UdpRepr,
    /// BTH.
    pub bth: BthRepr,
    /// Extension headers; must be exactly the opcode's stack.
    pub ext: Extensions,
    /// Payload.
    pub payload: Vec<u8>,
    /// Pad bytes; the first `bth.pad_count` are emitted.
    pub pad: [u8; 3],
    /// The ICRC trailer to emit, or `None` to compute it.
    pub icrc: Option<u32>,
    /// Bytes after the IP packet (Ethernet padding).
    pub eth_padding: Vec<u8>,
}

impl FrameRepr {
    /// Bytes of the IP packet, ICRC included.
    pub fn ip_len(&self) -> usize {
        self.ip.header_len()
            + UDP_HEADER_LEN
            + BTH_LEN
            + self.ext.buffer_len()
            + self.payload.len()
            + usize::from(self.bth.pad_count)
            + ICRC_LEN
    }

    /// Bytes of the whole frame.
    pub fn buffer_len(&self) -> usize {
        ETH_HEADER_LEN + self.vlans.len() * VLAN_TAG_LEN + self.ip_len() + self.eth_padding.len()
    }

    /// The entropy value this frame carries (see [`DecodedFrame::entropy`]).
    pub fn entropy(&self) -> Ev {
        let low = match &self.ip {
            IpRepr::V6(v6) => v6.flow_label as u16,
            IpRepr::V4(_) => 0,
        };
        Ev::from_halves(self.udp.src_port, low)
    }

    /// Places an entropy value: EV\[31:16\] in the UDP source port and, over IPv6,
    /// EV\[15:0\] in the low 16 bits of the flow label (`ENC-EV-*`).
    pub fn set_entropy(&mut self, ev: Ev) {
        self.udp.src_port = ev.high();
        if let IpRepr::V6(v6) = &mut self.ip {
            // ENC-EV-001: flow_label[19:16] is sent as 0.
            v6.flow_label = u32::from(ev.low());
        }
    }

    /// Makes the outer headers lead to RoCEv2: each EtherType names the next header (a VLAN
    /// tag when there is one), the IP protocol is UDP, IPv4 is not a fragment, and the UDP
    /// destination port is 4791. Lengths and checksums are left to [`FrameRepr::finalize`].
    pub fn chain_to_roce(&mut self) {
        let ip_type = match &mut self.ip {
            IpRepr::V4(v4) => {
                v4.protocol = IP_PROTO_UDP;
                v4.more_frags = false;
                v4.frag_offset = 0;
                EtherType::IPV4
            }
            IpRepr::V6(v6) => {
                v6.next_header = IP_PROTO_UDP;
                EtherType::IPV6
            }
        };
        let n = self.vlans.len();
        for (i, v) in self.vlans.iter_mut().enumerate() {
            if i + 1 == n {
                v.ethertype = ip_type;
            } else if !v.ethertype.is_tag_tpid() {
                v.ethertype = EtherType::VLAN;
            }
        }
        if n == 0 {
            self.eth.ethertype = ip_type;
        } else if !self.eth.ethertype.is_tag_tpid() {
            self.eth.ethertype = if n > 1 { EtherType::QINQ } else { EtherType::VLAN };
        }
        self.udp.dst_port = ROCEV2_PORT;
    }

    /// Makes the frame self-consistent for sending: IP and UDP lengths, pad count and zero
    /// pad, the IPv4 header checksum, the UDP checksum (0 over IPv4, `ENC-UDP-003`;
    /// computed over IPv6, `ENC-UDP-004`), and `icrc = None` so that emit computes it.
    pub fn finalize(&mut self) -> Result<(), EmitError> {
        let pad = (4 - self.payload.len() % 4) % 4;
        self.bth.pad_count = pad as u8;
        self.pad = [0; 3];
        self.icrc = None;
        let ip_len = self.ip_len();
        let udp_len = ip_len - self.ip.header_len();
        self.udp.length = u16::try_from(udp_len)
            .map_err(|_| EmitError::Inconsistent { header: Header::Udp, field: "length" })?;
        match &mut self.ip {
            IpRepr::V4(v4) => {
                v4.total_len = u16::try_from(ip_len).map_err(|_| EmitError::Inconsistent {
                    header: Header::Ipv4,
                    field: "total_len",
                })?;
                v4.checksum = 0;
                let mut hdr = [0u8; 60];
                let n = v4.emit(&mut hdr)?;
                v4.checksum = crate::wire::ipv4::compute_checksum(&hdr[..n]);
            }
            IpRepr::V6(v6) => v6.payload_len = udp_len as u16,
        }
        self.udp.checksum = 0;
        if let IpRepr::V6(_) = &self.ip {
            self.fill_udp_checksum()?;
        }
        Ok(())
    }

    /// Makes the frame consistent again after an edit of fields that change no length (an
    /// entropy value, a timestamp, a flag): `icrc = None`, so that emit computes it, and a
    /// non-zero UDP checksum computed again. A zero UDP checksum — none computed, which a
    /// receiver accepts (`ENC-UDP-003`, `ENC-UDP-004`) — stays zero; the lengths and the
    /// IPv4 header checksum are left as they are, where [`FrameRepr::finalize`] sets them.
    pub fn reseal(&mut self) -> Result<(), EmitError> {
        self.icrc = None;
        if self.udp.checksum != 0 {
            self.fill_udp_checksum()?;
        }
        Ok(())
    }

    /// Sets the UDP checksum to the correct value for the frame as it stands (lengths
    /// included, so call it after they are right). The ICRC masks the UDP checksum, so the
    /// datagram is emitted, ICRC included, with a zero checksum and summed afterwards.
    pub fn fill_udp_checksum(&mut self) -> Result<(), EmitError> {
        self.udp.checksum = 0;
        let bytes = self.to_bytes()?;
        let udp_at = ETH_HEADER_LEN + self.vlans.len() * VLAN_TAG_LEN + self.ip.header_len();
        let datagram = bytes
            .get(udp_at..udp_at + usize::from(self.udp.length))
            .ok_or(EmitError::Inconsistent { header: Header::Udp, field: "length" })?;
        self.udp.checksum = match &self.ip {
            IpRepr::V4(v4) => UdpRepr::compute_checksum_v4(v4.src, v4.dst, datagram),
            IpRepr::V6(v6) => UdpRepr::compute_checksum_v6(v6.src, v6.dst, datagram),
        };
        Ok(())
    }

    /// Writes the frame into `buf` exactly as held (lengths and checksums as stored; the ICRC
    /// computed when `icrc` is `None`). Returns the bytes written. Never panics.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        let need = self.buffer_len();
        check_buffer(Header::Eth, buf, need)?;
        let buf = &mut buf[..need];
        let mut at = self.eth.emit(buf)?;
        for v in &self.vlans {
            at += v.emit(&mut buf[at..])?;
        }
        let ip_at = at;
        at += match &self.ip {
            IpRepr::V4(r) => r.emit(&mut buf[at..])?,
            IpRepr::V6(r) => r.emit(&mut buf[at..])?,
        };
        at += self.udp.emit(&mut buf[at..])?;
        at += self.bth.emit(&mut buf[at..])?;
        let mut expected = 0;
        for h in header_stack(&self.bth) {
            expected += 1;
            if !self.ext.has(h) {
                return Err(EmitError::Inconsistent { header: Header::Bth, field: "opcode" });
            }
            at += self.ext.emit_one(h, &mut buf[at..])?;
        }
        if expected != self.ext.count() {
            return Err(EmitError::Inconsistent { header: Header::Bth, field: "opcode" });
        }
        buf[at..at + self.payload.len()].copy_from_slice(&self.payload);
        at += self.payload.len();
        let pad = usize::from(self.bth.pad_count);
        buf[at..at + pad].copy_from_slice(&self.pad[..pad]);
        at += pad;
        let crc = match self.icrc {
            Some(c) => c,
            None => icrc::compute(&buf[ip_at..at])
                .map_err(|_| EmitError::Inconsistent { header: Header::Icrc, field: "icrc" })?,
        };
        buf[at..at + ICRC_LEN].copy_from_slice(&crc.to_le_bytes());
        at += ICRC_LEN;
        buf[at..at + self.eth_padding.len()].copy_from_slice(&self.eth_padding);
        at += self.eth_padding.len();
        Ok(at)
    }

    /// Emits into a new vector.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EmitError> {
        let mut v = alloc::vec![0u8; self.buffer_len()];
        let n = self.emit(&mut v)?;
        v.truncate(n);
        Ok(v)
    }
}
