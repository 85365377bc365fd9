//! Faults of loss inference (sender section 8): one rule broken at a time.
//!
//! Per-EV FIFO loss inference (SND-INFER-001 to -004) is followed from a QP's boundary —
//! the data packets it sends and the acknowledgements it gets — twice: by the rules, and
//! with one of them broken. The difference tells what a device with the bug retransmits
//! that the reference does not, and the reverse; the stream adds and withholds those
//! retransmissions at the time of the acknowledgement that decides them.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use openrdma_codec::frame::decode;
use openrdma_codec::{Psn, Qpn, SethRepr};
use openrdma_conformance::req;
use openrdma_device::{
    CpuCommand, Input, Manifest, NicEvent, NicReport, Output, RetransmitCause, TimedInput,
    TimedOutput, Timestamp,
};

use super::qps::Qps;
use super::{Batch, Fault, Stream, stream};

/// Every fault of loss inference.
pub static FAULTS: &[Fault] = &[
    stream(
        "infer-gap-reported",
        "the PSNs between a SACK's cumulative PSN and its bitmap's base count as reported missing",
        &[req::SND_INFER_002_A],
        &["snd-infer-coverage"],
        |m| Wrong::boxed(Bugs { gap_reported: true, ..Bugs::NONE }, m),
    ),
    stream(
        "infer-uncovered-judged",
        "a suspect is judged by every PSN known to have arrived, whether or not the SACK being processed covers it",
        &[req::SND_INFER_002_A],
        &["snd-infer-coverage"],
        |m| Wrong::boxed(Bugs { judged_uncovered: true, ..Bugs::NONE }, m),
    ),
    stream(
        "infer-from-retransmission",
        "the arrival of a retransmitted PSN is taken as evidence about its latest EV",
        &[req::SND_INFER_003_A],
        &["snd-infer-retransmitted"],
        |m| Wrong::boxed(Bugs { evidence_from_retransmission: true, ..Bugs::NONE }, m),
    ),
    stream(
        "infer-keeps-arrived",
        "a suspect is kept after its PSN is known to have arrived",
        &[req::SND_INFER_004],
        &["snd-infer-coverage"],
        |m| Wrong::boxed(Bugs { keeps_arrived: true, ..Bugs::NONE }, m),
    ),
    stream(
        "infer-keeps-resent",
        "a suspect is kept after its PSN was transmitted again",
        &[req::SND_INFER_004],
        &["snd-spray-skew-aware"],
        |m| Wrong::boxed(Bugs { keeps_resent: true, ..Bugs::NONE }, m),
    ),
    stream(
        "rtx-no-ev-sequence",
        "a retransmission takes no per-EV sequence number on its new EV",
        &[req::SND_RTX_006_B, req::SND_INFER_001],
        &["snd-infer-retransmitted"],
        |m| Wrong::boxed(Bugs { no_sequence_for_retransmission: true, ..Bugs::NONE }, m),
    ),
    stream(
        "rtx-queued-per-reason",
        "a PSN is queued for retransmission again by each reason to retransmit it, while queued",
        &[req::SND_RTX_005, req::SND_NACK_004_A],
        &["snd-rtx-once"],
        |m| Wrong::boxed(Bugs { queues_per_reason: true, ..Bugs::NONE }, m),
    ),
    stream(
        "infer-unjudged-dropped",
        "a suspect the SACK being processed cannot judge is dropped rather than kept for the next acknowledgement",
        &[req::SND_INFER_002_B],
        &["snd-infer-later"],
        |m| Wrong::boxed(Bugs { drops_unjudged: true, ..Bugs::NONE }, m),
    ),
    stream(
        "infer-again",
        "a PSN retransmitted by inference can be inferred lost again, when its retransmission is lost too",
        &[req::SND_RTX_003],
        &["snd-infer-later"],
        |m| Wrong::boxed(Bugs { infers_again: true, ..Bugs::NONE }, m),
    ),
    stream(
        "infer-no-suspects",
        "the arrival of a PSN makes no suspect of the earlier transmissions on its EV: nothing is inferred lost",
        &[req::SND_INFER_001],
        &["snd-sched-order"],
        |m| Wrong::boxed(Bugs { no_suspects: true, ..Bugs::NONE }, m),
    ),
    stream(
        "probe-answer-not-evidence",
        "a tail probe's answer is taken as a SACK only, so the transmissions before the probe \
         that it shows missing are not inferred lost",
        &[req::SND_TAIL_003],
        &["snd-tail-probe"],
        |m| Wrong::boxed(Bugs { answer_not_evidence: true, ..Bugs::NONE }, m),
    ),
    stream(
        "probe-sequence-latest",
        "a tail probe takes the per-EV sequence number of the EV's latest transmission, read \
         without advancing the counter, so its answer judges only the transmissions before that",
        &[req::SND_TAIL_002, req::SND_TAIL_003],
        &["snd-tail-probe"],
        |m| Wrong::boxed(Bugs { probe_takes_latest: true, ..Bugs::NONE }, m),
    ),
    stream(
        "ack-not-arrival",
        "a transport ACK completes its messages but leaves their PSNs unknown to loss inference, which can infer them lost",
        &[req::SND_ACK_001_B],
        &["snd-ack-arrival"],
        |m| Wrong::boxed(Bugs { ack_not_arrival: true, ..Bugs::NONE }, m),
    ),
];

/// A wrong rule of loss inference, one at a time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bugs {
    /// The PSNs between a SACK's cumulative PSN and its bitmap's base count as reported
    /// missing (SND-INFER-002).
    pub gap_reported: bool,
    /// A suspect is judged by every PSN known to have arrived, whether or not the SACK
    /// being processed covers it or shows its evidence (SND-INFER-002).
    pub judged_uncovered: bool,
    /// The arrival of a retransmitted PSN is evidence about its latest EV (SND-INFER-003).
    pub evidence_from_retransmission: bool,
    /// A suspect is kept after its PSN is known to have arrived (SND-INFER-004).
    pub keeps_arrived: bool,
    /// A suspect is kept after its PSN was transmitted again (SND-INFER-004).
    pub keeps_resent: bool,
    /// A retransmission takes no per-EV sequence number on its new EV (SND-RTX-006).
    pub no_sequence_for_retransmission: bool,
    /// A PSN is queued for retransmission again by each reason to retransmit it, while
    /// queued (SND-RTX-005).
    pub queues_per_reason: bool,
    /// A suspect the SACK being processed cannot judge is dropped (SND-INFER-002).
    pub drops_unjudged: bool,
    /// A PSN retransmitted by inference can be inferred lost again (SND-RTX-003).
    pub infers_again: bool,
    /// A transport ACK leaves the PSNs of the messages it completes unknown to have
    /// arrived (SND-ACK-001).
    pub ack_not_arrival: bool,
    /// The arrival of a PSN makes no suspects (SND-INFER-001).
    pub no_suspects: bool,
    /// A probe's answer is taken as a SACK only, never as evidence about the earlier
    /// transmissions on its EV (SND-TAIL-003).
    pub answer_not_evidence: bool,
    /// A probe takes the per-EV sequence number of the latest transmission on its EV,
    /// read without advancing the counter, instead of the next (SND-TAIL-002).
    pub probe_takes_latest: bool,
    /// A probe's answer judges every transmission on its EV, those sent after the probe
    /// too, as if the probe took no per-EV sequence number (SND-TAIL-002).
    pub answer_judges_later: bool,
}

impl Bugs {
    /// No rule broken.
    pub const NONE: Bugs = Bugs {
        gap_reported: false,
        judged_uncovered: false,
        evidence_from_retransmission: false,
        keeps_arrived: false,
        keeps_resent: false,
        no_sequence_for_retransmission: false,
        queues_per_reason: false,
        drops_unjudged: false,
        infers_again: false,
        ack_not_arrival: false,
        no_suspects: false,
        answer_not_evidence: false,
        probe_takes_latest: false,
        answer_judges_later: false,
    };
}

/// One PSN as the device's boundary shows it.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    /// EV and per-EV sequence of its latest transmission (`u64::MAX`: none on that EV).
    ev: u32,
    seq: u64,
    msn: u16,
    retransmitted: bool,
    arrived: bool,
    inferred: bool,
    queued: bool,
}

/// Per-EV FIFO loss inference of one QP, by the rules or with `bugs`.
#[derive(Debug, Clone, Default)]
struct Inference {
    bugs: Bugs,
    psns: BTreeMap<u32, Seen>,
    fifo: HashMap<u32, VecDeque<(u32, u64)>>,
    next_seq: HashMap<u32, u64>,
    /// (PSN, per-EV sequence of the suspected transmission, PSN of the evidence).
    suspects: Vec<(u32, u64, u32)>,
    /// Whether the NIC's `tail_probe` is set, and the probes sent then that await an
    /// answer: (EV, probe ID, per-EV sequence) (SND-TAIL-002).
    tail: bool,
    probes: Vec<(u32, u16, u64)>,
}

/// Whether a SACK shows `q` arrived, and whether its bitmap covers `q`.
fn shows_and_covers(s: &SethRepr) -> (impl Fn(u32) -> bool, impl Fn(u32) -> bool) {
    let (cack, base, offset, bitmap) = (s.cack_psn, s.bitmap_base(), s.sack_offset, s.sack_bitmap);
    let in_bitmap = move |q: u32| offset >= 1 && Psn::new(q).in_window(base, 64);
    let shows = move |q: u32| {
        !Psn::new(q).is_after(cack)
            || (in_bitmap(q) && bitmap >> Psn::new(q).forward_from(base) & 1 == 1)
    };
    (shows, in_bitmap)
}

impl Inference {
    fn new(bugs: Bugs, tail: bool) -> Self {
        Inference { bugs, tail, ..Inference::default() }
    }

    /// A probe leaves on `ev`: while tail probing is on, it takes the EV's next sequence
    /// number (SND-TAIL-002).
    fn probe_sent(&mut self, ev: u32, id: u16) {
        if self.tail {
            let seq = self.next_seq.entry(ev).or_default();
            if self.bugs.probe_takes_latest {
                self.probes.push((ev, id, seq.saturating_sub(1)));
                return;
            }
            self.probes.push((ev, id, *seq));
            *seq += 1;
        }
    }

    /// A probe answer: a SACK like any other, and, for a probe sent while tail probing is
    /// on, evidence against every earlier transmission on its EV that it covers and does
    /// not show (SND-TAIL-003).
    fn probe_answer(&mut self, s: &SethRepr) -> (Vec<u32>, Vec<u32>) {
        let (mut lost, again) = self.sack(s);
        if self.bugs.answer_not_evidence {
            return (lost, again);
        }
        let id = s.ack_psn_offset as u16;
        let Some(k) = self.probes.iter().position(|&(ev, i, _)| ev == s.entropy.value() && i == id)
        else {
            return (lost, again);
        };
        let (ev, _, probe_seq) = self.probes.remove(k);
        let cack = s.cack_psn;
        let (shows, in_bitmap) = shows_and_covers(s);
        let covers = |q: u32| !Psn::new(q).is_after(cack) || in_bitmap(q);
        let psns = &mut self.psns;
        self.fifo.entry(ev).or_default().retain(|&(q, seq)| {
            if seq >= probe_seq && !self.bugs.answer_judges_later {
                return true;
            }
            let Some(p) = psns.get_mut(&q) else { return false };
            if p.arrived || p.ev != ev || p.seq != seq || p.inferred || p.queued {
                return false;
            }
            if !covers(q) {
                return true;
            }
            if !shows(q) {
                p.inferred = true;
                p.queued = true;
                lost.push(q);
            }
            false
        });
        (lost, again)
    }

    fn sent(&mut self, psn: u32, ev: u32, rtx: bool, msn: u16) {
        let seq = self.next_seq.entry(ev).or_default();
        let p = self.psns.entry(psn).or_default();
        p.ev = ev;
        p.msn = msn;
        p.queued = false;
        p.retransmitted |= rtx;
        if rtx && self.bugs.no_sequence_for_retransmission {
            p.seq = u64::MAX;
            return;
        }
        p.seq = *seq;
        self.fifo.entry(ev).or_default().push_back((psn, *seq));
        *seq += 1;
    }

    /// A reason to retransmit `psn` other than inference (a NACK, a timeout). Returns
    /// whether it queues the PSN a second time (only with `queues_per_reason`).
    fn queue(&mut self, psn: u32) -> bool {
        let Some(p) = self.psns.get_mut(&psn).filter(|p| !p.arrived) else { return false };
        let again = p.queued && self.bugs.queues_per_reason;
        p.queued = true;
        again
    }

    fn arrived(&mut self, psn: u32) {
        let Some(p) = self.psns.get_mut(&psn).filter(|p| !p.arrived) else { return };
        p.arrived = true;
        let p = *p;
        if p.retransmitted && !self.bugs.evidence_from_retransmission || p.seq == u64::MAX {
            return;
        }
        let fifo = self.fifo.entry(p.ev).or_default();
        while let Some(&(q, seq)) = fifo.front() {
            if seq > p.seq {
                break;
            }
            fifo.pop_front();
            if seq < p.seq && !self.bugs.no_suspects {
                self.suspects.push((q, seq, psn));
            }
        }
    }

    /// A transport ACK for `msn`: every PSN of the messages it covers arrived.
    fn acked(&mut self, msn: u16) {
        if self.bugs.ack_not_arrival {
            return;
        }
        let covered: Vec<u32> = self
            .psns
            .iter()
            .filter(|(_, p)| (msn.wrapping_sub(p.msn) as i16) >= 0)
            .map(|(&q, _)| q)
            .collect();
        for q in covered {
            self.arrived(q);
        }
    }

    /// A SACK: the PSNs it infers lost, and those it would infer but finds queued
    /// already (a second queueing with `queues_per_reason`).
    fn sack(&mut self, s: &SethRepr) -> (Vec<u32>, Vec<u32>) {
        let (cack, base) = (s.cack_psn, s.bitmap_base());
        let (shows, in_bitmap) = shows_and_covers(s);
        let known: Vec<u32> = self.psns.keys().copied().filter(|&q| shows(q)).collect();
        for q in known {
            self.arrived(q);
        }
        let bugs = self.bugs;
        let covers = |q: u32| {
            !Psn::new(q).is_after(cack)
                || in_bitmap(q)
                || (bugs.gap_reported && s.sack_offset > 1 && Psn::new(q).is_before(base))
        };
        let (mut lost, mut again) = (Vec::new(), Vec::new());
        let mut suspects = std::mem::take(&mut self.suspects);
        suspects.retain(|&(q, seq, evidence)| {
            let Some(p) = self.psns.get(&q).copied() else { return false };
            if (p.arrived && !bugs.keeps_arrived) || (p.seq != seq && !bugs.keeps_resent) {
                return false;
            }
            if p.inferred && !bugs.infers_again {
                return false;
            }
            let judged = if bugs.judged_uncovered {
                self.psns.get(&evidence).is_some_and(|e| e.arrived)
            } else {
                covers(q) && shows(evidence)
            };
            if !judged {
                return !bugs.drops_unjudged;
            }
            if shows(q) {
                return true;
            }
            if p.queued {
                if bugs.queues_per_reason {
                    again.push(q);
                }
                return false;
            }
            if let Some(p) = self.psns.get_mut(&q) {
                p.inferred = true;
                p.queued = true;
            }
            lost.push(q);
            false
        });
        self.suspects = suspects;
        (lost, again)
    }
}

/// The reference device with one rule of loss inference broken: it sends the
/// retransmissions that the broken rule adds, and not those it takes away.
#[derive(Debug)]
pub struct Wrong {
    bugs: Bugs,
    /// Whether the scenario sets the NIC's `tail_probe`.
    tail: bool,
    right: HashMap<u32, Inference>,
    wrong: HashMap<u32, Inference>,
    qps: Qps,
    /// The latest data frame of each (peer QPN, PSN).
    frames: HashMap<(u32, u32), Vec<u8>>,
    /// Retransmissions of the reference to withhold: (peer QPN, PSN).
    withhold: HashSet<(u32, u32)>,
    /// Retransmissions withheld whose report is still to withhold: (peer QPN, PSN).
    unreported: HashSet<(u32, u32)>,
    /// The batch's inputs, seen before the device took them.
    inputs: Vec<TimedInput>,
    /// PSNs the right rules inferred, and the reference's retransmissions by inference:
    /// the two agree when the rules are followed right.
    pub inferred: Vec<(u32, u32)>,
    /// See `inferred`.
    pub reported: Vec<(u32, u32)>,
}

impl Wrong {
    /// The stream for `bugs`, in a scenario run with `m`.
    pub fn new(bugs: Bugs, m: &Manifest) -> Self {
        Wrong {
            bugs,
            tail: m.nic.tail_probe.is_some(),
            right: HashMap::new(),
            wrong: HashMap::new(),
            qps: Qps::default(),
            frames: HashMap::new(),
            withhold: HashSet::new(),
            unreported: HashSet::new(),
            inputs: Vec::new(),
            inferred: Vec::new(),
            reported: Vec::new(),
        }
    }

    fn boxed(bugs: Bugs, m: &Manifest) -> Box<dyn Stream> {
        Box::new(Wrong::new(bugs, m))
    }

    fn both(&mut self, peer: u32) -> (&mut Inference, &mut Inference) {
        let (bugs, tail) = (self.bugs, self.tail);
        (
            self.right.entry(peer).or_insert_with(|| Inference::new(Bugs::NONE, tail)),
            self.wrong.entry(peer).or_insert_with(|| Inference::new(bugs, tail)),
        )
    }

    /// The retransmission of `psn` a device with the bug sends at `at`, and its report to
    /// the CPU half (REC-IF-008).
    fn extra(&mut self, peer: u32, psn: u32, at: Timestamp) -> Vec<TimedOutput> {
        let Some(mut f) = self.frames.get(&(peer, psn)).and_then(|b| decode(b).to_repr()) else {
            return Vec::new();
        };
        // The EV this PSN last left on: the transmission the retransmission presumes lost.
        let lost_ev = Some(f.entropy());
        f.bth.rtx = true;
        // A retransmission reads the clock as it leaves (SND-TS-003.b): the reference's
        // clock counts 16 ns units from time 0.
        if let Some(t) = f.ext.tseth.as_mut() {
            t.tx_timestamp = (at.as_nanos() / 16) as u16;
        }
        let Ok(bytes) = f.reseal().and_then(|()| f.to_bytes()) else { return Vec::new() };
        self.note_sent(peer, &bytes);
        let qpn = self.qps.local(peer);
        let report = qpn.map(|q| {
            NicEvent::Report(NicReport::Retransmitted {
                qpn: Qpn::new(q),
                psn: Psn::new(psn),
                cause: RetransmitCause::SackInference,
                lost_ev,
            })
        });
        std::iter::once(Output::Frame { port: 0, bytes })
            .chain(report.map(|event| Output::Event { event }))
            .map(|output| TimedOutput { at, output })
            .collect()
    }

    fn note_sent(&mut self, peer: u32, bytes: &[u8]) {
        let d = decode(bytes);
        let (Some(b), Some(m)) = (d.bth, d.ext.meth) else { return };
        let ev = d.entropy().unwrap_or_default().value();
        self.frames.insert((peer, b.psn.value()), bytes.to_vec());
        let (right, wrong) = self.both(peer);
        right.sent(b.psn.value(), ev, b.rtx, m.msn.value());
        wrong.sent(b.psn.value(), ev, b.rtx, m.msn.value());
    }

    /// An input, as both rules see it; the retransmissions the bug adds.
    fn input(&mut self, i: &TimedInput) -> Vec<TimedOutput> {
        let (peer, what) = match &i.input {
            Input::Host { .. } => {
                self.qps.learn(&i.input);
                return Vec::new();
            }
            Input::Cpu { command: CpuCommand::Retransmit { qpn, psn } } => {
                let Some(peer) = self.qps.peer(qpn.value()) else { return Vec::new() };
                (peer, Err(psn.value()))
            }
            Input::Frame { bytes, .. } => {
                let d = decode(bytes);
                let Some(b) = d.bth else { return Vec::new() };
                let Some(peer) = self.qps.peer(b.dest_qp.value()) else { return Vec::new() };
                (peer, Ok(d.to_repr()))
            }
            _ => return Vec::new(),
        };
        let mut extra: Vec<u32> = Vec::new();
        match what {
            Err(psn) => {
                let (right, wrong) = self.both(peer);
                right.queue(psn);
                extra.extend(wrong.queue(psn).then_some(psn));
            }
            Ok(Some(f)) => {
                let (right, wrong) = self.both(peer);
                if let Some(s) = f.ext.seth {
                    let (lost, _) = if s.pr { right.probe_answer(&s) } else { right.sack(&s) };
                    let (bad, again) = if s.pr { wrong.probe_answer(&s) } else { wrong.sack(&s) };
                    extra.extend(bad.iter().filter(|q| !lost.contains(q)));
                    extra.extend(again);
                    for q in lost.iter().filter(|q| !bad.contains(q)) {
                        self.withhold.insert((peer, *q));
                    }
                    self.inferred.extend(lost.iter().map(|&q| (peer, q)));
                } else if let Some(n) = f.ext.neth.filter(|n| !n.reason.is_fatal()) {
                    right.queue(n.nack_psn.value());
                    extra.extend(wrong.queue(n.nack_psn.value()).then_some(n.nack_psn.value()));
                } else if let Some(a) = f.ext.aeth {
                    right.acked(a.msn.msn().value());
                    wrong.acked(a.msn.msn().value());
                }
            }
            Ok(None) => {}
        }
        let mut out = Vec::new();
        for q in extra {
            out.extend(self.extra(peer, q, i.at));
        }
        out
    }
}

impl Stream for Wrong {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.inputs = inputs.clone();
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        // Inputs and outputs in time order, an input before the outputs of its time.
        let mut inputs = std::mem::take(&mut self.inputs).into_iter().peekable();
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            while let Some(i) = inputs.next_if(|i| i.at <= o.at) {
                out.extend(self.input(&i));
            }
            match &o.output {
                Output::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    if let Some(b) = d.bth.filter(|b| b.opcode.is_mrc_write()) {
                        let peer = b.dest_qp.value();
                        if b.rtx && self.withhold.remove(&(peer, b.psn.value())) {
                            self.unreported.insert((peer, b.psn.value()));
                            continue;
                        }
                        self.note_sent(peer, bytes);
                    } else if let (Some(b), Some(p)) = (d.bth, d.ext.peth) {
                        let ev = d.entropy().unwrap_or_default().value();
                        let (right, wrong) = self.both(b.dest_qp.value());
                        right.probe_sent(ev, p.probe_id);
                        wrong.probe_sent(ev, p.probe_id);
                    }
                }
                Output::Event {
                    event:
                        NicEvent::Report(NicReport::Retransmitted {
                            qpn,
                            psn,
                            cause: RetransmitCause::SackInference,
                            ..
                        }),
                } => {
                    if let Some(peer) = self.qps.peer(qpn.value()) {
                        // The report of a retransmission withheld is withheld with it.
                        let key = (peer, psn.value());
                        if self.unreported.remove(&key) || self.withhold.contains(&key) {
                            continue;
                        }
                        self.reported.push(key);
                    }
                }
                _ => {}
            }
            out.push(o);
        }
        for i in inputs {
            out.extend(self.input(&i));
        }
        out
    }
}
