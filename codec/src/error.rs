//! Errors of the codec.
//!
//! The codec distinguishes three kinds of trouble, after rustls:
//!
//! * [`DecodeError`]: the bytes cannot be represented at all (too short, a length field
//!   that points past the end, a checksum that is not there). It names the header, the
//!   field and the absolute byte offset in the frame where decoding stopped.
//! * [`Violation`]: the bytes decode, but break a rule of the specification (a reserved
//!   bit set, a TVer that is not zero, a write without METH). Each carries the requirement
//!   ID of the sentence it breaks. Violations come from `validate()`, never from decoding,
//!   so a checker can always see what a device really sent.
//! * [`EmitError`]: the caller asked to emit something that cannot be written (a buffer
//!   that is too short, a field value that does not fit in its bits).
//!
//! [`Error`] holds any of them, and the host formats' refusals ([`TemplateError`],
//! [`DoorbellReject`]), for a caller that wants one type; [`Error::requirement`] names the
//! requirement an error enforces, where the specification has one.

use core::fmt;

use crate::host::{DoorbellReject, TemplateError};
use crate::icrc::IcrcError;
use crate::id::TooWide;
use crate::wire::ParseEthernetAddressError;

/// Any error of the codec, by who is at fault (after rustls): bytes that cannot be decoded
/// or that break a rule, a caller that asks for what cannot be written, a host structure
/// that the specification refuses.
///
/// Each variant wraps the error of one family unchanged; [`Error::requirement`] names the
/// requirement it enforces, where there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Bytes that cannot be represented.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// Bytes that decode but break a rule of the specification.
    #[error(transparent)]
    Violation(#[from] Violation),
    /// A `Repr` that cannot be emitted.
    #[error(transparent)]
    Emit(#[from] EmitError),
    /// A buffer over which no ICRC can be computed.
    #[error(transparent)]
    Icrc(#[from] IcrcError),
    /// A template that may not be installed.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// A doorbell token that a NIC rejects.
    #[error(transparent)]
    Doorbell(#[from] DoorbellReject),
    /// A value too wide for the number it was given as.
    #[error(transparent)]
    TooWide(#[from] TooWide),
    /// Text that is not a MAC address.
    #[error(transparent)]
    EthernetAddress(#[from] ParseEthernetAddressError),
}

impl Error {
    /// The requirement ID the error enforces: the decode check that stopped the decoder
    /// ([`DecodeError::requirement`]), the rule a violation breaks, the template or doorbell
    /// rule that refuses. `None` for a caller's mistake (an emit, an ICRC over a buffer that
    /// is not a packet, a value too wide, a malformed MAC address), which breaks no rule of
    /// the specification.
    pub fn requirement(&self) -> Option<&'static str> {
        match self {
            Error::Decode(e) => Some(e.requirement()),
            Error::Violation(v) => Some(v.requirement),
            Error::Template(e) => Some(e.requirement()),
            Error::Doorbell(e) => Some(e.requirement()),
            Error::Emit(_) | Error::Icrc(_) | Error::TooWide(_) | Error::EthernetAddress(_) => None,
        }
    }
}

/// The header (or region of a frame) an error or field belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Header {
    /// Ethernet II header.
    Eth,
    /// Linux cooked header, version 1.
    Sll,
    /// Linux cooked header, version 2.
    Sll2,
    /// IEEE 802.1Q tag.
    Vlan,
    /// IPv4 header.
    Ipv4,
    /// IPv6 header.
    Ipv6,
    /// UDP header.
    Udp,
    /// Base Transport Header.
    Bth,
    /// MRC Message Extended Transport Header.
    Meth,
    /// MRC requester timestamp extended header.
    Tseth,
    /// RDMA Extended Transport Header.
    Reth,
    /// Immediate data.
    ImmDt,
    /// ACK Extended Transport Header.
    Aeth,
    /// MRC SACK Extended Transport Header.
    Seth,
    /// MRC congestion-control state that follows SETH.
    CcState,
    /// MRC NACK Extended Transport Header.
    Neth,
    /// MRC probe Extended Transport Header.
    Peth,
    /// MRC endpoint request header.
    Erth,
    /// MRC endpoint response header.
    Eeth,
    /// Datagram Extended Transport Header (UD, RD).
    Deth,
    /// Reliable Datagram Extended Transport Header (RD).
    Rdeth,
    /// XRC Extended Transport Header (XRC requests).
    Xrceth,
    /// Invalidate Extended Transport Header.
    Ieth,
    /// Atomic Extended Transport Header.
    AtomicEth,
    /// Atomic ACK Extended Transport Header.
    AtomicAckEth,
    /// FLUSH Extended Transport Header.
    Feth,
    /// The 16 reserved bytes of a CNP.
    Cnp,
    /// The payload and its pad bytes.
    Payload,
    /// The invariant CRC trailer.
    Icrc,
    /// The 8-byte doorbell token.
    Doorbell,
    /// A work request.
    WorkRequest,
    /// A completion entry.
    Completion,
    /// A completion flag.
    Flag,
}

impl Header {
    /// The lower-case name used in JSON output and in the specification.
    pub const fn name(self) -> &'static str {
        match self {
            Header::Eth => "eth",
            Header::Sll => "sll",
            Header::Sll2 => "sll2",
            Header::Vlan => "vlan",
            Header::Ipv4 => "ipv4",
            Header::Ipv6 => "ipv6",
            Header::Udp => "udp",
            Header::Bth => "bth",
            Header::Meth => "meth",
            Header::Tseth => "tseth",
            Header::Reth => "reth",
            Header::ImmDt => "immdt",
            Header::Aeth => "aeth",
            Header::Seth => "seth",
            Header::CcState => "cc_state",
            Header::Neth => "neth",
            Header::Peth => "peth",
            Header::Erth => "erth",
            Header::Eeth => "eeth",
            Header::Deth => "deth",
            Header::Rdeth => "rdeth",
            Header::Xrceth => "xrceth",
            Header::Ieth => "ieth",
            Header::AtomicEth => "atomiceth",
            Header::AtomicAckEth => "atomicacketh",
            Header::Feth => "feth",
            Header::Cnp => "cnp",
            Header::Payload => "payload",
            Header::Icrc => "icrc",
            Header::Doorbell => "doorbell",
            Header::WorkRequest => "work_request",
            Header::Completion => "completion",
            Header::Flag => "flag",
        }
    }

    /// The name as the specification writes it (`BTH`, `SETH`, `CC_STATE`, ...).
    pub const fn spec_name(self) -> &'static str {
        match self {
            Header::Eth => "Ethernet",
            Header::Sll => "SLL",
            Header::Sll2 => "SLL2",
            Header::Vlan => "802.1Q",
            Header::Ipv4 => "IPv4",
            Header::Ipv6 => "IPv6",
            Header::Udp => "UDP",
            Header::Bth => "BTH",
            Header::Meth => "METH",
            Header::Tseth => "TSETH",
            Header::Reth => "RETH",
            Header::ImmDt => "ImmDt",
            Header::Aeth => "AETH",
            Header::Seth => "SETH",
            Header::CcState => "CC_STATE",
            Header::Neth => "NETH",
            Header::Peth => "PETH",
            Header::Erth => "ERTH",
            Header::Eeth => "EETH",
            Header::Deth => "DETH",
            Header::Rdeth => "RDETH",
            Header::Xrceth => "XRCETH",
            Header::Ieth => "IETH",
            Header::AtomicEth => "AtomicETH",
            Header::AtomicAckEth => "AtomicAckETH",
            Header::Feth => "FETH",
            Header::Cnp => "CNP",
            Header::Payload => "payload",
            Header::Icrc => "ICRC",
            Header::Doorbell => "doorbell",
            Header::WorkRequest => "work request",
            Header::Completion => "completion",
            Header::Flag => "flag",
        }
    }
}

impl fmt::Display for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spec_name())
    }
}

/// What went wrong while decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The field needs `need` bytes from its offset, but only `have` are left.
    Truncated {
        /// Bytes the field needs.
        need: usize,
        /// Bytes left in the buffer at the field's offset.
        have: usize,
    },
    /// A length field claims more (or fewer) bytes than the enclosing layer holds.
    LengthMismatch {
        /// The value of the length field, in bytes.
        claimed: usize,
        /// What the enclosing layer actually provides, in bytes.
        available: usize,
    },
    /// A value that the structure cannot represent (for example an IP version of 5 in an
    /// IPv4 header, or an IPv4 header length below 20 bytes).
    BadValue {
        /// The value found.
        value: u64,
    },
}

/// A frame or header that cannot be decoded: names the header, the field and the absolute
/// byte offset of the field in the buffer handed to the decoder.
///
/// Its `Display` reads like `SETH.sack_bitmap truncated at byte 82: need 8, have 3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DecodeError {
    /// The header being decoded.
    pub header: Header,
    /// The field (snake_case, as in the specification) where decoding stopped.
    pub field: &'static str,
    /// Absolute byte offset of that field.
    pub offset: usize,
    /// What is wrong.
    pub kind: DecodeErrorKind,
}

impl DecodeError {
    /// A truncation error.
    pub const fn truncated(
        header: Header,
        field: &'static str,
        offset: usize,
        need: usize,
        have: usize,
    ) -> Self {
        DecodeError { header, field, offset, kind: DecodeErrorKind::Truncated { need, have } }
    }

    /// A length field that does not agree with the data around it.
    pub const fn length(
        header: Header,
        field: &'static str,
        offset: usize,
        claimed: usize,
        available: usize,
    ) -> Self {
        DecodeError {
            header,
            field,
            offset,
            kind: DecodeErrorKind::LengthMismatch { claimed, available },
        }
    }

    /// A value the structure cannot represent.
    pub const fn bad_value(header: Header, field: &'static str, offset: usize, value: u64) -> Self {
        DecodeError { header, field, offset, kind: DecodeErrorKind::BadValue { value } }
    }

    /// The requirement of the wire-format chapter that makes these bytes a decode error, by
    /// the check that stopped the decoder (one of `frame::DECODE_RULES`):
    ///
    /// * `ENC-IPV4-005`, `ENC-IPV6-002`: an IP version, or an IPv4 `ihl`, that the decoder
    ///   cannot follow;
    /// * `ENC-LEN-002`: the IP header does not fit in the frame, or its length field claims
    ///   more bytes than the frame holds (or, over IPv4, fewer than its own header);
    /// * `ENC-UDP-002`: the UDP length is less than 8, the length of its header (which no
    ///   IP payload that holds the header can agree with);
    /// * `ENC-LEN-001`: the UDP header does not fit in the IP payload, or its length
    ///   disagrees with it;
    /// * `ENC-LEN-004`: the UDP payload has no room for a BTH and an ICRC;
    /// * `PAY-PAD-003`: a `pad_count` larger than the bytes left before the ICRC;
    /// * `ENC-FRAME-001`: the packet ends before the extension headers its opcode calls
    ///   for;
    /// * `DEC-STRUCT-001` for anything else: a frame too short for its Ethernet header or
    ///   tag, a header or field that does not fit.
    pub fn requirement(&self) -> &'static str {
        use DecodeErrorKind::{BadValue, LengthMismatch, Truncated};
        match (self.header, self.field, self.kind) {
            (Header::Ipv4, "version" | "ihl", BadValue { .. }) => "ENC-IPV4-005",
            (Header::Ipv6, "version", BadValue { .. }) => "ENC-IPV6-002",
            (Header::Ipv4 | Header::Ipv6, _, Truncated { .. } | LengthMismatch { .. }) => {
                "ENC-LEN-002"
            }
            (Header::Udp, _, LengthMismatch { claimed, .. }) if claimed < 8 => "ENC-UDP-002",
            (Header::Udp, _, Truncated { .. } | LengthMismatch { .. }) => "ENC-LEN-001",
            (Header::Bth | Header::Icrc, _, Truncated { .. }) => "ENC-LEN-004",
            (Header::Payload, "pad", Truncated { .. }) => "PAY-PAD-003",
            (
                Header::Meth
                | Header::Tseth
                | Header::Reth
                | Header::ImmDt
                | Header::Aeth
                | Header::Seth
                | Header::CcState
                | Header::Neth
                | Header::Peth
                | Header::Erth
                | Header::Eeth
                | Header::Deth
                | Header::Rdeth
                | Header::Xrceth
                | Header::Ieth
                | Header::AtomicEth
                | Header::AtomicAckEth
                | Header::Feth
                | Header::Cnp
                | Header::Payload,
                _,
                Truncated { .. },
            ) => "ENC-FRAME-001",
            _ => "DEC-STRUCT-001",
        }
    }

    /// The same error with its offset moved by `base` bytes: used when a header decoded on
    /// its own is placed inside a frame.
    #[must_use]
    pub const fn at(mut self, base: usize) -> Self {
        self.offset += base;
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            DecodeErrorKind::Truncated { need, have } => write!(
                f,
                "{}.{} truncated at byte {}: need {}, have {}",
                self.header, self.field, self.offset, need, have
            ),
            DecodeErrorKind::LengthMismatch { claimed, available } => write!(
                f,
                "{}.{} at byte {} claims {} bytes, but {} are available",
                self.header, self.field, self.offset, claimed, available
            ),
            DecodeErrorKind::BadValue { value } => write!(
                f,
                "{}.{} at byte {} has value {:#x}, which cannot be decoded",
                self.header, self.field, self.offset, value
            ),
        }
    }
}

impl core::error::Error for DecodeError {}

/// Why a `Repr` could not be emitted. Emitting never panics; it returns this instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EmitError {
    /// The output buffer is shorter than `buffer_len()`.
    BufferTooShort {
        /// The header being emitted.
        header: Header,
        /// Bytes needed.
        need: usize,
        /// Bytes provided.
        have: usize,
    },
    /// A field holds a value that does not fit in its bits on the wire.
    FieldOutOfRange {
        /// The header being emitted.
        header: Header,
        /// The field.
        field: &'static str,
        /// The value found.
        value: u64,
        /// The largest value the field can carry.
        max: u64,
    },
    /// Two parts of a frame disagree in a way the builder cannot resolve (for example a
    /// payload too long for the IPv4 total length field).
    Inconsistent {
        /// The header being emitted.
        header: Header,
        /// The field.
        field: &'static str,
    },
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EmitError::BufferTooShort { header, need, have } => {
                write!(f, "cannot emit {header}: buffer holds {have} bytes, need {need}")
            }
            EmitError::FieldOutOfRange { header, field, value, max } => {
                write!(
                    f,
                    "cannot emit {header}.{field} = {value:#x}: the field holds at most {max:#x}"
                )
            }
            EmitError::Inconsistent { header, field } => {
                write!(f, "cannot emit {header}.{field}: it disagrees with the rest of the frame")
            }
        }
    }
}

impl core::error::Error for EmitError {}

/// Checks that `value` fits in a field whose largest value is `max`.
pub(crate) const fn check_range(
    header: Header,
    field: &'static str,
    value: u64,
    max: u64,
) -> Result<(), EmitError> {
    if value > max { Err(EmitError::FieldOutOfRange { header, field, value, max }) } else { Ok(()) }
}

/// Checks that `buf` can hold `need` bytes.
pub(crate) const fn check_buffer(header: Header, buf: &[u8], need: usize) -> Result<(), EmitError> {
    if buf.len() < need {
        Err(EmitError::BufferTooShort { header, need, have: buf.len() })
    } else {
        Ok(())
    }
}

/// A rule of the specification that decoded bytes break. Produced by `validate()`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Violation {
    /// The requirement ID of the broken sentence, e.g. `BTH-TVER-001`.
    pub requirement: &'static str,
    /// The header.
    pub header: Header,
    /// The field.
    pub field: &'static str,
    /// Absolute byte offset of the field in the frame, when known.
    pub offset: Option<usize>,
    /// The value found.
    pub value: u64,
    /// What the rule says, in a few words.
    pub rule: &'static str,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}.{} = {:#x}", self.requirement, self.header, self.field, self.value)?;
        if let Some(o) = self.offset {
            write!(f, " at byte {o}")?;
        }
        write!(f, ": {}", self.rule)
    }
}

impl core::error::Error for Violation {}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use super::*;
    use crate::TemplateId;

    /// Each family converts into `Error`, keeps its message, and names its requirement
    /// where it enforces one.
    #[test]
    fn one_error_names_its_requirement() {
        let decode = DecodeError::bad_value(Header::Ipv4, "version", 14, 5);
        let e = Error::from(decode);
        assert_eq!(e.requirement(), Some("ENC-IPV4-005"));
        assert_eq!(e.to_string(), decode.to_string());
        let tpl = TemplateError::IdOutOfRange { template_id: TemplateId::new(0x1000) };
        assert_eq!(Error::from(tpl).requirement(), Some("TPL-ID-001"));
        let v = Violation {
            requirement: "BTH-TVER-001",
            header: Header::Bth,
            field: "tver",
            offset: Some(1),
            value: 1,
            rule: "TVer must be 0",
        };
        assert_eq!(Error::from(v).requirement(), Some("BTH-TVER-001"));
        let emit = EmitError::BufferTooShort { header: Header::Bth, need: 12, have: 3 };
        assert_eq!(Error::from(emit).requirement(), None);
        assert_eq!(Error::from(IcrcError::NotIp(5)).requirement(), None);
    }
}
