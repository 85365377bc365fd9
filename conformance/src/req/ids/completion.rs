//! The clauses of `completion.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::Clause;

/// `RET-DOMAIN-001`: MUST, device.
pub const RET_DOMAIN_001: Clause = Clause(0);
/// `RET-DOMAIN-002`, its clauses (a) to (b) together: MUST, host.
pub const RET_DOMAIN_002: Clause = Clause(1);
/// `RET-DOMAIN-002.a`: MUST, host.
pub const RET_DOMAIN_002_A: Clause = Clause(2);
/// `RET-DOMAIN-002.b`: MUST, host.
pub const RET_DOMAIN_002_B: Clause = Clause(3);
/// `RET-DOMAIN-003`: MUST, device.
pub const RET_DOMAIN_003: Clause = Clause(4);
/// `RET-CAP-001`: MUST, device.
pub const RET_CAP_001: Clause = Clause(5);
/// `RET-CAP-002`: MUST, device.
pub const RET_CAP_002: Clause = Clause(6);
/// `RET-ORDER-001`: MUST, device.
pub const RET_ORDER_001: Clause = Clause(7);
/// `RET-ORDER-002`: MUST, device.
pub const RET_ORDER_002: Clause = Clause(8);
/// `RET-FLAG-001`, its clauses (a) to (b) together: MUST, device.
pub const RET_FLAG_001: Clause = Clause(9);
/// `RET-FLAG-001.a`: MUST, device.
pub const RET_FLAG_001_A: Clause = Clause(10);
/// `RET-FLAG-001.b`: MUST, device.
pub const RET_FLAG_001_B: Clause = Clause(11);
/// `WWI-ORDER-001`: MUST, device.
pub const WWI_ORDER_001: Clause = Clause(12);
/// `FLAG-ORDER-001`: MUST, device.
pub const FLAG_ORDER_001: Clause = Clause(13);
/// `FLAG-ORDER-002`: MUST, device.
pub const FLAG_ORDER_002: Clause = Clause(14);
/// `FLAG-LAST-001`: MUST, device.
pub const FLAG_LAST_001: Clause = Clause(15);
/// `FLAG-LAST-002`: MUST, device.
pub const FLAG_LAST_002: Clause = Clause(16);
/// `WWI-LIMIT-001`: MUST, device.
pub const WWI_LIMIT_001: Clause = Clause(17);
/// `WWI-LIMIT-002`: MUST, device.
pub const WWI_LIMIT_002: Clause = Clause(18);
/// `RET-SEND-001`: MUST, device.
pub const RET_SEND_001: Clause = Clause(19);
/// `RET-FLUSH-001`, its clauses (a) to (b) together: MUST, device.
pub const RET_FLUSH_001: Clause = Clause(20);
/// `RET-FLUSH-001.a`: MUST, device.
pub const RET_FLUSH_001_A: Clause = Clause(21);
/// `RET-FLUSH-001.b`: MUST, device.
pub const RET_FLUSH_001_B: Clause = Clause(22);
/// `RET-ERR-001`, its clauses (a) to (b) together: MUST, device.
pub const RET_ERR_001: Clause = Clause(23);
/// `RET-ERR-001.a`: MUST, device.
pub const RET_ERR_001_A: Clause = Clause(24);
/// `RET-ERR-001.b`: MUST, device.
pub const RET_ERR_001_B: Clause = Clause(25);
/// `RET-ERR-002`: MUST, device.
pub const RET_ERR_002: Clause = Clause(26);
/// `RET-ERR-003`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by RET-ERR-004, under which a doorbell token for a QP in the error state is accepted and completes FLUSHED instead of being refused."]
pub const RET_ERR_003: Clause = Clause(27);
/// `RET-ERR-004`, its clauses (a) to (e) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the rules it cites, each of which states its own: a QP in the error state sends nothing (SND-ERR-001), discards every packet addressed to it (RCV-QP-002), ignores commands of the CPU half (REC-IF-014), accepts a doorbell token for it that passes the checks of DB-ORDER-001, its template's `seq` advancing (DB-SEQ-001), and completes its work request at once with FLUSHED (RET-FLUSH-001.b), and reports the error to the CPU half once (REC-IF-009) (decision 13)."]
pub const RET_ERR_004: Clause = Clause(28);
/// `RET-ERR-004.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the rules it cites, each of which states its own: a QP in the error state sends nothing (SND-ERR-001), discards every packet addressed to it (RCV-QP-002), ignores commands of the CPU half (REC-IF-014), accepts a doorbell token for it that passes the checks of DB-ORDER-001, its template's `seq` advancing (DB-SEQ-001), and completes its work request at once with FLUSHED (RET-FLUSH-001.b), and reports the error to the CPU half once (REC-IF-009) (decision 13)."]
pub const RET_ERR_004_A: Clause = Clause(29);
/// `RET-ERR-004.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the rules it cites, each of which states its own: a QP in the error state sends nothing (SND-ERR-001), discards every packet addressed to it (RCV-QP-002), ignores commands of the CPU half (REC-IF-014), accepts a doorbell token for it that passes the checks of DB-ORDER-001, its template's `seq` advancing (DB-SEQ-001), and completes its work request at once with FLUSHED (RET-FLUSH-001.b), and reports the error to the CPU half once (REC-IF-009) (decision 13)."]
pub const RET_ERR_004_B: Clause = Clause(30);
/// `RET-ERR-004.c`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the rules it cites, each of which states its own: a QP in the error state sends nothing (SND-ERR-001), discards every packet addressed to it (RCV-QP-002), ignores commands of the CPU half (REC-IF-014), accepts a doorbell token for it that passes the checks of DB-ORDER-001, its template's `seq` advancing (DB-SEQ-001), and completes its work request at once with FLUSHED (RET-FLUSH-001.b), and reports the error to the CPU half once (REC-IF-009) (decision 13)."]
pub const RET_ERR_004_C: Clause = Clause(31);
/// `RET-ERR-004.d`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the rules it cites, each of which states its own: a QP in the error state sends nothing (SND-ERR-001), discards every packet addressed to it (RCV-QP-002), ignores commands of the CPU half (REC-IF-014), accepts a doorbell token for it that passes the checks of DB-ORDER-001, its template's `seq` advancing (DB-SEQ-001), and completes its work request at once with FLUSHED (RET-FLUSH-001.b), and reports the error to the CPU half once (REC-IF-009) (decision 13)."]
pub const RET_ERR_004_D: Clause = Clause(32);
/// `RET-ERR-004.e`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the rules it cites, each of which states its own: a QP in the error state sends nothing (SND-ERR-001), discards every packet addressed to it (RCV-QP-002), ignores commands of the CPU half (REC-IF-014), accepts a doorbell token for it that passes the checks of DB-ORDER-001, its template's `seq` advancing (DB-SEQ-001), and completes its work request at once with FLUSHED (RET-FLUSH-001.b), and reports the error to the CPU half once (REC-IF-009) (decision 13)."]
pub const RET_ERR_004_E: Clause = Clause(33);
