//! The independent checker on real inputs: the spec sample and the real trn2 fixture (both
//! subgraphs; skipped with a message when absent unless NEFFKIT_REQUIRE_FIXTURES=1).

mod common;

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::model::{LoadOptions, load};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");
const REAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/fixtures/real/matmul_small.neff"
);

/// Loads `path` and runs the checker on every engine of every subgraph; returns slots checked.
fn check_file(path: &str) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let model = load(&kelf, &LoadOptions::default()).unwrap();
    let kbins = kelf.kbins().unwrap();
    let mut checked = 0;
    for (sg, kbin) in model.subgraphs.iter().zip(&kbins) {
        for slot in &kbin.engines {
            let e = sg.engine(slot.eng_type).unwrap();
            checked += common::check_engine(slot.instr, e);
        }
    }
    checked
}

#[test]
fn checker_on_the_spec_sample() {
    // pool.bin slot 3 (0xA0 EVENT_SEMAPHORE) is the sample's one plain slot (spec 000 §9).
    assert_eq!(check_file(SAMPLE), 1);
}

#[test]
fn checker_on_the_real_fixture_both_subgraphs() {
    if !std::path::Path::new(REAL).exists() {
        assert!(
            std::env::var("NEFFKIT_REQUIRE_FIXTURES").as_deref() != Ok("1"),
            "fixture missing: {REAL}"
        );
        eprintln!("skipping: {REAL} not present");
        return;
    }
    assert!(check_file(REAL) > 10);
}
