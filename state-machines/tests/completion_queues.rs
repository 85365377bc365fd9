//! Completion queues and local keys in the reference model, one requirement at a time
//! (`spec/host-interface.md` sections 3 and 5.3): where each entry goes in its ring and with
//! which phase, the consumer register, a full queue, the routing of rejected tokens, the
//! NIC's timestamps, and the local key of a template.

mod script;

use openrdma_codec::host::{
    COMPLETION_LEN, CompletionRepr, CompletionStatus, DoorbellToken, Template, WrOpcode,
};
use openrdma_codec::{AethRepr, Lkey, Msn, Opcode, Qpn, TemplateId};
use openrdma_device::CqId;
use openrdma_sm::{
    ApiMisuse, CompletionEvent, CqConfig, CqState, CqWrite, DoorbellRejected, HostCommand,
    HostError, LocalRegion, NicEvent, NicReport, QpConfig, Side, Timestamp,
};
use script::*;

const ONLY: Opcode = Opcode::MRC_WRITE_ONLY;
const ONLY_IMM: Opcode = Opcode::MRC_WRITE_ONLY_IMM;
const SUCCESS: CompletionStatus = CompletionStatus::SUCCESS;

/// Slot 0 of the scripts' first completion queue.
const CQ_BASE: u64 = 0x6000_0000;
/// Slot 0 of the second.
const CQ2_BASE: u64 = 0x6100_0000;

fn lqp() -> Qpn {
    Qpn::new(LQP)
}

fn create_cq(cq: u32, base: u64, entries: u32) -> HostCommand {
    HostCommand::CreateCq(CqConfig { cq: CqId::new(cq), base, entries })
}

/// A NIC whose QP reports to completion queue 1 (N = `entries`) on both sides.
fn with_cq(entries: u32) -> Script {
    Script::with_setup(
        config(),
        vec![create_cq(1, CQ_BASE, entries)],
        QpConfig {
            send_cq: Some(CqId::new(1)),
            recv_cq: Some(CqId::new(1)),
            ..qp_config(LQP, PEER, 0, 0)
        },
    )
}

/// Sends 64-byte message `k` (PSN k, MSN k) and lets the peer acknowledge it; returns its
/// completion. The sender flag follows the entry (`ORD-SEND-001`).
fn send_and_ack(s: &mut Script, k: u32) -> CompletionEvent {
    s.post(wr(64, u64::from(k) * 0x100, k));
    s.expect_data(k, ONLY);
    s.advance(100);
    s.accept_ctrl(sack(k, 1, 0));
    s.accept_ctrl(aeth(AethRepr::ACK, k as u16));
    let c = s.expect_completion_event(Side::Requester, SUCCESS);
    s.expect_send_flag(k, 7, SUCCESS, 64);
    s.expect_no_events();
    s.drop_reports();
    s.advance(100);
    c
}

/// The place of an entry, and checks that the event's bytes are its entry as written.
fn place(c: &CompletionEvent) -> (u32, u32, u64, bool) {
    let q: CqWrite = c.queue.unwrap_or_else(|| panic!("not written to a queue: {c:?}"));
    let mut bytes = [0u8; COMPLETION_LEN];
    c.entry.emit(&mut bytes).expect("the model's entries emit");
    assert_eq!(q.bytes, bytes, "CQE-LAYOUT-001: the bytes written are the entry");
    assert_eq!(q.entry(), c.entry, "the bytes decode to the entry");
    assert_eq!(q.addr % 32, 0, "CQE-RING-003: a naturally aligned 32-byte write");
    (q.cq.value(), q.slot, q.addr, c.entry.phase)
}

/// CQE-RING-001, CQE-RING-004, CQE-TS-001: the k-th entry of a queue of 4 goes to slot
/// k mod 4, at the base plus 32 bytes a slot, with phase 1 on the first pass and 0 on the
/// second; released slots are written again; every entry carries the NIC's clock.
#[test]
fn cqe_ring_001_slots_and_phases_follow_the_count() {
    let mut s = with_cq(4);
    let mut got = Vec::new();
    for k in 0..6 {
        if k == 4 {
            // The consumer has consumed the first pass: its slots are free again.
            s.host(HostCommand::CqConsumer { cq: CqId::new(1), consumed: 4 }).expect("release");
        }
        let c = send_and_ack(&mut s, k);
        assert!(c.entry.has_timestamp, "CQE-TS-001: the model has a clock");
        assert_eq!(c.entry.timestamp, (s.now.0 - 100) as u32, "CQE-TS-001: the time of the write");
        got.push(place(&c));
    }
    let want: Vec<(u32, u32, u64, bool)> = [(0, true), (1, true), (2, true), (3, true), (0, false)]
        .into_iter()
        .chain([(1, false)])
        .map(|(slot, phase)| (1, slot, CQ_BASE + 32 * u64::from(slot), phase))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        s.nic.cq_state(CqId::new(1)),
        Some(CqState { written: 6, consumed: 4, stopped: false }),
        "the count and the consumer register"
    );
}

/// CQE-ROUTE-001: receive completions go to the QP's receive queue, sender completions to
/// its send queue, each queue counting its own entries.
#[test]
fn cqe_route_001_each_side_to_its_queue() {
    let mut s = Script::with_setup(
        config(),
        vec![create_cq(1, CQ_BASE, 8), create_cq(2, CQ2_BASE, 2)],
        QpConfig {
            send_cq: Some(CqId::new(1)),
            recv_cq: Some(CqId::new(2)),
            ..qp_config(LQP, PEER, 0, 0)
        },
    );
    for m in 0..3u16 {
        let psn = u32::from(m);
        s.accept(write(psn, m, ONLY_IMM, REGION_BASE + 0x100 * u64::from(m), 8).imm(9).ack_req());
        s.expect_dma(REGION_BASE + 0x100 * u64::from(m), 8);
        let c = s.expect_completion_event(Side::Responder, SUCCESS);
        let slot = u32::from(m) % 2;
        assert_eq!(place(&c), (2, slot, CQ2_BASE + 32 * u64::from(slot), m < 2));
        s.expect_flag_len(m, 8);
        s.take_tx();
        s.advance(100);
        s.host(HostCommand::CqConsumer { cq: CqId::new(2), consumed: u32::from(m) + 1 })
            .expect("release");
    }
    let c = send_and_ack(&mut s, 0);
    assert_eq!(place(&c), (1, 0, CQ_BASE, true), "the send queue's first entry");
}

/// CQE-RING-004, RET-ERR-002, RET-FLUSH-001: a completion that finds no free slot is not
/// written; the queue stops, and every QP that reports to it enters the error state once
/// the input is handled, after the completions that input produced: pending work completes
/// FLUSHED, its entries unwritten but its flags written. A consumer write does not restart
/// the queue.
#[test]
fn cqe_ring_004_a_full_queue_stops_and_fails_its_qps() {
    let mut s = with_cq(2);
    let qp_b = QpConfig { send_cq: Some(CqId::new(1)), ..qp_config(LQP_B, PEER_B, 0, 0) };
    s.host(HostCommand::CreateQp(qp_b)).expect("a second QP on the queue");
    for k in 0..4 {
        s.post(wr(64, u64::from(k) * 0x100, k));
        s.expect_data(k, ONLY);
    }
    s.post(openrdma_codec::host::WorkRequest { qpn: Qpn::new(LQP_B), ..wr(64, 0x800, 9) });
    s.take_tx();
    s.drop_reports();
    s.advance(1_000);
    s.accept_ctrl(sack(3, 1, 0));
    // The ACK covers messages 0 to 2: two entries fit, the third finds the queue full.
    s.accept_ctrl(aeth(AethRepr::ACK, 2));
    for k in 0..2 {
        let c = s.expect_completion_event(Side::Requester, SUCCESS);
        assert_eq!(place(&c), (1, k, CQ_BASE + 32 * u64::from(k), true));
        s.expect_send_flag(k, 7, SUCCESS, 64);
    }
    s.expect_send_flag(2, 7, SUCCESS, 64);
    // Then both QPs fail: the pending message of each completes FLUSHED, flag only.
    s.expect_send_flag(3, 7, CompletionStatus::FLUSHED, 0);
    s.expect_send_flag(9, 7, CompletionStatus::FLUSHED, 0);
    s.expect_no_events();
    let errors: Vec<NicReport> =
        s.take_reports().into_iter().filter(|r| matches!(r, NicReport::QpError { .. })).collect();
    let error = |qpn| NicReport::QpError { qpn: Qpn::new(qpn), requirement: "CQE-RING-004".into() };
    assert_eq!(errors, [error(LQP), error(LQP_B)], "REC-IF-009: each QP reports the cause");
    assert_eq!(s.nic.qp_in_error(lqp()), Some(true));
    assert_eq!(s.nic.qp_in_error(Qpn::new(LQP_B)), Some(true));
    assert_eq!(
        s.nic.cq_state(CqId::new(1)),
        Some(CqState { written: 2, consumed: 0, stopped: true })
    );
    assert_eq!(s.nic.stats().completions_dropped, 3);

    s.host(HostCommand::CqConsumer { cq: CqId::new(1), consumed: 2 })
        .expect("the register is written");
    // A token for a failed QP completes FLUSHED (RET-FLUSH-001); its entry is not written.
    s.host(HostCommand::SetTemplate(template(5))).expect("template");
    s.doorbell(DoorbellToken::new(TemplateId::new(5), 0, 1, 0).to_u64()).expect("accepted");
    s.expect_send_flag(9, 0, CompletionStatus::FLUSHED, 0);
    s.expect_nothing();
    assert_eq!(
        s.nic.cq_state(CqId::new(1)),
        Some(CqState { written: 2, consumed: 2, stopped: true })
    );
}

/// CQE-RING-004: a queue that finds no free slot fails the QPs that report to it and no
/// other; a QP whose entries go to another queue stays out of the error state.
#[test]
fn cqe_ring_004_a_full_queue_fails_only_its_own_qps() {
    let mut s = with_cq(2);
    s.host(create_cq(2, CQ_BASE + 0x1000, 4)).expect("a second queue");
    let qp_b = QpConfig {
        send_cq: Some(CqId::new(2)),
        recv_cq: Some(CqId::new(2)),
        ..qp_config(LQP_B, PEER_B, 0, 0)
    };
    s.host(HostCommand::CreateQp(qp_b)).expect("a QP on the second queue");
    for k in 0..3 {
        s.post(wr(64, u64::from(k) * 0x100, k));
        s.expect_data(k, ONLY);
    }
    s.take_tx();
    s.drop_reports();
    s.advance(1_000);
    s.accept_ctrl(sack(2, 1, 0));
    // The third completion finds queue 1 full.
    s.accept_ctrl(aeth(AethRepr::ACK, 2));
    let errors: Vec<NicReport> =
        s.take_reports().into_iter().filter(|r| matches!(r, NicReport::QpError { .. })).collect();
    let error = NicReport::QpError { qpn: lqp(), requirement: "CQE-RING-004".into() };
    assert_eq!(errors, [error], "only the QP of the full queue fails");
    assert_eq!(s.nic.qp_in_error(lqp()), Some(true));
    assert_eq!(s.nic.qp_in_error(Qpn::new(LQP_B)), Some(false));
    assert_eq!(
        s.nic.cq_state(CqId::new(2)),
        Some(CqState { written: 0, consumed: 0, stopped: false })
    );
}

/// CQE-RING-004, API-CQ-003: the consumer register releases only entries written; a value
/// beyond them, or going back, is refused and changes nothing. So the model refuses a host
/// that breaks CQE-RING-006: a count c with `(c − c_prev) mod 2^32` greater than
/// `(k − c_prev) mod 2^32` — ahead of the k entries written, or behind the count before,
/// which is the same rule modulo 2^32.
#[test]
fn api_cq_003_the_consumer_releases_only_written_entries() {
    let mut s = with_cq(4);
    let r = s.host(HostCommand::CqConsumer { cq: CqId::new(1), consumed: 1 });
    let want = ApiMisuse::BadCqConsumer { cq: CqId::new(1), consumed: 1, written: 0, released: 0 };
    assert_eq!(r, Err(HostError::Misuse(want)));
    assert_eq!(r.unwrap_err().requirement(), "API-CQ-003");
    assert_eq!(
        s.nic.cq_state(CqId::new(1)),
        Some(CqState { written: 0, consumed: 0, stopped: false })
    );
    send_and_ack(&mut s, 0);
    send_and_ack(&mut s, 1);
    // k = 2, c_prev = 0: 3 releases an entry not written; u32::MAX is c_prev − 1.
    for c in [3, u32::MAX] {
        let r = s.host(HostCommand::CqConsumer { cq: CqId::new(1), consumed: c });
        assert!(matches!(r, Err(HostError::Misuse(ApiMisuse::BadCqConsumer { .. }))), "{c}");
        assert_eq!(
            s.nic.cq_state(CqId::new(1)),
            Some(CqState { written: 2, consumed: 0, stopped: false })
        );
    }
    s.host(HostCommand::CqConsumer { cq: CqId::new(1), consumed: 1 }).expect("one entry");
    s.host(HostCommand::CqConsumer { cq: CqId::new(1), consumed: 2 }).expect("both entries");
    let r = s.host(HostCommand::CqConsumer { cq: CqId::new(1), consumed: 1 });
    assert!(matches!(r, Err(HostError::Misuse(ApiMisuse::BadCqConsumer { .. }))), "backwards");
    let r = s.host(HostCommand::CqConsumer { cq: CqId::new(7), consumed: 0 });
    assert_eq!(r, Err(HostError::Misuse(ApiMisuse::UnknownCq(CqId::new(7)))));
    assert_eq!(
        s.nic.cq_state(CqId::new(1)),
        Some(CqState { written: 2, consumed: 2, stopped: false })
    );
    s.expect_nothing();
}

/// API-CQ-001, API-CQ-002: a queue must have a power-of-two size from 1 to 2^31, a 32-byte
/// aligned base and lie below 2^64, and a number of its own; a QP and the device error
/// queue must name a queue that exists. So the model refuses a host that breaks
/// CQE-SETUP-001, and the refused command leaves no queue, QP or error queue behind.
#[test]
fn api_cq_001_queue_set_up() {
    let mut s = Script::sender();
    let bad = |s: &mut Script, base, entries, why: &str| {
        let r = s.host(create_cq(3, base, entries));
        match r {
            Err(HostError::Misuse(e @ ApiMisuse::BadCq { .. })) => {
                assert_eq!(e.requirement(), "API-CQ-001", "{why}");
            }
            other => panic!("{why}: {other:?}"),
        }
        assert_eq!(s.nic.cq_state(CqId::new(3)), None, "{why}: no queue was created");
    };
    bad(&mut s, CQ_BASE, 0, "no entries");
    bad(&mut s, CQ_BASE, 6, "not a power of two");
    bad(&mut s, CQ_BASE + 16, 4, "misaligned");
    bad(&mut s, u64::MAX - 31, 2, "past 2^64");
    s.host(create_cq(3, u64::MAX - 31, 1)).expect("the last 32 bytes of memory");
    s.host(create_cq(4, CQ_BASE, 1 << 31)).expect("the largest queue");
    assert_eq!(
        s.host(create_cq(4, CQ_BASE, 4)),
        Err(HostError::Misuse(ApiMisuse::DuplicateCq(CqId::new(4))))
    );
    let r = s.host(HostCommand::CreateQp(QpConfig {
        recv_cq: Some(CqId::new(9)),
        ..qp_config(LQP_B, PEER_B, 0, 0)
    }));
    assert_eq!(r.map_err(|e| e.requirement()), Err("API-CQ-002"));
    assert_eq!(s.nic.qp_count(), 1, "the QP was not created");
    let r = s.host(HostCommand::SetErrorCq { cq: CqId::new(9) });
    assert_eq!(r, Err(HostError::Misuse(ApiMisuse::UnknownCq(CqId::new(9)))));
    s.expect_nothing();
}

/// A template on [`LQP`] under the scripts' local key: 16 slots of 4 KiB.
fn template(id: u16) -> Template {
    Template {
        template_id: TemplateId::new(id),
        enabled: true,
        qpn: lqp(),
        opcode: WrOpcode::WRITE,
        local_base: 0x7f00_0000_0000,
        local_lkey: LKEY,
        local_region_len: 0x10_0000,
        remote_base: REGION_BASE,
        remote_rkey: RKEY,
        remote_region_len: 0x1_0000,
        slots: 16,
        local_stride: 0x1000,
        remote_stride: 0x1000,
        length_unit: 64,
        default_length: 64,
        max_length: 4096,
        imm_base: 0,
        flag_base_slot: 8,
        signaled: true,
    }
}

/// CQE-REJECT-002: a rejection that names its template goes to the send queue of the
/// template's QP; one that names none goes to the device error queue; with no error queue
/// designated yet, the model reports the entry without a place in memory.
#[test]
fn cqe_reject_002_rejections_go_to_their_queue() {
    let mut s = Script::with_setup(
        config(),
        vec![create_cq(1, CQ_BASE, 8), create_cq(2, CQ2_BASE, 8)],
        QpConfig {
            send_cq: Some(CqId::new(1)),
            recv_cq: Some(CqId::new(1)),
            ..qp_config(LQP, PEER, 0, 0)
        },
    );
    s.host(HostCommand::SetTemplate(template(5))).expect("template");
    let bad_version =
        DoorbellToken { version: 2, ..DoorbellToken::new(TemplateId::new(5), 0, 0, 0) }.to_u64();
    let reject = |s: &mut Script, token: u64, status| {
        let r = s.doorbell(token);
        assert!(matches!(r, Err(HostError::Doorbell(DoorbellRejected { .. }))), "{r:?}");
        let c = s.expect_completion_event(Side::Requester, status);
        s.expect_nothing();
        s.advance(10);
        c
    };
    let c = reject(&mut s, bad_version, CompletionStatus::BAD_VERSION);
    assert_eq!(c.queue, None, "no device error queue yet");
    s.host(HostCommand::SetErrorCq { cq: CqId::new(2) }).expect("error queue");
    let c = reject(&mut s, bad_version, CompletionStatus::BAD_VERSION);
    assert_eq!(place(&c), (2, 0, CQ2_BASE, true));
    let c = reject(
        &mut s,
        DoorbellToken::new(TemplateId::new(6), 0, 0, 0).to_u64(),
        CompletionStatus::UNKNOWN_TEMPLATE,
    );
    assert_eq!(place(&c), (2, 1, CQ2_BASE + 32, true));
    let c = reject(
        &mut s,
        DoorbellToken::new(TemplateId::new(5), 3, 0, 0).to_u64(),
        CompletionStatus::SEQ_GAP,
    );
    assert_eq!(place(&c), (1, 0, CQ_BASE, true), "names template 5: QP 0x20's send queue");
    assert_eq!((c.entry.qpn, c.entry.opcode), (lqp(), WrOpcode::WRITE), "CQE-REJECT-001");
    let c = reject(
        &mut s,
        DoorbellToken::new(TemplateId::new(5), 0, 16, 0).to_u64(),
        CompletionStatus::INDEX_OUT_OF_RANGE,
    );
    assert_eq!(place(&c), (1, 1, CQ_BASE + 32, true));
}

/// CQE-TS-001: the timestamp is the low 32 bits of the NIC's clock in nanoseconds.
#[test]
fn cqe_ts_001_the_clock_wraps_at_32_bits() {
    let mut s = Script::sender();
    s.at((1 << 32) + 5);
    let r = s.doorbell(DoorbellToken::new(TemplateId::new(9), 0, 0, 0).to_u64());
    assert!(r.is_err());
    let c = s.expect_completion(Side::Requester, CompletionStatus::UNKNOWN_TEMPLATE);
    assert_eq!((c.has_timestamp, c.timestamp), (true, 5));
    let mut out = Vec::new();
    c.validate(0, &mut out);
    assert!(out.is_empty(), "{out:?}");
}

/// TPL-KEY-001, TPL-INSTALL-001: a template whose local key names no registration, one
/// the NIC may not read, or one that does not cover the local region is refused, and a
/// token naming it is rejected as naming no template.
#[test]
fn tpl_key_001_the_local_key_must_cover_the_region_readably() {
    let mut s = Script::sender();
    let base = template(5).local_base;
    for r in [
        LocalRegion { lkey: Lkey::new(0x21), base, len: 0x10_0000, local_read: false },
        LocalRegion {
            lkey: Lkey::new(0x22),
            base: base + 0x1000,
            len: 0x10_0000,
            local_read: true,
        },
        LocalRegion { lkey: Lkey::new(0x23), base, len: 0xF_FFFF, local_read: true },
        LocalRegion { lkey: Lkey::new(0x24), base, len: 0x10_0000, local_read: true },
    ] {
        s.host(HostCommand::RegisterLocal(r)).expect("registration");
    }
    let r = s.host(HostCommand::RegisterLocal(LocalRegion {
        lkey: Lkey::new(0x24),
        base: 0,
        len: 1,
        local_read: true,
    }));
    assert_eq!(r.map_err(|e| e.requirement()), Err("API-REGION-002"));
    for (lkey, why) in [
        (0x20, "names no registered memory"),
        (0x21, "does not let the NIC read its memory"),
        (0x22, "does not cover the template's local region"),
        (0x23, "does not cover the template's local region"),
    ] {
        let lkey = Lkey::new(lkey);
        let t = Template { local_lkey: lkey, ..template(5) };
        let r = s.host(HostCommand::SetTemplate(t));
        let want = ApiMisuse::TemplateKey { template: TemplateId::new(5), lkey, reason: why };
        assert_eq!(r, Err(HostError::Misuse(want)), "lkey {lkey:#x}");
        assert_eq!(s.nic.template_enabled(TemplateId::new(5)), None, "not installed");
    }
    let r = s.doorbell(DoorbellToken::new(TemplateId::new(5), 0, 0, 0).to_u64());
    assert_eq!(r.map_err(|e| e.requirement()), Err("DB-TEMPLATE-001"));
    s.expect_completion(Side::Requester, CompletionStatus::UNKNOWN_TEMPLATE);
    s.host(HostCommand::SetTemplate(Template { local_lkey: Lkey::new(0x24), ..template(5) }))
        .expect("an exact cover");
    s.doorbell(DoorbellToken::new(TemplateId::new(5), 0, 0, 0).to_u64()).expect("accepted");
    s.expect_data(0, ONLY);
}

/// TPL-INSTALL-004, TPL-KEY-002, TPL-INSTALL-003: ending the registration under an installed
/// template disables the template first, so its tokens are rejected as unknown; installing
/// it again needs a registration that covers it, and keeps its expected seq.
#[test]
fn tpl_key_002_deregistration_disables_the_template() {
    let mut s = Script::sender();
    let region = LocalRegion {
        lkey: Lkey::new(0x30),
        base: 0x7f00_0000_0000,
        len: 1 << 24,
        local_read: true,
    };
    s.host(HostCommand::RegisterLocal(region)).expect("registration");
    let t = Template { local_lkey: Lkey::new(0x30), ..template(5) };
    s.host(HostCommand::SetTemplate(t)).expect("installed");
    s.host(HostCommand::SetTemplate(Template { template_id: TemplateId::new(6), ..template(5) }))
        .expect("another template, under another key");
    s.doorbell(DoorbellToken::new(TemplateId::new(5), 0, 0, 0).to_u64()).expect("seq 0");
    s.expect_data(0, ONLY);
    s.host(HostCommand::DeregisterLocal { lkey: Lkey::new(0x30) }).expect("deregistered");
    assert_eq!(s.nic.template_enabled(TemplateId::new(5)), Some(false), "TPL-KEY-002");
    assert_eq!(
        s.nic.template_enabled(TemplateId::new(6)),
        Some(true),
        "a template under another key stays"
    );
    let r = s.doorbell(DoorbellToken::new(TemplateId::new(5), 1, 1, 0).to_u64());
    assert_eq!(r.map_err(|e| e.requirement()), Err("DB-TEMPLATE-001"));
    s.expect_completion(Side::Requester, CompletionStatus::UNKNOWN_TEMPLATE);
    let r = s.host(HostCommand::SetTemplate(t));
    assert!(matches!(r, Err(HostError::Misuse(ApiMisuse::TemplateKey { .. }))), "{r:?}");
    let r = s.host(HostCommand::DeregisterLocal { lkey: Lkey::new(0x30) });
    assert_eq!(r, Err(HostError::Misuse(ApiMisuse::UnknownLocalKey(Lkey::new(0x30)))));
    s.host(HostCommand::RegisterLocal(region)).expect("registered again");
    s.host(HostCommand::SetTemplate(t)).expect("installed again");
    s.doorbell(DoorbellToken::new(TemplateId::new(5), 1, 1, 0).to_u64())
        .expect("seq 1: the seq was kept");
    s.expect_data(1, ONLY);
    assert_eq!(s.now, Timestamp::ZERO);
}

/// Entries reported without a queue keep today's form: a QP without completion queues.
#[test]
fn a_qp_without_queues_reports_entries_without_a_place() {
    let mut s = Script::sender();
    s.post(wr(64, 0, 0));
    s.expect_data(0, ONLY);
    s.accept_ctrl(sack(0, 1, 0));
    s.accept_ctrl(aeth(AethRepr::ACK, 0));
    let c = s.expect_completion_event(Side::Requester, SUCCESS);
    assert_eq!(c.queue, None);
    let want = CompletionRepr::for_request(&wr(64, 0, 0), SUCCESS, Msn::new(0)).with_timestamp(0);
    assert_eq!(c.entry, want);
    assert!(matches!(s.take_events().as_slice(), [NicEvent::FlagWrite(_)]));
}

/// CQE-RING-001, CQE-RING-004, CQE-RING-005 over random runs: queues of random sizes take
/// error completions (tokens rejected for their index, which go to the template's QP's send
/// queue) and random consumer writes; every entry goes to slot k mod N with the phase of
/// its pass; no entry is written while N are unreleased: the first that finds the queue
/// full stops it for good and fails the QP, once.
#[test]
fn cqe_ring_001_random_runs_follow_the_ring() {
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng, SeedableRng};
    let mut rng = ChaCha8Rng::seed_from_u64(0x4351_5249);
    for run in 0..200 {
        let entries = 1u32 << (rng.next_u32() % 4);
        let mut s = Script::with_setup(
            config(),
            vec![create_cq(1, CQ_BASE, entries)],
            QpConfig {
                send_cq: Some(CqId::new(1)),
                recv_cq: Some(CqId::new(1)),
                ..qp_config(LQP, PEER, 0, 0)
            },
        );
        s.host(HostCommand::SetTemplate(template(5))).expect("template");
        let (mut written, mut consumed, mut stopped) = (0u64, 0u32, false);
        for step in 0..40 {
            s.advance(10);
            if rng.next_u32() % 3 == 0 {
                // The consumer releases some of what it was given, never more.
                let room = (written as u32).wrapping_sub(consumed);
                let release = if room == 0 { 0 } else { rng.next_u32() % (room + 1) };
                consumed = consumed.wrapping_add(release);
                s.host(HostCommand::CqConsumer { cq: CqId::new(1), consumed })
                    .expect("a valid release");
                continue;
            }
            let token = DoorbellToken::new(TemplateId::new(5), 0, 16, 0).to_u64();
            let _ = s.doorbell(token);
            let events = s.take_events();
            let reports = s.take_reports();
            let full = (written as u32).wrapping_sub(consumed) >= entries;
            let ctx = format!(
                "run {run} step {step}: N {entries}, {written} written, {consumed} released"
            );
            if stopped || full {
                assert!(events.is_empty(), "{ctx}: {events:?}");
                let errors = reports.iter().filter(|r| matches!(r, NicReport::QpError { .. }));
                assert_eq!(errors.count(), usize::from(!stopped), "{ctx}: CQE-RING-005, once");
                stopped = true;
                assert_eq!(s.nic.qp_in_error(lqp()), Some(true), "{ctx}");
                continue;
            }
            let [NicEvent::Completion(c)] = events.as_slice() else { panic!("{ctx}: {events:?}") };
            let n = u64::from(entries);
            let slot = (written % n) as u32;
            assert_eq!(
                place(c),
                (1, slot, CQ_BASE + 32 * u64::from(slot), (written / n) % 2 == 0),
                "{ctx}"
            );
            written += 1;
        }
        let state = s.nic.cq_state(CqId::new(1)).expect("the queue");
        assert_eq!((state.written, state.consumed, state.stopped), (written, consumed, stopped));
    }
}
