//! Identifiers and message numbers that cross the wire or the host formats, each a type of
//! its own so that a signature says which number it takes.
//!
//! | type | width | names | carried in |
//! |---|---|---|---|
//! | [`Psn`](crate::Psn) | 24 bits, modular | a packet | BTH, SETH, NETH |
//! | [`Qpn`](crate::Qpn) | 24 bits | a queue pair | BTH |
//! | [`Ev`] | 32 bits | a path: the entropy value | UDP source port and IPv6 flow label, SETH, NETH |
//! | [`Msn`] | 16 bits, modular | a message of a retirement domain | METH, completion entry |
//! | [`AethMsn`] | 24 bits | the AETH's `msn` field, an [`Msn`] zero-extended | AETH |
//! | [`Rqmsn`] | 16 bits, modular | a Write-with-Immediate message of a QP | METH |
//! | [`Rkey`] | 32 bits | a region remote writes may target | RETH, work request, template |
//! | [`Lkey`] | 32 bits | memory the NIC reads locally | work request, template |
//! | [`TemplateId`] | 12 bits in a token | a doorbell template | doorbell token, template |
//!
//! Each is a `#[repr(transparent)]` wrapper of the integer its field holds, with `new` and
//! `value`; its serde form is that integer, so the JSON and TOML of every format that holds
//! one read and write as they did when the field was a bare integer. As for [`Psn`](crate::Psn)
//! and [`Qpn`](crate::Qpn), serde reads whatever integer is written, wider than the field or
//! not: a frame given as fields in JSON with a value too wide is refused where it is emitted,
//! with an [`EmitError`](crate::EmitError) that names the field, as before. `Debug` names the type,
//! `Display` prints the value as reports print it: keys, EVs and QPNs in hexadecimal, message
//! numbers and template IDs in decimal. Keys and EVs also format with `{:x}` and `{:#010x}`.
//!
//! # Widths
//!
//! MRC numbers messages modulo 2^16: each message of a retirement domain takes the next MSN
//! (`SND-MSN-001`), METH carries it in 16 bits (`METH-MSN-001`), and an MSN `a` is at or
//! before `b` when `(b − a) mod 2^16` is below 2^15 (`spec/sender.md` section 1.2). [`Msn`]
//! is that number, with that arithmetic; RQMSNs follow the same rule (`METH-RQMSN-001`) as
//! [`Rqmsn`], a type of its own so that the two numbers of a METH cannot be swapped.
//!
//! The AETH's `msn` field has 24 bits, InfiniBand's width. MRC puts the METH `msn` of the
//! last message acknowledged in bits 15:0 and requires bits 23:16 to be 0 (`AETH-MSN-001`).
//! [`AethMsn`] holds the whole field, so that a decoded AETH keeps what a device really sent;
//! [`AethMsn::msn`] gives the MSN a sender acts on (bits 15:0, `SND-ACK-001`) and
//! [`AethMsn::high`] the bits that must be 0. `AethMsn::from(msn)` zero-extends an MSN; a
//! value wider than 24 bits is refused by `TryFrom<u32>` with a [`TooWide`].
//!
//! A template ID has 12 bits in a doorbell token (`DB-FORMAT-001`), and software may install
//! only IDs up to 4095 (`TPL-ID-001`). [`TemplateId`] holds any 16-bit value, so that an
//! installation can carry an ID that is out of range and be refused with its requirement, as
//! a device must refuse it; [`TemplateId::fits_token`] says whether it is in range.
//!
//! Only the message numbers have arithmetic. An EV, a key or an ID is a name: it is compared,
//! hashed and ordered (so that tables of them iterate in a fixed order), never added to.

use core::fmt;

/// A value too wide for the field or number it was given as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{what} {value:#x} does not fit in {bits} bits")]
pub struct TooWide {
    /// What the value was given as, e.g. `"AETH msn"`.
    pub what: &'static str,
    /// The value.
    pub value: u64,
    /// The width of the field.
    pub bits: u32,
}

/// The parts every identifier shares: `new`, `value`, the conversions from and to the
/// integer, and `Debug` in the form `Name(value)`.
macro_rules! id_common {
    ($name:ident, $int:ty, $debug:literal) => {
        impl $name {
            #[doc = concat!("The ", stringify!($name), " whose value is `value`.")]
            #[inline]
            pub const fn new(value: $int) -> $name {
                $name(value)
            }

            /// The value.
            #[inline]
            pub const fn value(self) -> $int {
                self.0
            }
        }

        impl From<$int> for $name {
            #[inline]
            fn from(value: $int) -> $name {
                $name(value)
            }
        }

        impl From<$name> for $int {
            #[inline]
            fn from(id: $name) -> $int {
                id.0
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "(", $debug, ")"), self.0)
            }
        }
    };
}

/// An identifier printed in hexadecimal: `Display` is `0x…`, and `{:x}`, `{:X}` and their
/// width and `#` flags format the value.
macro_rules! hex_id {
    ($name:ident, $int:ty) => {
        id_common!($name, $int, "{:#x}");

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{:#x}", self.0)
            }
        }

        impl fmt::LowerHex for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::LowerHex::fmt(&self.0, f)
            }
        }

        impl fmt::UpperHex for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::UpperHex::fmt(&self.0, f)
            }
        }
    };
}

/// An entropy value: the 32-bit number that chooses a packet's path (`ENC-EV-*`, the `EV-*`
/// requirements). EV\[31:16\] travels in the UDP source port and EV\[15:0\] in the low 16
/// bits of the IPv6 flow label; SACKs and NACKs reflect it whole.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[repr(transparent)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Ev(u32);

hex_id!(Ev, u32);

impl Ev {
    /// The EV whose high half is `high` (the UDP source port) and low half `low` (the low 16
    /// bits of the IPv6 flow label).
    #[inline]
    pub const fn from_halves(high: u16, low: u16) -> Ev {
        Ev(((high as u32) << 16) | low as u32)
    }

    /// EV\[31:16\], the UDP source port.
    #[inline]
    pub const fn high(self) -> u16 {
        (self.0 >> 16) as u16
    }

    /// EV\[15:0\], the low 16 bits of the IPv6 flow label.
    #[inline]
    pub const fn low(self) -> u16 {
        self.0 as u16
    }
}

/// A remote key: names a registered region that remote writes may target (RETH `rkey`,
/// `RCV-PLACE-*`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[repr(transparent)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Rkey(u32);

hex_id!(Rkey, u32);

/// A local key: names memory registered for the NIC to read, the source of a message's
/// payload (`TPL-KEY-001`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[repr(transparent)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Lkey(u32);

hex_id!(Lkey, u32);

/// A doorbell template's ID (`TPL-ID-001`): 12 bits in a token, any 16-bit value in a
/// template as software gives it (see the [module documentation](self)).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[repr(transparent)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct TemplateId(u16);

id_common!(TemplateId, u16, "{}");

impl TemplateId {
    /// The largest ID a token can name, 4095 (`TPL-ID-001`).
    pub const MAX: TemplateId = TemplateId(0x0FFF);

    /// Whether the ID fits in a token's 12 bits, as an installed template's must
    /// (`TPL-ID-001`).
    #[inline]
    pub const fn fits_token(self) -> bool {
        self.0 <= Self::MAX.0
    }
}

impl fmt::Display for TemplateId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A 16-bit message number with the arithmetic of `spec/sender.md` section 1.2: values wrap
/// modulo 2^16, and `a` is at or before `b` when `(b − a) mod 2^16` is below 2^15. As for
/// [`Psn`](crate::Psn) there is no `Ord`: a total order on a ring fails at the wrap.
macro_rules! seq16 {
    ($name:ident) => {
        id_common!($name, u16, "{}");

        impl $name {
            /// Zero, where a counter starts (`RET-DOMAIN-003`).
            pub const ZERO: $name = $name(0);

            /// `self + n` modulo 2^16.
            #[inline]
            #[must_use]
            pub const fn add(self, n: u16) -> $name {
                $name(self.0.wrapping_add(n))
            }

            /// `self - n` modulo 2^16.
            #[inline]
            #[must_use]
            pub const fn sub(self, n: u16) -> $name {
                $name(self.0.wrapping_sub(n))
            }

            /// The next number.
            #[inline]
            #[must_use]
            pub const fn next(self) -> $name {
                self.add(1)
            }

            /// The number before.
            #[inline]
            #[must_use]
            pub const fn prev(self) -> $name {
                self.sub(1)
            }

            /// How far `self` is ahead of `from`, counting forward around the ring:
            /// `(self − from) mod 2^16`.
            #[inline]
            pub const fn forward_from(self, from: $name) -> u16 {
                self.0.wrapping_sub(from.0)
            }

            /// Signed distance from `from` to `self`, in [-2^15, 2^15): not negative exactly
            /// when `from` is at or before `self`.
            #[inline]
            pub const fn distance(self, from: $name) -> i16 {
                self.forward_from(from) as i16
            }

            /// Whether `self` is at or before `other`: `(other − self) mod 2^16 < 2^15`.
            #[inline]
            pub const fn is_at_or_before(self, other: $name) -> bool {
                other.distance(self) >= 0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

/// A message sequence number: the 16-bit number of a message in its retirement domain
/// (`SND-MSN-001`, `METH-MSN-001`), modulo 2^16.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Msn(u16);

seq16!(Msn);

/// A receive-queue message sequence number: the 16-bit number of a QP's Write-with-Immediate
/// message (`METH-RQMSN-001`, `SND-RQMSN-002`), modulo 2^16.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Rqmsn(u16);

seq16!(Rqmsn);

/// Mask of the 24 bits of an AETH `msn`.
const AETH_MSN_MASK: u32 = 0x00FF_FFFF;

/// The 24-bit `msn` field of an AETH: bits 15:0 are the [`Msn`] of the last message the
/// acknowledgement covers, bits 23:16 must be 0 (`AETH-MSN-001`). See the
/// [module documentation](self) for why the field is a type of its own.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct AethMsn(u32);

impl AethMsn {
    /// The field from the low 24 bits of `value` (higher bits are discarded).
    #[inline]
    pub const fn new(value: u32) -> AethMsn {
        AethMsn(value & AETH_MSN_MASK)
    }

    /// The field from `value`, or `None` if it does not fit in 24 bits.
    #[inline]
    pub const fn try_new(value: u32) -> Option<AethMsn> {
        if value > AETH_MSN_MASK { None } else { Some(AethMsn(value)) }
    }

    /// The 24-bit value.
    #[inline]
    pub const fn value(self) -> u32 {
        self.0
    }

    /// The MSN, bits 15:0: what a sender acts on (`SND-ACK-001`).
    #[inline]
    pub const fn msn(self) -> Msn {
        Msn(self.0 as u16)
    }

    /// Bits 23:16, which `AETH-MSN-001` requires to be 0.
    #[inline]
    pub const fn high(self) -> u8 {
        (self.0 >> 16) as u8
    }
}

impl From<Msn> for AethMsn {
    /// The MSN zero-extended to 24 bits (`AETH-MSN-001`).
    #[inline]
    fn from(msn: Msn) -> AethMsn {
        AethMsn(u32::from(msn.0))
    }
}

impl TryFrom<u32> for AethMsn {
    type Error = TooWide;

    #[inline]
    fn try_from(value: u32) -> Result<AethMsn, TooWide> {
        AethMsn::try_new(value).ok_or(TooWide {
            what: "AETH msn",
            value: u64::from(value),
            bits: 24,
        })
    }
}

impl From<AethMsn> for u32 {
    #[inline]
    fn from(m: AethMsn) -> u32 {
        m.0
    }
}

impl fmt::Debug for AethMsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AethMsn({})", self.0)
    }
}

impl fmt::Display for AethMsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for AethMsn {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(AethMsn::new(u32::arbitrary(u)?))
    }
    fn size_hint(depth: usize) -> (usize, Option<usize>) {
        u32::size_hint(depth)
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;

    use super::*;

    #[test]
    fn msn_wraps_at_two_to_the_16() {
        assert_eq!(Msn::new(0xFFFF).next(), Msn::ZERO);
        assert_eq!(Msn::ZERO.prev(), Msn::new(0xFFFF));
        assert_eq!(Msn::new(3).sub(5), Msn::new(0xFFFE));
        assert_eq!(Msn::new(1).forward_from(Msn::new(0xFFFF)), 2);
        assert_eq!(Msn::new(1).distance(Msn::new(0xFFFF)), 2);
        assert_eq!(Msn::new(0xFFFF).distance(Msn::new(1)), -2);
    }

    /// `spec/sender.md` section 1.2: `a` is at or before `b` when `(b − a) mod 2^16` is
    /// below 2^15; half the ring away, neither is at or before the other.
    #[test]
    fn at_or_before_is_the_half_ring_rule() {
        let a = Msn::new(0xFFF0);
        assert!(a.is_at_or_before(a));
        assert!(a.is_at_or_before(Msn::new(5)));
        assert!(!Msn::new(5).is_at_or_before(a));
        let half = Msn::new(0x8000);
        assert!(!Msn::ZERO.is_at_or_before(half));
        assert!(!half.is_at_or_before(Msn::ZERO));
        assert!(Msn::ZERO.is_at_or_before(Msn::new(0x7FFF)));
    }

    #[test]
    fn aeth_msn_widths() {
        let m = AethMsn::from(Msn::new(0xABCD));
        assert_eq!((m.value(), m.msn(), m.high()), (0xABCD, Msn::new(0xABCD), 0));
        let wide = AethMsn::new(0x12_3456);
        assert_eq!((wide.msn(), wide.high()), (Msn::new(0x3456), 0x12));
        assert_eq!(AethMsn::new(0x0100_0005), AethMsn::new(5));
        assert_eq!(AethMsn::try_from(0xFF_FFFF), Ok(AethMsn::new(0xFF_FFFF)));
        let e = AethMsn::try_from(1 << 24).unwrap_err();
        assert_eq!(e, TooWide { what: "AETH msn", value: 1 << 24, bits: 24 });
        assert_eq!(format!("{e}"), "AETH msn 0x1000000 does not fit in 24 bits");
    }

    #[test]
    fn evs_split_into_halves() {
        let ev = Ev::from_halves(0xC0A8, 0x0001);
        assert_eq!(ev, Ev::new(0xC0A8_0001));
        assert_eq!((ev.high(), ev.low()), (0xC0A8, 0x0001));
    }

    #[test]
    fn template_ids_in_and_out_of_a_token() {
        assert!(TemplateId::new(4095).fits_token());
        assert!(!TemplateId::new(4096).fits_token());
        assert_eq!(TemplateId::MAX, TemplateId::new(0xFFF));
    }

    /// Reports print keys and EVs in hexadecimal and numbers in decimal, as they did when
    /// these were bare integers.
    #[test]
    fn debug_and_display() {
        assert_eq!(format!("{} {:?}", Ev::new(0xC0A8_0001), Ev::new(1)), "0xc0a80001 Ev(0x1)");
        assert_eq!(format!("{:#010x} {:x}", Ev::new(0x10), Rkey::new(0xAB)), "0x00000010 ab");
        assert_eq!(format!("{} {:?}", Rkey::new(0x1234), Lkey::new(0x10)), "0x1234 Lkey(0x10)");
        assert_eq!(format!("{} {:?}", Msn::new(7), Msn::new(7)), "7 Msn(7)");
        assert_eq!(format!("{} {:?}", Rqmsn::new(2), AethMsn::new(3)), "2 AethMsn(3)");
        assert_eq!(format!("{} {:?}", TemplateId::new(5), TemplateId::new(5)), "5 TemplateId(5)");
    }
}
