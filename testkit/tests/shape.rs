//! The size rules of the workspace's libraries (issue-level design rule: a reader finds a
//! piece of logic by name, in a file short enough to read): no function longer than
//! [`MAX_FN_LINES`] lines and no source file longer than [`MAX_FILE_LINES`] lines, in the
//! `src/` of every crate of the workspace. Tests, benchmarks and examples are not held to
//! it.
//!
//! The scan relies on rustfmt's layout, which `cargo fmt --check` enforces: an item's
//! closing brace sits alone on a line at the indentation of the line that opened it.

use std::fs;
use std::path::{Path, PathBuf};

/// The longest a function may be, from its `fn` line to its closing brace.
const MAX_FN_LINES: usize = 150;
/// The longest a source file may be.
const MAX_FILE_LINES: usize = 1000;

/// The crates whose `src/` is held to the rules.
const CRATES: &[&str] = &[
    "codec",
    "device",
    "state-machines",
    "sim",
    "conformance",
    "corpus",
    "cli",
    "capi",
    "testkit",
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("testkit sits in the workspace").into()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The name of the function `line` opens, if it opens one: `fn name` after optional
/// visibility and qualifiers.
fn fn_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    loop {
        let before = rest;
        for prefix in ["pub ", "const ", "async ", "unsafe ", "extern \"C\" ", "default "] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        if rest.starts_with("pub(") {
            rest = rest.split_once(") ").map_or(rest, |(_, r)| r);
        }
        if rest == before {
            break;
        }
    }
    let name = rest.strip_prefix("fn ")?;
    let end = name.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(name.len());
    (end > 0).then(|| &name[..end])
}

/// Every function of `text` with its first line (1-based) and its length in lines.
fn functions(text: &str) -> Vec<(&str, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        let indent = &line[..line.len() - line.trim_start().len()];
        // The signature ends at the line that opens the body, or at `;` (no body).
        let Some(open) = (i..lines.len()).find(|&j| {
            let t = lines[j].trim_end();
            t.ends_with('{') || t.ends_with(';') || t.ends_with('}')
        }) else {
            continue;
        };
        let t = lines[open].trim_end();
        if t.ends_with(';') {
            continue;
        }
        if t.ends_with('}') && open == i {
            found.push((name, i + 1, 1));
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = (open..lines.len()).find(|&j| lines[j].trim_end() == close) {
            found.push((name, i + 1, end - i + 1));
        }
    }
    found
}

#[test]
fn no_library_function_or_file_is_too_long() {
    let root = workspace_root();
    let mut files = Vec::new();
    for krate in CRATES {
        rust_files(&root.join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 50, "the scan found only {} files", files.len());
    let mut too_long = Vec::new();
    let mut functions_seen = 0;
    for path in &files {
        let text = fs::read_to_string(path).expect("a source file is text");
        let shown = path.strip_prefix(&root).unwrap_or(path).display().to_string();
        let n = text.lines().count();
        if n > MAX_FILE_LINES {
            too_long.push(format!("{shown}: {n} lines (at most {MAX_FILE_LINES})"));
        }
        for (name, line, len) in functions(&text) {
            functions_seen += 1;
            if len > MAX_FN_LINES {
                too_long.push(format!(
                    "{shown}:{line}: fn {name} is {len} lines (at most {MAX_FN_LINES})"
                ));
            }
        }
    }
    assert!(functions_seen > 1000, "the scan found only {functions_seen} functions");
    assert!(too_long.is_empty(), "split these:\n{}", too_long.join("\n"));
}

#[test]
fn the_scan_measures_functions_as_rustfmt_lays_them_out() {
    let text = "\
fn one() -> u8 { 1 }
pub(crate) fn two(
    a: u8,
) -> u8 {
    a
}
impl X {
    pub const unsafe fn three(&self) {
        let _ = 1;
    }
}
trait T {
    fn four(&self);
}
";
    assert_eq!(functions(text), vec![("one", 1, 1), ("two", 2, 5), ("three", 8, 3)]);
    assert_eq!(fn_name("    pub extern \"C\" fn openrdma_x(p: *mut u8) {"), Some("openrdma_x"));
    assert_eq!(fn_name("    // fn not_code()"), None);
    assert_eq!(fn_name("let f = fn_ptr;"), None);
}
