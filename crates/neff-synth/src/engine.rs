//! What a synthetic stream needs to know about each engine beyond neff-isa's [`EngineType`]
//! (its names, order and def.json keys live there): which DMA queue it owns on a target, that
//! queue's semaphores, and the semaphore its compute instructions count completions on.

use neff_isa::EngineType;

use crate::options::SynthTarget;

/// The DMA queue `engine` owns, if it issues DMAs on `target` (reference §3.3 "Observed":
/// trn1 `qSPIO0` / `qPoolIO0`; trn2 `qSPDynamicHW` / `qPoolDynamic` / `qActDynamicHW`).
pub fn dma_queue(engine: EngineType, target: SynthTarget) -> Option<&'static str> {
    match (engine, target) {
        (EngineType::Sp, SynthTarget::Sunda) => Some("qSPIO0"),
        (EngineType::Pool, SynthTarget::Sunda) => Some("qPoolIO0"),
        (EngineType::Sp, SynthTarget::Cayman) => Some("qSPDynamicHW"),
        (EngineType::Pool, SynthTarget::Cayman) => Some("qPoolDynamic"),
        (EngineType::Act, SynthTarget::Cayman) => Some("qActDynamicHW"),
        _ => None,
    }
}

/// First semaphore of `engine`'s queue set (16 consecutive semaphores; reference §3.1/§3.2:
/// SP 8-23, Pool 24-39, and 40-55 for a third queue).
pub fn queue_semaphore_base(engine: EngineType) -> u8 {
    match engine {
        EngineType::Sp => 8,
        EngineType::Pool => 24,
        _ => 40,
    }
}

/// Semaphores the runtime keeps for itself: def.json `runtime_semaphore_count` (3 in every real
/// file, reference §3.1); the runtime's PREAMBLE / POSTAMBLE barriers step on `$S[2]` with `==`
/// waits (neff-load's runtime model), so a program's own counts start above them (D360).
pub const RUNTIME_SEMAPHORES: u8 = 3;

/// The semaphore `engine` increments when a compute instruction completes (3..=7, the first ids
/// after the runtime's; the real files use small ids like 4, 5, 6 for engine-to-engine counts).
pub fn done_semaphore(engine: EngineType) -> u8 {
    RUNTIME_SEMAPHORES + engine as u8
}

/// Number of semaphores in a queue's `semaphore_set` (`num_queues` 16, reference §3.3), and
/// how much a finished transfer raises its semaphore (by `num_queues`, reference §3.3).
pub const QUEUE_SEMAPHORES: u8 = 16;
