//! The EV of an `EvMarked` or `ProbeAnswered` report, held to the SACK it answers
//! (CONF-CMP-128). Those reports are compared with the recording keyed by QP and mark
//! only (CONF-CMP-020.c), but their EV is no choice of the device: it is the `entropy`
//! of the SACK that made them (REC-IF-005, REC-IF-007). So each such report must carry
//! the `entropy` of a SACK into its QP with its step (`pr` and mark) that came at most
//! `late_ns` before it. A report no such SACK explains is left to the comparison.

use openrdma_device::{EvMark, NicEvent, NicReport};

use super::obs::Kind;
use super::reports::Reports;
use super::{Divergence, render_event};
use crate::req::{Clause, REC_IF_005, REC_IF_007};

/// Judges the EV of every `EvMarked` and `ProbeAnswered` report against the SACKs into
/// its QP that may have made it.
pub(super) fn judge_mark_ev(r: &Reports<'_, '_>, div: &mut Vec<Divergence>) {
    for &(t, e) in r.obs {
        let (qpn, ev, mark, probe) = match e {
            NicEvent::Report(NicReport::EvMarked { qpn, ev, mark }) => (qpn, ev, mark, false),
            NicEvent::Report(NicReport::ProbeAnswered { qpn, ev, mark }) => (qpn, ev, mark, true),
            _ => continue,
        };
        let q = qpn.value();
        let from = t.saturating_sub(r.late);
        let entropies: Vec<u32> = r
            .inputs
            .iter()
            .filter(|i| (from..=t).contains(&i.at))
            .filter_map(|i| {
                let f = i.frame.as_ref()?;
                let Kind::Sack { qp, .. } = f.kind else { return None };
                let s = f.d.ext.seth?;
                (qp == q && s.pr == probe && EvMark::from_bits(s.m.0) == *mark)
                    .then_some(s.entropy.value())
            })
            .collect();
        if entropies.is_empty() || entropies.contains(&ev.value()) {
            continue;
        }
        let (clause, name): (Clause, &str) =
            if probe { (REC_IF_007, "a ProbeAnswered") } else { (REC_IF_005, "an EvMarked") };
        let carried: Vec<String> = entropies.iter().map(|v| format!("{v:#010x}")).collect();
        div.push(Divergence {
            actual: Some(render_event(e)),
            ..Divergence::of(
                t,
                clause,
                format!(
                    "{name} of QP {q} for EV {:#010x}, where the SACKs into QP {q} with that \
                     mark in the last {} ns carry entropy {}: the report's EV is not the \
                     SACK's",
                    ev.value(),
                    r.late,
                    carried.join(", ")
                ),
            )
        });
    }
}
