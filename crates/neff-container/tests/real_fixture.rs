//! matmul_small.neff (reference §1.2 first column, §2.1): every header value and the member list.

use neff_container::{HashStatus, Neff, NeffBuilder, ReadOptions};

/// The fixture bytes, or None (with a message) when absent and not required.
fn fixture() -> Option<Vec<u8>> {
    neff_fixtures::read(neff_fixtures::MATMUL_SMALL)
}

#[test]
fn header_values_match_reference_1_2() {
    let Some(bytes) = fixture() else { return };
    assert_eq!(bytes.len(), 62464);
    let neff = Neff::parse(&bytes).unwrap();
    let h = neff.header();
    assert_eq!(h.pkg_version, 2);
    assert_eq!(h.header_size, 0x400);
    assert_eq!(h.data_size, 61440);
    assert_eq!(h.neff_version_major, 2);
    assert_eq!(h.neff_version_minor, 0);
    assert_eq!(h.neff_build_version.text(), "");
    assert_eq!(h.num_tpb, 1);
    assert_eq!(
        neff_container::hash::hex(&h.hash[..16]),
        "bcb3e9ef77301698cd8b4cb9471ff5ac"
    );
    assert_eq!(h.hash[16..], [0; 16]);
    assert_eq!(h.uuid.to_string(), "00a04c53-5fd9-4f07-bffd-d5eacdefc852");
    assert_eq!(h.name_text(), "file.neff");
    assert_eq!(h.requested_tpb_count, 1);
    assert_eq!(h.tpb_per_node[0], 1);
    assert!(h.tpb_per_node[1..].iter().all(|&b| b == 0));
    assert_eq!(h.feature_bits.0, 0x209c00);
    assert_eq!(h.lnc_size, 2);
    assert!(h.pad.iter().all(|&b| b == 0));
    assert_eq!(neff.hash_status(), HashStatus::Verified);
    assert_eq!(
        &neff.payload().unwrap()[..10],
        [0x1f, 0x8b, 0x08, 0x00, 0x4a, 0xb4, 0x39, 0x6a, 0x04, 0x03]
    );
}

#[test]
fn members_match_reference_2_1() {
    let Some(bytes) = fixture() else { return };
    let neff = Neff::parse(&bytes).unwrap();
    assert_eq!(neff.member_count(), 72);
    assert_eq!(neff.tar_bytes().len(), 356_864);
    let first: Vec<(&str, u64)> = neff.members().take(7).map(|m| (m.path, m.size())).collect();
    assert_eq!(
        first,
        [
            ("debug_info/debug_info_hlo.dbg_sg000000", 400),
            ("debug_info/debug_info_penguin.dbg_sg000000", 557),
            ("debug_info/debug_info_pttf.dbg_sg000000", 132),
            ("debug_info/debug_info_stack_frame_index.dbg", 51),
            ("hlo_stats.json", 328),
            ("info.json", 614),
            ("kelf-0.json", 253),
        ]
    );
    let sizes = [
        ("sg00/Activation.bin", 320),
        ("sg00/Activation.json", 152),
        ("sg00/DVE.bin", 128),
        ("sg00/DVE.json", 259),
        ("sg00/PE.bin", 768),
        ("sg00/PE.json", 44),
        ("sg00/Pool.bin", 448),
        ("sg00/Pool.json", 48),
        ("sg00/SP.bin", 192),
        ("sg00/SP.json", 44),
        ("sg00/act_info.json", 15859),
        ("sg00/def.json", 3820),
        ("sg00/default_control_fast_table.bin", 4096),
        ("sg00/default_control_slow_table.bin", 4096),
        ("sg00/default_datapath_table.bin", 16384),
        ("sg00/default_opcode_table.bin", 1024),
        ("sg00/exp_and_others.json", 28093),
        ("sg00/exp_and_others_bkt.bin", 30112),
        ("sg00/exp_and_others_ctrl.bin", 2848),
        ("sg00/tensor_map.json", 2648),
        ("sg00/value_sg0000_identity_82_CRSM.npy", 32896),
        ("neff.json", 2807),
    ];
    for (path, size) in sizes {
        assert_eq!(neff.member(path).map(<[u8]>::len), Some(size), "{path}");
    }
    // neuronx-cc 2.23 writes neff.json last (reference §2).
    assert_eq!(neff.members().last().unwrap().path, "neff.json");
    let sg01 = neff
        .members()
        .filter(|m| m.path.starts_with("sg01/"))
        .count();
    let sg00 = neff
        .members()
        .filter(|m| m.path.starts_with("sg00/"))
        .count();
    // reference §2.1 says "same 33 files", but its own sg00 list has 32 entries, and
    // 7 top-level + neff.json + 2 x 32 = 72 members.
    assert_eq!((sg00, sg01), (32, 32));
    assert!(String::from_utf8_lossy(neff.member("kelf-0.json").unwrap()).contains("\"graphs\""));
}

#[test]
fn read_write_read_keeps_header_fields_members_and_order() {
    let Some(bytes) = fixture() else { return };
    let neff = Neff::parse(&bytes).unwrap();
    let rewritten = NeffBuilder::from_neff(&neff).build().unwrap();
    let again = Neff::parse(&rewritten).unwrap();
    assert_eq!(again.hash_status(), HashStatus::Verified);
    let (mut h1, mut h2) = (neff.header().clone(), again.header().clone());
    (h1.data_size, h1.hash, h2.data_size, h2.hash) = (0, [0; 32], 0, [0; 32]);
    assert_eq!(h1, h2);
    assert!(
        neff.members()
            .eq(again.members().map(|m| neff_container::Member {
                offset: m.offset,
                ..m
            }))
    );
    // The tar the compiler wrote and ours are byte-identical (same ustar spelling, same order).
    assert_eq!(neff.tar_bytes(), again.tar_bytes());
}

#[test]
fn no_verify_skips_the_hash() {
    let Some(mut bytes) = fixture() else { return };
    bytes[0xAC] ^= 1;
    assert!(Neff::parse(&bytes).is_err());
    let opts = ReadOptions {
        verify: false,
        ..ReadOptions::default()
    };
    assert_eq!(
        Neff::parse_with(&bytes, &opts).unwrap().hash_status(),
        HashStatus::NotChecked
    );
}
