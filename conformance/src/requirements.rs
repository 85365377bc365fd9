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
//! device (spec/README.md, "Who a requirement binds"). A table headed
//! `| left to review by | requirements |` names, of those, the requirements that nothing in
//! the repository can check because nothing in it plays their subject; its first column
//! says who establishes them instead ([`Requirement::review`]).
//!
//! A line that states several rules marks each with `**(a)**`, `**(b)**`, ...: its clauses,
//! cited as `XX-ACK-002.b` (spec/README.md, "How a requirement is written"). Each clause has
//! its own level, and may have its own subject, named in a subject table by its clause ID.
//! [`Spec::clause`] resolves a plain ID to its line and a clause ID to its clause.

mod markers;

pub use markers::keywords;

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
    /// The sentence, without the ID; clause markers are shown as `(a)`, `(b)`, ...
    pub text: String,
    /// The text before the first clause marker, shown with every clause; empty when the line
    /// is unmarked or starts with a marker.
    pub preamble: String,
    /// The marked clauses, in order; empty when the line is unmarked, and so one clause.
    pub parts: Vec<Part>,
    /// Who establishes it, for a requirement that nothing in the repository can check
    /// since nothing in it plays its subject: the row of the chapter's
    /// `| left to review by | requirements |` table that lists it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
    /// The chapter file it is in, e.g. `wire-format.md`.
    pub chapter: String,
    /// Its line in that file (1-based).
    pub line: usize,
}

/// One marked clause of a requirement line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Part {
    /// Its letter: `a` for the first.
    pub letter: char,
    /// Its level: that of its key words, or of the clause before it when it has none.
    pub level: Level,
    /// The party it binds: its own row of a subject table, else the line's.
    pub subject: Subject,
    /// Its text, without the marker.
    pub text: String,
}

/// One clause of the specification: a requirement line, or one marked clause of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClauseRef<'a> {
    /// The line.
    pub requirement: &'a Requirement,
    /// The clause, or `None` for the whole line.
    pub part: Option<&'a Part>,
}

impl ClauseRef<'_> {
    /// Its ID: `XX-ACK-002.b`, or the line's for the whole line.
    pub fn id(&self) -> String {
        match self.part {
            Some(p) => format!("{}.{}", self.requirement.id, p.letter),
            None => self.requirement.id.clone(),
        }
    }

    /// Its level; for the whole line, the strongest of its clauses.
    pub fn level(&self) -> Level {
        self.part.map_or(self.requirement.level, |p| p.level)
    }

    /// The party it binds.
    pub fn subject(&self) -> Subject {
        self.part.map_or(self.requirement.subject, |p| p.subject)
    }

    /// Whether it is one rule: a marked clause, or an unmarked line.
    pub fn is_leaf(&self) -> bool {
        self.part.is_some() || self.requirement.parts.is_empty()
    }

    /// Its sentence, for reports: a clause with the line's preamble before it
    /// (`In an ACK, (b) a requester MUST ignore the credit code.`), or the whole line.
    pub fn text(&self) -> String {
        match self.part {
            Some(p) if self.requirement.preamble.is_empty() => format!("({}) {}", p.letter, p.text),
            Some(p) => format!("{} ({}) {}", self.requirement.preamble, p.letter, p.text),
            None => self.requirement.text.clone(),
        }
    }
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
    /// Something that starts like a clause marker but is not `**(x)**`, `x` a lower-case
    /// letter, followed by a space.
    #[error("{chapter}:{line}: requirement {id}: `{found}` is not a clause marker `**(x)**`")]
    BadMarker {
        /// The ID.
        id: String,
        /// The text found.
        found: String,
        /// The chapter.
        chapter: String,
        /// The line.
        line: usize,
    },
    /// Clause markers not in order from `a`, or more than 26.
    #[error("{chapter}:{line}: requirement {id}: clause ({found}) where ({expected}) comes next")]
    MarkerOrder {
        /// The ID.
        id: String,
        /// The letter that comes next.
        expected: char,
        /// The letter found.
        found: char,
        /// The chapter.
        chapter: String,
        /// The line.
        line: usize,
    },
    /// A line marks one clause only.
    #[error("{chapter}:{line}: requirement {id} marks one clause; a marked line has two or more")]
    LoneMarker {
        /// The ID.
        id: String,
        /// The chapter.
        chapter: String,
        /// The line.
        line: usize,
    },
    /// The text before a line's first marker holds a key word.
    #[error("{chapter}:{line}: requirement {id}: a key word before the first clause marker")]
    KeywordInPreamble {
        /// The ID.
        id: String,
        /// The chapter.
        chapter: String,
        /// The line.
        line: usize,
    },
    /// A clause, or an unmarked line, with key words of different levels.
    #[error("{chapter}:{line}: {id} mixes the levels {levels}; mark its clauses")]
    MixedLevels {
        /// The clause ID, or the line's ID for an unmarked line.
        id: String,
        /// The levels found.
        levels: String,
        /// The chapter.
        chapter: String,
        /// The line.
        line: usize,
    },
    /// A clause marker followed by no text.
    #[error("{chapter}:{line}: clause {id} is empty")]
    EmptyClause {
        /// The clause ID.
        id: String,
        /// The chapter.
        chapter: String,
        /// The line.
        line: usize,
    },
    /// A requirement of a subject that scenarios check is listed as left to review, or a
    /// requirement is listed twice as left to review.
    #[error("{chapter}:{line}: {id} cannot be left to review: {why}")]
    NotForReview {
        /// The ID.
        id: String,
        /// Why.
        why: String,
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
    ("wire-format.md", include_str!("../spec/wire-format.md")),
    ("host-interface.md", include_str!("../spec/host-interface.md")),
    ("sender.md", include_str!("../spec/sender.md")),
    ("receiver.md", include_str!("../spec/receiver.md")),
    ("completion.md", include_str!("../spec/completion.md")),
    ("recovery.md", include_str!("../spec/recovery.md")),
    ("model-interface.md", include_str!("../spec/model-interface.md")),
    ("conformance.md", include_str!("../spec/conformance.md")),
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

/// Splits a clause ID into its line's ID and its letter: `XX-ACK-002.b` gives
/// (`XX-ACK-002`, `Some('b')`), `XX-ACK-002` gives (`XX-ACK-002`, `None`). `None` when `s`
/// is neither.
pub fn split_clause_id(s: &str) -> Option<(&str, Option<char>)> {
    match s.split_once('.') {
        None => is_requirement_id(s).then_some((s, None)),
        Some((id, letter)) => {
            let mut chars = letter.chars();
            let c = chars.next().filter(char::is_ascii_lowercase)?;
            (chars.next().is_none() && is_requirement_id(id)).then_some((id, Some(c)))
        }
    }
}

/// Every clause ID (`XX-ACK-002.b`, with its letter) that appears in `text`, in order
/// (duplicates kept). [`find_ids`] finds the line's ID inside each of them too.
pub fn find_clause_ids(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    for id in find_ids(text) {
        let Some(at) = text[from..].find(id).map(|i| i + from) else { continue };
        let end = at + id.len();
        from = end;
        let letter_ok = b.get(end) == Some(&b'.')
            && b.get(end + 1).is_some_and(u8::is_ascii_lowercase)
            && !b.get(end + 2).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
        if letter_ok {
            out.push(&text[at..end + 2]);
        }
    }
    out
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
            let sentence = after.trim();
            let withdrawn = sentence.trim_start_matches(['*', '_']).starts_with("Withdrawn");
            let at = markers::At { id, chapter, line: n + 1 };
            let parsed = markers::parse(at, sentence, withdrawn)?;
            let req = Requirement {
                id: id.to_string(),
                level: parsed.level,
                subject: Subject::Device,
                text: parsed.text,
                preamble: parsed.preamble,
                parts: parsed
                    .parts
                    .into_iter()
                    .map(|(letter, level, text)| Part {
                        letter,
                        level,
                        subject: Subject::Device,
                        text,
                    })
                    .collect(),
                review: None,
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
        self.assign_subjects(chapter, text, &ids)?;
        self.assign_review(chapter, text, &ids)
    }

    /// Applies the rows of a chapter's `| left to review by | requirements |` tables: each
    /// requirement a row lists (an ID or a pattern, as in a subject table) is established
    /// by the party its first column names. A requirement that scenarios check, one listed
    /// twice, and an entry that names a clause or no requirement of the chapter are errors.
    fn assign_review(
        &mut self,
        chapter: &str,
        text: &str,
        ids: &[String],
    ) -> Result<(), SpecError> {
        let mut in_table = false;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            if !(line.starts_with('|') && cells.len() >= 4) {
                in_table = false;
                continue;
            }
            if cells[1] == "left to review by" && cells[2] == "requirements" {
                in_table = true;
                continue;
            }
            if !in_table || cells[1].starts_with("---") {
                continue;
            }
            let err = |entry: &str, why: &str| SpecError::NotForReview {
                id: entry.to_string(),
                why: why.to_string(),
                chapter: chapter.to_string(),
                line: n + 1,
            };
            for entry in cells[2].split(',').map(|e| e.trim().trim_matches('`')) {
                let matches = table_matches(ids, entry);
                if matches.is_empty() {
                    return Err(SpecError::NoSuchRequirement {
                        entry: entry.to_string(),
                        chapter: chapter.to_string(),
                        line: n + 1,
                    });
                }
                for id in matches {
                    let Some(r) = self.reqs.get_mut(id) else { continue };
                    if r.subject.scenario_checked() {
                        return Err(err(id, "its subject is checked by scenarios"));
                    }
                    if r.review.is_some() {
                        return Err(err(id, "it is listed twice"));
                    }
                    r.review = Some(cells[1].to_string());
                }
            }
        }
        Ok(())
    }

    /// Applies the rows of a chapter's `| subject | requirements |` tables to the
    /// requirements `ids` the chapter defines. An entry that names a clause
    /// (`XX-LEN-001.c`) gives that clause its subject; the line's other clauses keep the
    /// line's.
    fn assign_subjects(
        &mut self,
        chapter: &str,
        text: &str,
        ids: &[String],
    ) -> Result<(), SpecError> {
        let mut assigned: BTreeMap<String, Subject> = BTreeMap::new();
        let mut by_clause: BTreeMap<String, Subject> = BTreeMap::new();
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
                if let Some((id, Some(letter))) = split_clause_id(entry) {
                    let defined = ids.iter().any(|i| i == id)
                        && self
                            .reqs
                            .get(id)
                            .is_some_and(|r| r.parts.iter().any(|p| p.letter == letter));
                    if !defined {
                        return Err(SpecError::NoSuchRequirement {
                            entry: entry.to_string(),
                            chapter: chapter.to_string(),
                            line: err_line,
                        });
                    }
                    if let Some(&first) = by_clause.get(entry) {
                        return Err(SpecError::TwoSubjects {
                            id: entry.to_string(),
                            first,
                            chapter: chapter.to_string(),
                            line: err_line,
                        });
                    }
                    by_clause.insert(entry.to_string(), subject);
                    continue;
                }
                let matches = table_matches(ids, entry);
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
        for id in ids {
            let Some(r) = self.reqs.get_mut(id) else { continue };
            if let Some(&subject) = assigned.get(id) {
                r.subject = subject;
            }
            for p in &mut r.parts {
                p.subject =
                    by_clause.get(&format!("{id}.{}", p.letter)).copied().unwrap_or(r.subject);
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

    /// A clause by ID: `XX-ACK-002.b` gives that clause, `XX-ACK-002` the whole line.
    pub fn clause(&self, id: &str) -> Option<ClauseRef<'_>> {
        let (line, letter) = split_clause_id(id)?;
        let requirement = self.reqs.get(line)?;
        let part = match letter {
            None => None,
            Some(l) => Some(requirement.parts.iter().find(|p| p.letter == l)?),
        };
        Some(ClauseRef { requirement, part })
    }

    /// The sentence of a clause, for reports ([`ClauseRef::text`]); `None` when the
    /// specification defines no such clause.
    pub fn clause_text(&self, id: &str) -> Option<String> {
        self.clause(id).map(|c| c.text())
    }

    /// Every clause: each line, then each of its marked clauses, lines ordered by ID.
    pub fn clauses(&self) -> impl Iterator<Item = ClauseRef<'_>> {
        self.reqs.values().flat_map(|r| {
            std::iter::once(ClauseRef { requirement: r, part: None })
                .chain(r.parts.iter().map(move |p| ClauseRef { requirement: r, part: Some(p) }))
        })
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

/// The IDs a cell of a chapter's table names: one ID, or every ID that starts with the
/// prefix before a final `*` (`ORD-DB-*`).
fn table_matches<'a>(ids: &'a [String], entry: &str) -> Vec<&'a String> {
    match entry.strip_suffix('*') {
        Some(prefix) if prefix.ends_with('-') => {
            ids.iter().filter(|id| id.starts_with(prefix)).collect()
        }
        _ => ids.iter().filter(|id| id.as_str() == entry).collect(),
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
    fn review_tables_name_what_is_left_to_review() {
        let text = |row: &str| {
            format!(
                "- **[XX-YY-001]** A sender MUST do it.\n\
                 - **[XX-YY-002]** A host MUST do that.\n\
                 - **[XX-YY-003]** A host MUST do more.\n\n\
                 | subject | requirements |\n|---|---|\n| `host` | `XX-YY-002`, `XX-YY-003` |\n\n\
                 | left to review by | requirements |\n|---|---|\n{row}\n"
            )
        };
        let mut s = Spec::default();
        s.add_chapter("x.md", &text("| the host's review | `XX-YY-002` |")).unwrap();
        assert_eq!(s.get("XX-YY-002").unwrap().review.as_deref(), Some("the host's review"));
        assert_eq!(s.get("XX-YY-003").unwrap().review, None);
        assert_eq!(s.get("XX-YY-001").unwrap().review, None);
        let parse = |row: &str| Spec::default().add_chapter("x.md", &text(row));
        // A device's requirement is the scenarios' to check.
        assert!(matches!(parse("| review | `XX-YY-001` |"), Err(SpecError::NotForReview { .. })));
        assert!(matches!(
            parse("| review | `XX-YY-002`, `XX-YY-002` |"),
            Err(SpecError::NotForReview { .. })
        ));
        assert!(matches!(
            parse("| review | `XX-QQ-*` |"),
            Err(SpecError::NoSuchRequirement { .. })
        ));
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
    fn clauses_resolve_and_take_subjects_by_clause() {
        let text = "- **[XX-YY-001]** In X, **(a)** a sender SHOULD set it, **(b)** a receiver MUST \
                    ignore it, **(c)** and validate() reports it.\n\
                    - **[XX-YY-002]** It MUST.\n\n\
                    | subject | requirements |\n|---|---|\n\
                    | `codec` | `XX-YY-001.c` |\n";
        let mut s = Spec::default();
        s.add_chapter("x.md", text).unwrap();
        let c = |id: &str| s.clause(id).unwrap();
        assert_eq!(c("XX-YY-001").level(), Level::Must);
        assert!(!c("XX-YY-001").is_leaf());
        assert_eq!(c("XX-YY-001.a").level(), Level::Should);
        assert_eq!(c("XX-YY-001.c").level(), Level::Must);
        assert_eq!(c("XX-YY-001.b").subject(), Subject::Device);
        assert_eq!(c("XX-YY-001.c").subject(), Subject::Codec);
        assert_eq!(s.get("XX-YY-001").unwrap().subject, Subject::Device);
        assert_eq!(c("XX-YY-001.c").id(), "XX-YY-001.c");
        assert!(c("XX-YY-002").is_leaf());
        assert!(s.clause("XX-YY-002.a").is_none() && s.clause("XX-YY-001.d").is_none());
        assert_eq!(s.clause_text("XX-YY-001.a").unwrap(), "In X, (a) a sender SHOULD set it,");
        assert_eq!(s.clauses().count(), 5);
        let bad = |entry: &str| {
            let t = format!(
                "- **[XX-YY-001]** **(a)** It MUST. **(b)** It MAY.\n\n\
                 | subject | requirements |\n|---|---|\n| `codec` | {entry} |\n"
            );
            Spec::default().add_chapter("x.md", &t)
        };
        assert!(matches!(bad("`XX-YY-001.c`"), Err(SpecError::NoSuchRequirement { .. })));
        assert!(matches!(bad("`XX-YY-001.a`, `XX-YY-001.a`"), Err(SpecError::TwoSubjects { .. })));
        assert!(bad("`XX-YY-001.b`").is_ok());
    }

    #[test]
    fn clause_ids_are_recognised() {
        assert_eq!(split_clause_id("XX-YY-001.b"), Some(("XX-YY-001", Some('b'))));
        assert_eq!(split_clause_id("XX-YY-001"), Some(("XX-YY-001", None)));
        assert_eq!(split_clause_id("XX-YY-001.B"), None);
        assert_eq!(split_clause_id("XX-YY-001.bc"), None);
        assert_eq!(
            find_clause_ids("see XX-YY-001.b, XX-YY-002.c) and XX-YY-003. Not XX-YY-004.rs"),
            ["XX-YY-001.b", "XX-YY-002.c"]
        );
        assert_eq!(find_ids("XX-YY-001.b"), ["XX-YY-001"]);
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
