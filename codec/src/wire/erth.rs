//! MRC endpoint request header, 16 bytes (requirements `ERTH-*`).
//!
//! ```text
//!  byte 0     op            endpoint operation (EndpointOp)
//!  byte 1-3   resv1         24 bits
//!  byte 4-7   port_status   bit p set = port p is up
//!  byte 8-11  request_id    echoed by the EETH that answers this request
//!  byte 12-15 resv12
//! ```
//!
//! Endpoint requests are connectionless and go to the reserved QPN 2
//! ([`Qpn::ENDPOINT`](crate::Qpn::ENDPOINT)); a port-status update lets the peer move
//! traffic off a failed port at once. The operation codes and the port-status mask in
//! bytes 4-7 come from MRC; the rest of the layout (a request identifier in bytes 8-11,
//! reserved bytes elsewhere) is this project's choice, recorded in `spec/`.
//!
//! The view's accessors never panic once [`Erth::new_checked`] (or [`Erth::check_len`])
//! has succeeded; `new_unchecked` followed by an accessor on a short buffer panics.

use core::fmt;

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};
use crate::field::{set_u24, set_u32, u24_at, u32_at};

/// Length of the ERTH in bytes.
pub const ERTH_LEN: usize = 16;

mod field {
    pub(super) const OP: usize = 0;
    pub(super) const RESV1: usize = 1;
    pub(super) const PORT_STATUS: usize = 4;
    pub(super) const REQUEST_ID: usize = 8;
    pub(super) const RESV12: usize = 12;
}

/// Fields in wire order as (name, offset, length): names the first field a short buffer
/// cannot hold.
const LAYOUT: &[(&str, usize, usize)] = &[
    ("op", field::OP, 1),
    ("resv1", field::RESV1, 3),
    ("port_status", field::PORT_STATUS, 4),
    ("request_id", field::REQUEST_ID, 4),
    ("resv12", field::RESV12, 4),
];

/// An endpoint operation (ERTH and EETH byte 0). Lossless: every byte value is an
/// `EndpointOp`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct EndpointOp(pub u8);

impl EndpointOp {
    /// 0: the sender reports which of its ports are up.
    pub const PORT_STATUS_UPDATE: EndpointOp = EndpointOp(0);
    /// 1: entropy-value probe.
    pub const EV_PROBE: EndpointOp = EndpointOp(1);

    /// The specification's name, or `None` for a code this crate does not know.
    pub const fn name(self) -> Option<&'static str> {
        match self.0 {
            0 => Some("PORT_STATUS_UPDATE"),
            1 => Some("EV_PROBE"),
            _ => None,
        }
    }

    /// Whether this crate knows the code (`ERTH-OP-001`, `EETH-OP-002`).
    pub const fn is_known(self) -> bool {
        self.name().is_some()
    }
}

impl fmt::Debug for EndpointOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({:#04x})", self.0),
            None => write!(f, "EndpointOp({:#04x})", self.0),
        }
    }
}

impl fmt::Display for EndpointOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "UNKNOWN({:#04x})", self.0),
        }
    }
}

/// Whether bit `port` of a port-status mask is set. Ports 32 and above are never up.
pub(crate) const fn port_is_up(port_status: u32, port: u32) -> bool {
    port < 32 && (port_status >> port) & 1 != 0
}

/// A zero-copy view of an ERTH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Erth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Erth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Erth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole ERTH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole ERTH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        match LAYOUT.iter().find(|&&(_, at, len)| have < at + len) {
            Some(&(name, at, len)) => {
                Err(DecodeError::truncated(Header::Erth, name, at, len, have.saturating_sub(at)))
            }
            None => Ok(()),
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Endpoint operation.
    pub fn op(&self) -> EndpointOp {
        EndpointOp(self.buffer.as_ref()[field::OP])
    }
    /// Reserved bytes 1-3, 24 bits.
    pub fn resv1(&self) -> u32 {
        u24_at(self.buffer.as_ref(), field::RESV1)
    }
    /// Port-status mask: bit p set = port p is up.
    pub fn port_status(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::PORT_STATUS)
    }
    /// Request identifier.
    pub fn request_id(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::REQUEST_ID)
    }
    /// Reserved bytes 12-15.
    pub fn resv12(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::RESV12)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Erth<T> {
    /// Sets the endpoint operation.
    pub fn set_op(&mut self, v: EndpointOp) {
        self.buffer.as_mut()[field::OP] = v.0;
    }
    /// Sets reserved bytes 1-3; bits above 24 are discarded.
    pub fn set_resv1(&mut self, v: u32) {
        set_u24(self.buffer.as_mut(), field::RESV1, v);
    }
    /// Sets the port-status mask.
    pub fn set_port_status(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::PORT_STATUS, v);
    }
    /// Sets the request identifier.
    pub fn set_request_id(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::REQUEST_ID, v);
    }
    /// Sets reserved bytes 12-15.
    pub fn set_resv12(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::RESV12, v);
    }
}

/// An owned, decoded ERTH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct ErthRepr {
    /// Endpoint operation (byte 0); should be a known code (`ERTH-OP-001`).
    pub op: EndpointOp,
    /// Reserved, 24 bits (bytes 1-3); must be 0 (`ERTH-RESV-001`).
    #[cfg_attr(feature = "arbitrary", arbitrary(with = crate::field::arb::bits24))]
    pub resv1: u32,
    /// Port-status mask (bytes 4-7): bit p set = port p is up.
    pub port_status: u32,
    /// Request identifier (bytes 8-11), echoed by the response.
    pub request_id: u32,
    /// Reserved bytes 12-15; must be 0 (`ERTH-RESV-001`).
    pub resv12: u32,
}

impl ErthRepr {
    /// A request with the given operation, port-status mask and identifier.
    pub const fn new(op: EndpointOp, port_status: u32, request_id: u32) -> Self {
        ErthRepr { op, resv1: 0, port_status, request_id, resv12: 0 }
    }

    /// Whether port `port` is up in the port-status mask.
    pub const fn port_up(&self, port: u32) -> bool {
        port_is_up(self.port_status, port)
    }

    /// Decodes an ERTH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Erth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Erth<T>) -> Self {
        ErthRepr {
            op: v.op(),
            resv1: v.resv1(),
            port_status: v.port_status(),
            request_id: v.request_id(),
            resv12: v.resv12(),
        }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        ERTH_LEN
    }

    /// Writes the ERTH into the start of `buf`. Never panics: a short buffer or a field
    /// that does not fit its bits is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Erth, buf, ERTH_LEN)?;
        check_range(Header::Erth, "resv1", self.resv1.into(), 0xFF_FFFF)?;
        let mut v = Erth::new_unchecked(&mut buf[..ERTH_LEN]);
        v.set_op(self.op);
        v.set_resv1(self.resv1);
        v.set_port_status(self.port_status);
        v.set_request_id(self.request_id);
        v.set_resv12(self.resv12);
        Ok(ERTH_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["ERTH-OP-001", "ERTH-RESV-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    /// An unknown operation is a violation, never a decode error.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        let v = |requirement, field, at: usize, value: u32, rule| Violation {
            requirement,
            header: Header::Erth,
            field,
            offset: Some(base + at),
            value: value.into(),
            rule,
        };
        if !self.op.is_known() {
            out.push(v(
                "ERTH-OP-001",
                "op",
                field::OP,
                self.op.0.into(),
                "op must be PORT_STATUS_UPDATE (0) or EV_PROBE (1)",
            ));
        }
        let resv = "reserved fields of ERTH must be 0";
        if self.resv1 != 0 {
            out.push(v("ERTH-RESV-001", "resv1", field::RESV1, self.resv1, resv));
        }
        if self.resv12 != 0 {
            out.push(v("ERTH-RESV-001", "resv12", field::RESV12, self.resv12, resv));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    const BYTES: [u8; 16] = [
        0x00, 0, 0, 0, // PORT_STATUS_UPDATE, resv1
        0x00, 0x00, 0x00, 0x0B, // ports 0, 1, 3 up
        0x00, 0x00, 0x01, 0x00, // request_id 256
        0, 0, 0, 0, // resv12
    ];

    fn sample() -> ErthRepr {
        ErthRepr::new(EndpointOp::PORT_STATUS_UPDATE, 0b1011, 256)
    }

    #[test]
    fn deconstruct() {
        let v = Erth::new_checked(&BYTES[..]).unwrap();
        assert_eq!(v.op(), EndpointOp::PORT_STATUS_UPDATE);
        assert_eq!(v.resv1(), 0);
        assert_eq!(v.port_status(), 0b1011);
        assert_eq!(v.request_id(), 256);
        assert_eq!(v.resv12(), 0);
    }

    #[test]
    fn construct() {
        let mut buf = [0xFFu8; 16];
        let mut v = Erth::new_unchecked(&mut buf[..]);
        v.set_op(EndpointOp::PORT_STATUS_UPDATE);
        v.set_resv1(0);
        v.set_port_status(0b1011);
        v.set_request_id(256);
        v.set_resv12(0);
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(ErthRepr::parse(&BYTES).unwrap(), sample());
        let mut buf = [0u8; 16];
        assert_eq!(sample().emit(&mut buf), Ok(16));
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn ports_and_ops() {
        let r = sample();
        let up: Vec<u32> = (0..40).filter(|&p| r.port_up(p)).collect();
        assert_eq!(up, [0, 1, 3]);
        assert!(port_is_up(u32::MAX, 31) && !port_is_up(u32::MAX, 32));
        assert_eq!(EndpointOp::EV_PROBE.name(), Some("EV_PROBE"));
        assert_eq!(EndpointOp(7).name(), None);
        assert_eq!(alloc::format!("{}", EndpointOp(7)), "UNKNOWN(0x07)");
    }

    #[test]
    fn truncation_names_field_and_offset() {
        assert_eq!(
            ErthRepr::parse(&BYTES[..10]).unwrap_err(),
            DecodeError::truncated(Header::Erth, "request_id", 8, 4, 2)
        );
        assert_eq!(ErthRepr::parse(&BYTES[..15]).unwrap_err().field, "resv12");
        assert_eq!(ErthRepr::parse(&BYTES[..1]).unwrap_err().field, "resv1");
    }

    #[test]
    fn emit_never_panics() {
        assert!(matches!(
            sample().emit(&mut [0u8; 15]),
            Err(EmitError::BufferTooShort { header: Header::Erth, need: 16, have: 15 })
        ));
        let bad = ErthRepr { resv1: 1 << 24, ..sample() };
        assert!(matches!(
            bad.emit(&mut [0u8; 16]),
            Err(EmitError::FieldOutOfRange { field: "resv1", .. })
        ));
    }

    #[test]
    fn validate_flags_op_and_reserved() {
        let mut out = Vec::new();
        sample().validate(0, &mut out);
        ErthRepr::new(EndpointOp::EV_PROBE, 0, 0).validate(0, &mut out);
        assert!(out.is_empty());
        let r = ErthRepr { op: EndpointOp(9), resv1: 1, resv12: 2, ..sample() };
        let mut buf = [0u8; 16];
        r.emit(&mut buf).unwrap();
        assert_eq!(ErthRepr::parse(&buf).unwrap(), r);
        r.validate(42, &mut out);
        let got: Vec<_> = out.iter().map(|v| (v.requirement, v.field, v.offset)).collect();
        assert_eq!(
            got,
            [
                ("ERTH-OP-001", "op", Some(42)),
                ("ERTH-RESV-001", "resv1", Some(43)),
                ("ERTH-RESV-001", "resv12", Some(54)),
            ]
        );
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4552_5448);
        for _ in 0..1000 {
            let mut bytes = [0u8; ERTH_LEN];
            rng.fill_bytes(&mut bytes);
            let mut out = [0u8; ERTH_LEN];
            assert_eq!(ErthRepr::parse(&bytes).unwrap().emit(&mut out), Ok(ERTH_LEN));
            assert_eq!(out, bytes);
        }
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4552_5448);
        let mut raw = [0u8; 64];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = ErthRepr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut out = [0u8; ERTH_LEN];
            assert_eq!(r.emit(&mut out), Ok(ERTH_LEN));
            assert_eq!(ErthRepr::parse(&out).unwrap(), r);
        }
    }
}
