//! Frame builders and random generators shared by the integration tests.
//!
//! Everything here builds frames through the public API: Reprs assembled by hand for the
//! typical packets, and, for the property tests, Reprs parsed from random bytes (which gives
//! every field a random value inside its bit width without restating the widths here).

#![allow(dead_code)]

use core::net::{Ipv4Addr, Ipv6Addr};

use openrdma_codec::frame::{ETH_HEADER_LEN, Extensions, FrameRepr, IpRepr, header_stack};
use openrdma_codec::wire::*;
use openrdma_codec::*;
use rand_chacha::ChaCha8Rng;
use rand_core::Rng;

/// Every extension header, in the order of [`Extensions`].
pub(crate) const ALL_EXT: [ExtHeader; 18] = ExtHeader::ALL;

/// The error-reporting [`Header`] of an extension header.
pub(crate) fn header_of(h: ExtHeader) -> Header {
    h.header()
}

/// Parses header `h` from `b` (at least `h.wire_len()` bytes) into its slot of `ext`.
pub(crate) fn put_ext(ext: &mut Extensions, h: ExtHeader, b: &[u8]) {
    match h {
        ExtHeader::Meth => ext.meth = Some(MethRepr::parse(b).unwrap()),
        ExtHeader::Tseth => ext.tseth = Some(TsethRepr::parse(b).unwrap()),
        ExtHeader::Reth => ext.reth = Some(RethRepr::parse(b).unwrap()),
        ExtHeader::ImmDt => ext.immdt = Some(ImmDtRepr::parse(b).unwrap()),
        ExtHeader::Aeth => ext.aeth = Some(AethRepr::parse(b).unwrap()),
        ExtHeader::Seth => ext.seth = Some(SethRepr::parse(b).unwrap()),
        ExtHeader::CcState => ext.cc_state = Some(CcStateRepr::parse(b).unwrap()),
        ExtHeader::Neth => ext.neth = Some(NethRepr::parse(b).unwrap()),
        ExtHeader::Peth => ext.peth = Some(PethRepr::parse(b).unwrap()),
        ExtHeader::Erth => ext.erth = Some(ErthRepr::parse(b).unwrap()),
        ExtHeader::Eeth => ext.eeth = Some(EethRepr::parse(b).unwrap()),
        ExtHeader::Deth => ext.deth = Some(DethRepr::parse(b).unwrap()),
        ExtHeader::Rdeth => ext.rdeth = Some(RdethRepr::parse(b).unwrap()),
        ExtHeader::Xrceth => ext.xrceth = Some(XrcethRepr::parse(b).unwrap()),
        ExtHeader::Ieth => ext.ieth = Some(IethRepr::parse(b).unwrap()),
        ExtHeader::AtomicEth => ext.atomiceth = Some(AtomicEthRepr::parse(b).unwrap()),
        ExtHeader::AtomicAckEth => ext.atomicacketh = Some(AtomicAckEthRepr::parse(b).unwrap()),
        ExtHeader::Cnp => ext.cnp = Some(CnpRepr::parse(b).unwrap()),
    }
}

/// Removes header `h` from `ext`.
pub(crate) fn clear_ext(ext: &mut Extensions, h: ExtHeader) {
    match h {
        ExtHeader::Meth => ext.meth = None,
        ExtHeader::Tseth => ext.tseth = None,
        ExtHeader::Reth => ext.reth = None,
        ExtHeader::ImmDt => ext.immdt = None,
        ExtHeader::Aeth => ext.aeth = None,
        ExtHeader::Seth => ext.seth = None,
        ExtHeader::CcState => ext.cc_state = None,
        ExtHeader::Neth => ext.neth = None,
        ExtHeader::Peth => ext.peth = None,
        ExtHeader::Erth => ext.erth = None,
        ExtHeader::Eeth => ext.eeth = None,
        ExtHeader::Deth => ext.deth = None,
        ExtHeader::Rdeth => ext.rdeth = None,
        ExtHeader::Xrceth => ext.xrceth = None,
        ExtHeader::Ieth => ext.ieth = None,
        ExtHeader::AtomicEth => ext.atomiceth = None,
        ExtHeader::AtomicAckEth => ext.atomicacketh = None,
        ExtHeader::Cnp => ext.cnp = None,
    }
}

// ---------------------------------------------------------------------------------------
// Typical frames
// ---------------------------------------------------------------------------------------

pub(crate) const MAC_A: EthernetAddress = EthernetAddress([0x02, 0, 0, 0, 0, 0x01]);
pub(crate) const MAC_B: EthernetAddress = EthernetAddress([0x02, 0, 0, 0, 0, 0x02]);

/// The outer encapsulation of a built frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encap {
    /// IPv4, untagged.
    V4,
    /// IPv6, untagged.
    V6,
    /// IPv4 behind one 802.1Q tag (TPID 0x8100).
    V4Dot1q,
    /// IPv6 behind one 802.1Q tag (TPID 0x8100).
    V6Dot1q,
    /// IPv4 behind one 802.1ad service tag (TPID 0x88A8).
    V4Stag,
    /// IPv6 behind one 802.1ad service tag (TPID 0x88A8).
    V6Stag,
    /// IPv4 with 8 bytes of options (IHL 7), untagged.
    V4Options,
}

impl Encap {
    pub(crate) const ALL: [Encap; 7] = [
        Encap::V4,
        Encap::V6,
        Encap::V4Dot1q,
        Encap::V6Dot1q,
        Encap::V4Stag,
        Encap::V6Stag,
        Encap::V4Options,
    ];

    pub(crate) fn is_v6(self) -> bool {
        matches!(self, Encap::V6 | Encap::V6Dot1q | Encap::V6Stag)
    }

    pub(crate) fn tpid(self) -> Option<EtherType> {
        match self {
            Encap::V4Dot1q | Encap::V6Dot1q => Some(EtherType::VLAN),
            Encap::V4Stag | Encap::V6Stag => Some(EtherType::QINQ),
            _ => None,
        }
    }

    /// Offset of the IP header.
    pub(crate) fn ip_at(self) -> usize {
        ETH_HEADER_LEN + if self.tpid().is_some() { 4 } else { 0 }
    }
}

pub(crate) fn ipv4() -> Ipv4Repr {
    Ipv4Repr::new(Ipv4Addr::new(192, 0, 2, 1), Ipv4Addr::new(192, 0, 2, 2), IP_PROTO_UDP)
}

pub(crate) fn ipv6() -> Ipv6Repr {
    let src = Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 1);
    let dst = Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2);
    Ipv6Repr::new(src, dst, IP_PROTO_UDP)
}

/// A finalized frame: `bth` and `ext` as given (the extension headers must be the opcode's
/// stack), with the outer headers of `encap`, UDP source port 0xC000 and, over IPv6, flow
/// label 0x1234.
pub(crate) fn build(encap: Encap, bth: BthRepr, ext: Extensions, payload: &[u8]) -> FrameRepr {
    // An MRC write is ECN-capable, ECT(0), as a sender should make it (ENC-ECN-001).
    let ect = if bth.opcode.is_mrc_write() { 0b10 } else { 0 };
    let (ip, ip_type) = if encap.is_v6() {
        let mut v6 = ipv6();
        v6.flow_label = 0x1234;
        v6.traffic_class |= ect;
        (IpRepr::V6(v6), EtherType::IPV6)
    } else {
        let mut v4 = ipv4();
        v4.ecn = ect;
        if encap == Encap::V4Options {
            // Two words of options: NOP padding around an (unknown) option kind 0x88.
            v4.set_options(vec![0x01, 0x01, 0x88, 0x06, 0xAA, 0xBB, 0xCC, 0xDD]).unwrap();
        }
        (IpRepr::V4(v4), EtherType::IPV4)
    };
    let (ethertype, vlan) = match encap.tpid() {
        Some(tpid) => (tpid, Some(VlanRepr { pcp: 3, dei: false, vid: 100, ethertype: ip_type })),
        None => (ip_type, None),
    };
    let mut f = FrameRepr {
        eth: EthernetRepr { dst: MAC_B, src: MAC_A, ethertype },
        vlans: vlan.into_iter().collect(),
        ip,
        udp: UdpRepr::rocev2(0xC000),
        bth,
        ext,
        payload: payload.to_vec(),
        pad: [0; 3],
        icrc: None,
        eth_padding: Vec::new(),
    };
    f.finalize().unwrap();
    f
}

/// Recomputes the UDP checksum of `f` after a change to its fields: over IPv6 the checksum
/// `finalize` computed no longer matches (ENC-UDP-005); over IPv4 it is 0, which stays right.
pub(crate) fn refresh_udp_checksum(f: &mut FrameRepr) {
    let IpRepr::V6(v6) = &f.ip else { return };
    let (src, dst) = (v6.src, v6.dst);
    f.udp.checksum = 0;
    let bytes = f.to_bytes().unwrap();
    let udp_at = f.buffer_len() - f.eth_padding.len() - usize::from(f.udp.length);
    let datagram = &bytes[udp_at..udp_at + usize::from(f.udp.length)];
    f.udp.checksum = UdpRepr::compute_checksum_v6(src, dst, datagram);
}

/// A payload of `n` bytes, 0, 1, 2, ... modulo 251.
pub(crate) fn payload(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8).collect()
}

fn bth(op: Opcode, qp: u32, psn: u32) -> BthRepr {
    BthRepr::new(op, Qpn::new(qp), Psn::new(psn))
}

/// The worked example SETH of the specification: PSNs 5 and 8 lost, triggered by PSN 11.
pub(crate) fn worked_example_seth() -> SethRepr {
    SethRepr {
        ack_psn_offset: 7,
        entropy: Ev::new(0x1234_ABCD),
        cack_psn: Psn::new(4),
        mpr: 2,
        sack_offset: 1,
        sack_bitmap: 0x76,
        ..SethRepr::default()
    }
}

/// A named typical packet: BTH, extension headers and payload, before encapsulation.
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    pub(crate) name: &'static str,
    pub(crate) bth: BthRepr,
    pub(crate) ext: Extensions,
    pub(crate) payload: Vec<u8>,
}

/// The typical packets: MRC writes (with and without TSETH), the MRC reliability and
/// endpoint packets, RC send/write/read/atomic, UD send and CNP. All are well-formed.
pub(crate) fn samples() -> Vec<Sample> {
    let meth = MethRepr::new(Rqmsn::new(3), Msn::new(17));
    let reth = RethRepr::new(0x7f00_0000_1000, Rkey::new(0xBEEF), 4096);
    let mut out = Vec::new();
    let mut add = |name, bth: BthRepr, ext: Extensions, payload: Vec<u8>| {
        out.push(Sample { name, bth, ext, payload });
    };

    let mut b = bth(Opcode::MRC_WRITE_FIRST, 0x10, 100);
    b.ts = true;
    let ext = Extensions {
        meth: Some(meth),
        tseth: Some(TsethRepr::new(0x4321)),
        reth: Some(reth),
        ..Default::default()
    };
    add("mrc_write_first_ts", b, ext, payload(256));

    let b = bth(Opcode::MRC_WRITE_MIDDLE, 0x10, 101);
    let ext = Extensions { meth: Some(meth), reth: Some(reth), ..Default::default() };
    add("mrc_write_middle", b, ext, payload(256));

    let mut b = bth(Opcode::MRC_WRITE_LAST_IMM, 0x10, 102);
    b.ack_req = true;
    b.solicited = true;
    let ext = Extensions {
        meth: Some(meth),
        reth: Some(RethRepr::new(0x7f00_0000_1100, Rkey::new(0xBEEF), 13)),
        immdt: Some(ImmDtRepr::new(0xDEAD_BEEF)),
        ..Default::default()
    };
    add("mrc_write_last_imm", b, ext, payload(13));

    let mut b = bth(Opcode::MRC_WRITE_ONLY_IMM, 0x10, 103);
    b.ts = true;
    b.rtx = true;
    let ext = Extensions {
        meth: Some(meth),
        tseth: Some(TsethRepr::new(7)),
        reth: Some(RethRepr::new(0x1000, Rkey::new(1), 0)),
        immdt: Some(ImmDtRepr::new(1)),
        ..Default::default()
    };
    add("mrc_write_only_imm_ts_rtx_empty", b, ext, Vec::new());

    let ext = Extensions {
        seth: Some(worked_example_seth()),
        cc_state: Some(CcStateRepr {
            tx_timestamp: 0x4321,
            ooo_count: 5,
            rcv_cwnd_pen: 3,
            rcvd_bytes: 0x10,
            ..CcStateRepr::default()
        }),
        ..Default::default()
    };
    add("mrc_sack", bth(Opcode::MRC_SACK, 0x20, 4), ext, Vec::new());

    let ext = Extensions {
        neth: Some(NethRepr::new(NackReason::PSN_OOR_WINDOW, Psn::new(9), Ev::new(0x1234_ABCD))),
        ..Default::default()
    };
    add("mrc_nack", bth(Opcode::MRC_NACK, 0x20, 9), ext, Vec::new());

    let ext = Extensions { peth: Some(PethRepr::new(0x55, 0x4321)), ..Default::default() };
    add("mrc_probe", bth(Opcode::MRC_PROBE, 0x20, 200), ext, Vec::new());

    let ext = Extensions {
        aeth: Some(AethRepr::new(AethRepr::ACK_UNLIMITED_CREDIT, AethMsn::new(17))),
        ..Default::default()
    };
    add("mrc_ack", bth(Opcode::MRC_ACKNOWLEDGE, 0x20, 103), ext, Vec::new());

    let ext = Extensions {
        erth: Some(ErthRepr::new(EndpointOp::PORT_STATUS_UPDATE, 0b1011, 77)),
        ..Default::default()
    };
    add("mrc_endpoint_request", bth(Opcode::MRC_ENDPOINT_REQUEST, 2, 0), ext, Vec::new());

    let ext = Extensions {
        eeth: Some(EethRepr::new(EndpointOp::PORT_STATUS_UPDATE, 0b1111, 77)),
        ..Default::default()
    };
    add("mrc_endpoint_response", bth(Opcode::MRC_ENDPOINT_RESPONSE, 2, 0), ext, Vec::new());

    let mut b = bth(Opcode::RC_SEND_ONLY, 0x11, 0x12_3456);
    b.ack_req = true;
    add("rc_send_only", b, Extensions::default(), b"hello roce v2!!!".to_vec());

    let ext = Extensions {
        reth: Some(RethRepr::new(0x2000, Rkey::new(0x77), 3000)),
        ..Default::default()
    };
    add("rc_write_first", bth(Opcode::RC_WRITE_FIRST, 0x11, 1), ext, payload(1024));

    let ext =
        Extensions { reth: Some(RethRepr::new(0x2000, Rkey::new(0x77), 64)), ..Default::default() };
    add("rc_read_request", bth(Opcode::RC_READ_REQUEST, 0x11, 2), ext, Vec::new());

    let ext = Extensions { aeth: Some(AethRepr::new(0, AethMsn::new(4))), ..Default::default() };
    add("rc_read_response_first", bth(Opcode::RC_READ_RESPONSE_FIRST, 0x11, 2), ext, payload(7));

    let ext = Extensions {
        atomiceth: Some(AtomicEthRepr {
            va: 0x3000,
            rkey: Rkey::new(0x99),
            swap_add: 5,
            compare: 4,
        }),
        ..Default::default()
    };
    add("rc_compare_swap", bth(Opcode::RC_COMPARE_SWAP, 0x11, 3), ext, Vec::new());

    let ext = Extensions {
        aeth: Some(AethRepr::new(0, AethMsn::new(5))),
        atomicacketh: Some(AtomicAckEthRepr { orig: 4 }),
        ..Default::default()
    };
    add("rc_atomic_ack", bth(Opcode::RC_ATOMIC_ACKNOWLEDGE, 0x11, 3), ext, Vec::new());

    let ext = Extensions { ieth: Some(IethRepr { rkey: Rkey::new(0x1234) }), ..Default::default() };
    add("rc_send_last_inv", bth(Opcode::RC_SEND_LAST_INV, 0x11, 4), ext, payload(5));

    let ext = Extensions {
        deth: Some(DethRepr::new(0x8001_0000, Qpn::new(0x42))),
        immdt: Some(ImmDtRepr::new(0xCAFE)),
        ..Default::default()
    };
    add("ud_send_only_imm", bth(Opcode::UD_SEND_ONLY_IMM, 1, 0), ext, payload(30));

    let mut b = bth(Opcode::CNP, 0x11, 0);
    b.becn = true;
    let ext = Extensions { cnp: Some(CnpRepr::default()), ..Default::default() };
    add("cnp", b, ext, Vec::new());

    out
}

/// The typical frame `name` over `encap`.
pub(crate) fn sample(name: &str, encap: Encap) -> FrameRepr {
    let s = samples().into_iter().find(|s| s.name == name).unwrap();
    build(encap, s.bth, s.ext, &s.payload)
}

// ---------------------------------------------------------------------------------------
// Random frames
// ---------------------------------------------------------------------------------------

pub(crate) fn bytes(rng: &mut ChaCha8Rng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// A uniform value in `0..n` (n > 0); the bias of the modulo does not matter here.
pub(crate) fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

pub(crate) fn chance(rng: &mut ChaCha8Rng, one_in: u32) -> bool {
    rng.next_u32() % one_in == 0
}

/// A random IPv4 header carrying UDP, not a fragment, with 0 to 10 words of options.
/// `total_len` and `checksum` are random: `finalize` sets them.
pub(crate) fn random_ipv4(rng: &mut ChaCha8Rng) -> Ipv4Repr {
    let words = if chance(rng, 3) { below(rng, 11) } else { 0 };
    let mut b = bytes(rng, 20 + 4 * words);
    b[0] = 0x40 | (5 + words) as u8;
    let mut r = Ipv4Repr::parse(&b).unwrap();
    r.protocol = IP_PROTO_UDP;
    r.more_frags = false;
    r.frag_offset = 0;
    r
}

/// A random IPv6 header carrying UDP; `payload_len` is random.
pub(crate) fn random_ipv6(rng: &mut ChaCha8Rng) -> Ipv6Repr {
    let mut b = bytes(rng, 40);
    b[0] = 0x60 | (b[0] & 0x0F);
    let mut r = Ipv6Repr::parse(&b).unwrap();
    r.next_header = IP_PROTO_UDP;
    r
}

/// A random opcode: usually one of the table, sometimes any byte.
pub(crate) fn random_opcode(rng: &mut ChaCha8Rng) -> Opcode {
    if chance(rng, 5) {
        Opcode(rng.next_u32() as u8)
    } else {
        Opcode::ALL[below(rng, Opcode::ALL.len())]
    }
}

/// Fills `ext` with exactly the headers of `bth`'s stack, keeping those already present
/// and parsing the missing ones from random bytes.
pub(crate) fn fit_ext(rng: &mut ChaCha8Rng, bth: &BthRepr, ext: &mut Extensions) {
    let stack: Vec<ExtHeader> = header_stack(bth).collect();
    for h in ALL_EXT {
        if !stack.contains(&h) {
            clear_ext(ext, h);
        } else if !ext.has(h) {
            let b = bytes(rng, h.wire_len());
            put_ext(ext, h, &b);
        }
    }
}

/// A random payload length: mostly short, sometimes up to 4 KiB.
pub(crate) fn random_payload_len(rng: &mut ChaCha8Rng) -> usize {
    match below(rng, 8) {
        0 => 0,
        1 => below(rng, 4097),
        _ => below(rng, 80),
    }
}

/// A random, finalized RoCEv2 frame: any opcode (known or not) with its header stack of
/// random field values, IPv4 (with random options) or IPv6, zero or one tag, and sometimes
/// Ethernet padding.
pub(crate) fn random_frame(rng: &mut ChaCha8Rng, v6: Option<bool>) -> FrameRepr {
    let v6 = v6.unwrap_or_else(|| chance(rng, 2));
    let (ip, ip_type) = if v6 {
        (IpRepr::V6(random_ipv6(rng)), EtherType::IPV6)
    } else {
        (IpRepr::V4(random_ipv4(rng)), EtherType::IPV4)
    };
    let mut eth = EthernetRepr::parse(&bytes(rng, 14)).unwrap();
    let vlan = match below(rng, 4) {
        0 => {
            eth.ethertype = EtherType::VLAN;
            Some(VlanRepr::parse(&bytes(rng, 4)).unwrap())
        }
        1 => {
            eth.ethertype = EtherType::QINQ;
            Some(VlanRepr::parse(&bytes(rng, 4)).unwrap())
        }
        _ => {
            eth.ethertype = ip_type;
            None
        }
    };
    let vlan = vlan.map(|v| VlanRepr { ethertype: ip_type, ..v });
    let mut udp = UdpRepr::parse(&bytes(rng, 8)).unwrap();
    udp.dst_port = ROCEV2_PORT;
    let mut bth = BthRepr::parse(&bytes(rng, 12)).unwrap();
    bth.opcode = random_opcode(rng);
    let mut ext = Extensions::default();
    fit_ext(rng, &bth, &mut ext);
    let n = random_payload_len(rng);
    let payload = bytes(rng, n);
    let eth_padding = if chance(rng, 4) {
        let n = below(rng, 24);
        bytes(rng, n)
    } else {
        Vec::new()
    };
    let mut f = FrameRepr {
        eth,
        vlans: vlan.into_iter().collect(),
        ip,
        udp,
        bth,
        ext,
        payload,
        pad: [0; 3],
        icrc: None,
        eth_padding,
    };
    f.finalize().unwrap();
    f
}
