//! The scenario builders: one function per scenario, each recording it from the reference
//! model with a [`Recorder`] (`spec/conformance.md` section 4), and the shared pieces they
//! are made of — the device's and the peer's QPs, regions, packets.

use std::collections::BTreeSet;

use openrdma_codec::frame::{FrameRepr, IpRepr, decode};
use openrdma_codec::host::{DoorbellToken, Template, WorkRequest, WrOpcode};
use openrdma_codec::{
    AethMsn, AethRepr, BthRepr, CcStateRepr, EtherType, EvMark as WireMark, ImmDtRepr, MethRepr,
    NackReason, NethRepr, Opcode, PethRepr, Psn, Qpn, RethRepr, SethRepr, TsethRepr, VlanRepr,
};
use openrdma_codec::{Ev, Lkey, Msn, Rkey, Rqmsn, TemplateId};
use openrdma_device::DomainId;
use openrdma_device::{
    Body, Capability, CongestionControl, CpuCommand, CpuHalf, EvState, HostCommand, Link, Manifest,
    ManifestVersion, NicEvent, NicReport, NicSettings, Payload, QpConfig, Region, RetirementMode,
    Scenario, SprayPolicy, memory,
};
use openrdma_sm::{Outer, Packet, WritePacket};

use openrdma_sm::boundary::port_of;

use crate::record::{Path, Recorder};

mod recovery;

mod doorbell_bus;
mod order;
mod templates;

/// The device's QPs in the corpus.
pub const DUT_QP: u32 = 0x11;
/// The peer's QPs.
pub const PEER_QP: u32 = 0x21;
/// The remote key of the device's region.
pub const RKEY: Rkey = Rkey::new(0x1234);
/// The device's region for remote writes.
pub const REGION: u64 = 0x1000_0000;
/// Its length.
pub const REGION_LEN: u64 = 0x100_0000;
/// The PMTU of the corpus.
pub const PMTU: u32 = 1024;

/// A builder: its name, and the function that records it.
pub type Builder = (&'static str, fn() -> Scenario);

mod cq;
mod endpoint;
mod host_edges;
mod inference;
mod interleave;
mod keys;
mod lenient;
mod msn_offsets;
mod reflect;
mod spray;
mod start;
mod widths;
mod wire;

mod basic;
mod blind;
mod crafted;
mod doorbells;
mod exercise;
mod exercise_eight;
mod exercise_eleven;
mod exercise_nine;
mod exercise_ten;
mod exercise_twelve;
mod paired;
mod requester;
mod responder;
mod shared_tenth_ev;

use self::basic::*;
use self::crafted::*;
use self::doorbells::*;
use self::paired::*;
use self::requester::*;
use self::responder::*;

/// Every scenario of the corpus, in a stable order.
pub fn all() -> Vec<Builder> {
    let mut all: Vec<Builder> = vec![
        ("rcv-in-order-v4", rcv_in_order_v4),
        ("rcv-in-order-v6", rcv_in_order_v6),
        ("rcv-last-packet-first", rcv_last_packet_first),
        ("rcv-sack-timer", rcv_sack_timer),
        ("rcv-sack-timer-running", rcv_sack_timer_running),
        ("rcv-ack-coalesce", rcv_ack_coalesce),
        ("rcv-nak-resets-ack-count", rcv_nak_resets_ack_count),
        ("rcv-ack-timer-alone", rcv_ack_timer_alone),
        ("rcv-psn-wrap", rcv_psn_wrap),
        ("rcv-psn-wrap-in-message", rcv_psn_wrap_in_message),
        ("rcv-far-duplicate", rcv_far_duplicate),
        ("rcv-window-edges", rcv_window_edges),
        ("rcv-window-edges-high-v6", rcv_window_edges_high_v6),
        ("rcv-lost-ack", rcv_lost_ack),
        ("rcv-shared-retirement", || {
            rcv_retirement("rcv-shared-retirement", RetirementMode::Shared)
        }),
        ("rcv-per-qp-retirement", || {
            rcv_retirement("rcv-per-qp-retirement", RetirementMode::PerQp)
        }),
        ("rcv-duplicate-before-retirement", rcv_duplicate_before_retirement),
        ("rcv-wwi-order", rcv_wwi_order),
        ("rcv-wwi-limit", rcv_wwi_limit),
        ("rcv-placement-errors", rcv_placement_errors),
        ("rcv-segment-errors", rcv_segment_errors),
        ("rcv-msn-position", rcv_msn_position),
        ("rcv-sack-coalesce", rcv_sack_coalesce),
        ("rcv-probe-answer-count", rcv_probe_answer_count),
        ("rcv-sack-triggers", rcv_sack_triggers),
        ("rcv-sack-bitmap-high", rcv_sack_bitmap_high),
        ("rcv-ooo-count-high", rcv_ooo_count_high),
        ("rcv-hole-duplicates", rcv_hole_duplicates),
        ("rcv-probe", rcv_probe),
        ("rcv-in-order-vlan", rcv_in_order_vlan),
        ("rcv-check-order", rcv_check_order),
        ("ret-error-releases-domain", ret_error_releases_domain),
        ("ret-error-removes-entries", ret_error_removes_entries),
        ("rcv-lenient", rcv_lenient),
        ("rcv-lenient-v6", rcv_lenient_v6),
        ("rcv-flag-slots", rcv_flag_slots),
        ("snd-segmentation", snd_segmentation),
        ("snd-ev-always-skip", || snd_ev_probe("snd-ev-always-skip", WireMark::NONE)),
        ("snd-ev-probe-skip", || snd_ev_probe("snd-ev-probe-skip", WireMark::SKIP_ONCE)),
        ("snd-ev-skip", snd_ev_skip),
        ("snd-ev-skip-queued", snd_ev_skip_queued),
        ("snd-nack-backoff", snd_nack_backoff),
        ("snd-rtx-imm", snd_rtx_imm),
        ("snd-nack-resource", snd_nack_resource),
        ("snd-ev-set-state", snd_ev_set_state),
        ("snd-nack-fatal", snd_nack_fatal),
        ("snd-window", snd_window),
        ("snd-window-own", snd_window_own),
        ("snd-window-initial", snd_window_initial),
        ("snd-cc-sack", snd_cc_sack),
        ("snd-ev-deny", snd_ev_deny),
        ("snd-ack-nak", snd_ack_nak),
        ("snd-shared-domain", snd_shared_domain),
        ("snd-wwi-limit", snd_wwi_limit),
        ("snd-lost-sack", snd_lost_sack),
        ("snd-lost-ack", snd_lost_ack),
        ("snd-timeout-loss", snd_timeout_loss),
        ("snd-dark-path-v6", snd_dark_path),
        ("ret-retry-exceeded", ret_retry_exceeded),
        ("db-accept", db_accept),
        ("db-reject", db_reject),
        ("db-reject-versions", db_reject_versions),
        ("db-bad-templates", db_bad_templates),
        ("snd-single-loss", || snd_loss("snd-single-loss", &[3])),
        ("snd-double-loss", || snd_loss("snd-double-loss", &[3, 4])),
        ("snd-triple-loss", || snd_loss("snd-triple-loss", &[2, 6, 7])),
    ];
    all.extend(recovery::builders());
    all.extend(cq::builders());
    all.extend(keys::builders());
    all.extend(order::builders());
    all.extend(templates::builders());
    all.extend(doorbell_bus::builders());
    all.extend(wire::builders());
    all.extend(reflect::builders());
    all.extend(lenient::builders());
    all.extend(endpoint::builders());
    all.extend(spray::builders());
    all.extend(inference::builders());
    all.extend(widths::builders());
    all.extend(msn_offsets::builders());
    all.extend(exercise::builders());
    all.extend(host_edges::builders());
    all.extend(blind::builders());
    all.extend(exercise_eight::builders());
    all.extend(exercise_nine::builders());
    all.extend(exercise_ten::builders());
    all.extend(exercise_eleven::builders());
    all.extend(exercise_twelve::builders());
    all.extend(interleave::builders());
    all.extend(shared_tenth_ev::builders());
    all.extend(start::builders());
    all
}

fn manifest(name: &str, description: &str, reqs: &[&str], caps: &[Capability]) -> Manifest {
    Manifest {
        version: ManifestVersion::V1,
        name: name.into(),
        description: description.into(),
        requirements: reqs.iter().map(|s| s.to_string()).collect(),
        requires: caps.iter().copied().collect::<BTreeSet<_>>(),
        nic: NicSettings { pmtu: PMTU, mpr: 1, ..NicSettings::default() },
        cpu: Default::default(),
        recovery: Default::default(),
        ports: 4,
        link: Link::default(),
        tolerances: Default::default(),
        start: Default::default(),
    }
}

/// The QP of the device (`me`) facing `peer`.
pub fn qp(me: u32, peer: u32, psn: u32) -> QpConfig {
    QpConfig {
        qpn: Qpn::new(me),
        peer_qpn: Qpn::new(peer),
        initial_psn: Psn::new(psn),
        peer_initial_psn: Psn::new(psn),
        domain: DomainId::new(0),
        evs: (0..8u32).map(|i| Ev::new((0xC000 + (me << 4) + i) << 16 | (i * 0x111))).collect(),
        backup_evs: vec![],
        spray: Default::default(),
        cc: Default::default(),
        recv_flag_base: 0x2000_0000 + u64::from(me) * 0x1_0000,
        recv_flag_slots: 256,
        send_flag_base: 0x3000_0000 + u64::from(me) * 0x1_0000,
        send_flag_slots: 256,
        send_cq: None,
        recv_cq: None,
    }
}

fn region() -> Region {
    Region { rkey: RKEY, base: REGION, len: REGION_LEN, remote_write: true }
}

/// Registers the local memory of the device's templates ([`template`]) under their key,
/// readable by the NIC (`TPL-KEY-001`).
fn register_local(r: &mut Recorder) {
    register_local_of(r, &template(0, WrOpcode::WRITE, true));
}

/// Registers the local memory template `t` reads from, readable by the NIC.
fn register_local_of(r: &mut Recorder, t: &Template) {
    r.host(
        0,
        HostCommand::RegisterLocal(openrdma_device::LocalRegion {
            lkey: t.local_lkey,
            base: t.local_base,
            len: t.local_region_len,
            local_read: true,
        }),
    );
}

/// Sets up the device (and the peer, if any) with one QP pair.
fn setup(r: &mut Recorder, psn: u32, peer: bool) {
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(qp(DUT_QP, PEER_QP, psn)));
    if peer {
        r.peer_host(0, HostCommand::RegisterRegion(region()));
        r.peer_host(0, HostCommand::CreateQp(qp(PEER_QP, DUT_QP, psn)));
    }
}

/// Sets up the region and two device QPs: A (`DUT_QP`, peer `PEER_QP`) from PSN `a_psn`,
/// and B (`DUT_QP + 1`, peer `PEER_QP + 1`) from PSN 0 in retirement domain `b_domain`.
/// Returns B's QPN.
fn two_qps(r: &mut Recorder, a_psn: u32, b_domain: u32) -> u32 {
    two_qps_with(r, a_psn, b_domain, &[])
}

/// [`two_qps`], with the regions `more` registered after the first one and before the
/// QPs.
fn two_qps_with(r: &mut Recorder, a_psn: u32, b_domain: u32, more: &[Region]) -> u32 {
    let b = DUT_QP + 1;
    r.host(0, HostCommand::RegisterRegion(region()));
    for &m in more {
        r.host(0, HostCommand::RegisterRegion(m));
    }
    r.host(0, HostCommand::CreateQp(qp(DUT_QP, PEER_QP, a_psn)));
    let domain = DomainId::new(b_domain);
    r.host(0, HostCommand::CreateQp(QpConfig { domain, ..qp(b, PEER_QP + 1, 0) }));
    b
}

/// Sets up the region and two device QPs, A (`DUT_QP`, peer `PEER_QP`) and B
/// (`DUT_QP + 1`, peer `PEER_QP + 1`), both from PSN 0 with one EV each, the same value.
/// Returns A, B and the EV.
fn two_qps_one_ev(r: &mut Recorder) -> (u32, u32, Ev) {
    let (a, b) = (DUT_QP, DUT_QP + 1);
    let e0 = v4_evs(DUT_QP, 1)[0];
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(QpConfig { evs: vec![e0], ..qp(a, PEER_QP, 0) }));
    r.host(0, HostCommand::CreateQp(QpConfig { evs: vec![e0], ..qp(b, PEER_QP + 1, 0) }));
    (a, b, e0)
}

/// An MRC write from the peer: packet `seg` of a message.
#[allow(clippy::too_many_arguments)]
pub fn write(
    psn: u32,
    msn: u16,
    opcode: Opcode,
    seg: u32,
    len: u32,
    total: u32,
    base: u64,
    imm: Option<u32>,
) -> Packet {
    let mut bth = BthRepr::new(opcode, Qpn::new(DUT_QP), Psn::new(psn));
    bth.ack_req = opcode.is_last();
    bth.ts = true;
    bth.pad_count = ((4 - len % 4) % 4) as u8;
    let va = base + u64::from(seg) * u64::from(PMTU);
    Packet::Write(WritePacket {
        bth,
        meth: MethRepr { rqmsn: Rqmsn::new(1), msn: Msn::new(msn) },
        tseth: Some(TsethRepr { tx_timestamp: 0, ftype: 1, ..TsethRepr::default() }),
        reth: RethRepr { va, rkey: RKEY, dma_len: total },
        immdt: imm.map(|imm| ImmDtRepr { imm }),
        payload: Payload::Bytes(memory(0x7000_0000 + va, len).into()),
    })
}

/// A probe from the peer.
pub fn probe(id: u16) -> Packet {
    Packet::Probe {
        bth: BthRepr::new(Opcode::MRC_PROBE, Qpn::new(DUT_QP), Psn::ZERO),
        peth: PethRepr { probe_id: id, ftype: 1, ..PethRepr::default() },
    }
}

/// Ends a recording and adds to its manifest the requirements that the scoreboard checks
/// for every scenario whose expected records hold what they concern: the wire rules of the
/// headers of each expected frame, which every frame the device sends is validated against
/// (`scoreboard::sender_rules`, CONF-CMP-016), the layout of each header in an expected
/// frame (its fields are compared exactly), the ICRC of every frame (recomputed by the
/// decoder), the EVs the device's packets travel on and report (CONF-CMP-017), the
/// completion-flag word of every expected flag (compared whole, at its address), the fields
/// of every expected completion, and the order of the writes of one message or work request
/// (`scoreboard::order_requirements`). Of all these, the manifest keeps only the
/// requirements of clauses the scenario can show a breach of (`judge::discriminates`),
/// and each record's `checks` likewise: a manifest claims only what the judge can fail
/// there.
///
/// A responder scenario requires `retirement` only when a requirement its builder names
/// concerns retirement (flags, completions, transport acknowledgements, message tracking):
/// the others judge the packet-reliability half alone, which a receiver block without its
/// completion engine can pass (CONF-CMP-012).
fn done(r: Recorder, end: u64) -> Scenario {
    let mut s = r.finish(end);
    let needs_retirement = s
        .manifest
        .requirements
        .iter()
        .any(|id| RETIREMENT_AREAS.iter().any(|area| id.starts_with(area)));
    if !needs_retirement && !s.manifest.requires.contains(&Capability::Requester) {
        s.manifest.requires.remove(&Capability::Retirement);
    }
    let probes = s.injects().any(|rec| match &rec.body {
        Body::Frame { bytes, .. } => decode(bytes).ext.peth.is_some(),
        _ => false,
    });
    let mut add: Vec<&str> = Vec::new();
    for rec in s.expects() {
        match &rec.body {
            Body::Frame { bytes, .. } => frame_rules(bytes, probes, s.manifest.cpu, &mut add),
            Body::Event { event: NicEvent::Report(rep) } => match rep {
                NicReport::Nack { .. } => add.push("REC-IF-004"),
                NicReport::EvMarked { .. } => add.push("REC-IF-005"),
                NicReport::ProbeAnswered { .. } => add.push("REC-IF-007"),
                NicReport::QpError { .. } => add.push("REC-IF-009"),
                NicReport::EvState { .. } => add.push("REC-IF-016"),
                _ => {}
            },
            Body::Event { event: NicEvent::FlagWrite(_) } => add.extend([
                "FLAG-LAYOUT-001",
                "FLAG-VALID-001",
                "FLAG-RESV-001",
                "FLAG-TABLE-001",
                "FLAG-WRITE-001",
            ]),
            Body::Event { event: NicEvent::Completion(c) } => {
                // Every entry a device writes is validated on its own (scoreboard::entries):
                // codes, reserved bits, and `imm` and `timestamp` without their flags.
                add.extend(["CQE-STATUS-001", "CQE-IMM-002", "CQE-RESV-001", "CQE-TS-001"]);
                if !c.entry.has_imm {
                    add.push("CQE-IMM-001");
                }
                if c.queue.is_some() {
                    // Judged from its bytes, at its slot and address.
                    add.extend(["CQE-LAYOUT-001", "CQE-RING-001", "CQE-RING-003", "CQE-ROUTE-001"]);
                }
            }
            _ => {}
        }
    }
    // The order of the device's writes, where the expected records hold writes to order
    // (CONF-CMP-022); the responder's only where the scenario judges retirement.
    let judges_retirement = s.manifest.requires.contains(&Capability::Retirement);
    add.extend(
        openrdma_conformance::scoreboard::order_requirements(&s)
            .into_iter()
            .map(|c| c.id())
            .filter(|id| judges_retirement || id.starts_with("ORD-SEND-")),
    );
    // A responder scenario that does not require `retirement` is run on receiver blocks,
    // which are not judged on it (CONF-CMP-012): it names none of the retirement rules its
    // generic checks hold a device with retirement to; other scenarios name them.
    let caps = &s.manifest.requires;
    let receiver_block =
        !caps.contains(&Capability::Retirement) && !caps.contains(&Capability::Requester);
    for id in add {
        if receiver_block && RETIREMENT_AREAS.iter().any(|area| id.starts_with(area)) {
            continue;
        }
        if !s.manifest.requirements.iter().any(|r| r == id) {
            s.manifest.requirements.push(id.to_string());
        }
    }
    // The manifest claims only what the scenario can show a breach of: the requirements of
    // the clauses it covers (`judge::discriminates`); a record's checks likewise.
    let shown: BTreeSet<&str> = openrdma_conformance::judge::table::covered_by(&s)
        .into_iter()
        .map(|c| c.requirement())
        .collect();
    s.manifest.requirements.retain(|id| shown.contains(id.as_str()));
    for rec in &mut s.records {
        rec.checks.retain(|id| shown.contains(id.split('.').next().unwrap_or(id)));
    }
    s
}

/// The rules every expected frame of this kind holds a device to (the frame rows of the
/// judge's table), added to `add`: `probes` when the scenario injects probes, `cpu` the
/// scenario's CPU half.
fn frame_rules(bytes: &[u8], probes: bool, cpu: CpuHalf, add: &mut Vec<&'static str>) {
    let d = decode(bytes);
    // Every frame the device sends is validated and held to the wire rules of
    // its headers (CONF-CMP-016): those of the headers this one holds.
    add.extend(openrdma_conformance::scoreboard::sender_rules(&d));
    let Some(bth) = d.bth else {
        return;
    };
    add.extend([
        "BTH-LAYOUT-001",
        "ICRC-CALC-001",
        "ICRC-COVER-001",
        "ICRC-MASK-001",
        "ICRC-ORDER-001",
        "TSETH-PRESENT-001",
        // The stack the opcode calls for: a header missing cuts the packet short
        // (ENC-FRAME-001) or shifts the fields compared after it; one too many
        // is payload, compared, or forbidden (PAY-NONE-001).
        "OPC-TABLE-001",
    ]);
    // The Retransmitted reports match the retransmissions, except when the
    // split is inside the device, whose reports are not judged.
    if bth.opcode.is_mrc_write() && bth.rtx && cpu != CpuHalf::Device {
        add.push("REC-IF-008");
    }
    let data_or_probe = bth.opcode.is_mrc_write() || bth.opcode == Opcode::MRC_PROBE;
    if data_or_probe && matches!(d.ip, Some(IpRepr::V4(_))) {
        // Sent on an EV of the QP's profile as IPv4 carries it (CONF-CMP-017);
        // over IPv6 ENC-EV-001 is among the IPv6 header's rules.
        add.push("ENC-EV-002");
    }
    if bth.opcode.is_mrc_write() && d.ext.tseth.is_some() {
        // Its flags are compared and its clock must run forward
        // (scoreboard::order).
        add.extend(["SND-TS-002", "TSETH-RESV-001"]);
    }
    if d.ext.seth.is_some() {
        // Every SACK the device sends is held to these (scoreboard::sacks).
        add.extend([
            "SETH-CACK-001",
            "SETH-BITMAP-001",
            "SETH-BITMAP-002",
            "SETH-ACKPSN-003",
            "SETH-EV-001",
            "ENC-EV-003",
            "CCS-LAYOUT-001",
            "CCS-TS-001",
            "CCS-OOO-001",
            "CCS-BYTES-001",
            "RCV-SACK-005",
            "RCV-SACK-006",
            "RCV-SACK-007",
        ]);
        if probes {
            add.extend(["SETH-PR-001", "SETH-ACKPSN-002"]);
        }
        if probes && d.ext.seth.is_some_and(|s| s.pr) {
            // Every expected probe answer must come (CONF-CMP-025).
            add.push("PETH-RESP-001");
        }
    }
    let e = &d.ext;
    if e.meth.is_some() {
        add.push("METH-LAYOUT-001");
    }
    if e.tseth.is_some() {
        // Its reserved bits and format are validated (TSETH-RESV-001,
        // TSETH-FTYPE-001); the timestamp is the device's own clock.
        add.push("TSETH-LAYOUT-001");
    }
    if e.reth.is_some() {
        add.push("RETH-LAYOUT-001");
    }
    if e.immdt.is_some() {
        add.push("IMMDT-LAYOUT-001");
    }
    if e.aeth.is_some() {
        add.extend(["AETH-LAYOUT-001", "AETH-MSN-001"]);
    }
    if let Some(n) = e.neth {
        // Compared field by field, and sent on the EV reported (CONF-CMP-017);
        // the fields a SHOULD fixes make the verdict non-strict.
        add.extend(["NETH-LAYOUT-001", "NETH-PSN-001", "ENC-EV-003", "RCV-NACK-001"]);
        add.extend(["NETH-TYPE-001", "NETH-VENDOR-001", "NETH-PDC-001", "NETH-CC-001"]);
        if n.tx_timestamp != 0 {
            // Only a timestamp of the NACKed packet tells a reflection from a 0.
            add.push("NETH-TS-001");
        }
    }
    if e.peth.is_some() {
        // `probe_id` compared, reserved fields validated (CONF-CMP-017).
        add.push("PETH-LAYOUT-001");
    }
    if e.seth.is_some() {
        add.push("SETH-LAYOUT-001");
    }
}

/// Requirement areas that concern retirement: a responder scenario that names one of them
/// requires the `retirement` capability.
const RETIREMENT_AREAS: &[&str] = &[
    "RET-",
    "FLAG-",
    "CQE-",
    "WWI-",
    "ORD-",
    "RCV-ACK-",
    "RCV-DUP-002",
    "RCV-MSG-",
    "RCV-NAK-",
    "AETH-",
    "REC-IF-009",
];

// ===== helpers for the scenarios below ===================================================

/// A packet with its write changed by `f`.
fn edit(mut p: Packet, f: impl FnOnce(&mut WritePacket)) -> Packet {
    if let Packet::Write(w) = &mut p {
        f(w);
    }
    p
}

/// A write from the peer without AckReq.
fn quiet(p: Packet) -> Packet {
    edit(p, |w| w.bth.ack_req = false)
}

/// A long SACK delay and a short lateness tolerance, so that a SACK the device owes at
/// once cannot be mistaken for one its timer sends.
fn tight_sack_timing(m: &mut Manifest) {
    m.nic.sack_delay = std::time::Duration::from_micros(5);
    m.tolerances.late_ns = 2_000;
}

/// A responder recorder whose manifest `f` adjusts first.
fn responder_with(
    name: &str,
    description: &str,
    reqs: &[&str],
    f: impl FnOnce(&mut Manifest),
) -> Recorder {
    let mut m = manifest(
        name,
        description,
        reqs,
        &[Capability::Responder, Capability::Retirement, Capability::Ipv4],
    );
    f(&mut m);
    Recorder::new(m)
}

/// An IPv6 link.
fn v6_link() -> Link {
    Link {
        local_ip: "fd00::1".parse().expect("literal"),
        peer_ip: "fd00::2".parse().expect("literal"),
        ..Link::default()
    }
}
