//! Legitimate variants of a ninth reading: a device whose transmit path, host bus and
//! report ring each add a latency of their own, drawn anew for every output, so that the
//! times between the data packets it sends differ from those its send engine saw. The
//! rate a `window-fit` QP estimates from those times (SND-SPRAY-007) is then not the one
//! the wire shows (CONF-TIME-004, CONF-CMP-048.c).

use openrdma_conformance::req::*;
use openrdma_device::{NicEvent, Output, Side, TimedOutput, Timestamp};

use super::variants::{Variant, variant};
use super::{Batch, Caps, Edits, Stream};

/// The variants of the ninth reading.
pub static VARIANTS: &[Variant] = &[variant(
    "interfaces-jitter",
    "its transmit path, host bus and report ring each add a latency of their own, drawn \
     anew for each output between 0 and half of late_ns, each interface in its order; a \
     sender flag or completion also waits for the frames made before it (ORD-SEND-002)",
    &[CONF_TIME_004],
    Caps::Same,
    Edits {
        stream: Some(|m| {
            let seed = m.name.bytes().map(u64::from).sum::<u64>() * 13 + 5;
            Box::new(InterfacesJitter {
                most: m.tolerances.late_ns / 2,
                x: seed,
                last: [0; 3],
                queue: Vec::new(),
            })
        }),
        ..Edits::NONE
    },
)];

/// The interface an output leaves by: 0 the transmit path, 1 the report ring, 2 the host
/// bus.
fn lane(o: &Output) -> usize {
    match o {
        Output::Frame { .. } => 0,
        Output::Event { event: NicEvent::Report(_) } => 1,
        _ => 2,
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

/// Delays each output by a draw of a linear congruential generator, never before an
/// earlier output of its interface and never more than `most`.
#[derive(Debug)]
struct InterfacesJitter {
    most: u64,
    x: u64,
    /// The latest time given to each interface.
    last: [u64; 3],
    /// Outputs made and not yet given, in time order.
    queue: Vec<TimedOutput>,
}

impl Stream for InterfacesJitter {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for o in outputs {
            self.x = (self.x.wrapping_mul(1_103_515_245).wrapping_add(12_345)) & 0x7FFF_FFFF;
            let (t, k) = (o.at.0, lane(&o.output));
            let mut lo = self.last[k];
            if is_sender_note(&o.output) {
                lo = lo.max(self.last[0]);
            }
            let at = (t + self.x % (self.most + 1)).max(lo).min(t + self.most).max(lo);
            self.last[k] = at;
            self.queue.push(TimedOutput { at: Timestamp(at), ..o });
        }
        // Stable: outputs due at one time keep the order in which they were made.
        self.queue.sort_by_key(|o| o.at);
        let n = self.queue.iter().take_while(|o| o.at <= batch.until).count();
        self.queue.drain(..n).collect()
    }
}
