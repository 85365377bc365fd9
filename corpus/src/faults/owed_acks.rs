//! Faults that prove clauses the judge could only name through another: a SACK that stops
//! the SACK timer while a retirement still owes the transport ACK it sends
//! (RCV-SACK-008.b), named where a SACK answered a write that came after the retirement.

use openrdma_codec::frame::decode;
use openrdma_conformance::req;
use openrdma_device::{NicEvent, Output, Side, TimedOutput};

use super::{Batch, Fault, Stream, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[stream(
    "sack-for-write-stops-ack-timer",
    "a SACK sent for a write stops the SACK timer although a message retired before that \
     write still owes the transport ACK the timer sends: the ACK never goes",
    &[req::RCV_SACK_008_B],
    &["rcv-ack-coalesce"],
    |_| Box::<SackForWriteStopsAckTimer>::default(),
)];

/// When the last retirement flag went out since the last transport ACK, and whether a SACK
/// sent for a later input stopped the timer that owed the ACK.
#[derive(Debug, Default)]
struct SackForWriteStopsAckTimer {
    retired_at: Option<u64>,
    stopped: bool,
}

impl Stream for SackForWriteStopsAckTimer {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        outputs.retain(|o| match &o.output {
            Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Responder => {
                self.retired_at.get_or_insert(o.at.0);
                true
            }
            Output::Frame { bytes, .. } => {
                let d = decode(bytes);
                let at = o.at.0;
                if d.ext.seth.is_some_and(|s| !s.pr) {
                    let answers = batch.inputs_at.contains(&at);
                    self.stopped |= answers && self.retired_at.is_some_and(|t| t < at);
                } else if d.ext.aeth.is_some_and(|a| a.syndrome & 0x60 == 0) {
                    // A timer's ACK, owed since a retirement a later SACK followed, is lost.
                    if !batch.inputs_at.contains(&at) && self.stopped {
                        return false;
                    }
                    (self.retired_at, self.stopped) = (None, false);
                }
                true
            }
            _ => true,
        });
        outputs
    }
}
