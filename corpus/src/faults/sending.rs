//! Faults of a sender and of the recovery it runs with: the fields of the packets it sends
//! and probes, the acknowledgements it acts on, the hooks that hold it back, and a CPU half
//! that leaves out one command.

use std::time::Duration;

use openrdma_codec::frame::{FrameRepr, decode};
use openrdma_codec::{AethKind, AethMsn, EvMark, NackReason, Opcode, Psn, Rqmsn};
use openrdma_conformance::req::{self, Clause};
use openrdma_device::{
    CongestionControl, CpuCommand, DeviceError, HostCommand, Input, NicReport, Output, RecoveryCpu,
    RecoverySettings, TimedOutput, Timestamp,
};
use openrdma_sm::RecoveryAgent;

use super::{Batch, Edits, Fault, Stream, fault, sends, stream};

mod streams;
use streams::*;

/// Loses inputs the test matches.
const fn loses_in(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    keep: fn(&Input) -> bool,
) -> Fault {
    fault(name, what, breaks, catch, Edits { keep_in: Some(keep), ..Edits::NONE })
}

/// Loses outputs the test matches.
const fn loses_out(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    keep: fn(&Output) -> bool,
) -> Fault {
    fault(name, what, breaks, catch, Edits { keep_out: Some(keep), ..Edits::NONE })
}

/// Faults of this family the corpus cannot catch, not registered, with the reason.
pub const NOT_REGISTERED: &[(&str, &str)] = &[
    (
        "own-window-one-mpr-wider",
        "passes every sender scenario: the peer's SACKs carry mpr, so its window binds first",
    ),
    ("reserved-mark-as-skip", "passes every scenario: a SACK's reserved mark 3 is never injected"),
];

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    // ---- the packets sent -------------------------------------------------------------------
    sends(
        "psn-bit-23-flipped",
        "data packets carry bit 23 of their PSN flipped",
        &[req::SND_PSN_001],
        &["snd-segmentation"],
        |b| data(b, |f| f.bth.psn = Psn::new(f.bth.psn.value() ^ 0x80_0000)),
    ),
    sends(
        "last-sent-as-middle",
        "the last packet of a message of several is sent as a MIDDLE",
        &[req::SND_SEG_002],
        &["snd-segmentation"],
        |b| {
            refit(b, |f| {
                if f.bth.opcode != Opcode::MRC_WRITE_LAST {
                    return false;
                }
                f.bth.opcode = Opcode::MRC_WRITE_MIDDLE;
                true
            })
        },
    ),
    sends(
        "wwi-rqmsn-early",
        "the last packet of a Write-with-Immediate carries the rqmsn of the next one",
        &[req::SND_RQMSN_002_A],
        &["snd-wwi-limit"],
        |b| {
            refit(b, |f| {
                let imm = f.ext.immdt.is_some();
                match f.ext.meth.as_mut() {
                    Some(m) if imm => {
                        m.rqmsn = Rqmsn::new(m.rqmsn.value().wrapping_add(1));
                        true
                    }
                    _ => false,
                }
            })
        },
    ),
    sends(
        "probe-clock-behind",
        "probes read their tx_timestamp from a clock 4096 units behind the data packets'",
        &[req::EV_PROBE_005_F],
        &["snd-tail-probe"],
        |b| {
            refit(b, |f| match f.ext.peth.as_mut() {
                Some(p) => {
                    p.tx_timestamp = p.tx_timestamp.wrapping_sub(0x1000);
                    true
                }
                None => false,
            })
        },
    ),
    sends(
        "rtx-bit-left-clear",
        "retransmissions go out with BTH rtx 0, as their first transmissions did",
        &[req::SND_RTX_002_A, req::BTH_RTX_001],
        &["snd-single-loss", "snd-double-loss"],
        |b| {
            refit(b, |f| {
                if !f.bth.opcode.is_mrc_write() || !f.bth.rtx {
                    return false;
                }
                f.bth.rtx = false;
                true
            })
        },
    ),
    stream(
        "rtx-va-from-send-context",
        "a retransmission's RETH va is read from the QP's send context, the VA of its latest first transmission, not from the resent packet",
        &[req::SND_RTX_001_A],
        &["snd-single-loss", "snd-double-loss"],
        |_| Box::<VaFromContext>::default(),
    ),
    stream(
        "new-packet-sent-twice",
        "each first transmission goes out twice, snd_nxt advanced only after the second",
        &[req::SND_PSN_001],
        &["snd-segmentation"],
        |_| Box::new(Twice),
    ),
    stream(
        "new-packets-swapped",
        "of two first transmissions of a QP sent at one time, the later goes first",
        &[req::SND_ORDER_001_A],
        &["snd-segmentation", "snd-sched-order"],
        |_| Box::new(Swapped { rtx: false }),
    ),
    stream(
        "next-message-first",
        "the first packet of a message goes out before the last packet of the message before it, sent at the same time",
        &[req::ORD_NIC_002_B, req::SND_ORDER_001_B, req::SND_ORDER_001_A],
        &["snd-order-messages", "snd-segmentation"],
        |_| Box::new(NextMessageFirst),
    ),
    stream(
        "retransmissions-swapped",
        "of two retransmissions of a QP sent at one time, the later queued goes first",
        &[req::SND_SCHED_003_A],
        &["snd-spray-window-fit-probe-rtt"],
        |_| Box::new(Swapped { rtx: true }),
    ),
    stream(
        "probe-on-next-ev",
        "probes travel on the EV after the one named in the QP's profile",
        &[req::SND_SPRAY_009, req::EV_PROBE_005_B],
        &["snd-spray-round-robin", "snd-spray-window-fit"],
        |_| Box::<NextEv>::default(),
    ),
    stream(
        "error-keeps-retransmit-queue",
        "the error state does not flush the retransmission queue: the QP's latest packet goes out again after it failed",
        &[req::SND_ERR_001, req::SND_NACK_005],
        &["snd-nack-fatal", "snd-ack-nak"],
        |_| Box::<AfterError>::default(),
    ),
    stream(
        "fatal-nack-resent",
        "a NACK UNEXP_EVENT queues its PSN for retransmission like any NACK before the QP fails: the PSN goes out again",
        &[req::SND_NACK_005],
        &["snd-nack-fatal"],
        |_| Box::<FatalNackResent>::default(),
    ),
    // ---- acknowledgements acted on ----------------------------------------------------------
    loses_in(
        "ignores-trimmed-nack",
        "NACKs TRIMMED and TRIMMED_LASTHOP are dropped",
        &[req::SND_NACK_002],
        &["snd-ev-skip", "snd-nack-backoff"],
        |i| {
            !frame_in(i, |f| {
                f.ext.neth.is_some_and(|n| {
                    matches!(n.reason, NackReason::TRIMMED | NackReason::TRIMMED_LASTHOP)
                })
            })
        },
    ),
    stream(
        "set-assumed-bad-as-skip",
        "a SetEvState command for ASSUMED_BAD is applied, and reported, as SKIP",
        &[req::EV_STATE_003_A],
        &["snd-ev-set-state"],
        |_| Box::new(SetsSkip),
    ),
    stream(
        "acked-entry-sent",
        "a retransmission queued by a resource NACK goes when its back-off ends, though a SACK acknowledged its PSN meanwhile",
        &[req::SND_SCHED_003_B],
        &["snd-nack-resource"],
        |m| Box::new(AckedEntrySent::new(m)),
    ),
    stream(
        "resource-nack-skips-ev",
        "a NACK that reports the responder's resources moves the EV it came on to SKIP, as a trim does",
        &[req::SND_NACK_003],
        &["snd-nack-resource"],
        |_| Box::new(ResourceNackSkips),
    ),
    stream(
        "sack-completes-message",
        "a SACK whose cack_psn passes a message's last PSN completes the message, before any transport ACK covers it",
        &[req::SND_ACK_005],
        &["snd-lost-ack"],
        |_| Box::<SackCompletes>::default(),
    ),
    fault(
        "ack-completes-before-msn",
        "an AETH ACK completes the pending messages before its msn, but not the message it names",
        &[req::SND_ACK_001_A],
        &["snd-order-messages"],
        Edits { frame_in: Some(ack_msn_one_less), ..Edits::NONE },
    ),
    loses_in(
        "ignores-cumulative-sack",
        "SACKs that answer a write and claim nothing beyond cack_psn are dropped",
        &[req::SND_SACK_001],
        &["snd-cc-sack"],
        |i| !frame_in(i, |f| f.ext.seth.is_some_and(|s| !s.pr && s.sack_bitmap == 0)),
    ),
    stream(
        "always-skip-as-skip-once",
        "a SACK's ALWAYS_SKIP mark moves its EV to SKIP, as SKIP_ONCE does, rather than to ASSUMED_BAD",
        &[req::EV_BAD_001],
        // Not `snd-ev-always-skip`: there the EV leaves SKIP on a probe answer before
        // `skip_hold` passes, so the device's outputs are those of a device in ASSUMED_BAD
        // whose report says SKIP, which the judge names by the report's rule (CONF-CMP-070).
        &["rec-split-assumed-bad"],
        |_| Box::new(Marks::new(false, &[EvMark::ALWAYS_SKIP], EvMark::SKIP_ONCE)),
    ),
    stream(
        "skip-once-changes-nothing",
        "a SACK's SKIP_ONCE mark is reported but leaves its EV in GOOD",
        &[req::EV_SKIP_001],
        &["rec-split-skip-expiry"],
        |_| Box::new(Marks::new(false, &[EvMark::SKIP_ONCE], EvMark::NONE)),
    ),
    stream(
        "peer-window-starts-narrow",
        "the peer's window starts at 128 PSNs rather than at the sender's own: with a wider own window, the packets past 128 wait for the first SACK that sets mpr",
        &[req::SND_WIN_002_A],
        &["snd-window-initial"],
        |_| Box::<NarrowStart>::default(),
    ),
    stream(
        "window-holds-retransmissions",
        "the window check gates every data packet on the PSNs in flight, so a retransmission waits while the window is full",
        &[req::SND_WIN_003],
        &["snd-window-own"],
        |m| Box::new(WindowHoldsRtx::new(m)),
    ),
    stream(
        "skip-not-heeded",
        "the EV picker does not look at SKIP: an EV a SKIP_ONCE mark put in SKIP, reported so, still carries data packets",
        &[req::EV_STATE_001_B, req::SND_PATH_002],
        &["snd-ev-skip", "snd-ev-skip-kept"],
        |m| {
            Box::new(SkipNotHeeded {
                marks: Marks::new(false, &[EvMark::SKIP_ONCE], EvMark::NONE),
                hold: m.nic.skip_hold,
                due: Vec::new(),
            })
        },
    ),
    stream(
        "probe-answer-none-as-skip",
        "a probe answer with m NONE moves its ASSUMED_BAD EV to SKIP rather than to GOOD",
        &[req::EV_PROBE_002],
        &["snd-ev-always-skip", "rec-split-assumed-bad"],
        |_| Box::new(Marks::new(true, &[EvMark::NONE], EvMark::SKIP_ONCE)),
    ),
    stream(
        "probe-answer-mark-ignored",
        "a probe answer with a skip mark returns its ASSUMED_BAD EV to GOOD rather than to SKIP",
        &[req::EV_PROBE_003],
        &["snd-ev-probe-skip", "rec-split-skip-expiry"],
        |_| Box::new(Marks::new(true, &[EvMark::SKIP_ONCE, EvMark::ALWAYS_SKIP], EvMark::NONE)),
    ),
    stream(
        "probe-answer-ends-deny",
        "a probe answer with m NONE returns its EV to GOOD whatever its state, a DENIED one included",
        &[req::EV_DENY_002],
        &["snd-ev-deny"],
        |_| Box::<EndsDeny>::default(),
    ),
    sends(
        "pad-count-is-length-mod-4",
        "the pad count is the payload length modulo 4 rather than what makes it a multiple of 4",
        &[req::PAY_PAD_001],
        &["snd-segmentation"],
        pad_count_is_length_mod_4,
    ),
    sends(
        "rtx-pad-latched",
        "a retransmitted FIRST or MIDDLE packet carries pad 3, the pad of the padded last \
         packet sent before it, over the same bytes",
        &[req::PAY_PAD_001],
        &["snd-triple-loss"],
        rtx_pad_latched,
    ),
    fault(
        "cc-hook-ignored",
        "a QP created with the fixed-window hook runs unlimited",
        &[req::SND_CC_001],
        &["snd-cc-sack"],
        Edits {
            host_in: Some(|c| {
                if let HostCommand::CreateQp(q) = c {
                    if matches!(q.cc, CongestionControl::FixedWindow { .. }) {
                        q.cc = CongestionControl::Unlimited;
                    }
                }
            }),
            ..Edits::NONE
        },
    ),
    loses_out(
        "endpoint-request-lost",
        "endpoint requests the CPU half commands are not sent",
        &[req::REC_IF_017_A],
        &["rec-endpoint-request"],
        |o| !frame_out(o, |f| f.ext.erth.is_some()),
    ),
    // ---- the device's own CPU half ----------------------------------------------------------
    fault(
        "cpu-never-probes",
        "the device's own CPU half never commands a Probe",
        &[req::REC_PROBE_001],
        &["rec-device-blame"],
        Edits {
            cpu: Some(|c| Leaves::boxed(c, |c| matches!(c, CpuCommand::Probe { .. }))),
            ..Edits::NONE
        },
    ),
    fault(
        "cpu-never-retransmits",
        "the device's own CPU half never commands a Retransmit on a timeout",
        &[req::REC_RTO_003],
        &["rec-device-backoff"],
        Edits {
            cpu: Some(|c| Leaves::boxed(c, |c| matches!(c, CpuCommand::Retransmit { .. }))),
            ..Edits::NONE
        },
    ),
];

/// A retransmitted data packet without pad, with pad count 3 and its ICRC computed again:
/// its bytes and lengths stay.
fn rtx_pad_latched(b: &[u8]) -> Option<Vec<u8>> {
    let d = decode(b);
    let bth = d.bth?;
    if !bth.opcode.is_mrc_write() || !bth.rtx || bth.pad_count != 0 || d.payload.len() < 3 {
        return None;
    }
    let (at, ip, icrc) = (d.layout.bth?, d.layout.ip?, d.layout.icrc?);
    let mut v = b.to_vec();
    *v.get_mut(at + 1)? |= 0x30;
    let crc = openrdma_codec::icrc::compute(v.get(ip..icrc)?).ok()?;
    v.get_mut(icrc..icrc + 4)?.copy_from_slice(&crc.to_le_bytes());
    Some(v)
}

/// A data packet whose payload length is 1 or 3 modulo 4, with that as its pad count, the
/// lengths of the frame fitted to it.
fn pad_count_is_length_mod_4(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    let wrong = f.payload.len() % 4;
    if !f.bth.opcode.is_mrc_write() || wrong % 2 == 0 {
        return None;
    }
    f.finalize().ok()?;
    let less = usize::from(f.bth.pad_count) as isize - wrong as isize;
    let shrink = |v: u16| u16::try_from(v as isize - less).ok();
    f.bth.pad_count = wrong as u8;
    f.udp.length = shrink(f.udp.length)?;
    match &mut f.ip {
        openrdma_codec::frame::IpRepr::V4(v4) => {
            v4.total_len = shrink(v4.total_len)?;
            v4.fill_checksum().ok()?;
        }
        openrdma_codec::frame::IpRepr::V6(v6) => {
            v6.payload_len = shrink(v6.payload_len)?;
            f.fill_udp_checksum().ok()?;
        }
    }
    f.to_bytes().ok()
}

/// The wire QP of a data packet and whether it is a retransmission.
fn data_of(o: &Output) -> Option<(u32, bool)> {
    let Output::Frame { bytes, .. } = o else { return None };
    let b = decode(bytes).bth?;
    b.opcode.is_mrc_write().then_some((b.dest_qp.value(), b.rtx))
}

/// The reference CPU half without the commands `leaves` picks.
#[derive(Debug)]
struct Leaves {
    agent: RecoveryAgent,
    leaves: fn(&CpuCommand) -> bool,
}

impl Leaves {
    fn boxed(
        cfg: &RecoverySettings,
        leaves: fn(&CpuCommand) -> bool,
    ) -> Result<Box<dyn RecoveryCpu>, DeviceError> {
        Ok(Box::new(Leaves { agent: RecoveryAgent::new(cfg.into()), leaves }))
    }
}

impl RecoveryCpu for Leaves {
    fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
        self.agent.handle_report(now, report);
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.agent.handle_timeout(now);
    }

    fn poll_command(&mut self) -> Option<CpuCommand> {
        loop {
            let c = self.agent.poll_command()?;
            if !(self.leaves)(&c) {
                return Some(c);
            }
        }
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.agent.poll_timeout()
    }

    fn min_delay(&self) -> Duration {
        self.agent.min_delay()
    }
}

/// A frame the device sends, edited and refitted; `None` when `edit` leaves it.
fn refit(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> bool) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if !edit(&mut f) {
        return None;
    }
    super::refit(&mut f).ok()
}

/// A data packet the device sends, edited.
fn data(b: &[u8], edit: impl FnOnce(&mut FrameRepr)) -> Option<Vec<u8>> {
    refit(b, |f| {
        if !f.bth.opcode.is_mrc_write() {
            return false;
        }
        edit(f);
        true
    })
}

/// An arriving transport ACK as a sender that compares MSNs with "before" rather than
/// "at or before" reads it: one message short.
fn ack_msn_one_less(b: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if f.ext.seth.is_some() || f.ext.neth.is_some() {
        return None;
    }
    let a = f.ext.aeth.as_mut().filter(|a| a.kind() == AethKind::Ack)?;
    a.msn = AethMsn::new(a.msn.value().wrapping_sub(1));
    super::refit(&mut f).ok()
}

/// Whether an input is a frame that `test` picks.
fn frame_in(
    i: &Input,
    test: impl FnOnce(&openrdma_codec::frame::DecodedFrame<'_>) -> bool,
) -> bool {
    match i {
        Input::Frame { bytes, .. } => test(&decode(bytes)),
        _ => false,
    }
}

/// Whether an output is a frame that `test` picks.
fn frame_out(
    o: &Output,
    test: impl FnOnce(&openrdma_codec::frame::DecodedFrame<'_>) -> bool,
) -> bool {
    match o {
        Output::Frame { bytes, .. } => test(&decode(bytes)),
        Output::Event { .. } => false,
    }
}

/// Retransmissions held while the QP's window is full, as a sender that checks the window
/// for every data packet holds them: the window is kept from the packets the device sends
/// and the SACKs it takes, and a held retransmission goes at the first SACK that frees the
/// window.
#[derive(Debug)]
struct WindowHoldsRtx {
    own: u32,
    /// By peer QP: the device's QP, `snd_una`, the PSNs sent once from it, `W_peer`.
    qps: std::collections::HashMap<u32, (u32, u32, u32, u32)>,
    /// The retransmissions held, by peer QP.
    held: Vec<(u32, TimedOutput)>,
    /// When each peer QP's window last came free, this batch.
    freed: std::collections::HashMap<u32, Timestamp>,
}

impl WindowHoldsRtx {
    fn new(m: &openrdma_device::Manifest) -> Self {
        let own = u32::from(m.nic.mpr) * 128;
        WindowHoldsRtx { own, qps: Default::default(), held: Vec::new(), freed: Default::default() }
    }

    fn full(&self, peer: u32) -> bool {
        self.qps.get(&peer).is_some_and(|&(_, _, sent, w)| sent >= w.min(self.own))
    }
}

impl Stream for WindowHoldsRtx {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    let entry = (q.qpn.value(), q.initial_psn.value(), 0, self.own);
                    self.qps.insert(q.peer_qpn.value(), entry);
                }
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let (Some(b), Some(x)) = (d.bth, d.ext.seth) else { continue };
                    if x.pr {
                        continue;
                    }
                    let local = b.dest_qp.value();
                    let Some((&peer, _)) = self.qps.iter().find(|(_, v)| v.0 == local) else {
                        continue;
                    };
                    let was_full = self.full(peer);
                    let own = self.own;
                    let Some(e) = self.qps.get_mut(&peer) else { continue };
                    let una = (x.cack_psn.value() + 1) & 0xFF_FFFF;
                    let moved = una.wrapping_sub(e.1) & 0xFF_FFFF;
                    if moved < 1 << 23 {
                        e.1 = una;
                        e.2 = e.2.saturating_sub(moved);
                    }
                    if x.mpr != 0 {
                        e.3 = (u32::from(x.mpr) * 128).min(own);
                    }
                    if was_full && !self.full(peer) {
                        self.freed.entry(peer).or_insert(i.at);
                    }
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        // The held ones the window freed go at the SACK that freed it.
        let freed = std::mem::take(&mut self.freed);
        let (go, keep): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.held).into_iter().partition(|(p, _)| freed.contains_key(p));
        self.held = keep;
        for (p, mut o) in go {
            o.at = freed[&p];
            out.push(o);
        }
        for o in outputs {
            let Output::Frame { bytes, .. } = &o.output else {
                out.push(o);
                continue;
            };
            let d = decode(bytes);
            let Some(b) = d.bth.filter(|b| b.opcode.is_mrc_write()) else {
                out.push(o);
                continue;
            };
            let peer = b.dest_qp.value();
            if b.rtx {
                if self.full(peer) {
                    self.held.push((peer, o));
                    continue;
                }
            } else if let Some(e) = self.qps.get_mut(&peer) {
                let ahead = (b.psn.value().wrapping_sub(e.1) & 0xFF_FFFF) + 1;
                if ahead < 1 << 23 {
                    e.2 = e.2.max(ahead);
                }
            }
            out.push(o);
        }
        out.sort_by_key(|o| o.at);
        out
    }
}
