//! The malformed-input corpus (issue 9): `cases.json` and the generator of each NEFF-level input,
//! built from `examples/sample.neff` with neff-container's edit API or by byte surgery, so each
//! malformation reads as one line of code. Shared by `tests/malformed.rs` (every case through its
//! command) and `tests/scan_cli.rs` (the whole corpus through `neff scan`) as
//! `#[path = "malformed/corpus.rs"] mod corpus;`.

use std::io::Write;

use neff_container::{HEADER_SIZE, Header, Neff, NeffBuilder, hash};
use serde_json::Value;

const SAMPLE: &[u8] = include_bytes!("../../../../examples/sample.neff");
const CASES: &str = include_str!("cases.json");
/// The folder of the cases given as files (`file` in cases.json).
pub(crate) const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/malformed");

/// Every case of cases.json.
pub(crate) fn cases() -> Vec<Value> {
    let v: Value = serde_json::from_str(CASES).unwrap();
    v["cases"].as_array().unwrap().clone()
}

// ---- building blocks -------------------------------------------------------------------------

/// The sample with its members edited by `f`, rebuilt (fresh data_size and hash).
fn edit(f: impl FnOnce(&mut NeffBuilder<'_>)) -> Vec<u8> {
    let neff = Neff::parse(SAMPLE).unwrap();
    let mut b = NeffBuilder::from_neff(&neff);
    f(&mut b);
    b.build().unwrap()
}

/// The sample with one member replaced.
fn with_member(path: &str, bytes: Vec<u8>) -> Vec<u8> {
    edit(|b| {
        b.replace(path, bytes).unwrap();
    })
}

/// The sample without one member.
fn without_member(path: &str) -> Vec<u8> {
    edit(|b| {
        b.remove(path).unwrap();
    })
}

/// One member of the sample.
fn member(path: &str) -> Vec<u8> {
    Neff::parse(SAMPLE).unwrap().member(path).unwrap().to_vec()
}

/// The sample with one JSON member edited as a value.
fn with_json(path: &str, f: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut v: Value = serde_json::from_slice(&member(path)).unwrap();
    f(&mut v);
    with_member(path, serde_json::to_vec(&v).unwrap())
}

/// The sample's header and payload with `f` applied to the whole file's bytes.
fn surgery(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut bytes = SAMPLE.to_vec();
    f(&mut bytes);
    bytes
}

/// A NEFF around `payload` with the sample's header, a correct data_size and hash.
fn wrap_payload(payload: &[u8]) -> Vec<u8> {
    let raw: &[u8; HEADER_SIZE] = SAMPLE[..HEADER_SIZE].try_into().unwrap();
    let mut header = Header::decode(raw);
    header.data_size = payload.len() as u64;
    header.hash = hash::compute(header.pkg_version, payload);
    let mut out = header.encode().to_vec();
    out.extend_from_slice(payload);
    out
}

/// The sample's gzip payload after `f`, rewrapped with a correct data_size and hash (so the
/// damage reaches the inflater instead of stopping at the hash check).
fn payload_surgery(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut payload = SAMPLE[HEADER_SIZE..].to_vec();
    f(&mut payload);
    wrap_payload(&payload)
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A NEFF whose package is exactly the tar `tar`.
fn wrap_tar(tar: &[u8]) -> Vec<u8> {
    wrap_payload(&gzip(tar))
}

/// One raw ustar entry (header + data padded to 512): lets a case write what no writer would.
fn tar_entry(name: &str, typeflag: u8, size_field: Option<&[u8]>, data: &[u8]) -> Vec<u8> {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    h[100..108].copy_from_slice(b"0000644\0");
    h[108..116].copy_from_slice(b"0000000\0");
    h[116..124].copy_from_slice(b"0000000\0");
    let size = format!("{:011o}\0", data.len());
    h[124..136].copy_from_slice(size_field.unwrap_or(size.as_bytes()));
    h[136..148].copy_from_slice(b"00000000000\0");
    h[156] = typeflag;
    if typeflag == b'1' || typeflag == b'2' {
        h[157..168].copy_from_slice(b"/etc/passwd");
    }
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    let mut out = h.to_vec();
    out.extend_from_slice(data);
    out.resize(out.len().next_multiple_of(512), 0);
    out
}

/// A tar of `entries` with the two zero end blocks.
fn tar(entries: &[Vec<u8>]) -> Vec<u8> {
    let mut out = entries.concat();
    out.extend_from_slice(&[0u8; 1024]);
    out
}

/// The first entry of every hand-made tar: a regular kelf-a.json.
fn kelf_entry() -> Vec<u8> {
    tar_entry("kelf-a.json", b'0', None, &member("kelf-a.json"))
}

/// A 64-byte slot with `op`, inst_word_len 16 and `fields` (offset, bytes) written in.
fn slot(op: u8, fields: &[(usize, &[u8])]) -> Vec<u8> {
    let mut s = vec![0u8; 64];
    s[0] = op;
    s[1] = 0x10;
    for (at, bytes) in fields {
        s[*at..*at + bytes.len()].copy_from_slice(bytes);
    }
    s
}

/// The sample's pe.bin with `f` applied (one PSEUDO_TRIGGER_COLLECTIVE, spec 003 §7.1).
fn with_pe(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut pe = member("sg00/pe.bin");
    f(&mut pe);
    with_member("sg00/pe.bin", pe)
}

/// The sample's pool.bin with `f` applied (3 slots: two PSEUDO_DMA_TRIGGERs, EVENT_SEMAPHORE).
fn with_pool(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut pool = member("sg00/pool.bin");
    f(&mut pool);
    with_member("sg00/pool.bin", pool)
}

// ---- the generators, one per NEFF-level case --------------------------------------------------

/// The input bytes of a generated case, or None when the case names a file instead.
pub(crate) fn generate(name: &str) -> Option<Vec<u8>> {
    Some(match name {
        "hdr_empty_file" => Vec::new(),
        "hdr_truncated" | "json_error_mode" => SAMPLE[..100].to_vec(),
        "hdr_bad_header_size" => {
            surgery(|b| b[0x008..0x010].copy_from_slice(&0x200u64.to_le_bytes()))
        }
        "hdr_unknown_pkg_version" => {
            surgery(|b| b[0x000..0x008].copy_from_slice(&7u64.to_le_bytes()))
        }
        "hdr_data_size_past_end" => surgery(|b| {
            let n = u64::from_le_bytes(b[0x10..0x18].try_into().unwrap()) + 1;
            b[0x010..0x018].copy_from_slice(&n.to_le_bytes());
        }),
        "hdr_data_size_u64_max" => {
            surgery(|b| b[0x010..0x018].copy_from_slice(&u64::MAX.to_le_bytes()))
        }
        "hdr_trailing_bytes" => surgery(|b| b.extend_from_slice(&[0u8; 10])),
        "hdr_payload_not_gzip" => payload_surgery(|p| p[..2].copy_from_slice(b"PK")),
        "hash_md5_mismatch" | "hash_md5_mismatch_no_verify" => surgery(|b| b[0x0AC] ^= 0xff),
        "hash_sha256_mismatch" => surgery(|b| b[0x000..0x008].copy_from_slice(&1u64.to_le_bytes())),
        // The sample's gzip stream is 859 bytes, then zero padding: cut inside the stream.
        "gzip_truncated" => payload_surgery(|p| p.truncate(400)),
        "gzip_corrupt_deflate" => payload_surgery(|p| {
            assert_eq!(
                p[3], 0,
                "the sample's gzip header carries no optional fields"
            );
            // The first deflate byte: BFINAL=1, BTYPE=11, a reserved block type (RFC 1951 §3.2.3).
            p[10] = 0x07;
        }),
        "gzip_bad_crc" => payload_surgery(|p| {
            let at = p.len() - 8;
            p[at] ^= 0xff;
        }),
        "gzip_bomb_total_limit" | "gzip_bomb_env_limit" => wrap_tar(&tar(&[
            kelf_entry(),
            tar_entry("zeros.bin", b'0', None, &vec![0u8; 2 << 20]),
        ])),
        "tar_traversal" | "tar_traversal_extract" => wrap_tar(&tar(&[
            kelf_entry(),
            tar_entry("../evil.json", b'0', None, b"{}"),
        ])),
        "tar_absolute_path" => wrap_tar(&tar(&[tar_entry("/etc/neff_evil", b'0', None, b"{}")])),
        "tar_symlink" => wrap_tar(&tar(&[
            kelf_entry(),
            tar_entry("link.json", b'2', None, b""),
        ])),
        "tar_hardlink" => wrap_tar(&tar(&[
            kelf_entry(),
            tar_entry("hard.json", b'1', None, b""),
        ])),
        "tar_char_device" => wrap_tar(&tar(&[
            kelf_entry(),
            tar_entry("dev.json", b'3', None, b""),
        ])),
        "tar_duplicate_member" => wrap_tar(&tar(&[kelf_entry(), kelf_entry()])),
        "tar_huge_declared_size" | "tar_huge_declared_size_streamed" => wrap_tar(&tar(&[
            kelf_entry(),
            tar_entry("huge.bin", b'0', Some(b"77777777777\0"), b""),
        ])),
        "tar_member_size_limit" => wrap_tar(&tar(&[
            kelf_entry(),
            tar_entry("big.bin", b'0', None, &[7u8; 4096]),
        ])),
        "tar_member_count_bomb" => {
            let entries: Vec<Vec<u8>> = (0..1500)
                .map(|i| tar_entry(&format!("m/{i:05}"), b'0', None, b""))
                .collect();
            wrap_tar(&tar(&entries))
        }
        "tar_bad_checksum" => {
            let mut t = tar(&[kelf_entry()]);
            t[148] = b'7';
            wrap_tar(&t)
        }
        "tar_bad_size_field" => wrap_tar(&tar(&[tar_entry(
            "x.json",
            b'0',
            Some(b"zzzzzzzzzzz\0"),
            b"",
        )])),
        "json_kelf_syntax" => with_member("kelf-a.json", b"{\"graphs\": [".to_vec()),
        "json_def_syntax" => with_member("sg00/def.json", b"{\"var\": {,}}".to_vec()),
        "json_deep_nesting" => with_member("kelf-a.json", vec![b'['; 100_000]),
        "json_wrong_type" => with_json("sg00/def.json", |v| {
            v["var"]["input"]["var_id"] = "zero".into()
        }),
        "json_missing_key" => with_json("kelf-a.json", |v| {
            v.as_object_mut().unwrap().remove("graphs");
        }),
        "json_missing_definition_member" => without_member("sg00/def.json"),
        "json_no_kelf_descriptor" => without_member("kelf-a.json"),
        "json_unknown_engine" => with_json("sg00/def.json", |v| {
            v["dma_queue"]["q_gradient_in"]["owner"] = "gpu".into()
        }),
        "json_duplicate_var_id" => {
            with_json("sg00/def.json", |v| v["var"]["output"]["var_id"] = 0.into())
        }
        "json_sparse_var_id" => {
            with_json("sg00/def.json", |v| v["var"]["output"]["var_id"] = 9.into())
        }
        "json_queue_set_limit" => with_json("sg00/def.json", |v| {
            let q = v["dma_queue"]["q_gradient_in"].as_object_mut().unwrap();
            q.remove("semaphore");
            q.insert("semaphore_set".into(), (0..33).collect::<Vec<u32>>().into());
        }),
        "json_invalid_target" => with_json("kelf-a.json", |v| v["target"] = "pascal".into()),
        "json_unknown_dtype" => with_json("sg00/pool.json", |v| {
            v["dma"][0]["desc"][0]["from_dtype"] = "float128".into()
        }),
        "json_dma_unknown_queue" => with_json("sg00/pool.json", |v| {
            v["dma"][0]["queue"] = "q_missing".into()
        }),
        "json_dma_unknown_var" => with_json("sg00/pool.json", |v| {
            v["dma"][0]["desc"][0]["from"] = "nowhere".into()
        }),
        "stream_len_not_multiple_of_64_kbin" | "load_len_not_multiple_of_64" => {
            with_pool(|p| p.extend_from_slice(&[0u8; 10]))
        }
        "stream_word_len_32" | "load_word_len_32" => with_pool(|p| p[64 + 1] = 32),
        "stream_unknown_opcode" | "load_unknown_pseudo" => with_pool(|p| p[0] = 0xc0),
        "stream_empty_dma_queue" | "load_empty_dma_queue" => with_pool(|p| p[0x0c..0x2c].fill(0)),
        "load_unknown_dma_queue" => with_pool(|p| {
            p[0x0c..0x2c].fill(0);
            p[0x0c..0x12].copy_from_slice(b"q_nope");
        }),
        "load_ptc2_without_extension" => with_member("sg00/pe.bin", slot(0xd9, &[])),
        "lower_collective_unknown_tensor" => with_pe(|p| p[0x10] = 99),
        // 64 fp32 elements from gradient_in's 128 bytes (decision D285).
        "load_collective_input_too_small" => with_pe(|p| p[0x18] = 64),
        "load_branch_to_missing_label" => with_pool(|p| {
            // COMPARE_BRANCH, target mode REL_IMM (+0x0e = 3), label 77 in br_immediate (+0x30).
            *p = slot(0xa9, &[(0x0e, &[3]), (0x30, &77u32.to_le_bytes())]);
        }),
        "load_call_to_missing_function" => with_pool(|p| {
            // PSEUDO_FUNCTION_CALL with its name at +12 (decision D10).
            *p = slot(0xd3, &[(0x0c, b"no_such_fn")]);
        }),
        _ => return None,
    })
}
