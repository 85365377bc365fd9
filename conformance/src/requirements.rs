//! The specification's requirements, read from `spec/*.md`.
//!
//! Every normative sentence is one line of the form
//! `- **[AREA-TOPIC-NNN]** sentence with MUST, SHOULD or MAY`. This module extracts them,
//! so that reports can print a requirement's sentence next to a failure and the coverage
//! report can list what no scenario checks.
//!
//! Each requirement binds one party, its [`Subject`]. A chapter names the requirements that
//! do not bind the device in a table headed `| subject | requirements |` whose second column
//! lists IDs and patterns (`AREA-TOPIC-*`, `AREA-*`); every other requirement binds the
//! device (spec/README.md, "Who a requirement binds").

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// How strong a requirement is (RFC 2119).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    /// MUST, MUST NOT, REQUIRED, SHALL.
    Must,
    /// SHOULD, SHOULD NOT, RECOMMENDED.
    Should,
    /// MAY, OPTIONAL.
    May,
    /// No longer in force; the ID stays reserved and is never reused.
    Withdrawn,
}

/// The party a requirement binds, which says how conformance to it is established
/// (spec/README.md, "Who a requirement binds").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Subject {
    /// A NIC under test, at the device boundary: checked by scenarios.
    Device,
    /// The CPU half of recovery: checked by scenarios on a device that brings its own.
    CpuHalf,
    /// A NIC, in what the device boundary does not expose (PCIe attributes, DMA reads).
    OutsideBoundary,
    /// Software on the host: token producers, flag waiters, queue consumers, drivers.
    Host,
    /// Implementations of the wire and host formats as such.
    Codec,
    /// Callers of the reference model's API.
    Model,
    /// A device's harness, in its half of the adapter protocol and the device boundary.
    Adapter,
    /// The conformance suite itself.
    Suite,
}

impl Subject {
    /// Every subject, in the order of the specification's table.
    pub const ALL: [Subject; 8] = [
        Subject::Device,
        Subject::CpuHalf,
        Subject::OutsideBoundary,
        Subject::Host,
        Subject::Codec,
        Subject::Model,
        Subject::Adapter,
        Subject::Suite,
    ];

    /// Its name in the specification.
    pub fn name(self) -> &'static str {
        match self {
            Subject::Device => "device",
            Subject::CpuHalf => "cpu-half",
            Subject::OutsideBoundary => "outside-boundary",
            Subject::Host => "host",
            Subject::Codec => "codec",
            Subject::Model => "model",
            Subject::Adapter => "adapter",
            Subject::Suite => "suite",
        }
    }

    /// The subject of this name.
    pub fn from_name(name: &str) -> Option<Subject> {
        Subject::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether the scenarios of the corpus check the requirements of this subject: those of
    /// a device, and those of a CPU half that a device brings along.
    pub fn scenario_checked(self) -> bool {
        matches!(self, Subject::Device | Subject::CpuHalf)
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Level {
    /// The keyword as the specification writes it (`withdrawn` for a withdrawn one).
    pub fn keyword(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
            Level::Withdrawn => "withdrawn",
        }
    }
}

/// One requirement of the specification.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Requirement {
    /// Its stable ID, e.g. `SETH-BITMAP-001`.
    pub id: String,
    /// Its strongest keyword.
    pub level: Level,
    /// The party it binds.
    pub subject: Subject,
    /// The sentence, without the ID.
    pub text: String,
    /// The chapter file it is in, e.g. `wire-format.md`.
    pub chapter: String,
    /// Its line in that file (1-based).
    pub line: usize,
}

/// A problem found while reading the specification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// A file could not be read.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The same ID is defined twice.
    #[error("{id} is defined twice: {first} and {second}")]
    Duplicate {
        /// The ID.
        id: String,
        /// Where first.
        first: String,
        /// Where again.
        second: String,
    },
    /// A requirement line without a MUST, SHOULD or MAY.
    #[error("{chapter}:{line}: requirement {id} has no MUST, SHOULD or MAY")]
    NoKeyword {
        /// The ID.
        id: String,
        /// The chapter.
        chapter: String,
        /// The line.
        line: usize,
    },
    /// A row of a subject table names a subject the specification does not define.
    #[error("{chapter}:{line}: unknown subject `{name}` (the subjects are {known})")]
    UnknownSubject {
        /// The name found.
        name: String,
        /// The known names, comma-separated.
        known: String,
        /// The chapter.
        chapter: String,
        /// The line.
        line: usize,
    },
    /// An entry of a subject table is neither an ID nor a pattern, or names no requirement
    /// of its chapter.
    #[error("{chapter}:{line}: `{entry}` names no requirement of this chapter")]
    NoSuchRequirement {
        /// The entry.
        entry: String,
        /// The chapter.
        chapter: String,
        /// The line.
        line: usize,
    },
    /// A requirement is listed in two rows of subject tables.
    #[error("{chapter}:{line}: {id} is already listed under the subject `{first}`")]
    TwoSubjects {
        /// The ID.
        id: String,
        /// The subject it was given first.
        first: Subject,
        /// The chapter.
        chapter: String,
        /// The line of the second row.
        line: usize,
    },
}

/// The chapters built into the crate.
const BUNDLED: &[(&str, &str)] = &[
    ("wire-format.md", include_str!("../../spec/wire-format.md")),
    ("host-interface.md", include_str!("../../spec/host-interface.md")),
    ("sender.md", include_str!("../../spec/sender.md")),
    ("receiver.md", include_str!("../../spec/receiver.md")),
    ("completion.md", include_str!("../../spec/completion.md")),
    ("recovery.md", include_str!("../../spec/recovery.md")),
    ("model-interface.md", include_str!("../../spec/model-interface.md")),
    ("conformance.md", include_str!("../../spec/conformance.md")),
];

/// Every requirement, by ID.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    reqs: BTreeMap<String, Requirement>,
}

/// Whether `s` has the shape of a requirement ID: `AREA-TOPIC-NNN`, upper case.
pub fn is_requirement_id(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 3
        && parts[0].len() >= 2
        && parts[0].bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        && parts[0].as_bytes()[0].is_ascii_uppercase()
        && !parts[1].is_empty()
        && parts[1].bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        && parts[2].len() == 3
        && parts[2].bytes().all(|b| b.is_ascii_digit())
}

/// Every requirement ID that appears in `text`, in order (duplicates kept).
pub fn find_ids(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_uppercase()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-'))
        {
            let mut j = i;
            while j < b.len()
                && (b[j].is_ascii_uppercase() || b[j].is_ascii_digit() || b[j] == b'-')
            {
                j += 1;
            }
            let cand = &text[i..j];
            if is_requirement_id(cand) {
                out.push(cand);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

fn level_of(text: &str) -> Option<Level> {
    if text.trim_start_matches(['*', '_']).starts_with("Withdrawn") {
        return Some(Level::Withdrawn);
    }
    let has = |w: &str| text.split(|c: char| !c.is_ascii_alphabetic()).any(|t| t == w);
    if has("MUST") || has("REQUIRED") || has("SHALL") {
        Some(Level::Must)
    } else if has("SHOULD") || has("RECOMMENDED") {
        Some(Level::Should)
    } else if has("MAY") || has("OPTIONAL") {
        Some(Level::May)
    } else {
        None
    }
}

impl Spec {
    /// Parses one chapter: its requirement lines, then its subject table.
    pub fn add_chapter(&mut self, chapter: &str, text: &str) -> Result<(), SpecError> {
        let mut ids = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let Some(rest) = line.strip_prefix("- **[") else { continue };
            let Some((id, after)) = rest.split_once("]**") else { continue };
            if !is_requirement_id(id) {
                continue;
            }
            let sentence = after.trim().to_string();
            let level = level_of(&sentence).ok_or_else(|| SpecError::NoKeyword {
                id: id.to_string(),
                chapter: chapter.to_string(),
                line: n + 1,
            })?;
            let req = Requirement {
                id: id.to_string(),
                level,
                subject: Subject::Device,
                text: sentence,
                chapter: chapter.to_string(),
                line: n + 1,
            };
            if let Some(first) = self.reqs.get(id) {
                return Err(SpecError::Duplicate {
                    id: id.to_string(),
                    first: format!("{}:{}", first.chapter, first.line),
                    second: format!("{}:{}", chapter, n + 1),
                });
            }
            self.reqs.insert(id.to_string(), req);
            ids.push(id.to_string());
        }
        self.assign_subjects(chapter, text, &ids)
    }

    /// Applies the rows of a chapter's `| subject | requirements |` tables to the
    /// requirements `ids` the chapter defines.
    fn assign_subjects(
        &mut self,
        chapter: &str,
        text: &str,
        ids: &[String],
    ) -> Result<(), SpecError> {
        let mut assigned: BTreeMap<String, Subject> = BTreeMap::new();
        let mut in_table = false;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let is_row = line.starts_with('|') && cells.len() >= 4;
            if !is_row {
                in_table = false;
                continue;
            }
            if cells[1] == "subject" && cells[2] == "requirements" {
                in_table = true;
                continue;
            }
            if !in_table || cells[1].starts_with("---") {
                continue;
            }
            let err_line = n + 1;
            let name = cells[1].trim_matches('`');
            let subject = Subject::from_name(name).ok_or_else(|| SpecError::UnknownSubject {
                name: name.to_string(),
                known: Subject::ALL.map(Subject::name).join(", "),
                chapter: chapter.to_string(),
                line: err_line,
            })?;
            for entry in cells[2].split(',').map(|e| e.trim().trim_matches('`')) {
                let matches: Vec<&String> = match entry.strip_suffix('*') {
                    Some(prefix) if prefix.ends_with('-') => {
                        ids.iter().filter(|id| id.starts_with(prefix)).collect()
                    }
                    _ => ids.iter().filter(|id| id.as_str() == entry).collect(),
                };
                if matches.is_empty() {
                    return Err(SpecError::NoSuchRequirement {
                        entry: entry.to_string(),
                        chapter: chapter.to_string(),
                        line: err_line,
                    });
                }
                for id in matches {
                    if let Some(&first) = assigned.get(id) {
                        return Err(SpecError::TwoSubjects {
                            id: id.clone(),
                            first,
                            chapter: chapter.to_string(),
                            line: err_line,
                        });
                    }
                    assigned.insert(id.clone(), subject);
                }
            }
        }
        for (id, subject) in assigned {
            if let Some(r) = self.reqs.get_mut(&id) {
                r.subject = subject;
            }
        }
        Ok(())
    }

    /// Reads every `*.md` file of a directory.
    pub fn load(dir: &Path) -> Result<Spec, SpecError> {
        let io = |path: &Path, e: std::io::Error| SpecError::Io {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| io(dir, e))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        files.sort();
        let mut spec = Spec::default();
        for f in files {
            let text = std::fs::read_to_string(&f).map_err(|e| io(&f, e))?;
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            spec.add_chapter(&name, &text)?;
        }
        Ok(spec)
    }

    /// The specification built into this crate (the repository's `spec/` at build time).
    pub fn bundled() -> Result<Spec, SpecError> {
        let mut spec = Spec::default();
        for (name, text) in BUNDLED {
            spec.add_chapter(name, text)?;
        }
        Ok(spec)
    }

    /// A requirement by ID.
    pub fn get(&self, id: &str) -> Option<&Requirement> {
        self.reqs.get(id)
    }

    /// Every requirement, ordered by ID.
    pub fn iter(&self) -> impl Iterator<Item = &Requirement> {
        self.reqs.values()
    }

    /// Number of requirements.
    pub fn len(&self) -> usize {
        self.reqs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.id, self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_recognised() {
        assert!(is_requirement_id("XX-BITMAP-001"));
        assert!(is_requirement_id("XX-IPV4-002"));
        assert!(!is_requirement_id("XX-BITMAP-01"));
        assert!(!is_requirement_id("xx-bitmap-001"));
        assert!(!is_requirement_id("UTF-8"));
        assert_eq!(
            find_ids("see [XX-TVER-001] and \"XX-WIN-002\"; not X-XX-TVER-001a"),
            ["XX-TVER-001", "XX-WIN-002"]
        );
    }

    #[test]
    fn subject_tables_assign_subjects_and_the_rest_bind_the_device() {
        let text = "- **[XX-YY-001]** A sender MUST do it.\n\
                    - **[XX-YY-002]** A host MUST do that.\n\
                    - **[XX-ZZ-001]** A decoder MUST decode.\n\
                    - **[XX-ZZ-002]** A decoder MUST keep.\n\n\
                    | subject | requirements |\n|---|---|\n\
                    | `host` | `XX-YY-002` |\n\
                    | `codec` | `XX-ZZ-*` |\n\ntext\n";
        let mut s = Spec::default();
        s.add_chapter("x.md", text).unwrap();
        let subject = |id: &str| s.get(id).unwrap().subject;
        assert_eq!(subject("XX-YY-001"), Subject::Device);
        assert_eq!(subject("XX-YY-002"), Subject::Host);
        assert_eq!(subject("XX-ZZ-001"), Subject::Codec);
        assert_eq!(subject("XX-ZZ-002"), Subject::Codec);
    }

    #[test]
    fn subject_tables_are_checked() {
        let table = |row: &str| {
            format!(
                "- **[XX-YY-001]** It MUST.\n- **[XX-YY-002]** It MUST too.\n\n\
                 | subject | requirements |\n|---|---|\n{row}\n"
            )
        };
        let parse = |row: &str| Spec::default().add_chapter("x.md", &table(row));
        assert!(matches!(
            parse("| `gpu` | `XX-YY-001` |"),
            Err(SpecError::UnknownSubject { line: 6, .. })
        ));
        assert!(matches!(
            parse("| `host` | `XX-YY-003` |"),
            Err(SpecError::NoSuchRequirement { .. })
        ));
        assert!(matches!(parse("| `host` | `QQ-*` |"), Err(SpecError::NoSuchRequirement { .. })));
        assert!(matches!(
            parse("| `host` | `XX-YY-001` |\n| `codec` | `XX-YY-*` |"),
            Err(SpecError::TwoSubjects { first: Subject::Host, .. })
        ));
        assert!(parse("| `host` | `XX-YY-001`, `XX-YY-002` |").is_ok());
    }

    #[test]
    fn the_bundled_specification_gives_every_subject_a_requirement() {
        let spec = Spec::bundled().unwrap();
        for subject in Subject::ALL {
            assert!(
                spec.iter().any(|r| r.subject == subject),
                "no requirement binds the subject {subject}"
            );
        }
        // Whole areas and topics: the model's interface, the adapter protocol, the receiver.
        let subject_of = |prefix: &str| {
            let mut s: Vec<Subject> =
                spec.iter().filter(|r| r.id.starts_with(prefix)).map(|r| r.subject).collect();
            s.dedup();
            s
        };
        assert_eq!(subject_of("API-"), [Subject::Model]);
        assert_eq!(subject_of("CONF-ADP-"), [Subject::Adapter]);
        assert_eq!(subject_of("RCV-"), [Subject::Device]);
    }

    #[test]
    fn chapter_lines_parse() {
        let mut s = Spec::default();
        s.add_chapter(
            "x.md",
            "- **[XX-YY-001]** A sender MUST do it.\n- **[XX-YY-002]** It MAY.\ntext\n",
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s.get("XX-YY-002").unwrap().level, Level::May);
        assert!(matches!(
            s.add_chapter("y.md", "- **[XX-YY-001]** Again MUST."),
            Err(SpecError::Duplicate { .. })
        ));
        let mut w = Spec::default();
        w.add_chapter("w.md", "- **[XX-YY-004]** *Withdrawn in 0.1.0; replaced by XX-YY-005.*")
            .unwrap();
        assert_eq!(w.get("XX-YY-004").unwrap().level, Level::Withdrawn);
        assert!(matches!(
            Spec::default().add_chapter("z.md", "- **[XX-YY-003]** no keyword"),
            Err(SpecError::NoKeyword { .. })
        ));
    }
}
