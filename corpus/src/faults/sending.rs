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

/// Probes sent on the next EV of the QP's profile./// Probes sent on the next EV of the QP's profile./// Probes sent on the next EV of the QP's profile.
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
