//! Scenario files open in Wireshark: `tshark` lists every record on its interface, with its
//! time, its direction (`frame.packet_flags_direction`) and its comment (`frame.comment`),
//! and, told that DLT 147 carries JSON after an 8-byte header, shows host records as JSON.
//!
//! The test needs tshark: it is ignored by default and fails, rather than skips, when run
//! with `--ignored` on a machine without it.

use std::path::PathBuf;
use std::process::Command;

use openrdma_codec::{Ev, Msn, Qpn};
use openrdma_conformance::file::{manifest_to_toml, parse_manifest, read_scenario, save};
use openrdma_device::{
    Body, CpuCommand, Direction, FlagWrite, HostCommand, NicEvent, Record, Scenario, Side,
    Timestamp,
};

/// tshark's preference that dissects `LINKTYPE_USER0` as JSON after the host record header.
const USER_DLT_JSON: &str = r#"uat:user_dlts:"User 0 (DLT=147)","json","8","","0","""#;

fn frame(seed: u8, len: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x88, 0xB5];
    f.extend((0..len).map(|i| seed.wrapping_add(i as u8)));
    f
}

fn scenario() -> Scenario {
    let manifest = parse_manifest(
        "name = \"tshark-scenario\"\ndescription = \"x\"\nrequirements = [\"RCV-ACK-001\"]\nports = 2\n",
        "m.toml",
    )
    .unwrap();
    let r = |at: u64, dir, body, checks: &[&str]| Record {
        at: Timestamp::from_nanos(at),
        dir,
        body,
        checks: checks.iter().map(|c| c.to_string()).collect(),
    };
    use Direction::{Expect, Inject};
    let records = vec![
        r(0, Inject, Body::Host { command: HostCommand::Doorbell { token: 77 } }, &[]),
        r(
            5,
            Inject,
            Body::Cpu { command: CpuCommand::Probe { qpn: Qpn::new(3), ev: Ev::new(9) } },
            &[],
        ),
        r(1_000, Inject, Body::Frame { port: 0, bytes: frame(0, 46) }, &["RCV-ACK-001"]),
        r(
            2_500,
            Expect,
            Body::Frame { port: 1, bytes: frame(1, 50) },
            &["RCV-ACK-001", "RCV-DUP-001"],
        ),
        r(
            2_000_000_001,
            Expect,
            Body::Event {
                event: NicEvent::FlagWrite(FlagWrite {
                    qpn: Qpn::new(3),
                    side: Side::Requester,
                    msn: Msn::new(0),
                    addr: 64,
                    value: 1,
                }),
            },
            &[],
        ),
    ];
    Scenario { manifest, records }
}

fn tshark(args: &[&str]) -> String {
    let out = Command::new("tshark").args(args).output().expect("run tshark");
    assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
#[ignore = "needs tshark; .ci/run installs it and runs ignored tests"]
fn tshark_reads_scenarios() {
    let tshark_ok = Command::new("tshark").arg("-v").output().map(|o| o.status.success());
    assert!(
        matches!(tshark_ok, Ok(true)),
        "tshark is not installed (Debian package `tshark`); this test must run, not skip"
    );
    let s = scenario();
    let stem = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tshark-scenario");
    save(&s, &stem).unwrap();
    let file = stem.with_extension("pcapng");
    let name = file.to_str().unwrap();
    assert_eq!(read_scenario(&file, stem.with_extension("toml")).unwrap(), s);
    assert!(!manifest_to_toml(&s.manifest).is_empty());

    // Every record is a packet.
    assert_eq!(tshark(&["-r", name]).lines().count(), s.records.len());

    let fields = [
        "frame.interface_id",
        "frame.interface_name",
        "frame.packet_flags_direction",
        "frame.comment",
        "frame.time_epoch",
        "frame.len",
    ];
    let mut args = vec!["-r", name, "-T", "fields"];
    for f in fields {
        args.extend(["-e", f]);
    }
    let listing = tshark(&args);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines.len(), s.records.len(), "{listing}");
    for (r, line) in s.records.iter().zip(&lines) {
        let (interface, len) = match &r.body {
            Body::Frame { port, bytes } => (format!("{port}\tport{port}"), bytes.len()),
            _ => ("2\thost".to_string(), 0),
        };
        let (flags, comment) = match r.dir {
            Direction::Inject => ("0x00000001", "inject"),
            Direction::Expect => ("0x00000002", "expect"),
        };
        let comment = if r.checks.is_empty() {
            comment.to_string()
        } else {
            format!("{comment} checks: {}", r.checks.join(", "))
        };
        let ns = r.at.as_nanos();
        let time = format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000);
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), fields.len(), "{line}");
        assert_eq!(format!("{}\t{}", cols[0], cols[1]), interface, "{line}");
        assert_eq!(cols[2], flags, "{line}");
        assert_eq!(cols[3], comment, "{line}");
        assert_eq!(cols[4], time, "{line}");
        if len > 0 {
            assert_eq!(cols[5], len.to_string(), "{line}");
        }
    }

    // Host records: "ORDM" and JSON, which tshark dissects when told where it starts.
    let json = tshark(&[
        "-r",
        name,
        "-o",
        USER_DLT_JSON,
        "-Y",
        "frame.interface_name == \"host\"",
        "-T",
        "fields",
        "-e",
        "frame.protocols",
        "-e",
        "json.value.string",
    ]);
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(
        lines,
        [
            "user_dlt:data:json\tdoorbell",
            "user_dlt:data:json\tprobe",
            "user_dlt:data:json\tflag_write,requester"
        ]
    );
}
