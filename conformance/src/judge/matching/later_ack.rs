//! A transport ACK built late (CONF-CMP-037.a, decision 47). A device may give each output
//! up to `late_ns / 2` late (CONF-TIME-004), and an ACK's MSN is cumulative: it names the
//! last message of the QP retired (RCV-ACK-002.a, AETH-MSN-001.a). An ACK built when it is
//! sent, not when it was due, carries the MSN retired by then. So an expected ACK of MSN m
//! is met, when no ACK of m is in its window, by an ACK of the QP in its window whose MSN is
//! after m and one the reference had acknowledged on the QP by the ACK's time: never an MSN
//! the QP had not retired then.

use openrdma_codec::Msn;

use super::{Ctx, Kind, ack_class};

/// The earliest unused observed ACK that meets expected ACK `e` with a later MSN, and the
/// expected ACK of the MSN it carries: `(observed, expected)`. `None` when `e` is not a
/// positive ACK or no such ACK was sent.
pub(super) fn later_ack(cx: &Ctx<'_>, e: usize, used: &[bool]) -> Option<(usize, usize)> {
    let (qp, msn) = positive_ack(&cx.exp[e].1.kind)?;
    let (lo, hi) = cx.window(e);
    (0..cx.obs.len()).filter(|&i| !used[i] && (lo..=hi).contains(&cx.obs[i].at)).find_map(|i| {
        let (q, m) = positive_ack(&cx.obs[i].kind)?;
        if q != qp || !serially_after(m, msn) {
            return None;
        }
        acknowledged_by(cx, qp, m, cx.obs[i].at).map(|e2| (i, e2))
    })
}

/// The expected ACK of MSN `msn` on QP `qp` the reference sent at or before `at`.
fn acknowledged_by(cx: &Ctx<'_>, qp: u32, msn: Msn, at: u64) -> Option<usize> {
    cx.exp.iter().position(|(r, f)| r.at.0 <= at && positive_ack(&f.kind) == Some((qp, msn)))
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
