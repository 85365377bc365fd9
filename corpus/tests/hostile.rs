//! The hostile-input catalogue of the scenario files and of the adapter protocol: one row
//! per malformed input, each with the typed error it must produce. (The codec's and the
//! model's rows are in `codec/tests/hostile.rs` and `state-machines/tests/hostile.rs`.)

use openrdma_conformance::file::{self, FileError, HostRecordError};
use openrdma_conformance::protocol::{Message, ProtocolError, decode_bytes, decode_line};
use openrdma_corpus as corpus;

/// A committed scenario, written to bytes.
fn scenario_bytes() -> (Vec<u8>, String) {
    let (_, build) = corpus::all().into_iter().find(|(n, _)| *n == "rcv-in-order-v4").unwrap();
    let s = build();
    let mut bytes = Vec::new();
    file::write_scenario(&s, &mut bytes).unwrap();
    (bytes, file::manifest_to_toml(&s.manifest))
}

/// Byte offsets of the pcapng blocks (little-endian).
fn blocks(b: &[u8]) -> Vec<usize> {
    let mut v = Vec::new();
    let mut at = 0;
    while at + 12 <= b.len() {
        v.push(at);
        let len = u32::from_le_bytes([b[at + 4], b[at + 5], b[at + 6], b[at + 7]]) as usize;
        at += len.max(12);
    }
    v
}

fn load(pcapng: &[u8], toml: &str) -> Result<(), FileError> {
    file::read_scenario_bytes(pcapng, toml, "s.pcapng", "s.toml").map(|_| ())
}

#[test]
fn scenario_file_catalogue() {
    let (good, toml) = scenario_bytes();
    load(&good, &toml).expect("the unmodified scenario loads");
    let b = blocks(&good);
    type Row = (&'static str, Vec<u8>, String, fn(&FileError) -> bool);
    let mut rows: Vec<Row> = Vec::new();
    rows.push(("empty pcapng", Vec::new(), toml.clone(), |e| {
        matches!(e, FileError::Capture { .. })
    }));
    rows.push(("cut inside the 4th block", good[..b[3] + 10].to_vec(), toml.clone(), |e| {
        matches!(e, FileError::Capture { .. }) && e.to_string().contains("truncated")
    }));
    let mut bad_len = good.clone();
    bad_len[b[3] + 4..b[3] + 8].copy_from_slice(&7u32.to_le_bytes());
    rows.push(("block length 7", bad_len, toml.clone(), |e| {
        matches!(e, FileError::Capture { .. })
    }));
    let mut huge = good.clone();
    huge[b[3] + 4..b[3] + 8].copy_from_slice(&0x7FFF_FFF0u32.to_le_bytes());
    rows.push(("block length past the end", huge, toml.clone(), |e| {
        matches!(e, FileError::Capture { .. })
    }));
    let mut trailer = good.clone();
    let end = b[3]
        + u32::from_le_bytes([good[b[3] + 4], good[b[3] + 5], good[b[3] + 6], good[b[3] + 7]])
            as usize;
    trailer[end - 4..end].copy_from_slice(&9u32.to_le_bytes());
    rows.push(("block trailer disagrees with its header", trailer, toml.clone(), |e| {
        matches!(e, FileError::Capture { .. })
    }));
    rows.push((
        "a pcap file where a pcapng is needed",
        {
            let mut p = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0];
            p.extend_from_slice(&[0; 16]);
            p
        },
        toml.clone(),
        |e| matches!(e, FileError::NotPcapNg { .. } | FileError::Capture { .. }),
    ));
    rows.push((
        "manifest with an unknown field",
        good.clone(),
        format!("{toml}\nbogus = 1\n"),
        |e| matches!(e, FileError::Toml { line, .. } if *line > 0),
    ));
    rows.push((
        "manifest with a field of the wrong type",
        good.clone(),
        toml.replacen("ports = 4", "ports = \"four\"", 1),
        |e| matches!(e, FileError::Toml { line, .. } if *line > 0),
    ));
    rows.push(("manifest that is not TOML", good.clone(), "name = [".into(), |e| {
        matches!(e, FileError::Toml { .. })
    }));
    rows.push((
        "manifest with fewer ports than the file uses",
        good.clone(),
        toml.replacen("ports = 4", "ports = 1", 1),
        |e| matches!(e, FileError::Interface { .. } | FileError::LinkType { .. }),
    ));
    for (name, pcapng, manifest, want) in &rows {
        match load(pcapng, manifest) {
            Ok(()) => panic!("{name}: accepted"),
            Err(e) => assert!(want(&e), "{name}: wrong error: {e} ({e:?})"),
        }
    }
    // Host-event records: every malformed header is its own typed error.
    let host = |m: &[u8], v: u8, k: u8, r: [u8; 2]| {
        let mut x = m.to_vec();
        x.extend_from_slice(&[v, k, r[0], r[1]]);
        x.extend_from_slice(b"{}");
        x
    };
    type HostRow = (&'static str, Vec<u8>, fn(&HostRecordError) -> bool);
    let host_rows: Vec<HostRow> = vec![
        ("host record of 3 bytes", b"ORD".to_vec(), |e| matches!(e, HostRecordError::Short { .. })),
        ("host record with a bad magic", host(b"XRDM", 1, 1, [0, 0]), |e| {
            matches!(e, HostRecordError::Magic { .. })
        }),
        ("host record of version 2", host(b"ORDM", 2, 1, [0, 0]), |e| {
            matches!(e, HostRecordError::Version { .. })
        }),
        ("host record of kind 9", host(b"ORDM", 1, 9, [0, 0]), |e| {
            matches!(e, HostRecordError::Kind { .. })
        }),
        ("host record with reserved bytes set", host(b"ORDM", 1, 1, [0, 1]), |e| {
            matches!(e, HostRecordError::Reserved { .. })
        }),
    ];
    for (name, data, want) in &host_rows {
        match file::host_record_parts(data) {
            Ok(_) => panic!("{name}: accepted"),
            Err(e) => assert!(want(&e), "{name}: wrong error: {e:?}"),
        }
    }
    println!(
        "hostile-input catalogue (scenario files): {} rows checked",
        rows.len() + host_rows.len()
    );
}

#[test]
fn adapter_message_catalogue() {
    type Row = (&'static str, Vec<u8>, fn(&ProtocolError) -> bool);
    let rows: Vec<Row> = vec![
        ("empty line", Vec::new(), |e| matches!(e, ProtocolError::Empty)),
        ("not UTF-8", vec![b'{', 0xFF, b'}'], |e| matches!(e, ProtocolError::NotUtf8 { offset: 1 })),
        ("not JSON", b"{\"type\": hello}".to_vec(), |e| matches!(e, ProtocolError::Json { line: 1, .. })),
        ("a JSON array", b"[1, 2]".to_vec(), |e| matches!(e, ProtocolError::NotObject)),
        ("no type", b"{\"version\":1}".to_vec(), |e| matches!(e, ProtocolError::MissingType)),
        ("unknown type", b"{\"type\":\"reboot\"}".to_vec(), |e| matches!(e, ProtocolError::UnknownType { .. })),
        ("advance without seq", br#"{"type":"advance","until":5,"inputs":[]}"#.to_vec(), |e| {
            matches!(e, ProtocolError::MissingField { field, .. } if field.as_str() == "seq")
        }),
        ("frame input with bad hex", br#"{"type":"advance","seq":1,"until":5,"inputs":[{"at":1,"input":{"kind":"frame","port":0,"bytes":"zz"}}]}"#.to_vec(), |e| {
            matches!(e, ProtocolError::BadField { .. } | ProtocolError::Invalid { .. })
        }),
        ("output frame with neither bytes nor fields", br#"{"type":"outputs","seq":1,"outputs":[{"at":1,"output":{"kind":"frame","port":0}}]}"#.to_vec(), |e| {
            matches!(e, ProtocolError::BadField { field, .. } if field.as_str() == "outputs[0].output")
        }),
        ("output frame as fields without a UDP header", br#"{"type":"outputs","seq":1,"outputs":[{"at":1,"output":{"kind":"frame","port":0,"fields":{"eth":{"dst":"02:00:00:00:00:02","src":"02:00:00:00:00:01","ethertype":2048},"ipv4":{"version":4,"dscp":0,"ecn":0,"ident":0,"flag_reserved":false,"dont_frag":true,"more_frags":false,"frag_offset":0,"ttl":64,"protocol":17,"src":"10.0.0.1","dst":"10.0.0.2","options":[]}}}}]}"#.to_vec(), |e| {
            matches!(e, ProtocolError::MissingField { field, .. } if field.as_str() == "outputs[0].output.fields.udp")
        }),
        ("output frame as fields with a 25-bit PSN", br#"{"type":"outputs","seq":1,"outputs":[{"at":1,"output":{"kind":"frame","port":0,"fields":{"eth":{"dst":"02:00:00:00:00:02","src":"02:00:00:00:00:01","ethertype":2048},"ipv4":{"version":4,"dscp":0,"ecn":0,"ident":0,"flag_reserved":false,"dont_frag":true,"more_frags":false,"frag_offset":0,"ttl":64,"protocol":17,"src":"10.0.0.1","dst":"10.0.0.2","options":[]},"udp":{"src_port":1,"dst_port":4791},"bth":{"opcode":221,"solicited":false,"mig_req":false,"tver":0,"pkey":65535,"fecn":false,"becn":false,"resv6":0,"dest_qp":33,"ack_req":false,"rtx":false,"ts":false,"resv8":0,"psn":16777216},"neth":{"res_type":0,"next_header":0,"resv1":0,"reason":11,"vendor_info":0,"entropy":0,"spdcid":0,"dpdcid":0,"resv12":0,"nack_psn":0,"cc_type":0,"cc_flags":0,"resv17":0,"tx_timestamp":0}}}}]}"#.to_vec(), |e| {
            matches!(e, ProtocolError::BadField { field, .. } if field.as_str() == "outputs[0].output.fields.bth.psn")
        }),
        ("outputs of the wrong length (a truncated message)", br#"{"type":"outputs","seq":1,"outputs":[{"at":1,"#.to_vec(), |e| {
            matches!(e, ProtocolError::Json { .. })
        }),
    ];
    for (name, line, want) in &rows {
        match decode_bytes(line) {
            Ok(m) => panic!("{name}: accepted as {m:?}"),
            Err(e) => assert!(want(&e), "{name}: wrong error: {e} ({e:?})"),
        }
    }
    // A hello of another version decodes, and the handshake refuses it, naming both.
    let Message::Hello(h) =
        decode_line(r#"{"type":"hello","version":2,"name":"x","capabilities":[]}"#).unwrap()
    else {
        panic!("hello expected")
    };
    assert_eq!(h.check_version(), Err(ProtocolError::Version { got: 2, supported: vec![1] }));
    // Answers out of order: a seq the runner did not send.
    let Message::Outputs(o) = decode_line(r#"{"type":"outputs","seq":4,"outputs":[]}"#).unwrap()
    else {
        panic!("outputs expected")
    };
    assert!(matches!(o.check_seq(3), Err(ProtocolError::Seq { .. })));
    println!("hostile-input catalogue (adapter messages): {} rows checked", rows.len() + 2);
}
