//! How a captured frame is shown: one JSON object (a line of JSON Lines), or a readable block
//! of text.
//!
//! The JSON object of a decoded frame holds, in this order:
//!
//! | key | value |
//! |---|---|
//! | `frame` | 1-based record number in the file |
//! | `len` | captured length in bytes (without an FCS the capture declares) |
//! | `orig_len` | length on the wire, only when the capture cut the frame shorter |
//! | `timestamp_ns` | capture time, nanoseconds since the Unix epoch, when the file has one |
//! | `kind` | `roce`, `other`, `truncated`, `malformed` or `skipped` (`DEC-KIND-001`) |
//! | `error` | `null`, or where decoding stopped (header, field and byte offset) |
//! | `icrc` | `"ok"`, `"bad"`, `"absent"` (not RoCEv2, or no room for a trailer) or `"not_checkable"` (cut by the capture) |
//! | `icrc_found`, `icrc_computed` | the trailer and the right value, only when `icrc` is `"bad"` |
//! | `sll` or `sll2`, `eth`, `vlan` (the outer tag) and `vlans` (every tag, outer first) of a tagged frame, `ipv4`/`ipv6`, `udp`, `bth`, then the extension headers in wire order | one object per header decoded, keyed by the field names of its `Repr`; the keys and shapes of the adapter protocol's `fields` |
//! | `payload_len`, `pad_len` | only when the decoder reached the payload: the bytes captured |
//! | `violations` | with `--validate`, on RoCEv2 frames: `[{requirement, header, field, offset, value, rule}]` |
//!
//! A record on a link type the decoder does not read is `{frame, len, timestamp_ns, kind:
//! "skipped", link_type, skipped: "link type not decoded"}`.
//!
//! Both views are written straight from the decoded headers by one walk over their fields
//! (`Sink`), so they always show the same fields; neither goes through the other. They write
//! into an [`Out`], which stores each piece by position with fixed-size copies.

mod out;

use std::fmt::Write as _;
use std::io::{self, Write};
use std::net::{Ipv4Addr, Ipv6Addr};

use openrdma_codec::frame::{DecodedFrame, Extensions, FrameKind, IcrcStatus, IpRepr};
use openrdma_codec::{
    CookedHeader, EndpointOp, EthernetAddress, EvMark, ExtHeader, NackReason, Violation,
};

pub use self::out::Out;
use self::out::{PAD, padded};
use crate::capture::PacketRef;

/// The value of `skipped` for a record whose link type the decoder does not read.
pub const NOT_DECODED: &str = "link type not decoded";

/// One record as shown by `dissect`.
#[derive(Debug)]
pub struct FrameView<'a> {
    record: &'a PacketRef<'a>,
    decoded: Option<&'a DecodedFrame<'a>>,
    violations: Option<Vec<Violation>>,
}

/// A field's value.
#[derive(Debug, Clone, Copy)]
enum Val<'a> {
    U(u64),
    I(i64),
    B(bool),
    Mac(EthernetAddress),
    V4(Ipv4Addr),
    V6(Ipv6Addr),
    Bytes(&'a [u8]),
}

/// A field's name, and the same with the punctuation before a value in each view, padded
/// to a fixed size so that it is copied in one go.
#[derive(Debug)]
struct Key {
    name: &'static str,
    /// `,"name":`
    json: [u8; PAD],
    /// `"name":`, for the first field of an object.
    json_first: [u8; PAD],
    json_len: usize,
    /// ` name=`
    text: [u8; PAD],
    /// The width in hex digits the text view shows the field with, or -1 for decimal.
    hex: i8,
    /// Whether the field has named codepoints in some header (`reason`, `m`, `op`).
    coded: bool,
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The text view's hex width for a field, from [`HEX_FIELDS`]; reserved fields (`resv*`)
/// unpadded; -1 for decimal.
const fn hex_width(name: &str) -> i8 {
    let mut i = 0;
    while i < HEX_FIELDS.len() {
        if same(HEX_FIELDS[i].0, name) {
            return HEX_FIELDS[i].1 as i8;
        }
        i += 1;
    }
    let b = name.as_bytes();
    if b.len() >= 4 && b[0] == b'r' && b[1] == b'e' && b[2] == b's' && b[3] == b'v' {
        return 0;
    }
    -1
}

/// A field's [`Key`], a constant.
macro_rules! key {
    ($name:literal) => {{
        const JSON: &str = concat!(",\"", $name, "\":");
        const KEY: Key = Key {
            name: $name,
            json: padded(JSON),
            json_first: padded(concat!("\"", $name, "\":")),
            json_len: JSON.len(),
            text: padded(concat!(" ", $name, "=")),
            hex: hex_width($name),
            coded: same($name, "reason") || same($name, "m") || same($name, "op"),
        };
        &KEY
    }};
}

/// Appends a string literal with one fixed-size copy.
macro_rules! lit {
    ($out:expr, $s:literal) => {{
        const P: [u8; PAD] = padded($s);
        $out.pad(&P, $s.len())
    }};
}

/// A header's name, and what each view writes before its fields, padded like a [`Key`].
#[derive(Debug)]
struct Name {
    name: &'static str,
    /// `,"name":{`
    json: [u8; PAD],
    json_len: usize,
    /// Four spaces, the name, and spaces up to column 16.
    text: [u8; PAD],
    text_len: usize,
}

/// The [`Name`] of a header called `name` (at most 12 bytes).
const fn name(name: &'static str) -> Name {
    let b = name.as_bytes();
    let mut json = [0u8; PAD];
    json[0] = b',';
    json[1] = b'"';
    let mut text = [b' '; PAD];
    let mut i = 0;
    while i < b.len() {
        json[2 + i] = b[i];
        text[4 + i] = b[i];
        i += 1;
    }
    json[2 + i] = b'"';
    json[3 + i] = b':';
    json[4 + i] = b'{';
    let text_len = if b.len() > 12 { 4 + b.len() } else { 16 };
    Name { name, json, json_len: b.len() + 5, text, text_len }
}

const SLL: Name = name("sll");
const SLL2: Name = name("sll2");
const ETH: Name = name("eth");
const VLAN: Name = name("vlan");
const IPV4: Name = name("ipv4");
const IPV6: Name = name("ipv6");
const UDP: Name = name("udp");
const BTH: Name = name("bth");

/// The names of the extension headers, indexed by `ExtHeader as usize` (their order in
/// `ExtHeader::ALL`).
const EXT_NAMES: [Name; ExtHeader::ALL.len()] = {
    let mut names = [const { name("") }; ExtHeader::ALL.len()];
    let mut i = 0;
    while i < ExtHeader::ALL.len() {
        names[i] = name(ExtHeader::ALL[i].header().name());
        i += 1;
    }
    names
};

/// Receives the fields of a header, in order.
trait Sink {
    fn field(&mut self, key: &'static Key, v: Val<'_>);
}

/// One header of a decoded frame.
#[derive(Clone, Copy)]
enum Hdr<'a> {
    Cooked(&'a CookedHeader),
    Eth(&'a openrdma_codec::EthernetRepr),
    Vlan(&'a openrdma_codec::VlanRepr),
    Ip(&'a IpRepr),
    Udp(&'a openrdma_codec::UdpRepr),
    Bth(&'a openrdma_codec::BthRepr),
    Ext(ExtHeader, &'a Extensions),
}

impl Hdr<'_> {
    /// The header's name, with the punctuation each view puts before its fields.
    fn name(&self) -> &'static Name {
        match self {
            Hdr::Cooked(CookedHeader::Sll(_)) => &SLL,
            Hdr::Cooked(CookedHeader::Sll2(_)) => &SLL2,
            Hdr::Eth(_) => &ETH,
            Hdr::Vlan(_) => &VLAN,
            Hdr::Ip(IpRepr::V4(_)) => &IPV4,
            Hdr::Ip(IpRepr::V6(_)) => &IPV6,
            Hdr::Udp(_) => &UDP,
            Hdr::Bth(_) => &BTH,
            Hdr::Ext(h, _) => &EXT_NAMES[*h as usize],
        }
    }

    /// Walks the header's fields, named as in its `Repr`.
    #[inline(always)]
    fn fields(&self, s: &mut impl Sink) {
        use Val::{B, Bytes, I, Mac, U};
        match *self {
            Hdr::Cooked(CookedHeader::Sll(r)) => {
                s.field(key!("packet_type"), U(r.packet_type.into()));
                s.field(key!("arphrd_type"), U(r.arphrd_type.into()));
                s.field(key!("addr_len"), U(r.addr_len.into()));
                s.field(key!("addr"), Bytes(&r.addr));
                s.field(key!("protocol"), U(r.protocol.0.into()));
            }
            Hdr::Cooked(CookedHeader::Sll2(r)) => {
                s.field(key!("protocol"), U(r.protocol.0.into()));
                s.field(key!("resv"), U(r.resv.into()));
                s.field(key!("if_index"), U(r.if_index.into()));
                s.field(key!("arphrd_type"), U(r.arphrd_type.into()));
                s.field(key!("packet_type"), U(r.packet_type.into()));
                s.field(key!("addr_len"), U(r.addr_len.into()));
                s.field(key!("addr"), Bytes(&r.addr));
            }
            Hdr::Eth(r) => {
                s.field(key!("dst"), Mac(r.dst));
                s.field(key!("src"), Mac(r.src));
                s.field(key!("ethertype"), U(r.ethertype.0.into()));
            }
            Hdr::Vlan(r) => {
                s.field(key!("pcp"), U(r.pcp.into()));
                s.field(key!("dei"), B(r.dei));
                s.field(key!("vid"), U(r.vid.into()));
                s.field(key!("ethertype"), U(r.ethertype.0.into()));
            }
            Hdr::Ip(IpRepr::V4(r)) => {
                s.field(key!("version"), U(r.version.into()));
                s.field(key!("ihl"), U(r.ihl.into()));
                s.field(key!("dscp"), U(r.dscp.into()));
                s.field(key!("ecn"), U(r.ecn.into()));
                s.field(key!("total_len"), U(r.total_len.into()));
                s.field(key!("ident"), U(r.ident.into()));
                s.field(key!("flag_reserved"), B(r.flag_reserved));
                s.field(key!("dont_frag"), B(r.dont_frag));
                s.field(key!("more_frags"), B(r.more_frags));
                s.field(key!("frag_offset"), U(r.frag_offset.into()));
                s.field(key!("ttl"), U(r.ttl.into()));
                s.field(key!("protocol"), U(r.protocol.into()));
                s.field(key!("checksum"), U(r.checksum.into()));
                s.field(key!("src"), Val::V4(r.src));
                s.field(key!("dst"), Val::V4(r.dst));
                s.field(key!("options"), Bytes(&r.options));
            }
            Hdr::Ip(IpRepr::V6(r)) => {
                s.field(key!("version"), U(r.version.into()));
                s.field(key!("traffic_class"), U(r.traffic_class.into()));
                s.field(key!("flow_label"), U(r.flow_label.into()));
                s.field(key!("payload_len"), U(r.payload_len.into()));
                s.field(key!("next_header"), U(r.next_header.into()));
                s.field(key!("hop_limit"), U(r.hop_limit.into()));
                s.field(key!("src"), Val::V6(r.src));
                s.field(key!("dst"), Val::V6(r.dst));
            }
            Hdr::Udp(r) => {
                s.field(key!("src_port"), U(r.src_port.into()));
                s.field(key!("dst_port"), U(r.dst_port.into()));
                s.field(key!("length"), U(r.length.into()));
                s.field(key!("checksum"), U(r.checksum.into()));
            }
            Hdr::Bth(r) => {
                s.field(key!("opcode"), U(r.opcode.0.into()));
                s.field(key!("solicited"), B(r.solicited));
                s.field(key!("mig_req"), B(r.mig_req));
                s.field(key!("pad_count"), U(r.pad_count.into()));
                s.field(key!("tver"), U(r.tver.into()));
                s.field(key!("pkey"), U(r.pkey.into()));
                s.field(key!("fecn"), B(r.fecn));
                s.field(key!("becn"), B(r.becn));
                s.field(key!("resv6"), U(r.resv6.into()));
                s.field(key!("dest_qp"), U(r.dest_qp.value().into()));
                s.field(key!("ack_req"), B(r.ack_req));
                s.field(key!("rtx"), B(r.rtx));
                s.field(key!("ts"), B(r.ts));
                s.field(key!("resv8"), U(r.resv8.into()));
                s.field(key!("psn"), U(r.psn.value().into()));
            }
            Hdr::Ext(h, x) => ext_fields(h, x, s),
        }
        let _ = I;
    }
}

#[inline(always)]
fn ext_fields(h: ExtHeader, x: &Extensions, s: &mut impl Sink) {
    use Val::{B, Bytes, I, U};
    match h {
        ExtHeader::Meth => {
            if let Some(r) = &x.meth {
                s.field(key!("rqmsn"), U(r.rqmsn.value().into()));
                s.field(key!("msn"), U(r.msn.value().into()));
            }
        }
        ExtHeader::Tseth => {
            if let Some(r) = &x.tseth {
                s.field(key!("tx_timestamp"), U(r.tx_timestamp.into()));
                s.field(key!("tsr"), B(r.tsr));
                s.field(key!("resv"), U(r.resv.into()));
                s.field(key!("ftype"), U(r.ftype.into()));
            }
        }
        ExtHeader::Reth => {
            if let Some(r) = &x.reth {
                s.field(key!("va"), U(r.va));
                s.field(key!("rkey"), U(r.rkey.value().into()));
                s.field(key!("dma_len"), U(r.dma_len.into()));
            }
        }
        ExtHeader::ImmDt => {
            if let Some(r) = &x.immdt {
                s.field(key!("imm"), U(r.imm.into()));
            }
        }
        ExtHeader::Aeth => {
            if let Some(r) = &x.aeth {
                s.field(key!("syndrome"), U(r.syndrome.into()));
                s.field(key!("msn"), U(r.msn.value().into()));
            }
        }
        ExtHeader::Seth => {
            if let Some(r) = &x.seth {
                s.field(key!("res_type"), U(r.res_type.into()));
                s.field(key!("next_header"), U(r.next_header.into()));
                s.field(key!("m"), U(r.m.0.into()));
                s.field(key!("resv1"), U(r.resv1.into()));
                s.field(key!("pr"), B(r.pr));
                s.field(key!("ack_psn_offset"), I(r.ack_psn_offset.into()));
                s.field(key!("entropy"), U(r.entropy.value().into()));
                s.field(key!("spdcid"), U(r.spdcid.into()));
                s.field(key!("dpdcid"), U(r.dpdcid.into()));
                s.field(key!("resv12"), U(r.resv12.into()));
                s.field(key!("cack_psn"), U(r.cack_psn.value().into()));
                s.field(key!("cc_type"), U(r.cc_type.into()));
                s.field(key!("cc_flags"), U(r.cc_flags.into()));
                s.field(key!("mpr"), U(r.mpr.into()));
                s.field(key!("sack_offset"), I(r.sack_offset.into()));
                s.field(key!("sack_bitmap"), U(r.sack_bitmap));
            }
        }
        ExtHeader::CcState => {
            if let Some(r) = &x.cc_state {
                s.field(key!("tx_timestamp"), U(r.tx_timestamp.into()));
                s.field(key!("resv"), B(r.resv));
                s.field(key!("ooo_count"), U(r.ooo_count.into()));
                s.field(key!("r_c"), B(r.r_c));
                s.field(key!("rcv_cwnd_pen"), U(r.rcv_cwnd_pen.into()));
                s.field(key!("rcvd_bytes"), U(r.rcvd_bytes.into()));
            }
        }
        ExtHeader::Neth => {
            if let Some(r) = &x.neth {
                s.field(key!("res_type"), U(r.res_type.into()));
                s.field(key!("next_header"), U(r.next_header.into()));
                s.field(key!("resv1"), U(r.resv1.into()));
                s.field(key!("reason"), U(r.reason.0.into()));
                s.field(key!("vendor_info"), U(r.vendor_info.into()));
                s.field(key!("entropy"), U(r.entropy.value().into()));
                s.field(key!("spdcid"), U(r.spdcid.into()));
                s.field(key!("dpdcid"), U(r.dpdcid.into()));
                s.field(key!("resv12"), U(r.resv12.into()));
                s.field(key!("nack_psn"), U(r.nack_psn.value().into()));
                s.field(key!("cc_type"), U(r.cc_type.into()));
                s.field(key!("cc_flags"), U(r.cc_flags.into()));
                s.field(key!("resv17"), U(r.resv17.into()));
                s.field(key!("tx_timestamp"), U(r.tx_timestamp.into()));
            }
        }
        ExtHeader::Peth => {
            if let Some(r) = &x.peth {
                s.field(key!("resv0"), U(r.resv0.into()));
                s.field(key!("probe_id"), U(r.probe_id.into()));
                s.field(key!("resv6"), U(r.resv6.into()));
                s.field(key!("spdcid"), U(r.spdcid.into()));
                s.field(key!("dpdcid"), U(r.dpdcid.into()));
                s.field(key!("tx_timestamp"), U(r.tx_timestamp.into()));
                s.field(key!("tsr"), B(r.tsr));
                s.field(key!("resv14"), U(r.resv14.into()));
                s.field(key!("ftype"), U(r.ftype.into()));
            }
        }
        ExtHeader::Erth => {
            if let Some(r) = &x.erth {
                s.field(key!("op"), U(r.op.0.into()));
                s.field(key!("resv1"), U(r.resv1.into()));
                s.field(key!("port_status"), U(r.port_status.into()));
                s.field(key!("request_id"), U(r.request_id.into()));
                s.field(key!("resv12"), U(r.resv12.into()));
            }
        }
        ExtHeader::Eeth => {
            if let Some(r) = &x.eeth {
                s.field(key!("op"), U(r.op.0.into()));
                s.field(key!("status"), U(r.status.into()));
                s.field(key!("resv2"), U(r.resv2.into()));
                s.field(key!("port_status"), U(r.port_status.into()));
                s.field(key!("request_id"), U(r.request_id.into()));
                s.field(key!("data"), Bytes(&r.data));
            }
        }
        _ => ib_fields(h, x, s),
    }
}

/// The fields of the InfiniBand extension headers that MRC does not use itself.
#[inline(always)]
fn ib_fields(h: ExtHeader, x: &Extensions, s: &mut impl Sink) {
    use Val::{Bytes, U};
    match h {
        ExtHeader::Deth => {
            if let Some(r) = &x.deth {
                s.field(key!("qkey"), U(r.qkey.into()));
                s.field(key!("resv"), U(r.resv.into()));
                s.field(key!("src_qp"), U(r.src_qp.value().into()));
            }
        }
        ExtHeader::Rdeth => {
            if let Some(r) = &x.rdeth {
                s.field(key!("resv"), U(r.resv.into()));
                s.field(key!("ee_context"), U(r.ee_context.into()));
            }
        }
        ExtHeader::Xrceth => {
            if let Some(r) = &x.xrceth {
                s.field(key!("resv"), U(r.resv.into()));
                s.field(key!("xrc_srq"), U(r.xrc_srq.into()));
            }
        }
        ExtHeader::Ieth => {
            if let Some(r) = &x.ieth {
                s.field(key!("rkey"), U(r.rkey.value().into()));
            }
        }
        ExtHeader::AtomicEth => {
            if let Some(r) = &x.atomiceth {
                s.field(key!("va"), U(r.va));
                s.field(key!("rkey"), U(r.rkey.value().into()));
                s.field(key!("swap_add"), U(r.swap_add));
                s.field(key!("compare"), U(r.compare));
            }
        }
        ExtHeader::AtomicAckEth => {
            if let Some(r) = &x.atomicacketh {
                s.field(key!("orig"), U(r.orig));
            }
        }
        ExtHeader::Feth => {
            if let Some(r) = &x.feth {
                s.field(key!("resv"), U(r.resv.into()));
                s.field(key!("selectivity_level"), U(r.selectivity_level.into()));
                s.field(key!("placement_type"), U(r.placement_type.into()));
            }
        }
        ExtHeader::Cnp => {
            if let Some(r) = &x.cnp {
                s.field(key!("resv"), Bytes(&r.resv));
            }
        }
        _ => {}
    }
}

/// Calls `f` with each header of a decoded frame, in wire order; tags one by one.
#[inline(always)]
fn each_header<'a>(d: &'a DecodedFrame<'a>, mut f: impl FnMut(Hdr<'a>)) {
    if let Some(c) = &d.cooked {
        f(Hdr::Cooked(c));
    }
    if let Some(e) = &d.eth {
        f(Hdr::Eth(e));
    }
    for v in &d.vlans {
        f(Hdr::Vlan(v));
    }
    if let Some(ip) = &d.ip {
        f(Hdr::Ip(ip));
    }
    if let Some(u) = &d.udp {
        f(Hdr::Udp(u));
    }
    if let Some(b) = &d.bth {
        f(Hdr::Bth(b));
    }
    let x = &d.ext;
    for &(h, _) in &d.layout.ext {
        if x.has(h) {
            f(Hdr::Ext(h, x));
        }
    }
}

/// Writes JSON fields: `"key":value`, comma-separated.
struct JsonSink<'o> {
    out: &'o mut Out,
    first: bool,
}

impl Sink for JsonSink<'_> {
    #[inline(always)]
    fn field(&mut self, key: &'static Key, v: Val<'_>) {
        let out = &mut *self.out;
        if self.first {
            out.pad(&key.json_first, key.json_len - 1);
        } else {
            out.pad(&key.json, key.json_len);
        }
        self.first = false;
        json_value(out, v);
    }
}

#[inline(always)]
fn json_value(out: &mut Out, v: Val<'_>) {
    match v {
        Val::U(n) => out.u64(n),
        Val::I(n) => out.i64(n),
        Val::B(true) => lit!(out, "true"),
        Val::B(false) => lit!(out, "false"),
        Val::Mac(m) => {
            out.byte(b'"');
            out.mac(m.0);
            out.byte(b'"');
        }
        Val::V4(a) => {
            out.byte(b'"');
            out.ipv4(a.octets());
            out.byte(b'"');
        }
        Val::V6(a) => {
            out.byte(b'"');
            let _ = write!(out, "{a}");
            out.byte(b'"');
        }
        Val::Bytes(bytes) => {
            out.byte(b'[');
            for (i, b) in bytes.iter().enumerate() {
                if i > 0 {
                    out.byte(b',');
                }
                out.u8(*b);
            }
            out.byte(b']');
        }
    }
}

/// Fields shown in hexadecimal in the text view (addresses, keys, bitmaps, checksums,
/// codes), with their width in hex digits. Reserved fields (`resv*`) are shown in
/// hexadecimal too, unpadded.
const HEX_FIELDS: &[(&str, usize)] = &[
    ("ethertype", 4),
    ("checksum", 4),
    ("traffic_class", 2),
    ("flow_label", 5),
    ("opcode", 2),
    ("pkey", 4),
    ("dest_qp", 6),
    ("src_qp", 6),
    ("ee_context", 6),
    ("xrc_srq", 6),
    ("va", 16),
    ("rkey", 8),
    ("qkey", 8),
    ("imm", 8),
    ("syndrome", 2),
    ("entropy", 8),
    ("sack_bitmap", 16),
    ("reason", 2),
    ("port_status", 8),
    ("swap_add", 16),
    ("compare", 16),
    ("orig", 16),
];

/// The name of a codepoint, for the fields that have named values.
fn code_name(header: &str, key: &str, code: u64) -> Option<&'static str> {
    let code = u8::try_from(code).ok()?;
    match (header, key) {
        ("neth", "reason") => NackReason(code).name(),
        ("seth", "m") => EvMark(code).name(),
        ("erth" | "eeth", "op") => EndpointOp(code).name(),
        _ => None,
    }
}

/// Writes text fields: ` key=value`.
struct TextSink<'o> {
    out: &'o mut Out,
    header: &'static str,
}

impl Sink for TextSink<'_> {
    #[inline(always)]
    fn field(&mut self, key: &'static Key, v: Val<'_>) {
        let out = &mut *self.out;
        out.pad(&key.text, key.name.len() + 2);
        match v {
            Val::U(n) => {
                // An SLL protocol is an ethertype, shown like one; IP's protocol is decimal.
                let hex = if key.name.len() == 8 && key.name == "protocol" {
                    if self.header.starts_with("sll") { 4 } else { -1 }
                } else {
                    key.hex
                };
                if hex >= 0 {
                    out.hex(n, hex as usize);
                } else {
                    out.u64(n);
                }
                if key.coded {
                    if let Some(name) = code_name(self.header, key.name, n) {
                        out.byte(b'(');
                        out.bytes(name.as_bytes());
                        out.byte(b')');
                    }
                }
            }
            Val::I(n) => out.i64(n),
            Val::B(b) => out.byte(if b { b'1' } else { b'0' }),
            Val::Mac(m) => out.mac(m.0),
            Val::V4(a) => out.ipv4(a.octets()),
            Val::V6(a) => {
                let _ = write!(out, "{a}");
            }
            Val::Bytes([]) => out.byte(b'-'),
            Val::Bytes(bytes) => out.hex_bytes(bytes),
        }
    }
}

impl<'a> FrameView<'a> {
    /// A record whose link type the decoder does not read: listed, not decoded.
    pub fn skipped(record: &'a PacketRef<'a>) -> Self {
        FrameView { record, decoded: None, violations: None }
    }

    /// A decoded frame, with the result of `validate()` when it was asked for. The frame is
    /// borrowed: it is large, and a view is made for every record.
    pub fn decoded(
        record: &'a PacketRef<'a>,
        decoded: &'a DecodedFrame<'a>,
        violations: Option<Vec<Violation>>,
    ) -> Self {
        FrameView { record, decoded: Some(decoded), violations }
    }

    /// The frame's kind: `skipped` when it was not decoded.
    pub fn kind(&self) -> &'static str {
        self.decoded.map_or("skipped", |d| d.kind().as_str())
    }

    /// Appends the frame as one line of JSON to `out`.
    pub fn json(&self, out: &mut Out) {
        let r = self.record;
        lit!(out, "{\"frame\":");
        out.u64(r.index);
        lit!(out, ",\"len\":");
        out.u64(r.data.len() as u64);
        if r.orig_len as usize > r.data.len() {
            lit!(out, ",\"orig_len\":");
            out.u64(r.orig_len.into());
        }
        if let Some(t) = r.timestamp_ns {
            lit!(out, ",\"timestamp_ns\":");
            out.u64(t);
        }
        let Some(d) = self.decoded else {
            lit!(out, ",\"kind\":\"skipped\"");
            lit!(out, ",\"link_type\":");
            out.u64(r.link_type.into());
            lit!(out, ",\"skipped\":");
            out.json_str(NOT_DECODED);
            lit!(out, "}\n");
            return;
        };
        match d.kind() {
            FrameKind::Roce => lit!(out, ",\"kind\":\"roce\""),
            FrameKind::Other => lit!(out, ",\"kind\":\"other\""),
            FrameKind::Truncated => lit!(out, ",\"kind\":\"truncated\""),
            FrameKind::Malformed => lit!(out, ",\"kind\":\"malformed\""),
        }
        lit!(out, ",\"error\":");
        match &d.error {
            Some(e) => out.json_str(&e.to_string()),
            None => lit!(out, "null"),
        }
        match d.icrc {
            IcrcStatus::Ok => lit!(out, ",\"icrc\":\"ok\""),
            IcrcStatus::Bad { .. } => lit!(out, ",\"icrc\":\"bad\""),
            IcrcStatus::Absent => lit!(out, ",\"icrc\":\"absent\""),
            IcrcStatus::NotCheckable => lit!(out, ",\"icrc\":\"not_checkable\""),
        }
        if let IcrcStatus::Bad { found, computed } = d.icrc {
            lit!(out, ",\"icrc_found\":");
            out.u64(found.into());
            lit!(out, ",\"icrc_computed\":");
            out.u64(computed.into());
        }
        // Tags as the adapter protocol gives them: `vlan`, the outer tag, then `vlans`,
        // every tag, outer first.
        let mut in_vlan = false;
        each_header(d, |h| {
            let is_vlan = matches!(h, Hdr::Vlan(_));
            if is_vlan {
                if in_vlan {
                    lit!(out, ",{");
                } else {
                    lit!(out, ",\"vlan\":{");
                    h.fields(&mut JsonSink { out, first: true });
                    lit!(out, "},\"vlans\":[{");
                }
            } else {
                if in_vlan {
                    out.byte(b']');
                }
                let name = h.name();
                out.pad(&name.json, name.json_len);
            }
            in_vlan = is_vlan;
            h.fields(&mut JsonSink { out, first: true });
            out.byte(b'}');
        });
        if in_vlan {
            out.byte(b']');
        }
        if d.layout.payload.is_some() {
            lit!(out, ",\"payload_len\":");
            out.u64(d.payload.len() as u64);
            lit!(out, ",\"pad_len\":");
            out.u64(d.pad.len() as u64);
        }
        if let Some(vs) = &self.violations {
            violations_json(vs, out);
        }
        lit!(out, "}\n");
    }

    /// Appends the frame as a readable block to `out`: a summary line, then one indented
    /// line per header with its fields, then the payload, the error and the violations, if
    /// any, and an empty line.
    pub fn text(&self, out: &mut Out) {
        self.summary(out);
        if let Some(d) = self.decoded {
            each_header(d, |h| {
                let name = h.name();
                out.pad(&name.text, name.text_len);
                h.fields(&mut TextSink { out, header: name.name });
                out.byte(b'\n');
            });
            self.details(d, out);
        }
        out.byte(b'\n');
    }

    fn summary(&self, out: &mut Out) {
        let r = self.record;
        lit!(out, "frame ");
        out.u64(r.index);
        if let Some(t) = r.timestamp_ns {
            lit!(out, "  ");
            out.u64(t / 1_000_000_000);
            out.byte(b'.');
            out.u64_zeros(t % 1_000_000_000, 9);
        }
        lit!(out, "  len ");
        out.u64(r.data.len() as u64);
        if r.orig_len as usize > r.data.len() {
            lit!(out, " (of ");
            out.u64(r.orig_len.into());
            out.byte(b')');
        }
        let Some(d) = self.decoded else {
            let _ = writeln!(out, "  link type {}: skipped, {NOT_DECODED}", r.link_type);
            return;
        };
        lit!(out, "  ");
        out.bytes(d.kind().as_str().as_bytes());
        lit!(out, "  icrc ");
        out.bytes(d.icrc.as_str().as_bytes());
        lit!(out, "  ");
        if let Some(bth) = &d.bth {
            match bth.opcode.name() {
                Some(name) => out.bytes(name.as_bytes()),
                None => {
                    let _ = write!(out, "{}", bth.opcode);
                }
            }
            lit!(out, "  qp ");
            out.hex(bth.dest_qp.value().into(), 0);
            lit!(out, "  psn ");
            out.u64(bth.psn.value().into());
        } else if let Some(udp) = &d.udp {
            let _ = write!(out, "UDP {} -> {}", udp.src_port, udp.dst_port);
        } else if let Some(ip) = &d.ip {
            let _ = match ip {
                IpRepr::V4(v4) => write!(out, "IPv4 protocol {}", v4.protocol),
                IpRepr::V6(v6) => write!(out, "IPv6 next header {}", v6.next_header),
            };
        } else if d.eth.is_some() || d.cooked.is_some() {
            let ethertype = match (d.vlans.last(), &d.cooked, &d.eth) {
                (Some(v), _, _) => v.ethertype,
                (None, Some(CookedHeader::Sll(s)), _) => s.protocol,
                (None, Some(CookedHeader::Sll2(s)), _) => s.protocol,
                (None, None, Some(e)) => e.ethertype,
                (None, None, None) => openrdma_codec::EtherType(0),
            };
            let _ = write!(out, "ethertype {ethertype}");
            if let Some(name) = ethertype.name() {
                let _ = write!(out, " ({name})");
            }
        } else {
            lit!(out, "not decodable");
        }
        out.byte(b'\n');
    }

    fn details(&self, d: &DecodedFrame<'_>, out: &mut Out) {
        if let IcrcStatus::Bad { found, computed } = d.icrc {
            let _ =
                writeln!(out, "    {:<12} found={found:#010x} computed={computed:#010x}", "icrc");
        }
        if d.layout.payload.is_some() {
            lit!(out, "    payload      ");
            out.u64(d.payload.len() as u64);
            lit!(out, " bytes, pad ");
            out.u64(d.pad.len() as u64);
            out.byte(b'\n');
        }
        if let Some(e) = &d.error {
            let _ = writeln!(out, "    {:<12} {e}", "error");
        }
        for v in self.violations.iter().flatten() {
            let _ = writeln!(out, "    {:<12} {v}", "violation");
        }
    }

    /// Writes the frame as one line of JSON.
    pub fn write_json(&self, out: &mut impl Write) -> io::Result<()> {
        let mut buf = Out::with_capacity(1024);
        self.json(&mut buf);
        out.write_all(buf.as_bytes())
    }

    /// Writes the frame as a readable block.
    pub fn write_text(&self, out: &mut impl Write) -> io::Result<()> {
        let mut buf = Out::with_capacity(1024);
        self.text(&mut buf);
        out.write_all(buf.as_bytes())
    }
}

/// Appends the `violations` list of a frame's JSON.
fn violations_json(vs: &[Violation], out: &mut Out) {
    lit!(out, ",\"violations\":[");
    for (i, v) in vs.iter().enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        lit!(out, "{\"requirement\":");
        out.json_str(v.requirement);
        lit!(out, ",\"header\":");
        out.json_str(v.header.name());
        lit!(out, ",\"field\":");
        out.json_str(v.field);
        lit!(out, ",\"offset\":");
        match v.offset {
            Some(o) => out.u64(o as u64),
            None => lit!(out, "null"),
        }
        lit!(out, ",\"value\":");
        out.u64(v.value);
        lit!(out, ",\"rule\":");
        out.json_str(v.rule);
        out.byte(b'}');
    }
    out.byte(b']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_names_follow_the_codec() {
        for (i, h) in ExtHeader::ALL.iter().enumerate() {
            assert_eq!(*h as usize, i, "{h:?}");
            let n = &EXT_NAMES[i];
            assert_eq!(n.name, h.header().name());
            let json = format!(",\"{}\":{{", n.name);
            assert_eq!(&n.json[..n.json_len], json.as_bytes());
            let text = format!("    {:<12}", n.name);
            assert_eq!(&n.text[..n.text_len], text.as_bytes());
        }
    }
}
