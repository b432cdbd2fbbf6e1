//! The seven shared captures' NEFFs loaded like runtime 2.30.51 (learned from the reference
//! capture, D620): each simulates to completion — the 0xB8 DMA instruction, the bound MOVE and
//! the static queues' broadcast WRITEs executed (D580-D582) — and each engine executes exactly
//! as many instructions as the hardware recorded for it.

use std::path::Path;

use neff_isa::EngineType;
use neff_profile::{Profile, ReadLimits};
use neff_sim::cost::fit::{load_under, runtime_like};
use neff_sim::{SimOptions, simulate};

#[test]
fn every_capture_runs_like_the_hardware_instruction_for_instruction() {
    if !neff_fixtures::present(neff_fixtures::REAL_DIR) {
        return;
    }
    let device = runtime_like(
        Path::new(neff_fixtures::REFERENCE_CAPTURE),
        Path::new(neff_fixtures::REFERENCE_CAPTURE_NEFF),
    )
    .unwrap();
    let names = [
        "attn_v6",
        "moe_v6b",
        "moe_megakernel",
        "profiled/baseline_attention",
        "profiled/baseline_bf16_s512",
        "profiled/fused_attention",
        "profiled/fused_fp32_s512",
    ];
    for name in names {
        let base = format!("{}/{name}", neff_fixtures::REAL_DIR);
        let model = load_under(Path::new(&format!("{base}.neff")), &device).unwrap();
        let profile = Profile::read(
            Path::new(&format!("{base}.ntff.gz")),
            &ReadLimits::default(),
        )
        .unwrap();
        let r = simulate(&model, &SimOptions::default()).unwrap();
        assert!(r.deadlock.is_none(), "{name}: {:?}", r.deadlock);
        for sg in &r.subgraphs {
            let loaded = model.subgraphs.iter().find(|l| l.name == sg.name).unwrap();
            for e in &sg.engines {
                // The hardware's instructions at pcs of the NEFF's code (MAIN and functions:
                // what the simulator counts as the NEFF's), the runtime's inserted records
                // (bound MOVEs, the broadcast pairs' second WRITEs) included.
                let img = &loaded.engine(e.engine).unwrap().image;
                let code = |off: u64| {
                    [img.eib.core, img.functions]
                        .iter()
                        .any(|r| off >= r.offset && off < r.end())
                };
                let measured = (profile.instructions_of(&sg.name, e.engine))
                    .filter(|i| code(i.pc * neff_isa::SLOT_BYTES as u64))
                    .count() as u64;
                assert_eq!(
                    e.instructions, measured,
                    "{name} {} {}: simulated vs captured instructions",
                    sg.name, e.engine
                );
            }
            let engines: Vec<EngineType> = sg.engines.iter().map(|e| e.engine).collect();
            assert_eq!(engines.len(), EngineType::COUNT, "{name} {}", sg.name);
        }
    }
}
