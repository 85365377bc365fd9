//! The clause constants and their table (`src/req/ids.rs`, `src/req/table.rs` and the
//! files of `src/req/ids/` and `src/req/table/`) are generated from the specification and
//! must be up to date: this test renders them from `spec/` and compares. Run with
//! `OPENRDMA_BLESS=1` to write them instead.
//!
//! Clause letters are frozen (spec/README.md, "How a requirement is written"): before
//! comparing or writing, the test checks that every clause of the committed table is still
//! defined, with the same level unless its line was withdrawn, and that a line marked there
//! has the same clauses. Marking a line that had no clauses is allowed.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use openrdma_conformance::requirements::{ClauseRef, Level, Spec};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the crate lives in the repository")
}

fn req_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/req")
}

const HEADER: &str = "\n//!\n//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.";

/// The module name of a chapter: `wire-format.md` gives `wire_format`.
fn module(chapter: &str) -> String {
    chapter.trim_end_matches(".md").replace('-', "_")
}

/// The constant name of a clause ID: `XX-ACK-002.b` gives `XX_ACK_002_B`.
fn constant(id: &str) -> String {
    id.replace(['-', '.'], "_").to_ascii_uppercase()
}

fn level(l: Level) -> &'static str {
    match l {
        Level::Must => "Must",
        Level::Should => "Should",
        Level::May => "May",
        Level::Withdrawn => "Withdrawn",
    }
}

fn subject(c: &ClauseRef<'_>) -> String {
    format!("{:?}", c.subject())
}

/// The clauses of each chapter, chapters by file name, clauses by line, a line before its
/// clauses.
fn by_chapter(spec: &Spec) -> BTreeMap<String, Vec<ClauseRef<'_>>> {
    let mut out: BTreeMap<String, Vec<ClauseRef<'_>>> = BTreeMap::new();
    for c in spec.clauses() {
        out.entry(c.requirement.chapter.clone()).or_default().push(c);
    }
    for v in out.values_mut() {
        v.sort_by_key(|c| (c.requirement.line, c.part.map(|p| p.letter)));
    }
    out
}

/// The doc line of a clause's constant.
fn doc(c: &ClauseRef<'_>) -> String {
    let r = c.requirement;
    let what = match (c.part, r.parts.first(), r.parts.last()) {
        (None, Some(a), Some(z)) => {
            format!("`{}`, its clauses ({}) to ({}) together", r.id, a.letter, z.letter)
        }
        _ => format!("`{}`", c.id()),
    };
    if c.level() == Level::Withdrawn {
        format!("/// {what}: withdrawn.")
    } else {
        format!("/// {what}: {}, {}.", c.level().keyword(), c.subject())
    }
}

/// The note of a withdrawn clause's `#[deprecated]`: the withdrawal sentence.
fn withdrawal(c: &ClauseRef<'_>) -> String {
    let note = c.requirement.preamble.as_str();
    let note = if note.is_empty() { c.requirement.text.as_str() } else { note };
    note.trim().trim_matches(['*', '_']).to_string()
}

/// The items of a `use`, in braces when there are several.
fn braced<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    match items.as_slice() {
        [one] => (*one).to_string(),
        _ => format!("{{{}}}", items.join(", ")),
    }
}

/// Every generated file, by its path under `src/req`.
fn render(spec: &Spec) -> BTreeMap<PathBuf, String> {
    let chapters = by_chapter(spec);
    let mut files = BTreeMap::new();
    let mut n = 0usize;
    let mut ids_rs = format!("//! The clause constants, by chapter.{HEADER}\n\n");
    let mut table_rs = format!(
        "//! The table behind the clause constants, by chapter.{HEADER}\n\nuse super::Info;\n\n"
    );
    for chapter in chapters.keys() {
        let m = module(chapter);
        let _ = writeln!(ids_rs, "mod {m};");
        let _ = writeln!(table_rs, "mod {m};");
    }
    ids_rs.push('\n');
    table_rs.push('\n');
    for (chapter, clauses) in &chapters {
        let m = module(chapter);
        let _ = writeln!(ids_rs, "pub use {m}::*;");
        let mut ids =
            format!("//! The clauses of `{chapter}`.{HEADER}\n\nuse crate::req::Clause;\n\n");
        let mut rows = String::new();
        let mut used = BTreeSet::new();
        let mut levels = BTreeSet::new();
        let mut subjects = BTreeSet::new();
        for c in clauses {
            let id = c.id();
            let _ = writeln!(ids, "{}", doc(c));
            if c.level() == Level::Withdrawn {
                let _ = writeln!(ids, "#[deprecated = {:?}]", withdrawal(c));
            }
            let _ = writeln!(ids, "pub const {}: Clause = Clause({n});", constant(&id));
            let (l, s) = (level(c.level()), subject(c));
            let row = match c.part {
                Some(p) => {
                    used.insert("part");
                    format!("part({id:?}, {:?}, '{}', {l}, {s})", c.requirement.id, p.letter)
                }
                None if c.is_leaf() => {
                    used.insert("line");
                    format!("line({id:?}, {l}, {s})")
                }
                None => {
                    used.insert("whole");
                    format!("whole({id:?}, {l}, {s})")
                }
            };
            levels.insert(l);
            subjects.insert(s);
            let _ = writeln!(rows, "    {row},");
            n += 1;
        }
        let fns: Vec<&str> = used.into_iter().collect();
        let levels: Vec<&str> = levels.into_iter().collect();
        let subjects: Vec<String> = subjects.into_iter().collect();
        let table = format!(
            "//! The clauses of `{chapter}`.{HEADER}\n\n\
             use crate::req::{{Info, {}}};\n\
             use crate::requirements::Level::{};\n\
             use crate::requirements::Subject::{};\n\n\
             pub(in crate::req) static CLAUSES: [Info; {}] = [\n{rows}];\n",
            fns.join(", "),
            braced(&levels),
            braced(&subjects),
            clauses.len()
        );
        files.insert(PathBuf::from(format!("ids/{m}.rs")), ids);
        files.insert(PathBuf::from(format!("table/{m}.rs")), table);
    }
    let _ = writeln!(table_rs, "/// The number of clauses.\npub(super) const COUNT: u16 = {n};\n");
    let _ = writeln!(
        table_rs,
        "/// Each chapter's clauses, in [`Clause`](super::Clause) order.\n\
         pub(super) static CHAPTERS: [&[Info]; {}] = [",
        chapters.len()
    );
    for chapter in chapters.keys() {
        let _ = writeln!(table_rs, "    &{}::CLAUSES,", module(chapter));
    }
    table_rs.push_str("];\n");
    files.insert(PathBuf::from("ids.rs"), ids_rs);
    files.insert(PathBuf::from("table.rs"), table_rs);
    files
}

/// The generated files now in `src/req`, by path under it.
fn committed() -> BTreeMap<PathBuf, String> {
    let dir = req_dir();
    let mut out = BTreeMap::new();
    let mut add = |rel: PathBuf| {
        if let Ok(text) = std::fs::read_to_string(dir.join(&rel)) {
            out.insert(rel, text);
        }
    };
    add(PathBuf::from("ids.rs"));
    add(PathBuf::from("table.rs"));
    for sub in ["ids", "table"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else { continue };
        for e in entries.filter_map(Result::ok) {
            add(Path::new(sub).join(e.file_name()));
        }
    }
    out
}

/// The rows of committed tables: clause ID → (level, letters of its line's clauses).
fn rows(files: &BTreeMap<PathBuf, String>) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    for (path, text) in files {
        if !path.starts_with("table") || path == Path::new("table.rs") {
            continue;
        }
        for line in text.lines().map(str::trim) {
            let Some((kind, rest)) = line.split_once('(') else { continue };
            if !matches!(kind, "line" | "whole" | "part") {
                continue;
            }
            let fields: Vec<&str> = rest.trim_end_matches("),").split(", ").collect();
            let id = fields[0].trim_matches('"').to_string();
            let level = fields[fields.len() - 2].to_string();
            out.insert(id, (level, kind.to_string()));
        }
    }
    out
}

/// Clause letters are frozen: what the committed table defines must stay defined.
fn check_frozen(spec: &Spec, committed: &BTreeMap<PathBuf, String>) -> Vec<String> {
    let old = rows(committed);
    let mut problems = Vec::new();
    for (id, (level, kind)) in &old {
        let Some(c) = spec.clause(id) else {
            problems.push(format!("{id} was defined and is no longer"));
            continue;
        };
        let now = self::level(c.level());
        if now != level && now != "Withdrawn" {
            problems.push(format!("{id} was {level} and is now {now}: that takes a new ID"));
        }
        if kind == "whole" {
            let letters = |prefix: &str| -> BTreeSet<String> {
                old.keys().filter(|k| k.starts_with(&format!("{prefix}."))).cloned().collect()
            };
            let now: BTreeSet<String> = c
                .requirement
                .parts
                .iter()
                .map(|p| format!("{}.{}", c.requirement.id, p.letter))
                .collect();
            if letters(id) != now {
                problems.push(format!("the clauses of {id} changed: they are frozen"));
            }
        }
    }
    problems
}

#[test]
fn the_clause_constants_are_up_to_date() {
    let spec = Spec::load(&root().join("spec")).expect("the specification parses");
    let committed = committed();
    let problems = check_frozen(&spec, &committed);
    assert!(problems.is_empty(), "clause letters are frozen:\n{}", problems.join("\n"));
    let rendered = render(&spec);
    if std::env::var_os("OPENRDMA_BLESS").is_some() {
        for stale in committed.keys().filter(|p| !rendered.contains_key(*p)) {
            std::fs::remove_file(req_dir().join(stale)).expect("a stale file can be removed");
        }
        for (path, text) in &rendered {
            let path = req_dir().join(path);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).expect("src/req can be created");
            }
            std::fs::write(&path, text).expect("src/req can be written");
        }
        return;
    }
    let differ: Vec<String> = rendered
        .keys()
        .chain(committed.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|p| rendered.get(*p) != committed.get(*p))
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        differ.is_empty(),
        "src/req is out of date ({}): regenerate it with \
         `OPENRDMA_BLESS=1 cargo test -p openrdma-conformance --test req_ids`",
        differ.join(", ")
    );
}

#[test]
fn a_frozen_clause_may_not_change() {
    let marked = "- **[XX-YY-001]** **(a)** It MUST. **(b)** It MAY.\n";
    let mut spec = Spec::default();
    spec.add_chapter("x.md", marked).unwrap();
    let files = render(&spec);
    let changed = |line: &str| {
        let mut s = Spec::default();
        s.add_chapter("x.md", line).unwrap();
        check_frozen(&s, &files)
    };
    assert!(changed(marked).is_empty());
    assert!(
        !changed("- **[XX-YY-001]** **(a)** It MUST. **(b)** It MAY. **(c)** It MAY.\n").is_empty()
    );
    assert!(!changed("- **[XX-YY-001]** **(a)** It MUST. **(b)** It SHOULD.\n").is_empty());
    assert!(!changed("- **[XX-YY-002]** It MUST.\n").is_empty());
    assert!(changed("- **[XX-YY-001]** *Withdrawn in 0.2.0.* **(a)** **(b)**\n").is_empty());
    // Marking a line that had no clauses is allowed.
    let mut plain = Spec::default();
    plain.add_chapter("x.md", "- **[XX-YY-001]** It MUST and MUST NOT.\n").unwrap();
    let files = render(&plain);
    assert!(check_frozen(&spec, &files).is_empty());
}
