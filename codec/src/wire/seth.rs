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
//! `mpr` counts units of 128 packets (`SETH-MPR-001`): [`SethRepr::mpr_packets`].
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
/// Packets per unit of `mpr` (`SETH-MPR-001`).
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
    /// `SETH-MPR-001`).
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

    /// Whether this SACK says `psn` was received: it is at or before `cack_psn` (within
    /// half the PSN ring), or its bitmap bit is set.
    pub const fn is_sacked(&self, psn: Psn) -> bool {
        if psn.distance(self.cack_psn) <= 0 {
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

    /// The maximum PSN range in packets: `mpr × 128` (`SETH-MPR-001`).
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

/// A zero-copy view of a CC_STATE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CcState<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> CcState<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        CcState { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole CC_STATE.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole CC_STATE.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        check_layout(Header::CcState, CCS_LAYOUT, self.buffer.as_ref().len())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Reflected transmit timestamp.
    pub fn tx_timestamp(&self) -> u16 {
        u16_at(self.buffer.as_ref(), ccs_field::TX_TIMESTAMP)
    }
    /// Reserved bit 7 of byte 2.
    pub fn resv(&self) -> bool {
        self.buffer.as_ref()[ccs_field::OOO] & 0x80 != 0
    }
    /// Out-of-order count, 15 bits.
    pub fn ooo_count(&self) -> u16 {
        u16_at(self.buffer.as_ref(), ccs_field::OOO) & 0x7FFF
    }
    /// The `r_c` bit (byte 4 bit 7).
    pub fn r_c(&self) -> bool {
        self.buffer.as_ref()[ccs_field::PEN] & 0x80 != 0
    }
    /// Receiver congestion-window penalty, 7 bits (0 to 127).
    pub fn rcv_cwnd_pen(&self) -> u8 {
        self.buffer.as_ref()[ccs_field::PEN] & 0x7F
    }
    /// Received bytes, 24 bits.
    pub fn rcvd_bytes(&self) -> u32 {
        u24_at(self.buffer.as_ref(), ccs_field::RCVD_BYTES)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> CcState<T> {
    /// Sets the reflected transmit timestamp.
    pub fn set_tx_timestamp(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), ccs_field::TX_TIMESTAMP, v);
    }
    /// Sets bytes 2-3 from their parts; `ooo_count` is masked to 15 bits.
    pub fn set_ooo(&mut self, resv: bool, ooo_count: u16) {
        set_u16(
            self.buffer.as_mut(),
            ccs_field::OOO,
            (u16::from(resv) << 15) | (ooo_count & 0x7FFF),
        );
    }
    /// Sets byte 4 from its parts; `rcv_cwnd_pen` is masked to 7 bits.
    pub fn set_pen(&mut self, r_c: bool, rcv_cwnd_pen: u8) {
        self.buffer.as_mut()[ccs_field::PEN] = (u8::from(r_c) << 7) | (rcv_cwnd_pen & 0x7F);
    }
    /// Sets the received bytes; bits above 24 are discarded.
    pub fn set_rcvd_bytes(&mut self, v: u32) {
        set_u24(self.buffer.as_mut(), ccs_field::RCVD_BYTES, v);
    }
}

/// An owned, decoded CC_STATE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct CcStateRepr {
    /// Transmit timestamp reflected from the requester's TSETH (bytes 0-1).
    pub tx_timestamp: u16,
    /// Reserved bit (byte 2 bit 7); must be clear (`CCS-RESV-001`).
    pub resv: bool,
    /// Out-of-order count, 15 bits (bytes 2-3 below the reserved bit).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits15))]
    pub ooo_count: u16,
    /// The `r_c` bit (byte 4 bit 7), carried.
    pub r_c: bool,
    /// Receiver congestion-window penalty, 7 bits, 0 to 127 (byte 4 bits 6:0).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits7))]
    pub rcv_cwnd_pen: u8,
    /// Received bytes, 24 bits (bytes 5-7).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits24))]
    pub rcvd_bytes: u32,
}

impl CcStateRepr {
    /// Decodes a CC_STATE from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&CcState::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &CcState<T>) -> Self {
        CcStateRepr {
            tx_timestamp: v.tx_timestamp(),
            resv: v.resv(),
            ooo_count: v.ooo_count(),
            r_c: v.r_c(),
            rcv_cwnd_pen: v.rcv_cwnd_pen(),
            rcvd_bytes: v.rcvd_bytes(),
        }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        CC_STATE_LEN
    }

    /// Writes the CC_STATE into the start of `buf`. Never panics: a short buffer or a field
    /// that does not fit its bits is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        let h = Header::CcState;
        check_buffer(h, buf, CC_STATE_LEN)?;
        check_range(h, "ooo_count", self.ooo_count.into(), 0x7FFF)?;
        check_range(h, "rcv_cwnd_pen", self.rcv_cwnd_pen.into(), 0x7F)?;
        check_range(h, "rcvd_bytes", self.rcvd_bytes.into(), 0xFF_FFFF)?;
        let mut v = CcState::new_unchecked(&mut buf[..CC_STATE_LEN]);
        v.set_tx_timestamp(self.tx_timestamp);
        v.set_ooo(self.resv, self.ooo_count);
        v.set_pen(self.r_c, self.rcv_cwnd_pen);
        v.set_rcvd_bytes(self.rcvd_bytes);
        Ok(CC_STATE_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["CCS-RESV-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        if self.resv {
            out.push(Violation {
                requirement: "CCS-RESV-001",
                header: Header::CcState,
                field: "resv",
                offset: Some(base + ccs_field::OOO),
                value: 1,
                rule: "reserved bit 7 of byte 2 must be 0",
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    // The MRC specification's example: PSNs 0..=11 sent, 5 and 8 lost.
    const EXAMPLE: [u8; 28] = [
        0x10, 0x80, // res_type 1, next_header 1, m none, pr 0
        0x00, 0x07, // ack_psn_offset 7
        0x12, 0x34, 0x56, 0x78, // entropy
        0x00, 0x0A, 0x00, 0x0B, // spdcid, dpdcid
        0x00, // resv12
        0x00, 0x00, 0x04, // cack_psn 4
        0x21, // cc_type 2, cc_flags 1
        0x02, // mpr 2 (256 packets)
        0x00, 0x01, // sack_offset 1
        0, 0, 0, 0, 0, 0, 0, 0b111_0110, // sack_bitmap
    ];

    fn example() -> SethRepr {
        SethRepr {
            res_type: 1,
            next_header: 1,
            m: EvMark::NONE,
            resv1: 0,
            pr: false,
            ack_psn_offset: 7,
            entropy: Ev::new(0x1234_5678),
            spdcid: 10,
            dpdcid: 11,
            resv12: 0,
            cack_psn: Psn::new(4),
            cc_type: 2,
            cc_flags: 1,
            mpr: 2,
            sack_offset: 1,
            sack_bitmap: 0b111_0110,
        }
    }

    #[test]
    fn deconstruct() {
        let v = Seth::new_checked(&EXAMPLE[..]).unwrap();
        assert_eq!(v.res_type(), 1);
        assert_eq!(v.next_header(), 1);
        assert_eq!(v.m(), EvMark::NONE);
        assert!(!v.pr());
        assert_eq!(v.ack_psn_offset(), 7);
        assert_eq!(v.entropy(), Ev::new(0x1234_5678));
        assert_eq!((v.spdcid(), v.dpdcid()), (10, 11));
        assert_eq!(v.cack_psn(), Psn::new(4));
        assert_eq!((v.cc_type(), v.cc_flags()), (2, 1));
        assert_eq!(v.mpr(), 2);
        assert_eq!(v.sack_offset(), 1);
        assert_eq!(v.sack_bitmap(), 0b111_0110);
    }

    #[test]
    fn construct() {
        // Start from garbage: every setter must own all of its bits.
        let mut buf = [0xA5u8; 28];
        let mut v = Seth::new_unchecked(&mut buf[..]);
        v.set_res_type(1);
        v.set_next_header(1);
        v.set_m(EvMark::NONE);
        v.set_resv1(0);
        v.set_pr(false);
        v.set_ack_psn_offset(7);
        v.set_entropy(Ev::new(0x1234_5678));
        v.set_spdcid(10);
        v.set_dpdcid(11);
        v.set_resv12(0);
        v.set_cack_psn(Psn::new(4));
        v.set_cc(2, 1);
        v.set_mpr(2);
        v.set_sack_offset(1);
        v.set_sack_bitmap(0b111_0110);
        assert_eq!(buf, EXAMPLE);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(SethRepr::parse(&EXAMPLE).unwrap(), example());
        let mut buf = [0xFFu8; 28];
        assert_eq!(example().emit(&mut buf), Ok(28));
        assert_eq!(buf, EXAMPLE);
    }

    #[test]
    fn byte1_bit_positions() {
        let r = SethRepr {
            next_header: 0b1_0110,
            m: EvMark::ALWAYS_SKIP,
            pr: true,
            resv1: SETH_RESV1_MASK,
            res_type: 0xF,
            ..SethRepr::default()
        };
        let mut buf = [0u8; 28];
        r.emit(&mut buf).unwrap();
        assert_eq!(buf[0], 0xF0 | 0b1011);
        assert_eq!(buf[1], (2 << 5) | 0x02 | SETH_RESV1_MASK);
        assert_eq!(SethRepr::parse(&buf).unwrap(), r);
        let r = SethRepr { next_header: 1, m: EvMark::SKIP_ONCE, ..SethRepr::default() };
        r.emit(&mut buf).unwrap();
        assert_eq!(&buf[..2], &[0x00, 0xA0]);
    }

    #[test]
    fn signed_offsets() {
        let r = SethRepr {
            cack_psn: Psn::new(2),
            ack_psn_offset: -3,
            sack_offset: -1,
            ..SethRepr::default()
        };
        let mut buf = [0u8; 28];
        r.emit(&mut buf).unwrap();
        assert_eq!(&buf[2..4], &[0xFF, 0xFD]);
        assert_eq!(&buf[18..20], &[0xFF, 0xFF]);
        assert_eq!(SethRepr::parse(&buf).unwrap(), r);
        assert_eq!(r.ack_psn(), Psn::MAX);
        assert_eq!(r.bitmap_base(), Psn::new(1));
    }

    #[test]
    fn mrc_worked_example() {
        // SETH-BITMAP-001: PSNs 0..=11 sent, 5 and 8 lost.
        let r = example();
        assert_eq!(r.bitmap_base(), Psn::new(5));
        let received: Vec<u32> = (0..=11).filter(|&p| r.is_sacked(Psn::new(p))).collect();
        assert_eq!(received, [0, 1, 2, 3, 4, 6, 7, 9, 10, 11]);
        let bits: Vec<u32> = r.iter_sacked().map(Psn::value).collect();
        assert_eq!(bits, [6, 7, 9, 10, 11]);
        assert!(!r.is_sacked(Psn::new(12)));
        assert!(!r.is_sacked(Psn::new(5 + 64 + 1)));
        assert_eq!(r.ack_psn(), Psn::new(11));

        // Building the same bitmap PSN by PSN.
        let mut b = SethRepr { sack_bitmap: 0, ..example() };
        for p in [6, 7, 9, 10, 11] {
            assert!(b.set_sacked(Psn::new(p)));
        }
        assert!(!b.set_sacked(Psn::new(4)));
        assert!(!b.set_sacked(Psn::new(5 + 64)));
        assert_eq!(b.sack_bitmap, 0b111_0110);
    }

    #[test]
    fn bitmap_across_the_psn_wrap() {
        let r = SethRepr {
            cack_psn: Psn::MAX.sub(1),
            sack_offset: 1,
            sack_bitmap: 0b1011,
            ..SethRepr::default()
        };
        // Base is 2^24 - 1; bits 0, 1, 3 are PSNs 2^24 - 1, 0, 2.
        let bits: Vec<Psn> = r.iter_sacked().collect();
        assert_eq!(bits, [Psn::MAX, Psn::new(0), Psn::new(2)]);
        assert!(r.is_sacked(Psn::new(0)));
        assert!(!r.is_sacked(Psn::new(1)));
        // Far behind cack_psn (but within half the ring) counts as received.
        assert!(r.is_sacked(Psn::new(1 << 23)));
        assert!(!r.is_sacked(Psn::new(5)));
    }

    #[test]
    fn mpr_unit_is_128_packets() {
        // SETH-MPR-001
        assert_eq!(example().mpr_packets(), 256);
        assert_eq!(SethRepr { mpr: 255, ..example() }.mpr_packets(), 32_640);
    }

    #[test]
    fn ev_mark_names() {
        assert_eq!(EvMark::SKIP_ONCE.name(), Some("SKIP_ONCE"));
        assert_eq!(EvMark(3).name(), None);
        assert!(EvMark(3).is_reserved() && !EvMark::ALWAYS_SKIP.is_reserved());
        assert_eq!(alloc::format!("{}", EvMark(3)), "RESERVED(3)");
        assert_eq!(alloc::format!("{:?}", EvMark::NONE), "EvMark::NONE");
    }

    #[test]
    fn truncation_names_field_and_offset() {
        let e = SethRepr::parse(&EXAMPLE[..23]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Seth, "sack_bitmap", 20, 8, 3));
        assert_eq!(SethRepr::parse(&EXAMPLE[..1]).unwrap_err().field, "next_header");
        assert_eq!(SethRepr::parse(&EXAMPLE[..14]).unwrap_err().field, "cack_psn");
        let e = CcStateRepr::parse(&[0; 6]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::CcState, "rcvd_bytes", 5, 3, 1));
    }

    #[test]
    fn emit_never_panics() {
        assert!(matches!(
            example().emit(&mut [0u8; 27]),
            Err(EmitError::BufferTooShort { header: Header::Seth, need: 28, have: 27 })
        ));
        let cases = [
            (SethRepr { res_type: 16, ..example() }, "res_type"),
            (SethRepr { next_header: 32, ..example() }, "next_header"),
            (SethRepr { m: EvMark(4), ..example() }, "m"),
            (SethRepr { resv1: 0x02, ..example() }, "resv1"),
            (SethRepr { cc_type: 16, ..example() }, "cc_type"),
            (SethRepr { cc_flags: 16, ..example() }, "cc_flags"),
        ];
        for (r, name) in cases {
            match r.emit(&mut [0u8; 28]) {
                Err(EmitError::FieldOutOfRange { field, .. }) => assert_eq!(field, name),
                other => panic!("{name}: {other:?}"),
            }
        }
        let c = CcStateRepr { rcv_cwnd_pen: 128, ..CcStateRepr::default() };
        assert!(matches!(
            c.emit(&mut [0u8; 8]),
            Err(EmitError::FieldOutOfRange { field: "rcv_cwnd_pen", .. })
        ));
        assert!(CcStateRepr::default().emit(&mut [0u8; 7]).is_err());
    }

    #[test]
    fn validate_flags_mark_and_reserved() {
        let mut out = Vec::new();
        example().validate(0, &mut out);
        assert!(out.is_empty());
        SethRepr { m: EvMark(3), resv1: 0x01, resv12: 9, ..example() }.validate(54, &mut out);
        let ids: Vec<_> = out.iter().map(|v| (v.requirement, v.field, v.offset)).collect();
        assert_eq!(
            ids,
            [
                ("SETH-M-001", "m", Some(55)),
                ("SETH-RESV-001", "resv1", Some(55)),
                ("SETH-RESV-001", "resv12", Some(66)),
            ]
        );
    }

    const CCS: [u8; 8] = [0xBE, 0xEF, 0x01, 0x02, 0x85, 0x00, 0x10, 0x00];

    fn ccs() -> CcStateRepr {
        CcStateRepr {
            tx_timestamp: 0xBEEF,
            resv: false,
            ooo_count: 0x0102,
            r_c: true,
            rcv_cwnd_pen: 5,
            rcvd_bytes: 0x1000,
        }
    }

    #[test]
    fn cc_state_deconstruct_construct() {
        let v = CcState::new_checked(&CCS[..]).unwrap();
        assert_eq!(v.tx_timestamp(), 0xBEEF);
        assert!(!v.resv());
        assert_eq!(v.ooo_count(), 0x0102);
        assert!(v.r_c());
        assert_eq!(v.rcv_cwnd_pen(), 5);
        assert_eq!(v.rcvd_bytes(), 0x1000);
        let mut buf = [0xFFu8; 8];
        let mut v = CcState::new_unchecked(&mut buf[..]);
        v.set_tx_timestamp(0xBEEF);
        v.set_ooo(false, 0x0102);
        v.set_pen(true, 5);
        v.set_rcvd_bytes(0x1000);
        assert_eq!(buf, CCS);
    }

    #[test]
    fn cc_state_parse_emit_validate() {
        assert_eq!(CcStateRepr::parse(&CCS).unwrap(), ccs());
        let mut buf = [0u8; 8];
        assert_eq!(ccs().emit(&mut buf), Ok(8));
        assert_eq!(buf, CCS);
        let mut out = Vec::new();
        ccs().validate(82, &mut out);
        assert!(out.is_empty());
        let r = CcStateRepr { resv: true, ..ccs() };
        r.emit(&mut buf).unwrap();
        assert_eq!(buf[2], 0x81);
        assert_eq!(CcStateRepr::parse(&buf).unwrap(), r);
        r.validate(82, &mut out);
        assert_eq!(out[0].requirement, "CCS-RESV-001");
        assert_eq!(out[0].offset, Some(84));
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5345_5448);
        for _ in 0..1000 {
            let mut bytes = [0u8; SETH_LEN + CC_STATE_LEN];
            rng.fill_bytes(&mut bytes);
            let (s, c) = bytes.split_at(SETH_LEN);
            let mut out = [0u8; SETH_LEN + CC_STATE_LEN];
            let (so, co) = out.split_at_mut(SETH_LEN);
            assert_eq!(SethRepr::parse(s).unwrap().emit(so), Ok(SETH_LEN));
            assert_eq!(CcStateRepr::parse(c).unwrap().emit(co), Ok(CC_STATE_LEN));
            assert_eq!(out, bytes);
        }
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5345_5448);
        let mut raw = [0u8; 128];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let mut u = Unstructured::new(&raw);
            let s = SethRepr::arbitrary(&mut u).unwrap();
            let c = CcStateRepr::arbitrary(&mut u).unwrap();
            let mut out = [0u8; SETH_LEN];
            assert_eq!(s.emit(&mut out), Ok(SETH_LEN));
            assert_eq!(SethRepr::parse(&out).unwrap(), s);
            assert_eq!(c.emit(&mut out), Ok(CC_STATE_LEN));
            assert_eq!(CcStateRepr::parse(&out).unwrap(), c);
        }
    }
}
