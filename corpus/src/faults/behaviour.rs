//! Faults of behaviour: a protocol engine of the device gets one rule wrong.
//!
//! Each is the reference NIC with one bug that a real NIC could have, made by distorting
//! what the NIC is given (its configuration or its inputs) or what it produces, the way the
//! buggy hardware would behave at its boundary.

use std::collections::HashMap;

use openrdma_codec::frame::{IpRepr, decode};
use openrdma_codec::host::{COMPLETION_LEN, CQE_OWNER_PHASE};
use openrdma_codec::{Ev, Msn, NackReason, Opcode, Psn, Qpn};
use openrdma_conformance::req;
use openrdma_device::{
    HostCommand, Input, NicEvent, NicReport, Output, RetirementMode, Side, TimedInput, TimedOutput,
};

use super::qps::Qps;
use super::{Batch, Edits, Fault, Stream, fault, refit};

/// Every fault of behaviour.
pub static FAULTS: &[Fault] = &[
    fault(
        "window-slides",
        "the receive window slides to a later PSN that arrives first, so SACKs claim PSNs that never arrived",
        &[req::SETH_CACK_001, req::RCV_SACK_005_B, req::RCV_WIN_003],
        &["rcv-last-packet-first", "rcv-psn-wrap"],
        Edits { frame_out: Some(window_slides), ..Edits::NONE },
    ),
    fault(
        "flag-before-data",
        "the completion flag is written before the last DMA write of its message",
        &[req::FLAG_ORDER_001],
        &["rcv-in-order-v4"],
        Edits { stream: Some(|_| Box::new(FlagBeforeData)), ..Edits::NONE },
    ),
    fault(
        "go-back-n",
        "a retransmission resends every later outstanding packet too (go-back-N instead of selective)",
        &[req::SND_RTX_004],
        &["snd-single-loss"],
        Edits { stream: Some(|_| Box::<GoBackN>::default()), ..Edits::NONE },
    ),
    fault(
        "rtx-same-ev",
        "a retransmission reuses the EV the lost packet was sent on",
        &[req::SND_RTX_002],
        &["snd-single-loss"],
        Edits { stream: Some(|_| Box::<SameEv>::default()), ..Edits::NONE },
    ),
    fault(
        "no-sack-timer",
        "no SACK timer: a packet that needs no immediate SACK is never acknowledged",
        &[req::RCV_SACK_004],
        &["rcv-sack-timer"],
        Edits { stream: Some(|_| Box::new(NoSackTimer)), ..Edits::NONE },
    ),
    fault(
        "icrc-ipv6",
        "the ICRC over IPv6 is computed with no field masked",
        &[req::ICRC_MASK_001],
        &["rcv-in-order-v6"],
        Edits { frame_out: Some(icrc_unmasked_v6), ..Edits::NONE },
    ),
    fault(
        "psn-wrap",
        "PSNs are compared as plain integers: after the wrap at 2^24 new packets are taken for duplicates",
        &[req::BTH_PSN_002, req::RCV_WIN_001],
        &["rcv-psn-wrap"],
        Edits { stream: Some(|_| Box::<PsnWrap>::default()), ..Edits::NONE },
    ),
    fault(
        "shared-sequence-ignored",
        "retirement ignores the shared sequence and retires each QP on its own",
        // A QP's messages retire before the other QPs' messages ahead of them, so the packet
        // of another QP that should retire them causes no ACK of theirs.
        &[req::RET_ORDER_001, req::RCV_ACK_003_B],
        &[],
        Edits { config: Some(|m| m.nic.retirement = RetirementMode::PerQp), ..Edits::NONE },
    ),
    fault(
        "write-after-flag",
        "a duplicate is placed again after its message's flag was written",
        &[req::FLAG_LAST_001],
        &["rcv-in-order-v4"],
        Edits { stream: Some(|_| Box::<WriteAfterFlag>::default()), ..Edits::NONE },
    ),
    fault(
        "mpr-off-by-one",
        "the receive window is one PSN too large: epsn + window is accepted instead of NACKed",
        &[req::RCV_WIN_002],
        &["rcv-window-edges"],
        Edits { keep_out: Some(no_window_nack), ..Edits::NONE },
    ),
    fault(
        "no-duplicate-ack",
        "a duplicate of a retired message gets a SACK but no transport ACK, so a lost ACK is never repaired",
        &[req::RCV_DUP_002],
        &["rcv-lost-ack"],
        Edits { stream: Some(|_| Box::<NoDuplicateAck>::default()), ..Edits::NONE },
    ),
    fault(
        "ipv4-checksum",
        "the IPv4 header checksum is computed once over the header template, before total_len is filled in, and never updated",
        &[req::ENC_IPV4_003],
        &["rcv-in-order-v4"],
        Edits { frame_out: Some(stale_ipv4_checksum), ..Edits::NONE },
    ),
    fault(
        "reserved-bits",
        "rtx is packed into BTH byte 8 bit 6, a reserved bit, instead of bit 5",
        &[req::BTH_RESV_003],
        &["snd-single-loss"],
        Edits { frame_out: Some(rtx_in_reserved_bit), ..Edits::NONE },
    ),
    fault(
        "flow-label-high-bits",
        "over IPv6 the flow label is filled with EV[19:0] instead of EV[15:0], so bits 19:16 are not 0",
        &[req::ENC_EV_001],
        &["rcv-in-order-v6"],
        Edits { frame_out: Some(flow_label_high_bits), ..Edits::NONE },
    ),
    fault(
        "udp-checksum-v6",
        "the UDP checksum over IPv6 is computed with the addresses left out of the pseudo-header",
        &[req::ENC_UDP_005],
        &["rcv-in-order-v6"],
        Edits { frame_out: Some(udp_checksum_no_addresses), ..Edits::NONE },
    ),
    fault(
        "stale-progress",
        "a Progress report carries the snd_una latched before the acknowledgement moved it, so the CPU half's timeout retransmits a PSN already acknowledged",
        &[req::REC_IF_002],
        &["rec-split-timeout"],
        Edits { stream: Some(|_| Box::<StaleProgress>::default()), ..Edits::NONE },
    ),
    fault(
        "progress-qpn-latched",
        "the report builder latches the QPN of the first Progress of an instant: a second QP's Progress at that instant carries the first QP's number, and the second QP's timer runs on",
        &[req::REC_IF_002],
        &["rec-split-two-qps"],
        Edits { stream: Some(|_| Box::new(ProgressQpnLatched)), ..Edits::NONE },
    ),
    fault(
        "constant-rto",
        "the device's own CPU half never backs off: every timeout is rto, whatever backoff says",
        &[req::REC_RTO_005],
        &["rec-device-backoff"],
        Edits { config: Some(|m| m.recovery.backoff = 1), ..Edits::NONE },
    ),
    fault(
        "cq-phase-stuck",
        "completion entries always carry phase 1: after the ring wraps, a consumer cannot tell a new entry from the old one",
        &[req::CQE_RING_001],
        &["ret-cq-wrap"],
        Edits { event_out: Some(cq_phase_stuck), ..Edits::NONE },
    ),
    fault(
        "cqe-after-flag",
        "a completion entry is written after the flag of its message or work request, at either end, so a waiter that sees the flag may not find the entry yet",
        &[req::ORD_SEND_001],
        &["snd-segmentation"],
        Edits { stream: Some(|_| Box::new(CqeAfterFlag)), ..Edits::NONE },
    ),
    fault(
        "rtx-after-flag",
        "a retransmission queued for a message is still sent after the message's sender flag, reading a buffer the GPU already owns again",
        &[req::ORD_SEND_002],
        &["snd-segmentation"],
        Edits { stream: Some(|_| Box::<RtxAfterFlag>::default()), ..Edits::NONE },
    ),
    fault(
        "ipv4-checksum-unchecked",
        "the IPv4 header checksum is not verified: a packet whose header checksum is wrong is taken like any other",
        &[req::ENC_IPV4_003],
        &["wire-discard-v4"],
        Edits { frame_in: Some(ipv4_checksum_unchecked), ..Edits::NONE },
    ),
    fault(
        "endpoint-always-success",
        "every endpoint request is answered SUCCESS, an operation it does not implement included: a response with an undefined op and a status other than UNSUPPORTED_OP (it breaks EETH-STATUS-001 too)",
        &[req::EETH_OP_002],
        &["rcv-endpoint"],
        Edits { frame_out: Some(endpoint_always_success), ..Edits::NONE },
    ),
    fault(
        "backups-sprayed",
        "backup EVs are sprayed over like primary ones, while primary EVs are usable",
        &[req::SND_PATH_001],
        &["snd-spray-round-robin"],
        Edits { host_in: Some(backups_sprayed), ..Edits::NONE },
    ),
];

// ---- stateless edits --------------------------------------------------------------------

/// The highest PSN received becomes the cumulative point of a SACK.
fn window_slides(bytes: &[u8]) -> Option<Vec<u8>> {
    let d = decode(bytes);
    let mut f = d.to_repr()?;
    if d.bth?.opcode != Opcode::MRC_SACK {
        return None;
    }
    let s = f.ext.seth.as_mut()?;
    let top = s.iter_sacked().last()?;
    s.cack_psn = top;
    s.sack_bitmap = 0;
    refit(&mut f).ok()
}

/// The ICRC over the unmasked IPv6 header: wrong whenever the traffic class or flow label
/// is non-zero, and the flow label carries the EV.
fn icrc_unmasked_v6(bytes: &[u8]) -> Option<Vec<u8>> {
    let d = decode(bytes);
    let (Some(IpRepr::V6(_)), Some(at)) = (&d.ip, d.layout.ip) else { return None };
    let end = d.layout.icrc.unwrap_or(bytes.len());
    let mut h = crc32fast::Hasher::new();
    h.update(&[0xFF; 8]);
    h.update(&bytes[at..end]);
    let crc = h.finalize();
    let mut b = bytes.to_vec();
    b[end..end + 4].copy_from_slice(&crc.to_le_bytes());
    Some(b)
}

/// The NACK for exactly epsn + window is not sent: the packet was "accepted".
fn no_window_nack(o: &Output) -> bool {
    let Output::Frame { bytes, .. } = o else { return true };
    let d = decode(bytes);
    !matches!((d.ext.neth, d.bth), (Some(n), Some(_)) if n.reason == NackReason::PSN_OOR_WINDOW)
}

/// The checksum of the template (total_len 0); the ICRC masks it, so it stays.
fn stale_ipv4_checksum(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    let IpRepr::V4(v4) = &mut f.ip else { return None };
    let mut template = v4.clone();
    template.total_len = 0;
    template.fill_checksum().ok()?;
    v4.checksum = template.checksum;
    f.icrc = None;
    f.to_bytes().ok()
}

fn rtx_in_reserved_bit(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    if !f.bth.rtx {
        return None;
    }
    f.bth.rtx = false;
    f.bth.resv8 |= 0x40;
    refit(&mut f).ok()
}

fn flow_label_high_bits(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    // EV[19:16] is the low nibble of the source port (EV[31:16]).
    let ev_19_16 = u32::from(f.udp.src_port & 0xF);
    let IpRepr::V6(v6) = &mut f.ip else { return None };
    if ev_19_16 == 0 {
        return None;
    }
    v6.flow_label = ev_19_16 << 16 | (v6.flow_label & 0xFFFF);
    refit(&mut f).ok()
}

fn udp_checksum_no_addresses(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    if !matches!(f.ip, IpRepr::V6(_)) {
        return None;
    }
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

/// The owner byte's phase bit is written as 1 on every pass.
fn cq_phase_stuck(e: &mut NicEvent) -> bool {
    if let NicEvent::Completion(c) = e {
        if let Some(q) = c.queue.as_mut() {
            c.entry.phase = true;
            q.bytes[COMPLETION_LEN - 1] |= CQE_OWNER_PHASE;
        }
    }
    true
}

/// The header checksum is never looked at: as if it were right. (The ICRC masks it, so the
/// frame stays otherwise sound.)
fn ipv4_checksum_unchecked(bytes: &[u8]) -> Option<Vec<u8>> {
    let d = decode(bytes);
    if d.discard_reason() != Some("ENC-IPV4-003") {
        return None;
    }
    let mut f = d.to_repr()?;
    if let IpRepr::V4(v4) = &mut f.ip {
        let _ = v4.fill_checksum();
    }
    f.to_bytes().ok()
}

fn endpoint_always_success(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr().filter(|f| f.ext.eeth.is_some())?;
    f.ext.eeth.as_mut()?.status = 0;
    f.reseal().and_then(|()| f.to_bytes()).ok()
}

fn backups_sprayed(command: &mut HostCommand) {
    if let HostCommand::CreateQp(q) = command {
        let backups = std::mem::take(&mut q.backup_evs);
        q.evs.extend(backups);
    }
}

// ---- streams ----------------------------------------------------------------------------

/// Each responder flag moved before the last DMA write of its message, at that write's
/// time: the flag is written first, and the outputs stay in time order, as a device gives
/// them (CONF-DEV-002).
#[derive(Debug)]
struct FlagBeforeData;

impl Stream for FlagBeforeData {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out: Vec<TimedOutput> = Vec::with_capacity(outputs.len());
        for o in outputs {
            if let Output::Event { event: NicEvent::FlagWrite(f) } = &o.output {
                if f.side == Side::Responder {
                    let last = out.iter().rposition(|x| matches!(&x.output, Output::Event { event: NicEvent::DmaWrite(w) } if w.qpn == f.qpn && w.msn == f.msn));
                    if let Some(k) = last {
                        out.insert(k, TimedOutput { at: out[k].at, output: o.output });
                        continue;
                    }
                }
            }
            out.push(o);
        }
        out
    }
}

/// Frames sent, per (QP, PSN): a retransmission sends every later one of its QP again.
#[derive(Debug, Default)]
struct GoBackN {
    sent: Vec<(u32, u32, Vec<u8>)>,
}

impl Stream for GoBackN {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            if let Output::Frame { bytes, port } = &o.output {
                if let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) {
                    let (q, p) = (b.dest_qp.value(), b.psn.value());
                    if b.rtx {
                        let (at, port) = (o.at, *port);
                        out.push(o);
                        let later = self
                            .sent
                            .iter()
                            .filter(|s| s.0 == q && Psn::new(s.1).is_after(Psn::new(p)));
                        for (_, _, l) in later {
                            if let Some(mut f) = decode(l).to_repr() {
                                f.bth.rtx = true;
                                if let Ok(bytes) = refit(&mut f) {
                                    out.push(TimedOutput {
                                        at,
                                        output: Output::Frame { port, bytes },
                                    });
                                }
                            }
                        }
                        continue;
                    }
                    self.sent.push((q, p, bytes.clone()));
                }
            }
            out.push(o);
        }
        out
    }
}

/// The EV of the last transmission per (QP, PSN): a retransmission takes it again.
#[derive(Debug, Default)]
struct SameEv {
    last_ev: HashMap<(u32, u32), Ev>,
}

impl Stream for SameEv {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let d = decode(bytes);
            let (Some(b), Some(ev)) = (d.bth.filter(|b| b.opcode.is_mrc_write()), d.entropy())
            else {
                continue;
            };
            let key = (b.dest_qp.value(), b.psn.value());
            if !b.rtx {
                self.last_ev.insert(key, ev);
                continue;
            }
            if let (Some(&prev), Some(mut f)) = (self.last_ev.get(&key), d.to_repr()) {
                f.set_entropy(prev);
                if let Ok(b) = refit(&mut f) {
                    *bytes = b;
                }
            }
        }
        outputs
    }
}

/// A SACK produced at a time when nothing arrived came from the timer: lost.
#[derive(Debug)]
struct NoSackTimer;

impl Stream for NoSackTimer {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        outputs.retain(|o| {
            let Output::Frame { bytes, .. } = &o.output else { return true };
            let is_sack = decode(bytes).bth.is_some_and(|b| b.opcode == Opcode::MRC_SACK);
            !is_sack || batch.inputs_at.contains(&o.at.0)
        });
        outputs
    }
}

/// Plain-integer comparison: a PSN numerically below the highest seen is "old" and
/// dropped as a duplicate.
#[derive(Debug, Default)]
struct PsnWrap {
    highest: HashMap<u32, u32>,
}

impl Stream for PsnWrap {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        inputs.retain(|i| {
            let Input::Frame { bytes, .. } = &i.input else { return true };
            let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) else {
                return true;
            };
            let (q, p) = (b.dest_qp.value(), b.psn.value());
            let hi = self.highest.entry(q).or_insert(p);
            if p < *hi && *hi - p > 1 << 20 {
                return false;
            }
            *hi = (*hi).max(p);
            true
        });
        inputs
    }
}

/// The last DMA write per (QP, MSN), written again after the message's flag.
#[derive(Debug, Default)]
struct WriteAfterFlag {
    last_dma: HashMap<(u32, Msn), NicEvent>,
}

impl Stream for WriteAfterFlag {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let at = o.at;
            let again = match &o.output {
                Output::Event { event: NicEvent::DmaWrite(w) } => {
                    self.last_dma.insert((w.qpn.value(), w.msn), NicEvent::DmaWrite(w.clone()));
                    None
                }
                Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Responder => {
                    self.last_dma.get(&(f.qpn.value(), f.msn)).cloned()
                }
                _ => None,
            };
            out.push(o);
            if let Some(event) = again {
                out.push(TimedOutput { at, output: Output::Event { event } });
            }
        }
        out
    }
}

/// Transport ACKs sent in answer to duplicates (at a time when no new message retired) are
/// lost to the bug: ACKs that repeat their QP's last MSN are dropped.
#[derive(Debug, Default)]
struct NoDuplicateAck {
    last_msn: HashMap<u32, u32>,
}

impl Stream for NoDuplicateAck {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs.retain(|o| {
            let Output::Frame { bytes, .. } = &o.output else { return true };
            let d = decode(bytes);
            let (Some(b), Some(a)) = (d.bth, d.ext.aeth) else { return true };
            if b.opcode != Opcode::MRC_ACKNOWLEDGE {
                return true;
            }
            let prev = self.last_msn.insert(b.dest_qp.value(), a.msn.value());
            prev != Some(a.msn.value())
        });
        outputs
    }
}

/// A Progress report carries the value latched before this acknowledgement moved it.
#[derive(Debug, Default)]
struct StaleProgress {
    last_una: HashMap<u32, Psn>,
}

impl Stream for StaleProgress {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            if let Output::Event {
                event: NicEvent::Report(NicReport::Progress { qpn, snd_una, .. }),
            } = &mut o.output
            {
                let prev = self.last_una.insert(qpn.value(), *snd_una);
                *snd_una = prev.unwrap_or(*snd_una);
            }
        }
        outputs
    }
}

/// Every Progress report of an instant carries the QPN of the first one.
#[derive(Debug)]
struct ProgressQpnLatched;

impl Stream for ProgressQpnLatched {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut first: HashMap<u64, Qpn> = HashMap::new();
        for o in &mut outputs {
            if let Output::Event { event: NicEvent::Report(NicReport::Progress { qpn, .. }) } =
                &mut o.output
            {
                *qpn = *first.entry(o.at.0).or_insert(*qpn);
            }
        }
        outputs
    }
}

/// A completion held back until the flag that follows it is out.
#[derive(Debug)]
pub(super) struct CqeAfterFlag;

impl Stream for CqeAfterFlag {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let is_cqe =
            |o: &TimedOutput| matches!(&o.output, Output::Event { event: NicEvent::Completion(_) });
        let mut out = Vec::with_capacity(outputs.len());
        let mut held: Option<TimedOutput> = None;
        for o in outputs {
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
            if is_cqe(&o) {
                held = Some(o);
                continue;
            }
            out.push(o);
        }
        out.extend(held);
        out
    }
}

/// The QPs created, and the last data packet sent per (peer QP, MSN): the message's last
/// packet goes out once more, as a retransmission on another EV, after the sender flag.
#[derive(Debug, Default)]
struct RtxAfterFlag {
    qps: Qps,
    last_data: HashMap<(u32, Msn), (u16, Vec<u8>)>,
}

impl Stream for RtxAfterFlag {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        self.qps.learn_all(&inputs);
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let at = o.at;
            let mut again = None;
            match &o.output {
                Output::Frame { bytes, port } => {
                    let d = decode(bytes);
                    if let (Some(b), Some(m)) = (d.bth, d.ext.meth) {
                        if b.opcode.is_mrc_write() {
                            self.last_data
                                .insert((b.dest_qp.value(), m.msn), (*port, bytes.clone()));
                        }
                    }
                }
                Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Requester => {
                    let peer = self.qps.peer(f.qpn.value()).unwrap_or(0);
                    again = self.last_data.get(&(peer, f.msn)).and_then(|(port, b)| {
                        let d = decode(b);
                        let mut r = d.to_repr()?;
                        r.bth.rtx = true;
                        r.set_entropy(Ev::new(d.entropy()?.value() ^ 0x0001_0000));
                        r.reseal().ok()?;
                        r.to_bytes().ok().map(|bytes| (*port, bytes))
                    });
                }
                _ => {}
            }
            out.push(o);
            if let Some((port, bytes)) = again {
                out.push(TimedOutput { at, output: Output::Frame { port, bytes } });
            }
        }
        out
    }
}
