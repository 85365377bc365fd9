//! The scenarios catch the faults they are written for: each mutant below is the reference
//! device with one behaviour wrong at its boundary (an input it misreads, an output it
//! loses, a parameter it ignores), or, for a device with its own CPU half, the reference NIC
//! half with a CPU half that gets one rule wrong, and must fail the scenarios named with it.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::Duration;

use openrdma_codec::frame::{DecodedFrame, FrameRepr, IpRepr, decode};
use openrdma_codec::host::{
    COMPLETION_LEN, CompletionRepr, CompletionStatus, DoorbellToken, FlagRepr, Template,
};
use openrdma_codec::{
    AethKind, AethRepr, ErthRepr, EvMark as WireMark, NackReason, Opcode, Psn, Qpn, TransportClass,
};
use openrdma_codec::{Ev, Lkey, TemplateId};
use openrdma_conformance::runner::run;
use openrdma_conformance::scoreboard::judge;
use openrdma_corpus as corpus;
use openrdma_device::{
    Capability, CompletionEvent, CpuCommand, CqConfig, CqId, Device, DeviceError, EvState,
    FlagWrite, HostCommand, Input, LocalRegion, Manifest, NicEvent, NicReport, Output, RecoveryCpu,
    RecoverySettings, RetransmitCause, Side, SprayPolicy, TimedInput, TimedOutput, Timestamp,
};
use openrdma_sm::{RecoveryAgent, RecoveryConfig, ReferenceDevice, reference_cpu_half};

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
    /// The NIC's `tail_probe` is ignored: no tail is ever probed.
    TailProbeIgnored,
    /// Tail probes wait twice the NIC's `tail_probe`.
    TailProbeSlow,
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
    // The NIC half's reports, judged by the reference CPU half (`cpu = "reference"`).
    /// `Armed` is never reported (REC-IF-003).
    NoArmed,
    /// `Progress` carries the `snd_una` of the QP's previous `Progress` (REC-IF-002).
    StaleProgress,
    /// `Progress` is never reported (REC-IF-002).
    NoProgress,
    /// `EvState` is never reported (REC-IF-016).
    NoEvState,
    // A device's own CPU half (`cpu = "device"`).
    /// The timeout never backs off: `backoff` is taken as 1 (REC-RTO-005).
    NoBackoff,
    /// The back-off is not capped by `rto_max` (REC-RTO-005).
    NoRtoCap,
    /// The base timeout is a quarter too long (REC-RTO-001).
    LongRto,
    /// One retry more than `retry_limit` (REC-RETRY-002).
    ExtraRetry,
    /// Progress does not reset the retry counter (REC-RTO-002).
    NoRetryReset,
    /// A timeout retransmission blames no EV (REC-EV-002).
    NoBlame,
    /// Probes go on after the QP failed (REC-PROBE-002).
    ProbesAfterError,
    /// The consumer register is ignored: the ring wraps over entries not yet released.
    CqOverwritesUnreleased,
    /// The completions of every rejected token go to the device error queue.
    RejectsToErrorCq,
    /// `has_timestamp` is cleared, the timestamp left in place.
    TimestampWithoutFlag,
    /// Reserved byte 30 of every entry is 1.
    CqeReservedByte,
    /// `byte_len` is written big-endian.
    CqeBigEndianLength,
    /// The owner byte is written before the rest of the entry: at byte 31's write, bytes 0
    /// to 30 still hold the slot's previous contents.
    CqeOwnerFirst,
    /// A template is installed whatever its local key.
    LkeyNotChecked,
    /// Deregistering local memory leaves the templates under it enabled.
    DeregisterIgnored,
    /// The responder writes a receive completion after its message's retirement flag.
    RecvCqeAfterFlag,
    /// The retirement engine retires one message per input: of the messages one write
    /// makes retirable, the others wait for the next input.
    RetireOnePerInput,
    /// A QP's failure flushes the work requests it already completed once more.
    FlushRewritesCompleted,
    /// A template change is torn: the token right after it, at the same instant, is
    /// expanded with the new local side but the old remote side.
    TemplateTorn,
    /// A template change at the same instant as the next token takes effect after it.
    TemplateChangeLate,
    /// Template IDs are truncated to the 12 bits a token can name.
    TruncatesTemplateIds,
    /// Each doorbell register latches whatever bytes a write brings and rings with its 8
    /// bytes after every write that touches it.
    LatchesPartialWrites,
    /// A doorbell write's bytes are read big-endian.
    BigEndianDoorbell,
    /// Only doorbell register 0 is decoded; writes to the others are lost.
    FirstRegisterOnly,
    /// Doorbell register r serves template r: the register, not the token, names it.
    RegisterSelectsTemplate,
    /// Frames that a receiver must discard for this requirement are taken as if they were
    /// sound (RCV-FRAME-001): the check that makes them so is missing.
    AcceptsDiscarded(&'static str),
    /// A datagram with no room for its ICRC wedges the receive path: nothing after it is
    /// taken (ENC-LEN-004).
    WedgesOnShortDatagram,
    /// The EV of an IPv6 packet is rebuilt with the flow label's bits 19:16 (ENC-EV-001).
    EvWithFlowLabelHigh,
    /// The EV of an IPv4 packet is rebuilt as its source port alone (ENC-EV-002).
    EvFromPortAlone,
    /// NACKs reflect no timestamp (NETH-TS-001).
    NackTimestampZero,
    /// Reflected timestamps are converted to another unit (TSETH-TS-001).
    TimestampsInterpreted,
    /// Probes whose ftype is not 1 are dropped (PETH-FTYPE-001).
    RejectsPethFtype,
    /// Probes with non-zero PDC identifiers are dropped (PETH-PDC-001).
    RejectsPethPdc,
    /// MRC packets other than writes with BTH rtx set are dropped (BTH-RTX-002).
    RejectsRtxOnNonWrite,
    /// A probe is answered by a SACK with pr = 0 (PETH-RESP-001).
    ProbeAnsweredWithoutPr,
    /// A probe answer leaves the count of writes to acknowledge as it was, and the SACK timer
    /// starts only when that count leaves 0, so the next write is never SACKed by the
    /// timer (RCV-SACK-008).
    ProbeAnswerKeepsCount,
    /// Every SACK stops the SACK timer, so a transport ACK held back by `ack_coalesce` is not
    /// sent when the timer would have expired once a SACK has gone out since the retirement
    /// (RCV-SACK-008).
    SackCancelsHeldBackAck,
    /// SACKs with non-zero PDC identifiers are dropped (SETH-PDC-001).
    RejectsSethPdc,
    /// SACKs with a non-zero res_type or next_header are dropped (SETH-TYPE-001).
    RejectsSethType,
    /// SACKs whose cc_type or cc_flags is not 0 are dropped (SETH-CC-001).
    RejectsCcType,
    /// NACKs with non-zero PDC identifiers are dropped (NETH-PDC-001).
    RejectsNethPdc,
    /// NACKs with a non-zero res_type or next_header are dropped (NETH-TYPE-001).
    RejectsNethType,
    /// A NACK with vendor_info set is taken for UNEXP_EVENT (NETH-VENDOR-001).
    VendorInfoAsReason,
    /// An ACK whose credit code is 0 stops the sender: no further message goes out
    /// (AETH-MRC-002).
    CreditZeroStalls,
    /// Only credit code 0x1F is taken for an ACK; any other is a NAK (AETH-MRC-002).
    OnlyUnlimitedCreditIsAck,
    /// Endpoint requests are not answered (ERTH-RESP-001).
    NoEndpointResponse,
    /// Endpoint responses report no port up (EETH-PORT-001).
    EndpointPortsZero,
    /// Endpoint responses travel on another EV than the request's (ERTH-RESP-001).
    EndpointWrongEv,
    /// Endpoint requests say every port is up (ERTH-PORT-001).
    RequestPortsAllUp,
    /// Endpoint requests carry a non-zero `resv12` (ERTH-RESV-001).
    RequestResv12Set,
    /// Endpoint requests leave on port 0's EV, whatever EV was commanded (REC-IF-017).
    RequestOnFirstEv,
    /// Endpoint responses are not reported to the CPU half (REC-IF-018).
    ResponseUnreported,
    /// A probe answer's round trip is taken the wrong way round, the reflected timestamp
    /// minus the clock, modulo 2^16 (SND-SPRAY-010): about 1 ms instead of microseconds.
    ProbeRttReversed,
    /// A window-fit QP takes no round-trip sample from probe answers (SND-SPRAY-010): an
    /// EV whose only sample would come from a probe stays judged by the age of its oldest
    /// transmission in flight.
    ProbeSampleIgnored,
    /// Endpoint requests with an unknown op are dropped (ERTH-OP-001).
    DropsUnknownEndpointOp,
    /// Endpoint requests to any QPN are answered (ERTH-QPN-001).
    AnswersAnyQpn,
    /// Endpoint responses are answered as if they were requests (ERTH-RESP-001).
    AnswersResponses,
    /// QPN 2 is allowed for an MRC QP, at either end (ERTH-QPN-001).
    AcceptsQpn2,
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

/// The QPN a device that allows QPN 2 gives its QP 2 inside the reference device, and the
/// peer QPN it gives a QP facing QP 2.
const ALIAS_2: u32 = 0x7702;
const ALIAS_PEER_2: u32 = 0x7703;

struct Mutant {
    fault: Fault,
    inner: ReferenceDevice,
    seen: HashSet<(u32, u32)>,
    dup_at: BTreeSet<u64>,
    /// The `snd_una` of each QP's last `Progress`, as the device reported it.
    last_una: HashMap<u32, Psn>,
    /// The device's last probe frame, and when it is sent again after the QP failed.
    last_probe: Option<Vec<u8>>,
    again_at: Option<u64>,
    probe_interval: u64,
    /// Completion queues as software created them.
    cqs: HashMap<CqId, CqConfig>,
    /// The device error queue.
    error_cq: Option<CqId>,
    /// What each slot of each queue holds.
    slots: HashMap<(CqId, u32), [u8; COMPLETION_LEN]>,
    /// Whether the inputs so far started with the mutant's own registration.
    registered: bool,
    /// Sender flags written so far (FlushRewritesCompleted).
    flags: Vec<FlagWrite>,
    /// Retirement flags waiting for the next input (RetireOnePerInput).
    held: Vec<TimedOutput>,
    /// Templates installed, and the change (old, new) the next token is torn by, with the
    /// instant it happened (TemplateTorn).
    templates: HashMap<TemplateId, Template>,
    torn: Option<(u64, Template, Template)>,
    /// The bytes each doorbell register holds (LatchesPartialWrites).
    latches: HashMap<u32, [u8; 8]>,
    wedged: bool,
    /// CreditZeroStalls: an ACK with credit code 0 arrived.
    stalled: bool,
    /// ProbeAnswerKeepsCount: a probe answer went out and no SACK at an input since.
    stale: bool,
    /// SackCancelsHeldBackAck: a SACK went out since the last transport ACK.
    sacked: bool,
    /// The highest PSN the device has sent, and its window.
    hi_sent: Option<Psn>,
    window: u32,
    /// The TSETH timestamp of each PSN's first transmission.
    first_ts: HashMap<(u32, u32), u16>,
    /// The EV profile of each window-fit QP, by QPN (ProbeSampleIgnored).
    fit_profiles: HashMap<u32, Vec<Ev>>,
    /// Probe answers handed to the reference under an EV foreign to their QP, by (QPN, that
    /// EV): the EV they answered for (ProbeSampleIgnored).
    hidden: HashMap<(u32, Ev), Ev>,
    /// Whether the scenario's device probes tails (`tail_probe` set).
    tail_probes: bool,
}

/// The key under which [`Fault::LkeyNotChecked`] installs every template.
const ANY_KEY: Lkey = Lkey::new(0xFFFF_FF00);

impl Mutant {
    fn new(fault: Fault) -> Self {
        let inner = match fault {
            Fault::NoRetryReset => ReferenceDevice::with_cpu_half(NoRetryReset::boxed),
            Fault::NoBlame => ReferenceDevice::with_cpu_half(NoBlame::boxed),
            _ => ReferenceDevice::new(),
        };
        Mutant {
            fault,
            inner,
            seen: HashSet::new(),
            dup_at: BTreeSet::new(),
            last_una: HashMap::new(),
            last_probe: None,
            again_at: None,
            probe_interval: 0,
            cqs: HashMap::new(),
            error_cq: None,
            slots: HashMap::new(),
            registered: false,
            flags: Vec::new(),
            held: Vec::new(),
            templates: HashMap::new(),
            torn: None,
            latches: HashMap::new(),
            wedged: false,
            stalled: false,
            stale: false,
            sacked: false,
            hi_sent: None,
            window: 0,
            first_ts: HashMap::new(),
            fit_profiles: HashMap::new(),
            hidden: HashMap::new(),
            tail_probes: false,
        }
    }

    /// Host commands as the faulty device takes them.
    fn host(&mut self, cmd: &mut HostCommand) -> bool {
        match cmd {
            HostCommand::CreateCq(c) => {
                self.cqs.insert(c.cq, *c);
                if self.fault == Fault::CqOverwritesUnreleased {
                    // Never full: a ring far larger than the one in memory.
                    c.entries = c.entries.saturating_mul(256).min(1 << 31);
                }
            }
            HostCommand::SetErrorCq { cq } => self.error_cq = Some(*cq),
            HostCommand::SetTemplate(t) if self.fault == Fault::LkeyNotChecked => {
                t.local_lkey = ANY_KEY;
            }
            HostCommand::DeregisterLocal { .. } if self.fault == Fault::DeregisterIgnored => {
                return false;
            }
            _ => {}
        }
        true
    }

    /// A completion as the faulty device writes it.
    fn completion(&mut self, c: &mut CompletionEvent) {
        let mut e = c.written_entry();
        match self.fault {
            Fault::CqOverwritesUnreleased => {
                if let Some(q) = c.queue.as_mut() {
                    let Some(cfg) = self.cqs.get(&q.cq) else { return };
                    // The device's count is the slot in its huge ring.
                    let k = u64::from(q.slot);
                    let n = u64::from(cfg.entries);
                    q.slot = (k % n) as u32;
                    q.addr = cfg.slot_addr(q.slot);
                    e.phase = (k / n) % 2 == 0;
                }
            }
            Fault::RejectsToErrorCq => {
                if let (Some(q), Some(err)) = (c.queue.as_mut(), self.error_cq) {
                    if e.status.is_doorbell_reject() {
                        q.cq = err;
                    }
                }
                return;
            }
            Fault::TimestampWithoutFlag => e.has_timestamp = false,
            Fault::CqeReservedByte => e.resv2 = 1,
            _ => {}
        }
        c.entry = e;
        let Some(q) = c.queue.as_mut() else { return };
        let _ = e.emit(&mut q.bytes);
        match self.fault {
            Fault::CqeBigEndianLength => q.bytes[16..20].copy_from_slice(&e.byte_len.to_be_bytes()),
            Fault::CqeOwnerFirst => {
                let before = self.slots.insert((q.cq, q.slot), q.bytes).unwrap_or([0; 32]);
                q.bytes[..COMPLETION_LEN - 1].copy_from_slice(&before[..COMPLETION_LEN - 1]);
                c.entry = CompletionRepr::parse(&q.bytes).unwrap_or_default();
            }
            _ => {}
        }
    }

    fn input(&mut self, mut i: TimedInput) -> Option<TimedInput> {
        if let Input::Host { command } = &mut i.input
            && !self.host(command)
        {
            return None;
        }
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
            Input::Frame { bytes, .. } if self.fault == Fault::ProbeRttReversed => {
                let d = decode(bytes);
                if let (Some(mut f), true) = (d.to_repr(), d.ext.seth.is_some_and(|x| x.pr)) {
                    if let Some(c) = f.ext.cc_state.as_mut() {
                        // The reference computes clock - reflected, in its unit of 16 ns;
                        // reflect 2 x clock - reflected to have it compute the reverse.
                        let clock = (i.at.0 / 16) as u16;
                        c.tx_timestamp = clock.wrapping_mul(2).wrapping_sub(c.tx_timestamp);
                    }
                    if let Some(b) = seal(f) {
                        *bytes = b;
                    }
                }
            }
            Input::Host { command: HostCommand::SetTemplate(t) }
                if self.fault == Fault::TruncatesTemplateIds =>
            {
                t.template_id = TemplateId::new(t.template_id.value() & 0xFFF);
            }
            Input::Cpu { command: CpuCommand::SetEvState { state, .. } }
                if self.fault == Fault::DenyAsAssumedBad && *state == EvState::Denied =>
            {
                *state = EvState::AssumedBad;
            }
            Input::Host { command: HostCommand::PostWrite(_) | HostCommand::Doorbell { .. } }
                if self.stalled =>
            {
                return None;
            }
            Input::Host { command: HostCommand::CreateQp(q) }
                if self.fault == Fault::AcceptsQpn2 =>
            {
                if q.qpn.value() == 2 {
                    q.qpn = Qpn::new(ALIAS_2);
                }
                if q.peer_qpn.value() == 2 {
                    q.peer_qpn = Qpn::new(ALIAS_PEER_2);
                }
            }
            Input::Host { command: HostCommand::CreateQp(q) } => {
                if let Fault::SprayAs(policy) = self.fault {
                    q.spray = policy;
                }
                if q.spray == SprayPolicy::WindowFit {
                    let profile = q.evs.iter().chain(&q.backup_evs).copied().collect();
                    self.fit_profiles.insert(q.qpn.value(), profile);
                }
            }
            Input::Frame { bytes, .. } if self.fault == Fault::ProbeSampleIgnored => {
                if let Some(b) = self.hide_probe_answer(bytes) {
                    *bytes = b;
                }
            }
            Input::Frame { bytes, .. } => {
                if self.fault == Fault::RejectsZeroUdpChecksumV6 && is_v6_without_checksum(bytes) {
                    return None;
                }
                if self.fault == Fault::WedgesOnShortDatagram {
                    self.wedged |= decode(bytes).discard_reason() == Some("ENC-LEN-004");
                    if self.wedged {
                        return None;
                    }
                }
                if let Fault::AcceptsDiscarded(reason) = self.fault {
                    if let Some(b) = repair(bytes, reason) {
                        *bytes = b;
                    }
                }
                if self.fault == Fault::EvWithFlowLabelHigh {
                    if let Some(b) = flow_label_into_port(bytes) {
                        *bytes = b;
                    }
                }
                let d = decode(bytes);
                if self.rejects(&d) {
                    return None;
                }
                if let Some(b) = self.misread(&d).and_then(seal) {
                    *bytes = b;
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

    /// A probe answer to a window-fit QP, made into one that the reference takes no sample
    /// from (ProbeSampleIgnored): the same SACK under an EV that is not the QP's, which the
    /// reference's sender looks up in vain. For an answer on an EV in state GOOD, the only
    /// kind the window-fit policy probes, the rest is what the answer does anyway: nothing
    /// to the EV's state (EV-PROBE-002 and EV-PROBE-003 move only an ASSUMED_BAD EV), the
    /// SACK's acknowledgements as any SACK's, and a `ProbeAnswered` report, whose EV
    /// [`Mutant::output`] puts back. Without tail probing, which also reads the answer's EV
    /// (SND-TAIL-003), that is exactly a sender that ignores the sample; the scenario this
    /// mutant is run on answers probes on GOOD EVs only.
    fn hide_probe_answer(&mut self, bytes: &[u8]) -> Option<Vec<u8>> {
        if self.tail_probes {
            return None;
        }
        let d = decode(bytes);
        let qpn = d.bth?.dest_qp.value();
        let profile = self.fit_profiles.get(&qpn)?;
        let mut f = d.to_repr()?;
        let seth = f.ext.seth.as_mut().filter(|s| s.pr)?;
        let ev = seth.entropy;
        let foreign = (1..).map(|k| Ev::new(ev.value() ^ k)).find(|e| !profile.contains(e))?;
        seth.entropy = foreign;
        self.hidden.insert((qpn, foreign), ev);
        seal(f)
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

    /// Reorders or adds outputs, for the faults of the order of writes.
    fn rewrite(&mut self, out: Vec<TimedOutput>) -> Vec<TimedOutput> {
        let mut res: Vec<TimedOutput> = Vec::with_capacity(out.len());
        for o in out {
            match (&self.fault, &o.output) {
                (Fault::RecvCqeAfterFlag, Output::Event { event: NicEvent::FlagWrite(f) })
                    if f.side == Side::Responder =>
                {
                    // Before the receive completion of the same message, if it is just out.
                    let k = res.iter().rposition(|x| {
                        matches!(&x.output, Output::Event { event: NicEvent::Completion(c) }
                            if c.side == Side::Responder && c.entry.msn == f.msn)
                    });
                    match k {
                        Some(k) => res.insert(k, o),
                        None => res.push(o),
                    }
                }
                (
                    Fault::FlushRewritesCompleted,
                    Output::Event { event: NicEvent::FlagWrite(f) },
                ) if f.side == Side::Requester => {
                    self.flags.push(*f);
                    res.push(o);
                }
                (
                    Fault::FlushRewritesCompleted,
                    Output::Event { event: NicEvent::Report(NicReport::QpError { qpn, .. }) },
                ) => {
                    // Every flag the QP wrote before is written again, FLUSHED.
                    let at = o.at;
                    let flushed = FlagRepr::sender(0, CompletionStatus::FLUSHED, 0).to_u64();
                    for f in self.flags.iter().filter(|f| f.qpn == *qpn) {
                        let value = (f.value & 0xFFFF_0000_0000_0000) | flushed;
                        let event = NicEvent::FlagWrite(FlagWrite { value, ..*f });
                        res.push(TimedOutput { at, output: Output::Event { event } });
                    }
                    res.push(o);
                }
                _ => res.push(o),
            }
        }
        res
    }

    /// The device's output as the fault makes it, or `None` when it is lost.
    fn output(&mut self, mut o: TimedOutput) -> Option<TimedOutput> {
        if let Output::Event { event: NicEvent::Report(r) } = &mut o.output {
            let keep = match (self.fault, r) {
                (Fault::NoArmed, NicReport::Armed { .. }) => false,
                (Fault::NoProgress, NicReport::Progress { .. }) => false,
                (Fault::NoEvState, NicReport::EvState { .. }) => false,
                (Fault::ResponseUnreported, NicReport::EndpointResponse { .. }) => false,
                (Fault::ProbeSampleIgnored, NicReport::ProbeAnswered { qpn, ev, .. }) => {
                    if let Some(answered) = self.hidden.remove(&(qpn.value(), *ev)) {
                        *ev = answered;
                    }
                    true
                }
                (Fault::StaleProgress, NicReport::Progress { qpn, snd_una, .. }) => {
                    let prev = self.last_una.insert(qpn.value(), *snd_una);
                    *snd_una = prev.unwrap_or(Psn::ZERO);
                    true
                }
                _ => true,
            };
            return keep.then_some(o);
        }
        if let Output::Event { event: NicEvent::Completion(c) } = &o.output {
            if self.fault == Fault::ProbesAfterError
                && c.side == Side::Requester
                && c.entry.status.0 != 0
                && self.again_at.is_none()
            {
                self.again_at = Some(o.at.0 + self.probe_interval);
            }
            let rejected = (0x01..=0x0F).contains(&c.entry.status.0);
            return (!(self.fault == Fault::SilentDoorbellReject && rejected)).then_some(o);
        }
        let keep = self.keeps_frame(&o);
        if let Output::Frame { bytes, .. } = &o.output {
            if decode(bytes).ext.peth.is_some() {
                self.last_probe = Some(bytes.clone());
            }
        }
        keep.then_some(o)
    }

    fn keeps_frame(&self, o: &TimedOutput) -> bool {
        let Output::Frame { bytes, .. } = &o.output else { return true };
        if self.fault == Fault::EvFromPortAlone {
            // Rewritten in `advance`.
            return true;
        }
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

impl Mutant {
    /// Frames the newer faults drop as if they were malformed.
    fn rejects(&self, d: &DecodedFrame<'_>) -> bool {
        let Some(bth) = d.bth else { return false };
        let mrc_other =
            bth.opcode.class() == TransportClass::Manufacturer(6) && !bth.opcode.is_mrc_write();
        let pdc = |s: u16, d: u16| s != 0 || d != 0;
        match self.fault {
            Fault::RejectsPethFtype => d.ext.peth.is_some_and(|p| p.ftype != 1),
            Fault::RejectsPethPdc => d.ext.peth.is_some_and(|p| pdc(p.spdcid, p.dpdcid)),
            Fault::RejectsRtxOnNonWrite => mrc_other && bth.rtx,
            Fault::RejectsSethPdc => d.ext.seth.is_some_and(|s| pdc(s.spdcid, s.dpdcid)),
            Fault::RejectsSethType => {
                d.ext.seth.is_some_and(|s| s.res_type != 0 || s.next_header != 0)
            }
            Fault::RejectsCcType => d.ext.seth.is_some_and(|s| s.cc_type != 0 || s.cc_flags != 0),
            Fault::RejectsNethPdc => d.ext.neth.is_some_and(|n| pdc(n.spdcid, n.dpdcid)),
            Fault::RejectsNethType => {
                d.ext.neth.is_some_and(|n| n.res_type != 0 || n.next_header != 0)
            }
            Fault::DropsUnknownEndpointOp => d.ext.erth.is_some_and(|e| !e.op.is_known()),
            _ => false,
        }
    }

    /// A frame as the newer faults misread it, or `None` for a frame they read right.
    fn misread(&mut self, d: &DecodedFrame<'_>) -> Option<FrameRepr> {
        let mut f = d.to_repr()?;
        match self.fault {
            Fault::VendorInfoAsReason => {
                let n = f.ext.neth.as_mut().filter(|n| n.vendor_info != 0)?;
                n.reason = NackReason::UNEXP_EVENT;
            }
            Fault::OnlyUnlimitedCreditIsAck => {
                let a = f
                    .ext
                    .aeth
                    .as_mut()
                    .filter(|a| a.kind() == AethKind::Ack && a.syndrome != 0x1F)?;
                a.syndrome = 0x63;
            }
            Fault::CreditZeroStalls => {
                self.stalled |= f.ext.aeth.is_some_and(|a| a.syndrome == 0);
                return None;
            }
            Fault::AnswersAnyQpn if f.ext.erth.is_some() && f.bth.dest_qp != Qpn::ENDPOINT => {
                f.bth.dest_qp = Qpn::ENDPOINT;
            }
            Fault::AnswersResponses => {
                let e = f.ext.eeth.take()?;
                f.bth.opcode = Opcode::MRC_ENDPOINT_REQUEST;
                f.ext.erth = Some(ErthRepr::new(e.op, e.port_status, e.request_id));
            }
            Fault::AcceptsQpn2
                if f.bth.dest_qp == Qpn::ENDPOINT
                    && f.ext.erth.is_none()
                    && f.ext.eeth.is_none() =>
            {
                f.bth.dest_qp = Qpn::new(ALIAS_2);
            }
            _ => return None,
        }
        Some(f)
    }

    /// An output as the newer faults change it; `false` to lose it.
    fn rewrite_frame(&mut self, o: &mut TimedOutput, inputs_at: &BTreeSet<u64>) -> bool {
        if self.fault == Fault::AcceptsQpn2 {
            if let Output::Event { event } = &mut o.output {
                let q = match event {
                    NicEvent::DmaWrite(w) => &mut w.qpn,
                    NicEvent::FlagWrite(f) => &mut f.qpn,
                    NicEvent::Completion(c) => &mut c.entry.qpn,
                    NicEvent::Report(_) => return true,
                };
                if q.value() == ALIAS_2 {
                    *q = Qpn::new(2);
                }
                return true;
            }
        }
        let Output::Frame { bytes, .. } = &mut o.output else { return true };
        let Some(mut f) = decode(bytes).to_repr() else { return true };
        let at_input = inputs_at.contains(&o.at.0);
        match self.fault {
            Fault::NackTimestampZero => match f.ext.neth.as_mut() {
                Some(n) => n.tx_timestamp = 0,
                None => return true,
            },
            Fault::TimestampsInterpreted => match (f.ext.cc_state.as_mut(), f.ext.neth.as_mut()) {
                (Some(c), _) => c.tx_timestamp >>= 2,
                (_, Some(n)) => n.tx_timestamp >>= 2,
                _ => return true,
            },
            Fault::ProbeAnsweredWithoutPr => match f.ext.seth.as_mut().filter(|s| s.pr) {
                Some(s) => {
                    s.pr = false;
                    s.ack_psn_offset = 0;
                }
                None => return true,
            },
            Fault::ProbeAnswerKeepsCount => {
                if let Some(s) = f.ext.seth {
                    if s.pr {
                        self.stale = true;
                    } else if at_input {
                        self.stale = false;
                    } else if self.stale {
                        return false; // the timer never started
                    }
                }
                return true;
            }
            Fault::SackCancelsHeldBackAck => {
                if f.ext.seth.is_some() {
                    self.sacked = true;
                } else if f.ext.aeth.is_some_and(|a| a.syndrome & 0x60 == 0) {
                    if !at_input && self.sacked {
                        return false; // the timer that owed it was stopped
                    }
                    self.sacked = false;
                }
                return true;
            }
            Fault::NoEndpointResponse => return f.ext.eeth.is_none(),
            Fault::EndpointPortsZero => match f.ext.eeth.as_mut() {
                Some(e) => e.port_status = 0,
                None => return true,
            },
            Fault::EndpointWrongEv if f.ext.eeth.is_some() => {
                let ev = Ev::new(f.entropy().value() ^ 0x0001_0000);
                f.set_entropy(ev);
            }
            Fault::RequestPortsAllUp => match f.ext.erth.as_mut() {
                Some(e) => e.port_status = u32::MAX,
                None => return true,
            },
            Fault::RequestResv12Set => match f.ext.erth.as_mut() {
                Some(e) => e.resv12 = 1,
                None => return true,
            },
            Fault::RequestOnFirstEv if f.ext.erth.is_some() => f.set_entropy(Ev::new(0xA000_0000)),
            Fault::AcceptsQpn2 if f.bth.dest_qp.value() == ALIAS_PEER_2 => {
                f.bth.dest_qp = Qpn::new(2);
            }
            _ => return true,
        }
        if let Some(b) = seal(f) {
            *bytes = b;
        }
        true
    }
}

/// The bytes of a frame changed after decoding, its lengths, checksums and ICRC made right.
fn seal(mut f: FrameRepr) -> Option<Vec<u8>> {
    f.finalize().ok()?;
    f.to_bytes().ok()
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
        let rec = &mut m.recovery;
        match self.fault {
            Fault::NoBackoff => rec.backoff = 1,
            Fault::NoRtoCap => rec.rto_max = std::time::Duration::from_secs(1),
            Fault::LongRto => rec.rto += rec.rto / 4,
            Fault::ExtraRetry => rec.retry_limit += 1,
            Fault::ShortSkipHold => m.nic.skip_hold = std::time::Duration::from_micros(1),
            Fault::SenderWwiUnlimited if m.requires.contains(&Capability::Requester) => {
                m.nic.wwi_limit = 1000
            }
            Fault::ResponderWwiUnlimited if m.requires.contains(&Capability::Responder) => {
                m.nic.wwi_limit = 1000
            }
            Fault::TimestampsAlwaysOn => m.nic.timestamps = true,
            Fault::TailProbeIgnored => m.nic.tail_probe = None,
            Fault::TailProbeSlow => m.nic.tail_probe = m.nic.tail_probe.map(|d| 2 * d),
            _ => {}
        }
        self.seen.clear();
        self.dup_at.clear();
        self.last_una.clear();
        self.last_probe = None;
        self.again_at = None;
        self.probe_interval = m.recovery.probe_interval.as_nanos() as u64;
        self.cqs.clear();
        self.error_cq = None;
        self.slots.clear();
        self.registered = false;
        self.flags.clear();
        self.held.clear();
        self.templates.clear();
        self.torn = None;
        self.latches.clear();
        self.wedged = false;
        self.stalled = false;
        self.stale = false;
        self.sacked = false;
        self.hi_sent = None;
        self.window = m.nic.window();
        self.first_ts.clear();
        self.fit_profiles.clear();
        self.hidden.clear();
        self.tail_probes = m.nic.tail_probe.is_some();
        self.inner.start(&m)
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        let inputs_at: BTreeSet<u64> = inputs.iter().map(|i| i.at.0).collect();
        let inputs: Vec<TimedInput> = inputs.into_iter().flat_map(|i| self.bus(i)).collect();
        let mut given = Vec::with_capacity(inputs.len());
        for i in inputs {
            if self.fault == Fault::MarksOfDiscardedSacks {
                given.extend(self.marks_of_discarded(&i));
            }
            given.extend(self.input(i));
        }
        let mut inputs = given;
        if self.fault == Fault::LkeyNotChecked && !self.registered {
            if let Some(at) = inputs.first().map(|i| i.at) {
                self.registered = true;
                let region =
                    LocalRegion { lkey: ANY_KEY, base: 0, len: u64::MAX, local_read: true };
                let command = HostCommand::RegisterLocal(region);
                inputs.insert(0, TimedInput { at, input: Input::Host { command } });
            }
        }
        if self.fault == Fault::TemplateChangeLate {
            // A change followed by a token at its instant is applied after the token.
            for k in 1..inputs.len() {
                let (a, b) = (&inputs[k - 1], &inputs[k]);
                let change =
                    matches!(a.input, Input::Host { command: HostCommand::SetTemplate(_) });
                let token =
                    matches!(b.input, Input::Host { command: HostCommand::Doorbell { .. } });
                if change && token && a.at == b.at {
                    inputs.swap(k - 1, k);
                }
            }
        }
        let out = if matches!(self.fault, Fault::RetireOnePerInput | Fault::TemplateTorn) {
            self.one_input_at_a_time(inputs, until)?
        } else {
            self.inner.advance(inputs, until)?
        };
        let mut out = self.rewrite(out);
        for o in &mut out {
            self.sent(o);
        }
        if self.fault == Fault::NewDataFirst {
            new_data_first(&mut out);
        }
        let mut out: Vec<TimedOutput> = out.into_iter().filter_map(|o| self.output(o)).collect();
        out.retain_mut(|o| self.rewrite_frame(o, &inputs_at));
        if self.fault == Fault::EvFromPortAlone {
            for o in &mut out {
                if let Output::Frame { bytes, .. } = &mut o.output {
                    if let Some(b) = ev_from_port_alone(bytes) {
                        *bytes = b;
                    }
                }
            }
        }
        for o in &mut out {
            if let Output::Event { event: NicEvent::Completion(c) } = &mut o.output {
                self.completion(c);
            }
        }
        // A QP that failed goes on probing, every probe interval, on its last probe's EV.
        while let (Some(at), Some(bytes)) = (self.again_at, self.last_probe.clone()) {
            if at > until.0 {
                break;
            }
            out.push(TimedOutput { at: Timestamp(at), output: Output::Frame { port: 0, bytes } });
            self.again_at = Some(at + self.probe_interval.max(1));
        }
        out.sort_by_key(|o| o.at);
        Ok(out)
    }
}

/// A CPU half whose retry counter progress never resets (REC-RTO-002): the reference agent,
/// never at its limit, with the count kept here.
#[derive(Debug)]
struct NoRetryReset {
    agent: RecoveryAgent,
    limit: u32,
    retries: HashMap<u32, u32>,
    failed: BTreeSet<u32>,
    out: Vec<CpuCommand>,
}

impl NoRetryReset {
    fn boxed(cfg: &RecoverySettings) -> Result<Box<dyn RecoveryCpu>, DeviceError> {
        let unlimited = RecoveryConfig { retry_limit: u32::MAX, ..RecoveryConfig::from(cfg) };
        Ok(Box::new(NoRetryReset {
            agent: RecoveryAgent::new(unlimited),
            limit: cfg.retry_limit,
            retries: HashMap::new(),
            failed: BTreeSet::new(),
            out: Vec::new(),
        }))
    }
}

impl RecoveryCpu for NoRetryReset {
    fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
        self.agent.handle_report(now, report);
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.agent.handle_timeout(now);
        while let Some(cmd) = self.agent.poll_command() {
            let qpn = match cmd {
                CpuCommand::Retransmit { qpn, .. }
                | CpuCommand::Probe { qpn, .. }
                | CpuCommand::SetEvState { qpn, .. }
                | CpuCommand::QpError { qpn } => qpn,
                CpuCommand::EndpointRequest { .. } => {
                    self.out.push(cmd);
                    continue;
                }
            };
            if self.failed.contains(&qpn.value()) {
                continue;
            }
            if let CpuCommand::Retransmit { .. } = cmd {
                let n = self.retries.entry(qpn.value()).or_default();
                *n += 1;
                if *n > self.limit {
                    self.failed.insert(qpn.value());
                    self.out.push(CpuCommand::QpError { qpn });
                    continue;
                }
            }
            self.out.push(cmd);
        }
    }

    fn poll_command(&mut self) -> Option<CpuCommand> {
        if self.out.is_empty() {
            // Commands a report caused at once (a blame) pass straight through.
            return self.agent.poll_command();
        }
        Some(self.out.remove(0))
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.agent.poll_timeout()
    }

    fn min_delay(&self) -> Duration {
        self.agent.min_delay()
    }
}

/// A CPU half that does not hear of retransmissions, and so blames no EV (REC-EV-002).
#[derive(Debug)]
struct NoBlame(RecoveryAgent);

impl NoBlame {
    fn boxed(cfg: &RecoverySettings) -> Result<Box<dyn RecoveryCpu>, DeviceError> {
        Ok(Box::new(NoBlame(RecoveryAgent::new(cfg.into()))))
    }
}

impl RecoveryCpu for NoBlame {
    fn handle_report(&mut self, now: Timestamp, report: &NicReport) {
        if !matches!(report, NicReport::Retransmitted { .. }) {
            self.0.handle_report(now, report);
        }
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.0.handle_timeout(now);
    }

    fn poll_command(&mut self) -> Option<CpuCommand> {
        self.0.poll_command()
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.0.poll_timeout()
    }

    fn min_delay(&self) -> Duration {
        self.0.min_delay()
    }
}

impl Mutant {
    /// Each input on its own, for the faults that act on what one input causes.
    ///
    /// RetireOnePerInput: of the retirement flags one input causes, the first is written at
    /// once and the others after the outputs of the next input. TemplateTorn: the packets
    /// of the token right after a change of its template carry the old remote addresses.
    fn one_input_at_a_time(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        let mut out = Vec::new();
        let mut step = |this: &mut Self, batch: Vec<TimedInput>, at: Timestamp| {
            let torn = this.tear(&batch);
            let mut flags = 0;
            let mut later = Vec::new();
            for mut o in this.inner.advance(batch, at)? {
                if let (Some((old, new)), Output::Frame { bytes, .. }) = (&torn, &mut o.output) {
                    if let Some(mut f) = decode(bytes).to_repr() {
                        if let Some(r) = f.ext.reth.as_mut() {
                            r.va = r.va - new.remote_base + old.remote_base;
                            f.icrc = None;
                            if let Ok(b) = f.to_bytes() {
                                *bytes = b;
                            }
                        }
                    }
                }
                let retirement = matches!(&o.output,
                    Output::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Responder);
                if retirement {
                    flags += 1;
                    if flags > 1 {
                        later.push(o);
                        continue;
                    }
                }
                out.push(o);
            }
            for h in std::mem::replace(&mut this.held, later) {
                out.push(TimedOutput { at, output: h.output });
            }
            Ok::<(), DeviceError>(())
        };
        for i in inputs {
            let at = i.at;
            step(self, vec![i], at)?;
        }
        step(self, Vec::new(), until)?;
        Ok(out)
    }
}

impl Mutant {
    /// The tokens a doorbell write rings, as the faults of the bus read it; the reference
    /// reads it as `DB-MMIO-002` and `DB-FORMAT-002` say.
    fn bus(&mut self, i: TimedInput) -> Vec<TimedInput> {
        let Input::Host { command: HostCommand::DoorbellWrite(w) } = &i.input else {
            return vec![i];
        };
        let ring = |token: u64| TimedInput {
            at: i.at,
            input: Input::Host { command: HostCommand::Doorbell { token } },
        };
        match self.fault {
            Fault::LatchesPartialWrites => {
                let mut rung = Vec::new();
                for (k, b) in w.bytes.iter().enumerate() {
                    let pos = usize::from(w.offset) + k;
                    let reg = w.register.wrapping_add((pos / 8) as u32);
                    self.latches.entry(reg).or_default()[pos % 8] = *b;
                    if !rung.contains(&reg) {
                        rung.push(reg);
                    }
                }
                rung.iter().map(|r| ring(u64::from_le_bytes(self.latches[r]))).collect()
            }
            Fault::BigEndianDoorbell => match <[u8; 8]>::try_from(w.bytes.as_slice()) {
                Ok(b) if w.offset == 0 => vec![ring(u64::from_be_bytes(b))],
                _ => vec![i],
            },
            Fault::FirstRegisterOnly if w.register != 0 => vec![],
            Fault::RegisterSelectsTemplate => match w.token() {
                Some(t) => {
                    let tok = DoorbellToken::from_u64(t);
                    vec![ring(
                        DoorbellToken {
                            template: TemplateId::new(w.register as u16 & 0xFFF),
                            ..tok
                        }
                        .to_u64(),
                    )]
                }
                None => vec![i],
            },
            _ => vec![i],
        }
    }

    /// TemplateTorn: the versions (old, new) that the token of `batch` is torn between,
    /// when it is the first token after a change of its template at the same instant.
    fn tear(&mut self, batch: &[TimedInput]) -> Option<(Template, Template)> {
        if self.fault != Fault::TemplateTorn {
            return None;
        }
        let i = batch.first()?;
        match &i.input {
            Input::Host { command: HostCommand::SetTemplate(t) } => {
                let old = self.templates.insert(t.template_id, *t);
                self.torn = old
                    .filter(|o| Template { enabled: t.enabled, ..*o } != *t)
                    .map(|o| (i.at.0, o, *t));
                None
            }
            Input::Host { command: HostCommand::Doorbell { token } } => {
                let (at, old, new) = self.torn.take()?;
                let tok = DoorbellToken::from_u64(*token);
                (at == i.at.0 && tok.template == new.template_id).then_some((old, new))
            }
            _ => None,
        }
    }
}

/// The frame as a device that lacks the check for `reason` sees it: sound, with the
/// damage that check looks for set right (RCV-FRAME-001). `None` for a frame without that
/// damage.
fn repair(bytes: &[u8], reason: &str) -> Option<Vec<u8>> {
    let d = decode(bytes);
    if d.discard_reason() != Some(reason) {
        return None;
    }
    let mut b = bytes.to_vec();
    let ip = 14 + 4 * d.vlans.len();
    let v6 = b[ip] >> 4 == 6 || reason == "ENC-IPV6-002";
    let hl = if v6 { 40 } else { usize::from(b[ip] & 0x0F).max(5) * 4 };
    let udp = ip + hl;
    let set16 = |b: &mut [u8], at: usize, v: usize| {
        b[at..at + 2].copy_from_slice(&(v as u16).to_be_bytes())
    };
    match reason {
        "ICRC-VERIFY-001" | "ENC-IPV4-003" | "ENC-UDP-006" => {}
        "ENC-IPV4-005" => b[ip] = 0x45,
        "ENC-IPV6-002" => b[ip] = 0x60 | (b[ip] & 0x0F),
        "ENC-LEN-002" if v6 => set16(&mut b, ip + 4, bytes.len() - ip - 40),
        "ENC-LEN-002" => set16(&mut b, ip + 2, bytes.len() - ip),
        "ENC-LEN-001" | "ENC-UDP-002" => set16(&mut b, udp + 4, bytes.len() - udp),
        "ENC-IPV4-001" => b[ip + 9] = 17,
        "ENC-IPV6-001" => b[ip + 6] = 17,
        "PAY-PAD-003" => b[udp + 9] &= !0x30,
        "OPC-UNKNOWN-001" => b[udp + 8] = Opcode::MRC_WRITE_ONLY.0,
        _ => return None,
    }
    if !v6 {
        b[ip + 10..ip + 12].fill(0);
        let c = openrdma_codec::wire::ipv4::compute_checksum(&b[ip..ip + hl]);
        b[ip + 10..ip + 12].copy_from_slice(&c.to_be_bytes());
    }
    b[udp + 6..udp + 8].fill(0);
    openrdma_codec::icrc::fill(&mut b[ip..]).ok()?;
    Some(b)
}

/// An IPv6 frame whose flow label has bits 19:16 set, with them moved into the source port
/// as a device that rebuilds the EV from the whole flow label would (ENC-EV-001).
fn flow_label_into_port(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    let IpRepr::V6(v6) = &f.ip else { return None };
    let high = (v6.flow_label >> 16) as u16;
    if high == 0 {
        return None;
    }
    f.udp.src_port |= high;
    f.icrc = None;
    f.fill_udp_checksum().ok()?;
    f.to_bytes().ok()
}

/// A SACK or NACK over IPv4 as a device that takes the source port for the whole EV sends
/// it: reflecting `src_port` as the EV, on that EV (ENC-EV-002).
fn ev_from_port_alone(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    if !matches!(f.ip, IpRepr::V4(_)) {
        return None;
    }
    let ev = match (f.ext.seth.as_mut(), f.ext.neth.as_mut()) {
        (Some(s), _) => {
            s.entropy = Ev::new(s.entropy.value() >> 16);
            s.entropy
        }
        (_, Some(n)) => {
            n.entropy = Ev::new(n.entropy.value() >> 16);
            n.entropy
        }
        _ => return None,
    };
    f.set_entropy(ev);
    f.icrc = None;
    f.to_bytes().ok()
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
        (Fault::TailProbeIgnored, &["snd-tail-probe"]),
        (Fault::TailProbeSlow, &["snd-tail-probe"]),
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
        (Fault::NoArmed, &["rec-split-timeout"]),
        (Fault::StaleProgress, &["rec-split-timeout"]),
        (Fault::NoProgress, &["rec-split-progress", "rec-split-timeout"]),
        (Fault::NoEvState, &["rec-split-assumed-bad", "rec-split-skip-expiry"]),
        (Fault::NoBackoff, &["rec-device-backoff", "rec-device-progress"]),
        (Fault::NoRtoCap, &["rec-device-backoff"]),
        (Fault::LongRto, &["rec-device-backoff", "rec-device-progress", "rec-device-blame"]),
        (Fault::ExtraRetry, &["rec-device-backoff"]),
        (Fault::NoRetryReset, &["rec-device-progress"]),
        (Fault::NoBlame, &["rec-device-blame", "rec-device-backoff"]),
        (Fault::ProbesAfterError, &["rec-device-backoff"]),
        (Fault::CqOverwritesUnreleased, &["ret-cq-overflow", "rcv-cq-receive"]),
        (Fault::RejectsToErrorCq, &["db-reject-queues"]),
        (Fault::TimestampWithoutFlag, &["ret-cq-wrap", "db-reject", "rcv-in-order-v4"]),
        (Fault::CqeReservedByte, &["ret-cq-wrap", "rcv-cq-receive", "db-reject"]),
        (Fault::CqeBigEndianLength, &["ret-cq-wrap", "rcv-cq-receive"]),
        (Fault::CqeOwnerFirst, &["ret-cq-wrap", "rcv-cq-receive", "db-reject-queues"]),
        (Fault::LkeyNotChecked, &["db-local-keys"]),
        (Fault::DeregisterIgnored, &["db-deregister"]),
        (Fault::RecvCqeAfterFlag, &["rcv-in-order-v4", "rcv-wwi-order"]),
        (Fault::RetireOnePerInput, &["ret-burst-before-next-input"]),
        (Fault::FlushRewritesCompleted, &["snd-ack-nak"]),
        (Fault::TemplateTorn, &["db-template-change"]),
        (Fault::TemplateChangeLate, &["db-template-change"]),
        (Fault::TruncatesTemplateIds, &["db-template-id"]),
        (Fault::LatchesPartialWrites, &["db-bus-partial-writes"]),
        (Fault::BigEndianDoorbell, &["db-bus-partial-writes", "db-bus-registers"]),
        (Fault::FirstRegisterOnly, &["db-bus-registers"]),
        (Fault::RegisterSelectsTemplate, &["db-bus-registers"]),
        (Fault::WedgesOnShortDatagram, &["wire-discard-v4"]),
        (Fault::EvWithFlowLabelHigh, &["rcv-lenient-v6"]),
        (Fault::EvFromPortAlone, &["wire-discard-v4"]),
        (Fault::NackTimestampZero, &["rcv-reflect"]),
        (Fault::TimestampsInterpreted, &["rcv-reflect", "rcv-probe-answer"]),
        (Fault::RejectsPethFtype, &["rcv-probe-answer"]),
        (Fault::RejectsPethPdc, &["rcv-probe-answer"]),
        (Fault::RejectsRtxOnNonWrite, &["rcv-probe-answer", "snd-lenient", "snd-lenient-probe"]),
        (Fault::ProbeAnsweredWithoutPr, &["rcv-probe-answer", "rcv-probe"]),
        (Fault::ProbeAnswerKeepsCount, &["rcv-probe-answer"]),
        (Fault::SackCancelsHeldBackAck, &["rcv-ack-coalesce"]),
        (Fault::RejectsSethPdc, &["snd-lenient", "snd-lenient-probe"]),
        (Fault::RejectsSethType, &["snd-lenient", "snd-lenient-probe"]),
        (Fault::RejectsCcType, &["snd-lenient", "snd-lenient-probe"]),
        (Fault::RejectsNethPdc, &["snd-lenient"]),
        (Fault::RejectsNethType, &["snd-lenient"]),
        (Fault::VendorInfoAsReason, &["snd-lenient"]),
        (Fault::CreditZeroStalls, &["snd-lenient"]),
        (Fault::OnlyUnlimitedCreditIsAck, &["snd-lenient"]),
        (Fault::NoEndpointResponse, &["rcv-endpoint"]),
        (Fault::EndpointPortsZero, &["rcv-endpoint"]),
        (Fault::EndpointWrongEv, &["rcv-endpoint"]),
        (Fault::ProbeRttReversed, &["snd-spray-window-fit", "snd-spray-window-fit-probe-rtt"]),
        (Fault::ProbeSampleIgnored, &["snd-spray-window-fit-probe-rtt"]),
        (Fault::RequestPortsAllUp, &["rec-endpoint-request"]),
        (Fault::RequestResv12Set, &["rec-endpoint-request"]),
        (Fault::RequestOnFirstEv, &["rec-endpoint-request"]),
        (Fault::ResponseUnreported, &["rec-endpoint-request"]),
        (Fault::DropsUnknownEndpointOp, &["rcv-endpoint"]),
        (Fault::AnswersAnyQpn, &["rcv-endpoint"]),
        (Fault::AnswersResponses, &["rcv-endpoint"]),
        (Fault::AcceptsQpn2, &["rcv-endpoint"]),
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
            let out = run(&mut dev, &s, reference_cpu_half);
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

/// The CPU halves written here for the mutants differ from the reference only in their
/// fault: where the fault cannot show, they pass. So a mutant that fails a scenario fails
/// it for its fault, not for a slip of its own (`REC-TEST-002`: a CPU half other than the
/// reference, run with the reference NIC half).
#[test]
fn cpu_half_mutants_differ_only_in_their_fault() {
    let cases: &[(Fault, &[&str])] = &[
        (Fault::NoRetryReset, &["rec-device-backoff", "rec-device-blame"]),
        (Fault::NoBlame, &["rec-device-progress"]),
    ];
    let all = corpus::all();
    for (fault, names) in cases {
        for name in *names {
            let s = all.iter().find(|(n, _)| n == name).expect("in the corpus").1();
            let mut dev = Mutant::new(*fault);
            let out = run(&mut dev, &s, reference_cpu_half);
            let j = judge(&s, &out.injected, &out.observed);
            assert!(
                j.divergences.is_empty() && out.error.is_none(),
                "{fault:?} fails {name}: {:#?}",
                j.divergences.first()
            );
        }
    }
}

/// The faults of completion queues and local keys are reported under the rule they break,
/// not only caught.
#[test]
fn completion_and_key_faults_name_their_rule() {
    let cases: &[(Fault, &str, &str)] = &[
        (Fault::CqOverwritesUnreleased, "ret-cq-overflow", "CQE-RING-004"),
        (Fault::CqOverwritesUnreleased, "rcv-cq-receive", "CQE-RING-004"),
        (Fault::RejectsToErrorCq, "db-reject-queues", "CQE-REJECT-002"),
        (Fault::TimestampWithoutFlag, "ret-cq-wrap", "CQE-TS-001"),
        (Fault::TimestampWithoutFlag, "db-reject", "CQE-TS-001"),
        (Fault::CqeReservedByte, "ret-cq-wrap", "CQE-RESV-001"),
        (Fault::CqeBigEndianLength, "ret-cq-wrap", "CQE-LAYOUT-001"),
        (Fault::CqeOwnerFirst, "ret-cq-wrap", "CQE-RING-003"),
        (Fault::CqeOwnerFirst, "db-reject-queues", "CQE-RING-003"),
        // A template accepted that the key rules reject: the completion's status is the field
        // that differs, named by the completion rule (the record's list no longer names it).
        (Fault::LkeyNotChecked, "db-local-keys", "CQE-SEND-001"),
        (Fault::DeregisterIgnored, "db-deregister", "CQE-SEND-001"),
    ];
    let all = corpus::all();
    let mut wrong = Vec::new();
    for &(fault, name, requirement) in cases {
        let build = all.iter().find(|(n, _)| *n == name).expect("in the corpus").1;
        let s = build();
        let mut dev = Mutant::new(fault);
        let out = run(&mut dev, &s, reference_cpu_half);
        let j = judge(&s, &out.injected, &out.observed);
        if !j.divergences.iter().any(|d| d.requirement == requirement) {
            let named: Vec<&str> = j.divergences.iter().map(|d| d.requirement.as_str()).collect();
            wrong.push(format!("{fault:?} / {name}: {requirement} not among {named:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// A window-fit sender that takes no sample from a probe answer, or takes it the wrong way
/// round, sends the packets whose EV the sample decides elsewhere, and the first divergence
/// from a MUST names the rule of the field that differs, the EV the window-fit policy gives
/// (SND-SPRAY-005); the record's list, which named the sample's rule (SND-SPRAY-010), no
/// longer names a divergence.
#[test]
fn probe_sample_faults_name_their_rule() {
    use openrdma_conformance::report::mark_levels;
    use openrdma_conformance::requirements::Spec;
    let spec = Spec::bundled().expect("the specification parses");
    let name = "snd-spray-window-fit-probe-rtt";
    let all = corpus::all();
    let s = all.iter().find(|(n, _)| *n == name).expect("in the corpus").1();
    let mut wrong = Vec::new();
    for fault in [Fault::ProbeSampleIgnored, Fault::ProbeRttReversed] {
        let mut dev = Mutant::new(fault);
        let out = run(&mut dev, &s, reference_cpu_half);
        let mut j = judge(&s, &out.injected, &out.observed);
        mark_levels(&mut j, &spec);
        let first = j.divergences.iter().find(|d| !d.should_only);
        println!("{fault:?} / {name}: {:?}", first.map(|d| (d.at, &d.requirement, &d.what)));
        if first.is_none_or(|d| d.requirement != "SND-SPRAY-005") {
            wrong.push(format!("{fault:?} / {name}: {:?}", first.map(|d| &d.requirement)));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// A device that acts on a frame it must discard is named by what is wrong with the frame
/// (CONF-CMP-023): for each damage of the wire-discard scenarios, the device that lacks the
/// check for it fails them, and the first divergence from a MUST names that damage.
#[test]
fn a_device_acting_on_a_frame_to_discard_is_named_by_the_damage() {
    use openrdma_conformance::report::mark_levels;
    use openrdma_conformance::requirements::Spec;
    let spec = Spec::bundled().expect("the specification parses");
    let cases: &[(&str, &[&str])] = &[
        ("ICRC-VERIFY-001", &["wire-discard-v4", "wire-discard-v6"]),
        ("ENC-IPV4-003", &["wire-discard-v4"]),
        ("ENC-UDP-006", &["wire-discard-v4", "wire-discard-v6"]),
        ("ENC-IPV4-005", &["wire-discard-v4"]),
        ("ENC-IPV6-002", &["wire-discard-v6"]),
        ("ENC-LEN-002", &["wire-discard-v4", "wire-discard-v6"]),
        ("ENC-LEN-001", &["wire-discard-v4", "wire-discard-v6"]),
        ("ENC-UDP-002", &["wire-discard-v4"]),
        ("ENC-IPV4-001", &["wire-discard-v4"]),
        ("ENC-IPV6-001", &["wire-discard-v6"]),
        ("PAY-PAD-003", &["wire-discard-v4"]),
        ("OPC-UNKNOWN-001", &["wire-discard-v4", "wire-discard-v6"]),
    ];
    let all = corpus::all();
    let mut wrong = Vec::new();
    for (reason, names) in cases {
        for name in *names {
            let build = all.iter().find(|(n, _)| n == name).expect("in the corpus").1;
            let s = build();
            let mut dev = Mutant::new(Fault::AcceptsDiscarded(reason));
            let out = run(&mut dev, &s, reference_cpu_half);
            let mut j = judge(&s, &out.injected, &out.observed);
            mark_levels(&mut j, &spec);
            let first = j.divergences.iter().find(|d| !d.should_only);
            println!("{reason} / {name}: {:?}", first.map(|d| (&d.requirement, &d.what)));
            if first.is_none_or(|d| d.requirement != *reason) {
                wrong.push(format!("{reason} / {name}: {:?}", first.map(|d| &d.requirement)));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
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
    /// Whether the NIC's `tail_probe` is set, and the probes sent then that await an
    /// answer: (EV, probe ID, per-EV sequence) (SND-TAIL-002).
    tail: bool,
    probes: Vec<(u32, u16, u64)>,
}

impl Inference {
    fn new(bugs: Bugs, tail: bool) -> Self {
        Inference { bugs, tail, ..Inference::default() }
    }

    /// A probe leaves on `ev`: while tail probing is on, it takes the EV's next sequence
    /// number (SND-TAIL-002).
    fn probe_sent(&mut self, ev: u32, id: u16) {
        if self.tail {
            let seq = self.next_seq.entry(ev).or_default();
            self.probes.push((ev, id, *seq));
            *seq += 1;
        }
    }

    /// A probe answer: a SACK like any other, and, for a probe sent while tail probing is
    /// on, evidence against every earlier transmission on its EV that it covers and does
    /// not show (SND-TAIL-003).
    fn probe_answer(&mut self, s: &openrdma_codec::SethRepr) -> (Vec<u32>, Vec<u32>) {
        let (mut lost, again) = self.sack(s);
        let id = s.ack_psn_offset as u16;
        let Some(k) = self.probes.iter().position(|&(ev, i, _)| ev == s.entropy.value() && i == id)
        else {
            return (lost, again);
        };
        let (ev, _, probe_seq) = self.probes.remove(k);
        let (cack, base) = (s.cack_psn, s.bitmap_base());
        let in_bitmap = |q: u32| s.sack_offset >= 1 && Psn::new(q).in_window(base, 64);
        let covers = |q: u32| !Psn::new(q).is_after(cack) || in_bitmap(q);
        let shows = |q: u32| {
            !Psn::new(q).is_after(cack)
                || (in_bitmap(q) && s.sack_bitmap >> Psn::new(q).forward_from(base) & 1 == 1)
        };
        let psns = &mut self.psns;
        self.fifo.entry(ev).or_default().retain(|&(q, seq)| {
            if seq >= probe_seq {
                return true;
            }
            let Some(p) = psns.get_mut(&q) else { return false };
            if p.arrived || p.ev != ev || p.seq != seq || p.inferred || p.queued {
                return false;
            }
            if !covers(q) {
                return true;
            }
            if !shows(q) {
                p.inferred = true;
                p.queued = true;
                lost.push(q);
            }
            false
        });
        (lost, again)
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
    /// Whether the scenario sets the NIC's `tail_probe`.
    tail: bool,
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
            tail: false,
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
        let (bugs, tail) = (self.bugs, self.tail);
        (
            self.right.entry(peer).or_insert_with(|| Inference::new(Bugs::default(), tail)),
            self.wrong.entry(peer).or_insert_with(|| Inference::new(bugs, tail)),
        )
    }

    /// The retransmission of `psn` a device with the bug sends at `at`, and its report to
    /// the CPU half (REC-IF-008).
    fn extra(&mut self, peer: u32, psn: u32, at: Timestamp) -> Vec<TimedOutput> {
        let Some(mut f) = self.frames.get(&(peer, psn)).and_then(|b| decode(b).to_repr()) else {
            return Vec::new();
        };
        f.bth.rtx = true;
        let Ok(bytes) = f.reseal().and_then(|()| f.to_bytes()) else { return Vec::new() };
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
        let ev = d.entropy().unwrap_or_default().value();
        self.frames.insert((peer, b.psn.value()), bytes.to_vec());
        let (right, wrong) = self.both(peer);
        right.sent(b.psn.value(), ev, b.rtx, m.msn.value());
        wrong.sent(b.psn.value(), ev, b.rtx, m.msn.value());
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
                if let Some(s) = f.ext.seth {
                    let (lost, _) = if s.pr { right.probe_answer(&s) } else { right.sack(&s) };
                    let (bad, again) = if s.pr { wrong.probe_answer(&s) } else { wrong.sack(&s) };
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
                    right.acked(a.msn.msn().value());
                    wrong.acked(a.msn.msn().value());
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
        self.tail = manifest.nic.tail_probe.is_some();
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
                    } else if let (Some(b), Some(p)) = (d.bth, d.ext.peth) {
                        let ev = d.entropy().unwrap_or_default().value();
                        let (right, wrong) = self.both(b.dest_qp.value());
                        right.probe_sent(ev, p.probe_id);
                        wrong.probe_sent(ev, p.probe_id);
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
        let out = run(&mut dev, &s, reference_cpu_half);
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
            let out = run(&mut dev, &s, reference_cpu_half);
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
