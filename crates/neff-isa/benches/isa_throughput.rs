//! Throughput of decode+validate and of disassembly on a generated 1M-slot stream (figures in
//! docs/performance.md). Run: `cargo bench -p neff-isa --bench isa_throughput`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use neff_isa::text::{DisasmOptions, disassemble};
use neff_isa::validate::{ValidateOptions, validate_into};
use neff_isa::{Opcode, SlotBuf, slots};

const SLOTS: usize = 1_000_000;

/// A stream shaped like real NEFFs (reference §4.3 histograms): event waits, DMA triggers,
/// tensor ops, copies, with a deterministic mix.
fn stream() -> Vec<u8> {
    let mut templates = Vec::new();
    let mut t = SlotBuf::new(Opcode::PSEUDO_DMA_TRIGGER);
    t.put_name(0x0C, 32, b"qSPIO0");
    t.put_u32(0x30, 3);
    templates.push(t);
    let mut t = SlotBuf::new(Opcode::EVENT_SEMAPHORE);
    t.0[4..12].copy_from_slice(&[5, 24, 0, 0, 16, 0, 0, 0]);
    templates.push(t);
    let mut t = SlotBuf::new(Opcode::TENSOR_TENSOR_ARITH_OP);
    t.0[4..16].copy_from_slice(&[5, 9, 0x13, 6, 16, 0, 0, 0, 0xaa, 0x0a, 4, 0x80]);
    for o in [16, 32, 48] {
        t.put_u32(o, 0x2c180 + o as u32);
        t.0[o + 4..o + 16].copy_from_slice(&[1, 0, 1, 0, 1, 0, 0xe8, 3, 1, 0, 1, 0]);
    }
    templates.push(t);
    let mut t = SlotBuf::new(Opcode::MATMUL);
    t.0[4..8].copy_from_slice(&[0, 0, 0x13, 5]);
    t.put_u32(0x10, 0x37b00);
    templates.push(t);
    templates.push(SlotBuf::new(Opcode::NOP));
    let mut out = Vec::with_capacity(SLOTS * 64);
    for i in 0..SLOTS {
        out.extend_from_slice(&templates[(i * 7 + i / 3) % templates.len()].0);
    }
    out
}

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
