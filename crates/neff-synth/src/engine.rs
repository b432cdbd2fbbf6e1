//! The five engines of a subgraph and their names in real files (reference §2, §4.7): file stems
//! `PE`, `Activation`, `Pool`, `DVE`, `SP`; def.json keys `pe`, `act`, `pool`, `dve`, `sp`.

use crate::options::SynthTarget;

/// One engine of a TPB subgraph, in `al_hal_tpb_eng_type` order (spec 000 §3.1: PE=0 .. SP=4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Engine {
    /// Tensor engine.
    Pe,
    /// Scalar (activation) engine.
    Act,
    /// GpSimd engine.
    Pool,
    /// Vector engine.
    Dve,
    /// Sync engine.
    Sp,
}

impl Engine {
    /// All five, in eng_type order.
    pub const ALL: [Engine; 5] = [
        Engine::Pe,
        Engine::Act,
        Engine::Pool,
        Engine::Dve,
        Engine::Sp,
    ];

    /// `al_hal_tpb_eng_type` (spec 000 §3.1).
    pub fn index(self) -> u64 {
        self as u64
    }

    /// The def.json key (`pe`, `act`, ...).
    pub fn key(self) -> &'static str {
        match self {
            Self::Pe => "pe",
            Self::Act => "act",
            Self::Pool => "pool",
            Self::Dve => "dve",
            Self::Sp => "sp",
        }
    }

    /// The member file stem the compiler uses (`PE`, `Activation`, ...).
    pub fn stem(self) -> &'static str {
        match self {
            Self::Pe => "PE",
            Self::Act => "Activation",
            Self::Pool => "Pool",
            Self::Dve => "DVE",
            Self::Sp => "SP",
        }
    }

    /// The DMA queue this engine owns, if it issues DMAs on `target` (reference §3.3 "Observed":
    /// trn1 `qSPIO0` / `qPoolIO0`; trn2 `qSPDynamicHW` / `qPoolDynamic` / `qActDynamicHW`).
    pub fn dma_queue(self, target: SynthTarget) -> Option<&'static str> {
        match (self, target) {
            (Self::Sp, SynthTarget::Sunda) => Some("qSPIO0"),
            (Self::Pool, SynthTarget::Sunda) => Some("qPoolIO0"),
            (Self::Sp, SynthTarget::Cayman) => Some("qSPDynamicHW"),
            (Self::Pool, SynthTarget::Cayman) => Some("qPoolDynamic"),
            (Self::Act, SynthTarget::Cayman) => Some("qActDynamicHW"),
            _ => None,
        }
    }

    /// First semaphore of this engine's queue set (16 consecutive semaphores; reference §3.1/§3.2:
    /// SP 8-23, Pool 24-39, and 40-55 for a third queue).
    pub fn queue_semaphore_base(self) -> u8 {
        match self {
            Self::Sp => 8,
            Self::Pool => 24,
            _ => 40,
        }
    }

    /// The semaphore this engine increments when a compute instruction completes (0..4; the
    /// real files use small ids like 4, 5, 6 for engine-to-engine counts).
    pub fn done_semaphore(self) -> u8 {
        self as u8 + 2
    }
}

/// Number of semaphores in a queue's `semaphore_set` (`num_queues` 16, reference §3.3).
pub const QUEUE_SEMAPHORES: u8 = 16;
