//! A legitimate variant of the weak-catch reading: a transport ACK builder that lags the
//! data path by half of `late_ns` and reads the QP's last retired MSN when it sends
//! (RCV-ACK-002.a, CONF-TIME-004). With `ack_coalesce` above 1 that MSN may be one the
//! reference retired but did not acknowledge yet. A judge that read the MSNs the recording
//! acknowledged, not the messages it retired, failed it (CONF-CMP-127, decision 52).

use std::collections::{HashMap, HashSet};

use openrdma_codec::frame::decode;
use openrdma_codec::host::FlagRepr;
use openrdma_codec::{AethKind, AethMsn, Msn, Opcode, Psn};
use openrdma_conformance::req::*;
use openrdma_device::{
    HostCommand, Input, NicEvent, Output, Side, TimedInput, TimedOutput, Timestamp,
};

use super::variants::{Variant, variant};
use super::{Batch, Caps, Edits, Stream};

/// The variants of the weak-catch reading.
pub static VARIANTS: &[Variant] = &[variant(
    "acks-read-retired",
    "its transport ACK builder lags the data path by half of late_ns and builds each ACK \
     when it sends it, with the MSN of the last message of the QP retired by then and the \
     PSN of that message's last packet, on the EV of the packet that caused it \
     (RCV-ACK-002.a, CONF-TIME-004)",
    &[CONF_TIME_004],
    Caps::Same,
    Edits {
        stream: Some(|m| {
            Box::new(AcksReadRetired {
                most: m.tolerances.late_ns / 2,
                queue: Vec::new(),
                local_of: HashMap::new(),
                retired: HashMap::new(),
                lasts: HashSet::new(),
                last_psn: HashMap::new(),
            })
        }),
        ..Edits::NONE
    },
)];

/// Holds each positive transport ACK half of late_ns, then builds it from the retirement
/// flags given by then.
#[derive(Debug)]
struct AcksReadRetired {
    most: u64,
    /// Outputs made and not yet given, in time order.
    queue: Vec<TimedOutput>,
    /// Peer QP → device QP, from the QPs created.
    local_of: HashMap<u32, u32>,
    /// Per device QP, the retirement flags given: (time, MSN).
    retired: HashMap<u32, Vec<(u64, Msn)>>,
    /// The (device QP, PSN) of each LAST or ONLY packet injected.
    lasts: HashSet<(u32, u32)>,
    /// Per (device QP, MSN), the PSN of the message's last packet the device placed: a
    /// copy its receive checks discarded (a retired MSN, say) is not one it acknowledges.
    last_psn: HashMap<(u32, u16), Psn>,
}

/// The destination QP of a positive transport ACK.
fn ack_qp(o: &Output) -> Option<u32> {
    let Output::Frame { bytes, .. } = o else { return None };
    let d = decode(bytes);
    let b = d.bth.filter(|b| b.opcode == Opcode::MRC_ACKNOWLEDGE)?;
    let a = d.ext.aeth?;
    (AethKind::of(a.syndrome) == AethKind::Ack && a.msn.high() == 0).then_some(b.dest_qp.value())
}

impl AcksReadRetired {
    /// Notes what the device retired and placed.
    fn note(&mut self, o: &TimedOutput) {
        let Output::Event { event } = &o.output else { return };
        match event {
            NicEvent::DmaWrite(w) if self.lasts.contains(&(w.qpn.value(), w.psn.value())) => {
                self.last_psn.insert((w.qpn.value(), w.msn.value()), w.psn);
            }
            NicEvent::FlagWrite(f)
                if f.side == Side::Responder && FlagRepr::from_u64(f.value).status.is_success() =>
            {
                self.retired.entry(f.qpn.value()).or_default().push((o.at.0, f.msn));
            }
            _ => {}
        }
    }

    /// `ack` rebuilt, at its time, with the last MSN its QP retired by then.
    fn build(&self, ack: &mut TimedOutput) {
        let Some(qp) = ack_qp(&ack.output) else { return };
        let Some(local) = self.local_of.get(&qp) else { return };
        let Some(&(_, msn)) =
            self.retired.get(local).and_then(|r| r.iter().rev().find(|(t, _)| *t <= ack.at.0))
        else {
            return;
        };
        let Output::Frame { bytes, .. } = &mut ack.output else { return };
        let Some(mut f) = decode(bytes).to_repr() else { return };
        let Some(a) = f.ext.aeth.as_mut() else { return };
        if a.msn.msn() == msn {
            return;
        }
        a.msn = AethMsn::from(msn);
        if let Some(&psn) = self.last_psn.get(&(*local, msn.value())) {
            f.bth.psn = psn;
        }
        if let Ok(b) = super::refit(&mut f) {
            *bytes = b;
        }
    }
}

impl Stream for AcksReadRetired {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            match &i.input {
                Input::Host { command: HostCommand::CreateQp(q) } => {
                    self.local_of.insert(q.peer_qpn.value(), q.qpn.value());
                }
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    if let Some(b) = d.bth
                        && d.ext.meth.is_some()
                        && b.opcode.is_mrc_write()
                        && b.opcode.is_last()
                    {
                        self.lasts.insert((b.dest_qp.value(), b.psn.value()));
                    }
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        for o in outputs {
            self.note(&o);
            let late = if ack_qp(&o.output).is_some() { self.most } else { 0 };
            self.queue.push(TimedOutput { at: Timestamp(o.at.0 + late), ..o });
        }
        // Stable: outputs due at one time keep the order in which they were made.
        self.queue.sort_by_key(|o| o.at);
        let n = self.queue.iter().take_while(|o| o.at <= batch.until).count();
        let mut out: Vec<TimedOutput> = self.queue.drain(..n).collect();
        for o in &mut out {
            self.build(o);
        }
        out
    }
}
