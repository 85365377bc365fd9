//! The fuzz bodies run over the committed seed corpora in ordinary `cargo test`.

use std::fs;
use std::path::Path;

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus").join(target);
    let mut out = Vec::new();
    for e in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        out.push((p.display().to_string(), fs::read(&p).unwrap()));
    }
    out.sort();
    out
}

#[test]
fn frame_decode_corpus() {
    let c = corpus("frame_decode");
    assert!(!c.is_empty());
    for (name, data) in c {
        eprintln!("{name}");
        openrdma_testkit::fuzzing::frame_decode(&data);
        // Every prefix too: truncation anywhere must be handled.
        for n in 0..data.len() {
            openrdma_testkit::fuzzing::frame_decode(&data[..n]);
        }
    }
}

#[test]
fn repr_roundtrip_corpus() {
    let c = corpus("repr_roundtrip");
    assert!(!c.is_empty());
    for (name, data) in c {
        eprintln!("{name}");
        openrdma_testkit::fuzzing::repr_roundtrip(&data);
        // Every suffix too: the same records, read from another starting point.
        for n in 1..data.len().min(64) {
            openrdma_testkit::fuzzing::repr_roundtrip(&data[n..]);
        }
    }
}
