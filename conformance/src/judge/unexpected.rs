//! Frames no expectation explains, and what they break: a data packet, NACK, ACK, probe or
//! endpoint operation the scenario does not expect, and anything a device does as an MRC QP
//! numbered 2 (ERTH-QPN-001).

use std::collections::{BTreeSet, HashMap};

use openrdma_codec::{Msn, NackReason, Opcode, Psn, Qpn};
use openrdma_device::{
    Body, CpuCommand, CpuHalf, Direction, HostCommand, Input, NicEvent, NicReport, Output, Record,
    Scenario, Side, TimedOutput,
};

use super::arrivals::{Arrivals, Status};
use super::obs::{In, sent_new};
use super::table::Ctx;
use super::{Divergence, Frame, Kind, peer_map, render_event, render_frame};
use crate::req::*;

mod inference;
use inference::inference_blame;

/// Every frame no expectation took that no rule explains: a data packet, NACK, ACK, probe or
/// endpoint operation the scenario does not expect.
pub(super) fn judge(c: &Ctx<'_>, div: &mut Vec<Divergence>) {
    let (scenario, inputs, exp_frames, obs_frames) =
        (c.scenario, &c.o.inputs[..], &c.o.exp_frames[..], &c.o.frames[..]);
    let (arrivals, used) = (&c.arrivals, &c.pairing.used[..]);
    let tol = &scenario.manifest.tolerances;
    let own_cpu = scenario.manifest.cpu == CpuHalf::Device;
    // Unexpected data, NACK, ACK and probe packets.
    let acked_msns = acked_msns(exp_frames);
    let local_of = peer_map(scenario);
    let commanded = retransmits_commanded(inputs, own_cpu);
    let mut used_commands = vec![false; commanded.len()];
    let failed_at = failed_at(scenario);
    // Whether the scenario has the QP of a peer QP in the error state at `at`.
    let failed_by = |qp: u32, at: u64| {
        local_of.get(&qp).and_then(|l| failed_at.get(l)).is_some_and(|&t| t <= at)
    };
    for (i, of) in obs_frames.iter().enumerate() {
        if used[i] {
            continue;
        }
        // CONF-CMP-023: a transport NAK that answers a write discarded without response is
        // named by its discard rule, or by the order of the checks when the region check,
        // which a NAK answers, refuses it too; a repeated MSN does not excuse it. One
        // that answers an accepted write is the region check's own error.
        let nak_refused = match of.kind {
            Kind::Ack { qp, syndrome, .. } if !super::ack_class(syndrome).0 => {
                local_of.get(&qp).and_then(|&l| arrivals.nak_rule(l, of.ev, of.at, tol.late_ns))
            }
            _ => None,
        };
        let (req, what) = if let Some(named) = nak_refused {
            named
        } else {
            match of.kind {
                // The PSN a NACK UNEXP_EVENT named, sent again: that NACK is fatal, and nothing
                // is retransmitted on its account (SND-NACK-005).
                Kind::Data { qp, psn, rtx: true }
                    if !own_cpu
                        && fatal_nack_for(inputs, local_of.get(&qp).copied(), psn, of.at) =>
                {
                    (SND_NACK_005, "a retransmission of the PSN a fatal NACK UNEXP_EVENT named")
                }
                Kind::Data { qp, psn, rtx: false }
                    if failed_by(qp, of.at) && sent_new(&obs_frames[..i], qp, psn) =>
                {
                    (SND_PSN_001, "a first transmission of a PSN the QP had already sent")
                }
                // A packet of a QP in the error state (SND-ERR-001); the device's own CPU half
                // retrying or probing after it failed the QP is named below by its own rule.
                Kind::Data { qp, rtx, .. } if failed_by(qp, of.at) && !(own_cpu && rtx) => {
                    (SND_ERR_001, "a data packet of a QP in the error state")
                }
                // A probe of a QP in the error state that a command asked for: the NIC half
                // acted on a command it must ignore (REC-IF-014); else it sent one itself.
                Kind::Probe { qp } if failed_by(qp, of.at) && !own_cpu => {
                    let local = local_of.get(&qp).copied();
                    let since = local.and_then(|l| failed_at.get(&l)).copied().unwrap_or(0);
                    failed_probe_rule(inputs, local, since, of.at)
                }
                Kind::Data { qp, psn, rtx: true } => {
                    // One retransmission per command, sent when the command arrived. A command
                    // for a PSN already acknowledged explains only the resend of a message's
                    // last packet (REC-RTO-004.c), which lies at or before the cumulative PSN.
                    let local = local_of.get(&qp).copied();
                    let taken =
                        take_command(&commanded, &mut used_commands, local, psn, of.at, tol);
                    if taken == Some(Taken::Fits) {
                        continue;
                    }
                    if taken == Some(Taken::Stale) {
                        (
                            REC_RTO_004_E,
                            "a retransmission of an outstanding PSN on a Retransmit command for a PSN \
                         already acknowledged, which changes nothing",
                        )
                    } else if let Some(rule) = dropped(c, local, psn, of.at) {
                        rule
                    } else {
                        retransmission_rule(
                            inputs,
                            obs_frames,
                            local,
                            local.and_then(|l| failed_at.get(&l)).copied(),
                            own_cpu,
                            (i, of),
                            (tol.late_ns, scenario.manifest.nic.tail_probe.is_some()),
                        )
                    }
                }
                // Sent before the probe answer that the scenario holds it for, after a timeout:
                // the device's own CPU half did not blame the EV (REC-EV-002.a).
                // Sent when an acknowledgement came, although it waited from before: the EV
                // was blamed, and the CPU half made it GOOD itself on the progress, a transition
                // table 4 gives the NIC half on a probe answer (EV-STATE-003.b).
                Kind::Data { qp, psn, rtx: false }
                    if own_cpu && unblamed(exp_frames, qp, psn, of.at) =>
                {
                    let local = local_of.get(&qp).copied();
                    unblamed_rule(inputs, exp_frames, local, qp, of.at, tol.late_ns)
                }
                Kind::Data { .. } => (SND_PSN_001, "a data packet the scenario does not expect"),
                Kind::Nack { qp, psn, reason } => {
                    nack_rule(arrivals, local_of.get(&qp).copied(), psn, reason, of.at)
                }
                Kind::Endpoint { op, request_id } => endpoint_blame(inputs, op, request_id),
                // An undefined operation the CPU half commanded: the NIC half sent what it must
                // refuse (REC-IF-017.d); one it made up itself breaks the wire rule.
                Kind::EndpointRequest { op, request_id }
                    if !openrdma_codec::EndpointOp(op).is_known() =>
                {
                    undefined_op_rule(inputs, op, request_id)
                }
                Kind::EndpointRequest { .. } => {
                    (REC_IF_017_A, "an endpoint request the CPU half did not command")
                }
                Kind::Ack { qp, msn, high: 0, .. } if acked_msns.contains(&(qp, msn)) => continue,
                // An ACK for a message the scenario acknowledges later, with others, came
                // before `ack_coalesce` messages had retired (RCV-ACK-001.a).
                Kind::Ack { qp, msn, syndrome, .. }
                    if super::ack_class(syndrome).0
                        && acked_msns.iter().any(|&(q, m)| {
                            q == qp && (1..1 << 15).contains(&m.value().wrapping_sub(msn.value()))
                        }) =>
                {
                    kept_count(scenario, obs_frames, i, qp, msn).unwrap_or((
                        RCV_ACK_001_A,
                        "a transport ACK before ack_coalesce messages had retired",
                    ))
                }
                Kind::Ack { .. } => (RCV_ACK_002_A, "a transport ACK for a message not retired"),
                Kind::Probe { qp } => {
                    let local = local_of.get(&qp).copied();
                    let failed = local.and_then(|l| failed_at.get(&l)).copied();
                    match probe_blame(c, local, failed, qp, of) {
                        Some(rule) => rule,
                        // A window-fit probe that a device late on its inputs may send.
                        None => continue,
                    }
                }
                Kind::Sack { .. } | Kind::Other { .. } => continue,
            }
        };
        div.push(Divergence {
            actual: Some(render_frame(of.bytes)),
            ..Divergence::named(of.at, req, what.into())
        });
    }
}

/// The rule an unexpected probe breaks, once a probe of a QP in the error state that a
/// command asked for has been named. The device's own CPU half is judged by
/// `own_probe_rule`. `None` for a probe of a window-fit QP that estimates within a late
/// device's bounds give (CONF-CMP-048.c); else a probe of an EV that a window-fit limit
/// worked out from a wrong estimate left out is named by that estimate (SND-SPRAY-009
/// follows from the limit), and any other by `probe_rule`.
fn probe_blame(
    c: &Ctx<'_>,
    local: Option<u32>,
    failed: Option<u64>,
    qp: u32,
    of: &Frame<'_>,
) -> Option<(Clause, &'static str)> {
    let (scenario, inputs) = (c.scenario, &c.o.inputs[..]);
    if scenario.manifest.cpu == CpuHalf::Device {
        return Some(own_probe_rule(inputs, &c.o.frames, local, failed, qp, of));
    }
    if c.fits.late_probe(qp, of.at, of.ev) {
        return None;
    }
    Some(match c.fits.contradicted_at(qp, of.at) {
        Some(est) => (
            est.clause(),
            "a probe of an EV that the window-fit limit left out by a wrong estimate",
        ),
        None => probe_rule(scenario, inputs, local, of.at, scenario.manifest.tolerances.late_ns),
    })
}

/// The rule a data packet of the device's own CPU half breaks when it went out on an EV a
/// timeout should have blamed: made GOOD again on progress (EV-STATE-003.b), or never
/// blamed (REC-EV-002.a).
fn unblamed_rule(
    inputs: &[In<'_>],
    exp_frames: &[(&Record, Frame<'_>)],
    local: Option<u32>,
    qp: u32,
    at: u64,
    late_ns: u64,
) -> (Clause, &'static str) {
    if restored_at_progress(inputs, exp_frames, local, qp, at, late_ns) {
        (
            EV_STATE_003_B,
            "a data packet sent on a blamed EV when an acknowledgement came, before the probe \
             answer: the EV was made GOOD on progress",
        )
    } else {
        (REC_EV_002_A, "a data packet sent on an EV that its timeout should have made ASSUMED_BAD")
    }
}

/// The MSNs the scenario expects ACKs for, with their wire QP.
fn acked_msns(exp_frames: &[(&Record, Frame<'_>)]) -> Vec<(u32, Msn)> {
    exp_frames
        .iter()
        .filter_map(|(_, f)| match f.kind {
            Kind::Ack { qp, msn, .. } => Some((qp, msn)),
            _ => None,
        })
        .collect()
}

/// A `Retransmit` command injected into the device: its QP, its time, and, when its PSN
/// was already acknowledged, the cumulative PSN of the SACK into the QP that acknowledged
/// it, the latest before the command.
struct Commanded {
    qp: u32,
    at: u64,
    stale: Option<Psn>,
}

/// How a retransmission was explained by a `Retransmit` command ([`take_command`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Taken {
    /// A command of its QP that names an outstanding PSN, or a PSN acknowledged at or after
    /// the one resent (the resend of a message's last packet, REC-RTO-004.c).
    Fits,
    /// Only a command for a PSN already acknowledged, while the PSN resent is outstanding:
    /// the command changes nothing (REC-RTO-004.e).
    Stale,
}

/// Takes the first command not yet used that explains a retransmission of `psn` by the
/// device QP `local` at `at`: one of that QP, injected at most `late_ns` before. One
/// retransmission per command. `None` when no command explains it.
fn take_command(
    commanded: &[Commanded],
    used: &mut [bool],
    local: Option<u32>,
    psn: u32,
    at: u64,
    tol: &openrdma_device::Tolerances,
) -> Option<Taken> {
    let open = |k: usize, c: &Commanded| {
        !used[k] && Some(c.qp) == local && c.at <= at && at <= c.at + tol.late_ns
    };
    let outstanding = |c: &Commanded| c.stale.is_some_and(|a| Psn::new(psn).is_after(a));
    if let Some(k) = commanded.iter().enumerate().position(|(k, c)| open(k, c) && !outstanding(c)) {
        used[k] = true;
        return Some(Taken::Fits);
    }
    let k = commanded.iter().enumerate().position(|(k, c)| open(k, c))?;
    used[k] = true;
    Some(Taken::Stale)
}

/// Retransmissions the CPU half commanded (REC-RTO-003): per device QP, the commands
/// injected into the device, by the scenario or the runner's agent; none when the CPU half
/// is inside the device (CONF-CMP-019).
fn retransmits_commanded(inputs: &[In<'_>], own_cpu: bool) -> Vec<Commanded> {
    inputs
        .iter()
        .filter(|_| !own_cpu)
        .filter_map(|i| match &i.input {
            Input::Cpu { command: CpuCommand::Retransmit { qpn, psn } } => {
                let q = qpn.value();
                let cack = inputs
                    .iter()
                    .filter(|j| j.at < i.at)
                    .filter_map(|j| {
                        let d = &j.frame.as_ref()?.d;
                        (d.bth?.dest_qp.value() == q).then_some(d.ext.seth.filter(|x| !x.pr)?)
                    })
                    .map(|x| x.cack_psn)
                    .reduce(|a, b| if b.is_after(a) { b } else { a });
                let stale = cack.filter(|&c| psn.is_before(c.next()));
                Some(Commanded { qp: q, at: i.at, stale })
            }
            _ => None,
        })
        .collect()
}

/// The rule a probe of a QP in the error state breaks: one a command asked for since the
/// QP failed (`since`), the NIC half acted on a command it must ignore (REC-IF-014); else
/// it sent one itself (SND-ERR-001).
fn failed_probe_rule(
    inputs: &[In<'_>],
    local: Option<u32>,
    since: u64,
    at: u64,
) -> (Clause, &'static str) {
    if probe_commanded_since(inputs, local, since, at) {
        (REC_IF_014, "a probe the CPU half commanded for a QP in the error state")
    } else {
        (SND_ERR_001, "a probe of a QP in the error state")
    }
}

/// The rule a resend of `psn` by device QP `local` at `at` breaks when it lies behind a
/// SACK no `Progress` answered (CONF-CMP-100), after it and at or before its cumulative
/// PSN: the sender did not take that SACK (SND-SACK-001). Only when the device gives
/// `Progress` reports at all, and they are not its own CPU half's.
fn dropped(c: &Ctx<'_>, local: Option<u32>, psn: u32, at: u64) -> Option<(Clause, &'static str)> {
    let progressing =
        c.o.events.iter().any(|(_, e)| matches!(e, NicEvent::Report(NicReport::Progress { .. })));
    if !progressing || c.scenario.manifest.cpu == CpuHalf::Device {
        return None;
    }
    let behind = |u: &&super::reports::Unanswered| {
        Some(u.q) == local && u.at < at && Psn::new(psn).is_before(u.una)
    };
    super::reports::unanswered(&c.reports(&c.local_of())).iter().find(behind).map(|_| {
        (
            SND_SACK_001,
            "a retransmission of a PSN that a SACK acknowledged, which the sender did not take: \
             no Progress came for that SACK",
        )
    })
}

/// The rule an unexpected NACK of PSN `psn` for device QP `local` breaks (CONF-CMP-023): a
/// NACK for frames to discard is named by what is wrong with them, one for writes a receive
/// check discards without response by that check's rule, any other RCV-NACK-001.c.
fn nack_rule(
    arrivals: &Arrivals,
    local: Option<u32>,
    psn: u32,
    reason: u8,
    at: u64,
) -> (Clause, &'static str) {
    let discarded = local.and_then(|l| arrivals.only_discarded(l, psn, at));
    let silent = local
        .and_then(|l| arrivals.only_refused(l, psn, at))
        .filter(|&r| super::receive::silent(r));
    // A copy accepted or answered as a duplicate lay in or behind the window (RCV-WIN-001).
    let status = local.and_then(|l| arrivals.latest_status(l, psn, at));
    let inside = matches!(status, Some(Status::Accepted | Status::Duplicate));
    match (discarded, silent) {
        (Some(reason), _) => (reason, "a NACK for a PSN whose only copies were frames to discard"),
        (None, Some(rule)) => (rule, "a NACK for a write discarded without response"),
        (None, None) if inside && reason == NackReason::PSN_OOR_WINDOW.0 => {
            (RCV_WIN_001, "a NACK PSN_OOR_WINDOW for a PSN the window holds")
        }
        (None, None) => (RCV_NACK_001_C, "a NACK the scenario does not expect"),
    }
}

/// The rule an endpoint request for an operation the ERTH does not define breaks: one the
/// CPU half commanded, the NIC half sent what it must refuse (REC-IF-017.d); one it made up
/// itself breaks the wire rule (ERTH-OP-001.a).
fn undefined_op_rule(inputs: &[In<'_>], op: u8, request_id: u32) -> (Clause, &'static str) {
    if endpoint_commanded(inputs, Some(op), request_id) {
        (REC_IF_017_D, "an endpoint request for a commanded operation the ERTH does not define")
    } else {
        (ERTH_OP_001_A, "an endpoint request for an operation the ERTH does not define")
    }
}

/// The rule a retransmission no command explains breaks: sent after the retry limit failed
/// the QP (REC-RETRY-002), asked for by a stale NACK (SND-NACK-001.a), sent after a SACK
/// acknowledged it in the queue (SND-SCHED-003.b), inferred lost against the rules of
/// inference, or else of a packet that was not lost (SND-RTX-004). `local`: the device QP;
/// `failed`: when the scenario has it fail; `at`: the frame and its index among `obs`;
/// `tol`: `late_ns`, and whether `tail_probe` is set.
fn retransmission_rule(
    inputs: &[In<'_>],
    obs: &[Frame<'_>],
    local: Option<u32>,
    failed: Option<u64>,
    own_cpu: bool,
    (i, of): (usize, &Frame<'_>),
    (late_ns, tail): (u64, bool),
) -> (Clause, &'static str) {
    // The device's own CPU half retrying after the QP was to fail: its retry limit.
    if own_cpu && failed.is_some_and(|t| t <= of.at) {
        return (REC_RETRY_002, "a retransmission after the retry limit failed the QP");
    }
    let Some(l) = local else {
        return (SND_RTX_004, "a retransmission of a packet that was not lost");
    };
    // Asked for by a NACK that came after its PSN was acknowledged: a stale NACK, which
    // changes nothing.
    if stale_nack(inputs, l, of.at, &of.kind) {
        return (
            SND_NACK_001_A,
            "a retransmission asked for by a NACK for a PSN already acknowledged",
        );
    }
    // Queued by a NACK, then acknowledged before it went: the queue must drop the entry
    // unsent.
    if acked_while_queued(inputs, l, of.at, &of.kind) {
        return (SND_SCHED_003_B, "a queued retransmission sent after its PSN was acknowledged");
    }
    // One the device inferred lost from a SACK just injected, against the rules of
    // inference: named by the rule it broke.
    inference_blame(inputs, obs, l, i, (late_ns, tail))
        .unwrap_or((SND_RTX_004, "a retransmission of a packet that was not lost"))
}

/// The rule a probe breaks that the device's own CPU half commanded and should not have:
/// after the QP failed (REC-PROBE-002), of an EV blamed for a loss a NACK showed
/// (REC-EV-002.b), or otherwise not due (REC-PROBE-001).
fn own_probe_rule(
    inputs: &[In<'_>],
    obs: &[Frame<'_>],
    local: Option<u32>,
    failed: Option<u64>,
    qp: u32,
    of: &Frame<'_>,
) -> (Clause, &'static str) {
    match failed {
        Some(t) if t <= of.at => (REC_PROBE_002, "a probe after its QP went to the error state"),
        _ if local.is_some_and(|l| nack_blamed(inputs, obs, l, qp, of)) => {
            (REC_EV_002_B, "a probe of an EV blamed for a loss that a NACK, not a timeout, showed")
        }
        _ => (REC_PROBE_001, "a probe the scenario does not expect"),
    }
}

/// The rule a probe no command asked for breaks: the tail-probe timer queued it against
/// the rule of its setting, or the spray policy queues no probes (EV-PROBE-005.a).
fn probe_rule(
    scenario: &Scenario,
    inputs: &[In<'_>],
    local: Option<u32>,
    at: u64,
    late_ns: u64,
) -> (Clause, &'static str) {
    let commands = inputs.iter().filter_map(|x| match &x.input {
        Input::Cpu { command } => Some((x.at, command)),
        _ => None,
    });
    let tail = local
        .filter(|&l| !super::probe_commanded(commands, l, at, late_ns))
        .and_then(|l| super::tail_rule(scenario, l));
    match tail {
        Some(SND_TAIL_001_B) => {
            (SND_TAIL_001_B, "a probe nothing asked for while tail probing is off")
        }
        Some(id) => (id, "a tail probe that was not due"),
        None => (EV_PROBE_005_A, "a probe that neither the CPU half nor the spray policy queued"),
    }
}

/// When the scenario expects each requester QP to fail: the time of its first error
/// completion, by QP number.
fn failed_at(scenario: &Scenario) -> HashMap<u32, u64> {
    let mut m = HashMap::new();
    for r in scenario.records.iter().filter(|r| r.dir == Direction::Expect) {
        if let Body::Event { event: NicEvent::Completion(c) } = &r.body {
            if c.side == Side::Requester && c.entry.status.0 != 0 {
                m.entry(c.entry.qpn.value()).or_insert(r.at.0);
            }
        }
    }
    m
}

/// Whether a NACK UNEXP_EVENT for PSN `psn` reached device QP `local` by `at`.
fn fatal_nack_for(inputs: &[In<'_>], local: Option<u32>, psn: u32, at: u64) -> bool {
    inputs.iter().filter(|x| x.at <= at).any(|x| {
        let Some(f) = x.frame.as_ref() else { return false };
        let into = f.d.bth.is_some_and(|b| Some(b.dest_qp.value()) == local);
        into && f.d.ext.neth.is_some_and(|n| n.reason.is_fatal() && n.nack_psn.value() == psn)
    })
}

/// Whether the retransmission `kind`, sent at `at` by device QP `local`, was queued by a
/// NACK that is not fatal and then acknowledged by a SACK before it went (SND-SCHED-003.b).
fn acked_while_queued(inputs: &[In<'_>], local: u32, at: u64, kind: &Kind) -> bool {
    let Kind::Data { psn, .. } = *kind else { return false };
    let into_qp = |x: &&In<'_>| {
        x.at <= at
            && x.frame.as_ref().and_then(|f| f.d.bth).is_some_and(|b| b.dest_qp.value() == local)
    };
    let mut nacked = inputs.iter().filter(into_qp).filter_map(|x| {
        let n = x.frame.as_ref()?.d.ext.neth?;
        (n.nack_psn.value() == psn && !n.reason.is_fatal()).then_some(x.at)
    });
    let Some(queued) = nacked.next_back() else { return false };
    inputs.iter().filter(into_qp).filter(|x| x.at > queued).any(|x| {
        x.frame
            .as_ref()
            .and_then(|f| f.d.ext.seth)
            .is_some_and(|s| !s.pr && s.is_sacked(openrdma_codec::Psn::new(psn)))
    })
}

/// Whether the last NACK not fatal for the PSN of data packet `kind` that device QP
/// `local` took by `at` came after a SACK into the QP had shown that PSN arrived: a stale
/// NACK (SND-NACK-001.a).
pub(super) fn stale_nack(inputs: &[In<'_>], local: u32, at: u64, kind: &Kind) -> bool {
    let Kind::Data { psn, .. } = *kind else { return false };
    let psn = openrdma_codec::Psn::new(psn);
    let into_qp: Vec<&In<'_>> = inputs
        .iter()
        .filter(|x| {
            x.at <= at
                && x.frame
                    .as_ref()
                    .and_then(|f| f.d.bth)
                    .is_some_and(|b| b.dest_qp.value() == local)
        })
        .collect();
    let nacked = into_qp.iter().rposition(|x| {
        x.frame
            .as_ref()
            .and_then(|f| f.d.ext.neth)
            .is_some_and(|n| n.nack_psn == psn && !n.reason.is_fatal())
    });
    let Some(k) = nacked else { return false };
    into_qp[..k].iter().any(|x| {
        x.frame.as_ref().and_then(|f| f.d.ext.seth).is_some_and(|s| !s.pr && s.is_sacked(psn))
    })
}

/// Whether data packet `f` of device QP `local` belongs to a message that a transport ACK
/// injected by `by` completed: its METH `msn` at or before the AETH's.
fn acked_before(inputs: &[In<'_>], local: u32, f: &Frame<'_>, by: u64) -> bool {
    let Some(m) = f.d.ext.meth.map(|m| m.msn) else { return false };
    inputs.iter().filter(|x| x.at <= by).any(|x| {
        x.frame.as_ref().is_some_and(|a| {
            a.d.bth.is_some_and(|b| b.dest_qp.value() == local)
                && a.d.ext.aeth.is_some_and(|a| {
                    a.kind() == openrdma_codec::AethKind::Ack
                        && m.value().wrapping_sub(a.msn.msn().value()) as i16 <= 0
                })
        })
    })
}

/// Whether retransmission `f` of device QP `local` followed a SACK injected within
/// `late_ns` before it (an inference), and its message was completed by a transport ACK
/// injected before that SACK.
pub(super) fn inferred_after_ack(inputs: &[In<'_>], local: u32, f: &Frame<'_>, late: u64) -> bool {
    let sack = inputs.iter().rev().find(|x| {
        x.at <= f.at
            && x.frame.as_ref().is_some_and(|a| {
                a.d.bth.is_some_and(|b| b.dest_qp.value() == local) && a.d.ext.seth.is_some()
            })
    });
    sack.is_some_and(|x| f.at <= x.at.saturating_add(late) && acked_before(inputs, local, f, x.at))
}

/// Why an endpoint response that answers no expected request is wrong (CONF-CMP-033), from
/// what the scenario injected with its `op` and `request_id`: a request to a QPN other than
/// 2, which must be discarded (`ERTH-QPN-001`); a response, or a request already answered,
/// which must not be answered (again) (`ERTH-RESP-001`); or nothing, so that the response
/// does not carry the `op` and `request_id` of a request (`EETH-ECHO-001`).
/// Whether new data packet `psn` of `qp`, sent at `at`, is one the scenario expects later,
/// after a probe of the QP that comes after `at`, and a timeout retransmission of the QP
/// came before: the timeout's blame made the EV ASSUMED_BAD, and the packet waits for the
/// probe's answer (REC-EV-002.a, SND-PATH-002).
fn unblamed(exp: &[(&Record, Frame<'_>)], qp: u32, psn: u32, at: u64) -> bool {
    let of_qp = |f: &Frame<'_>| match f.kind {
        Kind::Data { qp: q, .. } | Kind::Probe { qp: q } => q == qp,
        _ => false,
    };
    let Some(due) = exp
        .iter()
        .map(|(_, f)| f)
        .find(|f| f.at > at && f.kind == Kind::Data { qp, psn, rtx: false })
    else {
        return false;
    };
    let timed_out = exp
        .iter()
        .any(|(_, f)| f.at < at && of_qp(f) && matches!(f.kind, Kind::Data { rtx: true, .. }));
    let probed = exp.iter().any(|(_, f)| {
        f.at > at && f.at < due.at && of_qp(f) && matches!(f.kind, Kind::Probe { .. })
    });
    timed_out && probed
}

/// Whether data packet of peer QP `qp` (device QP `local`) sent at `at` went out with an
/// acknowledgement of the QP that arrived after the timeout's retransmission, within `late`
/// before it, while work posted between that retransmission and the acknowledgement had
/// waited: the blamed EV came back on progress, not on a probe answer.
fn restored_at_progress(
    inputs: &[In<'_>],
    exp: &[(&Record, Frame<'_>)],
    local: Option<u32>,
    qp: u32,
    at: u64,
    late: u64,
) -> bool {
    let Some(local) = local else { return false };
    let Some(rtx_at) = exp
        .iter()
        .filter(|(_, f)| {
            f.at < at && matches!(f.kind, Kind::Data { qp: q, rtx: true, .. } if q == qp)
        })
        .map(|(_, f)| f.at)
        .max()
    else {
        return false;
    };
    let acked = |i: &In<'_>| {
        matches!(i.frame.as_ref().map(|f| &f.kind),
            Some(Kind::Sack { qp: q, .. } | Kind::Ack { qp: q, .. }) if *q == local)
    };
    let posted = |from: u64, to: u64| {
        inputs.iter().any(|p| {
            p.at > from
                && p.at < to
                && matches!(p.input, Input::Host { command: HostCommand::PostWrite(_) })
        })
    };
    inputs.iter().any(|i| {
        acked(i) && i.at > rtx_at && i.at <= at && at <= i.at + late && posted(rtx_at, i.at)
    })
}

/// Whether probe `probe` of peer QP `qp` (device QP `local`) goes on the EV that a packet a
/// NACK reported lost was last sent on before the NACK: the CPU half blamed that EV on the
/// NACK's retransmission, which no rule allows (REC-EV-002.b).
fn nack_blamed(
    inputs: &[In<'_>],
    obs: &[Frame<'_>],
    local: u32,
    qp: u32,
    probe: &Frame<'_>,
) -> bool {
    inputs.iter().filter(|i| i.at < probe.at).any(|i| {
        let Some(Kind::Nack { qp: q, psn, .. }) = i.frame.as_ref().map(|f| &f.kind) else {
            return false;
        };
        *q == local
            && obs
                .iter()
                .rfind(|f| {
                    f.at < i.at
                        && matches!(f.kind, Kind::Data { qp: d, psn: p, .. } if d == qp && p == *psn)
                })
                .is_some_and(|f| f.ev == probe.ev)
    })
}

fn endpoint_blame(inputs: &[In<'_>], op: u8, request_id: u32) -> (Clause, &'static str) {
    let mut found = None;
    for i in inputs {
        let Some(d) = i.frame.as_ref().map(|f| &f.d) else { continue };
        let Some(bth) = d.bth else { continue };
        let (e_op, e_id) = match (d.ext.erth, d.ext.eeth) {
            (Some(e), _) => (e.op.0, e.request_id),
            (_, Some(e)) => (e.op.0, e.request_id),
            _ => continue,
        };
        if (e_op, e_id) != (op, request_id) {
            continue;
        }
        found = Some(match (bth.opcode, bth.dest_qp == Qpn::ENDPOINT) {
            (Opcode::MRC_ENDPOINT_REQUEST, false) => (
                ERTH_RESP_001_E,
                "an answer to an endpoint request addressed to another QPN than 2",
            ),
            (Opcode::MRC_ENDPOINT_REQUEST, true) => {
                (ERTH_RESP_001_A, "a second answer to one endpoint request")
            }
            // The response to a request the CPU half commanded is the NIC half's to report,
            // not to answer (REC-IF-018.b).
            _ if endpoint_commanded(inputs, None, request_id) => {
                (REC_IF_018_B, "an answer to the response to a request the CPU half commanded")
            }
            _ => (ERTH_RESP_001_D, "an answer to an endpoint response"),
        });
    }
    found.unwrap_or((EETH_ECHO_001, "an endpoint response to no request the scenario made"))
}

/// Whether the CPU half commanded a probe of device QP `local` from `since` to `at`.
fn probe_commanded_since(inputs: &[In<'_>], local: Option<u32>, since: u64, at: u64) -> bool {
    inputs.iter().filter(|i| (since..=at).contains(&i.at)).any(|i| {
        matches!(i.input, Input::Cpu { command: openrdma_device::CpuCommand::Probe { qpn, .. } }
            if Some(qpn.value()) == local)
    })
}

/// Whether the CPU half commanded an endpoint request with this `request_id`, and with
/// this operation when `op` is given.
pub(super) fn endpoint_commanded(inputs: &[In<'_>], op: Option<u8>, request_id: u32) -> bool {
    use openrdma_device::CpuCommand::EndpointRequest;
    inputs.iter().any(|i| match i.input {
        Input::Cpu { command: EndpointRequest { op: o, request_id: r, .. } } => {
            *r == request_id && op.is_none_or(|op| o.0 == op)
        }
        _ => false,
    })
}

/// QPN 2 belongs to endpoint operations: a device that acts as an MRC QP numbered 2 breaks
/// ERTH-QPN-001 (CONF-CMP-033). Its outputs are an event of QP 2, a frame to the peer of a
/// QP the scenario tried to create as QP 2 (and of no other QP), and a frame to QPN 2 that
/// is not an endpoint operation.
pub(super) fn judge_reserved_qpn(
    scenario: &Scenario,
    obs_frames: &[Frame<'_>],
    observed: &[TimedOutput],
    div: &mut Vec<Divergence>,
) {
    let endpoint = Qpn::ENDPOINT.value();
    let mut peers_of_2 = BTreeSet::new();
    let mut peers_of_others = BTreeSet::new();
    for r in &scenario.records {
        if let Body::Host { command: openrdma_device::HostCommand::CreateQp(q) } = &r.body {
            let set =
                if q.qpn.value() == endpoint { &mut peers_of_2 } else { &mut peers_of_others };
            set.insert(q.peer_qpn.value());
        }
    }
    let mut push = |at: u64, what: &str, actual: String| {
        div.push(Divergence {
            actual: Some(actual),
            ..Divergence::named(at, crate::req::ERTH_QPN_001_B, what.into())
        })
    };
    for f in obs_frames {
        let Some(bth) = f.d.bth else { continue };
        if matches!(bth.opcode, Opcode::MRC_ENDPOINT_REQUEST | Opcode::MRC_ENDPOINT_RESPONSE) {
            continue;
        }
        let to = bth.dest_qp.value();
        if to == endpoint {
            push(
                f.at,
                "an MRC QP packet to QPN 2, which endpoint operations keep",
                render_frame(f.bytes),
            );
        } else if peers_of_2.contains(&to) && !peers_of_others.contains(&to) {
            push(f.at, "a packet from an MRC QP numbered 2", render_frame(f.bytes));
        }
    }
    for o in observed {
        if let Output::Event { event } = &o.output {
            if event_qpn(event) == Some(endpoint) {
                push(o.at.0, "an event of an MRC QP numbered 2", render_event(event));
            }
        }
    }
}

/// The device QP an event concerns; none for an endpoint response, which concerns the two
/// endpoints (ERTH-QPN-001).
fn event_qpn(e: &NicEvent) -> Option<u32> {
    use NicReport as R;
    let q = match e {
        NicEvent::DmaWrite(w) => w.qpn,
        NicEvent::FlagWrite(f) => f.qpn,
        NicEvent::Completion(c) => c.entry.qpn,
        NicEvent::Report(
            R::Progress { qpn, .. }
            | R::Armed { qpn, .. }
            | R::Nack { qpn, .. }
            | R::EvMarked { qpn, .. }
            | R::EvState { qpn, .. }
            | R::ProbeAnswered { qpn, .. }
            | R::Retransmitted { qpn, .. }
            | R::QpError { qpn, .. },
        ) => *qpn,
        NicEvent::Report(R::EndpointResponse { .. }) => return None,
    };
    Some(q.value())
}

/// The rule an early transport ACK breaks when the acknowledgement the device sent before it
/// did not reset its count of retired messages (RCV-ACK-002.c for an ACK, RCV-NAK-002.d for
/// a NAK): too few messages retired since that acknowledgement, enough since the one before
/// it (or since the start). Only for a QP alone in its retirement domain, whose MSNs follow
/// one another, so that the MSNs of two acknowledgements tell how many messages retired
/// between them.
fn kept_count(
    scenario: &Scenario,
    obs_frames: &[Frame<'_>],
    i: usize,
    qp: u32,
    msn: Msn,
) -> Option<(Clause, &'static str)> {
    let nic = &scenario.manifest.nic;
    let local = *peer_map(scenario).get(&qp)?;
    let domain = super::created_qp(scenario, local)?.domain;
    let shares = scenario.records.iter().any(|r| match &r.body {
        Body::Host { command: openrdma_device::HostCommand::CreateQp(q) } => {
            q.qpn.value() != local && q.domain == domain
        }
        _ => false,
    });
    if nic.retirement != openrdma_device::RetirementMode::PerQp && shares {
        return None;
    }
    let coalesce = nic.ack_coalesce;
    // The device's acknowledgements of the QP before this one: MSN and whether a NAK.
    let before: Vec<(u16, bool)> = obs_frames[..i]
        .iter()
        .filter_map(|f| match f.kind {
            Kind::Ack { qp: q, msn, syndrome, .. } if q == qp => {
                Some((msn.value(), !super::ack_class(syndrome).0))
            }
            _ => None,
        })
        .collect();
    let (&(last, nak), rest) = before.split_last()?;
    let earlier = rest.last().map_or(0xFFFF, |&(m, _)| m);
    let since = |from: u16| u32::from(msn.value().wrapping_sub(from));
    if since(last) >= coalesce || since(earlier) < coalesce || since(earlier) >= 1 << 15 {
        return None;
    }
    Some(if nak {
        (RCV_NAK_002_D, "a transport ACK early: the NAK before it did not reset the count")
    } else {
        (RCV_ACK_002_C, "a transport ACK early: the ACK before it did not reset the count")
    })
}
