//! The clauses of `completion.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::{Info, line, part, whole};
use crate::requirements::Level::{Must, Withdrawn};
use crate::requirements::Subject::{Device, Host};

pub(in crate::req) static CLAUSES: [Info; 34] = [
    line("RET-DOMAIN-001", Must, Device),
    whole("RET-DOMAIN-002", Must, Host),
    part("RET-DOMAIN-002.a", "RET-DOMAIN-002", 'a', Must, Host),
    part("RET-DOMAIN-002.b", "RET-DOMAIN-002", 'b', Must, Host),
    line("RET-DOMAIN-003", Must, Device),
    line("RET-CAP-001", Must, Device),
    line("RET-CAP-002", Must, Device),
    line("RET-ORDER-001", Must, Device),
    line("RET-ORDER-002", Must, Device),
    whole("RET-FLAG-001", Must, Device),
    part("RET-FLAG-001.a", "RET-FLAG-001", 'a', Must, Device),
    part("RET-FLAG-001.b", "RET-FLAG-001", 'b', Must, Device),
    line("WWI-ORDER-001", Must, Device),
    line("FLAG-ORDER-001", Must, Device),
    line("FLAG-ORDER-002", Must, Device),
    line("FLAG-LAST-001", Must, Device),
    line("FLAG-LAST-002", Must, Device),
    line("WWI-LIMIT-001", Must, Device),
    line("WWI-LIMIT-002", Must, Device),
    line("RET-SEND-001", Must, Device),
    whole("RET-FLUSH-001", Must, Device),
    part("RET-FLUSH-001.a", "RET-FLUSH-001", 'a', Must, Device),
    part("RET-FLUSH-001.b", "RET-FLUSH-001", 'b', Must, Device),
    whole("RET-ERR-001", Must, Device),
    part("RET-ERR-001.a", "RET-ERR-001", 'a', Must, Device),
    part("RET-ERR-001.b", "RET-ERR-001", 'b', Must, Device),
    line("RET-ERR-002", Must, Device),
    line("RET-ERR-003", Withdrawn, Device),
    whole("RET-ERR-004", Withdrawn, Device),
    part("RET-ERR-004.a", "RET-ERR-004", 'a', Withdrawn, Device),
    part("RET-ERR-004.b", "RET-ERR-004", 'b', Withdrawn, Device),
    part("RET-ERR-004.c", "RET-ERR-004", 'c', Withdrawn, Device),
    part("RET-ERR-004.d", "RET-ERR-004", 'd', Withdrawn, Device),
    part("RET-ERR-004.e", "RET-ERR-004", 'e', Withdrawn, Device),
];
