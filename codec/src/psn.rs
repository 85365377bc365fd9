//! 24-bit packet sequence numbers with modular arithmetic.
//!
//! PSNs live in a ring of 2^24 values (requirement `BTH-PSN-001`). Comparison is only
//! meaningful inside a window: [`Psn::distance`] gives the signed distance from one PSN
//! to another in (-2^23, 2^23], and [`Psn::in_window`] asks whether a PSN lies in
//! `[base, base + len)` modulo 2^24. There is deliberately no `Ord` implementation: a
//! total order on a ring would be a lie that fails exactly at the wrap.

use core::fmt;

use crate::id::TooWide;

/// Number of distinct PSN values, 2^24.
pub const PSN_MODULUS: u32 = 1 << 24;
/// Mask of the 24 PSN bits.
pub const PSN_MASK: u32 = PSN_MODULUS - 1;

/// A 24-bit packet sequence number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(transparent)]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct Psn(u32);

impl Psn {
    /// PSN zero.
    pub const ZERO: Psn = Psn(0);
    /// The largest PSN, 2^24 - 1.
    pub const MAX: Psn = Psn(PSN_MASK);

    /// A PSN from the low 24 bits of `value` (higher bits are discarded).
    #[inline]
    pub const fn new(value: u32) -> Psn {
        Psn(value & PSN_MASK)
    }

    /// A PSN from `value`, or `None` if it does not fit in 24 bits.
    #[inline]
    pub const fn try_new(value: u32) -> Option<Psn> {
        if value > PSN_MASK { None } else { Some(Psn(value)) }
    }

    /// The 24-bit value.
    #[inline]
    pub const fn value(self) -> u32 {
        self.0
    }

    /// `self + n` modulo 2^24.
    #[inline]
    #[must_use]
    pub const fn add(self, n: u32) -> Psn {
        Psn(self.0.wrapping_add(n) & PSN_MASK)
    }

    /// `self - n` modulo 2^24.
    #[inline]
    #[must_use]
    pub const fn sub(self, n: u32) -> Psn {
        Psn(self.0.wrapping_sub(n) & PSN_MASK)
    }

    /// `self + delta` modulo 2^24, for a signed delta.
    #[inline]
    #[must_use]
    pub const fn offset(self, delta: i32) -> Psn {
        Psn((self.0 as i32).wrapping_add(delta) as u32 & PSN_MASK)
    }

    /// The next PSN.
    #[inline]
    #[must_use]
    pub const fn next(self) -> Psn {
        self.add(1)
    }

    /// How far `self` is ahead of `from`, counting forward around the ring: in [0, 2^24).
    #[inline]
    pub const fn forward_from(self, from: Psn) -> u32 {
        self.0.wrapping_sub(from.0) & PSN_MASK
    }

    /// Signed distance from `from` to `self`, in (-2^23, 2^23]. Positive when `self` is
    /// ahead of `from` by less than half the ring.
    #[inline]
    pub const fn distance(self, from: Psn) -> i32 {
        let d = self.forward_from(from);
        if d > PSN_MODULUS / 2 { d as i32 - PSN_MODULUS as i32 } else { d as i32 }
    }

    /// Whether `self` lies in the window `[base, base + len)` modulo 2^24.
    #[inline]
    pub const fn in_window(self, base: Psn, len: u32) -> bool {
        self.forward_from(base) < len
    }

    /// Whether `self` is strictly ahead of `other` (within half the ring).
    #[inline]
    pub const fn is_after(self, other: Psn) -> bool {
        self.distance(other) > 0
    }

    /// Whether `self` is strictly behind `other` (within half the ring).
    #[inline]
    pub const fn is_before(self, other: Psn) -> bool {
        self.distance(other) < 0
    }
}

impl fmt::Debug for Psn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Psn({})", self.0)
    }
}

impl fmt::Display for Psn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl From<Psn> for u32 {
    fn from(p: Psn) -> u32 {
        p.0
    }
}

impl TryFrom<u32> for Psn {
    type Error = TooWide;

    /// The PSN `value`, or a [`TooWide`] if it does not fit in 24 bits.
    fn try_from(value: u32) -> Result<Psn, TooWide> {
        Psn::try_new(value).ok_or(TooWide { what: "PSN", value: u64::from(value), bits: 24 })
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Psn {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Psn::new(u32::arbitrary(u)?))
    }
    fn size_hint(depth: usize) -> (usize, Option<usize>) {
        u32::size_hint(depth)
    }
}

/// A 24-bit queue pair number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(transparent)]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct Qpn(u32);

impl Qpn {
    /// QP 1, the general services interface (connection management).
    pub const GSI: Qpn = Qpn(1);
    /// QP 2, reserved by MRC for connectionless endpoint operations (ERTH/EETH).
    pub const ENDPOINT: Qpn = Qpn(2);

    /// A QPN from the low 24 bits of `value`.
    #[inline]
    pub const fn new(value: u32) -> Qpn {
        Qpn(value & 0x00FF_FFFF)
    }

    /// A QPN from `value`, or `None` if it does not fit in 24 bits.
    #[inline]
    pub const fn try_new(value: u32) -> Option<Qpn> {
        if value > 0x00FF_FFFF { None } else { Some(Qpn(value)) }
    }

    /// The 24-bit value.
    #[inline]
    pub const fn value(self) -> u32 {
        self.0
    }
}

impl From<Qpn> for u32 {
    fn from(q: Qpn) -> u32 {
        q.0
    }
}

impl TryFrom<u32> for Qpn {
    type Error = TooWide;

    /// The QPN `value`, or a [`TooWide`] if it does not fit in 24 bits.
    fn try_from(value: u32) -> Result<Qpn, TooWide> {
        Qpn::try_new(value).ok_or(TooWide { what: "QPN", value: u64::from(value), bits: 24 })
    }
}

impl fmt::Debug for Qpn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Qpn({:#x})", self.0)
    }
}

impl fmt::Display for Qpn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

impl fmt::LowerHex for Qpn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0, f)
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Qpn {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Qpn::new(u32::arbitrary(u)?))
    }
    fn size_hint(depth: usize) -> (usize, Option<usize>) {
        u32::size_hint(depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_two_to_the_24() {
        assert_eq!(Psn::MAX.next(), Psn::ZERO);
        assert_eq!(Psn::ZERO.sub(1), Psn::MAX);
        assert_eq!(Psn::new(0x0100_0005), Psn::new(5));
        assert_eq!(Psn::try_new(1 << 24), None);
        assert_eq!(Psn::new(3).offset(-5), Psn::new(PSN_MASK - 1));
        assert_eq!(Psn::try_from(PSN_MASK), Ok(Psn::MAX));
        let e = TooWide { what: "PSN", value: 1 << 24, bits: 24 };
        assert_eq!(Psn::try_from(1 << 24), Err(e));
        assert_eq!(Qpn::try_from(1 << 24), Err(TooWide { what: "QPN", ..e }));
    }

    #[test]
    fn distance_is_signed_and_wraps() {
        assert_eq!(Psn::new(5).distance(Psn::new(3)), 2);
        assert_eq!(Psn::new(3).distance(Psn::new(5)), -2);
        assert_eq!(Psn::new(1).distance(Psn::MAX), 2);
        assert_eq!(Psn::MAX.distance(Psn::new(1)), -2);
        assert!(Psn::new(1).is_after(Psn::MAX));
        assert!(Psn::MAX.is_before(Psn::new(1)));
        assert!(!Psn::new(7).is_after(Psn::new(7)));
        // Exactly half the ring away counts as ahead.
        assert_eq!(Psn::new(PSN_MODULUS / 2).distance(Psn::ZERO), (PSN_MODULUS / 2) as i32);
    }

    #[test]
    fn window_membership_across_the_wrap() {
        let base = Psn::new(PSN_MASK - 2);
        assert!(base.in_window(base, 1));
        assert!(Psn::new(PSN_MASK).in_window(base, 4));
        assert!(Psn::new(0).in_window(base, 4));
        assert!(!Psn::new(1).in_window(base, 4));
        assert!(!base.sub(1).in_window(base, 4));
        assert!(!base.in_window(base, 0));
    }
}
