//! Registers and ALU ops are executed, so a counted loop (ALU add + COMPARE_BRANCH back to a
//! label) runs exactly as many times as the hardware would; credits pass between engines and a
//! DMA transfer per iteration raises SP's semaphore.

#[path = "../benches/workload/mod.rs"]
mod workload;

use neff_isa::EngineType;
use neff_sim::{SimOptions, simulate};

#[test]
fn counted_loops_run_their_count_on_every_engine() {
    for iterations in [1u32, 7, 100] {
        let model = workload::model(iterations);
        let r = simulate(&model, &SimOptions::default()).unwrap();
        assert!(r.deadlock.is_none(), "{:?}", r.deadlock);
        let sg = &r.subgraphs[0];
        let per = |e: EngineType| {
            sg.engines
                .iter()
                .find(|x| x.engine == e)
                .unwrap()
                .instructions
        };
        // Body + ALU + branch per iteration.
        let n = u64::from(iterations);
        assert_eq!(per(EngineType::Pe), n * 6);
        assert_eq!(per(EngineType::Act), n * 5);
        assert_eq!(per(EngineType::Dve), n * 6);
        assert_eq!(per(EngineType::Pool), n * 3);
        assert_eq!(per(EngineType::Sp), n * 4);
        let total: u64 = sg.engines.iter().map(|e| e.instructions).sum();
        assert_eq!(total, workload::neff_instructions(iterations));
        assert_eq!(sg.queues[0].transfers, n);
        assert!(
            r.warnings.is_empty(),
            "credits all consumed: {:?}",
            r.warnings
        );
    }
}
