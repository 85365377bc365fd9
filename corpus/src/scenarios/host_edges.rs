//! The host interface where several things meet in one instant or a field is at its limit
//! (`spec/host-interface.md` sections 2 to 6): tokens of two templates and two tokens of
//! one template rung together, a token of all-ones length units, template 4095, a sender
//! flag slot above 2^16, a zero-length message after one with a length, and a completion
//! queue of one entry that wraps at every entry beside a device error queue that does not.

use openrdma_device::{CqConfig, CqId};

use super::cq::qp_on;

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![("db-same-instant", db_same_instant)]
}

/// Slot 0 of the send queue of this scenario, of one entry, and of the device error queue.
const SEND_CQ_BASE: u64 = 0x5100_0000;
const ERROR_CQ_BASE: u64 = 0x5101_0000;

/// Four tokens in one instant, then the acknowledgements one by one into a queue of one
/// entry that the consumer releases in between.
fn db_same_instant() -> Scenario {
    let mut r = sender_with(
        "db-same-instant",
        "Templates 3 (64 bytes by default) and 4095 (0 bytes by default, flag slots from \
         0xFFFF) of one QP, both signaled. Four tokens reach the NIC at one instant: 3 seq \
         0, 4095 seq 0 at slot 1, 3 seq 1, and 4095 seq 1 with 0xFFFF length units, too \
         long. The first three become messages 0 to 2, each expanded from its own \
         template and checked against its own template's seq; the zero-length message's \
         sender flag lands in slot 0x10000 with byte_len 0. The fourth is rejected \
         LENGTH_OUT_OF_RANGE into the QP's send queue of one entry, which wraps at every \
         entry: the consumer releases each entry before the next acknowledgement, and the \
         phase flips at each. A BadVersion token between two of them completes in the \
         device error queue with the phase of that queue's first pass.",
        &[
            "DB-ACCEPT-001",
            "DB-SEQ-001",
            "DB-TEMPLATE-001",
            "DB-LENGTH-001",
            "DB-LENGTH-002",
            "DB-ORDER-001",
            "TPL-EXPAND-006",
            "FLAG-SEND-001",
            "FLAG-LEN-001",
            "CQE-SEND-001",
            "CQE-REJECT-001",
            "CQE-REJECT-002",
            "CQE-RING-001",
            "CQE-RING-004",
        ],
        |m| {
            m.requires.insert(Capability::Doorbell);
            m.requires.insert(Capability::CompletionQueues);
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    let send = CqId::new(1);
    let error = CqId::new(2);
    r.host(0, HostCommand::CreateCq(CqConfig { cq: send, base: SEND_CQ_BASE, entries: 1 }));
    r.host(0, HostCommand::CreateCq(CqConfig { cq: error, base: ERROR_CQ_BASE, entries: 4 }));
    r.host(0, HostCommand::SetErrorCq { cq: error });
    let qp = QpConfig { send_flag_slots: 0x1_0010, ..qp_on(DUT_QP, PEER_QP, 1, 1) };
    r.host(0, HostCommand::CreateQp(qp));
    let a = Template { default_length: 64, ..template(3, WrOpcode::WRITE, true) };
    let b = Template {
        default_length: 0,
        flag_base_slot: 0xFFFF,
        ..template(4095, WrOpcode::WRITE, true)
    };
    register_local_of(&mut r, &a);
    r.host(0, HostCommand::SetTemplate(a));
    r.host(0, HostCommand::SetTemplate(b));
    r.checks(&["DB-ACCEPT-001", "DB-SEQ-001", "DB-LENGTH-002"]);
    r.host(1_000, HostCommand::Doorbell { token: token(3, 0, 0, 0) });
    r.host(1_000, HostCommand::Doorbell { token: token(4095, 0, 1, 0) });
    r.host(1_000, HostCommand::Doorbell { token: token(3, 1, 1, 0) });
    r.host(1_000, HostCommand::Doorbell { token: token(4095, 1, 0, 0xFFFF) });
    r.checks(&["CQE-RING-001", "CQE-RING-004", "CQE-SEND-001", "FLAG-SEND-001"]);
    let bad_version = token(3, 2, 2, 0) & !(0xF << 60) | 2 << 60;
    // Each release and the BadVersion token come 3 us after the entry before them is due,
    // more than a device may delay it (late_ns), so that no legal latency reorders them.
    r.host(2_000, HostCommand::CqConsumer { cq: send, consumed: 1 });
    let mut at = 5_000;
    for msn in 0..3u16 {
        let psn = u32::from(msn);
        inject_sack(&mut r, at, psn, 0, psn, WireMark::NONE);
        inject_ack(&mut r, at, psn, msn, AethRepr::ACK_UNLIMITED_CREDIT);
        let consumed = u32::from(msn) + 2;
        r.host(at + 3_000, HostCommand::CqConsumer { cq: send, consumed });
        if msn == 0 {
            r.host(at + 3_500, HostCommand::Doorbell { token: bad_version });
        }
        at += 5_000;
    }
    done(r, at + 10_000)
}
