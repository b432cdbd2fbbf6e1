//! Property tests over generated programs: JSON round trip, canonical stability, and the verifier
//! finding every planted fault (with the instruction's name).

use neff_bir::generate::{Fault, GenConfig, plant, program};
use neff_bir::json::{Style, from_slice, to_vec};
use neff_bir::verify;
use proptest::prelude::*;

fn cfg(seed: u64, n: usize) -> GenConfig {
    GenConfig {
        seed,
        instructions: n,
        functions: 1 + (seed % 3) as usize,
        ..GenConfig::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_are_valid_and_round_trip(seed in any::<u64>(), n in 2usize..120) {
        let p = program(&cfg(seed, n));
        prop_assert_eq!(p.len(), n);
        prop_assert!(verify(&p).is_empty(), "{:?}", verify(&p));
        for style in [Style::Pretty, Style::Canonical] {
            let bytes = to_vec(&p, style);
            let back = from_slice(&bytes).unwrap();
            prop_assert_eq!(&back, &p);
            prop_assert_eq!(to_vec(&back, style), bytes);
        }
    }

    #[test]
    fn verifier_finds_each_planted_fault(seed in any::<u64>(), n in 2usize..80, f in 0usize..Fault::ALL.len()) {
        let fault = Fault::ALL[f];
        let mut p = program(&cfg(seed, n));
        let name = plant(&mut p, fault, seed).unwrap();
        let problems = verify(&p);
        prop_assert!(
            problems.iter().any(|x| x.kind == fault && (x.inst == name || x.message.contains(&name))),
            "{:?} not found for {}: {:?}", fault, name, problems
        );
        // The faults survive JSON (except names, which JSON resolves by name).
        if !matches!(fault, neff_bir::generate::Fault::DuplicateName | neff_bir::generate::Fault::DuplicateId) {
            let back = from_slice(&to_vec(&p, Style::Canonical)).unwrap();
            prop_assert!(verify(&back).iter().any(|x| x.kind == fault));
        }
    }
}

/// Regression: a planted operand-kind fault (Fault::ALL[7]) on this seed once went unreported
/// (CI run of 2026-11-29).
#[test]
fn planted_fault_regression_seed_4286580241916996935() {
    let (seed, n) = (4286580241916996935u64, 34usize);
    for fault in Fault::ALL {
        let mut p = program(&cfg(seed, n));
        let name = plant(&mut p, fault, seed).unwrap();
        let problems = verify(&p);
        assert!(
            problems
                .iter()
                .any(|x| x.kind == fault && (x.inst == name || x.message.contains(&name))),
            "{fault:?} not found for {name}: {problems:?}"
        );
    }
}
