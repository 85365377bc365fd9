//! The device boundary and the runner (`spec/conformance.md`, sections 1, 2 and 5): how the
//! runner drives a device — in batches, time only forward, acknowledgements rewritten to the
//! device's own EVs, the CPU half played by the reference agent when the manifest asks —
//! what a device must give back, and what a device error does to a scenario.

mod common;

use std::collections::HashMap;

use common::*;
use openrdma_codec::Ev;
use openrdma_codec::Opcode;
use openrdma_codec::frame::{IcrcStatus, decode};
use openrdma_conformance::report::run_one;
use openrdma_conformance::requirements::Spec;
use openrdma_conformance::runner::run;
use openrdma_conformance::scoreboard::{Verdict, judge};
use openrdma_corpus::faults::{self, Mutant, find};
use openrdma_device::{
    Body, CpuHalf, Device, DeviceError, Direction, HostCommand, Input, Output, Scenario,
    TimedInput, TimedOutput, Timestamp, memory, memory_byte,
};
use openrdma_sm::{ReferenceDevice, reference_cpu_half};

/// The time rules of one run: `until` never goes back; every input lies between the
/// previous `until` and its batch's, and not before the input ahead of it.
fn check_time_moves_forward(name: &str, batches: &[Batch]) {
    let mut prev_until = Timestamp::ZERO;
    for (k, b) in batches.iter().enumerate() {
        assert!(
            b.until >= prev_until,
            "{name}: batch {k} runs to {} after {}",
            b.until,
            prev_until
        );
        let mut t = prev_until;
        for i in &b.inputs {
            assert!(
                i.at >= t && i.at <= b.until,
                "{name}: batch {k}: input at {} outside [{t}, {}]",
                i.at,
                b.until
            );
            t = i.at;
        }
        prev_until = b.until;
    }
}

/// CONF-DEV-003: over the whole corpus, as recorded and with the runner playing the CPU
/// half, the runner never gives a batch that runs to an earlier time than the one before,
/// nor an input earlier than the previous `until`, later than its batch's `until`, or
/// earlier than the input ahead of it.
#[test]
fn conf_dev_003_the_runner_only_moves_time_forward() {
    for s in all_scenarios() {
        for s in [s.clone(), with_reference_cpu(&s)] {
            let mut dev = Recording::reference();
            let out = run(&mut dev, &s, reference_cpu_half);
            assert!(out.error.is_none(), "{}: {:?}", s.manifest.name, out.error);
            assert!(!dev.batches.is_empty());
            check_time_moves_forward(&s.manifest.name, &dev.batches);
        }
    }
}

/// CONF-RUN-008: the runner delivers every inject record at its time, in record order; in a
/// scenario that scripts its CPU half, a batch ends only where an injected SACK or NACK
/// comes (the runner must first see which EV the device used for the packet acknowledged),
/// and the last one at the end of the scenario, `drain_ns` after its last record. Every
/// SACK and NACK opens the batch that follows the one that ended at its time. (Where the
/// runner plays the reference agent, its batches also end at the agent's deadlines and
/// shortest delay, which the recordings' exact replay checks.)
#[test]
fn conf_run_005_inject_records_are_delivered_in_order_in_batches_cut_at_feedback() {
    let mut cut_somewhere = false;
    for s in all_scenarios() {
        if s.manifest.cpu != CpuHalf::Scripted {
            continue;
        }
        let name = s.manifest.name.clone();
        let mut dev = Recording::reference();
        let out = run(&mut dev, &s, reference_cpu_half);
        assert!(out.error.is_none(), "{name}: {:?}", out.error);
        // Every record, in order, at its time; only SACKs and NACKs may have new bytes.
        let want = inject_inputs(&s);
        let got = dev.inputs();
        assert_eq!(got.len(), want.len(), "{name}: inputs delivered");
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.at, w.at, "{name}: input {k} is delivered at its time");
            match (&g.input, &w.input) {
                (Input::Frame { port: a, bytes: x }, Input::Frame { port: b, bytes: y })
                    if is_feedback(y) =>
                {
                    assert_eq!(a, b, "{name}: input {k}");
                    assert!(is_feedback(x), "{name}: input {k}");
                }
                _ => assert_eq!(g.input, w.input, "{name}: input {k}"),
            }
        }
        // Where the batches end.
        let last = s.records.iter().map(|r| r.at.0).max().unwrap_or(0);
        let end = Timestamp(last + s.manifest.tolerances.drain_ns);
        let (tail, head) = dev.batches.split_last().expect("at least one batch");
        assert_eq!(tail.until, end, "{name}: the last batch runs to the end");
        for (k, b) in head.iter().enumerate() {
            let next = &dev.batches[k + 1];
            let first = next.inputs.first().unwrap_or_else(|| panic!("{name}: empty batch {k}"));
            let Input::Frame { bytes, .. } = &first.input else {
                panic!("{name}: batch {k} ends at {} without a SACK or NACK to inject", b.until)
            };
            // CONF-RUN-008: a batch also ends at a hold point (a transport ACK or an
            // endpoint response answering the device).
            let held = decode(bytes).bth.is_some_and(|b| {
                b.opcode == Opcode::MRC_ACKNOWLEDGE || b.opcode == Opcode::MRC_ENDPOINT_RESPONSE
            });
            assert!(
                is_feedback(bytes) || held,
                "{name}: batch {k} ends before a frame that is neither feedback nor a hold point"
            );
            assert_eq!(first.at, b.until, "{name}: batch {k}");
            cut_somewhere = true;
        }
        // A SACK or NACK never comes inside a batch after other inputs than hold points.
        let held = |bytes: &[u8]| {
            decode(bytes).bth.is_some_and(|b| {
                b.opcode == Opcode::MRC_ACKNOWLEDGE || b.opcode == Opcode::MRC_ENDPOINT_RESPONSE
            })
        };
        for (k, b) in dev.batches.iter().enumerate() {
            let feedback: Vec<bool> = b
                .inputs
                .iter()
                .map(|i| matches!(&i.input, Input::Frame { bytes, .. } if is_feedback(bytes) || held(bytes)))
                .collect();
            let leading = feedback.iter().take_while(|f| **f).count();
            assert!(
                b.inputs[leading..]
                    .iter()
                    .all(|i| !matches!(&i.input, Input::Frame { bytes, .. } if is_feedback(bytes))),
                "{name}: batch {k} has a SACK or NACK after another input"
            );
        }
    }
    assert!(cut_somewhere, "no scenario injects feedback");
}

/// CONF-RUN-002: with `cpu = "reference"`, the runner feeds every report the device
/// produces to the reference recovery agent and injects the agent's commands into the
/// device at the start of the next batch. Checked over the whole corpus, replayed with the
/// runner's agent in place of the recorded CPU half, against an agent of the test's own
/// fed the same reports: each batch opens with exactly the commands that agent gives once
/// the batch before has run, no CPU command comes anywhere else, and no batch runs past the
/// agent's next deadline (CONF-RUN-008).
#[test]
fn conf_run_002_the_runner_plays_the_reference_cpu_half() {
    use openrdma_device::NicEvent;
    use openrdma_sm::RecoveryAgent;
    let (mut commands, mut deadline_cuts) = (0, 0);
    for s in all_scenarios() {
        let replay = with_reference_cpu(&s);
        let name = replay.manifest.name.clone();
        let mut dev = Recording::reference();
        let out = run(&mut dev, &replay, reference_cpu_half);
        assert!(out.error.is_none(), "{name}: {:?}", out.error);
        let mut agent = RecoveryAgent::new((&replay.manifest.recovery).into());
        let mut due: Vec<TimedInput> = Vec::new();
        let mut deadline: Option<Timestamp> = None;
        let mut prev_until = Timestamp::ZERO;
        for (k, b) in dev.batches.iter().enumerate() {
            // CONF-RUN-008: a batch runs no further than the agent's next deadline.
            if let Some(d) = deadline {
                assert!(
                    b.until <= d.max(prev_until),
                    "{name}: batch {k} runs past the agent's deadline {d}"
                );
                deadline_cuts += usize::from(b.until == d);
            }
            let given: Vec<TimedInput> =
                b.inputs.iter().filter(|i| matches!(i.input, Input::Cpu { .. })).cloned().collect();
            assert_eq!(given, due, "{name}: the CPU commands of batch {k}");
            assert!(
                b.inputs.iter().take(due.len()).all(|i| matches!(i.input, Input::Cpu { .. })),
                "{name}: batch {k} does not open with the agent's commands"
            );
            commands += due.len();
            for o in &b.outputs {
                if let Output::Event { event: NicEvent::Report(r) } = &o.output {
                    agent.handle_report(o.at, r);
                }
            }
            if agent.poll_timeout().is_some_and(|d| d <= b.until) {
                agent.handle_timeout(b.until);
            }
            due.clear();
            while let Some(command) = agent.poll_command() {
                due.push(TimedInput { at: b.until, input: Input::Cpu { command } });
            }
            deadline = agent.poll_timeout();
            prev_until = b.until;
        }
        assert!(due.is_empty(), "{name}: the agent's last commands were never injected");
    }
    assert!(commands >= 10, "the agent gave only {commands} commands over the corpus");
    assert!(deadline_cuts > 0, "no batch ended at an agent's deadline");
}

/// The device's QP for each peer QP, from the scenario's QP set-up.
fn local_qps(s: &Scenario) -> HashMap<u32, u32> {
    s.records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Host { command: HostCommand::CreateQp(q) } => {
                Some((q.peer_qpn.value(), q.qpn.value()))
            }
            _ => None,
        })
        .collect()
}

/// CONF-MAP-002: before injecting a SACK or NACK into a sending device, the runner writes
/// into its `entropy` the EV the device last used for the PSN acknowledged — the SACK's
/// `cack_psn + ack_psn_offset`, the NACK's `nack_psn` — and computes the ICRC again; a SACK
/// that answers a probe keeps the entropy it was recorded with when the scenario scripts its
/// CPU half, and otherwise takes the EV of the device's own probe with that `probe_id`.
/// CONF-MAP-003: the timestamp the feedback reflects (CC_STATE or NETH `tx_timestamp`) is
/// the one the device put on that transmission or probe, whoever scripts the CPU half.
/// Shown with a device that sprays at random, whose EVs are not the reference's.
#[test]
fn conf_map_002_injected_acknowledgements_follow_the_device_s_evs() {
    let kind = find("spray-random").expect("the random-spray variant");
    let (mut rewritten, mut probes, mut stamped) = (0, 0, 0);
    for s in all_scenarios() {
        let name = s.manifest.name.clone();
        let mut dev = Recording::new(Mutant::new(kind));
        if !s.manifest.requires.is_subset(&dev.capabilities()) {
            continue;
        }
        let out = run(&mut dev, &s, reference_cpu_half);
        assert!(out.error.is_none(), "{name}: {:?}", out.error);
        let local = local_qps(&s);
        let recorded: Vec<Vec<u8>> = inject_inputs(&s)
            .into_iter()
            .filter_map(|i| match i.input {
                Input::Frame { bytes, .. } if is_feedback(&bytes) => Some(bytes),
                _ => None,
            })
            .collect();
        let mut recorded = recorded.into_iter();
        // The EV of the device's latest transmission of (its QP, PSN), and of its probes by
        // (its QP, probe ID), batch by batch.
        let mut evs: HashMap<(u32, u32), Ev> = HashMap::new();
        let mut probe_evs: HashMap<(u32, u16), Ev> = HashMap::new();
        // The TSETH timestamp of that transmission, and the PETH timestamp of that probe.
        let mut stamps: HashMap<(u32, u32), u16> = HashMap::new();
        let mut probe_stamps: HashMap<(u32, u16), u16> = HashMap::new();
        for b in &dev.batches {
            for i in &b.inputs {
                let Input::Frame { bytes, .. } = &i.input else { continue };
                if !is_feedback(bytes) {
                    continue;
                }
                let was = recorded.next().expect("as many feedback frames as recorded");
                let d = decode(bytes);
                assert_eq!(d.icrc, IcrcStatus::Ok, "{name}: the ICRC is computed again");
                assert!(
                    !matches!(d.udp_checksum(), openrdma_codec::frame::UdpChecksum::Bad { .. }),
                    "{name}: the UDP checksum is computed again"
                );
                let qp = d.bth.expect("a BTH").dest_qp.value();
                let (psn, entropy, probe) = match (d.ext.seth, d.ext.neth) {
                    (Some(seth), _) => (seth.ack_psn().value(), seth.entropy, seth.pr),
                    (_, Some(neth)) => (neth.nack_psn.value(), neth.entropy, false),
                    _ => panic!("{name}: feedback without SETH or NETH"),
                };
                let reflected = d.ext.cc_state.map(|c| c.tx_timestamp);
                let reflected = reflected.or(d.ext.neth.map(|n| n.tx_timestamp));
                let id = d.ext.seth.map_or(0, |x| x.ack_psn_offset as u16);
                let sent_stamp =
                    if probe { probe_stamps.get(&(qp, id)) } else { stamps.get(&(qp, psn)) };
                if let (Some(r), Some(&t)) = (reflected, sent_stamp) {
                    assert_eq!(r, t, "{name}: CONF-MAP-003, the timestamp reflected for {psn}");
                    stamped += 1;
                }
                if probe && s.manifest.cpu == CpuHalf::Scripted {
                    let recorded = decode(&was).ext.seth.expect("a recorded probe answer");
                    assert_eq!(
                        entropy, recorded.entropy,
                        "{name}: a scripted probe answer keeps its recorded EV"
                    );
                    probes += 1;
                } else if probe {
                    let sent = probe_evs.get(&(qp, id));
                    assert_eq!(
                        sent,
                        Some(&entropy),
                        "{name}: a probe answer names the device's probe"
                    );
                    probes += 1;
                } else if let Some(&ev) = evs.get(&(qp, psn)) {
                    assert_eq!(entropy, ev, "{name}: the entropy of the SACK or NACK for {psn}");
                    rewritten += usize::from(bytes != &was);
                } else {
                    assert_eq!(bytes, &was, "{name}: feedback for a PSN the device never sent");
                }
            }
            for (_, bytes) in frames(&b.outputs) {
                let d = decode(&bytes);
                let Some(bth) = d.bth else { continue };
                let Some(&q) = local.get(&bth.dest_qp.value()) else { continue };
                if bth.opcode.is_mrc_write() {
                    evs.insert((q, bth.psn.value()), d.entropy().unwrap_or_default());
                    if let Some(t) = d.ext.tseth {
                        stamps.insert((q, bth.psn.value()), t.tx_timestamp);
                    }
                } else if let Some(peth) = d.ext.peth {
                    probe_evs.insert((q, peth.probe_id), d.entropy().unwrap_or_default());
                    probe_stamps.insert((q, peth.probe_id), peth.tx_timestamp);
                }
            }
        }
    }
    assert!(rewritten > 20, "only {rewritten} acknowledgements needed another EV");
    assert!(probes > 0, "no probe answer was injected");
    assert!(stamped > 20, "only {stamped} injected frames reflected a timestamp");
}

/// CONF-RUN-004 (and CONF-ADP-009, CONF-DEV-005): a device error ends the scenario — the
/// runner gives no further batch — and decides its verdict: `unsupported` when the device
/// declines, at start or at a later batch, and `fail`, with the device's message in the
/// report, for any other error. The next scenario starts the device again.
#[test]
fn conf_run_004_a_device_error_ends_the_scenario() {
    let spec = Spec::bundled().unwrap();
    let s = scenario("snd-single-loss");
    let cases = [
        (FailAt::Start(DeviceError::Unsupported("no such board".into())), Verdict::Unsupported),
        (FailAt::Advance(1, DeviceError::Unsupported("too long".into())), Verdict::Unsupported),
        (FailAt::Start(DeviceError::Failed("DMA engine stuck".into())), Verdict::Fail),
        (FailAt::Advance(0, DeviceError::Failed("DMA engine stuck".into())), Verdict::Fail),
        (
            FailAt::Advance(2, DeviceError::Timeout { what: "outputs".into(), after_ms: 5 }),
            Verdict::Fail,
        ),
        (FailAt::Advance(1, DeviceError::Protocol("outputs: seq 7".into())), Verdict::Fail),
    ];
    for (fail, verdict) in cases {
        let mut dev = Recording::reference();
        dev.fail = Some(fail.clone());
        let r = run_one(&mut dev, reference_cpu_half, &s, &spec);
        assert_eq!(r.verdict, verdict, "{fail:?}");
        assert_eq!(dev.calls_after_failure, 0, "{fail:?}: the scenario went on after the error");
        let message = match &fail {
            FailAt::Start(e) | FailAt::Advance(_, e) => e.clone(),
        };
        let shown = r.device_error.clone().unwrap_or_default();
        match &message {
            DeviceError::Unsupported(why) => assert_eq!(&shown, why, "{fail:?}"),
            other => assert_eq!(shown, other.to_string(), "{fail:?}"),
        }
        // The device is started again for the next scenario, and passes it.
        dev.fail = None;
        let next = run_one(&mut dev, reference_cpu_half, &s, &spec);
        assert_eq!((next.verdict, dev.starts), (Verdict::Pass, 2), "{fail:?}");
    }
}

/// CONF-RUN-003 and CONF-DEV-005: a device that does not claim a capability a scenario
/// requires is not run on it — it is not even started — and the verdict is `unsupported`,
/// never `fail`; the report names what it lacks.
#[test]
fn conf_dev_005_a_missing_capability_is_unsupported_not_failed() {
    let spec = Spec::bundled().unwrap();
    let mut unsupported = 0;
    for s in all_scenarios() {
        for cap in s.manifest.requires.iter().copied() {
            let mut dev = Recording::reference();
            dev.without.insert(cap);
            let r = run_one(&mut dev, reference_cpu_half, &s, &spec);
            assert_eq!(r.verdict, Verdict::Unsupported, "{} without {cap:?}", s.manifest.name);
            assert_eq!((dev.starts, dev.batches.len()), (0, 0), "{}", s.manifest.name);
            let lacks = r.device_error.unwrap_or_default();
            let cap_name = openrdma_conformance::protocol::capability_name(cap);
            assert!(lacks.contains(&cap_name), "{lacks}");
            unsupported += 1;
        }
    }
    assert!(unsupported > 100, "{unsupported}");
}

/// Runs `inputs` on the reference device in the batches that `cuts` gives (the index of
/// the first input of each batch after the first), each batch running to the time of the
/// next batch's first input, the last to `end`; checks that every output comes back in
/// the batch during which it was produced.
fn run_in_batches(
    s: &Scenario,
    inputs: &[TimedInput],
    cuts: &[usize],
    end: Timestamp,
) -> Vec<TimedOutput> {
    let mut dev = ReferenceDevice::new();
    dev.start(&s.manifest).unwrap();
    let mut out = Vec::new();
    let mut from = 0;
    let mut prev_until = Timestamp::ZERO;
    for k in cuts.iter().copied().chain([inputs.len()]) {
        let until = inputs.get(k).map_or(end, |i| i.at);
        let batch = dev.advance(inputs[from..k].to_vec(), until).unwrap();
        for o in &batch {
            assert!(
                o.at >= prev_until && o.at <= until,
                "{}: an output at {} is outside its batch [{prev_until}, {until}]",
                s.manifest.name,
                o.at
            );
        }
        out.extend(batch);
        prev_until = until;
        from = k;
    }
    out
}

/// CONF-DEV-002, for the reference device's harness: it applies the inputs of a batch in
/// order, each at its time, and returns every output produced within the batch with its
/// time; so what it produces does not depend on how the inputs are batched: all in one
/// batch, one batch per input, or the runner's batches.
#[test]
fn conf_dev_002_outputs_do_not_depend_on_the_batching() {
    for s in all_scenarios() {
        let name = &s.manifest.name;
        let out = reference_run(&s);
        let inputs = out.injected.clone();
        let end = out.observed.last().map_or(Timestamp::ZERO, |o| o.at);
        let end = end.max(inputs.last().map_or(Timestamp::ZERO, |i| i.at));
        let one = run_in_batches(&s, &inputs, &[], end);
        let each: Vec<usize> = (1..inputs.len()).collect();
        let per_input = run_in_batches(&s, &inputs, &each, end);
        let upto: Vec<TimedOutput> = out.observed.iter().filter(|o| o.at <= end).cloned().collect();
        assert_eq!(one, upto, "{name}: one batch against the runner's batches");
        assert_eq!(per_input, upto, "{name}: one batch per input against the runner's batches");
    }
}

/// CONF-DEV-004, for the harnesses of the suite (the reference device, every faulty device
/// and every variant): starting a scenario gives a NIC just configured from the manifest,
/// with nothing kept from the scenarios run before on the same device.
#[test]
fn conf_dev_004_a_started_scenario_keeps_nothing_from_the_last() {
    let corpus = all_scenarios();
    // The reference device (`None`), and every faulty device and variant.
    let make = |kind: Option<&'static faults::Fault>| -> Box<dyn Device> {
        match kind {
            None => Box::new(ReferenceDevice::new()),
            Some(k) => Box::new(Mutant::new(k)),
        }
    };
    let kinds = std::iter::once(None).chain(faults::devices().chain(faults::variants()).map(Some));
    for kind in kinds {
        let label = kind.map_or("reference", |k| k.name);
        let mut reused = make(kind);
        let caps = reused.capabilities();
        for s in corpus.iter().filter(|s| s.manifest.requires.is_subset(&caps)) {
            let again = run(reused.as_mut(), s, reference_cpu_half);
            let new = run(make(kind).as_mut(), s, reference_cpu_half);
            assert_eq!(again.error, new.error, "{label} / {}", s.manifest.name);
            assert!(
                again.observed == new.observed,
                "{label} / {}: a reused device behaves differently from a fresh one",
                s.manifest.name
            );
        }
    }
}

/// CONF-MEM-001: host memory reads `a mod 251` at every address `a`, wrapping at the top of
/// the address space; and every payload byte the reference harness gives a sending device
/// to read — every data packet of the corpus — follows the pattern, so that a read from a
/// wrong address shows.
#[test]
fn conf_mem_001_host_memory_holds_the_pattern() {
    for a in [0u64, 1, 250, 251, 252, 4095, 4096, 0x1000_0000, u64::MAX - 1, u64::MAX] {
        assert_eq!(u64::from(memory_byte(a)), a % 251, "{a:#x}");
    }
    let run = memory(u64::MAX - 2, 5);
    assert_eq!(
        run,
        [(u64::MAX - 2) % 251, (u64::MAX - 1) % 251, u64::MAX % 251, 0, 1].map(|x| x as u8)
    );
    assert_eq!(
        memory(0x1000, 300),
        (0x1000u64..0x1000 + 300).map(|a| (a % 251) as u8).collect::<Vec<_>>()
    );
    let mut packets = 0;
    for s in all_scenarios() {
        let out = reference_run(&s);
        for o in &out.observed {
            let Output::Frame { bytes, .. } = &o.output else { continue };
            let d = decode(bytes);
            if !d.bth.is_some_and(|b| b.opcode.is_mrc_write()) || d.payload.len() < 2 {
                continue;
            }
            for w in d.payload.windows(2) {
                assert_eq!(
                    u16::from(w[1]),
                    (u16::from(w[0]) + 1) % 251,
                    "{}: a payload that is not read from the pattern",
                    s.manifest.name
                );
            }
            packets += 1;
        }
    }
    assert!(packets > 100, "only {packets} data packets");
}

/// A run's outputs read back from a capture of them: what `openrdma check` judges.
fn captured(s: &Scenario, observed: &[TimedOutput]) -> Vec<TimedOutput> {
    use openrdma_conformance::file::{read_observed_bytes, write_scenario};
    use openrdma_device::Record;
    let records = observed
        .iter()
        .map(|o| Record {
            at: o.at,
            dir: Direction::Expect,
            body: match &o.output {
                Output::Frame { port, bytes } => Body::Frame { port: *port, bytes: bytes.clone() },
                Output::Event { event } => Body::Event { event: event.clone() },
            },
            checks: vec![],
        })
        .collect();
    let capture = Scenario { manifest: s.manifest.clone(), records };
    let mut bytes = Vec::new();
    write_scenario(&capture, &mut bytes).unwrap();
    read_observed_bytes(&bytes, "capture.pcapng").unwrap()
}

/// CONF-DEV-001: a device is judged only by what it produces at its boundary for the inputs
/// it is given there. Its outputs alone, written to a capture and read back, are judged
/// exactly as the live run is, for the reference and for every faulty device.
#[test]
fn conf_dev_001_a_device_is_judged_by_its_boundary_alone() {
    let corpus = all_scenarios();
    let mut failures = 0;
    for kind in faults::devices() {
        for s in &corpus {
            let out = run(&mut Mutant::new(kind), s, reference_cpu_half);
            let live = judge(s, &out.injected, &out.observed);
            let offline = judge(s, &out.injected, &captured(s, &out.observed));
            assert_eq!(live, offline, "faulty:{} / {}", kind.name, s.manifest.name);
            failures += usize::from(!live.divergences.is_empty());
        }
    }
    assert!(failures > 0);
    let s = scenario("snd-single-loss");
    let out = reference_run(&s);
    assert_eq!(judge(&s, &out.injected, &captured(&s, &out.observed)).divergences, vec![]);
}

/// A device that brings its own CPU half and still shows the reports of its NIC half at
/// the boundary, as a device may (they are not judged, CONF-CMP-020): the reference NIC
/// half, started as if the scenario scripted its CPU half, so that every report comes out.
struct ShowsItsReports(ReferenceDevice);

impl Device for ShowsItsReports {
    fn name(&self) -> String {
        "shows-its-reports".into()
    }

    fn capabilities(&self) -> std::collections::BTreeSet<openrdma_device::Capability> {
        self.0.capabilities()
    }

    fn start(&mut self, manifest: &openrdma_device::Manifest) -> Result<(), DeviceError> {
        let mut m = manifest.clone();
        m.cpu = CpuHalf::Scripted;
        self.0.start(&m)
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        self.0.advance(inputs, until)
    }
}

/// Runs `s`, whose device brings its own CPU half, on `inner`, and checks that the runner
/// played none (CONF-RUN-006): every record of the scenario injected at its time and
/// nothing else, and batches cut only where an injected SACK or NACK must follow the
/// device's EVs.
fn runs_without_a_cpu_half<D: Device>(s: &Scenario, inner: D) -> Recording<D> {
    let name = &s.manifest.name;
    let mut dev = Recording::new(inner);
    let out = run(&mut dev, s, reference_cpu_half);
    assert!(out.error.is_none(), "{name}: {:?}", out.error);
    let want = inject_inputs(s);
    let got = dev.inputs();
    assert_eq!(got.len(), want.len(), "{name}: inputs delivered");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.at, w.at, "{name}: input {k}");
        match (&g.input, &w.input) {
            (Input::Frame { bytes: x, .. }, Input::Frame { bytes: y, .. }) if is_feedback(y) => {
                assert!(is_feedback(x), "{name}: input {k}");
            }
            _ => assert_eq!(g.input, w.input, "{name}: input {k}"),
        }
    }
    for (k, b) in dev.batches.iter().enumerate().skip(1) {
        let first = b.inputs.first().map(|i| &i.input);
        assert!(
            matches!(first, Some(Input::Frame { bytes, .. }) if is_feedback(bytes)),
            "{name}: batch {} ends at {} without feedback to inject",
            k - 1,
            dev.batches[k - 1].until
        );
    }
    dev
}

/// CONF-RUN-006: with `cpu = "device"` the runner plays no CPU half: it injects every
/// record of the scenario at its time and nothing else — no CPU command, even from a device
/// that shows reports an agent would act on — and never cuts a batch at an agent's
/// deadline.
#[test]
fn conf_run_006_with_the_device_s_own_cpu_half_the_runner_plays_none() {
    use openrdma_device::NicEvent;
    use openrdma_sm::RecoveryAgent;
    let mut scenarios = 0;
    let mut would_command = 0;
    for s in all_scenarios().into_iter().filter(|s| s.manifest.cpu == CpuHalf::Device) {
        scenarios += 1;
        runs_without_a_cpu_half(&s, ReferenceDevice::new());
        let dev = runs_without_a_cpu_half(&s, ShowsItsReports(ReferenceDevice::new()));
        // What the runner's agent would have done with those reports.
        let mut agent = RecoveryAgent::new((&s.manifest.recovery).into());
        for b in &dev.batches {
            for o in &b.outputs {
                if let Output::Event { event: NicEvent::Report(r) } = &o.output {
                    agent.handle_report(o.at, r);
                }
            }
            if agent.poll_timeout().is_some_and(|d| d <= b.until) {
                agent.handle_timeout(b.until);
            }
            while agent.poll_command().is_some() {
                would_command += 1;
            }
        }
    }
    assert!(scenarios >= 3, "only {scenarios} scenarios with cpu = \"device\"");
    assert!(would_command > 0, "no report the device gave would have moved an agent");
}

/// REC-TEST-004: with `cpu = "device"` the reference adapter starts its own CPU half
/// configured by the manifest's `recovery` table. The same scenario with a timeout twice
/// as long passes with a CPU half that ignores the table and fails with one that takes it.
#[test]
fn rec_test_004_the_device_s_own_cpu_half_takes_the_manifest_s_recovery_table() {
    let spec = Spec::bundled().unwrap();
    let mut changed = 0;
    for s in all_scenarios().into_iter().filter(|s| s.manifest.cpu == CpuHalf::Device) {
        let r = run_one(&mut ReferenceDevice::new(), reference_cpu_half, &s, &spec);
        assert_eq!(r.verdict, Verdict::Pass, "{}", s.manifest.name);
        let mut longer = s.clone();
        longer.manifest.recovery.rto *= 2;
        let r = run_one(&mut ReferenceDevice::new(), reference_cpu_half, &longer, &spec);
        if r.verdict == Verdict::Fail {
            changed += 1;
        }
    }
    assert!(changed >= 3, "only {changed} scenarios show the CPU half's rto");
}

/// How the device behind a [`BusHarness`] writes a completion entry to its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryWrites {
    /// One naturally aligned 32-byte write, as CQE-RING-003 requires.
    Whole,
    /// Byte 31, the owner byte, first; then bytes 0 to 30.
    OwnerFirst,
}

/// When a [`BusHarness`] presents an entry as a `completion` event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presents {
    /// When byte 31 of the slot becomes visible, with the 32 bytes the slot holds then
    /// (CONF-DEV-006).
    AtByte31,
    /// After every write to the slot: more than one event for one entry.
    EveryWrite,
    /// When the last write of the entry lands, whatever its order.
    AtLastWrite,
}

/// A harness that presents a device's memory writes as events, as an RTL testbench's bus
/// model does: the device inside is the reference NIC, whose completion entries are turned
/// into the bus writes [`EntryWrites`] gives; the harness keeps the bytes of every slot of
/// the rings the host set up, and presents each entry as [`Presents`] says, naming its queue
/// and slot from the address alone.
struct BusHarness {
    inner: ReferenceDevice,
    writes: EntryWrites,
    presents: Presents,
    rings: Vec<openrdma_device::CqConfig>,
    slots: HashMap<u64, [u8; 32]>,
}

impl BusHarness {
    fn new(writes: EntryWrites, presents: Presents) -> Self {
        BusHarness {
            inner: ReferenceDevice::new(),
            writes,
            presents,
            rings: Vec::new(),
            slots: HashMap::new(),
        }
    }

    /// The event for the entry at `addr`, written by the engine of `side`, from the slot's
    /// bytes as they are now. (The side is the engine's that issued the write, as a bus
    /// model sees it, not read from bytes that may be stale.)
    fn present(&self, side: openrdma_device::Side, addr: u64) -> openrdma_device::NicEvent {
        use openrdma_codec::host::CompletionRepr;
        use openrdma_device::{CompletionEvent, CqWrite, NicEvent};
        let ring = self
            .rings
            .iter()
            .find(|r| addr >= r.base && addr - r.base < 32 * u64::from(r.entries))
            .expect("an entry inside a ring the host set up");
        let bytes = self.slots[&addr];
        let entry = CompletionRepr::parse(&bytes).expect("32 bytes decode");
        let slot = ((addr - ring.base) / 32) as u32;
        NicEvent::Completion(CompletionEvent {
            side,
            entry,
            queue: Some(CqWrite { cq: ring.cq, slot, addr, bytes }),
        })
    }
}

impl Device for BusHarness {
    fn name(&self) -> String {
        format!("bus-harness:{:?}:{:?}", self.writes, self.presents)
    }

    fn capabilities(&self) -> std::collections::BTreeSet<openrdma_device::Capability> {
        self.inner.capabilities()
    }

    fn start(&mut self, manifest: &openrdma_device::Manifest) -> Result<(), DeviceError> {
        self.rings.clear();
        self.slots.clear();
        self.inner.start(manifest)
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        use openrdma_device::NicEvent;
        for i in &inputs {
            if let Input::Host { command: HostCommand::CreateCq(c) } = &i.input {
                self.rings.push(*c);
            }
        }
        let mut out = Vec::new();
        for o in self.inner.advance(inputs, until)? {
            let Output::Event { event: NicEvent::Completion(c) } = &o.output else {
                out.push(o);
                continue;
            };
            let Some(q) = c.queue else {
                out.push(o);
                continue;
            };
            // Each bus write as the bytes [from, to) of the slot.
            let writes: &[(usize, usize)] = match self.writes {
                EntryWrites::Whole => &[(0, 32)],
                EntryWrites::OwnerFirst => &[(31, 32), (0, 31)],
            };
            for (n, &(from, to)) in writes.iter().enumerate() {
                let slot = self.slots.entry(q.addr).or_insert([0; 32]);
                slot[from..to].copy_from_slice(&q.bytes[from..to]);
                let now = match self.presents {
                    Presents::AtByte31 => (from..to).contains(&31),
                    Presents::EveryWrite => true,
                    Presents::AtLastWrite => n == writes.len() - 1,
                };
                if now {
                    out.push(TimedOutput {
                        at: o.at,
                        output: Output::Event { event: self.present(c.side, q.addr) },
                    });
                }
            }
        }
        Ok(out)
    }
}

/// CONF-DEV-006, and the CQE-RING-003 it makes observable: a harness that presents each
/// completion entry as one event at the time byte 31 became visible, with the slot's 32
/// bytes then, presents a device that writes its entries whole exactly as the reference
/// reports them; and a device that writes the owner byte first is then seen with the
/// slot's stale bytes and fails under CQE-RING-003. A harness that presents an entry once
/// per write fails every such scenario; one that waits for the entry's last write hides the
/// device's fault — the scoreboard cannot tell, which is why the rule binds the harness.
#[test]
fn conf_dev_006_a_memory_watching_harness_presents_each_entry_at_byte_31() {
    use openrdma_device::Capability;
    let queued: Vec<Scenario> = all_scenarios()
        .into_iter()
        .filter(|s| s.manifest.requires.contains(&Capability::CompletionQueues))
        .collect();
    assert!(queued.len() >= 3);
    for s in &queued {
        let name = &s.manifest.name;
        let want = reference_run(s).observed;
        let out = run(
            &mut BusHarness::new(EntryWrites::Whole, Presents::AtByte31),
            s,
            reference_cpu_half,
        );
        assert!(out.error.is_none(), "{name}: {:?}", out.error);
        assert_eq!(out.observed, want, "{name}: entries written whole, presented at byte 31");
    }
    for name in ["ret-cq-wrap", "rcv-cq-receive", "db-reject-queues"] {
        let s = scenario(name);
        let judged = |writes, presents| {
            let out = run(&mut BusHarness::new(writes, presents), &s, reference_cpu_half);
            assert!(out.error.is_none(), "{name}: {:?}", out.error);
            judge(&s, &out.injected, &out.observed).divergences
        };
        let d = judged(EntryWrites::OwnerFirst, Presents::AtByte31);
        assert!(
            d.iter().any(|d| d.requirement == "CQE-RING-003"),
            "{name}: the owner byte first, seen at byte 31: {d:#?}"
        );
        let d = judged(EntryWrites::Whole, Presents::EveryWrite);
        assert_eq!(d, vec![], "{name}: one write, one event");
        let d = judged(EntryWrites::OwnerFirst, Presents::EveryWrite);
        assert!(d.iter().any(|d| !d.should_only), "{name}: two events for one entry");
        let d = judged(EntryWrites::OwnerFirst, Presents::AtLastWrite);
        assert_eq!(d, vec![], "{name}: a harness that waits for the last write hides it");
    }
}
