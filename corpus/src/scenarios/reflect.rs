//! What a responder reflects unchanged and answers as it was asked: requester timestamps in
//! SACKs and NACKs (`TSETH-TS-001`, `CCS-TS-001`, `NETH-TS-001`), and probes, whatever
//! their fields a receiver must not interpret, each answered with its `probe_id`, EV and
//! timestamp, the answer resetting the SACK coalescing state (`PETH-RESP-001`,
//! `RCV-SACK-008`).

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("rcv-reflect", rcv_reflect),
        ("rcv-timestamp-wrap", rcv_timestamp_wrap),
        ("rcv-probe-answer", rcv_probe_answer),
    ]
}

/// A write from the peer carrying `ts` in its TSETH, or no TSETH at all.
fn stamped(p: Packet, ts: Option<u16>) -> Packet {
    edit(p, |w| match ts {
        Some(ts) => {
            w.bth.ts = true;
            w.tseth = Some(TsethRepr { tx_timestamp: ts, ftype: 1, ..TsethRepr::default() });
        }
        None => {
            w.bth.ts = false;
            w.tseth = None;
        }
    })
}

/// Timestamps come back as they went: in the SACK of the packet that triggers it, in the
/// NACK of the packet NACKed, and as 0 for a packet without a TSETH.
fn rcv_reflect() -> Scenario {
    let mut r = responder_with(
        "rcv-reflect",
        "The writes of a three-packet message carry TSETH timestamps 0x1132 and 0xBEEF, then \
         none; two writes beyond the window carry 0x7A3C and none (no stamp reads the same \
         in either byte order). The SACK triggered by \
         each packet reflects its timestamp unchanged (0 for the packet without one), and \
         each NACK PSN_OOR_WINDOW reflects the timestamp of the packet it NACKs (0 without \
         one), with that packet's PSN and EV.",
        &[
            "TSETH-TS-001",
            "CCS-TS-001",
            "NETH-TS-001",
            "NETH-PSN-001",
            "RCV-NACK-001",
            "RCV-WIN-002",
            "RCV-SACK-007",
            "RCV-PLACE-003",
        ],
        tight_sack_timing,
    );
    setup(&mut r, 0, false);
    let total = 2 * PMTU + 64;
    let w0 = quiet(write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None));
    let w1 = write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None);
    let w1 = edit(w1, |w| w.bth.ack_req = true);
    r.checks(&["RCV-PLACE-003"]);
    r.inject(1_000, 0, 0xA000_0001, &stamped(w0, Some(0x1132)));
    r.checks(&["TSETH-TS-001", "CCS-TS-001"]);
    r.inject(1_100, 1, 0xA001_0002, &stamped(w1, Some(0xBEEF)));
    // Window of 128 PSNs from epsn 2: PSNs 200 and 201 are beyond it.
    let far = |psn: u32, msn: u16| {
        write(psn, msn, Opcode::MRC_WRITE_ONLY, 0, 64, 64, REGION + 0x4_0000, None)
    };
    r.checks(&["NETH-TS-001", "NETH-PSN-001", "RCV-WIN-002"]);
    r.inject(2_000, 2, 0xA002_0003, &stamped(far(200, 1), Some(0x7A3C)));
    r.inject(3_000, 3, 0xA003_0004, &stamped(far(201, 2), None));
    let w2 = write(2, 0, Opcode::MRC_WRITE_LAST, 2, 64, total, REGION, None);
    r.checks(&["TSETH-TS-001", "CCS-TS-001"]);
    r.inject(4_000, 0, 0xA000_0005, &stamped(w2, None));
    done(r, 20_000)
}

/// Timestamps that wrap and go back are neither checked nor ordered: the responder takes
/// each write and reflects its stamp as it came.
fn rcv_timestamp_wrap() -> Scenario {
    let mut r = responder_with(
        "rcv-timestamp-wrap",
        "Four one-packet messages with AckReq arrive in PSN order, stamped 0xFFF0, then \
         0x0008 (the requester's 16-bit clock wrapped), 0x0004 (the stamp went back) and \
         0x0010. A responder does not interpret the stamps: each write is placed and \
         retires, and each SACK reflects its trigger's stamp unchanged.",
        &["TSETH-TS-001", "CCS-TS-001", "RCV-PLACE-003", "RCV-SACK-001"],
        tight_sack_timing,
    );
    setup(&mut r, 0, false);
    for (k, ts) in [0xFFF0u16, 0x0008, 0x0004, 0x0010].into_iter().enumerate() {
        let k = k as u32;
        let base = REGION + u64::from(k) * 0x1_0000;
        let p = write(k, k as u16, Opcode::MRC_WRITE_ONLY, 0, 64, 64, base, None);
        let ev = (0xA000 + k) << 16 | (k + 1);
        r.checks(&["TSETH-TS-001", "RCV-PLACE-003", "CCS-TS-001"]);
        r.inject(1_000 + 1_000 * u64::from(k), (k % 4) as u16, ev, &stamped(p, Some(ts)));
    }
    done(r, 20_000)
}

/// A probe from the peer with `id` and timestamp `ts`, changed by `f`.
fn probe_with(id: u16, ts: u16, psn: u32, f: impl FnOnce(&mut BthRepr, &mut PethRepr)) -> Packet {
    let mut p = probe(id);
    if let Packet::Probe { bth, peth } = &mut p {
        bth.psn = Psn::new(psn);
        peth.tx_timestamp = ts;
        f(bth, peth);
    }
    p
}

/// A probe with a field a receiver must not reject or interpret: its `probe_id`, its
/// timestamp, the requirement that says so, and how the field is set.
type OddProbe = (u16, u16, &'static str, fn(&mut BthRepr, &mut PethRepr));

/// Probes with fields a receiver must not interpret are answered like any other, and an
/// answer resets the SACK coalescing state.
fn rcv_probe_answer() -> Scenario {
    let mut m = manifest(
        "rcv-probe-answer",
        "Four probes arrive with what a receiver must not reject or interpret: ftype 5, \
         non-zero spdcid and dpdcid, BTH rtx set, reserved bits and tsr set. Each is \
         answered at once by a SACK with pr = 1, its probe_id, its EV and its timestamp. Two \
         writes without AckReq then wait for the (long) SACK timer when a fifth probe's \
         answer reports them, resetting the count of writes to acknowledge and stopping the \
         timer; the next write without AckReq starts the timer afresh and is SACKed when it \
         expires.",
        &[
            "PETH-RESP-001",
            "PETH-LAYOUT-001",
            "PETH-FTYPE-001",
            "PETH-PDC-001",
            "BTH-RTX-002",
            "DEC-RESV-001",
            "PETH-PSN-001",
            "RCV-SACK-008",
            "RCV-SACK-004",
            "RCV-SACK-001",
            "EV-PROBE-004",
            "RCV-PLACE-003",
        ],
        &[Capability::Responder, Capability::Paths, Capability::Ipv4],
    );
    tight_sack_timing(&mut m);
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    let odd: [OddProbe; 4] = [
        (0x0101, 0x1357, "PETH-FTYPE-001", |_, p| p.ftype = 5),
        (0x0202, 0x2468, "PETH-PDC-001", |_, p| {
            p.spdcid = 0x1234;
            p.dpdcid = 0x5678;
        }),
        (0x0303, 0x369C, "BTH-RTX-002", |b, _| b.rtx = true),
        (0x0404, 0xFEDC, "DEC-RESV-001", |_, p| {
            p.resv0 = 0xA5A5_A5A5;
            p.resv6 = 0x5A5A;
            p.resv14 = 0x7FF;
            p.tsr = true;
        }),
    ];
    for (k, (id, ts, check, f)) in odd.into_iter().enumerate() {
        let k = k as u32;
        r.checks(&["PETH-RESP-001", check, "PETH-LAYOUT-001"]);
        let ev = 0xA000_0000 + k * 0x1_0000;
        r.inject(1_000 + 500 * u64::from(k), k as u16, ev, &probe_with(id, ts, 0x12_3456 + k, f));
    }
    let total = 4 * PMTU;
    r.checks(&["RCV-PLACE-003"]);
    r.inject(
        4_000,
        0,
        0xA000_0011,
        &quiet(write(0, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None)),
    );
    r.inject(
        4_100,
        1,
        0xA001_0012,
        &quiet(write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None)),
    );
    r.checks(&["PETH-RESP-001", "RCV-SACK-008"]);
    r.inject(4_300, 2, 0xA002_0013, &probe_with(0x0505, 0x0F0F, 2, |_, _| {}));
    // The count is 0 again and the timer stopped: this write starts it afresh, and only its
    // expiry, sack_delay later, acknowledges it.
    r.checks(&["RCV-SACK-008", "RCV-SACK-004"]);
    r.inject(
        4_500,
        3,
        0xA003_0014,
        &quiet(write(2, 0, Opcode::MRC_WRITE_MIDDLE, 2, PMTU, total, REGION, None)),
    );
    r.run_until(12_000);
    r.checks(&["RCV-SACK-001"]);
    r.inject(
        20_000,
        0,
        0xA000_0015,
        &write(3, 0, Opcode::MRC_WRITE_LAST, 3, PMTU, total, REGION, None),
    );
    done(r, 40_000)
}
