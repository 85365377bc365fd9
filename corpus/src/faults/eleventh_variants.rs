//! Legitimate variants of an eleventh reading, the edges of every freedom: a device with
//! a retransmission engine per path, whose second engine reads the payload again, so that
//! its retransmissions leave half of late_ns after it chose them, stamped when it chose
//! them (SND-TS-003.b), and first transmissions chosen after them leave first. The judge
//! must read the stamps as readings taken early (CONF-CMP-036) and follow the round-robin
//! cursor in an order the device may have chosen (CONF-CMP-048.a).

use openrdma_codec::frame::decode;
use openrdma_conformance::req::*;
use openrdma_device::{NicEvent, Output, Side, TimedInput, TimedOutput, Timestamp};

use super::qps::Qps;
use super::variants::{Variant, variant};
use super::{Batch, Caps, Edits, Stream};

/// The variants of the eleventh reading.
pub static VARIANTS: &[Variant] = &[variant(
    "rtx-path-engines",
    "a retransmission engine per path: the engine of the odd positions of a QP's EV \
     profile reads the payload again, so its retransmissions leave half of late_ns after it \
     chose them, stamped when chosen, while first transmissions chosen after them leave on \
     time; a sender flag or completion waits for them (ORD-SEND-002)",
    &[CONF_TIME_004],
    Caps::Same,
    Edits {
        stream: Some(|m| {
            Box::new(PathEngines {
                most: m.tolerances.late_ns / 2,
                qps: Qps::default(),
                held: 0,
                queue: Vec::new(),
            })
        }),
        ..Edits::NONE
    },
)];

/// Holds the retransmissions of the odd positions of a profile, and the sender notes
/// behind them.
#[derive(Debug)]
struct PathEngines {
    most: u64,
    qps: Qps,
    /// The latest time a held retransmission leaves.
    held: u64,
    /// Outputs made and not yet given, in time order.
    queue: Vec<TimedOutput>,
}

impl PathEngines {
    /// Whether `o` is a retransmission on an odd position of its QP's profile.
    fn second_engine(&self, o: &Output) -> bool {
        let Output::Frame { bytes, .. } = o else { return false };
        let d = decode(bytes);
        let Some(b) = d.bth.filter(|b| b.opcode.is_mrc_write() && b.rtx) else { return false };
        let Some(q) = self.qps.local(b.dest_qp.value()).and_then(|l| self.qps.get(l)) else {
            return false;
        };
        let profile: Vec<_> = q.evs.iter().chain(&q.backup_evs).collect();
        let ev = d.entropy();
        profile.iter().position(|&&e| Some(e) == ev).is_some_and(|p| p % 2 == 1)
    }
}

/// A sender flag or completion, which waits for the frames made before it.
fn is_sender_note(o: &Output) -> bool {
    match o {
        Output::Event { event: NicEvent::FlagWrite(f) } => f.side == Side::Requester,
        Output::Event { event: NicEvent::Completion(c) } => c.side == Side::Requester,
        _ => false,
    }
}

impl Stream for PathEngines {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.learn_all(&inputs);
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for o in outputs {
            let t = o.at.0;
            let at = if self.second_engine(&o.output) {
                self.held = self.held.max(t + self.most);
                t + self.most
            } else if is_sender_note(&o.output) {
                t.max(self.held)
            } else {
                t
            };
            self.queue.push(TimedOutput { at: Timestamp(at), ..o });
        }
        // Stable: outputs due at one time keep the order in which they were made.
        self.queue.sort_by_key(|o| o.at);
        let n = self.queue.iter().take_while(|o| o.at <= batch.until).count();
        self.queue.drain(..n).collect()
    }
}
