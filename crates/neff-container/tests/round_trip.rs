//! write -> read -> write: identical members, identical bytes, deterministic output; edits.

use neff_container::{ExtractOptions, MemberOrder, Neff, NeffBuilder, extract};
use proptest::prelude::*;

fn builder(members: &[(String, Vec<u8>)]) -> NeffBuilder<'static> {
    let mut b = NeffBuilder::new();
    b.set_uuid("11111111-2222-4333-8444-555555555555".parse().unwrap());
    for (path, data) in members {
        b.add(path, data.clone()).unwrap();
    }
    b
}

fn path_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec("[a-zA-Z0-9_.-]{1,12}", 1..4)
        .prop_map(|parts| parts.join("/"))
        .prop_filter("no dot components", |p| {
            p.split('/').all(|c| c != "." && c != "..")
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn write_read_round_trip(
        members in proptest::collection::btree_map(path_strategy(), proptest::collection::vec(any::<u8>(), 0..2000), 0..12),
        lnc in 1u32..3, bits in any::<u64>(), name in "[a-z]{1,40}",
    ) {
        let members: Vec<(String, Vec<u8>)> = members.into_iter().collect();
        // A path may not also be a folder of another path (a file cannot be both on disk);
        // the tar does not care, so no filtering is needed for the in-memory round trip.
        let mut b = builder(&members);
        b.set_name(&name).unwrap();
        b.header_mut().lnc_size = lnc;
        b.header_mut().feature_bits.0 = bits;
        let bytes = b.build().unwrap();
        prop_assert_eq!(&bytes, &b.build().unwrap());
        let neff = Neff::parse(&bytes).unwrap();
        prop_assert!(neff.hash_status().is_ok());
        prop_assert_eq!(neff.header().lnc_size, lnc);
        prop_assert_eq!(neff.header().feature_bits.0, bits);
        prop_assert_eq!(neff.header().name_text(), name);
        let read: Vec<(String, Vec<u8>)> = neff.members().map(|m| (m.path.to_owned(), m.data.to_vec())).collect();
        prop_assert_eq!(&read, &members); // btree order == sorted order
        prop_assert_eq!(NeffBuilder::from_neff(&neff).build().unwrap(), bytes);
    }
}

#[test]
fn edit_add_replace_remove_and_header() {
    let bytes = builder(&[
        ("a.json".into(), b"{}".to_vec()),
        ("sg00/x.bin".into(), vec![7; 64]),
    ])
    .build()
    .unwrap();
    let neff = Neff::parse(&bytes).unwrap();
    let mut edit = NeffBuilder::from_neff(&neff);
    edit.replace("a.json", &b"{\"k\":1}"[..]).unwrap();
    edit.add("neff.json", &b"[]"[..]).unwrap();
    assert_eq!(edit.remove("sg00/x.bin").unwrap().len(), 64);
    edit.header_mut().lnc_size = 2;
    assert!(edit.add("a.json", &b""[..]).is_err());
    assert!(edit.replace("missing", &b""[..]).is_err());
    assert!(edit.add("../evil", &b""[..]).is_err());
    let out = edit.build().unwrap();
    let again = Neff::parse(&out).unwrap();
    let paths: Vec<&str> = again.members().map(|m| m.path).collect();
    assert_eq!(paths, ["a.json", "neff.json"]);
    assert_eq!(again.member("a.json").unwrap(), b"{\"k\":1}");
    assert_eq!(again.header().lnc_size, 2);
    assert_eq!(again.header().uuid, neff.header().uuid);
}

#[test]
fn sorted_order_is_the_default_and_insertion_order_is_kept_on_request() {
    let members = [("z".to_string(), vec![1]), ("a".to_string(), vec![2])];
    let sorted = Neff::parse(&builder(&members).build().unwrap())
        .unwrap()
        .members()
        .map(|m| m.path.to_owned())
        .collect::<Vec<_>>();
    assert_eq!(sorted, ["a", "z"]);
    let mut b = builder(&members);
    b.set_order(MemberOrder::Insertion);
    let bytes = b.build().unwrap();
    let kept: Vec<String> = Neff::parse(&bytes)
        .unwrap()
        .members()
        .map(|m| m.path.to_owned())
        .collect();
    assert_eq!(kept, ["z", "a"]);
}

#[test]
fn extract_pack_extract_gives_identical_members() {
    let members = vec![
        ("kelf-0.json".to_string(), b"{}".to_vec()),
        ("sg00/def.json".to_string(), b"{\"var\":{}}".to_vec()),
        ("sg00/PE.bin".to_string(), vec![0xB1; 128]),
        ("sg00/empty.bin".to_string(), vec![]),
    ];
    let bytes = builder(&members).build().unwrap();
    let neff = Neff::parse(&bytes).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = extract(&neff, dir.path(), ExtractOptions::default()).unwrap();
    assert_eq!(written.len(), 4);
    assert_eq!(
        std::fs::read(dir.path().join("sg00/PE.bin")).unwrap(),
        vec![0xB1; 128]
    );
    // A second extraction refuses to overwrite, and writes nothing; --force overwrites.
    assert!(extract(&neff, dir.path(), ExtractOptions::default()).is_err());
    extract(&neff, dir.path(), ExtractOptions { force: true }).unwrap();
}

#[cfg(unix)]
#[test]
fn extract_refuses_to_follow_a_symlinked_folder() {
    let bytes = builder(&[("sg00/a.bin".into(), vec![1])]).build().unwrap();
    let neff = Neff::parse(&bytes).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("sg00")).unwrap();
    let err = extract(&neff, dir.path(), ExtractOptions { force: true }).unwrap_err();
    assert!(err.to_string().contains("symlink"), "{err}");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn write_atomic_replaces_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.neff");
    neff_container::write_atomic(&path, b"first").unwrap();
    neff_container::write_atomic(&path, b"second").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"second");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// A FIFO (like /dev/null or /dev/stdout: not a regular file) is written in place, not replaced
/// by a renamed temporary file.
#[cfg(unix)]
#[test]
fn write_atomic_writes_a_fifo_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
    let reader = {
        let path = path.clone();
        std::thread::spawn(move || std::fs::read(path).unwrap())
    };
    neff_container::write_atomic(&path, b"through the pipe").unwrap();
    assert_eq!(reader.join().unwrap(), b"through the pipe");
    let kind = std::fs::metadata(&path).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
