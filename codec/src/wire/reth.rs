//! RDMA Extended Transport Header, 16 bytes (requirements `RETH-*`).
//!
//! ```text
//!  byte 0-7   va        virtual address of the remote buffer
//!  byte 8-11  rkey      remote key
//!  byte 12-15 dma_len   DMA length in bytes
//! ```
//!
//! Standard RC writes carry a RETH on FIRST and ONLY packets; MRC writes carry one on every
//! packet, its address advanced by the PMTU per packet, so that each packet can be placed on
//! its own.
//!
//! The view's accessors never panic once [`Reth::new_checked`] (or [`Reth::check_len`])
//! has succeeded; `new_unchecked` followed by an accessor on a short buffer panics.

use crate::Rkey;
use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer};
use crate::field::{set_u32, set_u64, u32_at, u64_at};

/// Length of the RETH in bytes.
pub const RETH_LEN: usize = 16;

/// The largest DMA length, 2^31 bytes: the largest message InfiniBand allows
/// (`RETH-LEN-001`).
pub const RETH_MAX_DMA_LEN: u32 = 1 << 31;

mod field {
    pub(super) const VA: usize = 0;
    pub(super) const RKEY: usize = 8;
    pub(super) const DMA_LEN: usize = 12;
}

/// Fields in wire order as (name, offset, length): names the first field a short buffer
/// cannot hold.
const LAYOUT: &[(&str, usize, usize)] =
    &[("va", field::VA, 8), ("rkey", field::RKEY, 4), ("dma_len", field::DMA_LEN, 4)];

/// A zero-copy view of a RETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reth<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Reth<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Reth { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole RETH.
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds a whole RETH.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        match LAYOUT.iter().find(|&&(_, at, len)| have < at + len) {
            Some(&(name, at, len)) => {
                Err(DecodeError::truncated(Header::Reth, name, at, len, have.saturating_sub(at)))
            }
            None => Ok(()),
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Virtual address.
    pub fn va(&self) -> u64 {
        u64_at(self.buffer.as_ref(), field::VA)
    }
    /// Remote key.
    pub fn rkey(&self) -> Rkey {
        Rkey::new(u32_at(self.buffer.as_ref(), field::RKEY))
    }
    /// DMA length in bytes.
    pub fn dma_len(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::DMA_LEN)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Reth<T> {
    /// Sets the virtual address.
    pub fn set_va(&mut self, v: u64) {
        set_u64(self.buffer.as_mut(), field::VA, v);
    }
    /// Sets the remote key.
    pub fn set_rkey(&mut self, v: Rkey) {
        set_u32(self.buffer.as_mut(), field::RKEY, v.value());
    }
    /// Sets the DMA length.
    pub fn set_dma_len(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::DMA_LEN, v);
    }
}

/// An owned, decoded RETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct RethRepr {
    /// Virtual address of the remote buffer (bytes 0-7).
    pub va: u64,
    /// Remote key (bytes 8-11).
    pub rkey: Rkey,
    /// DMA length in bytes (bytes 12-15); at most 2^31 (`RETH-LEN-001`).
    pub dma_len: u32,
}

impl RethRepr {
    /// A RETH with the given address, key and length.
    pub const fn new(va: u64, rkey: Rkey, dma_len: u32) -> Self {
        RethRepr { va, rkey, dma_len }
    }

    /// Decodes a RETH from the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from_view(&Reth::new_checked(buf)?))
    }

    /// Reads every field of a checked view.
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Reth<T>) -> Self {
        RethRepr { va: v.va(), rkey: v.rkey(), dma_len: v.dma_len() }
    }

    /// Bytes on the wire.
    pub const fn buffer_len(&self) -> usize {
        RETH_LEN
    }

    /// Writes the RETH into the start of `buf`. Never panics: a short buffer is an
    /// [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        check_buffer(Header::Reth, buf, RETH_LEN)?;
        let mut v = Reth::new_unchecked(&mut buf[..RETH_LEN]);
        v.set_va(self.va);
        v.set_rkey(self.rkey);
        v.set_dma_len(self.dma_len);
        Ok(RETH_LEN)
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &["RETH-LEN-001", "RETH-VA-001"];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    pub fn validate(&self, base: usize, out: &mut alloc::vec::Vec<Violation>) {
        if self.dma_len > RETH_MAX_DMA_LEN {
            out.push(Violation {
                requirement: "RETH-LEN-001",
                header: Header::Reth,
                field: "dma_len",
                offset: Some(base + field::DMA_LEN),
                value: self.dma_len.into(),
                rule: "DMA length must not exceed 2^31 bytes",
            });
        }
        if self.va.checked_add(self.dma_len.into()).is_none() {
            out.push(Violation {
                requirement: "RETH-VA-001",
                header: Header::Reth,
                field: "va",
                offset: Some(base + field::VA),
                value: self.va,
                rule: "va + dma_len must not pass the end of the 64-bit address space",
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BYTES: [u8; 16] = [
        0x00, 0x00, 0x7f, 0x12, 0x34, 0x56, 0x78, 0x00, // va
        0xde, 0xad, 0xbe, 0xef, // rkey
        0x00, 0x00, 0x08, 0x00, // dma_len 2048
    ];

    fn sample() -> RethRepr {
        RethRepr::new(0x7f12_3456_7800, Rkey::new(0xDEAD_BEEF), 2048)
    }

    #[test]
    fn deconstruct() {
        let v = Reth::new_checked(&BYTES[..]).unwrap();
        assert_eq!(v.va(), 0x7f12_3456_7800);
        assert_eq!(v.rkey(), Rkey::new(0xDEAD_BEEF));
        assert_eq!(v.dma_len(), 2048);
    }

    #[test]
    fn construct() {
        let mut buf = [0u8; 16];
        let mut v = Reth::new_unchecked(&mut buf[..]);
        v.set_va(0x7f12_3456_7800);
        v.set_rkey(Rkey::new(0xDEAD_BEEF));
        v.set_dma_len(2048);
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(RethRepr::parse(&BYTES).unwrap(), sample());
        let mut buf = [0u8; 16];
        assert_eq!(sample().emit(&mut buf), Ok(16));
        assert_eq!(buf, BYTES);
    }

    #[test]
    fn truncation_names_field_and_offset() {
        assert_eq!(
            RethRepr::parse(&BYTES[..13]).unwrap_err(),
            DecodeError::truncated(Header::Reth, "dma_len", 12, 4, 1)
        );
        assert_eq!(RethRepr::parse(&BYTES[..9]).unwrap_err().field, "rkey");
        assert_eq!(RethRepr::parse(&BYTES[..7]).unwrap_err().field, "va");
    }

    #[test]
    fn emit_never_panics() {
        assert_eq!(
            sample().emit(&mut [0u8; 15]),
            Err(EmitError::BufferTooShort { header: Header::Reth, need: 16, have: 15 })
        );
    }

    #[test]
    fn validate_length_and_address_range() {
        let mut out = alloc::vec::Vec::new();
        sample().validate(0, &mut out);
        RethRepr::new(0, Rkey::default(), RETH_MAX_DMA_LEN).validate(0, &mut out);
        RethRepr::new(u64::MAX, Rkey::default(), 0).validate(0, &mut out);
        assert!(out.is_empty());
        RethRepr::new(u64::MAX - 1, Rkey::default(), RETH_MAX_DMA_LEN + 1).validate(58, &mut out);
        let ids: alloc::vec::Vec<_> = out.iter().map(|v| v.requirement).collect();
        assert_eq!(ids, ["RETH-LEN-001", "RETH-VA-001"]);
        assert_eq!(out[0].offset, Some(70));
        assert_eq!(out[1].offset, Some(58));
    }

    #[test]
    fn random_bytes_round_trip() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5245_5448);
        for _ in 0..1000 {
            let mut bytes = [0u8; RETH_LEN];
            rng.fill_bytes(&mut bytes);
            let mut out = [0u8; RETH_LEN];
            assert_eq!(RethRepr::parse(&bytes).unwrap().emit(&mut out), Ok(RETH_LEN));
            assert_eq!(out, bytes);
        }
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5245_5448);
        let mut raw = [0u8; 64];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = RethRepr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut out = [0u8; RETH_LEN];
            assert_eq!(r.emit(&mut out), Ok(RETH_LEN));
            assert_eq!(RethRepr::parse(&out).unwrap(), r);
        }
    }
}
