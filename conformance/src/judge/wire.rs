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
use openrdma_codec::{DecodeError, Violation};
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

fn divergence(
    f: &Frame<'_>,
    requirement: &str,
    what: String,
    fields: Vec<FieldDiff>,
) -> Divergence {
    Divergence {
        at: f.at,
        requirement: requirement.into(),
        what,
        expected: None,
        actual: Some(render_frame(f.bytes)),
        fields,
        should_only: SHOULD_ON_SENDER.contains(&requirement),
        check: "",
        clause: None,
    }
}

/// The clause of a codec rule that binds the sender, where the rule's line is marked.
fn sender_clause(rule: &str) -> Option<Clause> {
    match rule {
        "ENC-HOP-001" => Some(crate::req::ENC_HOP_001_A),
        _ => None,
    }
}

/// One violation as a divergence: the header, field, offset and value, and the rule.
fn violation(f: &Frame<'_>, v: &Violation) -> Divergence {
    let at = v.offset.map_or(String::new(), |o| format!(" at byte {o}"));
    let mut d = divergence(
        f,
        v.requirement,
        format!(
            "the device sent a frame that breaks a wire rule: {}.{} = {:#x}{at}: {}",
            v.header, v.field, v.value, v.rule
        ),
        vec![FieldDiff::new(
            &format!("{}.{}", v.header.name(), v.field),
            v.rule.into(),
            format!("{:#x}{at}", v.value),
        )],
    );
    d.clause = sender_clause(v.requirement);
    d
}

fn undecodable(f: &Frame<'_>, e: &DecodeError) -> Vec<Divergence> {
    let mut out = Vec::new();
    let what = format!("the device sent a frame that does not decode: {e}");
    // The rule the sender broke first, so that a report shows it; then CONF-CMP-001's.
    if e.requirement() != "DEC-STRUCT-001" {
        out.push(divergence(f, e.requirement(), what.clone(), vec![]));
    }
    out.push(divergence(f, "DEC-STRUCT-001", what, vec![]));
    out
}

/// Decodes and validates every frame the device sent (CONF-CMP-001, CONF-CMP-016).
pub(super) fn judge(obs_frames: &[Frame<'_>], div: &mut Vec<Divergence>) {
    for f in obs_frames {
        let d = &f.d;
        if let Some(e) = &d.error {
            div.extend(undecodable(f, e));
        } else if matches!(d.icrc, IcrcStatus::Bad { .. }) {
            div.push(divergence(
                f,
                "ICRC-CALC-001",
                "the device sent a frame with a wrong ICRC".into(),
                vec![],
            ));
        }
        for v in d.validate() {
            if NOT_ON_SENDER.iter().any(|(r, _)| *r == v.requirement) {
                continue;
            }
            div.push(violation(f, &v));
        }
    }
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

/// The paths of data packets, probes and NACKs (CONF-CMP-017).
pub(super) fn judge_evs(scenario: &Scenario, obs_frames: &[Frame<'_>], div: &mut Vec<Divergence>) {
    let profiles = profiles(scenario);
    for f in obs_frames {
        match f.kind {
            Kind::Data { qp, .. } | Kind::Probe { qp } => {
                let Some((local, evs)) = profiles.get(&qp) else { continue };
                if evs.contains(&f.ev) {
                    continue;
                }
                let d = &f.d;
                let (Some(ip), Some(udp)) = (&d.ip, d.udp) else { continue };
                let (requirement, carried) = match ip {
                    IpRepr::V6(v6) => (
                        "ENC-EV-001",
                        format!(
                            "UDP source port {:#06x}, flow label {:#07x}",
                            udp.src_port, v6.flow_label
                        ),
                    ),
                    IpRepr::V4(_) => {
                        ("ENC-EV-002", format!("UDP source port {:#06x}", udp.src_port))
                    }
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
            Kind::Nack { .. } => {
                let Some(n) = f.d.ext.neth else { continue };
                if n.entropy != f.ev {
                    div.push(divergence(
                        f,
                        "RCV-NACK-001",
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

fn hex_list(evs: &BTreeSet<Ev>) -> String {
    evs.iter().map(|e| format!("{e:#010x}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requirements::{Level, Spec};
    use openrdma_codec::frame::{DECODE_RULES, FRAME_RULES};
    use openrdma_codec::*;

    /// Every rule set apart is one the codec checks, of the level its handling implies:
    /// the SHOULD-on-sender rules are MUST-level sentences (a SHOULD-level one the report
    /// already makes non-strict), and each rule named instead is specified.
    #[test]
    fn exceptions_are_codec_rules_and_specified() {
        let spec = Spec::bundled().expect("the specification parses");
        let codec: Vec<&str> = [
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
        .concat();
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
}
