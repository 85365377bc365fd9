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
use crate::req::{self, Clause};
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

impl FileError {
    /// The requirement of `spec/conformance.md` the refusal enforces, as a clause; `None`
    /// for a file that cannot be read or written at all.
    ///
    /// The pcapng layout (`CONF-FMT-002`: a broken container, a second section, a section
    /// length that disagrees, a packet without a timestamp or cut by the capture); a
    /// scenario's two files (`CONF-FMT-001.a`); a manifest of another shape
    /// (`CONF-FMT-001.b`); host records (`CONF-FMT-003.a`, `.b`); interfaces and time order
    /// (`CONF-FMT-004.a`); directions (`CONF-FMT-004.b`); manifest values and record times
    /// (`CONF-FMT-008.a`); requirements named (`CONF-FMT-009.a`, `.b`); the scenario's name
    /// (`CONF-FMT-010`, `CONF-FMT-011`); what the writer refuses (`CONF-FMT-005`).
    pub fn requirement(&self) -> Option<Clause> {
        Some(match self {
            FileError::Io { .. } | FileError::Output(_) => return None,
            FileError::Capture { .. }
            | FileError::SectionLength { .. }
            | FileError::ExtraSection { .. }
            | FileError::NoTimestamp { .. }
            | FileError::Snapped { .. } => req::CONF_FMT_002,
            FileError::NotPcapNg { .. } => req::CONF_FMT_001_A,
            FileError::Toml { .. } => req::CONF_FMT_001_B,
            FileError::Json { .. } => req::CONF_FMT_003_A,
            FileError::HostRecord { .. } | FileError::BodyDirection { .. } => req::CONF_FMT_003_B,
            FileError::LinkType { .. }
            | FileError::Interface { .. }
            | FileError::TimeBackwards { .. } => req::CONF_FMT_004_A,
            FileError::Direction { .. } => req::CONF_FMT_004_B,
            FileError::Manifest { error, .. } => match Clause::parse(error.requirement()) {
                Some(c) => c,
                None => req::CONF_FMT_008_A,
            },
            FileError::TooLate { .. } => req::CONF_FMT_008_A,
            FileError::UnknownCheck { .. } => req::CONF_FMT_009_B,
            FileError::Mismatch { .. } => req::CONF_FMT_010,
            FileError::DuplicateName { .. } => req::CONF_FMT_011,
            FileError::Invalid { .. } => req::CONF_FMT_005,
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
}

mod observed;
mod read;
mod write;

pub use self::observed::{
    Observed, read_observed, read_observed_bytes, read_observed_from, read_observed_within,
    read_observed_within_from,
};
pub use self::read::{
    bundled_spec, host_record_parts, load, load_dir, parse_manifest, paths, read_manifest,
    read_records, read_scenario, read_scenario_bytes, unknown_requirement,
};
use self::read::{decode_host_record, parse_comment, unknown_reason};
#[cfg(test)]
use self::read::{direction, line_column};
use self::write::{body_direction_ok, dir_word, known, valid_check_id};

pub use self::write::{manifest_to_toml, record_comment, save, user_application, write_scenario};

#[cfg(test)]
mod tests {
    use super::*;

    /// Each refusal names the clause of the scenario format it enforces.
    #[test]
    fn errors_name_their_clause() {
        let file = PathBuf::from("x.pcapng");
        let e = FileError::TimeBackwards { file: file.clone(), offset: 8, at: 1, previous: 2 };
        assert_eq!(e.requirement(), Some(req::CONF_FMT_004_A));
        let e = FileError::Manifest {
            file: file.clone(),
            line: 1,
            column: 1,
            error: ManifestError::at("requirements", 0, "\"X\"", "not an ID"),
        };
        assert_eq!(e.requirement(), Some(req::CONF_FMT_009_A));
        let e = FileError::Io { file, source: io::Error::other("gone") };
        assert_eq!(e.requirement(), None);
    }

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
