//! The rules a near miss's fields point at: which rule a probe's timing, a cut length, a
//! PSN after the wrap, an EV read in part or a resend's `rtx` bit breaks, and the byte-order
//! slips that explain a difference in one field.

use openrdma_codec::Psn;
use openrdma_codec::frame::DecodedFrame;
use openrdma_device::Record;

use super::super::fields::{self, Rule};
use super::super::{FieldDiff, Frame, Kind, diff, frame_fields};
use super::{Ctx, named_cause};
use crate::req::*;

/// When expected frame `e` is a probe of a window-fit QP and the device's choices at the
/// evaluation its probe `i`, or the expected one, came after contradict an estimate of the
/// policy: that estimate's rule. The policy probes the EVs its limit leaves out
/// (SND-SPRAY-009), so a probe sent at another time, and the PSN it carries then, follow
/// from the limit the estimate gave.
pub(super) fn fit_probe(cx: &Ctx<'_>, e: usize, i: usize) -> Option<Rule> {
    let Kind::Probe { qp } = cx.exp[e].1.kind else { return None };
    let (a, b) = (cx.obs[i].at, cx.exp[e].0.at.0);
    [a.min(b), a.max(b)]
        .into_iter()
        .find_map(|at| cx.fits.contradicted_at(qp, at))
        .map(|est| est.clause())
}

/// When the RETH `dma_len` of a data packet is the expected one cut to its low 16 bits,
/// a length register too narrow: the cause of whatever opcode, payload or address then
/// differs. The rule of that field is returned.
pub(super) fn cut_length(fields: &[FieldDiff]) -> Option<Rule> {
    let f = fields.iter().find(|f| f.field == "reth.dma_len")?;
    let (x, y) = (f.expected.parse::<u64>().ok()?, f.actual.parse::<u64>().ok()?);
    (x != y && y == x & 0xFFFF).then_some(f.clause?)
}

/// BTH-PSN-001, when the device's first transmission `i` of a QP follows its own last
/// first transmission of the QP, of PSN 0xFFFFFF, under another PSN, and no first
/// transmission of the QP from `i` on carries PSN 0: the device's PSN arithmetic never
/// reached 0, the successor of 0xFFFFFF, whatever packet it then numbered. A repeat of
/// 0xFFFFFF, or a PSN 0 sent later out of order, is another bug.
pub(super) fn wrap_rule(obs: &[Frame<'_>], i: usize) -> Option<Rule> {
    let Kind::Data { qp, psn, rtx: false } = obs.get(i)?.kind else { return None };
    let first_of = |f: &Frame<'_>| match f.kind {
        Kind::Data { qp: q, psn, rtx: false } if q == qp => Some(psn),
        _ => None,
    };
    let prev = obs[..i].iter().rev().find_map(first_of)?;
    let zero = obs[i..].iter().filter_map(first_of).any(|p| p == 0);
    (prev == 0xFF_FFFF && psn != prev && !zero).then_some(BTH_PSN_001)
}

/// Whether expected frame `e` is the first transmission of PSN 0 of its QP, after the
/// QP's first transmission of PSN 0xFFFFFF: the packet that BTH-PSN-001's wrap numbers.
pub(super) fn after_wrap(exp: &[(&Record, Frame<'_>)], e: usize) -> bool {
    let Kind::Data { qp, psn: 0, rtx: false } = exp[e].1.kind else { return false };
    exp[..e].iter().any(|(_, f)| f.kind == Kind::Data { qp, psn: 0xFF_FFFF, rtx: false })
}

/// The `snd_nxt` a probe `obs[i]` must carry (EV-PROBE-005.d), by the device's own first
/// transmissions of its QP before it: the PSN after the highest of them. A device may take
/// a `Probe` command up to `late_ns / 2` late and send new data first (CONF-TIME-004), and
/// its probe then carries a later PSN than the recorded one (CONF-CMP-049). `None` for
/// another frame, or a probe before any data packet of its QP.
pub(super) fn own_snd_nxt(obs: &[Frame<'_>], i: usize) -> Option<Psn> {
    let Kind::Probe { qp } = obs.get(i)?.kind else { return None };
    let firsts = obs[..i].iter().filter_map(|f| match f.kind {
        Kind::Data { qp: q, psn, rtx: false } if q == qp => Some(Psn::new(psn)),
        _ => None,
    });
    firsts.reduce(|hi, p| if p.is_after(hi) { p } else { hi }).map(|hi| hi.add(1))
}

/// When the EV a transport ACK or NAK travels on is that of the packet that caused it with
/// bits 19:16 of that packet's IPv6 flow label taken in, the device reconstructed the EV
/// wrong (ENC-EV-001.c): that field is renamed, and the rule returned when it is the first
/// MUST field.
pub(super) fn ev_misread(cx: &Ctx<'_>, e: usize, fields: &mut [FieldDiff]) -> Option<Rule> {
    let (rec, ef) = &cx.exp[e];
    if !matches!(ef.kind, Kind::Ack { .. }) {
        return None;
    }
    let local = super::super::peer_map(cx.scenario).get(&ef.d.bth?.dest_qp.value()).copied()?;
    let hex = |v: &str| u32::from_str_radix(v.trim_start_matches("0x"), 16).ok();
    let highs: Vec<u32> = cx
        .inputs
        .iter()
        .filter(|i| i.at <= rec.at.0)
        .filter_map(|i| match (&i.frame.as_ref()?.d.ip, i.frame.as_ref()?.d.bth) {
            (Some(openrdma_codec::frame::IpRepr::V6(v6)), Some(b))
                if b.dest_qp.value() == local =>
            {
                Some(v6.flow_label & 0xF_0000)
            }
            _ => None,
        })
        .filter(|&h| h != 0)
        .collect();
    let first_must = fields.iter().position(|f| f.clause.is_some_and(fields::is_must));
    let k = fields.iter().position(|f| {
        f.field == "ev"
            && matches!((hex(&f.expected), hex(&f.actual)), (Some(x), Some(y))
                if highs.iter().any(|&h| x | h == y))
    })?;
    fields[k].name(ENC_EV_001_C);
    (first_must == Some(k)).then_some(ENC_EV_001_C)
}

/// When expected frame `e` is a resend of a packet that arrived, which a `Retransmit`
/// command orders (REC-RTO-004.b, .c), its `rtx` bit is that rule's (.d), not the one for
/// retransmissions from the queue: that field is renamed, and the rule returned when it is
/// the first MUST field.
pub(super) fn resend_rtx(cx: &Ctx<'_>, e: usize, fields: &mut [FieldDiff]) -> Option<Rule> {
    let cause = named_cause(cx, e, None).rule;
    if cause != REC_RTO_004_B && cause != REC_RTO_004_C {
        return None;
    }
    let first_must = fields.iter().position(|f| f.clause.is_some_and(fields::is_must));
    let k = fields.iter().position(|f| f.field == "bth.rtx")?;
    fields[k].name(REC_RTO_004_D);
    (first_must == Some(k)).then_some(REC_RTO_004_D)
}

/// Whether the device's frame `act` carries in BTH byte 1 the expected frame's
/// `solicited` and `mig_req` bits the other way round, and they differ.
pub(super) fn bth_byte1_swapped(exp: &DecodedFrame<'_>, act: &DecodedFrame<'_>) -> bool {
    match (exp.bth, act.bth) {
        (Some(e), Some(a)) => {
            e.solicited != e.mig_req && a.solicited == e.mig_req && a.mig_req == e.solicited
        }
        _ => false,
    }
}

/// Whether the device's frame `act` carries the expected frame's TSETH bytes 2 and 3
/// (`tsr`, `resv`, `ftype`, one 16-bit word) in the other order, and they differ: the
/// word written little-endian.
pub(super) fn tseth_word_swapped(exp: &DecodedFrame<'_>, act: &DecodedFrame<'_>) -> bool {
    let word =
        |t: openrdma_codec::TsethRepr| u16::from(t.tsr) << 15 | t.resv << 4 | u16::from(t.ftype);
    match (exp.ext.tseth, act.ext.tseth) {
        (Some(e), Some(a)) => word(e) != word(a) && word(e).swap_bytes() == word(a),
        _ => false,
    }
}

/// Whether the device's frame `act` (its bytes `bytes`) is the expected `exp` once its
/// BTH `ts` bit is flipped: the TSETH is where it should be, or is not, and only the bit
/// disagrees (TSETH-PRESENT-001).
pub(super) fn ts_bit_only(exp: &DecodedFrame<'_>, bytes: &[u8], act: &DecodedFrame<'_>) -> bool {
    if exp.ext.tseth.is_some() == act.ext.tseth.is_some() {
        return false;
    }
    let Some(at) = act.layout.bth.map(|b| b + 8).filter(|&i| i < bytes.len()) else {
        return false;
    };
    let mut b = bytes.to_vec();
    b[at] ^= 0x10;
    let flipped = openrdma_codec::frame::decode(&b);
    flipped.error.is_none()
        && diff(&frame_fields(exp), &frame_fields(&flipped)).iter().all(|f| f.field == "icrc")
}
