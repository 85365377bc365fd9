//! The shared hardware vectors decode completely, verify, and re-emit byte for byte.

use openrdma_codec::frame::{IcrcStatus, IpRepr, decode};
use openrdma_codec::{Ev, Opcode, Psn, Qpn};

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
    assert_eq!(d.entropy(), Some(Ev::new(0xc000_0000)));
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

/// CNP-LAYOUT-001, CNP-RESV-001, CNP-BTH-001: the CNP a ConnectX-4 Lx sent carries exactly
/// the 16 reserved bytes of table 27 between its BTH and its ICRC, all zero, with `becn` 1
/// and PSN 0, and so breaks no rule; its body decodes and encodes losslessly. A body one
/// byte short is a decode error naming `cnp.resv` and its offset; bytes beyond the 16 are
/// payload a CNP may not carry; non-zero reserved bytes, `becn` 0 and a non-zero PSN are
/// each reported under their requirement, at their byte.
#[test]
fn cnp_carries_its_16_reserved_bytes_and_nothing_else() {
    use openrdma_codec::frame::FrameRepr;
    use openrdma_codec::wire::BTH_LEN;
    use openrdma_codec::{CnpRepr, DecodeError, Header};
    let (_, frame) = vectors().into_iter().find(|(n, _)| n == "cx4lx-cnp").unwrap();
    let d = decode(&frame);
    let bth_at = d.layout.bth.unwrap();
    let body_at = bth_at + BTH_LEN;
    assert_eq!(d.ext.cnp, Some(CnpRepr { resv: [0; 16] }));
    assert_eq!(d.layout.ext.last().map(|&(_, at)| at), Some(body_at));
    assert_eq!(d.layout.icrc, Some(body_at + 16), "16 bytes between the BTH and the ICRC");
    assert_eq!(d.validate(), vec![], "the captured CNP breaks no rule");
    // The body alone: 16 bytes, parsed and emitted byte for byte.
    let body = &frame[body_at..body_at + 16];
    let cnp = CnpRepr::parse(body).unwrap();
    let mut out = [0xFFu8; 16];
    assert_eq!(cnp.emit(&mut out), Ok(16));
    assert_eq!(&out[..], body);
    assert_eq!(
        CnpRepr::parse(&body[..15]),
        Err(DecodeError::truncated(Header::Cnp, "resv", 0, 16, 15))
    );

    let repr = d.to_repr().unwrap();
    let rebuilt = |f: &mut dyn FnMut(&mut FrameRepr)| {
        let mut g = repr.clone();
        f(&mut g);
        g.icrc = None;
        g.finalize().unwrap();
        g.to_bytes().unwrap()
    };
    // One byte short of the 16: the decoder names the field and where it starts.
    // (The captured frame without the body's last byte, its IP and UDP lengths told.)
    let mut short = frame.clone();
    short.remove(body_at + 15);
    for at in [d.layout.ip.unwrap() + 2, d.layout.udp.unwrap() + 4] {
        let len = u16::from_be_bytes([short[at], short[at + 1]]) - 1;
        short[at..at + 2].copy_from_slice(&len.to_be_bytes());
    }
    let e = decode(&short).error.expect("a CNP body of 15 bytes does not decode");
    assert_eq!((e.header, e.field, e.offset), (Header::Cnp, "resv", body_at), "{e}");
    // Four bytes more than the 16: payload, which a CNP carries none of.
    let long = rebuilt(&mut |g| g.payload = vec![0; 4]);
    let v = decode(&long).validate();
    assert_eq!(v.iter().map(|v| v.requirement).collect::<Vec<_>>(), ["PAY-NONE-001"], "{v:?}");
    // The reserved bytes, and the BTH that the SHOULD of CNP-BTH-001 gives a CNP.
    type Edit<'a> = &'a mut dyn FnMut(&mut FrameRepr);
    let cases: [(&str, usize, u64, Edit<'_>); 3] = [
        ("CNP-RESV-001", body_at + 9, 0x42, &mut |g| g.ext.cnp.as_mut().unwrap().resv[9] = 0x42),
        ("CNP-BTH-001", bth_at + 4, 0, &mut |g| g.bth.becn = false),
        ("CNP-BTH-001", bth_at + 9, 5, &mut |g| g.bth.psn = Psn::new(5)),
    ];
    for (id, at, value, edit) in cases {
        let v = decode(&rebuilt(edit)).validate();
        assert_eq!(v.len(), 1, "{id}: {v:?}");
        assert_eq!((v[0].requirement, v[0].offset, v[0].value), (id, Some(at), value), "{v:?}");
    }
}
