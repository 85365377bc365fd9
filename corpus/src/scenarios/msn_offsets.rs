//! MSN offsets: a responder places an MSN by its offset from the domain's next MSN, modulo
//! 2^16 (RET-CAP-002). One scenario discards retired writes whose offsets a wrong
//! arithmetic places apart, so that a device that discards one of them and places
//! another shows an offset placed wrong, not a retirement check left out
//! (`faulty:msn-offset-unsigned`, `faulty:msn-offset-gap`).

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![("rcv-msn-offsets", rcv_msn_offsets)]
}

/// After messages 0 and 1 retire (the next MSN is 2), new copies of PSN 2 name MSN
/// 0xFFFF (offset 0xFFFD, across the 2^16 wrap), MSN 1 (offset 0xFFFF, just behind the
/// next MSN) and MSN 0x8002 (offset 2^15): all retired and discarded. MSN 0x8001 (offset
/// 2^15 − 1) lies beyond the table and is discarded too. PSN 2 sent right, MSN 2, is
/// then placed.
///
/// A device that never discards retired writes places the first. One that takes the
/// offset as a plain difference, with no modulo, discards the first and places the one
/// just behind; one whose retired range starts after 2^15 places the one at 2^15.
fn rcv_msn_offsets() -> Scenario {
    let mut r = responder(
        "rcv-msn-offsets",
        "After messages 0 and 1 retire, new copies of PSN 2 name MSN 0xFFFF (across the \
         2^16 wrap), MSN 1 (just behind the next MSN) and MSN 0x8002 (2^15 after it): each \
         has retired by its offset modulo 2^16 and is discarded without response or \
         placement. MSN 0x8001 (2^15 - 1 after it) lies beyond the table and is discarded \
         too. PSN 2, sent right, is then placed.",
        &["RET-CAP-002", "FLAG-LAST-002", "RCV-MSG-002", "RCV-REJECT-001", "RCV-PLACE-003"],
    );
    setup(&mut r, 0, false);
    // The k-th write (0-based) arrives at (k + 1) µs on port k mod 4, to a slot of its own.
    let send = |r: &mut Recorder, k: u16, psn: u32, msn: u16| {
        let port = k % 4;
        let ev = 0xA000_0001 + u32::from(port) * 0x1_0001;
        let base = REGION + 0x100 * u64::from(k);
        let at = 1_000 * (u64::from(k) + 1);
        r.inject(at, port, ev, &write(psn, msn, Opcode::MRC_WRITE_ONLY, 0, 64, 64, base, None));
    };
    send(&mut r, 0, 0, 0);
    send(&mut r, 1, 1, 1);
    // The copies of PSN 2 once the next MSN is 2: the MSN each names, and the checks of
    // the outputs that follow it.
    let copies: [(u16, &[&str]); 5] = [
        // Retired across the wrap: offset 0xFFFD.
        (0xFFFF, &["FLAG-LAST-002"]),
        // Retired just behind the next MSN: offset 0xFFFF, below it as a plain number.
        (1, &["RET-CAP-002", "FLAG-LAST-002"]),
        // Retired at offset 2^15 exactly.
        (0x8002, &["RET-CAP-002", "FLAG-LAST-002"]),
        // Beyond the table at offset 2^15 - 1.
        (0x8001, &["RCV-MSG-002"]),
        // Sent right: placed.
        (2, &["RCV-REJECT-001", "RCV-PLACE-003"]),
    ];
    for (k, (msn, checks)) in (2..).zip(copies) {
        r.checks(checks);
        send(&mut r, k, 2, msn);
    }
    done(r, 20_000)
}
