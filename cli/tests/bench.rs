//! `openrdma bench --quick --json` end to end: it runs, and reports every figure as a
//! positive number. The figures themselves depend on the machine and are never checked.

use std::process::Command;

#[test]
fn bench_quick_json_reports_every_figure() {
    let out = Command::new(env!("CARGO_BIN_EXE_openrdma"))
        .args(["bench", "--quick", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let positive = |path: &[&str]| {
        let x = path.iter().fold(&v, |node, key| &node[*key]);
        assert!(x.as_f64().is_some_and(|x| x > 0.0), "{} is {x} in {v}", path.join("."));
    };
    for size in ["64B", "1KiB", "4KiB"] {
        for op in ["decode_verify", "build_icrc"] {
            positive(&["codec", op, size, "frames_per_s"]);
            positive(&["codec", op, size, "bytes_per_s"]);
        }
        positive(&["icrc", size, "bytes_per_s"]);
    }
    for half in ["pair", "requester", "responder", "frames"] {
        positive(&["model", half, "packets_per_s"]);
        assert!(v["model"][half]["what"].is_string(), "model.{half} has no definition in {v}");
    }
    positive(&["model", "target_packets_per_s"]);
    positive(&["sim", "packets_per_s"]);
    positive(&["sim", "wall_s_per_simulated_s"]);
    positive(&["adapter", "batched_events_per_s"]);
    positive(&["adapter", "unbatched_events_per_s"]);
    positive(&["adapter", "batched_over_unbatched"]);
    positive(&["machine", "cores"]);
    assert_eq!(v["adapter"]["scenario"], "rcv-in-order-v4");
    positive(&["dissect", "json", "frames_per_s"]);
    positive(&["dissect", "text", "frames_per_s"]);
    match v["dissect"]["tshark"].as_str() {
        Some(absent) => assert_eq!(absent, "not installed"),
        None => {
            positive(&["dissect", "tshark", "frames_per_s"]);
            positive(&["dissect", "json_over_tshark"]);
            positive(&["dissect", "text_over_tshark"]);
            positive(&["dissect", "decode_verify_1kib_over_tshark"]);
        }
    }
}

#[test]
fn bench_quick_prints_a_table() {
    let out =
        Command::new(env!("CARGO_BIN_EXE_openrdma")).args(["bench", "--quick"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "codec.decode_verify.4KiB.bytes",
        "icrc.4KiB.bytes",
        "model.pair.packets",
        "model.frames.packets",
        "model figures",
    ] {
        assert!(text.contains(name), "no {name} in\n{text}");
    }
    for name in ["sim.packets", "adapter.batched_over_unbatched", "machine.cores"] {
        assert!(text.contains(name), "no {name} in\n{text}");
    }
}
