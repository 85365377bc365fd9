//! Builds `tests/c/scenario_test.c` with the system C compiler (`cc`), against the static
//! and against the shared library, and runs it over every scenario of the corpus, written
//! out in the program's line format. The test fails when the program's checks fail.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{expected_outputs, scenarios};
use openrdma_codec::frame::decode;
use openrdma_device::{Body, Direction, NicEvent, Output, Scenario, Side};

/// The directory holding `libopenrdma.a` and `libopenrdma.so` as built for this test:
/// `target/PROFILE/deps`, this test's own directory (`cargo build` copies them one level
/// up, but `cargo test` does not).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its executable");
    let dir = exe.parent().expect("the test runs from target/PROFILE/deps");
    for lib in ["libopenrdma.a", "libopenrdma.so"] {
        assert!(dir.join(lib).exists(), "{} was not built", dir.join(lib).display());
    }
    dir.to_path_buf()
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::with_capacity(b.len() * 2), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

fn side(s: Side) -> u8 {
    match s {
        Side::Requester => 0,
        Side::Responder => 1,
    }
}

/// A scenario in the C program's line format (see the program's header comment).
fn scenario_text(s: &Scenario) -> String {
    let mut t = String::new();
    writeln!(t, "manifest {}", json(&s.manifest)).unwrap();
    let mut expected = expected_outputs(s).into_iter();
    for r in &s.records {
        let at = r.at.0;
        match (r.dir, &r.body) {
            (Direction::Inject, Body::Host { command }) => {
                writeln!(t, "inject host {at} {}", json(command)).unwrap();
            }
            (Direction::Inject, Body::Cpu { command }) => {
                writeln!(t, "inject cpu {at} {}", json(command)).unwrap();
            }
            (Direction::Inject, Body::Frame { port, bytes }) => {
                writeln!(t, "inject frame {at} {port} {}", hex(bytes)).unwrap();
            }
            (Direction::Expect, _) => {
                let o = expected.next().expect("one output per expect record");
                match o.output {
                    Output::Frame { port, bytes } => {
                        let d = decode(&bytes);
                        let bth = d.bth.expect("an expected frame has a BTH");
                        let seth = d.ext.seth;
                        let neth = d.ext.neth;
                        writeln!(
                            t,
                            "expect frame {at} {port} {} {} {} {} {} {} {} {} {}",
                            bth.opcode.0,
                            bth.dest_qp.value(),
                            bth.psn.value(),
                            u8::from(seth.is_some()),
                            seth.map_or(0, |s| s.cack_psn.value()),
                            seth.map_or(0, |s| s.sack_bitmap),
                            u8::from(neth.is_some()),
                            neth.map_or(0, |n| n.nack_psn.value()),
                            hex(&bytes)
                        )
                        .unwrap();
                    }
                    Output::Event { event } => {
                        let j = json(&event);
                        match &event {
                            NicEvent::DmaWrite(w) => writeln!(
                                t,
                                "expect dma_write {at} {} {} {} {} {} {j}",
                                w.qpn.value(),
                                w.psn.value(),
                                w.msn,
                                w.va,
                                w.payload.len()
                            ),
                            NicEvent::FlagWrite(f) => writeln!(
                                t,
                                "expect flag_write {at} {} {} {} {} {} {j}",
                                f.qpn.value(),
                                side(f.side),
                                f.msn,
                                f.addr,
                                f.value
                            ),
                            NicEvent::Completion(c) => {
                                let e = &c.entry;
                                writeln!(
                                    t,
                                    "expect completion {at} {} {} {} {} {} {} {} {} {} {j}",
                                    e.qpn.value(),
                                    side(c.side),
                                    e.wr_id,
                                    e.status.0,
                                    e.msn,
                                    e.byte_len,
                                    e.imm,
                                    u8::from(e.has_imm),
                                    u8::from(e.is_receive)
                                )
                            }
                            NicEvent::Report(_) => {
                                // An endpoint response concerns no QP; the C ABI gives it
                                // QPN 2, where it arrived.
                                let v: serde_json::Value = serde_json::from_str(&j).unwrap();
                                let qpn = v["qpn"].as_u64().unwrap_or(2);
                                writeln!(t, "expect report {at} {qpn} {j}")
                            }
                        }
                        .unwrap();
                    }
                }
            }
            (dir, body) => panic!("a record {dir:?} {body:?}"),
        }
    }
    let end = s.records.last().map_or(0, |r| r.at.0);
    writeln!(t, "end {end}").unwrap();
    t
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serializes")
}

fn compile(exe: &Path, link: &[&str]) {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-g"])
        .arg("-I")
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("tests/c/scenario_test.c"))
        .arg("-o")
        .arg(exe)
        .args(link)
        .output()
        .expect("the C compiler `cc` runs");
    assert!(
        out.status.success(),
        "cc failed to build {}:\n{}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run(program: &Path, files: &[PathBuf]) {
    // Cargo's LD_LIBRARY_PATH names `target/PROFILE`, where an older `cargo build` may have
    // left another libopenrdma.so; it would take precedence over the program's run path.
    let out = Command::new(program)
        .args(files)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("the C program runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{} failed ({}):\n{stderr}{stdout}",
        program.display(),
        out.status
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    // The example and the error paths alone make well over a hundred checks.
    let passed: u32 = stdout
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("the program prints its count");
    assert!(passed > 100 + files.len() as u32, "only {passed} checks passed");
}

#[test]
fn c_program_drives_the_model_through_the_corpus() {
    let lib = library_dir();
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c-program");
    std::fs::create_dir_all(&work).expect("the test's directory can be made");
    let mut files = Vec::new();
    for (name, s) in scenarios() {
        let path = work.join(format!("{name}.txt"));
        std::fs::write(&path, scenario_text(&s)).expect("a scenario file can be written");
        files.push(path);
    }

    let static_exe = work.join("scenario_test_static");
    let archive = lib.join("libopenrdma.a");
    compile(
        &static_exe,
        &[archive.to_str().expect("UTF-8 path"), "-lpthread", "-ldl", "-lm", "-lrt", "-lutil"],
    );
    run(&static_exe, &files);

    let shared_exe = work.join("scenario_test_shared");
    let dir = lib.to_str().expect("UTF-8 path");
    compile(&shared_exe, &[&format!("-L{dir}"), &format!("-Wl,-rpath,{dir}"), "-lopenrdma"]);
    run(&shared_exe, &files);
}

/// The C example of the README compiles as it stands and prints what the README says.
#[test]
fn readme_example_prints_what_the_readme_says() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md reads");
    let block = |start: &str| {
        let from = readme.find(start).unwrap_or_else(|| panic!("README has {start:?}"));
        let body = &readme[from + start.len()..];
        body[..body.find("```").expect("the block ends")].to_string()
    };
    let program = block("```c\n#include <stdio.h>");
    let printed = block("It prints:\n\n```text\n");
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c-readme");
    std::fs::create_dir_all(&work).expect("the test's directory can be made");
    let source = work.join("example.c");
    std::fs::write(&source, format!("#include <stdio.h>{program}")).expect("writable");
    let exe = work.join("example");
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir().join("libopenrdma.a");
    let out = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir.join("include"))
        .arg(&source)
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-lrt", "-lutil", "-o"])
        .arg(&exe)
        .output()
        .expect("the C compiler `cc` runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).output().expect("the example runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(String::from_utf8_lossy(&run.stdout), printed);
}
