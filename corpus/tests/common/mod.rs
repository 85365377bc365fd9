//! Helpers shared by the tests of the runner, the scoreboard and the reports: the corpus
//! by name, a device that records how the runner drives it, and edits of frames and runs.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeSet;

use openrdma_codec::frame::{FrameRepr, decode};
use openrdma_conformance::runner::{RunOutcome, run};
use openrdma_corpus as corpus;
use openrdma_device::{
    Body, Capability, CpuHalf, Device, DeviceError, Direction, Manifest, NicEvent, Output,
    Scenario, TimedInput, TimedOutput, Timestamp,
};
use openrdma_sm::{ReferenceDevice, reference_cpu_half};

/// The corpus scenario `name`.
pub fn scenario(name: &str) -> Scenario {
    let (_, build) = corpus::all()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{name} is not in the corpus"));
    build()
}

/// Every scenario of the corpus.
pub fn all_scenarios() -> Vec<Scenario> {
    corpus::all().into_iter().map(|(_, build)| build()).collect()
}

/// The reference device's run of `s`; it must pass.
pub fn reference_run(s: &Scenario) -> RunOutcome {
    let out = run(&mut ReferenceDevice::new(), s, reference_cpu_half);
    assert!(out.error.is_none(), "{}: {:?}", s.manifest.name, out.error);
    out
}

/// The scenario with its CPU-command records left out and `cpu = "reference"`: the
/// runner's reference agent plays the CPU half instead.
pub fn with_reference_cpu(s: &Scenario) -> Scenario {
    let mut s = s.clone();
    s.manifest.cpu = CpuHalf::Reference;
    s.records.retain(|r| !matches!(r.body, Body::Cpu { .. }));
    s
}

/// Whether a frame is a SACK or a NACK.
pub fn is_feedback(bytes: &[u8]) -> bool {
    decode(bytes).bth.is_some_and(|b| {
        b.opcode == openrdma_codec::Opcode::MRC_SACK || b.opcode == openrdma_codec::Opcode::MRC_NACK
    })
}

/// A frame with one edit: decoded, changed, its ICRC computed again.
pub fn edit_frame(bytes: &[u8], edit: impl FnOnce(&mut FrameRepr)) -> Vec<u8> {
    let mut f = decode(bytes).to_repr().expect("a well-formed frame");
    edit(&mut f);
    f.icrc = None;
    f.to_bytes().expect("the edited frame encodes")
}

/// One batch, as the runner gave it.
#[derive(Debug, Clone)]
pub struct Batch {
    /// The inputs.
    pub inputs: Vec<TimedInput>,
    /// The time it ran to.
    pub until: Timestamp,
    /// What the device returned.
    pub outputs: Vec<TimedOutput>,
}

/// How a device failed, for [`Recording::fail_at`].
#[derive(Debug, Clone)]
pub enum FailAt {
    /// `start` returns this error.
    Start(DeviceError),
    /// The advance of this index (0 for the first) returns this error.
    Advance(usize, DeviceError),
}

/// A device that records every call the runner makes: the reference device, or another,
/// inside. It can be told to claim fewer capabilities, or to fail.
pub struct Recording<D: Device> {
    /// The device inside.
    pub inner: D,
    /// Every batch of the current scenario.
    pub batches: Vec<Batch>,
    /// Calls of `start`.
    pub starts: usize,
    /// Calls of `finish`.
    pub finishes: usize,
    /// Calls of `advance` after the device failed.
    pub calls_after_failure: usize,
    /// Capabilities to deny, whatever the device inside claims.
    pub without: BTreeSet<Capability>,
    /// How to fail, if at all.
    pub fail: Option<FailAt>,
    failed: bool,
}

impl<D: Device> Recording<D> {
    /// Records `inner`.
    pub fn new(inner: D) -> Self {
        Recording {
            inner,
            batches: Vec::new(),
            starts: 0,
            finishes: 0,
            calls_after_failure: 0,
            without: BTreeSet::new(),
            fail: None,
            failed: false,
        }
    }

    /// Every input given in the scenario, in order.
    pub fn inputs(&self) -> Vec<TimedInput> {
        self.batches.iter().flat_map(|b| b.inputs.iter().cloned()).collect()
    }
}

impl Recording<ReferenceDevice> {
    /// Records the reference device.
    pub fn reference() -> Self {
        Recording::new(ReferenceDevice::new())
    }
}

impl<D: Device> Device for Recording<D> {
    fn name(&self) -> String {
        format!("recording:{}", self.inner.name())
    }

    fn capabilities(&self) -> BTreeSet<Capability> {
        self.inner.capabilities().difference(&self.without).copied().collect()
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        self.starts += 1;
        self.batches.clear();
        self.failed = false;
        if let Some(FailAt::Start(e)) = &self.fail {
            self.failed = true;
            return Err(e.clone());
        }
        self.inner.start(manifest)
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        if self.failed {
            self.calls_after_failure += 1;
        }
        let index = self.batches.len();
        self.batches.push(Batch { inputs: inputs.clone(), until, outputs: Vec::new() });
        if let Some(FailAt::Advance(k, e)) = &self.fail {
            if *k == index {
                self.failed = true;
                return Err(e.clone());
            }
        }
        let out = self.inner.advance(inputs, until)?;
        if let Some(b) = self.batches.last_mut() {
            b.outputs = out.clone();
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<(), DeviceError> {
        if self.failed {
            self.calls_after_failure += 1;
        }
        self.finishes += 1;
        self.inner.finish()
    }
}

/// The frames among `outputs`, with their times.
pub fn frames(outputs: &[TimedOutput]) -> Vec<(u64, Vec<u8>)> {
    outputs
        .iter()
        .filter_map(|o| match &o.output {
            Output::Frame { bytes, .. } => Some((o.at.0, bytes.clone())),
            Output::Event { .. } => None,
        })
        .collect()
}

/// The events among `outputs`, with their times.
pub fn events(outputs: &[TimedOutput]) -> Vec<(u64, NicEvent)> {
    outputs
        .iter()
        .filter_map(|o| match &o.output {
            Output::Event { event } => Some((o.at.0, event.clone())),
            Output::Frame { .. } => None,
        })
        .collect()
}

/// The inject records of `s`, in order, as inputs at their times.
pub fn inject_inputs(s: &Scenario) -> Vec<TimedInput> {
    s.records
        .iter()
        .filter(|r| r.dir == Direction::Inject)
        .filter_map(|r| r.body.input().map(|input| TimedInput { at: r.at, input }))
        .collect()
}
