//! Completion flag: one 64-bit little-endian word in GPU memory that the GPU polls
//! (requirements `FLAG-*`; layout `FLAG-LAYOUT-001`). The NIC writes it as one aligned
//! 8-byte write (`FLAG-WRITE-001`) into slot `s` of its flag table, at `base + 8 × s`
//! (`FLAG-TABLE-001`).
//!
//! ```text
//!  bits 63:48  generation  16   sender: the token's seq; receiver: the message's MSN
//!  bits 47:40  status       8   CompletionStatus
//!  bit  39     valid        1   set by the NIC on every write; a zeroed word never matches
//!  bits 38:32  reserved     7
//!  bits 31:0   byte_len    32   payload bytes of the message (0 on error)
//!
//!  little-endian in memory:
//!  byte 0-3 byte_len | byte 4 valid(7) reserved(6:0) | byte 5 status | byte 6-7 generation
//! ```
//!
//! A slot is reused without being cleared: the waiter knows the generation it waits for
//! and compares it ([`FlagRepr::matches`], [`flag_word_matches`]); the previous use of the
//! slot left a different generation (`FLAG-REUSE-001`). The valid bit makes a freshly
//! zeroed flag table safe: generation 0 would otherwise match a zero word.
//!
//! Flags exist on both ends. The **sender's** flag sits at the slot the work request names
//! (`flag_slot = template.flag_base_slot + index`) and is written when the transport ACK
//! for the message arrives, or when the message fails. The **receiver's** retirement flag
//! sits at a slot the receiver derives from its own QP context and the message's MSN
//! ([`retirement_slot`]) and is written after the message retires in order; no wire field
//! is needed.

use core::fmt;

use super::{CompletionStatus, le_u16, le_u32, set_le_u16, set_le_u32};
use crate::Msn;
use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer};

/// Length of a completion flag in bytes.
pub const FLAG_LEN: usize = 8;
/// The valid bit, bit 39 of the word.
pub const FLAG_VALID_BIT: u64 = 1 << 39;
/// Reserved bits of byte 4 (bits 38:32 of the word), in place.
pub const FLAG_RESERVED_MASK: u8 = 0x7F;

mod field {
    pub(super) const BYTE_LEN: usize = 0;
    pub(super) const VALID: usize = 4;
    pub(super) const STATUS: usize = 5;
    pub(super) const GENERATION: usize = 6;
}

/// The largest number of retirement flag slots of a QP, 2^15 (`FLAG-RECV-001`).
pub const MAX_RETIREMENT_SLOTS: u32 = 1 << 15;

/// Whether a raw flag word, as the GPU loads it, reports the generation it waits for:
/// the valid bit is set and bits 63:48 equal `expected_generation` (`FLAG-MATCH-001`).
pub const fn flag_word_matches(word: u64, expected_generation: u16) -> bool {
    word & FLAG_VALID_BIT != 0 && (word >> 48) as u16 == expected_generation
}

/// The receiver's retirement flag slot of a message (`FLAG-RECV-001`):
/// `base_slot + (msn mod slots)`. `slots` must be a power of two, so that the slots cycle
/// evenly across the 16-bit MSN wrap, and at most 2^15, so that the two messages that
/// share a slot in turn (MSNs `m` and `m + slots`) never share a generation; `None` if it
/// is not, or if the slot number would pass 2^32 − 1.
pub const fn retirement_slot(base_slot: u32, slots: u32, msn: Msn) -> Option<u32> {
    if !slots.is_power_of_two() || slots > MAX_RETIREMENT_SLOTS {
        return None;
    }
    if base_slot.checked_add(slots - 1).is_none() {
        return None;
    }
    Some(base_slot + (msn.value() as u32 & (slots - 1)))
}

/// A zero-copy view of a completion flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Flag<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Flag { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole flag.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole flag.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        if have < FLAG_LEN {
            return Err(super::truncated(
                Header::Flag,
                &[
                    ("byte_len", field::BYTE_LEN, 4),
                    ("valid", field::VALID, 1),
                    ("status", field::STATUS, 1),
                    ("generation", field::GENERATION, 2),
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

    /// The whole word.
    pub fn value(&self) -> u64 {
        super::le_u64(self.buffer.as_ref(), 0)
    }
    /// Generation, bits 63:48.
    pub fn generation(&self) -> u16 {
        le_u16(self.buffer.as_ref(), field::GENERATION)
    }
    /// Status, bits 47:40.
    pub fn status(&self) -> CompletionStatus {
        CompletionStatus(self.buffer.as_ref()[field::STATUS])
    }
    /// Valid bit, bit 39.
    pub fn valid(&self) -> bool {
        self.buffer.as_ref()[field::VALID] & 0x80 != 0
    }
    /// Reserved bits 38:32.
    pub fn resv(&self) -> u8 {
        self.buffer.as_ref()[field::VALID] & FLAG_RESERVED_MASK
    }
    /// Byte count, bits 31:0.
    pub fn byte_len(&self) -> u32 {
        le_u32(self.buffer.as_ref(), field::BYTE_LEN)
    }
    /// Whether the flag reports `expected_generation` (`FLAG-MATCH-001`).
    pub fn matches(&self, expected_generation: u16) -> bool {
        flag_word_matches(self.value(), expected_generation)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Flag<T> {
    /// Sets the whole word.
    pub fn set_value(&mut self, v: u64) {
        super::set_le_u64(self.buffer.as_mut(), 0, v);
    }
    /// Sets the generation.
    pub fn set_generation(&mut self, v: u16) {
        set_le_u16(self.buffer.as_mut(), field::GENERATION, v);
    }
    /// Sets the status.
    pub fn set_status(&mut self, v: CompletionStatus) {
        self.buffer.as_mut()[field::STATUS] = v.0;
    }
    /// Sets byte 4: the valid bit and the reserved bits (masked to 7 bits).
    pub fn set_valid(&mut self, valid: bool, resv: u8) {
        self.buffer.as_mut()[field::VALID] = (u8::from(valid) << 7) | (resv & FLAG_RESERVED_MASK);
    }
    /// Sets the byte count.
    pub fn set_byte_len(&mut self, v: u32) {
        set_le_u32(self.buffer.as_mut(), field::BYTE_LEN, v);
    }
}

/// An owned, decoded completion flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct FlagRepr {
    /// Sender: the doorbell token's seq. Receiver: the message's MSN.
    pub generation: u16,
    /// Outcome of the message.
    pub status: CompletionStatus,
    /// Set on every write by the NIC (`FLAG-VALID-001`).
    pub valid: bool,
    /// Reserved bits 38:32 (7 bits).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits7))]
    pub resv: u8,
    /// Payload bytes of the message; 0 on error (`FLAG-LEN-001`).
    pub byte_len: u32,
}

impl FlagRepr {
    /// A flag as the NIC writes it: valid, reserved bits zero.
    pub const fn new(generation: u16, status: CompletionStatus, byte_len: u32) -> Self {
        FlagRepr { generation, status, valid: true, resv: 0, byte_len }
    }

    /// The sender's flag for the work request of token seq `seq` and length `length`
    /// (`FLAG-SEND-001`): the byte count is `length` on success and 0 otherwise.
    pub const fn sender(seq: u16, status: CompletionStatus, length: u32) -> Self {
        Self::new(seq, status, if status.is_success() { length } else { 0 })
    }

    /// The receiver's retirement flag of message `msn` that placed `byte_len` bytes
    /// (`FLAG-RECV-002`): its generation is the MSN.
    pub const fn retired(msn: Msn, byte_len: u32) -> Self {
        Self::new(msn.value(), CompletionStatus::SUCCESS, byte_len)
    }

    /// Splits a word into its fields.
    pub const fn from_u64(v: u64) -> Self {
        FlagRepr {
            generation: (v >> 48) as u16,
            status: CompletionStatus((v >> 40) as u8),
            valid: v & FLAG_VALID_BIT != 0,
            resv: (v >> 32) as u8 & FLAG_RESERVED_MASK,
            byte_len: v as u32,
        }
    }

    /// The word. A `resv` wider than 7 bits is truncated; [`FlagRepr::emit`] reports it.
    pub const fn to_u64(&self) -> u64 {
        ((self.generation as u64) << 48)
            | ((self.status.0 as u64) << 40)
            | if self.valid { FLAG_VALID_BIT } else { 0 }
            | ((self.resv as u64 & FLAG_RESERVED_MASK as u64) << 32)
            | self.byte_len as u64
    }

    /// The flag from its 8 bytes in memory, little-endian (`FLAG-LAYOUT-001`).
    pub const fn from_bytes(b: [u8; FLAG_LEN]) -> Self {
        Self::from_u64(u64::from_le_bytes(b))
    }

    /// The flag's 8 bytes in memory, little-endian.
    pub const fn to_bytes(&self) -> [u8; FLAG_LEN] {
        self.to_u64().to_le_bytes()
    }

    /// Whether the flag reports `expected_generation`: valid, and the generation equal
    /// (`FLAG-MATCH-001`). The status must then be read: a match may report an error.
    pub const fn matches(&self, expected_generation: u16) -> bool {
        self.valid && self.generation == expected_generation
    }

    /// Decodes a flag from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Flag::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    pub fn from_view<T: AsRef<[u8]>>(v: &Flag<T>) -> Self {
        FlagRepr {
            generation: v.generation(),
            status: v.status(),
            valid: v.valid(),
            resv: v.resv(),
            byte_len: v.byte_len(),
        }
    }

    /// Bytes in memory.
    pub const fn buffer_len(&self) -> usize {
        FLAG_LEN
    }

    /// Writes the flag into the start of `buf`. Never panics.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Flag, buf, FLAG_LEN)?;
        crate::error::check_range(Header::Flag, "resv", self.resv.into(), 0x7F)?;
        buf[..FLAG_LEN].copy_from_slice(&self.to_bytes());
        Ok(FLAG_LEN)
    }

    /// Semantic checks of a flag the NIC wrote (`base` is its offset in the buffer
    /// checked).
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let v = |requirement, field, at: usize, value: u64, rule| Violation {
            requirement,
            header: Header::Flag,
            field,
            offset: Some(base + at),
            value,
            rule,
        };
        if !self.valid {
            out.push(v(
                "FLAG-VALID-001",
                "valid",
                field::VALID,
                0,
                "the NIC sets valid on every write",
            ));
        }
        if self.resv != 0 {
            out.push(v(
                "FLAG-RESV-001",
                "resv",
                field::VALID,
                self.resv.into(),
                "reserved bits must be 0",
            ));
        }
        if !self.status.is_known() {
            out.push(v(
                "FLAG-STATUS-001",
                "status",
                field::STATUS,
                self.status.0.into(),
                "status must be a defined completion status",
            ));
        } else if self.status.is_doorbell_reject() {
            out.push(v(
                "FLAG-SEND-003",
                "status",
                field::STATUS,
                self.status.0.into(),
                "a rejected doorbell token writes no flag",
            ));
        }
        if !self.status.is_success() && self.byte_len != 0 {
            out.push(v(
                "FLAG-LEN-001",
                "byte_len",
                field::BYTE_LEN,
                self.byte_len.into(),
                "a flag reporting an error has byte_len 0",
            ));
        }
    }
}

impl fmt::Display for FlagRepr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:#018x} (gen {} {} {} bytes{})",
            self.to_u64(),
            self.generation,
            self.status,
            self.byte_len,
            if self.valid { "" } else { ", not valid" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    // Sender flag of token seq 0x0010, 4096 bytes, success.
    const WORD: u64 = 0x0010_0080_0000_1000;
    const BYTES: [u8; 8] = [0x00, 0x10, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00];

    #[test]
    fn deconstruct() {
        let v = Flag::new_checked(&BYTES[..]).unwrap();
        assert_eq!(v.value(), WORD);
        assert_eq!(v.generation(), 0x10);
        assert_eq!(v.status(), CompletionStatus::SUCCESS);
        assert!(v.valid());
        assert_eq!(v.resv(), 0);
        assert_eq!(v.byte_len(), 4096);
        assert!(v.matches(0x10) && !v.matches(0x11));
    }

    #[test]
    fn construct() {
        let mut buf = [0xEEu8; 8];
        let mut v = Flag::new_unchecked(&mut buf[..]);
        v.set_generation(0x10);
        v.set_status(CompletionStatus::SUCCESS);
        v.set_valid(true, 0);
        v.set_byte_len(4096);
        assert_eq!(buf, BYTES);
        Flag::new_unchecked(&mut buf[..]).set_value(0);
        assert_eq!(buf, [0; 8]);
    }

    #[test]
    fn parse_emit_and_integer_forms_agree() {
        let f = FlagRepr::sender(0x10, CompletionStatus::SUCCESS, 4096);
        assert_eq!(FlagRepr::parse(&BYTES).unwrap(), f);
        assert_eq!(f.to_u64(), WORD);
        assert_eq!(f.to_bytes(), BYTES);
        assert_eq!(FlagRepr::from_u64(WORD), f);
        assert_eq!(FlagRepr::from_bytes(BYTES), f);
        let mut buf = [0u8; 8];
        assert_eq!(f.emit(&mut buf), Ok(8));
        assert_eq!(buf, BYTES);
        assert_eq!(f.to_string(), "0x0010008000001000 (gen 16 SUCCESS 4096 bytes)");
        // An error flag: RETRY_EXCEEDED, byte count 0.
        let e = FlagRepr::sender(0xFFFF, CompletionStatus::RETRY_EXCEEDED, 4096);
        assert_eq!(e.to_u64(), 0xFFFF_1080_0000_0000);
    }

    /// FLAG-MATCH-001: the waiter's match takes a flag as reporting generation g exactly
    /// when `valid` is 1 and `generation` is g — not for a non-zero word, nor for a word
    /// that changed — and a match may report a failure, so the status must be read.
    #[test]
    fn matching_needs_valid_and_generation() {
        // A zeroed flag table never matches, not even generation 0.
        assert!(!FlagRepr::from_u64(0).matches(0));
        assert!(!flag_word_matches(0, 0));
        // A non-zero word without the valid bit is not a completion, whatever else it holds.
        let not_valid =
            FlagRepr { valid: false, ..FlagRepr::sender(9, CompletionStatus::SUCCESS, 64) };
        assert_ne!(not_valid.to_u64(), 0);
        assert!(!not_valid.matches(9) && !flag_word_matches(not_valid.to_u64(), 9));
        // A word that changed, to another generation, is not the completion waited for.
        let other = FlagRepr::sender(10, CompletionStatus::SUCCESS, 64);
        assert_ne!(other.to_u64(), not_valid.to_u64());
        assert!(!other.matches(9) && !flag_word_matches(other.to_u64(), 9));
        let f = FlagRepr::retired(Msn::new(0), 0);
        assert!(f.matches(0) && flag_word_matches(f.to_u64(), 0));
        // Reuse without clearing: the previous generation does not match the next one.
        let old = FlagRepr::sender(0xFFFF, CompletionStatus::SUCCESS, 64);
        assert!(!old.matches(0));
        let new = FlagRepr::sender(0, CompletionStatus::SUCCESS, 64);
        assert!(new.matches(0));
        // An error matches too: the waiter must read the status.
        let err = FlagRepr::sender(3, CompletionStatus::REMOTE_ACCESS_ERROR, 64);
        assert!(err.matches(3) && !err.status.is_success() && err.byte_len == 0);
    }

    /// FLAG-INIT-001: initial content with `valid` 0 — zero or not — never matches a
    /// waiter, whatever generation it waits for; content with `valid` 1 would.
    #[test]
    fn initial_content_without_the_valid_bit_never_matches() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x494E_4954);
        for _ in 0..200 {
            let word = rng.next_u64() & !FLAG_VALID_BIT;
            for g in [0u16, 1, (word >> 48) as u16, 0xFFFF] {
                assert!(!flag_word_matches(word, g), "{word:#018x} matches {g}");
            }
            assert!(flag_word_matches(word | FLAG_VALID_BIT, (word >> 48) as u16));
        }
        for g in 0..=u16::MAX {
            assert!(!flag_word_matches(0, g));
        }
    }

    #[test]
    fn retirement_slots_cycle_across_the_msn_wrap() {
        assert_eq!(retirement_slot(1000, 64, Msn::new(0)), Some(1000));
        assert_eq!(retirement_slot(1000, 64, Msn::new(63)), Some(1063));
        assert_eq!(retirement_slot(1000, 64, Msn::new(64)), Some(1000));
        assert_eq!(retirement_slot(1000, 64, Msn::new(0xFFFF)), Some(1063));
        assert_eq!(retirement_slot(7, 1, Msn::new(0x1234)), Some(7));
        assert_eq!(retirement_slot(0, 1 << 15, Msn::new(0xFFFF)), Some(0x7FFF));
        assert_eq!(retirement_slot(0, 1 << 15, Msn::new(0x7FFF)), Some(0x7FFF));
        // 2^16 slots would make MSN m and m + 2^16 share a slot and a generation.
        assert_eq!(retirement_slot(0, 1 << 16, Msn::new(0xFFFF)), None);
        assert_eq!(retirement_slot(0, 0, Msn::new(1)), None);
        assert_eq!(retirement_slot(0, 48, Msn::new(1)), None);
        assert_eq!(retirement_slot(0, 1 << 17, Msn::new(1)), None);
        assert_eq!(retirement_slot(u32::MAX - 62, 64, Msn::new(0)), None);
        assert_eq!(retirement_slot(u32::MAX - 63, 64, Msn::new(63)), Some(u32::MAX));
    }

    #[test]
    fn truncation_names_field_and_offset() {
        let e = FlagRepr::parse(&BYTES[..6]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Flag, "generation", 6, 2, 0));
        assert_eq!(e.to_string(), "flag.generation truncated at byte 6: need 2, have 0");
        assert_eq!(FlagRepr::parse(&BYTES[..2]).unwrap_err().field, "byte_len");
    }

    #[test]
    fn emit_never_panics() {
        let f = FlagRepr::retired(Msn::new(1), 1);
        assert!(matches!(f.emit(&mut [0u8; 7]), Err(EmitError::BufferTooShort { .. })));
        let bad = FlagRepr { resv: 0x80, ..f };
        assert!(matches!(
            bad.emit(&mut [0u8; 8]),
            Err(EmitError::FieldOutOfRange { field: "resv", .. })
        ));
    }

    #[test]
    fn validate_flags_each_rule() {
        let mut out = Vec::new();
        FlagRepr::sender(1, CompletionStatus::SUCCESS, 5).validate(0, &mut out);
        FlagRepr::sender(1, CompletionStatus::FLUSHED, 5).validate(0, &mut out);
        assert!(out.is_empty(), "{out:?}");
        let bad = FlagRepr {
            generation: 1,
            status: CompletionStatus(0x99),
            valid: false,
            resv: 3,
            byte_len: 9,
        };
        bad.validate(16, &mut out);
        let ids: Vec<_> = out.iter().map(|v| v.requirement).collect();
        assert_eq!(ids, ["FLAG-VALID-001", "FLAG-RESV-001", "FLAG-STATUS-001", "FLAG-LEN-001"]);
        assert_eq!(out[2].offset, Some(21));
        let mut out = Vec::new();
        FlagRepr::new(1, CompletionStatus::SEQ_GAP, 0).validate(0, &mut out);
        assert_eq!(out[0].requirement, "FLAG-SEND-003");
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x464C_4147);
        for _ in 0..1000 {
            let mut bytes = [0u8; FLAG_LEN];
            rng.fill_bytes(&mut bytes);
            let f = FlagRepr::parse(&bytes).unwrap();
            let mut out = [0u8; FLAG_LEN];
            assert_eq!(f.emit(&mut out), Ok(FLAG_LEN));
            assert_eq!(out, bytes);
            assert_eq!(
                f.matches(f.generation),
                flag_word_matches(u64::from_le_bytes(bytes), f.generation)
            );
        }
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x464C_4147);
        let mut raw = [0u8; 32];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = FlagRepr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut out = [0u8; FLAG_LEN];
            assert_eq!(r.emit(&mut out), Ok(FLAG_LEN));
            assert_eq!(FlagRepr::parse(&out).unwrap(), r);
        }
    }
}
