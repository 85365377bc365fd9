//! Scenarios for bugs of shared state no other scenario made visible (the eleventh
//! reading): two sending QPs whose numbers agree in their low bits, and two QPs that write
//! their completions into one queue.

use super::cq::{create_cq, qp_on};
use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("snd-x11-qpn-low-bits", snd_x11_qpn_low_bits),
        ("ret-x11-cq-two-qps-one-queue", ret_x11_cq_two_qps_one_queue),
    ]
}

/// QP B is numbered 16 above QP A: a table the device indexes by the QPN's low bits with
/// no tag gives both one entry.
const QP_B: u32 = DUT_QP + 0x10;

/// Two sending QPs whose numbers agree in their four low bits; B's message is acknowledged
/// first, A's later.
fn snd_x11_qpn_low_bits() -> Scenario {
    let mut r = sender_with(
        "snd-x11-qpn-low-bits",
        "QP A is 0x11 and QP B 0x21, two numbers that agree in their four low bits. Each \
         sends one message, A's with MSN 0 and B's with MSN 1 in their one retirement \
         domain. The peer acknowledges B's first (a SACK and a transport ACK to B), then A's: each acknowledgement moves its own QP alone, B's snd_una and its \
         Progress at the first, A's at the second.",
        &["SND-SACK-001", "REC-IF-002", "SND-ACK-001", "CQE-SEND-001"],
        |_| {},
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    // Over IPv4 every EV has its bits 15:0 at 0 (CONF-CMP-017.b).
    r.host(0, HostCommand::CreateQp(QpConfig { evs: v4_evs(DUT_QP, 4), ..qp(DUT_QP, PEER_QP, 0) }));
    r.host(0, HostCommand::CreateQp(QpConfig { evs: v4_evs(QP_B, 4), ..qp(QP_B, PEER_QP + 1, 0) }));
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    let on_b = WorkRequest { qpn: Qpn::new(QP_B), ..wr(1, 64, None, true) };
    r.host(1_000, HostCommand::PostWrite(on_b));
    r.checks(&["SND-SACK-001", "REC-IF-002", "SND-ACK-001", "CQE-SEND-001"]);
    // One retirement domain: A's message takes MSN 0, B's MSN 1.
    acknowledge(&mut r, 3_000, QP_B, PEER_QP + 1, 0, 1);
    r.checks(&["SND-SACK-001", "REC-IF-002", "SND-ACK-001", "CQE-SEND-001"]);
    acknowledge(&mut r, 6_000, DUT_QP, PEER_QP, 0, 0);
    done(r, 16_000)
}

/// Two QPs report to one completion queue; their completions alternate.
fn ret_x11_cq_two_qps_one_queue() -> Scenario {
    let mut r = sender_with(
        "ret-x11-cq-two-qps-one-queue",
        "QPs A and B report their send completions to one queue of eight entries. A's \
         message, then B's, then A's second are acknowledged one by one: the queue's \
         producer index counts the entries of both QPs, so they go to slots 0, 1 and 2 with \
         phase 1, each carrying its own QP's QPN.",
        &["CQE-RING-001", "CQE-ROUTE-001", "CQE-SEND-001", "CQE-LAYOUT-001"],
        |m| {
            m.requires.insert(Capability::CompletionQueues);
        },
    );
    let (a, b) = (DUT_QP, DUT_QP + 1);
    r.host(0, HostCommand::RegisterRegion(region()));
    create_cq(&mut r, 1, 8);
    r.host(0, HostCommand::CreateQp(qp_on(a, PEER_QP, 1, 1)));
    r.host(0, HostCommand::CreateQp(qp_on(b, PEER_QP + 1, 1, 1)));
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    let on_b = WorkRequest { qpn: Qpn::new(b), ..wr(1, 64, None, true) };
    r.host(1_000, HostCommand::PostWrite(on_b));
    r.host(1_000, HostCommand::PostWrite(wr(2, 64, None, true)));
    // One retirement domain: the messages take MSNs 0, 1 and 2 in the order posted.
    let acks = [(a, PEER_QP, 0u32, 0u16), (b, PEER_QP + 1, 0, 1), (a, PEER_QP, 1, 2)];
    let mut at = 3_000;
    for (me, peer, psn, msn) in acks {
        r.checks(&["CQE-RING-001", "CQE-ROUTE-001", "CQE-SEND-001"]);
        acknowledge(&mut r, at, me, peer, psn, msn);
        at += 1_000;
    }
    done(r, at + 10_000)
}
