//! Bodies of the fuzz targets that exercise the codec, as ordinary functions: the
//! `fuzz/` workspace calls them from libFuzzer, and the tests call them on the seed
//! corpora, so a crash found by the fuzzer is a test failure too.
//!
//! Each function panics only when the codec breaks one of its own promises.

use alloc::vec::Vec;

use crate::frame::{IcrcStatus, decode};

/// Frame decode: never panics; whatever decodes cleanly re-emits to the same bytes, and
/// decoding those bytes again gives the same frame.
pub fn frame_decode(data: &[u8]) {
    let d = decode(data);
    let _ = d.validate();
    let _ = d.entropy();
    let Some(repr) = d.to_repr() else { return };
    let bytes: Vec<u8> = match repr.to_bytes() {
        Ok(b) => b,
        Err(e) => panic!("a decoded frame must re-emit: {e}"),
    };
    assert_eq!(bytes.as_slice(), data, "parse -> emit must be lossless");
    let again = decode(&bytes);
    assert_eq!(again.to_repr().as_ref(), Some(&repr), "decode -> emit -> decode must be stable");
    assert_eq!(again.icrc == IcrcStatus::Ok, d.icrc == IcrcStatus::Ok);
}
