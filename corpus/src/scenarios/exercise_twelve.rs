//! Scenarios for bugs no other scenario made visible (the twelfth reading): a payload of
//! exactly the largest PMTU, 4096 bytes, in one packet.

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![("rcv-x12-pmtu-4096", rcv_x12_pmtu_4096)]
}

/// The largest PMTU the spec allows (SND-SEG-001).
const PMTU_4096: u32 = 4096;

/// Two messages at a PMTU of 4096: one packet of exactly 4096 bytes, then a FIRST of
/// exactly 4096 bytes and a LAST of 4. A length register or a DMA descriptor one bit too
/// narrow for 4096 shows in the placed bytes; a PMTU check off by one rejects them.
fn rcv_x12_pmtu_4096() -> Scenario {
    let mut r = responder_with(
        "rcv-x12-pmtu-4096",
        "The PMTU is 4096. The peer writes a message of one packet of exactly 4096 bytes, \
         then one of two packets, a FIRST of exactly 4096 bytes and a LAST of 4. Each \
         packet is accepted, a payload equal to the PMTU is not too long, and all its \
         bytes are placed at its RETH va; both messages retire with their flags.",
        &["RCV-PLACE-003", "RCV-SEG-001", "RCV-SEG-002", "RET-ORDER-001", "FLAG-ORDER-001"],
        |m| m.nic.pmtu = PMTU_4096,
    );
    setup(&mut r, 0, false);
    r.checks(&["RCV-PLACE-003", "RCV-SEG-001"]);
    let full = PMTU_4096;
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &write(0, 0, Opcode::MRC_WRITE_ONLY, 0, full, full, REGION, None),
    );
    let base = REGION + 0x10_000;
    let total = full + 4;
    r.checks(&["RCV-PLACE-003", "RCV-SEG-002"]);
    r.inject(
        2_000,
        1,
        0xA001_0002,
        &write(1, 1, Opcode::MRC_WRITE_FIRST, 0, full, total, base, None),
    );
    let mut last = write(2, 1, Opcode::MRC_WRITE_LAST, 0, 4, total, base, None);
    if let Packet::Write(w) = &mut last {
        // `write` steps va by the corpus's PMTU of 1024; this scenario's is 4096.
        w.reth.va = base + u64::from(full);
        w.payload = Payload::Bytes(memory(0x7000_0000 + w.reth.va, 4).into());
    }
    r.inject(2_100, 2, 0xA002_0003, &last);
    done(r, 20_000)
}
