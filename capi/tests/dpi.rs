//! The DPI-C example of the README works: Verilator compiles `tests/dpi/tb.sv`, which
//! imports the library's functions as they are (and one through the open-array shim of
//! `tests/dpi/open_array_shim.c`), links it against the shared library, and runs it; the
//! testbench ends with `$fatal` when the golden model's outputs are not the ones it
//! expects.

use std::path::Path;
use std::process::Command;

#[test]
#[ignore = "needs verilator; run by .ci/run"]
fn systemverilog_testbench_calls_the_library_through_dpi_c() {
    let exe = std::env::current_exe().expect("the test knows its executable");
    // `cargo test` leaves the libraries it built in `target/PROFILE/deps`, beside the test.
    let lib = exe.parent().expect("target/PROFILE/deps");
    assert!(lib.join("libopenrdma.so").exists(), "libopenrdma.so was not built");
    let lib = lib.to_str().expect("UTF-8 path");
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dpi");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("the test's directory can be made");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dpi");

    let build = Command::new("verilator")
        .args(["--binary", "-j", "2", "--Mdir"])
        .arg(work.join("obj"))
        .arg(dir.join("tb.sv"))
        .arg(dir.join("open_array_shim.c"))
        .args(["-LDFLAGS", &format!("-L{lib} -Wl,-rpath,{lib} -lopenrdma"), "-o", "tb"])
        .output()
        .expect("verilator runs (install it: apt-get install verilator)");
    assert!(
        build.status.success(),
        "verilator failed:\n{}{}",
        String::from_utf8_lossy(&build.stdout),
        String::from_utf8_lossy(&build.stderr)
    );

    // Without cargo's LD_LIBRARY_PATH, which may name an older libopenrdma.so.
    let run = Command::new(work.join("obj/tb"))
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("the testbench runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the testbench failed ({}):\n{stdout}{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("SACK, DMA write and flag as expected; duplicate SACKed"), "{stdout}");
}
