//! Manifests claim only what the corpus can show: every requirement a scenario's manifest
//! names has a clause that some scenario of the corpus can show a breach of
//! (`judge::discriminates`).

use std::collections::BTreeSet;

use openrdma_conformance::judge::table::covered_by;
use openrdma_corpus as corpus;

#[test]
fn manifests_claim_only_what_some_scenario_can_show() {
    let scenarios: Vec<_> = corpus::all().into_iter().map(|(_, build)| build()).collect();
    let mut shown: BTreeSet<String> = BTreeSet::new();
    for s in &scenarios {
        for c in covered_by(s) {
            shown.insert(c.id().to_string());
            shown.insert(c.requirement().to_string());
        }
    }
    let mut claimed: BTreeSet<String> = BTreeSet::new();
    for s in &scenarios {
        for id in &s.manifest.requirements {
            if !shown.contains(id) {
                claimed.insert(format!("{id} ({})", s.manifest.name));
            }
        }
    }
    let ids: BTreeSet<&str> = claimed.iter().map(|x| x.split(' ').next().unwrap()).collect();
    assert!(ids.is_empty(), "{} IDs manifests claim that no scenario can show: {ids:?}", ids.len());
}
