//! Generated faults: one per field a receiver must take whatever its value, made from
//! [`RECEIVER_FIELDS`], with no hand work per clause.
//!
//! `rejects-{field}` drops every arriving frame whose field holds a value the receiver must
//! not reject for, as a receiver that checks the field would. It breaks the field's clause,
//! and is caught by the first scenarios that inject such a frame ([`CATCH_PER_ENTRY`] of
//! them, in corpus order). A row no scenario injects a frame for is made no entry and is
//! listed by [`left_out`] with the reason.
//!
//! [`CATCH_PER_ENTRY`]: super::generated::CATCH_PER_ENTRY

use std::sync::OnceLock;

use openrdma_codec::frame::{DecodedFrame, decode};
use openrdma_conformance::req::{self, Clause};
use openrdma_device::{Direction, Input};

use super::generated::{Generated, catching, corpus_frames};
use super::{Edits, Fault, fault};

/// A field a receiver must take whatever its value: the entry's name, the clause, and the
/// test of an arriving frame for a value a checking receiver would reject.
#[derive(Clone, Copy)]
pub struct ReceiverField {
    /// The field, as the entry's name gives it: `rejects-{field}`.
    pub field: &'static str,
    /// The clause a receiver that rejects the frame breaks.
    pub clause: Clause,
    /// Whether a frame holds such a value.
    pub holds: fn(&DecodedFrame<'_>) -> bool,
}

impl std::fmt::Debug for ReceiverField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReceiverField")
            .field("field", &self.field)
            .field("clause", &self.clause)
            .finish_non_exhaustive()
    }
}

const fn row(
    field: &'static str,
    clause: Clause,
    holds: fn(&DecodedFrame<'_>) -> bool,
) -> ReceiverField {
    ReceiverField { field, clause, holds }
}

/// The fields a receiver must ignore, or must not reject a frame for, that no hand-written
/// fault of the registry drops frames for (those are `rejects-tver`, `rejects-ipv4-options`,
/// `rejects-zero-udp-checksum-v6`, `rejects-peth-ftype`, `rejects-peth-pdc`,
/// `rejects-rtx-on-non-write`, `rejects-seth-pdc`, `rejects-seth-type`, `rejects-cc-type`,
/// `rejects-neth-pdc`, `rejects-neth-type`).
pub const RECEIVER_FIELDS: &[ReceiverField] = &[
    row("bth-byte-4", req::BTH_RESV_002_B, |d| {
        d.bth.is_some_and(|b| {
            b.opcode.class() == openrdma_codec::TransportClass::Manufacturer(6)
                && (b.fecn || b.becn || b.resv6 != 0)
        })
    }),
    row("tseth-ftype", req::TSETH_FTYPE_001_B, |d| d.ext.tseth.is_some_and(|t| t.ftype != 1)),
    row("pad-bytes", req::PAY_PAD_002_B, |d| d.pad.iter().any(|&b| b != 0)),
    row("eeth-data", req::EETH_DATA_001_B, |d| {
        d.ext.eeth.is_some_and(|e| e.data.iter().any(|&b| b != 0))
    }),
    row("ack-credit", req::AETH_MRC_002_B, |d| {
        d.ext.aeth.is_some_and(|a| a.syndrome & 0x60 == 0 && a.syndrome != 0x1F)
    }),
    row("ethernet-padding", req::ENC_LEN_003, |d| !d.eth_padding.is_empty()),
    row("nack-vendor-info", req::NETH_VENDOR_001_B, |d| {
        d.ext.neth.is_some_and(|n| n.vendor_info != 0)
    }),
    row("seth-m-3", req::SETH_M_001_B, |d| d.ext.seth.is_some_and(|s| s.m.0 == 3)),
    row("reserved-fields", req::DEC_RESV_001_B, |d| {
        let e = &d.ext;
        e.seth.is_some_and(|s| s.resv1 != 0 || s.resv12 != 0)
            || e.neth.is_some_and(|n| n.resv1 != 0 || n.resv12 != 0)
            || e.peth.is_some_and(|p| p.resv0 != 0 || p.resv6 != 0 || p.resv14 != 0)
            || e.tseth.is_some_and(|t| t.resv != 0)
            || e.erth.is_some_and(|x| x.resv1 != 0 || x.resv12 != 0)
            || e.eeth.is_some_and(|x| x.resv2 != 0)
    }),
];

fn generated() -> &'static Generated {
    static GENERATED: OnceLock<Generated> = OnceLock::new();
    GENERATED.get_or_init(|| {
        let corpus = corpus_frames(Direction::Inject);
        let mut out = Generated { faults: Vec::new(), left: Vec::new() };
        for (k, r) in RECEIVER_FIELDS.iter().enumerate() {
            let name = format!("rejects-{}", r.field);
            let catch = catching(&corpus, |frames| frames.iter().any(|b| (r.holds)(&decode(b))));
            if catch.is_empty() {
                out.left.push((name, "no scenario injects a frame with such a value"));
                continue;
            }
            let what =
                format!("arriving frames whose {} the receiver must take are dropped", r.field);
            out.faults.push(Fault {
                name: Box::leak(name.into_boxed_str()),
                what: Box::leak(what.into_boxed_str()),
                breaks: Box::leak(Box::new([r.clause])),
                catch: catch.leak(),
                ..fault("", "", &[], &[], Edits { keep_in: Some(KEEPS[k]), ..Edits::NONE })
            });
        }
        out
    })
}

/// The input filter of each row of [`RECEIVER_FIELDS`], by position.
const KEEPS: [fn(&Input) -> bool; 9] = [
    |i| keep(i, 0),
    |i| keep(i, 1),
    |i| keep(i, 2),
    |i| keep(i, 3),
    |i| keep(i, 4),
    |i| keep(i, 5),
    |i| keep(i, 6),
    |i| keep(i, 7),
    |i| keep(i, 8),
];

const _: () = assert!(KEEPS.len() == RECEIVER_FIELDS.len());

fn keep(i: &Input, k: usize) -> bool {
    match i {
        Input::Frame { bytes, .. } => !(RECEIVER_FIELDS[k].holds)(&decode(bytes)),
        _ => true,
    }
}

/// One entry per row of [`RECEIVER_FIELDS`] that some scenario can catch.
pub fn faults() -> &'static [Fault] {
    &generated().faults
}

/// The rows made no entry, by name, with the reason.
pub fn left_out() -> &'static [(String, &'static str)] {
    &generated().left
}
