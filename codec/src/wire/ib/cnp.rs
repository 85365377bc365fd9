//! The 16 reserved bytes of a CNP.

use super::*;

// ---------------------------------------------------------------------------------------
// CNP

/// CNP fields in wire order as (name, offset, length).
const LAYOUT_CNP: &[(&str, usize, usize)] = &[("resv", 0, CNP_LEN)];

/// A zero-copy view of the 16 reserved bytes of a CNP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cnp<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Cnp<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Cnp { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole CNP body.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole CNP body.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        check_layout(Header::Cnp, LAYOUT_CNP, self.buffer.as_ref().len())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The 16 reserved bytes.
    pub fn resv(&self) -> &[u8] {
        &self.buffer.as_ref()[..CNP_LEN]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Cnp<T> {
    /// The 16 reserved bytes, mutable.
    pub fn resv_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[..CNP_LEN]
    }
}

/// An owned, decoded CNP body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct CnpRepr {
    /// The 16 reserved bytes; must all be 0 (`CNP-RESV-001`).
    pub resv: [u8; CNP_LEN],
}

impl CnpRepr {
    /// Decodes a CNP body from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Cnp::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Cnp<T>) -> Self {
        let mut resv = [0u8; CNP_LEN];
        resv.copy_from_slice(v.resv());
        CnpRepr { resv }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        CNP_LEN
    }

    /// Writes the CNP body into the start of `buf`. Never panics: a short buffer is an
    /// [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Cnp, buf, CNP_LEN)?;
        Cnp::new_unchecked(&mut buf[..CNP_LEN]).resv_mut().copy_from_slice(&self.resv);
        Ok(CNP_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["CNP-RESV-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame). The
    /// violation points at the first non-zero byte and carries its value.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        if let Some(i) = self.resv.iter().position(|&b| b != 0) {
            out.push(Violation {
                requirement: "CNP-RESV-001",
                header: Header::Cnp,
                field: "resv",
                offset: Some(base + i),
                value: self.resv[i].into(),
                rule: "the 16 reserved bytes of a CNP must be 0",
            });
        }
    }
}
