//! `openrdma sim`: the multipath fabric simulator.
//!
//! `openrdma sim run` builds a [`SimConfig`] from its options (two hosts, N identical
//! paths, one flow of Q QPs from host 0 to host 1), runs it, and prints a summary — or,
//! with `--json`, the [`SimReport`]. Standard output is deterministic; the wall-clock time
//! and the simulation speed go to standard error. Exit code 1 when a message was not
//! delivered or a correctness counter is set.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::time::Instant;

use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use openrdma_sim::paper::{self, PaperReport};
use openrdma_sim::plot::write_plots;
use openrdma_sim::{
    AimedDrop, FlowConfig, LossModel, Outage, PathConfig, Percentiles, Sim, SimConfig, SimReport,
};
use openrdma_sm::{RetirementMode, SprayPolicy};

use crate::error::{CliError, Outcome};

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
    Run(SimRunArgs),
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
}

/// Arguments of `openrdma sim run`.
#[derive(Debug, Args)]
pub struct SimRunArgs {
    /// Number of paths.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub paths: u16,
    /// Rate of each path, Gb/s.
    #[arg(long, default_value_t = 100.0)]
    pub rate_gbps: f64,
    /// Path MTU: payload bytes per packet.
    #[arg(long, default_value_t = 4096, value_parser = parse_mtu)]
    pub mtu: u32,
    /// Loss probability of every path (0 ≤ P < 1).
    #[arg(long, default_value_t = 0.0)]
    pub loss: f64,
    /// Loss process.
    #[arg(long, value_enum, default_value_t = LossKind::Random)]
    pub loss_model: LossKind,
    /// Mean burst length of the bursty loss model, packets.
    #[arg(long, default_value_t = LossModel::DEFAULT_BURST)]
    pub burst_len: f64,
    /// Path skew, ns: path i gets i·S/(N−1) ns of extra delay, so the last path is S ns
    /// slower than the first.
    #[arg(long, default_value_t = 0)]
    pub skew_ns: u64,
    /// One-way propagation delay of every path, ns.
    #[arg(long, default_value_t = 500)]
    pub delay_ns: u64,
    /// Byte limit of each switch output queue (tail drop).
    #[arg(long, default_value_t = 1 << 20)]
    pub queue_bytes: u64,
    /// Queue pairs.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub qps: u32,
    /// Messages per QP.
    #[arg(long, default_value_t = 100)]
    pub messages: u32,
    /// Bytes per message.
    #[arg(long, default_value_t = 65536, value_parser = clap::value_parser!(u32).range(1..=(1 << 31)))]
    pub message_bytes: u32,
    /// Interval between the messages of a QP, ns (0: all posted at once).
    #[arg(long, default_value_t = 0)]
    pub post_interval_ns: u64,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Retirement ordering.
    #[arg(long, value_enum, default_value_t = Retirement::Shared)]
    pub retirement: Retirement,
    /// Spraying policy.
    #[arg(long, value_enum, default_value_t = Spray::RoundRobin)]
    pub spray: Spray,
    /// Window, in units of 128 packets (MPR).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=64))]
    pub mpr: u8,
    /// EVs per QP, spread over the paths.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub evs_per_qp: u32,
    /// Drop the first transmission of PSN on QP (index from 0): `QP:PSN`. Repeatable.
    #[arg(long = "drop", value_name = "QP:PSN", value_parser = parse_drop)]
    pub drops: Vec<(u32, u32)>,
    /// Take a path down during [FROM, TO) ns: `PATH:FROM:TO`. Repeatable.
    #[arg(long = "fail", value_name = "PATH:FROM:TO", value_parser = parse_fail)]
    pub failures: Vec<(usize, u64, u64)>,
    /// Stop at this simulated time, ms, even if work remains.
    #[arg(long, default_value_t = 10_000)]
    pub horizon_ms: u64,
    /// IPv6 (40-byte header) instead of IPv4.
    #[arg(long)]
    pub ipv6: bool,
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

fn parse_drop(s: &str) -> Result<(u32, u32), String> {
    let (q, p) = s.split_once(':').ok_or("expected QP:PSN")?;
    let q = q.parse().map_err(|e| format!("QP `{q}`: {e}"))?;
    let p = p.parse().map_err(|e| format!("PSN `{p}`: {e}"))?;
    Ok((q, p))
}

fn parse_fail(s: &str) -> Result<(usize, u64, u64), String> {
    let mut it = s.split(':');
    let (Some(p), Some(a), Some(b), None) = (it.next(), it.next(), it.next(), it.next()) else {
        return Err("expected PATH:FROM_NS:TO_NS".into());
    };
    let p = p.parse().map_err(|e| format!("path `{p}`: {e}"))?;
    let a = a.parse().map_err(|e| format!("from `{a}`: {e}"))?;
    let b = b.parse().map_err(|e| format!("to `{b}`: {e}"))?;
    Ok((p, a, b))
}

/// The configuration `openrdma sim run` simulates.
pub fn config(args: &SimRunArgs) -> Result<SimConfig, CliError> {
    let usage = |s: String| CliError::Usage(s);
    if !(0.0..1.0).contains(&args.loss) {
        return Err(usage(format!("--loss {}: a probability in [0, 1)", args.loss)));
    }
    if args.burst_len.is_nan() || args.burst_len < 1.0 {
        return Err(usage(format!("--burst-len {}: at least 1 packet", args.burst_len)));
    }
    let n = usize::from(args.paths);
    let loss = match args.loss_model {
        _ if args.loss == 0.0 => LossModel::None,
        LossKind::Random => LossModel::Random { p: args.loss },
        LossKind::Bursty => LossModel::bursty(args.loss, args.burst_len),
    };
    let mut paths: Vec<PathConfig> = (0..n)
        .map(|i| PathConfig {
            rate_gbps: args.rate_gbps,
            delay_ns: args.delay_ns,
            skew_ns: if n > 1 { args.skew_ns * i as u64 / (n as u64 - 1) } else { 0 },
            queue_bytes: args.queue_bytes,
            loss,
            down: Vec::new(),
        })
        .collect();
    for &(p, from_ns, to_ns) in &args.failures {
        let path = paths
            .get_mut(p)
            .ok_or_else(|| usage(format!("--fail {p}:…: there are {n} paths (0 to {})", n - 1)))?;
        path.down.push(Outage { from_ns, to_ns });
    }
    let mut cfg = SimConfig {
        seed: args.seed,
        paths,
        ipv6: args.ipv6,
        flows: vec![FlowConfig {
            qps: args.qps,
            messages: args.messages,
            message_bytes: args.message_bytes,
            post_interval_ns: args.post_interval_ns,
            spray: match args.spray {
                Spray::RoundRobin => SprayPolicy::RoundRobin,
                Spray::Random => SprayPolicy::Random,
                Spray::Fixed => SprayPolicy::Fixed,
                Spray::SkewAware => SprayPolicy::SkewAware,
            },
            ..FlowConfig::default()
        }],
        aimed_drops: args.drops.iter().map(|&(qp, psn)| AimedDrop { flow: 0, qp, psn }).collect(),
        evs_per_qp: args.evs_per_qp,
        horizon_ns: args.horizon_ms.saturating_mul(1_000_000),
        ..SimConfig::default()
    };
    cfg.nic.pmtu = args.mtu;
    cfg.nic.mpr = args.mpr;
    cfg.nic.retirement = match args.retirement {
        Retirement::Shared => RetirementMode::Shared,
        Retirement::PerQp => RetirementMode::PerQp,
    };
    cfg.nic.max_qps = cfg.nic.max_qps.max(args.qps);
    cfg.validate().map_err(|e| usage(e.to_string()))?;
    Ok(cfg)
}

/// `openrdma sim`.
pub fn run(args: &SimArgs) -> Result<Outcome, CliError> {
    match &args.command {
        SimCommand::Run(a) => run_one(a),
        SimCommand::Paper(a) => run_paper(a),
    }
}

fn run_paper(args: &SimPaperArgs) -> Result<Outcome, CliError> {
    let wall = Instant::now();
    let report = paper::run(args.seed, args.quick);
    let elapsed = wall.elapsed();
    let mut out = BufWriter::new(io::stdout().lock());
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report).map_err(io::Error::other)?;
        writeln!(out)?;
    } else {
        out.write_all(paper_text(&report).as_bytes())?;
    }
    out.flush()?;
    if let Some(dir) = &args.plots {
        let files = write_plots(&report, dir).map_err(io::Error::other)?;
        for f in files {
            eprintln!("wrote {}", f.display());
        }
    }
    eprintln!("wall time {:.3} s", elapsed.as_secs_f64());
    Ok(if report.is_correct() { Outcome::Clean } else { Outcome::Findings })
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
    let mut out = BufWriter::new(io::stdout().lock());
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report).map_err(io::Error::other)?;
        writeln!(out)?;
    } else {
        out.write_all(summary(&cfg, &report).as_bytes())?;
    }
    out.flush()?;
    let secs = elapsed.as_secs_f64();
    eprintln!(
        "wall time {:.3} s: {:.0} simulated packets per wall-second, {:.1} µs simulated per wall-second",
        secs,
        report.packets_simulated as f64 / secs.max(1e-9),
        report.sim_time_ns as f64 / 1000.0 / secs.max(1e-9),
    );
    Ok(if report.is_correct() { Outcome::Clean } else { Outcome::Findings })
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
        "{} paths × {} Gb/s, delay {} ns, PMTU {}, {}, {} QPs × {} messages × {} B, {} retirement, {} spray, seed {}",
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
        },
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

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(subcommand)]
        command: SimCommand,
    }

    fn args(line: &str) -> Result<SimRunArgs, clap::Error> {
        let argv = std::iter::once("sim").chain(line.split_whitespace());
        Cli::try_parse_from(argv).map(|c| match c.command {
            SimCommand::Run(a) => a,
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
        assert_eq!(c.aimed_drops, [AimedDrop { flow: 0, qp: 1, psn: 4 }]);
        assert!(c.ipv6);
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
