//! How a captured frame is shown: one JSON object (a line of JSON Lines), or a readable block
//! of text.
//!
//! The JSON object of a decoded frame holds, in this order:
//!
//! | key | value |
//! |---|---|
//! | `frame` | 1-based record number in the file |
//! | `len` | captured length in bytes |
//! | `orig_len` | length on the wire, only when the capture cut the frame shorter |
//! | `timestamp_ns` | capture time, nanoseconds since the Unix epoch, when the file has one |
//! | `error` | `null`, or where decoding stopped (header, field and byte offset) |
//! | `icrc` | `"ok"`, `"bad"` or `"absent"` (not RoCEv2, or no room for a trailer) |
//! | `icrc_found`, `icrc_computed` | the trailer and the right value, only when `icrc` is `"bad"` |
//! | `eth`, `vlan`, `ipv4`/`ipv6`, `udp`, `bth`, then the extension headers in wire order | one object per header decoded, keyed by the field names of its `Repr` |
//! | `payload_len`, `pad_len` | only when the decoder reached the payload |
//! | `violations` | with `--validate`: `[{requirement, header, field, offset, value, rule}]` |
//!
//! A record on a link type other than Ethernet is `{frame, len, timestamp_ns, link_type,
//! skipped: "not Ethernet"}`.
//!
//! The text view is built from the same JSON, so both always show the same fields.

use std::fmt::{self, Write as _};
use std::io::{self, Write};

use openrdma_codec::frame::{DecodedFrame, IcrcStatus, IpRepr};
use openrdma_codec::{EndpointOp, EvMark, NackReason, Violation};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::capture::Record;

/// The value of `skipped` for a record whose link type is not Ethernet.
pub const NOT_ETHERNET: &str = "not Ethernet";

/// One record as shown by `dissect`.
#[derive(Debug)]
pub struct FrameView<'a> {
    record: &'a Record,
    decoded: Option<DecodedFrame<'a>>,
    violations: Option<Vec<Violation>>,
}

impl<'a> FrameView<'a> {
    /// A record whose link type is not Ethernet: listed, not decoded.
    pub fn skipped(record: &'a Record) -> Self {
        FrameView { record, decoded: None, violations: None }
    }

    /// A decoded Ethernet frame, with the result of `validate()` when it was asked for.
    pub fn decoded(
        record: &'a Record,
        decoded: DecodedFrame<'a>,
        violations: Option<Vec<Violation>>,
    ) -> Self {
        FrameView { record, decoded: Some(decoded), violations }
    }

    /// Writes the frame as one line of JSON.
    pub fn write_json(&self, out: &mut impl Write) -> io::Result<()> {
        serde_json::to_writer(&mut *out, self)?;
        out.write_all(b"\n")
    }

    /// Writes the frame as a readable block: a summary line, then one indented line per
    /// header with its fields, then the payload, the error and the violations, if any.
    pub fn write_text(&self, out: &mut impl Write) -> io::Result<()> {
        let tree: Node = serde_json::from_slice(&serde_json::to_vec(self)?)?;
        let mut s = String::new();
        self.summary(&mut s).map_err(io::Error::other)?;
        if let Node::Obj(entries) = &tree {
            for (header, node) in entries {
                if let Node::Obj(fields) = node {
                    header_line(&mut s, header, fields).map_err(io::Error::other)?;
                }
            }
        }
        self.details(&mut s).map_err(io::Error::other)?;
        s.push('\n');
        out.write_all(s.as_bytes())
    }

    fn summary(&self, s: &mut String) -> fmt::Result {
        let r = self.record;
        write!(s, "frame {}", r.index)?;
        if let Some(t) = r.timestamp_ns {
            write!(s, "  {}.{:09}", t / 1_000_000_000, t % 1_000_000_000)?;
        }
        write!(s, "  len {}", r.data.len())?;
        if r.orig_len as usize > r.data.len() {
            write!(s, " (of {})", r.orig_len)?;
        }
        let Some(d) = &self.decoded else {
            return writeln!(s, "  link type {}: skipped, {NOT_ETHERNET}", r.link_type);
        };
        write!(s, "  icrc {}  ", d.icrc.as_str())?;
        if let Some(bth) = &d.bth {
            writeln!(s, "{}  qp {}  psn {}", bth.opcode, bth.dest_qp, bth.psn)
        } else if let Some(udp) = &d.udp {
            writeln!(s, "UDP {} -> {}", udp.src_port, udp.dst_port)
        } else if let Some(ip) = &d.ip {
            match ip {
                IpRepr::V4(v4) => writeln!(s, "IPv4 protocol {}", v4.protocol),
                IpRepr::V6(v6) => writeln!(s, "IPv6 next header {}", v6.next_header),
            }
        } else if let Some(eth) = &d.eth {
            let ethertype = d.vlans.last().map_or(eth.ethertype, |v| v.ethertype);
            write!(s, "ethertype {ethertype}")?;
            match ethertype.name() {
                Some(name) => writeln!(s, " ({name})"),
                None => writeln!(s),
            }
        } else {
            writeln!(s, "not decodable")
        }
    }

    fn details(&self, s: &mut String) -> fmt::Result {
        let Some(d) = &self.decoded else { return Ok(()) };
        if let IcrcStatus::Bad { found, computed } = d.icrc {
            writeln!(s, "    {:<12} found={found:#010x} computed={computed:#010x}", "icrc")?;
        }
        if d.layout.payload.is_some() {
            writeln!(s, "    {:<12} {} bytes, pad {}", "payload", d.payload.len(), d.pad.len())?;
        }
        if let Some(e) = &d.error {
            writeln!(s, "    {:<12} {e}", "error")?;
        }
        for v in self.violations.iter().flatten() {
            writeln!(s, "    {:<12} {v}", "violation")?;
        }
        Ok(())
    }
}

impl Serialize for FrameView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.record;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("frame", &r.index)?;
        m.serialize_entry("len", &r.data.len())?;
        if r.orig_len as usize > r.data.len() {
            m.serialize_entry("orig_len", &r.orig_len)?;
        }
        entry(&mut m, "timestamp_ns", &r.timestamp_ns)?;
        let Some(d) = &self.decoded else {
            m.serialize_entry("link_type", &r.link_type)?;
            m.serialize_entry("skipped", NOT_ETHERNET)?;
            return m.end();
        };
        m.serialize_entry("error", &d.error.as_ref().map(ToString::to_string))?;
        m.serialize_entry("icrc", d.icrc.as_str())?;
        if let IcrcStatus::Bad { found, computed } = d.icrc {
            m.serialize_entry("icrc_found", &found)?;
            m.serialize_entry("icrc_computed", &computed)?;
        }
        entry(&mut m, "eth", &d.eth)?;
        entry(&mut m, "vlan", &d.vlans.first())?;
        match &d.ip {
            Some(IpRepr::V4(ip)) => m.serialize_entry("ipv4", ip)?,
            Some(IpRepr::V6(ip)) => m.serialize_entry("ipv6", ip)?,
            None => {}
        }
        entry(&mut m, "udp", &d.udp)?;
        entry(&mut m, "bth", &d.bth)?;
        let x = &d.ext;
        entry(&mut m, "meth", &x.meth)?;
        entry(&mut m, "tseth", &x.tseth)?;
        entry(&mut m, "reth", &x.reth)?;
        entry(&mut m, "immdt", &x.immdt)?;
        entry(&mut m, "aeth", &x.aeth)?;
        entry(&mut m, "seth", &x.seth)?;
        entry(&mut m, "cc_state", &x.cc_state)?;
        entry(&mut m, "neth", &x.neth)?;
        entry(&mut m, "peth", &x.peth)?;
        entry(&mut m, "erth", &x.erth)?;
        entry(&mut m, "eeth", &x.eeth)?;
        entry(&mut m, "deth", &x.deth)?;
        entry(&mut m, "ieth", &x.ieth)?;
        entry(&mut m, "atomiceth", &x.atomiceth)?;
        entry(&mut m, "atomicacketh", &x.atomicacketh)?;
        entry(&mut m, "cnp", &x.cnp)?;
        if d.layout.payload.is_some() {
            m.serialize_entry("payload_len", &d.payload.len())?;
            m.serialize_entry("pad_len", &d.pad.len())?;
        }
        entry(&mut m, "violations", &self.violations)?;
        m.end()
    }
}

/// Serializes `key: value` if the value is present.
fn entry<M: SerializeMap, T: Serialize>(
    m: &mut M,
    key: &str,
    v: &Option<T>,
) -> Result<(), M::Error> {
    match v {
        Some(v) => m.serialize_entry(key, v),
        None => Ok(()),
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

fn hex_digits(key: &str) -> Option<usize> {
    match HEX_FIELDS.iter().find(|(k, _)| *k == key) {
        Some((_, digits)) => Some(*digits),
        None => key.starts_with("resv").then_some(0),
    }
}

/// One line of the text view: `header  field=value field=value ...`.
fn header_line(s: &mut String, header: &str, fields: &[(String, Node)]) -> fmt::Result {
    write!(s, "    {header:<12}")?;
    for (key, value) in fields {
        write!(s, " {key}=")?;
        match (value, hex_digits(key)) {
            (Node::Bool(b), _) => write!(s, "{}", u8::from(*b))?,
            (Node::U(n), Some(digits)) => write!(s, "{n:#0w$x}", w = digits + 2)?,
            (Node::Str(text), _) => s.push_str(text),
            (Node::List(items), _) if items.is_empty() => s.push('-'),
            (Node::List(items), _) => {
                for item in items {
                    match item {
                        Node::U(b) => write!(s, "{b:02x}")?,
                        other => write!(s, "{other}")?,
                    }
                }
            }
            (other, _) => write!(s, "{other}")?,
        }
        let code = value.as_u64().and_then(|n| u8::try_from(n).ok());
        if let Some(name) = code.and_then(|c| code_name(header, key, c)) {
            write!(s, "({name})")?;
        }
    }
    writeln!(s)
}

/// The name of a codepoint, for the fields that have named values.
fn code_name(header: &str, key: &str, code: u8) -> Option<&'static str> {
    match (header, key) {
        ("neth", "reason") => NackReason(code).name(),
        ("seth", "m") => EvMark(code).name(),
        ("erth" | "eeth", "op") => EndpointOp(code).name(),
        _ => None,
    }
}

/// A JSON value that keeps the order of object keys, as written (serde_json's `Value`
/// sorts them unless a workspace-wide feature is turned on).
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Null,
    Bool(bool),
    U(u64),
    I(i64),
    F(f64),
    Str(String),
    List(Vec<Node>),
    Obj(Vec<(String, Node)>),
}

impl Node {
    fn as_u64(&self) -> Option<u64> {
        match self {
            Node::U(n) => Some(*n),
            _ => None,
        }
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Null => f.write_str("null"),
            Node::Bool(b) => write!(f, "{b}"),
            Node::U(n) => write!(f, "{n}"),
            Node::I(n) => write!(f, "{n}"),
            Node::F(n) => write!(f, "{n}"),
            Node::Str(s) => f.write_str(s),
            Node::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    write!(f, "{}{item}", if i == 0 { "" } else { "," })?;
                }
                f.write_str("]")
            }
            Node::Obj(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    write!(f, "{}{k}={v}", if i == 0 { "" } else { "," })?;
                }
                f.write_str("}")
            }
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
        Ok(Node::U(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node, E> {
        Ok(u64::try_from(v).map_or(Node::I(v), Node::U))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node, E> {
        Ok(Node::F(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = a.next_element()? {
            items.push(item);
        }
        Ok(Node::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = a.next_entry::<String, Node>()? {
            entries.push(entry);
        }
        Ok(Node::Obj(entries))
    }
}
