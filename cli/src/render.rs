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
//! | `sll` or `sll2`, `eth`, `vlan` (a list, outermost tag first), `ipv4`/`ipv6`, `udp`, `bth`, then the extension headers in wire order | one object per header decoded, keyed by the field names of its `Repr` |
//! | `payload_len`, `pad_len` | only when the decoder reached the payload: the bytes captured |
//! | `violations` | with `--validate`, on RoCEv2 frames: `[{requirement, header, field, offset, value, rule}]` |
//!
//! A record on a link type the decoder does not read is `{frame, len, timestamp_ns, kind:
//! "skipped", link_type, skipped: "link type not decoded"}`.
//!
//! Both views are written straight from the decoded headers by one walk over their fields
//! (`Sink`), so they always show the same fields; neither goes through the other.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::net::{Ipv4Addr, Ipv6Addr};

use openrdma_codec::frame::{DecodedFrame, Extensions, IcrcStatus, IpRepr};
use openrdma_codec::{
    CookedHeader, EndpointOp, EthernetAddress, EvMark, ExtHeader, NackReason, Violation,
};

use crate::capture::PacketRef;

/// The value of `skipped` for a record whose link type the decoder does not read.
pub const NOT_DECODED: &str = "link type not decoded";

/// One record as shown by `dissect`.
#[derive(Debug)]
pub struct FrameView<'a> {
    record: &'a PacketRef<'a>,
    decoded: Option<DecodedFrame<'a>>,
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

/// A field's name, and the same with the JSON punctuation before a value (`,"name":`),
/// padded to a fixed size so that it is copied without a call to `memcpy`.
#[derive(Debug, Clone, Copy)]
struct Key {
    name: &'static str,
    /// `,"name":`
    json: &'static [u8; PAD],
    /// `"name":`, for the first field of an object.
    json_first: &'static [u8; PAD],
    json_len: usize,
    /// ` name=`
    text: &'static [u8; PAD],
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

/// The fixed size of the padded strings.
const PAD: usize = 32;

/// `s` in a zero-padded array of [`PAD`] bytes (at most that long).
const fn padded(s: &str) -> [u8; PAD] {
    let b = s.as_bytes();
    let mut a = [0u8; PAD];
    let mut i = 0;
    while i < b.len() && i < PAD {
        a[i] = b[i];
        i += 1;
    }
    a
}

macro_rules! key {
    ($name:literal) => {{
        const JSON: &str = concat!(",\"", $name, "\":");
        const KEY: Key = Key {
            name: $name,
            json: &padded(JSON),
            json_first: &padded(concat!("\"", $name, "\":")),
            json_len: JSON.len(),
            text: &padded(concat!(" ", $name, "=")),
            hex: hex_width($name),
            coded: same($name, "reason") || same($name, "m") || same($name, "op"),
        };
        KEY
    }};
}

/// Appends a string literal with one fixed-size copy.
macro_rules! lit {
    ($out:expr, $s:literal) => {{
        const P: [u8; PAD] = padded($s);
        put_padded($out, &P, $s.len())
    }};
}

/// Appends the first `len` bytes of `bytes`: one fixed-size copy, then a truncation.
#[inline(always)]
fn put_padded(out: &mut Vec<u8>, bytes: &[u8; PAD], len: usize) {
    let start = out.len();
    out.extend_from_slice(bytes);
    out.truncate(start + len);
}

/// Receives the fields of a header, in order.
trait Sink {
    fn field(&mut self, key: Key, v: Val<'_>);
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
    fn key(&self) -> &'static str {
        match self {
            Hdr::Cooked(CookedHeader::Sll(_)) => "sll",
            Hdr::Cooked(CookedHeader::Sll2(_)) => "sll2",
            Hdr::Eth(_) => "eth",
            Hdr::Vlan(_) => "vlan",
            Hdr::Ip(IpRepr::V4(_)) => "ipv4",
            Hdr::Ip(IpRepr::V6(_)) => "ipv6",
            Hdr::Udp(_) => "udp",
            Hdr::Bth(_) => "bth",
            Hdr::Ext(h, _) => h.header().name(),
        }
    }

    /// Walks the header's fields, named as in its `Repr`.
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
        ExtHeader::Cnp => {
            if let Some(r) = &x.cnp {
                s.field(key!("resv"), Bytes(&r.resv));
            }
        }
    }
}

/// The headers of a decoded frame, in wire order. Tags are yielded one by one.
fn headers<'a>(d: &'a DecodedFrame<'a>) -> impl Iterator<Item = Hdr<'a>> {
    let x = &d.ext;
    d.cooked
        .as_ref()
        .map(Hdr::Cooked)
        .into_iter()
        .chain(d.eth.as_ref().map(Hdr::Eth))
        .chain(d.vlans.iter().map(Hdr::Vlan))
        .chain(d.ip.as_ref().map(Hdr::Ip))
        .chain(d.udp.as_ref().map(Hdr::Udp))
        .chain(d.bth.as_ref().map(Hdr::Bth))
        .chain(d.layout.ext.iter().filter(|(h, _)| x.has(*h)).map(move |&(h, _)| Hdr::Ext(h, x)))
}

/// Appends the decimal digits of `n`: pushed lowest first, then put in order.
#[inline]
fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    let start = out.len();
    while n > 0 {
        out.push(b'0' + (n % 10) as u8);
        n /= 10;
    }
    out[start..].reverse();
}

fn push_i64(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    push_u64(out, n.unsigned_abs());
}

/// Appends an IPv4 address in dotted-quad form.
fn push_v4(out: &mut Vec<u8>, a: Ipv4Addr) {
    for (i, b) in a.octets().iter().enumerate() {
        if i > 0 {
            out.push(b'.');
        }
        push_u64(out, u64::from(*b));
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn push_mac(out: &mut Vec<u8>, m: EthernetAddress) {
    for (i, b) in m.0.iter().enumerate() {
        if i > 0 {
            out.push(b':');
        }
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 0xF)]);
    }
}

/// Appends `v` with `Display` (addresses).
fn push_display(out: &mut Vec<u8>, v: impl std::fmt::Display) {
    let _ = write!(out, "{v}");
}

/// Writes JSON fields: `"key":value`, comma-separated.
struct JsonSink<'o> {
    out: &'o mut Vec<u8>,
    first: bool,
}

impl Sink for JsonSink<'_> {
    fn field(&mut self, key: Key, v: Val<'_>) {
        let out = &mut *self.out;
        if self.first {
            put_padded(out, key.json_first, key.json_len - 1);
        } else {
            put_padded(out, key.json, key.json_len);
        }
        self.first = false;
        json_value(out, v);
    }
}

/// Appends a few bytes, one by one: cheaper than a call to `memcpy` for the short strings
/// of a header.
#[inline]
fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        out.push(b);
    }
}

/// Appends `n` as `0x` and `width` hexadecimal digits (more if it needs them).
fn push_hex(out: &mut Vec<u8>, n: u64, width: usize) {
    let digits = ((64 - n.leading_zeros() as usize).div_ceil(4)).max(width).max(1);
    out.push(b'0');
    out.push(b'x');
    for i in (0..digits).rev() {
        out.push(HEX[((n >> (4 * i)) & 0xF) as usize]);
    }
}

fn json_value(out: &mut Vec<u8>, v: Val<'_>) {
    match v {
        Val::U(n) => push_u64(out, n),
        Val::I(n) => push_i64(out, n),
        Val::B(b) => put(out, if b { b"true" } else { b"false" }),
        Val::Mac(m) => {
            out.push(b'"');
            push_mac(out, m);
            out.push(b'"');
        }
        Val::V4(a) => {
            out.push(b'"');
            push_v4(out, a);
            out.push(b'"');
        }
        Val::V6(a) => {
            out.push(b'"');
            push_display(out, a);
            out.push(b'"');
        }
        Val::Bytes(bytes) => {
            out.push(b'[');
            for (i, b) in bytes.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                push_u64(out, u64::from(*b));
            }
            out.push(b']');
        }
    }
}

/// Appends a JSON string (quoted, escaped).
fn json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for c in s.bytes() {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0..0x20 => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(c >> 4)]);
                out.push(HEX[usize::from(c & 0xF)]);
            }
            _ => out.push(c),
        }
    }
    out.push(b'"');
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
    out: &'o mut Vec<u8>,
    header: &'static str,
}

impl Sink for TextSink<'_> {
    fn field(&mut self, key: Key, v: Val<'_>) {
        let out = &mut *self.out;
        put_padded(out, key.text, key.name.len() + 2);
        match v {
            Val::U(n) => {
                // An SLL protocol is an ethertype, shown like one; IP's protocol is decimal.
                let hex = if key.name.len() == 8 && key.name == "protocol" {
                    if self.header.starts_with("sll") { 4 } else { -1 }
                } else {
                    key.hex
                };
                if hex >= 0 {
                    push_hex(out, n, hex as usize);
                } else {
                    push_u64(out, n);
                }
                if key.coded {
                    if let Some(name) = code_name(self.header, key.name, n) {
                        out.push(b'(');
                        out.extend_from_slice(name.as_bytes());
                        out.push(b')');
                    }
                }
            }
            Val::I(n) => push_i64(out, n),
            Val::B(b) => out.push(if b { b'1' } else { b'0' }),
            Val::Mac(m) => push_mac(out, m),
            Val::V4(a) => push_v4(out, a),
            Val::V6(a) => push_display(out, a),
            Val::Bytes([]) => out.push(b'-'),
            Val::Bytes(bytes) => {
                for b in bytes {
                    out.push(HEX[usize::from(b >> 4)]);
                    out.push(HEX[usize::from(b & 0xF)]);
                }
            }
        }
    }
}

impl<'a> FrameView<'a> {
    /// A record whose link type the decoder does not read: listed, not decoded.
    pub fn skipped(record: &'a PacketRef<'a>) -> Self {
        FrameView { record, decoded: None, violations: None }
    }

    /// A decoded frame, with the result of `validate()` when it was asked for.
    pub fn decoded(
        record: &'a PacketRef<'a>,
        decoded: DecodedFrame<'a>,
        violations: Option<Vec<Violation>>,
    ) -> Self {
        FrameView { record, decoded: Some(decoded), violations }
    }

    /// The frame's kind: `skipped` when it was not decoded.
    pub fn kind(&self) -> &'static str {
        self.decoded.as_ref().map_or("skipped", |d| d.kind().as_str())
    }

    /// Appends the frame as one line of JSON to `out`.
    pub fn json(&self, out: &mut Vec<u8>) {
        out.reserve(2048);
        let r = self.record;
        lit!(out, "{\"frame\":");
        push_u64(out, r.index);
        lit!(out, ",\"len\":");
        push_u64(out, r.data.len() as u64);
        if r.orig_len as usize > r.data.len() {
            lit!(out, ",\"orig_len\":");
            push_u64(out, r.orig_len.into());
        }
        if let Some(t) = r.timestamp_ns {
            lit!(out, ",\"timestamp_ns\":");
            push_u64(out, t);
        }
        lit!(out, ",\"kind\":\"");
        out.extend_from_slice(self.kind().as_bytes());
        out.push(b'"');
        let Some(d) = &self.decoded else {
            lit!(out, ",\"link_type\":");
            push_u64(out, r.link_type.into());
            lit!(out, ",\"skipped\":");
            json_str(out, NOT_DECODED);
            lit!(out, "}\n");
            return;
        };
        lit!(out, ",\"error\":");
        match &d.error {
            Some(e) => json_str(out, &e.to_string()),
            None => lit!(out, "null"),
        }
        lit!(out, ",\"icrc\":\"");
        out.extend_from_slice(d.icrc.as_str().as_bytes());
        out.push(b'"');
        if let IcrcStatus::Bad { found, computed } = d.icrc {
            lit!(out, ",\"icrc_found\":");
            push_u64(out, found.into());
            lit!(out, ",\"icrc_computed\":");
            push_u64(out, computed.into());
        }
        let mut in_vlan = false;
        for h in headers(d) {
            let is_vlan = matches!(h, Hdr::Vlan(_));
            if is_vlan && in_vlan {
                lit!(out, ",{");
            } else {
                if in_vlan {
                    out.push(b']');
                }
                lit!(out, ",\"");
                out.extend_from_slice(h.key().as_bytes());
                out.extend_from_slice(if is_vlan { b"\":[{" } else { b"\":{" });
            }
            in_vlan = is_vlan;
            h.fields(&mut JsonSink { out, first: true });
            out.push(b'}');
        }
        if in_vlan {
            out.push(b']');
        }
        if d.layout.payload.is_some() {
            lit!(out, ",\"payload_len\":");
            push_u64(out, d.payload.len() as u64);
            lit!(out, ",\"pad_len\":");
            push_u64(out, d.pad.len() as u64);
        }
        if let Some(vs) = &self.violations {
            lit!(out, ",\"violations\":[");
            for (i, v) in vs.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                lit!(out, "{\"requirement\":");
                json_str(out, v.requirement);
                lit!(out, ",\"header\":");
                json_str(out, v.header.name());
                lit!(out, ",\"field\":");
                json_str(out, v.field);
                lit!(out, ",\"offset\":");
                match v.offset {
                    Some(o) => push_u64(out, o as u64),
                    None => lit!(out, "null"),
                }
                lit!(out, ",\"value\":");
                push_u64(out, v.value);
                lit!(out, ",\"rule\":");
                json_str(out, v.rule);
                out.push(b'}');
            }
            out.push(b']');
        }
        lit!(out, "}\n");
    }

    /// Appends the frame as a readable block to `out`: a summary line, then one indented
    /// line per header with its fields, then the payload, the error and the violations, if
    /// any, and an empty line.
    pub fn text(&self, out: &mut Vec<u8>) {
        out.reserve(4096);
        self.summary(out);
        if let Some(d) = &self.decoded {
            for h in headers(d) {
                let key = h.key();
                put(out, b"    ");
                put(out, key.as_bytes());
                for _ in key.len()..12 {
                    out.push(b' ');
                }
                h.fields(&mut TextSink { out, header: key });
                out.push(b'\n');
            }
            self.details(d, out);
        }
        out.push(b'\n');
    }

    fn summary(&self, out: &mut Vec<u8>) {
        let r = self.record;
        out.extend_from_slice(b"frame ");
        push_u64(out, r.index);
        if let Some(t) = r.timestamp_ns {
            let _ = write!(out, "  {}.{:09}", t / 1_000_000_000, t % 1_000_000_000);
        }
        out.extend_from_slice(b"  len ");
        push_u64(out, r.data.len() as u64);
        if r.orig_len as usize > r.data.len() {
            let _ = write!(out, " (of {})", r.orig_len);
        }
        let Some(d) = &self.decoded else {
            let _ = writeln!(out, "  link type {}: skipped, {NOT_DECODED}", r.link_type);
            return;
        };
        let _ = write!(out, "  {}  icrc {}  ", d.kind().as_str(), d.icrc.as_str());
        let mut line = String::new();
        if let Some(bth) = &d.bth {
            let _ = write!(line, "{}  qp {}  psn {}", bth.opcode, bth.dest_qp, bth.psn);
        } else if let Some(udp) = &d.udp {
            let _ = write!(line, "UDP {} -> {}", udp.src_port, udp.dst_port);
        } else if let Some(ip) = &d.ip {
            let _ = match ip {
                IpRepr::V4(v4) => write!(line, "IPv4 protocol {}", v4.protocol),
                IpRepr::V6(v6) => write!(line, "IPv6 next header {}", v6.next_header),
            };
        } else if d.eth.is_some() || d.cooked.is_some() {
            let ethertype = match (d.vlans.last(), &d.cooked, &d.eth) {
                (Some(v), _, _) => v.ethertype,
                (None, Some(CookedHeader::Sll(s)), _) => s.protocol,
                (None, Some(CookedHeader::Sll2(s)), _) => s.protocol,
                (None, None, Some(e)) => e.ethertype,
                (None, None, None) => openrdma_codec::EtherType(0),
            };
            let _ = write!(line, "ethertype {ethertype}");
            if let Some(name) = ethertype.name() {
                let _ = write!(line, " ({name})");
            }
        } else {
            line.push_str("not decodable");
        }
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }

    fn details(&self, d: &DecodedFrame<'_>, out: &mut Vec<u8>) {
        if let IcrcStatus::Bad { found, computed } = d.icrc {
            let _ =
                writeln!(out, "    {:<12} found={found:#010x} computed={computed:#010x}", "icrc");
        }
        if d.layout.payload.is_some() {
            let _ = writeln!(
                out,
                "    {:<12} {} bytes, pad {}",
                "payload",
                d.payload.len(),
                d.pad.len()
            );
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
        let mut buf = Vec::with_capacity(1024);
        self.json(&mut buf);
        out.write_all(&buf)
    }

    /// Writes the frame as a readable block.
    pub fn write_text(&self, out: &mut impl Write) -> io::Result<()> {
        let mut buf = Vec::with_capacity(1024);
        self.text(&mut buf);
        out.write_all(&buf)
    }
}
