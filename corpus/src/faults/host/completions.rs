//! The streams of the `host` family for completion queues, flags and retirement: each
//! rewrites the entries and flags a device writes, with one rule wrong.

use super::*;

// ---- completion queues -----------------------------------------------------------------

/// The completions of `outputs`, rewritten by `edit`, their bytes emitted again.
pub(super) fn completions(
    outputs: &mut [TimedOutput],
    mut edit: impl FnMut(&mut openrdma_device::CompletionEvent),
) {
    for o in outputs {
        if let Output::Event { event: NicEvent::Completion(c) } = &mut o.output {
            edit(c);
        }
    }
}

/// Completion queues as software created them; the device makes each ring far larger.
#[derive(Debug, Default)]
pub(super) struct CqOverwrites {
    pub(super) cqs: HashMap<CqId, CqConfig>,
}

impl Stream for CqOverwrites {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            if let Input::Host { command: HostCommand::CreateCq(c) } = &mut i.input {
                self.cqs.insert(c.cq, *c);
                // Never full: a ring far larger than the one in memory.
                c.entries = c.entries.saturating_mul(256).min(1 << 31);
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        completions(&mut outputs, |c| {
            let mut e = c.written_entry();
            let Some(q) = c.queue.as_mut() else { return };
            let Some(cfg) = self.cqs.get(&q.cq) else { return };
            // The device's count is the slot in its huge ring.
            let (k, n) = (u64::from(q.slot), u64::from(cfg.entries));
            q.slot = (k % n) as u32;
            q.addr = cfg.slot_addr(q.slot);
            e.phase = (k / n) % 2 == 0;
            c.entry = e;
            let _ = e.emit(&mut q.bytes);
        });
        outputs
    }
}

/// Fails a QP at the entry that finds its queue full, rather than after the input.
#[derive(Debug)]
pub(super) struct FailsAtOnce;

impl Stream for FailsAtOnce {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        // The QPs the batch fails for a full queue, and the messages whose entries it
        // writes.
        let mut stopped = Vec::new();
        let mut entries = Vec::new();
        for o in &outputs {
            match &o.output {
                Output::Event {
                    event: NicEvent::Report(NicReport::QpError { qpn, requirement }),
                } if requirement.starts_with("CQE-RING-004") => {
                    stopped.push(*qpn);
                }
                Output::Event { event: NicEvent::Completion(c) } if c.side == Side::Requester => {
                    entries.push((c.entry.qpn, c.entry.msn));
                }
                _ => {}
            }
        }
        for o in &mut outputs {
            let Output::Event { event: NicEvent::FlagWrite(w) } = &mut o.output else { continue };
            let mut f = FlagRepr::from_u64(w.value);
            let flushed = w.side == Side::Requester
                && stopped.contains(&w.qpn)
                && f.status.is_success()
                && !entries.contains(&(w.qpn, w.msn));
            if flushed {
                f.status = CompletionStatus::FLUSHED;
                f.byte_len = 0;
                w.value = f.to_u64();
            }
        }
        outputs
    }
}

/// What each slot of each queue holds.
#[derive(Debug, Default)]
pub(super) struct OwnerFirst {
    pub(super) slots: HashMap<(CqId, u32), [u8; COMPLETION_LEN]>,
}

impl Stream for OwnerFirst {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        completions(&mut outputs, |c| {
            let Some(q) = c.queue.as_mut() else { return };
            let before = self.slots.insert((q.cq, q.slot), q.bytes).unwrap_or([0; COMPLETION_LEN]);
            q.bytes[..COMPLETION_LEN - 1].copy_from_slice(&before[..COMPLETION_LEN - 1]);
            c.entry = CompletionRepr::parse(&q.bytes).unwrap_or_default();
        });
        outputs
    }
}

/// The device error queue, once software names it, the queues software created and how
/// many entries the faulty device has written to each: it writes every rejection to the
/// error queue's next slot, as it writes any entry to a queue.
#[derive(Debug, Default)]
pub(super) struct RejectsToErrorCq {
    pub(super) error_cq: Option<CqId>,
    pub(super) cqs: HashMap<CqId, CqConfig>,
    pub(super) written: HashMap<CqId, u64>,
}

impl Stream for RejectsToErrorCq {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::SetErrorCq { cq } } => {
                    self.error_cq = Some(*cq);
                }
                Input::Host { command: HostCommand::CreateCq(c) } => {
                    self.cqs.insert(c.cq, *c);
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        completions(&mut outputs, |c| {
            let mut e = c.written_entry();
            let Some(q) = c.queue.as_mut() else { return };
            if let (Some(err), true) = (self.error_cq, e.status.is_doorbell_reject()) {
                q.cq = err;
            }
            let Some(cfg) = self.cqs.get(&q.cq) else { return };
            // The queue's k-th entry: at slot k mod N, its phase from the k-th pass.
            let k = self.written.entry(q.cq).or_default();
            let n = u64::from(cfg.entries.max(1));
            q.slot = (*k % n) as u32;
            q.addr = cfg.slot_addr(q.slot);
            e.phase = (*k / n) % 2 == 0;
            *k += 1;
            c.entry = e;
            let _ = e.emit(&mut q.bytes);
        });
        outputs
    }
}

/// The lengths of the work requests software posted, by `wr_id`.
#[derive(Debug, Default)]
pub(super) struct FailedKeepsLength {
    pub(super) lengths: HashMap<u64, u32>,
}

impl Stream for FailedKeepsLength {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::PostWrite(wr) } = &i.input {
                self.lengths.insert(wr.wr_id, wr.length);
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        completions(&mut outputs, |c| {
            let mut e = c.written_entry();
            let failed = !e.status.is_success() && !e.status.is_doorbell_reject();
            let Some(&len) = self.lengths.get(&e.wr_id) else { return };
            if c.side != Side::Requester || !failed {
                return;
            }
            e.byte_len = len;
            c.entry = e;
            if let Some(q) = c.queue.as_mut() {
                let _ = e.emit(&mut q.bytes);
            }
        });
        outputs
    }
}

/// A flag event with `edit` applied to its decoded value.
pub(super) fn edit_flag(f: &mut FlagWrite, edit: impl FnOnce(&mut FlagRepr)) {
    let mut v = FlagRepr::from_u64(f.value);
    edit(&mut v);
    f.value = v.to_u64();
}

/// The lengths of the work requests software posted, by `wr_id`.
#[derive(Debug, Default)]
pub(super) struct FailedFlagKeepsLength {
    pub(super) lengths: HashMap<u64, u32>,
}

impl Stream for FailedFlagKeepsLength {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::PostWrite(wr) } = &i.input {
                self.lengths.insert(wr.wr_id, wr.length);
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        // A failed work request's entry, written with its flag, names its wr_id.
        let mut wr_of = HashMap::new();
        completions(&mut outputs, |c| {
            let e = c.written_entry();
            if c.side == Side::Requester {
                wr_of.insert((e.qpn, e.msn), e.wr_id);
            }
        });
        for o in &mut outputs {
            let Output::Event { event: NicEvent::FlagWrite(f) } = &mut o.output else { continue };
            let len = wr_of.get(&(f.qpn, f.msn)).and_then(|w| self.lengths.get(w));
            let failed = !FlagRepr::from_u64(f.value).status.is_success();
            if let (Some(&len), true, Side::Requester) = (len, failed, f.side) {
                edit_flag(f, |v| v.byte_len = len);
            }
        }
        outputs
    }
}

/// The path MTU, which cuts messages into packets.
#[derive(Debug)]
pub(super) struct LastPacketLength {
    pub(super) pmtu: u32,
}

impl Stream for LastPacketLength {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event: NicEvent::FlagWrite(f) } = &mut o.output else { continue };
            if f.side == Side::Requester {
                let pmtu = self.pmtu;
                edit_flag(f, |v| {
                    if v.status.is_success() && v.byte_len > 0 {
                        v.byte_len = (v.byte_len - 1) % pmtu + 1;
                    }
                });
            }
        }
        outputs
    }
}

/// Holds each sender flag until the next multiple of [`FlagsAtTick::TICK`] after it.
#[derive(Debug, Default)]
pub(super) struct FlagsAtTick {
    held: Vec<TimedOutput>,
}

impl FlagsAtTick {
    /// The housekeeping tick, in ns.
    const TICK: u64 = 16_384;
}

impl Stream for FlagsAtTick {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let (flags, mut out): (Vec<TimedOutput>, Vec<TimedOutput>) =
            outputs.into_iter().partition(|o| {
                matches!(&o.output,
                    Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Requester)
            });
        for mut f in flags {
            f.at = openrdma_device::Timestamp((f.at.0 / Self::TICK + 1) * Self::TICK);
            self.held.push(f);
        }
        let (due, later): (Vec<TimedOutput>, Vec<TimedOutput>) =
            self.held.drain(..).partition(|o| o.at <= batch.until);
        self.held = later;
        out.extend(due);
        out.sort_by_key(|o| o.at);
        out
    }
}

/// Writes byte_len 0 in the retirement flag of each message whose receive completion,
/// in the same batch, carries an immediate.
#[derive(Debug)]
pub(super) struct ImmRetirementLenZero;

impl Stream for ImmRetirementLenZero {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut imm = Vec::new();
        completions(&mut outputs, |c| {
            let e = c.written_entry();
            if c.side == Side::Responder && e.has_imm {
                imm.push((e.qpn, e.msn));
            }
        });
        for o in &mut outputs {
            let Output::Event { event: NicEvent::FlagWrite(f) } = &mut o.output else { continue };
            if f.side == Side::Responder && imm.contains(&(f.qpn, f.msn)) {
                edit_flag(f, |v| v.byte_len = 0);
            }
        }
        outputs
    }
}

/// Drops the sender flag of every success whose completion the same batch does not write.
#[derive(Debug)]
pub(super) struct UnsignaledFlagDropped;

impl Stream for UnsignaledFlagDropped {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut completed = Vec::new();
        completions(&mut outputs, |c| {
            let e = c.written_entry();
            if c.side == Side::Requester {
                completed.push((e.qpn, e.msn));
            }
        });
        outputs.retain(|o| {
            !matches!(&o.output, Output::Event { event: NicEvent::FlagWrite(f) }
                if f.side == Side::Requester
                    && FlagRepr::from_u64(f.value).status.is_success()
                    && !completed.contains(&(f.qpn, f.msn)))
        });
        outputs
    }
}

/// The `wr_id`s of the unsignaled work requests software posted.
#[derive(Debug, Default)]
pub(super) struct FailedUnsignaledNoCqe {
    pub(super) unsignaled: Vec<u64>,
}

impl Stream for FailedUnsignaledNoCqe {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::PostWrite(wr) } = &i.input {
                if !wr.signaled {
                    self.unsignaled.push(wr.wr_id);
                }
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs.retain(|o| {
            !matches!(&o.output, Output::Event { event: NicEvent::Completion(c) }
                if c.side == Side::Requester
                    && !c.written_entry().status.is_success()
                    && self.unsignaled.contains(&c.written_entry().wr_id))
        });
        outputs
    }
}

/// Writes the requester entries of each batch last first, all at the place of the first.
#[derive(Debug)]
pub(super) struct CqesReversed;

impl Stream for CqesReversed {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let requester = |o: &TimedOutput| {
            matches!(&o.output, Output::Event { event: NicEvent::Completion(c) }
                if c.side == Side::Requester)
        };
        let Some(first) = outputs.iter().position(requester) else { return outputs };
        let (mut entries, mut rest): (Vec<_>, Vec<_>) = outputs.into_iter().partition(requester);
        // Each keeps the slot it was written to: the ring fills in order, the entries in it
        // are last first.
        let slots: Vec<_> = entries.clone();
        entries.reverse();
        for (e, s) in entries.iter_mut().zip(&slots) {
            let (
                Output::Event { event: NicEvent::Completion(c) },
                Output::Event { event: NicEvent::Completion(slot) },
            ) = (&mut e.output, &s.output)
            else {
                continue;
            };
            let mut entry = c.written_entry();
            entry.phase = slot.written_entry().phase;
            c.entry = entry;
            c.queue = slot.queue;
            if let Some(q) = c.queue.as_mut() {
                let _ = entry.emit(&mut q.bytes);
            }
            e.at = s.at;
        }
        rest.splice(first..first, entries);
        rest
    }
}

/// Drops the sender flag of every message whose successful completion the same batch
/// writes.
#[derive(Debug)]
pub(super) struct SignaledFlagDropped;

impl Stream for SignaledFlagDropped {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let completed: Vec<_> = outputs
            .iter()
            .filter_map(|o| match &o.output {
                Output::Event { event: NicEvent::Completion(c) }
                    if c.side == Side::Requester && c.written_entry().status.is_success() =>
                {
                    let e = c.written_entry();
                    Some((e.qpn, e.msn))
                }
                _ => None,
            })
            .collect();
        outputs
            .into_iter()
            .filter(|o| {
                !matches!(&o.output, Output::Event { event: NicEvent::FlagWrite(f) }
                    if f.side == Side::Requester && completed.contains(&(f.qpn, f.msn)))
            })
            .collect()
    }
}

// ---- retirement and flushing -----------------------------------------------------------

/// Retirement flags past the first of an input, held for the next (`per_input`).
#[derive(Debug, Default)]
pub(super) struct RetireOnePerInput {
    pub(super) held: Vec<TimedOutput>,
}

impl Stream for RetireOnePerInput {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        let mut later = Vec::new();
        let mut flags = 0;
        for o in outputs {
            let retirement = matches!(&o.output,
                Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Responder);
            if retirement {
                flags += 1;
                if flags > 1 {
                    later.push(o);
                    continue;
                }
            }
            out.push(o);
        }
        for h in std::mem::replace(&mut self.held, later) {
            out.push(TimedOutput { at: batch.until, output: h.output });
        }
        out
    }
}

/// Sender flags written so far.
#[derive(Debug, Default)]
pub(super) struct FlushRewritesCompleted {
    pub(super) flags: Vec<FlagWrite>,
}

impl Stream for FlushRewritesCompleted {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            match &o.output {
                Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Requester => {
                    self.flags.push(*f);
                }
                Output::Event { event: NicEvent::Report(NicReport::QpError { qpn, .. }) } => {
                    // Every flag the QP wrote before is written again, FLUSHED.
                    let flushed = FlagRepr::sender(0, CompletionStatus::FLUSHED, 0).to_u64();
                    for f in self.flags.iter().filter(|f| f.qpn == *qpn) {
                        let value = (f.value & 0xFFFF_0000_0000_0000) | flushed;
                        let event = NicEvent::FlagWrite(FlagWrite { value, ..*f });
                        out.push(TimedOutput { at: o.at, output: Output::Event { event } });
                    }
                }
                _ => {}
            }
            out.push(o);
        }
        out
    }
}

// ---- the signaled bit ------------------------------------------------------------------

/// A template or a posted work request with its signaled bit read as `signaled`.
pub(super) fn set_signaled(c: &mut HostCommand, signaled: bool) {
    match c {
        HostCommand::SetTemplate(t) => t.signaled = signaled,
        HostCommand::PostWrite(w) => w.signaled = signaled,
        _ => {}
    }
}
