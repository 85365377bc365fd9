//! The adapter protocol (`CONF-ADP-*`): decoding with exact errors, the device side
//! ([`serve`]) in-process, and the process adapter's deadlines and failures against small
//! shell scripts that play a device.

use std::io::Cursor;
use std::time::{Duration, Instant};

use openrdma_conformance::corpus;
use openrdma_conformance::device::{Device, DeviceError, Input, TimedInput};
use openrdma_conformance::protocol::{
    MAX_LINE_LEN, Message, ProtocolError, ServeError, decode_bytes, decode_line, frame_fields_json,
    fuzz_adapter_decode, serve,
};
use openrdma_conformance::reference::ReferenceDevice;
use openrdma_conformance::scenario::{Body, Direction, Manifest};
use openrdma_sm::Timestamp;

fn manifest() -> Manifest {
    corpus::all()[0].1().manifest
}

// ---- decode_line ------------------------------------------------------------------------

#[test]
fn decodes_every_message() {
    let lines = [
        r#"{"type":"hello","version":1,"runner":"openrdma 0.1.0"}"#,
        r#"{"type":"hello","version":1,"name":"dev","capabilities":["responder","ipv4"]}"#,
        r#"{"type":"started"}"#,
        r#"{"type":"unsupported","reason":"no IPv6"}"#,
        r#"{"type":"advance","seq":1,"until":2000,"inputs":[]}"#,
        r#"{"type":"outputs","seq":1,"outputs":[]}"#,
        r#"{"type":"finish"}"#,
        r#"{"type":"finished"}"#,
        r#"{"type":"error","message":"boom"}"#,
    ];
    for l in lines {
        let m = decode_line(l).unwrap_or_else(|e| panic!("{l}: {e}"));
        assert!(l.contains(&format!("\"{}\"", m.type_name())));
    }
    // Unknown keys are ignored (CONF-ADP-003); a trailing \r is white space.
    assert_eq!(decode_line("{\"type\":\"finish\",\"later\":[1,2]}\r").unwrap(), Message::Finish);
}

#[test]
fn wrong_version_names_both() {
    let Message::Hello(h) =
        decode_line(r#"{"type":"hello","version":2,"name":"dev","capabilities":["responder"]}"#)
            .unwrap()
    else {
        panic!("not a hello")
    };
    let e = h.check_version().unwrap_err();
    assert_eq!(e, ProtocolError::Version { got: 2, supported: vec![1] });
    assert_eq!(e.to_string(), "adapter protocol version 2 is not spoken here; supported: 1");
}

#[test]
fn wrong_seq_is_named() {
    let Message::Outputs(o) = decode_line(r#"{"type":"outputs","seq":4,"outputs":[]}"#).unwrap()
    else {
        panic!("not outputs")
    };
    let e = o.check_seq(3).unwrap_err();
    assert_eq!(e.to_string(), "outputs: seq 4, expected 3");
}

#[test]
fn missing_fields_are_named() {
    let cases = [
        (r#"{"type":"advance","until":5,"inputs":[]}"#, "advance", "seq"),
        (r#"{"type":"outputs","seq":1}"#, "outputs", "outputs"),
        (r#"{"type":"error"}"#, "error", "message"),
        (r#"{"type":"hello"}"#, "hello", "version"),
        (
            r#"{"type":"advance","seq":1,"until":5,"inputs":[{"at":1,"input":{"kind":"frame","port":0}}]}"#,
            "advance",
            "inputs[0].input.bytes",
        ),
        (
            r#"{"type":"outputs","seq":1,"outputs":[{"at":1,"output":{"kind":"event"}}]}"#,
            "outputs",
            "outputs[0].output.event",
        ),
    ];
    for (line, message, field) in cases {
        assert_eq!(
            decode_line(line),
            Err(ProtocolError::MissingField { message: message.into(), field: field.into() }),
            "{line}"
        );
    }
    assert_eq!(
        decode_line(r#"{"type":"advance","until":5,"inputs":[]}"#).unwrap_err().to_string(),
        "advance: missing field `seq`"
    );
    // A device's hello without a name decodes; it is refused when read as a device's.
    let Message::Hello(h) =
        decode_line(r#"{"type":"hello","version":1,"capabilities":[]}"#).unwrap()
    else {
        panic!()
    };
    assert_eq!(h.device_info().unwrap_err().to_string(), "hello: missing field `name`");
}

#[test]
fn bad_fields_are_named() {
    let e = decode_line(
        r#"{"type":"advance","seq":1,"until":5,"inputs":[{"at":1,"input":{"kind":"frame","port":0,"bytes":"abc"}}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "advance: field `inputs[0].input.bytes`: hex bytes: odd number of digits"
    );
    let e = decode_line(r#"{"type":"advance","seq":"one","until":5,"inputs":[]}"#).unwrap_err();
    assert_eq!(
        e,
        ProtocolError::BadField {
            message: "advance".into(),
            field: "seq".into(),
            reason: "invalid type: string \"one\", expected u64".into(),
        }
    );
    let e = decode_line(
        r#"{"type":"advance","seq":1,"until":5,"inputs":[{"at":1,"input":{"kind":"smoke"}}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "advance: field `inputs[0].input.kind`: unknown input kind \"smoke\""
    );
    let e = decode_line(r#"{"type":"outputs","seq":1,"outputs":[7]}"#).unwrap_err();
    assert_eq!(e.to_string(), "outputs: field `outputs[0]`: expected an object, found a number");
    let e = decode_line(r#"{"type":7}"#).unwrap_err();
    assert_eq!(e.to_string(), "?: field `type`: expected a string, found a number");
}

#[test]
fn garbage_and_truncation_give_positions() {
    assert_eq!(
        decode_line("hello world"),
        Err(ProtocolError::Json { line: 1, column: 1, reason: "expected value".into() })
    );
    let cut = r#"{"type":"outputs","seq":1,"outp"#;
    assert_eq!(
        decode_line(cut),
        Err(ProtocolError::Json {
            line: 1,
            column: cut.len(),
            reason: "EOF while parsing a string".into()
        })
    );
    let cut = r#"{"type":"outputs","seq":1,"#;
    assert_eq!(
        decode_line(cut).unwrap_err().to_string(),
        format!("not JSON, at line 1, column {}: EOF while parsing a value", cut.len())
    );
    assert_eq!(decode_line("[1,2]"), Err(ProtocolError::NotObject));
    assert_eq!(decode_line(r#"{"seq":1}"#), Err(ProtocolError::MissingType));
    assert_eq!(
        decode_line(r#"{"type":"reboot"}"#).unwrap_err().to_string(),
        "unknown message type \"reboot\""
    );
    assert_eq!(decode_line("   "), Err(ProtocolError::Empty));
    assert_eq!(
        decode_bytes(b"{\"type\":\"fin\xffish\"}"),
        Err(ProtocolError::NotUtf8 { offset: 12 })
    );
}

#[test]
fn long_lines_are_refused() {
    let long = "x".repeat(MAX_LINE_LEN + 1);
    assert_eq!(decode_line(&long), Err(ProtocolError::TooLong { max: MAX_LINE_LEN }));
    assert_eq!(decode_bytes(long.as_bytes()), Err(ProtocolError::TooLong { max: MAX_LINE_LEN }));
}

/// Every example message of the specification's protocol section decodes.
#[test]
fn spec_examples_decode() {
    let text = include_str!("../../spec/conformance.md");
    let mut n = 0;
    let mut in_block = false;
    for line in text.lines() {
        match line.trim() {
            "```json" => in_block = true,
            "```" => in_block = false,
            l if in_block && l.starts_with('{') => {
                decode_line(l).unwrap_or_else(|e| panic!("spec example does not decode: {e}\n{l}"));
                n += 1;
            }
            _ => {}
        }
    }
    assert!(n >= 12, "only {n} examples found");
}

/// The fuzz body never panics: on the examples, every truncation of them, and bytes
/// flipped at every position.
#[test]
fn fuzz_body_never_panics() {
    let text = include_str!("../../spec/conformance.md");
    let mut seeds: Vec<Vec<u8>> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("{\"type\""))
        .map(|l| l.as_bytes().to_vec())
        .collect();
    seeds.push(b"{\"type\":\"advance\",\"seq\":1,\"until\":5,\"inputs\":[{\"at\":1,\"input\":{\"kind\":\"frame\",\"port\":0,\"bytes\":\"00\"}}]}".to_vec());
    let mut x: u32 = 0x1234_5678;
    for s in &seeds {
        for cut in 0..=s.len() {
            fuzz_adapter_decode(&s[..cut]);
        }
        for i in 0..s.len() {
            let mut t = s.clone();
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            t[i] = (x & 0xFF) as u8;
            fuzz_adapter_decode(&t);
        }
    }
    fuzz_adapter_decode(b"");
    fuzz_adapter_decode(&[0xFF; 300]);
    fuzz_adapter_decode("[".repeat(10_000).as_bytes());
}

#[test]
fn frame_fields_hold_the_headers() {
    let s = corpus::all()[0].1();
    let bytes = s
        .records
        .iter()
        .find_map(|r| match (&r.body, r.dir) {
            (Body::Frame { bytes, .. }, Direction::Inject) => Some(bytes.clone()),
            _ => None,
        })
        .expect("a frame");
    let f = frame_fields_json(&bytes);
    for key in ["len", "error", "icrc", "eth", "ipv4", "udp", "bth", "meth", "payload_len"] {
        assert!(f.get(key).is_some(), "no {key} in {f}");
    }
    assert_eq!(f["len"], bytes.len());
    assert_eq!(f["icrc"], "ok");
    assert!(f["bth"]["psn"].is_u64());
}

// ---- serve ------------------------------------------------------------------------------

fn line(m: &Message) -> String {
    serde_json::to_string(m).unwrap()
}

#[test]
fn serve_answers_a_conversation() {
    let s = corpus::all()[0].1();
    let inputs: Vec<String> = s
        .records
        .iter()
        .filter(|r| r.dir == Direction::Inject)
        .take(3)
        .map(|r| {
            let input = match &r.body {
                Body::Frame { port, bytes } => Input::Frame { port: *port, bytes: bytes.clone() },
                Body::Host { command } => Input::Host { command: command.clone() },
                Body::Cpu { command } => Input::Cpu { command: *command },
                Body::Event { .. } => unreachable!(),
            };
            let w = openrdma_conformance::protocol::WireInput::from_input(
                TimedInput { at: r.at, input },
                true,
            );
            serde_json::to_string(&w).unwrap()
        })
        .collect();
    let until = s.records.iter().map(|r| r.at.0).max().unwrap() + 100_000;
    let script = [
        r#"{"type":"hello","version":1,"runner":"test"}"#.to_string(),
        line(&Message::Start { manifest: Box::new(s.manifest.clone()) }),
        format!(r#"{{"type":"advance","seq":1,"until":{until},"inputs":[{}]}}"#, inputs.join(",")),
        r#"{"type":"finish"}"#.to_string(),
    ]
    .join("\n")
        + "\n";
    let mut out = Vec::new();
    let mut dev = ReferenceDevice::new();
    serve(&mut dev, Cursor::new(script), &mut out).unwrap();
    let answers: Vec<Message> =
        String::from_utf8(out).unwrap().lines().map(|l| decode_line(l).unwrap()).collect();
    let types: Vec<&str> = answers.iter().map(Message::type_name).collect();
    assert_eq!(types, ["hello", "started", "outputs", "finished"]);
    let Message::Hello(h) = &answers[0] else { panic!() };
    let info = h.device_info().unwrap();
    assert_eq!(info.name, "reference");
    assert_eq!(info.capabilities, dev.capabilities());
}

fn serve_script(script: &str) -> (Result<(), ServeError>, Vec<String>) {
    let mut script = script.to_string();
    if !script.is_empty() && !script.ends_with('\n') {
        script.push('\n');
    }
    let mut out = Vec::new();
    let r = serve(&mut ReferenceDevice::new(), Cursor::new(script), &mut out);
    (r, String::from_utf8(out).unwrap().lines().map(String::from).collect())
}

#[test]
fn serve_stops_on_protocol_errors() {
    let hello = r#"{"type":"hello","version":1}"#;
    let start = line(&Message::Start { manifest: Box::new(manifest()) });
    let cases = [
        (
            r#"{"type":"hello","version":9}"#.to_string(),
            "adapter protocol version 9 is not spoken here; supported: 1",
        ),
        (r#"{"type":"finish"}"#.to_string(), "expected hello, got finish"),
        (
            format!("{hello}\n{{\"type\":\"advance\",\"seq\":1,\"until\":1,\"inputs\":[]}}"),
            "expected start, got advance",
        ),
        (
            format!(
                "{hello}\n{start}\n{{\"type\":\"advance\",\"seq\":2,\"until\":1,\"inputs\":[]}}"
            ),
            "advance: seq 2, expected 1",
        ),
        (
            format!(
                "{hello}\n{start}\n{{\"type\":\"advance\",\"seq\":1,\"until\":9,\"inputs\":[]}}\n{{\"type\":\"advance\",\"seq\":2,\"until\":8,\"inputs\":[]}}"
            ),
            "advance: until 8 is before the previous until 9",
        ),
        (format!("{hello}\ngarbage"), "not JSON, at line 1, column 1: expected value"),
        (
            format!("{hello}\n{{\"type\":\"started\"}}"),
            "expected start, advance or finish, got started",
        ),
    ];
    for (script, want) in cases {
        let (r, lines) = serve_script(&script);
        let e = r.expect_err(&script);
        assert_eq!(e.to_string(), format!("the runner broke the adapter protocol: {want}"));
        let last = decode_line(lines.last().unwrap()).unwrap();
        assert_eq!(last, Message::Error { message: want.to_string() }, "{script}");
    }
    // The end of the input ends serving, anywhere.
    assert!(serve_script("").0.is_ok());
    assert!(serve_script(&format!("{hello}\n{start}\n")).0.is_ok());
    // A line cut by the end of the input is an error.
    let cut = format!("{hello}\n{{\"type\":\"fin");
    let r = serve(&mut ReferenceDevice::new(), Cursor::new(cut), &mut Vec::new());
    assert!(matches!(r, Err(ServeError::Protocol(ProtocolError::Unterminated { len: 12 }))));
}

// ---- the process adapter ----------------------------------------------------------------

#[cfg(unix)]
mod process {
    use super::*;
    use openrdma_conformance::process::{ProcessDevice, ProcessOptions};

    const HELLO: &str =
        r#"{"type":"hello","version":1,"name":"script","capabilities":["responder","telepathy"]}"#;

    /// A device played by `sh -c`, answering each message it reads with the next line of
    /// `answers`, then running `then`.
    fn script(answers: &[&str], then: &str) -> Vec<String> {
        let mut s = String::new();
        for a in answers {
            s.push_str("read l; echo '");
            s.push_str(a);
            s.push_str("'; ");
        }
        s.push_str(then);
        vec!["sh".into(), "-c".into(), s]
    }

    fn opts(ms: u64) -> ProcessOptions {
        ProcessOptions { timeout: Duration::from_millis(ms), pass_stderr: false, stderr_tail: 5 }
    }

    fn spawn(answers: &[&str], then: &str, ms: u64) -> Result<ProcessDevice, DeviceError> {
        ProcessDevice::spawn_with(&script(answers, then), opts(ms))
    }

    #[test]
    fn hello_gives_name_and_capabilities() {
        let dev = spawn(&[HELLO], "exec cat >/dev/null", 5_000).unwrap();
        assert_eq!(dev.name(), "script");
        let caps: Vec<_> = dev.capabilities().into_iter().collect();
        assert_eq!(caps, [openrdma_conformance::scenario::Capability::Responder]);
        assert_eq!(dev.info().unknown_capabilities, ["telepathy"]);
        assert!(dev.close().unwrap().success());
    }

    #[test]
    fn a_silent_device_times_out() {
        let t = Instant::now();
        let e = spawn(&[], "exec sleep 30", 300).unwrap_err();
        assert_eq!(e, DeviceError::Timeout { what: "hello".into(), after_ms: 300 });
        assert!(t.elapsed() < Duration::from_secs(5));
        // A device that says hello, then hangs: the start times out, and is named.
        let mut dev = spawn(&[HELLO], "exec sleep 30", 300).unwrap();
        let pid = dev.pid().unwrap();
        let e = dev.start(&manifest()).unwrap_err();
        let DeviceError::Timeout { what, after_ms } = &e else { panic!("{e:?}") };
        assert_eq!(*after_ms, 300);
        assert!(what.contains("start") && what.contains("started"), "{what}");
        assert_eq!(e.to_string(), format!("device timed out after 300 ms waiting for {what}"));
        // The hung child was killed.
        assert!(dev.pid().is_none());
        #[cfg(target_os = "linux")]
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
        let _ = pid;
    }

    #[test]
    fn a_device_that_exits_early_fails_with_its_status() {
        let e = spawn(&[], "echo 'no FPGA found' >&2; exit 3", 5_000).unwrap_err();
        let DeviceError::Failed(msg) = &e else { panic!("{e:?}") };
        assert!(msg.contains("exit status: 3"), "{msg}");
        assert!(msg.contains("while the runner waited for hello"), "{msg}");
        assert!(msg.contains("no FPGA found"), "{msg}");
        // After the hello, during a scenario.
        let mut dev = spawn(&[HELLO], "read l; echo dying >&2; exit 4", 5_000).unwrap();
        let e = dev.start(&manifest()).unwrap_err();
        let DeviceError::Failed(msg) = &e else { panic!("{e:?}") };
        assert!(msg.contains("exit status: 4") && msg.contains("dying"), "{msg}");
    }

    #[test]
    fn version_refusal_is_reported() {
        let e = spawn(
            &[r#"{"type":"error","message":"this harness speaks adapter protocol version 3"}"#],
            "exit 2",
            5_000,
        )
        .unwrap_err();
        assert_eq!(
            e,
            DeviceError::Protocol(
                "the device refused the handshake for adapter protocol version 1: this harness \
                 speaks adapter protocol version 3"
                    .into()
            )
        );
        let e = spawn(
            &[r#"{"type":"hello","version":3,"name":"x","capabilities":[]}"#],
            "exec cat >/dev/null",
            5_000,
        )
        .unwrap_err();
        assert_eq!(
            e,
            DeviceError::Protocol(
                "adapter protocol version 3 is not spoken here; supported: 1".into()
            )
        );
    }

    #[test]
    fn malformed_and_out_of_order_answers_are_protocol_errors() {
        let e = spawn(&["garbage"], "exec cat >/dev/null", 5_000).unwrap_err();
        assert_eq!(
            e,
            DeviceError::Protocol(
                "line 1 of the device's output, waiting for hello: not JSON, at line 1, \
                 column 1: expected value"
                    .into()
            )
        );
        let mut dev =
            spawn(&[HELLO, r#"{"type":"finished"}"#], "exec cat >/dev/null", 5_000).unwrap();
        assert_eq!(
            dev.start(&manifest()),
            Err(DeviceError::Protocol(
                "expected started, unsupported or error, got finished".into()
            ))
        );
        let mut dev = spawn(
            &[HELLO, r#"{"type":"started"}"#, r#"{"type":"outputs","seq":7,"outputs":[]}"#],
            "exec cat >/dev/null",
            5_000,
        )
        .unwrap();
        dev.start(&manifest()).unwrap();
        assert_eq!(
            dev.advance(vec![], Timestamp(10)),
            Err(DeviceError::Protocol("outputs: seq 7, expected 1".into()))
        );
        let mut dev = spawn(
            &[
                HELLO,
                r#"{"type":"started"}"#,
                r#"{"type":"outputs","seq":1,"outputs":[{"at":11,"output":{"kind":"frame","port":0,"bytes":"00"}}]}"#,
            ],
            "exec cat >/dev/null",
            5_000,
        )
        .unwrap();
        dev.start(&manifest()).unwrap();
        assert_eq!(
            dev.advance(vec![], Timestamp(10)),
            Err(DeviceError::Protocol(
                "outputs: outputs[0].at 11 is outside the batch [0, 10] of seq 1".into()
            ))
        );
    }

    #[test]
    fn unsupported_and_error_answers_map() {
        let mut dev = spawn(
            &[
                HELLO,
                r#"{"type":"unsupported","reason":"no IPv6 on this board"}"#,
                r#"{"type":"started"}"#,
                r#"{"type":"error","message":"DMA engine stuck"}"#,
            ],
            "exec cat >/dev/null",
            5_000,
        )
        .unwrap();
        assert_eq!(
            dev.start(&manifest()),
            Err(DeviceError::Unsupported("no IPv6 on this board".into()))
        );
        dev.start(&manifest()).unwrap();
        assert_eq!(
            dev.advance(vec![], Timestamp(10)),
            Err(DeviceError::Failed("DMA engine stuck".into()))
        );
    }

    /// Dropping the device kills a child that does not exit when its input closes.
    #[test]
    fn drop_kills_a_child_that_stays() {
        let dev = spawn(&[HELLO], "exec sleep 30", 5_000).unwrap();
        let pid = dev.pid().unwrap();
        let t = Instant::now();
        drop(dev);
        assert!(t.elapsed() < Duration::from_secs(5));
        #[cfg(target_os = "linux")]
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
        let _ = pid;
    }

    /// After a timeout the child is killed and the next scenario starts it again.
    #[test]
    fn a_hung_device_is_restarted_for_the_next_scenario() {
        let dir = std::env::temp_dir().join(format!("openrdma-restart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let flag = dir.join("hung-once");
        let _ = std::fs::remove_file(&flag);
        // The first run hangs at start; later runs answer it.
        let body = format!(
            "read l; echo '{HELLO}'; read l; if [ -e '{f}' ]; then echo '{{\"type\":\"started\"}}'; exec cat >/dev/null; else touch '{f}'; exec sleep 30; fi",
            f = flag.display()
        );
        let cmd = vec!["sh".to_string(), "-c".to_string(), body];
        let mut dev = ProcessDevice::spawn_with(&cmd, opts(500)).unwrap();
        let first = dev.pid();
        assert!(matches!(dev.start(&manifest()), Err(DeviceError::Timeout { .. })));
        dev.start(&manifest()).unwrap();
        assert_ne!(dev.pid(), first);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
