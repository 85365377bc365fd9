//! Reading capture files: pcap (either byte order, microsecond or nanosecond timestamps) and
//! pcapng (any number of sections and interfaces, either byte order).
//!
//! [`CaptureReader`] is an iterator of [`Record`]s, one per packet record of the file, in
//! file order; [`CaptureReader::next_packet`] yields the same records borrowed, without a
//! copy, for readers that go through millions of them. It streams: it holds one block at a
//! time, whatever the size of the file.
//!
//! # Which reader, and why
//!
//! The framing (record headers, block type and lengths, skipping what is not needed) is done
//! here, so that every error names the byte offset of the record or block where the file
//! goes wrong, and so that memory stays bounded: a block this reader does not use (name
//! resolution, statistics, custom or unknown blocks, of any size) is skipped as it is read,
//! never held; a block it uses is held only up to [`MAX_RECORD_LEN`]; a section keeps at
//! most [`MAX_INTERFACES`] interfaces, each as a few numbers.
//!
//! The contents of pcapng blocks are parsed by `pcap-parser`, a nom-based parser that is
//! maintained for exactly this and reads what the pcapng specification allows and `pcap-file`
//! 2 refused: option lists that end at the block end without `opt_endofopt`, and any block
//! type it does not know. Option values are read here with the section's byte order
//! (`pcap-parser` 0.17 reads `if_tsoffset` little-endian in every section), as is the
//! obsolete Packet Block, which `pcap-parser` does not know. The classic pcap header is 24
//! fixed bytes, read here so that the FCS bits of its link-type word are kept. `pcap-file`
//! stays where it writes captures well (the scenario writer).
//!
//! A file error ends the iteration: after yielding one `Err`, the iterator yields `None`.
//! Records are never decoded here; what a record holds is the caller's business (see
//! [`Record::link_type`]). A frame check sequence that the capture declares is removed
//! (`DEC-FCS-001`).
//!
//! [`CaptureReader::next_item`] reads the same file one level lower: besides the packet
//! records it yields the section headers and the interface descriptions, each with its byte
//! offset, for readers that check the structure of a file (the scenario reader of
//! [`crate::file`]).

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::ops::Range;
use std::path::Path;

use pcap_parser::PcapNGOption;

/// LINKTYPE_ETHERNET: records of this link type are Ethernet frames without FCS.
pub const LINKTYPE_ETHERNET: u32 = 1;

/// The largest record or block this reader accepts. Real captures stay far below it; a
/// larger length field means the file is corrupt. Blocks the reader skips may be larger.
pub const MAX_RECORD_LEN: u64 = 16 << 20;

/// The most interfaces one pcapng section may describe: the reader keeps a few numbers for
/// each, and refuses a section with more rather than let memory grow with the file.
pub const MAX_INTERFACES: usize = 1 << 16;

const PCAP_HEADER_LEN: usize = 24;
const PCAP_RECORD_HEADER_LEN: usize = 16;
const PCAPNG_SHB: u32 = 0x0A0D_0D0A;
const PCAPNG_IDB: u32 = 1;
const PCAPNG_PB: u32 = 2;
const PCAPNG_SPB: u32 = 3;
const PCAPNG_EPB: u32 = 6;
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
    /// Link type of that interface ([`LINKTYPE_ETHERNET`] for Ethernet), without the FCS
    /// flag bits of a pcap header.
    pub link_type: u32,
    /// Capture time in nanoseconds since the Unix epoch, when the record has one (pcapng
    /// Simple Packet Blocks have none).
    pub timestamp_ns: Option<u64>,
    /// Length of the packet on the wire, without its FCS; larger than `data.len()` when the
    /// capture cut it.
    pub orig_len: u32,
    /// The captured bytes, without the FCS that the capture declares (`DEC-FCS-001`).
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
    /// Seconds added to every timestamp (pcapng `if_tsoffset`; 0 for pcap).
    pub tsoffset: i64,
    /// Bytes of frame check sequence at the end of each packet, which the reader removes
    /// (`DEC-FCS-001`): from the FCS bits of a pcap header's link-type word, or pcapng's
    /// `if_fcslen`.
    pub fcs_len: u32,
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

/// A packet record borrowed from the reader: valid until the next read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketRef<'a> {
    /// As [`Record::index`].
    pub index: u64,
    /// As [`Record::offset`].
    pub offset: u64,
    /// As [`Record::interface`].
    pub interface: u32,
    /// As [`Record::link_type`].
    pub link_type: u32,
    /// As [`Record::timestamp_ns`].
    pub timestamp_ns: Option<u64>,
    /// As [`Record::orig_len`].
    pub orig_len: u32,
    /// As [`Record::data`].
    pub data: &'a [u8],
    /// As [`Record::flags`].
    pub flags: Option<u32>,
}

/// What the reader keeps of an interface: a few numbers.
#[derive(Debug, Clone, Copy)]
struct IfInfo {
    link_type: u32,
    snaplen: u32,
    tsresol: u8,
    tsoffset: i64,
    fcs_len: u32,
}

#[derive(Debug)]
enum Kind {
    Pcap { big: bool, nanos: bool, interface: IfInfo },
    PcapNg { big: bool, interfaces: Vec<IfInfo> },
}

/// A packet read, its bytes at `data` in the reader's buffer.
struct RawPacket {
    offset: u64,
    interface: u32,
    link_type: u32,
    timestamp_ns: Option<u64>,
    orig_len: u32,
    data: Range<usize>,
    flags: Option<u32>,
    comments: Vec<String>,
}

enum Raw {
    Section(Section),
    Interface(Interface),
    Packet(RawPacket),
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
    /// The block or record being read; reused, so that reading allocates nothing per
    /// packet.
    buf: Vec<u8>,
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
            Kind::Pcap { .. } => Format::Pcap,
            Kind::PcapNg { .. } => Format::PcapNg,
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

/// The buffer size of the reader: large enough that reading a capture is a few system calls
/// per megabyte.
const READ_BUFFER: usize = 256 << 10;

impl<R: Read> CaptureReader<R> {
    /// Reads the file header from `input` and prepares to read records.
    pub fn new(input: R) -> Result<Self, CaptureError> {
        let mut input = BufReader::with_capacity(READ_BUFFER, input);
        let mut head = Vec::with_capacity(PCAP_HEADER_LEN);
        let n = read_up_to(&mut input, 4, &mut head, 0)?;
        let Ok(magic) = <[u8; 4]>::try_from(&head[..]) else {
            return Err(CaptureError::TooShort { len: n as u64 });
        };
        let pcap = |big: bool, nanos: bool| (big, nanos);
        let (kind, header_len, first) = match magic {
            [0xA1, 0xB2, 0xC3, 0xD4]
            | [0xD4, 0xC3, 0xB2, 0xA1]
            | [0xA1, 0xB2, 0x3C, 0x4D]
            | [0x4D, 0x3C, 0xB2, 0xA1] => {
                let (big, nanos) = match magic {
                    [0xA1, 0xB2, 0xC3, 0xD4] => pcap(true, false),
                    [0xD4, 0xC3, 0xB2, 0xA1] => pcap(false, false),
                    [0xA1, 0xB2, 0x3C, 0x4D] => pcap(true, true),
                    _ => pcap(false, true),
                };
                read_up_to(&mut input, PCAP_HEADER_LEN - 4, &mut head, 4)?;
                if head.len() < PCAP_HEADER_LEN {
                    return Err(CaptureError::TruncatedHeader {
                        format: Format::Pcap,
                        need: PCAP_HEADER_LEN as u64,
                        have: head.len() as u64,
                    });
                }
                let word = |i: usize| u32_in(&head[i..i + 4], big);
                let major = (word(4) >> if big { 16 } else { 0 }) & 0xFFFF;
                if major != 2 {
                    return Err(CaptureError::BadHeader {
                        format: Format::Pcap,
                        reason: format!("major version {major} is not 2"),
                    });
                }
                let (snaplen, network) = (word(16), word(20));
                let interface = IfInfo {
                    link_type: network & 0xFFFF,
                    snaplen,
                    tsresol: if nanos { 9 } else { 6 },
                    tsoffset: 0,
                    fcs_len: pcap_fcs_len(network),
                };
                let item = Item::Interface(Interface {
                    offset: 0,
                    id: 0,
                    link_type: interface.link_type,
                    snaplen,
                    name: None,
                    description: None,
                    tsresol: interface.tsresol,
                    tsoffset: 0,
                    fcs_len: interface.fcs_len,
                });
                (Kind::Pcap { big, nanos, interface }, PCAP_HEADER_LEN as u64, item)
            }
            [0x0A, 0x0D, 0x0D, 0x0A] => {
                let mut kind = Kind::PcapNg { big: false, interfaces: Vec::new() };
                let mut buf = Vec::new();
                let raw = read_pcapng_block(&mut input, &mut kind, &mut buf, 0, Some(magic))
                    .map_err(|e| match e {
                        CaptureError::Truncated { need, have, .. } => {
                            CaptureError::TruncatedHeader { format: Format::PcapNg, need, have }
                        }
                        CaptureError::Corrupt { reason, .. } => {
                            CaptureError::BadHeader { format: Format::PcapNg, reason }
                        }
                        e => e,
                    })?;
                let Some((len, Some(Raw::Section(section)))) = raw else {
                    return Err(CaptureError::BadHeader {
                        format: Format::PcapNg,
                        reason: "the file does not start with a section header".into(),
                    });
                };
                (kind, len, Item::Section(section))
            }
            _ => return Err(CaptureError::UnknownFormat { magic }),
        };
        Ok(CaptureReader {
            input,
            kind,
            offset: header_len,
            next_index: 1,
            pending: Some(first),
            buf: Vec::new(),
            done: false,
        })
    }

    /// Reads the next item of the file: a section header, an interface description or a
    /// packet record, in file order, skipping other blocks. The first item is the section
    /// of a pcapng file, or the interface of a pcap file. Like the iterator, it yields
    /// `None` after the end of the file or after an error.
    pub fn next_item(&mut self) -> Option<Result<Item, CaptureError>> {
        if let Some(item) = self.pending.take() {
            return Some(Ok(item));
        }
        Some(match self.read_raw()? {
            Ok((index, Raw::Packet(p))) => Ok(Item::Packet(self.record(index, p))),
            Ok((_, Raw::Section(s))) => Ok(Item::Section(s)),
            Ok((_, Raw::Interface(i))) => Ok(Item::Interface(i)),
            Err(e) => Err(e),
        })
    }

    /// Reads the next packet record, borrowed from the reader (no copy, no allocation),
    /// skipping every other item. Yields `None` after the end of the file or after an
    /// error, like the iterator.
    pub fn next_packet(&mut self) -> Option<Result<PacketRef<'_>, CaptureError>> {
        self.pending = None;
        loop {
            match self.read_raw()? {
                Ok((index, Raw::Packet(p))) => {
                    return Some(Ok(PacketRef {
                        index,
                        offset: p.offset,
                        interface: p.interface,
                        link_type: p.link_type,
                        timestamp_ns: p.timestamp_ns,
                        orig_len: p.orig_len,
                        data: &self.buf[p.data],
                        flags: p.flags,
                    }));
                }
                Ok(_) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }

    fn record(&self, index: u64, p: RawPacket) -> Record {
        Record {
            index,
            offset: p.offset,
            interface: p.interface,
            link_type: p.link_type,
            timestamp_ns: p.timestamp_ns,
            orig_len: p.orig_len,
            data: self.buf[p.data].to_vec(),
            flags: p.flags,
            comments: p.comments,
        }
    }

    /// Reads the next section, interface or packet (with its index), skipping other blocks;
    /// `None` at the end or after an error.
    fn read_raw(&mut self) -> Option<Result<(u64, Raw), CaptureError>> {
        if self.done {
            return None;
        }
        loop {
            let at = self.offset;
            let found = match &mut self.kind {
                Kind::Pcap { big, nanos, interface } => {
                    read_pcap_record(&mut self.input, *big, *nanos, interface, &mut self.buf, at)
                }
                Kind::PcapNg { .. } => {
                    read_pcapng_block(&mut self.input, &mut self.kind, &mut self.buf, at, None)
                }
            };
            match found {
                Ok(Some((len, item))) => {
                    self.offset += len;
                    match item {
                        Some(Raw::Packet(p)) => {
                            let index = self.next_index;
                            self.next_index += 1;
                            return Some(Ok((index, Raw::Packet(p))));
                        }
                        Some(other) => return Some(Ok((0, other))),
                        None => {}
                    }
                }
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
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

/// The bytes of FCS that a pcap header's link-type word declares (`DEC-FCS-001`): bit 28
/// set with the length in 16-bit words in bits 29-31 (the pcap specification), or bit 26
/// set with the length in bits 28-31 (as libpcap writes it).
pub fn pcap_fcs_len(network: u32) -> u32 {
    if network & 0x0400_0000 != 0 {
        (network >> 28) * 2
    } else if network & 0x1000_0000 != 0 {
        (network >> 29) * 2
    } else {
        0
    }
}

fn u32_in(b: &[u8], big: bool) -> u32 {
    let a = [b[0], b[1], b[2], b[3]];
    if big { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) }
}

fn u16_in(b: &[u8], big: bool) -> u16 {
    if big { u16::from_be_bytes([b[0], b[1]]) } else { u16::from_le_bytes([b[0], b[1]]) }
}

/// Appends up to `n` bytes of `input` to `buf`; returns how many were read (fewer only at the
/// end of the input). `at` is the file offset of the read, for the error.
fn read_up_to(
    input: &mut impl Read,
    n: usize,
    buf: &mut Vec<u8>,
    at: u64,
) -> Result<usize, CaptureError> {
    let start = buf.len();
    buf.resize(start + n, 0);
    let mut got = 0;
    while got < n {
        match input.read(&mut buf[start + got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(source) => {
                buf.truncate(start + got);
                return Err(CaptureError::Io { offset: at, source });
            }
        }
    }
    buf.truncate(start + got);
    Ok(got)
}

/// Removes `fcs` bytes of frame check sequence from a packet of `orig_len` bytes on the
/// wire, of which `data` were captured.
fn strip_fcs(data: Range<usize>, orig_len: u32, fcs: u32) -> (Range<usize>, u32) {
    if fcs == 0 {
        return (data, orig_len);
    }
    let orig = orig_len.saturating_sub(fcs);
    let keep = (data.end - data.start).min(orig as usize);
    (data.start..data.start + keep, orig)
}

/// Reads one pcap record at offset `at` into `buf`. Returns its length in bytes and the
/// record, or `None` at the end of the file.
fn read_pcap_record(
    input: &mut impl Read,
    big: bool,
    nanos: bool,
    interface: &IfInfo,
    buf: &mut Vec<u8>,
    at: u64,
) -> Result<Option<(u64, Option<Raw>)>, CaptureError> {
    buf.clear();
    let n = read_up_to(input, PCAP_RECORD_HEADER_LEN, buf, at)?;
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
    let word = |i: usize| u32_in(&buf[i..i + 4], big);
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
    let got = read_up_to(input, incl_len as usize, buf, at + 16)?;
    if got < incl_len as usize {
        return Err(truncated(PCAP_RECORD_HEADER_LEN + incl_len as usize, n + got));
    }
    let frac_ns = if nanos { u64::from(ts_frac) } else { u64::from(ts_frac) * 1_000 };
    let data = PCAP_RECORD_HEADER_LEN..PCAP_RECORD_HEADER_LEN + got;
    let (data, orig_len) = strip_fcs(data, orig_len, interface.fcs_len);
    let packet = RawPacket {
        offset: at,
        interface: 0,
        link_type: interface.link_type,
        timestamp_ns: Some(u64::from(ts_sec) * 1_000_000_000 + frac_ns),
        orig_len,
        data,
        flags: None,
        comments: Vec::new(),
    };
    Ok(Some(((PCAP_RECORD_HEADER_LEN + got) as u64, Some(Raw::Packet(packet)))))
}

/// Skips `n` bytes of `input`; returns how many were skipped (fewer only at the end).
fn skip(input: &mut impl Read, n: u64, at: u64) -> Result<u64, CaptureError> {
    io::copy(&mut input.take(n), &mut io::sink())
        .map_err(|source| CaptureError::Io { offset: at, source })
}

/// Reads one pcapng block at offset `at`. Returns its length and, for a section header, an
/// interface description or a packet block, the item; `None` at the end of the file.
/// `first` is the block type when the caller has read it already (the file header).
fn read_pcapng_block(
    input: &mut impl Read,
    kind: &mut Kind,
    buf: &mut Vec<u8>,
    at: u64,
    first: Option<[u8; 4]>,
) -> Result<Option<(u64, Option<Raw>)>, CaptureError> {
    let Kind::PcapNg { big, interfaces } = kind else {
        return Ok(None);
    };
    buf.clear();
    if let Some(t) = first {
        buf.extend_from_slice(&t);
    }
    let n = buf.len() + read_up_to(input, 8 - buf.len(), buf, at)?;
    if n == 0 {
        return Ok(None);
    }
    let truncated =
        |need: u64, have: u64| CaptureError::Truncated { what: "block", offset: at, need, have };
    let corrupt = |reason: String| CaptureError::Corrupt { what: "block", offset: at, reason };
    if n < 8 {
        return Err(truncated(8, n as u64));
    }
    let is_shb = buf[..4] == PCAPNG_SHB.to_be_bytes();
    if is_shb {
        // The byte order comes from the section's own byte-order magic.
        read_up_to(input, 4, buf, at + 8)?;
        if buf.len() < 12 {
            return Err(truncated(12, buf.len() as u64));
        }
        *big = match u32::from_be_bytes([buf[8], buf[9], buf[10], buf[11]]) {
            PCAPNG_BYTE_ORDER_MAGIC => true,
            m if m.swap_bytes() == PCAPNG_BYTE_ORDER_MAGIC => false,
            m => return Err(corrupt(format!("byte-order magic is {m:#010x}"))),
        };
    }
    let big = *big;
    let block_type = u32_in(&buf[..4], big);
    let len = u64::from(u32_in(&buf[4..8], big));
    if len < 12 || len % 4 != 0 {
        return Err(corrupt(format!("block length {len} is not a multiple of 4 of at least 12")));
    }
    let head = buf.len() as u64;
    let used = is_shb || matches!(block_type, PCAPNG_IDB | PCAPNG_PB | PCAPNG_SPB | PCAPNG_EPB);
    if !used {
        // Skipped as it is read, whatever its size: only its trailing length is checked.
        let body = len.saturating_sub(head + 4);
        let skipped = skip(input, body, at + head)?;
        let mut tail = Vec::with_capacity(4);
        read_up_to(input, 4, &mut tail, at + head + body)?;
        if skipped < body || tail.len() < 4 {
            return Err(truncated(len, head + skipped + tail.len() as u64));
        }
        let trailing = u64::from(u32_in(&tail, big));
        if trailing != len {
            return Err(corrupt(format!(
                "the block's trailing length {trailing} differs from its length {len}"
            )));
        }
        return Ok(Some((len, None)));
    }
    if len > MAX_RECORD_LEN {
        return Err(corrupt(format!(
            "block length {len} is larger than the limit of {MAX_RECORD_LEN} bytes"
        )));
    }
    read_up_to(input, (len - head) as usize, buf, at + head)?;
    if (buf.len() as u64) < len {
        return Err(truncated(len, buf.len() as u64));
    }
    let trailing = u64::from(u32_in(&buf[buf.len() - 4..], big));
    if trailing != len {
        return Err(corrupt(format!(
            "the block's trailing length {trailing} differs from its length {len}"
        )));
    }
    let bad = |what: &str, e: &dyn fmt::Debug| corrupt(format!("{what} does not parse: {e:?}"));
    let item = if is_shb {
        let (_, shb) = pcap_parser::parse_sectionheaderblock(buf)
            .map_err(|e| bad("the section header", &e))?;
        if shb.major_version != 1 {
            return Err(corrupt(format!("major version {} is not 1", shb.major_version)));
        }
        interfaces.clear();
        let mut section = Section {
            offset: at,
            user_application: None,
            comments: Vec::new(),
            length: u64::try_from(shb.section_len).ok(),
        };
        for opt in &shb.options {
            match opt.code.0 {
                1 => section.comments.push(text(opt)),
                4 => section.user_application = Some(text(opt)),
                _ => {}
            }
        }
        Raw::Section(section)
    } else if block_type == PCAPNG_IDB {
        let parsed = if big {
            pcap_parser::parse_interfacedescriptionblock_be(buf)
        } else {
            pcap_parser::parse_interfacedescriptionblock_le(buf)
        };
        let (_, idb) = parsed.map_err(|e| bad("the interface description", &e))?;
        if interfaces.len() >= MAX_INTERFACES {
            return Err(corrupt(format!(
                "the section describes more than {MAX_INTERFACES} interfaces"
            )));
        }
        let mut i = Interface {
            offset: at,
            id: interfaces.len() as u32,
            link_type: u32::from(idb.linktype.0 as u16),
            snaplen: idb.snaplen,
            name: None,
            description: None,
            tsresol: PCAPNG_DEFAULT_TSRESOL,
            tsoffset: 0,
            fcs_len: 0,
        };
        for opt in &idb.options {
            let v = opt.as_bytes().unwrap_or(&[]);
            match (opt.code.0, v.len()) {
                (2, _) => i.name = Some(text(opt)),
                (3, _) => i.description = Some(text(opt)),
                (9, 1..) => i.tsresol = v[0],
                (13, 1..) => i.fcs_len = u32::from(v[0]),
                (14, 8..) => {
                    let w = [v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]];
                    i.tsoffset = if big { i64::from_be_bytes(w) } else { i64::from_le_bytes(w) };
                }
                _ => {}
            }
        }
        interfaces.push(IfInfo {
            link_type: i.link_type,
            snaplen: i.snaplen,
            tsresol: i.tsresol,
            tsoffset: i.tsoffset,
            fcs_len: i.fcs_len,
        });
        Raw::Interface(i)
    } else {
        Raw::Packet(packet_block(buf, block_type, big, interfaces, at)?)
    };
    Ok(Some((len, Some(item))))
}

/// An option's value as text (lossy: a capture's comment is shown even if it is not UTF-8).
fn text(opt: &PcapNGOption<'_>) -> String {
    String::from_utf8_lossy(opt.as_bytes().unwrap_or(&[])).into_owned()
}

/// Reads a packet block (EPB, SPB or the obsolete PB) held whole in `buf`.
fn packet_block(
    buf: &[u8],
    block_type: u32,
    big: bool,
    interfaces: &[IfInfo],
    at: u64,
) -> Result<RawPacket, CaptureError> {
    let corrupt = |reason: String| CaptureError::Corrupt { what: "block", offset: at, reason };
    let interface = |id: u32| {
        interfaces.get(id as usize).copied().ok_or_else(|| {
            corrupt(format!(
                "packet names interface {id}, but the section describes {}",
                interfaces.len()
            ))
        })
    };
    let len = buf.len();
    // The fixed part of each block, and where its packet data starts.
    let (id, ts, caplen, orig_len, data_at) = match block_type {
        PCAPNG_SPB => {
            if len < 16 {
                return Err(corrupt(format!("a simple packet block of {len} bytes")));
            }
            let orig = u32_in(&buf[8..12], big);
            let info = interface(0)?;
            // The block body holds the packet plus padding; the packet is at most
            // `original_len` bytes, and at most the interface's snap length.
            let mut keep = (len - 16).min(orig as usize);
            if info.snaplen > 0 {
                keep = keep.min(info.snaplen as usize);
            }
            (0, None, keep as u32, orig, 12)
        }
        PCAPNG_EPB | PCAPNG_PB => {
            if len < 32 {
                return Err(corrupt(format!("a packet block of {len} bytes")));
            }
            let id = if block_type == PCAPNG_EPB {
                u32_in(&buf[8..12], big)
            } else {
                u32::from(u16_in(&buf[8..10], big))
            };
            let ts =
                (u64::from(u32_in(&buf[12..16], big)) << 32) | u64::from(u32_in(&buf[16..20], big));
            (id, Some(ts), u32_in(&buf[20..24], big), u32_in(&buf[24..28], big), 28)
        }
        _ => return Err(corrupt(format!("block type {block_type:#x} is not a packet block"))),
    };
    let info = interface(id)?;
    let padded = (caplen as usize).div_ceil(4) * 4;
    if data_at + padded + 4 > len {
        return Err(corrupt(format!(
            "captured length {caplen} does not fit in a block of {len} bytes"
        )));
    }
    // Options: from the padded data to the trailing length, with or without opt_endofopt.
    let mut flags = None;
    let mut comments = Vec::new();
    if block_type != PCAPNG_SPB {
        let mut rest = &buf[data_at + padded..len - 4];
        while rest.len() >= 4 {
            let parsed = if big {
                pcap_parser::parse_option_be::<nom::error::Error<&[u8]>>(rest)
            } else {
                pcap_parser::parse_option_le::<nom::error::Error<&[u8]>>(rest)
            };
            let Ok((next, opt)) = parsed else {
                return Err(corrupt("an option runs past the end of the block".into()));
            };
            let v = opt.as_bytes().unwrap_or(&[]);
            match (opt.code.0, v.len()) {
                (0, _) => break,
                (1, _) => comments.push(text(&opt)),
                (2, 4..) => flags = Some(u32_in(v, big)),
                _ => {}
            }
            rest = next;
        }
    }
    // The FCS: the packet's own flags (bits 5-8, in bytes) or the interface's if_fcslen.
    let fcs = match flags.map(|f| (f >> 5) & 0xF) {
        Some(n) if n > 0 => n,
        _ => info.fcs_len,
    };
    let (data, orig_len) = strip_fcs(data_at..data_at + caplen as usize, orig_len, fcs);
    Ok(RawPacket {
        offset: at,
        interface: id,
        link_type: info.link_type,
        timestamp_ns: ts.and_then(|raw| timestamp_ns(raw, info.tsresol, info.tsoffset)),
        orig_len,
        data,
        flags,
        comments,
    })
}

/// Converts a raw pcapng timestamp in the units of the interface (`if_tsresol`, default
/// microseconds) plus `if_tsoffset` seconds to nanoseconds. `None` if it does not fit.
fn timestamp_ns(raw: u64, tsresol: u8, offset_s: i64) -> Option<u64> {
    let raw = u128::from(raw);
    let exp = u32::from(tsresol & 0x7F);
    let ns = if tsresol & 0x80 != 0 {
        // Units of 2^-exp seconds.
        raw.checked_mul(1_000_000_000)? >> exp
    } else if exp <= 9 {
        raw * 10u128.pow(9 - exp)
    } else {
        raw / 10u128.checked_pow(exp - 9).unwrap_or(u128::MAX)
    };
    let ns = i128::try_from(ns).ok()?.checked_add(i128::from(offset_s) * 1_000_000_000)?;
    u64::try_from(ns).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_units() {
        assert_eq!(timestamp_ns(5, 6, 0), Some(5_000));
        assert_eq!(timestamp_ns(5, 9, 0), Some(5));
        assert_eq!(timestamp_ns(5_000, 12, 0), Some(5));
        assert_eq!(timestamp_ns(1024, 0x80 | 10, 0), Some(1_000_000_000));
        assert_eq!(timestamp_ns(1, 6, 2), Some(2_000_001_000));
        assert_eq!(timestamp_ns(3_000_000, 6, -1), Some(2_000_000_000));
        assert_eq!(timestamp_ns(1, 6, -1), None);
        assert_eq!(timestamp_ns(u64::MAX, 127, 0), Some(0));
    }

    #[test]
    fn fcs_bits_of_the_link_type_word() {
        assert_eq!(pcap_fcs_len(1), 0);
        // The pcap specification: F (bit 28) and the length in words in bits 29-31.
        assert_eq!(pcap_fcs_len(0x5000_0001), 4);
        // libpcap: bit 26 and the length in words in bits 28-31.
        assert_eq!(pcap_fcs_len(0x2400_0001), 4);
        assert_eq!(strip_fcs(0..64, 64, 4), (0..60, 60));
        assert_eq!(strip_fcs(0..40, 64, 4), (0..40, 60));
        assert_eq!(strip_fcs(0..62, 64, 4), (0..60, 60));
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
