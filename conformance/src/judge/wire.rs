//! Every frame a device sends obeys the wire rules (`spec/conformance.md`, CONF-CMP-001,
//! CONF-CMP-016 and CONF-CMP-017).
//!
//! * **Decoding** (CONF-CMP-001): a frame that does not decode is a divergence under
//!   `DEC-STRUCT-001` and, when the decoder stopped at a check of a rule on the sender, under
//!   that rule too ([`DecodeError::requirement`]: a length that disagrees with its layer, a
//!   packet cut short of its opcode's headers); a frame with a wrong ICRC is one under
//!   `ICRC-CALC-001`.
//! * **Validation** (CONF-CMP-016): every violation that [`DecodedFrame::validate`] finds
//!   in a frame the device produced is a divergence under the violation's requirement,
//!   naming the header, the field, the byte offset and the value. Each rule the codec checks
//!   binds the sender (reserved bits, checksums, lengths, flow-label bits, known reasons and
//!   operations, RETH bounds, the `ts` bit, payload of opcodes that carry none, ...) except
//!   those of [`NOT_ON_SENDER`]; those of [`SHOULD_ON_SENDER`] bind it as a SHOULD only, so
//!   they make a verdict non-strict. Frames that are not RoCEv2 are judged too: a device
//!   sends RoCEv2 frames only, so the rule that makes a frame something else is broken.
//! * **EVs** (CONF-CMP-017): every data packet and probe travels on an EV of its QP's
//!   profile, read back as the receiver reconstructs it (`ENC-EV-003`): a device that puts
//!   an EV's halves in the wrong fields, or sends over IPv4 an EV the source port cannot
//!   carry, is caught under `ENC-EV-001` (IPv6) or `ENC-EV-002` (IPv4); every NACK travels
//!   on the EV it reports (`RCV-NACK-001`).
//!
//! [`sender_rules`] is the other half: the rules a scenario covers by expecting a frame,
//! which the corpus builders (`openrdma_corpus`) add to each manifest.

use std::collections::{BTreeSet, HashMap};

use openrdma_codec::frame::{DecodedFrame, IcrcStatus, IpRepr};
use openrdma_codec::{DecodeError, RethRepr, Violation};
use openrdma_device::{Body, Direction, Scenario};

use crate::req::Clause;

use super::{Divergence, FieldDiff, Frame, Kind, render_frame};
use openrdma_codec::Ev;

/// Rules whose sentence binds the sender with a SHOULD, and with a MUST only a receiver or
/// what `validate()` does not check: a device that breaks one as a sender is `non-strict`,
/// not failed (CONF-CMP-016).
pub const SHOULD_ON_SENDER: &[&str] = &[
    // A sender SHOULD set ftype to 1; a receiver MUST NOT reject other values.
    "TSETH-FTYPE-001",
    // Pad bytes SHOULD be 0; a receiver MUST ignore their value.
    "PAY-PAD-002",
    // A CNP SHOULD carry becn 1 and PSN 0 (its MUST, the QP named, no frame shows).
    "CNP-BTH-001",
];

/// Rules that `validate()` checks but that bind receivers only, each with the rule the
/// scoreboard holds the sender to instead (and reports elsewhere).
pub const NOT_ON_SENDER: &[(&str, &str)] = &[
    // "A receiver MUST discard a packet whose ICRC does not match": the sender's rule is
    // ICRC-CALC-001, reported by CONF-CMP-001.
    ("ICRC-VERIFY-001", "ICRC-CALC-001"),
];

/// The rules a device is held to, as a MUST, in a frame of the shape of `d`: the codec's
/// [`DecodedFrame::rules`] without those of [`NOT_ON_SENDER`] and [`SHOULD_ON_SENDER`]. A
/// scenario that expects such a frame covers them (CONF-CMP-016).
pub fn sender_rules(d: &DecodedFrame<'_>) -> Vec<&'static str> {
    d.rules()
        .into_iter()
        .filter(|id| !SHOULD_ON_SENDER.contains(id) && !NOT_ON_SENDER.iter().any(|(r, _)| r == id))
        .collect()
}

/// A divergence of frame `f` under `clause`, a leaf: its level decides whether only a
/// SHOULD is broken.
fn divergence(f: &Frame<'_>, clause: Clause, what: String, fields: Vec<FieldDiff>) -> Divergence {
    Divergence { actual: Some(render_frame(f.bytes)), fields, ..Divergence::of(f.at, clause, what) }
}

/// The leaf clause of a codec rule (a `Violation`'s or a `DecodeError`'s requirement) that
/// binds the sender of the frame: the clause itself for an unmarked line, the sender's
/// clause of a marked one. `None` for an ID the specification does not define.
pub fn sender_clause(rule: &str) -> Option<Clause> {
    use crate::req::*;
    Some(match rule {
        "BTH-RESV-002" => BTH_RESV_002_A,
        "BTH-TVER-001" => BTH_TVER_001_A,
        "CNP-BTH-001" => CNP_BTH_001_A,
        "EETH-OP-002" => EETH_OP_002_A,
        // validate() reports flow-label bits 19:16 (the sender's (b)).
        "ENC-EV-001" => ENC_EV_001_B,
        "ENC-EV-002" => ENC_EV_002_A,
        "ENC-HOP-001" => ENC_HOP_001_A,
        "ENC-IPV4-002" => ENC_IPV4_002_A,
        "ENC-IPV4-003" => ENC_IPV4_003_A,
        "ENC-LEN-001" => ENC_LEN_001_A,
        "ENC-LEN-002" => ENC_LEN_002_A,
        "ENC-UDP-001" => ENC_UDP_001_A,
        // A non-zero checksum that is wrong; a zero one is the MAY of (a).
        "ENC-UDP-003" => ENC_UDP_003_B,
        // validate() reports a second tag.
        "ENC-VLAN-002" => ENC_VLAN_002_A,
        "ERTH-OP-001" => ERTH_OP_001_A,
        "NETH-REASON-001" => NETH_REASON_001_A,
        "OPC-UNKNOWN-001" => OPC_UNKNOWN_001_A,
        "PAY-PAD-002" => PAY_PAD_002_A,
        // A pad the packet has no room for: PAY-PAD-003 binds the decoder that finds it,
        // and the sender broke PAY-PAD-001, the pad count no payload length adds up with.
        "PAY-PAD-003" => PAY_PAD_001,
        "SETH-M-001" => SETH_M_001_A,
        "TSETH-FTYPE-001" => TSETH_FTYPE_001_A,
        // The receiver's rule; the sender's is ICRC-CALC-001.
        "ICRC-VERIFY-001" => ICRC_CALC_001,
        _ => return Clause::parse(rule),
    })
}

/// The leaf clause a receiver breaks by acting on a frame to discard (`RCV-FRAME-001`), from
/// the rule [`DecodedFrame::discard_reason`] names: the rule itself for an unmarked line,
/// the receiver's or decoder's clause of a marked one.
pub fn discard_clause(rule: &str) -> Option<Clause> {
    use crate::req::*;
    Some(match rule {
        "ENC-VLAN-002" => ENC_VLAN_002_C,
        "ENC-IPV4-002" => ENC_IPV4_002_B,
        "ENC-IPV4-003" => ENC_IPV4_003_B,
        "ENC-UDP-001" => ENC_UDP_001_B,
        "ENC-LEN-001" => ENC_LEN_001_B,
        "ENC-LEN-002" => ENC_LEN_002_B,
        "ICRC-VERIFY-001" => ICRC_VERIFY_001_A,
        // Taking an undefined opcode for a write is decoding it as something it is not.
        "OPC-UNKNOWN-001" => OPC_UNKNOWN_001_B,
        _ => return Clause::parse(rule),
    })
}

/// [`sender_clause`], or the line's clause for a rule it does not know.
fn sender_leaf(rule: &str) -> Clause {
    sender_clause(rule).unwrap_or(crate::req::DEC_STRUCT_001)
}

/// One violation as a divergence: the header, field, offset and value, and the rule.
fn violation(f: &Frame<'_>, v: &Violation) -> Divergence {
    let at = v.offset.map_or(String::new(), |o| format!(" at byte {o}"));
    divergence(
        f,
        sender_leaf(v.requirement),
        format!(
            "the device sent a frame that breaks a wire rule: {}.{} = {:#x}{at}: {}",
            v.header, v.field, v.value, v.rule
        ),
        vec![FieldDiff::new(
            &format!("{}.{}", v.header.name(), v.field),
            v.rule.into(),
            format!("{:#x}{at}", v.value),
        )],
    )
}

fn undecodable(f: &Frame<'_>, e: &DecodeError) -> Vec<Divergence> {
    let mut out = Vec::new();
    let what = format!("the device sent a frame that does not decode: {e}");
    // The rule the sender broke first, so that a report shows it; then CONF-CMP-001's.
    if e.requirement() != "DEC-STRUCT-001" {
        out.push(divergence(f, sender_leaf(e.requirement()), what.clone(), vec![]));
    }
    out.push(divergence(f, crate::req::DEC_STRUCT_001, what, vec![]));
    out
}

/// The rule a wrong ICRC of frame `d` breaks, by its cause, and the cause in words: the
/// CRC appended big-endian (`ICRC-ORDER-001`), computed over other bytes
/// (`ICRC-COVER-001`) or with other fields masked (`ICRC-MASK-001`), or else a wrong CRC
/// (`ICRC-CALC-001`).
pub(super) fn icrc_cause(bytes: &[u8], d: &DecodedFrame<'_>) -> (Clause, &'static str) {
    use crate::req::*;
    use openrdma_codec::icrc::Miscomputed;
    let IcrcStatus::Bad { found, .. } = d.icrc else { return (ICRC_CALC_001, "") };
    let (Some(ip), Some(icrc)) = (d.layout.ip, d.layout.icrc) else { return (ICRC_CALC_001, "") };
    match Miscomputed::explain(bytes, ip, icrc, found) {
        Some(Miscomputed::BigEndian) => (ICRC_ORDER_001, ", the right CRC appended big-endian"),
        Some(Miscomputed::LinkHeaderCovered) => {
            (ICRC_COVER_001, ", the CRC over the link-layer header too")
        }
        Some(Miscomputed::NoLrhOnes) => {
            (ICRC_COVER_001, ", the CRC without the eight bytes of ones")
        }
        Some(Miscomputed::Unmasked) => (ICRC_MASK_001, ", the CRC with no field masked"),
        Some(Miscomputed::BthByte4Covered) => {
            (ICRC_MASK_001, ", the CRC with BTH byte 4 not masked")
        }
        None => (ICRC_CALC_001, ""),
    }
}

/// Decodes and validates every frame the device sent (CONF-CMP-001, CONF-CMP-016). An
/// endpoint request with an undefined operation that the CPU half commanded breaks the
/// NIC half's rule to send nothing for it (REC-IF-017.d), not the ERTH's.
pub(super) fn judge(
    obs_frames: &[Frame<'_>],
    inputs: &[super::obs::In<'_>],
    div: &mut Vec<Divergence>,
) {
    for f in obs_frames {
        let d = &f.d;
        if let Some(e) = &d.error {
            div.extend(undecodable(f, e));
        } else if let IcrcStatus::Bad { found, computed } = d.icrc {
            let (clause, how) = icrc_cause(f.bytes, d);
            div.push(divergence(
                f,
                clause,
                format!(
                    "the device sent a frame with a wrong ICRC: {found:#010x}, computed \
                     {computed:#010x}{how}"
                ),
                vec![],
            ));
        }
        let mut found = d.validate();
        // A wrong pad count comes first: it is why pad bytes read as payload (PAY-NONE-001).
        found.sort_by_key(|v| v.requirement != "PAY-PAD-001");
        let mut tseth_named = false;
        for v in found {
            if NOT_ON_SENDER.iter().any(|(r, _)| *r == v.requirement) {
                continue;
            }
            // A TSETH whose `resv` and `ftype` are wrong only because its word of `tsr`,
            // `resv` and `ftype` was written in the other byte order breaks the layout.
            let tseth = matches!(v.requirement, "TSETH-RESV-001" | "TSETH-FTYPE-001");
            if tseth && tseth_word_swapped(d) {
                if !tseth_named {
                    tseth_named = true;
                    div.push(divergence(
                        f,
                        crate::req::TSETH_LAYOUT_001,
                        "the device sent a TSETH whose bytes 2 and 3 (tsr, resv, ftype) are \
                         in the other order"
                            .into(),
                        vec![FieldDiff::new(
                            &format!("{}.{}", v.header.name(), v.field),
                            v.rule.into(),
                            format!("{:#x}", v.value),
                        )],
                    ));
                }
                continue;
            }
            let mut one = violation(f, &v);
            if let (&Kind::EndpointRequest { op, request_id }, "ERTH-OP-001") =
                (&f.kind, v.requirement)
            {
                if super::unexpected::endpoint_commanded(inputs, Some(op), request_id) {
                    one.requirement = crate::req::REC_IF_017_D.requirement().into();
                    one.clause = Some(crate::req::REC_IF_017_D);
                    for x in &mut one.fields {
                        x.name(crate::req::REC_IF_017_D);
                    }
                }
            }
            div.push(one);
        }
    }
}

/// Whether the TSETH of `d` has a reserved bit set that its bytes 2 and 3 read in the
/// other order clear, with `ftype` 1 then: the 16-bit word of `tsr`, `resv` and `ftype`
/// written little-endian (TSETH-LAYOUT-001).
fn tseth_word_swapped(d: &DecodedFrame<'_>) -> bool {
    let Some(t) = d.ext.tseth else { return false };
    let back = (u16::from(t.tsr) << 15 | t.resv << 4 | u16::from(t.ftype)).swap_bytes();
    t.resv != 0 && back >> 4 & 0x7FF == 0 && back & 0xF == 1
}

/// The EVs of the device's QPs, keyed by the peer QP its packets are sent to.
fn profiles(scenario: &Scenario) -> HashMap<u32, (u32, BTreeSet<Ev>)> {
    let mut m = HashMap::new();
    for r in scenario.records.iter().filter(|r| r.dir == Direction::Inject) {
        if let Body::Host { command: openrdma_device::HostCommand::CreateQp(q) } = &r.body {
            let evs = q.evs.iter().chain(&q.backup_evs).copied().collect();
            m.insert(q.peer_qpn.value(), (q.qpn.value(), evs));
        }
    }
    m
}

/// What a data packet carries of its message: its RETH and its payload.
type Carried<'s> = (Option<RethRepr>, &'s [u8]);

/// The data packets the scenario expects, by peer QP and PSN: what each copy carries.
fn expected_data(scenario: &Scenario) -> HashMap<(u32, u32), Vec<Carried<'_>>> {
    let mut out: HashMap<(u32, u32), Vec<Carried<'_>>> = HashMap::new();
    for r in scenario.records.iter().filter(|r| r.dir == Direction::Expect) {
        let Body::Frame { bytes, .. } = &r.body else { continue };
        let d = openrdma_codec::frame::decode(bytes);
        if let Some(b) = d.bth.filter(|b| b.opcode.is_mrc_write()) {
            out.entry((b.dest_qp.value(), b.psn.value()))
                .or_default()
                .push((d.ext.reth, d.payload));
        }
    }
    out
}

/// The peer of another QP whose packet a data packet `f` to peer `qp` is: one whose
/// profile holds the packet's EV and that the scenario expects to send the packet's PSN.
/// Such a packet was built with the wrong QP's `dest_qp`, not sent on a wrong EV. One that
/// carries its own QP's message, and not the other QP's, is its own QP's packet: its EV
/// was chosen from the wrong profile (CONF-CMP-101).
fn owner_elsewhere(
    profiles: &HashMap<u32, (u32, BTreeSet<Ev>)>,
    expected: &HashMap<(u32, u32), Vec<Carried<'_>>>,
    qp: u32,
    psn: u32,
    f: &Frame<'_>,
) -> Option<(u32, u32)> {
    let carried: Carried<'_> = (f.d.ext.reth, f.d.payload);
    let carries = |peer: u32| expected.get(&(peer, psn)).is_some_and(|v| v.contains(&carried));
    let own = carries(qp);
    profiles
        .iter()
        .filter(|(peer, (_, evs))| **peer != qp && evs.contains(&f.ev))
        .filter(|(peer, _)| expected.contains_key(&(**peer, psn)))
        .filter(|(peer, _)| !own || carries(**peer))
        .map(|(peer, (local, _))| (*peer, *local))
        .min()
}

/// Whether `ev`, as a frame carries it, is an EV of the profile of a QP of the device other
/// than the one facing peer `qp`: a whole EV of a profile, which no encoding of the QP's
/// own EVs gives, so the QP chose it from the wrong profile (CONF-CMP-101).
fn other_profile(profiles: &HashMap<u32, (u32, BTreeSet<Ev>)>, qp: u32, ev: Ev, v6: bool) -> bool {
    profiles
        .iter()
        .filter(|(peer, _)| **peer != qp)
        .any(|(_, (_, evs))| evs.iter().any(|&e| super::wire_ev(!v6, e) == ev))
}

/// The paths of data packets, probes and NACKs (CONF-CMP-017). A data packet on an EV of
/// another QP, which that QP is expected to send, carries the wrong `dest_qp`
/// (SND-QPN-001), unless it carries its own QP's message. One on an EV outside the
/// profile that holds no part of a profile EV, from a QP that sent one on a profile EV
/// before or on an EV of another QP's profile, was chosen wrongly (SND-PATH-001,
/// EV-PROBE-005.b); else it was encoded wrongly (ENC-EV-001, ENC-EV-002).
pub(super) fn judge_evs(
    scenario: &Scenario,
    inputs: &[super::obs::In<'_>],
    obs_frames: &[Frame<'_>],
    div: &mut Vec<Divergence>,
) {
    let profiles = profiles(scenario);
    let expected = expected_data(scenario);
    let local_of = super::peer_map(scenario);
    // The EV of the latest copy of write `psn` to device QP `local` delivered by `at`.
    let arrived_on = |local: u32, psn: u32, at: u64| {
        inputs.iter().rev().filter(|i| i.at <= at).find_map(|i| {
            let f = i.frame.as_ref()?;
            let bth = f.d.bth?;
            (bth.dest_qp.value() == local && bth.psn.value() == psn && bth.opcode.is_mrc_write())
                .then_some(f.ev)
        })
    };
    // The QPs that sent a data packet or probe on an EV of their profile: their headers
    // carry an EV right, so a later EV outside the profile was chosen, not encoded.
    let mut sound = BTreeSet::new();
    for f in obs_frames {
        match f.kind {
            Kind::Data { qp, .. } | Kind::Probe { qp } => {
                let Some((local, evs)) = profiles.get(&qp) else { continue };
                if evs.contains(&f.ev) {
                    sound.insert(qp);
                    continue;
                }
                if let Kind::Data { psn, .. } = f.kind {
                    if let Some((peer, owner)) = owner_elsewhere(&profiles, &expected, qp, psn, f) {
                        div.push(divergence(
                            f,
                            crate::req::SND_QPN_001,
                            format!(
                                "PSN {psn:#x} on EV {:#010x}, a packet of QP {owner:#x}, is \
                                 addressed to QP {qp:#x}, the peer of QP {local:#x}",
                                f.ev
                            ),
                            vec![FieldDiff::new(
                                "bth.dest_qp",
                                format!("{peer:#x}"),
                                format!("{qp:#x}"),
                            )],
                        ));
                        continue;
                    }
                }
                let d = &f.d;
                let (Some(ip), Some(udp)) = (&d.ip, d.udp) else { continue };
                let v6 = matches!(ip, IpRepr::V6(_));
                let (requirement, carried) = match ip {
                    IpRepr::V6(v6) => (
                        crate::req::ENC_EV_001_A,
                        format!(
                            "UDP source port {:#06x}, flow label {:#07x}",
                            udp.src_port, v6.flow_label
                        ),
                    ),
                    IpRepr::V4(_) => {
                        (crate::req::ENC_EV_002_A, format!("UDP source port {:#06x}", udp.src_port))
                    }
                };
                let chosen = sound.contains(&qp) || other_profile(&profiles, qp, f.ev, v6);
                let requirement = if !chosen || carries_part(evs, f.ev, v6) {
                    requirement
                } else {
                    chose(&f.kind)
                };
                div.push(divergence(
                    f,
                    requirement,
                    format!(
                        "sent on EV {:#010x} ({carried}), which is not an EV of QP {local:#x}'s \
                         profile as the frame carries it",
                        f.ev
                    ),
                    vec![FieldDiff::new(
                        "ev",
                        format!("one of {}", hex_list(evs)),
                        format!("{:#010x}", f.ev),
                    )],
                ));
            }
            Kind::Nack { qp, psn, .. } => {
                let Some(n) = f.d.ext.neth else { continue };
                // On the EV it reports, or on that of the NACKed packet as it arrived: then
                // a wrong `entropy` is the NETH's own rule (NETH-PSN-001), judged with the
                // other fields.
                let arrived = local_of.get(&qp).and_then(|&l| arrived_on(l, psn, f.at));
                if n.entropy != f.ev && arrived != Some(f.ev) {
                    div.push(divergence(
                        f,
                        crate::req::RCV_NACK_001_B,
                        "a NACK travels on an EV other than the one it reports".into(),
                        vec![FieldDiff::new(
                            "ev",
                            format!("{:#010x}", n.entropy),
                            format!("{:#010x}", f.ev),
                        )],
                    ));
                }
            }
            _ => {}
        }
    }
}

/// Whether the EV a frame carries holds a half of an EV of the profile, in its place or in
/// the other half's: a profile EV put into the headers wrongly (ENC-EV-001, ENC-EV-002). A
/// zero half of a profile EV counts only in its place, as every IPv4 EV has one. An EV
/// that holds no part of one was chosen wrongly, not encoded wrongly.
fn carries_part(evs: &BTreeSet<Ev>, ev: Ev, v6: bool) -> bool {
    evs.iter().any(|e| {
        e.high() == ev.high()
            || (e.low() != 0 && e.low() == ev.high())
            || (v6 && e.low() != 0 && (e.low() == ev.low() || e.high() == ev.low()))
    })
}

/// The rule that chose the EV of a data packet or a probe: the pool of the QP's profile
/// (SND-PATH-001), or the EV the probe's cause named (EV-PROBE-005.b).
fn chose(kind: &Kind) -> Clause {
    match kind {
        Kind::Probe { .. } => crate::req::EV_PROBE_005_B,
        _ => crate::req::SND_PATH_001,
    }
}

fn hex_list(evs: &BTreeSet<Ev>) -> String {
    evs.iter().map(|e| format!("{e:#010x}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requirements::{Level, Spec};
    use openrdma_codec::frame::{DECODE_RULES, FRAME_RULES};
    use openrdma_codec::*;

    /// The rules the codec's header views and its frame check.
    fn codec_rules() -> Vec<&'static str> {
        [
            EthernetRepr::RULES,
            VlanRepr::RULES,
            Ipv4Repr::RULES,
            Ipv6Repr::RULES,
            UdpRepr::RULES,
            BthRepr::RULES,
            TsethRepr::RULES,
            RethRepr::RULES,
            AethRepr::RULES,
            SethRepr::RULES,
            CcStateRepr::RULES,
            NethRepr::RULES,
            PethRepr::RULES,
            ErthRepr::RULES,
            EethRepr::RULES,
            DethRepr::RULES,
            CnpRepr::RULES,
            FRAME_RULES,
        ]
        .concat()
    }

    /// Every rule set apart is one the codec checks, of the level its handling implies:
    /// the SHOULD-on-sender rules are MUST-level sentences (a SHOULD-level one the report
    /// already makes non-strict), and each rule named instead is specified.
    #[test]
    fn exceptions_are_codec_rules_and_specified() {
        let spec = Spec::bundled().expect("the specification parses");
        let codec = codec_rules();
        for id in SHOULD_ON_SENDER {
            assert!(codec.contains(id), "{id}");
            let r = spec.get(id).expect("specified");
            assert_eq!(r.level, Level::Must, "{id}: a MUST for receivers, a SHOULD for senders");
            assert!(r.text.contains("SHOULD"), "{id}");
        }
        for (id, instead) in NOT_ON_SENDER {
            assert!(codec.contains(id), "{id}");
            assert!(spec.get(instead).is_some(), "{instead}");
            assert!(spec.get(id).is_some_and(|r| r.text.contains("receiver")), "{id}");
        }
        for id in codec.iter().chain(DECODE_RULES) {
            assert!(spec.get(id).is_some_and(|r| r.level != Level::Withdrawn), "{id}");
        }
    }

    /// Every rule the codec checks names, through [`sender_clause`], a leaf clause; every
    /// reason to discard a frame, through [`discard_clause`], one too.
    #[test]
    fn codec_rules_name_leaf_clauses() {
        let codec: Vec<&str> =
            codec_rules().into_iter().chain(DECODE_RULES.iter().copied()).collect();
        for id in &codec {
            let c = sender_clause(id).unwrap_or_else(|| panic!("{id} names no clause"));
            assert!(c.is_leaf(), "{id} names {c}, which has clauses");
        }
        let discards = [
            "DEC-CUT-001",
            "ENC-VLAN-002",
            "ENC-IPV4-001",
            "ENC-IPV4-002",
            "ENC-IPV4-003",
            "ENC-IPV6-001",
            "ENC-UDP-001",
            "ENC-UDP-006",
            "ENC-ROCE-001",
            "ICRC-VERIFY-001",
            "OPC-UNKNOWN-001",
        ];
        for id in discards.iter().chain(DECODE_RULES) {
            let c = discard_clause(id).unwrap_or_else(|| panic!("{id} names no clause"));
            assert!(c.is_leaf(), "{id} names {c}, which has clauses");
        }
    }
}
