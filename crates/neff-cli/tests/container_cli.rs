//! `neff info | ls | cat | extract | pack` run as the real binary (issue 3 "CLI").

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{SAMPLE, json_of, neff, real_fixture, temp_dir};
use predicates::prelude::*;

#[test]
fn info_text_shows_header_integrity_members_and_graphs() {
    let Some(file) = real_fixture() else { return };
    neff()
        .args(["info", file])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "00a04c53-5fd9-4f07-bffd-d5eacdefc852",
        ))
        .stdout(predicate::str::contains(
            "0x209c00 = 0x400 neff_feature_vnc",
        ))
        .stdout(predicate::str::contains("integrity            verified"))
        .stdout(predicate::str::contains("members              72"))
        .stdout(predicate::str::contains("graph sg01"));
}

#[test]
fn info_json_has_the_documented_keys() {
    let Some(file) = real_fixture() else { return };
    let v = json_of(neff().args(["info", "--json", file]));
    let h = &v["header"];
    assert_eq!(h["pkg_version"], 2);
    assert_eq!(h["header_size"], 1024);
    assert_eq!(h["data_size"], 61440);
    assert_eq!(h["neff_version_major"], 2);
    assert_eq!(h["neff_version_minor"], 0);
    assert_eq!(h["build_version"], "");
    assert_eq!(h["num_tpb"], 1);
    assert_eq!(
        h["hash"],
        "bcb3e9ef77301698cd8b4cb9471ff5ac00000000000000000000000000000000"
    );
    assert_eq!(h["uuid"], "00a04c53-5fd9-4f07-bffd-d5eacdefc852");
    assert_eq!(h["name"], "file.neff");
    assert_eq!(h["requested_tpb_count"], 1);
    assert_eq!(h["tpb_per_node"].as_array().unwrap().len(), 64);
    assert_eq!(h["tpb_per_node"][0], 1);
    assert_eq!(h["feature_bits"], 0x209c00);
    assert_eq!(h["lnc_size"], 2);
    assert_eq!(v["hash_ok"], true);
    assert_eq!(v["members"].as_array().unwrap().len(), 72);
    assert_eq!(
        v["members"][6],
        serde_json::json!({"path": "kelf-0.json", "size": 253, "offset": 7680})
    );
}

#[test]
fn ls_and_cat_on_the_sample() {
    let v = json_of(neff().args(["ls", "--json", SAMPLE]));
    assert_eq!(v["members"].as_array().unwrap().len(), 12);
    assert_eq!(v["members"][0]["path"], "kelf-a.json");
    let out = neff()
        .args(["cat", SAMPLE, "sg00/pool.bin"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(out.len(), 192);
    assert_eq!([out[0], out[0x40], out[0x80]], [0xC1, 0xC1, 0xA0]);
    neff()
        .args(["cat", SAMPLE, "sg00/none.bin"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no member"));
}

#[test]
fn extract_pack_extract_round_trip_and_deterministic_pack() {
    let tmp = temp_dir();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    neff()
        .args(["extract", SAMPLE, "-C"])
        .arg(&a)
        .assert()
        .success();
    let packed = tmp.path().join("p.neff");
    neff()
        .args(["pack"])
        .arg(&a)
        .arg("-o")
        .arg(&packed)
        .args(["--like", SAMPLE])
        .assert()
        .success();
    // --like copies every header field: packing the extracted sample reproduces it exactly.
    assert_eq!(
        std::fs::read(&packed).unwrap(),
        std::fs::read(SAMPLE).unwrap()
    );
    neff()
        .arg("extract")
        .arg(&packed)
        .arg("-C")
        .arg(&b)
        .assert()
        .success();
    assert_eq!(tree(&a), tree(&b));
    let (p1, p2) = (tmp.path().join("1.neff"), tmp.path().join("2.neff"));
    for p in [&p1, &p2] {
        neff()
            .arg("pack")
            .arg(&a)
            .arg("-o")
            .arg(p)
            .args([
                "--name",
                "x",
                "--uuid",
                "12345678-1234-4234-8234-123456789abc",
                "--lnc-size",
                "2",
                "--feature-bits",
                "0x400",
            ])
            .assert()
            .success();
    }
    assert_eq!(std::fs::read(&p1).unwrap(), std::fs::read(&p2).unwrap());
    let v = json_of(neff().arg("info").arg("--json").arg(&p1));
    assert_eq!(
        (
            v["header"]["lnc_size"].clone(),
            v["header"]["feature_bits"].clone()
        ),
        (2.into(), 0x400.into())
    );
    assert_eq!(v["header"]["name"], "x");
}

fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((
                    p.strip_prefix(dir).unwrap().to_owned(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn extract_refuses_to_overwrite_without_force() {
    let tmp = temp_dir();
    neff()
        .args(["extract", SAMPLE, "-C"])
        .arg(tmp.path())
        .assert()
        .success();
    neff()
        .args(["extract", SAMPLE, "-C"])
        .arg(tmp.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--force"));
    neff()
        .args(["extract", SAMPLE, "--force", "-C"])
        .arg(tmp.path())
        .assert()
        .success();
}

#[test]
fn bad_hash_fails_unless_no_verify() {
    let tmp = temp_dir();
    let mut bytes = std::fs::read(SAMPLE).unwrap();
    bytes[0xAC] ^= 0xFF;
    let bad = tmp.path().join("bad.neff");
    std::fs::write(&bad, &bytes).unwrap();
    neff()
        .arg("info")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("hash mismatch"));
    let v = json_of(neff().args(["info", "--json", "--no-verify"]).arg(&bad));
    assert_eq!(v["hash_ok"], false);
    neff()
        .args(["ls", "--no-verify"])
        .arg(&bad)
        .assert()
        .success();
}

#[test]
fn malformed_inputs_exit_1_and_write_nothing() {
    let tmp = temp_dir();
    let truncated = tmp.path().join("t.neff");
    std::fs::write(&truncated, &std::fs::read(SAMPLE).unwrap()[..900]).unwrap();
    neff()
        .arg("info")
        .arg(&truncated)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("truncated header"));
    let evil = tmp.path().join("evil.neff");
    std::fs::write(&evil, neff_with_tar(&traversal_tar())).unwrap();
    let out = tmp.path().join("out");
    neff()
        .arg("extract")
        .arg(&evil)
        .arg("-C")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("`..` component"));
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().count() == 0);
    assert!(!tmp.path().join("escaped").exists());
}

/// A tar whose only member is `../escaped`.
fn traversal_tar() -> Vec<u8> {
    let mut h = [0u8; 512];
    h[..10].copy_from_slice(b"../escaped");
    h[100..108].copy_from_slice(b"000664 \0");
    h[124..136].copy_from_slice(b"00000000002 ");
    h[156] = b'0';
    h[257..263].copy_from_slice(b"ustar\0");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum::<u32>() + 8 * 32;
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    let mut tar = h.to_vec();
    tar.extend_from_slice(b"hi");
    tar.resize(2048, 0);
    tar
}

/// A NEFF around `tar` with a correct header (built from the library's empty NEFF).
fn neff_with_tar(tar: &[u8]) -> Vec<u8> {
    let mut e = flate2_gzip();
    e.write_all(tar).unwrap();
    let payload = e.finish().unwrap();
    let empty = neff_container::NeffBuilder::new().build().unwrap();
    let mut header = neff_container::Header::decode(empty[..1024].try_into().unwrap());
    header.data_size = payload.len() as u64;
    header.hash = neff_container::hash::compute(2, &payload);
    [&header.encode()[..], &payload].concat()
}

fn flate2_gzip() -> flate2::write::GzEncoder<Vec<u8>> {
    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default())
}
