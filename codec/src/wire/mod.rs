//! One module per header: a zero-copy view and an owned `Repr` each.

pub mod aeth;
pub mod bth;
pub mod eeth;
pub mod erth;
pub mod ethernet;
pub mod ib;
pub mod immdt;
pub mod ipv4;
pub mod ipv6;
pub mod link;
pub mod meth;
pub mod neth;
pub mod peth;
pub mod reth;
pub mod seth;
pub mod tseth;
pub mod udp;

pub use self::aeth::*;
pub use self::bth::*;
pub use self::eeth::*;
pub use self::erth::*;
pub use self::ethernet::*;
pub use self::ib::*;
pub use self::immdt::*;
pub use self::ipv4::*;
pub use self::ipv6::*;
pub use self::link::*;
pub use self::meth::*;
pub use self::neth::*;
pub use self::peth::*;
pub use self::reth::*;
pub use self::seth::*;
pub use self::tseth::*;
pub use self::udp::*;

use crate::error::{DecodeError, Header};

/// Names the first field of `layout` (name, offset, length) that `have` bytes cannot hold.
pub(crate) fn check_layout(
    header: Header,
    layout: &[(&'static str, usize, usize)],
    have: usize,
) -> Result<(), DecodeError> {
    match layout.iter().find(|&&(_, at, len)| have < at + len) {
        Some(&(name, at, len)) => {
            Err(DecodeError::truncated(header, name, at, len, have.saturating_sub(at)))
        }
        None => Ok(()),
    }
}
