//! Faults of doorbell checking and template expansion: a rejection that writes no error
//! completion, a template field expanded wrong. Each names the clause the judge's
//! `doorbells` and `templates.expand` rows fail for it.

use std::collections::HashMap;

use openrdma_codec::host::{
    COMPLETION_LEN, CompletionStatus, DoorbellReject, DoorbellToken, FlagRepr, LengthBound,
    Template, WrOpcode,
};
use openrdma_codec::{Rkey, TemplateId};
use openrdma_conformance::req;
use openrdma_device::{
    FlagWrite, HostCommand, Input, NicEvent, Output, Side, TimedInput, TimedOutput,
};

use super::{Batch, Edits, Fault, Stream, fault};

/// Every fault of doorbell checking and template expansion.
pub static FAULTS: &[Fault] = &[
    // ---- rejections reported with another check's status -----------------------------
    misreports(
        "bad-version-as-unknown-template",
        "a token of another version than 1 is rejected as UnknownTemplate",
        &[req::DB_VERSION_001],
        |_| Box::new(Misreports::new(Reason::Version, CompletionStatus::UNKNOWN_TEMPLATE)),
    ),
    misreports(
        "unknown-template-as-bad-version",
        "a token naming no installed template is rejected as BadVersion",
        &[req::DB_TEMPLATE_001],
        |_| Box::new(Misreports::new(Reason::Template, CompletionStatus::BAD_VERSION)),
    ),
    misreports(
        "stale-seq-as-gap",
        "a replayed token (its seq behind the expected one) is rejected as SeqGap",
        &[req::DB_SEQ_002],
        |_| Box::new(Misreports::new(Reason::Stale, CompletionStatus::SEQ_GAP)),
    ),
    misreports(
        "seq-gap-as-stale",
        "a token whose seq is ahead of the expected one is rejected as StaleSeq",
        &[req::DB_SEQ_003],
        |_| Box::new(Misreports::new(Reason::Gap, CompletionStatus::STALE_SEQ)),
    ),
    misreports(
        "index-checked-after-length",
        "the length checks run before the index check: a token failing both is rejected for its length",
        &[req::DB_ORDER_001, req::DB_INDEX_001],
        |_| Box::new(Misreports::new(Reason::Index, CompletionStatus::LENGTH_OUT_OF_RANGE)),
    ),
    misreports(
        "above-max-length-as-index",
        "a token longer than the template's max_length is rejected as IndexOutOfRange",
        &[req::DB_LENGTH_002],
        |_| {
            Box::new(Misreports::new(
                Reason::Length(LengthBound::MaxLength),
                CompletionStatus::INDEX_OUT_OF_RANGE,
            ))
        },
    ),
    misreports(
        "past-local-region-as-index",
        "a token whose local range passes the local region is rejected as IndexOutOfRange",
        &[req::DB_LENGTH_003],
        |_| {
            Box::new(Misreports::new(
                Reason::Length(LengthBound::LocalRegion),
                CompletionStatus::INDEX_OUT_OF_RANGE,
            ))
        },
    ),
    misreports(
        "past-remote-region-as-index",
        "a token whose remote range passes the remote region is rejected as IndexOutOfRange",
        &[req::DB_LENGTH_004],
        |_| {
            Box::new(Misreports::new(
                Reason::Length(LengthBound::RemoteRegion),
                CompletionStatus::INDEX_OUT_OF_RANGE,
            ))
        },
    ),
    misreports_in(
        "refused-template-as-bad-version",
        "a token naming a template the NIC refused is rejected as BadVersion",
        &[req::TPL_INSTALL_001_B],
        |_| Box::new(Misreports::new(Reason::Template, CompletionStatus::BAD_VERSION)),
    ),
    misreports_in(
        "reserved-qpn-template-flushed",
        "the reserved-QPN check is missing: a template on QPN 2 is installed, and its tokens are accepted and flushed as on a QP in the error state",
        &[req::TPL_QPN_001, req::TPL_INSTALL_001_A],
        |_| Box::new(Misreports::new(Reason::ReservedQpn, CompletionStatus::FLUSHED)),
    ),
    fault(
        "index-bounded-by-regions",
        "a token's index is not checked against the template's slots, only through the length checks: an index the regions still hold is accepted",
        &[req::DB_INDEX_001],
        &["db-reject"],
        Edits { host_in: Some(|c| edit_template(c, slots_the_regions_hold)), ..Edits::NONE },
    ),
    fault(
        "rejected-token-writes-flag",
        "a token rejected by a check after the template lookup writes a sender flag with its rejection status at its slot",
        &[req::FLAG_SEND_003, req::DB_REJECT_001],
        &["db-reject"],
        Edits { stream: Some(|_| Box::<RejectFlags>::default()), ..Edits::NONE },
    ),
    // ---- templates installed unchecked -------------------------------------------------
    unchecked(
        "template-opcode-low-bit",
        "a template's opcode is read from its lowest bit: an unknown opcode is installed",
        &[req::TPL_OPCODE_001],
        |c| edit_template(c, |t| t.opcode = WrOpcode(t.opcode.0 & 1)),
    ),
    unchecked(
        "template-zero-slots-as-one",
        "a template of 0 slots is installed with one",
        &[req::TPL_SLOTS_001],
        |c| edit_template(c, |t| t.slots = t.slots.max(1)),
    ),
    unchecked(
        "template-unit-rounded-up",
        "a length unit that is not a power of two is rounded up to one and installed",
        &[req::TPL_UNIT_001],
        |c| edit_template(c, |t| t.length_unit = t.length_unit.next_power_of_two().min(1 << 31)),
    ),
    unchecked(
        "template-max-length-clamped",
        "a max_length above 2^31 is clamped to 2^31 and the template installed",
        &[req::TPL_LEN_001],
        |c| edit_template(c, |t| t.max_length = t.max_length.min(1 << 31)),
    ),
    unchecked(
        "template-default-clamped-to-max",
        "a default_length above max_length is clamped to max_length and the template installed",
        &[req::TPL_LEN_002],
        |c| edit_template(c, |t| t.default_length = t.default_length.min(t.max_length)),
    ),
    unchecked(
        "template-local-slots-unchecked",
        "a template whose slots do not fit its local region is installed with the region they need",
        &[req::TPL_REGION_002_A],
        |c| {
            edit_template(c, |t| {
                let need = u64::from(t.slots.saturating_sub(1)) * t.local_stride
                    + u64::from(t.default_length);
                t.local_region_len = t.local_region_len.max(need);
            })
        },
    ),
    unchecked(
        "template-remote-slots-unchecked",
        "a template whose slots do not fit its remote region is installed with the region they need",
        &[req::TPL_REGION_002_B],
        |c| {
            edit_template(c, |t| {
                let need = u64::from(t.slots.saturating_sub(1)) * t.remote_stride
                    + u64::from(t.default_length);
                t.remote_region_len = t.remote_region_len.max(need);
            })
        },
    ),
    unchecked(
        "template-region-end-wraps",
        "a region's end is computed modulo 2^64: a template whose remote region wraps the address space is installed",
        &[req::TPL_REGION_001, req::TPL_INSTALL_001_A],
        |c| {
            edit_template(c, |t| {
                // Its tokens near the region's base act as the faulty NIC's do.
                if t.remote_base.checked_add(t.remote_region_len).is_none() {
                    t.remote_region_len = u64::MAX - t.remote_base;
                }
            })
        },
    ),
    unchecked(
        "template-flag-base-wraps",
        "the end of a template's flag slots is computed in 32 bits: slots that pass 2^32 wrap to an end inside the flag table, and the template is installed",
        &[req::TPL_FLAG_001_A],
        |c| {
            edit_template(c, |t| {
                // Its tokens run as on flag slots from the wrapped end: where the flag
                // lands is not what catches it, the message sent is.
                if t.flag_base_slot.checked_add(t.slots.saturating_sub(1)).is_none() {
                    t.flag_base_slot = t.flag_base_slot.wrapping_add(t.slots);
                }
            })
        },
    ),
    fault(
        "flag-table-first-slot-only",
        "a template's flag slots are checked against the flag table by their first slot only: one whose last slots pass the table's end is installed",
        &[req::TPL_FLAG_001_B, req::TPL_INSTALL_001_A],
        &["db-bad-templates"],
        Edits { stream: Some(|_| Box::<FirstSlotOnly>::default()), ..Edits::NONE },
    ),
    // ---- template fields expanded wrong ------------------------------------------------
    fault(
        "imm-base-ignored",
        "the immediate of a template's message is the slot index alone, without imm_base",
        &[req::TPL_EXPAND_005_A],
        &["db-accept"],
        Edits { host_in: Some(|c| edit_template(c, |t| t.imm_base = 0)), ..Edits::NONE },
    ),
    fault(
        "imm-template-sends-write",
        "a Write-with-Immediate template is executed as a plain Write",
        &[req::TPL_EXPAND_001_A],
        &["db-accept"],
        Edits {
            host_in: Some(|c| {
                edit_template(c, |t| {
                    if t.opcode == WrOpcode::WRITE_WITH_IMM {
                        t.opcode = WrOpcode::WRITE;
                    }
                })
            }),
            ..Edits::NONE
        },
    ),
    fault(
        "write-template-sends-imm",
        "a Write template is executed as a Write with Immediate",
        &[req::TPL_EXPAND_005_B],
        &["db-accept"],
        Edits {
            host_in: Some(|c| {
                edit_template(c, |t| {
                    if t.opcode == WrOpcode::WRITE {
                        t.opcode = WrOpcode::WRITE_WITH_IMM;
                    }
                })
            }),
            ..Edits::NONE
        },
    ),
    fault(
        "rkey-from-lkey",
        "a template's message carries its local key as the remote key",
        &[req::TPL_EXPAND_001_C],
        &["db-accept"],
        Edits {
            host_in: Some(|c| {
                edit_template(c, |t| t.remote_rkey = Rkey::new(t.local_lkey.value()))
            }),
            ..Edits::NONE
        },
    ),
    fault(
        "remote-stride-ignored",
        "every slot of a template writes to remote_base: the remote stride is not applied",
        &[req::TPL_EXPAND_003],
        &["db-accept"],
        Edits { host_in: Some(|c| edit_template(c, |t| t.remote_stride = 0)), ..Edits::NONE },
    ),
    fault(
        "length-unit-halved",
        "a token's length units are counted in half the template's length_unit",
        &[req::TPL_EXPAND_004],
        &["db-accept"],
        Edits {
            host_in: Some(|c| {
                edit_template(c, |t| {
                    if t.length_unit > 1 {
                        t.length_unit /= 2;
                    }
                })
            }),
            ..Edits::NONE
        },
    ),
    fault(
        "default-length-ignored",
        "a token of length_units 0 is sent as one length unit: the template's default_length is never read",
        &[req::DB_LENGTH_001, req::TPL_EXPAND_004],
        &["db-accept"],
        Edits {
            host_in: Some(|c| edit_template(c, |t| t.default_length = t.length_unit)),
            ..Edits::NONE
        },
    ),
    fault(
        "flag-slot-without-base",
        "a token's sender flag goes to flag slot `index`, without flag_base_slot",
        &[req::TPL_EXPAND_006],
        &["db-accept"],
        Edits { host_in: Some(|c| edit_template(c, |t| t.flag_base_slot = 0)), ..Edits::NONE },
    ),
    fault(
        "flag-base-per-qp",
        "the NIC keeps one flag_base_slot per QP, from the first template installed on it: the sender flags of every other template of the QP land in that template's slots",
        &[req::TPL_EXPAND_006],
        &["db-accept"],
        Edits { stream: Some(|_| Box::<FlagBasePerQp>::default()), ..Edits::NONE },
    ),
    fault(
        "local-stride-ignored",
        "every slot of a template reads its payload from local_base",
        &[req::TPL_EXPAND_002],
        &["db-accept"],
        Edits { host_in: Some(|c| edit_template(c, |t| t.local_stride = 0)), ..Edits::NONE },
    ),
    fault(
        "wr-id-low-half",
        "the completion of a token's work request carries only the token's low 32 bits as wr_id",
        &[req::TPL_EXPAND_007],
        &["db-accept"],
        Edits { event_out: Some(wr_id_low_half), ..Edits::NONE },
    ),
];

/// A fault that reports one kind of rejection with another status, caught by the
/// scenario that rings every kind.
const fn misreports(
    name: &'static str,
    what: &'static str,
    breaks: &'static [openrdma_conformance::req::Clause],
    make: super::MakeStream,
) -> Fault {
    fault(
        name,
        what,
        breaks,
        &["db-reject"],
        Edits { stream: Some(make), per_input: true, ..Edits::NONE },
    )
}

/// A fault that reports one kind of rejection with another status in the scenario of
/// templates the NIC must refuse.
const fn misreports_in(
    name: &'static str,
    what: &'static str,
    breaks: &'static [openrdma_conformance::req::Clause],
    make: super::MakeStream,
) -> Fault {
    fault(
        name,
        what,
        breaks,
        &["db-bad-templates"],
        Edits { stream: Some(make), per_input: true, ..Edits::NONE },
    )
}

/// A template the NIC must refuse, made acceptable by the edit the faulty NIC applies
/// instead of refusing it; caught where software installs one of each.
const fn unchecked(
    name: &'static str,
    what: &'static str,
    breaks: &'static [openrdma_conformance::req::Clause],
    host_in: fn(&mut HostCommand),
) -> Fault {
    fault(
        name,
        what,
        breaks,
        &["db-bad-templates"],
        Edits { host_in: Some(host_in), ..Edits::NONE },
    )
}

/// The template with as many slots as both its regions hold at the default length: what a
/// NIC that bounds the index only by the length checks accepts.
fn slots_the_regions_hold(t: &mut Template) {
    let hold = |len: u64, stride: u64| match stride {
        0 => u64::from(u16::MAX) + 1,
        s => len.saturating_sub(u64::from(t.default_length)) / s + 1,
    };
    let most = hold(t.local_region_len, t.local_stride)
        .min(hold(t.remote_region_len, t.remote_stride))
        .min(u64::from(u16::MAX) + 1);
    let fits = t.local_region_len.min(t.remote_region_len) >= u64::from(t.default_length);
    if fits && most > u64::from(t.slots) {
        t.slots = most as u32;
    }
}

/// Applies `edit` to a template the host installs.
fn edit_template(c: &mut HostCommand, edit: fn(&mut Template)) {
    if let HostCommand::SetTemplate(t) = c {
        edit(t);
    }
}

/// Rewrites a requester entry, as reported and as written.
pub(super) fn rewrite_entry(
    e: &mut NicEvent,
    edit: impl Fn(&mut openrdma_codec::host::CompletionRepr),
) {
    let NicEvent::Completion(c) = e else { return };
    if c.side != Side::Requester {
        return;
    }
    edit(&mut c.entry);
    if let Some(q) = c.queue.as_mut() {
        let mut entry = q.entry();
        edit(&mut entry);
        let mut bytes = [0u8; COMPLETION_LEN];
        if entry.emit(&mut bytes).is_ok() {
            q.bytes = bytes;
        }
    }
}

fn wr_id_low_half(e: &mut NicEvent) -> bool {
    rewrite_entry(e, |c| {
        if c.status.is_success() {
            c.wr_id &= 0xFFFF_FFFF;
        }
    });
    true
}

/// A rejection, by the check that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reason {
    Version,
    Template,
    /// A token naming a template refused for its reserved QPN (TPL-QPN-001).
    ReservedQpn,
    Stale,
    Gap,
    Index,
    Length(LengthBound),
}

/// Writes the error completion of every token rejected for one reason with another
/// status. The device takes each input alone (`per_input`), so the outputs of a batch are
/// the token's.
#[derive(Debug)]
pub(super) struct Misreports {
    reason: Reason,
    status: CompletionStatus,
    templates: HashMap<TemplateId, Template>,
    token: Option<u64>,
}

impl Misreports {
    pub(super) fn new(reason: Reason, status: CompletionStatus) -> Misreports {
        Misreports { reason, status, templates: HashMap::new(), token: None }
    }

    /// Why the device rejected `token` with `status`.
    fn reason(&self, token: u64, status: CompletionStatus) -> Option<Reason> {
        Some(match status {
            CompletionStatus::BAD_VERSION => Reason::Version,
            CompletionStatus::UNKNOWN_TEMPLATE => Reason::Template,
            CompletionStatus::STALE_SEQ => Reason::Stale,
            CompletionStatus::SEQ_GAP => Reason::Gap,
            CompletionStatus::INDEX_OUT_OF_RANGE => Reason::Index,
            CompletionStatus::LENGTH_OUT_OF_RANGE => {
                let tok = DoorbellToken::from_u64(token);
                match self.templates.get(&tok.template)?.expand(&tok) {
                    Err(DoorbellReject::LengthOutOfRange { bound, .. }) => Reason::Length(bound),
                    _ => return None,
                }
            }
            _ => return None,
        })
    }
}

impl Misreports {
    /// Whether the rejection of `token` with `status` is one this device misreports.
    fn is_mine(&self, token: u64, status: CompletionStatus) -> bool {
        let got = self.reason(token, status);
        match self.reason {
            Reason::ReservedQpn => {
                let tok = DoorbellToken::from_u64(token);
                let reserved =
                    self.templates.get(&tok.template).is_some_and(|t| t.qpn.value() <= 2);
                got == Some(Reason::Template) && reserved
            }
            want => got == Some(want),
        }
    }
}

impl Stream for Misreports {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.token = None;
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::SetTemplate(t) } => {
                    self.templates.insert(t.template_id, *t);
                }
                Input::Host { command: HostCommand::Doorbell { token } } => {
                    self.token = Some(*token);
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let Some(token) = self.token else { return outputs };
        for o in &mut outputs {
            if let Output::Event { event } = &mut o.output {
                let mine = matches!(event, NicEvent::Completion(c)
                    if c.side == Side::Requester
                        && c.entry.wr_id == token
                        && self.is_mine(token, c.entry.status));
                if mine {
                    let status = self.status;
                    rewrite_entry(event, |c| c.status = status);
                }
            }
        }
        outputs
    }
}

/// The templates and QPs software set up, to place a rejected token's flag.
#[derive(Debug, Default)]
struct RejectFlags {
    templates: HashMap<TemplateId, Template>,
    qps: HashMap<u32, u64>,
}

impl Stream for RejectFlags {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::SetTemplate(t) } => {
                    self.templates.insert(t.template_id, *t);
                }
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    self.qps.insert(q.qpn.value(), q.send_flag_base);
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let flag = match &o.output {
                Output::Event { event: NicEvent::Completion(c) }
                    if c.side == Side::Requester && c.entry.status.is_doorbell_reject() =>
                {
                    self.flag_of(c.entry.wr_id, c.entry.status)
                }
                _ => None,
            };
            out.push(o.clone());
            if let Some(f) = flag {
                out.push(TimedOutput { at: o.at, output: Output::Event { event: f } });
            }
        }
        out
    }
}

impl RejectFlags {
    /// The flag a rejected token writes, when its template is known.
    fn flag_of(&self, token: u64, status: CompletionStatus) -> Option<NicEvent> {
        let tok = DoorbellToken::from_u64(token);
        let t = self.templates.get(&tok.template).filter(|t| t.enabled)?;
        let base = self.qps.get(&t.qpn.value())?;
        let slot = u64::from(t.flag_base_slot) + u64::from(tok.index);
        Some(NicEvent::FlagWrite(FlagWrite {
            qpn: t.qpn,
            side: Side::Requester,
            msn: openrdma_codec::Msn::new(0),
            addr: base + slot * 8,
            value: FlagRepr::sender(tok.seq, status, 0).to_u64(),
        }))
    }
}

/// The flag table of each QP, in slots, for [`FirstSlotOnly`].
#[derive(Debug, Default)]
struct FirstSlotOnly {
    tables: HashMap<u32, u32>,
}

impl Stream for FirstSlotOnly {
    /// A template whose first flag slot is inside its QP's table is installed with the
    /// slots that fit: its tokens at those slots act as the faulty NIC's do.
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            match &mut i.input {
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    self.tables.insert(q.qpn.value(), q.send_flag_slots);
                }
                Input::Host { command: HostCommand::SetTemplate(t) } => {
                    let Some(&table) = self.tables.get(&t.qpn.value()) else { continue };
                    let end = u64::from(t.flag_base_slot) + u64::from(t.slots);
                    if t.flag_base_slot < table && end > u64::from(table) {
                        t.slots = table - t.flag_base_slot;
                    }
                }
                _ => {}
            }
        }
        inputs
    }
}

/// The flag base of the first template installed on each QP, for [`FlagBasePerQp`].
#[derive(Debug, Default)]
struct FlagBasePerQp {
    first: HashMap<u32, (TemplateId, u32)>,
}

impl Stream for FlagBasePerQp {
    /// Every later template of a QP is installed with the flag base of the QP's first: its
    /// tokens expand as the faulty NIC's do.
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            if let Input::Host { command: HostCommand::SetTemplate(t) } = &mut i.input {
                let &mut (id, base) =
                    self.first.entry(t.qpn.value()).or_insert((t.template_id, t.flag_base_slot));
                if id != t.template_id {
                    t.flag_base_slot = base;
                }
            }
        }
        inputs
    }
}
