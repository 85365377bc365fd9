//! Faults of the NIC half's side of the interface with the CPU half (recovery chapter,
//! section 3): a command acted on as another case of REC-RTO-004, a commanded probe sent
//! after data, reports of one QP delivered out of the order they were produced in. Each
//! names the scenarios written to catch it.

use std::collections::HashMap;

use openrdma_codec::frame::decode;
use openrdma_codec::{Opcode, Psn, SethRepr};
use openrdma_conformance::req;
use openrdma_device::{
    CpuCommand, Input, Manifest, NicEvent, NicReport, Output, TimedInput, TimedOutput, Timestamp,
};

use super::qps::Qps;
use super::{Batch, Fault, Stream, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    stream(
        "retransmit-from-snd-una",
        "a Retransmit command is taken as one of snd_una whatever PSN it names, so a command for a SACKed PSN retransmits the oldest unacknowledged PSN instead of the oldest one from the named PSN on that is not SACKed",
        &[req::REC_RTO_004_A],
        &["rec-nic-commands"],
        |_| Box::new(Commands { mode: Mode::FromSndUna, ..Commands::default() }),
    ),
    stream(
        "stale-retransmit-taken",
        "a Retransmit command for a PSN already acknowledged is taken as one of snd_una, so it retransmits an outstanding PSN where it must change nothing",
        &[req::REC_RTO_004_E],
        &["rec-nic-commands"],
        |_| Box::new(Commands { mode: Mode::StaleTaken, ..Commands::default() }),
    ),
    stream(
        "no-sacked-resend",
        "a Retransmit command for a PSN that, with every outstanding PSN after it, is SACKed sends nothing, so a QP whose cumulative SACK was lost never completes",
        &[req::REC_RTO_004_B],
        &["rec-nic-commands"],
        |_| Box::new(Commands { mode: Mode::NoSackedResend, ..Commands::default() }),
    ),
    stream(
        "commanded-probe-after-data",
        "the probe queue is served after new data, so a probe the CPU half commands at the instant new data becomes ready goes after that data",
        &[req::REC_IF_011, req::SND_SCHED_001],
        &["rec-nic-commands"],
        |_| Box::new(ProbeAfterData),
    ),
    stream(
        "armed-overtaken",
        "Armed reports reach the CPU half through a queue slower than the other reports' by half of late_ns, so a Progress of the QP produced after an Armed is delivered before it",
        &[req::REC_IF_015],
        &["rec-nic-commands"],
        |m| Box::new(ArmedOvertaken::new(m)),
    ),
];

/// Which command fault a [`Commands`] stream is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Every Retransmit command is taken as one of snd_una (REC-RTO-004.a).
    #[default]
    FromSndUna,
    /// A Retransmit command for a PSN before snd_una is taken as one of snd_una
    /// (REC-RTO-004.e).
    StaleTaken,
    /// The resend of a SACKed PSN (REC-RTO-004.b) is not sent, nor reported.
    NoSackedResend,
}

/// A NIC half that follows each QP's `snd_una` from the SACKs it takes, and gets one case
/// of REC-RTO-004 wrong ([`Mode`]).
#[derive(Debug, Default)]
struct Commands {
    mode: Mode,
    qps: Qps,
    /// Each device QP's `snd_una`, from its initial PSN and the SACKs it took.
    snd_una: HashMap<u32, Psn>,
    /// The SACKs each device QP took.
    sacks: HashMap<u32, Vec<SethRepr>>,
}

impl Commands {
    /// Whether device QP `local` took a SACK whose bitmap shows `psn` arrived while no
    /// SACK's cumulative PSN covers it.
    fn sacked_ahead(&self, local: u32, psn: Psn) -> bool {
        let una = self.snd_una.get(&local).copied();
        let ahead = una.is_none_or(|u| !psn.is_before(u));
        ahead && self.sacks.get(&local).is_some_and(|s| s.iter().any(|x| x.is_sacked(psn)))
    }
}

impl Stream for Commands {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            if let Some(q) = self.qps.learn(&i.input) {
                self.snd_una.insert(q.qpn.value(), q.initial_psn);
                self.sacks.remove(&q.qpn.value());
                continue;
            }
            match &mut i.input {
                Input::Frame { bytes, .. } => {
                    let d = decode(bytes);
                    let (Some(bth), Some(seth)) = (d.bth, d.ext.seth) else { continue };
                    if seth.pr {
                        continue;
                    }
                    let q = bth.dest_qp.value();
                    let next = seth.cack_psn.add(1);
                    let una = self.snd_una.entry(q).or_insert(next);
                    if una.is_before(next) {
                        *una = next;
                    }
                    self.sacks.entry(q).or_default().push(seth);
                }
                Input::Cpu { command: CpuCommand::Retransmit { qpn, psn } } => {
                    let Some(&una) = self.snd_una.get(&qpn.value()) else { continue };
                    let take = match self.mode {
                        Mode::FromSndUna => true,
                        Mode::StaleTaken => psn.is_before(una),
                        Mode::NoSackedResend => false,
                    };
                    if take {
                        *psn = una;
                    }
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        if self.mode != Mode::NoSackedResend {
            return outputs;
        }
        // The resends of SACKed PSNs this batch would send, by device QP and PSN.
        let mut dropped: Vec<(u32, Psn)> = Vec::new();
        outputs.retain(|o| match &o.output {
            Output::Frame { bytes, .. } => {
                let d = decode(bytes);
                let Some(b) = d.bth.filter(|b| b.rtx && b.opcode.is_mrc_write()) else {
                    return true;
                };
                let Some(local) = self.qps.local(b.dest_qp.value()) else { return true };
                if self.sacked_ahead(local, b.psn) {
                    dropped.push((local, b.psn));
                    return false;
                }
                true
            }
            Output::Event { .. } => true,
        });
        outputs.retain(|o| match &o.output {
            Output::Event {
                event: NicEvent::Report(NicReport::Retransmitted { qpn, psn, .. }),
            } => !dropped.contains(&(qpn.value(), *psn)),
            _ => true,
        });
        outputs
    }
}

/// Probes sent after the data packets of their QP that leave at the same instant.
#[derive(Debug)]
struct ProbeAfterData;

impl Stream for ProbeAfterData {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let key = |o: &TimedOutput| -> Option<(Opcode, u32)> {
            let Output::Frame { bytes, .. } = &o.output else { return None };
            let b = decode(bytes).bth?;
            Some((b.opcode, b.dest_qp.value()))
        };
        let mut i = 0;
        while i < outputs.len() {
            let Some((Opcode::MRC_PROBE, qp)) = key(&outputs[i]) else {
                i += 1;
                continue;
            };
            let at = outputs[i].at;
            let last_data = (i + 1..outputs.len())
                .take_while(|&j| outputs[j].at == at)
                .filter(|&j| key(&outputs[j]).is_some_and(|(op, q)| q == qp && op.is_mrc_write()))
                .last();
            match last_data {
                Some(j) => {
                    let probe = outputs.remove(i);
                    outputs.insert(j, probe);
                }
                None => i += 1,
            }
        }
        outputs
    }
}

/// Armed reports held back by `delay` ns: one is delivered at once after the next report
/// of its QP, if that comes first, else when its delay has passed.
#[derive(Debug)]
struct ArmedOvertaken {
    delay: u64,
    /// Held Armed reports, with the time each is due.
    held: Vec<(u64, TimedOutput)>,
}

impl ArmedOvertaken {
    fn new(m: &Manifest) -> Self {
        ArmedOvertaken { delay: (m.tolerances.late_ns / 2).max(1), held: Vec::new() }
    }
}

/// The QP of a report.
fn report_qpn(o: &TimedOutput) -> Option<u32> {
    let Output::Event { event: NicEvent::Report(r) } = &o.output else { return None };
    r.qpn().map(|q| q.value())
}

impl Stream for ArmedOvertaken {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, batch: Batch<'_>) -> Vec<TimedOutput> {
        let mut out: Vec<TimedOutput> = Vec::with_capacity(outputs.len());
        for o in outputs {
            // Held reports whose delay passed before this output go first, in time order.
            self.held.sort_by_key(|(at, _)| *at);
            while self.held.first().is_some_and(|(at, _)| *at <= o.at.0) {
                let (at, mut h) = self.held.remove(0);
                h.at = Timestamp(at);
                out.push(h);
            }
            let armed = matches!(
                &o.output,
                Output::Event { event: NicEvent::Report(NicReport::Armed { .. }) }
            );
            if armed {
                self.held.push((o.at.0 + self.delay, o));
                continue;
            }
            let qp = report_qpn(&o);
            let at = o.at;
            out.push(o);
            // A later report of the QP overtakes the Armed reports held for it.
            if let Some(qp) = qp {
                let mut k = 0;
                while k < self.held.len() {
                    if report_qpn(&self.held[k].1) == Some(qp) {
                        let (_, mut h) = self.held.remove(k);
                        h.at = at;
                        out.push(h);
                    } else {
                        k += 1;
                    }
                }
            }
        }
        // Those due by the end of the batch.
        self.held.sort_by_key(|(at, _)| *at);
        while self.held.first().is_some_and(|(at, _)| *at <= batch.until.0) {
            let (at, mut h) = self.held.remove(0);
            h.at = Timestamp(at);
            out.push(h);
        }
        out
    }
}
