//! IPv4 header, 20 to 60 bytes (requirements `ENC-IPV4-*`).
//!
//! ```text
//!  byte 0     version(7:4) IHL(3:0)            IHL = header length in 32-bit words, 5..=15
//!  byte 1     DSCP(7:2) ECN(1:0)
//!  byte 2-3   total length
//!  byte 4-5   identification
//!  byte 6-7   reserved flag(15) DF(14) MF(13) fragment offset(12:0, in 8-byte units)
//!  byte 8     TTL
//!  byte 9     protocol                          17 = UDP
//!  byte 10-11 header checksum
//!  byte 12-15 source address
//!  byte 16-19 destination address
//!  byte 20-   options, IHL * 4 - 20 bytes (0 to 40)
//! ```
//!
//! Decoding is lossless: the checksum is kept as it was on the wire (check it with
//! [`Ipv4Packet::checksum_ok`] or `validate()`), and options are kept as raw bytes.
//! [`Ipv4Repr::emit`] writes the stored checksum; [`Ipv4Repr::emit_with_checksum`] and
//! [`Ipv4Repr::fill_checksum`] produce a correct one.
//!
//! The view checks only that the header (IHL * 4 bytes) fits its buffer. Whether the
//! total length agrees with the frame is the frame decoder's question.
//!
//! The view's accessors never panic once [`Ipv4Packet::new_checked`] (or
//! [`Ipv4Packet::check_len`]) has succeeded; `new_unchecked` followed by an accessor of the
//! fixed part on a buffer shorter than 20 bytes panics. [`Ipv4Packet::options`] and
//! [`Ipv4Packet::checksum_ok`] never panic: they clamp to the buffer.

use core::net::Ipv4Addr;

use alloc::vec::Vec;

use crate::error::{DecodeError, EmitError, Header, Violation, check_buffer, check_range};
use crate::field::{set_u16, u16_at};

/// Length of an IPv4 header without options.
pub const IPV4_HEADER_LEN: usize = 20;
/// Largest number of option bytes (IHL 15).
pub const IPV4_MAX_OPTIONS_LEN: usize = 40;
/// IP protocol number of UDP.
pub const IP_PROTO_UDP: u8 = 17;
/// The largest fragment offset (13 bits).
pub const IPV4_MAX_FRAG_OFFSET: u16 = 0x1FFF;

mod field {
    pub(super) const VER_IHL: usize = 0;
    pub(super) const DSCP_ECN: usize = 1;
    pub(super) const TOTAL_LEN: usize = 2;
    pub(super) const IDENT: usize = 4;
    pub(super) const FLAGS_FRAG: usize = 6;
    pub(super) const TTL: usize = 8;
    pub(super) const PROTOCOL: usize = 9;
    pub(super) const CHECKSUM: usize = 10;
    pub(super) const SRC: usize = 12;
    pub(super) const DST: usize = 16;
    pub(super) const OPTIONS: usize = 20;
}

/// Field layout of the fixed part: name, offset, length.
const LAYOUT: [(&str, usize, usize); 11] = [
    ("version", field::VER_IHL, 1),
    ("dscp", field::DSCP_ECN, 1),
    ("total_len", field::TOTAL_LEN, 2),
    ("ident", field::IDENT, 2),
    ("flags", field::FLAGS_FRAG, 2),
    ("ttl", field::TTL, 1),
    ("protocol", field::PROTOCOL, 1),
    ("checksum", field::CHECKSUM, 2),
    ("src", field::SRC, 4),
    ("dst", field::DST, 4),
    ("options", field::OPTIONS, 0),
];

/// The truncation error for the first field that does not fit in `have` bytes.
fn truncation(have: usize) -> DecodeError {
    let mut last = LAYOUT[0];
    for f in LAYOUT {
        last = f;
        if have < f.1 + f.2 {
            break;
        }
    }
    let (name, at, need) = last;
    DecodeError::truncated(Header::Ipv4, name, at, need, have.saturating_sub(at))
}

// ---------------------------------------------------------------------------------------
// Internet checksum (RFC 1071), shared with UDP
// ---------------------------------------------------------------------------------------

/// Adds `data` to a one's-complement accumulator as big-endian 16-bit words (an odd last
/// byte is padded with zero). Fold the result with [`fold_checksum`].
pub(crate) fn checksum_add(acc: u64, data: &[u8]) -> u64 {
    // The one's-complement sum does not depend on byte order (RFC 1071, 2(B)), nor on the
    // word size once the end-around carry is kept (0xFFFF divides 2^64 - 1): sum the data as
    // little-endian 64-bit words with end-around carry, in two independent lanes, fold to
    // 16 bits, and swap the result into network order. `data` starts on a 16-bit boundary
    // of the summed stream, as every caller's does.
    let add = |a: u64, w: u64| {
        let (s, carry) = a.overflowing_add(w);
        s + u64::from(carry)
    };
    let word = |e: &[u8]| u64::from_le_bytes([e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]]);
    let (mut x, mut y) = (0u64, 0u64);
    let mut pairs16 = data.chunks_exact(16);
    for p in &mut pairs16 {
        x = add(x, word(&p[..8]));
        y = add(y, word(&p[8..]));
    }
    let mut le = add(x, y);
    let mut eights = pairs16.remainder().chunks_exact(8);
    for e in &mut eights {
        le = add(le, word(e));
    }
    // Down to 32 bits (2^32 = 1 modulo 0xFFFF), so that the small words below cannot carry.
    let mut le = (le & 0xFFFF_FFFF) + (le >> 32);
    let mut pairs = eights.remainder().chunks_exact(2);
    for p in &mut pairs {
        le += u64::from(u16::from_le_bytes([p[0], p[1]]));
    }
    if let [b] = pairs.remainder() {
        le += u64::from(*b);
    }
    acc + u64::from(fold_checksum(le).swap_bytes())
}

/// Folds an accumulator to 16 bits (end-around carry). The checksum is its complement.
pub(crate) fn fold_checksum(mut acc: u64) -> u16 {
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    acc as u16
}

/// The header checksum that `header` should carry: the one's complement of the
/// one's-complement sum of its 16-bit words, **skipping bytes 10-11** (the checksum field
/// itself), so the stored value does not matter. Pass exactly the header (IHL * 4 bytes).
pub fn compute_checksum(header: &[u8]) -> u16 {
    let before = &header[..header.len().min(field::CHECKSUM)];
    let after = header.get(field::CHECKSUM + 2..).unwrap_or(&[]);
    !fold_checksum(checksum_add(checksum_add(0, before), after))
}

// ---------------------------------------------------------------------------------------
// Ipv4Packet view
// ---------------------------------------------------------------------------------------

/// A zero-copy view of an IPv4 header (and whatever follows it in the buffer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Ipv4Packet { buffer }
    }

    /// Wraps a buffer, checking that it holds a whole header (see [`Self::check_len`]).
    pub fn new_checked(buffer: T) -> Result<Self, DecodeError> {
        let v = Self::new_unchecked(buffer);
        v.check_len()?;
        Ok(v)
    }

    /// Checks that the buffer holds the fixed 20 bytes, that IHL is at least 5
    /// (`BadValue` on `ihl` otherwise), and that the IHL * 4 bytes of the header fit
    /// (a truncated `options` otherwise). It does not look at the version or the total
    /// length.
    pub fn check_len(&self) -> Result<(), DecodeError> {
        let have = self.buffer.as_ref().len();
        if have < IPV4_HEADER_LEN {
            return Err(truncation(have));
        }
        let ihl = self.ihl();
        if ihl < 5 {
            return Err(DecodeError::bad_value(Header::Ipv4, "ihl", field::VER_IHL, ihl.into()));
        }
        let hl = self.header_len();
        if have < hl {
            return Err(DecodeError::truncated(
                Header::Ipv4,
                "options",
                field::OPTIONS,
                hl - IPV4_HEADER_LEN,
                have - IPV4_HEADER_LEN,
            ));
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// IP version (4 for IPv4).
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[field::VER_IHL] >> 4
    }
    /// Internet header length in 32-bit words.
    pub fn ihl(&self) -> u8 {
        self.buffer.as_ref()[field::VER_IHL] & 0x0F
    }
    /// Header length in bytes, IHL * 4.
    pub fn header_len(&self) -> usize {
        usize::from(self.ihl()) * 4
    }
    /// Differentiated services code point, 6 bits.
    pub fn dscp(&self) -> u8 {
        self.buffer.as_ref()[field::DSCP_ECN] >> 2
    }
    /// Explicit congestion notification, 2 bits.
    pub fn ecn(&self) -> u8 {
        self.buffer.as_ref()[field::DSCP_ECN] & 0x3
    }
    /// Total length (header and data) in bytes, as on the wire.
    pub fn total_len(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::TOTAL_LEN)
    }
    /// Identification.
    pub fn ident(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::IDENT)
    }
    /// The reserved flag (bit 15 of bytes 6-7; RFC 791 requires 0).
    pub fn flag_reserved(&self) -> bool {
        self.buffer.as_ref()[field::FLAGS_FRAG] & 0x80 != 0
    }
    /// Don't fragment (DF).
    pub fn dont_frag(&self) -> bool {
        self.buffer.as_ref()[field::FLAGS_FRAG] & 0x40 != 0
    }
    /// More fragments (MF).
    pub fn more_frags(&self) -> bool {
        self.buffer.as_ref()[field::FLAGS_FRAG] & 0x20 != 0
    }
    /// Fragment offset in 8-byte units, 13 bits.
    pub fn frag_offset(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::FLAGS_FRAG) & IPV4_MAX_FRAG_OFFSET
    }
    /// Time to live.
    pub fn ttl(&self) -> u8 {
        self.buffer.as_ref()[field::TTL]
    }
    /// Protocol of the payload.
    pub fn protocol(&self) -> u8 {
        self.buffer.as_ref()[field::PROTOCOL]
    }
    /// Header checksum, as on the wire.
    pub fn checksum(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::CHECKSUM)
    }
    /// Source address.
    pub fn src_addr(&self) -> Ipv4Addr {
        let b = self.buffer.as_ref();
        Ipv4Addr::new(b[field::SRC], b[field::SRC + 1], b[field::SRC + 2], b[field::SRC + 3])
    }
    /// Destination address.
    pub fn dst_addr(&self) -> Ipv4Addr {
        let b = self.buffer.as_ref();
        Ipv4Addr::new(b[field::DST], b[field::DST + 1], b[field::DST + 2], b[field::DST + 3])
    }
    /// The option bytes, IHL * 4 - 20 of them (clamped to the buffer).
    pub fn options(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        let end = self.header_len().min(b.len());
        b.get(field::OPTIONS..end).unwrap_or(&[])
    }
    /// Whether the header checksum is correct (the one's-complement sum of the IHL * 4
    /// header bytes, checksum included, is 0xFFFF). False if the header does not fit.
    pub fn checksum_ok(&self) -> bool {
        match self.buffer.as_ref().get(..self.header_len()) {
            Some(h) if h.len() >= IPV4_HEADER_LEN => fold_checksum(checksum_add(0, h)) == 0xFFFF,
            _ => false,
        }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    /// Sets byte 0; both values are masked to 4 bits.
    pub fn set_version_ihl(&mut self, version: u8, ihl: u8) {
        self.buffer.as_mut()[field::VER_IHL] = ((version & 0x0F) << 4) | (ihl & 0x0F);
    }
    /// Sets byte 1; `dscp` is masked to 6 bits and `ecn` to 2.
    pub fn set_dscp_ecn(&mut self, dscp: u8, ecn: u8) {
        self.buffer.as_mut()[field::DSCP_ECN] = ((dscp & 0x3F) << 2) | (ecn & 0x3);
    }
    /// Sets only the ECN bits, leaving DSCP alone.
    pub fn set_ecn(&mut self, ecn: u8) {
        let b = &mut self.buffer.as_mut()[field::DSCP_ECN];
        *b = (*b & !0x3) | (ecn & 0x3);
    }
    /// Sets the total length.
    pub fn set_total_len(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::TOTAL_LEN, v);
    }
    /// Sets the identification.
    pub fn set_ident(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::IDENT, v);
    }
    /// Sets bytes 6-7 from their parts; `frag_offset` is masked to 13 bits.
    pub fn set_flags_frag(
        &mut self,
        flag_reserved: bool,
        dont_frag: bool,
        more_frags: bool,
        frag_offset: u16,
    ) {
        let v = (u16::from(flag_reserved) << 15)
            | (u16::from(dont_frag) << 14)
            | (u16::from(more_frags) << 13)
            | (frag_offset & IPV4_MAX_FRAG_OFFSET);
        set_u16(self.buffer.as_mut(), field::FLAGS_FRAG, v);
    }
    /// Sets the TTL.
    pub fn set_ttl(&mut self, v: u8) {
        self.buffer.as_mut()[field::TTL] = v;
    }
    /// Sets the protocol.
    pub fn set_protocol(&mut self, v: u8) {
        self.buffer.as_mut()[field::PROTOCOL] = v;
    }
    /// Sets the header checksum field to `v`.
    pub fn set_checksum(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::CHECKSUM, v);
    }
    /// Sets the source address.
    pub fn set_src_addr(&mut self, v: Ipv4Addr) {
        self.buffer.as_mut()[field::SRC..field::SRC + 4].copy_from_slice(&v.octets());
    }
    /// Sets the destination address.
    pub fn set_dst_addr(&mut self, v: Ipv4Addr) {
        self.buffer.as_mut()[field::DST..field::DST + 4].copy_from_slice(&v.octets());
    }
    /// The option bytes, mutable (clamped to the buffer).
    pub fn options_mut(&mut self) -> &mut [u8] {
        let end = self.header_len().min(self.buffer.as_ref().len());
        self.buffer.as_mut().get_mut(field::OPTIONS..end).unwrap_or(&mut [])
    }
    /// Computes the header checksum over IHL * 4 bytes and stores it. Does nothing if the
    /// header does not fit in the buffer.
    pub fn fill_checksum(&mut self) {
        let hl = self.header_len();
        if let Some(h) = self.buffer.as_ref().get(..hl) {
            if h.len() >= IPV4_HEADER_LEN {
                let c = compute_checksum(h);
                self.set_checksum(c);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Ipv4Repr
// ---------------------------------------------------------------------------------------

/// An owned, decoded IPv4 header, every field as on the wire.
///
/// `ihl` and `options` describe the same length twice; [`Ipv4Repr::emit`] refuses a Repr in
/// which they disagree. Use [`Ipv4Repr::set_options`] to change both at once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ipv4Repr {
    /// IP version, 4 bits. Decoding requires 4; `emit` writes any 4-bit value, so a test
    /// can build a header that decoders must reject.
    pub version: u8,
    /// Header length in 32-bit words, 5 to 15; equals `5 + options.len() / 4`.
    pub ihl: u8,
    /// Differentiated services code point, 6 bits.
    pub dscp: u8,
    /// Explicit congestion notification, 2 bits.
    pub ecn: u8,
    /// Total length of header and data, as on the wire.
    pub total_len: u16,
    /// Identification.
    pub ident: u16,
    /// Reserved flag bit (must be 0, `ENC-IPV4-004`).
    pub flag_reserved: bool,
    /// Don't fragment.
    pub dont_frag: bool,
    /// More fragments (must be 0 for RoCEv2, `ENC-IPV4-002`).
    pub more_frags: bool,
    /// Fragment offset in 8-byte units, 13 bits (must be 0 for RoCEv2, `ENC-IPV4-002`).
    pub frag_offset: u16,
    /// Time to live.
    pub ttl: u8,
    /// Protocol of the payload (17 = UDP, `ENC-IPV4-001`).
    pub protocol: u8,
    /// Header checksum as on the wire (`ENC-IPV4-003` checks it).
    pub checksum: u16,
    /// Source address.
    pub src: Ipv4Addr,
    /// Destination address.
    pub dst: Ipv4Addr,
    /// Option bytes, raw: 0 to 40, a multiple of 4.
    pub options: Vec<u8>,
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Ipv4Repr {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        use crate::field::arb::{bits2, bits6};
        let words: u8 = u.int_in_range(0..=10)?;
        let mut options = alloc::vec![0u8; usize::from(words) * 4];
        u.fill_buffer(&mut options)?;
        Ok(Ipv4Repr {
            version: 4,
            ihl: 5 + words,
            dscp: bits6(u)?,
            ecn: bits2(u)?,
            total_len: u.arbitrary()?,
            ident: u.arbitrary()?,
            flag_reserved: u.arbitrary()?,
            dont_frag: u.arbitrary()?,
            more_frags: u.arbitrary()?,
            frag_offset: u16::arbitrary(u)? & IPV4_MAX_FRAG_OFFSET,
            ttl: u.arbitrary()?,
            protocol: u.arbitrary()?,
            checksum: u.arbitrary()?,
            src: u.arbitrary()?,
            dst: u.arbitrary()?,
            options,
        })
    }
}

impl Ipv4Repr {
    /// A 20-byte header from `src` to `dst` carrying `protocol`, with the defaults of a
    /// RoCEv2 sender: DF set, TTL 64, DSCP/ECN 0, identification 0, total length 20 (set
    /// it with [`Self::set_payload_len`]) and checksum 0 (fill it with
    /// [`Self::fill_checksum`] or emit with [`Self::emit_with_checksum`]).
    pub const fn new(src: Ipv4Addr, dst: Ipv4Addr, protocol: u8) -> Self {
        Ipv4Repr {
            version: 4,
            ihl: 5,
            dscp: 0,
            ecn: 0,
            total_len: IPV4_HEADER_LEN as u16,
            ident: 0,
            flag_reserved: false,
            dont_frag: true,
            more_frags: false,
            frag_offset: 0,
            ttl: 64,
            protocol,
            checksum: 0,
            src,
            dst,
            options: Vec::new(),
        }
    }

    /// Decodes an IPv4 header from the start of `buf`. The version must be 4 (`BadValue`
    /// on `version` otherwise); see [`Ipv4Packet::check_len`] for the rest.
    pub fn parse(buf: &[u8]) -> Result<Self, DecodeError> {
        if let Some(&b0) = buf.first() {
            if b0 >> 4 != 4 {
                let version = u64::from(b0 >> 4);
                return Err(DecodeError::bad_value(Header::Ipv4, "version", 0, version));
            }
        }
        Ok(Self::from_view(&Ipv4Packet::new_checked(buf)?))
    }

    /// Reads every field of a checked view (the version is taken as it is).
    #[inline]
    pub fn from_view<T: AsRef<[u8]>>(v: &Ipv4Packet<T>) -> Self {
        Ipv4Repr {
            version: v.version(),
            ihl: v.ihl(),
            dscp: v.dscp(),
            ecn: v.ecn(),
            total_len: v.total_len(),
            ident: v.ident(),
            flag_reserved: v.flag_reserved(),
            dont_frag: v.dont_frag(),
            more_frags: v.more_frags(),
            frag_offset: v.frag_offset(),
            ttl: v.ttl(),
            protocol: v.protocol(),
            checksum: v.checksum(),
            src: v.src_addr(),
            dst: v.dst_addr(),
            options: v.options().to_vec(),
        }
    }

    /// Header length in bytes: 20 plus the options.
    pub fn header_len(&self) -> usize {
        IPV4_HEADER_LEN + self.options.len()
    }

    /// Bytes on the wire (the header only), the same as [`Self::header_len`].
    pub fn buffer_len(&self) -> usize {
        self.header_len()
    }

    /// Replaces the options and sets `ihl` to match. Fails (leaving `self` unchanged) if
    /// there are more than 40 bytes or their number is not a multiple of 4.
    pub fn set_options(&mut self, options: Vec<u8>) -> Result<(), EmitError> {
        check_range(Header::Ipv4, "options", options.len() as u64, IPV4_MAX_OPTIONS_LEN as u64)?;
        if options.len() % 4 != 0 {
            return Err(EmitError::Inconsistent { header: Header::Ipv4, field: "options" });
        }
        self.ihl = 5 + (options.len() / 4) as u8;
        self.options = options;
        Ok(())
    }

    /// Sets `total_len` to the header length plus `payload_len`. Fails (leaving `self`
    /// unchanged) if the sum does not fit in 16 bits.
    pub fn set_payload_len(&mut self, payload_len: usize) -> Result<(), EmitError> {
        let total = self.header_len().checked_add(payload_len).filter(|&t| t <= 0xFFFF);
        match total {
            Some(t) => {
                self.total_len = t as u16;
                Ok(())
            }
            None => Err(EmitError::Inconsistent { header: Header::Ipv4, field: "total_len" }),
        }
    }

    /// Checks every field against its bits and `ihl` against `options`.
    fn check_fields(&self) -> Result<(), EmitError> {
        let h = Header::Ipv4;
        check_range(h, "version", self.version.into(), 0xF)?;
        check_range(h, "dscp", self.dscp.into(), 0x3F)?;
        check_range(h, "ecn", self.ecn.into(), 0x3)?;
        check_range(h, "frag_offset", self.frag_offset.into(), IPV4_MAX_FRAG_OFFSET.into())?;
        check_range(h, "options", self.options.len() as u64, IPV4_MAX_OPTIONS_LEN as u64)?;
        if self.options.len() % 4 != 0 {
            return Err(EmitError::Inconsistent { header: h, field: "options" });
        }
        if usize::from(self.ihl) * 4 != self.header_len() {
            return Err(EmitError::Inconsistent { header: h, field: "ihl" });
        }
        Ok(())
    }

    /// Writes the header into the start of `buf`, with the checksum field as stored in
    /// `self.checksum`. Never panics: a short buffer, a field too wide for its bits, or an
    /// `ihl` that disagrees with `options` is an [`EmitError`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        self.check_fields()?;
        let hl = self.header_len();
        check_buffer(Header::Ipv4, buf, hl)?;
        let mut v = Ipv4Packet::new_unchecked(&mut buf[..hl]);
        v.set_version_ihl(self.version, self.ihl);
        v.set_dscp_ecn(self.dscp, self.ecn);
        v.set_total_len(self.total_len);
        v.set_ident(self.ident);
        v.set_flags_frag(self.flag_reserved, self.dont_frag, self.more_frags, self.frag_offset);
        v.set_ttl(self.ttl);
        v.set_protocol(self.protocol);
        v.set_checksum(self.checksum);
        v.set_src_addr(self.src);
        v.set_dst_addr(self.dst);
        v.options_mut().copy_from_slice(&self.options);
        Ok(hl)
    }

    /// Like [`Self::emit`], but writes the correct header checksum instead of the stored one.
    pub fn emit_with_checksum(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        let n = self.emit(buf)?;
        Ipv4Packet::new_unchecked(&mut buf[..n]).fill_checksum();
        Ok(n)
    }

    /// The checksum this header should carry, given its other fields.
    pub fn correct_checksum(&self) -> Result<u16, EmitError> {
        let mut buf = [0u8; IPV4_HEADER_LEN + IPV4_MAX_OPTIONS_LEN];
        let n = self.emit(&mut buf)?;
        Ok(compute_checksum(&buf[..n]))
    }

    /// Sets `checksum` to the correct value for the other fields.
    pub fn fill_checksum(&mut self) -> Result<(), EmitError> {
        self.checksum = self.correct_checksum()?;
        Ok(())
    }

    /// The requirements [`Self::validate`] checks: every violation it reports carries one
    /// of these IDs, and each of them can be reported.
    pub const RULES: &'static [&'static str] = &[
        "ENC-IPV4-001",
        "ENC-IPV4-002",
        "ENC-IPV4-003",
        "ENC-IPV4-004",
        "ENC-IPV4-007",
        "ENC-HOP-001",
    ];

    /// Semantic checks of this header on its own (`base` is its offset in the frame).
    ///
    /// * `ENC-IPV4-001`: the protocol is UDP (17).
    /// * `ENC-IPV4-002`: the packet is not a fragment (MF clear, fragment offset 0).
    /// * `ENC-IPV4-003`: the header checksum is correct.
    /// * `ENC-IPV4-004`: the reserved flag bit is 0.
    /// * `ENC-IPV4-007` (a SHOULD): Don't Fragment is set.
    /// * `ENC-HOP-001`: the TTL is not 0.
    pub fn validate(&self, base: usize, out: &mut Vec<Violation>) {
        let v = |requirement, field, at: usize, value: u64, rule| Violation {
            requirement,
            header: Header::Ipv4,
            field,
            offset: Some(base + at),
            value,
            rule,
        };
        if self.protocol != IP_PROTO_UDP {
            out.push(v(
                "ENC-IPV4-001",
                "protocol",
                field::PROTOCOL,
                self.protocol.into(),
                "protocol must be UDP (17)",
            ));
        }
        if self.frag_offset != 0 {
            out.push(v(
                "ENC-IPV4-002",
                "frag_offset",
                field::FLAGS_FRAG,
                self.frag_offset.into(),
                "a RoCEv2 packet must not be an IPv4 fragment",
            ));
        } else if self.more_frags {
            out.push(v(
                "ENC-IPV4-002",
                "more_frags",
                field::FLAGS_FRAG,
                1,
                "a RoCEv2 packet must not be an IPv4 fragment",
            ));
        }
        if let Ok(c) = self.correct_checksum() {
            if c != self.checksum {
                out.push(v(
                    "ENC-IPV4-003",
                    "checksum",
                    field::CHECKSUM,
                    self.checksum.into(),
                    "the header checksum must be correct",
                ));
            }
        }
        if self.flag_reserved {
            out.push(v(
                "ENC-IPV4-004",
                "flag_reserved",
                field::FLAGS_FRAG,
                1,
                "the reserved flag bit must be 0",
            ));
        }
        if self.ttl == 0 {
            out.push(v("ENC-HOP-001", "ttl", field::TTL, 0, "the TTL must not be 0"));
        }
        if !self.dont_frag {
            out.push(v(
                "ENC-IPV4-007",
                "dont_frag",
                field::FLAGS_FRAG,
                0,
                "Don't Fragment should be set",
            ));
        }
    }
}

#[cfg(test)]
mod tests {

    /// The 32-bit summation equals the plain 16-bit one of RFC 1071 on every length.
    #[test]
    fn checksum_add_sums_16_bit_words() {
        let data: alloc::vec::Vec<u8> = (0..1500u32).map(|i| (i * 167 + 13) as u8).collect();
        for len in 0..200 {
            let mut plain = 0u64;
            for (k, b) in data[..len].iter().enumerate() {
                plain += u64::from(*b) << if k % 2 == 0 { 8 } else { 0 };
            }
            assert_eq!(fold_checksum(checksum_add(7, &data[..len])), fold_checksum(plain + 7));
        }
    }

    use super::*;
    use alloc::string::ToString;

    // The IPv4 header of the shared vector `scapy-send-only-v4`: TOS 0x02, total length 60,
    // id 1, DF, TTL 64, UDP, checksum 0xb6aa, 192.0.2.1 -> 192.0.2.2.
    const HDR: [u8; 20] = [
        0x45, 0x02, 0x00, 0x3c, 0x00, 0x01, 0x40, 0x00, 0x40, 0x11, 0xb6, 0xaa, 0xc0, 0x00, 0x02,
        0x01, 0xc0, 0x00, 0x02, 0x02,
    ];

    fn sample() -> Ipv4Repr {
        Ipv4Repr {
            ecn: 2,
            total_len: 60,
            ident: 1,
            checksum: 0xb6aa,
            ..Ipv4Repr::new(Ipv4Addr::new(192, 0, 2, 1), Ipv4Addr::new(192, 0, 2, 2), IP_PROTO_UDP)
        }
    }

    #[test]
    fn checksum_of_known_header() {
        assert_eq!(compute_checksum(&HDR), 0xb6aa);
        // The IPv4 header of the shared vector `cx4lx-cnp` (captured from a NIC).
        let cnp = [
            0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00,
            0x11, 0x01, 0x0a, 0x00, 0x12, 0x01,
        ];
        assert_eq!(compute_checksum(&cnp), 0x9161);
        assert!(Ipv4Packet::new_checked(&cnp[..]).unwrap().checksum_ok());
        let mut zeroed = HDR;
        zeroed[10..12].fill(0);
        assert_eq!(compute_checksum(&zeroed), 0xb6aa);
        assert!(Ipv4Packet::new_checked(&HDR[..]).unwrap().checksum_ok());
        assert!(!Ipv4Packet::new_checked(&zeroed[..]).unwrap().checksum_ok());
        let mut r = sample();
        r.checksum = 0;
        assert_eq!(r.correct_checksum(), Ok(0xb6aa));
        r.fill_checksum().unwrap();
        assert_eq!(r, sample());
    }

    #[test]
    fn deconstruct() {
        let v = Ipv4Packet::new_checked(&HDR[..]).unwrap();
        assert_eq!((v.version(), v.ihl(), v.header_len()), (4, 5, 20));
        assert_eq!((v.dscp(), v.ecn()), (0, 2));
        assert_eq!(v.total_len(), 60);
        assert_eq!(v.ident(), 1);
        assert!(!v.flag_reserved() && v.dont_frag() && !v.more_frags());
        assert_eq!(v.frag_offset(), 0);
        assert_eq!((v.ttl(), v.protocol(), v.checksum()), (64, 17, 0xb6aa));
        assert_eq!(v.src_addr(), Ipv4Addr::new(192, 0, 2, 1));
        assert_eq!(v.dst_addr(), Ipv4Addr::new(192, 0, 2, 2));
        assert!(v.options().is_empty());
    }

    #[test]
    fn construct() {
        let mut buf = [0u8; 20];
        let mut v = Ipv4Packet::new_unchecked(&mut buf[..]);
        v.set_version_ihl(4, 5);
        v.set_dscp_ecn(0, 2);
        v.set_total_len(60);
        v.set_ident(1);
        v.set_flags_frag(false, true, false, 0);
        v.set_ttl(64);
        v.set_protocol(17);
        v.set_src_addr(Ipv4Addr::new(192, 0, 2, 1));
        v.set_dst_addr(Ipv4Addr::new(192, 0, 2, 2));
        v.fill_checksum();
        assert_eq!(buf, HDR);
    }

    #[test]
    fn parse_and_emit() {
        assert_eq!(Ipv4Repr::parse(&HDR).unwrap(), sample());
        let mut buf = [0u8; 20];
        assert_eq!(sample().emit(&mut buf), Ok(20));
        assert_eq!(buf, HDR);
        // The stored checksum is written as it is; emit_with_checksum repairs it.
        let wrong = Ipv4Repr { checksum: 0x1234, ..sample() };
        wrong.emit(&mut buf).unwrap();
        assert_eq!(&buf[10..12], &[0x12, 0x34]);
        assert_eq!(wrong.emit_with_checksum(&mut buf), Ok(20));
        assert_eq!(buf, HDR);
    }

    #[test]
    fn options_are_kept() {
        let mut r = sample();
        r.set_options(alloc::vec![0x94, 0x04, 0x00, 0x00]).unwrap(); // router alert
        r.set_payload_len(40).unwrap();
        assert_eq!((r.ihl, r.header_len(), r.total_len), (6, 24, 64));
        let mut buf = [0u8; 30];
        assert_eq!(r.emit_with_checksum(&mut buf), Ok(24));
        let v = Ipv4Packet::new_checked(&buf[..]).unwrap();
        assert!(v.checksum_ok());
        assert_eq!(v.options(), &[0x94, 0x04, 0x00, 0x00]);
        let back = Ipv4Repr::parse(&buf).unwrap();
        assert_eq!(back.options, r.options);
        assert_eq!(back.ihl, 6);
        assert!(r.set_options(alloc::vec![0; 3]).is_err());
        assert!(r.set_options(alloc::vec![0; 44]).is_err());
        assert_eq!(r.ihl, 6, "a refused set_options leaves the Repr alone");
        assert!(r.set_payload_len(0xFFFF).is_err());
    }

    #[test]
    fn truncation_names_field_and_offset() {
        let e = Ipv4Repr::parse(&HDR[..11]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Ipv4, "checksum", 10, 2, 1));
        assert_eq!(e.to_string(), "IPv4.checksum truncated at byte 10: need 2, have 1");
        assert_eq!(e.at(14).offset, 24);
        let e = Ipv4Repr::parse(&HDR[..7]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Ipv4, "flags", 6, 2, 1));
        let e = Ipv4Repr::parse(&[]).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Ipv4, "version", 0, 1, 0));
        // IHL 7 promises 8 option bytes; only 3 are there.
        let mut long = [0u8; 23];
        long[..20].copy_from_slice(&HDR);
        long[0] = 0x47;
        let e = Ipv4Repr::parse(&long).unwrap_err();
        assert_eq!(e, DecodeError::truncated(Header::Ipv4, "options", 20, 8, 3));
    }

    #[test]
    fn bad_version_and_ihl() {
        let mut b = HDR;
        b[0] = 0x65;
        assert_eq!(
            Ipv4Repr::parse(&b).unwrap_err(),
            DecodeError::bad_value(Header::Ipv4, "version", 0, 6)
        );
        // A non-IPv4 first byte is reported even when the buffer is short.
        assert_eq!(Ipv4Repr::parse(&b[..3]).unwrap_err().field, "version");
        b[0] = 0x44;
        assert_eq!(
            Ipv4Repr::parse(&b).unwrap_err(),
            DecodeError::bad_value(Header::Ipv4, "ihl", 0, 4)
        );
        // Emit writes any 4-bit version, so a rejected header can be built on purpose.
        let mut buf = [0u8; 20];
        Ipv4Repr { version: 5, ..sample() }.emit(&mut buf).unwrap();
        assert_eq!(buf[0], 0x55);
    }

    #[test]
    fn emit_never_panics() {
        let mut short = [0u8; 19];
        assert!(matches!(
            sample().emit(&mut short),
            Err(EmitError::BufferTooShort { need: 20, have: 19, .. })
        ));
        let mut buf = [0u8; 64];
        let cases: [(Ipv4Repr, &str); 7] = [
            (Ipv4Repr { version: 16, ..sample() }, "version"),
            (Ipv4Repr { dscp: 64, ..sample() }, "dscp"),
            (Ipv4Repr { ecn: 4, ..sample() }, "ecn"),
            (Ipv4Repr { frag_offset: 0x2000, ..sample() }, "frag_offset"),
            (Ipv4Repr { ihl: 6, ..sample() }, "ihl"),
            (Ipv4Repr { ihl: 6, options: alloc::vec![0; 3], ..sample() }, "options"),
            (Ipv4Repr { ihl: 15, options: alloc::vec![0; 44], ..sample() }, "options"),
        ];
        for (r, name) in cases {
            let e = r.emit(&mut buf).unwrap_err();
            let field = match e {
                EmitError::FieldOutOfRange { field, .. }
                | EmitError::Inconsistent { field, .. } => field,
                other => panic!("{other:?}"),
            };
            assert_eq!(field, name);
            assert!(r.emit_with_checksum(&mut buf).is_err());
            assert!(r.correct_checksum().is_err());
        }
        // A view whose IHL was changed after checking does not panic on the clamped accessors.
        let mut b = HDR;
        let mut v = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        v.set_version_ihl(4, 15);
        assert!(v.options().is_empty() && !v.checksum_ok());
        v.fill_checksum();
        assert_eq!(v.checksum(), 0xb6aa);
    }

    #[test]
    fn validate_rocev2_rules() {
        let mut out = Vec::new();
        sample().validate(14, &mut out);
        assert!(out.is_empty(), "{out:?}");

        let r = Ipv4Repr {
            protocol: 6,
            more_frags: true,
            flag_reserved: true,
            checksum: 0xb6aa,
            ..sample()
        };
        r.validate(14, &mut out);
        let ids: Vec<_> = out.iter().map(|v| (v.requirement, v.field, v.offset)).collect();
        assert_eq!(
            ids,
            [
                ("ENC-IPV4-001", "protocol", Some(23)),
                ("ENC-IPV4-002", "more_frags", Some(20)),
                ("ENC-IPV4-003", "checksum", Some(24)),
                ("ENC-IPV4-004", "flag_reserved", Some(20)),
            ]
        );
        out.clear();
        let mut r = Ipv4Repr { frag_offset: 185, ..sample() };
        r.fill_checksum().unwrap();
        r.validate(0, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].requirement, out[0].field, out[0].value),
            ("ENC-IPV4-002", "frag_offset", 185)
        );
        // ENC-HOP-001: a TTL of 0.
        out.clear();
        let mut r = Ipv4Repr { ttl: 0, ..sample() };
        r.fill_checksum().unwrap();
        r.validate(14, &mut out);
        assert_eq!(
            out.iter().map(|v| (v.requirement, v.field, v.offset)).collect::<Vec<_>>(),
            [("ENC-HOP-001", "ttl", Some(22))]
        );
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_reprs_round_trip() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x1B44);
        let mut raw = [0u8; 128];
        for _ in 0..500 {
            rng.fill_bytes(&mut raw);
            let r = Ipv4Repr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
            let mut buf = [0u8; 60];
            let n = r.emit(&mut buf).unwrap();
            assert_eq!(n, r.header_len());
            assert_eq!(Ipv4Repr::parse(&buf[..n]).unwrap(), r);
        }
    }
}
