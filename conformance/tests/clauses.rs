//! Every requirement line states one rule, or marks its clauses (spec/README.md, "How a
//! requirement is written").
//!
//! The reader of the specification already rejects an unmarked line whose key words are of
//! different levels. A line with several key words of one level may state several rules
//! too: such a line is marked, or listed in [`ONE_RULE`], reviewed, with the reason it is
//! one rule. A line that checks judge apart is marked whatever its key words.

use openrdma_conformance::requirements::{Level, Spec, keywords};

/// Unmarked lines with several key words that state one rule, each with why.
const ONE_RULE: &[(&str, &str)] = &[
    ("BTH-RESV-003", "the reserved bits of byte 8, which validate() reports under one ID"),
    ("CCS-TS-001", "the one value of `tx_timestamp`, in its two cases"),
    ("CQE-OPCODE-001", "the one value of `opcode`, with its exception"),
    ("DB-SEQ-001", "a template's expected sequence number, judged by the tokens accepted"),
    ("DEC-ERR-001", "what one decode error says"),
    ("DEC-STRUCT-001", "how far a decoder goes: what it decodes and where it stops"),
    ("ENC-ETH-002", "the group bit of `eth.src` is what makes it an individual address"),
    ("ENC-IPV6-001", "`next_header` 17 is what excludes extension headers"),
    ("METH-MSN-001", "the one value of `msn` each packet carries, judged as one field"),
    ("ORD-PCIE-001", "one rule with its alternative"),
    ("PAY-LEN-002", "the payload sizes of one segmentation"),
    ("RETH-VA-001", "the range below 2^64, stated twice"),
    ("SND-INFER-001", "two steps of one inference, judged by the retransmissions they cause"),
    ("TPL-INSTALL-002", "a change takes effect between tokens, stated twice"),
    ("TPL-KEY-001", "the check at installation and its refusal"),
    ("TSETH-PRESENT-001", "where the TSETH is when it is present"),
    ("CONF-CMP-036", "timestamps do not run backwards, with the measure of it"),
    ("CONF-DEV-003", "time moves forward, for batches and for inputs"),
    ("CONF-GEN-001", "determinism, with the test that shows it"),
    ("CONF-RUN-006", "no CPU half played means no CPU command injected"),
];

#[test]
fn clauses_are_single_rules() {
    let spec = Spec::bundled().expect("the specification parses");
    let mut problems = Vec::new();
    for r in spec.iter().filter(|r| r.level != Level::Withdrawn && r.parts.is_empty()) {
        let levels = keywords(&r.text);
        let mut distinct = levels.clone();
        distinct.dedup();
        if distinct.len() > 1 {
            problems.push(format!("{}: key words of several levels, unmarked", r.id));
        }
        let listed = ONE_RULE.iter().any(|(id, _)| *id == r.id);
        if levels.len() >= 2 && !listed {
            problems.push(format!(
                "{} ({}:{}): {} key words; mark its clauses or list it in ONE_RULE with why",
                r.id,
                r.chapter,
                r.line,
                levels.len()
            ));
        }
    }
    for (id, why) in ONE_RULE {
        match spec.get(id) {
            None => problems.push(format!("ONE_RULE lists {id}, which is not defined")),
            Some(r) if !r.parts.is_empty() => {
                problems.push(format!("ONE_RULE lists {id}, which is marked"));
            }
            Some(r) if keywords(&r.text).len() < 2 => {
                problems.push(format!("ONE_RULE lists {id}, which has one key word"));
            }
            Some(_) if why.trim().is_empty() => problems.push(format!("{id}: no reason")),
            Some(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_clause_has_its_own_level_and_a_text() {
    let spec = Spec::bundled().expect("the specification parses");
    for r in spec.iter().filter(|r| r.level != Level::Withdrawn) {
        for p in &r.parts {
            assert!(!p.text.is_empty(), "{}.{}", r.id, p.letter);
            let own = keywords(&p.text);
            assert!(own.iter().all(|l| *l == p.level), "{}.{}", r.id, p.letter);
        }
        if let Some(strongest) = r.parts.iter().map(|p| p.level).min() {
            assert_eq!(r.level, strongest, "{}: a line's level is its strongest clause's", r.id);
        }
    }
}
