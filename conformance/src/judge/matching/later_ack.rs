//! A transport ACK built late (CONF-CMP-127, decisions 47 and 57). A device may give each
//! output up to `late_ns / 2` late (CONF-TIME-004), and an ACK's MSN is cumulative: it
//! names the last message of the QP retired (RCV-ACK-002.a, AETH-MSN-001.a). An ACK built
//! when it is sent, not when it was due, carries the MSN retired by then. So an expected ACK
//! of MSN m is met, when no ACK of m is in its window, by an ACK of the QP in its window
//! whose MSN is after m and one the reference had retired on the QP by the ACK's time: a
//! retirement flag of it, or an ACK of it where the QP has no flags. With `ack_coalesce`
//! above 1 a message may be retired long before any ACK names it. Never an MSN the QP had
//! not retired then.

use openrdma_codec::Msn;
use openrdma_device::{Body, Direction, NicEvent, Side};

use openrdma_codec::host::FlagRepr;

use super::{Ctx, Kind, ack_class};

/// What an ACK of a later MSN is judged by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Later {
    /// The reference's ACK of that MSN, sent at or before the device's: its `msn` and BTH
    /// `psn`.
    Acked(usize),
    /// A retirement flag of that MSN given at or before the device's ACK, and no ACK of it
    /// by then: the MSN, and as BTH `psn` the PSN of the message's last packet
    /// (OPC-PSN-002.b).
    Retired { psn: Option<u32> },
}

/// The earliest unused observed ACK that meets expected ACK `e` with a later MSN, and what
/// it is judged by. `None` when `e` is not a positive ACK or no such ACK was sent.
pub(super) fn later_ack(cx: &Ctx<'_>, e: usize, used: &[bool]) -> Option<(usize, Later)> {
    let (qp, msn) = positive_ack(&cx.exp[e].1.kind)?;
    let (lo, hi) = cx.window(e);
    let local = super::super::peer_map(cx.scenario).get(&qp).copied();
    (0..cx.obs.len()).filter(|&i| !used[i] && (lo..=hi).contains(&cx.obs[i].at)).find_map(|i| {
        let (q, m) = positive_ack(&cx.obs[i].kind)?;
        if q != qp || !serially_after(m, msn) {
            return None;
        }
        let at = cx.obs[i].at;
        if let Some(e2) = acknowledged_by(cx, qp, m, at) {
            return Some((i, Later::Acked(e2)));
        }
        let local = local?;
        retired_by(cx, local, m, at).then(|| (i, Later::Retired { psn: last_psn(cx, local, m) }))
    })
}

/// The expected ACK of MSN `msn` on QP `qp` the reference sent at or before `at`.
fn acknowledged_by(cx: &Ctx<'_>, qp: u32, msn: Msn, at: u64) -> Option<usize> {
    cx.exp.iter().position(|(r, f)| r.at.0 <= at && positive_ack(&f.kind) == Some((qp, msn)))
}

/// Whether the recording's device wrote a successful retirement flag of MSN `msn` on its
/// QP `local` at or before `at` (FLAG-RECV-003: a flag with a failure status retires
/// nothing).
fn retired_by(cx: &Ctx<'_>, local: u32, msn: Msn, at: u64) -> bool {
    cx.scenario.records.iter().any(|r| {
        r.dir == Direction::Expect
            && r.at.0 <= at
            && matches!(&r.body, Body::Event { event: NicEvent::FlagWrite(f) }
                if f.side == Side::Responder
                    && f.qpn.value() == local
                    && f.msn == msn
                    && FlagRepr::from_u64(f.value).status.is_success())
    })
}

/// The PSN of the last packet of message `msn` of QP `local` that came in.
fn last_psn(cx: &Ctx<'_>, local: u32, msn: Msn) -> Option<u32> {
    cx.inputs
        .iter()
        .filter_map(|i| {
            let f = i.frame.as_ref()?;
            let b = f.d.bth?;
            let m = f.d.ext.meth?;
            (b.dest_qp.value() == local
                && b.opcode.is_mrc_write()
                && b.opcode.is_last()
                && m.msn == msn)
                .then_some(b.psn.value())
        })
        .next_back()
}

/// The QP and MSN of a positive transport ACK (AETH `msn` bits 23:16 zero).
fn positive_ack(k: &Kind) -> Option<(u32, Msn)> {
    match *k {
        Kind::Ack { qp, msn, syndrome, high: 0 } if ack_class(syndrome).0 => Some((qp, msn)),
        _ => None,
    }
}

/// Whether `a` is after `b` in 16-bit serial order.
fn serially_after(a: Msn, b: Msn) -> bool {
    let d = a.value().wrapping_sub(b.value());
    d != 0 && d < 0x8000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_order_wraps() {
        let m = Msn::new;
        assert!(serially_after(m(1), m(0)));
        assert!(serially_after(m(0), m(0xFFFF)));
        assert!(serially_after(m(0x7FFF), m(0)));
        assert!(!serially_after(m(0x8000), m(0)));
        assert!(!serially_after(m(0), m(0)));
        assert!(!serially_after(m(0), m(1)));
    }
}
