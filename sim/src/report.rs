//! What a simulation found: counters, rates and latency percentiles. Deterministic: the
//! same configuration gives the same report, field for field (wall-clock time is not in
//! it).

use serde::{Deserialize, Serialize};

use crate::hist::Percentiles;

/// Retransmissions by cause.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retransmissions {
    /// Inferred from a SACK (`SND-INFER-001`).
    pub sack_inference: u64,
    /// Asked for by a NACK.
    pub nack: u64,
    /// Ordered by the CPU half after a timeout.
    pub timeout: u64,
}

impl Retransmissions {
    /// All causes.
    pub fn total(&self) -> u64 {
        self.sack_inference + self.nack + self.timeout
    }
}

/// Packets the fabric dropped, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drops {
    /// The path's loss process (random or Gilbert–Elliott).
    pub loss: u64,
    /// Aimed drops.
    pub aimed: u64,
    /// The path was down.
    pub outage: u64,
    /// The switch's output queue was full (tail drop).
    pub queue: u64,
}

impl Drops {
    /// All reasons.
    pub fn total(&self) -> u64 {
        self.loss + self.aimed + self.outage + self.queue
    }
}

/// Traffic of one path, both directions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathReport {
    /// Write packets sent on the path (first transmissions and retransmissions).
    pub data_packets: u64,
    /// SACKs, NACKs, ACKs and probes.
    pub control_packets: u64,
    /// Byte times used, preamble and gap included.
    pub wire_bytes: u64,
    /// Packets dropped on the path.
    pub drops: Drops,
}

/// The outcome of a simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimReport {
    /// Messages the workload posted.
    pub messages_submitted: u64,
    /// Messages the receivers retired (retirement flag written).
    pub messages_delivered: u64,
    /// Messages the senders completed successfully.
    pub messages_completed: u64,
    /// Messages that completed with an error, or that the NIC refused at posting.
    pub messages_failed: u64,
    /// DMA writes of a PSN that was already placed.
    pub duplicates_delivered: u64,
    /// Retirements out of MSN order within a retirement domain.
    pub order_violations: u64,
    /// Retirement flags written while bytes of their message were missing.
    pub flag_before_data: u64,
    /// DMA writes into a message after its retirement flag.
    pub writes_after_flag: u64,
    /// Inputs an endpoint rejected: packets breaking the specification, or calls the
    /// model refused as API misuse. Between reference endpoints driven by a correct
    /// simulator this stays 0; anything else is a defect of the model or the simulator.
    pub peer_violations: u64,
    /// QPs that went to the error state.
    pub qp_errors: u64,
    /// Retransmitted packets.
    pub retransmissions: u64,
    /// Retransmissions by cause.
    pub retransmissions_by_cause: Retransmissions,
    /// Packets put on the wire (data and control, all hosts).
    pub packets_simulated: u64,
    /// Write packets sent for the first time.
    pub data_packets_sent: u64,
    /// Packets the fabric dropped.
    pub drops: Drops,
    /// Payload bytes of delivered messages.
    pub payload_bytes_delivered: u64,
    /// Payload bits delivered per ns from the first post to the last delivery.
    pub goodput_gbps: f64,
    /// The most payload the paths can carry per ns with this MTU, message size and header
    /// stack (sum over the paths of rate × payload / wire bytes).
    pub wire_limit_gbps: f64,
    /// First post, ns.
    pub first_post_ns: u64,
    /// The last retirement flag landed in memory, ns.
    pub last_delivery_ns: u64,
    /// Simulated time at the end (the last event, or the last memory write landing), ns.
    pub sim_time_ns: u64,
    /// Whether the run hit the horizon with work left.
    pub hit_horizon: bool,
    /// Message latency, post → the sender's completion entry in memory, ns.
    pub message_latency_ns: Percentiles,
    /// For messages that lost a packet to an aimed drop: drop → the sender's completion
    /// entry in memory, ns. `None` without aimed drops.
    pub drop_to_completion_ns: Option<Percentiles>,
    /// Most packets in the fabric at once (transmit buffers, queues, links).
    pub peak_packets_in_flight: u64,
    /// Most window-driven entries a NIC held (`Nic::peer_driven_entries`), sampled.
    pub peak_model_entries: u64,
    /// Most messages the checker tracked at once (placed but not retired).
    pub peak_tracked_messages: u64,
    /// Per path.
    pub paths: Vec<PathReport>,
}

impl SimReport {
    /// What is wrong, one line per problem; empty when every message was delivered exactly
    /// once and in order and completed successfully at its sender, no packet or call was
    /// rejected, no QP went to the error state, and the run ended before its horizon.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let counters = [
            ("duplicates delivered", self.duplicates_delivered),
            ("order violations", self.order_violations),
            ("flags before data", self.flag_before_data),
            ("writes after flag", self.writes_after_flag),
        ];
        for (name, n) in counters {
            if n > 0 {
                out.push(format!("{n} {name}"));
            }
        }
        if self.messages_delivered != self.messages_submitted {
            out.push(format!(
                "{} of {} messages delivered",
                self.messages_delivered, self.messages_submitted
            ));
        }
        if self.messages_completed != self.messages_submitted {
            out.push(format!(
                "{} of {} messages completed successfully ({} failed)",
                self.messages_completed, self.messages_submitted, self.messages_failed
            ));
        }
        if self.qp_errors > 0 {
            out.push(format!("{} QPs went to the error state", self.qp_errors));
        }
        if self.peer_violations > 0 {
            out.push(format!("{} packets or calls rejected by the model", self.peer_violations));
        }
        if self.hit_horizon {
            out.push("stopped at the horizon with work left".to_string());
        }
        out
    }

    /// Whether [`SimReport::problems`] finds nothing.
    pub fn is_correct(&self) -> bool {
        self.problems().is_empty()
    }

    /// Goodput as a fraction of the wire limit.
    pub fn efficiency(&self) -> f64 {
        if self.wire_limit_gbps > 0.0 { self.goodput_gbps / self.wire_limit_gbps } else { 0.0 }
    }
}
