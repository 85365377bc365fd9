//! Templates changed while tokens arrive (`TPL-INSTALL-002`, `TPL-INSTALL-003`), a template
//! installed while another is in use (`DB-SEQ-001`), and template IDs that a token's 12-bit
//! field cannot name (`TPL-ID-001`).

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("db-template-change", db_template_change),
        ("db-template-install-other", db_template_install_other),
        ("db-template-id", db_template_id),
    ]
}

/// The first version of template 3: unsignaled one-packet Writes of 256 bytes by default.
fn first_version() -> Template {
    Template { default_length: 256, ..template(3, WrOpcode::WRITE, false) }
}

/// The second version: every field a token's expansion reads is different.
fn second_version() -> Template {
    Template {
        opcode: WrOpcode::WRITE_WITH_IMM,
        local_base: 0x4800_0000,
        remote_base: REGION + 0x20_0000,
        local_stride: 0x8000,
        remote_stride: 0x4000,
        length_unit: 16,
        default_length: 128,
        imm_base: 0xCD00_0000,
        flag_base_slot: 200,
        signaled: true,
        ..first_version()
    }
}

/// A template is replaced between tokens, and between tokens at the same instant.
fn db_template_change() -> Scenario {
    let mut r = doorbell_sender(
        "db-template-change",
        "Template 3 is replaced by a second version whose every expanded field differs \
         (opcode, addresses, strides, length unit, default length, immediate base, flag \
         slots, signaling), once between tokens 500 ns apart, then twice more at one \
         instant between tokens of that instant, the same token value being expanded from \
         each version in turn; each token is expanded wholly from the version installed when \
         it arrived, and each installation sets the expected seq to 0. Disabling the \
         template between two tokens of one instant rejects the second as UnknownTemplate; \
         re-enabling it keeps its seq.",
        &[
            "TPL-INSTALL-002",
            "TPL-INSTALL-003",
            "DB-SEQ-001",
            "DB-TEMPLATE-001",
            "DB-ACCEPT-001",
            "TPL-EXPAND-001",
            "TPL-EXPAND-002",
            "TPL-EXPAND-003",
            "TPL-EXPAND-004",
            "TPL-EXPAND-005",
            "TPL-EXPAND-006",
            "TPL-EXPAND-007",
            "WR-SIGNALED-001",
            "FLAG-SEND-001",
            "CQE-SEND-001",
            "CQE-REJECT-001",
        ],
        &[Capability::WriteImmediate],
    );
    let (v1, v2) = (first_version(), second_version());
    // One registration under the templates' key covers the local regions of both versions
    // (TPL-KEY-001).
    let end = (v2.local_base + v2.local_region_len).max(v1.local_base + v1.local_region_len);
    let local = openrdma_device::LocalRegion {
        lkey: v1.local_lkey,
        base: v1.local_base.min(v2.local_base),
        len: end - v1.local_base.min(v2.local_base),
        local_read: true,
    };
    assert_eq!(v1.local_lkey, v2.local_lkey, "one key for both versions");
    r.host(0, HostCommand::RegisterLocal(local));
    r.host(0, HostCommand::SetTemplate(v1));
    let ring = |r: &mut Recorder, at: u64, checks: &[&str], token: u64| {
        r.checks(checks);
        r.host(at, HostCommand::Doorbell { token });
    };
    let change = ["TPL-INSTALL-002", "TPL-EXPAND-002", "TPL-EXPAND-003", "TPL-EXPAND-005"];
    ring(&mut r, 1_000, &change, token(3, 0, 2, 0));
    r.host(1_500, HostCommand::SetTemplate(v2));
    ring(&mut r, 2_000, &change, token(3, 0, 3, 4));
    r.host(2_000, HostCommand::SetTemplate(v1));
    ring(&mut r, 2_000, &change, token(3, 0, 3, 4));
    r.host(2_000, HostCommand::SetTemplate(v2));
    ring(&mut r, 2_000, &change, token(3, 0, 5, 0));
    ring(&mut r, 3_000, &change, token(3, 1, 6, 0));
    r.host(3_000, HostCommand::SetTemplate(Template { enabled: false, ..v2 }));
    ring(&mut r, 3_000, &["TPL-INSTALL-002", "DB-TEMPLATE-001"], token(3, 2, 7, 0));
    r.host(3_000, HostCommand::SetTemplate(v2));
    ring(&mut r, 3_000, &["TPL-INSTALL-003", "DB-SEQ-001"], token(3, 2, 7, 0));
    inject_sack(&mut r, 6_000, 5, 0, 5, WireMark::NONE);
    r.checks(&["TPL-INSTALL-002", "FLAG-SEND-001", "CQE-SEND-001"]);
    inject_ack(&mut r, 6_000, 5, 5, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// Installing a template sets its own expected seq to 0 and no other template's.
fn db_template_install_other() -> Scenario {
    let mut r = doorbell_sender(
        "db-template-install-other",
        "Template 3 accepts the tokens of seq 0 and 1. Template 5 is then installed, which \
         sets its own expected seq to 0 and leaves template 3's at 2: the next token of \
         template 3, seq 2, is accepted, and so is template 5's first token, seq 0. Each \
         expands into a one-packet Write that completes once acknowledged.",
        &["DB-SEQ-001", "TPL-INSTALL-003", "DB-ACCEPT-001", "CQE-SEND-001", "FLAG-SEND-001"],
        &[],
    );
    install(&mut r, template(3, WrOpcode::WRITE, true));
    r.host(1_000, HostCommand::Doorbell { token: token(3, 0, 0, 4) });
    r.host(1_100, HostCommand::Doorbell { token: token(3, 1, 1, 4) });
    r.host(2_000, HostCommand::SetTemplate(template(5, WrOpcode::WRITE, true)));
    r.checks(&["DB-SEQ-001", "TPL-INSTALL-003", "DB-ACCEPT-001"]);
    r.host(3_000, HostCommand::Doorbell { token: token(3, 2, 2, 4) });
    r.checks(&["DB-SEQ-001", "DB-ACCEPT-001"]);
    r.host(3_100, HostCommand::Doorbell { token: token(5, 0, 0, 4) });
    inject_sack(&mut r, 9_000, 3, 0, 3, WireMark::NONE);
    r.checks(&["CQE-SEND-001", "FLAG-SEND-001"]);
    inject_ack(&mut r, 9_000, 3, 3, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// Template IDs of 4096 and more are refused, whatever their low 12 bits name.
fn db_template_id() -> Scenario {
    let mut r = doorbell_sender(
        "db-template-id",
        "Software tries to install templates with IDs 4101, 65535 and 4096, which a token's \
         12-bit template field cannot name: the NIC refuses each, so a token naming 5 (4101's \
         low 12 bits, never installed) and one naming 0 (4096's) are rejected as \
         UnknownTemplate, and template 4095, the largest ID, installed before 65535 was \
         tried, keeps its version and its expected seq.",
        &[
            "TPL-ID-001",
            "TPL-INSTALL-001",
            "DB-TEMPLATE-001",
            "DB-ACCEPT-001",
            "DB-SEQ-001",
            "CQE-REJECT-001",
            "CQE-OPCODE-001",
            "CQE-SEND-001",
        ],
        &[],
    );
    register_local(&mut r);
    let tpl = |id: u16| Template {
        default_length: 256,
        flag_base_slot: 100,
        ..template(id, WrOpcode::WRITE, true)
    };
    r.host(1_000, HostCommand::SetTemplate(tpl(4096 + 5)));
    r.checks(&["TPL-ID-001", "TPL-INSTALL-001", "DB-TEMPLATE-001"]);
    r.host(1_100, HostCommand::Doorbell { token: token(5, 0, 0, 1) });
    r.host(1_200, HostCommand::SetTemplate(tpl(4095)));
    r.checks(&["DB-ACCEPT-001"]);
    r.host(1_300, HostCommand::Doorbell { token: token(4095, 0, 0, 1) });
    // A larger, different template under an ID whose low bits are 4095.
    let wide = Template { remote_stride: 0x8000, signaled: false, ..tpl(0xFFFF) };
    r.host(1_400, HostCommand::SetTemplate(wide));
    r.checks(&["TPL-ID-001", "DB-SEQ-001"]);
    r.host(1_500, HostCommand::Doorbell { token: token(4095, 1, 1, 1) });
    r.host(1_600, HostCommand::SetTemplate(tpl(4096)));
    r.checks(&["TPL-ID-001", "TPL-INSTALL-001", "DB-TEMPLATE-001"]);
    r.host(1_700, HostCommand::Doorbell { token: token(0, 0, 0, 1) });
    inject_sack(&mut r, 4_000, 1, 0, 1, WireMark::NONE);
    r.checks(&["CQE-SEND-001"]);
    inject_ack(&mut r, 4_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 12_000)
}
