//! How a hardware team puts its own NIC behind the suite: implement
//! [`openrdma_device::Device`] and hand it to the runner. The device here is a stand-in that
//! takes every input and produces nothing, so each responder scenario fails and the report
//! shows what a failure looks like. Replace its `advance` with calls into your simulator or
//! board.
//!
//! ```text
//! cargo run -p openrdma-conformance --example your_device              # the corpus in traces/
//! cargo run -p openrdma-conformance --example your_device -- DIR        # another corpus
//! ```

use std::collections::BTreeSet;
use std::path::PathBuf;

use openrdma_conformance::file::{bundled_spec, load_dir};
use openrdma_conformance::report::{render_table, run_suite};
use openrdma_device::{
    Capability, Device, DeviceError, Manifest, RecoveryCpu, RecoverySettings, TimedInput,
    TimedOutput, Timestamp,
};

/// A responder that never answers.
#[derive(Debug, Default)]
struct SilentNic {
    inputs: usize,
}

impl Device for SilentNic {
    fn name(&self) -> String {
        "silent-nic".to_string()
    }

    /// Scenarios that need anything else are reported `unsupported`, never failed.
    fn capabilities(&self) -> BTreeSet<Capability> {
        BTreeSet::from([Capability::Responder, Capability::Ipv4])
    }

    fn start(&mut self, _manifest: &Manifest) -> Result<(), DeviceError> {
        self.inputs = 0;
        Ok(())
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        _until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        self.inputs += inputs.len();
        Ok(Vec::new())
    }
}

/// This device has no CPU half of recovery, so scenarios that need one are unsupported.
fn no_cpu_half(_: &RecoverySettings) -> Result<Box<dyn RecoveryCpu>, DeviceError> {
    Err(DeviceError::Unsupported("no CPU half of recovery".to_string()))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../traces/scenarios"));
    let scenarios = load_dir(&dir)?;
    let mut nic = SilentNic::default();
    let report = run_suite(&mut nic, no_cpu_half, &scenarios, bundled_spec(), &mut |_, _| {});
    print!("{}", render_table(&report));
    Ok(())
}
