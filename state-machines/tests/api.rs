//! The caller's side of the model's interface (`spec/model-interface.md`, `API-*`): every
//! call that breaks a rule is refused, naming the rule, and leaves the model exactly as it
//! was — no packet, no event, no timer, no counter moved — but for its latest time.

mod script;

use openrdma_codec::host::{Template, WrOpcode};
use openrdma_codec::{Ev, Lkey, Opcode, Psn, Qpn, TemplateId};
use openrdma_sm::{
    ApiMisuse, CpuCommand, EvState, HostCommand, HostError, LocalRegion, NicConfig, NicStats,
    Region, Timestamp,
};
use script::*;

/// What the model shows of one QP: expected PSN, send window, error state, EV states.
type QpState =
    (Option<Psn>, Option<openrdma_sm::SendWindow>, Option<bool>, Option<Vec<(Ev, EvState)>>);

/// Everything the model shows of its state.
#[derive(Debug, Clone, PartialEq, Eq)]
struct State {
    qps: usize,
    per_qp: Vec<QpState>,
    pending: usize,
    entries: usize,
    stats: NicStats,
    timeout: Option<Timestamp>,
}

fn state(s: &mut Script) -> State {
    let per_qp = [LQP, LQP_B, 0x99]
        .into_iter()
        .map(Qpn::new)
        .map(|q| {
            (s.nic.expected_psn(q), s.nic.send_window(q), s.nic.qp_in_error(q), s.nic.ev_states(q))
        })
        .collect();
    State {
        qps: s.nic.qp_count(),
        per_qp,
        pending: s.nic.pending_messages(),
        entries: s.nic.peer_driven_entries(),
        stats: s.nic.stats().clone(),
        timeout: s.nic.poll_timeout(),
    }
}

/// A NIC with a message in flight each way — packets sent; a packet received, whose SACK
/// timer is armed — and a template.
fn busy() -> Script {
    let mut s = Script::with(NicConfig { max_qps: 2, ..config() }, 0, 0);
    s.at(1_000);
    // The memory the template reads from, registered for the NIC to read (TPL-KEY-001).
    let local =
        LocalRegion { lkey: Lkey::new(1), base: 0x7000_0000, len: 0x4000, local_read: true };
    s.host(HostCommand::RegisterLocal(local)).expect("local memory");
    s.host(HostCommand::SetTemplate(template(LQP))).expect("a valid template");
    s.post(wr(3 * PMTU, 0, 0));
    s.accept(write(0, 0, Opcode::MRC_WRITE_FIRST, REGION_BASE + 0x8000, PMTU).dma_len(2 * PMTU));
    s.take_tx();
    s.drop_reports();
    s.take_events();
    assert!(s.nic.poll_timeout().is_some(), "a timer is armed");
    s.at(2_000);
    s
}

/// A template of 4 slots on `qpn`.
fn template(qpn: u32) -> Template {
    Template {
        template_id: TemplateId::new(3),
        enabled: true,
        qpn: Qpn::new(qpn),
        opcode: WrOpcode::WRITE,
        local_base: 0x7000_0000,
        local_lkey: Lkey::new(1),
        local_region_len: 0x4000,
        remote_base: REGION_BASE,
        remote_rkey: RKEY,
        remote_region_len: 0x4000,
        slots: 4,
        local_stride: 0x1000,
        remote_stride: 0x1000,
        length_unit: 64,
        default_length: 64,
        max_length: 0x1000,
        imm_base: 0,
        flag_base_slot: 0,
        signaled: true,
    }
}

/// A call of the caller's, refused or not.
enum Call {
    Host(HostCommand),
    Cpu(CpuCommand),
}

fn call(s: &mut Script, c: Call) -> Result<(), &'static str> {
    let now = s.now;
    match c {
        Call::Host(cmd) => s.nic.handle_host(now, cmd).map_err(|e| e.requirement()),
        Call::Cpu(cmd) => s.nic.handle_cpu(now, cmd).map_err(|e| e.requirement()),
    }
}

/// Checks that `c` is refused under `requirement` and changes nothing (API-STATE-001): no
/// packet, no event, the same timer, the same state; and that the latest time moved to the
/// call's time, so that an earlier call is now refused (API-TIME-001).
#[track_caller]
fn refused(s: &mut Script, c: Call, requirement: &str) {
    s.drain();
    let before = state(s);
    assert_eq!(call(s, c), Err(requirement));
    assert!(s.nic.poll_transmit(s.now).is_none(), "{requirement}: a refused call sent a packet");
    assert!(s.nic.poll_event().is_none(), "{requirement}: a refused call gave an event");
    assert_eq!(state(s), before, "{requirement}: a refused call changed the state");
    let earlier = Timestamp(s.now.0 - 1);
    assert!(matches!(
        s.nic.handle_timeout(earlier),
        Err(ApiMisuse::TimeWentBackwards { now, last }) if now == earlier.0 && last == s.now.0
    ));
}

fn create(qp: openrdma_sm::QpConfig) -> Call {
    Call::Host(HostCommand::CreateQp(qp))
}

/// API-QP-002: a NIC holds no more QPs than its `max_qps`.
#[test]
fn api_qp_002_no_more_qps_than_max_qps() {
    let mut s = busy();
    s.host(HostCommand::CreateQp(qp_config(LQP_B, PEER_B, 0, 0))).expect("the second QP");
    s.advance(10);
    refused(&mut s, create(qp_config(0x22, 0x12, 0, 0)), "API-QP-002");
    assert_eq!(s.nic.qp_count(), 2);
}

/// API-QP-003: a QP's EV profile is not empty, and its initial PSNs fit in 24 bits.
#[test]
fn api_qp_003_an_ev_profile_and_24_bit_initial_psns() {
    let mut s = busy();
    let q = qp_config(LQP_B, PEER_B, 0, 0);
    refused(&mut s, create(openrdma_sm::QpConfig { evs: vec![], ..q.clone() }), "API-QP-003");
    s.advance(10);
    // A PSN read from a scenario file or the adapter protocol keeps the integer written,
    // which may not fit in 24 bits.
    let wide: Psn = serde_json::from_str("16777216").expect("a PSN in JSON");
    refused(&mut s, create(openrdma_sm::QpConfig { initial_psn: wide, ..q.clone() }), "API-QP-003");
    s.advance(10);
    refused(
        &mut s,
        create(openrdma_sm::QpConfig { peer_initial_psn: wide, ..q.clone() }),
        "API-QP-003",
    );
    // The largest 24-bit PSN and a profile of one EV are fine.
    s.advance(10);
    let ok = openrdma_sm::QpConfig {
        evs: vec![Ev::new(0x55)],
        initial_psn: Psn::MAX,
        peer_initial_psn: Psn::MAX,
        ..q
    };
    assert_eq!(call(&mut s, create(ok)), Ok(()));
}

/// API-QP-001 and API-REGION-001: a QP number, and a remote key, are registered once.
#[test]
fn api_region_001_a_remote_key_is_registered_once() {
    let mut s = busy();
    let again = Region { rkey: RKEY, base: 0x90_0000, len: 0x1000, remote_write: true };
    refused(&mut s, Call::Host(HostCommand::RegisterRegion(again)), "API-REGION-001");
    s.advance(10);
    refused(&mut s, create(qp_config(LQP, PEER_B, 0, 0)), "API-QP-001");
}

/// API-TPL-001: a template that fails its own validation is not installed; one that names
/// a QP that does not exist breaks API-QP-004. A token for the template refused is then
/// rejected as unknown, and the installed one still works.
#[test]
fn api_tpl_001_a_template_passes_its_validation() {
    let mut s = busy();
    let bad = [
        Template { slots: 0, ..template(LQP) },
        Template { length_unit: 3, ..template(LQP) },
        Template { template_id: TemplateId::new(0x1000), ..template(LQP) },
        Template { opcode: WrOpcode(7), ..template(LQP) },
    ];
    for t in bad {
        assert!(t.validate().is_err(), "{t:?}");
        refused(&mut s, Call::Host(HostCommand::SetTemplate(t)), "API-TPL-001");
        s.advance(10);
    }
    refused(
        &mut s,
        Call::Host(HostCommand::SetTemplate(Template {
            template_id: TemplateId::new(5),
            ..template(0x99)
        })),
        "API-QP-004",
    );
    s.advance(10);
    let unknown = template(LQP).token(0, 0, 1).to_u64() & !(0xFFF << 48) | (5 << 48);
    let r = s.nic.handle_host(s.now, HostCommand::Doorbell { token: unknown });
    assert!(matches!(r, Err(HostError::Doorbell(_))), "{r:?}");
    assert_eq!(r.map_err(|e| e.requirement()), Err("DB-TEMPLATE-001"));
    // API-STATE-001: a rejected token's one effect is its error completion (CQE-REJECT-001).
    let e = s.nic.poll_event();
    assert!(
        matches!(&e, Some(openrdma_sm::NicEvent::Completion(c)) if c.entry.status == openrdma_codec::host::CompletionStatus::UNKNOWN_TEMPLATE),
        "{e:?}"
    );
    assert!(s.nic.poll_event().is_none() && s.nic.poll_transmit(s.now).is_none());
    assert!(s.doorbell(template(LQP).token(0, 0, 1).to_u64()).is_ok());
}

/// API-TPL-001, TPL-FLAG-001 (b): a template's flag slots lie inside its QP's flag table.
/// One whose last slot is the table's last is installed; one slot further is refused.
#[test]
fn api_tpl_001_flag_slots_inside_the_flag_table() {
    let mut s = busy();
    let past = Template {
        template_id: TemplateId::new(6),
        flag_base_slot: SEND_FLAG_SLOTS - 3,
        ..template(LQP)
    };
    assert!(past.validate().is_ok(), "valid on its own: only the QP's table refuses it");
    refused(&mut s, Call::Host(HostCommand::SetTemplate(past)), "API-TPL-001");
    s.advance(10);
    let r = s.nic.handle_host(s.now, HostCommand::SetTemplate(past));
    assert!(r.is_err_and(|e| e.to_string().contains("TPL-FLAG-001")));
    s.advance(10);
    let edge = Template { flag_base_slot: SEND_FLAG_SLOTS - 4, ..past };
    s.host(HostCommand::SetTemplate(edge)).expect("the last slot is the table's last");
    assert!(s.doorbell(edge.token(0, 0, 1).to_u64()).is_ok());
}

/// API-WR-001: a work request posted directly is a Write or a Write-with-Immediate, carries
/// immediate data exactly when it is one with immediate, and names a QP not in error;
/// API-QP-004: it names a QP that exists, as does every CPU command.
#[test]
fn api_wr_001_a_direct_work_request_is_a_well_formed_write() {
    let mut s = busy();
    let post = |w| Call::Host(HostCommand::PostWrite(w));
    refused(
        &mut s,
        post(openrdma_codec::host::WorkRequest { opcode: WrOpcode(0x05), ..wr(64, 0, 1) }),
        "API-WR-001",
    );
    s.advance(10);
    refused(
        &mut s,
        post(openrdma_codec::host::WorkRequest { imm: Some(1), ..wr(64, 0, 1) }),
        "API-WR-001",
    );
    s.advance(10);
    refused(
        &mut s,
        post(openrdma_codec::host::WorkRequest { imm: None, ..wr_imm(64, 0, 1, 9) }),
        "API-WR-001",
    );
    s.advance(10);
    refused(
        &mut s,
        post(openrdma_codec::host::WorkRequest { qpn: Qpn::new(0x99), ..wr(64, 0, 1) }),
        "API-QP-004",
    );
    s.advance(10);
    refused(
        &mut s,
        Call::Cpu(CpuCommand::Probe { qpn: Qpn::new(0x99), ev: Ev::new(1) }),
        "API-QP-004",
    );
    s.advance(10);
    // A QP in the error state takes no work request posted directly.
    s.cpu(CpuCommand::QpError { qpn: Qpn::new(LQP) });
    s.take_events();
    s.drop_reports();
    s.take_tx();
    s.advance(10);
    refused(&mut s, post(wr(64, 0, 1)), "API-WR-001");
}

/// API-TIME-001 and API-STATE-001: a call whose time goes backwards is refused, changes
/// nothing, and does not move the model's latest time either.
#[test]
fn api_state_001_a_call_refused_for_its_time_moves_no_time() {
    let mut s = busy();
    // A call refused for another reason passed the time check: the latest time is its.
    let probe = CpuCommand::Probe { qpn: Qpn::new(0x99), ev: Ev::new(1) };
    assert_eq!(call(&mut s, Call::Cpu(probe)), Err("API-QP-004"));
    s.drain();
    let before = state(&mut s);
    let last = s.now;
    let r = s.nic.handle_host(Timestamp(last.0 - 500), HostCommand::PostWrite(wr(64, 0, 1)));
    assert_eq!(r.map_err(|e| e.requirement()), Err("API-TIME-001"));
    assert!(s.nic.poll_transmit(last).is_none() && s.nic.poll_event().is_none());
    assert_eq!(state(&mut s), before);
    // The latest time is still `last`: a call at `last - 1` is refused, one at `last` is not.
    assert!(s.nic.handle_timeout(Timestamp(last.0 - 1)).is_err());
    assert!(s.nic.handle_timeout(last).is_ok());
}
