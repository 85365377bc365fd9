//! The conformance suite's fuzz bodies run over their committed seeds in `cargo test`.

use std::path::Path;

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus").join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let p = e.unwrap().path();
            (p.display().to_string(), std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no seeds for {target}");
    out
}

#[test]
fn scenario_load_corpus() {
    for (name, data) in corpus("scenario_load") {
        eprintln!("{name}");
        openrdma_testkit::fuzzing::scenario_load(&data);
        // Truncations anywhere, at a stride.
        for n in (0..data.len()).step_by(97) {
            openrdma_testkit::fuzzing::scenario_load(&data[..n]);
        }
    }
}

#[test]
fn adapter_decode_corpus() {
    for (name, data) in corpus("adapter_decode") {
        eprintln!("{name}");
        openrdma_testkit::fuzzing::adapter_decode(&data);
        for n in 0..data.len() {
            openrdma_testkit::fuzzing::adapter_decode(&data[..n]);
        }
    }
}
