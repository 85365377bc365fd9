//! Frames as decoded fields, both ways (`CONF-ADP-014`, `CONF-ADP-015`, `CONF-ADP-016`).
//!
//! * [`frame_fields_json`] (the device boundary's, re-exported) gives the decoded headers of
//!   an input frame, the object
//!   `openrdma dissect --json` prints for it, so that a harness for hardware can drive its
//!   device field by field without a packet decoder.
//! * [`frame_from_fields`] is the other way: a device that has no packet encoder of its own
//!   (an RTL block that decides *what* to send, not how it is framed) gives an output frame
//!   in the same shape, and the runner builds the bytes with the codec's [`FrameRepr`].
//!
//! The shape is one object per header, keyed `eth`, `vlans` (optional: an array of tags,
//! outer first) or `vlan` (optional: the one tag), `ipv4` or `ipv6`,
//! `udp`, `bth`, and the extension headers the BTH opcode (and `ts`) call for, each holding
//! every field of its `Repr` under the same names `dissect` uses; then `payload`, the payload
//! in hexadecimal (optional, empty when absent). Keys `dissect` adds about the frame as a
//! whole (`len`, `error`, `icrc`, `payload_len`, `pad_len`, ...) and unknown keys are not read.
//!
//! The derived fields may be left out and are then computed, in this order, each from the
//! values before it: BTH `pad_count` (the pad bytes are zero), IPv4 `ihl`, UDP `length`, IPv4
//! `total_len` or IPv6 `payload_len`, the IPv4 header `checksum`, the UDP `checksum` (0 over
//! IPv4, `ENC-UDP-003`; computed over IPv6, `ENC-UDP-004`). A derived field that is given is
//! written as given, as it would be in `bytes`. The ICRC is always computed.
//!
//! Everything else is the device's to say: a missing or ill-typed field, a value that does
//! not fit its bits on the wire, an extension header the opcode does not call for (or one
//! it calls for and that is missing), and a frame with no IP header or two, are errors that
//! name the field by its path (`ipv4.ttl`, `seth.cack_psn`). Whether the frame then decodes
//! as RoCEv2 (EtherTypes, protocol numbers and ports that lead from one header to the next)
//! is judged by the scoreboard, as for a frame given in bytes.

use openrdma_codec::frame::{FrameRepr, IpRepr, decode, header_stack};
use openrdma_codec::{
    AethRepr, AtomicAckEthRepr, AtomicEthRepr, BthRepr, CcStateRepr, CnpRepr, DethRepr, EethRepr,
    EmitError, ErthRepr, EthernetRepr, ExtHeader, FethRepr, IP_PROTO_UDP, IethRepr, ImmDtRepr,
    Ipv4Repr, Ipv6Repr, MethRepr, NethRepr, PethRepr, RdethRepr, RethRepr, SethRepr, TsethRepr,
    UdpRepr, VlanRepr, XrcethRepr,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use openrdma_device::ext_json;

use crate::req::Clause;
pub use openrdma_device::frame_fields_json;

/// What is wrong with an output frame given as fields: the field, as a path from the
/// `fields` object (`ipv4.ttl`; empty for the object itself), and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldsError {
    /// A field or header the frame needs is not given.
    #[error("missing field `{field}`")]
    Missing {
        /// The path of the field.
        field: String,
    },
    /// A field or header is given but cannot be used.
    #[error("field `{field}`: {reason}")]
    Bad {
        /// The path of the field.
        field: String,
        /// What is wrong.
        reason: String,
    },
}

impl FieldsError {
    /// The clause the frame breaks: `CONF-ADP-016`, the fields of an output frame given as
    /// fields.
    pub fn requirement(&self) -> Clause {
        crate::req::CONF_ADP_016
    }
}

impl FieldsError {
    fn missing(field: impl Into<String>) -> Self {
        FieldsError::Missing { field: field.into() }
    }

    fn bad(field: impl Into<String>, reason: impl Into<String>) -> Self {
        FieldsError::Bad { field: field.into(), reason: reason.into() }
    }

    /// The same error, its path taken from the object `prefix` names.
    pub fn within(self, prefix: &str) -> Self {
        let join =
            |f: String| if f.is_empty() { prefix.to_string() } else { format!("{prefix}.{f}") };
        match self {
            FieldsError::Missing { field } => FieldsError::Missing { field: join(field) },
            FieldsError::Bad { field, reason } => FieldsError::Bad { field: join(field), reason },
        }
    }

    /// The path of the field at fault.
    pub fn field(&self) -> &str {
        match self {
            FieldsError::Missing { field } | FieldsError::Bad { field, .. } => field,
        }
    }
}

/// The key of an extension header in the fields object.
fn ext_key(h: ExtHeader) -> &'static str {
    h.header().name()
}

/// What JSON value `v` is, for error messages.
pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The derived fields of each header: the runner computes those the device leaves out.
const DERIVED_IPV4: &[&str] = &["ihl", "total_len", "checksum"];
const DERIVED_IPV6: &[&str] = &["payload_len"];
const DERIVED_UDP: &[&str] = &["length", "checksum"];
const DERIVED_BTH: &[&str] = &["pad_count"];

/// A header read from the fields, with the derived fields the device gave.
struct Read<T> {
    repr: T,
    given: Vec<&'static str>,
}

impl<T> Read<T> {
    fn gave(&self, field: &str) -> bool {
        self.given.contains(&field)
    }
}

/// Whether `key` holds a header (present and not null).
fn present(m: &Map<String, Value>, key: &str) -> bool {
    !matches!(m.get(key), None | Some(Value::Null))
}

/// Reads header `key` as a `T`. Every field of `T` (the keys `template` serializes to) must be
/// given except those in `derived`, which take the template's value until they are computed.
/// An error names the first field at fault.
fn read<T: Serialize + DeserializeOwned>(
    m: &Map<String, Value>,
    key: &str,
    template: &T,
    derived: &'static [&'static str],
) -> Result<Read<T>, FieldsError> {
    let obj = match m.get(key) {
        None | Some(Value::Null) => return Err(FieldsError::missing(key)),
        Some(Value::Object(o)) => o,
        Some(other) => {
            return Err(FieldsError::bad(
                key,
                format!("expected an object, found {}", kind(other)),
            ));
        }
    };
    let Ok(Value::Object(template)) = serde_json::to_value(template) else {
        return Err(FieldsError::bad(key, "this header cannot be given as fields"));
    };
    let mut merged = Map::new();
    let mut given = Vec::new();
    for (k, t) in &template {
        let derived = derived.iter().find(|d| **d == k.as_str());
        match (obj.get(k), derived) {
            (Some(v), d) => {
                merged.insert(k.clone(), v.clone());
                given.extend(d);
            }
            (None, Some(_)) => {
                merged.insert(k.clone(), t.clone());
            }
            (None, None) => return Err(FieldsError::missing(format!("{key}.{k}"))),
        }
    }
    match serde_json::from_value::<T>(Value::Object(merged.clone())) {
        Ok(repr) => Ok(Read { repr, given }),
        Err(e) => {
            // Find the field: the first one that fails on its own, in the template.
            for (k, v) in &merged {
                let mut trial = template.clone();
                trial.insert(k.clone(), v.clone());
                if let Err(e) = serde_json::from_value::<T>(Value::Object(trial)) {
                    return Err(FieldsError::bad(format!("{key}.{k}"), e.to_string()));
                }
            }
            Err(FieldsError::bad(key, e.to_string()))
        }
    }
}

/// Reads extension header `h` into `ext`.
fn read_ext(
    m: &Map<String, Value>,
    h: ExtHeader,
    ext: &mut openrdma_codec::frame::Extensions,
) -> Result<(), FieldsError> {
    fn one<T: Serialize + DeserializeOwned + Default>(
        m: &Map<String, Value>,
        key: &str,
    ) -> Result<Option<T>, FieldsError> {
        read(m, key, &T::default(), &[]).map(|r| Some(r.repr))
    }
    let key = ext_key(h);
    match h {
        ExtHeader::Meth => ext.meth = one::<MethRepr>(m, key)?,
        ExtHeader::Tseth => ext.tseth = one::<TsethRepr>(m, key)?,
        ExtHeader::Reth => ext.reth = one::<RethRepr>(m, key)?,
        ExtHeader::ImmDt => ext.immdt = one::<ImmDtRepr>(m, key)?,
        ExtHeader::Aeth => ext.aeth = one::<AethRepr>(m, key)?,
        ExtHeader::Seth => ext.seth = one::<SethRepr>(m, key)?,
        ExtHeader::CcState => ext.cc_state = one::<CcStateRepr>(m, key)?,
        ExtHeader::Neth => ext.neth = one::<NethRepr>(m, key)?,
        ExtHeader::Peth => ext.peth = one::<PethRepr>(m, key)?,
        ExtHeader::Erth => ext.erth = one::<ErthRepr>(m, key)?,
        ExtHeader::Eeth => ext.eeth = one::<EethRepr>(m, key)?,
        ExtHeader::Deth => ext.deth = one::<DethRepr>(m, key)?,
        ExtHeader::Rdeth => ext.rdeth = one::<RdethRepr>(m, key)?,
        ExtHeader::Xrceth => ext.xrceth = one::<XrcethRepr>(m, key)?,
        ExtHeader::Ieth => ext.ieth = one::<IethRepr>(m, key)?,
        ExtHeader::AtomicEth => ext.atomiceth = one::<AtomicEthRepr>(m, key)?,
        ExtHeader::AtomicAckEth => ext.atomicacketh = one::<AtomicAckEthRepr>(m, key)?,
        ExtHeader::Feth => ext.feth = one::<FethRepr>(m, key)?,
        ExtHeader::Cnp => ext.cnp = one::<CnpRepr>(m, key)?,
    }
    Ok(())
}

/// Reads the VLAN tags, outer first: `vlans`, an array of tags, or `vlan`, the one tag of
/// a frame with one; none when neither is given. Given both, `vlan` must be `vlans[0]`, as
/// in an input frame's fields.
fn read_vlans(m: &Map<String, Value>) -> Result<Vec<VlanRepr>, FieldsError> {
    let vlan =
        if present(m, "vlan") { Some(read(m, "vlan", &vlan_template(), &[])?.repr) } else { None };
    let list = match m.get("vlans") {
        None | Some(Value::Null) => return Ok(vlan.into_iter().collect()),
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(FieldsError::bad(
                "vlans",
                format!("expected an array of tags, found {}", kind(other)),
            ));
        }
    };
    let mut tags = Vec::with_capacity(list.len());
    for (k, tag) in list.iter().enumerate() {
        let mut one = Map::new();
        one.insert("tag".into(), tag.clone());
        let at = format!("vlans[{k}]");
        let r = read(&one, "tag", &vlan_template(), &[]).map_err(|e| rename(e, "tag", &at))?;
        // The bits on the wire, checked here so that the error names the tag.
        for (field, value, max) in [("pcp", r.repr.pcp.into(), 7u16), ("vid", r.repr.vid, 0xFFF)] {
            if value > max {
                return Err(FieldsError::bad(
                    format!("{at}.{field}"),
                    format!("{value} does not fit the field on the wire (at most {max})"),
                ));
            }
        }
        tags.push(r.repr);
    }
    if let Some(v) = vlan {
        if tags.first() != Some(&v) {
            return Err(FieldsError::bad("vlan", "disagrees with vlans[0], the outer tag"));
        }
    }
    Ok(tags)
}

/// `e` with the path's first part `from` renamed `to`.
fn rename(e: FieldsError, from: &str, to: &str) -> FieldsError {
    let swap = |f: String| match f.strip_prefix(from) {
        Some(rest) => format!("{to}{rest}"),
        None => f,
    };
    match e {
        FieldsError::Missing { field } => FieldsError::Missing { field: swap(field) },
        FieldsError::Bad { field, reason } => FieldsError::Bad { field: swap(field), reason },
    }
}

/// Reads the payload: hexadecimal, two digits per byte, either case; absent means none.
fn read_payload(m: &Map<String, Value>) -> Result<Vec<u8>, FieldsError> {
    let s = match m.get("payload") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::String(s)) => s.as_bytes(),
        Some(other) => {
            return Err(FieldsError::bad(
                "payload",
                format!("expected a string of hexadecimal digits, found {}", kind(other)),
            ));
        }
    };
    if s.len() % 2 != 0 {
        return Err(FieldsError::bad("payload", "hex bytes: odd number of digits"));
    }
    let digit = |c: u8| char::from(c).to_digit(16).map(|d| d as u8);
    s.chunks_exact(2)
        .enumerate()
        .map(|(i, p)| match (digit(p[0]), digit(p[1])) {
            (Some(h), Some(l)) => Ok(h << 4 | l),
            _ => Err(FieldsError::bad("payload", format!("hex bytes: bad digit at {}", 2 * i))),
        })
        .collect()
}

fn emit_error(e: EmitError) -> FieldsError {
    match e {
        EmitError::FieldOutOfRange { header, field, value, max } => FieldsError::bad(
            format!("{}.{field}", header.name()),
            format!("{value} does not fit the field on the wire (at most {max})"),
        ),
        EmitError::Inconsistent { header, field } => FieldsError::bad(
            format!("{}.{field}", header.name()),
            "disagrees with the rest of the frame",
        ),
        other => FieldsError::bad("", other.to_string()),
    }
}

fn too_long(field: &str, len: usize) -> FieldsError {
    FieldsError::bad(field, format!("the frame is too long: this length would be {len}"))
}

/// Builds an output frame from its fields (`CONF-ADP-015`): see the module documentation.
pub fn frame_from_fields(fields: &Value) -> Result<Vec<u8>, FieldsError> {
    let m = match fields {
        Value::Object(m) => m,
        other => {
            return Err(FieldsError::bad("", format!("expected an object, found {}", kind(other))));
        }
    };
    let eth = read(m, "eth", &eth_template(), &[])?.repr;
    let vlans = read_vlans(m)?;
    let unspecified4 = core::net::Ipv4Addr::UNSPECIFIED;
    let unspecified6 = core::net::Ipv6Addr::UNSPECIFIED;
    let (v4, v6) = match (present(m, "ipv4"), present(m, "ipv6")) {
        (true, true) => {
            return Err(FieldsError::bad("ipv6", "a frame has one IP header, and ipv4 is given"));
        }
        (false, false) => {
            return Err(FieldsError::bad("", "no IP header: give ipv4 or ipv6"));
        }
        (true, false) => {
            let t = Ipv4Repr::new(unspecified4, unspecified4, IP_PROTO_UDP);
            (Some(read(m, "ipv4", &t, DERIVED_IPV4)?), None)
        }
        (false, true) => {
            let t = Ipv6Repr::new(unspecified6, unspecified6, IP_PROTO_UDP);
            (None, Some(read(m, "ipv6", &t, DERIVED_IPV6)?))
        }
    };
    let udp = read(m, "udp", &UdpRepr::default(), DERIVED_UDP)?;
    let bth = read(m, "bth", &BthRepr::default(), DERIVED_BTH)?;

    // Exactly the extension headers the opcode calls for.
    let stack: Vec<ExtHeader> = header_stack(&bth.repr).collect();
    let mut ext = openrdma_codec::frame::Extensions::default();
    for h in ExtHeader::ALL {
        let key = ext_key(h);
        match (present(m, key), stack.contains(&h)) {
            (true, true) => read_ext(m, h, &mut ext)?,
            (false, false) => {}
            (true, false) => {
                let why = if h == ExtHeader::Tseth {
                    "bth.ts is false, so the frame has no tseth".to_string()
                } else {
                    format!("opcode {:#04x} ({}) has no {key}", bth.repr.opcode.0, bth.repr.opcode)
                };
                return Err(FieldsError::bad(key, why));
            }
            (false, true) => return Err(FieldsError::missing(key)),
        }
    }
    let payload = read_payload(m)?;

    let ip = match (&v4, &v6) {
        (Some(r), _) => IpRepr::V4(r.repr.clone()),
        (_, Some(r)) => IpRepr::V6(r.repr),
        (None, None) => return Err(FieldsError::bad("", "no IP header: give ipv4 or ipv6")),
    };
    let mut f = FrameRepr {
        eth,
        vlans,
        ip,
        udp: udp.repr,
        bth: bth.repr,
        ext,
        payload,
        pad: [0; 3],
        icrc: None,
        eth_padding: Vec::new(),
    };
    fill_derived(&mut f, v4.as_ref(), v6.as_ref(), &udp, &bth)?;
    let bytes = f.to_bytes().map_err(emit_error)?;
    check_read_back(&f, &bytes)?;
    Ok(bytes)
}

/// Computes the derived fields the device left out, in dependency order.
fn fill_derived(
    f: &mut FrameRepr,
    v4: Option<&Read<Ipv4Repr>>,
    v6: Option<&Read<Ipv6Repr>>,
    udp: &Read<UdpRepr>,
    bth: &Read<BthRepr>,
) -> Result<(), FieldsError> {
    let gave4 = |field: &str| v4.is_some_and(|r| r.gave(field));
    let gave6 = |field: &str| v6.is_some_and(|r| r.gave(field));
    if !bth.gave("pad_count") {
        f.bth.pad_count = ((4 - f.payload.len() % 4) % 4) as u8;
    }
    if let IpRepr::V4(ip) = &mut f.ip {
        if !gave4("ihl") {
            // An option length that is not a multiple of 4 is reported by emit.
            ip.ihl = u8::try_from(5 + ip.options.len() / 4).unwrap_or(u8::MAX);
        }
    }
    // `ip_len` counts the pad bytes that `pad_count` says, as emit writes them.
    let ip_len = f.ip_len();
    let udp_len = ip_len - f.ip.header_len();
    if !udp.gave("length") {
        f.udp.length = u16::try_from(udp_len).map_err(|_| too_long("udp.length", udp_len))?;
    }
    match &mut f.ip {
        IpRepr::V4(ip) => {
            if !gave4("total_len") {
                ip.total_len =
                    u16::try_from(ip_len).map_err(|_| too_long("ipv4.total_len", ip_len))?;
            }
            if !gave4("checksum") {
                ip.fill_checksum().map_err(emit_error)?;
            }
            if !udp.gave("checksum") {
                // ENC-UDP-003: no UDP checksum over IPv4.
                f.udp.checksum = 0;
            }
        }
        IpRepr::V6(ip) => {
            if !gave6("payload_len") {
                ip.payload_len =
                    u16::try_from(udp_len).map_err(|_| too_long("ipv6.payload_len", udp_len))?;
            }
            if !udp.gave("checksum") {
                // ENC-UDP-004: computed over IPv6. The ICRC masks the UDP checksum, so the
                // datagram can be emitted with a zero checksum and summed afterwards.
                let (src, dst) = (ip.src, ip.dst);
                f.udp.checksum = 0;
                let bytes = f.to_bytes().map_err(emit_error)?;
                let at = bytes.len() - f.eth_padding.len() - udp_len;
                f.udp.checksum = UdpRepr::compute_checksum_v6(src, dst, &bytes[at..at + udp_len]);
            }
        }
    }
    Ok(())
}

/// Checks that every header given reads back from the bytes as given, so that a value
/// the wire cannot carry (a 25-bit PSN, a 21-bit flow label) is refused rather than cut.
/// Headers after a point where the frame stops decoding are left to the scoreboard.
fn check_read_back(f: &FrameRepr, bytes: &[u8]) -> Result<(), FieldsError> {
    let d = decode(bytes);
    fn same<T: Serialize>(key: &str, given: &T, got: Option<&T>) -> Result<(), FieldsError> {
        let Some(got) = got else { return Ok(()) };
        let (Ok(Value::Object(a)), Ok(Value::Object(b))) =
            (serde_json::to_value(given), serde_json::to_value(got))
        else {
            return Ok(());
        };
        for (k, v) in &a {
            match b.get(k) {
                Some(w) if w != v => {
                    return Err(FieldsError::bad(
                        format!("{key}.{k}"),
                        format!("{v} does not fit the field on the wire, which reads back as {w}"),
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }
    same("eth", &f.eth, d.eth.as_ref())?;
    for (k, v) in f.vlans.iter().enumerate() {
        same(&format!("vlans[{k}]"), v, d.vlans.get(k))?;
    }
    match (&f.ip, &d.ip) {
        (IpRepr::V4(a), Some(IpRepr::V4(b))) => same("ipv4", a, Some(b))?,
        (IpRepr::V6(a), Some(IpRepr::V6(b))) => same("ipv6", a, Some(b))?,
        _ => {}
    }
    same("udp", &f.udp, d.udp.as_ref())?;
    same("bth", &f.bth, d.bth.as_ref())?;
    for h in ExtHeader::ALL {
        if let (Some(a), Some(b)) = (ext_json(&f.ext, h), ext_json(&d.ext, h)) {
            same(ext_key(h), &a, Some(&b))?;
        }
    }
    Ok(())
}

/// Templates: a value of each outer header type, whose serialized keys are the fields a
/// device must give.
fn eth_template() -> EthernetRepr {
    EthernetRepr { dst: Default::default(), src: Default::default(), ethertype: Default::default() }
}

fn vlan_template() -> VlanRepr {
    VlanRepr { pcp: 0, dei: false, vid: 0, ethertype: Default::default() }
}
