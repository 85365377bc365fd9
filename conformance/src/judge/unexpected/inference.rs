//! Retransmissions inferred from a SACK: the rule of loss inference a retransmission the
//! scenario does not expect breaks, when a SACK injected just before it is what the device
//! could have inferred it from.

use openrdma_device::{CpuCommand, Input};

use super::super::obs::In;
use super::super::{Frame, Kind};
use super::acked_before;
use crate::req::*;

/// The rule of loss inference (SND-INFER-002 to -004) that observed retransmission `i`
/// of device QP `local` breaks, when a SACK injected into the QP within `late` before it
/// is what the device could have inferred it from: its PSN known to have arrived, or
/// already sent again (SND-INFER-004); not covered by the SACK (SND-INFER-002.a); its
/// only evidence a PSN that was retransmitted (SND-INFER-003.a) or one the SACK does not
/// show (SND-INFER-002.a). `None` when the SACK does justify it, or no SACK came.
pub(super) fn inference_blame(
    inputs: &[In<'_>],
    obs: &[Frame<'_>],
    local: u32,
    i: usize,
    (late, tail): (u64, bool),
) -> Option<(Clause, &'static str)> {
    use openrdma_codec::{Psn, SethRepr};
    let of = &obs[i];
    let Kind::Data { qp, psn, .. } = of.kind else { return None };
    let sacks: Vec<(u64, SethRepr)> = inputs
        .iter()
        .filter(|x| x.at <= of.at)
        .filter_map(|x| {
            let f = x.frame.as_ref()?;
            (f.d.bth?.dest_qp.value() == local).then_some((x.at, f.d.ext.seth?))
        })
        .collect();
    let &(ts, s) = sacks.last().filter(|(t, _)| t.saturating_add(late) >= of.at)?;
    let p = Psn::new(psn);
    let arrived = |q: Psn| sacks.iter().any(|(_, x)| x.is_sacked(q));
    let covered = |q: Psn| {
        s.covers_cumulatively(q) || (s.sack_offset >= 1 && q.forward_from(s.bitmap_base()) < 64)
    };
    // The device's transmissions of the QP before the SACK, in order.
    let sent: Vec<&Frame<'_>> = obs[..i]
        .iter()
        .filter(|f| f.at <= ts && matches!(f.kind, Kind::Data { qp: q, .. } if q == qp))
        .collect();
    let psn_of = |f: &Frame<'_>| match f.kind {
        Kind::Data { psn, .. } => psn,
        _ => u32::MAX,
    };
    let resent = |q: u32| {
        sent.iter().any(|f| psn_of(f) == q && matches!(f.kind, Kind::Data { rtx: true, .. }))
    };
    if s.is_sacked(p) {
        // Resent while the deciding SACK shows it arrived: no inference would (go-back-N).
        return None;
    }
    if arrived(p) {
        return Some((SND_INFER_004, "a retransmission inferred for a PSN known to have arrived"));
    }
    // Its message completed by a transport ACK injected before the SACK: its PSNs are
    // known to have arrived (SND-ACK-001.b).
    if acked_before(inputs, local, of, ts) {
        return Some((
            SND_ACK_001_B,
            "a retransmission inferred for a PSN of a message a transport ACK completed",
        ));
    }
    // A SACK whose bitmap has bits for PSNs before `snd_una` (the PSN after the
    // latest cumulative PSN an earlier SACK carried): a sender that took them for PSNs in
    // flight, as a bitmap kept modulo its size does, had evidence it must ignore.
    let una = sacks[..sacks.len() - 1]
        .iter()
        .map(|(_, x)| x.cack_psn.add(1))
        .reduce(|a, b| if b.is_after(a) { b } else { a });
    let stale_bits = una.is_some_and(|u| {
        (0..64).any(|i| s.sack_bitmap >> i & 1 == 1 && s.bitmap_base().add(i).is_before(u))
    });
    if stale_bits {
        return Some((
            SND_SACK_002_B,
            "a retransmission inferred at a SACK whose bitmap has bits for PSNs before \
             snd_una, which a sender ignores",
        ));
    }
    if !covered(p) {
        return Some((
            SND_INFER_002_A,
            "a retransmission inferred for a PSN the SACK does not cover",
        ));
    }
    // Evidence: a PSN whose latest transmission followed `from` on its EV.
    let latest = |q: u32| sent.iter().rposition(|f| psn_of(f) == q);
    let evidence = |from: usize| {
        let ev = sent[from].ev;
        sent[from + 1..]
            .iter()
            .enumerate()
            .filter(|(k, f)| f.ev == ev && latest(psn_of(f)) == Some(from + 1 + k))
            .map(|(_, f)| psn_of(f))
            .collect::<Vec<u32>>()
    };
    let last = latest(psn)?;
    // A tail probe's answer, whose probe left on the EV before the PSN's latest
    // transmission did: the answer judges only the transmissions before the probe, which
    // took the EV's next per-EV sequence number (SND-TAIL-002, CONF-CMP-120).
    if tail && s.pr && after_probe(&obs[..i], (qp, ts), &s, sent[last]) {
        return Some((
            SND_TAIL_002,
            "a retransmission inferred from a tail probe's answer for a packet sent on the \
             probe's EV after the probe",
        ));
    }
    let shown = |q: u32| s.is_sacked(Psn::new(q));
    let now = evidence(last);
    // A retransmission a SACK asked for, with no NACK or command for its PSN within
    // `late` before it: one by inference.
    let asked = |x: &In<'_>, t: u64| x.at <= t && t <= x.at.saturating_add(late);
    let by_inference = |f: &Frame<'_>| {
        matches!(f.kind, Kind::Data { rtx: true, .. })
            && sacks
                .iter()
                .any(|&(t, x)| t <= f.at && f.at <= t.saturating_add(late) && !x.is_sacked(p))
            && !inputs.iter().filter(|x| asked(x, f.at)).any(|x| match x.input {
                Input::Cpu { command: CpuCommand::Retransmit { qpn, psn: q } } => {
                    qpn.value() == local && q.value() == psn
                }
                _ => matches!(x.frame.as_ref().map(|f| &f.kind),
                    Some(&Kind::Nack { qp: l, psn: q, .. }) if l == local && q == psn),
            })
    };
    if now.iter().any(|&q| shown(q)) && sent.iter().any(|f| psn_of(f) == psn && by_inference(f)) {
        return Some((
            SND_RTX_003,
            "a second retransmission by inference of a PSN already retransmitted by inference",
        ));
    }
    if now.iter().any(|&q| shown(q) && !resent(q)) {
        return None;
    }
    if now.iter().any(|&q| shown(q)) {
        return Some((
            SND_INFER_003_A,
            "a retransmission inferred from the arrival of a PSN that was retransmitted",
        ));
    }
    if now.iter().any(|&q| arrived(Psn::new(q))) {
        return Some((
            SND_INFER_002_A,
            "a retransmission inferred from an arrival the SACK does not show",
        ));
    }
    let before = sent[..last].iter().enumerate().filter(|(_, f)| psn_of(f) == psn);
    if before.into_iter().any(|(k, _)| evidence(k).iter().any(|&q| shown(q))) {
        return Some((
            SND_INFER_004,
            "a retransmission inferred for a transmission sent again since",
        ));
    }
    None
}

/// Whether `latest`, a data packet of `qp` among `obs`, went on the EV of the probe of
/// `qp` that the probe answer `answer`, injected at `ts`, answers, after that probe left.
fn after_probe(
    obs: &[Frame<'_>],
    (qp, ts): (u32, u64),
    answer: &openrdma_codec::SethRepr,
    latest: &Frame<'_>,
) -> bool {
    let (ev, id) = (answer.entropy, answer.ack_psn_offset as u16);
    let probe = obs.iter().rposition(|o| {
        o.at <= ts
            && o.kind == Kind::Probe { qp }
            && o.ev == ev
            && o.d.ext.peth.is_some_and(|h| h.probe_id == id)
    });
    let at = obs.iter().rposition(|o| std::ptr::eq(o, latest));
    matches!((probe, at), (Some(p), Some(j)) if j > p) && latest.ev == ev
}
