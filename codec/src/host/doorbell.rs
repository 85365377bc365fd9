//! Doorbell token, version 1: one 64-bit value the GPU stores to a NIC doorbell register
//! (requirements `DB-*`; layout `DB-FORMAT-001`, `DB-FORMAT-002`).
//!
//! ```text
//!  bits 63:60  version        4   must be 1
//!  bits 59:48  template      12   template ID
//!  bits 47:32  seq           16   per-template sequence number
//!  bits 31:16  index         16   slot of the template
//!  bits 15:0   length_units  16   0: the template's default length; else units x length_unit
//!
//!  little-endian on the bus:
//!  byte 0-1 length_units | byte 2-3 index | byte 4-5 seq | byte 6 template[7:0]
//!  byte 7 version(7:4) template[11:8](3:0)
//! ```
//!
//! Every bit is defined, so every 64-bit value is a [`DoorbellToken`] and parse → emit is
//! lossless. Whether the NIC accepts a token is decided by [`crate::host::accept_doorbell`]
//! (every check, in order) and [`crate::host::Template::expand`] (the stateless ones);
//! the rejections are [`DoorbellReject`].

use core::fmt;

use super::{CompletionStatus, le_u16, le_u64, set_le_u16, set_le_u64};
use crate::TemplateId;
use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};

/// Length of a doorbell token in bytes.
pub const DOORBELL_LEN: usize = 8;
/// The only token version this specification defines.
pub const DOORBELL_VERSION: u8 = 1;
/// The largest template ID, 2^12 − 1.
pub const TEMPLATE_ID_MAX: u16 = 0xFFF;
/// Half the sequence ring, 2^15: the boundary between "stale" and "gap" (`DB-SEQ-002`).
pub const SEQ_HALF: u16 = 0x8000;

mod field {
    pub(super) const LENGTH_UNITS: usize = 0;
    pub(super) const INDEX: usize = 2;
    pub(super) const SEQ: usize = 4;
    pub(super) const VERSION_TEMPLATE: usize = 6;
}

/// A zero-copy view of a doorbell token's 8 bytes, as they cross the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Doorbell<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Doorbell<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Doorbell { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole token.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole token.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        if have < DOORBELL_LEN {
            return Err(super::truncated(
                Header::Doorbell,
                &[
                    ("length_units", field::LENGTH_UNITS, 2),
                    ("index", field::INDEX, 2),
                    ("seq", field::SEQ, 2),
                    ("template", field::VERSION_TEMPLATE, 2),
                ],
                have,
            ));
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The whole token as a 64-bit value.
    pub fn value(&self) -> u64 {
        le_u64(self.buffer.as_ref(), 0)
    }
    /// Version, bits 63:60.
    pub fn version(&self) -> u8 {
        (self.buffer.as_ref()[field::VERSION_TEMPLATE + 1] >> 4) & 0x0F
    }
    /// Template ID, bits 59:48.
    pub fn template(&self) -> TemplateId {
        TemplateId::new(le_u16(self.buffer.as_ref(), field::VERSION_TEMPLATE) & TEMPLATE_ID_MAX)
    }
    /// Sequence number, bits 47:32.
    pub fn seq(&self) -> u16 {
        le_u16(self.buffer.as_ref(), field::SEQ)
    }
    /// Slot index, bits 31:16.
    pub fn index(&self) -> u16 {
        le_u16(self.buffer.as_ref(), field::INDEX)
    }
    /// Length in units, bits 15:0 (0: the template's default length).
    pub fn length_units(&self) -> u16 {
        le_u16(self.buffer.as_ref(), field::LENGTH_UNITS)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Doorbell<T> {
    /// Sets the whole token.
    pub fn set_value(&mut self, v: u64) {
        set_le_u64(self.buffer.as_mut(), 0, v);
    }
    /// Sets the version (masked to 4 bits), leaving the template alone.
    pub fn set_version(&mut self, v: u8) {
        let b = &mut self.buffer.as_mut()[field::VERSION_TEMPLATE + 1];
        *b = (*b & 0x0F) | ((v & 0x0F) << 4);
    }
    /// Sets the template ID (masked to 12 bits), leaving the version alone.
    pub fn set_template(&mut self, v: TemplateId) {
        let b = self.buffer.as_mut();
        let old = le_u16(b, field::VERSION_TEMPLATE);
        let v = v.value() & TEMPLATE_ID_MAX;
        set_le_u16(b, field::VERSION_TEMPLATE, (old & !TEMPLATE_ID_MAX) | v);
    }
    /// Sets the sequence number.
    pub fn set_seq(&mut self, v: u16) {
        set_le_u16(self.buffer.as_mut(), field::SEQ, v);
    }
    /// Sets the slot index.
    pub fn set_index(&mut self, v: u16) {
        set_le_u16(self.buffer.as_mut(), field::INDEX, v);
    }
    /// Sets the length in units.
    pub fn set_length_units(&mut self, v: u16) {
        set_le_u16(self.buffer.as_mut(), field::LENGTH_UNITS, v);
    }
}

/// An owned, decoded doorbell token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct DoorbellToken {
    /// Version, 4 bits; the NIC accepts only 1 (`DB-VERSION-001`).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits4))]
    pub version: u8,
    /// Template ID, 12 bits.
    #[cfg_attr(feature = "arbitrary", arbitrary(with = arb_template))]
    pub template: TemplateId,
    /// Per-template sequence number (`DB-SEQ-001`).
    pub seq: u16,
    /// Slot index (`DB-INDEX-001`).
    pub index: u16,
    /// Length in units of the template's `length_unit`; 0 selects the template's default
    /// length (`DB-LENGTH-001`).
    pub length_units: u16,
}

#[cfg(feature = "arbitrary")]
fn arb_template(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<TemplateId> {
    Ok(TemplateId::new(<u16 as arbitrary::Arbitrary<'_>>::arbitrary(u)? & TEMPLATE_ID_MAX))
}

impl DoorbellToken {
    /// A version-1 token. `template` is masked to 12 bits.
    pub const fn new(template: TemplateId, seq: u16, index: u16, length_units: u16) -> Self {
        DoorbellToken {
            version: DOORBELL_VERSION,
            template: TemplateId::new(template.value() & TEMPLATE_ID_MAX),
            seq,
            index,
            length_units,
        }
    }

    /// Splits a 64-bit token into its fields. Every value is a token.
    pub const fn from_u64(v: u64) -> Self {
        DoorbellToken {
            version: (v >> 60) as u8 & 0x0F,
            template: TemplateId::new((v >> 48) as u16 & TEMPLATE_ID_MAX),
            seq: (v >> 32) as u16,
            index: (v >> 16) as u16,
            length_units: v as u16,
        }
    }

    /// The 64-bit value. A `version` wider than 4 bits or a `template` wider than 12 bits
    /// is truncated to its bits; [`DoorbellToken::emit`] reports such fields instead.
    pub const fn to_u64(&self) -> u64 {
        ((self.version as u64 & 0x0F) << 60)
            | ((self.template.value() as u64 & TEMPLATE_ID_MAX as u64) << 48)
            | ((self.seq as u64) << 32)
            | ((self.index as u64) << 16)
            | self.length_units as u64
    }

    /// The token from its 8 bytes as they cross the bus, little-endian (`DB-FORMAT-002`).
    pub const fn from_bytes(b: [u8; DOORBELL_LEN]) -> Self {
        Self::from_u64(u64::from_le_bytes(b))
    }

    /// The token's 8 bytes as they cross the bus, little-endian (`DB-FORMAT-002`); fields
    /// are truncated as in [`DoorbellToken::to_u64`].
    pub const fn to_bytes(&self) -> [u8; DOORBELL_LEN] {
        self.to_u64().to_le_bytes()
    }

    /// Decodes a token from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Doorbell::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    pub fn from_view<T: AsRef<[u8]>>(v: &Doorbell<T>) -> Self {
        DoorbellToken {
            version: v.version(),
            template: v.template(),
            seq: v.seq(),
            index: v.index(),
            length_units: v.length_units(),
        }
    }

    /// Bytes on the bus.
    pub const fn buffer_len(&self) -> usize {
        DOORBELL_LEN
    }

    /// Writes the token into the start of `buf`. Never panics.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Doorbell, buf, DOORBELL_LEN)?;
        check_range(Header::Doorbell, "version", self.version.into(), 0x0F)?;
        let template = self.template.value().into();
        check_range(Header::Doorbell, "template", template, TEMPLATE_ID_MAX.into())?;
        buf[..DOORBELL_LEN].copy_from_slice(&self.to_bytes());
        Ok(DOORBELL_LEN)
    }

    /// The version check, the first of the acceptance checks (`DB-VERSION-001`).
    pub const fn check_version(&self) -> Result<(), DoorbellReject> {
        if self.version == DOORBELL_VERSION {
            Ok(())
        } else {
            Err(DoorbellReject::BadVersion { version: self.version })
        }
    }

    /// Checks of the token on its own (`base` is its offset in the buffer checked). The
    /// other rules need a template and the expected sequence number.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        if self.version != DOORBELL_VERSION {
            out.push(Violation {
                requirement: "DB-VERSION-001",
                header: Header::Doorbell,
                field: "version",
                offset: Some(base + field::VERSION_TEMPLATE + 1),
                value: self.version.into(),
                rule: "the doorbell token version must be 1",
            });
        }
    }
}

impl fmt::Display for DoorbellToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:#018x} (v{} template {} seq {} index {} units {})",
            self.to_u64(),
            self.version,
            self.template,
            self.seq,
            self.index,
            self.length_units
        )
    }
}

/// The bound a rejected length broke (`DB-LENGTH-002` to `DB-LENGTH-004`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum LengthBound {
    /// The template's `max_length`.
    MaxLength,
    /// The end of the local region: `[local_va, local_va + length)` must lie inside it.
    LocalRegion,
    /// The end of the remote region.
    RemoteRegion,
}

impl LengthBound {
    /// The requirement the bound comes from.
    pub const fn requirement(self) -> &'static str {
        match self {
            LengthBound::MaxLength => "DB-LENGTH-002",
            LengthBound::LocalRegion => "DB-LENGTH-003",
            LengthBound::RemoteRegion => "DB-LENGTH-004",
        }
    }
}

impl fmt::Display for LengthBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LengthBound::MaxLength => "the template's max_length",
            LengthBound::LocalRegion => "the room left in the local region",
            LengthBound::RemoteRegion => "the room left in the remote region",
        })
    }
}

/// Why the NIC rejected a doorbell token. A rejected token changes no NIC state and
/// produces one error completion with [`DoorbellReject::status`] (`DB-REJECT-001`,
/// `CQE-REJECT-001`). Variants are listed in the order the checks run (`DB-ORDER-001`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "reject", rename_all = "snake_case"))]
pub enum DoorbellReject {
    /// The version field is not 1.
    #[error("[DB-VERSION-001] doorbell token version {version} is not 1")]
    BadVersion {
        /// The version found.
        version: u8,
    },
    /// The template is not installed, is disabled, or does not validate.
    #[error("[DB-TEMPLATE-001] template {template} is not installed or is disabled")]
    UnknownTemplate {
        /// The template ID of the token.
        template: TemplateId,
    },
    /// The seq is behind the expected one by less than 2^15: a replayed or duplicated
    /// token.
    #[error("[DB-SEQ-002] stale seq {got}, expected {expected}: a replayed or duplicated token")]
    StaleSeq {
        /// The seq the NIC expected.
        expected: u16,
        /// The seq of the token.
        got: u16,
    },
    /// The seq is ahead of the expected one by 1 to 2^15: a token was lost or reordered.
    #[error(
        "[DB-SEQ-003] seq {got} is ahead of the expected {expected}: a token was lost or reordered"
    )]
    SeqGap {
        /// The seq the NIC expected.
        expected: u16,
        /// The seq of the token.
        got: u16,
    },
    /// The index is not below the template's slot count.
    #[error("[DB-INDEX-001] index {index} is not below the template's {slots} slots")]
    IndexOutOfRange {
        /// The index of the token.
        index: u16,
        /// The template's slot count.
        slots: u32,
    },
    /// The length exceeds the template's maximum, or the slot's range would pass the end of
    /// the local or the remote region.
    #[error("[{req}] length {length} exceeds {bound} ({limit})", req = .bound.requirement())]
    LengthOutOfRange {
        /// The length the token asked for, in bytes.
        length: u64,
        /// The bound it broke.
        bound: LengthBound,
        /// The largest length the bound allows for this slot.
        limit: u64,
    },
}

impl DoorbellReject {
    /// The requirement ID of the check that failed.
    pub const fn requirement(&self) -> &'static str {
        match self {
            DoorbellReject::BadVersion { .. } => "DB-VERSION-001",
            DoorbellReject::UnknownTemplate { .. } => "DB-TEMPLATE-001",
            DoorbellReject::StaleSeq { .. } => "DB-SEQ-002",
            DoorbellReject::SeqGap { .. } => "DB-SEQ-003",
            DoorbellReject::IndexOutOfRange { .. } => "DB-INDEX-001",
            DoorbellReject::LengthOutOfRange { bound, .. } => bound.requirement(),
        }
    }

    /// The status of the error completion this rejection produces (`CQE-STATUS-001`).
    pub const fn status(&self) -> CompletionStatus {
        match self {
            DoorbellReject::BadVersion { .. } => CompletionStatus::BAD_VERSION,
            DoorbellReject::UnknownTemplate { .. } => CompletionStatus::UNKNOWN_TEMPLATE,
            DoorbellReject::StaleSeq { .. } => CompletionStatus::STALE_SEQ,
            DoorbellReject::SeqGap { .. } => CompletionStatus::SEQ_GAP,
            DoorbellReject::IndexOutOfRange { .. } => CompletionStatus::INDEX_OUT_OF_RANGE,
            DoorbellReject::LengthOutOfRange { .. } => CompletionStatus::LENGTH_OUT_OF_RANGE,
        }
    }

    /// Whether the token's template was found usable before the check failed, so that the
    /// error completion can name its QP and opcode (`CQE-REJECT-001`).
    pub const fn template_known(&self) -> bool {
        !matches!(self, DoorbellReject::BadVersion { .. } | DoorbellReject::UnknownTemplate { .. })
    }
}

/// The sequence check (`DB-SEQ-001` to `DB-SEQ-003`), pure: the NIC keeps `expected` per
/// template, starting at 0 when the template is installed, and advances it by one
/// (modulo 2^16) only when it accepts a token.
///
/// With `behind = expected − got` modulo 2^16: 0 is accepted; 1 to 2^15 − 1 is
/// [`DoorbellReject::StaleSeq`]; 2^15 to 2^16 − 1 (that is, `got` ahead by 1 to 2^15) is
/// [`DoorbellReject::SeqGap`]. Exactly half the ring counts as ahead, as for PSNs.
///
/// A rejected token does not consume its number, so a producer resumes by resending the
/// rejected `seq` (`DB-SEQ-004`).
pub const fn check_seq(expected: u16, got: u16) -> Result<(), DoorbellReject> {
    let behind = expected.wrapping_sub(got);
    if behind == 0 {
        Ok(())
    } else if behind < SEQ_HALF {
        Err(DoorbellReject::StaleSeq { expected, got })
    } else {
        Err(DoorbellReject::SeqGap { expected, got })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    // Version 1, template 0x005, seq 0x0010, index 0x0003, default length.
    const TOKEN: u64 = 0x1005_0010_0003_0000;
    const TOKEN_BYTES: [u8; 8] = [0x00, 0x00, 0x03, 0x00, 0x10, 0x00, 0x05, 0x10];

    #[test]
    fn deconstruct() {
        let v = Doorbell::new_checked(&TOKEN_BYTES[..]).unwrap();
        assert_eq!(v.value(), TOKEN);
        assert_eq!(v.version(), 1);
        assert_eq!(v.template(), TemplateId::new(5));
        assert_eq!(v.seq(), 0x10);
        assert_eq!(v.index(), 3);
        assert_eq!(v.length_units(), 0);
    }

    #[test]
    fn construct() {
        let mut buf = [0u8; 8];
        let mut v = Doorbell::new_unchecked(&mut buf[..]);
        v.set_template(TemplateId::new(5));
        v.set_version(1);
        v.set_seq(0x10);
        v.set_index(3);
        v.set_length_units(0);
        assert_eq!(buf, TOKEN_BYTES);
        let mut v = Doorbell::new_unchecked(&mut buf[..]);
        v.set_template(TemplateId::MAX);
        assert_eq!(v.version(), 1);
        v.set_version(0xF);
        assert_eq!(v.template(), TemplateId::MAX);
        v.set_value(TOKEN);
        assert_eq!(buf, TOKEN_BYTES);
    }

    #[test]
    fn parse_emit_and_integer_forms_agree() {
        let t = DoorbellToken::new(TemplateId::new(5), 0x10, 3, 0);
        assert_eq!(DoorbellToken::parse(&TOKEN_BYTES).unwrap(), t);
        assert_eq!(t.to_u64(), TOKEN);
        assert_eq!(t.to_bytes(), TOKEN_BYTES);
        assert_eq!(DoorbellToken::from_u64(TOKEN), t);
        assert_eq!(DoorbellToken::from_bytes(TOKEN_BYTES), t);
        let mut buf = [0u8; 8];
        assert_eq!(t.emit(&mut buf), Ok(8));
        assert_eq!(buf, TOKEN_BYTES);
        assert_eq!(t.to_string(), "0x1005001000030000 (v1 template 5 seq 16 index 3 units 0)");
        // Every field at its extremes.
        let all = DoorbellToken {
            version: 0xF,
            template: TemplateId::MAX,
            seq: 0xFFFF,
            index: 0xFFFF,
            length_units: 0xFFFF,
        };
        assert_eq!(all.to_u64(), u64::MAX);
        assert_eq!(DoorbellToken::from_u64(u64::MAX), all);
        let t = DoorbellToken::new(TemplateId::new(0xABC), 0x1234, 0x5678, 0x9ABC);
        assert_eq!(t.to_u64(), 0x1ABC_1234_5678_9ABC);
    }

    #[test]
    fn truncation_names_field_and_offset() {
        let e = DoorbellToken::parse(&TOKEN_BYTES[..7]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Doorbell, "template", 6, 2, 1));
        assert_eq!(e.to_string(), "doorbell.template truncated at byte 6: need 2, have 1");
        assert_eq!(DoorbellToken::parse(&[]).unwrap_err().field, "length_units");
        assert_eq!(DoorbellToken::parse(&TOKEN_BYTES[..5]).unwrap_err().field, "seq");
    }

    #[test]
    fn emit_never_panics() {
        let t = DoorbellToken::new(TemplateId::new(5), 0, 0, 0);
        assert!(matches!(t.emit(&mut [0u8; 7]), Err(EmitError::BufferTooShort { .. })));
        let bad = DoorbellToken { template: TemplateId::new(0x1000), ..t };
        assert!(matches!(
            bad.emit(&mut [0u8; 8]),
            Err(EmitError::FieldOutOfRange { field: "template", .. })
        ));
        let bad = DoorbellToken { version: 0x10, ..t };
        assert!(matches!(
            bad.emit(&mut [0u8; 8]),
            Err(EmitError::FieldOutOfRange { field: "version", .. })
        ));
    }

    #[test]
    fn version_other_than_one_is_rejected() {
        for version in 0..16u8 {
            let t = DoorbellToken { version, ..DoorbellToken::new(TemplateId::new(1), 0, 0, 0) };
            let mut out = Vec::new();
            t.validate(8, &mut out);
            if version == 1 {
                assert_eq!(t.check_version(), Ok(()));
                assert!(out.is_empty());
            } else {
                let r = t.check_version().unwrap_err();
                assert_eq!(r, DoorbellReject::BadVersion { version });
                assert_eq!(r.requirement(), "DB-VERSION-001");
                assert_eq!(r.status(), CompletionStatus::BAD_VERSION);
                assert_eq!(out[0].requirement, "DB-VERSION-001");
                assert_eq!(out[0].offset, Some(15));
            }
        }
    }

    #[test]
    fn seq_half_ring_rule() {
        assert_eq!(check_seq(7, 7), Ok(()));
        assert_eq!(check_seq(7, 6), Err(DoorbellReject::StaleSeq { expected: 7, got: 6 }));
        assert_eq!(check_seq(7, 8), Err(DoorbellReject::SeqGap { expected: 7, got: 8 }));
        // Around the wrap 65535 -> 0.
        assert_eq!(check_seq(0, 0), Ok(()));
        assert_eq!(check_seq(0xFFFF, 0xFFFF), Ok(()));
        assert!(matches!(check_seq(0, 0xFFFF), Err(DoorbellReject::StaleSeq { .. })));
        assert!(matches!(check_seq(0xFFFF, 0), Err(DoorbellReject::SeqGap { .. })));
        assert!(matches!(check_seq(1, 0xFFFE), Err(DoorbellReject::StaleSeq { .. })));
        assert!(matches!(check_seq(0xFFFE, 1), Err(DoorbellReject::SeqGap { .. })));
        // The boundary: behind by 2^15 - 1 is stale, by 2^15 (ahead by 2^15) is a gap.
        assert!(matches!(check_seq(0x8000, 1), Err(DoorbellReject::StaleSeq { .. })));
        assert!(matches!(check_seq(0x8000, 0), Err(DoorbellReject::SeqGap { .. })));
        assert!(matches!(check_seq(0, 0x8000), Err(DoorbellReject::SeqGap { .. })));
        assert!(matches!(check_seq(0, 0x8001), Err(DoorbellReject::StaleSeq { .. })));
        assert!(matches!(check_seq(5, 0x8005), Err(DoorbellReject::SeqGap { .. })));
        // Exhaustive over one expected value near the wrap: exactly one accepted, 2^15 - 1
        // stale and 2^15 gaps.
        let expected = 0xFFF0;
        let (mut ok, mut stale, mut gap) = (0u32, 0u32, 0u32);
        for got in 0..=u16::MAX {
            match check_seq(expected, got) {
                Ok(()) => ok += 1,
                Err(DoorbellReject::StaleSeq { .. }) => stale += 1,
                Err(DoorbellReject::SeqGap { .. }) => gap += 1,
                Err(e) => panic!("unexpected {e}"),
            }
        }
        assert_eq!((ok, stale, gap), (1, 0x7FFF, 0x8000));
    }

    #[test]
    fn rejects_name_requirement_and_status() {
        let all = [
            (DoorbellReject::BadVersion { version: 2 }, "DB-VERSION-001", 0x01, false),
            (
                DoorbellReject::UnknownTemplate { template: TemplateId::new(9) },
                "DB-TEMPLATE-001",
                0x02,
                false,
            ),
            (DoorbellReject::StaleSeq { expected: 1, got: 0 }, "DB-SEQ-002", 0x03, true),
            (DoorbellReject::SeqGap { expected: 1, got: 2 }, "DB-SEQ-003", 0x04, true),
            (DoorbellReject::IndexOutOfRange { index: 9, slots: 9 }, "DB-INDEX-001", 0x05, true),
            (
                DoorbellReject::LengthOutOfRange {
                    length: 10,
                    bound: LengthBound::MaxLength,
                    limit: 9,
                },
                "DB-LENGTH-002",
                0x06,
                true,
            ),
            (
                DoorbellReject::LengthOutOfRange {
                    length: 10,
                    bound: LengthBound::LocalRegion,
                    limit: 9,
                },
                "DB-LENGTH-003",
                0x06,
                true,
            ),
            (
                DoorbellReject::LengthOutOfRange {
                    length: 10,
                    bound: LengthBound::RemoteRegion,
                    limit: 9,
                },
                "DB-LENGTH-004",
                0x06,
                true,
            ),
        ];
        for (r, id, code, known) in all {
            assert_eq!(r.requirement(), id);
            assert_eq!(r.status(), CompletionStatus(code));
            assert!(r.status().is_doorbell_reject());
            assert_eq!(r.template_known(), known);
            let s = r.to_string();
            assert!(s.starts_with(&alloc::format!("[{id}]")), "{s}");
        }
        let r = DoorbellReject::LengthOutOfRange {
            length: 8192,
            bound: LengthBound::LocalRegion,
            limit: 4096,
        };
        assert_eq!(
            r.to_string(),
            "[DB-LENGTH-003] length 8192 exceeds the room left in the local region (4096)"
        );
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4442_0001);
        for _ in 0..1000 {
            let mut bytes = [0u8; DOORBELL_LEN];
            rng.fill_bytes(&mut bytes);
            let t = DoorbellToken::parse(&bytes).unwrap();
            let mut out = [0u8; DOORBELL_LEN];
            assert_eq!(t.emit(&mut out), Ok(DOORBELL_LEN));
            assert_eq!(out, bytes);
            assert_eq!(t.to_u64(), u64::from_le_bytes(bytes));
        }
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4442_0001);
        let mut raw = [0u8; 32];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = DoorbellToken::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut out = [0u8; DOORBELL_LEN];
            assert_eq!(r.emit(&mut out), Ok(DOORBELL_LEN));
            assert_eq!(DoorbellToken::parse(&out).unwrap(), r);
        }
    }
}
