//! Generated faults: one per multi-byte field of the judge's layout table
//! ([`LAYOUTS`]), in each kind of frame the field table compares it in, made with no hand
//! work per clause.
//!
//! `swap-{kind}-{field}` sends the field with its bytes in the other order in every frame
//! of the row's kind, the value otherwise right, and refits lengths, checksums and the
//! ICRC: the encoder of one header has one field laid out wrong. It breaks the header's
//! layout rule, and is caught by the first scenarios that expect a frame of that kind whose
//! field the swap changes ([`CATCH_PER_ENTRY`] of them, in corpus order). A row whose
//! swap no scenario shows, or whose field is the identity the judge pairs frames by (so
//! that a swapped one reads as a frame missing and another unexpected), is made no entry
//! and is listed by [`left_out`] with the reason.
//!
//! [`CATCH_PER_ENTRY`]: super::generated::CATCH_PER_ENTRY

use std::sync::OnceLock;

use openrdma_codec::frame::FrameRepr;
use openrdma_codec::{AethMsn, Ev, Msn, Psn, Qpn, Rkey, Rqmsn};
use openrdma_conformance::judge::fields::{Kinds, LAYOUTS, Layout, byte_swapped};
use openrdma_device::Direction;

use super::generated::{self, Generated, Perturb};
use super::{Caps, Class, Edits, Expect, Fault};

/// Rows made no entry whatever the corpus holds, by entry name, with the reason.
pub const SKIPPED: &[(&str, &str)] = &[
    (
        "swap-write-bth-psn",
        "the PSN is the identity a data packet is paired by: a swapped one is named as a packet missing",
    ),
    (
        "swap-ack-aeth-msn",
        "the MSN is the identity an ACK is paired by: a swapped one is named as an ACK missing",
    ),
    (
        "swap-write-bth-dest-qp",
        "the QP is the identity a data packet is paired by: a swapped one is named as a packet missing",
    ),
];

/// The rows of the field table (kinds, field) whose field is in the layout table, each
/// once, in table order, with its layout row.
pub fn rows() -> Vec<(Kinds, Layout)> {
    let mut out: Vec<(Kinds, Layout)> = Vec::new();
    for r in generated::rows() {
        // A row of a prefix (`immdt.`) stands for every field under it.
        let fits = |l: &&Layout| match r.field.strip_suffix('.') {
            Some(p) => l.field.strip_prefix(p).is_some_and(|rest| rest.starts_with('.')),
            None => l.field == r.field,
        };
        for l in LAYOUTS.iter().filter(fits) {
            if !out.iter().any(|(k, x)| *k == r.kinds && x.field == l.field) {
                out.push((r.kinds, *l));
            }
        }
    }
    out
}

/// The entry name of a row: `swap-ack-aeth-msn`.
pub fn name_of(kinds: Kinds, l: &Layout) -> String {
    let row = openrdma_conformance::judge::fields::Row { kinds, field: l.field, rule: l.rule };
    generated::name_of(&row).replacen("perturb-", "swap-", 1)
}

/// Sets `field` of `f` to its bytes in the other order; `false` when the frame has no such
/// field or the swap leaves it as it is.
pub(super) fn swap(f: &mut FrameRepr, field: &str) -> bool {
    let Some(l) = LAYOUTS.iter().find(|l| l.field == field) else { return false };
    let s = |v: u64| byte_swapped(v, l.bits);
    let e = &mut f.ext;
    let before = format!("{:?}{:?}{:?}", f.bth, e, f.ip);
    match field {
        "bth.pkey" => f.bth.pkey = s(f.bth.pkey.into()) as u16,
        "bth.dest_qp" => f.bth.dest_qp = Qpn::new(s(f.bth.dest_qp.value().into()) as u32),
        "bth.psn" => f.bth.psn = Psn::new(s(f.bth.psn.value().into()) as u32),
        "meth.msn" => {
            let Some(m) = e.meth.as_mut() else { return false };
            m.msn = Msn::new(s(m.msn.value().into()) as u16);
        }
        "meth.rqmsn" => {
            let Some(m) = e.meth.as_mut() else { return false };
            m.rqmsn = Rqmsn::new(s(m.rqmsn.value().into()) as u16);
        }
        "reth.va" => {
            let Some(r) = e.reth.as_mut() else { return false };
            r.va = s(r.va);
        }
        "reth.rkey" => {
            let Some(r) = e.reth.as_mut() else { return false };
            r.rkey = Rkey::new(s(r.rkey.value().into()) as u32);
        }
        "reth.dma_len" => {
            let Some(r) = e.reth.as_mut() else { return false };
            r.dma_len = s(r.dma_len.into()) as u32;
        }
        "immdt.imm" => {
            let Some(i) = e.immdt.as_mut() else { return false };
            i.imm = s(i.imm.into()) as u32;
        }
        "aeth.msn" => {
            let Some(a) = e.aeth.as_mut() else { return false };
            a.msn = AethMsn::new(s(a.msn.value().into()) as u32);
        }
        "neth.entropy" => {
            let Some(n) = e.neth.as_mut() else { return false };
            n.entropy = Ev::new(s(n.entropy.value().into()) as u32);
        }
        "neth.nack_psn" => {
            let Some(n) = e.neth.as_mut() else { return false };
            n.nack_psn = Psn::new(s(n.nack_psn.value().into()) as u32);
        }
        "neth.tx_timestamp" => {
            let Some(n) = e.neth.as_mut() else { return false };
            n.tx_timestamp = s(n.tx_timestamp.into()) as u16;
        }
        "neth.spdcid" => {
            let Some(n) = e.neth.as_mut() else { return false };
            n.spdcid = s(n.spdcid.into()) as u16;
        }
        "neth.dpdcid" => {
            let Some(n) = e.neth.as_mut() else { return false };
            n.dpdcid = s(n.dpdcid.into()) as u16;
        }
        "peth.probe_id" => {
            let Some(p) = e.peth.as_mut() else { return false };
            p.probe_id = s(p.probe_id.into()) as u16;
        }
        "erth.port_status" => {
            let Some(x) = e.erth.as_mut() else { return false };
            x.port_status = s(x.port_status.into()) as u32;
        }
        "erth.request_id" => {
            let Some(x) = e.erth.as_mut() else { return false };
            x.request_id = s(x.request_id.into()) as u32;
        }
        "eeth.port_status" => {
            let Some(x) = e.eeth.as_mut() else { return false };
            x.port_status = s(x.port_status.into()) as u32;
        }
        "eeth.request_id" => {
            let Some(x) = e.eeth.as_mut() else { return false };
            x.request_id = s(x.request_id.into()) as u32;
        }
        _ => return false,
    }
    format!("{:?}{:?}{:?}", f.bth, f.ext, f.ip) != before
}

fn generated() -> &'static Generated {
    static GENERATED: OnceLock<Generated> = OnceLock::new();
    GENERATED.get_or_init(|| {
        let corpus = generated::corpus_frames(Direction::Expect);
        let mut out = Generated { faults: Vec::new(), left: Vec::new() };
        for (kinds, l) in rows() {
            let name = name_of(kinds, &l);
            if let Some((_, why)) = SKIPPED.iter().find(|(n, _)| *n == name) {
                out.left.push((name, why));
                continue;
            }
            let p = Perturb { kinds, field: l.field, swap: true };
            let catch = generated::catching(&corpus, |frames| {
                frames.iter().any(|b| generated::perturb(b, p).is_some())
            });
            if catch.is_empty() {
                out.left
                    .push((name, "no frame the corpus expects changes when the field is swapped"));
                continue;
            }
            let what = format!(
                "{} is sent with its bytes in the other order in every {} frame",
                l.field,
                generated::kinds_label(kinds)
            );
            out.faults.push(Fault {
                name: Box::leak(name.into_boxed_str()),
                class: Class::Fault,
                what: Box::leak(what.into_boxed_str()),
                breaks: Box::leak(Box::new([l.rule])),
                expect: Expect::Fails,
                catch: catch.leak(),
                caps: Caps::Same,
                edits: Edits { perturb: Some(p), ..Edits::NONE },
            });
        }
        out
    })
}

/// One entry per row of the layout table that some scenario can catch.
pub fn faults() -> &'static [Fault] {
    &generated().faults
}

/// The rows made no entry, by name, with the reason.
pub fn left_out() -> &'static [(String, &'static str)] {
    &generated().left
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every row is an entry or is left out with its reason, every name of `SKIPPED` is a
    /// row's, and every swap changes the value of a field that has one to change.
    #[test]
    fn rows_are_entries_or_left_out() {
        let names: BTreeSet<String> = rows().iter().map(|(k, l)| name_of(*k, l)).collect();
        let made: BTreeSet<&str> = faults().iter().map(|f| f.name).collect();
        let left: BTreeSet<&str> = left_out().iter().map(|(n, _)| n.as_str()).collect();
        for n in &names {
            assert!(made.contains(n.as_str()) != left.contains(n.as_str()), "{n}");
        }
        for (n, why) in SKIPPED {
            assert!(names.contains(*n), "SKIPPED names {n}, which is no row");
            assert!(!why.is_empty(), "{n}");
        }
        assert!(!made.is_empty());
        for l in LAYOUTS {
            assert_eq!(l.bits % 8, 0, "{}", l.field);
            assert_ne!(byte_swapped(0x0102_0304_0506_0708 >> (64 - l.bits), l.bits), 0);
        }
    }
}
