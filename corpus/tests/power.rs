//! The power of the corpus, proved from the fault registry (`faults`): every fault is
//! caught by the scenarios that must catch it, and the first divergence names a clause it
//! breaks; every variant passes; every MUST clause that binds a device or its CPU half has
//! a fault that proves the suite checks it, or is listed in [`NOT_YET_PROVED`].
//!
//! One engine runs them all, `faults::prove`, the way `openrdma run` judges: each fault
//! only on the scenarios that can catch it, on two threads.
//!
//! This is the suite's proof of its power (CONF-GEN-008), and for the wire faults, that
//! the scenarios catch a device whose frames break the wire rules (CONF-CMP-016,
//! CONF-CMP-017).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use openrdma_conformance::report::run_one;
use openrdma_conformance::req::Clause;
use openrdma_conformance::requirements::{Level, Spec};
use openrdma_corpus::faults::inference::{Bugs, Wrong};
use openrdma_corpus::faults::{self, Batch, Class, Expect, Fault, Mutant, Proof, Stream};
use openrdma_device::{
    Capability, Device, DeviceError, Manifest, Scenario, TimedInput, TimedOutput, Timestamp,
};
use openrdma_sm::{ReferenceDevice, reference_cpu_half};

/// Faults the suite catches, but whose first divergence names a clause they do not
/// break, with the clause it names. The test fails when one is named right, so that the
/// list stays true; it may only shrink.
const MISNAMED: &[(&str, &str)] = &[];

/// The MUST clauses of a device or its CPU half that no fault of the registry proves yet,
/// by chapter: `chapter.md:` lines, then IDs, `#` comments. A data file, so that the
/// requirement matrix does not count a clause listed there as cited by a test.
const NOT_YET_PROVED: &str = include_str!("power/not-yet-proved.txt");

/// The clause IDs of [`NOT_YET_PROVED`].
fn not_yet_proved() -> BTreeSet<&'static str> {
    NOT_YET_PROVED
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(str::split_whitespace)
        .filter(|w| !w.ends_with(':'))
        .collect()
}

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::bundled().expect("the specification parses"))
}

fn corpus() -> &'static [Scenario] {
    static CORPUS: OnceLock<Vec<Scenario>> = OnceLock::new();
    CORPUS.get_or_init(|| openrdma_corpus::all().into_iter().map(|(_, b)| b()).collect())
}

/// Every entry on its scenarios, once for all the tests.
fn proofs() -> &'static [Proof] {
    static PROOFS: OnceLock<Vec<Proof>> = OnceLock::new();
    PROOFS.get_or_init(|| {
        let all: Vec<&'static Fault> = faults::all().collect();
        faults::prove(&all, corpus(), spec(), 2)
    })
}

fn line(p: &Proof) -> String {
    format!(
        "{} / {}: {} {}{}",
        p.fault.cli_name(),
        p.scenario,
        p.verdict,
        p.first.map_or("-", Clause::id),
        p.error.as_deref().map(|e| format!(" ({e})")).unwrap_or_default()
    )
}

#[test]
fn every_fault_is_caught_and_named() {
    let mut wrong = Vec::new();
    let mut misnamed = BTreeMap::new();
    for f in faults::all().filter(|f| f.class == Class::Fault) {
        let mine: Vec<&Proof> = proofs().iter().filter(|p| std::ptr::eq(p.fault, f)).collect();
        if f.breaks.is_empty() {
            wrong.push(format!("faulty:{} breaks no clause", f.name));
        }
        if mine.is_empty() {
            wrong.push(format!("faulty:{} runs on no scenario", f.name));
            continue;
        }
        // Named scenarios must each catch it; the covering ones, at least one.
        let held = if f.catch.is_empty() {
            mine.iter().any(|p| p.holds())
        } else {
            mine.iter().all(|p| p.holds())
        };
        let caught = mine.iter().all(|p| match f.expect {
            Expect::NonStrict => p.verdict == "non-strict",
            _ => p.verdict == "fail",
        });
        if held {
            continue;
        }
        if caught || (f.catch.is_empty() && mine.iter().any(|p| p.verdict == "fail")) {
            let first =
                mine.iter().find(|p| p.verdict == "fail" && !p.holds()).and_then(|p| p.first);
            misnamed.insert(f.name, first.map_or("-", Clause::id));
        } else {
            let detail: Vec<String> = mine.iter().filter(|p| !p.holds()).map(|p| line(p)).collect();
            wrong.push(format!("faulty:{} not caught: {detail:?}", f.name));
        }
    }
    let listed: BTreeMap<&str, &str> = MISNAMED.iter().copied().collect();
    for (name, clause) in &misnamed {
        if listed.get(name) != Some(clause) {
            wrong.push(format!("faulty:{name} is caught but named {clause} first"));
        }
    }
    for name in listed.keys().filter(|n| !misnamed.contains_key(*n)) {
        wrong.push(format!("faulty:{name} is named right now: take it off MISNAMED"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_variant_passes() {
    let mut wrong = Vec::new();
    for f in faults::variants() {
        let mine: Vec<&Proof> = proofs().iter().filter(|p| std::ptr::eq(p.fault, f)).collect();
        let judged = mine.iter().filter(|p| p.verdict != "unsupported").count();
        if judged < 4 {
            wrong.push(format!("variant:{} judged on only {judged} scenarios", f.name));
        }
        wrong.extend(mine.iter().filter(|p| !p.holds()).map(|p| line(p)));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// OPC-PSN-002.b: a device that sends `epsn - 1` as the BTH psn of its transport ACKs
/// (`variant:ack-psn-epsn`) passes, and is `non-strict` where that value is not the last
/// PSN of the message acknowledged.
#[test]
fn ack_psn_epsn_is_non_strict_where_it_differs() {
    let v = faults::variants().find(|f| f.name == "ack-psn-epsn").expect("the variant");
    let mine = faults::prove(&[v], corpus(), spec(), 2);
    let wrong: Vec<String> = mine.iter().filter(|p| !p.holds()).map(line).collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(mine.iter().any(|p| p.verdict == "non-strict"), "no scenario shows the choice");
}

/// The freedoms of the specification that no variant uses yet (`faults::variants`), by
/// chapter, as [`NOT_YET_PROVED`] lists clauses. It may only shrink.
const NOT_YET_USED: &str = include_str!("power/not-yet-used.txt");

#[test]
fn every_freedom_is_used() {
    let freedoms = faults::variants::freedoms();
    let mut wrong = Vec::new();
    let mut used = BTreeSet::new();
    for v in faults::variants::every() {
        if v.allows.is_empty() {
            wrong.push(format!("variant:{} allows no clause", v.fault.name));
        }
        for &c in v.allows {
            if !freedoms.contains(&c) {
                wrong.push(format!("variant:{} allows {c}, which leaves no choice", v.fault.name));
            }
            used.insert(c);
        }
    }
    // A SHOULD is used too by an entry that departs from it and must be judged `non-strict`
    // (CONF-VER-002): `every_fault_is_caught_and_named` holds it to that.
    for f in faults::all().filter(|f| f.class == Class::Fault && f.expect == Expect::NonStrict) {
        used.extend(
            f.breaks.iter().flat_map(|b| b.leaves()).filter(|c| c.level() == Level::Should),
        );
    }
    let unused: BTreeSet<&str> =
        freedoms.iter().filter(|c| !used.contains(c)).map(|c| c.id()).collect();
    let listed: BTreeSet<&str> = NOT_YET_USED
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(str::split_whitespace)
        .filter(|w| !w.ends_with(':'))
        .collect();
    let mut by_chapter: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for id in &unused {
        let requirement = Clause::parse(id).map_or(*id, Clause::requirement);
        let chapter = spec().get(requirement).map_or("?".into(), |r| r.chapter.clone());
        by_chapter.entry(chapter).or_default().push(id);
    }
    let worklist: Vec<String> =
        by_chapter.iter().map(|(ch, ids)| format!("{ch}: {}", ids.join(" "))).collect();
    println!(
        "freedoms used: {} of {}\n{}",
        freedoms.len() - unused.len(),
        freedoms.len(),
        worklist.join("\n")
    );
    for id in listed.difference(&unused) {
        wrong.push(format!("{id} is used now, or no freedom: take it off not-yet-used.txt"));
    }
    for id in unused.difference(&listed) {
        wrong.push(format!("{id} is a freedom no variant uses, not listed in not-yet-used.txt"));
    }
    assert!(wrong.is_empty(), "{}\n{}", wrong.join("\n"), worklist.join("\n"));
}

#[test]
fn every_must_clause_is_proved() {
    let proved = faults::proved(proofs());
    let through = faults::proved_through(proofs(), spec());
    let unprovable: BTreeSet<Clause> = faults::UNPROVABLE.iter().map(|(c, _)| *c).collect();
    let unproved: BTreeSet<&str> = faults::must_clauses()
        .filter(|c| !proved.contains_key(c) && !through.contains_key(c))
        .filter(|c| !unprovable.contains(c))
        .map(Clause::id)
        .collect();
    let listed = not_yet_proved();
    let newly: Vec<&&str> = listed.difference(&unproved).collect();
    let lost: Vec<&&str> = unproved.difference(&listed).collect();
    // The worklist, by chapter.
    let mut by_chapter: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for id in &unproved {
        let requirement = Clause::parse(id).map_or(*id, Clause::requirement);
        let chapter = spec().get(requirement).map_or("?".into(), |r| r.chapter.clone());
        by_chapter.entry(chapter).or_default().push(id);
    }
    let worklist: Vec<String> = by_chapter
        .iter()
        .map(|(ch, ids)| format!("{ch} ({}): {}", ids.len(), ids.join(" ")))
        .collect();
    println!(
        "MUST clauses proved: {} of {} ({} through a clause they cite), {} unprovable\n{}",
        faults::must_clauses().count() - unproved.len() - unprovable.len(),
        faults::must_clauses().count(),
        faults::must_clauses().filter(|c| through.contains_key(c)).count(),
        unprovable.len(),
        worklist.join("\n")
    );
    assert!(newly.is_empty(), "proved now, take them off NOT_YET_PROVED: {newly:?}");
    assert!(
        lost.is_empty(),
        "MUST clauses without a catching fault, not listed in NOT_YET_PROVED: {lost:?}\n{}",
        worklist.join("\n")
    );
}

#[test]
fn the_cli_names_are_registry_entries() {
    // Names are unique and what the command line takes.
    let mut seen = BTreeSet::new();
    for f in faults::all() {
        assert!(seen.insert(f.name), "{} twice", f.name);
        assert!(
            !f.name.is_empty()
                && f.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{:?} is not a command-line name",
            f.name
        );
        let again = faults::by_cli_name(&f.cli_name()).expect("found by its CLI name");
        assert!(std::ptr::eq(again, f));
        let other = match f.class {
            Class::Fault => format!("variant:{}", f.name),
            Class::Variant => format!("faulty:{}", f.name),
        };
        assert!(faults::by_cli_name(&other).is_none(), "{other}");
        assert_eq!(f.breaks.is_empty(), f.class == Class::Variant, "{}", f.name);
    }
}

/// The register-width faults and the first divergence each scenario of `widths` shows for
/// them: the rule the narrow register breaks there, whichever register it is.
const WIDTHS: &[(&str, &str, &str)] = &[
    ("va-32bit", "rcv-va-high", "RCV-PLACE-003"),
    ("va-32bit", "rcv-va-top", "RCV-PLACE-003"),
    ("va-32bit", "snd-va-high", "SND-SEG-003"),
    ("va-32bit", "db-va-high", "SND-SEG-003"),
    ("va-32bit", "ret-cq-wrap-1k", "CQE-RING-001"),
    ("va-32bit", "rcv-ids-high", "FLAG-RECV-001"),
    ("va-32bit", "snd-ids-high", "FLAG-SEND-001"),
    ("len-16bit", "rcv-length-17bit", "FLAG-RECV-002"),
    ("len-16bit", "snd-length-17bit", "SND-SEG-003"),
    ("len-16bit", "db-length-17bit", "SND-SEG-003"),
    ("qpn-16bit", "rcv-ids-high", "RCV-ACK-002"),
    ("qpn-16bit", "snd-ids-high", "SND-QPN-001"),
    ("peer-qpn-16bit", "rcv-ids-high", "RCV-ACK-002"),
    ("peer-qpn-16bit", "snd-ids-high", "SND-QPN-001"),
    ("rkey-16bit", "rcv-ids-high", "RCV-PLACE-002"),
    ("rkey-16bit", "snd-ids-high", "SND-SEG-003"),
    ("wr-id-32bit", "snd-ids-high", "CQE-SEND-001"),
    ("cq-index-10bit", "ret-cq-wrap-1k", "CQE-RING-001"),
];

#[test]
fn width_faults_name_the_rule_of_each_scenario() {
    let mut wrong = Vec::new();
    for &(fault, scenario, rule) in WIDTHS {
        let p = proofs().iter().find(|p| p.fault.name == fault && p.scenario == scenario);
        let first = p.and_then(|p| p.first).map(Clause::requirement);
        if first != Some(rule) {
            wrong.push(format!("faulty:{fault} / {scenario}: {first:?}, expected {rule}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A device that claims what `inner` does without its capabilities' limits: judged in
/// full scope.
struct FullScope(Mutant);

impl Device for FullScope {
    fn name(&self) -> String {
        self.0.name()
    }
    fn capabilities(&self) -> BTreeSet<Capability> {
        ReferenceDevice::new().capabilities()
    }
    fn start(&mut self, m: &Manifest) -> Result<(), DeviceError> {
        self.0.start(m)
    }
    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        self.0.advance(inputs, until)
    }
    fn finish(&mut self) -> Result<(), DeviceError> {
        self.0.finish()
    }
}

/// The variants pass by the scope of the capabilities they claim, not by leniency: the
/// receiver that writes no flags fails where flags are expected once it is judged as if it
/// claimed everything (CONF-CMP-012), and a device without the doorbell bus is out of scope
/// only in the scenarios that present bus writes (CONF-DEV-005).
#[test]
fn variants_pass_by_their_scope() {
    use openrdma_device::{Body, NicEvent};
    let block = faults::by_cli_name("variant:receiver-block").expect("registered");
    let mut wrong = Vec::new();
    for s in corpus() {
        let flags = s.records.iter().any(|r| {
            matches!(r.body, Body::Event { event: NicEvent::FlagWrite(f) } if f.side == openrdma_device::Side::Responder)
        });
        if !flags {
            continue;
        }
        let mut dev = FullScope(Mutant::new(block));
        let r = run_one(&mut dev, reference_cpu_half, s, spec());
        if r.verdict.as_str() != "fail" {
            wrong.push(format!("{}: missing flags went unnoticed in full scope", s.manifest.name));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let token = faults::by_cli_name("variant:token-only-doorbell").expect("registered");
    let judged = proofs().iter().filter(|p| std::ptr::eq(p.fault, token)).count();
    let bus =
        corpus().iter().filter(|s| s.manifest.requires.contains(&Capability::DoorbellBus)).count();
    assert_eq!(judged + bus, corpus().len(), "variant:token-only-doorbell");
}

/// The device's own CPU halves of the registry differ from the reference only in their
/// fault: where the fault cannot show, they pass (REC-RTO-001, REC-EV-002, REC-PROBE-001). So a failure is the
/// fault's, not a slip of the CPU half written for it.
#[test]
fn cpu_half_faults_differ_only_in_their_fault() {
    let cases: &[(&str, &[&str])] = &[
        ("no-retry-reset", &["rec-device-backoff", "rec-device-blame"]),
        ("no-blame", &["rec-device-progress"]),
    ];
    let mut wrong = Vec::new();
    for &(name, scenarios) in cases {
        let f = faults::find(name).expect("registered");
        for &n in scenarios {
            let s = corpus().iter().find(|s| s.manifest.name == n).expect("in the corpus");
            let r = run_one(&mut Mutant::new(f), reference_cpu_half, s, spec());
            if r.verdict.as_str() != "pass" {
                wrong.push(format!("faulty:{name} fails {n}: {:?}", r.first_divergence));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The reference with the loss-inference stream of the registry, no rule broken.
struct Followed {
    inner: ReferenceDevice,
    stream: Option<Wrong>,
}

impl Device for Followed {
    fn name(&self) -> String {
        "followed".into()
    }
    fn capabilities(&self) -> BTreeSet<Capability> {
        self.inner.capabilities()
    }
    fn start(&mut self, m: &Manifest) -> Result<(), DeviceError> {
        self.stream = Some(Wrong::new(Bugs::NONE, m));
        self.inner.start(m)
    }
    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        let s = self.stream.as_mut().expect("started");
        let at: BTreeSet<u64> = inputs.iter().map(|i| i.at.0).collect();
        let inputs = s.inputs(inputs);
        let out = self.inner.advance(inputs, until)?;
        Ok(s.outputs(out, Batch { until, inputs_at: &at }))
    }
    fn finish(&mut self) -> Result<(), DeviceError> {
        self.inner.finish()
    }
}

/// The inference faults follow the rules they do not break: with none broken, the
/// inference seen from the boundary infers exactly what the reference retransmits by
/// inference, and changes nothing, in every scenario of the corpus.
#[test]
fn inference_from_the_boundary_agrees_with_the_reference() {
    for s in corpus() {
        let name = &s.manifest.name;
        let mut dev = Followed { inner: ReferenceDevice::new(), stream: None };
        let r = run_one(&mut dev, reference_cpu_half, s, spec());
        assert!(r.error.is_none(), "{name}: {:?}", r.error);
        let w = dev.stream.as_ref().expect("started");
        assert_eq!(w.inferred, w.reported, "{name}: inferred / retransmitted by inference");
        assert_eq!(r.verdict.as_str(), "pass", "{name}: {:?}", r.first_divergence);
    }
}

/// Every row of the judge's field table is a generated fault or is left out with its
/// reason, and every name of `SKIPPED` is a row's (so that the list stays true).
#[test]
fn generated_faults_cover_the_field_table() {
    use faults::generated;
    let names: BTreeSet<String> = generated::rows().iter().map(generated::name_of).collect();
    let made: BTreeSet<&str> = generated::faults().iter().map(|f| f.name).collect();
    let left: BTreeMap<&str, &str> =
        generated::left_out().iter().map(|(n, why)| (n.as_str(), *why)).collect();
    for (n, why) in &left {
        println!("not generated: {n}: {why}");
        assert!(!why.is_empty(), "{n}");
    }
    for n in &names {
        assert!(made.contains(n.as_str()) != left.contains_key(n.as_str()), "{n}");
    }
    for (n, _) in generated::SKIPPED {
        assert!(names.contains(*n), "SKIPPED names {n}, which is no row of the field table");
    }
    println!("generated: {} of {} rows", made.len(), names.len());
    for (n, why) in faults::knobs::left_out() {
        println!("not generated: {n}: {why}");
        assert!(!why.is_empty(), "{n}");
    }
    let knobs: BTreeSet<&str> = faults::knobs::left_out().iter().map(|(n, _)| n.as_str()).collect();
    for (n, _) in faults::knobs::SKIPPED {
        assert!(knobs.contains(n), "knobs::SKIPPED names {n}, which is left out for no reason");
    }
    println!("knob faults: {}", faults::knobs::faults().len());
}

/// Faults a family left unregistered, because the corpus cannot catch them, each say why
/// and are no registry entry.
#[test]
fn unregistered_faults_are_reasoned() {
    let answers = faults::answers::left_out().iter().chain(faults::rejects::left_out());
    let answers = answers.map(|(n, why)| (n.as_str(), *why));
    let listed = faults::answers::NOT_REGISTERED.iter().chain(faults::sending::NOT_REGISTERED);
    let listed = listed.chain(faults::acks::NOT_REGISTERED);
    let listed = listed.chain(faults::states::NOT_REGISTERED);
    for (n, why) in listed.copied().chain(answers) {
        println!("not registered: {n}: {why}");
        assert!(!why.trim().is_empty(), "{n}: no reason");
        assert!(faults::find(n).is_none(), "{n} is registered and listed as not registered");
    }
}

/// The clauses no fault can prove are few, each with its reason, each a MUST clause of a
/// device or its CPU half that no fault proves.
#[test]
fn unprovable_clauses_are_few_and_reasoned() {
    assert!(faults::UNPROVABLE.len() <= 10, "{} unprovable clauses", faults::UNPROVABLE.len());
    let must: BTreeSet<Clause> = faults::must_clauses().collect();
    let proved = faults::proved(proofs());
    let through = faults::proved_through(proofs(), spec());
    for (c, why) in faults::UNPROVABLE {
        assert!(!why.trim().is_empty(), "{c}: no reason");
        assert!(must.contains(c), "{c} is not a MUST clause of a device or its CPU half");
        assert!(!proved.contains_key(c), "{c} is proved: take it off UNPROVABLE");
        assert!(!through.contains_key(c), "{c} is proved through a clause it cites");
    }
}

/// Rules of the judge that an entry of the registry is caught by: with the rule broken,
/// the entry is no longer caught, or no longer named by a clause it breaks, or, a legal
/// variant, no longer passes every scenario. Each row was found so: with the rule switched
/// off in the judge, the entry's row fails. A failure names the rule.
const RULES_BY_ENTRY: &[(&str, &str)] = &[
    // Draws at random are judged by their spread over the pool.
    ("CONF-CMP-046", "random-stuck"),
    // A device that takes its inputs up to late_ns / 2 late may send data before a
    // commanded probe, and its probe then carries its own snd_nxt: the variant passes.
    ("CONF-CMP-049", "late-input"),
    // A Progress's outstanding count is judged by the device's own first transmissions.
    ("CONF-CMP-050", "progress-outstanding-short"),
    ("CONF-CMP-050", "progress-outstanding-saturating"),
    // Every Armed comes with a data packet that makes it due.
    ("CONF-CMP-052", "armed-every-packet"),
    // A duplicate is answered by a SACK of its own, whatever other SACKs come.
    ("CONF-CMP-055", "duplicate-ack-first"),
    // A Progress's snd_una is one its QP held.
    ("CONF-CMP-065", "sack-cack-read-exclusive"),
    // A report that says another state, where the device follows the expected ones, is
    // named by the report's rule.
    ("CONF-CMP-070", "ev-state-bad-reported-skip"),
    // A first report GOOD where an input moves the EV out says the state it left; so do
    // reports one transition late.
    ("CONF-CMP-076", "ev-state-reported-old"),
    ("CONF-CMP-077", "ev-state-reported-old"),
    // An EV of another QP's profile was chosen from the wrong profile.
    ("CONF-CMP-101", "ev-profile-table-one-entry"),
    // Stamps behind earlier ones whose bytes are swapped name the layout.
    ("CONF-CMP-102", "tseth-stamp-little-endian"),
    // Too many messages awaiting ACK, with the flag of an acknowledged one missing: the
    // ACK was not taken.
    ("CONF-CMP-103", "ack-msn-read-exclusive"),
    // A flag that repeats the one before is an extra output.
    ("CONF-CMP-105", "flag-fifo-repeats-at-wrap"),
    // Reports are ordered by the steps of the input that made them.
    ("CONF-CMP-110", "progress-before-ev-step"),
    ("CONF-CMP-110", "armed-before-progress"),
    // A Progress's awaiting_ack counts the QP's own messages only.
    ("CONF-CMP-116", "progress-awaiting-domain"),
    // A key the expected records breach is not judged: the variant passes.
    ("CONF-CMP-131", "ack-psn-epsn"),
    // A flag lost to a full completion queue names CQE-RING-005.a.
    ("CONF-CMP-132", "cq-full-drops-flags"),
    // A SACK claims its own trigger, received before it was built.
    ("CONF-CMP-061", "sack-bitmap-bit-63-lost"),
    ("CONF-CMP-061", "sack-bitmap-after-wrap-lost"),
    // A probe a command asks for goes on the command's EV in every scenario.
    ("CONF-CMP-106", "probe-command-ev-unloaded"),
    // Each data packet makes at most one Armed due.
    ("CONF-CMP-114", "armed-fast-lane-twice"),
    // A run of stamps goes on across two stamps less than 2^16 ns apart.
    ("CONF-CMP-115", "ts-of-previous-packet"),
    // The lower end of the SACK counters counts what the SACK claims.
    ("CONF-CMP-117", "ccs-ooo-count-zero"),
    // A Progress counts what the step that made it had sent and taken.
    ("CONF-CMP-125", "progress-awaiting-of-previous"),
    // It counts the SACK's own trigger too, beyond the bitmap's reach.
    ("CONF-CMP-129", "ccs-ooo-bitmap-popcount"),
    // A SACK names the write it answers, not one accepted before a later write.
    ("CONF-CMP-130", "sack-ackpsn-floor-zero"),
    // A probe answer's cack_psn is a PSN the QP received, or the one before its first.
    ("CONF-CMP-123", "probe-answer-cack-23bit"),
    // No SACK at all after a duplicate or a probe is named by the clause that sends it.
    ("CONF-CMP-121", "sack-no-news-suppressed"),
    ("CONF-CMP-121", "probe-left-to-sack-timer"),
    // A timer ACK lost after a SACK for a later write is named RCV-SACK-008.b.
    ("CONF-CMP-112", "sack-for-write-stops-ack-timer"),
    // An ACK carrying another QP's MSN in shared retirement is named RCV-ACK-003.a.
    ("CONF-CMP-122", "ack-msn-of-trigger"),
    // A late ACK may carry an MSN retired but not yet acknowledged: the variant passes.
    ("CONF-CMP-127", "acks-read-retired"),
    // The EV of a mark or probe-answer report is the answering SACK's.
    ("CONF-CMP-128", "report-mark-ev-halves-swapped"),
    // A SACK that claims a PSN whose later copy is placed nowhere names RCV-WIN-003.
    ("CONF-CMP-126", "epsn-past-hole"),
    // The latest transmission before a tail probe, spared by its answer alone.
    ("CONF-CMP-113", "probe-no-ev-sequence"),
    // A packet sent after a tail probe, judged by its answer and retransmitted.
    ("CONF-CMP-120", "probe-answer-judges-later"),
    // A packet that waits for a trimmed EV's hold, sent when a short hold ends.
    ("CONF-CMP-124", "skip-hold-half"),
    // A delayed entry missing when its back-off ended is named by the NACK's clause.
    ("CONF-CMP-108", "nack-backoff-twice"),
    // A trim that queues a PSN while no EV is usable: the entry must wait for an EV.
    ("CONF-CMP-109", "unusable-entry-dropped"),
    // A SACK that one write makes due, late by more than one latency.
    ("CONF-CMP-136", "sack-count-one-over"),
    // A duplicate's SACK reflects an older copy's EV.
    ("CONF-CMP-137", "sack-dup-ev-first-copy"),
    // A retired write placed after another of its domain was discarded at another offset.
    ("CONF-CMP-134", "msn-offset-gap"),
    // A packet after the PSN wrap, written at the wrong address, is a placement error.
    ("CONF-CMP-138", "rx-place-psn-delta-16bit"),
];

#[test]
fn judge_rules_catch_their_entries() {
    let mut wrong = Vec::new();
    for &(rule, name) in RULES_BY_ENTRY {
        let Some(f) = faults::all().find(|f| f.name == name) else {
            wrong.push(format!("{rule}: no entry {name}"));
            continue;
        };
        let mine: Vec<&Proof> = proofs().iter().filter(|p| std::ptr::eq(p.fault, f)).collect();
        // A variant must pass every scenario; a fault with no catch list, fail one.
        let held = !mine.is_empty()
            && if f.catch.is_empty() && f.class != Class::Variant {
                mine.iter().any(|p| p.holds())
            } else {
                mine.iter().all(|p| p.holds())
            };
        if !held {
            let detail: Vec<String> = mine.iter().filter(|p| !p.holds()).map(|p| line(p)).collect();
            wrong.push(format!("{rule}: {name} is not caught and named: {detail:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
