//! Synthetic NEFFs (neff-synth) simulate to the end: every wait the generator writes is one the
//! subgraph's own increments and transfers satisfy, in an order that cannot deadlock (decision
//! D360), on both generations, with functions and several subgraphs.

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::model::{LoadOptions, load};
use neff_sim::{SimOptions, simulate};
use neff_synth::{SynthOptions, SynthTarget};

fn simulate_synth(opts: &SynthOptions) -> neff_sim::SimResult {
    let bytes = neff_synth::generate(opts).expect("synth");
    let neff = Neff::parse(&bytes).expect("NEFF");
    let kelf = Kelf::from_neff(&neff).expect("kelf");
    let model = load(&kelf, &LoadOptions::default()).expect("load");
    simulate(&model, &SimOptions::default()).expect("simulate")
}

#[test]
fn synthetic_neffs_simulate_to_completion() {
    let cases = [
        (SynthTarget::Sunda, 1, 2_000, 0),
        (SynthTarget::Sunda, 2, 9_000, 3),
        (SynthTarget::Cayman, 1, 2_000, 0),
        (SynthTarget::Cayman, 2, 9_000, 2),
    ];
    for (target, subgraphs, slots, functions) in cases {
        for seed in [0, 1, 7] {
            let opts = SynthOptions {
                subgraphs,
                slots_per_engine: slots,
                functions,
                seed,
                target,
            };
            let r = simulate_synth(&opts);
            assert!(r.deadlock.is_none(), "{opts:?}: {:?}", r.deadlock);
            assert_eq!(r.subgraphs.len(), subgraphs as usize, "{opts:?}");
            for sg in &r.subgraphs {
                assert!(!sg.deadlocked && sg.span_ns > 0, "{opts:?} {}", sg.name);
                // Every engine ran its whole MAIN: at least the body slots the generator wrote
                // (lowering drops only pseudo slots such as labels and function markers).
                let min = slots * 9 / 10;
                for e in &sg.engines {
                    assert!(
                        e.instructions >= min,
                        "{opts:?} {} {}: {}",
                        sg.name,
                        e.engine,
                        e.instructions
                    );
                }
            }
        }
    }
}
