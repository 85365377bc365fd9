//! Decoding a frame: [`decode`] and [`decode_captured`], layer by layer.

use alloc::vec::Vec;

use super::*;

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
///
/// One step per layer, each inlined here: the link layer and its tags, the IP header, the
/// UDP header, then the RoCEv2 packet. A step returns `None` when the frame is not of the
/// kind the next step reads (not IP, not UDP, not to port 4791), which is not an error.
#[inline(never)]
fn decode_into<'a>(frame: &'a [u8], d: &mut DecodedFrame<'a>) -> Result<(), DecodeError> {
    let Some((ip_at, ethertype)) = decode_link(frame, d)? else { return Ok(()) };
    let Some(ip) = decode_ip(frame, d, ip_at, ethertype)? else { return Ok(()) };
    let Some(udp_at) = decode_udp(frame, d, &ip)? else { return Ok(()) };
    decode_roce(frame, d, &ip, udp_at)
}

/// Where the IP packet lies in a frame, as [`decode_ip`] found it.
struct IpSpan {
    /// Offset of the IP header.
    at: usize,
    /// Bytes of the IP header.
    header_len: usize,
    /// End of the IP packet on the wire (after the capture's end when it cut the frame).
    end: usize,
    /// The end of the IP packet in the captured bytes: before `end` when the capture cut
    /// the frame.
    end_cap: usize,
    /// Whether the capture kept the frame whole, so that checksums can be checked.
    whole: bool,
}

/// Reads the link-layer header and any VLAN tags. Returns the offset of what follows them
/// and its ethertype, or `None` for a link type the decoder does not read.
#[inline(always)]
fn decode_link(
    frame: &[u8],
    d: &mut DecodedFrame<'_>,
) -> Result<Option<(usize, EtherType)>, DecodeError> {
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
        _ => return Ok(None), // a link type the decoder does not read
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
    // DEC-VLAN-002: any stack of tags.
    while ethertype.is_tag_tpid() {
        let vlan = VlanRepr::parse(&frame[at..]).map_err(|e| e.at(at))?;
        ethertype = vlan.ethertype;
        d.vlans.push(vlan);
        at += VLAN_TAG_LEN;
    }
    Ok(Some((at, ethertype)))
}

/// Reads the IP header at `ip_at` and finds the end of the IP packet from its length field.
/// Returns `None` when the frame is not IP, or its IP packet is not UDP (or an IPv4
/// fragment).
#[inline(always)]
fn decode_ip<'a>(
    frame: &'a [u8],
    d: &mut DecodedFrame<'a>,
    ip_at: usize,
    ethertype: EtherType,
) -> Result<Option<IpSpan>, DecodeError> {
    // A frame the capture cut is measured against its length on the wire (DEC-CUT-001).
    let cap = frame.len();
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
        return Ok(None); // not IP: nothing more to decode
    };
    let ip_end_cap = ip_end.min(cap);
    // Checksums are checked only in a frame the capture kept whole: in a cut frame the ICRC
    // is not checkable even where the cut spared the IP packet (DEC-CUT-001).
    let whole = ip_end <= cap && !d.is_truncated();
    d.ip = Some(ip);
    d.layout.ip = Some(ip_at);
    d.layout.ip_end = Some(ip_end);
    d.eth_padding = &frame[ip_end_cap..];
    if proto != Some(IP_PROTO_UDP) {
        return Ok(None); // not UDP, or an IPv4 fragment
    }
    Ok(Some(IpSpan { at: ip_at, header_len: ip_hdr_len, end: ip_end, end_cap: ip_end_cap, whole }))
}

/// Reads the UDP header, whose length must fill the IP payload exactly. Returns its offset,
/// or `None` when it is not addressed to RoCEv2.
#[inline(always)]
fn decode_udp(
    frame: &[u8],
    d: &mut DecodedFrame<'_>,
    ip: &IpSpan,
) -> Result<Option<usize>, DecodeError> {
    let cap = frame.len();
    let udp_at = ip.at + ip.header_len;
    let udp = UdpRepr::parse(&frame[udp_at.min(cap)..ip.end_cap]).map_err(|e| e.at(udp_at))?;
    let ip_payload = ip.end - udp_at;
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
    Ok(is_roce.then_some(udp_at))
}

/// Reads the RoCEv2 packet after the UDP header at `udp_at`: the BTH, then the ICRC over the
/// whole packet, then the extension chain, the payload and the pad.
#[inline(always)]
fn decode_roce<'a>(
    frame: &'a [u8],
    d: &mut DecodedFrame<'a>,
    ip: &IpSpan,
    udp_at: usize,
) -> Result<(), DecodeError> {
    let cap = frame.len();
    let (ip_at, ip_end) = (ip.at, ip.end);
    let bth_at = udp_at + UDP_HEADER_LEN;
    let bth = BthRepr::parse(&frame[bth_at.min(cap)..ip.end_cap]).map_err(|e| e.at(bth_at))?;
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
    if ip.whole {
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
