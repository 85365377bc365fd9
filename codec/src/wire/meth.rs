//! MRC Message Extended Transport Header, 4 bytes (requirements `METH-*`).
//!
//! ```text
//!  byte 0-1 RQMSN   receive-queue message sequence number: orders Write-with-Immediate
//!                   completions
//!  byte 2-3 MSN     message sequence number
//! ```
//!
//! Every MRC write packet carries a METH right after the BTH. Both numbers are 16-bit and
//! wrap; the header has no reserved bits and no rule that can be checked on its own (the
//! rules that tie it to the opcode belong to the frame).
//!
//! The view's accessors never panic once [`Meth::new_checked`] (or [`Meth::check_len`])
//! has succeeded; `new_unchecked` followed by an accessor on a short buffer panics.

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer};
use crate::field::{set_u16, u16_at};
use crate::{Msn, Rqmsn};

/// Length of the METH in bytes.
pub const METH_LEN: usize = 4;

mod field {
    pub(super) const RQMSN: usize = 0;
    pub(super) const MSN: usize = 2;
}

/// Fields in wire order as (name, offset, length): names the first field a short buffer
/// cannot hold.
const LAYOUT: &[(&str, usize, usize)] = &[("rqmsn", field::RQMSN, 2), ("msn", field::MSN, 2)];

/// A zero-copy view of a METH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Meth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Meth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole METH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole METH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        match LAYOUT.iter().find(|&&(_, at, len)| have < at + len) {
            Some(&(name, at, len)) => {
                Err(DecodeError::truncated(Header::Meth, name, at, len, have.saturating_sub(at)))
            }
            None => Ok(()),
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Receive-queue message sequence number.
    pub fn rqmsn(&self) -> Rqmsn {
        Rqmsn::new(u16_at(self.buffer.as_ref(), field::RQMSN))
    }
    /// Message sequence number.
    pub fn msn(&self) -> Msn {
        Msn::new(u16_at(self.buffer.as_ref(), field::MSN))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Meth<T> {
    /// Sets the receive-queue message sequence number.
    pub fn set_rqmsn(&mut self, v: Rqmsn) {
        set_u16(self.buffer.as_mut(), field::RQMSN, v.value());
    }
    /// Sets the message sequence number.
    pub fn set_msn(&mut self, v: Msn) {
        set_u16(self.buffer.as_mut(), field::MSN, v.value());
    }
}

/// An owned, decoded METH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct MethRepr {
    /// Receive-queue message sequence number (bytes 0-1).
    pub rqmsn: Rqmsn,
    /// Message sequence number (bytes 2-3).
    pub msn: Msn,
}

impl MethRepr {
    /// A METH with the given numbers.
    pub const fn new(rqmsn: Rqmsn, msn: Msn) -> Self {
        MethRepr { rqmsn, msn }
    }

    /// Decodes a METH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Meth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Meth<T>) -> Self {
        MethRepr { rqmsn: v.rqmsn(), msn: v.msn() }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        METH_LEN
    }

    /// Writes the METH into the start of `buf`. Never panics: a short buffer is an
    /// [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Meth, buf, METH_LEN)?;
        let mut v = Meth::new_unchecked(&mut buf[..METH_LEN]);
        v.set_rqmsn(self.rqmsn);
        v.set_msn(self.msn);
        Ok(METH_LEN)
    }

    /// The requirements [`Self::validate`] checks: none, since every value of every field
    /// is legal.
    pub const RULES: &'static [&'static str] = &[];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    ///
    /// METH has no reserved bits and every value of both fields is legal, so this adds
    /// nothing; it exists so that every header is validated the same way.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let _ = (base, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BYTES: [u8; 4] = [0x12, 0x34, 0xAB, 0xCD];

    fn sample() -> MethRepr {
        MethRepr::new(Rqmsn::new(0x1234), Msn::new(0xABCD))
    }

    #[test]
    fn deconstruct() {
        let v = Meth::new_checked(&BYTES[..]).unwrap();
        assert_eq!(v.rqmsn(), Rqmsn::new(0x1234));
        assert_eq!(v.msn(), Msn::new(0xABCD));
        assert_eq!(v.into_inner(), &BYTES[..]);
    }

    #[test]
    fn construct() {
        let mut buf = [0u8; 4];
        let mut v = Meth::new_unchecked(&mut buf[..]);
        v.set_rqmsn(Rqmsn::new(0x1234));
        v.set_msn(Msn::new(0xABCD));
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(MethRepr::parse(&BYTES).unwrap(), sample());
        let mut buf = [0u8; 4];
        assert_eq!(sample().emit(&mut buf), Ok(4));
        assert_eq!(buf, BYTES);
        assert_eq!(sample().buffer_len(), METH_LEN);
    }

    #[test]
    fn truncation_names_field_and_offset() {
        assert_eq!(
            MethRepr::parse(&BYTES[..3]).unwrap_err(),
            DecodeError::truncated(Header::Meth, "msn", 2, 2, 1)
        );
        assert_eq!(
            MethRepr::parse(&[]).unwrap_err(),
            DecodeError::truncated(Header::Meth, "rqmsn", 0, 2, 0)
        );
    }

    #[test]
    fn emit_never_panics() {
        for n in 0..METH_LEN {
            let mut small = [0u8; 4];
            assert_eq!(
                sample().emit(&mut small[..n]),
                Err(EmitError::BufferTooShort { header: Header::Meth, need: 4, have: n })
            );
        }
    }

    #[test]
    fn validate_accepts_every_value() {
        let mut out = alloc::vec::Vec::new();
        MethRepr::new(Rqmsn::new(u16::MAX), Msn::new(u16::MAX)).validate(0, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4D45_5448);
        for _ in 0..1000 {
            let mut bytes = [0u8; METH_LEN];
            rng.fill_bytes(&mut bytes);
            let mut out = [0u8; METH_LEN];
            assert_eq!(MethRepr::parse(&bytes).unwrap().emit(&mut out), Ok(METH_LEN));
            assert_eq!(out, bytes);
        }
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4D45_5448);
        let mut raw = [0u8; 64];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = MethRepr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut out = [0u8; METH_LEN];
            assert_eq!(r.emit(&mut out), Ok(METH_LEN));
            assert_eq!(MethRepr::parse(&out).unwrap(), r);
        }
    }
}
