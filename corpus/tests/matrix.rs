//! The requirement matrix, `spec/matrix.md`, is generated from the specification, the
//! scenario corpus and the sources, and must be up to date: this test regenerates it and
//! compares. Run with `OPENRDMA_BLESS=1` to write the regenerated matrix instead.
//!
//! It also fails on an ID cited anywhere in the sources that the specification does not
//! define (spec/README.md, "Citing requirements from code and tests"); IDs of the example
//! area `XX` are exempt.

use std::path::Path;

use openrdma_conformance::requirements::Spec;
use openrdma_corpus as corpus;
use openrdma_corpus::matrix::{Matrix, read_sources};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the crate lives in the repository")
}

#[test]
fn the_requirement_matrix_is_up_to_date() {
    let spec = Spec::load(&root().join("spec")).expect("the specification parses");
    assert!(spec.len() > 100, "only {} requirements found", spec.len());
    let scenarios: Vec<_> = corpus::all().into_iter().map(|(_, build)| build()).collect();
    let sources = read_sources(root()).expect("the sources can be read");
    let matrix = Matrix::build(&spec, &scenarios, &sources);
    let undefined: Vec<String> =
        matrix.undefined.iter().map(|u| format!("{} at {}", u.id, u.at)).collect();
    assert!(
        undefined.is_empty(),
        "IDs cited but not defined by the specification:\n{}",
        undefined.join("\n")
    );

    // The proof of power: each fault on the scenarios that must catch it.
    let faults: Vec<_> =
        corpus::faults::all().filter(|f| f.class == corpus::faults::Class::Fault).collect();
    let proofs = corpus::faults::prove(&faults, &scenarios, &spec, 2);
    let rendered = matrix.render(&spec) + &corpus::matrix::power_section(&proofs, &spec);
    let path = root().join("spec/matrix.md");
    if std::env::var_os("OPENRDMA_BLESS").is_some() {
        std::fs::write(&path, &rendered).expect("spec/matrix.md can be written");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == rendered,
        "spec/matrix.md is out of date: regenerate it with \
         `OPENRDMA_BLESS=1 cargo test -p openrdma-corpus --test matrix`"
    );
}
