//! Generated faults: one per knob of the device's configuration in the manifest (`[nic]`
//! and `[recovery]`), with no hand work per knob.
//!
//! `ignore-{section}-{knob}` runs the device with the knob's default, whatever the
//! manifest says. It breaks the device's (or its CPU half's) clauses whose text names the
//! knob, and is caught by the first scenarios that set the knob to another value than the
//! default ([`CATCH_PER_ENTRY`] of them, in corpus order). The knobs come from the
//! configuration's own serialized form, the clauses from the specification's text.
//!
//! A knob is not made an entry when no clause names it, when no scenario sets it, or when
//! the corpus cannot catch it and name one of its clauses first: those are listed in
//! [`SKIPPED`] or [`left_out`] with the reason, and `tests/power.rs` prints them.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use openrdma_conformance::req::Clause;
use openrdma_conformance::requirements::{Level, Spec, Subject};
use openrdma_device::{Manifest, NicSettings, RecoverySettings};
use serde_json::Value;

use super::generated::Generated;
use super::{Caps, Class, Edits, Expect, Fault};

/// How many scenarios an entry is run on.
pub const CATCH_PER_ENTRY: usize = 2;

/// Entries not registered, with the reason.
pub const SKIPPED: &[(&str, &str)] = &[
    ("ignore-nic-ack-req-every", "passes snd-segmentation: its AckReq bits go unjudged there"),
    ("ignore-nic-sack-delay", "passes rcv-probe-answer: no SACK there waits for the timer"),
    ("ignore-nic-wwi-limit", "passes ret-error-releases-domain: the limit is not reached there"),
    ("ignore-recovery-retry-limit", "passes rec-device-progress: no QP runs out of retries there"),
    ("ignore-recovery-rto-max", "passes rec-device-progress: no timeout there reaches the cap"),
];

/// The knobs that time a device's reaction to an input, in ns. Set within `late_ns / 2` of
/// the default, ignoring one is not visible: a device may act on any input that much later
/// (CONF-TIME-004), so a scenario that sets one so is no place to catch its fault.
const REACTION_TIMES: &[&str] =
    &["nic.nack_backoff", "nic.sack_delay", "nic.skip_hold", "nic.tail_probe"];

/// The sections of the manifest that configure the device.
const SECTIONS: &[&str] = &["nic", "recovery"];

/// A section of `m` as JSON.
fn section(m: &Manifest, name: &str) -> Option<Value> {
    match name {
        "nic" => serde_json::to_value(&m.nic).ok(),
        "recovery" => serde_json::to_value(&m.recovery).ok(),
        _ => None,
    }
}

/// A section's default as JSON.
fn default_section(name: &str) -> Option<Value> {
    match name {
        "nic" => serde_json::to_value(NicSettings::default()).ok(),
        "recovery" => serde_json::to_value(RecoverySettings::default()).ok(),
        _ => None,
    }
}

/// `m` with `knob` (`nic.sack-coalesce`) set to its default.
pub fn ignore(m: &mut Manifest, knob: &str) {
    let Some((name, key)) = knob.split_once('.') else { return };
    let (Some(Value::Object(mut now)), Some(Value::Object(default))) =
        (section(m, name), default_section(name))
    else {
        return;
    };
    match default.get(key) {
        Some(v) => now.insert(key.to_string(), v.clone()),
        None => now.remove(key),
    };
    let now = Value::Object(now);
    match name {
        "nic" => {
            if let Ok(v) = serde_json::from_value(now) {
                m.nic = v;
            }
        }
        "recovery" => {
            if let Ok(v) = serde_json::from_value(now) {
                m.recovery = v;
            }
        }
        _ => {}
    }
}

/// The knobs of `m`: `section.key` for every key its sections hold.
fn knobs_of(m: &Manifest) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for name in SECTIONS {
        if let Some(Value::Object(o)) = section(m, name) {
            out.extend(o.keys().map(|k| format!("{name}.{k}")));
        }
    }
    out
}

/// Whether `m` sets `knob` to another value than the default.
fn sets(m: &Manifest, knob: &str) -> bool {
    let mut d = m.clone();
    ignore(&mut d, knob);
    let (name, _) = knob.split_once('.').unwrap_or_default();
    section(&d, name) != section(m, name)
}

/// Whether ignoring `knob` can show in a scenario of manifest `m` that [`sets`] it: a
/// reaction time must differ from its default by more than `late_ns / 2`.
fn visible(m: &Manifest, knob: &str) -> bool {
    if !REACTION_TIMES.contains(&knob) {
        return true;
    }
    let mut d = m.clone();
    ignore(&mut d, knob);
    let (name, key) = knob.split_once('.').unwrap_or_default();
    let ns = |m: &Manifest| section(m, name)?.get(key)?.as_u64();
    match (ns(m), ns(&d)) {
        (Some(a), Some(b)) => a.abs_diff(b) > m.tolerances.late_ns / 2,
        _ => true,
    }
}

/// The leaf clauses of a device or its CPU half whose text names `key` (`sack_coalesce`).
fn clauses_naming(spec: &Spec, key: &str) -> Vec<Clause> {
    let quoted = format!("`{key}`");
    let binds = |l: Level, s: Subject| {
        matches!(l, Level::Must | Level::Should) && matches!(s, Subject::Device | Subject::CpuHalf)
    };
    let mut out = Vec::new();
    for r in spec.iter() {
        if r.parts.is_empty() {
            if binds(r.level, r.subject) && r.text.contains(&quoted) {
                out.extend(Clause::parse(&r.id));
            }
            continue;
        }
        for p in &r.parts {
            if binds(p.level, p.subject) && p.text.contains(&quoted) {
                out.extend(Clause::parse(&format!("{}.{}", r.id, p.letter)));
            }
        }
    }
    out
}

/// The entries, and the knobs made none, with the reason.
fn knobs() -> &'static Generated {
    static KNOBS: OnceLock<Generated> = OnceLock::new();
    KNOBS.get_or_init(|| {
        let mut out = Generated { faults: Vec::new(), left: Vec::new() };
        let Ok(spec) = Spec::bundled() else { return out };
        let corpus: Vec<(String, Manifest)> =
            crate::all().into_iter().map(|(n, b)| (n.to_string(), b().manifest)).collect();
        let mut all = BTreeSet::new();
        for name in SECTIONS {
            if let Some(Value::Object(o)) = default_section(name) {
                all.extend(o.keys().map(|k| format!("{name}.{k}")));
            }
        }
        for (_, m) in &corpus {
            all.extend(knobs_of(m));
        }
        for knob in all {
            let name = format!("ignore-{}", knob.replace(['.', '_'], "-"));
            if let Some((_, why)) = SKIPPED.iter().find(|(n, _)| *n == name) {
                out.left.push((name, why));
                continue;
            }
            let key = knob.split_once('.').map_or("", |(_, k)| k).replace('-', "_");
            let breaks = clauses_naming(&spec, &key);
            if breaks.is_empty() {
                out.left.push((name, "no clause of a device or its CPU half names it"));
                continue;
            }
            let catch: Vec<&'static str> = corpus
                .iter()
                .filter(|(_, m)| sets(m, &knob) && visible(m, &knob))
                .filter(|(_, m)| {
                    breaks.iter().any(|b| m.requirements.iter().any(|r| r == b.requirement()))
                })
                .take(CATCH_PER_ENTRY)
                .map(|(n, _)| &*Box::leak(n.clone().into_boxed_str()))
                .collect();
            if catch.is_empty() {
                out.left.push((
                    name,
                    "no scenario of its clauses sets it to another value than the default",
                ));
                continue;
            }
            let must = breaks.iter().any(|c| c.level() == Level::Must);
            let what = format!("the device ignores {knob}: it runs with the default");
            out.faults.push(Fault {
                name: Box::leak(name.into_boxed_str()),
                class: Class::Fault,
                what: Box::leak(what.into_boxed_str()),
                breaks: breaks.leak(),
                expect: if must { Expect::Fails } else { Expect::NonStrict },
                catch: catch.leak(),
                caps: Caps::Same,
                edits: Edits { ignore: Some(Box::leak(knob.into_boxed_str())), ..Edits::NONE },
            });
        }
        out
    })
}

/// Every entry, made once.
pub fn faults() -> &'static [Fault] {
    &knobs().faults
}

/// The knobs made no entry, by name, with the reason.
pub fn left_out() -> &'static [(String, &'static str)] {
    &knobs().left
}
