//! A scenario for bugs that show only when two QPs of a responder interleave: state kept
//! once for the device where the receiver chapter keeps it per QP (the SACK timer, the
//! triggering-packet latch, the receive bitmap, the last retired MSN), and the context of
//! the first region used for the second.

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("rcv-two-qps-interleaved", rcv_two_qps_interleaved),
        ("rcv-two-domains-close", rcv_two_domains_close),
    ]
}

/// The second region, writable, right after the first.
const RKEY_B: Rkey = Rkey::new(0x5678);
const REGION_B: u64 = REGION + REGION_LEN;

/// A write of QP B into the second region, with a timestamp of B's own.
fn to_b(p: Packet) -> Packet {
    edit(p, |w| {
        w.bth.dest_qp = Qpn::new(DUT_QP + 1);
        w.reth.rkey = RKEY_B;
        if let Some(t) = w.tseth.as_mut() {
            t.tx_timestamp = 0x2B2B;
        }
    })
}

/// A write of QP A, with a timestamp of A's own.
fn to_a(p: Packet) -> Packet {
    edit(p, |w| {
        if let Some(t) = w.tseth.as_mut() {
            t.tx_timestamp = 0x1A1A;
        }
    })
}

/// Two QPs with a retirement domain each and a SACK timer each: their writes interleave.
/// The inputs are 3 us apart, more than `late_ns`, so that a device late on one QP's
/// outputs by as much as the spec allows still answers each input before the next.
fn rcv_two_qps_interleaved() -> Scenario {
    let mut r = responder_with(
        "rcv-two-qps-interleaved",
        "Per-QP retirement, sack_delay 4 us. QP A writes into the first region, QP B into \
         a second one. A's first packet arms A's SACK timer, B's first packet B's own, and \
         each timer's SACK reflects its own QP's last write, though B's arrived after A's. \
         B then receives PSN 2 and A PSN 2 behind a hole each: each is new to its QP. The \
         holes fill, A retires messages 0 and 1, then B message 0. A duplicate of A's PSN 0 \
         is answered with a SACK and a transport ACK carrying A's last retired MSN, 1.",
        &[
            "RCV-SACK-004",
            "CCS-TS-001",
            "SETH-EV-001",
            "RCV-WIN-001",
            "RCV-PLACE-003",
            "RET-DOMAIN-001",
            "RCV-DUP-002",
            "AETH-MSN-001",
        ],
        |m| {
            m.nic.retirement = RetirementMode::PerQp;
            m.requires.insert(Capability::PerQpRetirement);
            m.nic.sack_delay = std::time::Duration::from_micros(4);
        },
    );
    let second = Region { rkey: RKEY_B, base: REGION_B, len: 0x10_0000, remote_write: true };
    two_qps_with(&mut r, 0, 0, &[second]);
    let (a2, b3) = (2 * PMTU, 3 * PMTU);
    let first =
        |psn, total, base| write(psn, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, base, None);
    r.checks(&["RCV-SACK-004", "CCS-TS-001", "SETH-EV-001"]);
    r.inject(1_000, 0, 0xA000_0001, &to_a(first(0, a2, REGION)));
    r.inject(4_000, 1, 0xB001_0002, &to_b(first(0, b3, REGION_B)));
    r.checks(&["RCV-WIN-001", "RCV-PLACE-003"]);
    let b_last = write(2, 0, Opcode::MRC_WRITE_LAST, 2, PMTU, b3, REGION_B, None);
    r.inject(12_000, 1, 0xB001_0003, &to_b(b_last));
    let a_only = write(2, 1, Opcode::MRC_WRITE_ONLY, 0, 256, 256, REGION + 0x1_0000, None);
    r.inject(15_000, 2, 0xA002_0004, &to_a(a_only));
    r.checks(&["RET-DOMAIN-001", "RCV-PLACE-003"]);
    let a_last = write(1, 0, Opcode::MRC_WRITE_LAST, 1, PMTU, a2, REGION, None);
    r.inject(18_000, 3, 0xA003_0005, &to_a(a_last));
    let b_mid = write(1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, b3, REGION_B, None);
    r.inject(21_000, 1, 0xB001_0006, &to_b(b_mid));
    r.checks(&["RCV-DUP-002", "AETH-MSN-001"]);
    let dup = edit(to_a(first(0, a2, REGION)), |w| w.bth.rtx = true);
    r.inject(24_000, 0, 0xA000_0007, &dup);
    done(r, 45_000)
}

/// A one-packet write of `len` bytes, message `msn` at PSN `psn`, into the first region at
/// `offset`.
fn only(psn: u32, msn: u16, offset: u64) -> Packet {
    write(psn, msn, Opcode::MRC_WRITE_ONLY, 0, 256, 256, REGION + offset, None)
}

/// Retargets a write at QP B (`DUT_QP + 1`), with B's own timestamp.
fn at_b(p: Packet) -> Packet {
    edit(p, |w| {
        w.bth.dest_qp = Qpn::new(DUT_QP + 1);
        if let Some(t) = w.tseth.as_mut() {
            t.tx_timestamp = 0x2B2B;
        }
    })
}

/// Two QPs in two retirement domains whose writes come 300 ns apart, less than `late_ns`:
/// a device may make each output of one domain visible after the next input of the other
/// (CONF-TIME-004), since the spec orders retirement within a domain only.
fn rcv_two_domains_close() -> Scenario {
    let mut r = responder_with(
        "rcv-two-domains-close",
        "Per-QP retirement: QP A and QP B are two retirement domains. Their one-packet \
         writes alternate 300 ns apart. A's message 2 arrives before its message 1, so that \
         message 1's arrival retires both at once, with B's writes before and after it. \
         Each domain retires its own messages in MSN order; the outputs of the two domains \
         may come in either order.",
        &["RET-ORDER-001", "RET-ORDER-002", "RET-DOMAIN-001", "RCV-ACK-002", "FLAG-ORDER-001"],
        |m| {
            m.nic.retirement = RetirementMode::PerQp;
            m.requires.insert(Capability::PerQpRetirement);
        },
    );
    two_qps(&mut r, 0, 0);
    let a = |r: &mut Recorder, at, ev, psn: u32, msn| {
        r.inject(at, 0, ev, &to_a(only(psn, msn, u64::from(msn) * 0x1000)));
    };
    let bq = |r: &mut Recorder, at, ev, psn: u32, msn| {
        r.inject(at, 1, ev, &at_b(only(psn, msn, 0x8_0000 + u64::from(msn) * 0x1000)));
    };
    r.checks(&["RET-DOMAIN-001", "RCV-ACK-002", "FLAG-ORDER-001"]);
    a(&mut r, 1_000, 0xA000_0001, 0, 0);
    bq(&mut r, 1_300, 0xB001_0002, 0, 0);
    a(&mut r, 1_600, 0xA000_0003, 2, 2);
    bq(&mut r, 1_900, 0xB001_0004, 1, 1);
    r.checks(&["RET-ORDER-001", "RET-ORDER-002", "RCV-ACK-002"]);
    a(&mut r, 2_200, 0xA000_0005, 1, 1);
    bq(&mut r, 2_500, 0xB001_0006, 2, 2);
    a(&mut r, 2_800, 0xA000_0007, 3, 3);
    bq(&mut r, 3_100, 0xB001_0008, 3, 3);
    done(r, 30_000)
}
