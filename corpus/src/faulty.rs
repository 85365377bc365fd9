//! Deliberately faulty devices: each is the reference NIC with one bug that a real NIC
//! could have, so that the suite proves it catches them (`--impl faulty:NAME`). And
//! legitimately different devices (`--impl variant:NAME`): other choices the
//! specification leaves open, which must pass.
//!
//! A fault is made by distorting what the reference NIC is given (its configuration or
//! its inputs) or what it produces, the way the buggy hardware would behave at its
//! boundary.

use std::collections::{BTreeSet, HashMap};

use openrdma_codec::frame::{FrameRepr, IpRepr, decode};
use openrdma_codec::host::{COMPLETION_LEN, CQE_OWNER_PHASE};
use openrdma_codec::{Ev, Msn, NackReason, Opcode, Psn};
use openrdma_device::{
    Capability, CqWrite, Device, DeviceError, HostCommand, Input, Manifest, NicEvent, NicReport,
    Output, Payload, RetirementMode, Side, SprayPolicy, TimedInput, TimedOutput, Timestamp,
};

use openrdma_sm::boundary::ReferenceDevice;

/// A faulty or variant device: its name, what is wrong (or different), and how it is made.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// `faulty:NAME` or `variant:NAME`.
    pub name: &'static str,
    /// One sentence.
    pub description: &'static str,
    /// The requirement the fault breaks (empty for variants).
    pub breaks: &'static str,
    fault: Fault,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    WindowSlides,
    FlagBeforeData,
    GoBackN,
    RetransmitSameEv,
    NoSackTimer,
    BadIcrcIpv6,
    PsnWrap,
    IgnoresSharedSequence,
    WriteAfterFlag,
    MprOffByOne,
    NoDuplicateAck,
    StaleIpv4Checksum,
    RtxInReservedBit,
    FlowLabelHighBits,
    UdpChecksumNoAddresses,
    StaleProgress,
    ConstantRto,
    CqPhaseStuck,
    CqeAfterFlag,
    RtxAfterFlag,
    Ipv4ChecksumUnchecked,
    EndpointAlwaysSuccess,
    BackupsSprayed,
    // Legitimate variants.
    SprayRandom,
    SackEveryPacket,
    SackCoalesce8,
    ReceiverBlock,
    TokenOnlyDoorbell,
    Late,
    DmaSplit64,
    DmaSplit256,
    DmaMerge,
}

/// Every faulty device.
pub const FAULTY: &[Kind] = &[
    Kind {
        name: "window-slides",
        description: "the receive window slides to a later PSN that arrives first, so SACKs claim PSNs that never arrived",
        breaks: "SETH-CACK-001",
        fault: Fault::WindowSlides,
    },
    Kind {
        name: "flag-before-data",
        description: "the completion flag is written before the last DMA write of its message",
        breaks: "FLAG-ORDER-001",
        fault: Fault::FlagBeforeData,
    },
    Kind {
        name: "go-back-n",
        description: "a retransmission resends every later outstanding packet too (go-back-N instead of selective)",
        breaks: "SND-RTX-004",
        fault: Fault::GoBackN,
    },
    Kind {
        name: "rtx-same-ev",
        description: "a retransmission reuses the EV the lost packet was sent on",
        breaks: "SND-RTX-002",
        fault: Fault::RetransmitSameEv,
    },
    Kind {
        name: "no-sack-timer",
        description: "no SACK timer: a packet that needs no immediate SACK is never acknowledged",
        breaks: "RCV-SACK-004",
        fault: Fault::NoSackTimer,
    },
    Kind {
        name: "icrc-ipv6",
        description: "the ICRC over IPv6 is computed without masking the traffic class and flow label",
        breaks: "ICRC-CALC-001",
        fault: Fault::BadIcrcIpv6,
    },
    Kind {
        name: "psn-wrap",
        description: "PSNs are compared as plain integers: after the wrap at 2^24 new packets are taken for duplicates",
        breaks: "BTH-PSN-002",
        fault: Fault::PsnWrap,
    },
    Kind {
        name: "shared-sequence-ignored",
        description: "retirement ignores the shared sequence and retires each QP on its own",
        breaks: "RET-ORDER-001",
        fault: Fault::IgnoresSharedSequence,
    },
    Kind {
        name: "write-after-flag",
        description: "a duplicate is placed again after its message's flag was written",
        breaks: "FLAG-LAST-001",
        fault: Fault::WriteAfterFlag,
    },
    Kind {
        name: "mpr-off-by-one",
        description: "the receive window is one PSN too large: epsn + window is accepted instead of NACKed",
        breaks: "RCV-WIN-002",
        fault: Fault::MprOffByOne,
    },
    Kind {
        name: "no-duplicate-ack",
        description: "a duplicate of a retired message gets a SACK but no transport ACK, so a lost ACK is never repaired",
        breaks: "RCV-DUP-002",
        fault: Fault::NoDuplicateAck,
    },
    Kind {
        name: "ipv4-checksum",
        description: "the IPv4 header checksum is computed once over the header template, before total_len is filled in, and never updated",
        breaks: "ENC-IPV4-003",
        fault: Fault::StaleIpv4Checksum,
    },
    Kind {
        name: "reserved-bits",
        description: "rtx is packed into BTH byte 8 bit 6, a reserved bit, instead of bit 5",
        breaks: "BTH-RESV-003",
        fault: Fault::RtxInReservedBit,
    },
    Kind {
        name: "flow-label-high-bits",
        description: "over IPv6 the flow label is filled with EV[19:0] instead of EV[15:0], so bits 19:16 are not 0",
        breaks: "ENC-EV-001",
        fault: Fault::FlowLabelHighBits,
    },
    Kind {
        name: "udp-checksum-v6",
        description: "the UDP checksum over IPv6 is computed with the addresses left out of the pseudo-header",
        breaks: "ENC-UDP-005",
        fault: Fault::UdpChecksumNoAddresses,
    },
    Kind {
        name: "stale-progress",
        description: "a Progress report carries the snd_una latched before the acknowledgement moved it, so the CPU half's timeout retransmits a PSN already acknowledged",
        breaks: "REC-IF-002",
        fault: Fault::StaleProgress,
    },
    Kind {
        name: "constant-rto",
        description: "the device's own CPU half never backs off: every timeout is rto, whatever backoff says",
        breaks: "REC-RTO-005",
        fault: Fault::ConstantRto,
    },
    Kind {
        name: "cq-phase-stuck",
        description: "completion entries always carry phase 1: after the ring wraps, a consumer cannot tell a new entry from the old one",
        breaks: "CQE-RING-001",
        fault: Fault::CqPhaseStuck,
    },
    Kind {
        name: "cqe-after-flag",
        description: "a completion entry is written after the flag of its message or work request, at either end, so a waiter that sees the flag may not find the entry yet",
        breaks: "ORD-SEND-001",
        fault: Fault::CqeAfterFlag,
    },
    Kind {
        name: "rtx-after-flag",
        description: "a retransmission queued for a message is still sent after the message's sender flag, reading a buffer the GPU already owns again",
        breaks: "ORD-SEND-002",
        fault: Fault::RtxAfterFlag,
    },
    Kind {
        name: "ipv4-checksum-unchecked",
        description: "the IPv4 header checksum is not verified: a packet whose header checksum is wrong is taken like any other",
        breaks: "ENC-IPV4-003",
        fault: Fault::Ipv4ChecksumUnchecked,
    },
    Kind {
        name: "endpoint-always-success",
        description: "every endpoint request is answered SUCCESS, an operation it does not implement included: a response with an undefined op and a status other than UNSUPPORTED_OP (it breaks EETH-STATUS-001 too)",
        breaks: "EETH-OP-002",
        fault: Fault::EndpointAlwaysSuccess,
    },
    Kind {
        name: "backups-sprayed",
        description: "backup EVs are sprayed over like primary ones, while primary EVs are usable",
        breaks: "SND-PATH-001",
        fault: Fault::BackupsSprayed,
    },
];

/// Every legitimate variant.
pub const VARIANTS: &[Kind] = &[
    Kind {
        name: "spray-random",
        description: "sprays packets over its EVs at random instead of round robin",
        breaks: "",
        fault: Fault::SprayRandom,
    },
    Kind {
        name: "sack-every-packet",
        description: "sends a SACK for every packet it accepts",
        breaks: "",
        fault: Fault::SackEveryPacket,
    },
    Kind {
        name: "sack-coalesce-8",
        description: "coalesces SACKs over 8 packets instead of 4",
        breaks: "",
        fault: Fault::SackCoalesce8,
    },
    Kind {
        name: "receiver-block",
        description: "a receiver without its completion engine: claims only responder, ipv4 \
                      and ipv6, and writes no flags, completions, transport ACKs or reports",
        breaks: "",
        fault: Fault::ReceiverBlock,
    },
    Kind {
        name: "token-only-doorbell",
        description: "a device whose harness passes doorbells only as whole tokens: claims \
                      everything but doorbell-bus",
        breaks: "",
        fault: Fault::TokenOnlyDoorbell,
    },
    Kind {
        name: "late",
        description: "every output (frames, DMA writes, flags, completions, reports) is \
                      produced half of late_ns later than the reference produces it \
                      (CONF-TIME-004)",
        breaks: "",
        fault: Fault::Late,
    },
    Kind {
        name: "dma-split-64",
        description: "DMA writes are cut at 64-byte address boundaries, the pieces issued \
                      highest address first (RCV-PLACE-003)",
        breaks: "",
        fault: Fault::DmaSplit64,
    },
    Kind {
        name: "dma-split-256",
        description: "DMA writes are cut at 256-byte address boundaries, the pieces issued \
                      in address order (RCV-PLACE-003)",
        breaks: "",
        fault: Fault::DmaSplit256,
    },
    Kind {
        name: "dma-merge",
        description: "a write-combining buffer holds a DMA write up to half of late_ns and \
                      merges the contiguous writes that follow it, flushing before any other \
                      output (RCV-PLACE-003)",
        breaks: "",
        fault: Fault::DmaMerge,
    },
];

/// Finds a faulty device or variant by name (`window-slides` or `spray-random`).
pub fn find(name: &str) -> Option<&'static Kind> {
    FAULTY.iter().chain(VARIANTS).find(|k| k.name == name)
}

/// The reference NIC with a fault.
#[derive(Debug)]
pub struct FaultyDevice {
    kind: &'static Kind,
    inner: ReferenceDevice,
    /// Highest PSN seen per QP (window-slides), or the last flag per message (write-after-flag).
    highest: HashMap<u32, u32>,
    /// EV of the last transmission per (QP, PSN).
    last_ev: HashMap<(u32, u32), Ev>,
    /// Frames sent, per (QP, PSN), for go-back-N.
    sent: Vec<(u64, u16, u32, u32, Vec<u8>)>,
    /// Last DMA write per (QP, MSN), for write-after-flag.
    last_dma: HashMap<(u32, Msn), NicEvent>,
    /// The next PSN expected per QP, seen from the inputs (psn-wrap, mpr-off-by-one).
    window: u32,
    /// The `snd_una` of each QP's previous `Progress` (stale-progress).
    last_una: HashMap<u32, Psn>,
    /// The peer QP of each device QP, and the last data packet sent per (peer QP, MSN)
    /// (rtx-after-flag).
    peers: HashMap<u32, u32>,
    last_data: HashMap<(u32, Msn), (u16, Vec<u8>)>,
    /// Outputs made later (late): due at their new time, in order.
    queue: std::collections::VecDeque<TimedOutput>,
    /// Half of the scenario's `late_ns` (late, dma-merge).
    half_late: u64,
}

impl FaultyDevice {
    /// A faulty device.
    pub fn new(kind: &'static Kind) -> Self {
        FaultyDevice {
            kind,
            inner: ReferenceDevice::new(),
            highest: HashMap::new(),
            last_ev: HashMap::new(),
            sent: Vec::new(),
            last_dma: HashMap::new(),
            window: 0,
            last_una: HashMap::new(),
            peers: HashMap::new(),
            last_data: HashMap::new(),
            queue: std::collections::VecDeque::new(),
            half_late: 0,
        }
    }

    fn distort_inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        let mut out = Vec::with_capacity(inputs.len());
        for mut i in inputs {
            match (&self.kind.fault, &mut i.input) {
                (Fault::PsnWrap, Input::Frame { bytes, .. }) => {
                    // Plain-integer comparison: a PSN numerically below the highest seen
                    // is "old" and dropped as a duplicate.
                    if let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) {
                        let q = b.dest_qp.value();
                        let p = b.psn.value();
                        let hi = self.highest.entry(q).or_insert(p);
                        if p < *hi && *hi - p > 1 << 20 {
                            continue;
                        }
                        *hi = (*hi).max(p);
                    }
                }
                (Fault::SprayRandom, Input::Host { command: HostCommand::CreateQp(q) }) => {
                    q.spray = SprayPolicy::Random;
                }
                (Fault::RtxAfterFlag, Input::Host { command: HostCommand::CreateQp(q) }) => {
                    self.peers.insert(q.qpn.value(), q.peer_qpn.value());
                }
                (Fault::Ipv4ChecksumUnchecked, Input::Frame { bytes, .. }) => {
                    // The header checksum is never looked at: as if it were right. (The
                    // ICRC masks it, so the frame stays otherwise sound.)
                    let d = decode(bytes);
                    if d.discard_reason() == Some("ENC-IPV4-003") {
                        if let Some(mut f) = d.to_repr() {
                            if let IpRepr::V4(v4) = &mut f.ip {
                                let _ = v4.fill_checksum();
                            }
                            if let Ok(b) = f.to_bytes() {
                                *bytes = b;
                            }
                        }
                    }
                }
                (Fault::BackupsSprayed, Input::Host { command: HostCommand::CreateQp(q) }) => {
                    let backups = std::mem::take(&mut q.backup_evs);
                    q.evs.extend(backups);
                }
                _ => {}
            }
            out.push(i);
        }
        out
    }

    fn distort_outputs(
        &mut self,
        outputs: Vec<TimedOutput>,
        inputs_at: &BTreeSet<u64>,
    ) -> Vec<TimedOutput> {
        let mut out: Vec<TimedOutput> = Vec::with_capacity(outputs.len());
        // cqe-after-flag: a completion held back until the flag that follows it is out.
        let mut held: Option<TimedOutput> = None;
        for mut o in outputs {
            if let (
                Fault::StaleProgress,
                Output::Event { event: NicEvent::Report(NicReport::Progress { qpn, snd_una, .. }) },
            ) = (&self.kind.fault, &mut o.output)
            {
                // The value latched before this acknowledgement moved it.
                let prev = self.last_una.insert(qpn.value(), *snd_una);
                *snd_una = prev.unwrap_or(*snd_una);
            }
            if self.kind.fault == Fault::CqeAfterFlag {
                match (&o.output, held.take()) {
                    (Output::Event { event: NicEvent::Completion(_) }, None) => {
                        held = Some(o);
                        continue;
                    }
                    (Output::Event { event: NicEvent::FlagWrite(f) }, Some(h)) => {
                        let same = matches!(&h.output, Output::Event { event: NicEvent::Completion(c) }
                            if c.side == f.side && c.entry.qpn == f.qpn && c.entry.msn == f.msn);
                        let (first, second) = if same { (o, h) } else { (h, o) };
                        out.push(first);
                        out.push(second);
                        continue;
                    }
                    (_, Some(h)) => out.push(h),
                    (_, None) => {}
                }
                if matches!(&o.output, Output::Event { event: NicEvent::Completion(_) }) {
                    held = Some(o);
                    continue;
                }
            }
            match (&self.kind.fault, &o.output) {
                (Fault::ReceiverBlock, Output::Event { event })
                    if !matches!(event, NicEvent::DmaWrite(_)) =>
                {
                    continue;
                }
                (Fault::ReceiverBlock, Output::Frame { bytes, .. })
                    if decode(bytes).bth.is_some_and(|b| b.opcode == Opcode::MRC_ACKNOWLEDGE) =>
                {
                    continue;
                }
                (Fault::WindowSlides, Output::Frame { bytes, port }) => {
                    let d = decode(bytes);
                    if let (Some(mut f), Some(b)) = (d.to_repr(), d.bth) {
                        if b.opcode == Opcode::MRC_SACK {
                            // The highest PSN received becomes the cumulative point.
                            if let Some(s) = f.ext.seth.as_mut() {
                                let top = s.iter_sacked().last();
                                if let Some(top) = top {
                                    s.cack_psn = top;
                                    s.sack_bitmap = 0;
                                    if let Ok(bytes) = refit(&mut f) {
                                        out.push(TimedOutput {
                                            at: o.at,
                                            output: Output::Frame { port: *port, bytes },
                                        });
                                        continue;
                                    }
                                }
                            }
                        }
                    }
                }
                (Fault::FlagBeforeData, Output::Event { event: NicEvent::FlagWrite(f) })
                    if f.side == Side::Responder =>
                {
                    // Move the flag before the last DMA write of its message, at that
                    // write's time: the flag is written first, and the outputs stay in
                    // time order, as a device gives them (CONF-DEV-002).
                    if let Some(k) = out.iter().rposition(|x| matches!(&x.output, Output::Event { event: NicEvent::DmaWrite(w) } if w.qpn == f.qpn && w.msn == f.msn)) {
                        out.insert(k, TimedOutput { at: out[k].at, output: o.output.clone() });
                        continue;
                    }
                }
                (Fault::GoBackN, Output::Frame { bytes, port }) => {
                    if let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) {
                        let (q, p) = (b.dest_qp.value(), b.psn.value());
                        if b.rtx {
                            out.push(o.clone());
                            // Resend every later packet of the QP as well.
                            let later: Vec<Vec<u8>> = self
                                .sent
                                .iter()
                                .filter(|s| s.2 == q && Psn::new(s.3).is_after(Psn::new(p)))
                                .map(|s| s.4.clone())
                                .collect();
                            for l in later {
                                if let Some(mut f) = decode(&l).to_repr() {
                                    f.bth.rtx = true;
                                    if let Ok(bytes) = refit(&mut f) {
                                        out.push(TimedOutput {
                                            at: o.at,
                                            output: Output::Frame { port: *port, bytes },
                                        });
                                    }
                                }
                            }
                            continue;
                        }
                        self.sent.push((o.at.0, *port, q, p, bytes.clone()));
                    }
                }
                (Fault::RetransmitSameEv, Output::Frame { bytes, port }) => {
                    let d = decode(bytes);
                    if let (Some(b), Some(ev)) =
                        (d.bth.filter(|b| b.opcode.is_mrc_write()), d.entropy())
                    {
                        let key = (b.dest_qp.value(), b.psn.value());
                        if b.rtx {
                            if let (Some(&prev), Some(mut f)) =
                                (self.last_ev.get(&key), d.to_repr())
                            {
                                f.set_entropy(prev);
                                if let Ok(bytes) = refit(&mut f) {
                                    out.push(TimedOutput {
                                        at: o.at,
                                        output: Output::Frame { port: *port, bytes },
                                    });
                                    continue;
                                }
                            }
                        } else {
                            self.last_ev.insert(key, ev);
                        }
                    }
                }
                (Fault::NoSackTimer, Output::Frame { bytes, .. }) => {
                    // A SACK produced at a time when nothing arrived came from the timer.
                    let is_sack = decode(bytes).bth.is_some_and(|b| b.opcode == Opcode::MRC_SACK);
                    if is_sack && !inputs_at.contains(&o.at.0) {
                        continue;
                    }
                }
                (Fault::BadIcrcIpv6, Output::Frame { bytes, port }) => {
                    let d = decode(bytes);
                    if let (Some(IpRepr::V6(_)), Some(at)) = (&d.ip, d.layout.ip) {
                        // Checksum over the unmasked IPv6 header: wrong whenever the traffic
                        // class or flow label is non-zero... and the flow label carries the EV.
                        let end = d.layout.icrc.unwrap_or(bytes.len());
                        let mut h = crc32fast::Hasher::new();
                        h.update(&[0xFF; 8]);
                        h.update(&bytes[at..end]);
                        let crc = h.finalize();
                        let mut b = bytes.clone();
                        b[end..end + 4].copy_from_slice(&crc.to_le_bytes());
                        out.push(TimedOutput {
                            at: o.at,
                            output: Output::Frame { port: *port, bytes: b },
                        });
                        continue;
                    }
                }
                (
                    Fault::StaleIpv4Checksum
                    | Fault::RtxInReservedBit
                    | Fault::FlowLabelHighBits
                    | Fault::UdpChecksumNoAddresses,
                    Output::Frame { bytes, port },
                ) => {
                    if let Some(b) = encoder_bug(self.kind.fault, bytes) {
                        out.push(TimedOutput {
                            at: o.at,
                            output: Output::Frame { port: *port, bytes: b },
                        });
                        continue;
                    }
                }
                (Fault::RtxAfterFlag, Output::Frame { bytes, port }) => {
                    let d = decode(bytes);
                    if let (Some(b), Some(m)) = (d.bth, d.ext.meth) {
                        if b.opcode.is_mrc_write() {
                            let key = (b.dest_qp.value(), m.msn);
                            self.last_data.insert(key, (*port, bytes.clone()));
                        }
                    }
                }
                (Fault::RtxAfterFlag, Output::Event { event: NicEvent::FlagWrite(f) })
                    if f.side == Side::Requester =>
                {
                    // The message's last packet goes out once more, as a retransmission on
                    // another EV, after the flag.
                    out.push(o.clone());
                    let peer = self.peers.get(&f.qpn.value()).copied().unwrap_or(0);
                    let again = self.last_data.get(&(peer, f.msn)).and_then(|(port, b)| {
                        let d = decode(b);
                        let mut r = d.to_repr()?;
                        r.bth.rtx = true;
                        r.set_entropy(Ev::new(d.entropy()?.value() ^ 0x0001_0000));
                        r.reseal().ok()?;
                        r.to_bytes().ok().map(|bytes| (*port, bytes))
                    });
                    if let Some((port, bytes)) = again {
                        out.push(TimedOutput { at: o.at, output: Output::Frame { port, bytes } });
                    }
                    continue;
                }
                (Fault::WriteAfterFlag, Output::Event { event: NicEvent::DmaWrite(w) }) => {
                    self.last_dma.insert((w.qpn.value(), w.msn), NicEvent::DmaWrite(w.clone()));
                }
                (Fault::WriteAfterFlag, Output::Event { event: NicEvent::FlagWrite(f) })
                    if f.side == Side::Responder =>
                {
                    out.push(o.clone());
                    if let Some(dma) = self.last_dma.get(&(f.qpn.value(), f.msn)) {
                        out.push(TimedOutput {
                            at: o.at,
                            output: Output::Event { event: dma.clone() },
                        });
                    }
                    continue;
                }
                (Fault::MprOffByOne, Output::Frame { bytes, .. }) => {
                    // The NACK for exactly epsn + window is not sent: the packet was "accepted".
                    let d = decode(bytes);
                    if let (Some(n), Some(_)) = (d.ext.neth, d.bth) {
                        if n.reason == NackReason::PSN_OOR_WINDOW {
                            continue;
                        }
                    }
                }
                (Fault::CqPhaseStuck, Output::Event { event: NicEvent::Completion(c) }) => {
                    if let Some(q) = c.queue {
                        // The owner byte's phase bit is written as 1 on every pass.
                        let mut c = *c;
                        c.entry.phase = true;
                        let mut bytes = q.bytes;
                        bytes[COMPLETION_LEN - 1] |= CQE_OWNER_PHASE;
                        c.queue = Some(CqWrite { bytes, ..q });
                        out.push(TimedOutput {
                            at: o.at,
                            output: Output::Event { event: NicEvent::Completion(c) },
                        });
                        continue;
                    }
                }
                (Fault::EndpointAlwaysSuccess, Output::Frame { bytes, port }) => {
                    let d = decode(bytes);
                    if let Some(mut f) = d.to_repr().filter(|f| f.ext.eeth.is_some()) {
                        if let Some(e) = f.ext.eeth.as_mut() {
                            e.status = 0;
                        }
                        if let Ok(bytes) = f.reseal().and_then(|()| f.to_bytes()) {
                            out.push(TimedOutput {
                                at: o.at,
                                output: Output::Frame { port: *port, bytes },
                            });
                            continue;
                        }
                    }
                }
                (Fault::NoDuplicateAck, Output::Frame { bytes, .. }) => {
                    // Transport ACKs sent in answer to duplicates (at a time when no new
                    // message retired) are lost to the bug: drop ACKs that repeat an MSN.
                    let d = decode(bytes);
                    if let (Some(b), Some(a)) = (d.bth, d.ext.aeth) {
                        if b.opcode == Opcode::MRC_ACKNOWLEDGE {
                            let q = b.dest_qp.value();
                            let prev = self.highest.insert(q, a.msn.value());
                            if prev == Some(a.msn.value()) {
                                continue;
                            }
                        }
                    }
                }
                _ => {}
            }
            out.push(o);
        }
        out.extend(held);
        out
    }
}

/// The frame `bytes` as an encoder with the bug `fault` writes it, or `None` where the bug
/// does not show.
fn encoder_bug(fault: Fault, bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    match (fault, &mut f.ip) {
        (Fault::StaleIpv4Checksum, IpRepr::V4(v4)) => {
            // The checksum of the template (total_len 0); the ICRC masks it, so it stays.
            let mut template = v4.clone();
            template.total_len = 0;
            template.fill_checksum().ok()?;
            v4.checksum = template.checksum;
            f.icrc = None;
            f.to_bytes().ok()
        }
        (Fault::RtxInReservedBit, _) if f.bth.rtx => {
            f.bth.rtx = false;
            f.bth.resv8 |= 0x40;
            refit(&mut f).ok()
        }
        (Fault::FlowLabelHighBits, IpRepr::V6(v6)) => {
            // EV[19:16] is the low nibble of the source port (EV[31:16]).
            let ev_19_16 = u32::from(f.udp.src_port & 0xF);
            if ev_19_16 == 0 {
                return None;
            }
            v6.flow_label = ev_19_16 << 16 | (v6.flow_label & 0xFFFF);
            refit(&mut f).ok()
        }
        (Fault::UdpChecksumNoAddresses, IpRepr::V6(_)) => {
            f.finalize().ok()?;
            let unspecified = std::net::Ipv6Addr::UNSPECIFIED;
            let n = usize::from(f.udp.length);
            f.udp.checksum = 0;
            let b = f.to_bytes().ok()?;
            let udp_at = b.len() - f.eth_padding.len() - n;
            f.udp.checksum = openrdma_codec::UdpRepr::compute_checksum_v6(
                unspecified,
                unspecified,
                &b[udp_at..udp_at + n],
            );
            f.to_bytes().ok()
        }
        _ => None,
    }
}

/// DMA writes cut at `size`-byte address boundaries, the pieces in descending address
/// order when `descending`.
fn split_dma(outputs: Vec<TimedOutput>, size: u64, descending: bool) -> Vec<TimedOutput> {
    let mut out = Vec::with_capacity(outputs.len());
    for o in outputs {
        let Output::Event { event: NicEvent::DmaWrite(w) } = &o.output else {
            out.push(o);
            continue;
        };
        let bytes = payload_bytes(&w.payload);
        let mut pieces = Vec::new();
        let mut pos = 0usize;
        while pos < bytes.len() {
            let va = w.va + pos as u64;
            let room = (size - va % size) as usize;
            let end = bytes.len().min(pos + room);
            let mut piece = w.clone();
            piece.va = va;
            piece.payload = Payload::Bytes(bytes[pos..end].into());
            pieces.push(TimedOutput {
                at: o.at,
                output: Output::Event { event: NicEvent::DmaWrite(piece) },
            });
            pos = end;
        }
        if pieces.len() <= 1 {
            out.push(o);
            continue;
        }
        if descending {
            pieces.reverse();
        }
        out.extend(pieces);
    }
    out
}

/// A write-combining buffer: a DMA write is held up to `hold` ns and takes in the
/// contiguous DMA writes that follow it; any other output, a write that does not continue
/// it, or the end of the batch flushes it. A merged write is visible when its last part is.
fn merge_dma(outputs: Vec<TimedOutput>, hold: u64) -> Vec<TimedOutput> {
    let mut out = Vec::with_capacity(outputs.len());
    let mut held: Option<(u64, TimedOutput, Vec<u8>)> = None;
    let flush = |held: &mut Option<(u64, TimedOutput, Vec<u8>)>, out: &mut Vec<TimedOutput>| {
        if let Some((_, mut o, bytes)) = held.take() {
            if let Output::Event { event: NicEvent::DmaWrite(w) } = &mut o.output {
                w.payload = Payload::Bytes(bytes.into());
            }
            out.push(o);
        }
    };
    for o in outputs {
        let Output::Event { event: NicEvent::DmaWrite(w) } = &o.output else {
            flush(&mut held, &mut out);
            out.push(o);
            continue;
        };
        if let Some((deadline, h, bytes)) = held.as_mut() {
            let continues = matches!(&h.output, Output::Event { event: NicEvent::DmaWrite(p) }
                if p.va + bytes.len() as u64 == w.va);
            if continues && o.at.0 <= *deadline {
                bytes.extend(payload_bytes(&w.payload));
                h.at = o.at;
                continue;
            }
        }
        flush(&mut held, &mut out);
        let bytes = payload_bytes(&w.payload);
        held = Some((o.at.0 + hold, o, bytes));
    }
    flush(&mut held, &mut out);
    out
}

fn payload_bytes(p: &Payload) -> Vec<u8> {
    match p {
        Payload::Bytes(b) => b.to_vec(),
        Payload::Host { addr, len } => openrdma_device::memory(*addr, *len),
    }
}

/// A changed frame made consistent again (lengths, checksums, ICRC) and emitted: the
/// faulty hardware's encoder is right; only the one bug is wrong.
fn refit(f: &mut FrameRepr) -> Result<Vec<u8>, openrdma_codec::EmitError> {
    f.finalize()?;
    f.to_bytes()
}

impl Device for FaultyDevice {
    fn name(&self) -> String {
        let class = if self.kind.breaks.is_empty() { "variant" } else { "faulty" };
        format!("{class}:{}", self.kind.name)
    }

    fn capabilities(&self) -> BTreeSet<Capability> {
        match self.kind.fault {
            Fault::ReceiverBlock => {
                [Capability::Responder, Capability::Ipv4, Capability::Ipv6].into_iter().collect()
            }
            Fault::TokenOnlyDoorbell => {
                let mut caps = self.inner.capabilities();
                caps.remove(&Capability::DoorbellBus);
                caps
            }
            // Random spraying is legitimate, but not the policy its QPs name: it cannot
            // claim to spray as they say (CONF-GEN-008).
            Fault::SprayRandom => {
                let mut caps = self.inner.capabilities();
                caps.remove(&Capability::SprayPolicies);
                caps
            }
            _ => self.inner.capabilities(),
        }
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        let mut m = manifest.clone();
        match self.kind.fault {
            Fault::IgnoresSharedSequence => m.nic.retirement = RetirementMode::PerQp,
            Fault::SackEveryPacket => m.nic.sack_coalesce = 1,
            Fault::SackCoalesce8 => m.nic.sack_coalesce = 8,
            Fault::ConstantRto => m.recovery.backoff = 1,
            _ => {}
        }
        self.window = m.nic.window();
        self.highest.clear();
        self.last_ev.clear();
        self.sent.clear();
        self.last_dma.clear();
        self.last_una.clear();
        self.peers.clear();
        self.last_data.clear();
        self.queue.clear();
        self.half_late = m.tolerances.late_ns / 2;
        self.inner.start(&m)
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        let inputs_at: BTreeSet<u64> = inputs.iter().map(|i| i.at.0).collect();
        let inputs = self.distort_inputs(inputs);
        let out = self.inner.advance(inputs, until)?;
        let out = self.distort_outputs(out, &inputs_at);
        Ok(match self.kind.fault {
            Fault::Late => {
                // Each output half of late_ns later, in order; what is due after `until`
                // waits for a later batch.
                let d = self.half_late;
                self.queue.extend(
                    out.into_iter().map(|o| TimedOutput { at: Timestamp(o.at.0 + d), ..o }),
                );
                let n = self.queue.iter().take_while(|o| o.at <= until).count();
                self.queue.drain(..n).collect()
            }
            Fault::DmaSplit64 => split_dma(out, 64, true),
            Fault::DmaSplit256 => split_dma(out, 256, false),
            Fault::DmaMerge => merge_dma(out, self.half_late),
            _ => out,
        })
    }
}
