//! Faults the judge caught only where nothing hid them: a stamp copied from the packet
//! before, seen across a retransmission timeout (CONF-CMP-115); SACK counters that miss
//! what the SACK itself claims, seen in a burst (CONF-CMP-117); an `Armed` posted twice
//! for one packet, seen when another report comes between (CONF-CMP-114).

use std::collections::HashMap;

use openrdma_codec::frame::decode;
use openrdma_conformance::req;
use openrdma_device::{NicEvent, NicReport, Output, TimedOutput};

use super::{Batch, Edits, Fault, Stream, fault, refit, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "ts-of-previous-packet",
        "the timestamp stage latches the clock for the next packet as the current one leaves: \
         every data packet of a QP carries the time its previous packet left, the first the \
         reset value 0",
        &[req::SND_TS_003_B],
        // A retransmission one timeout after the burst carries the burst's stamp.
        &["snd-timeout-loss"],
        |_| Box::<PreviousStamp>::default(),
    ),
    fault(
        "ccs-ooo-count-zero",
        "the CC_STATE ooo_count is wired to 0: the out-of-order counter is never connected",
        &[req::CCS_OOO_001],
        &["rcv-last-packet-first"],
        Edits { frame_out: Some(ooo_zero), ..Edits::NONE },
    ),
    stream(
        "armed-fast-lane-twice",
        "each Armed is written both to a fast lane of the report ring and to the QP's queue: \
         it comes once ahead of the QP's other reports of that instant and once in its place, \
         and the CPU half's timer starts twice",
        &[req::REC_IF_020],
        &["snd-ev-always-skip"],
        |_| Box::<ArmedTwice>::default(),
    ),
];

/// The stamp each peer QP's previous data packet carried, as it left.
#[derive(Debug, Default)]
struct PreviousStamp {
    last: HashMap<u32, u16>,
}

impl Stream for PreviousStamp {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let d = decode(bytes);
            let (Some(b), Some(t)) = (d.bth, d.ext.tseth) else { continue };
            let stale = self.last.insert(b.dest_qp.value(), t.tx_timestamp).unwrap_or(0);
            let Some(mut f) = d.to_repr() else { continue };
            if let Some(t) = f.ext.tseth.as_mut() {
                t.tx_timestamp = stale;
            }
            if let Ok(b) = refit(&mut f) {
                *bytes = b;
            }
        }
        outputs
    }
}

/// A SACK whose CC_STATE counts no packet out of order.
fn ooo_zero(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let c = f.ext.cc_state.as_mut().filter(|c| f.ext.seth.is_some() && c.ooo_count != 0)?;
    c.ooo_count = 0;
    refit(&mut f).ok()
}

/// Each `Armed` given again before the first report of its QP at its instant.
#[derive(Debug, Default)]
struct ArmedTwice;

impl Stream for ArmedTwice {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out: Vec<TimedOutput> = Vec::with_capacity(outputs.len() + 1);
        for o in outputs {
            if let Output::Event { event: NicEvent::Report(NicReport::Armed { qpn, .. }) } =
                &o.output
            {
                let first = out.iter().position(|p| {
                    p.at == o.at
                        && matches!(&p.output, Output::Event { event: NicEvent::Report(r) }
                            if r.qpn() == Some(*qpn))
                });
                if let Some(k) = first {
                    out.insert(k, o.clone());
                }
            }
            out.push(o);
        }
        out
    }
}
