//! Work request, and its 64-byte little-endian memory layout (requirements `WR-*`; layout
//! `WR-LAYOUT-001`).
//!
//! A [`WorkRequest`] is what the NIC executes: the expansion of a doorbell token by its
//! template ([`crate::host::Template::expand`]). The 64-byte layout below is what a
//! CPU-built work queue entry (WQE) carrying the same request would be. OpenRDMA never
//! moves it over PCIe on the GPU path; it exists to give the request a canonical byte form
//! (traces, golden files) and to measure what a token saves: 8 bytes per submission
//! against 64.
//!
//! ```text
//!  byte 0-7   wr_id      u64
//!  byte 8     opcode     u8    0x00 WRITE, 0x01 WRITE_WITH_IMM
//!  byte 9     flags      u8    bit0 signaled, bit1 has_imm, bits 7:2 reserved
//!  byte 10-11 reserved
//!  byte 12-15 qpn        u32   bits 23:0 QPN, bits 31:24 (byte 15) reserved
//!  byte 16-23 local_va   u64
//!  byte 24-27 lkey       u32
//!  byte 28-31 length     u32
//!  byte 32-39 remote_va  u64
//!  byte 40-43 rkey       u32
//!  byte 44-47 imm        u32   valid when has_imm
//!  byte 48-51 flag_slot  u32
//!  byte 52-63 reserved
//! ```
//!
//! Unlike the completion entry, [`WorkRequest`] does not keep reserved bytes: the WQE is an
//! input a NIC consumes, not a device output a checker must reproduce. A WQE's reserved
//! bytes are checked on the view, by [`Wqe::validate_reserved`].

use core::fmt;

use super::{le_u32, le_u64, set_le_u32, set_le_u64};
use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer};
use crate::{Lkey, Qpn, Rkey};

/// Length of a work queue entry in bytes.
pub const WQE_LEN: usize = 64;

/// The largest message length, 2^31 bytes (the limit of an RDMA message).
pub const MAX_MESSAGE_LEN: u32 = 1 << 31;

mod field {
    pub(super) const WR_ID: usize = 0;
    pub(super) const OPCODE: usize = 8;
    pub(super) const FLAGS: usize = 9;
    pub(super) const RESV_A: usize = 10;
    pub(super) const QPN: usize = 12;
    pub(super) const QPN_RESV: usize = 15;
    pub(super) const LOCAL_VA: usize = 16;
    pub(super) const LKEY: usize = 24;
    pub(super) const LENGTH: usize = 28;
    pub(super) const REMOTE_VA: usize = 32;
    pub(super) const RKEY: usize = 40;
    pub(super) const IMM: usize = 44;
    pub(super) const FLAG_SLOT: usize = 48;
    pub(super) const RESV_B: usize = 52;
}

/// `flags` bit 0: the request is signaled.
pub const WQE_FLAG_SIGNALED: u8 = 0x01;
/// `flags` bit 1: the request carries an immediate.
pub const WQE_FLAG_HAS_IMM: u8 = 0x02;
/// Reserved bits of the WQE `flags` byte (7:2).
pub const WQE_FLAGS_RESERVED_MASK: u8 = 0xFC;

/// The operation of a work request or completion (requirement `WR-OPCODE-001`).
///
/// Lossless newtype over the byte. The codes follow the verbs numbering of
/// `IBV_WR_RDMA_WRITE` (0) and `IBV_WR_RDMA_WRITE_WITH_IMM` (1); MRC carries no other
/// operation. [`WrOpcode::NONE`] appears only in the completion of a token that named no
/// usable template.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct WrOpcode(pub u8);

impl WrOpcode {
    /// RDMA Write.
    pub const WRITE: WrOpcode = WrOpcode(0x00);
    /// RDMA Write with Immediate.
    pub const WRITE_WITH_IMM: WrOpcode = WrOpcode(0x01);
    /// No operation: a completion of a token whose template is unknown.
    pub const NONE: WrOpcode = WrOpcode(0xFF);

    /// Whether this is WRITE or WRITE_WITH_IMM.
    pub const fn is_known(self) -> bool {
        matches!(self.0, 0x00 | 0x01)
    }

    /// The name the specification uses, or `None` for an undefined code.
    pub const fn name(self) -> Option<&'static str> {
        match self.0 {
            0x00 => Some("WRITE"),
            0x01 => Some("WRITE_WITH_IMM"),
            0xFF => Some("NONE"),
            _ => None,
        }
    }
}

impl fmt::Debug for WrOpcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "WrOpcode::{n}"),
            None => write!(f, "WrOpcode({:#04x})", self.0),
        }
    }
}

impl fmt::Display for WrOpcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "UNKNOWN({:#04x})", self.0),
        }
    }
}

/// A zero-copy view of a 64-byte WQE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wqe<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Wqe<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Wqe { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole WQE.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole WQE.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        if have < WQE_LEN {
            return Err(super::truncated(
                Header::WorkRequest,
                &[
                    ("wr_id", field::WR_ID, 8),
                    ("opcode", field::OPCODE, 1),
                    ("flags", field::FLAGS, 1),
                    ("resv_a", field::RESV_A, 2),
                    ("qpn", field::QPN, 4),
                    ("local_va", field::LOCAL_VA, 8),
                    ("lkey", field::LKEY, 4),
                    ("length", field::LENGTH, 4),
                    ("remote_va", field::REMOTE_VA, 8),
                    ("rkey", field::RKEY, 4),
                    ("imm", field::IMM, 4),
                    ("flag_slot", field::FLAG_SLOT, 4),
                    ("resv_b", field::RESV_B, 12),
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
    /// Opcode.
    pub fn opcode(&self) -> WrOpcode {
        WrOpcode(self.buffer.as_ref()[field::OPCODE])
    }
    /// The whole flags byte.
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS]
    }
    /// Flags bit 0: signaled.
    pub fn signaled(&self) -> bool {
        self.flags() & WQE_FLAG_SIGNALED != 0
    }
    /// Flags bit 1: an immediate is present.
    pub fn has_imm(&self) -> bool {
        self.flags() & WQE_FLAG_HAS_IMM != 0
    }
    /// Queue pair number.
    pub fn qpn(&self) -> Qpn {
        Qpn::new(le_u32(self.buffer.as_ref(), field::QPN))
    }
    /// Local virtual address.
    pub fn local_va(&self) -> u64 {
        le_u64(self.buffer.as_ref(), field::LOCAL_VA)
    }
    /// Local key.
    pub fn lkey(&self) -> Lkey {
        Lkey::new(le_u32(self.buffer.as_ref(), field::LKEY))
    }
    /// Message length in bytes.
    pub fn length(&self) -> u32 {
        le_u32(self.buffer.as_ref(), field::LENGTH)
    }
    /// Remote virtual address.
    pub fn remote_va(&self) -> u64 {
        le_u64(self.buffer.as_ref(), field::REMOTE_VA)
    }
    /// Remote key.
    pub fn rkey(&self) -> Rkey {
        Rkey::new(le_u32(self.buffer.as_ref(), field::RKEY))
    }
    /// Immediate data, as an integer (meaningful only with `has_imm`).
    pub fn imm(&self) -> u32 {
        le_u32(self.buffer.as_ref(), field::IMM)
    }
    /// Completion flag slot.
    pub fn flag_slot(&self) -> u32 {
        le_u32(self.buffer.as_ref(), field::FLAG_SLOT)
    }

    /// Reports reserved bits that are not zero, and an immediate without `has_imm`
    /// (`WR-RESV-001`, `WR-IMM-001`). `base` is the WQE's offset in the buffer checked.
    pub fn validate_reserved(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let b = self.buffer.as_ref();
        let mut push = |requirement, field, at: usize, value: u64, rule| {
            out.push(Violation {
                requirement,
                header: Header::WorkRequest,
                field,
                offset: Some(base + at),
                value,
                rule,
            });
        };
        let flags_resv = self.flags() & WQE_FLAGS_RESERVED_MASK;
        if flags_resv != 0 {
            push(
                "WR-RESV-001",
                "flags",
                field::FLAGS,
                flags_resv.into(),
                "reserved bits must be 0",
            );
        }
        let resv_a = super::le_u16(b, field::RESV_A);
        if resv_a != 0 {
            push("WR-RESV-001", "resv_a", field::RESV_A, resv_a.into(), "reserved bits must be 0");
        }
        if b[field::QPN_RESV] != 0 {
            let value = b[field::QPN_RESV].into();
            push("WR-RESV-001", "qpn_resv", field::QPN_RESV, value, "reserved bits must be 0");
        }
        if let Some(i) = b[field::RESV_B..WQE_LEN].iter().position(|&x| x != 0) {
            let at = field::RESV_B + i;
            push("WR-RESV-001", "resv_b", at, b[at].into(), "reserved bytes must be 0");
        }
        if !self.has_imm() && self.imm() != 0 {
            push(
                "WR-IMM-001",
                "imm",
                field::IMM,
                self.imm().into(),
                "imm must be 0 without has_imm",
            );
        }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Wqe<T> {
    /// Sets the work request ID.
    pub fn set_wr_id(&mut self, v: u64) {
        set_le_u64(self.buffer.as_mut(), field::WR_ID, v);
    }
    /// Sets the opcode.
    pub fn set_opcode(&mut self, v: WrOpcode) {
        self.buffer.as_mut()[field::OPCODE] = v.0;
    }
    /// Sets the flags byte; reserved bits become 0.
    pub fn set_flags(&mut self, signaled: bool, has_imm: bool) {
        self.buffer.as_mut()[field::FLAGS] = u8::from(signaled) | (u8::from(has_imm) << 1);
    }
    /// Sets the QPN; the reserved byte 15 becomes 0.
    pub fn set_qpn(&mut self, v: Qpn) {
        set_le_u32(self.buffer.as_mut(), field::QPN, v.value());
    }
    /// Sets the local virtual address.
    pub fn set_local_va(&mut self, v: u64) {
        set_le_u64(self.buffer.as_mut(), field::LOCAL_VA, v);
    }
    /// Sets the local key.
    pub fn set_lkey(&mut self, v: Lkey) {
        set_le_u32(self.buffer.as_mut(), field::LKEY, v.value());
    }
    /// Sets the length.
    pub fn set_length(&mut self, v: u32) {
        set_le_u32(self.buffer.as_mut(), field::LENGTH, v);
    }
    /// Sets the remote virtual address.
    pub fn set_remote_va(&mut self, v: u64) {
        set_le_u64(self.buffer.as_mut(), field::REMOTE_VA, v);
    }
    /// Sets the remote key.
    pub fn set_rkey(&mut self, v: Rkey) {
        set_le_u32(self.buffer.as_mut(), field::RKEY, v.value());
    }
    /// Sets the immediate.
    pub fn set_imm(&mut self, v: u32) {
        set_le_u32(self.buffer.as_mut(), field::IMM, v);
    }
    /// Sets the completion flag slot.
    pub fn set_flag_slot(&mut self, v: u32) {
        set_le_u32(self.buffer.as_mut(), field::FLAG_SLOT, v);
    }
    /// Sets every reserved byte to 0.
    pub fn clear_reserved(&mut self) {
        let b = self.buffer.as_mut();
        b[field::RESV_A..field::RESV_A + 2].fill(0);
        b[field::QPN_RESV] = 0;
        b[field::RESV_B..WQE_LEN].fill(0);
    }
}

/// A work request: one RDMA Write or Write-with-Immediate, as the NIC executes it
/// (`WR-EXEC-001`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct WorkRequest {
    /// Work request ID. For a request expanded from a doorbell token it is the token's
    /// 64-bit value (`TPL-EXPAND-007`), so a completion names the doorbell it answers.
    pub wr_id: u64,
    /// Queue pair that sends the message.
    pub qpn: Qpn,
    /// WRITE or WRITE_WITH_IMM.
    pub opcode: WrOpcode,
    /// Address of the first payload byte in local (GPU) memory.
    pub local_va: u64,
    /// Local key of the registered region holding the payload.
    pub lkey: Lkey,
    /// Address of the first byte written at the remote end.
    pub remote_va: u64,
    /// Remote key.
    pub rkey: Rkey,
    /// Message length in bytes, at most 2^31 (`WR-LEN-001`).
    pub length: u32,
    /// Immediate data: present exactly for WRITE_WITH_IMM (`WR-IMM-001`).
    pub imm: Option<u32>,
    /// Slot of the sender's completion flag (`FLAG-SEND-001`).
    pub flag_slot: u32,
    /// Whether success also writes a completion entry (`WR-SIGNALED-001`).
    pub signaled: bool,
}

impl WorkRequest {
    /// Decodes a WQE from the start of `buf`. Reserved bytes are not kept (see the module
    /// documentation); the immediate is read only when `has_imm` is set.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Wqe::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    pub fn from_view<T: AsRef<[u8]>>(v: &Wqe<T>) -> Self {
        WorkRequest {
            wr_id: v.wr_id(),
            qpn: v.qpn(),
            opcode: v.opcode(),
            local_va: v.local_va(),
            lkey: v.lkey(),
            remote_va: v.remote_va(),
            rkey: v.rkey(),
            length: v.length(),
            imm: if v.has_imm() { Some(v.imm()) } else { None },
            flag_slot: v.flag_slot(),
            signaled: v.signaled(),
        }
    }

    /// Bytes in memory.
    pub const fn buffer_len(&self) -> usize {
        WQE_LEN
    }

    /// Writes the WQE into the start of `buf`, reserved bytes zero. Never panics.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::WorkRequest, buf, WQE_LEN)?;
        let mut v = Wqe::new_unchecked(&mut buf[..WQE_LEN]);
        v.clear_reserved();
        v.set_wr_id(self.wr_id);
        v.set_opcode(self.opcode);
        v.set_flags(self.signaled, self.imm.is_some());
        v.set_qpn(self.qpn);
        v.set_local_va(self.local_va);
        v.set_lkey(self.lkey);
        v.set_length(self.length);
        v.set_remote_va(self.remote_va);
        v.set_rkey(self.rkey);
        v.set_imm(self.imm.unwrap_or(0));
        v.set_flag_slot(self.flag_slot);
        Ok(WQE_LEN)
    }

    /// Semantic checks (`base` is the WQE's offset in the buffer checked).
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let v = |requirement, field, at: usize, value: u64, rule| Violation {
            requirement,
            header: Header::WorkRequest,
            field,
            offset: Some(base + at),
            value,
            rule,
        };
        if !self.opcode.is_known() {
            out.push(v(
                "WR-OPCODE-001",
                "opcode",
                field::OPCODE,
                self.opcode.0.into(),
                "opcode must be WRITE (0x00) or WRITE_WITH_IMM (0x01)",
            ));
        }
        if self.imm.is_some() != (self.opcode == WrOpcode::WRITE_WITH_IMM) {
            out.push(v(
                "WR-IMM-001",
                "has_imm",
                field::FLAGS,
                self.imm.is_some().into(),
                "an immediate is present exactly when the opcode is WRITE_WITH_IMM",
            ));
        }
        if self.length > MAX_MESSAGE_LEN {
            out.push(v(
                "WR-LEN-001",
                "length",
                field::LENGTH,
                self.length.into(),
                "a message is at most 2^31 bytes",
            ));
        }
        if self.local_va.checked_add(self.length.into()).is_none() {
            out.push(v(
                "WR-VA-001",
                "local_va",
                field::LOCAL_VA,
                self.local_va,
                "local_va + length must not pass 2^64",
            ));
        }
        if self.remote_va.checked_add(self.length.into()).is_none() {
            out.push(v(
                "WR-VA-001",
                "remote_va",
                field::REMOTE_VA,
                self.remote_va,
                "remote_va + length must not pass 2^64",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    // The expansion of token 0x1005_0010_0003_0000 by the example template of the
    // specification (see template.rs): WRITE_WITH_IMM, signaled.
    const WQE: [u8; 64] = [
        0x00, 0x00, 0x03, 0x00, 0x10, 0x00, 0x05, 0x10, // wr_id
        0x01, 0x03, 0x00, 0x00, // opcode, flags (signaled | has_imm), resv
        0x23, 0x01, 0x00, 0x00, // qpn 0x123
        0x00, 0x30, 0x00, 0x00, 0x00, 0x7f, 0x00, 0x00, // local_va 0x7f00_0000_3000
        0x11, 0x11, 0x00, 0x00, // lkey 0x1111
        0x00, 0x10, 0x00, 0x00, // length 4096
        0x00, 0x30, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, // remote_va 0x2000_3000
        0x22, 0x22, 0x00, 0x00, // rkey 0x2222
        0x03, 0x00, 0x00, 0xab, // imm 0xab00_0003
        0x03, 0x01, 0x00, 0x00, // flag_slot 0x103
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];

    fn sample() -> WorkRequest {
        WorkRequest {
            wr_id: 0x1005_0010_0003_0000,
            qpn: Qpn::new(0x123),
            opcode: WrOpcode::WRITE_WITH_IMM,
            local_va: 0x7f00_0000_3000,
            lkey: Lkey::new(0x1111),
            remote_va: 0x2000_3000,
            rkey: Rkey::new(0x2222),
            length: 4096,
            imm: Some(0xab00_0003),
            flag_slot: 0x103,
            signaled: true,
        }
    }

    /// WR-LAYOUT-001: every field at its place in table 5, little-endian.
    #[test]
    fn deconstruct() {
        let v = Wqe::new_checked(&WQE[..]).unwrap();
        assert_eq!(v.wr_id(), 0x1005_0010_0003_0000);
        assert_eq!(v.opcode(), WrOpcode::WRITE_WITH_IMM);
        assert!(v.signaled() && v.has_imm());
        assert_eq!(v.qpn(), Qpn::new(0x123));
        assert_eq!(v.local_va(), 0x7f00_0000_3000);
        assert_eq!((v.lkey(), v.rkey()), (Lkey::new(0x1111), Rkey::new(0x2222)));
        assert_eq!(v.length(), 4096);
        assert_eq!(v.remote_va(), 0x2000_3000);
        assert_eq!(v.imm(), 0xab00_0003);
        assert_eq!(v.flag_slot(), 0x103);
    }

    /// WR-LAYOUT-001: the setters write table 5; WR-RESV-001: `clear_reserved` zeroes
    /// every reserved byte of a buffer that held others.
    #[test]
    fn construct() {
        let mut buf = [0x5Au8; 64];
        let mut v = Wqe::new_unchecked(&mut buf[..]);
        v.clear_reserved();
        v.set_wr_id(0x1005_0010_0003_0000);
        v.set_opcode(WrOpcode::WRITE_WITH_IMM);
        v.set_flags(true, true);
        v.set_qpn(Qpn::new(0x123));
        v.set_local_va(0x7f00_0000_3000);
        v.set_lkey(Lkey::new(0x1111));
        v.set_length(4096);
        v.set_remote_va(0x2000_3000);
        v.set_rkey(Rkey::new(0x2222));
        v.set_imm(0xab00_0003);
        v.set_flag_slot(0x103);
        assert_eq!(buf, WQE);
    }

    /// WR-LAYOUT-001: parse and emit agree with table 5; WR-RESV-001: a writer sets the
    /// reserved bits to 0, whatever the buffer held.
    #[test]
    fn parse_and_emit() {
        assert_eq!(WorkRequest::parse(&WQE).unwrap(), sample());
        let mut buf = [0xFFu8; 64];
        assert_eq!(sample().emit(&mut buf), Ok(64));
        assert_eq!(buf, WQE);
        let mut out = Vec::new();
        sample().validate(0, &mut out);
        Wqe::new_checked(&WQE[..]).unwrap().validate_reserved(0, &mut out);
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn truncation_names_field_and_offset() {
        let e = WorkRequest::parse(&WQE[..35]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::WorkRequest, "remote_va", 32, 8, 3));
        assert_eq!(e.to_string(), "work request.remote_va truncated at byte 32: need 8, have 3");
        assert_eq!(WorkRequest::parse(&WQE[..63]).unwrap_err().field, "resv_b");
        assert_eq!(WorkRequest::parse(&[]).unwrap_err().field, "wr_id");
    }

    #[test]
    fn emit_never_panics() {
        assert!(matches!(
            sample().emit(&mut [0u8; 63]),
            Err(EmitError::BufferTooShort { need: 64, have: 63, .. })
        ));
    }

    #[test]
    fn validate_flags_each_rule() {
        let bad = WorkRequest {
            opcode: WrOpcode(7),
            length: MAX_MESSAGE_LEN + 1,
            local_va: u64::MAX,
            remote_va: u64::MAX - 10,
            ..sample()
        };
        let mut out = Vec::new();
        bad.validate(100, &mut out);
        let ids: Vec<_> = out.iter().map(|v| v.requirement).collect();
        assert_eq!(ids, ["WR-OPCODE-001", "WR-IMM-001", "WR-LEN-001", "WR-VA-001", "WR-VA-001"]);
        assert_eq!(out[0].offset, Some(108));

        let mut out = Vec::new();
        WorkRequest { imm: None, ..sample() }.validate(0, &mut out);
        assert_eq!(out[0].requirement, "WR-IMM-001");

        let mut raw = WQE;
        raw[9] |= 0x80;
        raw[11] = 1;
        raw[15] = 2;
        raw[60] = 3;
        // WR-RESV-001: a reader ignores the reserved bits (and validation reports them).
        assert_eq!(WorkRequest::parse(&raw).unwrap(), sample());
        let mut out = Vec::new();
        Wqe::new_checked(&raw[..]).unwrap().validate_reserved(0, &mut out);
        let fields: Vec<_> = out.iter().map(|v| (v.field, v.offset)).collect();
        assert_eq!(
            fields,
            [
                ("flags", Some(9)),
                ("resv_a", Some(10)),
                ("qpn_resv", Some(15)),
                ("resv_b", Some(60))
            ]
        );
        let mut raw = WQE;
        raw[9] = 0x01; // has_imm cleared, imm bytes left
        let mut out = Vec::new();
        Wqe::new_checked(&raw[..]).unwrap().validate_reserved(0, &mut out);
        assert_eq!(out[0].requirement, "WR-IMM-001");
        assert_eq!(WorkRequest::parse(&raw).unwrap().imm, None);
    }

    #[test]
    fn opcode_names() {
        assert_eq!(WrOpcode::WRITE.to_string(), "WRITE");
        assert_eq!(WrOpcode(0x42).to_string(), "UNKNOWN(0x42)");
        assert!(!WrOpcode::NONE.is_known());
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5751_4500);
        let mut raw = [0u8; 128];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = WorkRequest::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut out = [0u8; WQE_LEN];
            assert_eq!(r.emit(&mut out), Ok(WQE_LEN));
            assert_eq!(WorkRequest::parse(&out).unwrap(), r);
        }
    }
}
