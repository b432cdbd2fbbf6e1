//! Fuzzes the slot decoder and the validator: any bytes, read as a TPB stream in both events
//! dialects and as SP words, must print, explain and validate without a panic, and the validator's
//! offsets must lie inside the stream.
//! Run: `cargo +nightly fuzz run isa_slots` from the repository root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use neff_isa::text::{DisasmOptions, disassemble};
use neff_isa::validate::{ValidateOptions, validate};
use neff_isa::{Dialect, Generation, slots};

fuzz_target!(|data: &[u8]| {
    let mut out = String::new();
    for dialect in [Dialect::Semaphore8, Dialect::Legacy4] {
        for (_, s) in slots(data) {
            let rows = neff_isa::explain::explain(&s, dialect);
            neff_isa::explain::write_rows(&s, &rows, &mut out);
        }
        out.clear();
        disassemble(
            data,
            DisasmOptions {
                dialect,
                index_prefix: true,
            },
            &mut out,
        );
        for generation in [
            None,
            Generation::from_name("sunda"),
            Generation::from_name("cayman"),
        ] {
            for lowered in [false, true] {
                let opts = ValidateOptions {
                    generation,
                    lowered,
                    dialect,
                };
                for d in validate(data, &opts) {
                    assert!((d.offset.0 as usize) < data.len().max(1), "{d}");
                    let _ = d.to_string();
                }
            }
        }
    }
    out.clear();
    neff_isa::sp::disassemble_sp(data, true, &mut out);
});
