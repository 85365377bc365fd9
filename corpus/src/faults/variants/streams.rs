//! The stream variants' state machines: each holds, splits, merges, reorders or repeats
//! what a device emits, or delays what it takes in, as the table of `VARIANTS` says.

use std::collections::{HashMap, VecDeque};

use openrdma_codec::Opcode;
use openrdma_codec::frame::{IpRepr, decode};
use openrdma_device::{
    Input, NicEvent, NicReport, Output, Payload, Side, TimedInput, TimedOutput, Timestamp,
};

use super::edit_frame;
use crate::faults::{Batch, Stream, payload_bytes};

/// Reports delivered twice, back to back: Progress and Armed only, or, with `all`, every
/// report but QpError.
#[derive(Debug)]
pub(super) struct ReportsTwice {
    pub(super) all: bool,
}

impl Stream for ReportsTwice {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let again = match &o.output {
                Output::Event { event: NicEvent::Report(r) } => match r {
                    NicReport::Progress { .. } | NicReport::Armed { .. } => true,
                    NicReport::QpError { .. } => false,
                    _ => self.all,
                },
                _ => false,
            };
            if again {
                out.push(o.clone());
            }
            out.push(o);
        }
        out
    }
}

/// The rtx bit of the last write received, copied into every SACK and NACK sent.
#[derive(Debug)]
pub(super) struct RtxEcho {
    pub(super) last: bool,
}

impl Stream for RtxEcho {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Frame { bytes, .. } = &i.input {
                if let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) {
                    self.last = b.rtx;
                }
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        if !self.last {
            return outputs;
        }
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let edited = edit_frame(bytes, |f| {
                let answer = matches!(f.bth.opcode, Opcode::MRC_SACK | Opcode::MRC_NACK);
                f.bth.rtx |= answer;
                answer
            });
            if let Some(b) = edited {
                *bytes = b;
            }
        }
        outputs
    }
}

/// Each output `delay` later, in order; what is due after the batch's `until` waits for a
/// later batch.
#[derive(Debug)]
pub(super) struct Late {
    pub(super) delay: u64,
    pub(super) queue: VecDeque<TimedOutput>,
}

impl Stream for Late {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let d = self.delay;
        self.queue
            .extend(outputs.into_iter().map(|o| TimedOutput { at: Timestamp(o.at.0 + d), ..o }));
        let n = self.queue.iter().take_while(|o| o.at <= batch.until).count();
        self.queue.drain(..n).collect()
    }
}

/// The inputs that change a sender's state (SACKs, probe answers among them, NACKs,
/// transport ACKs and NAKs, CPU commands) taken up to `most` ns after they arrive, each by
/// its own delay, in arrival order; the other inputs at once. What is due after a batch's
/// end waits for a later batch.
#[derive(Debug)]
pub(super) struct LateInput {
    pub(super) most: u64,
    /// The state of the delay draws (splitmix64).
    pub(super) draws: u64,
    /// The time the last delayed input was taken at: none is taken before it.
    pub(super) last: u64,
    pub(super) held: Vec<TimedInput>,
}

impl LateInput {
    /// The next delay, in `0..=most`.
    fn delay(&mut self) -> u64 {
        self.draws = self.draws.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.draws;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        z % (self.most + 1)
    }
}

/// Whether an input changes what a sender does: a CPU command, or a frame that
/// acknowledges (SETH, NETH or AETH).
fn moves_sender(i: &Input) -> bool {
    match i {
        Input::Cpu { .. } => true,
        Input::Frame { bytes, .. } => {
            let d = decode(bytes);
            d.ext.seth.is_some() || d.ext.neth.is_some() || d.ext.aeth.is_some()
        }
        Input::Host { .. } => false,
    }
}

impl Stream for LateInput {
    fn inputs_until(&mut self, inputs: Vec<TimedInput>, until: Timestamp) -> Vec<TimedInput> {
        let mut now = Vec::with_capacity(inputs.len());
        for i in inputs {
            if moves_sender(&i.input) {
                let at = (i.at.0 + self.delay()).max(self.last);
                self.last = at;
                self.held.push(TimedInput { at: Timestamp(at), ..i });
            } else {
                now.push(i);
            }
        }
        let due = self.held.iter().take_while(|i| i.at <= until).count();
        now.extend(self.held.drain(..due));
        // Stable: at equal times the inputs keep the order they were given in.
        now.sort_by_key(|i| i.at);
        now
    }
}

/// DMA writes cut at `size`-byte address boundaries, the pieces in descending address
/// order when `descending`.
#[derive(Debug)]
pub(super) struct Split {
    pub(super) size: u64,
    pub(super) descending: bool,
}

impl Stream for Split {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let size = self.size;
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let Output::Event { event: NicEvent::DmaWrite(w) } = &o.output else {
                out.push(o);
                continue;
            };
            let bytes = payload_bytes(&w.payload);
            let mut pieces = Vec::new();
            let mut pos = 0usize;
            while pos < bytes.len() {
                let va = w.va + pos as u64;
                let room = (size - va % size) as usize;
                let end = bytes.len().min(pos + room);
                let mut piece = w.clone();
                piece.va = va;
                piece.payload = Payload::Bytes(bytes[pos..end].into());
                pieces.push(TimedOutput {
                    at: o.at,
                    output: Output::Event { event: NicEvent::DmaWrite(piece) },
                });
                pos = end;
            }
            if pieces.len() <= 1 {
                out.push(o);
                continue;
            }
            if self.descending {
                pieces.reverse();
            }
            out.extend(pieces);
        }
        out
    }
}

/// A write-combining buffer: a DMA write is held up to `hold` ns and takes in the
/// contiguous DMA writes that follow it; any other output, a write that does not continue
/// it, or the end of the batch flushes it. A merged write is visible when its last part is.
#[derive(Debug)]
pub(super) struct Merge {
    pub(super) hold: u64,
}

impl Stream for Merge {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        let mut held: Option<(u64, TimedOutput, Vec<u8>)> = None;
        let flush = |held: &mut Option<(u64, TimedOutput, Vec<u8>)>, out: &mut Vec<TimedOutput>| {
            if let Some((_, mut o, bytes)) = held.take() {
                if let Output::Event { event: NicEvent::DmaWrite(w) } = &mut o.output {
                    w.payload = Payload::Bytes(bytes.into());
                }
                out.push(o);
            }
        };
        for o in outputs {
            let Output::Event { event: NicEvent::DmaWrite(w) } = &o.output else {
                flush(&mut held, &mut out);
                out.push(o);
                continue;
            };
            if let Some((deadline, h, bytes)) = held.as_mut() {
                let continues = matches!(&h.output, Output::Event { event: NicEvent::DmaWrite(p) }
                    if p.va + bytes.len() as u64 == w.va);
                if continues && o.at.0 <= *deadline {
                    bytes.extend(payload_bytes(&w.payload));
                    h.at = o.at;
                    continue;
                }
            }
            flush(&mut held, &mut out);
            let bytes = payload_bytes(&w.payload);
            held = Some((o.at.0 + self.hold, o, bytes));
        }
        flush(&mut held, &mut out);
        out
    }
}

/// The destination QP of a frame, if it has a BTH.
fn dest_qp(o: &TimedOutput) -> Option<u32> {
    match &o.output {
        Output::Frame { bytes, .. } => decode(bytes).bth.map(|b| b.dest_qp.value()),
        Output::Event { .. } => None,
    }
}

/// Runs of frames at one instant, with no event between them, sorted by descending
/// destination QP; a stable sort keeps each QP's order.
#[derive(Debug)]
pub(super) struct QpOrderReversed;

impl Stream for QpOrderReversed {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out: Vec<TimedOutput> = Vec::with_capacity(outputs.len());
        let mut run: Vec<(u32, TimedOutput)> = Vec::new();
        let flush = |run: &mut Vec<(u32, TimedOutput)>, out: &mut Vec<TimedOutput>| {
            run.sort_by_key(|r| std::cmp::Reverse(r.0));
            out.extend(run.drain(..).map(|(_, o)| o));
        };
        for o in outputs {
            match dest_qp(&o) {
                Some(qp) => {
                    if run.last().is_some_and(|(_, l)| l.at != o.at) {
                        flush(&mut run, &mut out);
                    }
                    run.push((qp, o));
                }
                None => {
                    flush(&mut run, &mut out);
                    out.push(o);
                }
            }
        }
        flush(&mut run, &mut out);
        out
    }
}

/// Runs of DMA writes at one instant, with no other output between them, reversed.
#[derive(Debug)]
pub(super) struct DmaRunsReversed;

impl Stream for DmaRunsReversed {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out: Vec<TimedOutput> = Vec::with_capacity(outputs.len());
        let mut run: Vec<TimedOutput> = Vec::new();
        let flush = |run: &mut Vec<TimedOutput>, out: &mut Vec<TimedOutput>| {
            out.extend(run.drain(..).rev());
        };
        for o in outputs {
            if matches!(o.output, Output::Event { event: NicEvent::DmaWrite(_) }) {
                if run.last().is_some_and(|l| l.at != o.at) {
                    flush(&mut run, &mut out);
                }
                run.push(o);
            } else {
                flush(&mut run, &mut out);
                out.push(o);
            }
        }
        flush(&mut run, &mut out);
        out
    }
}

/// Flags and completions moved before the DMA writes just before them at the same instant
/// that belong to other messages.
#[derive(Debug)]
pub(super) struct NotifyOvertakes;

impl Stream for NotifyOvertakes {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out: Vec<TimedOutput> = Vec::with_capacity(outputs.len());
        for o in outputs {
            let own = match &o.output {
                Output::Event { event: NicEvent::FlagWrite(f) } => Some((f.side, f.qpn, f.msn)),
                Output::Event { event: NicEvent::Completion(c) } => {
                    let e = c.written_entry();
                    Some((c.side, e.qpn, e.msn))
                }
                _ => None,
            };
            let Some((side, qpn, msn)) = own else {
                out.push(o);
                continue;
            };
            let mut at = out.len();
            while at > 0 {
                let prev = &out[at - 1];
                let other = match &prev.output {
                    Output::Event { event: NicEvent::DmaWrite(w) } => {
                        side != Side::Responder || w.qpn != qpn || w.msn != msn
                    }
                    _ => false,
                };
                if !other || prev.at != o.at {
                    break;
                }
                at -= 1;
            }
            out.insert(at, o);
        }
        out
    }
}

pub(super) fn is_frame(o: &Output) -> bool {
    matches!(o, Output::Frame { .. })
}

/// A sender flag or completion: every retransmission of its message is sent before it
/// (ORD-SEND-002.b).
pub(in crate::faults) fn is_sender_note(o: &Output) -> bool {
    match o {
        Output::Event { event: NicEvent::FlagWrite(f) } => f.side == Side::Requester,
        Output::Event { event: NicEvent::Completion(c) } => c.side == Side::Requester,
        _ => false,
    }
}

/// A DMA write, a flag write or a completion entry: what crosses the host bus.
pub(super) fn is_memory(o: &Output) -> bool {
    matches!(
        o,
        Output::Event {
            event: NicEvent::DmaWrite(_) | NicEvent::FlagWrite(_) | NicEvent::Completion(_)
        }
    )
}

/// A sender flag of an odd QP.
pub(super) fn is_odd_sender_flag(o: &Output) -> bool {
    matches!(
        o,
        Output::Event { event: NicEvent::FlagWrite(f) }
            if f.side == Side::Requester && f.qpn.value() & 1 == 1
    )
}

/// A report to the CPU half.
pub(super) fn is_report(o: &Output) -> bool {
    matches!(o, Output::Event { event: NicEvent::Report(_) })
}

/// A SACK, a NACK or a transport ACK or NAK.
pub(super) fn is_answer(o: &Output) -> bool {
    let Output::Frame { bytes, .. } = o else { return false };
    decode(bytes).bth.is_some_and(|b| {
        matches!(b.opcode, Opcode::MRC_SACK | Opcode::MRC_NACK | Opcode::MRC_ACKNOWLEDGE)
    })
}

/// The outputs `pick` chooses `delay` later, the others on time, except that those `waits`
/// chooses come no sooner than the delayed outputs made before them; each kind keeps its
/// order; what is due after the batch's `until` waits for a later batch.
#[derive(Debug)]
pub(in crate::faults) struct LateSome {
    delay: u64,
    pick: fn(&Output) -> bool,
    waits: fn(&Output) -> bool,
    /// The latest time of a delayed output given to the queue.
    last: u64,
    queue: Vec<TimedOutput>,
}

impl LateSome {
    pub(in crate::faults) fn new(delay: u64, pick: fn(&Output) -> bool) -> LateSome {
        LateSome { delay, pick, waits: |_| false, last: 0, queue: Vec::new() }
    }

    pub(in crate::faults) fn waiting(self, waits: fn(&Output) -> bool) -> LateSome {
        LateSome { waits, ..self }
    }
}

impl Stream for LateSome {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for o in outputs {
            let at = if (self.pick)(&o.output) {
                self.last = self.last.max(o.at.0 + self.delay);
                o.at.0 + self.delay
            } else if (self.waits)(&o.output) {
                o.at.0.max(self.last)
            } else {
                o.at.0
            };
            self.queue.push(TimedOutput { at: Timestamp(at), ..o });
        }
        // Stable: outputs due at one time keep the order in which they were made.
        self.queue.sort_by_key(|o| o.at);
        let n = self.queue.iter().take_while(|o| o.at <= batch.until).count();
        self.queue.drain(..n).collect()
    }
}

/// Every SACK and transport ACK sent twice, back to back.
#[derive(Debug)]
pub(super) struct AnswersTwice;

impl Stream for AnswersTwice {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let again = match &o.output {
                Output::Frame { bytes, .. } => decode(bytes).bth.is_some_and(|b| {
                    matches!(b.opcode, Opcode::MRC_SACK | Opcode::MRC_ACKNOWLEDGE)
                }),
                Output::Event { .. } => false,
            };
            if again {
                out.push(o.clone());
            }
            out.push(o);
        }
        out
    }
}

/// A timestamp clock of another unit: the TSETH and PETH `tx_timestamp` the device sends
/// read `at / unit` at the time of sending; a timestamp a SACK or NACK reflects is read
/// back to the one the inner device gave the frame that last carried it.
#[derive(Debug)]
pub(super) struct TsClock {
    unit: u64,
    sent: HashMap<u16, u16>,
}

impl TsClock {
    pub(super) fn new(unit: u64) -> TsClock {
        TsClock { unit, sent: HashMap::new() }
    }
}

impl Stream for TsClock {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        let sent = &self.sent;
        let back = |t: &mut u16| {
            if let Some(&inner) = sent.get(t) {
                *t = inner;
            }
        };
        inputs
            .into_iter()
            .map(|mut i| {
                if let Input::Frame { bytes, .. } = &mut i.input {
                    let edited = edit_frame(bytes, |f| {
                        let mut edited = false;
                        if let Some(c) = f.ext.cc_state.as_mut() {
                            back(&mut c.tx_timestamp);
                            edited = true;
                        }
                        if let Some(n) = f.ext.neth.as_mut() {
                            back(&mut n.tx_timestamp);
                            edited = true;
                        }
                        edited
                    });
                    if let Some(b) = edited {
                        *bytes = b;
                    }
                }
                i
            })
            .collect()
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let ours = (o.at.0 / self.unit) as u16;
            let sent = &mut self.sent;
            let edited = edit_frame(bytes, |f| {
                let mut edited = false;
                for t in [
                    f.ext.tseth.as_mut().map(|t| &mut t.tx_timestamp),
                    f.ext.peth.as_mut().map(|p| &mut p.tx_timestamp),
                ]
                .into_iter()
                .flatten()
                {
                    sent.insert(ours, *t);
                    *t = ours;
                    edited = true;
                }
                edited
            });
            if let Some(b) = edited {
                *bytes = b;
            }
        }
        outputs
    }
}

/// Before each SACK of a QP it has acknowledged before (a probe's answer among them), the
/// QP's last transport ACK sent again, moved to the EV of that SACK.
#[derive(Debug, Default)]
pub(super) struct AckRepeat {
    /// The last transport ACK of each destination QP.
    last: HashMap<u32, Vec<u8>>,
}

impl Stream for AckRepeat {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            if let Output::Frame { port, bytes } = &o.output {
                let d = decode(bytes);
                if let Some(b) = d.bth {
                    let qp = b.dest_qp.value();
                    let answers = b.opcode == Opcode::MRC_SACK;
                    if let Some(ack) = self.last.get(&qp).filter(|_| answers) {
                        let (src_port, flow) = ev_fields(bytes);
                        if let Some(again) = edit_frame(ack, |f| {
                            f.udp.src_port = src_port;
                            if let (IpRepr::V6(v6), Some(flow)) = (&mut f.ip, flow) {
                                v6.flow_label = flow;
                            }
                            true
                        }) {
                            out.push(TimedOutput {
                                at: o.at,
                                output: Output::Frame { port: *port, bytes: again },
                            });
                        }
                    }
                    if d.ext.aeth.is_some_and(|a| a.syndrome & 0x60 == 0) {
                        self.last.insert(qp, bytes.clone());
                    }
                }
            }
            out.push(o);
        }
        out
    }
}

/// The fields that carry a frame's EV: the UDP source port, and the IPv6 flow label.
fn ev_fields(bytes: &[u8]) -> (u16, Option<u32>) {
    let Some(f) = decode(bytes).to_repr() else { return (0, None) };
    let flow = match &f.ip {
        IpRepr::V6(v6) => Some(v6.flow_label),
        IpRepr::V4(_) => None,
    };
    (f.udp.src_port, flow)
}
