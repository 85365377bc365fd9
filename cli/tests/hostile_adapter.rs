//! The hostile catalogue, part three: the adapter protocol from both ends — lines a runner
//! should never send to `openrdma serve`, devices that misbehave under `openrdma run --impl
//! process` — and the signals that end a run. See `hostile/mod.rs`.

mod hostile;

use std::path::Path;
use std::time::Duration;

use hostile::{Row, ended, row, run_catalogue};

const HELLO: &str = "{\"type\":\"hello\",\"version\":1}\n";

/// The start message of the specification's example conversation.
fn start() -> String {
    let spec = include_str!("../../spec/conformance.md");
    let line =
        spec.lines().find(|l| l.starts_with("{\"type\":\"start\"")).expect("an example start");
    format!("{line}\n")
}

/// `openrdma serve` fed `lines`.
fn serve(name: &str, lines: impl AsRef<[u8]>) -> Row {
    row(name, &["serve"]).stdin(lines)
}

/// `[1,1,...,1]` of `n` elements.
fn array(n: usize) -> String {
    let mut s = String::with_capacity(2 * n + 2);
    s.push('[');
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push('1');
    }
    s.push(']');
    s
}

/// The device's hello that the scripts below say.
const DEV_HELLO: &str = r#"{"type":"hello","version":1,"name":"dev","capabilities":["responder","requester","retirement","ipv4","ipv6"]}"#;

/// The hello of a device that also runs the scenarios of a split CPU half.
const DEV_HELLO_SPLIT: &str = r#"{"type":"hello","version":1,"name":"dev","capabilities":["responder","requester","retirement","ipv4","ipv6","paths","cpu-split"]}"#;

/// A device that answers every batch with 65536 frames at the batch's `until`.
const FLOOD: &str = r#"read -r line
echo '@HELLO@'
read -r line
echo '{"type":"started"}'
one='"output":{"kind":"frame","port":0,"bytes":"00"}}'
while read -r line; do
  set -- $(printf '%s\n' "$line" | sed -n 's/^{"type":"advance","seq":\([0-9]*\),"until":\([0-9]*\),.*/\1 \2/p')
  printf '{"type":"outputs","seq":%s,"outputs":[' "$1"
  yes "{\"at\":$2,$one," | head -n 65535 | tr -d '\n'
  printf '{"at":%s,%s]}\n' "$2" "$one"
done"#;

/// `openrdma run --impl process` on one scenario, against the script `dev.sh`.
fn device(name: &str, script: &str, extra: &[&str]) -> Row {
    let mut args = vec!["run", "--impl", "process"];
    for pair in [["--scenario", "rcv-psn-wrap"], ["--timeout", "5"]] {
        if !extra.contains(&pair[0]) {
            args.extend_from_slice(&pair);
        }
    }
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "./dev.sh"]);
    row(name, &args).file("dev.sh", format!("#!/bin/sh\n{script}\n"))
}

fn device_and_grandchild_ended(dir: &Path) -> Result<(), String> {
    ended(dir, "device.pid")?;
    ended(dir, "grandchild.pid")
}

fn grandchild_ended(dir: &Path) -> Result<(), String> {
    ended(dir, "grandchild.pid")
}

fn device_ended(dir: &Path) -> Result<(), String> {
    ended(dir, "device.pid")
}

/// The device failure of the one scenario of the JSON report `r.json`.
fn reported_error(dir: &Path) -> Result<(String, String), String> {
    let text = std::fs::read_to_string(dir.join("r.json")).map_err(|e| e.to_string())?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let s = &v["scenarios"][0];
    if s["divergences"] != 0 || !s["first_divergence"].is_null() {
        return Err(format!("a divergence beside the device error: {s}"));
    }
    let kind = s["error"]["kind"].as_str().unwrap_or_default().to_string();
    let message = s["error"]["message"].as_str().unwrap_or_default().to_string();
    Ok((kind, message))
}

/// The reports of a run whose device failed its hello: its one scenario fails with the
/// hello's failure, at no time, in JSON and JUnit (CONF-ADP-024).
fn hello_failure_reported(dir: &Path) -> Result<(), String> {
    let (kind, message) = reported_error(dir)?;
    let text = std::fs::read_to_string(dir.join("r.json")).map_err(|e| e.to_string())?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let junit = std::fs::read_to_string(dir.join("r.xml")).map_err(|e| e.to_string())?;
    let ok = kind == "protocol"
        && message.contains("waiting for hello")
        && v["scenarios"][0]["error"]["at"].is_null()
        && v["summary"]["fail"] == 1
        && junit.contains("<failure message=\"device protocol: ")
        && junit.contains("type=\"protocol\"");
    if ok { Ok(()) } else { Err(format!("reported as {kind}: {message}; {junit}")) }
}

/// Every scenario of the run fails with the device's exit as its reason (CONF-ADP-024).
fn every_scenario_failed(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("r.json")).map_err(|e| e.to_string())?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let all = v["scenarios"].as_array().cloned().unwrap_or_default();
    let junit = std::fs::read_to_string(dir.join("r.xml")).map_err(|e| e.to_string())?;
    let failed = |s: &serde_json::Value| {
        s["verdict"] == "fail"
            && s["error"]["kind"] == "crash"
            && s["error"]["message"].as_str().is_some_and(|m| m.contains("exit status: 3"))
    };
    let cases = junit.matches("<testcase ").count();
    let failures = junit.matches("type=\"crash\"").count();
    if all.len() > 1 && all.iter().all(failed) && cases == all.len() && failures == cases {
        Ok(())
    } else {
        Err(format!("{} scenarios, {cases} test cases, {failures} failures", all.len()))
    }
}

/// A batch answered twice is named as such, by the batch it belongs to, never as a wrong
/// `seq` of the next (CONF-ADP-023). The second answer comes from a shell loop, a moment
/// after the first: the runner may have sent the next batch when it reads it.
fn answered_twice_named(dir: &Path) -> Result<(), String> {
    let (kind, message) = reported_error(dir)?;
    let ok = kind == "protocol"
        && message.contains("a second outputs, answering advance seq 1 again")
        && message.contains("CONF-ADP-005")
        && !message.contains("expected 2");
    if ok { Ok(()) } else { Err(format!("reported as {kind}: {message}")) }
}

fn half_line_reported(dir: &Path) -> Result<(), String> {
    let (kind, message) = reported_error(dir)?;
    let junit = std::fs::read_to_string(dir.join("r.xml")).map_err(|e| e.to_string())?;
    let ok = kind == "crash"
        && message.contains("exit status: 0")
        && message.contains("21 bytes of a line without its newline")
        && junit.contains("type=\"crash\"");
    if ok { Ok(()) } else { Err(format!("reported as {kind}: {message}")) }
}

fn qpn_named(dir: &Path) -> Result<(), String> {
    let (kind, message) = reported_error(dir)?;
    if kind == "protocol" && message.contains("field `outputs[0].output.event.qpn`") {
        Ok(())
    } else {
        Err(format!("reported as {kind}: {message}"))
    }
}

/// An error found in a line that decodes says where it is, as one in a line that does not.
fn wrong_seq_located(dir: &Path) -> Result<(), String> {
    let (kind, message) = reported_error(dir)?;
    let at = "line 3 of the device's output, waiting for the answer to advance seq 1";
    if kind == "protocol" && message.contains(at) {
        Ok(())
    } else {
        Err(format!("reported as {kind}: {message}"))
    }
}

/// The JSON and JUnit reports of one scenario are small, whatever the device said.
fn reports_small(dir: &Path) -> Result<(), String> {
    for f in ["r.json", "r.xml"] {
        let len = std::fs::metadata(dir.join(f)).map_err(|e| e.to_string())?.len();
        if len > 1 << 17 {
            return Err(format!("{f} is {len} bytes long"));
        }
    }
    let (kind, message) = reported_error(dir)?;
    if kind == "crash" && message.starts_with("xxx") {
        Ok(())
    } else {
        Err(format!("{kind}: {message:.100}"))
    }
}

/// A device that starts a grandchild, says hello, and then waits forever.
const SLOW: &str = "sleep 1000 &\necho $! > grandchild.pid\necho $$ > device.pid\nread line\necho '{DEV}'\nexec sleep 1000";

fn slow() -> String {
    SLOW.replace("{DEV}", DEV_HELLO)
}

fn rows() -> Vec<Row> {
    let start = start();
    let adv = |seq: u64, until: u64| {
        format!("{{\"type\":\"advance\",\"seq\":{seq},\"until\":{until},\"inputs\":[]}}\n")
    };
    let mut rows = vec![
        // ---- lines to `openrdma serve` ---------------------------------------------------
        serve("serve: no input", "").code(0),
        serve("serve: hello", HELLO).code(0).out("\"type\":\"hello\"").out("\"name\":\"reference\""),
        serve("serve: hello with CRLF", "{\"type\":\"hello\",\"version\":1}\r\n").code(0).out("\"type\":\"hello\""),
        serve("serve: garbage", "garbage\n").code(2).out("not JSON, at line 1, column 1").err("broke the adapter protocol"),
        serve("serve: another version", "{\"type\":\"hello\",\"version\":9}\n").code(2).out("version 9 is not spoken here"),
        serve("serve: finish before hello", "{\"type\":\"finish\"}\n").code(2).out("expected hello, got finish"),
        serve("serve: two hellos", format!("{HELLO}{HELLO}")).code(2).out("got hello"),
        // CONF-ADP-018: the limits on what a line costs, from the runner's side.
        serve("serve: nested 100 deep", format!("{{\"type\":\"hello\",\"version\":1,\"x\":{}{}}}\n", "[".repeat(100), "]".repeat(100)))
            .code(2)
            .out("nested deeper than 64"),
        serve("serve: 100000 open brackets", format!("{}\n", "[".repeat(100_000))).code(2).out("nested deeper than 64"),
        serve("serve: nested 60 deep in an ignored key", format!("{{\"type\":\"hello\",\"version\":1,\"x\":{}{}}}\n", "[".repeat(60), "]".repeat(60)))
            .code(0)
            .out("\"type\":\"hello\""),
        serve("serve: an unknown type", format!("{HELLO}{{\"type\":\"reboot\"}}\n")).code(2).out("unknown message type"),
        serve("serve: not an object", "[1,2]\n").code(2).out("must be a JSON object"),
        serve("serve: no type", "{\"version\":1}\n").code(2).out("must have a"),
        serve("serve: a type that is a number", "{\"type\":7}\n").code(2).out("expected a string"),
        serve("serve: a type that is a huge array", format!("{{\"type\":{}}}\n", array(1_000_000))).code(2),
        serve("serve: the type twice", "{\"type\":\"hello\",\"type\":\"hello\",\"version\":1}\n").code(2),
        serve("serve: an empty line", "\n").code(2).out("empty line"),
        serve("serve: a line of spaces", "    \n").code(2).out("empty line"),
        serve("serve: not UTF-8", b"{\"type\":\"hel\xfflo\"}\n").code(2).out("not UTF-8"),
        serve("serve: a NUL byte", b"{\"type\":\"hello\"\x00}\n").code(2),
        serve("serve: a byte-order mark", "\u{feff}{\"type\":\"hello\",\"version\":1}\n").code(2),
        serve("serve: a line cut by the end", "{\"type\":\"fin").code(2).err("ended inside a line"),
        serve("serve: a line over 64 MiB", {
            let mut v = vec![b'x'; (64 << 20) + 1];
            v.push(b'\n');
            v
        })
        .code(2)
        .out("longer than the limit of 67108864 bytes"),
        serve("serve: 8 MiB of ignored array", format!("{{\"type\":\"hello\",\"version\":1,\"junk\":{}}}\n", array(4 << 20)))
            .code(0)
            .out("\"type\":\"hello\""),
        serve("serve: 16 MiB of ignored string", format!("{{\"type\":\"hello\",\"version\":1,\"junk\":\"{}\"}}\n", "a".repeat(16 << 20)))
            .code(0)
            .out("\"type\":\"hello\""),
        serve("serve: an ignored key of 1 MiB", format!("{{\"type\":\"hello\",\"version\":1,\"{}\":0}}\n", "k".repeat(1 << 20)))
            .code(0),
        serve("serve: advance before start", format!("{HELLO}{}", adv(1, 10))).code(2).out("expected start, got advance"),
        serve("serve: a wrong seq", format!("{HELLO}{start}{}", adv(2, 10))).code(2).out("advance: seq 2, expected 1"),
        serve("serve: time going back", format!("{HELLO}{start}{}{}", adv(1, 10), adv(2, 5))).code(2).out("before the previous until"),
        serve("serve: a seq beyond 64 bits", format!("{HELLO}{start}{{\"type\":\"advance\",\"seq\":18446744073709551616,\"until\":1,\"inputs\":[]}}\n"))
            .code(2),
        serve("serve: a negative until", format!("{HELLO}{start}{{\"type\":\"advance\",\"seq\":1,\"until\":-1,\"inputs\":[]}}\n")).code(2),
        serve("serve: a conversation", format!("{HELLO}{start}{}{{\"type\":\"finish\"}}\n", adv(1, 1000)))
            .code(0)
            .out("\"type\":\"started\"")
            .out("\"type\":\"finished\""),
        serve("serve: an ignored array beside an advance", format!("{HELLO}{start}{{\"type\":\"advance\",\"seq\":1,\"until\":1,\"inputs\":[],\"junk\":{}}}\n", array(1 << 20)))
            .code(0)
            .out("\"type\":\"outputs\""),
        // CONF-ADP-018: entries and values past their limits.
        serve("serve: 70000 inputs", {
            let one = "{\"at\":0,\"input\":{\"kind\":\"cpu\",\"command\":{\"cmd\":\"qp_error\",\"qpn\":5}}}";
            let all = vec![one; 70_000].join(",");
            format!("{HELLO}{start}{{\"type\":\"advance\",\"seq\":1,\"until\":1,\"inputs\":[{all}]}}\n")
        })
        .code(2)
        .out("more than 65536 entries"),
        serve("serve: a command of 100000 values", format!(
            "{HELLO}{start}{{\"type\":\"advance\",\"seq\":1,\"until\":1,\"inputs\":[{{\"at\":0,\"input\":{{\"kind\":\"cpu\",\"command\":{{\"cmd\":\"qp_error\",\"qpn\":5,\"junk\":{}}}}}}}]}}\n",
            array(100_000)
        ))
        .code(2)
        .out("more than 65536 values"),
        serve("serve: input fields of 100000 values", format!(
            "{HELLO}{start}{{\"type\":\"advance\",\"seq\":1,\"until\":1,\"inputs\":[{{\"at\":0,\"input\":{{\"kind\":\"frame\",\"port\":0,\"bytes\":\"00\",\"fields\":{}}}}}]}}\n",
            array(100_000)
        ))
        .code(2)
        .out("more than 65536 values"),
        serve("serve: an ignored key of an input", format!(
            "{HELLO}{start}{{\"type\":\"advance\",\"seq\":1,\"until\":1,\"inputs\":[{{\"at\":0,\"junk\":{},\"input\":{{\"kind\":\"cpu\",\"command\":{{\"cmd\":\"qp_error\",\"qpn\":5}}}}}}]}}\n",
            array(1 << 20)
        ))
        .code(0)
        .out("\"type\":\"outputs\""),
        serve("serve: an unknown input kind", format!("{HELLO}{start}{{\"type\":\"advance\",\"seq\":1,\"until\":1,\"inputs\":[{{\"at\":0,\"input\":{{\"kind\":\"smoke\"}}}}]}}\n"))
            .code(2)
            .out("unknown input kind"),
        serve("serve: odd hex", format!("{HELLO}{start}{{\"type\":\"advance\",\"seq\":1,\"until\":1,\"inputs\":[{{\"at\":0,\"input\":{{\"kind\":\"frame\",\"port\":0,\"bytes\":\"abc\"}}}}]}}\n"))
            .code(2)
            .out("odd number of digits"),
        serve("serve: an input out of its batch", format!("{HELLO}{start}{{\"type\":\"advance\",\"seq\":1,\"until\":1,\"inputs\":[{{\"at\":5,\"input\":{{\"kind\":\"cpu\",\"command\":{{\"cmd\":\"qp_error\",\"qpn\":5}}}}}}]}}\n"))
            .code(2)
            .out("outside"),
        serve("serve: a start without a manifest", format!("{HELLO}{{\"type\":\"start\"}}\n")).code(2).out("missing field `manifest`"),
        serve("serve: a manifest of 100000 values", format!("{HELLO}{{\"type\":\"start\",\"manifest\":{{\"name\":\"x\",\"junk\":{}}}}}\n", array(100_000)))
            .code(2)
            .out("manifest"),
        serve("serve: the input ends inside a scenario", format!("{HELLO}{start}")).code(0),
        row("serve a faulty device", &["serve", "--impl", "faulty:go-back-n"]).stdin(HELLO).code(0).out("\"type\":\"hello\""),
        row("serve a variant named faulty", &["serve", "--impl", "faulty:receiver-block"]).stdin(HELLO).code(2),
        // ---- devices that misbehave ------------------------------------------------------
        device("device: garbage instead of hello", "read line\necho garbage\nexec cat >/dev/null", &[])
            .code(2)
            .err("not JSON"),
        // CONF-ADP-024: a device that fails its first hello still gets its reports, each
        // scenario failed with the hello's failure as its reason.
        device("device: garbage instead of hello, with reports", "read line\necho garbage\nexec cat >/dev/null", &["--json", "r.json", "--junit", "r.xml"])
            .code(2)
            .out("waiting for hello: not JSON")
            .err("no scenario ran")
            .after(hello_failure_reported),
        device("device: exits at once, with reports", "echo 'no FPGA found' >&2\nexit 3", &["--scenario", "rcv-*", "--json", "r.json", "--junit", "r.xml"])
            .code(2)
            .out("no FPGA found")
            .after(every_scenario_failed),
        // CONF-ADP-023: a batch answered twice fails that batch, named as such.
        device(
            "device: a batch answered twice",
            "{bin} serve | while IFS= read -r l; do printf '%s\\n' \"$l\"; case $l in *'\"seq\":1,'*) printf '%s\\n' \"$l\";; esac; done",
            &["--scenario", "snd-single-loss", "--json", "r.json"],
        )
        .code(1)
        .after(answered_twice_named),
        device("device: exits at once", "echo 'no FPGA found' >&2\nexit 3", &[]).code(2).err("exit status: 3").err("no FPGA found"),
        device("device: garbage after hello", &format!("read line\necho '{DEV_HELLO}'\nread line\necho garbage\nexec cat >/dev/null"), &[])
            .code(1)
            .out("not JSON"),
        device("device: silent after hello", &format!("read line\necho '{DEV_HELLO}'\nexec sleep 1000"), &["--timeout", "1"])
            .code(1)
            .out("timed out"),
        device("device: silent before hello", "echo $$ > device.pid\nexec sleep 1000", &["--timeout", "1"])
            .code(2)
            .err("timed out")
            .after(device_ended),
        // CONF-ADP-018.b: a device's line past a limit fails the run with a protocol error
        // naming it.
        device(
            "device: 70000 capabilities",
            "read line\nprintf '{\"type\":\"hello\",\"version\":1,\"name\":\"x\",\"capabilities\":[%s\"ipv4\"]}\\n' \"$(yes '\"ipv4\",' | head -n 70000 | tr -d '\\n')\"\nexec cat >/dev/null",
            &[],
        )
        .code(2)
        .err("more than 65536 entries"),
        device(
            "device: hello nested too deep",
            &format!("read line\necho '{{\"type\":\"hello\",\"version\":1,\"x\":{}{}}}'\nexec cat >/dev/null", "[".repeat(80), "]".repeat(80)),
            &[],
        )
        .code(2)
        .err("nested deeper than 64"),
        device(
            "device: 8 MiB of ignored array in its hello",
            "read line\nprintf '{\"type\":\"hello\",\"version\":1,\"name\":\"reference\",\"capabilities\":[\"responder\",\"ipv4\",\"retirement\"],\"junk\":[%s1]}\\n' \"$(yes '1,' | head -n 4000000 | tr -d '\\n')\"\n(echo '{\"type\":\"hello\",\"version\":1}'; cat) | {bin} serve | (read skip; cat)",
            &[],
        )
        .code(0)
        .out("1 pass"),
        device(
            "device: floods answers",
            &format!("read line\necho '{DEV_HELLO}'\nexec yes '{{\"type\":\"finished\"}}'"),
            &[],
        )
        .code(1)
        .out("expected started"),
        // CONF-ADP-019.b: a device that fills every answer ends its scenario once it has given
        // more than 2^20 outputs in all, before the runner keeps millions of them.
        device(
            "device: 65536 outputs in every batch",
            &FLOOD.replace("@HELLO@", DEV_HELLO_SPLIT),
            &["--scenario", "rec-split-timeout"],
        )
        .code(1)
        .out("waiting for the answer to advance seq 17")
        .out("1114112 outputs in the scenario, past the limit of 1048576"),
        device(
            "device: a line over 64 MiB",
            "read line\nexec yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | tr -d '\\n'",
            &[],
        )
        .code(2)
        .err("longer than the limit"),
        device(
            "device: a long line of standard error, kept short",
            &format!("read line\necho '{DEV_HELLO}'\nread line\nyes e | head -n 1000000 | tr -d '\\n' >&2\nexit 4"),
            &[],
        )
        .code(1)
        .out("exit status: 4")
        .out("the last lines of its standard error")
        .not_out(&"e".repeat(1001)),
        device(
            "device: a wrong seq",
            &format!("read line\necho '{DEV_HELLO}'\nread line\necho '{{\"type\":\"started\"}}'\nread line\necho '{{\"type\":\"outputs\",\"seq\":7,\"outputs\":[]}}'\nexec cat >/dev/null"),
            &["--json", "r.json"],
        )
        .code(1)
        .out("seq 7, expected 1")
        .after(wrong_seq_located),
        // A harness that stops in the middle of a line has crashed; it did not say a
        // message (section 9.3).
        device(
            "device: half a line, then exit",
            &format!("read line\necho '{DEV_HELLO}'\nread line\necho '{{\"type\":\"started\"}}'\nread line\nprintf '{{\"type\":\"outputs\",\"se'\nexit 0"),
            &["--json", "r.json", "--junit", "r.xml"],
        )
        .code(1)
        .out("device crash")
        .after(half_line_reported),
        // A value out of range in an event is named by its path, not by serde's words alone.
        device(
            "device: a QPN beyond 32 bits is named",
            &format!("read line\necho '{DEV_HELLO}'\nread line\necho '{{\"type\":\"started\"}}'\nread line\necho '{{\"type\":\"outputs\",\"seq\":1,\"outputs\":[{{\"at\":0,\"output\":{{\"kind\":\"event\",\"event\":{{\"event\":\"dma_write\",\"qpn\":1099511627776,\"psn\":0,\"msn\":0,\"va\":0,\"payload\":{{\"bytes\":\"00\"}}}}}}}}]}}'\nexec cat >/dev/null"),
            &["--json", "r.json"],
        )
        .code(1)
        .out("device protocol")
        .after(qpn_named),
        device("device: error answers", &format!("read line\necho '{DEV_HELLO}'\nwhile read line; do echo '{{\"type\":\"error\",\"message\":\"DMA stuck\"}}'; done"), &[])
            .code(1)
            .out("DMA stuck"),
        device(
            "device: its grandchild ends with the run",
            "sleep 1000 &\necho $! > grandchild.pid\nexec {bin} serve",
            &[],
        )
        .code(0)
        .after(grandchild_ended),
        device(
            "device: its grandchild ends with a failing run",
            "sleep 1000 &\necho $! > grandchild.pid\nexec {bin} serve --impl faulty:go-back-n",
            &["--scenario", "rcv-*"],
        )
        .after(grandchild_ended),
        device(
            "device: a wrapper that is not the device",
            "sh -c '{bin} serve'",
            &[],
        )
        .code(0)
        .out("1 pass"),
        device("device: a wrapper ended by a timeout", "sleep 1000 &\necho $! > grandchild.pid\nsh -c 'sleep 1000'", &["--timeout", "1"])
            .code(2)
            .after(grandchild_ended),
        // CONF-ADP-026.b: a device that exits while a process it started holds its output
        // has exited; the runner does not wait out its deadline.
        device(
            "device: exits, its child holding its output",
            &format!("read line\necho '{DEV_HELLO}'\nread line\necho '{{\"type\":\"started\"}}'\nread line\nsleep 1000 &\necho $! > grandchild.pid\necho 'fatal: lost the simulator' >&2\nexit 3"),
            &["--timeout", "100"],
        )
        .code(1)
        .out("exit status: 3")
        .out("still holding its standard output")
        .out("fatal: lost the simulator")
        .after(grandchild_ended),
        // CONF-ADP-026.a: a message of 16 MiB is quoted in part, and quickly.
        device(
            "device: an error of 16 MiB, quoted in part",
            &format!("read line\necho '{DEV_HELLO}'\nread line\necho '{{\"type\":\"started\"}}'\nread line\nprintf '{{\"type\":\"error\",\"message\":\"'\nhead -c 16777216 /dev/zero | tr '\\0' x\nprintf '\"}}\\n'\nexec cat >/dev/null"),
            &["--json", "r.json", "--junit", "r.xml"],
        )
        .code(1)
        .out("message left out]")
        .after(reports_small),
        device("device: --json onto a scenario-less path", "exec {bin} serve", &["--json", "r.json"]).code(0),
        // ---- signals ---------------------------------------------------------------------
        device("SIGTERM ends the run and its device", &slow(), &["--timeout", "100"])
            .signal("TERM", Duration::from_millis(1000))
            .after(device_and_grandchild_ended),
        device("SIGINT ends the run and its device", &slow(), &["--timeout", "100"])
            .signal("INT", Duration::from_millis(1000))
            .after(device_and_grandchild_ended),
        device("SIGHUP ends the run and its device", &slow(), &["--timeout", "100"])
            .signal("HUP", Duration::from_millis(1000))
            .after(device_and_grandchild_ended),
        device("SIGTERM with reports asked for", &slow(), &["--timeout", "100", "--json", "r.json"])
            .signal("TERM", Duration::from_millis(1000))
            .after(device_and_grandchild_ended),
        row("SIGTERM ends a long simulation", &["sim", "run", "--messages", "1000000000"]).signal("TERM", Duration::from_millis(500)),
        row("SIGINT ends a long simulation", &["sim", "run", "--messages", "1000000000"]).signal("INT", Duration::from_millis(500)),
    ];
    // Each message type, cut at every few bytes: a protocol error, never a crash.
    let conversation = "{\"type\":\"hello\",\"version\":1,\"runner\":\"x\"}";
    for cut in [1, 5, 9, 17, 25, 33, 40] {
        rows.push(
            serve(&format!("serve: hello cut at {cut}"), format!("{}\n", &conversation[..cut]))
                .code(2),
        );
    }
    rows
}

#[test]
fn catalogue() {
    run_catalogue("adapter", &rows(), false);
}

#[test]
#[ignore = "runs the rows that need an external tool; .ci/run installs them"]
fn catalogue_with_tools() {
    run_catalogue("adapter-tools", &rows(), true);
}
