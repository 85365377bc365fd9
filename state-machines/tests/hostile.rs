//! The hostile-input catalogue of the model: one row per hostile input, each with the exact
//! typed outcome it must give (the `PeerViolation` value with its requirement ID, the
//! `DoorbellReject` value, or "accepted" with the behaviour the specification requires)
//! and the response it must cause on the wire, and the same checks for every row:
//!
//! * **no panic**;
//! * **state unchanged**: expected PSN, send window, EV states, error state, pending
//!   messages, peer-driven entries and every counter but `violations` (and the NACK or
//!   NAK the specification requires) are as before; nothing is placed, retired or
//!   completed, and nothing else is sent;
//! * **nothing already accepted lost**: before the hostile input the NIC accepts some
//!   data (a retired message and a placed packet of a second one; or packets sent and
//!   partly acknowledged; or an accepted doorbell); afterwards a valid input still works
//!   and the earlier data is still counted (the second message retires with every byte,
//!   the acknowledged packet stays acknowledged, the next doorbell seq is accepted).
//!
//! Rows that break a decoding rule of the wire formats are in `codec/tests/hostile.rs`.
//!
//! Corrupt scenario files and malformed adapter messages have their own catalogue in
//! `corpus/tests/hostile.rs`.

mod script;

use openrdma_codec::host::{
    CompletionRepr, CompletionStatus, DoorbellReject, LengthBound, Template, WrOpcode,
};
use openrdma_codec::{AethRepr, Ev, Msn, NackReason, Opcode, Psn, Qpn, Rkey, Rqmsn, TemplateId};
use openrdma_sm::{
    CpuCommand, DoorbellRejected, EvState, HostCommand, HostError, HostOrPeer, NicEvent, NicReport,
    NicStats, Packet, PeerViolation, RetransmitCause, Side,
};
use script::*;

const FIRST: Opcode = Opcode::MRC_WRITE_FIRST;
const MIDDLE: Opcode = Opcode::MRC_WRITE_MIDDLE;
const LAST: Opcode = Opcode::MRC_WRITE_LAST;
const ONLY: Opcode = Opcode::MRC_WRITE_ONLY;
const ONLY_IMM: Opcode = Opcode::MRC_WRITE_ONLY_IMM;

fn lqp() -> Qpn {
    Qpn::new(LQP)
}

/// What a NIC shows of its state, for "state unchanged".
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    epsn: Option<Psn>,
    window: Option<openrdma_sm::SendWindow>,
    in_error: Option<bool>,
    evs: Option<Vec<(Ev, EvState)>>,
    pending: usize,
    entries: usize,
    stats: NicStats,
}

fn seen(s: &Script) -> Seen {
    Seen {
        epsn: s.nic.expected_psn(lqp()),
        window: s.nic.send_window(lqp()),
        in_error: s.nic.qp_in_error(lqp()),
        evs: s.nic.ev_states(lqp()),
        pending: s.nic.pending_messages(),
        entries: s.nic.peer_driven_entries(),
        stats: s.nic.stats().clone(),
    }
}

/// The response a hostile packet must cause.
#[derive(Debug, Clone, Copy)]
enum Response {
    Nothing,
    /// A NACK for this PSN with this reason (RCV-WIN-002).
    Nack(u32, NackReason),
    /// An AETH NAK with this syndrome and MSN (RCV-PLACE-002).
    Nak(u8, u16),
}

/// The exact outcome of a row.
#[derive(Debug, Clone)]
enum Outcome {
    /// Refused with this violation; the state is unchanged.
    Refused(PeerViolation, Response),
    /// Refused with this violation, which is fatal: the QP goes to error with this
    /// requirement (WWI-LIMIT-002), and earlier data stays as it was.
    Fatal(PeerViolation, Response),
    /// Accepted: the row's own check says what must follow.
    Accepted,
    /// A doorbell refused with this rejection.
    Rejected(DoorbellReject),
}

/// Which accepted history a row starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Setup {
    /// MSN 0 (PSN 0, 100 bytes) retired; MSN 1's FIRST (PSN 1, 1024 of 1224 bytes) placed.
    Receiver,
    /// The same, then the QP moved to error by the CPU half.
    ReceiverFailed,
    /// MSN 0 (3000 bytes, PSN 0-2) and MSN 1 (100 bytes, PSN 3) sent; PSN 0 SACKed.
    Sender,
    /// The template installed and one token (seq 0, slot 0) accepted.
    Doorbell,
}

/// The hostile input.
#[derive(Debug, Clone)]
enum Input {
    Packet(Packet),
    Write(W),
    Token(u64),
}

struct Row {
    name: &'static str,
    setup: Setup,
    input: Input,
    outcome: Outcome,
}

fn row(name: &'static str, setup: Setup, input: Input, outcome: Outcome) -> Row {
    Row { name, setup, input, outcome }
}

/// Address of packet `i` of a message placed at `REGION_BASE + off`.
fn va(off: u64, i: u32) -> u64 {
    REGION_BASE + off + u64::from(i) * u64::from(PMTU)
}

/// The doorbell template of the rows: 8 slots on [`LQP`] (local stride 4 KiB in 32 KiB,
/// remote stride 2 KiB in 16 KiB), 64-byte units, WRITE, signaled.
fn template() -> Template {
    Template {
        template_id: TemplateId::new(9),
        enabled: true,
        qpn: lqp(),
        opcode: WrOpcode::WRITE,
        local_base: 0x7000_0000,
        local_lkey: LKEY,
        local_region_len: 0x8000,
        remote_base: REGION_BASE,
        remote_rkey: RKEY,
        remote_region_len: 0x4000,
        slots: 8,
        local_stride: 0x1000,
        remote_stride: 0x800,
        length_unit: 64,
        default_length: 256,
        max_length: 0x2000,
        imm_base: 0,
        flag_base_slot: 0,
        signaled: true,
    }
}

fn token(seq: u16, index: u16, units: u16) -> u64 {
    template().token(seq, index, units).to_u64()
}

/// Builds the accepted history of `setup`, leaving no output queued.
fn setup(setup: Setup) -> Script {
    let mut s = match setup {
        Setup::Receiver | Setup::ReceiverFailed => Script::receiver(),
        Setup::Sender | Setup::Doorbell => Script::sender(),
    };
    match setup {
        Setup::Receiver | Setup::ReceiverFailed => {
            s.accept(write(0, 0, ONLY, va(0, 0), 100).ack_req());
            s.expect_dma(va(0, 0), 100);
            s.expect_flag_len(0, 100);
            s.expect_ack(0);
            s.expect_sack(0, 0);
            s.advance(10);
            s.accept(write(1, 1, FIRST, va(0x4000, 0), PMTU).dma_len(PMTU + 200));
            s.expect_dma(va(0x4000, 0), PMTU);
            if setup == Setup::ReceiverFailed {
                s.cpu(CpuCommand::QpError { qpn: lqp() });
            }
        }
        Setup::Sender => {
            s.post(wr(3000, 0, 0));
            s.post(wr(100, 0x10000, 1));
            for (psn, op) in [(0, FIRST), (1, MIDDLE), (2, LAST), (3, ONLY)] {
                let (ev, _) = s.expect_data(psn, op);
                // Round robin over the profile: PSN p goes out on EVS[p].
                assert_eq!(ev, EVS[psn as usize]);
            }
            s.advance(100);
            s.accept_ctrl(sack(0, 1, 0));
        }
        Setup::Doorbell => {
            s.host(HostCommand::SetTemplate(template())).expect("template");
            s.doorbell(token(0, 0, 0)).expect("the first token");
            s.expect_data(0, ONLY);
        }
    }
    s.advance(10);
    s.drain();
    s.take_tx();
    s.take_events();
    s.drop_reports();
    s
}

fn rows() -> Vec<Row> {
    use Outcome::*;
    use Setup::*;
    let q = lqp();
    let w = |psn, msn, op, va, len| Input::Write(write(psn, msn, op, va, len));
    vec![
        // ----- receiver -----
        row(
            "PSN at epsn + W (outside the window)",
            Receiver,
            w(130, 2, ONLY, va(0x8000, 0), 100),
            Refused(
                PeerViolation::OutOfWindow {
                    qpn: q,
                    psn: Psn::new(130),
                    epsn: Psn::new(2),
                    window: 128,
                },
                Response::Nack(130, NackReason::PSN_OOR_WINDOW),
            ),
        ),
        row(
            "PSN half the ring ahead",
            Receiver,
            w(2 + (1 << 23), 2, ONLY, va(0x8000, 0), 100),
            Refused(
                PeerViolation::OutOfWindow {
                    qpn: q,
                    psn: Psn::new(2 + (1 << 23)),
                    epsn: Psn::new(2),
                    window: 128,
                },
                Response::Nack(2 + (1 << 23), NackReason::PSN_OOR_WINDOW),
            ),
        ),
        row(
            "RETH range past the end of the region",
            Receiver,
            w(2, 2, ONLY, REGION_BASE + REGION_LEN - 50, 100),
            Refused(
                PeerViolation::RemoteAccess {
                    qpn: q,
                    rkey: RKEY,
                    va: REGION_BASE + REGION_LEN - 50,
                    len: 100,
                },
                Response::Nak(AethRepr::NAK_REMOTE_ACCESS, 0),
            ),
        ),
        row(
            "RETH address below the region",
            Receiver,
            w(2, 2, ONLY, REGION_BASE - 1, 1),
            Refused(
                PeerViolation::RemoteAccess { qpn: q, rkey: RKEY, va: REGION_BASE - 1, len: 1 },
                Response::Nak(AethRepr::NAK_REMOTE_ACCESS, 0),
            ),
        ),
        row(
            "RETH with a key never registered",
            Receiver,
            Input::Write(write(2, 2, ONLY, va(0x8000, 0), 100).rkey(Rkey::new(0x1234))),
            Refused(
                PeerViolation::RemoteAccess {
                    qpn: q,
                    rkey: Rkey::new(0x1234),
                    va: va(0x8000, 0),
                    len: 100,
                },
                Response::Nak(AethRepr::NAK_REMOTE_ACCESS, 0),
            ),
        ),
        row(
            "RETH key of a region without remote write",
            Receiver,
            Input::Write(write(2, 2, ONLY, RO_BASE, 100).rkey(RKEY_RO)),
            Refused(
                PeerViolation::RemoteAccess { qpn: q, rkey: RKEY_RO, va: RO_BASE, len: 100 },
                Response::Nak(AethRepr::NAK_REMOTE_ACCESS, 0),
            ),
        ),
        row(
            "payload of PMTU + 1 bytes",
            Receiver,
            w(2, 2, ONLY, va(0x8000, 0), PMTU + 1),
            Refused(
                PeerViolation::PayloadTooLong { qpn: q, len: PMTU + 1, pmtu: PMTU },
                Response::Nothing,
            ),
        ),
        row(
            "MIDDLE shorter than the PMTU",
            Receiver,
            Input::Write(write(2, 1, MIDDLE, va(0x4000, 1), 10).dma_len(PMTU + 200)),
            Refused(
                PeerViolation::SegmentLength { qpn: q, opcode: MIDDLE, len: 10, pmtu: PMTU },
                Response::Nothing,
            ),
        ),
        row(
            "write after retirement (new PSN for retired MSN 0)",
            Receiver,
            w(2, 0, ONLY, va(0, 0), 100),
            Refused(
                PeerViolation::AfterRetirement { qpn: q, psn: Psn::new(2), msn: Msn::new(0) },
                Response::Nothing,
            ),
        ),
        row(
            "MSN beyond the shared retirement table (next + 4096)",
            Receiver,
            w(2, 1 + 4096, ONLY, va(0x8000, 0), 100),
            Refused(
                PeerViolation::MsnBeyondWindow { qpn: q, msn: Msn::new(4097), next: Msn::new(1) },
                Response::Nothing,
            ),
        ),
        row(
            "RETH.dma_len that differs from the message's",
            Receiver,
            Input::Write(write(2, 1, LAST, va(0x4000, 1), 200).dma_len(5000)),
            Refused(
                PeerViolation::MessageMismatch {
                    qpn: q,
                    msn: Msn::new(1),
                    what: "RETH.dma_len differs between packets",
                },
                Response::Nothing,
            ),
        ),
        row(
            "more payload than RETH.dma_len",
            Receiver,
            Input::Write(write(2, 2, ONLY, va(0x8000, 0), 100).dma_len(50)),
            Refused(
                PeerViolation::MessageMismatch {
                    qpn: q,
                    msn: Msn::new(2),
                    what: "more payload than RETH.dma_len",
                },
                Response::Nothing,
            ),
        ),
        row(
            "Write-with-Immediate without ImmDt",
            Receiver,
            Input::Write({
                let mut x = write(2, 2, ONLY_IMM, va(0x8000, 0), 100);
                x.pkt.immdt = None;
                x
            }),
            Refused(
                PeerViolation::MessageMismatch {
                    qpn: q,
                    msn: Msn::new(2),
                    what: "Write-with-Immediate without ImmDt",
                },
                Response::Nothing,
            ),
        ),
        row(
            "write for a QP that does not exist",
            Receiver,
            Input::Write(write(2, 2, ONLY, va(0x8000, 0), 100).dest(0x99)),
            Refused(PeerViolation::UnknownQp { qpn: Qpn::new(0x99) }, Response::Nothing),
        ),
        row(
            "write for a QP in the error state",
            ReceiverFailed,
            w(2, 1, LAST, va(0x4000, 1), 200),
            Refused(PeerViolation::QpInError { qpn: q }, Response::Nothing),
        ),
        row(
            "Write-with-Immediate beyond the WWI limit (RQMSN 65 > 64)",
            Receiver,
            Input::Write(write(2, 2, ONLY_IMM, va(0x8000, 0), 100).rqmsn(65).imm(7)),
            Fatal(
                PeerViolation::WwiLimit { qpn: q, rqmsn: Rqmsn::new(65), limit: 64 },
                Response::Nack(2, NackReason::UNEXP_EVENT),
            ),
        ),
        // ----- sender -----
        row(
            "SACK acknowledging PSNs never sent (cack 10, snd_nxt 4)",
            Sender,
            Input::Packet(sack(10, 1, 0)),
            Refused(
                PeerViolation::SackBeyondSent { qpn: q, psn: Psn::new(10), snd_nxt: Psn::new(4) },
                Response::Nothing,
            ),
        ),
        row(
            "SACK bitmap marking PSN 6, never sent",
            Sender,
            Input::Packet(sack(0, 1, 1 << 5)),
            Refused(
                PeerViolation::SackBeyondSent { qpn: q, psn: Psn::new(6), snd_nxt: Psn::new(4) },
                Response::Nothing,
            ),
        ),
        row(
            "SACK with an absurd bitmap offset (0x4000)",
            Sender,
            Input::Packet(sack(0, 0x4000, 1)),
            Refused(PeerViolation::SackOffset { qpn: q, offset: 0x4000 }, Response::Nothing),
        ),
        row(
            "SACK with an absurd negative bitmap offset (-0x8000)",
            Sender,
            Input::Packet(sack(0, i16::MIN, 0)),
            Refused(PeerViolation::SackOffset { qpn: q, offset: i16::MIN }, Response::Nothing),
        ),
        row(
            "NACK for a PSN never sent",
            Sender,
            Input::Packet(nack(50, NackReason::NO_RESOURCE)),
            Refused(
                PeerViolation::NackUnknownPsn {
                    qpn: q,
                    psn: Psn::new(50),
                    snd_una: Psn::new(1),
                    snd_nxt: Psn::new(4),
                },
                Response::Nothing,
            ),
        ),
        row(
            "NACK TRIMMED for a PSN far behind the window",
            Sender,
            Input::Packet(nack(0xFF_0000, NackReason::TRIMMED)),
            Refused(
                PeerViolation::NackUnknownPsn {
                    qpn: q,
                    psn: Psn::new(0xFF_0000),
                    snd_una: Psn::new(1),
                    snd_nxt: Psn::new(4),
                },
                Response::Nothing,
            ),
        ),
        row(
            "AETH ACK for MSN 5, never sent",
            Sender,
            Input::Packet(aeth(AethRepr::ACK_UNLIMITED_CREDIT, 5)),
            Refused(PeerViolation::AckBeyondSent { qpn: q, msn: Msn::new(5) }, Response::Nothing),
        ),
        row(
            "AETH NAK for MSN 0x8000, never sent",
            Sender,
            Input::Packet(aeth(AethRepr::NAK_REMOTE_ACCESS, 0x8000)),
            Refused(
                PeerViolation::AckBeyondSent { qpn: q, msn: Msn::new(0x8000) },
                Response::Nothing,
            ),
        ),
        row(
            "NACK with an unknown reason (0x55) for an outstanding PSN",
            Sender,
            Input::Packet(nack(2, NackReason(0x55))),
            Accepted,
        ),
        // ----- doorbells through the NIC -----
        row(
            "doorbell naming a template never installed",
            Doorbell,
            Input::Token(
                Template { template_id: TemplateId::new(10), ..template() }.token(1, 0, 0).to_u64(),
            ),
            Rejected(DoorbellReject::UnknownTemplate { template: TemplateId::new(10) }),
        ),
        row(
            "doorbell with version 2",
            Doorbell,
            Input::Token(token(1, 0, 0) & !(0xF << 60) | (2 << 60)),
            Rejected(DoorbellReject::BadVersion { version: 2 }),
        ),
        row(
            "doorbell replayed (seq 0 again)",
            Doorbell,
            Input::Token(token(0, 0, 0)),
            Rejected(DoorbellReject::StaleSeq { expected: 1, got: 0 }),
        ),
        row(
            "doorbell stale by 2^15 - 1",
            Doorbell,
            Input::Token(token(1u16.wrapping_sub(0x7FFF), 0, 0)),
            Rejected(DoorbellReject::StaleSeq { expected: 1, got: 1u16.wrapping_sub(0x7FFF) }),
        ),
        row(
            "doorbell with a gap (seq 2)",
            Doorbell,
            Input::Token(token(2, 0, 0)),
            Rejected(DoorbellReject::SeqGap { expected: 1, got: 2 }),
        ),
        row(
            "doorbell with index = slots",
            Doorbell,
            Input::Token(token(1, 8, 0)),
            Rejected(DoorbellReject::IndexOutOfRange { index: 8, slots: 8 }),
        ),
        row(
            "doorbell longer than max_length",
            Doorbell,
            Input::Token(token(1, 0, 129)),
            Rejected(DoorbellReject::LengthOutOfRange {
                length: 129 * 64,
                bound: LengthBound::MaxLength,
                limit: 0x2000,
            }),
        ),
        row(
            "doorbell past the end of the local region",
            Doorbell,
            Input::Token(token(1, 7, 65)),
            Rejected(DoorbellReject::LengthOutOfRange {
                length: 65 * 64,
                bound: LengthBound::LocalRegion,
                limit: 0x1000,
            }),
        ),
        row(
            "doorbell past the end of the remote region",
            Doorbell,
            Input::Token(token(1, 7, 48)),
            Rejected(DoorbellReject::LengthOutOfRange {
                length: 3072,
                bound: LengthBound::RemoteRegion,
                limit: 0x4000 - 7 * 0x800,
            }),
        ),
    ]
}

fn check(r: &Row) {
    let name = r.name;
    let mut s = setup(r.setup);
    let before = seen(&s);
    match (&r.input, &r.outcome) {
        (Input::Token(t), Outcome::Rejected(reject)) => {
            let got = s.doorbell(*t);
            let want = HostError::Doorbell(DoorbellRejected { token: *t, reject: *reject });
            assert_eq!(got, Err(want), "{name}");
            let entry = s.expect_completion(Side::Requester, reject.status());
            let (qpn, opcode) = if reject.template_known() {
                (lqp(), WrOpcode::WRITE)
            } else {
                (Qpn::new(0), WrOpcode::NONE)
            };
            assert_eq!(
                entry,
                CompletionRepr {
                    wr_id: *t,
                    status: reject.status(),
                    opcode,
                    qpn,
                    ..CompletionRepr::default()
                }
                .with_timestamp(s.now.0 as u32),
                "{name}: CQE-REJECT-001, stamped with the NIC's clock (CQE-TS-001)"
            );
            s.expect_nothing();
            assert_eq!(seen(&s), before, "{name}: DB-REJECT-001, state unchanged");
        }
        (input, outcome) => {
            let got = match input {
                Input::Packet(p) => s.inject_ctrl(p),
                Input::Write(w) => s.inject(w.clone()),
                Input::Token(_) => unreachable!("tokens are rejected rows"),
            };
            match outcome {
                Outcome::Refused(v, resp) => {
                    assert_eq!(got, Err(HostOrPeer::Peer(v.clone())), "{name}");
                    assert_eq!(v.requirement(), got.unwrap_err().requirement(), "{name}");
                    response(&mut s, *resp, name);
                    s.expect_nothing();
                    let after = seen(&s);
                    // Every refusal counts one violation, a packet for an unknown QP too.
                    let mut expected = before.clone();
                    expected.stats.violations += 1;
                    match resp {
                        Response::Nack(..) => expected.stats.nacks_sent += 1,
                        Response::Nak(..) => expected.stats.acks_sent += 1,
                        Response::Nothing => {}
                    }
                    assert_eq!(after, expected, "{name}: state changed");
                }
                Outcome::Fatal(v, resp) => {
                    assert_eq!(got, Err(HostOrPeer::Peer(v.clone())), "{name}");
                    response(&mut s, *resp, name);
                    s.expect_no_events();
                    s.expect_report(NicReport::QpError {
                        qpn: lqp(),
                        requirement: v.requirement().into(),
                    });
                    s.expect_nothing();
                    assert_eq!(s.nic.qp_in_error(lqp()), Some(true), "{name}");
                    assert_eq!(s.nic.expected_psn(lqp()), before.epsn, "{name}: nothing placed");
                }
                Outcome::Accepted => {
                    assert_eq!(got, Ok(()), "{name}");
                }
                Outcome::Rejected(_) => unreachable!("rejected rows ring a token"),
            }
        }
    }
    follow_up(&mut s, r);
}

fn response(s: &mut Script, resp: Response, name: &str) {
    match resp {
        Response::Nothing => s.expect_no_tx(),
        Response::Nack(psn, reason) => {
            let neth = s.expect_nack(psn, reason);
            assert_eq!(neth.entropy, IN_EV, "{name}: the NACK reflects the packet's EV");
        }
        Response::Nak(syndrome, msn) => {
            s.expect_aeth(syndrome, msn);
        }
    }
}

/// After the hostile input: the accepted history is intact and a valid input still works.
fn follow_up(s: &mut Script, r: &Row) {
    let name = r.name;
    s.advance(10);
    match (r.setup, &r.outcome) {
        (Setup::Receiver, Outcome::Refused(..)) => {
            // MSN 1 completes with the bytes placed before the hostile packet: nothing lost.
            s.accept(write(2, 1, LAST, va(0x4000, 1), 200).dma_len(PMTU + 200).ack_req());
            s.expect_dma(va(0x4000, 1), 200);
            s.expect_flag_len(1, PMTU + 200);
            s.expect_ack(1);
            s.expect_sack(2, 0);
            s.expect_nothing();
            // MSN 0 is still retired: its packet is a duplicate, answered, not placed.
            s.advance(10);
            s.accept(write(0, 0, ONLY, va(0, 0), 100));
            s.expect_sack(2, 0);
            s.expect_ack(1);
            s.expect_nothing();
        }
        (Setup::Receiver | Setup::ReceiverFailed, _) => {
            // The QP is in error: it takes nothing more, and what it retired stays retired.
            let r = s.inject(write(2, 1, LAST, va(0x4000, 1), 200).dma_len(PMTU + 200));
            assert_eq!(r, Err(HostOrPeer::Peer(PeerViolation::QpInError { qpn: lqp() })), "{name}");
            s.expect_nothing();
            assert_eq!(
                s.nic.stats().messages_retired,
                1,
                "{name}: MSN 0 stays the only one retired"
            );
        }
        (Setup::Sender, Outcome::Accepted) => {
            // SND-NACK-003/004: an unknown reason is a resource NACK: reported, no EV
            // changes, PSN 2 resent after nack_backoff on another EV.
            let evs = s.nic.ev_states(lqp());
            s.expect_report(NicReport::Nack {
                qpn: lqp(),
                psn: Psn::new(2),
                reason: NackReason(0x55),
            });
            s.expect_no_tx();
            let t = s.next_timeout().expect("a deadline for the delayed retransmission");
            s.at(t.0);
            s.timeout();
            let (ev, _) = s.expect_rtx(2);
            assert_ne!(ev, EVS[2], "{name}: SND-RTX-002, another EV than the NACKed one");
            let reports = s.take_reports();
            let resent = |r: &NicReport| {
                matches!(r, NicReport::Retransmitted { psn, cause: RetransmitCause::Nack, .. }
                    if *psn == Psn::new(2))
            };
            assert!(reports.iter().any(resent), "{name}: {reports:?}");
            assert_eq!(s.nic.ev_states(lqp()), evs, "{name}: SND-NACK-003, no EV changed");
            sender_completes(s, name);
        }
        (Setup::Sender, _) => sender_completes(s, name),
        (Setup::Doorbell, _) => {
            // DB-SEQ-004: the rejected number is not consumed; seq 1 is accepted.
            let pending = s.nic.pending_messages();
            s.doorbell(token(1, 1, 0)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(s.nic.pending_messages(), pending + 1, "{name}");
            let (_, w) = s.expect_data(1, ONLY);
            assert_eq!(w.reth.va, REGION_BASE + 0x800, "{name}: slot 1 of the template");
            s.expect_nothing();
        }
    }
}

/// PSN 0 stays acknowledged; a valid SACK and AETH complete both messages.
fn sender_completes(s: &mut Script, name: &str) {
    assert_eq!(
        s.nic.send_window(lqp()).map(|w| w.unacked),
        Some(Psn::new(1)),
        "{name}: PSN 0 stays acked"
    );
    s.take_tx();
    s.take_events();
    s.drop_reports();
    s.advance(10);
    s.accept_ctrl(sack(3, 1, 0));
    s.accept_ctrl(aeth(AethRepr::ACK_UNLIMITED_CREDIT, 1));
    let done: Vec<u64> = s
        .take_events()
        .into_iter()
        .filter_map(|e| match e {
            NicEvent::Completion(c) if c.entry.status == CompletionStatus::SUCCESS => {
                Some(c.entry.wr_id)
            }
            _ => None,
        })
        .collect();
    assert_eq!(done, vec![wr(3000, 0, 0).wr_id, wr(100, 0x10000, 1).wr_id], "{name}");
    assert_eq!(s.nic.pending_messages(), 0, "{name}");
}

#[test]
fn hostile_input_catalogue() {
    let rows = rows();
    for r in &rows {
        check(r);
    }
    println!("hostile-input catalogue: {} rows checked", rows.len());
}
