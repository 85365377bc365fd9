//! What spraying buys: the same workload over four 100 Gb/s paths, once with every packet of
//! a QP on one fixed path and once sprayed round-robin over all four.
//!
//! ```text
//! cargo run --release -p openrdma-sim --example spraying
//! ```

use openrdma_sim::{FlowConfig, SimConfig, SimReport, simulate};
use openrdma_sm::SprayPolicy;

/// One QP writing 128 messages of 64 KiB, over the default four paths.
fn run(spray: SprayPolicy) -> Result<SimReport, Box<dyn std::error::Error>> {
    let flow = FlowConfig { qps: 1, messages: 128, spray, ..FlowConfig::default() };
    let report = simulate(SimConfig { flows: vec![flow], ..SimConfig::default() })?;
    // Every message must arrive exactly once and in order, whatever the policy.
    if !report.is_correct() {
        return Err(report.problems().join("; ").into());
    }
    Ok(report)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fixed = run(SprayPolicy::Fixed)?;
    let sprayed = run(SprayPolicy::RoundRobin)?;
    for (name, r) in [("fixed path", &fixed), ("sprayed", &sprayed)] {
        println!(
            "{name:>10}: {:6.1} Gb/s of {:6.1} Gb/s the paths carry, {} messages, p50 latency {} ns",
            r.goodput_gbps, r.wire_limit_gbps, r.messages_delivered, r.message_latency_ns.p50
        );
    }
    println!("spraying gives {:.2}x", sprayed.goodput_gbps / fixed.goodput_gbps);
    Ok(())
}
