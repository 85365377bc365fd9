//! `openrdma bench [--json] [--quick]`: a quick run of the project's benchmarks, in process.
//!
//! It measures, with the wall clock:
//!
//! * `codec`: [`decode`] of a whole frame with its ICRC check, and [`FrameRepr::emit`] with
//!   the ICRC computed, on MRC_WRITE_MIDDLE frames over IPv6 (METH + RETH) with 64 B, 1 KiB
//!   and 4 KiB of payload, in frames and bytes (whole Ethernet frames, FCS excluded) per
//!   second;
//! * `icrc`: [`icrc::compute`] alone over the IP packets of the same frames, bytes per second;
//! * `model`: a requester NIC and a responder NIC back to back at 4 KiB PMTU
//!   (`openrdma_testkit::loopback`), data packets placed per second, four ways (see
//!   [`MODEL_FIGURES`]): `pair`, the state machines alone with packets as `Repr`s, the figure
//!   to hold against the target of four 100 Gb/s paths; `requester` and `responder`, each
//!   NIC's half of that run replayed alone; `frames`, the pair through frames with the ICRC
//!   computed and checked in software, which no hardware NIC does per packet in software;
//! * `sim`: simulated packets per wall-clock second for a fixed workload (two hosts, four
//!   clean 100 Gb/s paths kept busy at 4 KiB PMTU), and wall seconds per second of that
//!   simulated 400 Gb/s traffic;
//! * `sim_memory`: the peak resident memory of `sim run` in a child process at two workload
//!   sizes (one-byte messages on one QP, ten times as many in the second), and their ratio:
//!   memory follows what is in flight, not the workload, so the ratio stays near 1;
//! * `check_memory`: the peak resident memory of `openrdma check --observed` in a child
//!   process on captures of 1, 10, 100 and 1000 times a scenario's capture (its records
//!   repeated, each copy later than the one before; 1, 3 and 10 with `--quick`), written by
//!   the bench, their sizes, and the ratio of the largest peak to the smallest. `check`
//!   streams the capture and keeps only the outputs up to the scenario's end, at most a cap
//!   that the scenario sets (CONF-CMP-044), so the ratio stays near 1;
//! * `adapter`: one corpus scenario run through the process adapter against `openrdma
//!   serve`, batched (the normal runner) and with one [`Device::advance`] per input,
//!   inputs plus outputs per second both ways, and the ratio of the two;
//! * `dissect`: `openrdma dissect --json` and the text view on a capture of one million
//!   256-byte RoCEv2 frames (RC SEND Only over IPv4, 20 000 with `--quick`), each run once as
//!   a process writing to `/dev/null`, frames per second; and, in the same run, tshark's field
//!   dump of the same capture (`tshark -r FILE -T fields -e ...`, the Ethernet, IP, UDP and
//!   every BTH field and the ICRC) and the ratios `json_over_tshark` and `text_over_tshark`;
//!   and `decode_verify_1kib_over_tshark`, the codec's in-process decode + ICRC verify of
//!   1 KiB frames on one core (`codec.decode_verify.1KiB`) over tshark's frames per second.
//!   Without tshark the figures are given alone and `dissect.tshark` says `"not installed"`.
//!
//! Each figure is the median of three runs, each running for a fixed minimum time (200 ms,
//! or 20 ms with `--quick`) after a warm-up. `--quick` also shrinks the workloads; it is
//! meant for tests, not for figures. The figures depend on the machine and its load: they
//! are never checked, only printed.

use std::collections::BTreeSet;
use std::hint::black_box;
use std::io::{self, IsTerminal, Write};
use std::net::Ipv6Addr;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use openrdma_codec::frame::{Extensions, FrameRepr, IcrcStatus, IpRepr, decode};
use openrdma_codec::{
    BthRepr, EtherType, EthernetAddress, EthernetRepr, IP_PROTO_UDP, Ipv6Repr, MethRepr, Opcode,
    Psn, Qpn, RethRepr, UdpRepr, icrc,
};
use openrdma_codec::{Ev, Msn, Rkey, Rqmsn};
use openrdma_conformance::process::{ProcessDevice, ProcessOptions};
use openrdma_conformance::{file, runner};
use openrdma_corpus as corpus;
use openrdma_device::{
    Capability, Device, DeviceError, Direction, Manifest, Record, Scenario, TimedInput,
    TimedOutput, Timestamp,
};
use openrdma_sim::{FlowConfig, LossModel, PathConfig, SimConfig, simulate};
use openrdma_sm::reference_cpu_half;
use openrdma_testkit::loopback::{Loopback, PMTU, Script};
use serde_json::{Map, Value};

use crate::error::{CliError, Outcome};
use crate::output::Stdout;

/// The corpus scenario the adapter round trip runs.
pub const ADAPTER_SCENARIO: &str = "rcv-in-order-v4";

/// Payload sizes of the codec figures.
const SIZES: [(&str, usize); 3] = [("64B", 64), ("1KiB", 1024), ("4KiB", 4096)];

/// Arguments of `openrdma bench`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Tiny runs and workloads (a few seconds in all, even unoptimized): for tests.
    #[arg(long)]
    pub quick: bool,
}

/// One figure: where it goes in the JSON (`section.sub...` then `key`), its unit, its value.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    name: String,
    key: &'static str,
    unit: &'static str,
    value: f64,
}

impl Row {
    fn new(name: impl Into<String>, key: &'static str, unit: &'static str, value: f64) -> Row {
        Row { name: name.into(), key, unit, value }
    }
}

/// How long each run lasts and how much work each iteration does.
#[derive(Debug, Clone, Copy)]
struct Plan {
    /// Minimum duration of each of the three runs.
    run: Duration,
    /// Duration of the warm-up.
    warm_up: Duration,
    quick: bool,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        if quick {
            Plan { run: Duration::from_millis(20), warm_up: Duration::from_millis(5), quick }
        } else {
            Plan { run: Duration::from_millis(200), warm_up: Duration::from_millis(50), quick }
        }
    }

    /// Units of work per second: `step` does some work and returns how many units it did
    /// and how long the part worth timing took. It runs for the warm-up, then three runs
    /// of at least `self.run` each (at least one step each); the median rate is returned.
    fn rate<E>(&self, mut step: impl FnMut() -> Result<(u64, Duration), E>) -> Result<f64, E> {
        let start = Instant::now();
        loop {
            step()?;
            if start.elapsed() >= self.warm_up {
                break;
            }
        }
        let mut rates = Vec::with_capacity(3);
        for _ in 0..3 {
            let (mut units, mut timed) = (0u64, Duration::ZERO);
            let start = Instant::now();
            loop {
                let (u, t) = step()?;
                units += u;
                timed += t;
                if start.elapsed() >= self.run {
                    break;
                }
            }
            rates.push(units as f64 / timed.as_secs_f64().max(1e-9));
        }
        rates.sort_by(f64::total_cmp);
        Ok(rates[1])
    }

    /// [`Plan::rate`] for work that cannot fail.
    fn rate_ok(&self, mut step: impl FnMut() -> (u64, Duration)) -> f64 {
        match self.rate::<std::convert::Infallible>(|| Ok(step())) {
            Ok(r) => r,
            Err(e) => match e {},
        }
    }
}

/// Times `iters` calls of `f`: (`iters`, the time they took).
fn timed(iters: u64, mut f: impl FnMut()) -> (u64, Duration) {
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    (iters, start.elapsed())
}

/// A finalized MRC_WRITE_MIDDLE over IPv6 with `payload_len` bytes of payload.
fn write_middle(payload_len: usize) -> FrameRepr {
    let src = Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 1);
    let dst = Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2);
    let mut f = FrameRepr {
        eth: EthernetRepr {
            dst: EthernetAddress([0x02, 0, 0, 0, 0, 2]),
            src: EthernetAddress([0x02, 0, 0, 0, 0, 1]),
            ethertype: EtherType::IPV6,
        },
        vlans: Vec::new(),
        ip: IpRepr::V6(Ipv6Repr::new(src, dst, IP_PROTO_UDP)),
        udp: UdpRepr::rocev2(0),
        bth: BthRepr::new(Opcode::MRC_WRITE_MIDDLE, Qpn::new(0x123), Psn::new(0x45_6789)),
        ext: Extensions {
            meth: Some(MethRepr::new(Rqmsn::new(0), Msn::new(1))),
            reth: Some(RethRepr::new(0x7f00_0000_0000, Rkey::new(0xBEEF), 1 << 20)),
            ..Extensions::default()
        },
        payload: (0..payload_len).map(|i| i as u8).collect(),
        pad: [0; 3],
        icrc: None,
        eth_padding: Vec::new(),
    };
    f.set_entropy(Ev::new(0xC001_2345));
    f.finalize().expect("the benchmark frame is valid");
    f
}

/// Codec and ICRC figures.
fn codec(plan: &Plan, rows: &mut Vec<Row>) {
    const BATCH: u64 = 64;
    for (name, n) in SIZES {
        let f = write_middle(n);
        let bytes = f.to_bytes().expect("the benchmark frame emits");
        let len = bytes.len() as f64;
        assert_eq!(decode(&bytes).icrc, IcrcStatus::Ok);
        let rate = plan.rate_ok(|| {
            timed(BATCH, || {
                black_box(decode(black_box(&bytes)).icrc);
            })
        });
        rows.push(Row::new(
            format!("codec.decode_verify.{name}"),
            "frames_per_s",
            "frames/s",
            rate,
        ));
        rows.push(Row::new(
            format!("codec.decode_verify.{name}"),
            "bytes_per_s",
            "bytes/s",
            rate * len,
        ));

        let mut buf = vec![0u8; f.buffer_len()];
        let rate = plan.rate_ok(|| {
            timed(BATCH, || {
                black_box(black_box(&f).emit(black_box(&mut buf)).ok());
            })
        });
        rows.push(Row::new(format!("codec.build_icrc.{name}"), "frames_per_s", "frames/s", rate));
        rows.push(Row::new(
            format!("codec.build_icrc.{name}"),
            "bytes_per_s",
            "bytes/s",
            rate * len,
        ));

        // The IP packet without its ICRC trailer: what the CRC runs over.
        let covered = &bytes[14..bytes.len() - icrc::ICRC_LEN];
        let rate = plan.rate_ok(|| {
            timed(BATCH, || {
                black_box(icrc::compute(black_box(covered)).ok());
            })
        });
        rows.push(Row::new(
            format!("icrc.{name}"),
            "bytes_per_s",
            "bytes/s",
            rate * covered.len() as f64,
        ));
    }
}

/// Messages of each model run (64 packets each): runs long enough that the queues the
/// NICs grow at the start do not weigh on the figure.
const MODEL_MESSAGES: u32 = 256;

/// What each model figure measures, as the table's legend and the JSON's `what`.
pub const MODEL_FIGURES: [(&str, &str); 4] = [
    (
        "pair",
        "both NICs, packets as Reprs: the state machines alone, what a hardware pipeline does besides frames and ICRC; one core modelling a NIC that sends and receives at the same rate",
    ),
    ("requester", "the sending NIC's half of the same run, replayed alone"),
    ("responder", "the receiving NIC's half of the same run, replayed alone"),
    (
        "frames",
        "the pair through a software NIC edge: frames built and parsed, ICRC computed and checked on both ends, payload copied from and into memory",
    ),
];

/// The model figures: data packets per second of `openrdma_testkit::loopback` transfers.
fn model(plan: &Plan, rows: &mut Vec<Row>) {
    let messages = if plan.quick { 2 } else { MODEL_MESSAGES };
    let pair = plan.rate_ok(|| {
        let mut l = Loopback::new(messages);
        let start = Instant::now();
        let placed = l.run();
        (placed, start.elapsed())
    });
    let (placed, [req, resp]) = Loopback::new(messages).run_recorded();
    let half = |script: &Script, requester: bool| {
        plan.rate_ok(|| {
            let mut l = Loopback::new(messages);
            let host = if requester { l.requester() } else { l.responder() };
            let start = Instant::now();
            script.replay(host);
            (placed, start.elapsed())
        })
    };
    let requester = half(&req, true);
    let responder = half(&resp, false);
    let frames = plan.rate_ok(|| {
        let mut l = Loopback::new(messages);
        let start = Instant::now();
        let (placed, _) = l.run_frames();
        (placed, start.elapsed())
    });
    for (name, rate) in
        [("pair", pair), ("requester", requester), ("responder", responder), ("frames", frames)]
    {
        rows.push(Row::new(format!("model.{name}"), "packets_per_s", "packets/s", rate));
    }
    rows.push(Row::new("model", "pmtu", "bytes", f64::from(PMTU)));
    rows.push(Row::new(
        "model",
        "target_packets_per_s",
        "packets/s",
        (TARGET_GBPS * 1e9 / 8.0 / f64::from(PMTU)).round(),
    ));
}

/// The rate the model should keep up with: four 100 Gb/s paths.
const TARGET_GBPS: f64 = 400.0;

/// The simulator's workload: two hosts, four clean paths, Q QPs × M messages.
fn sim_workload(quick: bool) -> SimConfig {
    let path = PathConfig { loss: LossModel::None, ..PathConfig::default() };
    let flow = if quick {
        FlowConfig { qps: 2, messages: 4, message_bytes: 16384, ..FlowConfig::default() }
    } else {
        FlowConfig { qps: 8, messages: 16, message_bytes: 65536, ..FlowConfig::default() }
    };
    SimConfig { seed: 1, ..SimConfig::two_hosts(4, path, flow) }
}

/// The simulator figures: simulated packets per wall second, and wall seconds per second
/// of simulated 400 Gb/s traffic (the same workload: four 100 Gb/s paths, 4 KiB PMTU, the
/// paths kept busy).
fn sim(plan: &Plan, rows: &mut Vec<Row>) -> Result<(), CliError> {
    let mut simulated_ns = 0;
    let rate = plan.rate(|| {
        let cfg = sim_workload(plan.quick);
        let start = Instant::now();
        let report = simulate(cfg).map_err(|e| CliError::Usage(format!("bench: sim: {e}")))?;
        simulated_ns = report.sim_time_ns;
        Ok::<_, CliError>((report.packets_simulated, start.elapsed()))
    })?;
    rows.push(Row::new("sim", "packets_per_s", "packets/s", rate));
    // Simulated ns per wall second, on a run long enough to reach steady state.
    let ns_per_s = plan.rate(|| {
        let mut cfg = sim_workload(plan.quick);
        cfg.flows[0].messages *= if plan.quick { 1 } else { 8 };
        let start = Instant::now();
        let report = simulate(cfg).map_err(|e| CliError::Usage(format!("bench: sim: {e}")))?;
        Ok::<_, CliError>((report.sim_time_ns, start.elapsed()))
    })?;
    rows.push(Row::new(
        "sim",
        "wall_s_per_simulated_s",
        "s/s",
        if ns_per_s > 0.0 { 1e9 / ns_per_s } else { 0.0 },
    ));
    rows.push(Row::new("sim", "simulated_ns_per_run", "ns", simulated_ns as f64));
    Ok(())
}

fn adapter_error(e: impl std::fmt::Display) -> CliError {
    CliError::Usage(format!("bench: process adapter: {e}"))
}

/// Runs `scenario` with one [`Device::advance`] per injected record, in time order, then
/// one to the end of the drain time; returns inputs plus outputs. Unlike the runner it does
/// not rewrite feedback nor play the CPU half: it measures round trips, not conformance.
fn run_unbatched(dev: &mut dyn Device, scenario: &Scenario) -> Result<u64, CliError> {
    dev.start(&scenario.manifest).map_err(adapter_error)?;
    let mut injects: Vec<&Record> =
        scenario.records.iter().filter(|r| r.dir == Direction::Inject).collect();
    injects.sort_by_key(|r| r.at);
    let last = scenario.records.iter().map(|r| r.at.0).max().unwrap_or(0);
    let end = Timestamp(last.saturating_add(scenario.manifest.tolerances.drain_ns));
    let mut now = Timestamp::ZERO;
    let mut events = 0u64;
    for r in injects {
        let Some(input) = r.body.input() else { continue };
        now = now.max(r.at);
        let out = dev.advance(vec![TimedInput { at: now, input }], now).map_err(adapter_error)?;
        events += 1 + out.len() as u64;
    }
    let out = dev.advance(Vec::new(), end.max(now)).map_err(adapter_error)?;
    events += out.len() as u64;
    dev.finish().map_err(adapter_error)?;
    Ok(events)
}

/// A device that counts the round trips made to it (start, advance, finish).
#[derive(Debug)]
struct Counted<D> {
    inner: D,
    round_trips: u64,
}

impl<D: Device> Device for Counted<D> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn capabilities(&self) -> BTreeSet<Capability> {
        self.inner.capabilities()
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        self.round_trips += 1;
        self.inner.start(manifest)
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        self.round_trips += 1;
        self.inner.advance(inputs, until)
    }

    fn finish(&mut self) -> Result<(), DeviceError> {
        self.round_trips += 1;
        self.inner.finish()
    }
}

/// Messages of the two `sim run` workloads whose peak memory is compared: one-byte
/// messages on one QP, ten times as many in the second (`--quick`: fewer).
fn memory_workloads(quick: bool) -> [u32; 2] {
    if quick { [20_000, 200_000] } else { [100_000, 1_000_000] }
}

/// The simulator's memory against its workload: `sim run` in a child process at two
/// workload sizes, the peak resident memory of each (as the child reports it) and their
/// ratio, which stays near 1 when memory follows what is in flight and not the workload.
fn sim_memory(plan: &Plan, rows: &mut Vec<Row>) -> Result<(), CliError> {
    let exe = std::env::current_exe().map_err(|e| CliError::Usage(format!("bench: {e}")))?;
    let mut peaks = Vec::new();
    for (name, messages) in ["small", "large"].into_iter().zip(memory_workloads(plan.quick)) {
        let out = std::process::Command::new(&exe)
            .args(["sim", "run", "--qps", "1", "--message-bytes", "1", "--messages"])
            .arg(messages.to_string())
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| CliError::Usage(format!("bench: sim run: {e}")))?;
        let text = String::from_utf8_lossy(&out.stderr);
        let kib = text
            .split("peak memory ")
            .nth(1)
            .and_then(|t| t.split_whitespace().next())
            .and_then(|k| k.parse::<u64>().ok());
        let Some(kib) = kib else {
            // Without /proc there is nothing to report.
            return Ok(());
        };
        rows.push(Row::new(
            format!("sim_memory.{name}"),
            "messages",
            "messages",
            f64::from(messages),
        ));
        rows.push(Row::new(
            format!("sim_memory.{name}"),
            "peak_bytes",
            "bytes",
            (kib * 1024) as f64,
        ));
        peaks.push(kib as f64);
    }
    if let [small, large] = peaks[..] {
        rows.push(Row::new("sim_memory", "large_over_small", "ratio", large / small));
    }
    Ok(())
}

/// The environment variable that makes a command say its peak resident memory on standard
/// error as it ends (`peak memory N KiB`), for the memory figures.
pub const PEAK_MEMORY_ENV: &str = "OPENRDMA_REPORT_PEAK_MEMORY";

/// The peak memory a child's standard error says, KiB.
fn peak_from(stderr: &[u8]) -> Option<u64> {
    String::from_utf8_lossy(stderr)
        .rsplit("peak memory ")
        .next()
        .and_then(|t| t.split_whitespace().next())
        .and_then(|k| k.parse::<u64>().ok())
}

/// The scenario whose capture `check_memory` repeats: the corpus's largest.
const CHECK_MEMORY_SCENARIO: &str = "snd-spray-window-fit";

/// How many times the scenario's capture is repeated in each capture `check` judges.
fn check_memory_sizes(quick: bool) -> &'static [usize] {
    if quick { &[1, 3, 10] } else { &[1, 10, 100, 1000] }
}

/// Copy `k` of `s`'s records, starting a microsecond after copy `k - 1` ends: written one
/// after the other, each as a section of its own, `n` copies are the capture of a device
/// that ran the scenario `n` times, and the bench holds one copy at a time.
fn shifted(s: &Scenario, k: usize) -> Scenario {
    let span = s.records.iter().map(|r| r.at.0).max().unwrap_or(0) + 1_000;
    let k = k as u64;
    let records = s
        .records
        .iter()
        .map(|r| Record { at: Timestamp(r.at.0 + k * span), ..r.clone() })
        .collect();
    Scenario { manifest: s.manifest.clone(), records }
}

/// `check`'s memory against the size of the capture it judges: `openrdma check --observed`
/// in a child process on captures of growing size, the peak resident memory of each (as the
/// child reports it) and the ratio of the largest to the smallest.
fn check_memory(plan: &Plan, rows: &mut Vec<Row>) -> Result<(), CliError> {
    let build = corpus::all()
        .into_iter()
        .find(|(name, _)| *name == CHECK_MEMORY_SCENARIO)
        .map(|(_, b)| b)
        .ok_or_else(|| CliError::Usage(format!("bench: no scenario {CHECK_MEMORY_SCENARIO}")))?;
    let scenario = build();
    let dir = std::env::temp_dir().join(format!("openrdma-bench-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let result = (|| -> Result<(), CliError> {
        let stem = dir.join(CHECK_MEMORY_SCENARIO);
        file::save(&scenario, &stem).map_err(|e| CliError::Usage(format!("bench: {e}")))?;
        let exe = std::env::current_exe()?;
        let mut peaks = Vec::new();
        for &n in check_memory_sizes(plan.quick) {
            let path = dir.join(format!("observed-{n}x.pcapng"));
            let mut w = io::BufWriter::new(std::fs::File::create(&path)?);
            for k in 0..n {
                file::write_scenario(&shifted(&scenario, k), &mut w)
                    .map_err(|e| CliError::Usage(format!("bench: {e}")))?;
            }
            w.flush()?;
            drop(w);
            let bytes = std::fs::metadata(&path)?.len();
            let out = std::process::Command::new(&exe)
                .arg("check")
                .arg(&stem)
                .arg("--observed")
                .arg(&path)
                .env(PEAK_MEMORY_ENV, "1")
                .stdin(std::process::Stdio::null())
                .output()?;
            // The repeated captures fail the scenario (exit 1); only an error is wrong.
            if out.status.code() != Some(0) && out.status.code() != Some(1) {
                return Err(CliError::Usage(format!(
                    "bench: openrdma check failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                )));
            }
            let Some(kib) = peak_from(&out.stderr) else {
                // Without /proc there is nothing to report.
                return Ok(());
            };
            let name = format!("check_memory.x{n}");
            rows.push(Row::new(name.clone(), "capture_bytes", "bytes", bytes as f64));
            rows.push(Row::new(name, "peak_bytes", "bytes", (kib * 1024) as f64));
            peaks.push(kib as f64);
        }
        if let (Some(first), Some(last)) = (peaks.first(), peaks.last()) {
            rows.push(Row::new("check_memory", "largest_over_smallest", "ratio", last / first));
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The process-adapter figures.
fn adapter(plan: &Plan, rows: &mut Vec<Row>) -> Result<(), CliError> {
    let build = corpus::all()
        .into_iter()
        .find(|(name, _)| *name == ADAPTER_SCENARIO)
        .map(|(_, build)| build)
        .ok_or_else(|| adapter_error(format!("no scenario {ADAPTER_SCENARIO} in the corpus")))?;
    let scenario = build();
    let exe = std::env::current_exe().map_err(adapter_error)?;
    let command = vec![exe.to_string_lossy().into_owned(), "serve".to_string()];
    let options = ProcessOptions { pass_stderr: false, ..ProcessOptions::default() };
    let inner = ProcessDevice::spawn_with(&command, options).map_err(adapter_error)?;
    let mut dev = Counted { inner, round_trips: 0 };
    let mut events = 0;

    let batched = plan.rate(|| {
        let start = Instant::now();
        let out = runner::run(&mut dev, &scenario, reference_cpu_half);
        let took = start.elapsed();
        if let Some(e) = out.error {
            return Err(adapter_error(e));
        }
        events = (out.injected.len() + out.observed.len()) as u64;
        Ok((events, took))
    })?;
    // Round trips of one run: the last run's count, measured again from zero.
    dev.round_trips = 0;
    let _ = runner::run(&mut dev, &scenario, reference_cpu_half);
    let batched_trips = dev.round_trips;
    dev.round_trips = 0;
    run_unbatched(&mut dev, &scenario)?;
    let unbatched_trips = dev.round_trips;
    let unbatched = plan.rate(|| {
        let start = Instant::now();
        let events = run_unbatched(&mut dev, &scenario)?;
        Ok::<_, CliError>((events, start.elapsed()))
    })?;
    // The child exits when its standard input closes; its status says nothing of the figures.
    let _ = dev.inner.close();
    rows.push(Row::new("adapter", "batched_events_per_s", "events/s", batched));
    rows.push(Row::new("adapter", "unbatched_events_per_s", "events/s", unbatched));
    rows.push(Row::new("adapter", "batched_over_unbatched", "ratio", batched / unbatched));
    rows.push(Row::new("adapter", "events_per_run", "events", events as f64));
    rows.push(Row::new("adapter", "batched_round_trips", "round trips", batched_trips as f64));
    rows.push(Row::new("adapter", "unbatched_round_trips", "round trips", unbatched_trips as f64));
    Ok(())
}

/// What `dissect.tshark` says when tshark cannot be run.
const TSHARK_ABSENT: &str = "not installed";

/// The capture the dissect figures are measured on.
const DISSECT_CAPTURE: &str = "256-byte RC SEND Only frames over IPv4, pcap";

/// The tshark fields of the comparison: what `dissect --json` shows of the same frames.
const TSHARK_FIELDS: &[&str] = &[
    "frame.number",
    "eth.src",
    "eth.dst",
    "ip.src",
    "ip.dst",
    "ip.ttl",
    "udp.srcport",
    "udp.dstport",
    "infiniband.bth.opcode",
    "infiniband.bth.se",
    "infiniband.bth.m",
    "infiniband.bth.padcnt",
    "infiniband.bth.tver",
    "infiniband.bth.p_key",
    "infiniband.bth.destqp",
    "infiniband.bth.a",
    "infiniband.bth.psn",
    "infiniband.invariant.crc",
];

/// Writes a pcap of `n` 256-byte RoCEv2 frames (RC SEND Only, IPv4, each with its own PSN
/// and ICRC) to `path`.
fn write_dissect_capture(path: &std::path::Path, n: u64) -> io::Result<()> {
    use openrdma_codec::Ipv4Repr;
    let mut f = FrameRepr {
        eth: EthernetRepr {
            dst: EthernetAddress([0x02, 0, 0, 0, 0, 2]),
            src: EthernetAddress([0x02, 0, 0, 0, 0, 1]),
            ethertype: EtherType::IPV4,
        },
        vlans: Vec::new(),
        ip: IpRepr::V4(Ipv4Repr::new(
            std::net::Ipv4Addr::new(192, 0, 2, 1),
            std::net::Ipv4Addr::new(192, 0, 2, 2),
            IP_PROTO_UDP,
        )),
        udp: UdpRepr::rocev2(0xC000),
        bth: BthRepr::new(Opcode::RC_SEND_ONLY, Qpn::new(0x11), Psn::new(0)),
        ext: Extensions::default(),
        // 14 + 20 + 8 + 12 + 198 + 4 = 256 bytes.
        payload: (0..198u32).map(|i| i as u8).collect(),
        pad: [0; 3],
        icrc: None,
        eth_padding: Vec::new(),
    };
    let mut out = io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    out.write_all(&[0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0])?;
    out.write_all(&[0xFF, 0xFF, 0, 0, 1, 0, 0, 0])?;
    for i in 0..n {
        f.bth.psn = Psn::new((i & 0xFF_FFFF) as u32);
        f.finalize().map_err(io::Error::other)?;
        let bytes = f.to_bytes().map_err(io::Error::other)?;
        let len = (bytes.len() as u32).to_le_bytes();
        out.write_all(&((i / 1_000_000) as u32).to_le_bytes())?;
        out.write_all(&((i % 1_000_000) as u32).to_le_bytes())?;
        out.write_all(&len)?;
        out.write_all(&len)?;
        out.write_all(&bytes)?;
    }
    out.flush()
}

/// Runs `cmd` with its output thrown away; the wall time it took, or `None` if it could
/// not run or failed.
fn time_process(cmd: &mut std::process::Command) -> Option<Duration> {
    use std::process::Stdio;
    let start = Instant::now();
    let status = cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status();
    let took = start.elapsed();
    status.ok().filter(|s| s.code().is_some_and(|c| c <= 1)).map(|_| took)
}

/// The dissect figures, beside tshark's when it is installed.
fn dissect(plan: &Plan, rows: &mut Vec<Row>) -> Result<(), CliError> {
    let n: u64 = if plan.quick { 20_000 } else { 1_000_000 };
    let dir = std::env::temp_dir().join(format!("openrdma-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("dissect-256B.pcap");
    let result = (|| -> Result<(), CliError> {
        write_dissect_capture(&path, n)?;
        let exe = std::env::current_exe()?;
        let file = path.to_str().ok_or_else(|| CliError::Usage("temporary path".into()))?;
        let run = |args: &[&str]| {
            time_process(std::process::Command::new(&exe).args(args))
                .ok_or_else(|| CliError::Usage(format!("openrdma {} failed", args.join(" "))))
        };
        let json = run(&["dissect", "--json", file])?;
        let text = run(&["dissect", file])?;
        let per_s = |d: Duration| n as f64 / d.as_secs_f64().max(1e-9);
        rows.push(Row::new("dissect", "frames", "frames", n as f64));
        rows.push(Row::new("dissect.json", "frames_per_s", "frames/s", per_s(json)));
        rows.push(Row::new("dissect.text", "frames_per_s", "frames/s", per_s(text)));
        let mut tshark = std::process::Command::new("tshark");
        tshark.args(["-r", file, "-T", "fields"]);
        for f in TSHARK_FIELDS {
            tshark.args(["-e", f]);
        }
        match time_process(&mut tshark) {
            Some(t) => {
                rows.push(Row::new("dissect.tshark", "frames_per_s", "frames/s", per_s(t)));
                let ratio = |d: Duration| t.as_secs_f64() / d.as_secs_f64().max(1e-9);
                rows.push(Row::new("dissect", "json_over_tshark", "ratio", ratio(json)));
                rows.push(Row::new("dissect", "text_over_tshark", "ratio", ratio(text)));
                // The codec alone, in process: decode + ICRC verify of 1 KiB frames on one
                // core, beside tshark's rate on this capture.
                let tshark_rate = per_s(t);
                let codec = rows
                    .iter()
                    .find(|r| r.name == "codec.decode_verify.1KiB" && r.key == "frames_per_s");
                if let Some(codec) = codec.map(|r| r.value) {
                    rows.push(Row::new(
                        "dissect",
                        "decode_verify_1kib_over_tshark",
                        "ratio",
                        codec / tshark_rate,
                    ));
                }
            }
            None => eprintln!("bench: tshark is not installed; the dissect figures stand alone"),
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Every figure, in the order of the table. On a terminal, standard error shows which part
/// runs.
fn measure(quick: bool) -> Result<Vec<Row>, CliError> {
    let plan = Plan::new(quick);
    let mut rows = Vec::new();
    let bar = ProgressBar::with_draw_target(
        Some(7),
        if io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template("{pos}/{len} {bar:20} {msg} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message("codec and ICRC");
    codec(&plan, &mut rows);
    bar.inc(1);
    bar.set_message("the model");
    model(&plan, &mut rows);
    bar.inc(1);
    bar.set_message("the simulator");
    sim(&plan, &mut rows)?;
    bar.inc(1);
    bar.set_message("the process adapter");
    adapter(&plan, &mut rows)?;
    bar.inc(1);
    bar.set_message("the simulator's memory");
    sim_memory(&plan, &mut rows)?;
    bar.inc(1);
    bar.set_message("check's memory");
    check_memory(&plan, &mut rows)?;
    bar.inc(1);
    bar.set_message("dissect beside tshark");
    dissect(&plan, &mut rows)?;
    bar.finish_and_clear();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    rows.push(Row::new("machine", "cores", "cores", cores as f64));
    // The table lists sections in JSON order.
    let order = [
        "codec",
        "icrc",
        "model",
        "sim",
        "sim_memory",
        "check_memory",
        "adapter",
        "dissect",
        "machine",
    ];
    rows.sort_by_key(|r| {
        let section = r.name.split('.').next().unwrap_or("");
        order.iter().position(|s| *s == section).unwrap_or(order.len())
    });
    Ok(rows)
}

/// The figures as one JSON object: `section.sub.key` nesting, integers where exact.
fn to_json(rows: &[Row]) -> Value {
    let mut root = Map::new();
    for r in rows {
        let mut node = &mut root;
        for part in r.name.split('.') {
            node = match node.entry(part).or_insert_with(|| Value::Object(Map::new())) {
                Value::Object(m) => m,
                _ => unreachable!("a figure's name is never a leaf"),
            };
        }
        let value = if r.value.fract() == 0.0 && r.value.abs() < 9.0e15 {
            Value::from(r.value as i64)
        } else {
            Value::from(r.value)
        };
        node.insert(r.key.to_string(), value);
    }
    if let Some(Value::Object(s)) = root.get_mut("adapter") {
        s.insert("scenario".into(), Value::from(ADAPTER_SCENARIO));
    }
    if let Some(Value::Object(s)) = root.get_mut("dissect") {
        if !s.contains_key("tshark") {
            s.insert("tshark".into(), Value::from(TSHARK_ABSENT));
        }
        s.insert("capture".into(), Value::from(DISSECT_CAPTURE));
    }
    if let Some(Value::Object(s)) = root.get_mut("model") {
        for (name, what) in MODEL_FIGURES {
            if let Some(Value::Object(f)) = s.get_mut(name) {
                f.insert("what".into(), Value::from(what));
            }
        }
    }
    Value::Object(root)
}

/// A figure with three significant digits and an SI prefix.
fn human(v: f64) -> String {
    let (scaled, prefix) = match v.abs() {
        a if a >= 1e9 => (v / 1e9, "G"),
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e3 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let digits = match scaled.abs() {
        a if a >= 100.0 => 0,
        a if a >= 10.0 => 1,
        _ => 2,
    };
    format!("{scaled:.digits$} {prefix}")
}

/// Runs the command.
pub fn run(args: &BenchArgs) -> Result<Outcome, CliError> {
    let rows = measure(args.quick)?;
    let mut out = Stdout::new();
    if args.json {
        serde_json::to_writer(&mut out, &to_json(&rows)).map_err(io::Error::from)?;
        writeln!(out)?;
    } else {
        let label = |r: &Row| format!("{}.{}", r.name, r.key.trim_end_matches("_per_s"));
        let width = rows.iter().map(|r| label(r).len()).max().unwrap_or(0);
        writeln!(out, "{:width$}  {:>12}  unit", "benchmark", "value")?;
        for r in &rows {
            let value = if r.unit == "ratio" {
                format!("{:.2}", r.value)
            } else if !r.key.ends_with("_per_s") {
                if r.value.fract() == 0.0 {
                    format!("{}", r.value)
                } else {
                    format!("{:.3}", r.value)
                }
            } else {
                human(r.value)
            };
            writeln!(out, "{:width$}  {value:>12}  {}", label(r), r.unit)?;
        }
        writeln!(out, "\nmodel figures, 256 KiB writes at 4 KiB PMTU:")?;
        for (name, what) in MODEL_FIGURES {
            writeln!(out, "  {name:<10} {what}")?;
        }
        if !rows.iter().any(|r| r.name == "dissect.tshark") {
            writeln!(out, "dissect: tshark {TSHARK_ABSENT}; no ratios")?;
        }
        if args.quick {
            writeln!(out, "(--quick: tiny runs, not figures to quote)")?;
        }
    }
    out.finish(Outcome::Clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_nests_rows_by_name() {
        let rows = vec![
            Row::new("codec.decode_verify.64B", "frames_per_s", "frames/s", 1.5),
            Row::new("machine", "cores", "cores", 2.0),
        ];
        let v = to_json(&rows);
        assert_eq!(v["codec"]["decode_verify"]["64B"]["frames_per_s"], 1.5);
        assert_eq!(v["machine"]["cores"], 2);
    }

    #[test]
    fn human_prefixes() {
        assert_eq!(human(1234.0), "1.23 k");
        assert_eq!(human(56_700_000.0), "56.7 M");
        assert_eq!(human(3.0e9), "3.00 G");
    }
}
