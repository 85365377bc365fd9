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
    Scenario, Side, TimedInput, TimedOutput, Timestamp,
};
use serde::Serialize;

use crate::req::Clause;
use crate::requirements::Level;

mod arrivals;
mod entries;
pub mod fields;
mod link;
mod matching;
mod order;
mod paths;
mod sacks;
mod schedule;
mod sequences;
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
    /// The requirement a difference in this field breaks, when the field has its own: the
    /// ID of the line.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub requirement: String,
    /// The clause of that requirement the field breaks (`RCV-ACK-002.b`), or the line's ID
    /// when it has no clauses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clause: Option<Clause>,
}

impl FieldDiff {
    /// A field that differs, not yet named by a rule.
    pub fn new(field: &str, expected: String, actual: String) -> FieldDiff {
        FieldDiff {
            field: field.into(),
            expected,
            actual,
            requirement: String::new(),
            clause: None,
        }
    }

    /// Names the field by the clause a difference in it breaks.
    pub fn name(&mut self, clause: Clause) {
        self.requirement = clause.requirement().into();
        self.clause = Some(clause);
    }
}

/// One way the device departed from the scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// When (the expected time, or the time of the offending output).
    pub at: u64,
    /// The requirement that is broken: the ID of its line.
    pub requirement: String,
    /// The clause of it that is broken (`RCV-ACK-002.b`; the line's ID when it has no
    /// clauses), when the specification defines it.
    pub clause: Option<Clause>,
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

impl Divergence {
    /// A divergence from `clause`, its level deciding whether it is SHOULD-only.
    fn of(at: u64, clause: Clause, what: String) -> Divergence {
        Divergence {
            at,
            requirement: clause.requirement().into(),
            clause: Some(clause),
            what,
            expected: None,
            actual: None,
            fields: vec![],
            should_only: !matches!(clause.level(), Level::Must),
        }
    }

    /// Settles `requirement` and `clause` of a divergence named by a string: the line's ID
    /// in the one, the clause in the other.
    fn settle(&mut self) {
        if self.clause.is_none() {
            self.clause = Clause::parse(&self.requirement);
        }
        if let Some(c) = self.clause {
            self.requirement = c.requirement().into();
        }
        for f in &mut self.fields {
            if f.clause.is_none() {
                f.clause = Clause::parse(&f.requirement);
            }
            if let Some(c) = f.clause {
                f.requirement = c.requirement().into();
            }
        }
    }
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
        NicEvent::FlagWrite(f) => {
            let x = openrdma_codec::host::FlagRepr::from_u64(f.value);
            format!(
                "flag write ({:?}) qp {} msn {} @{:#x}: {}, generation {}, status {:#x}, {} B{}",
                f.side,
                f.qpn,
                f.msn,
                f.addr,
                if x.valid { "valid" } else { "not valid" },
                x.generation,
                x.status.0,
                x.byte_len,
                if x.resv != 0 { format!(", resv {:#x}", x.resv) } else { String::new() }
            )
        }
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
        put("peth.ftype", p.ftype.to_string());
    }
    if let Some(a) = d.ext.aeth {
        // A transport ACK or NAK travels on the EV of the packet that caused it
        // (RCV-ACK-002, RCV-NAK-002).
        put("ev", format!("{:#x}", d.entropy().unwrap_or_default()));
        put("aeth.syndrome", format!("{:#04x}", a.syndrome));
        put("aeth.msn", a.msn.to_string());
    }
    if let Some(e) = d.ext.erth {
        // An endpoint request goes where, and says what, the CPU half commanded, with the
        // device's own ports (CONF-CMP-043).
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
            out.push(FieldDiff::new(k, v.clone(), got.to_string()));
        }
    }
    out
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

/// The end of a scenario for a judge without a runner: `drain_ns` after its last record,
/// the end of CONF-RUN-008 with no lag. Outputs after it are not judged (CONF-CMP-044.a).
pub fn scenario_end(scenario: &Scenario) -> Timestamp {
    let last = scenario.records.iter().map(|r| r.at.0).max().unwrap_or(0);
    Timestamp(last.saturating_add(scenario.manifest.tolerances.drain_ns))
}

/// The most outputs a device may send up to the end of a scenario (CONF-CMP-044.b): 1024,
/// plus 16 for each record, plus one for each byte the expected DMA writes land, since a
/// device may split its writes down to single bytes (CONF-CMP-034). A judge keeps no more.
pub fn output_cap(scenario: &Scenario) -> u64 {
    let dma_bytes: u64 = scenario
        .records
        .iter()
        .filter(|r| r.dir == Direction::Expect)
        .map(|r| match &r.body {
            Body::Event { event: NicEvent::DmaWrite(w) } => u64::from(w.payload.len()),
            _ => 0,
        })
        .sum();
    1024 + 16 * scenario.records.len() as u64 + dma_bytes
}

/// The judgement of a device that sent `sent` outputs up to the end of `scenario`, more
/// than [`output_cap`]: one divergence, at `at`, the time of the first output past the cap
/// (CONF-CMP-044.c). No output is judged.
pub fn over_cap(scenario: &Scenario, sent: u64, at: Timestamp) -> Judgement {
    let cap = output_cap(scenario);
    Judgement {
        divergences: vec![Divergence {
            at: at.0,
            requirement: "CONF-CMP-044".into(),
            clause: None,
            what: format!(
                "the device sent {sent} outputs up to the scenario's end, more than the \
                 {cap} it may send; none was judged"
            ),
            expected: Some(format!("at most {cap} outputs")),
            actual: Some(format!("{sent} outputs")),
            fields: vec![],
            should_only: false,
        }],
        checked: 0,
    }
}

/// Judges a run within `scope`: expected records and outputs outside it are set aside.
pub fn judge_in(
    scenario: &Scenario,
    injected: &[TimedInput],
    observed: &[TimedOutput],
    scope: Scope,
) -> Judgement {
    let cap = output_cap(scenario);
    if observed.len() as u64 > cap {
        return over_cap(scenario, observed.len() as u64, observed[cap as usize].at);
    }
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
    let arrivals = Arrivals::new(scenario, injected);

    // Outputs of an MRC QP numbered 2 (ERTH-QPN-001), first: they explain the rest.
    judge_reserved_qpn(scenario, &obs_frames, observed, &mut div);

    // Every frame decodes and obeys the wire rules; every packet takes an EV of its own.
    wire::judge(&obs_frames, &mut div);
    wire::judge_evs(scenario, &obs_frames, &mut div);

    // Every frame's link headers, whether or not an expected frame pairs with it.
    link::judge(scenario, &peer_map(scenario), &obs_frames, &mut div);

    // Expected and observed frames paired by identity; each pair's fields named by their
    // own rules, each expectation left over by the rule that makes it due.
    let own_cpu = scenario.manifest.cpu == CpuHalf::Device;
    let cx = matching::Ctx { scenario, injected, exp: &exp_frames, obs: &obs_frames, observed };
    let pairing = matching::pair(&cx, &mut div);
    checked += pairing.checked;
    let matches = pairing.matches;
    let used = pairing.used;

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
            clause: None,
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
    // The NACK back-off, which the early side of a retransmission's window leaves open.
    schedule::judge_nack_backoff(scenario, injected, &obs_frames, &mut div);

    // SACKs: truth and timely progress.
    sacks::judge(scenario, &arrivals, &exp_frames, &obs_frames, tol, &mut div, &mut checked);

    // ---- events ---------------------------------------------------------------------
    judge_events(scenario, &arrivals, observed, scope, &mut div, &mut checked);
    if scope.cpu_split {
        judge_retransmit_reports(scenario, observed, &obs_frames, &mut div);
    }

    div.iter_mut().for_each(Divergence::settle);
    div.sort_by_key(|d| d.at);
    Judgement { divergences: div, checked }
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
            clause: None,
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

    judge_placement(scenario, &exp, &obs, arrivals, div, checked);

    // Every completion entry on its own, and as a write to its queue (CQE-*).
    let history = entries::judge(scenario, &obs, tol.late_ns, div);

    // Flags and completions: sequences per side, paired by identity (CONF-CMP-009).
    sequences::judge(&exp, &obs, tol.late_ns, &history, div, checked);

    // A QP the scenario expects to fail must be reported in error.
    for (r, e) in &exp {
        if let NicEvent::Report(NicReport::QpError { qpn, .. }) = e {
            *checked += 1;
            let seen = obs.iter().any(|(_, o)| matches!(o, NicEvent::Report(NicReport::QpError { qpn: q, .. }) if q == qpn));
            if !seen {
                div.push(Divergence {
                    at: r.at.0,
                    requirement: "REC-IF-009".into(),
                    what: format!("QP {qpn} was expected to go to the error state"),
                    expected: Some(render_event(e)),
                    actual: None,
                    fields: vec![],
                    should_only: false,
                    clause: None,
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
    scenario: &Scenario,
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
                        clause: None,
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
                    requirement: placement_due(scenario, r).into(),
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
                    clause: None,
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
                    clause: None,
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
                clause: None,
            },
            placement::Finding::AfterFlag { write } => Divergence {
                at: writes[write].0,
                requirement: "FLAG-LAST-001".into(),
                what: "a DMA write after the flag of its message".into(),
                expected: None,
                actual: Some(render_event(writes[write].1)),
                fields: vec![],
                should_only: false,
                clause: None,
            },
            placement::Finding::Twice { write, va, len } => Divergence {
                at: writes[write].0,
                requirement: "RCV-PLACE-004".into(),
                what: format!(
                    "a DMA write places {len} B again, from {va:#x}: each byte is placed once"
                ),
                expected: None,
                actual: Some(render_event(writes[write].1)),
                fields: vec![],
                should_only: false,
                clause: None,
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
                clause: None,
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
            clause: None,
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
                requirement: req.into(),
                what: format!("an expected report did not come by {deadline} ns"),
                expected: Some(render_event(e)),
                actual: None,
                fields: vec![],
                should_only: false,
                clause: None,
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
            clause: None,
        });
    }
}

/// The rule an expected DMA write that did not happen breaks: placement (RCV-PLACE-003),
/// unless its packet's PSN follows the wrap of the PSN space from 2^24 − 1 to 0 among the
/// writes the scenario injects into its QP, which a device that compares PSNs as plain
/// integers takes for duplicates (BTH-PSN-002).
fn placement_due(scenario: &Scenario, r: &Record) -> &'static str {
    let Body::Event { event: NicEvent::DmaWrite(w) } = &r.body else { return "RCV-PLACE-003" };
    let (qpn, psn) = (w.qpn.value(), w.psn.value());
    let wrapped = scenario.injects().filter(|i| i.at <= r.at).any(|i| match &i.body {
        Body::Frame { bytes, .. } => decode(bytes)
            .bth
            .is_some_and(|b| b.dest_qp.value() == qpn && b.psn.value() > psn + (1 << 23)),
        _ => false,
    });
    if wrapped { "BTH-PSN-002" } else { "RCV-PLACE-003" }
}
