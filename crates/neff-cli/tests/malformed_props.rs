//! The fuzz slice that runs inside `cargo test` (issue 9 "A short fuzz or property slice"): random
//! and mutated bytes thrown at every parser through the library APIs the fuzz targets use
//! (fuzz/fuzz_targets/*), asserting no panic and the round trips. A few hundred cases each, so it
//! stays fast; the long runs are `cargo +nightly fuzz run <target>` (docs/robustness.md).

use std::collections::BTreeMap;

use neff_container::{Limits, Neff, NeffBuilder, ReadOptions};
use neff_isa::Dialect;
use neff_isa::text::{DisasmOptions, assemble, disassemble};
use neff_isa::validate::{ValidateOptions, validate};
use proptest::prelude::*;

const SAMPLE: &[u8] = include_bytes!("../../../examples/sample.neff");
const BIR: &[u8] = include_bytes!("malformed/bir_cycle.json");

fn small_limits() -> Limits {
    Limits {
        max_members: 1000,
        max_member_size: 1 << 22,
        max_total_size: 1 << 24,
        max_ratio: 1100,
    }
}

fn sample_members() -> BTreeMap<String, Vec<u8>> {
    let neff = Neff::parse(SAMPLE).unwrap();
    neff.members()
        .map(|m| (m.path.to_owned(), m.data.to_vec()))
        .collect()
}

/// `base` with up to 8 bytes overwritten, then truncated or extended: the mutations libFuzzer
/// starts with, reproducible by proptest's seed.
fn mutated(base: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        prop::option::of(any::<prop::sample::Index>()),
        prop::collection::vec(any::<u8>(), 0..4),
    )
        .prop_map(move |(edits, cut, tail)| {
            let mut b = base.to_vec();
            for (i, v) in edits {
                let at = i.index(b.len());
                b[at] = v;
            }
            if let Some(c) = cut {
                b.truncate(c.index(b.len() + 1));
            }
            b.extend(tail);
            b
        })
}

/// Runs the whole load on a kelf built from `members`; only a panic fails.
fn load_members(members: &BTreeMap<String, Vec<u8>>) {
    if let Ok(kelf) = neff_kelf::Kelf::from_members(members) {
        let _ = kelf.kbins();
        let _ = neff_load::model::load(&kelf, &neff_load::model::LoadOptions::default());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The container reader on the sample with header or payload bytes damaged (hash on and off).
    #[test]
    fn container_reader_never_panics(bytes in mutated(SAMPLE)) {
        for verify in [false, true] {
            let options = ReadOptions { verify, limits: small_limits(), ..ReadOptions::default() };
            if let Ok(neff) = Neff::parse_with(&bytes, &options) {
                let again = NeffBuilder::from_neff(&neff).build().unwrap();
                let back = Neff::parse(&again).unwrap();
                prop_assert!(neff.members().map(|m| (m.path, m.data))
                    .eq(back.members().map(|m| (m.path, m.data))));
            }
        }
    }

    /// The inflated package (tar) damaged: rebuilt with a valid gzip and hash so it reaches the
    /// tar index.
    #[test]
    fn tar_index_never_panics(edits in prop::collection::vec((0usize..12288, any::<u8>()), 1..8)) {
        let neff = Neff::parse(SAMPLE).unwrap();
        let mut tar = neff.tar_bytes().to_vec();
        for (at, v) in edits {
            let at = at % tar.len();
            tar[at] = v;
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &tar).unwrap();
        let payload = gz.finish().unwrap();
        let mut header = neff.header().clone();
        header.data_size = payload.len() as u64;
        header.hash = neff_container::hash::compute(header.pkg_version, &payload);
        let mut file = header.encode().to_vec();
        file.extend_from_slice(&payload);
        let _ = Neff::parse_with(&file, &ReadOptions { verify: true, limits: small_limits(), ..ReadOptions::default() });
    }

    /// Every manifest of the sample damaged, then kbin and the whole load.
    #[test]
    fn kelf_and_load_never_panic(which in 0usize..12, bytes in mutated(b"{\"dma\":[{\"desc\":[],\"id\":0,\"queue\":\"q_gradient_in\"}],\"instr\":\"pool.bin\"}")) {
        let mut members = sample_members();
        let path = members.keys().nth(which % members.len()).unwrap().clone();
        let original = members[&path].clone();
        // Half the time mutate the member itself, half the time put the mutated JSON there.
        let replacement = if which % 2 == 0 {
            let mut b = original;
            for (i, &v) in bytes.iter().take(8).enumerate() {
                if !b.is_empty() {
                    let at = (v as usize * 31 + i * 17) % b.len();
                    b[at] = bytes[(i + 1) % bytes.len()];
                }
            }
            b
        } else {
            bytes
        };
        members.insert(path, replacement);
        load_members(&members);
    }

    /// Random instruction slots in each engine stream of the sample, through lowering and image
    /// assembly.
    #[test]
    fn lowering_never_panics(
        engine in 0usize..5,
        slots in prop::collection::vec(
            (prop::sample::select(vec![0xc1u8, 0xc8, 0xcc, 0xd1, 0xd2, 0xd3, 0xd4, 0xd9, 0xda, 0xdd, 0xdf, 0xa9, 0xa0, 0xa4, 0xc0]),
             prop::collection::vec(any::<u8>(), 62)),
            0..6),
    ) {
        let mut stream = Vec::new();
        for (op, rest) in slots {
            stream.push(op);
            stream.push(0x10);
            stream.extend(rest);
        }
        let mut members = sample_members();
        let name = ["pe", "act", "pool", "dve", "sp"][engine];
        members.insert(format!("sg00/{name}.bin"), stream);
        load_members(&members);
    }

    /// The slot decoder, validator and text round trip on random bytes (decision D4).
    #[test]
    fn slots_validate_and_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let mut text = String::new();
        for dialect in [Dialect::Semaphore8, Dialect::Legacy4] {
            for lowered in [false, true] {
                let _ = validate(&bytes, &ValidateOptions { generation: None, lowered, dialect });
            }
            text.clear();
            disassemble(&bytes, DisasmOptions { dialect, index_prefix: true }, &mut text);
            prop_assert_eq!(assemble(&text, dialect).unwrap(), bytes.clone());
        }
        text.clear();
        neff_isa::sp::disassemble_sp(&bytes, true, &mut text);
        prop_assert_eq!(neff_isa::sp::assemble_sp(&text).unwrap(), bytes);
    }

    /// The assembler on damaged text: a ParseError or bytes that round-trip.
    #[test]
    fn assembler_never_panics(text in mutated(b"PSEUDO_DMA_TRIGGER q_gradient_in block_id=0\n  1: EVENT_SEMAPHORE $S[11]>0\n.bytes 0a0b\n")) {
        if let Ok(text) = std::str::from_utf8(&text) {
            if let Ok(bytes) = assemble(text, Dialect::Semaphore8) {
                let mut again = String::new();
                disassemble(&bytes, DisasmOptions::default(), &mut again);
                prop_assert_eq!(assemble(&again, Dialect::Semaphore8).unwrap(), bytes);
            }
            let _ = neff_isa::sp::assemble_sp(text);
        }
    }

    /// The BIR reader, verifier and canonical writer round trip on damaged JSON.
    #[test]
    fn bir_reader_never_panics(bytes in mutated(BIR)) {
        if let Ok(prog) = neff_bir::json::from_slice(&bytes) {
            let _ = neff_bir::verify(&prog);
            let once = neff_bir::json::to_vec(&prog, neff_bir::json::Style::Canonical);
            let again = neff_bir::json::from_slice(&once).unwrap();
            prop_assert_eq!(neff_bir::json::to_vec(&again, neff_bir::json::Style::Canonical), once);
        }
    }
}

/// fuzz/regressions/isa_roundtrip: an EVENT_SEMAPHORE whose second events block has mode `None`
/// but a non-zero value printed as an empty `es=` that did not assemble (found by the
/// isa_roundtrip target; fixed in neff-isa's events_syntax canonical check).
#[test]
fn isa_roundtrip_regressions_round_trip() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fuzz/regressions/isa_roundtrip"
    );
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        for dialect in [Dialect::Semaphore8, Dialect::Legacy4] {
            let mut text = String::new();
            disassemble(
                &bytes,
                DisasmOptions {
                    dialect,
                    index_prefix: true,
                },
                &mut text,
            );
            assert_eq!(assemble(&text, dialect).unwrap(), bytes);
        }
    }
}

/// fuzz/regressions/bir_roundtrip: a 55-digit integer operand read as f64 printed with 17
/// digits that read back one ULP away, so the canonical form was not a fixed point (serde_json
/// parses floats exactly only with `float_roundtrip`; decision D122).
#[test]
fn bir_roundtrip_regressions_are_fixed_points() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fuzz/regressions/bir_roundtrip"
    );
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let prog = neff_bir::json::from_slice(&bytes).unwrap();
        let once = neff_bir::json::to_vec(&prog, neff_bir::json::Style::Canonical);
        let again = neff_bir::json::from_slice(&once).unwrap();
        assert_eq!(
            neff_bir::json::to_vec(&again, neff_bir::json::Style::Canonical),
            once
        );
    }
}
