//! Faults in what a responder sends in answer to what arrives: the fields of its SACKs,
//! transport ACKs, NAKs, NACKs and endpoint responses, and the triggers that make a SACK
//! due. One rule each, the rest of the answer right.

use std::collections::HashMap;
use std::sync::OnceLock;

use openrdma_codec::frame::{FrameRepr, IpRepr, decode};
use openrdma_codec::{AethMsn, Ev, NackReason, Psn};
use openrdma_conformance::req::{self, Clause};
use openrdma_device::{
    Device, Direction, Manifest, NicEvent, Output, TimedInput, TimedOutput, Timestamp,
};
use openrdma_sm::boundary::ReferenceDevice;

use super::generated::{Generated, catching, corpus_frames};
use super::{Batch, Edits, Fault, Rewrite, Stream, fault, sends, stream};

mod streams;
use streams::*;

/// Loses outputs the test matches.
const fn loses(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    keep: fn(&Output) -> bool,
) -> Fault {
    fault(name, what, breaks, catch, Edits { keep_out: Some(keep), ..Edits::NONE })
}

/// Runs with a changed configuration.
const fn config(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    edit: fn(&mut Manifest),
) -> Fault {
    fault(name, what, breaks, catch, Edits { config: Some(edit), ..Edits::NONE })
}

/// Faults of this family the corpus cannot catch, not registered, with the reason.
pub const NOT_REGISTERED: &[(&str, &str)] = &[];

/// Every fault of this family but the generated ones ([`nack_reasons`]).
pub static FAULTS: &[Fault] = &[
    // ---- transport ACKs and NAKs ------------------------------------------------------------
    sends(
        "ack-msn-bit-15-flipped",
        "transport ACKs carry bit 15 of their MSN flipped",
        &[req::AETH_MSN_001_A],
        &["rcv-in-order-v4"],
        |b| ack(b, true, |a| a.msn = AethMsn::new(a.msn.value() ^ 0x8000)),
    ),
    sends(
        "ack-msn-bit-16-set",
        "transport ACKs carry the carry out of a 16-bit MSN counter in bit 16",
        &[req::AETH_MSN_001_B],
        &["rcv-in-order-v4"],
        |b| ack(b, true, |a| a.msn = AethMsn::new(a.msn.value() | 0x1_0000)),
    ),
    sends(
        "ack-on-other-ev",
        "transport ACKs travel on an EV one off from their cause's",
        &[req::RCV_ACK_002_B],
        &["rcv-in-order-v6"],
        |b| on_ev(b, 1, |f| f.ext.aeth.is_some_and(|a| a.syndrome & 0x60 == 0)),
    ),
    sends(
        "nak-on-other-ev",
        "transport NAKs travel on an EV whose UDP source port is one off from their cause's",
        &[req::RCV_NAK_002_B],
        &["rcv-placement-errors", "rcv-check-order"],
        |b| on_ev(b, 0x1_0000, |f| f.ext.aeth.is_some_and(|a| a.syndrome & 0x60 != 0)),
    ),
    loses(
        "transport-acks-lost",
        "transport ACKs are lost",
        &[req::RCV_ACK_001_A],
        &["rcv-ack-coalesce"],
        |o| !frame(o, |f| f.ext.aeth.is_some_and(|a| a.syndrome & 0x60 == 0)),
    ),
    // ---- endpoint responses ---------------------------------------------------------------
    sends(
        "endpoint-status-error",
        "endpoint responses to operations performed carry a non-zero status",
        &[req::EETH_STATUS_001_A],
        &["rcv-endpoint"],
        |b| {
            refit(b, |f| {
                let Some(e) = f.ext.eeth.as_mut().filter(|e| e.status == 0) else {
                    return false;
                };
                e.status = 2;
                true
            })
        },
    ),
    sends(
        "endpoint-port-status-unsupported",
        "PORT_STATUS_UPDATE is not implemented: its responses carry status 1, UNSUPPORTED_OP",
        &[req::ERTH_RESP_001_C],
        &["rcv-endpoint"],
        |b| {
            refit(b, |f| {
                let Some(e) = f.ext.eeth.as_mut().filter(|e| {
                    e.status == 0 && e.op == openrdma_codec::EndpointOp::PORT_STATUS_UPDATE
                }) else {
                    return false;
                };
                e.status = 1;
                true
            })
        },
    ),
    // ---- SACK contents ----------------------------------------------------------------------
    sends(
        "sack-pr-always-set",
        "every SACK has pr set, as if it answered a probe",
        &[req::SETH_PR_001],
        &["rcv-in-order-v4"],
        |b| seth(b, |s| !s.pr && set(&mut s.pr, true)),
    ),
    sends(
        "probe-answer-id-off-by-one",
        "SACKs that answer a probe carry its probe_id with the lowest bit flipped",
        &[req::SETH_ACKPSN_002, req::PETH_RESP_001],
        &["rcv-probe-answer"],
        |b| seth(b, |s| s.pr && flip(&mut s.ack_psn_offset, 1)),
    ),
    sends(
        "sack-trigger-offset-bit-13",
        "SACKs that answer a write carry bit 13 of ack_psn_offset flipped",
        &[req::SETH_ACKPSN_003_A],
        &["rcv-in-order-v4"],
        |b| seth(b, |s| !s.pr && flip(&mut s.ack_psn_offset, 0x2000)),
    ),
    fault(
        "sack-offset-truncated",
        "SACKs carry the low 16 bits of the trigger's distance from cack_psn, not clamped, so a far duplicate's SACK names a PSN that never arrived",
        &[req::SETH_ACKPSN_003_B],
        &["rcv-far-duplicate"],
        // Input by input, so that the stream knows the write each SACK answers.
        Edits {
            stream: Some(|_| Box::<OffsetTruncated>::default()),
            per_input: true,
            ..Edits::NONE
        },
    ),
    sends(
        "sack-bitmap-top-bit-set",
        "SACKs claim the last PSN their bitmap covers",
        &[req::SETH_BITMAP_001, req::RCV_SACK_005_D],
        &["rcv-in-order-v4"],
        |b| seth(b, |s| s.sack_bitmap >> 63 == 0 && flip(&mut s.sack_bitmap, 1 << 63)),
    ),
    sends(
        "sack-bitmap-bit-0-set",
        "SACKs set the bit of cack_psn + 1",
        &[req::SETH_BITMAP_002_B],
        &["rcv-in-order-v4"],
        |b| seth(b, |s| s.sack_bitmap & 1 == 0 && flip(&mut s.sack_bitmap, 1)),
    ),
    sends(
        "cack-stops-at-fill",
        "after a hole is filled, cack_psn stops at the filling PSN and the run received behind \
         it is left to the bitmap",
        &[req::SETH_CACK_001_B],
        &["rcv-last-packet-first", "rcv-wwi-order"],
        cack_stops_at_fill,
    ),
    sends(
        "sack-on-other-ev",
        "SACKs travel on an EV one off from their trigger's, which they reflect right",
        &[req::RCV_SACK_006_A],
        &["rcv-in-order-v6"],
        |b| on_ev(b, 1, |f| f.ext.seth.is_some()),
    ),
    sends(
        "sack-marks-skip-once",
        "SACKs carry m = SKIP_ONCE from a marking register left set, on a device that has no \
         marking policy",
        &[req::RCV_SACK_006_C],
        &["rcv-in-order-v4", "rcv-in-order-v6"],
        |b| {
            seth(b, |s| {
                s.m = openrdma_codec::EvMark(1);
                true
            })
        },
    ),
    fault(
        "acks-own-qp-only",
        "in shared retirement a packet causes the transport ACK of its own QP only: the ACKs \
         of other QPs whose messages its arrival retired are never sent",
        &[req::RCV_ACK_003_B],
        &["rcv-shared-retirement"],
        Edits { stream: Some(|_| Box::<AcksOwnQpOnly>::default()), per_input: true, ..Edits::NONE },
    ),
    fault(
        "sack-timer-restarted",
        "each write taken without a SACK at once starts the SACK timer again, though it is \
         running: while writes come less than sack_delay apart, no SACK goes out",
        &[req::RCV_SACK_004_A],
        &["rcv-sack-timer-running"],
        Edits {
            stream: Some(|m| Box::new(SackTimerRestarted::new(m))),
            per_input: true,
            ..Edits::NONE
        },
    ),
    stream(
        "acks-carry-domain-msn",
        "in shared retirement a transport ACK carries the MSN of the last message its domain \
         retired, whichever QP that message belonged to, not the last of its own QP",
        &[req::RCV_ACK_003_A, req::RCV_ACK_002_A, req::AETH_MSN_001_A],
        &["rcv-shared-retirement"],
        |_| Box::<AcksCarryDomainMsn>::default(),
    ),
    // ---- SACK headers: a SACK is held to every header rule of the frames a device sends --
    sends(
        "sack-vlan-zero",
        "SACKs carry VLAN ID 0, the port's default, in place of the link's",
        &[req::CONF_CMP_026_B],
        &["rcv-in-order-vlan"],
        |b| {
            refit(b, |f| {
                f.ext.seth.is_some() && f.vlans.first_mut().is_some_and(|v| set(&mut v.vid, 0))
            })
        },
    ),
    sends(
        "sack-pkey-zero",
        "SACKs carry P_Key 0, from a register of the SACK engine never loaded",
        &[req::BTH_PKEY_001],
        &["rcv-in-order-v4"],
        |b| refit(b, |f| f.ext.seth.is_some() && set(&mut f.bth.pkey, 0)),
    ),
    sends(
        "sack-ip-src-other",
        "SACKs carry an IP source address one off from the link's",
        &[req::CONF_CMP_026_B],
        &["rcv-in-order-v4", "rcv-in-order-v6"],
        |b| refit(b, |f| f.ext.seth.is_some() && ip_src_one_off(&mut f.ip)),
    ),
    sends(
        "sack-hop-limit-one",
        "SACKs carry an IPv4 TTL or IPv6 hop limit of 1, so the first router drops them",
        &[req::ENC_HOP_001_C],
        &["rcv-in-order-v4", "rcv-in-order-v6"],
        |b| refit(b, |f| f.ext.seth.is_some() && hop_limit_one(&mut f.ip)),
    ),
    // ---- SACK triggers ----------------------------------------------------------------------
    loses(
        "no-sack-on-fill",
        "no SACK answers a write that fills a hole",
        &[req::RCV_SACK_001_C],
        &["rcv-last-packet-first", "rcv-wwi-order"],
        |o| !frame(o, |f| f.ext.seth.is_some_and(|s| !s.pr && s.ack_psn_offset < 0)),
    ),
    fault(
        "ignores-ack-req",
        "the AckReq bit of arriving writes is not read: a write that asks for an \
         acknowledgement is only counted for coalescing",
        &[req::RCV_SACK_001_A],
        &["rcv-sack-triggers"],
        Edits {
            frame_in: Some(|b| misread_bth(b, |bth| bth.ack_req, |bth| bth.ack_req = false)),
            ..Edits::NONE
        },
    ),
    fault(
        "ignores-rtx-bit",
        "the rtx bit of arriving writes is not read: a retransmission that arrives in order \
         is only counted for coalescing",
        &[req::RCV_SACK_001_D],
        &["rcv-sack-triggers"],
        Edits {
            frame_in: Some(|b| misread_bth(b, |bth| bth.rtx, |bth| bth.rtx = false)),
            ..Edits::NONE
        },
    ),
    stream(
        "duplicate-unsacked",
        "a duplicate is answered by the transport ACK alone when its message has retired, \
         and by nothing before: the duplicate path never builds a SACK",
        &[req::RCV_DUP_001_B, req::RCV_SACK_001_E],
        &["rcv-lost-ack", "rcv-duplicate-before-retirement"],
        |_| Box::new(DuplicatesUnsacked::new(false)),
    ),
    stream(
        "duplicate-ack-first",
        "the duplicate path queues the transport ACK of a retired message ahead of the \
         duplicate's SACK",
        &[req::RCV_DUP_002],
        &["rcv-lost-ack"],
        |_| Box::new(DuplicatesUnsacked::new(true)),
    ),
    stream(
        "window-one-short",
        "the window comparator tests p - epsn >= W - 1, so the last PSN of the window is \
         NACKed PSN_OOR_WINDOW and discarded",
        &[req::RCV_WIN_001],
        &["rcv-window-edges"],
        |m| Box::new(WindowOneShort::new(m)),
    ),
    stream(
        "nak-once-per-msn",
        "the NAK engine sends no NAK with the QP and MSN of one it sent before, so a second \
         write refused by the region check before the next retirement gets no NAK",
        &[req::RCV_PLACE_002_B],
        &["rcv-placement-errors"],
        |_| Box::<NakOncePerMsn>::default(),
    ),
    fault(
        "region-end-exclusive",
        "the region check compares the end of a write's range with the region's end by >=, \
         so a write that ends exactly at the end of its region is NAKed and not placed",
        &[req::RCV_PLACE_002_A],
        &["rcv-va-top"],
        Edits { host_in: Some(region_one_short), ..Edits::NONE },
    ),
    sends(
        "sack-offset-from-epsn",
        "ack_psn_offset is computed from epsn instead of cack_psn, so it names the PSN \
         before the triggering write",
        &[req::SETH_ACKPSN_003_A],
        &["rcv-sack-coalesce", "rcv-reflect"],
        |b| {
            seth(b, |s| {
                let back = !s.pr && s.ack_psn_offset > i16::MIN;
                if back {
                    s.ack_psn_offset -= 1;
                }
                back
            })
        },
    ),
    stream(
        "no-sack-after-hole",
        "a write that arrives behind a hole, without AckReq or rtx, is only counted for \
         coalescing: its SACK waits for the timer",
        &[req::RCV_SACK_001_B],
        &["rcv-sack-triggers"],
        |m| {
            let delay = u64::try_from(m.nic.sack_delay.as_nanos()).unwrap_or(u64::MAX);
            Box::new(NoSackAfterHole { delay, ..NoSackAfterHole::default() })
        },
    ),
    // Once a variant: the count is a MUST, so a device that counts to more than the
    // configured sack_coalesce owes the SACK it does not send (receiver decision 15).
    config(
        "sack-coalesce-8",
        "coalesces SACKs over 8 packets, whatever sack_coalesce the QP is configured with",
        &[req::RCV_SACK_002],
        &["rcv-sack-coalesce"],
        |m| m.nic.sack_coalesce = 8,
    ),
    config(
        "sack-coalesce-one-late",
        "the count of writes since the last SACK is compared with sack_coalesce + 1",
        &[req::RCV_SACK_002],
        &["rcv-sack-coalesce"],
        |m| m.nic.sack_coalesce += 1,
    ),
    stream(
        "sacks-rejected-writes",
        "a write the receive checks reject is answered by a SACK as well as by its NACK",
        &[req::RCV_REJECT_001],
        &["rcv-window-edges", "rcv-check-order"],
        |_| Box::<SacksRejected>::default(),
    ),
    stream(
        "ack-keeps-count",
        "a transport ACK does not reset the count of retired messages it acknowledges, so \
         once ack_coalesce messages have retired every later retirement is acknowledged at \
         once",
        &[req::RCV_ACK_002_C],
        &["rcv-ack-coalesce"],
        |m| Box::new(AckCountKept::new(m, false, true)),
    ),
    stream(
        "nak-keeps-count",
        "a transport NAK does not reset the count of retired messages not yet acknowledged, \
         so the next transport ACK goes out before ack_coalesce more messages have retired",
        &[req::RCV_NAK_002_D],
        &["rcv-nak-resets-ack-count"],
        |m| Box::new(AckCountKept::new(m, true, false)),
    ),
    stream(
        "region-check-before-length",
        "the region check of a new write runs before its payload length checks: a write too \
         long for the PMTU whose rkey the region check refuses is NAKed, not dropped in \
         silence",
        &[req::RCV_CHECK_001],
        &["rcv-check-order"],
        |m| Box::new(RegionBeforeLength { pmtu: m.nic.pmtu as usize, regions: HashMap::new() }),
    ),
    stream(
        "duplicate-checked-further",
        "a duplicate is SACKed at once and then goes on through the receive checks, so one \
         whose rkey the region check refuses is also NAKed",
        &[req::RCV_DUP_001_A],
        &["rcv-check-order"],
        |_| Box::<DuplicateCheckedFurther>::default(),
    ),
    stream(
        "places-twice",
        "every DMA write of a payload is issued twice",
        &[req::RCV_PLACE_004],
        &["rcv-in-order-v4"],
        |_| Box::new(PlacesTwice),
    ),
];

/// A region as a region check that takes its last byte for outside sees it.
fn region_one_short(command: &mut openrdma_device::HostCommand) {
    if let openrdma_device::HostCommand::RegisterRegion(r) = command {
        r.len = r.len.saturating_sub(1);
    }
}

/// A write's BTH as the device reads it, `clear` applied where `test` holds, the ICRC made
/// right again.
pub(super) fn misread_bth(
    b: &[u8],
    test: fn(&openrdma_codec::BthRepr) -> bool,
    clear: fn(&mut openrdma_codec::BthRepr),
) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if !f.bth.opcode.is_mrc_write() || !test(&f.bth) {
        return None;
    }
    clear(&mut f.bth);
    f.icrc = None;
    f.to_bytes().ok()
}

/// A SACK whose trigger filled a hole, with `cack_psn` at the trigger: the PSNs from it to
/// the true `cack_psn` move into the bitmap, all but the first (bit 0 stays clear).
fn cack_stops_at_fill(b: &[u8]) -> Option<Vec<u8>> {
    refit(b, |f| {
        let Some(s) = f.ext.seth.as_mut().filter(|s| !s.pr && s.ack_psn_offset < 0) else {
            return false;
        };
        let back = u32::from(s.ack_psn_offset.unsigned_abs());
        if back >= 63 || s.sack_offset != 1 {
            return false;
        }
        let cack = Psn::new(s.cack_psn.value().wrapping_sub(back) & 0xFF_FFFF);
        // Bit i stood for old cack + 1 + i; it now stands at i + back. The PSNs between
        // the new cack + 1 (bit 0, not claimed) and the old cack (bit back - 1) arrived.
        let run = (1u64 << back) - 2;
        s.sack_bitmap = s.sack_bitmap << back | run;
        s.cack_psn = cack;
        s.ack_psn_offset = 0;
        f.bth.psn = cack;
        true
    })
}

/// NACK reasons a responder sends, each with the reason a faulty one sends instead.
const NACK_REASONS: &[(NackReason, &str, NackReason)] = &[
    (NackReason::NO_BITMAP, "no-bitmap", NackReason::NO_PKT_BUFFER),
    (NackReason::NO_PKT_BUFFER, "no-pkt-buffer", NackReason::NO_BITMAP),
    (NackReason::NO_RESOURCE, "no-resource", NackReason::NO_PKT_BUFFER),
    (NackReason::PSN_OOR_WINDOW, "psn-oor-window", NackReason::NO_RESOURCE),
    (NackReason::UNEXP_EVENT, "unexp-event", NackReason::NO_RESOURCE),
];

/// The NACK reasons of the table above (`NACK_REASONS`) made no entry, with the reason.
pub const SKIPPED: &[(&str, &str)] = &[];

/// The generated NACK-reason entries and the reasons left out, made once.
fn generated() -> &'static Generated {
    static GENERATED: OnceLock<Generated> = OnceLock::new();
    GENERATED.get_or_init(|| {
        // The NACK reasons each scenario expects.
        let corpus: Vec<(String, Vec<u8>)> = corpus_frames(Direction::Expect)
            .into_iter()
            .map(|(n, frames)| {
                (n, frames.iter().filter_map(|b| decode(b).ext.neth.map(|n| n.reason.0)).collect())
            })
            .collect();
        let mut out = Generated { faults: Vec::new(), left: Vec::new() };
        for (k, &(reason, label, _)) in NACK_REASONS.iter().enumerate() {
            let name = format!("nack-reason-{label}-wrong");
            if let Some((_, why)) = SKIPPED.iter().find(|(n, _)| *n == name) {
                out.left.push((name, why));
                continue;
            }
            let catch = catching(&corpus, |reasons| reasons.contains(&reason.0));
            if catch.is_empty() {
                out.left.push((name, "no scenario expects a NACK with this reason"));
                continue;
            }
            let what = format!(
                "NACKs of reason {} carry reason {} instead",
                reason.name().unwrap_or("?"),
                NACK_REASONS[k].2.name().unwrap_or("?")
            );
            let rule = openrdma_conformance::judge::fields::nack_reason_rule(reason.0);
            out.faults.push(Fault {
                name: Box::leak(name.into_boxed_str()),
                what: Box::leak(what.into_boxed_str()),
                breaks: Box::leak(Box::new([rule])),
                catch: catch.leak(),
                ..fault("", "", &[], &[], Edits { frame_out: Some(REWRITES[k]), ..Edits::NONE })
            });
        }
        out
    })
}

/// The rewrite of each row of [`NACK_REASONS`], by position.
const REWRITES: [Rewrite; 5] = [
    |b| reason_as(b, 0),
    |b| reason_as(b, 1),
    |b| reason_as(b, 2),
    |b| reason_as(b, 3),
    |b| reason_as(b, 4),
];

const _: () = assert!(REWRITES.len() == NACK_REASONS.len());

fn reason_as(b: &[u8], k: usize) -> Option<Vec<u8>> {
    let (from, _, to) = NACK_REASONS[k];
    refit(b, |f| {
        let Some(n) = f.ext.neth.as_mut().filter(|n| n.reason == from) else { return false };
        n.reason = to;
        true
    })
}

/// One entry per NACK reason the corpus expects: NACKs of that reason sent with another.
pub fn nack_reasons() -> &'static [Fault] {
    &generated().faults
}

/// The NACK reasons made no entry, by name, with the reason.
pub fn left_out() -> &'static [(String, &'static str)] {
    &generated().left
}

fn set<T>(field: &mut T, value: T) -> bool {
    *field = value;
    true
}

/// Flips the bits of `mask` in `field`.
fn flip<T: Copy + std::ops::BitXor<Output = T>>(field: &mut T, mask: T) -> bool {
    *field = *field ^ mask;
    true
}

/// A frame the device sends, edited and refitted; `None` when `edit` leaves it.
fn refit(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> bool) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if !edit(&mut f) {
        return None;
    }
    super::refit(&mut f).ok()
}

/// A SACK the device sends, its SETH edited.
pub(super) fn seth(
    b: &[u8],
    edit: impl FnOnce(&mut openrdma_codec::SethRepr) -> bool,
) -> Option<Vec<u8>> {
    refit(b, |f| f.ext.seth.as_mut().is_some_and(edit))
}

/// A transport ACK (`true`) or NAK the device sends, its AETH edited.
fn ack(
    b: &[u8],
    positive: bool,
    edit: impl FnOnce(&mut openrdma_codec::AethRepr),
) -> Option<Vec<u8>> {
    refit(b, |f| match f.ext.aeth.as_mut() {
        Some(a) if (a.syndrome & 0x60 == 0) == positive => {
            edit(a);
            true
        }
        _ => false,
    })
}

/// A transport ACK the device sends, carrying `msn`.
pub(super) fn ack_msn(b: &[u8], msn: openrdma_codec::AethMsn) -> Option<Vec<u8>> {
    ack(b, true, |a| a.msn = msn)
}

/// The IP source address with its lowest bit flipped.
fn ip_src_one_off(ip: &mut IpRepr) -> bool {
    match ip {
        IpRepr::V4(v4) => v4.src = std::net::Ipv4Addr::from(u32::from(v4.src) ^ 1),
        IpRepr::V6(v6) => v6.src = std::net::Ipv6Addr::from(u128::from(v6.src) ^ 1),
    }
    true
}

/// The IPv4 TTL or IPv6 hop limit set to 1.
fn hop_limit_one(ip: &mut IpRepr) -> bool {
    match ip {
        IpRepr::V4(v4) => v4.ttl = 1,
        IpRepr::V6(v6) => v6.hop_limit = 1,
    }
    true
}

/// A frame the device sends that `test` picks, on the EV with `bits` flipped.
fn on_ev(b: &[u8], bits: u32, test: impl FnOnce(&FrameRepr) -> bool) -> Option<Vec<u8>> {
    refit(b, |f| {
        if !test(f) {
            return false;
        }
        let ev = f.entropy();
        f.set_entropy(Ev::new(ev.value() ^ bits));
        true
    })
}

/// Whether an output is a frame that `test` picks.
fn frame(o: &Output, test: impl FnOnce(&FrameRepr) -> bool) -> bool {
    match o {
        Output::Frame { bytes, .. } => decode(bytes).to_repr().is_some_and(|f| test(&f)),
        Output::Event { .. } => false,
    }
}
