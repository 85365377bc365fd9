//! SND-ACKREQ-001 and the headers the sender builds for each packet: AckReq on the last
//! packet of a message and on every PSN that is a multiple of `ack_req_every`, whether
//! that period is a power of two or not; the TSETH and PETH timestamps of `SND-TS-002`.

mod script;

use openrdma_codec::{Psn, Qpn};
use openrdma_sm::{CpuCommand, NicConfig, Packet};
use script::*;

/// The PSNs that carried AckReq among the Writes of one 20-packet message sent from PSN
/// 100 with AckReq every `every` PSNs.
fn ack_req_psns(every: u32) -> Vec<u32> {
    let mut s = Script::with(NicConfig { ack_req_every: every, ..config() }, 100, 0);
    s.post(wr(20 * PMTU, 0, 1));
    let mut psns = Vec::new();
    for t in s.take_tx() {
        let Packet::Write(w) = t.packet else { s.fail("a Write") };
        if w.bth.ack_req {
            psns.push(w.bth.psn.value());
        }
    }
    psns
}

/// SND-ACKREQ-001: a period that is a power of two (the default, 16), one that is not (3),
/// and 1 (every packet).
#[test]
fn snd_ackreq_001_every_nth_psn_and_the_last() {
    assert_eq!(ack_req_psns(16), [112, 119]);
    assert_eq!(ack_req_psns(3), [102, 105, 108, 111, 114, 117, 119]);
    assert_eq!(ack_req_psns(1), (100..120).collect::<Vec<_>>());
}

/// SND-TS-002: with timestamps on, a Write's TSETH and a probe's PETH carry the send time
/// in units of 16 ns, with frame type 1.
#[test]
fn snd_ts_002_write_and_probe_timestamps() {
    let mut s = Script::with(NicConfig { timestamps: true, ..config() }, 0, 0);
    s.at(16 * 1000);
    s.post(wr(PMTU, 0, 1));
    let (_, w) = s.expect_data(0, openrdma_codec::Opcode::MRC_WRITE_ONLY);
    let tseth = w.tseth.unwrap_or_else(|| s.fail("a TSETH"));
    assert_eq!((tseth.tx_timestamp, tseth.ftype), (1000, 1));
    s.at(16 * 2000);
    s.cpu(CpuCommand::Probe { qpn: Qpn::new(LQP), ev: EVS[1] });
    let probe = s.take_tx().into_iter().find_map(|t| match t.packet {
        Packet::Probe { peth, bth } => Some((peth, bth.psn)),
        _ => None,
    });
    let Some((peth, psn)) = probe else { s.fail("a probe") };
    assert_eq!((peth.tx_timestamp, peth.ftype, psn), (2000, 1, Psn::new(1)));
}
