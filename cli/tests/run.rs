//! `openrdma run`, `check` and `traces` end to end.

use std::path::{Path, PathBuf};
use std::process::Command;

fn openrdma() -> Command {
    Command::new(env!("CARGO_BIN_EXE_openrdma"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("openrdma-run-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// CONF-REP-004: a run in which nothing fails exits with 0; CONF-REP-002 and CONF-REP-003:
/// the JSON and JUnit reports it writes.
#[test]
fn reference_passes_and_reports_coverage() {
    let dir = tmp("ref");
    let (json, junit) = (dir.join("r.json"), dir.join("r.xml"));
    let out =
        openrdma().arg("run").arg("--json").arg(&json).arg("--junit").arg(&junit).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains(" 0 fail"), "{text}");
    assert!(text.contains("requirement coverage:"), "{text}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["summary"]["fail"], 0);
    assert!(v["summary"]["pass"].as_u64().unwrap() > 0);
    for s in v["scenarios"].as_array().unwrap() {
        assert!(s["id"].is_string() && s["verdict"] == "pass" && s["requirements"].is_array());
    }
    assert!(v["coverage"]["total"].as_u64().unwrap() > 100);
    assert!(v["coverage"]["uncovered"].is_array());
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml") && xml.contains("<testsuite name=\"openrdma-conformance\""));
    // The reference's report is pinned (scenario order, verdicts, checked counts, coverage).
    let mut v = v;
    v["coverage"]["by_requirement"] = serde_json::Value::Null;
    insta::with_settings!({ snapshot_path => "../../golden/conformance", prepend_module_to_snapshot => false }, {
        insta::assert_json_snapshot!("reference_report", v);
    });
}

/// CONF-REP-004: a run in which a scenario fails exits with 1; CONF-REP-001: the table
/// shows its first divergence with the requirement.
#[test]
fn a_faulty_device_fails_with_the_first_divergence_explained() {
    let out = openrdma()
        .args(["run", "--impl", "faulty:go-back-n", "--scenario", "snd-*"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("fail"), "{text}");
    assert!(text.contains("first divergence at"), "{text}");
    assert!(text.contains("[SND-RTX-004]"), "{text}");
    assert!(text.contains("actual:"), "{text}");
}

/// CONF-REP-004: a run that cannot start exits with 2.
#[test]
fn list_impls_and_bad_arguments() {
    let out = openrdma().args(["run", "--list-impls"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.lines().filter(|l| l.starts_with("faulty:")).count() >= 10, "{text}");
    assert!(text.lines().any(|l| l.starts_with("variant:")), "{text}");
    // The faulty devices and variants listed are the entries of the fault registry.
    let listed: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("faulty:") || l.starts_with("variant:"))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let registry: Vec<String> = openrdma_corpus::faults::all().map(|f| f.cli_name()).collect();
    assert_eq!(listed.len(), registry.len(), "{text}");
    assert!(registry.iter().all(|n| listed.contains(&n.as_str())), "{text}");
    let out = openrdma().args(["run", "--impl", "faulty:nonsense"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown implementation"));
    let out = openrdma().args(["run", "--scenario", "no-such-*"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// CONF-GEN-001: regenerating the corpus reproduces the committed files byte for byte.
#[test]
fn committed_traces_are_reproducible() {
    let dir = tmp("regen");
    let out = openrdma().args(["traces", "regenerate", "--out"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let committed = repo().join("traces/scenarios");
    let mut names: Vec<_> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    let mut committed_names: Vec<_> =
        std::fs::read_dir(&committed).unwrap().map(|e| e.unwrap().file_name()).collect();
    committed_names.sort();
    assert_eq!(
        names, committed_names,
        "run `openrdma traces regenerate` and commit traces/scenarios"
    );
    for n in names {
        let a = std::fs::read(dir.join(&n)).unwrap();
        let b = std::fs::read(committed.join(&n)).unwrap();
        assert!(a == b, "{n:?} differs from the committed file: run `openrdma traces regenerate`");
    }
}

#[test]
fn committed_traces_pass_from_disk_and_check_judges_captures() {
    let dir = repo().join("traces/scenarios");
    let out = openrdma().arg("run").arg("--traces").arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    // A scenario's own pcapng holds the reference's outputs: checking it against the
    // scenario passes.
    let s = dir.join("rcv-psn-wrap");
    let out = openrdma()
        .arg("check")
        .arg(&s)
        .arg("--observed")
        .arg(dir.join("rcv-psn-wrap.pcapng"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    // Another scenario's outputs do not.
    let out = openrdma()
        .arg("check")
        .arg(&s)
        .arg("--observed")
        .arg(dir.join("rcv-in-order-v4.pcapng"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn the_suite_runs_through_the_process_adapter() {
    let bin = env!("CARGO_BIN_EXE_openrdma");
    let out = openrdma()
        .args(["run", "--impl", "process", "--scenario", "rcv-*", "--", bin, "serve"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains(" 0 fail"), "{text}");
    // A faulty device behind the adapter is caught the same way.
    let out = openrdma()
        .args([
            "run",
            "--impl",
            "process",
            "--scenario",
            "snd-*",
            "--",
            bin,
            "serve",
            "--impl",
            "faulty:go-back-n",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[SND-RTX-004]"));
    // Misuse is a clear error, not a hang.
    let out = openrdma().args(["run", "--impl", "process"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = openrdma()
        .args(["run", "--impl", "process", "--timeout", "2", "--", "sleep", "30"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("timed out"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// CONF-VER-003 and CONF-REP-004: unsupported scenarios fail nothing: a device without
/// the completion engine passes what it can run, the rest is unsupported, and the run
/// exits with 0.
#[test]
fn unsupported_scenarios_do_not_fail_the_run() {
    let dir = tmp("unsupported");
    let json = dir.join("r.json");
    let out = openrdma()
        .args(["run", "--impl", "variant:receiver-block", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["summary"]["fail"], 0);
    assert!(v["summary"]["unsupported"].as_u64().unwrap() > 0, "{text}");
    assert!(v["summary"]["pass"].as_u64().unwrap() > 0, "{text}");
}

/// CONF-REP-001.b end to end: a device behind the adapter protocol that crashes, garbles
/// its answer or hangs fails its scenario with that failure as the reason, in the JSON
/// report (`error`, with `kind` and `message`), in the JUnit report (`failure` with the
/// device's message) and in the table; no divergence stands in for it.
#[test]
fn a_device_failure_is_the_reason_in_every_report() {
    const HELLO: &str = r#"{"type":"hello","version":1,"name":"dev","capabilities":["responder","requester","retirement","ipv4","ipv6"]}"#;
    let then_started =
        format!("read l; echo '{HELLO}'; read l; echo '{{\"type\":\"started\"}}'; read l; ");
    let cases = [
        ("crash", format!("{then_started}echo 'DMA engine stuck' >&2; exit 3"), "exit status: 3"),
        ("protocol", format!("{then_started}echo 'garbage'"), "not JSON"),
        ("timeout", format!("{then_started}exec sleep 30"), "timed out after 1000 ms"),
    ];
    let dir = tmp("device-failure");
    for (kind, script, says) in cases {
        let (json, junit) = (dir.join(format!("{kind}.json")), dir.join(format!("{kind}.xml")));
        let out = openrdma()
            .args(["run", "--impl", "process", "--scenario", "rcv-psn-wrap", "--timeout", "1"])
            .arg("--json")
            .arg(&json)
            .arg("--junit")
            .arg(&junit)
            .args(["--", "sh", "-c", &script])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{kind}: {text}");
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let x = &v["scenarios"][0];
        assert_eq!(
            (x["verdict"].as_str(), x["error"]["kind"].as_str()),
            (Some("fail"), Some(kind))
        );
        let message = x["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{kind}: {message}");
        assert!(x["first_divergence"].is_null() && x["divergences"] == 0, "{kind}: {x}");
        let xml = std::fs::read_to_string(&junit).unwrap();
        assert!(xml.contains(&format!("<failure message=\"device {kind}: ")), "{xml}");
        assert!(xml.contains(&format!("type=\"{kind}\"")), "{xml}");
        assert!(text.contains(&format!("device {kind}: ")), "{text}");
        if kind == "crash" {
            assert!(message.contains("DMA engine stuck") && xml.contains("DMA engine stuck"));
        }
    }
}

/// The table `openrdma run` prints by default, against the reference and against a faulty
/// device, is pinned in `golden/conformance`, and no line of it is over 100 columns: one
/// line per scenario (name, verdict, checks, a short title), the first divergence of a
/// failure wrapped below it, the requirement lists only with `--verbose`.
#[test]
fn the_table_fits_100_columns() {
    let runs: [(&str, &[&str]); 2] = [
        ("run_table_reference", &["run"]),
        ("run_table_faulty", &["run", "--impl", "faulty:go-back-n", "--scenario", "snd-*-loss"]),
    ];
    for (name, args) in runs {
        let out = openrdma().args(args).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        // Every character the table holds takes one column.
        let wide: Vec<&str> = text.lines().filter(|l| l.chars().count() > 100).collect();
        assert!(wide.is_empty(), "{name}: {wide:#?}");
        assert!(!text.contains("requirements:"), "{name}: requirement lists only with --verbose");
        insta::with_settings!({ snapshot_path => "../../golden/conformance", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(name, text);
        });
    }
    let out = openrdma().args(["run", "--verbose", "--scenario", "rcv-psn-wrap"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // The list is the manifest's, in its order.
    let toml = std::fs::read_to_string(repo().join("traces/scenarios/rcv-psn-wrap.toml")).unwrap();
    let line = toml.lines().find(|l| l.starts_with("requirements = ")).unwrap();
    let ids: Vec<&str> = line.split('"').skip(1).step_by(2).collect();
    assert!(text.contains(&format!("    requirements: {} ", ids[..2].join(" "))), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
}
