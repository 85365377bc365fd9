//! The shared hardware vectors decode completely, verify, and re-emit byte for byte.

use openrdma_codec::frame::{IcrcStatus, IpRepr, decode};
use openrdma_codec::{Opcode, Psn, Qpn};

const VECTORS: &str = include_str!("../../traces/vectors/icrc.txt");

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn vectors() -> Vec<(String, Vec<u8>)> {
    VECTORS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, h) = l.split_once(' ').unwrap();
            (name.to_string(), hex(h.trim()))
        })
        .collect()
}

#[test]
fn every_vector_decodes_verifies_and_round_trips() {
    let v = vectors();
    assert_eq!(v.len(), 2);
    for (name, frame) in v {
        let d = decode(&frame);
        assert_eq!(d.error, None, "{name}");
        assert_eq!(d.icrc, IcrcStatus::Ok, "{name}");
        assert!(d.validate().iter().all(|v| v.requirement != "ICRC-VERIFY-001"), "{name}");
        let repr = d.to_repr().unwrap();
        assert_eq!(repr.to_bytes().unwrap(), frame, "{name}: parse -> emit is lossless");
    }
}

#[test]
fn send_only_vector_fields() {
    let (_, frame) = vectors().into_iter().find(|(n, _)| n == "scapy-send-only-v4").unwrap();
    let d = decode(&frame);
    let bth = d.bth.unwrap();
    assert_eq!(bth.opcode, Opcode::RC_SEND_ONLY);
    assert_eq!(bth.dest_qp, Qpn::new(0x11));
    assert_eq!(bth.psn, Psn::new(0x12_3456));
    assert!(bth.ack_req);
    assert_eq!(d.payload, b"hello roce v2!!!");
    assert!(matches!(d.ip, Some(IpRepr::V4(_))));
    assert_eq!(d.entropy(), Some(0xc000_0000));
}

#[test]
fn cnp_vector_fields() {
    let (_, frame) = vectors().into_iter().find(|(n, _)| n == "cx4lx-cnp").unwrap();
    let d = decode(&frame);
    let bth = d.bth.unwrap();
    assert_eq!(bth.opcode, Opcode::CNP);
    assert!(bth.becn);
    assert!(d.ext.cnp.is_some());
    assert!(d.payload.is_empty());
}
