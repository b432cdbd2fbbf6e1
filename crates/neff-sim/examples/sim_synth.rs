//! Simulated instructions per second on a `neff synth` NEFF (decision D360: synthetic NEFFs run
//! to the end): generation and load untimed, then one timed `simulate` without the per-instruction
//! record (the CLI's `neff sim` records every instruction for its timeline and critical path),
//! split into its two stages: decoding and pricing the images (timed alone first), and the run.
//!
//! `cargo run --release -p neff-sim --example sim_synth [SLOTS_PER_ENGINE] [sunda|cayman]`

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::model::{LoadOptions, load};
use neff_sim::{SimOptions, compile, simulate};
use neff_synth::{SynthOptions, SynthTarget};

fn main() {
    let mut args = std::env::args().skip(1);
    let slots: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(838_861);
    let target = args
        .next()
        .and_then(|a| SynthTarget::from_name(&a))
        .unwrap_or(SynthTarget::Cayman);
    let opts = SynthOptions {
        slots_per_engine: slots,
        functions: 4,
        seed: 1,
        target,
        ..SynthOptions::default()
    };
    let bytes = neff_synth::generate(&opts).expect("synth");
    let neff = Neff::parse(&bytes).expect("NEFF");
    let kelf = Kelf::from_neff(&neff).expect("kelf");
    let model = load(&kelf, &LoadOptions::default()).expect("load");
    let sim = SimOptions::default();
    // Stage 1 alone: decoding the images and pricing every op (`simulate` does it again).
    let t = std::time::Instant::now();
    let programs = compile(&model, &model.subgraphs[0], &sim).expect("compile");
    let decode = t.elapsed().as_secs_f64();
    drop(programs);
    let t = std::time::Instant::now();
    let r = simulate(&model, &sim).expect("simulate");
    let dt = t.elapsed().as_secs_f64();
    assert!(r.deadlock.is_none(), "{:?}", r.deadlock);
    let n: u64 = r.subgraphs[0]
        .engines
        .iter()
        .map(|e| e.total_instructions)
        .sum();
    println!(
        "{} {slots} slots/engine: {n} instructions in {dt:.3} s: {:.2} M simulated instructions/s \
         (decode {decode:.3} s, run {:.3} s: {:.2} M/s); span {} ns",
        target.name(),
        n as f64 / dt / 1e6,
        dt - decode,
        n as f64 / (dt - decode) / 1e6,
        r.subgraphs[0].span_ns
    );
}
