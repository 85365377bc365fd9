//! Reading capture files: pcap (either byte order, microsecond or nanosecond timestamps) and
//! pcapng (any number of sections and interfaces).
//!
//! [`CaptureReader`] is an iterator of [`Record`]s, one per packet record of the file, in
//! file order. It does the framing itself (record headers, block lengths), so that every
//! error names the byte offset of the record or block where the file goes wrong, and hands
//! the contents of each block to `pcap-file` to parse.
//!
//! A file error ends the iteration: after yielding one `Err`, the iterator yields `None`.
//! Records are never decoded here; what a record holds is the caller's business (see
//! [`Record::link_type`]).
//!
//! [`CaptureReader::next_item`] reads the same file one level lower: besides the packet
//! records it yields the section headers and the interface descriptions, each with its byte
//! offset, for readers that check the structure of a file (the scenario reader of
//! [`crate::file`]).

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use pcap_file::pcap::PcapHeader;
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketOption;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::packet::PacketOption;
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};
use pcap_file::pcapng::{Block, PcapNgParser};
use pcap_file::{Endianness, TsResolution};

/// LINKTYPE_ETHERNET: records of this link type are Ethernet frames without FCS.
pub const LINKTYPE_ETHERNET: u32 = 1;

/// The largest record or block this reader accepts. Real captures stay far below it; a
/// larger length field means the file is corrupt.
pub const MAX_RECORD_LEN: u64 = 16 << 20;

const PCAP_HEADER_LEN: usize = 24;
const PCAP_RECORD_HEADER_LEN: usize = 16;
const PCAPNG_SHB: u32 = 0x0A0D_0D0A;
const PCAPNG_BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
/// pcapng's default timestamp resolution (`if_tsresol` absent): microseconds.
const PCAPNG_DEFAULT_TSRESOL: u8 = 6;

/// The container format of a capture file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Classic libpcap format.
    Pcap,
    /// pcapng.
    PcapNg,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Pcap => "pcap",
            Format::PcapNg => "pcapng",
        })
    }
}

/// One packet record of a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// 1-based position among the packet records of the file (what Wireshark calls the
    /// frame number). Non-packet blocks (interface descriptions, statistics) are not counted.
    pub index: u64,
    /// Byte offset in the file of the record header (pcap) or of the block (pcapng).
    pub offset: u64,
    /// Interface the record was captured on: the pcapng interface ID, 0 for pcap.
    pub interface: u32,
    /// Link type of that interface ([`LINKTYPE_ETHERNET`] for Ethernet).
    pub link_type: u32,
    /// Capture time in nanoseconds since the Unix epoch, when the record has one (pcapng
    /// Simple Packet Blocks have none).
    pub timestamp_ns: Option<u64>,
    /// Length of the packet on the wire; larger than `data.len()` when the capture cut it.
    pub orig_len: u32,
    /// The captured bytes.
    pub data: Vec<u8>,
    /// The packet's flags word (pcapng `epb_flags`, option code 2), when it has one. Bits 0-1
    /// are the direction: 01 inbound, 10 outbound, 00 unknown.
    pub flags: Option<u32>,
    /// The packet's comments (pcapng `opt_comment`), in file order.
    pub comments: Vec<String>,
}

/// A section of a capture: a pcapng Section Header Block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Byte offset of the block in the file.
    pub offset: u64,
    /// The application that wrote the section (`shb_userappl`), if named.
    pub user_application: Option<String>,
    /// The section's comments (`opt_comment`), in file order.
    pub comments: Vec<String>,
    /// The byte count of the blocks after the Section Header Block up to the next section
    /// or the end of the file, when the header gives it (`None` for -1, "not specified").
    pub length: Option<u64>,
}

/// An interface of a capture: a pcapng Interface Description Block, or the single interface
/// that a pcap file header describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// Byte offset of the block in the file (0 for a pcap file's interface: its header).
    pub offset: u64,
    /// The interface ID packets name it by: its position among the section's interfaces.
    pub id: u32,
    /// Link type of its packets ([`LINKTYPE_ETHERNET`] for Ethernet).
    pub link_type: u32,
    /// Snap length: the most bytes of a packet that were kept (0: no limit).
    pub snaplen: u32,
    /// `if_name`, if present.
    pub name: Option<String>,
    /// `if_description`, if present.
    pub description: Option<String>,
    /// Timestamp resolution, coded as pcapng's `if_tsresol` (6: microseconds, the default;
    /// 9: nanoseconds).
    pub tsresol: u8,
}

/// One item of a capture, as [`CaptureReader::next_item`] yields it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A pcapng section starts (pcap files have none). Interface IDs start again from 0.
    Section(Section),
    /// An interface is described.
    Interface(Interface),
    /// A packet record.
    Packet(Record),
}

/// Why a capture file cannot be read, or cannot be read any further.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The file cannot be opened.
    #[error("cannot open the file: {0}")]
    Open(#[source] io::Error),
    /// Reading failed for a reason other than the end of the file.
    #[error("read error at byte {offset}: {source}")]
    Io {
        /// Where reading was.
        offset: u64,
        /// The error.
        source: io::Error,
    },
    /// The file is too short to tell what it is.
    #[error("not a pcap or pcapng file: it is only {len} bytes long")]
    TooShort {
        /// Length of the file.
        len: u64,
    },
    /// The file does not start with a pcap or pcapng magic number.
    #[error("not a pcap or pcapng file: it starts with {}", hex(.magic))]
    UnknownFormat {
        /// The first four bytes.
        magic: [u8; 4],
    },
    /// The file ends inside its file header (pcap) or first Section Header Block (pcapng).
    #[error("the {format} file header is truncated: it needs {need} bytes, the file has {have}")]
    TruncatedHeader {
        /// The format.
        format: Format,
        /// Bytes the header needs.
        need: u64,
        /// Bytes present.
        have: u64,
    },
    /// The file header is malformed.
    #[error("the {format} file header is invalid: {reason}")]
    BadHeader {
        /// The format.
        format: Format,
        /// What is wrong.
        reason: String,
    },
    /// The file ends inside a record or block.
    #[error("the {what} at byte {offset} is truncated: it needs {need} bytes, the file has {have}")]
    Truncated {
        /// `"record"` (pcap) or `"block"` (pcapng).
        what: &'static str,
        /// Offset of the record or block.
        offset: u64,
        /// Bytes it needs.
        need: u64,
        /// Bytes left in the file.
        have: u64,
    },
    /// A record or block is malformed.
    #[error("corrupt {what} at byte {offset}: {reason}")]
    Corrupt {
        /// `"record"` (pcap) or `"block"` (pcapng).
        what: &'static str,
        /// Offset of the record or block.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
}

enum Kind {
    Pcap(PcapHeader),
    PcapNg(Box<PcapNgParser>),
}

fn section_item(offset: u64, shb: &SectionHeaderBlock<'_>) -> Section {
    let mut section = Section {
        offset,
        user_application: None,
        comments: Vec::new(),
        length: u64::try_from(shb.section_length).ok(),
    };
    for opt in &shb.options {
        match opt {
            SectionHeaderOption::UserApplication(a) => {
                section.user_application = Some(a.to_string());
            }
            SectionHeaderOption::Comment(c) => section.comments.push(c.to_string()),
            _ => {}
        }
    }
    section
}

fn interface_item(offset: u64, id: u32, idb: &InterfaceDescriptionBlock<'_>) -> Interface {
    let mut interface = Interface {
        offset,
        id,
        link_type: u32::from(idb.linktype),
        snaplen: idb.snaplen,
        name: None,
        description: None,
        tsresol: PCAPNG_DEFAULT_TSRESOL,
    };
    for opt in &idb.options {
        match opt {
            InterfaceDescriptionOption::IfName(n) => interface.name = Some(n.to_string()),
            InterfaceDescriptionOption::IfDescription(d) => {
                interface.description = Some(d.to_string());
            }
            InterfaceDescriptionOption::IfTsResol(r) => interface.tsresol = *r,
            _ => {}
        }
    }
    interface
}

/// Reads the packet records of a pcap or pcapng stream, detected by its magic number.
pub struct CaptureReader<R> {
    input: BufReader<R>,
    kind: Kind,
    /// Bytes consumed so far: the offset of the next record or block.
    offset: u64,
    /// Index of the next packet record.
    next_index: u64,
    /// An item read with the file header, not yet yielded.
    pending: Option<Item>,
    done: bool,
}

impl<R> fmt::Debug for CaptureReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CaptureReader")
            .field("format", &self.format())
            .field("offset", &self.offset)
            .field("next_index", &self.next_index)
            .finish_non_exhaustive()
    }
}

impl<R> CaptureReader<R> {
    /// The format of the file.
    pub fn format(&self) -> Format {
        match self.kind {
            Kind::Pcap(_) => Format::Pcap,
            Kind::PcapNg(_) => Format::PcapNg,
        }
    }

    /// The byte offset of the next record or block: the number of bytes read so far. After
    /// the last item, the length of the file.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl CaptureReader<File> {
    /// Opens the capture at `path` and reads its file header.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, CaptureError> {
        let file = File::open(path).map_err(CaptureError::Open)?;
        CaptureReader::new(file)
    }
}

impl<R: Read> CaptureReader<R> {
    /// Reads the file header from `input` and prepares to read records.
    pub fn new(input: R) -> Result<Self, CaptureError> {
        let mut input = BufReader::new(input);
        let mut head = Vec::with_capacity(PCAP_HEADER_LEN);
        let n = read_up_to(&mut input, 4, &mut head, 0)?;
        let Ok(magic) = <[u8; 4]>::try_from(&head[..]) else {
            return Err(CaptureError::TooShort { len: n as u64 });
        };
        let (kind, header_len, first) = match magic {
            [0xA1, 0xB2, 0xC3, 0xD4]
            | [0xD4, 0xC3, 0xB2, 0xA1]
            | [0xA1, 0xB2, 0x3C, 0x4D]
            | [0x4D, 0x3C, 0xB2, 0xA1] => {
                read_up_to(&mut input, PCAP_HEADER_LEN - 4, &mut head, 4)?;
                if head.len() < PCAP_HEADER_LEN {
                    return Err(CaptureError::TruncatedHeader {
                        format: Format::Pcap,
                        need: PCAP_HEADER_LEN as u64,
                        have: head.len() as u64,
                    });
                }
                let (_, header) = PcapHeader::from_slice(&head).map_err(|e| {
                    CaptureError::BadHeader { format: Format::Pcap, reason: e.to_string() }
                })?;
                let interface = Interface {
                    offset: 0,
                    id: 0,
                    link_type: u32::from(header.datalink),
                    snaplen: header.snaplen,
                    name: None,
                    description: None,
                    tsresol: match header.ts_resolution {
                        TsResolution::MicroSecond => 6,
                        TsResolution::NanoSecond => 9,
                    },
                };
                (Kind::Pcap(header), PCAP_HEADER_LEN, Item::Interface(interface))
            }
            [0x0A, 0x0D, 0x0D, 0x0A] => {
                let block = read_block(&mut input, magic, 0, None).map_err(|e| match e {
                    CaptureError::Truncated { need, have, .. } => {
                        CaptureError::TruncatedHeader { format: Format::PcapNg, need, have }
                    }
                    CaptureError::Corrupt { reason, .. } => {
                        CaptureError::BadHeader { format: Format::PcapNg, reason }
                    }
                    e => e,
                })?;
                let (_, parser) = PcapNgParser::new(&block).map_err(|e| {
                    CaptureError::BadHeader { format: Format::PcapNg, reason: e.to_string() }
                })?;
                let section = Item::Section(section_item(0, parser.section()));
                (Kind::PcapNg(Box::new(parser)), block.len(), section)
            }
            _ => return Err(CaptureError::UnknownFormat { magic }),
        };
        let offset = header_len as u64;
        Ok(CaptureReader { input, kind, offset, next_index: 1, pending: Some(first), done: false })
    }

    /// Reads the next item of the file: a section header, an interface description or a
    /// packet record, in file order, skipping other blocks. The first item is the section
    /// of a pcapng file, or the interface of a pcap file. Like the iterator, it yields
    /// `None` after the end of the file or after an error.
    pub fn next_item(&mut self) -> Option<Result<Item, CaptureError>> {
        if self.done {
            return None;
        }
        let next = self.read_item().transpose();
        if !matches!(next, Some(Ok(_))) {
            self.done = true;
        }
        next
    }

    fn read_item(&mut self) -> Result<Option<Item>, CaptureError> {
        if let Some(item) = self.pending.take() {
            return Ok(Some(item));
        }
        loop {
            let at = self.offset;
            let found = match &mut self.kind {
                Kind::Pcap(header) => read_pcap_record(&mut self.input, header, at)?,
                Kind::PcapNg(parser) => read_pcapng_block(&mut self.input, parser, at)?,
            };
            let Some((len, item)) = found else { return Ok(None) };
            self.offset += len;
            match item {
                Some(Item::Packet(mut record)) => {
                    record.index = self.next_index;
                    self.next_index += 1;
                    return Ok(Some(Item::Packet(record)));
                }
                Some(item) => return Ok(Some(item)),
                None => {}
            }
        }
    }
}

impl<R: Read> Iterator for CaptureReader<R> {
    type Item = Result<Record, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.next_item()? {
                Ok(Item::Packet(record)) => return Some(Ok(record)),
                Ok(_) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl<R: Read> std::iter::FusedIterator for CaptureReader<R> {}

/// Appends up to `n` bytes of `input` to `buf`; returns how many were read (fewer only at the
/// end of the input). `at` is the file offset of the read, for the error.
fn read_up_to(
    input: &mut impl Read,
    n: usize,
    buf: &mut Vec<u8>,
    at: u64,
) -> Result<usize, CaptureError> {
    input.take(n as u64).read_to_end(buf).map_err(|source| CaptureError::Io { offset: at, source })
}

/// Reads one pcap record at offset `at`. Returns its length in bytes and the record, or
/// `None` at the end of the file.
fn read_pcap_record(
    input: &mut impl Read,
    header: &PcapHeader,
    at: u64,
) -> Result<Option<(u64, Option<Item>)>, CaptureError> {
    let mut buf = Vec::with_capacity(PCAP_RECORD_HEADER_LEN);
    let n = read_up_to(input, PCAP_RECORD_HEADER_LEN, &mut buf, at)?;
    if n == 0 {
        return Ok(None);
    }
    let truncated = |need: usize, have: usize| CaptureError::Truncated {
        what: "record",
        offset: at,
        need: need as u64,
        have: have as u64,
    };
    if n < PCAP_RECORD_HEADER_LEN {
        return Err(truncated(PCAP_RECORD_HEADER_LEN, n));
    }
    let word = |i: usize| {
        let b = [buf[i], buf[i + 1], buf[i + 2], buf[i + 3]];
        match header.endianness {
            Endianness::Big => u32::from_be_bytes(b),
            Endianness::Little => u32::from_le_bytes(b),
        }
    };
    let (ts_sec, ts_frac, incl_len, orig_len) = (word(0), word(4), word(8), word(12));
    if u64::from(incl_len) > MAX_RECORD_LEN {
        return Err(CaptureError::Corrupt {
            what: "record",
            offset: at,
            reason: format!(
                "captured length {incl_len} is larger than the limit of {MAX_RECORD_LEN} bytes"
            ),
        });
    }
    let mut data = Vec::new();
    let got = read_up_to(input, incl_len as usize, &mut data, at + 16)?;
    if got < incl_len as usize {
        return Err(truncated(PCAP_RECORD_HEADER_LEN + incl_len as usize, n + got));
    }
    let frac_ns = match header.ts_resolution {
        TsResolution::MicroSecond => u64::from(ts_frac) * 1_000,
        TsResolution::NanoSecond => u64::from(ts_frac),
    };
    let record = Record {
        index: 0,
        offset: at,
        interface: 0,
        link_type: u32::from(header.datalink),
        timestamp_ns: Some(u64::from(ts_sec) * 1_000_000_000 + frac_ns),
        orig_len,
        data,
        flags: None,
        comments: Vec::new(),
    };
    Ok(Some(((PCAP_RECORD_HEADER_LEN + got) as u64, Some(Item::Packet(record)))))
}

/// Reads the whole pcapng block at offset `at`, whose first four bytes (the block type) are
/// already in `block_type`. `endianness` is the section's, or `None` for a Section Header
/// Block, whose byte order comes from its own byte-order magic.
fn read_block(
    input: &mut impl Read,
    block_type: [u8; 4],
    at: u64,
    endianness: Option<Endianness>,
) -> Result<Vec<u8>, CaptureError> {
    let mut buf = block_type.to_vec();
    let truncated = |need: u64, have: usize| CaptureError::Truncated {
        what: "block",
        offset: at,
        need,
        have: have as u64,
    };
    let corrupt = |reason: String| CaptureError::Corrupt { what: "block", offset: at, reason };
    // Type and length, plus the byte-order magic of a Section Header Block.
    let head = if endianness.is_some() { 8 } else { 12 };
    read_up_to(input, head - 4, &mut buf, at + 4)?;
    if buf.len() < head {
        return Err(truncated(head as u64, buf.len()));
    }
    let endianness = match endianness {
        Some(e) => e,
        None => match u32::from_be_bytes([buf[8], buf[9], buf[10], buf[11]]) {
            PCAPNG_BYTE_ORDER_MAGIC => Endianness::Big,
            m if m.swap_bytes() == PCAPNG_BYTE_ORDER_MAGIC => Endianness::Little,
            m => return Err(corrupt(format!("byte-order magic is {m:#010x}"))),
        },
    };
    let len_bytes = [buf[4], buf[5], buf[6], buf[7]];
    let len = u64::from(match endianness {
        Endianness::Big => u32::from_be_bytes(len_bytes),
        Endianness::Little => u32::from_le_bytes(len_bytes),
    });
    if len < 12 || len % 4 != 0 {
        return Err(corrupt(format!("block length {len} is not a multiple of 4 of at least 12")));
    }
    if len > MAX_RECORD_LEN {
        return Err(corrupt(format!(
            "block length {len} is larger than the limit of {MAX_RECORD_LEN} bytes"
        )));
    }
    read_up_to(input, len as usize - head, &mut buf, at + head as u64)?;
    if (buf.len() as u64) < len {
        return Err(truncated(len, buf.len()));
    }
    Ok(buf)
}

/// Reads one pcapng block at offset `at`. Returns its length and, for a section header, an
/// interface description or a packet block, the item; `None` at the end of the file.
fn read_pcapng_block(
    input: &mut impl Read,
    parser: &mut PcapNgParser,
    at: u64,
) -> Result<Option<(u64, Option<Item>)>, CaptureError> {
    let mut head = Vec::with_capacity(4);
    let n = read_up_to(input, 4, &mut head, at)?;
    if n == 0 {
        return Ok(None);
    }
    let Ok(block_type) = <[u8; 4]>::try_from(&head[..]) else {
        return Err(CaptureError::Truncated { what: "block", offset: at, need: 8, have: n as u64 });
    };
    let endianness = parser.section().endianness;
    let section_endianness = (block_type != PCAPNG_SHB.to_be_bytes()).then_some(endianness);
    let buf = read_block(input, block_type, at, section_endianness)?;
    let corrupt = |reason: String| CaptureError::Corrupt { what: "block", offset: at, reason };
    let (_, block) = parser.next_block(&buf).map_err(|e| corrupt(e.to_string()))?;
    let len = buf.len() as u64;
    let interface = |id: u32| {
        parser.interfaces().get(id as usize).ok_or_else(|| {
            corrupt(format!(
                "packet names interface {id}, but the section describes {}",
                parser.interfaces().len()
            ))
        })
    };
    let record = match block {
        Block::SectionHeader(shb) => {
            return Ok(Some((len, Some(Item::Section(section_item(at, &shb))))));
        }
        Block::InterfaceDescription(idb) => {
            let id = u32::try_from(parser.interfaces().len().saturating_sub(1)).unwrap_or(u32::MAX);
            return Ok(Some((len, Some(Item::Interface(interface_item(at, id, &idb))))));
        }
        Block::EnhancedPacket(p) => {
            let idb = interface(p.interface_id)?;
            let mut flags = None;
            let mut comments = Vec::new();
            for opt in &p.options {
                match opt {
                    EnhancedPacketOption::Flags(f) => flags = Some(*f),
                    EnhancedPacketOption::Comment(c) => comments.push(c.to_string()),
                    _ => {}
                }
            }
            Record {
                index: 0,
                offset: at,
                interface: p.interface_id,
                link_type: u32::from(idb.linktype),
                // pcap-file hands the raw 64-bit timestamp over as nanoseconds.
                timestamp_ns: timestamp_ns(u64::try_from(p.timestamp.as_nanos()).ok(), idb),
                orig_len: p.original_len,
                data: p.data.into_owned(),
                flags,
                comments,
            }
        }
        Block::SimplePacket(p) => {
            let idb = interface(0)?;
            // The block body holds the packet plus padding; the packet is at most
            // `original_len` bytes, and at most the interface's snap length.
            let mut keep = p.data.len().min(p.original_len as usize);
            if idb.snaplen > 0 {
                keep = keep.min(idb.snaplen as usize);
            }
            Record {
                index: 0,
                offset: at,
                interface: 0,
                link_type: u32::from(idb.linktype),
                timestamp_ns: None,
                orig_len: p.original_len,
                data: p.data[..keep].to_vec(),
                flags: None,
                comments: Vec::new(),
            }
        }
        Block::Packet(p) => {
            let idb = interface(u32::from(p.interface_id))?;
            // The obsolete Packet Block stores the timestamp as two 32-bit words, high
            // first, each in the section's byte order; pcap-file reads them as one u64.
            let raw = match endianness {
                Endianness::Big => p.timestamp,
                Endianness::Little => p.timestamp.rotate_left(32),
            };
            let mut flags = None;
            let mut comments = Vec::new();
            for opt in &p.options {
                match opt {
                    PacketOption::Flags(f) => flags = Some(*f),
                    PacketOption::Comment(c) => comments.push(c.to_string()),
                    _ => {}
                }
            }
            Record {
                index: 0,
                offset: at,
                interface: u32::from(p.interface_id),
                link_type: u32::from(idb.linktype),
                timestamp_ns: timestamp_ns(Some(raw), idb),
                orig_len: p.original_len,
                data: p.data.into_owned(),
                flags,
                comments,
            }
        }
        _ => return Ok(Some((len, None))),
    };
    Ok(Some((len, Some(Item::Packet(record)))))
}

/// Converts a raw pcapng timestamp in the units of the interface (`if_tsresol`, default
/// microseconds; `if_tsoffset` seconds added) to nanoseconds. `None` if it does not fit.
fn timestamp_ns(raw: Option<u64>, idb: &InterfaceDescriptionBlock<'_>) -> Option<u64> {
    let raw = u128::from(raw?);
    let mut tsresol = PCAPNG_DEFAULT_TSRESOL;
    let mut offset_s = 0u64;
    for opt in &idb.options {
        match opt {
            InterfaceDescriptionOption::IfTsResol(r) => tsresol = *r,
            InterfaceDescriptionOption::IfTsOffset(s) => offset_s = *s,
            _ => {}
        }
    }
    let exp = u32::from(tsresol & 0x7F);
    let ns = if tsresol & 0x80 != 0 {
        // Units of 2^-exp seconds.
        raw.checked_mul(1_000_000_000)? >> exp
    } else if exp <= 9 {
        raw * 10u128.pow(9 - exp)
    } else {
        raw / 10u128.checked_pow(exp - 9).unwrap_or(u128::MAX)
    };
    let ns = ns.checked_add(u128::from(offset_s) * 1_000_000_000)?;
    u64::try_from(ns).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcap_file::DataLink;

    #[test]
    fn timestamp_units() {
        let idb = |opts: Vec<InterfaceDescriptionOption<'static>>| InterfaceDescriptionBlock {
            linktype: DataLink::ETHERNET,
            snaplen: 0,
            options: opts,
        };
        assert_eq!(timestamp_ns(Some(5), &idb(vec![])), Some(5_000));
        let ns = idb(vec![InterfaceDescriptionOption::IfTsResol(9)]);
        assert_eq!(timestamp_ns(Some(5), &ns), Some(5));
        let ps = idb(vec![InterfaceDescriptionOption::IfTsResol(12)]);
        assert_eq!(timestamp_ns(Some(5_000), &ps), Some(5));
        let pow2 = idb(vec![InterfaceDescriptionOption::IfTsResol(0x80 | 10)]);
        assert_eq!(timestamp_ns(Some(1024), &pow2), Some(1_000_000_000));
        let off = idb(vec![InterfaceDescriptionOption::IfTsOffset(2)]);
        assert_eq!(timestamp_ns(Some(1), &off), Some(2_000_001_000));
        let huge = idb(vec![InterfaceDescriptionOption::IfTsResol(127)]);
        assert_eq!(timestamp_ns(Some(u64::MAX), &huge), Some(0));
    }

    #[test]
    fn short_and_unknown_files() {
        let err = CaptureReader::new(&b""[..]).unwrap_err();
        assert!(matches!(err, CaptureError::TooShort { len: 0 }), "{err}");
        let err = CaptureReader::new(&b"GIF89a"[..]).unwrap_err();
        assert_eq!(err.to_string(), "not a pcap or pcapng file: it starts with 47 49 46 38");
        let err = CaptureReader::new(&[0xD4, 0xC3, 0xB2, 0xA1, 2, 0][..]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the pcap file header is truncated: it needs 24 bytes, the file has 6"
        );
    }
}
