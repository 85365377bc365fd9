//! The streams of the `retire` family that break what happens on a failure, the MSN
//! counters and the completion tables.

use super::*;

/// The QP and status of a requester's flag or entry.
fn requester_status(o: &Output) -> Option<(u32, CompletionStatus)> {
    match o {
        Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Requester => {
            Some((f.qpn.value(), FlagRepr::from_u64(f.value).status))
        }
        Output::Event { event: NicEvent::Completion(c) } if c.side == Side::Requester => {
            Some((c.entry.qpn.value(), c.written_entry().status))
        }
        _ => None,
    }
}

/// Rewrites the status of a requester's flag or entry.
fn set_status(o: &mut Output, status: CompletionStatus) {
    match o {
        Output::Event { event: NicEvent::FlagWrite(f) } => {
            let mut flag = FlagRepr::from_u64(f.value);
            flag.status = status;
            f.value = flag.to_u64();
        }
        Output::Event { event: NicEvent::Completion(c) } => {
            let mut entry = c.written_entry();
            entry.status = status;
            c.entry = entry;
            if let Some(q) = c.queue.as_mut() {
                let _ = entry.emit(&mut q.bytes);
            }
        }
        _ => {}
    }
}

/// Gives the messages flushed behind a QP's oldest pending one the oldest's status.
#[derive(Debug)]
pub(super) struct FlushWithTheCause;

impl Stream for FlushWithTheCause {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        // The cause of each QP's failure in this batch: its first failure other than FLUSHED.
        let mut cause: HashMap<u32, CompletionStatus> = HashMap::new();
        for o in &mut outputs {
            let Some((qpn, status)) = requester_status(&o.output) else { continue };
            if status.is_success() {
                continue;
            }
            if status != CompletionStatus::FLUSHED {
                cause.entry(qpn).or_insert(status);
            } else if let Some(&c) = cause.get(&qpn) {
                set_status(&mut o.output, c);
            }
        }
        outputs
    }
}

/// Drops the completions of the work requests that reach a QP already in error.
#[derive(Debug, Default)]
pub(super) struct TokensOfFailedQpsDropped {
    /// The QPs that reported their failure, with its time.
    failed: HashMap<u32, u64>,
}

impl Stream for TokensOfFailedQpsDropped {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            if let Output::Event { event: NicEvent::Report(NicReport::QpError { qpn, .. }) } =
                &o.output
            {
                self.failed.entry(qpn.value()).or_insert(o.at.0);
            }
            let late = requester_status(&o.output).is_some_and(|(qpn, status)| {
                status == CompletionStatus::FLUSHED
                    && self.failed.get(&qpn).is_some_and(|&t| t < o.at.0)
            });
            if !late {
                out.push(o);
            }
        }
        out
    }
}

/// After the first QP failure, retires nothing more: no retirement flag, receive completion
/// or transport ACK.
#[derive(Debug, Default)]
pub(super) struct FailureStopsDomain {
    /// The time of the first failure.
    stopped: Option<u64>,
}

impl Stream for FailureStopsDomain {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        if self.stopped.is_none() {
            self.stopped = outputs.iter().find_map(|o| match &o.output {
                Output::Event { event: NicEvent::Report(NicReport::QpError { .. }) } => {
                    Some(o.at.0)
                }
                _ => None,
            });
        }
        let Some(t) = self.stopped else { return outputs };
        outputs.retain(|o| {
            o.at.0 < t
                || match &o.output {
                    Output::Event { event: NicEvent::FlagWrite(f) } => f.side != Side::Responder,
                    Output::Event { event: NicEvent::Completion(c) } => c.side != Side::Responder,
                    Output::Frame { bytes, .. } => {
                        let d = decode(bytes);
                        !d.ext.aeth.is_some_and(|a| AethKind::of(a.syndrome) == AethKind::Ack)
                    }
                    _ => true,
                }
        });
        outputs
    }
}

/// Reports each QP failure twice.
#[derive(Debug)]
pub(super) struct ErrorReportedTwice;

impl Stream for ErrorReportedTwice {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len() + 1);
        for o in outputs {
            let again = matches!(
                &o.output,
                Output::Event { event: NicEvent::Report(NicReport::QpError { .. }) }
            )
            .then(|| o.clone());
            out.push(o);
            out.extend(again);
        }
        out
    }
}

/// Sends the probes the CPU half commands for a QP in the error state: the check of the
/// error state is left out of the command path, so the probe goes as for a live QP.
#[derive(Debug, Default)]
pub(super) struct ProbesFailedQps {
    qps: Qps,
    /// The QPs that reported their failure.
    failed: HashMap<u32, u64>,
    /// The last data frame of each wire QP, with its port: what a probe of it is made from.
    last: HashMap<u32, (u16, Vec<u8>)>,
    /// Probes commanded in the batch: time, device QP, EV.
    owed: Vec<(u64, u32, Ev)>,
}

impl Stream for ProbesFailedQps {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.learn_all(&inputs);
        for i in &inputs {
            if let Input::Cpu { command: CpuCommand::Probe { qpn, ev } } = &i.input {
                self.owed.push((i.at.0, qpn.value(), *ev));
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            match &o.output {
                Output::Event { event: NicEvent::Report(NicReport::QpError { qpn, .. }) } => {
                    self.failed.entry(qpn.value()).or_insert(o.at.0);
                }
                Output::Frame { port, bytes } => {
                    let d = decode(bytes);
                    if let (Some(b), true) = (d.bth, d.ext.meth.is_some()) {
                        self.last.insert(b.dest_qp.value(), (*port, bytes.clone()));
                    }
                }
                _ => {}
            }
        }
        // A command for a live QP the inner device acted on already.
        let owed = std::mem::take(&mut self.owed);
        for (at, qpn, ev) in owed {
            if self.failed.get(&qpn).is_none_or(|&t| t > at) {
                continue;
            }
            let Some((port, bytes)) = self.qps.peer(qpn).and_then(|p| self.last.get(&p)) else {
                continue;
            };
            let Some(mut f) = decode(bytes).to_repr() else { continue };
            let mut bth = BthRepr::new(Opcode::MRC_PROBE, f.bth.dest_qp, f.bth.psn);
            bth.pkey = f.bth.pkey;
            f.bth = bth;
            f.ext = Extensions {
                peth: Some(PethRepr { ftype: 1, ..PethRepr::default() }),
                ..Extensions::default()
            };
            f.payload.clear();
            f.set_entropy(ev);
            if f.finalize().is_err() {
                continue;
            }
            let Ok(buf) = f.to_bytes() else { continue };
            outputs.push(TimedOutput {
                at: Timestamp(at),
                output: Output::Frame { port: *port, bytes: buf },
            });
        }
        outputs.sort_by_key(|o| o.at.0);
        outputs
    }
}

/// How a faulty sender numbers its messages, against the domain's MSNs the reference
/// gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::faults) enum Counter {
    /// The counter starts at 1: each MSN one too high.
    StartsAt1,
    /// One counter per QP: a message's MSN is the count of its QP's earlier messages.
    PerQp,
    /// One counter for the device: a message's MSN is the count of every earlier message
    /// the device sent, on any QP.
    PerDevice,
}

/// A sender whose MSN counter is kept wrong. The reference numbers the messages right; the
/// faulty NIC's MSNs are worked out from them: in the METH of the packets it sends, in
/// the completion entries and sender flags it writes, and in the AETH `msn` it reads, which
/// it takes in its own numbering.
#[derive(Debug)]
pub(in crate::faults) struct MsnRenumbered {
    counter: Counter,
    qps: Qps,
    /// The reference's MSNs of each wire QP's messages, in the order they were first sent.
    sent: HashMap<u32, Vec<u16>>,
    /// The wire QP and reference MSN of every message of the device, in the order they
    /// were first sent.
    all: Vec<(u32, u16)>,
}

impl MsnRenumbered {
    pub(in crate::faults) fn new(counter: Counter) -> Self {
        MsnRenumbered { counter, qps: Qps::default(), sent: HashMap::new(), all: Vec::new() }
    }

    /// The faulty NIC's MSN of the message the reference numbers `msn`, to wire QP `peer`.
    fn faulty(&mut self, peer: u32, msn: u16) -> u16 {
        match self.counter {
            Counter::StartsAt1 => msn.wrapping_add(1),
            Counter::PerQp => {
                let sent = self.sent.entry(peer).or_default();
                let k = sent.iter().position(|&m| m == msn).unwrap_or_else(|| {
                    sent.push(msn);
                    sent.len() - 1
                });
                k as u16
            }
            Counter::PerDevice => {
                let k = self.all.iter().position(|&x| x == (peer, msn)).unwrap_or_else(|| {
                    self.all.push((peer, msn));
                    self.all.len() - 1
                });
                k as u16
            }
        }
    }

    /// The reference's MSN of the faulty NIC's MSN `msn` of wire QP `peer`; for a per-QP
    /// count beyond the messages sent, the last sent.
    fn reference(&self, peer: u32, msn: u32) -> u32 {
        match self.counter {
            Counter::StartsAt1 => msn.wrapping_sub(1) & 0xFF_FFFF,
            Counter::PerQp => {
                let Some(sent) = self.sent.get(&peer).filter(|s| !s.is_empty()) else {
                    return msn;
                };
                let k = usize::try_from(msn).unwrap_or(usize::MAX).min(sent.len() - 1);
                u32::from(sent[k])
            }
            // The QP's last message the device numbered `msn` or below.
            Counter::PerDevice => {
                let k = usize::try_from(msn).unwrap_or(usize::MAX);
                let upto = k.saturating_add(1).min(self.all.len());
                self.all[..upto]
                    .iter()
                    .rfind(|(p, _)| *p == peer)
                    .map_or(msn, |&(_, m)| u32::from(m))
            }
        }
    }
}

impl Stream for MsnRenumbered {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            self.qps.learn(&i.input);
            let Input::Frame { bytes, .. } = &mut i.input else { continue };
            let Some(mut f) = decode(bytes).to_repr() else { continue };
            let Some(peer) = self.qps.peer(f.bth.dest_qp.value()) else { continue };
            let Some(a) = f.ext.aeth.as_mut() else { continue };
            a.msn = AethMsn::new(self.reference(peer, a.msn.value()));
            if let Ok(b) = super::super::refit(&mut f) {
                *bytes = b;
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            match &mut o.output {
                Output::Frame { bytes, .. } => {
                    let Some(mut f) = decode(bytes).to_repr() else { continue };
                    let peer = f.bth.dest_qp.value();
                    let Some(m) = f.ext.meth.as_mut() else { continue };
                    m.msn = Msn::new(self.faulty(peer, m.msn.value()));
                    if let Ok(b) = super::super::refit(&mut f) {
                        *bytes = b;
                    }
                }
                Output::Event { event: NicEvent::FlagWrite(x) } if x.side == Side::Requester => {
                    if let Some(peer) = self.qps.peer(x.qpn.value()) {
                        x.msn = Msn::new(self.faulty(peer, x.msn.value()));
                    }
                }
                Output::Event { event: NicEvent::Completion(c) } if c.side == Side::Requester => {
                    let Some(peer) = self.qps.peer(c.entry.qpn.value()) else { continue };
                    let mut entry = c.written_entry();
                    entry.msn = Msn::new(self.faulty(peer, entry.msn.value()));
                    if let Some(q) = c.queue.as_mut() {
                        let _ = entry.emit(&mut q.bytes);
                    }
                    c.entry = entry;
                }
                _ => {}
            }
        }
        outputs
    }
}

/// Completes again, before each success of a QP, every success the QP completed before.
#[derive(Debug, Default)]
pub(super) struct CompletesFromTheFirst {
    /// The flags and entries of the successes each QP completed, in order.
    done: HashMap<u32, Vec<Output>>,
}

impl Stream for CompletesFromTheFirst {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        let mut new: HashMap<u32, Vec<Output>> = HashMap::new();
        for o in outputs {
            let Some((qpn, status)) = requester_status(&o.output) else {
                out.push(o);
                continue;
            };
            if status.is_success() {
                if !new.contains_key(&qpn) {
                    let again = self.done.get(&qpn).cloned().unwrap_or_default();
                    out.extend(again.into_iter().map(|output| TimedOutput { at: o.at, output }));
                }
                new.entry(qpn).or_default().push(o.output.clone());
            }
            out.push(o);
        }
        for (qpn, mut outputs) in new {
            self.done.entry(qpn).or_default().append(&mut outputs);
        }
        out
    }
}

/// Fails a QP when it sends a remote access NAK: reports the failure, and from then on
/// the QP sends, places and writes nothing.
#[derive(Debug, Default)]
pub(super) struct FailsOnAccessNak {
    qps: Qps,
    /// The wire QPs of the QPs it failed.
    failed: Vec<u32>,
}

impl Stream for FailsOnAccessNak {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.learn_all(&inputs);
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let of_failed = |q: u32| self.failed.iter().any(|&p| self.qps.local(p) == Some(q));
            let keep = match &o.output {
                Output::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let peer = d.bth.map(|b| b.dest_qp.value());
                    let nak = d.ext.aeth.is_some_and(|a| a.syndrome == AethRepr::NAK_REMOTE_ACCESS);
                    match peer {
                        Some(p) if self.failed.contains(&p) => false,
                        Some(p) if nak => {
                            out.push(o.clone());
                            self.failed.push(p);
                            if let Some(q) = self.qps.local(p) {
                                let report = NicReport::QpError {
                                    qpn: Qpn::new(q),
                                    requirement: "RCV-PLACE-002".into(),
                                };
                                out.push(TimedOutput {
                                    at: o.at,
                                    output: Output::Event { event: NicEvent::Report(report) },
                                });
                            }
                            continue;
                        }
                        _ => true,
                    }
                }
                Output::Event { event: NicEvent::DmaWrite(w) } => !of_failed(w.qpn.value()),
                Output::Event { event: NicEvent::FlagWrite(f) } => !of_failed(f.qpn.value()),
                Output::Event { event: NicEvent::Completion(c) } => !of_failed(c.entry.qpn.value()),
                _ => true,
            };
            if keep {
                out.push(o);
            }
        }
        out
    }
}

/// One message a responder QP received, as the faulty table holds it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Held {
    qp: u32,
    total: u64,
    placed: u64,
    last: bool,
}

/// Keeps the complete messages of a failed QP in its domain's table, and retires them,
/// with their flags, after the message before them retires.
#[derive(Debug, Default)]
pub(super) struct FailureKeepsEntries {
    qps: Qps,
    /// The messages received, by domain and MSN.
    held: HashMap<(u32, u16), Held>,
    /// The messages retired, by domain and MSN.
    retired: std::collections::HashSet<(u32, u16)>,
    /// The complete messages of failed QPs not yet retired, by domain and MSN.
    kept: HashMap<(u32, u16), Held>,
}

impl Stream for FailureKeepsEntries {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.received(&inputs, |r| {
            let d = r.d;
            let (Some(bth), Some(meth), Some(reth)) = (d.bth, d.ext.meth, d.ext.reth) else {
                return;
            };
            let (qp, domain) = (r.qp.qpn.value(), r.qp.domain.value());
            let h = self.held.entry((domain, meth.msn.value())).or_insert(Held {
                qp,
                total: u64::from(reth.dma_len),
                placed: 0,
                last: false,
            });
            h.placed += d.payload.len() as u64;
            h.last |= bth.opcode.is_last();
        });
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            match &o.output {
                Output::Event { event: NicEvent::Report(NicReport::QpError { qpn, .. }) } => {
                    let failed = qpn.value();
                    for (&key, h) in &self.held {
                        let complete = h.last && h.placed == h.total;
                        if h.qp == failed && complete && !self.retired.contains(&key) {
                            self.kept.insert(key, *h);
                        }
                    }
                    out.push(o);
                }
                Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Responder => {
                    let Some(domain) = self.qps.get(f.qpn.value()).map(|q| q.domain.value()) else {
                        out.push(o);
                        continue;
                    };
                    self.retired.insert((domain, f.msn.value()));
                    let (at, mut msn) = (o.at, f.msn.next());
                    out.push(o);
                    // The kept messages right behind it retire next, in MSN order.
                    while let Some(h) = self.kept.remove(&(domain, msn.value())) {
                        self.retired.insert((domain, msn.value()));
                        let Some(q) = self.qps.get(h.qp) else { break };
                        let (base, slots) = (q.recv_flag_base, q.recv_flag_slots);
                        if slots.is_power_of_two() && slots <= 1 << 15 {
                            let flag = FlagRepr::new(
                                msn.value(),
                                CompletionStatus::SUCCESS,
                                u32::try_from(h.total).unwrap_or(u32::MAX),
                            );
                            let write = openrdma_device::FlagWrite {
                                qpn: Qpn::new(h.qp),
                                side: Side::Responder,
                                msn,
                                addr: base + 8 * u64::from(u32::from(msn.value()) % slots),
                                value: flag.to_u64(),
                            };
                            let event = NicEvent::FlagWrite(write);
                            out.push(TimedOutput { at, output: Output::Event { event } });
                        }
                        msn = msn.next();
                    }
                }
                _ => out.push(o),
            }
        }
        out
    }
}

/// A shared retirement table of fewer entries than 4096: it discards, as beyond the table,
/// a new write whose MSN lies at an offset from the domain's next MSN that it cannot hold.
/// The domain's next MSN it takes from the transport ACKs its QPs send.
#[derive(Debug)]
pub(super) struct SmallTable {
    entries: u16,
    shared: bool,
    qps: Qps,
    /// The next MSN of each domain.
    next: HashMap<u32, Msn>,
}

impl SmallTable {
    pub(super) fn new(m: &openrdma_device::Manifest, entries: u16) -> Self {
        let shared = m.nic.retirement == openrdma_device::RetirementMode::Shared;
        SmallTable { entries, shared, qps: Qps::default(), next: HashMap::new() }
    }
}

impl Stream for SmallTable {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        inputs.retain(|i| match &i.input {
            Input::Host { .. } => {
                self.qps.learn(&i.input);
                true
            }
            Input::Frame { bytes, .. } if self.shared => {
                let d = decode(bytes);
                let (Some(bth), Some(meth)) = (d.bth, d.ext.meth) else { return true };
                let Some(domain) = self.qps.table(bth.dest_qp.value(), self.shared) else {
                    return true;
                };
                let next = self.next.get(&domain).copied().unwrap_or(Msn::ZERO);
                let offset = meth.msn.forward_from(next);
                !(self.entries..4096).contains(&offset)
            }
            _ => true,
        });
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            let Output::Frame { bytes, .. } = &o.output else { continue };
            let d = decode(bytes);
            let (Some(bth), Some(a)) = (d.bth, d.ext.aeth) else { continue };
            if bth.opcode != Opcode::MRC_ACKNOWLEDGE || AethKind::of(a.syndrome) != AethKind::Ack {
                continue;
            }
            if let Some(domain) =
                self.qps.local(bth.dest_qp.value()).and_then(|q| self.qps.table(q, self.shared))
            {
                self.next.insert(domain, a.msn.msn().next());
            }
        }
        outputs
    }
}

/// Writes each requester entry again right after its work request's sender flag.
#[derive(Debug, Default)]
pub(super) struct EntryRewrittenAfterFlag {
    /// The last requester entry of each QP, waiting for its flag.
    entry: HashMap<u32, TimedOutput>,
}

impl Stream for EntryRewrittenAfterFlag {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            match &o.output {
                Output::Event { event: NicEvent::Completion(c) } if c.side == Side::Requester => {
                    self.entry.insert(c.entry.qpn.value(), o.clone());
                    out.push(o);
                }
                Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Requester => {
                    let again = self.entry.remove(&f.qpn.value()).filter(|e| match &e.output {
                        Output::Event { event: NicEvent::Completion(c) } => c.entry.msn == f.msn,
                        _ => false,
                    });
                    let at = o.at;
                    out.push(o);
                    out.extend(again.map(|e| TimedOutput { at, ..e }));
                }
                _ => out.push(o),
            }
        }
        out
    }
}
