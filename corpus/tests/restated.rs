//! Clauses that restate a check's clause (CONF-CMP-118): a check of the judge's table
//! declares, for the output it judges, the clauses that restate one of its own, such as
//! RCV-SACK-005.d for SETH-BITMAP-001 in a responder's SACK. A divergence still names the
//! check's clause first and carries the others in `also_breaks`; coverage, the matrix and
//! the power table count them as clauses a check can fail.

mod common;

use common::*;
use openrdma_conformance::judge::table::unfailable_musts;
use openrdma_conformance::judge::{CHECKS, Check};
use openrdma_conformance::report::{
    SuiteReport, TableOptions, coverage, render_table_with, run_one,
};
use openrdma_conformance::req::*;
use openrdma_conformance::requirements::{Level, Spec};
use openrdma_corpus::faults::{self, Mutant, find};
use openrdma_sm::reference_cpu_half;

fn spec() -> Spec {
    Spec::bundled().expect("the specification parses")
}

/// Whether `by` may be declared as restating `clause`: two clauses of different
/// requirements, one citing the other's, `by` a leaf clause in force that binds a device
/// or its CPU half.
fn restates(spec: &Spec, clause: Clause, by: Clause) -> bool {
    by.is_leaf()
        && by.level() != Level::Withdrawn
        && by.subject().scenario_checked()
        && faults::cites(spec, by, clause)
}

/// Every declaration is a restatement of the check's own clause: so the list cannot make
/// a check seem to fail a rule that nothing it judges says.
#[test]
fn each_declared_clause_restates_its_checks_clause() {
    let spec = spec();
    let mut wrong = Vec::new();
    for c in CHECKS {
        for r in c.restated {
            if !c.clauses.contains(&r.clause) {
                wrong.push(format!("{}: {} is not a clause of the check", c.name, r.clause));
            }
            if r.by.is_empty() {
                wrong.push(format!("{}: {} is restated by nothing", c.name, r.clause));
            }
            for &b in r.by {
                if c.clauses.contains(&b) {
                    wrong.push(format!("{}: {b} is the check's own clause", c.name));
                }
                if !restates(&spec, r.clause, b) {
                    wrong.push(format!("{}: {b} does not restate {}", c.name, r.clause));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The test above tells a restatement from an unrelated rule: RCV-SACK-005.d restates
/// SETH-BITMAP-001; RCV-NACK-001.e (a NACK's entropy) and RCV-WIN-003 (the responder's
/// `epsn`, which cites SETH-CACK-001 only) do not.
#[test]
fn an_unrelated_rule_is_no_restatement() {
    let spec = spec();
    assert!(restates(&spec, SETH_BITMAP_001, RCV_SACK_005_D));
    assert!(!restates(&spec, SETH_BITMAP_001, RCV_NACK_001_E));
    assert!(!restates(&spec, SETH_BITMAP_001, RCV_WIN_003));
    // A line with clauses is no leaf: its clauses are declared one by one.
    assert!(!restates(&spec, SETH_BITMAP_001, RCV_SACK_005));
}

/// The clauses this work declared are ones a check can fail now; RCV-WIN-003, a rule of
/// the responder's own state, is not declared: a check of its own fails it (CONF-CMP-126).
#[test]
fn declared_clauses_are_ones_a_check_can_fail() {
    let unfailable = unfailable_musts();
    for c in [
        RCV_SACK_005_B,
        RCV_SACK_005_D,
        RCV_SACK_005_F,
        RCV_SACK_005_G,
        RCV_NACK_001_E,
        RCV_NACK_001_F,
        ENC_EV_003,
        OPC_PSN_002_A,
        DEC_RESV_001_A,
        OPC_TABLE_001,
        OPC_MRC_001,
        WR_EXEC_001,
        TPL_INSTALL_001_A,
        SND_SCHED_003_C,
        SND_SCHED_003_D,
        OPC_PSN_002_D,
    ] {
        assert!(!unfailable.contains(&c), "{c} is still a clause no check can fail");
        assert!(CHECKS.iter().any(|k| k.fails().any(|f| f == c)), "{c}");
    }
    assert!(!unfailable.contains(&RCV_WIN_003));
    let sacks = Check::named("sacks").expect("the row");
    assert!(sacks.fails().any(|c| c == RCV_WIN_003));
    assert!(sacks.also_breaks(SETH_CACK_001_A).all(|c| c != RCV_WIN_003));
    assert_eq!(sacks.also_breaks(SETH_BITMAP_001).collect::<Vec<_>>(), [RCV_SACK_005_D]);
    assert_eq!(sacks.also_breaks(SETH_BITMAP_002_B).count(), 0);
}

/// A scenario that shows a breach of the check's clause covers the restating clause too.
#[test]
fn coverage_counts_the_restating_clause() {
    let s = scenario("rcv-in-order-v4");
    let c = coverage(&spec(), &[&s], &[&s]);
    let by = |id: &str| c.by_requirement.get(id).is_some_and(|v| v.contains(&s.manifest.name));
    assert!(by("SETH-BITMAP-001"));
    assert!(by("RCV-SACK-005.d"), "{:?}", c.by_requirement.keys().collect::<Vec<_>>());
}

/// A faulty SACK bitmap is named by the SETH's rule first, as before, and the report
/// carries the responder's clause that restates it, in JSON and in verbose text only.
#[test]
fn the_first_divergence_carries_what_else_it_breaks() {
    let f = find("sack-bitmap-top-bit-set").expect("registered");
    let s = scenario("rcv-in-order-v4");
    let spec = spec();
    let r = run_one(&mut Mutant::new(f), reference_cpu_half, &s, &spec);
    let d = r.first_divergence.as_ref().expect("it fails");
    assert_eq!(d.clause, "SETH-BITMAP-001");
    assert_eq!(d.also_breaks, ["RCV-SACK-005.d"]);
    let json = serde_json::to_value(&r).expect("serializes");
    assert_eq!(json["first_divergence"]["also_breaks"], serde_json::json!(["RCV-SACK-005.d"]));
    let suite = SuiteReport {
        implementation: f.cli_name(),
        summary: Default::default(),
        scenarios: vec![r],
        coverage: Default::default(),
    };
    let verbose = render_table_with(&suite, TableOptions { verbose: true });
    assert!(verbose.contains("also breaks: RCV-SACK-005.d"), "{verbose}");
    let plain = render_table_with(&suite, TableOptions::default());
    assert!(!plain.contains("also breaks"), "{plain}");
}

/// A divergence with nothing restating its clause carries no `also_breaks` key.
#[test]
fn no_restatement_no_key() {
    let f = find("sack-bitmap-bit-0-set").expect("registered");
    let s = scenario("rcv-in-order-v4");
    let r = run_one(&mut Mutant::new(f), reference_cpu_half, &s, &spec());
    let json = serde_json::to_value(&r).expect("serializes");
    assert!(json["first_divergence"].get("also_breaks").is_none(), "{json}");
}

/// The retransmission queue's clauses fail with the NACK's (CONF-CMP-107): a delayed entry
/// sent before its back-off ended breaks SND-SCHED-003.c with SND-NACK-004.a, and one held
/// back by another entry's back-off breaks SND-SCHED-003.d with SND-NACK-004.b.
#[test]
fn the_queue_clauses_fail_with_the_nack_clauses() {
    let spec = spec();
    let s = scenario("snd-nack-backoff-long");
    for (fault, clause, also) in [
        ("nack-backoff-halved", "SND-NACK-004.a", "SND-SCHED-003.c"),
        ("nack-backoff-holds-queue", "SND-NACK-004.b", "SND-SCHED-003.d"),
    ] {
        let f = find(fault).expect("registered");
        let r = run_one(&mut Mutant::new(f), reference_cpu_half, &s, &spec);
        let d = r.first_divergence.as_ref().expect("it fails");
        assert_eq!(d.clause, clause, "{fault}");
        assert_eq!(d.also_breaks, [also], "{fault}");
    }
    let backoff = Check::named("schedule.nack-backoff").expect("the row");
    assert_eq!(backoff.also_breaks(SND_NACK_004_A).collect::<Vec<_>>(), [SND_SCHED_003_C]);
    assert_eq!(backoff.also_breaks(SND_RTX_005).count(), 0);
    let matched = Check::named("frames.match").expect("the row");
    assert_eq!(matched.also_breaks(SND_NACK_004_B).collect::<Vec<_>>(), [SND_SCHED_003_D]);
    // A delayed entry's effect on a later inference is not a send before the back-off.
    assert_eq!(matched.also_breaks(SND_NACK_004_A).count(), 0);
}

/// A SACK that claims a PSN only a probe carried names the probe's rule and carries the
/// general rule it restates for a probe: a receiver takes no `psn` of a packet that
/// consumes none as a sequence number (OPC-PSN-002.d).
#[test]
fn a_probe_psn_recorded_breaks_the_general_rule_too() {
    let f = find("probe-psn-received").expect("registered");
    let s = scenario("rcv-probe-answer-count");
    let r = run_one(&mut Mutant::new(f), reference_cpu_half, &s, &spec());
    let d = r.first_divergence.as_ref().expect("it fails");
    assert_eq!(d.clause, "PETH-PSN-001");
    assert_eq!(d.also_breaks, ["OPC-PSN-002.d"]);
}
