//! AtomicETH and AtomicAckETH: the headers of atomic requests and their acknowledgements.

use super::*;

// ---------------------------------------------------------------------------------------
// AtomicETH

/// AtomicETH fields in wire order as (name, offset, length).
const LAYOUT_ATOMICETH: &[(&str, usize, usize)] =
    &[("va", 0, 8), ("rkey", 8, 4), ("swap_add", 12, 8), ("compare", 20, 8)];

/// A zero-copy view of an AtomicETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtomicEth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> AtomicEth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        AtomicEth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole AtomicETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole AtomicETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        check_layout(Header::AtomicEth, LAYOUT_ATOMICETH, self.buffer.as_ref().len())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Virtual address of the 8-byte operand.
    pub fn va(&self) -> u64 {
        u64_at(self.buffer.as_ref(), 0)
    }
    /// Remote key.
    pub fn rkey(&self) -> Rkey {
        Rkey::new(u32_at(self.buffer.as_ref(), 8))
    }
    /// Swap value (COMPARE_SWAP) or addend (FETCH_ADD).
    pub fn swap_add(&self) -> u64 {
        u64_at(self.buffer.as_ref(), 12)
    }
    /// Compare value (COMPARE_SWAP).
    pub fn compare(&self) -> u64 {
        u64_at(self.buffer.as_ref(), 20)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> AtomicEth<T> {
    /// Sets the virtual address.
    pub fn set_va(&mut self, v: u64) {
        set_u64(self.buffer.as_mut(), 0, v);
    }
    /// Sets the remote key.
    pub fn set_rkey(&mut self, v: Rkey) {
        set_u32(self.buffer.as_mut(), 8, v.value());
    }
    /// Sets the swap value or addend.
    pub fn set_swap_add(&mut self, v: u64) {
        set_u64(self.buffer.as_mut(), 12, v);
    }
    /// Sets the compare value.
    pub fn set_compare(&mut self, v: u64) {
        set_u64(self.buffer.as_mut(), 20, v);
    }
}

/// An owned, decoded AtomicETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct AtomicEthRepr {
    /// Virtual address of the 8-byte operand (bytes 0-7).
    pub va: u64,
    /// Remote key (bytes 8-11).
    pub rkey: Rkey,
    /// Swap value or addend (bytes 12-19).
    pub swap_add: u64,
    /// Compare value (bytes 20-27).
    pub compare: u64,
}

impl AtomicEthRepr {
    /// Decodes an AtomicETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&AtomicEth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &AtomicEth<T>) -> Self {
        AtomicEthRepr { va: v.va(), rkey: v.rkey(), swap_add: v.swap_add(), compare: v.compare() }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        ATOMIC_ETH_LEN
    }

    /// Writes the AtomicETH into the start of `buf`. Never panics: a short buffer is an
    /// [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::AtomicEth, buf, ATOMIC_ETH_LEN)?;
        let mut v = AtomicEth::new_unchecked(&mut buf[..ATOMIC_ETH_LEN]);
        v.set_va(self.va);
        v.set_rkey(self.rkey);
        v.set_swap_add(self.swap_add);
        v.set_compare(self.compare);
        Ok(ATOMIC_ETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: none, since every value of every field
    /// is legal.
    pub const RULES: &'static [&'static str] = &[];

    /// Semantic checks of this header on its own. Nothing is checked here; the alignment
    /// of `va` is left to the responder's model.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let _ = (base, out);
    }
}

// ---------------------------------------------------------------------------------------
// AtomicAckETH

/// AtomicAckETH fields in wire order as (name, offset, length).
const LAYOUT_ATOMICACKETH: &[(&str, usize, usize)] = &[("orig", 0, 8)];

/// A zero-copy view of an AtomicAckETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtomicAckEth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> AtomicAckEth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        AtomicAckEth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole AtomicAckETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole AtomicAckETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        check_layout(Header::AtomicAckEth, LAYOUT_ATOMICACKETH, self.buffer.as_ref().len())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The original value at the address.
    pub fn orig(&self) -> u64 {
        u64_at(self.buffer.as_ref(), 0)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> AtomicAckEth<T> {
    /// Sets the original value.
    pub fn set_orig(&mut self, v: u64) {
        set_u64(self.buffer.as_mut(), 0, v);
    }
}

/// An owned, decoded AtomicAckETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct AtomicAckEthRepr {
    /// The value at the address before the operation (bytes 0-7).
    pub orig: u64,
}

impl AtomicAckEthRepr {
    /// Decodes an AtomicAckETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&AtomicAckEth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &AtomicAckEth<T>) -> Self {
        AtomicAckEthRepr { orig: v.orig() }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        ATOMIC_ACK_ETH_LEN
    }

    /// Writes the AtomicAckETH into the start of `buf`. Never panics: a short buffer is an
    /// [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::AtomicAckEth, buf, ATOMIC_ACK_ETH_LEN)?;
        AtomicAckEth::new_unchecked(&mut buf[..ATOMIC_ACK_ETH_LEN]).set_orig(self.orig);
        Ok(ATOMIC_ACK_ETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: none, since every value of every field
    /// is legal.
    pub const RULES: &'static [&'static str] = &[];

    /// Semantic checks of this header on its own: every value is legal, so this adds
    /// nothing.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let _ = (base, out);
    }
}
