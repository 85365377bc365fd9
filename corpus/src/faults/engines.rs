//! Faults of the protocol engines, one rule each: an input misread, an output lost, a
//! parameter of the configuration ignored, a completion entry written wrong, a damaged
//! frame taken as sound. Each names the scenarios written to catch it.

use std::time::Duration;

use openrdma_codec::frame::{FrameRepr, IpRepr, decode};
use openrdma_codec::host::CompletionRepr;
use openrdma_codec::{AethKind, AethRepr, EvMark, NackReason, Opcode, TemplateId};
use openrdma_conformance::req::{self, Clause};
use openrdma_device::{
    Capability, CpuCommand, DmaWrite, HostCommand, Input, Manifest, NicEvent, NicReport, Output,
    Payload, Side, SprayPolicy, TimedInput, TimedOutput,
};

use super::{Batch, Edits, Fault, Stream, fault};

/// A fault that is one configuration edit.
const fn config(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    edit: fn(&mut Manifest),
) -> Fault {
    fault(name, what, breaks, catch, Edits { config: Some(edit), ..Edits::NONE })
}

/// A fault that is one misreading of arriving frames.
const fn misreads(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    rw: super::Rewrite,
) -> Fault {
    fault(name, what, breaks, catch, Edits { frame_in: Some(rw), ..Edits::NONE })
}

/// A fault that loses some inputs.
const fn loses_in(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    keep: fn(&Input) -> bool,
) -> Fault {
    fault(name, what, breaks, catch, Edits { keep_in: Some(keep), ..Edits::NONE })
}

/// A fault that loses some outputs.
const fn loses_out(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    keep: fn(&Output) -> bool,
) -> Fault {
    fault(name, what, breaks, catch, Edits { keep_out: Some(keep), ..Edits::NONE })
}

/// A fault in the completion entries written.
const fn entries(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    edit: fn(&mut NicEvent) -> bool,
) -> Fault {
    fault(name, what, breaks, catch, Edits { event_out: Some(edit), ..Edits::NONE })
}

/// A device that lacks the check for one damage of a frame: it takes such frames as sound
/// (RCV-FRAME-001), and acts on them.
const fn accepts(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    rw: super::Rewrite,
) -> Fault {
    misreads(name, what, breaks, catch, rw)
}

/// Every fault of the engines.
pub static FAULTS: &[Fault] = &[
    // ---- parameters ignored ----------------------------------------------------------
    config(
        "no-rto-cap",
        "the device's own CPU half does not cap the backed-off timeout at rto_max",
        &[req::REC_RTO_005],
        &["rec-device-backoff"],
        |m| m.recovery.rto_max = Duration::from_secs(1),
    ),
    config(
        "long-rto",
        "the device's own CPU half waits a quarter longer than rto before a timeout",
        &[req::REC_RTO_001, req::REC_RTO_005],
        &["rec-device-backoff"],
        |m| m.recovery.rto += m.recovery.rto / 4,
    ),
    config(
        "extra-retry",
        "the device's own CPU half retries once more than retry_limit",
        &[req::REC_RETRY_002],
        &["rec-device-backoff"],
        |m| m.recovery.retry_limit += 1,
    ),
    config(
        "short-skip-hold",
        "an EV marked SKIP is skipped for 1 us whatever skip_hold says",
        &[req::EV_SKIP_002],
        &["snd-ev-skip", "snd-ev-probe-skip"],
        |m| m.nic.skip_hold = Duration::from_micros(1),
    ),
    config(
        "sender-wwi-unlimited",
        "the sender ignores wwi_limit: more messages are outstanding than it allows",
        &[req::WWI_LIMIT_001],
        &["snd-wwi-limit"],
        |m| {
            if m.requires.contains(&Capability::Requester) {
                m.nic.wwi_limit = 1000;
            }
        },
    ),
    config(
        "responder-wwi-unlimited",
        "the responder ignores wwi_limit: it places messages beyond the window of writes in flight",
        &[req::WWI_LIMIT_002],
        &["rcv-wwi-limit", "ret-error-releases-domain"],
        |m| {
            if m.requires.contains(&Capability::Responder) {
                m.nic.wwi_limit = 1000;
            }
        },
    ),
    config(
        "timestamps-always-on",
        "timestamps is ignored: every write carries a TSETH",
        &[req::SND_TS_002_D],
        &["snd-no-timestamps"],
        |m| m.nic.timestamps = true,
    ),
    config(
        "tail-probe-ignored",
        "tail_probe is ignored: no tail is ever probed",
        &[req::SND_TAIL_001_A, req::EV_PROBE_005_A],
        &["snd-tail-probe"],
        |m| m.nic.tail_probe = None,
    ),
    config(
        "tail-probe-slow",
        "tail probes wait twice the configured tail_probe",
        &[req::SND_TAIL_001_A, req::EV_PROBE_005_A],
        &["snd-tail-probe"],
        |m| m.nic.tail_probe = m.nic.tail_probe.map(|d| 2 * d),
    ),
    config(
        "tail-probe-default-on",
        "a tail_probe left unset is read as 4 µs: tails are probed though tail probing is off",
        &[req::SND_TAIL_001_B, req::EV_PROBE_005_A],
        &["snd-timeout-loss", "snd-double-loss"],
        |m| {
            m.nic.tail_probe.get_or_insert(Duration::from_micros(4));
        },
    ),
    config(
        "nack-backoff-ignored",
        "the NACK back-off timer is not armed: a retransmission after a resource NACK leaves at once",
        &[req::SND_NACK_004],
        &["snd-rtx-once"],
        |m| m.nic.nack_backoff = Duration::ZERO,
    ),
    // ---- inputs lost ------------------------------------------------------------------
    loses_in(
        "probe-command-ignored",
        "probes commanded by the CPU half are not sent",
        &[req::EV_PROBE_005_A],
        &["snd-ev-always-skip", "snd-timeout-loss", "snd-dark-path-v6", "ret-retry-exceeded"],
        |i| !matches!(i, Input::Cpu { command: CpuCommand::Probe { .. } }),
    ),
    loses_in(
        "retransmit-command-ignored",
        "retransmissions commanded by the CPU half are not sent",
        &[req::REC_IF_010],
        &["snd-lost-sack", "snd-timeout-loss", "ret-retry-exceeded"],
        |i| !matches!(i, Input::Cpu { command: CpuCommand::Retransmit { .. } }),
    ),
    loses_in(
        "rejects-tver",
        "packets with a non-zero BTH tver are dropped",
        &[req::BTH_TVER_001],
        &["rcv-lenient"],
        |i| !matches!(i, Input::Frame { bytes, .. } if decode(bytes).bth.is_some_and(|b| b.tver != 0)),
    ),
    loses_in(
        "rejects-ipv4-options",
        "packets with IPv4 options are dropped",
        &[req::ENC_IPV4_006],
        &["rcv-lenient"],
        |i| {
            !matches!(i, Input::Frame { bytes, .. }
                if matches!(&decode(bytes).ip, Some(IpRepr::V4(v4)) if !v4.options.is_empty()))
        },
    ),
    loses_in(
        "deregister-ignored",
        "deregistering local memory leaves the templates under it enabled",
        &[req::TPL_KEY_002, req::TPL_INSTALL_004],
        &["db-deregister"],
        |i| !matches!(i, Input::Host { command: HostCommand::DeregisterLocal { .. } }),
    ),
    // ---- inputs misread ---------------------------------------------------------------
    misreads(
        "ignores-always-skip",
        "SACK marks ALWAYS_SKIP are read as NONE",
        &[req::EV_SKIP_001, req::REC_IF_005],
        &["snd-ev-always-skip", "snd-ev-probe-skip"],
        |b| on_seth(b, |s| !s.pr && s.m == EvMark::ALWAYS_SKIP && set(&mut s.m, EvMark::NONE)),
    ),
    misreads(
        "ignores-skip-once",
        "SACK marks SKIP_ONCE are read as NONE",
        &[req::EV_SKIP_001, req::REC_IF_005],
        &["snd-ev-skip"],
        |b| on_seth(b, |s| !s.pr && s.m == EvMark::SKIP_ONCE && set(&mut s.m, EvMark::NONE)),
    ),
    misreads(
        "ignores-peer-mpr",
        "the mpr of SACKs is ignored",
        &[req::SND_WIN_002],
        &["snd-window"],
        |b| on_seth(b, |s| s.mpr != 0 && set(&mut s.mpr, 0)),
    ),
    misreads(
        "mpr-zero-opens-window",
        "a SACK with mpr 0 resets the peer's window to the sender's own instead of leaving it as the last mpr set it",
        &[req::SND_WIN_002_C],
        &["snd-window"],
        // The largest mpr gives min(mpr x 128, W_own) = W_own.
        |b| on_seth(b, |s| !s.pr && s.mpr == 0 && set(&mut s.mpr, u8::MAX)),
    ),
    misreads(
        "ignores-sack-bitmap",
        "the bitmap of SACKs is ignored",
        &[req::SND_SACK_002],
        &["snd-cc-sack"],
        |b| on_seth(b, |s| s.sack_bitmap != 0 && set(&mut s.sack_bitmap, 0)),
    ),
    misreads(
        "probe-answer-as-mark",
        "the pr bit of SACKs is not read: a probe answer's mark is taken as a SACK mark",
        &[req::REC_IF_007],
        &["snd-sack-order"],
        |b| on_seth(b, |s| s.pr && set(&mut s.pr, false)),
    ),
    misreads(
        "trim-as-window",
        "NACK TRIMMED is treated like PSN_OOR_WINDOW",
        &[req::REC_IF_004],
        &["snd-ev-skip", "snd-nack-backoff"],
        |b| nack_as(b, NackReason::TRIMMED, NackReason::PSN_OOR_WINDOW),
    ),
    misreads(
        "window-as-trim",
        "NACK PSN_OOR_WINDOW is treated like TRIMMED: the EV is blamed",
        &[req::SND_NACK_004],
        &["snd-nack-backoff"],
        |b| nack_as(b, NackReason::PSN_OOR_WINDOW, NackReason::TRIMMED),
    ),
    misreads(
        "fatal-nack-ignored",
        "NACK UNEXP_EVENT is treated like NO_RESOURCE",
        &[req::SND_NACK_005],
        &["snd-nack-fatal"],
        |b| nack_as(b, NackReason::UNEXP_EVENT, NackReason::NO_RESOURCE),
    ),
    misreads(
        "other-nak-as-ack",
        "AETH NAKs other than 0x61, 0x62 and 0x63 (a PSN sequence error, say) are taken for ACKs",
        &[req::SND_ACK_006],
        &["snd-ack-nak"],
        |b| {
            misread(b, |f| {
                f.ext.aeth.as_mut().is_some_and(|a| {
                    AethKind::of(a.syndrome) != AethKind::Ack
                        && !(0x61..=0x63).contains(&(a.syndrome & 0x7F))
                        && set(&mut a.syndrome, AethRepr::ACK_UNLIMITED_CREDIT)
                })
            })
        },
    ),
    misreads(
        "nak-as-ack",
        "AETH NAKs are taken for ACKs",
        &[req::SND_ACK_003],
        &["snd-ack-nak"],
        |b| {
            misread(b, |f| {
                f.ext.aeth.as_mut().is_some_and(|a| {
                    a.syndrome & 0x60 == 0x60
                        && set(&mut a.syndrome, AethRepr::ACK_UNLIMITED_CREDIT)
                })
            })
        },
    ),
    misreads(
        "rkey-not-checked",
        "the remote key is not checked: every write lands in the registered region",
        &[req::RCV_PLACE_002_A, req::RCV_PLACE_002_B, req::RCV_NAK_002],
        &["rcv-placement-errors", "rcv-check-order"],
        |b| {
            misread(b, |f| {
                f.ext.reth.as_mut().is_some_and(|r| {
                    r.rkey != crate::RKEY && {
                        r.rkey = crate::RKEY;
                        r.va = crate::REGION + (r.va & 0xF_FFFF);
                        true
                    }
                })
            })
        },
    ),
    // ---- outputs lost -----------------------------------------------------------------
    loses_out(
        "no-probe-answer",
        "probes are not answered",
        &[req::EV_PROBE_004, req::RCV_SACK_001_F, req::PETH_RESP_001],
        &["rcv-probe"],
        |o| !frame(o, |d| d.ext.seth.is_some_and(|s| s.pr) && is(d, Opcode::MRC_SACK)),
    ),
    loses_out(
        "no-nak",
        "transport NAKs are not sent",
        &[req::RCV_PLACE_002_B, req::RCV_NAK_002],
        &["rcv-placement-errors", "rcv-check-order"],
        |o| !frame(o, |d| d.ext.aeth.is_some_and(|a| a.syndrome & 0x60 == 0x60)),
    ),
    loses_out(
        "no-armed",
        "Armed is never reported to the CPU half",
        &[req::REC_IF_003],
        &["rec-split-timeout"],
        |o| !report(o, |r| matches!(r, NicReport::Armed { .. })),
    ),
    loses_out(
        "no-progress",
        "Progress is never reported to the CPU half",
        &[req::REC_IF_002],
        &["rec-split-timeout"],
        |o| !report(o, |r| matches!(r, NicReport::Progress { .. })),
    ),
    loses_out(
        "no-ev-state",
        "EvState is never reported to the CPU half",
        &[req::REC_IF_016],
        &["rec-split-assumed-bad", "rec-split-skip-expiry"],
        |o| !report(o, |r| matches!(r, NicReport::EvState { .. })),
    ),
    loses_out(
        "response-unreported",
        "endpoint responses are not reported to the CPU half",
        &[req::REC_IF_018],
        &["rec-endpoint-request"],
        |o| !report(o, |r| matches!(r, NicReport::EndpointResponse { .. })),
    ),
    loses_out(
        "silent-doorbell-reject",
        "rejected doorbell tokens produce no completion",
        &[req::CQE_SEND_001, req::CQE_REJECT_001],
        &["db-reject", "db-bad-templates"],
        |o| {
            !matches!(o, Output::Event { event: NicEvent::Completion(c) }
                if (0x01..=0x0F).contains(&c.entry.status.0))
        },
    ),
    // ---- completion entries -----------------------------------------------------------
    entries(
        "timestamp-without-flag",
        "has_timestamp is cleared in completion entries, the timestamp left in place",
        &[req::CQE_TS_001],
        &["ret-cq-wrap", "db-reject", "rcv-in-order-v4"],
        |e| entry(e, |c| c.has_timestamp = false, |_| {}),
    ),
    entries(
        "cqe-reserved-byte",
        "reserved byte 30 of every completion entry is 1",
        &[req::CQE_RESV_001],
        &["ret-cq-wrap", "rcv-cq-receive", "db-reject"],
        |e| entry(e, |c| c.resv2 = 1, |_| {}),
    ),
    entries(
        "cqe-big-endian-length",
        "the byte_len of completion entries is written big-endian",
        &[req::CQE_LAYOUT_001],
        &["ret-cq-wrap", "rcv-cq-receive"],
        |e| {
            entry(
                e,
                |_| {},
                |b| {
                    let len = u32::from_le_bytes([b[16], b[17], b[18], b[19]]);
                    b[16..20].copy_from_slice(&len.to_be_bytes());
                },
            )
        },
    ),
    // ---- host commands ------------------------------------------------------------------
    fault(
        "truncates-template-ids",
        "template IDs are truncated to the 12 bits a token can name",
        &[req::TPL_ID_001],
        &["db-template-id"],
        Edits {
            host_in: Some(|c| {
                if let HostCommand::SetTemplate(t) = c {
                    t.template_id = TemplateId::new(t.template_id.value() & 0xFFF);
                }
            }),
            ..Edits::NONE
        },
    ),
    fault(
        "spray-fixed",
        "every QP sprays on one EV, whatever its policy says",
        &[req::SND_SPRAY_001],
        &["snd-spray-round-robin"],
        Edits { host_in: Some(|c| spray_as(c, SprayPolicy::Fixed)), ..Edits::NONE },
    ),
    fault(
        "random-stuck",
        "the random generator of a QP never advances, so a random QP always draws the first \
         EV of its usable pool",
        &[req::SND_SPRAY_002],
        &["snd-spray-random-spread"],
        Edits {
            host_in: Some(|c| {
                if matches!(c, HostCommand::CreateQp(q) if q.spray == SprayPolicy::Random) {
                    spray_as(c, SprayPolicy::Fixed);
                }
            }),
            ..Edits::NONE
        },
    ),
    fault(
        "spray-round-robin",
        "every QP sprays round robin, whatever its policy says",
        &[req::SND_SPRAY_003, req::SND_SPRAY_004, req::EV_PROBE_005_A],
        &["snd-spray-fixed", "snd-spray-skew-aware", "snd-spray-window-fit"],
        Edits { host_in: Some(|c| spray_as(c, SprayPolicy::RoundRobin)), ..Edits::NONE },
    ),
    config(
        "window-mpr-plus-one",
        "the window register is loaded with mpr + 1 units of 128 PSNs, as if the configured \
         mpr counted from 0: the sender's window is 128 PSNs too wide",
        &[req::SND_WIN_001, req::RCV_WIN_001, req::RCV_SACK_005_E],
        &["snd-window-own"],
        |m| m.nic.mpr += 1,
    ),
    // ---- damaged frames taken as sound -------------------------------------------------
    accepts(
        "accepts-bad-icrc",
        "the ICRC is not verified",
        &[req::ICRC_VERIFY_001, req::RCV_FRAME_001],
        &["wire-discard-v4", "wire-discard-v6"],
        |b| repair(b, "ICRC-VERIFY-001"),
    ),
    accepts(
        "accepts-bad-ipv4-checksum",
        "the IPv4 header checksum is not verified, and the packet is placed",
        &[req::ENC_IPV4_003],
        &["wire-discard-v4"],
        |b| repair(b, "ENC-IPV4-003"),
    ),
    accepts(
        "accepts-bad-udp-checksum",
        "a non-zero UDP checksum is not verified",
        &[req::ENC_UDP_006],
        &["wire-discard-v4", "wire-discard-v6"],
        |b| repair(b, "ENC-UDP-006"),
    ),
    accepts(
        "accepts-short-ipv4-header",
        "an IPv4 header length below 5 words is not checked",
        &[req::ENC_IPV4_005],
        &["wire-discard-v4"],
        |b| repair(b, "ENC-IPV4-005"),
    ),
    accepts(
        "accepts-bad-ipv6-version",
        "the IPv6 version field is not checked",
        &[req::ENC_IPV6_002],
        &["wire-discard-v6"],
        |b| repair(b, "ENC-IPV6-002"),
    ),
    accepts(
        "accepts-bad-ip-length",
        "the IP length is not checked against the frame",
        &[req::ENC_LEN_002],
        &["wire-discard-v4", "wire-discard-v6"],
        |b| repair(b, "ENC-LEN-002"),
    ),
    accepts(
        "accepts-bad-udp-length",
        "the UDP length is not checked against the frame",
        &[req::ENC_LEN_001],
        &["wire-discard-v4", "wire-discard-v6"],
        |b| repair(b, "ENC-LEN-001"),
    ),
    accepts(
        "accepts-udp-length-below-8",
        "a UDP length below 8 is not checked",
        &[req::ENC_UDP_002],
        &["wire-discard-v4"],
        |b| repair(b, "ENC-UDP-002"),
    ),
    accepts(
        "accepts-other-ipv4-protocol",
        "the IPv4 protocol is not checked for UDP",
        &[req::ENC_IPV4_001],
        &["wire-discard-v4"],
        |b| repair(b, "ENC-IPV4-001"),
    ),
    accepts(
        "accepts-other-ipv6-next-header",
        "the IPv6 next header is not checked for UDP",
        &[req::ENC_IPV6_001],
        &["wire-discard-v6"],
        |b| repair(b, "ENC-IPV6-001"),
    ),
    accepts(
        "accepts-pad-without-room",
        "a pad count with no payload to hold it is not checked",
        &[req::PAY_PAD_003],
        &["wire-discard-v4"],
        |b| repair(b, "PAY-PAD-003"),
    ),
    accepts(
        "accepts-unknown-opcode",
        "an undefined MRC opcode is taken for a write",
        &[req::OPC_UNKNOWN_001],
        &["wire-discard-v4", "wire-discard-v6"],
        |b| repair(b, "OPC-UNKNOWN-001"),
    ),
    accepts(
        "accepts-second-tag",
        "the parser skips any number of VLAN tags, so a frame with a second tag is taken",
        &[req::ENC_VLAN_002_C],
        &["wire-discard-v4"],
        |b| repair(b, "ENC-VLAN-002"),
    ),
    accepts(
        "ignores-ethertype",
        "the parser reads the IP version nibble instead of the ethertype, so an IPv4 packet \
         behind another ethertype is taken",
        &[req::ENC_ROCE_001],
        &["wire-discard-v4"],
        |b| repair(b, "ENC-ROCE-001"),
    ),
    // ---- writes placed before the receive checks' verdict -------------------------------
    super::stream(
        "places-oversized-writes",
        "a write with more payload than the PMTU is placed before the length check discards it",
        &[req::RCV_SEG_001],
        &["rcv-segment-errors"],
        |m| Box::new(PlacesMissized::new(m, Missized::Oversized)),
    ),
    super::stream(
        "places-short-segments",
        "a FIRST or MIDDLE write shorter than the PMTU is placed before the length check \
         discards it",
        &[req::RCV_SEG_002],
        &["rcv-segment-errors"],
        |m| Box::new(PlacesMissized::new(m, Missized::Short)),
    ),
    // ---- the two halves' interface, and what must be written ---------------------------
    loses_out(
        "no-retransmitted-report",
        "Retransmitted is never reported to the CPU half",
        &[req::REC_IF_008],
        &["snd-single-loss"],
        |o| !report(o, |r| matches!(r, NicReport::Retransmitted { .. })),
    ),
    loses_out(
        "no-qp-error-report",
        "QpError is never reported to the CPU half",
        &[req::REC_IF_009],
        &["snd-ack-nak"],
        |o| !report(o, |r| matches!(r, NicReport::QpError { .. })),
    ),
    // A report of the right kind and QP with one field wrong: the device took the frame it
    // reports on, lenient values and all, so the report's own rule is named.
    entries(
        "nack-report-psn-next",
        "Nack reports carry the NACKed PSN plus one, read from the PSN register after its increment",
        &[req::REC_IF_004],
        &["snd-lenient"],
        |e| match e {
            NicEvent::Report(NicReport::Nack { psn, .. }) => {
                *psn = psn.add(1);
                true
            }
            // Every other event goes out as it is (`false` would lose it).
            _ => true,
        },
    ),
    loses_in(
        "qp-error-command-ignored",
        "the CPU half's QpError command is ignored",
        &[req::REC_IF_013],
        &["ret-retry-exceeded"],
        |i| !matches!(i, Input::Cpu { command: CpuCommand::QpError { .. } }),
    ),
    loses_in(
        "set-ev-state-ignored",
        "the CPU half's SetEvState command is ignored",
        &[req::REC_IF_012],
        &["snd-ev-deny"],
        |i| !matches!(i, Input::Cpu { command: CpuCommand::SetEvState { .. } }),
    ),
    loses_out(
        "no-retirement-flags",
        "retirement flags are never written",
        &[req::RET_FLAG_001_A],
        &["rcv-in-order-v4"],
        |o| !matches!(o, Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Responder),
    ),
    loses_out(
        "no-receive-completions",
        "receive completions are never written",
        &[req::CQE_RECV_001],
        &["rcv-cq-receive"],
        |o| !matches!(o, Output::Event { event: NicEvent::Completion(c) } if c.side == Side::Responder),
    ),
];

fn set<T>(field: &mut T, value: T) -> bool {
    *field = value;
    true
}

/// The frame with `edit` applied, as the device reads it, its ICRC made right again; `None`
/// when `edit` declines.
fn misread(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> bool) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if !edit(&mut f) {
        return None;
    }
    f.icrc = None;
    f.to_bytes().ok()
}

fn on_seth(b: &[u8], edit: impl FnOnce(&mut openrdma_codec::SethRepr) -> bool) -> Option<Vec<u8>> {
    misread(b, |f| f.ext.seth.as_mut().is_some_and(edit))
}

fn nack_as(b: &[u8], from: NackReason, to: NackReason) -> Option<Vec<u8>> {
    misread(b, |f| f.ext.neth.as_mut().is_some_and(|n| n.reason == from && set(&mut n.reason, to)))
}

fn frame(o: &Output, test: impl FnOnce(&openrdma_codec::frame::DecodedFrame<'_>) -> bool) -> bool {
    matches!(o, Output::Frame { bytes, .. } if test(&decode(bytes)))
}

fn is(d: &openrdma_codec::frame::DecodedFrame<'_>, op: Opcode) -> bool {
    d.bth.is_some_and(|b| b.opcode == op)
}

fn report(o: &Output, test: impl FnOnce(&NicReport) -> bool) -> bool {
    matches!(o, Output::Event { event: NicEvent::Report(r) } if test(r))
}

/// A completion entry as the device writes it: `edit` on the entry, then `raw` on the
/// bytes written to its queue.
fn entry(e: &mut NicEvent, edit: fn(&mut CompletionRepr), raw: fn(&mut [u8])) -> bool {
    let NicEvent::Completion(c) = e else { return true };
    let mut entry = c.written_entry();
    edit(&mut entry);
    c.entry = entry;
    if let Some(q) = c.queue.as_mut() {
        let _ = entry.emit(&mut q.bytes);
        raw(&mut q.bytes);
    }
    true
}

fn spray_as(c: &mut HostCommand, policy: SprayPolicy) {
    if let HostCommand::CreateQp(q) = c {
        q.spray = policy;
    }
}

/// The frame as a device that lacks the check for `reason` sees it: sound, with the damage
/// that check looks for set right. `None` for a frame without that damage.
fn repair(bytes: &[u8], reason: &str) -> Option<Vec<u8>> {
    let d = decode(bytes);
    if d.discard_reason() != Some(reason) {
        return None;
    }
    let mut b = bytes.to_vec();
    match reason {
        // The outer tags dropped: the innermost is read as the only one.
        "ENC-VLAN-002" => {
            b.drain(12..12 + 4 * (d.vlans.len() - 1));
            return Some(b);
        }
        // The ethertype taken from the version nibble that follows it.
        "ENC-ROCE-001" => {
            let at = 12 + 4 * d.vlans.len();
            let t: u16 = match b.get(at + 2)? >> 4 {
                4 => 0x0800,
                6 => 0x86DD,
                _ => return None,
            };
            b[at..at + 2].copy_from_slice(&t.to_be_bytes());
            return Some(b);
        }
        _ => {}
    }
    let ip = 14 + 4 * d.vlans.len();
    let v6 = b[ip] >> 4 == 6 || reason == "ENC-IPV6-002";
    let hl = if v6 { 40 } else { usize::from(b[ip] & 0x0F).max(5) * 4 };
    let udp = ip + hl;
    let set16 = |b: &mut [u8], at: usize, v: usize| {
        b[at..at + 2].copy_from_slice(&(v as u16).to_be_bytes())
    };
    match reason {
        "ICRC-VERIFY-001" | "ENC-IPV4-003" | "ENC-UDP-006" => {}
        "ENC-IPV4-005" => b[ip] = 0x45,
        "ENC-IPV6-002" => b[ip] = 0x60 | (b[ip] & 0x0F),
        "ENC-LEN-002" if v6 => set16(&mut b, ip + 4, bytes.len() - ip - 40),
        "ENC-LEN-002" => set16(&mut b, ip + 2, bytes.len() - ip),
        "ENC-LEN-001" | "ENC-UDP-002" => set16(&mut b, udp + 4, bytes.len() - udp),
        "ENC-IPV4-001" => b[ip + 9] = 17,
        "ENC-IPV6-001" => b[ip + 6] = 17,
        "PAY-PAD-003" => b[udp + 9] &= !0x30,
        "OPC-UNKNOWN-001" => b[udp + 8] = Opcode::MRC_WRITE_ONLY.0,
        _ => return None,
    }
    if !v6 {
        b[ip + 10..ip + 12].fill(0);
        let c = openrdma_codec::wire::ipv4::compute_checksum(&b[ip..ip + hl]);
        b[ip + 10..ip + 12].copy_from_slice(&c.to_be_bytes());
    }
    b[udp + 6..udp + 8].fill(0);
    openrdma_codec::icrc::fill(&mut b[ip..]).ok()?;
    Some(b)
}

/// Which writes of the wrong size [`PlacesMissized`] places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Missized {
    /// More payload than the PMTU (RCV-SEG-001).
    Oversized,
    /// A FIRST or MIDDLE with less payload than the PMTU (RCV-SEG-002).
    Short,
}

/// A DMA engine that starts on a write before the length checks give their verdict: the
/// writes of one wrong size are placed as they arrive, and then discarded as they must be.
#[derive(Debug)]
struct PlacesMissized {
    pmtu: usize,
    which: Missized,
    held: Vec<TimedOutput>,
}

impl PlacesMissized {
    fn new(m: &Manifest, which: Missized) -> Self {
        let pmtu = usize::try_from(m.nic.pmtu).unwrap_or(usize::MAX);
        PlacesMissized { pmtu, which, held: Vec::new() }
    }

    /// The DMA write of `bytes`, when it is a write of the wrong size this engine places.
    fn placement(&self, bytes: &[u8]) -> Option<DmaWrite> {
        let d = decode(bytes);
        if d.error.is_some() || d.discard_reason().is_some() {
            return None;
        }
        let (b, meth, reth) = (d.bth?, d.ext.meth?, d.ext.reth?);
        let len = d.payload.len();
        let wrong = match self.which {
            Missized::Oversized => len > self.pmtu,
            Missized::Short => !b.opcode.is_last() && len < self.pmtu,
        };
        (b.opcode.is_mrc_write() && wrong).then(|| DmaWrite {
            qpn: b.dest_qp,
            psn: b.psn,
            msn: meth.msn,
            va: reth.va,
            payload: Payload::Bytes(d.payload.into()),
        })
    }
}

impl Stream for PlacesMissized {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Frame { bytes, .. } = &i.input {
                if let Some(w) = self.placement(bytes) {
                    let event = NicEvent::DmaWrite(w);
                    self.held.push(TimedOutput { at: i.at, output: Output::Event { event } });
                }
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs.append(&mut self.held);
        outputs.sort_by_key(|o| o.at.0);
        outputs
    }
}
