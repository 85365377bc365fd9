//! The model's fuzz bodies run over the committed seed corpora (and the minimized crashers
//! kept there as regression inputs) in ordinary `cargo test`.

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

/// Runs `body` on every file of `target`'s corpus, and on every prefix of each file: a
/// program cut short anywhere is a program too.
fn replay(target: &str, body: fn(&[u8])) {
    let c = corpus(target);
    assert!(!c.is_empty(), "no seeds for {target}");
    for (name, data) in c {
        eprintln!("{name}");
        body(&data);
        for n in (0..data.len()).step_by(7) {
            body(&data[..n]);
        }
    }
}

#[test]
fn receiver_corpus() {
    replay("receiver", openrdma_testkit::fuzzing::receiver);
}

#[test]
fn sender_corpus() {
    replay("sender", openrdma_testkit::fuzzing::sender);
}

#[test]
fn pair_corpus() {
    replay("pair", openrdma_testkit::fuzzing::pair);
}

#[test]
fn doorbell_corpus() {
    replay("doorbell", openrdma_testkit::fuzzing::doorbell);
}
