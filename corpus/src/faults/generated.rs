//! Generated faults: one per field the judge compares in the frames a device sends, made
//! from the judge's field table ([`ROWS`] and [`ELSEWHERE`]), with no hand work per clause.
//!
//! `perturb-{kind}-{field}` flips the lowest bit of the field (of the EV, bit 16, the
//! lowest one every frame carries) in every frame of the row's kind the device sends, and
//! refits lengths, checksums and the ICRC, so that only that field is wrong. It breaks the
//! row's rule, and is caught by the first scenarios that expect a frame of that kind which
//! the flip changes ([`CATCH_PER_ENTRY`] of them, in corpus order).
//!
//! A row is not made an entry when its field is a prefix (`eth.`, the concrete fields are
//! rows of their own), when no single bit of the field can be flipped (`tseth`, the
//! presence of a header), when the fault is one another row of the same field already
//! makes, or when the corpus cannot catch it and name the row's rule first: those are
//! listed in [`SKIPPED`] with the reason, and `tests/power.rs` checks the list.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use openrdma_codec::frame::{DecodedFrame, FrameRepr, IpRepr, decode};
use openrdma_codec::{Ev, Msn, Psn, Qpn, Rkey, Rqmsn};
use openrdma_conformance::judge::fields::{
    ACK, ALL, DATA, ELSEWHERE, EREQ, ERSP, Kinds, NACK, NAK, PROBE, ROWS, RTX, Row, SACK, WRITE,
    is_must,
};
use openrdma_device::{Body, Direction};

use super::{Caps, Class, Edits, Expect, Fault};

/// How many scenarios a generated entry is run on: enough to show it is caught, few
/// enough to keep the proof affordable.
pub const CATCH_PER_ENTRY: usize = 2;

/// Generated entries not registered, with the reason.
pub const SKIPPED: &[(&str, &str)] = &[
    ("perturb-all-ipv4-ttl", "the lowest bit flipped leaves a legal TTL (ENC-HOP-001)"),
    ("perturb-all-ipv6-hop-limit", "the lowest bit flipped leaves a legal hop limit (ENC-HOP-001)"),
];

/// The bit of the EV a generated fault flips: the lowest one sent over IPv4 too.
const EV_BIT: u32 = 0x1_0000;

/// A perturbation: the kinds of frame and the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Perturb {
    /// The kinds of frame it applies to (the judge's field table's sets).
    pub kinds: Kinds,
    /// The field, as the judge names it.
    pub field: &'static str,
    /// Its bytes put in the other order instead of its lowest bit flipped
    /// ([`layouts`](super::layouts)).
    pub swap: bool,
}

/// The name of a set of kinds in an entry's name.
pub(super) fn kinds_label(k: Kinds) -> String {
    const NAMED: &[(Kinds, &str)] = &[
        (ALL, "all"),
        (WRITE, "write"),
        (DATA, "data"),
        (RTX, "rtx"),
        (SACK, "sack"),
        (NACK, "nack"),
        (ACK, "ack"),
        (NAK, "nak"),
        (PROBE, "probe"),
        (EREQ, "ereq"),
        (ERSP, "ersp"),
    ];
    if let Some((_, n)) = NAMED.iter().find(|(v, _)| *v == k) {
        return (*n).into();
    }
    let parts: Vec<&str> =
        NAMED.iter().filter(|(v, _)| v.count_ones() == 1 && k & v != 0).map(|(_, n)| *n).collect();
    parts.join("-")
}

/// The entry name of a row: `perturb-ack-bth-dest-qp`.
pub fn name_of(row: &Row) -> String {
    let field: String =
        row.field.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    format!("perturb-{}-{}", kinds_label(row.kinds), field.trim_end_matches('-'))
}

/// The kind of a frame, as the judge's field table's sets.
pub fn kind_of(d: &DecodedFrame<'_>) -> Kinds {
    let Some(b) = d.bth else { return 0 };
    if b.opcode.is_mrc_write() {
        return if b.rtx { RTX } else { DATA };
    }
    let e = &d.ext;
    if e.seth.is_some() {
        SACK
    } else if e.neth.is_some() {
        NACK
    } else if let Some(a) = e.aeth {
        if a.syndrome & 0x60 == 0 { ACK } else { NAK }
    } else if e.peth.is_some() {
        PROBE
    } else if e.erth.is_some() {
        EREQ
    } else if e.eeth.is_some() {
        ERSP
    } else {
        0
    }
}

/// Flips the lowest bit of `field` in `f` (bit 16 of the EV); `false` when the frame has no
/// such field or it has no bit to flip.
fn flip(f: &mut FrameRepr, field: &str) -> bool {
    let e = &mut f.ext;
    macro_rules! opt {
        ($h:ident, |$x:ident| $body:expr) => {
            match e.$h.as_mut() {
                Some($x) => {
                    $body;
                    true
                }
                None => false,
            }
        };
    }
    match field {
        "eth.src" => f.eth.src.0[5] ^= 1,
        "eth.dst" => f.eth.dst.0[5] ^= 1,
        "vlan.vid" => match f.vlans.first_mut() {
            Some(v) => v.vid ^= 1,
            None => return false,
        },
        "ip.src" | "ip.dst" | "ipv4.ttl" | "ipv6.hop_limit" => return flip_ip(&mut f.ip, field),
        "udp.dst_port" => f.udp.dst_port ^= 1,
        "bth.opcode" => f.bth.opcode.0 ^= 1,
        "bth.dest_qp" => f.bth.dest_qp = Qpn::new(f.bth.dest_qp.value() ^ 1),
        "bth.psn" => f.bth.psn = Psn::new(f.bth.psn.value() ^ 1),
        "bth.ack_req" => f.bth.ack_req ^= true,
        "bth.rtx" => f.bth.rtx ^= true,
        "bth.pkey" => f.bth.pkey ^= 1,
        "bth.solicited" => f.bth.solicited ^= true,
        "meth.msn" => return opt!(meth, |m| m.msn = Msn::new(m.msn.value() ^ 1)),
        "meth.rqmsn" => return opt!(meth, |m| m.rqmsn = Rqmsn::new(m.rqmsn.value() ^ 1)),
        "reth.va" => return opt!(reth, |r| r.va ^= 1),
        "reth.rkey" => return opt!(reth, |r| r.rkey = Rkey::new(r.rkey.value() ^ 1)),
        "reth.dma_len" => return opt!(reth, |r| r.dma_len ^= 1),
        "immdt." => return opt!(immdt, |i| i.imm ^= 1),
        "tseth.tsr" => return opt!(tseth, |t| t.tsr ^= true),
        "tseth.resv" => return opt!(tseth, |t| t.resv ^= 1),
        "tseth.ftype" => return opt!(tseth, |t| t.ftype ^= 1),
        "neth.nack_psn" => return opt!(neth, |n| n.nack_psn = Psn::new(n.nack_psn.value() ^ 1)),
        "neth.entropy" => return opt!(neth, |n| n.entropy = Ev::new(n.entropy.value() ^ 1)),
        "neth.tx_timestamp" => return opt!(neth, |n| n.tx_timestamp ^= 1),
        "neth.res_type" => return opt!(neth, |n| n.res_type ^= 1),
        "neth.next_header" => return opt!(neth, |n| n.next_header ^= 1),
        "neth.vendor_info" => return opt!(neth, |n| n.vendor_info ^= 1),
        "neth.spdcid" => return opt!(neth, |n| n.spdcid ^= 1),
        "neth.dpdcid" => return opt!(neth, |n| n.dpdcid ^= 1),
        "neth.cc_type" => return opt!(neth, |n| n.cc_type ^= 1),
        "neth.cc_flags" => return opt!(neth, |n| n.cc_flags ^= 1),
        "aeth.msn" => {
            return opt!(aeth, |a| a.msn = openrdma_codec::AethMsn::new(a.msn.value() ^ 1));
        }
        // The EV's low 16 bits are sent only in an IPv6 flow label: bit 16, the lowest bit
        // of the UDP source port, changes every frame.
        "ev" => {
            let ev = f.entropy();
            f.set_entropy(Ev::new(ev.value() ^ EV_BIT));
        }
        "peth.probe_id" => return opt!(peth, |p| p.probe_id ^= 1),
        "peth.ftype" => return opt!(peth, |p| p.ftype ^= 1),
        "erth.port_status" => return opt!(erth, |x| x.port_status ^= 1),
        "erth.resv1" => return opt!(erth, |x| x.resv1 ^= 1),
        "erth.resv12" => return opt!(erth, |x| x.resv12 ^= 1),
        "eeth.port_status" => return opt!(eeth, |x| x.port_status ^= 1),
        "eeth.resv2" => return opt!(eeth, |x| x.resv2 ^= 1),
        "eeth.data" => return opt!(eeth, |x| x.data[0] ^= 1),
        "eeth.op" => return opt!(eeth, |x| x.op.0 ^= 1),
        "eeth.request_id" => return opt!(eeth, |x| x.request_id ^= 1),
        "seth.sack_offset" => return opt!(seth, |s| s.sack_offset ^= 1),
        "seth.mpr" => return opt!(seth, |s| s.mpr ^= 1),
        "seth.res_type" => return opt!(seth, |s| s.res_type ^= 1),
        "seth.next_header" => return opt!(seth, |s| s.next_header ^= 1),
        "seth.spdcid" => return opt!(seth, |s| s.spdcid ^= 1),
        "seth.dpdcid" => return opt!(seth, |s| s.dpdcid ^= 1),
        "seth.cc_type" => return opt!(seth, |s| s.cc_type ^= 1),
        "seth.cc_flags" => return opt!(seth, |s| s.cc_flags ^= 1),
        "payload" => match f.payload.first_mut() {
            Some(b) => *b ^= 1,
            None => return false,
        },
        _ => return false,
    }
    true
}

fn flip_ip(ip: &mut IpRepr, field: &str) -> bool {
    match (ip, field) {
        (IpRepr::V4(v4), "ip.src") => v4.src = flip_v4(v4.src),
        (IpRepr::V4(v4), "ip.dst") => v4.dst = flip_v4(v4.dst),
        (IpRepr::V4(v4), "ipv4.ttl") => v4.ttl ^= 1,
        (IpRepr::V6(v6), "ip.src") => v6.src = flip_v6(v6.src),
        (IpRepr::V6(v6), "ip.dst") => v6.dst = flip_v6(v6.dst),
        (IpRepr::V6(v6), "ipv6.hop_limit") => v6.hop_limit ^= 1,
        _ => return false,
    }
    true
}

fn flip_v4(a: std::net::Ipv4Addr) -> std::net::Ipv4Addr {
    std::net::Ipv4Addr::from(u32::from(a) ^ 1)
}

fn flip_v6(a: std::net::Ipv6Addr) -> std::net::Ipv6Addr {
    std::net::Ipv6Addr::from(u128::from(a) ^ 1)
}

/// A frame the device sends, with `p`'s field flipped when it is of `p`'s kinds.
pub fn perturb(bytes: &[u8], p: Perturb) -> Option<Vec<u8>> {
    let d = decode(bytes);
    if kind_of(&d) & p.kinds == 0 {
        return None;
    }
    if p.field == "bth.pad_count" && !p.swap {
        return flip_pad_count(bytes, &d);
    }
    let mut f = d.to_repr()?;
    let changed =
        if p.swap { super::layouts::swap(&mut f, p.field) } else { flip(&mut f, p.field) };
    if !changed {
        return None;
    }
    super::refit(&mut f).ok()
}

/// The frame with the lowest bit of its pad count flipped (BTH byte 1, bit 4), and its
/// ICRC computed again: its bytes and lengths stay, so that only the count is wrong.
fn flip_pad_count(bytes: &[u8], d: &DecodedFrame<'_>) -> Option<Vec<u8>> {
    let (bth, ip, icrc) = (d.layout.bth?, d.layout.ip?, d.layout.icrc?);
    let mut b = bytes.to_vec();
    *b.get_mut(bth + 1)? ^= 0x10;
    let crc = openrdma_codec::icrc::compute(b.get(ip..icrc)?).ok()?;
    b.get_mut(icrc..icrc + 4)?.copy_from_slice(&crc.to_le_bytes());
    Some(b)
}

/// The rows of the field table, each (kinds, field) once, in table order.
pub fn rows() -> Vec<Row> {
    let mut seen = BTreeSet::new();
    ROWS.iter().chain(ELSEWHERE).filter(|r| seen.insert((r.kinds, r.field))).copied().collect()
}

/// The frames a scenario expects, each with its kinds.
type Frames = Vec<(Kinds, Vec<u8>)>;

/// The entries a generated family made, and the rows it made none of, with the reason.
pub(super) struct Generated {
    pub(super) faults: Vec<Fault>,
    pub(super) left: Vec<(String, &'static str)>,
}

/// The frames of each scenario of the corpus in direction `dir` (inject: the frames the
/// device takes; expect: those it sends), by scenario name, in corpus order: what a
/// generated family picks the scenarios that catch an entry from.
pub(super) fn corpus_frames(dir: Direction) -> Vec<(String, Vec<Vec<u8>>)> {
    crate::all()
        .into_iter()
        .map(|(name, build)| {
            let frames = build()
                .records
                .into_iter()
                .filter(|r| r.dir == dir)
                .filter_map(|r| match r.body {
                    Body::Frame { bytes, .. } => Some(bytes.to_vec()),
                    _ => None,
                })
                .collect();
            (name.to_string(), frames)
        })
        .collect()
}

/// The first [`CATCH_PER_ENTRY`] scenarios of `corpus` whose frames `carry` what an entry
/// changes, by name, kept for good.
pub(super) fn catching<T>(corpus: &[(String, T)], carry: impl Fn(&T) -> bool) -> Vec<&'static str> {
    corpus
        .iter()
        .filter(|(_, frames)| carry(frames))
        .take(CATCH_PER_ENTRY)
        .map(|(n, _)| &*Box::leak(n.clone().into_boxed_str()))
        .collect()
}

fn generated() -> &'static Generated {
    static GENERATED: OnceLock<Generated> = OnceLock::new();
    GENERATED.get_or_init(|| {
        let corpus: Vec<(String, Frames)> = corpus_frames(Direction::Expect)
            .into_iter()
            .map(|(n, frames)| (n, frames.into_iter().map(|b| (kind_of(&decode(&b)), b)).collect()))
            .collect();
        let mut out = Generated { faults: Vec::new(), left: Vec::new() };
        for row in rows() {
            let name = name_of(&row);
            if row.field.ends_with('.') && row.field != "immdt." {
                out.left.push((name, "a prefix: its fields are rows of their own"));
                continue;
            }
            if let Some((_, why)) = SKIPPED.iter().find(|(n, _)| *n == name) {
                out.left.push((name, why));
                continue;
            }
            // The scenarios that expect a frame the perturbation changes: of the row's
            // kinds, carrying the field, and still a frame once it is flipped.
            let p = Perturb { kinds: row.kinds, field: row.field, swap: false };
            let carries = |frames: &[(Kinds, Vec<u8>)]| {
                frames.iter().any(|(k, b)| k & row.kinds != 0 && perturb(b, p).is_some())
            };
            let catch = catching(&corpus, |frames| carries(frames));
            if catch.is_empty() {
                out.left.push((
                    name,
                    "no frame the corpus expects carries the field, or it has no bit to flip",
                ));
                continue;
            }
            out.faults.push(entry(row, Box::leak(name.into_boxed_str()), catch.leak()));
        }
        out
    })
}

/// Every generated entry, made once, from the judge's field table and the corpus.
pub fn faults() -> &'static [Fault] {
    &generated().faults
}

/// The rows of the field table made no entry, by name, with the reason.
pub fn left_out() -> &'static [(String, &'static str)] {
    &generated().left
}

fn entry(row: Row, name: &'static str, catch: &'static [&'static str]) -> Fault {
    let breaks: &'static [openrdma_conformance::req::Clause] = Box::leak(Box::new([row.rule]));
    let bit = if row.field == "ev" { "bit 16" } else { "the lowest bit" };
    let what = format!(
        "{bit} of {} is wrong in every {} frame it sends",
        row.field,
        kinds_label(row.kinds)
    );
    Fault {
        name,
        class: Class::Fault,
        what: Box::leak(what.into_boxed_str()),
        breaks,
        expect: if is_must(row.rule) { Expect::Fails } else { Expect::NonStrict },
        catch,
        caps: Caps::Same,
        edits: Edits {
            perturb: Some(Perturb { kinds: row.kinds, field: row.field, swap: false }),
            ..Edits::NONE
        },
    }
}
