//! ACK Extended Transport Header, 4 bytes (requirements `AETH-*`).
//!
//! ```text
//!  byte 0   syndrome: reserved(7) kind(6:5) code(4:0)
//!  byte 1-3 MSN       message sequence number, 24 bits
//! ```
//!
//! The MSN field is an [`AethMsn`]: MRC puts a 16-bit [`Msn`](crate::Msn) in its bits 15:0
//! and requires bits 23:16 to be 0 (`AETH-MSN-001`); the field keeps all 24 bits, so that a
//! decoded AETH says what was sent.
//!
//! The syndrome's bits 6:5 give the kind ([`AethKind`]): 00 ACK, 01 RNR NAK, 10 reserved,
//! 11 NAK. The low five bits are the credit count (ACK; 0x1F means unlimited credit), the
//! RNR timer (RNR NAK) or the NAK code (NAK). The syndrome is kept as the raw byte, so that
//! reserved kinds and codes survive parse → emit; [`AethRepr::kind`] and [`AethRepr::code`]
//! interpret it.
//!
//! The view's accessors never panic once [`Aeth::new_checked`] (or [`Aeth::check_len`])
//! has succeeded; `new_unchecked` followed by an accessor on a short buffer panics.

use core::fmt;

use crate::AethMsn;
use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};
use crate::field::{set_u24, u24_at};

/// Length of the AETH in bytes.
pub const AETH_LEN: usize = 4;

mod field {
    pub(super) const SYNDROME: usize = 0;
    pub(super) const MSN: usize = 1;
}

/// Fields in wire order as (name, offset, length): names the first field a short buffer
/// cannot hold.
const LAYOUT: &[(&str, usize, usize)] = &[("syndrome", field::SYNDROME, 1), ("msn", field::MSN, 3)];

/// The kind of an acknowledgement, from syndrome bits 6:5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum AethKind {
    /// 00: positive acknowledgement; the code is a credit count.
    Ack,
    /// 01: receiver not ready; the code is the RNR timer.
    RnrNak,
    /// 10: reserved (`AETH-SYN-002`).
    Reserved,
    /// 11: negative acknowledgement; the code is the NAK code.
    Nak,
}

impl AethKind {
    /// The kind of a syndrome byte (bit 7 is ignored).
    pub const fn of(syndrome: u8) -> AethKind {
        match (syndrome >> 5) & 0x3 {
            0 => AethKind::Ack,
            1 => AethKind::RnrNak,
            2 => AethKind::Reserved,
            _ => AethKind::Nak,
        }
    }
}

impl fmt::Display for AethKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AethKind::Ack => "ACK",
            AethKind::RnrNak => "RNR_NAK",
            AethKind::Reserved => "RESERVED",
            AethKind::Nak => "NAK",
        })
    }
}

/// A zero-copy view of an AETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Aeth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Aeth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Aeth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole AETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole AETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        match LAYOUT.iter().find(|&&(_, at, len)| have < at + len) {
            Some(&(name, at, len)) => {
                Err(DecodeError::truncated(Header::Aeth, name, at, len, have.saturating_sub(at)))
            }
            None => Ok(()),
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The whole syndrome byte, reserved bit 7 included.
    pub fn syndrome(&self) -> u8 {
        self.buffer.as_ref()[field::SYNDROME]
    }
    /// Message sequence number, 24 bits.
    pub fn msn(&self) -> AethMsn {
        AethMsn::new(u24_at(self.buffer.as_ref(), field::MSN))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Aeth<T> {
    /// Sets the syndrome byte.
    pub fn set_syndrome(&mut self, v: u8) {
        self.buffer.as_mut()[field::SYNDROME] = v;
    }
    /// Sets the MSN.
    pub fn set_msn(&mut self, v: AethMsn) {
        set_u24(self.buffer.as_mut(), field::MSN, v.value());
    }
}

/// An owned, decoded AETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct AethRepr {
    /// The syndrome byte (byte 0), kept whole: bit 7 reserved (`AETH-SYN-001`), bits 6:5
    /// the kind, bits 4:0 the code.
    pub syndrome: u8,
    /// Message sequence number, 24 bits (bytes 1-3).
    pub msn: AethMsn,
}

impl AethRepr {
    /// Syndrome of an ACK with credit count 0.
    pub const ACK: u8 = 0x00;
    /// Syndrome of an ACK with unlimited credit.
    pub const ACK_UNLIMITED_CREDIT: u8 = 0x1F;
    /// Syndrome of an RNR NAK with RNR timer code 0 (add the timer code to the low bits).
    pub const RNR_NAK: u8 = 0x20;
    /// Syndrome of a NAK: PSN sequence error.
    pub const NAK_PSN_SEQ_ERR: u8 = 0x60;
    /// Syndrome of a NAK: invalid request.
    pub const NAK_INVALID_REQUEST: u8 = 0x61;
    /// Syndrome of a NAK: remote access error.
    pub const NAK_REMOTE_ACCESS: u8 = 0x62;
    /// Syndrome of a NAK: remote operational error.
    pub const NAK_REMOTE_OP: u8 = 0x63;
    /// The largest NAK code that is not reserved (4, invalid RD request, in InfiniBand).
    pub const NAK_CODE_MAX: u8 = 4;

    /// An AETH with the given syndrome and MSN.
    pub const fn new(syndrome: u8, msn: AethMsn) -> Self {
        AethRepr { syndrome, msn }
    }

    /// The kind, from syndrome bits 6:5.
    pub const fn kind(&self) -> AethKind {
        AethKind::of(self.syndrome)
    }

    /// The low five bits of the syndrome: credit count, RNR timer or NAK code.
    pub const fn code(&self) -> u8 {
        self.syndrome & 0x1F
    }

    /// Decodes an AETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Aeth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Aeth<T>) -> Self {
        AethRepr { syndrome: v.syndrome(), msn: v.msn() }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        AETH_LEN
    }

    /// Writes the AETH into the start of `buf`. Never panics: a short buffer or an MSN
    /// wider than 24 bits (read from JSON) is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Aeth, buf, AETH_LEN)?;
        check_range(Header::Aeth, "msn", self.msn.value().into(), 0xFF_FFFF)?;
        let mut v = Aeth::new_unchecked(&mut buf[..AETH_LEN]);
        v.set_syndrome(self.syndrome);
        v.set_msn(self.msn);
        Ok(AETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["AETH-SYN-001", "AETH-SYN-002", "AETH-NAK-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    /// Which kinds an opcode may carry (MRC has no RNR) is checked by the frame.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let v = |requirement, rule| Violation {
            requirement,
            header: Header::Aeth,
            field: "syndrome",
            offset: Some(base + field::SYNDROME),
            value: self.syndrome.into(),
            rule,
        };
        if self.syndrome & 0x80 != 0 {
            out.push(v("AETH-SYN-001", "syndrome bit 7 is reserved and must be 0"));
        }
        match self.kind() {
            AethKind::Reserved => {
                out.push(v("AETH-SYN-002", "syndrome kind 10 (bits 6:5) is reserved"));
            }
            AethKind::Nak if self.code() > Self::NAK_CODE_MAX => {
                out.push(v("AETH-NAK-001", "NAK codes 5 to 31 are reserved"));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // NAK PSN sequence error, MSN 0x012345.
    const BYTES: [u8; 4] = [0x60, 0x01, 0x23, 0x45];

    fn sample() -> AethRepr {
        AethRepr::new(AethRepr::NAK_PSN_SEQ_ERR, AethMsn::new(0x01_2345))
    }

    #[test]
    fn deconstruct() {
        let v = Aeth::new_checked(&BYTES[..]).unwrap();
        assert_eq!(v.syndrome(), 0x60);
        assert_eq!(v.msn(), AethMsn::new(0x01_2345));
    }

    #[test]
    fn construct() {
        let mut buf = [0u8; 4];
        let mut v = Aeth::new_unchecked(&mut buf[..]);
        v.set_syndrome(0x60);
        v.set_msn(AethMsn::new(0x01_2345));
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(AethRepr::parse(&BYTES).unwrap(), sample());
        let mut buf = [0u8; 4];
        assert_eq!(sample().emit(&mut buf), Ok(4));
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn kinds_and_codes() {
        let kc = |s| {
            (
                AethRepr::new(s, AethMsn::default()).kind(),
                AethRepr::new(s, AethMsn::default()).code(),
            )
        };
        assert_eq!(kc(AethRepr::ACK), (AethKind::Ack, 0));
        assert_eq!(kc(AethRepr::ACK_UNLIMITED_CREDIT), (AethKind::Ack, 0x1F));
        assert_eq!(kc(AethRepr::RNR_NAK | 0x0E), (AethKind::RnrNak, 0x0E));
        assert_eq!(kc(0x40), (AethKind::Reserved, 0));
        assert_eq!(kc(AethRepr::NAK_PSN_SEQ_ERR), (AethKind::Nak, 0));
        assert_eq!(kc(AethRepr::NAK_INVALID_REQUEST), (AethKind::Nak, 1));
        assert_eq!(kc(AethRepr::NAK_REMOTE_ACCESS), (AethKind::Nak, 2));
        assert_eq!(kc(AethRepr::NAK_REMOTE_OP), (AethKind::Nak, 3));
        // Bit 7 does not change the kind.
        assert_eq!(kc(0xE1), (AethKind::Nak, 1));
    }

    #[test]
    fn truncation_names_field_and_offset() {
        assert_eq!(
            AethRepr::parse(&BYTES[..2]).unwrap_err(),
            DecodeError::truncated(Header::Aeth, "msn", 1, 3, 1)
        );
        assert_eq!(AethRepr::parse(&[]).unwrap_err().field, "syndrome");
    }

    #[test]
    fn emit_never_panics() {
        assert!(matches!(sample().emit(&mut [0u8; 3]), Err(EmitError::BufferTooShort { .. })));
        // Only serde makes an MSN wider than the field (emit then refuses it); in code it
        // cannot be made.
        assert!(AethMsn::try_from(1 << 24).is_err());
        assert_eq!(AethMsn::new(1 << 24), AethMsn::new(0));
    }

    #[test]
    fn validate_flags_reserved_bit_kind_and_code() {
        let mut out = alloc::vec::Vec::new();
        for s in [0x00, 0x1F, 0x20, 0x3F, 0x60, 0x61, 0x62, 0x63, 0x64] {
            AethRepr::new(s, AethMsn::default()).validate(0, &mut out);
        }
        assert!(out.is_empty());
        AethRepr::new(0x80, AethMsn::default()).validate(46, &mut out);
        AethRepr::new(0x41, AethMsn::default()).validate(46, &mut out);
        AethRepr::new(0x65, AethMsn::default()).validate(46, &mut out);
        AethRepr::new(0xFF, AethMsn::default()).validate(46, &mut out);
        let ids: alloc::vec::Vec<_> = out.iter().map(|v| v.requirement).collect();
        assert_eq!(
            ids,
            ["AETH-SYN-001", "AETH-SYN-002", "AETH-NAK-001", "AETH-SYN-001", "AETH-NAK-001"]
        );
        assert_eq!(out[0].offset, Some(46));
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4145_5448);
        for _ in 0..1000 {
            let mut bytes = [0u8; AETH_LEN];
            rng.fill_bytes(&mut bytes);
            let mut out = [0u8; AETH_LEN];
            assert_eq!(AethRepr::parse(&bytes).unwrap().emit(&mut out), Ok(AETH_LEN));
            assert_eq!(out, bytes);
        }
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4145_5448);
        let mut raw = [0u8; 64];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = AethRepr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut out = [0u8; AETH_LEN];
            assert_eq!(r.emit(&mut out), Ok(AETH_LEN));
            assert_eq!(AethRepr::parse(&out).unwrap(), r);
        }
    }
}
