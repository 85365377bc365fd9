//! Legitimate variants: other choices the specification leaves open. Each must pass every
//! scenario whose capabilities it claims, and lists the freedoms it uses (`allows`), as a
//! fault lists the clauses it breaks.
//!
//! A freedom is a clause that leaves a device a choice it shows at its boundary: every
//! SHOULD and MAY clause of a device or its CPU half, and the clauses of [`CHOICES`], which
//! grant a range or an order inside a MUST or a comparison rule. `tests/power.rs` lists
//! the freedoms no variant uses.

use std::collections::VecDeque;
use std::sync::OnceLock;

use openrdma_codec::Opcode;
use openrdma_codec::frame::{FrameRepr, IpRepr, decode};
use openrdma_codec::host::CompletionRepr;
use openrdma_conformance::req::*;
use openrdma_device::{Capability, HostCommand, NicEvent, Output, SprayPolicy};

use super::{Caps, Class, Edits, Expect, Fault};

mod freedom;
mod streams;

pub use freedom::{CHOICES, NOT_FREE, freedoms};
use streams::*;
pub(super) use streams::{LateSome, is_sender_note};

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
pub(super) const fn variant(
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
    FAULTS.get_or_init(|| every().map(|v| v.fault).collect())
}

/// The freedoms the variant of this entry uses; `[]` for a fault.
pub fn allows(f: &Fault) -> &'static [Clause] {
    every().find(|v| v.fault.name == f.name).map_or(&[], |v| v.allows)
}

/// Every legitimate variant: those of [`VARIANTS`], then those of the fifth reading, of
/// one instant, of the seventh reading, of the reading of the judge, of the eighth reading
/// and of the ninth.
pub fn every() -> impl Iterator<Item = &'static Variant> {
    VARIANTS
        .iter()
        .chain(super::fifth_variants::VARIANTS)
        .chain(super::same_instant::VARIANTS)
        .chain(super::seventh_variants::VARIANTS)
        .chain(super::audit_eight::VARIANTS)
        .chain(super::eighth_variants::VARIANTS)
        .chain(super::ninth_variants::VARIANTS)
        .chain(super::ack_variants::VARIANTS)
        .chain(super::commanded_variants::VARIANTS)
        .chain(super::eleventh_variants::VARIANTS)
        .chain(super::twelfth_variants_ack::VARIANTS)
        .chain(super::weak_variants::VARIANTS)
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
        "dma-split-128",
        "DMA writes are cut at 128-byte address boundaries, the pieces issued in address \
         order (RCV-PLACE-003)",
        &[RCV_PLACE_003_B, CONF_CMP_034_A],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(Split { size: 128, descending: false })), ..Edits::NONE },
    ),
    variant(
        "dma-split-512",
        "DMA writes are cut at 512-byte address boundaries, the pieces issued highest address \
         first (RCV-PLACE-003)",
        &[RCV_PLACE_003_B, CONF_CMP_034_A],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(Split { size: 512, descending: true })), ..Edits::NONE },
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
        "memory-late",
        "its host bus makes every DMA write, flag and completion entry visible half of late_ns \
         later than the reference makes it, its frames and reports on time (CONF-TIME-004)",
        &[CONF_TIME_004],
        Caps::Same,
        Edits {
            stream: Some(|m| Box::new(LateSome::new(m.tolerances.late_ns / 2, is_memory))),
            ..Edits::NONE
        },
    ),
    variant(
        "reports-late",
        "its report ring to the CPU half delivers every report half of late_ns later than the \
         reference makes it, its frames and memory writes on time (CONF-TIME-004)",
        &[CONF_TIME_004],
        Caps::Same,
        Edits {
            stream: Some(|m| Box::new(LateSome::new(m.tolerances.late_ns / 2, is_report))),
            ..Edits::NONE
        },
    ),
    variant(
        "sender-flags-odd-qps-late",
        "its sender flags leave through two write queues by QP parity, one slower: the sender \
         flags of odd QPs become visible half of late_ns later, every other output on time, so \
         that the flags of two QPs may come in another order, which no rule fixes",
        &[CONF_TIME_004, CONF_CMP_060],
        Caps::Same,
        Edits {
            stream: Some(|m| Box::new(LateSome::new(m.tolerances.late_ns / 2, is_odd_sender_flag))),
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
        "ack-repeat",
        "before each SACK of a QP it has acknowledged before, repeats the QP's last transport \
         ACK on the SACK's EV: a duplicate's ACK then comes both before and after its SACK \
         (an ACK may repeat an acknowledged MSN, CONF-CMP-037)",
        &[CONF_CMP_037_A],
        Caps::Same,
        Edits { stream: Some(|_| Box::new(AckRepeat::default())), ..Edits::NONE },
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
