//! Reading what a device did from a capture of any origin.

use super::*;

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
