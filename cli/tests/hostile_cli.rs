//! The hostile catalogue, part one: output and exit codes, report paths, the corpus on disk
//! and the command line itself. See `hostile/mod.rs` for what a row is and how to add one.

mod hostile;

use std::fs;
use std::path::Path;

use hostile::{Row, Sink, row, run_catalogue};

/// The scenario the rows check captures against, and a capture of another scenario.
const SCN: &str = "traces/scenarios/rcv-psn-wrap";
const OTHER: &str = "traces/scenarios/rcv-in-order-v4.pcapng";

/// A row with `s.toml`, `s.pcapng` (the scenario) and `obs.pcapng` (its own outputs).
fn with_scenario(name: &str, args: &[&str]) -> Row {
    row(name, args)
        .copy("s.toml", &format!("{SCN}.toml"))
        .copy("s.pcapng", &format!("{SCN}.pcapng"))
        .copy("obs.pcapng", &format!("{SCN}.pcapng"))
        .copy("bad.pcapng", OTHER)
}

fn unchanged_inputs(dir: &Path) -> Result<(), String> {
    let want = fs::read(hostile::repo(&format!("{SCN}.pcapng"))).map_err(|e| e.to_string())?;
    for f in ["s.pcapng", "obs.pcapng"] {
        if fs::read(dir.join(f)).map_err(|e| e.to_string())? != want {
            return Err(format!("{f} was changed"));
        }
    }
    let toml = fs::read(hostile::repo(&format!("{SCN}.toml"))).map_err(|e| e.to_string())?;
    if fs::read(dir.join("s.toml")).map_err(|e| e.to_string())? != toml {
        return Err("s.toml was changed".into());
    }
    Ok(())
}

fn json_report(dir: &Path) -> Result<(), String> {
    let text = fs::read_to_string(dir.join("r.json")).map_err(|e| format!("r.json: {e}"))?;
    serde_json::from_str::<serde_json::Value>(&text).map_err(|e| format!("r.json: {e}"))?;
    Ok(())
}

fn both_reports(dir: &Path) -> Result<(), String> {
    json_report(dir)?;
    let x = fs::read_to_string(dir.join("r.xml")).map_err(|e| format!("r.xml: {e}"))?;
    if !x.contains("<testsuite") {
        return Err("r.xml is not JUnit".into());
    }
    Ok(())
}

fn junit_only(dir: &Path) -> Result<(), String> {
    let x = fs::read_to_string(dir.join("r.xml")).map_err(|e| format!("r.xml: {e}"))?;
    if !x.contains("<testsuite") {
        return Err("r.xml is not JUnit".into());
    }
    Ok(())
}

fn no_reports(dir: &Path) -> Result<(), String> {
    for f in ["r.json", "r.xml"] {
        if dir.join(f).exists() {
            return Err(format!("{f} was written although the command was refused"));
        }
    }
    Ok(())
}

fn victim_kept(dir: &Path) -> Result<(), String> {
    match fs::read_to_string(dir.join("victim")) {
        Ok(t) if t == "keep me\n" => Ok(()),
        other => Err(format!("the symbolic link's target was written: {other:?}")),
    }
}

fn link_replaced_target_kept(dir: &Path) -> Result<(), String> {
    victim_kept(dir)?;
    let m = fs::symlink_metadata(dir.join("out/rcv-psn-wrap.toml")).map_err(|e| e.to_string())?;
    if !m.is_file() {
        return Err("out/rcv-psn-wrap.toml is not a regular file".into());
    }
    Ok(())
}

fn regenerated(dir: &Path) -> Result<(), String> {
    let out = dir.join("out");
    let n = fs::read_dir(&out).map_err(|e| e.to_string())?.count();
    let committed =
        fs::read_dir(hostile::repo("traces/scenarios")).map_err(|e| e.to_string())?.count();
    if n != committed {
        return Err(format!("{n} files in out, {committed} committed"));
    }
    for e in fs::read_dir(dir).map_err(|e| e.to_string())? {
        let name = e.map_err(|e| e.to_string())?.file_name();
        if name.to_string_lossy().contains("openrdma-") {
            return Err(format!("{name:?} was left behind"));
        }
    }
    Ok(())
}

fn out_untouched(dir: &Path) -> Result<(), String> {
    match fs::read_to_string(dir.join("out/note.txt")) {
        Ok(t) if t == "mine\n" => {}
        other => return Err(format!("out/note.txt: {other:?}")),
    }
    if dir.join("out/rcv-psn-wrap.toml").exists() {
        return Err("scenario files were written although regenerating failed".into());
    }
    Ok(())
}

fn symlinked_report(dir: &Path) -> Result<(), String> {
    let m = fs::symlink_metadata(dir.join("link.json")).map_err(|e| e.to_string())?;
    if !m.file_type().is_symlink() {
        return Err("link.json is no longer a symbolic link".into());
    }
    let t = fs::read_to_string(dir.join("target.json")).map_err(|e| e.to_string())?;
    serde_json::from_str::<serde_json::Value>(&t).map_err(|e| format!("target.json: {e}"))?;
    Ok(())
}

fn plots(dir: &Path) -> Result<(), String> {
    let n = fs::read_dir(dir.join("a/b/plots")).map_err(|e| e.to_string())?.count();
    if n < 4 {
        return Err(format!("{n} plots"));
    }
    Ok(())
}

const PASS: &[&str] = &["run", "--scenario", "rcv-psn-wrap"];
const FAIL: &[&str] = &["run", "--impl", "faulty:go-back-n", "--scenario", "snd-single-loss"];

fn args(base: &[&'static str], more: &[&'static str]) -> Vec<&'static str> {
    base.iter().chain(more).copied().collect()
}

fn rows() -> Vec<Row> {
    let check = ["check", "s", "--observed", "obs.pcapng"];
    let check_fail = ["check", "s", "--observed", "bad.pcapng"];
    let mut rows = vec![
        // ---- standard output closed by its reader, or full ----------------------------
        row("traces list, reader gone", &["traces", "list"])
            .stdout(Sink::ClosedPipe)
            .code(0)
            .not_err("error"),
        row("traces list, disk full", &["traces", "list"])
            .stdout(Sink::Full)
            .code(2)
            .err("cannot write standard output"),
        row("traces list", &["traces", "list"]).code(0).out("rcv-psn-wrap"),
        with_scenario("check pass, reader gone", &check)
            .stdout(Sink::ClosedPipe)
            .code(0)
            .not_err("error"),
        with_scenario("check pass, disk full", &check)
            .stdout(Sink::Full)
            .code(2)
            .err("No space left"),
        with_scenario("check fail, reader gone", &check_fail)
            .stdout(Sink::ClosedPipe)
            .code(1)
            .not_err("error"),
        with_scenario("check fail, disk full", &check_fail)
            .stdout(Sink::Full)
            .code(1)
            .err("No space left"),
        with_scenario("check fail", &check_fail).code(1).out("rcv-psn-wrap  fail"),
        row("run pass, reader gone", PASS).stdout(Sink::ClosedPipe).code(0).not_err("error"),
        row("run pass, disk full", PASS)
            .stdout(Sink::Full)
            .code(2)
            .err("cannot write standard output"),
        row("run fail, reader gone", FAIL).stdout(Sink::ClosedPipe).code(1).not_err("error"),
        row("run fail, disk full", FAIL)
            .stdout(Sink::Full)
            .code(1)
            .err("cannot write standard output"),
        row(
            "run fail, reader gone, reports written",
            &args(FAIL, &["--json", "r.json", "--junit", "r.xml"]),
        )
        .stdout(Sink::ClosedPipe)
        .code(1)
        .after(both_reports),
        row(
            "run pass, disk full, reports written",
            &args(PASS, &["--json", "r.json", "--junit", "r.xml"]),
        )
        .stdout(Sink::Full)
        .code(2)
        .after(both_reports),
        row("run --list-impls, reader gone", &["run", "--list-impls"])
            .stdout(Sink::ClosedPipe)
            .code(0),
        row("run --list-impls, disk full", &["run", "--list-impls"]).stdout(Sink::Full).code(2),
        row("run --uncovered, reader gone", &args(PASS, &["--uncovered"]))
            .stdout(Sink::ClosedPipe)
            .code(0),
        row("sim run, reader gone", &["sim", "run", "--qps", "2", "--messages", "3"])
            .stdout(Sink::ClosedPipe)
            .code(0),
        row("sim run, disk full", &["sim", "run", "--qps", "2", "--messages", "3"])
            .stdout(Sink::Full)
            .code(2),
        row(
            "sim run --json, reader gone",
            &["sim", "run", "--qps", "2", "--messages", "3", "--json"],
        )
        .stdout(Sink::ClosedPipe)
        .code(0),
        row(
            "sim run --json, disk full",
            &["sim", "run", "--qps", "2", "--messages", "3", "--json"],
        )
        .stdout(Sink::Full)
        .code(2),
        row(
            "sim run failing, reader gone",
            &[
                "sim",
                "run",
                "--paths",
                "1",
                "--fail",
                "0:0:1000000000",
                "--horizon-ms",
                "2",
                "--qps",
                "1",
                "--messages",
                "1",
            ],
        )
        .stdout(Sink::ClosedPipe)
        .code(1),
        row(
            "sim run failing, disk full",
            &[
                "sim",
                "run",
                "--paths",
                "1",
                "--fail",
                "0:0:1000000000",
                "--horizon-ms",
                "2",
                "--qps",
                "1",
                "--messages",
                "1",
            ],
        )
        .stdout(Sink::Full)
        .code(1)
        .err("No space left"),
        row("sim run, standard error full", &["sim", "run", "--qps", "2", "--messages", "3"])
            .stderr_full()
            .code(0),
        row("sim paper, reader gone", &["sim", "paper", "--quick"])
            .stdout(Sink::ClosedPipe)
            .code(0),
        row("sim paper, disk full", &["sim", "paper", "--quick"]).stdout(Sink::Full).code(2),
        row("sim paper --json, disk full", &["sim", "paper", "--quick", "--json"])
            .stdout(Sink::Full)
            .code(2),
        row("bench, reader gone", &["bench", "--quick"]).stdout(Sink::ClosedPipe).code(0),
        row("bench --json, disk full", &["bench", "--quick", "--json"]).stdout(Sink::Full).code(2),
        row("help, disk full", &["--help"]).stdout(Sink::Full).code(2),
        row("help, reader gone", &["--help"]).stdout(Sink::ClosedPipe).code(0),
        row("version, disk full", &["--version"]).stdout(Sink::Full).code(2),
        row("sim run help, disk full", &["sim", "run", "--help"]).stdout(Sink::Full).code(2),
        row("a bad argument, standard error full", &["run", "--impl", "nonsense"])
            .stderr_full()
            .code(2),
        row("a bad option, standard error full", &["run", "--no-such-option"])
            .stderr_full()
            .code(2),
        row("traces regenerate, reader gone", &["traces", "regenerate", "--out", "out"])
            .stdout(Sink::ClosedPipe)
            .code(0)
            .after(regenerated),
        row(
            "traces regenerate, disk full on standard output",
            &["traces", "regenerate", "--out", "out"],
        )
        .stdout(Sink::Full)
        .code(2)
        .after(regenerated),
        row("serve, reader gone", &["serve"])
            .stdin("{\"type\":\"hello\",\"version\":1}\n")
            .stdout(Sink::ClosedPipe)
            .code(0),
        row("serve, disk full", &["serve"])
            .stdin("{\"type\":\"hello\",\"version\":1}\n")
            .stdout(Sink::Full)
            .code(2),
        // ---- report paths ---------------------------------------------------------------
        row("--json a directory", &args(PASS, &["--json", "d"]))
            .dir("d")
            .code(2)
            .err("is a directory"),
        row("--junit a directory", &args(PASS, &["--junit", "."])).code(2).err("is a directory"),
        row("--json in a missing directory", &args(PASS, &["--json", "no/such/r.json"]))
            .code(2)
            .err("cannot be used"),
        row("--json ending in a slash", &args(PASS, &["--json", "r.json/"]))
            .code(2)
            .err("ends with `/`"),
        row("--json empty", &args(PASS, &["--json", ""])).code(2).err("a value is required"),
        row("--json under a file", &args(PASS, &["--json", "f/r.json"]))
            .file("f", "x")
            .code(2)
            .err("Not a directory"),
        row("--json and --junit the same", &args(PASS, &["--json", "r.json", "--junit", "r.json"]))
            .code(2)
            .err("is also the file of --json")
            .after(no_reports),
        row(
            "--json and --junit the same, spelt apart",
            &args(PASS, &["--json", "r.json", "--junit", "./sub/../r.json"]),
        )
        .dir("sub")
        .code(2)
        .err("is also the file of --json"),
        row("--junit a link to --json", &args(PASS, &["--json", "r.json", "--junit", "l.xml"]))
            .file("r.json", "{}")
            .link("l.xml", "r.json")
            .code(2)
            .err("is also the file of --json"),
        row("--json a dangling link", &args(PASS, &["--json", "l.json"]))
            .link("l.json", "nowhere/x.json")
            .code(2)
            .err("symbolic link to nowhere"),
        row("two bad reports, both named", &args(PASS, &["--json", "d", "--junit", "no/r.xml"]))
            .dir("d")
            .code(2)
            .err("--json d: is a directory")
            .err("--junit no/r.xml")
            .after(no_reports),
        row(
            "a bad --json refuses before any work",
            &args(FAIL, &["--json", "d", "--junit", "r.xml"]),
        )
        .dir("d")
        .code(2)
        .after(no_reports),
        row("--json /dev/null", &args(PASS, &["--json", "/dev/null"])).code(0),
        row(
            "--json /dev/full, clean run: --junit still written",
            &args(PASS, &["--json", "/dev/full", "--junit", "r.xml"]),
        )
        .code(2)
        .err("--json /dev/full: cannot write the report")
        .after(junit_only),
        row(
            "--json /dev/full, failing run",
            &args(FAIL, &["--json", "/dev/full", "--junit", "r.xml"]),
        )
        .code(1)
        .err("cannot write the report")
        .after(junit_only),
        row("--junit /dev/full", &args(PASS, &["--junit", "/dev/full"]))
            .code(2)
            .err("--junit /dev/full"),
        row("--json over an old report", &args(PASS, &["--json", "r.json"]))
            .file("r.json", "old")
            .code(0)
            .after(json_report),
        row("--json through a link: the target is replaced", &args(PASS, &["--json", "link.json"]))
            .file("target.json", "old")
            .link("link.json", "target.json")
            .code(0)
            .after(symlinked_report),
        row("run --json, reports written", &args(PASS, &["--json", "r.json", "--junit", "r.xml"]))
            .code(0)
            .after(both_reports),
        with_scenario(
            "check --json the observed capture",
            &["check", "s", "--observed", "obs.pcapng", "--json", "obs.pcapng"],
        )
        .code(2)
        .err("is the observed capture")
        .after(unchanged_inputs),
        with_scenario(
            "check --json the manifest",
            &["check", "s", "--observed", "obs.pcapng", "--json", "s.toml"],
        )
        .code(2)
        .err("is the scenario's manifest")
        .after(unchanged_inputs),
        with_scenario(
            "check --json the scenario's capture",
            &["check", "s.toml", "--observed", "obs.pcapng", "--json", "s.pcapng"],
        )
        .code(2)
        .err("is the scenario's capture")
        .after(unchanged_inputs),
        with_scenario(
            "check --json a link to the capture",
            &["check", "s", "--observed", "obs.pcapng", "--json", "l.pcapng"],
        )
        .link("l.pcapng", "obs.pcapng")
        .code(2)
        .err("is the observed capture")
        .after(unchanged_inputs),
        with_scenario(
            "check --json the capture spelt apart",
            &["check", "s", "--observed", "obs.pcapng", "--json", "d/../obs.pcapng"],
        )
        .dir("d")
        .code(2)
        .after(unchanged_inputs),
        with_scenario(
            "check --json the capture by absolute path",
            &["check", "s", "--observed", "obs.pcapng", "--json", "{dir}/obs.pcapng"],
        )
        .code(2)
        .after(unchanged_inputs),
        with_scenario(
            "check --json a directory",
            &["check", "s", "--observed", "obs.pcapng", "--json", "."],
        )
        .code(2),
        with_scenario(
            "check --json",
            &["check", "s", "--observed", "obs.pcapng", "--json", "r.json"],
        )
        .code(0)
        .after(json_report),
        with_scenario(
            "check --json /dev/full",
            &["check", "s", "--observed", "obs.pcapng", "--json", "/dev/full"],
        )
        .code(2),
        with_scenario(
            "check failing --json /dev/full",
            &["check", "s", "--observed", "bad.pcapng", "--json", "/dev/full"],
        )
        .code(1),
        with_scenario(
            "check a missing scenario",
            &["check", "nothing", "--observed", "obs.pcapng"],
        )
        .code(2),
        with_scenario("check a missing capture", &["check", "s", "--observed", "nothing.pcapng"])
            .code(2),
        with_scenario("check a directory as capture", &["check", "s", "--observed", "."]).code(2),
        with_scenario(
            "run --traces --json onto a manifest",
            &["run", "--traces", ".", "--json", "s.toml"],
        )
        .code(2)
        .err("is the scenario file")
        .after(unchanged_inputs),
        row(
            "run --json onto the device's program",
            &["run", "--impl", "process", "--json", "dev.sh", "--", "./dev.sh"],
        )
        .file("dev.sh", "#!/bin/sh\nexec {bin} serve\n")
        .code(2)
        .err("is the device's program"),
        // ---- the corpus on disk ----------------------------------------------------------
        row("traces regenerate", &["traces", "regenerate", "--out", "out"])
            .code(0)
            .out("wrote")
            .after(regenerated),
        row("traces regenerate into new directories", &["traces", "regenerate", "--out", "a/b/c"])
            .code(0),
        row(
            "traces regenerate over a link: the target is kept",
            &["traces", "regenerate", "--out", "out"],
        )
        .file("victim", "keep me\n")
        .dir("out")
        .link("out/rcv-psn-wrap.toml", "{dir}/victim")
        .code(0)
        .out("replaced out/rcv-psn-wrap.toml (a symbolic link")
        .after(link_replaced_target_kept),
        row("traces regenerate says what it replaced", &["traces", "regenerate", "--out", "out"])
            .file("out/rcv-psn-wrap.toml", "old")
            .code(0)
            .out("replaced out/rcv-psn-wrap.toml"),
        row("traces regenerate --out a file", &["traces", "regenerate", "--out", "f"])
            .file("f", "x")
            .code(2)
            .err("not a directory"),
        row("traces regenerate --out under a file", &["traces", "regenerate", "--out", "f/out"])
            .file("f", "x")
            .code(2),
        row("traces regenerate --out empty", &["traces", "regenerate", "--out", ""]).code(2),
        row(
            "traces regenerate onto a directory named like a scenario file",
            &["traces", "regenerate", "--out", "out"],
        )
        .file("out/note.txt", "mine\n")
        .dir("out/zz-no-such/x")
        .dir("out/rcv-psn-wrap.pcapng")
        .code(2)
        .err("is a directory"),
        row("traces regenerate --out a dangling link", &["traces", "regenerate", "--out", "l"])
            .link("l", "nowhere")
            .code(2)
            .err("symbolic link to nowhere"),
        row("traces regenerate keeps other files", &["traces", "regenerate", "--out", "out"])
            .file("out/note.txt", "mine\n")
            .code(0),
        row(
            "traces regenerate --out a file refuses before writing",
            &["traces", "regenerate", "--out", "out/note.txt/x"],
        )
        .file("out/note.txt", "mine\n")
        .code(2)
        .after(out_untouched),
        row("sim paper --plots a file", &["sim", "paper", "--quick", "--plots", "f"])
            .file("f", "x")
            .code(2)
            .err("not a directory"),
        row(
            "sim paper --plots new directories",
            &["sim", "paper", "--quick", "--plots", "a/b/plots"],
        )
        .code(0)
        .after(plots),
        row("sim paper --plots a dangling link", &["sim", "paper", "--quick", "--plots", "l"])
            .link("l", "nowhere")
            .code(2),
        // ---- the command line ------------------------------------------------------------
        row("no arguments", &[]).code(2),
        row("an unknown command", &["reboot"]).code(2),
        row("run --timeout 0", &["run", "--impl", "process", "--timeout", "0", "--", "true"])
            .code(2)
            .err("0 s would time out every answer"),
        row("run --timeout negative", &["run", "--timeout", "-1"]).code(2),
        row("run --timeout not a number", &["run", "--timeout", "soon"])
            .code(2)
            .err("a whole number of seconds"),
        row(
            "run --timeout beyond the clock",
            &[
                "run",
                "--impl",
                "process",
                "--timeout",
                "18446744073709551615",
                "--scenario",
                "rcv-psn-wrap",
                "--",
                "{bin}",
                "serve",
            ],
        )
        .code(0),
        row("run --impl process without a command", &["run", "--impl", "process"])
            .code(2)
            .err("needs the device's command"),
        row(
            "run --impl process, no such program",
            &["run", "--impl", "process", "--", "./no-such-device"],
        )
        .code(2)
        .err("cannot start"),
        row("run a command without --impl process", &["run", "--", "true"])
            .code(2)
            .err("only for `--impl process`"),
        row("run an unknown implementation", &["run", "--impl", "faulty:nonsense"])
            .code(2)
            .err("unknown implementation"),
        row("run a variant named as faulty", &["run", "--impl", "faulty:receiver-block"]).code(2),
        row("run --scenario matching nothing", &["run", "--scenario", "no-such-*"])
            .code(2)
            .err("no scenario matches"),
        row("run --scenario empty", &["run", "--scenario", ""]).code(2),
        row("run --traces missing", &["run", "--traces", "no-such-dir"]).code(2),
        row("run --traces a file", &["run", "--traces", "f"]).file("f", "x").code(2),
        row("run --traces empty", &["run", "--traces", "d"])
            .dir("d")
            .code(2)
            .err("no scenario matches"),
        row("run --traces with a broken manifest", &["run", "--traces", "."])
            .file("x.toml", "name = [")
            .code(2),
        row("serve --impl nonsense", &["serve", "--impl", "nonsense"])
            .code(2)
            .err("unknown implementation"),
        row("dissect a missing file", &["dissect", "no-such.pcap"]).code(2),
    ];
    for bad in ["faulty:", "variant:", "process:x", "", "reference "] {
        rows.push(row(&format!("run --impl {bad:?}"), &["run", "--impl", bad]).code(2));
    }
    rows
}

#[test]
fn catalogue() {
    run_catalogue("cli", &rows(), false);
}

#[test]
#[ignore = "runs the rows that need an external tool; .ci/run installs them"]
fn catalogue_with_tools() {
    run_catalogue("cli-tools", &rows(), true);
}
