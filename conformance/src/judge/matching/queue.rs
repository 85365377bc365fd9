//! The retransmissions the queue's own rules make due: the delayed entry of a window or
//! resource NACK (SND-NACK-004.a, CONF-CMP-108), and an entry a trim queued while no EV
//! of the QP was usable (SND-SCHED-003.e, CONF-CMP-109).

use std::collections::HashMap;

use openrdma_codec::Ev;
use openrdma_device::{Body, CpuCommand, EvState, HostCommand, Record, Scenario};

use super::kinds::nack_cause;
use super::{Cause, Fed, Frame, Kind, When};
use crate::judge::fields::Rule;
use crate::req::*;

/// The rule of the queue that makes the retransmission of `psn` of peer QP `qp` due at
/// `at`, if one does, with a cause to try before it. The delayed entry of a window or
/// resource NACK, due when the NACK's back-off ended, which a later reason to retransmit
/// the PSN found queued (SND-RTX-005), is named SND-NACK-004.a. An entry a trim queued
/// while no EV was usable is named SND-SCHED-003.e when the device sent new packets of
/// the QP by its time, so an EV was usable to it; else the EV did not come back
/// (EV-SKIP-002).
pub(super) fn queue_cause(
    s: &Scenario,
    fed: &[Fed<'_>],
    earlier: &[(&Record, Frame<'_>)],
    local: Option<u32>,
    qp: u32,
    psn: u32,
    at: u64,
) -> Option<(Rule, Option<Cause>)> {
    if delayed_due(s, fed, earlier, local, qp, psn, at) {
        Some((SND_NACK_004_A, None))
    } else if queued_unusable(s, fed, earlier, local, qp, psn, at) {
        Some((EV_SKIP_002, Some(Cause::new(SND_SCHED_003_E, When::SentNew(qp)))))
    } else {
        None
    }
}

/// Whether the retransmission of `psn` of peer QP `qp` expected at `at` was queued by a
/// NACK TRIMMED into the device QP `local` while no EV of the QP's profile was usable,
/// with no retransmission of the PSN expected, among `earlier`, from the NACK on. An EV
/// is unusable when a trim moved it to SKIP (the EV of the latest transmission of the
/// NACKed PSN, EV-SKIP-001) or a `SetEvState` command set it out of GOOD, and no later
/// command or the end of `skip_hold` brought it back (SND-SCHED-003.e).
fn queued_unusable(
    s: &Scenario,
    fed: &[Fed<'_>],
    earlier: &[(&Record, Frame<'_>)],
    local: Option<u32>,
    qp: u32,
    psn: u32,
    at: u64,
) -> bool {
    let Some(local) = local else { return false };
    let ipv4 = !s.manifest.link.is_ipv6();
    let hold = u64::try_from(s.manifest.nic.skip_hold.as_nanos()).unwrap_or(u64::MAX);
    let Some(profile) = s.records.iter().find_map(|r| match &r.body {
        Body::Host { command: HostCommand::CreateQp(q) } if q.qpn.value() == local => Some(
            q.evs.iter().chain(&q.backup_evs).map(|e| crate::judge::wire_ev(ipv4, *e)).collect(),
        ),
        _ => None,
    }) else {
        return false;
    };
    let profile: Vec<Ev> = profile;
    let trim = |i: &Fed<'_>| {
        let d = i.frame.as_ref()?;
        let n = d.ext.neth.filter(|n| n.reason.is_trim())?;
        (d.bth.map(|b| b.dest_qp.value()) == Some(local)).then_some(n.nack_psn.value())
    };
    // The latest trim of the PSN before it was due, with no retransmission expected since.
    let Some(queued) =
        fed.iter().filter(|i| i.at < at && trim(i) == Some(psn)).map(|i| i.at).next_back()
    else {
        return false;
    };
    if earlier.iter().any(|(r, f)| f.kind == Kind::Data { qp, psn, rtx: true } && r.at.0 >= queued)
    {
        return false;
    }
    // The state of each EV when the PSN was queued, as the inputs up to then set it.
    let mut states: HashMap<Ev, (EvState, u64)> = HashMap::new();
    for i in fed.iter().filter(|i| i.at <= queued) {
        if let Some(p) = trim(i) {
            let sent = earlier.iter().rev().find(|(r, f)| {
                r.at.0 <= i.at
                    && matches!(f.kind, Kind::Data { qp: q, psn: x, .. } if q == qp && x == p)
            });
            if let Some((_, f)) = sent {
                states.insert(f.ev, (EvState::Skip, i.at));
            }
        }
        if let Some(CpuCommand::SetEvState { qpn, ev, state }) = i.cpu {
            if qpn.value() == local {
                states.insert(crate::judge::wire_ev(ipv4, *ev), (*state, i.at));
            }
        }
    }
    let unusable = |ev: &Ev| match states.get(ev) {
        None | Some((EvState::Good, _)) => false,
        Some((EvState::Skip, since)) => since.saturating_add(hold) > queued,
        Some(_) => true,
    };
    !profile.is_empty() && profile.iter().all(unusable)
}

/// Whether the retransmission of `psn` of peer QP `qp` expected at `at` is the delayed
/// entry of a window or resource NACK into the device QP `local`: the NACK's back-off ends
/// within `late_ns` of `at`, and no retransmission of the PSN is expected, among `earlier`,
/// after the NACK (SND-NACK-004.a).
pub(super) fn delayed_due(
    s: &Scenario,
    fed: &[Fed<'_>],
    earlier: &[(&Record, Frame<'_>)],
    local: Option<u32>,
    qp: u32,
    psn: u32,
    at: u64,
) -> bool {
    let backoff = u64::try_from(s.manifest.nic.nack_backoff.as_nanos()).unwrap_or(u64::MAX);
    let late = s.manifest.tolerances.late_ns;
    fed.iter().filter(|i| i.at <= at).any(|i| {
        let Some(d) = i.frame.as_ref() else { return false };
        let Some(n) = d.ext.neth else { return false };
        let end = i.at.saturating_add(backoff);
        d.bth.map(|b| b.dest_qp.value()) == local
            && n.nack_psn.value() == psn
            && nack_cause(n.reason) == SND_NACK_004_A
            && !n.reason.is_fatal()
            && end.abs_diff(at) <= late
            && !earlier
                .iter()
                .any(|(r, f)| f.kind == Kind::Data { qp, psn, rtx: true } && r.at.0 > i.at)
    })
}

/// The time of the latest expected retransmission of `psn` of peer QP `qp`, among
/// `earlier`, that is the delayed entry of a window or resource NACK into the device QP
/// `local`: due exactly when the NACK's back-off ended (SND-NACK-004.a).
pub(super) fn delayed_entry(
    s: &Scenario,
    fed: &[Fed<'_>],
    earlier: &[(&Record, Frame<'_>)],
    local: Option<u32>,
    qp: u32,
    psn: u32,
) -> Option<u64> {
    let backoff = u64::try_from(s.manifest.nic.nack_backoff.as_nanos()).unwrap_or(u64::MAX);
    earlier.iter().rev().find_map(|(r, f)| {
        let due = r.at.0;
        (f.kind == Kind::Data { qp, psn, rtx: true }
            && fed.iter().any(|i| {
                i.frame.as_ref().is_some_and(|d| {
                    d.bth.map(|b| b.dest_qp.value()) == local
                        && d.ext.neth.is_some_and(|n| {
                            n.nack_psn.value() == psn
                                && !n.reason.is_trim()
                                && !n.reason.is_fatal()
                                && i.at.saturating_add(backoff) == due
                        })
                })
            }))
        .then_some(due)
    })
}

/// When the latest back-off of the device QP `local` that is still running at `at` ends:
/// the back-off of a window or resource NACK (SND-NACK-003) for a PSN other than `psn`,
/// injected by `at`, lasts `nack_backoff` (SND-NACK-004).
pub(super) fn backoff_end(
    s: &Scenario,
    fed: &[Fed<'_>],
    local: Option<u32>,
    psn: u32,
    at: u64,
) -> Option<u64> {
    let backoff = u64::try_from(s.manifest.nic.nack_backoff.as_nanos()).unwrap_or(u64::MAX);
    fed.iter()
        .filter(|i| i.at <= at)
        .filter_map(|i| {
            let d = i.frame.as_ref()?;
            let n = d.ext.neth?;
            let delays = nack_cause(n.reason) == SND_NACK_004_A && !n.reason.is_fatal();
            (Some(d.bth?.dest_qp.value()) == local && delays && n.nack_psn.value() != psn)
                .then_some(i.at.saturating_add(backoff))
        })
        .max()
        .filter(|&end| end > at)
}
