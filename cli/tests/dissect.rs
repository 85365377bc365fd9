//! `openrdma dissect`: golden output of the sample capture, JSON types, exit codes, and
//! files that are cut or corrupt.

mod common;

use std::io;

use common::*;
use openrdma_cli::capture::CaptureReader;
use openrdma_cli::cmd::dissect::{DissectArgs, dissect};
use openrdma_cli::render::NOT_DECODED;
use pcap_file::{Endianness, TsResolution};
use serde_json::Value;

const MIXED_PCAPNG: &str = "traces/samples/mixed.pcapng";
const MIXED_PCAP: &str = "traces/samples/mixed.pcap";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = openrdma(args);
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8(out.stderr).expect("stderr is UTF-8");
    assert!(!stderr.contains("panicked"), "openrdma panicked: {stderr}");
    (out.status.code().expect("exit code"), stdout, stderr)
}

fn json_lines(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect()
}

fn path(rel: &str) -> String {
    repo_path(rel).to_str().unwrap().to_string()
}

macro_rules! golden {
    ($name:expr, $value:expr) => {
        insta::with_settings!(
            { snapshot_path => "../../golden/dissect", prepend_module_to_snapshot => false },
            { insta::assert_snapshot!($name, $value) }
        )
    };
}

#[test]
fn mixed_sample_as_json() {
    let (code, stdout, stderr) = run(&["dissect", "--json", &path(MIXED_PCAPNG)]);
    assert_eq!(code, 1, "the sample holds a bad ICRC and a truncated frame");
    assert_eq!(stderr, "");
    golden!("mixed_json", stdout);
}

#[test]
fn mixed_sample_as_text() {
    let (code, stdout, stderr) = run(&["dissect", &path(MIXED_PCAPNG)]);
    assert_eq!(code, 1);
    assert_eq!(stderr, "");
    golden!("mixed_text", stdout);
}

/// The header keys of table 1 of the wire-format chapter.
fn table_1_keys() -> Vec<String> {
    let text = include_str!("../../spec/wire-format.md");
    let start = text.find("*Table 1:").expect("table 1");
    text[start..]
        .lines()
        .skip(4)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('|').nth(2).map(|k| k.trim().trim_matches('`').to_string()))
        .collect()
}

/// DEC-JSON-001: field values keep their JSON types — booleans for 1-bit flags, exact
/// integers (u64 too) — addresses are text in their usual forms, and the headers are keyed
/// as table 1 names them.
#[test]
fn json_values_are_typed() {
    let (_, stdout, _) = run(&["dissect", "--json", &path(MIXED_PCAPNG)]);
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 24);
    let headers = table_1_keys();
    assert!(headers.contains(&"atomicacketh".to_string()) && headers.len() > 20, "{headers:?}");
    let about_the_frame = [
        "frame",
        "timestamp_ns",
        "len",
        "error",
        "icrc",
        "icrc_found",
        "icrc_computed",
        "payload_len",
        "pad_len",
        "link_type",
        "skipped",
        "kind",
        "orig_len",
    ];
    for l in &lines {
        for (k, v) in l.as_object().unwrap() {
            if about_the_frame.contains(&k.as_str()) {
                continue;
            }
            // `vlans` is the list of tags (DEC-VLAN-002), `vlan` the outer one; every other
            // key one header.
            let header = if k == "vlans" { "vlan" } else { k.as_str() };
            assert!(headers.iter().any(|h| h == header), "{k} is not a header key of table 1");
            let objects = match v.as_array() {
                Some(tags) if k == "vlans" => tags.iter().collect::<Vec<_>>(),
                _ => vec![v],
            };
            for (field, x) in objects.iter().flat_map(|o| o.as_object().unwrap()) {
                assert!(
                    x.is_u64() || x.is_boolean() || x.is_string() || x.is_array(),
                    "{k}.{field}: {x}"
                );
            }
        }
        if let Some(eth) = l.get("eth") {
            for mac in [&eth["src"], &eth["dst"]] {
                let m = mac.as_str().unwrap();
                assert!(
                    m.len() == 17
                        && m.split(':').all(|b| b.len() == 2
                            && b.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())),
                    "{m}"
                );
            }
        }
        if let Some(ip) = l.get("ipv4") {
            for a in [&ip["src"], &ip["dst"]] {
                let a = a.as_str().unwrap();
                assert_eq!(a.parse::<std::net::Ipv4Addr>().unwrap().to_string(), a, "dotted quad");
            }
        }
        if let Some(ip) = l.get("ipv6") {
            for a in [&ip["src"], &ip["dst"]] {
                let a = a.as_str().unwrap();
                // Rust prints IPv6 addresses in the form of RFC 5952.
                assert_eq!(a.parse::<std::net::Ipv6Addr>().unwrap().to_string(), a, "RFC 5952");
            }
        }
    }
    assert!(
        lines.iter().any(|l| l.get("ipv4").is_some())
            && lines.iter().any(|l| l.get("ipv6").is_some())
    );
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["frame"].as_u64(), Some(i as u64 + 1));
        assert!(l["len"].is_u64());
        assert!(l["timestamp_ns"].is_u64());
    }
    let first = &lines[0];
    assert_eq!(first["error"], Value::Null);
    assert_eq!(first["icrc"], "ok");
    assert_eq!(first["eth"]["src"], "02:00:00:00:00:01");
    assert_eq!(first["ipv6"]["dst"], "fd00::b");
    let bth = &first["bth"];
    assert_eq!(bth["opcode"].as_u64(), Some(0xC6));
    assert_eq!(bth["dest_qp"].as_u64(), Some(0x12));
    assert_eq!(bth["psn"].as_u64(), Some(100));
    assert_eq!(bth["ack_req"], Value::Bool(false));
    assert_eq!(bth["rtx"], Value::Bool(false));
    assert_eq!(bth["ts"], Value::Bool(true));
    assert_eq!(first["meth"]["msn"].as_u64(), Some(7));
    assert_eq!(first["meth"]["rqmsn"].as_u64(), Some(0));
    assert_eq!(first["reth"]["va"].as_u64(), Some(0x0000_7f00_0000_1000));
    assert_eq!(first["reth"]["rkey"].as_u64(), Some(0xabcd_1234));
    assert_eq!(first["reth"]["dma_len"].as_u64(), Some(192));
    assert_eq!(first["payload_len"].as_u64(), Some(64));
    assert_eq!(first["pad_len"].as_u64(), Some(0));
    assert_eq!(lines[2]["pad_len"].as_u64(), Some(3));
    assert!(lines[3].get("tseth").is_none(), "WRITE_ONLY without ts has no TSETH");

    let seth = &lines[4]["seth"];
    assert_eq!(seth["sack_bitmap"].as_u64(), Some(0x8000_0000_0000_000D), "u64 kept exactly");
    assert_eq!(seth["cack_psn"].as_u64(), Some(100));
    assert_eq!(seth["sack_offset"].as_i64(), Some(2));
    assert_eq!(seth["mpr"].as_u64(), Some(8));
    assert_eq!(seth["entropy"].as_u64(), Some(0xC0DE_0067));
    assert!(lines[4]["cc_state"].is_object());
    let neth = &lines[5]["neth"];
    assert_eq!(neth["reason"].as_u64(), Some(0x0B));
    assert_eq!(neth["nack_psn"].as_u64(), Some(1200));
    assert_eq!(lines[7]["aeth"]["syndrome"].as_u64(), Some(0x1F));
    assert_eq!(lines[7]["aeth"]["msn"].as_u64(), Some(8));
    assert_eq!(lines[8]["bth"]["dest_qp"].as_u64(), Some(2));
    assert!(lines[8]["erth"].is_object() && lines[9]["eeth"].is_object());
    assert_eq!(lines[16]["bth"]["becn"], Value::Bool(true), "the CNP vector");
    assert!(lines[16]["cnp"].is_object());
    assert_eq!(lines[17]["vlans"][0]["vid"].as_u64(), Some(100));
    assert_eq!(lines[17]["vlan"], lines[17]["vlans"][0], "the outer tag, as the adapter gives it");

    let bad = &lines[18];
    assert_eq!(bad["icrc"], "bad");
    assert!(bad["icrc_found"].is_u64() && bad["icrc_computed"].is_u64());
    assert_ne!(bad["icrc_found"], bad["icrc_computed"]);
    let cut = &lines[19];
    assert_eq!(cut["error"], "SETH.sack_bitmap truncated at byte 74: need 8, have 4");
    assert!(cut.get("seth").is_none() && cut.get("payload_len").is_none());
    assert_eq!(lines[20]["bth"]["opcode"].as_u64(), Some(0xF0));
    assert_eq!(lines[21]["icrc"], "absent", "ARP");
    assert!(lines[21].get("ipv4").is_none());
    assert_eq!(lines[22]["udp"]["dst_port"].as_u64(), Some(53));
    assert!(lines[22].get("bth").is_none());
    let host = &lines[23];
    assert_eq!(host["link_type"].as_u64(), Some(u64::from(LINKTYPE_USER0)));
    assert_eq!(
        (host["skipped"].as_str(), host["kind"].as_str()),
        (Some(NOT_DECODED), Some("skipped"))
    );
    assert!(host.get("error").is_none());
}

#[test]
fn validate_adds_violations_with_requirement_ids() {
    let (code, stdout, _) = run(&["dissect", "--json", "--validate", &path(MIXED_PCAPNG)]);
    assert_eq!(code, 1);
    let lines = json_lines(&stdout);
    // DEC-EXIT-001: --validate judges RoCEv2 frames only.
    let judged = |l: &Value| matches!(l["kind"].as_str(), Some("roce" | "malformed"));
    for l in &lines {
        assert_eq!(l.get("violations").is_some(), judged(l), "{l}");
    }
    for l in lines.iter().filter(|l| judged(l)) {
        for v in l["violations"].as_array().expect("a violations array") {
            let id = v["requirement"].as_str().unwrap();
            assert!(id.split('-').count() >= 3, "{id} reads AREA-TOPIC-NNN");
            assert!(v["header"].is_string() && v["field"].is_string() && v["rule"].is_string());
            assert!(v["offset"].is_u64() || v["offset"].is_null());
            assert!(v["value"].is_u64());
        }
    }
    let names = |l: &Value| -> Vec<String> {
        let v = l["violations"].as_array().unwrap();
        v.iter()
            .map(|v| format!("{}.{}", v["header"].as_str().unwrap(), v["field"].as_str().unwrap()))
            .collect()
    };
    assert_eq!(names(&lines[0]), Vec::<String>::new(), "a good MRC write breaks nothing");
    assert!(names(&lines[18]).contains(&"icrc.icrc".to_string()));
    assert!(names(&lines[20]).contains(&"bth.opcode".to_string()));
    assert!(lines[23].get("violations").is_none());

    let (_, text, _) = run(&["dissect", "--validate", &path(MIXED_PCAPNG)]);
    assert!(text.lines().any(|l| l.trim_start().starts_with("violation    [")));
}

#[test]
fn pcap_and_pcapng_samples_agree() {
    let (code, pcap, _) = run(&["dissect", "--json", &path(MIXED_PCAP)]);
    assert_eq!(code, 1);
    let (_, pcapng, _) = run(&["dissect", "--json", &path(MIXED_PCAPNG)]);
    let pcapng: Vec<&str> = pcapng.lines().collect();
    assert_eq!(pcap.lines().collect::<Vec<_>>(), pcapng[..pcapng.len() - 1]);
}

#[test]
fn clean_sample_exits_zero_and_breaks_no_rule() {
    let clean = path("traces/samples/clean.pcapng");
    let (code, text, stderr) = run(&["dissect", &clean]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(
        text.contains("MRC_RELIABILITY_SACK") && text.contains("skipped, link type not decoded")
    );
    let (code, stdout, _) = run(&["dissect", "--json", "--validate", &clean]);
    assert_eq!(code, 0);
    for l in json_lines(&stdout) {
        assert!(l.get("violations").is_none_or(|v| *v == Value::Array(vec![])), "{l}");
    }
}

#[test]
fn clean_captures_exit_zero_in_every_pcap_flavour() {
    let t = 1_767_225_600_123_456_000;
    let packets: Vec<Packet> = vectors()
        .into_iter()
        .enumerate()
        .map(|(i, (_, data))| Packet {
            timestamp_ns: t + i as u64,
            interface: 0,
            comment: "",
            data,
        })
        .collect();
    for (name, endianness, res) in [
        ("clean-le-us.pcap", Endianness::Little, TsResolution::MicroSecond),
        ("clean-be-ns.pcap", Endianness::Big, TsResolution::NanoSecond),
    ] {
        let file = scratch(name);
        std::fs::write(&file, write_pcap(&packets, endianness, res)).unwrap();
        let (code, stdout, stderr) = run(&["dissect", "--json", file.to_str().unwrap()]);
        assert_eq!((code, stderr.as_str()), (0, ""), "{name}");
        let lines = json_lines(&stdout);
        assert_eq!(lines.len(), 2);
        for (i, l) in lines.iter().enumerate() {
            assert_eq!(l["icrc"], "ok");
            assert_eq!(l["error"], Value::Null);
            let ts = l["timestamp_ns"].as_u64().unwrap();
            match res {
                TsResolution::NanoSecond => assert_eq!(ts, t + i as u64),
                TsResolution::MicroSecond => assert_eq!(ts, t),
            }
        }
    }
    let file = scratch("clean.pcapng");
    std::fs::write(&file, write_pcapng(&packets)).unwrap();
    let (code, stdout, _) = run(&["dissect", file.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("RC_SEND_ONLY") && stdout.contains("CNP"));
}

#[test]
fn unreadable_files_exit_two_with_the_reason() {
    let missing = scratch("no-such-file.pcap");
    let garbage = scratch("garbage.pcap");
    std::fs::write(&garbage, b"this is not a capture file at all").unwrap();
    let empty = scratch("empty.pcap");
    std::fs::write(&empty, b"").unwrap();
    let short_pcap = scratch("short-header.pcap");
    let mixed = std::fs::read(repo_path(MIXED_PCAP)).unwrap();
    std::fs::write(&short_pcap, &mixed[..10]).unwrap();
    let short_pcapng = scratch("short-header.pcapng");
    let mixed_ng = std::fs::read(repo_path(MIXED_PCAPNG)).unwrap();
    std::fs::write(&short_pcapng, &mixed_ng[..20]).unwrap();
    for (file, reason) in [
        (&missing, "cannot open the file: No such file or directory"),
        (&garbage, "not a pcap or pcapng file: it starts with 74 68 69 73"),
        (&empty, "not a pcap or pcapng file: it is only 0 bytes long"),
        (&short_pcap, "the pcap file header is truncated: it needs 24 bytes, the file has 10"),
        (&short_pcapng, "the pcapng file header is truncated"),
    ] {
        let name = file.to_str().unwrap();
        for json in [false, true] {
            let args: Vec<&str> =
                if json { vec!["dissect", "--json", name] } else { vec!["dissect", name] };
            let (code, stdout, stderr) = run(&args);
            assert_eq!(code, 2, "{name}");
            assert_eq!(stdout, "", "{name}");
            assert!(stderr.starts_with(&format!("error: {name}: {reason}")), "{stderr}");
        }
    }
}

/// Offsets of the records of a little-endian pcap file.
fn pcap_record_offsets(bytes: &[u8]) -> Vec<usize> {
    let mut at = 24;
    let mut offsets = Vec::new();
    while at < bytes.len() {
        offsets.push(at);
        let incl = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + incl;
    }
    offsets
}

/// Offsets and types of the blocks of a little-endian pcapng file.
fn pcapng_blocks(bytes: &[u8]) -> Vec<(usize, u32)> {
    let mut at = 0;
    let mut blocks = Vec::new();
    while at < bytes.len() {
        let word = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        blocks.push((at, word(at)));
        at += word(at + 4) as usize;
    }
    blocks
}

#[test]
fn pcap_cut_inside_a_record_shows_the_frames_before_it() {
    let mixed = std::fs::read(repo_path(MIXED_PCAP)).unwrap();
    let fifth = pcap_record_offsets(&mixed)[4];
    let file = scratch("cut-in-record-5.pcap");
    std::fs::write(&file, &mixed[..fifth + 16 + 10]).unwrap();
    let name = file.to_str().unwrap();
    let incl = u32::from_le_bytes(mixed[fifth + 8..fifth + 12].try_into().unwrap());

    let (code, stdout, stderr) = run(&["dissect", "--json", name]);
    assert_eq!(code, 2);
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[3]["frame"].as_u64(), Some(4));
    assert_eq!(
        stderr,
        format!(
            "error: {name}: the record at byte {fifth} is truncated: it needs {} bytes, \
             the file has 26\n",
            16 + incl
        )
    );
    let (code, text, _) = run(&["dissect", name]);
    assert_eq!(code, 2);
    assert!(text.contains("frame 4 ") && !text.contains("frame 5 "));

    // A cut inside the 16-byte record header.
    std::fs::write(&file, &mixed[..fifth + 5]).unwrap();
    let (code, stdout, stderr) = run(&["dissect", "--json", name]);
    assert_eq!((code, json_lines(&stdout).len()), (2, 4));
    assert!(stderr.contains(&format!("record at byte {fifth} is truncated: it needs 16 bytes")));
}

#[test]
fn pcapng_with_a_corrupt_block_stops_there() {
    let mixed = std::fs::read(repo_path(MIXED_PCAPNG)).unwrap();
    let epbs: Vec<usize> =
        pcapng_blocks(&mixed).into_iter().filter(|b| b.1 == 6).map(|b| b.0).collect();
    let third = epbs[2];

    // A block length that is not a multiple of 4.
    let mut bad_len = mixed.clone();
    bad_len[third + 4..third + 8].copy_from_slice(&13u32.to_le_bytes());
    // A trailing length that differs from the leading one.
    let mut bad_trailer = mixed.clone();
    let len = u32::from_le_bytes(mixed[third + 4..third + 8].try_into().unwrap()) as usize;
    bad_trailer[third + len - 4] ^= 0x40;
    // Cut in the middle of the block.
    let cut = mixed[..third + 30].to_vec();

    for (name, bytes, reason) in [
        ("bad-len.pcapng", bad_len, format!("corrupt block at byte {third}: block length 13")),
        ("bad-trailer.pcapng", bad_trailer, format!("corrupt block at byte {third}: ")),
        ("cut.pcapng", cut, format!("the block at byte {third} is truncated: it needs {len}")),
    ] {
        let file = scratch(name);
        std::fs::write(&file, bytes).unwrap();
        let (code, stdout, stderr) = run(&["dissect", "--json", file.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}");
        assert_eq!(json_lines(&stdout).len(), 2, "{name}: the two frames before it");
        assert!(stderr.contains(&reason), "{name}: {stderr}");
    }
}

/// Whatever the bytes, reading, decoding and rendering never panic: every prefix of both
/// samples, and single-byte corruptions of every record and block header and of every
/// seventh byte elsewhere. (Rendering is slow in debug builds, so only some of the inputs
/// are rendered; all of them are read, decoded and validated.)
#[test]
fn never_panics_on_cut_or_corrupted_captures() {
    let check = |bytes: &[u8], i: usize| {
        let Ok(capture) = CaptureReader::new(bytes) else { return };
        if i % 8 == 0 {
            let args = DissectArgs {
                file: "memory".into(),
                json: i % 16 == 0,
                validate: true,
                strict: i % 3 == 0,
            };
            let _ = dissect(capture, &args, &mut io::sink());
        } else {
            for record in capture.flatten() {
                let _ = openrdma_codec::frame::decode(&record.data).validate();
            }
        }
    };
    let pcapng = std::fs::read(repo_path(MIXED_PCAPNG)).unwrap();
    let pcap = std::fs::read(repo_path(MIXED_PCAP)).unwrap();
    let pcapng_heads: Vec<usize> = pcapng_blocks(&pcapng).into_iter().map(|b| b.0).collect();
    let pcap_heads: Vec<usize> = [0].into_iter().chain(pcap_record_offsets(&pcap)).collect();
    for (bytes, heads) in [(pcapng, pcapng_heads), (pcap, pcap_heads)] {
        for n in 0..bytes.len() {
            check(&bytes[..n], n);
        }
        let in_header = |i: usize| heads.iter().any(|&h| (h..h + 28).contains(&i));
        let mut corrupt = bytes.clone();
        for i in (0..bytes.len()).filter(|&i| i % 7 == 0 || in_header(i)) {
            for flip in [0x01, 0x80, 0xFF] {
                corrupt[i] ^= flip;
                check(&corrupt, i + usize::from(flip));
                corrupt[i] ^= flip;
            }
        }
    }
}
