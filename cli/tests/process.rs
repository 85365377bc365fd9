//! The process path end to end: the corpus run through `ProcessDevice` driving the built
//! `openrdma serve` gives, scenario by scenario, the verdicts the in-process devices give.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use openrdma_cli::capture::{LINKTYPE_ETHERNET, PacketRef};
use openrdma_cli::render::FrameView;
use openrdma_conformance::process::{ProcessDevice, ProcessOptions};
use openrdma_conformance::protocol::{Message, decode_line, frame_fields_json};
use openrdma_conformance::report::{SuiteReport, run_suite};
use openrdma_conformance::requirements::Spec;
use openrdma_corpus as corpus;
use openrdma_corpus::faults::{self, Mutant, find};
use openrdma_device::{Body, Device, Direction, Scenario, TimedInput};
use openrdma_sm::{ReferenceDevice, reference_cpu_half};

fn serve(implementation: &str) -> ProcessDevice {
    let cmd = vec![
        env!("CARGO_BIN_EXE_openrdma").to_string(),
        "serve".to_string(),
        "--impl".to_string(),
        implementation.to_string(),
    ];
    let opts = ProcessOptions { timeout: Duration::from_secs(60), ..ProcessOptions::default() };
    ProcessDevice::spawn_with(&cmd, opts).expect("openrdma serve says hello")
}

fn scenarios() -> Vec<Scenario> {
    corpus::all().into_iter().map(|(_, b)| b()).collect()
}

/// What must be equal: per scenario, the verdict, the records checked, the divergences
/// and the first of them.
fn verdicts(r: &SuiteReport) -> Vec<String> {
    r.scenarios
        .iter()
        .map(|s| {
            format!(
                "{} {} checked {} divergences {} first {:?}",
                s.id,
                s.verdict.as_str(),
                s.checked,
                s.divergences,
                s.first_divergence.as_ref().map(|d| (&d.requirement, d.at, &d.what))
            )
        })
        .collect()
}

fn compare(implementation: &str, in_process: &mut dyn Device, scenarios: &[Scenario]) {
    let spec = Spec::bundled().unwrap();
    let want = run_suite(in_process, reference_cpu_half, scenarios, &spec, &mut |_, _| {});
    let mut dev = serve(implementation);
    let got = run_suite(&mut dev, reference_cpu_half, scenarios, &spec, &mut |_, _| {});
    for s in &got.scenarios {
        // A scenario the device lacks a capability for is unsupported, with the reason.
        let unsupported = s.verdict == openrdma_conformance::scoreboard::Verdict::Unsupported;
        assert!(
            s.device_error.is_none() || unsupported,
            "{implementation} {}: {:?}",
            s.id,
            s.device_error
        );
    }
    assert_eq!(verdicts(&got), verdicts(&want), "{implementation}");
    assert_eq!(got.summary, want.summary, "{implementation}");
    assert!(dev.close().unwrap().success());
}

/// One `openrdma serve` runs the whole corpus, scenario after scenario, and gives the
/// verdicts of fresh in-process devices: CONF-DEV-004 (a start keeps nothing from the
/// scenario before) and CONF-ADP-005 (one answer per message, in order) for the device
/// side of the protocol.
#[test]
fn reference_through_the_process_path_gives_the_same_verdicts() {
    let s = scenarios();
    compare("reference", &mut ReferenceDevice::new(), &s);
}

/// `openrdma serve` claims the capabilities of the reference, its own CPU half of recovery
/// included, and the process adapter reads them all; the scenarios that give the device
/// its CPU half (`cpu = "device"`) then run through it (REC-TEST-004).
#[test]
fn serve_claims_its_own_cpu_half() {
    use openrdma_device::{Capability, CpuHalf};
    let mut dev = serve("reference");
    let caps = dev.capabilities();
    assert_eq!(caps, ReferenceDevice::new().capabilities());
    assert!(caps.contains(&Capability::Recovery) && caps.contains(&Capability::CpuSplit));
    assert!(dev.info().unknown_capabilities.is_empty());
    let own: Vec<Scenario> =
        scenarios().into_iter().filter(|s| s.manifest.cpu == CpuHalf::Device).collect();
    assert!(own.len() >= 3);
    let spec = Spec::bundled().unwrap();
    let r = run_suite(&mut dev, reference_cpu_half, &own, &spec, &mut |_, _| {});
    assert_eq!(r.summary.pass, own.len(), "{:#?}", r.scenarios);
    assert!(dev.close().unwrap().success());
}

#[test]
fn go_back_n_through_the_process_path_fails_the_same_scenarios() {
    let s = scenarios();
    let kind = find("go-back-n").unwrap();
    let spec = Spec::bundled().unwrap();
    let want = run_suite(&mut Mutant::new(kind), reference_cpu_half, &s, &spec, &mut |_, _| {});
    assert!(want.summary.fail > 0, "go-back-n fails nothing in-process");
    compare("faulty:go-back-n", &mut Mutant::new(kind), &s);
}

#[test]
fn every_faulty_device_and_variant_through_the_process_path() {
    let s = scenarios();
    for kind in faults::devices().chain(faults::variants()) {
        compare(&kind.cli_name(), &mut Mutant::new(kind), &s);
    }
}

/// `fields` beside an input frame is what `openrdma dissect --json` prints for the frame,
/// without the record's number and time, plus the adapter's `discard` key.
#[test]
fn frame_fields_match_dissect() {
    for s in scenarios() {
        for r in &s.records {
            let Body::Frame { bytes, .. } = &r.body else { continue };
            let record = PacketRef {
                index: 1,
                offset: 0,
                interface: 0,
                link_type: LINKTYPE_ETHERNET,
                timestamp_ns: None,
                orig_len: bytes.len() as u32,
                data: bytes,
                flags: None,
            };
            let decoded = openrdma_codec::frame::decode(bytes);
            let view = FrameView::decoded(&record, &decoded, None);
            let mut line = Vec::new();
            view.write_json(&mut line).unwrap();
            let mut dissect: serde_json::Value = serde_json::from_slice(&line).unwrap();
            let obj = dissect.as_object_mut().unwrap();
            obj.remove("frame");
            obj.remove("timestamp_ns");
            // The adapter protocol's `fields` has no kind; the tags have one shape in both.
            obj.remove("kind");
            // `discard` is the adapter's own: dissect reports breaches as violations.
            let mut fields = frame_fields_json(bytes);
            if let Some(f) = fields.as_object_mut() {
                f.remove("discard");
            }
            assert_eq!(fields, dissect, "{}", s.manifest.name);
        }
    }
}

fn serve_raw(stdin: &str) -> (Option<i32>, Vec<String>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_openrdma"))
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let lines = String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect();
    (out.status.code(), lines, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// CONF-ADP-011: a device exits with 0 when its standard input ends; CONF-ADP-012: on a
/// message that breaks the protocol it answers `error`, naming what is wrong, and exits
/// with 2; CONF-ADP-002: a hello of another version is such a message.
#[test]
fn serve_exits_0_at_the_end_of_its_input_and_2_on_a_protocol_error() {
    let (code, lines, _) = serve_raw("");
    assert_eq!((code, lines.len()), (Some(0), 0));
    let (code, lines, _) = serve_raw("{\"type\":\"hello\",\"version\":1}\n");
    assert_eq!(code, Some(0));
    let Message::Hello(h) = decode_line(&lines[0]).unwrap() else { panic!("{lines:?}") };
    assert_eq!(h.device_info().unwrap().name, "reference");
    let (code, lines, stderr) = serve_raw("{\"type\":\"hello\",\"version\":2}\n");
    assert_eq!(code, Some(2));
    let want = "adapter protocol version 2 is not spoken here; supported: 1";
    assert_eq!(decode_line(&lines[0]).unwrap(), Message::Error { message: want.into() });
    assert!(stderr.contains(want), "{stderr}");
    let (code, lines, _) = serve_raw("{\"type\":\"hello\",\"version\":1}\n{oops\n");
    assert_eq!(code, Some(2));
    assert!(matches!(decode_line(&lines[1]).unwrap(), Message::Error { .. }));
}

#[test]
fn serve_refuses_an_unknown_implementation() {
    let out = Command::new(env!("CARGO_BIN_EXE_openrdma"))
        .args(["serve", "--impl", "faulty:nonesuch"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("faulty:nonesuch"));
}

/// Round trips per second through `openrdma serve`, one input per batch against all inputs
/// in one batch. Run with `cargo test -p openrdma --test process -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn batched_and_unbatched_round_trips() {
    let s = corpus::all().into_iter().find(|(n, _)| *n == "rcv-in-order-v4").unwrap().1();
    let inputs: Vec<TimedInput> = s
        .records
        .iter()
        .filter(|r| r.dir == Direction::Inject)
        .map(|r| TimedInput {
            at: r.at,
            input: r.body.input().expect("an inject record holds an input"),
        })
        .collect();
    let mut end = s.records[0].at;
    end.0 = s.records.iter().map(|r| r.at.0).max().unwrap() + 100_000;
    let rounds = 20;
    let measure = |dev: &mut dyn Device, batched: bool| {
        let t = Instant::now();
        let (mut events, mut trips) = (0usize, 0usize);
        for _ in 0..rounds {
            dev.start(&s.manifest).unwrap();
            if batched {
                events += inputs.len() + dev.advance(inputs.clone(), end).unwrap().len();
                trips += 1;
            } else {
                for i in &inputs {
                    let at = i.at;
                    events += 1 + dev.advance(vec![i.clone()], at).unwrap().len();
                    trips += 1;
                }
                events += dev.advance(vec![], end).unwrap().len();
                trips += 1;
            }
            dev.finish().unwrap();
        }
        let secs = t.elapsed().as_secs_f64();
        (events as f64 / secs, trips as f64 / secs)
    };
    // Where a batched round trip spends its time: the messages' encoding and decoding.
    {
        use openrdma_conformance::protocol::{
            Advance, Outputs, WireInput, WireOutput, decode_bytes, encode_line,
        };
        let mut dev = ReferenceDevice::new();
        dev.start(&s.manifest).unwrap();
        let outputs = dev.advance(inputs.clone(), end).unwrap();
        for fields in [true, false] {
            let t = Instant::now();
            let wire: Vec<WireInput> =
                inputs.iter().map(|i| WireInput::from_input(i.clone(), fields)).collect();
            let adv = Message::Advance(Advance { seq: 1, until: end, inputs: wire });
            let line = encode_line(&adv).unwrap();
            let t_enc = t.elapsed();
            let t = Instant::now();
            decode_bytes(&line[..line.len() - 1]).unwrap();
            let t_dec = t.elapsed();
            println!(
                "advance of {} inputs, fields={fields:<5}: {} bytes, encode {:?}, decode {:?}",
                inputs.len(),
                line.len(),
                t_enc,
                t_dec
            );
        }
        let t = Instant::now();
        let out = Message::Outputs(Outputs {
            seq: 1,
            outputs: outputs.iter().cloned().map(WireOutput::from_output).collect(),
        });
        let line = encode_line(&out).unwrap();
        let t_enc = t.elapsed();
        let t = Instant::now();
        decode_bytes(&line[..line.len() - 1]).unwrap();
        println!(
            "outputs of {} outputs: {} bytes, encode {:?}, decode {:?}",
            outputs.len(),
            line.len(),
            t_enc,
            t.elapsed()
        );
    }
    for batched in [false, true] {
        let (e, r) = measure(&mut ReferenceDevice::new(), batched);
        println!("in-process  batched={batched:<5} {e:>10.0} events/s {r:>9.0} advances/s");
        let mut dev = serve("reference");
        let (e, r) = measure(&mut dev, batched);
        println!("process     batched={batched:<5} {e:>10.0} events/s {r:>9.0} advances/s");
    }
}
