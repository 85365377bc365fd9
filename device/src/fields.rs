//! A frame's decoded headers in JSON: the `fields` the adapter protocol gives beside the
//! bytes of an input frame (`spec/conformance.md` section 9.4, `CONF-ADP-014`), which the C
//! library gives for every frame too. They are what `openrdma dissect --json` prints for the
//! frame, plus `discard`; the bytes remain the frame.

use openrdma_codec::ExtHeader;
use openrdma_codec::frame::{IcrcStatus, IpRepr, decode};
use serde::Serialize;
use serde_json::{Map, Value};

/// The decoded headers of a frame, as `openrdma dissect --json` shows them without the
/// record's number and time: `len`, `error`, `icrc` (and `icrc_found`, `icrc_computed`
/// when it is bad), then one object per decoded header keyed by the field names of its
/// `Repr` — `eth`, `vlan`, `ipv4` or `ipv6`, `udp`, `bth`, and the extension headers
/// (`meth`, `tseth`, `reth`, `immdt`, `aeth`, `seth`, `cc_state`, `neth`, `peth`, `erth`,
/// `eeth`, `deth`, `rdeth`, `xrceth`, `ieth`, `atomiceth`, `atomicacketh`, `feth`, `cnp`) — and
/// `payload_len`, `pad_len` when decoding reached the payload. Of a tagged frame, `vlans`
/// holds every tag, outer first, and `vlan` the outer one (the key that came first, kept
/// for harnesses that read it). Of a frame a receiver must discard (`RCV-FRAME-001`),
/// `discard` names the requirement that makes it one; the key is absent for a frame to
/// take.
pub fn frame_fields_json(bytes: &[u8]) -> Value {
    let d = decode(bytes);
    let mut m = Map::new();
    fn put<T: Serialize>(m: &mut Map<String, Value>, key: &str, v: &Option<T>) {
        if let Some(v) = v {
            if let Ok(v) = serde_json::to_value(v) {
                m.insert(key.to_string(), v);
            }
        }
    }
    m.insert("len".into(), bytes.len().into());
    m.insert("error".into(), d.error.as_ref().map(ToString::to_string).into());
    m.insert("icrc".into(), d.icrc.as_str().into());
    if let IcrcStatus::Bad { found, computed } = d.icrc {
        m.insert("icrc_found".into(), found.into());
        m.insert("icrc_computed".into(), computed.into());
    }
    put(&mut m, "eth", &d.eth);
    if let Some(reason) = d.discard_reason() {
        m.insert("discard".into(), reason.into());
    }
    put(&mut m, "vlan", &d.vlans.first());
    if !d.vlans.is_empty() {
        if let Ok(v) = serde_json::to_value(&d.vlans) {
            m.insert("vlans".into(), v);
        }
    }
    match &d.ip {
        Some(IpRepr::V4(ip)) => put(&mut m, "ipv4", &Some(ip)),
        Some(IpRepr::V6(ip)) => put(&mut m, "ipv6", &Some(ip)),
        None => {}
    }
    put(&mut m, "udp", &d.udp);
    put(&mut m, "bth", &d.bth);
    for h in ExtHeader::ALL {
        if let Some(v) = ext_json(&d.ext, h) {
            m.insert(ext_key(h).into(), v);
        }
    }
    if d.layout.payload.is_some() {
        m.insert("payload_len".into(), d.payload.len().into());
        m.insert("pad_len".into(), d.pad.len().into());
    }
    Value::Object(m)
}

/// The key of an extension header in the fields object.
fn ext_key(h: ExtHeader) -> &'static str {
    h.header().name()
}

/// Extension header `h` of `x` in JSON, as [`frame_fields_json`] gives it under its key
/// (the header's name), if present.
pub fn ext_json(x: &openrdma_codec::frame::Extensions, h: ExtHeader) -> Option<Value> {
    fn j<T: Serialize>(v: &Option<T>) -> Option<Value> {
        v.as_ref().and_then(|v| serde_json::to_value(v).ok())
    }
    match h {
        ExtHeader::Meth => j(&x.meth),
        ExtHeader::Tseth => j(&x.tseth),
        ExtHeader::Reth => j(&x.reth),
        ExtHeader::ImmDt => j(&x.immdt),
        ExtHeader::Aeth => j(&x.aeth),
        ExtHeader::Seth => j(&x.seth),
        ExtHeader::CcState => j(&x.cc_state),
        ExtHeader::Neth => j(&x.neth),
        ExtHeader::Peth => j(&x.peth),
        ExtHeader::Erth => j(&x.erth),
        ExtHeader::Eeth => j(&x.eeth),
        ExtHeader::Deth => j(&x.deth),
        ExtHeader::Rdeth => j(&x.rdeth),
        ExtHeader::Xrceth => j(&x.xrceth),
        ExtHeader::Ieth => j(&x.ieth),
        ExtHeader::AtomicEth => j(&x.atomiceth),
        ExtHeader::AtomicAckEth => j(&x.atomicacketh),
        ExtHeader::Feth => j(&x.feth),
        ExtHeader::Cnp => j(&x.cnp),
    }
}
