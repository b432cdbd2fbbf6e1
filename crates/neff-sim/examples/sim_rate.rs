//! Simulated instructions per second on the benchmark workload (benches/workload): one timed
//! run, for a quick figure; `cargo bench -p neff-sim` measures it with criterion.
//!
//! `cargo run --release -p neff-sim --example sim_rate [ITERATIONS]`

#[path = "../benches/workload/mod.rs"]
mod workload;

use neff_sim::{SimOptions, simulate};

fn main() {
    let iterations: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let model = workload::model(iterations);
    let opts = SimOptions::default();
    let t = std::time::Instant::now();
    let r = simulate(&model, &opts).expect("simulate");
    let dt = t.elapsed().as_secs_f64();
    assert!(r.deadlock.is_none(), "{:?}", r.deadlock);
    let engines = &r.subgraphs[0].engines;
    let neff: u64 = engines.iter().map(|e| e.instructions).sum();
    assert_eq!(neff, workload::neff_instructions(iterations));
    let n: u64 = engines.iter().map(|e| e.total_instructions).sum();
    println!(
        "{n} instructions ({iterations} iterations) in {dt:.3} s: {:.2} M simulated instructions/s; span {} ns",
        n as f64 / dt / 1e6,
        r.subgraphs[0].span_ns
    );
}
