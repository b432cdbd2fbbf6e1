//! IP map: the positioned linear walk vs the indexed map at 10, 1k and 100k patch rows.
//! Run: `cargo bench -p neff-load --bench ipmap`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use neff_load::ipmap::walk::device_ip_to_neff_ip;
use neff_load::ipmap::{EngineLayout, IpMap, RawPatchRow};
use neff_load::patch::PatchSection;

/// `n` MAIN rows (INSERT 3 / MODIFY / DELETE in turn) each after a 4-slot pass-through run.
fn rows(n: u32) -> (Vec<RawPatchRow>, EngineLayout) {
    let mut rows = Vec::with_capacity(n as usize);
    let mut slot = 0u32;
    for i in 0..n {
        slot += 4;
        let (kind, count, len) = match i % 3 {
            0 => (0, 3, 3),
            1 => (1, 1, 1),
            _ => (2, 1, 0),
        };
        rows.push(RawPatchRow {
            offset: slot * 64,
            count,
            kind,
            section: PatchSection::Main as u32,
        });
        slot += len;
    }
    let layout = EngineLayout {
        base: 0x1_0000_0000,
        core: (0, u64::from(slot + 4) * 64),
        functions: (0, 0),
    };
    (rows, layout)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("ipmap");
    for n in [10u32, 1_000, 100_000] {
        let (rows, layout) = rows(n);
        let map = IpMap::new(&rows, &layout).expect("well-formed rows");
        let probes: Vec<u64> = (0..64u64)
            .map(|k| layout.base + (layout.core.1 / 64 * k / 64) * 64)
            .collect();
        g.bench_with_input(BenchmarkId::new("walk", n), &probes, |b, probes| {
            b.iter(|| {
                for &p in probes {
                    black_box(device_ip_to_neff_ip(&rows, &layout, p).ok());
                }
            })
        });
        g.bench_with_input(BenchmarkId::new("indexed", n), &probes, |b, probes| {
            b.iter(|| {
                for &p in probes {
                    black_box(map.neff_ip(p).ok());
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
