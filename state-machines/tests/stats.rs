//! `NicStats` against what the NIC really did: each counter, as its documentation on
//! `NicStats` says, counts the outputs a script sees leave the NIC. The counters are the
//! model's own interface (no requirement of the specification names them); tools such as
//! `openrdma sim` and the benchmarks report them.

mod script;

use openrdma_codec::host::CompletionStatus;
use openrdma_codec::{AethRepr, NackReason, Opcode};
use openrdma_sm::{CpuCommand, NicConfig, NicEvent, NicStats, Packet, Side};
use script::*;

const FIRST: Opcode = Opcode::MRC_WRITE_FIRST;
const LAST: Opcode = Opcode::MRC_WRITE_LAST;
const ONLY: Opcode = Opcode::MRC_WRITE_ONLY;

/// Address of packet `i` of a message placed at `REGION_BASE + off`.
fn va(off: u64, i: u32) -> u64 {
    REGION_BASE + off + u64::from(i) * u64::from(PMTU)
}

/// What a script saw leave the NIC, counted the way `NicStats` documents its counters.
#[derive(Debug, Default, PartialEq, Eq)]
struct Seen {
    sacks: u64,
    nacks: u64,
    acks: u64,
    data_first: u64,
    data_rtx: u64,
    probes: u64,
    dma_writes: u64,
    responder_flags: u64,
    send_completions: u64,
}

impl Seen {
    fn take(&mut self, s: &mut Script) {
        for t in s.take_tx() {
            match t.packet {
                Packet::Sack { .. } => self.sacks += 1,
                Packet::Nack { .. } => self.nacks += 1,
                Packet::Ack { .. } => self.acks += 1,
                Packet::Probe { .. } => self.probes += 1,
                Packet::Write(w) if w.bth.rtx => self.data_rtx += 1,
                Packet::Write(_) => self.data_first += 1,
                _ => {}
            }
        }
        for e in s.take_events() {
            match e {
                NicEvent::DmaWrite(_) => self.dma_writes += 1,
                NicEvent::FlagWrite(f) if f.side == Side::Responder => self.responder_flags += 1,
                NicEvent::Completion(c)
                    if c.side == Side::Requester && c.entry.status == CompletionStatus::SUCCESS =>
                {
                    self.send_completions += 1
                }
                _ => {}
            }
        }
    }
}

/// `NicStats` (the model's own API, documented on each field) counts what the NIC did: a
/// receiver's SACKs, NACKs and transport ACKs sent, its writes placed, duplicates, writes
/// out of order and messages retired, over a script that exercises each of them more than
/// once.
#[test]
fn nic_stats_count_what_the_receiver_did() {
    let mut s = Script::with(NicConfig { sack_coalesce: 1, ..config() }, 0, 0);
    let mut seen = Seen::default();
    let total = 2 * PMTU;
    let mut inputs: Vec<(W, bool)> = vec![
        (write(0, 0, FIRST, va(0, 0), PMTU).dma_len(total), true),
        (write(3, 2, ONLY, va(0x8000, 0), 8), true),
        (write(5, 4, ONLY, va(0x9000, 0), 8), true),
        (write(1, 0, LAST, va(0, 1), PMTU).dma_len(total), true),
        (write(0, 0, FIRST, va(0, 0), PMTU).dma_len(total).rtx(), true),
        (write(3, 2, ONLY, va(0x8000, 0), 8), true),
        (write(2, 1, ONLY, va(0x7000, 0), 8), true),
        (write(4, 3, ONLY, va(0x6000, 0), 0), true),
        (write(900, 9, ONLY, va(0x5000, 0), 8), false),
        (write(901, 9, ONLY, va(0x5000, 0), 8), false),
    ];
    for (w, ok) in inputs.drain(..) {
        s.advance(10);
        let r = s.inject(w);
        assert_eq!(r.is_ok(), ok, "{r:?}");
        seen.take(&mut s);
    }
    let st: NicStats = s.nic.stats().clone();
    assert_eq!(st.sacks_sent, seen.sacks, "sacks_sent");
    assert_eq!(st.nacks_sent, seen.nacks, "nacks_sent");
    assert_eq!(st.acks_sent, seen.acks, "acks_sent");
    assert_eq!(st.messages_retired, seen.responder_flags, "messages_retired");
    assert_eq!((st.sacks_sent, st.nacks_sent, st.acks_sent), (8, 2, 4));
    assert_eq!(st.messages_retired, 5);
    // Six new writes accepted, one of them without payload (no DMA write).
    assert_eq!((st.packets_placed, seen.dma_writes), (6, 5));
    assert_eq!(st.duplicates, 2);
    // PSNs 3 and 5 arrived with a hole before them.
    assert_eq!(st.out_of_order, 2);
}

/// `NicStats` counts what the sender did: data packets sent for the first time,
/// retransmissions, probes, messages completed and packets refused as violations.
#[test]
fn nic_stats_count_what_the_sender_did() {
    let mut s = Script::sender();
    let mut seen = Seen::default();
    s.post(wr(2 * PMTU, 0, 1));
    s.post(wr(10, 0x1000, 2));
    seen.take(&mut s);
    assert_eq!(seen.data_first, 3);
    // A NACK that trims PSN 1 resends it at once (EV-SKIP-001).
    s.advance(100);
    s.accept_ctrl(nack(1, NackReason::TRIMMED));
    seen.take(&mut s);
    // Two probes the CPU half orders.
    for ev in [EVS[0], EVS[3]] {
        s.cpu(CpuCommand::Probe { qpn: openrdma_codec::Qpn::new(LQP), ev });
        seen.take(&mut s);
    }
    // A SACK for a PSN never sent and a NACK for an unknown PSN are violations.
    s.advance(100);
    assert!(s.inject_ctrl(&sack(40, 1, 0)).is_err());
    assert!(s.inject_ctrl(&nack(300, NackReason::PSN_OOR_WINDOW)).is_err());
    seen.take(&mut s);
    // Both messages complete.
    s.advance(100);
    s.accept_ctrl(sack(2, 1, 0));
    s.accept_ctrl(aeth(AethRepr::ACK, 1));
    seen.take(&mut s);
    let st: NicStats = s.nic.stats().clone();
    assert_eq!(st.data_packets_sent, seen.data_first, "data_packets_sent");
    assert_eq!(st.retransmissions, seen.data_rtx, "retransmissions");
    assert_eq!(st.probes_sent, seen.probes, "probes_sent");
    assert_eq!(st.messages_completed, seen.send_completions, "messages_completed");
    assert_eq!((st.data_packets_sent, st.retransmissions, st.probes_sent), (3, 1, 2));
    assert_eq!((st.messages_completed, st.violations), (2, 2));
}
