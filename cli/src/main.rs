//! `openrdma`: the OpenRDMA command line. Each subcommand lives in `cmd/<name>.rs`.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Parser, Subcommand};
use openrdma_cli::cmd;
use openrdma_cli::error::finish;

/// OpenRDMA: multipath reliable RDMA (RoCEv2 + MRC), from the wire up.
#[derive(Debug, Parser)]
#[command(name = "openrdma", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the conformance suite against an implementation (the reference model by default)
    /// and print a verdict per scenario and the requirement coverage.
    Run(cmd::run::RunArgs),
    /// Judge a capture recorded from a device (no adapter) against a scenario.
    Check(cmd::check::CheckArgs),
    /// The scenario corpus: regenerate it from the reference model, or list it.
    Traces(cmd::traces::TracesArgs),
    /// Decode every frame of a pcap or pcapng capture, readable or as JSON Lines.
    Dissect(cmd::dissect::DissectArgs),
    /// Be a device on standard input and output, over the adapter protocol (the reference
    /// model, or a faulty device or variant).
    Serve(cmd::serve::ServeArgs),
    /// The multipath fabric simulator: reference endpoints over N impaired paths.
    Sim(cmd::sim::SimArgs),
    /// A quick run of the benchmarks (codec, ICRC, model, simulator, process adapter),
    /// as a table or, with `--json`, one JSON object.
    Bench(cmd::bench::BenchArgs),
}

fn main() -> ExitCode {
    openrdma_cli::output::guard_standard_streams();
    watch_signals();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage(&e),
    };
    let code = finish(match &cli.command {
        Command::Run(args) => cmd::run::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Traces(args) => cmd::traces::run(args),
        Command::Dissect(args) => cmd::dissect::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Sim(args) => cmd::sim::run(args),
        Command::Bench(args) => cmd::bench::run(args),
    });
    // `bench` measures the memory of a command it runs as a child this way.
    if std::env::var_os(cmd::bench::PEAK_MEMORY_ENV).is_some() {
        if let Some(k) = cmd::sim::peak_memory_kib() {
            eprintln!("peak memory {k} KiB");
        }
    }
    if SIGNALLED.load(Ordering::SeqCst) {
        // A signal is ending the process: its thread ends the devices, then the process.
        loop {
            std::thread::park();
        }
    }
    code
}

/// Whether a terminating signal arrived.
static SIGNALLED: AtomicBool = AtomicBool::new(false);

/// What clap has to say: help and the version on standard output (exit code 0, or 2 when it
/// cannot be written), anything else on standard error (exit code 2).
fn usage(e: &clap::Error) -> ExitCode {
    use std::io::Write as _;
    if e.use_stderr() {
        let _ = write!(std::io::stderr().lock(), "{}", e.render());
        return ExitCode::from(2);
    }
    let mut out = openrdma_cli::output::Stdout::new();
    let _ = write!(out, "{}", e.render());
    finish(out.finish(openrdma_cli::error::Outcome::Clean))
}

/// On SIGTERM, SIGINT or SIGHUP (a CI system cancelling a job, Ctrl-C, a closed terminal),
/// ends the devices this process runs, with their process groups, and then ends as the
/// signal would have ended it.
fn watch_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            SIGNALLED.store(true, Ordering::SeqCst);
            openrdma_conformance::process::end_all_devices();
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(128 + signal);
        }
    });
}
