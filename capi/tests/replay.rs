//! The golden model reproduces every scenario of the corpus exactly: fed a scenario's
//! inject records one by one, it produces the scenario's expect records, in order, at
//! their times, byte for byte, and nothing else but the reports a scenario leaves out. (The conformance suite's scoreboard is more lenient with
//! other devices; the golden model is the device the scenarios were recorded from.)

mod common;

use common::{check_replay, expected_outputs, pop_all, scenarios};
use openrdma::{Model, Status};

#[test]
fn every_scenario_replays_exactly() {
    let all = scenarios();
    assert!(all.len() >= 40, "the corpus has {} scenarios", all.len());
    for (name, s) in &all {
        let mut refused = 0;
        let mut m = Model::new(s.manifest.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        for r in s.injects() {
            // Some scenarios give commands the model must refuse (a template for a
            // reserved QP): refused, without effect, and the replay goes on.
            match m.push(common::input_of(r)) {
                Ok(()) => {}
                Err(e) if e.status == Status::Refused => refused += 1,
                Err(e) => panic!("{name}: {e}"),
            }
        }
        let end = s.records.last().map_or(0, |r| r.at.0);
        m.advance(end).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = expected_outputs(s);
        assert!(!expected.is_empty(), "{name}: nothing expected");
        check_replay(name, &pop_all(&mut m), &expected);
        if *name == "db-bad-templates" {
            assert!(refused > 0, "{name}: the bad templates are refused");
        }
    }
}
