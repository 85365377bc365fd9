//! The runner's bound on a scenario's outputs holds for every device, in-process ones too
//! (CONF-ADP-019): a device that floods the runner ends its scenario in a protocol error
//! that names the count and the limit, and what it gave past the bound is not kept.

use std::collections::BTreeSet;
use std::path::Path;

use openrdma_conformance::file::load;
use openrdma_conformance::protocol::MAX_SCENARIO_OUTPUTS;
use openrdma_conformance::runner::run;
use openrdma_device::{
    Capability, Device, DeviceError, Manifest, Output, RecoveryCpu, RecoverySettings, TimedInput,
    TimedOutput,
};

/// An in-process test device: in each batch it gives what `give` makes of the batch's
/// number (1 for the first) and its `until`.
struct Scripted {
    give: Box<dyn Fn(usize, u64) -> Vec<TimedOutput>>,
    batches: usize,
}

impl Scripted {
    fn new(give: impl Fn(usize, u64) -> Vec<TimedOutput> + 'static) -> Self {
        Scripted { give: Box::new(give), batches: 0 }
    }
}

impl Device for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }

    fn capabilities(&self) -> BTreeSet<Capability> {
        BTreeSet::new()
    }

    fn start(&mut self, _: &Manifest) -> Result<(), DeviceError> {
        self.batches = 0;
        Ok(())
    }

    fn advance(
        &mut self,
        _: Vec<TimedInput>,
        until: openrdma_device::Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        self.batches += 1;
        Ok((self.give)(self.batches, until.0))
    }

    fn finish(&mut self) -> Result<(), DeviceError> {
        Ok(())
    }
}

/// An empty frame at `at`: it costs the runner nothing to keep.
fn empty_frame(at: u64) -> TimedOutput {
    TimedOutput {
        at: openrdma_device::Timestamp(at),
        output: Output::Frame { port: 0, bytes: vec![] },
    }
}

/// A device that floods: `first` outputs in its first batch and one in each batch after.
fn flood(first: usize) -> Scripted {
    Scripted::new(move |batch, until| {
        let n = if batch == 1 { first } else { 1 };
        vec![empty_frame(until); n]
    })
}

fn no_cpu(_: &RecoverySettings) -> Result<Box<dyn RecoveryCpu>, DeviceError> {
    Err(DeviceError::Failed("the scenario plays its own CPU half".into()))
}

fn scenario() -> openrdma_device::Scenario {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("in the repository");
    load(root.join("traces/scenarios/snd-tail-probe")).expect("the corpus loads")
}

#[test]
fn an_in_process_device_past_the_bound_fails_its_scenario() {
    let s = scenario();
    let limit = usize::try_from(MAX_SCENARIO_OUTPUTS).expect("fits");
    let mut dev = flood(limit);
    let out = run(&mut dev, &s, no_cpu);
    // The first batch reaches the bound and is kept; the next passes it.
    assert!(dev.batches >= 2, "the scenario ended after {} batches", dev.batches);
    assert_eq!(out.observed.len(), limit);
    let Some(DeviceError::Protocol(msg)) = &out.error else {
        panic!("expected a protocol error, got {:?}", out.error);
    };
    assert_eq!(msg, &format!("{} outputs in the scenario, past the limit of {limit}", limit + 1));
    assert!(out.error_at.is_some());
}

#[test]
fn an_in_process_device_at_the_bound_is_not_ended() {
    let s = scenario();
    let mut dev = flood(1000);
    let out = run(&mut dev, &s, no_cpu);
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.observed.len(), 1000 + dev.batches - 1);
}

/// CONF-ADP-007: an output timed outside its batch, after its `until` (up to the top of
/// the clock) or before the previous batch's, ends the scenario of an in-process device in
/// a protocol error too, so that no time a device gives moves the runner's lag or clock
/// past the batch it came in.
#[test]
fn an_in_process_output_outside_its_batch_fails_its_scenario() {
    let s = scenario();
    type Time = fn(u64) -> u64;
    let cases: [(usize, Time); 4] =
        [(1, |_| u64::MAX), (1, |u| u + 1), (2, |u| u.saturating_mul(2)), (2, |_| 0)];
    for (k, (when, at)) in cases.into_iter().enumerate() {
        // In batch `when`, one output at the time `at` makes of the batch's `until`.
        let mut dev =
            Scripted::new(
                move |batch, until| {
                    if batch == when { vec![empty_frame(at(until))] } else { vec![] }
                },
            );
        let out = run(&mut dev, &s, no_cpu);
        let Some(DeviceError::Protocol(msg)) = &out.error else {
            panic!("case {k}: expected a protocol error, got {:?}", out.error);
        };
        assert!(msg.contains("is outside the batch"), "case {k}: {msg}");
        assert!(out.observed.is_empty(), "case {k}: an output outside its batch was kept");
    }
}

/// CONF-ADP-026.a: a device's message of 16 MiB is quoted by its start and its end.
#[test]
fn a_long_device_message_is_quoted_in_part() {
    use openrdma_conformance::report::{DeviceFailure, QUOTE_CHARS, quote, wrap};
    let long = format!("line 3, waiting for hello: {}expected u32", "9".repeat(16 << 20));
    let e = DeviceError::Protocol(long.clone());
    let f = DeviceFailure::of(&e, None).expect("a failure");
    assert!(f.message.chars().count() < QUOTE_CHARS + 100, "{}", f.message.len());
    assert!(f.message.starts_with("line 3, waiting for hello: 999"));
    assert!(f.message.ends_with("999expected u32"));
    let left_out = long.len() - QUOTE_CHARS;
    assert!(
        f.message.contains(&format!("[{left_out} characters of the device's message left out]"))
    );
    // A message within the bound is quoted whole, to its last character.
    let edge = "é".repeat(QUOTE_CHARS);
    assert_eq!(quote(&edge), edge);
    assert_ne!(quote(&format!("{edge}x")), format!("{edge}x"));
    // A word of megabytes wraps in one pass (it once took minutes).
    let t = std::time::Instant::now();
    let lines = wrap(&"x".repeat(4 << 20), "", "", 80);
    assert_eq!(lines.len(), (4 << 20) / 80 + 1);
    assert!(t.elapsed() < std::time::Duration::from_secs(10), "{:?}", t.elapsed());
}
