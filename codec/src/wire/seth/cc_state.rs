//! CC_STATE: the congestion-control state that follows a SETH.

use super::*;

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
