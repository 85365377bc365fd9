//! The corpus is well formed: unique names, manifests that name live MUST or SHOULD
//! requirements and tag their checks with them, short scenarios, and a bounded size.

use std::collections::BTreeSet;

use openrdma_conformance::requirements::{Level, Spec};
use openrdma_conformance::scenario::{Body, Direction};
use openrdma_conformance::scoreboard::{render_event, render_frame};
use openrdma_conformance::{corpus, file};

#[test]
fn names_are_unique_and_match_their_manifests() {
    let mut seen = BTreeSet::new();
    for (name, build) in corpus::all() {
        assert!(seen.insert(name), "{name} is listed twice");
        let prefix = name.split('-').next().unwrap_or("");
        assert!(
            ["rcv", "snd", "db", "ev", "ret", "rec", "wire"].contains(&prefix),
            "{name}: a scenario name starts with rcv-, snd-, db-, ev-, ret-, rec- or wire-"
        );
        let s = build();
        assert_eq!(s.manifest.name, name);
    }
}

#[test]
fn manifests_name_requirements_in_force_and_checks_are_listed() {
    let spec = Spec::bundled().expect("the specification parses");
    let mut unlisted = BTreeSet::new();
    for (name, build) in corpus::all() {
        let s = build();
        let listed: BTreeSet<&str> = s.manifest.requirements.iter().map(String::as_str).collect();
        assert_eq!(listed.len(), s.manifest.requirements.len(), "{name}: an ID listed twice");
        for id in &listed {
            let r = spec.get(id).unwrap_or_else(|| panic!("{name}: {id} is not specified"));
            assert_ne!(r.level, Level::Withdrawn, "{name}: {id} is withdrawn");
        }
        for rec in s.records.iter().filter(|r| r.dir == Direction::Expect) {
            for id in &rec.checks {
                assert!(
                    spec.get(id).is_some_and(|r| r.level != Level::Withdrawn),
                    "{name}: a record checks {id}, which is not a requirement in force"
                );
                if !listed.contains(id.as_str()) {
                    unlisted.insert(format!("{name}: {id}"));
                }
            }
        }
    }
    assert!(unlisted.is_empty(), "records check IDs their manifests do not list: {unlisted:#?}");
}

#[test]
fn scenarios_are_short_and_the_corpus_is_small() {
    let mut bytes = 0usize;
    for (name, build) in corpus::all() {
        let s = build();
        let last = s.records.iter().map(|r| r.at.0).max().unwrap_or(0);
        assert!(last < 1_000_000, "{name} lasts {last} ns");
        let mut pcapng = Vec::new();
        file::write_scenario(&s, &mut pcapng).expect("the scenario writes");
        bytes += pcapng.len() + file::manifest_to_toml(&s.manifest).len();
    }
    println!("the corpus takes {bytes} bytes on disk");
    assert!(bytes < 2_000_000, "the corpus takes {bytes} bytes on disk");
}

/// Prints the records of the scenarios named in `CORPUS_DUMP` (comma-separated), for
/// writing and reviewing scenarios: `CORPUS_DUMP=rcv-probe cargo test --test corpus -- \
/// --ignored --nocapture`.
#[test]
#[ignore = "a tool for reading scenarios, not a check: CORPUS_DUMP=name ... -- --ignored"]
fn dump() {
    let want = std::env::var("CORPUS_DUMP").unwrap_or_default();
    let want: Vec<&str> = want.split(',').filter(|s| !s.is_empty()).collect();
    for (name, build) in corpus::all() {
        if !want.is_empty() && !want.contains(&name) {
            continue;
        }
        let s = build();
        println!("== {name}: {}", s.manifest.requirements.join(" "));
        for r in &s.records {
            let dir = match r.dir {
                Direction::Inject => "->",
                Direction::Expect => "<-",
            };
            let what = match &r.body {
                Body::Frame { port, bytes } => format!("port {port}: {}", render_frame(bytes)),
                Body::Host { command } => format!("host {}", short(&format!("{command:?}"))),
                Body::Cpu { command } => format!("cpu {command:?}"),
                Body::Event { event } => render_event(event),
            };
            let checks = if r.checks.is_empty() {
                String::new()
            } else {
                format!(" [{}]", r.checks.join(" "))
            };
            println!("{:>9} {dir} {what}{checks}", r.at.0);
        }
    }
}

fn short(s: &str) -> String {
    if s.len() > 160 { format!("{}...", &s[..160]) } else { s.to_string() }
}
