//! Completion queues (`spec/host-interface.md` section 5.3): where each entry goes in its
//! ring and with which phase, the consumer register, a full queue, the queue of each side
//! and of each rejected token. Every entry here is judged from the 32 bytes the device
//! wrote, at the slot and address it wrote them.

use openrdma_device::{CqConfig, CqId};

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("ret-cq-wrap", ret_cq_wrap),
        ("ret-cq-overflow", ret_cq_overflow),
        ("ret-cq-consumer-total", ret_cq_consumer_total),
        ("rcv-cq-receive", rcv_cq_receive),
        ("rcv-cq-two-qps", rcv_cq_two_qps),
        ("db-reject-queues", db_reject_queues),
    ]
}

/// Slot 0 of the first completion queue of these scenarios; the others follow at 64 KiB.
const CQ_BASE: u64 = 0x5000_0000;

pub(super) fn create_cq(r: &mut Recorder, cq: u32, entries: u32) {
    let base = CQ_BASE + u64::from(cq - 1) * 0x1_0000;
    r.host(0, HostCommand::CreateCq(CqConfig { cq: CqId::new(cq), base, entries }));
}

/// The region and two device QPs, each reporting to a queue of its own of four entries (1
/// and 2): the QPNs of the two.
pub(super) fn two_qps_own_queues(r: &mut Recorder) -> (u32, u32) {
    let (a, b) = (DUT_QP, DUT_QP + 1);
    r.host(0, HostCommand::RegisterRegion(region()));
    create_cq(r, 1, 4);
    create_cq(r, 2, 4);
    r.host(0, HostCommand::CreateQp(qp_on(a, PEER_QP, 1, 1)));
    r.host(0, HostCommand::CreateQp(qp_on(b, PEER_QP + 1, 2, 2)));
    (a, b)
}

/// The region and the device's QP, reporting both sides to queue 1 of `entries` entries.
fn one_qp_one_queue(r: &mut Recorder, entries: u32) {
    r.host(0, HostCommand::RegisterRegion(region()));
    create_cq(r, 1, entries);
    r.host(0, HostCommand::CreateQp(qp_on(DUT_QP, PEER_QP, 1, 1)));
}

/// Device QP `me`, facing peer QP `peer`, reporting to `send_cq` and `recv_cq`.
pub(super) fn qp_on(me: u32, peer: u32, send_cq: u32, recv_cq: u32) -> QpConfig {
    QpConfig {
        evs: v4_evs(me, 4),
        send_cq: Some(CqId::new(send_cq)),
        recv_cq: Some(CqId::new(recv_cq)),
        ..qp(me, peer, 0)
    }
}

/// Six completions in a queue of four: the ring wraps and the phase flips.
fn ret_cq_wrap() -> Scenario {
    let mut r = sender_with(
        "ret-cq-wrap",
        "The device's QP reports to a completion queue of four entries. Six signaled \
         Writes are acknowledged one by one; after the fourth completion the consumer \
         releases two entries through the consumer register. Entries 0 to 3 go to slots 0 \
         to 3 with phase 1, entries 4 and 5 to slots 0 and 1 with phase 0, each at the \
         queue's base plus 32 bytes a slot, as one aligned 32-byte write laid out as table 7 \
         with its reserved bits 0 and the NIC's clock in its timestamp.",
        &[
            "CQE-RING-001",
            "CQE-RING-003",
            "CQE-RING-004",
            "CQE-ROUTE-001",
            "CQE-LAYOUT-001",
            "CQE-RESV-001",
            "CQE-TS-001",
            "CQE-SEND-001",
            "CQE-SEND-003",
        ],
        |m| {
            m.requires.insert(Capability::CompletionQueues);
        },
    );
    one_qp_one_queue(&mut r, 4);
    for k in 0..6 {
        r.host(1_000, HostCommand::PostWrite(wr(k, 64, None, true)));
    }
    let mut at = 3_000;
    for k in 0..6u32 {
        if k == 4 {
            r.host(at, HostCommand::CqConsumer { cq: CqId::new(1), consumed: 2 });
            r.checks(&["CQE-RING-001", "CQE-RING-004"]);
        } else if k < 4 {
            r.checks(&["CQE-RING-001", "CQE-LAYOUT-001", "CQE-SEND-001"]);
        }
        acknowledge(&mut r, at, DUT_QP, PEER_QP, k, k as u16);
        at += 1_000;
    }
    done(r, at + 10_000)
}

/// The consumer register holds a total, not a slot: after the consumer has gone round the
/// ring, a queue with free slots is not full.
fn ret_cq_consumer_total() -> Scenario {
    let mut r = sender_with(
        "ret-cq-consumer-total",
        "The device's QP reports to a completion queue of four entries. Ten signaled Writes \
         are acknowledged one by one. Before the fifth, seventh and ninth completions the \
         consumer writes 2, 4 and 6 to the consumer register: from 4 on, a total that has \
         gone round the ring, which leaves two entries in use, not all four. Every entry is \
         written, slot after slot with the phase flipping at each wrap, and the QP stays out \
         of the error state.",
        &["CQE-RING-004", "CQE-RING-001", "CQE-RING-003", "CQE-SEND-001", "RET-ERR-002"],
        |m| {
            m.requires.insert(Capability::CompletionQueues);
        },
    );
    one_qp_one_queue(&mut r, 4);
    for k in 0..10 {
        r.host(1_000, HostCommand::PostWrite(wr(k, 64, None, true)));
    }
    let mut at = 3_000;
    for k in 0..10u32 {
        // Each release comes 2 us after the last entry it releases is due, so that it never
        // releases an entry not yet written by a device that writes it late (CQE-RING-006).
        if k >= 4 && k % 2 == 0 {
            r.host(at, HostCommand::CqConsumer { cq: CqId::new(1), consumed: k - 2 });
        }
        if k >= 6 {
            r.checks(&["CQE-RING-004", "CQE-RING-001", "RET-ERR-002"]);
        }
        acknowledge(&mut r, at, DUT_QP, PEER_QP, k, k as u16);
        at += 1_000;
    }
    done(r, at + 10_000)
}

/// A full queue stops, and every QP that reports to it, and only those, enters the error
/// state.
fn ret_cq_overflow() -> Scenario {
    let mut r = sender_with(
        "ret-cq-overflow",
        "Per-QP retirement. QPs A and B report to a completion queue of two entries, QP C \
         to a queue of its own. A sends three signaled Writes and B one; one transport ACK \
         completes A's three: the first two entries fill the queue, the third finds no free \
         slot and is not written, though its flag is. Once that input is handled, A and B \
         enter the error state, each reported with the cause CQE-RING-004, and B's pending \
         message completes FLUSHED (its flag written, its entry not). C is unaffected: its \
         message completes later into its own queue. The consumer's later release does not \
         restart the stopped queue: QP D, created on it after the release, completes its \
         signaled Write with its flag but no entry.",
        &[
            "CQE-RING-004",
            "CQE-RING-005",
            "CQE-RING-001",
            "CQE-ROUTE-001",
            "RET-ERR-002",
            "RET-FLUSH-001",
            "REC-IF-009",
            "FLAG-SEND-001",
            "CQE-SEND-001",
            "CQE-LAYOUT-001",
        ],
        |m| {
            m.nic.retirement = RetirementMode::PerQp;
            m.requires.insert(Capability::PerQpRetirement);
            m.requires.insert(Capability::CompletionQueues);
        },
    );
    let (a, b, c) = (DUT_QP, DUT_QP + 1, DUT_QP + 2);
    r.host(0, HostCommand::RegisterRegion(region()));
    create_cq(&mut r, 1, 2);
    create_cq(&mut r, 2, 4);
    r.host(0, HostCommand::CreateQp(qp_on(a, PEER_QP, 1, 1)));
    r.host(0, HostCommand::CreateQp(qp_on(b, PEER_QP + 1, 1, 1)));
    r.host(0, HostCommand::CreateQp(qp_on(c, PEER_QP + 2, 2, 2)));
    for k in 0..3 {
        r.host(1_000, HostCommand::PostWrite(wr(k, 64, None, true)));
    }
    let on = |qpn: u32, k: u32| WorkRequest { qpn: Qpn::new(qpn), ..wr(k, 64, None, true) };
    r.host(1_000, HostCommand::PostWrite(on(b, 10)));
    r.host(1_000, HostCommand::PostWrite(on(c, 20)));
    r.checks(&["CQE-RING-004", "RET-ERR-002", "RET-FLUSH-001"]);
    r.run_until(3_000);
    let ev = r.sent_ev(PEER_QP, 2).expect("sent");
    r.inject(3_000, port_of(ev, 4), ev, &sack_in(2, 0, 2, WireMark::NONE, ev));
    r.inject(3_000, 0, 0xA000_0000, &ack_in(2, 2, AethRepr::ACK_UNLIMITED_CREDIT));
    r.checks(&["CQE-RING-004"]);
    // The release comes after the two entries are due even from a device that writes them
    // `late_ns` (2 us) after the acknowledgement: it never releases an entry not yet
    // written (CQE-RING-006).
    r.host(5_500, HostCommand::CqConsumer { cq: CqId::new(1), consumed: 2 });
    r.checks(&["CQE-ROUTE-001", "CQE-RING-001"]);
    let d = DUT_QP + 3;
    r.host(6_000, HostCommand::CreateQp(qp_on(d, PEER_QP + 3, 1, 1)));
    r.host(6_000, HostCommand::PostWrite(on(d, 30)));
    acknowledge(&mut r, 6_500, c, PEER_QP + 2, 0, 0);
    r.checks(&["CQE-RING-005"]);
    acknowledge(&mut r, 8_000, d, PEER_QP + 3, 0, 0);
    done(r, 20_000)
}

/// Receive completions go to the receive queue; a full one fails the QP.
fn rcv_cq_receive() -> Scenario {
    let mut r = responder_with(
        "rcv-cq-receive",
        "The device's QP reports to a send completion queue of four entries and a receive \
         completion queue of two. Write-with-Immediate messages 0, 2 and 3 write receive \
         completions into the receive queue (slots 0, 1, then 0 with phase 0, after the \
         consumer released one entry); the plain Write 1 writes none. Message 4 retires, with \
         its flag and its acknowledgement, but its completion finds the queue full and is not \
         written: the QP then enters the error state (cause CQE-RING-004) and discards \
         message 5 without a response.",
        &[
            "CQE-ROUTE-001",
            "CQE-RING-001",
            "CQE-RING-003",
            "CQE-RING-004",
            "CQE-RING-005",
            "CQE-LAYOUT-001",
            "CQE-RESV-001",
            "CQE-RECV-001",
            "RET-ERR-002",
            "REC-IF-009",
            "RCV-QP-002",
        ],
        |m| {
            m.requires.insert(Capability::WriteImmediate);
            m.requires.insert(Capability::CompletionQueues);
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    create_cq(&mut r, 1, 4);
    create_cq(&mut r, 2, 2);
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            send_cq: Some(CqId::new(1)),
            recv_cq: Some(CqId::new(2)),
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    let mut at = 1_000;
    for m in 0..6u16 {
        if m == 3 {
            r.host(at, HostCommand::CqConsumer { cq: CqId::new(2), consumed: 1 });
        }
        let checks: &[&str] = match m {
            0 | 2 => &["CQE-ROUTE-001", "CQE-RING-001", "CQE-LAYOUT-001"],
            1 => &["CQE-RECV-001"],
            3 => &["CQE-RING-001", "CQE-RING-004"],
            4 => &["CQE-RING-004", "CQE-RING-005", "RET-ERR-002"],
            _ => &["RCV-QP-002"],
        };
        r.checks(checks);
        let (opcode, imm) = match m {
            1 => (Opcode::MRC_WRITE_ONLY, None),
            _ => (Opcode::MRC_WRITE_ONLY_IMM, Some(0xC0DE_0000 + u32::from(m))),
        };
        let base = REGION + u64::from(m) * 0x1000;
        // METH-RQMSN-001: the plain Write 1 carries the RQMSN of the next Write-with-Immediate.
        let rqmsn = 1 + (0..m).filter(|&x| x != 1).count() as u16;
        let p = edit(write(u32::from(m), m, opcode, 0, 64, 64, base, imm), |w| {
            w.meth.rqmsn = Rqmsn::new(rqmsn)
        });
        r.inject(at, m % 4, 0xA000_0001 + (u32::from(m) << 16), &p);
        at += 1_000;
    }
    done(r, at + 10_000)
}

/// Two QPs write receive completions, each its own QPN.
fn rcv_cq_two_qps() -> Scenario {
    let mut r = responder_with(
        "rcv-cq-two-qps",
        "Per-QP retirement. QP A reports receive completions to queue 1, QP B to queue 2. \
         A Write-with-Immediate to A, then one to B, then another to A: each receive \
         completion goes to its QP's queue and carries that QP's QPN, its MSN and its \
         immediate.",
        &["CQE-RECV-001", "CQE-ROUTE-001", "CQE-RING-001", "CQE-LAYOUT-001"],
        |m| {
            m.nic.retirement = RetirementMode::PerQp;
            m.requires.insert(Capability::PerQpRetirement);
            m.requires.insert(Capability::WriteImmediate);
            m.requires.insert(Capability::CompletionQueues);
        },
    );
    let (a, b) = two_qps_own_queues(&mut r);
    let sends = [(a, 0u16, 0x0A00_0000u32), (b, 0, 0x0B00_0000), (a, 1, 0x0A00_0001)];
    let mut at = 1_000;
    for (k, &(qpn, msn, imm)) in sends.iter().enumerate() {
        r.checks(&["CQE-RECV-001", "CQE-ROUTE-001"]);
        let base = REGION + k as u64 * 0x1000;
        let p = edit(
            write(u32::from(msn), msn, Opcode::MRC_WRITE_ONLY_IMM, 0, 64, 64, base, Some(imm)),
            |w| {
                w.bth.dest_qp = Qpn::new(qpn);
                w.meth.rqmsn = Rqmsn::new(msn + 1);
            },
        );
        r.inject(at, k as u16, 0xA000_0001 + ((k as u32) << 16), &p);
        at += 1_000;
    }
    done(r, at + 10_000)
}

/// The completion of a rejected token goes to the send queue of the template's QP, or to
/// the device error queue when the rejection names no template.
fn db_reject_queues() -> Scenario {
    let mut r = sender_with(
        "db-reject-queues",
        "Per-QP retirement. QP A reports to completion queue 1 and QP B to queue 3; queue 2 \
         is the device error queue. Template 3 sends on A, template 4 on B. Tokens with a \
         bad version or an unknown template complete into the error queue; a stale seq on \
         template 3 into A's queue; a seq gap and an index out of range on template 4 into \
         B's queue; the accepted tokens' completions into their QPs' queues, each queue \
         counting its own slots.",
        &[
            "CQE-REJECT-002",
            "CQE-REJECT-001",
            "CQE-ROUTE-001",
            "CQE-RING-001",
            "CQE-LAYOUT-001",
            "CQE-RESV-001",
            "CQE-OPCODE-001",
            "DB-ACCEPT-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.nic.retirement = RetirementMode::PerQp;
            m.requires.insert(Capability::PerQpRetirement);
            m.requires.insert(Capability::Doorbell);
            m.requires.insert(Capability::CompletionQueues);
        },
    );
    let (a, b) = (DUT_QP, DUT_QP + 1);
    r.host(0, HostCommand::RegisterRegion(region()));
    register_local(&mut r);
    create_cq(&mut r, 1, 8);
    create_cq(&mut r, 2, 4);
    create_cq(&mut r, 3, 8);
    r.host(0, HostCommand::SetErrorCq { cq: CqId::new(2) });
    r.host(0, HostCommand::CreateQp(qp_on(a, PEER_QP, 1, 1)));
    r.host(0, HostCommand::CreateQp(qp_on(b, PEER_QP + 1, 3, 3)));
    r.host(0, HostCommand::SetTemplate(template(3, WrOpcode::WRITE, true)));
    let t4 = Template { qpn: Qpn::new(b), ..template(4, WrOpcode::WRITE, true) };
    r.host(0, HostCommand::SetTemplate(t4));
    let mut at = 1_000;
    let mut ring = |r: &mut Recorder, checks: &[&str], token: u64| {
        r.checks(checks);
        r.host(at, HostCommand::Doorbell { token });
        at += 500;
    };
    let bad_version = DoorbellToken {
        version: 0,
        template: TemplateId::new(3),
        seq: 0,
        index: 0,
        length_units: 1,
    }
    .to_u64();
    ring(&mut r, &["DB-ACCEPT-001"], token(3, 0, 0, 1));
    ring(&mut r, &["CQE-REJECT-002", "CQE-OPCODE-001"], bad_version);
    ring(&mut r, &["CQE-REJECT-002", "CQE-OPCODE-001"], token(9, 0, 0, 1));
    ring(&mut r, &["CQE-REJECT-002", "CQE-REJECT-001"], token(3, 0, 1, 1));
    ring(&mut r, &["CQE-REJECT-002", "CQE-REJECT-001"], token(4, 5, 0, 1));
    ring(&mut r, &["CQE-REJECT-002", "CQE-REJECT-001"], token(4, 0, 16, 1));
    ring(&mut r, &["DB-ACCEPT-001"], token(4, 0, 0, 1));
    r.checks(&["CQE-ROUTE-001", "CQE-SEND-001"]);
    acknowledge(&mut r, 6_000, a, PEER_QP, 0, 0);
    acknowledge(&mut r, 7_000, b, PEER_QP + 1, 0, 0);
    done(r, 20_000)
}
