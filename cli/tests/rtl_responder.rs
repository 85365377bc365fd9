//! The RTL responder example (`examples/rtl-responder`): a whole MRC responder in Verilog,
//! simulated by Verilator behind a harness that passes frames and bus writes through, runs
//! the whole corpus. Every scenario within its capabilities passes, the rest are
//! unsupported; each deliberately broken build fails, with a first divergence that names
//! the requirement its bug breaks.
//!
//! Every build is at the example's defaults, as a hardware team would build it: 512-bit
//! frame interfaces and bus, posted writes of at most 256 bytes (so a packet's payload may
//! take several, which CONF-CMP-034 allows), and a 4 ns clock (250 MHz), held to the
//! latency the spec gives a device (CONF-TIME-004).
//!
//! The test needs Verilator (and a C++17 compiler and `nlohmann-json3-dev`): it is ignored
//! by default and fails, rather than skips, when run with `--ignored` on a machine without
//! them. `.ci/run` installs them and runs it.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use openrdma_corpus as corpus;
use openrdma_device::{Body, Capability, HostCommand, RetirementMode, Scenario};
use serde_json::Value;

/// The broken builds, the scenario each must fail and the requirement its first divergence
/// must name there.
const CAUGHT: &[(&str, &str, &str)] = &[
    ("window-slides", "rcv-window-edges", "RCV-WIN-003"),
    ("bitmap-off-by-one", "rcv-sack-triggers", "SETH-BITMAP-002"),
    ("flag-before-data", "rcv-in-order-v4", "FLAG-ORDER-001"),
    ("icrc-no-mask", "rcv-window-edges", "ICRC-MASK-001"),
    // The register-width scenarios: bytes above 2^32 land at their address modulo 2^32, and
    // the packets of a message past 65535 bytes are refused, so they land nowhere.
    ("addr-32", "rcv-va-high", "RCV-PLACE-003"),
    ("len-16", "rcv-length-17bit", "RCV-PLACE-003"),
];

/// Builds the example into `out` and returns the harness.
fn build(out: &Path, bug: &str) -> PathBuf {
    let status = Command::new("make")
        .arg("-C")
        .arg(repo_path("examples/rtl-responder"))
        .arg("build")
        .arg(format!("OUT={}", out.display()))
        .arg(format!("BUG={bug}"))
        .status()
        .expect("run make");
    assert!(status.success(), "building the RTL responder (BUG={bug:?}) failed");
    let dir = if bug.is_empty() { "build".to_string() } else { format!("build-{bug}") };
    out.join(dir).join("rtl-responder-harness")
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

/// The scenarios that require only what the responder claims.
fn in_scope() -> BTreeSet<String> {
    use Capability::*;
    let claimed: BTreeSet<Capability> = [
        Responder,
        Retirement,
        SharedRetirement,
        PerQpRetirement,
        WriteImmediate,
        CompletionQueues,
        Ipv4,
        Ipv6,
        Paths,
    ]
    .into_iter()
    .collect();
    corpus::all()
        .into_iter()
        .filter(|(_, build)| {
            let s = build();
            s.manifest.requires.is_subset(&claimed) && one_shared_domain(&s)
        })
        .map(|(name, _)| name.to_string())
        .collect()
}

/// Whether the scenario fits the responder's one domain of shared retirement: it runs in
/// per-QP retirement, or every QP it creates is in one domain. The RTL refuses a QP of a
/// second shared domain, and the harness declines such a scenario as unsupported.
fn one_shared_domain(s: &Scenario) -> bool {
    if s.manifest.nic.retirement == RetirementMode::PerQp {
        return true;
    }
    let domains: BTreeSet<u32> = s
        .records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Host { command: HostCommand::CreateQp(q) } => Some(q.domain.value()),
            _ => None,
        })
        .collect();
    domains.len() <= 1
}

#[test]
#[ignore = "needs verilator; .ci/run installs it"]
fn rtl_responder_passes_its_scope_and_every_broken_build_fails() {
    let verilator = Command::new("verilator").arg("--version").output();
    assert!(
        verilator.is_ok_and(|o| o.status.success()),
        "verilator is not installed (apt-get install verilator yosys nlohmann-json3-dev)"
    );
    let scope = in_scope();
    assert!(scope.len() >= 30, "the responder's scope shrank: {scope:?}");

    // Every scenario in scope passes, the rest are unsupported.
    let out = scratch("rtl-responder");
    let harness = build(&out, "");
    let (status, report) = suite(&harness, &out.join("report.json"));
    let got = verdicts(&report);
    assert_eq!(got.len(), corpus::all().len(), "every scenario has a verdict");
    for (name, (verdict, req)) in &got {
        let want = if scope.contains(name) { "pass" } else { "unsupported" };
        assert_eq!(verdict, want, "{name}: first divergence {req:?}");
    }
    assert_eq!(status, Some(0), "the suite fails nothing");

    // Each broken build fails, and names the requirement its bug breaks.
    for (bug, scenario, requirement) in CAUGHT {
        let harness = build(&out, bug);
        let (status, report) = suite(&harness, &out.join(format!("report-{bug}.json")));
        let got = verdicts(&report);
        assert_eq!(status, Some(1), "the suite fails BUG={bug}");
        assert_eq!(got[*scenario].0, "fail", "BUG={bug} fails {scenario}");
        assert_eq!(
            got[*scenario].1.as_deref(),
            Some(*requirement),
            "BUG={bug}: the first divergence of {scenario}"
        );
    }
}
