//! The clause constants, by chapter.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

mod completion;
mod conformance;
mod host_interface;
mod model_interface;
mod receiver;
mod recovery;
mod sender;
mod wire_format;

pub use completion::*;
pub use conformance::*;
pub use host_interface::*;
pub use model_interface::*;
pub use receiver::*;
pub use recovery::*;
pub use sender::*;
pub use wire_format::*;
