//! What a `Retransmitted` report says (REC-IF-008), judged by truth from the scenario's
//! inputs and the device's own frames (CONF-CMP-075): its cause must be one the inputs
//! gave, and its `lost_ev` the EV the PSN last left on before the retransmission.
//!
//! The report's presence is judged in `events.rs` (one report per retransmission); here
//! only its contents. Each rule reads what no device choice can change:
//!
//! * cause `nack` needs an injected NACK of that PSN to the QP before the report, cause
//!   `sack_inference` an injected probe answer to the QP or a SACK to the QP that can infer
//!   the PSN lost (CONF-CMP-139), cause `timeout` a `Retransmit` command for the QP;
//! * a retransmission from the retransmission queue (cause `sack_inference` or `nack`)
//!   names the EV of the transmission presumed lost; when it names one, for any cause, that
//!   EV is the one a previous transmission of the PSN left on, right before a
//!   retransmission of it that the report can describe;
//! * a resend (cause `timeout` for a PSN an injected SACK had certainly claimed) repeats a
//!   packet that arrived and names no EV.

use std::collections::HashMap;

use openrdma_codec::{Ev, Psn};
use openrdma_device::{CpuCommand, Input, NicEvent, NicReport, RetransmitCause, Scenario};

use super::obs::{Frame, In, Kind};
use super::{Divergence, peer_map, render_event, wire_ev};
use crate::req::{REC_IF_008, SND_SACK_001};

/// The device's data frames per (local QP, PSN), in the order sent: (time, EV, `rtx`).
type Sent = HashMap<(u32, u32), Vec<(u64, Ev, bool)>>;

/// Judges the cause and `lost_ev` of every `Retransmitted` report.
pub(super) fn judge_retransmit_contents(
    scenario: &Scenario,
    inputs: &[In<'_>],
    frames: &[Frame<'_>],
    events: &[(u64, &NicEvent)],
    div: &mut Vec<Divergence>,
) {
    let late = scenario.manifest.tolerances.late_ns;
    let ipv4 = !scenario.manifest.link.is_ipv6();
    let local_of = peer_map(scenario);
    // The device's data frames per (local QP, PSN), in the order sent: (time, EV, rtx).
    let mut sent = Sent::new();
    for f in frames {
        if let Kind::Data { qp, psn, rtx } = f.kind {
            if let Some(&local) = local_of.get(&qp) {
                sent.entry((local, psn)).or_default().push((f.at, f.ev, rtx));
            }
        }
    }
    // The reports of cause `nack` so far, per (QP, PSN) (CONF-CMP-139).
    let mut nacks_used: HashMap<(u32, u32), usize> = HashMap::new();
    for &(t, e) in events {
        let NicEvent::Report(NicReport::Retransmitted { qpn, psn, cause, lost_ev }) = e else {
            continue;
        };
        let (q, p) = (qpn.value(), psn.value());
        let mut rule = REC_IF_008;
        let nack_spent = *cause == RetransmitCause::Nack && {
            let used = nacks_used.entry((q, p)).or_insert(0);
            *used += 1;
            nacks_of(inputs, q, p, t) < *used
        };
        let what = if nack_spent {
            format!(
                "a Retransmitted report of PSN {p} on QP {q} with cause nack, but every NACK \
                 of the PSN before it has a report of its own: one NACK queues one \
                 retransmission"
            )
        } else if !cause_given(inputs, q, p, *cause, t) {
            format!(
                "a Retransmitted report of PSN {p} on QP {q} with cause {}, which no input \
                 before it gave",
                cause_name(*cause)
            )
        } else if let Some(w) = lost_ev_wrong(&sent, (q, p), *cause, *lost_ev, t, late, ipv4) {
            w
        } else if lost_ev.is_some()
            && *cause == RetransmitCause::Timeout
            && claimed(inputs, q, p, t.saturating_sub(late))
        {
            if cumulative_unseen(inputs, events, (q, p), (t.saturating_sub(late), t)) {
                // The device's own snd_una shows it never took the PSN as arrived: the
                // report is true to a queue that kept an acknowledged PSN (SND-SACK-001).
                rule = SND_SACK_001;
                format!(
                    "PSN {p} of QP {q} is resent from the retransmission queue, lost EV and \
                     all, though a SACK's cack_psn had acknowledged it: the device's last \
                     Progress still gives it as unacknowledged"
                )
            } else {
                format!(
                    "a Retransmitted report of PSN {p} on QP {q} names a lost EV, but a SACK \
                     had claimed the PSN: a resend repeats a packet that arrived and names none"
                )
            }
        } else {
            continue;
        };
        let mut d = Divergence::of(t, rule, what);
        d.actual = Some(render_event(e));
        div.push(d);
    }
}

fn cause_name(c: RetransmitCause) -> &'static str {
    match c {
        RetransmitCause::SackInference => "sack_inference",
        RetransmitCause::Nack => "nack",
        RetransmitCause::Timeout => "timeout",
    }
}

/// Whether an input at or before `t` can have caused a retransmission of `p` on QP `q` for
/// `cause`.
fn cause_given(inputs: &[In<'_>], q: u32, p: u32, cause: RetransmitCause, t: u64) -> bool {
    inputs.iter().filter(|i| i.at <= t).any(|i| match (cause, i.input, &i.frame) {
        (
            RetransmitCause::Timeout,
            Input::Cpu { command: CpuCommand::Retransmit { qpn, .. } },
            _,
        ) => qpn.value() == q,
        (RetransmitCause::Nack, _, Some(f)) => {
            matches!(f.kind, Kind::Nack { qp, psn, .. } if qp == q && psn == p)
        }
        (RetransmitCause::SackInference, _, Some(f)) => match f.kind {
            Kind::Sack { qp, cack, bitmap, .. } if qp == q => {
                f.d.ext
                    .seth
                    .as_ref()
                    .is_some_and(|s| s.pr || infers(s.sack_offset, cack, bitmap, p))
            }
            _ => false,
        },
        _ => false,
    })
}

/// The NACKs of PSN `p` into QP `q` delivered at or before `t`.
fn nacks_of(inputs: &[In<'_>], q: u32, p: u32, t: u64) -> usize {
    inputs
        .iter()
        .filter(|i| i.at <= t)
        .filter(|i| {
            i.frame.as_ref().is_some_and(
                |f| matches!(f.kind, Kind::Nack { qp, psn, .. } if qp == q && psn == p),
            )
        })
        .count()
}

/// Whether a SACK with `pr` 0 can make a suspect of PSN `p` lost (CONF-CMP-139): its bitmap
/// covers `p` as SND-INFER-002 says (`sack_offset` at least 1, `p` among the 64 PSNs from
/// `cack_psn + sack_offset`), does not show `p` as arrived, and shows a later PSN as arrived,
/// the only place a suspect's evidence can be.
fn infers(sack_offset: i16, cack: u32, bitmap: u64, p: u32) -> bool {
    if sack_offset < 1 {
        return false;
    }
    let base = cack.wrapping_add(sack_offset as u32) & 0xFF_FFFF;
    let i = p.wrapping_sub(base) & 0xFF_FFFF;
    i < 63 && bitmap >> i & 1 == 0 && bitmap >> (i + 1) != 0
}

/// What is wrong with `lost_ev`, if anything: a retransmission from the queue names one,
/// and a named one is the EV of the transmission right before a retransmission of the PSN
/// sent within `late` of the report.
fn lost_ev_wrong(
    sent: &Sent,
    (q, p): (u32, u32),
    cause: RetransmitCause,
    lost_ev: Option<Ev>,
    t: u64,
    late: u64,
    ipv4: bool,
) -> Option<String> {
    let Some(lost) = lost_ev else {
        return (cause != RetransmitCause::Timeout).then(|| {
            format!(
                "a Retransmitted report of PSN {p} on QP {q} with cause {} names no lost EV: \
                 a retransmission from the queue names the EV of the transmission presumed lost",
                cause_name(cause)
            )
        });
    };
    let txs = sent.get(&(q, p))?;
    let mut before = Vec::new();
    for w in txs.windows(2) {
        let ((_, prev, _), (at, _, rtx)) = (w[0], w[1]);
        if rtx && at.abs_diff(t) <= late {
            if prev == wire_ev(ipv4, lost) {
                return None;
            }
            before.push(prev);
        }
    }
    let prev = before.first()?;
    Some(format!(
        "a Retransmitted report of PSN {p} on QP {q} names lost EV {:#x}; the PSN's previous \
         transmission left on EV {:#x}",
        lost.value(),
        prev.value()
    ))
}

/// Whether a SACK injected at or before `t` to QP `q` acknowledged PSN `p` by its
/// `cack_psn`, while the device's last `Progress` of `q` by `report` (the time of the
/// report that resends `p`) still gives an `snd_una` at or before `p`: the device did not
/// take the cumulative point (SND-SACK-001). `false` without a `Progress`, which leaves
/// the device's view unknown.
fn cumulative_unseen(
    inputs: &[In<'_>],
    events: &[(u64, &NicEvent)],
    (q, p): (u32, u32),
    (t, report): (u64, u64),
) -> bool {
    let p = Psn::new(p);
    // `cack` at or after `p`: `p` is not ahead of it.
    let cumulative = inputs.iter().filter(|i| i.at <= t).any(|i| {
        matches!(i.frame.as_ref().map(|f| &f.kind),
            Some(&Kind::Sack { qp, cack, .. }) if qp == q && !p.is_after(Psn::new(cack)))
    });
    let mut una = events.iter().filter(|&&(at, _)| at <= report).filter_map(|&(_, e)| match e {
        NicEvent::Report(NicReport::Progress { qpn, snd_una, .. }) if qpn.value() == q => {
            Some(*snd_una)
        }
        _ => None,
    });
    // The last snd_una is at or before `p`: it is not ahead of `p`.
    let behind = una.next_back().is_some_and(|u| !u.is_after(p));
    cumulative && behind
}

/// Whether a SACK injected at or before `t` to QP `q` claimed PSN `p`, cumulatively or in
/// its bitmap.
fn claimed(inputs: &[In<'_>], q: u32, p: u32, t: u64) -> bool {
    let p = Psn::new(p);
    inputs.iter().filter(|i| i.at <= t).any(|i| match i.frame.as_ref().map(|f| &f.kind) {
        Some(&Kind::Sack { qp, cack, base, bitmap }) if qp == q => {
            let off = p.forward_from(Psn::new(base));
            !p.is_after(Psn::new(cack)) || (off < 64 && (bitmap >> off) & 1 == 1)
        }
        _ => false,
    })
}
