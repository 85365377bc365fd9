//! MRC requester timestamp Extended Transport Header, 4 bytes (requirements `TSETH-*`).
//!
//! ```text
//!  byte 0-1 tx_timestamp   requester's transmit timestamp, reflected in CC_STATE
//!  byte 2   tsr(7) resv(6:0)                 -- resv is 11 bits: byte 2 bits 6:0 are its
//!  byte 3   resv(7:4) ftype(3:0)             -- high 7 bits, byte 3 bits 7:4 its low 4
//! ```
//!
//! Read as one big-endian 16-bit word, bytes 2-3 are `tsr(15) resv(14:4) ftype(3:0)`.
//! A TSETH follows the METH of an MRC write exactly when BTH `ts` is set. `tsr` is carried
//! as MRC names it and not interpreted by the codec; `ftype` should be 1
//! (`TSETH-FTYPE-001`).
//!
//! The view's accessors never panic once [`Tseth::new_checked`] (or [`Tseth::check_len`])
//! has succeeded; `new_unchecked` followed by an accessor on a short buffer panics.

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};
use crate::field::{set_u16, u16_at};

/// Length of the TSETH in bytes.
pub const TSETH_LEN: usize = 4;

/// The `ftype` a TSETH should carry (`TSETH-FTYPE-001`).
pub const TSETH_DEFAULT_FTYPE: u8 = 1;

/// Largest value of the 11 reserved bits.
const RESV_MAX: u16 = 0x7FF;

mod field {
    pub(super) const TX_TIMESTAMP: usize = 0;
    pub(super) const FLAGS: usize = 2;
}

/// Fields in wire order as (name, offset, length): names the first field a short buffer
/// cannot hold. `tsr`, `resv` and `ftype` share bytes 2-3 and are named by `tsr`.
const LAYOUT: &[(&str, usize, usize)] =
    &[("tx_timestamp", field::TX_TIMESTAMP, 2), ("tsr", field::FLAGS, 2)];

/// Splits the 16-bit word `tsr(15) resv(14:4) ftype(3:0)` into its parts. Shared with
/// PETH, whose bytes 14-15 have the same layout.
pub(crate) fn split_ts_word(w: u16) -> (bool, u16, u8) {
    (w & 0x8000 != 0, (w >> 4) & RESV_MAX, (w & 0xF) as u8)
}

/// Builds the 16-bit word `tsr(15) resv(14:4) ftype(3:0)`; `resv` and `ftype` are masked to
/// their bits.
pub(crate) fn join_ts_word(tsr: bool, resv: u16, ftype: u8) -> u16 {
    (u16::from(tsr) << 15) | ((resv & RESV_MAX) << 4) | u16::from(ftype & 0xF)
}

/// A zero-copy view of a TSETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tseth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Tseth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Tseth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole TSETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole TSETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        match LAYOUT.iter().find(|&&(_, at, len)| have < at + len) {
            Some(&(name, at, len)) => {
                Err(DecodeError::truncated(Header::Tseth, name, at, len, have.saturating_sub(at)))
            }
            None => Ok(()),
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn word(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::FLAGS)
    }

    /// Requester's transmit timestamp.
    pub fn tx_timestamp(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::TX_TIMESTAMP)
    }
    /// The `tsr` flag (byte 2 bit 7).
    pub fn tsr(&self) -> bool {
        split_ts_word(self.word()).0
    }
    /// The 11 reserved bits (byte 2 bits 6:0, then byte 3 bits 7:4).
    pub fn resv(&self) -> u16 {
        split_ts_word(self.word()).1
    }
    /// Frame type (byte 3 bits 3:0).
    pub fn ftype(&self) -> u8 {
        split_ts_word(self.word()).2
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Tseth<T> {
    /// Sets the transmit timestamp.
    pub fn set_tx_timestamp(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::TX_TIMESTAMP, v);
    }
    /// Sets bytes 2-3 from their parts; `resv` is masked to 11 bits, `ftype` to 4.
    pub fn set_flags(&mut self, tsr: bool, resv: u16, ftype: u8) {
        set_u16(self.buffer.as_mut(), field::FLAGS, join_ts_word(tsr, resv, ftype));
    }
}

/// An owned, decoded TSETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct TsethRepr {
    /// Requester's transmit timestamp (bytes 0-1).
    pub tx_timestamp: u16,
    /// The `tsr` flag (byte 2 bit 7).
    pub tsr: bool,
    /// Reserved, 11 bits (byte 2 bits 6:0 high, byte 3 bits 7:4 low); must be 0
    /// (`TSETH-RESV-001`).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits11))]
    pub resv: u16,
    /// Frame type, 4 bits (byte 3 bits 3:0); should be 1 (`TSETH-FTYPE-001`).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits4))]
    pub ftype: u8,
}

impl Default for TsethRepr {
    /// Timestamp 0, `tsr` clear, `ftype` 1.
    fn default() -> Self {
        TsethRepr::new(0)
    }
}

impl TsethRepr {
    /// A TSETH carrying `tx_timestamp`, with `tsr` clear and `ftype` at its default, 1.
    pub const fn new(tx_timestamp: u16) -> Self {
        TsethRepr { tx_timestamp, tsr: false, resv: 0, ftype: TSETH_DEFAULT_FTYPE }
    }

    /// Decodes a TSETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Tseth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Tseth<T>) -> Self {
        TsethRepr { tx_timestamp: v.tx_timestamp(), tsr: v.tsr(), resv: v.resv(), ftype: v.ftype() }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        TSETH_LEN
    }

    /// Writes the TSETH into the start of `buf`. Never panics: a short buffer or a field
    /// that does not fit its bits is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Tseth, buf, TSETH_LEN)?;
        check_range(Header::Tseth, "resv", self.resv.into(), RESV_MAX.into())?;
        check_range(Header::Tseth, "ftype", self.ftype.into(), 0xF)?;
        let mut v = Tseth::new_unchecked(&mut buf[..TSETH_LEN]);
        v.set_tx_timestamp(self.tx_timestamp);
        v.set_flags(self.tsr, self.resv, self.ftype);
        Ok(TSETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["TSETH-RESV-001", "TSETH-FTYPE-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let v = |requirement, field, value: u64, rule| Violation {
            requirement,
            header: Header::Tseth,
            field,
            offset: Some(base + field::FLAGS),
            value,
            rule,
        };
        if self.resv != 0 {
            out.push(v("TSETH-RESV-001", "resv", self.resv.into(), "reserved bits must be 0"));
        }
        if self.ftype != TSETH_DEFAULT_FTYPE {
            out.push(v("TSETH-FTYPE-001", "ftype", self.ftype.into(), "ftype should be 1"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Timestamp 0xBEEF, tsr set, resv 0, ftype 1.
    const BYTES: [u8; 4] = [0xBE, 0xEF, 0x80, 0x01];

    fn sample() -> TsethRepr {
        TsethRepr { tsr: true, ..TsethRepr::new(0xBEEF) }
    }

    #[test]
    fn deconstruct() {
        let v = Tseth::new_checked(&BYTES[..]).unwrap();
        assert_eq!(v.tx_timestamp(), 0xBEEF);
        assert!(v.tsr());
        assert_eq!(v.resv(), 0);
        assert_eq!(v.ftype(), 1);
    }

    #[test]
    fn reserved_bits_straddle_bytes_2_and_3() {
        // resv = 0b101_0101_1010: high 7 bits in byte 2, low 4 bits in byte 3 bits 7:4.
        let b = [0, 0, 0x55, 0xA7];
        let v = Tseth::new_checked(&b[..]).unwrap();
        assert!(!v.tsr());
        assert_eq!(v.resv(), 0b101_0101_1010);
        assert_eq!(v.ftype(), 7);
        let mut out = [0u8; 4];
        TsethRepr::from_view(&v).emit(&mut out).unwrap();
        assert_eq!(out, b);
    }

    #[test]
    fn construct() {
        let mut buf = [0u8; 4];
        let mut v = Tseth::new_unchecked(&mut buf[..]);
        v.set_tx_timestamp(0xBEEF);
        v.set_flags(true, 0, 1);
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(TsethRepr::parse(&BYTES).unwrap(), sample());
        let mut buf = [0u8; 4];
        assert_eq!(sample().emit(&mut buf), Ok(4));
        assert_eq!(buf, BYTES);
        assert_eq!(TsethRepr::default().ftype, 1);
    }

    #[test]
    fn truncation_names_field_and_offset() {
        assert_eq!(
            TsethRepr::parse(&BYTES[..3]).unwrap_err(),
            DecodeError::truncated(Header::Tseth, "tsr", 2, 2, 1)
        );
        assert_eq!(TsethRepr::parse(&BYTES[..1]).unwrap_err().field, "tx_timestamp");
    }

    #[test]
    fn emit_never_panics() {
        assert!(matches!(
            sample().emit(&mut [0u8; 3]),
            Err(EmitError::BufferTooShort { header: Header::Tseth, need: 4, have: 3 })
        ));
        let bad = TsethRepr { resv: 0x800, ..sample() };
        assert!(matches!(
            bad.emit(&mut [0u8; 4]),
            Err(EmitError::FieldOutOfRange { field: "resv", max: 0x7FF, .. })
        ));
        let bad = TsethRepr { ftype: 0x10, ..sample() };
        assert!(matches!(
            bad.emit(&mut [0u8; 4]),
            Err(EmitError::FieldOutOfRange { field: "ftype", .. })
        ));
    }

    #[test]
    fn validate_flags_reserved_and_ftype() {
        let mut out = alloc::vec::Vec::new();
        sample().validate(0, &mut out);
        assert!(out.is_empty());
        TsethRepr { resv: 1, ftype: 0, ..sample() }.validate(16, &mut out);
        let ids: alloc::vec::Vec<_> = out.iter().map(|v| v.requirement).collect();
        assert_eq!(ids, ["TSETH-RESV-001", "TSETH-FTYPE-001"]);
        assert_eq!(out[0].offset, Some(18));
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5453_4554);
        for _ in 0..1000 {
            let mut bytes = [0u8; TSETH_LEN];
            rng.fill_bytes(&mut bytes);
            let mut out = [0u8; TSETH_LEN];
            assert_eq!(TsethRepr::parse(&bytes).unwrap().emit(&mut out), Ok(TSETH_LEN));
            assert_eq!(out, bytes);
        }
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5453_4554);
        let mut raw = [0u8; 64];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = TsethRepr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut out = [0u8; TSETH_LEN];
            assert_eq!(r.emit(&mut out), Ok(TSETH_LEN));
            assert_eq!(TsethRepr::parse(&out).unwrap(), r);
        }
    }
}
