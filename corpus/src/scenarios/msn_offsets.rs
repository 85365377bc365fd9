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
    r.inject(1_000, 0, 0xA000_0001, &write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION, None));
    r.inject(
        2_000,
        1,
        0xA001_0002,
        &write(1, 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x100, None),
    );
    // The next MSN is 2. Retired across the wrap: offset 0xFFFD.
    r.checks(&["FLAG-LAST-002"]);
    r.inject(
        3_000,
        2,
        0xA002_0003,
        &write(2, 0xFFFF, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x200, None),
    );
    // Retired just behind the next MSN: offset 0xFFFF, below it as a plain number.
    r.checks(&["RET-CAP-002", "FLAG-LAST-002"]);
    r.inject(
        4_000,
        3,
        0xA003_0004,
        &write(2, 1, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x300, None),
    );
    // Retired at offset 2^15 exactly.
    r.checks(&["RET-CAP-002", "FLAG-LAST-002"]);
    r.inject(
        5_000,
        0,
        0xA000_0001,
        &write(2, 0x8002, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x400, None),
    );
    // Beyond the table at offset 2^15 - 1.
    r.checks(&["RCV-MSG-002"]);
    r.inject(
        6_000,
        1,
        0xA001_0002,
        &write(2, 0x8001, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x500, None),
    );
    r.checks(&["RCV-REJECT-001", "RCV-PLACE-003"]);
    r.inject(
        7_000,
        2,
        0xA002_0003,
        &write(2, 2, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x600, None),
    );
    done(r, 20_000)
}
