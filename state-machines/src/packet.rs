//! The packets the model sends and receives: MRC packets as codec `Repr`s, with their
//! payload described rather than copied.
//!
//! Conversion to and from whole frames ([`FrameRepr`]) happens at the edge, in
//! [`Packet::from_frame`] and [`Packet::to_frame`]; the model itself never sees a byte of
//! header.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use openrdma_codec::frame::{DecodedFrame, Extensions, FrameRepr, IpRepr};
use openrdma_codec::{
    AethRepr, BthRepr, CcStateRepr, EethRepr, ErthRepr, EtherType, EthernetRepr, Ev, IP_PROTO_UDP,
    ImmDtRepr, Ipv4Repr, Ipv6Repr, MethRepr, NethRepr, Opcode, PethRepr, Psn, Qpn, RethRepr,
    SethRepr, TsethRepr, UdpRepr, VlanRepr,
};
use openrdma_device::{Link, Payload};
use serde::{Deserialize, Serialize};

/// An MRC write packet: BTH, METH, an optional TSETH, RETH, an optional ImmDt, and payload.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WritePacket {
    /// BTH.
    pub bth: BthRepr,
    /// METH.
    pub meth: MethRepr,
    /// TSETH, present when `bth.ts`.
    pub tseth: Option<TsethRepr>,
    /// RETH.
    pub reth: RethRepr,
    /// ImmDt, on the last packet of a Write-with-Immediate.
    pub immdt: Option<ImmDtRepr>,
    /// Payload.
    pub payload: Payload,
}

/// A packet of the MRC transport, as the model handles it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Packet {
    /// RDMA Write or Write-with-Immediate (opcodes 0xC6–0xCB).
    Write(WritePacket),
    /// Selective acknowledgement (0xDC).
    Sack {
        /// BTH.
        bth: BthRepr,
        /// SETH.
        seth: SethRepr,
        /// CC_STATE.
        cc_state: CcStateRepr,
    },
    /// Negative acknowledgement (0xDD).
    Nack {
        /// BTH.
        bth: BthRepr,
        /// NETH.
        neth: NethRepr,
    },
    /// Reliability probe (0xDE).
    Probe {
        /// BTH.
        bth: BthRepr,
        /// PETH.
        peth: PethRepr,
    },
    /// Transport acknowledgement (0xD1).
    Ack {
        /// BTH.
        bth: BthRepr,
        /// AETH.
        aeth: AethRepr,
    },
    /// Endpoint request (0xD8), to the reserved QPN 2 (`ERTH-QPN-001`).
    EndpointRequest {
        /// BTH.
        bth: BthRepr,
        /// ERTH.
        erth: ErthRepr,
    },
    /// Endpoint response (0xD9), to the reserved QPN 2.
    EndpointResponse {
        /// BTH.
        bth: BthRepr,
        /// EETH.
        eeth: EethRepr,
    },
}

/// Why a frame reaches the model as no packet at all (`RCV-FRAME-001`, `RCV-OPC-001`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unreceivable {
    /// The frame is not a whole, sound RoCEv2 packet; the requirement says why
    /// ([`DecodedFrame::discard_reason`]).
    #[error("[{0}] the frame is not a whole, sound RoCEv2 packet")]
    Discarded(&'static str),
    /// A sound RoCEv2 packet whose opcode the MRC model does not handle.
    #[error(transparent)]
    Unsupported(#[from] UnsupportedPacket),
}

impl Unreceivable {
    /// The requirement under which the NIC takes no action on the frame.
    pub fn requirement(&self) -> &'static str {
        match self {
            Unreceivable::Discarded(id) => id,
            Unreceivable::Unsupported(_) => "RCV-OPC-001",
        }
    }
}

/// A frame the model does not handle: not an MRC opcode it implements, or headers missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("opcode {opcode} is not handled by the MRC model ({reason})")]
pub struct UnsupportedPacket {
    /// The opcode found.
    pub opcode: Opcode,
    /// Why.
    pub reason: &'static str,
}

impl Packet {
    /// The BTH.
    #[inline]
    pub fn bth(&self) -> &BthRepr {
        match self {
            Packet::Write(w) => &w.bth,
            Packet::Sack { bth, .. }
            | Packet::Nack { bth, .. }
            | Packet::Probe { bth, .. }
            | Packet::Ack { bth, .. }
            | Packet::EndpointRequest { bth, .. }
            | Packet::EndpointResponse { bth, .. } => bth,
        }
    }

    /// The destination QP.
    #[inline]
    pub fn dest_qp(&self) -> Qpn {
        self.bth().dest_qp
    }

    /// The PSN.
    #[inline]
    pub fn psn(&self) -> Psn {
        self.bth().psn
    }

    /// Builds a packet from decoded headers and payload.
    pub fn from_parts(
        bth: BthRepr,
        ext: &Extensions,
        payload: Payload,
    ) -> Result<Packet, UnsupportedPacket> {
        let missing = |reason| UnsupportedPacket { opcode: bth.opcode, reason };
        Ok(match bth.opcode {
            op if op.is_mrc_write() => Packet::Write(WritePacket {
                bth,
                meth: ext.meth.ok_or(missing("METH missing"))?,
                tseth: ext.tseth,
                reth: ext.reth.ok_or(missing("RETH missing"))?,
                immdt: ext.immdt,
                payload,
            }),
            Opcode::MRC_SACK => Packet::Sack {
                bth,
                seth: ext.seth.ok_or(missing("SETH missing"))?,
                cc_state: ext.cc_state.ok_or(missing("CC_STATE missing"))?,
            },
            Opcode::MRC_NACK => {
                Packet::Nack { bth, neth: ext.neth.ok_or(missing("NETH missing"))? }
            }
            Opcode::MRC_PROBE => {
                Packet::Probe { bth, peth: ext.peth.ok_or(missing("PETH missing"))? }
            }
            Opcode::MRC_ACKNOWLEDGE => {
                Packet::Ack { bth, aeth: ext.aeth.ok_or(missing("AETH missing"))? }
            }
            Opcode::MRC_ENDPOINT_REQUEST => {
                Packet::EndpointRequest { bth, erth: ext.erth.ok_or(missing("ERTH missing"))? }
            }
            Opcode::MRC_ENDPOINT_RESPONSE => {
                Packet::EndpointResponse { bth, eeth: ext.eeth.ok_or(missing("EETH missing"))? }
            }
            _ => return Err(missing("not an MRC data or reliability opcode")),
        })
    }

    /// Builds a packet from a decoded frame, returning it with the frame's entropy value.
    pub fn from_frame(frame: &FrameRepr) -> Result<(Packet, Ev), UnsupportedPacket> {
        let payload = Payload::Bytes(Arc::from(frame.payload.as_slice()));
        Ok((Packet::from_parts(frame.bth, &frame.ext, payload)?, frame.entropy()))
    }

    /// Builds a packet from a frame decoded in place, copying its payload once (where
    /// [`Packet::from_frame`] after [`DecodedFrame::to_repr`] copies it twice), returning
    /// it with the frame's entropy value. `None` when the frame did not decode into a whole
    /// RoCEv2 packet (`frame.error` says why).
    pub fn from_decoded(
        frame: &DecodedFrame<'_>,
    ) -> Option<Result<(Packet, Ev), UnsupportedPacket>> {
        if frame.error.is_some() {
            return None;
        }
        let bth = frame.bth?;
        let ev = frame.entropy()?;
        let payload = Payload::Bytes(Arc::from(frame.payload));
        Some(Packet::from_parts(bth, &frame.ext, payload).map(|p| (p, ev)))
    }

    /// The packet a frame from the wire carries, with the frame's entropy value, or why the
    /// NIC takes no action on the frame: the edge where frames become packets. A frame that
    /// is not a whole, sound RoCEv2 packet (`RCV-FRAME-001`: it does not decode, is not
    /// RoCEv2, has a wrong IPv4 header checksum, UDP checksum or ICRC, or an opcode the
    /// opcode table does not define) is [`Unreceivable::Discarded`]; a sound packet whose
    /// opcode the model does not handle (an RC opcode, `RCV-OPC-001`) is
    /// [`Unreceivable::Unsupported`].
    pub fn from_wire(frame: &DecodedFrame<'_>) -> Result<(Packet, Ev), Unreceivable> {
        if let Some(id) = frame.discard_reason() {
            return Err(Unreceivable::Discarded(id));
        }
        match Packet::from_decoded(frame) {
            Some(r) => Ok(r?),
            // A frame without a discard reason decodes whole and is RoCEv2.
            None => Err(Unreceivable::Discarded("DEC-STRUCT-001")),
        }
    }

    /// The extension headers of this packet, for building a frame.
    pub fn extensions(&self) -> Extensions {
        let mut ext = Extensions::default();
        match self {
            Packet::Write(w) => {
                ext.meth = Some(w.meth);
                ext.tseth = w.tseth;
                ext.reth = Some(w.reth);
                ext.immdt = w.immdt;
            }
            Packet::Sack { seth, cc_state, .. } => {
                ext.seth = Some(*seth);
                ext.cc_state = Some(*cc_state);
            }
            Packet::Nack { neth, .. } => ext.neth = Some(*neth),
            Packet::Probe { peth, .. } => ext.peth = Some(*peth),
            Packet::Ack { aeth, .. } => ext.aeth = Some(*aeth),
            Packet::EndpointRequest { erth, .. } => ext.erth = Some(*erth),
            Packet::EndpointResponse { eeth, .. } => ext.eeth = Some(*eeth),
        }
        ext
    }

    /// Builds a complete, finalized frame: `outer` gives the addresses, `ev` the entropy
    /// value, and `fetch` reads host memory for [`Payload::Host`] payloads.
    pub fn to_frame(
        &self,
        outer: &Outer,
        ev: Ev,
        fetch: &mut dyn FnMut(u64, u32) -> Vec<u8>,
    ) -> Result<FrameRepr, openrdma_codec::EmitError> {
        let payload = match self {
            Packet::Write(w) => match &w.payload {
                Payload::Bytes(b) => b.to_vec(),
                Payload::Host { addr, len } => fetch(*addr, *len),
            },
            _ => Vec::new(),
        };
        let mut f = outer.frame(*self.bth(), self.extensions(), payload);
        f.set_entropy(ev);
        f.finalize()?;
        Ok(f)
    }
}

/// Writes the frames of one link into buffers it keeps: the same bytes as
/// [`Packet::to_frame`] followed by [`FrameRepr::emit`], without a new frame, payload
/// vector and output vector per packet. The software edge of a NIC.
#[derive(Debug, Clone)]
pub struct FrameWriter {
    outer: Outer,
    frame: FrameRepr,
    buf: Vec<u8>,
}

impl FrameWriter {
    /// A writer for frames with these outer headers.
    pub fn new(outer: Outer) -> FrameWriter {
        let frame = outer.frame(BthRepr::default(), Extensions::default(), Vec::new());
        FrameWriter { outer, frame, buf: Vec::new() }
    }

    /// The frame of `packet` on entropy value `ev`, ICRC included (the Ethernet FCS is not
    /// part of it). `fetch(addr, len, out)` appends the `len` bytes of local memory at
    /// `addr` to `out`, for a [`Payload::Host`] payload.
    pub fn write(
        &mut self,
        packet: &Packet,
        ev: Ev,
        fetch: &mut dyn FnMut(u64, u32, &mut Vec<u8>),
    ) -> Result<&[u8], openrdma_codec::EmitError> {
        // The payload vector is kept from frame to frame; the rest is rebuilt.
        let mut payload = core::mem::take(&mut self.frame.payload);
        payload.clear();
        if let Packet::Write(w) = packet {
            match &w.payload {
                Payload::Bytes(b) => payload.extend_from_slice(b),
                Payload::Host { addr, len } => fetch(*addr, *len, &mut payload),
            }
        }
        self.frame = self.outer.frame(*packet.bth(), packet.extensions(), payload);
        let f = &mut self.frame;
        f.set_entropy(ev);
        f.finalize()?;
        let need = f.buffer_len();
        if self.buf.len() < need {
            self.buf.resize(need, 0);
        }
        let n = f.emit(&mut self.buf)?;
        Ok(&self.buf[..n])
    }
}

/// The ECN codepoint ECT(0), `10` in binary (RFC 3168).
const ECT0: u8 = 0b10;

/// The outer headers of frames between two endpoints: Ethernet, optional VLAN tag, and
/// an IP header template (lengths and checksums are filled in per frame).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outer {
    /// Ethernet header (its EtherType must match the IP version or the VLAN tag).
    pub eth: EthernetRepr,
    /// Optional 802.1Q tag.
    pub vlan: Option<VlanRepr>,
    /// IP header template.
    pub ip: IpRepr,
}

impl Outer {
    /// The outer headers of the frames a device sends over `link`, from its end: its
    /// addresses as the source, the peer's as the destination, TTL or hop limit 64, IPv4
    /// with DF set, and the 802.1Q tag when the link has a VLAN. Over IPv4 a link given in
    /// IPv6 addresses uses their IPv4-mapped form (0.0.0.0 for any other).
    pub fn from_link(link: &Link) -> Outer {
        let (ip, ethertype) = match (link.local_ip, link.peer_ip) {
            (IpAddr::V6(src), IpAddr::V6(dst)) => {
                let mut v6 = Ipv6Repr::new(src, dst, IP_PROTO_UDP);
                v6.hop_limit = 64;
                (IpRepr::V6(v6), EtherType::IPV6)
            }
            (src, dst) => {
                let to4 = |a: IpAddr| match a {
                    IpAddr::V4(a) => a,
                    IpAddr::V6(a) => a.to_ipv4_mapped().unwrap_or(Ipv4Addr::UNSPECIFIED),
                };
                let mut v4 = Ipv4Repr::new(to4(src), to4(dst), IP_PROTO_UDP);
                v4.ttl = 64;
                v4.dont_frag = true;
                (IpRepr::V4(v4), EtherType::IPV4)
            }
        };
        let (eth_type, vlan) = match link.vlan {
            Some(vid) => (
                EtherType::VLAN,
                Some(VlanRepr { pcp: 0, dei: false, vid: vid & 0xFFF, ethertype }),
            ),
            None => (ethertype, None),
        };
        Outer {
            eth: EthernetRepr { dst: link.peer_mac, src: link.local_mac, ethertype: eth_type },
            vlan,
            ip,
        }
    }

    /// A frame between the two endpoints carrying `bth`, `ext` and `payload`, with its
    /// entropy, lengths, checksums and ICRC still to be filled in
    /// ([`FrameRepr::set_entropy`], [`FrameRepr::finalize`]).
    /// An MRC write is marked ECN-capable, ECT(0), unless the template marks it ECT(1) or
    /// CE already (`ENC-ECN-001`): MRC reports congestion marks per EV (`SETH.m`), which the
    /// network can give only to packets it may mark.
    pub fn frame(&self, bth: BthRepr, ext: Extensions, payload: Vec<u8>) -> FrameRepr {
        let mut ip = self.ip.clone();
        if bth.opcode.is_mrc_write() {
            match &mut ip {
                IpRepr::V4(v4) if v4.ecn == 0 => v4.ecn = ECT0,
                IpRepr::V6(v6) if v6.traffic_class & 0b11 == 0 => v6.traffic_class |= ECT0,
                _ => {}
            }
        }
        FrameRepr {
            eth: self.eth,
            vlans: self.vlan.into_iter().collect(),
            ip,
            udp: UdpRepr {
                src_port: 0,
                dst_port: openrdma_codec::ROCEV2_PORT,
                length: 0,
                checksum: 0,
            },
            bth,
            ext,
            payload,
            pad: [0; 3],
            icrc: None,
            eth_padding: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use core::net::Ipv4Addr;

    use openrdma_codec::frame::{IpRepr, decode};
    use openrdma_codec::{EtherType, EthernetAddress, Ipv4Repr, Msn, Rkey, Rqmsn};

    use super::*;

    fn outer() -> Outer {
        let ip = Ipv4Repr::new(Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 0, 0, 1), 17);
        Outer {
            eth: EthernetRepr {
                dst: EthernetAddress([2, 0, 0, 0, 0, 1]),
                src: EthernetAddress([2, 0, 0, 0, 0, 2]),
                ethertype: EtherType::IPV4,
            },
            vlan: None,
            ip: IpRepr::V4(ip),
        }
    }

    fn write_frame() -> Vec<u8> {
        let mut bth = BthRepr::new(Opcode::MRC_WRITE_ONLY, Qpn::new(0x11), Psn::new(3));
        bth.ack_req = true;
        let p = Packet::Write(WritePacket {
            bth,
            meth: MethRepr { rqmsn: Rqmsn::ZERO, msn: Msn::ZERO },
            tseth: None,
            reth: RethRepr { va: 0x1000, rkey: Rkey::new(7), dma_len: 8 },
            immdt: None,
            payload: Payload::Bytes(Arc::from(&[1u8, 2, 3, 4, 5, 6, 7, 8][..])),
        });
        p.to_frame(&outer(), Ev::new(0xA000_0000), &mut |_, _| Vec::new())
            .unwrap()
            .to_bytes()
            .unwrap()
    }

    /// RCV-FRAME-001, ENC-IPV4-003: a sound frame becomes its packet; one whose IPv4 header
    /// checksum is wrong (which the edge once let through) or whose ICRC is wrong becomes
    /// none, naming the requirement; an RC opcode is unsupported (RCV-OPC-001).
    #[test]
    fn rcv_frame_001_only_sound_frames_become_packets() {
        let good = write_frame();
        let (p, ev) = Packet::from_wire(&decode(&good)).expect("a sound write");
        assert_eq!((p.psn(), ev), (Psn::new(3), Ev::new(0xA000_0000)));
        let mut bad = good.clone();
        bad[14 + 10] ^= 0x5A;
        assert_eq!(Packet::from_wire(&decode(&bad)), Err(Unreceivable::Discarded("ENC-IPV4-003")));
        let mut bad = good.clone();
        *bad.last_mut().unwrap() ^= 1;
        let e = Packet::from_wire(&decode(&bad)).unwrap_err();
        assert_eq!(e.requirement(), "ICRC-VERIFY-001");
        let mut rc = decode(&good).to_repr().unwrap();
        rc.bth.opcode = Opcode(0x0A);
        rc.bth.ts = false;
        rc.ext = Extensions { reth: rc.ext.reth, ..Extensions::default() };
        rc.finalize().unwrap();
        let e = Packet::from_wire(&decode(&rc.to_bytes().unwrap())).unwrap_err();
        assert!(matches!(e, Unreceivable::Unsupported(_)), "{e:?}");
        assert_eq!(e.requirement(), "RCV-OPC-001");
    }
}
