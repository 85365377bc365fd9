//! Writing a scenario: the pcapng records and the TOML manifest.

use super::*;

/// The `shb_userappl` of scenarios this crate writes.
pub fn user_application() -> String {
    format!("openrdma {}", env!("CARGO_PKG_VERSION"))
}

pub(super) fn dir_word(dir: Direction) -> &'static str {
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
pub(super) fn known(id: &str) -> bool {
    unknown_reason(id, bundled_spec()).is_none()
}

pub(super) fn valid_check_id(id: &str) -> bool {
    !id.is_empty() && !id.chars().any(|c| c == ',' || c.is_whitespace())
}

pub(super) fn body_direction_ok(kind: HostKind, dir: Direction) -> bool {
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
