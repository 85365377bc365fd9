//! Two reference NICs back to back: a requester writes three messages to a responder
//! through a `Pair` whose fabric delivers every packet 1 µs after it leaves and never loses
//! one. It prints, in order, every payload the responder placed and every completion flag
//! either side wrote.
//!
//! `cargo run -p openrdma-sm --example two_nics`
//!
//! The model's speed is measured elsewhere, with its workload, in the test kit
//! (`cargo bench -p openrdma-testkit --bench model`, its `model_loop` example).

use std::error::Error;

use openrdma_codec::host::{WorkRequest, WrOpcode};
use openrdma_codec::{Ev, Lkey, Psn, Qpn, Rkey};
use openrdma_sm::{
    DomainId, Endpoint, Fabric, Fate, HostCommand, Nic, NicConfig, NicEvent, NoCpu, Pair, QpConfig,
    Region, RunEnd, Timestamp, Transmit,
};

/// Delivers each packet 1 µs after it leaves, and prints what the NICs write to memory.
struct Wire;

impl Fabric for Wire {
    fn fate(&mut self, now: Timestamp, _from: usize, t: &Transmit) -> Fate {
        Fate::Deliver { at: Timestamp(now.0 + 1_000), ev: t.ev }
    }

    fn event(&mut self, now: Timestamp, k: usize, event: &NicEvent) {
        let nic = if k == 0 { "requester" } else { "responder" };
        match event {
            NicEvent::DmaWrite(w) => println!(
                "{:>7} ns  {nic}: placed {} bytes at {:#x} (PSN {}, message {})",
                now.0,
                w.payload.len(),
                w.va,
                w.psn.value(),
                w.msn.value(),
            ),
            NicEvent::FlagWrite(f) => println!(
                "{:>7} ns  {nic}: {:?} flag of message {} written at {:#x}",
                now.0,
                f.side,
                f.msn.value(),
                f.addr,
            ),
            _ => {}
        }
    }
}

/// A NIC with one region and one QP to its peer over four EVs.
fn nic(me: u32, peer: u32) -> Result<Nic, Box<dyn Error>> {
    let t = Timestamp::ZERO;
    let mut nic = Nic::new(NicConfig::default())?;
    let region = Region { rkey: Rkey::new(7), base: 0, len: 1 << 20, remote_write: true };
    nic.handle_host(t, HostCommand::RegisterRegion(region))?;
    let qp = QpConfig {
        qpn: Qpn::new(me),
        peer_qpn: Qpn::new(peer),
        initial_psn: Psn::new(0),
        peer_initial_psn: Psn::new(0),
        domain: DomainId::new(0),
        evs: (0..4).map(|e| Ev::from_halves(e, 0)).collect(),
        backup_evs: vec![],
        spray: Default::default(),
        cc: Default::default(),
        recv_flag_base: 0x1000,
        recv_flag_slots: 16,
        send_flag_base: 0x2000,
        send_flag_slots: 16,
        send_cq: None,
        recv_cq: None,
    };
    nic.handle_host(t, HostCommand::CreateQp(qp))?;
    Ok(nic)
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut requester = nic(0x11, 0x12)?;
    let responder = nic(0x12, 0x11)?;
    for (k, length) in [(0u32, 8192u32), (1, 100), (2, 4096)] {
        let wr = WorkRequest {
            wr_id: u64::from(k),
            qpn: Qpn::new(0x11),
            opcode: WrOpcode::WRITE,
            local_va: 0,
            lkey: Lkey::new(0),
            remote_va: 0x8000 + 0x4000 * u64::from(k),
            rkey: Rkey::new(7),
            length,
            imm: None,
            flag_slot: k,
            signaled: true,
        };
        requester.handle_host(Timestamp::ZERO, HostCommand::PostWrite(wr))?;
    }
    let eps = [Endpoint::with_cpu(requester, NoCpu), Endpoint::with_cpu(responder, NoCpu)];
    let mut pair = Pair::new(eps, Wire);
    let end = pair.run(Timestamp(1_000_000_000), 100_000)?;
    println!("run ended: {end:?}");
    if end != RunEnd::Idle {
        return Err("the pair did not go idle".into());
    }
    Ok(())
}
