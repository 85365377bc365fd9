//! The streams of the wire faults: a PSN counter that wraps to 1, a probe's PSN taken as received.

use openrdma_device::{Input, Output, TimedInput, TimedOutput};

use super::super::{Batch, Stream};
use super::*;

/// A sender whose PSN counter goes from 0xFFFFFF to 1: once it has sent 0xFFFFFF, the
/// packets of PSNs after the wrap carry their PSN plus one.
#[derive(Debug, Default)]
pub(super) struct WrapsTo1 {
    wrapped: bool,
}

impl Stream for WrapsTo1 {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let Some(psn) = decode(bytes).bth.filter(|_| data(bytes)).map(|b| b.psn.value()) else {
                continue;
            };
            if psn == 0xFF_FFFF {
                self.wrapped = true;
            } else if self.wrapped && psn < 0x80_0000 {
                if let Some(b) = refit(bytes, |f| {
                    f.bth.psn = f.bth.psn.next();
                    true
                }) {
                    *bytes = b;
                }
            }
        }
        outputs
    }
}

/// A receiver that records the BTH psn of each probe as a PSN received: its SACKs claim
/// it from then on, cumulatively when it is the next one after `cack_psn`.
#[derive(Debug, Default)]
pub(super) struct ProbePsn {
    psns: Vec<u32>,
}

impl Stream for ProbePsn {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Frame { bytes, .. } = &i.input {
                let d = decode(bytes);
                if let (Some(bth), Some(_)) = (d.bth, d.ext.peth) {
                    self.psns.push(bth.psn.value());
                }
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let psns = &self.psns;
            let claimed = on_sacks(bytes, |f| {
                let s = f.ext.seth.as_mut().unwrap();
                loop {
                    let next = s.cack_psn.value().wrapping_add(1) & 0xFF_FFFF;
                    if !psns.contains(&next) {
                        break;
                    }
                    s.cack_psn = Psn::new(next);
                    s.sack_bitmap >>= 1;
                }
                for &p in psns {
                    let bit = p.wrapping_sub(s.bitmap_base().value()) & 0xFF_FFFF;
                    if bit < 64 {
                        s.sack_bitmap |= 1 << bit;
                    }
                }
                f.bth.psn = s.cack_psn;
            });
            if let Some(b) = claimed.filter(|b| b != bytes) {
                *bytes = b;
            }
        }
        outputs
    }
}
