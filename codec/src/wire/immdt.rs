//! Immediate Data header, 4 bytes (requirements `IMMDT-*`).
//!
//! ```text
//!  byte 0-3 imm   immediate data, delivered to the responder's completion
//! ```
//!
//! Carried by the write-with-immediate opcodes (and SEND with immediate in standard RC).
//! The value is opaque to the transport: every value is legal.
//!
//! The view's accessors never panic once [`ImmDt::new_checked`] (or [`ImmDt::check_len`])
//! has succeeded; `new_unchecked` followed by an accessor on a short buffer panics.

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer};
use crate::field::{set_u32, u32_at};

/// Length of the ImmDt header in bytes.
pub const IMMDT_LEN: usize = 4;

mod field {
    pub(super) const IMM: usize = 0;
}

/// A zero-copy view of an ImmDt header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImmDt<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> ImmDt<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        ImmDt { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole ImmDt header.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole ImmDt header.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        if have < IMMDT_LEN {
            return Err(DecodeError::truncated(Header::ImmDt, "imm", field::IMM, 4, have));
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Immediate data.
    pub fn imm(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::IMM)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> ImmDt<T> {
    /// Sets the immediate data.
    pub fn set_imm(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::IMM, v);
    }
}

/// An owned, decoded ImmDt header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct ImmDtRepr {
    /// Immediate data (bytes 0-3, big-endian as on the wire).
    pub imm: u32,
}

impl ImmDtRepr {
    /// An ImmDt header carrying `imm`.
    pub const fn new(imm: u32) -> Self {
        ImmDtRepr { imm }
    }

    /// Decodes an ImmDt header from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&ImmDt::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &ImmDt<T>) -> Self {
        ImmDtRepr { imm: v.imm() }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        IMMDT_LEN
    }

    /// Writes the ImmDt header into the start of `buf`. Never panics: a short buffer is an
    /// [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::ImmDt, buf, IMMDT_LEN)?;
        ImmDt::new_unchecked(&mut buf[..IMMDT_LEN]).set_imm(self.imm);
        Ok(IMMDT_LEN)
    }

    /// The requirements [`Self::validate`] checks: none, since every value of every field
    /// is legal.
    pub const RULES: &'static [&'static str] = &[];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    ///
    /// Every immediate value is legal, so this adds nothing; it exists so that every header
    /// is validated the same way.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let _ = (base, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BYTES: [u8; 4] = [0xCA, 0xFE, 0x00, 0x01];

    #[test]
    fn deconstruct() {
        assert_eq!(ImmDt::new_checked(&BYTES[..]).unwrap().imm(), 0xCAFE_0001);
    }

    #[test]
    fn construct() {
        let mut buf = [0u8; 4];
        ImmDt::new_unchecked(&mut buf[..]).set_imm(0xCAFE_0001);
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(ImmDtRepr::parse(&BYTES).unwrap(), ImmDtRepr::new(0xCAFE_0001));
        let mut buf = [0u8; 4];
        assert_eq!(ImmDtRepr::new(0xCAFE_0001).emit(&mut buf), Ok(4));
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn truncation_names_field_and_offset() {
        assert_eq!(
            ImmDtRepr::parse(&BYTES[..2]).unwrap_err(),
            DecodeError::truncated(Header::ImmDt, "imm", 0, 4, 2)
        );
    }

    #[test]
    fn emit_never_panics() {
        assert_eq!(
            ImmDtRepr::new(1).emit(&mut []),
            Err(EmitError::BufferTooShort { header: Header::ImmDt, need: 4, have: 0 })
        );
    }

    #[test]
    fn validate_accepts_every_value() {
        let mut out = alloc::vec::Vec::new();
        ImmDtRepr::new(u32::MAX).validate(0, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x494D_4D44);
        for _ in 0..1000 {
            let mut bytes = [0u8; IMMDT_LEN];
            rng.fill_bytes(&mut bytes);
            let mut out = [0u8; IMMDT_LEN];
            assert_eq!(ImmDtRepr::parse(&bytes).unwrap().emit(&mut out), Ok(IMMDT_LEN));
            assert_eq!(out, bytes);
        }
    }
}
