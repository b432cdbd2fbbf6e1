//! `neff synth`: deterministic output that the container reader, the kelf parser and `neff
//! load` all accept, on both generations, with and without functions.

mod common;

use common::{Value, json_of, neff, synth, temp_dir};

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let dir = temp_dir();
    let bytes = |name: &str, seed: &str| {
        let args = [
            "--slots-per-engine",
            "3000",
            "--subgraphs",
            "2",
            "--functions",
            "2",
            "--seed",
            seed,
        ];
        std::fs::read(synth(dir.path(), name, &args)).unwrap()
    };
    let (a, b, c) = (
        bytes("a.neff", "9"),
        bytes("b.neff", "9"),
        bytes("c.neff", "10"),
    );
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn output_reads_back_through_the_container_reader() {
    let dir = temp_dir();
    let path = synth(
        dir.path(),
        "x.neff",
        &[
            "--slots-per-engine",
            "500",
            "--subgraphs",
            "3",
            "--target",
            "cayman",
        ],
    );
    let bytes = std::fs::read(&path).unwrap();
    let neff = neff_container::Neff::parse(&bytes).unwrap();
    assert!(neff.hash_status().is_ok());
    assert_eq!(neff.header().neff_version_major, 2);
    for sg in ["sg00", "sg01", "sg02"] {
        for stem in ["PE", "Activation", "Pool", "DVE", "SP"] {
            let bin = neff.member(&format!("{sg}/{stem}.bin")).unwrap();
            assert_eq!(bin.len(), 500 * 64);
            // reference §4.1: SET_ORDERING_MODE first; trn2 then a label.
            assert_eq!((bin[0], bin[1], bin[64]), (0xb1, 0x10, 0xcc));
        }
    }
    let kelf: Value = serde_json::from_slice(neff.member("kelf-0.json").unwrap()).unwrap();
    assert_eq!(kelf["target"], "cayman");
    assert_eq!(kelf["graphs"].as_array().unwrap().len(), 3);
}

#[test]
fn json_summary_counts_slots() {
    let dir = temp_dir();
    let path = dir.path().join("s.neff");
    let v = json_of(
        neff()
            .args([
                "synth",
                "--json",
                "--slots-per-engine",
                "100",
                "--subgraphs",
                "2",
                "-o",
            ])
            .arg(&path),
    );
    assert_eq!(v["slots"], 1000);
    assert_eq!(v["stream_bytes"], 64_000);
    assert_eq!(v["file_bytes"], std::fs::metadata(&path).unwrap().len());
}

#[test]
fn parses_with_kelf_on_both_targets() {
    let dir = temp_dir();
    for target in ["sunda", "cayman"] {
        let path = synth(
            dir.path(),
            &format!("{target}.neff"),
            &[
                "--slots-per-engine",
                "2000",
                "--functions",
                "1",
                "--target",
                target,
            ],
        );
        let bytes = std::fs::read(&path).unwrap();
        let neff = neff_container::Neff::parse(&bytes).unwrap();
        let kelf = neff_kelf::Kelf::from_neff(&neff).unwrap();
        let kbin = neff_kelf::gen_kbin(&kelf, "sg00").unwrap();
        assert_eq!(kbin.engines.len(), 5, "{target}");
        assert!(kbin.engines.iter().all(|e| e.ninstr == 2000), "{target}");
        assert!(kbin.warnings.is_empty(), "{target}: {:?}", kbin.warnings);
    }
}

#[test]
fn loads_with_neff_load() {
    let dir = temp_dir();
    for (target, functions) in [
        ("sunda", "0"),
        ("sunda", "3"),
        ("cayman", "0"),
        ("cayman", "2"),
    ] {
        let path = synth(
            dir.path(),
            &format!("{target}{functions}.neff"),
            &[
                "--slots-per-engine",
                "5000",
                "--subgraphs",
                "2",
                "--functions",
                functions,
                "--target",
                target,
            ],
        );
        neff().arg("load").arg(&path).assert().success();
    }
}

#[test]
fn bad_options_are_invalid_input_and_leave_no_file() {
    let dir = temp_dir();
    let path = dir.path().join("bad.neff");
    neff()
        .args(["synth", "--subgraphs", "0", "-o"])
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("subgraphs"));
    neff()
        .args([
            "synth",
            "--target",
            "cayman",
            "--slots-per-engine",
            "1",
            "-o",
        ])
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("slots_per_engine"));
    neff()
        .args(["synth", "--target", "tonga", "-o"])
        .arg(&path)
        .assert()
        .code(2);
    assert!(!path.exists());
}
