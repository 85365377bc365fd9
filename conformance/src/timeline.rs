//! The scenario's timeline as a late device lives it (`spec/conformance.md`, `CONF-TIME-004`,
//! `CONF-RUN-007`, `CONF-TIME-005`).
//!
//! A device may produce each output up to `late_ns / 2` later than the recording's device
//! did. So that such latency does not pile up along a scenario, the peer's answers and the
//! CPU half's commands follow the device's actual outputs:
//!
//! - [`Timeline::of`] derives, at load and by identity, the **cause** of each inject record
//!   that answers a device output (a *hold point*): the expect record it answers. The file
//!   format does not change: old and external scenarios need nothing new.
//! - The runner delivers every inject record at its time plus a **lag** that grows when a
//!   hold point's cause came late ([`Seen`] tells when a cause was produced), and records
//!   the lag of each delivered record in `RunOutcome::lag`.
//! - [`windows`] gives each expect record the window in which its output is on time: its
//!   recorded time shifted as its **anchors** (the latest inject record and the latest
//!   expect record of its QP) actually happened. A judge uses [`Window::expected`] wherever
//!   a rule says "by the expected time plus `late_ns`", and `[lo, hi]` wherever it says
//!   "within the tolerances". [`retimed`] applies the same shifts to a copy of the scenario,
//!   with each record's slack, for a judge that reads record times directly.
//!
//! - An output that a command of the runner's CPU half starts (`cpu = "reference"`: a probe,
//!   a retransmission) has that command as its only anchor, at the time the runner gave it
//!   (CONF-CMP-111): the agent gave it when the device's reports, each of which may be
//!   legally late, made it do so, which the recorded times of other records do not say.
//!
//! With no lag (`openrdma check`, or a device that is on time) every shift is 0 and the
//! windows are the recorded times with the scenario's tolerances.

use std::collections::HashMap;

use openrdma_codec::frame::{DecodedFrame, decode};
use openrdma_codec::{Ev, Msn, Opcode, Psn, Qpn};
use openrdma_device::{
    Body, CpuCommand, CpuHalf, Direction, HostCommand, Input, NicEvent, Output, Record, Scenario,
    Side, TimedInput, TimedOutput, Timestamp,
};

/// What makes two outputs the same one: an expect record and a device output with the same
/// identity are the k-th of that identity on both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ident {
    /// A data packet: the device's QP, its PSN and its `rtx` bit.
    Data {
        /// The device's QP.
        qp: Qpn,
        /// PSN.
        psn: Psn,
        /// Retransmission.
        rtx: bool,
    },
    /// A NACK: the device's QP and the PSN it NACKs.
    Nack {
        /// The device's QP.
        qp: Qpn,
        /// `nack_psn`.
        psn: Psn,
    },
    /// A transport ACK or NAK: the device's QP, its MSN, and whether it is a NAK.
    Ack {
        /// The device's QP.
        qp: Qpn,
        /// AETH `msn`, low 16 bits.
        msn: Msn,
        /// A NAK.
        nak: bool,
    },
    /// A probe of the device's QP (the k-th probe is the k-th of the QP).
    Probe {
        /// The device's QP.
        qp: Qpn,
    },
    /// An endpoint request or response: its operation and request ID.
    Endpoint {
        /// A response (else a request).
        response: bool,
        /// `op`.
        op: u8,
        /// `request_id`.
        id: u32,
    },
    /// A flag or a completion entry of a message or work request.
    Event {
        /// 0 flag, 1 completion.
        what: u8,
        /// The side that wrote it.
        responder: bool,
        /// QP.
        qp: Qpn,
        /// MSN.
        msn: Msn,
    },
}

/// A frame's identity, with `peers` mapping a peer QP to the device's QP.
fn frame_ident(d: &DecodedFrame<'_>, peers: &HashMap<Qpn, Qpn>) -> Option<Ident> {
    let b = d.bth.filter(|_| d.error.is_none())?;
    let dest = b.dest_qp;
    let qp = peers.get(&dest).copied().unwrap_or(dest);
    Some(match b.opcode {
        op if op.is_mrc_write() => Ident::Data { qp, psn: b.psn, rtx: b.rtx },
        Opcode::MRC_NACK => Ident::Nack { qp, psn: d.ext.neth?.nack_psn },
        Opcode::MRC_ACKNOWLEDGE => {
            let a = d.ext.aeth?;
            Ident::Ack { qp, msn: a.msn.msn(), nak: a.syndrome & 0x60 == 0x60 }
        }
        Opcode::MRC_PROBE => Ident::Probe { qp },
        Opcode::MRC_ENDPOINT_REQUEST => {
            let e = d.ext.erth?;
            Ident::Endpoint { response: false, op: e.op.0, id: e.request_id }
        }
        Opcode::MRC_ENDPOINT_RESPONSE => {
            let e = d.ext.eeth?;
            Ident::Endpoint { response: true, op: e.op.0, id: e.request_id }
        }
        _ => return None,
    })
}

fn event_ident(e: &NicEvent) -> Option<Ident> {
    match e {
        NicEvent::FlagWrite(f) => Some(Ident::Event {
            what: 0,
            responder: f.side == Side::Responder,
            qp: f.qpn,
            msn: f.msn,
        }),
        NicEvent::Completion(c) => Some(Ident::Event {
            what: 1,
            responder: c.side == Side::Responder,
            qp: c.entry.qpn,
            msn: c.entry.msn,
        }),
        _ => None,
    }
}

/// The identity of a device output.
pub fn output_ident(o: &Output, peers: &HashMap<Qpn, Qpn>) -> Option<Ident> {
    match o {
        Output::Frame { bytes, .. } => frame_ident(&decode(bytes), peers),
        Output::Event { event } => event_ident(event),
    }
}

/// The peer QP → device QP map of a scenario (from its `create_qp` commands).
pub fn peers(s: &Scenario) -> HashMap<Qpn, Qpn> {
    s.records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Host { command: HostCommand::CreateQp(q) } => Some((q.peer_qpn, q.qpn)),
            _ => None,
        })
        .collect()
}

/// What the timeline knows of a scenario at load: per record, its identity (expect
/// records), its rank among the expect records of that identity (1 for the first), the
/// device QP it concerns, and the cause of each hold point.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Per record: the expect record an inject record answers (a hold point), by index.
    pub causes: Vec<Option<usize>>,
    idents: Vec<Option<(Ident, usize)>>,
    qps: Vec<Option<Qpn>>,
    peers: HashMap<Qpn, Qpn>,
}

impl Timeline {
    /// Derives identities, QPs and causes (design table: a SACK answers the data packet
    /// `cack_psn + ack_psn_offset`, or with `pr` the probe whose `probe_id` is
    /// `ack_psn_offset`; a NACK the data packet `nack_psn`; a transport ACK or NAK the data
    /// packet whose METH `msn` it acknowledges; an endpoint response the request with its
    /// `op` and `request_id`), each the latest such expect record before it.
    pub fn of(s: &Scenario) -> Timeline {
        let peers = peers(s);
        let mut idents = Vec::with_capacity(s.records.len());
        let mut qps = Vec::with_capacity(s.records.len());
        let mut causes = Vec::with_capacity(s.records.len());
        let mut rank: HashMap<Ident, usize> = HashMap::new();
        // Latest expect record per key: data by (qp, psn) and by (qp, msn), probes by
        // (qp, probe_id), endpoint requests by (op, id).
        let mut data_psn: HashMap<(Qpn, Psn), usize> = HashMap::new();
        let mut data_msn: HashMap<(Qpn, Msn), usize> = HashMap::new();
        let mut probes: HashMap<(Qpn, u16), usize> = HashMap::new();
        let mut requests: HashMap<(u8, u32), usize> = HashMap::new();
        for (i, r) in s.records.iter().enumerate() {
            // Each frame decoded once, for its QP, its identity and its keys.
            let frame = match &r.body {
                Body::Frame { bytes, .. } => Some(decode(bytes)),
                _ => None,
            };
            qps.push(record_qp(r, frame.as_ref(), &peers));
            let mut cause = None;
            match (r.dir, &frame) {
                (Direction::Expect, frame) => {
                    let id = match (&r.body, frame) {
                        (_, Some(d)) => frame_ident(d, &peers),
                        (Body::Event { event }, None) => event_ident(event),
                        _ => None,
                    };
                    idents.push(id.map(|id| {
                        let k = rank.entry(id).or_insert(0);
                        *k += 1;
                        (id, *k)
                    }));
                    if let Some(d) = frame {
                        match (id, d.ext.meth, d.ext.peth) {
                            (Some(Ident::Data { qp, psn, .. }), Some(m), _) => {
                                data_psn.insert((qp, psn), i);
                                data_msn.insert((qp, m.msn), i);
                            }
                            (Some(Ident::Data { qp, psn, .. }), None, _) => {
                                data_psn.insert((qp, psn), i);
                            }
                            (Some(Ident::Probe { qp }), _, Some(p)) => {
                                probes.insert((qp, p.probe_id), i);
                            }
                            (Some(Ident::Endpoint { response: false, op, id }), _, _) => {
                                requests.insert((op, id), i);
                            }
                            _ => {}
                        }
                    }
                }
                (Direction::Inject, Some(d)) => {
                    idents.push(None);
                    if let Some(b) = d.bth.filter(|_| d.error.is_none()) {
                        let qp = b.dest_qp;
                        cause = match b.opcode {
                            Opcode::MRC_SACK => d.ext.seth.and_then(|st| {
                                if st.pr {
                                    probes.get(&(qp, st.ack_psn_offset as u16)).copied()
                                } else {
                                    data_psn.get(&(qp, st.ack_psn())).copied()
                                }
                            }),
                            Opcode::MRC_NACK => {
                                d.ext.neth.and_then(|n| data_psn.get(&(qp, n.nack_psn)).copied())
                            }
                            Opcode::MRC_ACKNOWLEDGE => {
                                d.ext.aeth.and_then(|a| data_msn.get(&(qp, a.msn.msn())).copied())
                            }
                            Opcode::MRC_ENDPOINT_RESPONSE => d
                                .ext
                                .eeth
                                .and_then(|e| requests.get(&(e.op.0, e.request_id)).copied()),
                            _ => None,
                        };
                    }
                }
                _ => idents.push(None),
            }
            causes.push(cause);
        }
        Timeline { causes, idents, qps, peers }
    }

    /// The identity of expect record `i` and its rank among that identity (1-based).
    pub fn ident(&self, i: usize) -> Option<(Ident, usize)> {
        self.idents.get(i).copied().flatten()
    }

    /// The device QP record `i` concerns, if any.
    pub fn qp(&self, i: usize) -> Option<Qpn> {
        self.qps.get(i).copied().flatten()
    }

    /// The peer QP → device QP map.
    pub fn peers(&self) -> &HashMap<Qpn, Qpn> {
        &self.peers
    }
}

/// The device QP a record concerns: a frame's destination (mapped to the device's QP), an
/// event's QP, a host command's QP (a doorbell's through its template), a CPU command's.
/// `frame` is the record's frame, decoded.
fn record_qp(
    r: &Record,
    frame: Option<&DecodedFrame<'_>>,
    peers: &HashMap<Qpn, Qpn>,
) -> Option<Qpn> {
    match &r.body {
        Body::Frame { .. } => {
            let d = frame?.bth?.dest_qp;
            Some(peers.get(&d).copied().unwrap_or(d))
        }
        Body::Event { event } => match event {
            NicEvent::DmaWrite(w) => Some(w.qpn),
            NicEvent::FlagWrite(f) => Some(f.qpn),
            NicEvent::Completion(c) => Some(c.entry.qpn),
            NicEvent::Report(_) => None,
        },
        Body::Host { command } => match command {
            HostCommand::CreateQp(q) => Some(q.qpn),
            HostCommand::PostWrite(w) => Some(w.qpn),
            _ => None,
        },
        Body::Cpu { command } => match command {
            CpuCommand::Retransmit { qpn, .. }
            | CpuCommand::Probe { qpn, .. }
            | CpuCommand::SetEvState { qpn, .. } => Some(*qpn),
            _ => None,
        },
    }
}

/// The times at which the device produced each identity so far, in order: whether a cause
/// was seen, and when.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    times: HashMap<Ident, Vec<u64>>,
}

impl Seen {
    /// Learns one device output.
    pub fn learn(&mut self, o: &TimedOutput, peers: &HashMap<Qpn, Qpn>) {
        if let Some(id) = output_ident(&o.output, peers) {
            self.times.entry(id).or_default().push(o.at.0);
        }
    }

    /// When the device produced the output of expect record `c`: the time of its k-th
    /// output of `c`'s identity, `c` being the k-th expectation of it (`None`: not yet).
    pub fn at(&self, t: &Timeline, c: usize) -> Option<u64> {
        let (id, k) = t.ident(c)?;
        self.times.get(&id)?.get(k - 1).copied()
    }
}

/// When an expect record's output is on time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Earliest on-time instant (before `early_ns` is taken off a retransmission's, which
    /// may come any time earlier when the runner plays the CPU half).
    pub lo: u64,
    /// Latest on-time instant.
    pub hi: u64,
    /// The re-timed expected time: the record's time shifted as its latest anchor was.
    pub expected: u64,
}

/// The window of every expect record (`None` for inject records), from the lag at each
/// delivered inject record (`lag`: record index and lag, as `RunOutcome::lag` gives) and
/// the device's outputs. One pass in record order (design 5.3):
///
/// - an inject record's shift is its lag;
/// - an expect record `e`'s anchors are the latest inject record and the latest expect
///   record concerning its QP before it (with no inject of its QP, the latest inject of any
///   QP); `s_lo` and `s_hi` are the least and greatest of their shifts;
/// - its window is `[e.at + s_lo - early_ns, e.at + s_hi + late_ns]`, its expected time
///   `e.at + s_hi`;
/// - an output that a live command starts (`commanded`; `injected` as the runner gave
///   it) has that command as its only anchor instead, with the shift `c - e.at` for a
///   command given at `c`: the recording's device acted on its command at once;
/// - its own shift, as an anchor of later records, is `a - e.at` clamped to
///   `[s_lo - early_ns, s_hi + late_ns]` when the device produced it at `a` (the k-th output
///   of its identity), else `s_hi`.
///
/// With an empty `lag` and outputs at their recorded times every shift is 0.
pub fn windows(
    s: &Scenario,
    t: &Timeline,
    lag: &[(usize, u64)],
    observed: &[TimedOutput],
    injected: &[TimedInput],
) -> Vec<Option<Window>> {
    let tol = &s.manifest.tolerances;
    let lags: HashMap<usize, u64> = lag.iter().copied().collect();
    let commands = commanded(s, t, injected.iter().map(|i| (i.at.0, &i.input)));
    let mut seen = Seen::default();
    for o in observed {
        seen.learn(o, &t.peers);
    }
    let mut out = Vec::with_capacity(s.records.len());
    // Shifts are signed: an early device has negative ones.
    let mut last_inject: Option<i64> = None;
    let mut inject_of: HashMap<Qpn, i64> = HashMap::new();
    let mut expect_of: HashMap<Qpn, i64> = HashMap::new();
    let (early, late) = (signed(tol.early_ns), signed(tol.late_ns));
    for (i, r) in s.records.iter().enumerate() {
        let qp = t.qp(i);
        if r.dir == Direction::Inject {
            let sh = signed(lags.get(&i).copied().unwrap_or(0));
            last_inject = Some(sh);
            if let Some(q) = qp {
                inject_of.insert(q, sh);
            }
            out.push(None);
            continue;
        }
        let at = signed(r.at.0);
        let command = commands.get(&i).copied();
        let anchors: Vec<i64> = match command {
            Some(c) => vec![signed(c).saturating_sub(at)],
            None => {
                let a_in = qp.and_then(|q| inject_of.get(&q).copied()).or(last_inject);
                let a_ex = qp.and_then(|q| expect_of.get(&q).copied());
                a_in.into_iter().chain(a_ex).collect()
            }
        };
        let lo = anchors.iter().copied().min().unwrap_or(0);
        let hi = anchors.iter().copied().max().unwrap_or(0);
        let time = |v: i64| u64::try_from(v).unwrap_or(0);
        out.push(Some(Window {
            lo: time(at.saturating_add(lo).saturating_sub(early)),
            hi: time(at.saturating_add(hi).saturating_add(late)),
            expected: time(at.saturating_add(hi)),
        }));
        let (least, most) = (lo.saturating_sub(early), hi.saturating_add(late));
        let own = match seen.at(t, i) {
            Some(a) => signed(a).saturating_sub(at).clamp(least, most),
            None => hi,
        };
        if let Some(q) = qp {
            expect_of.insert(q, own);
        }
    }
    out
}

/// What a command of the runner's CPU half starts: a probe of QP q on EV e, or a
/// retransmission of a PSN of q (its EV is the device's choice).
type Started = (Ident, Option<Ev>);

/// The candidates of one identity, by the EV they carry: each a recorded time and a
/// record index.
type ByEv = HashMap<Option<Ev>, Vec<(u64, usize)>>;

/// The output a command starts, by identity.
fn command_key(input: &Input) -> Option<Started> {
    match input {
        Input::Cpu { command: CpuCommand::Probe { qpn, ev } } => {
            Some((Ident::Probe { qp: *qpn }, Some(*ev)))
        }
        Input::Cpu { command: CpuCommand::Retransmit { qpn, psn } } => {
            Some((Ident::Data { qp: *qpn, psn: *psn, rtx: true }, None))
        }
        _ => None,
    }
}

/// The identity of expect record `i` as a command would start it: a probe with its EV, a
/// retransmission.
fn record_key(s: &Scenario, t: &Timeline, i: usize) -> Option<Started> {
    match t.ident(i)?.0 {
        id @ Ident::Probe { .. } => match &s.records.get(i)?.body {
            Body::Frame { bytes, .. } => Some((id, decode(bytes).entropy())),
            _ => None,
        },
        id @ Ident::Data { rtx: true, .. } => Some((id, None)),
        _ => None,
    }
}

/// Which expect record each command of the runner's CPU half started, with the time the
/// runner gave the command (CONF-CMP-111, decision 31). A command is paired by identity
/// (a `Probe` of QP q on EV e with a probe of q on e, a `Retransmit` of q and a PSN with a
/// retransmission of that PSN) and, among those not yet paired, with the nearest legal
/// candidate: the latest recorded at or before the command's time plus `early_ns` (the
/// recording's device acted on its command at once; a report that came early moves the
/// command early by no more), else the first after it. A probe or retransmission the
/// device queued itself (a tail probe, one of the spray policy, an inferred loss) is
/// never taken for a commanded one because it came first. Empty unless the runner plays
/// the CPU half (`cpu = "reference"`): a scripted command is an inject record, an anchor
/// like any other, and a device's own CPU half gives no command. `injected` is each
/// delivered input with its time, in order.
pub(crate) fn commanded<'a>(
    s: &Scenario,
    t: &Timeline,
    injected: impl IntoIterator<Item = (u64, &'a Input)>,
) -> HashMap<usize, u64> {
    let mut out = HashMap::new();
    if s.manifest.cpu != CpuHalf::Reference {
        return out;
    }
    // The candidates of each identity, by the EV they carry: a command looks only at its
    // own identity's lists.
    let mut candidates: HashMap<Ident, ByEv> = HashMap::new();
    for i in 0..s.records.len() {
        if let Some((ident, ev)) = record_key(s, t, i) {
            let list = candidates.entry(ident).or_default().entry(ev).or_default();
            list.push((s.records[i].at.0, i));
        }
    }
    let early = s.manifest.tolerances.early_ns;
    for (at, input) in injected {
        let Some((ident, ev)) = command_key(input) else {
            continue;
        };
        let Some(by_ev) = candidates.get_mut(&ident) else {
            continue;
        };
        let bound = at.saturating_add(early);
        // A probe on an EV the recording never probed (a device that chose other paths
        // legally, so its reports made the agent blame another EV) pairs with the QP's
        // probes of any EV, by the same rule.
        let exact = by_ev.get(&ev).is_some_and(|l| !l.is_empty());
        let mut best: Option<(Option<Ev>, usize, (u64, usize))> = None;
        for (k, list) in by_ev.iter() {
            if exact && *k != ev {
                continue;
            }
            for (j, &cand) in list.iter().enumerate() {
                if nearer(cand, best.map(|b| b.2), bound) {
                    best = Some((*k, j, cand));
                }
            }
        }
        if let Some((k, j, _)) = best {
            if let Some(list) = by_ev.get_mut(&k) {
                out.insert(list.remove(j).1, at);
            }
        }
    }
    out
}

/// Whether candidate `c` (its recorded time, its record index) pairs nearer with a command
/// whose time plus `early_ns` is `bound` than `best`: the latest at or before the bound
/// wins, else the first after it; the record index breaks a tie, so the pairing does not
/// depend on the order candidates are visited.
fn nearer(c: (u64, usize), best: Option<(u64, usize)>, bound: u64) -> bool {
    match best {
        None => true,
        Some(b) if b.0 <= bound => c.0 <= bound && c > b,
        Some(b) => c.0 <= bound || c < b,
    }
}

/// The expect records whose output a live command started ([`commanded`]), by index.
pub(crate) fn started_by_commands<'a>(
    s: &Scenario,
    injected: impl IntoIterator<Item = (u64, &'a Input)>,
) -> Vec<bool> {
    if s.manifest.cpu != CpuHalf::Reference {
        return vec![false; s.records.len()];
    }
    let commands = commanded(s, &Timeline::of(s), injected);
    (0..s.records.len()).map(|i| commands.contains_key(&i)).collect()
}

/// A time or a lag as a signed shift. A device gives times up to `u64::MAX`; those past
/// `i64::MAX` are as late as a shift can say, never a negative one.
fn signed(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// A scenario as the run lived it ([`retimed`]): the re-timed copy, and each record's
/// **slack**, how much sooner than its re-timed expected time less `early_ns` its output
/// may come.
#[derive(Debug, Clone)]
pub struct Retimed {
    /// Each inject record at its time plus its lag, each expect record at its re-timed
    /// expected time ([`Window::expected`]).
    pub scenario: Scenario,
    /// Per record: the spread `s_hi - s_lo` of its anchors' shifts, 0 for an inject
    /// record. The re-timed time is `at + s_hi`, but CONF-TIME-005.a bounds an output early
    /// from `at + s_lo - early_ns`: a judge of the re-timed scenario takes a record's
    /// window from `expected - early_ns - slack` to `expected + late_ns`.
    pub slack: Vec<u64>,
}

/// The scenario as the run lived it, from one pass of [`windows`]: a judge that compares
/// record times with output times, with the scenario's tolerances and each record's slack,
/// judges the re-timed scenario as [`windows`] says (`RunOutcome::judge`). Without lag and
/// with outputs on time it is the scenario itself, with no slack.
pub fn retimed(
    s: &Scenario,
    lag: &[(usize, u64)],
    observed: &[TimedOutput],
    injected: &[TimedInput],
) -> Retimed {
    let w = windows(s, &Timeline::of(s), lag, observed, injected);
    let early = s.manifest.tolerances.early_ns;
    let lags: HashMap<usize, u64> = lag.iter().copied().collect();
    let mut scenario = s.clone();
    let mut slack = Vec::with_capacity(w.len());
    for (i, (r, w)) in scenario.records.iter_mut().zip(&w).enumerate() {
        match w {
            Some(w) => {
                r.at = Timestamp(w.expected);
                slack.push(w.expected.saturating_sub(w.lo).saturating_sub(early));
            }
            None => {
                r.at = Timestamp(r.at.0.saturating_add(lags.get(&i).copied().unwrap_or(0)));
                slack.push(0);
            }
        }
    }
    Retimed { scenario, slack }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(name: &str) -> Scenario {
        let stem =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/scenarios").join(name);
        crate::file::load(stem).expect("a corpus scenario")
    }

    /// CONF-RUN-007: the transport ACK that answers the retransmission commanded by the CPU
    /// half is a hold point whose cause is that retransmission.
    #[test]
    fn an_ack_is_held_for_the_data_packet_it_acknowledges() {
        let s = scenario("rec-split-timeout");
        let t = Timeline::of(&s);
        let held: Vec<(usize, usize)> =
            t.causes.iter().enumerate().filter_map(|(i, c)| c.map(|c| (i, c))).collect();
        assert!(!held.is_empty());
        for (i, c) in held {
            assert!(c < i);
            assert_eq!(s.records[c].dir, Direction::Expect);
            assert!(matches!(t.ident(c), Some((Ident::Data { .. } | Ident::Probe { .. }, _))));
        }
    }

    /// CONF-TIME-005: with no lag and every output at its recorded time, every window is the
    /// recorded time with the tolerances; outputs late by a constant shift the windows of
    /// the records that follow them.
    #[test]
    fn windows_follow_the_anchors() {
        let s = scenario("rcv-in-order-v4");
        let t = Timeline::of(&s);
        let tol = &s.manifest.tolerances;
        let on_time: Vec<TimedOutput> = s
            .expects()
            .filter_map(|r| Some(TimedOutput { at: r.at, output: r.body.output()? }))
            .collect();
        for (r, w) in s.records.iter().zip(windows(&s, &t, &[], &on_time, &[])) {
            if let Some(w) = w {
                assert_eq!(w.expected, r.at.0);
                assert_eq!(w.hi, r.at.0 + tol.late_ns);
            }
        }
        let lag: Vec<(usize, u64)> = (0..s.records.len())
            .filter(|&i| s.records[i].dir == Direction::Inject)
            .map(|i| (i, 700))
            .collect();
        let late: Vec<TimedOutput> = on_time
            .iter()
            .map(|o| TimedOutput { at: Timestamp(o.at.0 + 700), ..o.clone() })
            .collect();
        for (r, w) in s.records.iter().zip(windows(&s, &t, &lag, &late, &[])) {
            if let (Some(w), Direction::Expect) = (w, r.dir) {
                assert_eq!(w.expected, r.at.0 + 700);
            }
        }
    }

    /// A device's times are any `u64`: outputs at the top of the clock, and lags as large,
    /// are as late as a shift can say, never a wrapped, early one. The window of a record
    /// after a late output is shifted late, to the most its clamp allows.
    #[test]
    fn times_at_the_top_of_the_clock_are_late() {
        let s = scenario("rcv-in-order-v4");
        let t = Timeline::of(&s);
        let tol = &s.manifest.tolerances;
        let top: Vec<TimedOutput> = s
            .expects()
            .filter_map(|r| Some(TimedOutput { at: Timestamp(u64::MAX), output: r.body.output()? }))
            .collect();
        let on_time = windows(&s, &t, &[], &[], &[]);
        for (i, w) in windows(&s, &t, &[], &top, &[]).iter().enumerate() {
            if let (Some(w), Some(base)) = (w, on_time[i]) {
                assert!(w.expected >= base.expected, "record {i}: a late output moved it early");
                assert!(w.lo <= w.hi, "record {i}: {w:?}");
            }
        }
        let lag: Vec<(usize, u64)> = (0..s.records.len())
            .filter(|&i| s.records[i].dir == Direction::Inject)
            .map(|i| (i, u64::MAX))
            .collect();
        let r = retimed(&s, &lag, &top, &[]);
        for (rec, w) in r.scenario.records.iter().zip(windows(&s, &t, &lag, &top, &[])) {
            match w {
                Some(w) => assert!(w.hi >= w.expected && w.expected >= tol.late_ns),
                None => assert_eq!(rec.at.0, u64::MAX),
            }
        }
    }

    /// CONF-CMP-111: when the runner plays the CPU half, a probe it commanded is timed
    /// from the command as the runner gave it, not from the lag of the records before it.
    /// Inputs 2 us late, as after a report that came legally late, move the probes' windows
    /// 2 us late; commands given at the recorded times keep them there.
    #[test]
    fn a_commanded_probe_is_timed_from_its_command() {
        let s = scenario("rec-split-two-qps-loss");
        let t = Timeline::of(&s);
        let probe = |i: usize| match (t.ident(i), &s.records[i].body) {
            (Some((Ident::Probe { qp }, _)), Body::Frame { bytes, .. }) => {
                Some((qp, decode(bytes).entropy().unwrap_or_default()))
            }
            _ => None,
        };
        let probes: Vec<usize> = (0..s.records.len()).filter(|&i| probe(i).is_some()).collect();
        let qps: std::collections::HashSet<Qpn> = probes.iter().filter_map(|&i| t.qp(i)).collect();
        assert!(qps.len() >= 2, "the probes of two QPs: {probes:?}");
        let lag: Vec<(usize, u64)> = (0..s.records.len())
            .filter(|&i| s.records[i].dir == Direction::Inject)
            .map(|i| (i, 2_000))
            .collect();
        let commands: Vec<TimedInput> = probes
            .iter()
            .filter_map(|&i| {
                let (qpn, ev) = probe(i)?;
                let command = CpuCommand::Probe { qpn, ev };
                Some(TimedInput { at: s.records[i].at, input: Input::Cpu { command } })
            })
            .collect();
        let late = windows(&s, &t, &lag, &[], &[]);
        let commanded = windows(&s, &t, &lag, &[], &commands);
        for &i in &probes {
            let at = s.records[i].at.0;
            assert_eq!(late[i].map(|w| w.expected), Some(at + 2_000), "record {i}");
            assert_eq!(commanded[i].map(|w| w.expected), Some(at), "record {i}");
        }
        let mut scripted = s.clone();
        scripted.manifest.cpu = CpuHalf::Scripted;
        let w = windows(&scripted, &t, &lag, &[], &commands);
        assert!(probes.iter().all(|&i| w[i] == late[i]), "a scripted command is an inject record");
    }

    /// CONF-CMP-111: a command starts the probe of its identity nearest to it, not the
    /// QP's first. The tail probe the device queued itself comes first; the one probe
    /// command, 1 us late, is paired with the second probe, and the tail probe keeps the
    /// window its own anchors give.
    #[test]
    fn a_command_starts_the_nearest_probe_of_its_ev() {
        let s = scenario("rec-x10ev-tail-then-commanded-probe");
        let t = Timeline::of(&s);
        let probes: Vec<(usize, Qpn, Ev)> = (0..s.records.len())
            .filter_map(|i| match (t.ident(i), &s.records[i].body) {
                (Some((Ident::Probe { qp }, _)), Body::Frame { bytes, .. }) => {
                    Some((i, qp, decode(bytes).entropy()?))
                }
                _ => None,
            })
            .collect();
        assert_eq!(probes.len(), 2, "a tail probe, then a commanded one: {probes:?}");
        let ((tail, _, _), (cmd, qpn, ev)) = (probes[0], probes[1]);
        let at = s.records[cmd].at.0 + 1_000;
        let command = CpuCommand::Probe { qpn, ev };
        let given = [TimedInput { at: Timestamp(at), input: Input::Cpu { command } }];
        let pairs = commanded(&s, &t, given.iter().map(|i| (i.at.0, &i.input)));
        assert_eq!(pairs.into_iter().collect::<Vec<_>>(), vec![(cmd, at)]);
        let w = windows(&s, &t, &[], &[], &given);
        assert_eq!(w[cmd].map(|w| w.expected), Some(at));
        assert_eq!(w[tail].map(|w| w.expected), Some(s.records[tail].at.0));

        // A command for an EV the recording never probed (the device chose other paths,
        // so the agent blamed another EV) pairs with the QP's nearest probe of any EV.
        let other = Ev::new(ev.value() ^ 0x0001_0000);
        let command = CpuCommand::Probe { qpn, ev: other };
        let given = [TimedInput { at: Timestamp(at), input: Input::Cpu { command } }];
        let pairs = commanded(&s, &t, given.iter().map(|i| (i.at.0, &i.input)));
        assert_eq!(pairs.into_iter().collect::<Vec<_>>(), vec![(cmd, at)]);
        // Given before the tail probe's time, it pairs with the tail probe, the latest
        // recorded at or before it.
        let early = s.records[tail].at.0;
        let given = [TimedInput { at: Timestamp(early), input: Input::Cpu { command } }];
        let pairs = commanded(&s, &t, given.iter().map(|i| (i.at.0, &i.input)));
        assert_eq!(pairs.into_iter().collect::<Vec<_>>(), vec![(tail, early)]);
    }

    /// CONF-TIME-005.a: the re-timed scenario with its slack gives each expect record the
    /// window of [`windows`]: from `at - early_ns - slack` to `at + late_ns`. Inputs 700 ns
    /// late and outputs on time shift a record's anchors apart, so some records have slack.
    #[test]
    fn retimed_keeps_the_windows() {
        let s = scenario("rcv-in-order-v4");
        let tol = &s.manifest.tolerances;
        let on_time: Vec<TimedOutput> = s
            .expects()
            .filter_map(|r| Some(TimedOutput { at: r.at, output: r.body.output()? }))
            .collect();
        let lag: Vec<(usize, u64)> = (0..s.records.len())
            .filter(|&i| s.records[i].dir == Direction::Inject)
            .map(|i| (i, 700))
            .collect();
        let r = retimed(&s, &lag, &on_time, &[]);
        let w = windows(&s, &Timeline::of(&s), &lag, &on_time, &[]);
        assert!(r.slack.iter().any(|&x| x > 0), "no record has slack");
        for (i, rec) in r.scenario.records.iter().enumerate() {
            let Some(w) = w[i] else {
                assert_eq!(r.slack[i], 0, "record {i}: an inject record has no slack");
                continue;
            };
            let lo = rec.at.0.saturating_sub(tol.early_ns + r.slack[i]);
            assert_eq!((lo, rec.at.0 + tol.late_ns), (w.lo, w.hi), "record {i}");
        }
    }
}
