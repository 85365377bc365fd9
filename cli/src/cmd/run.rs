//! `openrdma run`: the conformance suite against an implementation.

use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use openrdma_conformance::file;
use openrdma_conformance::process::{ProcessDevice, ProcessOptions};
use openrdma_conformance::report::{
    SuiteReport, TABLE_WIDTH, TableOptions, render_junit, render_table_with, run_suite,
    unstarted_suite, wrap,
};
use openrdma_conformance::requirements::Spec;
use openrdma_corpus as corpus;
use openrdma_corpus::faults::{self, Class, Mutant, by_cli_name};
use openrdma_device::{Device, DeviceError, Scenario};
use openrdma_sm::{ReferenceDevice, reference_cpu_half};

use crate::error::{CliError, Outcome};
use crate::output::{Failure, ReportPlan, Stdout, settle};

/// Arguments of `openrdma run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The implementation under test: `reference` (the built-in model), `process` (the
    /// command after `--`, speaking the adapter protocol), `faulty:NAME` or `variant:NAME`
    /// (see --list-impls).
    #[arg(long = "impl", default_value = "reference", value_name = "IMPL")]
    pub implementation: String,
    /// With `--impl process`: the longest wait for any answer of the device, in seconds (at
    /// least 1).
    #[arg(long, default_value_t = 30, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: u64,
    /// With `--impl process`: the command that runs the device.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    /// Run only the scenarios whose name matches this pattern (`*` and `?` wildcards).
    #[arg(long, value_name = "GLOB")]
    pub scenario: Option<String>,
    /// Write the report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the report as JUnit XML to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// List the implementations that can be run, and exit.
    #[arg(long)]
    pub list_impls: bool,
    /// Print, with their sentences, the device and CPU-half requirements no scenario covers.
    #[arg(long)]
    pub uncovered: bool,
    /// Also list, below each scenario's line, the requirements it checks (the JSON report
    /// always holds them).
    #[arg(short, long)]
    pub verbose: bool,
    /// Run the scenarios of this directory (`NAME.pcapng` + `NAME.toml` pairs) instead of
    /// the built-in corpus (which is what `traces/` holds).
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
}

/// A deadline in whole seconds, at least 1: a deadline of 0 would time out every answer.
fn parse_timeout(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("0 s would time out every answer of the device; give at least 1".into()),
        Ok(v) => Ok(v),
        Err(e) => Err(format!("a whole number of seconds: {e}")),
    }
}

/// The scenarios of a directory: every `NAME.toml` with its `NAME.pcapng`, each checked as
/// it is read (values, requirement IDs, the binding of the two files, unique names).
fn load_dir(dir: &std::path::Path) -> Result<Vec<Scenario>, CliError> {
    file::load_dir(dir).map_err(|e| CliError::Usage(e.to_string()))
}

/// Checks a built-in scenario as a scenario file is checked when it is read: its values
/// and the requirements it names (`CONF-FMT-008`, `CONF-FMT-009`).
fn check_builtin(s: &Scenario, spec: &Spec) -> Result<(), CliError> {
    let m = &s.manifest;
    match m.validate().err().or_else(|| file::unknown_requirement(m, spec)) {
        Some(e) => Err(CliError::Usage(format!("built-in scenario {}: {e}", m.name))),
        None => Ok(()),
    }
}

/// Whether `name` matches a pattern with `*` (any run) and `?` (any one character).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

/// The device of a run in this process, or `None` for `--impl process`, whose command is
/// checked here and started by [`process_device`] once the scenarios are read.
fn device(args: &RunArgs) -> Result<Option<Box<dyn Device>>, CliError> {
    let name = args.implementation.as_str();
    if name != "process" && !args.command.is_empty() {
        return Err(CliError::Usage(format!(
            "a command after `--` is only for `--impl process`, not `{name}`"
        )));
    }
    if name == "reference" {
        return Ok(Some(Box::new(ReferenceDevice::new())));
    }
    if name == "process" {
        if args.command.is_empty() {
            return Err(CliError::Usage(
                "`--impl process` needs the device's command after `--`, for example \
                 `openrdma run --impl process -- openrdma serve`"
                    .into(),
            ));
        }
        return Ok(None);
    }
    match by_cli_name(name) {
        Some(k) => Ok(Some(Box::new(Mutant::new(k)))),
        None => Err(CliError::Usage(format!(
            "unknown implementation `{name}`; `openrdma run --list-impls` lists them"
        ))),
    }
}

/// Starts the device of `--impl process` and says hello (CONF-ADP-002).
fn process_device(args: &RunArgs) -> Result<Box<dyn Device>, DeviceError> {
    let options =
        ProcessOptions { timeout: Duration::from_secs(args.timeout), ..ProcessOptions::default() };
    ProcessDevice::spawn_with(&args.command, options).map(|d| Box::new(d) as Box<dyn Device>)
}

fn list_impls(out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "reference                       the built-in reference model (default)")?;
    writeln!(
        out,
        "process -- COMMAND...           any implementation speaking the adapter protocol"
    )?;
    // Every entry of the fault registry, faults first.
    for class in [Class::Fault, Class::Variant] {
        for k in faults::all().filter(|k| k.class == class) {
            let name = k.cli_name();
            let tail = match class {
                Class::Fault => {
                    let ids: Vec<&str> = k.breaks.iter().map(|c| c.id()).collect();
                    format!("(breaks {})", ids.join(", "))
                }
                Class::Variant => "(must pass)".to_string(),
            };
            writeln!(out, "{name:<31} {} {tail}", k.what)?;
        }
    }
    Ok(())
}

/// The files a run reads, which no report may replace: the scenarios of `--traces` and
/// the device's program.
fn inputs(args: &RunArgs) -> Vec<(&'static str, PathBuf)> {
    let mut inputs = Vec::new();
    if let Some(dir) = &args.traces {
        if let Ok(entries) = fs::read_dir(dir) {
            for p in entries.filter_map(Result::ok).map(|e| e.path()) {
                if p.extension().is_some_and(|x| x == "toml" || x == "pcapng") {
                    inputs.push(("the scenario file", p));
                }
            }
        }
    }
    if let Some(program) = args.command.first() {
        let p = PathBuf::from(program);
        if p.is_file() {
            inputs.push(("the device's program", p));
        }
    }
    inputs
}

/// Runs the suite. Every report path is checked before the first scenario runs; the
/// reports are written before the table, each apart (see [`crate::output`]).
pub fn run(args: &RunArgs) -> Result<Outcome, CliError> {
    if args.list_impls {
        let mut out = Stdout::new();
        list_impls(&mut out)?;
        return out.finish(Outcome::Clean);
    }
    let inputs = inputs(args);
    let inputs: Vec<(&str, &std::path::Path)> =
        inputs.iter().map(|(w, p)| (*w, p.as_path())).collect();
    let reports = ReportPlan::new(
        &[("--json", args.json.as_deref()), ("--junit", args.junit.as_deref())],
        &inputs,
    )?;
    // A device in this process starts nothing; a device in another process is started only
    // once every scenario has been read and checked.
    let in_process = device(args)?;
    let spec =
        Spec::bundled().map_err(|e| CliError::Usage(format!("the built-in specification: {e}")))?;
    let selected = |name: &str| args.scenario.as_deref().is_none_or(|g| glob_match(g, name));
    // Every scenario is read and checked before any device starts: a scenario that could
    // never run is the scenario's fault, not the device's.
    let scenarios: Vec<Scenario> = match &args.traces {
        Some(dir) => load_dir(dir)?.into_iter().filter(|s| selected(&s.manifest.name)).collect(),
        None => corpus::all()
            .into_iter()
            .filter(|(name, _)| selected(name))
            .map(|(_, build)| build())
            .collect(),
    };
    if scenarios.is_empty() {
        return Err(CliError::Usage(format!(
            "no scenario matches `{}`",
            args.scenario.as_deref().unwrap_or("*")
        )));
    }
    if args.traces.is_none() {
        for s in &scenarios {
            check_builtin(s, &spec)?;
        }
    }
    let mut dev = match in_process {
        Some(dev) => dev,
        None => match process_device(args) {
            Ok(dev) => dev,
            // CONF-ADP-024: a device that fails its first hello still gets its reports.
            Err(e) => {
                let name = args.command.join(" ");
                let report = unstarted_suite(&name, &e, &scenarios, &spec);
                let failures = write_out(args, &reports, &report, &spec)?;
                // Whether or not the reports were written, the suite could not run.
                let _ = settle(Outcome::Findings, failures);
                crate::output::warn(format_args!(
                    "error: the device failed before its first scenario, and no scenario ran: {e}"
                ));
                return Err(CliError::Reported);
            }
        },
    };
    let bar = ProgressBar::with_draw_target(
        Some(scenarios.len() as u64),
        if io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template("{pos:>3}/{len} {bar:30} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let report = run_suite(dev.as_mut(), reference_cpu_half, &scenarios, &spec, &mut |k, name| {
        bar.set_position(k as u64);
        bar.set_message(name.to_string());
    });
    bar.finish_and_clear();
    // The device is done: end it (and its process group) before the output is written.
    drop(dev);
    let outcome = if report.failed() { Outcome::Findings } else { Outcome::Clean };
    let failures = write_out(args, &reports, &report, &spec)?;
    settle(outcome, failures)
}

/// Writes the reports asked for, then the table (see [`crate::output`]); gives what could
/// not be written.
fn write_out(
    args: &RunArgs,
    reports: &ReportPlan,
    report: &SuiteReport,
    spec: &Spec,
) -> Result<Vec<Failure>, CliError> {
    let json = reports.write("--json", || {
        let mut v = serde_json::to_vec_pretty(report).unwrap_or_default();
        v.push(b'\n');
        v
    });
    let junit = reports.write("--junit", || render_junit(report).into_bytes());
    let mut out = Stdout::new();
    let table = render_table_with(report, TableOptions { verbose: args.verbose });
    out.write_all(table.as_bytes())?;
    if args.uncovered {
        writeln!(out, "\nnot covered by any scenario:")?;
        for id in &report.coverage.uncovered {
            let text = match spec.get(id) {
                Some(r) => format!("{id} [{}] {}", r.level.keyword(), r.text),
                None => id.clone(),
            };
            for l in wrap(&text, "  ", "    ", TABLE_WIDTH) {
                writeln!(out, "{l}")?;
            }
        }
    }
    let stdout = out.close().map(Failure::Stdout);
    Ok([json, junit, stdout].into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("rcv-*", "rcv-psn-wrap"));
        assert!(glob_match("*wrap", "rcv-psn-wrap"));
        assert!(glob_match("snd-??????-loss", "snd-single-loss"));
        assert!(!glob_match("snd-?????-loss", "snd-single-loss"));
        assert!(!glob_match("snd-*", "rcv-psn-wrap"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("a", ""));
    }
}
