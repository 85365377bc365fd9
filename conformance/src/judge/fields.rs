//! The field table: which rule each compared field of a frame breaks, by kind of frame
//! (`spec/conformance.md`, CONF-CMP-037, CONF-CMP-017, CONF-CMP-026).
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
use crate::req::*;
use crate::requirements::Level;

/// A rule a check names: a clause of the specification, the leaf clause where its line is
/// marked. Its level is the clause's.
pub type Rule = Clause;

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

/// One row: a field (an exact name, or a prefix ending in `.`) of frames of `kinds`.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The kinds of frame it applies to.
    pub kinds: Kinds,
    /// The field, as `frame_fields` names it; a name ending in `.` is a prefix.
    pub field: &'static str,
    /// What a difference breaks; its level is the row's.
    pub rule: Rule,
}

const fn row(kinds: Kinds, field: &'static str, rule: Rule) -> Row {
    Row { kinds, field, rule }
}

/// Whether a rule makes a failure (MUST) rather than a non-strict verdict.
pub fn is_must(rule: Rule) -> bool {
    matches!(rule.level(), Level::Must)
}

/// The table, most specific rows first.
pub const ROWS: &[Row] = &[
    // What the link fixes, in every frame (CONF-CMP-026, ENC-UDP-001, BTH-PKEY-001).
    row(ALL, "eth.", CONF_CMP_026_B),
    row(ALL, "vlan.", CONF_CMP_026_B),
    row(ALL, "ip.", CONF_CMP_026_B),
    row(ALL, "udp.dst_port", ENC_UDP_001_A),
    row(ALL, "bth.pkey", BTH_PKEY_001),
    row(ALL, "icrc", ICRC_CALC_001),
    // Data packets (SND-SEG-*, SND-MSN-002, SND-RQMSN-002, SND-TS-002, ...).
    row(WRITE, "bth.opcode", SND_SEG_002),
    row(WRITE, "bth.ack_req", SND_ACKREQ_001),
    // A retransmission sent with `rtx` 0 breaks the sender's rule for retransmissions; a
    // first transmission with `rtx` 1, the header's.
    row(RTX, "bth.rtx", SND_RTX_002_A),
    row(DATA, "bth.rtx", BTH_RTX_001),
    // In every other MRC packet the bit is a SHOULD of the header's rule, no rule of the
    // packet's own fixes it, and its receiver ignores it (BTH-RTX-002, CONF-CMP-145).
    row(NACK | ACK | NAK | PROBE | EREQ | ERSP, "bth.rtx", BTH_RTX_002_A),
    row(WRITE, "bth.psn", SND_PSN_001),
    row(WRITE, "bth.pad_count", PAY_PAD_001),
    // A retransmission is a copy of its first transmission (SND-RTX-001.a): a header that
    // differs there was rebuilt wrong when resent, whatever rule built the first.
    row(RTX, "meth.", SND_RTX_001_A),
    row(RTX, "reth.", SND_RTX_001_A),
    row(RTX, "immdt.", SND_RTX_001_A),
    row(DATA, "meth.msn", SND_MSN_002),
    // Of a message without immediate data; see `rule_of` for the others.
    row(DATA, "meth.rqmsn", SND_RQMSN_002_B),
    row(DATA, "reth.va", SND_SEG_003_A),
    row(DATA, "reth.rkey", SND_SEG_003_B),
    row(DATA, "reth.dma_len", SND_SEG_003_C),
    row(DATA, "immdt.", SND_SEG_004),
    row(DATA, "payload", SND_SEG_001_B),
    row(RTX, "payload", SND_RTX_001_B),
    row(WRITE, "tseth", TSETH_PRESENT_001),
    row(WRITE, "tseth.tsr", SND_TS_002_B),
    row(WRITE, "tseth.resv", TSETH_RESV_001),
    row(WRITE, "tseth.ftype", TSETH_FTYPE_001_A),
    row(WRITE, "bth.dest_qp", SND_QPN_001),
    // NACKs (RCV-NACK-001 and the NETH rules).
    row(NACK, "bth.dest_qp", RCV_NACK_001_A),
    row(NACK, "neth.nack_psn", RCV_NACK_001_D),
    row(NACK, "neth.entropy", NETH_PSN_001),
    row(NACK, "neth.tx_timestamp", NETH_TS_001),
    row(NACK, "neth.res_type", NETH_TYPE_001_A),
    row(NACK, "neth.next_header", NETH_TYPE_001_A),
    row(NACK, "neth.vendor_info", NETH_VENDOR_001_A),
    row(NACK, "neth.spdcid", NETH_PDC_001_A),
    row(NACK, "neth.dpdcid", NETH_PDC_001_A),
    row(NACK, "neth.cc_type", NETH_CC_001),
    row(NACK, "neth.cc_flags", NETH_CC_001),
    // Transport ACKs and NAKs (RCV-ACK-002, RCV-NAK-002, AETH-MSN-001).
    row(ACK, "bth.dest_qp", RCV_ACK_002_A),
    row(NAK, "bth.dest_qp", RCV_NAK_002_A),
    row(ACK, "aeth.msn", AETH_MSN_001_A),
    row(NAK, "aeth.msn", RCV_NAK_002_C),
    row(ACK, "ev", RCV_ACK_002_B),
    row(NAK, "ev", RCV_NAK_002_B),
    // Probes: EV-PROBE-005 fixes the destination, the PSN, the probe_id and the ftype.
    row(PROBE, "bth.dest_qp", EV_PROBE_005_C),
    row(PROBE, "bth.psn", EV_PROBE_005_D),
    row(PROBE, "peth.probe_id", EV_PROBE_005_E),
    row(PROBE, "peth.ftype", EV_PROBE_005_G),
    // Endpoint requests (REC-IF-017, ERTH-*) and responses (ERTH-RESP-001, EETH-*).
    row(EREQ | ERSP, "bth.dest_qp", ERTH_QPN_001_A),
    row(EREQ, "ev", REC_IF_017_B),
    row(EREQ, "erth.port_status", ERTH_PORT_001),
    row(EREQ, "erth.resv1", ERTH_RESV_001),
    row(EREQ, "erth.resv12", ERTH_RESV_001),
    row(EREQ, "erth.", REC_IF_017_C),
    row(ERSP, "ev", ERTH_RESP_001_B),
    row(ERSP, "eeth.port_status", EETH_PORT_001),
    row(ERSP, "eeth.resv2", EETH_RESV_001),
    row(ERSP, "eeth.data", EETH_DATA_001_A),
    row(ERSP, "eeth.op", EETH_ECHO_001),
    row(ERSP, "eeth.request_id", EETH_ECHO_001),
    // The BTH PSN of a packet that consumes none (OPC-PSN-002): the MUST of the packet's
    // own rule where it fixes one, else the SHOULD.
    row(SACK, "bth.psn", RCV_SACK_005_I),
    row(NACK, "bth.psn", RCV_NACK_001_G),
    row(EREQ, "bth.psn", REC_IF_017_C),
    row(ACK | NAK, "bth.psn", OPC_PSN_002_B),
    row(ERSP, "bth.psn", OPC_PSN_002_C),
];

/// The fields judged outside the table, by the checks of every frame a device sends
/// (`link.rs`: addresses, hop limit, P_Key, destination QP) and of SACKs (`sacks.rs`), with
/// the rule each names: listed so that the conflict tool (`tests/conflicts.rs`) sees every
/// field a check judges.
pub const ELSEWHERE: &[Row] = &[
    row(ALL, "eth.src", CONF_CMP_026_B),
    row(ALL, "eth.dst", CONF_CMP_026_B),
    row(ALL, "vlan.vid", CONF_CMP_026_B),
    row(ALL, "ip.src", CONF_CMP_026_B),
    row(ALL, "ip.dst", CONF_CMP_026_B),
    row(ALL, "ipv4.ttl", ENC_HOP_001_C),
    row(ALL, "ipv6.hop_limit", ENC_HOP_001_C),
    row(ALL, "bth.pkey", BTH_PKEY_001),
    row(SACK, "bth.dest_qp", RCV_SACK_005_A),
    row(NACK, "bth.dest_qp", RCV_NACK_001_A),
    row(ACK, "bth.dest_qp", RCV_ACK_002_A),
    row(PROBE, "bth.dest_qp", EV_PROBE_005_C),
    row(SACK, "seth.sack_offset", RCV_SACK_005_C),
    row(SACK, "seth.mpr", RCV_SACK_005_E),
    row(SACK, "seth.res_type", RCV_SACK_005_H),
    row(SACK, "seth.next_header", RCV_SACK_005_H),
    row(SACK, "seth.spdcid", RCV_SACK_005_H),
    row(SACK, "seth.dpdcid", RCV_SACK_005_H),
    row(SACK, "seth.cc_type", RCV_SACK_005_H),
    row(SACK, "seth.cc_flags", RCV_SACK_005_H),
    row(SACK, "bth.psn", RCV_SACK_005_I),
];

/// A multi-byte field of a sent frame that a device can lay out wrong with its value
/// right: its bytes in the other order. A difference of that shape breaks the header's
/// layout rule, not the field's own (`rule_of`).
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// The field, as `frame_fields` names it.
    pub field: &'static str,
    /// Its width in bits, a multiple of 8.
    pub bits: u32,
    /// The header's layout rule.
    pub rule: Rule,
}

const fn layout(field: &'static str, bits: u32, rule: Rule) -> Layout {
    Layout { field, bits, rule }
}

/// The fields whose byte order the judge tells from a wrong value, with the layout rule
/// of their header (tables 8 to 22 of `spec/wire-format.md`).
pub const LAYOUTS: &[Layout] = &[
    layout("bth.pkey", 16, BTH_LAYOUT_001),
    layout("bth.dest_qp", 24, BTH_LAYOUT_001),
    layout("bth.psn", 24, BTH_LAYOUT_001),
    layout("meth.msn", 16, METH_LAYOUT_001),
    layout("meth.rqmsn", 16, METH_LAYOUT_001),
    layout("reth.va", 64, RETH_LAYOUT_001),
    layout("reth.rkey", 32, RETH_LAYOUT_001),
    layout("reth.dma_len", 32, RETH_LAYOUT_001),
    layout("immdt.imm", 32, IMMDT_LAYOUT_001),
    layout("aeth.msn", 24, AETH_LAYOUT_001),
    layout("neth.entropy", 32, NETH_LAYOUT_001),
    layout("neth.nack_psn", 24, NETH_LAYOUT_001),
    layout("neth.tx_timestamp", 16, NETH_LAYOUT_001),
    layout("neth.spdcid", 16, NETH_LAYOUT_001),
    layout("neth.dpdcid", 16, NETH_LAYOUT_001),
    layout("peth.probe_id", 16, PETH_LAYOUT_001),
    layout("erth.port_status", 32, ERTH_LAYOUT_001),
    layout("erth.request_id", 32, ERTH_LAYOUT_001),
    layout("eeth.port_status", 32, EETH_LAYOUT_001),
    layout("eeth.request_id", 32, EETH_LAYOUT_001),
];

/// `v`, a value of `bits` bits, with its bytes in the other order.
pub fn byte_swapped(v: u64, bits: u32) -> u64 {
    if bits == 0 || bits > 64 {
        return v;
    }
    v.swap_bytes() >> (64 - bits)
}

/// A value as `frame_fields` writes it: decimal, `0x` hex or `0b` binary.
fn number(v: &str) -> Option<u64> {
    if let Some(h) = v.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()
    } else if let Some(b) = v.strip_prefix("0b") {
        u64::from_str_radix(b, 2).ok()
    } else {
        v.parse().ok()
    }
}

/// The layout rule a difference of field `f` breaks when the device's value is the
/// expected one with its bytes in the other order.
pub(super) fn layout_rule(f: &FieldDiff) -> Option<Rule> {
    let l = LAYOUTS.iter().find(|l| l.field == f.field)?;
    let (e, a) = (number(&f.expected)?, number(&f.actual)?);
    (e != a && byte_swapped(e, l.bits) == a).then_some(l.rule)
}

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
        Kind::Data { rtx: true, .. } => SND_RTX_001_A,
        Kind::Data { .. } => SND_SEG_001_A,
        Kind::Nack { .. } => RCV_NACK_001_A,
        Kind::Ack { syndrome, .. } if super::ack_class(*syndrome).0 => RCV_ACK_001_A,
        Kind::Ack { .. } => RCV_NAK_002_A,
        Kind::Endpoint { .. } => ERTH_RESP_001_A,
        Kind::EndpointRequest { .. } => REC_IF_017_A,
        Kind::Sack { .. } => RCV_SACK_001_A,
        Kind::Probe { .. } | Kind::Other { .. } => EV_PROBE_005_A,
    }
}

/// The rule a NACK of `reason` is due by, and its reason is fixed by.
pub fn nack_reason_rule(reason: u8) -> Rule {
    match openrdma_codec::NackReason(reason) {
        openrdma_codec::NackReason::PSN_OOR_WINDOW => RCV_WIN_002_A,
        _ => RCV_NACK_001_C,
    }
}

/// What the field table needs to know of the expected frame beyond its kind.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Context {
    /// The frame is a packet of a Write-with-Immediate message.
    pub imm_message: bool,
    /// The device's frame is the expected one but for its BTH `ts` bit: it carries the
    /// TSETH its bit denies, or lacks the one its bit announces.
    pub ts_bit_only: bool,
    /// The rule the device's wrong ICRC breaks, by its cause (`wire::icrc_cause`).
    pub icrc: Option<Rule>,
    /// The device's BTH byte 1 carries `solicited` and `mig_req` the other way round
    /// (BTH-LAYOUT-001).
    pub bth_byte1_swapped: bool,
    /// The device's TSETH bytes 2 and 3 (`tsr`, `resv`, `ftype`) are the expected ones in
    /// the other order (TSETH-LAYOUT-001).
    pub tseth_word_swapped: bool,
    /// The device's data packet carries an opcode outside MRC, an RC or UC request where
    /// an MRC write is due: its header stack follows that opcode, so every field that
    /// differs is named by the rule that keeps data in MRC writes (OPC-MRC-002).
    pub foreign_opcode: bool,
    /// For a later packet of a message, a first transmission: what the device's own first
    /// packet of the message makes its headers (`message_rule`).
    pub head: Option<Head>,
}

/// The header fields a later packet of an MRC write message must share with the
/// device's own first packet of the message, or derive from it (METH-MSN-001,
/// METH-RQMSN-001, RETH-VA-002, RETH-RKEY-001, RETH-LEN-003).
#[derive(Debug, Clone, Copy)]
pub(super) struct Head {
    /// METH `msn` of the first packet.
    pub msn: u64,
    /// METH `rqmsn` of the first packet.
    pub rqmsn: u64,
    /// RETH `rkey` of the first packet.
    pub rkey: u64,
    /// RETH `dma_len` of the first packet.
    pub dma_len: u64,
    /// The `va` this packet must carry: the first packet's plus k × PMTU.
    pub va: u64,
}

/// The rule of the message's packets taken together that a field of a later packet
/// breaks, when it disagrees with the device's own first packet of the message. The
/// sender's rules (SND-SEG-003, SND-MSN-002, SND-RQMSN-002) compare each packet with the
/// work request; a packet that differs from its own message's first packet was built
/// wrong on its own, which the header's rule names. When the first packet is wrong too,
/// the first packet diverged first, under the sender's rule.
fn message_rule(k: &Kind, f: &FieldDiff, cx: Context) -> Option<Rule> {
    let Kind::Data { rtx: false, .. } = k else { return None };
    let h = cx.head?;
    let actual = number(&f.actual)?;
    let (want, rule) = match f.field.as_str() {
        "meth.msn" => (h.msn, METH_MSN_001),
        "meth.rqmsn" if cx.imm_message => (h.rqmsn, METH_RQMSN_001_A),
        "meth.rqmsn" => (h.rqmsn, METH_RQMSN_001_B),
        "reth.va" => (h.va, RETH_VA_002),
        "reth.rkey" => (h.rkey, RETH_RKEY_001),
        "reth.dma_len" => (h.dma_len, RETH_LEN_003),
        _ => return None,
    };
    (actual != want).then_some(rule)
}

/// The rule of a field that differs between an expected frame of kind `k` and the
/// device's.
pub(super) fn rule_of(k: &Kind, f: &FieldDiff, cx: Context) -> Rule {
    let bit = kind_bit(k);
    // Data in a packet that is no MRC write: the requester left MRC's operations, which
    // is the rule it breaks, not the choice among the MRC opcodes (SND-SEG-002).
    if cx.foreign_opcode && bit & WRITE != 0 {
        return OPC_MRC_002;
    }
    match (f.field.as_str(), k) {
        ("neth.reason", Kind::Nack { reason, .. }) => return nack_reason_rule(*reason),
        ("aeth.syndrome", Kind::Ack { .. }) if super::is_ack_pair(f) => return AETH_MRC_002_A,
        ("aeth.syndrome", Kind::Ack { .. }) => return default_ack_rule(k),
        // Bits 23:16 of an ACK's MSN, when bits 15:0 agree.
        ("aeth.msn", _) if bit == ACK && low16(&f.expected) == low16(&f.actual) => {
            return AETH_MSN_001_B;
        }
        ("meth.rqmsn", Kind::Data { rtx: false, .. }) if cx.imm_message => {
            return message_rule(k, f, cx).unwrap_or(SND_RQMSN_002_A);
        }
        // A TSETH sent or left out whole, its `ts` bit agreeing: the sender chose wrong
        // whether to timestamp (SND-TS-002). Only a `ts` bit that disagrees with the
        // headers breaks TSETH-PRESENT-001, the row's rule.
        ("tseth", _) if !cx.ts_bit_only && f.expected == "present" => return SND_TS_002_A,
        ("tseth", _) if !cx.ts_bit_only => return SND_TS_002_D,
        // UNSUPPORTED_OP where the operation succeeds: the device does not implement an
        // operation every NIC with endpoint operations performs (ERTH-RESP-001.c).
        ("eeth.status", _) if f.expected == "0" && f.actual == "1" => return ERTH_RESP_001_C,
        // The choice among the non-zero statuses of an endpoint response.
        ("eeth.status", _) if f.expected != "0" && f.actual != "0" => return EETH_STATUS_001_B,
        ("eeth.status", _) => return EETH_STATUS_001_A,
        ("icrc", _) if cx.icrc.is_some() => return cx.icrc.unwrap_or(ICRC_CALC_001),
        ("bth.solicited", _) if cx.bth_byte1_swapped => return BTH_LAYOUT_001,
        ("tseth.tsr" | "tseth.resv" | "tseth.ftype", _) if cx.tseth_word_swapped => {
            return TSETH_LAYOUT_001;
        }
        _ => {}
    }
    if let Some(rule) = layout_rule(f) {
        return rule;
    }
    if let Some(rule) = message_rule(k, f, cx) {
        return rule;
    }
    ROWS.iter()
        .find(|r| r.kinds & bit != 0 && fits(r.field, &f.field))
        .map_or(default_rule(k), |r| r.rule)
}

fn low16(v: &str) -> Option<u32> {
    v.parse::<u32>().ok().map(|x| x & 0xFFFF)
}

fn default_ack_rule(k: &Kind) -> Rule {
    match kind_bit(k) {
        ACK => RCV_ACK_002_A,
        _ => RCV_NAK_002_C,
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
pub(super) fn name(k: &Kind, fields: &mut [FieldDiff], cx: Context) -> (Rule, bool) {
    let mut first_must = None;
    let mut first = None;
    for f in fields.iter_mut() {
        let rule = rule_of(k, f, cx);
        f.name(rule);
        first.get_or_insert(rule);
        if is_must(rule) && first_must.is_none() {
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
        let mut seen: HashMap<(u16, &str), Rule> = HashMap::new();
        let mut conflicts = Vec::new();
        for r in ROWS {
            for bit in (0..9).map(|i| 1u16 << i).filter(|b| r.kinds & b != 0) {
                match seen.get(&(bit, r.field)) {
                    Some(rule) if is_must(*rule) != is_must(r.rule) => conflicts
                        .push(format!("{} of kind {bit:#x}: {rule} and {}", r.field, r.rule)),
                    Some(_) => {}
                    None => {
                        seen.insert((bit, r.field), r.rule);
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

    /// A value with its bytes in the other order names the header's layout rule; any other
    /// difference, and a field outside the layout table, does not.
    #[test]
    fn swapped_bytes_name_the_layout_rule() {
        assert_eq!(byte_swapped(0x12_3456, 24), 0x56_3412);
        assert_eq!(byte_swapped(0x1234, 16), 0x3412);
        assert_eq!(byte_swapped(0x0102_0304_0506_0708, 64), 0x0807_0605_0403_0201);
        let d = |field: &str, e: &str, a: &str| FieldDiff::new(field, e.into(), a.into());
        assert_eq!(layout_rule(&d("meth.msn", "1", "256")), Some(METH_LAYOUT_001));
        assert_eq!(layout_rule(&d("reth.va", "0x10", "0x1000000000000000")), Some(RETH_LAYOUT_001));
        assert_eq!(layout_rule(&d("aeth.msn", "1", "65536")), Some(AETH_LAYOUT_001));
        assert_eq!(layout_rule(&d("meth.msn", "1", "2")), None);
        assert_eq!(layout_rule(&d("meth.msn", "0x0101", "0x0101")), None);
        assert_eq!(layout_rule(&d("payload", "1", "256")), None);
        assert_eq!(layout_rule(&d("meth.msn", "x", "256")), None);
    }

    #[test]
    fn prefixes_fit_their_fields() {
        assert!(fits("reth.", "reth.va"));
        assert!(!fits("reth.", "rethx.va"));
        assert!(fits("tseth", "tseth"));
        assert!(!fits("tseth", "tseth.tsr"));
    }
}
