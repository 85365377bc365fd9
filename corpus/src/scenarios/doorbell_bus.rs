//! Doorbell writes as they cross the bus (`HostCommand::DoorbellWrite`): only one aligned
//! write of all 8 bytes carries a token (`DB-MMIO-002`), read little-endian
//! (`DB-FORMAT-002`), and the token alone decides, whichever register it reached
//! (`DB-MMIO-003`). A device whose harness can present only whole tokens lacks the
//! `doorbell-bus` capability, and these scenarios are `unsupported` for it.

use openrdma_device::DoorbellWrite;

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![("db-bus-partial-writes", db_bus_partial_writes), ("db-bus-registers", db_bus_registers)]
}

/// A requester scenario that presents doorbells as bus writes.
fn bus_sender(name: &str, description: &str, reqs: &[&str]) -> Recorder {
    doorbell_sender(name, description, reqs, &[Capability::DoorbellBus])
}

/// One bus write of `bytes` at byte `offset` of doorbell register `register`.
fn bus_write(r: &mut Recorder, at: u64, register: u32, offset: u8, bytes: &[u8]) {
    let w = DoorbellWrite { register, offset, bytes: bytes.to_vec() };
    r.host(at, HostCommand::DoorbellWrite(w));
}

/// A token written as a producer writes it: one aligned 8-byte store.
fn ring(r: &mut Recorder, at: u64, register: u32, token: u64) {
    r.host(at, HostCommand::DoorbellWrite(DoorbellWrite::of_token(register, token)));
}

/// Writes that are not one aligned write of all 8 bytes carry no token.
fn db_bus_partial_writes() -> Scenario {
    let mut r = bus_sender(
        "db-bus-partial-writes",
        "The bytes of a valid token reach doorbell registers in writes that are not one \
         aligned write of all 8 bytes: its low half, then its high half, the token without \
         its first byte and without its last (byte enables missing), the token straddling \
         two registers, two tokens write-combined into one 16-byte write, an empty write. \
         The NIC acts on none of them: no packet, no completion, and the token's seq is \
         still expected when the token then comes as one aligned 8-byte write. A second \
         token, whose bytes read big-endian would name another template, is taken \
         little-endian.",
        &[
            "DB-MMIO-002",
            "DB-FORMAT-002",
            "DB-FORMAT-001",
            "DB-SEQ-001",
            "DB-ACCEPT-001",
            "TPL-EXPAND-002",
            "TPL-EXPAND-003",
            "TPL-EXPAND-004",
            "CQE-SEND-001",
            "FLAG-SEND-001",
        ],
    );
    install(&mut r, template(3, WrOpcode::WRITE, true));
    let t0 = token(3, 0, 2, 1).to_le_bytes();
    let t1 = token(3, 1, 5, 20);
    // Read big-endian, t1's bytes would be version 1, template 0x400: a device reading
    // them so rejects t1 as UnknownTemplate instead of sending slot 5.
    assert_eq!(
        DoorbellToken::from_u64(u64::from_be_bytes(t1.to_le_bytes())).template,
        TemplateId::new(0x400)
    );
    bus_write(&mut r, 1_000, 0, 0, &t0[..4]);
    bus_write(&mut r, 1_100, 0, 4, &t0[4..]);
    bus_write(&mut r, 1_200, 0, 1, &t0[1..]);
    bus_write(&mut r, 1_300, 0, 0, &t0[..7]);
    bus_write(&mut r, 1_400, 0, 4, &t0);
    bus_write(&mut r, 1_500, 0, 0, &[t0, t1.to_le_bytes()].concat());
    bus_write(&mut r, 1_600, 0, 0, &[]);
    r.checks(&["DB-MMIO-002", "DB-SEQ-001", "TPL-EXPAND-002"]);
    ring(&mut r, 2_000, 0, u64::from_le_bytes(t0));
    r.checks(&["DB-FORMAT-002", "TPL-EXPAND-003", "TPL-EXPAND-004"]);
    ring(&mut r, 2_100, 0, t1);
    inject_sack(&mut r, 5_000, 2, 0, 2, WireMark::NONE);
    r.checks(&["DB-MMIO-002", "CQE-SEND-001", "FLAG-SEND-001"]);
    inject_ack(&mut r, 5_000, 2, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 12_000)
}

/// The token alone decides, whichever register receives it.
fn db_bus_registers() -> Scenario {
    let mut r = bus_sender(
        "db-bus-registers",
        "Tokens of two templates reach the NIC through doorbell registers 0, 7, 3 and 1023, \
         each template's tokens through several registers: each is checked and expanded from \
         its 64 bits alone, the expected seq being the template's whichever register \
         carried the token, so a token replayed through another register is StaleSeq.",
        &[
            "DB-MMIO-003",
            "DB-SEQ-001",
            "DB-SEQ-002",
            "DB-ACCEPT-001",
            "TPL-EXPAND-002",
            "TPL-EXPAND-003",
            "CQE-REJECT-001",
            "CQE-SEND-001",
            "FLAG-SEND-001",
        ],
    );
    install(&mut r, template(3, WrOpcode::WRITE, true));
    r.host(0, HostCommand::SetTemplate(template(4, WrOpcode::WRITE, true)));
    r.checks(&["DB-MMIO-003", "TPL-EXPAND-002", "TPL-EXPAND-003"]);
    ring(&mut r, 1_000, 0, token(3, 0, 1, 1));
    ring(&mut r, 1_100, 7, token(3, 1, 2, 1));
    ring(&mut r, 1_200, 7, token(4, 0, 3, 1));
    ring(&mut r, 1_300, 0, token(4, 1, 4, 1));
    r.checks(&["DB-MMIO-003", "DB-SEQ-002", "CQE-REJECT-001"]);
    ring(&mut r, 1_400, 3, token(3, 1, 2, 1));
    r.checks(&["DB-MMIO-003", "TPL-EXPAND-002"]);
    ring(&mut r, 1_500, 1023, token(3, 2, 5, 1));
    inject_sack(&mut r, 5_000, 4, 0, 4, WireMark::NONE);
    r.checks(&["DB-MMIO-003", "CQE-SEND-001", "FLAG-SEND-001"]);
    inject_ack(&mut r, 5_000, 4, 4, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 12_000)
}
