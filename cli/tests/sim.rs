//! `openrdma sim run` end to end: JSON report keys, correctness counters, exit codes.

use std::process::Command;

fn openrdma() -> Command {
    Command::new(env!("CARGO_BIN_EXE_openrdma"))
}

#[test]
fn sim_run_reports_and_exits_cleanly_under_loss() {
    let out = openrdma()
        .args([
            "sim",
            "run",
            "--paths",
            "4",
            "--qps",
            "2",
            "--messages",
            "20",
            "--message-bytes",
            "8192",
        ])
        .args(["--loss", "0.05", "--loss-model", "bursty", "--seed", "77", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "messages_submitted",
        "messages_delivered",
        "duplicates_delivered",
        "order_violations",
        "flag_before_data",
        "writes_after_flag",
        "retransmissions",
        "goodput_gbps",
        "wire_limit_gbps",
    ] {
        assert!(!v[key].is_null(), "missing {key} in {v}");
    }
    assert_eq!(v["messages_submitted"], v["messages_delivered"]);
    for key in ["duplicates_delivered", "order_violations", "flag_before_data", "writes_after_flag"]
    {
        assert_eq!(v[key], 0, "{key}");
    }
}

#[test]
fn sim_run_is_deterministic_and_rejects_bad_arguments() {
    let run = || {
        openrdma()
            .args([
                "sim",
                "run",
                "--paths",
                "2",
                "--qps",
                "1",
                "--messages",
                "10",
                "--loss",
                "0.1",
                "--seed",
                "5",
                "--json",
            ])
            .output()
            .unwrap()
            .stdout
    };
    assert_eq!(run(), run());
    let out = openrdma().args(["sim", "run", "--paths", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = openrdma().args(["sim", "run", "--spray", "sideways"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
