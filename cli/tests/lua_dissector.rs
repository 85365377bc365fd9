//! The Wireshark dissector `wireshark/openrdma.lua` against `openrdma dissect --json`, on every
//! capture under `traces/` (read at test time, so new scenarios are covered as they come).
//!
//! For every frame of every file:
//!
//! * a frame that `dissect` decodes as MRC (an MRC opcode, no error): the Lua dissector shows
//!   exactly the MRC headers that the JSON has (`openrdma.<header>`), every JSON field
//!   `<header>.<field>` appears as `openrdma.<header>.<field>` with the same value, and every
//!   `openrdma.<header>.<field>` it shows is a JSON field; the payload and pad lengths and the
//!   ICRC verdict agree too (and the trailer and the right value when the ICRC is bad);
//! * an MRC frame that `dissect` reports an error for is not compared field by field; if the
//!   Lua dissector reports an error it must be the same text;
//! * a RoCEv2 frame with a standard opcode must reach Wireshark's InfiniBand dissector, and
//!   any other frame must show no `openrdma` field;
//! * a frame that the capture cut is compared as far as it goes: the headers that it holds
//!   whole, the payload and pad bytes captured, the ICRC `not_checkable` (DEC-CUT-001); a
//!   standard one still reaches the InfiniBand dissector;
//! * no frame shows a Lua error: a frame that Wireshark's own dissectors find malformed is
//!   marked malformed, as it is without the plugin;
//! * a host record (LINKTYPE_USER0, magic `ORDM`) shows its magic, version, kind and reserved
//!   bytes as the record holds them, its JSON body goes to Wireshark's JSON dissector, and
//!   Wireshark shows the record's direction as the file stores it.
//!
//! The test needs tshark: it is ignored by default and fails, rather than skips, when run
//! with `--ignored` on a machine without it.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{LINKTYPE_USER0, openrdma, repo_path, scratch};
use openrdma_cli::capture::{CaptureReader, LINKTYPE_ETHERNET, Record};
use serde_json::Value;

/// The MRC headers, by their JSON key.
const MRC_HEADERS: &[&str] = &[
    "bth", "meth", "tseth", "reth", "immdt", "aeth", "seth", "cc_state", "neth", "peth", "erth",
    "eeth",
];

/// Frame-level fields of the Lua dissector, besides the headers.
const FRAME_FIELDS: &[&str] = &[
    "openrdma.payload",
    "openrdma.payload_len",
    "openrdma.pad",
    "openrdma.pad_len",
    "openrdma.icrc",
    "openrdma.icrc_status",
    "openrdma.icrc_computed",
    "openrdma.error",
];

/// The opcodes that the Lua dissector dissects itself; it hands every other one back.
fn is_mrc_opcode(op: u64) -> bool {
    matches!(op, 0xC6..=0xCB | 0xD1 | 0xD8 | 0xD9 | 0xDC | 0xDD | 0xDE)
}

/// Every pcap and pcapng file under `dir`, recursively, sorted.
fn captures(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(path.extension().and_then(|e| e.to_str()), Some("pcap" | "pcapng")) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The fields of one frame as tshark shows them.
#[derive(Debug, Default)]
struct Shown {
    /// `openrdma.*` fields with a value (not subtrees), by abbreviation.
    fields: BTreeMap<String, String>,
    /// MRC headers shown (`openrdma.<header>` subtrees), by JSON key.
    headers: BTreeSet<String>,
    /// Whether the `openrdma` or `openrdma.host` protocol appears at all.
    any: bool,
    /// Lua errors inside the frame.
    errors: Vec<String>,
    /// Malformed-packet marks inside the frame (from any dissector).
    malformed: bool,
}

/// Collects the `openrdma` fields anywhere in a frame's layers (tshark `-T json` output with
/// `--no-duplicate-keys`: an item with children is a key whose value is an object).
fn walk(v: &Value, frame: u64, out: &mut Shown) {
    let Value::Object(map) = v else { return };
    for (k, v) in map {
        if k.starts_with("Lua Error") || k == "_ws.lua.error" {
            out.errors.push(format!("{k}: {v}"));
        }
        out.malformed |= k == "_ws.malformed";
        if k == "openrdma" || k == "openrdma.host" {
            out.any = true;
        } else if let Some(rest) = k.strip_prefix("openrdma.") {
            out.any = true;
            if rest.starts_with("expert.") || rest.starts_with("host.expert.") {
                // Expert infos: notes for the reader, not fields of the packet.
            } else if MRC_HEADERS.contains(&rest) {
                assert!(out.headers.insert(rest.to_string()), "frame {frame}: {k} shown twice");
            } else {
                match v {
                    Value::String(s) => {
                        let old = out.fields.insert(k.clone(), s.clone());
                        assert!(old.is_none(), "frame {frame}: {k} shown twice");
                    }
                    Value::Object(_) => {}
                    other => panic!("frame {frame}: {k} is shown more than once: {other}"),
                }
            }
        }
        walk(v, frame, out);
    }
}

/// A tshark value as a number: decimal, negative decimal, or hexadecimal with `0x`; booleans
/// as 1/0 or True/False.
fn tshark_number(s: &str) -> Option<i128> {
    match s {
        "True" | "true" => Some(1),
        "False" | "false" => Some(0),
        _ => match s.strip_prefix("0x") {
            Some(hex) => i128::from_str_radix(hex, 16).ok(),
            None => s.parse().ok(),
        },
    }
}

/// Bytes as tshark shows them: hex pairs, maybe separated by colons.
fn tshark_bytes(s: &str) -> Option<Vec<u8>> {
    let hex: String = s.chars().filter(|c| *c != ':').collect();
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok()).collect()
}

/// Whether a tshark value and a JSON value of `openrdma dissect` say the same.
fn agree(theirs: &str, ours: &Value) -> bool {
    match ours {
        Value::Bool(b) => tshark_number(theirs) == Some(i128::from(*b)),
        Value::Number(n) => {
            let n = n.as_u64().map(i128::from).or_else(|| n.as_i64().map(i128::from));
            n.is_some() && tshark_number(theirs) == n
        }
        Value::String(s) => theirs == s,
        Value::Array(items) => {
            let ours: Option<Vec<u8>> =
                items.iter().map(|v| v.as_u64().and_then(|n| u8::try_from(n).ok())).collect();
            ours.is_some() && tshark_bytes(theirs) == ours
        }
        _ => false,
    }
}

/// What one file contributed.
#[derive(Debug, Default)]
struct Tally {
    frames: usize,
    mrc_frames: usize,
    fields: usize,
    broken: usize,
    handed_back: usize,
    host_records: usize,
    other: usize,
    headers_seen: BTreeSet<String>,
}

fn tshark_frames(lua: &Path, file: &Path) -> Vec<Value> {
    let out = Command::new("tshark")
        .arg("-n")
        .arg("-X")
        .arg(format!("lua_script:{}", lua.display()))
        .args(["-o", "openrdma.verify_icrc:TRUE"])
        .arg("-r")
        .arg(file)
        .args(["-T", "json", "--no-duplicate-keys"])
        .output()
        .expect("run tshark");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark failed on {}: {stderr}", file.display());
    assert!(
        !stderr.contains("Lua"),
        "tshark reports a Lua problem on {}: {stderr}",
        file.display()
    );
    match serde_json::from_slice(&out.stdout) {
        Ok(Value::Array(frames)) => frames,
        Ok(other) => panic!("tshark output on {} is not an array: {other:.200}", file.display()),
        Err(e) => panic!("tshark output on {} is not JSON: {e}", file.display()),
    }
}

fn dissect_frames(file: &Path) -> Vec<Value> {
    let out = openrdma(&["dissect", "--json", file.to_str().unwrap()]);
    // 0: every frame clean; 1: some frame does not decode or has a bad ICRC (mixed.pcapng
    // holds such frames on purpose); 2: the file cannot be read.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "openrdma dissect failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Compares one MRC frame that `dissect` decoded without error; returns the fields compared.
fn compare_mrc(at: &str, ours: &Value, shown: &Shown, tally: &mut Tally) -> usize {
    let json_headers: BTreeSet<String> =
        MRC_HEADERS.iter().filter(|h| ours.get(**h).is_some()).map(|h| h.to_string()).collect();
    assert_eq!(
        shown.headers, json_headers,
        "{at}: headers shown by the Lua dissector (left) and by dissect (right)"
    );
    tally.headers_seen.extend(json_headers.iter().cloned());

    let mut compared = 0;
    let mut check = |name: &str, theirs: Option<&String>, ours: &Value| {
        let theirs = theirs.unwrap_or_else(|| panic!("{at}: {name} not shown, dissect {ours}"));
        assert!(agree(theirs, ours), "{at}: {name}: Lua {theirs:?}, dissect {ours}");
        compared += 1;
    };

    // Every JSON field of every MRC header is shown, with the same value.
    for h in &json_headers {
        let Some(obj) = ours[h.as_str()].as_object() else {
            panic!("{at}: dissect's {h} is not an object")
        };
        for (k, v) in obj {
            let name = format!("openrdma.{h}.{k}");
            check(&name, shown.fields.get(&name), v);
        }
    }
    // Every header field shown is a JSON field.
    for name in shown.fields.keys() {
        if FRAME_FIELDS.contains(&name.as_str()) {
            continue;
        }
        let rest = name.strip_prefix("openrdma.").unwrap();
        let (h, k) = rest
            .split_once('.')
            .unwrap_or_else(|| panic!("{at}: {name} is not openrdma.<header>.<field>"));
        assert!(MRC_HEADERS.contains(&h), "{at}: {name} is not a field of an MRC header");
        assert!(
            ours.get(h).and_then(|o| o.get(k)).is_some(),
            "{at}: the Lua dissector shows {name}, dissect has no {h}.{k}"
        );
    }

    // Payload, pad and ICRC. In a frame that the capture cut before its payload, dissect
    // gives no payload and no pad, and the Lua dissector shows neither.
    if ours.get("payload_len").is_none() {
        for field in
            ["openrdma.payload", "openrdma.payload_len", "openrdma.pad", "openrdma.pad_len"]
        {
            assert!(!shown.fields.contains_key(field), "{at}: {field} shown, dissect has none");
        }
    } else {
        check(
            "openrdma.payload_len",
            shown.fields.get("openrdma.payload_len"),
            &ours["payload_len"],
        );
        check("openrdma.pad_len", shown.fields.get("openrdma.pad_len"), &ours["pad_len"]);
        for (field, key) in [("openrdma.payload", "payload_len"), ("openrdma.pad", "pad_len")] {
            let len = ours[key].as_u64().unwrap();
            match shown.fields.get(field) {
                Some(b) => {
                    let b = tshark_bytes(b).unwrap_or_else(|| panic!("{at}: {field} {b:?}"));
                    assert_eq!(b.len() as u64, len, "{at}: {field} length");
                }
                None => assert_eq!(len, 0, "{at}: {field} not shown"),
            }
        }
    }
    check("openrdma.icrc_status", shown.fields.get("openrdma.icrc_status"), &ours["icrc"]);
    if ours["icrc"] == "not_checkable" {
        // Cut by the capture: the trailer is shown only when it was captured.
        assert!(
            !shown.fields.contains_key("openrdma.icrc_computed"),
            "{at}: ICRC computed shown for a frame the capture cut"
        );
    } else if ours["icrc"] == "bad" {
        check("openrdma.icrc", shown.fields.get("openrdma.icrc"), &ours["icrc_found"]);
        check(
            "openrdma.icrc_computed",
            shown.fields.get("openrdma.icrc_computed"),
            &ours["icrc_computed"],
        );
    } else {
        assert!(shown.fields.contains_key("openrdma.icrc"), "{at}: ICRC not shown");
        assert!(
            !shown.fields.contains_key("openrdma.icrc_computed"),
            "{at}: ICRC computed shown for a good ICRC"
        );
    }
    assert!(
        !shown.fields.contains_key("openrdma.error"),
        "{at}: the Lua dissector reports {:?}, dissect decodes the frame",
        shown.fields["openrdma.error"]
    );
    compared
}

/// Checks a host record; returns the fields compared.
fn compare_host(at: &str, layers: &Value, record: &Record, shown: &Shown) -> usize {
    let d = &record.data;
    let want = [
        ("openrdma.host.magic", "ORDM".to_string()),
        ("openrdma.host.version", d[4].to_string()),
        ("openrdma.host.kind", d[5].to_string()),
        ("openrdma.host.reserved", u16::from_be_bytes([d[6], d[7]]).to_string()),
    ];
    for (name, value) in &want {
        let theirs = shown.fields.get(*name).unwrap_or_else(|| panic!("{at}: {name} not shown"));
        assert!(
            agree(theirs, &Value::String(value.clone()))
                || tshark_number(theirs).map(|v| v.to_string()).as_ref() == Some(value),
            "{at}: {name}: Lua {theirs:?}, record {value}"
        );
    }
    let extra: Vec<&String> =
        shown.fields.keys().filter(|k| !want.iter().any(|(w, _)| w == k)).collect();
    assert!(extra.is_empty(), "{at}: a host record with MRC fields {extra:?}");
    let protocols = layers["frame"]["frame.protocols"].as_str().unwrap_or("");
    if d.len() > 8 {
        assert!(
            protocols.split(':').any(|p| p == "json"),
            "{at}: the host record's body is not dissected as JSON ({protocols})"
        );
    }
    // The direction (inject: inbound, expect: outbound) is the file's, as Wireshark shows it.
    if let Some(flags) = record.flags {
        let shown_dir = layers["frame"]["frame.packet_flags_tree"]["frame.packet_flags_direction"]
            .as_str()
            .and_then(tshark_number);
        assert_eq!(shown_dir, Some(i128::from(flags & 0b11)), "{at}: direction");
    }
    want.len()
}

fn compare_file(lua: &Path, file: &Path) -> Tally {
    let records: Vec<Record> = CaptureReader::open(file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let ours = dissect_frames(file);
    let theirs = tshark_frames(lua, file);
    assert_eq!(ours.len(), records.len(), "{}: dissect frame count", file.display());
    assert_eq!(theirs.len(), records.len(), "{}: tshark frame count", file.display());

    let mut tally = Tally { frames: records.len(), ..Tally::default() };
    for ((record, ours), theirs) in records.iter().zip(&ours).zip(&theirs) {
        let n = record.index;
        assert_eq!(ours["frame"].as_u64(), Some(n), "{}: dissect frame numbers", file.display());
        let layers = &theirs["_source"]["layers"];
        let number = layers["frame"]["frame.number"].as_str().and_then(tshark_number);
        assert_eq!(number, Some(i128::from(n)), "{}: tshark frame numbers", file.display());
        let mut shown = Shown::default();
        walk(layers, n, &mut shown);
        let at =
            format!("{} frame {n}", file.strip_prefix(repo_path("")).unwrap_or(file).display());
        assert!(shown.errors.is_empty(), "{at}: {:?}", shown.errors);

        let opcode = ours.get("bth").and_then(|b| b["opcode"].as_u64());
        if ours.get("skipped").is_some() {
            if record.link_type == LINKTYPE_USER0 && record.data.starts_with(b"ORDM") {
                assert!(record.data.len() >= 8, "{at}: short host record");
                tally.fields += compare_host(&at, layers, record, &shown);
                tally.host_records += 1;
            } else {
                assert!(!shown.any, "{at}: openrdma fields on a record that is not ours");
                tally.other += 1;
            }
        } else if opcode.is_some_and(is_mrc_opcode) {
            if let Some(error) = ours["error"].as_str() {
                // Deliberately broken frames: compared only on the error and the ICRC verdict.
                if let Some(theirs) = shown.fields.get("openrdma.error") {
                    assert_eq!(theirs, error, "{at}: decode error");
                }
                if let Some(theirs) = shown.fields.get("openrdma.icrc_status") {
                    assert!(agree(theirs, &ours["icrc"]), "{at}: ICRC {theirs}, {}", ours["icrc"]);
                }
                tally.broken += 1;
            } else {
                assert!(shown.any, "{at}: an MRC frame the Lua dissector does not show");
                assert!(!shown.malformed, "{at}: Wireshark marks a good MRC frame malformed");
                let compared = compare_mrc(&at, ours, &shown, &mut tally);
                tally.fields += compared;
                tally.mrc_frames += 1;
            }
        } else {
            assert!(!shown.any, "{at}: openrdma fields on a frame that is not MRC: {shown:?}");
            if opcode.is_some() {
                let protocols = layers["frame"]["frame.protocols"].as_str().unwrap_or("");
                assert!(
                    protocols.split(':').any(|p| p == "infiniband"),
                    "{at}: a standard RoCEv2 frame not handed to InfiniBand ({protocols})"
                );
                tally.handed_back += 1;
            } else {
                tally.other += 1;
            }
        }
    }
    tally
}

#[test]
#[ignore = "needs tshark; .ci/run installs it and runs ignored tests"]
fn lua_dissector_agrees_with_dissect_on_every_trace() {
    require_tshark();
    let lua = repo_path("wireshark/openrdma.lua").canonicalize().expect("wireshark/openrdma.lua");
    let files = captures(&repo_path("traces"));
    assert!(!files.is_empty(), "no capture under traces/");

    let mut total = Tally::default();
    let mut report = String::new();
    for file in &files {
        let t = compare_file(&lua, file);
        let _ = writeln!(
            report,
            "{}: {} frames, {} MRC frames compared ({} fields), {} broken, {} standard RoCEv2, \
             {} host records, {} other",
            file.strip_prefix(repo_path("")).unwrap_or(file).display(),
            t.frames,
            t.mrc_frames,
            t.fields,
            t.broken,
            t.handed_back,
            t.host_records,
            t.other
        );
        total.frames += t.frames;
        total.mrc_frames += t.mrc_frames;
        total.fields += t.fields;
        total.broken += t.broken;
        total.handed_back += t.handed_back;
        total.host_records += t.host_records;
        total.other += t.other;
        total.headers_seen.extend(t.headers_seen);
    }
    println!("{report}");
    println!(
        "total: {} files, {} frames, {} MRC frames and {} host records compared, {} fields \
         agree; {} broken frames skipped, {} standard RoCEv2 frames handed to InfiniBand",
        files.len(),
        total.frames,
        total.mrc_frames,
        total.host_records,
        total.fields,
        total.broken,
        total.handed_back
    );

    // The corpus exercises every MRC header, the hand-back and the host records.
    let all: BTreeSet<String> = MRC_HEADERS.iter().map(|h| h.to_string()).collect();
    assert_eq!(total.headers_seen, all, "MRC headers compared at least once");
    assert!(total.handed_back > 0, "no standard RoCEv2 frame in the corpus");
    assert!(total.host_records > 0, "no host record in the corpus");
}

/// Frames that a capture cut short (a snapshot length, as `tcpdump -s` writes them) are
/// decoded as far as the captured bytes go, and standard ones are handed on: every Ethernet
/// frame of `traces/samples/mixed.pcapng`, cut at every length, in one pcap file whose
/// records keep the length on the wire.
#[test]
#[ignore = "needs tshark; .ci/run installs it and runs ignored tests"]
fn lua_dissector_decodes_cut_frames_as_far_as_they_go() {
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
    use pcap_file::{DataLink, TsResolution};

    require_tshark();
    let lua = repo_path("wireshark/openrdma.lua").canonicalize().expect("wireshark/openrdma.lua");
    let sample = repo_path("traces/samples/mixed.pcapng");
    let header = PcapHeader {
        ts_resolution: TsResolution::NanoSecond,
        snaplen: 65535,
        datalink: DataLink::ETHERNET,
        ..PcapHeader::default()
    };
    let mut w = PcapWriter::with_header(Vec::new(), header).unwrap();
    let mut cuts = 0;
    for record in CaptureReader::open(&sample).unwrap() {
        let record = record.unwrap();
        if record.link_type != LINKTYPE_ETHERNET {
            continue;
        }
        for cut in 1..record.data.len() {
            let ts = std::time::Duration::from_micros(cuts);
            let orig_len = u32::try_from(record.data.len()).unwrap();
            w.write_packet(&PcapPacket::new(ts, orig_len, &record.data[..cut])).unwrap();
            cuts += 1;
        }
    }
    let dir = scratch("lua-cut");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mixed-cut.pcap");
    std::fs::write(&file, w.into_writer()).unwrap();

    let t = compare_file(&lua, &file);
    println!(
        "{} cut frames: {} MRC frames compared ({} fields), {} broken, {} standard RoCEv2, \
         {} other",
        t.frames, t.mrc_frames, t.fields, t.broken, t.handed_back, t.other
    );
    assert_eq!(t.frames as u64, cuts);
    assert!(t.mrc_frames > 0 && t.handed_back > 0, "the cuts reach MRC and standard RoCEv2");
    let all: BTreeSet<String> = MRC_HEADERS.iter().map(|h| h.to_string()).collect();
    assert_eq!(t.headers_seen, all, "MRC headers compared at least once in a cut frame");
}

/// The documented install, one copy into the personal plugins directory, is enough: tshark
/// lists the plugin and dissects MRC with it (in a scratch home directory).
#[test]
#[ignore = "needs tshark; .ci/run installs it and runs ignored tests"]
fn lua_dissector_installs_by_one_copy() {
    require_tshark();
    let home = scratch("wireshark-home");
    let _ = std::fs::remove_dir_all(&home);
    let plugins = home.join(".local/lib/wireshark/plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::copy(repo_path("wireshark/openrdma.lua"), plugins.join("openrdma.lua")).unwrap();
    let tshark = |args: &[&str]| {
        let out = Command::new("tshark").env("HOME", &home).args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let listed = tshark(&["-G", "plugins"]);
    assert!(
        listed.lines().any(|l| l.starts_with("openrdma.lua") && l.contains("lua script")),
        "{listed}"
    );
    let sample = repo_path("traces/samples/mixed.pcapng");
    let psns = tshark(&[
        "-n",
        "-r",
        sample.to_str().unwrap(),
        "-Y",
        "openrdma.seth",
        "-T",
        "fields",
        "-e",
        "openrdma.seth.cack_psn",
    ]);
    assert!(psns.lines().any(|l| l.trim() == "100"), "{psns}");
}

fn require_tshark() {
    let tshark_ok = Command::new("tshark").arg("-v").output().map(|o| o.status.success());
    assert!(
        matches!(tshark_ok, Ok(true)),
        "tshark is not installed (Debian package `tshark`); this test must run, not skip"
    );
}

/// The value normalisation itself, without tshark.
#[test]
fn tshark_values_compare_with_dissect_values() {
    use serde_json::json;
    assert!(agree("0x0000000d", &json!(13)));
    assert!(agree("13", &json!(13)));
    assert!(agree("-2", &json!(-2)));
    assert!(agree("0x800000000000000d", &json!(9_223_372_036_854_775_821_u64)));
    assert!(agree("1", &json!(true)) && agree("0", &json!(false)));
    assert!(agree("True", &json!(true)) && !agree("1", &json!(false)));
    assert!(agree("00:2a:ff", &json!([0, 42, 255])) && agree("002aff", &json!([0, 42, 255])));
    assert!(agree("ok", &json!("ok")) && !agree("bad", &json!("ok")));
    assert!(!agree("", &json!(0)) && !agree("0x", &json!(0)) && !agree("2a:f", &json!([42])));
}
