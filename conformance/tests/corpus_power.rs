//! The scenarios catch the faults they are written for: each mutant below is the reference
//! device with one behaviour wrong at its boundary (an input it misreads, an output it
//! loses, a parameter it ignores), and must fail the scenarios named with it.

use std::collections::{BTreeSet, HashMap, HashSet};

use openrdma_codec::frame::{IpRepr, decode};
use openrdma_codec::{AethRepr, EvMark as WireMark, NackReason, Opcode, Psn};
use openrdma_conformance::corpus;
use openrdma_conformance::device::{Device, DeviceError, Input, Output, TimedInput, TimedOutput};
use openrdma_conformance::reference::ReferenceDevice;
use openrdma_conformance::runner::run;
use openrdma_conformance::scenario::{Capability, Manifest};
use openrdma_conformance::scoreboard::judge;
use openrdma_sm::{
    CpuCommand, EvState, HostCommand, NicEvent, NicReport, RetransmitCause, SprayPolicy, Timestamp,
};

/// One wrong behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// SACK marks ALWAYS_SKIP are read as NONE.
    IgnoresAlwaysSkip,
    /// SACK marks SKIP_ONCE are read as NONE.
    IgnoresSkipOnce,
    /// SKIP lasts 1 us whatever `skip_hold` says.
    ShortSkipHold,
    /// NACK TRIMMED is treated like PSN_OOR_WINDOW.
    TrimAsWindow,
    /// NACK PSN_OOR_WINDOW is treated like TRIMMED (the EV is blamed).
    WindowAsTrim,
    /// NACK UNEXP_EVENT is treated like NO_RESOURCE.
    FatalNackIgnored,
    /// AETH NAKs are taken for ACKs.
    NakAsAck,
    /// The sender ignores `wwi_limit`.
    SenderWwiUnlimited,
    /// The responder ignores `wwi_limit`.
    ResponderWwiUnlimited,
    /// Probes commanded by the CPU half are not sent.
    ProbeCommandIgnored,
    /// Retransmissions commanded by the CPU half are not sent.
    RetransmitCommandIgnored,
    /// Probes are not answered.
    NoProbeAnswer,
    /// Duplicates are not answered at once.
    NoDuplicateSack,
    /// The remote key is not checked: every write lands in the registered region.
    RkeyNotChecked,
    /// A controller's deny is taken for ASSUMED_BAD, which a probe answer ends.
    DenyAsAssumedBad,
    /// The `mpr` of SACKs is ignored.
    IgnoresPeerMpr,
    /// The bitmap of SACKs is ignored.
    IgnoresSackBitmap,
    /// Rejected doorbell tokens produce no completion.
    SilentDoorbellReject,
    /// Transport NAKs are not sent.
    NoNak,
    /// Packets with a non-zero BTH tver are dropped.
    RejectsTver,
    /// Packets with IPv4 options are dropped.
    RejectsIpv4Options,
    /// IPv4 fragments are processed as whole packets.
    ProcessesFragments,
    /// Any UDP destination port is taken for RoCEv2.
    AnyUdpPort,
    /// IPv6 packets without a UDP checksum are dropped.
    RejectsZeroUdpChecksumV6,
    /// Every QP sprays by this policy, whatever its configuration says.
    SprayAs(SprayPolicy),
    /// New packets go before retransmissions that are due at the same time.
    NewDataFirst,
    /// The EV marks of a SACK are applied before its checks, so a SACK that the checks
    /// discard still marks its EV.
    MarksOfDiscardedSacks,
    /// The `pr` bit of SACKs is not read: a probe answer's mark is taken as a SACK mark.
    ProbeAnswerAsMark,
    /// `timestamps` is ignored: every write carries a TSETH.
    TimestampsAlwaysOn,
    /// A retransmission carries the TSETH of the PSN's first transmission.
    RetransmissionKeepsTimestamp,
    /// The probes a spray policy queues are never sent.
    NoPolicyProbes,
}

struct Mutant {
    fault: Fault,
    inner: ReferenceDevice,
    seen: HashSet<(u32, u32)>,
    dup_at: BTreeSet<u64>,
    /// The highest PSN the device has sent, and its window.
    hi_sent: Option<Psn>,
    window: u32,
    /// The TSETH timestamp of each PSN's first transmission.
    first_ts: HashMap<(u32, u32), u16>,
}

impl Mutant {
    fn new(fault: Fault) -> Self {
        Mutant {
            fault,
            inner: ReferenceDevice::new(),
            seen: HashSet::new(),
            dup_at: BTreeSet::new(),
            hi_sent: None,
            window: 0,
            first_ts: HashMap::new(),
        }
    }

    fn input(&mut self, mut i: TimedInput) -> Option<TimedInput> {
        match &mut i.input {
            Input::Cpu { command: CpuCommand::Probe { .. } }
                if self.fault == Fault::ProbeCommandIgnored =>
            {
                return None;
            }
            Input::Cpu { command: CpuCommand::Retransmit { .. } }
                if self.fault == Fault::RetransmitCommandIgnored =>
            {
                return None;
            }
            Input::Cpu { command: CpuCommand::SetEvState { state, .. } }
                if self.fault == Fault::DenyAsAssumedBad && *state == EvState::Denied =>
            {
                *state = EvState::AssumedBad;
            }
            Input::Host { command: HostCommand::CreateQp(q) } => {
                if let Fault::SprayAs(policy) = self.fault {
                    q.spray = policy;
                }
            }
            Input::Frame { bytes, .. } => {
                if self.fault == Fault::RejectsZeroUdpChecksumV6 && is_v6_without_checksum(bytes) {
                    return None;
                }
                if let Some(b) = self.raw(bytes) {
                    *bytes = b;
                }
                let d = decode(bytes);
                if self.fault == Fault::RejectsTver && d.bth.is_some_and(|b| b.tver != 0) {
                    return None;
                }
                if self.fault == Fault::RejectsIpv4Options
                    && matches!(&d.ip, Some(IpRepr::V4(v4)) if !v4.options.is_empty())
                {
                    return None;
                }
                let Some(mut f) = d.to_repr() else { return Some(i) };
                if f.bth.opcode.is_mrc_write() {
                    let key = (f.bth.dest_qp.value(), f.bth.psn.value());
                    if !self.seen.insert(key) {
                        self.dup_at.insert(i.at.0);
                    }
                }
                let mut changed = false;
                if let Some(s) = f.ext.seth.as_mut() {
                    if self.fault == Fault::ProbeAnswerAsMark && s.pr {
                        s.pr = false;
                        changed = true;
                    }
                    if self.fault == Fault::IgnoresPeerMpr && s.mpr != 0 {
                        s.mpr = 0;
                        changed = true;
                    }
                    if self.fault == Fault::IgnoresSackBitmap && s.sack_bitmap != 0 {
                        s.sack_bitmap = 0;
                        changed = true;
                    }
                    let m = match self.fault {
                        Fault::IgnoresAlwaysSkip => WireMark::ALWAYS_SKIP,
                        Fault::IgnoresSkipOnce => WireMark::SKIP_ONCE,
                        _ => WireMark(0xFF),
                    };
                    if !s.pr && s.m == m {
                        s.m = WireMark::NONE;
                        changed = true;
                    }
                }
                if let Some(n) = f.ext.neth.as_mut() {
                    let swap = match self.fault {
                        Fault::TrimAsWindow => {
                            Some((NackReason::TRIMMED, NackReason::PSN_OOR_WINDOW))
                        }
                        Fault::WindowAsTrim => {
                            Some((NackReason::PSN_OOR_WINDOW, NackReason::TRIMMED))
                        }
                        Fault::FatalNackIgnored => {
                            Some((NackReason::UNEXP_EVENT, NackReason::NO_RESOURCE))
                        }
                        _ => None,
                    };
                    if let Some((from, to)) = swap.filter(|(from, _)| n.reason == *from) {
                        n.reason = to;
                        let _ = from;
                        changed = true;
                    }
                }
                if let Some(a) = f.ext.aeth.as_mut() {
                    if self.fault == Fault::NakAsAck && a.syndrome & 0x60 == 0x60 {
                        a.syndrome = AethRepr::ACK_UNLIMITED_CREDIT;
                        changed = true;
                    }
                }
                if let Some(r) = f.ext.reth.as_mut() {
                    if self.fault == Fault::RkeyNotChecked && r.rkey != corpus::RKEY {
                        r.rkey = corpus::RKEY;
                        r.va = corpus::REGION + (r.va & 0xF_FFFF);
                        changed = true;
                    }
                }
                if changed {
                    f.icrc = None;
                    if let Ok(b) = f.to_bytes() {
                        *bytes = b;
                    }
                }
            }
            _ => {}
        }
        Some(i)
    }

    /// Frames the decoder does not take for RoCEv2, made into RoCEv2 by the fault.
    fn raw(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        let d = decode(bytes);
        let (Some(IpRepr::V4(_)), Some(at)) = (&d.ip, d.layout.ip) else { return None };
        let mut b = bytes.to_vec();
        match self.fault {
            // Flags and fragment offset: bytes 6-7 of the IPv4 header.
            Fault::ProcessesFragments if b[at + 6] & 0x20 != 0 => b[at + 6] &= !0x20,
            // Destination port: bytes 2-3 of the UDP header after a 20-byte IPv4 header.
            Fault::AnyUdpPort if u16::from_be_bytes([b[at + 22], b[at + 23]]) != 4791 => {
                b[at + 22..at + 24].copy_from_slice(&4791u16.to_be_bytes())
            }
            _ => return None,
        }
        let mut f = decode(&b).to_repr()?;
        f.finalize().ok()?;
        f.to_bytes().ok()
    }

    /// A SACK that the checks of SND-SACK-003 or SND-SACK-004 discard, made into one they
    /// pass that carries the same mark (MarksOfDiscardedSacks): nothing but its mark.
    fn marks_of_discarded(&self, i: &TimedInput) -> Option<TimedInput> {
        let Input::Frame { port, bytes } = &i.input else { return None };
        let mut f = decode(bytes).to_repr()?;
        let s = f.ext.seth.as_mut()?;
        let beyond = self.hi_sent.is_none_or(|hi| s.cack_psn.is_after(hi));
        let wild = i32::from(s.sack_offset).unsigned_abs() > self.window + 64;
        if s.pr || s.m == WireMark::NONE || !(beyond || wild) {
            return None;
        }
        // Everything before the QP's first PSN: stale, so it acknowledges nothing.
        (s.cack_psn, s.sack_offset, s.sack_bitmap) = (Psn::ZERO.sub(1), 1, 0);
        f.bth.psn = s.cack_psn;
        f.icrc = None;
        let bytes = f.to_bytes().ok()?;
        Some(TimedInput { at: i.at, input: Input::Frame { port: *port, bytes } })
    }

    /// Notes what the device sent, and changes it as the fault says.
    fn sent(&mut self, o: &mut TimedOutput) {
        let Output::Frame { bytes, .. } = &mut o.output else { return };
        let d = decode(bytes);
        let Some(b) = d.bth.filter(|b| b.opcode.is_mrc_write()) else { return };
        if !b.rtx && self.hi_sent.is_none_or(|hi| b.psn.is_after(hi)) {
            self.hi_sent = Some(b.psn);
        }
        let Some(ts) = d.ext.tseth else { return };
        let key = (b.dest_qp.value(), b.psn.value());
        let first = *self.first_ts.entry(key).or_insert(ts.tx_timestamp);
        if self.fault == Fault::RetransmissionKeepsTimestamp && b.rtx {
            if let Some(mut f) = d.to_repr() {
                if let Some(t) = f.ext.tseth.as_mut() {
                    t.tx_timestamp = first;
                }
                f.icrc = None;
                if let Ok(b) = f.to_bytes() {
                    *bytes = b;
                }
            }
        }
    }

    fn output(&self, o: &TimedOutput) -> bool {
        if let Output::Event { event: NicEvent::Completion(c) } = &o.output {
            let rejected = (0x01..=0x0F).contains(&c.entry.status.0);
            return !(self.fault == Fault::SilentDoorbellReject && rejected);
        }
        let Output::Frame { bytes, .. } = &o.output else { return true };
        let d = decode(bytes);
        let is_sack = d.bth.is_some_and(|b| b.opcode == Opcode::MRC_SACK);
        match self.fault {
            Fault::NoProbeAnswer => !(is_sack && d.ext.seth.is_some_and(|s| s.pr)),
            Fault::NoDuplicateSack => !(is_sack && self.dup_at.contains(&o.at.0)),
            Fault::NoNak => d.ext.aeth.is_none_or(|a| a.syndrome & 0x60 != 0x60),
            // No CPU half commands probes in the scenario this mutant is run on.
            Fault::NoPolicyProbes => d.bth.is_none_or(|b| b.opcode != Opcode::MRC_PROBE),
            _ => true,
        }
    }
}

impl Device for Mutant {
    fn name(&self) -> String {
        format!("mutant:{:?}", self.fault)
    }

    fn capabilities(&self) -> BTreeSet<Capability> {
        self.inner.capabilities()
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        let mut m = manifest.clone();
        match self.fault {
            Fault::ShortSkipHold => m.nic.skip_hold = std::time::Duration::from_micros(1),
            Fault::SenderWwiUnlimited if m.requires.contains(&Capability::Requester) => {
                m.nic.wwi_limit = 1000
            }
            Fault::ResponderWwiUnlimited if m.requires.contains(&Capability::Responder) => {
                m.nic.wwi_limit = 1000
            }
            Fault::TimestampsAlwaysOn => m.nic.timestamps = true,
            _ => {}
        }
        self.seen.clear();
        self.dup_at.clear();
        self.hi_sent = None;
        self.window = m.nic.window();
        self.first_ts.clear();
        self.inner.start(&m)
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        let mut given = Vec::with_capacity(inputs.len());
        for i in inputs {
            if self.fault == Fault::MarksOfDiscardedSacks {
                given.extend(self.marks_of_discarded(&i));
            }
            given.extend(self.input(i));
        }
        let mut out = self.inner.advance(given, until)?;
        for o in &mut out {
            self.sent(o);
        }
        if self.fault == Fault::NewDataFirst {
            new_data_first(&mut out);
        }
        Ok(out.into_iter().filter(|o| self.output(o)).collect())
    }
}

/// Within each run of outputs at one time, puts the first transmissions before the
/// retransmissions, each in its order (NewDataFirst).
fn new_data_first(out: &mut [TimedOutput]) {
    let rtx_of = |o: &TimedOutput| match &o.output {
        Output::Frame { bytes, .. } => {
            decode(bytes).bth.filter(|b| b.opcode.is_mrc_write()).map(|b| b.rtx)
        }
        _ => None,
    };
    let mut start = 0;
    while start < out.len() {
        let at = out[start].at;
        let end = start + out[start..].iter().take_while(|o| o.at == at).count();
        let slots: Vec<usize> = (start..end).filter(|&k| rtx_of(&out[k]).is_some()).collect();
        let mut data: Vec<TimedOutput> = slots.iter().map(|&k| out[k].clone()).collect();
        data.sort_by_key(|o| rtx_of(o) == Some(true));
        for (&k, o) in slots.iter().zip(data) {
            out[k] = o;
        }
        start = end;
    }
}

/// Whether `bytes` is an IPv6 RoCEv2 frame whose UDP checksum is 0.
fn is_v6_without_checksum(bytes: &[u8]) -> bool {
    let d = decode(bytes);
    matches!(d.ip, Some(IpRepr::V6(_))) && d.udp.is_some_and(|u| u.checksum == 0)
}

#[test]
fn each_mutant_fails_the_scenarios_written_for_it() {
    let cases: &[(Fault, &[&str])] = &[
        (Fault::IgnoresAlwaysSkip, &["snd-ev-always-skip", "snd-ev-probe-skip"]),
        (Fault::IgnoresSkipOnce, &["snd-ev-skip"]),
        (Fault::ShortSkipHold, &["snd-ev-skip", "snd-ev-probe-skip"]),
        (Fault::TrimAsWindow, &["snd-ev-skip", "snd-nack-backoff"]),
        (Fault::WindowAsTrim, &["snd-nack-backoff"]),
        (Fault::FatalNackIgnored, &["snd-nack-fatal"]),
        (Fault::NakAsAck, &["snd-ack-nak"]),
        (Fault::SenderWwiUnlimited, &["snd-wwi-limit", "snd-nack-fatal"]),
        (Fault::ResponderWwiUnlimited, &["rcv-wwi-limit", "ret-error-releases-domain"]),
        (
            Fault::ProbeCommandIgnored,
            &["snd-ev-always-skip", "snd-timeout-loss", "snd-dark-path-v6", "ret-retry-exceeded"],
        ),
        (
            Fault::RetransmitCommandIgnored,
            &["snd-lost-sack", "snd-lost-ack", "snd-timeout-loss", "ret-retry-exceeded"],
        ),
        (Fault::NoProbeAnswer, &["rcv-probe"]),
        (Fault::NoDuplicateSack, &["rcv-duplicate-before-retirement"]),
        (Fault::RkeyNotChecked, &["rcv-placement-errors", "rcv-check-order"]),
        (Fault::DenyAsAssumedBad, &["snd-ev-deny"]),
        (Fault::IgnoresPeerMpr, &["snd-window"]),
        (Fault::IgnoresSackBitmap, &["snd-cc-sack"]),
        (Fault::SilentDoorbellReject, &["db-reject", "db-bad-templates"]),
        (Fault::NoNak, &["rcv-placement-errors", "rcv-check-order"]),
        (Fault::RejectsTver, &["rcv-lenient"]),
        (Fault::RejectsIpv4Options, &["rcv-lenient"]),
        (Fault::ProcessesFragments, &["rcv-lenient"]),
        (Fault::AnyUdpPort, &["rcv-lenient"]),
        (Fault::RejectsZeroUdpChecksumV6, &["rcv-lenient-v6"]),
        (Fault::SprayAs(SprayPolicy::Fixed), &["snd-spray-round-robin"]),
        (Fault::SprayAs(SprayPolicy::RoundRobin), &["snd-spray-fixed"]),
        (Fault::SprayAs(SprayPolicy::RoundRobin), &["snd-spray-skew-aware"]),
        (Fault::NewDataFirst, &["snd-sched-order"]),
        (Fault::SprayAs(SprayPolicy::RoundRobin), &["snd-spray-window-fit"]),
        (Fault::NoPolicyProbes, &["snd-spray-window-fit"]),
        (Fault::MarksOfDiscardedSacks, &["snd-sack-order"]),
        (Fault::ProbeAnswerAsMark, &["snd-sack-order"]),
        (Fault::TimestampsAlwaysOn, &["snd-no-timestamps"]),
        (Fault::RetransmissionKeepsTimestamp, &["snd-infer-retransmitted"]),
    ];
    let all = corpus::all();
    let mut missed = Vec::new();
    for (fault, names) in cases {
        for name in *names {
            let build = all
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{name} is not in the corpus"))
                .1;
            let s = build();
            let mut dev = Mutant::new(*fault);
            let out = run(&mut dev, &s);
            let j = judge(&s, &out.injected, &out.observed);
            // CORPUS_POWER_ALL=1 prints every divergence, not only the first.
            let shown = if std::env::var_os("CORPUS_POWER_ALL").is_some() { usize::MAX } else { 1 };
            for d in j.divergences.iter().take(shown) {
                println!("{fault:?} / {name}: {} at {}: {}", d.requirement, d.at, d.what);
            }
            if j.divergences.is_empty() && out.error.is_none() {
                missed.push(format!("{fault:?} passes {name}"));
            }
        }
    }
    assert!(missed.is_empty(), "{missed:#?}");
}

// ===== wrong loss inference ===============================================================

/// A wrong rule of loss inference (sender section 8), one at a time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Bugs {
    /// The PSNs between a SACK's cumulative PSN and its bitmap's base count as reported
    /// missing (SND-INFER-002).
    gap_reported: bool,
    /// A suspect is judged by every PSN known to have arrived, whether or not the SACK
    /// being processed covers it or shows its evidence (SND-INFER-002).
    judged_uncovered: bool,
    /// The arrival of a retransmitted PSN is evidence about its latest EV (SND-INFER-003).
    evidence_from_retransmission: bool,
    /// A suspect is kept after its PSN is known to have arrived (SND-INFER-004).
    keeps_arrived: bool,
    /// A suspect is kept after its PSN was transmitted again (SND-INFER-004).
    keeps_resent: bool,
    /// A retransmission takes no per-EV sequence number on its new EV (SND-RTX-006).
    no_sequence_for_retransmission: bool,
    /// A PSN is queued for retransmission again by each reason to retransmit it, while
    /// queued (SND-RTX-005).
    queues_per_reason: bool,
}

/// One PSN as the device's boundary shows it.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    /// EV and per-EV sequence of its latest transmission (`u64::MAX`: none on that EV).
    ev: u32,
    seq: u64,
    msn: u16,
    retransmitted: bool,
    arrived: bool,
    inferred: bool,
    queued: bool,
}

/// Per-EV FIFO loss inference (SND-INFER-001 to -004) followed from a QP's boundary —
/// the data packets it sends and the acknowledgements it gets — by the rules of sender
/// section 8 or with one of them broken. Two of them side by side, right and wrong, tell
/// what a device with the bug would retransmit that the reference does not, and the
/// reverse.
#[derive(Debug, Clone, Default)]
struct Inference {
    bugs: Bugs,
    psns: std::collections::BTreeMap<u32, Seen>,
    fifo: HashMap<u32, std::collections::VecDeque<(u32, u64)>>,
    next_seq: HashMap<u32, u64>,
    /// (PSN, per-EV sequence of the suspected transmission, PSN of the evidence).
    suspects: Vec<(u32, u64, u32)>,
}

impl Inference {
    fn new(bugs: Bugs) -> Self {
        Inference { bugs, ..Inference::default() }
    }

    fn sent(&mut self, psn: u32, ev: u32, rtx: bool, msn: u16) {
        let seq = self.next_seq.entry(ev).or_default();
        let p = self.psns.entry(psn).or_default();
        p.ev = ev;
        p.msn = msn;
        p.queued = false;
        p.retransmitted |= rtx;
        if rtx && self.bugs.no_sequence_for_retransmission {
            p.seq = u64::MAX;
            return;
        }
        p.seq = *seq;
        self.fifo.entry(ev).or_default().push_back((psn, *seq));
        *seq += 1;
    }

    /// A reason to retransmit `psn` other than inference (a NACK, a timeout). Returns
    /// whether it queues the PSN a second time (only with `queues_per_reason`).
    fn queue(&mut self, psn: u32) -> bool {
        let Some(p) = self.psns.get_mut(&psn).filter(|p| !p.arrived) else { return false };
        let again = p.queued && self.bugs.queues_per_reason;
        p.queued = true;
        again
    }

    fn arrived(&mut self, psn: u32) {
        let Some(p) = self.psns.get_mut(&psn).filter(|p| !p.arrived) else { return };
        p.arrived = true;
        let p = *p;
        if p.retransmitted && !self.bugs.evidence_from_retransmission || p.seq == u64::MAX {
            return;
        }
        let fifo = self.fifo.entry(p.ev).or_default();
        while let Some(&(q, seq)) = fifo.front() {
            if seq > p.seq {
                break;
            }
            fifo.pop_front();
            if seq < p.seq {
                self.suspects.push((q, seq, psn));
            }
        }
    }

    /// A transport ACK for `msn`: every PSN of the messages it covers arrived.
    fn acked(&mut self, msn: u16) {
        let covered: Vec<u32> = self
            .psns
            .iter()
            .filter(|(_, p)| (msn.wrapping_sub(p.msn) as i16) >= 0)
            .map(|(&q, _)| q)
            .collect();
        for q in covered {
            self.arrived(q);
        }
    }

    /// A SACK: the PSNs it infers lost, and those it would infer but finds queued
    /// already (a second queueing with `queues_per_reason`).
    fn sack(&mut self, s: &openrdma_codec::SethRepr) -> (Vec<u32>, Vec<u32>) {
        let cack = s.cack_psn;
        let base = s.bitmap_base();
        let in_bitmap = |q: u32| s.sack_offset >= 1 && Psn::new(q).in_window(base, 64);
        let shows = |q: u32| {
            !Psn::new(q).is_after(cack)
                || (in_bitmap(q) && s.sack_bitmap >> Psn::new(q).forward_from(base) & 1 == 1)
        };
        let known: Vec<u32> = self.psns.keys().copied().filter(|&q| shows(q)).collect();
        for q in known {
            self.arrived(q);
        }
        let bugs = self.bugs;
        let covers = |q: u32| {
            !Psn::new(q).is_after(cack)
                || in_bitmap(q)
                || (bugs.gap_reported && s.sack_offset > 1 && Psn::new(q).is_before(base))
        };
        let (mut lost, mut again) = (Vec::new(), Vec::new());
        let mut suspects = std::mem::take(&mut self.suspects);
        suspects.retain(|&(q, seq, evidence)| {
            let Some(p) = self.psns.get(&q).copied() else { return false };
            if (p.arrived && !bugs.keeps_arrived) || (p.seq != seq && !bugs.keeps_resent) {
                return false;
            }
            if p.inferred {
                return false;
            }
            let judged = if bugs.judged_uncovered {
                self.psns.get(&evidence).is_some_and(|e| e.arrived)
            } else {
                covers(q) && shows(evidence)
            };
            if !judged || shows(q) {
                return true;
            }
            if p.queued {
                if bugs.queues_per_reason {
                    again.push(q);
                }
                return false;
            }
            let p = self.psns.get_mut(&q).expect("looked up above");
            p.inferred = true;
            p.queued = true;
            lost.push(q);
            false
        });
        self.suspects = suspects;
        (lost, again)
    }
}

/// The reference device with one rule of loss inference broken: it sends the
/// retransmissions that the broken rule adds, and not those it takes away, at the time
/// of the acknowledgement that decides them.
struct InferenceMutant {
    bugs: Bugs,
    inner: ReferenceDevice,
    right: HashMap<u32, Inference>,
    wrong: HashMap<u32, Inference>,
    /// The device's QPN → the peer QPN its packets carry.
    peer_of: HashMap<u32, u32>,
    /// The latest data frame of each (peer QPN, PSN).
    frames: HashMap<(u32, u32), Vec<u8>>,
    /// Retransmissions of the reference to withhold: (peer QPN, PSN).
    withhold: HashSet<(u32, u32)>,
    /// PSNs the right rules inferred, and the reference's retransmissions by inference:
    /// the two must agree for the comparison to mean anything.
    inferred: Vec<(u32, u32)>,
    reported: Vec<(u32, u32)>,
}

impl InferenceMutant {
    fn new(bugs: Bugs) -> Self {
        InferenceMutant {
            bugs,
            inner: ReferenceDevice::new(),
            right: HashMap::new(),
            wrong: HashMap::new(),
            peer_of: HashMap::new(),
            frames: HashMap::new(),
            withhold: HashSet::new(),
            inferred: Vec::new(),
            reported: Vec::new(),
        }
    }

    fn both(&mut self, peer: u32) -> (&mut Inference, &mut Inference) {
        let bugs = self.bugs;
        (
            self.right.entry(peer).or_insert_with(|| Inference::new(Bugs::default())),
            self.wrong.entry(peer).or_insert_with(|| Inference::new(bugs)),
        )
    }

    /// The retransmission of `psn` a device with the bug sends at `at`, and its report to
    /// the CPU half (REC-IF-008).
    fn extra(&mut self, peer: u32, psn: u32, at: Timestamp) -> Vec<TimedOutput> {
        let Some(mut f) = self.frames.get(&(peer, psn)).and_then(|b| decode(b).to_repr()) else {
            return Vec::new();
        };
        f.bth.rtx = true;
        f.icrc = None;
        let Ok(bytes) = f.to_bytes() else { return Vec::new() };
        self.note_sent(peer, &bytes);
        let qpn = self.peer_of.iter().find(|(_, p)| **p == peer).map(|(q, _)| *q);
        let report = qpn.map(|q| {
            NicEvent::Report(NicReport::Retransmitted {
                qpn: openrdma_codec::Qpn::new(q),
                psn: Psn::new(psn),
                cause: RetransmitCause::SackInference,
                lost_ev: None,
            })
        });
        std::iter::once(Output::Frame { port: 0, bytes })
            .chain(report.map(|event| Output::Event { event }))
            .map(|output| TimedOutput { at, output })
            .collect()
    }

    fn note_sent(&mut self, peer: u32, bytes: &[u8]) {
        let d = decode(bytes);
        let (Some(b), Some(m)) = (d.bth, d.ext.meth) else { return };
        let ev = d.entropy().unwrap_or(0);
        self.frames.insert((peer, b.psn.value()), bytes.to_vec());
        let (right, wrong) = self.both(peer);
        right.sent(b.psn.value(), ev, b.rtx, m.msn);
        wrong.sent(b.psn.value(), ev, b.rtx, m.msn);
    }

    /// An input, as both rules see it; the retransmissions the bug adds.
    fn input(&mut self, i: &TimedInput) -> Vec<TimedOutput> {
        let mut out = Vec::new();
        let (peer, what) = match &i.input {
            Input::Host { command: HostCommand::CreateQp(q) } => {
                self.peer_of.insert(q.qpn.value(), q.peer_qpn.value());
                return out;
            }
            Input::Cpu { command: CpuCommand::Retransmit { qpn, psn } } => {
                let Some(&peer) = self.peer_of.get(&qpn.value()) else { return out };
                (peer, Err(psn.value()))
            }
            Input::Frame { bytes, .. } => {
                let d = decode(bytes);
                let Some(b) = d.bth else { return out };
                let Some(&peer) = self.peer_of.get(&b.dest_qp.value()) else { return out };
                (peer, Ok(d.to_repr()))
            }
            _ => return out,
        };
        let mut extra: Vec<u32> = Vec::new();
        match what {
            Err(psn) => {
                let (right, wrong) = self.both(peer);
                right.queue(psn);
                extra.extend(wrong.queue(psn).then_some(psn));
            }
            Ok(Some(f)) => {
                let (right, wrong) = self.both(peer);
                if let Some(s) = f.ext.seth.filter(|s| !s.pr) {
                    let (lost, _) = right.sack(&s);
                    let (bad, again) = wrong.sack(&s);
                    extra.extend(bad.iter().filter(|q| !lost.contains(q)));
                    extra.extend(again);
                    for q in lost.iter().filter(|q| !bad.contains(q)) {
                        self.withhold.insert((peer, *q));
                    }
                    self.inferred.extend(lost.iter().map(|&q| (peer, q)));
                } else if let Some(n) = f.ext.neth.filter(|n| !n.reason.is_fatal()) {
                    right.queue(n.nack_psn.value());
                    extra.extend(wrong.queue(n.nack_psn.value()).then_some(n.nack_psn.value()));
                } else if let Some(a) = f.ext.aeth {
                    right.acked(a.msn as u16);
                    wrong.acked(a.msn as u16);
                }
            }
            Ok(None) => {}
        }
        for q in extra {
            out.extend(self.extra(peer, q, i.at));
        }
        out
    }
}

impl Device for InferenceMutant {
    fn name(&self) -> String {
        format!("mutant:{:?}", self.bugs)
    }

    fn capabilities(&self) -> BTreeSet<Capability> {
        self.inner.capabilities()
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        self.right.clear();
        self.wrong.clear();
        self.peer_of.clear();
        self.frames.clear();
        self.withhold.clear();
        self.inferred.clear();
        self.reported.clear();
        self.inner.start(manifest)
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        let outputs = self.inner.advance(inputs.clone(), until)?;
        // Inputs and outputs in time order, an input before the outputs of its time.
        let mut inputs = inputs.into_iter().peekable();
        let mut out = Vec::new();
        for o in outputs {
            while let Some(i) = inputs.next_if(|i| i.at <= o.at) {
                out.extend(self.input(&i));
            }
            match &o.output {
                Output::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    if let Some(b) = d.bth.filter(|b| b.opcode.is_mrc_write()) {
                        let peer = b.dest_qp.value();
                        if b.rtx && self.withhold.remove(&(peer, b.psn.value())) {
                            continue;
                        }
                        self.note_sent(peer, bytes);
                    }
                }
                Output::Event {
                    event:
                        NicEvent::Report(NicReport::Retransmitted {
                            qpn,
                            psn,
                            cause: RetransmitCause::SackInference,
                            ..
                        }),
                } => {
                    if let Some(&peer) = self.peer_of.get(&qpn.value()) {
                        self.reported.push((peer, psn.value()));
                    }
                }
                _ => {}
            }
            out.push(o);
        }
        for i in inputs {
            out.extend(self.input(&i));
        }
        Ok(out)
    }
}

/// The rules the mutants break are followed right: with none broken, the inference seen
/// from the boundary infers exactly what the reference retransmits by inference, in every
/// scenario of the corpus.
#[test]
fn inference_from_the_boundary_agrees_with_the_reference() {
    for (name, build) in corpus::all() {
        let s = build();
        let mut dev = InferenceMutant::new(Bugs::default());
        let out = run(&mut dev, &s);
        assert!(out.error.is_none(), "{name}: {:?}", out.error);
        assert_eq!(dev.inferred, dev.reported, "{name}: inferred / retransmitted by inference");
        let j = judge(&s, &out.injected, &out.observed);
        assert!(j.divergences.is_empty(), "{name}: {:?}", j.divergences.first());
    }
}

#[test]
fn each_wrong_inference_fails_the_scenarios_written_for_it() {
    let cases: &[(Bugs, &[&str])] = &[
        (Bugs { gap_reported: true, ..Bugs::default() }, &["snd-infer-coverage"]),
        (Bugs { judged_uncovered: true, ..Bugs::default() }, &["snd-infer-coverage"]),
        (
            Bugs { evidence_from_retransmission: true, ..Bugs::default() },
            &["snd-infer-retransmitted"],
        ),
        (Bugs { keeps_arrived: true, ..Bugs::default() }, &["snd-infer-coverage"]),
        (Bugs { keeps_resent: true, ..Bugs::default() }, &["snd-spray-skew-aware"]),
        (
            Bugs { no_sequence_for_retransmission: true, ..Bugs::default() },
            &["snd-infer-retransmitted"],
        ),
        (Bugs { queues_per_reason: true, ..Bugs::default() }, &["snd-rtx-once"]),
    ];
    let all = corpus::all();
    let mut missed = Vec::new();
    for (bugs, names) in cases {
        for name in *names {
            let build = all
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{name} is not in the corpus"))
                .1;
            let s = build();
            let mut dev = InferenceMutant::new(*bugs);
            let out = run(&mut dev, &s);
            let j = judge(&s, &out.injected, &out.observed);
            if let Some(d) = j.divergences.first() {
                println!("{bugs:?} / {name}: {} at {}: {}", d.requirement, d.at, d.what);
            }
            if j.divergences.is_empty() && out.error.is_none() {
                missed.push(format!("{bugs:?} passes {name}"));
            }
        }
    }
    assert!(missed.is_empty(), "{missed:#?}");
}
