//! Criterion: simulated instructions per second on the benchmark workload (benches/workload).

mod workload;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use neff_sim::{SimOptions, simulate};

const ITERATIONS: u32 = 20_000;

fn sim_rate(c: &mut Criterion) {
    let model = workload::model(ITERATIONS);
    let opts = SimOptions::default();
    let r = simulate(&model, &opts).expect("simulate");
    let engines = &r.subgraphs[0].engines;
    let neff: u64 = engines.iter().map(|e| e.instructions).sum();
    assert_eq!(neff, workload::neff_instructions(ITERATIONS));
    let n: u64 = engines.iter().map(|e| e.total_instructions).sum();
    let mut g = c.benchmark_group("simulate");
    g.throughput(Throughput::Elements(n));
    g.sample_size(10);
    g.bench_function("loop_workload", |b| {
        b.iter(|| simulate(&model, &opts).expect("simulate"))
    });
    g.finish();
}

criterion_group!(benches, sim_rate);
criterion_main!(benches);
