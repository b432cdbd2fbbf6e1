//! Simulated instructions per second on a `neff synth` NEFF (decision D360: synthetic NEFFs run
//! to the end): generation and load untimed, then one timed `simulate` without the per-instruction
//! record (the CLI's `neff sim` records every instruction for its timeline and critical path),
//! split into its two stages: decoding and pricing the images (timed alone first), and the run.
//! On Linux it also prints the CPU time of each (every thread, from `/proc/self/stat`): on a
//! shared machine the wall time swings with the others' load, the CPU time much less (D366).
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
    let (t, c0) = (std::time::Instant::now(), cpu_secs());
    let programs = compile(&model, &model.subgraphs[0], &sim).expect("compile");
    let (decode, c1) = (t.elapsed().as_secs_f64(), cpu_secs());
    drop(programs);
    let (t, c2) = (std::time::Instant::now(), cpu_secs());
    let r = simulate(&model, &sim).expect("simulate");
    let (dt, c3) = (t.elapsed().as_secs_f64(), cpu_secs());
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
    if let (Some(c0), Some(c1), Some(c2), Some(c3)) = (c0, c1, c2, c3) {
        println!(
            "CPU time (all threads): simulate {:.2} s, decode {:.2} s, run {:.2} s",
            c3 - c2,
            c1 - c0,
            (c3 - c2) - (c1 - c0)
        );
    }
}

/// The process's user + system CPU time so far, every thread (Linux `/proc/self/stat` fields
/// 14 and 15, in the kernel's fixed 100 Hz `USER_HZ` ticks: 10 ms resolution).
fn cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: f64 = fields.next()?.parse().ok()?;
    let stime: f64 = fields.next()?.parse().ok()?;
    Some((utime + stime) / 100.0)
}
