//! Bodies of the fuzz targets that drive the reference model, as ordinary functions: the
//! `fuzz/` workspace calls them from libFuzzer, and `tests/fuzz_corpus.rs` runs them over
//! the committed seed corpora, so that an input the fuzzer found is a regression test too.
//!
//! Each body reads its input as a small program whose format is documented on the
//! function. Integers are read from the front, little-endian, and read as zero once the
//! input is exhausted, so every byte string is a valid program. A body panics only when
//! the model breaks a rule of the specification, and the message names the rule.
//!
//! * [`receiver`]: one responder NIC under hostile writes, probes, duplicates and timeouts.
//!   No panic; peer-driven state within the retirement table's capacity; placement only
//!   inside the region; never a PSN placed twice; never a write after its message's flag;
//!   flags in MSN order with every byte placed; a refused packet changes nothing observable.
//! * [`sender`]: one requester NIC with posted work under hostile SACKs, NACKs, AETHs, CPU
//!   commands and timeouts. A message completes with success only inside an accepted AETH
//!   that covers its MSN; at most one inferred retransmission per outstanding PSN
//!   (`SND-RTX-003`); new PSNs consecutive, outstanding within the window; a refused packet
//!   changes nothing.
//! * [`pair`]: two endpoints over 2 to 4 paths, the input choosing each packet's fate. Never
//!   a PSN placed twice, never a write after a flag, a sender success only for a retired
//!   message; when the run completes, every message delivered once, retired in MSN order,
//!   immediates in order; an idle pair with work left is a stall.
//! * [`doorbell`]: doorbell tokens and templates, through the codec and a NIC. Decode,
//!   expand and validate never panic; `accept_doorbell` rejects exactly per `DB-ORDER-001`;
//!   a rejected token gives exactly one error completion and changes nothing, and the next
//!   valid token is accepted.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use openrdma_codec::host::{
    CompletionRepr, CompletionStatus, DoorbellReject, DoorbellToken, FlagRepr, LengthBound,
    Template, WorkRequest, WrOpcode, accept_doorbell,
};
use openrdma_codec::psn::PSN_MASK;
use openrdma_codec::{
    AethRepr, BthRepr, CcStateRepr, Ev, EvMark as WireMark, ImmDtRepr, Lkey, MethRepr, Msn,
    NackReason, NethRepr, Opcode, PethRepr, Psn, Qpn, RethRepr, Rkey, Rqmsn, SethRepr, TemplateId,
};

use openrdma_device::{DomainId, Payload, Timestamp};
use openrdma_sm::ev::EvState;
use openrdma_sm::{ApiMisuse, DoorbellRejected, HostError, PeerViolation};
use openrdma_sm::{
    CompletionEvent, CpuCommand, DmaWrite, DoorbellWrite, FlagWrite, HostCommand, LocalRegion,
    NicEvent, NicReport, Region, RetransmitCause, Side, Transmit,
};
use openrdma_sm::{
    CongestionControl, NicConfig, QpConfig, RecoveryConfig, RetirementMode, SprayPolicy,
};
use openrdma_sm::{DeliveryOracle, Endpoint, Fabric, Fate, Pair, RunEnd};
use openrdma_sm::{HostOrPeer, Nic, NicStats};
use openrdma_sm::{Packet, WritePacket};

mod doorbell;
mod pair;
mod receiver;
mod sender;

pub use doorbell::*;
pub use pair::*;
pub use receiver::*;
pub use sender::*;

// ----- reading the input -------------------------------------------------------------------

/// The fuzz input as a stream of integers: little-endian, zero once exhausted.
#[derive(Debug, Clone)]
struct Input<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Input<'a> {
    fn new(data: &'a [u8]) -> Self {
        Input { data, at: 0 }
    }
    fn is_empty(&self) -> bool {
        self.at >= self.data.len()
    }
    fn u8(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at = self.at.saturating_add(1);
        b
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u24(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), 0])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }
    fn bit(&mut self) -> bool {
        self.u8() & 1 == 1
    }
}

// ----- shared pieces -----------------------------------------------------------------------

/// The local QP of the single-NIC bodies, and its peer.
const LQP: u32 = 0x20;
const PEER: u32 = 0x10;
/// A second local QP (shared retirement across QPs), and its peer.
const LQP_B: u32 = 0x21;
const PEER_B: u32 = 0x11;
/// The writable region remote writes target.
const RKEY: Rkey = Rkey::new(0xBEEF);
const REGION_BASE: u64 = 0x10_0000;
const REGION_LEN: u64 = 0x10_0000;
/// A registered region without remote-write access.
const RKEY_RO: Rkey = Rkey::new(0xCAFE);
const RO_BASE: u64 = 0x40_0000;
/// EV profile of the local QP.
const EVS: [Ev; 4] = [Ev::new(0xA0), Ev::new(0xA1), Ev::new(0xA2), Ev::new(0xA3)];
/// Slots of the flag rings.
const FLAG_SLOTS: u32 = 64;
/// At most this many operations per input, so that one execution stays short.
const MAX_OPS: usize = 400;
/// Capacity of a shared retirement domain (`RET-CAP-001`).
const SHARED_CAPACITY: usize = 4096;

/// Everything a NIC produced after one input, drained in the documented order.
#[derive(Debug, Default)]
struct Out {
    tx: Vec<Transmit>,
    dma: Vec<DmaWrite>,
    flags: Vec<FlagWrite>,
    completions: Vec<CompletionEvent>,
    reports: Vec<NicReport>,
}

impl Out {
    fn is_empty(&self) -> bool {
        self.tx.is_empty()
            && self.dma.is_empty()
            && self.flags.is_empty()
            && self.completions.is_empty()
            && self.reports.is_empty()
    }

    fn push(&mut self, e: NicEvent) {
        match e {
            NicEvent::DmaWrite(d) => self.dma.push(d),
            NicEvent::FlagWrite(f) => self.flags.push(f),
            NicEvent::Completion(c) => self.completions.push(c),
            NicEvent::Report(r) => self.reports.push(r),
        }
    }
}

fn drain(nic: &mut Nic, now: Timestamp) -> Out {
    let mut out = Out::default();
    while let Some(t) = nic.poll_transmit(now) {
        out.tx.push(t);
    }
    while let Some(e) = nic.poll_event() {
        out.push(e);
    }
    out
}

fn region(rkey: Rkey, base: u64, remote_write: bool) -> HostCommand {
    HostCommand::RegisterRegion(Region { rkey, base, len: REGION_LEN, remote_write })
}

fn qp_config(qpn: u32, peer: u32, initial_psn: u32, peer_initial_psn: u32) -> QpConfig {
    QpConfig {
        qpn: Qpn::new(qpn),
        peer_qpn: Qpn::new(peer),
        initial_psn: Psn::new(initial_psn),
        peer_initial_psn: Psn::new(peer_initial_psn),
        domain: DomainId::default(),
        evs: EVS.to_vec(),
        backup_evs: Vec::new(),
        spray: SprayPolicy::RoundRobin,
        cc: CongestionControl::Unlimited,
        recv_flag_base: 0x8000 + u64::from(qpn) * 0x1000,
        recv_flag_slots: FLAG_SLOTS,
        send_flag_base: 0x9_0000 + u64::from(qpn) * 0x1000,
        send_flag_slots: FLAG_SLOTS,
        send_cq: None,
        recv_cq: None,
    }
}

/// A PSN from an input record: `mode % 4` picks near `base` (a signed byte away), near
/// `edge` (a signed byte away), a little behind `base`, or any 24-bit value.
fn psn_near(inp: &mut Input<'_>, base: Psn, edge: Psn) -> Psn {
    match inp.u8() % 4 {
        0 => base.offset(i32::from(inp.u8() as i8)),
        1 => edge.offset(i32::from(inp.u8() as i8)),
        2 => base.sub(1 + u32::from(inp.u8() % 8)),
        _ => Psn::new(inp.u24()),
    }
}

/// The observable state of one QP of a NIC that a refused input must leave alone.
#[derive(Debug, Clone, PartialEq, Eq)]
struct QpState {
    epsn: Option<Psn>,
    window: Option<openrdma_sm::SendWindow>,
    in_error: Option<bool>,
    evs: Option<Vec<(Ev, EvState)>>,
}

fn qp_state(nic: &Nic, qpn: u32) -> QpState {
    let q = Qpn::new(qpn);
    QpState {
        epsn: nic.expected_psn(q),
        window: nic.send_window(q),
        in_error: nic.qp_in_error(q),
        evs: nic.ev_states(q),
    }
}

/// The counters a refused packet may change: none but `violations` and the responses the
/// specification requires (a NACK, a transport NAK).
fn stats_of_refusal(s: &NicStats) -> NicStats {
    NicStats { violations: 0, nacks_sent: 0, acks_sent: 0, ..s.clone() }
}
