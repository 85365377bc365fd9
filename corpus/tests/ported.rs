//! The registry's port of the faulty devices behaves exactly as they did: the same outputs
//! on every scenario of the corpus.

use openrdma_conformance::runner::run;
use openrdma_corpus::{faults, faulty};
use openrdma_device::Device;
use openrdma_sm::reference_cpu_half;

#[test]
fn every_ported_device_gives_the_same_outputs() {
    let corpus: Vec<_> = openrdma_corpus::all().into_iter().map(|(_, b)| b()).collect();
    for kind in faulty::FAULTY.iter().chain(faulty::VARIANTS) {
        let entry = faults::find(kind.name).expect("ported");
        let mut old = faulty::FaultyDevice::new(kind);
        let mut new = faults::Mutant::new(entry);
        assert_eq!(old.name(), new.name());
        assert_eq!(old.capabilities(), new.capabilities(), "{}", kind.name);
        assert_eq!(kind.description, entry.what, "{}", kind.name);
        for s in &corpus {
            let a = run(&mut old, s, reference_cpu_half);
            let b = run(&mut new, s, reference_cpu_half);
            assert_eq!(a.error, b.error, "{} / {}", kind.name, s.manifest.name);
            assert_eq!(a.observed, b.observed, "{} / {}", kind.name, s.manifest.name);
            assert_eq!(a.injected, b.injected, "{} / {}", kind.name, s.manifest.name);
        }
    }
}
