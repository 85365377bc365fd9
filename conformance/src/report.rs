//! Running a suite and reporting it: a verdict per scenario with its first divergence, the
//! requirement coverage, and the three forms of the report — a table for people, JSON for
//! tools and JUnit XML for CI (`CONF-REP-*`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use openrdma_device::{CpuHalfFactory, Device, DeviceError, Scenario};
use serde::Serialize;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::judge::{Divergence, FieldDiff, Judgement, Scope, Verdict, table};
use crate::req::Clause;
use crate::requirements::{Level, Spec};
use crate::runner::run;

/// The first divergence of a failing scenario, with its requirement's sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FirstDivergence {
    /// Time, ns.
    pub at: u64,
    /// Requirement ID: the ID of the line (`XX-YY-001`).
    pub requirement: String,
    /// The clause of it that is broken (`XX-YY-001.b`), or the line's ID when it has no
    /// clauses or the divergence names none.
    pub clause: String,
    /// The clause's sentence, with its line's preamble, from `spec/`.
    pub sentence: String,
    /// What happened.
    pub what: String,
    /// The expected record.
    pub expected: Option<String>,
    /// The device's record.
    pub actual: Option<String>,
    /// Field by field.
    pub fields: Vec<FieldDiff>,
    /// The clauses that restate `clause` for the output judged, broken with it
    /// (CONF-CMP-118): `clause` is the name, these are what else the same bug breaks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_breaks: Vec<String>,
}

/// One scenario's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScenarioReport {
    /// Scenario name.
    pub id: String,
    /// Verdict.
    pub verdict: Verdict,
    /// The first sentence of its description, the table's title.
    pub title: String,
    /// Requirement IDs the scenario checks.
    pub requirements: Vec<String>,
    /// Expected records checked.
    pub checked: usize,
    /// Number of divergences.
    pub divergences: usize,
    /// The first divergence, when it did not pass.
    pub first_divergence: Option<FirstDivergence>,
    /// Why the device could not run it (unsupported, or a device failure).
    pub device_error: Option<String>,
    /// The device failure that is the scenario's failure reason, if one ended it
    /// (`CONF-REP-001.b`); `None` when the device ran the scenario to its end or declined
    /// it.
    pub error: Option<DeviceFailure>,
}

/// What kind of device failure ended a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceFailureKind {
    /// The device failed: its process exited or closed its output, could not start, or
    /// answered `error` ([`DeviceError::Failed`]).
    Crash,
    /// The device broke the adapter protocol ([`DeviceError::Protocol`]).
    Protocol,
    /// The device did not answer in time ([`DeviceError::Timeout`]).
    Timeout,
}

impl DeviceFailureKind {
    /// The kind as the reports name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Crash => "crash",
            Self::Protocol => "protocol",
            Self::Timeout => "timeout",
        }
    }
}

/// A device failure as the reports show it: what kind, the device's message, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceFailure {
    /// What kind of failure.
    pub kind: DeviceFailureKind,
    /// The device's message, or for a timeout what the runner waited for and how long.
    pub message: String,
    /// The scenario time the runner had asked the device to reach when it failed, ns;
    /// `None` when it failed before the first batch (at its start).
    pub at: Option<u64>,
}

impl DeviceFailure {
    /// The failure for a device error; `None` for [`DeviceError::Unsupported`], which is
    /// not a failure (`CONF-VER-003`).
    pub fn of(e: &DeviceError, at: Option<u64>) -> Option<Self> {
        let (kind, message) = match e {
            DeviceError::Unsupported(_) => return None,
            DeviceError::Failed(m) => (DeviceFailureKind::Crash, quote(m)),
            DeviceError::Protocol(m) => (DeviceFailureKind::Protocol, quote(m)),
            DeviceError::Timeout { what, after_ms } => (
                DeviceFailureKind::Timeout,
                quote(&format!("timed out after {after_ms} ms waiting for {what}")),
            ),
        };
        Some(Self { kind, message, at })
    }

    /// One line: the kind and the message.
    pub fn line(&self) -> String {
        format!("device {}: {}", self.kind.as_str(), self.message)
    }
}

/// The most characters of a device's message a report quotes (CONF-ADP-026).
pub const QUOTE_CHARS: usize = 16384;

/// A device's message as the reports quote it (CONF-ADP-026): whole when it is at most
/// [`QUOTE_CHARS`] characters long, else its start and its end, with how much was left out
/// between them. The start says where the runner was; the end, what was expected.
pub fn quote(text: &str) -> String {
    let n = text.chars().count();
    if n <= QUOTE_CHARS {
        return text.to_string();
    }
    let head = QUOTE_CHARS * 3 / 4;
    let tail = QUOTE_CHARS - head;
    let start = text.char_indices().nth(head).map_or(text.len(), |(k, _)| k);
    let end = text.char_indices().nth(n - tail).map_or(text.len(), |(k, _)| k);
    format!(
        "{} [{} characters of the device's message left out] {}",
        &text[..start],
        n - head - tail,
        &text[end..]
    )
}

/// Counts of verdicts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Passed.
    pub pass: usize,
    /// Failed.
    pub fail: usize,
    /// Unsupported.
    pub unsupported: usize,
    /// Passed with SHOULD-level divergences only.
    pub non_strict: usize,
}

/// Which requirements the scenarios check.
///
/// Scenarios check the requirements that bind a device or the CPU half a device brings
/// along (`Subject::scenario_checked`); `total`, `covered` and `uncovered` count those.
/// Requirements that bind other parties — host software, implementations of the formats,
/// callers of the model, adapters, the suite, or a NIC outside the device boundary — are
/// listed apart by subject in `other_subjects`; the requirement matrix (`spec/matrix.md`)
/// shows the tests that check them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// Requirements in force (withdrawn ones excluded) that scenarios can check.
    pub total: usize,
    /// Those that a check of the judge's table that at least one scenario exercises can
    /// fail, in the line or one of its clauses.
    pub covered: usize,
    /// MUST-level requirements among `total`.
    pub total_must: usize,
    /// MUST-level requirements covered.
    pub covered_must: usize,
    /// IDs of requirements scenarios can check that no scenario checks, in order.
    pub uncovered: Vec<String>,
    /// For each requirement and clause a check can fail, the scenarios that exercise it.
    pub by_requirement: BTreeMap<String, Vec<String>>,
    /// Requirements in force that scenarios cannot check, by subject.
    pub other_subjects: BTreeMap<String, Vec<String>>,
    /// Of `covered`, those that a scenario this device ran checks: one whose verdict is not
    /// `unsupported`, so that the device was held to the requirement.
    pub exercised: usize,
    /// MUST-level requirements among `exercised`.
    pub exercised_must: usize,
    /// Leaf clauses (an unmarked line is its own) of the requirements in `total`.
    pub clauses_total: usize,
    /// Those that a check some scenario exercises can fail.
    pub clauses_covered: usize,
    /// MUST-level clauses among `clauses_total`.
    pub clauses_total_must: usize,
    /// MUST-level clauses among `clauses_covered`.
    pub clauses_covered_must: usize,
    /// IDs of the MUST clauses that no check of the judge's table can fail, in order.
    pub unfailable: Vec<String>,
}

/// The report of a suite run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SuiteReport {
    /// The implementation under test.
    pub implementation: String,
    /// Verdict counts.
    pub summary: Summary,
    /// Per scenario.
    pub scenarios: Vec<ScenarioReport>,
    /// Requirement coverage.
    pub coverage: Coverage,
}

impl SuiteReport {
    /// Whether anything failed.
    pub fn failed(&self) -> bool {
        self.summary.fail > 0
    }
}

/// Runs one scenario on a device and judges it; `cpu` makes the CPU half the runner plays
/// ([`run`]).
pub fn run_one(
    device: &mut dyn Device,
    cpu: CpuHalfFactory,
    scenario: &Scenario,
    spec: &Spec,
) -> ScenarioReport {
    let m = &scenario.manifest;
    let mut report = ScenarioReport {
        id: m.name.clone(),
        verdict: Verdict::Pass,
        title: title_of(&m.description),
        requirements: m.requirements.clone(),
        checked: 0,
        divergences: 0,
        first_divergence: None,
        device_error: None,
        error: None,
    };
    let caps = device.capabilities();
    let missing: Vec<String> = m
        .requires
        .iter()
        .filter(|c| !caps.contains(c))
        .map(|c| {
            serde_json::to_value(c)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default()
        })
        .collect();
    if !missing.is_empty() {
        report.verdict = Verdict::Unsupported;
        report.device_error = Some(format!("the device lacks: {}", missing.join(", ")));
        return report;
    }
    let out = run(device, scenario, cpu);
    match &out.error {
        Some(DeviceError::Unsupported(why)) => {
            report.verdict = Verdict::Unsupported;
            report.device_error = Some(quote(why));
            return report;
        }
        // CONF-RUN-004, CONF-REP-001.b: a device failure is the scenario's failure reason.
        // What the device produced before it is not judged: the records it never got to
        // produce would stand in for the failure as made-up divergences.
        Some(e) => {
            report.verdict = Verdict::Fail;
            report.device_error = Some(quote(&e.to_string()));
            report.error = DeviceFailure::of(e, out.error_at);
            return report;
        }
        None => {}
    }
    // CONF-TIME-005: expected times as the run lived them, shifted by the runner's lag and
    // the device's own latency within the tolerances (`timeline`).
    let mut j = out.judge(scenario, Scope::of(&caps));
    mark_levels(&mut j, spec);
    fill(&mut report, j, spec);
    report
}

/// Marks each divergence as SHOULD-only or not, from the specification.
pub fn mark_levels(j: &mut Judgement, spec: &Spec) {
    for d in &mut j.divergences {
        // The scoreboard marks a divergence from the SHOULD part of a requirement that also
        // holds a MUST (AETH-MRC-002.a) itself. A divergence that names a clause takes the
        // clause's level.
        let id = d.clause.map_or(d.requirement.as_str(), |c| c.id());
        d.should_only |=
            spec.clause(id).is_some_and(|c| matches!(c.level(), Level::Should | Level::May));
    }
}

fn fill(report: &mut ScenarioReport, j: Judgement, spec: &Spec) {
    report.checked = j.checked;
    report.divergences = j.divergences.len();
    if let Some(d) = j.divergences.iter().find(|d| !d.should_only).or(j.divergences.first()) {
        report.first_divergence = Some(first(d, spec));
    }
    if report.verdict != Verdict::Fail {
        report.verdict = if j.divergences.iter().any(|d| !d.should_only) {
            Verdict::Fail
        } else if !j.divergences.is_empty() {
            Verdict::NonStrict
        } else {
            Verdict::Pass
        };
    }
}

/// A one-scenario suite report from a judgement made elsewhere (`openrdma check`).
pub fn judged_report(
    implementation: &str,
    scenario: &Scenario,
    mut j: Judgement,
    spec: &Spec,
) -> SuiteReport {
    mark_levels(&mut j, spec);
    let mut r = ScenarioReport {
        id: scenario.manifest.name.clone(),
        verdict: Verdict::Pass,
        title: title_of(&scenario.manifest.description),
        requirements: scenario.manifest.requirements.clone(),
        checked: 0,
        divergences: 0,
        first_divergence: None,
        device_error: None,
        error: None,
    };
    fill(&mut r, j, spec);
    let mut summary = Summary::default();
    match r.verdict {
        Verdict::Pass => summary.pass = 1,
        Verdict::Fail => summary.fail = 1,
        Verdict::Unsupported => summary.unsupported = 1,
        Verdict::NonStrict => summary.non_strict = 1,
    }
    SuiteReport {
        implementation: implementation.to_string(),
        summary,
        scenarios: vec![r],
        coverage: coverage(spec, &[scenario], &[scenario]),
    }
}

fn first(d: &Divergence, spec: &Spec) -> FirstDivergence {
    let clause = d.clause.map_or(d.requirement.clone(), |c| c.id().to_string());
    FirstDivergence {
        at: d.at,
        requirement: d.requirement.clone(),
        sentence: spec
            .clause_text(&clause)
            .unwrap_or_else(|| "(not a requirement of the specification)".to_string()),
        clause,
        what: d.what.clone(),
        expected: d.expected.clone(),
        actual: d.actual.clone(),
        fields: d.fields.clone(),
        also_breaks: d.also_breaks.iter().map(|c| c.id().to_string()).collect(),
    }
}

/// Computes the coverage of `scenarios` over `spec`, and how much of it the scenarios in
/// `ran` (those the device did not decline) exercised. A scenario covers the clauses of
/// the checks of the judge's table it exercises that it can show a breach of
/// ([`table::covered_by`], `judge::discriminates`); a requirement is covered when the line
/// or one of its clauses is. What scenarios name in their manifests and records does not
/// count.
pub fn coverage(spec: &Spec, scenarios: &[&Scenario], ran: &[&Scenario]) -> Coverage {
    let ran: BTreeSet<&str> = ran.iter().map(|s| s.manifest.name.as_str()).collect();
    let mut by: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut exercised: BTreeSet<String> = BTreeSet::new();
    for s in scenarios {
        let name = &s.manifest.name;
        for c in table::covered_by(s) {
            for id in [c.id(), c.requirement()] {
                by.entry(id.to_string()).or_default().insert(name.clone());
                if ran.contains(name.as_str()) {
                    exercised.insert(id.to_string());
                }
            }
        }
    }
    let mut c = Coverage {
        by_requirement: by
            .iter()
            .map(|(id, names)| (id.clone(), names.iter().cloned().collect()))
            .collect(),
        ..Coverage::default()
    };
    for r in spec.iter().filter(|r| r.level != Level::Withdrawn) {
        if !r.subject.scenario_checked() {
            c.other_subjects.entry(r.subject.name().to_string()).or_default().push(r.id.clone());
            continue;
        }
        c.total += 1;
        let must = r.level == Level::Must;
        c.total_must += usize::from(must);
        if by.contains_key(&r.id) {
            c.covered += 1;
            c.covered_must += usize::from(must);
            if exercised.contains(&r.id) {
                c.exercised += 1;
                c.exercised_must += usize::from(must);
            }
        } else {
            c.uncovered.push(r.id.clone());
        }
    }
    // Clause by clause: the leaves (an unmarked line is its own) of the lines above.
    let leaves = Clause::all()
        .filter(|x| x.is_leaf() && x.subject().scenario_checked() && x.level() != Level::Withdrawn);
    for x in leaves.filter(|x| spec.clause(x.id()).is_some()) {
        let must = x.level() == Level::Must;
        c.clauses_total += 1;
        c.clauses_total_must += usize::from(must);
        if by.contains_key(x.id()) {
            c.clauses_covered += 1;
            c.clauses_covered_must += usize::from(must);
        }
    }
    c.unfailable = table::unfailable_musts()
        .into_iter()
        .filter(|x| spec.clause(x.id()).is_some())
        .map(|x| x.id().to_string())
        .collect();
    c
}

/// Fails a scenario's report by a device failure found after the scenario ended: the
/// failure is its reason, in place of what was judged (CONF-RUN-004, CONF-REP-001.b).
fn fail_late(r: &mut ScenarioReport, e: &DeviceError) {
    r.verdict = Verdict::Fail;
    r.checked = 0;
    r.divergences = 0;
    r.first_divergence = None;
    r.device_error = Some(quote(&e.to_string()));
    r.error = DeviceFailure::of(e, None);
}

/// Runs every scenario on a device, the runner playing the CPU half `cpu` makes where a
/// scenario asks it to; `progress` is called before each.
pub fn run_suite(
    device: &mut dyn Device,
    cpu: CpuHalfFactory,
    scenarios: &[Scenario],
    spec: &Spec,
    progress: &mut dyn FnMut(usize, &str),
) -> SuiteReport {
    let mut reports = Vec::new();
    for (k, s) in scenarios.iter().enumerate() {
        progress(k, &s.manifest.name);
        reports.push(run_one(device, cpu, s, spec));
        // An answer given twice in an earlier scenario, read only now, fails that scenario
        // (CONF-ADP-020).
        if let Some((name, e)) = device.take_late_error() {
            if let Some(r) = reports.iter_mut().rev().find(|r| r.id == name) {
                fail_late(r, &e);
            }
        }
    }
    let mut summary = Summary::default();
    for r in &reports {
        match r.verdict {
            Verdict::Pass => summary.pass += 1,
            Verdict::Fail => summary.fail += 1,
            Verdict::Unsupported => summary.unsupported += 1,
            Verdict::NonStrict => summary.non_strict += 1,
        }
    }
    let refs: Vec<&Scenario> = scenarios.iter().collect();
    let ran: Vec<&Scenario> = scenarios
        .iter()
        .zip(&reports)
        .filter(|(_, r)| r.verdict != Verdict::Unsupported)
        .map(|(s, _)| s)
        .collect();
    SuiteReport {
        implementation: device.name(),
        summary,
        scenarios: reports,
        coverage: coverage(spec, &refs, &ran),
    }
}

/// The report of a suite whose device failed before its first scenario, at its start or
/// its first hello (CONF-ADP-024): no scenario ran; each fails with that failure as its
/// reason, at no time, so that every report says what went wrong.
pub fn unstarted_suite(
    implementation: &str,
    e: &DeviceError,
    scenarios: &[Scenario],
    spec: &Spec,
) -> SuiteReport {
    let reports: Vec<ScenarioReport> = scenarios
        .iter()
        .map(|s| {
            let m = &s.manifest;
            ScenarioReport {
                id: m.name.clone(),
                verdict: Verdict::Fail,
                title: title_of(&m.description),
                requirements: m.requirements.clone(),
                checked: 0,
                divergences: 0,
                first_divergence: None,
                device_error: Some(quote(&e.to_string())),
                error: DeviceFailure::of(e, None),
            }
        })
        .collect();
    let refs: Vec<&Scenario> = scenarios.iter().collect();
    SuiteReport {
        implementation: implementation.to_string(),
        summary: Summary { fail: reports.len(), ..Summary::default() },
        scenarios: reports,
        coverage: coverage(spec, &refs, &[]),
    }
}

/// How the table is laid out ([`render_table_with`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableOptions {
    /// Also list, below each scenario's line, the requirements it checks, and below its
    /// first divergence the clauses that divergence also breaks (CONF-CMP-118).
    pub verbose: bool,
}

/// The widest line of the table, in terminal columns.
pub const TABLE_WIDTH: usize = 100;

/// The widest the scenario column grows; a longer name is given a line of its own.
const NAME_COLUMN: usize = 36;

/// The indentation of what is shown below a scenario's line.
const INDENT: &str = "    ";

/// The report as a table for people ([`render_table_with`] with the default options).
pub fn render_table(r: &SuiteReport) -> String {
    render_table_with(r, TableOptions::default())
}

/// The report as a table for people, no line wider than [`TABLE_WIDTH`] columns: one line
/// per scenario — its name, verdict, the records it checked and a short title, cut with an
/// ellipsis to fit — and below a scenario that did not pass, its device failure or its
/// first divergence, wrapped; then the counts and the coverage. With `verbose`, each
/// scenario's requirements follow its line.
pub fn render_table_with(r: &SuiteReport, options: TableOptions) -> String {
    let mut s = String::new();
    push_wrapped(&mut s, &format!("implementation: {}", r.implementation), "", "  ");
    push_wrapped(&mut s, "", "", "");
    let w = r.scenarios.iter().map(|x| x.id.width()).max().unwrap_or(0).clamp(8, NAME_COLUMN);
    // The name, the verdict (`unsupported` is the longest), the checked count, the title.
    let columns = |name: &str, verdict: &str, checks: &str, title: &str| {
        let head = format!("{}{}  {verdict:<11}  {checks:>6}", name, " ".repeat(w - name.width()));
        let room = TABLE_WIDTH.saturating_sub(head.width() + 2);
        match cut(title, room) {
            t if t.is_empty() => head,
            t => format!("{head}  {t}"),
        }
    };
    s.push_str(&columns("scenario", "verdict", "checks", "title"));
    s.push('\n');
    for x in &r.scenarios {
        let checks = x.checked.to_string();
        if x.id.width() <= w {
            s.push_str(&columns(&x.id, x.verdict.as_str(), &checks, &x.title));
        } else {
            // A name too long for the column has the line to itself, cut only when even
            // that is too short.
            s.push_str(&cut(&x.id, TABLE_WIDTH));
            s.push('\n');
            s.push_str(&columns("", x.verdict.as_str(), &checks, &x.title));
        }
        s.push('\n');
        let below = |s: &mut String, text: &str| push_wrapped(s, text, INDENT, "      ");
        if options.verbose && !x.requirements.is_empty() {
            below(&mut s, &format!("requirements: {}", x.requirements.join(" ")));
        }
        if !matches!(x.verdict, Verdict::Fail | Verdict::NonStrict) {
            continue;
        }
        if let Some(e) = &x.error {
            below(&mut s, &e.line());
        } else if let Some(e) = &x.device_error {
            below(&mut s, &format!("device: {e}"));
        }
        if let Some(d) = &x.first_divergence {
            below(&mut s, &format!("first divergence at {} ns: {}", d.at, d.what));
            below(&mut s, &format!("[{}] {}", d.clause, d.sentence));
            if options.verbose && !d.also_breaks.is_empty() {
                below(&mut s, &format!("also breaks: {}", d.also_breaks.join(" ")));
            }
            if let Some(e) = &d.expected {
                below(&mut s, &format!("expected: {e}"));
            }
            if let Some(a) = &d.actual {
                below(&mut s, &format!("actual:   {a}"));
            }
            for f in &d.fields {
                below(
                    &mut s,
                    &format!("  {:<16} expected {:<24} actual {}", f.field, f.expected, f.actual),
                );
            }
            if x.divergences > 1 {
                below(&mut s, &format!("({} more divergences)", x.divergences - 1));
            }
        }
    }
    let m = &r.summary;
    push_wrapped(&mut s, "", "", "");
    push_wrapped(
        &mut s,
        &format!(
            "{} scenarios: {} pass, {} fail, {} unsupported, {} non-strict",
            r.scenarios.len(),
            m.pass,
            m.fail,
            m.unsupported,
            m.non_strict
        ),
        "",
        "  ",
    );
    let c = &r.coverage;
    push_wrapped(
        &mut s,
        &format!(
            "requirement coverage: {} of {} device and CPU-half requirements ({} of {} MUSTs); \
             {} not covered by any scenario",
            c.covered,
            c.total,
            c.covered_must,
            c.total_must,
            c.uncovered.len()
        ),
        "",
        "  ",
    );
    push_wrapped(
        &mut s,
        &format!(
            "clause coverage: {} of {} clauses ({} of {} MUSTs); {} MUST clauses no check can fail",
            c.clauses_covered,
            c.clauses_total,
            c.clauses_covered_must,
            c.clauses_total_must,
            c.unfailable.len()
        ),
        "",
        "  ",
    );
    if c.exercised < c.covered {
        push_wrapped(&mut s, &held_to(r), "", "  ");
    }
    let others: Vec<String> =
        c.other_subjects.iter().map(|(subject, ids)| format!("{subject} {}", ids.len())).collect();
    if !others.is_empty() {
        let n: usize = c.other_subjects.values().map(Vec::len).sum();
        push_wrapped(
            &mut s,
            &format!(
                "not for scenarios: {n} requirements bind other parties ({}); spec/matrix.md \
                 shows their tests",
                others.join(", ")
            ),
            "",
            "  ",
        );
    }
    s
}

/// What the device was held to, when not to every covered requirement: those of the
/// scenarios it did not decline, or none when no scenario ran because the device failed
/// at its start or its first hello (CONF-ADP-024), having declined nothing.
fn held_to(r: &SuiteReport) -> String {
    let c = &r.coverage;
    if c.exercised == 0 && r.summary.unsupported == 0 {
        return "this device was held to none of them: no scenario ran, the device failed at its \
                start or its first hello"
            .to_string();
    }
    format!(
        "this device was held to {} of them ({} MUSTs): the others are checked only by \
         scenarios it declined",
        c.exercised, c.exercised_must
    )
}

/// Appends `text` to `s`, wrapped to [`TABLE_WIDTH`] ([`wrap`]).
fn push_wrapped(s: &mut String, text: &str, first: &str, rest: &str) {
    for l in wrap(text, first, rest, TABLE_WIDTH) {
        s.push_str(&l);
        s.push('\n');
    }
}

/// The first sentence of a scenario's description: its title in the table.
pub fn title_of(description: &str) -> String {
    let d = description.trim();
    let end = d.find(". ").map_or(d.len(), |k| k + 1);
    d[..end].trim_end_matches('.').to_string()
}

/// `text` on one line of at most `width` columns: whole when it fits, else cut with an
/// ellipsis, after a whole word when one ends in the second half; empty when `width` is 0. Control characters (a line break) become spaces.
pub fn cut(text: &str, width: usize) -> String {
    let text: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if text.width() <= width {
        return text;
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let cw = c.width().unwrap_or(0);
        if used + cw + 1 > width {
            break;
        }
        out.push(c);
        used += cw;
    }
    // At a word's end when one ends in the second half, so that no word is left cut.
    if let Some(k) = out.rfind(' ').filter(|&k| out[..k].width() >= width / 2) {
        out.truncate(k);
        let kept = out.trim_end_matches([' ', ',', ';', ':', '(']).len();
        out.truncate(kept);
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// `text` wrapped at spaces into lines of at most `width` columns, the first indented by
/// `first` and the others by `rest`; a word longer than a line is cut across lines, and
/// each line of `text` starts a line of its own. Control characters other than the line
/// break become spaces, and no line ends in a space. An empty `text` gives one empty line.
pub fn wrap(text: &str, first: &str, rest: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for para in text.split('\n') {
        let para: String = para.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        let indent = if lines.is_empty() { first } else { rest };
        let mut cur = indent.to_string();
        let mut fresh = true;
        // Leading spaces of a line are kept: they align the columns of a field's line.
        let lead = para.len() - para.trim_start_matches(' ').len();
        cur.push_str(&para[..lead]);
        // Runs of spaces inside a line are kept (they align `expected` and `actual`); the
        // spaces where a line breaks are dropped.
        for word in para[lead..].split(' ') {
            if !fresh && cur.width() + 1 + word.width() <= width {
                cur.push(' ');
                cur.push_str(word);
                continue;
            }
            if word.is_empty() {
                continue;
            }
            if fresh && cur.width() + word.width() <= width {
                cur.push_str(word);
                fresh = false;
                continue;
            }
            if !fresh {
                lines.push(std::mem::replace(&mut cur, rest.to_string()));
            }
            // The word starts a line; cut it where it is wider than one.
            let mut piece = word;
            // The piece's width, kept as it shrinks: a word of megabytes is cut in one pass.
            let mut left = piece.width();
            while cur.width() + left > width {
                let room = width.saturating_sub(cur.width()).max(1);
                let mut k = 0;
                let mut used = 0;
                for (i, c) in piece.char_indices() {
                    let cw = c.width().unwrap_or(0);
                    if used + cw > room && i > 0 {
                        break;
                    }
                    used += cw;
                    k = i + c.len_utf8();
                }
                cur.push_str(&piece[..k]);
                lines.push(std::mem::replace(&mut cur, rest.to_string()));
                piece = &piece[k..];
                left -= used;
            }
            cur.push_str(piece);
            fresh = piece.is_empty();
        }
        lines.push(cur);
    }
    for l in &mut lines {
        let kept = l.trim_end_matches(' ').len();
        l.truncate(kept);
    }
    lines
}

/// The report as JUnit XML.
pub fn render_junit(r: &SuiteReport) -> String {
    // XML 1.0 holds no control character but tab, newline and carriage return: a device's
    // standard error may hold others (colours, bells), shown as U+FFFD.
    let esc = |x: &str| {
        x.chars()
            .map(
                |c| if c.is_control() && !matches!(c, '\t' | '\n' | '\r') { '\u{fffd}' } else { c },
            )
            .collect::<String>()
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        s,
        "<testsuite name=\"openrdma-conformance\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
        r.scenarios.len(),
        r.summary.fail,
        r.summary.unsupported
    );
    let _ = writeln!(
        s,
        "  <properties><property name=\"implementation\" value=\"{}\"/></properties>",
        esc(&r.implementation)
    );
    for x in &r.scenarios {
        let _ = write!(
            s,
            "  <testcase classname=\"{}\" name=\"{}\"",
            esc(&r.implementation),
            esc(&x.id)
        );
        // CONF-REP-001.b: a device failure is the failure, with the device's message; its
        // kind is the failure's `type`.
        if let (Verdict::Fail, Some(e)) = (x.verdict, &x.error) {
            let _ = writeln!(
                s,
                "><failure message=\"{}\" type=\"{}\">{}</failure></testcase>",
                esc(&e.line()),
                e.kind.as_str(),
                esc(&e.message)
            );
            continue;
        }
        match x.verdict {
            Verdict::Pass => {
                let _ = writeln!(s, "/>");
            }
            Verdict::Unsupported => {
                let _ = writeln!(
                    s,
                    "><skipped message=\"{}\"/></testcase>",
                    esc(x.device_error.as_deref().unwrap_or("unsupported"))
                );
            }
            Verdict::Fail | Verdict::NonStrict => {
                let d = x.first_divergence.as_ref();
                let msg = d.map_or_else(
                    || x.device_error.clone().unwrap_or_default(),
                    |d| format!("[{}] {}", d.clause, d.what),
                );
                let body = d.map_or_else(String::new, |d| {
                    let mut b = format!("{}\n", d.sentence);
                    if let Some(e) = &d.expected {
                        b.push_str(&format!("expected: {e}\n"));
                    }
                    if let Some(a) = &d.actual {
                        b.push_str(&format!("actual:   {a}\n"));
                    }
                    for f in &d.fields {
                        b.push_str(&format!(
                            "  {}: expected {}, actual {}\n",
                            f.field, f.expected, f.actual
                        ));
                    }
                    b
                });
                let tag = if x.verdict == Verdict::Fail { "failure" } else { "system-out" };
                if tag == "failure" {
                    let _ = writeln!(
                        s,
                        "><failure message=\"{}\">{}</failure></testcase>",
                        esc(&msg),
                        esc(&body)
                    );
                } else {
                    let _ = writeln!(
                        s,
                        "><system-out>{}</system-out></testcase>",
                        esc(&format!("non-strict: {msg}\n{body}"))
                    );
                }
            }
        }
    }
    s.push_str("</testsuite>\n");
    s
}
