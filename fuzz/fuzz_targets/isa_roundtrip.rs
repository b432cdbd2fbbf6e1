//! Fuzzes the text <-> slot round trip (decision D4): for any bytes, in both events dialects,
//! `assemble(disassemble(b)) == b`; the same for SP words.
//! Run: `cargo +nightly fuzz run isa_roundtrip` from the repository root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use neff_isa::Dialect;
use neff_isa::text::{DisasmOptions, assemble, disassemble};

fuzz_target!(|data: &[u8]| {
    let mut text = String::new();
    for dialect in [Dialect::Semaphore8, Dialect::Legacy4] {
        text.clear();
        disassemble(
            data,
            DisasmOptions {
                dialect,
                index_prefix: true,
            },
            &mut text,
        );
        assert_eq!(assemble(&text, dialect).as_deref(), Ok(data), "{text}");
    }
    text.clear();
    neff_isa::sp::disassemble_sp(data, true, &mut text);
    assert_eq!(
        neff_isa::sp::assemble_sp(&text).as_deref(),
        Ok(data),
        "{text}"
    );
});
