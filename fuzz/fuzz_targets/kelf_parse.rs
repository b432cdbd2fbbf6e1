//! Fuzzes the kelf manifest parser and gen_kbin: the input is split into the members of a small
//! NEFF (kelf-a.json, sg00/def.json, an engine JSON and a stream) so the fuzzer can damage any
//! manifest while the rest stays well-formed. Must never panic.

#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Members separated by 0xFF bytes (never valid in UTF-8 JSON), defaults where absent.
    let mut parts = data.split(|b| *b == 0xFF);
    let mut next = |default: &[u8]| {
        parts
            .next()
            .map_or_else(|| default.to_vec(), <[u8]>::to_vec)
    };
    let mut m: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    m.insert(
        "kelf-a.json".into(),
        next(br#"{"target":"sunda","graphs":[{"name":"sg00","definition":"sg00/def.json"}]}"#),
    );
    m.insert(
        "sg00/def.json".into(),
        next(br#"{"pe":"pe.json","dma_queue":{},"var":{}}"#),
    );
    m.insert(
        "sg00/pe.json".into(),
        next(br#"{"dma":[],"instr":"pe.bin"}"#),
    );
    m.insert("sg00/pe.bin".into(), next(&[0u8; 64]));
    if let Ok(kelf) = neff_kelf::Kelf::from_members(&m) {
        let _ = kelf.kbins();
    }
});
