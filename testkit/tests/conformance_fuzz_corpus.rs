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

/// A small deterministic generator for mutations.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// The scenario loader's fuzz body never panics on mutations of its seeds: flipped bytes,
/// cuts and splices, all in the capture after the manifest.
#[test]
fn scenario_load_mutations() {
    let mut rng = Lcg(7);
    let mut mutated = 0;
    for (_, valid) in corpus("scenario_load") {
        let Some(base) = valid.iter().position(|&b| b == 0).map(|i| i + 1) else { continue };
        let len = valid.len() - base;
        if len == 0 {
            continue;
        }
        for _ in 0..500 {
            let mut v = valid.clone();
            match rng.next() % 3 {
                0 => {
                    for _ in 0..1 + rng.next() % 4 {
                        let i = base + (rng.next() as usize % len);
                        v[i] = rng.next() as u8;
                    }
                }
                1 => v.truncate(base + rng.next() as usize % len),
                _ => {
                    let i = base + (rng.next() as usize % len);
                    let j = base + (rng.next() as usize % len);
                    let (lo, hi) = (i.min(j), i.max(j));
                    v.drain(lo..hi);
                }
            }
            openrdma_testkit::fuzzing::scenario_load(&v);
            mutated += 1;
        }
    }
    assert!(mutated >= 1000, "only {mutated} mutations: too few seeds with a capture");
}

/// The judge's fuzz body over its seeds, and over each seed's every prefix that still picks
/// its scenario: judging changed outputs never panics.
#[test]
fn judge_outputs_corpus() {
    for (name, data) in corpus("judge_outputs") {
        eprintln!("{name}");
        for n in (0..=data.len()).step_by(7) {
            openrdma_testkit::fuzzing::judge_outputs(&data[..n]);
        }
    }
}
