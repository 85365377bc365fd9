//! The committed C header is what cbindgen generates from the crate: a change to the C
//! interface that forgets the header fails here. `OPENRDMA_BLESS=1 cargo test -p
//! openrdma-capi --test header` rewrites it.

use std::path::PathBuf;

#[test]
fn header_is_current() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("capi/cbindgen.toml reads");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");
    let path = crate_dir.join("include/openrdma.h");
    if std::env::var_os("OPENRDMA_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("include/openrdma.h is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "capi/include/openrdma.h is not what cbindgen generates from the crate; \
         run `OPENRDMA_BLESS=1 cargo test -p openrdma-capi --test header` and review the diff"
    );
}
