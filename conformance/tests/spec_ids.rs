//! Every requirement ID that the code cites is defined in `spec/`, exactly once.

use std::path::{Path, PathBuf};

use openrdma_conformance::requirements::{Spec, find_ids};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_cited_requirement_is_specified() {
    let spec = Spec::bundled().expect("the specification parses");
    assert!(spec.len() > 100, "only {} requirements found", spec.len());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for crate_dir in
        ["codec/src", "state-machines/src", "sim/src", "conformance/src", "cli/src", "capi/src"]
    {
        let d = root.join(crate_dir);
        if d.exists() {
            rust_files(&d, &mut files);
        }
    }
    let mut missing = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for id in find_ids(line) {
                // Test fixtures in this module's own unit tests use made-up IDs.
                if id.starts_with("XX-YY-") {
                    continue;
                }
                if spec.get(id).is_none() {
                    missing.push(format!(
                        "{}:{}: {id}",
                        f.strip_prefix(&root).unwrap_or(f).display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "{} cited IDs are not in spec/:\n{}",
        missing.len(),
        missing.join("\n")
    );
}
