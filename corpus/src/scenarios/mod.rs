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
mod inference;
mod keys;
mod lenient;
mod reflect;
mod spray;
mod wire;

/// Every scenario of the corpus, in a stable order.
pub fn all() -> Vec<Builder> {
    let mut all: Vec<Builder> = vec![
        ("rcv-in-order-v4", rcv_in_order_v4),
        ("rcv-in-order-v6", rcv_in_order_v6),
        ("rcv-last-packet-first", rcv_last_packet_first),
        ("rcv-sack-timer", rcv_sack_timer),
        ("rcv-ack-coalesce", rcv_ack_coalesce),
        ("rcv-psn-wrap", rcv_psn_wrap),
        ("rcv-window-edges", rcv_window_edges),
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
        ("rcv-probe", rcv_probe),
        ("rcv-in-order-vlan", rcv_in_order_vlan),
        ("rcv-check-order", rcv_check_order),
        ("ret-error-releases-domain", ret_error_releases_domain),
        ("rcv-lenient", rcv_lenient),
        ("rcv-lenient-v6", rcv_lenient_v6),
        ("rcv-flag-slots", rcv_flag_slots),
        ("snd-segmentation", snd_segmentation),
        ("snd-ev-always-skip", || snd_ev_probe("snd-ev-always-skip", WireMark::NONE)),
        ("snd-ev-probe-skip", || snd_ev_probe("snd-ev-probe-skip", WireMark::SKIP_ONCE)),
        ("snd-ev-skip", snd_ev_skip),
        ("snd-nack-backoff", snd_nack_backoff),
        ("snd-nack-fatal", snd_nack_fatal),
        ("snd-window", snd_window),
        ("snd-cc-sack", snd_cc_sack),
        ("snd-ev-deny", snd_ev_deny),
        ("snd-ack-nak", snd_ack_nak),
        ("snd-wwi-limit", snd_wwi_limit),
        ("snd-lost-sack", snd_lost_sack),
        ("snd-lost-ack", snd_lost_ack),
        ("snd-timeout-loss", snd_timeout_loss),
        ("snd-dark-path-v6", snd_dark_path),
        ("ret-retry-exceeded", ret_retry_exceeded),
        ("db-accept", db_accept),
        ("db-reject", db_reject),
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
    all
}

fn manifest(name: &str, description: &str, reqs: &[&str], caps: &[Capability]) -> Manifest {
    Manifest {
        version: ManifestVersion,
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
    let t = template(0, WrOpcode::WRITE, true);
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

fn in_order(name: &str, link: Link) -> Scenario {
    let mut m = manifest(
        name,
        "The peer writes three messages in order (one of one packet, one of three, one \
         Write-with-Immediate of two); the device places every packet, SACKs on AckReq, \
         retires each message with its flag and immediate, and acknowledges it.",
        &[
            "RCV-PLACE-003",
            "RCV-SACK-001",
            "RCV-SACK-005",
            "RET-ORDER-001",
            "RET-FLAG-001",
            "RCV-ACK-001",
            "CQE-RECV-001",
            "FLAG-ORDER-001",
        ],
        &[Capability::Responder, Capability::Retirement, Capability::WriteImmediate],
    );
    m.requires.insert(if link.is_ipv6() { Capability::Ipv6 } else { Capability::Ipv4 });
    m.link = link;
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    r.checks(&["RCV-PLACE-003", "RCV-SACK-001"]);
    let base = REGION;
    r.inject(1_000, 0, 0xA000_0001, &write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 700, 700, base, None));
    let total = 2 * PMTU + 300;
    let b1 = base + 0x10_000;
    r.inject(
        2_000,
        1,
        0xA001_0002,
        &write(1, 1, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, b1, None),
    );
    r.inject(
        2_100,
        2,
        0xA002_0003,
        &write(2, 1, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, b1, None),
    );
    r.inject(2_200, 3, 0xA003_0004, &write(3, 1, Opcode::MRC_WRITE_LAST, 2, 300, total, b1, None));
    let b2 = base + 0x20_000;
    let total = PMTU + 8;
    r.inject(
        3_000,
        0,
        0xA004_0005,
        &write(4, 2, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, b2, None),
    );
    r.inject(
        3_100,
        1,
        0xA005_0006,
        &write(5, 2, Opcode::MRC_WRITE_LAST_IMM, 1, 8, total, b2, Some(0xFEED)),
    );
    done(r, 20_000)
}

fn rcv_in_order_v4() -> Scenario {
    in_order("rcv-in-order-v4", Link::default())
}

fn rcv_in_order_v6() -> Scenario {
    let link = Link {
        local_ip: "fd00::1".parse().expect("literal"),
        peer_ip: "fd00::2".parse().expect("literal"),
        ..Link::default()
    };
    in_order("rcv-in-order-v6", link)
}

/// The device sends six messages to a reference peer; the first transmission of each PSN
/// in `drops` is lost in the fabric and must be retransmitted once, by SACK inference.
fn snd_loss(name: &str, drops: &[u32]) -> Scenario {
    let mut m = manifest(
        name,
        "The device sends messages to a reference peer over four paths; the first \
         transmissions of some PSNs are lost; the device retransmits exactly those, once, \
         with rtx set, on other EVs, and completes every message in order.",
        &[
            "SND-INFER-001",
            "SND-RTX-001",
            "SND-RTX-002",
            "SND-RTX-003",
            "SND-RTX-004",
            "CQE-SEND-001",
        ],
        &[Capability::Requester, Capability::Ipv4],
    );
    m.nic.retirement = RetirementMode::PerQp;
    // The device chooses its paths; the recorded acknowledgements come from the reference's
    // choices. Over paths of equal delay the peer receives in sending order whatever the
    // choice, so its SACKs are true for any spray policy (`CONF-GEN-007`). A device may infer
    // a loss later than the reference (from its own paths) or leave it to the timeout: a
    // retransmission may come up to one RTO late.
    m.tolerances.late_ns = m.recovery.rto.as_nanos() as u64 + 8_000;
    let mut r = Recorder::new(m);
    r.paths((0..4).map(|_| Path { delay: 500, dark: None }).collect());
    r.with_peer();
    setup_v4_pair(&mut r, 0);
    let drops: Vec<(u32, u32)> = drops.iter().map(|&p| (PEER_QP, p)).collect();
    r.drop_data(&drops);
    r.checks(&["SND-RTX-001", "SND-INFER-001"]);
    for k in 0..6u32 {
        let wr = WorkRequest {
            wr_id: u64::from(k),
            qpn: Qpn::new(DUT_QP),
            opcode: WrOpcode::WRITE,
            local_va: 0x4000_0000 + u64::from(k) * 0x1_0000,
            lkey: Lkey::new(1),
            remote_va: REGION + u64::from(k) * 0x1_0000,
            rkey: RKEY,
            length: 2 * PMTU,
            imm: None,
            flag_slot: k,
            signaled: true,
        };
        r.host(1_000, HostCommand::PostWrite(wr));
    }
    done(r, 200_000)
}

fn responder(name: &str, description: &str, reqs: &[&str]) -> Recorder {
    let m = manifest(
        name,
        description,
        reqs,
        &[Capability::Responder, Capability::Retirement, Capability::Ipv4],
    );
    Recorder::new(m)
}

/// A three-packet message whose LAST packet (with AckReq) arrives first.
fn rcv_last_packet_first() -> Scenario {
    let mut r = responder(
        "rcv-last-packet-first",
        "The last packet of a three-packet message arrives first, then the other two out of \
         order: each is placed on arrival, every SACK tells only the truth, and the flag is \
         written after the last byte is placed.",
        &["RCV-PLACE-003", "RCV-SACK-001", "SETH-CACK-001", "SETH-BITMAP-001", "FLAG-ORDER-001"],
    );
    setup(&mut r, 0, false);
    r.checks(&["RCV-SACK-001", "FLAG-ORDER-001"]);
    let total = 2 * PMTU + 100;
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(2, 0, Opcode::MRC_WRITE_LAST, 2, 100, total, REGION, None),
    );
    r.inject(
        1_500,
        1,
        0xA001_0002,
        &write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None),
    );
    r.inject(
        2_000,
        2,
        0xA002_0003,
        &write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None),
    );
    done(r, 20_000)
}

/// Two packets without AckReq and fewer than `sack_coalesce`: only the timer acknowledges.
fn rcv_sack_timer() -> Scenario {
    let mut r = responder(
        "rcv-sack-timer",
        "Two in-order packets of a longer message arrive without AckReq, fewer than the \
         coalescing count, and nothing follows: the SACK timer acknowledges them within \
         sack_delay, so a quiet sender or a lost SACK cannot stall the connection.",
        &["RCV-SACK-004", "RCV-SACK-002"],
    );
    setup(&mut r, 0, false);
    r.checks(&["RCV-SACK-004"]);
    let total = 4 * PMTU;
    let mut p0 = write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None);
    let mut p1 = write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None);
    for p in [&mut p0, &mut p1] {
        if let Packet::Write(w) = p {
            w.bth.ack_req = false;
        }
    }
    r.inject(1_000, 0, 0xA000_0001, &p0);
    r.inject(1_100, 0, 0xA000_0001, &p1);
    done(r, 20_000)
}

/// Transport ACKs coalesced over `ack_coalesce` retirements, the rest owed to the SACK timer
/// whatever SACKs go out meanwhile.
fn rcv_ack_coalesce() -> Scenario {
    let mut r = responder_with(
        "rcv-ack-coalesce",
        "Five one-packet messages with AckReq arrive 100 ns apart with ack_coalesce 3: each is \
         SACKed at once; the third retirement reaches the count and is acknowledged at once, \
         ahead of its SACK; the fourth and fifth are acknowledged by the SACK timer, started \
         by the fourth retirement, although the SACKs sent meanwhile reset the SACK count.",
        &["RCV-ACK-001", "RCV-SACK-008", "RCV-ACK-002"],
        |m| {
            m.nic.ack_coalesce = 3;
            m.nic.sack_delay = std::time::Duration::from_micros(5);
            m.tolerances.late_ns = 1_000;
        },
    );
    setup(&mut r, 0, false);
    let one = |k: u32| {
        write(k, k as u16, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x100 * u64::from(k), None)
    };
    r.checks(&["RCV-ACK-001", "RCV-ACK-002"]);
    for k in 0..3u32 {
        r.inject(1_000 + 100 * u64::from(k), (k % 4) as u16, 0xA000_0001 + k * 0x1_0000, &one(k));
    }
    r.checks(&["RCV-SACK-008", "RCV-ACK-001"]);
    for k in 3..5u32 {
        r.inject(1_000 + 100 * u64::from(k), (k % 4) as u16, 0xA000_0001 + k * 0x1_0000, &one(k));
    }
    done(r, 20_000)
}

/// Messages across the PSN wrap at 2^24.
fn rcv_psn_wrap() -> Scenario {
    let mut r = responder(
        "rcv-psn-wrap",
        "The connection starts three PSNs before the wrap at 2^24; two messages of three \
         packets cross it, one of them out of order. Every PSN after the wrap is new and is \
         placed; SACKs and retirement run across the wrap.",
        &["BTH-PSN-001", "BTH-PSN-002", "RCV-WIN-001", "RCV-PLACE-003"],
    );
    let start = (1 << 24) - 3;
    setup(&mut r, start, false);
    r.checks(&["BTH-PSN-002", "RCV-WIN-001"]);
    let total = 2 * PMTU + 64;
    let psn = |k: u32| (start + k) & 0xFF_FFFF;
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(psn(0), 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None),
    );
    r.inject(
        1_100,
        1,
        0xA001_0002,
        &write(psn(1), 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None),
    );
    r.inject(
        1_200,
        2,
        0xA002_0003,
        &write(psn(2), 0, Opcode::MRC_WRITE_LAST, 2, 64, total, REGION, None),
    );
    let b = REGION + 0x10_000;
    r.inject(
        2_000,
        0,
        0xA000_0001,
        &write(psn(4), 1, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, b, None),
    );
    r.inject(
        2_100,
        1,
        0xA001_0002,
        &write(psn(3), 1, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, b, None),
    );
    r.inject(
        2_200,
        2,
        0xA002_0003,
        &write(psn(5), 1, Opcode::MRC_WRITE_LAST, 2, 64, total, b, None),
    );
    done(r, 20_000)
}

/// The last PSN inside the window is accepted; the first outside gets a NACK.
fn rcv_window_edges() -> Scenario {
    let mut r = responder(
        "rcv-window-edges",
        "With a window of 128 PSNs from epsn 0, PSN 127 is accepted and placed, PSN 128 is \
         answered with NACK PSN_OOR_WINDOW naming it, its EV and its timestamp, and \
         discarded, and PSN 0 then completes the first message.",
        &["RCV-WIN-001", "RCV-WIN-002", "RCV-NACK-001"],
    );
    setup(&mut r, 0, false);
    let b = REGION + 0x40_000;
    r.checks(&["RCV-WIN-001"]);
    r.inject(1_000, 0, 0xA000_0001, &write(127, 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, b, None));
    r.checks(&["RCV-WIN-002"]);
    // A timestamp the NACK must reflect (NETH-TS-001).
    let stamped = |p| {
        edit(p, |w| {
            if let Some(t) = w.tseth.as_mut() {
                t.tx_timestamp = 0x5A5A;
            }
        })
    };
    r.inject(
        2_000,
        1,
        0xA001_0002,
        &stamped(write(128, 2, Opcode::MRC_WRITE_ONLY, 0, 64, 64, b + 0x1000, None)),
    );
    r.checks(&["RCV-WIN-001"]);
    r.inject(3_000, 2, 0xA002_0003, &write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None));
    done(r, 20_000)
}

/// The peer's transport ACK is lost: it resends the last packet; the duplicate must be
/// answered with the ACK again.
fn rcv_lost_ack() -> Scenario {
    let mut r = responder(
        "rcv-lost-ack",
        "A one-packet message is placed, retired and acknowledged; the peer did not get the \
         ACK and resends the packet: the device places nothing, and answers the duplicate with \
         a SACK and the transport ACK again.",
        &["RCV-DUP-001", "RCV-DUP-002", "FLAG-LAST-001"],
    );
    setup(&mut r, 0, false);
    r.checks(&["RCV-DUP-002"]);
    let p = write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 256, 256, REGION, None);
    r.inject(1_000, 0, 0xA000_0001, &p);
    let mut again = p.clone();
    if let Packet::Write(w) = &mut again {
        w.bth.rtx = true;
    }
    r.inject(40_000, 1, 0xA001_0002, &again);
    done(r, 60_000)
}

/// Two QPs; the first message (QP A) is incomplete while QP B's completes: with a shared
/// sequence B waits for A, with per-QP retirement it does not.
fn rcv_retirement(name: &str, mode: RetirementMode) -> Scenario {
    let shared = mode == RetirementMode::Shared;
    let mut m = manifest(
        name,
        if shared {
            "Two QPs share one retirement sequence: QP A's message 0 is missing a packet while \
             QP B's message 1 is complete, so B's flag waits until A's last packet arrives \
             (the paper's cross-QP head-of-line blocking)."
        } else {
            "Per-QP retirement: QP A's message 0 is missing a packet while QP B's message 0 is \
             complete; B retires at once, A when its last packet arrives."
        },
        &["RET-DOMAIN-001", "RET-ORDER-001", "FLAG-ORDER-001"],
        &[Capability::Responder, Capability::Retirement, Capability::Ipv4],
    );
    m.requires.insert(if shared {
        Capability::SharedRetirement
    } else {
        Capability::PerQpRetirement
    });
    m.nic.retirement = mode;
    let mut r = Recorder::new(m);
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(qp(DUT_QP, PEER_QP, 0)));
    r.host(0, HostCommand::CreateQp(qp(DUT_QP + 1, PEER_QP + 1, 0)));
    r.checks(&["RET-ORDER-001"]);
    let total = 2 * PMTU;
    // QP A, MSN 0: only its first packet for now.
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None),
    );
    // QP B: its message (MSN 1 in the shared domain, 0 in its own).
    let b_msn = if shared { 1 } else { 0 };
    let mut b0 = write(0, b_msn, Opcode::MRC_WRITE_ONLY, 0, 512, 512, REGION + 0x80_000, None);
    if let Packet::Write(w) = &mut b0 {
        w.bth.dest_qp = Qpn::new(DUT_QP + 1);
    }
    r.inject(2_000, 1, 0xA001_0002, &b0);
    // QP A's last packet.
    r.inject(
        10_000,
        2,
        0xA002_0003,
        &write(1, 0, Opcode::MRC_WRITE_LAST, 1, PMTU, total, REGION, None),
    );
    done(r, 30_000)
}

/// Ends a recording and adds to its manifest the requirements that the scoreboard checks
/// for every scenario whose expected records hold what they concern: the wire rules of the
/// headers of each expected frame, which every frame the device sends is validated against
/// (`scoreboard::sender_rules`, CONF-CMP-016), the layout of each header in an expected
/// frame (its fields are compared exactly), the ICRC of every frame (recomputed by the
/// decoder), the EVs the device's packets travel on and report (CONF-CMP-017), the
/// completion-flag word of every expected flag (compared whole, at its address), the fields
/// of every expected completion, and the order of the writes of one message or work request
/// (`scoreboard::order_requirements`).
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
            Body::Frame { bytes, .. } => {
                let d = decode(bytes);
                // Every frame the device sends is validated and held to the wire rules of
                // its headers (CONF-CMP-016): those of the headers this one holds.
                add.extend(openrdma_conformance::scoreboard::sender_rules(&d));
                let Some(bth) = d.bth else {
                    continue;
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
                if bth.opcode.is_mrc_write() && bth.rtx && s.manifest.cpu != CpuHalf::Device {
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
                        "SETH-ACKPSN-001",
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
    s
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
    m.tolerances.late_ns = 500;
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

// ===== responder scenarios ===============================================================

/// A packet is resent while its message is still incomplete.
fn rcv_duplicate_before_retirement() -> Scenario {
    let reqs = [
        "RCV-DUP-001",
        "RCV-WIN-001",
        "RCV-PLACE-003",
        "RET-FLAG-001",
        "FLAG-ORDER-001",
        "RCV-ACK-002",
        "AETH-LAYOUT-001",
        "AETH-MSN-001",
    ];
    let mut r = responder_with(
        "rcv-duplicate-before-retirement",
        "The first two packets of a three-packet message, without AckReq, each arrive twice \
         (once as a retransmission, once as a plain copy) before the message is complete and \
         well within the (long) SACK delay: each copy is answered at once with a SACK and is \
         not placed again; the last packet then retires the message once, with its flag and \
         transport ACK.",
        &reqs,
        tight_sack_timing,
    );
    setup(&mut r, 0, false);
    let total = 2 * PMTU + 100;
    let p0 = quiet(write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None));
    let p1 = quiet(write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None));
    r.checks(&["RCV-PLACE-003"]);
    r.inject(1_000, 0, 0xA000_0001, &p0);
    r.checks(&["RCV-DUP-001"]);
    r.inject(1_200, 1, 0xA001_0002, &edit(p0.clone(), |w| w.bth.rtx = true));
    r.checks(&["RCV-PLACE-003"]);
    r.inject(1_400, 2, 0xA002_0003, &p1);
    r.checks(&["RCV-DUP-001"]);
    r.inject(1_600, 3, 0xA003_0004, &p1);
    r.checks(&["RET-FLAG-001", "RCV-ACK-002"]);
    r.inject(
        3_000,
        0,
        0xA000_0001,
        &write(2, 0, Opcode::MRC_WRITE_LAST, 2, 100, total, REGION, None),
    );
    done(r, 20_000)
}

/// Two Write-with-Immediate messages whose packets arrive interleaved and out of order.
fn rcv_wwi_order() -> Scenario {
    let mut m = manifest(
        "rcv-wwi-order",
        "Two Write-with-Immediate messages of two packets each arrive interleaved and out \
         of order, the second message complete first: both are placed on arrival, but the \
         receive completions (with their immediates) and the retirement flags come in MSN \
         and RQMSN order, the first message's before the second's.",
        &[
            "WWI-ORDER-001",
            "CQE-RECV-001",
            "CQE-IMM-002",
            "RET-ORDER-001",
            "RET-FLAG-001",
            "FLAG-RECV-002",
            "FLAG-ORDER-001",
            "RCV-PLACE-003",
            "RCV-MSG-003",
            "RCV-SACK-001",
            "RCV-WIN-003",
            "ORD-RECV-001",
        ],
        &[
            Capability::Responder,
            Capability::Retirement,
            Capability::WriteImmediate,
            Capability::Ipv4,
        ],
    );
    m.nic.retirement = RetirementMode::PerQp;
    m.requires.insert(Capability::PerQpRetirement);
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    let (a, b) = (REGION, REGION + 0x10_000);
    let total = PMTU + 200;
    let rq = |p: Packet, rqmsn: u16| edit(p, |w| w.meth.rqmsn = Rqmsn::new(rqmsn));
    let a0 = rq(write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, a, None), 1);
    let a1 = rq(write(1, 0, Opcode::MRC_WRITE_LAST_IMM, 1, 200, total, a, Some(0xA1)), 1);
    let b0 = rq(write(2, 1, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, b, None), 2);
    let b1 = rq(write(3, 1, Opcode::MRC_WRITE_LAST_IMM, 1, 200, total, b, Some(0xB2)), 2);
    r.checks(&["RCV-PLACE-003", "RCV-SACK-001"]);
    r.inject(1_000, 0, 0xA000_0001, &b1);
    r.inject(1_300, 1, 0xA001_0002, &a1);
    r.inject(1_600, 2, 0xA002_0003, &b0);
    r.checks(&["WWI-ORDER-001", "CQE-RECV-001", "RCV-WIN-003", "ORD-RECV-001"]);
    r.inject(2_500, 3, 0xA003_0004, &a0);
    done(r, 20_000)
}

/// RQMSN beyond `wwi_limit`: NACK UNEXP_EVENT and the QP in error.
fn rcv_wwi_limit() -> Scenario {
    let mut m = manifest(
        "rcv-wwi-limit",
        "With wwi_limit 2, a Write-with-Immediate (RQMSN 1) is delivered; the next one \
         carries RQMSN 4, three ahead of the last delivered: the device answers it with \
         NACK UNEXP_EVENT, discards it and moves the QP to the error state, after which a \
         further write to the QP is discarded without any response.",
        &[
            "WWI-LIMIT-002",
            "RCV-NACK-001",
            "NETH-LAYOUT-001",
            "NETH-PSN-001",
            "RET-ERR-002",
            "REC-IF-009",
            "RCV-QP-002",
            "CQE-RECV-001",
        ],
        &[
            Capability::Responder,
            Capability::Retirement,
            Capability::WriteImmediate,
            Capability::Ipv4,
        ],
    );
    m.nic.wwi_limit = 2;
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    r.checks(&["CQE-RECV-001"]);
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(0, 0, Opcode::MRC_WRITE_ONLY_IMM, 0, 64, 64, REGION, Some(0x11)),
    );
    r.checks(&["WWI-LIMIT-002", "RCV-NACK-001"]);
    let far = edit(
        write(1, 1, Opcode::MRC_WRITE_ONLY_IMM, 0, 64, 64, REGION + 0x1000, Some(0x44)),
        |w| w.meth.rqmsn = Rqmsn::new(4),
    );
    r.inject(3_000, 1, 0xA001_0002, &far);
    r.checks(&["RCV-QP-002"]);
    r.inject(
        6_000,
        2,
        0xA002_0003,
        &write(1, 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x2000, None),
    );
    done(r, 20_000)
}

/// Writes the region does not allow: AETH NAK remote access error, nothing placed.
fn rcv_placement_errors() -> Scenario {
    let mut r = responder(
        "rcv-placement-errors",
        "Writes naming an unknown rkey, a range outside the region, a region without \
         remote-write permission and a range crossing the region's end are each answered \
         with a transport NAK 0x62 (remote access error) carrying the MSN before the next \
         to retire, and place nothing; the same PSNs, sent correctly, are then accepted as \
         new and placed.",
        &[
            "RCV-PLACE-002",
            "RCV-NAK-002",
            "RCV-REJECT-001",
            "AETH-MRC-001",
            "AETH-LAYOUT-001",
            "AETH-SYN-001",
            "AETH-MSN-001",
            "RCV-PLACE-003",
            "RCV-ACK-002",
        ],
    );
    setup(&mut r, 0, false);
    r.host(
        0,
        HostCommand::RegisterRegion(Region {
            rkey: Rkey::new(0x5678),
            base: REGION + REGION_LEN,
            len: 0x10_0000,
            remote_write: false,
        }),
    );
    let good = write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 256, 256, REGION, None);
    r.checks(&["RCV-PLACE-002", "RCV-NAK-002"]);
    r.inject(1_000, 0, 0xA000_0001, &edit(good.clone(), |w| w.reth.rkey = Rkey::new(0x9999)));
    r.inject(
        2_000,
        1,
        0xA001_0002,
        &edit(good.clone(), |w| w.reth.va = REGION + REGION_LEN + 0x1000),
    );
    r.inject(
        3_000,
        2,
        0xA002_0003,
        &edit(good.clone(), |w| {
            w.reth.rkey = Rkey::new(0x5678);
            w.reth.va = REGION + REGION_LEN;
        }),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    r.inject(4_000, 3, 0xA003_0004, &good);
    let second = write(1, 1, Opcode::MRC_WRITE_ONLY, 0, 256, 256, REGION + 0x1_0000, None);
    r.checks(&["RCV-PLACE-002", "RCV-NAK-002"]);
    r.inject(
        6_000,
        0,
        0xA000_0001,
        &edit(second.clone(), |w| w.reth.va = REGION + REGION_LEN - 100),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    r.inject(7_000, 1, 0xA001_0002, &second);
    done(r, 20_000)
}

/// Segments of the wrong size are discarded without response.
fn rcv_segment_errors() -> Scenario {
    let mut r = responder(
        "rcv-segment-errors",
        "A write with more payload than the PMTU, a FIRST shorter than the PMTU and a \
         MIDDLE shorter than the PMTU are discarded without response and change nothing: \
         the same PSNs then arrive with correct sizes and are placed as new.",
        &["RCV-SEG-001", "RCV-SEG-002", "RCV-REJECT-001", "RCV-PLACE-003"],
    );
    setup(&mut r, 0, false);
    let total = 2 * PMTU + 8;
    r.checks(&["RCV-SEG-001"]);
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU + 4, total, REGION, None),
    );
    r.checks(&["RCV-SEG-002"]);
    r.inject(
        2_000,
        1,
        0xA001_0002,
        &write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU - 4, total, REGION, None),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    r.inject(
        3_000,
        2,
        0xA002_0003,
        &quiet(write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None)),
    );
    r.checks(&["RCV-SEG-002"]);
    r.inject(
        4_000,
        3,
        0xA003_0004,
        &write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, 512, total, REGION, None),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    r.inject(
        5_000,
        0,
        0xA000_0001,
        &quiet(write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None)),
    );
    r.inject(
        6_000,
        1,
        0xA001_0002,
        &write(2, 0, Opcode::MRC_WRITE_LAST, 2, 8, total, REGION, None),
    );
    done(r, 20_000)
}

/// MSNs that are already retired or beyond the table, and inconsistent messages.
fn rcv_msn_position() -> Scenario {
    let mut r = responder(
        "rcv-msn-position",
        "After message 0 retires, a new PSN naming MSN 0 again, a new PSN naming MSN 5000 \
         (beyond the 4096 entries of a shared retirement table) and a LAST packet whose \
         RETH dma_len differs from its FIRST are each discarded without response or \
         placement; the same PSNs, sent correctly, are then placed. At the edge of the \
         table, MSN next + 4096 is discarded and MSN next + 4095 is accepted and placed \
         (it stays pending).",
        &[
            "FLAG-LAST-002",
            "FLAG-LAST-001",
            "RCV-MSG-002",
            "RET-CAP-001",
            "RET-CAP-002",
            "RCV-MSG-001",
            "RCV-REJECT-001",
            "RCV-PLACE-003",
        ],
    );
    setup(&mut r, 0, false);
    r.inject(1_000, 0, 0xA000_0001, &write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None));
    r.checks(&["FLAG-LAST-002"]);
    r.inject(
        3_000,
        1,
        0xA001_0002,
        &write(1, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x100, None),
    );
    r.checks(&["RCV-MSG-002"]);
    r.inject(
        4_000,
        2,
        0xA002_0003,
        &write(1, 5000, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x200, None),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    let b = REGION + 0x1_0000;
    let total = PMTU + 32;
    r.inject(
        5_000,
        3,
        0xA003_0004,
        &quiet(write(1, 1, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, b, None)),
    );
    r.checks(&["RCV-MSG-001"]);
    r.inject(
        6_000,
        0,
        0xA000_0001,
        &write(2, 1, Opcode::MRC_WRITE_LAST, 1, 32, total + 4, b, None),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    r.inject(7_000, 1, 0xA001_0002, &write(2, 1, Opcode::MRC_WRITE_LAST, 1, 32, total, b, None));
    // Messages 0 and 1 retired: the table holds MSNs 2 to 4097.
    r.checks(&["RCV-MSG-002", "RET-CAP-002"]);
    r.inject(
        8_000,
        2,
        0xA002_0003,
        &write(3, 4098, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x300, None),
    );
    r.checks(&["RET-CAP-001", "RCV-PLACE-003"]);
    r.inject(
        9_000,
        3,
        0xA003_0004,
        &write(3, 4097, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x400, None),
    );
    done(r, 20_000)
}

/// `sack_coalesce` writes without AckReq produce a SACK at once.
fn rcv_sack_coalesce() -> Scenario {
    let mut m = manifest(
        "rcv-sack-coalesce",
        "Eight in-order packets of a longer message arrive 100 ns apart without AckReq, \
         twice sack_coalesce (4), all well within the long SACK delay (20 us): the count, \
         not the timer, makes the device SACK at once (after the fourth and the eighth); the \
         last packet, with AckReq, completes the message.",
        &["RCV-SACK-002", "RCV-SACK-001", "RCV-PLACE-003"],
        &[Capability::Responder, Capability::Retirement, Capability::Ipv4],
    );
    m.nic.sack_coalesce = 4;
    m.nic.sack_delay = std::time::Duration::from_micros(20);
    // A device that coalesces over up to 8 packets reports the first four within 400 ns of
    // the fourth; one that waits for its timer does not (RCV-SACK-002).
    m.tolerances.late_ns = 1_000;
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    let total = 8 * PMTU + 16;
    r.checks(&["RCV-SACK-002"]);
    for k in 0..8u32 {
        let op = if k == 0 { Opcode::MRC_WRITE_FIRST } else { Opcode::MRC_WRITE_MIDDLE };
        let p = quiet(write(k, 0, op, k, PMTU, total, REGION, None));
        r.inject(1_000 + 100 * u64::from(k), (k % 4) as u16, 0xA000_0000 + (k % 4) * 0x1_0000, &p);
    }
    r.checks(&["RCV-SACK-001"]);
    r.inject(
        5_000,
        0,
        0xA000_0000,
        &write(8, 0, Opcode::MRC_WRITE_LAST, 8, 16, total, REGION, None),
    );
    done(r, 40_000)
}

/// A probe is answered at once and consumes no PSN.
fn rcv_probe() -> Scenario {
    let mut m = manifest(
        "rcv-probe",
        "Two packets arrive without AckReq and, before the (long) SACK delay, a probe whose \
         BTH psn is the next expected PSN: the device answers the probe at once with a SACK \
         reporting both packets, and does not take the probe's PSN as received (a later \
         SACK claims it only once the write with that PSN has arrived).",
        &["EV-PROBE-004", "PETH-PSN-001", "RCV-SACK-001", "SETH-CACK-001"],
        &[Capability::Responder, Capability::Paths, Capability::Retirement, Capability::Ipv4],
    );
    m.nic.sack_delay = std::time::Duration::from_micros(5);
    m.tolerances.late_ns = 500;
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    let total = 3 * PMTU;
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &quiet(write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None)),
    );
    r.inject(
        1_100,
        1,
        0xA001_0002,
        &quiet(write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None)),
    );
    let mut pr = probe(7);
    if let Packet::Probe { bth, .. } = &mut pr {
        bth.psn = Psn::new(2);
    }
    r.checks(&["EV-PROBE-004"]);
    r.inject(1_300, 2, 0xA002_0003, &pr);
    r.checks(&["PETH-PSN-001", "RCV-SACK-001"]);
    r.inject(
        10_000,
        3,
        0xA003_0004,
        &write(2, 0, Opcode::MRC_WRITE_LAST, 2, PMTU, total, REGION, None),
    );
    done(r, 30_000)
}

/// The in-order scenario over a VLAN-tagged link.
fn rcv_in_order_vlan() -> Scenario {
    let link = Link { vlan: Some(42), ..Link::default() };
    let mut s = in_order("rcv-in-order-vlan", link);
    s.manifest.description.push_str(" Every frame carries an 802.1Q tag (VID 42).");
    // The tag's rules (ENC-VLAN-001, ENC-VLAN-002, ENC-ETH-001) come with the tagged frames
    // the device sends (`done`, CONF-CMP-016).
    s
}

/// The order of the receive checks: the first failing check decides the response.
fn rcv_check_order() -> Scenario {
    let mut r = responder(
        "rcv-check-order",
        "Writes that break two rules at once get the response of the first check in \
         RCV-CHECK-001 order: an unknown QP gets nothing; an out-of-window PSN with a bad \
         rkey gets NACK PSN_OOR_WINDOW, not a NAK; an oversized payload with a bad rkey is \
         dropped silently; a duplicate with a bad rkey gets a SACK; a bad rkey on a retired \
         MSN gets the NAK.",
        &[
            "RCV-CHECK-001",
            "RCV-QP-001",
            "RCV-WIN-002",
            "RCV-NACK-001",
            "RCV-DUP-001",
            "RCV-PLACE-002",
            "RCV-NAK-002",
            "RCV-PLACE-003",
            "FLAG-LAST-001",
            "ORD-RECV-002",
            "NETH-LAYOUT-001",
            "AETH-LAYOUT-001",
        ],
    );
    setup(&mut r, 0, false);
    r.checks(&["RCV-PLACE-003"]);
    r.inject(1_000, 0, 0xA000_0001, &write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None));
    let bad_key = |p: Packet| edit(p, |w| w.reth.rkey = Rkey::new(0x9999));
    r.checks(&["RCV-QP-001"]);
    r.inject(
        3_000,
        1,
        0xA001_0002,
        &edit(write(1, 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None), |w| {
            w.bth.dest_qp = Qpn::new(0x99)
        }),
    );
    r.checks(&["RCV-CHECK-001", "RCV-WIN-002"]);
    r.inject(
        4_000,
        2,
        0xA002_0003,
        &bad_key(write(200, 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None)),
    );
    r.checks(&["RCV-CHECK-001"]);
    r.inject(
        5_000,
        3,
        0xA003_0004,
        &bad_key(write(1, 1, Opcode::MRC_WRITE_ONLY, 0, PMTU + 8, PMTU + 8, REGION, None)),
    );
    r.checks(&["RCV-CHECK-001", "RCV-DUP-001", "FLAG-LAST-001", "ORD-RECV-002"]);
    r.inject(
        6_000,
        0,
        0xA000_0001,
        &bad_key(write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None)),
    );
    r.checks(&["RCV-CHECK-001", "RCV-NAK-002"]);
    r.inject(
        7_000,
        1,
        0xA001_0002,
        &bad_key(write(1, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x100, None)),
    );
    done(r, 20_000)
}

/// A QP of a shared domain fails: its pending message no longer holds back the domain.
fn ret_error_releases_domain() -> Scenario {
    let mut m = manifest(
        "ret-error-releases-domain",
        "Two QPs share a retirement domain. QP A's message 0 is incomplete, so QP B's \
         complete message 1 waits; then A receives a Write-with-Immediate far beyond \
         wwi_limit and fails: its message 0 is removed without a flag, and B's message 1 \
         retires at once with its flag and transport ACK.",
        &[
            "RET-ERR-001",
            "FLAG-RECV-003",
            "RET-ORDER-001",
            "WWI-LIMIT-002",
            "REC-IF-009",
            "RCV-ACK-003",
            "RCV-NACK-001",
            "NETH-LAYOUT-001",
            "AETH-LAYOUT-001",
        ],
        &[
            Capability::Responder,
            Capability::Retirement,
            Capability::SharedRetirement,
            Capability::WriteImmediate,
            Capability::Ipv4,
        ],
    );
    m.nic.wwi_limit = 4;
    let mut r = Recorder::new(m);
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(qp(DUT_QP, PEER_QP, 0)));
    r.host(0, HostCommand::CreateQp(qp(DUT_QP + 1, PEER_QP + 1, 0)));
    r.checks(&["RET-ORDER-001"]);
    let total = 2 * PMTU;
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None),
    );
    let b = edit(write(0, 1, Opcode::MRC_WRITE_ONLY, 0, 128, 128, REGION + 0x8_0000, None), |w| {
        w.bth.dest_qp = Qpn::new(DUT_QP + 1)
    });
    r.inject(2_000, 1, 0xA001_0002, &b);
    r.checks(&["RET-ERR-001", "RCV-ACK-003"]);
    let far =
        edit(write(1, 2, Opcode::MRC_WRITE_ONLY_IMM, 0, 64, 64, REGION + 0x4_0000, Some(7)), |w| {
            w.meth.rqmsn = Rqmsn::new(100)
        });
    r.inject(5_000, 2, 0xA002_0003, &far);
    done(r, 20_000)
}

// ===== requester scenarios with hand-made acknowledgements ================================

/// A requester recorder whose manifest `f` adjusts first.
fn sender_with(
    name: &str,
    description: &str,
    reqs: &[&str],
    f: impl FnOnce(&mut Manifest),
) -> Recorder {
    let mut m = manifest(name, description, reqs, &[Capability::Requester, Capability::Ipv4]);
    f(&mut m);
    Recorder::new(m)
}

/// EVs that IPv4 can carry whole (bits 15:0 zero, `ENC-EV-002`).
fn v4_evs(me: u32, n: u32) -> Vec<Ev> {
    (0..n).map(|i| Ev::new((0xC000 + (me << 4) + i) << 16)).collect()
}

/// Sets up the device's QP (no peer) with these EVs.
fn setup_evs(r: &mut Recorder, psn: u32, evs: Vec<Ev>) {
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(QpConfig { evs, ..qp(DUT_QP, PEER_QP, psn) }));
}

/// Work request `k` of the device: `length` bytes, with an immediate if `imm` is given.
fn wr(k: u32, length: u32, imm: Option<u32>, signaled: bool) -> WorkRequest {
    WorkRequest {
        wr_id: 0x100 + u64::from(k),
        qpn: Qpn::new(DUT_QP),
        opcode: if imm.is_some() { WrOpcode::WRITE_WITH_IMM } else { WrOpcode::WRITE },
        local_va: 0x4000_0000 + u64::from(k) * 0x1_0000,
        lkey: Lkey::new(1),
        remote_va: REGION + u64::from(k) * 0x1_0000,
        rkey: RKEY,
        length,
        imm,
        flag_slot: k,
        signaled,
    }
}

/// A SACK from the peer to the device: everything up to `cack` arrived, plus the PSNs of
/// `bitmap` from `cack + 1`; `trigger` is the packet it answers, `m` its mark, `entropy` the
/// EV it reflects.
fn sack_in(cack: u32, bitmap: u64, trigger: u32, m: WireMark, entropy: impl Into<Ev>) -> Packet {
    let entropy = entropy.into();
    let cack = Psn::new(cack);
    Packet::Sack {
        bth: BthRepr::new(Opcode::MRC_SACK, Qpn::new(DUT_QP), cack),
        seth: SethRepr {
            m,
            ack_psn_offset: Psn::new(trigger).distance(cack) as i16,
            entropy,
            cack_psn: cack,
            mpr: 1,
            sack_offset: 1,
            sack_bitmap: bitmap,
            ..SethRepr::default()
        },
        cc_state: CcStateRepr::default(),
    }
}

/// The answer to probe `id` on EV `ev`, with mark `m`.
fn probe_answer(cack: u32, id: u16, m: WireMark, ev: impl Into<Ev>) -> Packet {
    let mut p = sack_in(cack, 0, cack, m, ev);
    if let Packet::Sack { seth, .. } = &mut p {
        seth.pr = true;
        seth.ack_psn_offset = id as i16;
    }
    p
}

/// A NACK from the peer for the device's PSN `psn`.
fn nack_in(psn: u32, reason: NackReason, entropy: impl Into<Ev>) -> Packet {
    let entropy = entropy.into();
    Packet::Nack {
        bth: BthRepr::new(Opcode::MRC_NACK, Qpn::new(DUT_QP), Psn::new(psn)),
        neth: NethRepr { reason, entropy, nack_psn: Psn::new(psn), ..NethRepr::default() },
    }
}

/// A transport ACK (or NAK, by `syndrome`) from the peer covering MSN `msn`.
fn ack_in(psn: u32, msn: u16, syndrome: u8) -> Packet {
    Packet::Ack {
        bth: BthRepr::new(Opcode::MRC_ACKNOWLEDGE, Qpn::new(DUT_QP), Psn::new(psn)),
        aeth: AethRepr { syndrome, msn: AethMsn::from(Msn::new(msn)) },
    }
}

/// Injects a SACK answering the device's PSN `trigger`, on the EV the device used for it.
fn inject_sack(r: &mut Recorder, at: u64, cack: u32, bitmap: u64, trigger: u32, m: WireMark) {
    r.run_until(at);
    let ev = r.sent_ev(PEER_QP, trigger).expect("the trigger PSN was sent");
    let port = port_of(ev, 4);
    r.inject(at, port, ev, &sack_in(cack, bitmap, trigger, m, ev));
}

/// Injects a NACK for the device's PSN `psn`, on the EV the device last used for it.
fn inject_nack(r: &mut Recorder, at: u64, psn: u32, reason: NackReason) {
    r.run_until(at);
    let ev = r.sent_ev(PEER_QP, psn).unwrap_or(Ev::new(0xA000_0000));
    r.inject(at, port_of(ev, 4), ev, &nack_in(psn, reason, ev));
}

/// Injects a transport ACK (`syndrome` 0x1F) or NAK for MSN `msn`.
fn inject_ack(r: &mut Recorder, at: u64, psn: u32, msn: u16, syndrome: u8) {
    r.inject(at, 0, 0xA000_0000, &ack_in(psn, msn, syndrome));
}

/// Messages of every shape, across the PSN wrap, acknowledged by hand.
fn snd_segmentation() -> Scenario {
    let mut r = sender_with(
        "snd-segmentation",
        "The device sends eight messages from three PSNs before the wrap at 2^24, with \
         ack_req_every 4: 0 bytes, 1 byte, one PMTU, PMTU + 1, three PMTUs, a \
         Write-with-Immediate of PMTU + 10, an unsignaled Write-with-Immediate of 5 bytes and \
         a Write of 100 bytes. Every packet's opcode, AckReq, METH, RETH, ImmDt, pad and \
         payload are checked. A SACK reports every PSN, an ACK for an MSN never assigned is \
         discarded, and an ACK for MSN 6 completes messages 0 to 6 in order; message 7, \
         SACKed but never ACKed, does not complete.",
        &[
            "SND-SEG-001",
            "SND-SEG-002",
            "SND-SEG-003",
            "SND-SEG-004",
            "SND-ACKREQ-001",
            "SND-PSN-001",
            "BTH-PSN-001",
            "SND-MSN-001",
            "RET-DOMAIN-003",
            "SND-MSN-002",
            "SND-RQMSN-002",
            "METH-MSN-001",
            "METH-RQMSN-001",
            "RETH-VA-002",
            "RETH-LEN-003",
            "RETH-RKEY-001",
            "PAY-PAD-001",
            "PAY-LEN-001",
            "PAY-LEN-002",
            "OPC-WRITE-001",
            "OPC-MRC-001",
            "OPC-MRC-002",
            "BTH-PKEY-001",
            "BTH-RTX-001",
            "SND-ORDER-001",
            "WR-EXEC-001",
            "ORD-NIC-002",
            "SND-ACK-001",
            "SND-ACK-002",
            "SND-ACK-005",
            "RET-SEND-001",
            "CQE-SEND-001",
            "CQE-SEND-003",
            "CQE-IMM-002",
            "WR-SIGNALED-001",
            "FLAG-SEND-001",
            "FLAG-SEND-002",
            "FLAG-LEN-001",
            "IMMDT-LAYOUT-001",
        ],
        |m| {
            m.nic.ack_req_every = 4;
            m.requires.insert(Capability::WriteImmediate);
        },
    );
    let start = 0xFF_FFFD;
    setup_evs(&mut r, start, v4_evs(DUT_QP, 4));
    let shapes: [(u32, Option<u32>, bool); 8] = [
        (0, None, true),
        (1, None, true),
        (PMTU, None, true),
        (PMTU + 1, None, true),
        (3 * PMTU, None, true),
        (PMTU + 10, Some(0xC0FF_EE00), true),
        (5, Some(0x5), false),
        (100, None, true),
    ];
    r.checks(&["SND-SEG-001", "SND-SEG-002", "SND-SEG-003", "SND-ACKREQ-001", "RET-DOMAIN-003"]);
    for (k, &(len, imm, signaled)) in shapes.iter().enumerate() {
        r.host(1_000, HostCommand::PostWrite(wr(k as u32, len, imm, signaled)));
    }
    let last = (start + 11) & 0xFF_FFFF;
    inject_sack(&mut r, 6_000, last, 0, last, WireMark::NONE);
    r.checks(&["SND-ACK-002"]);
    inject_ack(&mut r, 7_000, last, 9, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["SND-ACK-001", "CQE-SEND-001", "FLAG-SEND-001", "SND-ACK-005"]);
    inject_ack(&mut r, 8_000, last, 6, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// SACK m = ALWAYS_SKIP on the only EV: no data until a probe brings it back, at once
/// (answer m = NONE) or after `skip_hold` (answer m = SKIP_ONCE).
fn snd_ev_probe(name: &str, answer: WireMark) -> Scenario {
    let skip = answer != WireMark::NONE;
    let description = if skip {
        "The QP has one EV. A SACK marks it ALWAYS_SKIP: it becomes ASSUMED_BAD and the \
         next message waits, since no EV is usable. The CPU half commands a probe of the \
         EV, which the device sends at once; the answer carries m = SKIP_ONCE, so the EV \
         goes to SKIP, and the message goes out when skip_hold (4 us) has passed."
    } else {
        "The QP has one EV. A SACK marks it ALWAYS_SKIP: it becomes ASSUMED_BAD, and a later \
         SKIP_ONCE mark (a stale SACK) leaves it there; the next message waits, since no EV \
         is usable. The CPU half commands a probe of the EV, which the device sends at once; \
         the answer (pr = 1, m = NONE) makes the EV GOOD and the waiting message goes out."
    };
    let mut reqs = vec![
        "EV-BAD-001",
        "EV-STATE-001",
        "SND-PATH-002",
        "EV-PROBE-005",
        "REC-IF-011",
        "SND-ACK-001",
        "CQE-SEND-001",
    ];
    reqs.extend(if skip {
        ["EV-PROBE-003", "EV-SKIP-002"].as_slice()
    } else {
        ["EV-PROBE-002", "EV-STATE-002", "SND-SACK-005"].as_slice()
    });
    let mut r = sender_with(name, description, &reqs, |m| {
        m.requires.insert(Capability::Paths);
        m.requires.insert(Capability::CpuSplit);
        m.nic.skip_hold = std::time::Duration::from_micros(4);
    });
    let evs = v4_evs(DUT_QP, 1);
    let e0 = evs[0];
    setup_evs(&mut r, 0, evs);
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.checks(&["EV-BAD-001"]);
    inject_sack(&mut r, 3_000, 0, 0, 0, WireMark::ALWAYS_SKIP);
    inject_ack(&mut r, 3_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    if !skip {
        r.checks(&["EV-STATE-002", "SND-SACK-005"]);
        inject_sack(&mut r, 3_500, 0, 0, 0, WireMark::SKIP_ONCE);
    }
    r.checks(&["EV-PROBE-005", "REC-IF-011", "SND-PATH-002"]);
    r.host(4_000, HostCommand::PostWrite(wr(1, 64, None, true)));
    r.run_until(14_000);
    r.checks(if skip { &["EV-PROBE-003", "EV-SKIP-002"] } else { &["EV-PROBE-002"] });
    r.inject(14_000, 0, e0, &probe_answer(0, 1, answer, e0));
    r.run_until(20_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 20_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 20_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 30_000)
}

/// NACK TRIMMED and SACK m = SKIP_ONCE put both EVs in SKIP until `skip_hold` passes.
fn snd_ev_skip() -> Scenario {
    let mut r = sender_with(
        "snd-ev-skip",
        "The QP has two EVs and skip_hold is 10 us. A NACK TRIMMED for the packet sent on \
         the first puts that EV in SKIP and the packet is retransmitted at once on the \
         second; a SACK with m = SKIP_ONCE for the retransmission puts the second in SKIP \
         too. The next message waits until the first EV's hold has passed, then goes out.",
        &[
            "SND-NACK-002",
            "EV-SKIP-001",
            "EV-SKIP-002",
            "EV-STATE-001",
            "SND-PATH-002",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.nic.skip_hold = std::time::Duration::from_micros(10);
            m.tolerances.late_ns = 500;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 2));
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.checks(&["SND-NACK-002", "SND-RTX-002"]);
    inject_nack(&mut r, 2_000, 0, NackReason::TRIMMED);
    r.checks(&["EV-SKIP-001"]);
    inject_sack(&mut r, 3_000, 0, 0, 0, WireMark::SKIP_ONCE);
    inject_ack(&mut r, 3_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["EV-SKIP-002", "SND-PATH-002"]);
    r.host(4_000, HostCommand::PostWrite(wr(1, 64, None, true)));
    r.run_until(14_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 14_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 14_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 30_000)
}

/// NACKs that report the responder's resources: retransmission after `nack_backoff`, no
/// EV state change; a trim is not held back by them; stale and wild NACKs change nothing.
fn snd_nack_backoff() -> Scenario {
    let mut r = sender_with(
        "snd-nack-backoff",
        "The QP has three EVs; PSN 0 goes on the first, PSN 1 on the second. A NACK \
         PSN_OOR_WINDOW for PSN 0 queues it for retransmission after nack_backoff (2 us); a \
         NACK TRIMMED for PSN 1 just after puts the second EV in SKIP and is retransmitted \
         at once on the third, not held back by the delayed entry. After both complete, a \
         stale NACK (for an acknowledged PSN) and a NACK for a PSN never sent change \
         nothing. The window NACK did not touch the first EV: when a SACK marks the third \
         ALWAYS_SKIP, the next message still goes out at once, on the first.",
        &[
            "SND-NACK-001",
            "SND-NACK-002",
            "SND-NACK-003",
            "SND-NACK-004",
            "SND-SCHED-003",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "EV-SKIP-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.nic.nack_backoff = std::time::Duration::from_micros(2);
            m.tolerances.late_ns = 500;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 3));
    r.host(1_000, HostCommand::PostWrite(wr(0, 2 * PMTU, None, true)));
    r.checks(&["SND-NACK-004"]);
    inject_nack(&mut r, 2_000, 0, NackReason::PSN_OOR_WINDOW);
    r.checks(&["SND-NACK-002", "SND-SCHED-003"]);
    inject_nack(&mut r, 2_100, 1, NackReason::TRIMMED);
    r.checks(&["SND-NACK-004"]);
    r.run_until(4_000);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 6_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 6_000, 1, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["SND-NACK-001"]);
    inject_nack(&mut r, 7_000, 0, NackReason::NO_RESOURCE);
    inject_nack(&mut r, 7_500, 50, NackReason::PSN_OOR_WINDOW);
    // PSN 0's latest transmission used the third EV (the first was avoided).
    inject_sack(&mut r, 8_000, 1, 0, 0, WireMark::ALWAYS_SKIP);
    r.checks(&["SND-NACK-003"]);
    r.host(9_000, HostCommand::PostWrite(wr(1, 64, None, true)));
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 11_000, 2, 0, 2, WireMark::NONE);
    inject_ack(&mut r, 11_000, 2, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 16_000)
}

// ===== doorbells ==========================================================================

/// A template of the device's QP: 16 slots of 64 KiB on each side, 64-byte length units.
fn template(id: u16, opcode: WrOpcode, signaled: bool) -> Template {
    Template {
        template_id: TemplateId::new(id),
        enabled: true,
        qpn: Qpn::new(DUT_QP),
        opcode,
        local_base: 0x4000_0000,
        local_lkey: Lkey::new(1),
        local_region_len: 0x10_0000,
        remote_base: REGION,
        remote_rkey: RKEY,
        remote_region_len: 0x10_0000,
        slots: 16,
        local_stride: 0x1_0000,
        remote_stride: 0x1_0000,
        length_unit: 64,
        default_length: 2 * PMTU + 100,
        max_length: 0x2_0000,
        imm_base: 0xAB00_0000,
        flag_base_slot: 32 + u32::from(id) * 16,
        signaled,
    }
}

/// The token value for `template`.
fn token(template: u16, seq: u16, index: u16, length_units: u16) -> u64 {
    DoorbellToken { version: 1, template: TemplateId::new(template), seq, index, length_units }
        .to_u64()
}

/// Good doorbells expand into messages.
fn db_accept() -> Scenario {
    let mut r = sender_with(
        "db-accept",
        "Two templates are installed: an unsignaled Write and a signaled \
         Write-with-Immediate. Three tokens (the default length at slot 2, 20 length units \
         at slot 5, one unit at slot 1 of the second template) each become one message: \
         local and remote addresses from the slot, length from the token, immediate = \
         imm_base + index. Once acknowledged, each writes its sender flag at flag_base_slot \
         + index with the token's seq; only the signaled one writes a completion, whose \
         wr_id is the token.",
        &[
            "DB-ACCEPT-001",
            "DB-FORMAT-001",
            "DB-LENGTH-001",
            "DB-SEQ-001",
            "TPL-FIELDS-001",
            "TPL-EXPAND-001",
            "TPL-EXPAND-002",
            "TPL-EXPAND-003",
            "TPL-EXPAND-004",
            "TPL-EXPAND-005",
            "TPL-EXPAND-006",
            "TPL-EXPAND-007",
            "WR-ID-001",
            "WR-EXEC-001",
            "WR-SIGNALED-001",
            "FLAG-SEND-001",
            "FLAG-SEND-002",
            "CQE-SEND-001",
            "ORD-NIC-002",
            "SND-SEG-001",
            "SND-SEG-003",
            "SND-SEG-004",
            "IMMDT-LAYOUT-001",
        ],
        |m| {
            m.requires.insert(Capability::Doorbell);
            m.requires.insert(Capability::WriteImmediate);
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 4));
    register_local(&mut r);
    r.host(0, HostCommand::SetTemplate(template(3, WrOpcode::WRITE, false)));
    r.host(0, HostCommand::SetTemplate(template(4, WrOpcode::WRITE_WITH_IMM, true)));
    r.checks(&["TPL-EXPAND-002", "TPL-EXPAND-003", "TPL-EXPAND-004", "DB-LENGTH-001"]);
    r.host(1_000, HostCommand::Doorbell { token: token(3, 0, 2, 0) });
    r.host(1_100, HostCommand::Doorbell { token: token(3, 1, 5, 20) });
    r.checks(&["TPL-EXPAND-005", "SND-SEG-004"]);
    r.host(1_200, HostCommand::Doorbell { token: token(4, 0, 1, 1) });
    inject_sack(&mut r, 5_000, 5, 0, 5, WireMark::NONE);
    r.checks(&["FLAG-SEND-001", "TPL-EXPAND-006", "TPL-EXPAND-007", "WR-SIGNALED-001"]);
    inject_ack(&mut r, 5_000, 5, 2, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// Every doorbell rejection: one error completion each, nothing else.
fn db_reject() -> Scenario {
    let mut r = sender_with(
        "db-reject",
        "Tokens that fail each doorbell check in turn (version 0 and 2, an unknown \
         template, a replayed seq, a seq ahead of the expected one, an index beyond the \
         slots, a length above max_length, a local range and a remote range past their \
         regions, a token failing two checks at once, a disabled template) each produce \
         exactly one error completion with its status and the token as wr_id, and nothing \
         else: no packet, no flag, no change of the expected seq, so the good tokens \
         between them are accepted in order. Re-enabling the template keeps its seq.",
        &[
            "DB-ORDER-001",
            "DB-VERSION-001",
            "DB-TEMPLATE-001",
            "DB-SEQ-001",
            "DB-SEQ-002",
            "DB-SEQ-003",
            "DB-INDEX-001",
            "DB-LENGTH-002",
            "DB-LENGTH-003",
            "DB-LENGTH-004",
            "DB-REJECT-001",
            "CQE-REJECT-001",
            "CQE-OPCODE-001",
            "CQE-STATUS-001",
            "FLAG-SEND-003",
            "TPL-INSTALL-003",
            "DB-ACCEPT-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Doorbell);
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 4));
    register_local(&mut r);
    // Template 3: local slots wider than remote ones, so that a long token at the last
    // slot passes the remote region but not the local one; template 4 the reverse.
    let t3 = Template {
        remote_stride: 0x8000,
        default_length: 256,
        ..template(3, WrOpcode::WRITE, true)
    };
    let t4 = Template {
        local_stride: 0x8000,
        default_length: 256,
        ..template(4, WrOpcode::WRITE, true)
    };
    r.host(0, HostCommand::SetTemplate(t3));
    r.host(0, HostCommand::SetTemplate(t4));
    let mut at = 1_000;
    let ring = |r: &mut Recorder, at: &mut u64, checks: &[&str], token: u64| {
        r.checks(checks);
        r.host(*at, HostCommand::Doorbell { token });
        *at += 500;
    };
    let v = |version: u8, t: u16, seq: u16| {
        DoorbellToken { version, template: TemplateId::new(t), seq, index: 0, length_units: 1 }
            .to_u64()
    };
    ring(&mut r, &mut at, &["DB-VERSION-001", "CQE-OPCODE-001"], v(0, 3, 0));
    ring(&mut r, &mut at, &["DB-VERSION-001", "CQE-OPCODE-001"], v(2, 3, 0));
    ring(&mut r, &mut at, &["DB-TEMPLATE-001", "CQE-OPCODE-001"], token(9, 0, 0, 1));
    ring(&mut r, &mut at, &["DB-ACCEPT-001"], token(3, 0, 0, 1));
    ring(&mut r, &mut at, &["DB-SEQ-002", "CQE-REJECT-001"], token(3, 0, 1, 1));
    ring(&mut r, &mut at, &["DB-SEQ-003", "CQE-REJECT-001"], token(3, 5, 1, 1));
    ring(&mut r, &mut at, &["DB-INDEX-001", "CQE-REJECT-001"], token(3, 1, 16, 1));
    ring(&mut r, &mut at, &["DB-LENGTH-002", "CQE-REJECT-001"], token(3, 1, 1, 0x801));
    ring(&mut r, &mut at, &["DB-LENGTH-003", "CQE-REJECT-001"], token(3, 1, 15, 0x600));
    ring(&mut r, &mut at, &["DB-LENGTH-004", "CQE-REJECT-001"], token(4, 0, 15, 0x600));
    ring(&mut r, &mut at, &["DB-ORDER-001"], token(3, 0, 16, 0x801));
    ring(&mut r, &mut at, &["DB-REJECT-001", "DB-SEQ-001"], token(3, 1, 1, 1));
    ring(&mut r, &mut at, &["DB-SEQ-001"], token(4, 0, 1, 1));
    r.host(at, HostCommand::SetTemplate(Template { enabled: false, ..t3 }));
    ring(&mut r, &mut at, &["DB-TEMPLATE-001"], token(3, 2, 2, 1));
    r.host(at, HostCommand::SetTemplate(t3));
    ring(&mut r, &mut at, &["TPL-INSTALL-003"], token(3, 2, 2, 1));
    inject_sack(&mut r, at + 3_000, 3, 0, 3, WireMark::NONE);
    r.checks(&["CQE-SEND-001", "FLAG-SEND-003"]);
    inject_ack(&mut r, at + 3_000, 3, 3, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, at + 10_000)
}

// ===== failures of a sending QP ===========================================================

/// NACK UNEXP_EVENT: the QP fails; pending messages complete FATAL_NACK then FLUSHED.
fn snd_nack_fatal() -> Scenario {
    let mut r = sender_with(
        "snd-nack-fatal",
        "With wwi_limit 1, the device sends a two-packet Write-with-Immediate; a second one \
         and a Write behind it wait. A NACK UNEXP_EVENT for PSN 1 moves the QP to the error \
         state: nothing is retransmitted or sent any more, the three messages complete at \
         once in order, the first FATAL_NACK and the others FLUSHED (the unsignaled one \
         with its completion too), each with its sender flag. A token for the QP in error \
         is accepted and completes FLUSHED at once, and a probe the CPU half commands for it \
         is not sent.",
        &[
            "SND-NACK-005",
            "NETH-REASON-002",
            "RET-FLUSH-001",
            "RET-ERR-004",
            "RET-SEND-001",
            "SND-ERR-001",
            "CQE-SEND-002",
            "CQE-SEND-003",
            "CQE-STATUS-001",
            "WR-SIGNALED-001",
            "FLAG-SEND-001",
            "FLAG-STATUS-001",
            "FLAG-LEN-001",
            "REC-IF-009",
            "REC-IF-014",
            "WWI-LIMIT-001",
            "IMMDT-LAYOUT-001",
        ],
        |m| {
            m.nic.wwi_limit = 1;
            m.requires.insert(Capability::WriteImmediate);
            m.requires.insert(Capability::Doorbell);
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 4));
    register_local(&mut r);
    r.host(0, HostCommand::SetTemplate(template(3, WrOpcode::WRITE, true)));
    r.checks(&["WWI-LIMIT-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, PMTU + 8, Some(0x10), true)));
    r.host(1_000, HostCommand::PostWrite(wr(1, 64, Some(0x11), false)));
    r.host(1_000, HostCommand::PostWrite(wr(2, 64, None, true)));
    r.checks(&["SND-NACK-005", "RET-FLUSH-001", "CQE-SEND-002"]);
    inject_nack(&mut r, 3_000, 1, NackReason::UNEXP_EVENT);
    r.checks(&["RET-ERR-004", "RET-FLUSH-001"]);
    r.host(5_000, HostCommand::Doorbell { token: token(3, 0, 4, 1) });
    r.checks(&["REC-IF-014", "SND-ERR-001"]);
    let ev = v4_evs(DUT_QP, 1)[0];
    r.cpu(6_000, CpuCommand::Probe { qpn: Qpn::new(DUT_QP), ev });
    done(r, 20_000)
}

/// Transport NAKs: the covered messages succeed, the next fails with the NAK's status.
fn snd_ack_nak() -> Scenario {
    let mut r = sender_with(
        "snd-ack-nak",
        "Per-QP retirement, two QPs. QP A sends three messages; an AETH NAK 0x62 with MSN 0 \
         completes message 0 with SUCCESS, then fails the QP: message 1 completes \
         REMOTE_ACCESS_ERROR and message 2 FLUSHED. QP B sends two messages; an AETH NAK \
         0x60 (a PSN sequence error, which MRC forbids) with MSN 0 completes message 0 and \
         fails message 1 with REMOTE_OP_ERROR.",
        &[
            "SND-ACK-003",
            "SND-ACK-006",
            "CQE-STATUS-002",
            "RET-FLUSH-001",
            "RET-SEND-001",
            "CQE-SEND-002",
            "FLAG-SEND-001",
            "FLAG-STATUS-001",
            "FLAG-LEN-001",
            "REC-IF-009",
            "SND-ERR-001",
        ],
        |m| {
            m.nic.retirement = RetirementMode::PerQp;
            m.requires.insert(Capability::PerQpRetirement);
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(QpConfig { evs: v4_evs(DUT_QP, 4), ..qp(DUT_QP, PEER_QP, 0) }));
    let b = DUT_QP + 1;
    r.host(0, HostCommand::CreateQp(QpConfig { evs: v4_evs(b, 4), ..qp(b, PEER_QP + 1, 0) }));
    for k in 0..3 {
        r.host(1_000, HostCommand::PostWrite(wr(k, 64, None, true)));
    }
    for k in 0..2 {
        let w = WorkRequest { qpn: Qpn::new(b), ..wr(10 + k, 64, None, k == 0) };
        r.host(1_000, HostCommand::PostWrite(w));
    }
    r.checks(&["SND-ACK-003", "CQE-STATUS-002"]);
    inject_ack(&mut r, 3_000, 0, 0, AethRepr::NAK_REMOTE_ACCESS);
    r.checks(&["SND-ACK-006", "CQE-STATUS-002"]);
    r.inject(4_000, 0, 0xA000_0000, &edit_qp(ack_in(0, 0, AethRepr::NAK_PSN_SEQ_ERR), b));
    done(r, 20_000)
}

/// The same packet, addressed to device QP `qpn`.
fn edit_qp(mut p: Packet, qpn: u32) -> Packet {
    match &mut p {
        Packet::Write(w) => w.bth.dest_qp = Qpn::new(qpn),
        Packet::Sack { bth, .. }
        | Packet::Nack { bth, .. }
        | Packet::Probe { bth, .. }
        | Packet::Ack { bth, .. }
        | Packet::EndpointRequest { bth, .. }
        | Packet::EndpointResponse { bth, .. } => bth.dest_qp = Qpn::new(qpn),
    }
    p
}

/// `wwi_limit` Write-with-Immediate messages in flight hold back the next one.
fn snd_wwi_limit() -> Scenario {
    let mut r = sender_with(
        "snd-wwi-limit",
        "With wwi_limit 2 the device accepts three Write-with-Immediate messages and a \
         Write: the first two go out at once; the third, and the Write behind it, wait until \
         the transport ACK of the first completes it, then go out.",
        &[
            "WWI-LIMIT-001",
            "SND-ORDER-001",
            "SND-RQMSN-002",
            "METH-RQMSN-001",
            "SND-SEG-004",
            "CQE-SEND-001",
            "IMMDT-LAYOUT-001",
        ],
        |m| {
            m.nic.wwi_limit = 2;
            m.requires.insert(Capability::WriteImmediate);
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 4));
    r.checks(&["WWI-LIMIT-001", "SND-RQMSN-002"]);
    for k in 0..3u32 {
        r.host(1_000, HostCommand::PostWrite(wr(k, 64, Some(0x20 + k), true)));
    }
    r.host(1_000, HostCommand::PostWrite(wr(3, 64, None, true)));
    inject_sack(&mut r, 5_000, 1, 0, 1, WireMark::NONE);
    r.checks(&["WWI-LIMIT-001", "SND-ORDER-001"]);
    inject_ack(&mut r, 5_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    inject_sack(&mut r, 8_000, 3, 0, 3, WireMark::NONE);
    r.checks(&["CQE-SEND-001"]);
    inject_ack(&mut r, 8_000, 3, 3, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

// ===== requesters facing a reference peer =================================================

/// A requester facing a reference peer over four paths of equal delay.
fn paired(name: &str, description: &str, reqs: &[&str], f: impl FnOnce(&mut Manifest)) -> Recorder {
    let mut m = manifest(
        name,
        description,
        reqs,
        &[Capability::Requester, Capability::CpuSplit, Capability::Ipv4],
    );
    m.nic.retirement = RetirementMode::PerQp;
    // As in `snd_loss`: a device may infer a loss later than the reference did, or leave
    // it to the timeout.
    m.tolerances.late_ns = m.recovery.rto.as_nanos() as u64 + 8_000;
    f(&mut m);
    let mut r = Recorder::new(m);
    r.paths((0..4).map(|_| Path { delay: 500, dark: None }).collect());
    r.with_peer();
    r
}

/// Sets up one QP pair whose EVs IPv4 carries whole (`ENC-EV-002`), so that the EVs the
/// peer reflects name the device's EVs. (They all map to port 0: their bits 15:0 are 0.)
fn setup_v4_pair(r: &mut Recorder, psn: u32) {
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig { evs: v4_evs(DUT_QP, 8), ..qp(DUT_QP, PEER_QP, psn) }),
    );
    r.peer_host(0, HostCommand::RegisterRegion(region()));
    r.peer_host(
        0,
        HostCommand::CreateQp(QpConfig { evs: v4_evs(PEER_QP, 8), ..qp(PEER_QP, DUT_QP, psn) }),
    );
}

/// Posts `n` messages of `len` bytes on the device's QP at `at`.
fn post_messages(r: &mut Recorder, at: u64, n: u32, len: u32) {
    for k in 0..n {
        r.host(at, HostCommand::PostWrite(wr(k, len, None, true)));
    }
}

/// The SACK and the ACK of the only message are lost: the timeout repairs both.
fn snd_lost_sack() -> Scenario {
    let mut r = paired(
        "snd-lost-sack",
        "The device sends a two-packet message to a reference peer; the peer's SACK and \
         transport ACK are both lost. Only the timeout helps: the CPU half commands a \
         retransmission of the oldest unacknowledged PSN, the device resends it (rtx, \
         another EV), the peer answers the duplicate with a SACK and the ACK again, and the \
         message completes. The CPU half probes the EV it blamed, and the device sends the \
         probe.",
        &[
            "REC-IF-010",
            "REC-RTO-004",
            "EV-PROBE-005",
            "REC-IF-011",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |_| {},
    );
    setup_v4_pair(&mut r, 1);
    r.drop_ack(DUT_QP, 0).drop_ack(DUT_QP, 1);
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    post_messages(&mut r, 1_000, 1, 2 * PMTU);
    // The CPU half then probes the EV it blamed for the timeout.
    r.run_until(40_000);
    r.checks(&["EV-PROBE-005", "REC-IF-011"]);
    done(r, 60_000)
}

/// The transport ACK of the last message is lost: the tail packet is resent.
fn snd_lost_ack() -> Scenario {
    let mut r = paired(
        "snd-lost-ack",
        "The device sends two messages to a reference peer; every packet arrives and is \
         SACKed, but the transport ACK of the second message is lost. With nothing \
         outstanding and a message awaiting its ACK, the timeout makes the device resend \
         the message's last packet once (rtx), which the peer answers with the ACK again.",
        &[
            "REC-IF-010",
            "REC-RTO-004",
            "SND-ACK-001",
            "SND-ACK-005",
            "CQE-SEND-001",
            "CQE-SEND-003",
        ],
        |_| {},
    );
    setup_v4_pair(&mut r, 1);
    // Per message the peer sends its transport ACK, then its SACK: the third
    // acknowledgement is the second message's ACK.
    r.drop_ack(DUT_QP, 2);
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    post_messages(&mut r, 1_000, 2, 512);
    done(r, 60_000)
}

/// The last packet of the last message is lost: no later packet reveals it.
fn snd_timeout_loss() -> Scenario {
    let mut r = paired(
        "snd-timeout-loss",
        "The device sends four two-packet messages to a reference peer; the first \
         transmission of the very last packet is lost, so no later packet can reveal the \
         loss. The timeout makes the device retransmit it (rtx, another EV); the CPU half \
         assumes the lost packet's EV bad and probes it, the device sends the probes, and \
         the peer's answer makes the EV good again.",
        &[
            "REC-IF-010",
            "REC-RTO-004",
            "REC-IF-011",
            "EV-PROBE-005",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
        },
    );
    setup_v4_pair(&mut r, 0);
    r.drop_data(&[(PEER_QP, 7)]);
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    post_messages(&mut r, 1_000, 4, 2 * PMTU);
    r.run_until(40_000);
    r.checks(&["EV-PROBE-005", "REC-IF-011"]);
    done(r, 80_000)
}

/// A path goes dark and comes back.
fn snd_dark_path() -> Scenario {
    let mut r = paired(
        "snd-dark-path-v6",
        "Over IPv6 the device sends four two-packet messages to a reference peer over four \
         paths; the second path is dark for 60 us, so the packets of its two EVs are lost, \
         and, with no later packet on those EVs, only timeouts reveal it. Each timeout \
         makes the device retransmit the oldest lost PSN on another EV and the CPU half \
         assume the lost packet's EV bad; the device sends the probes the CPU half \
         commands, the first ones are lost too, and once the path is back a probe is \
         answered and the EV is good again.",
        &[
            "REC-IF-010",
            "REC-RTO-004",
            "REC-IF-011",
            "EV-PROBE-005",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
            "ENC-IPV6-001",
        ],
        |m| {
            m.link = v6_link();
            m.requires.remove(&Capability::Ipv4);
            m.requires.insert(Capability::Ipv6);
            m.requires.insert(Capability::Paths);
        },
    );
    r.paths(
        (0..4u64).map(|p| Path { delay: 500, dark: (p == 1).then_some((1_000, 61_000)) }).collect(),
    );
    setup(&mut r, 0, true);
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    post_messages(&mut r, 1_000, 4, 2 * PMTU);
    // First timeout at about 34 us, probes every 10 us from about 44 us, the second
    // timeout at about 68 us, then a probe of the second EV.
    r.run_until(40_000);
    r.checks(&["EV-PROBE-005", "REC-IF-011"]);
    r.run_until(66_000);
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    r.run_until(72_000);
    r.checks(&["EV-PROBE-005", "REC-IF-011"]);
    done(r, 100_000)
}

/// No acknowledgement ever comes: the retry limit ends the QP.
fn ret_retry_exceeded() -> Scenario {
    let mut r = sender_with(
        "ret-retry-exceeded",
        "The device sends two messages and nothing ever answers. The CPU half times out \
         with back-off (rto 2 us, doubling, at most 8 us), commands a retransmission at \
         each expiry, which the device sends (or holds when no EV is usable), and after the \
         fourth expiry exceeds retry_limit 3 and ends the QP: both messages complete at \
         once, RETRY_EXCEEDED then FLUSHED, and the device sends nothing more.",
        &[
            "REC-IF-010",
            "REC-IF-013",
            "REC-RTO-004",
            "RET-FLUSH-001",
            "CQE-SEND-002",
            "CQE-STATUS-001",
            "FLAG-SEND-001",
            "FLAG-STATUS-001",
            "SND-ERR-001",
            "REC-IF-009",
            "REC-IF-011",
            "EV-PROBE-005",
        ],
        |m| {
            m.requires.insert(Capability::CpuSplit);
            m.requires.insert(Capability::Paths);
            m.recovery.rto = std::time::Duration::from_micros(2);
            m.recovery.rto_max = std::time::Duration::from_micros(8);
            m.recovery.backoff = 2;
            m.recovery.retry_limit = 3;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 4));
    r.checks(&["REC-IF-010", "REC-RTO-004"]);
    post_messages(&mut r, 1_000, 2, 512);
    // Expiries at 3, 7, 15 and 23 us (the last exceeds the limit); probes of the EVs
    // blamed at 13 and 17 us.
    for (at, ids) in [
        (12_000, ["EV-PROBE-005", "REC-IF-011"]),
        (14_000, ["REC-IF-010", "REC-RTO-004"]),
        (16_000, ["EV-PROBE-005", "REC-IF-011"]),
    ] {
        r.run_until(at);
        r.checks(&ids);
    }
    r.run_until(20_000);
    r.checks(&["REC-IF-013", "RET-FLUSH-001", "CQE-SEND-002"]);
    done(r, 60_000)
}

// ===== what a receiver accepts and what it does not take as RoCEv2 =======================

/// The frame of `packet` from the peer on the default link, changed by `f` after its
/// lengths and checksums are made consistent and changed by `g` after that (for fields
/// that `finalize` would reset).
fn crafted(
    packet: &Packet,
    ev: impl Into<Ev>,
    f: impl FnOnce(&mut FrameRepr),
    g: impl FnOnce(&mut FrameRepr),
) -> Vec<u8> {
    crafted_on(&Link::default(), packet, ev, f, g)
}

/// [`crafted`] on another link.
fn crafted_on(
    link: &Link,
    packet: &Packet,
    ev: impl Into<Ev>,
    f: impl FnOnce(&mut FrameRepr),
    g: impl FnOnce(&mut FrameRepr),
) -> Vec<u8> {
    let ev = ev.into();
    let outer = Outer::from_link(&link.reversed());
    let mut frame =
        packet.to_frame(&outer, ev, &mut |a, l| memory(a, l)).expect("a builder's packet");
    f(&mut frame);
    frame.finalize().expect("consistent");
    g(&mut frame);
    frame.to_bytes().expect("emit")
}

/// Reserved and unusual values a receiver must accept; frames that are not RoCEv2.
fn rcv_lenient() -> Scenario {
    let mut r = responder(
        "rcv-lenient",
        "One-packet messages arrive with what a receiver must not reject: a non-zero BTH \
         tver, FECN, BECN and reserved bits; a TSETH with another ftype and reserved bits \
         set; non-zero pad bytes; IPv4 options; Ethernet padding after the IP packet; an \
         802.1ad tag (TPID 0x88A8). Each is placed and retired. Frames that are not RoCEv2 \
         for this QP (an IPv4 fragment, another UDP destination port, an RC opcode) are \
         ignored without response, and the same PSNs then arrive properly and are placed.",
        &[
            "BTH-TVER-001",
            "BTH-RESV-002",
            "DEC-RESV-001",
            "TSETH-FTYPE-001",
            "PAY-PAD-002",
            "ENC-IPV4-006",
            "ENC-LEN-003",
            "ENC-VLAN-002",
            "ENC-IPV4-002",
            "ENC-UDP-001",
            "ENC-ROCE-001",
            "RCV-OPC-001",
            "RCV-PLACE-003",
            "RET-ORDER-001",
        ],
    );
    setup(&mut r, 0, false);
    let one = |psn: u32, len: u32| {
        write(
            psn,
            psn as u16,
            Opcode::MRC_WRITE_ONLY,
            0,
            len,
            len,
            REGION + u64::from(psn) * 0x1000,
            None,
        )
    };
    let ev = 0xA000_0000;
    let nothing = |_: &mut FrameRepr| {};
    r.checks(&["BTH-TVER-001", "BTH-RESV-002", "DEC-RESV-001"]);
    let b = crafted(
        &one(0, 64),
        ev,
        |f| {
            f.bth.tver = 1;
            f.bth.fecn = true;
            f.bth.becn = true;
            f.bth.resv6 = 0x3F;
            f.bth.resv8 = 0x4F;
        },
        nothing,
    );
    r.inject_bytes(1_000, 0, b);
    r.checks(&["TSETH-FTYPE-001", "DEC-RESV-001"]);
    let b = crafted(
        &one(1, 64),
        ev,
        |f| {
            if let Some(t) = f.ext.tseth.as_mut() {
                t.ftype = 5;
                t.tsr = true;
                t.resv = 0x7FF;
            }
        },
        nothing,
    );
    r.inject_bytes(2_000, 0, b);
    r.checks(&["PAY-PAD-002"]);
    r.inject_bytes(3_000, 0, crafted(&one(2, 61), ev, nothing, |f| f.pad = [0xAA; 3]));
    r.checks(&["ENC-IPV4-006"]);
    let b = crafted(
        &one(3, 64),
        ev,
        |f| {
            if let IpRepr::V4(v4) = &mut f.ip {
                v4.ihl = 6;
                v4.options = vec![1, 1, 1, 0];
            }
        },
        nothing,
    );
    r.inject_bytes(4_000, 0, b);
    r.checks(&["ENC-LEN-003"]);
    r.inject_bytes(5_000, 0, crafted(&one(4, 4), ev, nothing, |f| f.eth_padding = vec![0x55; 20]));
    r.checks(&["ENC-VLAN-002"]);
    let b = crafted(
        &one(5, 64),
        ev,
        |f| {
            f.vlans = vec![VlanRepr { pcp: 0, dei: false, vid: 42, ethertype: EtherType::IPV4 }];
            f.eth.ethertype = EtherType::QINQ;
        },
        nothing,
    );
    r.inject_bytes(6_000, 0, b);
    r.checks(&["ENC-IPV4-002"]);
    let b = crafted(
        &one(6, 64),
        ev,
        |f| {
            if let IpRepr::V4(v4) = &mut f.ip {
                v4.more_frags = true;
            }
        },
        nothing,
    );
    r.inject_bytes(7_000, 0, b);
    r.checks(&["ENC-UDP-001", "ENC-ROCE-001"]);
    r.inject_bytes(7_500, 0, crafted(&one(6, 64), ev, |f| f.udp.dst_port = 4792, nothing));
    r.checks(&["RCV-PLACE-003"]);
    r.inject(8_000, 0, ev, &one(6, 64));
    r.checks(&["RCV-OPC-001"]);
    let b = crafted(
        &one(7, 64),
        ev,
        |f| {
            f.bth.opcode = Opcode(0x0A);
            f.bth.ts = false;
            f.ext.meth = None;
            f.ext.tseth = None;
        },
        nothing,
    );
    r.inject_bytes(9_000, 0, b);
    r.checks(&["RCV-PLACE-003"]);
    r.inject(10_000, 0, ev, &one(7, 64));
    done(r, 20_000)
}

// ===== windows and congestion control =====================================================

/// A SACK with `mpr` changed.
fn with_mpr(mut p: Packet, mpr: u8) -> Packet {
    if let Packet::Sack { seth, .. } = &mut p {
        seth.mpr = mpr;
    }
    p
}

/// The peer's SACK shrinks the window; the sender never sends past it.
fn snd_window() -> Scenario {
    let mut r = sender_with(
        "snd-window",
        "With mpr 2 (a window of 256 PSNs) and a PMTU of 256, a one-packet message is \
         SACKed with mpr 1: the peer's window becomes 128 PSNs. A message of 135 packets \
         then sends PSNs 1 to 128 only; a SACK with cumulative PSN 3 and mpr 0 (which \
         leaves the window as it is) lets PSNs 129 to 131 go, and one with cumulative PSN \
         10 the rest.",
        &[
            "SND-WIN-001",
            "SND-WIN-002",
            "SETH-MPR-001",
            "SND-SACK-001",
            "SND-SEG-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.nic.mpr = 2;
            m.nic.pmtu = 256;
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 4));
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.run_until(2_000);
    let ev = r.sent_ev(PEER_QP, 0).expect("sent");
    r.inject(2_000, 0, ev, &sack_in(0, 0, 0, WireMark::NONE, ev));
    inject_ack(&mut r, 2_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    r.checks(&["SND-WIN-001", "SND-WIN-002"]);
    r.host(3_000, HostCommand::PostWrite(wr(1, 135 * 256, None, true)));
    r.run_until(6_000);
    let ev = r.sent_ev(PEER_QP, 3).expect("sent");
    r.checks(&["SND-WIN-001", "SND-WIN-002", "SND-SACK-001"]);
    r.inject(6_000, 0, ev, &with_mpr(sack_in(3, 0, 3, WireMark::NONE, ev), 0));
    r.checks(&["SND-WIN-001", "SETH-MPR-001", "SND-SACK-001"]);
    inject_sack(&mut r, 8_000, 10, 0, 10, WireMark::NONE);
    inject_sack(&mut r, 9_000, 135, 0, 135, WireMark::NONE);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_ack(&mut r, 9_000, 135, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// A fixed congestion window, released by the bitmap of a SACK; SACKs that acknowledge
/// what was never sent change nothing.
fn snd_cc_sack() -> Scenario {
    let mut r = sender_with(
        "snd-cc-sack",
        "The QP's congestion hook is a fixed window of four PMTUs: an eleven-packet \
         message sends PSNs 0 to 3. A SACK claiming PSN 20 (never sent) and a SACK whose \
         sack_offset lies beyond any window are discarded and open nothing. A NACK \
         PSN_OOR_WINDOW queues PSN 0 for retransmission after the back-off; a SACK whose \
         bitmap reports PSNs 1 to 3 then frees three packets' worth of window, and PSNs 4 \
         to 6 go at once; the retransmission of PSN 0 goes when due although the window is \
         full. Cumulative SACKs release the rest.",
        &[
            "SND-CC-001",
            "SND-SACK-001",
            "SND-SACK-002",
            "SND-SACK-003",
            "SND-SACK-004",
            "SND-WIN-003",
            "SND-NACK-004",
            "SND-RTX-001",
            "SND-RTX-002",
            "BTH-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.nic.nack_backoff = std::time::Duration::from_micros(2);
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs: v4_evs(DUT_QP, 4),
            cc: CongestionControl::FixedWindow { bytes: u64::from(4 * PMTU) },
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    r.checks(&["SND-CC-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 11 * PMTU, None, true)));
    r.checks(&["SND-SACK-003"]);
    inject_sack(&mut r, 1_500, 20, 0, 3, WireMark::NONE);
    r.checks(&["SND-SACK-004"]);
    r.run_until(1_800);
    let ev = r.sent_ev(PEER_QP, 3).expect("sent");
    let mut wild = sack_in(0xFF_FFFF, u64::MAX, 3, WireMark::NONE, ev);
    if let Packet::Sack { seth, .. } = &mut wild {
        seth.sack_offset = 1_000;
    }
    r.inject(1_800, 0, ev, &wild);
    r.checks(&["SND-NACK-004", "SND-WIN-003"]);
    inject_nack(&mut r, 2_000, 0, NackReason::PSN_OOR_WINDOW);
    r.checks(&["SND-SACK-002", "SND-CC-001"]);
    inject_sack(&mut r, 3_000, 0xFF_FFFF, 0b1110, 3, WireMark::NONE);
    r.checks(&["SND-SACK-001", "SND-CC-001"]);
    inject_sack(&mut r, 5_000, 6, 0, 6, WireMark::NONE);
    inject_sack(&mut r, 7_000, 10, 0, 10, WireMark::NONE);
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_ack(&mut r, 7_000, 10, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// IPv6 frames a receiver must accept.
fn rcv_lenient_v6() -> Scenario {
    let mut m = manifest(
        "rcv-lenient-v6",
        "Over IPv6, a write whose UDP checksum is 0 and a write whose flow label has bits \
         19:16 set (which carry no part of the EV) are accepted and placed like any other; \
         the SACK of the second reflects its EV without those bits.",
        &["ENC-UDP-004", "ENC-IPV6-001", "ENC-EV-001", "RCV-PLACE-003", "RET-ORDER-001"],
        &[Capability::Responder, Capability::Retirement, Capability::Ipv6],
    );
    m.link = v6_link();
    let link = m.link.clone();
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    let ev = 0xA000_0123;
    let nothing = |_: &mut FrameRepr| {};
    r.checks(&["ENC-UDP-004", "RCV-PLACE-003"]);
    let p0 = write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None);
    r.inject_bytes(1_000, 0, crafted_on(&link, &p0, ev, nothing, |f| f.udp.checksum = 0));
    r.checks(&["ENC-EV-001", "RCV-PLACE-003"]);
    let p1 = write(1, 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x1000, None);
    let b = crafted_on(
        &link,
        &p1,
        ev,
        |f| {
            if let IpRepr::V6(v6) = &mut f.ip {
                v6.flow_label |= 0xF_0000;
            }
        },
        nothing,
    );
    r.inject_bytes(2_000, 0, b);
    done(r, 20_000)
}

// ===== retirement flags ====================================================================

/// Retirement flags wrap around a QP's slots; a QP with a slot count that is not a power
/// of two has none.
fn rcv_flag_slots() -> Scenario {
    let mut m = manifest(
        "rcv-flag-slots",
        "Per-QP retirement. QP A has four retirement flag slots: its six one-packet \
         messages write their flags at slots 0, 1, 2, 3, 0, 1, each with generation = MSN, \
         SUCCESS, the byte count, valid set and reserved bits clear. QP B has three slots, \
         not a power of two, so its messages retire without any flag.",
        &[
            "FLAG-RECV-001",
            "FLAG-RECV-002",
            "RET-FLAG-001",
            "FLAG-LAYOUT-001",
            "FLAG-VALID-001",
            "FLAG-RESV-001",
            "FLAG-TABLE-001",
            "FLAG-LEN-001",
            "RET-DOMAIN-003",
            "RCV-ACK-002",
        ],
        &[
            Capability::Responder,
            Capability::Retirement,
            Capability::PerQpRetirement,
            Capability::Ipv4,
        ],
    );
    m.nic.retirement = RetirementMode::PerQp;
    let mut r = Recorder::new(m);
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(0, HostCommand::CreateQp(QpConfig { recv_flag_slots: 4, ..qp(DUT_QP, PEER_QP, 0) }));
    let b = DUT_QP + 1;
    r.host(0, HostCommand::CreateQp(QpConfig { recv_flag_slots: 3, ..qp(b, PEER_QP + 1, 0) }));
    r.checks(&["FLAG-RECV-001", "FLAG-LAYOUT-001"]);
    for k in 0..6u32 {
        let len = 32 + 8 * k;
        let p = write(
            k,
            k as u16,
            Opcode::MRC_WRITE_ONLY,
            0,
            len,
            len,
            REGION + u64::from(k) * 0x100,
            None,
        );
        r.inject(1_000 + 500 * u64::from(k), (k % 4) as u16, 0xA000_0000 + (k % 4) * 0x1_0000, &p);
    }
    r.checks(&["RET-FLAG-001"]);
    for k in 0..2u32 {
        let p = edit_qp(
            write(
                k,
                k as u16,
                Opcode::MRC_WRITE_ONLY,
                0,
                64,
                64,
                REGION + 0x8_0000 + u64::from(k) * 0x100,
                None,
            ),
            b,
        );
        r.inject(5_000 + 500 * u64::from(k), 0, 0xA000_0000, &p);
    }
    done(r, 20_000)
}

// ===== templates the NIC refuses ==========================================================

/// Templates that break a `TPL-*` rule are not installed: tokens naming them are unknown.
fn db_bad_templates() -> Scenario {
    let mut r = sender_with(
        "db-bad-templates",
        "Software tries to install templates that each break one rule: a reserved QPN, an \
         unknown opcode, no slots, a length unit that is not a power of two, a max_length \
         above 2^31, a default_length above max_length, a region that wraps the address \
         space, slots that do not fit their region, flag slots past 2^32. The NIC installs \
         none of them: a token naming each is rejected UnknownTemplate, and a valid \
         template installed last works.",
        &[
            "TPL-INSTALL-001",
            "TPL-QPN-001",
            "TPL-OPCODE-001",
            "TPL-SLOTS-001",
            "TPL-UNIT-001",
            "TPL-LEN-001",
            "TPL-LEN-002",
            "TPL-REGION-001",
            "TPL-REGION-002",
            "TPL-FLAG-001",
            "DB-TEMPLATE-001",
            "CQE-REJECT-001",
            "CQE-OPCODE-001",
            "DB-ACCEPT-001",
        ],
        |m| {
            m.requires.insert(Capability::Doorbell);
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 4));
    register_local(&mut r);
    let base = |id: u16| template(id, WrOpcode::WRITE, true);
    let bad: [(&str, Template); 9] = [
        ("TPL-QPN-001", Template { qpn: Qpn::new(2), ..base(10) }),
        ("TPL-OPCODE-001", Template { opcode: WrOpcode(5), ..base(11) }),
        ("TPL-SLOTS-001", Template { slots: 0, ..base(12) }),
        ("TPL-UNIT-001", Template { length_unit: 48, ..base(13) }),
        ("TPL-LEN-001", Template { max_length: (1 << 31) + 1, ..base(14) }),
        ("TPL-LEN-002", Template { default_length: 0x3_0000, ..base(15) }),
        ("TPL-REGION-001", Template { local_base: u64::MAX - 0x1000, ..base(16) }),
        ("TPL-REGION-002", Template { local_region_len: 0x8_0000, ..base(17) }),
        ("TPL-FLAG-001", Template { flag_base_slot: u32::MAX - 4, ..base(18) }),
    ];
    let mut at = 1_000;
    for (id, t) in bad {
        r.host(at, HostCommand::SetTemplate(t));
        r.checks(&[id, "TPL-INSTALL-001"]);
        r.host(at + 100, HostCommand::Doorbell { token: token(t.template_id.value(), 0, 0, 1) });
        at += 500;
    }
    r.host(at, HostCommand::SetTemplate(base(19)));
    r.checks(&["DB-ACCEPT-001"]);
    r.host(at + 100, HostCommand::Doorbell { token: token(19, 0, 0, 1) });
    inject_sack(&mut r, at + 2_000, 0, 0, 0, WireMark::NONE);
    inject_ack(&mut r, at + 2_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, at + 10_000)
}

// ===== EVs a controller denies ============================================================

/// A denied EV is left only by a controller's allow.
fn snd_ev_deny() -> Scenario {
    let mut r = sender_with(
        "snd-ev-deny",
        "The QP has one EV, which a controller denies (SetEvState DENIED). A message then \
         waits: a probe answer naming the EV (m = NONE) does not bring it back. When the \
         controller allows it (SetEvState GOOD) the message goes out at once.",
        &[
            "EV-DENY-001",
            "EV-DENY-002",
            "EV-STATE-002",
            "EV-STATE-003",
            "REC-IF-012",
            "EV-STATE-001",
            "SND-PATH-002",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.requires.insert(Capability::CpuSplit);
        },
    );
    let evs = v4_evs(DUT_QP, 1);
    let e0 = evs[0];
    setup_evs(&mut r, 0, evs);
    let qpn = Qpn::new(DUT_QP);
    r.cpu(1_000, CpuCommand::SetEvState { qpn, ev: e0, state: EvState::Denied });
    r.checks(&["EV-DENY-001", "SND-PATH-002"]);
    r.host(2_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    r.checks(&["EV-DENY-002"]);
    r.inject(3_000, 0, e0, &probe_answer(0xFF_FFFF, 1, WireMark::NONE, e0));
    r.run_until(6_000);
    r.checks(&["EV-DENY-002", "EV-STATE-003", "REC-IF-012"]);
    r.cpu(6_000, CpuCommand::SetEvState { qpn, ev: e0, state: EvState::Good });
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 8_000, 0, 0, 0, WireMark::NONE);
    inject_ack(&mut r, 8_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}
