//! The streaming scan (decision D27) agrees with `Neff::parse` on members, offsets, sizes, kept
//! bytes and hash status, and refuses bombs as soon as a header declares too much.

use std::io::Write;

use neff_container::{
    ContainerError, HEADER_SIZE, HashStatus, Header, LimitKind, Limits, Neff, NeffBuilder,
    ReadOptions, hash, scan,
};
use proptest::prelude::*;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");

/// Parses and scans `bytes` (keeping every member) and asserts they agree.
fn agree(bytes: &[u8], options: &ReadOptions) {
    let neff = Neff::parse_with(bytes, options).expect("parse");
    let s = scan(bytes, options, |_, _| true).expect("scan");
    assert_eq!(s.header(), neff.header());
    assert_eq!(s.hash_status(), neff.hash_status());
    assert_eq!(s.member_count(), neff.member_count());
    assert_eq!(s.total_member_size(), neff.total_member_size());
    assert_eq!(s.inflated_size(), neff.tar_bytes().len() as u64);
    for (a, b) in s.members().zip(neff.members()) {
        assert_eq!((a.path, a.offset, a.size), (b.path, b.offset, b.size()));
        assert_eq!(a.data, Some(b.data), "{}", a.path);
        assert_eq!(s.member(a.path), Some(b.data));
    }
    // Keeping nothing lists the same members, without bytes.
    let bare = scan(bytes, options, |_, _| false).expect("scan");
    assert!(bare.members().all(|m| m.data.is_none()));
    let sizes: Vec<_> = bare.members().map(|m| (m.path, m.size)).collect();
    let want: Vec<_> = neff.members().map(|m| (m.path, m.size())).collect();
    assert_eq!(sizes, want);
}

#[test]
fn sample_agrees() {
    let bytes = std::fs::read(SAMPLE).expect("examples/sample.neff is committed");
    agree(&bytes, &ReadOptions::default());
    let s = scan(&bytes, &ReadOptions::default(), |p, _| p.ends_with(".json")).unwrap();
    assert_eq!(s.hash_status(), HashStatus::Verified);
    assert_eq!(s.member_count(), 12);
    assert_eq!(s.member_size("sg00/pe.bin"), Some(64));
    assert_eq!(s.member("sg00/pe.bin"), None); // not kept
    assert!(s.member("sg00/def.json").is_some());
}

#[test]
fn real_fixture_agrees() {
    let Some(bytes) = neff_fixtures::read(neff_fixtures::MATMUL_SMALL) else {
        return;
    };
    agree(&bytes, &ReadOptions::default());
    let s = scan(&bytes, &ReadOptions::default(), |_, _| false).unwrap();
    assert_eq!(s.member_count(), 72); // reference §2
    assert_eq!(s.hash_status(), HashStatus::Verified);
}

#[test]
fn synth_neffs_agree() {
    for (subgraphs, slots, seed) in [(1, 64, 0), (3, 5000, 7), (2, 40_000, 3)] {
        let options = neff_synth::SynthOptions {
            subgraphs,
            slots_per_engine: slots,
            seed,
            ..Default::default()
        };
        let bytes = neff_synth::generate(&options).unwrap();
        agree(&bytes, &ReadOptions::default());
        let no_verify = ReadOptions {
            verify: false,
            ..ReadOptions::default()
        };
        agree(&bytes, &no_verify);
    }
}

/// A library user's opt-outs (decision D780): without the second thread and without mappings,
/// the buffered read and the scan give the same members, bytes and hash status as the defaults
/// — and the scan's `keep` predicate, which the second thread asks on payloads of 1 MiB or more,
/// is asked on the caller's thread.
#[test]
fn the_caller_thread_only_read_agrees_and_spawns_nothing() {
    let options = neff_synth::SynthOptions {
        subgraphs: 2,
        slots_per_engine: 40_000, // a payload well over 1 MiB: the two-thread paths apply
        seed: 3,
        ..Default::default()
    };
    let bytes = neff_synth::generate(&options).unwrap();
    assert!(bytes.len() > 1 << 20, "{} bytes", bytes.len());
    let alone = ReadOptions {
        threads: false,
        map_memory: false,
        ..ReadOptions::default()
    };
    agree(&bytes, &alone);
    let (a, b) = (
        Neff::parse_with(&bytes, &alone).unwrap(),
        Neff::parse(&bytes).unwrap(),
    );
    assert_eq!(a.tar_bytes(), b.tar_bytes());
    assert_eq!(a.hash_status(), HashStatus::Verified);
    let caller = std::thread::current().id();
    let mut asked_on = Vec::new();
    scan(&bytes, &alone, |_, _| {
        asked_on.push(std::thread::current().id());
        true
    })
    .unwrap();
    assert!(!asked_on.is_empty());
    assert!(asked_on.iter().all(|&t| t == caller), "{asked_on:?}");
    // The default asks on its helper thread: the check above can fail.
    let mut helper_asked = Vec::new();
    scan(&bytes, &ReadOptions::default(), |_, _| {
        helper_asked.push(std::thread::current().id());
        true
    })
    .unwrap();
    assert!(
        helper_asked.iter().all(|&t| t != caller),
        "{helper_asked:?}"
    );
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(1));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A NEFF whose payload is the gzip of `tar`, data_size and hash consistent.
fn neff_from_tar(tar: &[u8]) -> Vec<u8> {
    let payload = gzip(tar);
    let empty = NeffBuilder::new().build().unwrap();
    let mut header = Header::decode(empty[..HEADER_SIZE].try_into().unwrap());
    header.data_size = payload.len() as u64;
    header.hash = hash::compute(header.pkg_version, &payload);
    [&header.encode()[..], &payload].concat()
}

/// A ustar header for a regular file `path` declaring `size` bytes.
fn tar_header(path: &str, size: u64) -> [u8; 512] {
    let mut h = [0u8; 512];
    h[..path.len()].copy_from_slice(path.as_bytes());
    h[100..108].copy_from_slice(b"000664 \0");
    h[124..136].copy_from_slice(format!("{size:011o} ").as_bytes());
    h[156] = b'0';
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum::<u32>() + 8 * 32;
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    h
}

fn limit_kind(r: Result<neff_container::Scan<'_>, ContainerError>) -> LimitKind {
    match r {
        Err(ContainerError::Limit { kind, .. }) => kind,
        other => panic!("expected a limit error, got {other:?}"),
    }
}

#[test]
fn huge_declared_member_is_refused_at_its_header() {
    // Declares 8 GiB - 1 but holds 64 MiB of zeros: the header alone is refused.
    let mut tar = tar_header("sg00/pe.bin", (8 << 30) - 1).to_vec();
    tar.resize(64 << 20, 0);
    let bytes = neff_from_tar(&tar);
    let small = ReadOptions {
        limits: Limits {
            max_member_size: 1 << 30,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    assert_eq!(
        limit_kind(scan(&bytes, &small, |_, _| true)),
        LimitKind::MemberSize
    );
    // Under the default limits the 8 GiB end passes the ratio cap (1100 x the payload).
    assert_eq!(
        limit_kind(scan(&bytes, &ReadOptions::default(), |_, _| true)),
        LimitKind::CompressionRatio
    );
}

#[test]
fn member_count_bomb_is_refused_at_the_first_extra_header() {
    let mut tar = Vec::new();
    for i in 0..2000 {
        tar.extend_from_slice(&tar_header(&format!("m/{i:05}"), 0));
    }
    tar.resize(tar.len() + 1024, 0);
    let bytes = neff_from_tar(&tar);
    let options = ReadOptions {
        limits: Limits {
            max_members: 100,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    match scan(&bytes, &options, |_, _| false) {
        Err(ContainerError::Limit {
            kind: LimitKind::MemberCount,
            found: 101,
            at: Some(path),
            ..
        }) => assert_eq!(path, "m/00100"),
        other => panic!("expected the member-count limit, got {other:?}"),
    }
}

#[test]
fn data_after_the_archive_end_is_bounded() {
    // A gzip bomb: an end-of-archive block then 8 MiB of zeros (parse inflates them all).
    let bytes = neff_from_tar(&vec![0u8; 8 << 20]);
    match scan(&bytes, &ReadOptions::default(), |_, _| true) {
        Err(ContainerError::Tar { offset: 0, reason }) => {
            assert!(reason.contains("end-of-archive"), "{reason}")
        }
        other => panic!("expected the tail error, got {other:?}"),
    }
    // The usual 10 KiB record padding is fine for both readers.
    let mut tar = tar_header("a.json", 2).to_vec();
    tar.extend_from_slice(b"{}");
    tar.resize(10240, 0);
    agree(&neff_from_tar(&tar), &ReadOptions::default());
}

/// Random member paths (some split into ustar prefix and name) and contents.
fn members() -> impl Strategy<Value = Vec<(String, Vec<u8>)>> {
    let path = ("[a-z]{1,8}", 0usize..3, 0usize..90).prop_map(|(stem, depth, pad)| {
        let dir = "sg".repeat(depth);
        let name = format!("{stem}{}", "x".repeat(pad));
        if dir.is_empty() {
            name
        } else {
            format!("{dir}/{name}")
        }
    });
    let data = prop::collection::vec(any::<u8>(), 0..3000);
    prop::collection::btree_map(path, data, 0..12).prop_map(|m| m.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_packages_agree(members in members(), keep_under in 0u64..3000) {
        let mut b = NeffBuilder::new();
        for (path, data) in &members {
            b.add(path, &data[..]).unwrap();
        }
        let bytes = b.build().unwrap();
        agree(&bytes, &ReadOptions::default());
        let s = scan(&bytes, &ReadOptions::default(), |_, size| size < keep_under).unwrap();
        for m in s.members() {
            prop_assert_eq!(m.data.is_some(), m.size < keep_under);
        }
    }
}

/// A payload over 1 MiB (read on two threads) with a bad CRC-32 in its gzip trailer: both
/// readers refuse it with the same CRC error.
#[test]
fn crc_mismatch_on_the_two_thread_path() {
    let mut x = 0x1234_5678u32;
    let noise: Vec<u8> = (0..3 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    let mut tar = tar_header("big.bin", noise.len() as u64).to_vec();
    tar.extend_from_slice(&noise);
    tar.resize(tar.len() + 1024, 0);
    let mut payload = gzip(&tar);
    assert!(payload.len() > 2 << 20);
    let n = payload.len();
    payload[n - 8] ^= 0x40; // the stored CRC-32
    let empty = NeffBuilder::new().build().unwrap();
    let mut header = Header::decode(empty[..HEADER_SIZE].try_into().unwrap());
    header.data_size = payload.len() as u64;
    header.hash = hash::compute(header.pkg_version, &payload);
    let bytes = [&header.encode()[..], &payload].concat();
    let reason = |r: Result<(), ContainerError>| match r {
        Err(ContainerError::Gzip { reason, .. }) => reason,
        other => panic!("expected a gzip error, got {other:?}"),
    };
    let scanned = reason(scan(&bytes, &ReadOptions::default(), |_, _| false).map(|_| ()));
    let parsed = reason(Neff::parse(&bytes).map(|_| ()));
    assert!(scanned.starts_with("CRC-32"), "{scanned}");
    assert_eq!(scanned, parsed);
}
