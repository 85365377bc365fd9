//! The conflict tool (`spec/conformance.md`, CONF-CMP-037): no field of a kind of frame is
//! judged by two rules of different strengths.
//!
//! A MUST on a field that another rule holds as a SHOULD is weakened, or the SHOULD is
//! made a MUST, depending on which check runs first: the specification says two things.
//! From the judge's field table and the checks of every frame (`scoreboard::fields`), the
//! test groups the rules by (kind of frame, field) and fails on a group holding a MUST and a
//! SHOULD, unless the pair is in `DISJOINT`, a reviewed list of rules that judge different
//! aspects of one field. It fails too on a `DISJOINT` entry that no longer conflicts, so
//! that the list stays true.

use std::collections::BTreeMap;

use openrdma_conformance::req::*;
use openrdma_conformance::requirements::Level;
use openrdma_conformance::scoreboard::fields::{ELSEWHERE, ROWS, Row};

/// Pairs of rules that judge one field at different strengths, each with why they do not
/// conflict: they judge different values of it.
const DISJOINT: &[(Clause, Clause, &str)] = &[];

/// The kinds of frame, by bit, as the table names them.
const KINDS: [&str; 9] =
    ["data", "rtx", "sack", "nack", "ack", "nak", "probe", "ep-request", "ep-response"];

fn strength(c: Clause) -> &'static str {
    match c.level() {
        Level::Must => "MUST",
        _ => "SHOULD",
    }
}

/// The conflicts of a set of rows: (kind, field, the rules of both strengths).
fn conflicts(rows: &[Row]) -> Vec<(&'static str, &'static str, Clause, Clause)> {
    let mut by_field: BTreeMap<(usize, &'static str), Vec<Clause>> = BTreeMap::new();
    for r in rows {
        for (bit, _) in KINDS.iter().enumerate().filter(|(b, _)| r.kinds & (1 << b) != 0) {
            let rules = by_field.entry((bit, r.field)).or_default();
            if !rules.contains(&r.rule) {
                rules.push(r.rule);
            }
        }
    }
    let mut out = Vec::new();
    for ((bit, field), rules) in by_field {
        for (i, a) in rules.iter().enumerate() {
            for b in &rules[i + 1..] {
                if strength(*a) != strength(*b) {
                    out.push((KINDS[bit], field, *a, *b));
                }
            }
        }
    }
    out
}

/// Pairs of a rule of one role that holds a field of its frames as a MUST and the header's
/// own rule that asks every sender for it with a SHOULD: the role's rule, the more specific,
/// wins (CONF-CMP-119), and the judge names it. (role's MUST, header's SHOULD.)
const SPECIFIC: &[(Clause, Clause)] = &[
    (RCV_SACK_005_H, SETH_TYPE_001_A),
    (RCV_SACK_005_H, SETH_PDC_001_A),
    (RCV_SACK_005_H, SETH_CC_001_A),
];

/// The header's own SHOULD rules on the fields of a SACK, which the judge's table leaves
/// out because a rule of the responder holds the same fields as a MUST.
const HEADER_SHOULDS: &[Row] = &[
    Row { kinds: SACK, field: "seth.res_type", rule: SETH_TYPE_001_A },
    Row { kinds: SACK, field: "seth.next_header", rule: SETH_TYPE_001_A },
    Row { kinds: SACK, field: "seth.spdcid", rule: SETH_PDC_001_A },
    Row { kinds: SACK, field: "seth.dpdcid", rule: SETH_PDC_001_A },
    Row { kinds: SACK, field: "seth.cc_type", rule: SETH_CC_001_A },
    Row { kinds: SACK, field: "seth.cc_flags", rule: SETH_CC_001_A },
];

/// A SACK, by its bit in [`KINDS`].
const SACK: u16 = 1 << 2;

fn listed(a: Clause, b: Clause) -> bool {
    DISJOINT.iter().any(|&(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a))
}

#[test]
fn no_field_is_judged_at_two_strengths() {
    let rows: Vec<Row> = ROWS.iter().chain(ELSEWHERE).copied().collect();
    let found = conflicts(&rows);
    let unreviewed: Vec<String> = found
        .iter()
        .filter(|(_, _, a, b)| !listed(*a, *b))
        .map(|(kind, field, a, b)| {
            format!("{kind} {field}: {a} ({}) and {b} ({})", strength(*a), strength(*b))
        })
        .collect();
    assert!(unreviewed.is_empty(), "fields judged at two strengths: {unreviewed:#?}");
    for &(a, b, why) in DISJOINT {
        assert!(
            found.iter().any(|&(_, _, x, y)| (x, y) == (a, b) || (x, y) == (b, a)),
            "{a} and {b} ({why}) no longer judge one field: remove them from DISJOINT"
        );
    }
}

/// With the header's own SHOULDs added, the tool finds exactly the pairs of [`SPECIFIC`],
/// each a role's MUST over a header's SHOULD, and the judge's table names the MUST only.
#[test]
fn the_more_specific_rule_wins_and_the_tool_knows_it() {
    let rows: Vec<Row> = ROWS.iter().chain(ELSEWHERE).chain(HEADER_SHOULDS).copied().collect();
    let found = conflicts(&rows);
    let specific = |a: Clause, b: Clause| SPECIFIC.iter().any(|&p| p == (a, b) || p == (b, a));
    let unresolved: Vec<String> = found
        .iter()
        .filter(|(_, _, a, b)| !listed(*a, *b) && !specific(*a, *b))
        .map(|(kind, field, a, b)| format!("{kind} {field}: {a} and {b}"))
        .collect();
    assert!(unresolved.is_empty(), "fields judged at two strengths: {unresolved:#?}");
    for &(role, header) in SPECIFIC {
        assert_eq!(role.level(), Level::Must, "{role}");
        assert_eq!(header.level(), Level::Should, "{header}");
        assert!(
            found.iter().any(|&(_, _, x, y)| (x, y) == (role, header) || (x, y) == (header, role)),
            "{role} and {header} no longer judge one field: remove them from SPECIFIC"
        );
        let judged = ROWS.iter().chain(ELSEWHERE);
        assert!(judged.clone().all(|r| r.rule != header), "the judge names {header}");
        assert!(judged.clone().any(|r| r.rule == role), "the judge never names {role}");
    }
}

/// The tool finds the conflict the specification had before OPC-PSN-002: a probe's BTH PSN
/// held as a MUST by EV-PROBE-005 and as a SHOULD by OPC-PSN-001.
#[test]
fn the_tool_finds_a_must_weakened_by_a_should() {
    let probe = 1 << 6;
    let rows = [
        Row { kinds: probe, field: "bth.psn", rule: EV_PROBE_005_D },
        Row { kinds: probe, field: "bth.psn", rule: OPC_PSN_002_B },
        Row { kinds: probe, field: "peth.probe_id", rule: EV_PROBE_005_E },
    ];
    let found = conflicts(&rows);
    assert_eq!(found, [("probe", "bth.psn", EV_PROBE_005_D, OPC_PSN_002_B)]);
}

/// Every rule of the table is a leaf clause in force that binds the device.
#[test]
fn every_rule_is_a_leaf_clause_in_force() {
    for r in ROWS.iter().chain(ELSEWHERE) {
        assert!(r.rule.is_leaf(), "{} names {}, a line with clauses", r.field, r.rule);
        assert_ne!(r.rule.level(), Level::Withdrawn, "{} names {}", r.field, r.rule);
    }
}
