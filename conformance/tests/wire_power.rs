//! The scenarios catch a device whose frames break the wire rules (CONF-CMP-016,
//! CONF-CMP-017): each mutant below is the reference device with one encoder bug — a field,
//! a reserved bit, a length, a checksum, an EV in the wrong place — in the frames it sends
//! (or, for ENC-EV-003, a wrong reading of the frames it receives). Each must make the
//! named scenario fail with a divergence that names the rule it breaks, or make it
//! non-strict, never failed, when the sender's half of the rule is a SHOULD. The reference
//! passes every scenario (`tests/reference.rs`), so the divergences are the mutant's.

use std::collections::BTreeSet;

use openrdma_codec::frame::{FrameRepr, IpRepr, decode};
use openrdma_codec::{Ev, EvMark, Ipv4Repr, NackReason, Opcode};
use openrdma_conformance::report::mark_levels;
use openrdma_conformance::requirements::Spec;
use openrdma_conformance::runner::run;
use openrdma_conformance::scoreboard::judge;
use openrdma_corpus as corpus;
use openrdma_device::{
    Capability, Device, DeviceError, Input, Manifest, Output, TimedInput, TimedOutput, Timestamp,
};
use openrdma_sm::{ReferenceDevice, reference_cpu_half};

/// Rewrites one frame, or leaves it (`None`).
type Rewrite = fn(&[u8]) -> Option<Vec<u8>>;

/// The reference device with its output frames (or its input frames) rewritten.
struct Mutant {
    inner: ReferenceDevice,
    outputs: Option<Rewrite>,
    inputs: Option<Rewrite>,
}

impl Device for Mutant {
    fn name(&self) -> String {
        "mutant:wire".into()
    }

    fn capabilities(&self) -> BTreeSet<Capability> {
        self.inner.capabilities()
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        self.inner.start(manifest)
    }

    fn advance(
        &mut self,
        mut inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        if let Some(rw) = self.inputs {
            for i in &mut inputs {
                if let Input::Frame { bytes, .. } = &mut i.input {
                    if let Some(b) = rw(bytes) {
                        *bytes = b;
                    }
                }
            }
        }
        let mut out = self.inner.advance(inputs, until)?;
        if let Some(rw) = self.outputs {
            for o in &mut out {
                if let Output::Frame { bytes, .. } = &mut o.output {
                    if let Some(b) = rw(bytes) {
                        *bytes = b;
                    }
                }
            }
        }
        Ok(out)
    }
}

// ---- rewriting helpers ------------------------------------------------------------------

fn repr(b: &[u8]) -> Option<FrameRepr> {
    decode(b).to_repr()
}

fn opcode(b: &[u8]) -> Option<Opcode> {
    decode(b).bth.map(|h| h.opcode)
}

/// `edit` applied to the frame, which is then made consistent again (lengths, checksums,
/// pad, ICRC): the frame breaks only what `edit` broke. `None` when `edit` declines.
fn refit(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> bool) -> Option<Vec<u8>> {
    let mut f = repr(b)?;
    if !edit(&mut f) {
        return None;
    }
    f.finalize().ok()?;
    f.to_bytes().ok()
}

/// `edit` applied to the frame, which is then emitted as held, with a fresh ICRC.
fn raw(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> bool) -> Option<Vec<u8>> {
    let mut f = repr(b)?;
    if !edit(&mut f) {
        return None;
    }
    f.icrc = None;
    f.to_bytes().ok()
}

fn sack(b: &[u8]) -> bool {
    opcode(b) == Some(Opcode::MRC_SACK)
}

fn nack(b: &[u8]) -> bool {
    opcode(b) == Some(Opcode::MRC_NACK)
}

fn data(b: &[u8]) -> bool {
    opcode(b).is_some_and(|o| o.is_mrc_write())
}

fn on_sacks(b: &[u8], edit: impl FnOnce(&mut FrameRepr)) -> Option<Vec<u8>> {
    if !sack(b) {
        return None;
    }
    refit(b, |f| {
        edit(f);
        true
    })
}

/// The frame cut by `n` bytes before its ICRC trailer, with its lengths saying so.
fn shorten(b: &[u8], n: usize) -> Option<Vec<u8>> {
    let d = decode(b);
    let (icrc, ip, udp) = (d.layout.icrc?, d.layout.ip?, d.layout.udp?);
    let mut out = b[..icrc - n].to_vec();
    out.extend_from_slice(&b[icrc..icrc + 4]);
    let ip_len = out.len() - ip;
    let udp_len = (out.len() - udp) as u16;
    out[udp + 4..udp + 6].copy_from_slice(&udp_len.to_be_bytes());
    match d.ip? {
        IpRepr::V4(_) => {
            out[ip + 2..ip + 4].copy_from_slice(&(ip_len as u16).to_be_bytes());
            let mut v4 = Ipv4Repr::parse(&out[ip..]).ok()?;
            v4.fill_checksum().ok()?;
            v4.emit(&mut out[ip..]).ok()?;
        }
        IpRepr::V6(_) => out[ip + 4..ip + 6].copy_from_slice(&udp_len.to_be_bytes()),
    }
    Some(out)
}

fn v4(f: &mut FrameRepr) -> Option<&mut Ipv4Repr> {
    match &mut f.ip {
        IpRepr::V4(v4) => Some(v4),
        IpRepr::V6(_) => None,
    }
}

// ---- the mutants ------------------------------------------------------------------------

/// What a mutant must make the scoreboard report.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// A MUST divergence under this requirement: the verdict is `fail`.
    Fails(&'static str),
    /// A MUST divergence whose fields include this one (the record's own check names it).
    FailsOnField(&'static str),
    /// Divergences under this requirement only, all SHOULD: the verdict is `non-strict`.
    NonStrict(&'static str),
}

struct Case {
    bug: &'static str,
    scenario: &'static str,
    expect: Expect,
    outputs: Option<Rewrite>,
    inputs: Option<Rewrite>,
}

const fn out(bug: &'static str, scenario: &'static str, expect: Expect, rw: Rewrite) -> Case {
    Case { bug, scenario, expect, outputs: Some(rw), inputs: None }
}

use Expect::{Fails, FailsOnField, NonStrict};

const CASES: &[Case] = &[
    out("ARP-typed frames", "rcv-sack-timer", Fails("ENC-ETH-001"), |b| {
        let mut b = b.to_vec();
        b[12..14].copy_from_slice(&[0x08, 0x06]);
        Some(b)
    }),
    out("a group source address", "rcv-sack-timer", Fails("ENC-ETH-002"), |b| {
        refit(b, |f| {
            f.eth.src.0[0] |= 1;
            true
        })
    }),
    out("the reserved VID", "rcv-in-order-vlan", Fails("ENC-VLAN-001"), |b| {
        refit(b, |f| f.vlans.first_mut().map(|v| v.vid = 0xFFF).is_some())
    }),
    out("a second tag", "rcv-in-order-vlan", Fails("ENC-VLAN-002"), |b| {
        let mut b = b.to_vec();
        b.splice(16..16, [0x81, 0x00, 0x00, 0x2A]);
        Some(b)
    }),
    out("TCP as the IP protocol", "rcv-sack-timer", Fails("ENC-IPV4-001"), |b| {
        refit(b, |f| v4(f).map(|v| v.protocol = 6).is_some())
    }),
    out("the MF flag", "rcv-sack-timer", Fails("ENC-IPV4-002"), |b| {
        refit(b, |f| v4(f).map(|v| v.more_frags = true).is_some())
    }),
    out("the reserved IPv4 flag", "rcv-sack-timer", Fails("ENC-IPV4-004"), |b| {
        refit(b, |f| v4(f).map(|v| v.flag_reserved = true).is_some())
    }),
    out("an IPv6 extension header", "rcv-in-order-v6", Fails("ENC-IPV6-001"), |b| {
        refit(b, |f| match &mut f.ip {
            IpRepr::V6(v6) => {
                v6.next_header = 0;
                true
            }
            IpRepr::V4(_) => false,
        })
    }),
    out("EV halves swapped over IPv6", "snd-dark-path-v6", Fails("ENC-EV-001"), |b| {
        let ev = decode(b).entropy()?;
        refit(b, |f| {
            data(b) && {
                f.set_entropy(Ev::from_halves(ev.low(), ev.high()));
                true
            }
        })
    }),
    out("EV[15:0] in the source port over IPv4", "snd-segmentation", Fails("ENC-EV-002"), |b| {
        // The EV the device chose, of its profile: over IPv4 its low half is 0.
        let ev = decode(b).entropy()?;
        refit(b, |f| {
            data(b) && {
                f.udp.src_port = ev.low();
                true
            }
        })
    }),
    out("a UDP length 4 too long", "rcv-sack-timer", Fails("ENC-LEN-001"), |b| {
        raw(b, |f| {
            f.udp.length += 4;
            true
        })
    }),
    out("an IPv4 total length 100 too long", "rcv-sack-timer", Fails("ENC-LEN-002"), |b| {
        raw(b, |f| v4(f).map(|v| v.total_len += 100).is_some())
    }),
    out("a UDP length below 8", "rcv-sack-timer", Fails("ENC-UDP-002"), |b| {
        raw(b, |f| {
            f.udp.length = 7;
            true
        })
    }),
    out("UDP to port 4792", "rcv-sack-timer", Fails("ENC-UDP-001"), |b| {
        refit(b, |f| {
            f.udp.dst_port = 4792;
            true
        })
    }),
    out("a wrong UDP checksum over IPv4", "rcv-sack-timer", Fails("ENC-UDP-003"), |b| {
        let d = decode(b);
        let at = d.layout.udp?;
        let mut b = b.to_vec();
        b[at + 6..at + 8].copy_from_slice(&[0x12, 0x34]);
        Some(b)
    }),
    out("a SACK without its CC_STATE", "rcv-sack-timer", Fails("ENC-FRAME-001"), |b| {
        if sack(b) { shorten(b, 8) } else { None }
    }),
    out("a BTH and nothing else", "rcv-sack-timer", Fails("ENC-LEN-004"), |b| {
        let d = decode(b);
        let n = d.layout.icrc? - d.layout.bth? - 6;
        shorten(b, n)
    }),
    out("tver 1", "rcv-sack-timer", Fails("BTH-TVER-001"), |b| on_sacks(b, |f| f.bth.tver = 1)),
    out("BECN in an MRC packet", "rcv-sack-timer", Fails("BTH-RESV-002"), |b| {
        on_sacks(b, |f| f.bth.becn = true)
    }),
    out("a reserved bit of BTH byte 8", "rcv-sack-timer", Fails("BTH-RESV-003"), |b| {
        on_sacks(b, |f| f.bth.resv8 = 0x01)
    }),
    out("an undefined MRC opcode", "rcv-sack-timer", Fails("OPC-UNKNOWN-001"), |b| {
        if !sack(b) {
            return None;
        }
        let at = decode(b).layout.bth?;
        let mut b = b.to_vec();
        b[at] = 0xC0;
        let mut f = repr(&b)?;
        f.icrc = None;
        f.to_bytes().ok()
    }),
    out("ts set in a SACK", "rcv-sack-timer", Fails("TSETH-PRESENT-002"), |b| {
        on_sacks(b, |f| f.bth.ts = true)
    }),
    out("payload in a SACK", "rcv-sack-timer", Fails("PAY-NONE-001"), |b| {
        on_sacks(b, |f| f.payload = vec![0; 4])
    }),
    out("a pad count one too few", "rcv-sack-timer", Fails("PAY-PAD-001"), |b| {
        if !sack(b) {
            return None;
        }
        // One byte more than the pad count accounts for; lengths that agree with it.
        let mut f = repr(b)?;
        f.payload.push(0);
        f.finalize().ok()?;
        f.bth.pad_count = 0;
        let udp_len = f.ip_len() - f.ip.header_len();
        f.udp.length = udp_len as u16;
        let v = v4(&mut f)?;
        v.total_len = (udp_len + v.header_len()) as u16;
        v.fill_checksum().ok()?;
        f.icrc = None;
        f.to_bytes().ok()
    }),
    out("m = 3", "rcv-sack-timer", Fails("SETH-M-001"), |b| {
        on_sacks(b, |f| f.ext.seth.as_mut().unwrap().m = EvMark(3))
    }),
    out("SETH byte 12 set", "rcv-sack-timer", Fails("SETH-RESV-001"), |b| {
        on_sacks(b, |f| f.ext.seth.as_mut().unwrap().resv12 = 0x80)
    }),
    out("the CC_STATE reserved bit", "rcv-sack-timer", Fails("CCS-RESV-001"), |b| {
        on_sacks(b, |f| f.ext.cc_state.as_mut().unwrap().resv = true)
    }),
    out("a reserved TSETH bit", "snd-segmentation", Fails("TSETH-RESV-001"), |b| {
        refit(b, |f| f.ext.tseth.as_mut().map(|t| t.resv = 0x400).is_some())
    }),
    out("TSETH ftype 2", "snd-segmentation", NonStrict("TSETH-FTYPE-001"), |b| {
        refit(b, |f| f.ext.tseth.as_mut().map(|t| t.ftype = 2).is_some())
    }),
    out("non-zero pad bytes", "snd-segmentation", NonStrict("PAY-PAD-002"), |b| {
        raw(b, |f| {
            f.bth.pad_count > 0 && {
                f.pad = [0xAA; 3];
                true
            }
        })
    }),
    out("a message longer than 2^31", "snd-segmentation", Fails("RETH-LEN-001"), |b| {
        refit(b, |f| f.ext.reth.as_mut().map(|r| r.dma_len = 0x8000_0001).is_some())
    }),
    out("a range past 2^64", "snd-segmentation", Fails("RETH-VA-001"), |b| {
        refit(b, |f| {
            f.ext.reth.as_mut().is_some_and(|r| r.dma_len > 0) && {
                f.ext.reth.as_mut().map(|r| r.va = u64::MAX - 2).is_some()
            }
        })
    }),
    out("syndrome bit 7 in an ACK", "rcv-in-order-v4", Fails("AETH-SYN-001"), |b| {
        refit(b, |f| f.ext.aeth.as_mut().map(|a| a.syndrome |= 0x80).is_some())
    }),
    out("NAKs of the reserved kind 10", "rcv-placement-errors", Fails("AETH-SYN-002"), |b| {
        refit(b, |f| {
            f.ext.aeth.as_mut().is_some_and(|a| {
                a.syndrome & 0x60 == 0x60 && {
                    a.syndrome ^= 0x20;
                    true
                }
            })
        })
    }),
    out("NAKs with a reserved code", "rcv-placement-errors", Fails("AETH-NAK-001"), |b| {
        refit(b, |f| {
            f.ext.aeth.as_mut().is_some_and(|a| {
                a.syndrome & 0x60 == 0x60 && {
                    a.syndrome |= 0x04;
                    true
                }
            })
        })
    }),
    out("NAK PSN sequence error in MRC", "rcv-placement-errors", Fails("AETH-MRC-001"), |b| {
        refit(b, |f| {
            f.ext.aeth.as_mut().is_some_and(|a| {
                a.syndrome & 0x60 == 0x60 && {
                    a.syndrome = 0x60;
                    true
                }
            })
        })
    }),
    out("a reserved NETH byte", "rcv-window-edges", Fails("NETH-RESV-001"), |b| {
        refit(b, |f| f.ext.neth.as_mut().map(|n| n.resv17 = 1).is_some())
    }),
    out("an undefined NACK reason", "rcv-window-edges", Fails("NETH-REASON-001"), |b| {
        refit(b, |f| f.ext.neth.as_mut().map(|n| n.reason = NackReason(0x42)).is_some())
    }),
    out("a NACK naming another EV", "rcv-window-edges", FailsOnField("neth.entropy"), |b| {
        let ev = decode(b).entropy()?;
        refit(b, |f| {
            f.ext.neth.as_mut().is_some_and(|n| {
                n.entropy = Ev::new(ev.value() ^ 0x1_0000);
                true
            }) && {
                // It travels on the EV it names, so only the report is wrong.
                f.set_entropy(Ev::new(ev.value() ^ 0x1_0000));
                true
            }
        })
    }),
    out(
        "a NACK without the timestamp",
        "rcv-window-edges",
        FailsOnField("neth.tx_timestamp"),
        |b| refit(b, |f| f.ext.neth.as_mut().map(|n| n.tx_timestamp = 0).is_some()),
    ),
    out("a NACK on another EV", "rcv-window-edges", Fails("RCV-NACK-001"), |b| {
        let ev = decode(b).entropy()?;
        refit(b, |f| {
            nack(b) && {
                f.set_entropy(Ev::new(ev.value() ^ 0x1_0000));
                true
            }
        })
    }),
    out("NETH vendor_info", "rcv-window-edges", NonStrict("NETH-VENDOR-001"), |b| {
        refit(b, |f| f.ext.neth.as_mut().map(|n| n.vendor_info = 7).is_some())
    }),
    out("NETH cc_type", "rcv-window-edges", NonStrict("NETH-CC-001"), |b| {
        refit(b, |f| f.ext.neth.as_mut().map(|n| n.cc_type = 1).is_some())
    }),
    out("NETH res_type", "rcv-window-edges", NonStrict("NETH-TYPE-001"), |b| {
        refit(b, |f| f.ext.neth.as_mut().map(|n| n.res_type = 1).is_some())
    }),
    out("NETH spdcid", "rcv-window-edges", NonStrict("NETH-PDC-001"), |b| {
        refit(b, |f| f.ext.neth.as_mut().map(|n| n.spdcid = 1).is_some())
    }),
    out("writes not ECN-capable", "snd-segmentation", NonStrict("ENC-ECN-001"), |b| {
        refit(b, |f| match &mut f.ip {
            IpRepr::V4(v4) if f.bth.opcode.is_mrc_write() => {
                v4.ecn = 0;
                true
            }
            _ => false,
        })
    }),
    out("IPv6 writes not ECN-capable", "snd-dark-path-v6", NonStrict("ENC-ECN-001"), |b| {
        refit(b, |f| match &mut f.ip {
            IpRepr::V6(v6) if f.bth.opcode.is_mrc_write() => {
                v6.traffic_class &= !0b11;
                true
            }
            _ => false,
        })
    }),
    out("Don't Fragment clear", "rcv-in-order-v4", NonStrict("ENC-IPV4-007"), |b| {
        refit(b, |f| match &mut f.ip {
            IpRepr::V4(v4) => {
                v4.dont_frag = false;
                true
            }
            IpRepr::V6(_) => false,
        })
    }),
    out("an IPv4 TTL of 0", "rcv-in-order-v4", Fails("ENC-HOP-001"), |b| {
        refit(b, |f| match &mut f.ip {
            IpRepr::V4(v4) => {
                v4.ttl = 0;
                true
            }
            IpRepr::V6(_) => false,
        })
    }),
    out("an IPv6 hop limit of 1", "rcv-in-order-v6", Fails("ENC-HOP-001"), |b| {
        refit(b, |f| match &mut f.ip {
            IpRepr::V6(v6) => {
                v6.hop_limit = 1;
                true
            }
            IpRepr::V4(_) => false,
        })
    }),
    out("a reserved PETH field", "snd-ev-always-skip", Fails("PETH-RESV-001"), |b| {
        refit(b, |f| f.ext.peth.as_mut().map(|p| p.resv0 = 1).is_some())
    }),
    out("probe_id off by one", "snd-ev-always-skip", FailsOnField("peth.probe_id"), |b| {
        refit(b, |f| f.ext.peth.as_mut().map(|p| p.probe_id = p.probe_id.wrapping_add(1)).is_some())
    }),
    out("the EV read as the source port over IPv4", "rcv-in-order-v4", Fails("ENC-EV-002"), |b| {
        // A receiver that takes src_port for the whole EV reports EV[31:16] as EV[15:0].
        on_sacks(b, |f| {
            let s = f.ext.seth.as_mut().unwrap();
            s.entropy = Ev::new(s.entropy.value() >> 16);
        })
    }),
    Case {
        bug: "the EV read with flow-label bits 19:16",
        scenario: "rcv-lenient-v6",
        expect: Fails("ENC-EV-001"),
        outputs: None,
        // The device reconstructs the EV of what it receives as src_port << 16 | flow_label,
        // all 20 bits: modelled by handing it a frame that carries that value as its EV.
        inputs: Some(|b| {
            let d = decode(b);
            let Some(IpRepr::V6(v6)) = &d.ip else { return None };
            if v6.flow_label & 0xF_0000 == 0 {
                return None;
            }
            let misread = u32::from(d.udp?.src_port) << 16 | v6.flow_label;
            refit(b, |f| {
                f.set_entropy(Ev::new(misread));
                true
            })
        }),
    },
    out("an IPv4 header length of 4 words", "rcv-sack-timer", Fails("ENC-IPV4-005"), |b| {
        let mut b = b.to_vec();
        b[14] = 0x44;
        Some(b)
    }),
    out("an IPv6 version of 7", "rcv-in-order-v6", Fails("ENC-IPV6-002"), |b| {
        let mut b = b.to_vec();
        b[14] = (b[14] & 0x0F) | 0x70;
        Some(b)
    }),
    out("a pad the SACK has no room for", "rcv-sack-timer", Fails("PAY-PAD-003"), |b| {
        // BTH byte 1 of an untagged IPv4 frame: pad_count 3, with no payload to hold it.
        let mut b = b.to_vec();
        let sack = decode(&b).ext.seth.is_some();
        b[14 + 20 + 8 + 1] |= 0x30;
        sack.then_some(b)
    }),
    out("a reserved EETH field", "rcv-endpoint", Fails("EETH-RESV-001"), |b| {
        refit(b, |f| f.ext.eeth.as_mut().map(|e| e.resv2 = 1).is_some())
    }),
    out("a reserved ERTH field", "rec-endpoint-request", Fails("ERTH-RESV-001"), |b| {
        refit(b, |f| f.ext.erth.as_mut().map(|e| e.resv1 = 1).is_some())
    }),
    out("an undefined endpoint operation", "rec-endpoint-request", Fails("ERTH-OP-001"), |b| {
        refit(b, |f| f.ext.erth.as_mut().map(|e| e.op = openrdma_codec::EndpointOp(7)).is_some())
    }),
];

#[test]
fn wire_mutants_fail_the_scenarios_written_for_them() {
    let spec = Spec::bundled().expect("the specification parses");
    let all = corpus::all();
    let mut missed = Vec::new();
    for case in CASES {
        let build = all
            .iter()
            .find(|(n, _)| *n == case.scenario)
            .unwrap_or_else(|| panic!("{} is not in the corpus", case.scenario))
            .1;
        let s = build();
        let mut dev =
            Mutant { inner: ReferenceDevice::new(), outputs: case.outputs, inputs: case.inputs };
        let out = run(&mut dev, &s, reference_cpu_half);
        let mut j = judge(&s, &out.injected, &out.observed);
        mark_levels(&mut j, &spec);
        let musts: Vec<_> = j.divergences.iter().filter(|d| !d.should_only).collect();
        let names: BTreeSet<&str> = j.divergences.iter().map(|d| d.requirement.as_str()).collect();
        let ok = match case.expect {
            Fails(id) => musts.iter().any(|d| d.requirement == id),
            FailsOnField(field) => musts.iter().any(|d| d.fields.iter().any(|f| f.field == field)),
            NonStrict(id) => musts.is_empty() && names.len() == 1 && names.contains(id),
        };
        println!("{} / {}: {:?} -> {names:?}", case.bug, case.scenario, case.expect);
        if !ok || out.error.is_some() {
            missed.push(format!(
                "{} in {}: expected {:?}, got {names:?} ({:?})",
                case.bug, case.scenario, case.expect, out.error
            ));
        }
    }
    assert!(missed.is_empty(), "{missed:#?}");
}

/// Every wire rule the corpus claims for the device (CONF-CMP-016) is proved by a mutant
/// above, or by a faulty device (`faulty.rs`), or is a rule of the same header the codec's
/// own tests show reachable: the list below names what is left to the codec tests.
#[test]
fn claimed_wire_rules_have_a_mutant() {
    let proved: BTreeSet<&str> = CASES
        .iter()
        .filter_map(|c| match c.expect {
            Fails(id) | NonStrict(id) => Some(id),
            FailsOnField(_) => None,
        })
        .chain(
            openrdma_corpus::faults::devices()
                .flat_map(|k| k.breaks.iter().map(|b| b.requirement())),
        )
        .collect();
    let mut claimed = BTreeSet::new();
    for (_, build) in corpus::all() {
        let s = build();
        for r in &s.records {
            if let openrdma_device::Body::Frame { bytes, .. } = &r.body {
                if r.dir == openrdma_device::Direction::Expect {
                    claimed.extend(openrdma_conformance::scoreboard::sender_rules(&decode(bytes)));
                }
            }
        }
    }
    let unproved: Vec<&&str> = claimed.iter().filter(|id| !proved.contains(**id)).collect();
    assert!(unproved.is_empty(), "claimed without a mutant: {unproved:?}");
}
