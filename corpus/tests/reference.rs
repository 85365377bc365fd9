//! The reference model passes every scenario of the corpus, as recorded, and so do devices
//! that make the choices the specification leaves open otherwise.

use std::collections::BTreeSet;

use openrdma_conformance::runner::run;
use openrdma_conformance::scoreboard::{Scope, judge};
use openrdma_corpus as corpus;
use openrdma_device::{
    Capability, Device, DeviceError, HostCommand, Input, Manifest, SprayPolicy, TimedInput,
    TimedOutput, Timestamp,
};
use openrdma_sm::{ReferenceDevice, reference_cpu_half};

/// CONF-GEN-008: the reference model passes every scenario of the corpus.
#[test]
fn reference_passes_the_corpus() {
    for (name, build) in corpus::all() {
        let s = build();
        assert!(
            s.records.iter().any(|r| r.dir == openrdma_device::Direction::Expect),
            "{name}: nothing expected"
        );
        let mut dev = ReferenceDevice::new();
        let out = run(&mut dev, &s, reference_cpu_half);
        assert!(out.error.is_none(), "{name}: {:?}", out.error);
        let j = judge(&s, &out.injected, &out.observed);
        assert!(
            j.divergences.is_empty(),
            "{name}: {:#?}",
            &j.divergences[..j.divergences.len().min(3)]
        );
        assert!(j.checked > 0, "{name}");
    }
}

/// A replay of the reference reproduces its recording exactly, record for record and
/// nanosecond for nanosecond, the tolerances unused: with the CPU half scripted, and when a
/// CPU half runs live during the replay, the runner's agent, whose commands reach the
/// device at the starts of batches, or the device's own. A recording hands the agent's
/// commands to the device as the runner does (`CONF-GEN-005`, `CONF-RUN-008`), and runs
/// the device's timers before the frames that arrive at the same time, as a device does.
#[test]
fn the_reference_replays_every_recording_exactly() {
    use openrdma_device::{Body, Direction, NicEvent, NicReport, Output};
    let mut live = 0;
    for (name, build) in corpus::all() {
        let s = build();
        if s.manifest.cpu.is_live() {
            live += 1;
        }
        let ev_states = s.records.iter().any(|r| {
            matches!(r.body, Body::Event { event: NicEvent::Report(NicReport::EvState { .. }) })
        });
        let recorded = |e: &NicEvent| match e {
            NicEvent::Report(NicReport::Progress { .. } | NicReport::Armed { .. }) => false,
            NicEvent::Report(NicReport::EvState { .. }) => ev_states,
            _ => true,
        };
        let expected: Vec<(u64, Body)> = s
            .records
            .iter()
            .filter(|r| r.dir == Direction::Expect)
            .map(|r| (r.at.0, r.body.clone()))
            .collect();
        let mut dev = ReferenceDevice::new();
        let out = run(&mut dev, &s, reference_cpu_half);
        assert!(out.error.is_none(), "{name}: {:?}", out.error);
        let observed: Vec<(u64, Body)> = out
            .observed
            .iter()
            .filter_map(|o| match &o.output {
                Output::Frame { port, bytes } => {
                    Some((o.at.0, Body::Frame { port: *port, bytes: bytes.clone() }))
                }
                Output::Event { event } if recorded(event) => {
                    Some((o.at.0, Body::Event { event: event.clone() }))
                }
                Output::Event { .. } => None,
            })
            .collect();
        for (k, (e, o)) in expected.iter().zip(&observed).enumerate() {
            assert_eq!(e, o, "{name}: output {k} differs from the recording");
        }
        assert_eq!(expected.len(), observed.len(), "{name}: outputs");
    }
    assert!(live >= 7, "only {live} scenarios have a live CPU half");
}

/// A recording with a live CPU half that ends while something is still due — here the
/// timer of a packet nothing answers — cuts the replay's drain so that the replay ends
/// where the recording does (`CONF-GEN-005`): the reference passes it, and with the
/// manifest's drain it would not, the replay then seeing an expiry the recording never
/// reached.
#[test]
fn a_live_recording_that_ends_busy_ends_its_replay_with_it() {
    use openrdma_codec::Lkey;
    use openrdma_codec::Qpn;
    use openrdma_codec::host::{WorkRequest, WrOpcode};
    use openrdma_corpus::record::Recorder;
    use openrdma_device::{CpuHalf, HostCommand, Manifest, ManifestVersion, NicSettings, Region};
    for cpu in [CpuHalf::Reference, CpuHalf::Device] {
        let m = Manifest {
            version: ManifestVersion::V1,
            name: "busy-at-the-end".into(),
            description: "A packet nothing answers; the recording ends before its timeout.".into(),
            requirements: vec![],
            requires: Default::default(),
            nic: NicSettings { pmtu: corpus::PMTU, mpr: 1, ..NicSettings::default() },
            cpu,
            recovery: Default::default(),
            ports: 1,
            link: Default::default(),
            tolerances: Default::default(),
            start: Default::default(),
        };
        let mut r = Recorder::with_cpu(m, cpu);
        let region =
            Region { rkey: corpus::RKEY, base: corpus::REGION, len: 0x1000, remote_write: true };
        r.host(0, HostCommand::RegisterRegion(region));
        r.host(0, HostCommand::CreateQp(corpus::qp(corpus::DUT_QP, corpus::PEER_QP, 0)));
        let wr = WorkRequest {
            wr_id: 1,
            qpn: Qpn::new(corpus::DUT_QP),
            opcode: WrOpcode::WRITE,
            local_va: 0x4000_0000,
            lkey: Lkey::new(1),
            remote_va: corpus::REGION,
            rkey: corpus::RKEY,
            length: 64,
            imm: None,
            flag_slot: 0,
            signaled: true,
        };
        r.host(1_000, HostCommand::PostWrite(wr));
        let mut s = r.finish(10_000);
        assert_eq!(s.manifest.tolerances.drain_ns, 9_000, "{cpu:?}: the replay ends at 10 us");
        let out = run(&mut ReferenceDevice::new(), &s, reference_cpu_half);
        let j = judge(&s, &out.injected, &out.observed);
        assert!(j.divergences.is_empty(), "{cpu:?}: {:#?}", j.divergences);
        s.manifest.tolerances.drain_ns = 200_000;
        let out = run(&mut ReferenceDevice::new(), &s, reference_cpu_half);
        let j = judge(&s, &out.injected, &out.observed);
        assert!(!j.divergences.is_empty(), "{cpu:?}: the expiry at 33.8 us went unseen");
    }
}

/// A device that makes a legitimate choice the reference does not: another spray policy
/// than its QPs name (a device that does not claim `spray-policies` sprays its own way),
/// inputs that reach its logic `input_ns` late, outputs that leave it `output_ns` late.
struct Legitimate {
    inner: ReferenceDevice,
    spray: Option<SprayPolicy>,
    input_ns: u64,
    output_ns: u64,
    inputs: Vec<TimedInput>,
    outputs: Vec<TimedOutput>,
}

impl Legitimate {
    fn new(spray: Option<SprayPolicy>, input_ns: u64, output_ns: u64) -> Self {
        Legitimate {
            inner: ReferenceDevice::new(),
            spray,
            input_ns,
            output_ns,
            inputs: Vec::new(),
            outputs: Vec::new(),
        }
    }
}

impl Device for Legitimate {
    fn name(&self) -> String {
        "legitimate".into()
    }

    fn capabilities(&self) -> BTreeSet<Capability> {
        let mut caps = self.inner.capabilities();
        if self.spray.is_some() {
            caps.remove(&Capability::SprayPolicies);
        }
        caps
    }

    fn start(&mut self, manifest: &Manifest) -> Result<(), DeviceError> {
        self.inputs.clear();
        self.outputs.clear();
        self.inner.start(manifest)
    }

    fn advance(
        &mut self,
        inputs: Vec<TimedInput>,
        until: Timestamp,
    ) -> Result<Vec<TimedOutput>, DeviceError> {
        for mut i in inputs {
            if let (Some(spray), Input::Host { command: HostCommand::CreateQp(q) }) =
                (self.spray, &mut i.input)
            {
                q.spray = spray;
            }
            i.at = Timestamp(i.at.0 + self.input_ns);
            self.inputs.push(i);
        }
        let due = self.inputs.iter().take_while(|i| i.at <= until).count();
        let now: Vec<_> = self.inputs.drain(..due).collect();
        for mut o in self.inner.advance(now, until)? {
            o.at = Timestamp(o.at.0 + self.output_ns);
            self.outputs.push(o);
        }
        let due = self.outputs.iter().take_while(|o| o.at <= until).count();
        Ok(self.outputs.drain(..due).collect())
    }
}

/// CONF-CMP-027, CONF-CMP-029, CONF-CMP-036: what the scoreboard holds every device to —
/// the usable pool, the order of packets sent together, a clock that runs forward, and the
/// inference scenarios' retransmissions — does not depend on the reference's own choices:
/// a device that sprays by any other policy passes every scenario that does not pin the
/// policy, and so does one whose inputs reach it, or whose outputs leave it, within the
/// tolerances later than the reference's.
#[test]
fn legitimate_choices_pass_the_corpus() {
    use SprayPolicy::{Fixed, Random, RoundRobin, SkewAware, WindowFit};
    let corpus: Vec<_> = corpus::all().into_iter().map(|(n, b)| (n, b())).collect();
    let devices = [
        (Some(RoundRobin), 0, 0),
        (Some(Random), 0, 0),
        (Some(Fixed), 0, 0),
        (Some(SkewAware), 0, 0),
        (Some(WindowFit), 0, 0),
        (None, 150, 0),
        (None, 0, 300),
    ];
    for (spray, input_ns, output_ns) in devices {
        for (name, s) in &corpus {
            let mut dev = Legitimate::new(spray, input_ns, output_ns);
            if !s.manifest.requires.is_subset(&dev.capabilities()) {
                continue;
            }
            let out = run(&mut dev, s, reference_cpu_half);
            assert!(out.error.is_none(), "{name}: {:?}", out.error);
            let j = out.judge(s, Scope::FULL);
            assert!(
                j.divergences.is_empty(),
                "{spray:?}, inputs {input_ns} ns and outputs {output_ns} ns late, fails {name}: \
                 {:#?}",
                &j.divergences[..j.divergences.len().min(2)]
            );
        }
    }
}
