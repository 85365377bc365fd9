//! What a simulation runs: the fabric, the NICs' timing, the endpoints' configuration and
//! the workload. Every field is plain data (serde), so that an experiment can be written
//! down, stored and replayed; [`SimConfig::validate`] says what is wrong with one.

use openrdma_codec::Psn;
use openrdma_sm::{NicConfig, RecoveryConfig, SprayPolicy};
use serde::{Deserialize, Serialize};

/// Latencies of the NIC's fixed-function parts, modelling an FPGA NIC.
///
/// The defaults describe a NIC built like the open FPGA NICs (Corundum, the open-rdma
/// RTL): one 512-bit datapath per 100 Gb/s port, closed at 250 MHz. 512 bits × 250 MHz is
/// 128 Gb/s, above the port rate, so the datapath is never the bottleneck and is modelled
/// as a latency only; the port rate is.
///
/// * `tx_pipeline_cycles` = 20 (80 ns): from the scheduler's pick to the first byte at the
///   MAC — context lookup, segmentation, header build and EV choice, each a few registered
///   stages, plus the MAC's transmit FIFO.
/// * `rx_pipeline_cycles` = 24 (96 ns): from the last byte at the MAC to the placement
///   decision — parse, ICRC check (streaming, but the verdict is known only after the last
///   byte), window and bitmap lookup, retirement-table update. Longer than transmit
///   because of the ICRC and the bitmap's read-modify-write.
/// * `dma_write_ns` = 150: a posted PCIe write from the NIC to GPU memory through one
///   PCIe switch (a few tens of ns per hop plus the root or switch port's latency).
/// * `flag_write_ns` = 100: the 8-byte flag write; a posted write on the same ordered
///   channel as the data, so it may be issued sooner but never lands before the data
///   written earlier (PCIe ordering of posted writes). The simulator keeps that order: a
///   host's writes land in the order the NIC issued them.
/// * `tx_queue_depth` = 4: packets the NIC may have handed to each port and not yet
///   serialized. The transmit scheduler asks the model for a packet only while the NIC's
///   transmit buffer (depth × paths packets) has room, so the NIC emits no faster than the
///   sum of its ports' rates, and the rest of the window waits inside the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NicTiming {
    /// Datapath clock, MHz.
    pub clock_mhz: u32,
    /// Transmit pipeline depth, cycles.
    pub tx_pipeline_cycles: u32,
    /// Receive pipeline depth, cycles.
    pub rx_pipeline_cycles: u32,
    /// Latency of a payload DMA write to host (GPU) memory, ns.
    pub dma_write_ns: u64,
    /// Latency of a flag (or completion entry) write, ns.
    pub flag_write_ns: u64,
    /// Transmit buffer per port, packets.
    pub tx_queue_depth: u32,
}

impl Default for NicTiming {
    fn default() -> Self {
        NicTiming {
            clock_mhz: 250,
            tx_pipeline_cycles: 20,
            rx_pipeline_cycles: 24,
            dma_write_ns: 150,
            flag_write_ns: 100,
            tx_queue_depth: 4,
        }
    }
}

impl NicTiming {
    /// Picoseconds of `cycles` clock cycles.
    pub fn cycles_ps(&self, cycles: u32) -> u64 {
        u64::from(cycles) * 1_000_000 / u64::from(self.clock_mhz.max(1))
    }
}

/// How a path loses packets (besides its queue overflowing and its outages).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum LossModel {
    /// No random loss.
    #[default]
    None,
    /// Each packet is lost with probability `p`, independently.
    Random {
        /// Loss probability.
        p: f64,
    },
    /// Gilbert–Elliott: a two-state Markov chain stepped once per packet. In the good state
    /// a packet is lost with probability `loss_good`, in the bad state with `loss_bad`. The
    /// chain moves good → bad with probability `p_good_to_bad` and bad → good with
    /// `p_bad_to_good`, before the packet's fate is drawn.
    GilbertElliott {
        /// Probability of entering the bad state, per packet.
        p_good_to_bad: f64,
        /// Probability of leaving the bad state, per packet (1 / mean burst length).
        p_bad_to_good: f64,
        /// Loss probability in the good state.
        loss_good: f64,
        /// Loss probability in the bad state.
        loss_bad: f64,
    },
}

impl LossModel {
    /// Mean burst length (packets) of [`LossModel::bursty`] when none is given.
    pub const DEFAULT_BURST: f64 = 4.0;

    /// Gilbert–Elliott with average loss `p` in bursts of `mean_burst` packets: every packet
    /// is lost in the bad state and none in the good state; `p_bad_to_good` = 1 /
    /// `mean_burst`, and `p_good_to_bad` = `p` · `p_bad_to_good` / (1 − `p`), so that the
    /// chain spends the fraction `p` of packets in the bad state.
    pub fn bursty(p: f64, mean_burst: f64) -> LossModel {
        let p_bad_to_good = 1.0 / mean_burst.max(1.0);
        let p_good_to_bad = if p >= 1.0 { 1.0 } else { p * p_bad_to_good / (1.0 - p) };
        LossModel::GilbertElliott {
            p_good_to_bad: p_good_to_bad.min(1.0),
            p_bad_to_good,
            loss_good: 0.0,
            loss_bad: 1.0,
        }
    }

    /// The long-run fraction of packets lost.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Random { p } => p,
            LossModel::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                let total = p_good_to_bad + p_bad_to_good;
                if total == 0.0 {
                    return loss_good;
                }
                let bad = p_good_to_bad / total;
                bad * loss_bad + (1.0 - bad) * loss_good
            }
        }
    }

    fn probabilities(&self) -> Vec<f64> {
        match *self {
            LossModel::None => vec![],
            LossModel::Random { p } => vec![p],
            LossModel::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                vec![p_good_to_bad, p_bad_to_good, loss_good, loss_bad]
            }
        }
    }
}

/// A time during which a path drops everything, in both directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outage {
    /// First nanosecond of the outage.
    pub from_ns: u64,
    /// First nanosecond after it.
    pub to_ns: u64,
}

/// One path (a plane of the fabric): every host has one port on it, of the path's rate.
///
/// A packet leaves its host through the port's transmit buffer (serialized at `rate_gbps`),
/// enters the path's switch, waits in the FIFO output queue towards its destination
/// (serialized again at `rate_gbps`; tail drop above `queue_bytes`), then propagates for
/// `delay_ns + skew_ns`. Loss and outages apply as the packet enters the switch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PathConfig {
    /// Link rate, Gb/s.
    pub rate_gbps: f64,
    /// One-way propagation delay, ns.
    pub delay_ns: u64,
    /// Extra delay of this path over the others, ns.
    pub skew_ns: u64,
    /// Byte limit of the switch's output queue towards each host (tail drop).
    pub queue_bytes: u64,
    /// Random loss.
    pub loss: LossModel,
    /// Outages.
    pub down: Vec<Outage>,
}

impl Default for PathConfig {
    fn default() -> Self {
        PathConfig {
            rate_gbps: 100.0,
            delay_ns: 500,
            skew_ns: 0,
            queue_bytes: 1 << 20,
            loss: LossModel::None,
            down: Vec::new(),
        }
    }
}

/// Messages from one host to another over a set of QPs.
///
/// Message `m` of every QP of the flow is posted at `start_ns + m * post_interval_ns`
/// (QP by QP, in order), as a signaled RDMA Write of `message_bytes` bytes through
/// `HostCommand::PostWrite`. All QPs of a flow share one retirement domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlowConfig {
    /// Sending host.
    pub src: usize,
    /// Receiving host.
    pub dst: usize,
    /// Number of QPs.
    pub qps: u32,
    /// Messages per QP.
    pub messages: u32,
    /// Bytes per message (at least 1: every packet places payload, which is how the
    /// simulator sees it arrive).
    pub message_bytes: u32,
    /// When the first messages are posted, ns.
    pub start_ns: u64,
    /// Interval between successive messages of a QP, ns (0: all at `start_ns`).
    pub post_interval_ns: u64,
    /// How the QPs spray packets over their EVs.
    pub spray: SprayPolicy,
    /// First PSN of every QP of the flow.
    pub initial_psn: Psn,
}

impl Default for FlowConfig {
    fn default() -> Self {
        FlowConfig {
            src: 0,
            dst: 1,
            qps: 8,
            messages: 100,
            message_bytes: 65536,
            start_ns: 0,
            post_interval_ns: 0,
            spray: SprayPolicy::RoundRobin,
            initial_psn: Psn::ZERO,
        }
    }
}

/// Drop the first transmission of one packet: QP `qp` (index within flow `flow`), PSN
/// `psn`. Its retransmissions pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AimedDrop {
    /// Flow index.
    pub flow: usize,
    /// QP index within the flow.
    pub qp: u32,
    /// PSN (24-bit).
    pub psn: Psn,
}

/// A whole simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimConfig {
    /// Seed of every random choice: the paths' loss processes and the NICs' own seeds.
    pub seed: u64,
    /// Number of hosts.
    pub hosts: usize,
    /// The paths. A packet takes path `ecmp_path(ev, paths.len())`.
    pub paths: Vec<PathConfig>,
    /// IPv6 (40-byte header) instead of IPv4 (20 bytes).
    pub ipv6: bool,
    /// NIC latencies.
    pub timing: NicTiming,
    /// Configuration of every NIC (the seed is replaced by one derived from `seed`).
    pub nic: NicConfig,
    /// Configuration of every CPU recovery agent.
    pub recovery: RecoveryConfig,
    /// The workload.
    pub flows: Vec<FlowConfig>,
    /// Packets to drop on their first transmission.
    pub aimed_drops: Vec<AimedDrop>,
    /// EVs in each QP's profile, spread evenly over the paths.
    pub evs_per_qp: u32,
    /// Backup EVs per QP, also spread over the paths.
    pub backup_evs_per_qp: u32,
    /// The simulation stops at this simulated time even if work remains, ns.
    pub horizon_ns: u64,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            seed: 0,
            hosts: 2,
            paths: vec![PathConfig::default(); 4],
            ipv6: false,
            timing: NicTiming::default(),
            nic: NicConfig::default(),
            recovery: RecoveryConfig::default(),
            flows: vec![FlowConfig::default()],
            aimed_drops: Vec::new(),
            evs_per_qp: 8,
            backup_evs_per_qp: 4,
            horizon_ns: 10_000_000_000,
        }
    }
}

/// What is wrong with a [`SimConfig`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimConfigError {
    /// A top-level field.
    #[error("`{field}`: {reason}")]
    Field {
        /// The field.
        field: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// A field of one path.
    #[error("path {index}: `{field}`: {reason}")]
    Path {
        /// Index of the path.
        index: usize,
        /// The field.
        field: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// A field of one flow.
    #[error("flow {index}: `{field}`: {reason}")]
    Flow {
        /// Index of the flow.
        index: usize,
        /// The field.
        field: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// An aimed drop names no packet of the workload.
    #[error("aimed drop {index}: {reason}")]
    AimedDrop {
        /// Index of the drop.
        index: usize,
        /// Why.
        reason: &'static str,
    },
    /// The model rejects the NIC configuration.
    #[error("nic: {0}")]
    Nic(#[from] openrdma_sm::ConfigError),
}

/// The longest time any option may give, ns: 10^15 ns (about 11.6 days). Simulated time is
/// kept in picoseconds in 64 bits (up to about 213 days); a packet's arrival adds a few
/// such times to the present, and this bound keeps every sum exact.
pub const MAX_TIME_NS: u64 = 1_000_000_000_000_000;

/// The slowest path rate, Gb/s (1 Mb/s, where a 4 KiB frame takes about 34 ms): slower
/// rates would make one frame's time overflow the time arithmetic.
pub const MIN_RATE_GBPS: f64 = 0.001;

/// The fastest path rate, Gb/s.
pub const MAX_RATE_GBPS: f64 = 100_000.0;

/// Most flows a simulation holds: a QP number is `(flow + 1) << 16 | qp`, 24 bits.
pub const MAX_FLOWS: usize = 255;
/// Most QPs a flow holds.
pub const MAX_QPS_PER_FLOW: u32 = 1 << 16;

impl SimConfig {
    /// Two hosts, `paths` identical paths, one flow from host 0 to host 1.
    pub fn two_hosts(paths: usize, path: PathConfig, flow: FlowConfig) -> SimConfig {
        SimConfig { paths: vec![path; paths], flows: vec![flow], ..SimConfig::default() }
    }

    /// Total messages of the workload.
    pub fn messages(&self) -> u64 {
        self.flows.iter().map(|f| u64::from(f.qps) * u64::from(f.messages)).sum()
    }

    /// Checks the configuration.
    pub fn validate(&self) -> Result<(), SimConfigError> {
        use SimConfigError as E;
        self.nic.validate()?;
        if self.hosts < 2 || self.hosts > usize::from(u16::MAX) {
            return Err(E::Field { field: "hosts", reason: "between 2 and 65535" });
        }
        if self.paths.is_empty() || self.paths.len() > 1024 {
            return Err(E::Field { field: "paths", reason: "between 1 and 1024 paths" });
        }
        if self.flows.is_empty() || self.flows.len() > MAX_FLOWS {
            return Err(E::Field { field: "flows", reason: "between 1 and 255 flows" });
        }
        if self.evs_per_qp == 0 || self.evs_per_qp > 256 {
            return Err(E::Field { field: "evs_per_qp", reason: "between 1 and 256" });
        }
        if self.backup_evs_per_qp > 256 {
            return Err(E::Field { field: "backup_evs_per_qp", reason: "at most 256" });
        }
        let t = &self.timing;
        if t.clock_mhz == 0 || t.tx_queue_depth == 0 {
            return Err(E::Field {
                field: "timing",
                reason: "clock_mhz and tx_queue_depth must be positive",
            });
        }
        if t.dma_write_ns > MAX_TIME_NS || t.flag_write_ns > MAX_TIME_NS {
            return Err(E::Field {
                field: "timing",
                reason: "memory write latencies of at most 10^15 ns",
            });
        }
        if self.horizon_ns > MAX_TIME_NS {
            return Err(E::Field { field: "horizon_ns", reason: "at most 10^15 ns" });
        }
        let too_long = |d: Option<core::time::Duration>| {
            d.is_some_and(|d| d.as_nanos() > u128::from(MAX_TIME_NS))
        };
        if too_long(self.nic.tail_probe) {
            return Err(E::Field { field: "nic.tail_probe", reason: "at most 10^15 ns" });
        }
        for (index, p) in self.paths.iter().enumerate() {
            let bad = |field, reason| E::Path { index, field, reason };
            if !(p.rate_gbps.is_finite() && (MIN_RATE_GBPS..=MAX_RATE_GBPS).contains(&p.rate_gbps))
            {
                return Err(bad("rate_gbps", "a rate from 0.001 to 100000 Gb/s"));
            }
            if p.delay_ns > MAX_TIME_NS || p.skew_ns > MAX_TIME_NS {
                return Err(bad("delay_ns", "delay and skew of at most 10^15 ns each"));
            }
            if p.down.iter().any(|o| o.to_ns > MAX_TIME_NS) {
                return Err(bad("down", "outages within the first 10^15 ns"));
            }
            if p.queue_bytes < 9216 {
                return Err(bad("queue_bytes", "at least one jumbo frame (9216 bytes)"));
            }
            if p.loss.probabilities().iter().any(|x| !(0.0..=1.0).contains(x)) {
                return Err(bad("loss", "probabilities lie in [0, 1]"));
            }
            if p.loss.mean_loss() >= 1.0 {
                return Err(bad("loss", "a path that loses every packet delivers nothing"));
            }
            if p.down.iter().any(|o| o.to_ns < o.from_ns) {
                return Err(bad("down", "an outage ends after it starts"));
            }
        }
        for (index, f) in self.flows.iter().enumerate() {
            let bad = |field, reason| E::Flow { index, field, reason };
            if f.src >= self.hosts || f.dst >= self.hosts || f.src == f.dst {
                return Err(bad("src/dst", "two different hosts of the simulation"));
            }
            if f.qps == 0 || f.qps > MAX_QPS_PER_FLOW {
                return Err(bad("qps", "between 1 and 65536"));
            }
            if f.message_bytes == 0 || f.message_bytes > openrdma_codec::wire::RETH_MAX_DMA_LEN {
                return Err(bad("message_bytes", "between 1 and 2^31"));
            }
            // A PSN read from a file keeps the integer written.
            if f.initial_psn.value() > openrdma_codec::psn::PSN_MASK {
                return Err(bad("initial_psn", "a 24-bit PSN"));
            }
            let last_post = u64::from(f.messages.saturating_sub(1))
                .checked_mul(f.post_interval_ns)
                .and_then(|t| t.checked_add(f.start_ns));
            if last_post.is_none_or(|t| t > MAX_TIME_NS) {
                return Err(bad(
                    "post_interval_ns",
                    "the last message is posted within the first 10^15 ns",
                ));
            }
        }
        let bytes = self.flows.iter().try_fold(0u64, |sum, f| {
            u64::from(f.qps)
                .checked_mul(u64::from(f.messages))?
                .checked_mul(u64::from(f.message_bytes))?
                .checked_add(sum)
        });
        if bytes.is_none_or(|b| b > 1 << 63) {
            return Err(E::Field {
                field: "flows",
                reason: "the workload's bytes (QPs × messages × bytes) must fit in 63 bits",
            });
        }
        let per_host_qps = |h: usize| -> u64 {
            self.flows.iter().filter(|f| f.src == h || f.dst == h).map(|f| u64::from(f.qps)).sum()
        };
        if (0..self.hosts).any(|h| per_host_qps(h) > u64::from(self.nic.max_qps)) {
            return Err(E::Field { field: "nic.max_qps", reason: "a host has more QPs than this" });
        }
        for (index, d) in self.aimed_drops.iter().enumerate() {
            let bad = |reason| E::AimedDrop { index, reason };
            let f = self.flows.get(d.flow).ok_or(bad("no such flow"))?;
            if d.qp >= f.qps {
                return Err(bad("no such QP in the flow"));
            }
            if d.psn.value() > openrdma_codec::psn::PSN_MASK {
                return Err(bad("a PSN is 24-bit"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursty_model_has_the_requested_mean() {
        for p in [0.01, 0.05, 0.2] {
            let m = LossModel::bursty(p, 4.0);
            assert!((m.mean_loss() - p).abs() < 1e-12, "{m:?}");
        }
    }

    #[test]
    fn default_config_is_valid_and_mistakes_are_named() {
        SimConfig::default().validate().unwrap();
        let mut c = SimConfig::default();
        c.paths[2].rate_gbps = 0.0;
        assert_eq!(
            c.validate(),
            Err(SimConfigError::Path {
                index: 2,
                field: "rate_gbps",
                reason: "a rate from 0.001 to 100000 Gb/s"
            })
        );
        let mut c = SimConfig::default();
        c.flows[0].dst = 0;
        assert!(matches!(c.validate(), Err(SimConfigError::Flow { index: 0, .. })));
        let mut c = SimConfig::default();
        c.nic.pmtu = 1000;
        assert!(matches!(c.validate(), Err(SimConfigError::Nic(_))));
        let mut c = SimConfig::default();
        c.aimed_drops.push(AimedDrop { flow: 0, qp: 8, psn: Psn::ZERO });
        assert!(matches!(c.validate(), Err(SimConfigError::AimedDrop { index: 0, .. })));
    }

    #[test]
    fn config_round_trips_through_json() {
        let mut c = SimConfig::default();
        c.paths[1].loss = LossModel::bursty(0.1, 4.0);
        c.paths[0].down.push(Outage { from_ns: 10, to_ns: 20 });
        let s = serde_json::to_string(&c).unwrap();
        let back: SimConfig = serde_json::from_str(&s).unwrap();
        assert_eq!(back, c);
    }
}
