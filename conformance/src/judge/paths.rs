//! Path choice: the EVs a sending device puts its data packets on (`CONF-CMP-027`,
//! `CONF-CMP-048`).
//!
//! A device's paths are its own choice (its spray policy need not be the reference's), but
//! every choice obeys the usable pool of `SND-PATH-001`: an EV of the QP's profile, in
//! state GOOD, a backup only when no primary is GOOD, and, for a retransmission, not the EV
//! of the PSN's previous transmission while another is GOOD (`SND-RTX-002`). The scoreboard
//! cannot ask the device what state its EVs are in; it follows them through the inputs the
//! scenario itself gives, by the transitions of sender table 4: `set_ev_state` commands,
//! SACK marks (`EV-SKIP-001`, `EV-BAD-001`), probe answers (`EV-PROBE-002`,
//! `EV-PROBE-003`), NACK TRIMMED (`EV-SKIP-001`) and the end of a SKIP after `skip_hold`
//! (`EV-SKIP-002`). A packet on an EV the scenario took out of GOOD, while another was
//! usable, breaks `EV-STATE-001.b`; one on a backup while a primary was usable, the pool's
//! rule.
//!
//! Whether an input moved an EV sometimes depends on the device's own timing: an input at
//! the very time of a packet may come before or after it; a SACK is discarded whole when it
//! claims a PSN the device has not sent yet (`SND-SACK-003`), which a device slower than the
//! reference may not have; a trim moves the EV of a PSN only if nothing acknowledged the
//! PSN. In every such case the tracker keeps each state the EV may be in ([`Possible`]),
//! and judges a packet only when none of them allows it. So a correct device is never
//! failed for a state it did not have to be in, whatever its timing.
//!
//! In a scenario that requires `spray-policies` each EV must be the one the QP's policy
//! gives ([`judge_exact`]). For `fixed` and `round-robin` that is judged on the device's own
//! packets: from the profile's first EV, or from the cursor its previous packet left, the
//! packet may take each EV that may be in the pool up to the first that surely is, the
//! pool followed as above. A device that acts on an input later than the reference, within
//! its latency, may have chosen on the older pool, and one late choice moves a round-robin
//! cursor for every packet after it: the recorded EVs cannot judge it. For `skew-aware`
//! likewise, on the estimates the device's own earlier packets and the acknowledgements it
//! may have taken give (`estimate`).

use std::collections::{HashMap, HashSet};

use openrdma_codec::{Opcode, Psn};
use openrdma_device::{
    Body, CpuCommand, EvState, HostCommand, Input, Scenario, SprayPolicy, TimedOutput,
};

use super::obs::In;
use super::{Divergence, Frame, Kind, render_frame};
use crate::req::{Clause, EV_STATE_001_B, REC_IF_016, SND_PATH_001, SND_PATH_002, SND_RTX_002_B};
use openrdma_codec::{Ev, Msn};

mod chosen;
mod estimate;
mod exact;

pub(super) use exact::judge_exact;
use exact::policy_requirement;

/// Every state an EV may be in, as far as the scenario's inputs tell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Possible {
    good: bool,
    bad: bool,
    denied: bool,
    /// SKIP, entered at each of these times.
    skip: Vec<u64>,
}

/// A change of EV state that an input causes (sender table 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// A SACK mark SKIP_ONCE or a NACK TRIMMED: GOOD → SKIP (`EV-SKIP-001`).
    Skip,
    /// A SACK mark ALWAYS_SKIP: GOOD or SKIP → ASSUMED_BAD (`EV-BAD-001`).
    AlwaysSkip,
    /// A probe answered with no mark: ASSUMED_BAD → GOOD (`EV-PROBE-002`).
    ProbeGood,
    /// A probe answered with a skip mark: ASSUMED_BAD → SKIP (`EV-PROBE-003`).
    ProbeSkip,
    /// A `set_ev_state` command, applied as given (`EV-STATE-003`).
    Set(EvState),
}

impl Possible {
    fn good() -> Possible {
        Possible { good: true, ..Possible::default() }
    }

    /// Lets time run to `t`: a SKIP entered `hold` ns or more before is GOOD by then
    /// (`EV-SKIP-002`); one that ends exactly at `t` may not have ended yet for an output
    /// at `t`, so both states are kept.
    fn settle(&mut self, t: u64, hold: u64) {
        let mut ended = false;
        self.skip.retain(|&since| {
            let end = since.saturating_add(hold);
            ended |= end <= t;
            end >= t
        });
        self.good |= ended;
    }

    /// The states after `c` at time `t`, from every state this may be.
    fn after(&self, c: Change, t: u64) -> Possible {
        let mut out = Possible::default();
        let put = |s: EvState, since: u64, out: &mut Possible| match s {
            EvState::Good => out.good = true,
            EvState::Skip => {
                if !out.skip.contains(&since) {
                    out.skip.push(since);
                }
            }
            EvState::AssumedBad => out.bad = true,
            EvState::Denied => out.denied = true,
        };
        let from = self
            .skip
            .iter()
            .map(|&since| (EvState::Skip, since))
            .chain(self.good.then_some((EvState::Good, 0)))
            .chain(self.bad.then_some((EvState::AssumedBad, 0)))
            .chain(self.denied.then_some((EvState::Denied, 0)));
        for (state, since) in from {
            let (to, at) = match (c, state) {
                (Change::Set(s), _) => (s, t),
                (_, EvState::Denied) => (EvState::Denied, 0),
                (Change::Skip, EvState::Good) => (EvState::Skip, t),
                (Change::AlwaysSkip, EvState::Good | EvState::Skip) => (EvState::AssumedBad, 0),
                (Change::ProbeGood, EvState::AssumedBad) => (EvState::Good, 0),
                (Change::ProbeSkip, EvState::AssumedBad) => (EvState::Skip, t),
                (_, s) => (s, since),
            };
            put(to, at, &mut out);
        }
        out
    }

    fn union(&mut self, o: &Possible) {
        self.good |= o.good;
        self.bad |= o.bad;
        self.denied |= o.denied;
        for s in &o.skip {
            if !self.skip.contains(s) {
                self.skip.push(*s);
            }
        }
    }

    /// Whether the EV may be GOOD (after [`Possible::settle`]).
    fn may_be_good(&self) -> bool {
        self.good
    }

    /// Whether the EV is GOOD whatever the device's timing (after [`Possible::settle`]).
    fn surely_good(&self) -> bool {
        self.good && !self.bad && !self.denied && self.skip.is_empty()
    }
}

/// One EV of a QP's profile.
#[derive(Debug, Clone)]
struct Slot {
    ev: Ev,
    /// The EV as a frame carries it (`ENC-EV-001`, `ENC-EV-002`).
    wire: Ev,
    backup: bool,
    state: Possible,
}

/// A sending QP of the device: its profile and policy.
#[derive(Debug, Clone)]
struct Qp {
    initial_psn: Psn,
    slots: Vec<Slot>,
    /// It sprays at random (`SND-SPRAY-002`).
    random: bool,
}

/// An input that changes an EV: when, which QP (by the peer QPN its packets carry), which
/// slots (by the EV the input names), what, and whether it surely happened.
#[derive(Debug, Clone)]
struct Event {
    at: u64,
    peer: u32,
    evs: Vec<Ev>,
    change: Change,
    sure: bool,
}

/// A data packet the device sent.
#[derive(Debug, Clone, Copy)]
struct Sent {
    at: u64,
    psn: u32,
    rtx: bool,
    wire: Ev,
    msn: Option<Msn>,
}

/// What the scenario's acknowledgements claimed by time `at`, per QP: a SACK's
/// cumulative PSN and bitmap, or a transport ACK's MSN.
#[derive(Debug, Clone, Copy)]
enum Claim {
    Sack { cack: Psn, base: Psn, bitmap: u64 },
    Ack { msn: Msn },
}

/// The device's data packets per peer QPN, in the order it sent them.
fn sent_by_qp(obs: &[Frame<'_>]) -> HashMap<u32, Vec<Sent>> {
    let mut out: HashMap<u32, Vec<Sent>> = HashMap::new();
    for f in obs {
        if let Kind::Data { qp, psn, rtx } = f.kind {
            let msn = f.d.ext.meth.map(|m| m.msn);
            out.entry(qp).or_default().push(Sent { at: f.at, psn, rtx, wire: f.ev, msn });
        }
    }
    out
}

/// Whether the device surely had, may have had, or surely had not sent `psn` for the first
/// time when an input came at `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    Yes,
    Maybe,
    No,
}

fn first_sent(sent: &[Sent], initial: Psn, psn: Psn, at: u64) -> Known {
    // The highest PSN sent before `at`, and by `at` (an output at `at` may come before or
    // after the input); a PSN at or before it was sent, or is older than any (stale).
    let highest = |until: &dyn Fn(u64) -> bool| {
        sent.iter()
            .filter(|s| !s.rtx && until(s.at))
            .map(|s| Psn::new(s.psn))
            .fold(initial.sub(1), |hi, p| if p.is_after(hi) { p } else { hi })
    };
    if !psn.is_after(highest(&|t| t < at)) {
        Known::Yes
    } else if !psn.is_after(highest(&|t| t <= at)) {
        Known::Maybe
    } else {
        Known::No
    }
}

/// Whether a SACK passes the checks of `SND-SACK-003` and `SND-SACK-004` at the device:
/// `Some(true)` surely, `Some(false)` surely not, `None` when the device's timing decides.
fn sack_valid(
    seth: &openrdma_codec::SethRepr,
    sent: &[Sent],
    initial: Psn,
    window: u32,
    at: u64,
) -> Option<bool> {
    if i32::from(seth.sack_offset).unsigned_abs() > window + 64 {
        return Some(false);
    }
    let base = seth.cack_psn.offset(i32::from(seth.sack_offset));
    let claims = std::iter::once(seth.cack_psn)
        .chain((0..64).filter(|i| seth.sack_bitmap >> i & 1 == 1).map(|i| base.add(i)));
    let mut sure = true;
    for p in claims {
        match first_sent(sent, initial, p, at) {
            Known::Yes => {}
            Known::Maybe => sure = false,
            Known::No => return Some(false),
        }
    }
    sure.then_some(true)
}

/// The EVs of every sending QP followed once through the scenario's inputs, and what one
/// walk over the device's data packets by them found. The `paths`, `spray` and
/// `spray.random` rows each read their part.
pub(super) struct Tracking {
    /// The QPs and what moves their EVs, before the walk.
    packets: Packets,
    /// Data packets on an EV the pool does not allow (`CONF-CMP-027`).
    pool: Vec<Divergence>,
    /// Data packets of `fixed` and `round-robin` QPs on an EV their policy does not give
    /// (`CONF-CMP-048`).
    policy: Vec<Divergence>,
    /// The draws of the QPs that spray at random.
    draws: Draws,
}

/// Follows the EVs of every sending QP through the scenario's inputs and walks the
/// device's data packets by them; `None` when the device has no QP.
pub(super) fn track(scenario: &Scenario, inputs: &[In<'_>], obs: &[Frame<'_>]) -> Option<Tracking> {
    let packets = tracked(scenario, inputs, obs)?;
    let (mut pool, mut policy) = (Vec::new(), Vec::new());
    let draws = packets.judge(obs, &mut pool, (&spray_of(scenario), &mut policy));
    Some(Tracking { packets, pool, policy, draws })
}

/// Each QP's spray policy, by the peer QPN its packets carry.
fn spray_of(scenario: &Scenario) -> HashMap<u32, SprayPolicy> {
    scenario
        .records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Host { command: HostCommand::CreateQp(q) } => Some((q.peer_qpn.value(), q.spray)),
            _ => None,
        })
        .collect()
}

/// Judges every data packet of the device by the EVs the scenario's inputs leave usable
/// (`CONF-CMP-027`).
pub(super) fn judge(tracking: Option<&Tracking>, div: &mut Vec<Divergence>) {
    if let Some(t) = tracking {
        div.extend(t.pool.iter().cloned());
    }
}

/// The EVs of every sending QP followed through the scenario's inputs, or `None` when the
/// device has no QP.
fn tracked(scenario: &Scenario, inputs: &[In<'_>], obs: &[Frame<'_>]) -> Option<Packets> {
    let m = &scenario.manifest;
    let hold = m.nic.skip_hold.as_nanos() as u64;
    let window = m.nic.window();
    let ipv4 = !m.link.is_ipv6();
    let wire_of = |ev: Ev| super::wire_ev(ipv4, ev);
    // The device's QPs by the peer QPN their packets carry, and its QPNs.
    let mut qps: HashMap<u32, Qp> = HashMap::new();
    let mut peer_of: HashMap<u32, u32> = HashMap::new();
    for i in inputs {
        if let Input::Host { command: HostCommand::CreateQp(q) } = &i.input {
            let slot = |ev: &Ev, backup| Slot {
                ev: *ev,
                wire: wire_of(*ev),
                backup,
                state: Possible::good(),
            };
            let mut slots: Vec<Slot> = q.evs.iter().map(|e| slot(e, false)).collect();
            slots.extend(q.backup_evs.iter().map(|e| slot(e, true)));
            let random = q.spray == SprayPolicy::Random;
            qps.insert(q.peer_qpn.value(), Qp { initial_psn: q.initial_psn, slots, random });
            peer_of.insert(q.qpn.value(), q.peer_qpn.value());
        }
    }
    if qps.is_empty() {
        return None;
    }
    let sent = sent_by_qp(obs);
    let (claims, events) = input_events(inputs, &qps, &peer_of, &sent, window, ipv4);
    Some(Packets { qps, claims, events, hold, lag: m.tolerances.late_ns / 2 })
}

/// The claims of the scenario's acknowledgements per peer QP, and the EV changes its inputs
/// cause, in time order.
type Claims = HashMap<u32, Vec<(u64, Claim)>>;

fn input_events(
    inputs: &[In<'_>],
    qps: &HashMap<u32, Qp>,
    peer_of: &HashMap<u32, u32>,
    sent: &HashMap<u32, Vec<Sent>>,
    window: u32,
    ipv4: bool,
) -> (Claims, Vec<Event>) {
    let wire_of = |ev: Ev| super::wire_ev(ipv4, ev);
    let none: Vec<Sent> = Vec::new();
    let sent_of = |peer: u32| sent.get(&peer).unwrap_or(&none);

    // What the scenario's acknowledgements claimed, and the EV changes its inputs cause.
    let mut claims: HashMap<u32, Vec<(u64, Claim)>> = HashMap::new();
    let mut events: Vec<Event> = Vec::new();
    let mut inputs: Vec<&In<'_>> = inputs.iter().collect();
    inputs.sort_by_key(|i| i.at);
    for i in inputs {
        let at = i.at;
        match &i.input {
            Input::Cpu { command: CpuCommand::SetEvState { qpn, ev, state } } => {
                if let Some(&peer) = peer_of.get(&qpn.value()) {
                    events.push(Event {
                        at,
                        peer,
                        evs: vec![*ev],
                        change: Change::Set(*state),
                        sure: true,
                    });
                }
            }
            Input::Frame { .. } => {
                let Some(d) = i.frame.as_ref().map(|f| &f.d) else { continue };
                let Some(bth) = d.bth.filter(|_| d.error.is_none()) else { continue };
                let Some(&peer) = peer_of.get(&bth.dest_qp.value()) else { continue };
                let Some(qp) = qps.get(&peer) else { continue };
                let sent = sent_of(peer);
                if let (Opcode::MRC_SACK, Some(seth)) = (bth.opcode, &d.ext.seth) {
                    claims.entry(peer).or_default().push((
                        at,
                        Claim::Sack {
                            cack: seth.cack_psn,
                            base: seth.bitmap_base(),
                            bitmap: seth.sack_bitmap,
                        },
                    ));
                    let valid = sack_valid(seth, sent, qp.initial_psn, window, at);
                    if valid == Some(false) {
                        continue; // discarded whole (SND-SACK-003, SND-SACK-004)
                    }
                    let change = match (seth.pr, seth.m.0 & 3) {
                        (true, 1 | 2) => Change::ProbeSkip,
                        (true, _) => Change::ProbeGood,
                        (false, 1) => Change::Skip,
                        (false, 2) => Change::AlwaysSkip,
                        (false, _) => continue,
                    };
                    // The runner names the EV the device used for the trigger PSN
                    // (CONF-MAP-002); a capture judged offline may carry the recorded one.
                    let mut evs = vec![seth.entropy];
                    let mut sure = valid == Some(true);
                    if !seth.pr {
                        let trigger = seth.ack_psn().value();
                        let used = sent.iter().rev().find(|s| s.at <= at && s.psn == trigger);
                        if let Some(s) = used.filter(|s| s.wire != wire_of(seth.entropy)) {
                            evs.extend(qp.slots.iter().filter(|x| x.wire == s.wire).map(|x| x.ev));
                            sure = false;
                        }
                    }
                    events.push(Event { at, peer, evs, change, sure });
                } else if let (Opcode::MRC_NACK, Some(neth)) = (bth.opcode, &d.ext.neth) {
                    if !neth.reason.is_trim() {
                        continue; // no EV changes for any other reason (SND-NACK-003)
                    }
                    let psn = neth.nack_psn.value();
                    let before: Vec<&Sent> =
                        sent.iter().filter(|s| s.psn == psn && s.at < at).collect();
                    let now: Vec<&Sent> =
                        sent.iter().filter(|s| s.psn == psn && s.at == at).collect();
                    let wires: Vec<Ev> =
                        before.last().into_iter().chain(&now).map(|s| s.wire).collect();
                    if wires.is_empty() {
                        continue; // never sent: discarded (SND-NACK-001)
                    }
                    let msn = before.iter().chain(&now).find_map(|s| s.msn);
                    let acked = claims.get(&peer).is_some_and(|c| {
                        c.iter().any(|(t, c)| *t <= at && claims_psn(c, neth.nack_psn, msn))
                    });
                    let evs: Vec<Ev> =
                        qp.slots.iter().filter(|x| wires.contains(&x.wire)).map(|x| x.ev).collect();
                    let sure = !acked && now.is_empty() && evs.len() == 1;
                    events.push(Event { at, peer, evs, change: Change::Skip, sure });
                } else if let (Opcode::MRC_ACKNOWLEDGE, Some(aeth)) = (bth.opcode, &d.ext.aeth) {
                    let msn = aeth.msn.msn();
                    claims.entry(peer).or_default().push((at, Claim::Ack { msn }));
                }
            }
            _ => {}
        }
    }

    (claims, events)
}

/// The EVs of the sending QPs, with what moves them.
struct Packets {
    qps: HashMap<u32, Qp>,
    claims: Claims,
    events: Vec<Event>,
    hold: u64,
    /// A device may send each output up to late_ns / 2 after the reference would
    /// (CONF-TIME-004): it may have chosen the EV on the states of that much earlier.
    lag: u64,
}

impl Packets {
    /// Judges every data packet, in time order, against the states the events before it
    /// (and perhaps those at its time) gave the EVs.
    ///
    /// With `policies` (each QP's spray policy by peer QPN, and where to put what it
    /// finds), it also judges each data packet of a `fixed` or `round-robin` QP by its
    /// policy, on the same states (`CONF-CMP-048`).
    ///
    /// Returns the draws of the QPs that spray at random: each first transmission sent
    /// while the scenario's inputs leave no doubt about the pool, with that pool.
    fn judge(
        &self,
        obs: &[Frame<'_>],
        div: &mut Vec<Divergence>,
        policies: (&HashMap<u32, SprayPolicy>, &mut Vec<Divergence>),
    ) -> Draws {
        let (claims, events, hold, lag) = (&self.claims, &self.events, self.hold, self.lag);
        let (spray, out) = policies;
        let mut qps = self.qps.clone();
        let mut draws = Draws::new();
        // Every data packet, in time order, against the states the events before it (and
        // perhaps those at its time) gave the EVs.
        let mut packets: Vec<&Frame<'_>> =
            obs.iter().filter(|f| matches!(f.kind, Kind::Data { .. })).collect();
        packets.sort_by_key(|f| f.at);
        let mut earlier = qps.clone();
        let mut next_earlier = 0;
        let mut next = 0;
        let mut last_wire: HashMap<(u32, u32), Ev> = HashMap::new();
        // The round-robin cursor of each QP, as the device's own packets leave it, in an
        // order it may have chosen them (`chosen`); the packets judged ahead of their turn.
        let mut cursor: HashMap<u32, usize> = HashMap::new();
        let mut pulled: HashSet<usize> = HashSet::new();
        for (i, &f) in packets.iter().enumerate() {
            let Kind::Data { qp: peer, psn, rtx } = f.kind else { continue };
            let t = f.at;
            while next < events.len() && events[next].at < t {
                apply(&mut qps, &events[next], hold);
                next += 1;
            }
            let chosen = t.saturating_sub(lag);
            while next_earlier < events.len() && events[next_earlier].at < chosen {
                apply(&mut earlier, &events[next_earlier], hold);
                next_earlier += 1;
            }
            let prev = last_wire.insert((peer, psn), f.ev);
            let Some(qp) = qps.get(&peer) else { continue };
            // The states at `t`: before the inputs at `t`, or after them.
            let mut after: HashMap<u32, Qp> = HashMap::from([(peer, qp.clone())]);
            for e in events[next..].iter().take_while(|e| e.at == t).filter(|e| e.peer == peer) {
                apply(&mut after, e, hold);
            }
            // `earlier` starts as a copy of `qps`: the same QPs, the same slots.
            let states: Vec<(&Slot, Possible)> = qp
                .slots
                .iter()
                .zip(&after[&peer].slots)
                .zip(&earlier[&peer].slots)
                .map(|((s, a), b)| {
                    let mut p = s.state.clone();
                    p.settle(t, hold);
                    let mut q = a.state.clone();
                    q.settle(t, hold);
                    p.union(&q);
                    let mut e = b.state.clone();
                    e.settle(chosen, hold);
                    p.union(&e);
                    (s, p)
                })
                .collect();
            let policy = spray.get(&peer).copied().unwrap_or(SprayPolicy::Random);
            let avoided = if rtx { prev } else { None };
            let mut start = cursor.get(&peer).copied().unwrap_or(0);
            if policy == SprayPolicy::RoundRobin && !pulled.contains(&i) {
                let at = (start, avoided);
                start = chosen::cursor_before(&packets, (i, lag), &states, at, &mut pulled);
            }
            if pulled.contains(&i) {
                // Judged when a packet given before it was found to be chosen after it.
            } else if let Some(next) = judge_policy(policy, &states, start, avoided, f, out) {
                cursor.insert(peer, next);
            }
            if qp.random && !rtx {
                if let Some(pool) = certain_pool(&states) {
                    draws.entry(peer).or_default().push(Draw { at: t, pool, ev: f.ev });
                }
            }
            judge_pool(claims, &states, f, prev, div);
        }
        draws
    }
}

/// Judges a data packet's EV against the pool its QP's EV states allow (`CONF-CMP-027`):
/// in the profile, usable, a primary where one is surely usable, and for a retransmission
/// not the EV its PSN was sent on before while another is surely usable. `prev` is the EV
/// of the PSN's previous transmission.
fn judge_pool(
    claims: &Claims,
    states: &[(&Slot, Possible)],
    f: &Frame<'_>,
    prev: Option<Ev>,
    div: &mut Vec<Divergence>,
) {
    let Kind::Data { qp: peer, psn, rtx } = f.kind else { return };
    let t = f.at;
    let mine: Vec<&(&Slot, Possible)> = states.iter().filter(|(s, _)| s.wire == f.ev).collect();
    let report = |clause: Clause, what: String| Divergence {
        actual: Some(render_frame(f.bytes)),
        ..Divergence::named(t, clause, what)
    };
    if mine.is_empty() {
        div.push(report(
            SND_PATH_001,
            format!("a data packet on EV {:#x}, which is not in the QP's profile", f.ev),
        ));
        return;
    }
    if !mine.iter().any(|(_, p)| p.may_be_good()) {
        let any = states.iter().any(|(_, p)| p.may_be_good());
        // On an EV out of GOOD while another was usable: the EV's state was not
        // heeded (EV-STATE-001.b), whatever pool the sender formed.
        div.push(if any {
            report(
                EV_STATE_001_B,
                format!("a data packet on EV {:#x}, which the scenario made unusable", f.ev),
            )
        } else {
            report(
                SND_PATH_002,
                format!("a data packet on EV {:#x} while no EV of the QP was usable", f.ev),
            )
        });
        return;
    }
    let avoided = if rtx { prev } else { None };
    if mine.iter().all(|(s, _)| s.backup) {
        let primary =
            states.iter().find(|(s, p)| !s.backup && p.surely_good() && Some(s.wire) != avoided);
        if let Some((s, _)) = primary {
            div.push(report(
                SND_PATH_001,
                format!(
                    "a data packet on backup EV {:#x} while primary EV {:#x} was usable",
                    f.ev, s.ev
                ),
            ));
            return;
        }
    }
    if rtx && prev == Some(f.ev) {
        let claimed = claims.get(&peer).is_some_and(|c| {
            c.iter().any(|(at, c)| {
                *at <= t && matches!(c, Claim::Sack { .. }) && claims_psn(c, Psn::new(psn), None)
            })
        });
        let other = states.iter().find(|(s, p)| s.wire != f.ev && p.surely_good());
        if let (false, Some((s, _))) = (claimed, other) {
            div.push(report(
                SND_RTX_002_B,
                format!(
                    "retransmitted on EV {:#x}, the EV of its previous transmission, while EV {:#x} was usable",
                    f.ev, s.ev
                ),
            ));
        }
    }
}

/// Judges a data packet of a `fixed` or `round-robin` QP by its policy (`CONF-CMP-048`):
/// from `start` (`fixed`: the profile's first EV; `round-robin`: the cursor its previous
/// packet left) round the profile, the packet may take each EV that may be in the usable
/// pool, up to the first that surely is. `states` are every state each EV may be in when
/// the device chose, its latency allowed for; `avoided` is the EV of a retransmission's
/// previous transmission, which the pool may or may not leave out. Returns the cursor after
/// the packet, `None` for a packet on no EV of the profile or of another policy.
fn judge_policy(
    spray: SprayPolicy,
    states: &[(&Slot, Possible)],
    start: usize,
    avoided: Option<Ev>,
    f: &Frame<'_>,
    div: &mut Vec<Divergence>,
) -> Option<usize> {
    let start = match spray {
        SprayPolicy::Fixed => 0,
        SprayPolicy::RoundRobin => start,
        _ => return None,
    };
    let n = states.len();
    let taken = states.iter().position(|(s, _)| s.wire == f.ev)?;
    let allowed = chosen::allowed(states, start, avoided);
    // No EV may be usable: the pool's rule (CONF-CMP-027) judges the packet.
    let first = *allowed.first()?;
    if !allowed.contains(&taken) {
        let req = policy_requirement(spray, false).unwrap_or(crate::req::SND_SPRAY_001);
        let list = allowed.iter().map(|&i| format!("{:#x}", states[i].0.wire));
        let list = list.collect::<Vec<_>>().join(" or ");
        div.push(Divergence {
            actual: Some(render_frame(f.bytes)),
            fields: vec![super::FieldDiff::new(
                "entropy",
                format!("{:#x}", states[first].0.wire),
                format!("{:#x}", f.ev),
            )],
            ..Divergence::named(
                f.at,
                req,
                format!("sent on EV {:#x}; the QP's spray policy gives EV {list}", f.ev),
            )
        });
    }
    Some((taken + 1) % n)
}

/// One EV a QP that sprays at random drew for a first transmission: when, from which pool
/// (the EVs as frames carry them, in profile order), and which.
#[derive(Debug, Clone)]
struct Draw {
    at: u64,
    pool: Vec<Ev>,
    ev: Ev,
}

/// The draws of each QP that sprays at random, by peer QPN.
type Draws = HashMap<u32, Vec<Draw>>;

/// The usable pool (`SND-PATH-001`) when the states leave no doubt about it: every EV
/// surely GOOD or surely not, and some EV GOOD.
fn certain_pool(states: &[(&Slot, Possible)]) -> Option<Vec<Ev>> {
    if states.iter().any(|(_, p)| p.may_be_good() && !p.surely_good()) {
        return None;
    }
    let good = |backup: bool| -> Vec<Ev> {
        states
            .iter()
            .filter(|(s, p)| s.backup == backup && p.surely_good())
            .map(|(s, _)| s.wire)
            .collect()
    };
    let pool = Some(good(false)).filter(|p| !p.is_empty()).unwrap_or_else(|| good(true));
    (!pool.is_empty()).then_some(pool)
}

/// The natural logarithm of the chance below which a legal random design may be failed,
/// per pool judged: 10^-9.
const RISK_LN: f64 = -9.0 * std::f64::consts::LN_10;

/// Whether, in `n` uniform draws from a pool of `k` EVs, an EV never drawn shows a bias:
/// a uniform generator leaves some EV out with a chance of at most `k (1 - 1/k)^n`.
pub(super) fn never_drawn_shows(n: usize, k: usize) -> bool {
    let (n, k) = (n as f64, k as f64);
    k >= 2.0 && k.ln() + n * (1.0 - 1.0 / k).ln() < RISK_LN
}

/// The most draws of one EV, in `n` uniform draws from a pool of `k`, that a uniform
/// generator goes beyond with a chance below the risk for any of the `k` (Hoeffding's
/// bound): `n / k + sqrt(n ln(k / risk) / 2)`.
fn most_draws(n: usize, k: usize) -> f64 {
    let (n, k) = (n as f64, k as f64);
    n / k + (n * (k.ln() - RISK_LN) / 2.0).sqrt()
}

/// The draws of each QP that sprays at random, judged as a uniform draw from the usable
/// pool (`SND-SPRAY-002`, `CONF-CMP-046`): per pool the QP drew from, an EV of it never
/// drawn where a uniform generator would almost surely have drawn each, or an EV drawn far
/// above its share. The bounds fail a uniform generator with a chance below 10^-9 per pool; the
/// reference's own draws are never compared. The pool itself is judged by [`judge`].
pub(super) fn judge_random(tracking: Option<&Tracking>, div: &mut Vec<Divergence>) {
    let Some(draws) = tracking.map(|t| &t.draws) else { return };
    let mut peers: Vec<&u32> = draws.keys().collect();
    peers.sort();
    for peer in peers {
        let mut pools: Vec<(&Vec<Ev>, Vec<&Draw>)> = Vec::new();
        for d in &draws[peer] {
            match pools.iter_mut().find(|(p, _)| **p == d.pool) {
                Some((_, ds)) => ds.push(d),
                None => pools.push((&d.pool, vec![d])),
            }
        }
        for (pool, ds) in pools {
            let (n, k) = (ds.len(), pool.len());
            let count = |ev: Ev| ds.iter().filter(|d| d.ev == ev).count();
            let at = ds.last().map_or(0, |d| d.at);
            let report = |what: String| Divergence::named(at, crate::req::SND_SPRAY_002, what);
            let list = pool.iter().map(|e| format!("{e:#x}")).collect::<Vec<_>>().join(", ");
            if let Some(e) =
                pool.iter().find(|&&e| count(e) == 0).filter(|_| never_drawn_shows(n, k))
            {
                div.push(report(format!(
                    "{n} first transmissions drawn at random from the pool {list} never took EV {e:#x}: \
                     a uniform draw leaves an EV out with a chance below 10^-9"
                )));
            } else if let Some(&e) = pool.iter().find(|&&e| count(e) as f64 > most_draws(n, k)) {
                div.push(report(format!(
                    "{} of {n} first transmissions drawn at random from the pool {list} took EV \
                     {e:#x}; a uniform draw goes above {:.0} with a chance below 10^-9",
                    count(e),
                    most_draws(n, k)
                )));
            }
        }
    }
}

/// Applies one event to the QP it concerns.
fn apply(qps: &mut HashMap<u32, Qp>, e: &Event, hold: u64) {
    let Some(qp) = qps.get_mut(&e.peer) else { return };
    for s in qp.slots.iter_mut().filter(|s| e.evs.contains(&s.ev)) {
        s.state.settle(e.at, hold);
        let after = s.state.after(e.change, e.at);
        if e.sure {
            s.state = after;
        } else {
            s.state.union(&after);
        }
    }
}

/// Whether an acknowledgement claims `psn` (whose message, when known, is `msn`).
fn claims_psn(c: &Claim, psn: Psn, msn: Option<Msn>) -> bool {
    match *c {
        Claim::Sack { cack, base, bitmap } => {
            psn.is_before(cack.next())
                || (psn.in_window(base, 64) && bitmap >> psn.forward_from(base) & 1 == 1)
        }
        // Without the message of the PSN, any transport ACK may have covered it.
        Claim::Ack { msn: acked } => msn.is_none_or(|m| m.is_at_or_before(acked)),
    }
}

/// Data packets on an EV the device itself last reported out of GOOD (`EV-STATE-001.b`),
/// judged on its own `EvState` reports (REC-IF-016), whatever the scenario expects: a
/// device that says an EV is in SKIP, ASSUMED_BAD or DENIED and sends on it breaks the
/// rule by its own account. Each output may come up to `late_ns` late (CONF-TIME-006), in
/// any order with the others: a packet is judged against the reports made more than
/// `late_ns` before it, and not at all when a report within `late_ns` of it makes the EV
/// GOOD. An EV last reported in SKIP `skip_hold` or more before the packet had returned to
/// GOOD (EV-SKIP-002): the return is what the device did not report (`REC-IF-016`). When
/// the device had reported every EV of the QP's profile out of GOOD, no EV was usable: the
/// packet should have waited (`SND-PATH-002`).
pub(super) fn judge_reported(
    scenario: &Scenario,
    observed: &[TimedOutput],
    frames: &[Frame<'_>],
    local_of: &HashMap<u32, u32>,
    div: &mut Vec<Divergence>,
) {
    use openrdma_device::{NicEvent, NicReport, Output};
    // The states each (device QP, EV) was reported in, with their times.
    let mut reported: HashMap<(u32, u32), Vec<(u64, EvState)>> = HashMap::new();
    for o in observed {
        if let Output::Event { event: NicEvent::Report(NicReport::EvState { qpn, ev, state }) } =
            &o.output
        {
            reported.entry((qpn.value(), ev.value())).or_default().push((o.at.0, *state));
        }
    }
    if reported.is_empty() {
        return;
    }
    let mut profiles: HashMap<u32, Vec<u32>> = HashMap::new();
    for r in scenario.injects() {
        if let Body::Host { command: HostCommand::CreateQp(q) } = &r.body {
            let evs = q.evs.iter().chain(&q.backup_evs).map(|e| e.value()).collect();
            profiles.insert(q.qpn.value(), evs);
        }
    }
    let late = scenario.manifest.tolerances.late_ns;
    let hold = scenario.manifest.nic.skip_hold.as_nanos() as u64;
    // The state the device last reported an EV in, from its reports `states`, surely before
    // a packet at `t`; GOOD when a report near `t` makes it GOOD.
    let state_at = |states: &[(u64, EvState)], t: u64| {
        let good_near = states.iter().any(|&(at, s)| s == EvState::Good && at.abs_diff(t) <= late);
        let mut last = states.iter().filter(|(at, _)| at.saturating_add(late) < t).map(|(_, s)| *s);
        if good_near { Some(EvState::Good) } else { last.next_back() }
    };
    // The state the device last reported EV `ev` of QP `local` in before `t`, if any.
    let last_before = |local: u32, ev: u32, t: u64| state_at(reported.get(&(local, ev))?, t);
    for f in frames {
        let (Some(b), Some(ev)) = (f.d.bth, f.d.entropy()) else { continue };
        if !b.opcode.is_mrc_write() {
            continue;
        }
        let Some(&local) = local_of.get(&b.dest_qp.value()) else { continue };
        let Some(states) = reported.get(&(local, ev.value())) else { continue };
        let t = f.at;
        let Some(state) = state_at(states, t).filter(|s| *s != EvState::Good) else { continue };
        let none_usable = profiles.get(&local).is_some_and(|evs| {
            evs.iter().all(|&e| last_before(local, e, t).is_some_and(|s| s != EvState::Good))
        });
        // The EV reported in SKIP at least `skip_hold` before the packet: it had returned to
        // GOOD by then (EV-SKIP-002), and the device did not report the return.
        let skip_since = states.iter().rev().find(|(at, _)| at.saturating_add(late) < t);
        let returned = state == EvState::Skip
            && skip_since.is_some_and(|&(at, _)| at.saturating_add(hold) <= t);
        let (requirement, why) = if returned {
            (REC_IF_016, " more than skip_hold before: its return to GOOD was not reported")
        } else if none_usable {
            (SND_PATH_002, ", and every EV of the QP out of GOOD")
        } else {
            (EV_STATE_001_B, "")
        };
        div.push(Divergence {
            actual: Some(render_frame(f.bytes)),
            ..Divergence::named(
                t,
                requirement,
                format!(
                    "a data packet on EV {:#x}, which the device last reported {state:?}{why}",
                    ev.value()
                ),
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_ends_after_the_hold_and_is_both_at_its_end() {
        let mut p = Possible::good().after(Change::Skip, 100);
        assert_eq!(p.skip, vec![100]);
        let mut at_end = p.clone();
        at_end.settle(150, 50);
        assert!(at_end.may_be_good() && !at_end.surely_good());
        p.settle(151, 50);
        assert!(p.surely_good());
    }

    #[test]
    fn denied_leaves_only_by_a_command() {
        let d = Possible::good().after(Change::Set(EvState::Denied), 0);
        for c in [Change::Skip, Change::AlwaysSkip, Change::ProbeGood, Change::ProbeSkip] {
            assert_eq!(d.after(c, 10), d, "{c:?}");
        }
        assert!(d.after(Change::Set(EvState::Good), 10).surely_good());
    }

    #[test]
    fn a_probe_answer_ends_assumed_bad_only() {
        let bad = Possible::good().after(Change::AlwaysSkip, 0);
        assert!(!bad.may_be_good());
        assert!(bad.after(Change::ProbeGood, 5).surely_good());
        assert_eq!(bad.after(Change::ProbeSkip, 5).skip, vec![5]);
        // A probe answer for a GOOD EV changes nothing, whatever its mark.
        assert!(Possible::good().after(Change::ProbeSkip, 5).surely_good());
    }

    #[test]
    fn the_random_bounds_pass_a_fair_spread_and_fail_a_stuck_one() {
        // 120 draws from 4 EVs: each is almost sure to come up, and 120 on one is far
        // above a fair share; too few draws prove nothing.
        assert!(never_drawn_shows(120, 4));
        assert!(!never_drawn_shows(20, 4));
        assert!(!never_drawn_shows(1000, 1));
        assert!(most_draws(120, 4) < 120.0 && most_draws(120, 4) > 45.0);
    }

    #[test]
    fn an_uncertain_change_keeps_both_states() {
        let mut p = Possible::good();
        p.union(&p.after(Change::AlwaysSkip, 0));
        assert!(p.may_be_good() && !p.surely_good());
    }
}
