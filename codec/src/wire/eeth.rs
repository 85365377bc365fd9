//! MRC endpoint response header, 36 bytes (requirements `EETH-*`).
//!
//! ```text
//!  byte 0     op            endpoint operation being answered (EndpointOp)
//!  byte 1     status        0 = success, anything else = error
//!  byte 2-3   resv2
//!  byte 4-7   port_status   bit p set = port p is up
//!  byte 8-11  request_id    the request identifier of the ERTH being answered
//!  byte 12-35 data          24 opaque bytes, carried
//! ```
//!
//! An EETH answers an ERTH; like it, it is connectionless and uses QPN 2. The operation
//! codes and the port-status mask come from MRC; the rest of the layout (status byte,
//! request identifier, opaque data) is this project's choice, recorded in `spec/`.
//!
//! The view's accessors never panic once [`Eeth::new_checked`] (or [`Eeth::check_len`])
//! has succeeded; `new_unchecked` followed by an accessor on a short buffer panics.

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer};
use crate::field::{set_u16, set_u32, u16_at, u32_at};
use crate::wire::erth::{EndpointOp, port_is_up};

/// Length of the EETH in bytes.
pub const EETH_LEN: usize = 36;
/// Length of the opaque data at the end of an EETH.
pub const EETH_DATA_LEN: usize = 24;

mod field {
    pub(super) const OP: usize = 0;
    pub(super) const STATUS: usize = 1;
    pub(super) const RESV2: usize = 2;
    pub(super) const PORT_STATUS: usize = 4;
    pub(super) const REQUEST_ID: usize = 8;
    pub(super) const DATA: usize = 12;
}

/// Fields in wire order as (name, offset, length): names the first field a short buffer
/// cannot hold.
const LAYOUT: &[(&str, usize, usize)] = &[
    ("op", field::OP, 1),
    ("status", field::STATUS, 1),
    ("resv2", field::RESV2, 2),
    ("port_status", field::PORT_STATUS, 4),
    ("request_id", field::REQUEST_ID, 4),
    ("data", field::DATA, EETH_DATA_LEN),
];

/// A zero-copy view of an EETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eeth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Eeth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Eeth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole EETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole EETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        match LAYOUT.iter().find(|&&(_, at, len)| have < at + len) {
            Some(&(name, at, len)) => {
                Err(DecodeError::truncated(Header::Eeth, name, at, len, have.saturating_sub(at)))
            }
            None => Ok(()),
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Endpoint operation being answered.
    pub fn op(&self) -> EndpointOp {
        EndpointOp(self.buffer.as_ref()[field::OP])
    }
    /// Status: 0 = success.
    pub fn status(&self) -> u8 {
        self.buffer.as_ref()[field::STATUS]
    }
    /// Reserved bytes 2-3.
    pub fn resv2(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::RESV2)
    }
    /// Port-status mask: bit p set = port p is up.
    pub fn port_status(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::PORT_STATUS)
    }
    /// Request identifier of the ERTH being answered.
    pub fn request_id(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::REQUEST_ID)
    }
    /// The 24 opaque data bytes.
    pub fn data(&self) -> &[u8] {
        &self.buffer.as_ref()[field::DATA..field::DATA + EETH_DATA_LEN]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Eeth<T> {
    /// Sets the endpoint operation.
    pub fn set_op(&mut self, v: EndpointOp) {
        self.buffer.as_mut()[field::OP] = v.0;
    }
    /// Sets the status.
    pub fn set_status(&mut self, v: u8) {
        self.buffer.as_mut()[field::STATUS] = v;
    }
    /// Sets reserved bytes 2-3.
    pub fn set_resv2(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::RESV2, v);
    }
    /// Sets the port-status mask.
    pub fn set_port_status(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::PORT_STATUS, v);
    }
    /// Sets the request identifier.
    pub fn set_request_id(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::REQUEST_ID, v);
    }
    /// The 24 opaque data bytes, mutable.
    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[field::DATA..field::DATA + EETH_DATA_LEN]
    }
}

/// An owned, decoded EETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct EethRepr {
    /// Endpoint operation being answered (byte 0): the request's, echoed (`EETH-ECHO-001`),
    /// and a known code unless the status is [`EethRepr::UNSUPPORTED_OP`] (`EETH-OP-002`).
    pub op: EndpointOp,
    /// Status (byte 1): [`EethRepr::SUCCESS`], [`EethRepr::UNSUPPORTED_OP`], or another
    /// non-zero error (`EETH-STATUS-001`).
    pub status: u8,
    /// Reserved bytes 2-3; must be 0 (`EETH-RESV-001`).
    pub resv2: u16,
    /// Port-status mask (bytes 4-7): bit p set = port p is up.
    pub port_status: u32,
    /// Request identifier of the ERTH being answered (bytes 8-11).
    pub request_id: u32,
    /// Opaque data (bytes 12-35), carried; serialized as an array of 24 numbers.
    pub data: [u8; EETH_DATA_LEN],
}

impl EethRepr {
    /// Status 0: the responder performed the operation (`EETH-STATUS-001`).
    pub const SUCCESS: u8 = 0;
    /// Status 1: the responder does not implement the operation (`EETH-STATUS-001`).
    pub const UNSUPPORTED_OP: u8 = 1;

    /// A successful response to `op`/`request_id`, with the given port-status mask and
    /// zero data.
    pub const fn new(op: EndpointOp, port_status: u32, request_id: u32) -> Self {
        EethRepr { op, status: 0, resv2: 0, port_status, request_id, data: [0; EETH_DATA_LEN] }
    }

    /// Whether the status reports success.
    pub const fn is_success(&self) -> bool {
        self.status == 0
    }

    /// Whether port `port` is up in the port-status mask.
    pub const fn port_up(&self, port: u32) -> bool {
        port_is_up(self.port_status, port)
    }

    /// Decodes an EETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Eeth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Eeth<T>) -> Self {
        let mut data = [0u8; EETH_DATA_LEN];
        data.copy_from_slice(v.data());
        EethRepr {
            op: v.op(),
            status: v.status(),
            resv2: v.resv2(),
            port_status: v.port_status(),
            request_id: v.request_id(),
            data,
        }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        EETH_LEN
    }

    /// Writes the EETH into the start of `buf`. Never panics: a short buffer is an
    /// [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Eeth, buf, EETH_LEN)?;
        let mut v = Eeth::new_unchecked(&mut buf[..EETH_LEN]);
        v.set_op(self.op);
        v.set_status(self.status);
        v.set_resv2(self.resv2);
        v.set_port_status(self.port_status);
        v.set_request_id(self.request_id);
        v.data_mut().copy_from_slice(&self.data);
        Ok(EETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["EETH-OP-002", "EETH-RESV-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    /// An unknown operation is a violation, never a decode error, except in a response that
    /// reports it `UNSUPPORTED_OP`: that response echoes a request's unknown `op`, as it must
    /// (`EETH-OP-002`, `EETH-ECHO-001`). An error status is not a violation.
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        if !self.op.is_known() && self.status != Self::UNSUPPORTED_OP {
            out.push(Violation {
                requirement: "EETH-OP-002",
                header: Header::Eeth,
                field: "op",
                offset: Some(base + field::OP),
                value: self.op.0.into(),
                rule: "op must be PORT_STATUS_UPDATE (0) or EV_PROBE (1) unless the status is \
                       UNSUPPORTED_OP (1)",
            });
        }
        if self.resv2 != 0 {
            out.push(Violation {
                requirement: "EETH-RESV-001",
                header: Header::Eeth,
                field: "resv2",
                offset: Some(base + field::RESV2),
                value: self.resv2.into(),
                rule: "reserved bytes 2-3 of EETH must be 0",
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn bytes() -> [u8; 36] {
        let mut b = [0u8; 36];
        b[0] = 0x01; // EV_PROBE
        b[1] = 0x00; // success
        b[4..8].copy_from_slice(&[0, 0, 0, 0x0F]);
        b[8..12].copy_from_slice(&[0xAB, 0xCD, 0xEF, 0x01]);
        for (i, x) in b[12..].iter_mut().enumerate() {
            *x = i as u8;
        }
        b
    }

    fn sample() -> EethRepr {
        let mut data = [0u8; 24];
        for (i, x) in data.iter_mut().enumerate() {
            *x = i as u8;
        }
        EethRepr { data, ..EethRepr::new(EndpointOp::EV_PROBE, 0x0F, 0xABCD_EF01) }
    }

    #[test]
    fn deconstruct() {
        let b = bytes();
        let v = Eeth::new_checked(&b[..]).unwrap();
        assert_eq!(v.op(), EndpointOp::EV_PROBE);
        assert_eq!(v.status(), 0);
        assert_eq!(v.resv2(), 0);
        assert_eq!(v.port_status(), 0x0F);
        assert_eq!(v.request_id(), 0xABCD_EF01);
        assert_eq!(v.data()[23], 23);
    }

    #[test]
    fn construct() {
        let mut buf = [0xFFu8; 36];
        let mut v = Eeth::new_unchecked(&mut buf[..]);
        v.set_op(EndpointOp::EV_PROBE);
        v.set_status(0);
        v.set_resv2(0);
        v.set_port_status(0x0F);
        v.set_request_id(0xABCD_EF01);
        v.data_mut().copy_from_slice(&sample().data);
        assert_eq!(buf, bytes());
    }

    #[test]
    fn parse_and_emit() {
        let r = EethRepr::parse(&bytes()).unwrap();
        assert_eq!(r, sample());
        assert!(r.is_success() && r.port_up(3) && !r.port_up(4));
        let mut buf = [0u8; 36];
        assert_eq!(sample().emit(&mut buf), Ok(36));
        assert_eq!(buf, bytes());
    }

    #[test]
    fn truncation_names_field_and_offset() {
        assert_eq!(
            EethRepr::parse(&bytes()[..30]).unwrap_err(),
            DecodeError::truncated(Header::Eeth, "data", 12, 24, 18)
        );
        assert_eq!(EethRepr::parse(&bytes()[..1]).unwrap_err().field, "status");
    }

    #[test]
    fn emit_never_panics() {
        assert_eq!(
            sample().emit(&mut [0u8; 35]),
            Err(EmitError::BufferTooShort { header: Header::Eeth, need: 36, have: 35 })
        );
    }

    #[test]
    fn validate_flags_op_and_reserved() {
        let mut out = Vec::new();
        sample().validate(0, &mut out);
        // An error status is a legal answer.
        EethRepr { status: 3, ..sample() }.validate(0, &mut out);
        assert!(out.is_empty());
        EethRepr { op: EndpointOp(0x80), resv2: 1, ..sample() }.validate(42, &mut out);
        let got: Vec<_> = out.iter().map(|v| (v.requirement, v.offset)).collect();
        assert_eq!(got, [("EETH-OP-002", Some(42)), ("EETH-RESV-001", Some(44))]);
        // EETH-OP-002: the answer to an unknown request echoes its op, reported UNSUPPORTED.
        out.clear();
        let unsupported =
            EethRepr { op: EndpointOp(0x80), status: EethRepr::UNSUPPORTED_OP, ..sample() };
        unsupported.validate(0, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4545_5448);
        for _ in 0..1000 {
            let mut bytes = [0u8; EETH_LEN];
            rng.fill_bytes(&mut bytes);
            let mut out = [0u8; EETH_LEN];
            assert_eq!(EethRepr::parse(&bytes).unwrap().emit(&mut out), Ok(EETH_LEN));
            assert_eq!(out, bytes);
        }
    }
}
