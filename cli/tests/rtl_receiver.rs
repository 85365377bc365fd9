//! The RTL receiver example (`examples/rtl-receiver`): its Verilog, simulated by Verilator
//! behind a harness that speaks the adapter protocol, runs the whole corpus. The scenarios
//! within its scope pass, nothing fails, the rest are unsupported; and a copy built with a
//! deliberate bug fails, with a divergence naming the requirement it breaks.
//!
//! The test needs Verilator (and a C++17 compiler and `nlohmann-json3-dev`): it is ignored
//! by default and fails, rather than skips, when run with `--ignored` on a machine without
//! them. `.ci/run` installs them and runs it.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use common::*;
use openrdma_corpus as corpus;
use openrdma_device::Capability;
use serde_json::Value;

/// The receiver-reliability scenarios the RTL must pass.
const MUST_PASS: &[&str] = &[
    "rcv-window-edges",
    "rcv-sack-timer",
    "rcv-sack-coalesce",
    "rcv-psn-wrap",
    "rcv-segment-errors",
];

/// Builds the example into the test's scratch directory (`BUG` empty for the correct RTL)
/// and returns the harness.
fn build(out: &Path, bug: &str) -> std::path::PathBuf {
    let example = repo_path("examples/rtl-receiver");
    let status = Command::new("make")
        .arg("-C")
        .arg(&example)
        .arg("build")
        .arg(format!("OUT={}", out.display()))
        .arg(format!("BUG={bug}"))
        .status()
        .expect("run make");
    assert!(status.success(), "building the RTL receiver (BUG={bug:?}) failed");
    let dir = if bug.is_empty() { "build".to_string() } else { format!("build-{bug}") };
    out.join(dir).join("rtl-receiver-harness")
}

/// Runs the suite against `harness`; returns the exit status and the JSON report.
fn suite(harness: &Path, report: &Path) -> (Option<i32>, Value) {
    let out = openrdma(&[
        "run",
        "--json",
        report.to_str().unwrap(),
        "--impl",
        "process",
        "--",
        harness.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(report).unwrap_or_else(|e| {
        panic!("no report ({e}); stderr:\n{}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code(), serde_json::from_str(&text).expect("the report is JSON"))
}

/// Verdict and first divergence's requirement, per scenario.
fn verdicts(report: &Value) -> BTreeMap<String, (String, Option<String>)> {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| {
            let id = s["id"].as_str().unwrap().to_string();
            let verdict = s["verdict"].as_str().unwrap().to_string();
            let req = s["first_divergence"]["requirement"].as_str().map(String::from);
            (id, (verdict, req))
        })
        .collect()
}

/// What the example's scope.txt declines: requirements marked `declined`, and every
/// receiver requirement it does not list.
struct Scope {
    listed: BTreeMap<String, String>,
}

impl Scope {
    fn load() -> Scope {
        let text = std::fs::read_to_string(repo_path("examples/rtl-receiver/scope.txt")).unwrap();
        let listed = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| {
                let mut w = l.split_whitespace();
                (w.next().unwrap().to_string(), w.next().unwrap().to_string())
            })
            .collect();
        Scope { listed }
    }

    fn declines(&self, id: &str) -> bool {
        match self.listed.get(id) {
            Some(status) => status == "declined",
            None => id.starts_with("RCV-"),
        }
    }
}

#[test]
#[ignore = "needs verilator; run by .ci/run"]
fn rtl_receiver_passes_its_scope_and_a_broken_copy_fails() {
    let verilator = Command::new("verilator").arg("--version").output();
    assert!(
        verilator.is_ok_and(|o| o.status.success()),
        "verilator is not installed (apt-get install verilator yosys nlohmann-json3-dev)"
    );
    let out = scratch("rtl-receiver");
    std::fs::create_dir_all(&out).unwrap();

    // The correct RTL: in scope means the device has every capability the scenario needs
    // and implements every requirement it lists.
    let harness = build(&out, "");
    let (status, report) = suite(&harness, &out.join("report.json"));
    let got = verdicts(&report);
    let scope = Scope::load();
    let claimed: BTreeSet<Capability> =
        [Capability::Responder, Capability::Ipv4, Capability::Ipv6].into_iter().collect();
    let mut in_scope = BTreeSet::new();
    for (name, build) in corpus::all() {
        let m = build().manifest;
        if m.requires.is_subset(&claimed) && !m.requirements.iter().any(|r| scope.declines(r)) {
            in_scope.insert(name.to_string());
        }
    }
    assert_eq!(got.len(), corpus::all().len(), "every scenario has a verdict");
    for (name, (verdict, req)) in &got {
        let want = if in_scope.contains(name) { "pass" } else { "unsupported" };
        assert_eq!(verdict, want, "{name}: first divergence {req:?}");
    }
    for name in MUST_PASS {
        assert_eq!(got[*name].0, "pass", "{name} is a receiver-reliability scenario");
    }
    assert_eq!(status, Some(0), "the suite fails nothing");

    // The broken copy: epsn slides to a PSN that arrives ahead of it. The suite fails it,
    // and the divergence names the rule that says how epsn advances: the SACK's false
    // cumulative PSN is the symptom, the copy of the skipped PSN placed nowhere the proof.
    let broken = build(&out, "window-slides");
    let (status, report) = suite(&broken, &out.join("report-broken.json"));
    let got = verdicts(&report);
    assert_eq!(status, Some(1), "the suite fails the broken RTL");
    let failed: Vec<_> = got.iter().filter(|(_, (v, _))| v == "fail").collect();
    assert!(
        failed.iter().any(|(_, (_, req))| req.as_deref() == Some("RCV-WIN-003")),
        "no failure names RCV-WIN-003: {failed:?}"
    );
    assert_eq!(got["rcv-window-edges"].0, "fail", "PSN 127 before PSN 0 slides the window");
}
