//! The judge never panics on what a device sends. Each scenario's reference outputs are
//! changed many ways (times out of order, near 0 and near the top of the clock; outputs
//! duplicated and dropped; frames flipped, cut and extended; DMA writes empty or at the top
//! of the address space; completions, flags and reports with every field at 0 or at its
//! maximum; events of QPs that do not exist) and judged as the suite judges a run. Judging
//! must return; a list changed in a way the judge must see must not pass.
//!
//! The changes come from a seeded generator, so every run judges the same lists.

use openrdma_corpus as corpus;
use openrdma_testkit::fuzzing::{Reference, judge_changed};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// Changed lists judged per scenario.
const PER_SCENARIO: usize = 4;

#[test]
fn judging_changed_outputs_never_panics() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x0BAD_0D0E);
    let mut judged = 0;
    let mut failed = Vec::new();
    // Lists changed in a way the judge must see: each failed.
    let mut seen = 0;
    for (name, build) in corpus::all() {
        let r = Reference::of(build());
        assert!(r.run.error.is_none(), "{name}: {:?}", r.run.error);
        for _ in 0..PER_SCENARIO {
            let mut data = vec![0u8; 96];
            rng.fill_bytes(&mut data);
            match std::panic::catch_unwind(|| judge_changed(&r, &data)) {
                Ok(must_fail) => seen += usize::from(must_fail),
                Err(e) => {
                    let what = e.downcast_ref::<String>().cloned().unwrap_or_default();
                    failed.push(format!("{name} {data:02x?}: {what}"));
                }
            }
            judged += 1;
        }
    }
    assert!(failed.is_empty(), "{} of {judged} lists:\n{}", failed.len(), failed.join("\n"));
    assert!(judged >= 500, "only {judged} lists judged");
    assert!(seen >= 15, "only {seen} lists the judge must fail");
}
