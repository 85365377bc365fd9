//! Standard InfiniBand extension headers that ordinary RoCEv2 traffic uses and MRC does
//! not (requirements `DETH-*`, `RDETH-*`, `XRCETH-*`, `FETH-*`, `CNP-*`).
//!
//! ```text
//! RDETH, 4 bytes (RD)
//!  byte 0     resv
//!  byte 1-3   ee_context the end-to-end context
//!
//! XRCETH, 4 bytes (XRC requests)
//!  byte 0     resv
//!  byte 1-3   xrc_srq    the XRC shared receive queue
//!
//! DETH, 8 bytes (UD, RD)
//!  byte 0-3   qkey
//!  byte 4     resv
//!  byte 5-7   src_qp
//!
//! IETH, 4 bytes (SEND with invalidate)
//!  byte 0-3   rkey       the remote key to invalidate
//!
//! AtomicETH, 28 bytes (COMPARE_SWAP, FETCH_ADD)
//!  byte 0-7   va
//!  byte 8-11  rkey
//!  byte 12-19 swap_add   swap value (COMPARE_SWAP) or addend (FETCH_ADD)
//!  byte 20-27 compare    compare value (COMPARE_SWAP)
//!
//! AtomicAckETH, 8 bytes (ATOMIC_ACKNOWLEDGE)
//!  byte 0-7   orig       the value at the address before the operation
//!
//! FETH, 4 bytes (FLUSH), one big-endian 32-bit word
//!  bits 31-6  resv
//!  bits 5-4   selectivity_level  0: the RETH's range, 1: the whole memory region
//!  bits 3-0   placement_type     bit 0: global visibility, bit 1: persistence
//!
//! CNP, 16 bytes after the BTH of opcode 0x81
//!  byte 0-15  resv       all zero
//! ```
//!
//! The views' accessors never panic once `new_checked` (or `check_len`) has succeeded;
//! `new_unchecked` followed by an accessor on a short buffer panics.

use super::check_layout;
use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};
use crate::field::{set_u24, set_u32, set_u64, u24_at, u32_at, u64_at};
use crate::{Qpn, Rkey};

/// Length of the DETH in bytes.
pub const DETH_LEN: usize = 8;
/// Length of the RDETH in bytes.
pub const RDETH_LEN: usize = 4;
/// Length of the XRCETH in bytes.
pub const XRCETH_LEN: usize = 4;
/// Length of the IETH in bytes.
pub const IETH_LEN: usize = 4;
/// Length of the AtomicETH in bytes.
pub const ATOMIC_ETH_LEN: usize = 28;
/// Length of the AtomicAckETH in bytes.
pub const ATOMIC_ACK_ETH_LEN: usize = 8;
/// Length of the reserved bytes of a CNP.
pub const CNP_LEN: usize = 16;
/// Length of the FETH in bytes.
pub const FETH_LEN: usize = 4;

/// Declares a 4-byte header made of a reserved byte and a 24-bit number: RDETH and XRCETH
/// share this shape. Each gets a view, a `Repr` and the check of its reserved byte.
macro_rules! resv_u24_header {
    (
        $(#[$vdoc:meta])* $view:ident, $(#[$rdoc:meta])* $repr:ident, $header:ident, $len:ident,
        $layout:ident, $field:ident, $set:ident, $fdoc:literal, $rule:literal, $text:literal
    ) => {
        const $layout: &[(&str, usize, usize)] = &[("resv", 0, 1), (stringify!($field), 1, 3)];

        $(#[$vdoc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $view<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> $view<T> {
            /// Wraps a buffer without checking its length.
            pub const fn new_unchecked(buffer: T) -> Self {
                $view { buffer }
            }

            /// Wraps a buffer, checking that it holds the whole header.
            pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
                let v = Self::new_unchecked(buffer);
                v.check_len()?;
                Ok(v)
            }

            /// Checks that the buffer holds the whole header.
            pub fn check_len(&self) -> Result<(), DecodeError> {
                check_layout(Header::$header, $layout, self.buffer.as_ref().len())
            }

            /// The underlying buffer.
            pub fn into_inner(self) -> T {
                self.buffer
            }

            /// Reserved byte 0.
            pub fn resv(&self) -> u8 {
                self.buffer.as_ref()[0]
            }

            #[doc = $fdoc]
            pub fn $field(&self) -> u32 {
                u24_at(self.buffer.as_ref(), 1)
            }
        }

        impl<T: AsRef<[u8]> + AsMut<[u8]>> $view<T> {
            /// Sets reserved byte 0.
            pub fn set_resv(&mut self, v: u8) {
                self.buffer.as_mut()[0] = v;
            }

            /// Sets the 24-bit field (the top 8 bits of `v` are dropped).
            pub fn $set(&mut self, v: u32) {
                set_u24(self.buffer.as_mut(), 1, v);
            }
        }

        $(#[$rdoc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        pub struct $repr {
            /// Reserved byte 0; must be 0.
            pub resv: u8,
            #[doc = $fdoc]
            #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits24))]
            pub $field: u32,
        }

        impl $repr {
            /// Decodes the header from the start of `buf`.
            pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
                Ok(Self::from_view(&$view::new_checked(buf)?))
            }

            /// Reads every field of a checked view.
            #[inline]
            pub fn from_view<T: AsRef<[u8]>>(v: &$view<T>) -> Self {
                $repr { resv: v.resv(), $field: v.$field() }
            }

            /// Bytes on the wire.
            pub const fn buffer_len(&self) -> usize {
                $len
            }

            /// Writes the header into the start of `buf`. Never panics: a short buffer or a
            /// value wider than 24 bits is an [`EmitError`].
            pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
                check_buffer(Header::$header, buf, $len)?;
                check_range(Header::$header, stringify!($field), self.$field.into(), 0xFF_FFFF)?;
                let mut v = $view::new_unchecked(&mut buf[..$len]);
                v.set_resv(self.resv);
                v.$set(self.$field);
                Ok($len)
            }

            /// The requirements [`Self::validate`] checks: every violation it reports
            /// carries one of these IDs, and each of them can be reported.
            pub const RULES: &'static [&'static str] = &[$rule];

            /// Semantic checks of this header on its own (`base` is its offset in the
            /// frame).
            pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
                if self.resv != 0 {
                    out.push(Violation {
                        requirement: $rule,
                        header: Header::$header,
                        field: "resv",
                        offset: Some(base),
                        value: self.resv.into(),
                        rule: $text,
                    });
                }
            }
        }
    };
}

// ---------------------------------------------------------------------------------------
// RDETH

resv_u24_header!(
    /// A zero-copy view of an RDETH (Reliable Datagram Extended Transport Header).
    Rdeth,
    /// An owned, decoded RDETH.
    RdethRepr, Rdeth, RDETH_LEN, LAYOUT_RDETH, ee_context, set_ee_context,
    "End-to-end context (bytes 1-3).",
    "RDETH-RESV-001",
    "reserved byte 0 of RDETH must be 0"
);

// ---------------------------------------------------------------------------------------
// XRCETH

resv_u24_header!(
    /// A zero-copy view of an XRCETH (XRC Extended Transport Header).
    Xrceth,
    /// An owned, decoded XRCETH.
    XrcethRepr, Xrceth, XRCETH_LEN, LAYOUT_XRCETH, xrc_srq, set_xrc_srq,
    "XRC shared receive queue number (bytes 1-3).",
    "XRCETH-RESV-001",
    "reserved byte 0 of XRCETH must be 0"
);

// ---------------------------------------------------------------------------------------
// DETH

/// DETH fields in wire order as (name, offset, length).
const LAYOUT_DETH: &[(&str, usize, usize)] = &[("qkey", 0, 4), ("resv", 4, 1), ("src_qp", 5, 3)];

/// A zero-copy view of a DETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Deth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Deth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole DETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole DETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        check_layout(Header::Deth, LAYOUT_DETH, self.buffer.as_ref().len())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Queue key.
    pub fn qkey(&self) -> u32 {
        u32_at(self.buffer.as_ref(), 0)
    }
    /// Reserved byte 4.
    pub fn resv(&self) -> u8 {
        self.buffer.as_ref()[4]
    }
    /// Source QP.
    pub fn src_qp(&self) -> Qpn {
        Qpn::new(u24_at(self.buffer.as_ref(), 5))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Deth<T> {
    /// Sets the queue key.
    pub fn set_qkey(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), 0, v);
    }
    /// Sets reserved byte 4.
    pub fn set_resv(&mut self, v: u8) {
        self.buffer.as_mut()[4] = v;
    }
    /// Sets the source QP.
    pub fn set_src_qp(&mut self, v: Qpn) {
        set_u24(self.buffer.as_mut(), 5, v.value());
    }
}

/// An owned, decoded DETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct DethRepr {
    /// Queue key (bytes 0-3).
    pub qkey: u32,
    /// Reserved byte 4; must be 0 (`DETH-RESV-001`).
    pub resv: u8,
    /// Source QP (bytes 5-7).
    pub src_qp: Qpn,
}

impl DethRepr {
    /// A DETH with the given queue key and source QP.
    pub const fn new(qkey: u32, src_qp: Qpn) -> Self {
        DethRepr { qkey, resv: 0, src_qp }
    }

    /// Decodes a DETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Deth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Deth<T>) -> Self {
        DethRepr { qkey: v.qkey(), resv: v.resv(), src_qp: v.src_qp() }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        DETH_LEN
    }

    /// Writes the DETH into the start of `buf`. Never panics: a short buffer is an
    /// [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Deth, buf, DETH_LEN)?;
        let mut v = Deth::new_unchecked(&mut buf[..DETH_LEN]);
        v.set_qkey(self.qkey);
        v.set_resv(self.resv);
        v.set_src_qp(self.src_qp);
        Ok(DETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["DETH-RESV-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        if self.resv != 0 {
            out.push(Violation {
                requirement: "DETH-RESV-001",
                header: Header::Deth,
                field: "resv",
                offset: Some(base + 4),
                value: self.resv.into(),
                rule: "reserved byte 4 of DETH must be 0",
            });
        }
    }
}

// ---------------------------------------------------------------------------------------
// IETH

/// IETH fields in wire order as (name, offset, length).
const LAYOUT_IETH: &[(&str, usize, usize)] = &[("rkey", 0, 4)];

/// A zero-copy view of an IETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ieth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ieth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Ieth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole IETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole IETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        check_layout(Header::Ieth, LAYOUT_IETH, self.buffer.as_ref().len())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The remote key to invalidate.
    pub fn rkey(&self) -> Rkey {
        Rkey::new(u32_at(self.buffer.as_ref(), 0))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ieth<T> {
    /// Sets the remote key to invalidate.
    pub fn set_rkey(&mut self, v: Rkey) {
        set_u32(self.buffer.as_mut(), 0, v.value());
    }
}

/// An owned, decoded IETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct IethRepr {
    /// The remote key to invalidate (bytes 0-3).
    pub rkey: Rkey,
}

impl IethRepr {
    /// Decodes an IETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Ieth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Ieth<T>) -> Self {
        IethRepr { rkey: v.rkey() }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        IETH_LEN
    }

    /// Writes the IETH into the start of `buf`. Never panics: a short buffer is an
    /// [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Ieth, buf, IETH_LEN)?;
        Ieth::new_unchecked(&mut buf[..IETH_LEN]).set_rkey(self.rkey);
        Ok(IETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: none, since every value of every field
    /// is legal.
    pub const RULES: &'static [&'static str] = &[];

    /// Semantic checks of this header on its own: every key is legal, so this adds
    /// nothing.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let _ = (base, out);
    }
}

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

// ---------------------------------------------------------------------------------------
// FETH

/// FETH fields in wire order as (name, offset, length). The three fields share one
/// 32-bit word; a short buffer is named by `resv`, the field that starts it.
const LAYOUT_FETH: &[(&str, usize, usize)] = &[("resv", 0, FETH_LEN)];

/// Largest value of the 26 reserved bits of a FETH.
const FETH_RESV_MAX: u32 = (1 << 26) - 1;

/// A zero-copy view of a FETH (FLUSH Extended Transport Header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Feth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Feth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Feth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole FETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole FETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        check_layout(Header::Feth, LAYOUT_FETH, self.buffer.as_ref().len())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn word(&self) -> u32 {
        u32_at(self.buffer.as_ref(), 0)
    }

    /// Reserved bits 31-6.
    pub fn resv(&self) -> u32 {
        self.word() >> 6
    }
    /// Selectivity level, bits 5-4.
    pub fn selectivity_level(&self) -> u8 {
        ((self.word() >> 4) & 0x3) as u8
    }
    /// Placement type, bits 3-0.
    pub fn placement_type(&self) -> u8 {
        (self.word() & 0xF) as u8
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Feth<T> {
    /// Sets the whole word from its three fields; bits beyond each field's width are
    /// dropped.
    pub fn set_fields(&mut self, resv: u32, selectivity_level: u8, placement_type: u8) {
        let w = (resv & FETH_RESV_MAX) << 6
            | u32::from(selectivity_level & 0x3) << 4
            | u32::from(placement_type & 0xF);
        set_u32(self.buffer.as_mut(), 0, w);
    }
}

/// An owned, decoded FETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct FethRepr {
    /// Reserved bits 31-6; must be 0 (`FETH-RESV-001`).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits26))]
    pub resv: u32,
    /// Selectivity level, bits 5-4: 0 flushes the range the RETH gives, 1 the whole memory
    /// region; 2 and 3 are reserved (`FETH-SEL-001`).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits2))]
    pub selectivity_level: u8,
    /// Placement type, bits 3-0: bit 0 global visibility, bit 1 persistence; bits 3-2
    /// are reserved and at least one of bits 1-0 is set (`FETH-PLT-001`).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits4))]
    pub placement_type: u8,
}

impl FethRepr {
    /// Selectivity level: the range the RETH gives.
    pub const SEL_RANGE: u8 = 0;
    /// Selectivity level: the whole memory region.
    pub const SEL_MEMORY_REGION: u8 = 1;
    /// Placement type bit: global visibility.
    pub const PLT_GLOBAL_VISIBILITY: u8 = 0x1;
    /// Placement type bit: persistence.
    pub const PLT_PERSISTENCE: u8 = 0x2;

    /// A FETH with the given selectivity level and placement type.
    pub const fn new(selectivity_level: u8, placement_type: u8) -> Self {
        FethRepr { resv: 0, selectivity_level, placement_type }
    }

    /// Decodes a FETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Feth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Feth<T>) -> Self {
        FethRepr {
            resv: v.resv(),
            selectivity_level: v.selectivity_level(),
            placement_type: v.placement_type(),
        }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        FETH_LEN
    }

    /// Writes the FETH into the start of `buf`. Never panics: a short buffer or a value
    /// wider than its field is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Feth, buf, FETH_LEN)?;
        check_range(Header::Feth, "resv", self.resv.into(), FETH_RESV_MAX.into())?;
        check_range(Header::Feth, "selectivity_level", self.selectivity_level.into(), 0x3)?;
        check_range(Header::Feth, "placement_type", self.placement_type.into(), 0xF)?;
        Feth::new_unchecked(&mut buf[..FETH_LEN]).set_fields(
            self.resv,
            self.selectivity_level,
            self.placement_type,
        );
        Ok(FETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["FETH-RESV-001", "FETH-SEL-001", "FETH-PLT-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let v = |requirement, field, value: u64, rule| Violation {
            requirement,
            header: Header::Feth,
            field,
            offset: Some(base + if field == "resv" { 0 } else { 3 }),
            value,
            rule,
        };
        if self.resv != 0 {
            out.push(v("FETH-RESV-001", "resv", self.resv.into(), "FETH bits 31-6 are reserved"));
        }
        if self.selectivity_level > Self::SEL_MEMORY_REGION {
            out.push(v(
                "FETH-SEL-001",
                "selectivity_level",
                self.selectivity_level.into(),
                "the FETH selectivity level is 0 (range) or 1 (memory region)",
            ));
        }
        if !matches!(self.placement_type, 1..=3) {
            out.push(v(
                "FETH-PLT-001",
                "placement_type",
                self.placement_type.into(),
                "the FETH placement type sets bit 0, bit 1 or both, and nothing else",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    const DETH: [u8; 8] = [0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34];

    /// DETH-LAYOUT-001: the DETH of table 23, decoded and encoded; DETH-RESV-001 is
    /// reported.
    #[test]
    fn deth() {
        let v = Deth::new_checked(&DETH[..]).unwrap();
        assert_eq!((v.qkey(), v.resv(), v.src_qp()), (0x8001_0000, 0, Qpn::new(0x1234)));
        let r = DethRepr::new(0x8001_0000, Qpn::new(0x1234));
        assert_eq!(DethRepr::parse(&DETH).unwrap(), r);
        let mut buf = [0xFFu8; 8];
        let mut w = Deth::new_unchecked(&mut buf[..]);
        w.set_qkey(0x8001_0000);
        w.set_resv(0);
        w.set_src_qp(Qpn::new(0x1234));
        assert_eq!(buf, DETH);
        let mut buf = [0u8; 8];
        assert_eq!(r.emit(&mut buf), Ok(8));
        assert_eq!(buf, DETH);
        assert_eq!(
            DethRepr::parse(&DETH[..6]).unwrap_err(),
            DecodeError::truncated(Header::Deth, "src_qp", 5, 3, 1)
        );
        assert!(matches!(r.emit(&mut [0u8; 7]), Err(EmitError::BufferTooShort { .. })));
        let mut out = Vec::new();
        r.validate(0, &mut out);
        assert!(out.is_empty());
        DethRepr { resv: 7, ..r }.validate(42, &mut out);
        assert_eq!((out[0].requirement, out[0].offset), ("DETH-RESV-001", Some(46)));
    }

    /// IETH-LAYOUT-001: the IETH of table 24, decoded and encoded.
    #[test]
    fn ieth() {
        let b = [0xDE, 0xAD, 0xBE, 0xEF];
        assert_eq!(Ieth::new_checked(&b[..]).unwrap().rkey(), Rkey::new(0xDEAD_BEEF));
        let r = IethRepr { rkey: Rkey::new(0xDEAD_BEEF) };
        assert_eq!(IethRepr::parse(&b).unwrap(), r);
        let mut buf = [0u8; 4];
        Ieth::new_unchecked(&mut buf[..]).set_rkey(Rkey::new(0xDEAD_BEEF));
        assert_eq!(buf, b);
        assert_eq!(r.emit(&mut buf), Ok(4));
        assert_eq!(buf, b);
        assert_eq!(IethRepr::parse(&b[..3]).unwrap_err().field, "rkey");
        assert!(r.emit(&mut [0u8; 3]).is_err());
        let mut out = Vec::new();
        r.validate(0, &mut out);
        assert!(out.is_empty());
    }

    /// ATOMIC-LAYOUT-001: the AtomicETH of table 25, decoded and encoded.
    #[test]
    fn atomic_eth() {
        let mut b = [0u8; 28];
        b[..8].copy_from_slice(&0x1000_u64.to_be_bytes());
        b[8..12].copy_from_slice(&7u32.to_be_bytes());
        b[12..20].copy_from_slice(&0xAAAA_u64.to_be_bytes());
        b[20..].copy_from_slice(&0x5555_u64.to_be_bytes());
        let v = AtomicEth::new_checked(&b[..]).unwrap();
        assert_eq!(
            (v.va(), v.rkey(), v.swap_add(), v.compare()),
            (0x1000, Rkey::new(7), 0xAAAA, 0x5555)
        );
        let r = AtomicEthRepr { va: 0x1000, rkey: Rkey::new(7), swap_add: 0xAAAA, compare: 0x5555 };
        assert_eq!(AtomicEthRepr::parse(&b).unwrap(), r);
        let mut buf = [0xFFu8; 28];
        let mut w = AtomicEth::new_unchecked(&mut buf[..]);
        w.set_va(0x1000);
        w.set_rkey(Rkey::new(7));
        w.set_swap_add(0xAAAA);
        w.set_compare(0x5555);
        assert_eq!(buf, b);
        let mut buf = [0u8; 28];
        assert_eq!(r.emit(&mut buf), Ok(28));
        assert_eq!(buf, b);
        assert_eq!(
            AtomicEthRepr::parse(&b[..21]).unwrap_err(),
            DecodeError::truncated(Header::AtomicEth, "compare", 20, 8, 1)
        );
        assert!(r.emit(&mut [0u8; 27]).is_err());
    }

    /// ATOMIC-LAYOUT-001: the AtomicAckETH of table 26, decoded and encoded.
    #[test]
    fn atomic_ack_eth() {
        let b = 0x0123_4567_89AB_CDEF_u64.to_be_bytes();
        assert_eq!(AtomicAckEth::new_checked(&b[..]).unwrap().orig(), 0x0123_4567_89AB_CDEF);
        let r = AtomicAckEthRepr { orig: 0x0123_4567_89AB_CDEF };
        assert_eq!(AtomicAckEthRepr::parse(&b).unwrap(), r);
        let mut buf = [0u8; 8];
        AtomicAckEth::new_unchecked(&mut buf[..]).set_orig(r.orig);
        assert_eq!(buf, b);
        assert_eq!(r.emit(&mut buf), Ok(8));
        assert_eq!(buf, b);
        assert_eq!(
            AtomicAckEthRepr::parse(&b[..4]).unwrap_err(),
            DecodeError::truncated(Header::AtomicAckEth, "orig", 0, 8, 4)
        );
        assert!(r.emit(&mut [0u8; 7]).is_err());
    }

    #[test]
    fn cnp() {
        let b = [0u8; 16];
        assert_eq!(Cnp::new_checked(&b[..]).unwrap().resv(), &[0u8; 16]);
        let r = CnpRepr::parse(&b).unwrap();
        assert_eq!(r, CnpRepr::default());
        let mut buf = [0xFFu8; 16];
        assert_eq!(r.emit(&mut buf), Ok(16));
        assert_eq!(buf, b);
        Cnp::new_unchecked(&mut buf[..]).resv_mut()[5] = 0x42;
        let bad = CnpRepr::parse(&buf).unwrap();
        assert_eq!(bad.resv[5], 0x42);
        assert_eq!(
            CnpRepr::parse(&b[..15]).unwrap_err(),
            DecodeError::truncated(Header::Cnp, "resv", 0, 16, 15)
        );
        assert!(r.emit(&mut [0u8; 15]).is_err());
        let mut out = Vec::new();
        r.validate(0, &mut out);
        assert!(out.is_empty());
        bad.validate(54, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].requirement, out[0].offset, out[0].value),
            ("CNP-RESV-001", Some(59), 0x42)
        );
    }

    /// RDETH-LAYOUT-001 and XRCETH-LAYOUT-001: both 4-byte headers decoded and encoded;
    /// a non-zero reserved byte is reported.
    #[test]
    fn rdeth_and_xrceth() {
        let b = [0x00, 0x12, 0x34, 0x56];
        let r = RdethRepr::parse(&b).unwrap();
        assert_eq!(r, RdethRepr { resv: 0, ee_context: 0x12_3456 });
        let x = XrcethRepr::parse(&b).unwrap();
        assert_eq!(x, XrcethRepr { resv: 0, xrc_srq: 0x12_3456 });
        let mut buf = [0xFFu8; 4];
        assert_eq!(r.emit(&mut buf), Ok(4));
        assert_eq!(buf, b);
        buf = [0xFF; 4];
        assert_eq!(x.emit(&mut buf), Ok(4));
        assert_eq!(buf, b);
        assert_eq!(
            RdethRepr::parse(&b[..2]).unwrap_err(),
            DecodeError::truncated(Header::Rdeth, "ee_context", 1, 3, 1)
        );
        assert_eq!(
            XrcethRepr::parse(&b[..0]).unwrap_err(),
            DecodeError::truncated(Header::Xrceth, "resv", 0, 1, 0)
        );
        assert!(RdethRepr { resv: 0, ee_context: 1 << 24 }.emit(&mut buf).is_err());
        assert!(x.emit(&mut [0u8; 3]).is_err());
        let mut out = Vec::new();
        r.validate(0, &mut out);
        x.validate(0, &mut out);
        assert!(out.is_empty());
        RdethRepr { resv: 1, ..r }.validate(46, &mut out);
        XrcethRepr { resv: 2, ..x }.validate(50, &mut out);
        assert_eq!((out[0].requirement, out[0].offset), ("RDETH-RESV-001", Some(46)));
        assert_eq!((out[1].requirement, out[1].offset), ("XRCETH-RESV-001", Some(50)));
    }

    /// FETH-LAYOUT-001: the FETH of table 26a, decoded and encoded; FETH-RESV-001,
    /// FETH-SEL-001 and FETH-PLT-001 are reported.
    #[test]
    fn feth() {
        // resv 1 (bit 6), selectivity level 1, placement type 2.
        let b = [0x00, 0x00, 0x00, 0x52];
        let v = Feth::new_checked(&b[..]).unwrap();
        assert_eq!((v.resv(), v.selectivity_level(), v.placement_type()), (1, 1, 2));
        let r = FethRepr { resv: 1, selectivity_level: 1, placement_type: 2 };
        assert_eq!(FethRepr::parse(&b).unwrap(), r);
        let mut buf = [0xFFu8; 4];
        Feth::new_unchecked(&mut buf[..]).set_fields(1, 1, 2);
        assert_eq!(buf, b);
        let mut buf = [0u8; 4];
        assert_eq!(r.emit(&mut buf), Ok(4));
        assert_eq!(buf, b);
        assert_eq!(
            FethRepr::parse(&b[..3]).unwrap_err(),
            DecodeError::truncated(Header::Feth, "resv", 0, 4, 3)
        );
        assert!(r.emit(&mut [0u8; 3]).is_err());
        assert!(FethRepr { resv: 1 << 26, ..r }.emit(&mut buf).is_err());
        assert!(FethRepr { selectivity_level: 4, ..r }.emit(&mut buf).is_err());
        assert!(FethRepr { placement_type: 16, ..r }.emit(&mut buf).is_err());
        // The top reserved bit survives a round trip.
        let top = [0x80, 0, 0, 0x01];
        let t = FethRepr::parse(&top).unwrap();
        assert_eq!(t.resv, 1 << 25);
        assert_eq!(t.emit(&mut buf), Ok(4));
        assert_eq!(buf, top);

        let mut out = Vec::new();
        FethRepr::new(FethRepr::SEL_RANGE, FethRepr::PLT_PERSISTENCE).validate(0, &mut out);
        assert!(out.is_empty());
        r.validate(50, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].requirement, out[0].offset, out[0].value),
            ("FETH-RESV-001", Some(50), 1)
        );
        out.clear();
        FethRepr::new(2, 0).validate(50, &mut out);
        FethRepr::new(0, 4).validate(50, &mut out);
        let ids: Vec<_> = out.iter().map(|v| (v.requirement, v.offset)).collect();
        assert_eq!(
            ids,
            [("FETH-SEL-001", Some(53)), ("FETH-PLT-001", Some(53)), ("FETH-PLT-001", Some(53))]
        );
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4942);
        let mut b = [0u8; 28];
        let mut out = [0u8; 28];
        for _ in 0..1000 {
            rng.fill_bytes(&mut b);
            assert_eq!(DethRepr::parse(&b).unwrap().emit(&mut out), Ok(DETH_LEN));
            assert_eq!(out[..DETH_LEN], b[..DETH_LEN]);
            assert_eq!(IethRepr::parse(&b).unwrap().emit(&mut out), Ok(IETH_LEN));
            assert_eq!(out[..IETH_LEN], b[..IETH_LEN]);
            assert_eq!(AtomicEthRepr::parse(&b).unwrap().emit(&mut out), Ok(ATOMIC_ETH_LEN));
            assert_eq!(out[..ATOMIC_ETH_LEN], b[..ATOMIC_ETH_LEN]);
            assert_eq!(AtomicAckEthRepr::parse(&b).unwrap().emit(&mut out), Ok(ATOMIC_ACK_ETH_LEN));
            assert_eq!(out[..ATOMIC_ACK_ETH_LEN], b[..ATOMIC_ACK_ETH_LEN]);
            assert_eq!(CnpRepr::parse(&b).unwrap().emit(&mut out), Ok(CNP_LEN));
            assert_eq!(out[..CNP_LEN], b[..CNP_LEN]);
            assert_eq!(RdethRepr::parse(&b).unwrap().emit(&mut out), Ok(RDETH_LEN));
            assert_eq!(out[..RDETH_LEN], b[..RDETH_LEN]);
            assert_eq!(XrcethRepr::parse(&b).unwrap().emit(&mut out), Ok(XRCETH_LEN));
            assert_eq!(out[..XRCETH_LEN], b[..XRCETH_LEN]);
            assert_eq!(FethRepr::parse(&b).unwrap().emit(&mut out), Ok(FETH_LEN));
            assert_eq!(out[..FETH_LEN], b[..FETH_LEN]);
        }
    }
}
