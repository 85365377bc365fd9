//! The state machines' transition tables, as data, snapshot-tested: a change to a table
//! shows up as a reviewed diff of `golden/sm/*.snap`.

use openrdma_sm::ev::{EvEvent, EvState, TRANSITIONS, next_state};

fn render() -> String {
    let mut out = String::from("| requirement | from | event | to |\n|---|---|---|---|\n");
    for t in TRANSITIONS {
        out.push_str(&format!(
            "| {} | {:?} | {:?} | {:?} |\n",
            t.requirement, t.from, t.event, t.to
        ));
    }
    // The full matrix, so that "no transition" is pinned too.
    let states = [EvState::Good, EvState::Skip, EvState::AssumedBad, EvState::Denied];
    let events = [
        EvEvent::SackSkipOnce,
        EvEvent::SackAlwaysSkip,
        EvEvent::NackTrimmed,
        EvEvent::SkipExpired,
        EvEvent::Timeout,
        EvEvent::ProbeGood,
        EvEvent::ProbeSkip,
        EvEvent::Deny,
        EvEvent::Allow,
    ];
    out.push_str("\nstate \\ event");
    for e in events {
        out.push_str(&format!(" | {e:?}"));
    }
    out.push('\n');
    for s in states {
        out.push_str(&format!("{s:?}"));
        for e in events {
            out.push_str(&match next_state(s, e) {
                Some(to) => format!(" | {to:?}"),
                None => " | -".to_string(),
            });
        }
        out.push('\n');
    }
    out
}

#[test]
fn ev_transition_table() {
    insta::with_settings!({ snapshot_path => "../../golden/sm", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("ev_transitions", render());
    });
}
