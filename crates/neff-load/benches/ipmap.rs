//! IP map: the positioned linear walk vs the indexed map at 10, 1k and 100k patch rows.
//! Run: `cargo bench -p neff-load --bench ipmap`.

use neff_load::DeviceAddr;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use neff_load::ipmap::IpMap;
use neff_load::ipmap::walk::device_ip_to_neff_ip;

#[path = "workload/mod.rs"]
mod workload;
use workload::rows;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("ipmap");
    for n in [10u32, 1_000, 100_000] {
        let (rows, layout) = rows(n);
        let map = IpMap::new(&rows, &layout).expect("well-formed rows");
        let probes: Vec<DeviceAddr> = (0..64u64)
            .map(|k| layout.base.plus((layout.core.size / 64 * k / 64) * 64))
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
