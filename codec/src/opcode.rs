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
    /// DETH, 8 bytes (UD, RD).
    Deth,
    /// RDETH, 4 bytes (RD).
    Rdeth,
    /// XRCETH, 4 bytes (XRC requests).
    Xrceth,
    /// IETH, 4 bytes.
    Ieth,
    /// AtomicETH, 28 bytes.
    AtomicEth,
    /// AtomicAckETH, 8 bytes.
    AtomicAckEth,
    /// FETH, 4 bytes (FLUSH).
    Feth,
    /// The 16 reserved bytes of a CNP.
    Cnp,
}

impl ExtHeader {
    /// Every extension header, in the order of the fields of `frame::Extensions` (the order
    /// `openrdma dissect` prints them in).
    pub const ALL: [ExtHeader; 19] = [
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
        ExtHeader::Rdeth,
        ExtHeader::Xrceth,
        ExtHeader::Ieth,
        ExtHeader::AtomicEth,
        ExtHeader::AtomicAckEth,
        ExtHeader::Feth,
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
            ExtHeader::Rdeth => Header::Rdeth,
            ExtHeader::Xrceth => Header::Xrceth,
            ExtHeader::Ieth => Header::Ieth,
            ExtHeader::AtomicEth => Header::AtomicEth,
            ExtHeader::AtomicAckEth => Header::AtomicAckEth,
            ExtHeader::Feth => Header::Feth,
            ExtHeader::Cnp => Header::Cnp,
        }
    }

    /// Length on the wire in bytes.
    pub const fn wire_len(self) -> usize {
        match self {
            ExtHeader::Meth | ExtHeader::Tseth | ExtHeader::ImmDt | ExtHeader::Aeth => 4,
            ExtHeader::Ieth | ExtHeader::Rdeth | ExtHeader::Xrceth | ExtHeader::Feth => 4,
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

            /// The table entry, or `None` for an opcode this table does not define: one
            /// lookup in a table of the 256 byte values.
            #[inline]
            pub const fn info(self) -> Option<OpcodeInfo> {
                OPCODE_TABLE[self.0 as usize]
            }
        }

        /// Every opcode's entry, indexed by its byte.
        const OPCODE_TABLE: [Option<OpcodeInfo>; 256] = {
            let mut t = [None; 256];
            $( t[$val] = Some(OpcodeInfo {
                name: $name,
                headers: &[$(ExtHeader::$h),*],
                payload: PayloadRule::$p,
            }); )*
            t
        };

        /// Every opcode's header stack as a set, bit `h as u8` for `h`, indexed by its byte:
        /// [`Opcode::carries`] is one look-up, on the path of every packet.
        const HEADER_SETS: [u32; 256] = {
            let mut t = [0u32; 256];
            let mut op = 0;
            while op < 256 {
                if let Some(info) = OPCODE_TABLE[op] {
                    let mut i = 0;
                    while i < info.headers.len() {
                        t[op] |= 1 << (info.headers[i] as u8);
                        i += 1;
                    }
                }
                op += 1;
            }
            t
        };

        impl Opcode {
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
    /// RC FLUSH (IBTA 1.5 memory placement extensions).
    RC_FLUSH = 0x1C, "RC_FLUSH", [Feth, Reth], None;
    /// RC ATOMIC WRITE (IBTA 1.5 memory placement extensions): an 8-byte payload.
    RC_ATOMIC_WRITE = 0x1D, "RC_ATOMIC_WRITE", [Reth], Data;
    /// UC SEND First.
    UC_SEND_FIRST = 0x20, "UC_SEND_FIRST", [], Data;
    /// UC SEND Middle.
    UC_SEND_MIDDLE = 0x21, "UC_SEND_MIDDLE", [], Data;
    /// UC SEND Last.
    UC_SEND_LAST = 0x22, "UC_SEND_LAST", [], Data;
    /// UC SEND Last with Immediate.
    UC_SEND_LAST_IMM = 0x23, "UC_SEND_LAST_IMM", [ImmDt], Data;
    /// UC SEND Only.
    UC_SEND_ONLY = 0x24, "UC_SEND_ONLY", [], Data;
    /// UC SEND Only with Immediate.
    UC_SEND_ONLY_IMM = 0x25, "UC_SEND_ONLY_IMM", [ImmDt], Data;
    /// UC RDMA WRITE First.
    UC_WRITE_FIRST = 0x26, "UC_WRITE_FIRST", [Reth], Data;
    /// UC RDMA WRITE Middle.
    UC_WRITE_MIDDLE = 0x27, "UC_WRITE_MIDDLE", [], Data;
    /// UC RDMA WRITE Last.
    UC_WRITE_LAST = 0x28, "UC_WRITE_LAST", [], Data;
    /// UC RDMA WRITE Last with Immediate.
    UC_WRITE_LAST_IMM = 0x29, "UC_WRITE_LAST_IMM", [ImmDt], Data;
    /// UC RDMA WRITE Only.
    UC_WRITE_ONLY = 0x2A, "UC_WRITE_ONLY", [Reth], Data;
    /// UC RDMA WRITE Only with Immediate.
    UC_WRITE_ONLY_IMM = 0x2B, "UC_WRITE_ONLY_IMM", [Reth, ImmDt], Data;
    /// RD SEND First.
    RD_SEND_FIRST = 0x40, "RD_SEND_FIRST", [Rdeth, Deth], Data;
    /// RD SEND Middle.
    RD_SEND_MIDDLE = 0x41, "RD_SEND_MIDDLE", [Rdeth, Deth], Data;
    /// RD SEND Last.
    RD_SEND_LAST = 0x42, "RD_SEND_LAST", [Rdeth, Deth], Data;
    /// RD SEND Last with Immediate.
    RD_SEND_LAST_IMM = 0x43, "RD_SEND_LAST_IMM", [Rdeth, Deth, ImmDt], Data;
    /// RD SEND Only.
    RD_SEND_ONLY = 0x44, "RD_SEND_ONLY", [Rdeth, Deth], Data;
    /// RD SEND Only with Immediate.
    RD_SEND_ONLY_IMM = 0x45, "RD_SEND_ONLY_IMM", [Rdeth, Deth, ImmDt], Data;
    /// RD RDMA WRITE First.
    RD_WRITE_FIRST = 0x46, "RD_WRITE_FIRST", [Rdeth, Deth, Reth], Data;
    /// RD RDMA WRITE Middle.
    RD_WRITE_MIDDLE = 0x47, "RD_WRITE_MIDDLE", [Rdeth, Deth], Data;
    /// RD RDMA WRITE Last.
    RD_WRITE_LAST = 0x48, "RD_WRITE_LAST", [Rdeth, Deth], Data;
    /// RD RDMA WRITE Last with Immediate.
    RD_WRITE_LAST_IMM = 0x49, "RD_WRITE_LAST_IMM", [Rdeth, Deth, ImmDt], Data;
    /// RD RDMA WRITE Only.
    RD_WRITE_ONLY = 0x4A, "RD_WRITE_ONLY", [Rdeth, Deth, Reth], Data;
    /// RD RDMA WRITE Only with Immediate.
    RD_WRITE_ONLY_IMM = 0x4B, "RD_WRITE_ONLY_IMM", [Rdeth, Deth, Reth, ImmDt], Data;
    /// RD RDMA READ Request.
    RD_READ_REQUEST = 0x4C, "RD_READ_REQUEST", [Rdeth, Deth, Reth], None;
    /// RD RDMA READ Response First.
    RD_READ_RESPONSE_FIRST = 0x4D, "RD_READ_RESPONSE_FIRST", [Rdeth, Aeth], Data;
    /// RD RDMA READ Response Middle.
    RD_READ_RESPONSE_MIDDLE = 0x4E, "RD_READ_RESPONSE_MIDDLE", [Rdeth], Data;
    /// RD RDMA READ Response Last.
    RD_READ_RESPONSE_LAST = 0x4F, "RD_READ_RESPONSE_LAST", [Rdeth, Aeth], Data;
    /// RD RDMA READ Response Only.
    RD_READ_RESPONSE_ONLY = 0x50, "RD_READ_RESPONSE_ONLY", [Rdeth, Aeth], Data;
    /// RD Acknowledge.
    RD_ACKNOWLEDGE = 0x51, "RD_ACKNOWLEDGE", [Rdeth, Aeth], None;
    /// RD Atomic Acknowledge.
    RD_ATOMIC_ACKNOWLEDGE = 0x52, "RD_ATOMIC_ACKNOWLEDGE", [Rdeth, Aeth, AtomicAckEth], None;
    /// RD CmpSwap.
    RD_COMPARE_SWAP = 0x53, "RD_COMPARE_SWAP", [Rdeth, Deth, AtomicEth], None;
    /// RD FetchAdd.
    RD_FETCH_ADD = 0x54, "RD_FETCH_ADD", [Rdeth, Deth, AtomicEth], None;
    /// RD RESYNC.
    RD_RESYNC = 0x55, "RD_RESYNC", [Rdeth, Deth], None;
    /// RD FLUSH.
    RD_FLUSH = 0x5C, "RD_FLUSH", [Rdeth, Deth, Feth, Reth], None;
    /// RD ATOMIC WRITE: an 8-byte payload.
    RD_ATOMIC_WRITE = 0x5D, "RD_ATOMIC_WRITE", [Rdeth, Deth, Reth], Data;
    /// UD SEND Only.
    UD_SEND_ONLY = 0x64, "UD_SEND_ONLY", [Deth], Data;
    /// UD SEND Only with Immediate.
    UD_SEND_ONLY_IMM = 0x65, "UD_SEND_ONLY_IMM", [Deth, ImmDt], Data;
    /// RoCEv2 Congestion Notification Packet.
    CNP = 0x81, "CNP", [Cnp], None;
    /// XRC SEND First.
    XRC_SEND_FIRST = 0xA0, "XRC_SEND_FIRST", [Xrceth], Data;
    /// XRC SEND Middle.
    XRC_SEND_MIDDLE = 0xA1, "XRC_SEND_MIDDLE", [Xrceth], Data;
    /// XRC SEND Last.
    XRC_SEND_LAST = 0xA2, "XRC_SEND_LAST", [Xrceth], Data;
    /// XRC SEND Last with Immediate.
    XRC_SEND_LAST_IMM = 0xA3, "XRC_SEND_LAST_IMM", [Xrceth, ImmDt], Data;
    /// XRC SEND Only.
    XRC_SEND_ONLY = 0xA4, "XRC_SEND_ONLY", [Xrceth], Data;
    /// XRC SEND Only with Immediate.
    XRC_SEND_ONLY_IMM = 0xA5, "XRC_SEND_ONLY_IMM", [Xrceth, ImmDt], Data;
    /// XRC RDMA WRITE First.
    XRC_WRITE_FIRST = 0xA6, "XRC_WRITE_FIRST", [Xrceth, Reth], Data;
    /// XRC RDMA WRITE Middle.
    XRC_WRITE_MIDDLE = 0xA7, "XRC_WRITE_MIDDLE", [Xrceth], Data;
    /// XRC RDMA WRITE Last.
    XRC_WRITE_LAST = 0xA8, "XRC_WRITE_LAST", [Xrceth], Data;
    /// XRC RDMA WRITE Last with Immediate.
    XRC_WRITE_LAST_IMM = 0xA9, "XRC_WRITE_LAST_IMM", [Xrceth, ImmDt], Data;
    /// XRC RDMA WRITE Only.
    XRC_WRITE_ONLY = 0xAA, "XRC_WRITE_ONLY", [Xrceth, Reth], Data;
    /// XRC RDMA WRITE Only with Immediate.
    XRC_WRITE_ONLY_IMM = 0xAB, "XRC_WRITE_ONLY_IMM", [Xrceth, Reth, ImmDt], Data;
    /// XRC RDMA READ Request.
    XRC_READ_REQUEST = 0xAC, "XRC_READ_REQUEST", [Xrceth, Reth], None;
    /// XRC RDMA READ Response First.
    XRC_READ_RESPONSE_FIRST = 0xAD, "XRC_READ_RESPONSE_FIRST", [Aeth], Data;
    /// XRC RDMA READ Response Middle.
    XRC_READ_RESPONSE_MIDDLE = 0xAE, "XRC_READ_RESPONSE_MIDDLE", [], Data;
    /// XRC RDMA READ Response Last.
    XRC_READ_RESPONSE_LAST = 0xAF, "XRC_READ_RESPONSE_LAST", [Aeth], Data;
    /// XRC RDMA READ Response Only.
    XRC_READ_RESPONSE_ONLY = 0xB0, "XRC_READ_RESPONSE_ONLY", [Aeth], Data;
    /// XRC Acknowledge.
    XRC_ACKNOWLEDGE = 0xB1, "XRC_ACKNOWLEDGE", [Aeth], None;
    /// XRC Atomic Acknowledge.
    XRC_ATOMIC_ACKNOWLEDGE = 0xB2, "XRC_ATOMIC_ACKNOWLEDGE", [Aeth, AtomicAckEth], None;
    /// XRC CmpSwap.
    XRC_COMPARE_SWAP = 0xB3, "XRC_COMPARE_SWAP", [Xrceth, AtomicEth], None;
    /// XRC FetchAdd.
    XRC_FETCH_ADD = 0xB4, "XRC_FETCH_ADD", [Xrceth, AtomicEth], None;
    /// XRC SEND Last with Invalidate.
    XRC_SEND_LAST_INV = 0xB6, "XRC_SEND_LAST_INV", [Xrceth, Ieth], Data;
    /// XRC SEND Only with Invalidate.
    XRC_SEND_ONLY_INV = 0xB7, "XRC_SEND_ONLY_INV", [Xrceth, Ieth], Data;
    /// XRC FLUSH.
    XRC_FLUSH = 0xBC, "XRC_FLUSH", [Xrceth, Feth, Reth], None;
    /// XRC ATOMIC WRITE: an 8-byte payload.
    XRC_ATOMIC_WRITE = 0xBD, "XRC_ATOMIC_WRITE", [Xrceth, Reth], Data;
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

/// The longest extension-header stack of any opcode (RD's RDETH, DETH, RETH, ImmDt; MRC's
/// METH, TSETH, RETH, ImmDt).
pub const MAX_EXT_HEADERS: usize = 4;

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

    /// Whether this is an RC or XRC ATOMIC WRITE, whose payload ATOMIC-WRITE-001 holds to
    /// exactly 8 bytes (the RD one, whose stack is inferred, is decoded but not judged).
    pub const fn is_atomic_write(self) -> bool {
        matches!(self.0, 0x1D | 0xBD)
    }

    /// Whether this opcode's packets carry immediate data (an ImmDt), in any class.
    pub const fn has_immediate(self) -> bool {
        self.carries(ExtHeader::ImmDt)
    }

    /// Whether this opcode's header stack holds `h` (TSETH counts, although it is present
    /// only when BTH `ts` is set).
    pub const fn carries(self, h: ExtHeader) -> bool {
        HEADER_SETS[self.0 as usize] & (1 << (h as u8)) != 0
    }

    /// The position of a SEND or RDMA WRITE opcode inside its class (the low five bits),
    /// for the classes that share IBTA's numbering (RC, UC, RD, UD, XRC), and for MRC's
    /// writes; `None` for other opcodes.
    const fn message_position(self) -> Option<u8> {
        match self.0 >> 5 {
            0 | 1 | 2 | 3 | 5 => Some(self.0 & 0x1F),
            _ => None,
        }
    }

    /// Whether this opcode ends a message (LAST or ONLY, for writes and sends, in any
    /// class).
    pub const fn is_last(self) -> bool {
        if self.info().is_none() {
            return false;
        }
        if self.is_mrc() {
            return matches!(self.0, 0xC8..=0xCB);
        }
        matches!(self.message_position(), Some(0x02..=0x05 | 0x08..=0x0B | 0x16 | 0x17))
    }

    /// Whether this opcode starts a message (FIRST or ONLY, for writes and sends, in any
    /// class).
    pub const fn is_first(self) -> bool {
        if self.info().is_none() {
            return false;
        }
        if self.is_mrc() {
            return matches!(self.0, 0xC6 | 0xCA | 0xCB);
        }
        matches!(self.message_position(), Some(0x00 | 0x04 | 0x05 | 0x06 | 0x0A | 0x0B | 0x17))
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

    /// The header sets agree with the header stacks, for every byte and every header
    /// some opcode carries: each is carried exactly where its stack lists it.
    #[test]
    fn carries_agrees_with_the_header_stacks() {
        let mut headers = alloc::vec::Vec::new();
        for op in Opcode::ALL {
            for &h in op.info().unwrap().headers {
                assert!((h as u8) < 32, "{h:?} does not fit the header set");
                if !headers.contains(&h) {
                    headers.push(h);
                }
            }
        }
        for byte in 0..=255u8 {
            let stack = Opcode(byte).info().map_or(&[][..], |i| i.headers);
            for &h in &headers {
                assert_eq!(Opcode(byte).carries(h), stack.contains(&h), "{byte:#04x} {h:?}");
            }
        }
    }

    #[test]
    fn first_and_last() {
        assert!(Opcode::MRC_WRITE_ONLY.is_first() && Opcode::MRC_WRITE_ONLY.is_last());
        assert!(Opcode::MRC_WRITE_FIRST.is_first() && !Opcode::MRC_WRITE_FIRST.is_last());
        assert!(!Opcode::MRC_WRITE_MIDDLE.is_first() && !Opcode::MRC_WRITE_MIDDLE.is_last());
        assert!(Opcode::MRC_WRITE_LAST_IMM.has_immediate());
    }
}
