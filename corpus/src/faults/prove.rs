//! The proof of power: registry entries run on the corpus, judged as `openrdma run` judges.

use std::collections::BTreeMap;
use std::sync::Mutex;

use openrdma_conformance::report::run_one;
use openrdma_conformance::req::Clause;
use openrdma_conformance::requirements::{Level, Spec, Subject, find_ids};
use openrdma_device::{Device, Scenario};

use super::{Class, Expect, Fault, Mutant};

/// What the suite made of one entry on one scenario.
#[derive(Debug, Clone)]
pub struct Proof {
    /// The entry.
    pub fault: &'static Fault,
    /// The scenario.
    pub scenario: String,
    /// Its verdict, as reports name it (`fail`, `pass`, `non-strict`, `unsupported`), or
    /// `missing` when the corpus has no scenario of that name.
    pub verdict: &'static str,
    /// The clause of its first divergence (the first from a MUST, if any).
    pub first: Option<Clause>,
    /// The clauses that first divergence carries as broken with its own: those that
    /// restate it for the output its check judges (CONF-CMP-118).
    pub also: Vec<Clause>,
    /// The fields of its first divergence.
    pub fields: Vec<String>,
    /// The device error that ended it, if one did.
    pub error: Option<String>,
}

impl Proof {
    /// Whether the suite did what the entry expects: a fault failed (or made non-strict)
    /// and named, first, a clause it breaks; a variant passed, or was judged `non-strict`
    /// naming first a SHOULD it allows.
    pub fn holds(&self) -> bool {
        let f = self.fault;
        if f.class == Class::Variant {
            // A departure from a SHOULD it allows may make the verdict `non-strict`,
            // never `fail` (CONF-VER-002).
            let should = |c: Clause| {
                super::variants::allows(f)
                    .iter()
                    .any(|&a| a.level() == Level::Should && (a == c || a.line() == c))
            };
            return self.verdict == "pass"
                || self.verdict == "unsupported"
                || (self.verdict == "non-strict"
                    && self.error.is_none()
                    && self.first.is_some_and(should));
        }
        if self.error.is_some() {
            return false;
        }
        match f.expect {
            Expect::Fails => self.verdict == "fail" && self.first.is_some_and(|c| names(f, c)),
            Expect::NonStrict => {
                self.verdict == "non-strict" && self.first.is_some_and(|c| names(f, c))
            }
            Expect::FailsOnField(field) => {
                self.verdict == "fail" && self.fields.iter().any(|x| x == field)
            }
        }
    }
}

/// Whether `clause` is one `fault` breaks: a clause of `breaks`, a clause of a line it
/// lists whole, or the line of a clause it lists when the divergence names only the line.
pub fn names(fault: &Fault, clause: Clause) -> bool {
    fault
        .breaks
        .iter()
        .any(|&b| b == clause || b.leaves().any(|l| l == clause) || b.line() == clause)
}

/// The scenarios that cover a clause `fault` breaks and whose capabilities its device
/// claims: where it is run when its `catch` is empty.
pub fn covering<'a>(fault: &'static Fault, corpus: &'a [Scenario]) -> Vec<&'a Scenario> {
    let caps = Mutant::new(fault).capabilities();
    corpus
        .iter()
        .filter(|s| s.manifest.requires.is_subset(&caps))
        .filter(|s| {
            fault.class == Class::Variant
                || fault
                    .breaks
                    .iter()
                    .any(|b| s.manifest.requirements.iter().any(|r| r == b.requirement()))
        })
        .collect()
}

/// The scenarios `fault` is run on: its `catch`, or those [`covering`] it.
pub fn catches<'a>(
    fault: &'static Fault,
    corpus: &'a [Scenario],
) -> Vec<Result<&'a Scenario, &'static str>> {
    if fault.catch.is_empty() {
        return covering(fault, corpus).into_iter().map(Ok).collect();
    }
    fault.catch.iter().map(|n| corpus.iter().find(|s| s.manifest.name == *n).ok_or(*n)).collect()
}

/// Runs each of `faults` on its scenarios ([`catches`]), on `threads` threads, and says
/// what the suite made of each run, in the order of `faults` and then of the scenarios.
pub fn prove(
    faults: &[&'static Fault],
    corpus: &[Scenario],
    spec: &Spec,
    threads: usize,
) -> Vec<Proof> {
    let jobs: Vec<(&'static Fault, Result<&Scenario, &'static str>)> =
        faults.iter().flat_map(|&f| catches(f, corpus).into_iter().map(move |s| (f, s))).collect();
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(usize, Proof)>> = Mutex::new(Vec::with_capacity(jobs.len()));
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let k = {
                        let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                        let k = *n;
                        *n += 1;
                        k
                    };
                    let Some(&(fault, scenario)) = jobs.get(k) else { break };
                    let proof = run(fault, scenario, spec);
                    results.lock().unwrap_or_else(|e| e.into_inner()).push((k, proof));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(k, _)| *k);
    results.into_iter().map(|(_, p)| p).collect()
}

fn run(fault: &'static Fault, scenario: Result<&Scenario, &'static str>, spec: &Spec) -> Proof {
    let s = match scenario {
        Ok(s) => s,
        Err(name) => {
            return Proof {
                fault,
                scenario: name.into(),
                verdict: "missing",
                first: None,
                also: vec![],
                fields: vec![],
                error: None,
            };
        }
    };
    let mut dev = Mutant::new(fault);
    let r = run_one(&mut dev, openrdma_sm::reference_cpu_half, s, spec);
    let first = r.first_divergence.as_ref();
    Proof {
        fault,
        scenario: s.manifest.name.clone(),
        verdict: r.verdict.as_str(),
        first: first.and_then(|d| Clause::parse(&d.clause)),
        also: first
            .map(|d| d.also_breaks.iter().filter_map(|c| Clause::parse(c)).collect())
            .unwrap_or_default(),
        fields: first
            .map(|d| d.fields.iter().map(|f| f.field.clone()).collect())
            .unwrap_or_default(),
        error: r.error.map(|e| e.line()),
    }
}

/// The clauses the proof is owed: every leaf MUST clause that binds a device or the CPU
/// half a device brings along.
pub fn must_clauses() -> impl Iterator<Item = Clause> {
    Clause::all().filter(|c| {
        c.is_leaf()
            && c.level() == Level::Must
            && matches!(c.subject(), Subject::Device | Subject::CpuHalf)
    })
}

/// The clauses `proofs` prove, each with the proof that does, the first in the order of
/// fault and scenario names: a fault caught where the first divergence names a clause it
/// breaks, and each clause it breaks that the divergence carries as restating the one
/// named (CONF-CMP-118: the check that failed can fail it). See [`proved_through`] for a
/// clause that restates others and that no check declares.
pub fn proved(proofs: &[Proof]) -> BTreeMap<Clause, &Proof> {
    let mut out: BTreeMap<Clause, &Proof> = BTreeMap::new();
    for p in proofs.iter().filter(|p| p.fault.class == Class::Fault && p.holds()) {
        let Some(c) = p.first.filter(|&c| names(p.fault, c)) else { continue };
        let carried = p.also.iter().copied().filter(|&r| names(p.fault, r));
        for c in std::iter::once(c).chain(carried) {
            let better = out.get(&c).is_none_or(|q| {
                (p.fault.name, p.scenario.as_str()) < (q.fault.name, q.scenario.as_str())
            });
            if better {
                out.insert(c, p);
            }
        }
    }
    out
}

/// The clauses `proofs` prove through another clause, each with the proof and the clause
/// named, leaving out those [`proved`] proves. A clause that restates or sums up clauses it
/// cites (or that cite it) forbids what they forbid: the judge names the cited clause, and
/// cannot name both. Such a clause `r` is proved through `c` when a fault that breaks both
/// is caught where the first divergence names `c`, and the text of one cites the other's
/// requirement ([`cites`]).
pub fn proved_through<'p>(
    proofs: &'p [Proof],
    spec: &Spec,
) -> BTreeMap<Clause, (&'p Proof, Clause)> {
    let direct = proved(proofs);
    let mut out: BTreeMap<Clause, (&Proof, Clause)> = BTreeMap::new();
    for p in proofs.iter().filter(|p| p.fault.class == Class::Fault && p.holds()) {
        let Some(c) = p.first.filter(|&c| names(p.fault, c)) else { continue };
        for r in p.fault.breaks.iter().flat_map(|b| b.leaves()) {
            if direct.contains_key(&r) || !cites(spec, r, c) {
                continue;
            }
            let better = out.get(&r).is_none_or(|(q, _)| {
                (p.fault.name, p.scenario.as_str()) < (q.fault.name, q.scenario.as_str())
            });
            if better {
                out.insert(r, (p, c));
            }
        }
    }
    out
}

/// Whether clause `r` and clause `c`, of two different requirements, cite each other: the
/// text of `r` (its line's preamble and its own clause) names `c`'s requirement, or the
/// text of `c` names `r`'s.
pub fn cites(spec: &Spec, r: Clause, c: Clause) -> bool {
    let text = |x: Clause| -> String {
        let Some(req) = spec.get(x.requirement()) else { return String::new() };
        match x.part() {
            Some(letter) => {
                let own = req.parts.iter().find(|p| p.letter == letter).map_or("", |p| &p.text);
                format!("{} {own}", req.preamble)
            }
            None => req.text.clone(),
        }
    };
    let names = |x: Clause, id: &str| find_ids(&text(x)).contains(&id);
    r.requirement() != c.requirement() && (names(r, c.requirement()) || names(c, r.requirement()))
}
