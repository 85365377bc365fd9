//! Faults of a seventh reading of the receiving side, as an RTL team builds it, where the
//! suite needed a change to name them.
//!
//! * `rkey-read-little-endian`: the receive parser reads RETH `rkey` with its bytes in the
//!   other order, so the region lookup misses and every write is NAKed with a remote
//!   access error. Such a NAK answers no write the scenario refuses, and was named as an
//!   ACK for a message not retired (RCV-ACK-002.a); it is the region check's own error,
//!   a write that passes it refused (RCV-PLACE-002.a). In `rcv-lenient` the missing ACK
//!   was blamed on the odd but legal frame before it, as if the device had not taken it,
//!   though the device answered it: a frame the device placed or answered on its EV is
//!   not one it failed to take.

use openrdma_codec::Rkey;
use openrdma_codec::frame::decode;
use openrdma_conformance::req;

use super::{Edits, Fault, fault};

/// Every fault of this reading.
pub static FAULTS: &[Fault] = &[fault(
    "rkey-read-little-endian",
    "the receive parser reads RETH rkey with its bytes in the other order: the region \
     lookup misses, and writes that pass the region check are NAKed with a remote access \
     error",
    &[req::RCV_PLACE_002_A],
    &["rcv-sack-timer", "rcv-psn-wrap", "rcv-lenient"],
    Edits { frame_in: Some(rkey_swapped), ..Edits::NONE },
)];

/// A write whose RETH `rkey` is read with its bytes swapped; `None` for any other frame or
/// a key that reads the same both ways.
fn rkey_swapped(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if !f.bth.opcode.is_mrc_write() {
        return None;
    }
    let reth = f.ext.reth.as_mut()?;
    let swapped = reth.rkey.value().swap_bytes();
    if swapped == reth.rkey.value() {
        return None;
    }
    reth.rkey = Rkey::new(swapped);
    f.icrc = None;
    f.to_bytes().ok()
}
