//! Whether a scenario can show a breach of a clause (issue 13, `judge-design.md` 2.5 and
//! 9.2): coverage counts a clause in a scenario only where a device that breaks it would
//! diverge there.
//!
//! A row of the judge's table reads a kind of output; that a scenario expects such an
//! output does not make every clause of the row visible. The frame-matching row names the
//! window rules only for a packet that an acknowledgement released, a SACK trigger rule is
//! hidden by the SACK timer when the timer's SACK still arrives within the lateness
//! tolerance, and a receiver's rule for a frame to discard shows only where such a frame
//! arrives. Each predicate below says, from the scenario alone (its inputs, configuration
//! and expected outputs), whether a breach of its clause can show in it. A clause without
//! a predicate keeps the row's rule: it shows wherever the row is exercised.
//!
//! The predicates read the tables the judge names divergences by: the cause table of an
//! expected frame (`matching::causes`, the one list of what a missing or mistimed frame is
//! named by, which the naming reads too), `sacks::due_causes`, the field table, `arrivals`'
//! discard reasons. A clause shows where some expectation would be named by it when the
//! device misses or mistimes it, or where a field of an expected frame is judged by it.

use std::collections::{BTreeSet, HashMap};

use openrdma_codec::host::{CompletionStatus, FlagRepr};
use openrdma_device::{
    Body, CpuCommand, CpuHalf, HostCommand, NicEvent, NicReport, Record, Scenario, Side,
    SprayPolicy,
};

use super::arrivals::{Arrivals, discard_rule};
use super::fields::{self, ACK, ERSP, Kinds, NACK, PROBE, RTX, WRITE};
use super::matching::{self, When};
use super::obs::{Frame, Injected, Kind, classify};
use super::sequences::full_stop;
use super::table::{CHECKS, Check, expected_reads};
use super::{Scope, sacks};
use crate::req::*;

mod groups;
use groups::{clock_pairs, order_groups};

/// Two stamps of one QP's clock are compared when sent less than this far apart
/// (`schedule::judge_clock`, CONF-CMP-036).
const CLOCK_SPAN_NS: u64 = 1 << 15;

/// What a scenario offers for a breach to show, worked out once.
#[derive(Debug)]
pub struct Facts {
    /// The kinds of the frames it expects.
    kinds: Kinds,
    /// The rules the judge would name a missing or mistimed expected frame by: every entry
    /// of its cause table (`matching::causes`) that some device reaches.
    due: BTreeSet<Clause>,
    /// The rules the judge would name a missing expected SACK by (`sacks::due_causes`).
    sack_due: BTreeSet<Clause>,
    /// The SACK timer lands outside the lateness tolerance: a SACK or ACK owed at once and
    /// not sent is not hidden by the one the timer sends.
    timer_apart: bool,
    /// The receivers' rules broken by acting on the frames to discard it injects.
    discards: BTreeSet<Clause>,
    /// Clock rules with a pair of stamps less than 2^15 ns apart to compare.
    clock: BTreeSet<Clause>,
    /// An expected NACK carries the NACKed packet's timestamp (a reflection tells from 0).
    nack_ts: bool,
    /// An expected SACK answers a probe.
    probe_answer: bool,
    /// An expected SACK answers a write too far from `cack_psn` for its offset, which it
    /// carries clamped.
    far_trigger: bool,
    /// An expected data packet belongs to a Write-with-Immediate message.
    imm_data: bool,
    /// It expects a later packet of a message (not its first), a first transmission: of
    /// a Write-with-Immediate (`.0`), of a Write without immediate data (`.1`).
    later: (bool, bool),
    /// The link is IPv6.
    v6: bool,
    /// Retirement is shared and an expected ACK's QP shares its domain with another QP:
    /// an ACK can carry another QP's MSN (RCV-ACK-003.a).
    shared_acks: bool,
    /// The CPU half is inside the device.
    own_cpu: bool,
    /// The order rules of the writes it expects (`order::requirements`).
    order: Vec<Clause>,
    /// The send-order rules of packets of one QP it expects together
    /// (`schedule::judge_order`).
    sched: BTreeSet<Clause>,
    /// The kinds of report it expects, by [`report_bit`].
    reports: u8,
    /// Whether it expects writes with a TSETH, and whether writes without one.
    tseth: (bool, bool),
    /// The discard rules of the receive checks that discard the writes it injects and
    /// expects discarded (`arrivals`, `receive`).
    refused: BTreeSet<Clause>,
    /// It injects two writes of one retirement domain that the retirement check
    /// discards, with their MSNs at different offsets from the next MSN (`CONF-CMP-134`).
    retired_offsets: bool,
    /// It expects a requester entry of a message an AETH NAK ended.
    nak_entry: bool,
    /// It expects data packets of a QP whose probes only the CPU half asks for: tail
    /// probing is off and its spray policy queues none (SND-TAIL-001.b).
    tail_off: bool,
    /// It expects the rejection entry of a token and posts no work request, whose flags
    /// the judge could not tell from one a rejection wrote (`doorbells::judge_reject_flags`).
    reject_flag: bool,
    /// It expects a QP to fail for a full completion queue (`CQE-RING-004`).
    cq_stop: bool,
    /// It injects a NACK that is not fatal and carries `vendor_info`.
    vendor_nack: bool,
    /// It injects an AETH ACK whose credit code is not 0x1F.
    odd_credit: bool,
    /// The rules by which a sender must discard, or ignore as stale, an acknowledgement it
    /// injects ([`acks_to_discard`]).
    discarded_acks: BTreeSet<Clause>,
    /// The kinds of flag and entry it expects: a retirement flag, a sender flag of a
    /// success, a sender flag of a failure, a sender flag of a success without an entry, an
    /// entry of a failed work request, a sender flag of a success with an entry (bits 0 to
    /// 5).
    flag_lens: u8,
    /// It injects `EndpointRequest` commands: of any operation (`.0`), of one the ERTH
    /// does not define (`.1`).
    endpoint_cmds: (bool, bool),
    /// It injects a command of the CPU half for a QP after it expects that QP to fail.
    command_after_failure: bool,
    /// It creates a QP with no retirement flags (RET-FLAG-001.b) and expects an ACK of it.
    flagless_retires: bool,
    /// It expects an AETH NAK of a QP that has retirement flags: a message fails at the
    /// receiver (FLAG-RECV-003).
    nak_with_flags: bool,
    /// It expects a retirement flag above 2^32 (FLAG-RECV-001.a).
    high_rx_flag: bool,
    /// It injects a `Retransmit` command for a PSN that a SACK injected before it
    /// acknowledged, while it expects a later PSN of the QP to have been sent.
    stale_retransmit: bool,
    /// A device running it reports two `snd_una`s of one QP ([`una_reports`]).
    una_reports: bool,
    /// It expects enough first transmissions of a QP that sprays at random for a
    /// uniform draw to take every primary EV almost surely (`paths::judge_random`).
    random_draws: bool,
    /// It expects data packets of a QP that sprays skew-aware (`.0`), and retransmissions
    /// among them (`.1`): the estimates that choose their EVs show (`paths::estimate`).
    skew: (bool, bool),
}

/// A predicate: whether the scenario can show a breach of the clause.
type Shows = fn(&Facts) -> bool;

/// Rows whose frame-kind clauses follow the field table: a field clause shows where a
/// frame of a kind it judges is expected.
const BY_KIND: &[&str] = &["frames.match", "link"];

/// Rows that name a receiver's clause for acting on a frame to discard.
const BY_DISCARD: &[&str] = &["sacks", "placement", "frames.unexpected"];

/// Rows that name the receive check that discarded a write (`receive::Receiver::refusal`)
/// when a device places, acknowledges or NACKs it anyway.
const BY_REFUSAL: &[&str] = &["sacks", "placement", "frames.unexpected"];

/// The discard rules of the receive checks, in `RCV-CHECK-001` order.
const REFUSED: &[Clause] = &[
    RCV_QP_001,
    RCV_QP_002,
    RCV_DUP_001_A,
    RCV_WIN_002_B,
    RCV_SEG_001,
    RCV_SEG_002,
    RCV_PLACE_002_A,
    FLAG_LAST_002,
    RCV_MSG_002,
    RCV_MSG_001,
    WWI_LIMIT_002,
];

/// The receiver's clauses for frames to discard (`wire::discard_clause`, `Arrivals`).
const DISCARD: &[Clause] = frame_discards![];

/// Clauses the frame-matching row names only by what made an expected frame due (an entry
/// of `matching::causes`): they show where an expectation is due by them.
const DUE: &[Clause] = &[
    // What released a first transmission, sent early (the window held it) or late (the
    // sender did not act on the acknowledgement).
    WWI_LIMIT_001,
    SND_CC_001,
    SND_WIN_001,
    SND_WIN_002_A,
    SND_WIN_002_B,
    SND_WIN_002_C,
    SETH_PDC_001_B,
    SETH_TYPE_001_B,
    SETH_CC_001_B,
    SND_SACK_001,
    SND_SACK_002_A,
    EV_SKIP_002,
    AETH_MRC_002_B,
    // What asked for a retransmission.
    REC_RTO_001,
    REC_RTO_003,
    REC_RTO_005,
    // The retry counter, by what the device did before a retransmission was due.
    REC_RTO_002,
    REC_RETRY_001,
    REC_IF_002,
    REC_IF_003,
    REC_IF_010,
    REC_RTO_004_A,
    REC_RTO_004_B,
    REC_RTO_004_C,
    SND_INFER_001,
    SND_INFER_002_B,
    SND_TAIL_003,
    // The latest transmission before a probe, spared by its answer.
    SND_TAIL_002,
    SND_NACK_002,
    SND_NACK_004_A,
    SND_NACK_004_B,
    // A retransmission queued by a trim while no EV was usable, due when one came back.
    SND_SCHED_003_E,
    SND_RTX_001_A,
    // A retransmission asked for while the window was full, held back by it.
    SND_WIN_003,
    SND_RTX_006_B,
    // Acknowledgements and probes.
    RCV_DUP_002,
    RCV_ACK_001_B,
    RCV_SACK_008_B,
    RCV_ACK_003_B,
    RCV_NAK_002_A,
    RCV_PLACE_002_B,
    REC_PROBE_001,
    RCV_WIN_002_A,
    RCV_NACK_001_C,
];

/// Clauses shown by a predicate of their own, in any row that names them.
const OWN: &[(Clause, Shows)] = &[
    // An ACK of one QP of a shared domain, where another QP of it takes messages.
    (RCV_ACK_003_A, |f| f.shared_acks),
    // An offset placed wrong: where a retired write is discarded and another of the
    // domain, at another offset, is to be discarded too (CONF-CMP-134).
    (RET_CAP_002, |f| f.retired_offsets),
    // An ACK owed at once is hidden by the one the next SACK carries when the timer's
    // SACK lands within the tolerance (design 9.2).
    (RCV_ACK_001_A, |f| f.due.contains(&RCV_ACK_001_A) && f.timer_apart),
    (SND_TS_002_C, |f| f.clock.contains(&SND_TS_002_C)),
    (SND_TS_003_A, |f| f.clock.contains(&SND_TS_003_A)),
    (SND_TS_003_B, |f| f.clock.contains(&SND_TS_003_B)),
    // A status of table 8 for an AETH NAK: where an entry of a message a NAK ended is due.
    (CQE_STATUS_004, |f| f.nak_entry),
    // A flag written for a rejected token: where a token is rejected and no work request
    // is posted.
    (FLAG_SEND_003, |f| f.reject_flag),
    // A QP failed in the middle of the input that found its queue full: where a queue
    // fills.
    (CQE_RING_005_A, |f| f.cq_stop),
    // An acknowledgement misread by a field a sender must ignore: where one is injected.
    (NETH_VENDOR_001_B, |f| f.vendor_nack),
    (AETH_MRC_002_B, |f| f.odd_credit),
    // An acknowledgement a sender must discard, or ignore as stale, acted on: where one is
    // injected.
    (SND_SACK_003, |f| f.discarded_acks.contains(&SND_SACK_003)),
    (SND_SACK_004, |f| f.discarded_acks.contains(&SND_SACK_004)),
    (SND_NACK_001_A, |f| f.discarded_acks.contains(&SND_NACK_001_A)),
    (SND_NACK_001_C, |f| f.discarded_acks.contains(&SND_NACK_001_C)),
    (SND_ACK_002, |f| f.discarded_acks.contains(&SND_ACK_002)),
    (SND_SACK_005_B, |f| f.discarded_acks.contains(&SND_SACK_005_B)),
    (SND_SACK_002_B, |f| f.discarded_acks.contains(&SND_SACK_002_B)),
    // A flag's byte count, by the kind of flag whose count each rule fixes.
    (FLAG_RECV_002_C, |f| f.flag_lens & 1 != 0),
    (FLAG_SEND_001_E, |f| f.flag_lens & 2 != 0),
    (FLAG_LEN_001, |f| f.flag_lens & 4 != 0),
    // A sender flag without an entry, the entry of a failed work request, a sender flag
    // with an entry: the unsignaled and signaled work requests of WR-SIGNALED-001.
    (FLAG_SEND_002, |f| f.flag_lens & 8 != 0),
    (WR_SIGNALED_001_C, |f| f.flag_lens & 16 != 0),
    (WR_SIGNALED_001_A, |f| f.flag_lens & 32 != 0),
    (WR_SIGNALED_001_B, |f| f.flag_lens & 8 != 0),
    // A message completed before an AETH covered it: where a sender flag of a success is
    // expected.
    (SND_ACK_005, |f| f.flag_lens & 2 != 0),
    // A sender flag of a success missing at the AETH ACK that completes its message
    // (`sequences`): where one is expected.
    (SND_ACK_001_A, |f| f.flag_lens & 2 != 0),
    (EV_PROBE_005_F, |f| f.clock.contains(&EV_PROBE_005_F)),
    (NETH_TS_001, |f| f.nack_ts),
    // A frame sent for an endpoint command: where the CPU half commands one, of an
    // operation the ERTH does not define for REC-IF-017.d.
    (REC_IF_017_D, |f| f.endpoint_cmds.1),
    (REC_IF_018_B, |f| f.endpoint_cmds.0),
    // A command acted on for a QP in the error state: where one is injected after a
    // failure.
    (REC_IF_014, |f| f.command_after_failure),
    // A retirement flag written for a message that failed at the receiver: where the
    // device answers a message of a QP with retirement flags with an AETH NAK.
    (FLAG_RECV_003, |f| f.nak_with_flags),
    // A retirement flag at its address cut to 32 bits: where one lies above 2^32.
    (FLAG_RECV_001_A, |f| f.high_rx_flag),
    // A retirement flag written for a QP that has none: where such a QP is created and a
    // message of it retires.
    (RET_FLAG_001_B, |f| f.flagless_retires),
    // A resend's `rtx` bit: where a resend of REC-RTO-004 is expected.
    (REC_RTO_004_D, |f| f.due.contains(&REC_RTO_004_B) || f.due.contains(&REC_RTO_004_C)),
    (SND_RQMSN_002_A, |f| f.imm_data),
    // A later packet of a message that disagrees with the message's first
    // (`fields::message_rule`): where a message of several packets is expected.
    (METH_MSN_001, |f| f.later.0 || f.later.1),
    (METH_RQMSN_001_A, |f| f.later.0),
    (METH_RQMSN_001_B, |f| f.later.1),
    (RETH_VA_002, |f| f.later.0 || f.later.1),
    (RETH_RKEY_001, |f| f.later.0 || f.later.1),
    (RETH_LEN_003, |f| f.later.0 || f.later.1),
    // A payload length no packet of its position may have, and a header left out or put
    // in (`matching::judge_pair`): where writes are expected; a FIRST or MIDDLE packet,
    // only where a message of several packets is.
    (PAY_LEN_001, |f| f.kinds & WRITE != 0),
    (PAY_LEN_002, |f| f.later.0 || f.later.1),
    (OPC_WRITE_001, |f| f.kinds & WRITE != 0),
    // Data in a packet that is no MRC write (`fields::rule_of`): where writes are expected.
    (OPC_MRC_002, |f| f.kinds & WRITE != 0),
    // Whether to timestamp (`fields::rule_of`): where writes with, or without, a TSETH
    // are expected.
    (SND_TS_002_A, |f| f.tseth.0),
    (SND_TS_002_D, |f| f.tseth.1),
    (PETH_RESP_001, |f| f.probe_answer),
    // A tail probe missing or mistimed where one is due; one sent while tail probing is
    // off, where data is outstanding for a timer to probe.
    (SND_TAIL_001_A, |f| f.due.contains(&SND_TAIL_001_A)),
    (SND_TAIL_001_B, |f| f.tail_off),
    // A window-fit estimate the device's EVs contradict (`fit`): where an entry of the
    // cause table of a first transmission names it.
    (SND_SPRAY_006, |f| f.due.contains(&SND_SPRAY_006)),
    (SND_SPRAY_007, |f| f.due.contains(&SND_SPRAY_007)),
    (SND_SPRAY_010, |f| f.due.contains(&SND_SPRAY_010)),
    // A random draw far from uniform: where a random QP sends enough first
    // transmissions for the bounds of `paths::judge_random` to bite.
    (SND_SPRAY_002, |f| f.random_draws),
    // An estimate kept wrong sways a skew-aware choice: where a skew-aware QP sends, and
    // for the rules of retransmitted PSNs, where it retransmits.
    (SND_RTT_002, |f| f.skew.0),
    (SND_RTX_006_A, |f| f.skew.1),
    (SND_INFER_003_B, |f| f.skew.1),
    // A retransmission missing with nothing else asking for it, or one whose headers
    // differ from its first transmission's (the field table).
    (SND_RTX_001_A, |f| f.due.contains(&SND_RTX_001_A) || f.kinds & RTX != 0),
    (SETH_PR_001, |f| f.probe_answer),
    (SETH_ACKPSN_002, |f| f.probe_answer),
    // The clamped offset of a far trigger: where the scenario expects a SACK of one.
    (SETH_ACKPSN_003_B, |f| f.far_trigger),
    // What a missing SACK is named by (`sacks::due_causes`): a trigger owed at once, visible
    // only where the timer's SACK would be late; the timer itself.
    (RCV_SACK_001_A, |f| f.sack_due.contains(&RCV_SACK_001_A) && f.timer_apart),
    (RCV_SACK_001_B, |f| f.sack_due.contains(&RCV_SACK_001_B) && f.timer_apart),
    (RCV_SACK_001_C, |f| f.sack_due.contains(&RCV_SACK_001_C) && f.timer_apart),
    (RCV_SACK_001_D, |f| f.sack_due.contains(&RCV_SACK_001_D) && f.timer_apart),
    (RCV_SACK_001_E, |f| f.sack_due.contains(&RCV_SACK_001_E) && f.timer_apart),
    (RCV_SACK_001_F, |f| f.sack_due.contains(&RCV_SACK_001_F) && f.timer_apart),
    (RCV_DUP_001_B, |f| f.sack_due.contains(&RCV_DUP_001_B) && f.timer_apart),
    (EV_PROBE_004, |f| f.sack_due.contains(&EV_PROBE_004) && f.timer_apart),
    (RCV_SACK_002, |f| f.sack_due.contains(&RCV_SACK_002) && f.timer_apart),
    (TSETH_TS_001_A, |f| f.sack_due.contains(&TSETH_TS_001_A) && f.timer_apart),
    (RCV_SACK_004_A, |f| f.sack_due.contains(&RCV_SACK_004_A)),
    (RCV_SACK_008_A, |f| f.sack_due.contains(&RCV_SACK_008_A) && f.timer_apart),
    (RCV_SACK_004_B, |f| f.sack_due.contains(&RCV_SACK_004_B)),
    // The NACK back-off: only where a window or resource NACK asks for a retransmission.
    (SND_NACK_004_A, |f| f.due.contains(&SND_NACK_004_A)),
    // A delayed entry queued again by a later reason: where a NACK delays one too.
    (SND_RTX_005, |f| f.due.contains(&SND_NACK_004_A)),
    (SND_SCHED_003_B, |f| f.due.contains(&SND_NACK_004_A)),
    // Send order: only where the reference sent two packets of a QP together.
    (SND_ORDER_001_A, |f| f.sched.contains(&SND_ORDER_001_A)),
    (SND_ORDER_001_B, |f| f.sched.contains(&SND_ORDER_001_B)),
    (SND_SCHED_003_A, |f| f.sched.contains(&SND_SCHED_003_A)),
    (SND_SCHED_001, |f| f.sched.contains(&SND_SCHED_001)),
    // A commanded probe passed by data: where the scenario expects a data packet of the
    // QP after a probe a command asked for.
    (REC_IF_011, |f| f.sched.contains(&REC_IF_011)),
    // A stale Retransmit acted on: where one is injected while a PSN is outstanding.
    (REC_RTO_004_E, |f| f.stale_retransmit),
    // Reports delivered out of order: where two reports of one QP carry different
    // `snd_una`s, and the reports are judged.
    (REC_IF_015, |f| f.una_reports && !f.own_cpu),
    // A CPU half's commands show only through a device's own CPU half.
    (EV_STATE_003_B, |f| f.own_cpu),
    // Reports: only where the scenario expects one of the kind the clause fixes; the
    // Retransmitted reports where it expects a retransmission and judges them.
    (REC_IF_004, |f| f.reports & NACK_REPORT != 0),
    (REC_IF_005, |f| f.reports & MARK_REPORT != 0),
    (REC_IF_007, |f| f.reports & PROBE_REPORT != 0),
    (REC_IF_008, |f| f.kinds & RTX != 0 && !f.own_cpu),
    // The EV transitions a missing or unexpected EvState report is named by: only where
    // the scenario expects EvState reports, which alone makes the judge compare them.
    // Three of them also name a first transmission the transition released or held
    // (`matching::causes`): where such a packet is due by them.
    (EV_BAD_001, |f| f.reports & STATE_REPORT != 0),
    (EV_DENY_001, |f| f.reports & STATE_REPORT != 0),
    (EV_DENY_002, |f| f.reports & STATE_REPORT != 0 || f.due.contains(&EV_DENY_002)),
    (EV_PROBE_002, |f| f.reports & STATE_REPORT != 0 || f.due.contains(&EV_PROBE_002)),
    (EV_PROBE_003, |f| f.reports & STATE_REPORT != 0 || f.due.contains(&EV_PROBE_003)),
    (EV_SKIP_001, |f| f.reports & STATE_REPORT != 0),
    (EV_STATE_003_A, |f| f.reports & STATE_REPORT != 0),
    (REC_IF_012, |f| f.reports & STATE_REPORT != 0),
    (SND_NACK_003, |f| f.reports & STATE_REPORT != 0),
];

/// Whether `s` expects data packets of a QP it creates spraying skew-aware, and whether
/// retransmissions among them.
fn skew_data(s: &Scenario, exp: &[(&Record, Frame<'_>)]) -> (bool, bool) {
    let mut out = (false, false);
    for r in s.injects() {
        if let Body::Host { command: HostCommand::CreateQp(q) } = &r.body {
            if q.spray != SprayPolicy::SkewAware {
                continue;
            }
            let peer = q.peer_qpn.value();
            for (_, f) in exp {
                if let Kind::Data { qp, rtx, .. } = f.kind {
                    if qp == peer {
                        out.0 = true;
                        out.1 |= rtx;
                    }
                }
            }
        }
    }
    out
}

/// Whether `s` expects, of a QP it creates spraying at random, enough first transmissions
/// that a uniform draw takes every primary EV almost surely.
fn random_draws(s: &Scenario, exp: &[(&Record, Frame<'_>)]) -> bool {
    s.injects().any(|r| match &r.body {
        Body::Host { command: HostCommand::CreateQp(q) } if q.spray == SprayPolicy::Random => {
            let peer = q.peer_qpn.value();
            let n = exp
                .iter()
                .filter(|(_, f)| matches!(f.kind, Kind::Data { qp, rtx: false, .. } if qp == peer))
                .count();
            super::paths::never_drawn_shows(n, q.evs.len())
        }
        _ => false,
    })
}

const NACK_REPORT: u8 = 1;
const MARK_REPORT: u8 = 2;
const PROBE_REPORT: u8 = 4;
const STATE_REPORT: u8 = 8;

/// The kind of report `r` is, as a set member.
fn report_bit(r: &NicReport) -> u8 {
    match r {
        NicReport::Nack { .. } => NACK_REPORT,
        NicReport::EvMarked { .. } => MARK_REPORT,
        NicReport::ProbeAnswered { .. } => PROBE_REPORT,
        NicReport::EvState { .. } => STATE_REPORT,
        _ => 0,
    }
}

/// The rules by which a sender must discard, or ignore as stale, an acknowledgement `s`
/// injects, by the first transmissions it expects before it: a SACK that acknowledges a
/// PSN never sent (SND-SACK-003) or whose offset no window allows (SND-SACK-004), a NACK
/// for a PSN an earlier SACK showed arrived (SND-NACK-001.a) or never sent
/// (SND-NACK-001.c), an AETH whose `msn` is ahead of every message sent (SND-ACK-002); and
/// a stale SACK, before an earlier one, whose news a sender must still apply (SND-SACK-005.b).
fn acks_to_discard(
    s: &Scenario,
    inj: &[Injected<'_>],
    exp: &[(&Record, Frame<'_>)],
) -> BTreeSet<Clause> {
    use openrdma_codec::Psn;
    let local_of = super::peer_map(s);
    let window = s.manifest.nic.window();
    let mut out = BTreeSet::new();
    let mut arrived: Vec<(u32, openrdma_codec::SethRepr)> = Vec::new();
    for (r, d) in inj.iter().filter_map(|i| Some((i.rec, i.frame.as_ref()?))) {
        let Some(q) = d.bth.map(|b| b.dest_qp.value()) else { continue };
        let before = exp.iter().filter(|(e, _)| e.at.0 < r.at.0);
        let mut last: Option<Psn> = None;
        let mut msns: HashMap<u32, u16> = HashMap::new();
        for (_, f) in before {
            let Kind::Data { qp, psn, rtx: false } = f.kind else { continue };
            if let Some(m) = f.d.ext.meth {
                msns.insert(qp, m.msn.value());
            }
            if local_of.get(&qp) == Some(&q) {
                last = Some(Psn::new(psn));
            }
        }
        if let Some(a) = d.ext.aeth {
            let msn = a.msn.msn().value();
            let ahead = |m: &u16| (1..1 << 15).contains(&msn.wrapping_sub(*m));
            if !msns.is_empty() && msns.values().all(ahead) {
                out.insert(SND_ACK_002);
            }
        }
        let Some(last) = last else { continue };
        if let Some(x) = d.ext.seth {
            let beyond = (0..64)
                .filter(|i| x.sack_bitmap >> i & 1 == 1)
                .any(|i| x.bitmap_base().add(i).is_after(last));
            if x.cack_psn.is_after(last) || beyond {
                out.insert(SND_SACK_003);
            } else if i32::from(x.sack_offset).unsigned_abs() > window + 64 {
                out.insert(SND_SACK_004);
            } else if !x.pr {
                let stale =
                    arrived.iter().any(|(y, a)| *y == q && x.cack_psn.is_before(a.cack_psn));
                if stale {
                    out.insert(SND_SACK_005_B);
                }
                // Bits for PSNs before `snd_una`, which a sender ignores.
                let una = arrived
                    .iter()
                    .filter(|(y, _)| *y == q)
                    .map(|(_, a)| a.cack_psn.add(1))
                    .reduce(|a, b| if b.is_after(a) { b } else { a });
                let before = |u: Psn| {
                    (0..64)
                        .any(|i| x.sack_bitmap >> i & 1 == 1 && x.bitmap_base().add(i).is_before(u))
                };
                if una.is_some_and(before) {
                    out.insert(SND_SACK_002_B);
                }
                arrived.push((q, x));
            }
        }
        if let Some(n) = d.ext.neth.filter(|n| !n.reason.is_fatal()) {
            if n.nack_psn.is_after(last) {
                out.insert(SND_NACK_001_C);
            } else if arrived.iter().any(|(x, a)| *x == q && a.is_sacked(n.nack_psn)) {
                out.insert(SND_NACK_001_A);
            }
        }
    }
    out
}

/// Kinds of frame whose fields a clause judges beyond the field table's rows
/// (`fields::rule_of`'s special cases and `link`'s destination rules).
const FIELD_EXTRA: &[(Clause, Kinds)] = &[
    (AETH_MRC_002_A, ACK),
    (AETH_MSN_001_B, ACK),
    (EETH_STATUS_001_A, ERSP),
    (EETH_STATUS_001_B, ERSP),
    (EV_PROBE_005_A, PROBE),
];

/// Which flags and failures `s` expects, as the bits of `Facts::flag_lens`: a retirement
/// flag (1), a sender flag's success (2) or failure (4), an unsignaled success (8), a
/// failed entry not rejected at the doorbell (16), a signaled success (32).
fn flag_lens(s: &Scenario) -> u8 {
    let mut lens = s.expects().fold(0, |k, r| match &r.body {
        Body::Event { event: NicEvent::FlagWrite(w) } => {
            let ok = FlagRepr::from_u64(w.value).status.is_success();
            k | match (w.side, ok) {
                (Side::Responder, _) => 1,
                (Side::Requester, true) => 2,
                (Side::Requester, false) => 4,
            }
        }
        Body::Event { event: NicEvent::Completion(c) }
            if c.side == Side::Requester
                && !c.entry.status.is_success()
                && !c.entry.status.is_doorbell_reject() =>
        {
            k | 16
        }
        _ => k,
    });
    let entries: BTreeSet<(u32, u16)> = s
        .expects()
        .filter_map(|r| match &r.body {
            Body::Event { event: NicEvent::Completion(c) } if c.side == Side::Requester => {
                Some((c.entry.qpn.value(), c.entry.msn.value()))
            }
            _ => None,
        })
        .collect();
    let unsignaled = s.expects().any(|r| {
        matches!(&r.body, Body::Event { event: NicEvent::FlagWrite(w) }
                if w.side == Side::Requester
                    && FlagRepr::from_u64(w.value).status.is_success()
                    && !entries.contains(&(w.qpn.value(), w.msn.value())))
    });
    if unsignaled {
        lens |= 8;
    }
    // A signaled work request's success: its entry and its sender flag both due.
    let signaled = s.expects().any(|r| {
        matches!(&r.body, Body::Event { event: NicEvent::FlagWrite(w) }
                if w.side == Side::Requester
                    && FlagRepr::from_u64(w.value).status.is_success()
                    && entries.contains(&(w.qpn.value(), w.msn.value())))
    });
    if signaled {
        lens |= 32;
    }
    lens
}

/// Whether `s` injects a `Retransmit` command for a PSN at or before the cumulative PSN of
/// a SACK it injected into the QP before, while it expects a data packet of the QP after
/// that cumulative PSN sent by then: a command that must change nothing (REC-RTO-004.e).
fn stale_retransmit(s: &Scenario, inj: &[Injected<'_>], exp: &[(&Record, Frame<'_>)]) -> bool {
    let peers = super::peer_map(s);
    s.injects().any(|r| {
        let Body::Cpu { command: CpuCommand::Retransmit { qpn, psn } } = &r.body else {
            return false;
        };
        let q = qpn.value();
        let cack = inj
            .iter()
            .filter(|j| j.rec.at < r.at)
            .filter_map(|j| {
                let d = j.frame.as_ref()?;
                (d.bth?.dest_qp.value() == q).then_some(d.ext.seth.filter(|x| !x.pr)?.cack_psn)
            })
            .reduce(|a, b| if b.is_after(a) { b } else { a });
        let Some(cack) = cack.filter(|&c| psn.is_before(c.next())) else { return false };
        exp.iter().any(|(e, f)| {
            e.at <= r.at
                && matches!(f.kind, Kind::Data { qp, psn: p, rtx: false }
                    if peers.get(&qp) == Some(&q) && openrdma_codec::Psn::new(p).is_after(cack))
        })
    })
}

/// Whether a device running `s` reports two `snd_una`s of one QP: it sends a first
/// transmission (an `Armed` report is due, REC-IF-003) that a SACK injected later
/// acknowledges cumulatively (a `Progress` with a later `snd_una`, REC-IF-002). Neither
/// report is recorded, since neither is compared.
fn una_reports(s: &Scenario, inj: &[Injected<'_>], exp: &[(&Record, Frame<'_>)]) -> bool {
    let peers = super::peer_map(s);
    exp.iter().any(|(e, f)| {
        let Kind::Data { qp, psn, rtx: false } = f.kind else { return false };
        let Some(&local) = peers.get(&qp) else { return false };
        inj.iter().filter(|i| i.at() > e.at.0).any(|i| {
            i.frame.as_ref().is_some_and(|d| {
                d.bth.is_some_and(|b| b.dest_qp.value() == local)
                    && d.ext.seth.is_some_and(|x| {
                        !x.pr && x.covers_cumulatively(openrdma_codec::Psn::new(psn))
                    })
            })
        })
    })
}

/// Whether `s` injects a command of the CPU half for a QP after the first error entry of
/// that QP it expects.
fn command_after_failure(s: &Scenario) -> bool {
    let failed: HashMap<u32, u64> = s.expects().fold(HashMap::new(), |mut m, r| {
        if let Body::Event { event: NicEvent::Completion(c) } = &r.body {
            if c.side == Side::Requester && !c.entry.status.is_success() {
                m.entry(c.entry.qpn.value()).or_insert(r.at.0);
            }
        }
        m
    });
    s.injects().any(|r| match &r.body {
        Body::Cpu {
            command:
                CpuCommand::Retransmit { qpn, .. }
                | CpuCommand::Probe { qpn, .. }
                | CpuCommand::SetEvState { qpn, .. }
                | CpuCommand::QpError { qpn },
        } => failed.get(&qpn.value()).is_some_and(|&t| t <= r.at.0),
        _ => false,
    })
}

impl Facts {
    /// Works out what `s` offers.
    pub fn of(s: &Scenario) -> Facts {
        let exp: Vec<(&Record, Frame<'_>)> = s
            .expects()
            .filter_map(|r| match &r.body {
                Body::Frame { bytes, .. } => Some((r, classify(r.at.0, bytes))),
                _ => None,
            })
            .collect();
        let inj = super::obs::injects_of(s);
        // The frames the scenario injects, decoded.
        let injected = || inj.iter().filter_map(|i| Some((i.rec, i.frame.as_ref()?)));
        let m = &s.manifest;
        let delay = u64::try_from(m.nic.sack_delay.as_nanos()).unwrap_or(u64::MAX);
        let mut f = Facts {
            kinds: exp.iter().fold(0, |k, (_, f)| k | fields::kind_bit(&f.kind)),
            due: BTreeSet::new(),
            sack_due: BTreeSet::new(),
            timer_apart: delay > m.tolerances.late_ns,
            discards: BTreeSet::new(),
            clock: clock_pairs(&exp, m.tolerances.late_ns / 2),
            nack_ts: exp.iter().any(|(_, f)| f.d.ext.neth.is_some_and(|n| n.tx_timestamp != 0)),
            probe_answer: exp.iter().any(|(_, f)| f.d.ext.seth.is_some_and(|x| x.pr)),
            far_trigger: exp.iter().any(|(_, f)| {
                f.d.ext.seth.is_some_and(|x| {
                    !x.pr && (x.ack_psn_offset == i16::MIN || x.ack_psn_offset == i16::MAX)
                })
            }),
            imm_data: false,
            later: (false, false),
            v6: m.link.is_ipv6(),
            shared_acks: shared_acks(s, &exp),
            own_cpu: m.cpu == CpuHalf::Device,
            order: super::order::requirements(s),
            sched: order_groups(s, &exp),
            reports: s.expects().fold(0, |k, r| match &r.body {
                Body::Event { event: NicEvent::Report(x) } => k | report_bit(x),
                _ => k,
            }),
            tseth: exp.iter().filter(|(_, f)| matches!(f.kind, Kind::Data { .. })).fold(
                (false, false),
                |(with, without), (_, f)| {
                    (with || f.d.ext.tseth.is_some(), without || f.d.ext.tseth.is_none())
                },
            ),
            tail_off: m.nic.tail_probe.is_none()
                && s.records.iter().any(|r| {
                    matches!(&r.body, Body::Host { command: HostCommand::CreateQp(q) }
                        if q.spray != SprayPolicy::WindowFit)
                })
                && exp.iter().any(|(_, f)| matches!(f.kind, Kind::Data { .. })),
            refused: Arrivals::of_scenario(s).refused().collect(),
            retired_offsets: Arrivals::of_scenario(s).retired_offsets_differ(),
            nak_entry: s.expects().any(|r| {
                matches!(&r.body, Body::Event { event: NicEvent::Completion(c) }
                if (0x61..=0x63).any(|n| {
                    CompletionStatus::from_aeth_nak(n) == Some(c.entry.status)
                }))
            }),
            vendor_nack: injected().any(|(_, d)| {
                d.ext.neth.is_some_and(|n| n.vendor_info != 0 && !n.reason.is_fatal())
            }),
            odd_credit: injected().any(|(_, d)| {
                d.ext.aeth.is_some_and(|a| {
                    openrdma_codec::AethKind::of(a.syndrome) == openrdma_codec::AethKind::Ack
                        && a.syndrome & 0x1F != 0x1F
                })
            }),
            discarded_acks: acks_to_discard(s, &inj, &exp),
            cq_stop: s
                .expects()
                .any(|r| matches!(&r.body, Body::Event { event } if full_stop(event).is_some())),
            reject_flag: s.expects().any(|r| {
                matches!(&r.body, Body::Event { event: NicEvent::Completion(c) }
                    if c.side == Side::Requester && c.entry.status.is_doorbell_reject())
            }) && !s
                .injects()
                .any(|r| matches!(&r.body, Body::Host { command: HostCommand::PostWrite(_) })),
            flag_lens: flag_lens(s),
            endpoint_cmds: s.injects().fold((false, false), |(any, bad), r| match &r.body {
                Body::Cpu { command: CpuCommand::EndpointRequest { op, .. } } => {
                    (true, bad || !op.is_known())
                }
                _ => (any, bad),
            }),
            command_after_failure: false,
            flagless_retires: false,
            nak_with_flags: false,
            high_rx_flag: s.expects().any(|r| {
                matches!(&r.body, Body::Event { event: NicEvent::FlagWrite(x) }
                    if x.side == Side::Responder && x.addr > 0xFFFF_FFFF)
            }),
            stale_retransmit: stale_retransmit(s, &inj, &exp),
            una_reports: una_reports(s, &inj, &exp),
            random_draws: random_draws(s, &exp),
            skew: skew_data(s, &exp),
        };
        let flagless = super::table::flagless(s);
        let peers = super::peer_map(s);
        f.flagless_retires = exp.iter().any(|(_, x)| {
            matches!(x.kind, Kind::Ack { qp, .. }
                if peers.get(&qp).is_some_and(|l| flagless.contains(l)))
        });
        f.nak_with_flags = exp.iter().any(|(_, x)| {
            matches!(x.kind, Kind::Ack { qp, syndrome, .. }
                if openrdma_codec::AethKind::of(syndrome) != openrdma_codec::AethKind::Ack
                    && peers.get(&qp).is_some_and(|l| !flagless.contains(l)))
        });
        f.command_after_failure = command_after_failure(s);
        for (_, d) in injected() {
            if let Some(c) = discard_rule(d) {
                f.discards.insert(c);
            }
        }
        let fed = matching::fed_scenario(&inj);
        for e in 0..exp.len() {
            let (rec, ef) = &exp[e];
            match ef.kind {
                Kind::Sack { qp, .. } => {
                    // Every entry of the SACK's cause table: those before the last hold
                    // of some device.
                    for (rule, _) in sacks::due_causes(s, &inj, rec.at.0, qp) {
                        f.sack_due.insert(rule);
                    }
                }
                _ => {
                    if matches!(ef.kind, Kind::Data { rtx: false, .. }) {
                        let imm = matching::imm_message(&exp, e);
                        f.imm_data |= imm;
                        if ef.d.bth.is_some_and(|b| !b.opcode.is_first()) {
                            f.later.0 |= imm;
                            f.later.1 |= !imm;
                        }
                    }
                    // Every entry of the cause table some device reaches: those up to the
                    // first that holds whatever the device does.
                    let causes = matching::causes(s, &inj, &fed, &exp, e);
                    let reach = causes.iter().position(|c| c.when == When::Always);
                    let reach = reach.map_or(causes.len(), |i| i + 1);
                    f.due.extend(causes[..reach].iter().map(|c| c.rule));
                }
            }
        }
        f
    }
}

/// Whether `s` can show a breach of `clause` through `check`: the check is exercised by
/// `s` ([`Check::exercised_by`]) and the clause's predicate, if it has one, holds.
pub fn shows(check: &Check, clause: Clause, s: &Scenario, f: &Facts) -> bool {
    check.exercised_by(s) && shows_in(check.name, clause, f)
}

/// Whether a breach of `clause` that the row `row` names can show where the row is
/// exercised, in a scenario with the facts `f`.
fn shows_in(row: &str, clause: Clause, f: &Facts) -> bool {
    if BY_REFUSAL.contains(&row) && REFUSED.contains(&clause) {
        return f.refused.contains(&clause);
    }
    if let Some((_, p)) = OWN.iter().find(|(c, _)| *c == clause) {
        return p(f);
    }
    if BY_DISCARD.contains(&row) && DISCARD.contains(&clause) {
        return f.discards.contains(&clause);
    }
    if row == "order" {
        return f.order.iter().any(|&c| c == clause || c == clause.line());
    }
    if row == "wire.ev" {
        return match clause {
            c if c == ENC_EV_001_A => f.v6 && f.kinds & (WRITE | PROBE) != 0,
            c if c == ENC_EV_002_A => !f.v6 && f.kinds & (WRITE | PROBE) != 0,
            c if c == RCV_NACK_001_B => f.kinds & NACK != 0,
            // An EV chosen outside the profile (CONF-CMP-017.a).
            c if c == SND_PATH_001 => f.kinds & WRITE != 0,
            c if c == EV_PROBE_005_B => f.kinds & PROBE != 0,
            _ => true,
        };
    }
    if !BY_KIND.contains(&row) {
        return true;
    }
    if DUE.contains(&clause) {
        return f.due.contains(&clause);
    }
    match field_kinds(clause) {
        Some(k) => f.kinds & k != 0,
        None => true,
    }
}

/// The kinds of frame whose fields `clause` judges, from the field table; `None` for a
/// clause the table does not name.
fn field_kinds(clause: Clause) -> Option<Kinds> {
    let rows = fields::ROWS.iter().filter(|r| r.rule == clause).map(|r| r.kinds);
    let extra = FIELD_EXTRA.iter().filter(|(c, _)| *c == clause).map(|(_, k)| *k);
    let k = rows.chain(extra).fold(0, |a, b| a | b);
    (k != 0).then_some(k)
}

/// Whether `s` has shared retirement and expects an ACK of a QP whose domain holds
/// another QP (RCV-ACK-003.a).
fn shared_acks(s: &Scenario, exp: &[(&Record, Frame<'_>)]) -> bool {
    if s.manifest.nic.retirement != openrdma_device::RetirementMode::Shared {
        return false;
    }
    let peers = super::peer_map(s);
    let domains: Vec<(u32, _)> = s
        .records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Host { command: HostCommand::CreateQp(q) } => Some((q.qpn.value(), q.domain)),
            _ => None,
        })
        .collect();
    exp.iter().any(|(_, f)| {
        let Kind::Ack { qp, syndrome, .. } = f.kind else { return false };
        let Some(d) = peers.get(&qp).and_then(|l| domains.iter().find(|(q, _)| q == l)) else {
            return false;
        };
        super::ack_class(syndrome).0 && domains.iter().any(|(q, x)| *x == d.1 && *q != d.0)
    })
}

/// The clauses a scenario covers: the clauses of every check it exercises that it can
/// show a breach of ([`shows`]), and those the check declares as restating them
/// ([`Check::restated`]), for a device that claims every capability.
pub fn covered_by(s: &Scenario) -> BTreeSet<Clause> {
    let f = Facts::of(s);
    exercised(s)
        .flat_map(|c| {
            let shown = c.clauses.iter().copied().filter(|x| shows_in(c.name, *x, &f));
            // A clause that restates a shown one for the row's output shows with it.
            let shown: Vec<Clause> = shown.collect();
            let restating: Vec<Clause> = shown.iter().flat_map(|x| c.also_breaks(*x)).collect();
            shown.into_iter().chain(restating)
        })
        .collect()
}

/// The checks `s` exercises ([`Check::exercised_by`]), its expected outputs read once.
fn exercised(s: &Scenario) -> impl Iterator<Item = &'static Check> + '_ {
    let reads = expected_reads(s);
    CHECKS
        .iter()
        .filter(move |c| (c.applies)(s, Scope::FULL) && c.reads.iter().any(|k| reads.contains(k)))
}

/// The clauses of the rows `s` exercises that it cannot show a breach of: what coverage
/// counts no longer, with the row that names each.
pub fn hidden_in(s: &Scenario) -> Vec<(&'static str, Clause)> {
    let f = Facts::of(s);
    exercised(s)
        .flat_map(|c| c.clauses.iter().map(move |x| (c.name, *x)))
        .filter(|(row, x)| !shows_in(row, *x, &f))
        .collect()
}

/// The clauses of `wire.ev` that show only where the scenario has the frames they judge.
const WIRE_EV_OWN: [Clause; 5] =
    [ENC_EV_001_A, ENC_EV_002_A, RCV_NACK_001_B, SND_PATH_001, EV_PROBE_005_B];

/// Whether `clause`, named by `row`, has a predicate of its own here (it does not simply
/// show wherever the row is exercised).
pub fn has_predicate(row: &str, clause: Clause) -> bool {
    OWN.iter().any(|(c, _)| *c == clause)
        || (BY_REFUSAL.contains(&row) && REFUSED.contains(&clause))
        || (BY_DISCARD.contains(&row) && DISCARD.contains(&clause))
        || row == "order"
        || (row == "wire.ev" && WIRE_EV_OWN.contains(&clause))
        || (BY_KIND.contains(&row) && (DUE.contains(&clause) || field_kinds(clause).is_some()))
}
