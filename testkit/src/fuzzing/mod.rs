//! The fuzz targets' bodies, one function per target of the `fuzz/` workspace.
//!
//! Each function panics only when the library it drives breaks one of its promises; the
//! message names the rule.

mod codec;
mod conformance;
mod judge;
mod model;

pub use self::codec::{frame_decode, repr_roundtrip};
pub use self::conformance::{adapter_decode, scenario_load};
pub use self::judge::{Mutated, Reference, judge_changed, judge_outputs, mutate, scope};
pub use self::model::{doorbell, pair, receiver, sender};
