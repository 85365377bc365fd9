//! Helpers shared by the integration tests: frame builders, capture writers, paths.

#![allow(dead_code, unreachable_pub)] // each test binary uses a different subset

use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use openrdma_codec::frame::{Extensions, FrameRepr, IpRepr};
use openrdma_codec::{
    BthRepr, EtherType, EthernetAddress, EthernetRepr, Ipv4Repr, Ipv6Repr, Opcode, Psn, Qpn,
    UdpRepr,
};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};
use pcap_file::{DataLink, Endianness, TsResolution};

/// Requester MAC address.
pub const MAC_A: EthernetAddress = EthernetAddress([0x02, 0x00, 0x00, 0x00, 0x00, 0x01]);
/// Responder MAC address.
pub const MAC_B: EthernetAddress = EthernetAddress([0x02, 0x00, 0x00, 0x00, 0x00, 0x02]);
/// First link type reserved for private use (LINKTYPE_USER0); scenarios put host events there.
pub const LINKTYPE_USER0: u32 = 147;

/// A path relative to the repository root.
pub fn repo_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// A fresh path in the test scratch directory.
pub fn scratch(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Runs the `openrdma` binary.
pub fn openrdma(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_openrdma")).args(args).output().expect("run openrdma")
}

/// An IPv4 header from A (192.0.2.1) to B (192.0.2.2), or back.
pub fn ipv4(forward: bool) -> IpRepr {
    let (a, b) = (Ipv4Addr::new(192, 0, 2, 1), Ipv4Addr::new(192, 0, 2, 2));
    let (src, dst) = if forward { (a, b) } else { (b, a) };
    IpRepr::V4(Ipv4Repr::new(src, dst, 17))
}

/// An IPv6 header from A (fd00::a) to B (fd00::b), or back.
pub fn ipv6(forward: bool) -> IpRepr {
    let a: Ipv6Addr = "fd00::a".parse().unwrap();
    let b: Ipv6Addr = "fd00::b".parse().unwrap();
    let (src, dst) = if forward { (a, b) } else { (b, a) };
    IpRepr::V6(Ipv6Repr::new(src, dst, 17))
}

/// A RoCEv2 frame; call [`finish`] to make it consistent and get its bytes.
pub fn roce(ip: IpRepr, bth: BthRepr, ext: Extensions, payload: &[u8]) -> FrameRepr {
    let forward = match &ip {
        IpRepr::V4(v4) => v4.src.octets()[3] == 1,
        IpRepr::V6(v6) => v6.src.octets()[15] == 0xa,
    };
    let (src, dst) = if forward { (MAC_A, MAC_B) } else { (MAC_B, MAC_A) };
    let ethertype = match ip {
        IpRepr::V4(_) => EtherType::IPV4,
        IpRepr::V6(_) => EtherType::IPV6,
    };
    FrameRepr {
        eth: EthernetRepr { dst, src, ethertype },
        vlans: Vec::new(),
        ip,
        udp: UdpRepr::rocev2(0xC000),
        bth,
        ext,
        payload: payload.to_vec(),
        pad: [0; 3],
        icrc: None,
        eth_padding: Vec::new(),
    }
}

/// A BTH with the given opcode, destination QP and PSN.
pub fn bth(opcode: Opcode, qp: u32, psn: u32) -> BthRepr {
    BthRepr::new(opcode, Qpn::new(qp), Psn::new(psn))
}

/// Finalizes a frame (lengths, pad, checksums, ICRC) and emits it.
pub fn finish(mut f: FrameRepr) -> Vec<u8> {
    f.finalize().expect("finalize");
    f.to_bytes().expect("emit")
}

/// `n` bytes of a recognizable pattern.
pub fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| seed.wrapping_add(i as u8)).collect()
}

/// A record to write: capture time (ns since the epoch), interface, comment, bytes.
#[derive(Debug, Clone)]
pub struct Packet {
    pub timestamp_ns: u64,
    pub interface: u32,
    pub comment: &'static str,
    pub data: Vec<u8>,
}

/// Writes Ethernet records as a pcap file.
pub fn write_pcap(
    packets: &[Packet],
    endianness: Endianness,
    ts_resolution: TsResolution,
) -> Vec<u8> {
    let header = PcapHeader {
        endianness,
        ts_resolution,
        snaplen: 65535,
        datalink: DataLink::ETHERNET,
        ..PcapHeader::default()
    };
    let mut w = PcapWriter::with_header(Vec::new(), header).unwrap();
    for p in packets {
        assert_eq!(p.interface, 0, "a pcap file has one link type");
        let ts = Duration::from_nanos(p.timestamp_ns);
        w.write_packet(&PcapPacket::new(ts, p.data.len() as u32, &p.data)).unwrap();
    }
    w.into_writer()
}

/// Writes a little-endian pcapng file with an Ethernet interface (0) named `roce0` and a
/// host-event interface (1, LINKTYPE_USER0) named `host`, both with nanosecond timestamps.
pub fn write_pcapng(packets: &[Packet]) -> Vec<u8> {
    let shb = SectionHeaderBlock {
        endianness: Endianness::Little,
        options: vec![SectionHeaderOption::UserApplication("openrdma tests".into())],
        ..SectionHeaderBlock::default()
    };
    let mut w = PcapNgWriter::with_section_header(Vec::new(), shb).unwrap();
    for (name, link) in [("roce0", DataLink::ETHERNET), ("host", DataLink::from(LINKTYPE_USER0))] {
        w.write_pcapng_block(InterfaceDescriptionBlock {
            linktype: link,
            snaplen: 65535,
            options: vec![
                InterfaceDescriptionOption::IfName(name.into()),
                InterfaceDescriptionOption::IfTsResol(9),
            ],
        })
        .unwrap();
    }
    for p in packets {
        let options = if p.comment.is_empty() {
            vec![]
        } else {
            vec![EnhancedPacketOption::Comment(p.comment.into())]
        };
        w.write_pcapng_block(EnhancedPacketBlock {
            interface_id: p.interface,
            timestamp: Duration::from_nanos(p.timestamp_ns),
            original_len: p.data.len() as u32,
            data: p.data.as_slice().into(),
            options,
        })
        .unwrap();
    }
    w.into_inner()
}

/// The shared hardware vectors (`traces/vectors/icrc.txt`): name and frame bytes.
pub fn vectors() -> Vec<(String, Vec<u8>)> {
    let text = std::fs::read_to_string(repo_path("traces/vectors/icrc.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, hex) = l.split_once(' ').unwrap();
            (name.to_string(), unhex(hex.trim()))
        })
        .collect()
}

/// Bytes from a hex string.
pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}
