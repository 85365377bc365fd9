//! Faults of the host interface: the doorbell bus read wrong, templates changed at the
//! wrong moment or installed unchecked, completion queues and flags written wrong, work
//! left for a later input. Each names the scenarios written to catch it.

use std::collections::HashMap;

use openrdma_codec::frame::decode;
use openrdma_codec::host::{
    COMPLETION_LEN, CompletionRepr, CompletionStatus, DoorbellToken, FlagRepr, Template,
};
use openrdma_codec::{Lkey, TemplateId};
use openrdma_conformance::req;
use openrdma_device::{
    CqConfig, CqId, FlagWrite, HostCommand, Input, LocalRegion, NicEvent, NicReport, Output, Side,
    TimedInput, TimedOutput,
};

use super::{Batch, Edits, Fault, Stream, fault, stream};

mod completions;
use completions::*;

/// Every fault of the host interface.
pub static FAULTS: &[Fault] = &[
    // ---- the doorbell bus --------------------------------------------------------------
    stream(
        "latches-partial-writes",
        "each doorbell register latches whatever bytes a write brings and rings with its 8 bytes after every write that touches it",
        &[req::DB_MMIO_002_A],
        &["db-bus-partial-writes"],
        |_| Box::<Latches>::default(),
    ),
    fault(
        "big-endian-doorbell",
        "a doorbell write's bytes are read big-endian",
        &[req::DB_FORMAT_002],
        &["db-bus-partial-writes", "db-bus-registers"],
        Edits { host_in: Some(big_endian_doorbell), ..Edits::NONE },
    ),
    fault(
        "template-id-8bit",
        "the doorbell unit holds a token's template ID in 8 bits: bits 59:56 of the token are lost",
        &[req::DB_FORMAT_001],
        &["db-template-id"],
        Edits { host_in: Some(template_id_8bit), ..Edits::NONE },
    ),
    fault(
        "first-register-only",
        "only doorbell register 0 is decoded; writes to the others are lost",
        &[req::DB_MMIO_003_A],
        &["db-bus-registers"],
        Edits { keep_in: Some(first_register_only), ..Edits::NONE },
    ),
    fault(
        "register-selects-template",
        "doorbell register r serves template r: the register, not the token, names it",
        &[req::DB_MMIO_003_A],
        &["db-bus-registers"],
        Edits { host_in: Some(register_selects_template), ..Edits::NONE },
    ),
    stream(
        "doorbell-busy-drops",
        "the doorbell unit is busy for 150 ns after each token it takes, and a token rung in that time is lost",
        &[req::DB_ACCEPT_001],
        &["db-accept"],
        |_| Box::<BusyDrops>::default(),
    ),
    stream(
        "doorbells-lifo",
        "of two tokens pending in the doorbell queue, the later is processed first",
        &[req::ORD_NIC_002_A],
        &["db-accept"],
        |_| Box::new(DoorbellsLifo),
    ),
    fault(
        "posted-wr-reads-remote-va",
        "a work request posted by the CPU reads its payload from its remote_va instead of its local_va",
        &[req::WR_EXEC_001, req::SND_SEG_001_B],
        &["snd-segmentation"],
        Edits { host_in: Some(posted_wr_reads_remote_va), ..Edits::NONE },
    ),
    // ---- templates ---------------------------------------------------------------------
    fault(
        "template-torn",
        "a template change is torn: the token right after it, at the same instant, is expanded with the new local side but the old remote side",
        &[req::TPL_INSTALL_002, req::SND_SEG_003_A],
        &["db-template-change"],
        Edits { stream: Some(|_| Box::<TemplateTorn>::default()), per_input: true, ..Edits::NONE },
    ),
    stream(
        "template-change-late",
        "a template change at the same instant as the next token takes effect after it",
        &[req::TPL_INSTALL_002, req::SND_SEG_003_A],
        &["db-template-change"],
        |_| Box::new(TemplateChangeLate),
    ),
    fault(
        "seq-advances-on-reject",
        "the expected seq of a template advances on every token that names it while it is enabled, rejected or not",
        &[req::DB_REJECT_001, req::DB_SEQ_001],
        &["db-reject"],
        seq_bug(SeqBug::AdvancesOnReject),
    ),
    fault(
        "seq-per-qp",
        "one expected seq is kept per QP, shared by all the templates of the QP, instead of one per template",
        &[req::DB_SEQ_001],
        &["db-accept"],
        seq_bug(SeqBug::OnePerQp),
    ),
    fault(
        "reinstall-keeps-seq",
        "installing a template again under an ID in use keeps the expected seq of the old one",
        &[req::TPL_INSTALL_003_B, req::DB_SEQ_001],
        &["db-template-change"],
        seq_bug(SeqBug::KeptByInstall),
    ),
    fault(
        "reenable-resets-seq",
        "re-enabling a disabled template sets its expected seq to 0",
        &[req::TPL_INSTALL_003_A],
        &["db-reject", "db-template-change"],
        seq_bug(SeqBug::ResetByEnable),
    ),
    stream(
        "lkey-not-checked",
        "a template is installed whatever its local key",
        &[req::TPL_KEY_001],
        &["db-local-keys"],
        |_| Box::<LkeyNotChecked>::default(),
    ),
    // ---- completion queues -------------------------------------------------------------
    stream(
        "cq-overwrites-unreleased",
        "the consumer register is ignored: the ring wraps over entries not yet released",
        &[req::CQE_RING_004_A],
        &["ret-cq-overflow", "rcv-cq-receive"],
        |_| Box::<CqOverwrites>::default(),
    ),
    stream(
        "cq-full-fails-at-once",
        "a completion queue found full fails its QPs at once, in the middle of the input: the messages that input acknowledged after the entry that found no slot complete FLUSHED",
        &[req::CQE_RING_005_A],
        &["ret-cq-overflow"],
        |_| Box::new(FailsAtOnce),
    ),
    stream(
        "cqe-owner-first",
        "the owner byte is written before the rest of the entry: at byte 31's write, bytes 0 to 30 still hold the slot's previous contents",
        &[req::CQE_RING_003_B],
        // Caught by ret-cq-wrap and rcv-cq-receive too, where the stale bytes show first
        // as an entry out of order (CQE-SEND-003) or a receive entry wrong (CQE-RECV-001).
        &["db-reject-queues"],
        |_| Box::<OwnerFirst>::default(),
    ),
    stream(
        "rejects-to-error-cq",
        "the completions of every rejected token go to the device error queue",
        &[req::CQE_REJECT_002],
        &["db-reject-queues"],
        |_| Box::<RejectsToErrorCq>::default(),
    ),
    stream(
        "failed-cqe-keeps-length",
        "the completion of a failed work request reports the message's length in byte_len, not 0",
        &[req::CQE_SEND_002],
        &["snd-ack-nak"],
        |_| Box::<FailedKeepsLength>::default(),
    ),
    stream(
        "failed-flag-keeps-length",
        "the sender flag of a failed work request reports the message's length in byte_len, not 0",
        &[req::FLAG_LEN_001],
        &["snd-ack-nak"],
        |_| Box::<FailedFlagKeepsLength>::default(),
    ),
    stream(
        "sender-flag-len-of-last-packet",
        "a sender flag reports the bytes of the message's last packet in byte_len, not the message's",
        &[req::FLAG_SEND_001_E],
        &["snd-segmentation"],
        |m| Box::new(LastPacketLength { pmtu: m.nic.pmtu.max(1) }),
    ),
    stream(
        "imm-retirement-flag-len-zero",
        "the retirement flag of a Write with Immediate reports byte_len 0, as if only the immediate arrived",
        &[req::FLAG_RECV_002_C],
        &["rcv-cq-receive", "rcv-wwi-order"],
        |_| Box::new(ImmRetirementLenZero),
    ),
    stream(
        "sender-flag-at-tick",
        "the sender's flag writes wait in a queue its 16 us housekeeping tick drains: a sender flag is written at the tick after the acknowledgement, not when it arrives",
        &[req::FLAG_SEND_001_C],
        &["db-accept", "snd-segmentation"],
        |_| Box::<FlagsAtTick>::default(),
    ),
    stream(
        "unsignaled-flag-dropped",
        "an unsignaled work request that succeeds writes no sender flag: the flag is written only beside a completion",
        &[req::FLAG_SEND_002, req::WR_SIGNALED_001_B, req::FLAG_SEND_001_A],
        &["db-accept", "snd-segmentation"],
        |_| Box::new(UnsignaledFlagDropped),
    ),
    stream(
        "failed-unsignaled-no-cqe",
        "an unsignaled work request that fails writes its sender flag but no completion",
        &[req::WR_SIGNALED_001_C, req::CQE_SEND_002],
        &["snd-ack-nak"],
        |_| Box::<FailedUnsignaledNoCqe>::default(),
    ),
    stream(
        "cqes-of-an-input-reversed",
        "the requester completions one input produces are written last first, all before the flags of that input",
        &[req::CQE_SEND_003],
        &["snd-ack-nak"],
        |_| Box::new(CqesReversed),
    ),
    stream(
        "signaled-flag-dropped",
        "a signaled work request that succeeds writes its completion but not its sender flag",
        &[req::FLAG_SEND_001_A, req::WR_SIGNALED_001_A],
        &["db-accept", "snd-ack-nak"],
        |_| Box::new(SignaledFlagDropped),
    ),
    fault(
        "signaled-bit-lost",
        "the signaled bit is lost when a work request is queued: a signaled work request that succeeds writes its sender flag but no completion",
        &[req::WR_SIGNALED_001_A, req::CQE_SEND_001],
        &["db-accept", "snd-ack-nak"],
        Edits { host_in: Some(|c| set_signaled(c, false)), ..Edits::NONE },
    ),
    fault(
        "signaled-bit-stuck",
        "the signaled bit of a queued work request is stuck at 1: an unsignaled work request that succeeds writes a completion beside its flag",
        &[req::WR_SIGNALED_001_B],
        &["db-accept", "snd-segmentation"],
        Edits { host_in: Some(|c| set_signaled(c, true)), ..Edits::NONE },
    ),
    // ---- retirement and flushing -------------------------------------------------------
    fault(
        "recv-cqe-after-flag",
        "the responder writes a receive completion after its message's retirement flag",
        &[req::FLAG_ORDER_002, req::WWI_ORDER_001],
        &["rcv-in-order-v4", "rcv-wwi-order"],
        Edits { stream: Some(|_| Box::new(super::behaviour::CqeAfterFlag)), ..Edits::NONE },
    ),
    fault(
        "retire-one-per-input",
        "the retirement engine retires one message per input: of the messages one write makes retirable, the others wait for the next input",
        &[req::RET_ORDER_002],
        &["ret-burst-before-next-input"],
        Edits {
            stream: Some(|_| Box::<RetireOnePerInput>::default()),
            per_input: true,
            ..Edits::NONE
        },
    ),
    stream(
        "flush-rewrites-completed",
        "a QP's failure flushes the work requests it already completed once more",
        &[req::RET_FLUSH_001_A, req::ORD_SEND_003, req::RET_SEND_001, req::FLAG_SEND_001_A],
        &["snd-ack-nak"],
        |_| Box::<FlushRewritesCompleted>::default(),
    ),
    stream(
        "cq-full-fails-one-qp",
        "a completion queue that finds no free slot stops, but only the QP whose completion found it full moves to the error state: the other QPs that report to it keep running",
        &[req::CQE_RING_004_B],
        &["ret-cq-overflow"],
        |_| Box::<FullFailsOne>::default(),
    ),
    stream(
        "cq-full-entry-retried",
        "a completion that finds its queue full stays in the NIC's write buffer and is written once the consumer frees a slot, though the queue stopped and its QPs failed",
        &[req::CQE_RING_005_B, req::ORD_SEND_003],
        &["ret-cq-overflow"],
        |_| Box::<FullEntryRetried>::default(),
    ),
    stream(
        "cq-restart-on-release",
        "a consumer register write clears a stopped completion queue's stop: later completions are written to it again",
        &[req::CQE_RING_005_C],
        &["ret-cq-overflow"],
        |_| Box::new(FullEntryRetried { restart: true, ..FullEntryRetried::default() }),
    ),
    // ---- the flag table ----------------------------------------------------------------
    stream(
        "flag-stride-16",
        "the flag engine computes a slot's address with a 16-byte stride, base + 16 x slot, as for a wider record",
        &[req::FLAG_TABLE_001_B, req::FLAG_SEND_001_B, req::FLAG_RECV_001_B],
        &["db-accept", "rcv-flag-slots"],
        |_| Box::new(FlagPlace::new(|base, slot, _| base + 16 * slot)),
    ),
    stream(
        "flag-base-unused",
        "the flag table's base register is never loaded: every flag goes to its slot counted from address 0",
        &[req::FLAG_TABLE_001_A, req::FLAG_SEND_001_B, req::FLAG_RECV_001_B],
        &["db-accept", "rcv-flag-slots"],
        |_| Box::new(FlagPlace::new(|_, slot, _| 8 * slot)),
    ),
    stream(
        "flag-upper-half",
        "the flag engine addresses each flag word by its upper 32-bit half, 4 bytes past the slot's start",
        &[req::FLAG_WRITE_001, req::FLAG_SEND_001_B, req::FLAG_RECV_001_B],
        &["db-accept", "rcv-flag-slots"],
        |_| Box::new(FlagPlace::new(|base, slot, _| base + 8 * slot + 4)),
    ),
    stream(
        "rx-flag-slot-unwrapped",
        "the retirement flag slot is the MSN itself, not the MSN modulo rx_flag_slots: messages from MSN rx_flag_slots on write past the table",
        &[req::FLAG_TABLE_001_C, req::FLAG_RECV_001_B],
        &["rcv-flag-slots"],
        |_| Box::new(FlagPlace::new(|base, slot, msn| base + 8 * msn.unwrap_or(slot))),
    ),
];

// ---- the doorbell bus ------------------------------------------------------------------

/// A doorbell write as a token rung at its time.
fn ring(at: TimedInput, token: u64) -> TimedInput {
    TimedInput { at: at.at, input: Input::Host { command: HostCommand::Doorbell { token } } }
}

/// A token as a doorbell unit with an 8-bit template ID reads it: bits 59:56 cleared, in
/// a token or in byte 7 of a register write.
fn template_id_8bit(command: &mut HostCommand) {
    match command {
        HostCommand::Doorbell { token } => *token &= !(0xF << 56),
        HostCommand::DoorbellWrite(w) => {
            let start = usize::from(w.offset);
            if let Some(b) = 7usize.checked_sub(start).and_then(|k| w.bytes.get_mut(k)) {
                *b &= 0xF0;
            }
        }
        _ => {}
    }
}

/// The bytes each register holds.
#[derive(Debug, Default)]
struct Latches {
    latches: HashMap<u32, [u8; 8]>,
}

impl Stream for Latches {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        let mut out = Vec::with_capacity(inputs.len());
        for i in inputs {
            let Input::Host { command: HostCommand::DoorbellWrite(w) } = &i.input else {
                out.push(i);
                continue;
            };
            let mut rung = Vec::new();
            for (k, b) in w.bytes.iter().enumerate() {
                let pos = usize::from(w.offset) + k;
                let reg = w.register.wrapping_add((pos / 8) as u32);
                self.latches.entry(reg).or_default()[pos % 8] = *b;
                if !rung.contains(&reg) {
                    rung.push(reg);
                }
            }
            for r in rung {
                out.push(ring(i.clone(), u64::from_le_bytes(self.latches[&r])));
            }
        }
        out
    }
}

fn big_endian_doorbell(c: &mut HostCommand) {
    let HostCommand::DoorbellWrite(w) = c else { return };
    if let (0, Ok(b)) = (w.offset, <[u8; 8]>::try_from(w.bytes.as_slice())) {
        *c = HostCommand::Doorbell { token: u64::from_be_bytes(b) };
    }
}

fn first_register_only(i: &Input) -> bool {
    !matches!(i, Input::Host { command: HostCommand::DoorbellWrite(w) } if w.register != 0)
}

fn register_selects_template(c: &mut HostCommand) {
    let HostCommand::DoorbellWrite(w) = c else { return };
    if let Some(t) = w.token() {
        let tok = DoorbellToken::from_u64(t);
        let template = TemplateId::new(w.register as u16 & 0xFFF);
        *c = HostCommand::Doorbell { token: DoorbellToken { template, ..tok }.to_u64() };
    }
}

/// How long the doorbell unit of [`BusyDrops`] is busy after each token it takes.
const DOORBELL_BUSY_NS: u64 = 150;

/// When the doorbell unit last took a token.
#[derive(Debug, Default)]
struct BusyDrops {
    took: Option<u64>,
}

impl Stream for BusyDrops {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        inputs.retain(|i| {
            if !matches!(i.input, Input::Host { command: HostCommand::Doorbell { .. } }) {
                return true;
            }
            if self.took.is_some_and(|t| i.at.0 < t + DOORBELL_BUSY_NS) {
                return false;
            }
            self.took = Some(i.at.0);
            true
        });
        inputs
    }
}

// ---- templates -------------------------------------------------------------------------

/// Templates installed, the change (instant, old, new) the next token may be torn by, and
/// the versions (old, new) the current input's packets are torn between.
#[derive(Debug, Default)]
struct TemplateTorn {
    templates: HashMap<TemplateId, Template>,
    changed: Option<(u64, Template, Template)>,
    torn: Option<(Template, Template)>,
}

impl Stream for TemplateTorn {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.torn = None;
        // One input at a time (`per_input`).
        let Some(i) = inputs.first() else { return inputs };
        match &i.input {
            Input::Host { command: HostCommand::SetTemplate(t) } => {
                let old = self.templates.insert(t.template_id, *t);
                self.changed = old
                    .filter(|o| Template { enabled: t.enabled, ..*o } != *t)
                    .map(|o| (i.at.0, o, *t));
            }
            Input::Host { command: HostCommand::Doorbell { token } } => {
                if let Some((at, old, new)) = self.changed.take() {
                    let tok = DoorbellToken::from_u64(*token);
                    if at == i.at.0 && tok.template == new.template_id {
                        self.torn = Some((old, new));
                    }
                }
            }
            _ => {}
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let Some((old, new)) = self.torn else { return outputs };
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let Some(mut f) = decode(bytes).to_repr() else { continue };
            if let Some(r) = f.ext.reth.as_mut() {
                r.va = r.va.wrapping_sub(new.remote_base).wrapping_add(old.remote_base);
                f.icrc = None;
                if let Ok(b) = f.to_bytes() {
                    *bytes = b;
                }
            }
        }
        outputs
    }
}

/// A change followed by a token at its instant is applied after the token.
#[derive(Debug)]
struct TemplateChangeLate;

impl Stream for TemplateChangeLate {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for k in 1..inputs.len() {
            let (a, b) = (&inputs[k - 1], &inputs[k]);
            let change = matches!(a.input, Input::Host { command: HostCommand::SetTemplate(_) });
            let token = matches!(b.input, Input::Host { command: HostCommand::Doorbell { .. } });
            if change && token && a.at == b.at {
                inputs.swap(k - 1, k);
            }
        }
        inputs
    }
}

/// A wrong rule of keeping a template's expected seq (`DB-SEQ-001`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SeqBug {
    /// A rejected token advances it.
    AdvancesOnReject,
    /// An installation under an ID in use keeps it.
    KeptByInstall,
    /// Re-enabling sets it to 0.
    ResetByEnable,
    /// One number per QP, shared by its templates, set to 0 by installing any of them.
    OnePerQp,
}

/// The edits of a [`SeqBug`]: one input at a time, so that the stream sees which token
/// was rejected before the next arrives.
const fn seq_bug(bug: SeqBug) -> Edits {
    let make: super::MakeStream = match bug {
        SeqBug::AdvancesOnReject => |_| Box::new(SeqSkew::new(SeqBug::AdvancesOnReject)),
        SeqBug::KeptByInstall => |_| Box::new(SeqSkew::new(SeqBug::KeptByInstall)),
        SeqBug::ResetByEnable => |_| Box::new(SeqSkew::new(SeqBug::ResetByEnable)),
        SeqBug::OnePerQp => |_| Box::new(SeqSkew::new(SeqBug::OnePerQp)),
    };
    Edits { stream: Some(make), per_input: true, ..Edits::NONE }
}

/// A device whose expected seq of each template is `skew` ahead of the reference's: each
/// token is handed to the reference with its seq moved back by the skew, so that the
/// reference accepts and rejects as the faulty device would, and its entries and flags
/// are given back the token as rung.
#[derive(Debug)]
struct SeqSkew {
    bug: SeqBug,
    templates: HashMap<TemplateId, Template>,
    /// The reference's expected seq of each template.
    expected: HashMap<TemplateId, u16>,
    /// How far the faulty device's expected seq is ahead of it.
    skew: HashMap<TemplateId, u16>,
    /// The faulty device's number of each QP ([`SeqBug::OnePerQp`]).
    per_qp: HashMap<u32, u16>,
    /// The token of the current input: its template and the value the reference sees.
    current: Option<(TemplateId, u64)>,
    /// The values the reference saw, to the tokens rung.
    tokens: HashMap<u64, u64>,
    /// A QP's sender flag generation as the reference writes it, to the seq rung.
    gens: HashMap<(u32, u16), u16>,
}

impl SeqSkew {
    fn new(bug: SeqBug) -> Self {
        SeqSkew {
            bug,
            templates: HashMap::new(),
            expected: HashMap::new(),
            skew: HashMap::new(),
            per_qp: HashMap::new(),
            current: None,
            tokens: HashMap::new(),
            gens: HashMap::new(),
        }
    }
}

impl Stream for SeqSkew {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.current = None;
        // One input at a time (`per_input`).
        let Some(i) = inputs.first_mut() else { return inputs };
        let Input::Host { command } = &mut i.input else { return inputs };
        match command {
            HostCommand::SetTemplate(t) => {
                let id = t.template_id;
                let expected = self.expected.get(&id).copied().unwrap_or(0);
                let skew = self.skew.get(&id).copied().unwrap_or(0);
                match self.templates.get(&id) {
                    // Switched on or off: the reference keeps its number.
                    Some(old) if Template { enabled: t.enabled, ..*old } == *t => {
                        if self.bug == SeqBug::ResetByEnable && t.enabled && !old.enabled {
                            self.skew.insert(id, 0u16.wrapping_sub(expected));
                        }
                    }
                    // Installed again: the reference starts at 0.
                    Some(_) => {
                        let kept = match self.bug {
                            SeqBug::KeptByInstall => expected.wrapping_add(skew),
                            _ => 0,
                        };
                        self.skew.insert(id, kept);
                        self.expected.insert(id, 0);
                    }
                    None => {
                        self.skew.insert(id, 0);
                        self.expected.insert(id, 0);
                    }
                }
                let toggled = self
                    .templates
                    .get(&id)
                    .is_some_and(|o| Template { enabled: t.enabled, ..*o } == *t);
                if !toggled {
                    self.per_qp.insert(t.qpn.value(), 0);
                }
                self.templates.insert(id, *t);
            }
            HostCommand::Doorbell { token } => {
                let tok = DoorbellToken::from_u64(*token);
                let mut skew = self.skew.get(&tok.template).copied().unwrap_or(0);
                if let (SeqBug::OnePerQp, Some(t)) = (self.bug, self.templates.get(&tok.template)) {
                    let expected = self.expected.get(&tok.template).copied().unwrap_or(0);
                    let shared = self.per_qp.get(&t.qpn.value()).copied().unwrap_or(0);
                    skew = shared.wrapping_sub(expected);
                }
                let seen = DoorbellToken { seq: tok.seq.wrapping_sub(skew), ..tok };
                self.tokens.insert(seen.to_u64(), *token);
                if let Some(t) = self.templates.get(&tok.template) {
                    self.gens.insert((t.qpn.value(), seen.seq), tok.seq);
                }
                self.current = Some((tok.template, seen.to_u64()));
                *token = seen.to_u64();
            }
            _ => {}
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        if let Some((id, seen)) = self.current.take() {
            let rejected = outputs.iter().any(|o| {
                matches!(&o.output, Output::Event { event: NicEvent::Completion(c) }
                    if c.entry.wr_id == seen && c.entry.status.is_doorbell_reject())
            });
            let enabled = self.templates.get(&id).is_some_and(|t| t.enabled);
            if !rejected {
                let e = self.expected.entry(id).or_default();
                *e = e.wrapping_add(1);
                if let Some(t) = self.templates.get(&id) {
                    let n = self.per_qp.entry(t.qpn.value()).or_default();
                    *n = n.wrapping_add(1);
                }
            } else if self.bug == SeqBug::AdvancesOnReject && enabled {
                let k = self.skew.entry(id).or_default();
                *k = k.wrapping_add(1);
            }
        }
        for o in &mut outputs {
            let Output::Event { event } = &mut o.output else { continue };
            match event {
                NicEvent::Completion(c) => {
                    let mut e = c.written_entry();
                    let Some(&rung) = self.tokens.get(&e.wr_id) else { continue };
                    e.wr_id = rung;
                    c.entry = e;
                    if let Some(q) = c.queue.as_mut() {
                        let _ = e.emit(&mut q.bytes);
                    }
                }
                NicEvent::FlagWrite(w) if w.side == Side::Requester => {
                    let mut f = FlagRepr::from_u64(w.value);
                    if let Some(&seq) = self.gens.get(&(w.qpn.value(), f.generation)) {
                        f.generation = seq;
                        w.value = f.to_u64();
                    }
                }
                _ => {}
            }
        }
        outputs
    }
}

/// The key under which [`LkeyNotChecked`] installs every template: one registration that
/// covers all memory, made before the first input.
const ANY_KEY: Lkey = Lkey::new(0xFFFF_FF00);

#[derive(Debug, Default)]
struct LkeyNotChecked {
    registered: bool,
}

impl Stream for LkeyNotChecked {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            if let Input::Host { command: HostCommand::SetTemplate(t) } = &mut i.input {
                t.local_lkey = ANY_KEY;
            }
        }
        if !self.registered {
            if let Some(at) = inputs.first().map(|i| i.at) {
                self.registered = true;
                let region =
                    LocalRegion { lkey: ANY_KEY, base: 0, len: u64::MAX, local_read: true };
                let command = HostCommand::RegisterLocal(region);
                inputs.insert(0, TimedInput { at, input: Input::Host { command } });
            }
        }
        inputs
    }
}

// ---- the flag table --------------------------------------------------------------------

/// Where a faulty flag engine puts a flag: from the table's base, the right slot, and the
/// message's MSN for a retirement flag.
type Place = fn(u64, u64, Option<u64>) -> u64;

/// Flags moved to where a faulty flag engine computes their address: each QP's tables
/// are learnt from its creation.
#[derive(Debug)]
struct FlagPlace {
    /// (QP, sender side) to the table's base.
    tables: HashMap<(u32, bool), u64>,
    place: Place,
}

impl FlagPlace {
    fn new(place: Place) -> Self {
        FlagPlace { tables: HashMap::new(), place }
    }
}

impl Stream for FlagPlace {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::CreateQp(q) } = &i.input {
                self.tables.insert((q.qpn.value(), true), q.send_flag_base);
                self.tables.insert((q.qpn.value(), false), q.recv_flag_base);
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event: NicEvent::FlagWrite(f) } = &mut o.output else { continue };
            let sender = f.side == Side::Requester;
            let Some(&base) = self.tables.get(&(f.qpn.value(), sender)) else { continue };
            let slot = f.addr.wrapping_sub(base) / 8;
            let msn = (!sender).then_some(u64::from(f.msn.value()));
            f.addr = (self.place)(base, slot, msn);
        }
        outputs
    }
}

// ---- a full completion queue -----------------------------------------------------------

/// The QPs a full queue should have failed besides the one whose completion found it
/// full, which the faulty NIC leaves running: their error reports and FLUSHED flags and
/// entries are not produced.
#[derive(Debug, Default)]
struct FullFailsOne {
    spared: std::collections::HashSet<u32>,
}

impl Stream for FullFailsOne {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut failed_one = false;
        for o in &outputs {
            if let Output::Event {
                event: NicEvent::Report(NicReport::QpError { qpn, requirement }),
            } = &o.output
            {
                if requirement.starts_with("CQE-RING-004") {
                    if failed_one {
                        self.spared.insert(qpn.value());
                    }
                    failed_one = true;
                }
            }
        }
        let spared = &self.spared;
        outputs
            .into_iter()
            .filter(|o| match &o.output {
                Output::Event { event: NicEvent::Report(NicReport::QpError { qpn, .. }) } => {
                    !spared.contains(&qpn.value())
                }
                Output::Event { event: NicEvent::FlagWrite(f) } => {
                    !spared.contains(&f.qpn.value())
                        || FlagRepr::from_u64(f.value).status != CompletionStatus::FLUSHED
                }
                Output::Event { event: NicEvent::Completion(c) } => {
                    !spared.contains(&c.entry.qpn.value())
                        || c.entry.status != CompletionStatus::FLUSHED
                }
                _ => true,
            })
            .collect()
    }
}

/// The entry that found its queue full, kept and written once the consumer register
/// frees a slot; or, with `restart`, that entry lost but the queue restarted by the
/// consumer register, so that later completions are written to it. An entry the inner
/// device left out is rebuilt from the work request whose success flag it wrote without
/// one.
#[derive(Debug, Default)]
struct FullEntryRetried {
    restart: bool,
    /// The stopped queues with the time each stopped, and those a consumer register write
    /// restarted.
    stopped: HashMap<CqId, u64>,
    restarted: std::collections::HashSet<CqId>,
    cqs: HashMap<CqId, CqConfig>,
    send_cq: HashMap<u32, CqId>,
    /// Each QP's posted work requests, in order: the k-th takes MSN k.
    posts: HashMap<u32, Vec<openrdma_codec::host::WorkRequest>>,
    /// Entries written to each queue, and the consumer count.
    written: HashMap<CqId, u64>,
    consumed: HashMap<CqId, u32>,
    /// Consumer register writes not yet acted on, (time, queue, count).
    releases: Vec<(u64, CqId, u32)>,
    held: Vec<(CqId, CompletionRepr)>,
}

impl Stream for FullEntryRetried {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            let Input::Host { command } = &i.input else { continue };
            match command {
                HostCommand::CreateCq(c) => {
                    self.cqs.insert(c.cq, *c);
                }
                HostCommand::CreateQp(q) => {
                    if let Some(cq) = q.send_cq {
                        self.send_cq.insert(q.qpn.value(), cq);
                    }
                }
                HostCommand::PostWrite(wr) => {
                    self.posts.entry(wr.qpn.value()).or_default().push(*wr);
                }
                HostCommand::CqConsumer { cq, consumed } => {
                    self.releases.push((i.at.0, *cq, *consumed));
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        // The queues a completion found full in this batch, with the time.
        let full: Vec<(CqId, u64)> = outputs
            .iter()
            .filter_map(|o| match &o.output {
                Output::Event {
                    event: NicEvent::Report(NicReport::QpError { qpn, requirement }),
                } if requirement.starts_with("CQE-RING-004") => {
                    self.send_cq.get(&qpn.value()).map(|&cq| (cq, o.at.0))
                }
                _ => None,
            })
            .collect();
        for &(cq, at) in &full {
            self.stopped.entry(cq).or_insert(at);
        }
        let entered = |q: u32, m: u16| {
            outputs.iter().any(|o| {
                matches!(&o.output, Output::Event { event: NicEvent::Completion(c) }
                    if c.entry.qpn.value() == q && c.entry.msn.value() == m)
            })
        };
        // The flags of the batch whose message has no entry in it.
        let bare: Vec<(u32, u16)> = outputs
            .iter()
            .filter_map(|o| match &o.output {
                Output::Event { event: NicEvent::FlagWrite(f) } => {
                    let (q, m) = (f.qpn.value(), f.msn.value());
                    (!entered(q, m)).then_some((q, m))
                }
                _ => None,
            })
            .collect();
        let mut out = Vec::with_capacity(outputs.len() + 1);
        for o in outputs {
            let Output::Event { event } = &o.output else {
                out.push(o);
                continue;
            };
            let lost = match event {
                NicEvent::Completion(c) => {
                    if let Some(q) = &c.queue {
                        *self.written.entry(q.cq).or_default() += 1;
                    }
                    None
                }
                NicEvent::FlagWrite(f) if f.side == Side::Requester => self.lost(f, &bare),
                _ => None,
            };
            let Some((cq, entry)) = lost else {
                out.push(o);
                continue;
            };
            if !self.restart {
                self.held.push((cq, entry));
            } else if self.room(cq) {
                // Written at once, before its flag.
                let output = self.write(cq, entry);
                out.push(TimedOutput { at: o.at, output });
            }
            out.push(o);
        }
        // The consumer register writes: each restarts a stopped queue (`restart`), or
        // lets the held entries it makes room for be written, at its time.
        for (at, cq, consumed) in std::mem::take(&mut self.releases) {
            self.consumed.insert(cq, consumed);
            if self.restart {
                if self.stopped.get(&cq).is_some_and(|&t| t <= at) {
                    self.restarted.insert(cq);
                }
                continue;
            }
            let mut k = 0;
            while k < self.held.len() {
                if self.held[k].0 != cq || !self.room(cq) {
                    k += 1;
                    continue;
                }
                let (_, entry) = self.held.remove(k);
                let output = self.write(cq, entry);
                out.push(TimedOutput { at: openrdma_device::Timestamp(at), output });
            }
        }
        out.sort_by_key(|o| o.at);
        out
    }
}

impl FullEntryRetried {
    /// The entry the inner device left out for the sender flag `f`, rebuilt from its work
    /// request, with its queue: when the flag is a signaled success whose message has no
    /// entry (`bare`), and its queue found no free slot now (`restart` off) or was
    /// restarted (`restart` on).
    fn lost(&self, f: &FlagWrite, bare: &[(u32, u16)]) -> Option<(CqId, CompletionRepr)> {
        let (q, m) = (f.qpn.value(), f.msn.value());
        let cq = *self.send_cq.get(&q)?;
        let now = if self.restart {
            self.restarted.contains(&cq)
        } else {
            self.stopped.contains_key(&cq)
                && !self.held.iter().any(|(_, e)| e.qpn == f.qpn && e.msn == f.msn)
        };
        let success = FlagRepr::from_u64(f.value).status.is_success();
        if !now || !success || !bare.contains(&(q, m)) {
            return None;
        }
        let wr = self.posts.get(&q)?.get(usize::from(m)).filter(|w| w.signaled)?;
        let entry = CompletionRepr {
            wr_id: wr.wr_id,
            status: CompletionStatus::SUCCESS,
            opcode: wr.opcode,
            has_imm: wr.imm.is_some(),
            qpn: f.qpn,
            byte_len: wr.length,
            imm: wr.imm.unwrap_or(0),
            msn: f.msn,
            ..CompletionRepr::default()
        };
        Some((cq, entry))
    }

    /// Whether queue `cq` has a free slot.
    fn room(&self, cq: CqId) -> bool {
        let written = self.written.get(&cq).copied().unwrap_or(0);
        let released = u64::from(self.consumed.get(&cq).copied().unwrap_or(0));
        self.cqs.get(&cq).is_some_and(|c| written.saturating_sub(released) < u64::from(c.entries))
    }

    /// `entry` written as the queue's next: its slot, address and phase.
    fn write(&mut self, cq: CqId, mut entry: CompletionRepr) -> Output {
        let written = self.written.get(&cq).copied().unwrap_or(0);
        let n = self.cqs.get(&cq).map_or(1, |c| u64::from(c.entries));
        let slot = (written % n) as u32;
        entry.phase = (written / n) % 2 == 0;
        let addr = self.cqs.get(&cq).map_or(0, |c| c.slot_addr(slot));
        let queue = openrdma_device::CqWrite { cq, slot, addr, bytes: entry.to_bytes() };
        self.written.insert(cq, written + 1);
        let event = NicEvent::Completion(openrdma_device::CompletionEvent {
            side: Side::Requester,
            entry,
            queue: Some(queue),
        });
        Output::Event { event }
    }
}

fn posted_wr_reads_remote_va(c: &mut HostCommand) {
    if let HostCommand::PostWrite(w) = c {
        w.local_va = w.remote_va;
    }
}

/// Of two tokens rung one after the other, with no input between them, the later is
/// processed first, when it arrives, and the earlier just after it.
#[derive(Debug)]
struct DoorbellsLifo;

impl Stream for DoorbellsLifo {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        let rung = |i: &TimedInput| {
            matches!(i.input, Input::Host { command: HostCommand::Doorbell { .. } })
        };
        let mut k = 0;
        while k + 1 < inputs.len() {
            if rung(&inputs[k]) && rung(&inputs[k + 1]) {
                inputs[k].at = inputs[k + 1].at;
                inputs.swap(k, k + 1);
                k += 2;
            } else {
                k += 1;
            }
        }
        inputs
    }
}
