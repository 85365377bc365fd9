//! Building a frame: [`FrameRepr`], its lengths, checksums and ICRC.

use alloc::vec::Vec;

use super::*;

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
