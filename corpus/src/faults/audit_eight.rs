//! Legitimate variants found by reading the judge: each uses a freedom the specification
//! gives at the very bound where a judge that rounds or compares one step too strictly
//! failed it.

use std::collections::HashMap;

use openrdma_conformance::req::*;
use openrdma_device::{HostCommand, Input, Output, TimedInput, TimedOutput};

use super::variants::{Variant, variant};
use super::{Batch, Caps, Edits, Stream};
use openrdma_codec::frame::decode;

/// The variants of this reading.
pub static VARIANTS: &[Variant] = &[variant(
    "sack-bitmap-lag",
    "its SACK builder reads the bitmap from a copy of the receive state that lags late_ns \
     behind and holds only what arrived before that instant, the cumulative point and the \
     trigger's own bit from the live state: a PSN that arrived exactly late_ns before a SACK \
     is left out of its bitmap, which CONF-CMP-045.c allows, since only a PSN received more \
     than late_ns before must be claimed (CONF-CMP-061 keeps the trigger)",
    &[CONF_CMP_045_C],
    Caps::Same,
    Edits { stream: Some(|m| Box::new(BitmapLag::new(m.tolerances.late_ns))), ..Edits::NONE },
)];

/// A SACK bitmap that leaves out every PSN above `cack_psn`, but the trigger, that arrived
/// `late` or less before the SACK.
#[derive(Debug)]
struct BitmapLag {
    late: u64,
    /// The wire QP (the peer's) of each device QP.
    peer_of: HashMap<u32, u32>,
    /// (wire QP, PSN) to the first arrival of a write with that PSN.
    arrived: HashMap<(u32, u32), u64>,
}

impl BitmapLag {
    fn new(late: u64) -> BitmapLag {
        BitmapLag { late, peer_of: HashMap::new(), arrived: HashMap::new() }
    }
}

impl Stream for BitmapLag {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    self.peer_of.insert(q.qpn.value(), q.peer_qpn.value());
                }
                Input::Frame { bytes, .. } => {
                    let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) else {
                        continue;
                    };
                    // The first copy: a PSN held since then is in the lagging copy too,
                    // whatever duplicates came after.
                    if let Some(&peer) = self.peer_of.get(&b.dest_qp.value()) {
                        self.arrived.entry((peer, b.psn.value())).or_insert(i.at.0);
                    }
                }
                Input::Host { .. } | Input::Cpu { .. } => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let Some(qp) = decode(bytes).bth.map(|b| b.dest_qp.value()) else { continue };
            let from = o.at.0.saturating_sub(self.late);
            let edited = super::answers::seth(bytes, |s| {
                if s.pr {
                    return false;
                }
                let trigger = s.cack_psn.value().wrapping_add_signed(s.ack_psn_offset.into());
                let base = s.bitmap_base().value();
                let mut map = s.sack_bitmap;
                for i in 0..64u32 {
                    let psn = base.wrapping_add(i) & 0xFF_FFFF;
                    let fresh = self.arrived.get(&(qp, psn)).is_some_and(|&t| t >= from);
                    if map >> i & 1 == 1 && fresh && psn != trigger & 0xFF_FFFF {
                        map &= !(1 << i);
                    }
                }
                let changed = map != s.sack_bitmap;
                s.sack_bitmap = map;
                changed
            });
            if let Some(b) = edited {
                *bytes = b;
            }
        }
        outputs
    }
}
