//! Faults of register width: the device keeps a field in a register narrower than the
//! field, so that values which need its top bits lose them. The scenarios of
//! `scenarios/widths.rs` make each visible.

use std::collections::HashMap;

use openrdma_codec::frame::decode;
use openrdma_codec::host::CompletionRepr;
use openrdma_codec::{Psn, Qpn, Rkey};
use openrdma_conformance::req;
use openrdma_device::{
    CompletionEvent, HostCommand, Input, NicEvent, Output, Payload, Side, TimedInput, TimedOutput,
};

use super::{Batch, Edits, Fault, Stream, fault, payload_bytes, refit};

/// Every register-width fault.
pub static FAULTS: &[Fault] = &[
    fault(
        "va-32bit",
        "every address register is 32 bits: region, local-key, flag-table and completion-queue bases, work-request and template addresses and the RETH va of arriving packets lose bits 63:32",
        &[
            req::RCV_PLACE_003,
            req::SND_SEG_003,
            req::CQE_RING_001,
            req::FLAG_RECV_001,
            req::FLAG_SEND_001,
        ],
        &[
            "rcv-va-high",
            "rcv-va-top",
            "snd-va-high",
            "db-va-high",
            "ret-cq-wrap-1k",
            "rcv-ids-high",
            "snd-ids-high",
        ],
        Edits { host_in: Some(va_32bit_command), stream: Some(|_| Box::new(Va32)), ..Edits::NONE },
    ),
    fault(
        "len-16bit",
        "message lengths are held in 16 bits where headers and completions are built: the RETH dma_len it sends and the byte_len of its flags and completion entries are the length modulo 2^16",
        &[req::SND_SEG_003, req::FLAG_LEN_001, req::FLAG_RECV_002_C, req::FLAG_SEND_001_E],
        &["rcv-length-17bit", "snd-length-17bit", "db-length-17bit"],
        Edits { frame_out: Some(len_16bit_frame), event_out: Some(len_16bit_event), ..Edits::NONE },
    ),
    fault(
        "qpn-16bit",
        "QP numbers are held in 16 bits where frames and completions are built: the dest_qp of every frame it sends and the qpn of its completion entries lose bits 23:16",
        &[req::SND_QPN_001, req::RCV_ACK_002],
        &["rcv-ids-high", "snd-ids-high"],
        Edits { frame_out: Some(qpn_16bit_frame), event_out: Some(qpn_16bit_event), ..Edits::NONE },
    ),
    fault(
        "peer-qpn-16bit",
        "the peer-QPN register is 16 bits: every frame it sends to a peer QP at or above 2^16, data packets, acknowledgements and probes, goes to that QPN modulo 2^16",
        &[
            req::SND_QPN_001,
            req::RCV_SACK_005_A,
            req::RCV_ACK_002_A,
            req::RCV_NACK_001_A,
            req::RCV_NAK_002_A,
            req::EV_PROBE_005_C,
        ],
        &["rcv-ids-high", "snd-ids-high"],
        Edits { frame_out: Some(qpn_16bit_frame), ..Edits::NONE },
    ),
    fault(
        "nack-psn-16bit",
        "the NACKed-PSN register is 16 bits: the NETH nack_psn and the BTH psn of the NACKs it sends lose bits 23:16",
        &[req::NETH_PSN_001, req::RCV_NACK_001_D, req::RCV_NACK_001_G, req::OPC_PSN_002_A],
        &["rcv-window-edges-high-v6"],
        Edits { frame_out: Some(nack_psn_16bit_frame), ..Edits::NONE },
    ),
    fault(
        "rkey-16bit",
        "remote keys are held in 16 bits: regions are registered, work requests and templates stored and arriving RETH rkeys looked up by their low 16 bits, so keys equal there alias",
        &[req::SND_SEG_003, req::RCV_PLACE_002_B, req::RCV_NAK_002],
        &["rcv-ids-high", "snd-ids-high"],
        Edits { stream: Some(|_| Box::<Rkey16>::default()), ..Edits::NONE },
    ),
    fault(
        "wr-id-32bit",
        "work-request IDs are held in 32 bits: the wr_id of its completion entries loses bits 63:32",
        &[req::CQE_SEND_001],
        &["snd-ids-high"],
        Edits { event_out: Some(wr_id_32bit), ..Edits::NONE },
    ),
    fault(
        "cq-base-32bit",
        "a completion queue's base register is 32 bits: the entries of a ring above 4 GiB are written at their slot's address modulo 2^32",
        &[req::CQE_RING_001_A],
        &["ret-cq-wrap-1k"],
        Edits { event_out: Some(cq_base_32bit), ..Edits::NONE },
    ),
    fault(
        "rx-flag-base-32bit",
        "a QP context's retirement-flag base is 32 bits: a table above 4 GiB gets its retirement flags at their slot's address modulo 2^32",
        &[req::FLAG_RECV_001_A],
        &["rcv-va-high"],
        Edits { event_out: Some(rx_flag_base_32bit), ..Edits::NONE },
    ),
    fault(
        "rx-flag-slot-8bit",
        "a retirement flag's slot index is 8 bits: in a table of more than 256 slots, the flag of MSN m goes to slot (m mod rx_flag_slots) mod 256",
        &[req::FLAG_RECV_001_B],
        &["ret-cq-wrap-1k"],
        Edits { stream: Some(|_| Box::<RxFlagSlot8>::default()), ..Edits::NONE },
    ),
    fault(
        "cq-index-10bit",
        "a completion queue's producer index is 10 bits: after 1024 entries it starts again at 0, so the phase of a queue of 1024 entries never flips and larger queues wrap early",
        &[req::CQE_RING_001],
        &["ret-cq-wrap-1k"],
        Edits { stream: Some(|_| Box::<CqIndex10>::default()), ..Edits::NONE },
    ),
];

const LOW: u64 = 0xFFFF_FFFF;

/// A host command as a device with 32-bit addresses stores it.
fn va_32bit_command(command: &mut HostCommand) {
    match command {
        HostCommand::RegisterLocal(r) => r.base &= LOW,
        HostCommand::SetTemplate(t) => {
            t.local_base &= LOW;
            t.remote_base &= LOW;
        }
        HostCommand::PostWrite(w) => {
            w.local_va &= LOW;
            w.remote_va &= LOW;
        }
        _ => {}
    }
}

/// Writes to memory as a 32-bit address register drives them: the address modulo 2^32,
/// and the bytes of a DMA write that cross 2^32 wrapped to 0.
#[derive(Debug)]
struct Va32;

impl Stream for Va32 {
    fn outputs(&mut self, outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        let mut out = Vec::with_capacity(outputs.len());
        for o in outputs {
            let Output::Event { event } = &o.output else {
                out.push(o);
                continue;
            };
            out.extend(
                narrow_address(event)
                    .into_iter()
                    .map(|event| TimedOutput { at: o.at, output: Output::Event { event } }),
            );
        }
        out
    }
}

fn narrow_address(event: &NicEvent) -> Vec<NicEvent> {
    let mut event = event.clone();
    match &mut event {
        NicEvent::DmaWrite(w) => {
            let bytes = payload_bytes(&w.payload);
            let va = w.va & LOW;
            let room = ((LOW + 1) - va) as usize;
            if bytes.len() > room {
                let mut low = w.clone();
                w.va = va;
                w.payload = Payload::Bytes(bytes[..room].into());
                low.va = 0;
                low.payload = Payload::Bytes(bytes[room..].into());
                return vec![event.clone(), NicEvent::DmaWrite(low)];
            }
            w.va = va;
        }
        NicEvent::FlagWrite(f) => f.addr &= LOW,
        NicEvent::Completion(c) => {
            if let Some(q) = c.queue.as_mut() {
                q.addr &= LOW;
            }
        }
        _ => {}
    }
    vec![event]
}

/// The address of a completion entry, its slot right, from a 32-bit queue base.
fn cq_base_32bit(e: &mut NicEvent) -> bool {
    if let NicEvent::Completion(c) = e {
        if let Some(q) = c.queue.as_mut() {
            q.addr &= LOW;
        }
    }
    true
}

/// The address of a retirement flag, its slot right, from a 32-bit table base.
fn rx_flag_base_32bit(e: &mut NicEvent) -> bool {
    if let NicEvent::FlagWrite(f) = e {
        if f.side == Side::Responder {
            f.addr &= LOW;
        }
    }
    true
}

/// The RETH dma_len a device with 16-bit lengths sends.
fn len_16bit_frame(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    let reth = f.ext.reth.as_mut()?;
    if reth.dma_len <= 0xFFFF {
        return None;
    }
    reth.dma_len &= 0xFFFF;
    refit(&mut f).ok()
}

/// The nack_psn of every NACK it sends, and its BTH psn, modulo 2^16.
fn nack_psn_16bit_frame(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    let neth = f.ext.neth.as_mut()?;
    if neth.nack_psn.value() <= 0xFFFF {
        return None;
    }
    neth.nack_psn = Psn::new(neth.nack_psn.value() & 0xFFFF);
    f.bth.psn = Psn::new(f.bth.psn.value() & 0xFFFF);
    refit(&mut f).ok()
}

/// The byte_len of flags and completion entries modulo 2^16.
fn len_16bit_event(e: &mut NicEvent) -> bool {
    match e {
        NicEvent::FlagWrite(f) => f.value &= !0xFFFF_0000,
        NicEvent::Completion(c) => rewrite_entry(c, |e| e.byte_len &= 0xFFFF),
        _ => {}
    }
    true
}

/// The dest_qp of every frame it sends loses bits 23:16.
fn qpn_16bit_frame(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut f = decode(bytes).to_repr()?;
    if f.bth.dest_qp.value() <= 0xFFFF {
        return None;
    }
    f.bth.dest_qp = Qpn::new(f.bth.dest_qp.value() & 0xFFFF);
    refit(&mut f).ok()
}

fn qpn_16bit_event(e: &mut NicEvent) -> bool {
    if let NicEvent::Completion(c) = e {
        rewrite_entry(c, |e| e.qpn = Qpn::new(e.qpn.value() & 0xFFFF));
    }
    true
}

fn wr_id_32bit(e: &mut NicEvent) -> bool {
    if let NicEvent::Completion(c) = e {
        rewrite_entry(c, |e| e.wr_id &= 0xFFFF_FFFF);
    }
    true
}

/// A completion entry changed by `f`, in the bytes written to its queue as well.
pub(super) fn rewrite_entry(c: &mut CompletionEvent, f: impl Fn(&mut CompletionRepr)) {
    f(&mut c.entry);
    if let Some(q) = c.queue.as_mut() {
        let mut e = q.entry();
        f(&mut e);
        let _ = e.emit(&mut q.bytes);
    }
}

/// The key table indexed by the low 16 bits: the last registration under them wins; the
/// keys it stores and sends are 16 bits.
#[derive(Debug, Default)]
struct Rkey16 {
    keys: HashMap<u32, u32>,
}

impl Stream for Rkey16 {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        let key = |k: &mut Rkey| *k = Rkey::new(k.value() & 0xFFFF);
        for i in &mut inputs {
            match &mut i.input {
                Input::Host { command } => match command {
                    HostCommand::RegisterRegion(r) => {
                        self.keys.insert(r.rkey.value() & 0xFFFF, r.rkey.value());
                    }
                    HostCommand::SetTemplate(t) => key(&mut t.remote_rkey),
                    HostCommand::PostWrite(w) => key(&mut w.rkey),
                    _ => {}
                },
                Input::Frame { bytes, .. } => {
                    let keys = &self.keys;
                    rewrite_reth(bytes, |r| {
                        if let Some(&k) = keys.get(&(r.rkey.value() & 0xFFFF)) {
                            r.rkey = Rkey::new(k);
                        }
                    });
                }
                _ => {}
            }
        }
        inputs
    }
}

/// An arriving frame whose RETH the device reads through `f`, its checks made consistent
/// again: the narrowing is inside the device, after the frame was verified.
fn rewrite_reth(bytes: &mut Vec<u8>, f: impl FnOnce(&mut openrdma_codec::RethRepr)) {
    let d = decode(bytes);
    // A frame the device discards is never read.
    if d.ext.reth.is_none() || d.discard_reason().is_some() {
        return;
    }
    if let Some(mut r) = d.to_repr() {
        if let Some(reth) = r.ext.reth.as_mut() {
            f(reth);
        }
        if let Ok(b) = refit(&mut r) {
            *bytes = b;
        }
    }
}

/// The retirement-flag table base of each QP; a flag's slot loses its bits above 7.
#[derive(Debug, Default)]
struct RxFlagSlot8 {
    bases: HashMap<u32, u64>,
}

impl Stream for RxFlagSlot8 {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::CreateQp(q) } = &i.input {
                self.bases.insert(q.qpn.value(), q.recv_flag_base);
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event: NicEvent::FlagWrite(f) } = &mut o.output else { continue };
            let Some(&base) = self.bases.get(&f.qpn.value()) else { continue };
            if f.side == Side::Responder && f.addr >= base {
                let slot = (f.addr - base) / 8;
                f.addr = base + 8 * (slot & 0xFF);
            }
        }
        outputs
    }
}

/// Base, size and entries written of each completion queue: the index counts modulo 2^10,
/// and slot and phase come from it.
#[derive(Debug, Default)]
struct CqIndex10 {
    cqs: HashMap<u32, (u64, u32, u64)>,
}

impl Stream for CqIndex10 {
    fn inputs(&mut self, inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &inputs {
            if let Input::Host { command: HostCommand::CreateCq(c) } = &i.input {
                self.cqs.insert(c.cq.value(), (c.base, c.entries, 0));
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Event { event: NicEvent::Completion(c) } = &mut o.output else { continue };
            let Some(q) = c.queue else { continue };
            let Some((base, entries, count)) = self.cqs.get_mut(&q.cq.value()) else { continue };
            let k = *count % 1024;
            *count += 1;
            let n = u64::from(*entries);
            let slot = (k % n) as u32;
            let phase = (k / n) % 2 == 0;
            rewrite_entry(c, |e| e.phase = phase);
            if let Some(w) = c.queue.as_mut() {
                w.slot = slot;
                w.addr = *base + 32 * u64::from(slot);
            }
        }
        outputs
    }
}
