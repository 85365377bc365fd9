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
use openrdma_codec::{AethRepr, ImmDtRepr, Opcode, RethRepr};
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
        reth: Some(RethRepr::new(va, rkey, len)),
        ..Extensions::default()
    };
    let aeth = |syndrome, msn| Extensions {
        aeth: Some(AethRepr::new(syndrome, msn)),
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
        reth: Some(RethRepr::new(0x1000, 0x42, 13)),
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
    f.set_entropy(0xC0DE_1234);
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
