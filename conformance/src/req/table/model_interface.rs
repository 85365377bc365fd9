//! The clauses of `model-interface.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::{Info, line, part, whole};
use crate::requirements::Level::Must;
use crate::requirements::Subject::Model;

pub(in crate::req) static CLAUSES: [Info; 21] = [
    line("API-TIME-001", Must, Model),
    line("API-TIME-002", Must, Model),
    line("API-QP-001", Must, Model),
    line("API-QP-002", Must, Model),
    whole("API-QP-003", Must, Model),
    part("API-QP-003.a", "API-QP-003", 'a', Must, Model),
    part("API-QP-003.b", "API-QP-003", 'b', Must, Model),
    line("API-QP-004", Must, Model),
    line("API-REGION-001", Must, Model),
    whole("API-REGION-002", Must, Model),
    part("API-REGION-002.a", "API-REGION-002", 'a', Must, Model),
    part("API-REGION-002.b", "API-REGION-002", 'b', Must, Model),
    line("API-CQ-001", Must, Model),
    line("API-CQ-002", Must, Model),
    line("API-CQ-003", Must, Model),
    line("API-TPL-001", Must, Model),
    whole("API-WR-001", Must, Model),
    part("API-WR-001.a", "API-WR-001", 'a', Must, Model),
    part("API-WR-001.b", "API-WR-001", 'b', Must, Model),
    part("API-WR-001.c", "API-WR-001", 'c', Must, Model),
    line("API-STATE-001", Must, Model),
];
