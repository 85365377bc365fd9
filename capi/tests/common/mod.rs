//! Helpers shared by the integration tests: the committed corpus, read with the
//! conformance crate.

#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

use openrdma::{Model, OutputKind};
use openrdma_conformance::file;
use openrdma_device::{CpuHalf, NicEvent, Output, Scenario, TimedInput, TimedOutput, Timestamp};

/// The directory of the committed scenarios.
pub fn scenario_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../traces/scenarios")
}

/// Every committed scenario a device replays by itself, by name, sorted: all but those in
/// which the runner plays the CPU half of recovery beside the device (`cpu = "reference"`),
/// whose agent's commands are not in the scenario. (With `cpu = "device"` the reference CPU
/// half runs inside the instance.)
pub fn scenarios() -> Vec<(String, Scenario)> {
    let mut names: Vec<_> = std::fs::read_dir(scenario_dir())
        .expect("traces/scenarios is readable")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "toml").then(|| p.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let s = file::load(scenario_dir().join(&n)).unwrap_or_else(|e| panic!("{n}: {e}"));
            (n, s)
        })
        .filter(|(_, s)| s.manifest.cpu != CpuHalf::Reference)
        .collect()
}

/// The input an inject record carries.
pub fn input_of(r: &openrdma_device::Record) -> TimedInput {
    TimedInput { at: r.at, input: r.body.input().expect("an event is not an input") }
}

/// Whether an output is a report. A scenario records only some reports (those the
/// scoreboard compares), so a replay skips the reports the scenario does not expect.
pub fn is_report(o: &TimedOutput) -> bool {
    matches!(&o.output, Output::Event { event: NicEvent::Report(_) })
}

/// Checks that `actual` is `expected`, in order, apart from reports the scenario did not
/// record.
pub fn check_replay(name: &str, actual: &[TimedOutput], expected: &[TimedOutput]) {
    let mut want = expected.iter().peekable();
    for (i, a) in actual.iter().enumerate() {
        match want.peek() {
            Some(e) if *e == a => {
                want.next();
            }
            _ if is_report(a) => {}
            Some(e) => panic!("{name}: output {i} is\n{a:?}\nexpected\n{e:?}"),
            None => panic!("{name}: output {i} is\n{a:?}\nexpected nothing more"),
        }
    }
    let left: Vec<_> = want.collect();
    assert!(left.is_empty(), "{name}: expected but never produced: {left:#?}");
}

/// The expect records of a scenario as outputs.
pub fn expected_outputs(s: &Scenario) -> Vec<TimedOutput> {
    s.expects()
        .map(|r| {
            let output = r.body.output();
            let output = output.unwrap_or_else(|| panic!("an expect record holds {:?}", r.body));
            TimedOutput { at: r.at, output }
        })
        .collect()
}

/// Pops every output of `m`, rebuilt from the C structures (frame bytes, event JSON).
pub fn pop_all(m: &mut Model) -> Vec<TimedOutput> {
    let mut all = Vec::new();
    loop {
        let batch = m.pop(7);
        if batch.is_empty() {
            break;
        }
        for o in batch {
            all.push(from_c(&o));
        }
    }
    all
}

/// The output a C structure describes, read through its pointers (valid until the next
/// pop, which comes after this).
pub fn from_c(o: &openrdma::Output) -> TimedOutput {
    let at = Timestamp(o.at_ns);
    assert!(!o.json.is_null(), "every output has JSON");
    // SAFETY: `json` points to a NUL-terminated string the model holds until the next pop.
    let json = unsafe { std::ffi::CStr::from_ptr(o.json) };
    let json = json.to_str().expect("the JSON is UTF-8");
    assert_eq!(json.len(), o.json_len as usize, "json_len");
    let bytes = if o.len == 0 {
        Vec::new()
    } else {
        // SAFETY: `bytes` points to `len` bytes the model holds until the next pop.
        unsafe { std::slice::from_raw_parts(o.bytes, o.len as usize) }.to_vec()
    };
    let output = match o.kind {
        OutputKind::Frame => Output::Frame { port: o.port, bytes },
        OutputKind::None => panic!("an empty output was popped"),
        _ => Output::Event { event: serde_json::from_str(json).expect("event JSON reads") },
    };
    TimedOutput { at, output }
}
