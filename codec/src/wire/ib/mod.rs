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

mod atomic;
mod cnp;
mod feth;

pub use atomic::*;
pub use cnp::*;
pub use feth::*;

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

#[cfg(test)]
mod tests;
