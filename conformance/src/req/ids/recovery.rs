//! The clauses of `recovery.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::Clause;

/// `REC-SPLIT-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the rules of the NIC half that it cites, each of which states its own (decision 11)."]
pub const REC_SPLIT_001: Clause = Clause(709);
/// `REC-SPLIT-002`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the rules of the CPU half that it cites, each of which states its own (decision 11)."]
pub const REC_SPLIT_002: Clause = Clause(710);
/// `REC-IF-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by REC-IF-015, which has no exception: the EV of a timed-out transmission now travels in the `Retransmitted` report."]
pub const REC_IF_001: Clause = Clause(711);
/// `REC-IF-015`: MUST, device.
pub const REC_IF_015: Clause = Clause(712);
/// `REC-IF-002`: MUST, device.
pub const REC_IF_002: Clause = Clause(713);
/// `REC-IF-003`: MUST, device.
pub const REC_IF_003: Clause = Clause(714);
/// `REC-IF-019`: MUST, device.
pub const REC_IF_019: Clause = Clause(715);
/// `REC-IF-020`: MUST, device.
pub const REC_IF_020: Clause = Clause(716);
/// `REC-IF-004`: MUST, device.
pub const REC_IF_004: Clause = Clause(717);
/// `REC-IF-005`: MUST, device.
pub const REC_IF_005: Clause = Clause(718);
/// `REC-IF-006`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by REC-IF-016, which reports the return from SKIP to GOOD too."]
pub const REC_IF_006: Clause = Clause(719);
/// `REC-IF-016`: MUST, device.
pub const REC_IF_016: Clause = Clause(720);
/// `REC-IF-007`: MUST, device.
pub const REC_IF_007: Clause = Clause(721);
/// `REC-IF-008`: MUST, device.
pub const REC_IF_008: Clause = Clause(722);
/// `REC-IF-009`: MUST, device.
pub const REC_IF_009: Clause = Clause(723);
/// `REC-IF-018`, its clauses (a) to (b) together: MUST, device.
pub const REC_IF_018: Clause = Clause(724);
/// `REC-IF-018.a`: MUST, device.
pub const REC_IF_018_A: Clause = Clause(725);
/// `REC-IF-018.b`: MUST, device.
pub const REC_IF_018_B: Clause = Clause(726);
/// `REC-IF-010`: MUST, device.
pub const REC_IF_010: Clause = Clause(727);
/// `REC-IF-011`: MUST, device.
pub const REC_IF_011: Clause = Clause(728);
/// `REC-IF-012`: MUST, device.
pub const REC_IF_012: Clause = Clause(729);
/// `REC-IF-013`: MUST, device.
pub const REC_IF_013: Clause = Clause(730);
/// `REC-IF-014`: MUST, device.
pub const REC_IF_014: Clause = Clause(731);
/// `REC-IF-017`, its clauses (a) to (d) together: MUST, device.
pub const REC_IF_017: Clause = Clause(732);
/// `REC-IF-017.a`: MUST, device.
pub const REC_IF_017_A: Clause = Clause(733);
/// `REC-IF-017.b`: MUST, device.
pub const REC_IF_017_B: Clause = Clause(734);
/// `REC-IF-017.c`: MUST, device.
pub const REC_IF_017_C: Clause = Clause(735);
/// `REC-IF-017.d`: MUST, device.
pub const REC_IF_017_D: Clause = Clause(736);
/// `REC-RTO-001`: MUST, cpu-half.
pub const REC_RTO_001: Clause = Clause(737);
/// `REC-RTO-002`: MUST, cpu-half.
pub const REC_RTO_002: Clause = Clause(738);
/// `REC-RTO-003`: MUST, cpu-half.
pub const REC_RTO_003: Clause = Clause(739);
/// `REC-RTO-004`, its clauses (a) to (e) together: MUST, device.
pub const REC_RTO_004: Clause = Clause(740);
/// `REC-RTO-004.a`: MUST, device.
pub const REC_RTO_004_A: Clause = Clause(741);
/// `REC-RTO-004.b`: MUST, device.
pub const REC_RTO_004_B: Clause = Clause(742);
/// `REC-RTO-004.c`: MUST, device.
pub const REC_RTO_004_C: Clause = Clause(743);
/// `REC-RTO-004.d`: MUST, device.
pub const REC_RTO_004_D: Clause = Clause(744);
/// `REC-RTO-004.e`: MUST, device.
pub const REC_RTO_004_E: Clause = Clause(745);
/// `REC-RTO-005`: MUST, cpu-half.
pub const REC_RTO_005: Clause = Clause(746);
/// `REC-RETRY-001`: MUST, cpu-half.
pub const REC_RETRY_001: Clause = Clause(747);
/// `REC-RETRY-002`: MUST, cpu-half.
pub const REC_RETRY_002: Clause = Clause(748);
/// `REC-EV-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by REC-EV-002, under which the CPU half learns the EV from the `Retransmitted` report instead of asking the NIC half, and never blames a denied EV."]
pub const REC_EV_001: Clause = Clause(749);
/// `REC-EV-002`, its clauses (a) to (b) together: MUST, cpu-half.
pub const REC_EV_002: Clause = Clause(750);
/// `REC-EV-002.a`: MUST, cpu-half.
pub const REC_EV_002_A: Clause = Clause(751);
/// `REC-EV-002.b`: MUST, cpu-half.
pub const REC_EV_002_B: Clause = Clause(752);
/// `REC-PROBE-001`: MUST, cpu-half.
pub const REC_PROBE_001: Clause = Clause(753);
/// `REC-PROBE-002`: MUST, cpu-half.
pub const REC_PROBE_002: Clause = Clause(754);
/// `REC-TEST-001`, its clauses (a) to (b) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the reports and commands of section 3 that it cites, each of which states its own (decision 11)."]
pub const REC_TEST_001: Clause = Clause(755);
/// `REC-TEST-001.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the reports and commands of section 3 that it cites, each of which states its own (decision 11)."]
pub const REC_TEST_001_A: Clause = Clause(756);
/// `REC-TEST-001.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the reports and commands of section 3 that it cites, each of which states its own (decision 11)."]
pub const REC_TEST_001_B: Clause = Clause(757);
/// `REC-TEST-002`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the rules of the CPU half that it cites, each of which states its own (decision 11)."]
pub const REC_TEST_002: Clause = Clause(758);
/// `REC-TEST-003`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the rules of the two halves that it cites, each of which states its own, with its one rule of its own, that a device's own CPU half runs with the scenario's recovery parameters, moved to REC-TEST-004, which binds the adapter that starts it (decision 12)."]
pub const REC_TEST_003: Clause = Clause(759);
/// `REC-TEST-004`: MUST, adapter.
pub const REC_TEST_004: Clause = Clause(760);
