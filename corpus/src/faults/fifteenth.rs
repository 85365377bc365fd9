//! Faults of the fifteenth reading: a placement engine that computes a packet's address
//! from its PSN distance to the message's first packet on 16 bits, so that past a 16-bit
//! PSN boundary inside a message, the PSN wrap included, the bytes land 2^16 PMTUs low. The
//! device took the packet for new: the first divergence must name placement, not the PSN
//! comparison a device that drops such a packet as a duplicate gets wrong (CONF-CMP-138).

use std::collections::HashMap;

use openrdma_conformance::req;
use openrdma_device::{NicEvent, Output, TimedOutput};

use super::{Batch, Edits, Fault, Stream, fault};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[fault(
    "rx-place-psn-delta-16bit",
    "the responder places a packet at its message's first address plus its PSN distance times the PMTU, the distance taken on the low 16 bits without wrap: past a 16-bit PSN boundary inside a message the bytes land 2^16 PMTUs low",
    &[req::RCV_PLACE_003_A],
    &["rcv-psn-wrap-in-message"],
    Edits { stream: Some(|_| Box::<PsnDelta16>::default()), ..Edits::NONE },
)];

/// The first payload write of each (QP, MSN): its PSN, address and length.
#[derive(Debug, Default)]
struct PsnDelta16 {
    first: HashMap<(u32, u16), (u32, u64, u32)>,
}

impl Stream for PsnDelta16 {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event: NicEvent::DmaWrite(w) } = &mut o.output else { continue };
            let key = (w.qpn.value(), w.msn.value());
            let psn = w.psn.value();
            let &mut (first, va, len) =
                self.first.entry(key).or_insert((psn, w.va, w.payload.len()));
            let k = i64::from(psn.wrapping_sub(first) & 0xFF_FFFF);
            let bad = i64::from(psn & 0xFFFF) - i64::from(first & 0xFFFF);
            if bad != k && k < 0x8000 {
                w.va = va.wrapping_add_signed(bad * i64::from(len));
            }
        }
        outputs
    }
}
