//! Scenarios on disk: a pcapng file of records beside a TOML manifest, and observed captures.
//!
//! A scenario `X` is two files side by side: `X.toml`, its [`Manifest`], and `X.pcapng`, its
//! records. The pcapng file opens in Wireshark and `tshark` like any capture; every record of
//! the scenario is one packet of it.
//!
//! # The manifest
//!
//! TOML, deserialized into [`Manifest`]; unknown keys are errors. [`manifest_to_toml`] writes
//! one. Errors name the file, the line and the column (1-based, columns in characters).
//! A manifest that parses is then checked: every value by [`Manifest::validate`]
//! (`CONF-FMT-008`), and every requirement it names against the specification built into
//! this crate (`CONF-FMT-009`), the error naming the key as its TOML path (`nic.pmtu`) and
//! the line and column of the value.
//!
//! # The pcapng layout
//!
//! All blocks are little-endian, in one section:
//!
//! 1. A Section Header Block. `shb_userappl` is `openrdma <version>`, `shb_comment` is the
//!    scenario's name. Its section length is the byte count of the blocks that follow, so a
//!    file cut at a block boundary is detected; a reader accepts -1 (unknown) as well.
//! 2. `ports + 1` Interface Description Blocks, all with `if_tsresol` = 9 (nanoseconds) and
//!    snap length 0 (no limit):
//!    * interfaces `0 .. ports` are the device's ports: link type `LINKTYPE_ETHERNET` (1),
//!      `if_name` `port0`, `port1`, ...;
//!    * interface `ports` carries host events: link type `LINKTYPE_USER0` (147), `if_name`
//!      `host`, `if_description` `OpenRDMA host events v1`.
//! 3. One Enhanced Packet Block per record, in record order, with timestamp = the record's
//!    time in nanoseconds since the start of the scenario (Wireshark shows it as 1970), and:
//!    * `epb_flags` (option 2), bits 0-1 = the direction: `01` inbound for an inject record
//!      (into the device), `10` outbound for an expect record (from the device); other bits 0;
//!    * `opt_comment` (option 1) = `inject` or `expect`, followed by ` checks: ID, ID` when
//!      the record names the requirements it checks (e.g. `expect checks: RCV-ACK-001,
//!      RCV-DUP-001`). IDs are non-empty and hold no comma and no white space.
//!
//!    A frame record is on its port's interface; its packet data is the Ethernet frame
//!    without FCS. Host commands, CPU commands and events are on the host interface; their
//!    packet data is a host record:
//!
//!    | bytes | field |
//!    |---|---|
//!    | 0-3 | magic `ORDM` |
//!    | 4 | version: 1 |
//!    | 5 | kind: 1 host command, 2 CPU command, 3 event |
//!    | 6-7 | reserved: 0 |
//!    | 8- | the body: UTF-8 JSON of the `HostCommand`, `CpuCommand` or `NicEvent` |
//!
//!    Captured length = original length (no record is cut).
//!
//! # Reading
//!
//! [`read_scenario`] (and [`load`], [`read_scenario_bytes`]) reads the manifest first, then
//! the pcapng file, and checks: one section; a port interface has link type Ethernet and the
//! host interface link type USER0; every packet is on a port or the host interface; times
//! never go backwards; the direction comes from `epb_flags` (bits `01` or `10`), or from the
//! comment when the flags are absent or say "unknown" (`00`), and the two agree when both are
//! present; comments that do not start with `inject` or `expect` are ignored (Wireshark users
//! may add notes); host commands and CPU commands are injected, events are expected, frames
//! either; a section comment is the manifest's name, which binds the two files
//! (`CONF-FMT-010`); no record is later than 2^62 ns; every ID a record checks is the
//! specification's. [`load_dir`] reads a directory and refuses two scenarios of one name
//! (`CONF-FMT-011`). Other blocks (statistics, name resolution) are skipped. The writer rejects what
//! the reader rejects, so every scenario it writes reads back equal.
//!
//! # Observed captures
//!
//! [`read_observed`] reads what a device did, from a pcap or pcapng file of any origin: every
//! Ethernet frame is an [`Output::Frame`] on port = its interface ID (0 in a pcap file), and
//! every host record of kind 3 on a USER0 interface is an [`Output::Event`]. Packets marked
//! inbound (flags `01`, or the comment `inject`) and host records of kinds 1 and 2 are inputs
//! and are skipped, so a scenario file reads as the outputs it expects. USER0 packets that
//! are not host records (no `ORDM` magic) are skipped; other link types are errors. Times are
//! taken as they are in the file (nanoseconds since the Unix epoch for most capture tools),
//! and the outputs are sorted by time, stably. [`read_observed_within`] keeps only what a
//! judge needs (`CONF-CMP-044`): the outputs up to a scenario's end, at most a cap of them,
//! counting the others, so that its memory is bounded by the scenario, not the capture.

use std::borrow::Cow;
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use openrdma_device::validate::MAX_SPAN_NS;
use openrdma_device::{
    Body, CpuCommand, Direction, HostCommand, Manifest, ManifestError, NicEvent, Output, Record,
    Scenario, TimedOutput, Timestamp, requirement_of,
};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};
use pcap_file::{DataLink, Endianness, PcapError};

use crate::capture::{
    CaptureError, CaptureReader, Format, Item, LINKTYPE_ETHERNET, MAX_RECORD_LEN,
};
use crate::requirements::Spec;

/// `LINKTYPE_USER0`: the link type of the host-events interface.
pub const LINKTYPE_USER0: u32 = 147;

/// The first four bytes of a host record.
pub const HOST_MAGIC: [u8; 4] = *b"ORDM";

/// The version of the host record encoding.
pub const HOST_VERSION: u8 = 1;

/// Length of a host record's header (magic, version, kind, reserved).
pub const HOST_HEADER_LEN: usize = 8;

/// `if_name` of the host-events interface.
pub const HOST_INTERFACE_NAME: &str = "host";

/// `if_description` of the host-events interface.
pub const HOST_INTERFACE_DESCRIPTION: &str = "OpenRDMA host events v1";

/// `epb_flags` bits 0-1: the direction of a packet.
pub const EPB_DIRECTION_MASK: u32 = 0b11;

/// `epb_flags` direction `01`: inbound, an inject record.
pub const EPB_INBOUND: u32 = 0b01;

/// `epb_flags` direction `10`: outbound, an expect record.
pub const EPB_OUTBOUND: u32 = 0b10;

/// `if_tsresol` of every interface: nanoseconds.
const TSRESOL_NS: u8 = 9;

/// Largest option value pcapng can hold (16-bit length).
const MAX_OPTION_LEN: usize = u16::MAX as usize;

/// The kind byte of a host record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostKind {
    /// 1: a `HostCommand`.
    Host,
    /// 2: a `CpuCommand`.
    Cpu,
    /// 3: a `NicEvent`.
    Event,
}

impl HostKind {
    /// The kind byte.
    pub fn code(self) -> u8 {
        match self {
            HostKind::Host => 1,
            HostKind::Cpu => 2,
            HostKind::Event => 3,
        }
    }

    /// The kind of a kind byte.
    pub fn from_code(code: u8) -> Option<HostKind> {
        match code {
            1 => Some(HostKind::Host),
            2 => Some(HostKind::Cpu),
            3 => Some(HostKind::Event),
            _ => None,
        }
    }

    fn of(body: &Body) -> Option<HostKind> {
        match body {
            Body::Frame { .. } => None,
            Body::Host { .. } => Some(HostKind::Host),
            Body::Cpu { .. } => Some(HostKind::Cpu),
            Body::Event { .. } => Some(HostKind::Event),
        }
    }
}

impl fmt::Display for HostKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HostKind::Host => "host command",
            HostKind::Cpu => "CPU command",
            HostKind::Event => "event",
        })
    }
}

/// What is wrong with the header of a host record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostRecordError {
    /// Shorter than the 8-byte header.
    #[error("it is {len} bytes long, shorter than its 8-byte header")]
    Short {
        /// Its length.
        len: usize,
    },
    /// The magic is not `ORDM`.
    #[error("its magic is {}, not \"ORDM\"", hex(.found))]
    Magic {
        /// The first four bytes.
        found: [u8; 4],
    },
    /// An unknown version.
    #[error("its version is {found}; this reader knows version 1")]
    Version {
        /// The version byte.
        found: u8,
    },
    /// An unknown kind.
    #[error("its kind is {found}; known kinds are 1 (host command), 2 (CPU command), 3 (event)")]
    Kind {
        /// The kind byte.
        found: u8,
    },
    /// The reserved bytes are not 0.
    #[error("its reserved bytes are {found:#06x}, not 0")]
    Reserved {
        /// The reserved field (big-endian).
        found: u16,
    },
}

/// Where the direction of a record cannot be told.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DirectionError {
    /// Neither the flags nor a comment say.
    #[error(
        "the packet has no direction: neither epb_flags bits 0-1 (01 inject, 10 expect) nor a \
         comment starting with \"inject\" or \"expect\""
    )]
    Missing,
    /// The flags say `11`.
    #[error("epb_flags {flags:#010x} has direction bits 11, which pcapng leaves undefined")]
    BadFlags {
        /// The flags word.
        flags: u32,
    },
    /// The flags and the comment disagree.
    #[error("epb_flags say {flags:?} but the comment says {comment:?}")]
    Disagree {
        /// What the flags say.
        flags: Direction,
        /// What the comment says.
        comment: Direction,
    },
    /// A comment starts with `inject` or `expect` but does not follow the grammar.
    #[error(
        "the comment {comment:?} is not `inject` or `expect`, optionally followed by \
         ` checks: ID, ID, ...`"
    )]
    BadComment {
        /// The comment.
        comment: String,
    },
    /// Two comments give a direction.
    #[error("two comments give a direction: {first:?} and {second:?}")]
    TwoComments {
        /// The first.
        first: String,
        /// The second.
        second: String,
    },
}

/// Why a scenario or a capture cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// A file cannot be opened, read or written.
    #[error("{}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// Writing a scenario to its output failed.
    #[error("cannot write the scenario: {0}")]
    Output(#[source] io::Error),
    /// The capture container is broken: too short, a truncated or corrupt block, a bad block
    /// length. The capture error names the byte offset.
    #[error("{}: {source}", file.display())]
    Capture {
        /// The file.
        file: PathBuf,
        /// What is wrong, and where.
        source: CaptureError,
    },
    /// A scenario's records must be in a pcapng file.
    #[error("{}: a scenario is a pcapng file; this is a {format} file", file.display())]
    NotPcapNg {
        /// The file.
        file: PathBuf,
        /// Its format.
        format: Format,
    },
    /// The section header declares a length that the blocks after it do not have: the file
    /// was cut (or grown) at a block boundary.
    #[error(
        "{}: byte {offset}: the section header declares {declared} bytes of blocks after it, \
         but the file has {actual}: the file is truncated or was changed",
        file.display()
    )]
    SectionLength {
        /// The file.
        file: PathBuf,
        /// Where the section ends in the file.
        offset: u64,
        /// The length the Section Header Block declares.
        declared: u64,
        /// The length present.
        actual: u64,
    },
    /// A scenario has a single section.
    #[error("{}: byte {offset}: a second section starts here; a scenario has one", file.display())]
    ExtraSection {
        /// The file.
        file: PathBuf,
        /// Offset of the second Section Header Block.
        offset: u64,
    },
    /// An interface has the wrong link type for its role.
    #[error(
        "{}: byte {offset}: interface {interface} ({role}) must have link type {expected}, \
         it has {link_type}",
        file.display()
    )]
    LinkType {
        /// The file.
        file: PathBuf,
        /// Offset of the Interface Description Block (or of the packet, in an observed
        /// capture).
        offset: u64,
        /// The interface ID.
        interface: u32,
        /// `"a port"` or `"the host interface"`.
        role: &'static str,
        /// The link type it must have.
        expected: u32,
        /// The link type it has.
        link_type: u32,
    },
    /// A packet is on an interface that is neither a port nor the host interface.
    #[error(
        "{}: byte {offset}: the packet is on interface {interface}, but the manifest declares \
         {ports} port(s): interfaces 0 to {ports} minus 1 are ports, interface {ports} is the \
         host interface",
        file.display()
    )]
    Interface {
        /// The file.
        file: PathBuf,
        /// Offset of the packet.
        offset: u64,
        /// Its interface.
        interface: u32,
        /// The manifest's port count.
        ports: u16,
    },
    /// A packet without a timestamp (a Simple Packet Block) or with one that does not fit.
    #[error("{}: byte {offset}: the packet has no usable timestamp", file.display())]
    NoTimestamp {
        /// The file.
        file: PathBuf,
        /// Offset of the packet.
        offset: u64,
    },
    /// Records must be in time order.
    #[error(
        "{}: byte {offset}: time goes backwards: this record is at {at} ns, the one before it \
         at {previous} ns",
        file.display()
    )]
    TimeBackwards {
        /// The file.
        file: PathBuf,
        /// Offset of the packet.
        offset: u64,
        /// Its time (ns).
        at: u64,
        /// The time of the record before it (ns).
        previous: u64,
    },
    /// A packet was cut by the capture (or claims to be longer than it is).
    #[error(
        "{}: byte {offset}: the packet holds {captured} of its {original} bytes",
        file.display()
    )]
    Snapped {
        /// The file.
        file: PathBuf,
        /// Offset of the packet.
        offset: u64,
        /// Bytes captured.
        captured: usize,
        /// Original length.
        original: u32,
    },
    /// The direction of a record cannot be told.
    #[error("{}: byte {offset}: {reason}", file.display())]
    Direction {
        /// The file.
        file: PathBuf,
        /// Offset of the packet.
        offset: u64,
        /// What is wrong.
        reason: DirectionError,
    },
    /// A host command or CPU command that is expected, or an event that is injected.
    #[error(
        "{}: byte {offset}: the record is a {kind} marked {}: host and CPU commands are \
         injected, events are expected",
        file.display(),
        dir_word(*.dir)
    )]
    BodyDirection {
        /// The file.
        file: PathBuf,
        /// Offset of the packet.
        offset: u64,
        /// What the record holds.
        kind: HostKind,
        /// Its direction.
        dir: Direction,
    },
    /// A host record with a bad header.
    #[error("{}: byte {offset}: bad host record: {reason}", file.display())]
    HostRecord {
        /// The file.
        file: PathBuf,
        /// Offset of the packet.
        offset: u64,
        /// What is wrong.
        reason: HostRecordError,
    },
    /// The JSON body of a host record does not parse.
    #[error(
        "{}: byte {offset}: the {kind} JSON does not parse, at line {line} column {column} of \
         the record's body: {message}",
        file.display()
    )]
    Json {
        /// The file.
        file: PathBuf,
        /// Offset of the packet.
        offset: u64,
        /// What the record holds.
        kind: HostKind,
        /// Line in the JSON body (1-based).
        line: usize,
        /// Column in the JSON body (1-based).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The manifest does not parse or does not fit [`Manifest`].
    #[error("{}:{line}:{column}: {message}", file.display())]
    Toml {
        /// The file.
        file: PathBuf,
        /// Line (1-based; 0 when the error has no position).
        line: usize,
        /// Column in characters (1-based; 0 when the error has no position).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A value of the manifest that the specification or a device refuses
    /// (`CONF-FMT-008`), or a requirement it names that the specification does not define
    /// (`CONF-FMT-009`).
    #[error("{}:{line}:{column}: {error}", file.display())]
    Manifest {
        /// The file.
        file: PathBuf,
        /// Line of the value (1-based; 0 when the key is not written in the file, as when
        /// a default conflicts with a value given).
        line: usize,
        /// Column in characters (1-based; 0 with line 0).
        column: usize,
        /// The key, its value and why it is refused.
        error: ManifestError,
    },
    /// A record names a requirement that the specification does not define
    /// (`CONF-FMT-009`).
    #[error(
        "{}: byte {offset}: the record checks {id}, which the specification does not define",
        file.display()
    )]
    UnknownCheck {
        /// The file.
        file: PathBuf,
        /// Offset of the packet.
        offset: u64,
        /// The ID.
        id: String,
    },
    /// A record's time beyond what a scenario may hold (`CONF-FMT-008`).
    #[error(
        "{}: byte {offset}: the record is at {at} ns, beyond 2^62 ns, the latest time a \
         scenario may hold",
        file.display()
    )]
    TooLate {
        /// The file.
        file: PathBuf,
        /// Offset of the packet.
        offset: u64,
        /// Its time (ns).
        at: u64,
    },
    /// The pcapng file is another scenario's, or names none (`CONF-FMT-010`): no comment of
    /// its section header is the manifest's name.
    #[error(
        "{}: the capture is {}, but the manifest beside it is scenario {manifest:?}: a \
         manifest and its records must be of one scenario",
        file.display(),
        match .capture {
            Some(c) => format!("scenario {c:?}"),
            None => "of no scenario (its section header has no comment)".to_string(),
        }
    )]
    Mismatch {
        /// The pcapng file.
        file: PathBuf,
        /// The scenario the capture names (its first section comment), if any.
        capture: Option<String>,
        /// The manifest's name.
        manifest: String,
    },
    /// Two scenarios of one directory have the same name (`CONF-FMT-011`).
    #[error(
        "{}: scenario {name:?} is also the name of {}: names in a directory are unique",
        file.display(),
        first.display()
    )]
    DuplicateName {
        /// The second manifest with the name.
        file: PathBuf,
        /// The first.
        first: PathBuf,
        /// The name.
        name: String,
    },
    /// A scenario that cannot be written: the writer rejects what the reader would reject.
    #[error("record {record}: {reason}")]
    Invalid {
        /// Index of the record in [`Scenario::records`].
        record: usize,
        /// What is wrong.
        reason: String,
    },
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------

/// The `shb_userappl` of scenarios this crate writes.
pub fn user_application() -> String {
    format!("openrdma {}", env!("CARGO_PKG_VERSION"))
}

fn dir_word(dir: Direction) -> &'static str {
    match dir {
        Direction::Inject => "inject",
        Direction::Expect => "expect",
    }
}

/// The comment of a record: `inject` or `expect`, then ` checks: ID, ID` if any.
pub fn record_comment(dir: Direction, checks: &[String]) -> String {
    let mut c = String::from(dir_word(dir));
    if !checks.is_empty() {
        c.push_str(" checks: ");
        c.push_str(&checks.join(", "));
    }
    c
}

/// Whether the specification defines `id` (a requirement or clause ID) and has not
/// withdrawn it.
fn known(id: &str) -> bool {
    unknown_reason(id, bundled_spec()).is_none()
}

fn valid_check_id(id: &str) -> bool {
    !id.is_empty() && !id.chars().any(|c| c == ',' || c.is_whitespace())
}

fn body_direction_ok(kind: HostKind, dir: Direction) -> bool {
    matches!(
        (kind, dir),
        (HostKind::Host | HostKind::Cpu, Direction::Inject) | (HostKind::Event, Direction::Expect)
    )
}

/// Encodes a host record: the 8-byte header and the JSON body.
fn host_record(
    kind: HostKind,
    json: Result<Vec<u8>, serde_json::Error>,
) -> Result<Vec<u8>, String> {
    let json = json.map_err(|e| format!("the {kind} cannot be written as JSON: {e}"))?;
    let mut out = Vec::with_capacity(HOST_HEADER_LEN + json.len());
    out.extend_from_slice(&HOST_MAGIC);
    out.extend_from_slice(&[HOST_VERSION, kind.code(), 0, 0]);
    out.extend_from_slice(&json);
    Ok(out)
}

/// The packet data of a record: the frame, or the host record.
fn record_data(body: &Body) -> Result<Cow<'_, [u8]>, String> {
    Ok(match body {
        Body::Frame { bytes, .. } => Cow::Borrowed(bytes),
        Body::Host { command } => {
            Cow::Owned(host_record(HostKind::Host, serde_json::to_vec(command))?)
        }
        Body::Cpu { command } => {
            Cow::Owned(host_record(HostKind::Cpu, serde_json::to_vec(command))?)
        }
        Body::Event { event } => {
            Cow::Owned(host_record(HostKind::Event, serde_json::to_vec(event))?)
        }
    })
}

fn pad4(n: usize) -> usize {
    n.div_ceil(4) * 4
}

fn pcap_error(e: PcapError) -> FileError {
    match e {
        PcapError::IoError(e) => FileError::Output(e),
        e => FileError::Output(io::Error::other(e.to_string())),
    }
}

/// Cuts `s` to at most `max` bytes, at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Writes the records of `s` as pcapng (see the module documentation for the layout). The
/// output depends only on `s` and the crate version: writing twice gives the same bytes.
///
/// Fails, writing nothing, if the scenario is one the reader would reject: a manifest
/// value or requirement the reader refuses, records out of time order or beyond 2^62 ns, a frame on a port beyond the manifest's, a host or CPU command that is
/// expected, an event that is injected, a check ID that is empty, holds a comma or white
/// space or is not the specification's, or a record too large for a block.
pub fn write_scenario(s: &Scenario, pcapng: &mut impl Write) -> Result<(), FileError> {
    let m = &s.manifest;
    if let Some(error) = m.validate().err().or_else(|| unknown_requirement(m, bundled_spec())) {
        let file = PathBuf::from(format!("{}.toml", m.name));
        return Err(FileError::Manifest { file, line: 0, column: 0, error });
    }
    let ports = s.manifest.ports;
    let mut blocks = Vec::new();
    {
        let shb = SectionHeaderBlock { endianness: Endianness::Little, ..Default::default() };
        let mut w = PcapNgWriter::with_section_header(&mut blocks, shb).map_err(pcap_error)?;
        for port in 0..ports {
            let idb = InterfaceDescriptionBlock {
                linktype: DataLink::ETHERNET,
                snaplen: 0,
                options: vec![
                    InterfaceDescriptionOption::IfName(Cow::Owned(format!("port{port}"))),
                    InterfaceDescriptionOption::IfTsResol(TSRESOL_NS),
                ],
            };
            w.write_pcapng_block(idb).map_err(pcap_error)?;
        }
        let host = InterfaceDescriptionBlock {
            linktype: DataLink::from(LINKTYPE_USER0),
            snaplen: 0,
            options: vec![
                InterfaceDescriptionOption::IfName(Cow::Borrowed(HOST_INTERFACE_NAME)),
                InterfaceDescriptionOption::IfDescription(Cow::Borrowed(
                    HOST_INTERFACE_DESCRIPTION,
                )),
                InterfaceDescriptionOption::IfTsResol(TSRESOL_NS),
            ],
        };
        w.write_pcapng_block(host).map_err(pcap_error)?;

        let mut previous = 0u64;
        for (i, r) in s.records.iter().enumerate() {
            let invalid = |reason: String| FileError::Invalid { record: i, reason };
            let at = r.at.as_nanos();
            if at < previous {
                return Err(invalid(format!(
                    "time goes backwards: {at} ns after a record at {previous} ns"
                )));
            }
            previous = at;
            if at > MAX_SPAN_NS {
                return Err(invalid(format!("at {at} ns, beyond 2^62 ns")));
            }
            let interface = match &r.body {
                Body::Frame { port, .. } => {
                    if *port >= ports {
                        return Err(invalid(format!(
                            "a frame on port {port}, but the manifest declares {ports} port(s)"
                        )));
                    }
                    u32::from(*port)
                }
                body => {
                    let kind = HostKind::of(body).unwrap_or(HostKind::Host);
                    if !body_direction_ok(kind, r.dir) {
                        return Err(invalid(format!(
                            "the record is a {kind} marked {}: host and CPU commands are \
                             injected, events are expected",
                            dir_word(r.dir)
                        )));
                    }
                    u32::from(ports)
                }
            };
            if let Some(bad) = r.checks.iter().find(|c| !valid_check_id(c)) {
                return Err(invalid(format!(
                    "check ID {bad:?} is empty or holds a comma or white space"
                )));
            }
            if let Some(bad) = r.checks.iter().find(|c| !known(c)) {
                return Err(invalid(format!(
                    "the record checks {bad}, which the specification does not define"
                )));
            }
            let comment = record_comment(r.dir, &r.checks);
            let data = record_data(&r.body).map_err(invalid)?;
            // Block: type, length, 20 bytes of fields, data, options (comment, flags, end),
            // trailing length.
            let block_len = 8 + 20 + pad4(data.len()) + 4 + pad4(comment.len()) + 8 + 4 + 4;
            if comment.len() > MAX_OPTION_LEN || block_len as u64 > MAX_RECORD_LEN {
                return Err(invalid(format!(
                    "the record needs a {block_len}-byte block; the limit is {MAX_RECORD_LEN}"
                )));
            }
            let flags = match r.dir {
                Direction::Inject => EPB_INBOUND,
                Direction::Expect => EPB_OUTBOUND,
            };
            let epb = EnhancedPacketBlock {
                interface_id: interface,
                timestamp: Duration::from_nanos(at),
                original_len: data.len() as u32,
                data,
                options: vec![
                    EnhancedPacketOption::Comment(Cow::Owned(comment)),
                    EnhancedPacketOption::Flags(flags),
                ],
            };
            w.write_pcapng_block(epb).map_err(pcap_error)?;
        }
    }

    // The Section Header Block, with the length of the blocks after it. The writer above
    // wrote its own (default) section header first: it is dropped.
    let first_len = first_block_len(&blocks);
    let shb = SectionHeaderBlock {
        endianness: Endianness::Little,
        major_version: 1,
        minor_version: 0,
        section_length: i64::try_from(blocks.len() - first_len).unwrap_or(-1),
        options: vec![
            SectionHeaderOption::Comment(Cow::Borrowed(cut(&s.manifest.name, MAX_OPTION_LEN))),
            SectionHeaderOption::UserApplication(Cow::Owned(user_application())),
        ],
    };
    let mut out = Vec::with_capacity(blocks.len() + 64);
    PcapNgWriter::with_section_header(&mut out, shb.into_owned()).map_err(pcap_error)?;
    out.extend_from_slice(&blocks[first_len..]);
    pcapng.write_all(&out).map_err(FileError::Output)?;
    Ok(())
}

/// The length of the first block of little-endian pcapng `bytes`.
fn first_block_len(bytes: &[u8]) -> usize {
    bytes
        .get(4..8)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, |b| u32::from_le_bytes(b) as usize)
        .min(bytes.len())
}

/// The manifest as TOML, in the form [`read_scenario`] reads: keys first, then the tables
/// `[nic]`, `[recovery]`, `[link]`, `[tolerances]`, every field written out.
///
/// Every manifest has a TOML form (the `toml` crate writes and reads the whole `u64` range).
/// Should writing ever fail, the text is a TOML comment that says why, which does not read
/// as a manifest.
pub fn manifest_to_toml(m: &Manifest) -> String {
    toml::to_string(m).unwrap_or_else(|e| {
        let why = e.to_string().replace('\n', " ");
        format!("# the manifest cannot be written as TOML: {why}\n")
    })
}

/// Writes `s` as `STEM.pcapng` and `STEM.toml` (see [`load`] for how the stem is read).
pub fn save(s: &Scenario, stem: impl AsRef<Path>) -> Result<(), FileError> {
    let (pcapng_path, toml_path) = paths(stem.as_ref());
    let toml = manifest_to_toml(&s.manifest);
    let mut bytes = Vec::new();
    write_scenario(s, &mut bytes)?;
    fs::write(&pcapng_path, bytes).map_err(|source| FileError::Io { file: pcapng_path, source })?;
    fs::write(&toml_path, toml).map_err(|source| FileError::Io { file: toml_path, source })?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------

/// The two files of the scenario `stem`: `STEM.pcapng` and `STEM.toml`. A stem that already
/// ends in `.pcapng` or `.toml` names the same pair.
pub fn paths(stem: &Path) -> (PathBuf, PathBuf) {
    let base = match stem.extension().and_then(|e| e.to_str()) {
        Some("pcapng" | "toml") => stem.with_extension(""),
        _ => stem.to_path_buf(),
    };
    let with = |ext: &str| {
        let mut s = base.clone().into_os_string();
        s.push(".");
        s.push(ext);
        PathBuf::from(s)
    };
    (with("pcapng"), with("toml"))
}

/// Reads the scenario `STEM.pcapng` + `STEM.toml`.
pub fn load(stem: impl AsRef<Path>) -> Result<Scenario, FileError> {
    let (pcapng, toml) = paths(stem.as_ref());
    read_scenario(pcapng, toml)
}

/// Reads every scenario of a directory: each `NAME.toml` with its `NAME.pcapng`, in the
/// order of their file names. Two manifests that give one scenario name are refused
/// (`CONF-FMT-011`), naming both files.
pub fn load_dir(dir: impl AsRef<Path>) -> Result<Vec<Scenario>, FileError> {
    let dir = dir.as_ref();
    let io = |source| FileError::Io { file: dir.to_path_buf(), source };
    let mut stems = Vec::new();
    for entry in fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.extension().is_some_and(|x| x == "toml") {
            stems.push(path.with_extension(""));
        }
    }
    stems.sort();
    let mut names: std::collections::BTreeMap<String, PathBuf> = Default::default();
    let mut out = Vec::with_capacity(stems.len());
    for stem in stems {
        let (pcapng, toml) = paths(&stem);
        let manifest = read_manifest(&toml)?;
        if let Some(first) = names.get(&manifest.name) {
            return Err(FileError::DuplicateName {
                file: toml,
                first: first.clone(),
                name: manifest.name,
            });
        }
        names.insert(manifest.name.clone(), toml);
        let bytes =
            fs::read(&pcapng).map_err(|source| FileError::Io { file: pcapng.clone(), source })?;
        let records = read_records(&bytes, &manifest, &pcapng)?;
        out.push(Scenario { manifest, records });
    }
    Ok(out)
}

/// Reads a scenario from its pcapng file and its manifest.
pub fn read_scenario(
    pcapng_path: impl AsRef<Path>,
    manifest_path: impl AsRef<Path>,
) -> Result<Scenario, FileError> {
    let (pcapng_path, manifest_path) = (pcapng_path.as_ref(), manifest_path.as_ref());
    let manifest = read_manifest(manifest_path)?;
    let bytes = fs::read(pcapng_path)
        .map_err(|source| FileError::Io { file: pcapng_path.to_path_buf(), source })?;
    let records = read_records(&bytes, &manifest, pcapng_path)?;
    Ok(Scenario { manifest, records })
}

/// Reads a manifest file.
pub fn read_manifest(path: impl AsRef<Path>) -> Result<Manifest, FileError> {
    let path = path.as_ref();
    let bytes =
        fs::read(path).map_err(|source| FileError::Io { file: path.to_path_buf(), source })?;
    match std::str::from_utf8(&bytes) {
        Ok(text) => parse_manifest(text, path),
        Err(e) => {
            let (line, column) = line_column(&bytes, e.valid_up_to());
            Err(FileError::Toml {
                file: path.to_path_buf(),
                line,
                column,
                message: "the file is not UTF-8".into(),
            })
        }
    }
}

/// Parses manifest TOML and checks it: every value (`CONF-FMT-008`,
/// [`Manifest::validate`]) and every requirement it names, against the specification built
/// into this crate (`CONF-FMT-009`). `name` names the file in errors, which give the line
/// and column of the value at fault.
pub fn parse_manifest(text: &str, name: impl AsRef<Path>) -> Result<Manifest, FileError> {
    let file = name.as_ref();
    let m = toml::from_str::<Manifest>(text).map_err(|e| {
        let (line, column) = match e.span() {
            Some(Range { start, .. }) => line_column(text.as_bytes(), start),
            None => (0, 0),
        };
        FileError::Toml {
            file: file.to_path_buf(),
            line,
            column,
            message: e.message().trim_end().to_string(),
        }
    })?;
    let spec = bundled_spec();
    if let Some(error) = m.validate().err().or_else(|| unknown_requirement(&m, spec)) {
        let (line, column) = match value_span(text, error.key, error.index) {
            Some(start) => line_column(text.as_bytes(), start),
            None => (0, 0),
        };
        return Err(FileError::Manifest { file: file.to_path_buf(), line, column, error });
    }
    Ok(m)
}

/// The specification built into this crate, parsed once.
pub fn bundled_spec() -> &'static Spec {
    static SPEC: std::sync::OnceLock<Spec> = std::sync::OnceLock::new();
    // The bundled chapters parse: the crate's tests check it. Should they not, every ID
    // is then unknown, and says so.
    SPEC.get_or_init(|| Spec::bundled().unwrap_or_default())
}

/// The first requirement `m` names that `spec` does not define, or defines as withdrawn
/// (`CONF-FMT-009`). A clause ID `ID.x` names a clause of a marked line.
pub fn unknown_requirement(m: &Manifest, spec: &Spec) -> Option<ManifestError> {
    m.requirements.iter().enumerate().find_map(|(i, r)| {
        let why = unknown_reason(r, spec)?;
        Some(ManifestError::at("requirements", i, format!("{r:?}"), why))
    })
}

/// Why the specification does not define `id` (a requirement or clause ID) for a scenario
/// to check; `None` when it does.
fn unknown_reason(id: &str, spec: &Spec) -> Option<String> {
    let line = requirement_of(id).unwrap_or(id);
    let Some(requirement) = spec.get(line) else {
        return Some(format!("the specification defines no requirement {line}"));
    };
    if requirement.level == crate::requirements::Level::Withdrawn {
        return Some(format!("{line} is withdrawn: {}", requirement.text));
    }
    if spec.clause(id).is_none() {
        return Some(format!("{line} has no clause ({})", id.rsplit('.').next().unwrap_or("")));
    }
    None
}

/// Where the value of `key` (a dotted TOML path) starts in `text`, or element `index` of
/// it; the start of the nearest enclosing key written in the text when the key itself is
/// not (a default).
fn value_span(text: &str, key: &str, index: Option<usize>) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    let root = DeTable::parse(text).ok()?;
    let mut table: &DeTable<'_> = root.get_ref();
    let mut found: Option<usize> = None;
    let mut parts = key.split('.').peekable();
    while let Some(part) = parts.next() {
        let Some((k, v)) = table.iter().find(|(k, _)| k.get_ref().as_ref() == part) else {
            break;
        };
        found = Some(k.span().start);
        if parts.peek().is_none() {
            found = Some(v.span().start);
            if let (Some(i), DeValue::Array(items)) = (index, v.get_ref()) {
                found = items.get(i).map(|x| x.span().start).or(found);
            }
            break;
        }
        match v.get_ref() {
            DeValue::Table(t) => table = t,
            _ => break,
        }
    }
    found
}

/// The 1-based line and column (in characters) of byte `at` of `text`.
fn line_column(text: &[u8], at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    // Count characters: every byte that does not continue a UTF-8 sequence.
    let column = before[line_start..].iter().filter(|&&b| b & 0xC0 != 0x80).count() + 1;
    (line, column)
}

/// Reads a scenario from memory: `pcapng` and `toml` are the contents of the two files,
/// `pcapng_name` and `toml_name` name them in errors.
pub fn read_scenario_bytes(
    pcapng: &[u8],
    toml: &str,
    pcapng_name: impl AsRef<Path>,
    toml_name: impl AsRef<Path>,
) -> Result<Scenario, FileError> {
    let manifest = parse_manifest(toml, toml_name)?;
    let records = read_records(pcapng, &manifest, pcapng_name.as_ref())?;
    Ok(Scenario { manifest, records })
}

/// Reads the records of a scenario's pcapng file, given its manifest.
pub fn read_records(
    pcapng: &[u8],
    manifest: &Manifest,
    name: impl AsRef<Path>,
) -> Result<Vec<Record>, FileError> {
    let file = name.as_ref();
    let capture = |source| FileError::Capture { file: file.to_path_buf(), source };
    let mut reader = CaptureReader::new(pcapng).map_err(capture)?;
    if reader.format() != Format::PcapNg {
        return Err(FileError::NotPcapNg { file: file.to_path_buf(), format: reader.format() });
    }
    let ports = manifest.ports;
    let host = u32::from(ports);
    // Where the blocks after the section header start, and the length it declares.
    let mut section: Option<(u64, Option<u64>)> = None;
    let mut previous = 0u64;
    let mut records = Vec::new();
    while let Some(item) = reader.next_item() {
        match item.map_err(capture)? {
            Item::Section(s) => {
                if section.is_some() {
                    return Err(FileError::ExtraSection {
                        file: file.to_path_buf(),
                        offset: s.offset,
                    });
                }
                // The binding of the records to their manifest (CONF-FMT-010).
                if !s.comments.contains(&manifest.name) {
                    return Err(FileError::Mismatch {
                        file: file.to_path_buf(),
                        capture: s.comments.first().cloned(),
                        manifest: manifest.name.clone(),
                    });
                }
                section = Some((reader.offset(), s.length));
            }
            Item::Interface(i) => {
                let (role, expected) = if i.id < host {
                    ("a port", LINKTYPE_ETHERNET)
                } else if i.id == host {
                    ("the host interface", LINKTYPE_USER0)
                } else {
                    // Unused interfaces beyond the host interface are harmless; a packet on
                    // one is an error.
                    continue;
                };
                if i.link_type != expected {
                    return Err(FileError::LinkType {
                        file: file.to_path_buf(),
                        offset: i.offset,
                        interface: i.id,
                        role,
                        expected,
                        link_type: i.link_type,
                    });
                }
            }
            Item::Packet(p) => {
                let offset = p.offset;
                let path = || file.to_path_buf();
                if p.interface > host {
                    return Err(FileError::Interface {
                        file: path(),
                        offset,
                        interface: p.interface,
                        ports,
                    });
                }
                let at = p
                    .timestamp_ns
                    .ok_or_else(|| FileError::NoTimestamp { file: path(), offset })?;
                if at < previous {
                    return Err(FileError::TimeBackwards { file: path(), offset, at, previous });
                }
                if at > MAX_SPAN_NS {
                    return Err(FileError::TooLate { file: path(), offset, at });
                }
                previous = at;
                if p.data.len() != p.orig_len as usize {
                    return Err(FileError::Snapped {
                        file: path(),
                        offset,
                        captured: p.data.len(),
                        original: p.orig_len,
                    });
                }
                let (dir, checks) = direction(p.flags, &p.comments)
                    .map_err(|reason| FileError::Direction { file: path(), offset, reason })?;
                if let Some(id) = checks.iter().find(|c| !known(c)) {
                    return Err(FileError::UnknownCheck { file: path(), offset, id: id.clone() });
                }
                let body = if p.interface < host {
                    // The interface ID is below the port count, a u16.
                    let port = u16::try_from(p.interface).unwrap_or(u16::MAX);
                    Body::Frame { port, bytes: p.data }
                } else {
                    let body = decode_host_record(&p.data, file, offset)?;
                    let kind = HostKind::of(&body).unwrap_or(HostKind::Host);
                    if !body_direction_ok(kind, dir) {
                        return Err(FileError::BodyDirection { file: path(), offset, kind, dir });
                    }
                    body
                };
                records.push(Record { at: Timestamp::from_nanos(at), dir, body, checks });
            }
        }
    }
    if let Some((start, Some(declared))) = section {
        let end = reader.offset();
        let actual = end - start;
        if actual != declared {
            return Err(FileError::SectionLength {
                file: file.to_path_buf(),
                offset: end,
                declared,
                actual,
            });
        }
    }
    Ok(records)
}

/// What the flags and comments of a packet say: its direction and the IDs it checks.
fn direction(
    flags: Option<u32>,
    comments: &[String],
) -> Result<(Direction, Vec<String>), DirectionError> {
    let mut ours: Option<(&String, Direction, Vec<String>)> = None;
    for c in comments {
        let Some(parsed) = parse_comment(c)? else { continue };
        if let Some((first, ..)) = &ours {
            return Err(DirectionError::TwoComments { first: (*first).clone(), second: c.clone() });
        }
        ours = Some((c, parsed.0, parsed.1));
    }
    let from_flags = match flags.map(|f| (f, f & EPB_DIRECTION_MASK)) {
        None | Some((_, 0)) => None,
        Some((_, EPB_INBOUND)) => Some(Direction::Inject),
        Some((_, EPB_OUTBOUND)) => Some(Direction::Expect),
        Some((flags, _)) => return Err(DirectionError::BadFlags { flags }),
    };
    match (from_flags, ours) {
        (Some(f), Some((_, c, _))) if f != c => {
            Err(DirectionError::Disagree { flags: f, comment: c })
        }
        (_, Some((_, dir, checks))) => Ok((dir, checks)),
        (Some(dir), None) => Ok((dir, Vec::new())),
        (None, None) => Err(DirectionError::Missing),
    }
}

/// Parses a record comment. `None` if the comment is not ours (its first word is not
/// `inject` or `expect`).
fn parse_comment(c: &str) -> Result<Option<(Direction, Vec<String>)>, DirectionError> {
    let bad = || DirectionError::BadComment { comment: c.to_string() };
    let (dir, rest) = if let Some(rest) = c.strip_prefix("inject") {
        (Direction::Inject, rest)
    } else if let Some(rest) = c.strip_prefix("expect") {
        (Direction::Expect, rest)
    } else {
        return Ok(None);
    };
    if rest.is_empty() {
        return Ok(Some((dir, Vec::new())));
    }
    // "injection ..." is a note, not ours.
    if !rest.starts_with(|ch: char| ch.is_whitespace() || ch.is_ascii_punctuation()) {
        return Ok(None);
    }
    let ids = rest.strip_prefix(" checks: ").ok_or_else(bad)?;
    let checks: Vec<String> = ids.split(", ").map(str::to_string).collect();
    if checks.iter().any(|id| !valid_check_id(id)) {
        return Err(bad());
    }
    Ok(Some((dir, checks)))
}

/// Checks a host record's header; returns its kind and JSON body.
pub fn host_record_parts(data: &[u8]) -> Result<(HostKind, &[u8]), HostRecordError> {
    let Some((head, json)) = data.split_first_chunk::<HOST_HEADER_LEN>() else {
        return Err(HostRecordError::Short { len: data.len() });
    };
    let [m0, m1, m2, m3, version, kind, r0, r1] = *head;
    if [m0, m1, m2, m3] != HOST_MAGIC {
        return Err(HostRecordError::Magic { found: [m0, m1, m2, m3] });
    }
    if version != HOST_VERSION {
        return Err(HostRecordError::Version { found: version });
    }
    let kind = HostKind::from_code(kind).ok_or(HostRecordError::Kind { found: kind })?;
    if [r0, r1] != [0, 0] {
        return Err(HostRecordError::Reserved { found: u16::from_be_bytes([r0, r1]) });
    }
    Ok((kind, json))
}

fn decode_host_record(data: &[u8], file: &Path, offset: u64) -> Result<Body, FileError> {
    let (kind, json) = host_record_parts(data).map_err(|reason| FileError::HostRecord {
        file: file.to_path_buf(),
        offset,
        reason,
    })?;
    let json_error = |e: serde_json::Error| {
        let (line, column) = (e.line(), e.column());
        let message = e.to_string();
        let suffix = format!(" at line {line} column {column}");
        let message = message.strip_suffix(&suffix).unwrap_or(&message).to_string();
        FileError::Json { file: file.to_path_buf(), offset, kind, line, column, message }
    };
    Ok(match kind {
        HostKind::Host => {
            Body::Host { command: serde_json::from_slice::<HostCommand>(json).map_err(json_error)? }
        }
        HostKind::Cpu => {
            Body::Cpu { command: serde_json::from_slice::<CpuCommand>(json).map_err(json_error)? }
        }
        HostKind::Event => {
            Body::Event { event: serde_json::from_slice::<NicEvent>(json).map_err(json_error)? }
        }
    })
}

// ---------------------------------------------------------------------------------------
// Observed captures
// ---------------------------------------------------------------------------------------

/// Reads what a device did from a pcap or pcapng capture (see the module documentation).
/// The capture is streamed: memory holds what the device sent, never the file.
pub fn read_observed(path: impl AsRef<Path>) -> Result<Vec<TimedOutput>, FileError> {
    let path = path.as_ref();
    let file = fs::File::open(path)
        .map_err(|source| FileError::Io { file: path.to_path_buf(), source })?;
    read_observed_from(file, path)
}

/// [`read_observed`] from memory; `name` names the capture in errors.
pub fn read_observed_bytes(
    capture: &[u8],
    name: impl AsRef<Path>,
) -> Result<Vec<TimedOutput>, FileError> {
    read_observed_from(capture, name)
}

/// [`read_observed`] from any stream; `name` names the capture in errors. A frame check
/// sequence that the capture declares is removed (`DEC-FCS-001`).
pub fn read_observed_from(
    capture: impl std::io::Read,
    name: impl AsRef<Path>,
) -> Result<Vec<TimedOutput>, FileError> {
    Ok(read_observed_within_from(capture, name, Timestamp(u64::MAX), u64::MAX)?.outputs)
}

/// What a judge keeps of an observed capture read within a scenario's bounds
/// (`CONF-CMP-044`): the outputs up to the scenario's end, at most a cap of them, and the
/// count of the others.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    /// The outputs up to the end, the first `cap` of them in file order, sorted by time,
    /// stably.
    pub outputs: Vec<TimedOutput>,
    /// The outputs up to the end, kept or not.
    pub sent: u64,
    /// The earliest time of an output up to the end that the cap left out.
    pub first_over: Option<Timestamp>,
    /// The outputs after the end: counted, never kept.
    pub after_end: u64,
}

/// [`read_observed`] within a scenario's bounds (`CONF-CMP-044`): outputs later than
/// `end` are counted, not kept, and of the others only the first `cap` are kept, so that
/// memory is bounded by `cap`, whatever the size of the capture.
pub fn read_observed_within(
    path: impl AsRef<Path>,
    end: Timestamp,
    cap: u64,
) -> Result<Observed, FileError> {
    let path = path.as_ref();
    let file = fs::File::open(path)
        .map_err(|source| FileError::Io { file: path.to_path_buf(), source })?;
    read_observed_within_from(file, path, end, cap)
}

/// [`read_observed_within`] from any stream; `name` names the capture in errors.
pub fn read_observed_within_from(
    capture: impl std::io::Read,
    name: impl AsRef<Path>,
    end: Timestamp,
    cap: u64,
) -> Result<Observed, FileError> {
    let file = name.as_ref();
    let path = || file.to_path_buf();
    let reader = CaptureReader::new(capture)
        .map_err(|source| FileError::Capture { file: path(), source })?;
    let mut seen = Observed::default();
    for p in reader {
        let p = p.map_err(|source| FileError::Capture { file: path(), source })?;
        let offset = p.offset;
        let inbound = match p.flags.map(|f| f & EPB_DIRECTION_MASK) {
            Some(EPB_INBOUND) => true,
            Some(EPB_OUTBOUND) => false,
            _ => p
                .comments
                .iter()
                .any(|c| matches!(parse_comment(c), Ok(Some((Direction::Inject, _))))),
        };
        if inbound {
            continue;
        }
        let output = match p.link_type {
            LINKTYPE_ETHERNET => {
                let port = u16::try_from(p.interface).map_err(|_| FileError::Interface {
                    file: path(),
                    offset,
                    interface: p.interface,
                    ports: u16::MAX,
                })?;
                Output::Frame { port, bytes: Vec::new() }
            }
            LINKTYPE_USER0 => {
                if !p.data.starts_with(&HOST_MAGIC) {
                    continue;
                }
                match decode_host_record(&p.data, file, offset)? {
                    Body::Event { event } => Output::Event { event },
                    _ => continue,
                }
            }
            link_type => {
                return Err(FileError::LinkType {
                    file: path(),
                    offset,
                    interface: p.interface,
                    role: "a port",
                    expected: LINKTYPE_ETHERNET,
                    link_type,
                });
            }
        };
        let at = p.timestamp_ns.ok_or_else(|| FileError::NoTimestamp { file: path(), offset })?;
        if p.data.len() != p.orig_len as usize {
            return Err(FileError::Snapped {
                file: path(),
                offset,
                captured: p.data.len(),
                original: p.orig_len,
            });
        }
        let at = Timestamp::from_nanos(at);
        if at > end {
            seen.after_end += 1;
            continue;
        }
        seen.sent += 1;
        if seen.sent > cap {
            seen.first_over = Some(seen.first_over.map_or(at, |t| t.min(at)));
            continue;
        }
        // The frame's bytes are moved, not copied: one exact-sized buffer per kept frame.
        let output = match output {
            Output::Frame { port, .. } => Output::Frame { port, bytes: p.data },
            event => event,
        };
        seen.outputs.push(TimedOutput { at, output });
    }
    seen.outputs.sort_by_key(|o| o.at);
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments() {
        assert_eq!(parse_comment("inject").unwrap(), Some((Direction::Inject, vec![])));
        assert_eq!(
            parse_comment("expect checks: A-B-001, C-D-002").unwrap(),
            Some((Direction::Expect, vec!["A-B-001".into(), "C-D-002".into()]))
        );
        assert_eq!(parse_comment("a note").unwrap(), None);
        assert_eq!(parse_comment("injection test").unwrap(), None);
        assert!(parse_comment("inject checks:").is_err());
        assert!(parse_comment("inject checks: A,B").is_err());
        assert!(parse_comment("inject checks: A, ").is_err());
        assert!(parse_comment("expect, late").is_err());
        assert_eq!(
            record_comment(Direction::Expect, &["A".into(), "B".into()]),
            "expect checks: A, B"
        );
    }

    #[test]
    fn directions() {
        assert_eq!(direction(Some(1), &[]).unwrap().0, Direction::Inject);
        assert_eq!(direction(Some(0x22), &[]).unwrap().0, Direction::Expect);
        assert_eq!(direction(None, &["expect".into()]).unwrap().0, Direction::Expect);
        assert_eq!(direction(Some(0), &["inject".into()]).unwrap().0, Direction::Inject);
        assert_eq!(direction(None, &[]), Err(DirectionError::Missing));
        assert_eq!(direction(Some(3), &[]), Err(DirectionError::BadFlags { flags: 3 }));
        assert!(matches!(
            direction(Some(1), &["expect".into()]),
            Err(DirectionError::Disagree { .. })
        ));
        assert!(matches!(
            direction(None, &["inject".into(), "note".into(), "expect".into()]),
            Err(DirectionError::TwoComments { .. })
        ));
    }

    #[test]
    fn lines_and_columns() {
        let t = "a = 1\nbé = 2\n";
        assert_eq!(line_column(t.as_bytes(), 0), (1, 1));
        assert_eq!(line_column(t.as_bytes(), 6), (2, 1));
        assert_eq!(line_column(t.as_bytes(), 9), (2, 3));
        assert_eq!(line_column(t.as_bytes(), 1000), (3, 1));
    }

    #[test]
    fn stems() {
        let (p, t) = paths(Path::new("dir/x.v4"));
        assert_eq!((p.to_str(), t.to_str()), (Some("dir/x.v4.pcapng"), Some("dir/x.v4.toml")));
        let (p, t) = paths(Path::new("dir/x.toml"));
        assert_eq!((p.to_str(), t.to_str()), (Some("dir/x.pcapng"), Some("dir/x.toml")));
    }

    #[test]
    fn host_record_headers() {
        assert_eq!(host_record_parts(b"ORDM"), Err(HostRecordError::Short { len: 4 }));
        assert_eq!(
            host_record_parts(b"ORDX\x01\x01\0\0{}"),
            Err(HostRecordError::Magic { found: *b"ORDX" })
        );
        assert_eq!(
            host_record_parts(b"ORDM\x02\x01\0\0"),
            Err(HostRecordError::Version { found: 2 })
        );
        assert_eq!(host_record_parts(b"ORDM\x01\x04\0\0"), Err(HostRecordError::Kind { found: 4 }));
        assert_eq!(
            host_record_parts(b"ORDM\x01\x01\x01\0"),
            Err(HostRecordError::Reserved { found: 0x0100 })
        );
        assert_eq!(host_record_parts(b"ORDM\x01\x03\0\0{}"), Ok((HostKind::Event, &b"{}"[..])));
    }
}
