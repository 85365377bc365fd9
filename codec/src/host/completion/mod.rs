//! Completion entry, 32 bytes, little-endian (requirements `CQE-*`; layout `CQE-LAYOUT-001`),
//! and the completion status codes shared with the completion flag.
//!
//! ```text
//!  byte 0-7   wr_id          u64   (sender: the work request's wr_id = the token value;
//!                                   receiver: 0)
//!  byte 8     status         u8    CompletionStatus
//!  byte 9     opcode         u8    WrOpcode (0xFF: no template, for rejected tokens)
//!  byte 10    flags          u8    bit0 has_imm, bit1 is_receive, bit2 has_timestamp,
//!                                  bits 7:3 reserved
//!  byte 11    reserved       u8
//!  byte 12-15 qpn            u32   bits 23:0 QPN, bits 31:24 (byte 15) reserved
//!  byte 16-19 byte_len       u32
//!  byte 20-23 imm            u32   valid when has_imm
//!  byte 24-27 timestamp      u32   low 32 bits of the NIC's nanosecond clock, when has_timestamp
//!  byte 28-29 msn            u16   the message's MSN
//!  byte 30    reserved       u8
//!  byte 31    owner          u8    bit0 phase, bits 7:1 reserved
//! ```
//!
//! Entries go to a ring in host memory. The consumer recognises a new entry by its `phase`
//! bit, which the NIC writes as 1 on the first pass over the ring, 0 on the second, and so
//! on ([`cq_position`], `CQE-RING-001`); the phase sits in the last byte, the byte a NIC's
//! in-order write of the entry makes visible last (`CQE-RING-003`), and the consumer reads
//! it first (`CQE-RING-002`).
//!
//! The Repr is lossless: reserved bits, an immediate without `has_imm` and a timestamp
//! without `has_timestamp` all survive parse → emit, so a checker can report what a
//! device wrote; [`CompletionRepr::validate`] says which of them break the rules.

use core::fmt;

use super::{DoorbellReject, Template, WorkRequest, WrOpcode};
use super::{le_u16, le_u32, le_u64, set_le_u16, set_le_u32, set_le_u64};
use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer};
use crate::{Msn, Qpn};

/// Length of a completion entry in bytes.
pub const COMPLETION_LEN: usize = 32;

mod field {
    pub(super) const WR_ID: usize = 0;
    pub(super) const STATUS: usize = 8;
    pub(super) const OPCODE: usize = 9;
    pub(super) const FLAGS: usize = 10;
    pub(super) const RESV1: usize = 11;
    pub(super) const QPN: usize = 12;
    pub(super) const QPN_RESV: usize = 15;
    pub(super) const BYTE_LEN: usize = 16;
    pub(super) const IMM: usize = 20;
    pub(super) const TIMESTAMP: usize = 24;
    pub(super) const MSN: usize = 28;
    pub(super) const RESV2: usize = 30;
    pub(super) const OWNER: usize = 31;
}

/// `flags` bit 0: the entry carries an immediate.
pub const CQE_FLAG_HAS_IMM: u8 = 0x01;
/// `flags` bit 1: a receive completion (written by the receiver of a message).
pub const CQE_FLAG_IS_RECEIVE: u8 = 0x02;
/// `flags` bit 2: `timestamp` holds the NIC's clock.
pub const CQE_FLAG_HAS_TIMESTAMP: u8 = 0x04;
/// Reserved bits of `flags` (7:3), in place.
pub const CQE_FLAGS_RESERVED_MASK: u8 = 0xF8;
/// `owner` bit 0: the phase of the ring pass that wrote the entry.
pub const CQE_OWNER_PHASE: u8 = 0x01;
/// Reserved bits of `owner` (7:1), in place.
pub const CQE_OWNER_RESERVED_MASK: u8 = 0xFE;

mod ring;
mod status;

pub use ring::*;
pub use status::*;

/// A zero-copy view of a completion entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Completion<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Completion { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole completion entry.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole completion entry.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        if have < COMPLETION_LEN {
            return Err(super::truncated(
                Header::Completion,
                &[
                    ("wr_id", field::WR_ID, 8),
                    ("status", field::STATUS, 1),
                    ("opcode", field::OPCODE, 1),
                    ("flags", field::FLAGS, 1),
                    ("resv1", field::RESV1, 1),
                    ("qpn", field::QPN, 4),
                    ("byte_len", field::BYTE_LEN, 4),
                    ("imm", field::IMM, 4),
                    ("timestamp", field::TIMESTAMP, 4),
                    ("msn", field::MSN, 2),
                    ("resv2", field::RESV2, 1),
                    ("owner", field::OWNER, 1),
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

    /// Work request ID.
    pub fn wr_id(&self) -> u64 {
        le_u64(self.buffer.as_ref(), field::WR_ID)
    }
    /// Status.
    pub fn status(&self) -> CompletionStatus {
        CompletionStatus(self.buffer.as_ref()[field::STATUS])
    }
    /// Opcode.
    pub fn opcode(&self) -> WrOpcode {
        WrOpcode(self.buffer.as_ref()[field::OPCODE])
    }
    /// The whole flags byte.
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS]
    }
    /// Flags bit 0: an immediate is present.
    pub fn has_imm(&self) -> bool {
        self.flags() & CQE_FLAG_HAS_IMM != 0
    }
    /// Flags bit 1: a receive completion.
    pub fn is_receive(&self) -> bool {
        self.flags() & CQE_FLAG_IS_RECEIVE != 0
    }
    /// Flags bit 2: the timestamp is present.
    pub fn has_timestamp(&self) -> bool {
        self.flags() & CQE_FLAG_HAS_TIMESTAMP != 0
    }
    /// Reserved byte 11.
    pub fn resv1(&self) -> u8 {
        self.buffer.as_ref()[field::RESV1]
    }
    /// Queue pair number (bits 23:0 of bytes 12–15).
    pub fn qpn(&self) -> Qpn {
        Qpn::new(le_u32(self.buffer.as_ref(), field::QPN))
    }
    /// Reserved byte 15 (bits 31:24 of the QPN word).
    pub fn qpn_resv(&self) -> u8 {
        self.buffer.as_ref()[field::QPN_RESV]
    }
    /// Bytes transferred.
    pub fn byte_len(&self) -> u32 {
        le_u32(self.buffer.as_ref(), field::BYTE_LEN)
    }
    /// Immediate data, as an integer.
    pub fn imm(&self) -> u32 {
        le_u32(self.buffer.as_ref(), field::IMM)
    }
    /// Message sequence number.
    pub fn msn(&self) -> Msn {
        Msn::new(le_u16(self.buffer.as_ref(), field::MSN))
    }
    /// Reserved byte 30.
    pub fn resv2(&self) -> u8 {
        self.buffer.as_ref()[field::RESV2]
    }
    /// The whole owner byte (31).
    pub fn owner(&self) -> u8 {
        self.buffer.as_ref()[field::OWNER]
    }
    /// Owner bit 0: the phase of the ring pass that wrote the entry.
    pub fn phase(&self) -> bool {
        self.owner() & CQE_OWNER_PHASE != 0
    }
    /// Timestamp, low 32 bits of nanoseconds.
    pub fn timestamp(&self) -> u32 {
        le_u32(self.buffer.as_ref(), field::TIMESTAMP)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Completion<T> {
    /// Sets the work request ID.
    pub fn set_wr_id(&mut self, v: u64) {
        set_le_u64(self.buffer.as_mut(), field::WR_ID, v);
    }
    /// Sets the status.
    pub fn set_status(&mut self, v: CompletionStatus) {
        self.buffer.as_mut()[field::STATUS] = v.0;
    }
    /// Sets the opcode.
    pub fn set_opcode(&mut self, v: WrOpcode) {
        self.buffer.as_mut()[field::OPCODE] = v.0;
    }
    /// Sets the flags byte from its parts; `resv` is masked to bits 7:3.
    pub fn set_flags(&mut self, has_imm: bool, is_receive: bool, has_timestamp: bool, resv: u8) {
        self.buffer.as_mut()[field::FLAGS] = u8::from(has_imm)
            | (u8::from(is_receive) << 1)
            | (u8::from(has_timestamp) << 2)
            | (resv & CQE_FLAGS_RESERVED_MASK);
    }
    /// Sets reserved byte 11.
    pub fn set_resv1(&mut self, v: u8) {
        self.buffer.as_mut()[field::RESV1] = v;
    }
    /// Sets the QPN and reserved byte 15.
    pub fn set_qpn(&mut self, qpn: Qpn, resv: u8) {
        set_le_u32(self.buffer.as_mut(), field::QPN, qpn.value() | (u32::from(resv) << 24));
    }
    /// Sets the byte count.
    pub fn set_byte_len(&mut self, v: u32) {
        set_le_u32(self.buffer.as_mut(), field::BYTE_LEN, v);
    }
    /// Sets the immediate.
    pub fn set_imm(&mut self, v: u32) {
        set_le_u32(self.buffer.as_mut(), field::IMM, v);
    }
    /// Sets the MSN.
    pub fn set_msn(&mut self, v: Msn) {
        set_le_u16(self.buffer.as_mut(), field::MSN, v.value());
    }
    /// Sets reserved byte 30.
    pub fn set_resv2(&mut self, v: u8) {
        self.buffer.as_mut()[field::RESV2] = v;
    }
    /// Sets the owner byte from its parts; `resv` is masked to bits 7:1.
    pub fn set_owner(&mut self, phase: bool, resv: u8) {
        self.buffer.as_mut()[field::OWNER] = u8::from(phase) | (resv & CQE_OWNER_RESERVED_MASK);
    }
    /// Sets the timestamp.
    pub fn set_timestamp(&mut self, v: u32) {
        set_le_u32(self.buffer.as_mut(), field::TIMESTAMP, v);
    }
}

/// An owned, decoded completion entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct CompletionRepr {
    /// Work request ID: the token value for an expanded request, 0 for a receive
    /// completion (`CQE-SEND-001`, `CQE-RECV-001`).
    pub wr_id: u64,
    /// Outcome.
    pub status: CompletionStatus,
    /// Opcode of the message; [`WrOpcode::NONE`] when a rejected token named no template.
    pub opcode: WrOpcode,
    /// Flags bit 0: `imm` is meaningful.
    pub has_imm: bool,
    /// Flags bit 1: written by the receiver of the message.
    pub is_receive: bool,
    /// Flags bit 2: `timestamp` is meaningful.
    pub has_timestamp: bool,
    /// Reserved bits 7:3 of the flags byte, in place (mask [`CQE_FLAGS_RESERVED_MASK`]).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = arb_flags_resv))]
    pub flags_resv: u8,
    /// Reserved byte 11.
    pub resv1: u8,
    /// Queue pair number.
    pub qpn: Qpn,
    /// Reserved byte 15.
    pub qpn_resv: u8,
    /// Payload bytes of the message (0 for an error).
    pub byte_len: u32,
    /// Immediate data, as an integer (0 unless `has_imm`).
    pub imm: u32,
    /// Low 32 bits of the NIC's nanosecond clock when it wrote the entry (0 unless
    /// `has_timestamp`; `CQE-TS-001`).
    pub timestamp: u32,
    /// Message sequence number of the message (0 for a rejected token).
    pub msn: Msn,
    /// Reserved byte 30.
    pub resv2: u8,
    /// Owner bit 0: the phase of the ring pass that wrote the entry (`CQE-RING-001`).
    pub phase: bool,
    /// Reserved bits 7:1 of the owner byte, in place (mask [`CQE_OWNER_RESERVED_MASK`]).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = arb_owner_resv))]
    pub owner_resv: u8,
}

#[cfg(feature = "arbitrary")]
fn arb_owner_resv(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<u8> {
    Ok(<u8 as arbitrary::Arbitrary<'_>>::arbitrary(u)? & CQE_OWNER_RESERVED_MASK)
}

#[cfg(feature = "arbitrary")]
fn arb_flags_resv(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<u8> {
    Ok(<u8 as arbitrary::Arbitrary<'_>>::arbitrary(u)? & CQE_FLAGS_RESERVED_MASK)
}

impl CompletionRepr {
    /// The sender's completion of an accepted work request (`CQE-SEND-001`, `CQE-SEND-002`):
    /// `status` is SUCCESS when the transport ACK arrived, else the error that ended the
    /// message; `byte_len` is the request's length on success and 0 on error.
    pub fn for_request(wr: &WorkRequest, status: CompletionStatus, msn: Msn) -> Self {
        CompletionRepr {
            wr_id: wr.wr_id,
            status,
            opcode: wr.opcode,
            qpn: wr.qpn,
            byte_len: if status.is_success() { wr.length } else { 0 },
            msn,
            ..CompletionRepr::default()
        }
    }

    /// The error completion of a rejected doorbell token (`CQE-REJECT-001`). `template` is
    /// the template the token named, if one is installed; its QPN and opcode are reported
    /// unless the rejection is `BadVersion` or `UnknownTemplate`, in which case the QPN is 0
    /// and the opcode [`WrOpcode::NONE`]. The first kind goes to the QP's send completion
    /// queue, the second to the device error completion queue (`CQE-REJECT-002`).
    pub fn for_reject(
        token_value: u64,
        template: Option<&Template>,
        reject: DoorbellReject,
    ) -> Self {
        let (qpn, opcode) = match (template, reject.template_known()) {
            (Some(t), true) => (t.qpn, t.opcode),
            _ => (Qpn::new(0), WrOpcode::NONE),
        };
        CompletionRepr {
            wr_id: token_value,
            status: reject.status(),
            opcode,
            qpn,
            ..CompletionRepr::default()
        }
    }

    /// A receive completion for a retired Write-with-Immediate (`CQE-RECV-001`).
    pub fn receive(qpn: Qpn, byte_len: u32, imm: u32, msn: Msn) -> Self {
        CompletionRepr {
            status: CompletionStatus::SUCCESS,
            opcode: WrOpcode::WRITE_WITH_IMM,
            has_imm: true,
            is_receive: true,
            qpn,
            byte_len,
            imm,
            msn,
            ..CompletionRepr::default()
        }
    }

    /// The same entry with a timestamp (`CQE-TS-001`).
    #[must_use]
    pub const fn with_timestamp(mut self, timestamp: u32) -> Self {
        self.has_timestamp = true;
        self.timestamp = timestamp;
        self
    }

    /// The same entry with the phase of the ring pass it is written in (`CQE-RING-001`).
    #[must_use]
    pub const fn with_phase(mut self, phase: bool) -> Self {
        self.phase = phase;
        self
    }

    /// The immediate, when `has_imm` is set.
    pub const fn imm(&self) -> Option<u32> {
        if self.has_imm { Some(self.imm) } else { None }
    }

    /// Decodes a completion entry from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Completion::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    pub fn from_view<T: AsRef<[u8]>>(v: &Completion<T>) -> Self {
        CompletionRepr {
            wr_id: v.wr_id(),
            status: v.status(),
            opcode: v.opcode(),
            has_imm: v.has_imm(),
            is_receive: v.is_receive(),
            has_timestamp: v.has_timestamp(),
            flags_resv: v.flags() & CQE_FLAGS_RESERVED_MASK,
            resv1: v.resv1(),
            qpn: v.qpn(),
            qpn_resv: v.qpn_resv(),
            byte_len: v.byte_len(),
            imm: v.imm(),
            msn: v.msn(),
            resv2: v.resv2(),
            phase: v.phase(),
            owner_resv: v.owner() & CQE_OWNER_RESERVED_MASK,
            timestamp: v.timestamp(),
        }
    }

    /// Bytes in memory.
    pub const fn buffer_len(&self) -> usize {
        COMPLETION_LEN
    }

    /// Writes the entry into the start of `buf`. Never panics.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Completion, buf, COMPLETION_LEN)?;
        if self.flags_resv & !CQE_FLAGS_RESERVED_MASK != 0 {
            return Err(EmitError::FieldOutOfRange {
                header: Header::Completion,
                field: "flags_resv",
                value: self.flags_resv.into(),
                max: CQE_FLAGS_RESERVED_MASK.into(),
            });
        }
        if self.owner_resv & !CQE_OWNER_RESERVED_MASK != 0 {
            return Err(EmitError::FieldOutOfRange {
                header: Header::Completion,
                field: "owner_resv",
                value: self.owner_resv.into(),
                max: CQE_OWNER_RESERVED_MASK.into(),
            });
        }
        self.write(&mut Completion::new_unchecked(&mut buf[..COMPLETION_LEN]));
        Ok(COMPLETION_LEN)
    }

    /// The entry as the 32 bytes a device writes. Never fails: [`CompletionRepr::emit`]
    /// refuses only a short buffer and reserved fields with bits outside their masks, and
    /// here the buffer is the entry's size and only the masks' bits are written.
    pub fn to_bytes(&self) -> [u8; COMPLETION_LEN] {
        let mut bytes = [0u8; COMPLETION_LEN];
        self.write(&mut Completion::new_unchecked(&mut bytes[..]));
        bytes
    }

    /// Writes every field through the view, the owner byte last.
    fn write(&self, v: &mut Completion<&mut [u8]>) {
        v.set_wr_id(self.wr_id);
        v.set_status(self.status);
        v.set_opcode(self.opcode);
        v.set_flags(self.has_imm, self.is_receive, self.has_timestamp, self.flags_resv);
        v.set_resv1(self.resv1);
        v.set_qpn(self.qpn, self.qpn_resv);
        v.set_byte_len(self.byte_len);
        v.set_imm(self.imm);
        v.set_msn(self.msn);
        v.set_resv2(self.resv2);
        v.set_timestamp(self.timestamp);
        // The owner byte last, as a device writes it.
        v.set_owner(self.phase, self.owner_resv);
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &[
        "CQE-STATUS-001",
        "CQE-OPCODE-001",
        "CQE-RESV-001",
        "CQE-IMM-001",
        "CQE-IMM-002",
        "CQE-TS-001",
        "CQE-SEND-002",
        "CQE-REJECT-001",
        "CQE-RECV-001",
    ];

    /// Semantic checks of one entry (`base` is its offset in the buffer checked).
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let v = |requirement, field, at: usize, value: u64, rule| Violation {
            requirement,
            header: Header::Completion,
            field,
            offset: Some(base + at),
            value,
            rule,
        };
        if !self.status.is_known() {
            out.push(v(
                "CQE-STATUS-001",
                "status",
                field::STATUS,
                self.status.0.into(),
                "status must be a defined completion status",
            ));
        }
        if !self.opcode.is_known() && self.opcode != WrOpcode::NONE {
            out.push(v(
                "CQE-OPCODE-001",
                "opcode",
                field::OPCODE,
                self.opcode.0.into(),
                "opcode must be WRITE, WRITE_WITH_IMM or NONE",
            ));
        }
        if self.opcode == WrOpcode::NONE
            && !matches!(
                self.status,
                CompletionStatus::BAD_VERSION | CompletionStatus::UNKNOWN_TEMPLATE
            )
        {
            out.push(v(
                "CQE-OPCODE-001",
                "opcode",
                field::OPCODE,
                self.opcode.0.into(),
                "opcode NONE is used only when a rejected token named no usable template",
            ));
        }
        for (field, at, value) in [
            ("flags_resv", field::FLAGS, self.flags_resv),
            ("resv1", field::RESV1, self.resv1),
            ("qpn_resv", field::QPN_RESV, self.qpn_resv),
            ("resv2", field::RESV2, self.resv2),
            ("owner_resv", field::OWNER, self.owner_resv),
        ] {
            if value != 0 {
                out.push(v("CQE-RESV-001", field, at, value.into(), "reserved bits must be 0"));
            }
        }
        if !self.has_imm && self.imm != 0 {
            out.push(v(
                "CQE-IMM-001",
                "imm",
                field::IMM,
                self.imm.into(),
                "imm must be 0 when has_imm is clear",
            ));
        }
        if self.has_imm && !(self.is_receive && self.opcode == WrOpcode::WRITE_WITH_IMM) {
            out.push(v(
                "CQE-IMM-002",
                "has_imm",
                field::FLAGS,
                1,
                "only a receive completion of a Write-with-Immediate carries an immediate",
            ));
        }
        if !self.has_timestamp && self.timestamp != 0 {
            out.push(v(
                "CQE-TS-001",
                "timestamp",
                field::TIMESTAMP,
                self.timestamp.into(),
                "timestamp must be 0 when has_timestamp is clear",
            ));
        }
        if !self.status.is_success() && self.byte_len != 0 {
            out.push(v(
                if self.status.is_doorbell_reject() { "CQE-REJECT-001" } else { "CQE-SEND-002" },
                "byte_len",
                field::BYTE_LEN,
                self.byte_len.into(),
                "an error completion reports byte_len 0",
            ));
        }
        if self.status.is_doorbell_reject() && self.msn != Msn::ZERO {
            out.push(v(
                "CQE-REJECT-001",
                "msn",
                field::MSN,
                self.msn.value().into(),
                "a rejected token has no message: msn must be 0",
            ));
        }
        if self.is_receive {
            if !self.status.is_success() {
                out.push(v(
                    "CQE-RECV-001",
                    "status",
                    field::STATUS,
                    self.status.0.into(),
                    "a receive completion is written only for a retired message: SUCCESS",
                ));
            }
            if self.opcode != WrOpcode::WRITE_WITH_IMM || !self.has_imm {
                out.push(v(
                    "CQE-RECV-001",
                    "opcode",
                    field::OPCODE,
                    self.opcode.0.into(),
                    "a receive completion is written only for a Write-with-Immediate",
                ));
            }
            if self.wr_id != 0 {
                out.push(v(
                    "CQE-RECV-001",
                    "wr_id",
                    field::WR_ID,
                    self.wr_id,
                    "a receive completion has wr_id 0",
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests;
