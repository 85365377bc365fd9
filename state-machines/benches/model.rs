//! Per-packet cost of the model alone: a requester NIC and a responder NIC connected back
//! to back (no fabric, no ICRC, no encoding): segmentation, transmission, placement, SACK
//! and retirement. 4 KiB PMTU; the target is four 100 Gb/s paths, about 12 million
//! packets a second on one core.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

#[path = "support/transfer.rs"]
mod transfer;

use transfer::{MSG, PMTU, pair};

const MESSAGES: u32 = 64;

fn bench(c: &mut Criterion) {
    let packets = u64::from(MESSAGES * MSG.div_ceil(PMTU));
    let mut g = c.benchmark_group("model");
    g.throughput(Throughput::Elements(packets));
    g.bench_function("requester+responder per packet, 4 KiB PMTU", |bch| {
        bch.iter_batched(
            || pair(MESSAGES),
            |(mut a, mut b)| {
                let n = transfer::transfer(&mut a, &mut b);
                assert_eq!(n, packets);
            },
            BatchSize::LargeInput,
        );
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
