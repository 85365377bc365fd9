//! The fault registry: every fault the suite proves it catches, and every legitimate
//! variant it proves it passes, as data.
//!
//! A [`Fault`] is one table row: its name (`openrdma run --impl faulty:NAME` or
//! `variant:NAME`), what is wrong or different in a sentence, the clauses a fault breaks,
//! the scenarios that must catch it, and its [`Edits`]: small functions on the device's
//! configuration, its inputs and its outputs, or a stateful [`Stream`] where the bug needs
//! memory (a held output, a frame sent again). One device, [`Mutant`], applies the edits
//! around any inner [`Device`]: the faulty hardware's encoder and engines are right; only
//! the one bug is wrong.
//!
//! The families, one file each:
//!
//! * [`behaviour`]: a protocol engine gets one rule wrong (windows, SACKs, retransmission,
//!   retirement, flags, completions, reports).
//! * [`widths`]: a register is narrower than its field.
//! * [`engines`]: an input misread, an output lost, a parameter ignored, a damaged frame
//!   taken: the faults the scenarios were written for, one rule each.
//! * [`frames`]: frames the device must take but drops, fields it misreads, fields of the
//!   frames it sends filled wrong.
//! * [`host`]: the host interface: the doorbell bus, templates, completion queues and
//!   retirement.
//! * [`templates`]: doorbell checks reported with another status, templates installed
//!   unchecked, template fields expanded wrong.
//! * [`transport`]: the transport engines, where a fault needs more than one rewrite.
//! * [`inference`]: one rule of loss inference broken.
//! * [`estimates`]: one rule of the round-trip estimates a skew-aware QP sprays by broken.
//! * [`retire`]: the order of retirement and delivery, and the error state's completions.
//! * [`written`]: fields of flags, completion entries and SACK contents written wrong.
//! * [`cpu`]: the device's own CPU half gets one rule wrong.
//! * [`commands`]: the NIC half acts on a command of the CPU half as another case says, or
//!   delivers a QP's reports out of order.
//! * [`answers`]: what a responder sends in answer filled wrong, or not sent when due:
//!   SACK contents and triggers, ACKs, NAKs, one entry per NACK reason.
//! * [`sending`]: a sender's packets, the acknowledgements it acts on, its hooks, and a CPU
//!   half that leaves out one command.
//! * [`fifth_tx`]: faults of the fifth outside reading of the sending side: a Write with
//!   Immediate whose last packet leaves without its immediate, and the cause and lost EV of
//!   the `Retransmitted` report.
//! * [`sixth_tx`]: faults of the sixth outside reading of the sending side: two QPs that
//!   send or report at one instant, and a QP that goes idle and starts again.
//! * [`eighth_tx`]: faults of the eighth outside reading of the sending side: one spray
//!   cursor for the device, and an Armed built from the QP context as it was created.
//! * [`acks`]: a sender's range check on the SACKs and NACKs it receives left out.
//! * [`states`]: the EV state table of sender table 4, or the pool formed from it, with
//!   one rule wrong.
//! * [`discards`]: a write one receive check discards, placed before its verdict.
//! * [`fifth_rx`]: a fifth reading of the receiving side: a failed QP that still SACKs.
//! * [`sixth_rx`]: a sixth reading of the receiving side: a SACK that leaves out its own
//!   trigger at the bitmap's top bit or past the PSN wrap.
//! * [`seventh_rx`]: a seventh reading of the receiving side, as an RTL team builds it: a
//!   key read in the wrong byte order, so that writes that pass the region check are NAKed.
//! * [`eighth_rx`]: an eighth reading of the receiving side, as its pieces meet: answers
//!   of the second QP addressed to the first QP's peer.
//! * [`generated`]: one per field the judge compares in the frames a device sends.
//! * [`layouts`]: one per multi-byte field of those, sent with its bytes in the other order.
//! * [`knobs`]: one per knob of the device's configuration, ignored.
//! * [`rejects`]: one per field a receiver must take whatever its value, checked.
//! * [`wire`]: an encoder bug in the frames sent, or a wrong reading of the frames received.
//! * [`messages`]: the later packets of a message built wrong: METH and RETH fields that
//!   disagree with the first packet's, payload lengths that do not fit the PMTU.
//! * [`fifth_variants`]: variants of a fifth reading, which a judge that ordered outputs no
//!   rule orders failed.
//! * [`seventh_variants`]: variants of a seventh reading, which a judge that tied every QP
//!   to the device error queue failed.
//! * [`eighth_variants`]: variants of an eighth reading, which a judge that held every
//!   `Armed` after the `Progress` that moved `snd_una` to its value failed.
//! * [`ninth_variants`]: variants of a ninth reading, which a judge that took the times
//!   between a device's data packets on the wire for those its send engine saw failed.
//! * [`eleventh_variants`]: variants of an eleventh reading, which a judge that read a stamp
//!   behind an earlier-sent one as a clock run backwards, and followed a round-robin cursor
//!   in sending order, failed.
//! * [`twelfth_variants_ack`]: a variant of a twelfth reading, whose ACKs built late carry
//!   the MSN retired by then, which a judge that matched ACKs by exact MSN failed.
//! * [`weak_faults`]: a mark or probe answer reported for an EV read wrong, which a judge
//!   that compared those reports by QP and mark only passed.
//! * [`weak_variants`]: a variant whose late ACKs carry an MSN retired but not yet
//!   acknowledged, which a judge that read only the acknowledged MSNs failed.
//! * [`commanded_variants`]: variants whose commanded outputs come late, which a judge that
//!   timed a commanded output from the records before it, not from the command, failed.
//! * [`ack_variants`]: acknowledgements whose BTH PSN is `epsn - 1`, the other value
//!   OPC-PSN-002.b allows beside the last PSN of the acknowledged message.
//! * [`fifteenth`]: a packet placed from its PSN distance on 16 bits, named as a placement
//!   error, not a PSN comparison (CONF-CMP-138).
//! * [`sixteenth_snd`]: a `Retransmitted` report whose cause is the report before it's, which
//!   no input caused (CONF-CMP-139).
//! * [`naming_rx`]: receive entries and rings written wrong where the field that is wrong,
//!   not a pairing with another message's expectation, must be named.
//! * [`naming_six`]: reports whose contents are stale, each one state late, where the
//!   report's own rule, not the transition it seems to miss, must be named.
//! * [`naming_seven`]: an acknowledgement misread by one, named by what the misreading
//!   breaks, not by the retransmission it changes; METH fields that trade places.
//! * [`naming_eight`]: a SACK the sender drops whole for a field it misreads, named by the
//!   rule the drop breaks, not by the resend or the missing report that follows.
//! * [`naming_nine`]: a completion queue stopped with a free slot, named by the rule of a
//!   full queue, not by the rule of the entry that is missing.
//! * [`naming_tenth`]: a packet on an EV outside the profile, from a QP that carried its
//!   EVs right before, named by the rule that chose the EV, not by its encoding.
//! * [`strength_twelfth`]: faults caught only where nothing hid them: a stamp of the
//!   packet before across a timeout, SACK counters that miss what the SACK claims, an
//!   `Armed` posted twice for one packet.
//! * [`cack_answers`]: a probe answer whose `cack_psn` no QP state gives, its high bit
//!   lost, named by the rule of `cack_psn` although the answer's trigger is a probe.
//! * [`owed_acks`]: a SACK for a write that stops the SACK timer while a retirement
//!   before it owes the timer's transport ACK, named by the rule of the SACK.
//! * [`weak_rcv`]: SACK counters that miss the SACK's own trigger beyond the bitmap's
//!   reach, which the bitmap cannot claim.
//! * [`latency_answers`]: a SACK that one write makes due sent late by a count one too
//!   high, and a duplicate's SACK on the EV of the copy first accepted.
//! * [`clauses_eleventh`]: a sender's MSN counter kept for the whole device where each QP
//!   is a retirement domain, named by the rule of the domains.
//! * [`eleventh_probe_ev`]: a commanded probe on another EV of the profile than the one
//!   its command names, named by the rule of the probe's EV in every scenario.
//! * [`naming_eleventh`]: a QP on another QP's profile, data stamps written little-endian,
//!   an ACK read one short, each named by the outputs it spoils together.
//! * [`naming_twelfth`]: a sender entry with the `wr_id` of the one before, named as its
//!   own entry with one field wrong, not as entries out of order.
//! * [`names_sixteenth`]: retransmissions of two messages at one instant with the METH of
//!   the first, and a tail probe's answer that judges a packet sent after the probe.
//! * [`msn_offsets`]: a retirement table that places an MSN at 2^15 after the next one in
//!   neither the retired nor the beyond range, named by the rule of the offsets.
//! * [`fifth_host`]: the host interface as a fifth outside reading got it wrong: a token's
//!   length taken from another register, a disabled template's token misreported.
//! * [`sixth_host`]: the host interface where two things meet: a bus write that starts
//!   inside a register taken for a token, the QPN of two completions of one instant.
//! * [`seventh_host`]: the host interface as an RTL team builds it: a doorbell register's
//!   lanes crossed, a refused installation that disables, the immediate limit one short.
//! * [`eighth_host`]: the host interface where its pieces meet: a completion entry written
//!   in two halves, the owner byte's half first.
//! * [`ninth_host`]: the host interface's error paths: a flag lost with the entry a full
//!   queue could not take, a token flushed at a QP in error without its flag.
//! * [`edges`]: a timestamp clock read at the wrong time, and a device that floods the
//!   runner with outputs.
//! * [`stamps`]: a completion timestamp taken for the identity of an entry.
//! * [`start`](mod@start): a device that does not start from the manifest's start state.
//! * [`same_instant`]: a QP's reports of one instant out of the order of the steps that
//!   made them, and the reports of several inputs gathered at one instant.
//! * [`audit_eight`]: variants found by reading the judge, each at the very bound of a
//!   freedom a judge one step too strict failed.
//! * [`variants`](mod@variants): other choices the specification leaves open, which must pass
//!   (or, departing from a SHOULD they allow, be judged `non-strict`), each with the freedoms
//!   it uses.
//!
//! [`prove`] runs entries on the corpus, the way `openrdma run` does, and says what the
//! suite made of each (`tests/power.rs`).
//!
//! The streams that follow a device's QPs share `qps`: the QPs the inputs create, each
//! with its peer, and the frames received for them, decoded once.

use std::collections::BTreeSet;
use std::fmt;

use openrdma_codec::frame::FrameRepr;
use openrdma_conformance::req::Clause;
use openrdma_device::{
    Capability, CpuHalfFactory, Device, DeviceError, HostCommand, Input, Manifest, NicEvent,
    Output, Payload, TimedInput, TimedOutput, Timestamp,
};
use openrdma_sm::boundary::ReferenceDevice;
use openrdma_sm::{FitFault, RecvFault};

pub mod ack_variants;
pub mod acks;
pub mod answers;
pub mod audit_eight;
pub mod behaviour;
pub mod cack_answers;
pub mod clauses_eleventh;
pub mod commanded_variants;
pub mod commands;
pub mod cpu;
pub mod discards;
pub mod edges;
pub mod eighth_host;
pub mod eighth_rx;
pub mod eighth_tx;
pub mod eighth_variants;
pub mod eleventh_probe_ev;
pub mod eleventh_variants;
pub mod engines;
pub mod estimates;
pub mod exercise;
pub mod exercise_seven;
pub mod fifteenth;
pub mod fifth_host;
pub mod fifth_rx;
pub mod fifth_tx;
pub mod fifth_variants;
pub mod frames;
pub mod gaps;
pub mod generated;
pub mod host;
pub mod inference;
pub mod knobs;
pub mod late_entries;
pub mod latency_answers;
pub mod layouts;
pub mod messages;
pub mod msn_offsets;
pub mod names_sixteenth;
pub mod naming_eight;
pub mod naming_eleventh;
pub mod naming_nine;
pub mod naming_rx;
pub mod naming_seven;
pub mod naming_six;
pub mod naming_tenth;
pub mod naming_twelfth;
pub mod naming_tx;
pub mod ninth_host;
pub mod ninth_variants;
pub mod owed_acks;
pub mod own_rules;
mod prove;
mod qps;
pub mod rejects;
pub mod reports_truth;
pub mod retire;
pub mod same_instant;
pub mod sched_clauses;
pub mod sched_unusable;
pub mod sending;
pub mod seventh_host;
pub mod seventh_rx;
pub mod seventh_variants;
pub mod sixteenth_snd;
pub mod sixth_host;
pub mod sixth_rx;
pub mod sixth_tx;
pub mod stamps;
pub mod start;
pub mod states;
pub mod step_counts;
pub mod strength_twelfth;
pub mod tail_sequence;
pub mod templates;
pub mod transport;
pub mod twelfth_variants_ack;
pub mod variants;
pub mod weak_faults;
pub mod weak_rcv;
pub mod weak_variants;
pub mod widths;
pub mod window_walk;
pub mod wire;
pub mod written;

pub use prove::{
    Proof, catches, cites, covering, must_clauses, names, prove, proved, proved_through,
};

/// The MUST clauses of a device or its CPU half that no fault can prove, with the reason:
/// each is broken only through a clause of its own list, which the first divergence names
/// instead. Shown in the matrix; `tests/power.rs` caps the list at ten.
pub const UNPROVABLE: &[(Clause, &str)] = &[];

/// Whether an entry is a bug or a legitimate choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// A bug: the suite must fail it, naming a clause of `breaks`.
    Fault,
    /// A choice the specification leaves open: the suite must pass it.
    Variant,
}

impl Class {
    /// The prefix of its CLI name: `faulty` or `variant`.
    pub fn prefix(self) -> &'static str {
        match self {
            Class::Fault => "faulty",
            Class::Variant => "variant",
        }
    }
}

/// What the suite must make of a fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// The verdict is `fail`, the first MUST divergence from a clause of `breaks`.
    Fails,
    /// The verdict is `non-strict`: only SHOULD clauses of `breaks` are broken.
    NonStrict,
    /// The verdict is `fail`, the first MUST divergence having this field among its field
    /// differences: the record's own check names it, whichever clause that is.
    FailsOnField(&'static str),
}

/// The capabilities an entry claims, from its inner device's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caps {
    /// The inner device's.
    Same,
    /// The inner device's without these.
    Without(&'static [Capability]),
    /// These only.
    Only(&'static [Capability]),
}

/// One batch as a [`Stream`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct Batch<'a> {
    /// The time the runner asked the device to reach.
    pub until: Timestamp,
    /// The times of the batch's inputs: an output at one of them may answer it; one at
    /// another time came from a timer.
    pub inputs_at: &'a BTreeSet<u64>,
}

/// A bug that needs memory: it sees each batch's inputs before the inner device does and
/// its outputs after, and may drop, hold, reorder, delay, split, merge or add. A new one
/// is made at each scenario's start, so that nothing crosses scenarios (CONF-DEV-004).
pub trait Stream: fmt::Debug {
    /// The batch's inputs as the faulty device takes them.
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        inputs
    }

    /// The batch's inputs as the faulty device takes them when the batch runs to `until`.
    /// What it holds past `until` it gives in a later batch, in time order with that
    /// batch's inputs. By default, [`Stream::inputs`].
    fn inputs_until(&mut self, inputs: Vec<TimedInput>, until: Timestamp) -> Vec<TimedInput> {
        let _ = until;
        self.inputs(inputs)
    }

    /// The batch's outputs as the faulty device gives them. What it holds past
    /// `batch.until` it gives in a later batch.
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let _ = batch;
        outputs
    }
}

/// Makes a fault's stream for a scenario, from the manifest the device runs with.
pub type MakeStream = fn(&Manifest) -> Box<dyn Stream>;

/// Rewrites one frame, or leaves it (`None`).
pub type Rewrite = fn(&[u8]) -> Option<Vec<u8>>;

/// The small functions that make a fault. Stateless edits run first, on each input or
/// output alone; the stream last, on the batch.
#[derive(Clone, Copy)]
pub struct Edits {
    /// The configuration the device runs with instead of the manifest's.
    pub config: Option<fn(&mut Manifest)>,
    /// A host command as the device takes it.
    pub host_in: Option<fn(&mut HostCommand)>,
    /// An arriving frame as the device reads it.
    pub frame_in: Option<Rewrite>,
    /// An input the device loses (`false`), after the edits above.
    pub keep_in: Option<fn(&Input) -> bool>,
    /// A frame the device sends, as it sends it.
    pub frame_out: Option<Rewrite>,
    /// An event the device produces, as it produces it (`false`: it is lost).
    pub event_out: Option<fn(&mut NicEvent) -> bool>,
    /// An output the device loses (`false`).
    pub keep_out: Option<fn(&Output) -> bool>,
    /// A stateful bug, made at each start.
    pub stream: Option<MakeStream>,
    /// The device's own CPU half (`cpu = "device"`), with one rule wrong, in place of the
    /// reference's.
    pub cpu: Option<CpuHalfFactory>,
    /// The device takes each input of a batch on its own, and the stream sees each as a
    /// batch of its own: for bugs in what one input causes (a change torn by the next
    /// input at the same instant, work left for the next input).
    pub per_input: bool,
    /// One field of the frames of some kinds sent with its lowest bit flipped
    /// ([`generated`]).
    pub perturb: Option<generated::Perturb>,
    /// A knob of the device's configuration, `nic.NAME` or `recovery.NAME`, that the
    /// device ignores: it runs with the knob's default ([`knobs`]).
    pub ignore: Option<&'static str>,
    /// The estimate of the window-fit policy that the reference inside keeps wrong, for a
    /// bug in a choice no boundary edit can make consistently ([`estimates`]).
    pub fit: Option<FitFault>,
    /// The receive window that the reference inside keeps wrong, for a bug in its own
    /// state that no boundary edit can make ([`window_walk`]).
    pub recv: Option<RecvFault>,
}

impl Edits {
    /// No edit: the inner device as it is.
    pub const NONE: Edits = Edits {
        config: None,
        host_in: None,
        frame_in: None,
        keep_in: None,
        frame_out: None,
        event_out: None,
        keep_out: None,
        stream: None,
        cpu: None,
        per_input: false,
        perturb: None,
        ignore: None,
        fit: None,
        recv: None,
    };
}

impl fmt::Debug for Edits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names = Vec::new();
        for (on, name) in [
            (self.config.is_some(), "config"),
            (self.host_in.is_some(), "host_in"),
            (self.frame_in.is_some(), "frame_in"),
            (self.keep_in.is_some(), "keep_in"),
            (self.frame_out.is_some(), "frame_out"),
            (self.event_out.is_some(), "event_out"),
            (self.keep_out.is_some(), "keep_out"),
            (self.stream.is_some(), "stream"),
            (self.cpu.is_some(), "cpu"),
            (self.per_input, "per_input"),
            (self.perturb.is_some(), "perturb"),
            (self.ignore.is_some(), "ignore"),
            (self.fit.is_some(), "fit"),
            (self.recv.is_some(), "recv"),
        ] {
            if on {
                names.push(name);
            }
        }
        f.debug_tuple("Edits").field(&names).finish()
    }
}

/// One entry of the registry.
#[derive(Debug, Clone, Copy)]
pub struct Fault {
    /// Its name: `faulty:NAME` or `variant:NAME` on the command line.
    pub name: &'static str,
    /// Fault or variant.
    pub class: Class,
    /// The bug, or the choice, as a hardware team would write it: one sentence.
    pub what: &'static str,
    /// The clauses a fault breaks, the one a catch names first among them; `[]` for a
    /// variant.
    pub breaks: &'static [Clause],
    /// What the suite must make of it.
    pub expect: Expect,
    /// The scenarios that must catch it (a fault) or that it claims and must pass (a
    /// variant, `[]`: every scenario whose capabilities it claims).
    pub catch: &'static [&'static str],
    /// The capabilities it claims.
    pub caps: Caps,
    /// How it is made.
    pub edits: Edits,
}

impl Fault {
    /// Its name on the command line: `faulty:go-back-n`, `variant:late`.
    pub fn cli_name(&self) -> String {
        format!("{}:{}", self.class.prefix(), self.name)
    }
}

/// A fault entry of a family: it must fail its `catch` scenarios, naming one of `breaks`,
/// and claims the inner device's capabilities.
const fn fault(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    edits: Edits,
) -> Fault {
    Fault {
        name,
        class: Class::Fault,
        what,
        breaks,
        expect: Expect::Fails,
        catch,
        caps: Caps::Same,
        edits,
    }
}

/// A fault that needs memory.
const fn stream(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    make: MakeStream,
) -> Fault {
    fault(name, what, breaks, catch, Edits { stream: Some(make), ..Edits::NONE })
}

/// A fault that rewrites the frames the device sends.
const fn sends(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    rw: Rewrite,
) -> Fault {
    fault(name, what, breaks, catch, Edits { frame_out: Some(rw), ..Edits::NONE })
}

/// The families, in the order [`all`] gives their entries. The generated families are
/// made on first use (from the judge's tables and the corpus), so each is a function.
const FAMILIES: &[fn() -> &'static [Fault]] = &[
    || behaviour::FAULTS,
    || widths::FAULTS,
    || engines::FAULTS,
    || frames::FAULTS,
    || host::FAULTS,
    || templates::FAULTS,
    || transport::FAULTS,
    || inference::FAULTS,
    || estimates::FAULTS,
    || retire::FAULTS,
    || written::FAULTS,
    || cpu::FAULTS,
    || commands::FAULTS,
    || answers::FAULTS,
    answers::nack_reasons,
    || sending::FAULTS,
    || fifth_tx::FAULTS,
    || sixth_tx::FAULTS,
    || eighth_tx::FAULTS,
    || acks::FAULTS,
    || states::FAULTS,
    || naming_tx::FAULTS,
    || discards::FAULTS,
    || fifth_rx::FAULTS,
    || sixth_rx::FAULTS,
    || seventh_rx::FAULTS,
    || eighth_rx::FAULTS,
    || wire::FAULTS,
    || messages::FAULTS,
    || naming_rx::FAULTS,
    || fifteenth::FAULTS,
    || sixteenth_snd::FAULTS,
    || naming_six::FAULTS,
    || naming_seven::FAULTS,
    || naming_eight::FAULTS,
    || naming_nine::FAULTS,
    || naming_tenth::FAULTS,
    || names_sixteenth::FAULTS,
    || strength_twelfth::FAULTS,
    || weak_faults::FAULTS,
    || weak_rcv::FAULTS,
    || latency_answers::FAULTS,
    || cack_answers::FAULTS,
    || clauses_eleventh::FAULTS,
    || owed_acks::FAULTS,
    || eleventh_probe_ev::FAULTS,
    || naming_eleventh::FAULTS,
    || naming_twelfth::FAULTS,
    || msn_offsets::FAULTS,
    || own_rules::FAULTS,
    || fifth_host::FAULTS,
    || sixth_host::FAULTS,
    || seventh_host::FAULTS,
    || eighth_host::FAULTS,
    || ninth_host::FAULTS,
    || edges::FAULTS,
    || stamps::FAULTS,
    || start::FAULTS,
    || gaps::FAULTS,
    || reports_truth::FAULTS,
    || sched_clauses::FAULTS,
    || sched_unusable::FAULTS,
    || window_walk::FAULTS,
    || late_entries::FAULTS,
    || step_counts::FAULTS,
    || same_instant::FAULTS,
    || tail_sequence::FAULTS,
    || exercise::FAULTS,
    || exercise_seven::FAULTS,
    generated::faults,
    layouts::faults,
    knobs::faults,
    rejects::faults,
    variants::faults,
];

/// Every entry, family by family. A family is made only when the iteration reaches it, so
/// that finding a hand-written entry does not build the corpus.
pub fn all() -> impl Iterator<Item = &'static Fault> {
    FAMILIES.iter().flat_map(|family| family().iter())
}

/// The faults of the behaviour and width families: whole-device bugs, which the suite's own
/// tests run on every scenario (the wire family is run only where it is caught).
pub fn devices() -> impl Iterator<Item = &'static Fault> {
    behaviour::FAULTS.iter().chain(widths::FAULTS)
}

/// Every variant.
pub fn variants() -> impl Iterator<Item = &'static Fault> {
    variants::faults().iter()
}

/// The entry of this name, either class (`go-back-n`, `spray-random`).
pub fn find(name: &str) -> Option<&'static Fault> {
    all().find(|f| f.name == name)
}

/// The entry a CLI name gives: `faulty:NAME` for a fault, `variant:NAME` for a variant.
pub fn by_cli_name(name: &str) -> Option<&'static Fault> {
    let (prefix, rest) = name.split_once(':')?;
    find(rest).filter(|f| f.class.prefix() == prefix)
}

/// A device with one fault: the edits of a registry entry around an inner device.
pub struct Mutant {
    fault: &'static Fault,
    inner: Box<dyn Device>,
    stream: Option<Box<dyn Stream>>,
}

impl fmt::Debug for Mutant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mutant").field("fault", &self.fault.name).finish_non_exhaustive()
    }
}

impl Mutant {
    /// The reference device with `fault`: with the fault's own CPU half, if it has one.
    pub fn new(fault: &'static Fault) -> Self {
        let inner = match (fault.edits.cpu, fault.edits.fit, fault.edits.recv) {
            (Some(cpu), _, _) => ReferenceDevice::with_cpu_half(cpu),
            (None, Some(fit), _) => ReferenceDevice::with_fit_fault(fit),
            (None, None, Some(recv)) => ReferenceDevice::with_recv_fault(recv),
            (None, None, None) => ReferenceDevice::new(),
        };
        Self::around(fault, Box::new(inner))
    }

    /// `inner` with `fault`.
    pub fn around(fault: &'static Fault, inner: Box<dyn Device>) -> Self {
        Mutant { fault, inner, stream: None }
    }

    /// The entry it applies.
    pub fn fault(&self) -> &'static Fault {
        self.fault
    }
}

impl Device for Mutant {
    fn name(&self) -> String {
        self.fault.cli_name()
    }

    fn capabilities(&self) -> BTreeSet<Capability> {
        match self.fault.caps {
            Caps::Same => self.inner.capabilities(),
            Caps::Without(less) => {
                let mut caps = self.inner.capabilities();
                for c in less {
                    caps.remove(c);
                }
                caps
            }
            Caps::Only(only) => only.iter().copied().collect(),
        }
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        let mut m = manifest.clone();
        if let Some(config) = self.fault.edits.config {
            config(&mut m);
        }
        if let Some(knob) = self.fault.edits.ignore {
            knobs::ignore(&mut m, knob);
        }
        self.stream = self.fault.edits.stream.map(|make| make(&m));
        self.inner.start(&m)
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        if !self.fault.edits.per_input {
            return self.step(inputs, until);
        }
        let mut out = Vec::new();
        for i in inputs {
            let at = i.at;
            out.extend(self.step(vec![i], at)?);
        }
        out.extend(self.step(Vec::new(), until)?);
        Ok(out)
    }

    fn finish(&mut self) -> Result<(), DeviceError> {
        self.inner.finish()
    }

    fn take_late_error(&mut self) -> Option<(String, DeviceError)> {
        self.inner.take_late_error()
    }
}

impl Mutant {
    /// One batch through the edits and the inner device.
    fn step(
        &mut self,
        mut inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        let e = &self.fault.edits;
        let inputs_at: BTreeSet<u64> = inputs.iter().map(|i| i.at.0).collect();
        for i in &mut inputs {
            match &mut i.input {
                Input::Host { command } => {
                    if let Some(edit) = e.host_in {
                        edit(command);
                    }
                }
                Input::Frame { bytes, .. } => {
                    if let Some(b) = e.frame_in.and_then(|rw| rw(bytes)) {
                        *bytes = b;
                    }
                }
                _ => {}
            }
        }
        if let Some(keep) = e.keep_in {
            inputs.retain(|i| keep(&i.input));
        }
        if let Some(s) = self.stream.as_mut() {
            inputs = s.inputs_until(inputs, until);
        }
        let mut out = self.inner.advance(inputs, until)?;
        if e.frame_out.is_some()
            || e.event_out.is_some()
            || e.keep_out.is_some()
            || e.perturb.is_some()
        {
            out.retain_mut(|o| {
                match &mut o.output {
                    Output::Frame { bytes, .. } => {
                        if let Some(b) = e.frame_out.and_then(|rw| rw(bytes)) {
                            *bytes = b;
                        }
                        if let Some(b) = e.perturb.and_then(|p| generated::perturb(bytes, p)) {
                            *bytes = b;
                        }
                    }
                    Output::Event { event } => {
                        if let Some(edit) = e.event_out {
                            if !edit(event) {
                                return false;
                            }
                        }
                    }
                }
                e.keep_out.is_none_or(|keep| keep(&o.output))
            });
        }
        if let Some(s) = self.stream.as_mut() {
            out = s.outputs(out, Batch { until, inputs_at: &inputs_at });
        }
        Ok(out)
    }
}

/// A changed frame made consistent again (lengths, checksums, ICRC) and emitted: the
/// faulty hardware's encoder is right; only the one bug is wrong.
pub(crate) fn refit(f: &mut FrameRepr) -> Result<Vec<u8>, openrdma_codec::EmitError> {
    f.finalize()?;
    f.to_bytes()
}

/// The bytes a DMA write carries.
pub(crate) fn payload_bytes(p: &Payload) -> Vec<u8> {
    match p {
        Payload::Bytes(b) => b.to_vec(),
        Payload::Host { addr, len } => openrdma_device::memory(*addr, *len),
    }
}
