//! Faults of the later packets of a message: each packet of an MRC write is placed on its
//! own, so its METH and RETH must agree with the message's first packet (METH-MSN-001,
//! METH-RQMSN-001, RETH-VA-002, RETH-RKEY-001, RETH-LEN-003), and its payload length must
//! fit its position (PAY-LEN-001, PAY-LEN-002). In each the first packet of the message is
//! right; only the packets built after it are wrong, the way a sender that builds the
//! first packet from the work request and the rest from its own registers goes wrong.

use std::collections::HashMap;

use openrdma_codec::frame::{FrameRepr, IpRepr, decode};
use openrdma_codec::{ExtHeader, Opcode};
use openrdma_codec::{Msn, Rkey, Rqmsn};
use openrdma_conformance::req;
use openrdma_device::{Manifest, Output, TimedOutput};

use super::{Batch, Edits, Fault, Stream, fault, sends, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    sends(
        "msn-later-packets-next",
        "the packets after the first of a message carry the next message's MSN",
        &[req::METH_MSN_001, req::SND_MSN_002],
        &["snd-segmentation"],
        |b| {
            later(b, |f| {
                f.ext.meth.as_mut().map(|m| m.msn = Msn::new(m.msn.value().wrapping_add(1)))
            })
        },
    ),
    sends(
        "rqmsn-later-packets-next-imm",
        "the last packet of a multi-packet Write-with-Immediate carries the next rqmsn",
        &[req::METH_RQMSN_001_A, req::SND_RQMSN_002_A],
        &["snd-segmentation"],
        |b| {
            last_of_several(b, true, |f| {
                f.ext.meth.as_mut().map(|m| m.rqmsn = Rqmsn::new(m.rqmsn.value().wrapping_add(1)))
            })
        },
    ),
    sends(
        "rqmsn-later-packets-last-used",
        "the last packet of a multi-packet Write carries the last rqmsn used, not the next",
        &[req::METH_RQMSN_001_B, req::SND_RQMSN_002_B],
        &["snd-segmentation"],
        |b| {
            last_of_several(b, false, |f| {
                f.ext.meth.as_mut().map(|m| m.rqmsn = Rqmsn::new(m.rqmsn.value().wrapping_sub(1)))
            })
        },
    ),
    sends(
        "rkey-later-packets-24-bit",
        "the packets after the first of a message take their rkey from a 24-bit register",
        &[req::RETH_RKEY_001, req::SND_SEG_003_B],
        &["snd-ids-high"],
        |b| {
            later(b, |f| {
                f.ext.reth.as_mut().map(|r| r.rkey = Rkey::new(r.rkey.value() & 0xFF_FFFF))
            })
        },
    ),
    sends(
        "dma-len-later-packets-16-bit",
        "the packets after the first of a message take dma_len from a 16-bit register",
        &[req::RETH_LEN_003, req::SND_SEG_003_C],
        &["snd-length-17bit"],
        |b| later(b, |f| f.ext.reth.as_mut().map(|r| r.dma_len &= 0xFFFF)),
    ),
    sends(
        "va-later-packets-32-bit",
        "the packets after the first of a message take va from a 32-bit adder",
        &[req::RETH_VA_002, req::SND_SEG_003_A],
        &["snd-va-high"],
        |b| later(b, |f| f.ext.reth.as_mut().map(|r| r.va &= 0xFFFF_FFFF)),
    ),
    stream(
        "dma-len-bytes-remaining",
        "dma_len counts the bytes from the packet on, as an IBTA RETH of a later packet would",
        &[req::RETH_LEN_003, req::SND_SEG_003_C],
        &["snd-segmentation"],
        |_| {
            Box::new(Later::new(|f, offset| {
                if let Some(r) = f.ext.reth.as_mut() {
                    r.dma_len = r.dma_len.saturating_sub(offset as u32);
                }
            }))
        },
    ),
    stream(
        "va-not-advanced",
        "the packets after the first of a message carry the first packet's va",
        &[req::RETH_VA_002, req::SND_SEG_003_A],
        &["snd-segmentation"],
        |_| {
            Box::new(Later::new(|f, offset| {
                if let Some(r) = f.ext.reth.as_mut() {
                    r.va = r.va.wrapping_sub(offset);
                }
            }))
        },
    ),
    sends(
        "reth-first-packet-only",
        "the packets after the first of a message carry no RETH, as IBTA's RDMA WRITE MIDDLE and LAST",
        &[req::OPC_WRITE_001, req::OPC_TABLE_001],
        &["snd-segmentation"],
        |b| {
            let d = decode(b);
            let op = d.bth?.opcode;
            if !op.is_mrc_write() || op.is_first() {
                return None;
            }
            let at = d.layout.ext.iter().find(|(h, _)| *h == ExtHeader::Reth)?.1;
            cut(b, at, 16)
        },
    ),
    fault(
        "pmtu-code-one-up",
        "the segmenter reads the PMTU code one size up and sends twice the PMTU per packet",
        &[req::PAY_LEN_001, req::SND_SEG_001],
        &["snd-segmentation"],
        Edits { config: Some(|m: &mut Manifest| pmtu_times(m, 2, 1)), ..Edits::NONE },
    ),
    fault(
        "pmtu-code-one-down",
        "the segmenter reads the PMTU code one size down and sends half the PMTU per packet",
        &[req::PAY_LEN_002, req::SND_SEG_001],
        &["snd-segmentation"],
        Edits { config: Some(|m: &mut Manifest| pmtu_times(m, 1, 2)), ..Edits::NONE },
    ),
    fault(
        "empty-message-no-packet",
        "the segmenter counts ceil(L / PMTU) packets without the floor of one: a Write of 0 bytes sends no packet at all",
        &[req::SND_SEG_001_A],
        &["snd-segmentation"],
        Edits { keep_out: Some(not_empty_write), ..Edits::NONE },
    ),
];

/// Whether an output is anything but the first transmission of a Write of 0 bytes.
fn not_empty_write(o: &Output) -> bool {
    let Output::Frame { bytes, .. } = o else { return true };
    let d = decode(bytes);
    let empty =
        d.bth.is_some_and(|b| b.opcode == Opcode::MRC_WRITE_ONLY && !b.rtx) && d.payload.is_empty();
    !empty
}

/// The PMTU scaled by `num / den`, kept to the sizes a device takes.
fn pmtu_times(m: &mut Manifest, num: u32, den: u32) {
    let p = m.nic.pmtu * num / den;
    if (256..=4096).contains(&p) {
        m.nic.pmtu = p;
    }
}

/// `edit` applied to an MRC write that is not the first packet of its message.
fn later(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> Option<()>) -> Option<Vec<u8>> {
    let op = decode(b).bth?.opcode;
    if !op.is_mrc_write() || op.is_first() {
        return None;
    }
    let mut f = decode(b).to_repr()?;
    edit(&mut f)?;
    emit(f)
}

/// `edit` applied to the LAST packet of a message of several packets, with immediate data
/// (`imm`) or without.
fn last_of_several(
    b: &[u8],
    imm: bool,
    edit: impl FnOnce(&mut FrameRepr) -> Option<()>,
) -> Option<Vec<u8>> {
    let op = decode(b).bth?.opcode;
    let last = op.is_mrc_write() && op.is_last() && !op.is_first();
    if !last || op.has_immediate() != imm {
        return None;
    }
    let mut f = decode(b).to_repr()?;
    edit(&mut f)?;
    emit(f)
}

/// The frame with the `n` bytes at `at` taken out, its lengths, checksums and ICRC made
/// consistent again: whatever its opcode says, the bytes that follow are read in their place.
fn cut(b: &[u8], at: usize, n: usize) -> Option<Vec<u8>> {
    let d = decode(b);
    let (ip, udp) = (d.layout.ip?, d.layout.udp?);
    let mut out = b.to_vec();
    out.drain(at..at.checked_add(n)?);
    let udp_len = u16::try_from(out.len().checked_sub(udp)?).ok()?;
    out.get_mut(udp + 4..udp + 6)?.copy_from_slice(&udp_len.to_be_bytes());
    match d.ip? {
        IpRepr::V4(_) => {
            let total = u16::try_from(out.len().checked_sub(ip)?).ok()?;
            out.get_mut(ip + 2..ip + 4)?.copy_from_slice(&total.to_be_bytes());
        }
        IpRepr::V6(_) => out.get_mut(ip + 4..ip + 6)?.copy_from_slice(&udp_len.to_be_bytes()),
    }
    let mut f = decode(&out).to_repr()?;
    f.icrc = None;
    emit(f)
}

/// A frame made consistent again after `f` was changed.
fn emit(mut f: FrameRepr) -> Option<Vec<u8>> {
    f.finalize().ok()?;
    f.to_bytes().ok()
}

/// Rewrites the packets after the first of each message, knowing how far into the message
/// each lies: its `va` less the first packet's.
#[derive(Debug)]
struct Later {
    edit: fn(&mut FrameRepr, u64),
    /// The `va` of each message's first packet, by QP and MSN.
    first_va: HashMap<(u32, u16), u64>,
}

impl Later {
    fn new(edit: fn(&mut FrameRepr, u64)) -> Self {
        Later { edit, first_va: HashMap::new() }
    }
}

impl Stream for Later {
    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let Some(mut f) = decode(bytes).to_repr() else { continue };
            if !f.bth.opcode.is_mrc_write() {
                continue;
            }
            let (Some(m), Some(r)) = (f.ext.meth, f.ext.reth) else { continue };
            let key = (f.bth.dest_qp.value(), m.msn.value());
            if f.bth.opcode.is_first() {
                self.first_va.insert(key, r.va);
                continue;
            }
            let Some(&va0) = self.first_va.get(&key) else { continue };
            (self.edit)(&mut f, r.va.wrapping_sub(va0));
            if let Some(b) = emit(f) {
                *bytes = b;
            }
        }
        outputs
    }
}
