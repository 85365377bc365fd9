//! Faults that prove how the judge names a bug by the outputs it spoils together: a QP
//! that sprays over another QP's profile, whose packets carry their own message on an EV
//! of the wrong profile; data stamps written little-endian, which a probe's right stamp
//! shows up; an ACK read one message short, whose report and flag both lag. The first
//! divergence names the rule the bug breaks.

use openrdma_codec::frame::decode;
use openrdma_codec::{AethMsn, Ev, Msn, Qpn};
use openrdma_conformance::req;
use openrdma_device::{HostCommand, Input, TimedInput};

use super::{Edits, Fault, Stream, fault, refit, sends, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "ev-profile-table-one-entry",
        "the EV profile table holds one entry: every QP sprays over the EVs of the first QP \
         created, at the positions of its own profile",
        &[req::SND_PATH_001],
        // The second QP's first packet carries its own message on the first QP's EV.
        &["snd-spray-two-qps", "rec-split-two-qps"],
        |_| Box::new(OneProfile::default()),
    ),
    sends(
        "tseth-stamp-little-endian",
        "the TSETH builder writes tx_timestamp little-endian; the PETH builder of probes \
         writes it in network order",
        &[req::TSETH_LAYOUT_001],
        // A probe follows the data packets within 2^15 ns, its stamp behind theirs.
        &["snd-ev-probe-skip"],
        stamp_little_endian,
    ),
    fault(
        "ack-msn-read-exclusive",
        "the ACK comparator takes AETH msn as the first message not yet retired: an ACK \
         completes only the messages before the one it names",
        &[req::SND_ACK_001_A],
        // The Progress of the ACK counts the named message as awaiting, and its flag lags.
        &["snd-window"],
        Edits { frame_in: Some(ack_msn_behind), ..Edits::NONE },
    ),
];

/// Gives every QP created after the first the first QP's EVs, at the positions of its own.
#[derive(Debug, Default)]
struct OneProfile {
    first: Option<(Qpn, Vec<Ev>)>,
}

impl Stream for OneProfile {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            let Input::Host { command: HostCommand::CreateQp(q) } = &mut i.input else {
                continue;
            };
            match &self.first {
                None => self.first = Some((q.qpn, q.evs.clone())),
                Some((first, evs)) if *first != q.qpn && !evs.is_empty() => {
                    q.evs = (0..q.evs.len()).map(|k| evs[k % evs.len()]).collect();
                }
                Some(_) => {}
            }
        }
        inputs
    }
}

/// A data packet whose TSETH `tx_timestamp` has its two bytes in the other order.
fn stamp_little_endian(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let t = f.ext.tseth.as_mut().filter(|t| t.tx_timestamp.swap_bytes() != t.tx_timestamp)?;
    t.tx_timestamp = t.tx_timestamp.swap_bytes();
    refit(&mut f).ok()
}

/// An ACK arriving with AETH `msn` one lower: the sender reads it as exclusive.
fn ack_msn_behind(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let a = f.ext.aeth.as_mut().filter(|a| a.syndrome & 0x60 == 0)?;
    let v = a.msn.value();
    let low = Msn::new(v as u16).sub(1).value();
    a.msn = AethMsn::new(v & 0xFF_0000 | u32::from(low));
    refit(&mut f).ok()
}
