//! Fuzzes the assembler's text parser: any text must assemble or give a `ParseError` naming its
//! line; whatever assembles must disassemble and assemble back to the same bytes.
//! Run: `cargo +nightly fuzz run isa_text_parse` from the repository root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use neff_isa::Dialect;
use neff_isa::text::{DisasmOptions, assemble, disassemble};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for dialect in [Dialect::Semaphore8, Dialect::Legacy4] {
        match assemble(text, dialect) {
            Ok(bytes) => {
                let mut again = String::new();
                disassemble(
                    &bytes,
                    DisasmOptions {
                        dialect,
                        index_prefix: false,
                    },
                    &mut again,
                );
                assert_eq!(
                    assemble(&again, dialect).as_deref(),
                    Ok(&bytes[..]),
                    "{again}"
                );
            }
            Err(e) => assert!(e.line >= 1 && e.line <= text.lines().count().max(1), "{e}"),
        }
    }
    if let Ok(bytes) = neff_isa::sp::assemble_sp(text) {
        let mut again = String::new();
        neff_isa::sp::disassemble_sp(&bytes, false, &mut again);
        assert_eq!(
            neff_isa::sp::assemble_sp(&again).as_deref(),
            Ok(&bytes[..]),
            "{again}"
        );
    }
});
