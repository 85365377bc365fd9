//! Faults at the edges of what the judge and the runner can see: a timestamp clock read at
//! the wrong time (SND-TS-003), and a device that gives more outputs in a scenario than
//! any device may (CONF-ADP-019).

use std::collections::HashMap;

use openrdma_codec::frame::decode;
use openrdma_conformance::req;
use openrdma_device::{Output, TimedOutput};

use super::{Batch, Fault, Stream, refit, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[stream(
    "probe-ts-last-data",
    "probes are stamped with the TSETH timestamp of the QP's last data packet, a latch the data path fills, instead of a reading of the clock as the probe leaves",
    &[req::SND_TS_003_B],
    &["snd-tail-probe"],
    |_| Box::<ProbeTsLastData>::default(),
)];

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
