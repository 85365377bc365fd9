//! Faults at the edges of what the judge and the runner can see: a timestamp clock read at
//! the wrong time or counting no time (SND-TS-003), and a device that gives more outputs in
//! a scenario than any device may (CONF-ADP-019).

use std::collections::HashMap;

use openrdma_codec::frame::decode;
use openrdma_conformance::req;
use openrdma_device::{Output, TimedOutput};

use super::{Batch, Fault, Stream, refit, stream};
use openrdma_codec::frame::FrameRepr;

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "probe-ts-last-data",
        "probes are stamped with the TSETH timestamp of the QP's last data packet, a latch the data path fills, instead of a reading of the clock as the probe leaves",
        &[req::SND_TS_003_B],
        &["snd-tail-probe"],
        |_| Box::<ProbeTsLastData>::default(),
    ),
    stream(
        "ts-packet-counter",
        "the timestamp is a count of the packets the QP has sent, a sequence number, not a clock: it advances by one for each packet, however close together they leave",
        &[req::SND_TS_003_A, req::SND_TS_003_B],
        &["rec-device-backoff", "snd-window"],
        |_| Box::<PacketCounter>::default(),
    ),
];

/// The stale probe stamp: the last TSETH `tx_timestamp` each peer QP's data carried.
#[derive(Debug, Default)]
struct ProbeTsLastData {
    last: HashMap<u32, u16>,
}

impl Stream for ProbeTsLastData {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let d = decode(bytes);
            let Some(b) = d.bth else { continue };
            let qp = b.dest_qp.value();
            if let Some(t) = d.ext.tseth {
                self.last.insert(qp, t.tx_timestamp);
                continue;
            }
            let (Some(_), Some(&stale)) = (d.ext.peth, self.last.get(&qp)) else { continue };
            let Some(mut f) = d.to_repr() else { continue };
            if let Some(p) = f.ext.peth.as_mut() {
                p.tx_timestamp = stale;
            }
            if let Ok(b) = refit(&mut f) {
                *bytes = b;
            }
        }
        outputs
    }
}

/// A timestamp that counts the packets each peer QP was sent: the TSETH of a data packet
/// and the PETH of a probe carry the count, which is monotone but no clock.
#[derive(Debug, Default)]
struct PacketCounter {
    sent: HashMap<u32, u16>,
}

impl Stream for PacketCounter {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let d = decode(bytes);
            let Some(b) = d.bth else { continue };
            if d.ext.seth.is_some() || (d.ext.tseth.is_none() && d.ext.peth.is_none()) {
                continue;
            }
            let Some(mut f) = d.to_repr() else { continue };
            let count = self.sent.entry(b.dest_qp.value()).or_default();
            *count = count.wrapping_add(1);
            stamp(&mut f, *count);
            if let Ok(b) = refit(&mut f) {
                *bytes = b;
            }
        }
        outputs
    }
}

/// Writes `value` as the frame's send timestamp, in its TSETH or its probe's PETH.
fn stamp(f: &mut FrameRepr, value: u16) {
    if let Some(t) = f.ext.tseth.as_mut() {
        t.tx_timestamp = value;
    } else if let Some(p) = f.ext.peth.as_mut() {
        p.tx_timestamp = value;
    }
}
