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
//!
//! Build a frame, emit it, parse it back and check its ICRC:
//!
//! ```
//! use core::net::Ipv4Addr;
//!
//! use openrdma_codec::frame::{Extensions, FrameRepr, IcrcStatus, IpRepr, decode};
//! use openrdma_codec::icrc::{self, IcrcCheck};
//! use openrdma_codec::{
//!     BthRepr, EtherType, EthernetAddress, EthernetRepr, IP_PROTO_UDP, Ipv4Repr, Opcode, Psn,
//!     Qpn, UdpRepr,
//! };
//!
//! // An RC SEND Only over IPv4 that carries "hello".
//! let (src, dst) = (Ipv4Addr::new(192, 0, 2, 1), Ipv4Addr::new(192, 0, 2, 2));
//! let mut frame = FrameRepr {
//!     eth: EthernetRepr {
//!         dst: EthernetAddress([0x02, 0, 0, 0, 0, 2]),
//!         src: EthernetAddress([0x02, 0, 0, 0, 0, 1]),
//!         ethertype: EtherType::IPV4,
//!     },
//!     vlans: Vec::new(),
//!     ip: IpRepr::V4(Ipv4Repr::new(src, dst, IP_PROTO_UDP)),
//!     udp: UdpRepr::rocev2(0xC000),
//!     bth: BthRepr::new(Opcode::RC_SEND_ONLY, Qpn::new(0x11), Psn::new(7)),
//!     ext: Extensions::default(),
//!     payload: b"hello".to_vec(),
//!     pad: [0; 3],
//!     icrc: None,
//!     eth_padding: Vec::new(),
//! };
//! // Lengths, pad and checksums made consistent; `emit` computes the ICRC.
//! frame.finalize()?;
//! let bytes = frame.to_bytes()?;
//!
//! let decoded = decode(&bytes);
//! assert_eq!(decoded.error, None);
//! assert_eq!(decoded.icrc, IcrcStatus::Ok);
//! assert_eq!(decoded.bth.map(|b| b.psn), Some(Psn::new(7)));
//! assert_eq!(decoded.payload, b"hello");
//! // The ICRC covers the IP packet: after the 14-byte Ethernet header.
//! assert_eq!(icrc::verify(&bytes[14..]), Ok(IcrcCheck::Ok));
//! // Lossless: the parsed frame emits the same bytes.
//! assert_eq!(decoded.to_repr().map(|r| r.to_bytes()), Some(Ok(bytes)));
//! # Ok::<(), openrdma_codec::EmitError>(())
//! ```

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

pub use error::{DecodeError, DecodeErrorKind, EmitError, Error, Header, Violation};
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
