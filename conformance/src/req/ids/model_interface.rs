//! The clauses of `model-interface.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::Clause;

/// `API-TIME-001`: MUST, model.
pub const API_TIME_001: Clause = Clause(599);
/// `API-TIME-002`: MUST, model.
pub const API_TIME_002: Clause = Clause(600);
/// `API-QP-001`: MUST, model.
pub const API_QP_001: Clause = Clause(601);
/// `API-QP-002`: MUST, model.
pub const API_QP_002: Clause = Clause(602);
/// `API-QP-003`, its clauses (a) to (b) together: MUST, model.
pub const API_QP_003: Clause = Clause(603);
/// `API-QP-003.a`: MUST, model.
pub const API_QP_003_A: Clause = Clause(604);
/// `API-QP-003.b`: MUST, model.
pub const API_QP_003_B: Clause = Clause(605);
/// `API-QP-004`: MUST, model.
pub const API_QP_004: Clause = Clause(606);
/// `API-REGION-001`: MUST, model.
pub const API_REGION_001: Clause = Clause(607);
/// `API-REGION-002`, its clauses (a) to (b) together: MUST, model.
pub const API_REGION_002: Clause = Clause(608);
/// `API-REGION-002.a`: MUST, model.
pub const API_REGION_002_A: Clause = Clause(609);
/// `API-REGION-002.b`: MUST, model.
pub const API_REGION_002_B: Clause = Clause(610);
/// `API-CQ-001`: MUST, model.
pub const API_CQ_001: Clause = Clause(611);
/// `API-CQ-002`: MUST, model.
pub const API_CQ_002: Clause = Clause(612);
/// `API-CQ-003`: MUST, model.
pub const API_CQ_003: Clause = Clause(613);
/// `API-TPL-001`: MUST, model.
pub const API_TPL_001: Clause = Clause(614);
/// `API-WR-001`, its clauses (a) to (c) together: MUST, model.
pub const API_WR_001: Clause = Clause(615);
/// `API-WR-001.a`: MUST, model.
pub const API_WR_001_A: Clause = Clause(616);
/// `API-WR-001.b`: MUST, model.
pub const API_WR_001_B: Clause = Clause(617);
/// `API-WR-001.c`: MUST, model.
pub const API_WR_001_C: Clause = Clause(618);
/// `API-STATE-001`: MUST, model.
pub const API_STATE_001: Clause = Clause(619);
