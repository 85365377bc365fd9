//! The knobs of `openrdma sim run` as data: two hosts, N identical paths and one flow from
//! host 0 to host 1, written down either as the command line's options or as a TOML file
//! whose keys are the options' names without the dashes in front:
//!
//! ```toml
//! # 4 × 100 Gb/s, 1 % bursty loss, path 3 20 µs slower than path 0
//! paths = 4
//! rate-gbps = 100
//! mtu = 4096
//! loss = 0.01
//! loss-model = "bursty"
//! skew-ns = 20000
//! qps = 8
//! messages = 1000
//! message-bytes = 65536
//! spray = "window-fit"        # round-robin, random, fixed, skew-aware, window-fit
//! retirement = "per-qp"       # shared, per-qp
//! drop = ["0:5", "1:17"]      # QP:PSN, first transmission only
//! fail = ["2:100000:200000"]  # PATH:FROM_NS:TO_NS
//! tail-probe-ns = 2000        # SND-TAIL-001; 0 turns tail probes off; absent, 2 × the
//!                             # slowest one-way delay + the SACK delay
//! retry-limit = 7             # timeouts in a row before RETRY_EXCEEDED
//! ```
//!
//! Every key may be left out; [`RunSpec::default`] gives the rest. [`RunSpec::from_toml`]
//! refuses an unknown key, a value of the wrong type and a value out of range, each with
//! the line and column where it stands ([`RunFileError`]); [`RunSpec::config`] builds the
//! [`SimConfig`].

use core::fmt;
use core::ops::Range;
use core::str::FromStr;

use openrdma_codec::Psn;
use openrdma_sm::{RetirementMode, SprayPolicy};
use serde::{Deserialize, Deserializer, Serialize};

use crate::config::{
    AimedDrop, FlowConfig, LossModel, MAX_RATE_GBPS, MAX_TIME_NS, MIN_RATE_GBPS, Outage,
    PathConfig, SimConfig,
};

/// The loss process of every path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LossKind {
    /// Independent losses with probability `loss`.
    #[default]
    Random,
    /// Gilbert–Elliott bursts with mean loss `loss` and mean burst length `burst-len`.
    Bursty,
}

/// Drop the first transmission of PSN `psn` of QP `qp` (index from 0): `QP:PSN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DropSpec {
    /// QP index within the flow.
    pub qp: u32,
    /// PSN.
    pub psn: Psn,
}

/// Take path `path` down during `[from_ns, to_ns)`: `PATH:FROM_NS:TO_NS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailSpec {
    /// Path index.
    pub path: usize,
    /// First nanosecond down.
    pub from_ns: u64,
    /// First nanosecond up again.
    pub to_ns: u64,
}

fn number<T: FromStr>(what: &str, s: &str) -> Result<T, String>
where
    T::Err: fmt::Display,
{
    s.parse().map_err(|e| format!("{what} `{s}`: {e}"))
}

impl FromStr for DropSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<DropSpec, String> {
        let (q, p) = s.split_once(':').ok_or("expected QP:PSN")?;
        let qp = number("QP", q)?;
        let psn = Psn::try_new(number("PSN", p)?).ok_or(format!("PSN `{p}`: a PSN is 24-bit"))?;
        Ok(DropSpec { qp, psn })
    }
}

impl FromStr for FailSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<FailSpec, String> {
        let mut it = s.split(':');
        let (Some(p), Some(a), Some(b), None) = (it.next(), it.next(), it.next(), it.next()) else {
            return Err("expected PATH:FROM_NS:TO_NS".into());
        };
        Ok(FailSpec {
            path: number("path", p)?,
            from_ns: number("from", a)?,
            to_ns: number("to", b)?,
        })
    }
}

macro_rules! from_string {
    ($($t:ty),*) => {$(
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
            }
        }
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    )*};
}
from_string!(DropSpec, FailSpec);

impl fmt::Display for DropSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.qp, self.psn)
    }
}

impl fmt::Display for FailSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path, self.from_ns, self.to_ns)
    }
}

/// Checks a value read from a file; the error becomes the message at its line.
fn checked<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
    check: impl FnOnce(&T) -> Result<(), &'static str>,
) -> Result<T, D::Error> {
    let v = T::deserialize(d)?;
    check(&v).map_err(serde::de::Error::custom)?;
    Ok(v)
}

macro_rules! check_fn {
    ($name:ident: $t:ty = |$v:ident| $ok:expr, $msg:literal) => {
        fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
            checked(d, |$v: &$t| if $ok { Ok(()) } else { Err($msg) })
        }
    };
}

check_fn!(paths_ok: u16 = |v| (1..=1024).contains(v), "between 1 and 1024 paths");
check_fn!(mtu_ok: u32 = |v| matches!(v, 256 | 512 | 1024 | 2048 | 4096), "one of 256, 512, 1024, 2048, 4096");
check_fn!(loss_ok: f64 = |v| (0.0..1.0).contains(v), "a probability in [0, 1)");
check_fn!(burst_ok: f64 = |v| v.is_finite() && *v >= 1.0, "a finite number of packets, at least 1");
check_fn!(rate_ok: f64 = |v| v.is_finite() && (MIN_RATE_GBPS..=MAX_RATE_GBPS).contains(v), "a rate from 0.001 to 100000 Gb/s");
check_fn!(time_ok: u64 = |v| *v <= MAX_TIME_NS, "at most 10^15 ns (about 11.6 days)");
check_fn!(horizon_ok: u64 = |v| *v <= MAX_TIME_NS / 1_000_000, "at most 10^9 ms (about 11.6 days)");
check_fn!(messages_ok: u32 = |v| *v >= 1, "at least 1 message");
check_fn!(queue_ok: u64 = |v| *v >= 9216, "at least one jumbo frame (9216 bytes)");

fn tail_ok<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    time_ok(d).map(Some)
}
check_fn!(qps_ok: u32 = |v| (1..=65536).contains(v), "between 1 and 65536");
check_fn!(bytes_ok: u32 = |v| (1..=1 << 31).contains(v), "between 1 and 2^31");
check_fn!(mpr_ok: u8 = |v| (1..=64).contains(v), "between 1 and 64");
check_fn!(evs_ok: u32 = |v| (1..=256).contains(v), "between 1 and 256");
check_fn!(retry_in_range: u32 = |v| (1..=1000).contains(v), "between 1 and 1000");

fn retry_ok<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    retry_in_range(d).map(Some)
}

/// `openrdma sim run`'s knobs (see the module documentation). Field names are the option
/// names; in a file, with dashes (`rate-gbps`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct RunSpec {
    /// Number of paths.
    #[serde(deserialize_with = "paths_ok")]
    pub paths: u16,
    /// Rate of each path, Gb/s.
    #[serde(deserialize_with = "rate_ok")]
    pub rate_gbps: f64,
    /// Path MTU: payload bytes per packet.
    #[serde(deserialize_with = "mtu_ok")]
    pub mtu: u32,
    /// Loss probability of every path.
    #[serde(deserialize_with = "loss_ok")]
    pub loss: f64,
    /// Loss process.
    pub loss_model: LossKind,
    /// Mean burst length of the bursty loss model, packets.
    #[serde(deserialize_with = "burst_ok")]
    pub burst_len: f64,
    /// Path skew, ns: path i gets i·S/(N−1) ns of extra delay.
    #[serde(deserialize_with = "time_ok")]
    pub skew_ns: u64,
    /// One-way propagation delay of every path, ns.
    #[serde(deserialize_with = "time_ok")]
    pub delay_ns: u64,
    /// Byte limit of each switch output queue.
    #[serde(deserialize_with = "queue_ok")]
    pub queue_bytes: u64,
    /// Queue pairs.
    #[serde(deserialize_with = "qps_ok")]
    pub qps: u32,
    /// Messages per QP.
    #[serde(deserialize_with = "messages_ok")]
    pub messages: u32,
    /// Bytes per message.
    #[serde(deserialize_with = "bytes_ok")]
    pub message_bytes: u32,
    /// Interval between the messages of a QP, ns (0: all at once).
    #[serde(deserialize_with = "time_ok")]
    pub post_interval_ns: u64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Retirement ordering.
    pub retirement: RetirementMode,
    /// Spraying policy.
    pub spray: SprayPolicy,
    /// Window, in units of 128 packets (MPR).
    #[serde(deserialize_with = "mpr_ok")]
    pub mpr: u8,
    /// EVs per QP, spread over the paths.
    #[serde(deserialize_with = "evs_ok")]
    pub evs_per_qp: u32,
    /// Aimed drops.
    pub drop: Vec<DropSpec>,
    /// Path outages.
    pub fail: Vec<FailSpec>,
    /// Stop at this simulated time, ms.
    #[serde(deserialize_with = "horizon_ok")]
    pub horizon_ms: u64,
    /// IPv6 instead of IPv4.
    pub ipv6: bool,
    /// Tail probing's delay, ns (`SND-TAIL-001`); 0 turns it off; absent, the round trip of
    /// the slowest path plus the receiver's SACK delay ([`RunSpec::tail_probe`]).
    #[serde(deserialize_with = "tail_ok", skip_serializing_if = "Option::is_none")]
    pub tail_probe_ns: Option<u64>,
    /// Consecutive timeouts a QP survives before it fails with RETRY_EXCEEDED
    /// (`REC-RETRY-002`); absent, sized for the fabric's loss ([`RunSpec::retry_limit`]).
    #[serde(deserialize_with = "retry_ok", skip_serializing_if = "Option::is_none")]
    pub retry_limit: Option<u32>,
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec {
            paths: 4,
            rate_gbps: 100.0,
            mtu: 4096,
            loss: 0.0,
            loss_model: LossKind::Random,
            burst_len: LossModel::DEFAULT_BURST,
            skew_ns: 0,
            delay_ns: 500,
            queue_bytes: 1 << 20,
            qps: 8,
            messages: 100,
            message_bytes: 65536,
            post_interval_ns: 0,
            seed: 0,
            retirement: RetirementMode::Shared,
            spray: SprayPolicy::RoundRobin,
            mpr: 2,
            evs_per_qp: 8,
            drop: Vec::new(),
            fail: Vec::new(),
            horizon_ms: 10_000,
            ipv6: false,
            tail_probe_ns: None,
            retry_limit: None,
        }
    }
}

/// What is wrong with a run file, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct RunFileError {
    /// 1-based line (0 when the parser could not tell).
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// What is wrong with a [`RunSpec`] as a whole: the name of the option (the key of a file)
/// and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunSpecError {
    /// One knob, on its own or with another.
    #[error("{key}: {reason}")]
    Knob {
        /// The option's name.
        key: &'static str,
        /// Why.
        reason: String,
    },
    /// The configuration the knobs build.
    #[error(transparent)]
    Config(#[from] crate::config::SimConfigError),
}

impl RunSpec {
    /// The tail-probe delay of a run of `cfg` (`SND-TAIL-001`): `tail_probe_ns` when given
    /// (0: none), and otherwise the slowest path's round trip plus the receiver's SACK
    /// delay, the longest a SACK can take to report a tail that arrived.
    pub fn tail_probe(&self, cfg: &SimConfig) -> Option<core::time::Duration> {
        let ns = self.tail_probe_ns.unwrap_or_else(|| {
            let one_way = cfg.paths.iter().map(|p| p.delay_ns + p.skew_ns).max().unwrap_or(0);
            let sack_delay = u64::try_from(cfg.nic.sack_delay.as_nanos()).unwrap_or(u64::MAX);
            one_way.saturating_mul(2).saturating_add(sack_delay).min(MAX_TIME_NS)
        });
        (ns > 0).then(|| core::time::Duration::from_nanos(ns))
    }

    /// The retry limit of a run (`REC-RETRY-002`): `retry_limit` when given; otherwise the
    /// protocol's default (7), raised on a lossy fabric until a QP stuck on one PSN is ended
    /// by loss alone less than once in 10^9 times: the retransmission and its
    /// acknowledgement are each lost with the fabric's mean loss `p`, so each timeout fails
    /// with `q = 1 − (1 − p)²`, and the limit is the least `k` with `q^k ≤ 10^-9` (47 at
    /// `p` = 0.4, 73 at 0.5), at most 1000.
    pub fn retry_limit(&self) -> u32 {
        let default = openrdma_sm::RecoveryConfig::default().retry_limit;
        if let Some(k) = self.retry_limit {
            return k;
        }
        let q = 1.0 - (1.0 - self.loss).powi(2);
        if !(q > 0.0 && q < 1.0) {
            return default;
        }
        let k = (1e-9f64.ln() / q.ln()).ceil();
        (k.min(1000.0) as u32).max(default)
    }

    /// Reads a run file (see the module documentation).
    pub fn from_toml(text: &str) -> Result<RunSpec, RunFileError> {
        let spec: RunSpec = toml::from_str(text).map_err(|e| {
            let (line, column) = match e.span() {
                Some(Range { start, .. }) => line_column(text, start),
                None => (0, 0),
            };
            RunFileError { line, column, message: e.message().trim_end().to_string() }
        })?;
        // Entries that name a QP or a path, checked against the other keys, where they stand.
        let places: Places = toml::from_str(text).unwrap_or_default();
        let at = |span: Range<usize>| line_column(text, span.start);
        for d in &places.drop {
            if d.get_ref().qp >= spec.qps {
                let (line, column) = at(d.span());
                return Err(RunFileError {
                    line,
                    column,
                    message: format!(
                        "drop {}: there are {} QPs (0 to {})",
                        d.get_ref(),
                        spec.qps,
                        spec.qps - 1
                    ),
                });
            }
        }
        for f in &places.fail {
            if f.get_ref().path >= usize::from(spec.paths) {
                let (line, column) = at(f.span());
                let f = f.get_ref();
                return Err(RunFileError {
                    line,
                    column,
                    message: format!(
                        "fail {f}: there are {} paths (0 to {})",
                        spec.paths,
                        spec.paths - 1
                    ),
                });
            }
        }
        Ok(spec)
    }

    /// The simulation these knobs describe: two hosts, `paths` identical paths (but for the
    /// skew), one flow of `qps` QPs from host 0 to host 1.
    pub fn config(&self) -> Result<SimConfig, RunSpecError> {
        let bad = |key, reason: String| RunSpecError::Knob { key, reason };
        // Every number is checked against what the simulator's arithmetic holds before any
        // is used.
        if !(self.rate_gbps.is_finite()
            && (MIN_RATE_GBPS..=MAX_RATE_GBPS).contains(&self.rate_gbps))
        {
            return Err(bad(
                "rate-gbps",
                format!("{}: a rate from 0.001 to 100000 Gb/s", self.rate_gbps),
            ));
        }
        let long = |key, v: u64| {
            (v > MAX_TIME_NS).then(|| {
                bad(key, format!("{v}: at most 10^15 ns (about 11.6 days), the longest time the simulator holds"))
            })
        };
        for (key, v) in [
            ("delay-ns", self.delay_ns),
            ("skew-ns", self.skew_ns),
            ("post-interval-ns", self.post_interval_ns),
            ("tail-probe-ns", self.tail_probe_ns.unwrap_or(0)),
        ] {
            if let Some(e) = long(key, v) {
                return Err(e);
            }
        }
        if self.horizon_ms > MAX_TIME_NS / 1_000_000 {
            return Err(bad(
                "horizon-ms",
                format!("{}: at most 10^9 ms (about 11.6 days)", self.horizon_ms),
            ));
        }
        if let Some(f) = self.fail.iter().find(|f| f.from_ns > MAX_TIME_NS || f.to_ns > MAX_TIME_NS)
        {
            return Err(bad("fail", format!("{f}: outages within the first 10^15 ns")));
        }
        if let Some(f) = self.fail.iter().find(|f| f.to_ns < f.from_ns) {
            return Err(bad("fail", format!("{f}: an outage ends after it starts")));
        }
        if self.messages == 0 {
            return Err(bad("messages", "0: at least 1 message".into()));
        }
        if self.queue_bytes < 9216 {
            return Err(bad(
                "queue-bytes",
                format!("{}: at least one jumbo frame (9216 bytes)", self.queue_bytes),
            ));
        }
        let last_post = u64::from(self.messages - 1).checked_mul(self.post_interval_ns);
        if last_post.is_none_or(|t| t > MAX_TIME_NS) {
            return Err(bad(
                "post-interval-ns",
                format!(
                    "{} × {} messages: the last message would be posted after 10^15 ns",
                    self.post_interval_ns, self.messages
                ),
            ));
        }
        let bytes = u64::from(self.qps)
            .checked_mul(u64::from(self.messages))
            .and_then(|n| n.checked_mul(u64::from(self.message_bytes)));
        if bytes.is_none_or(|b| b > 1 << 63) {
            return Err(bad(
                "messages",
                format!(
                    "{} QPs × {} messages × {} bytes: more bytes than the counters hold (2^63)",
                    self.qps, self.messages, self.message_bytes
                ),
            ));
        }
        if !(0.0..1.0).contains(&self.loss) {
            return Err(bad("loss", format!("{}: a probability in [0, 1)", self.loss)));
        }
        if !(self.burst_len.is_finite() && self.burst_len >= 1.0) {
            return Err(bad(
                "burst-len",
                format!("{}: a finite number of packets, at least 1", self.burst_len),
            ));
        }
        if !matches!(self.mtu, 256 | 512 | 1024 | 2048 | 4096) {
            return Err(bad("mtu", format!("{}: one of 256, 512, 1024, 2048, 4096", self.mtu)));
        }
        let n = usize::from(self.paths);
        let loss = match self.loss_model {
            _ if self.loss == 0.0 => LossModel::None,
            LossKind::Random => LossModel::Random { p: self.loss },
            LossKind::Bursty => LossModel::bursty(self.loss, self.burst_len),
        };
        let mut paths: Vec<PathConfig> = (0..n)
            .map(|i| PathConfig {
                rate_gbps: self.rate_gbps,
                delay_ns: self.delay_ns,
                skew_ns: if n > 1 { self.skew_ns * i as u64 / (n as u64 - 1) } else { 0 },
                queue_bytes: self.queue_bytes,
                loss,
                down: Vec::new(),
            })
            .collect();
        for f in &self.fail {
            let path = paths.get_mut(f.path).ok_or_else(|| {
                bad("fail", format!("{f}: there are {n} paths (0 to {})", n.saturating_sub(1)))
            })?;
            path.down.push(Outage { from_ns: f.from_ns, to_ns: f.to_ns });
        }
        let mut cfg = SimConfig {
            seed: self.seed,
            paths,
            ipv6: self.ipv6,
            flows: vec![FlowConfig {
                qps: self.qps,
                messages: self.messages,
                message_bytes: self.message_bytes,
                post_interval_ns: self.post_interval_ns,
                spray: self.spray,
                ..FlowConfig::default()
            }],
            aimed_drops: self
                .drop
                .iter()
                .map(|d| AimedDrop { flow: 0, qp: d.qp, psn: d.psn })
                .collect(),
            evs_per_qp: self.evs_per_qp,
            horizon_ns: self.horizon_ms.saturating_mul(1_000_000),
            ..SimConfig::default()
        };
        cfg.nic.pmtu = self.mtu;
        cfg.nic.mpr = self.mpr;
        cfg.nic.retirement = self.retirement;
        cfg.nic.max_qps = cfg.nic.max_qps.max(self.qps);
        cfg.nic.tail_probe = self.tail_probe(&cfg);
        let retry_limit = self.retry_limit();
        if !(1..=1000).contains(&retry_limit) {
            return Err(bad("retry-limit", format!("{retry_limit}: between 1 and 1000")));
        }
        cfg.recovery.retry_limit = retry_limit;
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Where the entries of `drop` and `fail` stand in a file, to point at one that names a QP
/// or a path that does not exist.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Places {
    drop: Vec<toml::Spanned<DropSpec>>,
    fail: Vec<toml::Spanned<FailSpec>>,
}

/// The 1-based line and column (in characters) of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..at.min(text.len())];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before[line_start..].iter().filter(|&&b| b & 0xC0 != 0x80).count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_file_is_the_defaults() {
        assert_eq!(RunSpec::from_toml("").unwrap(), RunSpec::default());
        RunSpec::default().config().unwrap();
    }

    #[test]
    fn every_key_is_read() {
        let text = r#"
paths = 3
rate-gbps = 50
mtu = 1024
loss = 0.1
loss-model = "bursty"
burst-len = 8
skew-ns = 800
delay-ns = 700
queue-bytes = 65536
qps = 2
messages = 5
message-bytes = 3000
post-interval-ns = 10
seed = 9
retirement = "per-qp"
spray = "window-fit"
mpr = 4
evs-per-qp = 6
drop = ["1:4"]
fail = ["2:100:200"]
horizon-ms = 7
ipv6 = true
"#;
        let s = RunSpec::from_toml(text).unwrap();
        let c = s.config().unwrap();
        assert_eq!(c.paths.iter().map(|p| p.skew_ns).collect::<Vec<_>>(), [0, 400, 800]);
        assert_eq!(c.paths[0].loss, LossModel::bursty(0.1, 8.0));
        assert_eq!(
            (c.paths[1].rate_gbps, c.paths[1].delay_ns, c.paths[1].queue_bytes),
            (50.0, 700, 65536)
        );
        assert_eq!(c.paths[2].down, [Outage { from_ns: 100, to_ns: 200 }]);
        assert_eq!(
            (c.nic.pmtu, c.nic.mpr, c.nic.retirement, c.seed),
            (1024, 4, RetirementMode::PerQp, 9)
        );
        let f = &c.flows[0];
        assert_eq!((f.qps, f.messages, f.message_bytes, f.post_interval_ns), (2, 5, 3000, 10));
        assert_eq!(f.spray, SprayPolicy::WindowFit);
        assert_eq!(c.aimed_drops, [AimedDrop { flow: 0, qp: 1, psn: Psn::new(4) }]);
        assert_eq!((c.evs_per_qp, c.horizon_ns, c.ipv6), (6, 7_000_000, true));
        // And back: a spec written out reads in the same.
        assert_eq!(RunSpec::from_toml(&toml::to_string(&s).unwrap()).unwrap(), s);
    }

    /// REC-RETRY-002: the retry limit given is kept; without one, a lossless fabric has the
    /// protocol's 7 and a lossy one the least limit a QP survives its loss with, all but
    /// once in 10^9 stuck PSNs.
    #[test]
    fn the_retry_limit_follows_the_loss_unless_given() {
        let at = |loss: f64| RunSpec { loss, ..RunSpec::default() }.retry_limit();
        assert_eq!(at(0.0), 7);
        assert_eq!(at(0.01), 7, "the protocol's default is enough");
        assert_eq!((at(0.4), at(0.5)), (47, 73));
        for loss in [0.05, 0.2, 0.4, 0.5, 0.7] {
            let k = at(loss);
            let q: f64 = 1.0 - (1.0 - loss) * (1.0 - loss);
            assert!(q.powi(k as i32) <= 1e-9, "{loss}: {k}");
            assert!(k == 7 || q.powi(k as i32 - 1) > 1e-9, "{loss}: {k} is not the least");
        }
        assert_eq!(at(0.999), 1000, "at most 1000");
        let given = RunSpec { loss: 0.5, retry_limit: Some(3), ..RunSpec::default() };
        assert_eq!((given.retry_limit(), given.config().unwrap().recovery.retry_limit), (3, 3));
        let file = RunSpec::from_toml(
            "loss = 0.4
retry-limit = 12
",
        )
        .unwrap();
        assert_eq!(file.retry_limit(), 12);
        assert!(
            RunSpec::from_toml(
                "retry-limit = 0
"
            )
            .is_err()
        );
    }

    /// Each kind of mistake is refused with the line and column where it stands.
    #[test]
    fn mistakes_are_named_with_their_place() {
        let cases: &[(&str, usize, &str)] = &[
            ("qps = 2\nmtu = 1000\n", 2, "one of 256"),
            ("\n\nloss = 1.5", 3, "probability"),
            ("paths = 4\nspray = \"sideways\"\n", 2, "sideways"),
            ("paths = 4\nqpz = 2\n", 2, "qpz"),
            ("qps = \"eight\"\n", 1, "expected u32"),
            ("drop = [\"3\"]\n", 1, "QP:PSN"),
            ("qps = 2\ndrop = [\"0:1\", \"9:0\"]\n", 2, "there are 2 QPs"),
            ("paths = 2\n\nfail = [\"7:0:10\"]\n", 3, "there are 2 paths"),
            ("paths = [4\n", 1, ""),
        ];
        for &(text, line, words) in cases {
            let e = RunSpec::from_toml(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.column >= 1, "{text:?}: {e}");
            assert!(e.message.contains(words), "{text:?}: {e}");
        }
    }

    /// Every number is held to what the simulator's arithmetic can hold, and refused by
    /// the option's name rather than wrapped into a wrong answer.
    #[test]
    fn numbers_beyond_the_arithmetic_are_refused_by_name() {
        let cases: Vec<(RunSpec, &str)> = vec![
            (RunSpec { delay_ns: 100_000_000_000_000_000, ..RunSpec::default() }, "delay-ns"),
            (RunSpec { skew_ns: u64::MAX, ..RunSpec::default() }, "skew-ns"),
            (RunSpec { rate_gbps: 1e-12, ..RunSpec::default() }, "rate-gbps"),
            (RunSpec { rate_gbps: f64::NAN, ..RunSpec::default() }, "rate-gbps"),
            (RunSpec { horizon_ms: u64::MAX, ..RunSpec::default() }, "horizon-ms"),
            (RunSpec { messages: 0, ..RunSpec::default() }, "messages"),
            (RunSpec { tail_probe_ns: Some(u64::MAX), ..RunSpec::default() }, "tail-probe-ns"),
            (RunSpec { burst_len: f64::INFINITY, ..RunSpec::default() }, "burst-len"),
            (
                RunSpec { post_interval_ns: 1 << 40, messages: 1 << 20, ..RunSpec::default() },
                "post-interval-ns",
            ),
            (
                RunSpec {
                    qps: 65536,
                    messages: u32::MAX,
                    message_bytes: 1 << 31,
                    ..RunSpec::default()
                },
                "messages",
            ),
            (
                RunSpec {
                    fail: vec![FailSpec { path: 0, from_ns: 0, to_ns: u64::MAX }],
                    ..RunSpec::default()
                },
                "fail",
            ),
        ];
        for (spec, key) in cases {
            match spec.config() {
                Err(RunSpecError::Knob { key: k, .. }) => assert_eq!(k, key, "{spec:?}"),
                other => panic!("{key}: {other:?}"),
            }
        }
        for (text, words) in [
            ("delay-ns = 1000000000000000001\n", "10^15"),
            ("rate-gbps = 1e-12\n", "0.001"),
            ("messages = 0\n", "at least 1"),
            ("horizon-ms = 18446744073709551615\n", "10^9 ms"),
            ("burst-len = inf\n", "finite"),
        ] {
            let e = RunSpec::from_toml(text).unwrap_err();
            assert!(e.line == 1 && e.message.contains(words), "{text:?}: {e}");
        }
        // The longest times themselves work.
        let s = RunSpec {
            delay_ns: MAX_TIME_NS,
            horizon_ms: MAX_TIME_NS / 1_000_000,
            ..RunSpec::default()
        };
        let c = s.config().unwrap();
        assert_eq!(c.nic.tail_probe, Some(core::time::Duration::from_nanos(MAX_TIME_NS)));
    }
}
