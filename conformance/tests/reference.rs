//! The reference model passes every scenario of the corpus, as recorded.

use openrdma_conformance::corpus;
use openrdma_conformance::reference::ReferenceDevice;
use openrdma_conformance::runner::run;
use openrdma_conformance::scoreboard::judge;

#[test]
fn reference_passes_the_corpus() {
    for (name, build) in corpus::all() {
        let s = build();
        assert!(
            s.records.iter().any(|r| r.dir == openrdma_conformance::scenario::Direction::Expect),
            "{name}: nothing expected"
        );
        let mut dev = ReferenceDevice::new();
        let out = run(&mut dev, &s);
        assert!(out.error.is_none(), "{name}: {:?}", out.error);
        let j = judge(&s, &out.injected, &out.observed);
        assert!(
            j.divergences.is_empty(),
            "{name}: {:#?}",
            &j.divergences[..j.divergences.len().min(3)]
        );
        assert!(j.checked > 0, "{name}");
    }
}

/// The suite proves its power: every faulty device fails at least one scenario, and the
/// failures name the requirement its bug breaks; every legitimate variant passes.
#[test]
fn faulty_devices_are_caught_and_variants_pass() {
    use openrdma_conformance::faulty::{FAULTY, FaultyDevice, VARIANTS};
    let corpus: Vec<_> = corpus::all().into_iter().map(|(n, b)| (n, b())).collect();
    for kind in FAULTY {
        let mut named = Vec::new();
        for (name, s) in &corpus {
            let mut dev = FaultyDevice::new(kind);
            let out = run(&mut dev, s);
            let j = judge(s, &out.injected, &out.observed);
            if let Some(d) = j.divergences.first() {
                named.push((*name, d.requirement.clone()));
            }
        }
        assert!(!named.is_empty(), "faulty:{} passed every scenario", kind.name);
        assert!(
            named.iter().any(|(_, r)| r == kind.breaks),
            "faulty:{} was caught, but never for {}: {named:?}",
            kind.name,
            kind.breaks
        );
    }
    for kind in VARIANTS {
        for (name, s) in &corpus {
            let mut dev = FaultyDevice::new(kind);
            let out = run(&mut dev, s);
            let j = judge(s, &out.injected, &out.observed);
            assert!(
                j.divergences.is_empty(),
                "variant:{} fails {name}: {:#?}",
                kind.name,
                &j.divergences[..j.divergences.len().min(2)]
            );
        }
    }
}
