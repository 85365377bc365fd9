//! Everything the judge reads, decoded once at the start of a judgement: the device's
//! outputs, the scenario's expectations and the inputs delivered. Every family of checks
//! reads these; none decodes a frame again.

use openrdma_codec::frame::{DecodedFrame, decode};
use openrdma_codec::{Ev, Msn, Opcode};
use openrdma_device::{
    Body, Direction, Input, NicEvent, Output, Record, Scenario, TimedInput, TimedOutput,
};

/// The run, decoded once.
pub(super) struct Obs<'a> {
    /// The device's frames, in the order it sent them.
    pub(super) frames: Vec<Frame<'a>>,
    /// The device's events with their times, in the order it gave them.
    pub(super) events: Vec<(u64, &'a NicEvent)>,
    /// The expected frames, with their records.
    pub(super) exp_frames: Vec<(&'a Record, Frame<'a>)>,
    /// The expected events, with their records.
    pub(super) exp_events: Vec<(&'a Record, &'a NicEvent)>,
    /// The inputs as delivered, in order, each frame decoded.
    pub(super) inputs: Vec<In<'a>>,
    /// The records the scenario injects, as it records them, each frame decoded.
    pub(super) injects: Vec<Injected<'a>>,
}

/// A record the scenario injects, with its frame decoded when it is one.
pub(super) struct Injected<'a> {
    pub(super) rec: &'a Record,
    pub(super) frame: Option<DecodedFrame<'a>>,
}

impl Injected<'_> {
    /// When the scenario injects it.
    pub(super) fn at(&self) -> u64 {
        self.rec.at.0
    }
}

/// The records `scenario` injects, each frame decoded, in the scenario's order.
pub(super) fn injects_of(scenario: &Scenario) -> Vec<Injected<'_>> {
    scenario
        .injects()
        .map(|rec| Injected {
            rec,
            frame: match &rec.body {
                Body::Frame { bytes, .. } => Some(decode(bytes)),
                _ => None,
            },
        })
        .collect()
}

/// One input as delivered.
pub(super) struct In<'a> {
    pub(super) at: u64,
    pub(super) input: &'a Input,
    /// The frame, decoded, when the input is one.
    pub(super) frame: Option<Frame<'a>>,
}

impl<'a> Obs<'a> {
    /// Decodes a run of `scenario`.
    pub(super) fn new(
        scenario: &'a Scenario,
        injected: &'a [TimedInput],
        observed: &'a [TimedOutput],
    ) -> Obs<'a> {
        let mut exp_frames = Vec::new();
        let mut exp_events = Vec::new();
        for r in scenario.records.iter().filter(|r| r.dir == Direction::Expect) {
            match &r.body {
                Body::Frame { bytes, .. } => exp_frames.push((r, classify(r.at.0, bytes))),
                Body::Event { event } => exp_events.push((r, event)),
                _ => {}
            }
        }
        let mut frames = Vec::new();
        let mut events = Vec::new();
        for o in observed {
            match &o.output {
                Output::Frame { bytes, .. } => frames.push(classify(o.at.0, bytes)),
                Output::Event { event } => events.push((o.at.0, event)),
            }
        }
        let inputs = injected
            .iter()
            .map(|i| In {
                at: i.at.0,
                input: &i.input,
                frame: match &i.input {
                    Input::Frame { bytes, .. } => Some(classify(i.at.0, bytes)),
                    _ => None,
                },
            })
            .collect();
        Obs { frames, events, exp_frames, exp_events, inputs, injects: injects_of(scenario) }
    }
}

/// A frame, decoded once, with the fields the judge reasons about.
#[derive(Debug, Clone)]
pub(super) struct Frame<'a> {
    pub(super) at: u64,
    pub(super) bytes: &'a [u8],
    /// Its headers, payload and ICRC verdict.
    pub(super) d: DecodedFrame<'a>,
    pub(super) kind: Kind,
    /// The EV it travels on (ENC-EV-003).
    pub(super) ev: Ev,
}

/// What a frame is, with the fields that identify it. An ACK's `high` is AETH `msn` bits
/// 23:16 (AETH-MSN-001.b): an ACK with them set is not an ACK of the MSN in bits 15:0, so it
/// never passes for one repeated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    Data { qp: u32, psn: u32, rtx: bool },
    Sack { qp: u32, cack: u32, base: u32, bitmap: u64 },
    Nack { qp: u32, psn: u32, reason: u8 },
    Ack { qp: u32, msn: Msn, syndrome: u8, high: u8 },
    Probe { qp: u32 },
    Endpoint { op: u8, request_id: u32 },
    EndpointRequest { op: u8, request_id: u32 },
    Other { error: Option<String> },
}

/// Decodes and classifies a frame sent or delivered at `at`.
pub(super) fn classify(at: u64, bytes: &[u8]) -> Frame<'_> {
    let d = decode(bytes);
    let ev = d.entropy().unwrap_or_default();
    let kind = kind_of(&d);
    Frame { at, bytes, d, kind, ev }
}

pub(super) fn kind_of(d: &DecodedFrame<'_>) -> Kind {
    let Some(bth) = d.bth.filter(|_| d.error.is_none()) else {
        return Kind::Other { error: d.error.map(|e| e.to_string()) };
    };
    let qp = bth.dest_qp.value();
    match bth.opcode {
        op if op.is_mrc_write() => Kind::Data { qp, psn: bth.psn.value(), rtx: bth.rtx },
        // An RC or UC Send or Write carries data where an MRC write is due (OPC-MRC-002): a
        // data packet with the wrong opcode, compared with the write of its PSN.
        op if matches!(op.0, 0x00..=0x0B | 0x20..=0x2B) => {
            Kind::Data { qp, psn: bth.psn.value(), rtx: false }
        }
        Opcode::MRC_SACK => match &d.ext.seth {
            Some(s) => Kind::Sack {
                qp,
                cack: s.cack_psn.value(),
                base: s.bitmap_base().value(),
                bitmap: s.sack_bitmap,
            },
            None => Kind::Other { error: None },
        },
        Opcode::MRC_NACK => match &d.ext.neth {
            Some(n) => Kind::Nack { qp, psn: n.nack_psn.value(), reason: n.reason.0 },
            None => Kind::Other { error: None },
        },
        Opcode::MRC_ACKNOWLEDGE => match &d.ext.aeth {
            Some(a) => Kind::Ack { qp, msn: a.msn.msn(), syndrome: a.syndrome, high: a.msn.high() },
            None => Kind::Other { error: None },
        },
        Opcode::MRC_PROBE => Kind::Probe { qp },
        Opcode::MRC_ENDPOINT_RESPONSE => match &d.ext.eeth {
            Some(e) => Kind::Endpoint { op: e.op.0, request_id: e.request_id },
            None => Kind::Other { error: None },
        },
        Opcode::MRC_ENDPOINT_REQUEST => match &d.ext.erth {
            Some(e) => Kind::EndpointRequest { op: e.op.0, request_id: e.request_id },
            None => Kind::Other { error: None },
        },
        _ => Kind::Other { error: None },
    }
}

/// Whether `frames` hold a first transmission of PSN `psn` to peer QP `qp`: one more is a
/// PSN sent twice as new (SND-PSN-001), whatever state its QP is in by then.
pub(super) fn sent_new(frames: &[Frame<'_>], qp: u32, psn: u32) -> bool {
    frames.iter().any(|f| f.kind == Kind::Data { qp, psn, rtx: false })
}
