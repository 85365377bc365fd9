//! The on-disk scenario format: round trips, deterministic output, and an exact error for
//! every kind of broken file.

use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Duration;

use openrdma_codec::{Ev, Msn, Psn, Qpn, Rkey};
use openrdma_conformance::capture::{CaptureError, LINKTYPE_ETHERNET};
use openrdma_conformance::file::{
    DirectionError, FileError, HostKind, HostRecordError, LINKTYPE_USER0, load, load_dir,
    manifest_to_toml, parse_manifest, read_observed, read_observed_bytes,
    read_observed_within_from, read_scenario_bytes, save, write_scenario,
};
use openrdma_conformance::scoreboard::{judge, output_cap, over_cap, scenario_end};
use openrdma_device::{
    Body, CpuCommand, Direction, EvState, FlagWrite, HostCommand, Manifest, NicEvent, Output,
    Record, Region, Scenario, Side, TimedOutput, Timestamp,
};
use pcap_file::DataLink;
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};

fn manifest(ports: u16) -> Manifest {
    let text = format!(
        "name = \"file-format-test\"\n\
         description = \"Every kind of record.\"\n\
         requirements = [\"RCV-ACK-001\"]\n\
         ports = {ports}\n"
    );
    parse_manifest(&text, "test.toml").expect("the test manifest parses")
}

fn frame(seed: u8, len: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x88, 0xB5];
    f.extend((0..len).map(|i| seed.wrapping_add(i as u8)));
    f
}

fn rec(at: u64, dir: Direction, body: Body, checks: &[&str]) -> Record {
    Record {
        at: Timestamp::from_nanos(at),
        dir,
        body,
        checks: checks.iter().map(|c| c.to_string()).collect(),
    }
}

/// A scenario with every kind of body, both directions, two ports, equal times.
fn scenario() -> Scenario {
    use Direction::{Expect, Inject};
    let records = vec![
        rec(
            0,
            Inject,
            Body::Host {
                command: HostCommand::RegisterRegion(Region {
                    rkey: Rkey::new(0x1234),
                    base: 0x10_0000,
                    len: 1 << 20,
                    remote_write: true,
                }),
            },
            &[],
        ),
        rec(0, Inject, Body::Host { command: HostCommand::Doorbell { token: u64::MAX } }, &[]),
        rec(
            10,
            Inject,
            Body::Cpu {
                command: CpuCommand::SetEvState {
                    qpn: Qpn::new(7),
                    ev: Ev::new(3),
                    state: EvState::AssumedBad,
                },
            },
            &[],
        ),
        rec(100, Inject, Body::Frame { port: 0, bytes: frame(1, 50) }, &["RCV-ACK-001"]),
        rec(
            250,
            Expect,
            Body::Frame { port: 1, bytes: frame(2, 47) },
            &["RCV-ACK-001", "RCV-DUP-001"],
        ),
        rec(
            250,
            Expect,
            Body::Event {
                event: NicEvent::FlagWrite(FlagWrite {
                    qpn: Qpn::new(7),
                    side: Side::Responder,
                    msn: Msn::new(1),
                    addr: 0x2000,
                    value: 0x8000_0000_0000_0001,
                }),
            },
            &["RCV-DUP-001"],
        ),
        rec(1_000_000_007, Expect, Body::Frame { port: 0, bytes: frame(3, 0) }, &[]),
        rec(
            1_000_000_008,
            Inject,
            Body::Cpu { command: CpuCommand::QpError { qpn: Qpn::new(7) } },
            &[],
        ),
    ];
    let _ = Psn::new(0);
    Scenario { manifest: manifest(2), records }
}

fn written(s: &Scenario) -> Vec<u8> {
    let mut out = Vec::new();
    write_scenario(s, &mut out).expect("the scenario writes");
    out
}

fn read(pcapng: &[u8], s: &Scenario) -> Result<Scenario, FileError> {
    let toml = manifest_to_toml(&s.manifest);
    read_scenario_bytes(pcapng, &toml, "t.pcapng", "t.toml")
}

/// Byte offsets of the blocks of little-endian pcapng `bytes`, and the end.
fn block_starts(bytes: &[u8]) -> Vec<usize> {
    let mut at = 0;
    let mut starts = Vec::new();
    while at < bytes.len() {
        starts.push(at);
        at += u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
    }
    assert_eq!(at, bytes.len());
    starts.push(at);
    starts
}

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// CONF-FMT-005: what the writer writes reads back equal.
#[test]
fn round_trip() {
    let s = scenario();
    let bytes = written(&s);
    let back = read(&bytes, &s).expect("the scenario reads back");
    assert_eq!(back, s);
}

/// CONF-FMT-001: a scenario `X` is the two files `X.toml` and `X.pcapng`, side by side.
#[test]
fn save_and_load() {
    let s = scenario();
    let stem = tmp("file-save-and-load");
    save(&s, &stem).unwrap();
    let named = |ext: &str| {
        let mut p = stem.clone().into_os_string();
        p.push(ext);
        PathBuf::from(p)
    };
    assert_eq!(
        parse_manifest(&std::fs::read_to_string(named(".toml")).unwrap(), "m").unwrap(),
        s.manifest
    );
    assert_eq!(std::fs::read(named(".pcapng")).unwrap(), written(&s));
    assert_eq!(load(&stem).unwrap(), s);
    let mut pcapng = stem.clone().into_os_string();
    pcapng.push(".pcapng");
    assert_eq!(load(PathBuf::from(pcapng)).unwrap(), s);
}

#[test]
fn empty_scenario_round_trips() {
    let s = Scenario { manifest: manifest(1), records: vec![] };
    assert_eq!(read(&written(&s), &s).unwrap(), s);
}

/// CONF-FMT-002: one section, whose length counts the blocks after it, then the interfaces
/// and one block per record.
#[test]
fn output_is_deterministic() {
    let s = scenario();
    let a = written(&s);
    let b = written(&s.clone());
    assert_eq!(a, b);
    // Section header (with the section length), 3 interfaces, one block per record.
    assert_eq!(block_starts(&a).len() - 1, 1 + 3 + s.records.len());
    let declared = i64::from_le_bytes(a[16..24].try_into().unwrap());
    assert_eq!(declared as usize, a.len() - block_starts(&a)[1]);
}

/// CONF-FMT-002 and CONF-FMT-003: the interfaces (Ethernet ports, then the USER0 host
/// interface, nanosecond resolution), one Enhanced Packet Block per record with its time,
/// its direction in `epb_flags` and its comment, and host records with magic `ORDM`,
/// version 1, the kind of their body and reserved bytes 0.
#[test]
fn layout() {
    let s = scenario();
    let bytes = written(&s);
    let starts = block_starts(&bytes);
    // Little-endian Section Header Block.
    assert_eq!(&bytes[0..4], &[0x0A, 0x0D, 0x0D, 0x0A]);
    assert_eq!(&bytes[8..12], &[0x4D, 0x3C, 0x2B, 0x1A]);
    let shb = &bytes[..starts[1]];
    let contains = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    assert!(contains(shb, b"file-format-test"));
    assert!(contains(shb, format!("openrdma {}", env!("CARGO_PKG_VERSION")).as_bytes()));
    // Interfaces: port0, port1 (Ethernet), host (USER0), all with if_tsresol 9.
    for (i, (name, link)) in
        [("port0", LINKTYPE_ETHERNET), ("port1", LINKTYPE_ETHERNET), ("host", LINKTYPE_USER0)]
            .into_iter()
            .enumerate()
    {
        let idb = &bytes[starts[1 + i]..starts[2 + i]];
        assert_eq!(u32::from_le_bytes(idb[0..4].try_into().unwrap()), 1);
        assert_eq!(u32::from(u16::from_le_bytes(idb[8..10].try_into().unwrap())), link);
        assert!(contains(idb, name.as_bytes()));
        assert!(contains(idb, &[9, 0, 1, 0, 9, 0, 0, 0]), "if_tsresol 9 on {name}");
    }
    // The fourth record: a frame injected on port 0 at 100 ns.
    let epb = &bytes[starts[7]..starts[8]];
    assert_eq!(u32::from_le_bytes(epb[0..4].try_into().unwrap()), 6);
    assert_eq!(u32::from_le_bytes(epb[8..12].try_into().unwrap()), 0, "interface");
    assert_eq!(u32::from_le_bytes(epb[16..20].try_into().unwrap()), 100, "timestamp low");
    assert!(contains(epb, b"inject checks: RCV-ACK-001"));
    assert!(contains(epb, &[2, 0, 4, 0, 1, 0, 0, 0]), "epb_flags inbound");
    // The first record: a host command on interface 2, "ORDM", version 1, kind 1.
    let epb = &bytes[starts[4]..starts[5]];
    assert_eq!(u32::from_le_bytes(epb[8..12].try_into().unwrap()), 2, "interface");
    assert_eq!(&epb[28..36], b"ORDM\x01\x01\0\0");
    assert!(epb[36..].starts_with(b"{\"command\":\"register_region\""));
    // An expected event: kind 3, outbound.
    let epb = &bytes[starts[9]..starts[10]];
    assert_eq!(&epb[28..36], b"ORDM\x01\x03\0\0");
    assert!(contains(epb, &[2, 0, 4, 0, 2, 0, 0, 0]), "epb_flags outbound");
    assert!(contains(epb, b"expect checks: RCV-DUP-001"));
}

#[test]
fn truncated_files() {
    let s = scenario();
    let bytes = written(&s);
    let starts = block_starts(&bytes);
    let end = *starts.last().unwrap();
    for len in [0, 3] {
        assert!(matches!(
            read(&bytes[..len], &s),
            Err(FileError::Capture { source: CaptureError::TooShort { .. }, .. })
        ));
    }
    for len in [4, 11, starts[1] - 1] {
        assert!(matches!(
            read(&bytes[..len], &s),
            Err(FileError::Capture { source: CaptureError::TruncatedHeader { .. }, .. })
        ));
    }
    // Cut at a block boundary: the section length tells.
    for &cut in &starts[1..starts.len() - 1] {
        match read(&bytes[..cut], &s) {
            Err(FileError::SectionLength { offset, declared, actual, .. }) => {
                assert_eq!(offset, cut as u64);
                assert_eq!(declared, (end - starts[1]) as u64);
                assert_eq!(actual, (cut - starts[1]) as u64);
            }
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    // Cut inside a block: the block's offset.
    for w in starts[1..].windows(2) {
        let (start, next) = (w[0], w[1]);
        for cut in [start + 1, start + 4, start + 8, (start + next) / 2, next - 1] {
            match read(&bytes[..cut], &s) {
                Err(FileError::Capture {
                    source: CaptureError::Truncated { what: "block", offset, .. },
                    ..
                }) => assert_eq!(offset, start as u64, "cut at {cut}"),
                other => panic!("cut at {cut}: {other:?}"),
            }
        }
    }
}

#[test]
fn bad_block_length() {
    let s = scenario();
    let bytes = written(&s);
    let starts = block_starts(&bytes);
    for &start in &starts[1..starts.len() - 1] {
        for bad in [13u32, 8] {
            let mut b = bytes.clone();
            b[start + 4..start + 8].copy_from_slice(&bad.to_le_bytes());
            match read(&b, &s) {
                Err(FileError::Capture {
                    source: CaptureError::Corrupt { what: "block", offset, reason },
                    ..
                }) => {
                    assert_eq!(offset, start as u64);
                    assert!(reason.contains(&format!("block length {bad}")), "{reason}");
                }
                other => panic!("length {bad} at {start}: {other:?}"),
            }
        }
        // Header and trailer lengths that disagree.
        let mut b = bytes.clone();
        let len = u32::from_le_bytes(b[start + 4..start + 8].try_into().unwrap());
        b[start + 4..start + 8].copy_from_slice(&(len + 4).to_le_bytes());
        assert!(
            matches!(
                read(&b, &s),
                Err(FileError::Capture { source: CaptureError::Corrupt { offset, .. }
                    | CaptureError::Truncated { offset, .. }, .. })
                    if offset == start as u64
            ),
            "{start}"
        );
    }
}

/// CONF-FMT-003: a reader rejects a host record with another magic, version or kind, or
/// non-zero reserved bytes, and one whose kind does not match its body.
#[test]
fn bad_host_record_headers() {
    let s = scenario();
    let bytes = written(&s);
    let starts = block_starts(&bytes);
    let host = starts[4]; // the first record: a host command
    let data = host + 28;
    let cases: [(usize, u8, HostRecordError); 4] = [
        (0, b'X', HostRecordError::Magic { found: *b"XRDM" }),
        (4, 2, HostRecordError::Version { found: 2 }),
        (5, 9, HostRecordError::Kind { found: 9 }),
        (7, 1, HostRecordError::Reserved { found: 1 }),
    ];
    for (at, value, want) in cases {
        let mut b = bytes.clone();
        b[data + at] = value;
        match read(&b, &s) {
            Err(FileError::HostRecord { offset, reason, .. }) => {
                assert_eq!(offset, host as u64);
                assert_eq!(reason, want);
            }
            other => panic!("{want}: {other:?}"),
        }
    }
    // A record that is a host command where an event must be.
    let mut b = bytes.clone();
    b[starts[9] + 28 + 5] = 1;
    match read(&b, &s) {
        Err(FileError::Json { offset, kind: HostKind::Host, line: 1, .. }) => {
            assert_eq!(offset, starts[9] as u64)
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Hand-made files, for what the writer never produces.
// ---------------------------------------------------------------------------------------

struct Packet<'a> {
    interface: u32,
    at: u64,
    data: Vec<u8>,
    flags: Option<u32>,
    comment: Option<&'a str>,
}

fn pkt(interface: u32, at: u64, data: Vec<u8>, flags: Option<u32>) -> Packet<'static> {
    Packet { interface, at, data, flags, comment: None }
}

/// A pcapng file (section length -1) of the test scenario (its section comment names it,
/// CONF-FMT-010) with the given interfaces and packets.
fn handmade(links: &[u32], packets: &[Packet<'_>]) -> (Vec<u8>, Vec<usize>) {
    handmade_named(Some("file-format-test"), links, packets)
}

/// [`handmade`] with this section comment, or none.
fn handmade_named(
    name: Option<&str>,
    links: &[u32],
    packets: &[Packet<'_>],
) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let shb = SectionHeaderBlock {
        endianness: pcap_file::Endianness::Little,
        section_length: -1,
        options: name
            .map(|n| SectionHeaderOption::Comment(Cow::Owned(n.to_string())))
            .into_iter()
            .collect(),
        ..Default::default()
    };
    let mut w = PcapNgWriter::with_section_header(&mut out, shb).unwrap();
    for &link in links {
        w.write_pcapng_block(InterfaceDescriptionBlock {
            linktype: DataLink::from(link),
            snaplen: 0,
            options: vec![InterfaceDescriptionOption::IfTsResol(9)],
        })
        .unwrap();
    }
    for p in packets {
        let mut options = Vec::new();
        if let Some(c) = p.comment {
            options.push(EnhancedPacketOption::Comment(Cow::Borrowed(c)));
        }
        if let Some(f) = p.flags {
            options.push(EnhancedPacketOption::Flags(f));
        }
        w.write_pcapng_block(EnhancedPacketBlock {
            interface_id: p.interface,
            timestamp: Duration::from_nanos(p.at),
            original_len: p.data.len() as u32,
            data: Cow::Borrowed(&p.data),
            options,
        })
        .unwrap();
    }
    let starts = block_starts(&out);
    (out, starts)
}

fn host_record(kind: u8, json: &str) -> Vec<u8> {
    let mut v = b"ORDM\x01".to_vec();
    v.extend_from_slice(&[kind, 0, 0]);
    v.extend_from_slice(json.as_bytes());
    v
}

fn read1(pcapng: &[u8]) -> Result<Scenario, FileError> {
    read(pcapng, &Scenario { manifest: manifest(1), records: vec![] })
}

#[test]
fn section_length_minus_one_is_accepted() {
    let (b, _) = handmade(
        &[LINKTYPE_ETHERNET, LINKTYPE_USER0],
        &[
            pkt(0, 5, frame(0, 10), Some(1)),
            pkt(1, 6, host_record(1, r#"{"command":"doorbell","token":9}"#), Some(1)),
        ],
    );
    let s = read1(&b).unwrap();
    assert_eq!(s.records.len(), 2);
    assert_eq!(s.records[1].body, Body::Host { command: HostCommand::Doorbell { token: 9 } });
}

#[test]
fn json_garbage() {
    let (b, starts) = handmade(
        &[LINKTYPE_ETHERNET, LINKTYPE_USER0],
        &[pkt(1, 0, host_record(2, "{\n  \"cmd\": \"probe\",\n  \"qpn\": 1,\n  oops\n}"), Some(1))],
    );
    match read1(&b) {
        Err(FileError::Json { offset, kind: HostKind::Cpu, line, column, message, .. }) => {
            assert_eq!(offset, starts[3] as u64);
            assert_eq!((line, column), (4, 3));
            assert!(message.starts_with("key must be a string"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let (b, _) = handmade(
        &[LINKTYPE_ETHERNET, LINKTYPE_USER0],
        &[pkt(1, 0, host_record(3, r#"{"event":"no_such_event"}"#), Some(2))],
    );
    assert!(matches!(read1(&b), Err(FileError::Json { kind: HostKind::Event, line: 1, .. })));
    // A host record shorter than its header (CONF-FMT-003).
    let (b, _) =
        handmade(&[LINKTYPE_ETHERNET, LINKTYPE_USER0], &[pkt(1, 0, b"ORD".to_vec(), Some(1))]);
    assert!(matches!(
        read1(&b),
        Err(FileError::HostRecord { reason: HostRecordError::Short { len: 3 }, .. })
    ));
}

/// CONF-FMT-004: times never go backwards; CONF-FMT-005: the writer refuses it too.
#[test]
fn time_going_backwards() {
    let (b, starts) = handmade(
        &[LINKTYPE_ETHERNET, LINKTYPE_USER0],
        &[
            pkt(0, 100, frame(0, 4), Some(1)),
            pkt(0, 100, frame(1, 4), Some(2)),
            pkt(0, 99, frame(2, 4), Some(1)),
        ],
    );
    match read1(&b) {
        Err(FileError::TimeBackwards { offset, at: 99, previous: 100, .. }) => {
            assert_eq!(offset, starts[5] as u64)
        }
        other => panic!("{other:?}"),
    }
    // The writer refuses too.
    let mut s = scenario();
    s.records.swap(3, 4);
    assert!(matches!(
        write_scenario(&s, &mut Vec::new()),
        Err(FileError::Invalid { record: 4, .. })
    ));
}

/// CONF-FMT-004: a port is Ethernet, the host interface USER0, and every packet is on one
/// of them; CONF-FMT-005: the writer refuses a frame on a port the manifest lacks.
#[test]
fn interfaces_and_link_types() {
    // A packet on an interface beyond the host interface.
    let (b, starts) = handmade(
        &[LINKTYPE_ETHERNET, LINKTYPE_USER0, LINKTYPE_ETHERNET],
        &[pkt(0, 0, frame(0, 4), Some(1)), pkt(2, 1, frame(0, 4), Some(1))],
    );
    match read1(&b) {
        Err(FileError::Interface { offset, interface: 2, ports: 1, .. }) => {
            assert_eq!(offset, starts[5] as u64)
        }
        other => panic!("{other:?}"),
    }
    // A port that is not Ethernet.
    let (b, starts) = handmade(&[228, LINKTYPE_USER0], &[]);
    match read1(&b) {
        Err(FileError::LinkType { offset, interface: 0, expected: 1, link_type: 228, .. }) => {
            assert_eq!(offset, starts[1] as u64)
        }
        other => panic!("{other:?}"),
    }
    // A two-port scenario read with a one-port manifest: interface 1 must be the host's.
    let s = scenario();
    let bytes = written(&s);
    let starts = block_starts(&bytes);
    let one = Scenario { manifest: manifest(1), records: vec![] };
    match read(&bytes, &one) {
        Err(FileError::LinkType { offset, interface: 1, expected: 147, link_type: 1, .. }) => {
            assert_eq!(offset, starts[2] as u64)
        }
        other => panic!("{other:?}"),
    }
    // ... and with a three-port manifest, interface 2 must be a port.
    let three = Scenario { manifest: manifest(3), records: vec![] };
    assert!(matches!(
        read(&bytes, &three),
        Err(FileError::LinkType { interface: 2, expected: 1, link_type: 147, .. })
    ));
    // The writer refuses a frame on a port the manifest does not have.
    let mut s = scenario();
    s.manifest.ports = 1;
    assert!(matches!(
        write_scenario(&s, &mut Vec::new()),
        Err(FileError::Invalid { record: 4, .. })
    ));
}

/// CONF-FMT-004: the direction comes from `epb_flags`, or from the comment when the flags
/// are absent or `00`; flags `11`, flags and comment that disagree, or neither, are
/// rejected; other comments are notes. CONF-FMT-003: an event is never injected, and a
/// command never expected. CONF-FMT-005: the writer refuses what the reader would.
#[test]
fn directions_and_comments() {
    let links = [LINKTYPE_ETHERNET, LINKTYPE_USER0];
    // From the comment when the flags are absent, with the checks.
    let p = Packet {
        interface: 0,
        at: 0,
        data: frame(0, 4),
        flags: None,
        comment: Some("expect checks: RCV-ACK-001"),
    };
    let s = read1(&handmade(&links, &[p]).0).unwrap();
    assert_eq!(s.records[0].dir, Direction::Expect);
    assert_eq!(s.records[0].checks, vec!["RCV-ACK-001".to_string()]);
    // From the flags alone.
    let s = read1(&handmade(&links, &[pkt(0, 0, frame(0, 4), Some(2))]).0).unwrap();
    assert_eq!(s.records[0].dir, Direction::Expect);
    // From the comment when the flags say 00.
    let p =
        Packet { interface: 0, at: 0, data: frame(0, 4), flags: Some(0), comment: Some("inject") };
    assert_eq!(read1(&handmade(&links, &[p]).0).unwrap().records[0].dir, Direction::Inject);
    // Flags 11.
    let (b, starts) = handmade(&links, &[pkt(0, 0, frame(0, 4), Some(3))]);
    match read1(&b) {
        Err(FileError::Direction {
            offset, reason: DirectionError::BadFlags { flags: 3 }, ..
        }) => {
            assert_eq!(offset, starts[3] as u64)
        }
        other => panic!("{other:?}"),
    }
    // Neither.
    let (b, starts) = handmade(&links, &[pkt(0, 0, frame(0, 4), None)]);
    match read1(&b) {
        Err(FileError::Direction { offset, reason: DirectionError::Missing, .. }) => {
            assert_eq!(offset, starts[3] as u64)
        }
        other => panic!("{other:?}"),
    }
    // Disagreeing.
    let p =
        Packet { interface: 0, at: 0, data: frame(0, 4), flags: Some(1), comment: Some("expect") };
    assert!(matches!(
        read1(&handmade(&links, &[p]).0),
        Err(FileError::Direction { reason: DirectionError::Disagree { .. }, .. })
    ));
    // Malformed checks.
    let p = Packet {
        interface: 0,
        at: 0,
        data: frame(0, 4),
        flags: Some(1),
        comment: Some("inject checks: A,B"),
    };
    assert!(matches!(
        read1(&handmade(&links, &[p]).0),
        Err(FileError::Direction { reason: DirectionError::BadComment { .. }, .. })
    ));
    // Notes are ignored.
    let p = Packet {
        interface: 0,
        at: 0,
        data: frame(0, 4),
        flags: Some(1),
        comment: Some("retransmission"),
    };
    assert_eq!(read1(&handmade(&links, &[p]).0).unwrap().records[0].dir, Direction::Inject);
    // An event that is injected.
    let event = r#"{"event":"flag_write","qpn":1,"side":"requester","msn":0,"addr":0,"value":0}"#;
    let (b, starts) = handmade(&links, &[pkt(1, 0, host_record(3, event), Some(1))]);
    match read1(&b) {
        Err(FileError::BodyDirection {
            offset,
            kind: HostKind::Event,
            dir: Direction::Inject,
            ..
        }) => {
            assert_eq!(offset, starts[3] as u64)
        }
        other => panic!("{other:?}"),
    }
    // A command that is expected, of either kind.
    for (kind, json) in
        [(1, r#"{"command":"doorbell","token":9}"#), (2, r#"{"cmd":"qp_error","qpn":1}"#)]
    {
        let (b, starts) = handmade(&links, &[pkt(1, 0, host_record(kind, json), Some(2))]);
        match read1(&b) {
            Err(FileError::BodyDirection { offset, dir: Direction::Expect, .. }) => {
                assert_eq!(offset, starts[3] as u64)
            }
            other => panic!("kind {kind}: {other:?}"),
        }
    }
    // The writer refuses an expected host command and bad check IDs.
    let mut s = scenario();
    s.records[0].dir = Direction::Expect;
    assert!(matches!(
        write_scenario(&s, &mut Vec::new()),
        Err(FileError::Invalid { record: 0, .. })
    ));
    let mut s = scenario();
    s.records[3].checks.push("TWO WORDS".into());
    assert!(matches!(
        write_scenario(&s, &mut Vec::new()),
        Err(FileError::Invalid { record: 3, .. })
    ));
}

/// CONF-FMT-006: a pcap file is an observed capture, each frame an output on port 0.
#[test]
fn snapped_packets_and_other_formats() {
    // A pcap file is not a scenario.
    let mut pcap = Vec::new();
    {
        let mut w = pcap_file::pcap::PcapWriter::new(&mut pcap).unwrap();
        w.write_packet(&pcap_file::pcap::PcapPacket::new(
            Duration::from_micros(3),
            20,
            &frame(0, 6),
        ))
        .unwrap();
    }
    assert!(matches!(read1(&pcap), Err(FileError::NotPcapNg { .. })));
    // ... but it is an observed capture.
    let seen = read_observed_bytes(&pcap, "x.pcap").unwrap();
    assert_eq!(
        seen,
        vec![TimedOutput {
            at: Timestamp::from_nanos(3_000),
            output: Output::Frame { port: 0, bytes: frame(0, 6) }
        }]
    );
    // A frame that the capture cut.
    let mut b =
        handmade(&[LINKTYPE_ETHERNET, LINKTYPE_USER0], &[pkt(0, 0, frame(0, 4), Some(1))]).0;
    let starts = block_starts(&b);
    let orig = starts[3] + 24;
    b[orig..orig + 4].copy_from_slice(&100u32.to_le_bytes());
    assert!(matches!(read1(&b), Err(FileError::Snapped { captured: 18, original: 100, .. })));
}

/// CONF-FMT-001: a manifest with a key the format does not define is rejected, and errors
/// name the file, the line and the column.
#[test]
fn toml_errors_have_line_and_column() {
    let text = "name = \"x\"\ndescription = \"y\"\nrequirements = [\"RCV-ACK-001\"]\n  bogus = 1\n";
    match parse_manifest(text, "m.toml") {
        Err(FileError::Toml { file, line, column, message }) => {
            assert_eq!(file, PathBuf::from("m.toml"));
            assert_eq!((line, column), (4, 3));
            assert!(message.contains("unknown field `bogus`"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let text = "name = \"x\"\ndescription = \"y\"\nrequirements = [\"RCV-ACK-001\"]\n[nic]\npmtu = 4096\nbogus = 1\n";
    assert!(matches!(
        parse_manifest(text, "m.toml"),
        Err(FileError::Toml { line: 6, column: 1, .. })
    ));
    let text =
        "name = \"x\"\ndescription = \"é\"\nrequirements = [\"RCV-ACK-001\"]\nports = \"two\"\n";
    assert!(matches!(
        parse_manifest(text, "m.toml"),
        Err(FileError::Toml { line: 4, column: 9, .. })
    ));
    let text = "name = \"x\"\ndescription = \"y\"\nrequirements = [\n";
    assert!(matches!(parse_manifest(text, "m.toml"), Err(FileError::Toml { line: 3 | 4, .. })));
    // Errors from reading whole files name the file too.
    let err = read_scenario_bytes(b"", "name = 1", "a.pcapng", "dir/a.toml").unwrap_err();
    assert!(err.to_string().starts_with("dir/a.toml:1:8: "), "{err}");
}

/// CONF-FMT-007: a manifest without `version` is version 1, as is one that says so; version 2
/// (CONF-ADP-022) is read too; a later version is rejected at the key, naming it; a version 1
/// manifest is written without the key.
#[test]
fn conf_fmt_007_manifest_versions() {
    let base = "name = \"x\"\ndescription = \"y\"\nrequirements = [\"RCV-ACK-001\"]\n";
    let absent = parse_manifest(base, "m.toml").unwrap();
    let one = parse_manifest(&format!("version = 1\n{base}"), "m.toml").unwrap();
    assert_eq!(absent, one);
    assert!(!manifest_to_toml(&one).contains("version"), "{}", manifest_to_toml(&one));
    let two = parse_manifest(&format!("{base}version = 2\n"), "m.toml").unwrap();
    assert_eq!(two.start, one.start, "a version 2 manifest without a start table starts at 0");
    match parse_manifest(&format!("{base}version = 3\n"), "m.toml") {
        Err(FileError::Toml { line, column, message, .. }) => {
            assert_eq!((line, column), (4, 11));
            assert!(message.contains("manifest version 3"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn manifest_round_trips_through_toml() {
    let mut m = scenario().manifest;
    m.nic.seed = 42;
    m.link.vlan = Some(12);
    m.link.local_ip = "fd00::1".parse().unwrap();
    m.link.peer_ip = "fd00::2".parse().unwrap();
    let text = manifest_to_toml(&m);
    assert_eq!(parse_manifest(&text, "m.toml").unwrap(), m);
    // The whole u64 range goes through.
    m.nic.seed = u64::MAX;
    assert_eq!(parse_manifest(&manifest_to_toml(&m), "m.toml").unwrap(), m);
}

/// CONF-FMT-006: an observed capture's outputs are exactly its outbound or unmarked
/// Ethernet frames and its host records of kind 3; inputs (inbound frames, host records of
/// kinds 1 and 2) and foreign USER0 packets are skipped; other link types are errors; the
/// outputs are ordered by time, stably.
#[test]
fn observed_capture_of_a_scenario_is_its_expectations() {
    let s = scenario();
    let path = tmp("file-observed.pcapng");
    std::fs::write(&path, written(&s)).unwrap();
    let seen = read_observed(&path).unwrap();
    let want: Vec<TimedOutput> = s
        .expects()
        .map(|r| TimedOutput {
            at: r.at,
            output: r.body.output().unwrap_or_else(|| panic!("{:?}", r.body)),
        })
        .collect();
    assert_eq!(seen, want);
    // Times are sorted; other link types are errors.
    let (b, _) = handmade(
        &[LINKTYPE_ETHERNET, LINKTYPE_ETHERNET],
        &[pkt(1, 9, frame(1, 1), None), pkt(0, 5, frame(0, 1), None)],
    );
    let seen = read_observed_bytes(&b, "o.pcapng").unwrap();
    assert_eq!(seen.iter().map(|o| o.at.as_nanos()).collect::<Vec<_>>(), vec![5, 9]);
    // Equal times keep their order; a USER0 packet without the ORDM magic is skipped, and
    // so is an inbound frame.
    let event = r#"{"event":"flag_write","qpn":1,"side":"requester","msn":0,"addr":0,"value":0}"#;
    let (b, _) = handmade(
        &[LINKTYPE_ETHERNET, LINKTYPE_USER0],
        &[
            pkt(0, 7, frame(3, 1), Some(2)),
            pkt(1, 7, b"not a host record".to_vec(), None),
            pkt(0, 7, frame(4, 1), None),
            pkt(1, 7, host_record(3, event), None),
            pkt(0, 7, frame(5, 1), Some(1)),
            pkt(0, 6, frame(6, 1), Some(2)),
        ],
    );
    let seen = read_observed_bytes(&b, "o.pcapng").unwrap();
    let what: Vec<String> = seen
        .iter()
        .map(|o| match &o.output {
            Output::Frame { bytes, .. } => format!("{}:{}", o.at.as_nanos(), bytes[14]),
            Output::Event { .. } => format!("{}:event", o.at.as_nanos()),
        })
        .collect();
    assert_eq!(what, ["6:6", "7:3", "7:4", "7:event"]);
    let (b, _) = handmade(&[113], &[pkt(0, 9, frame(1, 1), None)]);
    assert!(matches!(
        read_observed_bytes(&b, "o.pcapng"),
        Err(FileError::LinkType { link_type: 113, .. })
    ));
}

/// CONF-CMP-044: a capture holds outputs up to the scenario's end and past it. Those past
/// the end are counted, not kept; of the others the reader keeps the cap's number, however
/// many the capture holds, and the judge fails the scenario with the cap's one divergence,
/// which gives the count and the cap.
#[test]
fn a_capture_past_the_cap_is_judged_by_the_cap() {
    let s = scenario();
    let end = scenario_end(&s);
    let cap = output_cap(&s);
    assert_eq!(end.as_nanos(), 1_000_000_008 + s.manifest.tolerances.drain_ns);
    assert_eq!(cap, 1024 + 16 * s.records.len() as u64);
    let (within, past) = (3 * cap, 500);
    let mut device = s.clone();
    for k in 0..within + past {
        let at = if k < within { 300 + k } else { end.as_nanos() + 1 + k };
        device.records.push(rec(
            at,
            Direction::Expect,
            Body::Frame { port: 0, bytes: frame(9, 40) },
            &[],
        ));
    }
    device.records.sort_by_key(|r| r.at);
    let bytes = written(&device);
    let seen = read_observed_within_from(&bytes[..], "o.pcapng", end, cap).unwrap();
    let expected = s.expects().count() as u64;
    assert_eq!(seen.outputs.len() as u64, cap);
    assert_eq!(seen.sent, within + expected);
    assert_eq!(seen.after_end, past);
    assert!(seen.first_over.is_some());
    assert!(seen.outputs.windows(2).all(|w| w[0].at <= w[1].at));
    let j = over_cap(&s, seen.sent, seen.first_over.unwrap());
    assert_eq!(j.divergences.len(), 1);
    let d = &j.divergences[0];
    assert_eq!(d.requirement, "CONF-CMP-044");
    assert!(d.what.contains(&format!("sent {} outputs", within + expected)), "{}", d.what);
    assert!(d.what.contains(&format!("the {cap} it may send")), "{}", d.what);
    // The judge of a run applies the same cap to what it is given.
    let all = read_observed_bytes(&bytes, "o.pcapng").unwrap();
    let j = judge(&s, &[], &all);
    assert_eq!(j.divergences.len(), 1);
    assert_eq!(j.divergences[0].requirement, "CONF-CMP-044");
    // Within the cap, nothing is left out and the scenario's own outputs are all kept.
    let seen = read_observed_within_from(&written(&s)[..], "o.pcapng", end, cap).unwrap();
    assert_eq!((seen.outputs.len() as u64, seen.sent, seen.after_end), (expected, expected, 0));
    assert_eq!(seen.first_over, None);
}

/// CONF-FMT-004: blocks of other types are ignored: a scenario with a block of a type the
/// format does not use among its own reads as the scenario.
#[test]
fn blocks_of_other_types_are_ignored() {
    let s = scenario();
    let bytes = written(&s);
    let starts = block_starts(&bytes);
    // A custom block (type 0x00000BAD, four bytes of body) after the interfaces.
    let mut block = Vec::new();
    block.extend_from_slice(&0x0000_0BADu32.to_le_bytes());
    block.extend_from_slice(&16u32.to_le_bytes());
    block.extend_from_slice(b"note");
    block.extend_from_slice(&16u32.to_le_bytes());
    let mut b = bytes[..starts[4]].to_vec();
    b.extend_from_slice(&block);
    b.extend_from_slice(&bytes[starts[4]..]);
    let declared = i64::from_le_bytes(b[16..24].try_into().unwrap()) + 16;
    b[16..24].copy_from_slice(&declared.to_le_bytes());
    assert_eq!(read(&b, &s).unwrap(), s);
}

// ---------------------------------------------------------------------------------------
// What a manifest may hold, and the binding of its two files
// ---------------------------------------------------------------------------------------

const BASE: &str = "name = \"x\"\ndescription = \"y\"\nrequirements = [\"RCV-ACK-001\"]\n";

/// The key, line and column of the error `text` gives, or the other error.
fn refused(text: &str) -> (String, usize, usize, String) {
    match parse_manifest(text, "m.toml") {
        Err(FileError::Manifest { line, column, error, .. }) => {
            (error.key.to_string(), line, column, error.reason)
        }
        other => panic!("{text}: {other:?}"),
    }
}

/// CONF-FMT-008: a value a device could never be configured with is refused at its key,
/// its line and its column, and the message names file, key, value and rule.
#[test]
fn conf_fmt_008_values_refused_where_they_are() {
    let cases: &[(&str, &str, usize, usize)] = &[
        ("[nic]\npmtu = 0\n", "nic.pmtu", 5, 8),
        ("[nic]\nmpr = 0\n", "nic.mpr", 5, 7),
        ("[nic]\nmpr = 65\n", "nic.mpr", 5, 7),
        ("[nic]\nsack_coalesce = 0\n", "nic.sack_coalesce", 5, 17),
        ("[nic]\nsack_delay = 0\n", "nic.sack_delay", 5, 14),
        ("[nic]\nwwi_limit = 0\n", "nic.wwi_limit", 5, 13),
        ("[nic]\nmax_qps = 0\n", "nic.max_qps", 5, 11),
        ("nic = { ack_req_every = 0 }\n", "nic.ack_req_every", 4, 25),
        ("[recovery]\nrto = 0\n", "recovery.rto", 5, 7),
        ("[recovery]\nrto_max = 10\n", "recovery.rto_max", 5, 11),
        ("[recovery]\nprobe_interval = 0\n", "recovery.probe_interval", 5, 18),
        ("ports = 0\n", "ports", 4, 9),
        (
            "[link]\nlocal_mac = \"02:00:00:00:00:01\"\npeer_mac = \"02:00:00:00:00:02\"\nlocal_ip = \"10.0.0.1\"\npeer_ip = \"fd00::2\"\nvlan = 7\n",
            "link.peer_ip",
            8,
            11,
        ),
        (
            "[link]\nlocal_mac = \"02:00:00:00:00:01\"\npeer_mac = \"02:00:00:00:00:02\"\nlocal_ip = \"10.0.0.1\"\npeer_ip = \"10.0.0.2\"\nvlan = 4096\n",
            "link.vlan",
            9,
            8,
        ),
        ("[tolerances]\nearly_ns = 18446744073709551615\n", "tolerances.early_ns", 5, 12),
    ];
    for (tail, key, line, column) in cases {
        let text = format!("{BASE}{tail}");
        let (k, l, c, _) = refused(&text);
        assert_eq!((k.as_str(), l, c), (*key, *line, *column), "{text}");
    }
    let e = parse_manifest(&format!("{BASE}[nic]\npmtu = 1000\n"), "dir/m.toml").unwrap_err();
    assert_eq!(
        e.to_string(),
        "dir/m.toml:5:8: nic.pmtu = 1000: the path MTU is 256, 512, 1024, 2048 or 4096 \
         (SND-SEG-001)"
    );
    // A rule between two keys, one of them a default, points at the key written.
    let (k, l, c, reason) = refused(&format!("{BASE}[recovery]\nrto = 2000000\n"));
    assert_eq!((k.as_str(), l, c), ("recovery.rto_max", 4, 2), "{reason}");
    // The writer refuses what the reader refuses.
    let mut s = Scenario { manifest: manifest(1), records: vec![] };
    s.manifest.nic.mpr = 0;
    assert!(matches!(
        write_scenario(&s, &mut Vec::new()),
        Err(FileError::Manifest { error, .. }) if error.key == "nic.mpr"
    ));
}

/// CONF-FMT-009: an empty list, an ID the specification does not define, a withdrawn one
/// and a malformed one are refused at their entry; a clause `ID.x` is checked by its ID.
#[test]
fn conf_fmt_009_requirement_ids() {
    let with = |list: &str| format!("name = \"x\"\ndescription = \"y\"\nrequirements = {list}\n");
    assert_eq!(refused(&with("[]")).0, "requirements");
    let (k, l, c, reason) = refused(&with("[\"RCV-ACK-001\",\n  \"Z-NOPE-001\"]"));
    assert_eq!((k.as_str(), l, c), ("requirements", 4, 3));
    assert_eq!(reason, "the specification defines no requirement Z-NOPE-001");
    let (_, _, _, reason) = refused(&with("[\"CONF-GEN-002\"]"));
    assert!(reason.starts_with("CONF-GEN-002 is withdrawn"), "{reason}");
    let (_, _, _, reason) = refused(&with("[\"rcv-ack-001\"]"));
    assert!(reason.starts_with("not a requirement ID"), "{reason}");
    let (_, _, _, reason) = refused(&with("[\"RCV-ACK-001\", \"RCV-ACK-001\"]"));
    assert_eq!(reason, "named twice");
    assert!(parse_manifest(&with("[\"RCV-ACK-002.b\"]"), "m.toml").is_ok());
    let (_, _, _, reason) = refused(&with("[\"Z-NOPE-002.b\"]"));
    assert_eq!(reason, "the specification defines no requirement Z-NOPE-002");
    let e = parse_manifest(&with("[\"X-Y-001\"]"), "d/m.toml").unwrap_err().to_string();
    assert_eq!(
        e,
        "d/m.toml:3:17: requirements[0] = \"X-Y-001\": the specification defines no \
         requirement X-Y-001"
    );

    // A record's checks are held to the specification too, at the record's offset.
    let (b, starts) = handmade(
        &[LINKTYPE_ETHERNET, LINKTYPE_USER0],
        &[Packet {
            interface: 0,
            at: 0,
            data: frame(0, 10),
            flags: Some(2),
            comment: Some("expect checks: RCV-ACK-001, Z-NOPE-001"),
        }],
    );
    match read1(&b) {
        Err(FileError::UnknownCheck { offset, id, .. }) => {
            assert_eq!((offset, id.as_str()), (starts[3] as u64, "Z-NOPE-001"));
        }
        other => panic!("{other:?}"),
    }
    let mut s = scenario();
    s.records[1].checks = vec!["Z-NOPE-001".into()];
    assert!(matches!(write_scenario(&s, &mut Vec::new()), Err(FileError::Invalid { .. })));
}

/// CONF-FMT-010: the records of another scenario, or of none, beside a manifest are refused.
#[test]
fn conf_fmt_010_manifest_and_records_are_bound() {
    let s = scenario();
    let mut other = s.clone();
    other.manifest.name = "another-scenario".into();
    match read(&written(&other), &s) {
        Err(e @ FileError::Mismatch { .. }) => assert_eq!(
            e.to_string(),
            "t.pcapng: the capture is scenario \"another-scenario\", but the manifest beside \
             it is scenario \"file-format-test\": a manifest and its records must be of one \
             scenario"
        ),
        other => panic!("{other:?}"),
    }
    let (b, _) = handmade_named(None, &[LINKTYPE_ETHERNET, LINKTYPE_USER0], &[]);
    match read1(&b) {
        Err(FileError::Mismatch { capture: None, .. }) => {}
        other => panic!("{other:?}"),
    }
    // The name binds them, whatever else the section says.
    let (b, _) =
        handmade_named(Some("file-format-test"), &[LINKTYPE_ETHERNET, LINKTYPE_USER0], &[]);
    assert!(read1(&b).is_ok());
}

/// CONF-FMT-008: no record beyond 2^62 ns.
#[test]
fn conf_fmt_008_record_times() {
    let (b, _) = handmade(
        &[LINKTYPE_ETHERNET, LINKTYPE_USER0],
        &[pkt(0, (1 << 62) + 1, frame(0, 10), Some(1))],
    );
    assert!(matches!(read1(&b), Err(FileError::TooLate { .. })), "{:?}", read1(&b));
}

/// CONF-FMT-011: two manifests of one directory with one name are refused, naming both.
#[test]
fn conf_fmt_011_names_unique_in_a_directory() {
    let dir = tmp("file-dup-names");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let s = scenario();
    save(&s, dir.join("a")).unwrap();
    assert_eq!(load_dir(&dir).unwrap(), vec![s.clone()]);
    save(&s, dir.join("b")).unwrap();
    match load_dir(&dir) {
        Err(FileError::DuplicateName { file, first, name }) => {
            assert_eq!((file, first), (dir.join("b.toml"), dir.join("a.toml")));
            assert_eq!(name, "file-format-test");
        }
        other => panic!("{other:?}"),
    }
}
