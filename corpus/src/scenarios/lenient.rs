//! What a requester must ignore in the acknowledgements it receives: fields that carry no
//! meaning in this version (`SETH-PDC-001`, `SETH-TYPE-001`, `NETH-PDC-001`,
//! `NETH-TYPE-001`), vendor detail (`NETH-VENDOR-001`), the congestion-control type
//! (`SETH-CC-001`), `rtx` on a packet that is not a write (`BTH-RTX-002`) and the credit code
//! of an ACK (`AETH-MRC-002`). Each odd field rides on one acknowledgement whose effect the
//! scenario then expects — a packet the window lets go, a retransmission, a completion, an
//! EV back in use — so a device that rejects or interprets the field falls behind exactly
//! there.

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![("snd-lenient", snd_lenient), ("snd-lenient-probe", snd_lenient_probe)]
}

/// A SACK or probe answer, changed by `f`.
fn sack_with(
    mut p: Packet,
    f: impl FnOnce(&mut BthRepr, &mut SethRepr, &mut CcStateRepr),
) -> Packet {
    if let Packet::Sack { bth, seth, cc_state } = &mut p {
        f(bth, seth, cc_state);
    }
    p
}

/// Odd fields of a SACK, one set per SACK of the scenario, each with the requirement that
/// says a receiver must not interpret it.
type SackOdd = (&'static str, fn(&mut BthRepr, &mut SethRepr, &mut CcStateRepr));

const SACK_ODD: [SackOdd; 4] = [
    ("SETH-PDC-001", |_, s, _| {
        s.spdcid = 0x1234;
        s.dpdcid = 0x5678;
    }),
    ("SETH-TYPE-001", |_, s, _| {
        s.res_type = 0xF;
        s.next_header = 0x1F;
    }),
    ("SETH-CC-001", |_, s, c| {
        s.cc_type = 0xA;
        s.cc_flags = 0x5;
        // A CC_STATE read whatever cc_type says: its fields are still only NSCC signals.
        c.r_c = true;
        c.rcv_cwnd_pen = 0x55;
    }),
    ("BTH-RTX-002", |b, _, _| b.rtx = true),
];

/// What only a probe answer carries oddly here: the reserved mark 3, which a requester
/// treats as NONE (SETH-M-001), so the answer still makes the EV GOOD.
const ANSWER_ODD: [SackOdd; 1] = [("SETH-M-001", |_, s, _| s.m = WireMark(3))];

/// Odd fields of a NACK, likewise.
type NackOdd = (&'static str, fn(&mut BthRepr, &mut NethRepr));

const NACK_ODD: [NackOdd; 4] = [
    ("NETH-PDC-001", |_, n| {
        n.spdcid = 0x4321;
        n.dpdcid = 0x8765;
    }),
    ("NETH-TYPE-001", |_, n| {
        n.res_type = 0x9;
        n.next_header = 0x11;
    }),
    ("NETH-VENDOR-001", |_, n| n.vendor_info = 0xEE),
    ("BTH-RTX-002", |b, _| b.rtx = true),
];

/// Injects a SACK answering the device's PSN `trigger`, on its EV, changed by `f`.
fn inject_odd_sack(
    r: &mut Recorder,
    at: u64,
    cack: u32,
    trigger: u32,
    f: fn(&mut BthRepr, &mut SethRepr, &mut CcStateRepr),
) {
    r.run_until(at);
    let ev = r.sent_ev(PEER_QP, trigger).expect("the trigger PSN was sent");
    let p = sack_with(sack_in(cack, 0, trigger, WireMark::NONE, ev), f);
    r.inject(at, port_of(ev, 4), ev, &p);
}

/// Injects a NACK PSN_OOR_WINDOW for the device's PSN `psn`, on its EV, changed by `f`.
fn inject_odd_nack(r: &mut Recorder, at: u64, psn: u32, f: fn(&mut BthRepr, &mut NethRepr)) {
    r.run_until(at);
    let ev = r.sent_ev(PEER_QP, psn).expect("the NACKed PSN was sent");
    let mut p = nack_in(psn, NackReason::PSN_OOR_WINDOW, ev);
    if let Packet::Nack { bth, neth } = &mut p {
        f(bth, neth);
    }
    r.inject(at, port_of(ev, 4), ev, &p);
}

/// SACKs, NACKs and ACKs with fields to ignore drive a requester as plain ones would.
fn snd_lenient() -> Scenario {
    let mut r = sender_with(
        "snd-lenient",
        "A congestion window of one PMTU lets one packet of an eight-packet message out per \
         SACK. The SACKs carry non-zero spdcid and dpdcid, res_type and next_header, cc_type \
         and cc_flags, BTH rtx; each still releases the next packet. NACKs PSN_OOR_WINDOW \
         carrying non-zero spdcid and dpdcid, res_type and next_header, vendor_info, BTH rtx \
         each still bring the retransmission after nack_backoff. A transport ACK with credit \
         code 0 completes the message and does not stop the next one, which an ACK with \
         credit code 10 and BTH rtx completes.",
        &[
            "SETH-PDC-001",
            "SETH-TYPE-001",
            "SETH-CC-001",
            "BTH-RTX-002",
            "NETH-PDC-001",
            "NETH-TYPE-001",
            "NETH-VENDOR-001",
            "AETH-MRC-002",
            "SND-CC-001",
            "SND-SACK-001",
            "SND-NACK-004",
            "SND-RTX-001",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.nic.nack_backoff = std::time::Duration::from_micros(2);
        },
    );
    r.host(0, HostCommand::RegisterRegion(region()));
    r.host(
        0,
        HostCommand::CreateQp(QpConfig {
            evs: v4_evs(DUT_QP, 4),
            cc: CongestionControl::FixedWindow { bytes: u64::from(PMTU) },
            ..qp(DUT_QP, PEER_QP, 0)
        }),
    );
    r.checks(&["SND-CC-001"]);
    r.host(1_000, HostCommand::PostWrite(wr(0, 8 * PMTU, None, true)));
    // PSNs 0 to 3: each SACK carries one odd field and lets the next packet go.
    let mut at = 2_000;
    for (psn, (id, f)) in SACK_ODD.into_iter().enumerate() {
        let psn = psn as u32;
        r.checks(&[id, "SND-SACK-001", "SND-CC-001"]);
        inject_odd_sack(&mut r, at, psn, psn, f);
        at += 1_000;
    }
    // PSNs 4 to 7: each is NACKed with one odd field, retransmitted after the back-off, then
    // SACKed, which lets the next packet go.
    for (k, (id, f)) in NACK_ODD.into_iter().enumerate() {
        let psn = 4 + k as u32;
        r.checks(&[id, "SND-NACK-004", "SND-RTX-001"]);
        inject_odd_nack(&mut r, at, psn, f);
        // The retransmission comes after the back-off (2 us), before the SACK.
        r.run_until(at + 2_500);
        r.checks(&["SND-SACK-001", "SND-CC-001"]);
        inject_sack(&mut r, at + 3_000, psn, 0, psn, WireMark::NONE);
        at += 4_000;
    }
    r.checks(&["AETH-MRC-002", "SND-ACK-001", "CQE-SEND-001"]);
    inject_ack(&mut r, at, 7, 0, 0x00);
    r.host(at + 1_000, HostCommand::PostWrite(wr(1, 64, None, true)));
    inject_sack(&mut r, at + 2_000, 8, 0, 8, WireMark::NONE);
    r.checks(&["AETH-MRC-002", "BTH-RTX-002", "SND-ACK-001", "CQE-SEND-001"]);
    let ack = ack_in(8, 1, 0x0A);
    let ack = match ack {
        Packet::Ack { mut bth, aeth } => {
            bth.rtx = true;
            Packet::Ack { bth, aeth }
        }
        other => other,
    };
    r.inject(at + 3_000, 0, 0xA000_0000, &ack);
    done(r, at + 10_000)
}

/// A probe answer with fields to ignore brings its EV back as a plain one would.
fn snd_lenient_probe() -> Scenario {
    let mut r = sender_with(
        "snd-lenient-probe",
        "Probe answers with fields to ignore, one set a round, bring the QP's one EV back. \
         Five times, a SACK marks the EV ALWAYS_SKIP and the next message waits; the CPU half commands a probe of the EV, which the device sends; the answer \
         (pr = 1, m = NONE) carries one set of fields to ignore (non-zero spdcid and \
         dpdcid; res_type and next_header; cc_type and cc_flags; BTH rtx; the reserved m \
         3), one set a round, and still makes the EV GOOD: the waiting message goes out.",
        &[
            "SETH-PDC-001",
            "SETH-TYPE-001",
            "SETH-CC-001",
            "BTH-RTX-002",
            "SETH-M-001",
            "EV-PROBE-002",
            "EV-PROBE-005",
            "SND-ACK-001",
            "CQE-SEND-001",
        ],
        |m| {
            m.requires.insert(Capability::Paths);
            m.requires.insert(Capability::CpuSplit);
        },
    );
    let evs = v4_evs(DUT_QP, 1);
    let e0 = evs[0];
    setup_evs(&mut r, 0, evs);
    r.host(1_000, HostCommand::PostWrite(wr(0, 64, None, true)));
    // One set of odd fields a round, so that a device that rejects the answer for one of
    // them is named by that field's rule.
    const ROUND: u64 = 30_000;
    for (k, (check, odd)) in (0u32..).zip(SACK_ODD.into_iter().chain(ANSWER_ODD)) {
        let t = ROUND * u64::from(k);
        inject_sack(&mut r, t + 3_000, k, 0, k, WireMark::ALWAYS_SKIP);
        inject_ack(&mut r, t + 3_000, k, k as u16, AethRepr::ACK_UNLIMITED_CREDIT);
        r.checks(&["EV-PROBE-005"]);
        r.host(t + 4_000, HostCommand::PostWrite(wr(k + 1, 64, None, true)));
        // The CPU half probes the EV it was told is bad (as in snd-ev-always-skip).
        r.run_until(t + 14_000);
        r.checks(&[check, "EV-PROBE-002"]);
        let id = r.sent_probe_id(PEER_QP, t + 3_000).expect("the device probed the EV");
        let answer = sack_with(probe_answer(k, id, WireMark::NONE, e0), odd);
        r.inject(t + 14_000, 0, e0, &answer);
        r.run_until(t + 20_000);
        r.checks(&["SND-ACK-001", "CQE-SEND-001"]);
    }
    let last = (SACK_ODD.len() + ANSWER_ODD.len()) as u32;
    let t = ROUND * u64::from(last);
    inject_sack(&mut r, t + 3_000, last, 0, last, WireMark::NONE);
    inject_ack(&mut r, t + 3_000, last, last as u16, AethRepr::ACK_UNLIMITED_CREDIT);
    done(r, t + 10_000)
}
