//! An expected retransmission that never came because the device had already completed its
//! message with SUCCESS while no transport acknowledgement covered it (SND-ACK-005): a
//! completed message makes all its PSNs known to have arrived (SND-ACK-001.b), so the
//! device had nothing left to resend. The early completion is the cause, and the missing
//! packet is named by it.

use openrdma_codec::host::FlagRepr;
use openrdma_device::{NicEvent, Output, Side};

use super::{Ctx, Kind};

/// The words for expected retransmission `e` when the device completed the message it
/// belongs to with SUCCESS by the time the packet was due (plus `late_ns`), before any
/// AETH injected into the QP covered that message. `None` otherwise, or when `e` is not a
/// retransmission of a data packet.
pub(super) fn completed_unacked(cx: &Ctx<'_>, e: usize) -> Option<String> {
    let (rec, ef) = &cx.exp[e];
    let Kind::Data { qp, psn, rtx: true } = ef.kind else { return None };
    let msn = ef.d.ext.meth?.msn;
    let local = *super::super::peer_map(cx.scenario).get(&qp)?;
    let due = rec.at.0.saturating_add(cx.scenario.manifest.tolerances.late_ns);
    let done = cx.observed.iter().filter(|o| o.at.0 <= due).find_map(|o| {
        let Output::Event { event } = &o.output else { return None };
        let (q, m, ok) = match event {
            NicEvent::FlagWrite(f) if f.side == Side::Requester => {
                (f.qpn.value(), f.msn, FlagRepr::from_u64(f.value).status.is_success())
            }
            NicEvent::Completion(c) if c.side == Side::Requester => {
                (c.entry.qpn.value(), c.entry.msn, c.entry.status.is_success())
            }
            _ => return None,
        };
        (q == local && m == msn && ok).then_some(o.at.0)
    })?;
    // An AETH into the QP by then whose msn is at or after the message's covers it.
    let covered = cx.inputs.iter().filter(|i| i.at <= done).any(|i| {
        i.frame.as_ref().is_some_and(|f| {
            f.d.bth.is_some_and(|b| b.dest_qp.value() == local)
                && f.d.ext.aeth.is_some_and(|a| msn.is_at_or_before(a.msn.msn()))
        })
    });
    (!covered).then(|| {
        format!(
            "an expected retransmission of PSN {psn} was not sent: the device had completed \
             its message {msn} at {done} ns, before a transport acknowledgement covered it"
        )
    })
}
