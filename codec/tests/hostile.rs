//! The hostile-input catalogue of the codec: one row per hostile input, each with the exact
//! typed outcome it must give — the `DecodeError` (header, field, offset, kind) where
//! decoding stops, or the `Violation`s (requirement ID, offset, value) that `validate()`
//! reports on bytes that decode — and the same three checks for every row:
//!
//! * **no panic**: decode, validate, the error's `Display` and a second decode run;
//! * **state unchanged**: the codec keeps no state, so the same bytes decode to the same
//!   result twice, and the input buffer is untouched;
//! * **nothing already accepted lost**: every header decoded before the point of failure is
//!   kept in the result and equals the header that was sent.
//!
//! Rows of the model (sequence numbers, windows, keys, doorbells through a NIC) are in
//! `state-machines/tests/hostile.rs`.
//!
//! Corrupt scenario files and malformed adapter messages have their own catalogue in
//! `corpus/tests/hostile.rs`.

use core::net::{Ipv4Addr, Ipv6Addr};

use openrdma_codec::frame::{DecodedFrame, FrameRepr, IcrcStatus, IpRepr, decode};
use openrdma_codec::host::{
    CompletionRepr, DoorbellReject, DoorbellToken, FlagRepr, LengthBound, Template, WorkRequest,
    WrOpcode, accept_doorbell,
};
use openrdma_codec::wire::*;
use openrdma_codec::*;

// ----- the frames the rows start from --------------------------------------------------------

fn eth(ethertype: EtherType) -> EthernetRepr {
    EthernetRepr {
        dst: EthernetAddress([0x02, 0, 0, 0, 0, 2]),
        src: EthernetAddress([0x02, 0, 0, 0, 0, 1]),
        ethertype,
    }
}

fn frame(v6: bool, bth: BthRepr, ext: frame::Extensions, payload: &[u8]) -> FrameRepr {
    let mut ip = if v6 {
        IpRepr::V6(Ipv6Repr::new(
            Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 1),
            Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2),
            IP_PROTO_UDP,
        ))
    } else {
        IpRepr::V4(Ipv4Repr::new(
            Ipv4Addr::new(10, 0, 0, 1),
            Ipv4Addr::new(10, 0, 0, 2),
            IP_PROTO_UDP,
        ))
    };
    // An MRC write is ECN-capable, ECT(0), as a sender should make it (ENC-ECN-001).
    if bth.opcode.is_mrc_write() {
        match &mut ip {
            IpRepr::V4(v4) => v4.ecn = 0b10,
            IpRepr::V6(v6) => v6.traffic_class |= 0b10,
        }
    }
    let mut f = FrameRepr {
        eth: eth(if v6 { EtherType::IPV6 } else { EtherType::IPV4 }),
        vlans: Vec::new(),
        ip,
        udp: UdpRepr { src_port: 0xC000, dst_port: ROCEV2_PORT, length: 0, checksum: 0 },
        bth,
        ext,
        payload: payload.to_vec(),
        pad: [0; 3],
        icrc: None,
        eth_padding: Vec::new(),
    };
    f.finalize().unwrap();
    f
}

/// A SACK over IPv4: Ethernet 0, IPv4 14, UDP 34, BTH 42, SETH 54, CC_STATE 82, ICRC 90;
/// 94 bytes.
fn sack_repr() -> FrameRepr {
    let bth = BthRepr::new(Opcode::MRC_SACK, Qpn::new(0x10), Psn::new(99));
    let ext = frame::Extensions {
        seth: Some(SethRepr {
            entropy: Ev::new(0xA1),
            cack_psn: Psn::new(99),
            mpr: 1,
            sack_offset: 1,
            sack_bitmap: 0b1011,
            ..SethRepr::default()
        }),
        cc_state: Some(CcStateRepr { ooo_count: 3, rcvd_bytes: 40, ..CcStateRepr::default() }),
        ..frame::Extensions::default()
    };
    frame(false, bth, ext, &[])
}

/// An MRC WRITE_ONLY with TSETH over IPv4: BTH 42, METH 54, TSETH 58, RETH 62, payload 78
/// (`len` bytes), pad, ICRC.
fn write_repr(len: usize) -> FrameRepr {
    let mut bth = BthRepr::new(Opcode::MRC_WRITE_ONLY, Qpn::new(0x20), Psn::new(7));
    bth.ts = true;
    bth.ack_req = true;
    let ext = frame::Extensions {
        meth: Some(MethRepr { rqmsn: Rqmsn::new(1), msn: Msn::new(3) }),
        tseth: Some(TsethRepr { tx_timestamp: 0xBEEF, ftype: 1, ..TsethRepr::default() }),
        reth: Some(RethRepr { va: 0x10_0000, rkey: Rkey::new(0xBEEF), dma_len: len as u32 }),
        ..frame::Extensions::default()
    };
    frame(false, bth, ext, &vec![0x5A; len])
}

/// A NACK over IPv4: BTH 42, NETH 54, ICRC 74.
fn nack_repr(reason: NackReason) -> FrameRepr {
    let bth = BthRepr::new(Opcode::MRC_NACK, Qpn::new(0x10), Psn::new(5));
    let ext = frame::Extensions {
        neth: Some(NethRepr::new(reason, Psn::new(5), Ev::new(0xA2))),
        ..frame::Extensions::default()
    };
    frame(false, bth, ext, &[])
}

/// A probe over IPv4: BTH 42, PETH 54, ICRC 70.
fn probe_repr() -> FrameRepr {
    let bth = BthRepr::new(Opcode::MRC_PROBE, Qpn::new(0x10), Psn::new(5));
    let ext = frame::Extensions { peth: Some(PethRepr::new(4, 0x1234)), ..Default::default() };
    frame(false, bth, ext, &[])
}

fn bytes(f: &FrameRepr) -> Vec<u8> {
    f.to_bytes().unwrap()
}

/// `b` cut to `n` bytes. With `fix`, the IPv4 total length (and header checksum) and the
/// UDP length are rewritten to match the cut, so that decoding reaches the RoCE layers and
/// stops where the bytes end.
fn cut(b: &[u8], n: usize, fix: bool) -> Vec<u8> {
    let mut c = b[..n].to_vec();
    if fix {
        let mut ip = Ipv4Repr::parse(&c[14..]).unwrap();
        ip.total_len = (n - 14) as u16;
        ip.emit_with_checksum(&mut c[14..34]).unwrap();
        if n >= 42 {
            c[38..40].copy_from_slice(&((n - 34) as u16).to_be_bytes());
        }
    }
    c
}

/// `b` with `edit` applied, the ICRC refreshed (so that only the edit is hostile).
fn edit(mut b: Vec<u8>, edit: impl FnOnce(&mut [u8])) -> Vec<u8> {
    edit(&mut b);
    b
}

fn refresh_icrc(mut b: Vec<u8>) -> Vec<u8> {
    let ip_at = 14;
    let end = b.len();
    icrc::fill(&mut b[ip_at..end]).unwrap();
    b
}

// ----- the rows --------------------------------------------------------------------------------

/// Violations as (requirement ID, offset, value).
type Found = Vec<(&'static str, usize, u64)>;

/// The exact outcome of a row.
#[derive(Debug)]
enum Expect {
    /// Decoding stops with exactly this error.
    Decode(DecodeError),
    /// The bytes decode completely, and `validate()` reports exactly these requirement IDs,
    /// each at this offset with this value.
    Violations(Found),
    /// The bytes decode completely, the ICRC trailer does not match, and `validate()`
    /// reports exactly ICRC-VERIFY-001 at the trailer, with the trailer's value.
    BadIcrc,
}

struct Row {
    name: String,
    /// The frame the hostile bytes were made from: what a correct decoder keeps.
    origin: FrameRepr,
    input: Vec<u8>,
    expect: Expect,
}

fn row(name: impl Into<String>, origin: &FrameRepr, input: Vec<u8>, expect: Expect) -> Row {
    Row { name: name.into(), origin: origin.clone(), input, expect }
}

fn trunc(header: Header, field: &'static str, offset: usize, need: usize, have: usize) -> Expect {
    Expect::Decode(DecodeError::truncated(header, field, offset, need, have))
}

fn length(
    header: Header,
    field: &'static str,
    offset: usize,
    claimed: usize,
    avail: usize,
) -> Expect {
    Expect::Decode(DecodeError::length(header, field, offset, claimed, avail))
}

fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    let sack = sack_repr();
    let s = bytes(&sack);
    assert_eq!(s.len(), 94);

    // Truncation at every header boundary, raw: once the IPv4 header is whole, its
    // total length claims 80 bytes that are not there.
    for (n, e) in [
        (0, trunc(Header::Eth, "dst", 0, 6, 0)),
        (6, trunc(Header::Eth, "src", 6, 6, 0)),
        (12, trunc(Header::Eth, "ethertype", 12, 2, 0)),
        (14, trunc(Header::Ipv4, "version", 14, 1, 0)),
        (24, trunc(Header::Ipv4, "checksum", 24, 2, 0)),
        (34, length(Header::Ipv4, "total_len", 16, 80, 20)),
        (42, length(Header::Ipv4, "total_len", 16, 80, 28)),
        (54, length(Header::Ipv4, "total_len", 16, 80, 40)),
        (82, length(Header::Ipv4, "total_len", 16, 80, 68)),
        (90, length(Header::Ipv4, "total_len", 16, 80, 76)),
        (93, length(Header::Ipv4, "total_len", 16, 80, 79)),
    ] {
        rows.push(row(format!("SACK cut at byte {n}"), &sack, cut(&s, n, false), e));
    }
    // Truncation at every header boundary with the IP and UDP lengths made to agree, so
    // that decoding reaches the cut: the last 4 bytes are taken as the ICRC, and the
    // header at the cut is named.
    for (n, e) in [
        (34, trunc(Header::Udp, "src_port", 34, 2, 0)),
        (42, trunc(Header::Bth, "opcode", 42, 1, 0)),
        (47, trunc(Header::Bth, "dest_qp", 47, 3, 0)),
        (54, trunc(Header::Icrc, "icrc", 54, 4, 0)),
        (57, trunc(Header::Icrc, "icrc", 54, 4, 3)),
        (58, trunc(Header::Seth, "res_type", 54, 1, 0)),
        (79, trunc(Header::Seth, "sack_bitmap", 74, 8, 1)),
        (86, trunc(Header::CcState, "tx_timestamp", 82, 2, 0)),
        (93, trunc(Header::CcState, "rcvd_bytes", 87, 3, 2)),
    ] {
        rows.push(row(format!("SACK cut at byte {n}, lengths fixed"), &sack, cut(&s, n, true), e));
    }
    let write = write_repr(16);
    let w = bytes(&write);
    assert_eq!(w.len(), 98);
    for n in [42, 54, 58, 62, 78, 97] {
        let e = length(Header::Ipv4, "total_len", 16, 84, n - 14);
        rows.push(row(format!("WRITE cut at byte {n}"), &write, cut(&w, n, false), e));
    }
    for (n, e) in [
        (58, trunc(Header::Meth, "rqmsn", 54, 2, 0)),
        (60, trunc(Header::Meth, "msn", 56, 2, 0)),
        (62, trunc(Header::Tseth, "tx_timestamp", 58, 2, 0)),
        (66, trunc(Header::Reth, "va", 62, 8, 0)),
        (75, trunc(Header::Reth, "rkey", 70, 4, 1)),
        (81, trunc(Header::Reth, "dma_len", 74, 4, 3)),
    ] {
        rows.push(row(
            format!("WRITE cut at byte {n}, lengths fixed"),
            &write,
            cut(&w, n, true),
            e,
        ));
    }
    // A payload of 13 bytes has 3 pad bytes; cut after one payload byte, the pad is short.
    let padded = write_repr(13);
    let p = bytes(&padded);
    rows.push(row(
        "WRITE with pad 3 cut one byte into the payload",
        &padded,
        cut(&p, 83, true),
        trunc(Header::Payload, "pad", 78, 3, 1),
    ));

    // Length fields that lie.
    let set16 =
        |at: usize, v: u16| move |b: &mut [u8]| b[at..at + 2].copy_from_slice(&v.to_be_bytes());
    rows.push(row(
        "IPv4 total_len one too long",
        &sack,
        edit(s.clone(), set16(16, 81)),
        length(Header::Ipv4, "total_len", 16, 81, 80),
    ));
    rows.push(row(
        "IPv4 total_len below the header",
        &sack,
        edit(s.clone(), set16(16, 19)),
        length(Header::Ipv4, "total_len", 16, 19, 80),
    ));
    rows.push(row(
        "IPv4 IHL 4",
        &sack,
        edit(s.clone(), |b| b[14] = 0x44),
        Expect::Decode(DecodeError::bad_value(Header::Ipv4, "ihl", 14, 4)),
    ));
    rows.push(row(
        "UDP length one too short",
        &sack,
        edit(s.clone(), set16(38, 59)),
        length(Header::Udp, "length", 38, 59, 60),
    ));
    rows.push(row(
        "UDP length one too long",
        &sack,
        edit(s.clone(), set16(38, 61)),
        length(Header::Udp, "length", 38, 61, 60),
    ));
    let sack6 = frame(true, sack.bth, sack.ext.clone(), &[]);
    let s6 = bytes(&sack6);
    rows.push(row(
        "IPv6 payload_len one too long",
        &sack6,
        edit(s6.clone(), set16(18, 61)),
        length(Header::Ipv6, "payload_len", 18, 61, 60),
    ));
    rows.push(row(
        "BTH pad_count 3 on a SACK that has no payload",
        &sack,
        refresh_icrc(edit(s.clone(), |b| b[43] |= 0x30)),
        trunc(Header::Payload, "pad", 90, 3, 0),
    ));

    // Bad ICRC: the trailer, and a covered byte.
    rows.push(row(
        "ICRC trailer flipped",
        &sack,
        edit(s.clone(), |b| b[93] ^= 0xFF),
        Expect::BadIcrc,
    ));
    let mut changed = sack.clone();
    let seth = changed.ext.seth.as_mut().unwrap();
    seth.entropy = Ev::new(seth.entropy.value() ^ 0x0100_0000);
    rows.push(row(
        "SETH entropy changed, ICRC kept",
        &changed,
        edit(s.clone(), |b| b[58] ^= 0x01),
        Expect::BadIcrc,
    ));
    let mut changed = sack.clone();
    changed.udp.src_port ^= 0x8000;
    rows.push(row(
        "UDP source port changed, ICRC kept",
        &changed,
        edit(s.clone(), |b| b[34] ^= 0x80),
        Expect::BadIcrc,
    ));

    // Unknown opcode: everything after the BTH is payload; OPC-UNKNOWN-001.
    let mut unknown = sack.clone();
    unknown.bth.opcode = Opcode(0xE0);
    let u = refresh_icrc(edit(s.clone(), |b| b[42] = 0xE0));
    unknown.ext = frame::Extensions::default();
    rows.push(row(
        "unknown opcode 0xE0",
        &unknown,
        u,
        Expect::Violations(vec![("OPC-UNKNOWN-001", 42, 0xE0)]),
    ));

    // Unknown NACK reason: decoded and kept, NETH-REASON-001.
    let nack = nack_repr(NackReason(0x55));
    rows.push(row(
        "NACK reason 0x55",
        &nack,
        bytes(&nack),
        Expect::Violations(vec![("NETH-REASON-001", 56, 0x55)]),
    ));

    // Reserved bits set, each reported with its requirement ID.
    let with = |f: &FrameRepr, change: &dyn Fn(&mut FrameRepr)| {
        let mut g = f.clone();
        change(&mut g);
        g.finalize().unwrap();
        g
    };
    let reserved: Vec<(&str, FrameRepr, Found)> = vec![
        ("BTH TVer 1", with(&sack, &|g| g.bth.tver = 1), vec![("BTH-TVER-001", 43, 1)]),
        (
            "BTH FECN on an MRC opcode",
            with(&sack, &|g| g.bth.fecn = true),
            vec![("BTH-RESV-002", 46, 0x80)],
        ),
        (
            "BTH reserved bits of byte 8",
            with(&sack, &|g| g.bth.resv8 = BYTE8_RESERVED_MASK),
            vec![("BTH-RESV-003", 50, BYTE8_RESERVED_MASK.into())],
        ),
        (
            "SETH m = 3",
            with(&sack, &|g| g.ext.seth.as_mut().unwrap().m = EvMark(3)),
            vec![("SETH-M-001", 55, 3)],
        ),
        (
            "SETH reserved byte 12",
            with(&sack, &|g| g.ext.seth.as_mut().unwrap().resv12 = 0x81),
            vec![("SETH-RESV-001", 66, 0x81)],
        ),
        (
            "CC_STATE reserved bit",
            with(&sack, &|g| g.ext.cc_state.as_mut().unwrap().resv = true),
            vec![("CCS-RESV-001", 84, 1)],
        ),
        (
            "NETH reserved byte 17",
            with(&nack_repr(NackReason::NO_RESOURCE), &|g| g.ext.neth.as_mut().unwrap().resv17 = 2),
            vec![("NETH-RESV-001", 71, 2)],
        ),
        (
            "TSETH reserved bits and ftype 2",
            with(&write, &|g| {
                let t = g.ext.tseth.as_mut().unwrap();
                t.resv = 0x10;
                t.ftype = 2;
            }),
            vec![("TSETH-RESV-001", 60, 0x10), ("TSETH-FTYPE-001", 60, 2)],
        ),
        (
            "PETH reserved bytes 0-3",
            with(&probe_repr(), &|g| g.ext.peth.as_mut().unwrap().resv0 = 0xDEAD),
            vec![("PETH-RESV-001", 54, 0xDEAD)],
        ),
    ];
    for (name, f, v) in reserved {
        let b = bytes(&f);
        rows.push(row(name, &f, b, Expect::Violations(v)));
    }
    rows
}

/// Checks a row: its exact outcome and the three checks every row gets.
fn check(r: &Row) {
    let name = &r.name;
    let input = r.input.clone();
    let d = decode(&input);
    let v = d.validate();
    let again = decode(&input);
    assert_eq!(d, again, "{name}: decoding is deterministic");
    assert_eq!(v, again.validate(), "{name}");
    assert_eq!(input, r.input, "{name}: the input was changed");
    let _ = d.entropy();
    match &r.expect {
        Expect::Decode(e) => {
            assert_eq!(d.error.as_ref(), Some(e), "{name}: {:?}", d.error.map(|e| e.to_string()));
            assert!(!e.to_string().is_empty());
            assert!(d.to_repr().is_none(), "{name}: a frame with an error has no Repr");
        }
        Expect::Violations(want) => {
            assert_eq!(d.error, None, "{name}: {:?}", d.error.map(|e| e.to_string()));
            assert_eq!(d.icrc, IcrcStatus::Ok, "{name}");
            let got: Vec<(&str, Option<usize>, u64)> =
                v.iter().map(|v| (v.requirement, v.offset, v.value)).collect();
            let want: Vec<(&str, Option<usize>, u64)> =
                want.iter().map(|&(id, at, value)| (id, Some(at), value)).collect();
            assert_eq!(got, want, "{name}: violations {v:#?}");
            // Lossless: what was sent, reserved bits and unknown codes included, comes back.
            assert_eq!(d.to_repr().unwrap().to_bytes().unwrap(), input, "{name}: DEC-LOSSLESS-001");
        }
        Expect::BadIcrc => {
            assert_eq!(d.error, None, "{name}");
            let IcrcStatus::Bad { found, computed } = d.icrc else {
                panic!("{name}: ICRC {:?}", d.icrc)
            };
            assert_ne!(found, computed);
            let at = input.len() - 4;
            assert_eq!(found, u32::from_le_bytes(input[at..].try_into().unwrap()), "{name}");
            let got: Vec<_> = v.iter().map(|v| (v.requirement, v.offset, v.value)).collect();
            assert_eq!(got, vec![("ICRC-VERIFY-001", Some(at), u64::from(found))], "{name}");
            assert!(!d.is_clean());
        }
    }
    kept(&d, &r.origin, name);
}

/// Nothing already accepted is lost: every header the decoder kept equals the one sent.
fn kept(d: &DecodedFrame<'_>, f: &FrameRepr, name: &str) {
    if let Some(eth) = &d.eth {
        assert_eq!(eth, &f.eth, "{name}: Ethernet");
    }
    if let (Some(IpRepr::V4(a)), IpRepr::V4(b)) = (&d.ip, &f.ip) {
        assert_eq!((a.src, a.dst, a.protocol), (b.src, b.dst, b.protocol), "{name}: IPv4");
    }
    if let Some(udp) = &d.udp {
        assert_eq!((udp.src_port, udp.dst_port), (f.udp.src_port, f.udp.dst_port), "{name}: UDP");
    }
    if let Some(bth) = &d.bth {
        // The rows that change the BTH change its pad count only.
        assert_eq!(
            BthRepr { pad_count: 0, ..*bth },
            BthRepr { pad_count: 0, ..f.bth },
            "{name}: BTH"
        );
    }
    macro_rules! same {
        ($($h:ident),*) => {$(
            if let Some(h) = &d.ext.$h {
                assert_eq!(Some(h), f.ext.$h.as_ref(), "{name}: {}", stringify!($h));
            }
        )*};
    }
    same!(meth, tseth, reth, immdt, aeth, seth, cc_state, neth, peth);
}

/// Host formats cut short name the field they cut.
fn host_rows() -> usize {
    let tok = DoorbellToken::new(TemplateId::new(5), 0x10, 3, 0).to_bytes();
    let flag = FlagRepr::retired(Msn::new(1), 2).to_bytes();
    let mut wqe = [0u8; 64];
    let wr = WorkRequest { wr_id: 1, qpn: Qpn::new(0x20), length: 64, ..WorkRequest::default() };
    wr.emit(&mut wqe).unwrap();
    let mut cqe = [0u8; 32];
    CompletionRepr::default().emit(&mut cqe).unwrap();
    let rows: Vec<(&str, Result<(), DecodeError>, DecodeError)> = vec![
        (
            "doorbell token of 7 bytes",
            DoorbellToken::parse(&tok[..7]).map(drop),
            DecodeError::truncated(Header::Doorbell, "template", 6, 2, 1),
        ),
        (
            "doorbell token of 0 bytes",
            DoorbellToken::parse(&[]).map(drop),
            DecodeError::truncated(Header::Doorbell, "length_units", 0, 2, 0),
        ),
        (
            "completion flag of 7 bytes",
            FlagRepr::parse(&flag[..7]).map(drop),
            DecodeError::truncated(Header::Flag, "generation", 6, 2, 1),
        ),
        (
            "WQE of 63 bytes",
            WorkRequest::parse(&wqe[..63]).map(drop),
            DecodeError::truncated(Header::WorkRequest, "resv_b", 52, 12, 11),
        ),
        (
            "completion entry of 31 bytes",
            CompletionRepr::parse(&cqe[..31]).map(drop),
            DecodeError::truncated(Header::Completion, "owner", 31, 1, 0),
        ),
    ];
    for (name, got, want) in &rows {
        assert_eq!(got, &Err(*want), "{name}");
    }
    // Nothing kept between calls: the whole buffers still parse.
    assert!(DoorbellToken::parse(&tok).is_ok() && FlagRepr::parse(&flag).is_ok());
    assert_eq!(WorkRequest::parse(&wqe), Ok(wr));
    rows.len()
}

/// The codec's pure doorbell decision (`DB-ORDER-001`) on hostile tokens.
fn doorbell_rows() -> usize {
    let t = Template {
        template_id: TemplateId::new(5),
        enabled: true,
        qpn: Qpn::new(0x123),
        opcode: WrOpcode::WRITE,
        local_base: 0x7f00_0000_0000,
        local_lkey: Lkey::new(1),
        local_region_len: 0x10_0000,
        remote_base: 0x2000_0000,
        remote_rkey: Rkey::new(2),
        remote_region_len: 0x8_0000,
        slots: 256,
        local_stride: 0x1000,
        remote_stride: 0x800,
        length_unit: 64,
        default_length: 2048,
        max_length: 16384,
        imm_base: 0,
        flag_base_slot: 0,
        signaled: true,
    };
    let expected = 0x10;
    let ok = t.token(expected, 3, 0);
    let rows: Vec<(&str, DoorbellToken, DoorbellReject)> = vec![
        (
            "bad version",
            DoorbellToken { version: 2, ..ok },
            DoorbellReject::BadVersion { version: 2 },
        ),
        (
            "unknown template",
            DoorbellToken { template: TemplateId::new(6), ..ok },
            DoorbellReject::UnknownTemplate { template: TemplateId::new(6) },
        ),
        (
            "replayed token",
            t.token(expected - 1, 3, 0),
            DoorbellReject::StaleSeq { expected, got: expected - 1 },
        ),
        (
            "stale by 2^15 - 1",
            t.token(expected.wrapping_sub(0x7FFF), 3, 0),
            DoorbellReject::StaleSeq { expected, got: expected.wrapping_sub(0x7FFF) },
        ),
        (
            "gap",
            t.token(expected + 1, 3, 0),
            DoorbellReject::SeqGap { expected, got: expected + 1 },
        ),
        (
            "gap of 2^15",
            t.token(expected.wrapping_add(0x8000), 3, 0),
            DoorbellReject::SeqGap { expected, got: expected.wrapping_add(0x8000) },
        ),
        (
            "index = slots",
            t.token(expected, 256, 0),
            DoorbellReject::IndexOutOfRange { index: 256, slots: 256 },
        ),
        (
            "length above max_length",
            t.token(expected, 3, 257),
            DoorbellReject::LengthOutOfRange {
                length: 257 * 64,
                bound: LengthBound::MaxLength,
                limit: 16384,
            },
        ),
        (
            "length past the remote region",
            t.token(expected, 255, 64),
            DoorbellReject::LengthOutOfRange {
                length: 4096,
                bound: LengthBound::RemoteRegion,
                limit: 0x8_0000 - 255 * 0x800,
            },
        ),
    ];
    for (name, tok, want) in &rows {
        assert_eq!(accept_doorbell(tok, Some(&t), expected), Err(*want), "{name}");
        // No state: the valid token is still accepted after any refusal.
        assert!(accept_doorbell(&ok, Some(&t), expected).is_ok(), "{name}");
    }
    assert_eq!(
        accept_doorbell(&ok, None, 0),
        Err(DoorbellReject::UnknownTemplate { template: TemplateId::new(5) }),
        "no template installed"
    );
    rows.len() + 1
}

#[test]
fn hostile_input_catalogue() {
    let rows = rows();
    for r in &rows {
        check(r);
    }
    let n = rows.len() + host_rows() + doorbell_rows();
    println!("hostile-input catalogue: {n} rows checked");
}
