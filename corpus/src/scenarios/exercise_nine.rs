//! Scenarios for bugs no other scenario made visible, the ninth time: a hole fill that
//! moves the expected PSN across a word of the receive bitmap, followed by a write one
//! window later that maps to the word left behind.

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![("rcv-fill-across-word", rcv_fill_across_word)]
}

/// A hole fill moves epsn from 60 to 70, across the bitmap word of PSNs 0 to 63; PSN 188,
/// a window later, maps to that word's bit of PSN 60.
fn rcv_fill_across_word() -> Scenario {
    let m = manifest(
        "rcv-fill-across-word",
        "The device's QP starts at PSN 60, with a window of 128 PSNs (mpr 1). One-packet messages \
         arrive at PSNs 61 to 69 (MSN 1 to 9) before the one at PSN 60 (MSN 0), which fills \
         the hole and moves the expected PSN from 60 to 70 at once, across the 64-PSN word \
         of the bitmap that held PSNs 60 to 63. The last packet of MSN 10, a message of 119 \
         packets from PSN 70, then arrives at PSN 188: exactly one window after PSN 60 and \
         inside the window, it is new. It is placed and reported in the SACK's bitmap, not \
         taken for a duplicate by a bit left set when the word was passed.",
        &[
            "RCV-WIN-001",
            "RCV-WIN-003",
            "RCV-PLACE-003",
            "SETH-BITMAP-001",
            "SETH-CACK-001",
            "RCV-MSG-003",
        ],
        &[Capability::Responder, Capability::Retirement, Capability::Ipv4],
    );
    let mut r = Recorder::new(m);
    const START: u32 = 60;
    setup(&mut r, START, false);
    let one = |k: u32| {
        write(
            START + k,
            k as u16,
            Opcode::MRC_WRITE_ONLY,
            0,
            64,
            64,
            REGION + 0x100 * u64::from(k),
            None,
        )
    };
    r.checks(&["RCV-WIN-001", "RCV-WIN-003", "SETH-CACK-001"]);
    for k in 1..10u32 {
        r.inject(1_000 + 100 * u64::from(k), (k % 4) as u16, 0xA000_0001 + k * 0x1_0000, &one(k));
    }
    r.checks(&["RCV-WIN-003", "SETH-CACK-001", "RCV-MSG-003"]);
    r.inject(3_000, 0, 0xA000_0001, &one(0));
    // The last of 119 packets of MSN 10, which starts at PSN 70.
    const PACKETS: u32 = 119;
    let last = write(
        70 + PACKETS - 1,
        10,
        Opcode::MRC_WRITE_LAST,
        PACKETS - 1,
        PMTU,
        PACKETS * PMTU,
        REGION + 0x10_0000,
        None,
    );
    r.checks(&["RCV-WIN-001", "RCV-PLACE-003", "SETH-BITMAP-001"]);
    r.inject(5_000, 1, 0xA001_0002, &last);
    done(r, 20_000)
}
