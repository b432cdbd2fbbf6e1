//! The IP-map workload shared by `benches/ipmap.rs` (criterion) and `examples/ipmap_rate.rs`
//! (the lookups/s line scripts/bench.sh reads).

use neff_load::image::CodeRange;
use neff_load::ipmap::{DeviceAddr, EngineLayout, RawPatchRow};
use neff_lower::patch::PatchSection;

/// `n` MAIN rows (INSERT 3 / MODIFY / DELETE in turn) each after a 4-slot pass-through run.
pub(crate) fn rows(n: u32) -> (Vec<RawPatchRow>, EngineLayout) {
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
        base: DeviceAddr(0x1_0000_0000),
        core: CodeRange {
            offset: 0,
            size: u64::from(slot + 4) * 64,
        },
        functions: CodeRange::default(),
    };
    (rows, layout)
}
