//! The power of the corpus, proved from the fault registry (`faults`): every fault is
//! caught by the scenarios that must catch it, and the first divergence names a clause it
//! breaks; every variant passes; every MUST clause that binds a device or its CPU half has
//! a fault that proves the suite checks it, or is listed in [`NOT_YET_PROVED`].
//!
//! One engine runs them all, `faults::prove`, the way `openrdma run` judges: each fault
//! only on the scenarios that can catch it, on two threads.
//!
//! This is the suite's proof of its power (CONF-GEN-008), and for the wire faults, that
//! the scenarios catch a device whose frames break the wire rules (CONF-CMP-016,
//! CONF-CMP-017).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use openrdma_conformance::req::Clause;
use openrdma_conformance::requirements::Spec;
use openrdma_corpus::faults::{self, Class, Expect, Fault, Proof};
use openrdma_device::Scenario;

/// Faults the suite catches, but whose first divergence names a clause they do not
/// break, with the clause it names. The test fails when one is named right, so that the
/// list stays true; it may only shrink.
const MISNAMED: &[(&str, &str)] = &[
    // The EV misread from the flow label shows first in the ACK's EV.
    ("ev-read-flow-label-high-bits", "RCV-ACK-002.b"),
    // A pad byte more than the pad count says is judged as payload in a SACK.
    ("pad-count-short", "PAY-NONE-001"),
    // The missing transport ACK of a message retired out of the shared sequence comes
    // before the flags that show the order.
    ("shared-sequence-ignored", "RCV-ACK-001.a"),
    // Parameters ignored: the first difference is a packet, a NACK or a probe where the
    // parameter's rule would have been the one to name.
    ("no-rto-cap", "EV-PROBE-005.e"),
    ("extra-retry", "SND-RTX-004"),
    ("responder-wwi-unlimited", "RCV-NACK-001.c"),
    // Frames a receiver must take, dropped: the missing transport ACK is named.
    ("rejects-tver", "RCV-ACK-001.a"),
    ("rejects-ipv4-options", "RCV-ACK-001.a"),
    // A token expanded from a template that must not expand: the packet is named.
    ("deregister-ignored", "SND-SEG-003.a"),
    ("truncates-template-ids", "SND-SEG-003.a"),
    // A fatal NACK or a NAK not acted on: the sender flag's status is named.
    ("fatal-nack-ignored", "FLAG-SEND-001.a"),
    ("nak-as-ack", "FLAG-SEND-001.a"),
    // SACKs a sender must take, dropped: the SACK that should have released the next
    // packet carries non-zero PDC identifiers too, whose rule is named first.
    ("rejects-seth-type", "SETH-PDC-001.b"),
    ("rejects-cc-type", "SETH-PDC-001.b"),
    // A NACK or an ACK misread: the flag's status or the QP's failure report is named.
    ("vendor-info-as-reason", "FLAG-STATUS-001"),
    ("only-unlimited-credit-is-ack", "REC-IF-009"),
    // A probe answered with pr 0: the SACK's ack_psn_offset is named.
    ("probe-answered-without-pr", "SETH-ACKPSN-001.a"),
    // CPU halves with one rule wrong: a later timeout or packet is named.
    ("no-retry-reset", "REC-RTO-003"),
    ("no-blame", "SND-PSN-001"),
];

/// The MUST clauses of a device or its CPU half that no fault of the registry proves yet,
/// by chapter: `chapter.md:` lines, then IDs, `#` comments. A data file, so that the
/// requirement matrix does not count a clause listed there as cited by a test.
const NOT_YET_PROVED: &str = include_str!("power/not-yet-proved.txt");

/// The clause IDs of [`NOT_YET_PROVED`].
fn not_yet_proved() -> BTreeSet<&'static str> {
    NOT_YET_PROVED
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(str::split_whitespace)
        .filter(|w| !w.ends_with(':'))
        .collect()
}

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::bundled().expect("the specification parses"))
}

fn corpus() -> &'static [Scenario] {
    static CORPUS: OnceLock<Vec<Scenario>> = OnceLock::new();
    CORPUS.get_or_init(|| openrdma_corpus::all().into_iter().map(|(_, b)| b()).collect())
}

/// Every entry on its scenarios, once for all the tests.
fn proofs() -> &'static [Proof] {
    static PROOFS: OnceLock<Vec<Proof>> = OnceLock::new();
    PROOFS.get_or_init(|| {
        let all: Vec<&'static Fault> = faults::all().collect();
        faults::prove(&all, corpus(), spec(), 2)
    })
}

fn line(p: &Proof) -> String {
    format!(
        "{} / {}: {} {}{}",
        p.fault.cli_name(),
        p.scenario,
        p.verdict,
        p.first.map_or("-", Clause::id),
        p.error.as_deref().map(|e| format!(" ({e})")).unwrap_or_default()
    )
}

#[test]
fn every_fault_is_caught_and_named() {
    let mut wrong = Vec::new();
    let mut misnamed = BTreeMap::new();
    for f in faults::all().filter(|f| f.class == Class::Fault) {
        let mine: Vec<&Proof> = proofs().iter().filter(|p| std::ptr::eq(p.fault, f)).collect();
        if f.breaks.is_empty() {
            wrong.push(format!("faulty:{} breaks no clause", f.name));
        }
        if mine.is_empty() {
            wrong.push(format!("faulty:{} runs on no scenario", f.name));
            continue;
        }
        // Named scenarios must each catch it; the covering ones, at least one.
        let held = if f.catch.is_empty() {
            mine.iter().any(|p| p.holds())
        } else {
            mine.iter().all(|p| p.holds())
        };
        let caught = mine.iter().all(|p| match f.expect {
            Expect::NonStrict => p.verdict == "non-strict",
            _ => p.verdict == "fail",
        });
        if held {
            continue;
        }
        if caught || (f.catch.is_empty() && mine.iter().any(|p| p.verdict == "fail")) {
            let first =
                mine.iter().find(|p| p.verdict == "fail" && !p.holds()).and_then(|p| p.first);
            misnamed.insert(f.name, first.map_or("-", Clause::id));
        } else {
            let detail: Vec<String> = mine.iter().filter(|p| !p.holds()).map(|p| line(p)).collect();
            wrong.push(format!("faulty:{} not caught: {detail:?}", f.name));
        }
    }
    let listed: BTreeMap<&str, &str> = MISNAMED.iter().copied().collect();
    for (name, clause) in &misnamed {
        if listed.get(name) != Some(clause) {
            wrong.push(format!("faulty:{name} is caught but named {clause} first"));
        }
    }
    for name in listed.keys().filter(|n| !misnamed.contains_key(*n)) {
        wrong.push(format!("faulty:{name} is named right now: take it off MISNAMED"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_variant_passes() {
    let mut wrong = Vec::new();
    for f in faults::variants() {
        let mine: Vec<&Proof> = proofs().iter().filter(|p| std::ptr::eq(p.fault, f)).collect();
        let judged = mine.iter().filter(|p| p.verdict != "unsupported").count();
        if judged < 4 {
            wrong.push(format!("variant:{} judged on only {judged} scenarios", f.name));
        }
        wrong.extend(mine.iter().filter(|p| !p.holds()).map(|p| line(p)));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_must_clause_is_proved() {
    let proved = faults::proved(proofs());
    let unproved: BTreeSet<&str> =
        faults::must_clauses().filter(|c| !proved.contains_key(c)).map(Clause::id).collect();
    let listed = not_yet_proved();
    let newly: Vec<&&str> = listed.difference(&unproved).collect();
    let lost: Vec<&&str> = unproved.difference(&listed).collect();
    // The worklist, by chapter.
    let mut by_chapter: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for id in &unproved {
        let requirement = Clause::parse(id).map_or(*id, Clause::requirement);
        let chapter = spec().get(requirement).map_or("?".into(), |r| r.chapter.clone());
        by_chapter.entry(chapter).or_default().push(id);
    }
    let worklist: Vec<String> = by_chapter
        .iter()
        .map(|(ch, ids)| format!("{ch} ({}): {}", ids.len(), ids.join(" ")))
        .collect();
    println!(
        "MUST clauses proved: {} of {}\n{}",
        faults::must_clauses().count() - unproved.len(),
        faults::must_clauses().count(),
        worklist.join("\n")
    );
    assert!(newly.is_empty(), "proved now, take them off NOT_YET_PROVED: {newly:?}");
    assert!(
        lost.is_empty(),
        "MUST clauses without a catching fault, not listed in NOT_YET_PROVED: {lost:?}\n{}",
        worklist.join("\n")
    );
}

#[test]
fn the_cli_names_are_registry_entries() {
    // Names are unique and what the command line takes.
    let mut seen = BTreeSet::new();
    for f in faults::all() {
        assert!(seen.insert(f.name), "{} twice", f.name);
        assert!(
            !f.name.is_empty()
                && f.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{:?} is not a command-line name",
            f.name
        );
        let again = faults::by_cli_name(&f.cli_name()).expect("found by its CLI name");
        assert!(std::ptr::eq(again, f));
        let other = match f.class {
            Class::Fault => format!("variant:{}", f.name),
            Class::Variant => format!("faulty:{}", f.name),
        };
        assert!(faults::by_cli_name(&other).is_none(), "{other}");
        assert_eq!(f.breaks.is_empty(), f.class == Class::Variant, "{}", f.name);
    }
}
