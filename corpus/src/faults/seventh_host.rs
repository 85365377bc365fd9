//! Faults of the host interface from a seventh reading of its chapter, as the team that
//! builds it in RTL gets it wrong: the two 32-bit lanes of the doorbell register crossed, a
//! refused installation that clears the enable bit of the template it was to replace, and
//! the Write-with-Immediate limit compared with `>=`. Each proves a class of the judge's
//! naming.

use std::collections::HashMap;

use openrdma_codec::host::{CompletionStatus, FlagRepr, Template};
use openrdma_codec::{Lkey, Msn, TemplateId};
use openrdma_conformance::req;
use openrdma_device::{
    Capability, HostCommand, Input, LocalRegion, Manifest, NicEvent, Output, Side, TimedInput,
    TimedOutput,
};

use super::templates::rewrite_entry;
use super::{Batch, Edits, Fault, Stream, fault};

/// Every fault of the seventh reading of the host interface.
pub static FAULTS: &[Fault] = &[
    fault(
        "doorbell-lanes-crossed",
        "the doorbell register's two 32-bit lanes are wired crossed: bytes 0 to 3 of an aligned 8-byte write land in the token's bits 63:32",
        &[req::DB_FORMAT_002],
        &["db-bus-registers"],
        Edits { host_in: Some(lanes_crossed), ..Edits::NONE },
    ),
    fault(
        "refused-install-disables",
        "an installation clears the enable bit of the template under its ID before the validity checks, and a refused one leaves it clear",
        &[req::DB_TEMPLATE_001],
        &["db-local-keys"],
        Edits { stream: Some(|_| Box::<RefusedDisables>::default()), ..Edits::NONE },
    ),
    fault(
        "flushed-token-takes-msn",
        "a token for a QP in the error state goes through the MSN counter as a new message does: its FLUSHED entry and flag carry the QP's next MSN",
        &[req::RET_FLUSH_001_B],
        &["snd-nack-fatal"],
        Edits { stream: Some(|_| Box::<FlushedTakesMsn>::default()), ..Edits::NONE },
    ),
    fault(
        "sender-wwi-limit-minus-one",
        "the sender's Write-with-Immediate limit is compared with >=: it holds a message back with wwi_limit - 1 outstanding",
        &[req::WWI_LIMIT_001],
        &["snd-wwi-limit"],
        Edits { config: Some(wwi_limit_minus_one), ..Edits::NONE },
    ),
];

/// An aligned 8-byte doorbell write as a register whose 32-bit lanes are crossed takes it.
fn lanes_crossed(c: &mut HostCommand) {
    if let HostCommand::DoorbellWrite(w) = c {
        if w.offset == 0 && w.bytes.len() == 8 {
            w.bytes.rotate_left(4);
        }
    }
}

/// A sender that stops one Write-with-Immediate short of its limit.
fn wwi_limit_minus_one(m: &mut Manifest) {
    if m.requires.contains(&Capability::Requester) && m.nic.wwi_limit > 1 {
        m.nic.wwi_limit -= 1;
    }
}

/// Turns an installation the NIC refuses into a disable of the template it was to
/// replace, keeping that template's expected seq, as a table whose enable bit is cleared
/// before the checks run.
#[derive(Debug, Default)]
struct RefusedDisables {
    keys: HashMap<Lkey, LocalRegion>,
    installed: HashMap<TemplateId, Template>,
}

impl RefusedDisables {
    /// Whether the NIC installs `t`: it is valid and, when enabled, a readable
    /// registration covers its local region (`TPL-KEY-001`).
    fn accepts(&self, t: &Template) -> bool {
        let covered = self
            .keys
            .get(&t.local_lkey)
            .is_some_and(|r| r.local_read && r.contains(t.local_base, t.local_region_len));
        t.validate().is_ok() && (!t.enabled || covered)
    }
}

impl Stream for RefusedDisables {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            let Input::Host { command } = &mut i.input else { continue };
            match command {
                HostCommand::RegisterLocal(r) => {
                    self.keys.insert(r.lkey, *r);
                }
                HostCommand::DeregisterLocal { lkey } => {
                    self.keys.remove(lkey);
                    for t in self.installed.values_mut().filter(|t| t.local_lkey == *lkey) {
                        t.enabled = false;
                    }
                }
                HostCommand::SetTemplate(t) if self.accepts(t) => {
                    self.installed.insert(t.template_id, *t);
                }
                HostCommand::SetTemplate(t) => {
                    if let Some(old) = self.installed.get_mut(&t.template_id) {
                        if old.enabled {
                            old.enabled = false;
                            *t = *old;
                        }
                    }
                }
                _ => {}
            }
        }
        inputs
    }
}

/// Gives the FLUSHED entry and flag of a work request that reaches a failed QP the QP's
/// next MSN, as a flush path that takes its MSN from the counter of new messages. Such a
/// request is told by its MSN 0 after the QP's first failure, at a later instant.
#[derive(Debug, Default)]
struct FlushedTakesMsn {
    /// Per QP: the highest MSN its requester entries and flags carried.
    last: HashMap<u32, u16>,
    /// Per QP: the time of its first failed completion.
    failed: HashMap<u32, u64>,
}

impl FlushedTakesMsn {
    /// The MSN a requester completion of QP `qpn` with `status` and `msn`, made at `at`,
    /// carries instead, if any.
    fn renumber(&mut self, qpn: u32, status: CompletionStatus, msn: u16, at: u64) -> Option<u16> {
        let failure = !status.is_success() && !status.is_doorbell_reject();
        let late = self.failed.get(&qpn).is_some_and(|&t| t < at);
        if status == CompletionStatus::FLUSHED && msn == 0 && late {
            let next = self.last.get(&qpn).map_or(0, |m| m.wrapping_add(1));
            self.last.insert(qpn, next);
            return Some(next);
        }
        let last = self.last.entry(qpn).or_default();
        *last = (*last).max(msn);
        if failure {
            self.failed.entry(qpn).or_insert(at);
        }
        None
    }
}

impl Stream for FlushedTakesMsn {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        // The MSN given to the entry of an instant, for the flag of the same instant.
        let mut given: HashMap<(u32, u64), u16> = HashMap::new();
        for o in &mut outputs {
            let at = o.at.0;
            let Output::Event { event } = &mut o.output else { continue };
            match event {
                NicEvent::Completion(c) if c.side == Side::Requester && !c.entry.is_receive => {
                    let (qpn, e) = (c.entry.qpn.value(), c.entry);
                    if let Some(m) = self.renumber(qpn, e.status, e.msn.value(), at) {
                        given.insert((qpn, at), m);
                        rewrite_entry(event, |e| e.msn = Msn::new(m));
                    }
                }
                NicEvent::FlagWrite(f) if f.side == Side::Requester => {
                    let status = FlagRepr::from_u64(f.value).status;
                    let m = given
                        .get(&(f.qpn.value(), at))
                        .copied()
                        .or_else(|| self.renumber(f.qpn.value(), status, f.msn.value(), at));
                    if let Some(m) = m {
                        f.msn = Msn::new(m);
                    }
                }
                _ => {}
            }
        }
        outputs
    }
}
