//! Fuzz body of the judge: a scenario's reference outputs, changed in the ways a faulty or
//! hostile device could change them, are judged. Everything a device sends is outside
//! input: the runner's re-timing and the judge must return a judgement for any output list,
//! never panic. A list changed in a way the judge must see (an entry, a flag or placed bytes
//! gone, a frame cut or with a wrong ICRC) must not pass.
//!
//! The changes are read from bytes ([`Unstructured`]), so that the fuzz target and the
//! seeded robustness test of the corpus share one mutator.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use arbitrary::{Result, Unstructured};
use openrdma_codec::frame::decode;
use openrdma_codec::host::{COMPLETION_LEN, CompletionRepr};
use openrdma_codec::{Ev, Msn, NackReason, Psn, Qpn};
use openrdma_conformance::file;
use openrdma_conformance::judge::{Judgement, Scope};
use openrdma_conformance::runner::{RunOutcome, run};
use openrdma_device::{NicEvent, NicReport, Output, Payload, Scenario, TimedOutput, Timestamp};
use openrdma_sm::{ReferenceDevice, reference_cpu_half};

/// A scenario and the reference device's run of it.
#[derive(Debug, Clone)]
pub struct Reference {
    /// The scenario.
    pub scenario: Scenario,
    /// The reference device's run: its inputs as delivered, its outputs, its lag.
    pub run: RunOutcome,
}

impl Reference {
    /// Runs the reference device on `scenario`.
    pub fn of(scenario: Scenario) -> Reference {
        let run = run(&mut ReferenceDevice::new(), &scenario, reference_cpu_half);
        Reference { scenario, run }
    }

    /// Judges `observed` in place of the reference's outputs, as the suite judges a run.
    pub fn judge(&self, observed: Vec<TimedOutput>, scope: Scope) -> Judgement {
        let run = RunOutcome { observed, ..self.run.clone() };
        run.judge(&self.scenario, scope)
    }
}

/// An output list changed by [`mutate`].
#[derive(Debug, Clone)]
pub struct Mutated {
    /// The changed outputs.
    pub outputs: Vec<TimedOutput>,
    /// The changes made, in order, each with the index of the output it changed.
    pub changes: Vec<(&'static str, usize)>,
    /// Whether the judge must find a divergence: one change was made, and it is one the
    /// judge must see.
    pub must_fail: bool,
}

/// One change to `outputs`, chosen by `u`: its name, the index it touched, and whether the
/// judge must see it.
fn change(
    u: &mut Unstructured<'_>,
    outputs: &mut Vec<TimedOutput>,
) -> Result<(&'static str, usize, bool)> {
    if outputs.is_empty() {
        return Ok(("none", 0, false));
    }
    let i = u.choose_index(outputs.len())?;
    let essential = is_essential(&outputs[i].output);
    let kind = u.int_in_range(0u8..=13)?;
    Ok(match kind {
        0 => {
            let j = u.choose_index(outputs.len())?;
            let (a, b) = (outputs[i].at, outputs[j].at);
            outputs[i].at = b;
            outputs[j].at = a;
            ("times swapped", i, false)
        }
        1 => {
            outputs[i].at = Timestamp(u.int_in_range(0u64..=255)?);
            ("time near 0", i, false)
        }
        2 => {
            // A flag or an entry is bounded late (CONF-TIME-006); a DMA write only by its
            // order before its flag (CONF-CMP-034), which its place in the list keeps.
            let bounded = is_retirement(&outputs[i].output);
            outputs[i].at = Timestamp(u64::MAX - u.int_in_range(0u64..=255)?);
            ("time near the top", i, bounded)
        }
        3 => {
            let copy = outputs[i].clone();
            let completion = is_completion(&copy.output);
            outputs.insert(i + 1, copy);
            ("duplicated", i, completion)
        }
        4 => {
            outputs.remove(i);
            ("dropped", i, essential)
        }
        5 => frame_bytes(u, &mut outputs[i])?.map_or(("none", i, false), |(n, f)| (n, i, f)),
        6 => ("dma edge", i, dma_edge(u, &mut outputs[i].output)?),
        7 => {
            let extra = top_write(u, &outputs[i])?;
            outputs.insert(i, extra);
            ("write at the top", i, true)
        }
        8 | 9 => ("event extremes", i, event_extremes(u, &mut outputs[i].output)?),
        10 => ("no such qp", i, no_such_qp(&mut outputs[i].output)),
        11 => ("frame fields", i, frame_fields(u, &mut outputs[i].output)?),
        12 => {
            let j = u.choose_index(outputs.len())?;
            outputs.swap(i, j);
            ("positions swapped", i, false)
        }
        _ => {
            let at = outputs[i].at;
            outputs[i].at = Timestamp(at.0.wrapping_add(u.arbitrary::<u64>()?));
            ("time shifted", i, false)
        }
    })
}

/// An output whose loss the judge must see: a completion, a flag or placed bytes.
fn is_essential(o: &Output) -> bool {
    match o {
        Output::Event { event: NicEvent::Completion(_) | NicEvent::FlagWrite(_) } => true,
        Output::Event { event: NicEvent::DmaWrite(w) } => !w.payload.is_empty(),
        _ => false,
    }
}

/// A flag write or a completion entry.
fn is_retirement(o: &Output) -> bool {
    matches!(o, Output::Event { event: NicEvent::Completion(_) | NicEvent::FlagWrite(_) })
}

fn is_completion(o: &Output) -> bool {
    matches!(o, Output::Event { event: NicEvent::Completion(_) })
}

/// A frame's bytes flipped, cut or extended. A cut frame, or one with a flipped ICRC byte,
/// must fail; a flip elsewhere may hit a field the judge leaves to the device, and bytes
/// added after the IP packet are Ethernet padding.
fn frame_bytes(
    u: &mut Unstructured<'_>,
    o: &mut TimedOutput,
) -> Result<Option<(&'static str, bool)>> {
    let Output::Frame { bytes, .. } = &mut o.output else { return Ok(None) };
    if bytes.is_empty() {
        return Ok(None);
    }
    Ok(Some(match u.int_in_range(0u8..=3)? {
        0 => {
            let k = u.choose_index(bytes.len())?;
            bytes[k] ^= u.int_in_range(1u8..=255)?;
            ("frame byte flipped", k + 4 >= bytes.len())
        }
        1 => {
            let k = u.choose_index(bytes.len())?;
            bytes.truncate(k);
            ("frame truncated", true)
        }
        2 => {
            let n = u.int_in_range(1usize..=64)?;
            for _ in 0..n {
                bytes.push(u.arbitrary()?);
            }
            // Bytes after the IP packet are Ethernet padding (ENC-LEN-003): legal.
            ("frame extended", false)
        }
        _ => {
            let n = bytes.len();
            bytes[n - 1] ^= 0x01;
            ("icrc flipped", true)
        }
    }))
}

/// A DMA write made empty, or moved to the top of the address space (where its end
/// wraps). Either must fail when the write carried bytes.
fn dma_edge(u: &mut Unstructured<'_>, o: &mut Output) -> Result<bool> {
    let Output::Event { event: NicEvent::DmaWrite(w) } = o else { return Ok(false) };
    let carried = !w.payload.is_empty();
    if u.arbitrary()? {
        w.payload = Payload::Bytes(Arc::from(Vec::new()));
    } else {
        w.va = u64::MAX - u.int_in_range(0u64..=64)?;
    }
    Ok(carried)
}

/// A DMA write of a few bytes at the top of the address space, for the QP of `near` (or
/// QP 1), at its time: bytes no scenario expects.
fn top_write(u: &mut Unstructured<'_>, near: &TimedOutput) -> Result<TimedOutput> {
    let qpn = match &near.output {
        Output::Event { event: NicEvent::DmaWrite(w) } => w.qpn,
        _ => Qpn::new(1),
    };
    let len = u.int_in_range(1usize..=80)?;
    let bytes: Vec<u8> = (0..len).map(|k| k as u8).collect();
    let write = openrdma_device::DmaWrite {
        qpn,
        psn: Psn::new(u.arbitrary()?),
        msn: Msn::new(u.arbitrary()?),
        va: u64::MAX - u.int_in_range(0u64..=16)?,
        payload: Payload::Bytes(Arc::from(bytes)),
    };
    Ok(TimedOutput { at: near.at, output: Output::Event { event: NicEvent::DmaWrite(write) } })
}

/// Every field of a completion, a flag or a report at 0 or at its maximum. A completion or
/// a flag that changed must fail.
fn event_extremes(u: &mut Unstructured<'_>, o: &mut Output) -> Result<bool> {
    let Output::Event { event } = o else { return Ok(false) };
    let top: bool = u.arbitrary()?;
    let (w32, w64, byte) = if top { (u32::MAX, u64::MAX, 0xFF) } else { (0, 0, 0) };
    match event {
        NicEvent::Completion(c) => {
            let before = *c;
            let bytes = [byte; COMPLETION_LEN];
            let entry = CompletionRepr::parse(&bytes).unwrap_or_default();
            c.entry = entry;
            if let Some(q) = c.queue.as_mut() {
                q.bytes = bytes;
                q.slot = w32;
                q.addr = w64;
            }
            Ok(*c != before)
        }
        NicEvent::FlagWrite(f) => {
            let before = *f;
            f.qpn = Qpn::new(w32);
            f.msn = Msn::new(w32 as u16);
            f.addr = w64;
            f.value = w64;
            Ok(*f != before)
        }
        NicEvent::Report(r) => {
            report_extremes(r, w32);
            Ok(false)
        }
        NicEvent::DmaWrite(w) => {
            w.qpn = Qpn::new(w32);
            w.psn = Psn::new(w32);
            w.msn = Msn::new(w32 as u16);
            Ok(false)
        }
    }
}

/// Every number of a report at `w` (0 or all ones), cut to its width.
fn report_extremes(r: &mut NicReport, w: u32) {
    let (qp, psn, ev) = (Qpn::new(w), Psn::new(w), Ev::new(w));
    match r {
        NicReport::Progress { qpn, snd_una, outstanding, awaiting_ack } => {
            (*qpn, *snd_una, *outstanding, *awaiting_ack) = (qp, psn, w, w);
        }
        NicReport::Armed { qpn, snd_una } => (*qpn, *snd_una) = (qp, psn),
        NicReport::Nack { qpn, psn: p, reason } => {
            (*qpn, *p, *reason) = (qp, psn, NackReason(w as u8));
        }
        NicReport::EvMarked { qpn, ev: e, .. }
        | NicReport::EvState { qpn, ev: e, .. }
        | NicReport::ProbeAnswered { qpn, ev: e, .. } => (*qpn, *e) = (qp, ev),
        NicReport::Retransmitted { qpn, psn: p, lost_ev, .. } => {
            (*qpn, *p, *lost_ev) = (qp, psn, Some(ev));
        }
        NicReport::QpError { qpn, .. } => *qpn = qp,
        NicReport::EndpointResponse { ev: e, request_id, status, port_status, .. } => {
            (*e, *request_id, *status, *port_status) = (ev, w, w as u8, w);
        }
    }
}

/// An event moved to a QP no scenario creates. A completion, a flag or placed bytes of
/// another QP must fail.
fn no_such_qp(o: &mut Output) -> bool {
    let nowhere = Qpn::new(0x00FF_FFFE);
    let essential = is_essential(o);
    let Output::Event { event } = o else { return false };
    match event {
        NicEvent::DmaWrite(w) => w.qpn = nowhere,
        NicEvent::FlagWrite(f) => f.qpn = nowhere,
        NicEvent::Completion(c) => {
            c.entry.qpn = nowhere;
            if let Some(q) = c.queue.as_mut() {
                let mut entry = q.entry();
                entry.qpn = nowhere;
                q.bytes = entry.to_bytes();
            }
        }
        NicEvent::Report(r) => report_extremes(r, nowhere.value()),
    }
    essential
}

/// A frame's destination QP, PSN and EV set to extremes, its ICRC computed again. A frame
/// sent to another QP must fail.
fn frame_fields(u: &mut Unstructured<'_>, o: &mut Output) -> Result<bool> {
    let Output::Frame { bytes, .. } = o else { return Ok(false) };
    let Some(mut f) = decode(bytes).to_repr() else { return Ok(false) };
    let top: bool = u.arbitrary()?;
    let w = if top { u32::MAX } else { 0 };
    let moved = f.bth.dest_qp != Qpn::new(w);
    f.bth.dest_qp = Qpn::new(w);
    if u.arbitrary()? {
        f.bth.psn = Psn::new(w);
    }
    if let Some(seth) = f.ext.seth.as_mut() {
        seth.entropy = Ev::new(w);
    }
    f.icrc = None;
    match f.to_bytes() {
        Ok(b) => {
            *bytes = b;
            Ok(moved)
        }
        Err(_) => Ok(false),
    }
}

/// Up to eight changes of `outputs`, read from `u`.
pub fn mutate(u: &mut Unstructured<'_>, outputs: &[TimedOutput]) -> Mutated {
    let mut out = outputs.to_vec();
    let mut changes = Vec::new();
    let mut must_fail = false;
    // Half the lists take one change, so that what the judge must see is seen alone.
    let n = if u.arbitrary().unwrap_or(true) { 1 } else { u.int_in_range(2u8..=8).unwrap_or(2) };
    for k in 0..n {
        let Ok((name, i, fail)) = change(u, &mut out) else { break };
        changes.push((name, i));
        if k == 0 {
            must_fail = fail;
        }
    }
    let must_fail = must_fail && changes.len() == 1;
    Mutated { outputs: out, changes, must_fail }
}

/// The scope of a judgement, read from `u`: every capability, or one taken away.
pub fn scope(u: &mut Unstructured<'_>) -> Scope {
    match u.int_in_range(0u8..=5).unwrap_or(0) {
        3 => Scope { retirement: false, ..Scope::FULL },
        4 => Scope { cpu_split: false, ..Scope::FULL },
        5 => Scope { unmarked: false, ..Scope::FULL },
        _ => Scope::FULL,
    }
}

/// Changes the reference's outputs as `data` says and judges them; whether the change was
/// one the judge must see. Panics when such a change passes (the judge itself panicking is
/// what the fuzzer looks for).
pub fn judge_changed(reference: &Reference, data: &[u8]) -> bool {
    let mut u = Unstructured::new(data);
    let scope = scope(&mut u);
    let m = mutate(&mut u, &reference.run.observed);
    let judged = reference.judge(m.outputs, scope);
    let must_fail = m.must_fail && scope == Scope::FULL;
    if must_fail {
        let i = m.changes.first().map_or(0, |c| c.1);
        assert!(
            !judged.divergences.is_empty(),
            "{}: {:?} of {:?} passes",
            reference.scenario.manifest.name,
            m.changes,
            reference.run.observed.get(i)
        );
    }
    must_fail
}

/// The committed scenarios' stems, sorted.
fn stems() -> &'static [PathBuf] {
    static STEMS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    STEMS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/scenarios");
        let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        v.retain(|p| p.extension().is_some_and(|x| x == "toml"));
        v.iter_mut().for_each(|p| {
            p.set_extension("");
        });
        v.sort();
        v
    })
}

/// The reference run of the committed scenario `k`, run once and kept.
fn reference(k: usize) -> Option<Arc<Reference>> {
    static RUNS: OnceLock<Mutex<HashMap<usize, Arc<Reference>>>> = OnceLock::new();
    let runs = RUNS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut runs = runs.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = runs.get(&k) {
        return Some(r.clone());
    }
    let scenario = file::load(stems().get(k)?).ok()?;
    let r = Arc::new(Reference::of(scenario));
    runs.insert(k, r.clone());
    Some(r)
}

/// The fuzz target: the first two bytes pick a committed scenario, the rest change its
/// reference outputs ([`judge_changed`]).
pub fn judge_outputs(data: &[u8]) {
    let [a, b, rest @ ..] = data else { return };
    let n = stems().len();
    if n == 0 {
        return;
    }
    let k = usize::from(u16::from_le_bytes([*a, *b])) % n;
    if let Some(r) = reference(k) {
        judge_changed(&r, rest);
    }
}
