//! The receive checks of a new write, in the order of `RCV-CHECK-001`, as the judge works
//! them out from the inputs alone: which check a write the scenario expects discarded
//! fails first, so that a device that places or acknowledges it anyway is named by the
//! discard rule it broke.
//!
//! The judge keeps its own account of the responder: the QPs and regions the host
//! created, each QP's `epsn` and received PSNs, and each retirement domain's next MSN and
//! pending messages. It learns what was accepted from the scenario (the copies
//! [`super::arrivals`] marks accepted), never from the device, and never decides a verdict
//! from this account: it only names the rule of a discard that the scenario already
//! expects.

use std::collections::{BTreeSet, HashMap};

use openrdma_codec::frame::DecodedFrame;
use openrdma_codec::{Msn, Opcode, Psn, Rkey, Rqmsn};
use openrdma_device::{HostCommand, Manifest, Region, RetirementMode};

use crate::req::*;

/// The entries of a shared retirement table (`RET-CAP-001`).
const SHARED_TABLE: u16 = 4096;

/// Whether the discard rule `rule` ([`Receiver::refusal`]) discards without any response,
/// so that a SACK or NACK answering the write breaks it.
pub(super) fn silent(rule: Clause) -> bool {
    matches!(
        rule,
        RCV_QP_001
            | RCV_QP_002
            | RCV_SEG_001
            | RCV_SEG_002
            | FLAG_LAST_002
            | RCV_MSG_002
            | RCV_MSG_001
    )
}

/// A write as the receive checks read it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Write {
    qp: u32,
    psn: Psn,
    opcode: Opcode,
    len: u64,
    msn: Msn,
    rqmsn: Rqmsn,
    va: u64,
    rkey: Rkey,
    dma_len: u32,
    has_immdt: bool,
}

impl Write {
    /// The write frame `d` carries, when it is a whole MRC write.
    pub(super) fn of(d: &DecodedFrame<'_>) -> Option<Write> {
        let (bth, meth, reth) = (d.bth?, d.ext.meth?, d.ext.reth?);
        bth.opcode.is_mrc_write().then_some(Write {
            qp: bth.dest_qp.value(),
            psn: bth.psn,
            opcode: bth.opcode,
            len: d.payload.len() as u64,
            msn: meth.msn,
            rqmsn: meth.rqmsn,
            va: reth.va,
            rkey: reth.rkey,
            dma_len: reth.dma_len,
            has_immdt: d.ext.immdt.is_some(),
        })
    }

    /// The device QP it is for.
    pub(super) fn qp(&self) -> u32 {
        self.qp
    }

    /// Its PSN.
    pub(super) fn psn(&self) -> Psn {
        self.psn
    }

    /// The bytes it places, `[va, va + payload length)`.
    pub(super) fn range(&self) -> (u64, u64) {
        (self.va, self.va.saturating_add(self.len))
    }
}

/// One QP's receive state.
#[derive(Debug)]
struct Qp {
    epsn: Psn,
    /// The PSNs received after `epsn`.
    received: BTreeSet<u32>,
    domain: u32,
    delivered_rqmsn: Rqmsn,
    failed: bool,
}

/// One pending message of a retirement table.
#[derive(Debug)]
struct Entry {
    qp: u32,
    total: u32,
    placed: u64,
    last: bool,
    rqmsn: Rqmsn,
    imm: bool,
}

/// One retirement domain.
#[derive(Debug, Default)]
struct Domain {
    next: Msn,
    pending: HashMap<u16, Entry>,
    /// MSNs whose messages a failed QP took with it (`RET-ERR-001`): passed over.
    dead: BTreeSet<u16>,
}

/// The judge's account of a responder.
#[derive(Debug)]
pub(super) struct Receiver {
    pmtu: u64,
    window: u32,
    table: u16,
    shared: bool,
    wwi_limit: u16,
    qps: HashMap<u32, Qp>,
    regions: HashMap<u32, Region>,
    domains: HashMap<u32, Domain>,
}

impl Receiver {
    /// A responder configured as manifest `m` says, with no QP yet.
    pub(super) fn new(m: &Manifest) -> Receiver {
        let window = u32::from(m.nic.mpr) * 128;
        let shared = m.nic.retirement == RetirementMode::Shared;
        Receiver {
            pmtu: u64::from(m.nic.pmtu),
            window,
            table: if shared { SHARED_TABLE } else { u16::try_from(window).unwrap_or(u16::MAX) },
            shared,
            wwi_limit: m.nic.wwi_limit,
            qps: HashMap::new(),
            regions: HashMap::new(),
            domains: HashMap::new(),
        }
    }

    /// A host command: a QP or a region created.
    pub(super) fn host(&mut self, c: &HostCommand) {
        match c {
            HostCommand::CreateQp(q) => {
                let qpn = q.qpn.value();
                let domain = if self.shared { q.domain.value() } else { qpn };
                self.domains.entry(domain).or_default();
                self.qps.insert(
                    qpn,
                    Qp {
                        epsn: q.peer_initial_psn,
                        received: BTreeSet::new(),
                        domain,
                        delivered_rqmsn: Rqmsn::ZERO,
                        failed: false,
                    },
                );
            }
            HostCommand::RegisterRegion(r) => {
                self.regions.insert(r.rkey.value(), *r);
            }
            _ => {}
        }
    }

    /// QP `qp` went to the error state: its pending messages leave the table and their
    /// MSNs are passed over (`RET-ERR-001`).
    pub(super) fn fail(&mut self, qp: u32) {
        let Some(q) = self.qps.get_mut(&qp) else { return };
        if q.failed {
            return;
        }
        q.failed = true;
        let d = q.domain;
        if let Some(dom) = self.domains.get_mut(&d) {
            let gone: Vec<u16> =
                dom.pending.iter().filter(|(_, e)| e.qp == qp).map(|(m, _)| *m).collect();
            for m in gone {
                dom.pending.remove(&m);
                dom.dead.insert(m);
            }
        }
        self.retire(d);
    }

    /// The first receive check, in `RCV-CHECK-001` order, that write `w` fails: the ID of
    /// the discard rule (the clause, for a line with clauses). `None` when it passes them
    /// all, or fails only checks this account cannot decide.
    pub(super) fn refusal(&self, w: &Write) -> Option<Clause> {
        let Some(q) = self.qps.get(&w.qp) else { return Some(RCV_QP_001) };
        if q.failed {
            return Some(RCV_QP_002);
        }
        let ahead = w.psn.distance(q.epsn);
        if ahead < 0 || q.received.contains(&w.psn.value()) {
            return Some(RCV_DUP_001_A);
        }
        if ahead as u32 >= self.window {
            return Some(RCV_WIN_002_B);
        }
        if w.len > self.pmtu {
            return Some(RCV_SEG_001);
        }
        if !w.opcode.is_last() && w.len != self.pmtu {
            return Some(RCV_SEG_002);
        }
        if self.region_refuses(w) {
            return Some(RCV_PLACE_002_A);
        }
        let dom = self.domains.get(&q.domain)?;
        let offset = w.msn.forward_from(dom.next);
        if offset >= 0x8000 {
            return Some(FLAG_LAST_002);
        }
        if offset >= self.table {
            return Some(RCV_MSG_002);
        }
        let mismatch = match dom.pending.get(&w.msn.value()) {
            Some(e) => {
                e.qp != w.qp
                    || e.total != w.dma_len
                    || e.placed.saturating_add(w.len) > u64::from(e.total)
            }
            None => w.len > u64::from(w.dma_len),
        };
        if mismatch || (w.opcode.has_immediate() && !w.has_immdt) {
            return Some(RCV_MSG_001);
        }
        let rq_ahead = w.rqmsn.forward_from(q.delivered_rqmsn);
        if w.opcode.is_last()
            && w.opcode.has_immediate()
            && rq_ahead > self.wwi_limit
            && rq_ahead < 0x8000
        {
            return Some(WWI_LIMIT_002);
        }
        None
    }

    /// Where write `w`'s MSN lies in its domain: the domain and the MSN's offset from the
    /// domain's next MSN, modulo 2^16 (`RET-CAP-002`).
    pub(super) fn position(&self, w: &Write) -> Option<(u32, u16)> {
        let q = self.qps.get(&w.qp)?;
        let dom = self.domains.get(&q.domain)?;
        Some((q.domain, w.msn.forward_from(dom.next)))
    }

    /// Whether write `w` lies at an offset from its domain's next MSN of W or more in
    /// shared retirement: where only a table of the shared capacity holds it
    /// (`RET-CAP-001`).
    pub(super) fn shared_far(&self, w: &Write) -> bool {
        let Some(dom) = self.qps.get(&w.qp).and_then(|q| self.domains.get(&q.domain)) else {
            return false;
        };
        let offset = w.msn.forward_from(dom.next);
        self.shared && u32::from(offset) >= self.window && offset < self.table
    }

    /// Whether the region check of RCV-PLACE-002.a refuses write `w`, whatever the checks
    /// before it say.
    pub(super) fn region_refuses(&self, w: &Write) -> bool {
        let region = self.regions.get(&w.rkey.value());
        !region.is_some_and(|r| r.remote_write && r.contains(w.va, w.len))
    }

    /// Write `w` was accepted: its PSN is received, its payload counted to its message,
    /// and every message that became complete at the head of its domain retires.
    pub(super) fn accept(&mut self, w: &Write) {
        let Some(q) = self.qps.get_mut(&w.qp) else { return };
        let ahead = w.psn.distance(q.epsn);
        if ahead >= 0 && (ahead as u32) < self.window {
            q.received.insert(w.psn.value());
            while q.received.remove(&q.epsn.value()) {
                q.epsn = q.epsn.next();
            }
        }
        let d = q.domain;
        let Some(dom) = self.domains.get_mut(&d) else { return };
        if w.msn.forward_from(dom.next) >= self.table {
            return;
        }
        let e = dom.pending.entry(w.msn.value()).or_insert(Entry {
            qp: w.qp,
            total: w.dma_len,
            placed: 0,
            last: false,
            rqmsn: w.rqmsn,
            imm: false,
        });
        e.placed = e.placed.saturating_add(w.len);
        e.last |= w.opcode.is_last();
        e.imm |= w.has_immdt;
        self.retire(d);
    }

    /// Retires the complete messages at the head of domain `d`, in MSN order
    /// (`RET-ORDER-001`), passing over the MSNs of failed QPs.
    fn retire(&mut self, d: u32) {
        let Some(dom) = self.domains.get_mut(&d) else { return };
        loop {
            let next = dom.next.value();
            let complete =
                dom.pending.get(&next).is_some_and(|e| e.last && e.placed == u64::from(e.total));
            if complete {
                let Some(e) = dom.pending.remove(&next) else { break };
                if e.imm {
                    if let Some(q) = self.qps.get_mut(&e.qp) {
                        q.delivered_rqmsn = e.rqmsn;
                    }
                }
            } else if !dom.dead.remove(&next) {
                break;
            }
            dom.next = dom.next.next();
        }
    }
}
