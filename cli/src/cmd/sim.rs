//! `openrdma sim`: the multipath fabric simulator.
//!
//! `openrdma sim run` builds a [`SimConfig`] from its options, or from a TOML file of the
//! same knobs (`--config`, options winning over the file): two hosts, N identical paths, one
//! flow of Q QPs from host 0 to host 1. It runs it, and prints a summary — or, with
//! `--json`, the [`SimReport`]. Standard output is deterministic; the wall-clock time
//! and the simulation speed go to standard error. Exit code 1 when the verdict fails: a
//! message not delivered exactly once and in order, or not completed successfully, a QP in
//! error, a packet the model rejected, or the horizon reached; 2 when an option is out of
//! what the simulator holds (see [`openrdma_sim::RunSpec::config`]).

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use openrdma_codec::Psn;
use openrdma_sim::paper::{self, PaperReport};
use openrdma_sim::plot::write_plots;
use openrdma_sim::runspec::{self, DropSpec, FailSpec};
use openrdma_sim::{Percentiles, RunSpec, RunSpecError, Sim, SimConfig, SimReport};
use openrdma_sm::{RetirementMode, SprayPolicy};

use crate::error::{CliError, Outcome};
use crate::output::{Failure, Stdout, check_output_dir, settle, warn};

/// Arguments of `openrdma sim`.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: SimCommand,
}

/// The subcommands of `openrdma sim`.
#[derive(Debug, Subcommand)]
pub enum SimCommand {
    /// Run one simulation: two hosts, N paths, Q QPs × M messages of B bytes (RDMA Write),
    /// and report delivery, correctness, goodput and latency.
    Run(Box<SimRunArgs>),
    /// Rerun the OpenRDMA paper's experiments and print each next to the paper's figure.
    Paper(SimPaperArgs),
}

/// Arguments of `openrdma sim paper`.
#[derive(Debug, Args)]
pub struct SimPaperArgs {
    /// Print the report as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Write SVG plots into this directory.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<std::path::PathBuf>,
    /// Seed of every run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Shortened run: fewer messages and fewer points.
    #[arg(long)]
    pub quick: bool,
}

/// The loss process of every path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LossKind {
    /// Independent losses with probability P.
    Random,
    /// Gilbert–Elliott bursts with mean loss P and mean burst length --burst-len.
    Bursty,
}

/// Retirement ordering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Retirement {
    /// One sequence shared by the QPs of the flow.
    Shared,
    /// One sequence per QP.
    PerQp,
}

/// Spraying policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Spray {
    /// Cycle through the EVs.
    RoundRobin,
    /// A random EV per packet.
    Random,
    /// One EV (one path) per QP.
    Fixed,
    /// Prefer EVs with short measured round trips.
    SkewAware,
    /// Round robin over the EVs whose round trip the window covers; leave out a slow path
    /// when the window would otherwise limit the QP below what the other paths carry.
    WindowFit,
}

/// Arguments of `openrdma sim run`. Every option may also come from the `--config` file
/// (the same names without the dashes in front, `openrdma_sim::runspec`); an option given
/// on the command line wins over the file, and the file over the default.
#[derive(Debug, Args)]
pub struct SimRunArgs {
    /// Read the knobs from this TOML file first (keys: the option names, e.g.
    /// `rate-gbps = 100`, `drop = ["0:5"]`).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Number of paths [default: 4].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub paths: Option<u16>,
    /// Rate of each path, Gb/s [default: 100].
    #[arg(long)]
    pub rate_gbps: Option<f64>,
    /// Path MTU: payload bytes per packet [default: 4096].
    #[arg(long, value_parser = parse_mtu)]
    pub mtu: Option<u32>,
    /// Loss probability of every path, 0 ≤ P < 1 [default: 0].
    #[arg(long)]
    pub loss: Option<f64>,
    /// Loss process [default: random].
    #[arg(long, value_enum)]
    pub loss_model: Option<LossKind>,
    /// Mean burst length of the bursty loss model, packets [default: 4].
    #[arg(long)]
    pub burst_len: Option<f64>,
    /// Path skew, ns: path i gets i·S/(N−1) ns of extra delay, so the last path is S ns
    /// slower than the first [default: 0].
    #[arg(long)]
    pub skew_ns: Option<u64>,
    /// One-way propagation delay of every path, ns [default: 500].
    #[arg(long)]
    pub delay_ns: Option<u64>,
    /// Byte limit of each switch output queue (tail drop) [default: 1048576].
    #[arg(long)]
    pub queue_bytes: Option<u64>,
    /// Queue pairs [default: 8].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub qps: Option<u32>,
    /// Messages per QP [default: 100].
    #[arg(long)]
    pub messages: Option<u32>,
    /// Bytes per message [default: 65536].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=(1 << 31)))]
    pub message_bytes: Option<u32>,
    /// Interval between the messages of a QP, ns; 0: all posted at once [default: 0].
    #[arg(long)]
    pub post_interval_ns: Option<u64>,
    /// Seed of every random choice [default: 0].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Retirement ordering [default: shared].
    #[arg(long, value_enum)]
    pub retirement: Option<Retirement>,
    /// Spraying policy [default: round-robin].
    #[arg(long, value_enum)]
    pub spray: Option<Spray>,
    /// Window, in units of 128 packets (MPR) [default: 2].
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=64))]
    pub mpr: Option<u8>,
    /// EVs per QP, spread over the paths [default: 8].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub evs_per_qp: Option<u32>,
    /// Drop the first transmission of PSN on QP (index from 0): `QP:PSN`. Repeatable; given
    /// on the command line, replaces the file's list.
    #[arg(long = "drop", value_name = "QP:PSN", value_parser = parse_drop)]
    pub drops: Vec<(u32, Psn)>,
    /// Take a path down during [FROM, TO) ns: `PATH:FROM:TO`. Repeatable; given on the
    /// command line, replaces the file's list.
    #[arg(long = "fail", value_name = "PATH:FROM:TO", value_parser = parse_fail)]
    pub failures: Vec<(usize, u64, u64)>,
    /// Stop at this simulated time, ms, even if work remains [default: 10000].
    #[arg(long)]
    pub horizon_ms: Option<u64>,
    /// IPv6 (40-byte header) instead of IPv4.
    #[arg(long)]
    pub ipv6: bool,
    /// Tail probes: a probe follows the last data packet on an EV this many ns after it
    /// left, when it is still not acknowledged (SND-TAIL-001); 0 turns them off [default:
    /// the slowest path's round trip plus the receiver's 1000 ns SACK delay: 2000 ns on the
    /// default paths].
    #[arg(long)]
    pub tail_probe_ns: Option<u64>,
    /// Timeouts in a row a QP survives before it fails with RETRY_EXCEEDED (REC-RETRY-002)
    /// [default: 7 on a lossless fabric; with --loss P, raised until a QP is ended by loss
    /// alone less than once in 10^9 times: 47 at P = 0.4, 73 at 0.5].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub retry_limit: Option<u32>,
    /// Print the report as JSON instead of the summary.
    #[arg(long)]
    pub json: bool,
}

fn parse_mtu(s: &str) -> Result<u32, String> {
    match s.parse() {
        Ok(v @ (256 | 512 | 1024 | 2048 | 4096)) => Ok(v),
        _ => Err("one of 256, 512, 1024, 2048, 4096".into()),
    }
}

fn parse_drop(s: &str) -> Result<(u32, Psn), String> {
    let d: DropSpec = s.parse()?;
    Ok((d.qp, d.psn))
}

fn parse_fail(s: &str) -> Result<(usize, u64, u64), String> {
    let f: FailSpec = s.parse()?;
    Ok((f.path, f.from_ns, f.to_ns))
}

/// The knobs of a run: the `--config` file's, or the defaults, with every option given on
/// the command line put over them.
pub fn spec(args: &SimRunArgs) -> Result<RunSpec, CliError> {
    let mut s = match &args.config {
        None => RunSpec::default(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                CliError::Usage(format!("--config {}: cannot read: {e}", path.display()))
            })?;
            RunSpec::from_toml(&text)
                .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?
        }
    };
    macro_rules! over {
        ($($field:ident),*) => {$( if let Some(v) = args.$field { s.$field = v; } )*};
    }
    over!(
        paths,
        rate_gbps,
        mtu,
        loss,
        burst_len,
        skew_ns,
        delay_ns,
        queue_bytes,
        qps,
        messages,
        message_bytes,
        post_interval_ns,
        seed,
        mpr,
        evs_per_qp,
        horizon_ms
    );
    if let Some(k) = args.retry_limit {
        s.retry_limit = Some(k);
    }
    if let Some(ns) = args.tail_probe_ns {
        s.tail_probe_ns = Some(ns);
    }
    if let Some(k) = args.loss_model {
        s.loss_model = match k {
            LossKind::Random => runspec::LossKind::Random,
            LossKind::Bursty => runspec::LossKind::Bursty,
        };
    }
    if let Some(r) = args.retirement {
        s.retirement = match r {
            Retirement::Shared => RetirementMode::Shared,
            Retirement::PerQp => RetirementMode::PerQp,
        };
    }
    if let Some(p) = args.spray {
        s.spray = match p {
            Spray::RoundRobin => SprayPolicy::RoundRobin,
            Spray::Random => SprayPolicy::Random,
            Spray::Fixed => SprayPolicy::Fixed,
            Spray::SkewAware => SprayPolicy::SkewAware,
            Spray::WindowFit => SprayPolicy::WindowFit,
        };
    }
    if !args.drops.is_empty() {
        s.drop = args.drops.iter().map(|&(qp, psn)| DropSpec { qp, psn }).collect();
    }
    if !args.failures.is_empty() {
        s.fail = args
            .failures
            .iter()
            .map(|&(path, from_ns, to_ns)| FailSpec { path, from_ns, to_ns })
            .collect();
    }
    s.ipv6 |= args.ipv6;
    Ok(s)
}

/// The configuration `openrdma sim run` simulates.
pub fn config(args: &SimRunArgs) -> Result<SimConfig, CliError> {
    let s = spec(args)?;
    s.config().map_err(|e| match (e, &args.config) {
        // A value from the file is named as the file names it.
        (RunSpecError::Knob { key, reason }, Some(file)) if !given(args, key) => {
            CliError::Usage(format!("{}: `{key}` {reason}", file.display()))
        }
        (RunSpecError::Knob { key, reason }, _) => CliError::Usage(format!("--{key} {reason}")),
        (RunSpecError::Config(e), Some(file)) => {
            CliError::Usage(format!("{} and the options: {e}", file.display()))
        }
        (RunSpecError::Config(e), None) => CliError::Usage(e.to_string()),
    })
}

/// Whether the option `key` was given on the command line (rather than by the file).
fn given(a: &SimRunArgs, key: &str) -> bool {
    match key {
        "paths" => a.paths.is_some(),
        "rate-gbps" => a.rate_gbps.is_some(),
        "mtu" => a.mtu.is_some(),
        "loss" => a.loss.is_some(),
        "loss-model" => a.loss_model.is_some(),
        "burst-len" => a.burst_len.is_some(),
        "skew-ns" => a.skew_ns.is_some(),
        "delay-ns" => a.delay_ns.is_some(),
        "queue-bytes" => a.queue_bytes.is_some(),
        "qps" => a.qps.is_some(),
        "messages" => a.messages.is_some() || a.qps.is_some() || a.message_bytes.is_some(),
        "message-bytes" => a.message_bytes.is_some(),
        "post-interval-ns" => a.post_interval_ns.is_some() || a.messages.is_some(),
        "mpr" => a.mpr.is_some(),
        "evs-per-qp" => a.evs_per_qp.is_some(),
        "drop" => !a.drops.is_empty(),
        "fail" => !a.failures.is_empty(),
        "horizon-ms" => a.horizon_ms.is_some(),
        "tail-probe-ns" => a.tail_probe_ns.is_some(),
        "retry-limit" => a.retry_limit.is_some(),
        _ => true,
    }
}

/// `openrdma sim`.
pub fn run(args: &SimArgs) -> Result<Outcome, CliError> {
    match &args.command {
        SimCommand::Run(a) => run_one(a),
        SimCommand::Paper(a) => run_paper(a),
    }
}

fn run_paper(args: &SimPaperArgs) -> Result<Outcome, CliError> {
    if let Some(dir) = &args.plots {
        check_output_dir("--plots", dir)?;
    }
    let wall = Instant::now();
    let report = paper::run(args.seed, args.quick);
    let elapsed = wall.elapsed();
    let outcome = if report.is_correct() { Outcome::Clean } else { Outcome::Findings };
    let mut out = Stdout::new();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report).map_err(io::Error::other)?;
        writeln!(out)?;
    } else {
        out.write_all(paper_text(&report).as_bytes())?;
    }
    let stdout = out.close().map(Failure::Stdout);
    let mut plots = None;
    if let Some(dir) = &args.plots {
        match write_plots(&report, dir) {
            Ok(files) => {
                for f in files {
                    warn(format_args!("wrote {}", f.display()));
                }
            }
            Err(e) => {
                warn(format_args!("error: --plots {}: {e}", dir.display()));
                plots = Some(Failure::Report);
            }
        }
    }
    warn(format_args!("wall time {:.3} s", elapsed.as_secs_f64()));
    settle(outcome, [stdout, plots].into_iter().flatten())
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{v:.0}") } else { format!("{v:.2}") }
}

/// The readable table of `openrdma sim paper`.
pub fn paper_text(r: &PaperReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "OpenRDMA paper experiments, seed {}{}",
        r.seed,
        if r.quick { " (quick run)" } else { "" }
    );
    for e in &r.experiments {
        let _ = writeln!(s, "\n({}) {}", e.id, e.name);
        for p in &e.parameters {
            let _ = writeln!(s, "    {:<20} {}", p.name, p.value);
        }
        let _ = writeln!(s, "  ours");
        for f in &e.ours {
            let _ = writeln!(s, "    {:<46} {} {}", f.name, number(f.value), f.unit);
        }
        let _ = writeln!(s, "  paper   {}", e.paper);
        let _ = writeln!(s, "  compare {}", e.comparison);
        for n in &e.notes {
            let _ = writeln!(s, "  note    {n}");
        }
        let c = &e.checks;
        if c.runs > 0 {
            let _ = writeln!(
                s,
                "  checks  {} runs, {} of {} messages delivered; duplicates {} · order violations {} · flags before data {} · writes after flag {}{}",
                c.runs,
                c.messages_delivered,
                c.messages_submitted,
                c.duplicates_delivered,
                c.order_violations,
                c.flag_before_data,
                c.writes_after_flag,
                if c.is_clean() { "" } else { " — FAILED" }
            );
        }
    }
    let _ = writeln!(s, "\nverdict {}", if r.is_correct() { "ok" } else { "FAILED" });
    s
}

fn run_one(args: &SimRunArgs) -> Result<Outcome, CliError> {
    let cfg = config(args)?;
    let mut sim = Sim::new(cfg.clone()).map_err(|e| CliError::Usage(e.to_string()))?;
    let bar = ProgressBar::with_draw_target(
        Some(cfg.messages()),
        if io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} messages {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let wall = Instant::now();
    let report = sim.run_with(&mut |p| {
        bar.set_position(p.messages_delivered);
        bar.set_message(format!("{} µs simulated", p.now_ns / 1000));
    });
    let elapsed = wall.elapsed();
    bar.finish_and_clear();
    let outcome = if report.is_correct() { Outcome::Clean } else { Outcome::Findings };
    let mut out = Stdout::new();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report).map_err(io::Error::other)?;
        writeln!(out)?;
    } else {
        out.write_all(summary(&cfg, &report).as_bytes())?;
    }
    let stdout = out.close().map(Failure::Stdout);
    let secs = elapsed.as_secs_f64();
    warn(format_args!(
        "wall time {:.3} s: {:.0} simulated packets per wall-second, {:.1} µs simulated per wall-second{}",
        secs,
        report.packets_simulated as f64 / secs.max(1e-9),
        report.sim_time_ns as f64 / 1000.0 / secs.max(1e-9),
        peak_memory_kib().map(|k| format!("; peak memory {k} KiB")).unwrap_or_default(),
    ));
    settle(outcome, stdout)
}

/// The most memory this process has held resident (`VmHWM`), KiB, where the system says.
pub fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn percentiles(p: &Percentiles) -> String {
    format!(
        "p50 {} · p90 {} · p99 {} · p99.9 {} · max {} ({} samples)",
        p.p50, p.p90, p.p99, p.p999, p.max, p.count
    )
}

/// The readable summary of a run.
pub fn summary(cfg: &SimConfig, r: &SimReport) -> String {
    use std::fmt::Write as _;
    let f = &cfg.flows[0];
    let path = &cfg.paths[0];
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} paths × {} Gb/s, delay {} ns, PMTU {}, {}, {} QPs × {} messages × {} B, {} retirement, {} spray, {}, retry limit {}, seed {}",
        cfg.paths.len(),
        path.rate_gbps,
        path.delay_ns,
        cfg.nic.pmtu,
        if cfg.ipv6 { "IPv6" } else { "IPv4" },
        f.qps,
        f.messages,
        f.message_bytes,
        match cfg.nic.retirement {
            RetirementMode::Shared => "shared",
            RetirementMode::PerQp => "per-QP",
        },
        match f.spray {
            SprayPolicy::RoundRobin => "round-robin",
            SprayPolicy::Random => "random",
            SprayPolicy::Fixed => "fixed",
            SprayPolicy::SkewAware => "skew-aware",
            SprayPolicy::WindowFit => "window-fit",
        },
        match cfg.nic.tail_probe {
            Some(d) => format!("tail probes at {} ns", d.as_nanos()),
            None => "no tail probes".to_string(),
        },
        cfg.recovery.retry_limit,
        cfg.seed,
    );
    let _ = writeln!(
        s,
        "delivered         {} of {} messages (completed {}, failed {})",
        r.messages_delivered, r.messages_submitted, r.messages_completed, r.messages_failed
    );
    let _ = writeln!(
        s,
        "correctness       duplicates {} · order violations {} · flags before data {} · writes after flag {}",
        r.duplicates_delivered, r.order_violations, r.flag_before_data, r.writes_after_flag
    );
    if r.peer_violations + r.qp_errors > 0 {
        let _ = writeln!(
            s,
            "model             {} packets rejected · {} QP errors",
            r.peer_violations, r.qp_errors
        );
    }
    let _ = writeln!(
        s,
        "goodput           {:.2} Gb/s of a {:.2} Gb/s wire limit ({:.1} %)",
        r.goodput_gbps,
        r.wire_limit_gbps,
        100.0 * r.efficiency()
    );
    let c = &r.retransmissions_by_cause;
    let _ = writeln!(
        s,
        "retransmitted     {} packets (SACK inference {}, NACK {}, timeout {})",
        r.retransmissions, c.sack_inference, c.nack, c.timeout
    );
    let d = &r.drops;
    let _ = writeln!(
        s,
        "dropped           {} packets (loss {}, aimed {}, outage {}, queue {})",
        d.total(),
        d.loss,
        d.aimed,
        d.outage,
        d.queue
    );
    let _ = writeln!(s, "latency, ns       {}", percentiles(&r.message_latency_ns));
    if let Some(p) = &r.drop_to_completion_ns {
        let _ = writeln!(s, "drop→completion   {}", percentiles(p));
    }
    let _ = writeln!(
        s,
        "simulated         {} packets, {} ns; peak {} packets in flight, {} model entries",
        r.packets_simulated, r.sim_time_ns, r.peak_packets_in_flight, r.peak_model_entries
    );
    if r.hit_horizon {
        let _ = writeln!(s, "stopped at the horizon with work left");
    }
    let problems = r.problems();
    if problems.is_empty() {
        let _ = writeln!(s, "verdict           ok");
    } else {
        let _ = writeln!(s, "verdict           FAILED: {}", problems.join("; "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use openrdma_sim::{AimedDrop, LossModel, Outage};

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(subcommand)]
        command: SimCommand,
    }

    fn args(line: &str) -> Result<SimRunArgs, clap::Error> {
        let argv = std::iter::once("sim").chain(line.split_whitespace());
        Cli::try_parse_from(argv).map(|c| match c.command {
            SimCommand::Run(a) => *a,
            SimCommand::Paper(_) => panic!("not a run"),
        })
    }

    #[test]
    fn options_map_onto_the_configuration() {
        let a = args(
            "run --paths 3 --rate-gbps 50 --mtu 1024 --loss 0.1 --loss-model bursty --skew-ns 800 \
             --qps 2 --messages 5 --message-bytes 3000 --seed 9 --retirement per-qp --spray fixed \
             --ipv6 --drop 1:4 --fail 2:100:200",
        )
        .unwrap();
        let c = config(&a).unwrap();
        assert_eq!(c.paths.len(), 3);
        assert_eq!(c.paths.iter().map(|p| p.skew_ns).collect::<Vec<_>>(), [0, 400, 800]);
        assert_eq!(c.paths[0].loss, LossModel::bursty(0.1, 4.0));
        assert_eq!(c.paths[2].down, [Outage { from_ns: 100, to_ns: 200 }]);
        assert_eq!((c.nic.pmtu, c.nic.retirement, c.seed), (1024, RetirementMode::PerQp, 9));
        assert_eq!(c.flows[0].spray, SprayPolicy::Fixed);
        assert_eq!(c.aimed_drops, [AimedDrop { flow: 0, qp: 1, psn: Psn::new(4) }]);
        assert!(c.ipv6);
    }

    /// A file of knobs, in a directory of its own; removed with the directory afterwards.
    fn file(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("openrdma-sim-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn options_win_over_the_config_file() {
        let path = file(
            "over.toml",
            "paths = 3\nqps = 2\nseed = 4\nspray = \"window-fit\"\ndrop = [\"1:2\"]\nipv6 = true\n",
        );
        let a = args(&format!("run --config {} --qps 5 --drop 0:9", path.display())).unwrap();
        let c = config(&a).unwrap();
        assert_eq!(c.paths.len(), 3, "from the file");
        assert_eq!((c.seed, c.flows[0].spray, c.ipv6), (4, SprayPolicy::WindowFit, true));
        assert_eq!(c.flows[0].qps, 5, "the option wins");
        assert_eq!(
            c.aimed_drops,
            [AimedDrop { flow: 0, qp: 0, psn: Psn::new(9) }],
            "the option's list"
        );
        assert_eq!(c.nic.pmtu, 4096, "neither: the default");
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_bad_config_file_is_refused_with_its_line() {
        let path = file("bad.toml", "qps = 2\n\nmtu = 1000\n");
        let a = args(&format!("run --config {}", path.display())).unwrap();
        let CliError::Usage(e) = config(&a).unwrap_err() else { panic!("not a usage error") };
        assert!(e.contains("bad.toml: line 3, column 7") && e.contains("one of 256"), "{e}");
        std::fs::remove_file(path).unwrap();
        let a = args("run --config /nonexistent/openrdma.toml").unwrap();
        let CliError::Usage(e) = config(&a).unwrap_err() else { panic!("not a usage error") };
        assert!(e.contains("cannot read"), "{e}");
    }

    #[test]
    fn paper_options_parse() {
        let argv = ["sim", "paper", "--json", "--plots", "out", "--seed", "5", "--quick"];
        let SimCommand::Paper(a) = Cli::try_parse_from(argv).unwrap().command else {
            panic!("not `paper`")
        };
        assert!(a.json && a.quick);
        assert_eq!((a.seed, a.plots.as_deref()), (5, Some(std::path::Path::new("out"))));
        let text = paper_text(&paper::run(2, true));
        assert!(text.contains("(g) bytes crossing PCIe per submission"), "{text}");
        assert!(text.ends_with("verdict ok\n"), "{text}");
    }

    #[test]
    fn bad_arguments_are_refused() {
        assert!(args("run --mtu 1000").is_err());
        assert!(args("run --spray sideways").is_err());
        assert!(args("run --paths 0").is_err());
        assert!(args("run --drop 3").is_err());
        for line in ["run --loss 1.5", "run --drop 9:0 --qps 2", "run --fail 7:0:10"] {
            let e = config(&args(line).unwrap()).unwrap_err();
            assert!(matches!(e, CliError::Usage(_)), "{line}");
        }
    }

    #[test]
    fn a_small_run_is_clean_and_summarized() {
        let a = args("run --qps 2 --messages 3 --message-bytes 8192 --loss 0.05 --seed 3").unwrap();
        let cfg = config(&a).unwrap();
        let r = Sim::new(cfg.clone()).unwrap().run();
        assert!(r.is_correct(), "{:?}", r.problems());
        let s = summary(&cfg, &r);
        assert!(s.contains("delivered         6 of 6 messages"), "{s}");
        assert!(s.ends_with("verdict           ok\n"), "{s}");
    }
}
