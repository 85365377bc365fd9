//! The comparison rules of the scoreboard (`spec/conformance.md`, section 6, `CONF-CMP-*`
//! and `CONF-TIME-*`), each held to its sentence: a run of the reference device, which
//! passes, is changed in one way at a time — a field of a frame, an output moved, added or
//! left out — and judged again. What the specification fixes must then diverge, under the
//! requirement the rule names; what it leaves to the device must not.

mod common;

use common::*;
use openrdma_codec::frame::{DecodedFrame, FrameRepr, IpRepr, decode};
use openrdma_codec::{EthernetAddress, EvMark, Opcode, Psn, Qpn};
use openrdma_conformance::device::{Input, Output, TimedInput, TimedOutput};
use openrdma_conformance::scenario::{Capability, Scenario};
use openrdma_conformance::scoreboard::{Divergence, Scope, judge, judge_in};
use openrdma_sm::{CpuCommand, NicEvent, NicReport, RetransmitCause, Side, Timestamp};

/// A passing run of the reference device, to be changed.
struct Run {
    s: Scenario,
    injected: Vec<TimedInput>,
    observed: Vec<TimedOutput>,
}

impl Run {
    fn of(name: &str) -> Run {
        let s = scenario(name);
        let out = reference_run(&s);
        let run = Run { s, injected: out.injected, observed: out.observed };
        assert_eq!(run.judge(&run.observed), vec![], "{name}: the reference passes");
        run
    }

    fn judge(&self, observed: &[TimedOutput]) -> Vec<Divergence> {
        judge(&self.s, &self.injected, observed).divergences
    }

    /// The `k`-th EV after `ev` in the profile of the QP that `ev` belongs to: another path
    /// the device may choose (CONF-CMP-017), never one outside its profile.
    fn other_ev(&self, ev: u32, k: usize) -> u32 {
        let profile: Vec<u32> = self
            .s
            .records
            .iter()
            .find_map(|r| match &r.body {
                openrdma_conformance::scenario::Body::Host {
                    command: openrdma_sm::HostCommand::CreateQp(q),
                } if q.evs.contains(&ev) || q.backup_evs.contains(&ev) => {
                    Some(q.evs.iter().chain(&q.backup_evs).copied().collect())
                }
                _ => None,
            })
            .expect("the EV belongs to a QP of the scenario");
        let i = profile.iter().position(|&e| e == ev).expect("in the profile");
        profile[(i + k) % profile.len()]
    }

    fn judge_with(&self, injected: &[TimedInput], observed: &[TimedOutput]) -> Vec<Divergence> {
        judge(&self.s, injected, observed).divergences
    }

    /// Indices of the output frames for which `pick` holds.
    fn frames(&self, pick: impl Fn(&DecodedFrame<'_>) -> bool) -> Vec<usize> {
        (0..self.observed.len())
            .filter(|&k| match &self.observed[k].output {
                Output::Frame { bytes, .. } => pick(&decode(bytes)),
                Output::Event { .. } => false,
            })
            .collect()
    }

    /// The index of the first output frame for which `pick` holds.
    fn frame(&self, pick: impl Fn(&DecodedFrame<'_>) -> bool) -> usize {
        *self
            .frames(pick)
            .first()
            .unwrap_or_else(|| panic!("{}: no such frame", self.s.manifest.name))
    }

    /// Indices of the events for which `pick` holds.
    fn events(&self, pick: impl Fn(&NicEvent) -> bool) -> Vec<usize> {
        (0..self.observed.len())
            .filter(|&k| matches!(&self.observed[k].output, Output::Event { event } if pick(event)))
            .collect()
    }

    fn bytes(&self, k: usize) -> &[u8] {
        match &self.observed[k].output {
            Output::Frame { bytes, .. } => bytes,
            Output::Event { .. } => panic!("output {k} is not a frame"),
        }
    }

    fn event(&self, k: usize) -> &NicEvent {
        match &self.observed[k].output {
            Output::Event { event } => event,
            Output::Frame { .. } => panic!("output {k} is not an event"),
        }
    }

    /// The outputs with frame `k` edited (its ICRC computed again).
    fn edit(&self, k: usize, f: impl FnOnce(&mut FrameRepr)) -> Vec<TimedOutput> {
        let mut o = self.observed.clone();
        let bytes = edit_frame(self.bytes(k), f);
        let Output::Frame { bytes: b, .. } = &mut o[k].output else { unreachable!() };
        *b = bytes;
        o
    }

    /// The outputs with event `k` edited.
    fn edit_event(&self, k: usize, f: impl FnOnce(&mut NicEvent)) -> Vec<TimedOutput> {
        let mut o = self.observed.clone();
        let Output::Event { event } = &mut o[k].output else {
            panic!("output {k} is not an event")
        };
        f(event);
        o
    }

    /// The outputs with output `k` left out.
    fn without(&self, k: usize) -> Vec<TimedOutput> {
        let mut o = self.observed.clone();
        o.remove(k);
        o
    }

    /// The outputs with `extra` added after output `k`.
    fn with_after(&self, k: usize, extra: TimedOutput) -> Vec<TimedOutput> {
        let mut o = self.observed.clone();
        o.insert(k + 1, extra);
        o
    }
}

fn is_data(d: &DecodedFrame<'_>) -> bool {
    d.bth.is_some_and(|b| b.opcode.is_mrc_write())
}

fn opcode_is(op: Opcode) -> impl Fn(&DecodedFrame<'_>) -> bool {
    move |d| d.bth.is_some_and(|b| b.opcode == op)
}

/// The requirement IDs of the divergences that break a MUST.
fn musts(d: &[Divergence]) -> Vec<&str> {
    d.iter().filter(|d| !d.should_only).map(|d| d.requirement.as_str()).collect()
}

/// Asserts that some divergence breaking a MUST names `id`.
#[track_caller]
fn assert_names(d: &[Divergence], id: &str, what: &str) {
    assert!(musts(d).contains(&id), "{what}: expected a divergence under {id}, got {:#?}", d);
}

// ---- CONF-CMP-001 -----------------------------------------------------------------------

/// CONF-CMP-001: a frame that does not decode, or carries a wrong ICRC, is a divergence
/// wherever it appears — also where no frame is expected.
#[test]
fn conf_cmp_001_every_frame_decodes_with_a_correct_icrc() {
    let r = Run::of("rcv-in-order-v4");
    let sack = r.frame(opcode_is(Opcode::MRC_SACK));
    let at = r.observed[sack].at;
    let cut =
        TimedOutput { at, output: Output::Frame { port: 0, bytes: r.bytes(sack)[..60].to_vec() } };
    assert_names(&r.judge(&r.with_after(sack, cut)), "DEC-STRUCT-001", "an undecodable frame");
    let mut bad = r.bytes(sack).to_vec();
    let n = bad.len();
    bad[n - 1] ^= 0x55;
    let extra = TimedOutput { at, output: Output::Frame { port: 1, bytes: bad } };
    assert_names(&r.judge(&r.with_after(sack, extra)), "ICRC-CALC-001", "an extra frame, bad ICRC");
    let ack = r.frame(opcode_is(Opcode::MRC_ACKNOWLEDGE));
    let mut o = r.observed.clone();
    let Output::Frame { bytes, .. } = &mut o[ack].output else { unreachable!() };
    let n = bytes.len();
    bytes[n - 2] ^= 1;
    assert_names(&r.judge(&o), "ICRC-CALC-001", "an expected ACK with a bad ICRC");
}

// ---- CONF-CMP-026 -----------------------------------------------------------------------

/// CONF-CMP-026: data packets are matched by (QP, PSN, `rtx`) and must agree exactly in
/// what the specification fixes; an address differs under CONF-CMP-026 itself.
#[test]
fn conf_cmp_026_data_packets_agree_in_every_fixed_field() {
    // Without the records' own `checks`, a divergence is named by the rule that found it.
    let mut r = Run::of("snd-segmentation");
    r.s.records.iter_mut().for_each(|x| x.checks.clear());
    let k = r.frame(|d| is_data(d) && d.ext.reth.is_some() && d.payload.len() >= 8);
    type Edit = Box<dyn Fn(&mut FrameRepr)>;
    let must_differ: Vec<(&str, Option<&str>, Edit)> = vec![
        (
            "Ethernet source",
            Some("CONF-CMP-026"),
            Box::new(|f| f.eth.src = EthernetAddress([2, 0, 0, 0, 0, 9])),
        ),
        (
            "Ethernet destination",
            Some("CONF-CMP-026"),
            Box::new(|f| f.eth.dst = EthernetAddress([2, 0, 0, 0, 0, 9])),
        ),
        (
            "IP source",
            Some("CONF-CMP-026"),
            Box::new(|f| {
                if let IpRepr::V4(v4) = &mut f.ip {
                    v4.src = [10, 0, 0, 9].into()
                }
                f.finalize().unwrap();
            }),
        ),
        (
            "IP destination",
            Some("CONF-CMP-026"),
            Box::new(|f| {
                if let IpRepr::V4(v4) = &mut f.ip {
                    v4.dst = [10, 0, 0, 9].into()
                }
                f.finalize().unwrap();
            }),
        ),
        ("UDP destination port", None, Box::new(|f| f.udp.dst_port = 4792)),
        (
            "TSETH present",
            Some("TSETH-PRESENT-001"),
            Box::new(|f| {
                f.bth.ts = !f.bth.ts;
                f.ext.tseth = match f.ext.tseth {
                    Some(_) => None,
                    None => Some(Default::default()),
                };
                f.finalize().unwrap();
            }),
        ),
        ("AckReq", Some("SND-ACKREQ-001"), Box::new(|f| f.bth.ack_req = !f.bth.ack_req)),
        ("destination QP", None, Box::new(|f| f.bth.dest_qp = Qpn::new(0x99))),
        ("PSN", None, Box::new(|f| f.bth.psn = f.bth.psn.add(100))),
        ("rtx", None, Box::new(|f| f.bth.rtx = !f.bth.rtx)),
        (
            "pad count",
            None,
            Box::new(|f| {
                f.bth.pad_count = 2;
                f.pad = [0; 3]
            }),
        ),
        ("P_Key", None, Box::new(|f| f.bth.pkey = 0x7FFF)),
        ("solicited", None, Box::new(|f| f.bth.solicited = !f.bth.solicited)),
        ("METH msn", None, Box::new(|f| f.ext.meth.as_mut().unwrap().msn ^= 1)),
        ("METH rqmsn", None, Box::new(|f| f.ext.meth.as_mut().unwrap().rqmsn ^= 1)),
        ("RETH va", Some("SND-SEG-003"), Box::new(|f| f.ext.reth.as_mut().unwrap().va += 4)),
        ("RETH rkey", Some("SND-SEG-003"), Box::new(|f| f.ext.reth.as_mut().unwrap().rkey ^= 1)),
        (
            "RETH dma_len",
            Some("SND-SEG-003"),
            Box::new(|f| f.ext.reth.as_mut().unwrap().dma_len += 1),
        ),
        ("payload", Some("SND-SEG-001"), Box::new(|f| f.payload[3] ^= 0xFF)),
    ];
    for (what, id, edit) in &must_differ {
        let d = r.judge(&r.edit(k, |f| edit(f)));
        assert!(!musts(&d).is_empty(), "{what}: no divergence");
        if let Some(id) = id {
            assert_names(&d, id, what);
        }
    }
    // The immediate of a Write-with-Immediate.
    let imm = r.frame(|d| is_data(d) && d.ext.immdt.is_some());
    let d = r.judge(&r.edit(imm, |f| f.ext.immdt.as_mut().unwrap().imm ^= 1));
    assert_names(&d, "SND-SEG-004", "ImmDt");
    // The opcode: a FIRST sent as an ONLY.
    let first = r.frame(opcode_is(Opcode::MRC_WRITE_FIRST));
    let d = r.judge(&r.edit(first, |f| f.bth.opcode = Opcode::MRC_WRITE_ONLY));
    assert_names(&d, "SND-SEG-002", "opcode");
    // The ICRC verdict.
    let mut o = r.observed.clone();
    let Output::Frame { bytes, .. } = &mut o[k].output else { unreachable!() };
    let n = bytes.len();
    bytes[n - 1] ^= 1;
    assert_names(&r.judge(&o), "ICRC-CALC-001", "ICRC");
    // The VLAN ID the link fixes, on a responder's ACK.
    let mut v = Run::of("rcv-in-order-vlan");
    v.s.records.iter_mut().for_each(|x| x.checks.clear());
    let ack = v.frame(opcode_is(Opcode::MRC_ACKNOWLEDGE));
    let d = v.judge(&v.edit(ack, |f| f.vlan.as_mut().unwrap().vid ^= 1));
    assert_names(&d, "CONF-CMP-026", "VLAN ID");
}

/// CONF-CMP-026: the entropy value (the UDP source port, and over IPv6 the flow label), the
/// TSETH's contents and the other IP and UDP fields are the device's own: changing them on
/// every frame it sends is not a divergence.
#[test]
fn conf_cmp_026_what_the_device_chooses_is_not_compared() {
    for name in ["snd-segmentation", "snd-dark-path-v6", "rcv-in-order-v6", "rcv-in-order-v4"] {
        let r = Run::of(name);
        let mut o = r.observed.clone();
        for (k, out) in o.iter_mut().enumerate() {
            let Output::Frame { bytes, .. } = &mut out.output else { continue };
            let d = decode(bytes);
            if !is_data(&d) && d.ext.seth.is_none() {
                // Acknowledgements: the device's choice of the other IP fields only; their
                // EV is judged against the packet they answer (CONF-CMP-006).
                *bytes = edit_frame(r.bytes(k), |f| {
                    match &mut f.ip {
                        IpRepr::V4(v4) => {
                            v4.ttl = 17;
                            v4.ident = 0x1234;
                        }
                        IpRepr::V6(v6) => v6.hop_limit = 17,
                    }
                    f.finalize().unwrap();
                });
                continue;
            }
            if d.ext.seth.is_some() {
                continue;
            }
            *bytes = edit_frame(r.bytes(k), |f| {
                let ev = r.other_ev(f.entropy(), 3);
                f.set_entropy(ev);
                if let Some(t) = f.ext.tseth.as_mut() {
                    t.tx_timestamp ^= 0x0F0F;
                }
                match &mut f.ip {
                    IpRepr::V4(v4) => {
                        v4.ttl = 3;
                        v4.ident = 0x4321;
                        v4.dscp = 10;
                    }
                    IpRepr::V6(v6) => {
                        v6.hop_limit = 3;
                        v6.traffic_class = 0x28;
                    }
                }
                f.finalize().unwrap();
            });
        }
        assert_eq!(r.judge(&o), vec![], "{name}: the device's own choices were compared");
    }
}

// ---- CONF-CMP-027 and CONF-CMP-019 ------------------------------------------------------

/// CONF-CMP-027: a retransmission sent on the EV of the previous transmission of its PSN
/// diverges under SND-RTX-002; on any other EV it does not.
#[test]
fn conf_cmp_027_a_retransmission_takes_another_ev() {
    let r = Run::of("snd-single-loss");
    let rtx = r.frame(|d| is_data(d) && d.bth.is_some_and(|b| b.rtx));
    let b = decode(r.bytes(rtx)).bth.unwrap();
    let first = r.frame(|d| {
        is_data(d) && d.bth.is_some_and(|x| !x.rtx && x.psn == b.psn && x.dest_qp == b.dest_qp)
    });
    let lost_ev = decode(r.bytes(first)).entropy().unwrap();
    let d = r.judge(&r.edit(rtx, |f| f.set_entropy(lost_ev)));
    assert_names(&d, "SND-RTX-002", "the same EV");
    let d = r.judge(&r.edit(rtx, |f| f.set_entropy(lost_ev ^ 0x0001_0000)));
    assert_eq!(d, vec![], "another EV");
}

// ---- CONF-CMP-028 ------------------------------------------------------------------------

/// CONF-CMP-028: under `spray-policies` a data packet or probe on another EV than its
/// record's diverges under the requirement of its QP's policy, or under the first its
/// record checks, unless the record also checks the policy's own (section 6).
#[test]
fn conf_cmp_028_each_ev_is_the_one_the_policy_gives() {
    // The frame's checksums made right too: the UDP checksum of IPv6 covers the EV.
    let moved = |r: &Run, k: usize, by: usize| {
        let ev = decode(r.bytes(k)).entropy().expect("an EV");
        let edited = r.edit(k, |f| {
            f.set_entropy(r.other_ev(ev, by));
            f.finalize().expect("the edited frame finalizes");
        });
        musts(&r.judge(&edited)).join(" ")
    };
    let sent_at = |r: &Run, t: u64, pick: &dyn Fn(&DecodedFrame<'_>) -> bool| {
        *r.frames(pick).iter().find(|&&k| r.observed[k].at.0 == t).expect("a frame then")
    };
    let fresh = |d: &DecodedFrame<'_>| is_data(d) && d.bth.is_some_and(|b| !b.rtx);
    // A packet at 21.64 us checks SND-SPRAY-006 first, and SND-SPRAY-009 and SND-SCHED-001.
    let r = Run::of("snd-spray-window-fit");
    assert_eq!(moved(&r, sent_at(&r, 21_640, &fresh), 1), "SND-SPRAY-006", "at 21.64 us");
    // The probe at 5 us checks SND-SPRAY-009; the packets at 60 us check SND-SPRAY-010
    // first, not SND-SPRAY-005; the retransmissions at 62 us check SND-INFER-001 first,
    // and SND-SPRAY-005.
    let r = Run::of("snd-spray-window-fit-probe-rtt");
    let probe = r.frame(opcode_is(Opcode::MRC_PROBE));
    assert_eq!(moved(&r, probe, 1), "SND-SPRAY-009", "the probe");
    assert_eq!(moved(&r, sent_at(&r, 60_000, &fresh), 1), "SND-SPRAY-010", "at 60 us");
    let rtx = |d: &DecodedFrame<'_>| is_data(d) && d.bth.is_some_and(|b| b.rtx);
    assert_eq!(moved(&r, sent_at(&r, 62_000, &rtx), 1), "SND-SPRAY-005", "a retransmission");
}

/// CONF-CMP-019: a data packet no expect record matches is a spurious retransmission
/// (SND-RTX-004) when `rtx` is set and a duplicate transmission (SND-PSN-001) when not;
/// except that each retransmission command of the CPU half excuses one retransmission on
/// its QP, sent at or after the command and within `late_ns` of it.
#[test]
fn conf_cmp_019_unexpected_data_packets_and_commanded_retransmissions() {
    let r = Run::of("snd-segmentation");
    let k = r.frame(is_data);
    let at = r.observed[k].at;
    // A copy of the packet, as a retransmission or not, on the `step`-th EV of the profile
    // after the original's (each copy on another EV than the transmission before it, so
    // that SND-RTX-002 holds and only the rule under test can diverge).
    let copy = |rtx: bool, at: Timestamp, step: usize| TimedOutput {
        at,
        output: Output::Frame {
            port: 0,
            bytes: edit_frame(r.bytes(k), |f| {
                f.bth.rtx = rtx;
                let ev = r.other_ev(f.entropy(), step);
                f.set_entropy(ev);
            }),
        },
    };
    assert_eq!(musts(&r.judge(&r.with_after(k, copy(false, at, 1)))), ["SND-PSN-001"]);
    assert!(musts(&r.judge(&r.with_after(k, copy(true, at, 1)))).contains(&"SND-RTX-004"));
    // A retransmission command of the CPU half at `at`, for the device's QP.
    let qpn = Qpn::new(openrdma_conformance::corpus::DUT_QP);
    let psn = decode(r.bytes(k)).bth.unwrap().psn;
    let mut injected = r.injected.clone();
    let pos = injected.iter().position(|i| i.at > at).unwrap_or(injected.len());
    injected.insert(
        pos,
        TimedInput { at, input: Input::Cpu { command: CpuCommand::Retransmit { qpn, psn } } },
    );
    // Each retransmission comes with its report to the CPU half (REC-IF-008), so that
    // only the rule under test can diverge.
    let with_rtx = |o: &mut Vec<TimedOutput>, pos: usize, at: Timestamp, step: usize| {
        o.insert(pos, copy(true, at, step));
        let report =
            NicReport::Retransmitted { qpn, psn, cause: RetransmitCause::Timeout, lost_ev: None };
        o.insert(
            pos + 1,
            TimedOutput { at, output: Output::Event { event: NicEvent::Report(report) } },
        );
    };
    let late = r.s.manifest.tolerances.late_ns;
    let within = Timestamp(at.0 + late);
    let mut o = r.observed.clone();
    with_rtx(&mut o, k + 1, within, 1);
    assert_eq!(r.judge_with(&injected, &o), vec![], "one commanded retransmission");
    let mut o = r.observed.clone();
    with_rtx(&mut o, k + 1, at, 1);
    with_rtx(&mut o, k + 3, within, 2);
    assert_eq!(musts(&r.judge_with(&injected, &o)), ["SND-RTX-004"], "two for one command");
    let mut o = r.observed.clone();
    with_rtx(&mut o, k + 1, Timestamp(at.0 + late + 1), 1);
    assert_eq!(musts(&r.judge_with(&injected, &o)), ["SND-RTX-004"], "later than late_ns");
    let mut o = r.observed.clone();
    with_rtx(&mut o, k, Timestamp(at.0 - 1), 1);
    assert_eq!(musts(&r.judge_with(&injected, &o)), ["SND-RTX-004"], "before the command");
}

// ---- CONF-CMP-005 -----------------------------------------------------------------------

/// CONF-CMP-005: NACKs are matched by (QP, `nack_psn`, reason), transport ACKs by (QP, MSN,
/// and ACK of any credit code or the exact NAK syndrome), probes by QP; an unmatched one is
/// a divergence, but an ACK may repeat an MSN the scenario acknowledges. The BTH PSN of
/// these packets and the credit code of an ACK are SHOULDs: a difference is non-strict.
#[test]
fn conf_cmp_005_nacks_acks_and_probes() {
    let r = Run::of("rcv-window-edges");
    let nack = r.frame(opcode_is(Opcode::MRC_NACK));
    let d = r.judge(&r.edit(nack, |f| f.ext.neth.as_mut().unwrap().reason.0 ^= 0x01));
    assert!(!musts(&d).is_empty(), "another reason");
    let d = r.judge(&r.edit(nack, |f| {
        let n = f.ext.neth.as_mut().unwrap();
        n.nack_psn = n.nack_psn.add(1);
    }));
    assert!(!musts(&d).is_empty(), "another nack_psn");
    let again = r.observed[nack].clone();
    assert_eq!(musts(&r.judge(&r.with_after(nack, again))), ["RCV-NACK-001"], "an extra NACK");
    let d = r.judge(&r.edit(nack, |f| f.bth.psn = f.bth.psn.add(7)));
    assert_eq!(musts(&d), Vec::<&str>::new(), "the PSN of a NACK");
    assert!(d.iter().any(|d| d.should_only && d.requirement == "OPC-PSN-001"), "{d:?}");

    let r = Run::of("rcv-in-order-v4");
    let ack = r.frame(opcode_is(Opcode::MRC_ACKNOWLEDGE));
    let syndrome = decode(r.bytes(ack)).ext.aeth.unwrap().syndrome;
    let d = r.judge(&r.edit(ack, |f| f.ext.aeth.as_mut().unwrap().syndrome = syndrome ^ 0x01));
    assert_eq!(musts(&d), Vec::<&str>::new(), "another credit code");
    assert!(d.iter().any(|d| d.should_only && d.requirement == "AETH-MRC-002"), "{d:?}");
    let d = r.judge(&r.edit(ack, |f| f.ext.aeth.as_mut().unwrap().syndrome = 0x62));
    assert!(!musts(&d).is_empty(), "a NAK for an ACK");
    let again = r.observed[ack].clone();
    assert_eq!(r.judge(&r.with_after(ack, again)), vec![], "an ACK that repeats an MSN");
    let unknown = TimedOutput {
        output: Output::Frame {
            port: 0,
            bytes: edit_frame(r.bytes(ack), |f| f.ext.aeth.as_mut().unwrap().msn += 40),
        },
        ..r.observed[ack].clone()
    };
    assert_eq!(musts(&r.judge(&r.with_after(ack, unknown))), ["RCV-ACK-002"]);
    let d = r.judge(&r.edit(ack, |f| f.bth.psn = f.bth.psn.add(3)));
    assert_eq!(musts(&d), Vec::<&str>::new(), "the PSN of an ACK");

    let r = Run::of("rcv-placement-errors");
    let nak = r.frame(|d| d.ext.aeth.is_some_and(|a| a.syndrome & 0x60 == 0x60));
    let d = r.judge(&r.edit(nak, |f| f.ext.aeth.as_mut().unwrap().syndrome ^= 0x03));
    assert!(!musts(&d).is_empty(), "another NAK syndrome");

    let r = Run::of("snd-ev-always-skip");
    let probe = r.frame(opcode_is(Opcode::MRC_PROBE));
    assert!(!musts(&r.judge(&r.without(probe))).is_empty(), "a missing probe");
    let again = r.observed[probe].clone();
    assert_eq!(musts(&r.judge(&r.with_after(probe, again))), ["EV-PROBE-005"], "an extra probe");
}

// ---- CONF-CMP-006 and CONF-CMP-007 ------------------------------------------------------

/// CONF-CMP-006: every SACK is judged by what it says against what the device had
/// received, field by field, each under the requirement the sentence gives it.
#[test]
fn conf_cmp_006_every_sack_is_true_and_well_formed() {
    let r = Run::of("rcv-in-order-v4");
    let sacks = r.frames(opcode_is(Opcode::MRC_SACK));
    let k = sacks[0];
    let last = *sacks.last().unwrap();
    let seth = decode(r.bytes(k)).ext.seth.unwrap();
    type Edit = Box<dyn Fn(&mut FrameRepr)>;
    let cases: Vec<(&str, usize, Edit)> = vec![
        (
            "SETH-CACK-001",
            k,
            Box::new(|f| {
                let s = f.ext.seth.as_mut().unwrap();
                s.cack_psn = s.cack_psn.add(40);
                s.ack_psn_offset -= 40;
            }),
        ),
        ("SETH-CACK-001", k, Box::new(|f| f.ext.seth.as_mut().unwrap().sack_bitmap |= 1 << 20)),
        ("SETH-BITMAP-002", k, Box::new(|f| f.ext.seth.as_mut().unwrap().sack_bitmap |= 1)),
        ("RCV-SACK-005", k, Box::new(|f| f.ext.seth.as_mut().unwrap().mpr ^= 2)),
        ("SETH-RESV-001", k, Box::new(|f| f.ext.seth.as_mut().unwrap().resv12 = 1)),
        ("CCS-RESV-001", k, Box::new(|f| f.ext.cc_state.as_mut().unwrap().resv = true)),
        ("SETH-M-001", k, Box::new(|f| f.ext.seth.as_mut().unwrap().m = EvMark(3))),
        ("SETH-ACKPSN-001", k, Box::new(|f| f.ext.seth.as_mut().unwrap().ack_psn_offset += 30)),
        ("SETH-EV-001", k, Box::new(|f| f.ext.seth.as_mut().unwrap().entropy ^= 0x0001_0000)),
        ("RCV-SACK-006", k, Box::new(|f| f.udp.src_port ^= 1)),
        ("CCS-TS-001", k, Box::new(|f| f.ext.cc_state.as_mut().unwrap().tx_timestamp ^= 0x0100)),
        ("CCS-OOO-001", k, Box::new(|f| f.ext.cc_state.as_mut().unwrap().ooo_count += 50)),
        ("CCS-BYTES-001", k, Box::new(|f| f.ext.cc_state.as_mut().unwrap().rcvd_bytes += 100_000)),
    ];
    assert!(seth.sack_offset == 1 && !seth.pr);
    for (id, at, edit) in &cases {
        assert_names(&r.judge(&r.edit(*at, |f| edit(f))), id, id);
    }
    // Completeness: a SACK sent well after the last one leaves out a PSN that arrived
    // more than `late_ns` before it.
    let late = r.s.manifest.tolerances.late_ns;
    let stale = TimedOutput {
        at: Timestamp(r.observed[last].at.0 + late + 1_000),
        output: Output::Frame {
            port: 0,
            bytes: edit_frame(r.bytes(last), |f| {
                let s = f.ext.seth.as_mut().unwrap();
                s.cack_psn = s.cack_psn.sub(1);
                s.ack_psn_offset += 1;
                f.bth.psn = s.cack_psn;
            }),
        },
    };
    let mut o = r.observed.clone();
    o.push(stale);
    o.sort_by_key(|x| x.at);
    let d = r.judge(&o);
    assert!(
        musts(&d).iter().any(|id| ["SETH-CACK-001", "SETH-BITMAP-001"].contains(id)),
        "a SACK that leaves out an old PSN: {d:#?}"
    );
    // The BTH PSN of a SACK is a SHOULD (OPC-PSN-001).
    let d = r.judge(&r.edit(k, |f| f.bth.psn = f.bth.psn.add(1)));
    assert_eq!(musts(&d), Vec::<&str>::new());
    assert!(d.iter().any(|d| d.should_only && d.requirement == "OPC-PSN-001"), "{d:?}");
    // A SACK answering a probe names the probe it answers.
    let p = Run::of("rcv-probe");
    let answer = p.frame(|d| d.ext.seth.is_some_and(|s| s.pr));
    let d = p.judge(&p.edit(answer, |f| f.ext.seth.as_mut().unwrap().ack_psn_offset += 9));
    assert!(
        musts(&d).iter().any(|id| ["SETH-PR-001", "SETH-ACKPSN-002"].contains(id)),
        "a probe answer for no probe: {d:#?}"
    );
}

/// CONF-CMP-007: for each expected SACK the device must have reported as much progress by
/// its time plus `late_ns`; how many SACKs it sends is its own choice.
#[test]
fn conf_cmp_007_sacks_show_progress_in_time_and_their_number_is_free() {
    let r = Run::of("rcv-in-order-v4");
    let sacks = r.frames(opcode_is(Opcode::MRC_SACK));
    assert!(sacks.len() >= 2);
    // Every SACK twice.
    let mut o = r.observed.clone();
    for &k in sacks.iter().rev() {
        o.insert(k + 1, r.observed[k].clone());
    }
    assert_eq!(r.judge(&o), vec![], "twice as many SACKs");
    // The last SACK missing: the progress it reported is never reported.
    let d = r.judge(&r.without(*sacks.last().unwrap()));
    assert!(!musts(&d).is_empty(), "the last SACK left out");
    // The last SACK late by more than late_ns.
    let late = r.s.manifest.tolerances.late_ns;
    let mut o = r.observed.clone();
    let k = *sacks.last().unwrap();
    o[k].at = Timestamp(o[k].at.0 + late + 1);
    o.sort_by_key(|x| x.at);
    assert!(!musts(&r.judge(&o)).is_empty(), "the last SACK late");
}

// ---- CONF-CMP-008 -----------------------------------------------------------------------

fn is_dma(e: &NicEvent) -> bool {
    matches!(e, NicEvent::DmaWrite(_))
}

fn is_responder_flag(e: &NicEvent) -> bool {
    matches!(e, NicEvent::FlagWrite(f) if f.side == Side::Responder)
}

/// CONF-CMP-008: DMA writes are a multiset, in any order; each expected one must happen and
/// no other; an expected write after its message's flag is a flag before its data
/// (FLAG-ORDER-001), an unexpected one a write after the flag (FLAG-LAST-001).
#[test]
fn conf_cmp_008_dma_writes_are_a_multiset_kept_before_their_flag() {
    let r = Run::of("rcv-in-order-v4");
    let dmas = r.events(is_dma);
    // Two writes of one message swapped: any order.
    let pair = dmas
        .windows(2)
        .find(|w| {
            w[1] == w[0] + 1
                && matches!((r.event(w[0]), r.event(w[1])), (NicEvent::DmaWrite(a), NicEvent::DmaWrite(b)) if a.msn == b.msn && a.qpn == b.qpn)
        })
        .expect("a message of two packets");
    // Both at the later time, so that neither is placed before its packet arrived.
    let mut o = r.observed.clone();
    o.swap(pair[0], pair[1]);
    let t = o[pair[0]].at.max(o[pair[1]].at);
    o[pair[0]].at = t;
    o[pair[1]].at = t;
    assert_eq!(r.judge(&o), vec![], "DMA writes in another order");
    // One left out, one added.
    assert!(!musts(&r.judge(&r.without(dmas[0]))).is_empty(), "a DMA write left out");
    let extra = r.edit_event(dmas[0], |e| {
        if let NicEvent::DmaWrite(w) = e {
            w.va += 0x1_0000;
        }
    });
    let extra = TimedOutput { ..extra[dmas[0]].clone() };
    assert_eq!(musts(&r.judge(&r.with_after(dmas[0], extra))), ["RCV-PLACE-001"]);
    // The last write of a message moved after its flag; a copy of it after the flag.
    let flag = r.events(is_responder_flag)[0];
    let NicEvent::FlagWrite(f) = r.event(flag) else { unreachable!() };
    let last = *dmas
        .iter()
        .rfind(
            |&&k| matches!(r.event(k), NicEvent::DmaWrite(w) if w.msn == f.msn && w.qpn == f.qpn),
        )
        .unwrap();
    let mut o = r.observed.clone();
    let mut moved = o.remove(last);
    moved.at = o[flag - 1].at;
    o.insert(flag, moved.clone());
    assert_names(&r.judge(&o), "FLAG-ORDER-001", "an expected write after its flag");
    let copy = TimedOutput { at: r.observed[flag].at, ..moved };
    assert_names(&r.judge(&r.with_after(flag, copy)), "FLAG-LAST-001", "a write after the flag");
}

// ---- CONF-CMP-009 -----------------------------------------------------------------------

/// CONF-CMP-009: flag writes and completions are four sequences, each compared in order,
/// field by field, without the completion's timestamp; each reports its first divergence
/// only.
/// The requirement a divergence in the first expected event that `pick` selects is
/// reported under: the first its record checks, if it names one, and otherwise `rule`, the
/// rule of its sequence or field (section 6's preamble).
fn first_event_names(r: &Run, pick: impl Fn(&NicEvent) -> bool, rule: &str) -> String {
    let record = r
        .s
        .expects()
        .find(|x| {
            matches!(&x.body, openrdma_conformance::scenario::Body::Event { event } if pick(event))
        })
        .expect("an expected event");
    record.checks.first().cloned().unwrap_or_else(|| rule.to_string())
}

/// [`first_event_names`] for the first completion of `side`.
fn first_completion_names(r: &Run, side: Side, rule: &str) -> String {
    first_event_names(r, |e| matches!(e, NicEvent::Completion(c) if c.side == side), rule)
}

#[test]
fn conf_cmp_009_flags_and_completions_are_four_sequences() {
    let r = Run::of("rcv-in-order-v4");
    let flags = r.events(is_responder_flag);
    assert!(flags.len() >= 2);
    let o = r.edit_event(flags[0], |e| {
        if let NicEvent::FlagWrite(f) = e {
            f.value ^= 1;
        }
    });
    let named = first_event_names(&r, is_responder_flag, "RET-FLAG-001");
    assert_eq!(musts(&r.judge(&o)), [named.as_str()], "a flag's value");
    let mut o = o;
    if let Output::Event { event: NicEvent::FlagWrite(f) } = &mut o[flags[1]].output {
        f.value ^= 1;
    }
    assert_eq!(musts(&r.judge(&o)), [named.as_str()], "two wrong flags: the first only");
    let mut o = r.observed.clone();
    let (a, b) = (flags[0], flags[1]);
    let (ea, eb) = (o[a].output.clone(), o[b].output.clone());
    o[a].output = eb;
    o[b].output = ea;
    assert_names(&r.judge(&o), "RET-ORDER-001", "two flags swapped");
    let rx = r.events(|e| matches!(e, NicEvent::Completion(c) if c.side == Side::Responder));
    let o = r.edit_event(rx[0], |e| {
        if let NicEvent::Completion(c) = e {
            c.entry.timestamp ^= 0xFFFF;
        }
    });
    assert_eq!(r.judge(&o), vec![], "a completion's timestamp");
    let o = r.edit_event(rx[0], |e| {
        if let NicEvent::Completion(c) = e {
            c.entry.imm ^= 1;
        }
    });
    let named = first_completion_names(&r, Side::Responder, "CQE-RECV-001");
    assert_eq!(musts(&r.judge(&o)), [named.as_str()], "a completion's immediate");

    let s = Run::of("snd-segmentation");
    let tx = s.events(|e| matches!(e, NicEvent::Completion(c) if c.side == Side::Requester));
    let o = s.edit_event(tx[0], |e| {
        if let NicEvent::Completion(c) = e {
            c.entry.wr_id ^= 1;
        }
    });
    let named = first_completion_names(&s, Side::Requester, "CQE-SEND-001");
    assert_eq!(musts(&s.judge(&o)), [named.as_str()], "a requester completion's wr_id");
    let sf = s.events(|e| matches!(e, NicEvent::FlagWrite(f) if f.side == Side::Requester));
    assert!(!musts(&s.judge(&s.without(sf[0]))).is_empty(), "a requester flag left out");
}

// ---- CONF-CMP-020 -----------------------------------------------------------------------

fn is_report(e: &NicEvent, pick: impl Fn(&NicReport) -> bool) -> bool {
    matches!(e, NicEvent::Report(r) if pick(r))
}

/// CONF-CMP-020: the reports that do not depend on the device's paths and timing are
/// compared — a QP error with its cause, `Nack`, `EvMarked` and `ProbeAnswered` as a
/// multiset, one `Retransmitted` per retransmission — and the others are not.
#[test]
fn conf_cmp_020_reports_are_compared_where_they_are_the_device_s_to_give() {
    // Nack reports.
    let r = Run::of("snd-nack-backoff");
    let nack = r.events(|e| is_report(e, |r| matches!(r, NicReport::Nack { .. })))[0];
    // (An expected record is reported under its own first check, here SND-NACK-004.)
    assert!(!musts(&r.judge(&r.without(nack))).is_empty(), "a Nack report left out");
    let again = r.observed[nack].clone();
    assert_eq!(musts(&r.judge(&r.with_after(nack, again))), ["REC-IF-004"], "twice");
    // EvMarked and ProbeAnswered.
    for (name, id, pick) in [
        (
            "snd-ev-skip",
            "REC-IF-005",
            (|r: &NicReport| matches!(r, NicReport::EvMarked { .. })) as fn(&NicReport) -> bool,
        ),
        ("snd-ev-always-skip", "REC-IF-007", |r: &NicReport| {
            matches!(r, NicReport::ProbeAnswered { .. })
        }),
    ] {
        let r = Run::of(name);
        let k = r.events(|e| is_report(e, pick))[0];
        assert!(!musts(&r.judge(&r.without(k))).is_empty(), "{name}: a report left out");
        let again = r.observed[k].clone();
        assert_eq!(musts(&r.judge(&r.with_after(k, again))), [id], "{name}: twice");
    }
    // A QP error, and its cause.
    let r = Run::of("ret-retry-exceeded");
    let err = r.events(|e| is_report(e, |r| matches!(r, NicReport::QpError { .. })))[0];
    assert!(!musts(&r.judge(&r.without(err))).is_empty(), "a QP error left out");
    let o = r.edit_event(err, |e| {
        if let NicEvent::Report(NicReport::QpError { requirement, .. }) = e {
            *requirement = "SND-NACK-005".into();
        }
    });
    assert_names(&r.judge(&o), "REC-IF-009", "another cause");
    // Retransmitted: one per retransmission, its cause and lost EV not compared.
    let r = Run::of("snd-single-loss");
    let k = r.events(|e| is_report(e, |r| matches!(r, NicReport::Retransmitted { .. })))[0];
    assert_eq!(musts(&r.judge(&r.without(k))), ["REC-IF-008"], "a Retransmitted left out");
    let again = r.observed[k].clone();
    assert_eq!(musts(&r.judge(&r.with_after(k, again))), ["REC-IF-008"], "twice");
    let o = r.edit_event(k, |e| {
        if let NicEvent::Report(NicReport::Retransmitted { cause, lost_ev, .. }) = e {
            *cause = RetransmitCause::Timeout;
            *lost_ev = Some(0xDEAD_0000);
        }
    });
    assert_eq!(r.judge(&o), vec![], "the cause and lost EV of a Retransmitted");
    // Progress, Armed and EvState are the device's own timing: none, or more, is fine.
    let mut o: Vec<TimedOutput> = r
        .observed
        .iter()
        .filter(|o| !matches!(&o.output, Output::Event { event } if is_report(event, |r| matches!(r, NicReport::Progress { .. } | NicReport::Armed { .. } | NicReport::EvState { .. }))))
        .cloned()
        .collect();
    assert!(o.len() < r.observed.len(), "the run has Progress or Armed reports");
    let qpn = Qpn::new(openrdma_conformance::corpus::DUT_QP);
    let at = o[o.len() / 2].at;
    let extra = [
        NicReport::Progress { qpn, snd_una: Psn::new(0), outstanding: 3, awaiting_ack: 1 },
        NicReport::Armed { qpn, snd_una: Psn::new(1) },
        NicReport::EvState { qpn, ev: 7, state: openrdma_sm::EvState::Denied },
    ];
    for e in extra {
        o.push(TimedOutput { at, output: Output::Event { event: NicEvent::Report(e) } });
    }
    o.sort_by_key(|x| x.at);
    assert_eq!(r.judge(&o), vec![], "Progress, Armed and EvState reports");
}

// ---- CONF-CMP-013 -----------------------------------------------------------------------

/// CONF-CMP-013, its first clause: divergences come ordered by time. (Which of them a
/// report shows first is in `tests/report.rs`.)
#[test]
fn conf_cmp_013_divergences_are_ordered_by_time() {
    let r = Run::of("rcv-in-order-v4");
    let mut o = r.observed.clone();
    // Break things late first, then early.
    let flags = r.events(is_responder_flag);
    o.remove(*flags.last().unwrap());
    let ack = r.frame(opcode_is(Opcode::MRC_ACKNOWLEDGE));
    o.remove(ack);
    let dup = r.observed[r.frame(is_data_or_sack)].clone();
    o.insert(0, TimedOutput { at: Timestamp(0), ..dup });
    let d = r.judge(&o);
    assert!(d.len() >= 3, "{d:#?}");
    assert!(d.windows(2).all(|w| w[0].at <= w[1].at), "{d:#?}");
}

fn is_data_or_sack(d: &DecodedFrame<'_>) -> bool {
    d.ext.seth.is_some()
}

// ---- CONF-CMP-012 -----------------------------------------------------------------------

/// CONF-CMP-012: a device is judged on the outputs of the capabilities it claims only:
/// without `retirement`, neither its flags, completions and transport ACKs nor their
/// absence count; without `cpu-split`, none of its reports but a QP error.
#[test]
fn conf_cmp_012_only_what_a_device_claims_is_judged() {
    let r = Run::of("rcv-in-order-v4");
    let no_retirement = Scope { retirement: false, cpu_split: true };
    let bare: Vec<TimedOutput> = r
        .observed
        .iter()
        .filter(|o| match &o.output {
            Output::Event { event } => {
                !matches!(event, NicEvent::FlagWrite(_) | NicEvent::Completion(_))
            }
            Output::Frame { bytes, .. } => !opcode_is(Opcode::MRC_ACKNOWLEDGE)(&decode(bytes)),
        })
        .cloned()
        .collect();
    assert!(bare.len() < r.observed.len());
    assert_eq!(judge_in(&r.s, &r.injected, &bare, no_retirement).divergences, vec![]);
    assert!(!judge(&r.s, &r.injected, &bare).divergences.is_empty(), "in full scope");
    // Extra flags are not held against it either.
    let flag = r.events(is_responder_flag)[0];
    let extra = r.with_after(flag, r.observed[flag].clone());
    assert_eq!(judge_in(&r.s, &r.injected, &extra, no_retirement).divergences, vec![]);
    assert!(!judge(&r.s, &r.injected, &extra).divergences.is_empty());
    // Without cpu-split: reports are not judged, a QP error still is.
    let no_split = Scope { retirement: true, cpu_split: false };
    let e = Run::of("ret-retry-exceeded");
    let reports: Vec<TimedOutput> = e
        .observed
        .iter()
        .filter(|o| !matches!(&o.output, Output::Event { event: NicEvent::Report(r) } if !matches!(r, NicReport::QpError { .. })))
        .cloned()
        .collect();
    assert!(reports.len() < e.observed.len());
    assert_eq!(judge_in(&e.s, &e.injected, &reports, no_split).divergences, vec![]);
    assert!(!judge(&e.s, &e.injected, &reports).divergences.is_empty(), "in full scope");
    let err = e.events(|x| is_report(x, |r| matches!(r, NicReport::QpError { .. })))[0];
    let d = judge_in(&e.s, &e.injected, &e.without(err), no_split).divergences;
    assert!(!musts(&d).is_empty(), "a QP error left out, without cpu-split");
    let _ = Capability::Retirement;
}

// ---- CONF-TIME-003 and CONF-TIME-002 ----------------------------------------------------

/// The outputs with output `k` moved by `by` ns, in time order again.
fn moved(o: &[TimedOutput], k: usize, by: i64) -> Vec<TimedOutput> {
    let mut o = o.to_vec();
    o[k].at = Timestamp(o[k].at.0.checked_add_signed(by).unwrap());
    o.sort_by_key(|x| x.at);
    o
}

/// CONF-TIME-003: an output that meets an expected data packet, NACK, ACK or probe comes
/// within `[expected − early_ns, expected + late_ns]`; a retransmission may come any time
/// earlier.
#[test]
fn conf_time_003_packets_come_within_the_tolerances() {
    let r = Run::of("rcv-in-order-v4");
    let (early, late) =
        (r.s.manifest.tolerances.early_ns as i64, r.s.manifest.tolerances.late_ns as i64);
    let ack = *r.frames(opcode_is(Opcode::MRC_ACKNOWLEDGE)).last().unwrap();
    assert!(r.observed[ack].at.0 as i64 > early, "an ACK later than early_ns");
    assert_eq!(r.judge(&moved(&r.observed, ack, late)), vec![], "late by late_ns");
    assert!(!musts(&r.judge(&moved(&r.observed, ack, late + 1))).is_empty(), "later");
    assert_eq!(r.judge(&moved(&r.observed, ack, -early)), vec![], "early by early_ns");
    assert!(!musts(&r.judge(&moved(&r.observed, ack, -early - 1))).is_empty(), "earlier");
    let s = Run::of("snd-segmentation");
    let late_s = s.s.manifest.tolerances.late_ns as i64;
    let data = *s.frames(is_data).last().unwrap();
    assert!(!musts(&s.judge(&moved(&s.observed, data, late_s + 1))).is_empty(), "data too late");
    // A retransmission far earlier than the reference's is no fault; a late one is.
    let l = Run::of("snd-timeout-loss");
    let late_l = l.s.manifest.tolerances.late_ns as i64;
    let rtx = l.frame(|d| is_data(d) && d.bth.is_some_and(|b| b.rtx));
    let lost = decode(l.bytes(rtx)).bth.unwrap();
    let first = l.frame(|d| is_data(d) && d.bth.is_some_and(|b| !b.rtx && b.psn == lost.psn));
    // The retransmission and its report, just after the lost transmission.
    let report = l.events(|e| is_report(e, |r| matches!(r, NicReport::Retransmitted { .. })))[0];
    let soon = Timestamp(l.observed[first].at.0 + 1_000);
    let mut o = l.observed.clone();
    o[rtx].at = soon;
    o[report].at = soon;
    o.sort_by_key(|x| x.at);
    let early_l = l.s.manifest.tolerances.early_ns;
    assert!(l.observed[rtx].at.0 - soon.0 > early_l, "earlier than early_ns allows for others");
    assert_eq!(l.judge(&o), vec![], "a retransmission sooner than the reference's");
    let rtx3 = l.frame(|d| is_data(d) && d.bth.is_some_and(|b| b.rtx));
    assert!(!musts(&l.judge(&moved(&l.observed, rtx3, late_l + 1))).is_empty(), "a late one");
}

/// CONF-TIME-002: each expected flag write and completion entry comes no later than its
/// time plus `late_ns`; earlier is not a divergence.
#[test]
fn conf_time_002_flags_and_completions_come_no_later_than_late_ns() {
    let r = Run::of("rcv-in-order-v4");
    let late = r.s.manifest.tolerances.late_ns as i64;
    let flag = *r.events(is_responder_flag).last().unwrap();
    assert_eq!(r.judge(&moved(&r.observed, flag, late)), vec![], "late by late_ns");
    let d = r.judge(&moved(&r.observed, flag, late + 1));
    assert!(d.iter().any(|d| d.what.contains("CONF-TIME-002")), "{d:#?}");
    let rx = *r.events(|e| matches!(e, NicEvent::Completion(_))).last().unwrap();
    let d = r.judge(&moved(&r.observed, rx, late + 1));
    assert!(!musts(&d).is_empty(), "a completion too late");
    // Earlier, but still after its data.
    let mut o = r.observed.clone();
    let before = o[flag - 1].at;
    o[flag].at = before;
    assert_eq!(r.judge(&o), vec![], "a flag sooner than the reference's");
}
