//! Flag writes and completion entries as sequences (`spec/conformance.md`, CONF-CMP-009).
//!
//! Per sequence (responder flags, requester flags, responder entries, requester entries),
//! the k-th expected output of an identity — (QP, MSN) — pairs with the k-th observed one,
//! but a flag written exactly as expected is taken first, so that a flag written for the
//! message before, with another value, is left over; what is left over on both sides pairs
//! in order, as near misses. The pairs are then taken
//! in expected order, and the longest increasing run of their observed positions is the
//! in-order set: a pair outside it is out of order, reported once, at the displaced output.
//! An expectation without a pair is missing, an output without one is extra. So a missing
//! completion is one divergence, and the entries after it still pair by identity.
//!
//! Flags are compared decoded (`generation`, `status`, `byte_len`, `valid`, `resv`, and the
//! slot address), entries field by field ([`super::entries::diff`]), each field named by its
//! own rule.

use std::collections::{HashMap, HashSet};

use openrdma_codec::Msn;
use openrdma_codec::host::{CompletionRepr, CompletionStatus, FlagRepr};
use openrdma_device::{NicEvent, NicReport, Record, Side};

use super::entries::{self, SlotHistory};
use super::fields::Rule;
use super::{Divergence, FieldDiff, render_event};
use crate::req::*;

mod orders;
mod pair;

pub(super) use orders::Orders;
use pair::{ident, longest_increasing, pair};

/// One of the four sequences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seq {
    ResponderFlags,
    RequesterFlags,
    ResponderEntries,
    RequesterEntries,
}

impl Seq {
    const ALL: [Seq; 4] =
        [Seq::ResponderFlags, Seq::RequesterFlags, Seq::ResponderEntries, Seq::RequesterEntries];

    fn holds(self, e: &NicEvent) -> bool {
        match (self, e) {
            (Seq::ResponderFlags, NicEvent::FlagWrite(f)) => f.side == Side::Responder,
            (Seq::RequesterFlags, NicEvent::FlagWrite(f)) => f.side == Side::Requester,
            (Seq::ResponderEntries, NicEvent::Completion(c)) => c.side == Side::Responder,
            (Seq::RequesterEntries, NicEvent::Completion(c)) => c.side == Side::Requester,
            _ => false,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Seq::ResponderFlags => "responder flag",
            Seq::RequesterFlags => "requester flag",
            Seq::ResponderEntries => "responder completion",
            Seq::RequesterEntries => "requester completion",
        }
    }

    /// The rule that makes an output of the sequence due, and that an extra one breaks.
    fn due(self) -> Rule {
        match self {
            Seq::ResponderFlags => RET_FLAG_001_A,
            Seq::RequesterFlags => FLAG_SEND_001_A,
            Seq::ResponderEntries => CQE_RECV_001,
            Seq::RequesterEntries => CQE_SEND_001,
        }
    }

    /// The rule an extra output breaks.
    fn extra(self) -> Rule {
        match self {
            Seq::ResponderFlags => FLAG_RECV_002_A,
            _ => self.due(),
        }
    }

    /// The rule an output out of order breaks.
    fn order(self) -> Rule {
        match self {
            Seq::ResponderFlags => RET_ORDER_001,
            Seq::RequesterFlags => FLAG_SEND_001_C,
            // An immediate delivered before an earlier message of its domain retired.
            Seq::ResponderEntries => WWI_ORDER_001,
            Seq::RequesterEntries => CQE_SEND_003,
        }
    }

    /// The outputs among which the specification fixes an order: sender flags only within
    /// their QP (CONF-CMP-060), since FLAG-SEND-001 and RET-FLUSH-001 order a QP's own
    /// messages and no rule orders two QPs' flags; retirement flags within their
    /// retirement domain, and completion entries within the QPs that a queue or a domain
    /// ties together (CONF-CMP-092, [`Orders`]).
    fn group(self, e: &NicEvent, orders: &Orders) -> Option<u64> {
        match (self, e) {
            (Seq::RequesterFlags, NicEvent::FlagWrite(f)) => Some(u64::from(f.qpn.value())),
            (Seq::ResponderFlags, NicEvent::FlagWrite(f)) => orders.domain(f.qpn.value()),
            (Seq::ResponderEntries | Seq::RequesterEntries, _) => orders.entry_set(e),
            _ => None,
        }
    }

    /// The rule an output later than its time allows breaks: for a sender flag, the time
    /// FLAG-SEND-001.c gives it, the arrival of the message's acknowledgement or failure.
    fn late(self) -> Rule {
        match self {
            Seq::RequesterFlags => FLAG_SEND_001_C,
            _ => self.due(),
        }
    }

    /// The rule of a field of a flag or an entry.
    fn field_rule(self, field: &str) -> Rule {
        let responder = self == Seq::ResponderFlags;
        match field {
            "flag.valid" => FLAG_VALID_001,
            "flag.resv" => FLAG_RESV_001_A,
            "flag.byte_len" => FLAG_LEN_001,
            "flag.status" if !responder => FLAG_STATUS_001,
            "flag.addr" if responder => FLAG_RECV_001_B,
            "flag.addr" => FLAG_SEND_001_B,
            "flag.generation" if !responder => FLAG_SEND_001_D,
            "qpn" | "msn" if responder => RET_ORDER_001,
            "flag.status" if responder => FLAG_RECV_002_B,
            f if f.starts_with("flag.") && responder => FLAG_RECV_002_A,
            "opcode" => CQE_OPCODE_001,
            "has_imm" => CQE_IMM_002,
            "cq" => CQE_ROUTE_001,
            "addr" => CQE_RING_001_A,
            "queue" | "slot" | "phase" => CQE_RING_001_B,
            _ => self.due(),
        }
    }
}

/// The rule of a field of an expected completion entry whose contents another rule than
/// the sequence's fixes: a rejected token's entry (CQE-REJECT-001), the status of a
/// message an AETH NAK ended (CQE-STATUS-004), the status and byte count of another failed
/// work request's (CQE-SEND-002). Where the entry is written is judged
/// apart (`field_rule`).
fn entry_rule(want: &NicEvent, field: &str) -> Option<Rule> {
    let NicEvent::Completion(c) = want else { return None };
    if matches!(field, "cq" | "queue" | "slot" | "addr" | "phase") {
        return None;
    }
    let status = c.entry.status;
    if status.is_doorbell_reject() {
        return Some(CQE_REJECT_001);
    }
    let failed = c.side == Side::Requester && !status.is_success();
    // A message an AETH NAK ended: its status is the one table 8 gives the NAK.
    let nak = (0x61..=0x63).any(|s| CompletionStatus::from_aeth_nak(s) == Some(status));
    if failed && nak && field == "status" {
        return Some(CQE_STATUS_004);
    }
    (failed && matches!(field, "status" | "byte_len")).then_some(CQE_SEND_002)
}

/// NETH-VENDOR-001.b: a requester flag or entry written FATAL_NACK where another status is
/// due, when the last NACK injected into its QP by then (at `at`) is not fatal but carries
/// `vendor_info`: the device took that field for the reason.
fn fatal_by_vendor_info(
    want: &NicEvent,
    got: &NicEvent,
    at: u64,
    nacks: &[(u32, u64, u8, u8)],
) -> Option<Rule> {
    let (qpn, wanted) = requester_status(want)?;
    let (_, status) = requester_status(got)?;
    if status != CompletionStatus::FATAL_NACK || wanted == status {
        return None;
    }
    let fatal = openrdma_codec::NackReason::UNEXP_EVENT.0;
    let (_, _, reason, vendor) = nacks.iter().rfind(|&&(q, t, _, _)| q == qpn && t <= at)?;
    (*reason != fatal && *vendor != 0).then_some(NETH_VENDOR_001_B)
}

/// AETH-MRC-002.b: a requester flag or entry of a success that is missing, due at an AETH
/// ACK injected into its QP whose credit code is not 0x1F: the device did not take the
/// ACK for its credit code.
fn ack_dropped_by_credit(want: &NicEvent, at: u64, credits: &[(u32, u64, u8)]) -> Option<Rule> {
    let (qpn, wanted) = requester_status(want)?;
    let odd = credits.iter().any(|&(q, t, credit)| q == qpn && t == at && credit != 0x1F);
    (wanted.is_success() && odd).then_some(AETH_MRC_002_B)
}

/// CQE-RING-005.a: a requester flag or entry that succeeds, written as a failure by a
/// device that failed its QP in the middle of the input that found the QP's completion
/// queue full, instead of once it had handled that input.
fn failed_in_the_input(
    want: &NicEvent,
    got: &NicEvent,
    at: u64,
    stops: &[(u32, u64)],
) -> Option<Rule> {
    let (qpn, wanted) = requester_status(want)?;
    let (_, status) = requester_status(got)?;
    let stopped = stops.iter().any(|&(q, t)| q == qpn && t == at);
    (stopped && wanted.is_success() && !status.is_success()).then_some(CQE_RING_005_A)
}

/// CQE-RING-004.b: a requester flag or entry that succeeds, written as a failure by a
/// device that failed its QP for a full completion queue before the scenario fills one
/// (`early`): the device found the queue full while it had a free slot.
fn failed_by_early_stop(want: &NicEvent, got: &NicEvent, early: &HashSet<u32>) -> Option<Rule> {
    let (qpn, wanted) = requester_status(want)?;
    let (_, status) = requester_status(got)?;
    (early.contains(&qpn) && wanted.is_success() && !status.is_success()).then_some(CQE_RING_004_B)
}

/// CQE-RING-004.b: a requester entry of a success that is missing, from a device that
/// failed its QP for a full completion queue by the time the entry was due (`full`): the
/// scenario writes the entry, so its queue had a free slot, and the device found it full.
fn stopped_with_room(want: &NicEvent, at: u64, full: &[(u32, u64)], late: u64) -> Option<Rule> {
    let NicEvent::Completion(c) = want else { return None };
    let q = c.entry.qpn.value();
    let stopped = full.iter().any(|&(x, t)| x == q && t <= at.saturating_add(late));
    (c.side == Side::Requester && c.entry.status.is_success() && stopped).then_some(CQE_RING_004_B)
}

/// CQE-RING-004.b: a requester flag or entry FLUSHED that is missing, due when a full
/// completion queue fails its QP, from a device that did not move the QP to the error
/// state (`errored`: the QPs it reported in error).
fn not_failed_by_stop(
    want: &NicEvent,
    at: u64,
    stops: &[(u32, u64)],
    errored: &HashSet<u32>,
) -> Option<Rule> {
    let (qpn, status) = requester_status(want)?;
    let stopped = stops.iter().any(|&(q, t)| q == qpn && t == at);
    let flushed = status == CompletionStatus::FLUSHED;
    (stopped && flushed && !errored.contains(&qpn)).then_some(CQE_RING_004_B)
}

/// The rule a missing sender flag of a success breaks when the input that completed its
/// message also found the QP's completion queue full: the flags that input produced are
/// written as if the queue had not filled (CQE-RING-005.a), though the message's entry is
/// not. Without this, the flag of a signaled work request whose entry the full queue
/// took would read as an unsignaled one's (FLAG-SEND-002). CONF-CMP-132.
fn flag_lost_to_stop(seq: Seq, want: &NicEvent, at: u64, stops: &[(u32, u64)]) -> Option<Rule> {
    if seq != Seq::RequesterFlags {
        return None;
    }
    let (qpn, status) = requester_status(want)?;
    let stopped = stops.iter().any(|&(q, t)| q == qpn && t == at);
    (status.is_success() && stopped).then_some(CQE_RING_005_A)
}

/// The rule that fails a requester's message with the status `want` expects at `at`, when
/// the device shows no failure of that QP at all, in any requester flag or entry (`failed`,
/// the QPs it shows one of): the sender did not
/// act on what failed the QP (a fatal NACK, a NAK, the CPU half's `QpError`), which is the
/// cause of the missing or different flag or entry. A REMOTE_OP_ERROR is a NAK 0x63's
/// (SND-ACK-003) or, from the last NAK injected into the QP by then, another syndrome's
/// (SND-ACK-006). A device that failed the QP but wrote one of its flags or entries wrong
/// is named by the sequence's own rules.
fn unheeded_failure(
    want: &NicEvent,
    at: u64,
    failed: &HashSet<u32>,
    naks: &[(u32, u64, u8)],
) -> Option<Rule> {
    let (qpn, status) = requester_status(want)?;
    let last_nak = naks.iter().filter(|&&(q, t, _)| q == qpn && t <= at).map(|x| x.2).next_back();
    let rule = match status {
        CompletionStatus::FATAL_NACK => SND_NACK_005,
        CompletionStatus::REMOTE_OP_ERROR if last_nak.is_some_and(|s| s & 0x7F != 0x63) => {
            SND_ACK_006
        }
        CompletionStatus::REMOTE_INVALID_REQUEST
        | CompletionStatus::REMOTE_ACCESS_ERROR
        | CompletionStatus::REMOTE_OP_ERROR => SND_ACK_003,
        CompletionStatus::RETRY_EXCEEDED => REC_IF_013,
        _ => return None,
    };
    (!failed.contains(&qpn)).then_some(rule)
}

/// RET-FLUSH-001.a: a requester flag or entry of a failed QP written FLUSHED where the
/// failure's cause is due, or with a cause where FLUSHED is due: the device gave the
/// statuses of the failure to the wrong pending messages.
fn flush_status(want: &NicEvent, got: &NicEvent) -> Option<Rule> {
    let (_, wanted) = requester_status(want)?;
    let (_, status) = requester_status(got)?;
    let failure = |s: CompletionStatus| !s.is_success() && !s.is_doorbell_reject();
    let flushed = CompletionStatus::FLUSHED;
    let one_flushed = (wanted == flushed) != (status == flushed);
    (failure(wanted) && failure(status) && one_flushed).then_some(RET_FLUSH_001_A)
}

/// RET-FLUSH-001.b: a requester flag or entry FLUSHED that is missing, due after the QP had
/// already failed (`failed_at`, the time of its first expected failure): the work request
/// of a token that reached the QP in error never completed.
fn flushed_token(want: &NicEvent, at: u64, failed_at: &HashMap<u32, u64>) -> Option<Rule> {
    let (qpn, status) = requester_status(want)?;
    let before = failed_at.get(&qpn).is_some_and(|&t| t < at);
    (status == CompletionStatus::FLUSHED && before).then_some(RET_FLUSH_001_B)
}

/// RET-ERR-001.b: a retirement flag or receive completion missing that is due when a QP
/// fails: the failure released the message, by the pass of the domain's pointer over the
/// failed QP's entries.
fn released(seq: Seq, at: u64, errors_at: &[u64]) -> Option<Rule> {
    let responder = matches!(seq, Seq::ResponderFlags | Seq::ResponderEntries);
    (responder && errors_at.contains(&at)).then_some(RET_ERR_001_B)
}

/// SND-ACK-001.a: a requester's flag or entry of a success that is missing, due at an AETH
/// ACK injected into its QP then, for a signaled message the device wrote no success of at
/// all, flag or entry, while it wrote one of the sequence for another message of the QP
/// in answer to that ACK (`got`, within `late_ns`): it acted on the ACK, and stopped short
/// of a message it completes. A flag or entry lost alone leaves the other of the message.
fn stopped_short(
    want: &NicEvent,
    at: u64,
    got: &[Item<'_>],
    late_ns: u64,
    causes: &Causes<'_>,
) -> Option<Rule> {
    let (qpn, status) = requester_status(want)?;
    let msn = match want {
        NicEvent::FlagWrite(f) => f.msn.value(),
        NicEvent::Completion(c) => c.entry.msn.value(),
        _ => return None,
    };
    let acked = causes.inputs.credits.iter().any(|&(q, t, _)| q == qpn && t == at);
    let signaled = causes.entries_due.contains(&(qpn, msn));
    let answered = got.iter().any(|&(t, e, _)| {
        (at..=at.saturating_add(late_ns)).contains(&t)
            && requester_status(e).is_some_and(|(q, s)| q == qpn && s.is_success())
    });
    let untouched = !causes.completed.contains(&(qpn, msn));
    (status.is_success() && acked && signaled && answered && untouched).then_some(SND_ACK_001_A)
}

/// The QP and status of a requester's flag or entry.
fn requester_status(e: &NicEvent) -> Option<(u32, CompletionStatus)> {
    match e {
        NicEvent::FlagWrite(f) if f.side == Side::Requester => {
            Some((f.qpn.value(), FlagRepr::from_u64(f.value).status))
        }
        NicEvent::Completion(c) if c.side == Side::Requester => {
            Some((c.entry.qpn.value(), c.entry.status))
        }
        _ => None,
    }
}

/// The rule a missing output breaks: the sequence's, but for a sender flag of a success
/// without a completion entry (an unsignaled work request's, FLAG-SEND-002), for the
/// entry of a failed work request, which every work request writes (WR-SIGNALED-001.c),
/// for the entry of a success whose sender flag the device wrote: it took the signaled
/// work request for an unsignaled one (WR-SIGNALED-001.a); and for any entry of a QP the
/// device failed for a full completion queue before the scenario fills one: the device
/// found the queue full while it had a free slot (CQE-RING-004.b).
fn missing_rule(seq: Seq, want: &NicEvent, causes: &Causes<'_>) -> Rule {
    let entries_due = causes.entries_due;
    match want {
        // An entry lost to a queue the device found full while it had a free slot: the
        // device stopped the queue without cause (CQE-RING-004.b).
        NicEvent::Completion(c) if causes.early_stops.contains(&c.entry.qpn.value()) => {
            CQE_RING_004_B
        }
        NicEvent::FlagWrite(f)
            if seq == Seq::RequesterFlags
                && FlagRepr::from_u64(f.value).status.is_success()
                && !entries_due.contains(&(f.qpn.value(), f.msn.value())) =>
        {
            FLAG_SEND_002
        }
        NicEvent::Completion(c)
            if seq == Seq::RequesterEntries
                && !c.entry.status.is_success()
                && !c.entry.status.is_doorbell_reject() =>
        {
            WR_SIGNALED_001_C
        }
        NicEvent::Completion(c)
            if seq == Seq::RequesterEntries
                && c.entry.status.is_success()
                && causes.flags_seen.contains(&(c.entry.qpn.value(), c.entry.msn.value())) =>
        {
            WR_SIGNALED_001_A
        }
        _ => seq.due(),
    }
}

/// The rule an extra output breaks: the sequence's, but for a requester entry of a success
/// for a message whose sender flag alone is due: the work request is unsignaled, and the
/// device wrote an entry for it too (WR-SIGNALED-001.b); for a retirement flag of a QP
/// that has no retirement flags (RET-FLAG-001.b); for a retirement flag with a failure
/// status (FLAG-RECV-003); and for a retirement flag of a QP that had failed
/// (RET-ERR-001.a).
fn extra_rule(seq: Seq, got: &NicEvent, at: u64, causes: &Causes<'_>) -> Rule {
    match got {
        // A retirement flag of a QP that has none.
        NicEvent::FlagWrite(f)
            if seq == Seq::ResponderFlags && causes.inputs.flagless.contains(&f.qpn.value()) =>
        {
            RET_FLAG_001_B
        }
        // A retirement flag with a failure: a message that failed at the receiver, which
        // writes no flag.
        NicEvent::FlagWrite(f)
            if seq == Seq::ResponderFlags && !FlagRepr::from_u64(f.value).status.is_success() =>
        {
            FLAG_RECV_003
        }
        // A retirement flag of a QP that had failed: its entries stayed in the table
        // (RET-ERR-001.a).
        NicEvent::FlagWrite(f)
            if seq == Seq::ResponderFlags
                && causes.qp_errors.iter().any(|&(q, t)| q == f.qpn.value() && t <= at) =>
        {
            RET_ERR_001_A
        }
        NicEvent::Completion(c)
            if seq == Seq::RequesterEntries
                && c.entry.status.is_success()
                && !causes.entries_due.contains(&(c.entry.qpn.value(), c.entry.msn.value()))
                && causes.flags_due.contains(&(c.entry.qpn.value(), c.entry.msn.value())) =>
        {
            WR_SIGNALED_001_B
        }
        // A second success of a message whose one completion the scenario expects: the
        // sender completed it again (RET-SEND-001).
        _ if requester_status(got).is_some_and(|(_, s)| s.is_success())
            && causes.completed(got) =>
        {
            RET_SEND_001
        }
        _ => seq.extra(),
    }
}

/// The rule of a flag's `byte_len`: 0 for a failure (FLAG-LEN-001), the bytes placed for a
/// retirement flag (FLAG-RECV-002.c), the message's bytes for a sender flag's success
/// (FLAG-SEND-001.e); and of a retirement flag's address cut to 32 bits (FLAG-RECV-001.a).
fn flag_rule(want: &NicEvent, got: &NicEvent, field: &str) -> Option<Rule> {
    let NicEvent::FlagWrite(f) = want else { return None };
    if field == "flag.addr" {
        return base_cut(f, got);
    }
    if field != "flag.byte_len" {
        return None;
    }
    Some(if !FlagRepr::from_u64(f.value).status.is_success() {
        FLAG_LEN_001
    } else if f.side == Side::Responder {
        FLAG_RECV_002_C
    } else {
        FLAG_SEND_001_E
    })
}

/// FLAG-RECV-001.a: a retirement flag at the right address cut to 32 bits. The slot's
/// offset is right; the base the QP's context holds is not the QP's.
fn base_cut(want: &openrdma_device::FlagWrite, got: &NicEvent) -> Option<Rule> {
    let NicEvent::FlagWrite(g) = got else { return None };
    let cut = want.addr > 0xFFFF_FFFF && g.addr == want.addr & 0xFFFF_FFFF;
    (want.side == Side::Responder && cut).then_some(FLAG_RECV_001_A)
}

/// One output of a sequence: its time, the event, and its index among the expected records
/// or the observed events.
type Item<'a> = (u64, &'a NicEvent, usize);

/// What the sequences need of the injected frames.
#[derive(Clone, Copy)]
pub(super) struct Inputs<'a> {
    /// The transport acknowledgements other than ACKs injected into the device, as (device
    /// QP, time, syndrome).
    pub naks: &'a [(u32, u64, u8)],
    /// The frames injected with a value a receiver must take, as (time, the rule that says
    /// so): a flag or entry due at such a time and missing was not written because the
    /// device did not take the frame.
    pub odd: &'a [(u64, Rule)],
    /// The NACKs: (QP, time, reason, vendor_info).
    pub nacks: &'a [(u32, u64, u8, u8)],
    /// The AETH ACKs: (QP, time, credit code).
    pub credits: &'a [(u32, u64, u8)],
    /// The AETHs a sender must discard, their `msn` at or after the next MSN it will
    /// assign (SND-ACK-002): (QP, time).
    pub wild_acks: &'a [(u32, u64)],
    /// The device QPs with no retirement flags: their number of flag slots is not a power
    /// of two from 1 to 2^15 (RET-FLAG-001.b).
    pub flagless: &'a [u32],
    /// Which QPs' flags and entries a rule orders among themselves.
    pub orders: &'a Orders,
}

/// The QP an event fails for a full completion queue: a `QpError` whose requirement is
/// CQE-RING-004 or one of its clauses.
pub(super) fn full_stop(e: &NicEvent) -> Option<u32> {
    match e {
        NicEvent::Report(NicReport::QpError { qpn, requirement })
            if Clause::parse(requirement).map(Clause::line) == Some(CQE_RING_004) =>
        {
            Some(qpn.value())
        }
        _ => None,
    }
}

/// The QPs the device failed for a full completion queue (CQE-RING-004), with the time.
fn full_stops(obs: &[(u64, &NicEvent)]) -> Vec<(u32, u64)> {
    obs.iter().filter_map(|(t, e)| full_stop(e).map(|q| (q, *t))).collect()
}

/// Judges the four sequences. `exp` are the expected events with their records, `obs` the
/// observed ones with their times; `inputs` what they need of the injected frames;
/// `history` is what each observed entry's slot held.
pub(super) fn judge(
    exp: &[(&Record, &NicEvent)],
    obs: &[(u64, &NicEvent)],
    inputs: Inputs<'_>,
    late_ns: u64,
    history: &SlotHistory,
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
    // The QPs a full completion queue fails, at the time of the input that found it full.
    let stops: Vec<(u32, u64)> =
        exp.iter().filter_map(|(r, e)| full_stop(e).map(|q| (q, r.at.0))).collect();
    // The messages whose requester entry is due: a sender flag without one is a flag
    // of an unsignaled work request's success.
    let entries_due: HashSet<(u32, u16)> = exp
        .iter()
        .filter_map(|(_, e)| match e {
            NicEvent::Completion(c) if c.side == Side::Requester => {
                Some((c.entry.qpn.value(), c.entry.msn.value()))
            }
            _ => None,
        })
        .collect();
    // The messages whose requester flag of a success is due, and those the device wrote
    // one for.
    let success_flags = |events: &mut dyn Iterator<Item = &NicEvent>| -> HashSet<(u32, u16)> {
        events
            .filter_map(|e| match e {
                NicEvent::FlagWrite(f)
                    if f.side == Side::Requester
                        && FlagRepr::from_u64(f.value).status.is_success() =>
                {
                    Some((f.qpn.value(), f.msn.value()))
                }
                _ => None,
            })
            .collect()
    };
    let flags_due = success_flags(&mut exp.iter().map(|(_, e)| *e));
    let flags_seen = success_flags(&mut obs.iter().map(|(_, e)| *e));
    let completed: HashSet<(u32, u16)> = obs
        .iter()
        .filter_map(|(_, e)| {
            let (q, s) = requester_status(e)?;
            let msn = match e {
                NicEvent::FlagWrite(f) => f.msn.value(),
                NicEvent::Completion(c) => c.entry.msn.value(),
                _ => return None,
            };
            s.is_success().then_some((q, msn))
        })
        .collect();
    let failed: HashSet<u32> = obs
        .iter()
        .filter_map(|(_, e)| requester_status(e))
        .filter(|(_, s)| !s.is_success())
        .map(|(q, _)| q)
        .collect();
    let errors_at: Vec<u64> = exp
        .iter()
        .filter(|(_, e)| matches!(e, NicEvent::Report(NicReport::QpError { .. })))
        .map(|(r, _)| r.at.0)
        .collect();
    // The QPs the scenario expects to fail, with the time.
    let qp_errors: Vec<(u32, u64)> = exp
        .iter()
        .filter_map(|(r, e)| match e {
            NicEvent::Report(NicReport::QpError { qpn, .. }) => Some((qpn.value(), r.at.0)),
            _ => None,
        })
        .collect();
    let errored: HashSet<u32> = obs
        .iter()
        .filter_map(|(_, e)| match e {
            NicEvent::Report(NicReport::QpError { qpn, .. }) => Some(qpn.value()),
            _ => None,
        })
        .collect();
    let full_stops = full_stops(obs);
    // The QPs the device failed for a full completion queue before the scenario fills one.
    let early_stops: HashSet<u32> = full_stops
        .iter()
        .filter(|&&(q, t)| !stops.iter().any(|&(x, at)| x == q && at <= t))
        .map(|&(q, _)| q)
        .collect();
    let mut failed_at: HashMap<u32, u64> = HashMap::new();
    for (r, e) in exp {
        if let Some((qpn, status)) = requester_status(e) {
            if !status.is_success() && !status.is_doorbell_reject() {
                let t = failed_at.entry(qpn).or_insert(r.at.0);
                *t = (*t).min(r.at.0);
            }
        }
    }
    for seq in Seq::ALL {
        let want: Vec<Item<'_>> = exp
            .iter()
            .enumerate()
            .filter(|(_, (_, e))| seq.holds(e))
            .map(|(i, (r, e))| (r.at.0, *e, i))
            .collect();
        let got: Vec<Item<'_>> = obs
            .iter()
            .enumerate()
            .filter(|(_, (_, e))| seq.holds(e))
            .map(|(i, (t, e))| (*t, *e, i))
            .collect();
        *checked += want.len();
        let causes = Causes {
            inputs,
            entries_due: &entries_due,
            flags_due: &flags_due,
            flags_seen: &flags_seen,
            completed: &completed,
            failed: &failed,
            stops: &stops,
            failed_at: &failed_at,
            errored: &errored,
            early_stops: &early_stops,
            full_stops: &full_stops,
            errors_at: &errors_at,
            qp_errors: &qp_errors,
        };
        judge_seq(seq, &want, &got, &causes, late_ns, history, div);
    }
}

/// Requester flags and entries of a success for a message that no transport
/// acknowledgement covered yet (SND-ACK-005): SACKs, however much they show, complete
/// nothing. `aeths` are the AETHs injected into the device, as (device QP, time, `msn`);
/// one covers the messages whose MSN is at or before its own (less than 2^15 behind,
/// modulo 2^16). Judged on the outputs alone, whenever they come.
pub(super) fn judge_unacknowledged(
    obs: &[(u64, &NicEvent)],
    aeths: &[(u32, u64, Msn)],
    div: &mut Vec<Divergence>,
) {
    let mut told: HashSet<(u32, u16)> = HashSet::new();
    for &(t, e) in obs {
        let Some((qpn, status)) = requester_status(e) else { continue };
        if !status.is_success() {
            continue;
        }
        let (_, msn, _) = ident(e);
        let covered = aeths
            .iter()
            .any(|&(q, at, m)| q == qpn && at <= t && m.value().wrapping_sub(msn) < 1 << 15);
        if covered || !told.insert((qpn, msn)) {
            continue;
        }
        div.push(Divergence {
            actual: Some(render_event(e)),
            ..Divergence::named(
                t,
                SND_ACK_005,
                format!(
                    "message {msn} of QP {qpn} completed with SUCCESS before a transport \
                     acknowledgement covered it"
                ),
            )
        });
    }
}

/// What names a flag or entry missing or wrong by its cause.
#[derive(Clone, Copy)]
struct Causes<'a> {
    /// The acknowledgements injected.
    inputs: Inputs<'a>,
    /// The messages whose requester entry is due, by (QP, MSN).
    entries_due: &'a HashSet<(u32, u16)>,
    /// The messages whose requester flag of a success is due, by (QP, MSN).
    flags_due: &'a HashSet<(u32, u16)>,
    /// The messages the device wrote a requester flag of a success for, by (QP, MSN).
    flags_seen: &'a HashSet<(u32, u16)>,
    /// The messages the device wrote a requester flag or entry of a success for, by (QP,
    /// MSN).
    completed: &'a HashSet<(u32, u16)>,
    /// The QPs the device shows a failure of, in a requester flag or entry.
    failed: &'a HashSet<u32>,
    /// The QPs a full completion queue fails, with the time of the input that filled it.
    stops: &'a [(u32, u64)],
    /// The time of each QP's first expected failure, in a requester flag or entry.
    failed_at: &'a HashMap<u32, u64>,
    /// The QPs the device reported in the error state.
    errored: &'a HashSet<u32>,
    /// The QPs the device failed for a full completion queue before the scenario fills
    /// one.
    early_stops: &'a HashSet<u32>,
    /// The QPs the device failed for a full completion queue, with the time.
    full_stops: &'a [(u32, u64)],
    /// The times the scenario expects a QP to fail.
    errors_at: &'a [u64],
    /// The QPs the scenario expects to fail, with the time.
    qp_errors: &'a [(u32, u64)],
}

impl Causes<'_> {
    /// Whether the scenario expects a completion of the message of requester flag or entry
    /// `e`, of the same kind: the message completes once.
    fn completed(&self, e: &NicEvent) -> bool {
        match e {
            NicEvent::FlagWrite(f) => self.flags_due.contains(&(f.qpn.value(), f.msn.value())),
            NicEvent::Completion(c) => {
                self.entries_due.contains(&(c.entry.qpn.value(), c.entry.msn.value()))
            }
            _ => false,
        }
    }
}

fn judge_seq(
    seq: Seq,
    want: &[Item<'_>],
    got: &[Item<'_>],
    causes: &Causes<'_>,
    late_ns: u64,
    history: &SlotHistory,
    div: &mut Vec<Divergence>,
) {
    let Causes { inputs, failed, stops, .. } = *causes;
    let (naks, odd) = (inputs.naks, inputs.odd);
    let (pairs, missing, extra) = pair(want, got);
    let in_order = in_order(seq, &pairs, want, inputs.orders);
    for (k, &(w, g)) in pairs.iter().enumerate() {
        let (wt, we, _) = want[w];
        let (gt, ge, gi) = got[g];
        let mut fields = event_diff(we, ge);
        // An entry one slot further on because an extra entry went before it into its
        // queue, or one slot back because an entry before it is missing: the extra or the
        // missing entry is the cause, and is named below.
        let shifted = in_order[k]
            && !fields.is_empty()
            && fields.iter().all(|f| matches!(f.field.as_str(), "slot" | "addr" | "phase"))
            && (extra.iter().any(|&x| got[x].2 < gi)
                || missing.iter().any(|&m| m < w && same_queue(want[m].1, we)));
        if shifted {
            continue;
        }
        let mut rule = None;
        let mut torn = false;
        for f in &mut fields {
            let r = entry_rule(we, &f.field)
                .or_else(|| flag_rule(we, ge, &f.field))
                .unwrap_or_else(|| seq.field_rule(&f.field));
            f.name(r);
            rule.get_or_insert(r);
        }
        if let (NicEvent::Completion(a), NicEvent::Completion(b)) = (we, ge) {
            if !fields.is_empty() {
                let by_field = rule.unwrap_or(seq.due());
                let r = entries::requirement(a, b, &fields, history.get(&gi), by_field);
                torn = r == CQE_RING_003_B;
                rule = Some(r);
            }
        }
        if fields.iter().any(|f| matches!(f.field.as_str(), "flag.status" | "status")) {
            rule = flush_status(we, ge).or(rule);
            rule = unheeded_failure(we, wt, failed, naks).or(rule);
            rule = failed_in_the_input(we, ge, wt, stops).or(rule);
            rule = failed_by_early_stop(we, ge, causes.early_stops).or(rule);
            rule = fatal_by_vendor_info(we, ge, gt, inputs.nacks).or(rule);
        }
        // An MSN on the flag or entry of a token's work request that reached its QP in the
        // error state, which completes at once without taking one (RET-FLUSH-001.b).
        if fields.first().is_some_and(|f| f.field == "msn") {
            rule = flushed_token(we, wt, causes.failed_at).or(rule);
        }
        // A flag whose word holds the expected one's bytes in reverse: stored big-endian.
        if let (NicEvent::FlagWrite(a), NicEvent::FlagWrite(b)) = (we, ge) {
            if a.value != b.value && a.value.swap_bytes() == b.value {
                rule = Some(FLAG_LAYOUT_001);
            }
        }
        // The output the device gave just before, given once more in place of this one: a
        // FIFO that returns its last entry again. The rule that gives each output once
        // is broken at the copy (CONF-CMP-105).
        if rule.is_some() && !torn && repeats_previous(got, g) {
            rule = Some(seq.extra());
        }
        let mut at = gt;
        // An entry seen torn (its first bytes still the slot's previous contents) holds
        // another entry's fields, so its place in the order says nothing: the tear is
        // what the device broke (CQE-RING-003.b).
        let (requirement, what) = if !in_order[k] && !torn {
            // At the first output of the inversion: the device broke the order there.
            let partners: Vec<usize> = pairs
                .iter()
                .enumerate()
                .filter(|&(j, &(v, h))| {
                    let group = |e| seq.group(e, inputs.orders);
                    (j < k) == (h > g) && group(want[v].1) == group(we)
                })
                .map(|(j, _)| j)
                .collect();
            at = partners.iter().map(|&j| got[pairs[j].1].0).fold(gt, u64::min);
            (
                order_rule(seq, k, &partners, &pairs, want, got),
                format!("{} out of order", seq.name()),
            )
        } else if let Some(r) = rule {
            (r, format!("{} differs: {}", seq.name(), super::matching::describe(&fields[0])))
        } else if gt > wt.saturating_add(late_ns) {
            (
                seq.late(),
                format!(
                    "{} came at {gt} ns, later than {wt} ns + {late_ns} ns (CONF-TIME-006)",
                    seq.name()
                ),
            )
        } else {
            continue;
        };
        div.push(Divergence {
            expected: Some(render_event(we)),
            actual: Some(render_event(ge)),
            fields,
            ..Divergence::named(at, requirement, what)
        });
    }
    for w in missing {
        let (wt, we, _) = want[w];
        let what = format!("an expected {} is missing", seq.name());
        // A failure the device did not act on at all is the cause; otherwise the rule of
        // the output that is missing.
        let untaken = odd.iter().find(|(t, _)| *t == wt).map(|(_, r)| *r);
        let rule = unheeded_failure(we, wt, failed, naks)
            .or(untaken)
            .or_else(|| ack_dropped_by_credit(we, wt, inputs.credits))
            .or_else(|| not_failed_by_stop(we, wt, stops, causes.errored))
            .or_else(|| flag_lost_to_stop(seq, we, wt, stops))
            .or_else(|| flushed_token(we, wt, causes.failed_at))
            .or_else(|| released(seq, wt, causes.errors_at))
            .or_else(|| stopped_short(we, wt, got, late_ns, causes))
            .or_else(|| stopped_with_room(we, wt, causes.full_stops, late_ns))
            .unwrap_or_else(|| missing_rule(seq, we, causes));
        div.push(Divergence {
            expected: Some(render_event(we)),
            ..Divergence::named(wt, rule, what)
        });
    }
    for g in extra {
        let (gt, ge, _) = got[g];
        let what = format!("a {} the scenario does not expect", seq.name());
        // A success written when an AETH the sender must discard arrived: it acted on it.
        let wild = requester_status(ge).filter(|(_, s)| s.is_success()).is_some_and(|(q, _)| {
            inputs.wild_acks.iter().any(|&(x, t)| x == q && t <= gt && gt <= t + late_ns)
        });
        // A success beside a flag the work request alone was due names its signaled bit
        // first: that holds whatever AETH came then.
        let specific = extra_rule(seq, ge, gt, causes);
        let rule = if wild && specific == seq.extra() { SND_ACK_002 } else { specific };
        div.push(Divergence {
            actual: Some(render_event(ge)),
            ..Divergence::named(gt, rule, what)
        });
    }
}

/// Whether the observed output `g` repeats the one before it in its sequence: a flag the
/// same write (address and word), an entry the same fields, wherever it was written.
fn repeats_previous(got: &[Item<'_>], g: usize) -> bool {
    let Some(before) = g.checked_sub(1).map(|p| got[p].1) else { return false };
    match (before, got[g].1) {
        (NicEvent::FlagWrite(a), NicEvent::FlagWrite(b)) => a.addr == b.addr && a.value == b.value,
        (NicEvent::Completion(a), NicEvent::Completion(b)) => {
            let (x, y) = (a.written_entry(), b.written_entry());
            x == CompletionRepr { phase: x.phase, ..y }
        }
        _ => false,
    }
}

/// Whether two entries were expected in the same completion queue.
fn same_queue(a: &NicEvent, b: &NicEvent) -> bool {
    match (a, b) {
        (NicEvent::Completion(x), NicEvent::Completion(y)) => match (&x.queue, &y.queue) {
            (Some(p), Some(q)) => p.cq == q.cq,
            _ => false,
        },
        _ => false,
    }
}

/// Which pairs are in order: in each group of outputs the specification orders
/// ([`Seq::group`]), the longest run whose observed positions increase.
fn in_order(seq: Seq, pairs: &[(usize, usize)], want: &[Item<'_>], orders: &Orders) -> Vec<bool> {
    let mut groups: HashMap<Option<u64>, Vec<usize>> = HashMap::new();
    for (k, &(w, _)) in pairs.iter().enumerate() {
        groups.entry(seq.group(want[w].1, orders)).or_default().push(k);
    }
    let mut keep = vec![false; pairs.len()];
    for ks in groups.values() {
        let sub: Vec<(usize, usize)> = ks.iter().map(|&k| pairs[k]).collect();
        for (&k, kept) in ks.iter().zip(longest_increasing(&sub)) {
            keep[k] = kept;
        }
    }
    keep
}

/// The rule a pair out of order breaks (`k`, with the `partners` it is inverted with). For
/// retirement flags, by cause: a flag written before its own message or an earlier one of
/// its domain was due to retire shows a message retired out of turn (RET-ORDER-001);
/// flags of messages that were all retirable by then, written in another order, show the
/// flags reordered after an in-order retirement (FLAG-RECV-002.d).
fn order_rule(
    seq: Seq,
    k: usize,
    partners: &[usize],
    pairs: &[(usize, usize)],
    want: &[Item<'_>],
    got: &[Item<'_>],
) -> Rule {
    if seq != Seq::ResponderFlags {
        return seq.order();
    }
    // For each inversion, the observed time of the later message, written first, and the
    // times the two were due.
    let early = partners.iter().any(|&j| {
        let (earlier, later) = if j < k { (pairs[j], pairs[k]) } else { (pairs[k], pairs[j]) };
        got[later.1].0 < want[earlier.0].0.max(want[later.0].0)
    });
    if early { seq.order() } else { FLAG_RECV_002_D }
}

/// The fields of two flags or entries that differ: a flag decoded into its fields.
fn event_diff(w: &NicEvent, g: &NicEvent) -> Vec<FieldDiff> {
    let mut out = Vec::new();
    let mut cmp = |field: &str, a: String, b: String| {
        if a != b {
            out.push(FieldDiff::new(field, a, b));
        }
    };
    match (w, g) {
        (NicEvent::FlagWrite(a), NicEvent::FlagWrite(b)) => {
            let (x, y) = (FlagRepr::from_u64(a.value), FlagRepr::from_u64(b.value));
            cmp("qpn", a.qpn.to_string(), b.qpn.to_string());
            cmp("msn", a.msn.to_string(), b.msn.to_string());
            cmp("flag.addr", format!("{:#x}", a.addr), format!("{:#x}", b.addr));
            cmp("flag.valid", x.valid.to_string(), y.valid.to_string());
            cmp("flag.generation", x.generation.to_string(), y.generation.to_string());
            cmp("flag.status", format!("{:#x}", x.status.0), format!("{:#x}", y.status.0));
            cmp("flag.byte_len", x.byte_len.to_string(), y.byte_len.to_string());
            cmp("flag.resv", format!("{:#x}", x.resv), format!("{:#x}", y.resv));
        }
        (NicEvent::Completion(a), NicEvent::Completion(b)) => return entries::diff(a, b),
        _ => cmp("kind", render_event(w), render_event(g)),
    }
    out
}

#[cfg(test)]
mod tests;
