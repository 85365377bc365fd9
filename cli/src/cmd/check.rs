//! `openrdma check`: judge a capture recorded from a device (no adapter) against a
//! scenario's expectations.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use openrdma_conformance::file;
use openrdma_conformance::report::render_table;
use openrdma_conformance::requirements::Spec;
use openrdma_conformance::scoreboard::{Verdict, judge, output_cap, over_cap, scenario_end};
use openrdma_device::{Direction, TimedInput};

use crate::error::{CliError, Outcome};
use crate::output::{Failure, ReportPlan, Stdout, settle};

/// Arguments of `openrdma check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The scenario: `NAME`, `NAME.pcapng` or `NAME.toml` (both files side by side).
    pub scenario: PathBuf,
    /// A capture (pcap or pcapng) of what the device produced: its frames, and, in the
    /// host-event encoding of the scenario format, its DMA writes, flags and completions.
    #[arg(long, value_name = "CAPTURE")]
    pub observed: PathBuf,
    /// Write the report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// Runs `openrdma check`.
pub fn run(args: &CheckArgs) -> Result<Outcome, CliError> {
    let (pcapng, toml) = file::paths(&args.scenario);
    let reports = ReportPlan::new(
        &[("--json", args.json.as_deref())],
        &[
            ("the observed capture", &args.observed),
            ("the scenario's capture", &pcapng),
            ("the scenario's manifest", &toml),
        ],
    )?;
    let scenario = file::load(&args.scenario).map_err(|e| CliError::Usage(e.to_string()))?;
    // Streamed within the scenario's bounds (CONF-CMP-044): outputs after its end are
    // counted, and no more than the cap are kept, whatever the size of the capture.
    let end = scenario_end(&scenario);
    let cap = output_cap(&scenario);
    let observed = file::read_observed_within(&args.observed, end, cap)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let spec = Spec::bundled().map_err(|e| CliError::Usage(e.to_string()))?;
    // Offline, the device was given exactly what the scenario injects.
    let injected: Vec<TimedInput> = scenario
        .records
        .iter()
        .filter(|r| r.dir == Direction::Inject)
        .filter_map(|r| Some(TimedInput { at: r.at, input: r.body.input()? }))
        .collect();
    let j = match observed.first_over {
        Some(at) => over_cap(&scenario, observed.sent, at),
        None => judge(&scenario, &injected, &observed.outputs),
    };
    let report = openrdma_conformance::report::judged_report(
        &format!("capture {}", args.observed.display()),
        &scenario,
        j,
        &spec,
    );
    let outcome = if report.scenarios.iter().any(|s| s.verdict == Verdict::Fail) {
        Outcome::Findings
    } else {
        Outcome::Clean
    };
    let json = reports.write("--json", || {
        let mut v = serde_json::to_vec_pretty(&report).unwrap_or_default();
        v.push(b'\n');
        v
    });
    let mut out = Stdout::new();
    out.write_all(render_table(&report).as_bytes())?;
    if observed.after_end > 0 {
        let note = format!(
            "{} outputs of the capture come after the scenario's end ({} ns, drain_ns after \
             its last record) and are not judged (CONF-CMP-044).\n",
            observed.after_end, end.0
        );
        out.write_all(note.as_bytes())?;
    }
    let stdout = out.close().map(Failure::Stdout);
    settle(outcome, [json, stdout].into_iter().flatten())
}
