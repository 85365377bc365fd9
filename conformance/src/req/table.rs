//! The table behind the clause constants, by chapter.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use super::Info;

mod completion;
mod conformance;
mod host_interface;
mod model_interface;
mod receiver;
mod recovery;
mod sender;
mod wire_format;

/// The number of clauses.
pub(super) const COUNT: u16 = 1188;

/// Each chapter's clauses, in [`Clause`](super::Clause) order.
pub(super) static CHAPTERS: [&[Info]; 8] = [
    &completion::CLAUSES,
    &conformance::CLAUSES,
    &host_interface::CLAUSES,
    &model_interface::CLAUSES,
    &receiver::CLAUSES,
    &recovery::CLAUSES,
    &sender::CLAUSES,
    &wire_format::CLAUSES,
];
