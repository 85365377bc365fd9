//! The streams of the `sending` family: each rewrites what a device does with the
//! acknowledgements it receives, its EV marks or its work requests, with one rule wrong.

use super::*;
use crate::faults::qps::Qps;

/// Messages completed by the SACKs that pass their last PSN: the device takes such a SACK
/// for an AETH ACK of the latest message it covers, as if the ACK had come with it.
#[derive(Debug, Default)]
pub(super) struct SackCompletes {
    qps: Qps,
    /// The last PSN and the MSN of each message sent and not yet completed so, by device QP.
    ends: std::collections::HashMap<u32, Vec<(Psn, openrdma_codec::Msn)>>,
}

impl Stream for SackCompletes {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        let mut out = Vec::with_capacity(inputs.len());
        for i in inputs {
            let mut ack = None;
            match &i.input {
                Input::Host { .. } => {
                    self.qps.learn(&i.input);
                }
                Input::Frame { port, bytes } => {
                    let d = decode(bytes);
                    if let (Some(b), Some(s)) = (d.bth, d.ext.seth.filter(|s| !s.pr)) {
                        let ends = self.ends.entry(b.dest_qp.value()).or_default();
                        // The ends at or before cack_psn (within half the PSN space).
                        let covered = |p: &Psn| s.cack_psn.distance(*p) >= 0;
                        let last = ends.iter().filter(|(p, _)| covered(p)).map(|x| x.1).next_back();
                        ends.retain(|(p, _)| !covered(p));
                        ack = last.and_then(|msn| ack_like(bytes, msn)).map(|a| (*port, a));
                    }
                }
                _ => {}
            }
            let at = i.at;
            out.push(i);
            if let Some((port, bytes)) = ack {
                out.push(openrdma_device::TimedInput { at, input: Input::Frame { port, bytes } });
            }
        }
        out
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            let Output::Frame { bytes, .. } = &o.output else { continue };
            let d = decode(bytes);
            let (Some(b), Some(m)) = (d.bth, d.ext.meth) else { continue };
            let ends_message = b.opcode.is_mrc_write() && b.opcode.is_last();
            let Some(local) = self.qps.local(b.dest_qp.value()) else { continue };
            if ends_message && !b.rtx {
                self.ends.entry(local).or_default().push((b.psn, m.msn));
            }
        }
        outputs
    }
}

/// An AETH ACK of `msn` with the link headers of the frame `bytes`.
pub(super) fn ack_like(bytes: &[u8], msn: openrdma_codec::Msn) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    f.bth.opcode = Opcode::MRC_ACKNOWLEDGE;
    f.bth.pad_count = 0;
    f.ext = openrdma_codec::frame::Extensions {
        aeth: Some(openrdma_codec::AethRepr {
            syndrome: openrdma_codec::AethRepr::ACK_UNLIMITED_CREDIT,
            msn: openrdma_codec::AethMsn::from(msn),
        }),
        ..Default::default()
    };
    f.payload.clear();
    f.icrc = None;
    super::super::refit(&mut f).ok()
}

/// `SetEvState` ASSUMED_BAD commands read as SKIP: the state decoded wrong, the rest right.
#[derive(Debug)]
pub(super) struct SetsSkip;

impl Stream for SetsSkip {
    fn inputs(
        &mut self,
        mut inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for i in &mut inputs {
            if let Input::Cpu { command: CpuCommand::SetEvState { state, .. } } = &mut i.input {
                if *state == openrdma_device::EvState::AssumedBad {
                    *state = openrdma_device::EvState::Skip;
                }
            }
        }
        inputs
    }
}

/// Entries a resource or window NACK queued, sent when their back-off ends whether or not
/// an acknowledgement came meanwhile: the reference drops such an entry, and this device
/// sends the PSN's latest transmission again, with its report, when the reference did not.
#[derive(Debug)]
pub(super) struct AckedEntrySent {
    backoff: u64,
    qps: Qps,
    /// The latest transmission of each (peer QP, PSN): port and bytes.
    sent: std::collections::HashMap<(u32, u32), (u16, Vec<u8>)>,
    /// The entries queued: when they go, device QP, peer QP, PSN.
    queued: Vec<(u64, u32, u32, u32)>,
}

impl AckedEntrySent {
    pub(super) fn new(m: &openrdma_device::Manifest) -> AckedEntrySent {
        AckedEntrySent {
            backoff: u64::try_from(m.nic.nack_backoff.as_nanos()).unwrap_or(u64::MAX),
            qps: Qps::default(),
            sent: std::collections::HashMap::new(),
            queued: Vec::new(),
        }
    }
}

impl Stream for AckedEntrySent {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for (at, local, peer, n) in nacks_taken(&mut self.qps, &inputs) {
            if n.reason.is_trim() || n.reason.is_fatal() {
                continue;
            }
            let psn = n.nack_psn.value();
            if !self.queued.iter().any(|q| (q.2, q.3) == (peer, psn)) {
                self.queued.push((at.saturating_add(self.backoff), local, peer, psn));
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            let Output::Frame { port, bytes } = &o.output else { continue };
            let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) else { continue };
            let key = (b.dest_qp.value(), b.psn.value());
            self.sent.insert(key, (*port, bytes.clone()));
            if b.rtx {
                self.queued.retain(|q| (q.2, q.3) != key);
            }
        }
        let (due, later): (Vec<_>, Vec<_>) =
            self.queued.drain(..).partition(|q| q.0 <= batch.until.0);
        self.queued = later;
        for (at, local, peer, psn) in due {
            outputs.extend(resent(&self.sent, at, local, peer, psn).into_iter().flatten());
        }
        outputs.sort_by_key(|o| o.at);
        outputs
    }
}

/// A NACK UNEXP_EVENT acted on like any other NACK as well: the latest transmission of
/// its PSN goes out again at once, with its report, beside what the reference does.
#[derive(Debug, Default)]
pub(super) struct FatalNackResent {
    qps: Qps,
    /// The latest transmission of each (peer QP, PSN): port and bytes.
    sent: std::collections::HashMap<(u32, u32), (u16, Vec<u8>)>,
    /// The fatal NACKs taken: when, device QP, peer QP, PSN.
    nacked: Vec<(u64, u32, u32, u32)>,
}

impl Stream for FatalNackResent {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for (at, local, peer, n) in nacks_taken(&mut self.qps, &inputs) {
            if n.reason.is_fatal() {
                self.nacked.push((at, local, peer, n.nack_psn.value()));
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            let Output::Frame { port, bytes } = &o.output else { continue };
            let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) else { continue };
            self.sent.insert((b.dest_qp.value(), b.psn.value()), (*port, bytes.clone()));
        }
        // Sent as the NACK is taken, before what failing the QP writes at that time.
        let mut out = Vec::with_capacity(outputs.len() + 2);
        for (at, local, peer, psn) in std::mem::take(&mut self.nacked) {
            out.extend(resent(&self.sent, at, local, peer, psn).into_iter().flatten());
        }
        out.extend(outputs);
        out.sort_by_key(|o| o.at);
        out
    }
}

/// A NACK of SND-NACK-003 taken as a failing path: its EV is set to SKIP, as the NIC's
/// own trim handling sets it, alongside the NACK itself.
#[derive(Debug)]
pub(super) struct ResourceNackSkips;

impl Stream for ResourceNackSkips {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        let mut out = Vec::with_capacity(inputs.len());
        for i in inputs {
            let skip = match &i.input {
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let resource = d.ext.neth.is_some_and(|n| {
                        !matches!(
                            n.reason,
                            NackReason::TRIMMED
                                | NackReason::TRIMMED_LASTHOP
                                | NackReason::UNEXP_EVENT
                        )
                    });
                    match (d.bth, d.entropy()) {
                        (Some(b), Some(ev)) if resource => Some((b.dest_qp, ev)),
                        _ => None,
                    }
                }
                _ => None,
            };
            let at = i.at;
            out.push(i);
            if let Some((qpn, ev)) = skip {
                let state = openrdma_device::EvState::Skip;
                let command = CpuCommand::SetEvState { qpn, ev, state };
                out.push(openrdma_device::TimedInput { at, input: Input::Cpu { command } });
            }
        }
        out
    }
}

/// Retransmissions given the RETH va of the latest first transmission of their QP.
#[derive(Debug, Default)]
pub(super) struct VaFromContext {
    /// The RETH va of the latest first transmission, by the peer QP it went to.
    va: std::collections::HashMap<u32, u64>,
}

impl Stream for VaFromContext {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let d = decode(bytes);
            let (Some(b), Some(r)) = (d.bth, d.ext.reth) else { continue };
            if !b.opcode.is_mrc_write() {
                continue;
            }
            let qp = b.dest_qp.value();
            if !b.rtx {
                self.va.insert(qp, r.va);
                continue;
            }
            let Some(&va) = self.va.get(&qp) else { continue };
            let moved = refit(bytes, |f| match f.ext.reth.as_mut() {
                Some(r) if r.va != va => {
                    r.va = va;
                    true
                }
                _ => false,
            });
            if let Some(m) = moved {
                *bytes = m;
            }
        }
        outputs
    }
}

/// Each first transmission sent twice.
#[derive(Debug)]
pub(super) struct Twice;

impl Stream for Twice {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            if data_of(&o.output).is_some_and(|(_, rtx)| !rtx) {
                out.push(o.clone());
            }
            out.push(o);
        }
        out
    }
}

/// Of two data packets of a QP sent at one time, new ones or retransmissions, the later
/// first.
#[derive(Debug)]
pub(super) struct Swapped {
    pub(super) rtx: bool,
}

impl Stream for Swapped {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let keys: Vec<Option<(u64, u32)>> = outputs
            .iter()
            .map(|o| data_of(&o.output).filter(|&(_, r)| r == self.rtx).map(|(q, _)| (o.at.0, q)))
            .collect();
        let mut taken = vec![false; keys.len()];
        for i in 0..keys.len() {
            let Some(k) = keys[i].filter(|_| !taken[i]) else { continue };
            if let Some(j) = (i + 1..keys.len()).find(|&j| !taken[j] && keys[j] == Some(k)) {
                outputs.swap(i, j);
                taken[i] = true;
                taken[j] = true;
            }
        }
        outputs
    }
}

/// The latest data packet of a QP sent again, as a retransmission with its report, when
/// the QP enters the error state (its first error flag, entry or report).
#[derive(Debug, Default)]
pub(super) struct AfterError {
    qps: Qps,
    /// The latest data packet sent to each peer QP.
    last: std::collections::HashMap<u32, (u16, Vec<u8>)>,
    /// The device QPs already failed.
    failed: std::collections::HashSet<u32>,
}

impl Stream for AfterError {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        self.qps.learn_all(&inputs);
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let failed = match &o.output {
                Output::Frame { port, bytes } => {
                    if let Some((q, _)) = data_of(&o.output) {
                        self.last.insert(q, (*port, bytes.clone()));
                    }
                    None
                }
                Output::Event { event } => failed_qp(event),
            };
            let at = o.at;
            out.push(o);
            let Some(qpn) = failed.filter(|q| self.failed.insert(*q)) else { continue };
            let Some((port, bytes)) = self.qps.peer(qpn).and_then(|p| self.last.get(&p)) else {
                continue;
            };
            let Some(again) = refit(bytes, |f| {
                f.bth.rtx = true;
                true
            }) else {
                continue;
            };
            let Some(b) = decode(&again).bth else { continue };
            let lost_ev = decode(&again).entropy();
            out.push(TimedOutput {
                at,
                output: Output::Event {
                    event: openrdma_device::NicEvent::Report(NicReport::Retransmitted {
                        qpn: openrdma_codec::Qpn::new(qpn),
                        psn: b.psn,
                        cause: openrdma_device::RetransmitCause::Nack,
                        lost_ev,
                    }),
                },
            });
            out.push(TimedOutput { at, output: Output::Frame { port: *port, bytes: again } });
        }
        out
    }
}

/// The NACKs among `inputs`, each with its time, the device QP it is for and that QP's
/// peer; `qps` learns the QPs created on the way.
fn nacks_taken(
    qps: &mut Qps,
    inputs: &[openrdma_device::TimedInput],
) -> Vec<(u64, u32, u32, openrdma_codec::NethRepr)> {
    let mut out = Vec::new();
    qps.received(inputs, |r| {
        if let Some(n) = r.d.ext.neth {
            out.push((r.at.0, r.qp.qpn.value(), r.qp.peer_qpn.value(), n));
        }
    });
    out
}

/// The latest transmission of PSN `psn` of peer QP `peer` in `sent`, sent again at `at` with
/// its `Retransmitted` report (cause NACK) for device QP `local`: report first, then frame.
/// `None` when the PSN was never sent.
fn resent(
    sent: &std::collections::HashMap<(u32, u32), (u16, Vec<u8>)>,
    at: u64,
    local: u32,
    peer: u32,
    psn: u32,
) -> Option<[TimedOutput; 2]> {
    let (port, bytes) = sent.get(&(peer, psn))?;
    let again = refit(bytes, |f| {
        f.bth.rtx = true;
        true
    })?;
    let report = NicReport::Retransmitted {
        qpn: openrdma_codec::Qpn::new(local),
        psn: Psn::new(psn),
        cause: openrdma_device::RetransmitCause::Nack,
        lost_ev: decode(&again).entropy(),
    };
    let at = Timestamp(at);
    let event = openrdma_device::NicEvent::Report(report);
    Some([
        TimedOutput { at, output: Output::Event { event } },
        TimedOutput { at, output: Output::Frame { port: *port, bytes: again } },
    ])
}

/// The device QP an event shows entering the error state: a requester's error flag or
/// entry, or a `QpError` report.
pub(super) fn failed_qp(e: &openrdma_device::NicEvent) -> Option<u32> {
    use openrdma_device::{NicEvent, Side};
    match e {
        NicEvent::FlagWrite(f) if f.side == Side::Requester => {
            let flag = openrdma_codec::host::FlagRepr::from_u64(f.value);
            (!flag.status.is_success()).then_some(f.qpn.value())
        }
        NicEvent::Completion(c) if c.side == Side::Requester => {
            (!c.entry.status.is_success()).then_some(c.entry.qpn.value())
        }
        NicEvent::Report(NicReport::QpError { qpn, .. }) => Some(qpn.value()),
        _ => None,
    }
}

/// SACKs with `pr` as given and a mark of `from` acted on as if they carried `to`, the
/// mark itself reported as it came: the EV transition of one mark is wrong, the rest right.
#[derive(Debug)]
pub(super) struct Marks {
    pr: bool,
    from: &'static [EvMark],
    to: EvMark,
    /// The marks read wrong and not yet reported: time, device QP, EV, the mark.
    misread: Vec<(Timestamp, u32, openrdma_codec::Ev, EvMark)>,
}

impl Marks {
    pub(super) fn new(pr: bool, from: &'static [EvMark], to: EvMark) -> Marks {
        Marks { pr, from, to, misread: Vec::new() }
    }
}

/// The mark of a report, as the device boundary gives it.
pub(super) fn report_mark(m: EvMark) -> openrdma_device::EvMark {
    openrdma_device::EvMark::from_bits(m.0)
}

impl Stream for Marks {
    fn inputs(
        &mut self,
        mut inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for i in &mut inputs {
            let Input::Frame { bytes, .. } = &mut i.input else { continue };
            let mut seen = None;
            let read = refit(bytes, |f| {
                let ev = f.entropy();
                let qpn = f.bth.dest_qp.value();
                let Some(s) = f.ext.seth.as_mut() else { return false };
                if s.pr != self.pr || !self.from.contains(&s.m) {
                    return false;
                }
                seen = Some((qpn, ev, s.m));
                s.m = self.to;
                true
            });
            if let (Some(b), Some((qpn, ev, m))) = (read, seen) {
                *bytes = b;
                self.misread.push((i.at, qpn, ev, m));
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event: openrdma_device::NicEvent::Report(r) } = &mut o.output
            else {
                continue;
            };
            let (NicReport::EvMarked { qpn, ev, mark }
            | NicReport::ProbeAnswered { qpn, ev, mark }) = r
            else {
                continue;
            };
            let k = self.misread.iter().position(|&(_, q, e, _)| q == qpn.value() && e == *ev);
            if let Some(k) = k {
                *mark = report_mark(self.misread.remove(k).3);
            }
        }
        // A skip mark read as none is reported all the same (REC-IF-005).
        let (due, later): (Vec<_>, Vec<_>) =
            self.misread.drain(..).partition(|&(at, ..)| at <= batch.until);
        self.misread = later;
        for (at, qpn, ev, m) in due.into_iter().filter(|_| !self.pr && self.to == EvMark::NONE) {
            let event = openrdma_device::NicEvent::Report(NicReport::EvMarked {
                qpn: openrdma_codec::Qpn::new(qpn),
                ev,
                mark: report_mark(m),
            });
            outputs.push(TimedOutput { at, output: Output::Event { event } });
        }
        outputs.sort_by_key(|o| o.at);
        outputs
    }
}

/// EVs put in SKIP, and reported so, that the sender's picker still takes: the SKIP_ONCE
/// mark is hidden from the reference's picker ([`Marks`]), and the device's reports of the
/// EV entering SKIP and leaving it after `skip_hold` are given as a right device gives them.
#[derive(Debug)]
pub(super) struct SkipNotHeeded {
    pub(super) marks: Marks,
    pub(super) hold: std::time::Duration,
    /// The `EvState` GOOD reports due when the hold ends: time, device QP, EV.
    pub(super) due: Vec<(Timestamp, u32, openrdma_codec::Ev)>,
}

impl Stream for SkipNotHeeded {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        let inputs = self.marks.inputs(inputs);
        let hold = u64::try_from(self.hold.as_nanos()).unwrap_or(u64::MAX);
        for &(at, qpn, ev, _) in &self.marks.misread {
            self.due.retain(|&(_, q, e)| (q, e) != (qpn, ev));
            self.due.push((Timestamp(at.0.saturating_add(hold)), qpn, ev));
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let entered: Vec<(Timestamp, u32, openrdma_codec::Ev)> = self
            .marks
            .misread
            .iter()
            .filter(|&&(at, ..)| at <= batch.until)
            .map(|&(at, q, e, _)| (at, q, e))
            .collect();
        let mut out = self.marks.outputs(outputs, batch);
        let report = |at, qpn, ev, state| TimedOutput {
            at,
            output: Output::Event {
                event: openrdma_device::NicEvent::Report(NicReport::EvState {
                    qpn: openrdma_codec::Qpn::new(qpn),
                    ev,
                    state,
                }),
            },
        };
        for (at, qpn, ev) in entered {
            out.push(report(at, qpn, ev, openrdma_device::EvState::Skip));
        }
        let (now, later): (Vec<_>, Vec<_>) =
            self.due.drain(..).partition(|&(at, ..)| at <= batch.until);
        self.due = later;
        for (at, qpn, ev) in now {
            out.push(report(at, qpn, ev, openrdma_device::EvState::Good));
        }
        out.sort_by_key(|o| o.at);
        out
    }
}

/// A probe answer with no mark taken as a controller's allow for a denied EV: the device
/// applies it as a `SetEvState` GOOD of its own.
#[derive(Debug, Default)]
pub(super) struct EndsDeny {
    /// The EVs a controller denied and has not allowed again, by device QP.
    denied: std::collections::HashSet<(u32, openrdma_codec::Ev)>,
}

impl Stream for EndsDeny {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        let mut out = Vec::with_capacity(inputs.len());
        for i in inputs {
            let allow = match &i.input {
                Input::Cpu { command: CpuCommand::SetEvState { qpn, ev, state } } => {
                    let key = (qpn.value(), *ev);
                    if *state == openrdma_device::EvState::Denied {
                        self.denied.insert(key);
                    } else {
                        self.denied.remove(&key);
                    }
                    None
                }
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let answer = d.ext.seth.is_some_and(|s| s.pr && s.m == EvMark::NONE);
                    match (d.bth, d.entropy()) {
                        (Some(b), Some(ev)) if answer => self
                            .denied
                            .take(&(b.dest_qp.value(), ev))
                            .map(|(q, ev)| (b.dest_qp, q, ev)),
                        _ => None,
                    }
                }
                _ => None,
            };
            let at = i.at;
            out.push(i);
            if let Some((qpn, _, ev)) = allow {
                let state = openrdma_device::EvState::Good;
                let command = CpuCommand::SetEvState { qpn, ev, state };
                out.push(openrdma_device::TimedInput { at, input: Input::Cpu { command } });
            }
        }
        out
    }
}

/// Probes sent on the next EV of the QP's profile.
#[derive(Debug, Default)]
pub(super) struct NextEv {
    /// The EVs of each QP, by the peer QP its packets go to.
    evs: std::collections::HashMap<u32, Vec<openrdma_codec::Ev>>,
}

impl Stream for NextEv {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::CreateQp(q) } = &i.input {
                self.evs.insert(q.peer_qpn.value(), q.evs.clone());
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let moved = refit(bytes, |f| {
                let Some(evs) = self.evs.get(&f.bth.dest_qp.value()) else { return false };
                if f.ext.peth.is_none() || evs.len() < 2 {
                    return false;
                }
                let ev = f.entropy();
                let Some(k) = evs.iter().position(|&e| e == ev) else { return false };
                f.set_entropy(evs[(k + 1) % evs.len()]);
                true
            });
            if let Some(b) = moved {
                *bytes = b;
            }
        }
        outputs
    }
}

/// Of two first transmissions of a QP sent at one time, the first packet of a message goes
/// before the last packet of the message before it: the sender starts the next message
/// once the previous one's last packet is queued, not sent.
#[derive(Debug)]
pub(super) struct NextMessageFirst;

impl Stream for NextMessageFirst {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        // (time, QP, first packet of its message, last packet of its message).
        let keys: Vec<Option<(u64, u32, bool, bool)>> = outputs
            .iter()
            .map(|o| {
                let Output::Frame { bytes, .. } = &o.output else { return None };
                let b = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write() && !b.rtx)?;
                Some((o.at.0, b.dest_qp.value(), b.opcode.is_first(), b.opcode.is_last()))
            })
            .collect();
        let mut i = 0;
        while i < keys.len() {
            let Some((at, qp, _, true)) = keys[i] else {
                i += 1;
                continue;
            };
            let next =
                (i + 1..keys.len()).find(|&j| keys[j].is_some_and(|(t, q, ..)| (t, q) == (at, qp)));
            match next {
                Some(j) if keys[j].is_some_and(|k| k.2) => {
                    outputs.swap(i, j);
                    i = j + 1;
                }
                _ => i += 1,
            }
        }
        outputs
    }
}

/// A peer window that starts at 128 PSNs, not at the sender's own window: until a SACK
/// with an `mpr` set comes, first transmissions 128 PSNs or more past `snd_una` are held,
/// and go at the SACK that lets them.
#[derive(Debug, Default)]
pub(super) struct NarrowStart {
    /// By peer QP: the device's QP, `snd_una`, whether a SACK has set the peer's window.
    qps: std::collections::HashMap<u32, (u32, u32, bool)>,
    /// The first transmissions held: peer QP, PSN, the output.
    held: Vec<(u32, u32, TimedOutput)>,
    /// The peer QPs a SACK of this batch moved, with its time.
    moved: std::collections::HashMap<u32, Timestamp>,
}

impl NarrowStart {
    /// Whether the peer window lets PSN `psn` of peer QP `peer` go.
    fn lets(&self, peer: u32, psn: u32) -> bool {
        // A PSN before snd_una is acknowledged: nothing holds it.
        self.qps.get(&peer).is_none_or(|&(_, una, set)| {
            let ahead = psn.wrapping_sub(una) & 0xFF_FFFF;
            set || !(128..1 << 23).contains(&ahead)
        })
    }
}

impl Stream for NarrowStart {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    let entry = (q.qpn.value(), q.initial_psn.value(), false);
                    self.qps.insert(q.peer_qpn.value(), entry);
                }
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let (Some(b), Some(x)) = (d.bth, d.ext.seth) else { continue };
                    if x.pr {
                        continue;
                    }
                    let local = b.dest_qp.value();
                    let Some((&peer, e)) = self.qps.iter_mut().find(|(_, v)| v.0 == local) else {
                        continue;
                    };
                    let una = (x.cack_psn.value() + 1) & 0xFF_FFFF;
                    if una.wrapping_sub(e.1) & 0xFF_FFFF < 1 << 23 {
                        e.1 = una;
                    }
                    e.2 |= x.mpr != 0;
                    self.moved.entry(peer).or_insert(i.at);
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        let moved = std::mem::take(&mut self.moved);
        let held = std::mem::take(&mut self.held);
        for (peer, psn, mut o) in held {
            match moved.get(&peer) {
                Some(&at) if self.lets(peer, psn) => {
                    o.at = at;
                    out.push(o);
                }
                _ => self.held.push((peer, psn, o)),
            }
        }
        for o in outputs {
            let Output::Frame { bytes, .. } = &o.output else {
                out.push(o);
                continue;
            };
            let first = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write() && !b.rtx);
            match first {
                Some(b) if !self.lets(b.dest_qp.value(), b.psn.value()) => {
                    self.held.push((b.dest_qp.value(), b.psn.value(), o));
                }
                _ => out.push(o),
            }
        }
        out.sort_by_key(|o| o.at);
        out
    }
}
