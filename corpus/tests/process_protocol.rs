//! The adapter protocol (`CONF-ADP-*`): decoding with exact errors, the device side
//! ([`serve`]) in-process, and the process adapter's deadlines and failures against small
//! shell scripts that play a device.

use std::io::Cursor;
use std::time::{Duration, Instant};

use openrdma_conformance::protocol::{
    FieldsError, MAX_DEPTH, MAX_ITEMS, MAX_LINE_LEN, MAX_VALUES, Message, ProtocolError,
    ServeError, WireOutputKind, decode_bytes, decode_line, frame_fields_json, frame_from_fields,
    serve,
};
use openrdma_corpus as corpus;
use openrdma_device::{Body, Device, DeviceError, Direction, Manifest, TimedInput, Timestamp};
use openrdma_sm::ReferenceDevice;
use openrdma_testkit::fuzzing::adapter_decode as fuzz_adapter_decode;

fn manifest() -> Manifest {
    corpus::all()[0].1().manifest
}

// ---- decode_line ------------------------------------------------------------------------

/// CONF-ADP-001: every message is one JSON object on one line; CONF-ADP-003: keys the
/// protocol does not define are ignored.
#[test]
fn decodes_every_message() {
    let lines = [
        r#"{"type":"hello","version":1,"runner":"openrdma 0.1.0"}"#,
        r#"{"type":"hello","version":1,"name":"dev","capabilities":["responder","ipv4"]}"#,
        r#"{"type":"started"}"#,
        r#"{"type":"unsupported","reason":"no IPv6"}"#,
        r#"{"type":"advance","seq":1,"until":2000,"inputs":[]}"#,
        r#"{"type":"outputs","seq":1,"outputs":[]}"#,
        r#"{"type":"finish"}"#,
        r#"{"type":"finished"}"#,
        r#"{"type":"error","message":"boom"}"#,
    ];
    for l in lines {
        let m = decode_line(l).unwrap_or_else(|e| panic!("{l}: {e}"));
        assert!(l.contains(&format!("\"{}\"", m.type_name())));
    }
    // Unknown keys are ignored (CONF-ADP-003); a trailing \r is white space.
    assert_eq!(decode_line("{\"type\":\"finish\",\"later\":[1,2]}\r").unwrap(), Message::Finish);
}

/// CONF-ADP-002: a hello of a version not spoken here is refused, naming the versions that
/// are.
#[test]
fn wrong_version_names_both() {
    let Message::Hello(h) =
        decode_line(r#"{"type":"hello","version":2,"name":"dev","capabilities":["responder"]}"#)
            .unwrap()
    else {
        panic!("not a hello")
    };
    let e = h.check_version().unwrap_err();
    assert_eq!(e, ProtocolError::Version { got: 2, supported: vec![1] });
    assert_eq!(e.to_string(), "adapter protocol version 2 is not spoken here; supported: 1");
}

/// CONF-ADP-006: an `outputs` whose `seq` is not the `advance`'s is a protocol error.
#[test]
fn wrong_seq_is_named() {
    let Message::Outputs(o) = decode_line(r#"{"type":"outputs","seq":4,"outputs":[]}"#).unwrap()
    else {
        panic!("not outputs")
    };
    let e = o.check_seq(3).unwrap_err();
    assert_eq!(e.to_string(), "outputs: seq 4, expected 3");
}

#[test]
fn missing_fields_are_named() {
    let cases = [
        (r#"{"type":"advance","until":5,"inputs":[]}"#, "advance", "seq"),
        (r#"{"type":"outputs","seq":1}"#, "outputs", "outputs"),
        (r#"{"type":"error"}"#, "error", "message"),
        (r#"{"type":"hello"}"#, "hello", "version"),
        (
            r#"{"type":"advance","seq":1,"until":5,"inputs":[{"at":1,"input":{"kind":"frame","port":0}}]}"#,
            "advance",
            "inputs[0].input.bytes",
        ),
        (
            r#"{"type":"outputs","seq":1,"outputs":[{"at":1,"output":{"kind":"event"}}]}"#,
            "outputs",
            "outputs[0].output.event",
        ),
    ];
    for (line, message, field) in cases {
        assert_eq!(
            decode_line(line),
            Err(ProtocolError::MissingField { message: message.into(), field: field.into() }),
            "{line}"
        );
    }
    assert_eq!(
        decode_line(r#"{"type":"advance","until":5,"inputs":[]}"#).unwrap_err().to_string(),
        "advance: missing field `seq`"
    );
    // A device's hello without a name decodes; it is refused when read as a device's.
    let Message::Hello(h) =
        decode_line(r#"{"type":"hello","version":1,"capabilities":[]}"#).unwrap()
    else {
        panic!()
    };
    assert_eq!(h.device_info().unwrap_err().to_string(), "hello: missing field `name`");
}

#[test]
fn bad_fields_are_named() {
    let e = decode_line(
        r#"{"type":"advance","seq":1,"until":5,"inputs":[{"at":1,"input":{"kind":"frame","port":0,"bytes":"abc"}}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "advance: field `inputs[0].input.bytes`: hex bytes: odd number of digits"
    );
    let e = decode_line(r#"{"type":"advance","seq":"one","until":5,"inputs":[]}"#).unwrap_err();
    assert_eq!(
        e,
        ProtocolError::BadField {
            message: "advance".into(),
            field: "seq".into(),
            reason: "invalid type: string \"one\", expected u64".into(),
        }
    );
    let e = decode_line(
        r#"{"type":"advance","seq":1,"until":5,"inputs":[{"at":1,"input":{"kind":"smoke"}}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "advance: field `inputs[0].input.kind`: unknown input kind \"smoke\""
    );
    let e = decode_line(r#"{"type":"outputs","seq":1,"outputs":[7]}"#).unwrap_err();
    assert_eq!(e.to_string(), "outputs: field `outputs[0]`: expected an object, found a number");
    let e = decode_line(r#"{"type":7}"#).unwrap_err();
    assert_eq!(e.to_string(), "?: field `type`: expected a string, found a number");
}

/// CONF-ADP-001: a line that is not UTF-8, not JSON or not an object is a protocol error;
/// CONF-ADP-003: so is a `type` the protocol does not know.
#[test]
fn garbage_and_truncation_give_positions() {
    assert_eq!(
        decode_line("hello world"),
        Err(ProtocolError::Json { line: 1, column: 1, reason: "expected value".into() })
    );
    let cut = r#"{"type":"outputs","seq":1,"outp"#;
    assert_eq!(
        decode_line(cut),
        Err(ProtocolError::Json {
            line: 1,
            column: cut.len(),
            reason: "EOF while parsing a string".into()
        })
    );
    let cut = r#"{"type":"outputs","seq":1,"#;
    assert_eq!(
        decode_line(cut).unwrap_err().to_string(),
        format!("not JSON, at line 1, column {}: EOF while parsing a value", cut.len())
    );
    assert_eq!(decode_line("[1,2]"), Err(ProtocolError::NotObject));
    assert_eq!(decode_line(r#"{"seq":1}"#), Err(ProtocolError::MissingType));
    assert_eq!(
        decode_line(r#"{"type":"reboot"}"#).unwrap_err().to_string(),
        "unknown message type \"reboot\""
    );
    assert_eq!(decode_line("   "), Err(ProtocolError::Empty));
    assert_eq!(
        decode_bytes(b"{\"type\":\"fin\xffish\"}"),
        Err(ProtocolError::NotUtf8 { offset: 12 })
    );
}

/// CONF-ADP-001 (and CONF-ADP-018, which names the length among the limits): a line may
/// hold 64 MiB (67108864 bytes), the newline excluded, and no more.
#[test]
fn long_lines_are_refused() {
    assert_eq!(MAX_LINE_LEN, 67_108_864);
    let longest = "x".repeat(MAX_LINE_LEN);
    assert!(
        matches!(decode_line(&longest), Err(ProtocolError::Json { .. })),
        "not refused for its length"
    );
    drop(longest);
    let long = "x".repeat(MAX_LINE_LEN + 1);
    assert_eq!(decode_line(&long), Err(ProtocolError::TooLong { max: MAX_LINE_LEN }));
    assert_eq!(decode_bytes(long.as_bytes()), Err(ProtocolError::TooLong { max: MAX_LINE_LEN }));
}

/// `n` copies of `item`, comma-separated.
fn items(item: &str, n: usize) -> String {
    vec![item; n].join(",")
}

/// A cpu command holding `n` values in all (`CONF-ADP-018` counts each value and key).
fn command_of(n: usize) -> String {
    // The object, `cmd`, `qp_error`, `qpn`, 5, `junk` and its array are 7 values.
    format!(r#"{{"cmd":"qp_error","qpn":5,"junk":[{}]}}"#, items("1", n - 7))
}

/// CONF-ADP-018: what a line costs to decode is bounded, beside its length: arrays and
/// objects nest at most 64 deep (ignored keys included); `inputs`, `outputs` and
/// `capabilities` hold at most 65536 entries; a command, event, manifest or frame's
/// `fields` holds at most 65536 values. At each limit a line decodes; one past it is a
/// protocol error that names the limit.
#[test]
fn conf_adp_018_what_a_line_costs_is_bounded() {
    let err = |line: &str| decode_line(line).expect_err("past the limit").to_string();
    // Depth: the message's own object is the first level.
    let nested = |d: usize| {
        format!(r#"{{"type":"hello","version":1,"x":{}{}}}"#, "[".repeat(d), "]".repeat(d))
    };
    assert!(decode_line(&nested(MAX_DEPTH - 1)).is_ok());
    assert_eq!(decode_line(&nested(MAX_DEPTH)), Err(ProtocolError::TooDeep { max: MAX_DEPTH }));
    assert_eq!(err(&nested(MAX_DEPTH)), "arrays and objects nested deeper than 64");
    // Entries of inputs, outputs and capabilities.
    let input = r#"{"at":0,"input":{"kind":"cpu","command":{"cmd":"qp_error","qpn":5}}}"#;
    let advance = |n: usize| {
        format!(r#"{{"type":"advance","seq":1,"until":1,"inputs":[{}]}}"#, items(input, n))
    };
    let output = r#"{"at":0,"output":{"kind":"frame","port":0,"bytes":"00"}}"#;
    let outputs =
        |n: usize| format!(r#"{{"type":"outputs","seq":1,"outputs":[{}]}}"#, items(output, n));
    let hello = |n: usize| {
        format!(
            r#"{{"type":"hello","version":1,"name":"x","capabilities":[{}]}}"#,
            items(r#""ipv4""#, n)
        )
    };
    let lists: [&dyn Fn(usize) -> String; 3] = [&advance, &outputs, &hello];
    for line in lists {
        assert!(decode_line(&line(MAX_ITEMS)).is_ok(), "{}", &line(1)[..40]);
        let e = err(&line(MAX_ITEMS + 1));
        assert!(e.contains("more than 65536 entries"), "{e}");
    }
    // Values of one command (and so of an event, a manifest or a frame's fields, which the
    // same counter reads).
    let cpu = |n: usize| {
        format!(
            r#"{{"type":"advance","seq":1,"until":1,"inputs":[{{"at":0,"input":{{"kind":"cpu","command":{}}}}}]}}"#,
            command_of(n)
        )
    };
    assert!(decode_line(&cpu(MAX_VALUES)).is_ok());
    let e = err(&cpu(MAX_VALUES + 1));
    assert!(e.contains("more than 65536 values"), "{e}");
    let fields = |n: usize| {
        format!(
            r#"{{"type":"advance","seq":1,"until":1,"inputs":[{{"at":0,"input":{{"kind":"frame","port":0,"bytes":"00","fields":[{}]}}}}]}}"#,
            items("1", n - 1)
        )
    };
    assert!(decode_line(&fields(MAX_VALUES)).is_ok());
    let e = err(&fields(MAX_VALUES + 1));
    assert!(e.contains("more than 65536 values"), "{e}");
}

/// Every example message of the specification's protocol section decodes.
#[test]
fn spec_examples_decode() {
    let text = include_str!("../../spec/conformance.md");
    let mut n = 0;
    let mut in_block = false;
    for line in text.lines() {
        match line.trim() {
            "```json" => in_block = true,
            "```" => in_block = false,
            l if in_block && l.starts_with('{') => {
                decode_line(l).unwrap_or_else(|e| panic!("spec example does not decode: {e}\n{l}"));
                n += 1;
            }
            _ => {}
        }
    }
    assert!(n >= 12, "only {n} examples found");
}

/// The fuzz body never panics: on the examples, every truncation of them, and bytes
/// flipped at every position.
#[test]
fn fuzz_body_never_panics() {
    let text = include_str!("../../spec/conformance.md");
    let mut seeds: Vec<Vec<u8>> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("{\"type\""))
        .map(|l| l.as_bytes().to_vec())
        .collect();
    seeds.push(b"{\"type\":\"advance\",\"seq\":1,\"until\":5,\"inputs\":[{\"at\":1,\"input\":{\"kind\":\"frame\",\"port\":0,\"bytes\":\"00\"}}]}".to_vec());
    let mut x: u32 = 0x1234_5678;
    for s in &seeds {
        for cut in 0..=s.len() {
            fuzz_adapter_decode(&s[..cut]);
        }
        for i in 0..s.len() {
            let mut t = s.clone();
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            t[i] = (x & 0xFF) as u8;
            fuzz_adapter_decode(&t);
        }
    }
    fuzz_adapter_decode(b"");
    fuzz_adapter_decode(&[0xFF; 300]);
    fuzz_adapter_decode("[".repeat(10_000).as_bytes());
}

#[test]
fn frame_fields_hold_the_headers() {
    let s = corpus::all()[0].1();
    let bytes = s
        .records
        .iter()
        .find_map(|r| match (&r.body, r.dir) {
            (Body::Frame { bytes, .. }, Direction::Inject) => Some(bytes.clone()),
            _ => None,
        })
        .expect("a frame");
    let f = frame_fields_json(&bytes);
    for key in ["len", "error", "icrc", "eth", "ipv4", "udp", "bth", "meth", "payload_len"] {
        assert!(f.get(key).is_some(), "no {key} in {f}");
    }
    assert_eq!(f["len"], bytes.len());
    assert_eq!(f["icrc"], "ok");
    assert!(f["bth"]["psn"].is_u64());
}

/// A frame with two tags shows both in `vlans`, outer first, and the outer one in `vlan`,
/// and, as one a receiver discards (ENC-VLAN-002), that rule in `discard`; a frame to take
/// has no `discard` (CONF-ADP-014).
#[test]
fn frame_fields_show_every_tag_and_the_discard() {
    let (sack, _) = sack_and_nack();
    let mut two = sack.clone();
    two["eth"]["ethertype"] = 0x88A8.into();
    two["vlans"] = serde_json::json!([
        {"pcp": 1, "dei": false, "vid": 100, "ethertype": 0x8100},
        {"pcp": 0, "dei": true, "vid": 42, "ethertype": 0x0800},
    ]);
    let bytes = frame_from_fields(&two).expect("two tags build");
    let f = frame_fields_json(&bytes);
    assert_eq!(f["vlans"].as_array().map(Vec::len), Some(2), "{f}");
    assert_eq!(f["vlans"][0]["vid"], 100);
    assert_eq!(f["vlans"][1]["vid"], 42);
    assert_eq!(f["vlan"], f["vlans"][0]);
    assert_eq!(f["discard"], "ENC-VLAN-002");
    // The fields of a frame, given back, build it again, both keys agreeing.
    let mut back = f.clone();
    back["payload"] = "".into();
    assert_eq!(frame_from_fields(&back).as_ref(), Ok(&bytes));
    // Untagged and sound: neither tag key, no discard.
    let plain_bytes = frame_from_fields(&sack).unwrap();
    let plain = frame_fields_json(&plain_bytes);
    assert!(plain.get("vlans").is_none() && plain.get("vlan").is_none(), "{plain}");
    assert!(plain.get("discard").is_none(), "{plain}");
    // The same frame with its ICRC broken is one to discard.
    let mut bad = plain_bytes.clone();
    let n = bad.len();
    bad[n - 1] ^= 1;
    assert_eq!(frame_fields_json(&bad)["discard"], "ICRC-VERIFY-001");
}

/// Bad tags are errors naming the tag and the field (CONF-ADP-016).
#[test]
fn bad_tags_are_named() {
    let (sack, _) = sack_and_nack();
    let with = |vlans: serde_json::Value, vlan: Option<serde_json::Value>| {
        let mut v = sack.clone();
        v["vlans"] = vlans;
        if let Some(t) = vlan {
            v["vlan"] = t;
        }
        v
    };
    let tag = serde_json::json!({"pcp": 0, "dei": false, "vid": 7, "ethertype": 0x0800});
    let cases: Vec<(&str, serde_json::Value, &str)> = vec![
        ("vlans that are not an array", with(5.into(), None), "vlans"),
        ("a tag that is not an object", with(serde_json::json!([tag, 3]), None), "vlans[1]"),
        (
            "a VID beyond 12 bits",
            with(
                serde_json::json!([{"pcp": 0, "dei": false, "vid": 4096, "ethertype": 0x0800}]),
                None,
            ),
            "vlans[0].vid",
        ),
        (
            "a PCP of the wrong type",
            with(
                serde_json::json!([{"pcp": "x", "dei": false, "vid": 1, "ethertype": 0x0800}]),
                None,
            ),
            "vlans[0].pcp",
        ),
        (
            "vlan other than the outer tag of vlans",
            with(
                serde_json::json!([tag]),
                Some(serde_json::json!({"pcp": 0, "dei": false, "vid": 8, "ethertype": 0x0800})),
            ),
            "vlan",
        ),
    ];
    for (what, f, field) in cases {
        match frame_from_fields(&f) {
            Err(FieldsError::Bad { field: got, reason }) => {
                assert_eq!(got, field, "{what}: {reason}");
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    let missing = with(serde_json::json!([{"pcp": 0, "dei": false, "ethertype": 0x0800}]), None);
    assert_eq!(
        frame_from_fields(&missing),
        Err(FieldsError::Missing { field: "vlans[0].vid".into() })
    );
    // An empty list is an untagged frame.
    let none = frame_from_fields(&with(serde_json::json!([]), None)).unwrap();
    assert_eq!(Ok(none), frame_from_fields(&sack));
}

// ---- output frames given as fields (CONF-ADP-015, CONF-ADP-016) -------------------------

/// The fields a device would give for `bytes`: the decoded headers and the payload in hex.
fn fields_of(bytes: &[u8]) -> serde_json::Value {
    let mut f = frame_fields_json(bytes);
    let payload = openrdma_codec::frame::decode(bytes).payload.to_vec();
    f["payload"] = payload.iter().map(|b| format!("{b:02x}")).collect::<String>().into();
    f
}

/// The same fields without any derived field: the runner computes them.
fn without_derived(mut f: serde_json::Value) -> serde_json::Value {
    for (header, keys) in [
        ("ipv4", &["ihl", "total_len", "checksum"][..]),
        ("ipv6", &["payload_len"][..]),
        ("udp", &["length", "checksum"][..]),
        ("bth", &["pad_count"][..]),
    ] {
        if let Some(h) = f.get_mut(header).and_then(|h| h.as_object_mut()) {
            for k in keys {
                h.remove(*k);
            }
        }
    }
    f
}

/// Every frame the reference sends in the corpus, given back as fields, with and without the
/// derived fields, builds the very same bytes (IPv4, IPv6, VLAN; writes with and without
/// TSETH and ImmDt, SACKs, NACKs, ACKs, probes); so does every well-formed frame injected into
/// it, with its derived fields, double-tagged ones included. (Fields carry no pad bytes,
/// which are sent as zero, and no Ethernet padding, so the few injected frames with either
/// are left out.)
#[test]
fn output_frames_as_fields_build_the_same_bytes() {
    let mut n = 0;
    for (name, build) in corpus::all() {
        for r in build().records {
            let Body::Frame { bytes, .. } = &r.body else { continue };
            let d = openrdma_codec::frame::decode(bytes);
            if d.error.is_some()
                || d.icrc != openrdma_codec::frame::IcrcStatus::Ok
                || d.pad.iter().any(|b| *b != 0)
                || !d.eth_padding.is_empty()
            {
                continue;
            }
            let f = fields_of(bytes);
            assert_eq!(frame_from_fields(&f).as_ref(), Ok(bytes), "{name}: {f}");
            // The reference encodes every frame it sends canonically; some injected frames
            // carry other derived values on purpose (no UDP checksum over IPv6).
            if r.dir == Direction::Expect {
                let bare = without_derived(f);
                assert_eq!(frame_from_fields(&bare).as_ref(), Ok(bytes), "{name}: {bare}");
            }
            n += 1;
        }
    }
    assert!(n > 500, "only {n} frames");
}

/// The same through the protocol: an `outputs` message whose frames are fields decodes to
/// the bytes, and so does one whose frames carry both (the bytes win).
#[test]
fn outputs_with_fields_decode_to_bytes() {
    let s = corpus::all().into_iter().find(|(n, _)| *n == "rcv-in-order-v6").unwrap().1();
    let frames: Vec<Vec<u8>> = s
        .records
        .iter()
        .filter(|r| r.dir == Direction::Expect)
        .filter_map(|r| match &r.body {
            Body::Frame { bytes, .. } => Some(bytes.clone()),
            _ => None,
        })
        .collect();
    assert!(frames.len() > 3);
    let outputs: Vec<String> = frames
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let f = if k % 2 == 0 { without_derived(fields_of(b)) } else { fields_of(b) };
            format!(r#"{{"at":{k},"output":{{"kind":"frame","port":1,"fields":{f}}}}}"#)
        })
        .collect();
    let line = format!(r#"{{"type":"outputs","seq":1,"outputs":[{}]}}"#, outputs.join(","));
    let Message::Outputs(o) = decode_line(&line).unwrap() else { panic!("outputs expected") };
    for (w, want) in o.outputs.iter().zip(&frames) {
        let WireOutputKind::Frame { port, bytes, .. } = &w.output else { panic!() };
        assert_eq!((*port, bytes.as_ref()), (1, Some(want)));
    }
    // Both given: the bytes are the frame, the fields are not read (CONF-ADP-014).
    let both = r#"{"type":"outputs","seq":1,"outputs":[{"at":1,"output":{"kind":"frame","port":0,"bytes":"00ff","fields":{"eth":7}}}]}"#;
    let Message::Outputs(o) = decode_line(both).unwrap() else { panic!() };
    let WireOutputKind::Frame { bytes, .. } = &o.outputs[0].output else { panic!() };
    assert_eq!(bytes.as_deref(), Some(&[0x00, 0xff][..]));
    // What decodes encodes again and decodes to the same message.
    let again = serde_json::to_string(&Message::Outputs(o.clone())).unwrap();
    assert_eq!(decode_line(&again).unwrap(), Message::Outputs(o));
}

/// A SACK and a NACK the reference sent, as fields.
fn sack_and_nack() -> (serde_json::Value, serde_json::Value) {
    let s = corpus::all().into_iter().find(|(n, _)| *n == "rcv-window-edges").unwrap().1();
    let mut sack = None;
    let mut nack = None;
    for r in s.records.iter().filter(|r| r.dir == Direction::Expect) {
        if let Body::Frame { bytes, .. } = &r.body {
            let f = without_derived(fields_of(bytes));
            match f["bth"]["opcode"].as_u64() {
                Some(0xDC) => sack = sack.or(Some(f)),
                Some(0xDD) => nack = nack.or(Some(f)),
                _ => {}
            }
        }
    }
    (sack.unwrap(), nack.unwrap())
}

#[test]
fn malformed_output_fields_are_named() {
    let (sack, nack) = sack_and_nack();
    let edit = |base: &serde_json::Value, f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = base.clone();
        f(&mut v);
        v
    };
    let missing = |field: &str| FieldsError::Missing { field: field.into() };
    type Case = (&'static str, serde_json::Value, FieldsError);
    let cases: Vec<Case> = vec![
        (
            "a field that is not derived is left out",
            edit(&sack, &|v| drop(v["ipv4"].as_object_mut().unwrap().remove("ttl"))),
            missing("ipv4.ttl"),
        ),
        (
            "a reserved field is left out",
            edit(&sack, &|v| drop(v["seth"].as_object_mut().unwrap().remove("resv12"))),
            missing("seth.resv12"),
        ),
        (
            "a header the opcode calls for is left out",
            edit(&sack, &|v| drop(v.as_object_mut().unwrap().remove("cc_state"))),
            missing("cc_state"),
        ),
        (
            "no Ethernet header",
            edit(&nack, &|v| v["eth"] = serde_json::Value::Null),
            missing("eth"),
        ),
        (
            "an opcode whose stack differs from the headers given",
            edit(&nack, &|v| v["bth"]["opcode"] = 0xDC.into()),
            missing("seth"),
        ),
    ];
    for (what, f, want) in cases {
        assert_eq!(frame_from_fields(&f), Err(want), "{what}");
    }
    // Errors whose field is named; the reason is free text.
    let bad: Vec<(&str, serde_json::Value, &str)> = vec![
        ("a PSN of the wrong type", edit(&sack, &|v| v["bth"]["psn"] = "one".into()), "bth.psn"),
        (
            "a PSN beyond 24 bits",
            edit(&sack, &|v| v["bth"]["psn"] = (1u64 << 24).into()),
            "bth.psn",
        ),
        ("a DSCP beyond 6 bits", edit(&nack, &|v| v["ipv4"]["dscp"] = 64.into()), "ipv4.dscp"),
        ("a byte field beyond 255", edit(&nack, &|v| v["ipv4"]["ttl"] = 256.into()), "ipv4.ttl"),
        (
            "a MAC address that is not one",
            edit(&nack, &|v| v["eth"]["src"] = "02:00:00:00:01".into()),
            "eth.src",
        ),
        (
            "a header the opcode does not call for",
            edit(&sack, &|v| v["reth"] = serde_json::json!({"va": 0, "rkey": 0, "dma_len": 0})),
            "reth",
        ),
        (
            "a TSETH while BTH ts is false",
            edit(&nack, &|v| {
                v["tseth"] =
                    serde_json::json!({"tx_timestamp": 0, "tsr": false, "resv": 0, "ftype": 1})
            }),
            "tseth",
        ),
        (
            "two IP headers",
            edit(&nack, &|v| {
                v["ipv6"] = serde_json::json!({"version": 6, "traffic_class": 0, "flow_label": 0,
                    "next_header": 17, "hop_limit": 64, "src": "fd00::1", "dst": "fd00::2"})
            }),
            "ipv6",
        ),
        ("no IP header", edit(&nack, &|v| drop(v.as_object_mut().unwrap().remove("ipv4"))), ""),
        ("a header that is not an object", edit(&nack, &|v| v["udp"] = 4791.into()), "udp"),
        ("a payload in bad hex", edit(&nack, &|v| v["payload"] = "0g".into()), "payload"),
        ("a payload that is not a string", edit(&nack, &|v| v["payload"] = 5.into()), "payload"),
        ("fields that are not an object", serde_json::json!([1, 2]), ""),
    ];
    for (what, f, field) in bad {
        match frame_from_fields(&f) {
            Err(FieldsError::Bad { field: got, reason }) => {
                assert_eq!(got, field, "{what}: {reason}");
                assert!(!reason.is_empty(), "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    // Through the protocol, the path starts at the message.
    let f = edit(&sack, &|v| drop(v["bth"].as_object_mut().unwrap().remove("dest_qp")));
    let line = format!(
        r#"{{"type":"outputs","seq":1,"outputs":[{{"at":1,"output":{{"kind":"event","event":{{"event":"report","report":"armed","qpn":1,"snd_una":0}}}}}},{{"at":2,"output":{{"kind":"frame","port":0,"fields":{f}}}}}]}}"#
    );
    assert_eq!(
        decode_line(&line),
        Err(ProtocolError::MissingField {
            message: "outputs".into(),
            field: "outputs[1].output.fields.bth.dest_qp".into()
        })
    );
    let e = decode_line(
        r#"{"type":"outputs","seq":1,"outputs":[{"at":1,"output":{"kind":"frame","port":0}}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "outputs: field `outputs[0].output`: a frame needs `bytes` or `fields`"
    );
    let e = decode_line(
        r#"{"type":"outputs","seq":1,"outputs":[{"at":1,"output":{"kind":"frame","port":0,"fields":"eth"}}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "outputs: field `outputs[0].output.fields`: expected an object, found a string"
    );
}

// ---- serve ------------------------------------------------------------------------------

fn line(m: &Message) -> String {
    serde_json::to_string(m).unwrap()
}

/// The device side of a conversation: CONF-ADP-005, one answer per message, in order;
/// CONF-ADP-004, a hello with a name and kebab-case capabilities; CONF-ADP-001, nothing on
/// the output but messages; CONF-ADP-006 and CONF-ADP-007, outputs that carry the seq of
/// their advance and times within it.
#[test]
fn serve_answers_a_conversation() {
    let s = corpus::all()[0].1();
    let inputs: Vec<String> = s
        .records
        .iter()
        .filter(|r| r.dir == Direction::Inject)
        .take(3)
        .map(|r| {
            let input = r.body.input().expect("an inject record holds an input");
            let w = openrdma_conformance::protocol::WireInput::from_input(
                TimedInput { at: r.at, input },
                true,
            );
            serde_json::to_string(&w).unwrap()
        })
        .collect();
    let until = s.records.iter().map(|r| r.at.0).max().unwrap() + 100_000;
    let script = [
        r#"{"type":"hello","version":1,"runner":"test"}"#.to_string(),
        line(&Message::Start { manifest: Box::new(s.manifest.clone()) }),
        format!(r#"{{"type":"advance","seq":1,"until":{until},"inputs":[{}]}}"#, inputs.join(",")),
        r#"{"type":"finish"}"#.to_string(),
    ]
    .join("\n")
        + "\n";
    let mut out = Vec::new();
    let mut dev = ReferenceDevice::new();
    serve(&mut dev, Cursor::new(script), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.ends_with('\n'));
    assert!(text.lines().next().unwrap().contains(r#""per-qp-retirement""#), "{text}");
    let answers: Vec<Message> = text.lines().map(|l| decode_line(l).unwrap()).collect();
    let Message::Outputs(o) = &answers[2] else { panic!() };
    assert_eq!(o.seq, 1);
    assert!(!o.outputs.is_empty() && o.outputs.iter().all(|w| w.at.0 <= until));
    let types: Vec<&str> = answers.iter().map(Message::type_name).collect();
    assert_eq!(types, ["hello", "started", "outputs", "finished"]);
    let Message::Hello(h) = &answers[0] else { panic!() };
    let info = h.device_info().unwrap();
    assert_eq!(info.name, "reference");
    assert_eq!(info.capabilities, dev.capabilities());
}

fn serve_script(script: &str) -> (Result<(), ServeError>, Vec<String>) {
    let mut script = script.to_string();
    if !script.is_empty() && !script.ends_with('\n') {
        script.push('\n');
    }
    let mut out = Vec::new();
    let r = serve(&mut ReferenceDevice::new(), Cursor::new(script), &mut out);
    (r, String::from_utf8(out).unwrap().lines().map(String::from).collect())
}

/// CONF-ADP-012: a device that receives a message breaking the protocol answers `error`
/// naming what is wrong, and stops: a hello of another version, a message out of its
/// place, a wrong seq (CONF-ADP-006), time going back (CONF-DEV-003), garbage.
#[test]
fn serve_stops_on_protocol_errors() {
    let hello = r#"{"type":"hello","version":1}"#;
    let start = line(&Message::Start { manifest: Box::new(manifest()) });
    let cases = [
        (
            r#"{"type":"hello","version":9}"#.to_string(),
            "adapter protocol version 9 is not spoken here; supported: 1",
        ),
        (r#"{"type":"finish"}"#.to_string(), "expected hello, got finish"),
        (
            format!("{hello}\n{{\"type\":\"advance\",\"seq\":1,\"until\":1,\"inputs\":[]}}"),
            "expected start, got advance",
        ),
        (
            format!(
                "{hello}\n{start}\n{{\"type\":\"advance\",\"seq\":2,\"until\":1,\"inputs\":[]}}"
            ),
            "advance: seq 2, expected 1",
        ),
        (
            format!(
                "{hello}\n{start}\n{{\"type\":\"advance\",\"seq\":1,\"until\":9,\"inputs\":[]}}\n{{\"type\":\"advance\",\"seq\":2,\"until\":8,\"inputs\":[]}}"
            ),
            "advance: until 8 is before the previous until 9",
        ),
        (format!("{hello}\ngarbage"), "not JSON, at line 1, column 1: expected value"),
        (
            format!("{hello}\n{{\"type\":\"started\"}}"),
            "expected start, advance or finish, got started",
        ),
    ];
    for (script, want) in cases {
        let (r, lines) = serve_script(&script);
        let e = r.expect_err(&script);
        assert_eq!(e.to_string(), format!("the runner broke the adapter protocol: {want}"));
        let last = decode_line(lines.last().unwrap()).unwrap();
        assert_eq!(last, Message::Error { message: want.to_string() }, "{script}");
    }
    // The end of the input ends serving, anywhere.
    assert!(serve_script("").0.is_ok());
    assert!(serve_script(&format!("{hello}\n{start}\n")).0.is_ok());
    // A line cut by the end of the input is an error.
    let cut = format!("{hello}\n{{\"type\":\"fin");
    let r = serve(&mut ReferenceDevice::new(), Cursor::new(cut), &mut Vec::new());
    assert!(matches!(r, Err(ServeError::Protocol(ProtocolError::Unterminated { len: 12 }))));
}

/// CONF-ADP-008: a device takes `start` at any time after hello, ending the scenario that
/// was running (CONF-DEV-004: with nothing kept from it), and, CONF-ADP-009, takes the next
/// `start` after it answered `error` or `unsupported`.
#[test]
fn start_ends_the_running_scenario() {
    let a = corpus::all().into_iter().find(|(n, _)| *n == "snd-single-loss").unwrap().1();
    let b = corpus::all().into_iter().find(|(n, _)| *n == "rcv-in-order-v4").unwrap().1();
    let advance = |s: &openrdma_device::Scenario, seq: u64| {
        let inputs: Vec<String> = s
            .records
            .iter()
            .filter(|r| r.dir == Direction::Inject)
            .filter_map(|r| {
                let input = r.body.input()?;
                let w = openrdma_conformance::protocol::WireInput::from_input(
                    TimedInput { at: r.at, input },
                    false,
                );
                Some(serde_json::to_string(&w).unwrap())
            })
            .take(6)
            .collect();
        format!(
            r#"{{"type":"advance","seq":{seq},"until":500000,"inputs":[{}]}}"#,
            inputs.join(",")
        )
    };
    let hello = r#"{"type":"hello","version":1,"runner":"test"}"#.to_string();
    let start = |s: &openrdma_device::Scenario| {
        line(&Message::Start { manifest: Box::new(s.manifest.clone()) })
    };
    let fresh = [hello.clone(), start(&b), advance(&b, 1)].join("\n") + "\n";
    let after =
        [hello.clone(), start(&a), advance(&a, 1), start(&b), advance(&b, 1)].join("\n") + "\n";
    let (r, fresh) = serve_script(&fresh);
    r.unwrap();
    let (r, after) = serve_script(&after);
    r.unwrap();
    assert_eq!(after[3], r#"{"type":"started"}"#);
    assert_eq!(after.last(), fresh.last(), "the second scenario keeps nothing of the first");
    // A device that failed takes the next start.
    struct Failing(ReferenceDevice, bool);
    impl Device for Failing {
        fn name(&self) -> String {
            "failing".into()
        }
        fn capabilities(&self) -> std::collections::BTreeSet<openrdma_device::Capability> {
            self.0.capabilities()
        }
        fn start(&mut self, m: &Manifest) -> Result<(), DeviceError> {
            self.0.start(m)
        }
        fn advance(
            &mut self,
            inputs: Vec<TimedInput>,
            until: Timestamp,
        ) -> Result<Vec<openrdma_device::TimedOutput>, DeviceError> {
            if std::mem::replace(&mut self.1, false) {
                return Err(DeviceError::Unsupported("not this one".into()));
            }
            self.0.advance(inputs, until)
        }
    }
    let script = [hello, start(&b), advance(&b, 1), start(&b), advance(&b, 1)].join("\n") + "\n";
    let mut out = Vec::new();
    serve(&mut Failing(ReferenceDevice::new(), true), Cursor::new(script), &mut out).unwrap();
    let types: Vec<String> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| decode_line(l).unwrap().type_name().to_string())
        .collect();
    assert_eq!(types, ["hello", "started", "unsupported", "started", "outputs"]);
}

/// CONF-ADP-013: frame bytes, and payload bytes in events, are written as hexadecimal
/// strings, two digits per byte, and read in either case; anything else is refused.
#[test]
fn bytes_are_hex_two_digits_per_byte_in_either_case() {
    let dma = r#"{"event":"dma_write","qpn":17,"psn":0,"msn":0,"va":4096,"payload":{"bytes":"00ABff10"}}"#;
    let line = format!(
        r#"{{"type":"outputs","seq":1,"outputs":[{{"at":1,"output":{{"kind":"frame","port":0,"bytes":"0A0bFf"}}}},{{"at":1,"output":{{"kind":"event","event":{dma}}}}}]}}"#
    );
    let Message::Outputs(o) = decode_line(&line).unwrap() else { panic!() };
    let WireOutputKind::Frame { bytes, .. } = &o.outputs[0].output else { panic!() };
    assert_eq!(bytes.as_deref(), Some(&[0x0A, 0x0B, 0xFF][..]));
    let written = serde_json::to_string(&Message::Outputs(o)).unwrap();
    assert!(written.contains(r#""bytes":"0a0bff""#), "{written}");
    assert!(written.contains(r#""bytes":"00abff10""#), "{written}");
    let input = r#"{"type":"advance","seq":1,"until":5,"inputs":[{"at":1,"input":{"kind":"frame","port":0,"bytes":"DEADbeef"}}]}"#;
    let Message::Advance(a) = decode_line(input).unwrap() else { panic!() };
    let openrdma_conformance::protocol::WireInputKind::Frame { bytes, .. } = &a.inputs[0].input
    else {
        panic!()
    };
    assert_eq!(bytes, &[0xDE, 0xAD, 0xBE, 0xEF]);
    // Not two hexadecimal digits per byte: an odd count, a sign, a space, a prefix.
    for bad in ["abc", "+f", " f", "0x", "g0"] {
        let frame = line.replace("0A0bFf", bad);
        assert!(decode_line(&frame).is_err(), "frame bytes {bad:?} accepted");
        let event = line.replace("00ABff10", bad);
        assert!(decode_line(&event).is_err(), "payload bytes {bad:?} accepted");
    }
}

// ---- the process adapter ----------------------------------------------------------------

#[cfg(unix)]
mod process {
    use super::*;
    use openrdma_conformance::process::{ProcessDevice, ProcessOptions};

    const HELLO: &str =
        r#"{"type":"hello","version":1,"name":"script","capabilities":["responder","telepathy"]}"#;

    /// A device played by `sh -c`, answering each message it reads with the next line of
    /// `answers`, then running `then`.
    fn script(answers: &[&str], then: &str) -> Vec<String> {
        let mut s = String::new();
        for a in answers {
            s.push_str("read l; echo '");
            s.push_str(a);
            s.push_str("'; ");
        }
        s.push_str(then);
        vec!["sh".into(), "-c".into(), s]
    }

    fn opts(ms: u64) -> ProcessOptions {
        ProcessOptions {
            timeout: Duration::from_millis(ms),
            pass_stderr: false,
            stderr_tail: 5,
            ..ProcessOptions::default()
        }
    }

    fn spawn(answers: &[&str], then: &str, ms: u64) -> Result<ProcessDevice, DeviceError> {
        ProcessDevice::spawn_with(&script(answers, then), opts(ms))
    }

    /// CONF-ADP-018.b: a device's line past a limit is a protocol error naming the limit,
    /// and the scenario fails with it as its reason: kind `protocol`, no divergence.
    #[test]
    fn conf_adp_018_b_a_line_past_a_limit_fails_the_scenario() {
        use openrdma_conformance::report::{DeviceFailureKind, run_one};
        const DEV: &str = r#"{"type":"hello","version":1,"name":"dev","capabilities":["responder","requester","retirement","ipv4","ipv6"]}"#;
        let output = r#"{"at":0,"output":{"kind":"frame","port":0,"bytes":"00"}}"#;
        let (d, n) = (MAX_DEPTH, MAX_ITEMS + 1);
        let cases = [
            (
                format!(
                    r#"{{"type":"outputs","seq":1,"outputs":[],"x":{}{}}}"#,
                    "[".repeat(d),
                    "]".repeat(d)
                ),
                "nested deeper than 64",
            ),
            (
                format!(r#"{{"type":"outputs","seq":1,"outputs":[{}]}}"#, items(output, n)),
                "more than 65536 entries",
            ),
            (
                format!(
                    r#"{{"type":"outputs","seq":1,"outputs":[{{"at":0,"output":{{"kind":"frame","port":0,"fields":[{}]}}}}]}}"#,
                    items("1", MAX_VALUES)
                ),
                "more than 65536 values",
            ),
        ];
        let s = corpus::all()
            .into_iter()
            .find(|(name, _)| *name == "rcv-psn-wrap")
            .map(|(_, b)| b())
            .expect("the scenario");
        let spec = openrdma_conformance::requirements::Spec::bundled().unwrap();
        for (k, (line, says)) in cases.into_iter().enumerate() {
            let path = std::env::temp_dir()
                .join(format!("openrdma-adp-018-{}-{k}.jsonl", std::process::id()));
            std::fs::write(&path, format!("{line}\n")).unwrap();
            let script = format!(
                "read l; echo '{DEV}'; read l; echo '{{\"type\":\"started\"}}'; read l; cat '{}'; exec cat >/dev/null",
                path.display()
            );
            let cmd = vec!["sh".to_string(), "-c".to_string(), script];
            let mut dev = ProcessDevice::spawn_with(&cmd, opts(30_000)).unwrap();
            let r = run_one(&mut dev, openrdma_sm::reference_cpu_half, &s, &spec);
            let _ = std::fs::remove_file(&path);
            let e = r.error.expect("a device failure");
            assert_eq!(e.kind, DeviceFailureKind::Protocol, "{says}: {}", e.message);
            assert!(e.message.contains(says), "{says}: {}", e.message);
            assert_eq!((r.divergences, r.first_divergence), (0, None), "{says}");
        }
    }

    /// CONF-ADP-004: the runner takes the device's name and capabilities from its hello,
    /// and ignores a capability name it does not know.
    #[test]
    fn hello_gives_name_and_capabilities() {
        let dev = spawn(&[HELLO], "exec cat >/dev/null", 5_000).unwrap();
        assert_eq!(dev.name(), "script");
        let caps: Vec<_> = dev.capabilities().into_iter().collect();
        assert_eq!(caps, [openrdma_device::Capability::Responder]);
        assert_eq!(dev.info().unknown_capabilities, ["telepathy"]);
        assert!(dev.close().unwrap().success());
    }

    /// CONF-ADP-010: the runner waits for every answer at most the deadline, then reports
    /// the failure and kills the device.
    #[test]
    fn a_silent_device_times_out() {
        let t = Instant::now();
        let e = spawn(&[], "exec sleep 30", 300).unwrap_err();
        assert_eq!(e, DeviceError::Timeout { what: "hello".into(), after_ms: 300 });
        assert!(t.elapsed() < Duration::from_secs(5));
        // A device that says hello, then hangs: the start times out, and is named.
        let mut dev = spawn(&[HELLO], "exec sleep 30", 300).unwrap();
        let pid = dev.pid().unwrap();
        let e = dev.start(&manifest()).unwrap_err();
        let DeviceError::Timeout { what, after_ms } = &e else { panic!("{e:?}") };
        assert_eq!(*after_ms, 300);
        assert!(what.contains("start") && what.contains("started"), "{what}");
        assert_eq!(e.to_string(), format!("device timed out after 300 ms waiting for {what}"));
        // The hung child was killed.
        assert!(dev.pid().is_none());
        #[cfg(target_os = "linux")]
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
        let _ = pid;
    }

    #[test]
    fn a_device_that_exits_early_fails_with_its_status() {
        let e = spawn(&[], "echo 'no FPGA found' >&2; exit 3", 5_000).unwrap_err();
        let DeviceError::Failed(msg) = &e else { panic!("{e:?}") };
        assert!(msg.contains("exit status: 3"), "{msg}");
        assert!(msg.contains("while the runner waited for hello"), "{msg}");
        assert!(msg.contains("no FPGA found"), "{msg}");
        // After the hello, during a scenario.
        let mut dev = spawn(&[HELLO], "read l; echo dying >&2; exit 4", 5_000).unwrap();
        let e = dev.start(&manifest()).unwrap_err();
        let DeviceError::Failed(msg) = &e else { panic!("{e:?}") };
        assert!(msg.contains("exit status: 4") && msg.contains("dying"), "{msg}");
    }

    /// CONF-ADP-002: a device that does not speak the runner's version answers `error`,
    /// and a hello of another version is refused.
    #[test]
    fn version_refusal_is_reported() {
        let e = spawn(
            &[r#"{"type":"error","message":"this harness speaks adapter protocol version 3"}"#],
            "exit 2",
            5_000,
        )
        .unwrap_err();
        assert_eq!(
            e,
            DeviceError::Protocol(
                "the device refused the handshake for adapter protocol version 1: this harness \
                 speaks adapter protocol version 3"
                    .into()
            )
        );
        let e = spawn(
            &[r#"{"type":"hello","version":3,"name":"x","capabilities":[]}"#],
            "exec cat >/dev/null",
            5_000,
        )
        .unwrap_err();
        assert_eq!(
            e,
            DeviceError::Protocol(
                "line 1 of the device's output, waiting for hello: adapter protocol version 3 \
                 is not spoken here; supported: 1"
                    .into()
            )
        );
    }

    /// CONF-ADP-005: an answer other than those allowed is a protocol error; CONF-ADP-006:
    /// so is a wrong seq; CONF-ADP-007: so is an output outside its batch. CONF-ADP-010:
    /// after a protocol error the device is killed.
    #[test]
    fn malformed_and_out_of_order_answers_are_protocol_errors() {
        let e = spawn(&["garbage"], "exec cat >/dev/null", 5_000).unwrap_err();
        assert_eq!(
            e,
            DeviceError::Protocol(
                "line 1 of the device's output, waiting for hello: not JSON, at line 1, \
                 column 1: expected value"
                    .into()
            )
        );
        let mut dev =
            spawn(&[HELLO, r#"{"type":"finished"}"#], "exec cat >/dev/null", 5_000).unwrap();
        assert_eq!(
            dev.start(&manifest()),
            Err(DeviceError::Protocol(format!(
                "line 2 of the device's output, waiting for the answer to start {:?} (started): \
                 expected started, unsupported or error, got finished",
                manifest().name
            )))
        );
        let mut dev = spawn(
            &[HELLO, r#"{"type":"started"}"#, r#"{"type":"outputs","seq":7,"outputs":[]}"#],
            "exec cat >/dev/null",
            5_000,
        )
        .unwrap();
        dev.start(&manifest()).unwrap();
        assert_eq!(
            dev.advance(vec![], Timestamp(10)),
            Err(DeviceError::Protocol(
                "line 3 of the device's output, waiting for the answer to advance seq 1 \
                 (outputs): outputs: seq 7, expected 1"
                    .into()
            ))
        );
        let mut dev = spawn(
            &[
                HELLO,
                r#"{"type":"started"}"#,
                r#"{"type":"outputs","seq":1,"outputs":[{"at":11,"output":{"kind":"frame","port":0,"bytes":"00"}}]}"#,
            ],
            "exec cat >/dev/null",
            5_000,
        )
        .unwrap();
        dev.start(&manifest()).unwrap();
        assert_eq!(
            dev.advance(vec![], Timestamp(10)),
            Err(DeviceError::Protocol(
                "line 3 of the device's output, waiting for the answer to advance seq 1 \
                 (outputs): outputs: outputs[0].at 11 is outside the batch [0, 10] of seq 1"
                    .into()
            ))
        );
        assert!(dev.pid().is_none(), "the device is killed after a protocol error");
    }

    /// CONF-ADP-019.b: a scenario holds a bounded number of outputs, all batches together; the
    /// answer that goes past it is a protocol error naming the count and the limit, and a new
    /// `start` begins the count again.
    #[test]
    fn conf_adp_019_the_outputs_of_a_scenario_are_bounded() {
        assert_eq!(ProcessOptions::default().max_outputs, 1 << 20);
        let out = |seq: u64, at: u64, n: usize| {
            let one = format!(r#"{{"at":{at},"output":{{"kind":"frame","port":0,"bytes":"00"}}}}"#);
            format!(r#"{{"type":"outputs","seq":{seq},"outputs":[{}]}}"#, items(&one, n))
        };
        let (first, again, past) = (out(1, 5, 3), out(1, 5, 3), out(2, 10, 2));
        let answers =
            [HELLO, r#"{"type":"started"}"#, &first, r#"{"type":"started"}"#, &again, &past];
        let opts = ProcessOptions { max_outputs: 4, ..opts(5_000) };
        let mut dev =
            ProcessDevice::spawn_with(&script(&answers, "exec cat >/dev/null"), opts).unwrap();
        dev.start(&manifest()).unwrap();
        assert_eq!(dev.advance(vec![], Timestamp(10)).unwrap().len(), 3);
        dev.start(&manifest()).unwrap();
        assert_eq!(dev.advance(vec![], Timestamp(10)).unwrap().len(), 3);
        assert_eq!(
            dev.advance(vec![], Timestamp(20)),
            Err(DeviceError::Protocol(
                "line 6 of the device's output, waiting for the answer to advance seq 2 \
                 (outputs): 5 outputs in the scenario, past the limit of 4"
                    .into()
            ))
        );
        assert!(dev.pid().is_none(), "the device is killed after a protocol error");
    }

    /// CONF-ADP-009: `unsupported` makes the scenario unsupported and `error` a failure,
    /// and the device then takes the next `start`.
    #[test]
    fn unsupported_and_error_answers_map() {
        let mut dev = spawn(
            &[
                HELLO,
                r#"{"type":"unsupported","reason":"no IPv6 on this board"}"#,
                r#"{"type":"started"}"#,
                r#"{"type":"error","message":"DMA engine stuck"}"#,
            ],
            "exec cat >/dev/null",
            5_000,
        )
        .unwrap();
        assert_eq!(
            dev.start(&manifest()),
            Err(DeviceError::Unsupported("no IPv6 on this board".into()))
        );
        dev.start(&manifest()).unwrap();
        assert_eq!(
            dev.advance(vec![], Timestamp(10)),
            Err(DeviceError::Failed("DMA engine stuck".into()))
        );
    }

    /// A device that gives its frames as fields: the runner builds them; a field missing
    /// ends the conversation as a protocol error that names it.
    #[test]
    fn frames_given_as_fields_reach_the_scoreboard_as_bytes() {
        let (sack, _) = sack_and_nack();
        let want = frame_from_fields(&sack).unwrap();
        let good = format!(
            r#"{{"type":"outputs","seq":1,"outputs":[{{"at":5,"output":{{"kind":"frame","port":2,"fields":{sack}}}}}]}}"#
        );
        let mut dev =
            spawn(&[HELLO, r#"{"type":"started"}"#, &good], "exec cat >/dev/null", 5_000).unwrap();
        dev.start(&manifest()).unwrap();
        let out = dev.advance(vec![], Timestamp(10)).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].output, openrdma_device::Output::Frame { port: 2, bytes: want });
        let mut broken = sack.clone();
        broken["seth"].as_object_mut().unwrap().remove("cack_psn");
        let bad = good.replace(&sack.to_string(), &broken.to_string());
        let mut dev =
            spawn(&[HELLO, r#"{"type":"started"}"#, &bad], "exec cat >/dev/null", 5_000).unwrap();
        dev.start(&manifest()).unwrap();
        let e = dev.advance(vec![], Timestamp(10)).unwrap_err();
        let DeviceError::Protocol(msg) = &e else { panic!("{e:?}") };
        assert!(
            msg.ends_with("outputs: missing field `outputs[0].output.fields.seth.cack_psn`"),
            "{msg}"
        );
    }

    /// CONF-ADP-011: dropping the device closes its input and kills a child that does not
    /// exit shortly after.
    #[test]
    fn drop_kills_a_child_that_stays() {
        let dev = spawn(&[HELLO], "exec sleep 30", 5_000).unwrap();
        let pid = dev.pid().unwrap();
        let t = Instant::now();
        drop(dev);
        assert!(t.elapsed() < Duration::from_secs(5));
        #[cfg(target_os = "linux")]
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
        let _ = pid;
    }

    /// CONF-ADP-010: after a timeout the child is killed and the next scenario starts it
    /// again, with a new hello.
    #[test]
    fn a_hung_device_is_restarted_for_the_next_scenario() {
        let dir = std::env::temp_dir().join(format!("openrdma-restart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let flag = dir.join("hung-once");
        let _ = std::fs::remove_file(&flag);
        // The first run hangs at start; later runs answer it.
        let body = format!(
            "read l; echo '{HELLO}'; read l; if [ -e '{f}' ]; then echo '{{\"type\":\"started\"}}'; exec cat >/dev/null; else touch '{f}'; exec sleep 30; fi",
            f = flag.display()
        );
        let cmd = vec!["sh".to_string(), "-c".to_string(), body];
        let mut dev = ProcessDevice::spawn_with(&cmd, opts(500)).unwrap();
        let first = dev.pid();
        assert!(matches!(dev.start(&manifest()), Err(DeviceError::Timeout { .. })));
        dev.start(&manifest()).unwrap();
        assert_ne!(dev.pid(), first);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A device whose first run plays `broken` after hello and whose later runs answer
    /// `start` and then read on: the flag file tells them apart.
    fn once(name: &str, broken: &str) -> (Vec<String>, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("openrdma-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let flag = dir.join("once");
        let _ = std::fs::remove_file(&flag);
        let body = format!(
            "if [ -e '{f}' ]; then read l; echo '{HELLO}'; read l; echo '{{\"type\":\"started\"}}'; exec cat >/dev/null; fi; touch '{f}'; {broken}",
            f = flag.display()
        );
        (vec!["sh".to_string(), "-c".to_string(), body], dir)
    }

    /// CONF-ADP-020: a second `finished`, read when the next scenario starts, fails the
    /// scenario that finished, by CONF-ADP-005, and the next starts on a fresh device.
    #[test]
    fn conf_adp_020_a_second_finished_fails_its_own_scenario() {
        let finished = r#"{"type":"finished"}"#;
        let (cmd, dir) = once(
            "finished-twice",
            &format!(
                "read l; echo '{HELLO}'; read l; echo '{{\"type\":\"started\"}}'; read l; echo '{finished}'; echo '{finished}'; exec cat >/dev/null"
            ),
        );
        let mut dev = ProcessDevice::spawn_with(&cmd, opts(5000)).unwrap();
        let first = dev.pid();
        dev.start(&manifest()).unwrap();
        dev.finish().unwrap();
        assert!(dev.take_late_error().is_none());
        dev.start(&manifest()).unwrap();
        assert_ne!(dev.pid(), first, "the next scenario runs on a fresh device");
        let Some((name, DeviceError::Protocol(msg))) = dev.take_late_error() else {
            panic!("the second finished was not blamed on its scenario");
        };
        assert_eq!(name, manifest().name);
        assert!(msg.contains("line 4 of the device's output"), "{msg}");
        assert!(msg.contains("a second finished, answering finish of scenario"), "{msg}");
        assert!(msg.contains("CONF-ADP-005"), "{msg}");
        assert!(dev.take_late_error().is_none(), "taken once");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// CONF-ADP-020: a second `hello` fails the scenario whose `start` reads it, by
    /// CONF-ADP-005, and the next starts on a fresh device.
    #[test]
    fn conf_adp_020_a_second_hello_fails_the_scenario_that_reads_it() {
        let (cmd, dir) = once(
            "hello-twice",
            &format!("read l; echo '{HELLO}'; echo '{HELLO}'; exec cat >/dev/null"),
        );
        let mut dev = ProcessDevice::spawn_with(&cmd, opts(5000)).unwrap();
        let first = dev.pid();
        let Err(DeviceError::Protocol(msg)) = dev.start(&manifest()) else {
            panic!("a second hello was taken");
        };
        assert!(msg.contains("a second hello, answering hello again"), "{msg}");
        assert!(msg.contains("CONF-ADP-005"), "{msg}");
        dev.start(&manifest()).unwrap();
        assert_ne!(dev.pid(), first);
        assert!(dev.take_late_error().is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

// ---- completion entries given as bytes (CONF-ADP-017) -----------------------------------

/// A completion written to a queue is its 32 bytes: `entry` may be left out, and beside the
/// bytes it is not what is judged; a completion needs one of the two, and exactly 32 bytes
/// (CONF-ADP-017). So a harness that presents an entry with other than the slot's 32 bytes
/// (CONF-DEV-006) ends the scenario with a protocol error.
#[test]
fn completion_bytes_are_the_entry() {
    use openrdma_codec::host::{CompletionRepr, CompletionStatus};
    use openrdma_device::NicEvent;
    let bytes = "000100000000000000000400110000004000000000000000b80b000000000001";
    let queue = format!(r#""queue":{{"cq":1,"slot":0,"addr":1342177280,"bytes":"{bytes}"}}"#);
    let e: NicEvent =
        serde_json::from_str(&format!(r#"{{"event":"completion","side":"requester",{queue}}}"#))
            .expect("bytes alone");
    let NicEvent::Completion(c) = e else { panic!("{e:?}") };
    let want = CompletionRepr {
        wr_id: 0x100,
        status: CompletionStatus::SUCCESS,
        qpn: openrdma_codec::Qpn::new(0x11),
        byte_len: 64,
        ..CompletionRepr::default()
    }
    .with_timestamp(3000)
    .with_phase(true);
    assert_eq!(c.entry, want, "the entry decoded from the bytes");
    assert_eq!(c.written_entry(), want);
    // Beside the bytes, `entry` is what the device says, not what it wrote.
    let other = serde_json::to_string(&CompletionRepr { byte_len: 7, ..want }).unwrap();
    let e: NicEvent = serde_json::from_str(&format!(
        r#"{{"event":"completion","side":"requester","entry":{other},{queue}}}"#
    ))
    .expect("both");
    let NicEvent::Completion(c) = e else { panic!("{e:?}") };
    assert_eq!((c.entry.byte_len, c.written_entry().byte_len), (7, 64));
    // Round trip of the model's own form.
    let json = serde_json::to_string(&NicEvent::Completion(c)).unwrap();
    assert_eq!(serde_json::from_str::<NicEvent>(&json).unwrap(), NicEvent::Completion(c));
    for bad in [
        r#"{"event":"completion","side":"requester"}"#.to_string(),
        format!(
            r#"{{"event":"completion","side":"requester","queue":{{"cq":1,"slot":0,"addr":0,"bytes":"{}"}}}}"#,
            &bytes[..62]
        ),
    ] {
        let line = format!(
            r#"{{"type":"outputs","seq":1,"outputs":[{{"at":0,"output":{{"kind":"event","event":{bad}}}}}]}}"#
        );
        let e = decode_line(&line).expect_err("not a completion");
        assert!(e.to_string().contains("event"), "{e}");
    }
}
