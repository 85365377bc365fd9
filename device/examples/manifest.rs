//! Checks a scenario manifest the way every device and the suite do before a run: parse it,
//! then list every value the specification refuses, with its key and the rule it breaks.
//!
//! ```text
//! cargo run -p openrdma-device --example manifest -- traces/scenarios/rcv-in-order-v4.toml
//! cargo run -p openrdma-device --example manifest          # a built-in manifest with two faults
//! ```

use openrdma_device::Manifest;

/// A manifest whose path MTU and window size are out of range.
const BROKEN: &str = r#"
name = "two-faults"
description = "a manifest with a bad path MTU and a window of 0"
requirements = ["SND-SEG-001"]

[nic]
pmtu = 1500
mpr = 0
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (source, text) = match std::env::args_os().nth(1) {
        Some(path) => (path.to_string_lossy().into_owned(), std::fs::read_to_string(&path)?),
        None => ("(built-in)".to_string(), BROKEN.to_string()),
    };
    // A scenario is a manifest (`NAME.toml`) beside its records (`NAME.pcapng`).
    let manifest: Manifest = match toml::from_str(&text) {
        Ok(m) => m,
        Err(e) => return Err(format!("{source}: {e}").into()),
    };
    let problems = manifest.problems();
    if problems.is_empty() {
        println!("{source}: manifest `{}` is valid", manifest.name);
        return Ok(());
    }
    for p in &problems {
        println!("{source}: {p}");
    }
    Err(format!("{} value(s) refused", problems.len()).into())
}
