//! Fuzzes the whole load pipeline (container -> kelf -> kbin -> lowering -> image -> staging).
//! The first byte picks the mode: even, the rest is a whole NEFF file (read without the hash check
//! so damage reaches the package); odd, examples/sample.neff with one engine stream (chosen by the
//! second byte) replaced by the rest, so the fuzzer works on instruction bytes directly.
//! Must never panic. Run: `cargo +nightly fuzz run load_pipeline` from the repository root.

#![no_main]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use neff_container::{Limits, Neff, ReadOptions};
use neff_kelf::Kelf;
use neff_load::model::{LoadOptions, load};

const SAMPLE: &[u8] = include_bytes!("../../examples/sample.neff");
const ENGINES: [&str; 5] = ["pe", "act", "pool", "dve", "sp"];

fn sample_members() -> &'static BTreeMap<String, Vec<u8>> {
    static M: OnceLock<BTreeMap<String, Vec<u8>>> = OnceLock::new();
    M.get_or_init(|| {
        let neff = Neff::parse(SAMPLE).expect("the sample reads");
        neff.members()
            .map(|m| (m.path.to_owned(), m.data.to_vec()))
            .collect()
    })
}

fn limits() -> Limits {
    Limits {
        max_members: 1000,
        max_member_size: 1 << 22,
        max_total_size: 1 << 24,
        max_ratio: 1100,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        let options = ReadOptions {
            verify: false,
            limits: limits(),
            ..ReadOptions::default()
        };
        let Ok(neff) = Neff::parse_with(rest, &options) else {
            return;
        };
        if let Ok(kelf) = Kelf::from_neff(&neff) {
            let _ = load(&kelf, &LoadOptions::default());
        }
    } else {
        let Some((&which, stream)) = rest.split_first() else {
            return;
        };
        let mut members = sample_members().clone();
        let engine = ENGINES[usize::from(which) % ENGINES.len()];
        members.insert(format!("sg00/{engine}.bin"), stream.to_vec());
        if let Ok(kelf) = Kelf::from_members(&members) {
            let _ = load(&kelf, &LoadOptions::default());
        }
    }
});
