//! The spray policies judged by the device's own choices or against the recording
//! (`CONF-CMP-048`): the EV of each data packet and probe of a QP whose choice depends on
//! state the judge rebuilds, and the estimate or back-off a wrong choice shows.

use openrdma_device::{Body, Capability, Scenario, SprayPolicy};

use super::super::obs::Injected;
use super::super::render::gap;
use super::super::table::Ctx;
use super::super::{Divergence, Frame, Kind, render_frame};
use super::{Packets, estimate};
use crate::req::*;

/// The requirement a QP's spray policy is judged under (`CONF-CMP-048`), or `None` for
/// `random`, whose EVs only [`judge`] judges.
pub(super) fn policy_requirement(spray: SprayPolicy, probe: bool) -> Option<Clause> {
    use crate::req::{
        EV_PROBE_005_B, SND_SPRAY_001, SND_SPRAY_003, SND_SPRAY_004, SND_SPRAY_005, SND_SPRAY_009,
    };
    match spray {
        SprayPolicy::Random => None,
        SprayPolicy::WindowFit if probe => Some(SND_SPRAY_009),
        _ if probe => Some(EV_PROBE_005_B),
        SprayPolicy::RoundRobin => Some(SND_SPRAY_001),
        SprayPolicy::Fixed => Some(SND_SPRAY_003),
        SprayPolicy::SkewAware => Some(SND_SPRAY_004),
        SprayPolicy::WindowFit => Some(SND_SPRAY_005),
    }
}

/// In a scenario that requires `spray-policies`, every data packet of a `fixed` or
/// `round-robin` QP must take an EV its policy may give after the device's previous choice;
/// every data packet of a `skew-aware` QP whose EVs no input moves, an EV its estimates may
/// give by the device's own earlier packets and the acknowledgements it may have taken
/// ([`estimate`]), named by the wrong estimate that gives it when one does; and every other
/// data packet and probe the EV of the record it matches (`CONF-CMP-048`).
///
/// A data packet or probe of a `window-fit` QP may take another EV than its record when
/// some round trips within the bounds a device late on its inputs may hold give the
/// device's own choices (`Fits::late_choice`, `Fits::late_probe`,
/// `Fits::late_retransmission`). A first transmission of a `window-fit` QP is named, when
/// the judge can tell, by the estimate of the policy that the device's choices contradict
/// (`fit`): `SND-SPRAY-006`, `SND-SPRAY-007` or `SND-SPRAY-010`.
pub(in crate::judge) fn judge_exact(c: &Ctx<'_>, div: &mut Vec<Divergence>) {
    let (scenario, exp, obs) = (c.scenario, &c.o.exp_frames[..], &c.o.frames[..]);
    if !scenario.manifest.requires.contains(&Capability::SprayPolicies) {
        return;
    }
    let spray = super::spray_of(scenario);
    // The skew-aware QPs judged on the device's own choices: those whose EVs no input
    // moves out of GOOD.
    let mut own: Vec<u32> = Vec::new();
    if let Some(t) = c.tracking() {
        let packets = &t.packets;
        let mut peers: Vec<u32> = spray
            .iter()
            .filter(|&(_, p)| *p == SprayPolicy::SkewAware)
            .map(|(&q, _)| q)
            .filter(|q| !packets.events.iter().any(|e| e.peer == *q))
            .collect();
        peers.sort_unstable();
        for &peer in &peers {
            judge_skew(packets, peer, obs, div);
        }
        own = peers;
        div.extend(t.policy.iter().cloned());
    }
    for &(e, o) in &c.pairing.matches {
        let ef = &exp[e].1;
        let of = &obs[o];
        let (qp, probe) = match ef.kind {
            Kind::Data { qp, .. } => (qp, false),
            Kind::Probe { qp } => (qp, true),
            _ => continue,
        };
        let Some(&policy) = spray.get(&qp) else { continue };
        // The data packets of these policies are judged on the device's own choices.
        if !probe && matches!(policy, SprayPolicy::Fixed | SprayPolicy::RoundRobin) {
            continue;
        }
        if !probe && own.contains(&qp) {
            continue;
        }
        let Some(req) = policy_requirement(policy, probe) else { continue };
        // A device late on its inputs may choose another EV of a window-fit QP, or probe
        // another, when some estimate within the lag's bounds gives that choice.
        let late_ok = |ev_of: &Frame<'_>| match ev_of.kind {
            Kind::Data { psn, rtx: false, .. } => c.fits.late_choice(qp, psn),
            Kind::Probe { .. } => c.fits.late_probe(qp, ev_of.at, ev_of.ev),
            Kind::Data { rtx: true, .. } => c.fits.late_retransmission(qp, ev_of.at, ev_of.ev),
            _ => false,
        };
        if ef.ev != of.ev && !(policy == SprayPolicy::WindowFit && late_ok(of)) {
            let (req, what) = match backoff_mistimed(scenario, &c.o.injects, ef, of) {
                Some(nacked) => (
                    crate::req::SND_NACK_004_A,
                    format!(
                        "sent on EV {:#x}, {} the NACK that delays it, not nack_backoff \
                         ({} ns) after: the pool had changed by then, and the spray policy \
                         gives EV {:#x} when the back-off ends",
                        of.ev,
                        gap(of.at, nacked),
                        ef.at.saturating_sub(nacked),
                        ef.ev
                    ),
                ),
                None => window_fit_cause(c, e, of, ef, req),
            };
            div.push(Divergence {
                expected: Some(render_frame(ef.bytes)),
                actual: Some(render_frame(of.bytes)),
                fields: vec![super::super::FieldDiff::new(
                    "entropy",
                    format!("{:#x}", ef.ev),
                    format!("{:#x}", of.ev),
                )],
                ..Divergence::named(of.at, req, what)
            });
        }
    }
}

/// Judges the data packets of skew-aware QP `peer` (by the QPN its packets carry) on the
/// device's own earlier choices and the acknowledgements it may have taken
/// (`CONF-CMP-048`, [`estimate::judge_own`]).
fn judge_skew(p: &Packets, peer: u32, obs: &[Frame<'_>], div: &mut Vec<Divergence>) {
    let Some(qp) = p.qps.get(&peer) else { return };
    let none = Vec::new();
    let claims = p.claims.get(&peer).unwrap_or(&none);
    for m in estimate::judge_own(qp, peer, claims, obs, p.lag) {
        let f = &obs[m.o];
        let list = m.allowed.iter().map(|e| format!("{e:#x}")).collect::<Vec<_>>().join(" or ");
        let what = if m.clause == SND_SPRAY_004 {
            format!(
                "sent on EV {:#x}; skew-aware spraying gives EV {list} by the round-trip \
                 estimates the device's own packets and their acknowledgements make",
                f.ev
            )
        } else {
            format!(
                "sent on EV {:#x}; skew-aware spraying gives EV {list} by the round-trip \
                 estimates the device's own packets and their acknowledgements make, and EV \
                 {:#x} only by estimates kept against {}",
                f.ev, f.ev, m.clause
            )
        };
        div.push(Divergence {
            actual: Some(render_frame(f.bytes)),
            fields: m
                .allowed
                .first()
                .map(|e| {
                    super::super::FieldDiff::new(
                        "entropy",
                        format!("{e:#x}"),
                        format!("{:#x}", f.ev),
                    )
                })
                .into_iter()
                .collect(),
            ..Divergence::named(f.at, m.clause, what)
        });
    }
}

/// The clause and words for a data packet or probe `of` on another EV than its record
/// `ef`: the window-fit estimate the device's choices contradict, when the judge can tell
/// (`fit`), or else the QP's spray rule `req`.
fn window_fit_cause(
    c: &Ctx<'_>,
    e: usize,
    of: &Frame<'_>,
    ef: &Frame<'_>,
    req: Clause,
) -> (Clause, String) {
    let (inj, inputs) = (&c.o.injects, &c.o.inputs);
    match super::super::matching::ev_cause(c.scenario, inj, inputs, &c.o.exp_frames, c.fits, e) {
        Some(rule) => (
            rule,
            format!(
                "sent on EV {:#x}; the QP's spray policy gives EV {:#x}, and the EVs the \
                 device chose contradict its estimate of {}",
                of.ev,
                ef.ev,
                estimate_name(rule)
            ),
        ),
        None => {
            (req, format!("sent on EV {:#x}; the QP's spray policy gives EV {:#x}", of.ev, ef.ev))
        }
    }
}

/// What the window-fit estimate that clause `id` fixes is, in a few words.
fn estimate_name(id: Clause) -> &'static str {
    match id {
        SND_SPRAY_010 => "the round trip a probe answer gave its EV",
        SND_SPRAY_007 => "the packets per ns one EV carries",
        _ => "the limit on the round trips of the EVs it uses",
    }
}

/// When the window or resource NACK (SND-NACK-003) came whose delayed entry expected
/// retransmission `ef` is, if the device sent it (`of`) at another time than the end of the
/// back-off and an input of its QP that can change the EV pool (a frame or a command) came
/// between the two times: the EV it chose then follows from when it went, and the back-off
/// it ran is what broke (SND-NACK-004.a).
/// `injects` are the scenario's injected records, decoded.
fn backoff_mistimed(
    scenario: &Scenario,
    injects: &[Injected<'_>],
    ef: &Frame<'_>,
    of: &Frame<'_>,
) -> Option<u64> {
    let Kind::Data { qp, psn, rtx: true } = ef.kind else { return None };
    let backoff = u64::try_from(scenario.manifest.nic.nack_backoff.as_nanos()).ok()?;
    let local = super::super::peer_map(scenario).get(&qp).copied()?;
    let (lo, hi) = (ef.at.min(of.at), ef.at.max(of.at));
    if lo == hi {
        return None;
    }
    let mut nacked = None;
    let mut changed = false;
    for i in injects {
        let at = i.at();
        match (&i.rec.body, &i.frame) {
            (_, Some(d)) => {
                if d.bth.map(|b| b.dest_qp.value()) != Some(local) {
                    continue;
                }
                changed |= lo < at && at <= hi;
                if let Some(n) = d.ext.neth {
                    let delays = !n.reason.is_trim() && !n.reason.is_fatal();
                    if delays && n.nack_psn.value() == psn && at.saturating_add(backoff) == ef.at {
                        nacked = Some(at);
                    }
                }
            }
            (Body::Cpu { .. }, _) => changed |= lo < at && at <= hi,
            _ => {}
        }
    }
    nacked.filter(|_| changed)
}
