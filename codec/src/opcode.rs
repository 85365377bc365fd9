//! The opcode table: each BTH opcode, its name and the extension headers that follow
//! the BTH (requirements `OPC-*` in `spec/wire-format.md`).
//!
//! [`Opcode`] is a lossless newtype over the byte: an opcode this table does not know is
//! still an `Opcode`, decodes with its bytes after the BTH kept as payload, and emits back
//! unchanged.

use core::fmt;

use crate::error::Header;

/// An extension header that an opcode's stack may contain, in wire order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ExtHeader {
    /// MRC METH, 4 bytes.
    Meth,
    /// MRC TSETH, 4 bytes, present only when BTH `ts` is set.
    Tseth,
    /// RETH, 16 bytes.
    Reth,
    /// ImmDt, 4 bytes.
    ImmDt,
    /// AETH, 4 bytes.
    Aeth,
    /// MRC SETH, 28 bytes.
    Seth,
    /// MRC CC_STATE, 8 bytes.
    CcState,
    /// MRC NETH, 20 bytes.
    Neth,
    /// MRC PETH, 16 bytes.
    Peth,
    /// MRC ERTH, 16 bytes.
    Erth,
    /// MRC EETH, 36 bytes.
    Eeth,
    /// DETH, 8 bytes (UD).
    Deth,
    /// IETH, 4 bytes.
    Ieth,
    /// AtomicETH, 28 bytes.
    AtomicEth,
    /// AtomicAckETH, 8 bytes.
    AtomicAckEth,
    /// The 16 reserved bytes of a CNP.
    Cnp,
}

impl ExtHeader {
    /// Every extension header, in the order of the fields of `frame::Extensions` (the order
    /// `openrdma dissect` prints them in).
    pub const ALL: [ExtHeader; 16] = [
        ExtHeader::Meth,
        ExtHeader::Tseth,
        ExtHeader::Reth,
        ExtHeader::ImmDt,
        ExtHeader::Aeth,
        ExtHeader::Seth,
        ExtHeader::CcState,
        ExtHeader::Neth,
        ExtHeader::Peth,
        ExtHeader::Erth,
        ExtHeader::Eeth,
        ExtHeader::Deth,
        ExtHeader::Ieth,
        ExtHeader::AtomicEth,
        ExtHeader::AtomicAckEth,
        ExtHeader::Cnp,
    ];

    /// The [`Header`] that errors and JSON output name this extension header by
    /// (`header().name()` is its lower-case name).
    pub const fn header(self) -> Header {
        match self {
            ExtHeader::Meth => Header::Meth,
            ExtHeader::Tseth => Header::Tseth,
            ExtHeader::Reth => Header::Reth,
            ExtHeader::ImmDt => Header::ImmDt,
            ExtHeader::Aeth => Header::Aeth,
            ExtHeader::Seth => Header::Seth,
            ExtHeader::CcState => Header::CcState,
            ExtHeader::Neth => Header::Neth,
            ExtHeader::Peth => Header::Peth,
            ExtHeader::Erth => Header::Erth,
            ExtHeader::Eeth => Header::Eeth,
            ExtHeader::Deth => Header::Deth,
            ExtHeader::Ieth => Header::Ieth,
            ExtHeader::AtomicEth => Header::AtomicEth,
            ExtHeader::AtomicAckEth => Header::AtomicAckEth,
            ExtHeader::Cnp => Header::Cnp,
        }
    }

    /// Length on the wire in bytes.
    pub const fn wire_len(self) -> usize {
        match self {
            ExtHeader::Meth | ExtHeader::Tseth | ExtHeader::ImmDt | ExtHeader::Aeth => 4,
            ExtHeader::Ieth => 4,
            ExtHeader::Reth | ExtHeader::Peth | ExtHeader::Erth | ExtHeader::Cnp => 16,
            ExtHeader::Seth | ExtHeader::AtomicEth => 28,
            ExtHeader::CcState | ExtHeader::Deth | ExtHeader::AtomicAckEth => 8,
            ExtHeader::Neth => 20,
            ExtHeader::Eeth => 36,
        }
    }
}

/// Whether an opcode's packets carry a payload after the extension headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayloadRule {
    /// No payload: any byte after the headers (other than pad) is a violation.
    None,
    /// Payload of 0 to PMTU bytes.
    Data,
    /// Unknown opcode: everything after the BTH is kept as opaque payload.
    Opaque,
}

/// What the table knows of an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The name the specification uses, e.g. `MRC_WRITE_FIRST`.
    pub name: &'static str,
    /// Extension headers after the BTH, in order. `Tseth` is present only with BTH `ts`.
    pub headers: &'static [ExtHeader],
    /// Whether a payload follows.
    pub payload: PayloadRule,
}

/// A BTH opcode. Lossless: every byte value is an `Opcode`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Opcode(pub u8);

/// Transport class in opcode bits 7:5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportClass {
    /// 000: Reliable Connection.
    Rc,
    /// 001: Unreliable Connection.
    Uc,
    /// 010: Reliable Datagram.
    Rd,
    /// 011: Unreliable Datagram.
    Ud,
    /// 100: Congestion notification (CNP).
    Cnp,
    /// 101: Extended Reliable Connection.
    Xrc,
    /// 110 and 111: manufacturer-specific; MRC lives in 110.
    Manufacturer(u8),
}

macro_rules! opcodes {
    ($( $(#[$doc:meta])* $konst:ident = $val:literal, $name:literal, [$($h:ident),*], $p:ident; )*) => {
        impl Opcode {
            $( $(#[$doc])* pub const $konst: Opcode = Opcode($val); )*

            /// The table entry, or `None` for an opcode this table does not define.
            pub const fn info(self) -> Option<OpcodeInfo> {
                match self.0 {
                    $( $val => Some(OpcodeInfo {
                        name: $name,
                        headers: &[$(ExtHeader::$h),*],
                        payload: PayloadRule::$p,
                    }), )*
                    _ => None,
                }
            }

            /// Every opcode the table defines, in numeric order.
            pub const ALL: &'static [Opcode] = &[$(Opcode($val)),*];
        }
    };
}

opcodes! {
    /// RC SEND First.
    RC_SEND_FIRST = 0x00, "RC_SEND_FIRST", [], Data;
    /// RC SEND Middle.
    RC_SEND_MIDDLE = 0x01, "RC_SEND_MIDDLE", [], Data;
    /// RC SEND Last.
    RC_SEND_LAST = 0x02, "RC_SEND_LAST", [], Data;
    /// RC SEND Last with Immediate.
    RC_SEND_LAST_IMM = 0x03, "RC_SEND_LAST_IMM", [ImmDt], Data;
    /// RC SEND Only.
    RC_SEND_ONLY = 0x04, "RC_SEND_ONLY", [], Data;
    /// RC SEND Only with Immediate.
    RC_SEND_ONLY_IMM = 0x05, "RC_SEND_ONLY_IMM", [ImmDt], Data;
    /// RC RDMA WRITE First.
    RC_WRITE_FIRST = 0x06, "RC_WRITE_FIRST", [Reth], Data;
    /// RC RDMA WRITE Middle.
    RC_WRITE_MIDDLE = 0x07, "RC_WRITE_MIDDLE", [], Data;
    /// RC RDMA WRITE Last.
    RC_WRITE_LAST = 0x08, "RC_WRITE_LAST", [], Data;
    /// RC RDMA WRITE Last with Immediate.
    RC_WRITE_LAST_IMM = 0x09, "RC_WRITE_LAST_IMM", [ImmDt], Data;
    /// RC RDMA WRITE Only.
    RC_WRITE_ONLY = 0x0A, "RC_WRITE_ONLY", [Reth], Data;
    /// RC RDMA WRITE Only with Immediate.
    RC_WRITE_ONLY_IMM = 0x0B, "RC_WRITE_ONLY_IMM", [Reth, ImmDt], Data;
    /// RC RDMA READ Request.
    RC_READ_REQUEST = 0x0C, "RC_READ_REQUEST", [Reth], None;
    /// RC RDMA READ Response First.
    RC_READ_RESPONSE_FIRST = 0x0D, "RC_READ_RESPONSE_FIRST", [Aeth], Data;
    /// RC RDMA READ Response Middle.
    RC_READ_RESPONSE_MIDDLE = 0x0E, "RC_READ_RESPONSE_MIDDLE", [], Data;
    /// RC RDMA READ Response Last.
    RC_READ_RESPONSE_LAST = 0x0F, "RC_READ_RESPONSE_LAST", [Aeth], Data;
    /// RC RDMA READ Response Only.
    RC_READ_RESPONSE_ONLY = 0x10, "RC_READ_RESPONSE_ONLY", [Aeth], Data;
    /// RC Acknowledge.
    RC_ACKNOWLEDGE = 0x11, "RC_ACKNOWLEDGE", [Aeth], None;
    /// RC Atomic Acknowledge.
    RC_ATOMIC_ACKNOWLEDGE = 0x12, "RC_ATOMIC_ACKNOWLEDGE", [Aeth, AtomicAckEth], None;
    /// RC CmpSwap.
    RC_COMPARE_SWAP = 0x13, "RC_COMPARE_SWAP", [AtomicEth], None;
    /// RC FetchAdd.
    RC_FETCH_ADD = 0x14, "RC_FETCH_ADD", [AtomicEth], None;
    /// RC SEND Last with Invalidate.
    RC_SEND_LAST_INV = 0x16, "RC_SEND_LAST_INV", [Ieth], Data;
    /// RC SEND Only with Invalidate.
    RC_SEND_ONLY_INV = 0x17, "RC_SEND_ONLY_INV", [Ieth], Data;
    /// UD SEND Only.
    UD_SEND_ONLY = 0x64, "UD_SEND_ONLY", [Deth], Data;
    /// UD SEND Only with Immediate.
    UD_SEND_ONLY_IMM = 0x65, "UD_SEND_ONLY_IMM", [Deth, ImmDt], Data;
    /// RoCEv2 Congestion Notification Packet.
    CNP = 0x81, "CNP", [Cnp], None;
    /// MRC RDMA WRITE First.
    MRC_WRITE_FIRST = 0xC6, "MRC_WRITE_FIRST", [Meth, Tseth, Reth], Data;
    /// MRC RDMA WRITE Middle.
    MRC_WRITE_MIDDLE = 0xC7, "MRC_WRITE_MIDDLE", [Meth, Tseth, Reth], Data;
    /// MRC RDMA WRITE Last.
    MRC_WRITE_LAST = 0xC8, "MRC_WRITE_LAST", [Meth, Tseth, Reth], Data;
    /// MRC RDMA WRITE Last with Immediate.
    MRC_WRITE_LAST_IMM = 0xC9, "MRC_WRITE_LAST_IMM", [Meth, Tseth, Reth, ImmDt], Data;
    /// MRC RDMA WRITE Only.
    MRC_WRITE_ONLY = 0xCA, "MRC_WRITE_ONLY", [Meth, Tseth, Reth], Data;
    /// MRC RDMA WRITE Only with Immediate.
    MRC_WRITE_ONLY_IMM = 0xCB, "MRC_WRITE_ONLY_IMM", [Meth, Tseth, Reth, ImmDt], Data;
    /// MRC transport Acknowledge.
    MRC_ACKNOWLEDGE = 0xD1, "MRC_ACKNOWLEDGE", [Aeth], None;
    /// MRC endpoint request.
    MRC_ENDPOINT_REQUEST = 0xD8, "MRC_ENDPOINT_REQUEST", [Erth], None;
    /// MRC endpoint response.
    MRC_ENDPOINT_RESPONSE = 0xD9, "MRC_ENDPOINT_RESPONSE", [Eeth], None;
    /// MRC selective acknowledgement.
    MRC_SACK = 0xDC, "MRC_RELIABILITY_SACK", [Seth, CcState], None;
    /// MRC negative acknowledgement.
    MRC_NACK = 0xDD, "MRC_RELIABILITY_NACK", [Neth], None;
    /// MRC reliability probe.
    MRC_PROBE = 0xDE, "MRC_RELIABILITY_PROBE", [Peth], None;
}

impl Opcode {
    /// The transport class in bits 7:5.
    pub const fn class(self) -> TransportClass {
        match self.0 >> 5 {
            0 => TransportClass::Rc,
            1 => TransportClass::Uc,
            2 => TransportClass::Rd,
            3 => TransportClass::Ud,
            4 => TransportClass::Cnp,
            5 => TransportClass::Xrc,
            c => TransportClass::Manufacturer(c),
        }
    }

    /// The name from the table, or `None` for an unknown opcode.
    pub const fn name(self) -> Option<&'static str> {
        match self.info() {
            Some(i) => Some(i.name),
            None => None,
        }
    }

    /// Whether this is an MRC opcode: any opcode of the manufacturer-specific class 0b110
    /// (0xC0..=0xDF), whether or not the table defines it.
    pub const fn is_mrc(self) -> bool {
        self.0 >> 5 == 0b110
    }

    /// Whether this is one of MRC's write opcodes (0xC6..=0xCB).
    pub const fn is_mrc_write(self) -> bool {
        matches!(self.0, 0xC6..=0xCB)
    }

    /// Whether this MRC or RC write carries immediate data.
    pub const fn has_immediate(self) -> bool {
        matches!(self.0, 0x03 | 0x05 | 0x09 | 0x0B | 0x65 | 0xC9 | 0xCB)
    }

    /// Whether this opcode ends a message (LAST or ONLY, for writes and sends).
    pub const fn is_last(self) -> bool {
        matches!(
            self.0,
            0x02 | 0x03 | 0x04 | 0x05 | 0x08 | 0x09 | 0x0A | 0x0B | 0x16 | 0x17 | 0xC8..=0xCB
        )
    }

    /// Whether this opcode starts a message (FIRST or ONLY, for writes and sends).
    pub const fn is_first(self) -> bool {
        matches!(self.0, 0x00 | 0x04 | 0x05 | 0x06 | 0x0A | 0x0B | 0x17 | 0xC6 | 0xCA | 0xCB)
    }
}

impl fmt::Debug for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({:#04x})", self.0),
            None => write!(f, "Opcode({:#04x})", self.0),
        }
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "UNKNOWN({:#04x})", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_complete_for_mrc() {
        for w in Opcode::ALL.windows(2) {
            assert!(w[0].0 < w[1].0, "{:?} before {:?}", w[0], w[1]);
        }
        for op in 0xC6..=0xCB {
            let info = Opcode(op).info().unwrap();
            assert_eq!(&info.headers[..3], &[ExtHeader::Meth, ExtHeader::Tseth, ExtHeader::Reth]);
            assert!(Opcode(op).is_mrc_write());
        }
        assert_eq!(
            Opcode::MRC_SACK.info().unwrap().headers,
            &[ExtHeader::Seth, ExtHeader::CcState]
        );
    }

    #[test]
    fn classes() {
        assert_eq!(Opcode::RC_SEND_ONLY.class(), TransportClass::Rc);
        assert_eq!(Opcode::CNP.class(), TransportClass::Cnp);
        assert_eq!(Opcode::MRC_WRITE_ONLY.class(), TransportClass::Manufacturer(6));
        assert_eq!(Opcode(0xFF).info(), None);
        assert_eq!(alloc::format!("{}", Opcode(0xFF)), "UNKNOWN(0xff)");
    }

    #[test]
    fn first_and_last() {
        assert!(Opcode::MRC_WRITE_ONLY.is_first() && Opcode::MRC_WRITE_ONLY.is_last());
        assert!(Opcode::MRC_WRITE_FIRST.is_first() && !Opcode::MRC_WRITE_FIRST.is_last());
        assert!(!Opcode::MRC_WRITE_MIDDLE.is_first() && !Opcode::MRC_WRITE_MIDDLE.is_last());
        assert!(Opcode::MRC_WRITE_LAST_IMM.has_immediate());
    }
}
