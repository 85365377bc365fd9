//! Experiments (a) and (b): goodput over four paths, and what spraying buys.

use super::*;

// (a) ------------------------------------------------------------------------------------

pub(super) fn goodput(seed: u64, quick: bool, series: &mut Series) -> Experiment {
    let messages = if quick { 4 } else { 256 };
    let flow =
        |m| FlowConfig { qps: 8, messages: m, message_bytes: 65536, ..FlowConfig::default() };
    let mut checks = Checks::default();
    let mut ours = Vec::new();
    let mut parameters = Vec::new();
    let mut at2048 = 0.0;
    let mut limit2048 = 0.0;
    for pmtu in [2048, 4096] {
        let cfg = base(seed, pmtu, flow(messages));
        if parameters.is_empty() {
            parameters = fabric_params(&cfg);
            parameters.extend(flow_params(&cfg).into_iter().filter(|x| x.name != "PMTU"));
            parameters.push(p("PMTU", "2048 B and 4096 B"));
            parameters.push(p("loss", "none"));
        }
        let r = simulate(cfg);
        checks.add(&r);
        ours.push(fig(&format!("goodput, PMTU {pmtu}"), r.goodput_gbps, "Gb/s"));
        ours.push(fig(&format!("wire limit, PMTU {pmtu}"), r.wire_limit_gbps, "Gb/s"));
        ours.push(fig(&format!("efficiency, PMTU {pmtu}"), 100.0 * r.efficiency(), "%"));
        if pmtu == 2048 {
            at2048 = r.goodput_gbps;
            limit2048 = r.wire_limit_gbps;
        }
    }
    // Goodput against loss, for the plot.
    let losses: &[f64] =
        if quick { &[0.0, 0.02, 0.1] } else { &[0.0, 0.005, 0.01, 0.02, 0.05, 0.1] };
    let sweep = if quick { 2 } else { 64 };
    for &loss in losses {
        let mut cfg = base(seed, 4096, flow(sweep));
        for path in &mut cfg.paths {
            path.loss = if loss > 0.0 { LossModel::Random { p: loss } } else { LossModel::None };
        }
        let r = simulate(cfg);
        checks.add(&r);
        series.goodput_vs_loss.push(LossPoint {
            loss,
            goodput_gbps: r.goodput_gbps,
            wire_limit_gbps: r.wire_limit_gbps,
            retransmissions: r.retransmissions,
        });
    }
    parameters.push(p(
        "loss sweep (plot)",
        format!("{losses:?} random loss on every path, PMTU 4096, 8 QPs × {sweep} × 64 KiB"),
    ));
    Experiment {
        id: "a".into(),
        name: "payload goodput over four 100 Gb/s paths".into(),
        parameters,
        ours,
        paper: "380.9 Gb/s payload goodput over 4 × 100 Gb/s".into(),
        comparison: format!(
            "PMTU 2048: ours {at2048:.1} Gb/s of a {limit2048:.1} Gb/s wire limit; the paper's 380.9 Gb/s is {:.1} % of that limit: it implies {:.1} B of overhead per 2048 B packet where our stack (with TSETH) takes {} B; without the 4-byte TSETH our limit is {:.1} Gb/s, just above the paper's figure",
            100.0 * 380.9 / limit2048,
            2048.0 * 400.0 / 380.9 - 2048.0,
            frame_wire_bytes(write_ext_bytes(true, false), 2048, false) - 2048,
            400.0 * 2048.0 / f64::from(frame_wire_bytes(write_ext_bytes(false, false), 2048, false))
        ),
        notes: vec![
            "goodput = payload bytes of retired messages × 8 / (last retirement flag landing − first post)".into(),
            "wire limit = Σ path rates × payload / wire bytes of this workload (preamble, gap, FCS, headers, ICRC)".into(),
        ],
        checks,
    }
}

// (b) ------------------------------------------------------------------------------------

pub(super) fn spraying(seed: u64, quick: bool) -> Experiment {
    let messages = if quick { 8 } else { 256 };
    let mut checks = Checks::default();
    let mut run = |spray| {
        let flow =
            FlowConfig { qps: 1, messages, message_bytes: 65536, spray, ..FlowConfig::default() };
        let cfg = base(seed, 4096, flow);
        let r = simulate(cfg.clone());
        checks.add(&r);
        (cfg, r)
    };
    let (cfg, fixed) = run(SprayPolicy::Fixed);
    let (_, rr) = run(SprayPolicy::RoundRobin);
    let ratio = rr.goodput_gbps / fixed.goodput_gbps.max(1e-9);
    let mut parameters = fabric_params(&cfg);
    parameters.extend(flow_params(&cfg).into_iter().filter(|x| x.name != "spray"));
    parameters.push(p("spray", "fixed (one EV, one path) against round-robin over 8 EVs"));
    Experiment {
        id: "b".into(),
        name: "one QP: spraying against a fixed path".into(),
        parameters,
        ours: vec![
            fig("goodput, fixed path", fixed.goodput_gbps, "Gb/s"),
            fig("goodput, round-robin spraying", rr.goodput_gbps, "Gb/s"),
            fig("ratio", ratio, "×"),
        ],
        paper: "spraying gives up to 3.51× the single-QP goodput of a fixed path per QP".into(),
        comparison: format!(
            "{ratio:.2}× against the paper's up to 3.51×; the ideal is 4× (four equal paths of which a fixed path uses one)"
        ),
        notes: vec![
            "a fixed-path QP is limited to one 100 Gb/s port; spraying uses all four".into(),
        ],
        checks,
    }
}
