//! Legitimate variants: other choices the specification leaves open. Each must pass every
//! scenario whose capabilities it claims, and lists the freedoms it uses (`allows`), as a
//! fault lists the clauses it breaks.
//!
//! A freedom is a clause that leaves a device a choice it shows at its boundary: every
//! SHOULD and MAY clause of a device or its CPU half, and the clauses of [`CHOICES`], which
//! grant a range or an order inside a MUST or a comparison rule. `tests/power.rs` lists
//! the freedoms no variant uses.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::OnceLock;

use openrdma_codec::Opcode;
use openrdma_codec::frame::{FrameRepr, IpRepr, decode};
use openrdma_codec::host::CompletionRepr;
use openrdma_conformance::req::*;
use openrdma_conformance::requirements::{Level, Subject};
use openrdma_device::{
    Capability, HostCommand, Input, NicEvent, NicReport, Output, Payload, Side, SprayPolicy,
    TimedInput, TimedOutput, Timestamp,
};

use super::{Batch, Caps, Class, Edits, Expect, Fault, Stream, payload_bytes};

/// A legitimate variant: its registry entry and the freedoms it uses.
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    /// The entry `variant:NAME` runs.
    pub fault: Fault,
    /// The freedoms it uses: clauses of [`freedoms`]. A SHOULD among them is one it departs
    /// from, so that a scenario may judge it `non-strict`, naming that clause.
    pub allows: &'static [Clause],
}

/// A variant.
const fn variant(
    name: &'static str,
    what: &'static str,
    allows: &'static [Clause],
    caps: Caps,
    edits: Edits,
) -> Variant {
    Variant {
        fault: Fault {
            name,
            class: Class::Variant,
            what,
            breaks: &[],
            expect: Expect::Fails,
            catch: &[],
            caps,
            edits,
        },
        allows,
    }
}

/// The registry entries of [`VARIANTS`].
pub fn faults() -> &'static [Fault] {
    static FAULTS: OnceLock<Vec<Fault>> = OnceLock::new();
    FAULTS.get_or_init(|| VARIANTS.iter().map(|v| v.fault).collect())
}

/// The freedoms the variant of this entry uses; `[]` for a fault.
pub fn allows(f: &Fault) -> &'static [Clause] {
    VARIANTS.iter().find(|v| v.fault.name == f.name).map_or(&[], |v| v.allows)
}

/// The clauses that leave a device a choice inside a MUST or a comparison rule, each with
/// the choice it leaves.
pub const CHOICES: &[(Clause, &str)] = &[
    (ENC_HOP_001_C, "any IPv4 ttl or IPv6 hop_limit from 64 to 255"),
    (SND_TS_002_C, "the origin and the unit (1 ns or more) of the timestamp clock"),
    (CONF_CMP_036, "nothing of a timestamp is compared but that its clock runs forward"),
    (CONF_CMP_026_A, "data packets are matched per QP: the order between QPs is free"),
    (CONF_CMP_026_B, "the VLAN priority and drop-eligible bit are not compared"),
    (CONF_CMP_026_C, "the entropy value is judged only by the EV states and the policy"),
    (CONF_CMP_026_D, "the other IP and UDP fields (DSCP, identification) are the device's"),
    (CONF_CMP_027_A, "any EV of the usable pool where the device's timing decides"),
    (CONF_CMP_029, "a probe may overtake a data packet of its QP sent at the same time"),
    (CONF_CMP_046_A, "a random policy's draws are its own: judged by their spread"),
    (CONF_CMP_048_A, "a round-robin or fixed choice may act on inputs up to late_ns / 2 late"),
    (CONF_CMP_048_B, "a skew-aware choice may take an acknowledgement up to late_ns / 2 late"),
    (CONF_CMP_049_A, "new data may go before a commanded probe taken up to late_ns / 2 late"),
    (CONF_CMP_007_B, "the number of SACKs: more, earlier or repeated"),
    (CONF_CMP_037_A, "transport ACKs may repeat an acknowledged MSN"),
    (CONF_CMP_045_C, "a SACK may leave out the PSNs received in the last late_ns"),
    (CONF_CMP_034_A, "the number, size and order of the DMA writes that place the bytes"),
    (CONF_CMP_034_B, "another message's bytes may land after a message's flag"),
    (CONF_CMP_009, "the four sequences of flags and completions interleave freely"),
    (CONF_CMP_044_B, "up to one output per byte placed, besides the fixed allowance"),
    (CONF_CMP_012_B, "a device without retirement writes no flags, completions or ACKs"),
    (CONF_CMP_012_C, "a device without cpu-split is not judged on its reports"),
    (CONF_CMP_020_A, "the reports that depend on the device's paths and timing"),
    (CONF_DEV_005, "a device claims only the capabilities it has"),
    (CONF_ADP_017_B, "a completion written to a queue may come without its decoded entry"),
    (CONF_TIME_004, "each output up to late_ns / 2 later than the reference's"),
    (CONF_TIME_006, "a flag or completion earlier than the reference's"),
];

/// The SHOULD and MAY clauses of a device that leave it no choice it can show at its
/// boundary, each with the reason (wire-format chapter, decision 41).
pub const NOT_FREE: &[(Clause, &str)] = &[
    (SETH_TYPE_001_A, "a device sends a SETH only in a SACK, where RCV-SACK-005.h requires 0"),
    (SETH_PDC_001_A, "a device sends a SETH only in a SACK, where RCV-SACK-005.h requires 0"),
    (SETH_CC_001_A, "a device sends a SETH only in a SACK, where RCV-SACK-005.h requires 0"),
    (PETH_FTYPE_001_A, "a device sends a PETH only in a probe, where EV-PROBE-005.g requires 1"),
];

/// Every freedom: each leaf SHOULD or MAY clause of a device or its CPU half but those of
/// [`NOT_FREE`], and the clauses of [`CHOICES`].
pub fn freedoms() -> BTreeSet<Clause> {
    Clause::all()
        .filter(|c| {
            c.is_leaf()
                && matches!(c.level(), Level::Should | Level::May)
                && matches!(c.subject(), Subject::Device | Subject::CpuHalf)
                && !NOT_FREE.iter().any(|(n, _)| n == c)
        })
        .chain(CHOICES.iter().map(|(c, _)| *c))
        .collect()
}

/// Every legitimate variant.
pub static VARIANTS: &[Variant] = &[
    variant(
        "spray-random",
        "sprays packets over its EVs at random instead of round robin",
        &[CONF_CMP_026_C, CONF_CMP_027_A, CONF_DEV_005],
        // Random spraying is legitimate, but not the policy its QPs name: it cannot claim
        // to spray as they say (CONF-GEN-008).
        Caps::Without(&[Capability::SprayPolicies]),
        Edits { host_in: Some(spray_random), ..Edits::NONE },
    ),
    variant(
        "sack-every-packet",
        "sends a SACK for every packet it accepts",
        &[CONF_CMP_007_B],
        Caps::Same,
        Edits { config: Some(|m| m.nic.sack_coalesce = 1), ..Edits::NONE },
    ),
    variant(
        "sack-coalesce-8",
        "coalesces SACKs over 8 packets instead of 4",
        &[CONF_CMP_007_B],
        Caps::Same,
        Edits { config: Some(|m| m.nic.sack_coalesce = 8), ..Edits::NONE },
    ),
    variant(
        "sack-marking",
        "marks the EV of every SACK SKIP_ONCE by a marking policy of its own, and claims \
         sack-marking with every capability of the reference",
        &[RCV_SACK_006_B],
        Caps::Only(&[
            Capability::Responder,
            Capability::Requester,
            Capability::Doorbell,
            Capability::DoorbellBus,
            Capability::Retirement,
            Capability::SharedRetirement,
            Capability::PerQpRetirement,
            Capability::WriteImmediate,
            Capability::Ipv6,
            Capability::Ipv4,
            Capability::Paths,
            Capability::CpuSplit,
            Capability::Recovery,
            Capability::CompletionQueues,
            Capability::Endpoint,
            Capability::SprayPolicies,
            Capability::TailProbe,
            Capability::SackMarking,
        ]),
        Edits { frame_out: Some(marks_skip_once), ..Edits::NONE },
    ),
    variant(
        "receiver-block",
        "a receiver without its completion engine: claims only responder, ipv4 and ipv6, \
         and writes no flags, completions, transport ACKs or reports",
        &[CONF_CMP_012_B, CONF_DEV_005],
        Caps::Only(&[Capability::Responder, Capability::Ipv4, Capability::Ipv6]),
        Edits { keep_out: Some(receiver_block), ..Edits::NONE },
    ),
    variant(
        "token-only-doorbell",
        "a device whose harness passes doorbells only as whole tokens: claims everything but \
         doorbell-bus",
        &[CONF_DEV_005],
        Caps::Without(&[Capability::DoorbellBus]),
        Edits::NONE,
    ),
    variant(
        "late",
        "every output (frames, DMA writes, flags, completions, reports) is produced half of \
         late_ns later than the reference produces it (CONF-TIME-004)",
        &[CONF_TIME_004],
        Caps::Same,
        Edits {
            stream: Some(|m| {
                Box::new(Late { delay: m.tolerances.late_ns / 2, queue: VecDeque::new() })
            }),
            ..Edits::NONE
        },
    ),
    variant(
        "late-input",
        "acts on every SACK, NACK, transport ACK, probe answer and CPU command it receives up \
         to half of late_ns later than the reference does, each by a delay drawn from its \
         seed, in the order they arrived (CONF-TIME-004)",
        &[CONF_TIME_004, CONF_CMP_048_A, CONF_CMP_048_B, CONF_CMP_049_A],
        Caps::Same,
        Edits {
            stream: Some(|m| {
                Box::new(LateInput {
                    most: m.tolerances.late_ns / 2,
                    draws: m.nic.seed ^ 0x6c61_7465_2d69_6e70,
                    last: 0,
                    held: Vec::new(),
                })
            }),
            ..Edits::NONE
        },
    ),
    variant(
        "dma-split-64",
        "DMA writes are cut at 64-byte address boundaries, the pieces issued highest address \
         first (RCV-PLACE-003)",
        &[RCV_PLACE_003_B, CONF_CMP_034_A],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(Split { size: 64, descending: true })), ..Edits::NONE },
    ),
    variant(
        "dma-split-256",
        "DMA writes are cut at 256-byte address boundaries, the pieces issued in address \
         order (RCV-PLACE-003)",
        &[RCV_PLACE_003_B, CONF_CMP_034_A],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(Split { size: 256, descending: false })), ..Edits::NONE },
    ),
    variant(
        "dma-split-dwords",
        "DMA writes are cut into 4-byte pieces, one PCIe doubleword each, the highest address \
         first (CONF-CMP-044, RCV-PLACE-003); finer pieces would pass the judge too, but a \
         64 KiB message would then need more outputs than one adapter answer may carry",
        &[RCV_PLACE_003_B, CONF_CMP_034_A, CONF_CMP_044_B],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(Split { size: 4, descending: true })), ..Edits::NONE },
    ),
    variant(
        "dma-merge",
        "a write-combining buffer holds a DMA write up to half of late_ns and merges the \
         contiguous writes that follow it, flushing before any other output (RCV-PLACE-003)",
        &[RCV_PLACE_003_B, CONF_CMP_034_A, CONF_TIME_004],
        Caps::Same,
        Edits {
            stream: Some(|m| Box::new(Merge { hold: m.tolerances.late_ns / 2 })),
            ..Edits::NONE
        },
    ),
    variant(
        "ttl-255",
        "sends every frame with IPv4 ttl or IPv6 hop_limit 255, the top of what ENC-HOP-001 \
         allows, where the reference sends 64, the bottom",
        &[ENC_HOP_001_C],
        Caps::Same,
        Edits { frame_out: Some(ttl_255), ..Edits::NONE },
    ),
    variant(
        "udp-checksum-v4",
        "computes the UDP checksum over IPv4 too, where the reference sends 0 (ENC-UDP-003)",
        &[ENC_UDP_003_A],
        Caps::Same,
        Edits { frame_out: Some(udp_checksum_v4), ..Edits::NONE },
    ),
    variant(
        "ecn-ect1",
        "marks its MRC writes ECT(1) instead of ECT(0) (ENC-ECN-001)",
        &[ENC_ECN_001],
        Caps::Same,
        Edits { frame_out: Some(ecn_ect1), ..Edits::NONE },
    ),
    variant(
        "dscp-63",
        "sends every frame with DSCP 63 (IPv4 dscp, IPv6 traffic_class bits 7:2), a field the \
         spec leaves to the device (CONF-CMP-026.d)",
        &[CONF_CMP_026_D],
        Caps::Same,
        Edits { frame_out: Some(dscp_63), ..Edits::NONE },
    ),
    variant(
        "ip-ident",
        "gives each IPv4 packet an identification of its own, counting down from 0xFFFF by \
         PSN, with dont_frag kept (CONF-CMP-026.d)",
        &[CONF_CMP_026_D],
        Caps::Same,
        Edits { frame_out: Some(ip_ident), ..Edits::NONE },
    ),
    variant(
        "vlan-priority",
        "tags its frames with VLAN priority 7 and the drop-eligible bit set, the tag's VLAN ID \
         unchanged (the PCP and DEI are the device's choice)",
        &[CONF_CMP_026_B],
        Caps::Same,
        Edits { frame_out: Some(vlan_priority), ..Edits::NONE },
    ),
    variant(
        "timestamp-clock-offset",
        "its timestamp clock starts half the 16-bit ring away from the reference's: TSETH and \
         PETH tx_timestamp are 0x8000 ahead, and it reads the timestamps SACKs and NACKs \
         reflect on its own clock (SND-TS-002)",
        &[SND_TS_002_C, CONF_CMP_026_C, CONF_CMP_036],
        Caps::Same,
        Edits { frame_out: Some(timestamp_ahead), frame_in: Some(reflected_behind), ..Edits::NONE },
    ),
    variant(
        "timestamp-unit-1ns",
        "its timestamp clock counts nanoseconds, the shortest unit SND-TS-002 allows, so that \
         its 16-bit timestamps wrap every 65.5 us, where the reference counts 16 ns",
        &[SND_TS_002_C, CONF_CMP_026_C, CONF_CMP_036],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(TsClock::new(1))), ..Edits::NONE },
    ),
    variant(
        "timestamp-unit-1us",
        "its timestamp clock counts in units of 1024 ns (SND-TS-002), so that packets sent \
         close together carry the same timestamp",
        &[SND_TS_002_C, CONF_CMP_026_C, CONF_CMP_036],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(TsClock::new(1024))), ..Edits::NONE },
    ),
    variant(
        "cqe-no-clock",
        "a NIC without a clock: every completion entry has has_timestamp 0 and timestamp 0 \
         (CQE-TS-001.b)",
        &[CQE_TS_001_A],
        Caps::Same,
        Edits { event_out: Some(cqe_no_clock), ..Edits::NONE },
    ),
    variant(
        "cqe-clock-wraps",
        "its completion clock reads 2^32 - 2^16 at the scenario's start, so that the 32-bit \
         completion timestamps wrap early in the scenario (CQE-TS-001.a)",
        &[CQE_TS_001_A, CONF_CMP_009],
        Caps::Same,
        Edits { event_out: Some(cqe_clock_wraps), ..Edits::NONE },
    ),
    variant(
        "cqe-entry-omitted",
        "its adapter reports each completion written to a queue by its 32 bytes only, the \
         decoded entry left empty (CONF-ADP-017.b)",
        &[CONF_ADP_017_B],
        Caps::Same,
        Edits { event_out: Some(cqe_entry_omitted), ..Edits::NONE },
    ),
    variant(
        "qp-order-reversed",
        "of the frames it sends at one instant, those to different QPs leave in descending \
         destination QP order, each QP's own order kept (the order between QPs is free)",
        &[CONF_CMP_026_A, CONF_CMP_029],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(QpOrderReversed)), ..Edits::NONE },
    ),
    variant(
        "dma-runs-reversed",
        "the DMA writes it makes at one instant, with no other output between them, land in \
         the reverse order, across packets and messages (CONF-CMP-034)",
        &[RCV_PLACE_003_B, CONF_CMP_034_A],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(DmaRunsReversed)), ..Edits::NONE },
    ),
    variant(
        "notify-overtakes",
        "its flag and completion writes overtake the DMA writes of other messages made at the \
         same instant: only a message's own data is ordered before its flag (FLAG-ORDER-001)",
        &[CONF_CMP_034_B, CONF_CMP_009],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(NotifyOvertakes)), ..Edits::NONE },
    ),
    variant(
        "answers-late",
        "its SACKs, NACKs and transport ACKs leave half of late_ns later than the reference \
         sends them, every other output on time (CONF-TIME-004)",
        &[CONF_TIME_004, CONF_CMP_045_C],
        Caps::Same,
        Edits {
            stream: Some(|m| Box::new(LateSome::new(m.tolerances.late_ns / 2, is_answer))),
            ..Edits::NONE
        },
    ),
    variant(
        "frames-late",
        "every frame it sends leaves half of late_ns later than the reference sends it, its \
         DMA writes, completions and reports on time, except that a sender flag or completion \
         waits for the frames made before it (ORD-SEND-002.b, CONF-TIME-004)",
        &[CONF_TIME_004],
        Caps::Same,
        Edits {
            stream: Some(|m| {
                Box::new(LateSome::new(m.tolerances.late_ns / 2, is_frame).waiting(is_sender_note))
            }),
            ..Edits::NONE
        },
    ),
    variant(
        "events-late",
        "its DMA writes, flags, completions and reports come half of late_ns later than the \
         reference makes them, its frames on time (CONF-TIME-004)",
        &[CONF_TIME_004],
        Caps::Same,
        Edits {
            stream: Some(|m| Box::new(LateSome::new(m.tolerances.late_ns / 2, |o| !is_frame(o)))),
            ..Edits::NONE
        },
    ),
    variant(
        "answers-twice",
        "sends every SACK and every transport ACK twice, back to back (the number of SACKs is \
         the device's, CONF-CMP-007.b; an ACK may repeat an acknowledged MSN, CONF-CMP-037)",
        &[CONF_CMP_007_B, CONF_CMP_037_A],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(AnswersTwice)), ..Edits::NONE },
    ),
    variant(
        "own-seed",
        "its random number generator is seeded apart from the reference's, so that a QP of \
         the random policy draws other EVs from its pool (CONF-CMP-046)",
        &[CONF_CMP_046_A, CONF_CMP_027_A],
        Caps::Same,
        Edits { config: Some(|m| m.nic.seed ^= 0x005E_ED0F_0DD5), ..Edits::NONE },
    ),
    variant(
        "pdc-ids",
        "its NETH and PETH encoder, shared with a UET design, writes the low 16 bits of the \
         destination QP as spdcid and dpdcid of its NACKs and probes, where a sender should \
         write 0 (its SACKs keep 0, as RCV-SACK-005.h requires)",
        &[NETH_PDC_001_A, PETH_PDC_001_A],
        Caps::Same,
        Edits { frame_out: Some(pdc_ids), ..Edits::NONE },
    ),
    variant(
        "cc-type-vendor",
        "runs a congestion control of its own and says so in its NACKs: cc_type 2 and \
         cc_flags 1, where a sender should write 0 (NSCC); its SACKs keep 0, as \
         RCV-SACK-005.h requires",
        &[NETH_CC_001],
        Caps::Same,
        Edits { frame_out: Some(cc_type_vendor), ..Edits::NONE },
    ),
    variant(
        "ts-format-vendor",
        "stamps its writes in a timestamp format of its own, ftype 2 in the TSETH, where a \
         sender should write 1 (its probes keep 1, as EV-PROBE-005.g requires)",
        &[TSETH_FTYPE_001_A],
        Caps::Same,
        Edits { frame_out: Some(ts_format_vendor), ..Edits::NONE },
    ),
    variant(
        "ack-credit-count",
        "its ACK engine, taken from an RC design, sends credit code 0x0A in the AETH of its \
         transport ACKs, where a responder should send 0x1F",
        &[AETH_MRC_002_A],
        Caps::Same,
        Edits { frame_out: Some(ack_credit_count), ..Edits::NONE },
    ),
    variant(
        "rtx-echo",
        "its SACK and NACK engine copies the BTH rtx bit of the last write it received into \
         the SACKs and NACKs it sends, where a sender should write 0",
        &[BTH_RTX_002_A],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(RtxEcho { last: false })), ..Edits::NONE },
    ),
    variant(
        "udp-checksum-v6-zero",
        "its checksum offload works over IPv4 only: over IPv6 it sends UDP checksum 0, where \
         a sender should compute it (ENC-UDP-004)",
        &[ENC_UDP_004_A],
        Caps::Same,
        Edits { frame_out: Some(udp_checksum_v6_zero), ..Edits::NONE },
    ),
    variant(
        "vlan-tpid-88a8",
        "tags its frames with TPID 0x88A8 (an 802.1ad service tag), where a sender should \
         use 0x8100",
        &[ENC_VLAN_002_B],
        Caps::Same,
        Edits { frame_out: Some(vlan_tpid_88a8), ..Edits::NONE },
    ),
    variant(
        "ipv4-nop-options",
        "pads its IPv4 headers with one 4-byte word of NOP options, where a sender should \
         send none",
        &[ENC_IPV4_006_A],
        Caps::Same,
        Edits { frame_out: Some(ipv4_nop_options), ..Edits::NONE },
    ),
    variant(
        "reports-repeated",
        "its report ring delivers every Progress and Armed report twice, back to back: \
         reports that hang on its own paths and timing, which are not compared \
         (CONF-CMP-020.a)",
        &[CONF_CMP_020_A],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(ReportsTwice { all: false })), ..Edits::NONE },
    ),
    variant(
        "reports-unclaimed",
        "a device that does not claim cpu-split: its report ring delivers every report but \
         QpError twice, back to back (CONF-CMP-012.c)",
        &[CONF_CMP_012_C, CONF_DEV_005],
        Caps::Without(&[Capability::CpuSplit]),
        Edits { stream: Some(|_| Box::new(ReportsTwice { all: true })), ..Edits::NONE },
    ),
];

/// Reports delivered twice, back to back: Progress and Armed only, or, with `all`, every
/// report but QpError.
#[derive(Debug)]
struct ReportsTwice {
    all: bool,
}

impl Stream for ReportsTwice {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let again = match &o.output {
                Output::Event { event: NicEvent::Report(r) } => match r {
                    NicReport::Progress { .. } | NicReport::Armed { .. } => true,
                    NicReport::QpError { .. } => false,
                    _ => self.all,
                },
                _ => false,
            };
            if again {
                out.push(o.clone());
            }
            out.push(o);
        }
        out
    }
}

fn pdc_ids(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| {
        let id = (f.bth.dest_qp.value() & 0xFFFF) as u16;
        let mut edited = false;
        if let Some(n) = f.ext.neth.as_mut() {
            (n.spdcid, n.dpdcid) = (id, id);
            edited = true;
        }
        if let Some(p) = f.ext.peth.as_mut() {
            (p.spdcid, p.dpdcid) = (id, id);
            edited = true;
        }
        edited
    })
}

fn cc_type_vendor(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| {
        let Some(n) = f.ext.neth.as_mut() else { return false };
        (n.cc_type, n.cc_flags) = (2, 1);
        true
    })
}

fn ts_format_vendor(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| {
        let Some(t) = f.ext.tseth.as_mut() else { return false };
        t.ftype = 2;
        true
    })
}

fn ack_credit_count(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| {
        let Some(a) = f.ext.aeth.as_mut() else { return false };
        if a.syndrome != openrdma_codec::wire::AethRepr::ACK_UNLIMITED_CREDIT {
            return false;
        }
        a.syndrome = 0x0A;
        true
    })
}

/// The rtx bit of the last write received, copied into every SACK and NACK sent.
#[derive(Debug)]
struct RtxEcho {
    last: bool,
}

impl Stream for RtxEcho {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Frame { bytes, .. } = &i.input {
                if let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) {
                    self.last = b.rtx;
                }
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        if !self.last {
            return outputs;
        }
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let edited = edit_frame(bytes, |f| {
                let answer = matches!(f.bth.opcode, Opcode::MRC_SACK | Opcode::MRC_NACK);
                f.bth.rtx |= answer;
                answer
            });
            if let Some(b) = edited {
                *bytes = b;
            }
        }
        outputs
    }
}

fn udp_checksum_v6_zero(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if !matches!(f.ip, IpRepr::V6(_)) || f.udp.checksum == 0 {
        return None;
    }
    // The ICRC masks the UDP checksum: only the checksum changes.
    f.udp.checksum = 0;
    f.to_bytes().ok()
}

fn vlan_tpid_88a8(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| {
        if f.vlans.is_empty() {
            return false;
        }
        f.eth.ethertype = openrdma_codec::wire::EtherType::QINQ;
        true
    })
}

fn ipv4_nop_options(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| match &mut f.ip {
        IpRepr::V4(v4) if v4.options.is_empty() => {
            v4.options = vec![1; 4];
            v4.ihl = 6;
            true
        }
        _ => false,
    })
}

fn spray_random(command: &mut HostCommand) {
    if let HostCommand::CreateQp(q) = command {
        q.spray = SprayPolicy::Random;
    }
}

/// DMA writes and non-ACK frames only.
fn receiver_block(o: &Output) -> bool {
    match o {
        Output::Event { event } => matches!(event, NicEvent::DmaWrite(_)),
        Output::Frame { bytes, .. } => {
            decode(bytes).bth.is_none_or(|b| b.opcode != Opcode::MRC_ACKNOWLEDGE)
        }
    }
}

/// Each output `delay` later, in order; what is due after the batch's `until` waits for a
/// later batch.
#[derive(Debug)]
struct Late {
    delay: u64,
    queue: VecDeque<TimedOutput>,
}

impl Stream for Late {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let d = self.delay;
        self.queue
            .extend(outputs.into_iter().map(|o| TimedOutput { at: Timestamp(o.at.0 + d), ..o }));
        let n = self.queue.iter().take_while(|o| o.at <= batch.until).count();
        self.queue.drain(..n).collect()
    }
}

/// The inputs that change a sender's state (SACKs, probe answers among them, NACKs,
/// transport ACKs and NAKs, CPU commands) taken up to `most` ns after they arrive, each by
/// its own delay, in arrival order; the other inputs at once. What is due after a batch's
/// end waits for a later batch.
#[derive(Debug)]
struct LateInput {
    most: u64,
    /// The state of the delay draws (splitmix64).
    draws: u64,
    /// The time the last delayed input was taken at: none is taken before it.
    last: u64,
    held: Vec<TimedInput>,
}

impl LateInput {
    /// The next delay, in `0..=most`.
    fn delay(&mut self) -> u64 {
        self.draws = self.draws.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.draws;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        z % (self.most + 1)
    }
}

/// Whether an input changes what a sender does: a CPU command, or a frame that
/// acknowledges (SETH, NETH or AETH).
fn moves_sender(i: &Input) -> bool {
    match i {
        Input::Cpu { .. } => true,
        Input::Frame { bytes, .. } => {
            let d = decode(bytes);
            d.ext.seth.is_some() || d.ext.neth.is_some() || d.ext.aeth.is_some()
        }
        Input::Host { .. } => false,
    }
}

impl Stream for LateInput {
    fn inputs_until(&mut self, inputs: Vec<TimedInput>, until: Timestamp) -> Vec<TimedInput> {
        let mut now = Vec::with_capacity(inputs.len());
        for i in inputs {
            if moves_sender(&i.input) {
                let at = (i.at.0 + self.delay()).max(self.last);
                self.last = at;
                self.held.push(TimedInput { at: Timestamp(at), ..i });
            } else {
                now.push(i);
            }
        }
        let due = self.held.iter().take_while(|i| i.at <= until).count();
        now.extend(self.held.drain(..due));
        // Stable: at equal times the inputs keep the order they were given in.
        now.sort_by_key(|i| i.at);
        now
    }
}

/// DMA writes cut at `size`-byte address boundaries, the pieces in descending address
/// order when `descending`.
#[derive(Debug)]
struct Split {
    size: u64,
    descending: bool,
}

impl Stream for Split {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let size = self.size;
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let Output::Event { event: NicEvent::DmaWrite(w) } = &o.output else {
                out.push(o);
                continue;
            };
            let bytes = payload_bytes(&w.payload);
            let mut pieces = Vec::new();
            let mut pos = 0usize;
            while pos < bytes.len() {
                let va = w.va + pos as u64;
                let room = (size - va % size) as usize;
                let end = bytes.len().min(pos + room);
                let mut piece = w.clone();
                piece.va = va;
                piece.payload = Payload::Bytes(bytes[pos..end].into());
                pieces.push(TimedOutput {
                    at: o.at,
                    output: Output::Event { event: NicEvent::DmaWrite(piece) },
                });
                pos = end;
            }
            if pieces.len() <= 1 {
                out.push(o);
                continue;
            }
            if self.descending {
                pieces.reverse();
            }
            out.extend(pieces);
        }
        out
    }
}

/// A write-combining buffer: a DMA write is held up to `hold` ns and takes in the
/// contiguous DMA writes that follow it; any other output, a write that does not continue
/// it, or the end of the batch flushes it. A merged write is visible when its last part is.
#[derive(Debug)]
struct Merge {
    hold: u64,
}

impl Stream for Merge {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        let mut held: Option<(u64, TimedOutput, Vec<u8>)> = None;
        let flush = |held: &mut Option<(u64, TimedOutput, Vec<u8>)>, out: &mut Vec<TimedOutput>| {
            if let Some((_, mut o, bytes)) = held.take() {
                if let Output::Event { event: NicEvent::DmaWrite(w) } = &mut o.output {
                    w.payload = Payload::Bytes(bytes.into());
                }
                out.push(o);
            }
        };
        for o in outputs {
            let Output::Event { event: NicEvent::DmaWrite(w) } = &o.output else {
                flush(&mut held, &mut out);
                out.push(o);
                continue;
            };
            if let Some((deadline, h, bytes)) = held.as_mut() {
                let continues = matches!(&h.output, Output::Event { event: NicEvent::DmaWrite(p) }
                    if p.va + bytes.len() as u64 == w.va);
                if continues && o.at.0 <= *deadline {
                    bytes.extend(payload_bytes(&w.payload));
                    h.at = o.at;
                    continue;
                }
            }
            flush(&mut held, &mut out);
            let bytes = payload_bytes(&w.payload);
            held = Some((o.at.0 + self.hold, o, bytes));
        }
        flush(&mut held, &mut out);
        out
    }
}

/// A SACK with `m` SKIP_ONCE, made consistent again.
fn marks_skip_once(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    f.ext.seth.as_mut()?.m = openrdma_codec::EvMark(1);
    super::refit(&mut f).ok()
}

/// A frame the device sends, edited and made consistent again; `None` when `edit` leaves it.
fn edit_frame(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> bool) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if !edit(&mut f) {
        return None;
    }
    let v4_sum = matches!(f.ip, IpRepr::V4(_)) && f.udp.checksum != 0;
    let mut bytes = super::refit(&mut f).ok()?;
    if v4_sum {
        // `refit` sends no checksum over IPv4: keep the one the frame had.
        let mut f = decode(&bytes).to_repr()?;
        f.fill_udp_checksum().ok()?;
        f.icrc = None;
        bytes = f.to_bytes().ok()?;
    }
    Some(bytes)
}

fn ttl_255(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| {
        match &mut f.ip {
            IpRepr::V4(v4) => v4.ttl = 255,
            IpRepr::V6(v6) => v6.hop_limit = 255,
        }
        true
    })
}

fn udp_checksum_v4(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if !matches!(f.ip, IpRepr::V4(_)) {
        return None;
    }
    super::refit(&mut f).ok()?;
    f.fill_udp_checksum().ok()?;
    f.icrc = None;
    f.to_bytes().ok()
}

fn ecn_ect1(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| match &mut f.ip {
        IpRepr::V4(v4) if v4.ecn == 0b10 => {
            v4.ecn = 0b01;
            true
        }
        IpRepr::V6(v6) if v6.traffic_class & 0b11 == 0b10 => {
            v6.traffic_class = v6.traffic_class & !0b11 | 0b01;
            true
        }
        _ => false,
    })
}

fn dscp_63(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| {
        match &mut f.ip {
            IpRepr::V4(v4) => v4.dscp = 63,
            IpRepr::V6(v6) => v6.traffic_class |= 0b1111_1100,
        }
        true
    })
}

fn ip_ident(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| {
        let psn = f.bth.psn.value();
        match &mut f.ip {
            IpRepr::V4(v4) => {
                v4.ident = 0xFFFF - (psn & 0xFFFF) as u16;
                true
            }
            IpRepr::V6(_) => false,
        }
    })
}

fn vlan_priority(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| {
        for v in &mut f.vlans {
            v.pcp = 7;
            v.dei = true;
        }
        !f.vlans.is_empty()
    })
}

/// How far the variant's timestamp clock is ahead of the reference's.
const CLOCK_AHEAD: u16 = 0x8000;

/// The timestamps the device reads from its clock, `CLOCK_AHEAD` ahead.
fn timestamp_ahead(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| {
        let mut edited = false;
        if let Some(t) = f.ext.tseth.as_mut() {
            t.tx_timestamp = t.tx_timestamp.wrapping_add(CLOCK_AHEAD);
            edited = true;
        }
        if let Some(p) = f.ext.peth.as_mut() {
            p.tx_timestamp = p.tx_timestamp.wrapping_add(CLOCK_AHEAD);
            edited = true;
        }
        edited
    })
}

/// The timestamps SACKs and NACKs reflect, read back on the reference's clock, so that
/// the inner device computes what it would have.
fn reflected_behind(b: &[u8]) -> Option<Vec<u8>> {
    edit_frame(b, |f| {
        let mut edited = false;
        if let Some(c) = f.ext.cc_state.as_mut() {
            c.tx_timestamp = c.tx_timestamp.wrapping_sub(CLOCK_AHEAD);
            edited = true;
        }
        if let Some(n) = f.ext.neth.as_mut() {
            n.tx_timestamp = n.tx_timestamp.wrapping_sub(CLOCK_AHEAD);
            edited = true;
        }
        edited
    })
}

/// A completion entry rewritten by `edit`, in `entry` and in the bytes written.
fn edit_cqe(e: &mut NicEvent, edit: impl Fn(&mut CompletionRepr)) -> bool {
    if let NicEvent::Completion(c) = e {
        edit(&mut c.entry);
        if let Some(q) = c.queue.as_mut() {
            let mut entry = q.entry();
            edit(&mut entry);
            q.bytes = entry.to_bytes();
        }
    }
    true
}

fn cqe_no_clock(e: &mut NicEvent) -> bool {
    edit_cqe(e, |c| {
        c.has_timestamp = false;
        c.timestamp = 0;
    })
}

fn cqe_clock_wraps(e: &mut NicEvent) -> bool {
    edit_cqe(e, |c| {
        if c.has_timestamp {
            c.timestamp = c.timestamp.wrapping_add(0xFFFF_0000);
        }
    })
}

fn cqe_entry_omitted(e: &mut NicEvent) -> bool {
    if let NicEvent::Completion(c) = e {
        if c.queue.is_some() {
            c.entry = CompletionRepr::default();
        }
    }
    true
}

/// The destination QP of a frame, if it has a BTH.
fn dest_qp(o: &TimedOutput) -> Option<u32> {
    match &o.output {
        Output::Frame { bytes, .. } => decode(bytes).bth.map(|b| b.dest_qp.value()),
        Output::Event { .. } => None,
    }
}

/// Runs of frames at one instant, with no event between them, sorted by descending
/// destination QP; a stable sort keeps each QP's order.
#[derive(Debug)]
struct QpOrderReversed;

impl Stream for QpOrderReversed {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out: Vec<TimedOutput> = Vec::with_capacity(outputs.len());
        let mut run: Vec<(u32, TimedOutput)> = Vec::new();
        let flush = |run: &mut Vec<(u32, TimedOutput)>, out: &mut Vec<TimedOutput>| {
            run.sort_by_key(|r| std::cmp::Reverse(r.0));
            out.extend(run.drain(..).map(|(_, o)| o));
        };
        for o in outputs {
            match dest_qp(&o) {
                Some(qp) => {
                    if run.last().is_some_and(|(_, l)| l.at != o.at) {
                        flush(&mut run, &mut out);
                    }
                    run.push((qp, o));
                }
                None => {
                    flush(&mut run, &mut out);
                    out.push(o);
                }
            }
        }
        flush(&mut run, &mut out);
        out
    }
}

/// Runs of DMA writes at one instant, with no other output between them, reversed.
#[derive(Debug)]
struct DmaRunsReversed;

impl Stream for DmaRunsReversed {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out: Vec<TimedOutput> = Vec::with_capacity(outputs.len());
        let mut run: Vec<TimedOutput> = Vec::new();
        let flush = |run: &mut Vec<TimedOutput>, out: &mut Vec<TimedOutput>| {
            out.extend(run.drain(..).rev());
        };
        for o in outputs {
            if matches!(o.output, Output::Event { event: NicEvent::DmaWrite(_) }) {
                if run.last().is_some_and(|l| l.at != o.at) {
                    flush(&mut run, &mut out);
                }
                run.push(o);
            } else {
                flush(&mut run, &mut out);
                out.push(o);
            }
        }
        flush(&mut run, &mut out);
        out
    }
}

/// Flags and completions moved before the DMA writes just before them at the same instant
/// that belong to other messages.
#[derive(Debug)]
struct NotifyOvertakes;

impl Stream for NotifyOvertakes {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out: Vec<TimedOutput> = Vec::with_capacity(outputs.len());
        for o in outputs {
            let own = match &o.output {
                Output::Event { event: NicEvent::FlagWrite(f) } => Some((f.side, f.qpn, f.msn)),
                Output::Event { event: NicEvent::Completion(c) } => {
                    let e = c.written_entry();
                    Some((c.side, e.qpn, e.msn))
                }
                _ => None,
            };
            let Some((side, qpn, msn)) = own else {
                out.push(o);
                continue;
            };
            let mut at = out.len();
            while at > 0 {
                let prev = &out[at - 1];
                let other = match &prev.output {
                    Output::Event { event: NicEvent::DmaWrite(w) } => {
                        side != Side::Responder || w.qpn != qpn || w.msn != msn
                    }
                    _ => false,
                };
                if !other || prev.at != o.at {
                    break;
                }
                at -= 1;
            }
            out.insert(at, o);
        }
        out
    }
}

fn is_frame(o: &Output) -> bool {
    matches!(o, Output::Frame { .. })
}

/// A sender flag or completion: every retransmission of its message is sent before it
/// (ORD-SEND-002.b).
fn is_sender_note(o: &Output) -> bool {
    match o {
        Output::Event { event: NicEvent::FlagWrite(f) } => f.side == Side::Requester,
        Output::Event { event: NicEvent::Completion(c) } => c.side == Side::Requester,
        _ => false,
    }
}

/// A SACK, a NACK or a transport ACK or NAK.
fn is_answer(o: &Output) -> bool {
    let Output::Frame { bytes, .. } = o else { return false };
    decode(bytes).bth.is_some_and(|b| {
        matches!(b.opcode, Opcode::MRC_SACK | Opcode::MRC_NACK | Opcode::MRC_ACKNOWLEDGE)
    })
}

/// The outputs `pick` chooses `delay` later, the others on time, except that those `waits`
/// chooses come no sooner than the delayed outputs made before them; each kind keeps its
/// order; what is due after the batch's `until` waits for a later batch.
#[derive(Debug)]
struct LateSome {
    delay: u64,
    pick: fn(&Output) -> bool,
    waits: fn(&Output) -> bool,
    /// The latest time of a delayed output given to the queue.
    last: u64,
    queue: Vec<TimedOutput>,
}

impl LateSome {
    fn new(delay: u64, pick: fn(&Output) -> bool) -> LateSome {
        LateSome { delay, pick, waits: |_| false, last: 0, queue: Vec::new() }
    }

    fn waiting(self, waits: fn(&Output) -> bool) -> LateSome {
        LateSome { waits, ..self }
    }
}

impl Stream for LateSome {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for o in outputs {
            let at = if (self.pick)(&o.output) {
                self.last = self.last.max(o.at.0 + self.delay);
                o.at.0 + self.delay
            } else if (self.waits)(&o.output) {
                o.at.0.max(self.last)
            } else {
                o.at.0
            };
            self.queue.push(TimedOutput { at: Timestamp(at), ..o });
        }
        // Stable: outputs due at one time keep the order in which they were made.
        self.queue.sort_by_key(|o| o.at);
        let n = self.queue.iter().take_while(|o| o.at <= batch.until).count();
        self.queue.drain(..n).collect()
    }
}

/// Every SACK and transport ACK sent twice, back to back.
#[derive(Debug)]
struct AnswersTwice;

impl Stream for AnswersTwice {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let again = match &o.output {
                Output::Frame { bytes, .. } => decode(bytes).bth.is_some_and(|b| {
                    matches!(b.opcode, Opcode::MRC_SACK | Opcode::MRC_ACKNOWLEDGE)
                }),
                Output::Event { .. } => false,
            };
            if again {
                out.push(o.clone());
            }
            out.push(o);
        }
        out
    }
}

/// A timestamp clock of another unit: the TSETH and PETH `tx_timestamp` the device sends
/// read `at / unit` at the time of sending; a timestamp a SACK or NACK reflects is read
/// back to the one the inner device gave the frame that last carried it.
#[derive(Debug)]
struct TsClock {
    unit: u64,
    sent: HashMap<u16, u16>,
}

impl TsClock {
    fn new(unit: u64) -> TsClock {
        TsClock { unit, sent: HashMap::new() }
    }
}

impl Stream for TsClock {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        let sent = &self.sent;
        let back = |t: &mut u16| {
            if let Some(&inner) = sent.get(t) {
                *t = inner;
            }
        };
        inputs
            .into_iter()
            .map(|mut i| {
                if let Input::Frame { bytes, .. } = &mut i.input {
                    let edited = edit_frame(bytes, |f| {
                        let mut edited = false;
                        if let Some(c) = f.ext.cc_state.as_mut() {
                            back(&mut c.tx_timestamp);
                            edited = true;
                        }
                        if let Some(n) = f.ext.neth.as_mut() {
                            back(&mut n.tx_timestamp);
                            edited = true;
                        }
                        edited
                    });
                    if let Some(b) = edited {
                        *bytes = b;
                    }
                }
                i
            })
            .collect()
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let ours = (o.at.0 / self.unit) as u16;
            let sent = &mut self.sent;
            let edited = edit_frame(bytes, |f| {
                let mut edited = false;
                for t in [
                    f.ext.tseth.as_mut().map(|t| &mut t.tx_timestamp),
                    f.ext.peth.as_mut().map(|p| &mut p.tx_timestamp),
                ]
                .into_iter()
                .flatten()
                {
                    sent.insert(ours, *t);
                    *t = ours;
                    edited = true;
                }
                edited
            });
            if let Some(b) = edited {
                *bytes = b;
            }
        }
        outputs
    }
}
