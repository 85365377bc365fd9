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
use super::matching::Pairing;
use super::obs::{Kind, Obs};
use super::{
    Divergence, Scope, doorbells, entries, events, link, order, paths, sacks, schedule, sequences,
    unexpected, wire,
};
use crate::req::*;
use crate::requirements::Level;

/// One row of the judge's table.
pub struct Check {
    /// Its stable name, `family` or `family.rule`.
    pub name: &'static str,
    /// Every clause a divergence it emits can name: what a failure of it breaks.
    pub clauses: &'static [Clause],
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
    pub(super) arrivals: Arrivals,
    /// The pairing of expected and observed frames, and the divergences it found, which
    /// the `frames.match` row reports.
    pub(super) pairing: Pairing,
    pub(super) pair_div: RefCell<Vec<Divergence>>,
    /// What each observed completion's slot held, from the `entries` row.
    pub(super) history: OnceCell<SlotHistory>,
    /// Expected records checked.
    pub(super) checked: Cell<usize>,
}

impl Ctx<'_> {
    fn count(&self, n: usize) {
        self.checked.set(self.checked.get() + n);
    }

    fn local_of(&self) -> HashMap<u32, u32> {
        super::peer_map(self.scenario)
    }
}

fn always(_: &Scenario, _: Scope) -> bool {
    true
}

fn cpu_split(_: &Scenario, scope: Scope) -> bool {
    scope.cpu_split
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

/// Whether some check of the table can fail `clause`: it is one of a check's clauses. A
/// check that names the whole of a marked line fails none of its clauses in particular.
pub fn can_fail(clause: Clause) -> bool {
    CHECKS.iter().any(|c| c.clauses.contains(&clause))
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
    // ---- the host side: what each doorbell token becomes --------------------------------
    Check {
        name: "doorbells",
        clauses: doorbells::CLAUSES,
        reads: &[Reads::Completion, Reads::Flag, Reads::Data],
        applies: rings_doorbells,
        judge: |c, d| doorbells::judge(c.o, d),
    },
    Check {
        name: "templates.expand",
        clauses: doorbells::EXPAND_CLAUSES,
        reads: &[Reads::Completion, Reads::Flag, Reads::Data],
        applies: rings_doorbells,
        judge: |c, d| doorbells::judge_expansion(c.o, &c.pairing.matches, d),
    },
    // ---- the frames and the rest --------------------------------------------------------
    Check {
        name: "qpn2",
        clauses: QPN2,
        reads: &[Reads::Any],
        applies: always,
        judge: |c, d| unexpected::judge_reserved_qpn(c.scenario, &c.o.frames, c.observed, d),
    },
    Check {
        name: "wire",
        clauses: WIRE,
        reads: &[Reads::Frame],
        applies: always,
        judge: |c, d| wire::judge(&c.o.frames, d),
    },
    Check {
        name: "wire.ev",
        clauses: WIRE_EV,
        reads: &[Reads::Data, Reads::Probe, Reads::Nack],
        applies: always,
        judge: |c, d| wire::judge_evs(c.scenario, &c.o.inputs, &c.o.frames, d),
    },
    Check {
        name: "link",
        clauses: LINK,
        reads: &[Reads::Frame],
        applies: always,
        judge: |c, d| link::judge(c.scenario, &c.local_of(), &c.o.frames, d),
    },
    Check {
        name: "paths.reported",
        clauses: PATHS_REPORTED,
        reads: &[Reads::Data],
        applies: always,
        judge: |c, d| paths::judge_reported(c.scenario, c.observed, &c.local_of(), d),
    },
    Check {
        name: "frames.match",
        clauses: MATCH,
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
        reads: &[Reads::Data, Reads::Dma, Reads::Flag, Reads::Completion],
        applies: always,
        judge: |c, d| order::judge(c.scenario, c.observed, &c.local_of(), &c.o.inputs, d),
    },
    Check {
        name: "frames.unexpected",
        clauses: UNEXPECTED,
        reads: &[Reads::Frame],
        applies: always,
        judge: |c, d| {
            unexpected::judge(
                c.scenario,
                &c.o.inputs,
                &c.o.exp_frames,
                &c.o.frames,
                &c.arrivals,
                &c.pairing.used,
                d,
            )
        },
    },
    Check {
        name: "paths",
        clauses: PATHS,
        reads: &[Reads::Data],
        applies: always,
        judge: |c, d| paths::judge(c.scenario, &c.o.inputs, &c.o.frames, d),
    },
    Check {
        name: "spray",
        clauses: SPRAY,
        reads: &[Reads::Data, Reads::Probe],
        applies: spray_policies,
        judge: |c, d| {
            paths::judge_exact(c.scenario, &c.o.exp_frames, &c.o.frames, &c.pairing.matches, d)
        },
    },
    Check {
        name: "schedule.order",
        clauses: SCHEDULE_ORDER,
        reads: &[Reads::Data],
        applies: always,
        judge: |c, d| {
            schedule::judge_order(c.scenario, &c.o.exp_frames, &c.o.frames, &c.pairing.matches, d)
        },
    },
    Check {
        name: "schedule.clock",
        clauses: CLOCK,
        reads: &[Reads::Data, Reads::Probe],
        applies: always,
        judge: |c, d| schedule::judge_clock(&c.o.frames, d),
    },
    Check {
        name: "schedule.nack-backoff",
        clauses: NACK_BACKOFF,
        reads: &[Reads::Data],
        applies: nack_backoff,
        judge: |c, d| schedule::judge_nack_backoff(c.scenario, &c.o.inputs, &c.o.frames, d),
    },
    Check {
        name: "sacks",
        clauses: SACKS,
        reads: &[Reads::Sack],
        applies: always,
        judge: |c, d| {
            let mut n = 0;
            let tol = &c.scenario.manifest.tolerances;
            sacks::judge(c.scenario, &c.arrivals, &c.o.exp_frames, &c.o.frames, tol, d, &mut n);
            c.count(n);
        },
    },
    Check {
        name: "placement",
        clauses: PLACEMENT,
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
        reads: &[Reads::Completion],
        applies: always,
        judge: |c, d| {
            let late = c.scenario.manifest.tolerances.late_ns;
            let h = entries::judge(c.scenario, &c.o.events, late, d);
            let _ = c.history.set(h);
        },
    },
    Check {
        name: "sequences",
        clauses: SEQUENCES,
        reads: &[Reads::Flag, Reads::Completion],
        applies: always,
        judge: |c, d| {
            let mut n = 0;
            let late = c.scenario.manifest.tolerances.late_ns;
            let none = SlotHistory::new();
            let h = c.history.get().unwrap_or(&none);
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
            };
            sequences::judge(&c.o.exp_events, &c.o.events, inputs, late, h, d, &mut n);
            c.count(n);
        },
    },
    Check {
        name: "sequences.acknowledged",
        clauses: ACKNOWLEDGED,
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
        name: "ev-states",
        clauses: EV_STATES,
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
        reads: &[Reads::Data],
        applies: cpu_split,
        judge: |c, d| events::judge_retransmit_reports(c.scenario, c.observed, &c.o.frames, d),
    },
];

const QPN2: &[Clause] = &[ERTH_QPN_001_B];

/// Every rule the codec checks on a frame (`*Repr::RULES`, `FRAME_RULES`, the decode
/// errors), as the clause that binds the sender ([`super::sender_clause`]), the sender's
/// ICRC rule and the sender clause of ENC-HOP-001.
const WIRE: &[Clause] = &[
    AETH_MRC_001,
    AETH_NAK_001,
    AETH_SYN_001,
    AETH_SYN_002,
    ATOMIC_WRITE_001,
    BTH_RESV_001,
    BTH_RESV_002_A,
    BTH_RESV_003,
    BTH_TVER_001_A,
    CCS_RESV_001,
    CNP_BTH_001_A,
    CNP_RESV_001,
    DEC_STRUCT_001,
    DETH_RESV_001,
    EETH_OP_002_A,
    EETH_RESV_001,
    ENC_ECN_001,
    ENC_ETH_001,
    ENC_ETH_002,
    ENC_EV_001_B,
    ENC_EV_002_A,
    ENC_FRAME_001,
    ENC_HOP_001_A,
    ENC_IPV4_001,
    ENC_IPV4_002_A,
    ENC_IPV4_003_A,
    ENC_IPV4_004,
    ENC_IPV4_005,
    ENC_IPV4_007,
    ENC_IPV6_001,
    ENC_IPV6_002,
    ENC_LEN_001_A,
    ENC_LEN_002_A,
    ENC_LEN_004,
    ENC_UDP_001_A,
    ENC_UDP_002,
    ENC_UDP_003_B,
    ENC_UDP_005,
    ENC_VLAN_001,
    ENC_VLAN_002_A,
    ERTH_OP_001_A,
    ERTH_RESV_001,
    FETH_PLT_001,
    FETH_RESV_001,
    FETH_SEL_001,
    ICRC_CALC_001,
    ICRC_COVER_001,
    ICRC_MASK_001,
    ICRC_ORDER_001,
    NETH_REASON_001_A,
    NETH_RESV_001,
    OPC_UNKNOWN_001_A,
    PAY_NONE_001,
    PAY_PAD_001,
    PAY_PAD_002_A,
    PETH_RESV_001,
    RETH_LEN_001,
    RETH_VA_001,
    SETH_M_001_A,
    SETH_RESV_001,
    TSETH_FTYPE_001_A,
    TSETH_PRESENT_002,
    TSETH_RESV_001,
];

const WIRE_EV: &[Clause] = &[ENC_EV_001_A, ENC_EV_002_A, RCV_NACK_001_B];

const LINK: &[Clause] = &[
    BTH_LAYOUT_001,
    BTH_PKEY_001,
    CONF_CMP_026_B,
    ENC_HOP_001_C,
    EV_PROBE_005_C,
    RCV_ACK_002_A,
    RCV_NACK_001_A,
    RCV_NAK_002_A,
    RCV_SACK_005_A,
];

const MATCH: &[Clause] = &[
    AETH_LAYOUT_001,
    AETH_MRC_002_A,
    AETH_MRC_002_B,
    AETH_MSN_001_A,
    AETH_MSN_001_B,
    BTH_LAYOUT_001,
    BTH_PKEY_001,
    BTH_RESV_002_B,
    BTH_RTX_001,
    BTH_RTX_002_B,
    BTH_TVER_001_B,
    CONF_CMP_026_B,
    DEC_CUT_001,
    DEC_RESV_001_B,
    DEC_STRUCT_001,
    EETH_DATA_001_A,
    EETH_DATA_001_B,
    EETH_ECHO_001,
    EETH_LAYOUT_001,
    EETH_PORT_001,
    EETH_RESV_001,
    EETH_STATUS_001_A,
    EETH_STATUS_001_B,
    ENC_EV_001_C,
    ENC_FRAME_001,
    ENC_HOP_001_C,
    ENC_IPV4_001,
    ENC_IPV4_002_B,
    ENC_IPV4_003_B,
    ENC_IPV4_005,
    ENC_IPV4_006_B,
    ENC_IPV6_001,
    ENC_IPV6_002,
    ENC_LEN_001_B,
    ENC_LEN_002_B,
    ENC_LEN_003,
    ENC_LEN_004,
    ENC_ROCE_001,
    ENC_UDP_001_A,
    ENC_UDP_001_B,
    ENC_UDP_002,
    ENC_UDP_004_B,
    ENC_UDP_006,
    ENC_VLAN_002_C,
    ERTH_LAYOUT_001,
    ERTH_PORT_001,
    ERTH_QPN_001_A,
    ERTH_RESP_001_A,
    ERTH_RESP_001_B,
    ERTH_RESV_001,
    EV_DENY_002,
    EV_PROBE_002,
    EV_PROBE_003,
    EV_PROBE_005_A,
    EV_PROBE_005_C,
    EV_PROBE_005_D,
    EV_PROBE_005_E,
    EV_PROBE_005_G,
    EV_SKIP_002,
    ICRC_CALC_001,
    ICRC_COVER_001,
    ICRC_MASK_001,
    ICRC_ORDER_001,
    ICRC_VERIFY_001_A,
    IMMDT_LAYOUT_001,
    METH_LAYOUT_001,
    METH_MSN_001,
    METH_RQMSN_001_A,
    METH_RQMSN_001_B,
    NETH_CC_001,
    NETH_LAYOUT_001,
    NETH_PDC_001_A,
    NETH_PDC_001_B,
    NETH_PSN_001,
    NETH_TS_001,
    NETH_TYPE_001_A,
    NETH_TYPE_001_B,
    NETH_VENDOR_001_A,
    NETH_VENDOR_001_B,
    OPC_PSN_002_B,
    OPC_PSN_002_C,
    OPC_UNKNOWN_001_B,
    OPC_WRITE_001,
    PAY_LEN_001,
    PAY_LEN_002,
    PAY_PAD_001,
    PAY_PAD_002_B,
    PAY_PAD_003,
    PETH_FTYPE_001_B,
    PETH_LAYOUT_001,
    PETH_PDC_001_B,
    RCV_ACK_001_A,
    RCV_ACK_001_B,
    RCV_ACK_002_A,
    RCV_ACK_002_B,
    RCV_ACK_003_B,
    RCV_DUP_002,
    RCV_NACK_001_A,
    RCV_NACK_001_C,
    RCV_NACK_001_D,
    RCV_NACK_001_G,
    RCV_NAK_002_A,
    RCV_NAK_002_B,
    RCV_NAK_002_C,
    RCV_PLACE_002_B,
    RCV_SACK_001_A,
    RCV_SACK_005_A,
    RCV_SACK_005_C,
    RCV_SACK_005_E,
    RCV_SACK_005_I,
    RCV_WIN_002_A,
    REC_IF_002,
    REC_IF_003,
    REC_IF_010,
    REC_IF_017_A,
    REC_IF_017_B,
    REC_IF_017_C,
    REC_PROBE_001,
    REC_RETRY_001,
    REC_RTO_001,
    REC_RTO_002,
    REC_RTO_003,
    REC_RTO_005,
    RETH_LAYOUT_001,
    RETH_LEN_003,
    RETH_RKEY_001,
    RETH_VA_002,
    RET_ERR_001_B,
    RET_ORDER_001,
    SETH_CC_001_B,
    SETH_M_001_B,
    SETH_PDC_001_B,
    SETH_TYPE_001_B,
    SND_ACKREQ_001,
    SND_CC_001,
    SND_INFER_001,
    SND_MSN_002,
    SND_NACK_002,
    SND_NACK_004_A,
    SND_PSN_001,
    SND_RQMSN_002_A,
    SND_RQMSN_002_B,
    SND_RTX_001_A,
    SND_RTX_001_B,
    SND_RTX_002_A,
    SND_SACK_001,
    SND_SACK_002_A,
    SND_SEG_001_A,
    SND_SEG_001_B,
    SND_SEG_002,
    SND_SEG_003_A,
    SND_SEG_003_B,
    SND_SEG_003_C,
    SND_SEG_004,
    SND_TAIL_001_A,
    SND_TS_002_A,
    SND_TS_002_B,
    SND_TS_002_D,
    SND_WIN_001,
    SND_WIN_002_B,
    TSETH_FTYPE_001_A,
    TSETH_FTYPE_001_B,
    TSETH_PRESENT_001,
    TSETH_RESV_001,
    WWI_LIMIT_001,
    WWI_LIMIT_002,
];

const ORDER: &[Clause] =
    &[FLAG_ORDER_002, ORD_SEND_001, ORD_SEND_002_A, ORD_SEND_003, RET_ORDER_002, SND_NACK_001_A];

const UNEXPECTED: &[Clause] = &[
    DEC_CUT_001,
    DEC_STRUCT_001,
    EETH_ECHO_001,
    ENC_FRAME_001,
    ENC_IPV4_001,
    ENC_IPV4_002_B,
    ENC_IPV4_003_B,
    ENC_IPV4_005,
    ENC_IPV6_001,
    ENC_IPV6_002,
    ENC_LEN_001_B,
    ENC_LEN_002_B,
    ENC_LEN_004,
    ENC_ROCE_001,
    ENC_UDP_001_B,
    ENC_UDP_002,
    ENC_UDP_006,
    ENC_VLAN_002_C,
    ERTH_OP_001_A,
    ERTH_QPN_001_B,
    ERTH_RESP_001_A,
    ERTH_RESP_001_D,
    ERTH_RESP_001_E,
    EV_PROBE_005_A,
    FLAG_LAST_002,
    ICRC_VERIFY_001_A,
    OPC_UNKNOWN_001_B,
    PAY_PAD_003,
    RCV_ACK_001_A,
    RCV_ACK_002_A,
    RCV_MSG_001,
    RCV_MSG_002,
    RCV_NACK_001_C,
    RCV_OPC_001,
    RCV_QP_001,
    RCV_QP_002,
    RCV_SEG_001,
    RCV_SEG_002,
    REC_IF_017_A,
    REC_EV_002_A,
    REC_EV_002_B,
    REC_PROBE_001,
    REC_PROBE_002,
    REC_RETRY_002,
    SND_ERR_001,
    SND_INFER_002_A,
    SND_INFER_003_A,
    SND_INFER_004,
    SND_NACK_001_A,
    SND_PSN_001,
    SND_RTX_004,
    SND_SCHED_003_B,
    SND_TAIL_001_A,
    SND_TAIL_001_B,
];

const PATHS_REPORTED: &[Clause] = &[EV_STATE_001_B, SND_PATH_002];

const PATHS: &[Clause] = &[EV_STATE_001_B, SND_PATH_001, SND_PATH_002, SND_RTX_002_B];

const SPRAY: &[Clause] =
    &[EV_PROBE_005_B, SND_SPRAY_001, SND_SPRAY_003, SND_SPRAY_004, SND_SPRAY_005, SND_SPRAY_009];

const SCHEDULE_ORDER: &[Clause] = &[SND_ORDER_001_A, SND_SCHED_001, SND_SCHED_003_A];

const CLOCK: &[Clause] = &[EV_PROBE_005_F, SND_TS_002_C];

const NACK_BACKOFF: &[Clause] = &[SND_NACK_004_A, SND_RTX_005];

const SACKS: &[Clause] = &[
    AETH_MRC_002_B,
    BTH_LAYOUT_001,
    BTH_RESV_002_B,
    BTH_RTX_002_B,
    BTH_TVER_001_B,
    CCS_BYTES_001,
    CCS_OOO_001,
    CCS_TS_001,
    DEC_CUT_001,
    DEC_RESV_001_B,
    DEC_STRUCT_001,
    EETH_DATA_001_B,
    ENC_EV_001_C,
    ENC_EV_002_B,
    ENC_FRAME_001,
    ENC_IPV4_001,
    ENC_IPV4_002_B,
    ENC_IPV4_003_B,
    ENC_IPV4_005,
    ENC_IPV4_006_B,
    ENC_IPV6_001,
    ENC_IPV6_002,
    ENC_LEN_001_B,
    ENC_LEN_002_B,
    ENC_LEN_003,
    ENC_LEN_004,
    ENC_ROCE_001,
    ENC_UDP_001_B,
    ENC_UDP_002,
    ENC_UDP_004_B,
    ENC_UDP_006,
    ENC_VLAN_002_C,
    EV_PROBE_004,
    FLAG_LAST_002,
    ICRC_VERIFY_001_A,
    NETH_PDC_001_B,
    NETH_TYPE_001_B,
    NETH_VENDOR_001_B,
    OPC_UNKNOWN_001_B,
    PAY_PAD_002_B,
    PAY_PAD_003,
    PETH_FTYPE_001_B,
    PETH_PDC_001_B,
    PETH_RESP_001,
    RCV_DUP_001_A,
    RCV_DUP_001_B,
    RCV_MSG_001,
    RCV_MSG_002,
    RCV_OPC_001,
    RCV_PLACE_002_A,
    RCV_QP_001,
    RCV_QP_002,
    RCV_REJECT_001,
    RCV_SACK_001_A,
    RCV_SACK_001_B,
    RCV_SACK_001_C,
    RCV_SACK_001_D,
    RCV_SACK_002,
    RCV_SACK_004_B,
    RCV_SACK_005_C,
    RCV_SACK_005_E,
    RCV_SACK_005_H,
    RCV_SACK_005_I,
    RCV_SACK_006_A,
    RCV_SEG_001,
    RCV_SEG_002,
    RCV_WIN_002_B,
    SETH_ACKPSN_001_A,
    SETH_ACKPSN_002,
    SETH_BITMAP_001,
    SETH_BITMAP_002_B,
    SETH_CACK_001_A,
    SETH_CACK_001_B,
    SETH_CC_001_B,
    SETH_EV_001,
    SETH_M_001_B,
    SETH_PDC_001_B,
    SETH_PR_001,
    SETH_TYPE_001_B,
    TSETH_FTYPE_001_B,
    WWI_LIMIT_002,
];

const PLACEMENT: &[Clause] = &[
    BTH_PSN_002,
    DEC_CUT_001,
    DEC_STRUCT_001,
    ENC_FRAME_001,
    ENC_IPV4_001,
    ENC_IPV4_002_B,
    ENC_IPV4_003_B,
    ENC_IPV4_005,
    ENC_IPV6_001,
    ENC_IPV6_002,
    ENC_LEN_001_B,
    ENC_LEN_002_B,
    ENC_LEN_004,
    ENC_ROCE_001,
    ENC_UDP_001_B,
    ENC_UDP_002,
    ENC_UDP_006,
    ENC_VLAN_002_C,
    FLAG_LAST_001,
    FLAG_LAST_002,
    FLAG_ORDER_001,
    ICRC_VERIFY_001_A,
    OPC_UNKNOWN_001_B,
    PAY_PAD_003,
    RCV_DUP_001_A,
    RCV_MSG_001,
    RCV_MSG_002,
    RCV_OPC_001,
    RCV_PLACE_002_A,
    RCV_PLACE_003_A,
    RCV_PLACE_004,
    RCV_QP_001,
    RCV_QP_002,
    RCV_SEG_001,
    RCV_SEG_002,
    RCV_WIN_002_B,
    WWI_LIMIT_002,
];

/// The entry rules of the judge and every rule `CompletionRepr::validate` checks.
const ENTRIES: &[Clause] = &[
    CQE_IMM_001,
    CQE_IMM_002,
    CQE_LAYOUT_001,
    CQE_OPCODE_001,
    CQE_RECV_001,
    CQE_REJECT_001,
    CQE_REJECT_002,
    CQE_RESV_001_A,
    CQE_RING_001_B,
    CQE_RING_003_A,
    CQE_RING_003_B,
    CQE_RING_004_A,
    CQE_ROUTE_001,
    CQE_SEND_002,
    CQE_STATUS_001,
    CQE_TS_001_A,
    CQE_TS_001_B,
];

const SEQUENCES: &[Clause] = &[
    AETH_MRC_002_B,
    BTH_RESV_002_B,
    BTH_RTX_002_B,
    BTH_TVER_001_B,
    CQE_IMM_002,
    CQE_LAYOUT_001,
    CQE_OPCODE_001,
    CQE_RECV_001,
    CQE_REJECT_001,
    CQE_REJECT_002,
    CQE_RING_001_B,
    CQE_RING_003_B,
    CQE_RING_005_A,
    CQE_ROUTE_001,
    CQE_SEND_001,
    CQE_SEND_002,
    CQE_SEND_003,
    CQE_STATUS_004,
    DEC_RESV_001_B,
    EETH_DATA_001_B,
    ENC_EV_001_C,
    ENC_IPV4_006_B,
    ENC_LEN_003,
    ENC_UDP_004_B,
    ENC_VLAN_002_C,
    FLAG_LAYOUT_001,
    FLAG_LEN_001,
    FLAG_RECV_001_B,
    FLAG_RECV_002_A,
    FLAG_RECV_002_B,
    FLAG_RECV_002_C,
    FLAG_RESV_001_A,
    FLAG_SEND_001_A,
    FLAG_SEND_001_B,
    FLAG_SEND_001_C,
    FLAG_SEND_001_D,
    FLAG_SEND_001_E,
    FLAG_SEND_002,
    FLAG_STATUS_001,
    FLAG_VALID_001,
    NETH_PDC_001_B,
    NETH_TYPE_001_B,
    NETH_VENDOR_001_B,
    PAY_PAD_002_B,
    PETH_FTYPE_001_B,
    PETH_PDC_001_B,
    REC_IF_013,
    RET_ERR_001_B,
    RET_FLAG_001_A,
    RET_FLUSH_001_A,
    RET_FLUSH_001_B,
    RET_ORDER_001,
    SETH_CC_001_B,
    SETH_M_001_B,
    SETH_PDC_001_B,
    SETH_TYPE_001_B,
    SND_ACK_002,
    SND_ACK_003,
    SND_ACK_006,
    SND_NACK_005,
    TSETH_FTYPE_001_B,
    WR_SIGNALED_001_A,
    WR_SIGNALED_001_B,
    WR_SIGNALED_001_C,
    WWI_ORDER_001,
];

const ACKNOWLEDGED: &[Clause] = &[SND_ACK_005];

const QP_ERROR: &[Clause] = &[REC_IF_009];

const EV_STATES: &[Clause] = &[EV_STATE_001_A, EV_STATE_002_A, EV_STATE_002_B];

const REPORTS: &[Clause] = &[
    AETH_MRC_002_B,
    BTH_RESV_002_B,
    BTH_RTX_002_B,
    BTH_TVER_001_B,
    DEC_RESV_001_B,
    EETH_DATA_001_B,
    ENC_EV_001_C,
    ENC_IPV4_006_B,
    ENC_LEN_003,
    ENC_UDP_004_B,
    ENC_VLAN_002_C,
    EV_BAD_001,
    EV_DENY_001,
    EV_DENY_002,
    EV_PROBE_002,
    EV_PROBE_003,
    EV_SKIP_001,
    EV_SKIP_002,
    EV_STATE_003_A,
    NETH_PDC_001_B,
    NETH_TYPE_001_B,
    NETH_VENDOR_001_B,
    PAY_PAD_002_B,
    PETH_FTYPE_001_B,
    PETH_PDC_001_B,
    REC_IF_004,
    REC_IF_005,
    REC_IF_007,
    REC_IF_009,
    REC_IF_012,
    REC_IF_016,
    REC_IF_018_A,
    RET_ERR_004_E,
    SETH_CC_001_B,
    SETH_M_001_B,
    SETH_PDC_001_B,
    SETH_TYPE_001_B,
    SND_NACK_001_C,
    SND_NACK_003,
    SND_SACK_003,
    SND_SACK_004,
    SND_SACK_005_B,
    SND_SACK_006,
    TSETH_FTYPE_001_B,
];

const RETRANSMITTED: &[Clause] = &[REC_IF_008];
