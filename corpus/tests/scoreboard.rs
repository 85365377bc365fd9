//! The comparison rules of the scoreboard (`spec/conformance.md`, section 6, `CONF-CMP-*`
//! and `CONF-TIME-*`), each held to its sentence: a run of the reference device, which
//! passes, is changed in one way at a time — a field of a frame, an output moved, added or
//! left out — and judged again. What the specification fixes must then diverge, under the
//! requirement the rule names; what it leaves to the device must not.

mod common;

use common::*;
use openrdma_codec::frame::{DecodedFrame, FrameRepr, IpRepr, decode};
use openrdma_codec::host::CompletionRepr;
use openrdma_codec::{AethMsn, Ev, Msn, Rkey, Rqmsn};
use openrdma_codec::{EthernetAddress, EvMark, Opcode, Psn, Qpn};
use openrdma_conformance::scoreboard::{Divergence, Scope, judge, judge_in};
use openrdma_device::{
    Body, Capability, CpuCommand, CqId, Direction, HostCommand, Input, NicEvent, NicReport, Output,
    RetransmitCause, Scenario, Side, SprayPolicy, TimedInput, TimedOutput, Timestamp,
};

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
    fn other_ev(&self, ev: Ev, k: usize) -> Ev {
        let profile: Vec<Ev> = self
            .s
            .records
            .iter()
            .find_map(|r| match &r.body {
                openrdma_device::Body::Host {
                    command: openrdma_device::HostCommand::CreateQp(q),
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
            // A TSETH left out whole, its `ts` bit agreeing: the sender's choice not to
            // timestamp (SND-TS-002), not a header its bit denies.
            "TSETH present",
            Some("SND-TS-002"),
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
        (
            "METH msn",
            None,
            Box::new(|f| {
                let m = f.ext.meth.as_mut().unwrap();
                m.msn = Msn::new(m.msn.value() ^ 1);
            }),
        ),
        (
            "METH rqmsn",
            None,
            Box::new(|f| {
                let m = f.ext.meth.as_mut().unwrap();
                m.rqmsn = Rqmsn::new(m.rqmsn.value() ^ 1);
            }),
        ),
        ("RETH va", Some("SND-SEG-003"), Box::new(|f| f.ext.reth.as_mut().unwrap().va += 4)),
        (
            "RETH rkey",
            Some("SND-SEG-003"),
            Box::new(|f| {
                let r = f.ext.reth.as_mut().unwrap();
                r.rkey = Rkey::new(r.rkey.value() ^ 1);
            }),
        ),
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
    let d = v.judge(&v.edit(ack, |f| f.vlans[0].vid ^= 1));
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
            // A retransmission's report names the EV its PSN last left on (CONF-CMP-075.c):
            // it follows the data packets' EVs, moved below.
            if let Output::Event {
                event: NicEvent::Report(NicReport::Retransmitted { lost_ev: Some(ev), .. }),
            } = &mut out.output
            {
                *ev = r.other_ev(*ev, 3);
                continue;
            }
            let Output::Frame { bytes, .. } = &mut out.output else { continue };
            let d = decode(bytes);
            if !is_data(&d) && d.ext.seth.is_none() {
                // Acknowledgements: the device's choice of the other IP fields only; their
                // EV is judged against the packet they answer (CONF-CMP-045).
                *bytes = edit_frame(r.bytes(k), |f| {
                    match &mut f.ip {
                        IpRepr::V4(v4) => {
                            v4.ttl = 117;
                            v4.ident = 0x1234;
                        }
                        IpRepr::V6(v6) => v6.hop_limit = 117,
                    }
                    // A probe reads the data packets' clock (EV-PROBE-005), moved below.
                    if let Some(p) = f.ext.peth.as_mut() {
                        p.tx_timestamp = p.tx_timestamp.wrapping_add(0x0F0F);
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
                // Another clock: its start, not its direction, differs.
                if let Some(t) = f.ext.tseth.as_mut() {
                    t.tx_timestamp = t.tx_timestamp.wrapping_add(0x0F0F);
                }
                match &mut f.ip {
                    IpRepr::V4(v4) => {
                        v4.ttl = 255;
                        v4.ident = 0x4321;
                        v4.dscp = 10;
                    }
                    IpRepr::V6(v6) => {
                        v6.hop_limit = 255;
                        v6.traffic_class = 0x28 | (v6.traffic_class & 0b11);
                    }
                }
                f.finalize().unwrap();
            });
        }
        assert_eq!(r.judge(&o), vec![], "{name}: the device's own choices were compared");
    }
}

// ---- CONF-CMP-036 -----------------------------------------------------------------------

/// CONF-CMP-036: a QP's data packets and probes carry stamps of one clock, judged over every
/// two sent less than 2^15 ns apart: a probe stamped behind a data packet sent shortly before
/// it is a clock that ran backwards (EV-PROBE-005.f), and the same probe unchanged is not.
#[test]
fn conf_cmp_036_a_probe_reads_the_data_packets_clock() {
    let r = Run::of("snd-dark-path-v6");
    let probes = r.frames(|d| d.ext.peth.is_some());
    let data = r.frames(|d| d.ext.tseth.is_some());
    let near =
        |p: usize| data.iter().any(|&x| x < p && r.observed[p].at.0 - r.observed[x].at.0 < 1 << 15);
    let k = *probes.iter().find(|&&p| near(p)).expect("a probe soon after a data packet");
    let o = r.edit(k, |f| {
        if let Some(p) = f.ext.peth.as_mut() {
            p.tx_timestamp = p.tx_timestamp.wrapping_sub(0x4000);
        }
        f.finalize().unwrap();
    });
    assert_names(&r.judge(&o), "EV-PROBE-005", "a probe stamped behind the data packets");
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
    let d = r.judge(&r.edit(rtx, |f| f.set_entropy(Ev::new(lost_ev.value() ^ 0x0001_0000))));
    assert_eq!(d, vec![], "another EV");
}

// ---- CONF-CMP-048 ------------------------------------------------------------------------

/// CONF-CMP-048: under `spray-policies` a data packet or probe on another EV than its
/// record's diverges under the requirement of its QP's policy; the record's own list of
/// requirements names no divergence.
#[test]
fn conf_cmp_047_each_ev_is_the_one_the_policy_gives() {
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
    // A packet at 21.64 us whose record checks SND-SPRAY-006 first: the policy's rule.
    let r = Run::of("snd-spray-window-fit");
    assert_eq!(moved(&r, sent_at(&r, 21_640, &fresh), 1), "SND-SPRAY-005", "at 21.64 us");
    // The probe at 5 us: the probe rule of the policy; the packets at 60 us (their records
    // check SND-SPRAY-010 first) and the retransmissions at 62 us: SND-SPRAY-005.
    let r = Run::of("snd-spray-window-fit-probe-rtt");
    let probe = r.frame(opcode_is(Opcode::MRC_PROBE));
    assert_eq!(moved(&r, probe, 1), "SND-SPRAY-009", "the probe");
    assert_eq!(moved(&r, sent_at(&r, 60_000, &fresh), 1), "SND-SPRAY-005", "at 60 us");
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
    let qpn = Qpn::new(openrdma_corpus::DUT_QP);
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
    // Its report then gives a cause no input gave yet (CONF-CMP-075.a).
    let before = r.judge_with(&injected, &o);
    assert_eq!(musts(&before), ["SND-RTX-004", "REC-IF-008"], "before the command");
}

// ---- CONF-CMP-037 -----------------------------------------------------------------------

/// CONF-CMP-037: NACKs are matched by (QP, `nack_psn`) and compared in their reason,
/// transport ACKs by (QP, MSN, and ACK of any credit code or the exact NAK syndrome), probes
/// by QP; an unmatched one is a divergence, but an ACK may repeat an MSN the scenario
/// acknowledges. The BTH PSN of an ACK and its credit code are SHOULDs: a difference is
/// non-strict; the BTH PSN of a NACK is a MUST (RCV-NACK-001.g, OPC-PSN-002.a).
#[test]
fn conf_cmp_037_nacks_acks_and_probes() {
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
    assert_eq!(musts(&d), ["RCV-NACK-001"], "the PSN of a NACK");
    assert_eq!(d[0].clause, Some(openrdma_conformance::req::RCV_NACK_001_G), "{d:?}");

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
            bytes: edit_frame(r.bytes(ack), |f| {
                let a = f.ext.aeth.as_mut().unwrap();
                a.msn = AethMsn::new(a.msn.value() + 40);
            }),
        },
        ..r.observed[ack].clone()
    };
    assert_eq!(musts(&r.judge(&r.with_after(ack, unknown))), ["RCV-ACK-002"]);
    // The BTH PSN of an ACK is a SHOULD (OPC-PSN-002.b): any other value, epsn - 1 or 0,
    // is non-strict; the expected one with its bytes in the other order breaks the BTH
    // layout, a MUST.
    let psn = decode(r.bytes(ack)).bth.unwrap().psn;
    for other in [psn.add(3), Psn::ZERO, Psn::new(0xFF_FFFF)].into_iter().filter(|&p| p != psn) {
        let d = r.judge(&r.edit(ack, |f| f.bth.psn = other));
        assert_eq!(musts(&d), Vec::<&str>::new(), "the PSN of an ACK: {other:?}");
        assert!(d.iter().any(|d| d.should_only && d.requirement == "OPC-PSN-002"), "{d:?}");
    }
    let swapped = Psn::new(psn.value().swap_bytes() >> 8);
    if swapped != psn {
        let d = r.judge(&r.edit(ack, |f| f.bth.psn = swapped));
        assert_names(&d, "BTH-LAYOUT-001", "the PSN of an ACK in the other byte order");
    }

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

// ---- CONF-CMP-045 and CONF-CMP-007 ------------------------------------------------------

/// CONF-CMP-045: every SACK is judged by what it says against what the device had
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
        ("SETH-BITMAP-001", k, Box::new(|f| f.ext.seth.as_mut().unwrap().sack_bitmap |= 1 << 20)),
        ("SETH-BITMAP-002", k, Box::new(|f| f.ext.seth.as_mut().unwrap().sack_bitmap |= 1)),
        ("RCV-SACK-005", k, Box::new(|f| f.ext.seth.as_mut().unwrap().mpr ^= 2)),
        ("SETH-RESV-001", k, Box::new(|f| f.ext.seth.as_mut().unwrap().resv12 = 1)),
        ("CCS-RESV-001", k, Box::new(|f| f.ext.cc_state.as_mut().unwrap().resv = true)),
        ("SETH-M-001", k, Box::new(|f| f.ext.seth.as_mut().unwrap().m = EvMark(3))),
        ("SETH-ACKPSN-003", k, Box::new(|f| f.ext.seth.as_mut().unwrap().ack_psn_offset += 30)),
        (
            "SETH-EV-001",
            k,
            Box::new(|f| {
                let s = f.ext.seth.as_mut().unwrap();
                s.entropy = Ev::new(s.entropy.value() ^ 0x0001_0000);
            }),
        ),
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
    // The BTH PSN of a SACK is its cack_psn, a MUST (RCV-SACK-005.i, OPC-PSN-002.a).
    let d = r.judge(&r.edit(k, |f| f.bth.psn = f.bth.psn.add(1)));
    assert_eq!(musts(&d), ["RCV-SACK-005"]);
    assert_eq!(d[0].clause, Some(openrdma_conformance::req::RCV_SACK_005_I), "{d:?}");
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

// ---- CONF-CMP-034 -----------------------------------------------------------------------

fn is_dma(e: &NicEvent) -> bool {
    matches!(e, NicEvent::DmaWrite(_))
}

fn is_responder_flag(e: &NicEvent) -> bool {
    matches!(e, NicEvent::FlagWrite(f) if f.side == Side::Responder)
}

/// CONF-CMP-034: placement is judged by bytes, in any order; each expected byte must land and
/// no other; an expected write after its message's flag is a flag before its data
/// (FLAG-ORDER-001), an unexpected one a write after the flag (FLAG-LAST-001).
#[test]
fn conf_cmp_034_dma_bytes_land_in_any_order_before_their_flag() {
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
    assert_eq!(musts(&r.judge(&r.with_after(dmas[0], extra))), ["RCV-PLACE-003"]);
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

/// CONF-CMP-009: flag writes and completions are four sequences, paired by identity and
/// compared field by field (flags decoded), without the completion's timestamp.
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
    // Decoded: the lowest bit of the word is byte_len's, a retirement flag's bytes placed
    // (FLAG-RECV-002.c).
    assert_eq!(musts(&r.judge(&o)), ["FLAG-RECV-002"], "a flag's value");
    let mut o = o;
    if let Output::Event { event: NicEvent::FlagWrite(f) } = &mut o[flags[1]].output {
        f.value ^= 1;
    }
    // Each flag is paired by its identity and judged on its own.
    assert_eq!(musts(&r.judge(&o)), ["FLAG-RECV-002", "FLAG-RECV-002"], "two wrong flags");
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
    assert_eq!(musts(&r.judge(&o)), ["CQE-RECV-001"], "a completion's immediate");

    let s = Run::of("snd-segmentation");
    let tx = s.events(|e| matches!(e, NicEvent::Completion(c) if c.side == Side::Requester));
    let o = s.edit_event(tx[0], |e| {
        if let NicEvent::Completion(c) = e {
            c.entry.wr_id ^= 1;
        }
    });
    assert_eq!(musts(&s.judge(&o)), ["CQE-SEND-001"], "a requester completion's wr_id");
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
    // Retransmitted: one per retransmission, its cause and lost EV judged by truth
    // (CONF-CMP-075).
    let r = Run::of("snd-single-loss");
    let k = r.events(|e| is_report(e, |r| matches!(r, NicReport::Retransmitted { .. })))[0];
    assert_eq!(musts(&r.judge(&r.without(k))), ["REC-IF-008"], "a Retransmitted left out");
    let again = r.observed[k].clone();
    assert_eq!(musts(&r.judge(&r.with_after(k, again))), ["REC-IF-008"], "twice");
    let o = r.edit_event(k, |e| {
        if let NicEvent::Report(NicReport::Retransmitted { cause, lost_ev, .. }) = e {
            *cause = RetransmitCause::Timeout;
            *lost_ev = Some(Ev::new(0xDEAD_0000));
        }
    });
    assert_names(&r.judge(&o), "REC-IF-008", "the cause and lost EV of a Retransmitted");
    // A SACK that advances snd_una makes a Progress due (CONF-CMP-100): none is a
    // divergence, named REC-IF-002.
    let no_progress: Vec<TimedOutput> = r
        .observed
        .iter()
        .filter(|o| !matches!(&o.output, Output::Event { event } if is_report(event, |r| matches!(r, NicReport::Progress { .. }))))
        .cloned()
        .collect();
    assert!(no_progress.len() < r.observed.len(), "the run has Progress reports");
    let d = r.judge(&no_progress);
    assert!(!d.is_empty(), "a run without its Progress reports passes");
    assert!(d.iter().all(|x| x.requirement == "REC-IF-002"), "{d:?}");
    // Armed and EvState are the device's own timing: none, or more, is fine; so is a
    // Progress more.
    let mut o: Vec<TimedOutput> = r
        .observed
        .iter()
        .filter(|o| !matches!(&o.output, Output::Event { event } if is_report(event, |r| matches!(r, NicReport::Armed { .. } | NicReport::EvState { .. }))))
        .cloned()
        .collect();
    assert!(o.len() < r.observed.len(), "the run has Armed or EvState reports");
    let qpn = Qpn::new(openrdma_corpus::DUT_QP);
    let at = o[o.len() / 2].at;
    // An EV of the QP's profile: one outside it has no state to report (REC-IF-016).
    let profile_ev =
        r.s.records
            .iter()
            .find_map(|x| match &x.body {
                openrdma_device::Body::Host {
                    command: openrdma_device::HostCommand::CreateQp(q),
                } if q.qpn == qpn => q.evs.first().copied(),
                _ => None,
            })
            .expect("the QP has an EV");
    // The QP's last Progress by then, given once more at its own time (a repeat, which no
    // input needs, CONF-CMP-051); an Armed and an EvState with its snd_una.
    let (last_at, last) = o
        .iter()
        .filter(|x| x.at <= at)
        .rev()
        .find_map(|x| match &x.output {
            Output::Event { event: NicEvent::Report(p @ NicReport::Progress { .. }) } => {
                Some((x.at, p.clone()))
            }
            _ => None,
        })
        .expect("a Progress by the middle of the run");
    let NicReport::Progress { snd_una, .. } = last else { unreachable!() };
    let extra = [
        (last_at, last),
        (at, NicReport::Armed { qpn, snd_una }),
        (at, NicReport::EvState { qpn, ev: profile_ev, state: openrdma_device::EvState::Denied }),
    ];
    for (at, e) in extra {
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
    let no_retirement = Scope { retirement: false, ..Scope::FULL };
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
    let no_split = Scope { cpu_split: false, ..Scope::FULL };
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

// ---- CONF-TIME-005 and CONF-TIME-006 ----------------------------------------------------

/// The outputs with output `k` moved by `by` ns, in time order again.
fn moved(o: &[TimedOutput], k: usize, by: i64) -> Vec<TimedOutput> {
    let mut o = o.to_vec();
    o[k].at = Timestamp(o[k].at.0.checked_add_signed(by).unwrap());
    o.sort_by_key(|x| x.at);
    o
}

/// CONF-TIME-005: an output that meets an expected data packet, NACK, ACK or probe comes
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
    // A CPU half that times out sooner commands it sooner: the command moves with it, since
    // a report of cause timeout needs one (CONF-CMP-075.a).
    let soon = Timestamp(l.observed[first].at.0 + 1_000);
    // It reads the QP's clock sooner too: its stamp is the one the clock showed then, at
    // the rate the two transmissions' stamps give (CONF-CMP-095 holds every stamp to it).
    let stamp =
        |k: usize| decode(l.bytes(k)).ext.tseth.expect("a stamped data packet").tx_timestamp;
    let (s0, s1) = (stamp(first), stamp(rtx));
    let (t0, t1) = (l.observed[first].at.0, l.observed[rtx].at.0);
    let read = s0.wrapping_add((u64::from(s1.wrapping_sub(s0)) * (soon.0 - t0) / (t1 - t0)) as u16);
    let mut o = l.edit(rtx, |f| {
        f.ext.tseth.as_mut().expect("a stamped data packet").tx_timestamp = read;
        f.finalize().unwrap();
    });
    o[rtx].at = soon;
    o[report].at = soon;
    o.sort_by_key(|x| x.at);
    let mut injected = l.injected.clone();
    let command = injected
        .iter()
        .position(|i| matches!(i.input, Input::Cpu { command: CpuCommand::Retransmit { .. } }))
        .expect("the scenario commands the retransmission");
    injected[command].at = soon;
    injected.sort_by_key(|i| i.at);
    let early_l = l.s.manifest.tolerances.early_ns;
    assert!(l.observed[rtx].at.0 - soon.0 > early_l, "earlier than early_ns allows for others");
    assert_eq!(l.judge_with(&injected, &o), vec![], "a retransmission sooner than the reference's");
    let rtx3 = l.frame(|d| is_data(d) && d.bth.is_some_and(|b| b.rtx));
    assert!(!musts(&l.judge(&moved(&l.observed, rtx3, late_l + 1))).is_empty(), "a late one");
}

/// CONF-TIME-006: each expected flag write and completion entry comes no later than its
/// time plus `late_ns`; earlier is not a divergence.
#[test]
fn conf_time_002_flags_and_completions_come_no_later_than_late_ns() {
    let r = Run::of("rcv-in-order-v4");
    let late = r.s.manifest.tolerances.late_ns as i64;
    let flag = *r.events(is_responder_flag).last().unwrap();
    assert_eq!(r.judge(&moved(&r.observed, flag, late)), vec![], "late by late_ns");
    let d = r.judge(&moved(&r.observed, flag, late + 1));
    assert!(d.iter().any(|d| d.what.contains("CONF-TIME-006")), "{d:#?}");
    let rx = *r.events(|e| matches!(e, NicEvent::Completion(_))).last().unwrap();
    let d = r.judge(&moved(&r.observed, rx, late + 1));
    assert!(!musts(&d).is_empty(), "a completion too late");
    // Earlier, but still after its data.
    let mut o = r.observed.clone();
    let before = o[flag - 1].at;
    o[flag].at = before;
    assert_eq!(r.judge(&o), vec![], "a flag sooner than the reference's");
}

// ---- CONF-CMP-021 -----------------------------------------------------------------------

/// The indices of the completions written to a queue.
fn queued(r: &Run) -> Vec<usize> {
    r.events(|e| matches!(e, NicEvent::Completion(c) if c.queue.is_some()))
}

/// The outputs with the 32 bytes of completion `k` edited, as a device would have written
/// them; the event's decoded `entry` is left as it was.
fn edit_entry_bytes(r: &Run, k: usize, f: impl FnOnce(&mut [u8; 32])) -> Vec<TimedOutput> {
    r.edit_event(k, |e| {
        if let NicEvent::Completion(c) = e {
            f(&mut c.queue.as_mut().expect("a queued entry").bytes);
        }
    })
}

/// The outputs with a field of the entry in completion `k`'s bytes changed.
fn edit_entry(r: &Run, k: usize, f: impl FnOnce(&mut CompletionRepr)) -> Vec<TimedOutput> {
    edit_entry_bytes(r, k, |b| {
        let mut e = CompletionRepr::parse(b).expect("32 bytes decode");
        f(&mut e);
        e.emit(b).expect("32 bytes");
    })
}

/// CONF-CMP-021: every entry a device writes to a queue is judged from its 32 bytes, on its
/// own whatever the scenario expects, and as a write to its queue — its alignment, the
/// consumer's releases, its queue, slot, address and phase — each difference under the
/// requirement the sentence gives it; a timestamp that disagrees with the time between two
/// writes makes the verdict non-strict only.
#[test]
fn conf_cmp_021_every_completion_entry_is_judged_as_a_write_to_its_queue() {
    let mut r = Run::of("ret-cq-wrap");
    r.s.records.iter_mut().for_each(|x| x.checks.clear());
    let entries = queued(&r);
    assert!(entries.len() >= 3, "the scenario wraps its ring");
    let k = entries[0];

    // Judged from the bytes (CONF-ADP-017): the decoded `entry` beside them is not.
    let o = r.edit_event(k, |e| {
        if let NicEvent::Completion(c) = e {
            c.entry.byte_len ^= 0x40;
            c.entry.wr_id ^= 1;
        }
    });
    assert_eq!(r.judge(&o), vec![], "a decoded entry that its bytes contradict");
    let d = r.judge(&edit_entry(&r, k, |e| e.byte_len ^= 0x40));
    assert!(!musts(&d).is_empty(), "a byte length written wrong");

    // On its own, whatever the scenario expects: a reserved byte set in the device's entry
    // and in the scenario's alike still breaks CQE-RESV-001.
    let o = edit_entry_bytes(&r, k, |b| b[30] = 1);
    assert_names(&r.judge(&o), "CQE-RESV-001", "reserved byte 30");
    let mut s = r.s.clone();
    let want = s
        .records
        .iter_mut()
        .find(|x| {
            x.dir == Direction::Expect
                && matches!(&x.body, Body::Event { event: NicEvent::Completion(c) } if c.queue.is_some())
        })
        .expect("an expected entry in a queue");
    let Body::Event { event: NicEvent::Completion(c) } = &mut want.body else { unreachable!() };
    c.queue.as_mut().unwrap().bytes[30] = 1;
    let d = judge(&s, &r.injected, &o).divergences;
    assert_eq!(musts(&d), ["CQE-RESV-001"], "the scenario expects the same reserved byte");

    // At a multiple of 32 (CQE-RING-003).
    let o = r.edit_event(k, |e| {
        if let NicEvent::Completion(c) = e {
            c.queue.as_mut().unwrap().addr += 8;
        }
    });
    assert_names(&r.judge(&o), "CQE-RING-003", "an entry off its 32-byte boundary");

    // Never over an entry the consumer had not released (CQE-RING-004): the same writes,
    // judged against a scenario whose consumer writes release nothing.
    let mut s = r.s.clone();
    for x in &mut s.records {
        if let Body::Host { command: HostCommand::CqConsumer { consumed, .. } } = &mut x.body {
            *consumed = 0;
        }
    }
    let d = judge(&s, &r.injected, &r.observed).divergences;
    assert_names(&d, "CQE-RING-004", "a wrap over unreleased entries");

    // Queue, slot, address and phase, compared in the sequence (CQE-ROUTE-001,
    // CQE-RING-001).
    type Edit = Box<dyn Fn(&mut openrdma_device::CompletionEvent)>;
    let cases: Vec<(&str, &str, Edit)> = vec![
        (
            "queue",
            "CQE-ROUTE-001",
            Box::new(|c| {
                let q = c.queue.as_mut().unwrap();
                q.cq = CqId::new(q.cq.value() + 1);
            }),
        ),
        ("slot", "CQE-RING-001", Box::new(|c| c.queue.as_mut().unwrap().slot ^= 1)),
        ("address", "CQE-RING-001", Box::new(|c| c.queue.as_mut().unwrap().addr += 32)),
        ("phase", "CQE-RING-001", Box::new(|c| c.queue.as_mut().unwrap().bytes[31] ^= 1)),
    ];
    for (what, id, f) in &cases {
        let o = r.edit_event(k, |e| {
            if let NicEvent::Completion(c) = e {
                f(c)
            }
        });
        assert_names(&r.judge(&o), id, what);
    }

    // Bytes 0 to 30 still the slot's previous contents, byte 31 new (CQE-RING-003): the
    // first entry of a slot over zeros, and an entry of the second pass over the first's.
    let slot_of = |k: usize| match r.event(k) {
        NicEvent::Completion(c) => c.queue.map(|q| (q.cq, q.slot, q.bytes)).unwrap(),
        _ => unreachable!(),
    };
    let o = edit_entry_bytes(&r, k, |b| b[..31].fill(0));
    assert_names(&r.judge(&o), "CQE-RING-003", "a first entry torn over zeros");
    let (cq, slot, first) = slot_of(k);
    let again = *entries
        .iter()
        .skip(1)
        .find(|&&j| {
            let (c, s, _) = slot_of(j);
            (c, s) == (cq, slot)
        })
        .expect("the ring wraps to slot 0");
    let o = edit_entry_bytes(&r, again, |b| b[..31].copy_from_slice(&first[..31]));
    assert_names(&r.judge(&o), "CQE-RING-003", "a second-pass entry torn over the first");

    // A multi-byte field in reverse byte order (CQE-LAYOUT-001).
    let d = r.judge(&edit_entry(&r, k, |e| e.byte_len = e.byte_len.swap_bytes()));
    assert_names(&d, "CQE-LAYOUT-001", "a big-endian byte length");

    // Timestamps that disagree with the time between the writes: non-strict, not failed.
    let stamped = entries
        .iter()
        .copied()
        .filter(
            |&j| matches!(r.event(j), NicEvent::Completion(c) if c.written_entry().has_timestamp),
        )
        .nth(1)
        .expect("two stamped entries");
    let late = r.s.manifest.tolerances.late_ns as u32;
    let d = r.judge(&edit_entry(&r, stamped, |e| e.timestamp = e.timestamp.wrapping_add(late + 1)));
    assert_eq!(musts(&d), Vec::<&str>::new(), "a timestamp is a SHOULD: {d:#?}");
    assert!(d.iter().any(|d| d.should_only && d.requirement == "CQE-TS-001"), "{d:#?}");
    let d = r.judge(&edit_entry(&r, stamped, |e| e.timestamp = e.timestamp.wrapping_add(late)));
    assert_eq!(d, vec![], "a timestamp within late_ns");

    // A rejected token's entry in another queue than its own: CQE-REJECT-002.
    let mut q = Run::of("db-reject-queues");
    q.s.records.iter_mut().for_each(|x| x.checks.clear());
    let rejected = q.events(|e| {
        matches!(e, NicEvent::Completion(c) if c.queue.is_some() && c.written_entry().status.is_doorbell_reject())
    })[0];
    let o = q.edit_event(rejected, |e| {
        if let NicEvent::Completion(c) = e {
            let q = c.queue.as_mut().unwrap();
            q.cq = CqId::new(q.cq.value() ^ 3);
        }
    });
    assert_names(&q.judge(&o), "CQE-REJECT-002", "a rejection in another queue");
}

// ---- CONF-CMP-022 -----------------------------------------------------------------------

/// The outputs with output `from` moved to just after output `after`, at that output's
/// time (or its own, if later), so that only the order changes.
fn moved_after(o: &[TimedOutput], from: usize, after: usize) -> Vec<TimedOutput> {
    let mut o = o.to_vec();
    let mut x = o.remove(from);
    let after = if from < after { after - 1 } else { after };
    x.at = x.at.max(o[after].at);
    o.insert(after + 1, x);
    o
}

/// The first divergence breaking a MUST.
fn first_must(d: &[Divergence]) -> &str {
    d.iter().find(|d| !d.should_only).map_or("(none)", |d| d.requirement.as_str())
}

/// CONF-CMP-022: the list of a device's outputs is its order of visibility, and the order
/// across kinds is judged: a receive completion after its message's flag, a sender
/// completion after its work request's flag, anything of a work request after its flag, a
/// data packet of a message after its sender flag (reported first), and a retirement flag
/// after a write a later input caused. What the expected records themselves show is not a
/// divergence.
#[test]
fn conf_cmp_022_the_order_of_outputs_is_their_order_of_visibility() {
    // FLAG-ORDER-002: a receive completion after its message's retirement flag.
    let r = Run::of("rcv-in-order-v4");
    let rx = r.events(|e| matches!(e, NicEvent::Completion(c) if c.side == Side::Responder))[0];
    let NicEvent::Completion(c) = r.event(rx) else { unreachable!() };
    let (qpn, msn) = (c.entry.qpn, c.entry.msn);
    let flag = r.events(|e| {
        matches!(e, NicEvent::FlagWrite(f) if f.side == Side::Responder && f.qpn == qpn && f.msn == msn)
    })[0];
    assert!(rx < flag, "the reference writes the entry first");
    let late_entry = moved_after(&r.observed, rx, flag);
    assert_names(&r.judge(&late_entry), "FLAG-ORDER-002", "a receive entry after its flag");

    // The same order, when the scenario's own records show it, is no divergence.
    let mut s = r.s.clone();
    let pos = |s: &Scenario, pick: &dyn Fn(&NicEvent) -> bool| {
        s.records
            .iter()
            .position(|x| {
                x.dir == Direction::Expect
                    && matches!(&x.body, Body::Event { event } if pick(event))
            })
            .expect("an expected record")
    };
    let entry_at = pos(
        &s,
        &|e| matches!(e, NicEvent::Completion(c) if c.side == Side::Responder && c.entry.msn == msn),
    );
    let flag_at = pos(
        &s,
        &|e| matches!(e, NicEvent::FlagWrite(f) if f.side == Side::Responder && f.msn == msn && f.qpn == qpn),
    );
    let mut entry = s.records.remove(entry_at);
    entry.at = s.records[flag_at - 1].at;
    s.records.insert(flag_at, entry);
    assert_eq!(
        judge(&s, &r.injected, &late_entry).divergences,
        vec![],
        "an order the scenario expects"
    );

    // ORD-SEND-001, ORD-SEND-003: the sender's entry before its flag, and nothing of the
    // work request after it.
    let s = Run::of("snd-segmentation");
    let tx = s.events(|e| matches!(e, NicEvent::Completion(c) if c.side == Side::Requester))[0];
    let NicEvent::Completion(c) = s.event(tx) else { unreachable!() };
    let (qpn, msn) = (c.entry.qpn, c.entry.msn);
    let sflag = s.events(|e| {
        matches!(e, NicEvent::FlagWrite(f) if f.side == Side::Requester && f.qpn == qpn && f.msn == msn)
    })[0];
    assert!(tx < sflag, "the reference writes the entry first");
    assert_names(&s.judge(&moved_after(&s.observed, tx, sflag)), "ORD-SEND-001", "entry late");
    let again = TimedOutput { at: s.observed[sflag].at, ..s.observed[sflag].clone() };
    // A second flag completes the work request again: named by the rule of one completion.
    assert_names(&s.judge(&s.with_after(sflag, again)), "RET-SEND-001", "a second flag");
    let entry = TimedOutput { at: s.observed[sflag].at, ..s.observed[tx].clone() };
    assert_names(&s.judge(&s.with_after(sflag, entry)), "ORD-SEND-003", "a second entry");

    // ORD-SEND-002: a retransmission of the message after its sender flag, reported
    // before what else the packet breaks.
    let data = s.frame(|d| is_data(d) && d.ext.meth.is_some_and(|m| m.msn == msn));
    let rtx = TimedOutput {
        at: s.observed[sflag].at,
        output: Output::Frame {
            port: 0,
            bytes: edit_frame(s.bytes(data), |f| {
                f.bth.rtx = true;
                let ev = s.other_ev(f.entropy(), 1);
                f.set_entropy(ev);
            }),
        },
    };
    let d = s.judge(&s.with_after(sflag, rtx));
    assert_eq!(first_must(&d), "ORD-SEND-002", "{d:#?}");
    assert!(musts(&d).contains(&"SND-RTX-004"), "the packet is also spurious: {d:#?}");

    // RET-ORDER-002: of the messages one write makes retirable, a flag held back until
    // after a write the next input caused.
    let b = Run::of("ret-burst-before-next-input");
    let flags = b.events(is_responder_flag);
    let burst = flags
        .windows(2)
        .find(|w| b.observed[w[0]].at == b.observed[w[1]].at)
        .expect("two flags at once")[1];
    let dma = b
        .events(is_dma)
        .into_iter()
        .find(|&k| k > burst && b.observed[k].at > b.observed[burst].at)
        .expect("a DMA write a later input caused");
    let d = b.judge(&moved_after(&b.observed, burst, dma));
    assert_names(&d, "RET-ORDER-002", "a retirement flag after the next input's write");
}

// ---- CONF-CMP-033 -----------------------------------------------------------------------

/// CONF-CMP-033: endpoint responses are matched by (`op`, `request_id`) and compared in
/// their BTH fields, every EETH field and the EV they travel on; the choice among non-zero
/// statuses, the BTH PSN and the data are SHOULDs; a response to no request is a
/// divergence; and whatever a device does as an MRC QP numbered 2 breaks ERTH-QPN-001.
#[test]
fn conf_cmp_033_endpoint_responses_and_qpn_2() {
    let mut r = Run::of("rcv-endpoint");
    r.s.records.iter_mut().for_each(|x| x.checks.clear());
    let responses = r.frames(opcode_is(Opcode::MRC_ENDPOINT_RESPONSE));
    assert!(responses.len() >= 3);
    let ok = *responses
        .iter()
        .find(|&&k| decode(r.bytes(k)).ext.eeth.is_some_and(|e| e.status == 0))
        .expect("a response of status 0");
    let unsupported = *responses
        .iter()
        .find(|&&k| decode(r.bytes(k)).ext.eeth.is_some_and(|e| e.status == 1))
        .expect("an UNSUPPORTED_OP response");
    type Edit = Box<dyn Fn(&mut FrameRepr)>;
    fn eeth(f: &mut FrameRepr) -> &mut openrdma_codec::EethRepr {
        f.ext.eeth.as_mut().expect("an EETH")
    }
    // MUSTs, each under its own requirement.
    let must: Vec<(&str, usize, Edit)> = vec![
        ("EETH-PORT-001", ok, Box::new(|f| eeth(f).port_status ^= 0b1000)),
        ("EETH-RESV-001", ok, Box::new(|f| eeth(f).resv2 = 1)),
        // UNSUPPORTED_OP for an operation every NIC with endpoint operations performs.
        ("ERTH-RESP-001", ok, Box::new(|f| eeth(f).status = 1)),
        ("EETH-STATUS-001", ok, Box::new(|f| eeth(f).status = 2)),
        ("EETH-STATUS-001", unsupported, Box::new(|f| eeth(f).status = 0)),
        ("ERTH-QPN-001", ok, Box::new(|f| f.bth.dest_qp = Qpn::new(0x11))),
        ("CONF-CMP-026", ok, Box::new(|f| f.eth.dst = EthernetAddress([2, 0, 0, 0, 0, 9]))),
        (
            "ERTH-RESP-001",
            ok,
            Box::new(|f| f.set_entropy(Ev::new(f.entropy().value() ^ 0x0001_0000))),
        ),
    ];
    for (id, k, edit) in &must {
        assert_names(&r.judge(&r.edit(*k, |f| edit(f))), id, id);
    }
    // SHOULDs: non-strict only.
    let should: Vec<(&str, usize, Edit)> = vec![
        ("OPC-PSN-002", ok, Box::new(|f| f.bth.psn = Psn::new(5))),
        ("EETH-DATA-001", ok, Box::new(|f| eeth(f).data[0] = 0x5A)),
    ];
    for (id, k, edit) in &should {
        let d = r.judge(&r.edit(*k, |f| edit(f)));
        assert_eq!(musts(&d), Vec::<&str>::new(), "{id}: {d:#?}");
        assert!(d.iter().any(|d| d.should_only && d.requirement == *id), "{id}: {d:#?}");
    }
    // Which non-zero status reports a failure is a SHOULD: a scenario that expects
    // UNSUPPORTED_OP for an operation the device answers with another error code.
    let mut s = r.s.clone();
    let id = decode(r.bytes(ok)).ext.eeth.unwrap().request_id;
    for x in s.records.iter_mut().filter(|x| x.dir == Direction::Expect) {
        if let Body::Frame { bytes, .. } = &mut x.body {
            if decode(bytes).ext.eeth.is_some_and(|e| e.request_id == id) {
                *bytes = edit_frame(bytes, |f| eeth(f).status = 1);
            }
        }
    }
    let d = judge(&s, &r.injected, &r.edit(ok, |f| eeth(f).status = 5)).divergences;
    assert_eq!(musts(&d), Vec::<&str>::new(), "another error code: {d:#?}");
    assert!(d.iter().any(|d| d.should_only && d.requirement == "EETH-STATUS-001"), "{d:#?}");
    let d = judge(&s, &r.injected, &r.observed).divergences;
    assert_names(&d, "EETH-STATUS-001", "success where a failure is expected");
    // Matched by (op, request_id): a response with another request_id is a near miss of
    // the expected one, named by the echo of the request_id.
    let d = r.judge(&r.edit(ok, |f| eeth(f).request_id ^= 0x0F00_0000));
    assert_names(&d, "EETH-ECHO-001", "a response to no request");
    assert!(d.iter().any(|d| d.fields.iter().any(|f| f.field == "eeth.request_id")), "{d:#?}");

    // QPN 2: an event of a QP 2, a frame to QPN 2 that is not an endpoint operation, a
    // frame to the peer the scenario gave a QP 2.
    let dma = r.events(is_dma)[0];
    let o = r.edit_event(dma, |e| {
        if let NicEvent::DmaWrite(w) = e {
            w.qpn = Qpn::ENDPOINT;
        }
    });
    assert_names(&r.judge(&o), "ERTH-QPN-001", "a DMA write of QP 2");
    let ack = r.frame(|d| {
        d.bth.is_some_and(|b| {
            !matches!(b.opcode, Opcode::MRC_ENDPOINT_RESPONSE | Opcode::MRC_ENDPOINT_REQUEST)
        })
    });
    let at = r.observed[ack].at;
    let to = |qpn: Qpn| TimedOutput {
        at,
        output: Output::Frame { port: 0, bytes: edit_frame(r.bytes(ack), |f| f.bth.dest_qp = qpn) },
    };
    let d = r.judge(&r.with_after(ack, to(Qpn::ENDPOINT)));
    assert_names(&d, "ERTH-QPN-001", "an acknowledgement to QPN 2");
    let peer_of_2 =
        r.s.records
            .iter()
            .find_map(|x| match &x.body {
                Body::Host { command: HostCommand::CreateQp(q) } if q.qpn == Qpn::ENDPOINT => {
                    Some(q.peer_qpn)
                }
                _ => None,
            })
            .expect("the scenario tries a QP 2");
    let d = r.judge(&r.with_after(ack, to(peer_of_2)));
    assert_names(&d, "ERTH-QPN-001", "a packet from a QP 2");
}

// ---- CONF-CMP-043 and CONF-CMP-032 ------------------------------------------------------

/// CONF-CMP-043: the endpoint requests a device sends are matched by (`op`, `request_id`)
/// and compared in every ERTH field, the EV and the BTH: the ports under ERTH-PORT-001, the
/// reserved fields under ERTH-RESV-001, the EV, the PSN and the rest under REC-IF-017; a
/// request the CPU half did not command is a divergence, under ERTH-OP-001 when its
/// operation is undefined.
#[test]
fn conf_cmp_043_endpoint_requests() {
    let mut r = Run::of("rec-endpoint-request");
    r.s.records.iter_mut().for_each(|x| x.checks.clear());
    let k = r.frame(opcode_is(Opcode::MRC_ENDPOINT_REQUEST));
    type Edit = Box<dyn Fn(&mut FrameRepr)>;
    fn erth(f: &mut FrameRepr) -> &mut openrdma_codec::ErthRepr {
        f.ext.erth.as_mut().expect("an ERTH")
    }
    let must: Vec<(&str, Edit)> = vec![
        ("ERTH-PORT-001", Box::new(|f| erth(f).port_status = 0b1111)),
        ("ERTH-RESV-001", Box::new(|f| erth(f).resv1 = 1)),
        ("ERTH-RESV-001", Box::new(|f| erth(f).resv12 = 1)),
        ("REC-IF-017", Box::new(|f| f.set_entropy(Ev::new(f.entropy().value() ^ 0x0001_0000)))),
        ("ERTH-QPN-001", Box::new(|f| f.bth.dest_qp = Qpn::new(0x11))),
    ];
    for (id, edit) in &must {
        assert_names(&r.judge(&r.edit(k, |f| edit(f))), id, id);
    }
    let d = r.judge(&r.edit(k, |f| f.bth.psn = Psn::new(9)));
    assert_eq!(musts(&d), ["REC-IF-017"], "the PSN: {d:#?}");
    assert_eq!(d[0].clause, Some(openrdma_conformance::req::REC_IF_017_C), "{d:#?}");
    // Another request_id: a near miss of the commanded request, one divergence.
    let d = r.judge(&r.edit(k, |f| erth(f).request_id ^= 0x00F0_0000));
    assert_names(&d, "REC-IF-017", "a request nobody commanded");
    assert!(d.iter().any(|d| d.fields.iter().any(|f| f.field == "erth.request_id")), "{d:#?}");
    // One more, for an operation the ERTH does not define.
    let at = r.observed[k].at;
    let extra = TimedOutput {
        at,
        output: Output::Frame {
            port: 0,
            bytes: edit_frame(r.bytes(k), |f| erth(f).op = openrdma_codec::EndpointOp(7)),
        },
    };
    assert_names(&r.judge(&r.with_after(k, extra)), "ERTH-OP-001", "an undefined operation");
    assert_eq!(r.judge(&r.without(k)).len(), 1, "a missing request, and nothing else");
}

/// CONF-CMP-032: every endpoint response is reported, in all its fields, by its time plus
/// `late_ns`, and no other `EndpointResponse` report may come (REC-IF-018); a device that
/// does not claim `cpu-split` is not judged on it.
#[test]
fn conf_cmp_032_endpoint_response_reports() {
    let mut r = Run::of("rec-endpoint-request");
    r.s.records.iter_mut().for_each(|x| x.checks.clear());
    let is_report =
        |e: &NicEvent| matches!(e, NicEvent::Report(NicReport::EndpointResponse { .. }));
    let reports = r.events(is_report);
    assert_eq!(reports.len(), 3);
    let k = reports[0];
    assert_names(&r.judge(&r.without(k)), "REC-IF-018", "a response not reported");
    let edits: [fn(&mut NicReport); 4] = [
        |x| {
            if let NicReport::EndpointResponse { status, .. } = x {
                *status ^= 1
            }
        },
        |x| {
            if let NicReport::EndpointResponse { port_status, .. } = x {
                *port_status ^= 1
            }
        },
        |x| {
            if let NicReport::EndpointResponse { ev, .. } = x {
                *ev = Ev::new(ev.value() ^ 0x0001_0000)
            }
        },
        |x| {
            if let NicReport::EndpointResponse { request_id, .. } = x {
                *request_id ^= 1
            }
        },
    ];
    for edit in edits {
        let o = r.edit_event(k, |e| {
            if let NicEvent::Report(x) = e {
                edit(x)
            }
        });
        let d = r.judge(&o);
        assert_names(&d, "REC-IF-018", "a report that says another thing");
        assert!(d.iter().any(|d| d.what.contains("does not expect")), "{d:#?}");
    }
    let extra = TimedOutput { at: r.observed[k].at, output: r.observed[k].output.clone() };
    assert_names(&r.judge(&r.with_after(k, extra)), "REC-IF-018", "a response reported twice");
    // Out of scope without cpu-split.
    let caps = [Capability::Endpoint, Capability::Ipv4].into_iter().collect();
    let d = judge_in(&r.s, &r.injected, &r.without(k), Scope::of(&caps)).divergences;
    assert_eq!(d, vec![], "reports are not judged without cpu-split");
}

// ---- CONF-CMP-025 -----------------------------------------------------------------------

/// CONF-CMP-025: every probe answer the scenario expects must come, on its QP, by its time
/// plus `late_ns`: a SACK with `pr` 1 and the probe's `probe_id` in `ack_psn_offset`
/// (PETH-RESP-001). A SACK with `pr` 0, or naming another probe, answers nothing.
#[test]
fn conf_cmp_025_every_probe_answer_comes_in_time() {
    let mut r = Run::of("rcv-probe");
    r.s.records.iter_mut().for_each(|x| x.checks.clear());
    let answer = r.frame(|d| d.ext.seth.is_some_and(|s| s.pr));
    let late = r.s.manifest.tolerances.late_ns as i64;
    assert_names(&r.judge(&r.without(answer)), "PETH-RESP-001", "no answer");
    let d = r.judge(&r.edit(answer, |f| f.ext.seth.as_mut().unwrap().pr = false));
    assert_names(&d, "PETH-RESP-001", "an answer with pr 0");
    let d = r.judge(&r.edit(answer, |f| f.ext.seth.as_mut().unwrap().ack_psn_offset ^= 1));
    assert_names(&d, "PETH-RESP-001", "an answer to another probe");
    let d = r.judge(&r.edit(answer, |f| f.bth.dest_qp = Qpn::new(f.bth.dest_qp.value() ^ 1)));
    assert_names(&d, "PETH-RESP-001", "an answer on another QP");
    let d = r.judge(&moved(&r.observed, answer, late + 1));
    assert_names(&d, "PETH-RESP-001", "an answer later than late_ns");
    assert_eq!(r.judge(&moved(&r.observed, answer, late)), vec![], "late by late_ns");
}

// ---- CONF-CMP-048 -----------------------------------------------------------------------

/// CONF-CMP-048: under `spray-policies` every data packet and probe carries the EV its
/// policy gives (a `fixed` or `round-robin` QP's judged on the device's own previous
/// choice, the others' on the record it matches), a difference reported under the
/// requirement of its QP's policy, or the first its record checks; the `random` policy is
/// judged by CONF-CMP-027 alone, and a scenario that does not require `spray-policies`
/// leaves the choice to the device.
#[test]
fn conf_cmp_047_spray_policies_give_each_ev() {
    /// The run with the `n`-th first transmission (or probe) moved to the next EV of its
    /// profile.
    fn on_another_ev(r: &Run, pick: impl Fn(&DecodedFrame<'_>) -> bool) -> Vec<TimedOutput> {
        let k = r.frame(pick);
        r.edit(k, |f| {
            let ev = r.other_ev(f.entropy(), 1);
            f.set_entropy(ev);
        })
    }
    let first_tx = |d: &DecodedFrame<'_>| is_data(d) && d.bth.is_some_and(|b| !b.rtx);
    for (name, id) in [
        ("snd-spray-round-robin", "SND-SPRAY-001"),
        ("snd-spray-fixed", "SND-SPRAY-003"),
        ("snd-spray-skew-aware", "SND-SPRAY-004"),
        ("snd-spray-window-fit", "SND-SPRAY-005"),
    ] {
        let r = Run::of(name);
        let o = on_another_ev(&r, first_tx);
        // Under the record's first check, which these scenarios give.
        let d = r.judge(&o);
        assert!(!musts(&d).is_empty(), "{name}: another EV");
        let mut bare = Run { s: r.s.clone(), injected: r.injected.clone(), observed: r.observed };
        bare.s.records.iter_mut().for_each(|x| x.checks.clear());
        assert_names(&bare.judge(&o), id, name);
        // The same QP spraying at random: the EV is the device's choice.
        let mut random = bare.s.clone();
        for x in &mut random.records {
            if let Body::Host { command: HostCommand::CreateQp(q) } = &mut x.body {
                q.spray = SprayPolicy::Random;
            }
        }
        let d = judge(&random, &bare.injected, &o).divergences;
        assert!(
            !d.iter().any(|d| d.requirement.starts_with("SND-SPRAY")),
            "{name} as random: {d:#?}"
        );
    }
    // A window-fit QP's probe, on another EV than the policy's.
    let mut w = Run::of("snd-spray-window-fit");
    w.s.records.iter_mut().for_each(|x| x.checks.clear());
    let o = on_another_ev(&w, opcode_is(Opcode::MRC_PROBE));
    assert_names(&w.judge(&o), "SND-SPRAY-009", "a window-fit probe");
    // Without `spray-policies` the recorded EV is not required: the reference's random
    // choices are its own.
    let r = Run::of("snd-spray-random");
    assert!(!r.s.manifest.requires.contains(&Capability::SprayPolicies));
    let mut s = r.s.clone();
    s.manifest.requires.insert(Capability::SprayPolicies);
    let o = on_another_ev(&r, first_tx);
    assert_eq!(r.judge(&o), vec![], "another usable EV, at random");
    assert_eq!(judge(&s, &r.injected, &o).divergences, vec![], "random is judged by its pool");
}

/// A counter started elsewhere gives every packet of a message one wrong MSN. When only the
/// first packet of each message carries the previous message's MSN, every first packet is
/// off by one constant, but the message's later packets are right: the first packet broke
/// SND-MSN-002, not the counter's start (RET-DOMAIN-003).
#[test]
fn an_msn_wrong_on_first_packets_only_is_not_a_counter_start() {
    let r = Run::of("snd-segmentation");
    let firsts = r.frames(|d| is_data(d) && d.bth.is_some_and(|b| !b.rtx && b.opcode.is_first()));
    let longer = r.frames(|d| d.bth.is_some_and(|b| b.opcode == Opcode::MRC_WRITE_FIRST));
    assert!(firsts.len() >= 2 && !longer.is_empty(), "messages, one of several packets");
    let mut o = r.observed.clone();
    for &k in &firsts {
        let Output::Frame { bytes, .. } = &o[k].output else { unreachable!() };
        let edited = edit_frame(bytes, |f| {
            let m = f.ext.meth.as_mut().unwrap();
            m.msn = Msn::new(m.msn.value().wrapping_sub(1));
        });
        let Output::Frame { bytes: b, .. } = &mut o[k].output else { unreachable!() };
        *b = edited;
    }
    let d = r.judge(&o);
    let first = musts(&d).first().copied();
    assert!(
        matches!(first, Some("SND-MSN-002" | "METH-MSN-001")),
        "expected SND-MSN-002 or METH-MSN-001 first, got {d:#?}"
    );
}
