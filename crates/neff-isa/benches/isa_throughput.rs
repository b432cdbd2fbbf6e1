//! Throughput of decode+validate and of disassembly on a generated 1M-slot stream (figures in
//! docs/performance.md). Run: `cargo bench -p neff-isa --bench isa_throughput`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use neff_isa::slots;
use neff_isa::text::{DisasmOptions, disassemble};
use neff_isa::validate::{ValidateOptions, validate_into};

#[path = "workload/mod.rs"]
mod workload;
use workload::{SLOTS, stream};

fn bench(c: &mut Criterion) {
    let bytes = stream();
    let mut g = c.benchmark_group("isa_1M_slots");
    g.throughput(Throughput::Elements(SLOTS as u64));
    g.sample_size(10);
    // Decode: walk every slot, look its opcode row up, read header and events.
    g.bench_function("decode", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for (_, s) in slots(black_box(&bytes)) {
                let pseudo = s.opcode().info().is_some_and(|i| i.is_pseudo());
                let e = s.events();
                acc += u64::from(pseudo) + u64::from(e.wait_idx) + u64::from(s.inst_word_len());
            }
            black_box(acc)
        })
    });
    // Decode + validate: the validator reads header, events, opcode row, queue name per slot.
    g.bench_function("decode_validate", |b| {
        let mut diags = Vec::new();
        let opts = ValidateOptions::default();
        b.iter(|| {
            diags.clear();
            validate_into(black_box(&bytes), &opts, &mut diags);
            black_box(diags.len())
        })
    });
    g.bench_function("disassemble", |b| {
        let mut text = String::with_capacity(SLOTS * 200);
        b.iter(|| {
            text.clear();
            disassemble(black_box(&bytes), DisasmOptions::default(), &mut text);
            black_box(text.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
