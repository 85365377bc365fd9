//! Experiments (e), (f) and (g): head-of-line blocking behind a shared retirement
//! sequence, path skew against the receive window, and PCIe bytes per message.

use super::*;

// (e) ------------------------------------------------------------------------------------

pub(super) fn hol_blocking(seed: u64, quick: bool) -> Experiment {
    let messages = if quick { 100 } else { 10_000 };
    let every = 10u32;
    let pkts = 4u32; // 16 KiB at PMTU 4096
    let mut checks = Checks::default();
    let mut ours = Vec::new();
    let mut line = Vec::new();
    let mut cfg0 = None;
    for mode in [RetirementMode::Shared, RetirementMode::PerQp] {
        let flow = FlowConfig {
            qps: 2,
            messages,
            message_bytes: 16384,
            post_interval_ns: 1000,
            ..FlowConfig::default()
        };
        let mut cfg = base(seed, 4096, flow);
        cfg.nic.retirement = mode;
        cfg.aimed_drops = (0..messages)
            .filter(|m| m % every == 3)
            .map(|m| AimedDrop { flow: 0, qp: 1, psn: Psn::new(m * pkts + 1) })
            .collect();
        let (r, tap) = simulate_tapped(cfg.clone());
        checks.add(&r);
        let clean = qp_number(0, 0).value();
        let mut lat: Vec<u64> = tap
            .iter()
            .filter_map(|t| match &t.event {
                NicEvent::Completion(c)
                    if t.host == 0 && c.side == Side::Requester && c.entry.qpn.value() == clean =>
                {
                    let m = c.entry.wr_id & 0xFFFF_FFFF;
                    let posted = m * 1000 * 1000;
                    Some(t.lands_ps?.saturating_sub(posted) / 1000)
                }
                _ => None,
            })
            .collect();
        lat.sort_unstable();
        let name = mode_name(mode);
        let (p50, p99) = (quantile(&lat, 0.5), quantile(&lat, 0.99));
        ours.push(fig(&format!("{name}: clean QP p50"), p50 as f64, "ns"));
        ours.push(fig(&format!("{name}: clean QP p99"), p99 as f64, "ns"));
        ours.push(fig(&format!("{name}: clean QP max"), quantile(&lat, 1.0) as f64, "ns"));
        line.push(format!("{name} p50 {p50} ns, p99 {p99} ns"));
        cfg0.get_or_insert(cfg);
    }
    let cfg = cfg0.expect("two runs");
    let mut parameters = fabric_params(&cfg);
    parameters.extend(flow_params(&cfg).into_iter().filter(|x| x.name != "retirement"));
    parameters.push(p("retirement", "shared, then per-QP"));
    parameters.push(p(
        "loss",
        format!("QP 1 only: the second packet of every {every}th message (from message 3) dropped once; QP 0 clean"),
    ));
    Experiment {
        id: "e".into(),
        name: "shared retirement: cross-QP head-of-line blocking".into(),
        parameters,
        ours,
        paper: "names it as a limit: a shared retirement sequence causes cross-QP head-of-line blocking".into(),
        comparison: format!(
            "clean QP: {}; the shared sequence makes the clean QP wait for the lossy QP's retransmissions, per-QP retirement removes it",
            line.join(" against ")
        ),
        notes: vec!["latency = post → the sender's completion entry landing, for the clean QP's messages only".into()],
        checks,
    }
}

// (f) ------------------------------------------------------------------------------------

/// The most PSNs a receiving QP had open at once: highest placed − cumulative + 1.
/// The out-of-order depth of the receiving QPs of `host` at every placement: highest placed
/// PSN − cumulative PSN + 1 (0 when in order), in order of placement.
pub(super) fn ooo_depths(tap: &[Tapped], host: usize) -> Vec<u32> {
    #[derive(Default)]
    struct Q {
        cum: u32,
        high: Option<u32>,
        above: HashSet<u32>,
    }
    let mut qs: BTreeMap<u32, Q> = BTreeMap::new();
    let mut depths = Vec::new();
    for t in tap.iter().filter(|t| t.host == host) {
        let NicEvent::DmaWrite(w) = &t.event else { continue };
        let q = qs.entry(w.qpn.value()).or_default();
        let psn = w.psn.value();
        if psn < q.cum || !q.above.insert(psn) {
            continue;
        }
        q.high = Some(q.high.map_or(psn, |h| h.max(psn)));
        while q.above.remove(&q.cum) {
            q.cum += 1;
        }
        depths.push(q.high.filter(|&h| h >= q.cum).map_or(0, |h| h - q.cum + 1));
    }
    depths
}

/// The spray policies experiment (f) compares.
pub(super) const SKEW_POLICIES: [SprayPolicy; 3] =
    [SprayPolicy::RoundRobin, SprayPolicy::SkewAware, SprayPolicy::WindowFit];

pub(super) fn skew(seed: u64, quick: bool, series: &mut Series) -> Experiment {
    let skews: &[u64] = if quick {
        &[0, 10_000, 30_000]
    } else {
        &[0, 2_500, 5_000, 10_000, 15_000, 20_000, 25_000, 30_000, 40_000]
    };
    let messages = if quick { 64 } else { 1024 };
    let mut checks = Checks::default();
    let mut ours = Vec::new();
    let mut cfg0 = None;
    for spray in SKEW_POLICIES {
        for &s in skews {
            let flow = FlowConfig {
                qps: 1,
                messages,
                message_bytes: 65536,
                spray,
                ..FlowConfig::default()
            };
            let mut cfg = base(seed, 4096, flow);
            cfg.paths[3].skew_ns = s;
            let (r, tap) = simulate_tapped(cfg.clone());
            checks.add(&r);
            let mut depths = ooo_depths(&tap, 1);
            depths.sort_unstable();
            let point = SkewPoint {
                skew_ns: s,
                policy: policy_name(spray).into(),
                goodput_gbps: r.goodput_gbps,
                peak_ooo_depth: depths.last().copied().unwrap_or(0),
                median_ooo_depth: depths.get(depths.len() / 2).copied().unwrap_or(0),
                window: cfg.nic.window(),
                slow_path_share: {
                    let total: u64 = r.paths.iter().map(|x| x.data_packets).sum();
                    r.paths[3].data_packets as f64 / total.max(1) as f64
                },
            };
            let name = format!("{}, skew {} µs", point.policy, s as f64 / 1000.0);
            ours.push(fig(&format!("{name}: goodput"), point.goodput_gbps, "Gb/s"));
            ours.push(fig(
                &format!("{name}: peak out-of-order depth"),
                f64::from(point.peak_ooo_depth),
                "packets",
            ));
            ours.push(fig(
                &format!("{name}: median out-of-order depth"),
                f64::from(point.median_ooo_depth),
                "packets",
            ));
            ours.push(fig(
                &format!("{name}: share on the slow path"),
                100.0 * point.slow_path_share,
                "%",
            ));
            series.skew.push(point);
            cfg0.get_or_insert(cfg);
        }
    }
    let cfg = cfg0.expect("runs");
    let point = |pol: SprayPolicy, s: u64| {
        series.skew.iter().find(|x| x.policy == policy_name(pol) && x.skew_ns == s)
    };
    let at = |pol, s| point(pol, s).map_or(0.0, |x| x.goodput_gbps);
    let line = |pol: SprayPolicy| {
        let v: Vec<String> = skews.iter().map(|&s| format!("{:.0}", at(pol, s))).collect();
        format!("{} {}", policy_name(pol), v.join("/"))
    };
    let (rr, wf) = (SprayPolicy::RoundRobin, SprayPolicy::WindowFit);
    // Window-fit against round robin: never behind by more than 1 %, and the gain at the
    // top of the sweep.
    let worst = skews
        .iter()
        .map(|&s| (s, at(wf, s) / at(rr, s).max(1e-9)))
        .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
    let top = *skews.last().unwrap_or(&0);
    let depth = |pol, s| point(pol, s).map_or(0, |x| x.median_ooo_depth);
    let mut parameters = fabric_params(&cfg);
    parameters.retain(|x| x.name != "skew per path");
    parameters.push(p("skew", format!("path 3 only: {skews:?} ns; paths 0–2: 0")));
    parameters.push(p("loss", "none"));
    parameters.extend(flow_params(&cfg).into_iter().filter(|x| x.name != "spray"));
    parameters.push(p("spray", "round-robin, skew-aware and window-fit"));
    parameters.push(p(
        "recovery",
        format!(
            "RTO {} ns (a slow path's round trip beyond it also brings spurious timeouts)",
            cfg.recovery.rto.as_nanos()
        ),
    ));
    Experiment {
        id: "f".into(),
        name: "path skew: receive-window pressure".into(),
        parameters,
        ours,
        paper: "names it as a limit: path skew creates receive-window pressure".into(),
        comparison: format!(
            "goodput in Gb/s at skews of {} µs: {}; {}; {} (window {} packets). Round robin holds while the window covers the slow path's round trip at line rate (about {:.0} µs) and collapses beyond it: every PSN waits for the slow path. Window-fit sprays exactly as round robin while the window covers the slow path, and leaves the path out (probing it) once the three other paths carry more than the window lets four carry: {:.0} against {:.0} Gb/s at {} µs, median out-of-order depth {} against {} packets; {}. Skew-aware sends less to the slow path long before the window needs it, and loses at moderate skew.",
            skews.iter().map(|s| format!("{}", *s as f64 / 1000.0)).collect::<Vec<_>>().join("/"),
            line(rr),
            line(SprayPolicy::SkewAware),
            line(wf),
            cfg.nic.window(),
            f64::from(cfg.nic.window()) * f64::from(cfg.nic.pmtu) * 8.0 / 400.0 / 1000.0,
            at(wf, top),
            at(rr, top),
            top / 1000,
            depth(wf, top),
            depth(rr, top),
            if worst.1 >= 1.0 {
                "it is never behind round robin".to_string()
            } else {
                format!(
                    "it is at most {:.1} % behind round robin (at {} µs)",
                    100.0 * (1.0 - worst.1),
                    worst.0 as f64 / 1000.0
                )
            },
        ),
        notes: vec![
            "out-of-order depth = highest placed PSN − cumulative PSN + 1, taken at every placement; peak and median over the run".into(),
            "a PSN holds a place in the window from its transmission until the sender learns that every PSN up to it arrived; a PSN on the slow path holds it for the slow round trip whatever PSN it carries, so no ordering of PSNs over the paths lets the window cover more skew; the window-fit policy chooses the paths instead (SND-SPRAY-005)".into(),
        ],
        checks,
    }
}

// (g) ------------------------------------------------------------------------------------

/// Bytes crossing PCIe to submit one work request, by method.
pub fn pcie_bytes() -> [(&'static str, u64, u64); 3] {
    let wqe = WQE_LEN as u64;
    let db = DOORBELL_LEN as u64;
    [
        // Host → device: the WQE written through the BlueFlame-style MMIO window and the
        // doorbell; the NIC reads nothing back.
        ("CPU-built WQE", wqe + 8, 0),
        // The GPU writes the WQE and the doorbell record, rings the doorbell (MMIO); the
        // NIC then reads the WQE over PCIe.
        ("GPU-built WQE (IBGDA)", wqe + 8 + 8, wqe),
        // The token: one 8-byte MMIO store; the NIC expands it from its template.
        ("8-byte token", db, 0),
    ]
}

pub(super) fn pcie() -> Experiment {
    let rows = pcie_bytes();
    let mut ours = Vec::new();
    for (name, to_nic, from_nic) in rows {
        ours.push(fig(&format!("{name}: to the NIC"), to_nic as f64, "B"));
        ours.push(fig(&format!("{name}: read by the NIC"), from_nic as f64, "B"));
        ours.push(fig(&format!("{name}: total"), (to_nic + from_nic) as f64, "B"));
    }
    let total = |i: usize| rows[i].1 + rows[i].2;
    Experiment {
        id: "g".into(),
        name: "bytes crossing PCIe per submission".into(),
        parameters: vec![
            p("WQE", format!("{WQE_LEN} B (codec host work-request layout)")),
            p("doorbell token", format!("{DOORBELL_LEN} B")),
            p("doorbell record / MMIO", "8 B each"),
            p("counted", "payload bytes of the transactions, both directions; TLP headers not counted"),
        ],
        ours,
        paper: "submission by an 8-byte doorbell token; the NIC builds the request from a template".into(),
        comparison: format!(
            "token {} B against {} B (CPU-built WQE, {:.0}×) and {} B (IBGDA, {:.0}×)",
            total(2),
            total(0),
            total(0) as f64 / total(2) as f64,
            total(1),
            total(1) as f64 / total(2) as f64
        ),
        notes: vec!["IBGDA: 64 B WQE + 8 B doorbell record + 8 B doorbell MMIO from the GPU, then the NIC's 64 B read of the WQE".into()],
        checks: Checks::default(),
    }
}
