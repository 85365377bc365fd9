//! The judge: judges what a device produced against what a scenario expects
//! (`spec/conformance.md`, `CONF-CMP-*`).
//!
//! The rules, by kind of output:
//!
//! * **Every frame** must decode, carry a correct ICRC and obey the wire rules that
//!   `validate()` checks and that bind its sender: reserved bits, checksums, lengths,
//!   flow-label bits, known reasons, RETH bounds, ... (`wire.rs`, `CONF-CMP-001`,
//!   `CONF-CMP-016`). Data packets and probes must travel on an EV of their QP's profile,
//!   NACKs on the EV they report (`CONF-CMP-017`).
//! * **Data packets** are matched by (destination QP, PSN, `rtx`), in order of occurrence.
//!   Every field the specification fixes is compared exactly (opcode, AckReq, METH, RETH,
//!   ImmDt, payload, pad count, the TSETH's flags, ICRC); what the device chooses is not
//!   compared with the reference's choice but held to the rules every choice obeys: its
//!   path to the usable pool of the EV states the scenario sets, a retransmission to an
//!   EV other than its previous one while another is usable (`paths.rs`), its timestamps to
//!   a clock that runs forward (`schedule.rs`). A device that claims `spray-policies` is held to
//!   the recorded EVs exactly. Packets of one QP recorded together come in their recorded
//!   order, and none the scenario expects after a probe a `Probe` command asked for
//!   comes before that probe (`REC-IF-011`). A data packet the scenario does not expect
//!   is a spurious retransmission (`SND-RTX-004`), a duplicate transmission
//!   (`SND-PSN-001`), or one a `Retransmit` command for a PSN already acknowledged cannot
//!   explain (`REC-RTO-004.e`).
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
//! * **SACKs** are judged by what they say, not by how many there are (`sacks.rs`): every
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
//!   (`entries.rs`, `CONF-CMP-021`).
//! * **The order across kinds** (`order.rs`): the list of a device's outputs is its
//!   visibility order; a completion entry comes before the flag of its message or work
//!   request, the sender flag is a work request's last write and no data packet of the
//!   message follows it, and the flags a write makes due come before what the next input
//!   causes (`FLAG-ORDER-002`, `ORD-SEND-*`, `RET-ORDER-002`).
//! * **Reports** to the CPU half are compared where they do not depend on the device's
//!   paths: `QpError`, `Nack`, `EvMarked` and `ProbeAnswered` as expected, `EvState` as
//!   expected in a scenario that expects any, and one `Retransmitted` for every
//!   retransmission the device sent (`CONF-CMP-020`), its cause and lost EV judged by
//!   truth (`CONF-CMP-075`). A QP's reports come in the order
//!   they were produced: the `snd_una` of its `Progress` and `Armed` reports never goes
//!   back (`REC-IF-015`).
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
//!
//! The families above run as the rows of one table ([`table::CHECKS`]): each row names the
//! clauses it can fail, and each divergence the row that found it. Every output, expectation
//! and input is decoded once (`obs.rs`) before the rows run. Coverage, the matrix
//! and the answer to "which clause did this break" come from that table.

use std::collections::{BTreeSet, HashMap};

use openrdma_codec::AethKind;
use openrdma_codec::frame::decode;
use openrdma_device::{
    Body, Capability, CpuHalf, Direction, NicEvent, Output, Scenario, TimedInput, TimedOutput,
    Timestamp,
};
use serde::Serialize;

use crate::req::Clause;
use crate::requirements::Level;

/// A list of clauses: the rules by which a receiver discards a frame that does not decode,
/// is not sound RoCEv2 or has an opcode it does not take (`wire::discard_clause`), then
/// `extra`. The rows that name a discard and the coverage of what discards show share them.
macro_rules! frame_discards {
    ($($extra:ident),* $(,)?) => {
        &[
            $crate::req::DEC_CUT_001,
            $crate::req::DEC_STRUCT_001,
            $crate::req::ENC_FRAME_001,
            $crate::req::ENC_IPV4_001,
            $crate::req::ENC_IPV4_002_B,
            $crate::req::ENC_IPV4_003_B,
            $crate::req::ENC_IPV4_005,
            $crate::req::ENC_IPV6_001,
            $crate::req::ENC_IPV6_002,
            $crate::req::ENC_LEN_001_B,
            $crate::req::ENC_LEN_002_B,
            $crate::req::ENC_LEN_004,
            $crate::req::ENC_ROCE_001,
            $crate::req::ENC_UDP_001_B,
            $crate::req::ENC_UDP_002,
            $crate::req::ENC_UDP_006,
            $crate::req::ENC_VLAN_002_C,
            $crate::req::ICRC_VERIFY_001_A,
            $crate::req::OPC_UNKNOWN_001_B,
            $crate::req::PAY_PAD_003,
            $crate::req::RCV_OPC_001,
            $($crate::req::$extra),*
        ]
    };
}

mod arrivals;
pub mod discriminates;
mod doorbells;
mod entries;
mod events;
pub mod fields;
mod fit;
mod flags;
mod link;
mod mark_ev;
mod matching;
mod obs;
mod order;
mod paths;
mod progress;
mod rate;
mod receive;
mod render;
mod reports;
mod retransmitted;
mod sacks;
mod schedule;
mod sequences;
mod steps;
pub mod table;
mod unexpected;
mod wire;

use render::{diff, frame_fields};
pub use render::{render_event, render_frame};

pub use wire::{NOT_ON_SENDER, SHOULD_ON_SENDER, discard_clause, sender_clause, sender_rules};

pub use order::requirements as order_requirements;

use std::cell::{Cell, OnceCell, RefCell};

use arrivals::Arrivals;
use obs::{Frame, Kind, Obs, kind_of};
use table::Ctx;
pub use table::{CHECKS, Check, Reads};

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
    /// The row of the judge's table that found it ([`CHECKS`]); empty for a divergence
    /// found outside the table (too many outputs, CONF-CMP-044).
    #[serde(skip_serializing_if = "str::is_empty")]
    pub check: &'static str,
    /// The clauses that restate, for the output the check judges, the clause this
    /// divergence names, and so are broken with it (CONF-CMP-118): a responder's SACK
    /// whose bitmap breaks SETH-BITMAP-001 breaks RCV-SACK-005.d too. Declared by the row
    /// of the judge's table that found it ([`Check::restated`]); `clause` stays the name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_breaks: Vec<Clause>,
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
            check: "",
            also_breaks: vec![],
        }
    }

    /// A divergence of the device's output `e` at `at` from `clause`; whether it is
    /// SHOULD-only is left to the report, which reads the specification.
    fn of_output(at: u64, clause: Clause, what: String, e: &NicEvent) -> Divergence {
        Divergence { actual: Some(render_event(e)), ..Divergence::named(at, clause, what) }
    }

    /// A divergence from `clause`, not marked SHOULD-only: the report marks it from the
    /// specification, and the scoreboard where a requirement holds a MUST and a SHOULD.
    fn named(at: u64, clause: Clause, what: String) -> Divergence {
        Divergence { should_only: false, ..Divergence::of(at, clause, what) }
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

/// What of a device's output the scoreboard judges (CONF-CMP-012): everything, except the
/// outputs of a capability the device does not claim. A device without `retirement` (a
/// receiver block without its completion engine, say) is judged on its frames and DMA
/// writes but not on flag writes, completion entries and transport acknowledgements; a
/// device without `cpu-split` is not judged on its reports to the CPU half. The one
/// capability that takes a check away is `sack-marking`: a device that marks its SACKs by
/// a policy of its own is not held to `m` NONE, nor to `r_c` and `rcv_cwnd_pen` 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    /// Judge flag writes, completion entries and transport ACKs and NAKs.
    pub retirement: bool,
    /// Judge reports to the CPU half (other than a QP going to error, which is always
    /// judged when the scenario expects it).
    pub cpu_split: bool,
    /// Hold every SACK to `m` NONE and its CC_STATE to `r_c` and `rcv_cwnd_pen` 0: the
    /// device has no marking policy (it does not claim `sack-marking`, RCV-SACK-006.c,
    /// RCV-SACK-007).
    pub unmarked: bool,
}

impl Scope {
    /// Everything: a device that claims every capability but `sack-marking`, or a capture
    /// judged offline.
    pub const FULL: Scope = Scope { retirement: true, cpu_split: true, unmarked: true };

    /// The scope of a device that claims `caps`.
    pub fn of(caps: &BTreeSet<Capability>) -> Scope {
        Scope {
            retirement: caps.contains(&Capability::Retirement),
            cpu_split: caps.contains(&Capability::CpuSplit),
            unmarked: !caps.contains(&Capability::SackMarking),
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
            expected: Some(format!("at most {cap} outputs")),
            actual: Some(format!("{sent} outputs")),
            ..Divergence::named(
                at.0,
                crate::req::CONF_CMP_044,
                format!(
                    "the device sent {sent} outputs up to the scenario's end, more than the \
                     {cap} it may send; none was judged"
                ),
            )
        }],
        checked: 0,
    }
}

/// Whether an output is a completion whose `entry` is not the entry its queue bytes hold.
fn entry_differs(o: &Output) -> bool {
    matches!(o, Output::Event { event: NicEvent::Completion(c) } if c.written_entry() != c.entry)
}

/// Sets the `entry` of every completion written to a queue to the entry its bytes hold, so
/// that every check judges what was written, whatever the device reported beside it
/// (CONF-ADP-017.a, which lets a device leave `entry` out).
pub fn written_entries(outputs: &mut [TimedOutput]) {
    for o in outputs {
        if let Output::Event { event: NicEvent::Completion(c) } = &mut o.output {
            c.entry = c.written_entry();
        }
    }
}

/// Judges a run within `scope`: expected records and outputs outside it are set aside.
pub fn judge_in(
    scenario: &Scenario,
    injected: &[TimedInput],
    observed: &[TimedOutput],
    scope: Scope,
) -> Judgement {
    judge_timed(scenario, &[], injected, observed, scope)
}

/// [`judge_in`] of a re-timed scenario, with the slack of each record
/// (`timeline::Retimed`; empty: none): an output may come that much sooner than
/// `early_ns` before its record's time, when the anchors of the record were shifted apart
/// (CONF-TIME-005.a).
pub fn judge_timed(
    scenario: &Scenario,
    slack: &[u64],
    injected: &[TimedInput],
    observed: &[TimedOutput],
    scope: Scope,
) -> Judgement {
    let cap = output_cap(scenario);
    if observed.len() as u64 > cap {
        return over_cap(scenario, observed.len() as u64, observed[cap as usize].at);
    }
    let mut written = Vec::new();
    let observed = if observed.iter().any(|o| entry_differs(&o.output)) {
        written.extend_from_slice(observed);
        written_entries(&mut written);
        &written[..]
    } else {
        observed
    };
    if scenario.manifest.cpu == CpuHalf::Device {
        // CONF-CMP-020: the split is inside the device; its reports, if it gives any, are
        // not judged (and the scenario expects none).
        let observed: Vec<TimedOutput> = observed
            .iter()
            .filter(|o| !matches!(o.output, Output::Event { event: NicEvent::Report(_) }))
            .cloned()
            .collect();
        let scope = Scope { cpu_split: false, ..scope };
        return judge_reportless(scenario, slack, injected, &observed, scope);
    }
    judge_reportless(scenario, slack, injected, observed, scope)
}

/// [`judge_in`] once the reports of a device with its own CPU half are set aside.
fn judge_reportless(
    scenario: &Scenario,
    slack: &[u64],
    injected: &[TimedInput],
    observed: &[TimedOutput],
    scope: Scope,
) -> Judgement {
    if scope == Scope::FULL {
        return judge_all(scenario, slack, injected, observed, scope);
    }
    let keep = |body: &Body| match body {
        Body::Event { event } => scope.judges_event(event),
        Body::Frame { bytes, .. } => scope.judges_frame(bytes),
        _ => true,
    };
    let kept: Vec<usize> = (0..scenario.records.len())
        .filter(|&i| {
            let r = &scenario.records[i];
            r.dir == Direction::Inject || keep(&r.body)
        })
        .collect();
    let scoped = Scenario {
        manifest: scenario.manifest.clone(),
        records: kept.iter().map(|&i| scenario.records[i].clone()).collect(),
    };
    let slack: Vec<u64> = if slack.is_empty() {
        Vec::new()
    } else {
        kept.iter().map(|&i| slack.get(i).copied().unwrap_or(0)).collect()
    };
    let observed: Vec<TimedOutput> = observed
        .iter()
        .filter(|o| match &o.output {
            Output::Event { event } => scope.judges_event(event),
            Output::Frame { bytes, .. } => scope.judges_frame(bytes),
        })
        .cloned()
        .collect();
    judge_all(&scoped, &slack, injected, &observed, scope)
}

fn judge_all(
    scenario: &Scenario,
    slack: &[u64],
    injected: &[TimedInput],
    observed: &[TimedOutput],
    scope: Scope,
) -> Judgement {
    // Everything read, decoded once, and the pairing of frames several rows read.
    let o = Obs::new(scenario, injected, observed);
    let fits = fit::Fits::new(scenario, &o);
    let mut pair_div = Vec::new();
    let cx = matching::Ctx {
        scenario,
        inputs: &o.inputs,
        fed: matching::fed_of(&o.inputs),
        injects: &o.injects,
        exp: &o.exp_frames,
        obs: &o.frames,
        observed,
        slack: matching::slack_of(scenario, slack),
        fits: &fits,
    };
    let pairing = matching::pair(&cx, &mut pair_div);
    let mut entry_div = Vec::new();
    let late = scenario.manifest.tolerances.late_ns;
    let history = entries::judge(scenario, &o.events, late, &mut entry_div);
    let ctx = Ctx {
        scenario,
        observed,
        arrivals: Arrivals::new(scenario, &o.inputs),
        o: &o,
        fits: &fits,
        pairing,
        pair_div: RefCell::new(pair_div),
        tracking: OnceCell::new(),
        history,
        entry_div: RefCell::new(entry_div),
        checked: Cell::new(0),
    };
    let mut div: Vec<Divergence> = Vec::new();
    for check in CHECKS.iter().filter(|c| (c.applies)(scenario, scope)) {
        let from = div.len();
        (check.judge)(&ctx, &mut div);
        for d in &mut div[from..] {
            d.check = check.name;
            d.settle();
            d.also_breaks = d.clause.map(|c| check.also_breaks(c).collect()).unwrap_or_default();
        }
    }
    div.iter_mut().for_each(Divergence::settle);
    div.sort_by_key(|d| d.at);
    Judgement { divergences: div, checked: ctx.checked.get() }
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

/// The configuration of the device's QP `local`, as the scenario creates it.
fn created_qp(scenario: &Scenario, local: u32) -> Option<&openrdma_device::QpConfig> {
    scenario.records.iter().find_map(|r| match &r.body {
        Body::Host { command: openrdma_device::HostCommand::CreateQp(q) }
            if q.qpn.value() == local =>
        {
            Some(q)
        }
        _ => None,
    })
}

/// Whether an AETH ACK with credit code 0 is among a QP's acknowledgements `acks`: a
/// sender must ignore the code (AETH-MRC-002.b).
fn credit_zero_before(acks: &[(u64, &openrdma_codec::frame::DecodedFrame<'_>)]) -> bool {
    acks.iter().any(|(_, d)| {
        d.ext
            .aeth
            .is_some_and(|a| AethKind::of(a.syndrome) == AethKind::Ack && a.syndrome & 0x1F == 0)
    })
}

/// The tail-probe rule that governs the probes of the device's QP `local` that no CPU
/// command asks for, when its spray policy queues none of its own (SND-SPRAY-009 queues
/// them under `window-fit`): with `tail_probe` set its timer must queue them
/// (SND-TAIL-001.a); unset, it must queue none (SND-TAIL-001.b).
fn tail_rule(scenario: &Scenario, local: u32) -> Option<Clause> {
    let q = created_qp(scenario, local)?;
    if q.spray == openrdma_device::SprayPolicy::WindowFit {
        return None;
    }
    Some(match scenario.manifest.nic.tail_probe {
        Some(_) => crate::req::SND_TAIL_001_A,
        None => crate::req::SND_TAIL_001_B,
    })
}

/// Whether a CPU command asked the device's QP `local` for a probe within `late` ns
/// before `at`, among `commands` (time, command).
fn probe_commanded<'a>(
    mut commands: impl Iterator<Item = (u64, &'a openrdma_device::CpuCommand)>,
    local: u32,
    at: u64,
    late: u64,
) -> bool {
    commands.any(|(t, c)| {
        t <= at
            && t.saturating_add(late) >= at
            && matches!(c, openrdma_device::CpuCommand::Probe { qpn, .. } if qpn.value() == local)
    })
}

/// The acknowledgements (SACKs and AETHs) among the records a scenario injects (`inj`,
/// decoded) into the device's QP `local` up to `at`, with their times.
fn acks_into<'i, 'a>(
    inj: &'i [obs::Injected<'a>],
    local: u32,
    at: u64,
) -> Vec<(u64, &'i openrdma_codec::frame::DecodedFrame<'a>)> {
    inj.iter()
        .filter(|i| i.at() <= at)
        .filter_map(|i| {
            let d = i.frame.as_ref()?;
            (d.bth?.dest_qp.value() == local).then_some((i.at(), d))
        })
        .filter(|(_, d)| d.ext.seth.is_some() || d.ext.aeth.is_some())
        .collect()
}

/// An EV of a QP's profile as its frames carry it: over IPv4 only bits 31:16 travel, in the
/// UDP source port (ENC-EV-002, ENC-EV-003).
fn wire_ev(ipv4: bool, ev: openrdma_codec::Ev) -> openrdma_codec::Ev {
    if ipv4 { openrdma_codec::Ev::from_halves(ev.high(), 0) } else { ev }
}

/// Maps peer QP numbers to the device's QP numbers, from the QPs the scenario creates
/// (`timeline::peers`, as bare numbers for the checks' keys).
fn peer_map(scenario: &Scenario) -> HashMap<u32, u32> {
    crate::timeline::peers(scenario).into_iter().map(|(p, l)| (p.value(), l.value())).collect()
}
