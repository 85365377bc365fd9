//! Host-side formats of GPU-initiated submission (requirements `DB-*`, `TPL-*`, `WR-*`,
//! `CQE-*`, `FLAG-*` and `ORD-*` in `spec/host-interface.md`).
//!
//! The GPU submits an RDMA Write by storing **one 8-byte doorbell token** to a NIC register.
//! The NIC rebuilds the whole work request from a **template** that software installed
//! beforehand, and reports the outcome through a **completion flag** (one 64-bit word in GPU
//! memory that the GPU polls) and, when asked, a **completion entry**.
//!
//! ```text
//!  GPU                          NIC                                  remote NIC
//!   | data writes                 |                                     |
//!   | release fence (system)      |                                     |
//!   |--- token (8 B MMIO) ------->| check: version, template, seq,      |
//!   |                             |        index, length               |
//!   |                             | expand template -> WorkRequest      |
//!   |                             |--- MRC Write packets -------------->| place, retire in MSN order
//!   |                             |<-- transport ACK -------------------| retirement flag (+ CQE)
//!   |<-- completion flag (8 B) ---| (+ completion entry when signaled)  |
//! ```
//!
//! | module | format | size | view | owned |
//! |---|---|---|---|---|
//! | [`doorbell`] | doorbell token | 8 B | [`Doorbell`] | [`DoorbellToken`] |
//! | [`template`] | template (configuration, no binary layout) | — | — | [`Template`] |
//! | [`work_request`] | work request / CPU-built WQE | 64 B | [`Wqe`] | [`WorkRequest`] |
//! | [`completion`] | completion entry | 32 B | [`Completion`] | [`CompletionRepr`] |
//! | [`flag`] | completion flag | 8 B | [`Flag`] | [`FlagRepr`] |
//!
//! Every multi-byte field of a host format is **little-endian**, unlike the wire formats:
//! these structures are stored and loaded by little-endian GPUs and CPUs as native
//! integers (`spec/host-interface.md`, section 9, decision 1).
//!
//! As for the wire headers, the views' accessors never panic once `new_checked` (or
//! `check_len`) has succeeded, and `emit` never panics.
//!
//! The codec keeps no state. The doorbell sequence check is stateful; the codec gives the
//! pure rule ([`check_seq`], [`accept_doorbell`]) and the NIC model keeps, per template, the
//! sequence number it expects next.

pub mod completion;
pub mod doorbell;
pub mod flag;
pub mod template;
pub mod work_request;

pub use self::completion::*;
pub use self::doorbell::*;
pub use self::flag::*;
pub use self::template::*;
pub use self::work_request::*;

// Little-endian field access for the host formats. As in `crate::field`, callers have
// length-checked the slice, so indexing cannot fail.

#[inline]
fn le_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

#[inline]
fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline]
fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

#[inline]
fn set_le_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

#[inline]
fn set_le_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[inline]
fn set_le_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Names the field that a short buffer cuts: `fields` lists `(name, offset, len)` in
/// ascending offset order; returns the truncation error for the first one that does not fit.
fn truncated(
    header: crate::Header,
    fields: &[(&'static str, usize, usize)],
    have: usize,
) -> crate::DecodeError {
    let mut last = fields[0];
    for &f in fields {
        if f.1 + f.2 > have {
            last = f;
            break;
        }
        last = f;
    }
    let (name, at, len) = last;
    crate::DecodeError::truncated(header, name, at, len, have.saturating_sub(at))
}
