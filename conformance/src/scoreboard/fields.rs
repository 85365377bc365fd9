//! The field table: which rule each compared field of a frame breaks, by kind of frame
//! (`spec/conformance.md`, CONF-CMP-005, CONF-CMP-017, CONF-CMP-026).
//!
//! A divergence between an expected frame and the device's is named by the rule of the
//! field that differs, never by the record's or the scenario's list of requirements: each
//! field carries its own rule, and the divergence takes the first MUST field's (or, when
//! only SHOULD fields differ, the first field's, and is non-strict). One table row per
//! (kinds, field); the first row that fits is the one. The same table tells which rules a
//! check of frame fields can fail, and the test `no_field_is_judged_at_two_levels` keeps it
//! free of a field judged by a MUST in one row and a SHOULD in another for one kind (a
//! MUST weakened by a SHOULD on the same field).

use super::{FieldDiff, Kind};

/// A rule a check names: a requirement ID of the specification.
pub type Rule = &'static str;

/// Kinds of frame, as a set.
pub type Kinds = u16;
/// A first transmission of a data packet.
pub const DATA: Kinds = 1;
/// A retransmission of a data packet.
pub const RTX: Kinds = 1 << 1;
/// A SACK.
pub const SACK: Kinds = 1 << 2;
/// A NACK.
pub const NACK: Kinds = 1 << 3;
/// A transport ACK.
pub const ACK: Kinds = 1 << 4;
/// A transport NAK.
pub const NAK: Kinds = 1 << 5;
/// A probe.
pub const PROBE: Kinds = 1 << 6;
/// An endpoint request.
pub const EREQ: Kinds = 1 << 7;
/// An endpoint response.
pub const ERSP: Kinds = 1 << 8;
/// Every data packet.
pub const WRITE: Kinds = DATA | RTX;
/// Every kind.
pub const ALL: Kinds = 0x1FF;

/// How binding a rule is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// A failure.
    Must,
    /// A non-strict verdict.
    Should,
}

/// One row: a field (an exact name, or a prefix ending in `.`) of frames of `kinds`.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The kinds of frame it applies to.
    pub kinds: Kinds,
    /// The field, as `frame_fields` names it; a name ending in `.` is a prefix.
    pub field: &'static str,
    /// What a difference breaks.
    pub rule: Rule,
    /// How binding that is.
    pub level: Level,
}

const fn must(kinds: Kinds, field: &'static str, rule: Rule) -> Row {
    Row { kinds, field, rule, level: Level::Must }
}

const fn should(kinds: Kinds, field: &'static str, rule: Rule) -> Row {
    Row { kinds, field, rule, level: Level::Should }
}

/// The table, most specific rows first.
pub const ROWS: &[Row] = &[
    // What the link fixes, in every frame (CONF-CMP-026, ENC-UDP-001, BTH-PKEY-001).
    must(ALL, "eth.", "CONF-CMP-026"),
    must(ALL, "vlan.", "CONF-CMP-026"),
    must(ALL, "ip.", "CONF-CMP-026"),
    must(ALL, "udp.dst_port", "ENC-UDP-001"),
    must(ALL, "bth.pkey", "BTH-PKEY-001"),
    must(ALL, "icrc", "ICRC-CALC-001"),
    // Data packets (SND-SEG-*, SND-MSN-002, SND-RQMSN-002, SND-TS-002, ...).
    must(WRITE, "bth.opcode", "SND-SEG-002"),
    must(WRITE, "bth.ack_req", "SND-ACKREQ-001"),
    must(WRITE, "bth.rtx", "BTH-RTX-001"),
    must(WRITE, "bth.psn", "SND-PSN-001"),
    must(WRITE, "bth.pad_count", "PAY-PAD-001"),
    must(WRITE, "meth.msn", "SND-MSN-002"),
    must(WRITE, "meth.rqmsn", "SND-RQMSN-002"),
    must(WRITE, "reth.", "SND-SEG-003"),
    must(WRITE, "immdt.", "SND-SEG-004"),
    must(DATA, "payload", "SND-SEG-001"),
    must(RTX, "payload", "SND-RTX-001"),
    must(WRITE, "tseth", "TSETH-PRESENT-001"),
    must(WRITE, "tseth.tsr", "SND-TS-002"),
    must(WRITE, "tseth.resv", "TSETH-RESV-001"),
    should(WRITE, "tseth.ftype", "TSETH-FTYPE-001"),
    must(WRITE, "bth.dest_qp", "SND-SEG-001"),
    // NACKs (RCV-NACK-001 and the NETH rules).
    must(NACK, "bth.dest_qp", "RCV-NACK-001"),
    must(NACK, "neth.nack_psn", "RCV-NACK-001"),
    must(NACK, "neth.entropy", "NETH-PSN-001"),
    must(NACK, "neth.tx_timestamp", "NETH-TS-001"),
    should(NACK, "neth.res_type", "NETH-TYPE-001"),
    should(NACK, "neth.next_header", "NETH-TYPE-001"),
    should(NACK, "neth.vendor_info", "NETH-VENDOR-001"),
    should(NACK, "neth.spdcid", "NETH-PDC-001"),
    should(NACK, "neth.dpdcid", "NETH-PDC-001"),
    should(NACK, "neth.cc_type", "NETH-CC-001"),
    should(NACK, "neth.cc_flags", "NETH-CC-001"),
    // Transport ACKs and NAKs (RCV-ACK-002, RCV-NAK-002, AETH-MSN-001).
    must(ACK, "bth.dest_qp", "RCV-ACK-002"),
    must(NAK, "bth.dest_qp", "RCV-NAK-002"),
    must(ACK, "aeth.msn", "AETH-MSN-001"),
    must(NAK, "aeth.msn", "RCV-NAK-002"),
    must(ACK, "ev", "RCV-ACK-002"),
    must(NAK, "ev", "RCV-NAK-002"),
    // Probes: EV-PROBE-005 fixes the PSN, the probe_id and the ftype of a probe; the
    // SHOULDs of OPC-PSN-001 and PETH-FTYPE-001 say no more than it for a probe.
    must(PROBE, "bth.dest_qp", "EV-PROBE-005"),
    must(PROBE, "bth.psn", "EV-PROBE-005"),
    must(PROBE, "peth.probe_id", "EV-PROBE-005"),
    must(PROBE, "peth.ftype", "EV-PROBE-005"),
    // Endpoint requests (REC-IF-017, ERTH-*) and responses (ERTH-RESP-001, EETH-*).
    must(EREQ | ERSP, "bth.dest_qp", "ERTH-QPN-001"),
    must(EREQ, "ev", "REC-IF-017"),
    must(EREQ, "erth.port_status", "ERTH-PORT-001"),
    must(EREQ, "erth.resv1", "ERTH-RESV-001"),
    must(EREQ, "erth.resv12", "ERTH-RESV-001"),
    must(EREQ, "erth.", "REC-IF-017"),
    must(ERSP, "ev", "ERTH-RESP-001"),
    must(ERSP, "eeth.port_status", "EETH-PORT-001"),
    must(ERSP, "eeth.resv2", "EETH-RESV-001"),
    should(ERSP, "eeth.data", "EETH-DATA-001"),
    must(ERSP, "eeth.op", "EETH-ECHO-001"),
    must(ERSP, "eeth.request_id", "EETH-ECHO-001"),
    // The BTH PSN of a packet that consumes none (OPC-PSN-001).
    should(SACK | NACK | ACK | NAK | EREQ | ERSP, "bth.psn", "OPC-PSN-001"),
];

/// The kind of a frame as a set member.
pub(super) fn kind_bit(k: &Kind) -> Kinds {
    match k {
        Kind::Data { rtx: false, .. } => DATA,
        Kind::Data { rtx: true, .. } => RTX,
        Kind::Sack { .. } => SACK,
        Kind::Nack { .. } => NACK,
        Kind::Ack { syndrome, .. } if super::ack_class(*syndrome).0 => ACK,
        Kind::Ack { .. } => NAK,
        Kind::Probe { .. } => PROBE,
        Kind::EndpointRequest { .. } => EREQ,
        Kind::Endpoint { .. } => ERSP,
        Kind::Other { .. } => 0,
    }
}

/// What a missing or otherwise unexplained frame of this kind breaks when no more specific
/// rule does: the rule that makes the frame due.
pub(super) fn default_rule(k: &Kind) -> Rule {
    match k {
        Kind::Data { rtx: true, .. } => "SND-RTX-001",
        Kind::Data { .. } => "SND-SEG-001",
        Kind::Nack { .. } => "RCV-NACK-001",
        Kind::Ack { syndrome, .. } if super::ack_class(*syndrome).0 => "RCV-ACK-001",
        Kind::Ack { .. } => "RCV-NAK-002",
        Kind::Endpoint { .. } => "ERTH-RESP-001",
        Kind::EndpointRequest { .. } => "REC-IF-017",
        Kind::Sack { .. } => "RCV-SACK-001",
        Kind::Probe { .. } | Kind::Other { .. } => "EV-PROBE-005",
    }
}

/// The rule a NACK of `reason` is due by, and its reason is fixed by.
pub fn nack_reason_rule(reason: u8) -> Rule {
    match openrdma_codec::NackReason(reason) {
        openrdma_codec::NackReason::PSN_OOR_WINDOW => "RCV-WIN-002",
        _ => "RCV-NACK-001",
    }
}

/// The rule and level of a field that differs between an expected frame of kind `k` and
/// the device's.
pub(super) fn rule_of(k: &Kind, f: &FieldDiff) -> (Rule, Level) {
    let bit = kind_bit(k);
    match (f.field.as_str(), k) {
        ("neth.reason", Kind::Nack { reason, .. }) => {
            return (nack_reason_rule(*reason), Level::Must);
        }
        ("aeth.syndrome", Kind::Ack { .. }) if super::is_ack_pair(f) => {
            return ("AETH-MRC-002", Level::Should);
        }
        ("aeth.syndrome", Kind::Ack { .. }) => return (default_ack_rule(k), Level::Must),
        // The choice among the non-zero statuses of an endpoint response.
        ("eeth.status", _) if f.expected != "0" && f.actual != "0" => {
            return ("EETH-STATUS-001", Level::Should);
        }
        ("eeth.status", _) => return ("EETH-STATUS-001", Level::Must),
        _ => {}
    }
    ROWS.iter()
        .find(|r| r.kinds & bit != 0 && fits(r.field, &f.field))
        .map_or((default_rule(k), Level::Must), |r| (r.rule, r.level))
}

fn default_ack_rule(k: &Kind) -> Rule {
    match kind_bit(k) {
        ACK => "RCV-ACK-002",
        _ => "RCV-NAK-002",
    }
}

fn fits(pattern: &str, field: &str) -> bool {
    match pattern.strip_suffix('.') {
        Some(p) => field.strip_prefix(p).is_some_and(|rest| rest.starts_with('.')),
        None => pattern == field,
    }
}

/// Gives each field its rule, and the divergence's name: the first MUST field's rule, or
/// the first field's when none is a MUST (then the divergence is non-strict).
pub(super) fn name(k: &Kind, fields: &mut [FieldDiff]) -> (Rule, bool) {
    let mut first_must = None;
    let mut first = None;
    for f in fields.iter_mut() {
        let (rule, level) = rule_of(k, f);
        f.requirement = rule.to_string();
        first.get_or_insert(rule);
        if level == Level::Must && first_must.is_none() {
            first_must = Some(rule);
        }
    }
    match (first_must, first) {
        (Some(r), _) => (r, false),
        (None, Some(r)) => (r, true),
        (None, None) => (default_rule(k), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The conflict tool (design 7.3): one field of one kind of frame is judged at one
    /// level, so a MUST is never weakened by a SHOULD on the same field.
    #[test]
    fn no_field_is_judged_at_two_levels() {
        let mut seen: HashMap<(u16, &str), (Rule, Level)> = HashMap::new();
        let mut conflicts = Vec::new();
        for r in ROWS {
            for bit in (0..9).map(|i| 1u16 << i).filter(|b| r.kinds & b != 0) {
                match seen.get(&(bit, r.field)) {
                    Some((rule, level)) if *level != r.level => conflicts
                        .push(format!("{} of kind {bit:#x}: {rule} and {}", r.field, r.rule)),
                    Some(_) => {}
                    None => {
                        seen.insert((bit, r.field), (r.rule, r.level));
                    }
                }
            }
        }
        assert!(conflicts.is_empty(), "fields judged at two levels: {conflicts:?}");
    }

    /// Every row is reachable: no earlier row of the same kinds shadows it entirely.
    #[test]
    fn no_row_is_shadowed() {
        for (i, r) in ROWS.iter().enumerate() {
            let field = r.field.strip_suffix('.').map_or(r.field.to_string(), |p| format!("{p}.x"));
            for bit in (0..9).map(|i| 1u16 << i).filter(|b| r.kinds & b != 0) {
                let first = ROWS.iter().position(|x| x.kinds & bit != 0 && fits(x.field, &field));
                assert_eq!(first, Some(i), "row {} is shadowed", r.field);
            }
        }
    }

    #[test]
    fn prefixes_fit_their_fields() {
        assert!(fits("reth.", "reth.va"));
        assert!(!fits("reth.", "rethx.va"));
        assert!(fits("tseth", "tseth"));
        assert!(!fits("tseth", "tseth.tsr"));
    }
}
