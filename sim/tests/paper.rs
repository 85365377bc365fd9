//! The paper's experiments, quick run: every experiment present, correctness counters
//! zero, the headline figures where the paper puts them, and the plots valid SVG.

use openrdma_sim::paper::{self, PaperReport};
use openrdma_sim::plot::write_plots;

fn quick() -> PaperReport {
    paper::run(1, true)
}

#[test]
fn quick_run_reproduces_the_papers_experiments() {
    let r = quick();
    println!("{}", serde_json::to_string_pretty(&r).unwrap());
    let ids: Vec<&str> = r.experiments.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e", "f", "g"]);
    for e in &r.experiments {
        assert!(e.checks.is_clean(), "{}: {:?}", e.id, e.checks);
        assert!(!e.ours.is_empty() && !e.paper.is_empty() && !e.comparison.is_empty(), "{}", e.id);
        assert!(!e.parameters.is_empty(), "{}", e.id);
    }
    assert!(r.is_correct());

    let a = r.experiment("a").unwrap();
    for pmtu in [2048, 4096] {
        let g = a.figure(&format!("goodput, PMTU {pmtu}")).unwrap();
        let w = a.figure(&format!("wire limit, PMTU {pmtu}")).unwrap();
        assert!(g >= 0.9 * w && g <= w * 1.0001, "PMTU {pmtu}: {g} of {w}");
    }
    let b = r.experiment("b").unwrap();
    assert!(b.figure("ratio").unwrap() > 2.5, "{:?}", b.ours);

    let d = r.experiment("d").unwrap();
    assert_eq!(d.figure("order violations"), Some(0.0));

    let e = r.experiment("e").unwrap();
    let shared = e.figure("shared: clean QP p99").unwrap();
    let per_qp = e.figure("per-QP: clean QP p99").unwrap();
    assert!(per_qp < shared, "per-QP {per_qp} ns against shared {shared} ns");

    assert!(!r.series.recovery.is_empty() && !r.series.skew.is_empty());
    let g = r.experiment("g").unwrap();
    assert_eq!(g.figure("8-byte token: total"), Some(8.0));
}

#[test]
fn quick_run_is_deterministic_and_plots_are_svg() {
    let r = quick();
    let again = serde_json::to_string(&quick()).unwrap();
    assert_eq!(serde_json::to_string(&r).unwrap(), again);
    let dir = std::env::temp_dir().join(format!("openrdma-paper-plots-{}", std::process::id()));
    let files = write_plots(&r, &dir).unwrap();
    assert_eq!(files.len(), 4);
    for f in &files {
        let s = std::fs::read_to_string(f).unwrap();
        assert!(s.starts_with("<svg") || s.starts_with("<?xml"), "{}", f.display());
        assert!(s.trim_end().ends_with("</svg>"), "{}", f.display());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_tap_sees_every_placement_and_does_not_change_the_run() {
    use openrdma_sim::{FlowConfig, PathConfig, Sim, SimConfig};
    use openrdma_sm::NicEvent;
    let flow = FlowConfig { qps: 2, messages: 4, message_bytes: 8192, ..FlowConfig::default() };
    let cfg = SimConfig::two_hosts(4, PathConfig::default(), flow);
    let plain = Sim::new(cfg.clone()).unwrap().run();
    let mut sim = Sim::new(cfg).unwrap();
    sim.tap_events(true);
    let tapped = sim.run_with(&mut |_| {});
    assert_eq!(plain, tapped);
    let events = sim.take_tapped();
    let placed = events
        .iter()
        .filter(|t| t.host == 1 && matches!(t.event, NicEvent::DmaWrite(_)))
        .inspect(|t| assert!(t.lands_ps.is_some_and(|l| l > t.at_ps)))
        .count() as u64;
    assert_eq!(placed, plain.data_packets_sent);
    assert!(sim.take_tapped().is_empty());
}
