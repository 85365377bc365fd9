//! Reading a scenario: the manifest, then its records, with every check of the format.

use super::*;

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
pub(super) fn unknown_reason(id: &str, spec: &Spec) -> Option<String> {
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
pub(super) fn line_column(text: &[u8], at: usize) -> (usize, usize) {
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
pub(super) fn direction(
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
pub(super) fn parse_comment(c: &str) -> Result<Option<(Direction, Vec<String>)>, DirectionError> {
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

pub(super) fn decode_host_record(data: &[u8], file: &Path, offset: u64) -> Result<Body, FileError> {
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
