//! The scoreboard: judges what a device produced against what a scenario expects
//! (`spec/conformance.md`, `CONF-CMP-*`).
//!
//! The rules, by kind of output:
//!
//! * **Every frame** must decode, carry a correct ICRC and obey the wire rules that
//!   `validate()` checks and that bind its sender: reserved bits, checksums, lengths,
//!   flow-label bits, known reasons, RETH bounds, ... ([`wire`], `CONF-CMP-001`,
//!   `CONF-CMP-016`). Data packets and probes must travel on an EV of their QP's profile,
//!   NACKs on the EV they report (`CONF-CMP-017`).
//! * **Data packets** are matched by (destination QP, PSN, `rtx`), in order of occurrence.
//!   Every field the specification fixes is compared exactly (opcode, AckReq, METH, RETH,
//!   ImmDt, payload, pad count, the TSETH's flags, ICRC); what the device chooses is not
//!   compared with the reference's choice but held to the rules every choice obeys: its
//!   path to the usable pool of the EV states the scenario sets, a retransmission to an
//!   EV other than its previous one while another is usable ([`paths`]), its timestamps to
//!   a clock that runs forward ([`schedule`]). A device that claims `spray-policies` is held to
//!   the recorded EVs exactly. Packets of one QP recorded together come in their recorded
//!   order. A data packet the scenario does not expect is a spurious retransmission
//!   (`SND-RTX-004`) or a duplicate transmission (`SND-PSN-001`).
//! * **NACKs** are matched by (QP, `nack_psn`, reason), and their other NETH fields
//!   compared (the EV and timestamp of the NACKed packet exactly, the fields a SHOULD fixes
//!   as SHOULDs); **probes** by QP, with their `probe_id`; **transport ACKs** by (QP, MSN,
//!   ACK or NAK code). An ACK repeating an MSN already acknowledged is allowed (ACK
//!   coalescing is the device's choice); an ACK for an MSN the scenario never acknowledges
//!   is not.
//! * **Endpoint responses** are matched by (`op`, `request_id`) and compared field by field
//!   and in the EV they travel on (`CONF-CMP-033`); one that answers no expected request is
//!   named by what it answers (a request to another QPN, a response, nothing). Anything a
//!   device does as an MRC QP numbered 2 breaks `ERTH-QPN-001`.
//! * **Frames to discard** (`RCV-FRAME-001`): an output acting on a frame the device must
//!   take no action on — a SACK claiming or answering its PSN, a DMA write of it, a NACK
//!   for it — is named by what is wrong with the frame, and nothing may be placed before a
//!   copy of it arrived (`CONF-CMP-023`).
//! * **SACKs** are judged by what they say, not by how many there are ([`sacks`]): every
//!   SACK must be true and complete within the tolerance, answer a packet that arrived on
//!   the EV it names, and carry the fixed fields and counters the SETH and CC_STATE rules
//!   give; by the time of each expected SACK, plus the tolerance, the device must have
//!   reported at least as much cumulative progress (`RCV-SACK-*`), and answered every probe
//!   the scenario answers (`CONF-CMP-025`). Coalescing is the device's choice.
//! * **DMA writes** are a multiset matched by (QP, address, bytes), in any order; but no
//!   write of a message may follow its flag (`FLAG-LAST-001`) and every write of a message
//!   precedes its flag (`FLAG-ORDER-001`).
//! * **Flag writes** and **completions** are sequences per side and must come in the
//!   expected order with the expected values (`RET-ORDER-001`, `RET-FLAG-001`,
//!   `CQE-*`), each no later than its time plus the tolerance; a completion's timestamp is
//!   not compared. Every completion entry is also judged on its own and, when the device
//!   wrote it to a completion queue, from its bytes as a write to that queue: its slot,
//!   address and phase, and no overwrite of an entry the consumer had not released
//!   ([`entries`], `CONF-CMP-021`).
//! * **The order across kinds** ([`order`]): the list of a device's outputs is its
//!   visibility order; a completion entry comes before the flag of its message or work
//!   request, the sender flag is a work request's last write and no data packet of the
//!   message follows it, and the flags a write makes due come before what the next input
//!   causes (`FLAG-ORDER-002`, `ORD-SEND-*`, `RET-ORDER-002`).
//! * **Reports** to the CPU half are compared where they do not depend on the device's
//!   paths: `QpError`, `Nack`, `EvMarked` and `ProbeAnswered` as expected, `EvState` as
//!   expected in a scenario that expects any, and one `Retransmitted` for every
//!   retransmission the device sent (`CONF-CMP-020`).
//! * When the device brings its own CPU half (`cpu = "device"`), its reports are internal
//!   and not judged; the retransmissions and probes its CPU half commands are expected
//!   packets like any other, none is excused by a command, and a retransmission is held to
//!   the same early bound as every packet, so that a wrong timeout or back-off shows
//!   (`CONF-CMP-019`, `CONF-TIME-005`).
//!
//! A device is judged only on the outputs of the capabilities it claims ([`Scope`]).
//! Timing failures are reported under the requirement of the record they miss.
//!
//! Times are compared with the manifest's tolerances. Divergences are sorted by time; the
//! first one is what a report shows first.

use std::collections::{BTreeSet, HashMap};

use openrdma_codec::frame::{DecodedFrame, IpRepr, decode};
use openrdma_codec::{AethKind, Opcode, Qpn};
use openrdma_codec::{Ev, Msn};
use openrdma_device::{
    Body, Capability, CpuHalf, Direction, Input, NicEvent, NicReport, Output, Payload, Record,
    Scenario, Side, TimedInput, TimedOutput,
};
use serde::Serialize;

mod arrivals;
mod entries;
mod order;
mod paths;
mod sacks;
mod schedule;
mod wire;

pub use wire::{NOT_ON_SENDER, SHOULD_ON_SENDER, sender_rules};

pub use order::requirements as order_requirements;

use crate::placement;
use arrivals::Arrivals;

/// The outcome of a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Everything expected happened, nothing else.
    Pass,
    /// Only SHOULD-level rules diverged.
    NonStrict,
    /// The device lacks a capability the scenario needs.
    Unsupported,
    /// A MUST-level rule diverged, or the device failed.
    Fail,
}

impl Verdict {
    /// The word used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::NonStrict => "non-strict",
            Verdict::Unsupported => "unsupported",
            Verdict::Fail => "fail",
        }
    }
}

/// One field that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldDiff {
    /// The field, e.g. `reth.va`.
    pub field: String,
    /// Its expected value.
    pub expected: String,
    /// Its value in the device's output.
    pub actual: String,
}

/// One way the device departed from the scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// When (the expected time, or the time of the offending output).
    pub at: u64,
    /// The requirement that is broken.
    pub requirement: String,
    /// What happened, in a few words.
    pub what: String,
    /// The expected record, rendered.
    pub expected: Option<String>,
    /// The device's output, rendered.
    pub actual: Option<String>,
    /// Field by field.
    pub fields: Vec<FieldDiff>,
    /// Whether only a SHOULD is broken: set by the scoreboard for the SHOULD part of a
    /// requirement that also holds a MUST, and by the report from the spec otherwise.
    pub should_only: bool,
}

/// The scoreboard's judgement of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Judgement {
    /// Divergences, earliest first.
    pub divergences: Vec<Divergence>,
    /// Expected records checked.
    pub checked: usize,
}

/// A decoded frame with the fields the scoreboard reasons about.
#[derive(Debug, Clone)]
struct Frame {
    at: u64,
    bytes: Vec<u8>,
    kind: Kind,
    ev: Ev,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Data { qp: u32, psn: u32, rtx: bool },
    Sack { qp: u32, cack: u32, base: u32, bitmap: u64 },
    Nack { qp: u32, psn: u32, reason: u8 },
    Ack { qp: u32, msn: Msn, syndrome: u8 },
    Probe { qp: u32 },
    Endpoint { op: u8, request_id: u32 },
    EndpointRequest { op: u8, request_id: u32 },
    Other { error: Option<String> },
}

fn classify(at: u64, bytes: &[u8]) -> Frame {
    let d = decode(bytes);
    let ev = d.entropy().unwrap_or_default();
    let kind = kind_of(&d);
    Frame { at, bytes: bytes.to_vec(), kind, ev }
}

fn kind_of(d: &DecodedFrame<'_>) -> Kind {
    let Some(bth) = d.bth.filter(|_| d.error.is_none()) else {
        return Kind::Other { error: d.error.map(|e| e.to_string()) };
    };
    let qp = bth.dest_qp.value();
    match bth.opcode {
        op if op.is_mrc_write() => Kind::Data { qp, psn: bth.psn.value(), rtx: bth.rtx },
        Opcode::MRC_SACK => match &d.ext.seth {
            Some(s) => Kind::Sack {
                qp,
                cack: s.cack_psn.value(),
                base: s.bitmap_base().value(),
                bitmap: s.sack_bitmap,
            },
            None => Kind::Other { error: None },
        },
        Opcode::MRC_NACK => match &d.ext.neth {
            Some(n) => Kind::Nack { qp, psn: n.nack_psn.value(), reason: n.reason.0 },
            None => Kind::Other { error: None },
        },
        Opcode::MRC_ACKNOWLEDGE => match &d.ext.aeth {
            Some(a) => Kind::Ack { qp, msn: a.msn.msn(), syndrome: a.syndrome },
            None => Kind::Other { error: None },
        },
        Opcode::MRC_PROBE => Kind::Probe { qp },
        Opcode::MRC_ENDPOINT_RESPONSE => match &d.ext.eeth {
            Some(e) => Kind::Endpoint { op: e.op.0, request_id: e.request_id },
            None => Kind::Other { error: None },
        },
        Opcode::MRC_ENDPOINT_REQUEST => match &d.ext.erth {
            Some(e) => Kind::EndpointRequest { op: e.op.0, request_id: e.request_id },
            None => Kind::Other { error: None },
        },
        _ => Kind::Other { error: None },
    }
}

/// Renders a frame as one line of its significant fields.
pub fn render_frame(bytes: &[u8]) -> String {
    let d = decode(bytes);
    let Some(bth) = d.bth else {
        return match d.error {
            Some(e) => format!("undecodable frame ({e})"),
            None => format!("non-RoCE frame of {} bytes", bytes.len()),
        };
    };
    let mut s = format!("{} qp {:#x} psn {}", bth.opcode, bth.dest_qp.value(), bth.psn.value());
    if bth.rtx {
        s.push_str(" rtx");
    }
    if bth.ack_req {
        s.push_str(" ackreq");
    }
    if let Some(m) = d.ext.meth {
        s.push_str(&format!(" msn {} rqmsn {}", m.msn, m.rqmsn));
    }
    if let Some(r) = d.ext.reth {
        s.push_str(&format!(" va {:#x} rkey {:#x} dma_len {}", r.va, r.rkey, r.dma_len));
    }
    if let Some(i) = d.ext.immdt {
        s.push_str(&format!(" imm {:#x}", i.imm));
    }
    if let Some(x) = d.ext.seth {
        s.push_str(&format!(
            " cack {} offset {} bitmap {:#x} entropy {:#x} pr {}",
            x.cack_psn.value(),
            x.sack_offset,
            x.sack_bitmap,
            x.entropy,
            x.pr
        ));
    }
    if let Some(n) = d.ext.neth {
        s.push_str(&format!(" reason {:#x} nack_psn {}", n.reason.0, n.nack_psn.value()));
    }
    if let Some(a) = d.ext.aeth {
        s.push_str(&format!(" syndrome {:#x} msn {}", a.syndrome, a.msn));
    }
    if let Some(e) = d.ext.erth {
        s.push_str(&format!(" op {} request {:#x} ports {:#b}", e.op, e.request_id, e.port_status));
    }
    if let Some(e) = d.ext.eeth {
        s.push_str(&format!(
            " op {} status {} request {:#x} ports {:#b}",
            e.op, e.status, e.request_id, e.port_status
        ));
    }
    if !d.payload.is_empty() {
        s.push_str(&format!(" payload {} B", d.payload.len()));
    }
    s.push_str(&format!(" ev {:#x} icrc {}", d.entropy().unwrap_or_default(), d.icrc.as_str()));
    s
}

/// Renders an event as one line.
pub fn render_event(e: &NicEvent) -> String {
    match e {
        NicEvent::DmaWrite(w) => format!(
            "DMA write qp {} msn {} psn {} va {:#x} {} B",
            w.qpn,
            w.msn,
            w.psn.value(),
            w.va,
            w.payload.len()
        ),
        NicEvent::FlagWrite(f) => format!(
            "flag write ({:?}) qp {} msn {} addr {:#x} value {:#018x}",
            f.side, f.qpn, f.msn, f.addr, f.value
        ),
        NicEvent::Completion(c) => {
            let e = c.written_entry();
            let mut s = format!(
                "completion ({:?}) qp {} wr_id {:#x} status {:#x} msn {} len {} imm {:#x}",
                c.side, e.qpn, e.wr_id, e.status.0, e.msn, e.byte_len, e.imm
            );
            if let Some(q) = &c.queue {
                s.push_str(&format!(
                    " in queue {} slot {} at {:#x} phase {}",
                    q.cq,
                    q.slot,
                    q.addr,
                    u8::from(e.phase)
                ));
            }
            s
        }
        NicEvent::Report(r) => format!("report {r:?}"),
    }
}

/// The comparable fields of a frame, in order.
fn frame_fields(bytes: &[u8]) -> Vec<(String, String)> {
    let d = decode(bytes);
    let mut out = Vec::new();
    let mut put = |k: &str, v: String| out.push((k.to_string(), v));
    // The encapsulation the link fixes (ENC-*): addresses, VLAN, IP version, UDP port.
    if let Some(e) = d.eth {
        put("eth.dst", e.dst.to_string());
        put("eth.src", e.src.to_string());
    }
    put("vlan.vid", d.vlans.first().map_or("-".into(), |v| v.vid.to_string()));
    match &d.ip {
        Some(IpRepr::V4(ip)) => {
            put("ip.src", ip.src.to_string());
            put("ip.dst", ip.dst.to_string());
        }
        Some(IpRepr::V6(ip)) => {
            put("ip.src", ip.src.to_string());
            put("ip.dst", ip.dst.to_string());
        }
        None => {}
    }
    if let Some(u) = d.udp {
        put("udp.dst_port", u.dst_port.to_string());
    }
    // A TSETH is present exactly when BTH `ts` is set (TSETH-PRESENT-001); its timestamp is
    // the device's own clock and is not compared.
    put("tseth", if d.ext.tseth.is_some() { "present" } else { "absent" }.into());
    // Its flags are fixed (SND-TS-002, TSETH-RESV-001); its timestamp is judged apart.
    if let Some(t) = d.ext.tseth {
        put("tseth.tsr", t.tsr.to_string());
        put("tseth.resv", format!("{:#x}", t.resv));
        put("tseth.ftype", t.ftype.to_string());
    }
    if let Some(b) = d.bth {
        put("bth.opcode", format!("{:#04x}", b.opcode.0));
        put("bth.dest_qp", format!("{:#x}", b.dest_qp.value()));
        put("bth.psn", b.psn.value().to_string());
        put("bth.ack_req", b.ack_req.to_string());
        put("bth.rtx", b.rtx.to_string());
        put("bth.pad_count", b.pad_count.to_string());
        put("bth.pkey", format!("{:#06x}", b.pkey));
        put("bth.solicited", b.solicited.to_string());
    }
    if let Some(m) = d.ext.meth {
        put("meth.msn", m.msn.to_string());
        put("meth.rqmsn", m.rqmsn.to_string());
    }
    if let Some(r) = d.ext.reth {
        put("reth.va", format!("{:#x}", r.va));
        put("reth.rkey", format!("{:#x}", r.rkey));
        put("reth.dma_len", r.dma_len.to_string());
    }
    put("immdt.imm", d.ext.immdt.map_or("-".into(), |i| format!("{:#x}", i.imm)));
    if let Some(n) = d.ext.neth {
        // Its reserved fields are judged by CONF-CMP-016; the rest here (CONF-CMP-017).
        put("neth.reason", format!("{:#04x}", n.reason.0));
        put("neth.nack_psn", n.nack_psn.value().to_string());
        put("neth.entropy", format!("{:#010x}", n.entropy));
        put("neth.tx_timestamp", n.tx_timestamp.to_string());
        put("neth.res_type", n.res_type.to_string());
        put("neth.next_header", n.next_header.to_string());
        put("neth.vendor_info", format!("{:#04x}", n.vendor_info));
        put("neth.spdcid", format!("{:#06x}", n.spdcid));
        put("neth.dpdcid", format!("{:#06x}", n.dpdcid));
        put("neth.cc_type", n.cc_type.to_string());
        put("neth.cc_flags", n.cc_flags.to_string());
    }
    if let Some(p) = d.ext.peth {
        // The probe counter (EV-PROBE-005); the timestamp is the device's clock.
        put("peth.probe_id", p.probe_id.to_string());
    }
    if let Some(a) = d.ext.aeth {
        put("aeth.syndrome", format!("{:#04x}", a.syndrome));
        put("aeth.msn", a.msn.to_string());
    }
    if let Some(e) = d.ext.erth {
        // An endpoint request goes where, and says what, the CPU half commanded, with the
        // device's own ports (CONF-CMP-031).
        put("ev", format!("{:#x}", d.entropy().unwrap_or_default()));
        put("erth.op", format!("{:#04x}", e.op.0));
        put("erth.resv1", e.resv1.to_string());
        put("erth.port_status", format!("{:#b}", e.port_status));
        put("erth.request_id", format!("{:#x}", e.request_id));
        put("erth.resv12", e.resv12.to_string());
    }
    if let Some(e) = d.ext.eeth {
        // An endpoint response answers a request the scenario injected: its path is the
        // request's (ERTH-RESP-001), and so is every field but `data`.
        put("ev", format!("{:#x}", d.entropy().unwrap_or_default()));
        put("eeth.op", format!("{:#04x}", e.op.0));
        put("eeth.status", e.status.to_string());
        put("eeth.resv2", e.resv2.to_string());
        put("eeth.port_status", format!("{:#b}", e.port_status));
        put("eeth.request_id", format!("{:#x}", e.request_id));
        put("eeth.data", hex_digest(&e.data));
    }
    put("payload", hex_digest(d.payload));
    put("icrc", d.icrc.as_str().to_string());
    out
}

fn hex_digest(b: &[u8]) -> String {
    if b.len() <= 16 {
        b.iter().map(|x| format!("{x:02x}")).collect()
    } else {
        let h = crc32fast::hash(b);
        format!("{} B, crc32 {h:08x}", b.len())
    }
}

fn diff(expected: &[(String, String)], actual: &[(String, String)]) -> Vec<FieldDiff> {
    let a: HashMap<&str, &str> = actual.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut out = Vec::new();
    for (k, v) in expected {
        let got = a.get(k.as_str()).copied().unwrap_or("(absent)");
        if got != v {
            out.push(FieldDiff { field: k.clone(), expected: v.clone(), actual: got.to_string() });
        }
    }
    out
}

/// The requirement a record checks, or `default`.
fn req_of(r: &Record, default: &str) -> String {
    r.checks.first().cloned().unwrap_or_else(|| default.to_string())
}

/// The requirement a difference in a field of record `r` is reported under (section 6):
/// the first the record checks, unless it checks `own`, the requirement the field itself
/// names, which is then the one.
fn req_of_field(r: &Record, own: &str) -> String {
    if r.checks.iter().any(|c| c == own) { own.to_string() } else { req_of(r, own) }
}

/// What of a device's output the scoreboard judges (CONF-CMP-012): everything, except the
/// outputs of a capability the device does not claim. A device without `retirement` (a
/// receiver block without its completion engine, say) is judged on its frames and DMA
/// writes but not on flag writes, completion entries and transport acknowledgements; a
/// device without `cpu-split` is not judged on its reports to the CPU half.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    /// Judge flag writes, completion entries and transport ACKs and NAKs.
    pub retirement: bool,
    /// Judge reports to the CPU half (other than a QP going to error, which is always
    /// judged when the scenario expects it).
    pub cpu_split: bool,
}

impl Scope {
    /// Everything: a device that claims every capability, or a capture judged offline.
    pub const FULL: Scope = Scope { retirement: true, cpu_split: true };

    /// The scope of a device that claims `caps`.
    pub fn of(caps: &BTreeSet<Capability>) -> Scope {
        Scope {
            retirement: caps.contains(&Capability::Retirement),
            cpu_split: caps.contains(&Capability::CpuSplit),
        }
    }

    /// Whether an event of this kind is judged.
    fn judges_event(self, e: &NicEvent) -> bool {
        match e {
            NicEvent::FlagWrite(_) | NicEvent::Completion(_) => self.retirement,
            _ => true,
        }
    }

    /// Whether a frame of this kind is judged.
    fn judges_frame(self, bytes: &[u8]) -> bool {
        self.retirement || !matches!(kind_of(&decode(bytes)), Kind::Ack { .. })
    }
}

/// Judges a run of a device that claims every capability. `injected` are the inputs as
/// delivered (after any rewriting).
pub fn judge(scenario: &Scenario, injected: &[TimedInput], observed: &[TimedOutput]) -> Judgement {
    judge_in(scenario, injected, observed, Scope::FULL)
}

/// Judges a run within `scope`: expected records and outputs outside it are set aside.
pub fn judge_in(
    scenario: &Scenario,
    injected: &[TimedInput],
    observed: &[TimedOutput],
    scope: Scope,
) -> Judgement {
    if scenario.manifest.cpu == CpuHalf::Device {
        // CONF-CMP-020: the split is inside the device; its reports, if it gives any, are
        // not judged (and the scenario expects none).
        let observed: Vec<TimedOutput> = observed
            .iter()
            .filter(|o| !matches!(o.output, Output::Event { event: NicEvent::Report(_) }))
            .cloned()
            .collect();
        let scope = Scope { cpu_split: false, ..scope };
        return judge_reportless(scenario, injected, &observed, scope);
    }
    judge_reportless(scenario, injected, observed, scope)
}

/// [`judge_in`] once the reports of a device with its own CPU half are set aside.
fn judge_reportless(
    scenario: &Scenario,
    injected: &[TimedInput],
    observed: &[TimedOutput],
    scope: Scope,
) -> Judgement {
    if scope == Scope::FULL {
        return judge_all(scenario, injected, observed, scope);
    }
    let keep = |body: &Body| match body {
        Body::Event { event } => scope.judges_event(event),
        Body::Frame { bytes, .. } => scope.judges_frame(bytes),
        _ => true,
    };
    let scoped = Scenario {
        manifest: scenario.manifest.clone(),
        records: scenario
            .records
            .iter()
            .filter(|r| r.dir == Direction::Inject || keep(&r.body))
            .cloned()
            .collect(),
    };
    let observed: Vec<TimedOutput> = observed
        .iter()
        .filter(|o| match &o.output {
            Output::Event { event } => scope.judges_event(event),
            Output::Frame { bytes, .. } => scope.judges_frame(bytes),
        })
        .cloned()
        .collect();
    judge_all(&scoped, injected, &observed, scope)
}

fn judge_all(
    scenario: &Scenario,
    injected: &[TimedInput],
    observed: &[TimedOutput],
    scope: Scope,
) -> Judgement {
    let tol = &scenario.manifest.tolerances;
    let mut div: Vec<Divergence> = Vec::new();
    let mut checked = 0;

    // ---- frames ---------------------------------------------------------------------
    let exp_frames: Vec<(&Record, Frame)> = scenario
        .records
        .iter()
        .filter(|r| r.dir == Direction::Expect)
        .filter_map(|r| match &r.body {
            Body::Frame { bytes, .. } => Some((r, classify(r.at.0, bytes))),
            _ => None,
        })
        .collect();
    let obs_frames: Vec<Frame> = observed
        .iter()
        .filter_map(|o| match &o.output {
            Output::Frame { bytes, .. } => Some(classify(o.at.0, bytes)),
            _ => None,
        })
        .collect();
    let mut used = vec![false; obs_frames.len()];
    let arrivals = Arrivals::new(scenario, injected);

    // Outputs of an MRC QP numbered 2 (ERTH-QPN-001), first: they explain the rest.
    judge_reserved_qpn(scenario, &obs_frames, observed, &mut div);

    // Every frame decodes and obeys the wire rules; every packet takes an EV of its own.
    wire::judge(&obs_frames, &mut div);
    wire::judge_evs(scenario, &obs_frames, &mut div);

    // Within the tolerances; but retransmitting a lost packet sooner than the reference did
    // (the device's own paths showed the loss sooner) is no fault: only lateness counts
    // (CONF-TIME-005). Unless the device brings its own CPU half: its timers, which the
    // scenario tests, are what times its retransmissions.
    let own_cpu = scenario.manifest.cpu == CpuHalf::Device;
    let on_time = |exp_at: u64, got_at: u64, retransmission: bool| {
        let late_ok = got_at <= exp_at.saturating_add(tol.late_ns);
        late_ok && ((retransmission && !own_cpu) || got_at + tol.early_ns >= exp_at)
    };

    // Keyed matches: data, NACK, ACK, probe; (expected, observed) index pairs.
    let mut matches: Vec<(usize, usize)> = Vec::new();
    for (e, (rec, ef)) in exp_frames.iter().enumerate() {
        let key_ok = |of: &Frame| match (&ef.kind, &of.kind) {
            (Kind::Data { .. }, Kind::Data { .. })
            | (Kind::Nack { .. }, Kind::Nack { .. })
            | (Kind::Probe { .. }, Kind::Probe { .. })
            | (Kind::Endpoint { .. }, Kind::Endpoint { .. })
            | (Kind::EndpointRequest { .. }, Kind::EndpointRequest { .. }) => ef.kind == of.kind,
            (Kind::Ack { qp, msn, syndrome }, Kind::Ack { qp: q2, msn: m2, syndrome: s2 }) => {
                qp == q2 && msn == m2 && ack_class(*syndrome) == ack_class(*s2)
            }
            _ => false,
        };
        if matches!(ef.kind, Kind::Sack { .. } | Kind::Other { .. }) {
            continue;
        }
        checked += 1;
        let found = (0..obs_frames.len()).find(|&i| !used[i] && key_ok(&obs_frames[i]));
        let default_req = match ef.kind {
            Kind::Data { rtx: true, .. } => "SND-RTX-001",
            Kind::Data { .. } => "SND-SEG-001",
            Kind::Nack { .. } => "RCV-NACK-001",
            Kind::Ack { .. } => "RCV-ACK-001",
            Kind::Endpoint { .. } => "ERTH-RESP-001",
            Kind::EndpointRequest { .. } => "REC-IF-017",
            _ => "EV-PROBE-005",
        };
        match found {
            None => div.push(Divergence {
                at: rec.at.0,
                requirement: req_of(rec, default_req),
                what: "an expected packet was not sent".into(),
                expected: Some(render_frame(&ef.bytes)),
                actual: None,
                fields: vec![],
                should_only: false,
            }),
            Some(i) => {
                used[i] = true;
                matches.push((e, i));
                let of = &obs_frames[i];
                let mut fields = diff(&frame_fields(&ef.bytes), &frame_fields(&of.bytes));
                {
                    // The PSN of a packet that consumes none is a SHOULD (OPC-PSN-001), and
                    // so are the credit code of an ACK (AETH-MRC-002), the NETH fields of
                    // CONF-CMP-017 and a data packet's TSETH `ftype` (TSETH-FTYPE-001):
                    // reported apart, so that they make the verdict non-strict, not a
                    // failure. A data packet's PSN is a MUST.
                    let data = matches!(ef.kind, Kind::Data { .. });
                    let (should, must): (Vec<FieldDiff>, Vec<FieldDiff>) =
                        fields.into_iter().partition(|f| {
                            should_field(f).is_some() && (!data || f.field.starts_with("tseth."))
                        });
                    fields = must;
                    for f in should {
                        let requirement = should_field(&f).unwrap_or("OPC-PSN-001");
                        div.push(Divergence {
                            at: of.at,
                            requirement: requirement.into(),
                            what: format!("{} differs from the recommended value", f.field),
                            expected: Some(render_frame(&ef.bytes)),
                            actual: Some(render_frame(&of.bytes)),
                            fields: vec![f],
                            should_only: true,
                        });
                    }
                }
                if !fields.is_empty() {
                    let req = match fields[0].field.as_str() {
                        "bth.ack_req" => "SND-ACKREQ-001",
                        f if f.starts_with("reth") => "SND-SEG-003",
                        f if f.starts_with("immdt") => "SND-SEG-004",
                        "bth.opcode" => "SND-SEG-002",
                        "payload" if matches!(ef.kind, Kind::Data { rtx: true, .. }) => {
                            "SND-RTX-001"
                        }
                        "payload" => "SND-SEG-001",
                        "icrc" => "ICRC-CALC-001",
                        "udp.dst_port" => "ENC-UDP-001",
                        "neth.entropy" => "NETH-PSN-001",
                        "neth.tx_timestamp" => "NETH-TS-001",
                        "peth.probe_id" => "EV-PROBE-005",
                        "tseth" => "TSETH-PRESENT-001",
                        "ev" if matches!(ef.kind, Kind::EndpointRequest { .. }) => "REC-IF-017",
                        "ev" => "ERTH-RESP-001",
                        "erth.port_status" => "ERTH-PORT-001",
                        "erth.resv1" | "erth.resv12" => "ERTH-RESV-001",
                        "eeth.status" => "EETH-STATUS-001",
                        "eeth.port_status" => "EETH-PORT-001",
                        "eeth.resv2" => "EETH-RESV-001",
                        "bth.dest_qp"
                            if matches!(
                                ef.kind,
                                Kind::Endpoint { .. } | Kind::EndpointRequest { .. }
                            ) =>
                        {
                            "ERTH-QPN-001"
                        }
                        "tseth.tsr" => "SND-TS-002",
                        "tseth.resv" => "TSETH-RESV-001",
                        f if f.starts_with("eth.")
                            || f.starts_with("ip.")
                            || f.starts_with("vlan.") =>
                        {
                            "CONF-CMP-026"
                        }
                        _ => default_req,
                    };
                    // Under the record's first check, unless it names the field's own.
                    let requirement = req_of_field(rec, req);
                    div.push(Divergence {
                        at: of.at,
                        requirement,
                        what: "a packet differs from the expected one".into(),
                        expected: Some(render_frame(&ef.bytes)),
                        actual: Some(render_frame(&of.bytes)),
                        fields,
                        should_only: false,
                    });
                } else if !on_time(rec.at.0, of.at, matches!(ef.kind, Kind::Data { rtx: true, .. }))
                {
                    div.push(Divergence {
                        at: of.at,
                        requirement: req_of(rec, default_req),
                        what: format!(
                            "sent at {} ns, expected at {} ns: outside the tolerance of \
                             -{} / +{} ns (CONF-TIME-005)",
                            of.at, rec.at.0, tol.early_ns, tol.late_ns
                        ),
                        expected: Some(render_frame(&ef.bytes)),
                        actual: Some(render_frame(&of.bytes)),
                        fields: vec![],
                        should_only: false,
                    });
                }
            }
        }
    }

    // The order of the device's writes (CONF-CMP-022), before the unexpected packets: a
    // data packet after its message's sender flag is reported as that first.
    order::judge(scenario, observed, &peer_map(scenario), &mut div);

    // Unexpected data, NACK, ACK and probe packets.
    let acked_msns: Vec<(u32, Msn)> = exp_frames
        .iter()
        .filter_map(|(_, f)| match f.kind {
            Kind::Ack { qp, msn, .. } => Some((qp, msn)),
            _ => None,
        })
        .collect();
    // Retransmissions the CPU half commanded (REC-RTO-003): per device QP, the times of
    // the commands injected into the device, by the scenario or the runner's agent; none
    // when the CPU half is inside the device (CONF-CMP-019).
    let local_of = peer_map(scenario);
    let commanded: Vec<(u32, u64)> = injected
        .iter()
        .filter(|_| !own_cpu)
        .filter_map(|i| match &i.input {
            Input::Cpu { command: openrdma_device::CpuCommand::Retransmit { qpn, .. } } => {
                Some((qpn.value(), i.at.0))
            }
            _ => None,
        })
        .collect();
    let mut used_commands = vec![false; commanded.len()];
    // When the scenario expects each requester QP to fail: its first error completion.
    let failed_at: HashMap<u32, u64> = {
        let mut m = HashMap::new();
        for r in scenario.records.iter().filter(|r| r.dir == Direction::Expect) {
            if let Body::Event { event: NicEvent::Completion(c) } = &r.body {
                if c.side == Side::Requester && c.entry.status.0 != 0 {
                    m.entry(c.entry.qpn.value()).or_insert(r.at.0);
                }
            }
        }
        m
    };
    for (i, of) in obs_frames.iter().enumerate() {
        if used[i] {
            continue;
        }
        let (req, what) = match of.kind {
            Kind::Data { qp, rtx: true, .. } => {
                // One retransmission per command, sent when the command arrived.
                let local = local_of.get(&qp).copied();
                let cmd = commanded.iter().enumerate().position(|(k, &(q, t))| {
                    !used_commands[k] && Some(q) == local && t <= of.at && of.at <= t + tol.late_ns
                });
                if let Some(k) = cmd {
                    used_commands[k] = true;
                    continue;
                }
                ("SND-RTX-004", "a retransmission of a packet that was not lost")
            }
            Kind::Data { .. } => ("SND-PSN-001", "a data packet the scenario does not expect"),
            Kind::Nack { qp, psn, .. } => {
                // CONF-CMP-023: a NACK for frames to discard is named by what is wrong.
                match local_of.get(&qp).and_then(|&l| arrivals.only_discarded(l, psn, of.at)) {
                    Some(reason) => {
                        (reason, "a NACK for a PSN whose only copies were frames to discard")
                    }
                    None => ("RCV-NACK-001", "a NACK the scenario does not expect"),
                }
            }
            Kind::Endpoint { op, request_id } => endpoint_blame(injected, op, request_id),
            Kind::EndpointRequest { op, .. } if !openrdma_codec::EndpointOp(op).is_known() => {
                ("ERTH-OP-001", "an endpoint request for an operation the ERTH does not define")
            }
            Kind::EndpointRequest { .. } => {
                ("REC-IF-017", "an endpoint request the CPU half did not command")
            }
            Kind::Ack { qp, msn, .. } if acked_msns.contains(&(qp, msn)) => continue,
            Kind::Ack { .. } => ("RCV-ACK-002", "a transport ACK for a message not retired"),
            Kind::Probe { qp } if own_cpu => {
                // The device's own CPU half commanded a probe it should not have: of an EV
                // it does not hold ASSUMED_BAD, too soon, or after the QP failed.
                match local_of.get(&qp).and_then(|l| failed_at.get(l)) {
                    Some(&t) if t <= of.at => {
                        ("REC-PROBE-002", "a probe after its QP went to the error state")
                    }
                    _ => ("REC-PROBE-001", "a probe the scenario does not expect"),
                }
            }
            Kind::Probe { .. } => {
                ("EV-PROBE-005", "a probe that neither the CPU half nor the spray policy queued")
            }
            Kind::Sack { .. } | Kind::Other { .. } => continue,
        };
        div.push(Divergence {
            at: of.at,
            requirement: req.into(),
            what: what.into(),
            expected: None,
            actual: Some(render_frame(&of.bytes)),
            fields: vec![],
            should_only: false,
        });
    }

    // Paths: the usable pool and the retransmission EV (CONF-CMP-027), and under
    // `spray-policies` the recorded EVs exactly (CONF-CMP-028).
    paths::judge(scenario, injected, &obs_frames, &mut div);
    paths::judge_exact(scenario, &exp_frames, &obs_frames, &matches, &mut div);
    // Order: packets recorded together (CONF-CMP-029), and the timestamp clock
    // (CONF-CMP-030).
    schedule::judge_order(scenario, &exp_frames, &obs_frames, &matches, &mut div);
    schedule::judge_clock(&obs_frames, &mut div);

    // SACKs: truth and timely progress.
    sacks::judge(scenario, &arrivals, &exp_frames, &obs_frames, tol, &mut div, &mut checked);

    // ---- events ---------------------------------------------------------------------
    judge_events(scenario, &arrivals, observed, scope, &mut div, &mut checked);
    if scope.cpu_split {
        judge_retransmit_reports(scenario, observed, &obs_frames, &mut div);
    }

    div.sort_by_key(|d| d.at);
    Judgement { divergences: div, checked }
}

/// The SHOULD that fixes a field of a packet that consumes no PSN, if one does: a
/// difference in it makes a verdict non-strict, not a failure (CONF-CMP-005, CONF-CMP-017).
fn should_field(f: &FieldDiff) -> Option<&'static str> {
    match f.field.as_str() {
        "bth.psn" => Some("OPC-PSN-001"),
        "aeth.syndrome" if is_ack_pair(f) => Some("AETH-MRC-002"),
        "neth.res_type" | "neth.next_header" => Some("NETH-TYPE-001"),
        "neth.vendor_info" => Some("NETH-VENDOR-001"),
        "neth.spdcid" | "neth.dpdcid" => Some("NETH-PDC-001"),
        "neth.cc_type" | "neth.cc_flags" => Some("NETH-CC-001"),
        "tseth.ftype" => Some("TSETH-FTYPE-001"),
        // The data of an endpoint response, and the choice among the non-zero statuses of
        // one (a failure reported under another code).
        "eeth.data" => Some("EETH-DATA-001"),
        "eeth.status" if f.expected != "0" && f.actual != "0" => Some("EETH-STATUS-001"),
        _ => None,
    }
}

/// Why an endpoint response that answers no expected request is wrong (CONF-CMP-033), from
/// what the scenario injected with its `op` and `request_id`: a request to a QPN other than
/// 2, which must be discarded (`ERTH-QPN-001`); a response, or a request already answered,
/// which must not be answered (again) (`ERTH-RESP-001`); or nothing, so that the response
/// does not carry the `op` and `request_id` of a request (`EETH-ECHO-001`).
fn endpoint_blame(
    injected: &[TimedInput],
    op: u8,
    request_id: u32,
) -> (&'static str, &'static str) {
    let mut found = None;
    for i in injected {
        let Input::Frame { bytes, .. } = &i.input else { continue };
        let d = decode(bytes);
        let Some(bth) = d.bth else { continue };
        let (e_op, e_id) = match (d.ext.erth, d.ext.eeth) {
            (Some(e), _) => (e.op.0, e.request_id),
            (_, Some(e)) => (e.op.0, e.request_id),
            _ => continue,
        };
        if (e_op, e_id) != (op, request_id) {
            continue;
        }
        found = Some(match (bth.opcode, bth.dest_qp == Qpn::ENDPOINT) {
            (Opcode::MRC_ENDPOINT_REQUEST, false) => {
                ("ERTH-QPN-001", "an answer to an endpoint request addressed to another QPN than 2")
            }
            (Opcode::MRC_ENDPOINT_REQUEST, true) => {
                ("ERTH-RESP-001", "a second answer to one endpoint request")
            }
            _ => ("ERTH-RESP-001", "an answer to an endpoint response"),
        });
    }
    found.unwrap_or(("EETH-ECHO-001", "an endpoint response to no request the scenario made"))
}

/// QPN 2 belongs to endpoint operations: a device that acts as an MRC QP numbered 2 breaks
/// ERTH-QPN-001 (CONF-CMP-033). Its outputs are an event of QP 2, a frame to the peer of a
/// QP the scenario tried to create as QP 2 (and of no other QP), and a frame to QPN 2 that
/// is not an endpoint operation.
fn judge_reserved_qpn(
    scenario: &Scenario,
    obs_frames: &[Frame],
    observed: &[TimedOutput],
    div: &mut Vec<Divergence>,
) {
    let endpoint = Qpn::ENDPOINT.value();
    let mut peers_of_2 = BTreeSet::new();
    let mut peers_of_others = BTreeSet::new();
    for r in &scenario.records {
        if let Body::Host { command: openrdma_device::HostCommand::CreateQp(q) } = &r.body {
            let set =
                if q.qpn.value() == endpoint { &mut peers_of_2 } else { &mut peers_of_others };
            set.insert(q.peer_qpn.value());
        }
    }
    let mut push = |at: u64, what: &str, actual: String| {
        div.push(Divergence {
            at,
            requirement: "ERTH-QPN-001".into(),
            what: what.into(),
            expected: None,
            actual: Some(actual),
            fields: vec![],
            should_only: false,
        })
    };
    for f in obs_frames {
        let Some(bth) = decode(&f.bytes).bth else { continue };
        if matches!(bth.opcode, Opcode::MRC_ENDPOINT_REQUEST | Opcode::MRC_ENDPOINT_RESPONSE) {
            continue;
        }
        let to = bth.dest_qp.value();
        if to == endpoint {
            push(
                f.at,
                "an MRC QP packet to QPN 2, which endpoint operations keep",
                render_frame(&f.bytes),
            );
        } else if peers_of_2.contains(&to) && !peers_of_others.contains(&to) {
            push(f.at, "a packet from an MRC QP numbered 2", render_frame(&f.bytes));
        }
    }
    for o in observed {
        if let Output::Event { event } = &o.output {
            if event_qpn(event) == Some(endpoint) {
                push(o.at.0, "an event of an MRC QP numbered 2", render_event(event));
            }
        }
    }
}

/// The device QP an event concerns; none for an endpoint response, which concerns the two
/// endpoints (ERTH-QPN-001).
fn event_qpn(e: &NicEvent) -> Option<u32> {
    use NicReport as R;
    let q = match e {
        NicEvent::DmaWrite(w) => w.qpn,
        NicEvent::FlagWrite(f) => f.qpn,
        NicEvent::Completion(c) => c.entry.qpn,
        NicEvent::Report(
            R::Progress { qpn, .. }
            | R::Armed { qpn, .. }
            | R::Nack { qpn, .. }
            | R::EvMarked { qpn, .. }
            | R::EvState { qpn, .. }
            | R::ProbeAnswered { qpn, .. }
            | R::Retransmitted { qpn, .. }
            | R::QpError { qpn, .. },
        ) => *qpn,
        NicEvent::Report(R::EndpointResponse { .. }) => return None,
    };
    Some(q.value())
}

/// Whether a syndrome difference is between two ACKs (credit codes only).
fn is_ack_pair(f: &FieldDiff) -> bool {
    let parse = |v: &str| u8::from_str_radix(v.trim_start_matches("0x"), 16).ok();
    match (parse(&f.expected), parse(&f.actual)) {
        (Some(a), Some(b)) => ack_class(a).0 && ack_class(b).0,
        _ => false,
    }
}

/// An ACK (any credit code) or the exact NAK syndrome.
fn ack_class(syndrome: u8) -> (bool, u8) {
    let ack = AethKind::of(syndrome) == AethKind::Ack;
    if ack { (true, 0) } else { (false, syndrome) }
}

/// Maps peer QP numbers to the device's QP numbers, from the QPs the scenario creates.
fn peer_map(scenario: &Scenario) -> HashMap<u32, u32> {
    let mut m = HashMap::new();
    for r in &scenario.records {
        if let Body::Host { command: openrdma_device::HostCommand::CreateQp(q) } = &r.body {
            m.insert(q.peer_qpn.value(), q.qpn.value());
        }
    }
    m
}

fn payload_bytes(p: &Payload) -> Vec<u8> {
    match p {
        Payload::Bytes(b) => b.to_vec(),
        Payload::Host { addr, len } => openrdma_device::memory(*addr, *len),
    }
}

fn judge_events(
    scenario: &Scenario,
    arrivals: &Arrivals,
    observed: &[TimedOutput],
    scope: Scope,
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
    let tol = &scenario.manifest.tolerances;
    let exp: Vec<(&Record, &NicEvent)> = scenario
        .records
        .iter()
        .filter(|r| r.dir == Direction::Expect)
        .filter_map(|r| match &r.body {
            Body::Event { event } => Some((r, event)),
            _ => None,
        })
        .collect();
    let obs: Vec<(u64, &NicEvent)> = observed
        .iter()
        .filter_map(|o| match &o.output {
            Output::Event { event } => Some((o.at.0, event)),
            _ => None,
        })
        .collect();

    judge_placement(&exp, &obs, arrivals, div, checked);

    // Every completion entry on its own, and as a write to its queue (CQE-*).
    let history = entries::judge(scenario, &obs, tol.late_ns, div);

    // Flags and completions: sequences per side, compared in order. Each entry keeps its
    // index: among the expected records (for its `checks`), among the device's events (for
    // what its queue slot held before).
    let seq = |events: &mut dyn Iterator<Item = (u64, &NicEvent)>,
               pick: &dyn Fn(&NicEvent) -> bool| {
        events
            .enumerate()
            .filter(|(_, (_, e))| pick(e))
            .map(|(i, (t, e))| (t, e.clone(), i))
            .collect::<Vec<_>>()
    };
    type Pick<'a> = &'a dyn Fn(&NicEvent) -> bool;
    let kinds: [(&str, Pick<'_>); 4] = [
        ("responder flags", &|e| matches!(e, NicEvent::FlagWrite(f) if f.side == Side::Responder)),
        ("requester flags", &|e| matches!(e, NicEvent::FlagWrite(f) if f.side == Side::Requester)),
        (
            "responder completions",
            &|e| matches!(e, NicEvent::Completion(c) if c.side == Side::Responder),
        ),
        (
            "requester completions",
            &|e| matches!(e, NicEvent::Completion(c) if c.side == Side::Requester),
        ),
    ];
    for (name, pick) in kinds {
        let want: Vec<(u64, NicEvent, usize)> =
            seq(&mut exp.iter().map(|(r, e)| (r.at.0, *e)), pick);
        let got: Vec<(u64, NicEvent, usize)> = seq(&mut obs.iter().map(|(t, e)| (*t, *e)), pick);
        *checked += want.len();
        let default_req = match name {
            "responder flags" => "RET-ORDER-001",
            "requester flags" => "FLAG-SEND-001",
            "responder completions" => "CQE-RECV-001",
            _ => "CQE-SEND-001",
        };
        for k in 0..want.len().max(got.len()) {
            let (w, g) = (want.get(k), got.get(k));
            let (fields, what) = match (w, g) {
                (Some((wt, we, _)), Some((gt, ge, _))) => {
                    let f = event_diff(we, ge);
                    if f.is_empty() {
                        let deadline = wt.saturating_add(tol.late_ns);
                        if *gt <= deadline {
                            continue;
                        }
                        (
                            vec![],
                            format!(
                                "{name}: entry {k} came at {gt} ns, later than {wt} ns + {} ns \
                                 (CONF-TIME-006)",
                                tol.late_ns
                            ),
                        )
                    } else {
                        (f, format!("{name}: entry {k} differs"))
                    }
                }
                (Some(_), None) => (vec![], format!("{name}: expected entry {k} is missing")),
                (None, Some(_)) => (vec![], format!("{name}: unexpected entry {k}")),
                (None, None) => continue,
            };
            let by_field = match (name, fields.first().map(|f| f.field.as_str())) {
                ("responder flags", Some("msn") | Some("qpn")) => "RET-ORDER-001",
                ("responder flags", Some(_)) => "RET-FLAG-001",
                _ => default_req,
            };
            // An expected entry that names what it checks is reported under it (section 6),
            // unless the entry that differs came well before it: then something earlier
            // caused it.
            let early =
                matches!((w, g), (Some((wt, ..)), Some((gt, ..))) if gt + tol.early_ns < *wt);
            // A responder flag of another message (its MSN or QP differs) is the order of
            // retirement broken, whatever the displaced record checks.
            let other_entry = by_field == "RET-ORDER-001" && !fields.is_empty();
            let named = match w {
                Some((_, _, r)) if !early && !other_entry => {
                    exp[*r].0.checks.first().map(String::as_str)
                }
                _ => None,
            };
            let requirement = match (w, g) {
                (
                    Some((_, NicEvent::Completion(we), _)),
                    Some((_, NicEvent::Completion(ge), i)),
                ) if !fields.is_empty() => {
                    // A fault the entry's bytes show names its own rule.
                    let default = named.unwrap_or(by_field);
                    entries::requirement(we, ge, &fields, history.get(i), default)
                }
                _ => named.unwrap_or(by_field),
            };
            div.push(Divergence {
                at: g.or(w).map_or(0, |x| x.0),
                requirement: requirement.into(),
                what,
                expected: w.map(|x| render_event(&x.1)),
                actual: g.map(|x| render_event(&x.1)),
                fields,
                should_only: false,
            });
            break; // the first divergence of a sequence says it all
        }
    }

    // A QP the scenario expects to fail must be reported in error.
    for (r, e) in &exp {
        if let NicEvent::Report(NicReport::QpError { qpn, .. }) = e {
            *checked += 1;
            let seen = obs.iter().any(|(_, o)| matches!(o, NicEvent::Report(NicReport::QpError { qpn: q, .. }) if q == qpn));
            if !seen {
                div.push(Divergence {
                    at: r.at.0,
                    requirement: req_of(r, "REC-IF-009"),
                    what: format!("QP {qpn} was expected to go to the error state"),
                    expected: Some(render_event(e)),
                    actual: None,
                    fields: vec![],
                    should_only: false,
                });
            }
        }
    }
    if scope.cpu_split {
        judge_reports(&exp, &obs, tol.late_ns, div, checked);
    }
}

/// Every retransmission and resend the device sends is reported to the CPU half with its
/// PSN (REC-IF-008), and nothing else is: the `Retransmitted` reports must match the data
/// packets with `rtx` set that the device sent, one for one, by QP and PSN, within
/// `late_ns`. Their causes and `lost_ev` follow from the device's own paths and are not
/// compared.
/// DMA placement by the bytes that land (CONF-CMP-034, `placement`), and each write held to
/// the injected copies of the packet it names, when it names one (CONF-CMP-023).
fn judge_placement(
    exp: &[(&Record, &NicEvent)],
    obs: &[(u64, &NicEvent)],
    arrivals: &Arrivals,
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
    let ranges: Vec<(&Record, placement::Range)> = exp
        .iter()
        .filter_map(|(r, e)| match e {
            NicEvent::DmaWrite(w) => Some((
                *r,
                placement::Range {
                    qp: w.qpn.value(),
                    msn: w.msn.into(),
                    va: w.va,
                    bytes: payload_bytes(&w.payload),
                },
            )),
            _ => None,
        })
        .collect();
    *checked += ranges.len();
    let mut writes = Vec::new();
    let mut flags = Vec::new();
    for (pos, (at, e)) in obs.iter().enumerate() {
        match e {
            NicEvent::FlagWrite(f) if f.side == Side::Responder => {
                flags.push((*at, placement::Flag { pos, qp: f.qpn.value(), msn: f.msn.into() }));
            }
            NicEvent::DmaWrite(w) => {
                // CONF-CMP-023: a packet is placed only after a copy of it arrived.
                let (q, p) = (w.qpn.value(), w.psn.value());
                if !arrivals.arrived(q, p, *at) {
                    let (requirement, what) = match arrivals.only_discarded(q, p, *at) {
                        Some(reason) => (reason, "a DMA write of a frame to discard".to_string()),
                        None => (
                            "RCV-PLACE-003",
                            format!("a DMA write of PSN {p}, of which no copy had arrived"),
                        ),
                    };
                    div.push(Divergence {
                        at: *at,
                        requirement: requirement.into(),
                        what,
                        expected: None,
                        actual: Some(render_event(e)),
                        fields: vec![],
                        should_only: false,
                    });
                }
                writes.push((
                    *at,
                    *e,
                    placement::Write { pos, va: w.va, bytes: payload_bytes(&w.payload) },
                ));
            }
            _ => {}
        }
    }
    let plain_writes: Vec<placement::Write> = writes.iter().map(|w| w.2.clone()).collect();
    let plain_flags: Vec<placement::Flag> = flags.iter().map(|f| f.1).collect();
    for f in placement::judge(
        &ranges.iter().map(|r| r.1.clone()).collect::<Vec<_>>(),
        &plain_writes,
        &plain_flags,
    ) {
        let d = match f {
            placement::Finding::Missing { range, offset, differ } => {
                let (r, x) = &ranges[range];
                Divergence {
                    at: r.at.0,
                    requirement: req_of(r, "RCV-PLACE-003"),
                    what: format!(
                        "expected bytes did not land: {differ} of {} B at {:#x} differ, the first at +{offset:#x}",
                        x.bytes.len(),
                        x.va
                    ),
                    expected: Some(format!(
                        "DMA write qp {:#x} va {:#x} {} B",
                        x.qp,
                        x.va,
                        x.bytes.len()
                    )),
                    actual: None,
                    fields: vec![],
                    should_only: false,
                }
            }
            placement::Finding::BeforeFlag { range, flag } => {
                let (r, x) = &ranges[range];
                Divergence {
                    at: flags[flag].0,
                    requirement: "FLAG-ORDER-001".into(),
                    what: format!(
                        "the flag of message {} came before its data at {:#x}",
                        x.msn, x.va
                    ),
                    expected: Some(render_event(match &r.body {
                        Body::Event { event } => event,
                        _ => continue,
                    })),
                    actual: None,
                    fields: vec![],
                    should_only: false,
                }
            }
            placement::Finding::Outside { write, va, len } => Divergence {
                at: writes[write].0,
                requirement: "RCV-PLACE-003".into(),
                what: format!("a DMA write of {len} B the scenario does not expect, from {va:#x}"),
                expected: None,
                actual: Some(render_event(writes[write].1)),
                fields: vec![],
                should_only: false,
            },
            placement::Finding::AfterFlag { write } => Divergence {
                at: writes[write].0,
                requirement: "FLAG-LAST-001".into(),
                what: "a DMA write after the flag of its message".into(),
                expected: None,
                actual: Some(render_event(writes[write].1)),
                fields: vec![],
                should_only: false,
            },
        };
        div.push(d);
    }
}

fn judge_retransmit_reports(
    scenario: &Scenario,
    observed: &[TimedOutput],
    obs_frames: &[Frame],
    div: &mut Vec<Divergence>,
) {
    let late = scenario.manifest.tolerances.late_ns;
    let local_of = peer_map(scenario);
    let mut sent: Vec<(u32, u32, u64, bool)> = obs_frames
        .iter()
        .filter_map(|f| match f.kind {
            Kind::Data { qp, psn, rtx: true } => {
                local_of.get(&qp).map(|&local| (local, psn, f.at, false))
            }
            _ => None,
        })
        .collect();
    for o in observed {
        let Output::Event {
            event: e @ NicEvent::Report(NicReport::Retransmitted { qpn, psn, .. }),
        } = &o.output
        else {
            continue;
        };
        let t = o.at.0;
        let near = |at: u64| at.abs_diff(t) <= late;
        match sent
            .iter_mut()
            .find(|s| !s.3 && s.0 == qpn.value() && s.1 == psn.value() && near(s.2))
        {
            Some(s) => s.3 = true,
            None => div.push(Divergence {
                at: t,
                requirement: "REC-IF-008".into(),
                what: "a Retransmitted report without a retransmission of that PSN".into(),
                expected: None,
                actual: Some(render_event(e)),
                fields: vec![],
                should_only: false,
            }),
        }
    }
    for (qp, psn, at, _) in sent.into_iter().filter(|s| !s.3) {
        div.push(Divergence {
            at,
            requirement: "REC-IF-008".into(),
            what: format!("the retransmission of PSN {psn} on QP {qp} was not reported"),
            expected: None,
            actual: None,
            fields: vec![],
            should_only: false,
        });
    }
}

/// The part of a report that does not depend on the device's choices (its EVs, its timing
/// of progress), or `None` for a report that is not compared (CONF-CMP-020). `EvState`
/// has a key, but is compared only in a scenario that expects one.
fn report_key(r: &NicReport) -> Option<(&'static str, String)> {
    match r {
        NicReport::Nack { qpn, psn, reason } => {
            Some(("REC-IF-004", format!("Nack qp {qpn} psn {} reason {reason:?}", psn.value())))
        }
        NicReport::EvMarked { qpn, mark, .. } => {
            Some(("REC-IF-005", format!("EvMarked qp {qpn} mark {mark:?}")))
        }
        NicReport::ProbeAnswered { qpn, mark, .. } => {
            Some(("REC-IF-007", format!("ProbeAnswered qp {qpn} mark {mark:?}")))
        }
        NicReport::QpError { qpn, requirement } => {
            Some(("REC-IF-009", format!("QpError qp {qpn} cause {requirement}")))
        }
        NicReport::EvState { qpn, state, .. } => {
            Some(("REC-IF-016", format!("EvState qp {qpn} state {state:?}")))
        }
        // The EV is the one the scenario sent the response on; all of it is compared.
        NicReport::EndpointResponse { ev, op, request_id, status, port_status } => Some((
            "REC-IF-018",
            format!(
                "EndpointResponse ev {ev:#x} op {} request {request_id:#x} status {status} \
                 ports {port_status:#x}",
                op.0
            ),
        )),
        NicReport::Progress { .. } | NicReport::Armed { .. } | NicReport::Retransmitted { .. } => {
            None
        }
    }
}

/// Reports with a key (`report_key`) are a multiset: each expected one must come by its
/// time plus `late_ns`, and no other may come (CONF-CMP-020); `EvState` reports only in a
/// scenario that expects at least one.
fn judge_reports(
    exp: &[(&Record, &NicEvent)],
    obs: &[(u64, &NicEvent)],
    late_ns: u64,
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
    let ev_states =
        exp.iter().any(|(_, e)| matches!(e, NicEvent::Report(NicReport::EvState { .. })));
    let mut got: Vec<(u64, &'static str, String, &NicEvent, bool)> = obs
        .iter()
        .filter_map(|(t, e)| match e {
            NicEvent::Report(NicReport::EvState { .. }) if !ev_states => None,
            NicEvent::Report(r) => report_key(r).map(|(req, k)| (*t, req, k, *e, false)),
            _ => None,
        })
        .collect();
    for (r, e) in exp {
        let NicEvent::Report(rep) = e else { continue };
        let Some((req, key)) = report_key(rep) else { continue };
        if matches!(rep, NicReport::QpError { .. }) {
            continue; // judged above, in every scope
        }
        *checked += 1;
        let deadline = r.at.0.saturating_add(late_ns);
        match got.iter_mut().find(|g| !g.4 && g.2 == key && g.0 <= deadline) {
            Some(g) => g.4 = true,
            None => div.push(Divergence {
                at: r.at.0,
                requirement: req_of(r, req),
                what: format!("an expected report did not come by {deadline} ns"),
                expected: Some(render_event(e)),
                actual: None,
                fields: vec![],
                should_only: false,
            }),
        }
    }
    let expected_error = |k: &str| {
        exp.iter().any(|(_, e)| {
            matches!(e, NicEvent::Report(r @ NicReport::QpError { .. })
                if report_key(r).is_some_and(|(_, x)| x == k))
        })
    };
    for (t, req, key, e, used) in &got {
        if *used || (key.starts_with("QpError") && expected_error(key)) {
            continue;
        }
        div.push(Divergence {
            at: *t,
            requirement: (*req).into(),
            what: "a report the scenario does not expect".into(),
            expected: None,
            actual: Some(render_event(e)),
            fields: vec![],
            should_only: false,
        });
    }
}

fn event_diff(w: &NicEvent, g: &NicEvent) -> Vec<FieldDiff> {
    let mut out = Vec::new();
    let mut cmp = |field: &str, a: String, b: String| {
        if a != b {
            out.push(FieldDiff { field: field.into(), expected: a, actual: b });
        }
    };
    match (w, g) {
        (NicEvent::FlagWrite(a), NicEvent::FlagWrite(b)) => {
            cmp("qpn", a.qpn.to_string(), b.qpn.to_string());
            cmp("msn", a.msn.to_string(), b.msn.to_string());
            cmp("addr", format!("{:#x}", a.addr), format!("{:#x}", b.addr));
            cmp("value", format!("{:#018x}", a.value), format!("{:#018x}", b.value));
        }
        (NicEvent::Completion(a), NicEvent::Completion(b)) => return entries::diff(a, b),
        _ => cmp("kind", render_event(w), render_event(g)),
    }
    out
}
