//! Prints one line per run of the registry on the corpus: the reference device on every
//! scenario, then each entry on the scenarios the proof runs it on, each with its verdict
//! and a CRC of the whole judgement (every divergence, in order). A refactor of the judge
//! that leaves this output unchanged changes no verdict and no byte of any report.
//!
//! With `all`, each entry is run on every scenario, not only those the proof runs it on.
//!
//! `cargo run --release -p openrdma-corpus --example fingerprint -- [THREADS] [all] > before.txt`

use std::sync::Mutex;

use openrdma_conformance::judge::{Judgement, Scope};
use openrdma_conformance::runner::run;
use openrdma_corpus::faults::{self, Mutant};
use openrdma_device::{Device, Scenario};
use openrdma_sm::{ReferenceDevice, reference_cpu_half};

fn judged(dev: &mut dyn Device, s: &Scenario) -> String {
    let caps = dev.capabilities();
    if !s.manifest.requires.is_subset(&caps) {
        return "unsupported".into();
    }
    let out = run(dev, s, reference_cpu_half);
    if let Some(e) = &out.error {
        return format!("error {e}");
    }
    let j: Judgement = out.judge(s, Scope::of(&caps));
    let json = serde_json::to_string(&j).unwrap_or_default();
    let first = j.divergences.first().map_or("-", |d| d.requirement.as_str()).to_string();
    format!(
        "{} {} {first} {:08x}",
        j.checked,
        j.divergences.len(),
        crc32fast::hash(json.as_bytes())
    )
}

fn main() {
    let threads: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let every = std::env::args().nth(2).is_some_and(|a| a == "all");
    let corpus: Vec<Scenario> = openrdma_corpus::all().into_iter().map(|(_, b)| b()).collect();
    let mut jobs: Vec<(Option<&'static faults::Fault>, &Scenario)> =
        corpus.iter().map(|s| (None, s)).collect();
    for f in faults::all() {
        if every {
            jobs.extend(corpus.iter().map(|s| (Some(f), s)));
        } else {
            jobs.extend(faults::catches(f, &corpus).into_iter().flatten().map(|s| (Some(f), s)));
        }
    }
    let next = Mutex::new(0usize);
    let lines: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let k = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(&(f, s)) = jobs.get(k) else { break };
                    let (name, line) = match f {
                        None => ("reference".to_string(), judged(&mut ReferenceDevice::new(), s)),
                        Some(f) => (f.cli_name(), judged(&mut Mutant::new(f), s)),
                    };
                    let l = format!("{name} {} {line}", s.manifest.name);
                    lines.lock().unwrap().push((k, l));
                }
            });
        }
    });
    let mut lines = lines.into_inner().unwrap();
    lines.sort_by_key(|(k, _)| *k);
    for (_, l) in lines {
        println!("{l}");
    }
}
