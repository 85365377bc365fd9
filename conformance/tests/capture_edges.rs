//! The capture reader against the edge cases of the pcapng specification (and a few of
//! pcap's): files built byte by byte here, in both byte orders.

use openrdma_conformance::capture::{
    CaptureError, CaptureReader, Item, MAX_INTERFACES, Record, pcap_fcs_len,
};

/// Byte order of a built file.
#[derive(Clone, Copy, PartialEq)]
enum Order {
    Little,
    Big,
}

use Order::{Big, Little};

fn u16b(o: Order, v: u16) -> [u8; 2] {
    if o == Big { v.to_be_bytes() } else { v.to_le_bytes() }
}

fn u32b(o: Order, v: u32) -> [u8; 4] {
    if o == Big { v.to_be_bytes() } else { v.to_le_bytes() }
}

/// One option, padded to 32 bits.
fn opt(o: Order, code: u16, value: &[u8]) -> Vec<u8> {
    let mut v = u16b(o, code).to_vec();
    v.extend_from_slice(&u16b(o, value.len() as u16));
    v.extend_from_slice(value);
    while v.len() % 4 != 0 {
        v.push(0);
    }
    v
}

fn end_of_options() -> Vec<u8> {
    vec![0; 4]
}

/// A whole block: type, length, body (padded), length.
fn block(o: Order, kind: u32, body: &[u8]) -> Vec<u8> {
    let mut body = body.to_vec();
    while body.len() % 4 != 0 {
        body.push(0);
    }
    let len = 12 + body.len() as u32;
    let mut v = u32b(o, kind).to_vec();
    v.extend_from_slice(&u32b(o, len));
    v.extend_from_slice(&body);
    v.extend_from_slice(&u32b(o, len));
    v
}

fn shb(o: Order, section_len: i64, options: &[u8]) -> Vec<u8> {
    let mut body = u32b(o, 0x1A2B_3C4D).to_vec();
    body.extend_from_slice(&u16b(o, 1));
    body.extend_from_slice(&u16b(o, 0));
    body.extend_from_slice(&if o == Big {
        section_len.to_be_bytes()
    } else {
        section_len.to_le_bytes()
    });
    body.extend_from_slice(options);
    block(o, 0x0A0D_0D0A, &body)
}

fn idb(o: Order, link: u16, snaplen: u32, options: &[u8]) -> Vec<u8> {
    let mut body = u16b(o, link).to_vec();
    body.extend_from_slice(&[0, 0]);
    body.extend_from_slice(&u32b(o, snaplen));
    body.extend_from_slice(options);
    block(o, 1, &body)
}

fn epb(o: Order, iface: u32, ts: u64, data: &[u8], orig: u32, options: &[u8]) -> Vec<u8> {
    let mut body = u32b(o, iface).to_vec();
    body.extend_from_slice(&u32b(o, (ts >> 32) as u32));
    body.extend_from_slice(&u32b(o, ts as u32));
    body.extend_from_slice(&u32b(o, data.len() as u32));
    body.extend_from_slice(&u32b(o, orig));
    body.extend_from_slice(data);
    while body.len() % 4 != 0 {
        body.push(0);
    }
    body.extend_from_slice(options);
    block(o, 6, &body)
}

fn spb(o: Order, data: &[u8], orig: u32) -> Vec<u8> {
    let mut body = u32b(o, orig).to_vec();
    body.extend_from_slice(data);
    block(o, 3, &body)
}

/// The obsolete Packet Block.
fn pb(o: Order, iface: u16, ts: u64, data: &[u8]) -> Vec<u8> {
    let mut body = u16b(o, iface).to_vec();
    body.extend_from_slice(&u16b(o, 0));
    body.extend_from_slice(&u32b(o, (ts >> 32) as u32));
    body.extend_from_slice(&u32b(o, ts as u32));
    body.extend_from_slice(&u32b(o, data.len() as u32));
    body.extend_from_slice(&u32b(o, data.len() as u32));
    body.extend_from_slice(data);
    block(o, 2, &body)
}

fn read(file: &[u8]) -> Result<Vec<Record>, CaptureError> {
    CaptureReader::new(file)?.collect()
}

fn items(file: &[u8]) -> Vec<Item> {
    let mut r = CaptureReader::new(file).unwrap();
    let mut out = Vec::new();
    while let Some(i) = r.next_item() {
        out.push(i.unwrap());
    }
    out
}

/// Option lists that end at the block end without `opt_endofopt`, which the specification
/// allows, in every block that has options; and the same with it.
#[test]
fn options_without_end_of_options() {
    for o in [Little, Big] {
        for end in [false, true] {
            let tail = if end { end_of_options() } else { Vec::new() };
            let mut f = shb(o, -1, &[opt(o, 4, b"writer"), tail.clone()].concat());
            f.extend(idb(o, 1, 0, &[opt(o, 2, b"eth0"), tail.clone()].concat()));
            let flags = opt(o, 2, &u32b(o, 2));
            f.extend(epb(o, 0, 5, b"abcdef", 6, &[opt(o, 1, b"hi"), flags, tail].concat()));
            let items = items(&f);
            let Item::Section(s) = &items[0] else { panic!() };
            assert_eq!((s.user_application.as_deref(), s.length), (Some("writer"), None));
            let Item::Interface(i) = &items[1] else { panic!() };
            assert_eq!(i.name.as_deref(), Some("eth0"));
            let Item::Packet(p) = &items[2] else { panic!() };
            assert_eq!((p.data.as_slice(), p.flags), (&b"abcdef"[..], Some(2)));
            assert_eq!(p.comments, vec!["hi".to_string()]);
            assert_eq!(p.timestamp_ns, Some(5_000));
        }
    }
}

/// Several sections, each in its own byte order: interface IDs start again in each, with
/// the section's own link types; a section may give its length or -1.
#[test]
fn several_sections_in_both_byte_orders() {
    let mut rest = idb(Little, 1, 0, &[]);
    rest.extend(epb(Little, 0, 1, b"one", 3, &[]));
    let first_len = rest.len() as u64;
    let mut f = shb(Little, first_len as i64, &[]);
    f.extend(rest);
    let second_at = f.len() as u64;
    f.extend(shb(Big, -1, &[]));
    f.extend(idb(Big, 101, 0, &[]));
    f.extend(idb(Big, 276, 0, &[]));
    f.extend(epb(Big, 1, 2, b"two", 3, &[]));
    f.extend(epb(Big, 0, 3, b"three", 5, &[]));
    let items = items(&f);
    let sections: Vec<_> = items
        .iter()
        .filter_map(|i| if let Item::Section(s) = i { Some((s.offset, s.length)) } else { None })
        .collect();
    assert_eq!(sections, vec![(0, Some(first_len)), (second_at, None)]);
    let recs = read(&f).unwrap();
    let got: Vec<_> = recs.iter().map(|r| (r.interface, r.link_type, r.data.clone())).collect();
    assert_eq!(
        got,
        vec![(0, 1, b"one".to_vec()), (1, 276, b"two".to_vec()), (0, 101, b"three".to_vec())]
    );
    assert_eq!(recs.iter().map(|r| r.index).collect::<Vec<_>>(), vec![1, 2, 3]);
}

/// Blocks the reader does not use — name resolution, interface statistics, custom and
/// unknown types, of any size — are skipped; a huge one is never held in memory.
#[test]
fn unknown_and_unused_blocks_are_skipped() {
    for o in [Little, Big] {
        let mut f = shb(o, -1, &[]);
        f.extend(idb(o, 1, 0, &[]));
        f.extend(block(o, 4, &[0; 64])); // name resolution
        f.extend(block(o, 5, &[0; 16])); // interface statistics
        f.extend(block(o, 0x0BAD, &[1, 2, 3, 4])); // custom
        f.extend(block(o, 0x4000_0BAD, &[5, 6, 7, 8])); // custom, not to be copied
        f.extend(block(o, 0x1234_5678, &[])); // unknown
        // A name resolution block larger than any block the reader holds.
        f.extend(block(o, 4, &vec![0x55; 20 << 20]));
        f.extend(epb(o, 0, 9, b"after", 5, &[]));
        let recs = read(&f).unwrap();
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].data, b"after");
    }
}

/// `if_tsresol` (powers of 10 and of 2) and `if_tsoffset` (seconds, signed, in the
/// section's byte order).
#[test]
fn timestamp_resolution_and_offset() {
    for o in [Little, Big] {
        let offset = |s: i64| if o == Big { s.to_be_bytes() } else { s.to_le_bytes() };
        let mut f = shb(o, -1, &[]);
        f.extend(idb(o, 1, 0, &[])); // microseconds
        f.extend(idb(o, 1, 0, &opt(o, 9, &[9]))); // nanoseconds
        f.extend(idb(o, 1, 0, &[opt(o, 9, &[0x80 | 10]), opt(o, 14, &offset(100))].concat()));
        f.extend(idb(o, 1, 0, &[opt(o, 9, &[3]), opt(o, 14, &offset(-1))].concat()));
        f.extend(epb(o, 0, 7, b"a", 1, &[]));
        f.extend(epb(o, 1, 7, b"b", 1, &[]));
        f.extend(epb(o, 2, 1024, b"c", 1, &[]));
        f.extend(epb(o, 3, 2_500, b"d", 1, &[]));
        let ts: Vec<_> = read(&f).unwrap().iter().map(|r| r.timestamp_ns).collect();
        assert_eq!(ts, vec![Some(7_000), Some(7), Some(101_000_000_000), Some(1_500_000_000)]);
    }
}

/// An interface described after packets of the section have been read.
#[test]
fn interface_added_mid_section() {
    let mut f = shb(Little, -1, &[]);
    f.extend(idb(Little, 1, 0, &[]));
    f.extend(epb(Little, 0, 1, b"first", 5, &[]));
    f.extend(idb(Little, 113, 0, &[]));
    f.extend(epb(Little, 1, 2, b"second", 6, &[]));
    let recs = read(&f).unwrap();
    assert_eq!((recs[1].interface, recs[1].link_type), (1, 113));
    // A packet naming an interface not yet described is an error with its offset.
    let mut g = shb(Little, -1, &[]);
    g.extend(idb(Little, 1, 0, &[]));
    let at = g.len();
    g.extend(epb(Little, 1, 1, b"x", 1, &[]));
    let e = read(&g).unwrap_err();
    assert!(matches!(&e, CaptureError::Corrupt { offset, .. } if *offset == at as u64), "{e}");
}

/// Simple Packet Blocks: no timestamp, interface 0, the packet at most `original_len` and
/// the snap length; and the obsolete Packet Block, with its interface and timestamp.
#[test]
fn simple_and_obsolete_packet_blocks() {
    for o in [Little, Big] {
        let mut f = shb(o, -1, &[]);
        f.extend(idb(o, 1, 4, &[]));
        f.extend(idb(o, 1, 0, &opt(o, 9, &[9])));
        f.extend(spb(o, b"abcdefgh", 8));
        f.extend(spb(o, b"xy", 2));
        f.extend(pb(o, 1, 42, b"old"));
        let recs = read(&f).unwrap();
        assert_eq!((recs[0].data.as_slice(), recs[0].orig_len), (&b"abcd"[..], 8));
        assert_eq!((recs[1].data.as_slice(), recs[1].timestamp_ns), (&b"xy"[..], None));
        assert_eq!((recs[2].interface, recs[2].timestamp_ns), (1, Some(42)));
        assert_eq!(recs[2].data, b"old");
    }
}

/// Truncated blocks and a trailing length that differs from the leading one: typed errors
/// at the block's offset, after every record before it.
#[test]
fn truncated_and_corrupt_blocks() {
    let mut f = shb(Little, -1, &[]);
    f.extend(idb(Little, 1, 0, &[]));
    f.extend(epb(Little, 0, 1, b"whole", 5, &[]));
    let at = f.len() as u64;
    let last = epb(Little, 0, 2, b"cut here", 8, &[]);
    for cut in [3, 8, 20, last.len() - 1] {
        let mut g = f.clone();
        g.extend_from_slice(&last[..cut]);
        let mut r = CaptureReader::new(&g[..]).unwrap();
        assert_eq!(r.next().unwrap().unwrap().data, b"whole");
        let e = r.next().unwrap().unwrap_err();
        assert!(matches!(e, CaptureError::Truncated { offset, .. } if offset == at), "{e}");
        assert!(r.next().is_none());
    }
    let mut bad = last.clone();
    let n = bad.len();
    bad[n - 4] ^= 4;
    let mut g = f.clone();
    g.extend(bad);
    let e = read(&g).unwrap_err();
    assert!(e.to_string().contains("trailing length"), "{e}");
    // The same in a skipped block.
    let mut g = f.clone();
    let mut nrb = block(Little, 4, &[0; 8]);
    let n = nrb.len();
    nrb[n - 4] ^= 4;
    g.extend(nrb);
    assert!(read(&g).unwrap_err().to_string().contains("trailing length"));
    // A skipped block cut short.
    let mut g = f.clone();
    g.extend_from_slice(&block(Little, 4, &[0; 64])[..40]);
    assert!(matches!(read(&g).unwrap_err(), CaptureError::Truncated { .. }));
}

/// A section describing more interfaces than the reader keeps is refused, rather than let
/// memory grow with the file.
#[test]
fn interfaces_are_bounded() {
    let mut f = shb(Little, -1, &[]);
    let one = idb(Little, 1, 0, &[]);
    for _ in 0..=MAX_INTERFACES {
        f.extend_from_slice(&one);
    }
    let e = read(&f).unwrap_err();
    assert!(e.to_string().contains("more than 65536 interfaces"), "{e}");
}

/// DEC-FCS-001: an FCS that pcapng's `if_fcslen`, a packet's `epb_flags`, or the FCS bits of
/// a pcap header's link-type word declare is removed from the packet and its length.
#[test]
fn dec_fcs_001_declared_fcs_is_removed() {
    let mut f = shb(Little, -1, &[]);
    f.extend(idb(Little, 1, 0, &opt(Little, 13, &[4])));
    f.extend(idb(Little, 1, 0, &[]));
    f.extend(epb(Little, 0, 1, b"frame+FCS", 9, &[]));
    f.extend(epb(Little, 1, 1, b"frame+FCS", 9, &opt(Little, 2, &u32b(Little, 4 << 5))));
    f.extend(epb(Little, 0, 1, b"fra", 9, &[]));
    let recs = read(&f).unwrap();
    assert_eq!((recs[0].data.as_slice(), recs[0].orig_len), (&b"frame"[..], 5));
    assert_eq!((recs[1].data.as_slice(), recs[1].orig_len), (&b"frame"[..], 5));
    assert_eq!((recs[2].data.as_slice(), recs[2].orig_len), (&b"fra"[..], 5));

    for network in [0x5000_0001u32, 0x2400_0001] {
        assert_eq!(pcap_fcs_len(network), 4);
        let mut p = vec![0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        p.extend_from_slice(&0xFFFFu32.to_le_bytes());
        p.extend_from_slice(&network.to_le_bytes());
        for w in [0u32, 0, 9, 9] {
            p.extend_from_slice(&w.to_le_bytes());
        }
        p.extend_from_slice(b"frame+FCS");
        let recs = read(&p).unwrap();
        assert_eq!((recs[0].link_type, recs[0].data.as_slice()), (1, &b"frame"[..]));
    }
}
