//! The order of the device's writes across kinds (`CONF-CMP-022`): the flags one write
//! makes due retire before the next input is handled (`RET-ORDER-002`). The per-message
//! rules — completion entries before flags (`FLAG-ORDER-002`, `ORD-SEND-001`), the sender
//! flag last (`ORD-SEND-002`, `ORD-SEND-003`) — are checked in every scenario whose
//! expected records hold such writes (`done`).

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![("ret-burst-before-next-input", ret_burst_before_next_input)]
}

/// One packet makes four messages retirable; another packet arrives at the same instant.
fn ret_burst_before_next_input() -> Scenario {
    let mut r = responder(
        "ret-burst-before-next-input",
        "Messages 1, 2 and 3 arrive complete while message 0 still misses its last packet; \
         that packet makes all four retirable, and the first packet of message 4 arrives at \
         the same nanosecond: the four retirement flags come, in MSN order, before the DMA \
         write of message 4's packet, since a responder retires what a write makes \
         retirable before it handles its next input.",
        &["RET-ORDER-002", "RET-ORDER-001", "RET-FLAG-001", "FLAG-ORDER-001", "RCV-PLACE-003"],
    );
    setup(&mut r, 0, false);
    let op = |last: bool, only: bool| match (only, last) {
        (true, _) => Opcode::MRC_WRITE_ONLY,
        (false, false) => Opcode::MRC_WRITE_FIRST,
        (false, true) => Opcode::MRC_WRITE_LAST,
    };
    r.checks(&["RCV-PLACE-003"]);
    for k in 1..=3u16 {
        let base = REGION + u64::from(k) * 0x1_0000;
        let p = write(u32::from(k) + 1, k, op(true, true), 0, 256, 256, base, None);
        let ev = (0xA000 + u32::from(k)) << 16 | u32::from(k);
        r.inject(900 + 100 * u64::from(k), k % 4, ev, &p);
    }
    let total = 2 * PMTU;
    r.inject(1_400, 0, 0xA004_0004, &write(0, 0, op(false, false), 0, PMTU, total, REGION, None));
    r.checks(&["RET-ORDER-002", "RET-ORDER-001"]);
    r.inject(2_000, 1, 0xA005_0005, &write(1, 0, op(true, false), 1, PMTU, total, REGION, None));
    let b4 = REGION + 0x4_0000;
    r.checks(&["RET-ORDER-002", "RCV-PLACE-003"]);
    r.inject(2_000, 2, 0xA006_0006, &write(5, 4, op(false, false), 0, PMTU, total, b4, None));
    r.checks(&["RET-ORDER-001"]);
    r.inject(3_000, 3, 0xA007_0007, &write(6, 4, op(true, false), 1, PMTU, total, b4, None));
    done(r, 20_000)
}
