//! The hostile catalogue, part four: scenario files whose manifest no device could run,
//! that name requirements the specification does not define, whose two files are of two
//! scenarios, or that share a name in one directory. Each is refused with exit code 2
//! before any device runs, naming the file, the key or record, and the rule
//! (`CONF-FMT-008` to `CONF-FMT-011`). See `hostile/mod.rs` for what a row is.

mod hostile;

use std::fs;
use std::path::Path;

use hostile::{Row, row, run_catalogue};

/// The scenario the rows spoil, and another one.
const SCN: &str = "traces/scenarios/rcv-psn-wrap";
const OTHER: &str = "traces/scenarios/rcv-in-order-v4";

fn manifest() -> String {
    fs::read_to_string(hostile::repo(&format!("{SCN}.toml"))).expect("the corpus manifest")
}

/// The scenario's manifest with the first `from` replaced by `to`.
fn edited(from: &str, to: &str) -> String {
    let text = manifest();
    assert!(text.contains(from), "the manifest has no {from:?}");
    text.replacen(from, to, 1)
}

/// `check s --observed obs.pcapng` with this manifest beside the scenario's records.
fn check(name: &str, toml: String) -> Row {
    row(name, &["check", "s", "--observed", "obs.pcapng"])
        .file("s.toml", toml)
        .copy("s.pcapng", &format!("{SCN}.pcapng"))
        .copy("obs.pcapng", &format!("{SCN}.pcapng"))
}

/// `run --traces .` with this manifest beside the scenario's records.
fn run(name: &str, toml: String) -> Row {
    row(name, &["run", "--traces", "."])
        .file("s.toml", toml)
        .copy("s.pcapng", &format!("{SCN}.pcapng"))
}

fn no_device_started(dir: &Path) -> Result<(), String> {
    if dir.join("started").exists() {
        return Err("the device was started before the scenarios were checked".into());
    }
    Ok(())
}

fn rows() -> Vec<Row> {
    // (what is changed, into what, the message: file:line:column: key = value: rule).
    let values: &[(&str, &str, &str)] = &[
        (
            "pmtu = 1024",
            "pmtu = 0",
            "s.toml:10:8: nic.pmtu = 0: the path MTU is 256, 512, 1024, 2048 or 4096 (SND-SEG-001)",
        ),
        ("pmtu = 1024", "pmtu = 1000", "s.toml:10:8: nic.pmtu = 1000: the path MTU is 256"),
        ("pmtu = 1024", "pmtu = 8192", "s.toml:10:8: nic.pmtu = 8192: the path MTU is 256"),
        (
            "mpr = 1",
            "mpr = 0",
            "s.toml:11:7: nic.mpr = 0: the window is 1 to 64 units of 128 packets (SETH-MPR-002)",
        ),
        ("mpr = 1", "mpr = 65", "s.toml:11:7: nic.mpr = 65: the window is 1 to 64"),
        (
            "sack_coalesce = 4",
            "sack_coalesce = 0",
            "s.toml:13:17: nic.sack_coalesce = 0: at least 1",
        ),
        ("sack_delay = 1000", "sack_delay = 0", "s.toml:14:14: nic.sack_delay = 0: positive"),
        ("ack_coalesce = 1", "ack_coalesce = 0", "s.toml:15:16: nic.ack_coalesce = 0: at least 1"),
        (
            "ack_req_every = 16",
            "ack_req_every = 0",
            "s.toml:16:17: nic.ack_req_every = 0: at least 1",
        ),
        (
            "skip_hold = 20000",
            "skip_hold = 18446744073709551615",
            "s.toml:17:13: nic.skip_hold = 18446744073709551615: at most 2^62 ns",
        ),
        (
            "nack_backoff = 2000",
            "nack_backoff = 9223372036854775807",
            "s.toml:18:16: nic.nack_backoff = 9223372036854775807: at most 2^62 ns",
        ),
        ("wwi_limit = 64", "wwi_limit = 0", "s.toml:19:13: nic.wwi_limit = 0: at least 1"),
        ("max_qps = 4096", "max_qps = 0", "s.toml:21:11: nic.max_qps = 0: 1 to 2^24"),
        ("max_qps = 4096", "max_qps = 16777217", "s.toml:21:11: nic.max_qps = 16777217: 1 to 2^24"),
        (
            "max_qps = 4096",
            "max_qps = 4096\ntail_probe = 0",
            "s.toml:22:14: nic.tail_probe = 0: positive when present",
        ),
        ("rto = 32768", "rto = 0", "s.toml:24:7: recovery.rto = 0: positive"),
        (
            "rto_max = 1000000",
            "rto_max = 100",
            "s.toml:25:11: recovery.rto_max = 100: at least `recovery.rto` (32768)",
        ),
        ("\nbackoff = 2", "\nbackoff = 0", "s.toml:26:11: recovery.backoff = 0: at least 1"),
        (
            "probe_interval = 10000",
            "probe_interval = 0",
            "s.toml:28:18: recovery.probe_interval = 0: positive",
        ),
        ("ports = 4", "ports = 0", "s.toml:6:9: ports = 0: 1 to 32 ports"),
        ("ports = 4", "ports = 33", "s.toml:6:9: ports = 33: 1 to 32 ports"),
        (
            "peer_ip = \"10.0.0.2\"",
            "peer_ip = \"10.0.0.2\"\nvlan = 4096",
            "s.toml:35:8: link.vlan = 4096: a VLAN ID has 12 bits; use 0 to 4094",
        ),
        (
            "peer_ip = \"10.0.0.2\"",
            "peer_ip = \"10.0.0.2\"\nvlan = 4095",
            "s.toml:35:8: link.vlan = 4095: VLAN ID 4095 is reserved by IEEE 802.1Q",
        ),
        (
            "peer_ip = \"10.0.0.2\"",
            "peer_ip = \"10.0.0.2\"\nvlan = 65535",
            "s.toml:35:8: link.vlan = 65535: a VLAN ID has 12 bits",
        ),
        (
            "peer_ip = \"10.0.0.2\"",
            "peer_ip = \"fd00::2\"",
            "s.toml:34:11: link.peer_ip = \"fd00::2\": an IPv6 peer for an IPv4 device",
        ),
        (
            "local_ip = \"10.0.0.1\"",
            "local_ip = \"fd00::1\"",
            "s.toml:34:11: link.peer_ip = \"10.0.0.2\": an IPv4 peer for an IPv6 device",
        ),
        (
            "local_ip = \"10.0.0.1\"",
            "local_ip = \"0.0.0.0\"",
            "s.toml:33:12: link.local_ip = \"0.0.0.0\": the unspecified address",
        ),
        (
            "peer_ip = \"10.0.0.2\"",
            "peer_ip = \"224.0.0.1\"",
            "s.toml:34:11: link.peer_ip = \"224.0.0.1\": a multicast address",
        ),
        (
            "peer_ip = \"10.0.0.2\"",
            "peer_ip = \"255.255.255.255\"",
            "s.toml:34:11: link.peer_ip = \"255.255.255.255\": the broadcast address",
        ),
        (
            "peer_ip = \"10.0.0.2\"",
            "peer_ip = \"127.0.0.1\"",
            "s.toml:34:11: link.peer_ip = \"127.0.0.1\": a loopback address",
        ),
        (
            "peer_ip = \"10.0.0.2\"",
            "peer_ip = \"10.0.0.1\"",
            "s.toml:34:11: link.peer_ip = \"10.0.0.1\": the peer has the device's own IP address",
        ),
        (
            "peer_mac = \"02:00:00:00:00:02\"",
            "peer_mac = \"01:00:5e:00:00:01\"",
            "s.toml:32:12: link.peer_mac = \"01:00:5e:00:00:01\": a multicast or broadcast MAC address",
        ),
        (
            "peer_mac = \"02:00:00:00:00:02\"",
            "peer_mac = \"ff:ff:ff:ff:ff:ff\"",
            "s.toml:32:12: link.peer_mac = \"ff:ff:ff:ff:ff:ff\": a multicast or broadcast MAC address",
        ),
        (
            "local_mac = \"02:00:00:00:00:01\"",
            "local_mac = \"00:00:00:00:00:00\"",
            "s.toml:31:13: link.local_mac = \"00:00:00:00:00:00\": the all-zero MAC address",
        ),
        (
            "peer_mac = \"02:00:00:00:00:02\"",
            "peer_mac = \"02:00:00:00:00:01\"",
            "s.toml:32:12: link.peer_mac = \"02:00:00:00:00:01\": the peer has the device's own MAC address",
        ),
        (
            "late_ns = 2000",
            "late_ns = 18446744073709551615",
            "s.toml:37:11: tolerances.late_ns = 18446744073709551615: at most 2^62 ns",
        ),
        (
            "early_ns = 1000",
            "early_ns = 18446744073709551615",
            "s.toml:38:12: tolerances.early_ns = 18446744073709551615: at most 2^62 ns",
        ),
        (
            "drain_ns = 200000",
            "drain_ns = 4611686018427387905",
            "s.toml:39:12: tolerances.drain_ns = 4611686018427387905: at most 2^62 ns",
        ),
        (
            "name = \"rcv-psn-wrap\"",
            "name = \"\"",
            "s.toml:1:8: name = \"\": a scenario name is 1 to 255 ASCII letters",
        ),
        (
            "name = \"rcv-psn-wrap\"",
            "name = \"../../x\"",
            "s.toml:1:8: name = \"../../x\": a scenario name is 1 to 255",
        ),
        (
            "name = \"rcv-psn-wrap\"",
            "name = \"a b\"",
            "s.toml:1:8: name = \"a b\": a scenario name",
        ),
    ];
    let ids = "requirements = [\"BTH-PSN-001\", \"BTH-PSN-002\", ";
    let requirements: &[(&str, &str)] = &[
        (
            "requirements = []",
            "s.toml:3:16: requirements = []: a scenario checks at least one requirement",
        ),
        (
            "requirements = [\"BTH-PSN-001\", \"Q-NOPE-001\"]",
            "s.toml:3:32: requirements[1] = \"Q-NOPE-001\": the specification defines no requirement Q-NOPE-001",
        ),
        (
            "requirements = [\"BTH-PSN-001\",\n  \"Q-NOPE-001\"]",
            "s.toml:4:3: requirements[1] = \"Q-NOPE-001\": the specification defines no requirement Q-NOPE-001",
        ),
        (
            "requirements = [\"BTH-PSN-001\", \"Q-NOPE-001.a\"]",
            "s.toml:3:32: requirements[1] = \"Q-NOPE-001.a\": the specification defines no requirement Q-NOPE-001",
        ),
        (
            "requirements = [\"CONF-GEN-002\"]",
            "s.toml:3:17: requirements[0] = \"CONF-GEN-002\": CONF-GEN-002 is withdrawn",
        ),
        (
            "requirements = [\"bth-psn-001\"]",
            "s.toml:3:17: requirements[0] = \"bth-psn-001\": not a requirement ID",
        ),
        (
            "requirements = [\"BTH-PSN-001.A\"]",
            "s.toml:3:17: requirements[0] = \"BTH-PSN-001.A\": not a requirement ID",
        ),
        (
            "requirements = [\"BTH-PSN-001.\"]",
            "s.toml:3:17: requirements[0] = \"BTH-PSN-001.\": not a requirement ID",
        ),
        (
            "requirements = [\"BTH-PSN-01\"]",
            "s.toml:3:17: requirements[0] = \"BTH-PSN-01\": not a requirement ID",
        ),
        ("requirements = [\"\"]", "s.toml:3:17: requirements[0] = \"\": not a requirement ID"),
        (
            "requirements = [\"BTH-PSN-001\", \"BTH-PSN-001\"]",
            "s.toml:3:32: requirements[1] = \"BTH-PSN-001\": named twice",
        ),
    ];

    let mut rows = Vec::new();
    for (from, to, message) in values {
        rows.push(check(&format!("check with {to:?}"), edited(from, to)).code(2).err(message));
    }
    for (list, message) in requirements {
        let toml = manifest()
            .lines()
            .map(|l| if l.starts_with("requirements = ") { list.to_string() } else { l.into() })
            .collect::<Vec<_>>()
            .join("\n");
        rows.push(check(&format!("check with {list:?}"), toml).code(2).err(message));
    }
    // The same refusals from `run`, before any device starts.
    rows.push(run("run --traces with pmtu = 0", edited("pmtu = 1024", "pmtu = 0")).code(2).err(
        "s.toml:10:8: nic.pmtu = 0: the path MTU is 256, 512, 1024, 2048 or 4096 (SND-SEG-001)",
    ));
    rows.push(
        run(
            "run --traces with an IPv6 peer",
            edited("peer_ip = \"10.0.0.2\"", "peer_ip = \"::2\""),
        )
        .code(2)
        .err("s.toml:34:11: link.peer_ip = \"::2\": an IPv6 peer for an IPv4 device"),
    );
    rows.push(
        run("run --traces with an unknown ID", edited(ids, "requirements = [\"Q-NOPE-001\", "))
            .code(2)
            .err("s.toml:3:17: requirements[0] = \"Q-NOPE-001\": the specification defines no requirement Q-NOPE-001"),
    );
    rows.push(
        row(
            "run --impl process with mpr = 0 starts no device",
            &["run", "--traces", ".", "--impl", "process", "--", "sh", "-c", "touch {dir}/started"],
        )
        .file("s.toml", edited("mpr = 1", "mpr = 0"))
        .copy("s.pcapng", &format!("{SCN}.pcapng"))
        .code(2)
        .err("s.toml:11:7: nic.mpr = 0")
        .after(no_device_started),
    );
    rows.push(
        row(
            "run --impl process beside another scenario's records starts no device",
            &["run", "--traces", ".", "--impl", "process", "--", "sh", "-c", "touch {dir}/started"],
        )
        .copy("s.toml", &format!("{SCN}.toml"))
        .copy("s.pcapng", &format!("{OTHER}.pcapng"))
        .code(2)
        .err("the capture is scenario \"rcv-in-order-v4\"")
        .after(no_device_started),
    );
    // A clause of a known requirement is accepted.
    rows.push(
        check("check with a clause", edited(ids, "requirements = [\"RCV-ACK-002.a\", ")).code(0),
    );
    // Clause IDs the specification does not define, written so that the scan of the
    // sources for cited IDs does not take them for citations.
    for (line, letter) in [("BTH-PSN-001", "a"), ("RCV-ACK-002", "z")] {
        let id = format!("{line}.{letter}");
        rows.push(
            check(
                &format!("check with the clause {id}"),
                edited(ids, &format!("requirements = [\"{id}\", ")),
            )
            .code(2)
            .err(&format!(
                "s.toml:3:17: requirements[0] = \"{id}\": {line} has no clause ({letter})"
            )),
        );
    }
    rows.push(
        check(
            "check with a two-letter clause",
            edited(ids, "requirements = [\"RCV-ACK-002.ab\", "),
        )
        .code(2)
        .err("s.toml:3:17: requirements[0] = \"RCV-ACK-002.ab\": not a requirement ID"),
    );

    // The binding of a manifest to its records.
    rows.push(
        row("check a manifest beside another scenario's records", &["check", "s", "--observed", "obs.pcapng"])
            .copy("s.toml", &format!("{SCN}.toml"))
            .copy("s.pcapng", &format!("{OTHER}.pcapng"))
            .copy("obs.pcapng", &format!("{OTHER}.pcapng"))
            .code(2)
            .err("s.pcapng: the capture is scenario \"rcv-in-order-v4\", but the manifest beside it is scenario \"rcv-psn-wrap\": a manifest and its records must be of one scenario"),
    );
    rows.push(
        check("check a renamed manifest", edited("name = \"rcv-psn-wrap\"", "name = \"renamed\""))
            .code(2)
            .err("s.pcapng: the capture is scenario \"rcv-psn-wrap\", but the manifest beside it is scenario \"renamed\""),
    );
    rows.push(
        row("run --traces with a manifest beside another scenario's records", &["run", "--traces", "."])
            .copy("a.toml", &format!("{SCN}.toml"))
            .copy("a.pcapng", &format!("{OTHER}.pcapng"))
            .code(2)
            .err("a.pcapng: the capture is scenario \"rcv-in-order-v4\", but the manifest beside it is scenario \"rcv-psn-wrap\""),
    );
    rows.push(
        row("run --traces with two files swapped", &["run", "--traces", "."])
            .copy("a.toml", &format!("{SCN}.toml"))
            .copy("a.pcapng", &format!("{OTHER}.pcapng"))
            .copy("b.toml", &format!("{OTHER}.toml"))
            .copy("b.pcapng", &format!("{SCN}.pcapng"))
            .code(2)
            .err("the capture is scenario \"rcv-in-order-v4\""),
    );
    let pcapng = fs::read(hostile::repo(&format!("{SCN}.pcapng"))).expect("the corpus capture");
    let at = pcapng.windows(11).position(|w| w == b"BTH-PSN-002").expect("a check comment");
    let mut unknown = pcapng.clone();
    unknown[at..at + 11].copy_from_slice(b"Z-NOPEX-001");
    rows.push(
        row("check records that check an unknown ID", &["check", "s", "--observed", "obs.pcapng"])
            .copy("s.toml", &format!("{SCN}.toml"))
            .file("s.pcapng", unknown)
            .copy("obs.pcapng", &format!("{SCN}.pcapng"))
            .code(2)
            .err("s.pcapng: byte ")
            .err("the record checks Z-NOPEX-001, which the specification does not define"),
    );

    // Names are unique in a directory.
    rows.push(
        row("run --traces with one scenario twice", &["run", "--traces", "."])
            .copy("a.toml", &format!("{SCN}.toml"))
            .copy("a.pcapng", &format!("{SCN}.pcapng"))
            .copy("b.toml", &format!("{SCN}.toml"))
            .copy("b.pcapng", &format!("{SCN}.pcapng"))
            .code(2)
            .err("./b.toml: scenario \"rcv-psn-wrap\" is also the name of ./a.toml: names in a directory are unique"),
    );
    rows.push(
        row(
            "run --traces with one scenario twice, one filtered out",
            &["run", "--traces", ".", "--scenario", "zzz"],
        )
        .copy("a.toml", &format!("{SCN}.toml"))
        .copy("a.pcapng", &format!("{SCN}.pcapng"))
        .copy("b.toml", &format!("{SCN}.toml"))
        .copy("b.pcapng", &format!("{SCN}.pcapng"))
        .code(2)
        .err("is also the name of"),
    );
    rows.push(
        row("run --traces with two scenarios", &["run", "--traces", "."])
            .copy("a.toml", &format!("{SCN}.toml"))
            .copy("a.pcapng", &format!("{SCN}.pcapng"))
            .copy("b.toml", &format!("{OTHER}.toml"))
            .copy("b.pcapng", &format!("{OTHER}.pcapng"))
            .code(0)
            .out("2 scenarios: 2 pass"),
    );
    rows
}

#[test]
fn catalogue() {
    run_catalogue("scenarios", &rows(), false);
}
