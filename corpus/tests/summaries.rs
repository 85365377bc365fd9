//! Summary clauses and the rows nothing here can test.
//!
//! TPL-INSTALL-004, ORD-NIC-002.b and RCV-FRAME-001 sum up rules they cite; the checks that
//! name those rules declare them as restating (CONF-CMP-118; host-interface chapter,
//! decision 33; receiver chapter, decision 17), so a fault that breaks one carries it in
//! `also_breaks` and it is a clause a check can fail. CQE-TS-001.c is left to review
//! (host-interface chapter, decision 34). The GPU program's rules and two NIC rules the
//! boundary does not expose are listed as left to review, which the matrix reports apart
//! (decision 35); this file names their topics only, so that it does not count as a test
//! of them.

mod common;

use common::*;
use openrdma_conformance::judge::table::unfailable_musts;
use openrdma_conformance::report::run_one;
use openrdma_conformance::req::*;
use openrdma_conformance::requirements::{Spec, Subject};
use openrdma_corpus::faults::{Mutant, find};
use openrdma_corpus::matrix::Matrix;
use openrdma_sm::reference_cpu_half;

fn spec() -> Spec {
    Spec::bundled().expect("the specification parses")
}

/// The first divergence of fault `fault` on scenario `scenario`: its clause and what it
/// also breaks.
fn first(fault: &str, scenario_name: &str) -> (String, Vec<String>) {
    let f = find(fault).expect("registered");
    let s = scenario(scenario_name);
    let r = run_one(&mut Mutant::new(f), reference_cpu_half, &s, &spec());
    let d = r.first_divergence.expect("the fault fails the scenario");
    (d.clause, d.also_breaks)
}

#[test]
fn summaries_are_clauses_a_check_can_fail() {
    let unfailable = unfailable_musts();
    for c in [TPL_INSTALL_004, ORD_NIC_002_B, RCV_FRAME_001] {
        assert!(!unfailable.contains(&c), "{c} is still a clause no check can fail");
    }
}

/// A token of a template whose registration ended, answered as if the template were
/// enabled: TPL-KEY-002 first, and TPL-INSTALL-004 with it.
#[test]
fn tpl_install_004_fails_with_tpl_key_002() {
    let (clause, also) = first("deregister-ignored", "db-deregister");
    assert_eq!(clause, "TPL-KEY-002");
    assert_eq!(also, ["TPL-INSTALL-004"]);
}

/// A message's first packet before the last of the message before it: SND-ORDER-001.b
/// first, and ORD-NIC-002.b with it.
#[test]
fn ord_nic_002_fails_with_snd_order_001() {
    let (clause, also) = first("next-message-first", "snd-order-messages");
    assert_eq!(clause, "SND-ORDER-001.b");
    assert_eq!(also, ["ORD-NIC-002.b"]);
}

/// A frame with a wrong ICRC, acted on: the rule that makes it one to discard first, and
/// RCV-FRAME-001 with it, on both IP versions.
#[test]
fn rcv_frame_001_fails_with_the_rule_of_the_discard() {
    for s in ["wire-discard-v4", "wire-discard-v6"] {
        let (clause, also) = first("accepts-bad-icrc", s);
        assert_eq!(clause, "ICRC-VERIFY-001.a", "{s}");
        assert_eq!(also, ["RCV-FRAME-001"], "{s}");
    }
}

/// CQE-TS-001.c is no clause a scenario can see on its own: it is bound outside the
/// boundary, while the fault that breaks it is still caught by the rule of the decision
/// its timestamp swayed.
#[test]
fn cqe_ts_001_c_is_left_to_review() {
    assert_eq!(CQE_TS_001_C.subject(), Subject::OutsideBoundary);
    assert_eq!(CQE_TS_001_A.subject(), Subject::Device);
    assert!(!unfailable_musts().contains(&CQE_TS_001_C));
    let (clause, _) = first("cqe-same-stamp-dropped", "ret-retry-exceeded");
    assert_eq!(clause, "WR-SIGNALED-001.c");
}

/// The GPU program's rules and the two NIC rules the boundary hides are left to review,
/// not counted as checked by nothing; a host rule that tests check is not. The test names
/// their topics, not their IDs: it checks how the matrix counts them, not the rules.
#[test]
fn the_gpu_and_bus_rules_are_left_to_review() {
    let spec = spec();
    let m = Matrix::build(&spec, &[], &[]);
    let unchecked = m.unchecked(&spec);
    let review = m.left_to_review(&spec);
    let listed: Vec<&str> =
        spec.iter().filter(|r| r.review.is_some()).map(|r| r.id.as_str()).collect();
    assert_eq!(listed.len(), 7, "{listed:?}");
    for id in &listed {
        let topic = id.rsplit_once('-').map_or("", |(t, _)| t);
        assert!(["ORD-DB", "ORD-GPU", "ORD-NIC", "ORD-PCIE"].contains(&topic), "{id}");
        assert!(!spec.get(id).is_some_and(|r| r.subject.scenario_checked()), "{id}");
        assert!(review.contains(id), "{id}");
        assert!(!unchecked.contains(id), "{id}");
    }
    assert_eq!(review, listed);
    // A host rule that its tests check stays one a test must cite: with no sources, none
    // cites it.
    let flag = spec.iter().find(|r| r.id.starts_with("FLAG-MATCH-")).expect("a flag rule");
    assert!(flag.review.is_none());
    assert!(unchecked.contains(&flag.id.as_str()));
}
