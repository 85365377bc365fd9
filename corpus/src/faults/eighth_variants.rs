//! Legitimate variants of an eighth reading: a report engine that builds each `Progress`
//! late, from the send registers as they are then, so that the `Armed` of a data packet
//! sent in between comes first and the `Progress` counts that packet (CONF-CMP-110.b).

use openrdma_codec::Psn;
use openrdma_codec::frame::decode;
use openrdma_conformance::req::*;
use openrdma_device::{NicEvent, NicReport, Output, TimedInput, TimedOutput, Timestamp};

use super::qps::Qps;
use super::variants::{Variant, variant};
use super::{Batch, Caps, Edits, Stream};

/// The variants of the eighth reading.
pub static VARIANTS: &[Variant] = &[variant(
    "progress-built-late",
    "its report engine builds each Progress half of late_ns after the SACK or ACK step that \
     called for it, with the snd_una the step left and the outstanding PSNs read from the \
     send registers as they are then: a first transmission sent in between is counted, and \
     its Armed, made with the packet, comes before the Progress (REC-IF-002, REC-IF-003)",
    &[CONF_TIME_004, CONF_CMP_110_B],
    Caps::Same,
    Edits {
        stream: Some(|m| {
            Box::new(ProgressBuiltLate {
                delay: m.tolerances.late_ns / 2,
                qps: Qps::default(),
                nxt: Default::default(),
                queue: Vec::new(),
            })
        }),
        ..Edits::NONE
    },
)];

/// Holds each `Progress` `delay` and counts, into the ones held, the first transmissions of
/// their QP made before they are given.
#[derive(Debug)]
struct ProgressBuiltLate {
    delay: u64,
    qps: Qps,
    /// Each device QP's `snd_nxt`: one past its greatest first transmission so far.
    nxt: std::collections::HashMap<u32, u32>,
    /// Outputs made and not yet given, in time order.
    queue: Vec<TimedOutput>,
}

impl ProgressBuiltLate {
    /// The device QP and one past the PSN of a first transmission, if `o` is one.
    fn first_transmission(&self, o: &Output) -> Option<(u32, u32)> {
        let Output::Frame { bytes, .. } = o else { return None };
        let b = decode(bytes).bth?;
        if !b.opcode.is_mrc_write() || b.rtx {
            return None;
        }
        Some((self.qps.local(b.dest_qp.value())?, b.psn.next().value()))
    }

    /// Counts a first transmission of QP `q` made at `at` into the `Progress` reports of
    /// `q` held to `at` or later.
    fn count(&mut self, q: u32, next: u32, at: u64) {
        let nxt = self.nxt.entry(q).or_insert(next);
        if Psn::new(next).is_after(Psn::new(*nxt)) {
            *nxt = next;
        }
        let nxt = Psn::new(*nxt);
        for o in self.queue.iter_mut().filter(|o| o.at.0 >= at) {
            count_into(&mut o.output, q, nxt);
        }
    }
}

/// Raises the `outstanding` of `o`, when it is a `Progress` of QP `q`, to the PSNs from its
/// `snd_una` to `nxt`.
fn count_into(o: &mut Output, q: u32, nxt: Psn) {
    let Output::Event {
        event: NicEvent::Report(NicReport::Progress { qpn, snd_una, outstanding, .. }),
    } = o
    else {
        return;
    };
    let ahead = nxt.value().wrapping_sub(snd_una.value()) & 0xFF_FFFF;
    if qpn.value() == q && ahead < 0x80_0000 && ahead > *outstanding {
        *outstanding = ahead;
    }
}

impl Stream for ProgressBuiltLate {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.learn_all(&inputs);
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for mut o in outputs {
            if let Some((q, next)) = self.first_transmission(&o.output) {
                self.count(q, next, o.at.0);
            }
            if let Output::Event { event: NicEvent::Report(NicReport::Progress { qpn, .. }) } =
                &o.output
            {
                // A device gives the frames of an instant before its events: those seen
                // were sent before the report is built.
                let q = qpn.value();
                if let Some(&nxt) = self.nxt.get(&q) {
                    count_into(&mut o.output, q, Psn::new(nxt));
                }
                o.at = Timestamp(o.at.0.saturating_add(self.delay));
            }
            self.queue.push(o);
        }
        // Stable: outputs due at one time keep the order in which they were made.
        self.queue.sort_by_key(|o| o.at);
        let n = self.queue.iter().take_while(|o| o.at <= batch.until).count();
        self.queue.drain(..n).collect()
    }
}
