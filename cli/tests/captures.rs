//! `openrdma dissect` on the captures of `traces/captures`, written by an independent
//! implementation (scapy's RoCE layer; see `traces/captures/SOURCES.md`): the kind of every
//! frame, the exit code with and without `--strict`, and every ICRC verdict checked against
//! a CRC computed here, by a table-driven CRC-32 of this file rather than the codec's.

mod common;

use std::collections::BTreeMap;

use common::{openrdma, repo_path};
use serde_json::Value;

/// The reflected CRC-32 of IEEE 802.3 (zlib's), table-driven, written for this test.
fn crc32(chunks: &[&[u8]]) -> u32 {
    let mut table = [0u32; 256];
    for (i, t) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
        *t = c;
    }
    let mut crc = 0xFFFF_FFFFu32;
    for chunk in chunks {
        for &b in *chunk {
            crc = table[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
        }
    }
    !crc
}

/// The ICRC of a whole RoCEv2 IP packet (ICRC trailer included), masked as IBTA says: IPv4
/// TOS, TTL and checksum; IPv6 traffic class, flow label and hop limit; the UDP checksum;
/// BTH byte 4.
fn icrc(ip_packet: &[u8]) -> (u32, u32) {
    let mut b = ip_packet.to_vec();
    let udp = if b[0] >> 4 == 6 {
        b[0] |= 0x0F;
        b[1..4].fill(0xFF);
        b[7] = 0xFF;
        40
    } else {
        b[1] = 0xFF;
        b[8] = 0xFF;
        b[10..12].fill(0xFF);
        usize::from(b[0] & 0x0F) * 4
    };
    b[udp + 6..udp + 8].fill(0xFF);
    b[udp + 12] = 0xFF;
    let n = b.len();
    let found = u32::from_le_bytes(ip_packet[n - 4..].try_into().unwrap());
    (crc32(&[&[0xFF; 8], &b[..n - 4]]), found)
}

/// The records of a classic pcap file, read here: (link-type word, captured bytes).
fn records(file: &[u8]) -> (u32, Vec<Vec<u8>>) {
    let big = file[..4] == [0xA1, 0xB2, 0xC3, 0xD4];
    let word = |b: &[u8]| {
        let a: [u8; 4] = b[..4].try_into().unwrap();
        if big { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) }
    };
    let network = word(&file[20..]);
    let mut at = 24;
    let mut out = Vec::new();
    while at < file.len() {
        let incl = word(&file[at + 8..]) as usize;
        out.push(file[at + 16..at + 16 + incl].to_vec());
        at += 16 + incl;
    }
    (network, out)
}

/// Where the IP packet of a decoded frame starts in its record.
fn ip_offset(o: &Value) -> usize {
    let link = if o.get("eth").is_some() {
        14
    } else if o.get("sll").is_some() {
        16
    } else if o.get("sll2").is_some() {
        20
    } else {
        0
    };
    link + 4 * o.get("vlans").and_then(Value::as_array).map_or(0, Vec::len)
}

fn dissect(name: &str, strict: bool) -> (i32, Vec<Value>) {
    let path = repo_path(&format!("traces/captures/{name}"));
    let path = path.to_str().unwrap();
    let mut args = vec!["dissect", "--json", path];
    if strict {
        args.push("--strict");
    }
    let out = openrdma(&args);
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out.status.code().unwrap(), lines)
}

/// file, exit code, exit code with `--strict`, and the count of each (kind, icrc).
type Expected = (&'static str, i32, i32, &'static [((&'static str, &'static str), usize)]);

const EXPECTED: &[Expected] = &[
    ("scapy-roce.pcap", 0, 0, &[(("roce", "ok"), 48)]),
    ("scapy-roce-be.pcap", 0, 0, &[(("roce", "ok"), 8)]),
    ("scapy-mixed.pcap", 0, 0, &[(("other", "absent"), 5), (("roce", "ok"), 6)]),
    ("scapy-broken-tcp.pcap", 0, 1, &[(("other", "absent"), 1), (("roce", "ok"), 1)]),
    ("scapy-qinq.pcap", 0, 0, &[(("roce", "ok"), 14)]),
    ("scapy-fcs.pcap", 0, 0, &[(("roce", "ok"), 10)]),
    ("scapy-fcs-libpcap.pcap", 0, 0, &[(("roce", "ok"), 10)]),
    (
        "scapy-snaplen96.pcap",
        0,
        1,
        &[(("other", "absent"), 5), (("roce", "ok"), 27), (("truncated", "not_checkable"), 21)],
    ),
    (
        "scapy-snaplen-cut.pcap",
        0,
        1,
        &[(("truncated", "absent"), 4), (("truncated", "not_checkable"), 3)],
    ),
    ("scapy-sll.pcap", 0, 0, &[(("roce", "ok"), 16)]),
    ("scapy-sll2.pcap", 0, 0, &[(("roce", "ok"), 16)]),
    ("scapy-rawip.pcap", 0, 0, &[(("roce", "ok"), 48)]),
    ("scapy-ipv4.pcap", 0, 0, &[(("roce", "ok"), 8)]),
    ("scapy-ipv6.pcap", 0, 0, &[(("roce", "ok"), 8)]),
    ("scapy-corrupted.pcap", 1, 1, &[(("roce", "bad"), 24), (("roce", "ok"), 24)]),
    ("scapy-ibta15.pcap", 0, 0, &[(("roce", "ok"), 4)]),
];

/// DEC-KIND-001, DEC-EXIT-001, DEC-EXIT-002, DEC-LINK-001, DEC-FCS-001, DEC-CUT-001,
/// DEC-VLAN-002: every committed capture, frame by frame, with each ICRC verdict checked
/// against an independent CRC.
#[test]
fn dec_kind_001_captures_from_scapy() {
    let dir = repo_path("traces/captures");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".pcap") || n.ends_with(".pcapng"))
        .collect();
    files.sort();
    let mut listed: Vec<String> = EXPECTED.iter().map(|e| e.0.to_string()).collect();
    listed.sort();
    assert_eq!(files, listed, "every committed capture has its expectations here");
    let mut checked = 0;
    for &(name, code, strict_code, kinds) in EXPECTED {
        let (got, lines) = dissect(name, false);
        assert_eq!(got, code, "{name}");
        assert_eq!(dissect(name, true).0, strict_code, "{name} --strict");
        let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
        for l in &lines {
            let key = (l["kind"].as_str().unwrap().into(), l["icrc"].as_str().unwrap().into());
            *counts.entry(key).or_default() += 1;
        }
        let want: BTreeMap<(String, String), usize> =
            kinds.iter().map(|&((k, i), n)| ((k.into(), i.into()), n)).collect();
        assert_eq!(counts, want, "{name}");

        let (network, recs) = records(&std::fs::read(dir.join(name)).unwrap());
        assert_eq!(recs.len(), lines.len(), "{name}");
        let fcs = if network >> 16 != 0 { 4 } else { 0 };
        for (o, rec) in lines.iter().zip(&recs) {
            if o["kind"] != "roce" {
                continue;
            }
            let at = ip_offset(o);
            let ip = o.get("ipv4").or_else(|| o.get("ipv6")).unwrap();
            let len = match ip.get("total_len") {
                Some(t) => t.as_u64().unwrap() as usize,
                None => 40 + ip["payload_len"].as_u64().unwrap() as usize,
            };
            assert!(at + len + fcs <= rec.len(), "{name} frame {}", o["frame"]);
            let (computed, found) = icrc(&rec[at..at + len]);
            let verdict = if computed == found { "ok" } else { "bad" };
            assert_eq!(o["icrc"], verdict, "{name} frame {}", o["frame"]);
            if verdict == "bad" {
                assert_eq!(o["icrc_computed"].as_u64(), Some(u64::from(computed)));
                assert_eq!(o["icrc_found"].as_u64(), Some(u64::from(found)));
            }
            checked += 1;
        }
    }
    assert!(checked > 250, "checked {checked} ICRCs");
}

/// DEC-VLAN-002: every tag of a stack is shown, outermost first.
#[test]
fn dec_vlan_002_every_tag_in_json() {
    let (_, lines) = dissect("scapy-qinq.pcap", false);
    let vids = |l: &Value| -> Vec<u64> {
        // The outer tag again as `vlan`, as the adapter protocol gives it.
        assert_eq!(l["vlan"], l["vlans"][0]);
        l["vlans"].as_array().unwrap().iter().map(|t| t["vid"].as_u64().unwrap()).collect()
    };
    assert_eq!(vids(&lines[0]), vec![10, 100]);
    assert_eq!(lines[0]["eth"]["ethertype"].as_u64(), Some(0x88A8));
    assert_eq!(vids(&lines[12]), vec![7, 10, 100]);
    assert_eq!(vids(&lines[13]), vec![5]);
    assert!(lines.iter().all(|l| l["bth"].is_object()));
}

/// DEC-CUT-001: frames cut inside the IP header, UDP, the BTH and the extension headers
/// keep every header present and carry no error.
#[test]
fn dec_cut_001_snapshot_lengths() {
    let (_, lines) = dissect("scapy-snaplen-cut.pcap", false);
    let has = |l: &Value, k: &str| l.get(k).is_some();
    assert!(lines.iter().all(|l| l["error"].is_null() && l["kind"] == "truncated"));
    // Cut inside UDP, inside the BTH, inside the IPv6 UDP header, inside the payload, and
    // after the RETH.
    assert!(has(&lines[0], "ipv4") && !has(&lines[0], "udp"));
    assert!(has(&lines[1], "udp") && !has(&lines[1], "bth"));
    assert!(has(&lines[2], "ipv6") && !has(&lines[2], "udp"));
    assert!(has(&lines[3], "immdt") && has(&lines[3], "payload_len"));
    assert!(has(&lines[6], "reth"));
    for i in [3, 4, 6] {
        assert_eq!(lines[i]["icrc"], "not_checkable");
    }
    assert!(lines.iter().all(|l| l["orig_len"].as_u64() > l["len"].as_u64()));
}

/// `dissect -` reads the capture from standard input, with the same output and exit code.
#[test]
fn dec_exit_001_standard_input() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    for (name, code) in [("scapy-roce.pcap", 0), ("scapy-corrupted.pcap", 1)] {
        let bytes = std::fs::read(repo_path(&format!("traces/captures/{name}"))).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_openrdma"))
            .args(["dissect", "--json", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || stdin.write_all(&bytes));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert_eq!(out.status.code(), Some(code), "{name}");
        let (_, from_file) = dissect(name, false);
        let from_stdin: Vec<Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(from_stdin, from_file, "{name}");
    }
}

/// DEC-EXIT-001: with standard output closed (the reader of a pipe gone) dissect stops
/// printing quietly and exits as it would have: 1 for a bad RoCEv2 frame, 0 otherwise. With
/// it full (`/dev/full`) it says so once and reads the capture to its end: a bad frame still
/// gives 1, and a clean capture whose dissection was lost gives 2, not success.
#[test]
fn dec_exit_001_output_errors_never_change_the_exit_code() {
    use std::process::{Command, Stdio};
    for (name, code) in [("scapy-roce.pcap", 0), ("scapy-corrupted.pcap", 1)] {
        let path = repo_path(&format!("traces/captures/{name}"));
        for json in [true, false] {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_openrdma"));
            cmd.arg("dissect");
            if json {
                cmd.arg("--json");
            }
            let mut child =
                cmd.arg(&path).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
            drop(child.stdout.take());
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(code), "{name}, stdout closed");
            assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{name}: quiet on EPIPE");

            let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
                continue;
            };
            let out = Command::new(env!("CARGO_BIN_EXE_openrdma"))
                .args(["dissect", path.to_str().unwrap()])
                .stdout(full)
                .output()
                .unwrap();
            let full_code = if code == 0 { 2 } else { code };
            assert_eq!(out.status.code(), Some(full_code), "{name}, stdout full");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.matches("cannot write standard output").count(), 1, "{err}");
        }
    }
}

/// OPC-TABLE-001, FETH-LAYOUT-001: FLUSH and ATOMIC WRITE, RC and XRC, as scapy wrote them,
/// decode with their header stacks, in JSON and in text.
#[test]
fn opc_table_001_flush_and_atomic_write() {
    let (code, lines) = dissect("scapy-ibta15.pcap", false);
    assert_eq!(code, 0);
    let keys = |o: &Value| -> Vec<String> {
        o.as_object()
            .unwrap()
            .keys()
            .filter(|k| ["xrceth", "feth", "reth"].contains(&k.as_str()))
            .cloned()
            .collect()
    };
    let opcodes: Vec<u64> = lines.iter().map(|o| o["bth"]["opcode"].as_u64().unwrap()).collect();
    assert_eq!(opcodes, [0x1C, 0x1D, 0xBC, 0xBD]);
    let feth =
        |o: &Value| (o["feth"]["selectivity_level"].as_u64(), o["feth"]["placement_type"].as_u64());
    assert_eq!(feth(&lines[0]), (Some(0), Some(1)));
    assert_eq!(feth(&lines[2]), (Some(1), Some(3)));
    assert_eq!(lines[0]["feth"]["resv"].as_u64(), Some(0));
    assert_eq!(lines[0]["reth"]["dma_len"].as_u64(), Some(4096));
    assert_eq!(lines[2]["xrceth"]["xrc_srq"].as_u64(), Some(0x348));
    for (o, n) in lines.iter().zip([0, 8, 0, 8]) {
        assert_eq!(o["payload_len"].as_u64(), Some(n), "{o}");
        assert_eq!(o["icrc"], "ok");
    }
    assert_eq!(keys(&lines[2]), ["feth", "reth", "xrceth"]);
    assert_eq!(keys(&lines[1]), ["reth"]);

    let path = repo_path("traces/captures/scapy-ibta15.pcap");
    let out = openrdma(&["dissect", "--validate", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for name in ["RC_FLUSH", "RC_ATOMIC_WRITE", "XRC_FLUSH", "XRC_ATOMIC_WRITE"] {
        assert!(text.contains(name), "{name} in\n{text}");
    }
    assert!(text.contains("selectivity_level=1 placement_type=3"), "{text}");
    assert!(!text.contains("violation"), "{text}");
}
