//! The scoreboard: judges what a device produced against what a scenario expects
//! (`spec/conformance.md`, `CONF-CMP-*`).
//!
//! The rules, by kind of output:
//!
//! * **Data packets** are matched by (destination QP, PSN, `rtx`), in order of occurrence.
//!   Every field the specification fixes is compared exactly (opcode, AckReq, METH, RETH,
//!   ImmDt, payload, pad count, ICRC); what the device chooses is not: the entropy value
//!   (its path), TSETH and its timestamp. A retransmission must use an EV other than the
//!   one the previous transmission of that PSN used (`SND-RTX-002`). A data packet the
//!   scenario does not expect is a spurious retransmission (`SND-RTX-004`) or a duplicate
//!   transmission (`SND-PSN-001`).
//! * **NACKs** are matched by (QP, `nack_psn`, reason); **transport ACKs** by (QP, MSN,
//!   ACK or NAK code). An ACK repeating an MSN already acknowledged is allowed (ACK
//!   coalescing is the device's choice); an ACK for an MSN the scenario never acknowledges
//!   is not.
//! * **SACKs** are judged by what they say, not by how many there are: every SACK must be
//!   true (it claims no PSN that had not arrived: `SETH-CACK-001`, `SETH-BITMAP-001`), and
//!   by the time of each expected SACK, plus the tolerance, the device must have reported
//!   at least as much cumulative progress (`RCV-SACK-*`). Coalescing is the device's choice.
//! * **DMA writes** are a multiset matched by (QP, address, bytes), in any order; but no
//!   write of a message may follow its flag (`FLAG-LAST-001`) and every write of a message
//!   precedes its flag (`FLAG-ORDER-001`).
//! * **Flag writes** and **completions** are sequences per side and must come in the
//!   expected order with the expected values (`RET-ORDER-001`, `RET-FLAG-001`,
//!   `CQE-*`); a completion's timestamp is not compared.
//! * **Reports** to the CPU half are not compared, except that a QP going to error must be
//!   reported when the scenario expects it.
//!
//! Times are compared with the manifest's tolerances. Divergences are sorted by time; the
//! first one is what a report shows first.

use std::collections::{BTreeMap, HashMap};

use openrdma_codec::frame::{DecodedFrame, IcrcStatus, decode};
use openrdma_codec::{AethKind, Opcode};
use openrdma_sm::{NicEvent, NicReport, Payload, Side, Timestamp};
use serde::Serialize;

use crate::device::{Input, Output, TimedInput, TimedOutput};
use crate::scenario::{Body, Direction, Record, Scenario, Tolerances};

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
    /// Whether only a SHOULD is broken (filled in by the report from the spec).
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
    ev: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Data { qp: u32, psn: u32, rtx: bool },
    Sack { qp: u32, cack: u32, base: u32, bitmap: u64 },
    Nack { qp: u32, psn: u32, reason: u8 },
    Ack { qp: u32, msn: u32, syndrome: u8 },
    Probe { qp: u32 },
    Other { error: Option<String> },
}

fn classify(at: u64, bytes: &[u8]) -> Frame {
    let d = decode(bytes);
    let ev = d.entropy().unwrap_or(0);
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
            Some(a) => Kind::Ack { qp, msn: a.msn & 0xFFFF, syndrome: a.syndrome },
            None => Kind::Other { error: None },
        },
        Opcode::MRC_PROBE => Kind::Probe { qp },
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
    if !d.payload.is_empty() {
        s.push_str(&format!(" payload {} B", d.payload.len()));
    }
    s.push_str(&format!(" ev {:#x} icrc {}", d.entropy().unwrap_or(0), d.icrc.as_str()));
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
        NicEvent::Completion(c) => format!(
            "completion ({:?}) qp {} wr_id {:#x} status {:#x} msn {} len {} imm {:#x}",
            c.side,
            c.entry.qpn,
            c.entry.wr_id,
            c.entry.status.0,
            c.entry.msn,
            c.entry.byte_len,
            c.entry.imm
        ),
        NicEvent::Report(r) => format!("report {r:?}"),
    }
}

/// The comparable fields of a frame, in order.
fn frame_fields(bytes: &[u8]) -> Vec<(String, String)> {
    let d = decode(bytes);
    let mut out = Vec::new();
    let mut put = |k: &str, v: String| out.push((k.to_string(), v));
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
        put("neth.reason", format!("{:#04x}", n.reason.0));
        put("neth.nack_psn", n.nack_psn.value().to_string());
    }
    if let Some(a) = d.ext.aeth {
        put("aeth.syndrome", format!("{:#04x}", a.syndrome));
        put("aeth.msn", a.msn.to_string());
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

/// Judges a run. `injected` are the inputs as delivered (after any rewriting).
pub fn judge(scenario: &Scenario, injected: &[TimedInput], observed: &[TimedOutput]) -> Judgement {
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

    // Undecodable or bad-ICRC frames from the device.
    for f in &obs_frames {
        if let Kind::Other { error: Some(e) } = &f.kind {
            div.push(Divergence {
                at: f.at,
                requirement: "DEC-STRUCT-001".into(),
                what: format!("the device sent a frame that does not decode: {e}"),
                expected: None,
                actual: Some(render_frame(&f.bytes)),
                fields: vec![],
                should_only: false,
            });
        } else if matches!(decode(&f.bytes).icrc, IcrcStatus::Bad { .. }) {
            div.push(Divergence {
                at: f.at,
                requirement: "ICRC-CALC-001".into(),
                what: "the device sent a frame with a wrong ICRC".into(),
                expected: None,
                actual: Some(render_frame(&f.bytes)),
                fields: vec![],
                should_only: false,
            });
        }
    }

    // Within the tolerances; but retransmitting a lost packet sooner than the reference did
    // (the device's own paths showed the loss sooner) is no fault: only lateness counts.
    let on_time = |exp_at: u64, got_at: u64, retransmission: bool| {
        let late_ok = got_at <= exp_at.saturating_add(tol.late_ns);
        late_ok && (retransmission || got_at + tol.early_ns >= exp_at)
    };

    // Keyed matches: data, NACK, ACK, probe.
    for (rec, ef) in &exp_frames {
        let key_ok = |of: &Frame| match (&ef.kind, &of.kind) {
            (Kind::Data { .. }, Kind::Data { .. })
            | (Kind::Nack { .. }, Kind::Nack { .. })
            | (Kind::Probe { .. }, Kind::Probe { .. }) => ef.kind == of.kind,
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
            _ => "EV-PROBE-001",
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
                let of = &obs_frames[i];
                let fields = diff(&frame_fields(&ef.bytes), &frame_fields(&of.bytes));
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
                        _ => default_req,
                    };
                    div.push(Divergence {
                        at: of.at,
                        requirement: req_of(rec, req),
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
                        requirement: "CONF-TIME-001".into(),
                        what: format!(
                            "sent at {} ns, expected at {} ns (tolerance -{} / +{} ns)",
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

    // Unexpected data, NACK, ACK and probe packets.
    let acked_msns: Vec<(u32, u32)> = exp_frames
        .iter()
        .filter_map(|(_, f)| match f.kind {
            Kind::Ack { qp, msn, .. } => Some((qp, msn)),
            _ => None,
        })
        .collect();
    // Retransmissions the CPU half commanded (REC-RTO-003): per device QP, the times.
    let local_of = peer_map(scenario);
    let commanded: Vec<(u32, u64)> = injected
        .iter()
        .filter_map(|i| match &i.input {
            Input::Cpu { command: openrdma_sm::CpuCommand::Retransmit { qpn, .. } } => {
                Some((qpn.value(), i.at.0))
            }
            _ => None,
        })
        .collect();
    let mut used_commands = vec![false; commanded.len()];
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
            Kind::Nack { .. } => ("RCV-NACK-001", "a NACK the scenario does not expect"),
            Kind::Ack { qp, msn, .. } if acked_msns.contains(&(qp, msn)) => continue,
            Kind::Ack { .. } => ("RCV-ACK-002", "a transport ACK for a message not retired"),
            Kind::Probe { .. } => ("EV-PROBE-001", "a probe the CPU half did not command"),
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

    // Retransmissions go on another EV than the previous transmission (SND-RTX-002).
    let mut last_ev: HashMap<(u32, u32), u32> = HashMap::new();
    for of in &obs_frames {
        if let Kind::Data { qp, psn, rtx } = of.kind {
            if let Some(&prev) = last_ev.get(&(qp, psn)) {
                if rtx && prev == of.ev {
                    div.push(Divergence {
                        at: of.at,
                        requirement: "SND-RTX-002".into(),
                        what: format!(
                            "retransmitted on EV {:#x}, the EV of its lost transmission",
                            of.ev
                        ),
                        expected: None,
                        actual: Some(render_frame(&of.bytes)),
                        fields: vec![],
                        should_only: false,
                    });
                }
            }
            last_ev.insert((qp, psn), of.ev);
        }
    }

    // SACKs: truth and timely progress.
    judge_sacks(scenario, injected, &exp_frames, &obs_frames, tol, &mut div, &mut checked);

    // ---- events ---------------------------------------------------------------------
    judge_events(scenario, observed, &mut div, &mut checked);

    div.sort_by_key(|d| d.at);
    Judgement { divergences: div, checked }
}

/// An ACK (any credit code) or the exact NAK syndrome.
fn ack_class(syndrome: u8) -> (bool, u8) {
    let ack = openrdma_codec::AethRepr { syndrome, msn: 0 }.kind() == AethKind::Ack;
    if ack { (true, 0) } else { (false, syndrome) }
}

/// PSNs the device had received, per QP, by each time: from the injected data frames.
fn judge_sacks(
    scenario: &Scenario,
    injected: &[TimedInput],
    exp_frames: &[(&Record, Frame)],
    obs_frames: &[Frame],
    tol: &Tolerances,
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
    let _ = scenario;
    // Arrival time of each injected (qp, psn) data packet (first copy).
    let mut arrived: HashMap<(u32, u32), u64> = HashMap::new();
    for i in injected {
        if let Input::Frame { bytes, .. } = &i.input {
            if let Kind::Data { qp, psn, .. } = kind_of(&decode(bytes)) {
                arrived.entry((qp, psn)).or_insert(i.at.0);
            }
        }
    }
    // The device's own QP for a SACK to peer QP `qp`: find it from injected data frames'
    // destination; SACKs go to the peer. Truth is checked against packets injected to the
    // device's QP whose peer is `qp`: we match by looking at which injected QP maps.
    let peer_of: HashMap<u32, u32> = peer_map(scenario);
    for of in obs_frames {
        let Kind::Sack { qp, cack, base, bitmap } = of.kind else { continue };
        let Some(&local) = peer_of.get(&qp) else { continue };
        let has = |psn: u32| arrived.get(&(local, psn)).is_some_and(|&t| t <= of.at);
        let claimed = claimed_psns(cack, base, bitmap, &arrived, local);
        if let Some(p) = claimed.into_iter().find(|&p| !has(p)) {
            div.push(Divergence {
                at: of.at,
                requirement: "SETH-CACK-001".into(),
                what: format!("the SACK claims PSN {p}, which had not arrived"),
                expected: None,
                actual: Some(render_frame(&of.bytes)),
                fields: vec![],
                should_only: false,
            });
        }
    }
    // Timely cumulative progress.
    for (rec, ef) in exp_frames {
        let Kind::Sack { qp, cack, .. } = ef.kind else { continue };
        *checked += 1;
        let deadline = rec.at.0.saturating_add(tol.late_ns);
        let best = obs_frames
            .iter()
            .filter(|f| f.at <= deadline)
            .filter_map(|f| match f.kind {
                Kind::Sack { qp: q, cack: c, .. } if q == qp => Some(c),
                _ => None,
            })
            .max_by_key(|c| (c.wrapping_sub(cack) as i32) << 8 >> 8);
        let ok = best.is_some_and(|c| ((c.wrapping_sub(cack) << 8) as i32 >> 8) >= 0);
        if !ok {
            div.push(Divergence {
                at: rec.at.0,
                requirement: req_of(rec, "RCV-SACK-001"),
                what: format!(
                    "no SACK reported cumulative progress to PSN {cack} by {deadline} ns"
                ),
                expected: Some(render_frame(&ef.bytes)),
                actual: best.map(|c| format!("best cumulative PSN reported in time: {c}")),
                fields: vec![],
                should_only: false,
            });
        }
    }
}

/// Every PSN a SACK claims: `cack_psn` and the PSNs before it that the scenario injected
/// (looking back over the injected PSNs only, so that PSNs from before the scenario are
/// not claimed), and the bitmap's set bits.
fn claimed_psns(
    cack: u32,
    base: u32,
    bitmap: u64,
    arrived: &HashMap<(u32, u32), u64>,
    local: u32,
) -> Vec<u32> {
    let mut v = Vec::new();
    // The cumulative part: PSNs at or before cack that the scenario injected to this QP,
    // plus cack itself if the scenario injected it at all.
    for &(q, p) in arrived.keys() {
        if q == local && ((cack.wrapping_sub(p) << 8) as i32 >> 8) >= 0 {
            v.push(p);
        }
    }
    let mut bits = bitmap;
    while bits != 0 {
        let i = bits.trailing_zeros();
        bits &= bits - 1;
        v.push(base.wrapping_add(i) & 0xFF_FFFF);
    }
    v.sort_unstable();
    v
}

/// Maps peer QP numbers to the device's QP numbers, from the QPs the scenario creates.
fn peer_map(scenario: &Scenario) -> HashMap<u32, u32> {
    let mut m = HashMap::new();
    for r in &scenario.records {
        if let Body::Host { command: openrdma_sm::HostCommand::CreateQp(q) } = &r.body {
            m.insert(q.peer_qpn.value(), q.qpn.value());
        }
    }
    m
}

fn payload_bytes(p: &Payload) -> Vec<u8> {
    match p {
        Payload::Bytes(b) => b.to_vec(),
        Payload::Host { addr, len } => crate::device::memory(*addr, *len),
    }
}

fn judge_events(
    scenario: &Scenario,
    observed: &[TimedOutput],
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
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

    // DMA writes: a multiset keyed by (qpn, va, bytes).
    type DmaKey = (u32, u64, Vec<u8>);
    let mut want: BTreeMap<DmaKey, Vec<&Record>> = BTreeMap::new();
    for (r, e) in &exp {
        if let NicEvent::DmaWrite(w) = e {
            want.entry((w.qpn.value(), w.va, payload_bytes(&w.payload))).or_default().push(r);
            *checked += 1;
        }
    }
    // Flags and DMA order: per (qpn, msn), the index of the flag among observed events.
    let mut flagged: HashMap<(u32, u16), u64> = HashMap::new();
    for (at, e) in &obs {
        match e {
            NicEvent::FlagWrite(f) if f.side == Side::Responder => {
                flagged.entry((f.qpn.value(), f.msn)).or_insert(*at);
            }
            NicEvent::DmaWrite(w) => {
                let key = (w.qpn.value(), w.va, payload_bytes(&w.payload));
                if flagged.contains_key(&(w.qpn.value(), w.msn)) {
                    // Data the scenario expects, arriving after the flag: the flag came
                    // before its data. A write beyond what it expects: a write after the flag.
                    let expected_data = want.get(&key).is_some_and(|v| !v.is_empty());
                    let (requirement, what) = if expected_data {
                        ("FLAG-ORDER-001", "the flag of a message came before this DMA write of it")
                    } else {
                        ("FLAG-LAST-001", "a DMA write after the flag of its message")
                    };
                    div.push(Divergence {
                        at: *at,
                        requirement: requirement.into(),
                        what: what.into(),
                        expected: None,
                        actual: Some(render_event(e)),
                        fields: vec![],
                        should_only: false,
                    });
                }
                match want.get_mut(&key) {
                    Some(v) if !v.is_empty() => {
                        v.pop();
                    }
                    _ => div.push(Divergence {
                        at: *at,
                        requirement: "RCV-PLACE-001".into(),
                        what: "a DMA write the scenario does not expect".into(),
                        expected: None,
                        actual: Some(render_event(e)),
                        fields: vec![],
                        should_only: false,
                    }),
                }
            }
            _ => {}
        }
    }
    for ((qpn, va, bytes), recs) in want {
        for r in recs {
            div.push(Divergence {
                at: r.at.0,
                requirement: req_of(r, "RCV-PLACE-001"),
                what: "an expected DMA write did not happen".into(),
                expected: Some(format!("DMA write qp {qpn:#x} va {va:#x} {} B", bytes.len())),
                actual: None,
                fields: vec![],
                should_only: false,
            });
        }
    }
    // Every DMA write of a flagged message precedes the flag (FLAG-ORDER-001): a DMA
    // after the flag is reported above; a DMA expected but missing when the flag came is
    // a flag before its data.
    for (r, e) in &exp {
        if let NicEvent::DmaWrite(w) = e {
            let done = obs
                .iter()
                .any(|(_, o)| matches!(o, NicEvent::DmaWrite(x) if x.qpn == w.qpn && x.va == w.va));
            if !done {
                if let Some(&t) = flagged.get(&(w.qpn.value(), w.msn)) {
                    div.push(Divergence {
                        at: t,
                        requirement: "FLAG-ORDER-001".into(),
                        what: format!(
                            "the flag of message {} came before its data at {:#x}",
                            w.msn, w.va
                        ),
                        expected: Some(render_event(e)),
                        actual: None,
                        fields: vec![],
                        should_only: false,
                    });
                    let _ = r;
                }
            }
        }
    }

    // Flags and completions: sequences per side, compared in order.
    let seq = |events: &mut dyn Iterator<Item = (u64, &NicEvent)>,
               pick: &dyn Fn(&NicEvent) -> bool| {
        events.filter(|(_, e)| pick(e)).map(|(t, e)| (t, e.clone())).collect::<Vec<_>>()
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
        let want: Vec<(u64, NicEvent)> = seq(&mut exp.iter().map(|(r, e)| (r.at.0, *e)), pick);
        let got: Vec<(u64, NicEvent)> = seq(&mut obs.iter().map(|(t, e)| (*t, *e)), pick);
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
                (Some((_, we)), Some((_, ge))) => {
                    let f = event_diff(we, ge);
                    if f.is_empty() {
                        continue;
                    }
                    (f, format!("{name}: entry {k} differs"))
                }
                (Some(_), None) => (vec![], format!("{name}: expected entry {k} is missing")),
                (None, Some(_)) => (vec![], format!("{name}: unexpected entry {k}")),
                (None, None) => continue,
            };
            let requirement = match (name, fields.first().map(|f| f.field.as_str())) {
                ("responder flags", Some("msn") | Some("qpn")) => "RET-ORDER-001",
                ("responder flags", Some(_)) => "RET-FLAG-001",
                _ => default_req,
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
    let _: Timestamp = Timestamp::ZERO;
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
        (NicEvent::Completion(a), NicEvent::Completion(b)) => {
            let (x, y) = (&a.entry, &b.entry);
            cmp("qpn", x.qpn.to_string(), y.qpn.to_string());
            cmp("wr_id", format!("{:#x}", x.wr_id), format!("{:#x}", y.wr_id));
            cmp("status", format!("{:#x}", x.status.0), format!("{:#x}", y.status.0));
            cmp("opcode", format!("{:#x}", x.opcode.0), format!("{:#x}", y.opcode.0));
            cmp("msn", x.msn.to_string(), y.msn.to_string());
            cmp("byte_len", x.byte_len.to_string(), y.byte_len.to_string());
            cmp("imm", format!("{:#x}", x.imm), format!("{:#x}", y.imm));
            cmp("has_imm", x.has_imm.to_string(), y.has_imm.to_string());
            cmp("is_receive", x.is_receive.to_string(), y.is_receive.to_string());
        }
        _ => cmp("kind", render_event(w), render_event(g)),
    }
    out
}
