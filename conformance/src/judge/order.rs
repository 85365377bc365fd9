//! The order of a device's writes (`spec/conformance.md`, CONF-CMP-022).
//!
//! A device returns its outputs in the order in which they become visible: within a batch
//! the list is its visibility order, and batches follow each other in time. The four
//! sequences of CONF-CMP-009 fix the order of each kind of write; the rules here fix the
//! order across kinds, for the writes of one message or work request:
//!
//! * a receive completion is visible before the retirement flag of its message
//!   (FLAG-ORDER-002);
//! * a sender completion is visible before the sender flag of its work request
//!   (ORD-SEND-001), and the flag is the work request's last write: no completion or flag of
//!   it follows (ORD-SEND-003);
//! * no data packet of a message, first transmission or retransmission, follows its sender
//!   flag (ORD-SEND-002.b): every packet of it is sent or cancelled before the flag. The
//!   read of the local range that such a packet needs (ORD-SEND-002.a) is not seen at the
//!   device boundary, the packet is;
//! * the messages that an accepted write makes retirable retire before the next input is
//!   handled (RET-ORDER-002): no retirement flag follows a DMA write that a later input
//!   caused.
//!
//! A work request is known by its QP, its MSN and its generation (the `seq` of its token,
//! bits 47:32 of its `wr_id`); a message by its QP and MSN, a data packet's QP being the
//! device's QP facing the packet's destination. What the expected records themselves do is
//! never a divergence: the rules run over the scenario first, and a breach found there (two
//! work requests that share a key, say) exempts that key from every rule.

use std::collections::{HashMap, HashSet};

use openrdma_codec::frame::decode;
use openrdma_device::{Body, Direction, NicEvent, Output, Scenario, Side, TimedOutput};

use super::obs::{In, Kind};
use super::{Divergence, events::payload_bytes, render_event, render_frame};
use crate::req::{Clause, FLAG_ORDER_002, ORD_SEND_001, ORD_SEND_002, ORD_SEND_003, RET_ORDER_002};
use openrdma_codec::Msn;

/// A work request: device QP, MSN, generation.
type WrKey = (u32, Msn, u16);
/// A message: device QP, MSN.
type MsgKey = (u32, Msn);
/// A DMA write, as CONF-CMP-034 matches it: QP, address, bytes.
type DmaKey = (u32, u64, Vec<u8>);

/// What an output is, for these rules.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    SendCompletion(WrKey),
    SendFlag(WrKey),
    RecvCompletion(MsgKey),
    RecvFlag(MsgKey),
    Data(MsgKey),
    Dma(DmaKey),
    /// An inject record: the boundary between the outputs of two inputs (expected only).
    Input,
    Other,
}

/// A rule of CONF-CMP-022.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Rule {
    RecvEntryLate,
    SendEntryLate,
    WriteAfterSendFlag,
    DataAfterSendFlag,
    FlagAgain,
    CompletedAgain,
}

impl Rule {
    fn clause(self) -> Clause {
        use crate::req::{
            FLAG_ORDER_002, FLAG_SEND_001_A, ORD_SEND_001, ORD_SEND_002_B, ORD_SEND_003,
            RET_SEND_001,
        };
        match self {
            Rule::RecvEntryLate => FLAG_ORDER_002,
            Rule::SendEntryLate => ORD_SEND_001,
            Rule::WriteAfterSendFlag => ORD_SEND_003,
            Rule::DataAfterSendFlag => ORD_SEND_002_B,
            Rule::FlagAgain => FLAG_SEND_001_A,
            Rule::CompletedAgain => RET_SEND_001,
        }
    }
}

/// The key a breach is exempted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Wr(WrKey),
    Msg(MsgKey),
}

#[derive(Debug, Clone, Copy)]
struct Breach {
    pos: usize,
    rule: Rule,
    key: Key,
}

fn item_of_event(e: &NicEvent) -> Item {
    match e {
        NicEvent::Completion(c) => {
            let x = &c.entry;
            match c.side {
                Side::Requester => {
                    Item::SendCompletion((x.qpn.value(), x.msn, (x.wr_id >> 32) as u16))
                }
                Side::Responder => Item::RecvCompletion((x.qpn.value(), x.msn)),
            }
        }
        NicEvent::FlagWrite(f) => match f.side {
            Side::Requester => Item::SendFlag((f.qpn.value(), f.msn, (f.value >> 48) as u16)),
            Side::Responder => Item::RecvFlag((f.qpn.value(), f.msn)),
        },
        NicEvent::DmaWrite(w) => Item::Dma((w.qpn.value(), w.va, payload_bytes(&w.payload))),
        NicEvent::Report(_) => Item::Other,
    }
}

fn item_of_frame(bytes: &[u8], local_of: &HashMap<u32, u32>) -> Item {
    let d = decode(bytes);
    let (Some(bth), Some(meth)) = (d.bth, d.ext.meth) else { return Item::Other };
    if !bth.opcode.is_mrc_write() || d.error.is_some() {
        return Item::Other;
    }
    match local_of.get(&bth.dest_qp.value()) {
        Some(&qp) => Item::Data((qp, meth.msn)),
        None => Item::Other,
    }
}

/// The breaches of the per-message rules in a stream of items, in order.
fn breaches(items: &[Item]) -> Vec<Breach> {
    // Per work request: completions seen before its flag, once the flag came.
    let mut completions: HashMap<WrKey, u32> = HashMap::new();
    let mut send_flagged: HashMap<WrKey, u32> = HashMap::new();
    let mut send_flagged_msgs: HashSet<MsgKey> = HashSet::new();
    let mut recv_flagged: HashSet<MsgKey> = HashSet::new();
    // Work requests whose sender flag is written twice: with a completion entry written
    // again between its flags, the work request completed again, whole (RET-SEND-001);
    // with the flag alone written again, it has more than one sender flag (FLAG-SEND-001.a).
    let mut flags: HashMap<WrKey, u32> = HashMap::new();
    for item in items {
        if let Item::SendFlag(k) = item {
            *flags.entry(*k).or_default() += 1;
        }
    }
    let flagged_again = |k: &WrKey| flags.get(k).is_some_and(|&n| n > 1);
    // Work requests with a completion entry after their first sender flag.
    let mut entry_after_flag: HashSet<WrKey> = HashSet::new();
    let mut out = Vec::new();
    for (pos, item) in items.iter().enumerate() {
        let mut breach = |rule, key| out.push(Breach { pos, rule, key });
        match item {
            Item::SendCompletion(k) => match send_flagged.get(k) {
                // Its only completion, after its flag: the entry came too late.
                Some(0) => breach(Rule::SendEntryLate, Key::Wr(*k)),
                // A second completion, after the flag.
                Some(_) => {
                    entry_after_flag.insert(*k);
                    let rule = if flagged_again(k) {
                        Rule::CompletedAgain
                    } else {
                        Rule::WriteAfterSendFlag
                    };
                    breach(rule, Key::Wr(*k))
                }
                None => *completions.entry(*k).or_default() += 1,
            },
            Item::SendFlag(k) => {
                if send_flagged.contains_key(k) {
                    let rule = if entry_after_flag.contains(k) {
                        Rule::CompletedAgain
                    } else {
                        Rule::FlagAgain
                    };
                    breach(rule, Key::Wr(*k));
                } else {
                    send_flagged.insert(*k, completions.get(k).copied().unwrap_or(0));
                    send_flagged_msgs.insert((k.0, k.1));
                }
            }
            Item::Data(m) if send_flagged_msgs.contains(m) => {
                breach(Rule::DataAfterSendFlag, Key::Msg(*m))
            }
            Item::RecvCompletion(m) if recv_flagged.contains(m) => {
                breach(Rule::RecvEntryLate, Key::Msg(*m))
            }
            Item::RecvFlag(m) => {
                recv_flagged.insert(*m);
            }
            _ => {}
        }
    }
    out
}

/// The wr_ids of the sender entries the scenario expects, per work request: an entry whose
/// key names a work request but whose wr_id is none of its own is not that work request's
/// entry, late or repeated; its QPN or MSN is wrong, and the sequence of sender entries
/// names it (CQE-SEND-001).
fn send_ids(scenario: &Scenario) -> HashMap<WrKey, HashSet<u64>> {
    let mut out: HashMap<WrKey, HashSet<u64>> = HashMap::new();
    for r in &scenario.records {
        if let (Direction::Expect, Body::Event { event }) = (&r.dir, &r.body) {
            if let (Item::SendCompletion(k), NicEvent::Completion(c)) =
                (item_of_event(event), event)
            {
                out.entry(k).or_default().insert(c.entry.wr_id);
            }
        }
    }
    out
}

/// Judges the order of the device's writes (CONF-CMP-022). `local_of` maps a peer's QP
/// number to the device's QP facing it.
pub(super) fn judge(
    scenario: &Scenario,
    observed: &[TimedOutput],
    local_of: &HashMap<u32, u32>,
    inputs: &[In<'_>],
    div: &mut Vec<Divergence>,
) {
    let expected: Vec<Item> = scenario
        .records
        .iter()
        .map(|r| match (&r.dir, &r.body) {
            (Direction::Inject, _) => Item::Input,
            (Direction::Expect, Body::Event { event }) => item_of_event(event),
            (Direction::Expect, Body::Frame { bytes, .. }) => item_of_frame(bytes, local_of),
            _ => Item::Other,
        })
        .collect();
    let got: Vec<Item> = observed
        .iter()
        .map(|o| match &o.output {
            Output::Event { event } => item_of_event(event),
            Output::Frame { bytes, .. } => item_of_frame(bytes, local_of),
        })
        .collect();

    // A key the expected records breach names two work requests or messages (a token
    // flushed without an MSN shares MSN 0 and its generation with the QP's first message,
    // say): the key cannot tell which one a write of the device belongs to, so no rule is
    // judged on it, whichever rule the device's writes would breach (CONF-CMP-131).
    let exempt: HashSet<Key> = breaches(&expected).into_iter().map(|b| b.key).collect();
    let with_completion: HashSet<&WrKey> = expected
        .iter()
        .filter_map(|i| match i {
            Item::SendCompletion(k) => Some(k),
            _ => None,
        })
        .collect();
    // The messages with a receive completion, and where the device wrote the first entry
    // that names each.
    let recv_entries: HashSet<&MsgKey> = expected
        .iter()
        .filter_map(|i| match i {
            Item::RecvCompletion(k) => Some(k),
            _ => None,
        })
        .collect();
    let send_ids = send_ids(scenario);
    let mut first_entry: HashMap<&MsgKey, usize> = HashMap::new();
    for (pos, item) in got.iter().enumerate() {
        if let Item::RecvCompletion(k) = item {
            first_entry.entry(k).or_insert(pos);
        }
    }
    for mut b in breaches(&got) {
        // A completion after the flag of a work request that has none: not a late entry
        // but a write after the last one.
        if let (Rule::SendEntryLate, Key::Wr(k)) = (b.rule, b.key) {
            if !with_completion.contains(&k) {
                b.rule = Rule::WriteAfterSendFlag;
            }
        }
        // A receive entry names its message by its own QPN and MSN fields. One that names
        // a message without a receive completion, or one whose entry came already, is
        // not that message's entry late: a field of it is wrong, and the sequence of
        // receive entries names it (CQE-RECV-001).
        if let (Rule::RecvEntryLate, Key::Msg(k)) = (b.rule, b.key) {
            if !recv_entries.contains(&k) || first_entry.get(&k) != Some(&b.pos) {
                continue;
            }
        }
        if let (Key::Wr(k), Output::Event { event: NicEvent::Completion(c) }) =
            (b.key, &observed[b.pos].output)
        {
            if send_ids.get(&k).is_some_and(|ids| !ids.contains(&c.entry.wr_id)) {
                continue;
            }
        }
        if exempt.contains(&b.key) {
            continue;
        }
        let o = &observed[b.pos];
        let mut requirement = b.rule.clause();
        let (actual, what) = match &o.output {
            Output::Event { event } => (render_event(event), describe(b, event)),
            Output::Frame { bytes, .. } => {
                let whose = match b.key {
                    Key::Msg((qp, msn)) | Key::Wr((qp, msn, _)) => {
                        format!("message {msn} of QP {qp:#x}")
                    }
                };
                // Resent for a NACK that came after its PSN was acknowledged: the stale
                // NACK, which changes nothing, is the cause (SND-NACK-001.a).
                let f = super::obs::classify(o.at.0, bytes);
                let stale = match f.kind {
                    Kind::Data { qp, rtx: true, .. } => local_of.get(&qp).is_some_and(|&l| {
                        super::unexpected::stale_nack(inputs, l, o.at.0, &f.kind)
                    }),
                    _ => false,
                };
                if stale {
                    requirement = crate::req::SND_NACK_001_A;
                }
                // Inferred lost from a SACK, its message completed by a transport ACK: the
                // ACK did not make its PSNs known to have arrived (SND-ACK-001.b).
                let late = scenario.manifest.tolerances.late_ns;
                let acked = match f.kind {
                    Kind::Data { qp, rtx: true, .. } => local_of.get(&qp).is_some_and(|&l| {
                        super::unexpected::inferred_after_ack(inputs, l, &f, late)
                    }),
                    _ => false,
                };
                if acked && !stale {
                    requirement = crate::req::SND_ACK_001_B;
                }
                (
                    render_frame(bytes),
                    format!(
                        "a data packet of {whose} after its sender flag: the NIC read the \
                         message's local range again"
                    ),
                )
            }
        };
        div.push(Divergence {
            actual: Some(actual),
            ..Divergence::named(o.at.0, requirement, what)
        });
    }

    let orders = super::sequences::Orders::of(scenario);
    retire_before_next_input(&expected, &got, observed, &|qp| orders.domain(qp), div);
}

fn describe(b: Breach, e: &NicEvent) -> String {
    let whose = match b.key {
        Key::Wr((qp, msn, generation)) => {
            format!("work request MSN {msn} generation {generation} of QP {qp:#x}")
        }
        Key::Msg((qp, msn)) => format!("message {msn} of QP {qp:#x}"),
    };
    let kind = if matches!(e, NicEvent::FlagWrite(_)) { "flag" } else { "completion entry" };
    match b.rule {
        Rule::RecvEntryLate => {
            format!("the receive completion of {whose} came after its retirement flag")
        }
        Rule::SendEntryLate => {
            format!("the completion entry of {whose} came after its sender flag")
        }
        Rule::CompletedAgain => {
            format!("a {kind} of {whose} came after its sender flag: it completed again")
        }
        Rule::FlagAgain => {
            format!("a second sender flag of {whose}: each work request has exactly one")
        }
        _ => {
            format!("a {kind} of {whose} came after its sender flag, which must be its last write")
        }
    }
}

/// RET-ORDER-002: every retirement flag the scenario expects before an input comes, in the
/// device's output, before each DMA write of the flag's own retirement domain that the
/// scenario expects after that input. Reports the first breach only: one late retirement
/// delays every flag behind it.
///
/// `domain_of` gives a QP's retirement domain. RET-ORDER-002 orders a domain's retirements
/// before its next input; the writes of another domain may come before or after them, as
/// a device may make each output visible up to `late_ns / 2` later on its own. A QP of
/// no known domain is ordered with every write.
fn retire_before_next_input(
    expected: &[Item],
    got: &[Item],
    observed: &[TimedOutput],
    domain_of: &dyn Fn(u32) -> Option<u64>,
    div: &mut Vec<Divergence>,
) {
    let same_domain = |a: u32, b: u32| match (domain_of(a), domain_of(b)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    };
    // Where each expected flag and DMA write is in the device's output.
    let mut first_flag: HashMap<&MsgKey, usize> = HashMap::new();
    let mut dma_at: HashMap<&DmaKey, Vec<usize>> = HashMap::new();
    for (pos, item) in got.iter().enumerate() {
        match item {
            Item::RecvFlag(m) => {
                first_flag.entry(m).or_insert(pos);
            }
            Item::Dma(k) => dma_at.entry(k).or_default().push(pos),
            _ => {}
        }
    }
    // The n-th expected DMA write of a key is the device's n-th.
    let mut seen: HashMap<&DmaKey, usize> = HashMap::new();
    // (expected pos, QP, observed pos)
    let mut later: Vec<(usize, u32, Option<usize>)> = Vec::new();
    for (pos, item) in expected.iter().enumerate() {
        if let Item::Dma(k) = item {
            let n = seen.entry(k).or_default();
            later.push((pos, k.0, dma_at.get(k).and_then(|v| v.get(*n)).copied()));
            *n += 1;
        }
    }
    for (pos, item) in expected.iter().enumerate() {
        let Item::RecvFlag(m) = item else { continue };
        let Some(&flag) = first_flag.get(m) else { continue }; // missing: CONF-CMP-009
        let Some(next_input) = expected[pos..].iter().position(|i| *i == Item::Input) else {
            continue;
        };
        let boundary = pos + next_input;
        let earlier = later
            .iter()
            .filter(|&&(e, qp, _)| e > boundary && same_domain(qp, m.0))
            .filter_map(|&(_, _, o)| o)
            .filter(|&o| o < flag)
            .min();
        if let Some(dma) = earlier {
            let Output::Event { event: dma_event } = &observed[dma].output else { continue };
            let Output::Event { event: flag_event } = &observed[flag].output else { continue };
            div.push(Divergence {
                actual: Some(render_event(flag_event)),
                ..Divergence::named(
                    observed[flag].at.0,
                    crate::req::RET_ORDER_002,
                    format!(
                        "the retirement flag of message {} of QP {:#x} came after a DMA write \
                     that a later input caused ({}): messages a write makes retirable retire \
                     before the next input is handled",
                        m.1,
                        m.0,
                        render_event(dma_event)
                    ),
                )
            });
            return;
        }
    }
}

/// The requirements of CONF-CMP-022 that `scenario` gives the scoreboard occasion to
/// check: those whose writes its expected records hold. A scenario names them in its
/// manifest (`openrdma_corpus`, its `done`).
///
/// * FLAG-ORDER-002 when a message has both a receive completion and a retirement flag;
/// * ORD-SEND-001 when a work request has both a completion entry and a sender flag;
/// * ORD-SEND-003 when a work request has a sender flag, after which any write of it shows;
/// * ORD-SEND-002 when a message with a sender flag has data packets;
/// * RET-ORDER-002 when one input makes two messages or more retire and a DMA write is
///   expected after a later input, so that a device that retires them one input at a time
///   shows a flag after that write.
pub fn requirements(scenario: &Scenario) -> Vec<Clause> {
    let local_of = super::peer_map(scenario);
    let mut send_completed = HashSet::new();
    let mut send_flagged = HashSet::new();
    let mut recv_completed = HashSet::new();
    let mut recv_flagged = HashSet::new();
    let mut data = HashSet::new();
    let mut out = Vec::new();
    let mut flags_in_group = 0;
    let mut burst = false;
    for r in &scenario.records {
        let item = match (&r.dir, &r.body) {
            (Direction::Inject, _) => Item::Input,
            (Direction::Expect, Body::Event { event }) => item_of_event(event),
            (Direction::Expect, Body::Frame { bytes, .. }) => item_of_frame(bytes, &local_of),
            _ => Item::Other,
        };
        match item {
            Item::SendCompletion(k) => {
                send_completed.insert(k);
            }
            Item::SendFlag(k) => {
                send_flagged.insert(k);
            }
            Item::RecvCompletion(m) => {
                recv_completed.insert(m);
            }
            Item::RecvFlag(m) => {
                recv_flagged.insert(m);
                flags_in_group += 1;
            }
            Item::Data(m) => {
                data.insert(m);
            }
            Item::Dma(_) if burst && !out.contains(&RET_ORDER_002) => out.push(RET_ORDER_002),
            Item::Input => {
                burst |= flags_in_group >= 2;
                flags_in_group = 0;
            }
            _ => {}
        }
    }
    if recv_completed.intersection(&recv_flagged).next().is_some() {
        out.push(FLAG_ORDER_002);
    }
    if send_completed.intersection(&send_flagged).next().is_some() {
        out.push(ORD_SEND_001);
    }
    if send_flagged.iter().any(|&(qp, msn, _)| data.contains(&(qp, msn))) {
        out.push(ORD_SEND_002);
    }
    if !send_flagged.is_empty() {
        out.push(ORD_SEND_003);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const WR: WrKey = (0x11, Msn::new(3), 7);
    const MSG: MsgKey = (0x11, Msn::new(3));

    fn rules(items: &[Item]) -> Vec<(usize, &'static str)> {
        breaches(items).into_iter().map(|b| (b.pos, b.rule.clause().id())).collect()
    }

    /// ORD-SEND-001, ORD-SEND-003: the entry before the flag, and nothing of the work
    /// request after it.
    #[test]
    fn sender_completion_and_flag() {
        use Item::*;
        assert!(rules(&[SendCompletion(WR), SendFlag(WR)]).is_empty());
        assert_eq!(rules(&[SendFlag(WR), SendCompletion(WR)]), [(1, "ORD-SEND-001")]);
        assert_eq!(
            rules(&[SendCompletion(WR), SendFlag(WR), SendCompletion(WR)]),
            [(2, "ORD-SEND-003")]
        );
        // The flag alone written again: one sender flag per work request.
        assert_eq!(rules(&[SendFlag(WR), SendFlag(WR)]), [(1, "FLAG-SEND-001.a")]);
        assert_eq!(
            rules(&[SendCompletion(WR), SendFlag(WR), SendFlag(WR)]),
            [(2, "FLAG-SEND-001.a")]
        );
        // Completed again, entry and flag: each work request completes once.
        assert_eq!(
            rules(&[SendCompletion(WR), SendFlag(WR), SendCompletion(WR), SendFlag(WR)]),
            [(2, "RET-SEND-001"), (3, "RET-SEND-001")]
        );
        // Another work request of the same message number but another generation is not
        // the same request.
        assert!(rules(&[SendFlag(WR), SendCompletion((0x11, Msn::new(3), 8))]).is_empty());
    }

    /// ORD-SEND-002: no data packet of the message after its sender flag.
    #[test]
    fn data_after_the_sender_flag() {
        use Item::*;
        assert!(rules(&[Data(MSG), SendFlag(WR)]).is_empty());
        assert_eq!(rules(&[Data(MSG), SendFlag(WR), Data(MSG)]), [(2, "ORD-SEND-002.b")]);
        assert!(
            rules(&[SendFlag(WR), Data((0x11, Msn::new(4))), Data((0x12, Msn::new(3)))]).is_empty()
        );
    }

    /// FLAG-ORDER-002: the receive completion before the retirement flag.
    #[test]
    fn receive_completion_before_the_flag() {
        use Item::*;
        assert!(rules(&[RecvCompletion(MSG), RecvFlag(MSG)]).is_empty());
        assert_eq!(rules(&[RecvFlag(MSG), RecvCompletion(MSG)]), [(1, "FLAG-ORDER-002")]);
    }
}
