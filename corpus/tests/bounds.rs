//! The bounds of the judge's windows, read exactly as the rules give them: a device that
//! gives an output at the very bound passes, one a nanosecond past it fails. Each test
//! changes a passing run of the reference device in one way and judges it again.

mod common;

use common::*;
use openrdma_codec::frame::decode;
use openrdma_conformance::scoreboard::judge;
use openrdma_device::{Input, NicEvent, NicReport, Output, Scenario, TimedOutput, Timestamp};

/// The index of the last `Progress` of a run, and the arrival time of the latest SACK into
/// its QP by then that moved `snd_una` to the report's value.
fn last_progress_and_its_sack(
    s: &Scenario,
    out: &openrdma_conformance::runner::RunOutcome,
) -> (usize, u64) {
    let (k, qpn, una) = out
        .observed
        .iter()
        .enumerate()
        .rev()
        .find_map(|(k, o)| match &o.output {
            Output::Event { event: NicEvent::Report(NicReport::Progress { qpn, snd_una, .. }) } => {
                Some((k, qpn.value(), *snd_una))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("{}: no Progress", s.manifest.name));
    let at = out.observed[k].at.0;
    let sack = out
        .injected
        .iter()
        .filter(|i| i.at.0 <= at)
        .filter_map(|i| match &i.input {
            Input::Frame { bytes, .. } => {
                let d = decode(bytes);
                let moved = d.bth.is_some_and(|b| b.dest_qp.value() == qpn)
                    && d.ext.seth.is_some_and(|x| x.cack_psn.add(1) == una);
                moved.then_some(i.at.0)
            }
            _ => None,
        })
        .next_back()
        .unwrap_or_else(|| panic!("{}: no SACK made the last Progress", s.manifest.name));
    (k, sack)
}

/// The outputs with output `k` given at `at`, in time order.
fn moved_to(observed: &[TimedOutput], k: usize, at: u64) -> Vec<TimedOutput> {
    let mut o = observed.to_vec();
    o[k].at = Timestamp(at);
    o.sort_by_key(|x| x.at);
    o
}

/// CONF-CMP-100 and CONF-CMP-051 bound a `Progress` by `late_ns` after the SACK it answers:
/// the report and the SACK's frames may each be `late_ns / 2` late (CONF-TIME-004). The
/// bound is `late_ns` itself, not twice `late_ns / 2`, which is 1 ns short when `late_ns`
/// is odd: a report at the very bound passes, one a nanosecond later is missing.
#[test]
fn a_progress_may_come_late_ns_after_its_sack_when_late_ns_is_odd() {
    let mut s = scenario("snd-single-loss");
    let out = reference_run(&s);
    s.manifest.tolerances.late_ns |= 1;
    let late = s.manifest.tolerances.late_ns;
    assert_eq!(judge(&s, &out.injected, &out.observed).divergences, vec![], "as it ran");
    let (k, sack) = last_progress_and_its_sack(&s, &out);
    let at_bound = moved_to(&out.observed, k, sack + late);
    assert_eq!(judge(&s, &out.injected, &at_bound).divergences, vec![], "at sack + late_ns");
    let past = moved_to(&out.observed, k, sack + late + 1);
    let d = judge(&s, &out.injected, &past).divergences;
    assert!(d.iter().any(|x| x.requirement == "REC-IF-002"), "past the bound: {d:?}");
}

/// CONF-CMP-045.c holds a SACK to claim only the PSNs received more than `late_ns` before
/// it. In `rcv-sack-bitmap-high` PSN 40 arrives exactly `late_ns` before the SACK of PSN 0:
/// a SACK builder whose bitmap lags `late_ns` behind may leave it out, and its counters,
/// read live, lie within the range CONF-CMP-045.i gives.
#[test]
fn a_sack_may_leave_out_a_psn_received_exactly_late_ns_before() {
    use openrdma_conformance::runner::run;
    use openrdma_conformance::scoreboard::Scope;
    use openrdma_corpus::faults::{Mutant, by_cli_name};
    use openrdma_device::Device;
    let s = scenario("rcv-sack-bitmap-high");
    let lag = by_cli_name("variant:sack-bitmap-lag").expect("registered");
    let mut dev = Mutant::new(lag);
    let caps = dev.capabilities();
    let out = run(&mut dev, &s, openrdma_sm::reference_cpu_half);
    let reference = reference_run(&s);
    assert_ne!(out.observed, reference.observed, "the variant leaves a bit out");
    assert_eq!(out.judge(&s, Scope::of(&caps)).divergences, vec![]);
}
