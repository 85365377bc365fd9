//! Interoperability with an independent dissector: frames built by the codec are written to
//! a pcap, read back by both Wireshark's `tshark` and `openrdma dissect --json`, and every
//! field must agree, frame by frame.
//!
//! tshark does not know the MRC opcodes (0xC6 and up), so the frames are standard RC ones.
//! The test needs tshark: it is ignored by default and fails, rather than skips, when run
//! with `--ignored` on a machine without it.

mod common;

use std::process::Command;

use common::*;
use openrdma_codec::frame::{Extensions, FrameRepr};
use openrdma_codec::{AethMsn, AethRepr, Ev, ImmDtRepr, Opcode, RethRepr, Rkey};
use pcap_file::{Endianness, TsResolution};
use serde_json::Value;

/// The tshark fields compared, in output order.
const FIELDS: &[&str] = &[
    "frame.number",
    "ip.src",
    "ipv6.src",
    "udp.srcport",
    "udp.dstport",
    "infiniband.bth.opcode",
    "infiniband.bth.se",
    "infiniband.bth.m",
    "infiniband.bth.padcnt",
    "infiniband.bth.tver",
    "infiniband.bth.p_key",
    "infiniband.bth.destqp",
    "infiniband.bth.a",
    "infiniband.bth.psn",
    "infiniband.reth.va",
    "infiniband.reth.r_key",
    "infiniband.reth.dmalen",
    "infiniband.aeth.syndrome",
    "infiniband.aeth.msn",
    "infiniband.immdt",
    "infiniband.invariant.crc",
];

/// Protocols that tshark tries on RoCE payloads.
const UPPER_LAYERS: &[&str] =
    &["rpcordma", "nvme-rdma", "iser", "smb_direct", "smc", "lnet", "infiniband_sdp", "fcoib"];

fn frames() -> Vec<FrameRepr> {
    let reth = |va, rkey, len| Extensions {
        reth: Some(RethRepr::new(va, Rkey::new(rkey), len)),
        ..Extensions::default()
    };
    let aeth = |syndrome, msn| Extensions {
        aeth: Some(AethRepr::new(syndrome, AethMsn::new(msn))),
        ..Extensions::default()
    };
    let mut v = Vec::new();

    let mut b = bth(Opcode::RC_SEND_ONLY, 0x11, 0x12_3456);
    b.ack_req = true;
    b.solicited = true;
    v.push(roce(ipv4(true), b, Extensions::default(), b"hello roce v2!!!"));

    let mut b = bth(Opcode::RC_WRITE_FIRST, 0x11, 0x12_3457);
    b.mig_req = true;
    b.pkey = 0x8001;
    v.push(roce(ipv4(true), b, reth(0x1122_3344_5566_7788, 0xdead_beef, 4096), &pattern(64, 1)));

    v.push(roce(
        ipv4(true),
        bth(Opcode::RC_WRITE_MIDDLE, 0x11, 0x12_3458),
        Extensions::default(),
        &pattern(30, 2),
    ));

    let ext = Extensions {
        reth: Some(RethRepr::new(0x1000, Rkey::new(0x42), 13)),
        immdt: Some(ImmDtRepr::new(0x0102_0304)),
        ..Extensions::default()
    };
    let mut b = bth(Opcode::RC_WRITE_ONLY_IMM, 0x11, 0x12_3459);
    b.ack_req = true;
    v.push(roce(ipv4(true), b, ext, &pattern(13, 3)));

    v.push(roce(
        ipv4(true),
        bth(Opcode::RC_READ_REQUEST, 0x11, 0x12_345A),
        reth(0xffff_0000_0000_0000, 7, 65536),
        &[],
    ));
    v.push(roce(
        ipv4(false),
        bth(Opcode::RC_ACKNOWLEDGE, 0x22, 0x12_3459),
        aeth(AethRepr::NAK_PSN_SEQ_ERR, 0xAB_CDEF),
        &[],
    ));
    v.push(roce(
        ipv4(false),
        bth(Opcode::RC_ACKNOWLEDGE, 0x22, 0x12_3459),
        aeth(AethRepr::RNR_NAK | 0x0E, 5),
        &[],
    ));

    // IPv6, with the PSN and QP at their largest values and a padded payload.
    let mut f = roce(
        ipv6(true),
        bth(Opcode::RC_SEND_ONLY, 0xFF_FFFF, 0xFF_FFFF),
        Extensions::default(),
        b"hello",
    );
    f.set_entropy(Ev::new(0xC0DE_1234));
    v.push(f);
    v.push(roce(
        ipv6(false),
        bth(Opcode::RC_READ_RESPONSE_FIRST, 0x33, 0),
        aeth(AethRepr::ACK_UNLIMITED_CREDIT, 1),
        &pattern(32, 4),
    ));
    let ext = Extensions { immdt: Some(ImmDtRepr::new(0xcafe_f00d)), ..Extensions::default() };
    v.push(roce(ipv6(true), bth(Opcode::RC_SEND_ONLY_IMM, 0x33, 1), ext, &pattern(7, 5)));
    v
}

/// A tshark number: decimal, or hexadecimal with `0x`; booleans as 1/0 or True/False.
fn number(s: &str) -> Option<u64> {
    match s {
        "" => None,
        "True" => Some(1),
        "False" => Some(0),
        _ => match s.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => s.parse().ok(),
        },
    }
}

fn as_num(v: &Value) -> Option<u64> {
    match v {
        Value::Bool(b) => Some(u64::from(*b)),
        v => v.as_u64(),
    }
}

#[test]
#[ignore = "needs tshark; .ci/run installs it and runs ignored tests"]
fn tshark_agrees_with_dissect_field_by_field() {
    let tshark_ok = Command::new("tshark").arg("-v").output().map(|o| o.status.success());
    assert!(
        matches!(tshark_ok, Ok(true)),
        "tshark is not installed (Debian package `tshark`); this test must run, not skip"
    );

    let frames: Vec<Vec<u8>> = frames().into_iter().map(finish).collect();
    let packets: Vec<Packet> = frames
        .iter()
        .enumerate()
        .map(|(i, data)| Packet {
            timestamp_ns: 1_767_225_600_000_000_000 + i as u64 * 1_000,
            interface: 0,
            comment: "",
            data: data.clone(),
        })
        .collect();
    let file = scratch("tshark-interop.pcap");
    std::fs::write(&file, write_pcap(&packets, Endianness::Little, TsResolution::MicroSecond))
        .unwrap();
    let name = file.to_str().unwrap();

    let mut cmd = Command::new("tshark");
    cmd.args(["-r", name, "-T", "fields", "-E", "separator=,", "-E", "occurrence=f"]);
    // Upper-layer heuristics may claim a payload and abort the frame before the ICRC
    // (RPC-over-RDMA does on the IPv6 SEND_ONLY); the payload is not what is compared.
    for proto in UPPER_LAYERS {
        cmd.args(["--disable-protocol", proto]);
    }
    for f in FIELDS {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("run tshark");
    assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    let theirs = String::from_utf8(out.stdout).unwrap();

    let ours = openrdma(&["dissect", "--json", name]);
    assert_eq!(ours.status.code(), Some(0), "{}", String::from_utf8_lossy(&ours.stderr));
    let ours: Vec<Value> = String::from_utf8(ours.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();

    let theirs: Vec<&str> = theirs.lines().collect();
    assert_eq!(theirs.len(), frames.len());
    assert_eq!(ours.len(), frames.len());
    let mut compared = 0;
    for ((line, o), bytes) in theirs.iter().zip(&ours).zip(&frames) {
        let t: Vec<&str> = line.split(',').collect();
        assert_eq!(t.len(), FIELDS.len(), "{line}");
        let field = |name: &str| t[FIELDS.iter().position(|f| *f == name).unwrap()];
        let n = number(field("frame.number")).unwrap();
        let mut agree = |name: &str, theirs: Option<u64>, ours: Option<u64>| {
            assert_eq!(theirs, ours, "frame {n}: {name}: tshark {theirs:?}, dissect {ours:?}");
            compared += 1;
        };
        assert_eq!(Some(n), o["frame"].as_u64());

        let ip = o.get("ipv4").or_else(|| o.get("ipv6")).unwrap();
        let tshark_src = if o.get("ipv4").is_some() { field("ip.src") } else { field("ipv6.src") };
        assert_eq!(tshark_src, ip["src"].as_str().unwrap(), "frame {n}: source address");
        agree("udp.srcport", number(field("udp.srcport")), as_num(&o["udp"]["src_port"]));
        agree("udp.dstport", number(field("udp.dstport")), as_num(&o["udp"]["dst_port"]));

        let bth = &o["bth"];
        for (tshark, key) in [
            ("infiniband.bth.opcode", "opcode"),
            ("infiniband.bth.se", "solicited"),
            ("infiniband.bth.m", "mig_req"),
            ("infiniband.bth.padcnt", "pad_count"),
            ("infiniband.bth.tver", "tver"),
            ("infiniband.bth.p_key", "pkey"),
            ("infiniband.bth.destqp", "dest_qp"),
            ("infiniband.bth.a", "ack_req"),
            ("infiniband.bth.psn", "psn"),
        ] {
            agree(tshark, number(field(tshark)), as_num(&bth[key]));
        }
        let reth = o.get("reth");
        for (tshark, key) in [
            ("infiniband.reth.va", "va"),
            ("infiniband.reth.r_key", "rkey"),
            ("infiniband.reth.dmalen", "dma_len"),
        ] {
            agree(tshark, number(field(tshark)), reth.and_then(|r| as_num(&r[key])));
        }
        let aeth = o.get("aeth");
        for (tshark, key) in
            [("infiniband.aeth.syndrome", "syndrome"), ("infiniband.aeth.msn", "msn")]
        {
            agree(tshark, number(field(tshark)), aeth.and_then(|r| as_num(&r[key])));
        }
        let imm = field("infiniband.immdt");
        agree(
            "infiniband.immdt",
            (!imm.is_empty()).then(|| u64::from_str_radix(&imm.replace(':', ""), 16).unwrap()),
            o.get("immdt").and_then(|r| as_num(&r["imm"])),
        );
        // tshark shows the ICRC trailer as a big-endian number; we check that both find it
        // in the same place, and that dissect finds it correct.
        let tail: [u8; 4] = bytes[bytes.len() - 4..].try_into().unwrap();
        agree(
            "infiniband.invariant.crc",
            number(field("infiniband.invariant.crc")),
            Some(u64::from(u32::from_be_bytes(tail))),
        );
        assert_eq!(o["icrc"], "ok", "frame {n}");
    }
    assert!(compared >= frames.len() * 18, "compared {compared} fields");
}

/// tshark fields compared on the committed captures, with the `dissect --json` key each
/// one is, as (header, field); several occurrences (tags) are compared in order.
const CAPTURE_FIELDS: &[(&str, &str, &str)] = &[
    ("vlan.id", "vlan", "vid"),
    ("ieee8021ad.id", "vlan-ad", "vid"),
    ("sll.pkttype", "sll*", "packet_type"),
    ("sll.etype", "sll*", "protocol"),
    ("udp.srcport", "udp", "src_port"),
    ("udp.dstport", "udp", "dst_port"),
    ("infiniband.bth.opcode", "bth", "opcode"),
    ("infiniband.bth.se", "bth", "solicited"),
    ("infiniband.bth.m", "bth", "mig_req"),
    ("infiniband.bth.padcnt", "bth", "pad_count"),
    ("infiniband.bth.tver", "bth", "tver"),
    ("infiniband.bth.p_key", "bth", "pkey"),
    ("infiniband.bth.destqp", "bth", "dest_qp"),
    ("infiniband.bth.a", "bth", "ack_req"),
    ("infiniband.bth.psn", "bth", "psn"),
    ("infiniband.reth.va", "reth", "va"),
    ("infiniband.reth.r_key", "reth", "rkey"),
    ("infiniband.reth.dmalen", "reth", "dma_len"),
    ("infiniband.aeth.syndrome", "aeth", "syndrome"),
    ("infiniband.aeth.msn", "aeth", "msn"),
    ("infiniband.deth.q_key", "deth", "qkey"),
    ("infiniband.deth.srcqp", "deth", "src_qp"),
    ("infiniband.atomiceth.swapdt", "atomiceth", "swap_add"),
    ("infiniband.atomiceth.cmpdt", "atomiceth", "compare"),
    ("infiniband.atomicacketh.origremdt", "atomicacketh", "orig"),
    ("infiniband.immdt", "immdt", "imm"),
    ("infiniband.ieth", "ieth", "rkey"),
];

/// The records of a classic pcap file: the captured bytes of each.
fn pcap_records(file: &[u8]) -> Vec<Vec<u8>> {
    let big = file[..4] == [0xA1, 0xB2, 0xC3, 0xD4];
    let word = |b: &[u8]| {
        let a: [u8; 4] = b[..4].try_into().unwrap();
        if big { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) }
    };
    let (mut at, mut out) = (24, Vec::new());
    while at < file.len() {
        let incl = word(&file[at + 8..]) as usize;
        out.push(file[at + 16..at + 16 + incl].to_vec());
        at += 16 + incl;
    }
    out
}

/// Every committed capture of `traces/captures` (written by scapy, see its SOURCES.md):
/// every field tshark decodes agrees with `dissect --json`, and tshark finds the ICRC
/// trailer where dissect does. tshark 4.0 reads the RDETH of RD packets 8 bytes past where
/// IBTA puts it (right after the BTH), so RD frames are compared up to the BTH.
#[test]
#[ignore = "needs tshark; .ci/run installs it and runs ignored tests"]
fn tshark_agrees_on_the_committed_captures() {
    let tshark_ok = Command::new("tshark").arg("-v").output().map(|o| o.status.success());
    assert!(matches!(tshark_ok, Ok(true)), "tshark is not installed; this test must run");
    let dir = repo_path("traces/captures");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pcap"))
        .collect();
    files.sort();
    assert!(files.len() >= 10);
    let mut compared = 0;
    for file in &files {
        let name = file.to_str().unwrap();
        let mut cmd = Command::new("tshark");
        cmd.args(["-r", name, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"]);
        cmd.args(["-E", "aggregator=,"]);
        for proto in UPPER_LAYERS {
            cmd.args(["--disable-protocol", proto]);
        }
        cmd.args(["-e", "infiniband.invariant.crc"]);
        for (f, _, _) in CAPTURE_FIELDS {
            cmd.args(["-e", f]);
        }
        let out = cmd.output().expect("run tshark");
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let theirs = String::from_utf8(out.stdout).unwrap();
        let ours = openrdma(&["dissect", "--json", name]);
        let ours: Vec<Value> = String::from_utf8(ours.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let records = pcap_records(&std::fs::read(file).unwrap());
        let theirs: Vec<&str> = theirs.lines().collect();
        assert_eq!(theirs.len(), ours.len(), "{name}");
        for ((line, o), rec) in theirs.iter().zip(&ours).zip(&records) {
            let t: Vec<&str> = line.split('\t').collect();
            let n = &o["frame"];
            let rd = o["bth"]["opcode"].as_u64().is_some_and(|op| op >> 5 == 2);
            for (i, &(tshark, header, key)) in CAPTURE_FIELDS.iter().enumerate() {
                let theirs = t[i + 1];
                if theirs.is_empty() || (rd && !matches!(header, "bth" | "udp")) {
                    continue;
                }
                // tshark shows 0x8100 and 0x9100 tags as `vlan`, 0x88A8 tags as `ieee8021ad`.
                let tags = |ad: bool| -> Vec<&Value> {
                    let Some(tags) = o["vlans"].as_array() else { return Vec::new() };
                    let mut tpid = o["eth"]["ethertype"].as_u64();
                    let mut out = Vec::new();
                    for t in tags {
                        if (tpid == Some(0x88A8)) == ad {
                            out.push(t);
                        }
                        tpid = t["ethertype"].as_u64();
                    }
                    out
                };
                let objects: Vec<&Value> = match header {
                    "vlan" => tags(false),
                    "vlan-ad" => tags(true),
                    "sll*" => o.get("sll").or_else(|| o.get("sll2")).into_iter().collect(),
                    // tshark shows the AtomicETH's address and key as RETH fields.
                    "reth" => o.get("reth").or_else(|| o.get("atomiceth")).into_iter().collect(),
                    h => o.get(h).into_iter().collect(),
                };
                // tshark repeats some fields (ImmDt); only the tags occur several times.
                let occurrences = if header.starts_with("vlan") { usize::MAX } else { 1 };
                let theirs: Vec<Option<u64>> = theirs
                    .split(',')
                    .take(occurrences)
                    .map(|v| match tshark {
                        "infiniband.immdt" | "infiniband.ieth" => {
                            u64::from_str_radix(&v.replace(':', ""), 16).ok()
                        }
                        _ => number(v),
                    })
                    .collect();
                let ours: Vec<Option<u64>> = objects.iter().map(|h| as_num(&h[key])).collect();
                // In a frame the capture cut, tshark shows the fields of a header that is
                // cut in the middle; dissect shows whole headers only (DEC-CUT-001).
                if ours.is_empty() && o["kind"] == "truncated" {
                    continue;
                }
                assert_eq!(theirs, ours, "{name} frame {n}: {tshark}");
                compared += 1;
            }
            // The ICRC trailer, as tshark shows it (a big-endian number), when it sees one.
            if let (Some(crc), Some(ip)) =
                (number(t[0]), o.get("ipv4").or_else(|| o.get("ipv6")).filter(|_| !rd))
            {
                let len = match ip.get("total_len") {
                    Some(t) => t.as_u64().unwrap() as usize,
                    None => 40 + ip["payload_len"].as_u64().unwrap() as usize,
                };
                let link = match (o.get("eth"), o.get("sll"), o.get("sll2")) {
                    (Some(_), _, _) => 14,
                    (_, Some(_), _) => 16,
                    (_, _, Some(_)) => 20,
                    _ => 0,
                };
                let end = link + 4 * o["vlans"].as_array().map_or(0, Vec::len) + len;
                let tail: [u8; 4] = rec[end - 4..end].try_into().unwrap();
                assert_eq!(crc, u64::from(u32::from_be_bytes(tail)), "{name} frame {n}: icrc");
                compared += 1;
            }
        }
    }
    assert!(compared > 1500, "compared {compared} fields");
}
