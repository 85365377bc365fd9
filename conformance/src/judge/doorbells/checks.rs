//! Which check a token's answer breaks: the length bound an accepted token reaches, the
//! check whose status a rejection gives, and a token read with its bytes in another order.

use openrdma_codec::host::{
    CompletionStatus, DoorbellReject, DoorbellToken, LengthBound, Template, WorkRequest,
};

use crate::req::*;

/// The first length check whose bound accepted work request `wr` of template `t` reaches
/// exactly: its length is `max_length` (`DB-LENGTH-002`), or its local or remote range
/// ends at the end of its region (`DB-LENGTH-003`, `DB-LENGTH-004`).
pub(super) fn length_edge(t: &Template, wr: &WorkRequest) -> Option<Clause> {
    let len = u64::from(wr.length);
    let reaches = |va: u64, base: u64, region: u64| {
        va.checked_sub(base).and_then(|off| off.checked_add(len)) == Some(region)
    };
    if len == u64::from(t.max_length) {
        Some(DB_LENGTH_002)
    } else if reaches(wr.local_va, t.local_base, t.local_region_len) {
        Some(DB_LENGTH_003)
    } else if reaches(wr.remote_va, t.remote_base, t.remote_region_len) {
        Some(DB_LENGTH_004)
    } else {
        None
    }
}

/// The clause of the check that rejects a token.
pub(super) fn reject_rule(r: &DoorbellReject, unusable: Option<Clause>) -> Clause {
    match r {
        DoorbellReject::BadVersion { .. } => DB_VERSION_001,
        DoorbellReject::UnknownTemplate { .. } => unusable.unwrap_or(DB_TEMPLATE_001),
        DoorbellReject::StaleSeq { .. } => DB_SEQ_002,
        DoorbellReject::SeqGap { .. } => DB_SEQ_003,
        DoorbellReject::IndexOutOfRange { .. } => DB_INDEX_001,
        DoorbellReject::LengthOutOfRange { bound: LengthBound::MaxLength, .. } => DB_LENGTH_002,
        DoorbellReject::LengthOutOfRange { bound: LengthBound::LocalRegion, .. } => DB_LENGTH_003,
        DoorbellReject::LengthOutOfRange { bound: LengthBound::RemoteRegion, .. } => DB_LENGTH_004,
    }
}

/// The check a rejection status reports, for a token that passes every check: the check
/// that gave the status failed it. A status no single check gives leaves the order of the
/// checks (`DB-ORDER-001`).
pub(super) fn check_of(s: CompletionStatus) -> Clause {
    match s {
        CompletionStatus::BAD_VERSION => DB_VERSION_001,
        CompletionStatus::UNKNOWN_TEMPLATE => DB_TEMPLATE_001,
        CompletionStatus::INDEX_OUT_OF_RANGE => DB_INDEX_001,
        _ => DB_ORDER_001,
    }
}

/// Whether rejection entry `c` answers token `value` read with its bytes in an order a
/// bus interface can make: the 8 bytes reversed, the two 32-bit lanes swapped, the bytes
/// reversed within each lane, or the 16-bit halves of each lane swapped. Its `wr_id` holds
/// the token so read, and its status is one that token can get: BadVersion unless the
/// version read is 1. An entry writer that garbles the `wr_id` of the token's own
/// rejection gives the token's status instead.
pub(super) fn reordered(value: u64, id: u64, c: &openrdma_device::CompletionEvent) -> bool {
    let lanes_reversed = {
        let [lo, hi] = [value as u32, (value >> 32) as u32].map(u32::swap_bytes);
        u64::from(hi) << 32 | u64::from(lo)
    };
    let halves_swapped =
        (value & 0xFFFF_0000_FFFF_0000) >> 16 | (value & 0x0000_FFFF_0000_FFFF) << 16;
    let bus = [value.swap_bytes(), value.rotate_left(32), lanes_reversed, halves_swapped];
    let version = DoorbellToken::from_u64(id).version;
    let status_fits = version == 1 || c.entry.status == CompletionStatus::BAD_VERSION;
    value != id && bus.contains(&id) && status_fits
}
