//! Faults of the round-trip estimates a `skew-aware` QP sprays by (`SND-RTT-002`,
//! `SND-SPRAY-004`), and of the estimates a `window-fit` QP sprays by (`SND-SPRAY-006`,
//! `SND-SPRAY-007`): one rule of keeping them broken at a time.
//!
//! A window-fit device with one estimate wrong is the reference with that estimate kept
//! wrong inside it: its choices, its probes of the EVs it leaves out and all that follows
//! from them stay consistent with the wrong estimate, as a real device's would, which no
//! rewrite of its frames could make.
//!
//! The stream follows each skew-aware QP from its boundary — the data packets it sends and
//! the SACKs and ACKs it gets — twice: with estimates kept by the rules, and with one rule
//! broken. Where the rules give the EV the reference chose and the broken estimates give
//! another, the packet goes on that other EV, and the stream follows it there: the
//! device's engines are right, only its estimates are wrong. Where the rules the stream
//! keeps do not give the reference's EV (an EV out of GOOD, the round robin before every EV
//! has an estimate), the packet is left as it is.

use std::collections::{BTreeMap, HashMap};

use openrdma_codec::frame::decode;
use openrdma_codec::{Ev, Opcode, Psn};
use openrdma_conformance::req;
use openrdma_device::{HostCommand, Input, Manifest, Output, SprayPolicy, TimedInput, TimedOutput};

use openrdma_sm::FitFault;

use super::{Batch, Edits, Fault, Stream, fault, refit, stream};

/// Every fault of the round-trip estimates.
pub static FAULTS: &[Fault] = &[
    stream(
        "rtt-inflight-unreleased",
        "a retransmission adds its PSN to the in-flight count of its new EV but never takes \
         it off the count of the EV it was sent on before",
        &[req::SND_RTX_006_A],
        &["snd-spray-skew-aware"],
        |m| Estimating::boxed(Wrong::Unreleased, m),
    ),
    stream(
        "rtt-sample-of-retransmission",
        "the arrival of a retransmitted PSN gives a round-trip sample, the time since its \
         latest transmission, for that transmission's EV",
        &[req::SND_INFER_003_B, req::SND_RTT_002],
        &["snd-spray-skew-aware"],
        |m| Estimating::boxed(Wrong::SampleOfRetransmission, m),
    ),
    stream(
        "rtt-unsmoothed",
        "each round-trip sample replaces its EV's estimate instead of being averaged into it",
        &[req::SND_RTT_002],
        &["snd-spray-skew-aware"],
        |m| Estimating::boxed(Wrong::Unsmoothed, m),
    ),
    fault(
        "fit-limit-no-margin",
        "the window-fit limit keeps only the count of EVs with the best sending rate, \
         without the margin of 1/16, so EVs a little slower than the fastest are left out",
        &[req::SND_SPRAY_006],
        &["snd-spray-window-fit-margin"],
        Edits { fit: Some(FitFault::NoMargin), ..Edits::NONE },
    ),
    fault(
        "fit-rate-per-qp",
        "the window-fit estimate of the time one EV takes to carry a packet is the time \
         between the QP's packets, not multiplied by the EVs in use",
        &[req::SND_SPRAY_007],
        &["snd-spray-window-fit"],
        Edits { fit: Some(FitFault::PerQpGap), ..Edits::NONE },
    ),
];

/// The rule of keeping the estimates that is broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wrong {
    /// None: the estimates by the rules.
    Nothing,
    /// A retransmission leaves its PSN counted on the EV it was sent on before
    /// (SND-RTX-006.a).
    Unreleased,
    /// A retransmitted PSN's arrival gives a sample from its latest transmission
    /// (SND-INFER-003.b).
    SampleOfRetransmission,
    /// A sample replaces `srtt` (SND-RTT-002).
    Unsmoothed,
}

/// One PSN as the QP's boundary shows it.
#[derive(Debug, Clone)]
struct Psn1 {
    first_at: u64,
    last_at: u64,
    /// The EVs of its transmissions, the latest last.
    evs: Vec<Ev>,
    msn: Option<u16>,
    arrived: bool,
}

/// The estimates of one QP, kept by the rules or with one broken.
#[derive(Debug, Clone)]
struct Keeper {
    wrong: Wrong,
    evs: Vec<Ev>,
    srtt: Vec<Option<u64>>,
    /// Transmissions counted on each EV that the count never gave back.
    leaked: Vec<u64>,
    una: Psn,
    psns: BTreeMap<u32, Psn1>,
}

impl Keeper {
    fn new(wrong: Wrong, evs: Vec<Ev>, initial: Psn) -> Keeper {
        let n = evs.len();
        Keeper {
            wrong,
            evs,
            srtt: vec![None; n],
            leaked: vec![0; n],
            una: initial,
            psns: BTreeMap::new(),
        }
    }

    fn sent(&mut self, at: u64, psn: u32, ev: Ev, msn: Option<u16>) {
        let p = self.psns.entry(psn).or_insert(Psn1 {
            first_at: at,
            last_at: at,
            evs: Vec::new(),
            msn,
            arrived: false,
        });
        if let Some(&before) = p.evs.last() {
            if self.wrong == Wrong::Unreleased {
                if let Some(i) = self.evs.iter().position(|&e| e == before) {
                    self.leaked[i] += 1;
                }
            }
        }
        p.last_at = at;
        p.evs.push(ev);
        p.msn = p.msn.or(msn);
    }

    /// `psn` known to have arrived at `at`.
    fn arrived(&mut self, at: u64, psn: u32) {
        let Some(p) = self.psns.get_mut(&psn).filter(|p| !p.arrived) else { return };
        p.arrived = true;
        let (from, ev) = if p.evs.len() == 1 {
            (p.first_at, p.evs[0])
        } else if self.wrong == Wrong::SampleOfRetransmission {
            (p.last_at, p.evs[p.evs.len() - 1])
        } else {
            return;
        };
        let sample = at.saturating_sub(from);
        let Some(i) = self.evs.iter().position(|&e| e == ev) else { return };
        self.srtt[i] = Some(match self.srtt[i] {
            Some(s) if self.wrong != Wrong::Unsmoothed => (7 * s + sample) / 8,
            _ => sample.max(1),
        });
    }

    fn sack(&mut self, at: u64, cack: Psn, base: Psn, bitmap: u64) {
        let una = self.una;
        let mut shown: Vec<u32> = self
            .psns
            .keys()
            .copied()
            .filter(|&q| {
                let q = Psn::new(q);
                !q.is_after(cack)
                    || (!una.is_after(q)
                        && q.in_window(base, 64)
                        && bitmap >> q.forward_from(base) & 1 == 1)
            })
            .collect();
        shown.sort_by_key(|&q| Psn::new(q).forward_from(una));
        if cack.add(1).is_after(self.una) {
            self.una = cack.add(1);
        }
        for q in shown {
            self.arrived(at, q);
        }
    }

    fn acked(&mut self, at: u64, msn: u16) {
        let covered: Vec<u32> = self
            .psns
            .iter()
            .filter(|(_, p)| p.msn.is_some_and(|m| msn.wrapping_sub(m) < 1 << 15))
            .map(|(&q, _)| q)
            .collect();
        for q in covered {
            self.arrived(at, q);
        }
    }

    /// The EV skew-aware spraying gives the next transmission of `psn`, among the primary
    /// EVs (less the PSN's previous one), or `None` while one has no estimate.
    fn choose(&self, psn: u32) -> Option<Ev> {
        let before = self.psns.get(&psn).and_then(|p| p.evs.last().copied());
        let mut best: Option<(u64, usize)> = None;
        for (i, &ev) in self.evs.iter().enumerate() {
            if Some(ev) == before && self.evs.len() > 1 {
                continue;
            }
            let inflight =
                self.psns.values().filter(|p| !p.arrived && p.evs.last() == Some(&ev)).count()
                    as u64
                    + self.leaked[i];
            let cost = self.srtt[i]?.saturating_mul(inflight + 1);
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, i));
            }
        }
        best.map(|(_, i)| self.evs[i])
    }
}

/// A device whose skew-aware QPs keep their estimates with one rule broken.
#[derive(Debug)]
struct Estimating {
    wrong: Wrong,
    ipv4: bool,
    /// The device's QPNs to the peer QPNs their packets carry.
    peer_of: HashMap<u32, u32>,
    /// Per skew-aware QP (by peer QPN): the estimates by the rules and the wrong ones.
    qps: HashMap<u32, (Keeper, Keeper)>,
    inputs: Vec<TimedInput>,
}

impl Estimating {
    fn boxed(wrong: Wrong, m: &Manifest) -> Box<dyn Stream> {
        Box::new(Estimating {
            wrong,
            ipv4: !m.link.is_ipv6(),
            peer_of: HashMap::new(),
            qps: HashMap::new(),
            inputs: Vec::new(),
        })
    }

    fn input(&mut self, i: &TimedInput) {
        match &i.input {
            Input::Host { command: HostCommand::CreateQp(q) }
                if q.spray == SprayPolicy::SkewAware =>
            {
                let ipv4 = self.ipv4;
                let wire = |ev: &Ev| if ipv4 { Ev::from_halves(ev.high(), 0) } else { *ev };
                let evs: Vec<Ev> = q.evs.iter().map(wire).collect();
                let peer = q.peer_qpn.value();
                self.peer_of.insert(q.qpn.value(), peer);
                let right = Keeper::new(Wrong::Nothing, evs.clone(), q.initial_psn);
                let wrong = Keeper::new(self.wrong, evs, q.initial_psn);
                self.qps.insert(peer, (right, wrong));
            }
            Input::Frame { bytes, .. } => {
                let d = decode(bytes);
                let Some(b) = d.bth.filter(|_| d.error.is_none()) else { return };
                let Some(peer) = self.peer_of.get(&b.dest_qp.value()) else { return };
                let Some((right, wrong)) = self.qps.get_mut(peer) else { return };
                let at = i.at.0;
                if let (Opcode::MRC_SACK, Some(s)) = (b.opcode, d.ext.seth.filter(|s| !s.pr)) {
                    for k in [right, wrong] {
                        k.sack(at, s.cack_psn, s.bitmap_base(), s.sack_bitmap);
                    }
                } else if let (Opcode::MRC_ACKNOWLEDGE, Some(a)) = (b.opcode, d.ext.aeth) {
                    for k in [right, wrong] {
                        k.acked(at, a.msn.msn().value());
                    }
                }
            }
            _ => {}
        }
    }

    /// A data frame the reference sends: on the EV the wrong estimates give, where the
    /// right ones give the reference's.
    fn sent(&mut self, at: u64, bytes: &[u8]) -> Option<Vec<u8>> {
        let d = decode(bytes);
        let b = d.bth.filter(|b| b.opcode.is_mrc_write())?;
        let (right, wrong) = self.qps.get_mut(&b.dest_qp.value())?;
        let psn = b.psn.value();
        let ev = d.entropy()?;
        let msn = d.ext.meth.map(|m| m.msn.value());
        let moved = match (right.choose(psn), wrong.choose(psn)) {
            (Some(r), Some(w)) if r == ev && w != ev => Some(w),
            _ => None,
        };
        let now = moved.unwrap_or(ev);
        right.sent(at, psn, now, msn);
        wrong.sent(at, psn, now, msn);
        let mut f = d.to_repr()?;
        f.set_entropy(moved?);
        refit(&mut f).ok()
    }
}

impl Stream for Estimating {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.inputs = inputs.clone();
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        // Inputs and outputs in time order, an input before the outputs of its time.
        let mut inputs = std::mem::take(&mut self.inputs).into_iter().peekable();
        for o in &mut outputs {
            while let Some(i) = inputs.next_if(|i| i.at <= o.at) {
                self.input(&i);
            }
            if let Output::Frame { bytes, .. } = &mut o.output {
                if let Some(b) = self.sent(o.at.0, bytes) {
                    *bytes = b;
                }
            }
        }
        for i in inputs {
            self.input(&i);
        }
        outputs
    }
}
