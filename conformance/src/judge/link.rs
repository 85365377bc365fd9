//! The headers the connection fixes, judged on every frame the device sends, SACKs and
//! everything that is not paired with an expected frame included (`spec/conformance.md`,
//! CONF-CMP-026): the link addresses and VLAN tag of the manifest's link, the IPv4 TTL or
//! IPv6 hop limit (ENC-HOP-001), the P_Key, and the destination QP of every data packet,
//! acknowledgement and probe, which goes to the peer of one of the device's QPs, and for an
//! answer, to the peer of the QP it answers for.

use std::collections::HashMap;
use std::net::IpAddr;

use openrdma_codec::Opcode;
use openrdma_codec::frame::{DecodedFrame, IpRepr};
use openrdma_device::{Record, Scenario, Tolerances};

use super::fields::Rule;
use super::{Divergence, FieldDiff, Frame, render_frame};
use crate::req::*;

/// The least IPv4 TTL or IPv6 hop limit a sender sets (ENC-HOP-001).
const MIN_HOP_LIMIT: u8 = 64;

/// The P_Key of every connection: none is configured in a manifest (BTH-PKEY-001).
const PKEY: u16 = 0xFFFF;

/// Judges the link headers of every observed frame that decodes; `exp` are the expected
/// frames, for the destination of an answer.
pub(super) fn judge(
    scenario: &Scenario,
    peers: &HashMap<u32, u32>,
    obs: &[Frame<'_>],
    exp: &[(&Record, Frame<'_>)],
    div: &mut Vec<Divergence>,
) {
    let link = &scenario.manifest.link;
    for f in obs {
        let d = &f.d;
        if d.error.is_some() {
            continue; // judged by the wire rules
        }
        let mut fields: Vec<(Rule, FieldDiff)> = Vec::new();
        let mut cmp = |rule: Rule, field: &str, expected: String, actual: String| {
            if expected != actual {
                fields.push((rule, FieldDiff::new(field, expected, actual)));
            }
        };
        if let Some(e) = d.eth {
            cmp(CONF_CMP_026_B, "eth.src", link.local_mac.to_string(), e.src.to_string());
            cmp(CONF_CMP_026_B, "eth.dst", link.peer_mac.to_string(), e.dst.to_string());
        }
        let vid = |v: Option<u16>| v.map_or("-".to_string(), |v| v.to_string());
        cmp(CONF_CMP_026_B, "vlan.vid", vid(link.vlan), vid(d.vlans.first().map(|v| v.vid)));
        let (src, dst) = match &d.ip {
            Some(IpRepr::V4(ip)) => (IpAddr::V4(ip.src), IpAddr::V4(ip.dst)),
            Some(IpRepr::V6(ip)) => (IpAddr::V6(ip.src), IpAddr::V6(ip.dst)),
            None => continue,
        };
        cmp(CONF_CMP_026_B, "ip.src", link.local_ip.to_string(), src.to_string());
        cmp(CONF_CMP_026_B, "ip.dst", link.peer_ip.to_string(), dst.to_string());
        // A hop count a router passes on (ENC-HOP-001.c); validate() reports a 0 (.a).
        let (field, hop) = match &d.ip {
            Some(IpRepr::V4(ip)) => ("ipv4.ttl", ip.ttl),
            Some(IpRepr::V6(ip)) => ("ipv6.hop_limit", ip.hop_limit),
            None => continue,
        };
        if (1..MIN_HOP_LIMIT).contains(&hop) {
            let want = format!("{MIN_HOP_LIMIT} or more");
            cmp(ENC_HOP_001_C, field, want, hop.to_string());
        }
        if let Some(bth) = d.bth {
            cmp(BTH_PKEY_001, "bth.pkey", format!("{PKEY:#06x}"), format!("{:#06x}", bth.pkey));
            let to = bth.dest_qp.value();
            if let Some(rule) = dest_rule(d, peers) {
                cmp(rule, "bth.dest_qp", "the peer of a QP".into(), format!("{to:#x}"));
            } else if let Some((rule, due)) =
                due_elsewhere(f, exp, obs, &scenario.manifest.tolerances)
            {
                cmp(rule, "bth.dest_qp", format!("{due:#x}"), format!("{to:#x}"));
            }
        }
        if fields.is_empty() {
            continue;
        }
        let rule = fields[0].0;
        let what = super::matching::describe(&fields[0].1);
        let fields = fields
            .into_iter()
            .map(|(r, mut f)| {
                f.name(r);
                f
            })
            .collect();
        div.push(Divergence {
            actual: Some(render_frame(f.bytes)),
            fields,
            ..Divergence::of(f.at, rule, what)
        });
    }
}

/// The rule a frame the device sent breaks by its destination QP, or `None` when that is
/// the peer of one of its QPs (`peers`, keyed by the peer's QPN) or the frame is of a kind
/// no rule sends to a peer. Data packets (SND-QPN-001), SACKs, NACKs, ACKs, NAKs and probes
/// each have their own rule; a peer's QPN with its bytes in the other order is the BTH laid
/// out wrong (BTH-LAYOUT-001), not a frame sent elsewhere.
pub(super) fn dest_rule(d: &DecodedFrame<'_>, peers: &HashMap<u32, u32>) -> Option<Rule> {
    let to = d.bth?.dest_qp.value();
    if peers.contains_key(&to) {
        return None;
    }
    let rule = dest_clause(d)?;
    let swapped = super::fields::byte_swapped(to.into(), 24);
    if u32::try_from(swapped).is_ok_and(|q| peers.contains_key(&q)) {
        return Some(BTH_LAYOUT_001);
    }
    Some(rule)
}

/// The rule that says where a frame of this kind goes: data packets (SND-QPN-001), SACKs,
/// NACKs, ACKs, NAKs and probes each have their own; `None` for other kinds.
fn dest_clause(d: &DecodedFrame<'_>) -> Option<Rule> {
    Some(match d.bth?.opcode {
        o if o.is_mrc_write() => SND_QPN_001,
        Opcode::MRC_SACK => RCV_SACK_005_A,
        Opcode::MRC_NACK => RCV_NACK_001_A,
        // A NAK has its own rule (RCV-NAK-002.a), an ACK the ACK's.
        Opcode::MRC_ACKNOWLEDGE if d.ext.aeth.is_some_and(|a| !super::ack_class(a.syndrome).0) => {
            RCV_NAK_002_A
        }
        Opcode::MRC_ACKNOWLEDGE => RCV_ACK_002_A,
        Opcode::MRC_PROBE => EV_PROBE_005_C,
        _ => return None,
    })
}

/// When an answer the device sent (a SACK, NACK, ACK or NAK) went to the peer of one of its
/// QPs but was due to the peer of another, the rule of its destination and the QP it was
/// due to. It was due there when an expected answer to that peer, within the tolerances of
/// its time, is the same frame but for `bth.dest_qp` (and the checksums and ICRC that cover
/// it), and no frame the device sent is that expected answer.
fn due_elsewhere(
    f: &Frame<'_>,
    exp: &[(&Record, Frame<'_>)],
    obs: &[Frame<'_>],
    tol: &Tolerances,
) -> Option<(Rule, u32)> {
    let bth = f.d.bth?;
    let answer = [Opcode::MRC_SACK, Opcode::MRC_NACK, Opcode::MRC_ACKNOWLEDGE];
    if !answer.contains(&bth.opcode) {
        return None;
    }
    let repr = f.d.to_repr()?;
    let due = exp.iter().find_map(|(rec, e)| {
        let eb = e.d.bth.filter(|b| b.opcode == bth.opcode && b.dest_qp != bth.dest_qp)?;
        let at = rec.at.0;
        if f.at < at.saturating_sub(tol.early_ns) || f.at > at.saturating_add(tol.late_ns) {
            return None;
        }
        let mut r = repr.clone();
        r.bth.dest_qp = eb.dest_qp;
        r.icrc = None;
        let same = r.to_bytes().is_ok_and(|b| b == e.bytes);
        (same && !obs.iter().any(|o| o.bytes == e.bytes)).then_some(eb.dest_qp.value())
    })?;
    Some((dest_clause(&f.d)?, due))
}
