//! The NIC's queries (`Nic::config`, `Nic::port_status`) answer what the caller set, and
//! `Nic::peer_driven_entries` what a peer made the NIC hold, as their documentation says;
//! and `NicStats::endpoint_responses` counts the endpoint responses sent. These are the
//! model's own interface, read by the tools that drive it.

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

/// `Nic::peer_driven_entries` counts the state a peer can make grow, as its documentation
/// says: packets in flight and retirement-table entries. RET-CAP-001 bounds this sum.
#[test]
fn peer_driven_entries_count_packets_in_flight_and_table_entries() {
    let mut s = Script::sender();
    assert_eq!(s.nic.peer_driven_entries(), 0);
    s.post(wr(3 * PMTU, 0, 1));
    let sent = s.take_tx().into_iter().filter(|t| matches!(t.packet, Packet::Write(_))).count();
    assert_eq!(sent, 3);
    assert_eq!(s.nic.peer_driven_entries(), 3, "three packets in flight");
    // The first packet of a two-packet message: its message waits in the table.
    s.advance(10);
    s.accept(write(0, 0, Opcode::MRC_WRITE_FIRST, REGION_BASE, PMTU).dma_len(2 * PMTU));
    assert_eq!(s.nic.peer_driven_entries(), 4, "three packets and one table entry");
    // A SACK of the three packets leaves the table entry alone.
    s.advance(10);
    s.accept_ctrl(sack(2, 1, 0));
    assert_eq!(s.nic.peer_driven_entries(), 1, "one table entry");
}
