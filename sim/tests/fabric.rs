//! Whole-fabric runs: reference endpoints over impaired paths, checked for exactly-once,
//! in-order delivery (`RET-ORDER-001`, `FLAG-*`), for no retransmission without loss
//! (`SND-RTX-004`), for goodput near the wire limit, determinism and bounded memory.
//! Workloads are small so that the suite stays fast in debug builds.

use openrdma_codec::Psn;
use openrdma_sim::{
    AimedDrop, FlowConfig, LossModel, Outage, PathConfig, Sim, SimConfig, SimReport, simulate,
};
use openrdma_sm::{RetirementMode, SprayPolicy};

fn small(seed: u64) -> SimConfig {
    let mut c = SimConfig::two_hosts(
        4,
        PathConfig::default(),
        FlowConfig { qps: 3, messages: 8, message_bytes: 10_000, ..FlowConfig::default() },
    );
    c.seed = seed;
    c.nic.pmtu = 1024;
    c.nic.mpr = 1;
    c
}

fn with_loss(mut c: SimConfig, loss: LossModel) -> SimConfig {
    for p in &mut c.paths {
        p.loss = loss;
    }
    c
}

fn run_ok(c: SimConfig) -> SimReport {
    let seed = c.seed;
    let r = simulate(c).expect("valid configuration");
    assert!(r.is_correct(), "seed {seed}: {:?}", r.problems());
    assert_eq!(r.messages_completed, r.messages_submitted, "seed {seed}");
    assert_eq!((r.messages_failed, r.qp_errors), (0, 0), "seed {seed}");
    assert_eq!(r.peer_violations, 0, "seed {seed}: a reference NIC rejected a reference peer");
    assert!(!r.hit_horizon, "seed {seed}");
    r
}

/// Every message is delivered once, in order, under heavy random loss, in shared and in
/// per-QP retirement. RET-DOMAIN-002: the simulator, the host software here, configures both
/// ends with one retirement mode and each flow's three QPs as one domain at both ends; set
/// up otherwise (the receiver's QPs in domains of their own), the MSN sequence the sender
/// gives a shared domain is not the one the receiver retires, and messages stall.
#[test]
fn heavy_random_loss_delivers_everything_once_in_order() {
    for seed in 0..8 {
        for p in [0.05, 0.10, 0.20] {
            let mut c = with_loss(small(seed), LossModel::Random { p });
            c.nic.retirement =
                if seed % 2 == 0 { RetirementMode::Shared } else { RetirementMode::PerQp };
            let r = run_ok(c);
            assert!(r.drops.loss > 0 && r.retransmissions > 0, "seed {seed} p {p}: {r:?}");
        }
    }
}

/// `openrdma sim run` at very heavy loss: the run file's defaults, whose retry limit is
/// sized for the loss (`RunSpec::retry_limit`), deliver every message once and in order up
/// to half the packets lost, random or in bursts.
#[test]
fn very_heavy_loss_through_the_run_defaults_delivers_everything() {
    use openrdma_sim::runspec::{LossKind, RunSpec};
    for (seed, loss, kind) in
        [(101, 0.4, LossKind::Random), (102, 0.5, LossKind::Random), (103, 0.5, LossKind::Bursty)]
    {
        let spec =
            RunSpec { loss, loss_model: kind, qps: 2, messages: 6, seed, ..RunSpec::default() };
        let r = run_ok(spec.config().expect("valid knobs"));
        assert!(r.drops.loss > 0 && r.retransmissions > 0, "seed {seed}: {r:?}");
    }
}

#[test]
fn heavy_bursty_loss_delivers_everything_once_in_order() {
    for seed in 10..18 {
        for p in [0.05, 0.10, 0.20] {
            let mut c = with_loss(small(seed), LossModel::bursty(p, LossModel::DEFAULT_BURST));
            c.flows[0].spray =
                [SprayPolicy::Random, SprayPolicy::SkewAware, SprayPolicy::WindowFit]
                    [(seed % 3) as usize];
            for (i, path) in c.paths.iter_mut().enumerate() {
                path.skew_ns = 300 * i as u64;
            }
            let r = run_ok(c);
            assert!(r.drops.loss > 0, "seed {seed} p {p}");
        }
    }
}

#[test]
fn no_loss_and_no_skew_means_no_retransmission() {
    for spray in [
        SprayPolicy::RoundRobin,
        SprayPolicy::Random,
        SprayPolicy::Fixed,
        SprayPolicy::SkewAware,
        SprayPolicy::WindowFit,
    ] {
        for retirement in [RetirementMode::Shared, RetirementMode::PerQp] {
            let mut c = small(1);
            c.flows[0].spray = spray;
            c.nic.retirement = retirement;
            let r = run_ok(c);
            assert_eq!(r.retransmissions, 0, "{spray:?} {retirement:?}: {r:?}");
            assert_eq!(r.drops.total(), 0);
            assert_eq!(r.data_packets_sent, 3 * 8 * 10, "10 packets of ≤1024 B per message");
        }
    }
}

#[test]
fn goodput_approaches_the_wire_limit_on_four_100g_paths() {
    let c = SimConfig::two_hosts(
        4,
        PathConfig { rate_gbps: 100.0, ..PathConfig::default() },
        FlowConfig { qps: 8, messages: 24, message_bytes: 65536, ..FlowConfig::default() },
    );
    assert_eq!(c.nic.pmtu, 4096);
    let r = run_ok(c);
    // 4 × 100 Gb/s × 4096 / 4202 (IPv4, TSETH on every packet).
    assert!((r.wire_limit_gbps - 400.0 * 4096.0 / 4202.0).abs() < 1e-9, "{}", r.wire_limit_gbps);
    assert!(r.efficiency() > 0.85, "goodput {} of {}", r.goodput_gbps, r.wire_limit_gbps);
    assert!(r.goodput_gbps <= r.wire_limit_gbps * 1.000_001, "faster than the wire");
    assert_eq!(r.retransmissions, 0);
}

#[test]
fn runs_are_deterministic() {
    let c = with_loss(small(7), LossModel::bursty(0.1, 3.0));
    let a = simulate(c.clone()).unwrap();
    let b = simulate(c.clone()).unwrap();
    assert_eq!(a, b);
    let mut other = c;
    other.seed = 8;
    let d = simulate(other).unwrap();
    assert_ne!(a.drops, d.drops, "another seed, another loss pattern");
}

#[test]
fn memory_stays_bounded_by_the_windows() {
    let mut c = with_loss(small(3), LossModel::Random { p: 0.1 });
    c.flows[0].messages = 30;
    for (i, p) in c.paths.iter_mut().enumerate() {
        p.skew_ns = 2_000 * i as u64;
    }
    let qps = u64::from(c.flows[0].qps);
    let window = u64::from(c.nic.window());
    let budget = u64::from(c.timing.tx_queue_depth) * c.paths.len() as u64;
    let r = run_ok(c);
    // Data in flight is bounded by the windows (a retransmission may overlap its original
    // once), control packets by the data they answer, plus both NICs' transmit buffers.
    assert!(
        r.peak_packets_in_flight <= 2 * qps * window + 2 * budget,
        "{} packets in flight",
        r.peak_packets_in_flight
    );
    assert!(r.peak_model_entries <= 2 * qps * window, "{}", r.peak_model_entries);
    assert!(r.peak_tracked_messages <= qps * window, "{}", r.peak_tracked_messages);
    assert!(r.peak_packets_in_flight > 0 && r.peak_model_entries > 0);
}

#[test]
fn aimed_drops_are_repaired_and_timed() {
    let mut c = small(2);
    c.nic.pmtu = 4096;
    c.flows[0].message_bytes = 16384;
    c.aimed_drops = vec![
        AimedDrop { flow: 0, qp: 0, psn: Psn::new(5) },
        AimedDrop { flow: 0, qp: 1, psn: Psn::new(7) },
        AimedDrop { flow: 0, qp: 1, psn: Psn::new(8) },
    ];
    let r = run_ok(c);
    assert_eq!(r.drops.aimed, 3);
    assert_eq!(r.drops.total(), 3);
    assert_eq!(
        r.retransmissions, 3,
        "exactly the dropped packets: {:?}",
        r.retransmissions_by_cause
    );
    let d2c = r.drop_to_completion_ns.expect("aimed drops are timed");
    // PSNs 7 and 8 of QP 1 end one message and start the next (4 packets each): three
    // messages lost a packet.
    assert_eq!(d2c.count, 3);
    assert!(d2c.min > 0 && d2c.max < r.sim_time_ns);
    assert!(small(2).aimed_drops.is_empty());
    assert_eq!(run_ok(small(2)).drop_to_completion_ns, None);
}

#[test]
fn a_path_outage_is_survived() {
    let mut c = small(4);
    c.paths[2].down.push(Outage { from_ns: 2_000, to_ns: 150_000 });
    let r = run_ok(c);
    assert!(r.drops.outage > 0);
    assert_eq!(r.paths[2].drops.outage, r.drops.outage);
}

#[test]
fn incast_overflows_the_switch_queue_and_recovers() {
    let mut c = small(5);
    c.hosts = 3;
    c.flows.push(FlowConfig { src: 2, dst: 1, ..c.flows[0].clone() });
    for p in &mut c.paths {
        p.queue_bytes = 12_000;
    }
    let r = run_ok(c);
    assert!(r.drops.queue > 0, "two senders into one port must overflow a 12 kB queue");
    assert_eq!(r.messages_delivered, 48);
}

#[test]
fn psn_wrap_ipv6_paced_posting_and_bidirectional_traffic() {
    let mut c = with_loss(small(6), LossModel::Random { p: 0.05 });
    c.ipv6 = true;
    c.flows[0].initial_psn = Psn::new((1 << 24) - 40);
    c.flows[0].post_interval_ns = 2_000;
    c.flows.push(FlowConfig { src: 1, dst: 0, ..c.flows[0].clone() });
    let r = run_ok(c);
    assert_eq!(r.messages_delivered, 48);
    assert!(r.first_post_ns == 0 && r.last_delivery_ns > 7 * 2_000);
    let v4 = run_ok(with_loss(small(6), LossModel::Random { p: 0.05 }));
    assert!(r.wire_limit_gbps < v4.wire_limit_gbps, "IPv6 headers are 20 bytes longer");
}

#[test]
fn one_qp_on_a_fixed_path_is_limited_by_that_path() {
    let flow = FlowConfig {
        qps: 1,
        messages: 12,
        message_bytes: 65536,
        spray: SprayPolicy::Fixed,
        ..FlowConfig::default()
    };
    let fixed = run_ok(SimConfig::two_hosts(4, PathConfig::default(), flow.clone()));
    let used: Vec<usize> = (0..4).filter(|&p| fixed.paths[p].data_packets > 0).collect();
    assert_eq!(used.len(), 1, "{:?}", fixed.paths);
    assert!(fixed.goodput_gbps <= fixed.wire_limit_gbps / 4.0 * 1.000_001);
    let sprayed = run_ok(SimConfig::two_hosts(
        4,
        PathConfig::default(),
        FlowConfig { spray: SprayPolicy::RoundRobin, ..flow },
    ));
    assert!((0..4).all(|p| sprayed.paths[p].data_packets == 12 * 16 / 4), "{:?}", sprayed.paths);
    assert!(sprayed.goodput_gbps > 3.0 * fixed.goodput_gbps);
}

#[test]
fn a_run_can_be_observed_step_by_step() {
    let c = with_loss(small(9), LossModel::Random { p: 0.05 });
    let whole = simulate(c.clone()).unwrap();
    let mut sim = Sim::new(c).unwrap();
    let mut delivered = Vec::new();
    let mut t = 0;
    while sim.run_until(t) {
        delivered.push(sim.report().messages_delivered);
        t += 500;
    }
    assert!(delivered.windows(2).all(|w| w[0] <= w[1]));
    assert!(delivered.len() > 2 && delivered[1] < whole.messages_submitted);
    assert!(sim.is_finished());
    assert_eq!(sim.report(), whole, "observing a run does not change it");
}

/// One QP over four 100 Gb/s paths, path 3 `skew_ns` slower: goodput and the slow path's
/// share of the data packets.
fn skewed(spray: SprayPolicy, skew_ns: u64) -> (f64, f64) {
    let flow =
        FlowConfig { qps: 1, messages: 256, message_bytes: 65536, spray, ..FlowConfig::default() };
    let mut c = SimConfig::two_hosts(4, PathConfig::default(), flow);
    c.seed = 1;
    c.paths[3].skew_ns = skew_ns;
    let r = run_ok(c);
    let total: u64 = r.paths.iter().map(|p| p.data_packets).sum();
    (r.goodput_gbps, r.paths[3].data_packets as f64 / total as f64)
}

/// SND-SPRAY-005/006: window-fit sprays as round robin while the window covers the slow
/// path (the same packets, so the same goodput), and leaves the path out once it cannot,
/// well ahead of round robin, which every PSN then waits for.
#[test]
fn window_fit_leaves_out_a_path_the_window_cannot_cover() {
    for skew in [0, 10_000] {
        let (rr, rr_share) = skewed(SprayPolicy::RoundRobin, skew);
        let (wf, wf_share) = skewed(SprayPolicy::WindowFit, skew);
        assert!((wf - rr).abs() < 0.01 * rr, "skew {skew}: window-fit {wf} against {rr}");
        assert!((wf_share - rr_share).abs() < 0.01, "skew {skew}: {wf_share} against {rr_share}");
    }
    let (rr, _) = skewed(SprayPolicy::RoundRobin, 40_000);
    let (wf, share) = skewed(SprayPolicy::WindowFit, 40_000);
    assert!(wf > 1.5 * rr, "window-fit {wf} against round robin {rr} Gb/s");
    assert!(share < 0.05, "{share} of the packets on a path the window cannot cover");
}
