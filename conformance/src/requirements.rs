//! The specification's requirements, read from `spec/*.md`.
//!
//! Every normative sentence is one line of the form
//! `- **[AREA-TOPIC-NNN]** sentence with MUST, SHOULD or MAY`. This module extracts them,
//! so that reports can print a requirement's sentence next to a failure and the coverage
//! report can list what no scenario checks.

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

/// One requirement of the specification.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Requirement {
    /// Its stable ID, e.g. `SETH-BITMAP-001`.
    pub id: String,
    /// Its strongest keyword.
    pub level: Level,
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
    /// Parses one chapter.
    pub fn add_chapter(&mut self, chapter: &str, text: &str) -> Result<(), SpecError> {
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
        assert!(is_requirement_id("SETH-BITMAP-001"));
        assert!(is_requirement_id("ENC-IPV4-002"));
        assert!(!is_requirement_id("SETH-BITMAP-01"));
        assert!(!is_requirement_id("seth-bitmap-001"));
        assert!(!is_requirement_id("UTF-8"));
        assert_eq!(
            find_ids("see [BTH-TVER-001] and \"RCV-WIN-002\"; not X-BTH-TVER-001a"),
            ["BTH-TVER-001", "RCV-WIN-002"]
        );
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
