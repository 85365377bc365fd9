//! Faults that prove how the judge names a cause that shows first through its consequence:
//! an acknowledgement misread by one, whose first visible effect is a retransmission that
//! never comes or a resend that says too much; two METH fields that trade places; a
//! packet sent twice, the copy after its QP failed; an AckReq bit not read where a SACK of
//! an earlier PSN leaves at the same instant. The first divergence names the rule the
//! bug breaks.

use openrdma_codec::frame::decode;
use openrdma_codec::{AethMsn, Msn, Rqmsn};
use openrdma_conformance::req;
use openrdma_device::{Output, TimedOutput};

use super::{Batch, Edits, Fault, Stream, fault, refit, sends, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    fault(
        "ack-msn-read-one-ahead",
        "the ACK comparator reads AETH msn one ahead: an ACK also completes the message after \
         the one it names, and takes that message's PSNs as arrived",
        &[req::SND_ACK_005],
        // The early completion comes at the instant the lost packet's retransmission is due.
        &["snd-single-loss", "snd-triple-loss"],
        Edits { frame_in: Some(ack_msn_ahead), ..Edits::NONE },
    ),
    fault(
        "sack-cack-read-exclusive",
        "the sender takes a SACK's cack_psn as the first PSN not yet arrived: snd_una stops one \
         short, and a resend of the PSN at the cumulative point comes from the queue",
        &[req::SND_SACK_001],
        // Its first sign is a Progress one short of the SACK's point; where the short value
        // is never reported (the QP's first SACK moves snd_una by one), a Progress missing.
        &["snd-infer-retransmitted", "snd-rtx-once"],
        Edits { frame_in: Some(cack_exclusive), ..Edits::NONE },
    ),
    sends(
        "meth-msn-rqmsn-swapped",
        "data packets carry the METH msn and rqmsn each in the other's field",
        &[req::SND_MSN_002],
        // Messages with immediates: every msn off by one constant, as a counter's start.
        &["snd-wwi-limit", "db-fields-high"],
        meth_swapped,
    ),
    stream(
        "first-transmission-sent-twice",
        "the transmit queue retries a first transmission: the packet leaves twice, both times \
         with rtx 0",
        &[req::SND_PSN_001],
        // The copy of the rejected token's packet comes after the QP failed.
        &["db-same-instant"],
        |_| Box::new(SentTwice),
    ),
    fault(
        "ack-req-unread",
        "AckReq is dropped from arriving writes where the receive pipeline forks: a write \
         that asks for a SACK gets one only when coalescing gives it",
        &[req::RCV_SACK_001_A],
        // The SACK of the PSN before it leaves at the instant it arrives.
        &["rcv-cq-receive"],
        Edits { frame_in: Some(ack_req_cleared), ..Edits::NONE },
    ),
];

/// Every first transmission of a data packet, sent again right after itself.
#[derive(Debug)]
struct SentTwice;

impl Stream for SentTwice {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let first = match &o.output {
                Output::Frame { bytes, .. } => {
                    decode(bytes).bth.is_some_and(|b| b.opcode.is_mrc_write() && !b.rtx)
                }
                Output::Event { .. } => false,
            };
            if first {
                out.push(o.clone());
            }
            out.push(o);
        }
        out
    }
}

/// A write arriving with its AckReq bit read as clear.
fn ack_req_cleared(b: &[u8]) -> Option<Vec<u8>> {
    super::answers::misread_bth(b, |bth| bth.ack_req, |bth| bth.ack_req = false)
}

/// An AETH ACK arriving with its `msn` one ahead (bits 15:0, the bits a sender compares).
fn ack_msn_ahead(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let a = f.ext.aeth.as_mut().filter(|a| a.syndrome & 0x60 == 0)?;
    let v = a.msn.value();
    let low = Msn::new(v as u16).add(1).value();
    a.msn = AethMsn::new(v & 0xFF_0000 | u32::from(low));
    refit(&mut f).ok()
}

/// A SACK arriving with `cack_psn` one lower and its bitmap where it was: the sender reads
/// the cumulative point as exclusive.
fn cack_exclusive(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let s = f.ext.seth.as_mut().filter(|s| s.sack_offset < i16::MAX)?;
    s.cack_psn = s.cack_psn.sub(1);
    s.sack_offset += 1;
    refit(&mut f).ok()
}

/// A data packet whose METH `msn` and `rqmsn` hold each other's value.
fn meth_swapped(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let m = f.ext.meth.as_mut().filter(|m| m.msn.value() != m.rqmsn.value())?;
    let (msn, rqmsn) = (m.msn.value(), m.rqmsn.value());
    m.msn = Msn::new(rqmsn);
    m.rqmsn = Rqmsn::new(msn);
    refit(&mut f).ok()
}
