//! Parse + verify throughput of generated BIR JSON (canonical and pretty), and the write path.
//! The 1 M-instruction comparison against Python's `json.load` is scripts/bench_bir.sh.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use neff_bir::generate::{GenConfig, program};
use neff_bir::json::{Style, from_slice, to_vec};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let p = program(&GenConfig {
        seed: 1,
        instructions: 100_000,
        ..GenConfig::default()
    });
    let mut g = c.benchmark_group("bir");
    g.sample_size(10);
    for (label, style) in [("canonical", Style::Canonical), ("pretty", Style::Pretty)] {
        let bytes = to_vec(&p, style);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(format!("parse_verify_100k_{label}"), |b| {
            b.iter(|| {
                let prog = from_slice(black_box(&bytes)).expect("generated JSON parses");
                black_box(neff_bir::verify(&prog).len())
            })
        });
        g.bench_function(format!("write_100k_{label}"), |b| {
            b.iter(|| black_box(to_vec(&p, style).len()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
