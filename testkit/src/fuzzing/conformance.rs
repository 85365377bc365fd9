//! Fuzz bodies of the conformance suite's readers: scenario files and adapter messages.

use openrdma_conformance::file::{
    manifest_to_toml, parse_manifest, read_observed_bytes, read_scenario_bytes, write_scenario,
};
use openrdma_conformance::protocol::{decode_bytes, encode_line, read_line};

/// Scenario loading. `data` is a manifest (TOML), a 0 byte, and a pcapng file; without a 0
/// byte it is all manifest. Reading must never panic; a scenario that reads must write back
/// to bytes that read back equal, and its manifest must go through TOML unchanged. The
/// pcapng part is also read as an observed capture.
pub fn scenario_load(data: &[u8]) {
    let (toml_part, pcapng) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    // Only the absence of a panic matters for an observed capture.
    let _ = read_observed_bytes(pcapng, "fuzz.pcapng");
    let Ok(toml_text) = std::str::from_utf8(toml_part) else { return };
    let Ok(scenario) = read_scenario_bytes(pcapng, toml_text, "fuzz.pcapng", "fuzz.toml") else {
        return;
    };
    let mut written = Vec::new();
    if let Err(e) = write_scenario(&scenario, &mut written) {
        panic!("a scenario that reads cannot be written: {e}");
    }
    match read_scenario_bytes(&written, toml_text, "rewritten.pcapng", "fuzz.toml") {
        Ok(back) => assert_eq!(back, scenario, "the rewritten scenario reads back different"),
        Err(e) => panic!("the rewritten scenario does not read: {e}"),
    }
    let text = manifest_to_toml(&scenario.manifest);
    match parse_manifest(&text, "x.toml") {
        Ok(m) => assert_eq!(m, scenario.manifest, "the manifest changes through TOML"),
        Err(e) => panic!("the written manifest does not read: {e}"),
    }
}

/// Adapter messages. Decoding arbitrary bytes as a line never panics; what decodes encodes
/// again, and decodes again.
pub fn adapter_decode(data: &[u8]) {
    let mut sink = Vec::new();
    // Only the absence of a panic matters for the line reader.
    let _ = read_line(&mut &data[..], &mut sink, 64);
    let Ok(m) = decode_bytes(data) else { return };
    let line = match encode_line(&m) {
        Ok(line) => line,
        Err(e) => panic!("a decoded {} message does not encode: {e}", m.type_name()),
    };
    let again = line.strip_suffix(b"\n").map(decode_bytes);
    assert!(
        matches!(again, Some(Ok(_))),
        "a decoded message does not decode again after encoding: {again:?}"
    );
}
