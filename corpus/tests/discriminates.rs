//! Coverage counts a clause in a scenario only where a breach of it can show there
//! (`judge::discriminates`): each predicate is false for a scenario of the corpus that
//! exercises the clause's row but cannot show the breach, and true for one that can.

use std::collections::BTreeMap;
use std::time::Duration;

use openrdma_conformance::judge::CHECKS;
use openrdma_conformance::judge::discriminates::{Facts, has_predicate, hidden_in, shows};
use openrdma_conformance::judge::table::covered_by;
use openrdma_conformance::req::Clause;
use openrdma_corpus as corpus;
use openrdma_device::Scenario;

fn scenario(name: &str) -> Scenario {
    let (_, build) = corpus::all()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no scenario {name}"));
    build()
}

fn clause(id: &str) -> Clause {
    Clause::parse(id).unwrap_or_else(|| panic!("{id} is not a clause"))
}

/// Whether the row `row` can show a breach of `id` in `s`.
fn shows_in(row: &str, id: &str, s: &Scenario) -> bool {
    let check = CHECKS.iter().find(|c| c.name == row).unwrap_or_else(|| panic!("no row {row}"));
    let x = clause(id);
    assert!(check.clauses.contains(&x), "row {row} does not name {id}");
    assert!(has_predicate(row, x), "{id} in {row} has no predicate");
    shows(check, x, s, &Facts::of(s))
}

/// (row, clause, a scenario that can show a breach of it, one that exercises the row and
/// cannot).
const CASES: &[(&str, &str, &str, &str)] = &[
    // Window clauses: only where an acknowledgement releases a packet the window held.
    ("frames.match", "WWI-LIMIT-001", "snd-wwi-limit", "snd-segmentation"),
    ("frames.match", "SND-WIN-002.b", "snd-window", "snd-segmentation"),
    ("frames.match", "SND-CC-001", "snd-cc-sack", "snd-window"),
    // Acting on a SACK: only where a SACK of that content releases a packet.
    ("frames.match", "SND-SACK-002.a", "snd-cc-sack", "snd-segmentation"),
    ("frames.match", "SETH-PDC-001.b", "snd-lenient", "snd-window"),
    ("frames.match", "EV-SKIP-002", "snd-ev-skip", "snd-segmentation"),
    // A probe answer with no mark that releases a packet: named by the EV it makes usable
    // again, where no EvState report is expected either.
    ("frames.match", "EV-PROBE-002", "rec-device-blame", "snd-segmentation"),
    // Retransmissions: by what asks for them.
    ("frames.match", "REC-RTO-001", "rec-device-backoff", "snd-lost-sack"),
    ("frames.match", "REC-IF-010", "snd-timeout-loss", "rec-device-backoff"),
    ("frames.match", "SND-INFER-001", "snd-single-loss", "snd-segmentation"),
    ("frames.match", "SND-NACK-002", "snd-nack-backoff", "snd-segmentation"),
    // An ACK owed at once, where the timer's would be late (design 9.2).
    ("frames.match", "RCV-ACK-001.a", "rcv-ack-coalesce", "rcv-in-order-v4"),
    // Fields, by the kinds of frame the field table judges them in.
    ("frames.match", "NETH-TS-001", "rcv-reflect", "rcv-wwi-limit"),
    ("frames.match", "RCV-WIN-002.a", "rcv-window-edges", "rcv-wwi-limit"),
    ("frames.match", "EETH-ECHO-001", "rcv-endpoint", "rcv-in-order-v4"),
    ("frames.match", "AETH-MSN-001.a", "rcv-in-order-v4", "snd-segmentation"),
    ("link", "RCV-ACK-002.a", "rcv-in-order-v4", "rcv-sack-timer"),
    // SACK triggers, where the timer's SACK would be late; the timer itself.
    ("sacks", "RCV-SACK-001.a", "rcv-sack-coalesce", "rcv-in-order-v4"),
    ("sacks", "RCV-SACK-002", "rcv-sack-coalesce", "rcv-sack-timer"),
    ("sacks", "RCV-DUP-001.b", "rcv-duplicate-before-retirement", "rcv-in-order-v4"),
    ("sacks", "EV-PROBE-004", "rcv-probe", "rcv-in-order-v4"),
    ("sacks", "RCV-SACK-001.e", "rcv-duplicate-before-retirement", "rcv-in-order-v4"),
    ("sacks", "RCV-SACK-001.f", "rcv-probe", "rcv-in-order-v4"),
    // An ACK that can carry another QP's MSN: only in a shared domain of two QPs.
    ("frames.match", "RCV-ACK-003.a", "rcv-shared-retirement", "rcv-ack-coalesce"),
    ("sacks", "RCV-SACK-004.b", "rcv-sack-timer", "rcv-in-order-v4"),
    ("sacks", "PETH-RESP-001", "rcv-probe", "rcv-sack-timer"),
    // A receiver's rule for a frame to discard: only where one arrives.
    ("sacks", "ICRC-VERIFY-001.a", "wire-discard-v4", "rcv-in-order-v4"),
    ("placement", "ENC-IPV6-001", "wire-discard-v6", "wire-discard-v4"),
    ("frames.unexpected", "ENC-UDP-001.b", "rcv-lenient", "rcv-in-order-v4"),
    ("frames.unexpected", "RCV-OPC-001", "rcv-lenient", "rcv-in-order-v4"),
    // A receive check's discard rule: only where a write it discards arrives.
    ("placement", "FLAG-LAST-002", "rcv-msn-position", "rcv-in-order-v4"),
    ("placement", "RCV-MSG-001", "rcv-msn-position", "rcv-in-order-v4"),
    ("sacks", "RCV-MSG-002", "rcv-msn-position", "rcv-in-order-v4"),
    ("placement", "RCV-PLACE-002.a", "rcv-placement-errors", "rcv-in-order-v4"),
    ("frames.unexpected", "RCV-QP-001", "rcv-check-order", "rcv-in-order-v4"),
    ("placement", "RCV-QP-002", "rcv-wwi-limit", "rcv-in-order-v4"),
    ("placement", "RCV-SEG-001", "rcv-segment-errors", "rcv-in-order-v4"),
    // The clock: only with two stamps of a QP less than 2^15 ns apart.
    ("schedule.clock", "SND-TS-002.c", "snd-segmentation", "snd-ev-deny"),
    ("schedule.clock", "EV-PROBE-005.f", "snd-ev-probe-skip", "snd-segmentation"),
    // The EV a frame travels on, by the link's IP version.
    ("wire.ev", "ENC-EV-001.a", "snd-dark-path-v6", "snd-segmentation"),
    ("wire.ev", "ENC-EV-002.a", "snd-segmentation", "snd-dark-path-v6"),
    ("wire.ev", "RCV-NACK-001.b", "rcv-window-edges", "snd-segmentation"),
    // Round-trip estimates: only where a skew-aware QP sends, and for the rules of a
    // retransmitted PSN, where it retransmits.
    ("spray", "SND-RTT-002", "snd-spray-skew-aware", "snd-spray-fixed"),
    ("spray", "SND-RTX-006.a", "snd-spray-skew-aware", "snd-spray-fixed"),
    ("spray", "SND-INFER-003.b", "snd-spray-skew-aware", "snd-spray-fixed"),
    // A SACK's bits for PSNs before snd_una: only where one is injected.
    ("frames.unexpected", "SND-SACK-002.b", "snd-window-initial", "snd-window"),
];

#[test]
fn each_predicate_tells_a_scenario_that_can_show_a_breach_from_one_that_cannot() {
    for &(row, id, yes, no) in CASES {
        let check = CHECKS.iter().find(|c| c.name == row).expect("the row exists");
        let (y, n) = (scenario(yes), scenario(no));
        assert!(check.exercised_by(&y) && check.exercised_by(&n), "{row}: {yes} and {no}");
        assert!(shows_in(row, id, &y), "{yes} can show a breach of {id}");
        assert!(!shows_in(row, id, &n), "{no} cannot show a breach of {id}");
        assert!(covered_by(&y).contains(&clause(id)), "{yes} covers {id}");
    }
}

/// Design 9.2: a SACK or ACK owed at once and not sent is hidden by the one the timer
/// sends when that lands within `late_ns`; the same scenario with a short `sack_delay`
/// cannot show the breach.
#[test]
fn a_rule_hidden_by_the_sack_timer_is_not_covered() {
    for (name, row, id) in [
        ("rcv-sack-coalesce", "sacks", "RCV-SACK-001.a"),
        ("rcv-sack-coalesce", "sacks", "RCV-SACK-002"),
        ("rcv-ack-coalesce", "frames.match", "RCV-ACK-001.a"),
    ] {
        let mut s = scenario(name);
        assert!(shows_in(row, id, &s), "{name} shows {id}");
        let late = s.manifest.tolerances.late_ns;
        s.manifest.nic.sack_delay = Duration::from_nanos(late);
        assert!(!shows_in(row, id, &s), "{name} with sack_delay = late_ns hides {id}");
        assert!(!covered_by(&s).contains(&clause(id)), "{name}: {id} still covered");
    }
}

/// The frame-matching row no longer covers its window and SACK clauses wherever a frame
/// is expected.
#[test]
fn the_window_clause_is_covered_only_where_the_window_fills() {
    let all: Vec<_> = corpus::all().into_iter().map(|(_, b)| b()).collect();
    let wwi = clause("WWI-LIMIT-001");
    let with: Vec<&str> = all
        .iter()
        .filter(|s| covered_by(s).contains(&wwi))
        .map(|s| s.manifest.name.as_str())
        .collect();
    assert_eq!(with, ["snd-wwi-limit"]);
}

/// What coverage counts no longer, row by row, over the corpus: the honest worklist.
#[test]
#[ignore = "a tool: prints the clauses each row names that no scenario can show"]
fn print_clauses_no_scenario_can_show() {
    let all: Vec<_> = corpus::all().into_iter().map(|(_, b)| b()).collect();
    let mut hidden: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut shown = std::collections::BTreeSet::new();
    for s in &all {
        shown.extend(covered_by(s));
        for (row, x) in hidden_in(s) {
            *hidden.entry((row, x.id())).or_default() += 1;
        }
    }
    for ((row, id), n) in hidden {
        if !shown.contains(&clause(id)) {
            println!("{row} {id}: hidden in {n} scenarios, shown in none");
        }
    }
}
