//! `openrdma sim paper` end to end: the table, the JSON report, the plots.

use std::process::Command;

fn openrdma() -> Command {
    Command::new(env!("CARGO_BIN_EXE_openrdma"))
}

#[test]
fn sim_paper_quick_prints_every_experiment_next_to_the_paper() {
    let out = openrdma().args(["sim", "paper", "--quick"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    for id in ["(a)", "(b)", "(c)", "(d)", "(e)", "(f)", "(g)"] {
        assert!(text.contains(id), "missing {id}:\n{text}");
    }
    assert!(text.contains("380.9"), "{text}");
    assert!(text.contains("3.51"), "{text}");
    assert!(text.trim_end().ends_with("verdict ok"), "{text}");
}

#[test]
fn sim_paper_quick_json_and_plots() {
    let dir = std::env::temp_dir().join(format!("openrdma-sim-paper-{}", std::process::id()));
    let out = openrdma()
        .args(["sim", "paper", "--quick", "--json", "--seed", "3", "--plots"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["seed"], 3);
    assert_eq!(v["quick"], true);
    let exps = v["experiments"].as_array().unwrap();
    assert_eq!(exps.len(), 7);
    for e in exps {
        for key in ["id", "name", "parameters", "ours", "paper", "comparison", "checks"] {
            assert!(!e[key].is_null(), "missing {key} in {e}");
        }
        for key in
            ["duplicates_delivered", "order_violations", "flag_before_data", "writes_after_flag"]
        {
            assert_eq!(e["checks"][key], 0, "{key} in {}", e["id"]);
        }
    }
    for name in ["goodput_vs_loss.svg", "recovery.svg", "flag_delay.svg", "skew.svg"] {
        let s = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(s.starts_with("<svg") || s.starts_with("<?xml"), "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
