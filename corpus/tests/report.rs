//! Verdicts and reports (`spec/conformance.md`, sections 6 to 8, `CONF-VER-*`,
//! `CONF-REP-*`, `CONF-CMP-013`): which verdict a scenario gets, which divergence its report
//! shows first, and what the table, the JSON and the JUnit forms hold.

mod common;

use std::collections::BTreeSet;

use common::*;
use openrdma_conformance::report::{
    SuiteReport, TABLE_WIDTH, TableOptions, cut, judged_report, render_junit, render_table,
    render_table_with, run_one, run_suite, unstarted_suite, wrap,
};
use openrdma_conformance::requirements::{Level, Spec};
use openrdma_conformance::scoreboard::{Divergence, FieldDiff, Judgement, Verdict};
use openrdma_corpus::faults::{self, Mutant, find};
use openrdma_device::DeviceError;
use openrdma_sm::{ReferenceDevice, reference_cpu_half};

fn spec() -> Spec {
    Spec::bundled().expect("the specification parses")
}

/// A divergence at `at` under `requirement`.
fn divergence(at: u64, requirement: &str) -> Divergence {
    Divergence {
        at,
        requirement: requirement.into(),
        what: format!("broke {requirement}"),
        expected: Some("the expected record".into()),
        actual: Some("the device's record".into()),
        fields: vec![FieldDiff::new("reth.va", "0x1000".into(), "0x1004".into())],
        should_only: false,
        check: "",
        clause: None,
        also_breaks: vec![],
    }
}

/// The report of a scenario judged with these divergences.
fn judged(divergences: Vec<Divergence>) -> SuiteReport {
    let s = scenario("rcv-in-order-v4");
    judged_report("test", &s, Judgement { divergences, checked: 3 }, &spec())
}

/// A requirement in force of this level.
fn one_of(level: Level) -> String {
    spec().iter().find(|r| r.level == level).map(|r| r.id.clone()).expect("one exists")
}

/// A specification of three requirements, one of each level.
fn levels() -> Spec {
    let mut spec = Spec::default();
    spec.add_chapter(
        "levels.md",
        "- **[XX-LEVEL-001]** A device MUST do this.\n\
         - **[XX-LEVEL-002]** A device SHOULD do this.\n\
         - **[XX-LEVEL-003]** A device MAY do this.\n",
    )
    .expect("the chapter parses");
    spec
}

/// CONF-VER-002: a divergence is judged by the level of the requirement it names: a MUST,
/// or an ID the specification does not define, fails the scenario; a SHOULD or a MAY
/// makes it non-strict.
#[test]
fn conf_ver_002_a_divergence_counts_by_its_requirement_s_level() {
    let spec = levels();
    let s = scenario("rcv-in-order-v4");
    let verdict = |ds: Vec<Divergence>| {
        judged_report("test", &s, Judgement { divergences: ds, checked: 1 }, &spec).scenarios[0]
            .verdict
    };
    let cases = [
        ("XX-LEVEL-001", Verdict::Fail),
        ("XX-LEVEL-004", Verdict::Fail),
        ("XX-LEVEL-002", Verdict::NonStrict),
        ("XX-LEVEL-003", Verdict::NonStrict),
    ];
    for (id, v) in cases {
        assert_eq!(verdict(vec![divergence(5, id)]), v, "{id}");
    }
    assert_eq!(
        verdict(vec![divergence(5, "XX-LEVEL-002"), divergence(6, "XX-LEVEL-001")]),
        Verdict::Fail
    );
    assert_eq!(
        verdict(vec![divergence(5, "XX-LEVEL-002"), divergence(6, "XX-LEVEL-003")]),
        Verdict::NonStrict
    );
    // The SHOULD part of a requirement that also holds a MUST, as the scoreboard marks it.
    let mut d = divergence(5, "XX-LEVEL-001");
    d.should_only = true;
    assert_eq!(verdict(vec![d]), Verdict::NonStrict);
    assert_eq!(verdict(vec![]), Verdict::Pass);
    // The same with the bundled specification's own levels.
    assert_eq!(
        judged(vec![divergence(5, &one_of(Level::Must))]).scenarios[0].verdict,
        Verdict::Fail
    );
    assert_eq!(
        judged(vec![divergence(5, &one_of(Level::Should))]).scenarios[0].verdict,
        Verdict::NonStrict
    );
}

/// CONF-VER-002 and CONF-REP-001 for a divergence that names a clause (`XX-LEVEL-005.b`):
/// the clause's level judges it, and the report shows the clause's sentence after its
/// line's preamble.
#[test]
fn conf_ver_002_a_clause_counts_by_its_own_level() {
    let mut spec = Spec::default();
    spec.add_chapter(
        "clauses.md",
        "- **[XX-LEVEL-005]** In X, **(a)** a device MUST do this, **(b)** and SHOULD do that.\n",
    )
    .expect("the chapter parses");
    let s = scenario("rcv-in-order-v4");
    let report = |id: &str| {
        let j = Judgement { divergences: vec![divergence(5, id)], checked: 1 };
        judged_report("test", &s, j, &spec).scenarios.remove(0)
    };
    assert_eq!(report("XX-LEVEL-005.a").verdict, Verdict::Fail);
    assert_eq!(report("XX-LEVEL-005").verdict, Verdict::Fail);
    let should = report("XX-LEVEL-005.b");
    assert_eq!(should.verdict, Verdict::NonStrict);
    let first = should.first_divergence.expect("shown");
    assert_eq!(first.requirement, "XX-LEVEL-005.b");
    assert_eq!(first.sentence, "In X, (b) and SHOULD do that.");
    assert_eq!(report("XX-LEVEL-005.c").verdict, Verdict::Fail, "an undefined clause fails");
}

/// CONF-CMP-013 (with CONF-CMP-011 withdrawn): a report shows first the earliest divergence
/// that breaks a MUST, even when a SHOULD broke earlier; with none, the earliest of all.
#[test]
fn conf_cmp_013_the_first_divergence_is_the_earliest_that_decides_the_verdict() {
    let should = one_of(Level::Should);
    let must = one_of(Level::Must);
    let r = judged(vec![divergence(10, &should), divergence(20, &must), divergence(30, &must)]);
    let first = r.scenarios[0].first_divergence.as_ref().unwrap();
    assert_eq!((first.at, first.requirement.as_str()), (20, must.as_str()));
    assert_eq!(r.scenarios[0].verdict, Verdict::Fail);
    let r = judged(vec![divergence(10, &should), divergence(20, &should)]);
    let first = r.scenarios[0].first_divergence.as_ref().unwrap();
    assert_eq!((first.at, r.scenarios[0].verdict), (10, Verdict::NonStrict));
    // And the scoreboard's own judgements come in time order, so that "earliest" is the
    // order of the list: for every faulty device on every scenario.
    let corpus = all_scenarios();
    for kind in faults::devices() {
        for s in &corpus {
            let out =
                openrdma_conformance::runner::run(&mut Mutant::new(kind), s, reference_cpu_half);
            let j = openrdma_conformance::scoreboard::judge(s, &out.injected, &out.observed);
            assert!(
                j.divergences.windows(2).all(|w| w[0].at <= w[1].at),
                "faulty:{} / {}: divergences out of time order",
                kind.name,
                s.manifest.name
            );
        }
    }
}

/// CONF-VER-001: every scenario gets exactly one verdict, as the table of section 7 gives
/// it: `pass` without divergence, `non-strict` with SHOULD divergences only, `unsupported`
/// when the device lacks a capability or declines, `fail` on a MUST divergence or a device
/// failure; a suite's counts add up to its scenarios.
#[test]
fn conf_ver_001_each_scenario_gets_one_verdict() {
    let spec = spec();
    let s = scenario("snd-single-loss");
    assert_eq!(judged(vec![]).scenarios[0].verdict, Verdict::Pass);
    assert_eq!(
        judged(vec![divergence(1, &one_of(Level::Should))]).scenarios[0].verdict,
        Verdict::NonStrict
    );
    assert_eq!(
        judged(vec![divergence(1, &one_of(Level::Must))]).scenarios[0].verdict,
        Verdict::Fail
    );
    let mut dev = Recording::reference();
    assert_eq!(run_one(&mut dev, reference_cpu_half, &s, &spec).verdict, Verdict::Pass);
    dev.without.insert(openrdma_device::Capability::Requester);
    assert_eq!(run_one(&mut dev, reference_cpu_half, &s, &spec).verdict, Verdict::Unsupported);
    let mut dev = Recording::reference();
    dev.fail = Some(FailAt::Start(DeviceError::Unsupported("declined".into())));
    assert_eq!(run_one(&mut dev, reference_cpu_half, &s, &spec).verdict, Verdict::Unsupported);
    dev.fail = Some(FailAt::Advance(0, DeviceError::Failed("broken".into())));
    assert_eq!(run_one(&mut dev, reference_cpu_half, &s, &spec).verdict, Verdict::Fail);
    let go_back_n = find("go-back-n").unwrap();
    assert_eq!(
        run_one(&mut Mutant::new(go_back_n), reference_cpu_half, &s, &spec).verdict,
        Verdict::Fail
    );
    // A suite: one verdict per scenario, and counts that add up.
    let corpus = all_scenarios();
    for name in ["go-back-n", "receiver-block"] {
        let r = run_suite(
            &mut Mutant::new(find(name).unwrap()),
            reference_cpu_half,
            &corpus,
            &spec,
            &mut |_, _| {},
        );
        assert_eq!(r.scenarios.len(), corpus.len());
        let m = &r.summary;
        assert_eq!(m.pass + m.fail + m.unsupported + m.non_strict, corpus.len(), "{name}");
        for v in [Verdict::Pass, Verdict::Fail, Verdict::Unsupported, Verdict::NonStrict] {
            let n = r.scenarios.iter().filter(|x| x.verdict == v).count();
            let counted = match v {
                Verdict::Pass => m.pass,
                Verdict::Fail => m.fail,
                Verdict::Unsupported => m.unsupported,
                Verdict::NonStrict => m.non_strict,
            };
            assert_eq!(n, counted, "{name}: {v:?}");
        }
    }
}

/// CONF-ADP-024: a device that failed its first hello declined nothing, and no scenario
/// ran: the table says so, not that the requirements were checked only by scenarios it
/// declined.
#[test]
fn conf_adp_024_the_table_after_a_failed_hello() {
    let corpus = all_scenarios();
    let e = DeviceError::Failed("no hello".into());
    let r = unstarted_suite("dev", &e, &corpus, &spec());
    assert_eq!((r.summary.fail, r.summary.unsupported), (corpus.len(), 0));
    assert_eq!(r.coverage.exercised, 0);
    let t = render_table(&r);
    let words = t.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = "held to none of them: no scenario ran, the device failed at its start or its \
                first hello";
    assert!(words.contains(said), "{t}");
    assert!(!words.contains("scenarios it declined"), "{t}");
}

/// CONF-VER-003: `unsupported` is not a failure: a suite whose scenarios pass or are
/// unsupported (here, a receiver block without its completion engine) has failed nothing,
/// and its JUnit report counts no failure.
#[test]
fn conf_ver_003_unsupported_is_not_a_failure() {
    let corpus = all_scenarios();
    let kind = find("receiver-block").unwrap();
    let r = run_suite(&mut Mutant::new(kind), reference_cpu_half, &corpus, &spec(), &mut |_, _| {});
    assert!(r.summary.unsupported > 0 && r.summary.pass > 0, "{:?}", r.summary);
    assert_eq!(r.summary.fail, 0);
    assert!(!r.failed());
    // The coverage says what the device was held to: the requirements of the scenarios it
    // ran, not those of the scenarios it declined.
    let c = &r.coverage;
    assert!(0 < c.exercised && c.exercised < c.covered, "{} of {}", c.exercised, c.covered);
    assert!(c.exercised_must <= c.exercised && c.exercised_must < c.covered_must);
    let held: BTreeSet<&String> = corpus
        .iter()
        .zip(&r.scenarios)
        .filter(|(_, x)| x.verdict != Verdict::Unsupported)
        .flat_map(|(s, _)| s.manifest.requirements.iter())
        .collect();
    assert!(held.contains(&"RCV-SACK-001".to_string()), "a receiver block is held to SACKs");
    assert!(render_table(&r).contains(&format!("this device was held to {} of them", c.exercised)));
    let full = run_suite(
        &mut ReferenceDevice::new(),
        reference_cpu_half,
        &corpus,
        &spec(),
        &mut |_, _| {},
    );
    let c = &full.coverage;
    assert_eq!((c.exercised, c.exercised_must), (c.covered, c.covered_must), "nothing declined");
    assert!(!render_table(&full).contains("was held to"));
    assert!(render_junit(&r).contains(" failures=\"0\" "), "{}", render_junit(&r));
    let mut nonstrict = judged(vec![divergence(1, &one_of(Level::Should))]);
    assert!(!nonstrict.failed());
    nonstrict.summary.fail = 1;
    assert!(nonstrict.failed(), "a failure is one");
}

/// CONF-REP-001: the report of a scenario that does not pass shows its first divergence —
/// the ID and the sentence of the requirement broken, the expected and the actual record,
/// the fields that differ — and a device failure with the device's message.
#[test]
fn conf_rep_001_a_report_explains_what_did_not_pass() {
    let spec = spec();
    let must = one_of(Level::Must);
    let sentence = spec.get(&must).unwrap().text.clone();
    let r = judged(vec![divergence(20, &must)]);
    let first = r.scenarios[0].first_divergence.clone().unwrap();
    assert_eq!(
        (first.requirement.as_str(), first.sentence.as_str()),
        (must.as_str(), sentence.as_str())
    );
    assert_eq!(first.expected.as_deref(), Some("the expected record"));
    assert_eq!(first.actual.as_deref(), Some("the device's record"));
    assert_eq!(first.fields[0].field, "reth.va");
    let table = render_table(&r);
    assert!(table.contains(&format!("[{must}] {sentence}")), "{table}");
    assert!(table.contains("expected: the expected record"), "{table}");
    assert!(table.contains("actual:   the device's record"), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.contains("reth.va") && l.contains("0x1000") && l.contains("0x1004")),
        "{table}"
    );
    // An undefined ID still gets a sentence saying so.
    let r = judged(vec![divergence(20, "XX-UNDEFINED-001")]);
    let first = r.scenarios[0].first_divergence.clone().unwrap();
    assert!(first.sentence.contains("not a requirement"), "{}", first.sentence);
    // A device failure, with the device's message, in the table and in the JSON.
    let s = scenario("snd-single-loss");
    let mut dev = Recording::reference();
    dev.fail =
        Some(FailAt::Advance(0, DeviceError::Failed("DMA engine stuck at 0x10000000".into())));
    let one = run_one(&mut dev, reference_cpu_half, &s, &spec);
    assert_eq!(one.verdict, Verdict::Fail);
    let report = SuiteReport {
        implementation: "test".into(),
        summary: Default::default(),
        scenarios: vec![one],
        coverage: Default::default(),
    };
    let table = render_table(&report);
    assert!(table.contains("device crash: DMA engine stuck at 0x10000000"), "{table}");
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["scenarios"][0]["device_error"].as_str().unwrap().contains("DMA engine stuck"));
    assert_eq!(json["scenarios"][0]["error"]["message"], "DMA engine stuck at 0x10000000");
    // A real failure, through the suite: the faulty device's bug is named with its sentence.
    let kind = find("go-back-n").unwrap();
    let r = run_one(&mut Mutant::new(kind), reference_cpu_half, &s, &spec);
    let d = r.first_divergence.expect("a first divergence");
    assert_eq!(d.sentence, spec.get(&d.requirement).unwrap().text);
    assert!(d.actual.is_some());
}

fn keys(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_object().expect("an object").keys().cloned().collect()
}

fn set(k: &[&str]) -> BTreeSet<String> {
    k.iter().map(|s| s.to_string()).collect()
}

/// CONF-REP-002: the JSON report is an object with the keys `implementation`, `summary`,
/// `scenarios` and `coverage`, holding the fields section 8 lists.
#[test]
fn conf_rep_002_the_json_report_holds_the_fields_of_section_8() {
    let s = scenario("snd-single-loss");
    let spec = spec();
    let kind = find("go-back-n").unwrap();
    let r = run_suite(
        &mut Mutant::new(kind),
        reference_cpu_half,
        std::slice::from_ref(&s),
        &spec,
        &mut |_, _| {},
    );
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(keys(&v), set(&["implementation", "summary", "scenarios", "coverage"]));
    assert_eq!(v["implementation"], "faulty:go-back-n");
    assert_eq!(keys(&v["summary"]), set(&["pass", "fail", "unsupported", "non_strict"]));
    let x = &v["scenarios"][0];
    assert_eq!(
        keys(x),
        set(&[
            "id",
            "verdict",
            "title",
            "requirements",
            "checked",
            "divergences",
            "first_divergence",
            "device_error",
            "error"
        ])
    );
    assert!(x["error"].is_null(), "a divergence, not a device failure");
    assert_eq!((x["id"].as_str(), x["verdict"].as_str()), (Some("snd-single-loss"), Some("fail")));
    let d = &x["first_divergence"];
    assert_eq!(
        keys(d),
        set(&["at", "requirement", "clause", "sentence", "what", "expected", "actual", "fields"])
    );
    for f in d["fields"].as_array().unwrap() {
        assert_eq!(keys(f), set(&["field", "expected", "actual"]));
    }
    assert_eq!(
        keys(&v["coverage"]),
        set(&[
            "total",
            "covered",
            "total_must",
            "covered_must",
            "uncovered",
            "exercised",
            "exercised_must",
            "by_requirement",
            "other_subjects",
            "clauses_total",
            "clauses_covered",
            "clauses_total_must",
            "clauses_covered_must",
            "unfailable"
        ])
    );
    let subjects = keys(&v["coverage"]["other_subjects"]);
    assert!(subjects.contains("suite") && !subjects.contains("device"), "{subjects:?}");
    for id in v["coverage"]["other_subjects"]["suite"].as_array().unwrap() {
        assert!(id.as_str().unwrap().starts_with("CONF-"), "{id}");
    }
    // A verdict in kebab case, a first divergence that is null when there is none.
    let pass = judged(vec![]);
    let v = serde_json::to_value(&pass).unwrap();
    assert_eq!(v["scenarios"][0]["verdict"], "pass");
    assert!(v["scenarios"][0]["first_divergence"].is_null());
    let ns = serde_json::to_value(judged(vec![divergence(1, &one_of(Level::Should))])).unwrap();
    assert_eq!(ns["scenarios"][0]["verdict"], "non-strict");
}

/// CONF-REP-003: the JUnit report holds one `testcase` per scenario, with a `failure` for
/// each `fail`, a `skipped` for each `unsupported`, and a `system-out` for `non-strict`.
#[test]
fn conf_rep_003_the_junit_report_has_a_testcase_per_scenario() {
    let spec = spec();
    let corpus = all_scenarios();
    for name in ["go-back-n", "receiver-block"] {
        let r = run_suite(
            &mut Mutant::new(find(name).unwrap()),
            reference_cpu_half,
            &corpus,
            &spec,
            &mut |_, _| {},
        );
        let xml = render_junit(&r);
        assert!(xml.contains("<testsuite name=\"openrdma-conformance\""), "{xml}");
        assert_eq!(xml.matches("<testcase ").count(), corpus.len(), "{name}");
        assert_eq!(xml.matches("<failure ").count(), r.summary.fail, "{name}");
        assert_eq!(xml.matches("<skipped ").count(), r.summary.unsupported, "{name}");
        assert_eq!(xml.matches("<system-out>").count(), r.summary.non_strict, "{name}");
        for s in &corpus {
            assert!(
                xml.contains(&format!("name=\"{}\"", s.manifest.name)),
                "{name}: {}",
                s.manifest.name
            );
        }
    }
    let should = one_of(Level::Should);
    let xml = render_junit(&judged(vec![divergence(1, &should)]));
    assert!(xml.contains("<system-out>non-strict: ["), "{xml}");
    let xml = render_junit(&judged(vec![divergence(1, &one_of(Level::Must))]));
    assert!(xml.contains("<failure message=\"["), "{xml}");
}

/// The report of `snd-single-loss` on a device that fails with `e` at its `k`-th batch.
fn failed_at(k: usize, e: DeviceError) -> SuiteReport {
    let s = scenario("snd-single-loss");
    let mut dev = Recording::reference();
    dev.fail = Some(FailAt::Advance(k, e));
    run_suite(&mut dev, reference_cpu_half, std::slice::from_ref(&s), &spec(), &mut |_, _| {})
}

/// CONF-REP-001.b (with CONF-RUN-004): a device failure — a crash, a broken protocol, a
/// timeout — is the scenario's failure reason. The JSON report carries it under `error`,
/// with its kind and the device's message; the JUnit report's `failure` carries the
/// device's message, its kind as the `type`; the table shows it. No divergence stands in
/// for it, however far the scenario ran before it.
#[test]
fn conf_rep_001_b_a_device_failure_is_the_failure_reason() {
    let cases = [
        (
            DeviceError::Failed("DMA engine stuck at 0x10000000".into()),
            "crash",
            "DMA engine stuck at 0x10000000",
        ),
        (
            DeviceError::Protocol("outputs: seq 7, expected 3".into()),
            "protocol",
            "outputs: seq 7, expected 3",
        ),
        (
            DeviceError::Timeout { what: "outputs".into(), after_ms: 5000 },
            "timeout",
            "timed out after 5000 ms waiting for outputs",
        ),
    ];
    for (e, kind, message) in cases {
        // At the first batch, and at the last, after the device sent frames.
        let mut dev = Recording::reference();
        let s = scenario("snd-single-loss");
        let _ = run_one(&mut dev, reference_cpu_half, &s, &spec());
        let last = dev.batches.len() - 1;
        assert!(dev.batches[..last].iter().any(|b| !b.outputs.is_empty()));
        for k in [0, last] {
            let r = failed_at(k, e.clone());
            assert_eq!((r.summary.fail, r.failed()), (1, true), "{kind}");
            let x = &r.scenarios[0];
            assert_eq!(x.verdict, Verdict::Fail);
            assert_eq!((x.divergences, &x.first_divergence), (0, &None), "{kind} at {k}");
            let v = serde_json::to_value(&r).unwrap();
            let error = &v["scenarios"][0]["error"];
            assert_eq!(keys(error), set(&["kind", "message", "at"]), "{error}");
            assert_eq!(
                (error["kind"].as_str(), error["message"].as_str()),
                (Some(kind), Some(message))
            );
            assert!(error["at"].is_u64(), "{error}");
            assert!(v["scenarios"][0]["first_divergence"].is_null());
            let xml = render_junit(&r);
            assert!(
                xml.contains(&format!(
                    "<failure message=\"device {kind}: {message}\" type=\"{kind}\">{message}</failure>"
                )),
                "{xml}"
            );
            assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
            let table = render_table(&r);
            assert!(table.contains(&format!("device {kind}: {message}")), "{table}");
            assert!(!table.contains("first divergence"), "{table}");
        }
    }
    // At the start: no batch ran, so the failure has no time.
    let s = scenario("snd-single-loss");
    let mut dev = Recording::reference();
    dev.fail = Some(FailAt::Start(DeviceError::Failed("no FPGA found".into())));
    let x = run_one(&mut dev, reference_cpu_half, &s, &spec());
    let e = x.error.expect("the failure");
    assert_eq!((e.kind.as_str(), e.message.as_str(), e.at), ("crash", "no FPGA found", None));
    // A declined scenario is not a failure: no `error`, only the reason.
    dev.fail = Some(FailAt::Start(DeviceError::Unsupported("no such board".into())));
    let x = run_one(&mut dev, reference_cpu_half, &s, &spec());
    assert_eq!((x.verdict, &x.error), (Verdict::Unsupported, &None));
    assert_eq!(x.device_error.as_deref(), Some("no such board"));
    // A message with markup and control characters stays well-formed XML.
    let r = failed_at(0, DeviceError::Failed("<stderr> \u{1b}[31mred & \"dead\"\u{7}".into()));
    let xml = render_junit(&r);
    assert!(xml.contains("&lt;stderr&gt; \u{fffd}[31mred &amp; &quot;dead&quot;\u{fffd}"), "{xml}");
}

/// The width of `s` in terminal columns.
fn columns(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// Every line of `table` that is wider than the table may be.
fn too_wide(table: &str) -> Vec<&str> {
    table.lines().filter(|l| columns(l) > TABLE_WIDTH).collect()
}

/// The table a person reads has one line per scenario — name, verdict, checks, a short
/// title — and no line over 100 columns: the title is cut with an ellipsis, a name that
/// does not fit its column gets a line of its own (cut only when it is wider than a line),
/// and what is shown below a scenario (its device failure, its first divergence) is
/// wrapped. The requirements are listed only with `verbose`.
#[test]
fn the_table_fits_100_columns() {
    let spec = spec();
    let s = scenario("snd-single-loss");
    let mut r = run_suite(
        &mut Mutant::new(find("go-back-n").unwrap()),
        reference_cpu_half,
        std::slice::from_ref(&s),
        &spec,
        &mut |_, _| {},
    );
    let table = render_table(&r);
    assert!(too_wide(&table).is_empty(), "{table}");
    let line = table.lines().find(|l| l.starts_with("snd-single-loss ")).expect("its line");
    let title = &r.scenarios[0].title;
    assert!(s.manifest.description.starts_with(title.as_str()) && !title.is_empty());
    assert!(line.contains(" fail ") && line.ends_with('…'), "{line}");
    let list = r.scenarios[0].requirements[..2].join(" ");
    assert!(!table.contains(&list), "no requirement list: {table}");
    // The first divergence follows the scenario's line, indented.
    let lines: Vec<&str> = table.lines().collect();
    let k = lines.iter().position(|l| *l == line).unwrap();
    assert!(lines[k + 1].starts_with("    first divergence at "), "{table}");
    // Verbose: the requirements, wrapped, below the line.
    let verbose = render_table_with(&r, TableOptions { verbose: true });
    assert!(too_wide(&verbose).is_empty(), "{verbose}");
    let start = format!("    requirements: {list} ");
    assert!(verbose.lines().any(|l| l.starts_with(&start)), "{verbose}");
    let listed: Vec<&str> = verbose
        .split("requirements: ")
        .nth(1)
        .unwrap()
        .split("\n    first divergence")
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(listed, r.scenarios[0].requirements, "every requirement, in order");
    // Names: one that fits its column; one wider than the column but not than a line,
    // whole on a line of its own; one wider than a line, cut.
    let long = "x".repeat(60);
    let huge = "y".repeat(150);
    for (id, shown) in [(long.clone(), long.clone()), (huge.clone(), format!("{}…", &huge[..99]))]
    {
        r.scenarios[0].id = id;
        let table = render_table(&r);
        assert!(too_wide(&table).is_empty(), "{table}");
        let lines: Vec<&str> = table.lines().collect();
        let k = lines.iter().position(|l| *l == shown).expect("the name alone");
        assert!(lines[k + 1].trim_start().starts_with("fail "), "{table}");
    }
    // A title, a divergence and a device message of long words, wide characters and line
    // breaks still fit.
    r.scenarios[0].id = "snd-single-loss".into();
    r.scenarios[0].title = "界".repeat(80);
    let d = r.scenarios[0].first_divergence.as_mut().unwrap();
    d.what = format!("{} {}", "z".repeat(250), "é".repeat(30));
    d.actual = Some("a\nb\tc ".repeat(40));
    let table = render_table(&r);
    assert!(too_wide(&table).is_empty(), "{table}");
    assert!(table.contains(&"z".repeat(90)), "a long word is cut across lines: {table}");
}

/// No line of the table is over 100 columns for any faulty device on the whole corpus.
#[test]
fn every_faulty_device_s_table_fits_100_columns() {
    let spec = spec();
    let corpus = all_scenarios();
    for kind in faults::devices().chain(faults::variants()) {
        let r =
            run_suite(&mut Mutant::new(kind), reference_cpu_half, &corpus, &spec, &mut |_, _| {});
        for options in [TableOptions::default(), TableOptions { verbose: true }] {
            let table = render_table_with(&r, options);
            assert!(too_wide(&table).is_empty(), "{}: {:?}", kind.name, too_wide(&table));
        }
    }
}

/// Cutting and wrapping: whole when it fits, an ellipsis where cut, spaces kept inside a
/// line and dropped where it breaks.
#[test]
fn cut_and_wrap() {
    assert_eq!(cut("short", 10), "short");
    assert_eq!(cut("a title of several words", 12), "a title of…");
    assert_eq!(cut("abcdefghij", 5), "abcd…");
    assert_eq!(cut("two\nlines", 20), "two lines");
    assert_eq!(cut("anything", 0), "");
    assert_eq!(wrap("", "  ", "    ", 10), [""]);
    assert_eq!(wrap("actual:   x y", "", "", 20), ["actual:   x y"]);
    assert_eq!(wrap("aaa bbb ccc", "", "  ", 7), ["aaa bbb", "  ccc"]);
    assert_eq!(wrap("abcdefghij", "", "", 4), ["abcd", "efgh", "ij"]);
    assert_eq!(wrap("one\ntwo", "> ", "  ", 10), ["> one", "  two"]);
    assert_eq!(wrap("  field   x", "", "", 20), ["  field   x"]);
}
