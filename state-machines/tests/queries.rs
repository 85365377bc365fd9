//! The NIC's queries (`Nic::config`, `Nic::port_status`) answer what the caller set, as
//! their documentation says; and `NicStats::endpoint_responses` counts the endpoint
//! responses sent. These are the model's own interface, read by the tools that drive it.

mod script;

use openrdma_codec::{BthRepr, EndpointOp, ErthRepr, Ev, Opcode, Psn, Qpn};
use openrdma_sm::{NicConfig, Packet};
use script::*;

/// `Nic::config` gives back the configuration the NIC was made with.
#[test]
fn config_is_the_one_given() {
    let cfg = NicConfig { sack_coalesce: 3, wwi_limit: 9, ..config() };
    let s = Script::with(cfg.clone(), 0, 0);
    assert_eq!(s.nic.config(), &cfg);
}

/// `Nic::port_status`: port 0 alone until `handle_port_status` says otherwise, then what
/// it said (EETH-PORT-001 and ERTH-PORT-001 carry it). Each endpoint request answered is
/// counted in `endpoint_responses`.
#[test]
fn port_status_is_port_0_until_told() {
    let mut s = Script::receiver();
    assert_eq!(s.nic.port_status(), 0b1);
    s.nic.handle_port_status(s.now, 0b1010).expect("time moves forward");
    assert_eq!(s.nic.port_status(), 0b1010);
    for id in 1..=3u32 {
        let request = Packet::EndpointRequest {
            bth: BthRepr::new(Opcode::MRC_ENDPOINT_REQUEST, Qpn::ENDPOINT, Psn::ZERO),
            erth: ErthRepr::new(EndpointOp::EV_PROBE, 0b1, id),
        };
        s.advance(10);
        let r = s.inject_packet(Ev::new(0x10 + id), &request);
        s.ok(r);
        let (_, _, eeth) = s.expect_endpoint_response();
        assert_eq!((eeth.request_id, eeth.port_status), (id, 0b1010));
    }
    s.expect_nothing();
    assert_eq!(s.nic.stats().endpoint_responses, 3);
}
