//! The committed examples/sample.neff is exactly what examples/make_sample.rs generates, and it
//! holds the spec's sample program (spec 000 §9, spec 003 §7).

#[allow(dead_code)]
#[path = "../examples/make_sample.rs"]
mod make_sample;

use neff_container::{HashStatus, Neff};

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");

#[test]
fn generator_output_equals_committed_sample_byte_for_byte() {
    let committed = std::fs::read(COMMITTED).expect("examples/sample.neff is committed");
    assert!(
        make_sample::sample_neff() == committed,
        "regenerate with the make_sample example"
    );
}

#[test]
fn sample_holds_the_spec_program() {
    let bytes = make_sample::sample_neff();
    let neff = Neff::parse(&bytes).unwrap();
    assert_eq!(neff.hash_status(), HashStatus::Verified);
    assert_eq!(neff.header().name_text(), "sample");
    assert_eq!(neff.member_count(), 12);
    let pe = neff.member("sg00/pe.bin").unwrap();
    assert_eq!(pe.len(), 64);
    assert_eq!(pe[0], 0xC8); // PSEUDO_TRIGGER_COLLECTIVE (spec 003 §7.1)
    let pool = neff.member("sg00/pool.bin").unwrap();
    assert_eq!(pool.len(), 192);
    assert_eq!([pool[0], pool[0x40], pool[0x80]], [0xC1, 0xC1, 0xA0]); // spec 003 §7.2
    assert_eq!(&pool[0x4C..0x5A], b"q_gradient_out");
    for empty in ["sg00/act.bin", "sg00/dve.bin", "sg00/sp.bin"] {
        assert_eq!(neff.member(empty), Some(&[][..]), "{empty}");
    }
    let members: Vec<&str> = neff.members().map(|m| m.path).collect();
    let mut sorted = members.clone();
    sorted.sort();
    assert_eq!(members, sorted);
}
