//! Wire and host formats of OpenRDMA: RoCEv2 with the MRC (Multipath Reliable Connection)
//! extensions, and the host-side structures of GPU-initiated submission.
//!
//! The crate follows smoltcp's shape. Every header has
//!
//! * a zero-copy **view**, `Header<T: AsRef<[u8]>>`, with a getter (and, for `AsMut`
//!   buffers, a setter) per field. `new_checked` verifies the length once; after that no
//!   accessor can panic;
//! * an owned **`Repr`** with `parse(&[u8])`, `buffer_len()` and `emit(&mut [u8])`.
//!   `emit` never panics: a short buffer or a value too wide for its bits is an
//!   [`EmitError`].
//!
//! [`frame`] decodes and builds whole frames, Ethernet / [802.1Q] / IPv4 or IPv6 / UDP /
//! BTH / the extension headers chosen by the opcode / payload / pad / ICRC, and [`icrc`]
//! computes the invariant CRC. [`host`] holds the doorbell token, the work request it
//! expands into, the completion entry and the completion flag.
//!
//! The numbers these formats carry are types of their own, never bare integers in a
//! signature: [`Psn`] and [`Qpn`] ([`psn`]), and [`Ev`], [`Msn`], [`AethMsn`], [`Rqmsn`],
//! [`Rkey`], [`Lkey`] and [`TemplateId`] ([`id`], which also says how each handles its
//! width). Their serde form is the bare integer.
//!
//! Decoding is structural and lossless: unknown opcodes, NACK reasons and reserved bits are
//! kept, so that emitting what was parsed gives the same bytes back. Whether the bytes obey
//! the specification is a separate question answered by `validate()`, whose
//! [`Violation`]s carry requirement IDs from `spec/`.
//!
//! The crate has no state (but a cache of the CPU features the CRC uses), no clock and no
//! `unsafe`, and builds `no_std` + `alloc` with the
//! default `std` feature turned off.

#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod error;
mod field;
pub mod frame;
pub mod host;
pub mod icrc;
pub mod id;
pub mod opcode;
pub mod psn;
pub mod wire;

// The root holds what a caller builds and reads packets with: the errors, the numbers, the
// opcode table, and the owned `Repr` of every header with the codepoint types its fields
// carry. The zero-copy views, lengths and masks of each header are in its module under
// `wire` (also re-exported flat as `wire::*`); frames are in `frame`, host formats in `host`.

pub use error::{DecodeError, DecodeErrorKind, EmitError, Header, Violation};
pub use id::{AethMsn, Ev, Lkey, Msn, Rkey, Rqmsn, TemplateId, TooWide};
pub use opcode::{ExtHeader, Opcode, OpcodeInfo, PayloadRule, TransportClass};
pub use psn::{Psn, Qpn};
pub use wire::{
    AethKind, AethRepr, AtomicAckEthRepr, AtomicEthRepr, BthRepr, CcStateRepr, CnpRepr,
    CookedHeader, DethRepr, EethRepr, EndpointOp, ErthRepr, EtherType, EthernetAddress,
    EthernetRepr, EvMark, FethRepr, IP_PROTO_UDP, IethRepr, ImmDtRepr, Ipv4Repr, Ipv6Repr,
    LinkType, MethRepr, NackReason, NethRepr, PethRepr, ROCEV2_PORT, RdethRepr, RethRepr, SethRepr,
    Sll2Repr, SllRepr, TsethRepr, UdpRepr, VlanRepr, XrcethRepr,
};
