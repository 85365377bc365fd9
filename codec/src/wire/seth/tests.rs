use super::*;
use alloc::vec::Vec;

// The MRC specification's example: PSNs 0..=11 sent, 5 and 8 lost.
const EXAMPLE: [u8; 28] = [
    0x10, 0x80, // res_type 1, next_header 1, m none, pr 0
    0x00, 0x07, // ack_psn_offset 7
    0x12, 0x34, 0x56, 0x78, // entropy
    0x00, 0x0A, 0x00, 0x0B, // spdcid, dpdcid
    0x00, // resv12
    0x00, 0x00, 0x04, // cack_psn 4
    0x21, // cc_type 2, cc_flags 1
    0x02, // mpr 2 (256 packets)
    0x00, 0x01, // sack_offset 1
    0, 0, 0, 0, 0, 0, 0, 0b111_0110, // sack_bitmap
];

fn example() -> SethRepr {
    SethRepr {
        res_type: 1,
        next_header: 1,
        m: EvMark::NONE,
        resv1: 0,
        pr: false,
        ack_psn_offset: 7,
        entropy: Ev::new(0x1234_5678),
        spdcid: 10,
        dpdcid: 11,
        resv12: 0,
        cack_psn: Psn::new(4),
        cc_type: 2,
        cc_flags: 1,
        mpr: 2,
        sack_offset: 1,
        sack_bitmap: 0b111_0110,
    }
}

#[test]
fn deconstruct() {
    let v = Seth::new_checked(&EXAMPLE[..]).unwrap();
    assert_eq!(v.res_type(), 1);
    assert_eq!(v.next_header(), 1);
    assert_eq!(v.m(), EvMark::NONE);
    assert!(!v.pr());
    assert_eq!(v.ack_psn_offset(), 7);
    assert_eq!(v.entropy(), Ev::new(0x1234_5678));
    assert_eq!((v.spdcid(), v.dpdcid()), (10, 11));
    assert_eq!(v.cack_psn(), Psn::new(4));
    assert_eq!((v.cc_type(), v.cc_flags()), (2, 1));
    assert_eq!(v.mpr(), 2);
    assert_eq!(v.sack_offset(), 1);
    assert_eq!(v.sack_bitmap(), 0b111_0110);
}

#[test]
fn construct() {
    // Start from garbage: every setter must own all of its bits.
    let mut buf = [0xA5u8; 28];
    let mut v = Seth::new_unchecked(&mut buf[..]);
    v.set_res_type(1);
    v.set_next_header(1);
    v.set_m(EvMark::NONE);
    v.set_resv1(0);
    v.set_pr(false);
    v.set_ack_psn_offset(7);
    v.set_entropy(Ev::new(0x1234_5678));
    v.set_spdcid(10);
    v.set_dpdcid(11);
    v.set_resv12(0);
    v.set_cack_psn(Psn::new(4));
    v.set_cc(2, 1);
    v.set_mpr(2);
    v.set_sack_offset(1);
    v.set_sack_bitmap(0b111_0110);
    assert_eq!(buf, EXAMPLE);
}

#[test]
fn parse_and_emit() {
    assert_eq!(SethRepr::parse(&EXAMPLE).unwrap(), example());
    let mut buf = [0xFFu8; 28];
    assert_eq!(example().emit(&mut buf), Ok(28));
    assert_eq!(buf, EXAMPLE);
}

#[test]
fn byte1_bit_positions() {
    let r = SethRepr {
        next_header: 0b1_0110,
        m: EvMark::ALWAYS_SKIP,
        pr: true,
        resv1: SETH_RESV1_MASK,
        res_type: 0xF,
        ..SethRepr::default()
    };
    let mut buf = [0u8; 28];
    r.emit(&mut buf).unwrap();
    assert_eq!(buf[0], 0xF0 | 0b1011);
    assert_eq!(buf[1], (2 << 5) | 0x02 | SETH_RESV1_MASK);
    assert_eq!(SethRepr::parse(&buf).unwrap(), r);
    let r = SethRepr { next_header: 1, m: EvMark::SKIP_ONCE, ..SethRepr::default() };
    r.emit(&mut buf).unwrap();
    assert_eq!(&buf[..2], &[0x00, 0xA0]);
}

#[test]
fn signed_offsets() {
    let r = SethRepr {
        cack_psn: Psn::new(2),
        ack_psn_offset: -3,
        sack_offset: -1,
        ..SethRepr::default()
    };
    let mut buf = [0u8; 28];
    r.emit(&mut buf).unwrap();
    assert_eq!(&buf[2..4], &[0xFF, 0xFD]);
    assert_eq!(&buf[18..20], &[0xFF, 0xFF]);
    assert_eq!(SethRepr::parse(&buf).unwrap(), r);
    assert_eq!(r.ack_psn(), Psn::MAX);
    assert_eq!(r.bitmap_base(), Psn::new(1));
}

#[test]
fn mrc_worked_example() {
    // SETH-BITMAP-001: PSNs 0..=11 sent, 5 and 8 lost.
    let r = example();
    assert_eq!(r.bitmap_base(), Psn::new(5));
    let received: Vec<u32> = (0..=11).filter(|&p| r.is_sacked(Psn::new(p))).collect();
    assert_eq!(received, [0, 1, 2, 3, 4, 6, 7, 9, 10, 11]);
    let bits: Vec<u32> = r.iter_sacked().map(Psn::value).collect();
    assert_eq!(bits, [6, 7, 9, 10, 11]);
    assert!(!r.is_sacked(Psn::new(12)));
    assert!(!r.is_sacked(Psn::new(5 + 64 + 1)));
    assert_eq!(r.ack_psn(), Psn::new(11));

    // Building the same bitmap PSN by PSN.
    let mut b = SethRepr { sack_bitmap: 0, ..example() };
    for p in [6, 7, 9, 10, 11] {
        assert!(b.set_sacked(Psn::new(p)));
    }
    assert!(!b.set_sacked(Psn::new(4)));
    assert!(!b.set_sacked(Psn::new(5 + 64)));
    assert_eq!(b.sack_bitmap, 0b111_0110);
}

#[test]
fn bitmap_across_the_psn_wrap() {
    let r = SethRepr {
        cack_psn: Psn::MAX.sub(1),
        sack_offset: 1,
        sack_bitmap: 0b1011,
        ..SethRepr::default()
    };
    // Base is 2^24 - 1; bits 0, 1, 3 are PSNs 2^24 - 1, 0, 2.
    let bits: Vec<Psn> = r.iter_sacked().collect();
    assert_eq!(bits, [Psn::MAX, Psn::new(0), Psn::new(2)]);
    assert!(r.is_sacked(Psn::new(0)));
    assert!(!r.is_sacked(Psn::new(1)));
    // Far behind cack_psn (but within half the ring) counts as received.
    assert!(r.is_sacked(Psn::new(1 << 23)));
    assert!(!r.is_sacked(Psn::new(5)));
}

#[test]
fn mpr_unit_is_128_packets() {
    // SETH-MPR-002
    assert_eq!(example().mpr_packets(), 256);
    assert_eq!(SethRepr { mpr: 255, ..example() }.mpr_packets(), 32_640);
}

#[test]
fn ev_mark_names() {
    assert_eq!(EvMark::SKIP_ONCE.name(), Some("SKIP_ONCE"));
    assert_eq!(EvMark(3).name(), None);
    assert!(EvMark(3).is_reserved() && !EvMark::ALWAYS_SKIP.is_reserved());
    assert_eq!(alloc::format!("{}", EvMark(3)), "RESERVED(3)");
    assert_eq!(alloc::format!("{:?}", EvMark::NONE), "EvMark::NONE");
}

#[test]
fn truncation_names_field_and_offset() {
    let e = SethRepr::parse(&EXAMPLE[..23]).unwrap_err();
    assert_eq!(e, DecodeError::truncated(Header::Seth, "sack_bitmap", 20, 8, 3));
    assert_eq!(SethRepr::parse(&EXAMPLE[..1]).unwrap_err().field, "next_header");
    assert_eq!(SethRepr::parse(&EXAMPLE[..14]).unwrap_err().field, "cack_psn");
    let e = CcStateRepr::parse(&[0; 6]).unwrap_err();
    assert_eq!(e, DecodeError::truncated(Header::CcState, "rcvd_bytes", 5, 3, 1));
}

#[test]
fn emit_never_panics() {
    assert!(matches!(
        example().emit(&mut [0u8; 27]),
        Err(EmitError::BufferTooShort { header: Header::Seth, need: 28, have: 27 })
    ));
    let cases = [
        (SethRepr { res_type: 16, ..example() }, "res_type"),
        (SethRepr { next_header: 32, ..example() }, "next_header"),
        (SethRepr { m: EvMark(4), ..example() }, "m"),
        (SethRepr { resv1: 0x02, ..example() }, "resv1"),
        (SethRepr { cc_type: 16, ..example() }, "cc_type"),
        (SethRepr { cc_flags: 16, ..example() }, "cc_flags"),
    ];
    for (r, name) in cases {
        match r.emit(&mut [0u8; 28]) {
            Err(EmitError::FieldOutOfRange { field, .. }) => assert_eq!(field, name),
            other => panic!("{name}: {other:?}"),
        }
    }
    let c = CcStateRepr { rcv_cwnd_pen: 128, ..CcStateRepr::default() };
    assert!(matches!(
        c.emit(&mut [0u8; 8]),
        Err(EmitError::FieldOutOfRange { field: "rcv_cwnd_pen", .. })
    ));
    assert!(CcStateRepr::default().emit(&mut [0u8; 7]).is_err());
}

#[test]
fn validate_flags_mark_and_reserved() {
    let mut out = Vec::new();
    example().validate(0, &mut out);
    assert!(out.is_empty());
    SethRepr { m: EvMark(3), resv1: 0x01, resv12: 9, ..example() }.validate(54, &mut out);
    let ids: Vec<_> = out.iter().map(|v| (v.requirement, v.field, v.offset)).collect();
    assert_eq!(
        ids,
        [
            ("SETH-M-001", "m", Some(55)),
            ("SETH-RESV-001", "resv1", Some(55)),
            ("SETH-RESV-001", "resv12", Some(66)),
        ]
    );
}

const CCS: [u8; 8] = [0xBE, 0xEF, 0x01, 0x02, 0x85, 0x00, 0x10, 0x00];

fn ccs() -> CcStateRepr {
    CcStateRepr {
        tx_timestamp: 0xBEEF,
        resv: false,
        ooo_count: 0x0102,
        r_c: true,
        rcv_cwnd_pen: 5,
        rcvd_bytes: 0x1000,
    }
}

#[test]
fn cc_state_deconstruct_construct() {
    let v = CcState::new_checked(&CCS[..]).unwrap();
    assert_eq!(v.tx_timestamp(), 0xBEEF);
    assert!(!v.resv());
    assert_eq!(v.ooo_count(), 0x0102);
    assert!(v.r_c());
    assert_eq!(v.rcv_cwnd_pen(), 5);
    assert_eq!(v.rcvd_bytes(), 0x1000);
    let mut buf = [0xFFu8; 8];
    let mut v = CcState::new_unchecked(&mut buf[..]);
    v.set_tx_timestamp(0xBEEF);
    v.set_ooo(false, 0x0102);
    v.set_pen(true, 5);
    v.set_rcvd_bytes(0x1000);
    assert_eq!(buf, CCS);
}

#[test]
fn cc_state_parse_emit_validate() {
    assert_eq!(CcStateRepr::parse(&CCS).unwrap(), ccs());
    let mut buf = [0u8; 8];
    assert_eq!(ccs().emit(&mut buf), Ok(8));
    assert_eq!(buf, CCS);
    let mut out = Vec::new();
    ccs().validate(82, &mut out);
    assert!(out.is_empty());
    let r = CcStateRepr { resv: true, ..ccs() };
    r.emit(&mut buf).unwrap();
    assert_eq!(buf[2], 0x81);
    assert_eq!(CcStateRepr::parse(&buf).unwrap(), r);
    r.validate(82, &mut out);
    assert_eq!(out[0].requirement, "CCS-RESV-001");
    assert_eq!(out[0].offset, Some(84));
}

#[test]
fn random_bytes_round_trip() {
    use rand_core::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5345_5448);
    for _ in 0..1000 {
        let mut bytes = [0u8; SETH_LEN + CC_STATE_LEN];
        rng.fill_bytes(&mut bytes);
        let (s, c) = bytes.split_at(SETH_LEN);
        let mut out = [0u8; SETH_LEN + CC_STATE_LEN];
        let (so, co) = out.split_at_mut(SETH_LEN);
        assert_eq!(SethRepr::parse(s).unwrap().emit(so), Ok(SETH_LEN));
        assert_eq!(CcStateRepr::parse(c).unwrap().emit(co), Ok(CC_STATE_LEN));
        assert_eq!(out, bytes);
    }
}

#[cfg(feature = "arbitrary")]
#[test]
fn arbitrary_reprs_round_trip() {
    use arbitrary::{Arbitrary, Unstructured};
    use rand_core::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5345_5448);
    let mut raw = [0u8; 128];
    for _ in 0..500 {
        rng.fill_bytes(&mut raw);
        let mut u = Unstructured::new(&raw);
        let s = SethRepr::arbitrary(&mut u).unwrap();
        let c = CcStateRepr::arbitrary(&mut u).unwrap();
        let mut out = [0u8; SETH_LEN];
        assert_eq!(s.emit(&mut out), Ok(SETH_LEN));
        assert_eq!(SethRepr::parse(&out).unwrap(), s);
        assert_eq!(c.emit(&mut out), Ok(CC_STATE_LEN));
        assert_eq!(CcStateRepr::parse(&out).unwrap(), c);
    }
}

#[test]
fn cumulative_claim_stops_half_the_ring_from_the_expected_psn() {
    // SETH-CACK-001.a: the PSNs before cack_psn + 1 (BTH-PSN-002), 2^23 - 1 of them.
    let r = SethRepr { cack_psn: Psn::new(0), sack_offset: 1, ..SethRepr::default() };
    assert!(r.covers_cumulatively(Psn::new(0)));
    assert!(r.covers_cumulatively(Psn::new(2 + (1 << 23))));
    assert!(!r.covers_cumulatively(Psn::new(1 + (1 << 23))));
    assert!(!r.is_sacked(Psn::new(1 + (1 << 23))));
    assert!(!r.covers_cumulatively(Psn::new(1)));
}
