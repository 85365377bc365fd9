//! Simulator speed: simulated packets per wall-clock second for a fixed workload.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use openrdma_sim::{FlowConfig, LossModel, PathConfig, SimConfig, simulate};

fn workload(loss: f64) -> SimConfig {
    let path = PathConfig {
        loss: if loss > 0.0 { LossModel::Random { p: loss } } else { LossModel::None },
        ..PathConfig::default()
    };
    let flow = FlowConfig { qps: 8, messages: 16, message_bytes: 65536, ..FlowConfig::default() };
    SimConfig { seed: 1, ..SimConfig::two_hosts(4, path, flow) }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("sim");
    g.sample_size(10);
    for (name, loss) in [("clean", 0.0), ("loss_1pct", 0.01)] {
        let packets = simulate(workload(loss)).expect("valid workload").packets_simulated;
        g.throughput(Throughput::Elements(packets));
        g.bench_function(format!("8qp_x16x64KiB_4x100G_{name}"), |b| {
            b.iter(|| simulate(workload(loss)).expect("valid workload"))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
