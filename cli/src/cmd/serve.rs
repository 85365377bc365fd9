//! `openrdma serve [--impl IMPL]`: a device on standard input and output, over the adapter
//! protocol (`spec/conformance.md`, `CONF-ADP-*`).
//!
//! It exposes the reference model — or, with `--impl faulty:NAME` or `--impl
//! variant:NAME`, one of the suite's faulty devices or legitimate variants — to a runner
//! that drives it as a process (`openrdma run --impl process -- openrdma serve`). Teams
//! writing a harness for their own device can watch a known-good device, and known
//! failures, through the same path as theirs, and read the conversation it holds.
//!
//! It reads one message per line and answers each. It ends with exit code 0 when its
//! standard input ends, and with exit code 2, after writing an `error` message, when the
//! runner breaks the protocol (a line that is not a message, a message out of place, a
//! wrong `seq`, time going backwards). The device's own failures are answered with `error`
//! and serving goes on. It writes nothing else on standard output.

use std::io::{self, BufReader, BufWriter};

use openrdma_conformance::protocol::{ServeError, serve};
use openrdma_corpus::faults::{Mutant, by_cli_name};
use openrdma_device::Device;
use openrdma_sm::ReferenceDevice;

use crate::error::{CliError, Outcome};

/// Arguments of `openrdma serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// The device to expose: `reference` (the built-in model), `faulty:NAME` or
    /// `variant:NAME` (`openrdma run --list-impls` lists them).
    #[arg(long = "impl", default_value = "reference", value_name = "IMPL")]
    pub implementation: String,
}

/// The device an `--impl` value names.
pub fn device(name: &str) -> Result<Box<dyn Device>, CliError> {
    if name == "reference" {
        return Ok(Box::new(ReferenceDevice::new()));
    }
    match by_cli_name(name) {
        Some(k) => Ok(Box::new(Mutant::new(k))),
        None => Err(CliError::Usage(format!(
            "unknown implementation `{name}` to serve; `openrdma run --list-impls` lists them"
        ))),
    }
}

/// Runs the command on standard input and output.
pub fn run(args: &ServeArgs) -> Result<Outcome, CliError> {
    let mut dev = device(&args.implementation)?;
    let input = BufReader::with_capacity(1 << 20, io::stdin().lock());
    let output = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    match serve(dev.as_mut(), input, output) {
        Ok(()) => Ok(Outcome::Clean),
        Err(ServeError::Io(e)) => Err(CliError::Output(e)),
        Err(e @ ServeError::Protocol(_)) => Err(CliError::Usage(e.to_string())),
    }
}
