//! FETH: the FLUSH Extended Transport Header.

use super::*;

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
