//! Base Transport Header, 12 bytes (requirements `BTH-*`).
//!
//! ```text
//!  byte 0   opcode
//!  byte 1   SE(7) MigReq(6) PadCnt(5:4) TVer(3:0)
//!  byte 2-3 P_Key
//!  byte 4   FECN(7) BECN(6) reserved(5:0)          -- reserved as a whole in MRC
//!  byte 5-7 destination QP
//!  byte 8   AckReq(7) reserved(6) rtx(5) ts(4) reserved(3:0)   -- MRC's reading of byte 8
//!  byte 9-11 PSN
//! ```
//!
//! The view's accessors never panic once [`Bth::new_checked`] (or [`Bth::check_len`])
//! has succeeded; `new_unchecked` followed by an accessor on a short buffer panics.

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};
use crate::field::{set_u16, set_u24, u16_at, u24_at};
use crate::{Opcode, Psn, Qpn};

/// Length of the BTH in bytes.
pub const BTH_LEN: usize = 12;

mod field {
    pub(super) const OPCODE: usize = 0;
    pub(super) const FLAGS: usize = 1;
    pub(super) const PKEY: usize = 2;
    pub(super) const BYTE4: usize = 4;
    pub(super) const DEST_QP: usize = 5;
    pub(super) const BYTE8: usize = 8;
    pub(super) const PSN: usize = 9;
}

/// Bits of byte 8 that MRC leaves reserved: bit 6 and bits 3:0.
pub const BYTE8_RESERVED_MASK: u8 = 0x4F;

/// A zero-copy view of a BTH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Bth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Bth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole BTH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole BTH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        if have < BTH_LEN {
            // Name the first field that does not fit.
            let (name, at) = match have {
                0 => ("opcode", 0),
                1 => ("flags", 1),
                2..=3 => ("pkey", 2),
                4 => ("fecn_becn", 4),
                5..=7 => ("dest_qp", 5),
                8 => ("ack_req", 8),
                _ => ("psn", 9),
            };
            let need = match name {
                "pkey" => 2,
                "dest_qp" | "psn" => 3,
                _ => 1,
            };
            return Err(DecodeError::truncated(Header::Bth, name, at, need, have - at));
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Opcode.
    pub fn opcode(&self) -> Opcode {
        Opcode(self.buffer.as_ref()[field::OPCODE])
    }
    /// Solicited event (SE).
    pub fn solicited(&self) -> bool {
        self.buffer.as_ref()[field::FLAGS] & 0x80 != 0
    }
    /// Migration request (MigReq).
    pub fn mig_req(&self) -> bool {
        self.buffer.as_ref()[field::FLAGS] & 0x40 != 0
    }
    /// Pad count, 0 to 3.
    pub fn pad_count(&self) -> u8 {
        (self.buffer.as_ref()[field::FLAGS] >> 4) & 0x3
    }
    /// Transport header version.
    pub fn tver(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS] & 0x0F
    }
    /// Partition key.
    pub fn pkey(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::PKEY)
    }
    /// FECN.
    pub fn fecn(&self) -> bool {
        self.buffer.as_ref()[field::BYTE4] & 0x80 != 0
    }
    /// BECN.
    pub fn becn(&self) -> bool {
        self.buffer.as_ref()[field::BYTE4] & 0x40 != 0
    }
    /// The six reserved bits of byte 4.
    pub fn resv6(&self) -> u8 {
        self.buffer.as_ref()[field::BYTE4] & 0x3F
    }
    /// Destination QP.
    pub fn dest_qp(&self) -> Qpn {
        Qpn::new(u24_at(self.buffer.as_ref(), field::DEST_QP))
    }
    /// Acknowledge request (AckReq, MRC's A bit).
    pub fn ack_req(&self) -> bool {
        self.buffer.as_ref()[field::BYTE8] & 0x80 != 0
    }
    /// MRC `rtx`: the packet is a retransmission.
    pub fn rtx(&self) -> bool {
        self.buffer.as_ref()[field::BYTE8] & 0x20 != 0
    }
    /// MRC `ts`: a TSETH follows the METH.
    pub fn ts(&self) -> bool {
        self.buffer.as_ref()[field::BYTE8] & 0x10 != 0
    }
    /// Reserved bits of byte 8 (bit 6 and bits 3:0), in place.
    pub fn resv8(&self) -> u8 {
        self.buffer.as_ref()[field::BYTE8] & BYTE8_RESERVED_MASK
    }
    /// Packet sequence number.
    pub fn psn(&self) -> Psn {
        Psn::new(u24_at(self.buffer.as_ref(), field::PSN))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Bth<T> {
    /// Sets the opcode.
    pub fn set_opcode(&mut self, v: Opcode) {
        self.buffer.as_mut()[field::OPCODE] = v.0;
    }
    /// Sets byte 1 from its parts. `pad_count` and `tver` are masked to their bits.
    pub fn set_flags(&mut self, solicited: bool, mig_req: bool, pad_count: u8, tver: u8) {
        self.buffer.as_mut()[field::FLAGS] = (u8::from(solicited) << 7)
            | (u8::from(mig_req) << 6)
            | ((pad_count & 0x3) << 4)
            | (tver & 0x0F);
    }
    /// Sets the partition key.
    pub fn set_pkey(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::PKEY, v);
    }
    /// Sets byte 4 from its parts; `resv6` is masked to 6 bits.
    pub fn set_byte4(&mut self, fecn: bool, becn: bool, resv6: u8) {
        self.buffer.as_mut()[field::BYTE4] =
            (u8::from(fecn) << 7) | (u8::from(becn) << 6) | (resv6 & 0x3F);
    }
    /// Sets the destination QP.
    pub fn set_dest_qp(&mut self, v: Qpn) {
        set_u24(self.buffer.as_mut(), field::DEST_QP, v.value());
    }
    /// Sets byte 8 from its parts; `resv8` is masked to the reserved bit positions.
    pub fn set_byte8(&mut self, ack_req: bool, rtx: bool, ts: bool, resv8: u8) {
        self.buffer.as_mut()[field::BYTE8] = (u8::from(ack_req) << 7)
            | (u8::from(rtx) << 5)
            | (u8::from(ts) << 4)
            | (resv8 & BYTE8_RESERVED_MASK);
    }
    /// Sets only the `rtx` bit, leaving the rest of byte 8 alone.
    pub fn set_rtx(&mut self, rtx: bool) {
        let b = &mut self.buffer.as_mut()[field::BYTE8];
        *b = (*b & !0x20) | (u8::from(rtx) << 5);
    }
    /// Sets the PSN.
    pub fn set_psn(&mut self, v: Psn) {
        set_u24(self.buffer.as_mut(), field::PSN, v.value());
    }
}

/// An owned, decoded BTH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct BthRepr {
    /// Opcode (byte 0).
    pub opcode: Opcode,
    /// Solicited event.
    pub solicited: bool,
    /// Migration request.
    pub mig_req: bool,
    /// Pad count, 0 to 3: bytes of pad between payload and ICRC.
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits2))]
    pub pad_count: u8,
    /// Transport header version, 4 bits; must be 0 (`BTH-TVER-001`).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits4))]
    pub tver: u8,
    /// Partition key.
    pub pkey: u16,
    /// Forward ECN.
    pub fecn: bool,
    /// Backward ECN.
    pub becn: bool,
    /// Reserved bits 5:0 of byte 4.
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits6))]
    pub resv6: u8,
    /// Destination QP.
    pub dest_qp: Qpn,
    /// Acknowledge request.
    pub ack_req: bool,
    /// MRC: this packet is a retransmission.
    pub rtx: bool,
    /// MRC: a TSETH is present.
    pub ts: bool,
    /// Reserved bits of byte 8 in their positions (mask [`BYTE8_RESERVED_MASK`]).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = arb_resv8))]
    pub resv8: u8,
    /// Packet sequence number.
    pub psn: Psn,
}

#[cfg(feature = "arbitrary")]
fn arb_resv8(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<u8> {
    Ok(<u8 as arbitrary::Arbitrary<'_>>::arbitrary(u)? & BYTE8_RESERVED_MASK)
}

/// The default partition key.
pub const DEFAULT_PKEY: u16 = 0xFFFF;

impl BthRepr {
    /// A BTH with the given opcode, destination QP and PSN and every other field at its
    /// default (P_Key 0xFFFF, everything else zero).
    pub const fn new(opcode: Opcode, dest_qp: Qpn, psn: Psn) -> Self {
        BthRepr {
            opcode,
            solicited: false,
            mig_req: false,
            pad_count: 0,
            tver: 0,
            pkey: DEFAULT_PKEY,
            fecn: false,
            becn: false,
            resv6: 0,
            dest_qp,
            ack_req: false,
            rtx: false,
            ts: false,
            resv8: 0,
            psn,
        }
    }

    /// Decodes a BTH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        // A whole header is read from a fixed-size view, whose accessors need no bounds
        // check; a short one goes through the check that names the field it ends in.
        if let Some(b) = buf.first_chunk::<BTH_LEN>() {
            return Ok(Self::from_view(&Bth::new_unchecked(b)));
        }
        Ok(Self::from_view(&Bth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Bth<T>) -> Self {
        BthRepr {
            opcode: v.opcode(),
            solicited: v.solicited(),
            mig_req: v.mig_req(),
            pad_count: v.pad_count(),
            tver: v.tver(),
            pkey: v.pkey(),
            fecn: v.fecn(),
            becn: v.becn(),
            resv6: v.resv6(),
            dest_qp: v.dest_qp(),
            ack_req: v.ack_req(),
            rtx: v.rtx(),
            ts: v.ts(),
            resv8: v.resv8(),
            psn: v.psn(),
        }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        BTH_LEN
    }

    /// Writes the BTH into the start of `buf`. Never panics: a short buffer or a field
    /// that does not fit its bits is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Bth, buf, BTH_LEN)?;
        check_range(Header::Bth, "pad_count", self.pad_count.into(), 3)?;
        check_range(Header::Bth, "tver", self.tver.into(), 0xF)?;
        check_range(Header::Bth, "resv6", self.resv6.into(), 0x3F)?;
        if self.resv8 & !BYTE8_RESERVED_MASK != 0 {
            return Err(EmitError::FieldOutOfRange {
                header: Header::Bth,
                field: "resv8",
                value: self.resv8.into(),
                max: BYTE8_RESERVED_MASK.into(),
            });
        }
        let mut v = Bth::new_unchecked(&mut buf[..BTH_LEN]);
        v.set_opcode(self.opcode);
        v.set_flags(self.solicited, self.mig_req, self.pad_count, self.tver);
        v.set_pkey(self.pkey);
        v.set_byte4(self.fecn, self.becn, self.resv6);
        v.set_dest_qp(self.dest_qp);
        v.set_byte8(self.ack_req, self.rtx, self.ts, self.resv8);
        v.set_psn(self.psn);
        Ok(BTH_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] =
        &["BTH-TVER-001", "BTH-RESV-001", "BTH-RESV-002", "BTH-RESV-003"];

    /// The requirements [`Self::validate`] checks on a BTH with this opcode: byte 4 is
    /// judged by `BTH-RESV-002` under an MRC opcode and by `BTH-RESV-001` under any other,
    /// so only one of the two applies.
    pub fn rules(&self) -> &'static [&'static str] {
        if self.opcode.is_mrc() {
            &["BTH-TVER-001", "BTH-RESV-002", "BTH-RESV-003"]
        } else {
            &["BTH-TVER-001", "BTH-RESV-001", "BTH-RESV-003"]
        }
    }

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    /// Checks that need the opcode's whole packet live in the frame's `validate()`.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let v = |requirement, field, at: usize, value: u64, rule| Violation {
            requirement,
            header: Header::Bth,
            field,
            offset: Some(base + at),
            value,
            rule,
        };
        if self.tver != 0 {
            out.push(v("BTH-TVER-001", "tver", 1, self.tver.into(), "TVer must be 0"));
        }
        let mrc = self.opcode.is_mrc();
        if mrc {
            let b4 = (u8::from(self.fecn) << 7) | (u8::from(self.becn) << 6) | self.resv6;
            if b4 != 0 {
                out.push(v(
                    "BTH-RESV-002",
                    "fecn_becn",
                    4,
                    b4.into(),
                    "byte 4 is reserved in MRC and must be 0",
                ));
            }
        } else if self.resv6 != 0 {
            out.push(v(
                "BTH-RESV-001",
                "resv6",
                4,
                self.resv6.into(),
                "reserved bits of byte 4 must be 0",
            ));
        }
        if self.resv8 != 0 {
            out.push(v(
                "BTH-RESV-003",
                "resv8",
                8,
                self.resv8.into(),
                "reserved bits of byte 8 must be 0",
            ));
        }
        if !mrc && (self.rtx || self.ts) {
            out.push(v(
                "BTH-RESV-003",
                if self.rtx { "rtx" } else { "ts" },
                8,
                1,
                "rtx and ts are defined only for MRC opcodes; elsewhere byte 8 bits 6:0 are reserved",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    // RC SEND_ONLY from the shared vector: opcode 0x04, P_Key 0xFFFF, dest QP 0x11,
    // AckReq, PSN 0x123456.
    const SEND_ONLY: [u8; 12] =
        [0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x80, 0x12, 0x34, 0x56];

    fn sample() -> BthRepr {
        BthRepr {
            ack_req: true,
            ..BthRepr::new(Opcode::RC_SEND_ONLY, Qpn::new(0x11), Psn::new(0x12_3456))
        }
    }

    #[test]
    fn deconstruct() {
        let v = Bth::new_checked(&SEND_ONLY[..]).unwrap();
        assert_eq!(v.opcode(), Opcode::RC_SEND_ONLY);
        assert_eq!(v.pkey(), 0xFFFF);
        assert_eq!(v.dest_qp(), Qpn::new(0x11));
        assert!(v.ack_req() && !v.rtx() && !v.ts());
        assert_eq!(v.psn(), Psn::new(0x12_3456));
    }

    #[test]
    fn construct() {
        let mut buf = [0u8; 12];
        let mut v = Bth::new_unchecked(&mut buf[..]);
        v.set_opcode(Opcode::RC_SEND_ONLY);
        v.set_flags(false, false, 0, 0);
        v.set_pkey(0xFFFF);
        v.set_byte4(false, false, 0);
        v.set_dest_qp(Qpn::new(0x11));
        v.set_byte8(true, false, false, 0);
        v.set_psn(Psn::new(0x12_3456));
        assert_eq!(buf, SEND_ONLY);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(BthRepr::parse(&SEND_ONLY).unwrap(), sample());
        let mut buf = [0u8; 12];
        assert_eq!(sample().emit(&mut buf), Ok(12));
        assert_eq!(buf, SEND_ONLY);
    }

    #[test]
    fn mrc_byte8_bits() {
        let r = BthRepr {
            rtx: true,
            ts: true,
            resv8: 0x41,
            ..BthRepr::new(Opcode::MRC_WRITE_ONLY, Qpn::new(7), Psn::ZERO)
        };
        let mut buf = [0u8; 12];
        r.emit(&mut buf).unwrap();
        assert_eq!(buf[8], 0x20 | 0x10 | 0x41);
        assert_eq!(BthRepr::parse(&buf).unwrap(), r);
    }

    #[test]
    fn truncation_names_field_and_offset() {
        let e = BthRepr::parse(&SEND_ONLY[..10]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Bth, "psn", 9, 3, 1));
        assert_eq!(format!("{e}"), "BTH.psn truncated at byte 9: need 3, have 1");
        let e = BthRepr::parse(&[]).unwrap_err();
        assert_eq!(e.field, "opcode");
    }

    #[test]
    fn emit_never_panics() {
        let mut small = [0u8; 11];
        assert!(matches!(sample().emit(&mut small), Err(EmitError::BufferTooShort { .. })));
        let bad = BthRepr { pad_count: 4, ..sample() };
        assert!(matches!(
            bad.emit(&mut [0u8; 12]),
            Err(EmitError::FieldOutOfRange { field: "pad_count", .. })
        ));
    }

    #[test]
    fn validate_flags_reserved_and_tver() {
        let mut out = alloc::vec::Vec::new();
        sample().validate(0, &mut out);
        assert!(out.is_empty());
        let r = BthRepr {
            tver: 1,
            resv8: 1,
            becn: true,
            ..BthRepr::new(Opcode::MRC_WRITE_ONLY, Qpn::new(1), Psn::ZERO)
        };
        r.validate(42, &mut out);
        let ids: alloc::vec::Vec<_> = out.iter().map(|v| v.requirement).collect();
        assert_eq!(ids, ["BTH-TVER-001", "BTH-RESV-002", "BTH-RESV-003"]);
        assert_eq!(out[0].offset, Some(43));
    }
}
