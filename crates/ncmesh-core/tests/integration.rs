//! The integration tests: whole runs through the public API, one module per subject.
//!
//! They are one test crate (Cargo.toml: `autotests = false` and one `[[test]]`) rather than
//! one per file, so that the core is linked into one test binary instead of fourteen. Run
//! one subject with a filter on its module: `cargo test --profile test-release -p
//! ncmesh-core --test integration pcap::`.

mod common;

mod aodv;
mod coding_seam;
mod comp;
mod fuzz_scenario;
mod horizon;
mod mac_dcf;
mod mac_udp;
mod modern_tcp;
mod more;
mod pcap;
mod piggycode;
mod pipeline;
mod rlnc_crosscheck;
mod sim_properties;
mod tcpnc;
mod xor_coding;

/// With automatic test discovery off, a new file in tests/ runs only once it is listed
/// above: every file must be.
#[test]
fn every_test_file_is_a_module_of_this_crate() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = include_str!("integration.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let is_module = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
        if is_module && name != "integration" && !this.contains(&format!("\nmod {name};\n")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "not declared in tests/integration.rs: {missing:?}"
    );
}
