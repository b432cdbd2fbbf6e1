//! The engine an instruction is assigned to (base field `engine` at +0x90, spec 002 §1; JSON names
//! of reference §5.1).

/// A known engine (reference §5.1 JSON names: "Unassigned", "Pool", "Activation", "PE", "DMA", "DVE",
/// "SP").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EngineKind {
    /// Not yet assigned (the constructor's 0, spec 002 §3). Valid for every opcode.
    Unassigned,
    /// The Pool (GpSimd) engine.
    Pool,
    /// The Activation (Scalar) engine.
    Activation,
    /// The PE (Tensor) engine.
    Pe,
    /// A DMA queue.
    Dma,
    /// The DVE (Vector) engine.
    Dve,
    /// The SP (Sync) engine.
    Sp,
}

impl EngineKind {
    /// Every known engine.
    pub const ALL: [EngineKind; 7] = [
        EngineKind::Unassigned,
        EngineKind::Pool,
        EngineKind::Activation,
        EngineKind::Pe,
        EngineKind::Dma,
        EngineKind::Dve,
        EngineKind::Sp,
    ];

    /// The JSON name (reference §5.1).
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Unassigned => "Unassigned",
            EngineKind::Pool => "Pool",
            EngineKind::Activation => "Activation",
            EngineKind::Pe => "PE",
            EngineKind::Dma => "DMA",
            EngineKind::Dve => "DVE",
            EngineKind::Sp => "SP",
        }
    }
}

/// The `"engine"` of an instruction: a known engine, or a name this crate does not know, kept as
/// written (bytes are the truth).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Engine {
    /// One of reference §5.1's names.
    Known(EngineKind),
    /// Any other name, preserved.
    Unknown(Box<str>),
}

impl Engine {
    /// Parses a JSON engine name; unknown names are kept.
    pub fn from_name(name: &str) -> Engine {
        match EngineKind::ALL.into_iter().find(|k| k.name() == name) {
            Some(k) => Engine::Known(k),
            None => Engine::Unknown(name.into()),
        }
    }

    /// The JSON name.
    pub fn name(&self) -> &str {
        match self {
            Engine::Known(k) => k.name(),
            Engine::Unknown(s) => s,
        }
    }
}

impl Default for Engine {
    /// `Unassigned`, the constructor's `engine = 0` (spec 002 §3).
    fn default() -> Engine {
        Engine::Known(EngineKind::Unassigned)
    }
}
