//! Faults of the transport engines that need more than one rewrite: frames a receiver must
//! take read wrong or refused, answers it owes lost or held, and sender rules (SACK order,
//! scheduling, probes and their samples, timestamps) broken. Each names the scenarios
//! written to catch it.

use std::collections::{BTreeSet, HashMap, HashSet};

use openrdma_codec::frame::{IpRepr, decode};
use openrdma_codec::{Ev, EvMark, Opcode, Psn, Qpn};
use openrdma_conformance::req;
use openrdma_device::{
    CpuCommand, EvState, HostCommand, Input, Manifest, NicEvent, Output, SprayPolicy, TimedInput,
    TimedOutput, Timestamp,
};

use super::qps::Qps;
use super::{Batch, Edits, Fault, Stream, fault, refit, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    // ---- what a receiver must take -----------------------------------------------------
    fault(
        "accepts-qpn-2",
        "QPN 2 is allowed for an MRC QP, at either end",
        &[req::ERTH_QPN_001_B],
        &["rcv-endpoint"],
        Edits {
            host_in: Some(qpn2_create),
            frame_in: Some(qpn2_in),
            event_out: Some(qpn2_event),
            frame_out: Some(qpn2_out),
            ..Edits::NONE
        },
    ),
    fault(
        "any-udp-port",
        "any UDP destination port is taken for RoCEv2",
        &[req::ENC_UDP_001_B],
        &["rcv-lenient"],
        Edits { frame_in: Some(any_udp_port), ..Edits::NONE },
    ),
    fault(
        "processes-fragments",
        "IPv4 fragments are processed as whole packets",
        &[req::ENC_IPV4_002_B],
        &["rcv-lenient"],
        Edits { frame_in: Some(processes_fragments), ..Edits::NONE },
    ),
    fault(
        "rejects-zero-udp-checksum-v6",
        "IPv6 packets without a UDP checksum are dropped",
        &[req::ENC_UDP_004_B],
        &["rcv-lenient-v6"],
        Edits { keep_in: Some(v6_with_checksum), ..Edits::NONE },
    ),
    stream(
        "wedges-on-short-datagram",
        "a datagram with no room for its ICRC wedges the receive path: nothing after it is taken",
        &[req::ENC_LEN_004],
        &["wire-discard-v4"],
        |_| Box::<Wedges>::default(),
    ),
    stream(
        "no-duplicate-sack",
        "duplicates are not answered at once with a SACK",
        &[req::RCV_DUP_001_B, req::RCV_SACK_001_E],
        &["rcv-duplicate-before-retirement"],
        |_| Box::<NoDuplicateSack>::default(),
    ),
    fault(
        "probe-answer-keeps-count",
        "a probe answer leaves the count of writes to acknowledge as it was, so the count \
         reaches sack_coalesce early after it: the SACK goes out early, and the one due at \
         the count is not sent",
        &[req::RCV_SACK_008_A],
        &["rcv-probe-answer-count"],
        Edits {
            stream: Some(|m| Box::new(ProbeAnswerKeepsCount::new(m))),
            per_input: true,
            ..Edits::NONE
        },
    ),
    stream(
        "sack-cancels-held-back-ack",
        "every SACK stops the SACK timer, so a transport ACK held back by ack_coalesce is not sent when the timer would have expired",
        &[req::RCV_SACK_008_B, req::RCV_ACK_001_B],
        &["rcv-ack-coalesce", "rcv-ack-timer-alone"],
        |_| Box::<SackCancelsHeldBackAck>::default(),
    ),
    // ---- sender rules ------------------------------------------------------------------
    stream(
        "credit-zero-stalls",
        "an ACK whose credit code is 0 stops the sender: no further message goes out",
        &[req::AETH_MRC_002_B],
        &["snd-lenient"],
        |_| Box::<CreditZeroStalls>::default(),
    ),
    stream(
        "deny-as-assumed-bad",
        "a controller's deny is taken for ASSUMED_BAD, which a probe answer ends",
        &[req::EV_DENY_001, req::EV_DENY_002],
        &["snd-ev-deny"],
        |_| Box::new(DenyAsAssumedBad),
    ),
    stream(
        "marks-of-discarded-sacks",
        "the EV marks of a SACK are applied before its checks, so a SACK that the checks discard still marks its EV",
        &[req::SND_SACK_006, req::SND_SACK_003, req::SND_SACK_004],
        &["snd-sack-order"],
        |m| Box::new(MarksOfDiscardedSacks { hi_sent: None, window: m.nic.window() }),
    ),
    stream(
        "new-data-first",
        "new packets go before retransmissions that are due at the same time",
        &[req::SND_SCHED_001],
        &["snd-sched-order"],
        |_| Box::new(NewDataFirst),
    ),
    fault(
        "no-policy-probes",
        "the probes a spray policy queues are never sent",
        &[req::SND_SPRAY_009, req::EV_PROBE_005_A],
        &["snd-spray-window-fit"],
        Edits { keep_out: Some(no_probe), ..Edits::NONE },
    ),
    stream(
        "probe-rtt-reversed",
        "a probe answer's round trip is taken the wrong way round, the reflected timestamp minus the clock, modulo 2^16",
        &[req::SND_SPRAY_010, req::SND_SPRAY_005],
        &["snd-spray-window-fit", "snd-spray-window-fit-probe-rtt"],
        |_| Box::new(ProbeRttReversed),
    ),
    stream(
        "probe-sample-ignored",
        "a window-fit QP takes no round-trip sample from probe answers",
        &[req::SND_SPRAY_010, req::SND_SPRAY_005],
        &["snd-spray-window-fit-probe-rtt"],
        |m| Box::new(ProbeSampleIgnored::new(m)),
    ),
    stream(
        "probes-after-error",
        "probes go on after the QP failed, every probe interval, on its last probe's EV",
        &[req::REC_PROBE_002, req::EV_PROBE_005_A],
        &["rec-device-backoff"],
        |m| Box::new(ProbesAfterError::new(m)),
    ),
    stream(
        "retransmission-keeps-timestamp",
        "a retransmission carries the TSETH timestamp of the PSN's first transmission",
        &[req::SND_TS_002_C, req::SND_TS_003_B],
        &["snd-infer-retransmitted", "snd-cc-sack"],
        |_| Box::<KeepsTimestamp>::default(),
    ),
    stream(
        "resend-without-rtx",
        "the resend of a packet that arrived, which a Retransmit command orders when its acknowledgement was lost, goes with rtx 0",
        &[req::REC_RTO_004_D, req::SND_RTX_002_A, req::BTH_RTX_001],
        &["snd-lost-ack"],
        |_| Box::<ResendWithoutRtx>::default(),
    ),
    stream(
        "no-tail-resend",
        "a Retransmit command with nothing outstanding sends nothing, so a message whose transport ACK was lost never completes",
        &[req::REC_RTO_004_C],
        &["snd-lost-ack"],
        |_| Box::new(ResendWithoutRtx { drop_tail: true, ..ResendWithoutRtx::default() }),
    ),
    stream(
        "nack-backoff-holds-queue",
        "the back-off of a window or resource NACK stalls the whole retransmission queue: retransmissions by inference, trim or timeout wait for it too",
        &[req::SND_NACK_004_B, req::SND_SCHED_003_D],
        &["snd-nack-backoff-long"],
        |m| Box::new(BackoffHoldsQueue::new(m)),
    ),
];

/// A retransmission queue that one back-off stalls: while the back-off of a window or
/// resource NACK of the QP runs, no retransmission of the QP leaves; each, with its
/// report, goes when the back-off ends.
#[derive(Debug)]
struct BackoffHoldsQueue {
    backoff: u64,
    qps: Qps,
    /// When the latest back-off of each QP ends, by peer QPN.
    until: HashMap<u32, u64>,
    /// Retransmissions held, by (device QPN, PSN), for their reports.
    held_psns: HashSet<(u32, u32)>,
    /// Outputs held until their new time.
    held: Vec<TimedOutput>,
}

impl BackoffHoldsQueue {
    fn new(m: &Manifest) -> Self {
        BackoffHoldsQueue {
            backoff: u64::try_from(m.nic.nack_backoff.as_nanos()).unwrap_or(u64::MAX),
            qps: Qps::default(),
            until: HashMap::new(),
            held_psns: HashSet::new(),
            held: Vec::new(),
        }
    }
}

impl Stream for BackoffHoldsQueue {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.received(&inputs, |r| {
            let Some(n) = r.d.ext.neth else { return };
            if !n.reason.is_trim() && !n.reason.is_fatal() {
                self.until.insert(r.qp.peer_qpn.value(), r.at.0.saturating_add(self.backoff));
            }
        });
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::new();
        for mut o in outputs {
            let hold = match &o.output {
                Output::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    d.bth.filter(|b| b.opcode.is_mrc_write() && b.rtx).and_then(|b| {
                        let end = *self.until.get(&b.dest_qp.value())?;
                        if let Some(l) = self.qps.local(b.dest_qp.value()) {
                            self.held_psns.insert((l, b.psn.value()));
                        }
                        (o.at.0 < end).then_some(end)
                    })
                }
                Output::Event {
                    event:
                        NicEvent::Report(openrdma_device::NicReport::Retransmitted { qpn, psn, .. }),
                } if self.held_psns.remove(&(qpn.value(), psn.value())) => {
                    let peer = self.qps.peer(qpn.value());
                    peer.and_then(|p| self.until.get(&p)).copied().filter(|&end| o.at.0 < end)
                }
                _ => None,
            };
            match hold {
                Some(end) => {
                    o.at = Timestamp(end);
                    self.held.push(o);
                }
                None => out.push(o),
            }
        }
        let (due, later): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.held).into_iter().partition(|o| o.at <= batch.until);
        self.held = later;
        out.extend(due);
        out.sort_by_key(|o| o.at);
        out
    }
}

// ---- what a receiver must take ---------------------------------------------------------

/// The QPN a device that allows QPN 2 gives its QP 2 inside the reference device, and the
/// peer QPN it gives a QP facing QP 2.
const ALIAS_2: u32 = 0x7702;
const ALIAS_PEER_2: u32 = 0x7703;

fn qpn2_create(c: &mut HostCommand) {
    if let HostCommand::CreateQp(q) = c {
        if q.qpn.value() == 2 {
            q.qpn = Qpn::new(ALIAS_2);
        }
        if q.peer_qpn.value() == 2 {
            q.peer_qpn = Qpn::new(ALIAS_PEER_2);
        }
    }
}

fn qpn2_in(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if f.bth.dest_qp != Qpn::ENDPOINT || f.ext.erth.is_some() || f.ext.eeth.is_some() {
        return None;
    }
    f.bth.dest_qp = Qpn::new(ALIAS_2);
    refit(&mut f).ok()
}

fn qpn2_out(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if f.bth.dest_qp.value() != ALIAS_PEER_2 {
        return None;
    }
    f.bth.dest_qp = Qpn::new(2);
    refit(&mut f).ok()
}

fn qpn2_event(e: &mut NicEvent) -> bool {
    let alias = |q: &mut Qpn| {
        if q.value() == ALIAS_2 {
            *q = Qpn::new(2);
        }
    };
    match e {
        NicEvent::DmaWrite(w) => alias(&mut w.qpn),
        NicEvent::FlagWrite(f) => alias(&mut f.qpn),
        NicEvent::Completion(c) => {
            let mut entry = c.written_entry();
            alias(&mut entry.qpn);
            c.entry = entry;
            if let Some(q) = c.queue.as_mut() {
                let _ = entry.emit(&mut q.bytes);
            }
        }
        _ => {}
    }
    true
}

/// An IPv4 frame the decoder does not take for RoCEv2, made into RoCEv2 by `edit` on its
/// bytes and the IPv4 header's offset.
fn raw_v4(bytes: &[u8], edit: impl FnOnce(&mut [u8], usize) -> bool) -> Option<Vec<u8>> {
    let d = decode(bytes);
    let (Some(IpRepr::V4(_)), Some(at)) = (&d.ip, d.layout.ip) else { return None };
    let mut b = bytes.to_vec();
    if !edit(&mut b, at) {
        return None;
    }
    let mut f = decode(&b).to_repr()?;
    refit(&mut f).ok()
}

fn any_udp_port(bytes: &[u8]) -> Option<Vec<u8>> {
    // Destination port: bytes 2-3 of the UDP header after a 20-byte IPv4 header.
    raw_v4(bytes, |b, at| {
        let other = b.len() >= at + 24 && u16::from_be_bytes([b[at + 22], b[at + 23]]) != 4791;
        if other {
            b[at + 22..at + 24].copy_from_slice(&4791u16.to_be_bytes());
        }
        other
    })
}

fn processes_fragments(bytes: &[u8]) -> Option<Vec<u8>> {
    // Flags and fragment offset: bytes 6-7 of the IPv4 header.
    raw_v4(bytes, |b, at| {
        let more = b[at + 6] & 0x20 != 0;
        b[at + 6] &= !0x20;
        more
    })
}

fn v6_with_checksum(i: &Input) -> bool {
    let Input::Frame { bytes, .. } = i else { return true };
    let d = decode(bytes);
    !(matches!(d.ip, Some(IpRepr::V6(_))) && d.udp.is_some_and(|u| u.checksum == 0))
}

/// Whether a datagram too short for its ICRC arrived: nothing is taken after it.
#[derive(Debug, Default)]
struct Wedges {
    wedged: bool,
}

impl Stream for Wedges {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        inputs.retain(|i| {
            if let Input::Frame { bytes, .. } = &i.input {
                self.wedged |= decode(bytes).discard_reason() == Some("ENC-LEN-004");
                return !self.wedged;
            }
            true
        });
        inputs
    }
}

/// The writes seen, by (QP, PSN), and the times duplicates of them arrived.
#[derive(Debug, Default)]
struct NoDuplicateSack {
    seen: HashSet<(u32, u32)>,
    dup_at: BTreeSet<u64>,
}

impl Stream for NoDuplicateSack {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            let Input::Frame { bytes, .. } = &i.input else { continue };
            let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) else { continue };
            if !self.seen.insert((b.dest_qp.value(), b.psn.value())) {
                self.dup_at.insert(i.at.0);
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs.retain(|o| {
            let Output::Frame { bytes, .. } = &o.output else { return true };
            let sack = decode(bytes).bth.is_some_and(|b| b.opcode == Opcode::MRC_SACK);
            !(sack && self.dup_at.contains(&o.at.0))
        });
        outputs
    }
}

/// A count of writes to acknowledge that a probe answer does not reset. The stream keeps
/// the inner device's count (writes taken without a SACK at once since its last SACK) and
/// what the last probe answers left of it; a write with which the faulty count reaches
/// `sack_coalesce` is taken as if it asked for a SACK, as the faulty device answers it.
#[derive(Debug)]
struct ProbeAnswerKeepsCount {
    coalesce: u32,
    qps: Qps,
    /// By local QP: the inner device's count, and what probe answers left.
    count: HashMap<u32, (u32, u32)>,
    /// The write being taken: its local QP and PSN.
    write: Option<(u32, u32)>,
}

impl ProbeAnswerKeepsCount {
    fn new(m: &Manifest) -> ProbeAnswerKeepsCount {
        ProbeAnswerKeepsCount {
            coalesce: m.nic.sack_coalesce,
            qps: Qps::default(),
            count: HashMap::new(),
            write: None,
        }
    }
}

impl Stream for ProbeAnswerKeepsCount {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.write = None;
        for i in &mut inputs {
            match &mut i.input {
                Input::Host { .. } => {
                    self.qps.learn(&i.input);
                }
                Input::Frame { bytes, .. } => {
                    let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) else {
                        continue;
                    };
                    let q = b.dest_qp.value();
                    self.write = Some((q, b.psn.value()));
                    let (n, kept) = self.count.get(&q).copied().unwrap_or((0, 0));
                    if kept > 0 && !b.ack_req && n + 1 + kept >= self.coalesce {
                        let asked = decode(bytes).to_repr().and_then(|mut f| {
                            f.bth.ack_req = true;
                            super::refit(&mut f).ok()
                        });
                        if let Some(a) = asked {
                            *bytes = a;
                        }
                    }
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            let Output::Frame { bytes, .. } = &o.output else { continue };
            let d = decode(bytes);
            let (Some(b), Some(s)) = (d.bth, d.ext.seth) else { continue };
            let Some(q) = self.qps.local(b.dest_qp.value()) else { continue };
            let c = self.count.entry(q).or_insert((0, 0));
            *c = if s.pr { (0, c.0 + c.1) } else { (0, 0) };
        }
        if let Some((q, psn)) = self.write.take() {
            let peer = self.qps.peer(q);
            let taken = outputs.iter().any(|o| {
                matches!(&o.output, Output::Event { event: NicEvent::DmaWrite(w) }
                    if w.qpn.value() == q && w.psn.value() == psn)
            });
            let sacked = outputs.iter().any(|o| match &o.output {
                Output::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    d.ext.seth.is_some() && d.bth.map(|b| b.dest_qp.value()) == peer
                }
                _ => false,
            });
            if taken && !sacked {
                self.count.entry(q).or_insert((0, 0)).0 += 1;
            }
        }
        outputs
    }
}

/// Whether a SACK went out since the last transport ACK: the timer that owed it stopped.
#[derive(Debug, Default)]
struct SackCancelsHeldBackAck {
    sacked: bool,
}

impl Stream for SackCancelsHeldBackAck {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        outputs.retain(|o| {
            let Output::Frame { bytes, .. } = &o.output else { return true };
            let d = decode(bytes);
            if d.ext.seth.is_some() {
                self.sacked = true;
            } else if d.ext.aeth.is_some_and(|a| a.syndrome & 0x60 == 0) {
                if !batch.inputs_at.contains(&o.at.0) && self.sacked {
                    return false;
                }
                self.sacked = false;
            }
            true
        });
        outputs
    }
}

// ---- sender rules ----------------------------------------------------------------------

/// Whether an ACK with credit code 0 arrived: no message is taken after it.
#[derive(Debug, Default)]
struct CreditZeroStalls {
    stalled: bool,
}

impl Stream for CreditZeroStalls {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        inputs.retain(|i| match &i.input {
            Input::Host { command: HostCommand::PostWrite(_) | HostCommand::Doorbell { .. } } => {
                !self.stalled
            }
            Input::Frame { bytes, .. } => {
                self.stalled |= decode(bytes).ext.aeth.is_some_and(|a| a.syndrome == 0);
                true
            }
            _ => true,
        });
        inputs
    }
}

#[derive(Debug)]
struct DenyAsAssumedBad;

impl Stream for DenyAsAssumedBad {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            if let Input::Cpu { command: CpuCommand::SetEvState { state, .. } } = &mut i.input {
                if *state == EvState::Denied {
                    *state = EvState::AssumedBad;
                }
            }
        }
        inputs
    }
}

/// The highest PSN the device has sent, and its window.
#[derive(Debug)]
struct MarksOfDiscardedSacks {
    hi_sent: Option<Psn>,
    window: u32,
}

impl MarksOfDiscardedSacks {
    /// A SACK that the checks of SND-SACK-003 or SND-SACK-004 discard, made into one they
    /// pass that carries the same mark: nothing but its mark.
    fn mark_only(&self, i: &TimedInput) -> Option<TimedInput> {
        let Input::Frame { port, bytes } = &i.input else { return None };
        let mut f = decode(bytes).to_repr()?;
        let s = f.ext.seth.as_mut()?;
        let beyond = self.hi_sent.is_none_or(|hi| s.cack_psn.is_after(hi));
        let wild = i32::from(s.sack_offset).unsigned_abs() > self.window + 64;
        if s.pr || s.m == EvMark::NONE || !(beyond || wild) {
            return None;
        }
        // Everything before the QP's first PSN: stale, so it acknowledges nothing.
        (s.cack_psn, s.sack_offset, s.sack_bitmap) = (Psn::ZERO.sub(1), 1, 0);
        f.bth.psn = s.cack_psn;
        f.icrc = None;
        let bytes = f.to_bytes().ok()?;
        Some(TimedInput { at: i.at, input: Input::Frame { port: *port, bytes } })
    }
}

impl Stream for MarksOfDiscardedSacks {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        let mut out = Vec::with_capacity(inputs.len());
        for i in inputs {
            out.extend(self.mark_only(&i));
            out.push(i);
        }
        out
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            let Output::Frame { bytes, .. } = &o.output else { continue };
            let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) else { continue };
            if !b.rtx && self.hi_sent.is_none_or(|hi| b.psn.is_after(hi)) {
                self.hi_sent = Some(b.psn);
            }
        }
        outputs
    }
}

/// Within each run of outputs at one time, the first transmissions go before the
/// retransmissions, each in its order.
#[derive(Debug)]
struct NewDataFirst;

impl Stream for NewDataFirst {
    fn outputs(&mut self, mut out: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let rtx_of = |o: &TimedOutput| match &o.output {
            Output::Frame { bytes, .. } => {
                decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()).map(|b| b.rtx)
            }
            _ => None,
        };
        let mut start = 0;
        while start < out.len() {
            let at = out[start].at;
            let end = start + out[start..].iter().take_while(|o| o.at == at).count();
            let slots: Vec<usize> = (start..end).filter(|&k| rtx_of(&out[k]).is_some()).collect();
            let mut data: Vec<TimedOutput> = slots.iter().map(|&k| out[k].clone()).collect();
            data.sort_by_key(|o| rtx_of(o) == Some(true));
            for (&k, o) in slots.iter().zip(data) {
                out[k] = o;
            }
            start = end;
        }
        out
    }
}

fn no_probe(o: &Output) -> bool {
    // No CPU half commands probes in the scenario this fault is caught by.
    let Output::Frame { bytes, .. } = o else { return true };
    decode(bytes).bth.is_none_or(|b| b.opcode != Opcode::MRC_PROBE)
}

/// Probe answers reflected as `2 × clock − reflected`, so that the device, which computes
/// `clock − reflected` in its unit of 16 ns, computes the reverse.
#[derive(Debug)]
struct ProbeRttReversed;

impl Stream for ProbeRttReversed {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            let at = i.at;
            let Input::Frame { bytes, .. } = &mut i.input else { continue };
            let d = decode(bytes);
            let (Some(mut f), true) = (d.to_repr(), d.ext.seth.is_some_and(|x| x.pr)) else {
                continue;
            };
            if let Some(c) = f.ext.cc_state.as_mut() {
                let clock = (at.0 / 16) as u16;
                c.tx_timestamp = clock.wrapping_mul(2).wrapping_sub(c.tx_timestamp);
            }
            if let Ok(b) = refit(&mut f) {
                *bytes = b;
            }
        }
        inputs
    }
}

/// Probe answers to a window-fit QP handed to the device under an EV foreign to the QP,
/// which its sender looks up in vain; the `ProbeAnswered` report gets its EV back. For an
/// answer on an EV in state GOOD, the only kind the window-fit policy probes, that is
/// exactly a sender that ignores the sample (without tail probing, which also reads the
/// answer's EV, SND-TAIL-003).
#[derive(Debug)]
struct ProbeSampleIgnored {
    tail_probes: bool,
    /// The EV profile of each window-fit QP, by QPN.
    profiles: HashMap<u32, Vec<Ev>>,
    /// The EV each hidden answer answered for, by (QPN, the foreign EV).
    hidden: HashMap<(u32, Ev), Ev>,
}

impl ProbeSampleIgnored {
    fn new(m: &Manifest) -> Self {
        ProbeSampleIgnored {
            tail_probes: m.nic.tail_probe.is_some(),
            profiles: HashMap::new(),
            hidden: HashMap::new(),
        }
    }

    fn hide(&mut self, bytes: &[u8]) -> Option<Vec<u8>> {
        if self.tail_probes {
            return None;
        }
        let d = decode(bytes);
        let qpn = d.bth?.dest_qp.value();
        let profile = self.profiles.get(&qpn)?;
        let mut f = d.to_repr()?;
        let seth = f.ext.seth.as_mut().filter(|s| s.pr)?;
        let ev = seth.entropy;
        let foreign = (1..).map(|k| Ev::new(ev.value() ^ k)).find(|e| !profile.contains(e))?;
        seth.entropy = foreign;
        self.hidden.insert((qpn, foreign), ev);
        refit(&mut f).ok()
    }
}

impl Stream for ProbeSampleIgnored {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            match &mut i.input {
                Input::Host { command: HostCommand::CreateQp(q) }
                    if q.spray == SprayPolicy::WindowFit =>
                {
                    let profile = q.evs.iter().chain(&q.backup_evs).copied().collect();
                    self.profiles.insert(q.qpn.value(), profile);
                }
                Input::Frame { bytes, .. } => {
                    if let Some(b) = self.hide(bytes) {
                        *bytes = b;
                    }
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            if let Output::Event {
                event: NicEvent::Report(openrdma_device::NicReport::ProbeAnswered { qpn, ev, .. }),
            } = &mut o.output
            {
                if let Some(answered) = self.hidden.remove(&(qpn.value(), *ev)) {
                    *ev = answered;
                }
            }
        }
        outputs
    }
}

/// The device's last probe, and when it is sent again after its QP failed.
#[derive(Debug)]
struct ProbesAfterError {
    interval: u64,
    last_probe: Option<Vec<u8>>,
    again_at: Option<u64>,
}

impl ProbesAfterError {
    fn new(m: &Manifest) -> Self {
        let interval = u64::try_from(m.recovery.probe_interval.as_nanos()).unwrap_or(u64::MAX);
        ProbesAfterError { interval: interval.max(1), last_probe: None, again_at: None }
    }
}

impl Stream for ProbesAfterError {
    fn outputs(&mut self, mut out: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for o in &out {
            match &o.output {
                Output::Event { event: NicEvent::Completion(c) } => {
                    let failed =
                        c.side == openrdma_device::Side::Requester && c.entry.status.0 != 0;
                    if failed && self.again_at.is_none() {
                        self.again_at = Some(o.at.0 + self.interval);
                    }
                }
                Output::Frame { bytes, .. } => {
                    if decode(bytes).ext.peth.is_some() {
                        self.last_probe = Some(bytes.clone());
                    }
                }
                Output::Event { .. } => {}
            }
        }
        while let (Some(at), Some(bytes)) = (self.again_at, self.last_probe.clone()) {
            if at > batch.until.0 {
                break;
            }
            out.push(TimedOutput { at: Timestamp(at), output: Output::Frame { port: 0, bytes } });
            self.again_at = Some(at + self.interval);
        }
        out.sort_by_key(|o| o.at);
        out
    }
}

/// The TSETH timestamp of each PSN's first transmission, by (QP, PSN).
#[derive(Debug, Default)]
struct KeepsTimestamp {
    first: HashMap<(u32, u32), u16>,
}

impl Stream for KeepsTimestamp {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let d = decode(bytes);
            let Some(b) = d.bth.filter(|b| b.opcode.is_mrc_write()) else { continue };
            let Some(ts) = d.ext.tseth else { continue };
            let key = (b.dest_qp.value(), b.psn.value());
            let first = *self.first.entry(key).or_insert(ts.tx_timestamp);
            if !b.rtx {
                continue;
            }
            let Some(mut f) = d.to_repr() else { continue };
            if let Some(t) = f.ext.tseth.as_mut() {
                t.tx_timestamp = first;
            }
            f.icrc = None;
            if let Ok(b) = f.to_bytes() {
                *bytes = b;
            }
        }
        outputs
    }
}

/// A sender whose resend path (REC-RTO-004.b and .c: a packet the responder SACKed, sent
/// again so that it answers the duplicate) leaves BTH `rtx` at 0: a retransmission of a
/// PSN some SACK of the QP covered goes with `rtx` 0.
#[derive(Debug, Default)]
struct ResendWithoutRtx {
    qps: Qps,
    /// The SACKs each device QP received.
    sacks: HashMap<u32, Vec<openrdma_codec::SethRepr>>,
    /// The newest PSN first sent to each peer QP.
    newest: HashMap<u32, Psn>,
    /// Instead, the resend of the newest PSN, when nothing is outstanding (REC-RTO-004.c),
    /// is not sent at all.
    drop_tail: bool,
}

impl Stream for ResendWithoutRtx {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { .. } => {
                    self.qps.learn(&i.input);
                }
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    if let (Some(bth), Some(seth)) = (d.bth, d.ext.seth) {
                        self.sacks.entry(bth.dest_qp.value()).or_default().push(seth);
                    }
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs.retain_mut(|o| {
            let Output::Frame { bytes, .. } = &mut o.output else { return true };
            let Some(mut f) = decode(bytes).to_repr() else { return true };
            let qp = f.bth.dest_qp.value();
            if f.bth.opcode.is_mrc_write() && !f.bth.rtx {
                self.newest.insert(qp, f.bth.psn);
            }
            let resend = f.bth.rtx
                && f.bth.opcode.is_mrc_write()
                && self
                    .qps
                    .local(f.bth.dest_qp.value())
                    .and_then(|l| self.sacks.get(&l))
                    .is_some_and(|s| s.iter().any(|s| s.is_sacked(f.bth.psn)));
            if !resend {
                return true;
            }
            if self.drop_tail {
                return self.newest.get(&qp) != Some(&f.bth.psn);
            }
            f.bth.rtx = false;
            if let Ok(b) = refit(&mut f) {
                *bytes = b;
            }
            true
        });
        outputs
    }
}
