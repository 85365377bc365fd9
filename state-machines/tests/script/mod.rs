//! A small packetdrill-style script language for driving one [`Nic`]: inject hand-built
//! packets, host commands and CPU commands at scripted times, then expect the exact
//! outputs, one at a time, in order.
//!
//! After every input the script drains the NIC (transmits first, then events, as the
//! NIC's documentation asks) into three queues: packets sent, host-visible events (DMA
//! writes, flag writes, completions) and reports to the CPU half. Each `expect_*` takes
//! the next item of one queue and compares it field by field; a failed expectation prints
//! the step that failed, the last steps of the script, what was expected, what came, and
//! what else is waiting.
//!
//! Everything here is functions, no macros: a script reads as a list of calls.

#![allow(dead_code, unreachable_pub)]

use std::collections::VecDeque;
use std::sync::Arc;

use openrdma_codec::host::{CompletionRepr, CompletionStatus, FlagRepr, WorkRequest, WrOpcode};
use openrdma_codec::{
    AethMsn, AethRepr, BthRepr, CcStateRepr, EethRepr, Ev, ImmDtRepr, Lkey, MethRepr, Msn,
    NackReason, NethRepr, Opcode, Psn, Qpn, RethRepr, Rkey, Rqmsn, SethRepr,
};
use openrdma_device::DomainId;
use openrdma_sm::{
    CpuCommand, HostCommand, HostError, HostOrPeer, LocalRegion, Nic, NicConfig, NicEvent,
    NicReport, Packet, Payload, QpConfig, Region, Side, Timestamp, Transmit, WritePacket,
};

/// The local QP of every script.
pub const LQP: u32 = 0x20;
/// The peer's QP: destination of everything the local QP sends.
pub const PEER: u32 = 0x10;
/// A second local QP (retirement across QPs), and its peer.
pub const LQP_B: u32 = 0x21;
/// Peer of [`LQP_B`].
pub const PEER_B: u32 = 0x11;
/// The registered region remote writes target.
pub const RKEY: Rkey = Rkey::new(0xBEEF);
/// First byte of the region.
pub const REGION_BASE: u64 = 0x10_0000;
/// Length of the region.
pub const REGION_LEN: u64 = 0x10_0000;
/// The local key the scripts register over all of memory, readable by the NIC, for the
/// templates' local regions (`TPL-KEY-001`).
pub const LKEY: Lkey = Lkey::new(0x1111);
/// A registered region without remote-write access.
pub const RKEY_RO: Rkey = Rkey::new(0xCAFE);
/// First byte of the read-only region.
pub const RO_BASE: u64 = 0x40_0000;
/// Receiver flag ring of [`LQP`].
pub const RECV_FLAG_BASE: u64 = 0x8000;
/// Receiver flag ring of [`LQP_B`].
pub const RECV_FLAG_BASE_B: u64 = 0xA000;
/// Slots in each receiver flag ring.
pub const RECV_FLAG_SLOTS: u32 = 64;
/// Sender completion flags of [`LQP`].
pub const SEND_FLAG_BASE: u64 = 0x9000;
/// Slots of sender completion flags.
pub const SEND_FLAG_SLOTS: u32 = 64;
/// The EV profile of [`LQP`], in spraying order.
pub const EVS: [Ev; 4] = [Ev::new(0xA0), Ev::new(0xA1), Ev::new(0xA2), Ev::new(0xA3)];
/// The EV scripts inject packets on unless told otherwise.
pub const IN_EV: Ev = Ev::new(0x77);
/// Payload granularity of the scripts.
pub const PMTU: u32 = 1024;

/// The NIC configuration scripts start from: PMTU 1024, a window of 128 packets, no
/// TSETH (so that no field depends on the clock), everything else at its default.
pub fn config() -> NicConfig {
    NicConfig { seed: 1, pmtu: PMTU, mpr: 1, timestamps: false, ..NicConfig::default() }
}

/// A QP of the scripts: `qpn` talks to `peer`, sends from `initial_psn` and expects
/// `peer_initial_psn`.
pub fn qp_config(qpn: u32, peer: u32, initial_psn: u32, peer_initial_psn: u32) -> QpConfig {
    QpConfig {
        qpn: Qpn::new(qpn),
        peer_qpn: Qpn::new(peer),
        initial_psn: Psn::new(initial_psn),
        peer_initial_psn: Psn::new(peer_initial_psn),
        domain: DomainId::new(0),
        evs: EVS.to_vec(),
        backup_evs: vec![],
        spray: Default::default(),
        cc: Default::default(),
        recv_flag_base: if qpn == LQP_B { RECV_FLAG_BASE_B } else { RECV_FLAG_BASE },
        recv_flag_slots: RECV_FLAG_SLOTS,
        send_flag_base: SEND_FLAG_BASE,
        send_flag_slots: SEND_FLAG_SLOTS,
        send_cq: None,
        recv_cq: None,
    }
}

// ----- packets the script injects ----------------------------------------------------------

/// A write packet under construction: `write(..)` then modifiers, then [`Script::inject`].
#[derive(Debug, Clone)]
pub struct W {
    /// The packet.
    pub pkt: WritePacket,
    /// EV it arrives on.
    pub ev: Ev,
}

/// The payload bytes of a scripted packet: `len` bytes, each the low byte of the PSN.
pub fn bytes(psn: u32, len: u32) -> Payload {
    Payload::Bytes(Arc::from(vec![psn as u8; len as usize]))
}

/// A write packet to [`LQP`]: PSN, MSN, opcode, RETH.va and payload length. RETH.dma_len
/// is `len`, the key is [`RKEY`], no AckReq, RQMSN 0, ImmDt `0` on opcodes that need one.
pub fn write(psn: u32, msn: u16, opcode: Opcode, va: u64, len: u32) -> W {
    let bth = BthRepr::new(opcode, Qpn::new(LQP), Psn::new(psn));
    W {
        pkt: WritePacket {
            bth,
            meth: MethRepr { rqmsn: Rqmsn::ZERO, msn: Msn::new(msn) },
            tseth: None,
            reth: RethRepr { va, rkey: RKEY, dma_len: len },
            immdt: opcode.has_immediate().then_some(ImmDtRepr { imm: 0 }),
            payload: bytes(psn, len),
        },
        ev: IN_EV,
    }
}

impl W {
    /// RETH.dma_len: the message's total length.
    pub fn dma_len(mut self, n: u32) -> W {
        self.pkt.reth.dma_len = n;
        self
    }
    /// Sets BTH AckReq.
    pub fn ack_req(mut self) -> W {
        self.pkt.bth.ack_req = true;
        self
    }
    /// RETH.rkey.
    pub fn rkey(mut self, k: Rkey) -> W {
        self.pkt.reth.rkey = k;
        self
    }
    /// ImmDt.
    pub fn imm(mut self, v: u32) -> W {
        self.pkt.immdt = Some(ImmDtRepr { imm: v });
        self
    }
    /// METH.rqmsn.
    pub fn rqmsn(mut self, r: u16) -> W {
        self.pkt.meth.rqmsn = Rqmsn::new(r);
        self
    }
    /// The EV it arrives on.
    pub fn ev(mut self, ev: Ev) -> W {
        self.ev = ev;
        self
    }
    /// Destination QP.
    pub fn dest(mut self, qpn: u32) -> W {
        self.pkt.bth.dest_qp = Qpn::new(qpn);
        self
    }
    /// Sets BTH rtx.
    pub fn rtx(mut self) -> W {
        self.pkt.bth.rtx = true;
        self
    }
}

/// A SACK to [`LQP`]: cumulative PSN, bitmap offset and bitmap, arriving on `entropy`.
pub fn sack(cack: u32, sack_offset: i16, bitmap: u64) -> Packet {
    Packet::Sack {
        bth: BthRepr::new(Opcode::MRC_SACK, Qpn::new(LQP), Psn::new(cack)),
        seth: SethRepr {
            entropy: IN_EV,
            cack_psn: Psn::new(cack),
            mpr: 1,
            sack_offset,
            sack_bitmap: bitmap,
            ..SethRepr::default()
        },
        cc_state: CcStateRepr::default(),
    }
}

/// A SACK answering probe `probe_id` sent on `ev` (pr = 1, the EV reflected, m = none).
pub fn probe_answer(cack: u32, ev: Ev, probe_id: u16) -> Packet {
    let Packet::Sack { bth, mut seth, cc_state } = sack(cack, 1, 0) else { unreachable!() };
    seth.pr = true;
    seth.entropy = ev;
    seth.ack_psn_offset = probe_id as i16;
    Packet::Sack { bth, seth, cc_state }
}

/// A NACK to [`LQP`] for `psn`.
pub fn nack(psn: u32, reason: NackReason) -> Packet {
    Packet::Nack {
        bth: BthRepr::new(Opcode::MRC_NACK, Qpn::new(LQP), Psn::new(psn)),
        neth: NethRepr { reason, entropy: IN_EV, nack_psn: Psn::new(psn), ..NethRepr::default() },
    }
}

/// A transport ACK (syndrome 0) or NAK to [`LQP`] carrying `msn`.
pub fn aeth(syndrome: u8, msn: u16) -> Packet {
    Packet::Ack {
        bth: BthRepr::new(Opcode::MRC_ACKNOWLEDGE, Qpn::new(LQP), Psn::new(0)),
        aeth: AethRepr::new(syndrome, AethMsn::from(Msn::new(msn))),
    }
}

/// A work request for [`LQP`]: a plain signaled WRITE of `len` bytes to
/// `REGION_BASE + remote_off`, reporting in sender flag slot `flag_slot`. The wr_id carries
/// generation 7 in bits 47:32 (the place a doorbell token keeps its seq).
pub fn wr(len: u32, remote_off: u64, flag_slot: u32) -> WorkRequest {
    WorkRequest {
        wr_id: (7 << 32) | u64::from(flag_slot),
        qpn: Qpn::new(LQP),
        opcode: WrOpcode::WRITE,
        local_va: 0x7000_0000,
        lkey: Lkey::new(1),
        remote_va: REGION_BASE + remote_off,
        rkey: RKEY,
        length: len,
        imm: None,
        flag_slot,
        signaled: true,
    }
}

/// The same, as Write-with-Immediate carrying `imm`.
pub fn wr_imm(len: u32, remote_off: u64, flag_slot: u32, imm: u32) -> WorkRequest {
    WorkRequest {
        opcode: WrOpcode::WRITE_WITH_IMM,
        imm: Some(imm),
        ..wr(len, remote_off, flag_slot)
    }
}

// ----- the script --------------------------------------------------------------------------

/// One NIC, a clock, and the queues of what it produced.
pub struct Script {
    /// The NIC under test.
    pub nic: Nic,
    /// The script's clock.
    pub now: Timestamp,
    tx: VecDeque<Transmit>,
    events: VecDeque<NicEvent>,
    reports: VecDeque<NicReport>,
    steps: Vec<String>,
    /// Every input and output, serialized, in order (for determinism checks).
    pub record: Vec<String>,
}

/// A one-line description of a packet, for the script log.
pub fn brief(p: &Packet) -> String {
    let b = p.bth();
    let name = b.opcode.name().unwrap_or("?").trim_start_matches("MRC_");
    let flags = format!("{}{}", if b.ack_req { " A" } else { "" }, if b.rtx { " rtx" } else { "" });
    match p {
        Packet::Write(w) => format!(
            "{name} qp {:#x} psn {} msn {} rqmsn {} va {:#x} len {} dma_len {} rkey {:#x}{}{flags}",
            b.dest_qp.value(),
            b.psn.value(),
            w.meth.msn,
            w.meth.rqmsn,
            w.reth.va,
            w.payload.len(),
            w.reth.dma_len,
            w.reth.rkey,
            w.immdt.map(|i| format!(" imm {:#x}", i.imm)).unwrap_or_default()
        ),
        Packet::Sack { seth, .. } => format!(
            "SACK qp {:#x} cack {} offset {} bitmap {:#b} entropy {:#x} pr {} m {}",
            b.dest_qp.value(),
            seth.cack_psn.value(),
            seth.sack_offset,
            seth.sack_bitmap,
            seth.entropy,
            seth.pr,
            seth.m.0
        ),
        Packet::Nack { neth, .. } => format!(
            "NACK qp {:#x} psn {} reason {:?}",
            b.dest_qp.value(),
            neth.nack_psn.value(),
            neth.reason
        ),
        Packet::Probe { peth, .. } => {
            format!("PROBE qp {:#x} psn {} id {}", b.dest_qp.value(), b.psn.value(), peth.probe_id)
        }
        Packet::Ack { aeth, .. } => format!(
            "AETH qp {:#x} syndrome {:#04x} msn {}",
            b.dest_qp.value(),
            aeth.syndrome,
            aeth.msn
        ),
        Packet::EndpointRequest { erth, .. } => format!(
            "ERTH qp {:#x} op {} request {:#x} ports {:#b}",
            b.dest_qp.value(),
            erth.op,
            erth.request_id,
            erth.port_status
        ),
        Packet::EndpointResponse { eeth, .. } => format!(
            "EETH qp {:#x} op {} status {} request {:#x} ports {:#b}",
            b.dest_qp.value(),
            eeth.op,
            eeth.status,
            eeth.request_id,
            eeth.port_status
        ),
    }
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("model types serialize")
}

impl Script {
    /// A NIC with `cfg`, the regions of the scripts and QP [`LQP`] (sending from
    /// `initial_psn`, expecting `peer_initial_psn`).
    pub fn with(cfg: NicConfig, initial_psn: u32, peer_initial_psn: u32) -> Script {
        Self::with_qp(cfg, qp_config(LQP, PEER, initial_psn, peer_initial_psn))
    }

    /// A NIC with `cfg`, the regions of the scripts, and one QP.
    pub fn with_qp(cfg: NicConfig, qp: QpConfig) -> Script {
        Self::with_setup(cfg, Vec::new(), qp)
    }

    /// A NIC with `cfg`, the regions of the scripts, the host commands `before` (completion
    /// queues, say), and one QP.
    pub fn with_setup(cfg: NicConfig, before: Vec<HostCommand>, qp: QpConfig) -> Script {
        Self::from_nic(Nic::new(cfg).expect("valid configuration"), before, qp)
    }

    /// The sender scripts' NIC restored to `start` before its first host command
    /// (`CONF-ADP-021`).
    pub fn restored(start: openrdma_device::StartState) -> Script {
        let mut nic = Nic::new(config()).expect("valid configuration");
        nic.restore(start);
        Self::from_nic(nic, Vec::new(), qp_config(LQP, PEER, 0, 0))
    }

    fn from_nic(nic: Nic, before: Vec<HostCommand>, qp: QpConfig) -> Script {
        let mut s = Script {
            nic,
            now: Timestamp::ZERO,
            tx: VecDeque::new(),
            events: VecDeque::new(),
            reports: VecDeque::new(),
            steps: Vec::new(),
            record: Vec::new(),
        };
        s.host(HostCommand::RegisterRegion(Region {
            rkey: RKEY,
            base: REGION_BASE,
            len: REGION_LEN,
            remote_write: true,
        }))
        .expect("region");
        s.host(HostCommand::RegisterRegion(Region {
            rkey: RKEY_RO,
            base: RO_BASE,
            len: REGION_LEN,
            remote_write: false,
        }))
        .expect("read-only region");
        s.host(HostCommand::RegisterLocal(LocalRegion {
            lkey: LKEY,
            base: 0,
            len: u64::MAX,
            local_read: true,
        }))
        .expect("local key");
        for cmd in before {
            s.host(cmd).expect("set-up command");
        }
        s.host(HostCommand::CreateQp(qp)).expect("QP");
        s.steps.clear();
        s
    }

    /// The receiver scripts' NIC: [`config`], expecting PSN 0 first.
    pub fn receiver() -> Script {
        Self::with(config(), 0, 0)
    }

    /// The sender scripts' NIC: [`config`], sending from PSN 0.
    pub fn sender() -> Script {
        Self::with(config(), 0, 0)
    }

    fn step(&mut self, s: String) {
        self.record.push(format!("@{} {s}", self.now.0));
        self.steps.push(format!("@{}ns {s}", self.now.0));
    }

    fn context(&self) -> String {
        let from = self.steps.len().saturating_sub(12);
        let mut out = String::from("\n--- last script steps ---\n");
        for s in &self.steps[from..] {
            out.push_str("  ");
            out.push_str(s);
            out.push('\n');
        }
        out.push_str(&format!(
            "--- still queued: {} packets, {} events, {} reports ---\n",
            self.tx.len(),
            self.events.len(),
            self.reports.len()
        ));
        for t in self.tx.iter().take(6) {
            out.push_str(&format!("  tx  ev {:#x} {}\n", t.ev, brief(&t.packet)));
        }
        for e in self.events.iter().take(6) {
            out.push_str(&format!("  evt {e:?}\n"));
        }
        for r in self.reports.iter().take(6) {
            out.push_str(&format!("  rpt {r:?}\n"));
        }
        out
    }

    /// Fails the script with `what`, the recent steps and the queues.
    pub fn fail(&self, what: impl AsRef<str>) -> ! {
        panic!("{}{}", what.as_ref(), self.context())
    }

    /// Collects everything the NIC produced at the current time.
    pub fn drain(&mut self) {
        while let Some(t) = self.nic.poll_transmit(self.now) {
            self.record.push(format!("tx {}", json(&t)));
            self.tx.push_back(t);
        }
        while let Some(e) = self.nic.poll_event() {
            self.record.push(format!("event {}", json(&e)));
            match e {
                NicEvent::Report(r) => self.reports.push_back(r),
                e => self.events.push_back(e),
            }
        }
    }

    // ----- time ---------------------------------------------------------------------------

    /// Sets the clock to `ns` (never backwards).
    pub fn at(&mut self, ns: u64) -> &mut Self {
        assert!(ns >= self.now.0, "script time goes backwards: {ns} < {}", self.now.0);
        self.now = Timestamp(ns);
        self
    }

    /// Moves the clock forward by `ns`.
    pub fn advance(&mut self, ns: u64) -> &mut Self {
        self.now = Timestamp(self.now.0 + ns);
        self
    }

    /// Calls `handle_timeout` at the current time and drains.
    pub fn timeout(&mut self) {
        self.step("handle_timeout".into());
        self.nic.handle_timeout(self.now).expect("time only moves forward");
        self.drain();
    }

    /// `poll_timeout`.
    pub fn next_timeout(&mut self) -> Option<Timestamp> {
        self.nic.poll_timeout()
    }

    // ----- inputs -------------------------------------------------------------------------

    /// A host command.
    pub fn host(&mut self, cmd: HostCommand) -> Result<(), HostError> {
        self.step(format!("host {}", json(&cmd)));
        let r = self.nic.handle_host(self.now, cmd);
        self.record.push(format!("-> {r:?}"));
        self.drain();
        r
    }

    /// Posts a work request; it must be accepted.
    pub fn post(&mut self, wr: WorkRequest) {
        if let Err(e) = self.host(HostCommand::PostWrite(wr)) {
            self.fail(format!("PostWrite refused: {e}"));
        }
    }

    /// Rings a doorbell with the 64-bit token value.
    pub fn doorbell(&mut self, token: u64) -> Result<(), HostError> {
        self.host(HostCommand::Doorbell { token })
    }

    /// A command of the CPU half.
    pub fn cpu(&mut self, cmd: CpuCommand) {
        self.step(format!("cpu {}", json(&cmd)));
        if let Err(e) = self.nic.handle_cpu(self.now, cmd) {
            self.fail(format!("handle_cpu refused {cmd:?}: {e}"));
        }
        self.drain();
    }

    /// A packet from the wire, on `ev`.
    pub fn inject_packet(&mut self, ev: Ev, p: &Packet) -> Result<(), HostOrPeer> {
        self.step(format!("inject ev {ev:#x} {}", brief(p)));
        let r = self.nic.handle_packet(self.now, ev, p);
        self.record.push(format!("-> {r:?}"));
        self.drain();
        r
    }

    /// A reliability or transport packet on [`IN_EV`].
    pub fn inject_ctrl(&mut self, p: &Packet) -> Result<(), HostOrPeer> {
        self.inject_packet(IN_EV, p)
    }

    /// A scripted write packet.
    pub fn inject(&mut self, w: W) -> Result<(), HostOrPeer> {
        let p = Packet::Write(w.pkt);
        self.inject_packet(w.ev, &p)
    }

    /// `inject(write(psn, msn, opcode, va, len).dma_len(dma_len))`.
    pub fn inject_write(
        &mut self,
        psn: u32,
        msn: u16,
        opcode: Opcode,
        va: u64,
        len: u32,
        dma_len: u32,
    ) -> Result<(), HostOrPeer> {
        self.inject(write(psn, msn, opcode, va, len).dma_len(dma_len))
    }

    /// Injects a write that must be accepted.
    pub fn accept(&mut self, w: W) {
        let r = self.inject(w);
        self.ok(r);
    }

    /// Injects a reliability or transport packet that must be accepted.
    pub fn accept_ctrl(&mut self, p: Packet) {
        let r = self.inject_ctrl(&p);
        self.ok(r);
    }

    /// Injects a write that must be refused as a peer violation of `requirement`.
    pub fn refuse(&mut self, w: W, requirement: &str) -> openrdma_sm::PeerViolation {
        let r = self.inject(w);
        self.violation(r, requirement)
    }

    // ----- results ------------------------------------------------------------------------

    /// The input must have been accepted.
    pub fn ok(&self, r: Result<(), HostOrPeer>) {
        if let Err(e) = r {
            self.fail(format!("expected the input to be accepted, got: {e}"));
        }
    }

    /// The input must have been refused as a peer violation of `requirement`; returns the
    /// violation.
    pub fn violation(
        &self,
        r: Result<(), HostOrPeer>,
        requirement: &str,
    ) -> openrdma_sm::PeerViolation {
        match r {
            Err(HostOrPeer::Peer(p)) if p.requirement() == requirement => p,
            other => {
                self.fail(format!("expected a peer violation of {requirement}, got: {other:?}"))
            }
        }
    }

    // ----- expectations on packets ---------------------------------------------------------

    fn next_tx(&mut self, what: &str) -> Transmit {
        match self.tx.pop_front() {
            Some(t) => t,
            None => self.fail(format!("expected {what}, but nothing was transmitted")),
        }
    }

    /// The next packet is a SACK to [`PEER`] with `cack_psn = cack`, `sack_offset = 1` and
    /// this bitmap (bit i = PSN cack + 1 + i). Returns it.
    pub fn expect_sack(&mut self, cack: u32, bitmap: u64) -> (Ev, SethRepr, CcStateRepr) {
        let what = format!("SACK cack {cack} bitmap {bitmap:#b}");
        let t = self.next_tx(&what);
        let Packet::Sack { bth, seth, cc_state } = &t.packet else {
            self.fail(format!("expected {what}, got {:?}", t.packet))
        };
        if bth.dest_qp != Qpn::new(PEER) && bth.dest_qp != Qpn::new(PEER_B) {
            self.fail(format!("expected {what} to the peer QP, got BTH {bth:?}"));
        }
        if seth.cack_psn != Psn::new(cack) || seth.sack_offset != 1 || seth.sack_bitmap != bitmap {
            self.fail(format!(
                "expected {what} (sack_offset 1), got cack {} sack_offset {} bitmap {:#b}",
                seth.cack_psn.value(),
                seth.sack_offset,
                seth.sack_bitmap
            ));
        }
        (t.ev, *seth, *cc_state)
    }

    /// The next packet is a NACK for `psn` with `reason`.
    pub fn expect_nack(&mut self, psn: u32, reason: NackReason) -> NethRepr {
        let what = format!("NACK {reason:?} for PSN {psn}");
        let t = self.next_tx(&what);
        match &t.packet {
            Packet::Nack { neth, .. }
                if neth.nack_psn == Psn::new(psn) && neth.reason == reason =>
            {
                *neth
            }
            other => self.fail(format!("expected {what}, got {}", brief(other))),
        }
    }

    /// The next packet is an AETH with this syndrome and MSN; returns the QP it goes to.
    pub fn expect_aeth(&mut self, syndrome: u8, msn: u16) -> Qpn {
        self.expect_aeth_bth(syndrome, msn).dest_qp
    }

    /// The next packet is an AETH with this syndrome and MSN; returns its BTH.
    pub fn expect_aeth_bth(&mut self, syndrome: u8, msn: u16) -> BthRepr {
        let what = format!("AETH syndrome {syndrome:#04x} MSN {msn}");
        let t = self.next_tx(&what);
        match &t.packet {
            Packet::Ack { bth, aeth }
                if aeth.syndrome == syndrome && aeth.msn == AethMsn::from(Msn::new(msn)) =>
            {
                *bth
            }
            other => self.fail(format!("expected {what}, got {}", brief(other))),
        }
    }

    /// The next packet is a transport ACK for `msn` to [`PEER`].
    pub fn expect_ack(&mut self, msn: u16) {
        self.expect_ack_to(PEER, msn)
    }

    /// The next packet is a transport ACK for `msn` to the peer QP `peer`.
    pub fn expect_ack_to(&mut self, peer: u32, msn: u16) {
        // AETH-MRC-002: a transport ACK carries the unlimited-credit code 0x1F.
        let to = self.expect_aeth(AethRepr::ACK_UNLIMITED_CREDIT, msn);
        if to != Qpn::new(peer) {
            self.fail(format!("the ACK of MSN {msn} went to {to:?}, expected QP {peer:#x}"));
        }
    }

    /// The next packet is an AETH NAK with this syndrome (any MSN).
    pub fn expect_nak(&mut self, syndrome: u8) {
        let what = format!("AETH NAK {syndrome:#04x}");
        let t = self.next_tx(&what);
        match &t.packet {
            Packet::Ack { aeth, .. } if aeth.syndrome == syndrome => {}
            other => self.fail(format!("expected {what}, got {}", brief(other))),
        }
    }

    /// The next packet is an endpoint response; returns its EV, BTH and EETH.
    pub fn expect_endpoint_response(&mut self) -> (Ev, BthRepr, EethRepr) {
        let t = self.next_tx("an endpoint response");
        match t.packet {
            Packet::EndpointResponse { bth, eeth } => (t.ev, bth, eeth),
            other => self.fail(format!("expected an endpoint response, got {}", brief(&other))),
        }
    }

    /// The next packet is a data packet with this PSN and opcode; returns its EV and the
    /// packet.
    pub fn expect_data(&mut self, psn: u32, opcode: Opcode) -> (Ev, WritePacket) {
        let what = format!("{opcode:?} PSN {psn}");
        let t = self.next_tx(&what);
        match t.packet {
            Packet::Write(w) if w.bth.psn == Psn::new(psn) && w.bth.opcode == opcode => {
                if w.bth.dest_qp != Qpn::new(PEER) {
                    self.fail(format!("{what} sent to {:?}, not the peer QP", w.bth.dest_qp));
                }
                (t.ev, w)
            }
            other => self.fail(format!("expected {what}, got {}", brief(&other))),
        }
    }

    /// The next packet is a retransmission (rtx set) of `psn`; returns its EV and packet.
    pub fn expect_rtx(&mut self, psn: u32) -> (Ev, WritePacket) {
        let what = format!("retransmission of PSN {psn}");
        let t = self.next_tx(&what);
        match t.packet {
            Packet::Write(w) if w.bth.psn == Psn::new(psn) && w.bth.rtx => (t.ev, w),
            other => self.fail(format!("expected {what} with rtx = 1, got {}", brief(&other))),
        }
    }

    /// The next packet is a probe on `ev`; returns its PSN and probe ID.
    pub fn expect_probe(&mut self, ev: Ev) -> (Psn, u16) {
        let what = format!("PROBE on EV {ev:#x}");
        let t = self.next_tx(&what);
        match t.packet {
            Packet::Probe { bth, peth } if t.ev == ev => (bth.psn, peth.probe_id),
            other => self.fail(format!("expected {what}, got EV {:#x} {}", t.ev, brief(&other))),
        }
    }

    /// Takes every packet still queued.
    pub fn take_tx(&mut self) -> Vec<Transmit> {
        self.tx.drain(..).collect()
    }

    // ----- expectations on events -----------------------------------------------------------

    fn next_event(&mut self, what: &str) -> NicEvent {
        match self.events.pop_front() {
            Some(e) => e,
            None => self.fail(format!("expected {what}, but there is no event")),
        }
    }

    /// The next event is a DMA write of `len` bytes at `va`; returns it.
    pub fn expect_dma(&mut self, va: u64, len: u32) -> openrdma_sm::DmaWrite {
        let what = format!("DmaWrite of {len} bytes at {va:#x}");
        match self.next_event(&what) {
            NicEvent::DmaWrite(d) if d.va == va && d.payload.len() == len => d,
            other => self.fail(format!("expected {what}, got {other:?}")),
        }
    }

    /// The next event is the responder flag of `msn` on QP `qpn` at `flag_base`, with the
    /// value `FlagRepr::retired(msn, byte_len)` at slot `msn mod RECV_FLAG_SLOTS`
    /// (`FLAG-RECV-001`, `FLAG-RECV-002`).
    pub fn expect_flag_on(&mut self, qpn: u32, flag_base: u64, msn: u16, byte_len: u32) {
        let what = format!("responder flag of QP {qpn:#x} MSN {msn} ({byte_len} bytes)");
        let addr = flag_base + u64::from(u32::from(msn) % RECV_FLAG_SLOTS) * 8;
        let value = FlagRepr::retired(Msn::new(msn), byte_len).to_u64();
        match self.next_event(&what) {
            NicEvent::FlagWrite(f)
                if f.side == Side::Responder
                    && f.qpn == Qpn::new(qpn)
                    && f.msn == Msn::new(msn)
                    && f.addr == addr
                    && f.value == value => {}
            other => {
                self.fail(format!("expected {what} = {value:#018x} at {addr:#x}, got {other:?}"))
            }
        }
    }

    /// The next event is the flag of `msn` on [`LQP`], with `byte_len` bytes.
    pub fn expect_flag_len(&mut self, msn: u16, byte_len: u32) {
        self.expect_flag_on(LQP, RECV_FLAG_BASE, msn, byte_len)
    }

    /// The next event is a responder flag of `msn` on [`LQP`] (any length); returns the
    /// flag word.
    pub fn expect_flag(&mut self, msn: u16) -> FlagRepr {
        let what = format!("responder flag of MSN {msn}");
        let addr = RECV_FLAG_BASE + u64::from(u32::from(msn) % RECV_FLAG_SLOTS) * 8;
        match self.next_event(&what) {
            NicEvent::FlagWrite(f)
                if f.side == Side::Responder && f.msn == Msn::new(msn) && f.addr == addr =>
            {
                let v = FlagRepr::from_u64(f.value);
                if v.generation != msn || !v.valid || !v.status.is_success() {
                    self.fail(format!("flag of MSN {msn} has a wrong value: {v:?}"));
                }
                v
            }
            other => self.fail(format!("expected {what} at {addr:#x}, got {other:?}")),
        }
    }

    /// The next event is a sender flag in `slot` with this status and byte count and
    /// generation.
    pub fn expect_send_flag(
        &mut self,
        slot: u32,
        generation: u16,
        status: CompletionStatus,
        byte_len: u32,
    ) {
        let what = format!("sender flag in slot {slot} ({status:?}, {byte_len} bytes)");
        let addr = SEND_FLAG_BASE + u64::from(slot) * 8;
        let value = FlagRepr::sender(generation, status, byte_len).to_u64();
        match self.next_event(&what) {
            NicEvent::FlagWrite(f)
                if f.side == Side::Requester && f.addr == addr && f.value == value => {}
            other => {
                self.fail(format!("expected {what} = {value:#018x} at {addr:#x}, got {other:?}"))
            }
        }
    }

    /// The next event is a completion of `side` with `status`; returns the entry.
    pub fn expect_completion(&mut self, side: Side, status: CompletionStatus) -> CompletionRepr {
        let what = format!("{side:?} completion {status:?}");
        match self.next_event(&what) {
            NicEvent::Completion(c) if c.side == side && c.entry.status == status => c.entry,
            other => self.fail(format!("expected {what}, got {other:?}")),
        }
    }

    /// The next event is a completion of `side` with `status`; returns the whole event,
    /// with where it was written.
    pub fn expect_completion_event(
        &mut self,
        side: Side,
        status: CompletionStatus,
    ) -> openrdma_sm::CompletionEvent {
        let what = format!("{side:?} completion {status:?}");
        match self.next_event(&what) {
            NicEvent::Completion(c) if c.side == side && c.entry.status == status => c,
            other => self.fail(format!("expected {what}, got {other:?}")),
        }
    }

    /// The next report to the CPU half is `r`.
    pub fn expect_report(&mut self, r: NicReport) {
        match self.reports.pop_front() {
            Some(got) if got == r => {}
            other => self.fail(format!("expected report {r:?}, got {other:?}")),
        }
    }

    /// Takes every report still queued.
    pub fn take_reports(&mut self) -> Vec<NicReport> {
        self.reports.drain(..).collect()
    }

    /// Drops the reports queued so far.
    pub fn drop_reports(&mut self) {
        self.reports.clear();
    }

    /// Takes every host-visible event still queued.
    pub fn take_events(&mut self) -> Vec<NicEvent> {
        self.events.drain(..).collect()
    }

    // ----- expectations of silence ----------------------------------------------------------

    /// Nothing was transmitted.
    pub fn expect_no_tx(&self) {
        if !self.tx.is_empty() {
            self.fail("expected no packet");
        }
    }

    /// No host-visible event.
    pub fn expect_no_events(&self) {
        if !self.events.is_empty() {
            self.fail("expected no DMA write, flag or completion");
        }
    }

    /// No packet, no event, no report.
    pub fn expect_nothing(&self) {
        if !self.tx.is_empty() || !self.events.is_empty() || !self.reports.is_empty() {
            self.fail("expected no output at all");
        }
    }

    /// No packet and no host-visible event (reports are allowed and kept).
    pub fn expect_quiet(&self) {
        if !self.tx.is_empty() || !self.events.is_empty() {
            self.fail("expected no packet and no event");
        }
    }
}

/// Runs `f` on its own thread and fails if it has not finished within `secs` seconds: a
/// call that never returns (a timer loop that re-arms itself in the past) fails the test
/// instead of hanging the suite.
pub fn within_seconds<T: Send + 'static>(
    secs: u64,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    use std::sync::mpsc;
    let (done_tx, done_rx) = mpsc::channel();
    let h = std::thread::spawn(move || {
        let r = f();
        let _ = done_tx.send(());
        r
    });
    match done_rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: the script did not finish within {secs} s (a call never returned)")
        }
        _ => match h.join() {
            Ok(v) => v,
            Err(p) => std::panic::resume_unwind(p),
        },
    }
}
