//! The corpus is well formed: unique names, manifests that name live MUST or SHOULD
//! requirements and tag their checks with them, short scenarios, and a bounded size.

use std::collections::BTreeSet;

use openrdma_codec::frame::decode;
use openrdma_codec::{Ev, Lkey, Opcode};
use openrdma_conformance::file;
use openrdma_conformance::requirements::{Level, Spec};
use openrdma_conformance::scoreboard::{render_event, render_frame};
use openrdma_corpus as corpus;
use openrdma_device::{Body, Direction, HostCommand};
use openrdma_sm::reference_cpu_half;

#[test]
fn names_are_unique_and_match_their_manifests() {
    let mut seen = BTreeSet::new();
    for (name, build) in corpus::all() {
        assert!(seen.insert(name), "{name} is listed twice");
        let prefix = name.split('-').next().unwrap_or("");
        assert!(
            ["rcv", "snd", "db", "ev", "ret", "rec", "wire"].contains(&prefix),
            "{name}: a scenario name starts with rcv-, snd-, db-, ev-, ret-, rec- or wire-"
        );
        let s = build();
        assert_eq!(s.manifest.name, name);
    }
}

#[test]
fn manifests_name_requirements_in_force_and_checks_are_listed() {
    let spec = Spec::bundled().expect("the specification parses");
    let mut unlisted = BTreeSet::new();
    for (name, build) in corpus::all() {
        let s = build();
        let listed: BTreeSet<&str> = s.manifest.requirements.iter().map(String::as_str).collect();
        assert_eq!(listed.len(), s.manifest.requirements.len(), "{name}: an ID listed twice");
        for id in &listed {
            let r = spec.get(id).unwrap_or_else(|| panic!("{name}: {id} is not specified"));
            assert_ne!(r.level, Level::Withdrawn, "{name}: {id} is withdrawn");
        }
        for rec in s.records.iter().filter(|r| r.dir == Direction::Expect) {
            for id in &rec.checks {
                assert!(
                    spec.get(id).is_some_and(|r| r.level != Level::Withdrawn),
                    "{name}: a record checks {id}, which is not a requirement in force"
                );
                if !listed.contains(id.as_str()) {
                    unlisted.insert(format!("{name}: {id}"));
                }
            }
        }
    }
    assert!(unlisted.is_empty(), "records check IDs their manifests do not list: {unlisted:#?}");
}

/// A scenario in which the device sends data or probes over IPv4 gives its QPs only EVs
/// that IPv4 carries whole, bits 15:0 zero (CONF-CMP-017, ENC-EV-002): otherwise the
/// reference itself would send EVs outside its profile.
#[test]
fn ipv4_senders_get_evs_ipv4_carries() {
    for (name, build) in corpus::all() {
        let s = build();
        if s.manifest.link.is_ipv6() {
            continue;
        }
        let sends = s.expects().any(|r| match &r.body {
            Body::Frame { bytes, .. } => decode(bytes)
                .bth
                .is_some_and(|b| b.opcode.is_mrc_write() || b.opcode == Opcode::MRC_PROBE),
            _ => false,
        });
        if !sends {
            continue;
        }
        for r in s.injects() {
            if let Body::Host { command: HostCommand::CreateQp(q) } = &r.body {
                for ev in q.evs.iter().chain(&q.backup_evs) {
                    assert_eq!(ev.low(), 0, "{name}: QP {} has EV {ev:#x}", q.qpn);
                }
            }
        }
    }
}

#[test]
fn scenarios_are_short_and_the_corpus_is_small() {
    let mut bytes = 0usize;
    for (name, build) in corpus::all() {
        let s = build();
        let last = s.records.iter().map(|r| r.at.0).max().unwrap_or(0);
        // The reference's timestamp clock passes 2^16 of its 16 ns units at 1.048576 ms:
        // the one scenario that shows the wrap lasts a little longer.
        let limit = if name == "snd-ts-wrap" { 1_100_000 } else { 1_000_000 };
        assert!(last < limit, "{name} lasts {last} ns");
        let mut pcapng = Vec::new();
        file::write_scenario(&s, &mut pcapng).expect("the scenario writes");
        // Every tracked file stays under 4 MiB.
        assert!(pcapng.len() < 4 << 20, "{name}.pcapng takes {} bytes", pcapng.len());
        bytes += pcapng.len() + file::manifest_to_toml(&s.manifest).len();
    }
    println!("the corpus takes {bytes} bytes on disk");
    // The register-width scenarios take about 1.5 MB of it, most for a completion queue of
    // 1024 entries that wraps (ret-cq-wrap-1k). The rest is small scenarios, of 5 to 20 kB
    // each.
    assert!(bytes < 4_300_000, "the corpus takes {bytes} bytes on disk");
}

/// Prints the records of the scenarios named in `CORPUS_DUMP` (comma-separated), for
/// writing and reviewing scenarios: `CORPUS_DUMP=rcv-probe cargo test --test corpus -- \
/// --ignored --nocapture`.
#[test]
#[ignore = "a tool for reading scenarios, not a check: CORPUS_DUMP=name ... -- --ignored"]
fn dump() {
    let want = std::env::var("CORPUS_DUMP").unwrap_or_default();
    let want: Vec<&str> = want.split(',').filter(|s| !s.is_empty()).collect();
    for (name, build) in corpus::all() {
        if !want.is_empty() && !want.contains(&name) {
            continue;
        }
        let s = build();
        println!("== {name}: {}", s.manifest.requirements.join(" "));
        for r in &s.records {
            let dir = match r.dir {
                Direction::Inject => "->",
                Direction::Expect => "<-",
            };
            let what = match &r.body {
                Body::Frame { port, bytes } => format!("port {port}: {}", render_frame(bytes)),
                Body::Host { command } => format!("host {}", short(&format!("{command:?}"))),
                Body::Cpu { command } => format!("cpu {command:?}"),
                Body::Event { event } => render_event(event),
            };
            let checks = if r.checks.is_empty() {
                String::new()
            } else {
                format!(" [{}]", r.checks.join(" "))
            };
            println!("{:>9} {dir} {what}{checks}", r.at.0);
        }
    }
}

fn short(s: &str) -> String {
    if s.len() > 160 { format!("{}...", &s[..160]) } else { s.to_string() }
}

/// CONF-CMP-012, its second sentence: a responder scenario that names a requirement of
/// retirement (the areas the sentence lists) requires the `retirement` capability, so that
/// a receiver block without its completion engine is never run on it.
#[test]
fn conf_cmp_012_scenarios_about_retirement_require_it() {
    use openrdma_device::Capability;
    const AREAS: &[&str] = &[
        "RET-",
        "FLAG-",
        "CQE-",
        "WWI-",
        "ORD-",
        "RCV-ACK-",
        "RCV-MSG-",
        "RCV-NAK-",
        "AETH-",
        "RCV-DUP-002",
        "REC-IF-009",
    ];
    let mut responders = 0;
    for (name, build) in corpus::all() {
        let s = build();
        if !s.manifest.requires.contains(&Capability::Responder) {
            continue;
        }
        responders += 1;
        let named = s.manifest.requirements.iter().chain(s.records.iter().flat_map(|r| &r.checks));
        for id in named {
            if AREAS.iter().any(|a| id.starts_with(a)) {
                assert!(
                    s.manifest.requires.contains(&Capability::Retirement),
                    "{name} names {id} but does not require retirement"
                );
            }
        }
    }
    assert!(responders > 10, "{responders}");
}

/// A requester scenario like `snd-single-loss`, recorded over paths with these delays.
fn sender_recorded_over(delays: &[u64]) -> openrdma_device::Scenario {
    use openrdma_codec::Qpn;
    use openrdma_codec::host::{WorkRequest, WrOpcode};
    use openrdma_corpus::record::{Path, Recorder};
    use openrdma_corpus::{DUT_QP, PEER_QP, REGION, REGION_LEN, RKEY};
    use openrdma_device::{Capability, HostCommand, Region, RetirementMode};
    let mut m = corpus::all()[0].1().manifest;
    m.name = "snd-over-paths".into();
    m.requires = [Capability::Requester, Capability::Ipv4].into_iter().collect();
    m.nic.retirement = RetirementMode::PerQp;
    m.tolerances.late_ns = m.recovery.rto.as_nanos() as u64 + 8_000;
    let mut r = Recorder::new(m);
    r.paths(delays.iter().map(|&delay| Path { delay, dark: None }).collect());
    r.with_peer();
    let region = Region { rkey: RKEY, base: REGION, len: REGION_LEN, remote_write: true };
    r.host(0, HostCommand::RegisterRegion(region));
    // IPv4 carries EV[31:16] only (ENC-EV-002): the device's EVs have zero low halves.
    let mut dut = corpus::qp(DUT_QP, PEER_QP, 0);
    dut.evs.iter_mut().for_each(|ev| *ev = Ev::from_halves(ev.high(), 0));
    r.host(0, HostCommand::CreateQp(dut));
    r.peer_host(0, HostCommand::RegisterRegion(region));
    r.peer_host(0, HostCommand::CreateQp(corpus::qp(PEER_QP, DUT_QP, 0)));
    for k in 0..6u32 {
        let wr = WorkRequest {
            wr_id: k.into(),
            qpn: Qpn::new(DUT_QP),
            opcode: WrOpcode::WRITE,
            local_va: 0x4000_0000 + u64::from(k) * 0x1_0000,
            lkey: Lkey::new(1),
            remote_va: REGION + u64::from(k) * 0x1_0000,
            rkey: RKEY,
            length: 2048,
            imm: None,
            flag_slot: k,
            signaled: true,
        };
        r.host(1_000, HostCommand::PostWrite(wr));
    }
    r.finish(200_000)
}

/// CONF-GEN-007: why a scenario whose device sends data is recorded over paths of equal
/// delay, and that the suite would notice one that is not. Over equal delays every
/// legitimate variant — random spraying among them — passes; over the unequal delays a
/// recorder uses by default, the random sprayer is failed for retransmissions the recorded
/// SACKs made it send. The corpus's own sender scenarios are all passed by every variant
/// (`every_variant_passes` in `corpus/tests/power.rs`).
#[test]
fn conf_gen_007_sender_scenarios_need_paths_of_equal_delay() {
    use openrdma_conformance::runner::run;
    use openrdma_conformance::scoreboard::Scope;
    use openrdma_corpus::faults::{self, Mutant, find};
    use openrdma_device::Device;
    let judged = |s: &openrdma_device::Scenario, kind| {
        let mut dev = Mutant::new(kind);
        let caps = dev.capabilities();
        run(&mut dev, s, reference_cpu_half).judge(s, Scope::of(&caps)).divergences
    };
    let equal = sender_recorded_over(&[500, 500, 500, 500]);
    for kind in faults::variants().filter(|k| {
        equal.manifest.requires.iter().all(|c| Mutant::new(k).capabilities().contains(c))
    }) {
        // A SHOULD the variant departs from may be a divergence, a `non-strict` one.
        let allowed = faults::variants::allows(kind);
        let wrong: Vec<_> = judged(&equal, kind)
            .into_iter()
            .filter(|d| {
                !(d.should_only
                    && d.clause.is_some_and(|c| allowed.iter().any(|&a| a == c || a.line() == c)))
            })
            .collect();
        assert_eq!(wrong, vec![], "variant:{} over equal delays", kind.name);
    }
    let unequal = sender_recorded_over(&[500, 650, 800, 950]);
    let spray = find("spray-random").unwrap();
    let d = judged(&unequal, spray);
    assert!(
        d.iter().any(|d| d.requirement == "SND-RTX-004"),
        "random spraying passes a scenario recorded over unequal delays: {d:?}"
    );
}

/// CONF-GEN-005: a recording with `cpu = "scripted"` writes the commands of the reference
/// CPU half as inject records. `Recorder::new` marks a manifest scripted whatever it said,
/// and in every scripted scenario whose device reports to the CPU half, the recorded
/// commands are what the device needs: replayed without them, the reference fails it.
/// (Recordings that leave the CPU half to the runner or the device are checked by their
/// exact replay.) The exception is a scenario whose command is redundant by design —
/// `snd-rtx-once` orders a retransmission already queued, to show it is not sent twice;
/// `snd-spray-random-spread` denies two EVs, and the judge takes the usable pool of a
/// random QP from the inputs themselves, so without the denial it judges the draws over all
/// four EVs; `snd-spray-fixed` moves its QP off EVs by commands, and a fixed QP's EVs are
/// judged on the pool the inputs give (CONF-CMP-048), so without the commands it judges
/// them against the unchanged pool — and for them the test shows the opposite: they pass
/// without the commands.
#[test]
fn conf_gen_005_scripted_recordings_carry_the_cpu_half_as_inject_records() {
    const REDUNDANT_BY_DESIGN: &[&str] =
        &["snd-rtx-once", "snd-spray-random-spread", "snd-spray-fixed"];
    use openrdma_conformance::runner::run;
    use openrdma_conformance::scoreboard::judge;
    use openrdma_corpus::record::Recorder;
    use openrdma_device::{Capability, CpuHalf};
    use openrdma_sm::ReferenceDevice;
    let mut m = corpus::all()[0].1().manifest;
    m.cpu = CpuHalf::Reference;
    assert_eq!(Recorder::new(m).finish(0).manifest.cpu, CpuHalf::Scripted);
    let mut needed = 0;
    for (name, build) in corpus::all() {
        let s = build();
        if s.manifest.cpu != CpuHalf::Scripted {
            continue;
        }
        let has_cpu = s.records.iter().any(|r| matches!(r.body, Body::Cpu { .. }));
        if !has_cpu || !s.manifest.requires.contains(&Capability::CpuSplit) {
            continue;
        }
        let mut without = s.clone();
        without.records.retain(|r| !matches!(r.body, Body::Cpu { .. }));
        let out = run(&mut ReferenceDevice::new(), &without, reference_cpu_half);
        let j = judge(&without, &out.injected, &out.observed);
        if REDUNDANT_BY_DESIGN.contains(&name) {
            assert!(j.divergences.is_empty(), "{name}: {:#?}", j.divergences);
            continue;
        }
        assert!(!j.divergences.is_empty(), "{name} passes without its CPU commands");
        needed += 1;
    }
    assert!(needed >= 5, "{needed}");
}
