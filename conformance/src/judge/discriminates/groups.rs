//! The groups of expected outputs that show clock and send-order rules: which of them a
//! scenario can hold a device to.

use std::collections::{BTreeSet, HashMap};

use openrdma_device::{Body, CpuCommand, Direction, Record, Scenario};

use super::super::obs::{Frame, Kind};
use super::CLOCK_SPAN_NS;
use crate::req::*;

/// The clock rules a scenario can show: a stamped data packet (SND-TS-002.c) or probe
/// (EV-PROBE-005.f) expected less than 2^15 ns after another stamp of its QP, so that
/// `schedule::judge_clock` compares the two; and the rate of the clock (SND-TS-003), where
/// a run of three such stamps spans more than `slack`, so that `rate::judge_rate` has a
/// unit to learn and a stamp to hold to it.
pub(super) fn clock_pairs(exp: &[(&Record, Frame<'_>)], slack: u64) -> BTreeSet<Clause> {
    let mut out = BTreeSet::new();
    let mut last: HashMap<u32, u64> = HashMap::new();
    // Each QP's run: its first stamp's time and its length.
    let mut runs: HashMap<u32, (u64, usize)> = HashMap::new();
    let mut stamped: Vec<(u64, u32, Clause)> = exp
        .iter()
        .filter_map(|(r, f)| match (&f.kind, f.d.ext.tseth, f.d.ext.peth) {
            (&Kind::Data { qp, .. }, Some(_), _) => Some((r.at.0, qp, SND_TS_002_C)),
            (&Kind::Probe { qp }, _, Some(_)) => Some((r.at.0, qp, EV_PROBE_005_F)),
            _ => None,
        })
        .collect();
    stamped.sort_by_key(|(at, ..)| *at);
    for (at, qp, clause) in stamped {
        let linked = last.get(&qp).is_some_and(|&t| at - t < CLOCK_SPAN_NS);
        if linked {
            out.insert(clause);
        }
        let run = runs.entry(qp).or_insert((at, 0));
        if !linked {
            *run = (at, 0);
        }
        run.1 += 1;
        if run.1 >= 3 && at - run.0 > slack {
            out.extend([SND_TS_003_A, SND_TS_003_B]);
        }
        last.insert(qp, at);
    }
    out
}

/// The send-order rules `schedule::judge_order` can hold a device to in `s`: those of two
/// packets of one QP (data or probes) that the reference sent in one group, at one time in
/// answer to one input.
pub(super) fn order_groups(s: &Scenario, exp: &[(&Record, Frame<'_>)]) -> BTreeSet<Clause> {
    let mut group_of: HashMap<*const Record, usize> = HashMap::new();
    let (mut group, mut last_at) = (0usize, None);
    for r in &s.records {
        if r.dir == Direction::Inject || last_at != Some(r.at) {
            group += 1;
        }
        last_at = Some(r.at);
        if r.dir == Direction::Expect {
            group_of.insert(r as *const Record, group);
        }
    }
    let mut last: HashMap<(usize, u32), &Frame<'_>> = HashMap::new();
    let mut out = BTreeSet::new();
    // A probe a command asked for, followed by a data packet of its QP
    // (`schedule::judge_commanded_probes`).
    let late = s.manifest.tolerances.late_ns;
    let peers = super::super::peer_map(s);
    let commanded = |qp: u32, at: u64| {
        s.injects().any(|r| {
            r.at.0 <= at
                && r.at.0.saturating_add(late) >= at
                && matches!(&r.body, Body::Cpu { command: CpuCommand::Probe { qpn, .. } }
                    if peers.get(&qp) == Some(&qpn.value()))
        })
    };
    for (k, (r, f)) in exp.iter().enumerate() {
        let Kind::Probe { qp } = f.kind else { continue };
        if commanded(qp, r.at.0)
            && exp[k + 1..]
                .iter()
                .any(|(_, g)| matches!(g.kind, Kind::Data { qp: q, .. } if q == qp))
        {
            out.insert(REC_IF_011);
        }
    }
    for (r, f) in exp {
        let (Kind::Data { qp, .. } | Kind::Probe { qp }) = f.kind else { continue };
        let g = group_of.get(&(*r as *const Record)).copied().unwrap_or(0);
        if let Some(prev) = last.insert((g, qp), f) {
            out.insert(super::super::schedule::order_requirement(prev, f));
        }
    }
    out
}
