use super::*;
use crate::TemplateId;
use crate::host::DoorbellToken;
use alloc::string::ToString;
use alloc::vec::Vec;

// A signaled Write-with-Imm completion at the sender: wr_id = token 0x1005_0010_0003_0000,
// QPN 0x000123, 4096 bytes, MSN 0x0042, timestamp 0x0001_E240 (123456 ns).
const SEND_CQE: [u8; 32] = [
    0x00, 0x00, 0x03, 0x00, 0x10, 0x00, 0x05, 0x10, // wr_id
    0x00, 0x01, 0x04, 0x00, // status, opcode, flags (has_timestamp), resv1
    0x23, 0x01, 0x00, 0x00, // qpn
    0x00, 0x10, 0x00, 0x00, // byte_len 4096
    0x00, 0x00, 0x00, 0x00, // imm
    0x40, 0xe2, 0x01, 0x00, // timestamp
    0x42, 0x00, 0x00, 0x01, // msn, resv2, owner (phase 1)
];

fn sample() -> CompletionRepr {
    CompletionRepr {
        wr_id: 0x1005_0010_0003_0000,
        status: CompletionStatus::SUCCESS,
        opcode: WrOpcode::WRITE_WITH_IMM,
        qpn: Qpn::new(0x123),
        byte_len: 4096,
        msn: Msn::new(0x42),
        ..CompletionRepr::default()
    }
    .with_timestamp(123_456)
    .with_phase(true)
}

#[test]
fn deconstruct() {
    let v = Completion::new_checked(&SEND_CQE[..]).unwrap();
    assert_eq!(v.wr_id(), 0x1005_0010_0003_0000);
    assert_eq!(v.status(), CompletionStatus::SUCCESS);
    assert_eq!(v.opcode(), WrOpcode::WRITE_WITH_IMM);
    assert!(!v.has_imm() && !v.is_receive() && v.has_timestamp());
    assert_eq!(v.qpn(), Qpn::new(0x123));
    assert_eq!(v.byte_len(), 4096);
    assert_eq!(v.msn(), Msn::new(0x42));
    assert_eq!(v.timestamp(), 123_456);
    assert!(v.phase());
    assert_eq!(v.owner(), 1);
}

#[test]
fn construct() {
    let mut buf = [0xAAu8; 32];
    let mut v = Completion::new_unchecked(&mut buf[..]);
    v.set_wr_id(0x1005_0010_0003_0000);
    v.set_status(CompletionStatus::SUCCESS);
    v.set_opcode(WrOpcode::WRITE_WITH_IMM);
    v.set_flags(false, false, true, 0);
    v.set_resv1(0);
    v.set_qpn(Qpn::new(0x123), 0);
    v.set_byte_len(4096);
    v.set_imm(0);
    v.set_msn(Msn::new(0x42));
    v.set_resv2(0);
    v.set_timestamp(123_456);
    v.set_owner(true, 0);
    assert_eq!(buf, SEND_CQE);
}

#[test]
fn parse_and_emit() {
    assert_eq!(CompletionRepr::parse(&SEND_CQE).unwrap(), sample());
    let mut buf = [0u8; 32];
    assert_eq!(sample().emit(&mut buf), Ok(32));
    assert_eq!(buf, SEND_CQE);
    let mut out = Vec::new();
    sample().validate(0, &mut out);
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn truncation_names_field_and_offset() {
    let e = CompletionRepr::parse(&SEND_CQE[..18]).unwrap_err();
    assert_eq!(e, DecodeError::truncated(Header::Completion, "byte_len", 16, 4, 2));
    assert_eq!(e.to_string(), "completion.byte_len truncated at byte 16: need 4, have 2");
    assert_eq!(CompletionRepr::parse(&[]).unwrap_err().field, "wr_id");
    assert_eq!(CompletionRepr::parse(&SEND_CQE[..31]).unwrap_err().field, "owner");
    assert_eq!(CompletionRepr::parse(&SEND_CQE[..27]).unwrap_err().field, "timestamp");
}

#[test]
fn emit_never_panics() {
    assert!(matches!(
        sample().emit(&mut [0u8; 31]),
        Err(EmitError::BufferTooShort { need: 32, have: 31, .. })
    ));
    let bad = CompletionRepr { flags_resv: 0x01, ..sample() };
    assert!(matches!(
        bad.emit(&mut [0u8; 32]),
        Err(EmitError::FieldOutOfRange { field: "flags_resv", .. })
    ));
    let bad = CompletionRepr { owner_resv: 0x01, ..sample() };
    assert!(matches!(
        bad.emit(&mut [0u8; 32]),
        Err(EmitError::FieldOutOfRange { field: "owner_resv", .. })
    ));
}

#[test]
fn ring_positions_and_phases() {
    assert_eq!(cq_position(0, 4), Some((0, true)));
    assert_eq!(cq_position(3, 4), Some((3, true)));
    assert_eq!(cq_position(4, 4), Some((0, false)));
    assert_eq!(cq_position(9, 4), Some((1, true)));
    assert_eq!(cq_position(5, 1), Some((0, false)));
    assert_eq!(cq_position(0, 0), None);
    assert_eq!(cq_position(0, 6), None);
    // A zeroed ring holds phase 0 everywhere: nothing looks new on the first pass.
    let zero = CompletionRepr::parse(&[0u8; 32]).unwrap();
    assert_ne!(Some(zero.phase), cq_position(0, 8).map(|p| p.1));
}

/// CQE-RING-002: a consumer that takes an entry as new exactly when its phase is its
/// pass's finds, in a ring the NIC fills by CQE-RING-001, every entry once and in
/// order, pass after pass; nothing in a zeroed ring, nothing left from the pass before,
/// and nothing the NIC has not yet written.
#[test]
fn a_consumer_finds_each_entry_by_its_phase() {
    const N: u32 = 4;
    // The ring holds the owner bytes; zeroed first, as software must.
    let mut ring = [0u8; N as usize];
    let mut consumed = 0u64;
    let mut taken = Vec::new();
    for written in 0u64..3 * u64::from(N) + 1 {
        // Nothing is new before the NIC writes entry `written`.
        assert_eq!(
            cq_entry_is_new(consumed, N, ring[(consumed % u64::from(N)) as usize]),
            Some(false)
        );
        let (slot, phase) = cq_position(written, N).unwrap();
        ring[slot as usize] = if phase { CQE_OWNER_PHASE } else { 0 } | 0xFE;
        while cq_entry_is_new(consumed, N, ring[(consumed % u64::from(N)) as usize]) == Some(true) {
            taken.push(consumed);
            consumed += 1;
        }
    }
    assert_eq!(taken, (0..3 * u64::from(N) + 1).collect::<Vec<_>>());
    // A zeroed ring holds nothing new on the first pass; the first entry of the second
    // pass is not the first pass's.
    assert_eq!(cq_entry_is_new(0, N, 0), Some(false));
    assert_eq!(cq_entry_is_new(0, N, CQE_OWNER_PHASE), Some(true));
    assert_eq!(cq_entry_is_new(u64::from(N), N, CQE_OWNER_PHASE), Some(false));
    assert_eq!(cq_entry_is_new(u64::from(N), N, 0), Some(true));
    assert_eq!(cq_entry_is_new(0, 6, CQE_OWNER_PHASE), None);
}

/// CQE-STATUS-003: every status but SUCCESS, a code the specification does not define
/// included, is a failure; a sender flag built for one reports no bytes.
#[test]
fn every_status_but_success_is_a_failure() {
    for code in 0..=u8::MAX {
        let s = CompletionStatus(code);
        assert_eq!(s.is_success(), code == 0, "{s}");
        assert_eq!(crate::host::FlagRepr::sender(7, s, 4096).byte_len == 0, code != 0, "{s}");
    }
    assert!(!CompletionStatus(0x7E).is_known() && !CompletionStatus(0x7E).is_success());
}

#[test]
fn status_codes_are_lossless_and_grouped() {
    assert_eq!(CompletionStatus::ALL.len(), 13);
    for s in CompletionStatus::ALL {
        assert!(s.is_known());
        assert_eq!(s.is_doorbell_reject(), (0x01..=0x0F).contains(&s.0));
    }
    assert_eq!(CompletionStatus(0x7E).to_string(), "UNKNOWN(0x7e)");
    assert_eq!(CompletionStatus::FLUSHED.to_string(), "FLUSHED");
    assert_eq!(CompletionStatus::from_aeth_nak(0x62), Some(CompletionStatus::REMOTE_ACCESS_ERROR));
    assert_eq!(CompletionStatus::from_aeth_nak(0x60), None);
    assert_eq!(CompletionStatus::from_aeth_nak(0x00), None);
    let mut buf = [0u8; 32];
    CompletionRepr { status: CompletionStatus(0x7E), ..sample() }.emit(&mut buf).unwrap();
    assert_eq!(CompletionRepr::parse(&buf).unwrap().status, CompletionStatus(0x7E));
}

#[test]
fn reject_and_receive_constructors() {
    let tok = DoorbellToken::new(TemplateId::new(5), 7, 7000, 0);
    let r = CompletionRepr::for_reject(
        tok.to_u64(),
        None,
        DoorbellReject::UnknownTemplate { template: TemplateId::new(5) },
    );
    assert_eq!(r.wr_id, tok.to_u64());
    assert_eq!(r.status, CompletionStatus::UNKNOWN_TEMPLATE);
    assert_eq!((r.opcode, r.qpn), (WrOpcode::NONE, Qpn::new(0)));
    let mut out = Vec::new();
    r.validate(0, &mut out);
    assert!(out.is_empty(), "{out:?}");

    let rx = CompletionRepr::receive(Qpn::new(9), 100, 0xDEAD_BEEF, Msn::new(3));
    assert_eq!(rx.imm(), Some(0xDEAD_BEEF));
    rx.validate(0, &mut out);
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn validate_flags_each_rule() {
    let bad = CompletionRepr {
        status: CompletionStatus(0x55),
        opcode: WrOpcode(0x09),
        resv2: 1,
        imm: 5,
        timestamp: 0,
        has_timestamp: false,
        byte_len: 3,
        ..CompletionRepr::default()
    };
    let mut out = Vec::new();
    bad.validate(64, &mut out);
    let ids: Vec<_> = out.iter().map(|v| v.requirement).collect();
    assert_eq!(
        ids,
        ["CQE-STATUS-001", "CQE-OPCODE-001", "CQE-RESV-001", "CQE-IMM-001", "CQE-SEND-002"]
    );
    assert_eq!(out[2].offset, Some(64 + 30));

    let mut out = Vec::new();
    let bad_rx = CompletionRepr {
        wr_id: 1,
        status: CompletionStatus::FLUSHED,
        opcode: WrOpcode::WRITE,
        is_receive: true,
        has_imm: true,
        ..CompletionRepr::default()
    };
    bad_rx.validate(0, &mut out);
    let ids: Vec<_> = out.iter().map(|v| v.requirement).collect();
    assert_eq!(ids, ["CQE-IMM-002", "CQE-RECV-001", "CQE-RECV-001", "CQE-RECV-001"]);

    let mut out = Vec::new();
    CompletionRepr {
        timestamp: 9,
        msn: Msn::new(1),
        status: CompletionStatus::SEQ_GAP,
        ..sample()
    }
    .validate(0, &mut out);
    let ids: Vec<_> = out.iter().map(|v| v.requirement).collect();
    assert_eq!(ids, ["CQE-REJECT-001", "CQE-REJECT-001"]);
    let mut out = Vec::new();
    CompletionRepr { opcode: WrOpcode::NONE, ..sample() }.validate(0, &mut out);
    assert_eq!(out[0].requirement, "CQE-OPCODE-001");
}

#[test]
fn random_bytes_round_trip() {
    use rand_core::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4351_4545);
    for _ in 0..1000 {
        let mut bytes = [0u8; COMPLETION_LEN];
        rng.fill_bytes(&mut bytes);
        let mut out = [0u8; COMPLETION_LEN];
        assert_eq!(CompletionRepr::parse(&bytes).unwrap().emit(&mut out), Ok(COMPLETION_LEN));
        assert_eq!(out, bytes);
    }
}

#[cfg(feature = "arbitrary")]
#[test]
fn arbitrary_reprs_round_trip() {
    use arbitrary::{Arbitrary, Unstructured};
    use rand_core::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x4351_4545);
    let mut raw = [0u8; 128];
    for _ in 0..500 {
        rng.fill_bytes(&mut raw);
        let r = CompletionRepr::arbitrary(&mut Unstructured::new(&raw)).unwrap();
        let mut out = [0u8; COMPLETION_LEN];
        assert_eq!(r.emit(&mut out), Ok(COMPLETION_LEN));
        assert_eq!(CompletionRepr::parse(&out).unwrap(), r);
    }
}
