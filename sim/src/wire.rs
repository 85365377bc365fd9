//! Bytes on the wire: how long a packet occupies a link.
//!
//! A packet of the model is a set of header `Repr`s and a payload descriptor; the
//! simulator never builds its bytes. What a link needs is the number of byte times the
//! packet takes, which [`wire_bytes`] computes from the header stack:
//!
//! | part | bytes |
//! |---|---|
//! | Ethernet preamble + start delimiter (8) and inter-frame gap (12) | 20 |
//! | Ethernet header | 14 |
//! | IPv4 / IPv6 header | 20 / 40 |
//! | UDP header | 8 |
//! | BTH | 12 |
//! | extension headers of the opcode | METH 4, TSETH 4 (if present), RETH 16, ImmDt 4, SETH 28 + CC_STATE 8, NETH 20, PETH 16, AETH 4 |
//! | payload + pad to a multiple of 4 | |
//! | ICRC | 4 |
//! | Ethernet FCS | 4 |
//!
//! A frame shorter than Ethernet's 64-byte minimum (header to FCS) is padded to it. No
//! VLAN tag is counted.

use openrdma_codec::icrc::ICRC_LEN;
use openrdma_codec::wire::{
    AETH_LEN, BTH_LEN, CC_STATE_LEN, EETH_LEN, ERTH_LEN, ETHERNET_HEADER_LEN, IMMDT_LEN,
    IPV4_HEADER_LEN, IPV6_HEADER_LEN, METH_LEN, NETH_LEN, PETH_LEN, RETH_LEN, SETH_LEN, TSETH_LEN,
    UDP_HEADER_LEN,
};
use openrdma_sm::Packet;

/// Ethernet preamble, start-of-frame delimiter and the minimum inter-frame gap: byte times
/// a link spends on every frame besides the frame itself.
pub const ETHERNET_OVERHEAD: u32 = 20;
/// Ethernet frame check sequence.
pub const FCS_LEN: u32 = 4;
/// Smallest Ethernet frame, from the destination address to the FCS.
pub const MIN_FRAME: u32 = 64;

/// Byte times of a frame carrying `ext` bytes of extension headers after the BTH and
/// `payload` bytes of payload.
pub fn frame_wire_bytes(ext: u32, payload: u32, ipv6: bool) -> u32 {
    let ip = if ipv6 { IPV6_HEADER_LEN } else { IPV4_HEADER_LEN } as u32;
    let pad = (4 - payload % 4) % 4;
    let frame = ETHERNET_HEADER_LEN as u32
        + ip
        + UDP_HEADER_LEN as u32
        + BTH_LEN as u32
        + ext
        + payload.saturating_add(pad)
        + ICRC_LEN as u32
        + FCS_LEN;
    ETHERNET_OVERHEAD + frame.max(MIN_FRAME)
}

/// Extension-header bytes of a write packet.
pub fn write_ext_bytes(tseth: bool, immdt: bool) -> u32 {
    (METH_LEN + RETH_LEN) as u32
        + if tseth { TSETH_LEN as u32 } else { 0 }
        + if immdt { IMMDT_LEN as u32 } else { 0 }
}

/// Extension-header bytes of `packet`.
pub fn ext_bytes(packet: &Packet) -> u32 {
    match packet {
        Packet::Write(w) => write_ext_bytes(w.tseth.is_some(), w.immdt.is_some()),
        Packet::Sack { .. } => (SETH_LEN + CC_STATE_LEN) as u32,
        Packet::Nack { .. } => NETH_LEN as u32,
        Packet::Probe { .. } => PETH_LEN as u32,
        Packet::Ack { .. } => AETH_LEN as u32,
        Packet::EndpointRequest { .. } => ERTH_LEN as u32,
        Packet::EndpointResponse { .. } => EETH_LEN as u32,
    }
}

/// Byte times `packet` occupies on a link (see the module documentation for the stack).
pub fn wire_bytes(packet: &Packet, ipv6: bool) -> u32 {
    let payload = match packet {
        Packet::Write(w) => w.payload.len(),
        _ => 0,
    };
    frame_wire_bytes(ext_bytes(packet), payload, ipv6)
}

/// Payload bytes and wire bytes of one `len`-byte Write message segmented at `pmtu`.
pub fn message_wire_bytes(len: u32, pmtu: u32, tseth: bool, ipv6: bool) -> (u64, u64) {
    let npkts = len.div_ceil(pmtu).max(1);
    let ext = write_ext_bytes(tseth, false);
    let full = u64::from(frame_wire_bytes(ext, pmtu, ipv6));
    let last_len = len - (npkts - 1) * pmtu;
    let wire = full * u64::from(npkts - 1) + u64::from(frame_wire_bytes(ext, last_len, ipv6));
    (u64::from(len), wire)
}

#[cfg(test)]
mod tests {
    use super::*;
    use openrdma_codec::{
        AethRepr, BthRepr, CcStateRepr, MethRepr, NethRepr, Opcode, PethRepr, Qpn, RethRepr,
        SethRepr, TsethRepr,
    };
    use openrdma_sm::{Payload, WritePacket};

    fn write(len: u32, ts: bool, imm: bool) -> Packet {
        Packet::Write(WritePacket {
            bth: BthRepr::new(Opcode::MRC_WRITE_ONLY, Qpn::new(1), openrdma_codec::Psn::ZERO),
            meth: MethRepr::default(),
            tseth: ts.then(TsethRepr::default),
            reth: RethRepr::default(),
            immdt: imm.then(openrdma_codec::ImmDtRepr::default),
            payload: Payload::Host { addr: 0, len },
        })
    }

    #[test]
    fn full_write_packet_ipv4_and_ipv6() {
        // 20 + 14 + 20 + 8 + 12 + METH 4 + TSETH 4 + RETH 16 + 4096 + ICRC 4 + FCS 4.
        assert_eq!(wire_bytes(&write(4096, true, false), false), 4202);
        assert_eq!(wire_bytes(&write(4096, true, false), true), 4222);
        assert_eq!(wire_bytes(&write(4096, false, false), false), 4198);
        assert_eq!(wire_bytes(&write(4096, false, true), false), 4202);
    }

    #[test]
    fn payload_is_padded_to_four_bytes() {
        let base = wire_bytes(&write(1000, true, false), false);
        assert_eq!(wire_bytes(&write(1001, true, false), false), base + 4);
        assert_eq!(wire_bytes(&write(1003, true, false), false), base + 4);
        assert_eq!(wire_bytes(&write(1004, true, false), false), base + 4);
    }

    #[test]
    fn control_packets() {
        let bth = BthRepr::new(Opcode::MRC_SACK, Qpn::new(1), openrdma_codec::Psn::ZERO);
        let sack =
            Packet::Sack { bth, seth: SethRepr::default(), cc_state: CcStateRepr::default() };
        // 20 + 14 + 20 + 8 + 12 + 28 + 8 + 4 + 4.
        assert_eq!(wire_bytes(&sack, false), 118);
        assert_eq!(wire_bytes(&sack, true), 138);
        let nack = Packet::Nack { bth, neth: NethRepr::default() };
        assert_eq!(wire_bytes(&nack, false), 20 + 14 + 20 + 8 + 12 + 20 + 8);
        let probe = Packet::Probe { bth, peth: PethRepr::default() };
        assert_eq!(wire_bytes(&probe, false), 20 + 14 + 20 + 8 + 12 + 16 + 8);
        // ACK: the frame is 66 bytes, above Ethernet's minimum of 64.
        let ack = Packet::Ack { bth, aeth: AethRepr::default() };
        assert_eq!(wire_bytes(&ack, false), 86);
    }

    #[test]
    fn short_frames_are_padded_to_the_ethernet_minimum() {
        // A BTH-only frame is 14 + 20 + 8 + 12 + 4 + 4 = 62 bytes: padded to 64.
        assert_eq!(frame_wire_bytes(0, 0, false), ETHERNET_OVERHEAD + MIN_FRAME);
        // Over IPv6 it is 82 bytes: no padding.
        assert_eq!(frame_wire_bytes(0, 0, true), 20 + 82);
    }

    #[test]
    fn message_wire_bytes_segments_at_the_pmtu() {
        let (p, w) = message_wire_bytes(65536, 4096, true, false);
        assert_eq!(p, 65536);
        assert_eq!(w, 16 * 4202);
        let (p, w) = message_wire_bytes(5000, 4096, true, false);
        assert_eq!(p, 5000);
        assert_eq!(w, 4202 + u64::from(frame_wire_bytes(24, 904, false)));
    }
}
