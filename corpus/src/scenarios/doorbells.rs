//! Doorbells: tokens accepted and rejected, and templates the NIC refuses.

use super::*;

// ===== doorbells ==========================================================================

/// A template of the device's QP: 16 slots of 64 KiB on each side, 64-byte length units.
pub(super) fn template(id: u16, opcode: WrOpcode, signaled: bool) -> Template {
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
pub(super) fn token(template: u16, seq: u16, index: u16, length_units: u16) -> u64 {
    DoorbellToken { version: 1, template: TemplateId::new(template), seq, index, length_units }
        .to_u64()
}

/// Good doorbells expand into messages.
pub(super) fn db_accept() -> Scenario {
    let mut r = doorbell_sender(
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
            "TPL-EXPAND-001",
            "TPL-EXPAND-002",
            "TPL-EXPAND-003",
            "TPL-EXPAND-004",
            "TPL-EXPAND-005",
            "TPL-EXPAND-006",
            "TPL-EXPAND-007",
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
        &[Capability::WriteImmediate],
    );
    install(&mut r, template(3, WrOpcode::WRITE, false));
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
pub(super) fn db_reject() -> Scenario {
    let mut r = doorbell_sender(
        "db-reject",
        "Tokens that fail each doorbell check in turn (version 0 and 2, an unknown \
         template, a replayed seq, a seq ahead of the expected one, an index beyond the \
         slots (alone, and with a range past its region), a length above max_length (also one of 2^32 bytes or more), a local range and a remote range past their \
         regions, a token failing two checks at once, a disabled template) each produce \
         exactly one error completion with its status and the token as wr_id, and nothing \
         else: no packet, no flag, no change of the expected seq, so the good tokens \
         between them are accepted in order. Re-enabling the template keeps its seq. Two \
         tokens whose local range, then remote range, ends exactly at the end of its region \
         are accepted.",
        &[
            "DB-ORDER-001",
            "DB-VERSION-001",
            "DB-TEMPLATE-001",
            "DB-SEQ-001",
            "DB-SEQ-002",
            "DB-SEQ-003",
            "DB-INDEX-001",
            "DB-LENGTH-001",
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
        &[],
    );
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
    // Template 5: 8 slots in regions that hold 16, so that a token at slot 8 fails the
    // index check alone.
    let t5 = Template { slots: 8, default_length: 256, ..template(5, WrOpcode::WRITE, true) };
    // Templates 6 and 7: two slots, the local region of 6 and the remote region of 7
    // ending 320 bytes after slot 1, so that a token of 320 bytes at slot 1 reaches the
    // end of one region exactly, and is accepted.
    let edge = |id: u16, local: u64, remote: u64| Template {
        slots: 2,
        local_stride: 0x1000,
        remote_stride: 0x1000,
        local_region_len: local,
        remote_region_len: remote,
        default_length: 256,
        ..template(id, WrOpcode::WRITE, true)
    };
    let t6 = edge(6, 0x1000 + 320, 0x10_0000);
    let t7 = edge(7, 0x10_0000, 0x1000 + 320);
    // Template 8: 128 KiB length units, so that 32 769 of them make 2^32 + 2^17 bytes, a
    // length a 32-bit product wraps to one unit, which max_length would allow.
    let t8 = Template { length_unit: 0x2_0000, ..template(8, WrOpcode::WRITE, true) };
    r.host(0, HostCommand::SetTemplate(t3));
    r.host(0, HostCommand::SetTemplate(t4));
    r.host(0, HostCommand::SetTemplate(t5));
    r.host(0, HostCommand::SetTemplate(t6));
    r.host(0, HostCommand::SetTemplate(t7));
    r.host(0, HostCommand::SetTemplate(t8));
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
    ring(&mut r, &mut at, &["DB-INDEX-001", "CQE-REJECT-001"], token(5, 0, 8, 1));
    ring(&mut r, &mut at, &["DB-LENGTH-002", "CQE-REJECT-001"], token(3, 1, 1, 0x801));
    ring(&mut r, &mut at, &["DB-LENGTH-003", "CQE-REJECT-001"], token(3, 1, 15, 0x600));
    ring(&mut r, &mut at, &["DB-LENGTH-004", "CQE-REJECT-001"], token(4, 0, 15, 0x600));
    ring(&mut r, &mut at, &["DB-ORDER-001"], token(3, 0, 16, 0x801));
    ring(&mut r, &mut at, &["DB-LENGTH-001", "DB-LENGTH-002"], token(8, 0, 0, 0x8001));
    ring(&mut r, &mut at, &["DB-REJECT-001", "DB-SEQ-001"], token(3, 1, 1, 1));
    ring(&mut r, &mut at, &["DB-SEQ-001"], token(4, 0, 1, 1));
    r.host(at, HostCommand::SetTemplate(Template { enabled: false, ..t3 }));
    ring(&mut r, &mut at, &["DB-TEMPLATE-001"], token(3, 2, 2, 1));
    r.host(at, HostCommand::SetTemplate(t3));
    ring(&mut r, &mut at, &["TPL-INSTALL-003"], token(3, 2, 2, 1));
    // The range checks reject a range past the end, not one that reaches it.
    ring(&mut r, &mut at, &["DB-LENGTH-003", "DB-ACCEPT-001"], token(6, 0, 1, 5));
    ring(&mut r, &mut at, &["DB-LENGTH-004", "DB-ACCEPT-001"], token(7, 0, 1, 5));
    inject_sack(&mut r, at + 3_000, 5, 0, 5, WireMark::NONE);
    r.checks(&["CQE-SEND-001", "FLAG-SEND-003"]);
    inject_ack(&mut r, at + 3_000, 5, 5, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, at + 10_000)
}

/// Every version a token may carry but 1: each is rejected BadVersion.
pub(super) fn db_reject_versions() -> Scenario {
    let mut r = doorbell_sender(
        "db-reject-versions",
        "Tokens of versions 3 to 15, each naming a good template with the expected seq, \
         are each rejected BadVersion with one error completion whose wr_id is the token, \
         and nothing else: no packet, no flag, no change of the expected seq. A decoder \
         that reads fewer than the four bits of the version takes some of them for \
         version 1. A good token after them is accepted with the seq they all carried.",
        &[
            "DB-VERSION-001",
            "DB-ORDER-001",
            "DB-REJECT-001",
            "CQE-REJECT-001",
            "CQE-OPCODE-001",
            "CQE-STATUS-001",
            "DB-ACCEPT-001",
            "DB-SEQ-001",
            "CQE-SEND-001",
            "FLAG-SEND-003",
        ],
        &[],
    );
    register_local(&mut r);
    let t3 = Template { default_length: 256, ..template(3, WrOpcode::WRITE, true) };
    r.host(0, HostCommand::SetTemplate(t3));
    let mut at = 1_000;
    for version in 3..=15u8 {
        r.checks(&["DB-VERSION-001", "CQE-OPCODE-001"]);
        let t = DoorbellToken {
            version,
            template: TemplateId::new(3),
            seq: 0,
            index: 0,
            length_units: 1,
        };
        r.host(at, HostCommand::Doorbell { token: t.to_u64() });
        at += 500;
    }
    r.checks(&["DB-ACCEPT-001", "DB-SEQ-001"]);
    r.host(at, HostCommand::Doorbell { token: token(3, 0, 0, 1) });
    inject_sack(&mut r, at + 3_000, 0, 0, 0, WireMark::NONE);
    r.checks(&["CQE-SEND-001", "FLAG-SEND-003"]);
    inject_ack(&mut r, at + 3_000, 0, 0, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, at + 10_000)
}

// ===== templates the NIC refuses ==========================================================

/// Templates that break a `TPL-*` rule are not installed: tokens naming them are unknown.
pub(super) fn db_bad_templates() -> Scenario {
    let mut r = doorbell_sender(
        "db-bad-templates",
        "Software tries to install templates that each break one rule: a reserved QPN, an \
         unknown opcode, no slots, a length unit that is not a power of two, a max_length \
         above 2^31, a default_length above max_length, a local and a remote region that \
         wrap the address space, local or remote slots that do not fit their region, \
         flag slots past 2^32 or past the end of the flag table. The NIC installs none of \
         them: a token naming each is rejected UnknownTemplate, and a valid template \
         installed last works.",
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
        &[],
    );
    register_local(&mut r);
    // Flag slots inside the QP's table of 256, 16 for each template.
    let base = |id: u16| Template {
        flag_base_slot: 16 * u32::from(id - 9),
        ..template(id, WrOpcode::WRITE, true)
    };
    let bad: [(&str, Template); 12] = [
        ("TPL-QPN-001", Template { qpn: Qpn::new(2), ..base(10) }),
        ("TPL-OPCODE-001", Template { opcode: WrOpcode(5), ..base(11) }),
        ("TPL-SLOTS-001", Template { slots: 0, ..base(12) }),
        ("TPL-UNIT-001", Template { length_unit: 48, ..base(13) }),
        ("TPL-LEN-001", Template { max_length: (1 << 31) + 1, ..base(14) }),
        // The default length (2 MTUs and 100 bytes) above max_length, and nothing else wrong.
        ("TPL-LEN-002", Template { max_length: 0x400, ..base(15) }),
        ("TPL-REGION-001", Template { local_base: u64::MAX - 0x1000, ..base(16) }),
        // A remote region that wraps, whose slots would fit below 2^64: no key check on
        // the remote side refuses it in its place.
        ("TPL-REGION-001", Template { remote_base: 0xFFFF_FFFF_FFF0_1000, ..base(21) }),
        ("TPL-REGION-002", Template { local_region_len: 0x8_0000, ..base(17) }),
        ("TPL-REGION-002", Template { remote_region_len: 0x8_0000, ..base(20) }),
        ("TPL-FLAG-001", Template { flag_base_slot: u32::MAX - 4, ..base(18) }),
        // The first flag slot inside the QP's table, the last past its end.
        ("TPL-FLAG-001", Template { flag_base_slot: 250, ..base(22) }),
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
