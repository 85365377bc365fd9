//! Endpoint packets to a QPN other than 2 (`ERTH-QPN-001`): each is discarded unanswered,
//! unreported, and counted in `NicStats::violations`, as every packet dropped for a peer
//! violation is.

mod script;

use openrdma_codec::{BthRepr, EethRepr, EndpointOp, ErthRepr, Ev, Opcode, Psn, Qpn};
use openrdma_sm::Packet;
use script::*;

/// ERTH-QPN-001: an endpoint request and an endpoint response, each sent to the script's
/// QP instead of QPN 2, are refused, answer nothing, and count one violation each.
#[test]
fn erth_qpn_001_endpoint_packets_to_another_qpn_count_as_violations() {
    let mut s = Script::receiver();
    let request = Packet::EndpointRequest {
        bth: BthRepr::new(Opcode::MRC_ENDPOINT_REQUEST, Qpn::new(LQP), Psn::ZERO),
        erth: ErthRepr::new(EndpointOp::EV_PROBE, 0b1, 1),
    };
    let response = Packet::EndpointResponse {
        bth: BthRepr::new(Opcode::MRC_ENDPOINT_RESPONSE, Qpn::new(LQP), Psn::ZERO),
        eeth: EethRepr::new(EndpointOp::EV_PROBE, 0b1, 2),
    };
    assert_eq!(s.nic.stats().violations, 0);
    s.advance(10);
    let r = s.inject_packet(Ev::new(0x51), &request);
    s.violation(r, "ERTH-QPN-001");
    s.expect_nothing();
    assert_eq!(s.nic.stats().violations, 1, "the request is counted");
    s.advance(10);
    let r = s.inject_packet(Ev::new(0x52), &response);
    s.violation(r, "ERTH-QPN-001");
    s.expect_nothing();
    assert_eq!(s.nic.stats().violations, 2, "the response is counted");
    assert_eq!(s.nic.stats().endpoint_responses, 0, "nothing was answered");
}
