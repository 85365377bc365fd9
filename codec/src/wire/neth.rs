//! MRC NACK Extended Transport Header, 20 bytes (requirements `NETH-*`).
//!
//! ```text
//!  byte 0     res_type(7:4) next_header(4:1)     -- next_header is 5 bits, as in SETH:
//!  byte 1     next_header(0)(7) resv1(6:0)       -- high 4 bits in byte 0, low bit here
//!  byte 2     reason         why the packet was not accepted (NackReason)
//!  byte 3     vendor_info
//!  byte 4-7   entropy        reflected from the packet being NACKed
//!  byte 8-9   spdcid
//!  byte 10-11 dpdcid
//!  byte 12    resv12
//!  byte 13-15 nack_psn       the PSN being NACKed
//!  byte 16    cc_type(7:4) cc_flags(3:0)
//!  byte 17    resv17
//!  byte 18-19 tx_timestamp   reflected from the requester's TSETH
//! ```
//!
//! The reason is a [`NackReason`], a lossless code: a value this crate does not know decodes
//! and emits unchanged, and `validate()` reports it (`NETH-REASON-001`). The numbering is
//! shared with Ultra Ethernet. spdcid, dpdcid and vendor_info are carried, not interpreted.
//!
//! The view's accessors never panic once [`Neth::new_checked`] (or [`Neth::check_len`])
//! has succeeded; `new_unchecked` followed by an accessor on a short buffer panics.

use core::fmt;

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};
use crate::field::{set_u16, set_u24, set_u32, u16_at, u24_at, u32_at};
use crate::wire::seth::{next_header_of, put_next_header};
use crate::{Ev, Psn};

/// Length of the NETH in bytes.
pub const NETH_LEN: usize = 20;

mod field {
    pub(super) const BYTE0: usize = 0;
    pub(super) const BYTE1: usize = 1;
    pub(super) const REASON: usize = 2;
    pub(super) const VENDOR_INFO: usize = 3;
    pub(super) const ENTROPY: usize = 4;
    pub(super) const SPDCID: usize = 8;
    pub(super) const DPDCID: usize = 10;
    pub(super) const RESV12: usize = 12;
    pub(super) const NACK_PSN: usize = 13;
    pub(super) const CC: usize = 16;
    pub(super) const RESV17: usize = 17;
    pub(super) const TX_TIMESTAMP: usize = 18;
}

/// Fields in wire order as (name, offset, length): names the first field a short buffer
/// cannot hold. `next_header` straddles bytes 0 and 1.
const LAYOUT: &[(&str, usize, usize)] = &[
    ("res_type", field::BYTE0, 1),
    ("next_header", field::BYTE0, 2),
    ("reason", field::REASON, 1),
    ("vendor_info", field::VENDOR_INFO, 1),
    ("entropy", field::ENTROPY, 4),
    ("spdcid", field::SPDCID, 2),
    ("dpdcid", field::DPDCID, 2),
    ("resv12", field::RESV12, 1),
    ("nack_psn", field::NACK_PSN, 3),
    ("cc_type", field::CC, 1),
    ("resv17", field::RESV17, 1),
    ("tx_timestamp", field::TX_TIMESTAMP, 2),
];

/// Why a packet was NACKed (NETH byte 2). Lossless: every byte value is a `NackReason`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct NackReason(pub u8);

macro_rules! nack_reasons {
    ($( $(#[$doc:meta])* $konst:ident = $val:literal; )*) => {
        impl NackReason {
            $( $(#[$doc])* pub const $konst: NackReason = NackReason($val); )*

            /// The specification's name, or `None` for a code this crate does not know.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    $( $val => Some(stringify!($konst)), )*
                    _ => None,
                }
            }
        }
    };
}

nack_reasons! {
    /// The packet was trimmed by a switch on the way.
    TRIMMED = 0x01;
    /// The packet was trimmed by the last-hop switch.
    TRIMMED_LASTHOP = 0x02;
    /// The responder had no bitmap entry to track the packet.
    NO_BITMAP = 0x06;
    /// The responder had no packet buffer.
    NO_PKT_BUFFER = 0x07;
    /// The responder lacked some other resource.
    NO_RESOURCE = 0x0A;
    /// The PSN lies outside the window `cack_psn + MPR`; the packet was discarded.
    PSN_OOR_WINDOW = 0x0B;
    /// An unexpected event: fatal, the QP goes to error and nothing is retried.
    UNEXP_EVENT = 0x19;
}

impl NackReason {
    /// Whether this crate knows the code (`NETH-REASON-001`).
    pub const fn is_known(self) -> bool {
        self.name().is_some()
    }

    /// Whether the NACK is fatal: the QP goes to error, no retry (UNEXP_EVENT).
    pub const fn is_fatal(self) -> bool {
        self.0 == Self::UNEXP_EVENT.0
    }

    /// Whether the NACK reports a trimmed packet (TRIMMED or TRIMMED_LASTHOP).
    pub const fn is_trim(self) -> bool {
        matches!(self, Self::TRIMMED | Self::TRIMMED_LASTHOP)
    }
}

impl fmt::Debug for NackReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({:#04x})", self.0),
            None => write!(f, "NackReason({:#04x})", self.0),
        }
    }
}

impl fmt::Display for NackReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "UNKNOWN({:#04x})", self.0),
        }
    }
}

/// A zero-copy view of a NETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Neth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Neth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Neth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole NETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole NETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        match LAYOUT.iter().find(|&&(_, at, len)| have < at + len) {
            Some(&(name, at, len)) => {
                Err(DecodeError::truncated(Header::Neth, name, at, len, have.saturating_sub(at)))
            }
            None => Ok(()),
        }
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
    /// Reserved bits 6:0 of byte 1.
    pub fn resv1(&self) -> u8 {
        self.byte(field::BYTE1) & 0x7F
    }
    /// NACK reason.
    pub fn reason(&self) -> NackReason {
        NackReason(self.byte(field::REASON))
    }
    /// Vendor information.
    pub fn vendor_info(&self) -> u8 {
        self.byte(field::VENDOR_INFO)
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
    /// The NACKed PSN.
    pub fn nack_psn(&self) -> Psn {
        Psn::new(u24_at(self.buffer.as_ref(), field::NACK_PSN))
    }
    /// Congestion-control type, byte 16 bits 7:4.
    pub fn cc_type(&self) -> u8 {
        self.byte(field::CC) >> 4
    }
    /// Congestion-control flags, byte 16 bits 3:0.
    pub fn cc_flags(&self) -> u8 {
        self.byte(field::CC) & 0x0F
    }
    /// Reserved byte 17.
    pub fn resv17(&self) -> u8 {
        self.byte(field::RESV17)
    }
    /// Reflected transmit timestamp.
    pub fn tx_timestamp(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::TX_TIMESTAMP)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Neth<T> {
    /// Sets the response type; masked to 4 bits.
    pub fn set_res_type(&mut self, v: u8) {
        let b = &mut self.buffer.as_mut()[field::BYTE0];
        *b = (*b & 0x0F) | (v << 4);
    }
    /// Sets the next header; masked to 5 bits.
    pub fn set_next_header(&mut self, v: u8) {
        put_next_header(&mut self.buffer.as_mut()[field::BYTE0..], v);
    }
    /// Sets the reserved bits of byte 1; masked to 7 bits.
    pub fn set_resv1(&mut self, v: u8) {
        let b = &mut self.buffer.as_mut()[field::BYTE1];
        *b = (*b & 0x80) | (v & 0x7F);
    }
    /// Sets the NACK reason.
    pub fn set_reason(&mut self, v: NackReason) {
        self.buffer.as_mut()[field::REASON] = v.0;
    }
    /// Sets the vendor information.
    pub fn set_vendor_info(&mut self, v: u8) {
        self.buffer.as_mut()[field::VENDOR_INFO] = v;
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
    /// Sets the NACKed PSN.
    pub fn set_nack_psn(&mut self, v: Psn) {
        set_u24(self.buffer.as_mut(), field::NACK_PSN, v.value());
    }
    /// Sets byte 16 from its parts; both are masked to 4 bits.
    pub fn set_cc(&mut self, cc_type: u8, cc_flags: u8) {
        self.buffer.as_mut()[field::CC] = (cc_type << 4) | (cc_flags & 0x0F);
    }
    /// Sets reserved byte 17.
    pub fn set_resv17(&mut self, v: u8) {
        self.buffer.as_mut()[field::RESV17] = v;
    }
    /// Sets the reflected transmit timestamp.
    pub fn set_tx_timestamp(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::TX_TIMESTAMP, v);
    }
}

/// An owned, decoded NETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct NethRepr {
    /// Response type, 4 bits (byte 0 bits 7:4).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits4))]
    pub res_type: u8,
    /// Next header, 5 bits (byte 0 bits 3:0 high, byte 1 bit 7 low).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits5))]
    pub next_header: u8,
    /// Reserved, 7 bits (byte 1 bits 6:0); must be 0 (`NETH-RESV-001`).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits7))]
    pub resv1: u8,
    /// NACK reason (byte 2); should be a known code (`NETH-REASON-001`).
    pub reason: NackReason,
    /// Vendor information (byte 3), carried.
    pub vendor_info: u8,
    /// Entropy value reflected from the NACKed packet (bytes 4-7).
    pub entropy: Ev,
    /// spdcid (bytes 8-9), carried.
    pub spdcid: u16,
    /// dpdcid (bytes 10-11), carried.
    pub dpdcid: u16,
    /// Reserved byte 12; must be 0 (`NETH-RESV-001`).
    pub resv12: u8,
    /// The NACKed PSN (bytes 13-15).
    pub nack_psn: Psn,
    /// Congestion-control type, 4 bits (byte 16 bits 7:4).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits4))]
    pub cc_type: u8,
    /// Congestion-control flags, 4 bits (byte 16 bits 3:0).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits4))]
    pub cc_flags: u8,
    /// Reserved byte 17; must be 0 (`NETH-RESV-001`).
    pub resv17: u8,
    /// Transmit timestamp reflected from the requester's TSETH (bytes 18-19).
    pub tx_timestamp: u16,
}

impl NethRepr {
    /// A NACK of `nack_psn` for `reason`, reflecting `entropy`; every other field zero.
    pub const fn new(reason: NackReason, nack_psn: Psn, entropy: Ev) -> Self {
        NethRepr {
            res_type: 0,
            next_header: 0,
            resv1: 0,
            reason,
            vendor_info: 0,
            entropy,
            spdcid: 0,
            dpdcid: 0,
            resv12: 0,
            nack_psn,
            cc_type: 0,
            cc_flags: 0,
            resv17: 0,
            tx_timestamp: 0,
        }
    }

    /// Decodes a NETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Neth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Neth<T>) -> Self {
        NethRepr {
            res_type: v.res_type(),
            next_header: v.next_header(),
            resv1: v.resv1(),
            reason: v.reason(),
            vendor_info: v.vendor_info(),
            entropy: v.entropy(),
            spdcid: v.spdcid(),
            dpdcid: v.dpdcid(),
            resv12: v.resv12(),
            nack_psn: v.nack_psn(),
            cc_type: v.cc_type(),
            cc_flags: v.cc_flags(),
            resv17: v.resv17(),
            tx_timestamp: v.tx_timestamp(),
        }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        NETH_LEN
    }

    /// Writes the NETH into the start of `buf`. Never panics: a short buffer or a field
    /// that does not fit its bits is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        let h = Header::Neth;
        check_buffer(h, buf, NETH_LEN)?;
        check_range(h, "res_type", self.res_type.into(), 0xF)?;
        check_range(h, "next_header", self.next_header.into(), 0x1F)?;
        check_range(h, "resv1", self.resv1.into(), 0x7F)?;
        check_range(h, "cc_type", self.cc_type.into(), 0xF)?;
        check_range(h, "cc_flags", self.cc_flags.into(), 0xF)?;
        let mut v = Neth::new_unchecked(&mut buf[..NETH_LEN]);
        v.set_res_type(self.res_type);
        v.set_next_header(self.next_header);
        v.set_resv1(self.resv1);
        v.set_reason(self.reason);
        v.set_vendor_info(self.vendor_info);
        v.set_entropy(self.entropy);
        v.set_spdcid(self.spdcid);
        v.set_dpdcid(self.dpdcid);
        v.set_resv12(self.resv12);
        v.set_nack_psn(self.nack_psn);
        v.set_cc(self.cc_type, self.cc_flags);
        v.set_resv17(self.resv17);
        v.set_tx_timestamp(self.tx_timestamp);
        Ok(NETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["NETH-RESV-001", "NETH-REASON-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    /// An unknown reason is a violation, never a decode error.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let v = |requirement, field, at: usize, value: u8, rule| Violation {
            requirement,
            header: Header::Neth,
            field,
            offset: Some(base + at),
            value: value.into(),
            rule,
        };
        let resv = "reserved fields of NETH must be 0";
        if self.resv1 != 0 {
            out.push(v("NETH-RESV-001", "resv1", field::BYTE1, self.resv1, resv));
        }
        if !self.reason.is_known() {
            out.push(v(
                "NETH-REASON-001",
                "reason",
                field::REASON,
                self.reason.0,
                "reason must be one of the defined NACK codes",
            ));
        }
        if self.resv12 != 0 {
            out.push(v("NETH-RESV-001", "resv12", field::RESV12, self.resv12, resv));
        }
        if self.resv17 != 0 {
            out.push(v("NETH-RESV-001", "resv17", field::RESV17, self.resv17, resv));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    const BYTES: [u8; 20] = [
        0x21, 0x80, // res_type 2, next_header 3, resv1 0
        0x0B, // PSN_OOR_WINDOW
        0x5A, // vendor_info
        0xAA, 0xBB, 0xCC, 0xDD, // entropy
        0x00, 0x01, 0x00, 0x02, // spdcid, dpdcid
        0x00, // resv12
        0x12, 0x34, 0x56, // nack_psn
        0x3C, // cc_type 3, cc_flags 0xC
        0x00, // resv17
        0x43, 0x21, // tx_timestamp
    ];

    fn sample() -> NethRepr {
        NethRepr {
            res_type: 2,
            next_header: 3,
            vendor_info: 0x5A,
            spdcid: 1,
            dpdcid: 2,
            cc_type: 3,
            cc_flags: 0xC,
            tx_timestamp: 0x4321,
            ..NethRepr::new(NackReason::PSN_OOR_WINDOW, Psn::new(0x12_3456), Ev::new(0xAABB_CCDD))
        }
    }

    #[test]
    fn deconstruct() {
        let v = Neth::new_checked(&BYTES[..]).unwrap();
        assert_eq!((v.res_type(), v.next_header(), v.resv1()), (2, 3, 0));
        assert_eq!(v.reason(), NackReason::PSN_OOR_WINDOW);
        assert_eq!(v.vendor_info(), 0x5A);
        assert_eq!(v.entropy(), Ev::new(0xAABB_CCDD));
        assert_eq!((v.spdcid(), v.dpdcid()), (1, 2));
        assert_eq!(v.nack_psn(), Psn::new(0x12_3456));
        assert_eq!((v.cc_type(), v.cc_flags()), (3, 0xC));
        assert_eq!(v.tx_timestamp(), 0x4321);
    }

    #[test]
    fn construct() {
        let mut buf = [0xFFu8; 20];
        let mut v = Neth::new_unchecked(&mut buf[..]);
        v.set_res_type(2);
        v.set_next_header(3);
        v.set_resv1(0);
        v.set_reason(NackReason::PSN_OOR_WINDOW);
        v.set_vendor_info(0x5A);
        v.set_entropy(Ev::new(0xAABB_CCDD));
        v.set_spdcid(1);
        v.set_dpdcid(2);
        v.set_resv12(0);
        v.set_nack_psn(Psn::new(0x12_3456));
        v.set_cc(3, 0xC);
        v.set_resv17(0);
        v.set_tx_timestamp(0x4321);
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(NethRepr::parse(&BYTES).unwrap(), sample());
        let mut buf = [0u8; 20];
        assert_eq!(sample().emit(&mut buf), Ok(20));
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn unknown_reason_survives_and_is_reported() {
        let mut b = BYTES;
        b[2] = 0x42;
        let r = NethRepr::parse(&b).unwrap();
        assert_eq!(r.reason, NackReason(0x42));
        let mut out = [0u8; 20];
        r.emit(&mut out).unwrap();
        assert_eq!(out, b);
        let mut v = Vec::new();
        r.validate(54, &mut v);
        assert_eq!(v.len(), 1);
        assert_eq!(
            (v[0].requirement, v[0].offset, v[0].value),
            ("NETH-REASON-001", Some(56), 0x42)
        );
    }

    #[test]
    fn reasons() {
        assert_eq!(NackReason::TRIMMED.name(), Some("TRIMMED"));
        assert_eq!(NackReason(0x19), NackReason::UNEXP_EVENT);
        assert_eq!(NackReason(0x03).name(), None);
        assert!(NackReason::UNEXP_EVENT.is_fatal() && !NackReason::NO_BITMAP.is_fatal());
        assert!(NackReason::TRIMMED.is_trim() && NackReason::TRIMMED_LASTHOP.is_trim());
        assert!(!NackReason::PSN_OOR_WINDOW.is_trim());
        assert_eq!(alloc::format!("{}", NackReason(0x42)), "UNKNOWN(0x42)");
        assert_eq!(alloc::format!("{:?}", NackReason::NO_RESOURCE), "NO_RESOURCE(0x0a)");
    }

    #[test]
    fn truncation_names_field_and_offset() {
        assert_eq!(
            NethRepr::parse(&BYTES[..15]).unwrap_err(),
            DecodeError::truncated(Header::Neth, "nack_psn", 13, 3, 2)
        );
        assert_eq!(NethRepr::parse(&BYTES[..19]).unwrap_err().field, "tx_timestamp");
        assert_eq!(NethRepr::parse(&BYTES[..2]).unwrap_err().field, "reason");
    }

    #[test]
    fn emit_never_panics() {
        assert!(matches!(
            sample().emit(&mut [0u8; 19]),
            Err(EmitError::BufferTooShort { header: Header::Neth, need: 20, have: 19 })
        ));
        let cases = [
            (NethRepr { res_type: 16, ..sample() }, "res_type"),
            (NethRepr { next_header: 32, ..sample() }, "next_header"),
            (NethRepr { resv1: 0x80, ..sample() }, "resv1"),
            (NethRepr { cc_type: 16, ..sample() }, "cc_type"),
            (NethRepr { cc_flags: 16, ..sample() }, "cc_flags"),
        ];
        for (r, name) in cases {
            match r.emit(&mut [0u8; 20]) {
                Err(EmitError::FieldOutOfRange { field, .. }) => assert_eq!(field, name),
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn validate_flags_reserved() {
        let mut out = Vec::new();
        sample().validate(0, &mut out);
        assert!(out.is_empty());
        NethRepr { resv1: 1, resv12: 2, resv17: 3, ..sample() }.validate(54, &mut out);
        let got: Vec<_> = out.iter().map(|v| (v.requirement, v.field, v.offset)).collect();
        assert_eq!(
            got,
            [
                ("NETH-RESV-001", "resv1", Some(55)),
                ("NETH-RESV-001", "resv12", Some(66)),
                ("NETH-RESV-001", "resv17", Some(71)),
            ]
        );
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4E45_5448);
        for _ in 0..1000 {
            let mut bytes = [0u8; NETH_LEN];
            rng.fill_bytes(&mut bytes);
            let mut out = [0u8; NETH_LEN];
            assert_eq!(NethRepr::parse(&bytes).unwrap().emit(&mut out), Ok(NETH_LEN));
            assert_eq!(out, bytes);
        }
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4E45_5448);
        let mut raw = [0u8; 64];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = NethRepr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut out = [0u8; NETH_LEN];
            assert_eq!(r.emit(&mut out), Ok(NETH_LEN));
            assert_eq!(NethRepr::parse(&out).unwrap(), r);
        }
    }
}
