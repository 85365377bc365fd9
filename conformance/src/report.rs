//! Running a suite and reporting it: a verdict per scenario with its first divergence, the
//! requirement coverage, and the three forms of the report — a table for people, JSON for
//! tools and JUnit XML for CI (`CONF-REP-*`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use openrdma_device::{CpuHalfFactory, Device, DeviceError, Scenario};
use serde::Serialize;

use crate::requirements::{Level, Spec};
use crate::runner::run;
use crate::scoreboard::{Divergence, FieldDiff, Judgement, Scope, Verdict, judge_in};

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
}

/// One scenario's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScenarioReport {
    /// Scenario name.
    pub id: String,
    /// Verdict.
    pub verdict: Verdict,
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
    /// Those that at least one scenario checks.
    pub covered: usize,
    /// MUST-level requirements among `total`.
    pub total_must: usize,
    /// MUST-level requirements covered.
    pub covered_must: usize,
    /// IDs of requirements scenarios can check that no scenario checks, in order.
    pub uncovered: Vec<String>,
    /// For each requirement a scenario names, the scenarios that name it.
    pub by_requirement: BTreeMap<String, Vec<String>>,
    /// Requirements in force that scenarios cannot check, by subject.
    pub other_subjects: BTreeMap<String, Vec<String>>,
    /// Of `covered`, those that a scenario this device ran checks: one whose verdict is not
    /// `unsupported`, so that the device was held to the requirement.
    pub exercised: usize,
    /// MUST-level requirements among `exercised`.
    pub exercised_must: usize,
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
        requirements: m.requirements.clone(),
        checked: 0,
        divergences: 0,
        first_divergence: None,
        device_error: None,
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
            report.device_error = Some(why.clone());
            return report;
        }
        Some(e) => {
            report.verdict = Verdict::Fail;
            report.device_error = Some(e.to_string());
        }
        None => {}
    }
    // CONF-TIME-005: expected times as the run lived them, shifted by the runner's lag and
    // the device's own latency within the tolerances (`timeline`).
    let timed = crate::timeline::retimed(scenario, &out.lag, &out.observed);
    let mut j = judge_in(&timed, &out.injected, &out.observed, Scope::of(&caps));
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
        requirements: scenario.manifest.requirements.clone(),
        checked: 0,
        divergences: 0,
        first_divergence: None,
        device_error: None,
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
    }
}

/// The requirement IDs a scenario checks: its manifest's and its records' `checks`.
fn named(s: &Scenario) -> impl Iterator<Item = &String> {
    s.manifest.requirements.iter().chain(s.records.iter().flat_map(|r| r.checks.iter()))
}

/// Computes the coverage of `scenarios` over `spec`, and how much of it the scenarios in
/// `ran` (those the device did not decline) exercised.
pub fn coverage(spec: &Spec, scenarios: &[&Scenario], ran: &[&Scenario]) -> Coverage {
    let mut by: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for s in scenarios {
        for id in named(s) {
            by.entry(id.clone()).or_default().insert(s.manifest.name.clone());
        }
    }
    let exercised: BTreeSet<&String> = ran.iter().flat_map(|s| named(s)).collect();
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
    c
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

/// The report as a table for people, with the first divergence of each failure.
pub fn render_table(r: &SuiteReport) -> String {
    let mut s = String::new();
    let w = r.scenarios.iter().map(|x| x.id.len()).max().unwrap_or(8).max(8);
    let _ = writeln!(s, "implementation: {}\n", r.implementation);
    let _ = writeln!(s, "{:<w$}  {:<11}  {:>7}  requirements", "scenario", "verdict", "checked");
    for x in &r.scenarios {
        let _ = writeln!(
            s,
            "{:<w$}  {:<11}  {:>7}  {}",
            x.id,
            x.verdict.as_str(),
            x.checked,
            x.requirements.join(" ")
        );
    }
    for x in r.scenarios.iter().filter(|x| matches!(x.verdict, Verdict::Fail | Verdict::NonStrict))
    {
        let _ = writeln!(s, "\n--- {} ({}) ---", x.id, x.verdict.as_str());
        if let Some(e) = &x.device_error {
            let _ = writeln!(s, "device: {e}");
        }
        if let Some(d) = &x.first_divergence {
            let _ = writeln!(s, "first divergence at {} ns: {}", d.at, d.what);
            let _ = writeln!(s, "  [{}] {}", d.clause, d.sentence);
            if let Some(e) = &d.expected {
                let _ = writeln!(s, "  expected: {e}");
            }
            if let Some(a) = &d.actual {
                let _ = writeln!(s, "  actual:   {a}");
            }
            for f in &d.fields {
                let _ = writeln!(
                    s,
                    "    {:<16} expected {:<24} actual {}",
                    f.field, f.expected, f.actual
                );
            }
            if x.divergences > 1 {
                let _ = writeln!(s, "  ({} more divergences)", x.divergences - 1);
            }
        }
    }
    let m = &r.summary;
    let _ = writeln!(
        s,
        "\n{} scenarios: {} pass, {} fail, {} unsupported, {} non-strict",
        r.scenarios.len(),
        m.pass,
        m.fail,
        m.unsupported,
        m.non_strict
    );
    let c = &r.coverage;
    let _ = writeln!(
        s,
        "requirement coverage: {} of {} device and CPU-half requirements ({} of {} MUSTs); {} not covered by any scenario",
        c.covered,
        c.total,
        c.covered_must,
        c.total_must,
        c.uncovered.len()
    );
    if c.exercised < c.covered {
        let _ = writeln!(
            s,
            "this device was held to {} of them ({} MUSTs): the others are checked only by \
             scenarios it declined",
            c.exercised, c.exercised_must
        );
    }
    let others: Vec<String> =
        c.other_subjects.iter().map(|(subject, ids)| format!("{subject} {}", ids.len())).collect();
    if !others.is_empty() {
        let n: usize = c.other_subjects.values().map(Vec::len).sum();
        let _ = writeln!(
            s,
            "not for scenarios: {n} requirements bind other parties ({}); spec/matrix.md shows their tests",
            others.join(", ")
        );
    }
    s
}

/// The report as JUnit XML.
pub fn render_junit(r: &SuiteReport) -> String {
    let esc = |x: &str| {
        x.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
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
