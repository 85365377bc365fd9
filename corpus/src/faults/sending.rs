//! Faults of a sender and of the recovery it runs with: the fields of the packets it sends
//! and probes, the acknowledgements it acts on, the hooks that hold it back, and a CPU half
//! that leaves out one command.

use std::time::Duration;

use openrdma_codec::frame::{FrameRepr, decode};
use openrdma_codec::{EvMark, NackReason, Opcode, Psn, Rqmsn};
use openrdma_conformance::req::{self, Clause};
use openrdma_device::{
    CongestionControl, CpuCommand, DeviceError, HostCommand, Input, NicReport, Output, RecoveryCpu,
    RecoverySettings, TimedOutput, Timestamp,
};
use openrdma_sm::RecoveryAgent;

use super::{Batch, Edits, Fault, Stream, fault, sends, stream};

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
        &[req::SND_ERR_001],
        &["snd-nack-fatal", "snd-ack-nak"],
        |_| Box::<AfterError>::default(),
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
        &["snd-ev-always-skip", "rec-split-assumed-bad"],
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
        "skip-not-heeded",
        "the EV picker does not look at SKIP: an EV a SKIP_ONCE mark put in SKIP, reported so, still carries data packets",
        &[req::EV_STATE_001_B, req::SND_PATH_002],
        &["snd-ev-skip", "snd-spray-round-robin"],
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

/// Messages completed by the SACKs that pass their last PSN: the device takes such a SACK
/// for an AETH ACK of the latest message it covers, as if the ACK had come with it.
#[derive(Debug, Default)]
struct SackCompletes {
    /// The device QP of each peer QP.
    local: std::collections::HashMap<u32, u32>,
    /// The last PSN and the MSN of each message sent and not yet completed so, by device QP.
    ends: std::collections::HashMap<u32, Vec<(Psn, openrdma_codec::Msn)>>,
}

impl Stream for SackCompletes {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        let mut out = Vec::with_capacity(inputs.len());
        for i in inputs {
            let mut ack = None;
            match &i.input {
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    self.local.insert(q.peer_qpn.value(), q.qpn.value());
                }
                Input::Frame { port, bytes } => {
                    let d = decode(bytes);
                    if let (Some(b), Some(s)) = (d.bth, d.ext.seth.filter(|s| !s.pr)) {
                        let ends = self.ends.entry(b.dest_qp.value()).or_default();
                        // The ends at or before cack_psn (within half the PSN space).
                        let covered = |p: &Psn| s.cack_psn.distance(*p) >= 0;
                        let last = ends.iter().filter(|(p, _)| covered(p)).map(|x| x.1).next_back();
                        ends.retain(|(p, _)| !covered(p));
                        ack = last.and_then(|msn| ack_like(bytes, msn)).map(|a| (*port, a));
                    }
                }
                _ => {}
            }
            let at = i.at;
            out.push(i);
            if let Some((port, bytes)) = ack {
                out.push(openrdma_device::TimedInput { at, input: Input::Frame { port, bytes } });
            }
        }
        out
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            let Output::Frame { bytes, .. } = &o.output else { continue };
            let d = decode(bytes);
            let (Some(b), Some(m)) = (d.bth, d.ext.meth) else { continue };
            let ends_message = b.opcode.is_mrc_write() && b.opcode.is_last();
            let Some(&local) = self.local.get(&b.dest_qp.value()) else { continue };
            if ends_message && !b.rtx {
                self.ends.entry(local).or_default().push((b.psn, m.msn));
            }
        }
        outputs
    }
}

/// An AETH ACK of `msn` with the link headers of the frame `bytes`.
fn ack_like(bytes: &[u8], msn: openrdma_codec::Msn) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    f.bth.opcode = Opcode::MRC_ACKNOWLEDGE;
    f.bth.pad_count = 0;
    f.ext = openrdma_codec::frame::Extensions {
        aeth: Some(openrdma_codec::AethRepr {
            syndrome: openrdma_codec::AethRepr::ACK_UNLIMITED_CREDIT,
            msn: openrdma_codec::AethMsn::from(msn),
        }),
        ..Default::default()
    };
    f.payload.clear();
    f.icrc = None;
    super::refit(&mut f).ok()
}

/// `SetEvState` ASSUMED_BAD commands read as SKIP: the state decoded wrong, the rest right.
#[derive(Debug)]
struct SetsSkip;

impl Stream for SetsSkip {
    fn inputs(
        &mut self,
        mut inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for i in &mut inputs {
            if let Input::Cpu { command: CpuCommand::SetEvState { state, .. } } = &mut i.input {
                if *state == openrdma_device::EvState::AssumedBad {
                    *state = openrdma_device::EvState::Skip;
                }
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs
    }
}

/// Entries a resource or window NACK queued, sent when their back-off ends whether or not
/// an acknowledgement came meanwhile: the reference drops such an entry, and this device
/// sends the PSN's latest transmission again, with its report, when the reference did not.
#[derive(Debug)]
struct AckedEntrySent {
    backoff: u64,
    /// The peer QP of each device QP.
    peer: std::collections::HashMap<u32, u32>,
    /// The latest transmission of each (peer QP, PSN): port and bytes.
    sent: std::collections::HashMap<(u32, u32), (u16, Vec<u8>)>,
    /// The entries queued: when they go, device QP, peer QP, PSN.
    queued: Vec<(u64, u32, u32, u32)>,
}

impl AckedEntrySent {
    fn new(m: &openrdma_device::Manifest) -> AckedEntrySent {
        AckedEntrySent {
            backoff: u64::try_from(m.nic.nack_backoff.as_nanos()).unwrap_or(u64::MAX),
            peer: std::collections::HashMap::new(),
            sent: std::collections::HashMap::new(),
            queued: Vec::new(),
        }
    }
}

impl Stream for AckedEntrySent {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    self.peer.insert(q.qpn.value(), q.peer_qpn.value());
                }
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let (Some(b), Some(n)) = (d.bth, d.ext.neth) else { continue };
                    if n.reason.is_trim() || n.reason.is_fatal() {
                        continue;
                    }
                    let local = b.dest_qp.value();
                    let Some(&peer) = self.peer.get(&local) else { continue };
                    let psn = n.nack_psn.value();
                    let at = i.at.0.saturating_add(self.backoff);
                    if !self.queued.iter().any(|q| (q.2, q.3) == (peer, psn)) {
                        self.queued.push((at, local, peer, psn));
                    }
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for o in &outputs {
            let Output::Frame { port, bytes } = &o.output else { continue };
            let Some(b) = decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()) else { continue };
            let key = (b.dest_qp.value(), b.psn.value());
            self.sent.insert(key, (*port, bytes.clone()));
            if b.rtx {
                self.queued.retain(|q| (q.2, q.3) != key);
            }
        }
        let (due, later): (Vec<_>, Vec<_>) =
            self.queued.drain(..).partition(|q| q.0 <= batch.until.0);
        self.queued = later;
        for (at, local, peer, psn) in due {
            let Some((port, bytes)) = self.sent.get(&(peer, psn)) else { continue };
            let Some(again) = refit(bytes, |f| {
                f.bth.rtx = true;
                true
            }) else {
                continue;
            };
            let lost_ev = decode(&again).entropy();
            let at = Timestamp(at);
            let report = NicReport::Retransmitted {
                qpn: openrdma_codec::Qpn::new(local),
                psn: Psn::new(psn),
                cause: openrdma_device::RetransmitCause::Nack,
                lost_ev,
            };
            let event = openrdma_device::NicEvent::Report(report);
            outputs.push(TimedOutput { at, output: Output::Event { event } });
            outputs.push(TimedOutput { at, output: Output::Frame { port: *port, bytes: again } });
        }
        outputs.sort_by_key(|o| o.at);
        outputs
    }
}

/// A NACK of SND-NACK-003 taken as a failing path: its EV is set to SKIP, as the NIC's
/// own trim handling sets it, alongside the NACK itself.
#[derive(Debug)]
struct ResourceNackSkips;

impl Stream for ResourceNackSkips {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        let mut out = Vec::with_capacity(inputs.len());
        for i in inputs {
            let skip = match &i.input {
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let resource = d.ext.neth.is_some_and(|n| {
                        !matches!(
                            n.reason,
                            NackReason::TRIMMED
                                | NackReason::TRIMMED_LASTHOP
                                | NackReason::UNEXP_EVENT
                        )
                    });
                    match (d.bth, d.entropy()) {
                        (Some(b), Some(ev)) if resource => Some((b.dest_qp, ev)),
                        _ => None,
                    }
                }
                _ => None,
            };
            let at = i.at;
            out.push(i);
            if let Some((qpn, ev)) = skip {
                let state = openrdma_device::EvState::Skip;
                let command = CpuCommand::SetEvState { qpn, ev, state };
                out.push(openrdma_device::TimedInput { at, input: Input::Cpu { command } });
            }
        }
        out
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs
    }
}

/// Retransmissions given the RETH va of the latest first transmission of their QP.
#[derive(Debug, Default)]
struct VaFromContext {
    /// The RETH va of the latest first transmission, by the peer QP it went to.
    va: std::collections::HashMap<u32, u64>,
}

impl Stream for VaFromContext {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let d = decode(bytes);
            let (Some(b), Some(r)) = (d.bth, d.ext.reth) else { continue };
            if !b.opcode.is_mrc_write() {
                continue;
            }
            let qp = b.dest_qp.value();
            if !b.rtx {
                self.va.insert(qp, r.va);
                continue;
            }
            let Some(&va) = self.va.get(&qp) else { continue };
            let moved = refit(bytes, |f| match f.ext.reth.as_mut() {
                Some(r) if r.va != va => {
                    r.va = va;
                    true
                }
                _ => false,
            });
            if let Some(m) = moved {
                *bytes = m;
            }
        }
        outputs
    }
}

/// Each first transmission sent twice.
#[derive(Debug)]
struct Twice;

impl Stream for Twice {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            if data_of(&o.output).is_some_and(|(_, rtx)| !rtx) {
                out.push(o.clone());
            }
            out.push(o);
        }
        out
    }
}

/// Of two data packets of a QP sent at one time, new ones or retransmissions, the later
/// first.
#[derive(Debug)]
struct Swapped {
    rtx: bool,
}

impl Stream for Swapped {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let keys: Vec<Option<(u64, u32)>> = outputs
            .iter()
            .map(|o| data_of(&o.output).filter(|&(_, r)| r == self.rtx).map(|(q, _)| (o.at.0, q)))
            .collect();
        let mut taken = vec![false; keys.len()];
        for i in 0..keys.len() {
            let Some(k) = keys[i].filter(|_| !taken[i]) else { continue };
            if let Some(j) = (i + 1..keys.len()).find(|&j| !taken[j] && keys[j] == Some(k)) {
                outputs.swap(i, j);
                taken[i] = true;
                taken[j] = true;
            }
        }
        outputs
    }
}

/// The latest data packet of a QP sent again, as a retransmission with its report, when
/// the QP enters the error state (its first error flag, entry or report).
#[derive(Debug, Default)]
struct AfterError {
    /// The peer QP of each device QP.
    peer: std::collections::HashMap<u32, u32>,
    /// The latest data packet sent to each peer QP.
    last: std::collections::HashMap<u32, (u16, Vec<u8>)>,
    /// The device QPs already failed.
    failed: std::collections::HashSet<u32>,
}

impl Stream for AfterError {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::CreateQp(q) } = &i.input {
                self.peer.insert(q.qpn.value(), q.peer_qpn.value());
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let failed = match &o.output {
                Output::Frame { port, bytes } => {
                    if let Some((q, _)) = data_of(&o.output) {
                        self.last.insert(q, (*port, bytes.clone()));
                    }
                    None
                }
                Output::Event { event } => failed_qp(event),
            };
            let at = o.at;
            out.push(o);
            let Some(qpn) = failed.filter(|q| self.failed.insert(*q)) else { continue };
            let Some((port, bytes)) = self.peer.get(&qpn).and_then(|p| self.last.get(p)) else {
                continue;
            };
            let Some(again) = refit(bytes, |f| {
                f.bth.rtx = true;
                true
            }) else {
                continue;
            };
            let Some(b) = decode(&again).bth else { continue };
            let lost_ev = decode(&again).entropy();
            out.push(TimedOutput {
                at,
                output: Output::Event {
                    event: openrdma_device::NicEvent::Report(NicReport::Retransmitted {
                        qpn: openrdma_codec::Qpn::new(qpn),
                        psn: b.psn,
                        cause: openrdma_device::RetransmitCause::Nack,
                        lost_ev,
                    }),
                },
            });
            out.push(TimedOutput { at, output: Output::Frame { port: *port, bytes: again } });
        }
        out
    }
}

/// The device QP an event shows entering the error state: a requester's error flag or
/// entry, or a `QpError` report.
fn failed_qp(e: &openrdma_device::NicEvent) -> Option<u32> {
    use openrdma_device::{NicEvent, Side};
    match e {
        NicEvent::FlagWrite(f) if f.side == Side::Requester => {
            let flag = openrdma_codec::host::FlagRepr::from_u64(f.value);
            (!flag.status.is_success()).then_some(f.qpn.value())
        }
        NicEvent::Completion(c) if c.side == Side::Requester => {
            (!c.entry.status.is_success()).then_some(c.entry.qpn.value())
        }
        NicEvent::Report(NicReport::QpError { qpn, .. }) => Some(qpn.value()),
        _ => None,
    }
}

/// SACKs with `pr` as given and a mark of `from` acted on as if they carried `to`, the
/// mark itself reported as it came: the EV transition of one mark is wrong, the rest right.
#[derive(Debug)]
struct Marks {
    pr: bool,
    from: &'static [EvMark],
    to: EvMark,
    /// The marks read wrong and not yet reported: time, device QP, EV, the mark.
    misread: Vec<(Timestamp, u32, openrdma_codec::Ev, EvMark)>,
}

impl Marks {
    fn new(pr: bool, from: &'static [EvMark], to: EvMark) -> Marks {
        Marks { pr, from, to, misread: Vec::new() }
    }
}

/// The mark of a report, as the device boundary gives it.
fn report_mark(m: EvMark) -> openrdma_device::EvMark {
    openrdma_device::EvMark::from_bits(m.0)
}

impl Stream for Marks {
    fn inputs(
        &mut self,
        mut inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for i in &mut inputs {
            let Input::Frame { bytes, .. } = &mut i.input else { continue };
            let mut seen = None;
            let read = refit(bytes, |f| {
                let ev = f.entropy();
                let qpn = f.bth.dest_qp.value();
                let Some(s) = f.ext.seth.as_mut() else { return false };
                if s.pr != self.pr || !self.from.contains(&s.m) {
                    return false;
                }
                seen = Some((qpn, ev, s.m));
                s.m = self.to;
                true
            });
            if let (Some(b), Some((qpn, ev, m))) = (read, seen) {
                *bytes = b;
                self.misread.push((i.at, qpn, ev, m));
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event: openrdma_device::NicEvent::Report(r) } = &mut o.output
            else {
                continue;
            };
            let (NicReport::EvMarked { qpn, ev, mark }
            | NicReport::ProbeAnswered { qpn, ev, mark }) = r
            else {
                continue;
            };
            let k = self.misread.iter().position(|&(_, q, e, _)| q == qpn.value() && e == *ev);
            if let Some(k) = k {
                *mark = report_mark(self.misread.remove(k).3);
            }
        }
        // A skip mark read as none is reported all the same (REC-IF-005).
        let (due, later): (Vec<_>, Vec<_>) =
            self.misread.drain(..).partition(|&(at, ..)| at <= batch.until);
        self.misread = later;
        for (at, qpn, ev, m) in due.into_iter().filter(|_| !self.pr && self.to == EvMark::NONE) {
            let event = openrdma_device::NicEvent::Report(NicReport::EvMarked {
                qpn: openrdma_codec::Qpn::new(qpn),
                ev,
                mark: report_mark(m),
            });
            outputs.push(TimedOutput { at, output: Output::Event { event } });
        }
        outputs.sort_by_key(|o| o.at);
        outputs
    }
}

/// EVs put in SKIP, and reported so, that the sender's picker still takes: the SKIP_ONCE
/// mark is hidden from the reference's picker ([`Marks`]), and the device's reports of the
/// EV entering SKIP and leaving it after `skip_hold` are given as a right device gives them.
#[derive(Debug)]
struct SkipNotHeeded {
    marks: Marks,
    hold: std::time::Duration,
    /// The `EvState` GOOD reports due when the hold ends: time, device QP, EV.
    due: Vec<(Timestamp, u32, openrdma_codec::Ev)>,
}

impl Stream for SkipNotHeeded {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        let inputs = self.marks.inputs(inputs);
        let hold = u64::try_from(self.hold.as_nanos()).unwrap_or(u64::MAX);
        for &(at, qpn, ev, _) in &self.marks.misread {
            self.due.retain(|&(_, q, e)| (q, e) != (qpn, ev));
            self.due.push((Timestamp(at.0.saturating_add(hold)), qpn, ev));
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let entered: Vec<(Timestamp, u32, openrdma_codec::Ev)> = self
            .marks
            .misread
            .iter()
            .filter(|&&(at, ..)| at <= batch.until)
            .map(|&(at, q, e, _)| (at, q, e))
            .collect();
        let mut out = self.marks.outputs(outputs, batch);
        let report = |at, qpn, ev, state| TimedOutput {
            at,
            output: Output::Event {
                event: openrdma_device::NicEvent::Report(NicReport::EvState {
                    qpn: openrdma_codec::Qpn::new(qpn),
                    ev,
                    state,
                }),
            },
        };
        for (at, qpn, ev) in entered {
            out.push(report(at, qpn, ev, openrdma_device::EvState::Skip));
        }
        let (now, later): (Vec<_>, Vec<_>) =
            self.due.drain(..).partition(|&(at, ..)| at <= batch.until);
        self.due = later;
        for (at, qpn, ev) in now {
            out.push(report(at, qpn, ev, openrdma_device::EvState::Good));
        }
        out.sort_by_key(|o| o.at);
        out
    }
}

/// A probe answer with no mark taken as a controller's allow for a denied EV: the device
/// applies it as a `SetEvState` GOOD of its own.
#[derive(Debug, Default)]
struct EndsDeny {
    /// The EVs a controller denied and has not allowed again, by device QP.
    denied: std::collections::HashSet<(u32, openrdma_codec::Ev)>,
}

impl Stream for EndsDeny {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        let mut out = Vec::with_capacity(inputs.len());
        for i in inputs {
            let allow = match &i.input {
                Input::Cpu { command: CpuCommand::SetEvState { qpn, ev, state } } => {
                    let key = (qpn.value(), *ev);
                    if *state == openrdma_device::EvState::Denied {
                        self.denied.insert(key);
                    } else {
                        self.denied.remove(&key);
                    }
                    None
                }
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let answer = d.ext.seth.is_some_and(|s| s.pr && s.m == EvMark::NONE);
                    match (d.bth, d.entropy()) {
                        (Some(b), Some(ev)) if answer => self
                            .denied
                            .take(&(b.dest_qp.value(), ev))
                            .map(|(q, ev)| (b.dest_qp, q, ev)),
                        _ => None,
                    }
                }
                _ => None,
            };
            let at = i.at;
            out.push(i);
            if let Some((qpn, _, ev)) = allow {
                let state = openrdma_device::EvState::Good;
                let command = CpuCommand::SetEvState { qpn, ev, state };
                out.push(openrdma_device::TimedInput { at, input: Input::Cpu { command } });
            }
        }
        out
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        outputs
    }
}

/// Probes sent on the next EV of the QP's profile.
#[derive(Debug, Default)]
struct NextEv {
    /// The EVs of each QP, by the peer QP its packets go to.
    evs: std::collections::HashMap<u32, Vec<openrdma_codec::Ev>>,
}

impl Stream for NextEv {
    fn inputs(
        &mut self,
        inputs: Vec<openrdma_device::TimedInput>,
    ) -> Vec<openrdma_device::TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::CreateQp(q) } = &i.input {
                self.evs.insert(q.peer_qpn.value(), q.evs.clone());
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let moved = refit(bytes, |f| {
                let Some(evs) = self.evs.get(&f.bth.dest_qp.value()) else { return false };
                if f.ext.peth.is_none() || evs.len() < 2 {
                    return false;
                }
                let ev = f.entropy();
                let Some(k) = evs.iter().position(|&e| e == ev) else { return false };
                f.set_entropy(evs[(k + 1) % evs.len()]);
                true
            });
            if let Some(b) = moved {
                *bytes = b;
            }
        }
        outputs
    }
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
