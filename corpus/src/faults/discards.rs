//! Faults of the receive checks: a write that one check discards is placed anyway,
//! because the DMA engine starts on the payload before that check gives its verdict. Each
//! fault is the reference NIC whose discards are all right but for the one check whose
//! verdict comes too late: the write is still discarded (nothing marked received, the
//! check's own response sent), and its payload has landed.
//!
//! The faulty engine knows what the hardware would: the QPs the host created, the QPs its
//! own NIC failed, the MSN of the last message its domain retired (from the
//! transport ACKs it sends), and whether its NIC answered or placed each write.

use std::collections::{HashMap, HashSet};

use openrdma_codec::frame::decode;
use openrdma_codec::{AethKind, AethRepr, Msn, NackReason, Opcode};
use openrdma_conformance::req::{self, Clause};
use openrdma_device::{
    DmaWrite, Input, Manifest, NicEvent, NicReport, Output, Payload, RetirementMode, TimedInput,
    TimedOutput, Timestamp,
};

use super::qps::Qps;
use super::{Batch, Edits, Fault, Stream, fault};

/// Every fault of the receive checks.
pub static FAULTS: &[Fault] = &[
    places(
        "places-unknown-qp",
        "a write to a QP the NIC does not have is placed by its RETH alone before the QP \
         lookup discards it",
        &[req::RCV_QP_001],
        &["rcv-check-order"],
        Check::UnknownQp,
    ),
    places(
        "places-in-error",
        "a QP in the error state still places the writes it receives, though it answers none",
        &[req::RCV_QP_002],
        &["rcv-wwi-limit", "rcv-cq-receive"],
        Check::QpInError,
    ),
    places(
        "places-out-of-window",
        "a write beyond the receive window is NACKed, but its payload is placed before the \
         window check's verdict",
        &[req::RCV_WIN_002_B],
        &["rcv-window-edges", "rcv-reflect"],
        Check::OutOfWindow,
    ),
    places(
        "places-without-access",
        "a write that fails the region check is NAKed, but its payload is placed before the \
         check's verdict",
        &[req::RCV_PLACE_002_A],
        &["rcv-placement-errors", "rcv-va-top"],
        Check::Access,
    ),
    places(
        "places-retired-msn",
        "a new PSN of a message that already retired is placed before the retirement table \
         discards it",
        &[req::FLAG_LAST_002],
        &["rcv-msn-position", "rcv-msn-high"],
        Check::Retired,
    ),
    places(
        "msn-offset-unsigned",
        "the retirement table takes an MSN's offset from the next MSN as a plain signed \
         difference, without the modulo 2^16: a new PSN of a message just behind the \
         pointer has a negative offset, passes for pending and is placed",
        &[req::RET_CAP_002, req::FLAG_LAST_002],
        &["rcv-msn-position", "rcv-msn-offsets"],
        Check::Behind,
    ),
    places(
        "places-msn-beyond-table",
        "a write whose MSN lies beyond the retirement table is placed before the table \
         discards it",
        &[req::RCV_MSG_002],
        &["rcv-msn-position"],
        Check::Beyond,
    ),
    places(
        "places-inconsistent-message",
        "a write that disagrees with its message's entry (another dma_len) is placed before \
         the message check discards it",
        &[req::RCV_MSG_001],
        &["rcv-msn-position"],
        Check::Message,
    ),
    places(
        "places-other-opcodes",
        "an RC RDMA WRITE that reaches an MRC QP is placed by its RETH, though the QP takes \
         no such opcode",
        &[req::RCV_OPC_001],
        &["rcv-lenient"],
        Check::Opcode,
    ),
];

/// A fault whose DMA engine places the writes that `check` discards.
pub(super) const fn places(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    check: Check,
) -> Fault {
    let make: super::MakeStream = match check {
        Check::UnknownQp => |m| Box::new(PlacesDiscarded::new(m, Check::UnknownQp)),
        Check::QpInError => |m| Box::new(PlacesDiscarded::new(m, Check::QpInError)),
        Check::OutOfWindow => |m| Box::new(PlacesDiscarded::new(m, Check::OutOfWindow)),
        Check::Access => |m| Box::new(PlacesDiscarded::new(m, Check::Access)),
        Check::Retired => |m| Box::new(PlacesDiscarded::new(m, Check::Retired)),
        Check::Behind => |m| Box::new(PlacesDiscarded::new(m, Check::Behind)),
        Check::Half => |m| Box::new(PlacesDiscarded::new(m, Check::Half)),
        Check::Beyond => |m| Box::new(PlacesDiscarded::new(m, Check::Beyond)),
        Check::Message => |m| Box::new(PlacesDiscarded::new(m, Check::Message)),
        Check::Opcode => |m| Box::new(PlacesDiscarded::new(m, Check::Opcode)),
    };
    fault(name, what, breaks, catch, Edits { stream: Some(make), per_input: true, ..Edits::NONE })
}

/// The receive check whose verdict comes after the payload was placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Check {
    /// The QP lookup (`RCV-QP-001`).
    UnknownQp,
    /// The QP's error state (`RCV-QP-002`).
    QpInError,
    /// The window (`RCV-WIN-002`).
    OutOfWindow,
    /// The region check (`RCV-PLACE-002`).
    Access,
    /// The MSN's position: retired (`FLAG-LAST-002`).
    Retired,
    /// The MSN's position: retired, and below the next MSN as plain numbers, so that a
    /// difference taken without the modulo is negative (`RET-CAP-002`).
    Behind,
    /// The MSN's position: retired at an offset of exactly 2^15, which a retired range
    /// that starts one after it leaves to neither range (`RET-CAP-002`).
    Half,
    /// The MSN's position: beyond the table (`RCV-MSG-002`).
    Beyond,
    /// The message's entry (`RCV-MSG-001`).
    Message,
    /// The opcode (`RCV-OPC-001`).
    Opcode,
}

/// A write as the faulty engine sees it arrive.
#[derive(Debug)]
struct Arrived {
    at: u64,
    write: DmaWrite,
    mrc: bool,
    last: bool,
    len: usize,
}

/// A DMA engine that starts on every write before the receive checks' verdict, and whose
/// one check's discards are therefore placed.
#[derive(Debug)]
struct PlacesDiscarded {
    check: Check,
    pmtu: usize,
    /// Entries of the retirement table (`RET-CAP-001`).
    table: u16,
    shared: bool,
    qps: Qps,
    failed: HashSet<u32>,
    /// The last MSN each domain retired, from the transport ACKs its QPs sent.
    retired: HashMap<u32, Msn>,
    pending: Option<Arrived>,
    held: Vec<TimedOutput>,
}

impl PlacesDiscarded {
    fn new(m: &Manifest, check: Check) -> Self {
        let shared = m.nic.retirement == RetirementMode::Shared;
        let window = u16::from(m.nic.mpr) * 128;
        PlacesDiscarded {
            check,
            pmtu: usize::try_from(m.nic.pmtu).unwrap_or(usize::MAX),
            table: if shared { 4096 } else { window },
            shared,
            qps: Qps::default(),
            failed: HashSet::new(),
            retired: HashMap::new(),
            pending: None,
            held: Vec::new(),
        }
    }

    /// The write frame `bytes` carries, with what the checks need of it.
    fn arrived(&self, at: u64, bytes: &[u8]) -> Option<Arrived> {
        let d = decode(bytes);
        if d.error.is_some() || d.discard_reason().is_some() || d.payload.is_empty() {
            return None;
        }
        let (bth, reth) = (d.bth?, d.ext.reth?);
        Some(Arrived {
            at,
            write: DmaWrite {
                qpn: bth.dest_qp,
                psn: bth.psn,
                msn: d.ext.meth.map_or(Msn::ZERO, |m| m.msn),
                va: reth.va,
                payload: Payload::Bytes(d.payload.into()),
            },
            mrc: bth.opcode.is_mrc_write(),
            last: bth.opcode.is_last(),
            len: d.payload.len(),
        })
    }

    /// The check that discarded write `w`, from what its NIC did with it (`out`, the
    /// outputs at its arrival): `None` when the NIC took it, or discarded it for a check
    /// other than those told here.
    fn discarded_by(&self, w: &Arrived, out: &[TimedOutput]) -> Option<Check> {
        let qp = w.write.qpn.value();
        if !w.mrc {
            return Some(Check::Opcode);
        }
        let (Some(peer), Some(domain)) = (self.qps.peer(qp), self.qps.table(qp, self.shared))
        else {
            return Some(Check::UnknownQp);
        };
        if self.failed.contains(&qp) {
            return Some(Check::QpInError);
        }
        let mut answered = false;
        for o in out.iter().filter(|o| o.at.0 == w.at) {
            match &o.output {
                Output::Event { event: NicEvent::DmaWrite(x) }
                    if x.qpn == w.write.qpn && x.psn == w.write.psn =>
                {
                    return None;
                }
                Output::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    if d.bth.map(|b| b.dest_qp.value()) != Some(peer) {
                        continue;
                    }
                    if d.ext.neth.is_some_and(|n| {
                        n.reason == NackReason::PSN_OOR_WINDOW && n.nack_psn == w.write.psn
                    }) {
                        return Some(Check::OutOfWindow);
                    }
                    if d.ext.aeth.is_some_and(|a| a.syndrome == AethRepr::NAK_REMOTE_ACCESS) {
                        return Some(Check::Access);
                    }
                    // A SACK that this write triggered, or a NACK of it.
                    let trigger = d
                        .ext
                        .seth
                        .filter(|s| !s.pr)
                        .map(|s| s.cack_psn.offset(i32::from(s.ack_psn_offset)) == w.write.psn);
                    let nacked = d.ext.neth.map(|n| n.nack_psn == w.write.psn);
                    answered |= trigger.or(nacked).unwrap_or(false);
                }
                _ => {}
            }
        }
        // Discarded without response: by its size, or by its MSN.
        if answered || w.len > self.pmtu || (!w.last && w.len != self.pmtu) {
            return None;
        }
        let msn = w.write.msn;
        let next = self.retired.get(&domain).map_or(Msn::ZERO, |m| m.next());
        let ahead = msn.forward_from(next);
        Some(if ahead >= 0x8000 && self.check == Check::Behind && msn.value() < next.value() {
            Check::Behind
        } else if ahead == 0x8000 && self.check == Check::Half {
            Check::Half
        } else if ahead >= 0x8000 {
            Check::Retired
        } else if ahead >= self.table {
            Check::Beyond
        } else {
            Check::Message
        })
    }
}

impl Stream for PlacesDiscarded {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { .. } => {
                    self.qps.learn(&i.input);
                }
                Input::Frame { bytes, .. } => self.pending = self.arrived(i.at.0, bytes),
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        if let Some(w) = self.pending.take() {
            if self.discarded_by(&w, &outputs) == Some(self.check) {
                let event = NicEvent::DmaWrite(w.write);
                self.held
                    .push(TimedOutput { at: Timestamp(w.at), output: Output::Event { event } });
            }
        }
        // What the NIC did: QPs it failed, messages its domains retired.
        for o in &outputs {
            match &o.output {
                Output::Event { event: NicEvent::Report(NicReport::QpError { qpn, .. }) } => {
                    self.failed.insert(qpn.value());
                }
                Output::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let (Some(bth), Some(a)) = (d.bth, d.ext.aeth) else { continue };
                    if bth.opcode != Opcode::MRC_ACKNOWLEDGE
                        || AethKind::of(a.syndrome) != AethKind::Ack
                    {
                        continue;
                    }
                    let local = self.qps.local(bth.dest_qp.value());
                    if let Some(domain) = local.and_then(|q| self.qps.table(q, self.shared)) {
                        self.retired.insert(domain, a.msn.msn());
                    }
                }
                _ => {}
            }
        }
        outputs.append(&mut self.held);
        outputs.sort_by_key(|o| o.at.0);
        outputs
    }
}
