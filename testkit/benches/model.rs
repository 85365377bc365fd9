//! Per-packet cost of the model: a requester NIC and a responder NIC back to back on the
//! model's one driver, `Pair` ([`openrdma_testkit::loopback`]), 256 KiB messages at 4 KiB
//! PMTU. The target is four 100 Gb/s paths, about 12 million packets a second on one core.
//!
//! It lives with its workload in the test kit, not in `openrdma-sm`: the kit depends on the
//! conformance suite, which depends on the model, so a model crate that used the kit would
//! rebuild the suite for each of its own test builds.
//!
//! * `pair`: both NICs, packets as `Repr`s: segmentation, transmission, placement, SACKs,
//!   retirement. What one core does for a NIC that sends and receives at the same rate.
//! * `requester`, `responder`: one endpoint's half of the same run, replayed alone from a
//!   recording of every call the pair made on it: what a NIC that only sends, or only
//!   receives, does per packet.
//! * `frames`: the pair through the software edge of a NIC: frames built and parsed,
//!   the ICRC computed and checked on both ends, payload copied from and into memory.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

use openrdma_testkit::loopback::{Loopback, PACKETS_PER_MESSAGE};

const MESSAGES: u32 = 64;

fn bench(c: &mut Criterion) {
    let packets = u64::from(MESSAGES * PACKETS_PER_MESSAGE);
    let mut g = c.benchmark_group("model");
    g.throughput(Throughput::Elements(packets));
    g.bench_function("pair, per data packet, 4 KiB PMTU", |bch| {
        bch.iter_batched(
            || Loopback::new(MESSAGES),
            |mut l| assert_eq!(l.run(), packets),
            BatchSize::LargeInput,
        );
    });
    let (_, [req, resp]) = Loopback::new(MESSAGES).run_recorded();
    g.bench_function("requester half, per data packet", |bch| {
        bch.iter_batched(
            || Loopback::new(MESSAGES),
            |mut l| req.replay(l.requester()),
            BatchSize::LargeInput,
        );
    });
    g.bench_function("responder half, per data packet", |bch| {
        bch.iter_batched(
            || Loopback::new(MESSAGES),
            |mut l| resp.replay(l.responder()),
            BatchSize::LargeInput,
        );
    });
    g.bench_function("pair through frames with ICRC, per data packet", |bch| {
        bch.iter_batched(
            || Loopback::new(MESSAGES),
            |mut l| assert_eq!(l.run_frames(), (packets, 0)),
            BatchSize::LargeInput,
        );
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
