//! Scenarios that start from a restored state (the manifest's `start` table, version 2), so
//! that the width of the MSN counters and of a template's expected sequence number shows:
//! a sender MSN crossing 2^15 and the wrap at 2^16, a responder retiring across both, a
//! duplicate of a message retired before the wrap, and a template's tokens across the
//! wrap of their sequence numbers. From 0 each would need tens of thousands of messages or
//! tokens first.

use super::doorbells::{template, token};
use super::*;
use openrdma_device::{DomainStart, ManifestVersion, TemplateStart};

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("snd-msn-start-high", snd_msn_start_high),
        ("snd-msn-start-wrap", snd_msn_start_wrap),
        ("rcv-msn-start-high", rcv_msn_start_high),
        ("rcv-msn-start-wrap", rcv_msn_start_wrap),
        ("db-seq-start-wrap", db_seq_start_wrap),
    ]
}

/// Marks a manifest as starting from `start` (version 2, `start-state`).
fn restored(m: &mut Manifest, domains: Vec<DomainStart>, templates: Vec<TemplateStart>) {
    m.version = ManifestVersion::V2;
    m.requires.insert(Capability::StartState);
    m.start.domains = domains;
    m.start.templates = templates;
}

/// Domain 0, the domain of the corpus's QPs in shared retirement.
fn domain0(send_msn: u16, recv_msn: u16) -> DomainStart {
    DomainStart { domain: DomainId::new(0), send_msn, recv_msn }
}

/// The device sends four one-packet messages from MSN `first`, each acknowledged.
fn sender_from(name: &str, description: &str, first: u16) -> Scenario {
    let mut r = sender_with(
        name,
        description,
        &[
            "CONF-ADP-021",
            "SND-MSN-001",
            "SND-MSN-002",
            "METH-MSN-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| restored(m, vec![domain0(first, 0)], Vec::new()),
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 4));
    r.checks(&["CONF-ADP-021", "SND-MSN-001", "SND-MSN-002", "METH-MSN-001"]);
    for k in 0..4u32 {
        r.host(1_000 + u64::from(k) * 100, HostCommand::PostWrite(wr(k, 256, None, true)));
    }
    r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 5_000, 1, 0, 1, WireMark::NONE);
    inject_ack(&mut r, 5_000, 1, first.wrapping_add(1), AethRepr::ACK_UNLIMITED_CREDIT);
    inject_sack(&mut r, 8_000, 3, 0, 3, WireMark::NONE);
    inject_ack(&mut r, 8_000, 3, first.wrapping_add(3), AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// A sender MSN that crosses 2^15: bit 15 is carried.
fn snd_msn_start_high() -> Scenario {
    sender_from(
        "snd-msn-start-high",
        "The device starts restored with the MSN counter of its domain at 0x7FFE. It sends \
         four one-packet messages: their METH msn is 0x7FFE, 0x7FFF, 0x8000 and 0x8001, bit \
         15 carried. ACKs of MSN 0x7FFF and 0x8001 complete them.",
        0x7FFE,
    )
}

/// A sender MSN that wraps at 2^16.
fn snd_msn_start_wrap() -> Scenario {
    sender_from(
        "snd-msn-start-wrap",
        "The device starts restored with the MSN counter of its domain at 0xFFFE. It sends \
         four one-packet messages: their METH msn is 0xFFFE, 0xFFFF, 0 and 1, the counter \
         wrapping at 2^16. ACKs of MSN 0xFFFF and 1 complete them.",
        0xFFFE,
    )
}

/// The peer writes four one-packet messages from MSN `first` to a device whose retirement
/// pointer starts there, then resends the second one.
fn responder_from(name: &str, description: &str, first: u16) -> Scenario {
    let mut r = responder_with(
        name,
        description,
        &[
            "CONF-ADP-021",
            "RET-ORDER-001",
            "RET-CAP-002",
            "RCV-ACK-001",
            "RCV-DUP-002",
            "AETH-MSN-001",
        ],
        |m| restored(m, vec![domain0(0, first)], Vec::new()),
    );
    setup(&mut r, 0, false);
    r.checks(&["CONF-ADP-021", "RET-ORDER-001", "RET-CAP-002", "RCV-ACK-001", "AETH-MSN-001"]);
    let msg = |k: u32| {
        let msn = first.wrapping_add(k as u16);
        write(k, msn, Opcode::MRC_WRITE_ONLY, 0, 256, 256, REGION + u64::from(k) * 0x1000, None)
    };
    for k in 0..4u32 {
        r.inject(1_000 + u64::from(k) * 3_000, k as u16, 0xA000_0001 + (k << 16), &msg(k));
    }
    r.checks(&["RCV-DUP-002", "AETH-MSN-001"]);
    r.inject(20_000, 1, 0xA001_0009, &edit(msg(1), |w| w.bth.rtx = true));
    done(r, 40_000)
}

/// A responder that retires across 2^15.
fn rcv_msn_start_high() -> Scenario {
    responder_from(
        "rcv-msn-start-high",
        "The device starts restored with the retirement pointer of its domain at 0x7FFE. \
         The peer writes messages 0x7FFE to 0x8001, one packet each: each retires, with its \
         flag, and is acknowledged with its MSN, bit 15 carried. A duplicate of message \
         0x7FFF is answered with a SACK and the transport ACK of MSN 0x8001.",
        0x7FFE,
    )
}

/// A responder that retires across the wrap at 2^16 and answers a duplicate of a message
/// retired before it.
fn rcv_msn_start_wrap() -> Scenario {
    responder_from(
        "rcv-msn-start-wrap",
        "The device starts restored with the retirement pointer of its domain at 0xFFFE. \
         The peer writes messages 0xFFFE, 0xFFFF, 0 and 1, one packet each: each retires in \
         order across the wrap and is acknowledged. A duplicate of message 0xFFFF, retired \
         before the wrap, is answered with a SACK and the transport ACK of MSN 1.",
        0xFFFE,
    )
}

/// A template whose expected sequence number starts at 0xFFFE takes tokens across the wrap.
fn db_seq_start_wrap() -> Scenario {
    let mut r = sender_with(
        "db-seq-start-wrap",
        "The device starts restored with template 3 expecting seq 0xFFFE. Tokens with seq \
         0xFFFE, 0xFFFF, 0 and 1 each become a one-packet message, the expected seq wrapping \
         at 2^16; a second token with seq 1 repeats one already accepted and is rejected \
         StaleSeq. Once acknowledged, each message writes its sender flag with its seq and \
         its completion.",
        &[
            "CONF-ADP-021",
            "DB-SEQ-001",
            "DB-SEQ-002",
            "DB-SEQ-003",
            "DB-ACCEPT-001",
            "CQE-REJECT-001",
            "FLAG-SEND-001",
            "CQE-SEND-001",
            "WR-EXEC-001",
        ],
        |m| {
            m.requires.insert(Capability::Doorbell);
            restored(m, Vec::new(), vec![TemplateStart { template: 3, seq: 0xFFFE }]);
        },
    );
    setup_evs(&mut r, 0, v4_evs(DUT_QP, 4));
    register_local(&mut r);
    r.host(0, HostCommand::SetTemplate(template(3, WrOpcode::WRITE, true)));
    r.checks(&["CONF-ADP-021", "DB-SEQ-001", "DB-SEQ-003", "DB-ACCEPT-001", "WR-EXEC-001"]);
    for (k, seq) in [0xFFFEu16, 0xFFFF, 0, 1].into_iter().enumerate() {
        let at = 1_000 + k as u64 * 100;
        r.host(at, HostCommand::Doorbell { token: token(3, seq, k as u16, 1) });
    }
    r.checks(&["DB-SEQ-002", "CQE-REJECT-001"]);
    r.host(1_500, HostCommand::Doorbell { token: token(3, 1, 5, 1) });
    r.checks(&["FLAG-SEND-001", "CQE-SEND-001"]);
    inject_sack(&mut r, 5_000, 3, 0, 3, WireMark::NONE);
    inject_ack(&mut r, 5_000, 3, 3, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}
