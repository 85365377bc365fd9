//! Doorbells and templates (`spec/host-interface.md`, sections 3 and 4): what a device does
//! with each token a scenario rings, judged against what the token must become.
//!
//! The ledger replays the scenario's host inputs once, in the order delivered: local
//! registrations, template installations (refused as `TPL-*` and `TPL-KEY-001` say),
//! doorbell tokens and doorbell-register writes (a write carries a token only when it is
//! one aligned write of all 8 bytes, `DB-MMIO-002`). Each token gets its decision from
//! the codec's [`accept_doorbell`] (`DB-ORDER-001`): a rejection, or the work request
//! its template expands it into (`TPL-EXPAND-*`). So every expectation of a token's
//! work — its rejection entry, its packets, its flag, its completion — knows the token
//! and template it comes from, and a difference names the rule of that token.
//!
//! What a device did with a token is read from its outputs by identity: an entry whose
//! `wr_id` is the token (`TPL-EXPAND-007`), a sender flag at the work request's slot with the
//! token's `seq`, packets whose RETH carries the work request's `rkey` and length. An
//! entry whose `wr_id` is a token rung with its bytes in another order, or with one field
//! cut to fewer bits than table 1 gives it, shows the token misread (`DB-FORMAT-002`,
//! `DB-FORMAT-001`).

use std::collections::{HashMap, HashSet};

use openrdma_codec::host::{
    CompletionStatus, DoorbellReject, DoorbellToken, FlagRepr, Side as RegionSide, Template,
    TemplateError, WorkRequest, accept_doorbell,
};
use openrdma_codec::{Lkey, TemplateId};
use openrdma_device::{HostCommand, Input, LocalRegion, NicEvent, QpConfig, Record, Side};

use super::obs::{Frame, Kind, Obs};
use super::{Divergence, FieldDiff, render_event, render_frame};
use crate::req::*;

mod checks;
mod expansion;
mod seqs;
use checks::{check_of, length_edge, reject_rule, reordered};
pub(super) use expansion::{EXPAND_CLAUSES, judge_expansion};
use seqs::Seqs;

/// Where a token came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// A `Doorbell` command: the token's value, as the GPU stored it.
    Token,
    /// One aligned 8-byte write to a doorbell register.
    Bus { register: u32 },
}

/// One token the scenario rings, and what it must become.
#[derive(Debug, Clone)]
pub(super) struct Rung {
    at: u64,
    value: u64,
    source: Source,
    decision: Result<WorkRequest, DoorbellReject>,
    /// Why the token's template cannot be used, when a rule makes it so: the template
    /// broke a `TPL-*` rule or its key was refused (`TPL-KEY-001`), or its registration
    /// ended (`TPL-KEY-002`). `None` for a template never installed or disabled.
    unusable: Option<Clause>,
    /// The statuses of every check the token fails, in the order of `DB-ORDER-001`.
    fails: Vec<CompletionStatus>,
    /// Whether software changed the token's template at the token's instant, just before
    /// it: a difference then shows the change taking effect at the wrong moment, or in
    /// part (`TPL-INSTALL-002`).
    torn: bool,
    /// Whether that change only switched the template on or off: a rejection by sequence
    /// number then shows how the device keeps the number, not when the change took effect.
    toggled: bool,
    /// The sequence number the template expects, and what a device with one wrong rule of
    /// `DB-SEQ-001` would expect instead, when the token names an installed template.
    seqs: Option<Seqs>,
    /// For an accepted token, the first length check (`DB-ORDER-001`) whose bound it
    /// reaches exactly: a device that rejects it for its length drew that bound one byte
    /// short.
    edge: Option<Clause>,
}

/// The fields of table 1 that a register may hold too narrow, with their widths.
const FIELDS: [(&str, u32); 4] =
    [("template", 12), ("seq", 16), ("index", 16), ("length_units", 16)];

/// The field of token `value`, and the bits it was cut to, that make it `read`.
fn cut_into(value: u64, read: u64) -> Option<(&'static str, u32)> {
    let tok = DoorbellToken::from_u64(value);
    FIELDS.iter().find_map(|&(field, width)| {
        (1..width).find(|&bits| cut(&tok, field, bits).to_u64() == read).map(|bits| (field, bits))
    })
}

/// `tok` with `field` cut to its low `bits`.
fn cut(tok: &DoorbellToken, field: &str, bits: u32) -> DoorbellToken {
    let low = |v: u16| v & ((1u32 << bits) - 1) as u16;
    let mut t = *tok;
    match field {
        "template" => t.template = TemplateId::new(low(tok.template.value())),
        "seq" => t.seq = low(tok.seq),
        "index" => t.index = low(tok.index),
        _ => t.length_units = low(tok.length_units),
    }
    t
}

/// Whether a status is a rejection by sequence number.
fn seq_status(s: CompletionStatus) -> bool {
    s == CompletionStatus::STALE_SEQ || s == CompletionStatus::SEQ_GAP
}

/// The tokens of a run and the bus writes that carry none.
#[derive(Debug, Default)]
pub(super) struct Ledger {
    rungs: Vec<Rung>,
    /// Times of the doorbell-register writes that carry no token (`DB-MMIO-002`).
    tokenless: Vec<u64>,
    /// The writes of 8 bytes among them that start inside a register, with the value a
    /// decoder that ignores the offset would take for a token.
    misaligned: Vec<(u64, u64)>,
    /// The `wr_id`s of work requests the CPU posts.
    posted: HashSet<u64>,
    /// Whether the CPU posts any work request (whose packets no token explains).
    posted_any: bool,
    /// The device's QPs.
    qps: HashMap<u32, QpConfig>,
}

struct Installed {
    template: Template,
    seqs: Seqs,
}

impl Rung {
    /// The rule a device broke that rejects this token as `got` by its sequence number,
    /// which is right (`Seqs::rule_of`).
    fn seq_rule(&self, got: CompletionStatus) -> Clause {
        let seq = DoorbellToken::from_u64(self.value).seq;
        self.seqs.map_or(DB_SEQ_001, |s| s.rule_of(seq, got))
    }

    /// Whether the token passes the checks before the sequence check and that check: its
    /// template is usable and its seq is the one the template expects.
    fn seq_right(&self) -> bool {
        let before = [
            CompletionStatus::BAD_VERSION,
            CompletionStatus::UNKNOWN_TEMPLATE,
            CompletionStatus::STALE_SEQ,
            CompletionStatus::SEQ_GAP,
        ];
        self.seqs.is_some() && !self.fails.iter().any(|f| before.contains(f))
    }

    /// Whether the token names a template the NIC must have refused to install.
    fn refused(&self) -> bool {
        !self.torn && self.unusable.is_some_and(|c| c != TPL_KEY_002)
    }
}

impl Ledger {
    /// Replays the host inputs of a run.
    pub(super) fn new(o: &Obs<'_>) -> Ledger {
        let mut l = Ledger::default();
        let mut local: HashMap<Lkey, LocalRegion> = HashMap::new();
        let mut table: HashMap<TemplateId, Installed> = HashMap::new();
        // The rule that made the last installation under an ID fail, and IDs disabled
        // because their registration ended.
        let mut refused: HashMap<TemplateId, Clause> = HashMap::new();
        let mut deregistered: HashSet<TemplateId> = HashSet::new();
        // When each template last changed, and whether that change only switched it on
        // or off.
        let mut changed: HashMap<TemplateId, (u64, bool)> = HashMap::new();
        for i in &o.inputs {
            let Input::Host { command } = i.input else { continue };
            let (value, source) = match command {
                HostCommand::CreateQp(q) => {
                    l.qps.insert(q.qpn.value(), q.clone());
                    continue;
                }
                HostCommand::RegisterLocal(r) => {
                    local.insert(r.lkey, *r);
                    continue;
                }
                HostCommand::DeregisterLocal { lkey } => {
                    local.remove(lkey);
                    for s in table.values_mut().filter(|s| s.template.local_lkey == *lkey) {
                        if s.template.enabled {
                            deregistered.insert(s.template.template_id);
                        }
                        s.template.enabled = false;
                    }
                    continue;
                }
                HostCommand::SetTemplate(t) => {
                    let id = t.template_id;
                    let toggled = table
                        .get(&id)
                        .is_some_and(|s| Template { enabled: t.enabled, ..s.template } == *t);
                    changed.insert(id, (i.at, toggled));
                    match install_error(t, &local, &l.qps) {
                        Some(Some(rule)) => {
                            // A token names 12 bits: the ID it would name, if the device
                            // kept only those, is refused too (TPL-ID-001).
                            let low = TemplateId::new(id.value() & 0xFFF);
                            if rule == TPL_ID_001 && !table.contains_key(&low) {
                                refused.insert(low, rule);
                            }
                            refused.insert(id, rule);
                        }
                        Some(None) => {}
                        None => {
                            refused.remove(&id);
                            deregistered.remove(&id);
                            let seqs = match table.get(&id) {
                                Some(s) if Template { enabled: t.enabled, ..s.template } == *t => {
                                    let mut seqs = s.seqs;
                                    if t.enabled && !s.template.enabled {
                                        seqs.set(TPL_INSTALL_003_A, 0, i.at);
                                    }
                                    seqs
                                }
                                Some(s) => {
                                    let mut seqs = s.seqs;
                                    seqs.install(i.at);
                                    seqs
                                }
                                None => Seqs::new(),
                            };
                            table.insert(id, Installed { template: *t, seqs });
                        }
                    }
                    continue;
                }
                HostCommand::PostWrite(wr) => {
                    l.posted_any = true;
                    l.posted.insert(wr.wr_id);
                    continue;
                }
                HostCommand::Doorbell { token } => (*token, Source::Token),
                HostCommand::DoorbellWrite(w) => match w.token() {
                    Some(t) => (t, Source::Bus { register: w.register }),
                    None => {
                        l.tokenless.push(i.at);
                        if let Ok(b) = <[u8; 8]>::try_from(w.bytes.as_slice()) {
                            l.misaligned.push((i.at, u64::from_le_bytes(b)));
                        }
                        continue;
                    }
                },
                _ => continue,
            };
            let tok = DoorbellToken::from_u64(value);
            let slot = table.get(&tok.template);
            let decision = accept_doorbell(
                &tok,
                slot.map(|s| &s.template),
                slot.map_or(0, |s| s.seqs.expected),
            );
            let usable = slot.is_some_and(|s| s.template.usable_for(tok.template));
            let unusable = if usable {
                None
            } else if deregistered.contains(&tok.template) {
                Some(TPL_KEY_002)
            } else {
                refused.get(&tok.template).copied()
            };
            let fails = failing(&tok, slot.filter(|_| usable));
            let seqs = slot.map(|s| s.seqs);
            let edge = match (&decision, slot) {
                (Ok(wr), Some(s)) => length_edge(&s.template, wr),
                _ => None,
            };
            if let Some(s) = table.get_mut(&tok.template) {
                if decision.is_ok() {
                    s.seqs.accept();
                } else if usable {
                    let n = s.seqs.of(DB_REJECT_001).wrapping_add(1);
                    s.seqs.set(DB_REJECT_001, n, i.at);
                }
            }
            let change = changed.get(&tok.template).filter(|c| c.0 == i.at);
            let torn = change.is_some();
            let toggled = change.is_some_and(|c| c.1);
            l.rungs.push(Rung {
                at: i.at,
                value,
                source,
                decision,
                unusable,
                fails,
                torn,
                toggled,
                seqs,
                edge,
            });
        }
        l
    }

    /// Whether an 8-byte doorbell write that started inside a register, and so carried no
    /// token, came before `r` and after the template's previous rung, with `r`'s template
    /// and seq: the device that took it for a token rejects `r` as its repeat.
    fn taken_misaligned(&self, r: &Rung) -> bool {
        let tok = DoorbellToken::from_u64(r.value);
        let since = self
            .rungs
            .iter()
            .filter(|x| x.at < r.at && DoorbellToken::from_u64(x.value).template == tok.template)
            .map(|x| x.at)
            .max()
            .unwrap_or(0);
        self.misaligned.iter().any(|&(at, v)| {
            let m = DoorbellToken::from_u64(v);
            at >= since && at <= r.at && m.template == tok.template && m.seq == tok.seq
        })
    }

    fn flag_addr(&self, wr: &WorkRequest) -> Option<u64> {
        let q = self.qps.get(&wr.qpn.value())?;
        (wr.flag_slot < q.send_flag_slots).then(|| q.send_flag_base + u64::from(wr.flag_slot) * 8)
    }

    fn peer(&self, qpn: u32) -> Option<u32> {
        self.qps.get(&qpn).map(|q| q.peer_qpn.value())
    }
}

/// Why a template is refused: `None` when it is installed, `Some(Some(rule))` for the
/// rule it breaks, `Some(None)` when the scenario misuses the interface (an unknown QP).
fn install_error(
    t: &Template,
    local: &HashMap<Lkey, LocalRegion>,
    qps: &HashMap<u32, QpConfig>,
) -> Option<Option<Clause>> {
    if let Err(e) = t.validate() {
        return Some(Some(template_rule(&e)));
    }
    let Some(q) = qps.get(&t.qpn.value()) else {
        return Some(None);
    };
    if u64::from(t.flag_base_slot) + u64::from(t.slots) > u64::from(q.send_flag_slots) {
        return Some(Some(TPL_FLAG_001_B));
    }
    let covered = local
        .get(&t.local_lkey)
        .is_some_and(|r| r.local_read && r.contains(t.local_base, t.local_region_len));
    (!covered).then_some(Some(TPL_KEY_001))
}

/// The clause a template error breaks.
fn template_rule(e: &TemplateError) -> Clause {
    match e {
        TemplateError::IdOutOfRange { .. } => TPL_ID_001,
        TemplateError::ReservedQpn { .. } => TPL_QPN_001,
        TemplateError::UnknownOpcode { .. } => TPL_OPCODE_001,
        TemplateError::SlotsOutOfRange { .. } => TPL_SLOTS_001,
        TemplateError::BadLengthUnit { .. } => TPL_UNIT_001,
        TemplateError::MaxLengthTooLarge { .. } => TPL_LEN_001,
        TemplateError::DefaultAboveMax { .. } => TPL_LEN_002,
        TemplateError::RegionWraps { .. } => TPL_REGION_001,
        TemplateError::SlotsExceedRegion { side: RegionSide::Local, .. } => TPL_REGION_002_A,
        TemplateError::SlotsExceedRegion { .. } => TPL_REGION_002_B,
        TemplateError::FlagSlotsWrap { .. } => TPL_FLAG_001_A,
    }
}

/// The statuses of every doorbell check a token fails, in the order of `DB-ORDER-001`;
/// `template` is the usable template it names, if there is one.
fn failing(tok: &DoorbellToken, template: Option<&Installed>) -> Vec<CompletionStatus> {
    let mut out = Vec::new();
    if tok.check_version().is_err() {
        out.push(CompletionStatus::BAD_VERSION);
    }
    let Some(s) = template else {
        out.push(CompletionStatus::UNKNOWN_TEMPLATE);
        return out;
    };
    if let Err(r) = openrdma_codec::host::check_seq(s.seqs.expected, tok.seq) {
        out.push(r.status());
    }
    let t = &s.template;
    if u32::from(tok.index) >= t.slots {
        out.push(CompletionStatus::INDEX_OUT_OF_RANGE);
    }
    let length = if tok.length_units == 0 {
        u64::from(t.default_length)
    } else {
        u64::from(tok.length_units) * u64::from(t.length_unit)
    };
    let past = |stride: u64, len: u64| {
        u128::from(tok.index) * u128::from(stride) + u128::from(length) > u128::from(len)
    };
    if length > u64::from(t.max_length)
        || past(t.local_stride, t.local_region_len)
        || past(t.remote_stride, t.remote_region_len)
    {
        out.push(CompletionStatus::LENGTH_OUT_OF_RANGE);
    }
    out
}

/// The clauses the `doorbells` row can fail.
pub(super) const CLAUSES: &[Clause] = &[
    CQE_REJECT_001,
    DB_ACCEPT_001,
    DB_FORMAT_001,
    DB_FORMAT_002,
    DB_INDEX_001,
    DB_LENGTH_001,
    DB_LENGTH_002,
    DB_LENGTH_003,
    DB_LENGTH_004,
    DB_MMIO_002_A,
    DB_MMIO_003_A,
    DB_ORDER_001,
    DB_REJECT_001,
    DB_SEQ_001,
    DB_SEQ_002,
    DB_SEQ_003,
    DB_TEMPLATE_001,
    DB_VERSION_001,
    FLAG_SEND_003,
    ORD_NIC_002_A,
    RET_FLUSH_001_B,
    TPL_FLAG_001_A,
    TPL_FLAG_001_B,
    TPL_ID_001,
    TPL_INSTALL_001_B,
    TPL_INSTALL_002,
    TPL_INSTALL_003_A,
    TPL_INSTALL_003_B,
    TPL_KEY_001,
    TPL_KEY_002,
    TPL_LEN_001,
    TPL_LEN_002,
    TPL_OPCODE_001,
    TPL_QPN_001,
    TPL_REGION_001,
    TPL_REGION_002_A,
    TPL_REGION_002_B,
    TPL_SLOTS_001,
    TPL_UNIT_001,
];

/// What the device wrote and sent for tokens: its requester entries (the entry as
/// reported and as written: a torn write must not hide the token), its sender flags and
/// its data packets.
struct Seen<'a> {
    entries: Vec<(u64, &'a openrdma_device::CompletionEvent)>,
    flags: Vec<(u64, &'a openrdma_device::FlagWrite)>,
    frames: &'a [Frame<'a>],
}

impl<'a> Seen<'a> {
    fn of(events: &[(u64, &'a NicEvent)], frames: &'a [Frame<'a>]) -> Seen<'a> {
        let mut s = Seen { entries: Vec::new(), flags: Vec::new(), frames };
        for &(at, e) in events {
            match e {
                NicEvent::Completion(c) if c.side == Side::Requester => s.entries.push((at, c)),
                NicEvent::FlagWrite(f) if f.side == Side::Requester => s.flags.push((at, f)),
                _ => {}
            }
        }
        s
    }

    /// The entries whose `wr_id` is `value`, with their status.
    fn entries_of(&self, value: u64) -> impl Iterator<Item = (u64, CompletionStatus)> + '_ {
        self.entries.iter().filter_map(move |&(at, c)| {
            let w = c.written_entry();
            if c.entry.wr_id == value {
                Some((at, c.entry.status))
            } else if w.wr_id == value {
                Some((at, w.status))
            } else {
                None
            }
        })
    }

    fn any_entry(&self, value: u64) -> bool {
        self.entries_of(value).next().is_some()
    }

    /// Whether the device wrote the flag of `wr`, at `addr`, for the token `seq`.
    fn flag_of(&self, wr: &WorkRequest, addr: Option<u64>) -> bool {
        let seq = (wr.wr_id >> 32) as u16;
        self.flags.iter().any(|(_, f)| {
            f.qpn == wr.qpn && Some(f.addr) == addr && FlagRepr::from_u64(f.value).generation == seq
        })
    }

    /// Whether the device sent a packet of `wr` to `peer`.
    fn packet_of(&self, wr: &WorkRequest, peer: Option<u32>) -> bool {
        self.frames.iter().any(|f| belongs(f, wr, peer))
    }
}

/// Whether a data packet belongs to the message of `wr`, sent to `peer`: its RETH
/// carries the request's `rkey` and length and an address inside its remote range.
fn belongs(f: &Frame<'_>, wr: &WorkRequest, peer: Option<u32>) -> bool {
    let Kind::Data { qp, .. } = f.kind else { return false };
    let Some(r) = f.d.ext.reth else { return false };
    Some(qp) == peer
        && r.rkey == wr.rkey
        && r.dma_len == wr.length
        && r.va >= wr.remote_va
        && r.va - wr.remote_va < u64::from(wr.length.max(1))
}

/// Whether the scenario expects something of `wr`: an entry with its `wr_id`, its flag,
/// or one of its packets.
fn expected_of(
    exp_events: &[(&Record, &NicEvent)],
    exp_frames: &[(&Record, Frame<'_>)],
    wr: &WorkRequest,
    addr: Option<u64>,
    peer: Option<u32>,
) -> bool {
    let seq = (wr.wr_id >> 32) as u16;
    exp_events.iter().any(|(_, e)| match e {
        NicEvent::Completion(c) => c.side == Side::Requester && c.entry.wr_id == wr.wr_id,
        NicEvent::FlagWrite(f) => {
            f.side == Side::Requester
                && f.qpn == wr.qpn
                && Some(f.addr) == addr
                && FlagRepr::from_u64(f.value).generation == seq
        }
        _ => false,
    }) || exp_frames.iter().any(|(_, f)| belongs(f, wr, peer))
}

/// The expected rejection entry of token `value`.
fn expected_reject<'a>(
    exp_events: &[(&'a Record, &'a NicEvent)],
    value: u64,
    status: CompletionStatus,
) -> Option<&'a NicEvent> {
    exp_events.iter().map(|(_, e)| *e).find(|e| {
        matches!(e, NicEvent::Completion(c)
            if c.side == Side::Requester && c.entry.wr_id == value && c.entry.status == status)
    })
}

fn status_name(s: CompletionStatus) -> String {
    match s.name() {
        Some(n) => format!("{n} ({:#04x})", s.0),
        None => format!("{:#04x}", s.0),
    }
}

/// Judges what the device did with every token (the `doorbells` row).
pub(super) fn judge(o: &Obs<'_>, div: &mut Vec<Divergence>) {
    let l = Ledger::new(o);
    if l.rungs.is_empty() && l.tokenless.is_empty() {
        return;
    }
    let seen = Seen::of(&o.events, &o.frames);
    let known: HashSet<u64> =
        l.rungs.iter().map(|r| r.value).chain(l.posted.iter().copied()).collect();
    // Entries for tokens nobody rang: a write that carried no token acted on
    // (DB-MMIO-002), a token read in the wrong byte order (DB-FORMAT-002) or with a field
    // cut short (DB-FORMAT-001).
    let mut swapped: HashSet<u64> = HashSet::new();
    for &(at, c) in &seen.entries {
        let id = c.entry.wr_id;
        if known.contains(&id) || !c.entry.status.is_doorbell_reject() {
            continue;
        }
        if let Some(r) = l.rungs.iter().find(|r| {
            r.at <= at && matches!(r.source, Source::Bus { .. }) && reordered(r.value, id, c)
        }) {
            swapped.insert(r.value);
            div.push(Divergence {
                actual: Some(render_event(&NicEvent::Completion(*c))),
                ..Divergence::of(
                    r.at,
                    DB_FORMAT_002,
                    format!(
                        "token {:#018x} was read with its bytes in another order: the device \
                         answered token {id:#018x}",
                        r.value
                    ),
                )
            });
        } else if let Some((r, (field, bits))) =
            l.rungs.iter().filter(|r| r.at <= at).find_map(|r| Some((r, cut_into(r.value, id)?)))
        {
            // The entry names a token rung with one field cut short: the device holds the
            // field in a narrower register.
            swapped.insert(r.value);
            div.push(Divergence {
                actual: Some(render_event(&NicEvent::Completion(*c))),
                ..Divergence::of(
                    r.at,
                    DB_FORMAT_001,
                    format!(
                        "token {:#018x} was read with its `{field}` field cut to {bits} bits: \
                         the device answered token {id:#018x}",
                        r.value
                    ),
                )
            });
        } else if let Some(&w) = l.tokenless.iter().filter(|&&w| w <= at).max() {
            div.push(Divergence {
                actual: Some(render_event(&NicEvent::Completion(*c))),
                ..Divergence::of(
                    w,
                    DB_MMIO_002_A,
                    format!(
                        "a doorbell write that carries no token was acted on: the device \
                         answered token {id:#018x}"
                    ),
                )
            });
            break;
        }
    }
    // A token value rung more than once has its rejections counted together: the k-th
    // rejection of a status is due once k rungs of the value want it.
    let mut wanted: HashMap<u64, Vec<CompletionStatus>> = HashMap::new();
    // An entry that names no token is torn or garbled: the entry rows name it, and a token
    // whose entry it may be is not called unanswered.
    let garbled = seen
        .entries
        .iter()
        .any(|(_, c)| !known.contains(&c.entry.wr_id) || !known.contains(&c.written_entry().wr_id));
    // The first packets of messages no accepted token explains.
    let wrs: Vec<(&WorkRequest, Option<u32>)> = l
        .rungs
        .iter()
        .filter_map(|r| r.decision.as_ref().ok())
        .map(|w| (w, l.peer(w.qpn.value())))
        .collect();
    let unexplained: Vec<u64> = o
        .frames
        .iter()
        .filter(|f| matches!(f.kind, Kind::Data { rtx: false, .. }))
        .filter(|f| f.d.ext.reth.is_some())
        .filter(|f| !wrs.iter().any(|(w, p)| belongs(f, w, *p)))
        .map(|f| f.at)
        .collect();
    for (k, r) in l.rungs.iter().enumerate() {
        if let Err(reject) = &r.decision {
            wanted.entry(r.value).or_default().push(reject.status());
            let due = wanted[&r.value].iter().filter(|&&s| s == reject.status()).count();
            let next = l.rungs.get(k + 1).map_or(u64::MAX, |n| n.at);
            let executed = !l.posted_any && unexplained.iter().any(|&t| t >= r.at && t < next);
            let around = Around { garbled, executed };
            judge_rejected(r, reject, due, around, o, &seen, div);
        }
    }
    judge_reject_flags(&l, &seen, div);
    let mut told: HashSet<u64> = HashSet::new();
    for r in &l.rungs {
        if r.decision.is_ok() && !swapped.contains(&r.value) && told.insert(r.value) {
            // Of the accepted rungs of one value, the one at a template change speaks
            // for them: a rejection among them shows that change.
            let same = |x: &&Rung| x.value == r.value && x.decision.is_ok();
            let r = l.rungs.iter().filter(same).find(|x| x.torn).unwrap_or(r);
            let Ok(wr) = &r.decision else { continue };
            let none = Vec::new();
            let want = wanted.get(&r.value).unwrap_or(&none);
            judge_accepted(r, wr, want, &l, o, &seen, div);
        }
    }
}

/// A sender flag written at the instant of a rejected token, which no accepted token
/// explains: the rejection wrote a flag (FLAG-SEND-003). Flags of work the CPU posts are
/// not told apart from it, so a run with posted work is not judged.
fn judge_reject_flags(l: &Ledger, seen: &Seen<'_>, div: &mut Vec<Divergence>) {
    if l.posted_any {
        return;
    }
    for &(at, f) in &seen.flags {
        // A token accepted by then, whose flag it may be.
        let by_then =
            l.rungs.iter().filter(|r| r.at <= at).filter_map(|r| r.decision.as_ref().ok());
        let explained = by_then.into_iter().any(|w| {
            let seq = (w.wr_id >> 32) as u16;
            f.qpn == w.qpn
                && Some(f.addr) == l.flag_addr(w)
                && FlagRepr::from_u64(f.value).generation == seq
        });
        let rejected = l.rungs.iter().find(|r| r.at == at && r.decision.is_err());
        let accepted_now = l.rungs.iter().any(|r| r.at == at && r.decision.is_ok());
        let (Some(r), false, false) = (rejected, explained, accepted_now) else { continue };
        div.push(Divergence {
            actual: Some(render_event(&NicEvent::FlagWrite(*f))),
            ..Divergence::of(
                at,
                FLAG_SEND_003,
                format!(
                    "token {:#018x} was rejected, but a sender flag was written for it",
                    r.value
                ),
            )
        });
        return;
    }
}

/// The statuses of `got` that `want` does not account for, as multisets.
fn unaccounted(want: &[CompletionStatus], got: &[CompletionStatus]) -> Vec<CompletionStatus> {
    let mut left = want.to_vec();
    let mut out = Vec::new();
    for s in got {
        match left.iter().position(|w| w == s) {
            Some(i) => {
                left.swap_remove(i);
            }
            None => out.push(*s),
        }
    }
    out
}

/// What else the run shows about a rejected token that has no entry.
#[derive(Debug, Clone, Copy)]
struct Around {
    /// An entry names no token: it may be this token's, torn.
    garbled: bool,
    /// A message no accepted token explains began between this token and the next.
    executed: bool,
}

fn judge_rejected(
    r: &Rung,
    reject: &DoorbellReject,
    due: usize,
    around: Around,
    o: &Obs<'_>,
    seen: &Seen<'_>,
    div: &mut Vec<Divergence>,
) {
    let want = reject.status();
    let Some(expected) = expected_reject(&o.exp_events, r.value, want) else { return };
    let got: Vec<CompletionStatus> = seen.entries_of(r.value).map(|(_, s)| s).collect();
    if got.iter().filter(|&&s| s == want).count() >= due {
        return;
    }
    // A token at the instant of a template change is judged under TPL-INSTALL-002 when
    // one version of the template may explain its answer. BadVersion for a token of
    // version 1 is explained by none: the answer breaks the rejection's own rule.
    let misversioned = got.contains(&CompletionStatus::BAD_VERSION)
        && DoorbellToken::from_u64(r.value).version == 1;
    let rule =
        if r.torn && !misversioned { TPL_INSTALL_002 } else { reject_rule(reject, r.unusable) };
    let other = got.iter().find(|s| **s != want);
    let (clause, what) = match other {
        // Rejected by a sequence number that is right: the device expects another.
        Some(&s) if seq_status(s) && r.seq_right() && (!r.torn || r.toggled) => (
            r.seq_rule(s),
            format!(
                "token {:#018x} was rejected as {}, but its seq is the one its template \
                 expects; it fails {} first",
                r.value,
                status_name(s),
                status_name(want)
            ),
        ),
        Some(&s) if s.is_doorbell_reject() && r.fails.contains(&s) && !r.torn => (
            DB_ORDER_001,
            format!(
                "token {:#018x} was rejected as {}, but it fails {} first, an earlier check",
                r.value,
                status_name(s),
                status_name(want)
            ),
        ),
        // A template the NIC must refuse is treated as naming no template
        // (TPL-INSTALL-001.b): another rejection shows it taken for a template.
        Some(&s) if s.is_doorbell_reject() && r.refused() => (
            TPL_INSTALL_001_B,
            format!(
                "token {:#018x} names a template the NIC must refuse, but was rejected as {}, \
                 not as {}",
                r.value,
                status_name(s),
                status_name(want)
            ),
        ),
        Some(&s) => (
            rule,
            format!(
                "token {:#018x} was answered with {}, expected its rejection as {}",
                r.value,
                status_name(s),
                status_name(want)
            ),
        ),
        // No entry, but a message no accepted token explains begins before the next
        // token: the token was executed.
        None if got.is_empty() && around.executed => (
            rule,
            format!(
                "token {:#018x} must be rejected as {}, but a message was sent for it",
                r.value,
                status_name(want)
            ),
        ),
        // No entry at all: the one error completion of a rejected token is missing.
        None if around.garbled => return,
        None if got.is_empty() => (
            CQE_REJECT_001,
            format!(
                "token {:#018x} must be rejected as {}; the device wrote no entry for it",
                r.value,
                status_name(want)
            ),
        ),
        None => return,
    };
    div.push(Divergence {
        expected: Some(render_event(expected)),
        fields: vec![FieldDiff::new(
            "status",
            format!("{:#04x}", want.0),
            got.first().map_or("none".into(), |s| format!("{:#04x}", s.0)),
        )],
        ..Divergence::of(r.at, clause, what)
    });
}

fn judge_accepted(
    r: &Rung,
    wr: &WorkRequest,
    rejected: &[CompletionStatus],
    l: &Ledger,
    o: &Obs<'_>,
    seen: &Seen<'_>,
    div: &mut Vec<Divergence>,
) {
    let addr = l.flag_addr(wr);
    let peer = l.peer(wr.qpn.value());
    if !expected_of(&o.exp_events, &o.exp_frames, wr, addr, peer) {
        return;
    }
    let got: Vec<CompletionStatus> =
        seen.entries_of(r.value).map(|(_, s)| s).filter(|s| s.is_doorbell_reject()).collect();
    let unexplained = unaccounted(rejected, &got);
    if let Some(&s) = unexplained.first() {
        if let Some((at, x)) = overtaken(r, l, seen) {
            div.push(Divergence::of(
                at,
                ORD_NIC_002_A,
                format!(
                    "token {:#018x} was processed before token {:#018x}, rung before it: it \
                     was rejected as SeqGap, and the earlier token was accepted after it",
                    r.value, x.value
                ),
            ));
            return;
        }
        // The rungs of this value, and those a change at their instant may explain.
        let same: Vec<&Rung> =
            l.rungs.iter().filter(|x| x.value == r.value && x.decision.is_ok()).collect();
        let torn = same.iter().filter(|x| x.torn && !x.toggled).count();
        let by_seq = unexplained.iter().filter(|s| seq_status(**s)).count();
        let rule = if s == CompletionStatus::STALE_SEQ && l.taken_misaligned(r) {
            // An 8-byte write that started inside a register carried this very token
            // before it: the device acted on it, and this token repeats it.
            DB_MMIO_002_A
        } else if seq_status(s) && by_seq > torn {
            // A rung whose seq is the one its template expects was rejected by its seq:
            // the device expects another.
            same.iter()
                .filter(|x| !x.torn || x.toggled)
                .map(|x| x.seq_rule(s))
                .find(|c| *c != DB_SEQ_001)
                .unwrap_or(DB_SEQ_001)
        } else if r.torn {
            TPL_INSTALL_002
        } else if let Some(c) = r.edge.filter(|_| s == CompletionStatus::LENGTH_OUT_OF_RANGE) {
            c
        } else if s == CompletionStatus::LENGTH_OUT_OF_RANGE {
            // Away from every bound no comparison off by one explains the rejection: the
            // device took the token for another length.
            DB_LENGTH_001
        } else {
            // The check whose status the device gave failed a token that passes it.
            check_of(s)
        };
        let what = if rule == DB_MMIO_002_A {
            format!(
                "token {:#018x} was rejected as {}: an 8-byte doorbell write before it that \
                 started inside a register, and so carried no token, was taken for it",
                r.value,
                status_name(s)
            )
        } else {
            format!(
                "token {:#018x} passes every doorbell check, but was rejected as {}",
                r.value,
                status_name(s)
            )
        };
        div.push(Divergence::of(r.at, rule, what));
        return;
    }
    if seen.any_entry(r.value) || seen.flag_of(wr, addr) || seen.packet_of(wr, peer) {
        return;
    }
    let (clause, what) = match r.source {
        Source::Bus { register } => (
            DB_MMIO_003_A,
            format!(
                "token {:#018x}, written to doorbell register {register}, was not acted on",
                r.value
            ),
        ),
        // The work request of a token for a QP in error completes FLUSHED at once.
        Source::Token if flushed_at_once(&o.exp_events, r.value) => (
            RET_FLUSH_001_B,
            format!(
                "token {:#018x} reached a QP in the error state, but its work request did not \
                 complete FLUSHED",
                r.value
            ),
        ),
        Source::Token => (
            DB_ACCEPT_001,
            format!("token {:#018x} passes every check, but became no work request", r.value),
        ),
    };
    div.push(Divergence::of(r.at, clause, what));
}

/// The time `r`, whose seq is right, was rejected as SeqGap, and the token of its template
/// rung just before it, with the seq before its own, when the device began that token's
/// message no earlier: the device processed the two tokens in the other order than it
/// received them (ORD-NIC-002.a).
fn overtaken<'l>(r: &Rung, l: &'l Ledger, seen: &Seen<'_>) -> Option<(u64, &'l Rung)> {
    let tok = DoorbellToken::from_u64(r.value);
    let rejected = seen
        .entries_of(r.value)
        .filter(|(_, s)| *s == CompletionStatus::SEQ_GAP)
        .map(|(at, _)| at)
        .min()?;
    let x = l
        .rungs
        .iter()
        .take_while(|x| !std::ptr::eq(*x, r))
        .filter(|x| DoorbellToken::from_u64(x.value).template == tok.template)
        .last()?;
    let wr = x.decision.as_ref().ok()?;
    if DoorbellToken::from_u64(x.value).seq.wrapping_add(1) != tok.seq {
        return None;
    }
    let peer = l.peer(wr.qpn.value());
    let began = seen
        .frames
        .iter()
        .filter(|f| matches!(f.kind, Kind::Data { rtx: false, .. }) && belongs(f, wr, peer))
        .map(|f| f.at)
        .min()?;
    (began >= rejected).then_some((rejected, x))
}

/// Whether the scenario expects the work request of token `value` to complete FLUSHED: it
/// reached a QP in the error state (RET-FLUSH-001.b).
fn flushed_at_once(exp: &[(&Record, &NicEvent)], value: u64) -> bool {
    exp.iter().any(|(_, e)| {
        matches!(e, NicEvent::Completion(c) if c.side == Side::Requester
            && c.entry.wr_id == value
            && c.entry.status == CompletionStatus::FLUSHED)
    })
}
