//! MRC probe Extended Transport Header, 16 bytes (requirements `PETH-*`).
//!
//! ```text
//!  byte 0-3   resv0
//!  byte 4-5   probe_id
//!  byte 6-7   resv6
//!  byte 8-9   spdcid
//!  byte 10-11 dpdcid
//!  byte 12-13 tx_timestamp
//!  byte 14    tsr(7) resv14(6:0)                -- resv14 is 11 bits, laid out as TSETH's
//!  byte 15    resv14(7:4) ftype(3:0)            -- resv: byte 14 bits 6:0 high, 15 bits 7:4 low
//! ```
//!
//! A probe consumes no PSN; the responder answers it with a SACK whose `pr` bit is set.
//! Bytes 12-15 have the layout of a TSETH. spdcid and dpdcid are carried, not interpreted.
//!
//! The view's accessors never panic once [`Peth::new_checked`] (or [`Peth::check_len`])
//! has succeeded; `new_unchecked` followed by an accessor on a short buffer panics.

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};
use crate::field::{set_u16, set_u32, u16_at, u32_at};
use crate::wire::tseth::{TSETH_DEFAULT_FTYPE, join_ts_word, split_ts_word};

/// Length of the PETH in bytes.
pub const PETH_LEN: usize = 16;

mod field {
    pub(super) const RESV0: usize = 0;
    pub(super) const PROBE_ID: usize = 4;
    pub(super) const RESV6: usize = 6;
    pub(super) const SPDCID: usize = 8;
    pub(super) const DPDCID: usize = 10;
    pub(super) const TX_TIMESTAMP: usize = 12;
    pub(super) const FLAGS: usize = 14;
}

/// Fields in wire order as (name, offset, length): names the first field a short buffer
/// cannot hold. `tsr`, `resv14` and `ftype` share bytes 14-15 and are named by `tsr`.
const LAYOUT: &[(&str, usize, usize)] = &[
    ("resv0", field::RESV0, 4),
    ("probe_id", field::PROBE_ID, 2),
    ("resv6", field::RESV6, 2),
    ("spdcid", field::SPDCID, 2),
    ("dpdcid", field::DPDCID, 2),
    ("tx_timestamp", field::TX_TIMESTAMP, 2),
    ("tsr", field::FLAGS, 2),
];

/// A zero-copy view of a PETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Peth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Peth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole PETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole PETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        match LAYOUT.iter().find(|&&(_, at, len)| have < at + len) {
            Some(&(name, at, len)) => {
                Err(DecodeError::truncated(Header::Peth, name, at, len, have.saturating_sub(at)))
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

    /// Reserved bytes 0-3.
    pub fn resv0(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::RESV0)
    }
    /// Probe identifier.
    pub fn probe_id(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::PROBE_ID)
    }
    /// Reserved bytes 6-7.
    pub fn resv6(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::RESV6)
    }
    /// spdcid (bytes 8-9).
    pub fn spdcid(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::SPDCID)
    }
    /// dpdcid (bytes 10-11).
    pub fn dpdcid(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::DPDCID)
    }
    /// Transmit timestamp.
    pub fn tx_timestamp(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::TX_TIMESTAMP)
    }
    /// The `tsr` flag (byte 14 bit 7).
    pub fn tsr(&self) -> bool {
        split_ts_word(self.word()).0
    }
    /// The 11 reserved bits (byte 14 bits 6:0, then byte 15 bits 7:4).
    pub fn resv14(&self) -> u16 {
        split_ts_word(self.word()).1
    }
    /// Frame type (byte 15 bits 3:0).
    pub fn ftype(&self) -> u8 {
        split_ts_word(self.word()).2
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Peth<T> {
    /// Sets reserved bytes 0-3.
    pub fn set_resv0(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::RESV0, v);
    }
    /// Sets the probe identifier.
    pub fn set_probe_id(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::PROBE_ID, v);
    }
    /// Sets reserved bytes 6-7.
    pub fn set_resv6(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::RESV6, v);
    }
    /// Sets spdcid.
    pub fn set_spdcid(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::SPDCID, v);
    }
    /// Sets dpdcid.
    pub fn set_dpdcid(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::DPDCID, v);
    }
    /// Sets the transmit timestamp.
    pub fn set_tx_timestamp(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::TX_TIMESTAMP, v);
    }
    /// Sets bytes 14-15 from their parts; `resv14` is masked to 11 bits, `ftype` to 4.
    pub fn set_flags(&mut self, tsr: bool, resv14: u16, ftype: u8) {
        set_u16(self.buffer.as_mut(), field::FLAGS, join_ts_word(tsr, resv14, ftype));
    }
}

/// An owned, decoded PETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct PethRepr {
    /// Reserved bytes 0-3; must be 0 (`PETH-RESV-001`).
    pub resv0: u32,
    /// Probe identifier (bytes 4-5).
    pub probe_id: u16,
    /// Reserved bytes 6-7; must be 0 (`PETH-RESV-001`).
    pub resv6: u16,
    /// spdcid (bytes 8-9), carried.
    pub spdcid: u16,
    /// dpdcid (bytes 10-11), carried.
    pub dpdcid: u16,
    /// Transmit timestamp (bytes 12-13).
    pub tx_timestamp: u16,
    /// The `tsr` flag (byte 14 bit 7).
    pub tsr: bool,
    /// Reserved, 11 bits (byte 14 bits 6:0 high, byte 15 bits 7:4 low); must be 0
    /// (`PETH-RESV-001`).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits11))]
    pub resv14: u16,
    /// Frame type, 4 bits (byte 15 bits 3:0).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits4))]
    pub ftype: u8,
}

impl Default for PethRepr {
    /// Everything zero but `ftype`, which takes TSETH's default, 1.
    fn default() -> Self {
        PethRepr::new(0, 0)
    }
}

impl PethRepr {
    /// A probe with the given identifier and timestamp; `ftype` 1 as in TSETH, every other
    /// field zero.
    pub const fn new(probe_id: u16, tx_timestamp: u16) -> Self {
        PethRepr {
            resv0: 0,
            probe_id,
            resv6: 0,
            spdcid: 0,
            dpdcid: 0,
            tx_timestamp,
            tsr: false,
            resv14: 0,
            ftype: TSETH_DEFAULT_FTYPE,
        }
    }

    /// Decodes a PETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Peth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Peth<T>) -> Self {
        PethRepr {
            resv0: v.resv0(),
            probe_id: v.probe_id(),
            resv6: v.resv6(),
            spdcid: v.spdcid(),
            dpdcid: v.dpdcid(),
            tx_timestamp: v.tx_timestamp(),
            tsr: v.tsr(),
            resv14: v.resv14(),
            ftype: v.ftype(),
        }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        PETH_LEN
    }

    /// Writes the PETH into the start of `buf`. Never panics: a short buffer or a field
    /// that does not fit its bits is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Peth, buf, PETH_LEN)?;
        check_range(Header::Peth, "resv14", self.resv14.into(), 0x7FF)?;
        check_range(Header::Peth, "ftype", self.ftype.into(), 0xF)?;
        let mut v = Peth::new_unchecked(&mut buf[..PETH_LEN]);
        v.set_resv0(self.resv0);
        v.set_probe_id(self.probe_id);
        v.set_resv6(self.resv6);
        v.set_spdcid(self.spdcid);
        v.set_dpdcid(self.dpdcid);
        v.set_tx_timestamp(self.tx_timestamp);
        v.set_flags(self.tsr, self.resv14, self.ftype);
        Ok(PETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["PETH-RESV-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let resv: [(&'static str, usize, u64); 3] = [
            ("resv0", field::RESV0, self.resv0.into()),
            ("resv6", field::RESV6, self.resv6.into()),
            ("resv14", field::FLAGS, self.resv14.into()),
        ];
        for (name, at, value) in resv {
            if value != 0 {
                out.push(Violation {
                    requirement: "PETH-RESV-001",
                    header: Header::Peth,
                    field: name,
                    offset: Some(base + at),
                    value,
                    rule: "reserved fields of PETH must be 0",
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    const BYTES: [u8; 16] = [
        0, 0, 0, 0, // resv0
        0x00, 0x2A, // probe_id 42
        0, 0, // resv6
        0x00, 0x03, 0x00, 0x04, // spdcid, dpdcid
        0x12, 0x34, // tx_timestamp
        0x80, 0x01, // tsr, ftype 1
    ];

    fn sample() -> PethRepr {
        PethRepr { spdcid: 3, dpdcid: 4, tsr: true, ..PethRepr::new(42, 0x1234) }
    }

    #[test]
    fn deconstruct() {
        let v = Peth::new_checked(&BYTES[..]).unwrap();
        assert_eq!((v.resv0(), v.resv6(), v.resv14()), (0, 0, 0));
        assert_eq!(v.probe_id(), 42);
        assert_eq!((v.spdcid(), v.dpdcid()), (3, 4));
        assert_eq!(v.tx_timestamp(), 0x1234);
        assert!(v.tsr());
        assert_eq!(v.ftype(), 1);
    }

    #[test]
    fn construct() {
        let mut buf = [0xFFu8; 16];
        let mut v = Peth::new_unchecked(&mut buf[..]);
        v.set_resv0(0);
        v.set_probe_id(42);
        v.set_resv6(0);
        v.set_spdcid(3);
        v.set_dpdcid(4);
        v.set_tx_timestamp(0x1234);
        v.set_flags(true, 0, 1);
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(PethRepr::parse(&BYTES).unwrap(), sample());
        let mut buf = [0u8; 16];
        assert_eq!(sample().emit(&mut buf), Ok(16));
        assert_eq!(buf, BYTES);
        assert_eq!(PethRepr::default().ftype, 1);
    }

    #[test]
    fn reserved_bits_of_bytes_14_and_15() {
        let r = PethRepr { tsr: false, resv14: 0x7FF, ftype: 0, ..sample() };
        let mut buf = [0u8; 16];
        r.emit(&mut buf).unwrap();
        assert_eq!(&buf[14..], &[0x7F, 0xF0]);
        assert_eq!(PethRepr::parse(&buf).unwrap(), r);
    }

    #[test]
    fn truncation_names_field_and_offset() {
        assert_eq!(
            PethRepr::parse(&BYTES[..15]).unwrap_err(),
            DecodeError::truncated(Header::Peth, "tsr", 14, 2, 1)
        );
        assert_eq!(PethRepr::parse(&BYTES[..5]).unwrap_err().field, "probe_id");
        assert_eq!(PethRepr::parse(&[]).unwrap_err().field, "resv0");
    }

    #[test]
    fn emit_never_panics() {
        assert!(matches!(
            sample().emit(&mut [0u8; 15]),
            Err(EmitError::BufferTooShort { header: Header::Peth, need: 16, have: 15 })
        ));
        let bad = PethRepr { resv14: 0x800, ..sample() };
        assert!(matches!(
            bad.emit(&mut [0u8; 16]),
            Err(EmitError::FieldOutOfRange { field: "resv14", .. })
        ));
        let bad = PethRepr { ftype: 16, ..sample() };
        assert!(matches!(
            bad.emit(&mut [0u8; 16]),
            Err(EmitError::FieldOutOfRange { field: "ftype", .. })
        ));
    }

    #[test]
    fn validate_flags_reserved() {
        let mut out = Vec::new();
        sample().validate(0, &mut out);
        // ftype is not checked on a PETH: only TSETH's default is a requirement.
        PethRepr { ftype: 0, ..sample() }.validate(0, &mut out);
        assert!(out.is_empty());
        PethRepr { resv0: 1, resv6: 2, resv14: 3, ..sample() }.validate(54, &mut out);
        let got: Vec<_> = out.iter().map(|v| (v.requirement, v.field, v.offset)).collect();
        assert_eq!(
            got,
            [
                ("PETH-RESV-001", "resv0", Some(54)),
                ("PETH-RESV-001", "resv6", Some(60)),
                ("PETH-RESV-001", "resv14", Some(68)),
            ]
        );
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5045_5448);
        for _ in 0..1000 {
            let mut bytes = [0u8; PETH_LEN];
            rng.fill_bytes(&mut bytes);
            let mut out = [0u8; PETH_LEN];
            assert_eq!(PethRepr::parse(&bytes).unwrap().emit(&mut out), Ok(PETH_LEN));
            assert_eq!(out, bytes);
        }
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5045_5448);
        let mut raw = [0u8; 64];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = PethRepr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut out = [0u8; PETH_LEN];
            assert_eq!(r.emit(&mut out), Ok(PETH_LEN));
            assert_eq!(PethRepr::parse(&out).unwrap(), r);
        }
    }
}
