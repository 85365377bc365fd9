//! Experiments (c) and (d): drop-to-completion recovery, and when completion flags are
//! accepted.

use super::*;

// (c) ------------------------------------------------------------------------------------

/// Packets of the message of experiment (c).
pub(super) const C_PACKETS: u32 = 16;

/// Aimed-drop placements of experiment (c): every PSN, every pair and every triple of the
/// 16-packet message; the quick run takes [`QUICK_PLACEMENTS`].
pub(super) fn placements(quick: bool) -> Vec<Vec<u32>> {
    if quick {
        return QUICK_PLACEMENTS.iter().map(|p| p.to_vec()).collect();
    }
    let n = C_PACKETS;
    let mut out: Vec<Vec<u32>> = (0..n).map(|a| vec![a]).collect();
    for a in 0..n {
        for b in a + 1..n {
            out.push(vec![a, b]);
        }
    }
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                out.push(vec![a, b, c]);
            }
        }
    }
    out
}

/// The quick run's placements.
pub(super) const QUICK_PLACEMENTS: &[&[u32]] = &[
    &[0],
    &[3],
    &[6],
    &[9],
    &[13],
    &[0, 1],
    &[2, 7],
    &[5, 10],
    &[8, 13],
    &[0, 1, 2],
    &[1, 5, 9],
    &[4, 8, 12],
    &[6, 7, 11],
];

/// Propagation delay of every path in the NIC-local setting of experiment (c): the NICs
/// back to back through one switch hop, so that the time is the NICs' own.
pub(super) const LOCAL_DELAY_NS: u64 = 0;

/// The tail-probe delay of experiment (c)'s second series (`SND-TAIL-001`): a round trip of
/// the end-to-end fabric plus the receiver's SACK delay (1 µs), the longest a SACK can take
/// to report a tail that arrived.
pub(super) const TAIL_PROBE_NS: u64 = 2_000;

/// Runs every placement of experiment (c) over paths of `delay_ns`, with tail probing at
/// `tail_probe_ns` or without, adding each run's checks, and returns the configuration and
/// one point per placement.
pub(super) fn recovery_runs(
    seed: u64,
    quick: bool,
    delay_ns: u64,
    tail_probe_ns: Option<u64>,
    checks: &mut Checks,
) -> (SimConfig, Vec<RecoveryPoint>) {
    let flow = FlowConfig {
        qps: 1,
        messages: 1,
        message_bytes: C_PACKETS * 4096,
        ..FlowConfig::default()
    };
    let mut cfg = base(seed, 4096, flow);
    for path in &mut cfg.paths {
        path.delay_ns = delay_ns;
    }
    cfg.nic.tail_probe = tail_probe_ns.map(std::time::Duration::from_nanos);
    // The run without drops: when each packet arrives, and when the completion lands.
    let (r, tap) = simulate_tapped(cfg.clone());
    checks.add(&r);
    let arrival: BTreeMap<u32, u64> = tap
        .iter()
        .filter_map(|t| match &t.event {
            NicEvent::DmaWrite(w) if t.host == 1 => Some((w.psn.value(), t.at_ps)),
            _ => None,
        })
        .collect();
    let clean_done = completion_ps(&tap);
    let mut points = Vec::new();
    for psns in placements(quick) {
        let psns: Vec<Psn> = psns.into_iter().map(Psn::new).collect();
        let mut c = cfg.clone();
        c.aimed_drops = psns.iter().map(|&psn| AimedDrop { flow: 0, qp: 0, psn }).collect();
        let (r, tap) = simulate_tapped(c);
        checks.add(&r);
        let first = psns.iter().filter_map(|p| arrival.get(&p.value())).copied().min().unwrap_or(0);
        let done = completion_ps(&tap);
        points.push(RecoveryPoint {
            fabric_delay_ns: delay_ns,
            tail_probe_ns,
            recovery_ns: done.saturating_sub(first) / 1000,
            detect_ns: first_retransmission_ps(&tap).saturating_sub(first) / 1000,
            baseline_ns: clean_done.saturating_sub(first) / 1000,
            sack_inference: r.retransmissions_by_cause.sack_inference,
            nack: r.retransmissions_by_cause.nack,
            timeout: r.retransmissions_by_cause.timeout,
            psns,
        });
    }
    (cfg, points)
}

/// Min, median and max of some placements' `value`, by number of packets lost, for the
/// placements `keep` selects.
pub(super) fn by_losses(
    points: &[RecoveryPoint],
    keep: impl Fn(&RecoveryPoint) -> bool,
    value: impl Fn(&RecoveryPoint) -> u64,
) -> BTreeMap<usize, (u64, u64, u64, usize)> {
    let mut by: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
    for p in points.iter().filter(|p| keep(p)) {
        by.entry(p.psns.len()).or_default().push(value(p));
    }
    by.into_iter()
        .map(|(k, mut v)| {
            v.sort_unstable();
            (k, (v[0], quantile(&v, 0.5), v[v.len() - 1], v.len()))
        })
        .collect()
}

pub(super) fn recovery(seed: u64, quick: bool, series: &mut Series) -> Experiment {
    let mut checks = Checks::default();
    let tail = Some(TAIL_PROBE_NS);
    let (cfg, e2e) = recovery_runs(seed, quick, DELAY_NS, None, &mut checks);
    let (_, local) = recovery_runs(seed, quick, LOCAL_DELAY_NS, None, &mut checks);
    let (_, e2e_tail) = recovery_runs(seed, quick, DELAY_NS, tail, &mut checks);
    let (_, local_tail) = recovery_runs(seed, quick, LOCAL_DELAY_NS, tail, &mut checks);
    let inferred = |p: &RecoveryPoint| p.timeout == 0;
    let all = |_: &RecoveryPoint| true;
    let mut ours = Vec::new();
    // Min, median and max drop → completion by packets lost, over the placements `keep`
    // selects; returns the text for the comparison.
    let mut ranges =
        |label: &str, points: &[RecoveryPoint], keep: &dyn Fn(&RecoveryPoint) -> bool| {
            let mut text = Vec::new();
            for (k, (min, med, max, n)) in by_losses(points, keep, |p| p.recovery_ns) {
                let name = format!("{label}, {k} lost (n = {n})");
                ours.push(fig(&format!("{name}: min"), min as f64, "ns"));
                ours.push(fig(&format!("{name}: median"), med as f64, "ns"));
                ours.push(fig(&format!("{name}: max"), max as f64, "ns"));
                text.push(format!("{k} lost {min}–{max} ns (median {med})"));
            }
            text.join(", ")
        };
    let local_inferred = ranges("per-EV inference, NIC-local, no timeout", &local, &inferred);
    let e2e_inferred = ranges("per-EV inference, end to end, no timeout", &e2e, &inferred);
    ranges("per-EV inference, end to end, all placements", &e2e, &all);
    let local_probed = ranges("tail probes, NIC-local, all placements", &local_tail, &all);
    let e2e_probed = ranges("tail probes, end to end, all placements", &e2e_tail, &all);
    // What the loss adds: the same span without any drop taken away.
    let added = |points: &[RecoveryPoint], keep: &dyn Fn(&RecoveryPoint) -> bool| {
        by_losses(points, keep, |p| p.recovery_ns.saturating_sub(p.baseline_ns))
    };
    let mut added_text = Vec::new();
    for (label, points, keep) in [
        ("per-EV inference, NIC-local", &local, &inferred as &dyn Fn(&RecoveryPoint) -> bool),
        ("tail probes, NIC-local", &local_tail, &all),
    ] {
        let mut line = Vec::new();
        for (k, (min, med, max, _)) in added(points, keep) {
            ours.push(fig(
                &format!("{label}, {k} lost: added by the loss, median"),
                med as f64,
                "ns",
            ));
            line.push(format!("{k} lost {min}–{max} ns (median {med})"));
        }
        added_text.push(format!("{label}: {}", line.join(", ")));
    }
    let median = |points: &[RecoveryPoint], f: fn(&RecoveryPoint) -> u64| {
        let mut v: Vec<u64> = points.iter().filter(|p| inferred(p)).map(f).collect();
        v.sort_unstable();
        quantile(&v, 0.5)
    };
    let local_detect = median(&local, |p| p.detect_ns);
    let e2e_detect = median(&e2e, |p| p.detect_ns);
    ours.push(fig(
        "per-EV inference, NIC-local: drop → retransmission, median",
        local_detect as f64,
        "ns",
    ));
    ours.push(fig(
        "per-EV inference, end to end: drop → retransmission, median",
        e2e_detect as f64,
        "ns",
    ));
    let timeouts = |points: &[RecoveryPoint]| points.iter().filter(|p| !inferred(p)).count();
    let (t_plain, t_tail) =
        (timeouts(&e2e) + timeouts(&local), timeouts(&e2e_tail) + timeouts(&local_tail));
    ours.push(fig(
        "per-EV inference: placements recovered by a timeout",
        t_plain as f64,
        "placements",
    ));
    ours.push(fig("tail probes: placements recovered by a timeout", t_tail as f64, "placements"));
    let worst = |points: &[RecoveryPoint]| points.iter().map(|p| p.recovery_ns).max().unwrap_or(0);
    let one_local = by_losses(&local, inferred, |p| p.recovery_ns).get(&1).map_or(0, |x| x.1);
    let runs = e2e.len() + local.len();
    series.recovery.extend(e2e);
    series.recovery.extend(local);
    series.recovery.extend(e2e_tail.iter().cloned());
    series.recovery.extend(local_tail.iter().cloned());
    let mut parameters = fabric_params(&cfg);
    parameters.extend(flow_params(&cfg));
    parameters.push(p("fabric load", "idle: one message in flight"));
    parameters.push(p(
        "fabric",
        format!(
            "end to end: the paths above ({DELAY_NS} ns each way); NIC-local: the same with {LOCAL_DELAY_NS} ns of propagation (the NICs back to back through one switch hop)"
        ),
    ));
    let placements = placements(quick);
    parameters.push(p(
        "placements",
        if quick {
            placements.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(" ")
        } else {
            format!(
                "every PSN, every pair and every triple of PSNs 0–{} ({} runs per fabric and sender)",
                C_PACKETS - 1,
                placements.len()
            )
        },
    ));
    parameters.push(p(
        "SACK",
        format!(
            "every {} packets or after {} ns; transport ACK every {} retired messages",
            cfg.nic.sack_coalesce,
            cfg.nic.sack_delay.as_nanos(),
            cfg.nic.ack_coalesce
        ),
    ));
    parameters.push(p("retransmission timeout", format!("{} ns", cfg.recovery.rto.as_nanos())));
    parameters.push(p(
        "senders",
        format!("per-EV inference alone (MRC's rule, SND-INFER-001), and with tail probes {TAIL_PROBE_NS} ns after an EV's last data packet (SND-TAIL-001)"),
    ));
    Experiment {
        id: "c".into(),
        name: "drop → completion for one, two and three lost packets".into(),
        parameters,
        ours,
        paper: "local drop-to-CQE recovery 508–598 ns for one lost packet, 620–682 ns for two or three".into(),
        comparison: format!(
            "Per-EV inference alone, NIC-local, placements repaired without a timeout: {local_inferred}; the one-loss median is {:.1}× the middle of the paper's range. End to end over {DELAY_NS} ns paths: {e2e_inferred}: each lost packet costs a SACK back, the retransmission forward and the transport ACK back, three crossings of the fabric. Medians from the drop to the retransmission leaving: {local_detect} ns NIC-local, {e2e_detect} ns end to end. But {t_plain} of {runs} placements lose the last packet sent on an EV, which no later packet on that EV can reveal (SND-INFER-001), and wait for the {} ns retransmission timeout. With tail probes every placement is repaired without one ({t_tail} timeouts): NIC-local {local_probed}; end to end {e2e_probed}; the worst placement falls from {} ns to {} ns end to end. Added by the loss: {}",
            one_local as f64 / 553.0,
            cfg.recovery.rto.as_nanos(),
            worst(&series.recovery.iter().filter(|p| p.fabric_delay_ns == DELAY_NS && p.tail_probe_ns.is_none()).cloned().collect::<Vec<_>>()),
            worst(&e2e_tail),
            added_text.join("; "),
        ),
        notes: vec![
            "drop time = the instant the dropped packet would have reached the receiving NIC's placement (taken from the same run without drops); completion = the sender's completion entry landing in memory (the CQE)".into(),
            "NIC-local: the same NICs and timing (pipelines, 100 Gb/s serialization at the NIC and at the switch, DMA and flag writes) with no propagation delay, the paper's co-simulated setting as near as its summary lets us read it; end to end: the fabric of the other experiments".into(),
            "per-EV inference: the receiver SACKs the later packets; the sender infers the loss from a later transmission on the same EV (SND-INFER-001) and retransmits; the receiver places it, retires the message and sends the transport ACK; the sender writes the completion".into(),
            format!("tail probes: {TAIL_PROBE_NS} ns after the last data packet on an EV that is still not acknowledged, a probe follows it on that EV; the answer, sent when the probe arrived, shows the packet missing on a FIFO path, and the sender retransmits it (SND-TAIL-003): no spurious retransmission, one small packet each way"),
            "added by the loss = drop → completion less the same span in the run without drops (the rest of the message, the ACK and the completion write, which a lost packet does not cause)".into(),
            "series.recovery holds every placement of both fabrics and both senders; fabric_delay_ns and tail_probe_ns tell them apart".into(),
        ],
        checks,
    }
}

pub(super) fn first_retransmission_ps(tap: &[Tapped]) -> u64 {
    tap.iter()
        .find(|t| matches!(t.event, NicEvent::Report(NicReport::Retransmitted { .. })))
        .map_or(0, |t| t.at_ps)
}

pub(super) fn completion_ps(tap: &[Tapped]) -> u64 {
    tap.iter()
        .filter_map(|t| match &t.event {
            NicEvent::Completion(c) if t.host == 0 && c.side == Side::Requester => t.lands_ps,
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

// (d) ------------------------------------------------------------------------------------

/// Per message (QP, MSN) at the receiver: when its last byte landed and when its flag landed.
pub(super) fn flag_delays(tap: &[Tapped], host: usize) -> (Vec<u64>, u64) {
    let mut last: BTreeMap<(u32, u16), u64> = BTreeMap::new();
    let mut delays = Vec::new();
    let mut waited = 0;
    let mut complete_order: Vec<(u64, (u32, u16))> = Vec::new();
    let mut flags = Vec::new();
    for t in tap.iter().filter(|t| t.host == host) {
        match &t.event {
            NicEvent::DmaWrite(w) => {
                let e = last.entry((w.qpn.value(), w.msn.value())).or_insert(0);
                *e = (*e).max(t.lands_ps.unwrap_or(t.at_ps));
            }
            NicEvent::FlagWrite(f) if f.side == Side::Responder => {
                let key = (f.qpn.value(), f.msn.value());
                let placed = last.get(&key).copied().unwrap_or(0);
                let landed = t.lands_ps.unwrap_or(t.at_ps);
                delays.push(landed.saturating_sub(placed) / 1000);
                complete_order.push((placed, key));
                flags.push(key);
            }
            _ => {}
        }
    }
    // Messages that became complete before one retired ahead of them: they waited for order.
    complete_order.sort();
    let pos: BTreeMap<(u32, u16), usize> =
        complete_order.iter().enumerate().map(|(i, &(_, k))| (k, i)).collect();
    let mut max_seen = None;
    for k in &flags {
        let i = pos[k];
        if max_seen.is_some_and(|m| i < m) {
            waited += 1;
        }
        max_seen = Some(max_seen.map_or(i, |m: usize| m.max(i)));
    }
    (delays, waited)
}

pub(super) fn flag_delay(seed: u64, quick: bool, series: &mut Series) -> Experiment {
    let messages = if quick { 16 } else { 1000 };
    let skews = [0u64, 300, 600, 1200];
    let mut checks = Checks::default();
    let mut ours = Vec::new();
    let mut cfg0 = None;
    let mut summary = Vec::new();
    let mut order = 0;
    for mode in [RetirementMode::PerQp, RetirementMode::Shared] {
        // One-packet messages: each takes one path, so skew completes them out of order.
        let flow = FlowConfig { qps: 4, messages, message_bytes: 4096, ..FlowConfig::default() };
        let mut cfg = base(seed, 4096, flow);
        for (path, s) in cfg.paths.iter_mut().zip(skews) {
            path.skew_ns = s;
        }
        cfg.nic.retirement = mode;
        let (r, tap) = simulate_tapped(cfg.clone());
        checks.add(&r);
        order += r.order_violations;
        let (mut d, waited) = flag_delays(&tap, 1);
        d.sort_unstable();
        let name = mode_name(mode);
        for (q, label) in [(0.1, "p10"), (0.5, "p50"), (0.9, "p90"), (1.0, "max")] {
            ours.push(fig(&format!("{name}: {label}"), quantile(&d, q) as f64, "ns"));
        }
        ours.push(fig(
            &format!("{name}: messages complete before an earlier one"),
            waited as f64,
            "messages",
        ));
        summary.push(format!(
            "{name} p10/p50/p90/max {}/{}/{}/{} ns",
            quantile(&d, 0.1),
            quantile(&d, 0.5),
            quantile(&d, 0.9),
            quantile(&d, 1.0)
        ));
        series.flag_delay_ns.insert(name.into(), d);
        cfg0.get_or_insert(cfg);
    }
    ours.push(fig("order violations", order as f64, "retirements"));
    let cfg = cfg0.expect("two runs");
    let mut parameters = fabric_params(&cfg);
    parameters.extend(flow_params(&cfg).into_iter().filter(|x| x.name != "retirement"));
    parameters.push(p("retirement", "per-QP and shared"));
    Experiment {
        id: "d".into(),
        name: "flag delay under out-of-order arrival; completion order".into(),
        parameters,
        ours,
        paper: "flag enqueue-to-acceptance 10–210 ns; completion order preserved under out-of-order arrival".into(),
        comparison: format!(
            "{}; order violations {order}: order preserved, as in the paper; our span starts at the last byte landing, the paper's at the flag's enqueue",
            summary.join("; ")
        ),
        notes: vec![
            "flag delay = the retirement flag landing in memory − the message's last payload byte landing (PCIe posted-write order: a flag never lands before its data)".into(),
            "a flag write (100 ns) issued at the last packet's arrival lands with the data (150 ns): delay 0; any more is waiting for earlier messages of the retirement sequence".into(),
        ],
        checks,
    }
}
