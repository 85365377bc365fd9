//! The scenarios' own host software obeys the rules that bind host software
//! (`spec/host-interface.md`, subject `host`): a NIC cannot observe them, so each scenario's
//! host commands — the driver's set-up, the consumer of its completion queues, the producer
//! of its tokens, the application at each end — are held to them here, over the whole
//! corpus. A builder that broke one would record what the reference model does for a host
//! the specification does not allow, and the scenario would test nothing a device owes.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use common::*;
use openrdma_codec::TemplateId;
use openrdma_codec::frame::decode;
use openrdma_codec::host::{DoorbellToken, FlagRepr, Template};
use openrdma_device::{Body, Capability, CqId, Direction, HostCommand, NicEvent, Scenario, Side};

/// The inject records' host commands of `s`, with their times, in order.
fn host_commands(s: &Scenario) -> Vec<(u64, &HostCommand)> {
    s.records
        .iter()
        .filter(|r| r.dir == Direction::Inject)
        .filter_map(|r| match &r.body {
            Body::Host { command } => Some((r.at.0, command)),
            _ => None,
        })
        .collect()
}

/// The expected events of `s`, with their times, in order.
fn expected_events(s: &Scenario) -> Vec<(u64, &NicEvent)> {
    s.records
        .iter()
        .filter(|r| r.dir == Direction::Expect)
        .filter_map(|r| match &r.body {
            Body::Event { event } => Some((r.at.0, event)),
            _ => None,
        })
        .collect()
}

/// CQE-SETUP-001, CQE-SETUP-002, CQE-SETUP-003: in every scenario whose QPs have completion
/// queues, the driver creates each queue — with a number of its own, a 32-byte aligned
/// base, a power-of-two size from 1 to 2^31 and a ring below 2^64 — before a QP, the device
/// error queue or a consumer write names it; names both queues of every QP it creates; and
/// designates the device error queue before the first doorbell token.
#[test]
fn cqe_setup_001_queues_are_set_up_before_use() {
    let mut checked = 0;
    for s in all_scenarios() {
        let name = &s.manifest.name;
        if !s.manifest.requires.contains(&Capability::CompletionQueues) {
            continue;
        }
        checked += 1;
        let mut queues: BTreeSet<CqId> = BTreeSet::new();
        let mut error_queue = false;
        for (at, c) in host_commands(&s) {
            let exists = |cq: CqId, what: &str| {
                assert!(
                    queues.contains(&cq),
                    "{name} at {at}: {what} names queue {cq} before it exists"
                );
            };
            match c {
                HostCommand::CreateCq(q) => {
                    assert!(queues.insert(q.cq), "{name}: queue {} created twice", q.cq);
                    assert!(
                        q.entries.is_power_of_two() && q.entries <= 1 << 31,
                        "{name}: queue {} of {} entries",
                        q.cq,
                        q.entries
                    );
                    assert_eq!(q.base % 32, 0, "{name}: queue {} at {:#x}", q.cq, q.base);
                    let end = u128::from(q.base) + 32 * u128::from(q.entries);
                    assert!(end <= 1 << 64, "{name}: queue {} runs past 2^64", q.cq);
                }
                HostCommand::CreateQp(q) => {
                    // CQE-SETUP-002.
                    let (Some(send), Some(recv)) = (q.send_cq, q.recv_cq) else {
                        panic!("{name}: QP {} names {:?} and {:?}", q.qpn, q.send_cq, q.recv_cq)
                    };
                    exists(send, "a QP's send queue");
                    exists(recv, "a QP's receive queue");
                }
                HostCommand::SetErrorCq { cq } => {
                    exists(*cq, "the device error queue");
                    error_queue = true;
                }
                HostCommand::CqConsumer { cq, .. } => exists(*cq, "a consumer write"),
                // CQE-SETUP-003.
                HostCommand::Doorbell { .. } | HostCommand::DoorbellWrite(_) => {
                    assert!(error_queue, "{name} at {at}: a token before the device error queue")
                }
                _ => {}
            }
        }
    }
    assert!(checked >= 4, "only {checked} scenarios with completion queues");
}

/// CQE-RING-006: no consumer write of a scenario releases an entry the NIC has not written:
/// with `c_prev` the count written before (0 at first) and k the entries written to the
/// queue by then, `(c − c_prev) mod 2^32 ≤ (k − c_prev) mod 2^32`, the entries written
/// being those the scenario expects at or before the write.
#[test]
fn cqe_ring_006_consumers_release_only_written_entries() {
    let mut writes = 0;
    for s in all_scenarios() {
        let name = &s.manifest.name;
        // Per queue, the times of the entries written, in order.
        let mut entries: HashMap<CqId, Vec<u64>> = HashMap::new();
        for (at, e) in expected_events(&s) {
            if let NicEvent::Completion(c) = e {
                if let Some(q) = c.queue {
                    entries.entry(q.cq).or_default().push(at);
                }
            }
        }
        let mut prev: HashMap<CqId, u32> = HashMap::new();
        for (at, c) in host_commands(&s) {
            let HostCommand::CqConsumer { cq, consumed } = c else { continue };
            writes += 1;
            let written = entries.get(cq).map_or(&[][..], Vec::as_slice);
            let k = written.iter().filter(|&&t| t <= at).count() as u32;
            let c_prev = prev.insert(*cq, *consumed).unwrap_or(0);
            assert!(
                consumed.wrapping_sub(c_prev) <= k.wrapping_sub(c_prev),
                "{name} at {at}: queue {cq} released to {consumed} from {c_prev}, {k} written"
            );
        }
    }
    assert!(writes >= 3, "only {writes} consumer writes in the corpus");
}

/// FLAG-RECV-004: no scenario's sender starts the message with MSN m + `recv_flag_slots`
/// on a QP with retirement flags before the receiver has its retirement flag of message m,
/// which the slot would otherwise hold for two messages at once.
#[test]
fn flag_recv_004_a_sender_waits_for_the_flag_a_slot_still_holds() {
    let mut pairs = 0;
    for s in all_scenarios() {
        let name = &s.manifest.name;
        // The flag slots of each of the device's QPs with retirement flags.
        let mut slots: HashMap<u32, u32> = HashMap::new();
        for (_, c) in host_commands(&s) {
            if let HostCommand::CreateQp(q) = c {
                if q.recv_flag_slots > 0 {
                    slots.insert(q.qpn.value(), q.recv_flag_slots);
                }
            }
        }
        // When each message's first packet came, per (device QP, MSN).
        let mut started: BTreeMap<(u32, u16), u64> = BTreeMap::new();
        for r in s.records.iter().filter(|r| r.dir == Direction::Inject) {
            let Body::Frame { bytes, .. } = &r.body else { continue };
            let d = decode(bytes);
            let (Some(bth), Some(meth)) = (d.bth, d.ext.meth) else { continue };
            if bth.opcode.is_mrc_write() && slots.contains_key(&bth.dest_qp.value()) {
                started.entry((bth.dest_qp.value(), meth.msn.value())).or_insert(r.at.0);
            }
        }
        let mut flagged: HashMap<(u32, u16), u64> = HashMap::new();
        for (at, e) in expected_events(&s) {
            if let NicEvent::FlagWrite(f) = e {
                if f.side == Side::Responder {
                    flagged.entry((f.qpn.value(), f.msn.value())).or_insert(at);
                }
            }
        }
        for (&(qp, n), &t) in &started {
            let k = slots[&qp];
            let m = n.wrapping_sub(k as u16);
            if k > u32::from(u16::MAX) || !started.contains_key(&(qp, m)) {
                continue;
            }
            pairs += 1;
            let flag = flagged.get(&(qp, m));
            assert!(
                flag.is_some_and(|&f| f <= t),
                "{name}: QP {qp:#x} message {n} starts at {t}, while slot {} still waits for \
                 message {m}'s flag ({flag:?})",
                u32::from(n) % k
            );
        }
    }
    assert!(pairs > 0, "no scenario reuses a retirement flag slot");
}

/// How the producer of `s` breaks FLAG-REUSE-001, if it does, and how many times it
/// reuses a sender flag slot. A use is a token the NIC accepts (one whose sender flag the
/// scenario expects, FLAG-SEND-001); a rejected token takes no slot, since it writes no
/// flag (FLAG-SEND-003).
fn flag_reuse(s: &Scenario) -> (Vec<String>, usize) {
    let name = &s.manifest.name;
    // The sender flags expected, by address: (generation, time), in order.
    let mut flags: HashMap<u64, Vec<(u16, u64)>> = HashMap::new();
    for (at, e) in expected_events(s) {
        if let NicEvent::FlagWrite(f) = e {
            if f.side == Side::Requester {
                let generation = FlagRepr::from_u64(f.value).generation;
                flags.entry(f.addr).or_default().push((generation, at));
            }
        }
    }
    let mut templates: HashMap<TemplateId, Template> = HashMap::new();
    let mut send_flag_base: HashMap<u32, u64> = HashMap::new();
    // Per flag address: the last accepted use (seq, index of its flag in `flags`).
    let mut last: HashMap<u64, (u16, usize)> = HashMap::new();
    let (mut breaches, mut reuses) = (Vec::new(), 0);
    for (at, c) in host_commands(s) {
        let token = match c {
            HostCommand::CreateQp(q) => {
                send_flag_base.insert(q.qpn.value(), q.send_flag_base);
                continue;
            }
            HostCommand::SetTemplate(t) => {
                templates.insert(t.template_id, *t);
                continue;
            }
            HostCommand::Doorbell { token } => *token,
            HostCommand::DoorbellWrite(w) => match w.token() {
                Some(t) => t,
                None => continue,
            },
            _ => continue,
        };
        let t = DoorbellToken::from_u64(token);
        let Some(tpl) = templates.get(&t.template) else { continue };
        let Some(&base) = send_flag_base.get(&tpl.qpn.value()) else { continue };
        let slot = tpl.flag_base_slot.wrapping_add(u32::from(t.index));
        let addr = base + 8 * u64::from(slot);
        let uses = flags.get(&addr).map_or(&[][..], Vec::as_slice);
        let from = last.get(&addr).map_or(0, |&(_, i)| i + 1).min(uses.len());
        // Accepted: its flag is the next at this address after the previous use's.
        let Some(k) = uses[from..].iter().position(|&(g, f)| g == t.seq && f >= at) else {
            continue;
        };
        if let Some(&(seq, i)) = last.get(&addr) {
            reuses += 1;
            let matched = uses[i].1;
            if matched > at {
                breaches.push(format!(
                    "{name} at {at}: flag slot {slot} reused by seq {} before the flag of seq \
                     {seq} at {matched}",
                    t.seq
                ));
            }
            if seq == t.seq {
                breaches.push(format!("{name} at {at}: flag slot {slot} reused with seq {seq}"));
            }
        }
        last.insert(addr, (t.seq, from + k));
    }
    (breaches, reuses)
}

/// FLAG-REUSE-001: no scenario's producer reuses a sender flag slot before the flag of its
/// previous use matched, nor with the `seq` of that use. (No scenario reuses one today:
/// each token takes a slot of its own. The check is shown to find both breaches in a
/// scenario whose producer rings an accepted token again before its flag.)
#[test]
fn flag_reuse_001_a_sender_flag_slot_is_reused_after_its_flag_with_another_seq() {
    for s in all_scenarios() {
        let (breaches, _) = flag_reuse(&s);
        assert!(breaches.is_empty(), "{breaches:#?}");
    }
    // The check itself: db-accept with its first accepted token rung twice, the second
    // time before the first's flag, and the flag written twice.
    let mut s = scenario("db-accept");
    let ring = s
        .records
        .iter()
        .position(|r| matches!(r.body, Body::Host { command: HostCommand::Doorbell { .. } }))
        .expect("a token");
    let token = s.records[ring].clone();
    let flag = s
        .records
        .iter()
        .position(|r| {
            r.dir == Direction::Expect
                && matches!(&r.body, Body::Event { event: NicEvent::FlagWrite(f) } if f.side == Side::Requester)
        })
        .expect("a sender flag");
    let again = s.records[flag].clone();
    s.records.insert(flag + 1, again);
    s.records.insert(ring + 1, token);
    let (breaches, reuses) = flag_reuse(&s);
    assert_eq!(reuses, 1, "{breaches:#?}");
    assert_eq!(breaches.len(), 2, "before the flag, with the same seq: {breaches:#?}");
}
