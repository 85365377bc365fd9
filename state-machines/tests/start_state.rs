//! CONF-ADP-021: a NIC restored to a start state begins its counters there. A retirement
//! domain created after the restore sends its first message with the restored MSN; one
//! the state does not name starts at 0 (RET-DOMAIN-003). The reference device claims the
//! capability that lets a scenario ask for it (CONF-ADP-022).

mod script;

use openrdma_codec::Opcode;
use openrdma_device::{Capability, Device, DomainId, DomainStart, StartState};
use openrdma_sm::ReferenceDevice;
use script::*;

fn start(domain: u32, send_msn: u16) -> StartState {
    StartState {
        domains: vec![DomainStart { domain: DomainId::new(domain), send_msn, recv_msn: 0 }],
        templates: Vec::new(),
    }
}

#[test]
fn conf_adp_021_a_restored_domain_sends_from_its_msn() {
    let mut s = Script::restored(start(0, 0x8001));
    s.post(wr(100, 0, 3));
    s.post(wr(100, 0x1000, 4));
    let (_, first) = s.expect_data(0, Opcode::MRC_WRITE_ONLY);
    let (_, second) = s.expect_data(1, Opcode::MRC_WRITE_ONLY);
    assert_eq!((first.meth.msn.value(), second.meth.msn.value()), (0x8001, 0x8002));
}

#[test]
fn conf_adp_021_another_domain_starts_at_zero() {
    let mut s = Script::restored(start(7, 0x8001));
    s.post(wr(100, 0, 3));
    let (_, first) = s.expect_data(0, Opcode::MRC_WRITE_ONLY);
    assert_eq!(first.meth.msn.value(), 0);
}

#[test]
fn conf_adp_022_the_reference_claims_start_state() {
    assert!(ReferenceDevice::new().capabilities().contains(&Capability::StartState));
}
