//! Unit tests of the sequence checks.

use super::*;

fn flag(msn: u16, status: CompletionStatus) -> NicEvent {
    NicEvent::FlagWrite(openrdma_device::FlagWrite {
        qpn: openrdma_codec::Qpn::new(0x11),
        side: Side::Responder,
        msn: Msn::new(msn),
        addr: 0x2000_0000 + 8 * u64::from(msn),
        value: FlagRepr::new(msn, status, 64).to_u64(),
    })
}

#[test]
fn reordered_retirement_flags_are_named_by_cause() {
    let ok = CompletionStatus::SUCCESS;
    let (a, b) = (flag(0, ok), flag(1, ok));
    // Both retirable at 1000 ns, written last first: the flags were reordered.
    let want = [(1_000, &a, 0), (1_000, &b, 1)];
    let got = [(1_000, &b, 0), (1_000, &a, 1)];
    let (pairs, _, _) = pair(&want, &got);
    let keep = longest_increasing(&pairs);
    let k = keep.iter().position(|x| !x).unwrap();
    let partners: Vec<usize> = (0..pairs.len()).filter(|&j| j != k).collect();
    let rule = order_rule(Seq::ResponderFlags, k, &partners, &pairs, &want, &got);
    assert_eq!(rule, FLAG_RECV_002_D);
    // Message 1 retired at 500 ns, before message 0 was due at 1000 ns: retirement out
    // of turn.
    let want = [(1_000, &a, 0), (1_000, &b, 1)];
    let got = [(500, &b, 0), (1_000, &a, 1)];
    let (pairs, _, _) = pair(&want, &got);
    let keep = longest_increasing(&pairs);
    let k = keep.iter().position(|x| !x).unwrap();
    let partners: Vec<usize> = (0..pairs.len()).filter(|&j| j != k).collect();
    let rule = order_rule(Seq::ResponderFlags, k, &partners, &pairs, &want, &got);
    assert_eq!(rule, RET_ORDER_001);
}

#[test]
fn a_flag_written_as_expected_is_paired_first() {
    let fail = flag(1, CompletionStatus::REMOTE_ACCESS_ERROR);
    let ok = flag(1, CompletionStatus::SUCCESS);
    let want = [(2_000, &ok, 0)];
    let got = [(1_000, &fail, 0), (2_000, &ok, 1)];
    let (pairs, missing, extra) = pair(&want, &got);
    assert_eq!(pairs, vec![(0, 1)]);
    assert!(missing.is_empty());
    assert_eq!(extra, vec![0]);
}

fn sender_flag(qpn: u32, msn: u16) -> NicEvent {
    NicEvent::FlagWrite(openrdma_device::FlagWrite {
        qpn: openrdma_codec::Qpn::new(qpn),
        side: Side::Requester,
        msn: Msn::new(msn),
        addr: 0x3000_0000 + 0x1_0000 * u64::from(qpn) + 8 * u64::from(msn),
        value: FlagRepr::new(msn, CompletionStatus::SUCCESS, 64).to_u64(),
    })
}

/// CONF-CMP-060: sender flags of two QPs come in either order; those of one QP in
/// theirs.
#[test]
fn sender_flags_are_ordered_per_qp_only() {
    let (a0, a1, b0) = (sender_flag(0x11, 0), sender_flag(0x11, 1), sender_flag(0x12, 0));
    let want = [(1_000, &a0, 0), (1_000, &a1, 1), (1_000, &b0, 2)];
    // QP 0x12's flag first: no rule orders it after QP 0x11's.
    let got = [(1_000, &b0, 0), (1_500, &a0, 1), (1_500, &a1, 2)];
    let (pairs, _, _) = pair(&want, &got);
    assert!(in_order(Seq::RequesterFlags, &pairs, &want, &Orders::default()).iter().all(|k| *k));
    // The same order in a sequence judged as a whole is not.
    assert!(!in_order(Seq::RequesterEntries, &pairs, &want, &Orders::default()).iter().all(|k| *k));
    // QP 0x11's two flags swapped: out of order.
    let got = [(1_000, &a1, 0), (1_000, &a0, 1), (1_000, &b0, 2)];
    let (pairs, _, _) = pair(&want, &got);
    assert_eq!(
        in_order(Seq::RequesterFlags, &pairs, &want, &Orders::default())
            .iter()
            .filter(|k| !**k)
            .count(),
        1
    );
}

#[test]
fn the_longest_increasing_run_is_kept() {
    let pairs = [(0, 0), (1, 2), (2, 1), (3, 3)];
    let keep = longest_increasing(&pairs);
    assert_eq!(keep.iter().filter(|k| **k).count(), 3);
    assert!(keep[0] && keep[3]);
    assert_eq!(longest_increasing(&[]), Vec::<bool>::new());
}

fn sender_entry(msn: u16, wr_id: u64, byte_len: u32) -> NicEvent {
    NicEvent::Completion(openrdma_device::CompletionEvent {
        side: Side::Requester,
        entry: openrdma_codec::host::CompletionRepr {
            wr_id,
            qpn: openrdma_codec::Qpn::new(0x11),
            msn: Msn::new(msn),
            byte_len,
            ..Default::default()
        },
        queue: None,
    })
}

/// CONF-CMP-104: an entry that matches no expected one pairs with the one it differs from
/// in the fewest fields. With the first entry left out and the others each one field off,
/// the others pair with their own expectations and only the first is missing; pairing
/// by position would read every later entry as its predecessor's, shifted.
#[test]
fn a_missing_entry_leaves_the_later_ones_with_their_own() {
    let (a, b, c) = (sender_entry(1, 0xA, 64), sender_entry(2, 0xB, 64), sender_entry(3, 0xC, 64));
    let (b_off, c_off) = (sender_entry(2, 0xB, 65), sender_entry(3, 0xC, 65));
    let want = [(1_000, &a, 0), (2_000, &b, 1), (3_000, &c, 2)];
    let got = [(2_000, &b_off, 0), (3_000, &c_off, 1)];
    let (pairs, missing, extra) = pair(&want, &got);
    assert_eq!(pairs, vec![(1, 0), (2, 1)]);
    assert_eq!(missing, vec![0]);
    assert!(extra.is_empty());
}
