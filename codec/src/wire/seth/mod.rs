//! MRC SACK Extended Transport Header, 28 bytes (requirements `SETH-*`), and the
//! CC_STATE that follows it, 8 bytes (requirements `CCS-*`).
//!
//! ```text
//! SETH
//!  byte 0     res_type(7:4) next_header(4:1)         -- next_header is 5 bits: its high 4
//!  byte 1     next_header(0)(7) m(6:5) resv1(4:2) pr(1) resv1(0)   -- bits here, its low bit
//!  byte 2-3   ack_psn_offset   signed: ACK_PSN = cack_psn + ack_psn_offset
//!  byte 4-7   entropy          the 32-bit path value reflected from the packet that
//!                              triggered this SACK
//!  byte 8-9   spdcid
//!  byte 10-11 dpdcid
//!  byte 12    resv12
//!  byte 13-15 cack_psn         cumulative: every PSN up to it was received
//!  byte 16    cc_type(7:4) cc_flags(3:0)
//!  byte 17    mpr              largest PSN range accepted beyond cack_psn, in units of 128
//!  byte 18-19 sack_offset      signed: bitmap base = cack_psn + sack_offset
//!  byte 20-27 sack_bitmap
//!
//! CC_STATE
//!  byte 0-1   tx_timestamp     reflected from the requester's TSETH
//!  byte 2-3   resv(15) ooo_count(14:0)
//!  byte 4     r_c(7) rcv_cwnd_pen(6:0)
//!  byte 5-7   rcvd_bytes       24 bits
//! ```
//!
//! `resv1` keeps the reserved bits of byte 1 in their positions (mask [`SETH_RESV1_MASK`]),
//! so that parse → emit is lossless. `m` is an [`EvMark`]: 0 none, 1 SKIP_ONCE,
//! 2 ALWAYS_SKIP, 3 reserved (`SETH-M-001`). spdcid and dpdcid are carried, not interpreted.
//!
//! # The SACK bitmap
//!
//! `sack_bitmap` is the big-endian 64-bit integer in bytes 20-27. Bit `i` — the value
//! `sack_bitmap >> i & 1`, so bit 0 is the least significant bit of byte 27 — says that
//! PSN `cack_psn + sack_offset + i` (modulo 2^24) was received (`SETH-BITMAP-001`). The
//! MRC specification's example: PSNs 0 to 11 sent, 5 and 8 lost, gives `cack_psn` 4,
//! `sack_offset` 1 and bitmap `0b111_0110` (PSN 5..=11 → 0,1,1,0,1,1,1).
//!
//! `mpr` counts units of 128 packets (`SETH-MPR-002`): [`SethRepr::mpr_packets`].
//!
//! The views' accessors never panic once `new_checked` (or `check_len`) has succeeded;
//! `new_unchecked` followed by an accessor on a short buffer panics.

use super::check_layout;
use core::fmt;

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};
use crate::field::{set_u16, set_u24, set_u32, set_u64, u16_at, u24_at, u32_at, u64_at};
use crate::{Ev, Psn};

/// Length of the SETH in bytes.
pub const SETH_LEN: usize = 28;
/// Length of the CC_STATE in bytes.
pub const CC_STATE_LEN: usize = 8;

/// Reserved bits of SETH byte 1, in place: bits 4:2 and bit 0.
pub const SETH_RESV1_MASK: u8 = 0x1D;
/// Packets per unit of `mpr` (`SETH-MPR-002`).
pub const SETH_MPR_UNIT: u32 = 128;
/// PSNs covered by the SACK bitmap.
pub const SACK_BITMAP_BITS: u32 = 64;

mod field {
    pub(super) const BYTE0: usize = 0;
    pub(super) const BYTE1: usize = 1;
    pub(super) const ACK_PSN_OFFSET: usize = 2;
    pub(super) const ENTROPY: usize = 4;
    pub(super) const SPDCID: usize = 8;
    pub(super) const DPDCID: usize = 10;
    pub(super) const RESV12: usize = 12;
    pub(super) const CACK_PSN: usize = 13;
    pub(super) const CC: usize = 16;
    pub(super) const MPR: usize = 17;
    pub(super) const SACK_OFFSET: usize = 18;
    pub(super) const SACK_BITMAP: usize = 20;
}

mod ccs_field {
    pub(super) const TX_TIMESTAMP: usize = 0;
    pub(super) const OOO: usize = 2;
    pub(super) const PEN: usize = 4;
    pub(super) const RCVD_BYTES: usize = 5;
}

/// SETH fields in wire order as (name, offset, length): names the first field a short
/// buffer cannot hold. `next_header` straddles bytes 0 and 1.
const LAYOUT: &[(&str, usize, usize)] = &[
    ("res_type", field::BYTE0, 1),
    ("next_header", field::BYTE0, 2),
    ("ack_psn_offset", field::ACK_PSN_OFFSET, 2),
    ("entropy", field::ENTROPY, 4),
    ("spdcid", field::SPDCID, 2),
    ("dpdcid", field::DPDCID, 2),
    ("resv12", field::RESV12, 1),
    ("cack_psn", field::CACK_PSN, 3),
    ("cc_type", field::CC, 1),
    ("mpr", field::MPR, 1),
    ("sack_offset", field::SACK_OFFSET, 2),
    ("sack_bitmap", field::SACK_BITMAP, 8),
];

/// CC_STATE fields in wire order as (name, offset, length).
const CCS_LAYOUT: &[(&str, usize, usize)] = &[
    ("tx_timestamp", ccs_field::TX_TIMESTAMP, 2),
    ("ooo_count", ccs_field::OOO, 2),
    ("rcv_cwnd_pen", ccs_field::PEN, 1),
    ("rcvd_bytes", ccs_field::RCVD_BYTES, 3),
];

/// The 5-bit `next_header` of SETH and NETH: byte 0 bits 3:0 are its high bits, byte 1
/// bit 7 its low bit.
pub(crate) fn next_header_of(byte0: u8, byte1: u8) -> u8 {
    ((byte0 & 0x0F) << 1) | (byte1 >> 7)
}

/// Writes a 5-bit `next_header` (masked) into `b[0]` bits 3:0 and `b[1]` bit 7, leaving the
/// other bits alone. `b` holds at least two bytes.
pub(crate) fn put_next_header(b: &mut [u8], v: u8) {
    b[0] = (b[0] & 0xF0) | ((v >> 1) & 0x0F);
    b[1] = (b[1] & 0x7F) | (v << 7);
}

/// The entropy-value mark of a SACK (`m`, SETH byte 1 bits 6:5). Lossless: the reserved
/// value 3 is an `EvMark` too, and an `EvMark` above 3 cannot be emitted.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct EvMark(pub u8);

impl EvMark {
    /// 0: no mark; the entropy value is fine.
    pub const NONE: EvMark = EvMark(0);
    /// 1: skip this entropy value once.
    pub const SKIP_ONCE: EvMark = EvMark(1);
    /// 2: stop using this entropy value.
    pub const ALWAYS_SKIP: EvMark = EvMark(2);

    /// The specification's name, or `None` for the reserved value.
    pub const fn name(self) -> Option<&'static str> {
        match self.0 {
            0 => Some("NONE"),
            1 => Some("SKIP_ONCE"),
            2 => Some("ALWAYS_SKIP"),
            _ => None,
        }
    }

    /// Whether this is a reserved value (`SETH-M-001`).
    pub const fn is_reserved(self) -> bool {
        self.0 > 2
    }
}

impl fmt::Debug for EvMark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "EvMark::{n}"),
            None => write!(f, "EvMark({})", self.0),
        }
    }
}

impl fmt::Display for EvMark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "RESERVED({})", self.0),
        }
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for EvMark {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(EvMark(crate::field::arb::bits2(u)?))
    }
    fn size_hint(depth: usize) -> (usize, Option<usize>) {
        u8::size_hint(depth)
    }
}

mod cc_state;

pub use cc_state::*;

/// A zero-copy view of a SETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Seth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Seth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole SETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole SETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        check_layout(Header::Seth, LAYOUT, self.buffer.as_ref().len())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn byte(&self, at: usize) -> u8 {
        self.buffer.as_ref()[at]
    }

    /// Response type, byte 0 bits 7:4.
    pub fn res_type(&self) -> u8 {
        self.byte(field::BYTE0) >> 4
    }
    /// Next header, 5 bits: byte 0 bits 3:0 then byte 1 bit 7.
    pub fn next_header(&self) -> u8 {
        next_header_of(self.byte(field::BYTE0), self.byte(field::BYTE1))
    }
    /// Entropy-value mark, byte 1 bits 6:5.
    pub fn m(&self) -> EvMark {
        EvMark((self.byte(field::BYTE1) >> 5) & 0x3)
    }
    /// Reserved bits of byte 1, in place (mask [`SETH_RESV1_MASK`]).
    pub fn resv1(&self) -> u8 {
        self.byte(field::BYTE1) & SETH_RESV1_MASK
    }
    /// Probe response, byte 1 bit 1.
    pub fn pr(&self) -> bool {
        self.byte(field::BYTE1) & 0x02 != 0
    }
    /// Signed offset of ACK_PSN from `cack_psn`.
    pub fn ack_psn_offset(&self) -> i16 {
        u16_at(self.buffer.as_ref(), field::ACK_PSN_OFFSET) as i16
    }
    /// Reflected entropy value.
    pub fn entropy(&self) -> Ev {
        Ev::new(u32_at(self.buffer.as_ref(), field::ENTROPY))
    }
    /// spdcid (bytes 8-9).
    pub fn spdcid(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::SPDCID)
    }
    /// dpdcid (bytes 10-11).
    pub fn dpdcid(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::DPDCID)
    }
    /// Reserved byte 12.
    pub fn resv12(&self) -> u8 {
        self.byte(field::RESV12)
    }
    /// Cumulative acknowledged PSN.
    pub fn cack_psn(&self) -> Psn {
        Psn::new(u24_at(self.buffer.as_ref(), field::CACK_PSN))
    }
    /// Congestion-control type, byte 16 bits 7:4.
    pub fn cc_type(&self) -> u8 {
        self.byte(field::CC) >> 4
    }
    /// Congestion-control flags, byte 16 bits 3:0.
    pub fn cc_flags(&self) -> u8 {
        self.byte(field::CC) & 0x0F
    }
    /// Maximum PSN range, in units of [`SETH_MPR_UNIT`] packets.
    pub fn mpr(&self) -> u8 {
        self.byte(field::MPR)
    }
    /// Signed offset of the bitmap base from `cack_psn`.
    pub fn sack_offset(&self) -> i16 {
        u16_at(self.buffer.as_ref(), field::SACK_OFFSET) as i16
    }
    /// The SACK bitmap as a big-endian integer (see the module documentation).
    pub fn sack_bitmap(&self) -> u64 {
        u64_at(self.buffer.as_ref(), field::SACK_BITMAP)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Seth<T> {
    fn update(&mut self, at: usize, mask: u8, bits: u8) {
        let b = &mut self.buffer.as_mut()[at];
        *b = (*b & !mask) | (bits & mask);
    }

    /// Sets the response type; masked to 4 bits.
    pub fn set_res_type(&mut self, v: u8) {
        self.update(field::BYTE0, 0xF0, v << 4);
    }
    /// Sets the next header; masked to 5 bits.
    pub fn set_next_header(&mut self, v: u8) {
        put_next_header(&mut self.buffer.as_mut()[field::BYTE0..], v);
    }
    /// Sets the entropy-value mark; masked to 2 bits.
    pub fn set_m(&mut self, v: EvMark) {
        self.update(field::BYTE1, 0x60, v.0 << 5);
    }
    /// Sets the reserved bits of byte 1; masked to [`SETH_RESV1_MASK`].
    pub fn set_resv1(&mut self, v: u8) {
        self.update(field::BYTE1, SETH_RESV1_MASK, v);
    }
    /// Sets the probe-response bit.
    pub fn set_pr(&mut self, v: bool) {
        self.update(field::BYTE1, 0x02, u8::from(v) << 1);
    }
    /// Sets the ACK_PSN offset.
    pub fn set_ack_psn_offset(&mut self, v: i16) {
        set_u16(self.buffer.as_mut(), field::ACK_PSN_OFFSET, v as u16);
    }
    /// Sets the reflected entropy value.
    pub fn set_entropy(&mut self, v: Ev) {
        set_u32(self.buffer.as_mut(), field::ENTROPY, v.value());
    }
    /// Sets spdcid.
    pub fn set_spdcid(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::SPDCID, v);
    }
    /// Sets dpdcid.
    pub fn set_dpdcid(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::DPDCID, v);
    }
    /// Sets reserved byte 12.
    pub fn set_resv12(&mut self, v: u8) {
        self.buffer.as_mut()[field::RESV12] = v;
    }
    /// Sets the cumulative acknowledged PSN.
    pub fn set_cack_psn(&mut self, v: Psn) {
        set_u24(self.buffer.as_mut(), field::CACK_PSN, v.value());
    }
    /// Sets byte 16 from its parts; both are masked to 4 bits.
    pub fn set_cc(&mut self, cc_type: u8, cc_flags: u8) {
        self.buffer.as_mut()[field::CC] = (cc_type << 4) | (cc_flags & 0x0F);
    }
    /// Sets the maximum PSN range.
    pub fn set_mpr(&mut self, v: u8) {
        self.buffer.as_mut()[field::MPR] = v;
    }
    /// Sets the bitmap offset.
    pub fn set_sack_offset(&mut self, v: i16) {
        set_u16(self.buffer.as_mut(), field::SACK_OFFSET, v as u16);
    }
    /// Sets the SACK bitmap.
    pub fn set_sack_bitmap(&mut self, v: u64) {
        set_u64(self.buffer.as_mut(), field::SACK_BITMAP, v);
    }
}

/// An owned, decoded SETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct SethRepr {
    /// Response type, 4 bits (byte 0 bits 7:4).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits4))]
    pub res_type: u8,
    /// Next header, 5 bits (byte 0 bits 3:0 high, byte 1 bit 7 low).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits5))]
    pub next_header: u8,
    /// Entropy-value mark (byte 1 bits 6:5); 3 is reserved (`SETH-M-001`).
    pub m: EvMark,
    /// Reserved bits of byte 1 in place, mask [`SETH_RESV1_MASK`]; must be 0
    /// (`SETH-RESV-001`).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = arb_resv1))]
    pub resv1: u8,
    /// Probe response (byte 1 bit 1): this SACK answers a PETH.
    pub pr: bool,
    /// Signed offset of ACK_PSN from `cack_psn` (bytes 2-3).
    pub ack_psn_offset: i16,
    /// Entropy value reflected from the packet that triggered this SACK (bytes 4-7).
    pub entropy: Ev,
    /// spdcid (bytes 8-9), carried.
    pub spdcid: u16,
    /// dpdcid (bytes 10-11), carried.
    pub dpdcid: u16,
    /// Reserved byte 12; must be 0 (`SETH-RESV-001`).
    pub resv12: u8,
    /// Cumulative acknowledged PSN (bytes 13-15).
    pub cack_psn: Psn,
    /// Congestion-control type, 4 bits (byte 16 bits 7:4).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits4))]
    pub cc_type: u8,
    /// Congestion-control flags, 4 bits (byte 16 bits 3:0).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits4))]
    pub cc_flags: u8,
    /// Maximum PSN range beyond `cack_psn`, in units of 128 packets (byte 17,
    /// `SETH-MPR-002`).
    pub mpr: u8,
    /// Signed offset of the bitmap base from `cack_psn` (bytes 18-19).
    pub sack_offset: i16,
    /// SACK bitmap (bytes 20-27): bit `i` is PSN `cack_psn + sack_offset + i`
    /// (`SETH-BITMAP-001`).
    pub sack_bitmap: u64,
}

#[cfg(feature = "arbitrary")]
fn arb_resv1(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<u8> {
    Ok(<u8 as arbitrary::Arbitrary<'_>>::arbitrary(u)? & SETH_RESV1_MASK)
}

impl SethRepr {
    /// ACK_PSN: `cack_psn + ack_psn_offset`, modulo 2^24.
    pub const fn ack_psn(&self) -> Psn {
        self.cack_psn.offset(self.ack_psn_offset as i32)
    }

    /// The PSN of bitmap bit 0: `cack_psn + sack_offset`, modulo 2^24.
    pub const fn bitmap_base(&self) -> Psn {
        self.cack_psn.offset(self.sack_offset as i32)
    }

    /// The bitmap bit of `psn`, or `None` when the bitmap does not cover it.
    const fn bit_index(&self, psn: Psn) -> Option<u32> {
        let i = psn.forward_from(self.bitmap_base());
        if i < SACK_BITMAP_BITS { Some(i) } else { None }
    }

    /// Whether `cack_psn` claims `psn` (SETH-CACK-001.a): `psn` is before `cack_psn + 1`,
    /// the responder's expected PSN, in the sense of BTH-PSN-002. The PSN exactly half the
    /// ring from that expected PSN is after it, so it is not claimed, though it is 2^23 - 1
    /// before `cack_psn` itself.
    pub const fn covers_cumulatively(&self, psn: Psn) -> bool {
        psn.is_before(self.cack_psn.offset(1))
    }

    /// Whether this SACK says `psn` was received: `cack_psn` claims it
    /// ([`Self::covers_cumulatively`]), or its bitmap bit is set.
    pub const fn is_sacked(&self, psn: Psn) -> bool {
        if self.covers_cumulatively(psn) {
            return true;
        }
        match self.bit_index(psn) {
            Some(i) => (self.sack_bitmap >> i) & 1 != 0,
            None => false,
        }
    }

    /// Sets the bitmap bit of `psn`. Returns `false`, changing nothing, when the bitmap
    /// (as placed by `cack_psn` and `sack_offset`) does not cover `psn`.
    pub fn set_sacked(&mut self, psn: Psn) -> bool {
        match self.bit_index(psn) {
            Some(i) => {
                self.sack_bitmap |= 1 << i;
                true
            }
            None => false,
        }
    }

    /// The PSNs whose bitmap bit is set, in bit order (bit 0 first).
    pub fn iter_sacked(&self) -> impl Iterator<Item = Psn> + use<> {
        let (bitmap, base) = (self.sack_bitmap, self.bitmap_base());
        (0..SACK_BITMAP_BITS).filter(move |&i| (bitmap >> i) & 1 != 0).map(move |i| base.add(i))
    }

    /// The maximum PSN range in packets: `mpr × 128` (`SETH-MPR-002`).
    pub const fn mpr_packets(&self) -> u32 {
        self.mpr as u32 * SETH_MPR_UNIT
    }

    /// Decodes a SETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Seth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Seth<T>) -> Self {
        SethRepr {
            res_type: v.res_type(),
            next_header: v.next_header(),
            m: v.m(),
            resv1: v.resv1(),
            pr: v.pr(),
            ack_psn_offset: v.ack_psn_offset(),
            entropy: v.entropy(),
            spdcid: v.spdcid(),
            dpdcid: v.dpdcid(),
            resv12: v.resv12(),
            cack_psn: v.cack_psn(),
            cc_type: v.cc_type(),
            cc_flags: v.cc_flags(),
            mpr: v.mpr(),
            sack_offset: v.sack_offset(),
            sack_bitmap: v.sack_bitmap(),
        }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        SETH_LEN
    }

    /// Writes the SETH into the start of `buf`. Never panics: a short buffer or a field
    /// that does not fit its bits is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        let h = Header::Seth;
        check_buffer(h, buf, SETH_LEN)?;
        check_range(h, "res_type", self.res_type.into(), 0xF)?;
        check_range(h, "next_header", self.next_header.into(), 0x1F)?;
        check_range(h, "m", self.m.0.into(), 0x3)?;
        if self.resv1 & !SETH_RESV1_MASK != 0 {
            return Err(EmitError::FieldOutOfRange {
                header: h,
                field: "resv1",
                value: self.resv1.into(),
                max: SETH_RESV1_MASK.into(),
            });
        }
        check_range(h, "cc_type", self.cc_type.into(), 0xF)?;
        check_range(h, "cc_flags", self.cc_flags.into(), 0xF)?;
        let mut v = Seth::new_unchecked(&mut buf[..SETH_LEN]);
        v.set_res_type(self.res_type);
        v.set_next_header(self.next_header);
        v.set_m(self.m);
        v.set_resv1(self.resv1);
        v.set_pr(self.pr);
        v.set_ack_psn_offset(self.ack_psn_offset);
        v.set_entropy(self.entropy);
        v.set_spdcid(self.spdcid);
        v.set_dpdcid(self.dpdcid);
        v.set_resv12(self.resv12);
        v.set_cack_psn(self.cack_psn);
        v.set_cc(self.cc_type, self.cc_flags);
        v.set_mpr(self.mpr);
        v.set_sack_offset(self.sack_offset);
        v.set_sack_bitmap(self.sack_bitmap);
        Ok(SETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["SETH-M-001", "SETH-RESV-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let v = |requirement, field, at: usize, value: u64, rule| Violation {
            requirement,
            header: Header::Seth,
            field,
            offset: Some(base + at),
            value,
            rule,
        };
        if self.m.is_reserved() {
            out.push(v("SETH-M-001", "m", field::BYTE1, self.m.0.into(), "m = 3 is reserved"));
        }
        if self.resv1 != 0 {
            out.push(v(
                "SETH-RESV-001",
                "resv1",
                field::BYTE1,
                self.resv1.into(),
                "reserved bits of byte 1 must be 0",
            ));
        }
        if self.resv12 != 0 {
            out.push(v(
                "SETH-RESV-001",
                "resv12",
                field::RESV12,
                self.resv12.into(),
                "reserved byte 12 must be 0",
            ));
        }
    }
}

#[cfg(test)]
mod tests;
