use super::*;
use alloc::vec::Vec;

const DETH: [u8; 8] = [0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34];

/// DETH-LAYOUT-001: the DETH of table 23, decoded and encoded; DETH-RESV-001 is
/// reported.
#[test]
fn deth() {
    let v = Deth::new_checked(&DETH[..]).unwrap();
    assert_eq!((v.qkey(), v.resv(), v.src_qp()), (0x8001_0000, 0, Qpn::new(0x1234)));
    let r = DethRepr::new(0x8001_0000, Qpn::new(0x1234));
    assert_eq!(DethRepr::parse(&DETH).unwrap(), r);
    let mut buf = [0xFFu8; 8];
    let mut w = Deth::new_unchecked(&mut buf[..]);
    w.set_qkey(0x8001_0000);
    w.set_resv(0);
    w.set_src_qp(Qpn::new(0x1234));
    assert_eq!(buf, DETH);
    let mut buf = [0u8; 8];
    assert_eq!(r.emit(&mut buf), Ok(8));
    assert_eq!(buf, DETH);
    assert_eq!(
        DethRepr::parse(&DETH[..6]).unwrap_err(),
        DecodeError::truncated(Header::Deth, "src_qp", 5, 3, 1)
    );
    assert!(matches!(r.emit(&mut [0u8; 7]), Err(EmitError::BufferTooShort { .. })));
    let mut out = Vec::new();
    r.validate(0, &mut out);
    assert!(out.is_empty());
    DethRepr { resv: 7, ..r }.validate(42, &mut out);
    assert_eq!((out[0].requirement, out[0].offset), ("DETH-RESV-001", Some(46)));
}

/// IETH-LAYOUT-001: the IETH of table 24, decoded and encoded.
#[test]
fn ieth() {
    let b = [0xDE, 0xAD, 0xBE, 0xEF];
    assert_eq!(Ieth::new_checked(&b[..]).unwrap().rkey(), Rkey::new(0xDEAD_BEEF));
    let r = IethRepr { rkey: Rkey::new(0xDEAD_BEEF) };
    assert_eq!(IethRepr::parse(&b).unwrap(), r);
    let mut buf = [0u8; 4];
    Ieth::new_unchecked(&mut buf[..]).set_rkey(Rkey::new(0xDEAD_BEEF));
    assert_eq!(buf, b);
    assert_eq!(r.emit(&mut buf), Ok(4));
    assert_eq!(buf, b);
    assert_eq!(IethRepr::parse(&b[..3]).unwrap_err().field, "rkey");
    assert!(r.emit(&mut [0u8; 3]).is_err());
    let mut out = Vec::new();
    r.validate(0, &mut out);
    assert!(out.is_empty());
}

/// ATOMIC-LAYOUT-001: the AtomicETH of table 25, decoded and encoded.
#[test]
fn atomic_eth() {
    let mut b = [0u8; 28];
    b[..8].copy_from_slice(&0x1000_u64.to_be_bytes());
    b[8..12].copy_from_slice(&7u32.to_be_bytes());
    b[12..20].copy_from_slice(&0xAAAA_u64.to_be_bytes());
    b[20..].copy_from_slice(&0x5555_u64.to_be_bytes());
    let v = AtomicEth::new_checked(&b[..]).unwrap();
    assert_eq!(
        (v.va(), v.rkey(), v.swap_add(), v.compare()),
        (0x1000, Rkey::new(7), 0xAAAA, 0x5555)
    );
    let r = AtomicEthRepr { va: 0x1000, rkey: Rkey::new(7), swap_add: 0xAAAA, compare: 0x5555 };
    assert_eq!(AtomicEthRepr::parse(&b).unwrap(), r);
    let mut buf = [0xFFu8; 28];
    let mut w = AtomicEth::new_unchecked(&mut buf[..]);
    w.set_va(0x1000);
    w.set_rkey(Rkey::new(7));
    w.set_swap_add(0xAAAA);
    w.set_compare(0x5555);
    assert_eq!(buf, b);
    let mut buf = [0u8; 28];
    assert_eq!(r.emit(&mut buf), Ok(28));
    assert_eq!(buf, b);
    assert_eq!(
        AtomicEthRepr::parse(&b[..21]).unwrap_err(),
        DecodeError::truncated(Header::AtomicEth, "compare", 20, 8, 1)
    );
    assert!(r.emit(&mut [0u8; 27]).is_err());
}

/// ATOMIC-LAYOUT-001: the AtomicAckETH of table 26, decoded and encoded.
#[test]
fn atomic_ack_eth() {
    let b = 0x0123_4567_89AB_CDEF_u64.to_be_bytes();
    assert_eq!(AtomicAckEth::new_checked(&b[..]).unwrap().orig(), 0x0123_4567_89AB_CDEF);
    let r = AtomicAckEthRepr { orig: 0x0123_4567_89AB_CDEF };
    assert_eq!(AtomicAckEthRepr::parse(&b).unwrap(), r);
    let mut buf = [0u8; 8];
    AtomicAckEth::new_unchecked(&mut buf[..]).set_orig(r.orig);
    assert_eq!(buf, b);
    assert_eq!(r.emit(&mut buf), Ok(8));
    assert_eq!(buf, b);
    assert_eq!(
        AtomicAckEthRepr::parse(&b[..4]).unwrap_err(),
        DecodeError::truncated(Header::AtomicAckEth, "orig", 0, 8, 4)
    );
    assert!(r.emit(&mut [0u8; 7]).is_err());
}

#[test]
fn cnp() {
    let b = [0u8; 16];
    assert_eq!(Cnp::new_checked(&b[..]).unwrap().resv(), &[0u8; 16]);
    let r = CnpRepr::parse(&b).unwrap();
    assert_eq!(r, CnpRepr::default());
    let mut buf = [0xFFu8; 16];
    assert_eq!(r.emit(&mut buf), Ok(16));
    assert_eq!(buf, b);
    Cnp::new_unchecked(&mut buf[..]).resv_mut()[5] = 0x42;
    let bad = CnpRepr::parse(&buf).unwrap();
    assert_eq!(bad.resv[5], 0x42);
    assert_eq!(
        CnpRepr::parse(&b[..15]).unwrap_err(),
        DecodeError::truncated(Header::Cnp, "resv", 0, 16, 15)
    );
    assert!(r.emit(&mut [0u8; 15]).is_err());
    let mut out = Vec::new();
    r.validate(0, &mut out);
    assert!(out.is_empty());
    bad.validate(54, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].requirement, out[0].offset, out[0].value), ("CNP-RESV-001", Some(59), 0x42));
}

/// RDETH-LAYOUT-001 and XRCETH-LAYOUT-001: both 4-byte headers decoded and encoded;
/// a non-zero reserved byte is reported.
#[test]
fn rdeth_and_xrceth() {
    let b = [0x00, 0x12, 0x34, 0x56];
    let r = RdethRepr::parse(&b).unwrap();
    assert_eq!(r, RdethRepr { resv: 0, ee_context: 0x12_3456 });
    let x = XrcethRepr::parse(&b).unwrap();
    assert_eq!(x, XrcethRepr { resv: 0, xrc_srq: 0x12_3456 });
    let mut buf = [0xFFu8; 4];
    assert_eq!(r.emit(&mut buf), Ok(4));
    assert_eq!(buf, b);
    buf = [0xFF; 4];
    assert_eq!(x.emit(&mut buf), Ok(4));
    assert_eq!(buf, b);
    assert_eq!(
        RdethRepr::parse(&b[..2]).unwrap_err(),
        DecodeError::truncated(Header::Rdeth, "ee_context", 1, 3, 1)
    );
    assert_eq!(
        XrcethRepr::parse(&b[..0]).unwrap_err(),
        DecodeError::truncated(Header::Xrceth, "resv", 0, 1, 0)
    );
    assert!(RdethRepr { resv: 0, ee_context: 1 << 24 }.emit(&mut buf).is_err());
    assert!(x.emit(&mut [0u8; 3]).is_err());
    let mut out = Vec::new();
    r.validate(0, &mut out);
    x.validate(0, &mut out);
    assert!(out.is_empty());
    RdethRepr { resv: 1, ..r }.validate(46, &mut out);
    XrcethRepr { resv: 2, ..x }.validate(50, &mut out);
    assert_eq!((out[0].requirement, out[0].offset), ("RDETH-RESV-001", Some(46)));
    assert_eq!((out[1].requirement, out[1].offset), ("XRCETH-RESV-001", Some(50)));
}

/// FETH-LAYOUT-001: the FETH of table 26a, decoded and encoded; FETH-RESV-001,
/// FETH-SEL-001 and FETH-PLT-001 are reported.
#[test]
fn feth() {
    // resv 1 (bit 6), selectivity level 1, placement type 2.
    let b = [0x00, 0x00, 0x00, 0x52];
    let v = Feth::new_checked(&b[..]).unwrap();
    assert_eq!((v.resv(), v.selectivity_level(), v.placement_type()), (1, 1, 2));
    let r = FethRepr { resv: 1, selectivity_level: 1, placement_type: 2 };
    assert_eq!(FethRepr::parse(&b).unwrap(), r);
    let mut buf = [0xFFu8; 4];
    Feth::new_unchecked(&mut buf[..]).set_fields(1, 1, 2);
    assert_eq!(buf, b);
    let mut buf = [0u8; 4];
    assert_eq!(r.emit(&mut buf), Ok(4));
    assert_eq!(buf, b);
    assert_eq!(
        FethRepr::parse(&b[..3]).unwrap_err(),
        DecodeError::truncated(Header::Feth, "resv", 0, 4, 3)
    );
    assert!(r.emit(&mut [0u8; 3]).is_err());
    assert!(FethRepr { resv: 1 << 26, ..r }.emit(&mut buf).is_err());
    assert!(FethRepr { selectivity_level: 4, ..r }.emit(&mut buf).is_err());
    assert!(FethRepr { placement_type: 16, ..r }.emit(&mut buf).is_err());
    // The top reserved bit survives a round trip.
    let top = [0x80, 0, 0, 0x01];
    let t = FethRepr::parse(&top).unwrap();
    assert_eq!(t.resv, 1 << 25);
    assert_eq!(t.emit(&mut buf), Ok(4));
    assert_eq!(buf, top);

    let mut out = Vec::new();
    FethRepr::new(FethRepr::SEL_RANGE, FethRepr::PLT_PERSISTENCE).validate(0, &mut out);
    assert!(out.is_empty());
    r.validate(50, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].requirement, out[0].offset, out[0].value), ("FETH-RESV-001", Some(50), 1));
    out.clear();
    FethRepr::new(2, 0).validate(50, &mut out);
    FethRepr::new(0, 4).validate(50, &mut out);
    let ids: Vec<_> = out.iter().map(|v| (v.requirement, v.offset)).collect();
    assert_eq!(
        ids,
        [("FETH-SEL-001", Some(53)), ("FETH-PLT-001", Some(53)), ("FETH-PLT-001", Some(53))]
    );
}

#[test]
fn random_bytes_round_trip() {
    use rand_core::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4942);
    let mut b = [0u8; 28];
    let mut out = [0u8; 28];
    for _ in 0..1000 {
        rng.fill_bytes(&mut b);
        assert_eq!(DethRepr::parse(&b).unwrap().emit(&mut out), Ok(DETH_LEN));
        assert_eq!(out[..DETH_LEN], b[..DETH_LEN]);
        assert_eq!(IethRepr::parse(&b).unwrap().emit(&mut out), Ok(IETH_LEN));
        assert_eq!(out[..IETH_LEN], b[..IETH_LEN]);
        assert_eq!(AtomicEthRepr::parse(&b).unwrap().emit(&mut out), Ok(ATOMIC_ETH_LEN));
        assert_eq!(out[..ATOMIC_ETH_LEN], b[..ATOMIC_ETH_LEN]);
        assert_eq!(AtomicAckEthRepr::parse(&b).unwrap().emit(&mut out), Ok(ATOMIC_ACK_ETH_LEN));
        assert_eq!(out[..ATOMIC_ACK_ETH_LEN], b[..ATOMIC_ACK_ETH_LEN]);
        assert_eq!(CnpRepr::parse(&b).unwrap().emit(&mut out), Ok(CNP_LEN));
        assert_eq!(out[..CNP_LEN], b[..CNP_LEN]);
        assert_eq!(RdethRepr::parse(&b).unwrap().emit(&mut out), Ok(RDETH_LEN));
        assert_eq!(out[..RDETH_LEN], b[..RDETH_LEN]);
        assert_eq!(XrcethRepr::parse(&b).unwrap().emit(&mut out), Ok(XRCETH_LEN));
        assert_eq!(out[..XRCETH_LEN], b[..XRCETH_LEN]);
        assert_eq!(FethRepr::parse(&b).unwrap().emit(&mut out), Ok(FETH_LEN));
        assert_eq!(out[..FETH_LEN], b[..FETH_LEN]);
    }
}
