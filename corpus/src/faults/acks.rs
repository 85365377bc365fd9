//! Faults of the checks a sender makes on the acknowledgements it receives (sender sections
//! 7 and 9): a range check left out, so that a SACK or NACK the sender must discard, or
//! ignore as stale, is acted on as if it were right.

use std::collections::HashMap;

use openrdma_codec::frame::decode;
use openrdma_codec::{AethMsn, Msn, NackReason, Psn, Qpn};
use openrdma_conformance::req;
use openrdma_device::{
    Input, Manifest, NicEvent, NicReport, Output, RetransmitCause, TimedInput, TimedOutput,
    Timestamp,
};

use super::qps::Qps;
use super::{Batch, Fault, Stream, stream};

/// Faults of this family the corpus cannot catch, not registered, with the reason.
pub const NOT_REGISTERED: &[(&str, &str)] = &[(
    "stale-nack-reported-as-violation",
    "a peer violation is not an output of the device: SND-NACK-001.b, SND-NACK-001.d and \
         SND-SACK-005.a cannot show at its boundary",
)];

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "sack-beyond-sent-taken",
        "a SACK's cack_psn and bitmap are not checked against snd_nxt: one that claims PSNs never sent is taken as acknowledging all that was sent",
        &[req::SND_SACK_003],
        &["snd-sack-order"],
        |m| Box::new(TakesBadSack::new(m, Bad::BeyondSent)),
    ),
    stream(
        "sack-offset-unchecked",
        "a SACK's sack_offset is not range-checked: one beyond any window is taken, its bitmap falling on no PSN in flight",
        &[req::SND_SACK_004],
        &["snd-sack-order"],
        |m| Box::new(TakesBadSack::new(m, Bad::Offset)),
    ),
    stream(
        "sack-bitmap-alias",
        "the arrived PSNs are kept in a ring of 128 bits indexed by PSN: a SACK bit for a PSN \
         before snd_una marks the PSN 128 later, which may be in flight, as arrived",
        &[req::SND_SACK_002_B],
        &["snd-window-initial"],
        |m| Box::new(TakesBadSack::new(m, Bad::Alias)),
    ),
    stream(
        "stale-nack-retransmitted",
        "a NACK for a PSN already acknowledged is taken as one for an outstanding PSN: the PSN is sent again after the back-off",
        &[req::SND_NACK_001_A],
        &["snd-nack-backoff"],
        |m| Box::new(StaleNackTaken::new(m)),
    ),
    stream(
        "wild-nack-reported",
        "a NACK for a PSN never sent is not range-checked: it is reported to the CPU half as a NACK",
        &[req::SND_NACK_001_C],
        &["snd-nack-backoff"],
        |_| Box::<WildNackReported>::default(),
    ),
    stream(
        "stale-sack-dropped",
        "a SACK whose cack_psn is before the last one taken is dropped whole as out of date, its mark unapplied",
        &[req::SND_SACK_005_B],
        &["rec-split-skip-expiry"],
        |_| Box::<StaleSackDropped>::default(),
    ),
    stream(
        "ack-msn-unchecked",
        "an AETH's msn is not checked against the next MSN to assign: one ahead of every message sent completes all of them",
        &[req::SND_ACK_002],
        &["snd-segmentation"],
        |_| Box::<AckMsnUnchecked>::default(),
    ),
];

/// SACKs older than the last one taken, dropped.
#[derive(Debug, Default)]
struct StaleSackDropped {
    /// The highest `cack_psn` taken, by device QP.
    acked: HashMap<u32, Psn>,
}

impl Stream for StaleSackDropped {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        inputs.retain(|i| {
            let Input::Frame { bytes, .. } = &i.input else { return true };
            let d = decode(bytes);
            let (Some(b), Some(s)) = (d.bth, d.ext.seth.filter(|s| !s.pr)) else { return true };
            let acked = self.acked.entry(b.dest_qp.value()).or_insert(s.cack_psn);
            if s.cack_psn.is_before(*acked) {
                return false;
            }
            *acked = s.cack_psn;
            true
        });
        inputs
    }
}

/// AETHs whose `msn` is at or after the next MSN, taken for the latest message sent.
#[derive(Debug, Default)]
struct AckMsnUnchecked {
    qps: Qps,
    /// The MSN of the latest message each peer QP was sent a packet of.
    last: HashMap<u32, Msn>,
}

impl Stream for AckMsnUnchecked {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            self.qps.learn(&i.input);
            let Input::Frame { bytes, .. } = &mut i.input else { continue };
            let Some(mut f) = decode(bytes).to_repr() else { continue };
            let peer = self.qps.peer(f.bth.dest_qp.value());
            let Some(&last) = peer.and_then(|p| self.last.get(&p)) else { continue };
            let Some(a) = f.ext.aeth.as_mut() else { continue };
            let ahead = a.msn.msn().value().wrapping_sub(last.value());
            if !(1..1 << 15).contains(&ahead) {
                continue;
            }
            a.msn = AethMsn::from(last);
            if let Ok(b) = super::refit(&mut f) {
                *bytes = b;
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            let Output::Frame { bytes, .. } = &o.output else { continue };
            let d = decode(bytes);
            let (Some(b), Some(m)) =
                (d.bth.filter(|b| b.opcode.is_mrc_write() && !b.rtx), d.ext.meth)
            else {
                continue;
            };
            self.last.insert(b.dest_qp.value(), m.msn);
        }
        outputs
    }
}

/// The last PSN each QP sent: the QPs created, and the latest first transmission to each
/// peer QP.
#[derive(Debug, Default)]
struct LastSent {
    qps: Qps,
    last: HashMap<u32, Psn>,
}

impl LastSent {
    /// Learns the QPs created among `inputs`.
    fn created(&mut self, inputs: &[TimedInput]) {
        self.qps.learn_all(inputs);
    }

    /// Learns the first transmissions among `outputs`.
    fn sent(&mut self, outputs: &[TimedOutput]) {
        for o in outputs {
            let Output::Frame { bytes, .. } = &o.output else { continue };
            let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write() && !b.rtx) else {
                continue;
            };
            self.last.insert(b.dest_qp.value(), b.psn);
        }
    }

    /// The last PSN device QP `local` sent (`snd_nxt − 1`), if it sent any.
    fn of(&self, local: u32) -> Option<Psn> {
        self.last.get(&self.qps.peer(local)?).copied()
    }
}

/// Which check of SND-SACK-003 and SND-SACK-004 the device leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bad {
    /// A SACK that acknowledges a PSN never sent is taken, clipped to what was sent.
    BeyondSent,
    /// A SACK whose offset lies beyond any window is taken, its bitmap on nothing.
    Offset,
    /// A SACK whose bitmap bits all stand for PSNs before `snd_una` is taken as if each
    /// stood for the PSN 128 later (SND-SACK-002.b): a ring of 128 bits has one slot for
    /// both.
    Alias,
}

/// SACKs one check would discard, made into what the device takes of them.
#[derive(Debug)]
struct TakesBadSack {
    bad: Bad,
    window: u32,
    sent: LastSent,
    /// `snd_una` of each device QP, from the SACKs taken.
    una: HashMap<u32, Psn>,
}

impl TakesBadSack {
    fn new(m: &Manifest, bad: Bad) -> TakesBadSack {
        TakesBadSack { bad, window: m.nic.window(), sent: LastSent::default(), una: HashMap::new() }
    }

    /// The SACK of `bytes` as the device takes it, or `None` when the check is not needed.
    fn taken(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        let mut f = decode(bytes).to_repr()?;
        let local = f.bth.dest_qp.value();
        let s = f.ext.seth.as_mut()?;
        match self.bad {
            Bad::BeyondSent => {
                let last = self.sent.of(local)?;
                let base = s.bitmap_base();
                let mut beyond = 0u64;
                for i in 0..64 {
                    if base.add(i).is_after(last) {
                        beyond |= 1 << i;
                    }
                }
                if !s.cack_psn.is_after(last) && s.sack_bitmap & beyond == 0 {
                    return None;
                }
                if s.cack_psn.is_after(last) {
                    s.cack_psn = last;
                    s.sack_bitmap = 0;
                } else {
                    s.sack_bitmap &= !beyond;
                }
            }
            Bad::Offset => {
                if i32::from(s.sack_offset).unsigned_abs() <= self.window + 64 {
                    return None;
                }
                (s.sack_offset, s.sack_bitmap) = (0, 0);
            }
            Bad::Alias => {
                let una = *self.una.get(&local)?;
                let last = self.sent.of(local)?;
                let base = s.bitmap_base();
                let set: Vec<Psn> =
                    (0..64).filter(|i| s.sack_bitmap >> i & 1 == 1).map(|i| base.add(i)).collect();
                // Every bit before snd_una, and the PSN 128 later of each in flight.
                let aliased = |p: &Psn| p.is_before(una) && !p.add(128).is_before(una);
                if set.is_empty() || s.pr || !set.iter().all(aliased) {
                    return None;
                }
                if set.iter().any(|p| p.add(128).is_after(last)) {
                    return None;
                }
                s.sack_offset = s.sack_offset.checked_add(128)?;
            }
        }
        super::refit(&mut f).ok()
    }
}

impl Stream for TakesBadSack {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.sent.created(&inputs);
        for i in &mut inputs {
            if let Input::Frame { bytes, .. } = &mut i.input {
                let d = decode(bytes);
                let cack = d.bth.zip(d.ext.seth.filter(|s| !s.pr));
                let taken = self.taken(bytes);
                if let Some((b, s)) = cack {
                    let next = s.cack_psn.add(1);
                    let una = self.una.entry(b.dest_qp.value()).or_insert(next);
                    if next.is_after(*una) {
                        *una = next;
                    }
                }
                if let Some(b) = taken {
                    *bytes = b;
                }
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        self.sent.sent(&outputs);
        outputs
    }
}

/// NACKs for PSNs already acknowledged, taken: the PSN's latest transmission goes again,
/// with its report, once the back-off has passed (at once for a trim), on the EV the QP's
/// next first transmission takes, a usable one.
#[derive(Debug)]
struct StaleNackTaken {
    backoff: u64,
    window: u32,
    qps: Qps,
    /// The highest `cack_psn` of the SACKs each device QP took.
    acked: HashMap<u32, Psn>,
    /// The latest transmission of each (peer QP, PSN).
    latest: HashMap<(u32, u32), Vec<u8>>,
    /// The retransmissions due: from when, device QP, peer QP, PSN.
    due: Vec<(u64, u32, u32, u32)>,
}

impl StaleNackTaken {
    fn new(m: &Manifest) -> StaleNackTaken {
        StaleNackTaken {
            backoff: u64::try_from(m.nic.nack_backoff.as_nanos()).unwrap_or(u64::MAX),
            window: m.nic.window(),
            qps: Qps::default(),
            acked: HashMap::new(),
            latest: HashMap::new(),
            due: Vec::new(),
        }
    }

    /// The retransmissions due by `at` to `peer`, each with its report, on EV `ev`.
    fn again(&mut self, at: Timestamp, peer: u32, ev: openrdma_codec::Ev) -> Vec<TimedOutput> {
        let mut out = Vec::new();
        let (now, later): (Vec<_>, Vec<_>) =
            self.due.drain(..).partition(|q| q.0 <= at.0 && q.2 == peer);
        self.due = later;
        for (_, local, _, psn) in now {
            let Some(bytes) = self.latest.get(&(peer, psn)) else { continue };
            let Some(mut f) = decode(bytes).to_repr() else { continue };
            f.bth.rtx = true;
            let lost_ev = f.entropy();
            f.set_entropy(ev);
            let Ok(again) = super::refit(&mut f) else { continue };
            let report = NicReport::Retransmitted {
                qpn: Qpn::new(local),
                psn: Psn::new(psn),
                cause: RetransmitCause::Nack,
                lost_ev: Some(lost_ev),
            };
            let event = NicEvent::Report(report);
            out.push(TimedOutput { at, output: Output::Event { event } });
            out.push(TimedOutput { at, output: Output::Frame { port: 0, bytes: again } });
        }
        out
    }
}

impl Stream for StaleNackTaken {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.received(&inputs, |r| {
            let (local, peer) = (r.qp.qpn.value(), r.qp.peer_qpn.value());
            if let Some(s) = r.d.ext.seth.filter(|s| !s.pr) {
                let acked = self.acked.entry(local).or_insert(s.cack_psn);
                if s.cack_psn.is_after(*acked) {
                    *acked = s.cack_psn;
                }
            }
            let Some(n) = r.d.ext.neth.filter(|n| !n.reason.is_fatal()) else { return };
            let Some(&acked) = self.acked.get(&local) else { return };
            // Stale: one of the W_own PSNs up to the last acknowledged.
            let back = acked.distance(n.nack_psn);
            if back < 0 || back.unsigned_abs() >= self.window {
                return;
            }
            let wait = if n.reason.is_trim() { 0 } else { self.backoff };
            let at = r.at.0.saturating_add(wait);
            self.due.push((at, local, peer, n.nack_psn.value()));
        });
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            if let Output::Frame { bytes, .. } = &o.output {
                let d = decode(bytes);
                if let Some(b) = d.bth.filter(|b| b.opcode.is_mrc_write()) {
                    let peer = b.dest_qp.value();
                    if !b.rtx {
                        let ev = d.entropy().unwrap_or_default();
                        out.extend(self.again(o.at, peer, ev));
                    }
                    self.latest.insert((peer, b.psn.value()), bytes.clone());
                }
            }
            out.push(o);
        }
        out
    }
}

/// NACKs for PSNs never sent, reported to the CPU half as any NACK is.
#[derive(Debug, Default)]
struct WildNackReported {
    sent: LastSent,
    /// The reports due: when, device QP, PSN, reason.
    due: Vec<(Timestamp, u32, Psn, NackReason)>,
}

impl Stream for WildNackReported {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.sent.created(&inputs);
        for i in &inputs {
            let Input::Frame { bytes, .. } = &i.input else { continue };
            let d = decode(bytes);
            let (Some(b), Some(n)) = (d.bth, d.ext.neth.filter(|n| !n.reason.is_fatal())) else {
                continue;
            };
            let local = b.dest_qp.value();
            if self.sent.of(local).is_some_and(|last| n.nack_psn.is_after(last)) {
                self.due.push((i.at, local, n.nack_psn, n.reason));
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        self.sent.sent(&outputs);
        for (at, local, psn, reason) in self.due.drain(..) {
            let report = NicReport::Nack { qpn: Qpn::new(local), psn, reason };
            let event = NicEvent::Report(report);
            outputs.push(TimedOutput { at, output: Output::Event { event } });
        }
        outputs.sort_by_key(|o| o.at);
        outputs
    }
}
