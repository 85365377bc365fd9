//! The requirement matrix (`spec/matrix.md`): for every requirement of the specification,
//! its level and subject, the scenarios that check it, the code that cites it and the tests
//! that cite it (spec/README.md, "Citing requirements from code and tests").
//!
//! The matrix is generated from three sources: the specification ([`Spec`]), the scenario
//! corpus ([`crate::all`]) and the project's source files. A source file cites a
//! requirement by writing its ID (`RCV-WIN-002`), in Rust by naming its clause constant
//! (`XX_YY_001`, `XX_YY_001_B`: [`openrdma_conformance::req`]), or, in the name of a
//! test function, by starting the name with the ID in snake case
//! (`fn rcv_win_002_window_edges`). A citation
//! in a test — a file under a `tests` or `benches` directory, a Python file named `test_*`,
//! or the part of a Rust source file from its `#[cfg(test)]` on — counts as a test, any other
//! as code.
//!
//! IDs in the example area `XX` (`XX-YY-001`), which the specification never defines, stand
//! for no requirement and are not citations; any other cited ID that the specification does
//! not define is reported.
//!
//! A requirement whose line marks clauses (`XX-ACK-002.b`, spec/README.md, "How a
//! requirement is written") has a sub-row per clause, with the scenarios and files that cite
//! that clause's ID; a clause ID that the specification does not define is reported too. A
//! scenario that names a clause names its line as well.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use openrdma_conformance::requirements::{
    Level, Requirement, Spec, Subject, find_clause_ids, find_ids, is_requirement_id,
};
use openrdma_device::Scenario;

/// The directories of the repository whose files are scanned for citations.
pub const SOURCE_DIRS: &[&str] = &[
    "codec",
    "device",
    "state-machines",
    "sim",
    "conformance",
    "corpus",
    "cli",
    "capi",
    "testkit",
    "fuzz",
    "examples",
    "wireshark",
];

/// File extensions scanned.
const SOURCE_EXTENSIONS: &[&str] = &["rs", "c", "h", "cpp", "py", "lua", "v", "sv"];

/// Directory names never scanned: build output and generated corpora.
const SKIPPED_DIRS: &[&str] =
    &["target", "corpus", "artifacts", "coverage", "obj_dir", "sim_build", "__pycache__"];

/// Directories and files never scanned, by their path from the repository root: the
/// scenario builders, whose citations name what each scenario checks, which the matrix
/// takes from the scenarios themselves; the clause constants generated from the
/// specification, which name every clause; and the test that lists the lines reviewed as one
/// rule, which names lines without checking them.
const SKIPPED_PATHS: &[&str] =
    &["corpus/src/scenarios", "conformance/src/req", "conformance/tests/clauses.rs"];

/// Where a requirement is cited.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Citations {
    /// Files of code citing it (relative paths, `/`-separated).
    pub code: BTreeSet<String>,
    /// Files of tests citing it.
    pub tests: BTreeSet<String>,
}

/// An ID cited in a source file that the specification does not define.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Undefined {
    /// The ID.
    pub id: String,
    /// `file:line` of the first citation.
    pub at: String,
}

/// The requirement matrix.
#[derive(Debug, Clone, Default)]
pub struct Matrix {
    /// Citations by requirement ID.
    pub cited: BTreeMap<String, Citations>,
    /// Scenarios by requirement ID.
    pub scenarios: BTreeMap<String, BTreeSet<String>>,
    /// Cited IDs the specification does not define.
    pub undefined: Vec<Undefined>,
}

/// One source file's text, for [`Matrix::build`].
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Its path relative to the repository root, `/`-separated.
    pub path: String,
    /// Its contents.
    pub text: String,
}

/// Reads every source file under the [`SOURCE_DIRS`] of the repository at `root`, in path
/// order.
pub fn read_sources(root: &Path) -> std::io::Result<Vec<SourceFile>> {
    let mut files = Vec::new();
    for dir in SOURCE_DIRS {
        walk(root, &root.join(dir), &mut files)?;
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<SourceFile>) -> std::io::Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if SKIPPED_PATHS.iter().any(|p| path.strip_prefix(root).is_ok_and(|r| r == Path::new(p))) {
            continue;
        }
        // A symlink (a crate's copy of the licence or of the spec) repeats a file that is
        // read under its own path.
        if path.is_symlink() {
            continue;
        }
        if path.is_dir() {
            let skipped = SKIPPED_DIRS.contains(&name.as_str()) || name.starts_with('.');
            if !skipped {
                walk(root, &path, out)?;
            }
            continue;
        }
        let ext = path.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default();
        if !SOURCE_EXTENSIONS.contains(&ext.as_str()) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let rel = path.strip_prefix(root).unwrap_or(&path);
        let rel =
            rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
        out.push(SourceFile { path: rel, text });
    }
    Ok(())
}

/// Whether a whole file is a test: under a `tests` or `benches` directory, a Rust module's
/// unit tests in a file of their own (`src/.../tests.rs`, declared `#[cfg(test)] mod tests;`),
/// in the test-support crate (`testkit`, the fuzz bodies), or a Python test module.
fn is_test_file(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let file = parts.last().copied().unwrap_or("");
    parts.iter().any(|p| *p == "tests" || *p == "benches")
        || file == "tests.rs"
        || parts.first() == Some(&"testkit")
        || (file.starts_with("test_") && file.ends_with(".py"))
}

/// The ID a test function's name starts with, in snake case: `rcv_win_002_...` gives
/// `RCV-WIN-002`.
fn snake_id(name: &str) -> Option<String> {
    let mut parts = name.splitn(4, '_');
    let (a, t, n) = (parts.next()?, parts.next()?, parts.next()?);
    let id = format!("{}-{}-{}", a.to_ascii_uppercase(), t.to_ascii_uppercase(), n);
    is_requirement_id(&id).then_some(id)
}

/// The clause IDs the clause constants on a line of Rust name (`XX_YY_001_B` gives
/// `XX-YY-001.b` and `XX-YY-001`), when the specification defines them: a constant of
/// another kind shaped like one is no citation.
fn constant_citations(line: &str, spec: &Spec) -> Vec<String> {
    let words = line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    let mut ids = Vec::new();
    for w in words {
        let parts: Vec<&str> = w.split('_').collect();
        let id = match parts.as_slice() {
            [a, t, n] => format!("{a}-{t}-{n}"),
            [a, t, n, l] if l.len() == 1 => format!("{a}-{t}-{n}.{}", l.to_ascii_lowercase()),
            _ => continue,
        };
        let Some(c) = spec.clause(&id).filter(|_| w.chars().all(|c| !c.is_ascii_lowercase()))
        else {
            continue;
        };
        ids.push(c.requirement.id.clone());
        ids.push(id);
    }
    ids
}

/// The IDs and clause IDs one line cites, each once: a clause ID cites its line's ID too.
fn line_citations(line: &str) -> Vec<String> {
    let mut ids: Vec<String> = find_ids(line).into_iter().map(str::to_string).collect();
    ids.extend(find_clause_ids(line).into_iter().map(str::to_string));
    for (i, _) in line.match_indices("fn ") {
        let name: String =
            line[i + 3..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if let Some(id) = snake_id(&name) {
            ids.push(id);
        }
    }
    ids.sort();
    ids.dedup();
    ids
}

impl Matrix {
    /// Builds the matrix of `spec` from the corpus `scenarios` and the `sources`.
    pub fn build(spec: &Spec, scenarios: &[Scenario], sources: &[SourceFile]) -> Matrix {
        let mut m = Matrix::default();
        // Coverage from the judge's table: a scenario checks the clauses of the checks it
        // exercises that it can show a breach of (`judge::discriminates`), each under its
        // own ID and its line's. Manifests claim the same; records' checks document them.
        for s in scenarios {
            for c in openrdma_conformance::judge::table::covered_by(s) {
                let name = s.manifest.name.clone();
                m.scenarios.entry(c.id().to_string()).or_default().insert(name.clone());
                m.scenarios.entry(c.requirement().to_string()).or_default().insert(name);
            }
        }
        let mut undefined: BTreeMap<String, String> = BTreeMap::new();
        for f in sources {
            let whole_test = is_test_file(&f.path);
            let mut in_test = whole_test;
            for (n, line) in f.text.lines().enumerate() {
                if f.path.ends_with(".rs") && line.trim_start().starts_with("#[cfg(test)]") {
                    in_test = true;
                }
                let mut ids = line_citations(line);
                if f.path.ends_with(".rs") {
                    ids.extend(constant_citations(line, spec));
                    ids.sort();
                    ids.dedup();
                }
                for id in ids {
                    if spec.clause(&id).is_none() {
                        if id.starts_with("XX-") {
                            continue;
                        }
                        undefined.entry(id).or_insert_with(|| format!("{}:{}", f.path, n + 1));
                        continue;
                    }
                    let c = m.cited.entry(id).or_default();
                    if in_test {
                        c.tests.insert(f.path.clone());
                    } else {
                        c.code.insert(f.path.clone());
                    }
                }
            }
        }
        m.undefined = undefined.into_iter().map(|(id, at)| Undefined { id, at }).collect();
        m
    }

    /// The requirements in force that nothing checks: a device or CPU-half requirement that
    /// no scenario checks, or a requirement of another subject that no test cites and that
    /// its chapter does not leave to review.
    pub fn unchecked<'a>(&self, spec: &'a Spec) -> Vec<&'a str> {
        spec.iter()
            .filter(|r| r.level != Level::Withdrawn)
            .filter(|r| {
                if r.subject.scenario_checked() {
                    !self.scenarios.contains_key(&r.id)
                } else {
                    r.review.is_none() && !self.tested(&r.id)
                }
            })
            .map(|r| r.id.as_str())
            .collect()
    }

    /// The requirements in force that no test cites and that their chapter leaves to review
    /// (a `| left to review by | requirements |` table): nothing in the repository plays
    /// their subject (spec/README.md, "Who a requirement binds").
    pub fn left_to_review<'a>(&self, spec: &'a Spec) -> Vec<&'a str> {
        spec.iter()
            .filter(|r| r.level != Level::Withdrawn && r.review.is_some() && !self.tested(&r.id))
            .map(|r| r.id.as_str())
            .collect()
    }

    /// Whether a test cites `id`.
    fn tested(&self, id: &str) -> bool {
        self.cited.get(id).is_some_and(|c| !c.tests.is_empty())
    }

    /// The matrix as Markdown, for `spec/matrix.md`.
    pub fn render(&self, spec: &Spec) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# Requirement matrix\n");
        let _ = writeln!(
            s,
            "Generated from the specification, the scenario corpus and the sources by\n\
             `OPENRDMA_BLESS=1 cargo test -p openrdma-corpus --test matrix`; do not edit it\n\
             by hand. For every requirement: its level, its subject (README.md, \"Who a\n\
             requirement binds\"), the scenarios that check it, and the files of code and of\n\
             tests that cite it. Requirements of the subjects `device` and `cpu-half` are checked\n\
             by scenarios (a scenario checks the clauses of the judge's checks it exercises that\n\
             it can show a breach of); those of the other subjects by tests, or left to review\n\
             where nothing in the repository plays their subject (README.md, \"Who a\n\
             requirement binds\"). A requirement that marks clauses\n\
             (README.md, \"How a requirement is written\") is followed by a sub-row per clause,\n\
             with the clause's own level and subject and what cites the clause itself.\n"
        );
        let _ = writeln!(s, "## Summary\n");
        let _ = writeln!(
            s,
            "| subject | in force | MUST | checked by scenarios | cited by tests | left to review \
             | checked by neither |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
        let unchecked: BTreeSet<&str> = self.unchecked(spec).into_iter().collect();
        let review: BTreeSet<&str> = self.left_to_review(spec).into_iter().collect();
        for subject in Subject::ALL {
            let reqs: Vec<_> = spec
                .iter()
                .filter(|r| r.subject == subject && r.level != Level::Withdrawn)
                .collect();
            let must = reqs.iter().filter(|r| r.level == Level::Must).count();
            let by_scenario = reqs.iter().filter(|r| self.scenarios.contains_key(&r.id)).count();
            let by_test = reqs
                .iter()
                .filter(|r| self.cited.get(&r.id).is_some_and(|c| !c.tests.is_empty()))
                .count();
            let neither = reqs.iter().filter(|r| unchecked.contains(r.id.as_str())).count();
            let reviewed = reqs.iter().filter(|r| review.contains(r.id.as_str())).count();
            let _ = writeln!(
                s,
                "| `{subject}` | {} | {must} | {by_scenario} | {by_test} | {reviewed} | {neither} |",
                reqs.len()
            );
        }
        let _ = writeln!(s);
        let marked: Vec<&Requirement> = spec.iter().filter(|r| !r.parts.is_empty()).collect();
        let clauses: Vec<Level> =
            marked.iter().flat_map(|r| r.parts.iter().map(|p| p.level)).collect();
        let _ = writeln!(
            s,
            "Clauses: {} requirements mark {} clauses, {} of them MUST.\n",
            marked.len(),
            clauses.len(),
            clauses.iter().filter(|l| **l == Level::Must).count()
        );
        let unfailable: Vec<_> = openrdma_conformance::judge::table::unfailable_musts()
            .into_iter()
            .filter(|c| spec.clause(c.id()).is_some())
            .collect();
        let _ = writeln!(
            s,
            "MUST clauses of `device` and `cpu-half` that no check of the judge's table can \
             fail: {}{}\n",
            unfailable.len(),
            if unfailable.is_empty() {
                ".".to_string()
            } else {
                format!(
                    ": {}.",
                    unfailable.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
                )
            }
        );
        if !review.is_empty() {
            let _ = writeln!(
                s,
                "Left to review, since nothing in the repository plays their subject: {}.\n",
                review.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ")
            );
        }
        if !unchecked.is_empty() {
            let _ = writeln!(
                s,
                "Checked by neither: {}.\n",
                unchecked.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ")
            );
        }
        let mut chapters: Vec<&str> = spec.iter().map(|r| r.chapter.as_str()).collect();
        chapters.sort();
        chapters.dedup();
        for chapter in chapters {
            let _ = writeln!(s, "## {chapter}\n");
            let _ = writeln!(s, "| requirement | level | subject | scenarios | code | tests |");
            let _ = writeln!(s, "|---|---|---|---|---|---|");
            let mut reqs: Vec<_> = spec.iter().filter(|r| r.chapter == chapter).collect();
            reqs.sort_by_key(|r| r.line);
            for r in reqs {
                self.row(&mut s, &format!("`{}`", r.id), &r.id, r.level, r.subject);
                for p in &r.parts {
                    let id = format!("{}.{}", r.id, p.letter);
                    self.row(&mut s, &format!("↳ `{id}`"), &id, p.level, p.subject);
                }
            }
            let _ = writeln!(s);
        }
        s
    }
}

impl Matrix {
    /// One row of a chapter's table: a requirement's, or a clause's.
    fn row(&self, s: &mut String, name: &str, id: &str, level: Level, subject: Subject) {
        let none = BTreeSet::new();
        let scen = self.scenarios.get(id).unwrap_or(&none);
        let c = self.cited.get(id);
        let _ = writeln!(
            s,
            "| {name} | {} | {subject} | {} | {} | {} |",
            level.keyword(),
            list(scen, 3),
            list(c.map_or(&none, |c| &c.code), 3),
            list(c.map_or(&none, |c| &c.tests), 3),
        );
    }
}

/// The section "Power of the corpus" (issue 13's proof, `crate::faults`): for every leaf
/// MUST clause that binds a device or its CPU half, the fault that proves the suite checks
/// it and the scenario that catches it, the first in name order, or `—` while none does
/// (`corpus/tests/power/not-yet-proved.txt`). `proofs` are the registry's faults run on
/// their scenarios ([`faults::prove`](crate::faults::prove)). Appended after the
/// requirement table; kept apart from it.
pub fn power_section(proofs: &[crate::faults::Proof], spec: &Spec) -> String {
    let proved = crate::faults::proved(proofs);
    let through = crate::faults::proved_through(proofs, spec);
    let all: Vec<_> = crate::faults::must_clauses().collect();
    let mut s = String::new();
    let _ = writeln!(s, "\n## Power of the corpus\n");
    let _ = writeln!(
        s,
        "Each fault of the registry (`corpus/src/faults/`, `openrdma run --impl faulty:NAME`) is\n\
         the reference device with one bug. A MUST clause of a device or its CPU half is proved\n\
         when a fault that breaks it fails a scenario whose first divergence names that clause\n\
         or carries it as restating the clause named (`also_breaks`, CONF-CMP-118), or, for a\n\
         clause that restates or sums up clauses it cites (or that cite it) and that no check\n\
         declares, names one of those that the fault breaks too (shown \"through\" it).\n\
         Proved: {} of {} clauses ({} through another). Generated with the requirement table;\n\
         the test `corpus/tests/power.rs` keeps it true.\n",
        all.iter().filter(|c| proved.contains_key(c) || through.contains_key(c)).count(),
        all.len(),
        all.iter().filter(|c| through.contains_key(c)).count(),
    );
    let _ = writeln!(s, "| clause | fault | caught by |");
    let _ = writeln!(s, "|---|---|---|");
    for c in all {
        match proved.get(&c) {
            Some(p) => {
                let _ = writeln!(s, "| `{c}` | `{}` | `{}` |", p.fault.cli_name(), p.scenario);
            }
            None if through.contains_key(&c) => {
                let (p, named) = through[&c];
                let fault = p.fault.cli_name();
                let _ = writeln!(s, "| `{c}` | `{fault}` (through `{named}`) | `{}` |", p.scenario);
            }
            None => match crate::faults::UNPROVABLE.iter().find(|(u, _)| *u == c) {
                Some((_, why)) => {
                    let _ = writeln!(s, "| `{c}` | — (unprovable: {why}) | — |");
                }
                None => {
                    let _ = writeln!(s, "| `{c}` | — | — |");
                }
            },
        }
    }
    s
}

/// Up to `max` items in backticks, then a count of the rest; `—` when there are none.
fn list(items: &BTreeSet<String>, max: usize) -> String {
    if items.is_empty() {
        return "—".into();
    }
    let mut out: Vec<String> = items.iter().take(max).map(|i| format!("`{i}`")).collect();
    if items.len() > max {
        out.push(format!("and {} more", items.len() - max));
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_are_found_in_text_and_in_test_names() {
        assert_eq!(
            line_citations("fn xx_win_002_window_edges() { // see XX-DUP-001"),
            ["XX-DUP-001", "XX-WIN-002"]
        );
        assert_eq!(line_citations("fn xx_ipv4_003_checksum()"), ["XX-IPV4-003"]);
        assert!(line_citations("fn helper_for_tests()").is_empty());
        assert!(line_citations("UTF-8 and XX-WIN-02").is_empty());
    }

    #[test]
    fn clause_constants_are_citations_in_rust() {
        let mut spec = Spec::default();
        spec.add_chapter("x.md", "- **[XX-CD-001]** **(a)** It MUST. **(b)** It MAY.\n").unwrap();
        let line = "Divergence::of(t, crate::req::XX_CD_001_B, w); XX_CD_002; XX_CD_001_b";
        assert_eq!(constant_citations(line, &spec), ["XX-CD-001", "XX-CD-001.b"]);
        let sources = vec![
            SourceFile { path: "a/src/lib.rs".into(), text: "use req::XX_CD_001_A;\n".into() },
            SourceFile { path: "a/src/b.py".into(), text: "XX_CD_001 = 1\n".into() },
        ];
        let m = Matrix::build(&spec, &[], &sources);
        assert_eq!(m.cited["XX-CD-001.a"].code.len(), 1);
        assert_eq!(m.cited["XX-CD-001"].code.len(), 1, "only Rust names clause constants");
        assert!(m.undefined.is_empty());
    }

    #[test]
    fn test_files_are_told_from_code() {
        assert!(is_test_file("conformance/tests/file.rs"));
        assert!(is_test_file("codec/benches/codec.rs"));
        assert!(is_test_file("examples/cocotb-scoreboard/test_scoreboard.py"));
        assert!(!is_test_file("conformance/src/file.rs"));
        assert!(is_test_file("codec/src/wire/seth/tests.rs"));
        assert!(is_test_file("testkit/src/fuzzing/codec.rs"));
    }

    #[test]
    fn the_matrix_joins_scenarios_code_and_tests() {
        let mut spec = Spec::default();
        let chapter = "- **[XX-CD-001]** It MUST.\n- **[XX-CD-002]** It MUST.\n\n\
                       | subject | requirements |\n|---|---|\n| `suite` | `XX-CD-002` |\n";
        spec.add_chapter("x.md", chapter).unwrap();
        let sources = vec![
            SourceFile {
                path: "a/src/lib.rs".into(),
                text: "// XX-CD-001\n#[cfg(test)]\nfn xx_cd_002_x() {}\n".into(),
            },
            // An undefined ID, spelt at run time so that scanning this file does not cite it.
            SourceFile {
                path: "a/src/b.rs".into(),
                text: format!("// {}-RR-001 XX-YY-001\n", "QQ"),
            },
        ];
        let m = Matrix::build(&spec, &[], &sources);
        assert_eq!(m.cited["XX-CD-001"].code.len(), 1);
        assert!(m.cited["XX-CD-001"].tests.is_empty());
        assert_eq!(m.cited["XX-CD-002"].tests.len(), 1);
        assert_eq!(
            m.undefined,
            [Undefined { id: format!("{}-RR-001", "QQ"), at: "a/src/b.rs:1".into() }]
        );
        // XX-CD-001 binds the device and no scenario checks it; XX-CD-002 is tested.
        assert_eq!(m.unchecked(&spec), ["XX-CD-001"]);
        let md = m.render(&spec);
        assert!(md.contains("| `XX-CD-002` | MUST | suite | — | — | `a/src/lib.rs` |"), "{md}");
    }

    #[test]
    fn clauses_have_sub_rows_and_their_own_citations() {
        let mut spec = Spec::default();
        let chapter = "- **[XX-CD-001]** **(a)** It MUST. **(b)** It MAY.\n\n\
                       | subject | requirements |\n|---|---|\n| `host` | `XX-CD-001.b` |\n";
        spec.add_chapter("x.md", chapter).unwrap();
        let sources = vec![
            SourceFile { path: "a/src/lib.rs".into(), text: "// XX-CD-001.b\n".into() },
            SourceFile {
                path: "a/src/b.rs".into(),
                text: format!("// {}-CD-001.c, {}-EF-001.z\n", "QQ", "XX"),
            },
        ];
        let m = Matrix::build(&spec, &[], &sources);
        assert_eq!(m.cited["XX-CD-001.b"].code.len(), 1);
        assert_eq!(m.cited["XX-CD-001"].code.len(), 1, "a clause ID cites its line");
        assert_eq!(
            m.undefined.iter().map(|u| u.id.as_str()).collect::<Vec<_>>(),
            [format!("{}-CD-001", "QQ"), format!("{}-CD-001.c", "QQ")]
        );
        let md = m.render(&spec);
        assert!(md.contains("| `XX-CD-001` | MUST | device | — | `a/src/lib.rs` | — |"), "{md}");
        assert!(md.contains("| ↳ `XX-CD-001.a` | MUST | device | — | — | — |"), "{md}");
        assert!(md.contains("| ↳ `XX-CD-001.b` | MAY | host | — | `a/src/lib.rs` | — |"), "{md}");
        assert!(md.contains("Clauses: 1 requirements mark 2 clauses, 1 of them MUST."), "{md}");
    }
}
