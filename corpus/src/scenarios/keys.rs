//! Local keys (`spec/host-interface.md` section 3): a template's local region must lie in
//! memory registered for the NIC to read (`TPL-KEY-001`), and stays so while the template
//! is enabled (`TPL-INSTALL-004`, `TPL-KEY-002`). Both are observable through tokens: a
//! token naming a refused or disabled template is rejected as UnknownTemplate.

use openrdma_device::LocalRegion;

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![("db-local-keys", db_local_keys), ("db-deregister", db_deregister)]
}

/// The local region of [`template`]'s slots.
const LOCAL: u64 = 0x4000_0000;

fn local(lkey: u32, base: u64, len: u64, local_read: bool) -> HostCommand {
    HostCommand::RegisterLocal(LocalRegion { lkey: Lkey::new(lkey), base, len, local_read })
}

/// Templates whose local key does not cover them are not installed.
fn db_local_keys() -> Scenario {
    let mut r = doorbell_sender(
        "db-local-keys",
        "Software registers local memory under four keys: one covering the templates' \
         local region and readable by the NIC, one covering it but not readable, one that \
         starts a page too late and one that ends a byte too early. Templates naming an \
         unregistered key, the unreadable one or the short ones are refused: a token naming \
         each is rejected UnknownTemplate. The template under the good key is installed and \
         sends; replacing it by one under a bad key is refused and leaves it working.",
        &[
            "TPL-KEY-001",
            "TPL-INSTALL-001",
            "DB-TEMPLATE-001",
            "CQE-REJECT-001",
            "CQE-OPCODE-001",
            "DB-ACCEPT-001",
            "CQE-SEND-001",
        ],
        &[],
    );
    let len = template(0, WrOpcode::WRITE, true).local_region_len;
    r.host(0, local(1, LOCAL, len, true));
    r.host(0, local(2, LOCAL, len, false));
    r.host(0, local(3, LOCAL + 0x1000, len, true));
    r.host(0, local(4, LOCAL, len - 1, true));
    let bad = [(6, 9), (7, 2), (8, 3), (9, 4)];
    let mut at = 1_000;
    for (id, lkey) in bad {
        r.host(
            at,
            HostCommand::SetTemplate(Template {
                local_lkey: Lkey::new(lkey),
                ..template(id, WrOpcode::WRITE, true)
            }),
        );
        r.checks(&["TPL-KEY-001", "TPL-INSTALL-001"]);
        r.host(at + 100, HostCommand::Doorbell { token: token(id, 0, 0, 1) });
        at += 500;
    }
    let good = template(5, WrOpcode::WRITE, true);
    r.host(at, HostCommand::SetTemplate(good));
    r.checks(&["DB-ACCEPT-001"]);
    r.host(at + 100, HostCommand::Doorbell { token: token(5, 0, 0, 1) });
    at += 500;
    // A replacement under a bad key is refused: the template installed stays.
    r.host(at, HostCommand::SetTemplate(Template { local_lkey: Lkey::new(2), slots: 1, ..good }));
    r.checks(&["TPL-KEY-001", "TPL-INSTALL-001"]);
    r.host(at + 100, HostCommand::Doorbell { token: token(5, 1, 5, 1) });
    inject_sack(&mut r, at + 2_000, 1, 0, 1, WireMark::NONE);
    r.checks(&["CQE-SEND-001"]);
    inject_ack(&mut r, at + 2_000, 1, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, at + 10_000)
}

/// Ending the registration under an installed template disables the template first.
fn db_deregister() -> Scenario {
    let mut r = doorbell_sender(
        "db-deregister",
        "Templates 3 and 4 send from memory registered under keys 1 and 5. Software ends \
         registration 1: the NIC disables template 3 first, so that its next token is \
         rejected UnknownTemplate and reads nothing, while template 4 keeps working. \
         Re-enabling template 3 without a registration is refused; after software \
         registers the memory again, a template installed under the new registration \
         sends.",
        &[
            "TPL-KEY-002",
            "TPL-INSTALL-004",
            "TPL-KEY-001",
            "DB-TEMPLATE-001",
            "CQE-REJECT-001",
            "DB-ACCEPT-001",
            "CQE-SEND-001",
        ],
        &[],
    );
    let t3 = template(3, WrOpcode::WRITE, true);
    let len = t3.local_region_len;
    r.host(0, local(1, LOCAL, len, true));
    r.host(0, local(5, LOCAL, len, true));
    r.host(0, HostCommand::SetTemplate(t3));
    r.host(
        0,
        HostCommand::SetTemplate(Template {
            local_lkey: Lkey::new(5),
            ..template(4, WrOpcode::WRITE, true)
        }),
    );
    r.checks(&["DB-ACCEPT-001"]);
    r.host(1_000, HostCommand::Doorbell { token: token(3, 0, 0, 1) });
    r.host(2_000, HostCommand::DeregisterLocal { lkey: Lkey::new(1) });
    r.checks(&["TPL-KEY-002", "TPL-INSTALL-004"]);
    r.host(2_500, HostCommand::Doorbell { token: token(3, 1, 1, 1) });
    r.checks(&["DB-ACCEPT-001"]);
    r.host(3_000, HostCommand::Doorbell { token: token(4, 0, 0, 1) });
    // Re-enabling template 3 needs a registration that covers it (TPL-KEY-001).
    r.host(3_500, HostCommand::SetTemplate(t3));
    r.checks(&["TPL-KEY-001", "TPL-KEY-002"]);
    r.host(4_000, HostCommand::Doorbell { token: token(3, 1, 1, 1) });
    r.host(4_500, local(1, LOCAL, len, true));
    r.host(4_500, HostCommand::SetTemplate(template(6, WrOpcode::WRITE, true)));
    r.checks(&["DB-ACCEPT-001"]);
    r.host(5_000, HostCommand::Doorbell { token: token(6, 0, 2, 1) });
    inject_sack(&mut r, 8_000, 2, 0, 2, WireMark::NONE);
    r.checks(&["CQE-SEND-001"]);
    inject_ack(&mut r, 8_000, 2, 2, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}
