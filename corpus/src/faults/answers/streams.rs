//! The streams of the `answers` family: each makes one rule of a responder's answers wrong.

use super::*;
use crate::faults::qps::Qps;

/// Drops the transport ACKs that a packet causes for QPs other than its own.
#[derive(Debug, Default)]
pub(super) struct AcksOwnQpOnly {
    qps: Qps,
    /// The QPs the frames of the input being taken go to.
    arrived: Vec<u32>,
}

impl Stream for AcksOwnQpOnly {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        self.arrived.clear();
        for i in &inputs {
            match &i.input {
                openrdma_device::Input::Frame { bytes, .. } => {
                    if let Some(bth) = decode(bytes).bth {
                        self.arrived.push(bth.dest_qp.value());
                    }
                }
                openrdma_device::Input::Host { .. } => {
                    self.qps.learn(&i.input);
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        if self.arrived.is_empty() {
            return outputs;
        }
        outputs
            .into_iter()
            .filter(|o| {
                !frame(&o.output, |f| {
                    f.ext.aeth.is_some_and(|a| a.syndrome & 0x60 == 0)
                        && self
                            .qps
                            .local(f.bth.dest_qp.value())
                            .is_some_and(|l| !self.arrived.contains(&l))
                })
            })
            .collect()
    }
}

/// A SACK timer that a write taken without a SACK at once starts again, running or not.
/// A shadow reference device takes every write with AckReq set, so that its SACK after
/// each write is the one the QP's state then makes; the restarted timer sends the shadow's
/// latest SACK of the QP `sack_delay` after the latest such write. The inner device's own
/// timer SACKs are lost; a SACK it sends at once stops the timer, as it should.
#[derive(Debug)]
pub(super) struct SackTimerRestarted {
    delay: u64,
    shadow: ReferenceDevice,
    qps: Qps,
    /// By peer QP: the shadow's latest SACK that answers no probe.
    latest: HashMap<u32, TimedOutput>,
    /// By peer QP: when the timer expires.
    deadline: HashMap<u32, u64>,
    /// The write being taken: its local QP and PSN.
    write: Option<(u32, u32)>,
    /// The input being taken, for the shadow.
    pending: Vec<TimedInput>,
}

impl SackTimerRestarted {
    pub(super) fn new(m: &Manifest) -> SackTimerRestarted {
        let mut shadow = ReferenceDevice::new();
        // A manifest the inner device takes, the shadow takes too.
        let _ = shadow.start(m);
        SackTimerRestarted {
            delay: u64::try_from(m.nic.sack_delay.as_nanos()).unwrap_or(u64::MAX),
            shadow,
            qps: Qps::default(),
            latest: HashMap::new(),
            deadline: HashMap::new(),
            write: None,
            pending: Vec::new(),
        }
    }
}

impl Stream for SackTimerRestarted {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.write = None;
        for i in &inputs {
            let mut copy = i.clone();
            match &mut copy.input {
                openrdma_device::Input::Host { .. } => {
                    self.qps.learn(&i.input);
                }
                openrdma_device::Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    if let Some(b) = d.bth.filter(|b| b.opcode.is_mrc_write()) {
                        self.write = Some((b.dest_qp.value(), b.psn.value()));
                        let asked = refit(bytes, |f| {
                            f.bth.ack_req = true;
                            true
                        });
                        if let Some(b) = asked {
                            *bytes = b;
                        }
                    }
                }
                _ => {}
            }
            self.pending.push(copy);
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        // Timers that expire by now, before the input of this instant.
        let mut out: Vec<TimedOutput> = Vec::new();
        let expired: Vec<(u32, u64)> = self
            .deadline
            .iter()
            .filter(|(_, t)| **t <= batch.until.0)
            .map(|(&q, &t)| (q, t))
            .collect();
        for (qp, at) in expired {
            self.deadline.remove(&qp);
            if let Some(sack) = self.latest.get(&qp) {
                out.push(TimedOutput { at: Timestamp(at), ..sack.clone() });
            }
        }
        let shadow =
            self.shadow.advance(std::mem::take(&mut self.pending), batch.until).unwrap_or_default();
        for o in shadow {
            let Output::Frame { bytes, .. } = &o.output else { continue };
            let d = decode(bytes);
            if let (Some(b), Some(seth)) = (d.bth, d.ext.seth) {
                if !seth.pr {
                    self.latest.insert(b.dest_qp.value(), o.clone());
                }
            }
        }
        let sack_to = |o: &TimedOutput| -> Option<u32> {
            let Output::Frame { bytes, .. } = &o.output else { return None };
            let d = decode(bytes);
            d.ext.seth.and(d.bth).map(|b| b.dest_qp.value())
        };
        // At-once SACKs stop the timer; the inner device's timer SACKs are lost.
        for o in outputs {
            match sack_to(&o) {
                Some(qp) if batch.inputs_at.contains(&o.at.0) => {
                    self.deadline.remove(&qp);
                    out.push(o);
                }
                Some(_) => {}
                None => out.push(o),
            }
        }
        if let Some((local, psn)) = self.write.take() {
            let peer = self.qps.peer(local);
            let taken = out.iter().any(|o| {
                matches!(&o.output, Output::Event { event: NicEvent::DmaWrite(w) }
                    if w.qpn.value() == local && w.psn.value() == psn)
            });
            let at_once = out
                .iter()
                .any(|o| batch.inputs_at.contains(&o.at.0) && peer.is_some() && sack_to(o) == peer);
            if let (Some(peer), true, false) = (peer, taken, at_once) {
                let now = batch.inputs_at.iter().next().copied().unwrap_or(batch.until.0);
                self.deadline.insert(peer, now.saturating_add(self.delay));
            }
        }
        out.sort_by_key(|o| o.at);
        out
    }
}

/// The MSN of the last message retired on any QP: a shared retirement engine that keeps one
/// "last retired" register for the domain and puts it in every QP's ACK. The scenarios it
/// is run on have one domain, so any responder flag is one of the domain's.
#[derive(Debug, Default)]
pub(super) struct AcksCarryDomainMsn {
    last: Option<openrdma_codec::Msn>,
}

impl Stream for AcksCarryDomainMsn {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        // A batch's flags come from the retirements that cause its ACKs.
        for o in &outputs {
            if let Output::Event { event: NicEvent::FlagWrite(f) } = &o.output {
                if f.side == openrdma_device::Side::Responder {
                    self.last = Some(f.msn);
                }
            }
        }
        let Some(last) = self.last else { return outputs };
        outputs
            .into_iter()
            .map(|mut o| {
                if let Output::Frame { bytes, .. } = &mut o.output {
                    let msn = AethMsn::new(u32::from(last.value()));
                    if let Some(b) = ack(bytes, true, |a| a.msn = msn) {
                        *bytes = b;
                    }
                }
                o
            })
            .collect()
    }
}

/// A count of retired messages that one kind of acknowledgement does not reset. A shadow
/// reference device with `ack_coalesce` 1 shows each retirement (its transport ACKs); the
/// faulty device counts them since the last acknowledgement that resets its count, and
/// sends the shadow's ACK at once when the count reaches `ack_coalesce` and the inner
/// device sent none. Retirements are counted by MSN, so per-QP retirement only.
#[derive(Debug)]
pub(super) struct AckCountKept {
    /// Whether a transport ACK resets the count.
    ack_resets: bool,
    /// Whether a transport NAK resets the count.
    nak_resets: bool,
    coalesce: u32,
    shadow: ReferenceDevice,
    /// The inputs of the batch, for the shadow.
    pending: Vec<TimedInput>,
    /// By peer QP: the count, and the MSN of the last retirement counted.
    count: HashMap<u32, (u32, u16)>,
}

impl AckCountKept {
    pub(super) fn new(m: &Manifest, ack_resets: bool, nak_resets: bool) -> AckCountKept {
        let mut shadow = ReferenceDevice::new();
        let mut one = m.clone();
        one.nic.ack_coalesce = 1;
        // A manifest the inner device takes, the shadow takes too.
        let _ = shadow.start(&one);
        AckCountKept {
            ack_resets,
            nak_resets,
            coalesce: m.nic.ack_coalesce,
            shadow,
            pending: Vec::new(),
            count: HashMap::new(),
        }
    }
}

/// A responder whose SACK builder takes the low 16 bits of the trigger's distance from
/// `cack_psn` with no clamp: it sees the PSN of each write that arrives, and rewrites the
/// clamped offset of a SACK the inner device sends for it.
#[derive(Debug, Default)]
pub(super) struct OffsetTruncated {
    /// The PSN of the latest write to arrive, by destination QP.
    last: HashMap<u32, Psn>,
}

impl Stream for OffsetTruncated {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let openrdma_device::Input::Frame { bytes, .. } = &i.input {
                let d = decode(bytes);
                if let Some(bth) = d.bth.filter(|b| b.opcode.is_mrc_write()) {
                    self.last.insert(bth.dest_qp.value(), bth.psn);
                }
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            // A SACK goes to the peer's QP, the writes it answers came to the device's own:
            // the trigger is known when one QP receives writes.
            let mut qps = self.last.values();
            let (Some(&trigger), None) = (qps.next(), qps.next()) else { continue };
            let truncated = seth(bytes, |s| {
                let clamped = s.ack_psn_offset == i16::MIN || s.ack_psn_offset == i16::MAX;
                !s.pr && clamped && {
                    let d = trigger.value().wrapping_sub(s.cack_psn.value()) & 0xFF_FFFF;
                    s.ack_psn_offset = d as u16 as i16;
                    true
                }
            });
            if let Some(b) = truncated {
                *bytes = b;
            }
        }
        outputs
    }
}

/// A transport ACK or NAK frame: its peer QP, whether a NAK, and its MSN bits 15:0.
fn acknowledgement(o: &TimedOutput) -> Option<(u32, bool, u16)> {
    let Output::Frame { bytes, .. } = &o.output else { return None };
    let d = decode(bytes);
    let (bth, a) = (d.bth?, d.ext.aeth?);
    Some((bth.dest_qp.value(), a.syndrome & 0x60 == 0x60, (a.msn.value() & 0xFFFF) as u16))
}

impl Stream for AckCountKept {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.pending.extend(inputs.iter().cloned());
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let shadow =
            self.shadow.advance(std::mem::take(&mut self.pending), batch.until).unwrap_or_default();
        // Retirements (the shadow's ACKs) and the inner device's acknowledgements, in time
        // order, a retirement before an acknowledgement of the same instant.
        let mut events: Vec<(u64, bool, usize)> = Vec::new();
        for (k, o) in shadow.iter().enumerate() {
            if acknowledgement(o).is_some_and(|(_, nak, _)| !nak) {
                events.push((o.at.0, false, k));
            }
        }
        for (k, o) in outputs.iter().enumerate() {
            if acknowledgement(o).is_some() {
                events.push((o.at.0, true, k));
            }
        }
        events.sort_unstable();
        let mut extra: Vec<TimedOutput> = Vec::new();
        for (at, inner, k) in events {
            if inner {
                let Some((qp, nak, msn)) = acknowledgement(&outputs[k]) else { continue };
                let reset = if nak { self.nak_resets } else { self.ack_resets };
                let _ = msn;
                let c = self.count.entry(qp).or_insert((0, 0xFFFF));
                if reset {
                    c.0 = 0;
                }
                continue;
            }
            let Some((qp, _, msn)) = acknowledgement(&shadow[k]) else { continue };
            let c = self.count.entry(qp).or_insert((0, 0xFFFF));
            c.0 += u32::from(msn.wrapping_sub(c.1));
            c.1 = msn;
            let inner_acked = outputs.iter().any(|o| {
                o.at.0 == at
                    && acknowledgement(o).is_some_and(|(q, n, m)| q == qp && !n && m == msn)
            });
            if !inner_acked && c.0 >= self.coalesce {
                extra.push(shadow[k].clone());
                if self.ack_resets {
                    c.0 = 0;
                }
            }
        }
        // Each extra ACK goes before its QP's SACK of the same instant, as an ACK does.
        for e in extra {
            let qp = acknowledgement(&e).map(|a| a.0);
            let sack = outputs.iter().position(|o| {
                o.at == e.at
                    && frame(&o.output, |f| {
                        f.ext.seth.is_some() && Some(f.bth.dest_qp.value()) == qp
                    })
            });
            let at = sack.unwrap_or_else(|| outputs.iter().take_while(|o| o.at <= e.at).count());
            outputs.insert(at, e);
        }
        outputs
    }
}

/// A write too long for the PMTU that the region check refuses reaches the inner device
/// cut to the PMTU, so that the region check acts on it first, as in the faulty order.
#[derive(Debug)]
pub(super) struct RegionBeforeLength {
    pub(super) pmtu: usize,
    /// The regions registered, by rkey.
    pub(super) regions: HashMap<u32, openrdma_device::Region>,
}

impl Stream for RegionBeforeLength {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            match &mut i.input {
                openrdma_device::Input::Host {
                    command: openrdma_device::HostCommand::RegisterRegion(r),
                } => {
                    self.regions.insert(r.rkey.value(), *r);
                }
                openrdma_device::Input::Frame { bytes, .. } => {
                    let Some(mut f) = decode(bytes).to_repr() else { continue };
                    let Some(reth) = f.ext.reth else { continue };
                    if !f.bth.opcode.is_mrc_write() || f.payload.len() <= self.pmtu {
                        continue;
                    }
                    let refused = self
                        .regions
                        .get(&reth.rkey.value())
                        .is_none_or(|r| !r.remote_write || !r.contains(reth.va, self.pmtu as u64));
                    if !refused {
                        continue;
                    }
                    f.payload.truncate(self.pmtu);
                    if let Ok(b) = super::super::refit(&mut f) {
                        *bytes = b;
                    }
                }
                _ => {}
            }
        }
        inputs
    }
}

/// Each SACK that answers a write the region check refuses (a duplicate, since the inner
/// device answers a new such write with a NAK) is followed by the NAK of that check, with
/// the MSN of the QP's last transport acknowledgement.
#[derive(Debug, Default)]
pub(super) struct DuplicateCheckedFurther {
    /// The regions registered, by rkey.
    regions: HashMap<u32, openrdma_device::Region>,
    /// The writes the region check refuses: QP, PSN, EV and arrival time.
    refused: Vec<(u32, u32, Ev, u64)>,
    /// By peer QP: the MSN of the last transport ACK or NAK sent.
    last_msn: HashMap<u32, u32>,
}

impl Stream for DuplicateCheckedFurther {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            match &i.input {
                openrdma_device::Input::Host {
                    command: openrdma_device::HostCommand::RegisterRegion(r),
                } => {
                    self.regions.insert(r.rkey.value(), *r);
                }
                openrdma_device::Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let (Some(bth), Some(reth), Some(ev)) = (d.bth, d.ext.reth, d.entropy()) else {
                        continue;
                    };
                    let len = d.payload.len() as u64;
                    let refused = self
                        .regions
                        .get(&reth.rkey.value())
                        .is_none_or(|r| !r.remote_write || !r.contains(reth.va, len));
                    if bth.opcode.is_mrc_write() && refused {
                        self.refused.push((bth.dest_qp.value(), bth.psn.value(), ev, i.at.0));
                    }
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let nak = match &o.output {
                Output::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    if let (Some(bth), Some(a)) = (d.bth, d.ext.aeth) {
                        self.last_msn.insert(bth.dest_qp.value(), a.msn.value());
                    }
                    self.nak_for(bytes, o.at.0)
                }
                _ => None,
            };
            out.push(o.clone());
            if let Some(bytes) = nak {
                let mut n = o;
                if let Output::Frame { bytes: b, .. } = &mut n.output {
                    *b = bytes;
                }
                out.push(n);
            }
        }
        out
    }
}

impl DuplicateCheckedFurther {
    /// The NAK that follows SACK `b`, sent at `at`, when it answers a write the region
    /// check refuses that arrived by then.
    fn nak_for(&self, b: &[u8], at: u64) -> Option<Vec<u8>> {
        let mut f = decode(b).to_repr()?;
        let s = f.ext.seth.filter(|s| !s.pr)?;
        let psn = s.cack_psn.value().wrapping_add(i32::from(s.ack_psn_offset) as u32) & 0xFF_FFFF;
        // The SACK goes to the peer QP; the write came to the local one, whose number the
        // SACK does not carry: any refused write of that PSN and EV.
        if !self.refused.iter().any(|&(_, p, ev, t)| p == psn && ev == s.entropy && t <= at) {
            return None;
        }
        let msn = self.last_msn.get(&f.bth.dest_qp.value()).copied().unwrap_or(0xFFFF);
        f.bth.opcode = openrdma_codec::Opcode::MRC_ACKNOWLEDGE;
        f.ext = openrdma_codec::frame::Extensions {
            aeth: Some(openrdma_codec::AethRepr {
                syndrome: openrdma_codec::AethRepr::NAK_REMOTE_ACCESS,
                msn: AethMsn::new(msn),
            }),
            ..Default::default()
        };
        f.payload.clear();
        super::super::refit(&mut f).ok()
    }
}

/// SACKs whose trigger is a write behind a hole held for the SACK timer: sent `delay`
/// after, unless another SACK of the QP goes first.
#[derive(Debug, Default)]
pub(super) struct NoSackAfterHole {
    pub(super) delay: u64,
    /// Writes that make a SACK due at once whatever their PSN (AckReq, rtx, a copy seen
    /// before), by PSN and EV.
    pub(super) at_once: std::collections::HashSet<(u32, u32)>,
    /// Writes seen, by PSN and EV.
    pub(super) seen: std::collections::HashSet<(u32, u32)>,
    /// SACKs held, with the QP they go to.
    pub(super) held: Vec<(u32, TimedOutput)>,
}

impl Stream for NoSackAfterHole {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for i in &inputs {
            let openrdma_device::Input::Frame { bytes, .. } = &i.input else { continue };
            let d = decode(bytes);
            let (Some(bth), Some(ev)) = (d.bth, d.entropy()) else { continue };
            if !bth.opcode.is_mrc_write() {
                continue;
            }
            let key = (bth.psn.value(), ev.value());
            if bth.ack_req || bth.rtx || !self.seen.insert(key) {
                self.at_once.insert(key);
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let sack = match &o.output {
                Output::Frame { bytes, .. } => decode(bytes).to_repr().and_then(|f| {
                    let s = f.ext.seth?;
                    Some((f.bth.dest_qp.value(), s))
                }),
                Output::Event { .. } => None,
            };
            let Some((qp, s)) = sack else {
                out.push(o);
                continue;
            };
            // Another SACK of the QP reports at least as much as one held.
            self.held.retain(|(q, _)| *q != qp);
            let trigger = s.cack_psn.value().wrapping_add(s.ack_psn_offset as u32) & 0xFF_FFFF;
            if !s.pr
                && s.ack_psn_offset >= 2
                && !self.at_once.contains(&(trigger, s.entropy.value()))
            {
                let at = openrdma_device::Timestamp(o.at.0.saturating_add(self.delay));
                self.held.push((qp, TimedOutput { at, output: o.output }));
                continue;
            }
            out.push(o);
        }
        let (due, kept): (Vec<_>, Vec<_>) =
            self.held.drain(..).partition(|(_, o)| o.at <= batch.until);
        self.held = kept;
        out.extend(due.into_iter().map(|(_, o)| o));
        out.sort_by_key(|o| o.at);
        out
    }
}

/// Each DMA write issued twice.
#[derive(Debug)]
pub(super) struct PlacesTwice;

impl Stream for PlacesTwice {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            if matches!(o.output, Output::Event { event: NicEvent::DmaWrite(_) }) {
                out.push(o.clone());
            }
            out.push(o);
        }
        out
    }
}

/// Each NACK followed by a SACK that answers the NACKed write: the QP's last SACK with
/// the NACKed PSN as its trigger, on the NACK's EV.
#[derive(Debug, Default)]
pub(super) struct SacksRejected {
    /// The last SACK of each QP, by the peer QP it went to.
    last: std::collections::HashMap<u32, FrameRepr>,
}

impl SacksRejected {
    /// Keeps a SACK the device sends; for a NACK, the SACK that answers its write.
    fn answer(&mut self, f: FrameRepr) -> Option<Vec<u8>> {
        let qp = f.bth.dest_qp.value();
        if f.ext.seth.is_some() {
            self.last.insert(qp, f);
            return None;
        }
        let n = f.ext.neth?;
        let mut sack = self.last.get(&qp)?.clone();
        let s = sack.ext.seth.as_mut()?;
        let ahead = n.nack_psn.value().wrapping_sub(s.cack_psn.value());
        s.ack_psn_offset = i16::try_from((ahead << 8) as i32 >> 8).ok()?;
        s.entropy = n.entropy;
        s.pr = false;
        sack.set_entropy(f.entropy());
        super::super::refit(&mut sack).ok()
    }
}

impl Stream for SacksRejected {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let answer = match &o.output {
                Output::Frame { port, bytes } => {
                    decode(bytes).to_repr().and_then(|f| self.answer(f)).map(|bytes| TimedOutput {
                        at: o.at,
                        output: Output::Frame { port: *port, bytes },
                    })
                }
                Output::Event { .. } => None,
            };
            out.push(o);
            out.extend(answer);
        }
        out
    }
}

/// Leaves a duplicate unanswered by a SACK: the SACK whose triggering PSN the device had
/// placed before it is lost, so the duplicate path sends at most its transport ACK. With
/// `ack_first`, the SACK is kept but follows the ACK of its QP sent at its time.
#[derive(Debug, Default)]
pub(super) struct DuplicatesUnsacked {
    ack_first: bool,
    qps: Qps,
    /// (device QP, PSN) of every write placed, with when it was first placed.
    placed: HashMap<(u32, u32), Timestamp>,
    /// (device QP, PSN, time) of the writes of the batch.
    arrived: std::collections::HashSet<(u32, u32, Timestamp)>,
}

impl DuplicatesUnsacked {
    /// The stream; with `ack_first`, the one that reorders instead of losing.
    pub(super) fn new(ack_first: bool) -> DuplicatesUnsacked {
        DuplicatesUnsacked { ack_first, ..DuplicatesUnsacked::default() }
    }
}

impl Stream for DuplicatesUnsacked {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.learn_all(&inputs);
        self.arrived.clear();
        for i in &inputs {
            let openrdma_device::Input::Frame { bytes, .. } = &i.input else { continue };
            if let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) {
                self.arrived.insert((b.dest_qp.value(), b.psn.value(), i.at));
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            if let Output::Event { event: NicEvent::DmaWrite(w) } = &o.output {
                self.placed.entry((w.qpn.value(), w.psn.value())).or_insert(o.at);
            }
        }
        let answers_placed = |at: Timestamp, f: &FrameRepr| {
            let Some(s) = f.ext.seth.filter(|s| !s.pr) else { return false };
            let psn = s.cack_psn.value().wrapping_add_signed(i32::from(s.ack_psn_offset));
            let local = self.qps.local(f.bth.dest_qp.value());
            // The SACK of a copy that arrived then, of a PSN placed before.
            let Some(l) = local else { return false };
            let psn = psn & 0xFF_FFFF;
            self.arrived.contains(&(l, psn, at))
                && self.placed.get(&(l, psn)).is_some_and(|&t| t < at)
        };
        if !self.ack_first {
            let kept =
                outputs.into_iter().filter(|o| !frame(&o.output, |f| answers_placed(o.at, f)));
            return kept.collect();
        }
        let mut out = outputs;
        for i in 0..out.len().saturating_sub(1) {
            let (a, b) = (&out[i], &out[i + 1]);
            let ack = frame(&b.output, |f| f.ext.aeth.is_some_and(|x| x.syndrome & 0x60 == 0));
            if a.at == b.at && ack && frame(&a.output, |f| answers_placed(a.at, f)) {
                out.swap(i, i + 1);
            }
        }
        out
    }
}

/// A window comparator one PSN short: the last PSN of the window, `epsn + W − 1`, is
/// taken as out of window. The device is given that PSN as `epsn + W`, which it NACKs,
/// and its NACK names the PSN that arrived. Every other write inside the window is taken
/// as accepted, to follow `epsn`.
#[derive(Debug)]
pub(super) struct WindowOneShort {
    window: u32,
    qps: Qps,
    /// By device QP: `epsn` and the PSNs received after it.
    state: HashMap<u32, (u32, std::collections::BTreeSet<u32>)>,
    /// (peer QP, PSN given to the device) -> the PSN that arrived.
    renamed: HashMap<(u32, u32), u32>,
}

impl WindowOneShort {
    pub(super) fn new(m: &Manifest) -> WindowOneShort {
        let window = u32::from(m.nic.mpr) * 128;
        WindowOneShort {
            window,
            qps: Qps::default(),
            state: HashMap::new(),
            renamed: HashMap::new(),
        }
    }

    /// The PSN the device is given for write `psn` to device QP `local`.
    fn take(&mut self, local: u32, first: u32, psn: u32) -> u32 {
        let (epsn, got) = self.state.entry(local).or_insert((first, Default::default()));
        let d = psn.wrapping_sub(*epsn) & 0xFF_FFFF;
        if d == self.window - 1 {
            return epsn.wrapping_add(self.window) & 0xFF_FFFF;
        }
        if d < self.window {
            got.insert(psn);
            while got.remove(epsn) {
                *epsn = epsn.wrapping_add(1) & 0xFF_FFFF;
            }
        }
        psn
    }
}

impl Stream for WindowOneShort {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            self.qps.learn(&i.input);
            let openrdma_device::Input::Frame { bytes, .. } = &mut i.input else { continue };
            let d = decode(bytes);
            if d.discard_reason().is_some() {
                continue;
            }
            let Some(mut f) = d.to_repr().filter(|f| f.bth.opcode.is_mrc_write()) else {
                continue;
            };
            let local = f.bth.dest_qp.value();
            let Some(q) = self.qps.get(local) else { continue };
            let (first, peer) = (q.peer_initial_psn.value(), q.peer_qpn.value());
            let psn = f.bth.psn.value();
            let given = self.take(local, first, psn);
            if given != psn {
                f.bth.psn = Psn::new(given);
                f.icrc = None;
                if let Ok(b) = f.to_bytes() {
                    *bytes = b;
                    self.renamed.insert((peer, given), psn);
                }
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let renamed = &self.renamed;
            let edited = refit(bytes, |f| {
                let Some(n) = f.ext.neth.as_mut() else { return false };
                let Some(&psn) = renamed.get(&(f.bth.dest_qp.value(), n.nack_psn.value())) else {
                    return false;
                };
                n.nack_psn = Psn::new(psn);
                f.bth.psn = Psn::new(psn);
                true
            });
            if let Some(b) = edited {
                *bytes = b;
            }
        }
        outputs
    }
}

/// Sends a transport NAK once per MSN: a later write refused by the region check, while
/// the QP's last retired MSN is the one an earlier NAK carried, gets no NAK.
#[derive(Debug, Default)]
pub(super) struct NakOncePerMsn {
    sent: std::collections::HashSet<(u32, u32)>,
}

impl Stream for NakOncePerMsn {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut keep = Vec::with_capacity(outputs.len());
        for o in outputs {
            let mut nak = None;
            frame(&o.output, |f| {
                let a = f.ext.aeth.filter(|a| a.syndrome & 0x60 != 0);
                nak = a.map(|a| (f.bth.dest_qp.value(), a.msn.value()));
                false
            });
            if nak.is_some_and(|k| !self.sent.insert(k)) {
                continue;
            }
            keep.push(o);
        }
        keep
    }
}
