//! Scenarios for bugs no other scenario made visible: a sender that takes a SACK for the
//! transport ACK of the messages it covers, a responder that answers a probe from the
//! state of another QP, and one that answers a probe for a QP in the error state.

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![
        ("snd-ack-after-sack", snd_ack_after_sack),
        ("rcv-probe-two-qps", rcv_probe_two_qps),
        ("rcv-error-probe", rcv_error_probe),
    ]
}

/// A probe for a QP in the error state is discarded without an answer.
fn rcv_error_probe() -> Scenario {
    let mut m = manifest(
        "rcv-error-probe",
        "With wwi_limit 2, a Write-with-Immediate (RQMSN 1) is delivered; the next one \
         carries RQMSN 4, three ahead: the device answers it with NACK UNEXP_EVENT and \
         moves the QP to the error state. A probe for the QP then arrives: a QP in error \
         discards every packet, probes too, so no SACK answers it.",
        &["RCV-QP-002", "EV-PROBE-004", "WWI-LIMIT-002", "RCV-NACK-001", "RET-ERR-002"],
        &[
            Capability::Responder,
            Capability::Paths,
            Capability::Retirement,
            Capability::WriteImmediate,
            Capability::Ipv4,
        ],
    );
    m.nic.wwi_limit = 2;
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    breach_wwi_limit(&mut r);
    r.checks(&["RCV-QP-002", "EV-PROBE-004"]);
    r.inject(6_000, 2, 0xA002_0003, &probe(7));
    done(r, 20_000)
}

/// SACKs cover two messages well before the coalesced transport ACK that completes them.
fn snd_ack_after_sack() -> Scenario {
    let mut r = evs_sender(
        "snd-ack-after-sack",
        "The device sends a two-packet message and a one-packet message. A SACK covers the \
         first message's last packet 2 us after it left, a second SACK the second message \
         1 us later; the peer coalesces its transport ACKs, and one ACK of MSN 1 arrives \
         5 us after the second SACK. Only that ACK completes the messages: both flags and \
         completions are written at its arrival, none at a SACK's.",
        &["SND-ACK-005", "SND-ACK-001", "FLAG-SEND-001", "CQE-SEND-001"],
        |m| m.tolerances.late_ns = 2_000,
    );
    r.host(1_000, HostCommand::PostWrite(wr(0, 2 * PMTU, None, true)));
    r.host(1_000, HostCommand::PostWrite(wr(1, 512, None, true)));
    inject_sack(&mut r, 3_000, 1, 0, 1, WireMark::NONE);
    inject_sack(&mut r, 4_000, 2, 0, 2, WireMark::NONE);
    r.checks(&["SND-ACK-005", "SND-ACK-001", "FLAG-SEND-001", "CQE-SEND-001"]);
    inject_ack(&mut r, 9_000, 2, 1, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, 20_000)
}

/// Two QPs, each probed right after the other received a write.
fn rcv_probe_two_qps() -> Scenario {
    let mut m = manifest(
        "rcv-probe-two-qps",
        "Two QPs of the device, in two retirement domains. QP A, from PSN 0x100, receives its first \
         and third packet of a three-packet message and SACKs the hole at once; QP B, which has received \
         nothing, is then probed: its answer reports B's own state (cack_psn 0xFFFFFF, an \
         empty bitmap), not A's. B then receives a one-packet message, and A is probed: its \
         answer reports A's hole, not B's state. A's missing packet completes its message.",
        &["EV-PROBE-004", "PETH-RESP-001", "RCV-SACK-005", "SETH-CACK-001", "SETH-BITMAP-001"],
        &[Capability::Responder, Capability::Paths, Capability::Retirement, Capability::Ipv4],
    );
    tight_sack_timing(&mut m);
    let mut r = Recorder::new(m);
    // A's PSNs start away from B's, so that neither QP's state can pass for the other's.
    const A: u32 = 0x100;
    let b = two_qps(&mut r, A, 1);
    let total = 3 * PMTU;
    r.inject(
        1_000,
        0,
        0xA000_0001,
        &quiet(write(A, 0, Opcode::MRC_WRITE_FIRST, 0, PMTU, total, REGION, None)),
    );
    r.inject(
        1_100,
        1,
        0xA001_0002,
        &write(A + 2, 0, Opcode::MRC_WRITE_LAST, 2, PMTU, total, REGION, None),
    );
    let to_b = |p: Packet| match p {
        Packet::Probe { mut bth, peth } => {
            bth.dest_qp = Qpn::new(b);
            Packet::Probe { bth, peth }
        }
        Packet::Write(mut w) => {
            w.bth.dest_qp = Qpn::new(b);
            Packet::Write(w)
        }
        p => p,
    };
    r.checks(&["EV-PROBE-004", "PETH-RESP-001", "RCV-SACK-005", "SETH-CACK-001"]);
    r.inject(2_000, 2, 0xA002_0003, &to_b(probe(5)));
    let one = write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 256, 256, REGION + 0x8_0000, None);
    r.inject(3_000, 3, 0xA003_0004, &to_b(one));
    let mut pr = probe(6);
    if let Packet::Probe { bth, .. } = &mut pr {
        bth.psn = Psn::new(A + 3);
    }
    r.checks(&["EV-PROBE-004", "PETH-RESP-001", "SETH-BITMAP-001"]);
    r.inject(4_000, 0, 0xA000_0005, &pr);
    r.inject(
        10_000,
        1,
        0xA001_0006,
        &quiet(write(A + 1, 0, Opcode::MRC_WRITE_MIDDLE, 1, PMTU, total, REGION, None)),
    );
    done(r, 30_000)
}
