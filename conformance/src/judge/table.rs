//! The judge's table of checks (issue 13): each row is data — a name, the clauses it can
//! fail, the expected outputs through which a scenario exercises it, whether it judges a
//! run at all, and the function that judges. [`super::judge_in`] runs the rows in order;
//! every divergence names the row that found it ([`Divergence::check`]), and coverage
//! ([`crate::report::coverage`]) counts a clause as covered by a scenario when a row that
//! can fail it is exercised by that scenario and the scenario can show a breach of it
//! ([`super::discriminates`]).
//!
//! The order of the rows fixes the order of divergences at equal times, and so which one a
//! report shows first.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap};

use openrdma_device::{
    Body, Capability, Direction, HostCommand, NicEvent, NicReport, Scenario, TimedOutput,
};

use super::arrivals::Arrivals;
use super::entries::SlotHistory;
use super::fit::Fits;
use super::matching::Pairing;
use super::obs::{Kind, Obs};
use super::{
    Divergence, Scope, doorbells, entries, events, flags, link, mark_ev, order, paths, progress,
    rate, reports, retransmitted, sacks, schedule, sequences, steps, unexpected, wire,
};
use crate::req::*;
use crate::requirements::Level;

mod clauses;
use clauses::*;

/// One row of the judge's table.
pub struct Check {
    /// Its stable name, `family` or `family.rule`.
    pub name: &'static str,
    /// Every clause a divergence it emits can name: what a failure of it breaks.
    pub clauses: &'static [Clause],
    /// The clauses that restate one of `clauses` for the output this check judges, so
    /// that a divergence naming it breaks them too (CONF-CMP-118): the divergence still
    /// names its own clause first and carries these in [`Divergence::also_breaks`]. Each
    /// cites the clause it restates, or is cited by it.
    pub restated: &'static [Restated],
    /// The expected outputs through which a scenario exercises it: it covers its clauses in
    /// a scenario that expects one of them.
    pub reads: &'static [Reads],
    /// Whether it judges a run of this scenario by a device judged in this scope (the
    /// capabilities the device claims and the scenario's manifest).
    pub applies: fn(&Scenario, Scope) -> bool,
    /// The judgement.
    pub(crate) judge: fn(&Ctx<'_>, &mut Vec<Divergence>),
}

impl std::fmt::Debug for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Check")
            .field("name", &self.name)
            .field("clauses", &self.clauses)
            .field("restated", &self.restated)
            .field("reads", &self.reads)
            .finish_non_exhaustive()
    }
}

impl Check {
    /// Whether a scenario exercises this check for a device that claims everything: it
    /// applies, and the scenario expects an output the check reads.
    pub fn exercised_by(&self, s: &Scenario) -> bool {
        let reads = expected_reads(s);
        (self.applies)(s, Scope::FULL) && self.reads.iter().any(|k| reads.contains(k))
    }

    /// The check named `name`.
    pub fn named(name: &str) -> Option<&'static Check> {
        CHECKS.iter().find(|c| c.name == name)
    }

    /// The clauses a divergence of this check that names `clause` breaks too, in the
    /// order declared ([`Check::restated`]).
    pub fn also_breaks(&self, clause: Clause) -> impl Iterator<Item = Clause> + '_ {
        self.restated.iter().filter(move |r| r.clause == clause).flat_map(|r| r.by.iter().copied())
    }

    /// Every clause this check can fail: its own, and those that restate them.
    pub fn fails(&self) -> impl Iterator<Item = Clause> + '_ {
        self.clauses.iter().copied().chain(self.restated.iter().flat_map(|r| r.by.iter().copied()))
    }
}

/// Clauses that restate one clause of a check for the output it judges: a rule of one
/// role that repeats a header's rule (RCV-SACK-005.d repeats SETH-BITMAP-001 for a
/// responder's SACK), or a summary that lists the rule (OPC-PSN-002.a lists
/// RCV-NACK-001.g). A bug that breaks `clause` there breaks each of `by` as well.
#[derive(Debug, Clone, Copy)]
pub struct Restated {
    /// The check's own clause, the one its divergences name.
    pub clause: Clause,
    /// The clauses that restate it.
    pub by: &'static [Clause],
}

/// A kind of expected output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// Any frame.
    Frame,
    /// A data packet.
    Data,
    /// A SACK.
    Sack,
    /// A NACK.
    Nack,
    /// A probe.
    Probe,
    /// A DMA write.
    Dma,
    /// A flag write.
    Flag,
    /// A completion entry.
    Completion,
    /// A report to the CPU half.
    Report,
    /// Any output.
    Any,
}

impl Reads {
    fn matches(self, body: &Body) -> bool {
        let kind = |b: &Body| match b {
            Body::Frame { bytes, .. } => Some(super::obs::classify(0, bytes).kind),
            _ => None,
        };
        match (self, body) {
            (Reads::Any, _) => true,
            (Reads::Frame, Body::Frame { .. }) => true,
            (Reads::Data, _) => matches!(kind(body), Some(Kind::Data { .. })),
            (Reads::Sack, _) => matches!(kind(body), Some(Kind::Sack { .. })),
            (Reads::Nack, _) => matches!(kind(body), Some(Kind::Nack { .. })),
            (Reads::Probe, _) => matches!(kind(body), Some(Kind::Probe { .. })),
            (Reads::Dma, Body::Event { event: NicEvent::DmaWrite(_) }) => true,
            (Reads::Flag, Body::Event { event: NicEvent::FlagWrite(_) }) => true,
            (Reads::Completion, Body::Event { event: NicEvent::Completion(_) }) => true,
            (Reads::Report, Body::Event { event: NicEvent::Report(_) }) => true,
            _ => false,
        }
    }
}

/// What every check reads: the run decoded once, and the analyses several checks share.
pub(crate) struct Ctx<'a> {
    pub(super) scenario: &'a Scenario,
    pub(super) observed: &'a [TimedOutput],
    pub(super) o: &'a Obs<'a>,
    /// The window-fit walks, each QP's built once.
    pub(super) fits: &'a Fits<'a>,
    pub(super) arrivals: Arrivals,
    /// The pairing of expected and observed frames, and the divergences it found, which
    /// the `frames.match` row reports.
    pub(super) pairing: Pairing,
    pub(super) pair_div: RefCell<Vec<Divergence>>,
    /// The EVs of the sending QPs followed through the inputs, and the walk over the
    /// device's data packets by them: built by the first row that reads it.
    pub(super) tracking: OnceCell<Option<paths::Tracking>>,
    /// What each observed completion's slot held, and the divergences of the entries
    /// judged on their own and as writes to their queues, which the `entries` row reports:
    /// built before any row runs, so that no row depends on another having run.
    pub(super) history: SlotHistory,
    pub(super) entry_div: RefCell<Vec<Divergence>>,
    /// Expected records checked.
    pub(super) checked: Cell<usize>,
}

impl<'a> Ctx<'a> {
    fn count(&self, n: usize) {
        self.checked.set(self.checked.get() + n);
    }

    /// The EVs of the sending QPs and the walk by them, built once ([`paths::track`]).
    pub(super) fn tracking(&self) -> Option<&paths::Tracking> {
        self.tracking
            .get_or_init(|| paths::track(self.scenario, &self.o.inputs, &self.o.frames))
            .as_ref()
    }

    pub(super) fn local_of(&self) -> HashMap<u32, u32> {
        super::peer_map(self.scenario)
    }

    /// What the checks of `Progress` and `Armed` read.
    pub(super) fn reports<'r>(
        &'r self,
        local_of: &'r HashMap<u32, u32>,
    ) -> reports::Reports<'r, 'a> {
        reports::Reports {
            inputs: &self.o.inputs,
            sent: &self.o.frames,
            local_of,
            obs: &self.o.events,
            margin: self.scenario.manifest.tolerances.late_ns / 2,
            late: self.scenario.manifest.tolerances.late_ns,
            window: self.scenario.manifest.nic.window(),
            expected: &self.o.exp_events,
        }
    }
}

fn always(_: &Scenario, _: Scope) -> bool {
    true
}

fn cpu_split(_: &Scenario, scope: Scope) -> bool {
    scope.cpu_split
}

fn unmarked(_: &Scenario, scope: Scope) -> bool {
    scope.unmarked
}

fn spray_policies(s: &Scenario, _: Scope) -> bool {
    s.manifest.requires.contains(&Capability::SprayPolicies)
}

fn nack_backoff(s: &Scenario, _: Scope) -> bool {
    s.manifest.nic.nack_backoff.as_nanos() != 0
}

fn rings_doorbells(s: &Scenario, _: Scope) -> bool {
    s.records.iter().any(|r| {
        matches!(
            &r.body,
            Body::Host { command: HostCommand::Doorbell { .. } | HostCommand::DoorbellWrite(_) }
        )
    })
}

fn expects_qp_error(s: &Scenario, _: Scope) -> bool {
    s.records.iter().any(|r| {
        r.dir == Direction::Expect
            && matches!(&r.body, Body::Event { event: NicEvent::Report(NicReport::QpError { .. }) })
    })
}

/// The kinds of output `s` expects.
pub(super) fn expected_reads(s: &Scenario) -> Vec<Reads> {
    let all = [
        Reads::Frame,
        Reads::Data,
        Reads::Sack,
        Reads::Nack,
        Reads::Probe,
        Reads::Dma,
        Reads::Flag,
        Reads::Completion,
        Reads::Report,
        Reads::Any,
    ];
    let mut out: Vec<Reads> = Vec::new();
    for r in s.expects() {
        for k in all {
            if !out.contains(&k) && k.matches(&r.body) {
                out.push(k);
            }
        }
    }
    out
}

/// The clauses a scenario covers: every clause of every check it exercises
/// ([`Check::exercised_by`]) that it can show a breach of
/// ([`super::discriminates::covered_by`]), for a device that claims every capability.
pub fn covered_by(s: &Scenario) -> BTreeSet<Clause> {
    super::discriminates::covered_by(s)
}

/// Whether some check of the table can fail `clause`: it is one of a check's clauses, or
/// restates one of them ([`Check::restated`]). A check that names the whole of a marked
/// line fails none of its clauses in particular.
pub fn can_fail(clause: Clause) -> bool {
    CHECKS.iter().any(|c| c.fails().any(|f| f == clause))
}

/// The MUST clauses binding a device or the CPU half it brings that no check of the table
/// can fail, in the specification's order: leaves only (an unmarked line is its own leaf).
pub fn unfailable_musts() -> Vec<Clause> {
    Clause::all()
        .filter(|c| c.is_leaf() && c.level() == Level::Must && c.subject().scenario_checked())
        .filter(|c| !can_fail(*c))
        .collect()
}

/// The table, in the order the checks run.
pub static CHECKS: &[Check] = &[
    // ---- the host side: where each flag lies, what each doorbell token becomes ----------
    Check {
        name: "flags.table",
        clauses: flags::CLAUSES,
        restated: NONE,
        reads: &[Reads::Flag],
        applies: always,
        judge: |c, d| flags::judge(c.o, d),
    },
    Check {
        name: "entries.stopped",
        clauses: STOPPED,
        restated: NONE,
        reads: &[Reads::Completion],
        applies: always,
        judge: |c, d| entries::judge_stopped(c.scenario, &c.o.events, d),
    },
    Check {
        name: "doorbells",
        clauses: doorbells::CLAUSES,
        restated: DOORBELLS_RESTATED,
        reads: &[Reads::Completion, Reads::Flag, Reads::Data],
        applies: rings_doorbells,
        judge: |c, d| doorbells::judge(c.o, d),
    },
    Check {
        name: "templates.expand",
        clauses: doorbells::EXPAND_CLAUSES,
        restated: NONE,
        reads: &[Reads::Completion, Reads::Flag, Reads::Data],
        applies: rings_doorbells,
        judge: |c, d| doorbells::judge_expansion(c.o, &c.pairing.matches, d),
    },
    // ---- the frames and the rest --------------------------------------------------------
    Check {
        name: "qpn2",
        clauses: QPN2,
        restated: NONE,
        reads: &[Reads::Any],
        applies: always,
        judge: |c, d| unexpected::judge_reserved_qpn(c.scenario, &c.o.frames, c.observed, d),
    },
    Check {
        name: "wire",
        clauses: WIRE,
        restated: WIRE_RESTATED,
        reads: &[Reads::Frame],
        applies: always,
        judge: |c, d| wire::judge(&c.o.frames, &c.o.inputs, d),
    },
    Check {
        name: "wire.ev",
        clauses: WIRE_EV,
        restated: NONE,
        reads: &[Reads::Data, Reads::Probe, Reads::Nack],
        applies: always,
        judge: |c, d| wire::judge_evs(c.scenario, &c.o.inputs, &c.o.frames, d),
    },
    Check {
        name: "link",
        clauses: LINK,
        restated: NONE,
        reads: &[Reads::Frame],
        applies: always,
        judge: |c, d| link::judge(c.scenario, &c.local_of(), &c.o.frames, &c.o.exp_frames, d),
    },
    Check {
        name: "paths.reported",
        clauses: PATHS_REPORTED,
        restated: NONE,
        reads: &[Reads::Data],
        applies: always,
        judge: |c, d| paths::judge_reported(c.scenario, c.observed, &c.o.frames, &c.local_of(), d),
    },
    Check {
        name: "frames.match",
        clauses: MATCH,
        restated: MATCH_RESTATED,
        reads: &[Reads::Frame],
        applies: always,
        judge: |c, d| {
            d.append(&mut c.pair_div.borrow_mut());
            c.count(c.pairing.checked);
        },
    },
    Check {
        name: "order",
        clauses: ORDER,
        restated: NONE,
        reads: &[Reads::Data, Reads::Dma, Reads::Flag, Reads::Completion],
        applies: always,
        judge: |c, d| order::judge(c.scenario, c.observed, &c.local_of(), &c.o.inputs, d),
    },
    Check {
        name: "frames.unexpected",
        clauses: UNEXPECTED,
        restated: DISCARDS_RESTATED,
        reads: &[Reads::Frame],
        applies: always,
        judge: unexpected::judge,
    },
    Check {
        name: "paths",
        clauses: PATHS,
        restated: NONE,
        reads: &[Reads::Data],
        applies: always,
        judge: |c, d| paths::judge(c.tracking(), d),
    },
    Check {
        name: "spray",
        clauses: SPRAY,
        restated: NONE,
        reads: &[Reads::Data, Reads::Probe],
        applies: spray_policies,
        judge: paths::judge_exact,
    },
    Check {
        name: "schedule.probe-ev",
        clauses: PROBE_EV,
        restated: NONE,
        reads: &[Reads::Probe],
        applies: always,
        judge: |c, d| {
            let (inputs, exp, obs) = (&c.o.inputs, &c.o.exp_frames, &c.o.frames);
            schedule::judge_commanded_probe_evs(c.scenario, inputs, exp, obs, d);
        },
    },
    Check {
        name: "spray.random",
        clauses: SPRAY_RANDOM,
        restated: NONE,
        reads: &[Reads::Data],
        applies: spray_policies,
        judge: |c, d| paths::judge_random(c.tracking(), d),
    },
    Check {
        name: "schedule.order",
        clauses: SCHEDULE_ORDER,
        restated: SCHEDULE_ORDER_RESTATED,
        reads: &[Reads::Data],
        applies: always,
        judge: |c, d| {
            let (exp, obs, matches) = (&c.o.exp_frames, &c.o.frames, &c.pairing.matches);
            schedule::judge_order(c.scenario, &c.o.inputs, exp, obs, matches, d);
            schedule::judge_commanded_probes(
                c.scenario,
                &c.o.inputs,
                &c.o.exp_frames,
                &c.o.frames,
                &c.pairing.matches,
                d,
            );
        },
    },
    Check {
        name: "schedule.clock",
        clauses: CLOCK,
        restated: NONE,
        reads: &[Reads::Data, Reads::Probe],
        applies: always,
        judge: |c, d| {
            schedule::judge_clock(&c.o.frames, c.scenario.manifest.tolerances.late_ns, d);
        },
    },
    Check {
        name: "schedule.clock-rate",
        clauses: CLOCK_RATE,
        restated: NONE,
        reads: &[Reads::Data, Reads::Probe],
        applies: always,
        judge: |c, d| {
            rate::judge_rate(&c.o.frames, c.scenario.manifest.tolerances.late_ns, d);
        },
    },
    Check {
        name: "schedule.nack-backoff",
        clauses: NACK_BACKOFF,
        restated: NACK_BACKOFF_RESTATED,
        reads: &[Reads::Data],
        applies: nack_backoff,
        judge: |c, d| schedule::judge_nack_backoff(c.scenario, &c.o.inputs, &c.o.frames, d),
    },
    Check {
        name: "sacks",
        clauses: SACKS,
        restated: SACKS_RESTATED,
        reads: &[Reads::Sack, Reads::Dma],
        applies: always,
        judge: |c, d| {
            let mut n = 0;
            let run = sacks::Run {
                scenario: c.scenario,
                arrivals: &c.arrivals,
                exp_frames: &c.o.exp_frames,
                obs_frames: &c.o.frames,
                tol: &c.scenario.manifest.tolerances,
                injects: &c.o.injects,
                obs_events: &c.o.events,
            };
            sacks::judge(run, d, &mut n);
            c.count(n);
        },
    },
    Check {
        name: "sacks.mark",
        clauses: SACK_MARK,
        restated: NONE,
        reads: &[Reads::Sack],
        applies: unmarked,
        judge: |c, d| {
            let mut n = 0;
            sacks::judge_marks(&c.o.frames, d, &mut n);
            c.count(n);
        },
    },
    Check {
        name: "placement",
        clauses: PLACEMENT,
        restated: DISCARDS_RESTATED,
        reads: &[Reads::Dma],
        applies: always,
        judge: |c, d| {
            let mut n = 0;
            events::placement(c.scenario, &c.arrivals, c.o, d, &mut n);
            c.count(n);
        },
    },
    Check {
        name: "entries",
        clauses: ENTRIES,
        restated: NONE,
        reads: &[Reads::Completion],
        applies: always,
        judge: |c, d| d.append(&mut c.entry_div.borrow_mut()),
    },
    Check {
        name: "sequences",
        clauses: SEQUENCES,
        restated: NONE,
        reads: &[Reads::Flag, Reads::Completion],
        applies: always,
        judge: |c, d| {
            let mut n = 0;
            let late = c.scenario.manifest.tolerances.late_ns;
            let h = &c.history;
            let naks: Vec<(u32, u64, u8)> =
                c.o.inputs
                    .iter()
                    .filter_map(|i| {
                        let f = i.frame.as_ref()?;
                        let a = f.d.ext.aeth?;
                        let ack = openrdma_codec::AethKind::of(a.syndrome)
                            == openrdma_codec::AethKind::Ack;
                        (!ack).then_some((f.d.bth?.dest_qp.value(), i.at, a.syndrome))
                    })
                    .collect();
            // The frames that carry a value a receiver must take, by time.
            let odd: Vec<(u64, Clause)> = c
                .o
                .inputs
                .iter()
                .filter_map(|i| Some((i.at, super::arrivals::accept_clause(&i.frame.as_ref()?.d)?)))
                .collect();
            // The NACKs injected, (QP, time, reason, vendor_info), and the credit code of
            // each AETH ACK injected, (QP, time, credit).
            let nacks: Vec<(u32, u64, u8, u8)> =
                c.o.inputs
                    .iter()
                    .filter_map(|i| {
                        let f = i.frame.as_ref()?;
                        let x = f.d.ext.neth?;
                        Some((f.d.bth?.dest_qp.value(), i.at, x.reason.0, x.vendor_info))
                    })
                    .collect();
            let credits: Vec<(u32, u64, u8)> =
                c.o.inputs
                    .iter()
                    .filter_map(|i| {
                        let f = i.frame.as_ref()?;
                        let a = f.d.ext.aeth?;
                        let ack = openrdma_codec::AethKind::of(a.syndrome)
                            == openrdma_codec::AethKind::Ack;
                        ack.then_some((f.d.bth?.dest_qp.value(), i.at, a.syndrome & 0x1F))
                    })
                    .collect();
            // The AETHs a sender must discard (SND-ACK-002), (QP, time): their `msn` is
            // at or after the next MSN of every QP of the device, by the MSNs of the data
            // packets it had sent by then.
            let sent: Vec<(u64, u32, u16)> =
                c.o.frames
                    .iter()
                    .filter_map(|f| {
                        let b = f.d.bth.filter(|b| b.opcode.is_mrc_write())?;
                        Some((f.at, b.dest_qp.value(), f.d.ext.meth?.msn.value()))
                    })
                    .collect();
            let wild: Vec<(u32, u64)> =
                c.o.inputs
                    .iter()
                    .filter_map(|i| {
                        let f = i.frame.as_ref()?;
                        let msn = f.d.ext.aeth?.msn.msn().value();
                        let mut last: HashMap<u32, u16> = HashMap::new();
                        for &(_, q, m) in sent.iter().filter(|s| s.0 <= i.at) {
                            last.insert(q, m);
                        }
                        let ahead = |m: &u16| (1..1 << 15).contains(&msn.wrapping_sub(*m));
                        let wild = !last.is_empty() && last.values().all(ahead);
                        wild.then_some((f.d.bth?.dest_qp.value(), i.at))
                    })
                    .collect();
            let inputs = sequences::Inputs {
                naks: &naks,
                odd: &odd,
                nacks: &nacks,
                credits: &credits,
                wild_acks: &wild,
                flagless: &flagless(c.scenario),
                orders: &sequences::Orders::of(c.scenario),
            };
            sequences::judge(&c.o.exp_events, &c.o.events, inputs, late, h, d, &mut n);
            c.count(n);
        },
    },
    Check {
        name: "sequences.acknowledged",
        clauses: ACKNOWLEDGED,
        restated: NONE,
        reads: &[Reads::Flag, Reads::Completion],
        applies: always,
        judge: |c, d| {
            let aeths: Vec<(u32, u64, openrdma_codec::Msn)> =
                c.o.inputs
                    .iter()
                    .filter_map(|i| {
                        let f = i.frame.as_ref()?;
                        Some((f.d.bth?.dest_qp.value(), i.at, f.d.ext.aeth?.msn.msn()))
                    })
                    .collect();
            sequences::judge_unacknowledged(&c.o.events, &aeths, d);
        },
    },
    Check {
        name: "qp-error",
        clauses: QP_ERROR,
        restated: NONE,
        reads: &[Reads::Report],
        applies: expects_qp_error,
        judge: |c, d| {
            let mut n = 0;
            events::qp_errors(c.o, d, &mut n);
            c.count(n);
        },
    },
    Check {
        name: "reports",
        clauses: REPORTS,
        restated: NONE,
        reads: &[Reads::Report],
        applies: cpu_split,
        judge: |c, d| {
            let mut n = 0;
            let late = c.scenario.manifest.tolerances.late_ns;
            let sent = events::Sent::new(c.scenario, &c.o.frames);
            events::judge_reports(
                &c.o.exp_events,
                &c.o.events,
                &c.o.inputs,
                &sent,
                late,
                d,
                &mut n,
            );
            let expects_ev_states =
                c.o.exp_events
                    .iter()
                    .any(|(_, e)| matches!(e, NicEvent::Report(NicReport::EvState { .. })));
            if !expects_ev_states {
                events::judge_ev_state_truth(c.scenario, &c.o.events, d);
            }
            c.count(n);
        },
    },
    Check {
        name: "reports.order",
        clauses: REPORT_ORDER_UNA,
        restated: NONE,
        // The reports it orders, Progress and Armed, are not recorded: a data packet sent
        // makes them due.
        reads: &[Reads::Data],
        applies: cpu_split,
        judge: |c, d| {
            let (i, e) = (&c.o.inputs, &c.o.events);
            progress::judge_report_order(i, &c.o.frames, &c.local_of(), e, d);
        },
    },
    Check {
        name: "reports.steps",
        clauses: REPORT_ORDER,
        restated: NONE,
        // The reports it orders are not all recorded: a SACK to a QP makes them due.
        reads: &[Reads::Sack],
        applies: cpu_split,
        judge: |c, d| {
            let local_of = c.local_of();
            steps::judge_steps(&c.reports(&local_of), d);
        },
    },
    Check {
        name: "reports.progress",
        clauses: PROGRESS,
        restated: NONE,
        // Progress is not recorded: a SACK or an ACK to a QP makes it due.
        reads: &[Reads::Sack],
        applies: cpu_split,
        judge: |c, d| {
            let (i, e) = (&c.o.inputs, &c.o.events);
            progress::judge_progress_truth(i, &c.o.frames, &c.local_of(), e, d);
        },
    },
    Check {
        name: "reports.outstanding",
        clauses: PROGRESS,
        restated: NONE,
        // Progress is not recorded: what the QP sent and what was acknowledged give it.
        reads: &[Reads::Sack, Reads::Data],
        applies: cpu_split,
        judge: |c, d| reports::judge_outstanding(&c.reports(&c.local_of()), d),
    },
    Check {
        name: "reports.awaiting",
        clauses: PROGRESS_AWAITING,
        restated: NONE,
        // Progress is not recorded: what the QP sent whole and the ACKs into it give it;
        // the flags the device left out show an ACK it did not take.
        reads: &[Reads::Sack, Reads::Data, Reads::Flag],
        applies: cpu_split,
        judge: |c, d| reports::judge_awaiting(&c.reports(&c.local_of()), d),
    },
    Check {
        name: "reports.progress-due",
        clauses: PROGRESS,
        restated: NONE,
        // Progress is not recorded: a SACK that advances snd_una makes it due.
        reads: &[Reads::Sack],
        applies: cpu_split,
        judge: |c, d| reports::judge_progress_due(&c.reports(&c.local_of()), d),
    },
    Check {
        name: "reports.progress-cause",
        clauses: PROGRESS_CAUSE,
        restated: NONE,
        reads: &[Reads::Sack],
        applies: cpu_split,
        judge: |c, d| reports::judge_progress_cause(&c.reports(&c.local_of()), d),
    },
    Check {
        name: "reports.mark-ev",
        clauses: MARK_EV,
        restated: NONE,
        // The EV of EvMarked and ProbeAnswered: the entropy of the SACK that made them.
        reads: &[Reads::Sack],
        applies: cpu_split,
        judge: |c, d| mark_ev::judge_mark_ev(&c.reports(&c.local_of()), d),
    },
    Check {
        name: "reports.armed-cause",
        clauses: ARMED_CAUSE,
        restated: NONE,
        reads: &[Reads::Data],
        applies: cpu_split,
        judge: |c, d| reports::judge_armed_cause(&c.reports(&c.local_of()), d),
    },
    Check {
        name: "reports.armed-due",
        clauses: ARMED_DUE,
        restated: NONE,
        // Armed is not recorded: a first transmission sent while the QP is idle makes it due.
        reads: &[Reads::Data],
        applies: cpu_split,
        judge: |c, d| reports::judge_armed_due(&c.reports(&c.local_of()), d),
    },
    Check {
        name: "ev-states",
        clauses: EV_STATES,
        restated: NONE,
        reads: &[Reads::Report],
        applies: cpu_split,
        judge: |c, d| {
            let late = c.scenario.manifest.tolerances.late_ns;
            events::judge_ev_state_history(&c.o.inputs, &c.o.events, late, d);
        },
    },
    Check {
        name: "retransmitted",
        clauses: RETRANSMITTED,
        restated: NONE,
        reads: &[Reads::Data],
        applies: cpu_split,
        judge: |c, d| {
            events::judge_retransmit_reports(c.scenario, c.observed, &c.o.frames, d);
            let o = &c.o;
            retransmitted::judge_retransmit_contents(
                c.scenario, &o.inputs, &o.frames, &o.events, d,
            );
        },
    },
];

/// The device QPs a scenario creates with no retirement flags: a number of flag slots that
/// is not a power of two from 1 to 2^15 (RET-FLAG-001.b).
pub(super) fn flagless(s: &Scenario) -> Vec<u32> {
    s.injects()
        .filter_map(|r| match &r.body {
            Body::Host { command: HostCommand::CreateQp(q) }
                if !(q.recv_flag_slots.is_power_of_two() && q.recv_flag_slots <= 1 << 15) =>
            {
                Some(q.qpn.value())
            }
            _ => None,
        })
        .collect()
}
