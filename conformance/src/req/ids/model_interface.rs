//! The clauses of `model-interface.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::Clause;

/// `API-TIME-001`: MUST, model.
pub const API_TIME_001: Clause = Clause(603);
/// `API-TIME-002`: MUST, model.
pub const API_TIME_002: Clause = Clause(604);
/// `API-QP-001`: MUST, model.
pub const API_QP_001: Clause = Clause(605);
/// `API-QP-002`: MUST, model.
pub const API_QP_002: Clause = Clause(606);
/// `API-QP-003`, its clauses (a) to (b) together: MUST, model.
pub const API_QP_003: Clause = Clause(607);
/// `API-QP-003.a`: MUST, model.
pub const API_QP_003_A: Clause = Clause(608);
/// `API-QP-003.b`: MUST, model.
pub const API_QP_003_B: Clause = Clause(609);
/// `API-QP-004`: MUST, model.
pub const API_QP_004: Clause = Clause(610);
/// `API-REGION-001`: MUST, model.
pub const API_REGION_001: Clause = Clause(611);
/// `API-REGION-002`, its clauses (a) to (b) together: MUST, model.
pub const API_REGION_002: Clause = Clause(612);
/// `API-REGION-002.a`: MUST, model.
pub const API_REGION_002_A: Clause = Clause(613);
/// `API-REGION-002.b`: MUST, model.
pub const API_REGION_002_B: Clause = Clause(614);
/// `API-CQ-001`: MUST, model.
pub const API_CQ_001: Clause = Clause(615);
/// `API-CQ-002`: MUST, model.
pub const API_CQ_002: Clause = Clause(616);
/// `API-CQ-003`: MUST, model.
pub const API_CQ_003: Clause = Clause(617);
/// `API-TPL-001`: MUST, model.
pub const API_TPL_001: Clause = Clause(618);
/// `API-WR-001`, its clauses (a) to (c) together: MUST, model.
pub const API_WR_001: Clause = Clause(619);
/// `API-WR-001.a`: MUST, model.
pub const API_WR_001_A: Clause = Clause(620);
/// `API-WR-001.b`: MUST, model.
pub const API_WR_001_B: Clause = Clause(621);
/// `API-WR-001.c`: MUST, model.
pub const API_WR_001_C: Clause = Clause(622);
/// `API-STATE-001`: MUST, model.
pub const API_STATE_001: Clause = Clause(623);
