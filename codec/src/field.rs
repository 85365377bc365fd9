//! Big-endian field access shared by the header views.
//!
//! Every accessor takes a slice that the caller has already length-checked (the views'
//! `check_len`), so indexing cannot fail; these functions exist so that no header
//! re-implements 24-bit arithmetic.

#[inline]
pub(crate) fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

#[inline]
pub(crate) fn u24_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([0, b[at], b[at + 1], b[at + 2]])
}

#[inline]
pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline]
pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(x)
}

#[inline]
pub(crate) fn set_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

#[inline]
pub(crate) fn set_u24(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 3].copy_from_slice(&v.to_be_bytes()[1..]);
}

#[inline]
pub(crate) fn set_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

#[inline]
pub(crate) fn set_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_be_bytes());
}

/// Generates `fn bitsN(u) -> arbitrary::Result<uN>` helpers that give values in range
/// for sub-byte fields, for use with `#[arbitrary(with = ...)]`.
#[cfg(feature = "arbitrary")]
pub(crate) mod arb {
    use arbitrary::{Arbitrary, Result, Unstructured};

    #[allow(dead_code)]
    pub(crate) fn bits1(u: &mut Unstructured<'_>) -> Result<u8> {
        Ok(u8::arbitrary(u)? & 0x1)
    }
    pub(crate) fn bits2(u: &mut Unstructured<'_>) -> Result<u8> {
        Ok(u8::arbitrary(u)? & 0x3)
    }
    pub(crate) fn bits3(u: &mut Unstructured<'_>) -> Result<u8> {
        Ok(u8::arbitrary(u)? & 0x7)
    }
    pub(crate) fn bits4(u: &mut Unstructured<'_>) -> Result<u8> {
        Ok(u8::arbitrary(u)? & 0xF)
    }
    pub(crate) fn bits5(u: &mut Unstructured<'_>) -> Result<u8> {
        Ok(u8::arbitrary(u)? & 0x1F)
    }
    pub(crate) fn bits6(u: &mut Unstructured<'_>) -> Result<u8> {
        Ok(u8::arbitrary(u)? & 0x3F)
    }
    pub(crate) fn bits7(u: &mut Unstructured<'_>) -> Result<u8> {
        Ok(u8::arbitrary(u)? & 0x7F)
    }
    pub(crate) fn bits11(u: &mut Unstructured<'_>) -> Result<u16> {
        Ok(u16::arbitrary(u)? & 0x7FF)
    }
    pub(crate) fn bits15(u: &mut Unstructured<'_>) -> Result<u16> {
        Ok(u16::arbitrary(u)? & 0x7FFF)
    }
    pub(crate) fn bits20(u: &mut Unstructured<'_>) -> Result<u32> {
        Ok(u32::arbitrary(u)? & 0xF_FFFF)
    }
    pub(crate) fn bits26(u: &mut Unstructured<'_>) -> Result<u32> {
        Ok(u32::arbitrary(u)? & 0x3FF_FFFF)
    }
    pub(crate) fn bits24(u: &mut Unstructured<'_>) -> Result<u32> {
        Ok(u32::arbitrary(u)? & 0xFF_FFFF)
    }
}
